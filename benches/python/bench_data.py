"""`tf.data` throughput: a TFRecord file of Examples -> parse -> shuffle -> batch -> prefetch.

One TFRecord file of `--records` serialized `tf.train.Example`s (a 784-float `image`
`FixedLenFeature` and an int64 `label`), written once; then records per second of one
pass over the whole file, for T (threads) in {1, 2}:

    tf.data, "parse_single_example" (ferroflow and TensorFlow's `tensorflow.compat.v1`,
    graph mode, the same graph):
        TFRecordDataset(path).map(parse_single_example, num_parallel_calls=T)
            .shuffle(1024, seed=1).batch(64).prefetch(2)
    tf.data, "batch -> parse_example":
        TFRecordDataset(path).shuffle(1024, seed=1).batch(64)
            .map(parse_example, num_parallel_calls=T).prefetch(2)
    main thread: sess.run(iterator.initializer), then sess.run(get_next) to the end
    queues (ferroflow and TensorFlow), "shuffle_batch": string_input_producer([path]) ->
        TFRecordReader().read -> parse_single_example -> shuffle_batch(64, num_threads=T),
        with QueueRunners; `records` records' worth of batches run by the main thread
    PyTorch: DataLoader(batch_size=64, shuffle=True, num_workers=0 for T=1, 2 for T=2)
        over a Dataset whose items are the file's records, each parsed from its
        Example bytes (protobuf `Example.FromString`) into numpy

Each library runs in its own process; the sessions have T inter- and intra-op threads
(PyTorch: `torch.set_num_threads(T)`). A measurement is the best of `--repeat` passes
after a warm-up pass, which also checks the values (every record reaching the main
thread is its label's image; a tf.data or DataLoader pass has each record once); the
graph is built before. The first records of an unshuffled pass of each library are
checked against those written. Prints records/s and ferroflow's ratios to TensorFlow
and to PyTorch (the DataLoader at the same T).

Run: python benches/python/bench_data.py [--records N] [--repeat R]
"""

import argparse
import functools
import json
import math
import mmap
import os
import struct
import tempfile
import time

import numpy as np
from _timing import installed, run_child

BATCH = 64
SHUFFLE = 1024
PREFETCH = 2
DIM = 784
THREADS = (1, 2)
CHECK = 3  # records of the unshuffled pass compared with the file's


@functools.cache
def images(n):
    """The images written: record i is `images(n)[i]`, with label i."""
    return np.random.default_rng(0).random((n, DIM), dtype=np.float32)


def write_file(path, n):
    """`n` serialized Examples in one TFRecord file, written with ferroflow's writer."""
    import ferroflow as tf

    with tf.python_io.TFRecordWriter(path) as w:
        for i, image in enumerate(images(n)):
            ex = tf.train.Example(
                features=tf.train.Features(
                    feature={
                        "image": tf.train.Feature(float_list=tf.train.FloatList(value=image)),
                        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                    }
                )
            )
            w.write(ex.SerializeToString())


class Tally:
    """What one pass produced: records and the sum of labels; checks each record's image."""

    def __init__(self, truth):
        self.truth, self.count, self.label_sum = truth, 0, 0

    def add(self, image, label):
        image, label = np.asarray(image), np.asarray(label)
        assert image.shape == (len(label), DIM), image.shape
        assert np.array_equal(image, self.truth[label]), "an image is not its label's"
        self.count += len(label)
        self.label_sum += int(label.sum())

    def result(self):
        return {"count": self.count, "label_sum": self.label_sum}


# ---------------------------------------------------------------------------------------
# ferroflow and TensorFlow: the same graph


def features(tf):
    return {
        "image": tf.FixedLenFeature([DIM], tf.float32),
        "label": tf.FixedLenFeature([], tf.int64),
    }


def dataset(tf, path, variant, threads, shuffle=True):
    """The pipeline's dataset; `variant` "single" (parse per record) or "batched"."""

    def parse_single(record):
        p = tf.parse_single_example(record, features(tf))
        return p["image"], p["label"]

    def parse_batch(records):
        p = tf.parse_example(records, features(tf))
        return p["image"], p["label"]

    ds = tf.data.TFRecordDataset(path)
    if variant == "single":
        ds = ds.map(parse_single, num_parallel_calls=threads)
        if shuffle:
            ds = ds.shuffle(SHUFFLE, seed=1)
        ds = ds.batch(BATCH)
    else:
        if shuffle:
            ds = ds.shuffle(SHUFFLE, seed=1)
        ds = ds.batch(BATCH).map(parse_batch, num_parallel_calls=threads)
    return ds.prefetch(PREFETCH)


