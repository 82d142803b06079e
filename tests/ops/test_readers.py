"""Readers (`tf.TFRecordReader`, `FixedLengthRecordReader`, `TextLineReader`,
`WholeFileReader`, `IdentityReader`) against TensorFlow: the same files read by both,
record by record (keys, values, counters, errors), `read_up_to`, state
serialization, and readers inside queue-runner threads.
"""

import gzip
import zlib

import numpy as np
import pytest

import ferroflow as ff
from ferroflow import errors

RAW = bytes(range(256)) * 3


@pytest.fixture
def files(tmp_path, tf1):
    """Files of every kind, TFRecord ones written by TensorFlow."""
    d = tmp_path
    paths = {}
    for comp in ("", "ZLIB", "GZIP"):
        p = str(d / f"tf{comp}.tfrecord")
        opts = tf1.python_io.TFRecordOptions(comp) if comp else None
        with tf1.python_io.TFRecordWriter(p, opts) as w:
            for i in range(7):
                w.write(b"record-%d" % i + bytes(i * 13))
        paths["tf" + comp] = p
    # Written by ferroflow, read by TensorFlow.
    p = str(d / "ff.tfrecord")
    with ff.python_io.TFRecordWriter(p) as w:
        for i in range(5):
            w.write(bytes([i]) * (i * 100))
    paths["ff"] = p
    (d / "lines.txt").write_bytes(b"header\nl1\r\nl2\n\nl4")
    (d / "lines2.txt").write_bytes(b"h\nh2\nonly\n")
    (d / "empty.txt").write_bytes(b"")
    (d / "fixed.bin").write_bytes(bytes(range(23)))
    (d / "short.bin").write_bytes(bytes(range(3)))
    (d / "big.bin").write_bytes(RAW)
    (d / "big.zlib").write_bytes(zlib.compress(RAW))
    (d / "big.gz").write_bytes(gzip.compress(RAW))
    for name in ("lines.txt", "lines2.txt", "empty.txt", "fixed.bin", "short.bin", "big.bin"):
        paths[name] = str(d / name)
    paths["big.zlib"] = str(d / "big.zlib")
    paths["big.gz"] = str(d / "big.gz")
    data = (d / "tf.tfrecord").read_bytes()
    (d / "truncated.tfrecord").write_bytes(data[:-3])
    bad = bytearray(data)
    bad[14] ^= 1
    (d / "corrupt.tfrecord").write_bytes(bytes(bad))
    paths["truncated"] = str(d / "truncated.tfrecord")
    paths["corrupt"] = str(d / "corrupt.tfrecord")
    paths["missing"] = str(d / "missing.tfrecord")
    return paths


def _read_all(lib, make_reader, work, upto=None, limit=50):
    """Every record `make_reader()` reads from a queue holding `work`, then the error
    that ends it (class name), the counters and the names of the ops."""
    g = lib.Graph()
    with g.as_default():
        q = lib.FIFOQueue(len(work) + 1, [lib.string])
        r = make_reader()
        k, v = r.read(q) if upto is None else r.read_up_to(q, upto)
        counts = [r.num_records_produced(), r.num_work_units_completed()]
        names = [k.name, v.name, r.reader_ref.op.name, r.reader_ref.op.type, counts[0].name]
        shapes = [k.shape.as_list(), v.shape.as_list()]
        with lib.Session(graph=g) as s:
            s.run(q.enqueue_many([work]))
            s.run(q.close())
            out, err = [], None
            for _ in range(limit):
                try:
                    kv = s.run([k, v])
                except Exception as e:
                    err = type(e).__name__
                    break
                out.append([x.tolist() if isinstance(x, np.ndarray) else x for x in kv])
            return out, err, s.run(counts), names, shapes


