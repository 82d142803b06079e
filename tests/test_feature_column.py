"""`tf.feature_column` (TF-1.x's: `input_layer`, `linear_model`) against TensorFlow's.

Each differential test builds the same columns over the same inputs in both libraries,
sets every variable to the same deterministic values (or keeps the initializers that
are deterministic), and compares the outputs, the variables' names and shapes, and
`cols_to_vars`. `tf.nn.safe_embedding_lookup_sparse`, which the columns use, is
compared too.
"""

from __future__ import annotations

import numpy as np
import pytest

import ferroflow as ff
from ferroflow import _ferroflow

tf_oracle = pytest.mark.tf_oracle
# TF's linear_model builds Keras layers with a deprecated method.
pytestmark = pytest.mark.filterwarnings(
    "ignore:`layer.add_variable` is deprecated:UserWarning:tensorflow"
)

VOCAB = ["apple", "banana", "guava", "orange"]


def _set_values(lib, sess):
    """Gives every global variable distinct deterministic values (by name and shape)."""
    for v in lib.global_variables():
        shape = v.shape.as_list()
        n = int(np.prod(shape))
        seed = sum(ord(c) for c in v.op.name) % 7
        value = ((np.arange(n) + seed) % 11 - 5).astype(np.float32).reshape(shape) / 4
        sess.run(v.assign(value))


def _run(lib, build, set_values=True):
    """Builds `build(lib)` in a fresh graph, initializes it, runs what it returns.

    `build` returns `(fetches, static)`: tensors to run and plain values (names,
    shapes) to compare as they are. Returns `((values, static), variables)`, the
    variables as `[(name, shape)]` in creation order.
    """
    g = lib.Graph()
    with g.as_default():
        fetches, static = build(lib)
        with lib.Session(graph=g) as sess:
            sess.run([lib.global_variables_initializer(), lib.tables_initializer()])
            if set_values:
                _set_values(lib, sess)
            values = sess.run(fetches)
            names = [(v.name, v.shape.as_list()) for v in lib.global_variables()]
    return (values, static), names


def _both(tf1, build, set_values=True):
    return _run(tf1, build, set_values), _run(ff, build, set_values)


def _assert_close(a, b):
    if isinstance(a, dict):
        assert sorted(a) == sorted(b)
        for k in a:
            _assert_close(a[k], b[k])
    elif isinstance(a, list | tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _assert_close(x, y)
    elif hasattr(a, "indices") and hasattr(a, "values"):
        _assert_close([a.indices, a.values, a.dense_shape], [b.indices, b.values, b.dense_shape])
    else:
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-6, atol=1e-6)
        assert np.asarray(a).shape == np.asarray(b).shape


def _assert_same(tf_result, ff_result):
    ((tf_values, tf_static), tf_vars), ((ff_values, ff_static), ff_vars) = tf_result, ff_result
    assert ff_vars == tf_vars
    assert ff_static == tf_static
    _assert_close(tf_values, ff_values)


def _sparse(lib, indices, values, dense_shape, dtype=None):
    return lib.SparseTensor(
        indices, lib.constant(values, dtype=dtype), lib.constant(dense_shape, lib.int64)
    )


def _vocab_file(tmp_path, words=VOCAB, name="vocab.txt"):
    path = tmp_path / name
    path.write_text("\n".join(words) + "\n")
    return str(path)