def session(tf, graph, threads):
    cfg = tf.ConfigProto(inter_op_parallelism_threads=threads, intra_op_parallelism_threads=threads)
    return tf.Session(graph=graph, config=cfg)


def data_pass(tf, sess, it, batch, tally=None):
    """Seconds of one pass: the iterator's initializer, then `get_next` to the end."""
    t0 = time.perf_counter()
    sess.run(it.initializer)
    n = 0
    while True:
        try:
            image, label = sess.run(batch)
        except tf.errors.OutOfRangeError:
            break
        n += len(label)
        if tally is not None:
            tally.add(image, label)
    return time.perf_counter() - t0, n


def run_data(tf, path, records, variant, threads, repeat):
    """(best records/s of a pass, the warm-up pass's tally)."""
    g = tf.Graph()
    with g.as_default():
        it = tf.data.make_initializable_iterator(dataset(tf, path, variant, threads))
        batch = it.get_next()
    with session(tf, g, threads) as sess:
        tally = Tally(images(records))
        data_pass(tf, sess, it, batch, tally)
        best = 0.0
        for _ in range(repeat):
            seconds, n = data_pass(tf, sess, it, batch)
            assert n == records, (n, records)
            best = max(best, n / seconds)
    return best, tally.result()


def run_queue(tf, path, records, threads, repeat):
    """(best records/s of `records` records' worth of `shuffle_batch` runs, warm-up tally)."""
    g = tf.Graph()
    with g.as_default():
        files = tf.train.string_input_producer([path])
        _, v = tf.TFRecordReader().read(files)
        p = tf.parse_single_example(v, features(tf))
        batch = tf.train.shuffle_batch(
            [p["image"], p["label"]],
            BATCH,
            capacity=SHUFFLE + 3 * BATCH,
            min_after_dequeue=SHUFFLE,
            num_threads=threads,
        )
    with session(tf, g, threads) as sess:
        coord = tf.train.Coordinator()
        runners = tf.train.start_queue_runners(sess, coord)
        tally = Tally(images(records))
        for _ in range(20):
            tally.add(*sess.run(batch))
        steps = math.ceil(records / BATCH)
        best = 0.0
        for _ in range(repeat):
            t0 = time.perf_counter()
            for _ in range(steps):
                sess.run(batch)
            best = max(best, steps * BATCH / (time.perf_counter() - t0))
        coord.request_stop()
        coord.join(runners, stop_grace_period_secs=10)
    return best, tally.result()


def unshuffled(tf, path):
    """The first `CHECK` records of the unshuffled per-record pipeline, as lists."""
    g = tf.Graph()
    with g.as_default():
        it = tf.data.make_initializable_iterator(dataset(tf, path, "single", 1, shuffle=False))
        batch = it.get_next()
    with session(tf, g, 1) as sess:
        sess.run(it.initializer)
        image, label = sess.run(batch)
    return [[int(label[i]), image[i].tolist()] for i in range(CHECK)]


def child_graph(lib, path, records, repeat):
    if lib == "tensorflow":
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
    else:
        import ferroflow as tf
    out = {"unshuffled": unshuffled(tf, path)}
    for t in THREADS:
        for variant in ("single", "batched"):
            out[f"{variant}/{t}"] = run_data(tf, path, records, variant, t, repeat)
        out[f"queue/{t}"] = run_queue(tf, path, records, t, repeat)
    return out


# ---------------------------------------------------------------------------------------
# PyTorch: a DataLoader over the same records, each parsed from its Example bytes


def example_class():
    """`Example` from ferroflow's protos (wire-compatible with TensorFlow's), else TF's."""
    if installed("ferroflow"):
        from ferroflow.protos import Example

        return Example
    from tensorflow.core.example.example_pb2 import Example

    return Example


