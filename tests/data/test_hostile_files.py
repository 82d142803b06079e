"""Damaged files through the `tf.data` readers: every `get_next` gives a record or
TF's `DataLossError` (an element's error: the iterator goes on to the next file), and
the pipeline always ends; never a crash, a hang or an allocation sized from a
damaged length."""

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroflow as ff

pytestmark = pytest.mark.timeout(120)

RECORDS = [b"x" * (i * 37 % 200) + bytes([i]) for i in range(12)]


def _tfrecord_bytes(compression):
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".tfrecord", delete=False) as f:
        path = f.name
    options = ff.python_io.TFRecordOptions(
        getattr(ff.python_io.TFRecordCompressionType, compression or "NONE")
    )
    with ff.python_io.TFRecordWriter(path, options) as w:
        for r in RECORDS:
            w.write(r)
    with open(path, "rb") as f:
        return f.read()


def _read_all(paths, make):
    """What each get_next gives: records, or the class of its error."""
    out = []
    with ff.Graph().as_default():
        nxt = make(paths).make_one_shot_iterator().get_next()
        with ff.Session() as sess:
            for _ in range(200):
                try:
                    out.append(sess.run(nxt))
                except ff.errors.OutOfRangeError:
                    return out
                except ff.errors.OpError as e:
                    out.append(type(e).__name__)
    raise AssertionError("the pipeline did not end")


@settings(max_examples=25, deadline=None)
@given(
    compression=st.sampled_from([None, "GZIP", "ZLIB"]),
    flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=4),
    cut=st.integers(0, 10**6),
)
def test_damaged_tfrecords(tmp_path_factory, compression, flips, cut):
    data = bytearray(_tfrecord_bytes(compression))
    for at, x in flips:
        data[at % len(data)] ^= x
    data = data[: max(1, cut % (len(data) + 1))]
    d = tmp_path_factory.mktemp("tfr")
    damaged, intact = d / "damaged.tfrecord", d / "intact.tfrecord"
    damaged.write_bytes(bytes(data))
    intact.write_bytes(_tfrecord_bytes(compression))
    out = _read_all(
        [str(damaged), str(intact)],
        lambda p: ff.data.TFRecordDataset(p, compression_type=compression),
    )
    errors = [o for o in out if isinstance(o, str)]
    assert set(errors) <= {"DataLossError"}, errors
    # The intact file after the damaged one is read whole.
    assert [o for o in out if not isinstance(o, str)][-len(RECORDS) :] == RECORDS


@settings(max_examples=15, deadline=None)
@given(data=st.binary(max_size=300), record=st.integers(1, 9), header=st.integers(0, 5))
def test_arbitrary_bytes_as_fixed_length_and_lines(tmp_path_factory, data, record, header):
    d = tmp_path_factory.mktemp("raw")
    plain, packed = d / "f.bin", d / "f.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    for path, compression in ((plain, None), (packed, "GZIP")):
        out = _read_all(
            str(path),
            lambda p, c=compression: ff.data.FixedLengthRecordDataset(
                p, record, header_bytes=header, footer_bytes=1, compression_type=c
            ),
        )
        assert all(
            (isinstance(o, bytes) and len(o) == record)
            or o in ("InvalidArgumentError", "DataLossError")
            for o in out
        )
        lines = _read_all(
            str(path), lambda p, c=compression: ff.data.TextLineDataset(p, compression_type=c)
        )
        assert all(isinstance(o, bytes) for o in lines)