def _features(lib):
    return {
        "price": lib.constant([[1.0], [5.0], [-2.0], [3.5]]),
        "pair": lib.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]),
        "count": lib.constant([1, 2, 3, 4]),  # rank 1: expanded
        "ids": _sparse(
            lib, [[0, 0], [0, 1], [1, 0], [3, 0], [3, 1]], [1, 3, 7, 0, 0], [4, 2], lib.int64
        ),
        "dense_ids": lib.constant([[1, -1], [2, 9], [-1, -1], [0, 0]]),
        "words": _sparse(
            lib, [[0, 0], [1, 0], [1, 1], [2, 0]], ["banana", "kiwi", "apple", "orange"], [4, 2]
        ),
        "tags": _sparse(lib, [[0, 0], [0, 1], [2, 0], [3, 2]], ["a", "bb", "a", "ccc"], [4, 3]),
        "dense_words": lib.constant([["guava", ""], ["apple", "pear"], ["", ""], ["x", "orange"]]),
        "int_words": _sparse(lib, [[0, 0], [2, 0], [3, 0]], [10, 20, 30], [4, 1], lib.int64),
        "int_tags": lib.constant([[7, -1, 3], [-1, -1, -1], [12, 12, 0], [5, -1, -1]]),
        "weights": _sparse(
            lib, [[0, 0], [0, 1], [1, 0], [3, 0], [3, 1]], [0.5, 2.0, 1.5, 1.0, 3.0], [4, 2]
        ),
        "dense_weights": lib.constant([[2.0, 0.0], [1.0, 3.0], [0.0, 0.0], [0.5, 0.5]]),
    }


def _columns(lib, vocab_path):
    fc = lib.feature_column
    return {
        "price": fc.numeric_column("price"),
        "pair": fc.numeric_column("pair", shape=2, normalizer_fn=lambda x: x * 2.0 - 1.0),
        "count": fc.numeric_column("count", dtype=lib.int32),
        "bucket": fc.bucketized_column(fc.numeric_column("price"), [0.0, 2.0, 4.0]),
        "bucket2": fc.bucketized_column(fc.numeric_column("pair", shape=[2]), [2.0, 5.0]),
        "ids": fc.categorical_column_with_identity("ids", 8),
        "dense_ids": fc.categorical_column_with_identity("dense_ids", 5, default_value=4),
        "hashed": fc.categorical_column_with_hash_bucket("tags", 7),
        "hashed_int": fc.categorical_column_with_hash_bucket("int_tags", 5, dtype=lib.int32),
        "vocab_file": fc.categorical_column_with_vocabulary_file(
            "words", vocab_path, num_oov_buckets=2
        ),
        "vocab_file_default": fc.categorical_column_with_vocabulary_file(
            "dense_words", vocab_path, vocabulary_size=3, default_value=1
        ),
        "vocab_list": fc.categorical_column_with_vocabulary_list(
            "dense_words", ["orange", "guava", "apple"], num_oov_buckets=3
        ),
        "vocab_list_int": fc.categorical_column_with_vocabulary_list(
            "int_words", [30, 10, 5], dtype=lib.int64
        ),
        "weighted": fc.weighted_categorical_column(
            fc.categorical_column_with_identity("ids", 8), "weights"
        ),
        "weighted_dense": fc.weighted_categorical_column(
            fc.categorical_column_with_identity("dense_ids", 5, default_value=0), "dense_weights"
        ),
    }


# -- the dense columns and input_layer ----------------------------------------------------------
DENSE_CASES = {
    "numeric": lambda fc, c: [c["price"], c["pair"], c["count"]],
    "bucketized": lambda fc, c: [c["bucket"], c["bucket2"]],
    "indicator": lambda fc, c: [
        fc.indicator_column(c[k])
        for k in ("ids", "dense_ids", "hashed", "hashed_int", "vocab_file", "vocab_list")
    ],
    "indicator_vocab": lambda fc, c: [
        fc.indicator_column(c["vocab_file_default"]),
        fc.indicator_column(c["vocab_list_int"]),
    ],
    "indicator_weighted": lambda fc, c: [
        fc.indicator_column(c["weighted"]),
        fc.indicator_column(c["weighted_dense"]),
    ],
    "embedding": lambda fc, c: [
        fc.embedding_column(c["ids"], 3),
        fc.embedding_column(c["hashed"], 2, combiner="sum"),
        fc.embedding_column(c["vocab_file"], 2, combiner="sqrtn"),
        fc.embedding_column(c["bucket"], 2),
        fc.embedding_column(c["weighted"], 4, combiner="sqrtn"),
        fc.embedding_column(c["weighted_dense"], 2, combiner="mean", max_norm=0.5),
        fc.embedding_column(c["dense_ids"], 2, use_safe_embedding_lookup=False),
    ],
    "shared_embedding": lambda fc, c: [
        *fc.shared_embedding_columns(
            [c["ids"], fc.categorical_column_with_identity("dense_ids", 8, default_value=0)],
            3,
            combiner="sum",
        ),
        c["price"],
    ],
}


