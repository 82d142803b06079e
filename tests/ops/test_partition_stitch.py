"""`tf.dynamic_partition`, `tf.dynamic_stitch` and `tf.parallel_dynamic_stitch`:
values, static shapes, gradients and errors compared with TensorFlow."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import run_ff, run_tf
from tests.gradcheck import check_against_tf

import ferroflow as ff


def _both(tf1, build):
    return run_tf(tf1, build), run_ff(build)


@settings(max_examples=25, deadline=None)
@given(
    rows=st.integers(0, 7),
    width=st.integers(1, 3),
    num=st.integers(1, 4),
    seed=st.integers(0, 2**16),
)
def test_dynamic_partition_matches_tf(tf1, rows, width, num, seed):
    rng = np.random.default_rng(seed)
    data = rng.normal(size=(rows, width)).astype(np.float32)
    parts = rng.integers(0, num, size=rows).astype(np.int32)

    def build(lib):
        return lib.dynamic_partition(data, parts, num)

    tf_out, ff_out = _both(tf1, build)
    assert len(ff_out) == len(tf_out) == num
    for a, b in zip(tf_out, ff_out, strict=True):
        np.testing.assert_array_equal(b, a)


def test_dynamic_partition_with_a_matrix_of_ids_and_strings(tf1):
    def build(lib):
        data = lib.constant([[b"a", b"b"], [b"c", b"d"]])
        parts = lib.constant([[1, 0], [0, 1]])
        return lib.dynamic_partition(data, parts, 2)

    tf_out, ff_out = _both(tf1, build)
    for a, b in zip(tf_out, ff_out, strict=True):
        np.testing.assert_array_equal(b, a)


def test_static_shapes_match_tf(tf1):
    shapes = {}

    def build(lib):
        data = lib.placeholder(lib.float32, [None, 4, 3])
        parts = lib.placeholder(lib.int32, [None, 4])
        outs = lib.dynamic_partition(data, parts, 3)
        stitched = lib.dynamic_stitch(
            [lib.constant([0, 4]), lib.constant([[2], [1]])],
            [lib.ones([2, 5]), lib.ones([2, 1, 5])],
        )
        unknown = lib.dynamic_stitch(
            [lib.placeholder(lib.int32, [None])], [lib.placeholder(lib.float32, [None, 7])]
        )
        shapes[lib.__name__] = [t.shape.as_list() for t in (*outs, stitched, unknown)]
        return []

    _both(tf1, build)
    assert shapes["ferroflow"] == shapes["tensorflow.compat.v1"]


def test_dynamic_stitch_matches_tf_with_repeated_and_missing_rows(tf1):
    def build(lib):
        indices = [lib.constant([6]), lib.constant([4, 1]), lib.constant([[5, 2], [0, 3]])]
        data = [
            lib.constant([[61.0, 62.0]]),
            lib.constant([[41.0, 42.0], [11.0, 12.0]]),
            lib.constant([[[51.0, 52.0], [21.0, 22.0]], [[1.0, 2.0], [31.0, 32.0]]]),
        ]
        repeated = lib.dynamic_stitch(
            [lib.constant([0, 1]), lib.constant([1, 2])],
            [lib.constant([1.0, 2.0]), lib.constant([3.0, 4.0])],
        )
        if lib is ff:
            parallel = ff.ops.data_flow_ops.parallel_dynamic_stitch(indices, data)
        else:
            from tensorflow.python.ops import data_flow_ops

            parallel = data_flow_ops.parallel_dynamic_stitch(indices, data)
        return lib.dynamic_stitch(indices, data), parallel, repeated

    tf_out, ff_out = _both(tf1, build)
    for a, b in zip(tf_out, ff_out, strict=True):
        np.testing.assert_array_equal(b, a)


def test_gradients_match_tf(tf1):
    rng = np.random.default_rng(0)
    data = rng.normal(size=(7, 3))
    parts = np.array([2, 0, 2, 1, 0, 2, 0], np.int32)

    def partition(lib, x):
        a, _, c = lib.dynamic_partition(x, parts, 3)
        return lib.reduce_sum(a * 2.0) + lib.reduce_sum(c * c)  # b gets no gradient

    def stitch(lib, x):
        i0, i1 = lib.constant([0, 3, 5]), lib.constant([[1, 2], [4, 6]])
        y = lib.dynamic_stitch([i0, i1], [x[:3], lib.reshape(x[3:], [2, 2, 3])])
        return lib.reduce_sum(y * y)

    for f in (partition, stitch):
        check_against_tf(tf1, f, [data])


def test_errors_match_tf(tf1):
    cases = {
        "partition_out_of_range": lambda lib: lib.dynamic_partition([1.0, 2.0], [0, 2], 2),
        "partition_negative": lambda lib: lib.dynamic_partition([1.0, 2.0], [0, -1], 2),
        "stitch_negative": lambda lib: lib.dynamic_stitch([[0, -1]], [[1.0, 2.0]]),
    }
    for build in cases.values():
        with pytest.raises(tf1.errors.InvalidArgumentError):
            run_tf(tf1, build)
        with pytest.raises(ff.errors.InvalidArgumentError):
            run_ff(build)
    with pytest.raises(ValueError):
        ff.dynamic_partition([[1.0]], [[0, 1]], 2)
    with pytest.raises(ValueError):
        ff.dynamic_stitch([[0]], [[1.0], [2.0]])


def test_partitioned_embedding_lookup_uses_tf_ops(tf1):
    types = {}

    def build(lib):
        params = [
            lib.constant(np.arange(i, i + 8, dtype=np.float32).reshape(4, 2)) for i in (0, 10)
        ]
        out = lib.nn.embedding_lookup(params, lib.constant([[0, 5], [3, 7]]))
        types[lib.__name__] = sorted(
            {op.type for op in lib.get_default_graph().get_operations()}
            & {"DynamicPartition", "ParallelDynamicStitch"}
        )
        return out

    tf_out, ff_out = _both(tf1, build)
    np.testing.assert_array_equal(ff_out, tf_out)
    assert (
        types["ferroflow"]
        == types["tensorflow.compat.v1"]
        == ["DynamicPartition", "ParallelDynamicStitch"]
    )


def test_reduction_gradients_of_unknown_shapes_build_tf_reduced_shape():
    x = ff.placeholder(ff.float32, [None, 3])
    (g,) = ff.gradients(ff.reduce_mean(x * x, axis=1), x)
    types = {op.type for op in ff.get_default_graph().get_operations()}
    assert "DynamicStitch" in types
    with ff.Session() as sess:
        v = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.testing.assert_allclose(sess.run(g, {x: v}), 2 * v / 3, rtol=1e-6)
