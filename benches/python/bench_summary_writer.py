"""Event-file writing: 100,000 scalar `add_summary` calls until `close()` returns.

Compares ferroflow's `summary.FileWriter` (Rust writer thread), TensorFlow's
`tf.compat.v1.summary.FileWriter` (C++ EventsWriter behind a Python queue thread) and
tensorboardX's `SummaryWriter` (pure Python), in the same process, each in two ways:

* "op bytes": the serialized Summary that a scalar summary op returned, fetched once
  from a Session and passed to `add_summary(bytes, step)` on every call (what a TF1
  training loop does with `sess.run(merged)`). tensorboardX has no summary ops; its
  row is its own scalar API, `add_scalar(tag, value, step)`.
* "message": a `Summary(value=[Summary.Value(tag="loss", simple_value=i)])` passed to
  `add_summary` (tensorboardX: its own Summary class, through
  `file_writer.add_summary`). Each library's messages are built before the clock
  starts, so the row measures the writer, not protobuf construction in Python (which
  costs the same ~2-5 us per message whichever writer takes it).

The clock runs from the first `add_summary` to the return of `close()` (the writer is
opened, and the messages built, before). Every file is then read back (TF's
`summary_iterator` where TF is installed, else by walking the TFRecord framing) and
must hold the file_version event plus all the events, steps in order. Prints events/s
and the ratio to ferroflow's. A library that is not installed is skipped.

Run: python benches/python/bench_summary_writer.py [--events N] [--repeat R]
"""

import argparse
import glob
import os
import shutil
import struct
import tempfile
import time

TAG = "loss"


def ferroflow_lib():
    """(module, bytes of a scalar summary op) for ferroflow; None when not available."""
    try:
        import ferroflow as ff

        writer_class, scalar = ff.summary.FileWriter, ff.summary.scalar
    except (ImportError, AttributeError) as e:
        print(f"ferroflow skipped: {e}")
        return None
    g = ff.Graph()
    with g.as_default():
        op = scalar(TAG, ff.constant(0.5))
        with ff.Session(graph=g) as sess:
            op_bytes = sess.run(op)
    return {"writer": writer_class, "summary": ff.Summary, "op_bytes": op_bytes}


def tensorflow_lib():
    """The same for TensorFlow (compat.v1, graph mode); None when not installed."""
    try:
        import tensorflow.compat.v1 as tf
    except ImportError:
        print("tensorflow skipped: not installed")
        return None
    tf.disable_v2_behavior()
    g = tf.Graph()
    with g.as_default():
        op = tf.summary.scalar(TAG, tf.constant(0.5))
        with tf.Session(graph=g) as sess:
            op_bytes = sess.run(op)
    return {"writer": tf.summary.FileWriter, "summary": tf.Summary, "op_bytes": op_bytes}


def run_graph_lib(lib, variant, logdir, n, max_queue, flush_secs):
    """Seconds for n add_summary calls plus close() with a TF1-style FileWriter."""
    if variant == "message":
        summary, value = lib["summary"], lib["summary"].Value
        messages = [summary(value=[value(tag=TAG, simple_value=float(i))]) for i in range(n)]
    writer = lib["writer"](logdir, max_queue=max_queue, flush_secs=flush_secs)
    add = writer.add_summary
    t0 = time.perf_counter()
    if variant == "op bytes":
        data = lib["op_bytes"]
        for i in range(n):
            add(data, i)
    else:
        for i, message in enumerate(messages):
            add(message, i)
    writer.close()
    return time.perf_counter() - t0


