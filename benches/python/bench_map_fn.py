"""`tf.map_fn` with `parallel_iterations`: ferroflow (1 and 10 at once) vs TensorFlow.

`map_fn(lambda m: reduce_sum(matmul(tanh(m), m), 0), xs)` over `n` square matrices of
side `d`, for small, middle and large bodies, each library in its own process with 2
threads. ferroflow runs a loop of independent iterations (`map_fn`'s) several bodies
at a time when a body takes long enough to share out (over 40 us); TensorFlow runs
its own loop with its default `parallel_iterations=10`. Prints milliseconds per run
and ratios.

Run: python benches/python/bench_map_fn.py
"""

import argparse
import json
import os

import numpy as np
from _timing import best_per_call, run_each

CASES = [(20000, 4), (500, 64), (200, 128), (50, 256)]


def measure(tf, n, d, parallel_iterations):
    """Seconds per run of the map over `n` matrices of side `d`."""
    g = tf.Graph()
    with g.as_default():
        xs = tf.placeholder(tf.float32, [n, d, d])
        ys = tf.map_fn(
            lambda m: tf.reduce_sum(tf.matmul(tf.tanh(m), m), 0),
            xs,
            parallel_iterations=parallel_iterations,
        )
        cfg = tf.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
        sess = tf.Session(graph=g, config=cfg)
    feed = {xs: np.random.default_rng(0).uniform(-0.1, 0.1, (n, d, d)).astype(np.float32)}
    return best_per_call(lambda: sess.run(ys, feed), 3, 3, 1)


def child(lib):
    if lib.startswith("ferroflow"):
        import ferroflow as tf
    else:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
    width = 1 if lib.endswith("-1") else 10
    print(json.dumps({f"{n}x{d}": measure(tf, n, d, width) for n, d in CASES}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", default=None)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    libs = [("ferroflow", "ferroflow"), ("ferroflow-1", "ferroflow"), ("tensorflow", "tensorflow")]
    results = run_each(__file__, libs)
    for n, d in CASES:
        key = f"{n}x{d}"
        line = ", ".join(f"{lib} {r[key] * 1e3:.1f} ms" for lib, r in results.items())
        print(f"{n} matrices {d}x{d}: {line}")
        ours = results["ferroflow"][key]
        for lib, r in results.items():
            if lib != "ferroflow":
                print(f"  {lib} / ferroflow = {r[key] / ours:.2f}x")


if __name__ == "__main__":
    main()
