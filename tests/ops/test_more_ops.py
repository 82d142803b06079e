"""More ops: comparisons, logic, integer arithmetic, arg reductions, layout, segments.

Values against numpy (and TensorFlow where its semantics are the point), static
shapes and names against TensorFlow, and the errors of bad arguments.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ferroflow as ff
from conftest import build_both, run_ff, run_tf


def _run(t, feeds=None):
    with ff.Session() as sess:
        return sess.run(t, feeds)


COMPARE = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}
OPERATORS = {
    "<": (lambda x, y: x < y, np.less),
    "<=": (lambda x, y: x <= y, np.less_equal),
    ">": (lambda x, y: x > y, np.greater),
    ">=": (lambda x, y: x >= y, np.greater_equal),
}


@settings(max_examples=30, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
)
def test_comparisons_broadcast_like_numpy(data, dtype):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_side=0, max_side=3))
    elems = st.integers(-3, 3)  # small range: many ties
    a = data.draw(hnp.arrays(dtype, shapes.input_shapes[0], elements=elems))
    b = data.draw(hnp.arrays(dtype, shapes.input_shapes[1], elements=elems))
    x, y = ff.constant(a), ff.constant(b)
    outs = [getattr(ff, n)(x, y) for n in sorted(COMPARE)]
    outs += [OPERATORS[k][0](x, y) for k in sorted(OPERATORS)]
    got = _run(outs)
    want = [COMPARE[n](a, b) for n in sorted(COMPARE)]
    want += [OPERATORS[k][1](a, b) for k in sorted(OPERATORS)]
    for t, g, w in zip(outs, got, want, strict=True):
        assert t.dtype == ff.bool
        assert t.shape.as_list() == list(shapes.result_shape)
        assert g.dtype == np.bool_
        np.testing.assert_array_equal(g, w)


def test_comparisons_with_nan_strings_and_scalars():
    x = ff.constant([1.0, np.nan, 3.0])
    got = _run([ff.equal(x, x), ff.not_equal(x, x), ff.less(x, 2.0), ff.greater_equal(x, np.nan)])
    np.testing.assert_array_equal(got[0], [True, False, True])
    np.testing.assert_array_equal(got[1], [False, True, False])
    np.testing.assert_array_equal(got[2], [True, False, False])
    np.testing.assert_array_equal(got[3], [False, False, False])
    s = ff.constant(["a", "b"])
    np.testing.assert_array_equal(_run(ff.equal(s, "a")), [True, False])
    np.testing.assert_array_equal(_run([1 < ff.constant([0, 2])]), [[False, True]])
    with pytest.raises(TypeError):
        ff.less(ff.constant([True]), ff.constant([False]))
    with pytest.raises(TypeError):
        ff.equal(ff.constant(1.0), ff.constant(1))


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_logical_ops_broadcast_like_numpy(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_side=0, max_side=3))
    a = data.draw(hnp.arrays(np.bool_, shapes.input_shapes[0]))
    b = data.draw(hnp.arrays(np.bool_, shapes.input_shapes[1]))
    x, y = ff.constant(a), ff.constant(b)
    outs = [ff.logical_and(x, y), ff.logical_or(x, y), ff.logical_not(x), x & y, x | y, ~x]
    got = _run(outs)
    want = [a & b, a | b, ~a, a & b, a | b, ~a]
    for t, g, w in zip(outs, got, want, strict=True):
        assert t.dtype == ff.bool
        assert t.shape.as_list() == list(w.shape)
        np.testing.assert_array_equal(g, w)


def test_logical_ops_need_bools():
    with pytest.raises(TypeError):
        ff.logical_and(ff.constant([1, 0]), ff.constant([1, 1]))
    with pytest.raises((TypeError, ValueError)):
        ff.logical_not(ff.constant([1.0]))
    np.testing.assert_array_equal(_run(ff.logical_or(ff.constant([False]), True)), [True])


INT_BINARY = {
    "floordiv": (np.floor_divide, lambda x, y: x // y),
    "floormod": (np.mod, lambda x, y: x % y),
    "mod": (np.mod, None),
    "div": (np.floor_divide, None),  # TF-1.x `tf.div`: Python-2 (floor) division of ints
}


@settings(max_examples=30, deadline=None)
@given(
    data=st.data(),
    name=st.sampled_from(sorted(INT_BINARY)),
    dtype=st.sampled_from([np.int32, np.int64, np.float32, np.float64]),
)
def test_floor_division_and_mod_match_python_semantics(data, name, dtype):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_side=0, max_side=3))
    a = data.draw(hnp.arrays(dtype, shapes.input_shapes[0], elements=st.integers(-20, 20)))
    nonzero = st.integers(-7, 7).filter(bool)
    b = data.draw(hnp.arrays(dtype, shapes.input_shapes[1], elements=nonzero))
    func, operator = INT_BINARY[name]
    outs = [getattr(ff, name)(a, b)]
    if operator is not None:
        outs.append(operator(ff.constant(a), ff.constant(b)))
    want = func(a, b) if np.dtype(dtype).kind == "i" or name != "div" else a / b
    for g in _run(outs):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, want, rtol=1e-6)


def test_integer_ops_by_zero_and_negative_powers_are_op_errors():
    a = ff.constant([7, -7])
    zero = ff.constant([1, 0])
    for f in (ff.floordiv, ff.floormod, ff.div, lambda x, y: x // y, lambda x, y: x % y):
        with pytest.raises(ff.errors.InvalidArgumentError, match="Integer division by zero"):
            _run(f(a, zero))
    with pytest.raises(ff.errors.InvalidArgumentError, match="negative integer powers"):
        _run(ff.pow(ff.constant([2]), ff.constant([-1])))
    # Floats divide by zero into inf and nan, as IEEE.
    f = ff.constant([1.0, -1.0, 0.0])
    got = _run([ff.floordiv(f, 0.0), ff.floormod(f, 0.0)])
    np.testing.assert_array_equal(got[0], [np.inf, -np.inf, np.nan])
    assert np.isnan(got[1]).all()


def test_pow_with_negative_operands():
    ints = _run(
        [ff.pow(ff.constant([2, -3, 0, -1]), ff.constant([3, 3, 0, 5])), ff.constant(2) ** 10]
    )
    np.testing.assert_array_equal(ints[0], [8, -27, 1, -1])
    assert ints[1] == 1024
    x = ff.constant([-2.0, -8.0, 4.0, 0.0])
    got = _run([x**2.0, ff.pow(x, [1 / 3, 1 / 3, -0.5, -1.0]), 2.0**x])
    np.testing.assert_allclose(got[0], [4, 64, 16, 0])
    assert np.isnan(got[1][:2]).all()
    np.testing.assert_allclose(got[1][2:], [0.5, np.inf])
    np.testing.assert_allclose(got[2], 2.0 ** np.array([-2.0, -8.0, 4.0, 0.0]))


@settings(max_examples=30, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
    output_type=st.sampled_from([np.int32, np.int64]),
)
def test_argmax_argmin_match_numpy_first_on_ties(data, dtype, output_type):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    x = data.draw(hnp.arrays(dtype, shape, elements=st.integers(-2, 2)))  # many ties
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    ot = ff.as_dtype(output_type)
    outs = [ff.argmax(x, axis=axis, output_type=ot), ff.argmin(x, dimension=axis, output_type=ot)]
    got = _run(outs)
    for t, g, w in zip(outs, got, [x.argmax(axis), x.argmin(axis)], strict=True):
        assert t.shape.as_list() == list(w.shape)
        assert g.dtype == output_type
        np.testing.assert_array_equal(g, w)


@pytest.mark.tf_oracle
def test_argmax_argmin_with_nans_like_tensorflow(tf1):
    x = np.array([[np.nan, 1.0, 0.5], [np.nan, np.nan, np.nan], [2.0, np.nan, 3.0]], np.float32)

    def build(lib):
        return [lib.argmax(x, 1), lib.argmin(x, 1), lib.argmin(x[:, ::-1], 1)]

    for g, w in zip(run_ff(build), run_tf(tf1, build), strict=True):
        np.testing.assert_array_equal(g, w)


def test_argmax_defaults_and_errors():
    x = np.array([[1.0, 5.0], [7.0, 2.0]])
    got = _run([ff.argmax(x), ff.argmin(x)])
    np.testing.assert_array_equal(got[0], [1, 0])
    np.testing.assert_array_equal(got[1], [0, 1])
    assert got[0].dtype == np.int64
    with pytest.raises(ValueError, match="range"):
        ff.argmax(x, axis=2)
    with pytest.raises(ValueError, match="both"):
        ff.argmax(x, axis=0, dimension=0)
    with pytest.raises(ff.errors.InvalidArgumentError):
        _run(ff.argmax(np.zeros((0, 3)), axis=0))


@settings(max_examples=20, deadline=None)
@given(
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3),
    n=st.integers(1, 4),
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
)
def test_add_n_matches_numpy(shape, n, dtype):
    base = (np.arange(np.prod(shape)) % 3).reshape(shape)
    arrays = [(base * (i + 1)).astype(dtype) for i in range(n)]
    out = ff.add_n([ff.constant(a) for a in arrays])
    assert out.shape.as_list() == list(shape)
    got = _run(out)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.sum(arrays, axis=0, dtype=dtype))


def test_add_n_errors():
    with pytest.raises(ValueError):
        ff.add_n([])
    with pytest.raises(ValueError):
        ff.add_n([ff.zeros([3, 2]), ff.zeros([2, 3])])
    with pytest.raises(TypeError):
        ff.add_n([ff.zeros([2]), ff.zeros([2], ff.int32)])
    assert ff.add_n([ff.ones([2])]).op.type == "Identity"


@settings(max_examples=30, deadline=None)
@given(data=st.data(), n=st.integers(1, 3))
def test_concat_matches_numpy(data, n):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    arrays = []
    for i in range(n):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3))
        arrays.append(np.arange(np.prod(s), dtype=np.int32).reshape(s) + 100 * i)
    out = ff.concat([ff.constant(a) for a in arrays], axis)
    want = np.concatenate(arrays, axis)
    assert out.shape.as_list() == list(want.shape)
    np.testing.assert_array_equal(_run(out), want)


def test_concat_partial_shapes_and_errors():
    p = ff.placeholder(ff.float32, [None, 2])
    c = ff.concat([p, ff.zeros([3, 2])], 0)
    assert c.shape.as_list() == [None, 2]
    assert _run(c, {p: np.ones((1, 2))}).shape == (4, 2)
    c1 = ff.concat([p, ff.zeros([3, 2])], 1)
    assert c1.shape.as_list() == [3, 4]
    with pytest.raises(ValueError):
        ff.concat([ff.zeros([3, 2]), ff.zeros([2, 3])], 0)
    with pytest.raises(ValueError):
        ff.concat([ff.zeros([3, 2]), ff.zeros([3, 2])], 2)
    q = ff.placeholder(ff.float32, [None, None])
    with pytest.raises(ff.errors.InvalidArgumentError):
        _run(ff.concat([q, ff.zeros([3, 2])], 0), {q: np.ones((1, 3))})


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_transpose_expand_dims_unstack_slice_broadcast_to_match_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=3))
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    dim = data.draw(st.integers(-len(shape) - 1, len(shape)))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    begin = [data.draw(st.integers(0, d)) for d in shape]
    size = [data.draw(st.integers(-1, d - b)) for d, b in zip(shape, begin, strict=True)]
    target = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=1, base_shape=shape))
    c = ff.constant(x)
    outs = [
        ff.transpose(c),
        ff.transpose(c, perm),
        ff.expand_dims(c, dim),
        ff.slice(c, begin, size),
        ff.broadcast_to(c, target.result_shape),
        *ff.unstack(c, axis=axis),
    ]
    sl = tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size, strict=True))
    want = [
        x.T,
        x.transpose(perm),
        np.expand_dims(x, dim),
        x[sl],
        np.broadcast_to(x, target.result_shape),
        *np.moveaxis(x, axis, 0),
    ]
    got = _run(outs)
    assert len(outs) == len(want)
    for t, g, w in zip(outs, got, want, strict=True):
        assert t.shape.as_list() == list(w.shape)
        np.testing.assert_array_equal(g, w)


def test_layout_ops_with_unknown_shapes():
    p = ff.placeholder(ff.float32, [None, 3])
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ff.transpose(p)
    assert t.shape.as_list() == [3, None]
    r = ff.placeholder(ff.float32)
    outs = [t, ff.transpose(r), ff.slice(p, [1, 0], [-1, 2]), ff.expand_dims(p, -1)]
    assert outs[2].shape.as_list() == [None, 2]
    assert outs[3].shape.as_list() == [None, 3, 1]
    got = _run(outs, {p: xv, r: xv})
    np.testing.assert_array_equal(got[0], xv.T)
    np.testing.assert_array_equal(got[1], xv.T)
    np.testing.assert_array_equal(got[2], xv[1:, :2])
    np.testing.assert_array_equal(got[3], xv[..., None])
    a, _, c = ff.unstack(p, axis=1)
    assert a.shape.as_list() == [None]
    np.testing.assert_array_equal(_run(c, {p: xv}), xv[:, 2])
    with pytest.raises(ValueError):
        ff.unstack(p)  # the number of outputs is unknown
    assert len(ff.unstack(p, num=2)) == 2


def test_layout_op_errors():
    x = ff.zeros([3, 2])
    with pytest.raises(ff.errors.InvalidArgumentError, match="size"):
        _run(ff.slice(x, [1, 0], [3, -1]))
    with pytest.raises(ff.errors.InvalidArgumentError, match="permutation"):
        _run(ff.transpose(x, [0, 0]))
    with pytest.raises(ValueError):
        ff.expand_dims(x, 3)
    with pytest.raises(ValueError):
        ff.expand_dims(x)
    p = ff.placeholder(ff.float32, [None, 2])
    with pytest.raises(ff.errors.InvalidArgumentError, match="broadcast"):
        _run(ff.broadcast_to(p, [3, 2]), {p: np.zeros((2, 2))})


@pytest.mark.parametrize(
    "case",
    [
        "broadcast_to",
        "unstack",
        "unsorted_segment_sum",
    ],
)
def test_static_shape_errors_like_tensorflow(case):
    x = ff.zeros([3, 2])
    with pytest.raises(ValueError):
        if case == "broadcast_to":
            ff.broadcast_to(x, [3, 3])
        elif case == "unstack":
            ff.unstack(x, num=2)
        else:
            ff.unsorted_segment_sum(x, [0, 1], 3)


@settings(max_examples=30, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, min_side=0, max_side=3),
    dtype=st.sampled_from([np.float32, np.int32, np.int64]),
    seed=st.integers(0, 100),
)
def test_where_and_select_broadcast_like_numpy(shapes, dtype, seed):
    # A vector condition with higher-rank values picks rows (TF-1.x's `Select`), not
    # numpy's broadcast over the last dimension: tested elsewhere.
    cond_shape, x_shape, y_shape = shapes.input_shapes
    assume(not (len(cond_shape) == 1 and max(len(x_shape), len(y_shape)) > 1))
    rng = np.random.default_rng(seed)
    cond = rng.random(shapes.input_shapes[0]) < 0.5
    x = rng.integers(-5, 5, shapes.input_shapes[1]).astype(dtype)
    y = rng.integers(-5, 5, shapes.input_shapes[2]).astype(dtype)
    outs = [ff.where(cond, x, y), ff.select(cond, x, y), ff.where(cond)]
    got = _run(outs)
    want = np.where(cond, x, y)
    for t, g in zip(outs[:2], got[:2], strict=True):
        assert t.shape.as_list() == list(want.shape)
        assert g.dtype == dtype
        np.testing.assert_array_equal(g, want)
    assert got[2].dtype == np.int64
    np.testing.assert_array_equal(got[2], np.argwhere(cond))
    assert outs[2].shape.as_list() == [None, cond.ndim]


def test_where_errors():
    with pytest.raises(ValueError, match="both"):
        ff.where([True], [1.0])
    with pytest.raises(ValueError):
        ff.where([True, False], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError):
        ff.where([True], ff.constant([1.0]), ff.constant([1]))


def test_is_finite_and_is_nan():
    for dtype in (np.float32, np.float64):
        x = np.array([1.0, np.nan, np.inf, -np.inf, 0.0, -2.5], dtype)
        got = _run([ff.is_finite(x), ff.is_nan(x)])
        np.testing.assert_array_equal(got[0], np.isfinite(x))
        np.testing.assert_array_equal(got[1], np.isnan(x))
        assert got[0].dtype == np.bool_
    with pytest.raises(TypeError):
        ff.is_nan(ff.constant([1, 2]))
    assert ff.is_finite(ff.zeros([2, 0])).shape.as_list() == [2, 0]


@settings(max_examples=30, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
    ids_dtype=st.sampled_from([np.int32, np.int64]),
)
def test_unsorted_segment_sum_matches_numpy(data, dtype, ids_dtype):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    ids_rank = data.draw(st.integers(1, len(shape)))
    num = data.draw(st.integers(1, 4))
    x = data.draw(hnp.arrays(dtype, shape, elements=st.integers(-9, 9)))
    ids = data.draw(hnp.arrays(ids_dtype, shape[:ids_rank], elements=st.integers(-1, num - 1)))
    out = ff.unsorted_segment_sum(x, ids, num)
    want = np.zeros((num, *shape[ids_rank:]), dtype)
    keep = ids >= 0  # negative ids are dropped, as in TF
    np.add.at(want, ids[keep], x[keep])
    assert out.shape.as_list() == list(want.shape)
    got = _run(out)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)


def test_unsorted_segment_sum_out_of_range_and_fed_num_segments():
    bad = ff.unsorted_segment_sum(ff.ones([3]), [0, 1, 3], 3, name="seg")
    with pytest.raises(ff.errors.InvalidArgumentError, match="out of range") as e:
        _run(bad)
    assert e.value.op.name == "seg"
    n = ff.placeholder(ff.int32, [])
    s = ff.unsorted_segment_sum(ff.constant([[1, 2], [3, 4], [5, 6]]), [1, 1, 0], n)
    assert s.shape.as_list() == [None, 2]
    np.testing.assert_array_equal(_run(s, {n: 3}), [[5, 6], [4, 6], [0, 0]])


def test_empty_integer_constant():
    c = ff.constant([], dtype=ff.int32)
    assert c.shape.as_list() == [0]
    assert _run(c).dtype == np.int32


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_max"])
def test_reduction_to_an_empty_result(name):
    got = _run(getattr(ff, name)(ff.zeros([2, 0]), axis=0))
    assert got.shape == (0,)


def test_reductions_over_no_axes_and_scalars():
    x = np.arange(6.0).reshape(2, 3)
    got = _run([ff.reduce_sum(x, axis=[]), ff.reduce_max(3.0), ff.reduce_mean(2.0, keepdims=True)])
    np.testing.assert_array_equal(got[0], x)
    assert got[1] == 3.0 and got[2] == 2.0


@pytest.mark.tf_oracle
def test_values_static_shapes_and_names_match_tensorflow(tf1):
    a = np.array([[-7, 7, 3], [5, -5, 0]], np.int32)
    b = np.array([2, -2, 4], np.int32)
    f = np.array([[-1.5, 2.0, np.nan], [np.inf, 0.5, -3.0]], np.float32)

    def build(tf):
        x = tf.constant(a)
        y = tf.constant(b)
        fx = tf.constant(f)
        p = tf.placeholder_with_default(fx, [None, 3])
        m = tf.constant([[True, False, True], [False, False, True]])
        return [
            x // y,
            x % y,
            tf.floordiv(x, y),
            tf.floormod(x, y),
            tf.div(x, y),
            tf.div(fx, 2.0),
            tf.pow(x, 2),
            x**2,
            2 ** tf.abs(x),
            x < y,
            x <= 3,
            x > y,
            x >= y,
            tf.equal(x, y),
            tf.not_equal(x, y),
            m & tf.logical_not(m),
            m | ~m,
            tf.logical_and(m, m),
            tf.logical_or(m, m),
            tf.argmax(x, 1),
            tf.argmin(tf.placeholder_with_default(a, [None, 3]), 0, output_type=tf.int32),
            tf.add_n([x, x, x]),
            tf.concat([p, p], 0),
            tf.concat([x, x], -1),
            tf.transpose(p),
            tf.transpose(x, [1, 0]),
            tf.expand_dims(p, 1),
            tf.slice(p, [0, 1], [-1, 2]),
            tf.broadcast_to(y, [4, 2, 3]),
            tf.where_v2(m, x, y) if tf is tf1 else tf.where(m, x, y),
            tf.where(m),
            tf.is_finite(p),
            tf.is_nan(fx),
            tf.unsorted_segment_sum(x, [1, 0], 3),
            *tf.unstack(p, axis=1),
        ]

    (_, want_t), (_, got_t) = build_both(tf1, build)
    for w, g in zip(want_t, got_t, strict=True):
        assert g.dtype.name == w.dtype.name, w.name
        assert g.shape.as_list() == w.shape.as_list(), w.name
        if not w.name.startswith("SelectV2"):
            assert g.name == w.name
    want = run_tf(tf1, build)
    got = run_ff(build)
    for w, g, t in zip(want, got, want_t, strict=True):
        np.testing.assert_array_equal(g, w, err_msg=t.name)


@settings(max_examples=25, deadline=None)
@given(
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_, object]),
    outer=st.integers(0, 3),
    inner=st.integers(0, 1100),
    lead=st.integers(1, 3),
)
def test_broadcast_along_the_innermost_dimension_every_dtype(dtype, outer, inner, lead):
    # The innermost dimension is filled by repeating one element (copies doubling).
    x = np.arange(outer).reshape(outer, 1)
    if dtype is object:
        x = np.array([[str(v).encode()] for v in x.ravel()], dtype=object).reshape(outer, 1)
    else:
        x = x.astype(dtype)
    target = [lead, outer, inner]
    got = _run(ff.broadcast_to(ff.constant(x), target))
    np.testing.assert_array_equal(got, np.broadcast_to(x, target))
