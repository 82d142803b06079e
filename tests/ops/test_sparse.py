"""Sparse tensors against TensorFlow: SparseTensor/SparseTensorValue/sparse_placeholder,
the sparse ops (native kernels under TF's op types), their gradients, serialized sparse
tensors read across the two libraries, and TF's errors for bad indices."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import run_ff, run_tf

import ferroflow as ff


def assert_same(a, b, rtol=1e-6):
    if isinstance(a, tuple | list):
        assert type(a).__name__ == type(b).__name__
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y, rtol)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    assert a.shape == b.shape, (a.shape, b.shape)
    if a.dtype.kind in "fc":
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-6)
    else:
        np.testing.assert_array_equal(a, b)


def both(tf1, build, feeds=None):
    want = run_tf(tf1, build, feeds)
    got = run_ff(build, feeds)
    assert_same(want, got)
    return got


IND = [[0, 0], [0, 2], [1, 1], [2, 3]]
VAL = [1.0, 2.0, 3.0, 4.0]
SHAPE = [3, 4]


def st_(lib, ind=IND, val=VAL, shape=SHAPE, dtype=None):
    return lib.SparseTensor(ind, np.asarray(val, dtype=dtype) if dtype else val, shape)


# -- SparseTensor, SparseTensorValue, sparse_placeholder --------------------------------


def test_sparse_tensor_names_shapes_and_fetch(tf1):
    def build(tf):
        s = st_(tf)
        return [s.indices, s.values, s.dense_shape], s

    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            (ts, s) = build(lib)
            assert [t.name for t in ts] == [
                "SparseTensor/indices:0",
                "SparseTensor/values:0",
                "SparseTensor/dense_shape:0",
            ]
            assert s.get_shape().as_list() == [3, 4]
            assert s.dtype == lib.float32
            assert s.op is s.values.op
            assert s.graph is g
    got = both(tf1, lambda tf: st_(tf))
    assert isinstance(got, ff.SparseTensorValue)
    assert got.dense_shape.dtype == np.int64


def test_from_value_eval_and_nested_fetch(tf1):
    v = ff.SparseTensorValue(np.array(IND, np.int64), np.array(VAL, np.float32), np.array(SHAPE))
    s = ff.SparseTensor.from_value(v)
    assert ff.SparseTensor.from_value(s) is s
    with pytest.raises(TypeError):
        ff.SparseTensor.from_value([1, 2])
    with ff.Session() as sess:
        out = s.eval()
        assert isinstance(out, ff.SparseTensorValue)
        nested = sess.run({"a": [s, s.values]})
    np.testing.assert_array_equal(out.values, VAL)
    np.testing.assert_array_equal(nested["a"][0].indices, IND)


def test_shape_checks_as_tf(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default(), pytest.raises(ValueError):
            lib.SparseTensor([[0, 0]], [1.0, 2.0], [2, 2])
        with lib.Graph().as_default(), pytest.raises(ValueError):
            lib.SparseTensor([[0, 0]], [1.0], [2, 2, 2])


@pytest.mark.parametrize("shape", [None, [3, None], [3, 4]])
@pytest.mark.parametrize("as_tuple", [False, True])
def test_sparse_placeholder_feed_and_fetch(tf1, shape, as_tuple):
    value = (np.array(IND, np.int64), np.array(VAL, np.float32), np.array(SHAPE, np.int64))

    def run(lib):
        g = lib.Graph()
        with g.as_default():
            sp = lib.sparse_placeholder(lib.float32, shape=shape, name="sp")
            names = [sp.indices.name, sp.values.name, sp.dense_shape.name]
            static = sp.get_shape()
            dense = lib.sparse_tensor_to_dense(sp)
            feed = value if as_tuple else lib.SparseTensorValue(*value)
            with lib.Session() as sess:
                out = sess.run([sp, dense], {sp: feed})
        return names, static.as_list() if static.ndims is not None else None, out

    want, got = run(tf1), run(ff)
    assert want[0] == got[0]
    assert want[1] == got[1]
    assert_same(want[2], got[2])


# -- the ops --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ([[0, 1], [2, 0]], [3, 4], [5.0, 6.0], 0.5),
        ([1, 3], [5], [7, 8], -1),
        (2, [4], 9, 0),
        ([[0, 1], [2, 0]], [3, 4], 5.0, 0.0),
    ],
)
def test_sparse_to_dense(tf1, args):
    ind, shape, vals, default = args
    both(tf1, lambda tf: tf.sparse_to_dense(ind, shape, vals, default))

    def names(lib):
        g = lib.Graph()
        with g.as_default():
            t = lib.sparse_to_dense(ind, shape, vals, default)
            return t.name, t.shape.as_list(), sorted(o.name for o in g.get_operations())

    assert names(tf1) == names(ff)


def test_sparse_tensor_to_dense_types(tf1):
    for dtype in (np.float32, np.int32, np.int64, np.float64):
        both(tf1, lambda tf, d=dtype: tf.sparse_tensor_to_dense(st_(tf, dtype=d), 7))
    both(tf1, lambda tf: tf.sparse_tensor_to_dense(tf.SparseTensor([[1]], [b"x"], [3]), b"-"))
    both(tf1, lambda tf: tf.sparse_tensor_to_dense(tf.SparseTensor([[0, 1]], [True], [2, 2])))


@pytest.mark.parametrize(
    "ind",
    [
        [[1, 0], [0, 0]],  # out of order
        [[0, 0], [0, 0]],  # repeated
        [[0, 0], [3, 0]],  # out of bounds
        [[0, 0], [0, -1]],  # negative
    ],
)
def test_sparse_to_dense_index_errors(tf1, ind):
    messages = []
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            t = lib.sparse_to_dense(ind, [3, 2], [1.0, 2.0])
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError) as e:
                sess.run(t)
            messages.append(str(e.value))
    # TF 2 wraps the kernel's message; ours is the kernel's message.
    assert messages[1].split("\n")[0] in messages[0]


def test_sparse_to_dense_unvalidated_order(tf1):
    both(
        tf1,
        lambda tf: tf.sparse_to_dense([[1, 0], [0, 0]], [3, 2], [1.0, 2.0], validate_indices=False),
    )


def test_reorder_reshape(tf1):
    ind = [[2, 3], [0, 2], [1, 1], [0, 0]]

    def build(tf):
        s = tf.SparseTensor(ind, [4.0, 2.0, 3.0, 1.0], [3, 4])
        r = tf.sparse_reorder(s)
        return [
            r,
            tf.sparse_reshape(r, [4, 3]),
            tf.sparse_reshape(r, [-1, 2]),
            tf.sparse_reshape(r, [2, 3, 2]),
        ]

    both(tf1, build)
    (g_tf, g_ff) = (tf1.Graph(), ff.Graph())
    for lib, g in ((tf1, g_tf), (ff, g_ff)):
        with g.as_default():
            s = lib.sparse_reshape(lib.SparseTensor(ind, [1, 2, 3, 4], [3, 4]), [-1, 6])
            assert s.get_shape().as_list() == [2, 6]
            with pytest.raises(ValueError):
                lib.sparse_reshape(lib.SparseTensor(ind, [1, 2, 3, 4], [3, 4]), [5, 2])


def test_sparse_reshape_runtime_error(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            sp = lib.sparse_placeholder(lib.float32)
            r = lib.sparse_reshape(sp, [5, 2])
            feed = lib.SparseTensorValue(np.array([[0, 0]]), np.array([1.0], np.float32), [3, 4])
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError):
                sess.run(r, {sp: feed})


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sparse_concat(tf1, axis):
    def build(tf):
        a = tf.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])
        b = tf.SparseTensor([[0, 0], [1, 2]], [3.0, 4.0], [2, 3])
        c = tf.SparseTensor([[1, 1]], [5.0], [2, 3])
        return tf.sparse_concat(axis, [a, b, c])

    both(tf1, build)


def test_sparse_concat_expand_and_errors(tf1):
    def build(tf):
        a = tf.SparseTensor([[0, 1], [1, 0]], [1, 2], [2, 3])
        b = tf.SparseTensor([[0, 3], [2, 2]], [3, 4], [3, 4])
        return tf.sparse_concat(1, [a, b], expand_nonconcat_dim=True)

    both(tf1, build)
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            a = lib.sparse_placeholder(lib.float32)
            b = lib.sparse_placeholder(lib.float32)
            c = lib.sparse_concat(1, [a, b])
            one = lib.SparseTensorValue(np.zeros((0, 2)), np.zeros(0, np.float32), [2, 3])
            two = lib.SparseTensorValue(np.zeros((0, 2)), np.zeros(0, np.float32), [3, 3])
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError):
                sess.run(c, {a: one, b: two})


@pytest.mark.parametrize("thresh", [0, 2.5])
def test_sparse_add(tf1, thresh):
    def build(tf):
        a = tf.SparseTensor([[0, 0], [1, 1], [2, 0]], [1.0, -2.0, 3.0], [3, 2])
        b = tf.SparseTensor([[0, 1], [1, 1], [2, 0]], [4.0, 1.0, -0.5], [3, 2])
        s = tf.sparse_add(a, b, thresh)
        return s, tf.sparse_tensor_to_dense(s)

    both(tf1, build)
    with pytest.raises(TypeError):
        ff.sparse_add(ff.constant(1.0), ff.constant(2.0))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 2], [1, 2]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sparse_reduce_sum(tf1, axis, keepdims):
    def build(tf):
        s = tf.SparseTensor(
            [[0, 0, 1], [0, 1, 1], [1, 0, 0], [1, 1, 2]], [1.0, 2.0, 3.0, 4.0], [2, 2, 3]
        )
        dense = tf.sparse_reduce_sum(s, axis, keepdims=keepdims)
        return dense, tf.sparse_reduce_sum_sparse(s, axis, keepdims=keepdims)

    both(tf1, build)
    g = ff.Graph()
    with g.as_default():
        s = ff.SparseTensor([[0, 0, 1]], [1.0], [2, 2, 3])
        t = ff.sparse_reduce_sum(s, axis, keepdims=keepdims)
    with tf1.Graph().as_default():
        s = tf1.SparseTensor([[0, 0, 1]], [1.0], [2, 2, 3])
        want = tf1.sparse_reduce_sum(s, axis, keepdims=keepdims)
    assert t.shape.as_list() == want.shape.as_list()
    assert t.name == want.name


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
def test_sparse_tensor_dense_matmul_and_grads(tf1, adjoint_a, adjoint_b):
    rng = np.random.default_rng(0)
    b_val = rng.standard_normal((4, 3) if not adjoint_b else (3, 4)).astype(np.float32)
    a_shape = [2, 4] if not adjoint_a else [4, 2]
    ind = [[0, 1], [1, 0], [1, 3]] if not adjoint_a else [[0, 1], [1, 0], [3, 1]]

    def build(tf):
        vals = tf.constant([1.5, -2.0, 0.5])
        b = tf.constant(b_val)
        a = tf.SparseTensor(ind, vals, a_shape)
        y = tf.sparse_tensor_dense_matmul(a, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)
        w = tf.constant(rng.standard_normal((2, 3)).astype(np.float32))
        return y, tf.gradients(tf.reduce_sum(y * w), [vals, b])

    rng = np.random.default_rng(0)
    want = run_tf(tf1, build)
    rng = np.random.default_rng(0)
    got = run_ff(build)
    assert_same(want, got, rtol=1e-5)


def test_sparse_tensor_dense_matmul_errors(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            a = lib.SparseTensor([[0, 5]], [1.0], [2, 4])
            y = lib.sparse_tensor_dense_matmul(a, lib.ones([4, 2]))
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError):
                sess.run(y)
        with lib.Graph().as_default():
            a = lib.SparseTensor([[0, 1]], [1.0], [2, 4])
            b = lib.placeholder(lib.float32, [None, 2])
            y = lib.sparse_tensor_dense_matmul(a, b)
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError):
                sess.run(y, {b: np.ones((3, 2), np.float32)})


def test_sparse_retain_and_fill_empty_rows(tf1):
    def build(tf):
        s = tf.SparseTensor([[0, 0], [0, 2], [2, 1], [4, 3]], [1.0, 2.0, 3.0, 4.0], [6, 4])
        kept = tf.sparse_retain(s, [True, False, True, True])
        filled, empty = tf.sparse_fill_empty_rows(s, -1.0)
        return kept, filled, empty

    both(tf1, build)


def test_gradients_of_sparse_ops(tf1):
    def build(tf):
        v = tf.constant([1.0, 2.0, 3.0, 4.0])
        d = tf.constant(0.5)
        s = tf.SparseTensor([[0, 0], [0, 2], [2, 1], [4, 3]], v, [6, 4])
        w = tf.reshape(tf.range(24, dtype=tf.float32), [6, 4])
        dense = tf.sparse_to_dense(s.indices, s.dense_shape, v, d)
        filled, _ = tf.sparse_fill_empty_rows(s, d)
        unordered = tf.SparseTensor([[2, 1], [0, 0], [4, 3], [0, 2]], v, [6, 4])
        reordered = tf.sparse_reorder(unordered)
        b = tf.SparseTensor([[0, 0], [1, 1], [4, 3]], tf.constant([1.0, 1.0, -4.0]), [6, 4])
        added = tf.sparse_add(s, b)
        summed = tf.sparse_reduce_sum(s, 1)
        loss = (
            tf.reduce_sum(dense * w)
            + tf.reduce_sum(filled.values * tf.range(7, dtype=tf.float32))
            + tf.reduce_sum(reordered.values * tf.constant([1.0, 10.0, 100.0, 1000.0]))
            + tf.reduce_sum(added.values * tf.range(5, dtype=tf.float32))
            + tf.reduce_sum(summed * tf.range(6, dtype=tf.float32))
        )
        return tf.gradients(loss, [v, d, b.values])

    both(tf1, build)


@pytest.mark.parametrize(
    "op", ["sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n"]
)
def test_sparse_segment_ops_and_grads(tf1, op):
    def build(tf):
        data = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
        y = getattr(tf, op)(data, [0, 2, 3, 3, 1], [0, 0, 1, 3, 3])
        return y, tf.gradients(tf.reduce_sum(y * y), data)

    both(tf1, build)


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("weighted", [False, True])
def test_embedding_lookup_sparse(tf1, combiner, weighted):
    def build(tf):
        params = tf.constant(np.arange(15, dtype=np.float32).reshape(5, 3))
        ids = tf.SparseTensor(
            [[0, 0], [0, 1], [1, 0], [3, 0], [3, 1]], tf.constant([1, 3, 0, 3, 3], tf.int64), [4, 2]
        )
        w = (
            tf.SparseTensor(ids.indices, [1.0, 2.0, 0.5, 1.0, 3.0], ids.dense_shape)
            if weighted
            else None
        )
        y = tf.nn.embedding_lookup_sparse(params, ids, w, combiner=combiner)
        g = tf.gradients(tf.reduce_sum(y * y), params)[0]
        return y, tf.convert_to_tensor(g)

    both(tf1, build)


@pytest.mark.parametrize("idx", [[[1, 0], [0, 2], [1, 0]], [[1], [0]], [[[0, 1]], [[1, 2]]]])
def test_gather_nd_and_its_gradient(tf1, idx):
    def build(tf):
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        y = tf.gather_nd(x, idx)
        w = tf.reshape(tf.range(tf.size(y)), tf.shape(y))
        return y, tf.gradients(tf.reduce_sum(y * tf.cast(w, tf.float32)), x)

    both(tf1, build)


# -- serialized sparse tensors ----------------------------------------------------------


def _minibatch(tf):
    return tf.SparseTensor([[0, 0, 1], [0, 1, 0], [2, 1, 2]], ["a", "b", "c"], [3, 2, 3])


def test_serialize_round_trips(tf1):
    def build(tf):
        s = _minibatch(tf)
        many = tf.serialize_many_sparse(s)
        one = tf.serialize_sparse(tf.SparseTensor([[0, 1], [1, 2]], [1.5, 2.5], [2, 3]))
        return tf.deserialize_many_sparse(many, tf.string), tf.deserialize_many_sparse(
            tf.stack([one, one]), tf.float32
        )

    both(tf1, build)


@pytest.mark.parametrize("direction", ["ff_to_tf", "tf_to_ff"])
def test_serialized_sparse_crosses_libraries(tf1, direction):
    writer, reader = (ff, tf1) if direction == "ff_to_tf" else (tf1, ff)
    with writer.Graph().as_default():
        s = writer.SparseTensor([[0, 0, 1], [0, 1, 0], [2, 1, 2]], [1, 2, 3], [3, 2, 4])
        ser = writer.serialize_many_sparse(s)
        # Strings cross from ours to TF only: TF writes string values as packed
        # `tensor_content`, which ferroflow's TensorProto reader does not parse yet.
        word = b"z" if writer is ff else 7.5
        one = writer.serialize_sparse(writer.SparseTensor([[1]], [word], [2]))
        with writer.Session() as sess:
            ser_v, one_v = sess.run([ser, one])
    with reader.Graph().as_default():
        back = reader.deserialize_many_sparse(ser_v, reader.int32)
        back_one = reader.deserialize_many_sparse(
            np.stack([one_v]), reader.string if writer is ff else reader.float32
        )
        with reader.Session() as sess:
            out, out_one = sess.run([back, back_one])
    np.testing.assert_array_equal(out.indices, [[0, 0, 1], [0, 1, 0], [2, 1, 2]])
    np.testing.assert_array_equal(out.values, [1, 2, 3])
    np.testing.assert_array_equal(out.dense_shape, [3, 2, 4])
    np.testing.assert_array_equal(out_one.indices, [[0, 1]])
    assert list(out_one.values) == [b"z" if writer is ff else 7.5]


def test_deserialize_type_error(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            ser = lib.serialize_many_sparse(lib.SparseTensor([[0, 0]], [1], [1, 1]))
            back = lib.deserialize_many_sparse(ser, lib.float32)
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError):
                sess.run(back)


# -- random sparse inputs ------------------------------------------------------------------


@st.composite
def sparse_inputs(draw):
    rank = draw(st.integers(1, 3))
    shape = [draw(st.integers(1, 4)) for _ in range(rank)]
    total = int(np.prod(shape))
    flat = draw(st.lists(st.integers(0, total - 1), unique=True, max_size=min(total, 8)))
    ind = np.array(np.unravel_index(np.array(flat, dtype=np.int64), shape)).T.reshape(-1, rank)
    vals = draw(st.lists(st.integers(-5, 5), min_size=len(flat), max_size=len(flat)))
    return ind.astype(np.int64), np.array(vals, np.float32), np.array(shape, np.int64)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sparse_inputs())
def test_random_sparse_tensors(tf1, sp):
    ind, vals, shape = sp
    rank = len(shape)

    def build(tf):
        s = tf.sparse_reorder(tf.SparseTensor(ind, vals, shape))
        out = [
            s,
            tf.sparse_tensor_to_dense(s),
            tf.sparse_reduce_sum(s, rank - 1),
            tf.sparse_reshape(s, [-1]),
            tf.deserialize_many_sparse(tf.serialize_many_sparse(s), tf.float32)
            if rank > 1
            else tf.sparse_tensor_to_dense(s),
            tf.sparse_add(s, s),
        ]
        if rank == 2:
            out.append(tf.sparse_tensor_dense_matmul(s, tf.ones([shape[1], 2])))
            out.append(tf.sparse_fill_empty_rows(s, 9.0))
        return out

    both(tf1, build)