@tf_oracle
@pytest.mark.parametrize("case", sorted(DENSE_CASES))
def test_input_layer(tf1, tmp_path, case):
    vocab_path = _vocab_file(tmp_path)

    def build(lib):
        fc = lib.feature_column
        columns = DENSE_CASES[case](fc, _columns(lib, vocab_path))
        cols_to_vars: dict = {}
        cols_to_out: dict = {}
        out = fc.input_layer(
            _features(lib), columns, cols_to_vars=cols_to_vars, cols_to_output_tensors=cols_to_out
        )
        names = {c.name: [v.name for v in vs] for c, vs in cols_to_vars.items()}
        assert sorted(c.name for c in cols_to_out) == sorted(names)
        return out, [out.shape.as_list(), names]

    tf_result, ff_result = _both(tf1, build)
    _assert_same(tf_result, ff_result)


@tf_oracle
@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_linear_model(tf1, tmp_path, combiner):
    vocab_path = _vocab_file(tmp_path)

    def build(lib):
        fc = lib.feature_column
        c = _columns(lib, vocab_path)
        columns = [
            c["price"],
            c["pair"],
            c["bucket2"],
            c["ids"],
            c["dense_ids"],
            c["hashed"],
            c["hashed_int"],
            c["vocab_file"],
            c["vocab_list"],
            c["vocab_list_int"],
            c["weighted"],
            fc.embedding_column(c["vocab_file_default"], 2),
            fc.indicator_column(c["weighted_dense"]),
        ]
        cols_to_vars: dict = {}
        out = fc.linear_model(
            _features(lib), columns, units=2, sparse_combiner=combiner, cols_to_vars=cols_to_vars
        )
        names = {
            (c if isinstance(c, str) else c.name): [v.name for v in vs]
            for c, vs in cols_to_vars.items()
        }
        return out, [out.shape.as_list(), names]

    tf_result, ff_result = _both(tf1, build)
    _assert_same(tf_result, ff_result)


@tf_oracle
def test_variable_names_and_partitioning(tf1):
    """Scopes, partitioners, second calls and collections name variables as TF does."""

    def build(lib):
        fc = lib.feature_column
        feats = {
            "a": lib.placeholder(lib.float32, [None, 3]),
            "c": lib.sparse_placeholder(lib.int64, shape=[None, None]),
        }
        a = fc.numeric_column("a", shape=3)
        c = fc.categorical_column_with_identity("c", 5)
        cv1: dict = {}
        cv2: dict = {}
        with lib.variable_scope("outer", partitioner=lib.fixed_size_partitioner(2)):
            out1 = fc.linear_model(feats, [a, c], units=3, cols_to_vars=cv1)
            emb = fc.input_layer(feats, [a, fc.embedding_column(c, 4)], cols_to_vars=cv2)
        out2 = fc.linear_model(feats, [c, a], weight_collections=["mine"], trainable=False)
        emb2 = fc.input_layer(feats, [fc.embedding_column(c, 2, trainable=False)])
        out3 = fc.linear_model(feats, a)
        by_name = {
            k if isinstance(k, str) else k.name: [v.name for v in vs] for k, vs in cv1.items()
        }
        by_name2 = {k.name: [v.name for v in vs] for k, vs in cv2.items()}
        collections = {
            key: [v.name for v in lib.get_collection(key)]
            for key in (
                lib.GraphKeys.GLOBAL_VARIABLES,
                lib.GraphKeys.TRAINABLE_VARIABLES,
                lib.GraphKeys.MODEL_VARIABLES,
                "mine",
            )
        }
        shapes = [t.shape.as_list() for t in (out1, emb, out2, emb2, out3)]
        return by_name, by_name2, collections, shapes

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        tf_out = build(tf1)
        tf_vars = [(v.name, v.shape.as_list()) for v in tf1.global_variables()]
    with g_ff.as_default():
        ff_out = build(ff)
        ff_vars = [(v.name, v.shape.as_list()) for v in ff.global_variables()]
    assert ff_vars == tf_vars
    assert ff_out == tf_out


