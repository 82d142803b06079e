"""`tf.scan` over long sequences, forward and with its gradient (linear in length).

`scan(lambda a, x: a * w + x, xs)` over `[n, 16]` float32 rows, then the gradient of
the sum of all accumulators with respect to `xs` and `w`, for n = 2,500, 5,000 and
10,000, in ferroflow and TensorFlow (TF-1.x `tf.scan`: a `while_loop` over
`TensorArray`s, control flow v1), each in its own process with 2 threads. Prints
milliseconds per run, the time per step (flat when cost is linear in length) and
the ratio.

Run: python benches/python/bench_scan.py [--lengths 2500 5000 10000]
"""

import argparse
import json
import os

import numpy as np
from _timing import best_per_call, run_each

WIDTH = 16


def measure(tf, n):
    """`(forward, forward+backward)` seconds per run of a scan of length `n`."""
    g = tf.Graph()
    with g.as_default():
        xs = tf.placeholder(tf.float32, [n, WIDTH])
        w = tf.Variable(tf.fill([WIDTH], 0.5))
        ys = tf.scan(lambda a, x: a * w + x, xs, initializer=tf.zeros([WIDTH]))
        grads = tf.gradients(tf.reduce_sum(ys), [xs, w])
        cfg = tf.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
        sess = tf.Session(graph=g, config=cfg)
        sess.run(tf.global_variables_initializer())
    feed = {xs: np.random.default_rng(0).random((n, WIDTH), dtype=np.float32)}
    forward = best_per_call(lambda: sess.run(ys, feed), 3, 3, 1)
    backward = best_per_call(lambda: sess.run(grads, feed), 3, 3, 1)
    return forward, backward


def child(lib, lengths):
    if lib == "ferroflow":
        import ferroflow as tf
    else:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
    print(json.dumps({str(n): measure(tf, n) for n in lengths}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[2500, 5000, 10000])
    parser.add_argument("--child", default=None)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.lengths)
        return
    libs = [("ferroflow", "ferroflow"), ("tensorflow", "tensorflow")]
    results = run_each(__file__, libs, "--lengths", *args.lengths)
    head = ("n", "library", "fwd ms", "us/step", "fwd+bwd ms", "us/step")
    print("{:>6} {:>10} {:>9} {:>8} {:>11} {:>8}".format(*head))
    for n in args.lengths:
        for lib, r in results.items():
            f, b = r[str(n)]
            row = (n, lib, f * 1e3, f / n * 1e6, b * 1e3, b / n * 1e6)
            print("{:>6} {:>10} {:9.1f} {:8.2f} {:11.1f} {:8.2f}".format(*row))
    if "tensorflow" in results:
        for n in args.lengths:
            (f, b), (tf_f, tf_b) = results["ferroflow"][str(n)], results["tensorflow"][str(n)]
            print(
                f"n={n}: TensorFlow / ferroflow = {tf_f / f:.2f}x forward, "
                f"{tf_b / b:.2f}x with gradient"
            )


if __name__ == "__main__":
    main()
