"""Lookup tables (`tf.lookup`, `tf.contrib.lookup`) against TensorFlow: the same
graphs built with both, run, and compared value for value, message for message."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import op_error_message

import ferroflow as ff


def _lookup(lib):
    """TF's `tf.compat.v1.lookup`-era names: contrib's live in `lookup_ops` in TF 2."""
    if lib is ff:
        return ff.contrib.lookup
    import types

    from tensorflow.python.ops import lookup_ops

    # `lookup_ops.MutableDenseHashTable` is the raw op there; the class is DenseHashTable.
    names = {k: getattr(lookup_ops, k) for k in dir(lookup_ops) if not k.startswith("__")}
    names["MutableDenseHashTable"] = lookup_ops.DenseHashTable
    return types.SimpleNamespace(**names)


def _run(lib, build, steps=None):
    """Builds `build(lib, lookup)`, runs the table initializers, then the fetches."""
    g = lib.Graph()
    with g.as_default():
        fetches = build(lib, _lookup(lib))
        with lib.Session(graph=g) as sess:
            sess.run(lib.tables_initializer())
            if steps is not None:
                for s in steps(fetches):
                    sess.run(s)
                fetches = fetches[-1]
            return sess.run(fetches)


def _outcome(lib, build, steps=None):
    try:
        return ("ok", _run(lib, build, steps))
    except Exception as e:
        return (type(e).__name__, op_error_message(e))


def _same(tf1, build, steps=None):
    want = _outcome(tf1, build, steps)
    got = _outcome(ff, build, steps)
    assert got[0] == want[0], (got, want)
    if want[0] == "ok":
        _assert_equal(got[1], want[1])
    else:
        assert got[1] == want[1]
    return got[1]


def _assert_equal(a, b):
    if isinstance(a, list | tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _assert_equal(x, y)
    elif hasattr(a, "values") and hasattr(a, "indices"):
        _assert_equal([a.indices, a.values, a.dense_shape], [b.indices, b.values, b.dense_shape])
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _vocab(tmp_path, lines, name="vocab.txt"):
    path = tmp_path / name
    path.write_bytes(lines if isinstance(lines, bytes) else "".join(lines).encode())
    return str(path)


def test_index_table_from_tensor_with_default_and_oov_buckets(tf1):
    def build(tf, lookup):
        words = tf.constant(["emerson", "lake", "palmer", "king", "crimson", ""])
        plain = lookup.index_table_from_tensor(["emerson", "lake", "palmer"], default_value=-7)
        oov = lookup.index_table_from_tensor(["emerson", "lake", "palmer"], num_oov_buckets=3)
        return plain.lookup(words), oov.lookup(words), oov.size(), plain.size()

    out = _same(tf1, build)
    assert list(out[0]) == [0, 1, 2, -7, -7, -7]


def test_integer_vocabulary_with_oov_buckets_hashes_the_decimal_text(tf1):
    def build(tf, lookup):
        table = lookup.index_table_from_tensor(
            tf.constant([42, 1, -5], tf.int64), num_oov_buckets=5, dtype=tf.int64
        )
        ids32 = lookup.index_table_from_tensor(
            tf.constant([7, 8], tf.int32), num_oov_buckets=2, dtype=tf.int32
        )
        return (
            table.lookup(tf.constant([1, 42, 3, -5, 1000000], tf.int64)),
            ids32.lookup(tf.constant([8, 9, -1], tf.int32)),
        )

    _same(tf1, build)


@pytest.mark.parametrize("hasher", ["fast", "legacy", "strong"])
def test_hasher_specs_match(tf1, hasher):
    def build(tf, lookup):
        spec = {
            "fast": lookup.FastHashSpec,
            "legacy": lookup.HasherSpec("legacy", None),
            "strong": lookup.StrongHashSpec((11, 13)),
        }[hasher]
        table = lookup.index_table_from_tensor(["a", "b"], num_oov_buckets=1000, hasher_spec=spec)
        return table.lookup(tf.constant(["a", "zz", "hello world", "", "b", "x" * 33]))

    _same(tf1, build)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=20), st.integers(1, 2**40))
def test_hash_buckets_match_tensorflow(tf1, strings, buckets):
    def build(tf, lookup):
        s = tf.constant(strings, dtype=tf.string, shape=[len(strings)])
        return (
            tf.string_to_hash_bucket_fast(s, buckets),
            tf.string_to_hash_bucket_strong(s, buckets, key=[3, 2**62 + 5]),
            tf.string_to_hash_bucket(s, buckets),
        )

    _same(tf1, build)


def test_as_string_matches(tf1):
    def build(tf, lookup):
        i = tf.constant([[-3, 0, 12345]], tf.int64)
        f = tf.constant([1.5, -0.25, 3.0], tf.float32)
        return (
            tf.as_string(i),
            tf.as_string(i, width=6, fill="0"),
            tf.as_string(i, width=6, fill="-"),
            tf.as_string(i, width=6),
            tf.as_string(f),
            tf.as_string(f, precision=2),
            tf.as_string(tf.constant([True, False])),
        )

    _same(tf1, build)


def test_sparse_keys_keep_their_indices(tf1):
    def build(tf, lookup):
        table = lookup.index_table_from_tensor(["a", "b"], num_oov_buckets=1)
        sp = tf.SparseTensor([[0, 0], [1, 2]], ["b", "q"], [2, 3])
        return table.lookup(sp)

    _same(tf1, build)


def test_index_table_from_file_and_back(tf1, tmp_path):
    vocab = _vocab(tmp_path, ["brain\n", "salad\n", "surgery\r\n", "tarkus"])

    def build(tf, lookup):
        ids = lookup.index_table_from_file(vocab, num_oov_buckets=1)
        words = lookup.index_to_string_table_from_file(vocab, default_value="NONE")
        first2 = lookup.index_table_from_file(vocab, vocab_size=2)
        return (
            ids.lookup(tf.constant(["salad", "surgery", "tarkus", "x"])),
            words.lookup(tf.constant([0, 3, 4, -1], tf.int64)),
            first2.lookup(tf.constant(["brain", "salad", "surgery"])),
            ids.size(),
            first2.size(),
        )

    _same(tf1, build)


def test_text_file_columns_and_line_numbers(tf1, tmp_path):
    vocab = _vocab(tmp_path, ["a,10,x\n", "b,20,y\n", "c,-3,z\n"])

    def build(tf, lookup):
        init = lookup.TextFileInitializer(vocab, tf.string, 0, tf.int64, 1, delimiter=",")
        table = lookup.HashTable(init, -1)
        init2 = lookup.TextFileInitializer(
            vocab, tf.int64, lookup.TextFileIndex.LINE_NUMBER, tf.string, 2, delimiter=","
        )
        rev = lookup.HashTable(init2, "?")
        init3 = lookup.TextFileInitializer(
            vocab, tf.string, 2, tf.float64, 1, delimiter=",", vocab_size=2
        )
        floats = lookup.HashTable(init3, 0.5)
        return (
            table.lookup(tf.constant(["c", "a", "q"])),
            rev.lookup(tf.constant([2, 0, 7], tf.int64)),
            floats.lookup(tf.constant(["x", "y", "z"])),
        )

    _same(tf1, build)


@pytest.mark.parametrize(
    ("lines", "kwargs"),
    [
        (["a\n", "\n", "b\n"], {}),
        (["a\n", "b\n", "a\n"], {}),
        (["a\n", "b\n"], {"vocab_size": 3}),
        (["a\tx\n", "b\n"], {"key_column_index": 0, "value_column_index": 1}),
    ],
    ids=["empty-line", "duplicate", "short-vocab", "missing-column"],
)
def test_bad_vocabulary_files_fail_as_tensorflow(tf1, tmp_path, lines, kwargs):
    vocab = _vocab(tmp_path, lines)

    def build(tf, lookup):
        if "value_column_index" in kwargs:
            init = lookup.TextFileInitializer(vocab, tf.string, 0, tf.string, 1)
            return lookup.HashTable(init, "").lookup(tf.constant(["a"]))
        table = lookup.index_table_from_file(vocab, **kwargs)
        return table.lookup(tf.constant(["a"]))

    _same(tf1, build)


def test_bad_numbers_in_vocabulary_file(tf1, tmp_path):
    vocab = _vocab(tmp_path, ["a\t1\n", "b\tseven\n"])

    def build(tf, lookup):
        init = lookup.TextFileInitializer(vocab, tf.string, 0, tf.int64, 1)
        return lookup.HashTable(init, -1).lookup(tf.constant(["a"]))

    _same(tf1, build)


def test_missing_vocabulary_file(tf1, tmp_path):
    path = str(tmp_path / "missing.txt")

    def build(tf, lookup):
        return lookup.index_table_from_file(path).lookup(tf.constant(["a"]))

    want = _outcome(tf1, build)
    got = _outcome(ff, build)
    assert got[0] == want[0] == "NotFoundError"
    assert path in got[1]


def test_static_table_lifecycle(tf1):
    def uninitialized(lib, lookup):
        g = lib.Graph()
        with g.as_default():
            init = lookup.KeyValueTensorInitializer(["a", "b"], [1, 2], value_dtype=lib.int64)
            table = lookup.HashTable(init, -1)
            out = table.lookup(lib.constant(["a"]))
            with lib.Session() as sess:
                size0 = sess.run(table.size())
                try:
                    sess.run(out)
                except Exception as e:
                    err = (type(e).__name__, op_error_message(e))
                sess.run(table.initializer)
                sess.run(table.initializer)  # the same data again: a no-op
                keys, values = sess.run(table.export())
                return size0, err, sorted(zip(keys.tolist(), values.tolist(), strict=True))

    assert uninitialized(ff, ff.contrib.lookup) == uninitialized(tf1, _lookup(tf1))


def test_conflicting_and_mistyped_keys(tf1):
    def build(tf, lookup):
        init = lookup.KeyValueTensorInitializer(["a", "a"], [1, 2], value_dtype=tf.int64)
        return lookup.HashTable(init, -1).lookup(tf.constant(["a"]))

    _same(tf1, build)
    for lib in (ff, tf1):
        with lib.Graph().as_default():
            table = _lookup(lib).index_table_from_tensor(["a"])
            with pytest.raises(TypeError, match="Dtype of argument `keys` must be"):
                table.lookup(lib.constant([1], lib.int64))


def test_mutable_hash_table(tf1):
    def build(tf, lookup):
        table = lookup.MutableHashTable(tf.string, tf.int64, default_value=-1)
        ins = table.insert(
            tf.constant(["brain", "salad", "surgery"]), tf.constant([0, 1, 2], tf.int64)
        )
        upd = table.insert(tf.constant(["salad"]), tf.constant([10], tf.int64))
        rem = table.remove(tf.constant(["brain", "nope"]))
        out = (table.lookup(tf.constant([["brain", "salad"], ["surgery", "x"]])), table.size())
        return ins, upd, rem, out

    _same(tf1, build, steps=lambda f: f[:3])


def test_mutable_hash_table_of_tensors_with_dynamic_defaults(tf1):
    def build(tf, lookup):
        table = lookup.MutableHashTable(tf.int64, tf.float32, default_value=[-1.0, -2.0])
        ins = table.insert(tf.constant([3, 5], tf.int64), tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        keys = tf.constant([5, 4, 3], tf.int64)
        dyn = tf.constant([[9.0, 9.0], [8.0, 8.0], [7.0, 7.0]])
        found = table.lookup(keys)
        assert found.shape.as_list() == [3, 2]
        return ins, (found, table.lookup(keys, dynamic_default_values=dyn), table.size())

    _same(tf1, build, steps=lambda f: f[:1])


def test_mutable_table_errors(tf1):
    def bad_value_shape(tf, lookup):
        table = lookup.MutableHashTable(tf.string, tf.int64, default_value=-1)
        return table.insert(tf.constant(["a", "b"]), tf.constant([1], tf.int64))

    def bad_default(tf, lookup):
        table = lookup.MutableHashTable(tf.string, tf.float32, default_value=[0.0, 0.0])
        return table.lookup(tf.constant(["a"]), dynamic_default_values=tf.constant([1.0, 2.0, 3.0]))

    _same(tf1, bad_value_shape)
    _same(tf1, bad_default)


def _dense_build(key_dtype, empty, deleted, keys, values, default, remove):
    def build(tf, lookup):
        kd = getattr(tf, key_dtype)
        table = lookup.MutableDenseHashTable(
            kd,
            tf.int64,
            default_value=default,
            empty_key=empty,
            deleted_key=deleted,
            initial_num_buckets=8,
        )
        ins = table.insert(tf.constant(keys, kd), tf.constant(values, tf.int64))
        rem = table.remove(tf.constant(remove, kd))
        out = (table.lookup(tf.constant(keys, kd)), table.size(), table.export())
        return ins, rem, out

    return build


def test_dense_table_buckets_match_tensorflow_int_keys(tf1):
    keys = [0, 1, 9, 17, 25, 33, 2, 10, 100, -4]
    build = _dense_build("int64", -1, -2, keys, list(range(10)), -9, [9, 25])
    _same(tf1, build, steps=lambda f: f[:2])


def test_dense_table_buckets_match_tensorflow_string_keys(tf1):
    keys = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    build = _dense_build("string", "", "<deleted>", keys, list(range(6)), -1, ["beta"])
    _same(tf1, build, steps=lambda f: f[:2])


def test_dense_table_vector_keys_and_reserved_keys(tf1):
    def build(tf, lookup):
        table = lookup.MutableDenseHashTable(
            tf.int64,
            tf.int64,
            default_value=-1,
            empty_key=[0, 0],
            deleted_key=[-1, -1],
            initial_num_buckets=4,
        )
        ins = table.insert(
            tf.constant([[1, 2], [3, 4], [5, 6]], tf.int64), tf.constant([7, 8, 9], tf.int64)
        )
        return ins, (table.lookup(tf.constant([[3, 4], [1, 3]], tf.int64)), table.export())

    _same(tf1, build, steps=lambda f: f[:1])

    def reserved(tf, lookup):
        table = lookup.MutableDenseHashTable(tf.int64, tf.int64, -1, empty_key=0, deleted_key=-1)
        return table.insert(tf.constant([5, 0], tf.int64), tf.constant([1, 2], tf.int64))

    _same(tf1, reserved)


def test_mutable_tables_are_checkpointed(tmp_path):
    prefix = str(tmp_path / "model")
    with ff.Graph().as_default():
        table = ff.contrib.lookup.MutableHashTable(ff.string, ff.int64, -1, name="vocab")
        dense = ff.contrib.lookup.MutableDenseHashTable(ff.int64, ff.float32, 0.0, -1, -2)
        ins = [
            table.insert(ff.constant(["x", "y"]), ff.constant([4, 5], ff.int64)),
            dense.insert(ff.constant([8, 9], ff.int64), ff.constant([0.5, 1.5])),
        ]
        saver = ff.train.Saver()
        with ff.Session() as sess:
            sess.run(ins)
            saver.save(sess, prefix)
        names = dict(ff.train.list_variables(prefix))
        assert {"vocab-keys", "vocab-values"} <= set(names)
        with ff.Session() as sess:
            assert sess.run(table.size()) == 0
            saver.restore(sess, prefix)
            got = sess.run(
                [
                    table.lookup(ff.constant(["y", "x", "z"])),
                    dense.lookup(ff.constant([9, 7], ff.int64)),
                ]
            )
    np.testing.assert_array_equal(got[0], [5, 4, -1])
    np.testing.assert_array_equal(got[1], [1.5, 0.0])


def test_tensorflow_restores_our_table_checkpoint(tf1, tmp_path):
    prefix = str(tmp_path / "model")
    with ff.Graph().as_default():
        table = ff.contrib.lookup.MutableHashTable(ff.string, ff.int64, -1, name="vocab")
        ins = table.insert(ff.constant(["x", "y"]), ff.constant([4, 5], ff.int64))
        with ff.Session() as sess:
            sess.run(ins)
            ff.train.Saver().save(sess, prefix)
    g = tf1.Graph()
    with g.as_default():
        table = _lookup(tf1).MutableHashTable(tf1.string, tf1.int64, -1, name="vocab")
        out = table.lookup(tf1.constant(["y", "x", "q"]))
        with tf1.Session() as sess:
            tf1.train.Saver().restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(out), [5, 4, -1])


def test_text_file_assets_are_collected(tmp_path):
    vocab = _vocab(tmp_path, ["a\n"])
    with ff.Graph().as_default():
        ff.contrib.lookup.index_table_from_file(vocab)
        assets = ff.get_collection(ff.GraphKeys.ASSET_FILEPATHS)
        assert len(assets) == 1
        with ff.Session() as sess:
            assert os.fsdecode(sess.run(assets[0])) == vocab
        assert len(ff.get_collection(ff.GraphKeys.TABLE_INITIALIZERS)) == 1


def test_lookup_namespaces():
    assert ff.lookup.StaticHashTable is ff.contrib.lookup.HashTable.__mro__[1]
    assert ff.lookup.experimental.MutableHashTable is ff.contrib.lookup.MutableHashTable
    assert ff.initializers.tables_initializer is ff.tables_initializer
