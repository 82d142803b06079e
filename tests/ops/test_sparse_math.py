"""Sparse arithmetic, slicing and reshaping ops against TensorFlow (issue 42).

`sparse_add` of a sparse and a dense tensor, `*`/`/` by a dense tensor, the sparse
maximum/minimum, softmax, max reductions, slices, splits, transposes, merges,
`reset_shape` and `to_indicator`: values, shapes and gradients equal TF's.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroflow as ff
from conftest import run_ff, run_tf

IND = [[0, 1], [0, 3], [1, 0], [2, 2], [2, 3]]
VAL = [1.5, -2.0, 3.0, -0.5, 4.0]
SHAPE = [3, 4]


def _sp(lib, values=VAL, indices=IND, shape=SHAPE, dtype=np.float32):
    return lib.SparseTensor(indices, np.asarray(values, dtype), shape)


def _fetch(x):
    return (x.indices, x.values, x.dense_shape) if hasattr(x, "dense_shape") else x


def _same(build, tf1, feeds=None):
    ours, theirs = run_ff(build, feeds), run_tf(tf1, build, feeds)
    for a, b in zip(_flatten(ours), _flatten(theirs), strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def _flatten(x):
    if isinstance(x, list | tuple):
        return [y for item in x for y in _flatten(item)]
    if hasattr(x, "dense_shape"):
        return [x.indices, x.values, x.dense_shape]
    return [x]


def test_sparse_plus_dense_and_its_gradient(tf1):
    def build(lib):
        sp = _sp(lib)
        dense = lib.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
        out = lib.sparse.add(sp, dense)
        swapped = lib.sparse.add(dense, sp)
        g = lib.gradients(out * out, [sp.values, dense])
        return [out, swapped, *g]

    _same(build, tf1)


@pytest.mark.parametrize("op", ["mul", "div", "truediv_int"])
@pytest.mark.parametrize("dense_shape", [[3, 4], [4], [1, 4], [3, 1], []])
def test_sparse_times_and_over_a_broadcast_dense_tensor(tf1, op, dense_shape):
    def build(lib):
        if op == "truediv_int":
            sp = _sp(lib, [1, 2, 3, 4, 5], dtype=np.int32)
            dense = lib.constant(np.full(dense_shape, 2, np.int32))
            return [sp / dense]
        sp = _sp(lib)
        dense = lib.constant(
            np.arange(1, 1 + int(np.prod(dense_shape)), dtype=np.float32).reshape(dense_shape)
        )
        out = sp * dense if op == "mul" else sp / dense
        if not dense_shape:
            return [out]  # (TF's gradient fails for a scalar dense side)
        return [out, *lib.gradients(out.values, [sp.values, dense])]

    _same(build, tf1)


@pytest.mark.parametrize("which", ["maximum", "minimum"])
def test_sparse_maximum_and_minimum_take_the_union(tf1, which):
    def build(lib):
        a = _sp(lib)
        b = _sp(lib, [-1.0, 7.0, 2.0], [[0, 0], [0, 3], [2, 3]])
        return [getattr(lib.sparse, which)(a, b), getattr(lib, "sparse_" + which)(b, a)]

    _same(build, tf1)


def test_sparse_softmax_and_its_gradient(tf1):
    def build(lib):
        sp = lib.SparseTensor(
            [[0, 0, 1], [0, 0, 3], [0, 2, 0], [1, 1, 1], [1, 1, 2], [1, 1, 3]],
            np.array([1.0, 2.0, -3.0, 0.5, 0.25, 4.0], np.float32),
            [2, 3, 4],
        )
        out = lib.sparse.softmax(sp)
        w = lib.constant(np.arange(6, dtype=np.float32))
        return [out, lib.gradients(lib.reduce_sum(out.values * w), sp.values)[0]]

    _same(build, tf1)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sparse_reduce_max_ignores_the_implicit_zeros(tf1, axis, keepdims):
    def build(lib):
        sp = _sp(lib, [-1.0, -2.0, -3.0, 0.5, -4.0])
        return [
            lib.sparse.reduce_max(sp, axis, keepdims=keepdims),
            lib.sparse.reduce_max_sparse(sp, axis, keepdims=keepdims),
        ]

    _same(build, tf1)


@pytest.mark.parametrize(
    "start,size",
    [([0, 0], [2, 2]), ([1, 1], [5, 5]), ([0, 3], [3, 1]), ([2, 0], [0, 4]), ([4, 4], [1, 1])],
)
def test_sparse_slice_and_its_gradient(tf1, start, size):
    def build(lib):
        sp = _sp(lib)
        out = lib.sparse.slice(sp, start, size)
        w = lib.ones_like(out.values) * 3.0
        return [out, lib.gradients(lib.reduce_sum(out.values * w), sp.values)[0]]

    _same(build, tf1)


@pytest.mark.parametrize("axis,num_split", [(0, 3), (1, 3), (1, 4), (-1, 2), (0, 1)])
def test_sparse_split_makes_tfs_parts(tf1, axis, num_split):
    def build(lib):
        return lib.sparse.split(sp_input=_sp(lib), num_split=num_split, axis=axis)

    _same(build, tf1)


def test_sparse_transpose_merge_reset_shape_and_indicator(tf1):
    def build(lib):
        sp = lib.SparseTensor(
            [[0, 0, 1], [0, 2, 0], [1, 1, 3]], np.array([1, 2, 3], np.int64), [2, 3, 4]
        )
        ids = lib.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([3, 1, 2], np.int64), [2, 2])
        vals = lib.SparseTensor(
            [[0, 0], [0, 1], [1, 0]], np.array([0.5, 1.5, 2.5], np.float32), [2, 2]
        )
        return [
            lib.sparse.transpose(sp),
            lib.sparse.transpose(sp, [1, 0, 2]),
            lib.sparse.merge(ids, vals, 5),
            lib.sparse.reset_shape(sp),
            lib.sparse.reset_shape(sp, [3, 3, 5]),
            lib.sparse.to_indicator(ids, 4),
        ]

    _same(build, tf1)


def test_errors_match_tfs():
    sp = _sp(ff)
    with pytest.raises(ValueError, match=r"dimension sizes >= sp_input\.shape"):
        ff.sparse.reset_shape(sp, [2, 4])
    with pytest.raises(ValueError, match="Keyword arguments are required"):
        ff.sparse.split(sp, 2, 0)
    with ff.Session() as sess:
        with pytest.raises(ff.errors.InvalidArgumentError, match="no broadcasting is supported"):
            sess.run(ff.sparse.add(sp, ff.zeros([3, 5])))
        with pytest.raises(ff.errors.InvalidArgumentError, match="broadcasts dense to sparse only"):
            sess.run((sp * ff.ones([2, 4])).values)
        with pytest.raises(ff.errors.InvalidArgumentError, match="shapes do not match"):
            sess.run(ff.sparse.maximum(sp, _sp(ff, shape=[3, 5])).values)
        with pytest.raises(ff.errors.InvalidArgumentError, match="rank >= 2"):
            sess.run(ff.sparse.softmax(ff.SparseTensor([[0]], [1.0], [3])).values)
        with pytest.raises(ff.errors.InvalidArgumentError, match="num_split should be between 1"):
            sess.run(ff.sparse.split(sp_input=sp, num_split=5, axis=0)[0].values)
        sp_int = _sp(ff, [1, 2, 3, 4, 5], dtype=np.int32)
        with pytest.raises(ff.errors.InvalidArgumentError, match="Integer division by zero"):
            sess.run(sp_int.__div__(ff.constant(0)).values)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 5)), min_size=1, max_size=12, unique=True),
    st.integers(1, 5),
    st.integers(0, 1),
)
def test_random_splits_and_slices_match_tf(tf1, coords, num_split, axis):
    coords = sorted(coords)
    values = np.arange(1, len(coords) + 1, dtype=np.float32)
    shape = [5, 6]
    num_split = min(num_split, shape[axis])

    def build(lib):
        sp = lib.SparseTensor(coords, values, shape)
        return [
            lib.sparse.split(sp_input=sp, num_split=num_split, axis=axis),
            lib.sparse.slice(sp, [1, 2], [3, 3]),
            lib.sparse.reduce_max(sp, axis),
            lib.sparse.softmax(sp),
        ]

    _same(build, tf1)