CASES = [
    ("tfrecord", lambda lib: lib.TFRecordReader(), ["tf"], None),
    ("tfrecord_two_files", lambda lib: lib.TFRecordReader(), ["tf", "ff"], None),
    ("tfrecord_zlib", lambda lib: lib.TFRecordReader(options="ZLIB"), ["tfZLIB"], None),
    (
        "tfrecord_gzip",
        lambda lib: lib.TFRecordReader(
            options=lib.python_io.TFRecordOptions(lib.python_io.TFRecordCompressionType.GZIP)
        ),
        ["tfGZIP"],
        None,
    ),
    ("tfrecord_upto", lambda lib: lib.TFRecordReader(name="rr"), ["tf", "ff"], 3),
    ("truncated", lambda lib: lib.TFRecordReader(), ["truncated"], None),
    ("corrupt", lambda lib: lib.TFRecordReader(), ["corrupt"], None),
    ("missing", lambda lib: lib.TFRecordReader(), ["missing"], None),
    ("lines", lambda lib: lib.TextLineReader(), ["lines.txt", "empty.txt", "lines2.txt"], None),
    (
        "lines_skip",
        lambda lib: lib.TextLineReader(skip_header_lines=2),
        ["lines.txt", "lines2.txt"],
        None,
    ),
    ("lines_upto", lambda lib: lib.TextLineReader(), ["lines.txt", "lines.txt"], 3),
    (
        "fixed",
        lambda lib: lib.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=3),
        ["fixed.bin"],
        None,
    ),
    (
        "fixed_hop",
        lambda lib: lib.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=3, hop_bytes=3),
        ["fixed.bin", "short.bin"],
        None,
    ),
    (
        "fixed_short",
        lambda lib: lib.FixedLengthRecordReader(4, 2, 3),
        ["short.bin", "fixed.bin"],
        None,
    ),
    ("fixed_upto", lambda lib: lib.FixedLengthRecordReader(100, 7, 9), ["big.bin", "big.bin"], 4),
    (
        "fixed_zlib",
        lambda lib: lib.FixedLengthRecordReader(100, 7, 9, hop_bytes=50, encoding="ZLIB"),
        ["big.zlib"],
        None,
    ),
    (
        "fixed_gzip",
        lambda lib: lib.FixedLengthRecordReader(100, 7, 9, encoding="GZIP"),
        ["big.gz"],
        None,
    ),
    ("whole", lambda lib: lib.WholeFileReader(), ["fixed.bin", "lines.txt"], None),
    ("whole_missing", lambda lib: lib.WholeFileReader(), ["missing"], None),
    ("identity", lambda lib: lib.IdentityReader(), ["a", "b", "c"], None),
    ("identity_upto", lambda lib: lib.IdentityReader(), ["a", "b", "c"], 2),
]


@pytest.mark.parametrize(("case", "make", "work", "upto"), CASES, ids=[c[0] for c in CASES])
def test_reader_matches_tf(tf1, files, case, make, work, upto):
    work = [files.get(w, w) for w in work]
    want = _read_all(tf1, lambda: make(tf1), work, upto)
    got = _read_all(ff, lambda: make(ff), work, upto)
    assert got == want


def test_corrupt_files_raise_tf_errors(files):
    for name, cls, text in [
        ("truncated", errors.DataLossError, r"truncated record at \d+"),
        ("corrupt", errors.DataLossError, "corrupted record at 0"),
        ("missing", errors.NotFoundError, "missing.tfrecord; No such file or directory"),
    ]:
        with ff.Graph().as_default():
            q = ff.FIFOQueue(2, [ff.string])
            k, _ = ff.TFRecordReader().read(q)
            with ff.Session() as s:
                s.run(q.enqueue(files[name]))
                with pytest.raises(cls, match=text):
                    for _ in range(10):
                        s.run(k)