def run_tensorboardx(variant, logdir, n, max_queue, flush_secs):
    """The same with tensorboardX: add_scalar, or file_writer.add_summary(Summary)."""
    from tensorboardX import SummaryWriter
    from tensorboardX.proto.summary_pb2 import Summary

    if variant == "message":
        value = Summary.Value
        messages = [Summary(value=[value(tag=TAG, simple_value=float(i))]) for i in range(n)]
    writer = SummaryWriter(logdir, max_queue=max_queue, flush_secs=flush_secs)
    t0 = time.perf_counter()
    if variant == "op bytes":
        add_scalar = writer.add_scalar
        for i in range(n):
            add_scalar(TAG, float(i), i)
    else:
        add = writer.file_writer.add_summary
        for i, message in enumerate(messages):
            add(message, i)
    writer.close()
    return time.perf_counter() - t0


def read_steps(logdir, tf):
    """Steps of every event in the one event file of logdir (file_version's included)."""
    (path,) = glob.glob(os.path.join(logdir, "*tfevents*"))
    if tf is not None:
        return [e.step for e in tf.train.summary_iterator(path)]
    # Without TF: walk the framing; only the count is known, not the steps.
    with open(path, "rb") as f:
        data = f.read()
    count, pos = 0, 0
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        pos += length + 16
        count += 1
    assert pos == len(data), f"{path}: truncated last record"
    return [None] * count


def check(logdir, n, tf):
    """Asserts the file holds the file_version event and steps 0..n-1 in order."""
    steps = read_steps(logdir, tf)
    assert len(steps) == n + 1, f"{logdir}: {len(steps)} events, want {n + 1}"
    if tf is not None:
        assert steps[1:] == list(range(n)), f"{logdir}: steps out of order"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="best of R runs")
    parser.add_argument("--max-queue", type=int, default=10)
    parser.add_argument("--flush-secs", type=int, default=120)
    parser.add_argument(
        "--libs", default="ferroflow,tensorflow,tensorboardx", help="comma-separated subset"
    )
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    wanted = args.libs.split(",")

    runners = {}
    if "ferroflow" in wanted and (ff := ferroflow_lib()) is not None:
        runners["ferroflow"] = lambda v, d, lib=ff: run_graph_lib(
            lib, v, d, args.events, args.max_queue, args.flush_secs
        )
    if "tensorflow" in wanted and (tf_lib := tensorflow_lib()) is not None:
        runners["tensorflow"] = lambda v, d: run_graph_lib(
            tf_lib, v, d, args.events, args.max_queue, args.flush_secs
        )
    if "tensorboardx" in wanted:
        try:
            from tensorboardX import crc32c

            # tensorboardX computes CRCs in pure Python unless the `crc32c` package is there.
            native = getattr(crc32c, "_crc32c_native", None) is not None
            print(f"tensorboardX: {'native' if native else 'pure-Python'} crc32c")
            runners["tensorboardX"] = lambda v, d: run_tensorboardx(
                v, d, args.events, args.max_queue, args.flush_secs
            )
        except ImportError:
            print("tensorboardX skipped: not installed")
    try:
        # TF's reader checks both CRCs of every record and gives the steps.
        import tensorflow.compat.v1 as reader
    except ImportError:
        reader = None

    print(
        f"{args.events} scalar add_summary calls + close(), best of {args.repeat} "
        f"(max_queue={args.max_queue}, flush_secs={args.flush_secs}); events/s, "
        "ratio = their time / ferroflow's"
    )
    root = tempfile.mkdtemp(prefix="bench_summary_")
    try:
        for variant in ("op bytes", "message"):
            best = {}
            for name, run in runners.items():
                for r in range(args.repeat):
                    logdir = os.path.join(root, f"{name}-{variant.replace(' ', '_')}-{r}")
                    t = run(variant, logdir)
                    check(logdir, args.events, reader)
                    shutil.rmtree(logdir)
                    best[name] = min(best.get(name, float("inf")), t)
            ours = best.get("ferroflow")
            cells = []
            for name, t in best.items():
                ratio = "" if ours is None or name == "ferroflow" else f", {t / ours:.1f}x"
                cells.append(f"{name} {args.events / t:,.0f}/s{ratio}")
            print(f"{variant:8s}  " + "; ".join(cells))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