@tf_oracle
def test_dynamic_rank_inputs(tf1, tmp_path):
    """Placeholders of unknown rank (rank 1 or 2 when fed), as warm_starting_util_test's."""
    vocab_path = _vocab_file(tmp_path)

    def build(lib):
        fc = lib.feature_column
        feats = {
            "real": lib.placeholder(lib.float32),
            "sc_int": lib.sparse_placeholder(lib.int32),
            "sc_vocab": lib.sparse_placeholder(lib.string),
        }
        real_bucket = fc.bucketized_column(fc.numeric_column("real"), [0.0, 1.0, 2.0, 3.0])
        sc_int = fc.categorical_column_with_identity("sc_int", 10)
        sc_vocab = fc.categorical_column_with_vocabulary_file("sc_vocab", vocab_path, 4)
        lin = fc.linear_model(feats, [real_bucket, sc_int, sc_vocab])
        deep = fc.input_layer(feats, [real_bucket, fc.embedding_column(sc_vocab, 2)])
        return [lin, deep], feats

    def run(lib, rank1):
        g = lib.Graph()
        with g.as_default():
            fetches, feats = build(lib)
            with lib.Session(graph=g) as sess:
                sess.run([lib.global_variables_initializer(), lib.tables_initializer()])
                _set_values(lib, sess)
                if rank1:
                    feed = {
                        feats["real"]: [-1.0, 0.5, 2.5],
                        feats["sc_int"]: lib.SparseTensorValue([[0], [2]], [3, 9], [3]),
                        feats["sc_vocab"]: lib.SparseTensorValue([[1]], ["guava"], [3]),
                    }
                else:
                    feed = {
                        feats["real"]: [[-1.0], [0.5], [2.5]],
                        feats["sc_int"]: lib.SparseTensorValue(
                            [[0, 0], [0, 1], [2, 0]], [3, 1, 9], [3, 2]
                        ),
                        feats["sc_vocab"]: lib.SparseTensorValue(
                            [[1, 0], [2, 1]], ["guava", "pear"], [3, 2]
                        ),
                    }
                return sess.run(fetches, feed)

    for rank1 in (True, False):
        _assert_close(run(tf1, rank1), run(ff, rank1))


@tf_oracle
def test_training_step_partitioned(tf1, tmp_path):
    """Gradients reach partitioned linear and embedding weights as in TF."""
    vocab_path = _vocab_file(tmp_path)

    def build(lib):
        fc = lib.feature_column
        c = _columns(lib, vocab_path)
        feats = _features(lib)
        with lib.variable_scope("", partitioner=lib.fixed_size_partitioner(3)):
            wide = fc.linear_model(feats, [c["ids"], c["vocab_file"], c["bucket"], c["weighted"]])
            deep = fc.input_layer(feats, [fc.embedding_column(c["hashed"], 3), c["price"]])
        loss = lib.reduce_sum(lib.square(wide - 1.0)) + lib.reduce_sum(lib.square(deep))
        step = lib.train.GradientDescentOptimizer(0.1).minimize(loss)
        return loss, step

    def run(lib):
        g = lib.Graph()
        with g.as_default():
            loss, step = build(lib)
            with lib.Session(graph=g) as sess:
                sess.run([lib.global_variables_initializer(), lib.tables_initializer()])
                _set_values(lib, sess)
                for _ in range(3):
                    sess.run(step)
                return sess.run(loss), {v.name: sess.run(v) for v in lib.global_variables()}

    _assert_close(run(tf1), run(ff))


