"""`enqueue_many` and `dequeue_many` on a FIFO queue that already holds many elements:
ferroflow vs TensorFlow (`tensorflow.compat.v1`, graph mode).

For each queue length L, a `FIFOQueue(L + 2 * ROWS, [float32], shapes=[[64]])` is
filled to L elements, then one round is `sess.run(enqueue_many)` of a `ROWS x 64`
batch held in a variable followed by `sess.run(dequeue_many(ROWS))`, so the length
stays at L. Prints µs per `enqueue_many` and per `dequeue_many` (best of --repeat
rounds of --number calls; each library in its own process) and ferroflow's speed-up.
The time of a call should not depend on L.

Run: python benches/python/bench_queue_length.py [--lengths 0 10000 ...] [--rows R]
"""

import argparse
import json
import os
import time

import numpy as np
from _timing import run_each

WIDTH = 64


def measure(tf, length, rows, number, repeat):
    """(µs per enqueue_many, µs per dequeue_many) with `length` elements held."""
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(length + 2 * rows, [tf.float32], shapes=[[WIDTH]])
        batch = tf.Variable(np.random.default_rng(0).random((rows, WIDTH), dtype=np.float32))
        enqueue = q.enqueue_many([batch])
        dequeue = q.dequeue_many(rows)
        fill = tf.placeholder(tf.float32, [None, WIDTH])
        fill_op = q.enqueue_many([fill])
        size = q.size()
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            chunk = np.zeros((min(max(length, 1), 100_000), WIDTH), np.float32)
            while sess.run(size) < length:
                n = min(len(chunk), length - sess.run(size))
                sess.run(fill_op, {fill: chunk[:n]})
            enq, deq = float("inf"), float("inf")
            for _ in range(repeat + 1):  # the first round warms up
                te = td = 0.0
                for _ in range(number):
                    t0 = time.perf_counter()
                    sess.run(enqueue)
                    t1 = time.perf_counter()
                    sess.run(dequeue)
                    te += t1 - t0
                    td += time.perf_counter() - t1
                enq, deq = min(enq, te / number), min(deq, td / number)
            assert sess.run(size) == length
            return enq * 1e6, deq * 1e6


def child(lib, lengths, rows, number, repeat):
    if lib == "tensorflow":
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
    else:
        import ferroflow as tf
    return {str(n): measure(tf, n, rows, number, repeat) for n in lengths}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lengths", type=int, nargs="+", default=[0, 10_000, 100_000, 1_000_000])
    p.add_argument("--rows", type=int, default=256)
    p.add_argument("--number", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if args.child:
        print(json.dumps(child(args.child, args.lengths, args.rows, args.number, args.repeat)))
        return
    options = ["--rows", args.rows, "--number", args.number, "--repeat", args.repeat, "--lengths"]
    options += args.lengths
    libs = (("ferroflow", "ferroflow"), ("tensorflow", "tensorflow"))
    results = run_each(__file__, libs, *options)
    ours, theirs = results["ferroflow"], results.get("tensorflow", {})
    print(f"FIFOQueue of [{WIDTH}] floats, enqueue_many/dequeue_many of {args.rows} rows")
    print(f"{'held':>10s} {'enq µs':>8s} {'TF':>8s} {'x':>6s} {'deq µs':>8s} {'TF':>8s} {'x':>6s}")
    for n, (e, d) in ours.items():
        te, td = theirs.get(n, (float("nan"), float("nan")))
        print(f"{int(n):>10d} {e:8.2f} {te:8.2f} {te / e:6.1f} {d:8.2f} {td:8.2f} {td / d:6.1f}")


if __name__ == "__main__":
    main()
