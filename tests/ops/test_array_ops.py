"""Array ops: values against numpy, shapes and names against TensorFlow."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ferroflow as ff
from conftest import assert_same_tensors, build_both, run_ff, run_tf


def _run(t, feeds=None):
    with ff.Session() as sess:
        return sess.run(t, feeds)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.binary(max_size=4) | st.text(max_size=3), min_size=1, max_size=4))
def test_string_constants_keep_every_byte(values):
    """NUL bytes survive (numpy's fixed-width strings would drop trailing ones)."""
    want = [v.encode() if isinstance(v, str) else v for v in values]
    with ff.Graph().as_default(), ff.Session() as sess:
        fills = [ff.constant(values), ff.constant(values[0]), ff.constant(values, ff.string)]
        got = sess.run(fills)
    assert list(got[0]) == want and got[1] == want[0] and list(got[2]) == want


def test_constant_dtype_inference_and_shapes():
    assert ff.constant(1.0).dtype == ff.float32
    assert ff.constant(1).dtype == ff.int32
    assert ff.constant(2**40).dtype == ff.int64
    assert ff.constant(True).dtype == ff.bool
    assert ff.constant(np.float64(1.0)).dtype == ff.float64
    assert ff.constant(np.arange(3)).dtype == ff.int64
    assert ff.constant("hi").dtype == ff.string
    assert _run(ff.constant("hi")) == b"hi"
    np.testing.assert_array_equal(
        _run(ff.constant(["a", "bc"])), np.array([b"a", b"bc"], dtype=object)
    )
    np.testing.assert_array_equal(_run(ff.constant(7, shape=[2, 2])), np.full((2, 2), 7))
    np.testing.assert_array_equal(_run(ff.constant([1, 2], shape=[4])), [1, 2, 2, 2])
    with pytest.raises(TypeError, match="Expected int32"):
        ff.constant(1.5, dtype=ff.int32)
    with pytest.raises(ValueError, match="Too many elements"):
        ff.constant([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        ff.constant([1, 2], shape=[4], verify_shape=True)
    f16 = _run(ff.constant(np.array([1.5, 2.0], np.float16)))
    assert f16.dtype == np.float16
    np.testing.assert_array_equal(f16, [1.5, 2.0])


@settings(max_examples=40, deadline=None)
@given(
    x=hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=4, max_side=4)),
    to=st.sampled_from([np.float64, np.int32, np.int64, np.uint8, np.bool_]),
)
def test_cast_matches_numpy(x, to):
    x = np.nan_to_num(x, nan=0.0, posinf=200.0, neginf=-200.0).clip(-200, 200)
    got = _run(ff.cast(x, ff.as_dtype(to)))
    want = x.astype(to) if to is not np.uint8 else x.astype(np.int64).astype(np.uint8)
    if to is np.uint8:
        want = np.trunc(x).astype(np.int64).astype(np.uint8)
        got = np.asarray(got)
        mask = x >= 0
        np.testing.assert_array_equal(np.asarray(got)[mask], want[mask])
    else:
        np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_reshape_matches_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4))
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    new = list(np.random.default_rng(len(shape)).permutation([*shape, 1]))
    if new:
        new[0] = -1
    out = ff.reshape(x, new)
    want = x.reshape(new)
    assert out.shape.as_list() == list(want.shape)
    np.testing.assert_array_equal(_run(out), want)


def test_reshape_with_fed_shape_and_unknown_dims():
    p = ff.placeholder(ff.float32, [None, 4])
    r = ff.reshape(p, [-1, 2])
    assert r.shape.as_list() == [None, 2]
    s = ff.placeholder(ff.int32, [3])
    r2 = ff.reshape(p, s)
    assert r2.shape.as_list() == [None, None, None]
    np.testing.assert_array_equal(_run(r2, {p: np.zeros((2, 4)), s: [2, 2, 2]}).shape, (2, 2, 2))


