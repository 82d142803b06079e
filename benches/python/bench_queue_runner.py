"""Input pipeline throughput: a FIFOQueue fed by a QueueRunner, drained by `dequeue_many`.

The pipeline, built the same way in ferroflow and in TensorFlow (`tensorflow.compat.v1`,
graph mode):

    q = FIFOQueue(capacity, [float32], shapes=[[]])
    enqueue = q.enqueue([random_uniform([])])            # "enqueue"
    # or q.enqueue_many([random_uniform([64])])          # "enqueue_many(64)"
    QueueRunner(q, [enqueue] * 2) started with a Coordinator
    main thread: sess.run(q.dequeue_many(64)) in a loop

Elements per second reaching the main thread (best of `--repeat` rounds of
`--seconds` each, after a warm-up; each library in its own process), ferroflow's ratio
to TensorFlow, and for scale
Python's `queue.Queue` with 2 producer threads and a consumer taking 64 items at a
time. ferroflow's runner threads run in Rust without the GIL; TensorFlow's are Python
threads calling `sess.run`.

Run: python benches/python/bench_queue_runner.py [--seconds S] [--repeat R] [--capacity C]
"""

import argparse
import json
import os
import queue
import threading
import time

from _timing import run_each

BATCH = 64


def build(tf, capacity, many):
    """(dequeue tensor, queue runner) of the pipeline in `tf`'s default graph."""
    q = tf.FIFOQueue(capacity, [tf.float32], shapes=[[]])
    if many:
        enqueue = q.enqueue_many([tf.random_uniform([BATCH])])
    else:
        enqueue = q.enqueue([tf.random_uniform([])])
    return q.dequeue_many(BATCH), tf.train.QueueRunner(q, [enqueue] * 2)


def run_pipeline(tf, capacity, many, seconds, repeat):
    """Best elements/s of the main thread's `sess.run(dequeue_many(64))` loop."""
    g = tf.Graph()
    with g.as_default():
        batch, runner = build(tf, capacity, many)
        with tf.Session(graph=g) as sess:
            coord = tf.train.Coordinator()
            threads = runner.create_threads(sess, coord=coord, daemon=True, start=True)
            for _ in range(50):
                sess.run(batch)
            best = 0.0
            for _ in range(repeat):
                n, t0 = 0, time.perf_counter()
                while time.perf_counter() - t0 < seconds:
                    sess.run(batch)
                    n += BATCH
                best = max(best, n / (time.perf_counter() - t0))
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    return best


def run_python_queue(capacity, seconds, repeat):
    """Best items/s through `queue.Queue` with 2 producer threads, taken 64 at a time."""
    q = queue.Queue(capacity)
    stop = threading.Event()

    def produce():
        while not stop.is_set():
            try:
                q.put(1.0, timeout=0.1)
            except queue.Full:
                pass

    producers = [threading.Thread(target=produce, daemon=True) for _ in range(2)]
    for p in producers:
        p.start()
    best = 0.0
    for _ in range(repeat):
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _ in range(BATCH):
                q.get()
            n += BATCH
        best = max(best, n / (time.perf_counter() - t0))
    stop.set()
    for p in producers:
        p.join()
    return best


def child(lib, capacity, seconds, repeat):
    """{label: elements/s} of both pipelines in `lib`, in this process."""
    if lib == "tensorflow":
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
    else:
        import ferroflow as tf
    return {
        "enqueue": run_pipeline(tf, capacity, False, seconds, repeat),
        f"enqueue_many({BATCH})": run_pipeline(tf, capacity, True, seconds, repeat),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--capacity", type=int, default=1000)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if args.child:
        print(json.dumps(child(args.child, args.capacity, args.seconds, args.repeat)))
        return

    # Each library in its own process: a library's idle runner threads and thread
    # pools would otherwise share the two cores with the next one's.
    options = ["--capacity", args.capacity, "--seconds", args.seconds, "--repeat", args.repeat]
    rates = run_each(__file__, (("ferroflow", "ferroflow"), ("tensorflow", "tensorflow")), *options)

    print(f"capacity {args.capacity}, 2 enqueue threads, dequeue_many({BATCH}) in the main thread")
    for label in rates["ferroflow"]:
        for name, by_label in rates.items():
            rate = by_label[label]
            tf_rate = rates.get("tensorflow", {}).get(label)
            ratio = rate / tf_rate if tf_rate else float("nan")
            print(f"{label:18s} {name:12s} {rate:12,.0f} elements/s   {ratio:6.1f}x TensorFlow")
    rate = run_python_queue(args.capacity, args.seconds, args.repeat)
    print(f"{'queue.Queue':18s} {'python':12s} {rate:12,.0f} items/s (2 producer threads)")


if __name__ == "__main__":
    main()