@tf_oracle
def test_input_layer_object_reuses_variables(tf1):
    """`InputLayer` (TF's internal class, not in `tf.feature_column`)."""
    from tensorflow.python.feature_column import feature_column as tf_fc

    from ferroflow.feature_column import feature_column as ff_fc

    def build(lib):
        fc = lib.feature_column
        ids = fc.categorical_column_with_identity("ids", 8)
        input_layer_class = (tf_fc if lib is tf1 else ff_fc).InputLayer
        layer = input_layer_class([fc.embedding_column(ids, 2), fc.numeric_column("price")])
        a = layer(_features(lib))
        b = layer(_features(lib))
        names = [v.name for v in layer.variables]
        return [a, b], [names, len(layer.trainable_variables), layer.name]

    tf_result, ff_result = _both(tf1, build)
    _assert_same(tf_result, ff_result)


@tf_oracle
def test_embedding_initializers_and_checkpoint(tf1, tmp_path):
    """The default initializer's shape and a `ckpt_to_load_from` restore."""
    ckpt = str(tmp_path / "emb")
    table = np.arange(16, dtype=np.float32).reshape(8, 2) / 8
    with ff.Graph().as_default():
        v = ff.get_variable("old/table", initializer=table)
        with ff.Session() as sess:
            sess.run(v.initializer)
            ff.train.Saver([v]).save(sess, ckpt)

    def build(lib):
        fc = lib.feature_column
        ids = fc.categorical_column_with_identity("ids", 8)
        emb = fc.embedding_column(ids, 2, ckpt_to_load_from=ckpt, tensor_name_in_ckpt="old/table")
        with lib.variable_scope("p", partitioner=lib.fixed_size_partitioner(2)):
            return fc.input_layer(_features(lib), [emb]), None

    tf_result, ff_result = _both(tf1, build, set_values=False)
    _assert_same(tf_result, ff_result)


# -- parsing specs and columns' attributes -----------------------------------------------------
def _spec(spec):
    return {
        k: (
            type(v).__name__,
            [getattr(v, f, None) for f in ("shape", "default_value")],
            v.dtype.name,
        )
        for k, v in spec.items()
    }


@tf_oracle
def test_make_parse_example_spec(tf1, tmp_path):
    vocab_path = _vocab_file(tmp_path)
    tf_cols = _columns(tf1, vocab_path)
    ff_cols = _columns(ff, vocab_path)
    for key in tf_cols:
        assert _spec(ff.feature_column.make_parse_example_spec([ff_cols[key]])) == _spec(
            tf1.feature_column.make_parse_example_spec([tf_cols[key]])
        ), key
        assert ff_cols[key].name == tf_cols[key].name
    both = [ff_cols["price"], ff_cols["pair"], ff_cols["weighted_dense"]]
    tf_both = [tf_cols["price"], tf_cols["pair"], tf_cols["weighted_dense"]]
    assert _spec(ff.feature_column.make_parse_example_spec(both)) == _spec(
        tf1.feature_column.make_parse_example_spec(tf_both)
    )
    spec = ff.feature_column.make_parse_example_spec(
        [ff.feature_column.numeric_column("x", default_value=[1, 2], shape=2)]
    )
    assert spec["x"].default_value == (1, 2)