def test_fill_zeros_ones_like():
    np.testing.assert_array_equal(_run(ff.fill([2, 3], 9)), np.full((2, 3), 9))
    z = ff.zeros([2, 2], dtype=ff.int64)
    assert z.dtype == ff.int64
    np.testing.assert_array_equal(_run(z), np.zeros((2, 2)))
    np.testing.assert_array_equal(_run(ff.ones([3])), np.ones(3))
    p = ff.placeholder(ff.float32, [None])
    zl, ol = ff.zeros_like(p), ff.ones_like(p)
    assert zl.op.type == "ZerosLike" and ol.op.type == "OnesLike"
    got = _run([zl, ol, ff.ones_like(p, dtype=ff.int32)], {p: [1.0, 2.0, 3.0]})
    np.testing.assert_array_equal(got[0], [0, 0, 0])
    np.testing.assert_array_equal(got[1], [1, 1, 1])
    assert got[2].dtype == np.int32
    dims = ff.placeholder(ff.int32, [2])
    np.testing.assert_array_equal(_run(ff.zeros(dims), {dims: [1, 2]}), np.zeros((1, 2)))


def test_shape_size_rank_range():
    p = ff.placeholder(ff.float32, [None, 3])
    got = _run([ff.shape(p), ff.size(p), ff.rank(p)], {p: np.zeros((2, 3))})
    np.testing.assert_array_equal(got[0], [2, 3])
    assert got[1] == 6 and got[2] == 2
    assert ff.shape(p).shape.as_list() == [2]
    np.testing.assert_array_equal(_run(ff.range(5)), np.arange(5))
    np.testing.assert_allclose(_run(ff.range(1.0, 2.0, 0.25)), np.arange(1.0, 2.0, 0.25))
    np.testing.assert_array_equal(_run(ff.range(10, 0, -3)), [10, 7, 4, 1])
    assert ff.range(5).shape.as_list() == [5]
    with pytest.raises(ValueError, match="Requires start <= limit"):
        ff.range(5, 1, 1)


def test_stack_gather_where_squeeze_boolean_mask():
    a, b = ff.constant([1, 2]), ff.constant([3, 4])
    s = ff.stack([a, b], axis=1)
    assert s.shape.as_list() == [2, 2]
    np.testing.assert_array_equal(_run(s), [[1, 3], [2, 4]])
    params = ff.constant(np.arange(12).reshape(3, 4))
    g = ff.gather(params, [2, 0])
    assert g.shape.as_list() == [2, 4]
    np.testing.assert_array_equal(_run(g), np.arange(12).reshape(3, 4)[[2, 0]])
    np.testing.assert_array_equal(
        _run(ff.gather(params, [[1]], axis=1)), np.arange(12).reshape(3, 4)[:, [[1]]]
    )
    bad = ff.gather(params, ff.constant([5]), name="bad_gather")
    with pytest.raises(ff.errors.InvalidArgumentError, match=r"indices\[0\] = 5") as e:
        _run(bad)
    assert e.value.op.name == "bad_gather"
    mask = ff.constant([True, False, True])
    np.testing.assert_array_equal(_run(ff.where(mask)), [[0], [2]])
    np.testing.assert_array_equal(
        _run(ff.boolean_mask(ff.constant(["x", "y", "z"]), mask)),
        np.array([b"x", b"z"], dtype=object),
    )
    sq = ff.squeeze(ff.zeros([1, 3, 1]))
    assert sq.shape.as_list() == [3]
    with pytest.raises(ValueError, match="Can not squeeze dim"):
        ff.squeeze(ff.zeros([2, 3]), axis=[0])


def test_identity_group_tuple_no_op():
    a = ff.constant(1.0)
    i = ff.identity(a, name="i")
    assert i.op.type == "Identity" and _run(i) == 1.0
    v = ff.Variable(0)
    g = ff.group(v.assign_add(1), v.assign_add(2), name="both")
    assert g.type == "NoOp" and len(g.control_inputs) == 2
    t = ff.tuple([a, i])
    assert [x.op.name for x in t] == ["tuple/control_dependency", "tuple/control_dependency_1"]
    with ff.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(g) is None
        assert sess.run(v) == 3
        assert sess.run(t) == [1.0, 1.0]
    with pytest.raises(TypeError):
        ff.group(1.0)


@pytest.mark.tf_oracle
def test_array_op_names_match_tensorflow(tf1):
    def build(tf):
        p = tf.placeholder(tf.float32, [None, 2])
        return [
            tf.reshape(p, [-1]),
            tf.zeros([2]),
            tf.ones([2, 2]),
            tf.fill([2], 3.0),
            tf.zeros_like(p),
            tf.ones_like(p),
            tf.shape(p),
            tf.size(p),
            tf.rank(p),
            tf.cast(p, tf.int32),
            tf.identity(p),
            tf.stack([p, p]),
            tf.placeholder_with_default(tf.constant([1.0]), [None]),
        ]

    (_, a), (_, b) = build_both(tf1, build)
    assert_same_tensors(a, b)


