"""String, CSV, raw-bytes and file ops against TensorFlow: values, static shapes, op
names and error classes."""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff


def _both(tf1, build):
    want = run_tf(tf1, build)
    got = run_ff(build)
    return want, got


def _same(a, b):
    if isinstance(a, list | tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype, (a, b)
    assert a.shape == b.shape
    np.testing.assert_array_equal(a, b)


def _components(sparse):
    return [sparse.indices, sparse.values, sparse.dense_shape]


RAW = [np.arange(6, dtype=np.float32).tobytes(), np.arange(6, 12, dtype=np.float32).tobytes()]


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.decode_raw(tf.constant(RAW), tf.float32),
        lambda tf: tf.decode_raw(tf.constant(RAW), tf.int16, little_endian=False),
        lambda tf: tf.decode_raw(tf.constant([b"\x01\x02\x03"]), tf.uint8),
        lambda tf: tf.decode_raw(tf.constant(RAW[0]), tf.float64),
        lambda tf: tf.decode_raw(tf.constant([[b"ab", b"cd"]]), tf.int16),
        lambda tf: tf.string_to_number(tf.constant(["1.5", " -2", "1e3", "inf"])),
        lambda tf: tf.string_to_number(tf.constant([["12", "-7"]]), out_type=tf.int64),
        lambda tf: tf.string_to_number(tf.constant("3"), out_type=tf.int32),
        lambda tf: tf.string_join(
            [tf.constant(["a", "b"]), tf.constant("-"), tf.constant(["c", "d"])], separator="|"
        ),
        lambda tf: tf.string_join(["x", "y"]),
        lambda tf: tf.substr(tf.constant(["hello", "ab"]), 1, 3),
        lambda tf: tf.substr(
            tf.constant(["hello", "ab"]), tf.constant([0, 2]), tf.constant([10, 1])
        ),
        lambda tf: tf.substr(tf.constant("hello"), -3, 2),
        lambda tf: tf.reduce_join(tf.constant([["a", "b"], ["c", "d"]])),
        lambda tf: tf.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), [0, 1]),
        lambda tf: tf.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), 0, separator=","),
        lambda tf: tf.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), -1, keep_dims=True),
        lambda tf: tf.strings.join(["p", tf.constant(["q", "r"])]),
        lambda tf: tf.strings.to_number(tf.constant(["7"]), tf.float64),
        lambda tf: tf.decode_csv(
            tf.constant(['1,2.5,"a,b",7', ",,x,", '3,"4",,9']),
            [[0], [1.5], ["dflt"], tf.constant([5], tf.int64)],
        ),
        lambda tf: tf.decode_csv(
            tf.constant(["1;2;3", "4;5;6"]), [[0], [0.0]], field_delim=";", select_cols=[0, 2]
        ),
        lambda tf: tf.decode_csv(
            tf.constant(["NA|b", "2|c"]), [[9], [""]], field_delim="|", na_value="NA"
        ),
        lambda tf: tf.decode_csv(tf.constant(['"q""x",1']), [[""], [0]], use_quote_delim=True),
        lambda tf: tf.decode_csv(tf.constant(['a"b,1']), [[""], [0]], use_quote_delim=False),
        lambda tf: tf.string_split(["hello world", "a b  c", ""]),
        lambda tf: tf.string_split(tf.constant(["a,b,,c", "x"]), ",", skip_empty=False),
        lambda tf: tf.string_split(["abc", "de"], ""),
        lambda tf: tf.string_split(["a;b c"], delimiter="; "),
        lambda tf: tf.strings.split(["a b  c", " x ", ""]),
        lambda tf: tf.strings.split(["1<>2<><>3", ""], "<>"),
        lambda tf: tf.strings.split(["a,b,c", "d"], ",", maxsplit=1),
        lambda tf: tf.strings.split(["a b", " c d e "], maxsplit=2),
        lambda tf: tf.strings.split([["a b", "c"], ["d e f", ""]]),
        lambda tf: tf.strings.split(tf.constant("a b")),
        lambda tf: tf.substr(tf.constant([["hello", "world"], ["ab", "cd"]]), [1, 0], [2, 1]),
        lambda tf: tf.substr(tf.constant(["hello", "world"]), [[1], [0]], [[2], [1]]),
        lambda tf: tf.strings.substr(tf.constant([["abc"], ["de"]]), [[0, 1, 2]], [[1, 1, 1]]),
    ],
)
def test_values_match_tf(tf1, build):
    want, got = _both(tf1, build)
    _same(want, got)


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.decode_raw(tf.placeholder(tf.string, [None, 3]), tf.float32),
        lambda tf: tf.string_to_number(tf.placeholder(tf.string, [2]), tf.int64, name="n"),
        lambda tf: tf.substr(tf.placeholder(tf.string, [4]), 0, 1),
        lambda tf: tf.reduce_join(tf.placeholder(tf.string, [2, 3]), 1, keep_dims=True),
        lambda tf: tf.string_join([tf.placeholder(tf.string, [5]), "x"]),
        lambda tf: tf.read_file("f"),
        lambda tf: tf.decode_csv(tf.placeholder(tf.string, [3]), [[0], [""]]),
        lambda tf: _components(tf.string_split(tf.placeholder(tf.string, [3]), "x", name="s")),
        lambda tf: _components(tf.string_split(["a b"])),
        lambda tf: _components(tf.strings.split(tf.placeholder(tf.string, [3]), "x")),
        lambda tf: tf.substr(tf.placeholder(tf.string, [None, 2]), [0, 1], [1, 1]),
        lambda tf: tf.substr(
            tf.placeholder(tf.string, [3]), tf.placeholder(tf.int32, [2, 1]), [[1], [1]]
        ),
    ],
)
def test_names_and_static_shapes_match_tf(tf1, build):
    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        a = build(tf1)
    with g_ff.as_default():
        b = build(ff)
    a, b = (a if isinstance(a, list) else [a]), (b if isinstance(b, list) else [b])
    for x, y in zip(a, b, strict=True):
        assert (x.name, x.dtype.name, x.shape.as_list()) == (
            y.name,
            y.dtype.name,
            y.shape.as_list(),
        )
        assert x.op.type == y.op.type


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.decode_raw(tf.constant([b"abc", b"ab"]), tf.uint8),
        lambda tf: tf.decode_raw(tf.constant([b"abc"]), tf.float32),
        lambda tf: tf.string_to_number(tf.constant(["1x"])),
        lambda tf: tf.string_to_number(tf.constant(["1.5"]), tf.int32),
        lambda tf: tf.substr(tf.constant(["ab"]), 5, 1),
        lambda tf: tf.substr(tf.constant([["ab", "c"]]), [[0], [3]], [[1], [1]]),
        lambda tf: tf.substr(
            tf.constant(["ab"]),
            tf.placeholder_with_default([0, 1, 2], None),
            tf.placeholder_with_default([1, 1], None),
        ),
        lambda tf: tf.decode_csv(tf.constant(["1,2,3"]), [[0], [0]]),
        lambda tf: tf.decode_csv(tf.constant([",2"]), [tf.constant([], tf.int32), [0]]),
        lambda tf: tf.decode_csv(tf.constant(["a,2"]), [[0], [0]]),
        lambda tf: tf.decode_csv(tf.constant(['"a,2']), [[""], [0]]),
        lambda tf: tf.read_file("/nonexistent/file"),
    ],
)
def test_errors_match_tf(tf1, build):
    with pytest.raises(tf1.errors.OpError) as want:
        run_tf(tf1, build)
    with pytest.raises(ff.errors.OpError) as got:
        run_ff(build)
    assert type(got.value).__name__ == type(want.value).__name__


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.string_split(["a"], sep="x", delimiter="y"),
        lambda tf: tf.string_split(["a"], result_type="list"),
        lambda tf: tf.string_split([["a", "b"]]),
        lambda tf: tf.strings.split(["a"], result_type="list"),
        lambda tf: tf.substr(tf.constant(["abc", "d", "e"]), [0, 1], [1, 1]),
        lambda tf: tf.substr(tf.constant(["abc", "d"]), [0, 1], [[1, 1]]),
        lambda tf: tf.substr(
            tf.constant(["ab"]), [0, 1, 2], tf.placeholder_with_default([1, 1, 1], None)
        ),
    ],
)
def test_construction_errors_match_tf(tf1, build):
    with tf1.Graph().as_default(), pytest.raises(ValueError) as want:
        build(tf1)
    with ff.Graph().as_default(), pytest.raises(ValueError) as got:
        build(ff)

    def core(e):
        for cut in (" for '", " with input shapes", " (node"):
            e = e.split(cut)[0]
        return e

    assert core(str(got.value)) == core(str(want.value))


def test_read_and_write_file(tmp_path, tf1):
    path = str(tmp_path / "sub" / "dir" / "f.bin")
    data = bytes(range(256)) * 5
    with ff.Graph().as_default():
        w = ff.write_file(path, data)
        r = ff.read_file(path)
        assert (w.name, w.type, r.op.name) == ("WriteFile", "WriteFile", "ReadFile")
        with ff.Session() as s:
            s.run(w)
            assert s.run(r) == data
    with tf1.Graph().as_default(), tf1.Session() as s:
        assert s.run(tf1.read_file(path)) == data