def test_column_attributes(tmp_path):
    fc = ff.feature_column
    vocab_path = _vocab_file(tmp_path)
    col = fc.categorical_column_with_vocabulary_file("w", vocab_path)
    assert (col.key, col.vocabulary_file, col.vocabulary_size, col.num_oov_buckets) == (
        "w",
        vocab_path,
        4,
        0,
    )
    assert col.default_value == -1 and col.dtype == ff.string
    ident = fc.categorical_column_with_identity("i", 3)
    assert ident.num_buckets == 3 and ident._num_buckets == 3
    emb = fc.embedding_column(ident, 4)
    assert emb.name == "i_embedding" and emb._variable_shape.as_list() == [4]
    assert fc.embedding_column(ident, 4, initializer=emb.initializer) == emb.__class__(
        *emb
    )  # equal columns are equal
    assert {ident: 1}[fc.categorical_column_with_identity("i", 3)] == 1
    bucket = fc.bucketized_column(fc.numeric_column("p", shape=2), [1.0, 2.0])
    assert bucket._num_buckets == 6 and bucket._variable_shape.as_list() == [2, 3]
    cross = fc.crossed_column([bucket, "b", fc.crossed_column(["c", "a"], 3)], 10)
    assert cross.name == "a_X_b_X_c_X_p_bucketized"
    assert sorted(cross._parse_example_spec) == ["a", "b", "c", "p"]
    ind = fc.indicator_column(fc.weighted_categorical_column(ident, "wt"))
    assert ind.name == "i_weighted_by_wt_indicator"
    assert sorted(ind._parse_example_spec) == ["i", "wt"]
    shared = fc.shared_embedding_columns([ident, fc.categorical_column_with_identity("a", 3)], 2)
    assert [c.name for c in shared] == ["i_shared_embedding", "a_shared_embedding"]
    assert shared[0].shared_embedding_collection_name == "a_i_shared_embedding"
    assert sorted([ident, emb, bucket]) is not None  # columns sort


@tf_oracle
@pytest.mark.parametrize(
    "make",
    [
        lambda fc, lib: fc.numeric_column("x", shape=[2, 0]),
        lambda fc, lib: fc.numeric_column("x", shape=[2.0]),
        lambda fc, lib: fc.numeric_column("x", dtype=lib.string),
        lambda fc, lib: fc.numeric_column("x", default_value=[1.0], shape=2),
        lambda fc, lib: fc.numeric_column("x", default_value=1.5, dtype=lib.int32),
        lambda fc, lib: fc.numeric_column("x", normalizer_fn=3),
        lambda fc, lib: fc.numeric_column(3),
        lambda fc, lib: fc.bucketized_column(fc.numeric_column("x"), [1.0, 1.0]),
        lambda fc, lib: fc.bucketized_column(fc.numeric_column("x"), []),
        lambda fc, lib: fc.bucketized_column(fc.numeric_column("x", shape=[2, 2]), [1.0]),
        lambda fc, lib: fc.bucketized_column(fc.categorical_column_with_identity("x", 2), [1.0]),
        lambda fc, lib: fc.categorical_column_with_hash_bucket("x", 0),
        lambda fc, lib: fc.categorical_column_with_hash_bucket("x", 3, dtype=lib.float32),
        lambda fc, lib: fc.categorical_column_with_identity("x", 0),
        lambda fc, lib: fc.categorical_column_with_identity("x", 3, default_value=3),
        lambda fc, lib: fc.categorical_column_with_vocabulary_list("x", []),
        lambda fc, lib: fc.categorical_column_with_vocabulary_list("x", ["a", "a"]),
        lambda fc, lib: fc.categorical_column_with_vocabulary_list(
            "x", ["a"], default_value=0, num_oov_buckets=1
        ),
        lambda fc, lib: fc.categorical_column_with_vocabulary_list("x", ["a"], dtype=lib.int64),
        lambda fc, lib: fc.categorical_column_with_vocabulary_file("x", ""),
        lambda fc, lib: fc.categorical_column_with_vocabulary_file("x", "/no/such/file"),
        lambda fc, lib: fc.categorical_column_with_vocabulary_file("x", "f", vocabulary_size=0),
        lambda fc, lib: fc.embedding_column(fc.categorical_column_with_identity("x", 2), 0),
        lambda fc, lib: fc.embedding_column(
            fc.categorical_column_with_identity("x", 2), 2, ckpt_to_load_from="c"
        ),
        lambda fc, lib: fc.embedding_column(
            fc.categorical_column_with_identity("x", 2), 2, initializer=1.0
        ),
        lambda fc, lib: fc.indicator_column(fc.numeric_column("x")),
        lambda fc, lib: fc.weighted_categorical_column(
            fc.categorical_column_with_identity("x", 2), "w", dtype=lib.string
        ),
        lambda fc, lib: fc.crossed_column(["a"], 3),
        lambda fc, lib: fc.crossed_column(["a", "b"], 0),
        lambda fc, lib: fc.crossed_column(["a", fc.numeric_column("b")], 3),
        lambda fc, lib: fc.crossed_column(["a", fc.categorical_column_with_hash_bucket("b", 3)], 3),
        lambda fc, lib: fc.shared_embedding_columns(
            [
                fc.categorical_column_with_identity("a", 2),
                fc.categorical_column_with_identity("b", 3),
            ],
            2,
        ),
    ],
)
def test_constructor_errors(tf1, make):
    with pytest.raises(Exception) as tf_error:
        make(tf1.feature_column, tf1)
    with pytest.raises(Exception) as ff_error:
        make(ff.feature_column, ff)
    assert type(ff_error.value) is type(tf_error.value)
    assert str(ff_error.value) == str(tf_error.value)


