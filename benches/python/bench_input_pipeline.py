"""Record-reading input pipeline throughput: TFRecord files -> parse -> shuffle_batch.

The pipeline, built the same way in ferroflow and in TensorFlow (`tensorflow.compat.v1`,
graph mode) in one process, over the same TFRecord files of `tf.train.Example`s
(a 32-float `FixedLenFeature`, an int64 label and a `VarLenFeature` of bytes):

    files = string_input_producer(paths)
    "per record":  _, v = TFRecordReader().read(files)
                   x = parse_single_example(v, features)
                   shuffle_batch(x, 64, num_threads=2)
    "read_up_to":  _, v = TFRecordReader().read_up_to(files, 64)
                   x = parse_example(v, features)
                   shuffle_batch(x, 64, num_threads=2, enqueue_many=True)
    main thread: sess.run(batch) in a loop

Records per second reaching the main thread (best of `--repeat` rounds of `--seconds`
each, after a warm-up) and ferroflow's ratio to TensorFlow. ferroflow's two runner
threads read, parse and enqueue in Rust without the GIL; TensorFlow's are Python
threads calling `sess.run`.

Run: python benches/python/bench_input_pipeline.py [--seconds S] [--repeat R]
"""

import argparse
import os
import tempfile
import time

import numpy as np

BATCH = 64
FILES = 4
PER_FILE = 5000


def write_files(tf, directory):
    """TFRecord files of serialized Examples, written with `tf`'s writer."""
    rng = np.random.default_rng(0)
    paths = []
    for f in range(FILES):
        path = os.path.join(directory, f"data-{f}.tfrecord")
        with tf.python_io.TFRecordWriter(path) as w:
            for i in range(PER_FILE):
                ex = tf.train.Example(
                    features=tf.train.Features(
                        feature={
                            "x": tf.train.Feature(
                                float_list=tf.train.FloatList(value=rng.random(32))
                            ),
                            "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
                            "tags": tf.train.Feature(
                                bytes_list=tf.train.BytesList(
                                    value=[b"t%d" % j for j in range(i % 4)]
                                )
                            ),
                        }
                    )
                )
                w.write(ex.SerializeToString())
        paths.append(path)
    return paths


def features(tf):
    return {
        "x": tf.FixedLenFeature([32], tf.float32),
        "y": tf.FixedLenFeature([], tf.int64),
        "tags": tf.VarLenFeature(tf.string),
    }


def build(tf, paths, batched):
    files = tf.train.string_input_producer(paths)
    reader = tf.TFRecordReader()
    if batched:
        _, v = reader.read_up_to(files, BATCH)
        parsed = tf.parse_example(v, features(tf))
    else:
        _, v = reader.read(files)
        parsed = tf.parse_single_example(v, features(tf))
    return tf.train.shuffle_batch(
        [parsed["x"], parsed["y"]],
        BATCH,
        capacity=20 * BATCH,
        min_after_dequeue=10 * BATCH,
        num_threads=2,
        enqueue_many=batched,
    )


def run(tf, paths, batched, seconds, repeat):
    """Best records/s of the main thread's `sess.run(batch)` loop."""
    g = tf.Graph()
    with g.as_default():
        batch = build(tf, paths, batched)
        with tf.Session(graph=g) as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            for _ in range(20):
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import tensorflow.compat.v1 as tf1

    import ferroflow

    tf1.disable_v2_behavior()
    libs = {"ferroflow": ferroflow, "tensorflow": tf1}
    with tempfile.TemporaryDirectory() as d:
        paths = write_files(tf1, d)
        print(f"{FILES} TFRecord files x {PER_FILE} Examples, 2 runner threads, batch {BATCH}")
        for batched in (False, True):
            label = f"read_up_to({BATCH})" if batched else "per record"
            rates = {
                name: run(tf, paths, batched, args.seconds, args.repeat)
                for name, tf in libs.items()
            }
            for name, rate in rates.items():
                ratio = rate / rates["tensorflow"]
                print(f"{label:16s} {name:12s} {rate:12,.0f} records/s   {ratio:6.1f}x TensorFlow")


if __name__ == "__main__":
    main()