@pytest.mark.parametrize("out_type", ["int32", "int64"])
def test_shape_and_size_values_have_their_out_type_as_tf(tf1, out_type):
    # Arithmetic on them used to fail: the kernels made int32 whatever the out_type.
    def build(lib):
        x = lib.placeholder(lib.float32, [None, 3], name="x")
        dtype = getattr(lib, out_type)
        shape, size = lib.shape(x, out_type=dtype), lib.size(x, out_type=dtype)
        return shape, size, shape[0] * 2 + size

    feed = {"x:0": np.ones((4, 3), np.float32)}
    got = run_ff(build, lambda g: feed)
    want = run_tf(tf1, build, lambda g: feed)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype == np.dtype(out_type)
        np.testing.assert_array_equal(a, b)


WHERE_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16, np.int32]
WHERE_DTYPES += [np.uint32, np.float32, np.int64, np.uint64, np.float64]


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(WHERE_DTYPES),
)
def test_where_selects_every_element_type_with_broadcasting(data, dtype):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_side=0, max_side=70))
    c_shape, t_shape, e_shape = shapes.input_shapes
    c = data.draw(hnp.arrays(np.bool_, c_shape))
    # Bit patterns of every kind (NaNs and negative zeros for the floats) must survive.
    t, e = (data.draw(hnp.arrays(dtype, s)) for s in (t_shape, e_shape))
    # `where_v2` broadcasts as numpy (TF-1.x `where` picks rows with a vector condition).
    got = _run(ff.where_v2(ff.constant(c), ff.constant(t), ff.constant(e)))
    want = np.where(c, t, e)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


@pytest.mark.tf_oracle
def test_sequence_mask_matches_tf(tf1):
    def build(lib):
        lengths = lib.constant([[1, 3], [0, 2]])
        return [
            lib.sequence_mask(lengths),
            lib.sequence_mask([2, 0, 4], maxlen=5, dtype=lib.float32),
            lib.sequence_mask(lib.constant([1, 2], lib.int64), lib.constant(3, lib.int64)),
        ]

    want, got = run_tf(tf1, build), run_ff(build)
    for a, b in zip(want, got, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@pytest.mark.tf_oracle
def test_where_with_a_vector_condition_picks_rows_as_tf1(tf1):
    # TF-1.x's `where` is `Select`: a [batch] condition chooses whole rows of a
    # [batch, n] x or y (also when batch == n, where broadcasting would pick columns);
    # `where_v2` broadcasts.
    def build(lib):
        c = lib.constant([True, False])
        x, y = lib.constant([[1.0, 2.0], [3.0, 4.0]]), lib.constant([[5.0, 6.0], [7.0, 8.0]])
        u = lib.placeholder_with_default(np.arange(6.0, dtype=np.float32).reshape(2, 3), None)
        x3 = lib.reshape(lib.range(8.0), [2, 2, 2])
        return [
            lib.where(c, x, y),
            lib.where(c, u, -u),
            lib.where(c, x3, -x3),
            lib.where_v2(c, x, y),
            lib.gradients(lib.reduce_sum(lib.where(c, x * 2.0, y)), [x, y]),
        ]

    want, got = run_tf(tf1, build), run_ff(build)
    for a, b in zip(want[:4], got[:4], strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(want[4], got[4], strict=True):
        np.testing.assert_array_equal(a, b)


def test_shape_lists_holding_dimensions_convert_as_in_tf():
    """`tf.reshape(x, [-1, x.shape[1] // 2, Dimension(2)])`, as TF-1.x programs write."""
    x = ff.placeholder(ff.float32, [None, 6])
    r = ff.reshape(x, [-1, x.shape[1] // 2, ff.Dimension(2)])
    assert r.shape.as_list() == [None, 3, 2]
    c = ff.constant([1, ff.Dimension(2), [3][0]])
    assert c.dtype == ff.int32
    with ff.Session() as sess:
        out = sess.run(r, {x: np.arange(12, dtype=np.float32).reshape(2, 6)})
        assert out.shape == (2, 3, 2)
        assert sess.run(c).tolist() == [1, 2, 3]
    with pytest.raises(TypeError):
        ff.constant([1, ff.Dimension(None)])