@tf_oracle
@pytest.mark.parametrize(
    "build",
    [
        # A categorical column in input_layer.
        lambda fc, lib, f: fc.input_layer(f, [fc.categorical_column_with_identity("ids", 8)]),
        # A missing feature.
        lambda fc, lib, f: fc.input_layer(f, [fc.numeric_column("nope")]),
        # A sparse numeric feature.
        lambda fc, lib, f: fc.input_layer(f, [fc.numeric_column("ids")]),
        # Two columns of one name.
        lambda fc, lib, f: fc.linear_model(f, [fc.numeric_column("price")] * 2),
        # No columns.
        lambda fc, lib, f: fc.linear_model(f, []),
        # Mismatched dtypes.
        lambda fc, lib, f: fc.linear_model(f, [fc.categorical_column_with_hash_bucket("ids", 3)]),
        lambda fc, lib, f: fc.linear_model(f, [fc.categorical_column_with_identity("words", 3)]),
        # A rank-0 feature.
        lambda fc, lib, f: fc.input_layer({"s": lib.constant(1.0)}, [fc.numeric_column("s")]),
        # Bad weights dtype.
        lambda fc, lib, f: fc.linear_model(
            f,
            [
                fc.weighted_categorical_column(
                    fc.categorical_column_with_identity("ids", 8), "weights", dtype=lib.int32
                )
            ],
        ),
    ],
)
def test_model_errors(tf1, build):
    def attempt(lib):
        with lib.Graph().as_default():
            with pytest.raises(Exception) as error:
                build(lib.feature_column, lib, _features(lib))
            return error.value

    tf_error, ff_error = attempt(tf1), attempt(ff)
    assert type(ff_error) is type(tf_error)
    assert str(ff_error) == str(tf_error)


