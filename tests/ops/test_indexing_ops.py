"""Strided slicing (`Tensor.__getitem__`), tile, pad, split and one_hot vs TensorFlow."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import assert_same_tensors, build_both, run_ff, run_tf
from tests.gradcheck import FLOATS, SEEDS, check_against_tf, values

import ferroflow as ff

X = np.arange(60, dtype=np.float64).reshape(3, 4, 5)

SLICES = {
    "int": lambda t: t[1],
    "negative int": lambda t: t[-1, -2],
    "range": lambda t: t[:, 1:3],
    "reverse step": lambda t: t[..., ::-2],
    "newaxis and ellipsis": lambda t: t[None, 0, ..., 2:],
    "mixed": lambda t: t[-1, ::2, -3:-1],
    "empty": lambda t: t[1:0],
    "clamped": lambda t: t[-10:10, 3:100],
    "middle newaxis": lambda t: t[:, None, 1],
    "ellipsis only": lambda t: t[...],
    "backwards range": lambda t: t[2:0:-1, ::-1],
}


@pytest.mark.parametrize("name", sorted(SLICES))
@pytest.mark.parametrize("dynamic", [False, True])
def test_getitem_and_its_gradient_match_tensorflow(tf1, name, dynamic):
    check_against_tf(tf1, lambda m, t: SLICES[name](t), [X], dynamic=dynamic)


def test_getitem_static_shapes_and_names(tf1):
    def build(m):
        t = m.placeholder(m.float32, [None, 4, 5])
        return [t[0], t[:, 1:3], t[..., None], t[1, ..., ::2]]

    (_, want), (_, got) = build_both(tf1, build)
    assert_same_tensors(want, got)


def test_getitem_with_tensor_index_and_variables():
    i = ff.placeholder(ff.int32, [])
    v = ff.Variable(X)
    with ff.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(ff.constant(X)[i], {i: 2}), X[2])
        np.testing.assert_array_equal(sess.run(v[1:, 0]), X[1:, 0])


def test_getitem_errors():
    t = ff.constant(X)
    with pytest.raises(TypeError, match="valid indices"):
        t[1.5]
    with pytest.raises(TypeError, match="valid indices"):
        t["a"]
    with pytest.raises(ValueError, match="out of bounds"):
        t[3]
    with pytest.raises(ValueError, match="Multiple ellipses"):
        t[..., ...]
    with pytest.raises(ValueError, match="non-zero"):
        t[::0]
    with pytest.raises(ValueError, match="out of range"):
        t[0, 0, 0, 0]
    i = ff.placeholder(ff.int32, [])
    with ff.Session() as sess, pytest.raises(ff.errors.InvalidArgumentError, match="out of bounds"):
        sess.run(t[i], {i: 7})


@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(0, 3), min_size=1, max_size=3),
    data=st.data(),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_tile_and_pad_gradients_match_tensorflow(tf1, shape, data, dtype, dynamic, seed):
    x = values(np.random.default_rng(seed), shape, dtype)
    multiples = data.draw(st.lists(st.integers(0, 3), min_size=len(shape), max_size=len(shape)))
    paddings = data.draw(
        st.lists(
            st.tuples(st.integers(0, 2), st.integers(0, 2)),
            min_size=len(shape),
            max_size=len(shape),
        )
    )
    check_against_tf(tf1, lambda m, t: m.tile(t, multiples), [x], dynamic=dynamic, seed=seed)
    check_against_tf(tf1, lambda m, t: m.pad(t, paddings), [x], dynamic=dynamic, seed=seed)
    check_against_tf(
        tf1, lambda m, t: m.pad(t, paddings, constant_values=-1.5), [x], dynamic=dynamic, seed=seed
    )


@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    data=st.data(),
    mode=st.sampled_from(["REFLECT", "SYMMETRIC", "symmetric"]),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_mirror_pad_and_its_gradient_match_tensorflow(tf1, shape, data, mode, dtype, dynamic, seed):
    x = values(np.random.default_rng(seed), shape, dtype)
    edge = 0 if mode == "REFLECT" else 1  # REFLECT pads at most dim - 1 per side
    paddings = [
        data.draw(st.tuples(st.integers(0, d - 1 + edge), st.integers(0, d - 1 + edge)))
        for d in shape
    ]
    check_against_tf(tf1, lambda m, t: m.pad(t, paddings, mode), [x], dynamic=dynamic, seed=seed)


def test_mirror_pad_of_strings_shapes_and_errors(tf1):
    def build(m):
        s = m.pad(m.constant([[b"a", b"b"], [b"c", b"d"]]), [[1, 0], [0, 1]], "REFLECT")
        p = m.placeholder(m.int32, [2, 2])
        unknown = m.pad(m.placeholder(m.float32, [None, 3]), p, "SYMMETRIC")
        known = m.pad(m.placeholder(m.float32, [None, 3]), [[1, 1], [2, 2]], "SYMMETRIC")
        return s, unknown, known

    (_, want), (_, got) = build_both(tf1, build)
    assert_same_tensors(want[1:], got[1:])
    np.testing.assert_array_equal(run_ff(lambda m: build(m)[0]), run_tf(tf1, lambda m: build(m)[0]))
    with pytest.raises(ValueError, match="mode"):
        ff.pad(ff.zeros([2]), [[1, 1]], "WRAP")
    p = ff.placeholder(ff.int32, [1, 2])
    reflect = ff.pad(ff.zeros([2]), p, "REFLECT")
    symmetric = ff.pad(ff.zeros([2]), p, "SYMMETRIC")
    with ff.Session() as sess:
        with pytest.raises(ff.errors.InvalidArgumentError, match="less than the dimension size"):
            sess.run(reflect, {p: [[2, 0]]})
        with pytest.raises(ff.errors.InvalidArgumentError, match="no greater than"):
            sess.run(symmetric, {p: [[0, 3]]})
        assert sess.run(symmetric, {p: [[2, 2]]}).shape == (6,)


@pytest.mark.parametrize("spec", [2, 5, [1, -1, 2], [0, 4, 0]])
@pytest.mark.parametrize("dynamic", [False, True])
def test_split_and_its_gradient_match_tensorflow(tf1, spec, dynamic):
    axis = 1 if isinstance(spec, list) else (0 if spec == 2 else 2)
    x = np.arange(80, dtype=np.float64).reshape(4, 4, 5)

    def weighted(m, t):
        pieces = m.split(t, spec, axis=axis)
        return m.add_n([m.reduce_sum(m.sin(p) * float(i + 1)) for i, p in enumerate(pieces)])

    check_against_tf(tf1, weighted, [x], dynamic=dynamic)
    # Only some pieces used: the others get zero gradients.
    check_against_tf(tf1, lambda m, t: m.split(t, spec, axis=axis)[-1] * 2.0, [x], dynamic=dynamic)


def test_split_errors():
    x = ff.zeros([4, 6])
    with pytest.raises(ValueError, match="evenly divide"):
        ff.split(x, 4, axis=1)
    with pytest.raises(ValueError, match="Determined shape"):
        ff.split(x, [1, 2], axis=1)
    with pytest.raises(ValueError, match="out of range"):
        ff.split(x, 2, axis=2)


def test_slice_gradient_with_unknown_shapes(tf1):
    x = np.arange(24.0).reshape(4, 6)
    check_against_tf(tf1, lambda m, t: m.slice(t, [1, 2], [2, -1]), [x], dynamic=True)


def test_slice_static_shapes_are_tensorflows(tf1):
    """A constant `size` gives the static shape even when `begin` is computed (the
    CIFAR-10 random-crop idiom), and partly known sizes and begins are used as TF's
    shape function uses them."""

    def shapes(m):
        x = m.placeholder(m.float32, [32, 32, 3])
        o = m.placeholder(m.int32, [])
        n = m.placeholder(m.int32, [])
        u = m.placeholder(m.float32)
        cases = [
            m.slice(x, m.stack([o, o, 0]), [24, 24, 3]),
            m.slice(x, m.stack([o, 2, 0]), [-1, -1, -1]),
            m.slice(x, [1, 2, 0], m.stack([n, 5, -1])),
            m.slice(x, m.stack([o, o, 0]), m.stack([n, n, 3])),
            m.slice(x, [0, 0, 0], [n + 0, 1, -1]),
            m.slice(x, m.placeholder(m.int32, [3]), m.placeholder(m.int32, [3])),
            m.slice(u, [1, 2], [3, -1]),
            m.slice(u, m.placeholder(m.int32, [2]), m.placeholder(m.int32, [None])),
        ]
        return [c.shape.as_list() if c.shape.ndims is not None else None for c in cases]

    with tf1.Graph().as_default():
        want = shapes(tf1)
    with ff.Graph().as_default():
        got = shapes(ff)
    assert got == want


def test_lists_holding_tensors_pack_as_tensorflows_autopacking(tf1):
    """A list with tensors converts to a `Pack` (constants named by position), and
    shapes built that way keep what is constant (`reshape(x, [n, 2])` of a known
    input infers `n`)."""

    def build(m):
        n = m.placeholder(m.int32, [], name="n")
        x = m.zeros([6, 4])
        out = [
            m.convert_to_tensor([n, 1, -1]),
            m.convert_to_tensor([[n, 1], [2, 3]]),
            m.convert_to_tensor([n, 2], dtype=m.float32),
            m.reshape(x, [n, 2, 3]),
            m.reshape(x, m.stack([2, n])),
            m.reshape(m.placeholder(m.float32, [None, 4]), [n, 2]),
            m.fill([n, 3], 1.0),
        ]
        return out

    (g_tf, want), (g_ff, got) = build_both(tf1, build)
    assert [t.shape.as_list() for t in got] == [t.shape.as_list() for t in want]
    assert [t.dtype.name for t in got] == [t.dtype.name for t in want]
    names = lambda g: [(op.name, op.type) for op in g.get_operations()]  # noqa: E731
    assert names(g_ff) == names(g_tf)
    with pytest.raises(ValueError, match="Cannot reshape a tensor with 24 elements"):
        ff.reshape(ff.zeros([6, 4]), [ff.placeholder(ff.int32, []), 5])
    with pytest.raises(TypeError, match="Cannot convert a list containing a tensor of dtype"):
        ff.convert_to_tensor([ff.constant(1.5), [ff.constant(1)]])
    with ff.Graph().as_default():
        n = ff.placeholder(ff.int32, [])
        with ff.Session() as s:
            packed = s.run(ff.convert_to_tensor([[n, 1], [2, n]]), {n: 7})
    np.testing.assert_array_equal(packed, [[7, 1], [2, 7]])


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_one_hot_matches_tensorflow(tf1, axis):
    idx = np.array([[0, 3], [7, -1], [2, 2]], np.int64)
    for kwargs in ({}, {"on_value": 5, "off_value": -1}, {"dtype": "float64"}):
        kw = dict(kwargs)

        def build(m, kw=kw):
            if "dtype" in kw:
                kw = {"dtype": getattr(m, kw["dtype"])}
            return m.one_hot(idx, 4, axis=axis, **kw)

        a, b = run_ff(build), run_tf(tf1, build)
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert ff.one_hot(ff.placeholder(ff.int32, [None]), 3).shape.as_list() == [None, 3]


def test_one_hot_builds_tensorflows_ops_and_checks_a_fed_depth(tf1):
    def build(m):
        return [m.one_hot([0, 2], 3, on_value=5, off_value=-1)]

    (g_tf, _), (g_ff, _) = build_both(tf1, build)
    ours = [(op.name, op.type) for op in g_ff.get_operations()]
    assert ours == [(op.name, op.type) for op in g_tf.get_operations()]
    with pytest.raises(TypeError, match="does not match"):
        ff.one_hot([0], 2, on_value=1.0, off_value=0)
    with pytest.raises(TypeError, match="dtype parameter"):
        ff.one_hot([0], 2, on_value=ff.constant(1), dtype=ff.float32)
    depth = ff.placeholder(ff.int32)
    y = ff.one_hot([0, 1], depth)
    with ff.Session() as sess:
        with pytest.raises(ff.errors.InvalidArgumentError, match="depth must be 0-D"):
            sess.run(y, {depth: [3, 4]})