class RecordDataset:
    """The TFRecord file's records (offsets found once), item i parsed into numpy."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        self.offsets = []
        pos = 0
        while pos < len(self.data):
            (length,) = struct.unpack_from("<Q", self.data, pos)
            self.offsets.append((pos + 12, length))
            pos += 16 + length
        self.example = example_class()

    def __len__(self):
        return len(self.offsets)

    def __getitem__(self, i):
        start, length = self.offsets[i]
        feature = self.example.FromString(self.data[start : start + length]).features.feature
        image = np.asarray(feature["image"].float_list.value, dtype=np.float32)
        return image, feature["label"].int64_list.value[0]


def child_torch(path, records, repeat):
    import torch
    from torch.utils.data import DataLoader

    ds = RecordDataset(path)
    assert len(ds) == records, (len(ds), records)
    first = next(iter(DataLoader(ds, batch_size=BATCH, shuffle=False)))
    out = {"unshuffled": [[int(first[1][i]), first[0][i].tolist()] for i in range(CHECK)]}
    for t in THREADS:
        torch.set_num_threads(t)
        workers = 0 if t == 1 else t
        loader = DataLoader(
            ds,
            batch_size=BATCH,
            shuffle=True,
            num_workers=workers,
            persistent_workers=workers > 0,
            generator=torch.Generator().manual_seed(1),
        )
        tally = Tally(images(records))
        for image, label in loader:
            tally.add(image.numpy(), label.numpy())
        best = 0.0
        for _ in range(repeat):
            n, t0 = 0, time.perf_counter()
            for _image, label in loader:
                n += len(label)
            assert n == records, (n, records)
            best = max(best, n / (time.perf_counter() - t0))
        out[f"loader/{t}"] = best, tally.result()
        del loader
    return out


# ---------------------------------------------------------------------------------------


def check(lib, out, truth):
    """Assert `lib`'s passes produced the file's records: values, counts, each once."""
    for label, image in out["unshuffled"]:
        assert np.array_equal(np.float32(image), truth[label]), (lib, "unshuffled", label)
    assert [label for label, _ in out["unshuffled"]] == list(range(CHECK)), lib
    n = len(truth)
    for key, value in out.items():
        if key == "unshuffled":
            continue
        tally = value[1]
        if not key.startswith("queue/"):
            assert tally["count"] == n, (lib, key, tally["count"], n)
            assert tally["label_sum"] == n * (n - 1) // 2, (lib, key, "labels not each once")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if args.child:
        if args.child == "write":
            write_file(args.path, args.records)
            out = {}
        elif args.child == "pytorch":
            out = child_torch(args.path, args.records, args.repeat)
        else:
            out = child_graph(args.child, args.path, args.records, args.repeat)
        print(json.dumps(out))
        return

    libs = (("ferroflow", "ferroflow"), ("tensorflow", "tensorflow"), ("pytorch", "torch"))
    truth = images(args.records)
    results = {}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "data.tfrecord")
        t0 = time.perf_counter()
        run_child(__file__, "--child", "write", "--path", path, "--records", args.records)
        size = os.path.getsize(path) / 2**20
        print(
            f"{args.records} Examples ({DIM} floats + int64 label, {size:.0f} MiB) in one"
            f" TFRecord file, written in {time.perf_counter() - t0:.1f} s;"
            f" batch {BATCH}, shuffle {SHUFFLE}, prefetch {PREFETCH}"
        )
        # Each library in its own process: one library's idle threads would otherwise
        # share the cores with the next one's.
        for lib, module in libs:
            if not installed(module):
                print(f"{module} not installed: {lib} skipped")
                continue
            t0 = time.perf_counter()
            out = run_child(
                __file__,
                *("--child", lib, "--path", path),
                *("--records", args.records, "--repeat", args.repeat),
            )
            check(lib, out, truth)
            results[lib] = {k: v[0] for k, v in out.items() if k != "unshuffled"}
            print(f"  {lib}: {time.perf_counter() - t0:.1f} s, values checked")

    ours, tf, torch = (results.get(lib, {}) for lib, _ in libs)
    rows = (
        ("single", "tf.data map(parse_single_example)"),
        ("batched", "tf.data batch -> map(parse_example)"),
        ("queue", "queues shuffle_batch"),
    )
    head = f"{'pipeline':37s} {'T':>2s} {'ferroflow':>11s} {'tensorflow':>11s} {'pytorch':>11s}"
    print(f"\nrecords/s\n{head} {'ff/TF':>7s} {'ff/torch':>8s}")

    def num(x):
        return f"{x:11,.0f}" if x else f"{'-':>11s}"

    def ratio(a, b, width):
        return f"{a / b:{width}.2f}" if a and b else f"{'-':>{width}s}"

    for t in THREADS:
        pt = torch.get(f"loader/{t}")
        for key, label in rows:
            ff, tfr = ours.get(f"{key}/{t}"), tf.get(f"{key}/{t}")
            print(
                f"{label:37s} {t:2d} {num(ff)} {num(tfr)} {num(pt)}"
                f" {ratio(ff, tfr, 7)} {ratio(ff, pt, 8)}"
            )
    print("pytorch: DataLoader(shuffle=True, batch_size=64), num_workers 0 at T=1, 2 at T=2")


if __name__ == "__main__":
    main()