# -- crossed columns (need the SparseCross kernel) ---------------------------------------------
@tf_oracle
def test_crossed_column(tf1, tmp_path):
    if "SparseCross" not in _ferroflow.op_names():
        with ff.Graph().as_default():
            fc = ff.feature_column
            cross = fc.crossed_column(["words", fc.categorical_column_with_identity("ids", 8)], 9)
            with pytest.raises(ValueError, match="SparseCross"):
                fc.linear_model(_features(ff), [cross])
        pytest.skip("ferroflow has no SparseCross kernel")

    def build(lib):
        fc = lib.feature_column
        cross = fc.crossed_column(
            ["words", fc.categorical_column_with_identity("ids", 8)], 9, hash_key=7
        )
        cross2 = fc.crossed_column(["words", "int_words"], 5)
        return [
            fc.linear_model(_features(lib), [cross, cross2]),
            fc.input_layer(_features(lib), [fc.indicator_column(cross)]),
        ], None

    tf_result, ff_result = _both(tf1, build)
    _assert_same(tf_result, ff_result)


# -- safe_embedding_lookup_sparse --------------------------------------------------------------
@tf_oracle
@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_safe_embedding_lookup_sparse(tf1, combiner):
    table = np.arange(12, dtype=np.float32).reshape(6, 2) / 3

    def build(lib):
        ids = _sparse(lib, [[0, 0], [0, 1], [2, 0], [3, 1]], [1, 3, 0, -1], [4, 2], lib.int64)
        weights = _sparse(lib, [[0, 0], [0, 1], [2, 0], [3, 1]], [1.0, -2.0, 0.5, 1.0], [4, 2])
        ids3 = _sparse(lib, [[0, 0, 0], [0, 1, 1], [1, 0, 0]], [1, 3, 5], [2, 2, 2], lib.int64)
        t = lib.constant(table)
        parts = [lib.constant(table[:3]), lib.constant(table[3:])]
        look = lib.nn.safe_embedding_lookup_sparse
        return [
            look(t, ids, combiner=combiner),
            look(t, ids, weights, combiner=combiner),
            look(parts, ids, weights, combiner=combiner, default_id=2),
            look(parts, ids3, combiner=combiner, partition_strategy="mod"),
            look(t, ids, combiner=combiner, max_norm=1.0),
        ], None

    tf_result, ff_result = _both(tf1, build)
    _assert_same(tf_result, ff_result)


@tf_oracle
def test_parse_example_end_to_end(tf1, tmp_path):
    """A TF-1.x input pipeline: examples parsed with the columns' spec, then both models."""
    vocab_path = _vocab_file(tmp_path)
    example_pb2 = pytest.importorskip("tensorflow.core.example.example_pb2")

    def example(price, words, ids):
        e = example_pb2.Example()
        if price is not None:
            e.features.feature["price"].float_list.value.extend(price)
        e.features.feature["words"].bytes_list.value.extend(w.encode() for w in words)
        e.features.feature["ids"].int64_list.value.extend(ids)
        return e.SerializeToString()

    serialized = [
        example([1.5, 2.0], ["apple", "kiwi"], [3]),
        example(None, [], [0, 7, 7]),
        example([-3.0, 0.5], ["orange"], []),
    ]

    def build(lib):
        fc = lib.feature_column
        price = fc.numeric_column("price", shape=[2], default_value=[0.25, -0.25])
        words = fc.categorical_column_with_vocabulary_file("words", vocab_path, num_oov_buckets=1)
        ids = fc.categorical_column_with_identity("ids", 8)
        columns = [
            price,
            fc.bucketized_column(price, [0.0, 1.0]),
            fc.embedding_column(words, 3, combiner="sqrtn"),
            fc.indicator_column(ids),
        ]
        spec = fc.make_parse_example_spec([*columns, words, ids])
        features = lib.parse_example(lib.constant(serialized), spec)
        deep = fc.input_layer(features, columns)
        kernel = lib.get_variable("hidden", [19, 2], initializer=lib.constant_initializer(0.5))
        hidden = lib.nn.relu(lib.matmul(deep, kernel))
        wide = fc.linear_model(features, [words, ids, columns[1]], units=2)
        return [deep, hidden, wide, hidden + wide], None

    tf_result, ff_result = _both(tf1, build)
    _assert_same(tf_result, ff_result)