def _read_until_error(lib, path, kind):
    """Records read by `lib`'s TFRecordReader and tf_record_iterator from `path`, and
    the error class each ends with (None: a clean end)."""
    out = []
    with lib.Graph().as_default():
        q = lib.FIFOQueue(2, [lib.string])
        _, v = lib.TFRecordReader(options=lib.io.TFRecordOptions(kind)).read(q)
        with lib.Session() as s:
            s.run(q.enqueue(path))
            s.run(q.close())
            n = 0
            try:
                while True:
                    s.run(v)
                    n += 1
            except lib.errors.OpError as e:
                out.append((n, type(e).__name__))
    n = 0
    try:
        for _ in lib.io.tf_record_iterator(path, lib.io.TFRecordOptions(kind)):
            n += 1
        out.append((n, None))
    except lib.errors.OpError as e:
        out.append((n, type(e).__name__))
    return out


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_cut_compressed_files_are_data_loss_as_in_tf(tf1, tmp_path, kind):
    path = str(tmp_path / f"r.{kind}")
    rng = np.random.RandomState(0)
    with ff.io.TFRecordWriter(path, ff.io.TFRecordOptions(kind)) as w:
        for _ in range(80):
            w.write(rng.bytes(200))
    with open(path, "rb") as f:
        whole = f.read()
    for cut, ends in [
        (len(whole) // 2, ["DataLossError"] * 2),
        (len(whole) - 90, ["DataLossError"] * 2),
        # Only the stream's trailer is gone: every record is there, and both end cleanly.
        (len(whole) - 3, ["OutOfRangeError", None]),
    ]:
        with open(path, "wb") as f:
            f.write(whole[:cut])
        ours, theirs = _read_until_error(ff, path, kind), _read_until_error(tf1, path, kind)
        # Never a quiet end where records were lost; the records before the error are
        # whole (TF's decompressor holds back a few more of them than ours).
        assert [e for _, e in ours] == [e for _, e in theirs] == ends
        assert all(n >= m for (n, _), (m, _) in zip(ours, theirs, strict=True))
        assert all(n < 80 for n, e in ours if e == "DataLossError")
    with ff.Graph().as_default():
        q = ff.FIFOQueue(2, [ff.string])
        _, v = ff.TFRecordReader(options=ff.io.TFRecordOptions(kind)).read(q)
        with open(path, "wb") as f:
            f.write(whole[: len(whole) // 2])
        with ff.Session() as s:
            s.run(q.enqueue(path))
            s.run(q.close())
            with pytest.raises(errors.DataLossError, match=rf"{path}: truncated record at \d+"):
                for _ in range(100):
                    s.run(v)


def _state_steps(lib):
    out, msgs = [], []
    with lib.Graph().as_default():
        r = lib.IdentityReader()
        q = lib.FIFOQueue(10, [lib.string])
        k, _ = r.read(q)
        st = lib.placeholder(lib.string)
        restore = r.restore_state(st)
        reset = r.reset()
        ser = r.serialize_state()
        counts = [r.num_records_produced(), r.num_work_units_completed()]
        out.append([restore.name, reset.name, ser.name])
        with lib.Session() as s:
            s.run(q.enqueue_many([["x", "y", "z"]]))
            out.append(s.run(k))
            saved = s.run(ser)
            out.append(saved)
            out.append(s.run(k))
            s.run(reset)
            out.append(s.run([*counts, ser]))
            s.run(restore, {st: saved})
            out.append(s.run([*counts, ser]))
            out.append(s.run(k))
            for bad in [b"garbage\xff", b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"]:
                with pytest.raises(lib.errors.InvalidArgumentError) as e:
                    s.run(restore, {st: bad})
                msgs.append(str(e.value))
        for unsupported in (lib.TFRecordReader(), lib.TextLineReader()):
            assert not unsupported.supports_serialize
            with lib.Session() as s:
                with pytest.raises(lib.errors.UnimplementedError):
                    s.run(unsupported.serialize_state())
        assert r.supports_serialize and lib.WholeFileReader().supports_serialize
    return out, msgs


def test_serialize_and_restore_state_as_tf(tf1):
    want, _ = _state_steps(tf1)
    got, msgs = _state_steps(ff)
    assert got == want
    assert msgs[0].startswith(
        "Could not parse state for IdentityReader 'IdentityReaderV2': garbage\\377"
    )
    assert msgs[1].startswith(
        "Unexpected negative value when restoring in IdentityReader 'IdentityReaderV2'"
    )


def test_readers_in_queue_runner_threads(files, tf1):
    """Two runner threads read TFRecord files into a batch queue, as input pipelines do."""
    names = [files["tf"], files["ff"]]

    def build(lib, options):
        fq = lib.train.string_input_producer(names * 3, shuffle=False, num_epochs=None)
        _, v = lib.TFRecordReader(options=options).read(fq)
        return lib.train.batch([v], batch_size=4, num_threads=2, capacity=16)

    with ff.Graph().as_default():
        b = build(ff, None)
        with ff.Session() as s:
            s.run(ff.local_variables_initializer())
            coord = ff.train.Coordinator()
            threads = ff.train.start_queue_runners(s, coord)
            got = [s.run(b) for _ in range(3)]
            coord.request_stop()
            coord.join(threads)
    plain = [r for n in names for r in tf1.python_io.tf_record_iterator(n)]
    assert all(len(x) == 4 for x in got)
    assert {bytes(v) for x in got for v in x} <= set(plain)
