"""Tests for ferroflow.framework.tensor_shape, with TensorFlow (v1 shapes) as the oracle."""

import operator
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ferroflow.framework import tensor_shape as ts
from ferroflow.framework.tensor_shape import Dimension, TensorShape

FAST = settings(max_examples=100, deadline=None, database=None)

dims = st.one_of(st.none(), st.integers(0, 4))
shapes = st.one_of(st.none(), st.lists(dims, max_size=4))
ranks = st.integers(0, 5)


@pytest.fixture(scope="module")
def tf():
    tf = pytest.importorskip("tensorflow.compat.v1")
    from tensorflow.python.framework import tensor_shape as tf_tensor_shape

    saved = tf_tensor_shape._TENSORSHAPE_V2_OVERRIDE
    tf.disable_v2_tensorshape()
    yield tf
    tf_tensor_shape._TENSORSHAPE_V2_OVERRIDE = saved


def norm(value):
    """A comparable form of a result from either library."""
    if hasattr(value, "as_list") and hasattr(value, "ndims"):
        return ("shape", repr(value), str(value), value.ndims)
    if hasattr(value, "merge_with"):
        return ("dim", repr(value), str(value))
    if isinstance(value, list):
        return [norm(v) for v in value]
    return ("value", value)


def outcome(fn, *args):
    """norm(fn(*args)), or the exception's type and message."""
    try:
        return norm(fn(*args))
    except Exception as e:
        return ("raise", type(e).__name__, str(e))


def both(tf, dims_or_none):
    return TensorShape(dims_or_none), tf.TensorShape(dims_or_none)


# -- without the oracle -------------------------------------------------------------------------


def test_dimension_basics():
    assert Dimension(3).value == 3
    assert Dimension(None).value is None
    assert Dimension(Dimension(4)).value == 4
    assert Dimension(np.int64(5)).value == 5
    assert repr(Dimension(3)) == "Dimension(3)"
    assert repr(Dimension(None)) == "Dimension(None)"
    assert str(Dimension(None)) == "?"
    assert int(Dimension(3)) == 3
    assert [10, 11, 12][Dimension(1)] == 11
    assert Dimension(3) == 3
    assert (Dimension(None) == 3) is None
    assert (Dimension(3) != None) is None  # noqa: E711
    assert Dimension(3) + 1 == 4
    assert (1 + Dimension(3)).value == 4
    assert (Dimension(None) * 2).value is None
    assert (7 // Dimension(2)).value == 3
    assert (Dimension(7) % 3).value == 1
    assert (Dimension(None) < 3) is None
    assert Dimension(2) < 3
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        Dimension(-1)
    with pytest.raises(ValueError, match="Dimension -2 must be >= 0"):
        Dimension(3) - 5
    with pytest.raises(TypeError, match="must be integer or None"):
        Dimension(1.5)
    with pytest.raises(TypeError, match="please use // instead"):
        Dimension(4) / 2
    with pytest.raises(TypeError, match="unhashable"):
        hash(Dimension(3))
    assert pickle.loads(pickle.dumps(Dimension(3))).value == 3


def test_dimension_merge():
    assert Dimension(None).merge_with(3).value == 3
    assert Dimension(3).merge_with(None).value == 3
    with pytest.raises(ValueError, match="Dimensions 3 and 4 are not compatible"):
        Dimension(3).merge_with(4)


def test_shape_basics():
    s = TensorShape([2, None])
    assert [d.value for d in s.dims] == [2, None]  # Dimension(None) == ... is None
    assert s.ndims == s.rank == 2
    assert len(s) == 2
    assert repr(s) == "TensorShape([Dimension(2), Dimension(None)])"
    assert str(s) == "(2, ?)"
    assert str(TensorShape([3])) == "(3,)"
    assert str(TensorShape([])) == "()"
    assert str(TensorShape(None)) == "<unknown>"
    assert repr(TensorShape(None)) == "TensorShape(None)"
    assert s.as_list() == [2, None]
    assert isinstance(s[0], Dimension)
    assert s[1:] == TensorShape([None])
    assert [repr(d) for d in s] == ["Dimension(2)", "Dimension(None)"]
    assert TensorShape(3).as_list() == [3]
    assert TensorShape(x for x in [1, 2]).as_list() == [1, 2]
    assert bool(TensorShape([])) and not bool(TensorShape(None))
    assert TensorShape([None]) == TensorShape([None])
    assert TensorShape(None) == TensorShape(None)
    assert TensorShape([1]) == [1]
    assert TensorShape([1]) != "x"
    assert hash(TensorShape([1, None])) == hash(TensorShape([1, None]))
    for shape in ([1, None], None, []):
        assert pickle.loads(pickle.dumps(TensorShape(shape))) == TensorShape(shape)


def test_shape_errors():
    unknown = TensorShape(None)
    with pytest.raises(ValueError, match=r"Cannot take the length of shape with unknown rank\."):
        len(unknown)
    with pytest.raises(ValueError, match=r"Cannot iterate over a shape with unknown rank\."):
        iter(unknown)
    with pytest.raises(ValueError, match=r"as_list\(\) is not defined on an unknown TensorShape."):
        unknown.as_list()
    with pytest.raises(ValueError, match=r"Shapes \(1, 2\) and \(1, 3\) are not compatible"):
        TensorShape([1, 2]).merge_with([1, 3])
    with pytest.raises(ValueError, match=r"Shapes \(1, \?\) and \[2, 3\] are incompatible"):
        TensorShape([1, None]).assert_is_compatible_with([2, 3])
    with pytest.raises(TypeError, match="Failed to convert"):
        TensorShape("ab")


def test_unknown_rank_indexing():
    unknown = TensorShape(None)
    assert unknown[0].value is None
    assert unknown[1:3] == TensorShape([None, None])
    assert unknown[1:] == TensorShape(None)
    with pytest.raises(ValueError, match="Steps are not yet handled"):
        unknown[::2]


def test_helpers():
    assert ts.scalar() == TensorShape([])
    assert ts.vector(3) == TensorShape([3])
    assert ts.matrix(2, None) == TensorShape([2, None])
    assert ts.unknown_shape() == TensorShape(None)
    assert ts.unknown_shape(2) == TensorShape([None, None])
    assert ts.unknown_shape(ndims=1) == TensorShape([None])
    with pytest.raises(TypeError, match="Unknown argument"):
        ts.unknown_shape(foo=1)
    assert ts.dimension_value(Dimension(3)) == 3
    assert ts.dimension_value(4) == 4
    assert ts.dimension_at_index(TensorShape(None), 5).value is None
    assert ts.dimension_at_index(TensorShape([1, 2]), 1).value == 2
    assert ts.as_dimension(3).value == 3
    s = TensorShape([1])
    assert ts.as_shape(s) is s


@FAST
@given(shapes)
def test_native_round_trip(dims_or_none):
    shape = TensorShape(dims_or_none)
    native = ts._to_native(shape)
    assert native == dims_or_none
    assert native is None or all(d is None or type(d) is int for d in native)
    assert ts._from_native(native) == shape
    assert ts._to_native(dims_or_none) == dims_or_none


# -- against TensorFlow --------------------------------------------------------------------------


@pytest.mark.tf_oracle
@FAST
@given(shapes, shapes)
def test_binary_shape_ops_match_tf(tf, a, b):
    ours, theirs = both(tf, a)
    for method in [
        "merge_with",
        "is_compatible_with",
        "assert_is_compatible_with",
        "concatenate",
        "most_specific_compatible_shape",
        "assert_same_rank",
        "__eq__",
        "__ne__",
        "__add__",
    ]:
        assert outcome(getattr(ours, method), TensorShape(b)) == outcome(
            getattr(theirs, method), tf.TensorShape(b)
        ), method
        assert outcome(getattr(ours, method), b) == outcome(getattr(theirs, method), b), method
    if b is not None:
        assert outcome(operator.add, b, ours) == outcome(operator.add, b, theirs)


@pytest.mark.tf_oracle
@FAST
@given(shapes, ranks)
def test_unary_shape_ops_match_tf(tf, a, rank):
    ours, theirs = both(tf, a)
    for fn in [
        repr,
        str,
        len,
        list,
        bool,
        hash,
        lambda s: s.dims,
        lambda s: s.ndims,
        lambda s: s.rank,
        lambda s: s.as_list(),
        lambda s: s.num_elements(),
        lambda s: s.is_fully_defined(),
        lambda s: s.assert_is_fully_defined(),
        lambda s: s.with_rank(rank),
        lambda s: s.with_rank_at_least(rank),
        lambda s: s.with_rank_at_most(rank),
        lambda s: s.assert_has_rank(rank),
        lambda s: s[rank - 2],
        lambda s: s[1:rank],
        lambda s: s[rank:],
        lambda s: s[:rank],
        lambda s: s[-1:],
        lambda s: pickle.loads(pickle.dumps(s)),
    ]:
        assert outcome(fn, ours) == outcome(fn, theirs)


@pytest.mark.tf_oracle
@pytest.mark.parametrize(
    "value",
    [3, np.int32(2), [1.5], "ab", [-1], [True], (2, None), np.array([2, 3]), object(), 1.5],
    ids=repr,
)
def test_constructor_matches_tf(tf, value):
    assert outcome(TensorShape, value) == outcome(tf.TensorShape, value)


@pytest.mark.tf_oracle
def test_constructor_from_dimensions_matches_tf(tf):
    ours = TensorShape([Dimension(2), None, Dimension(None)])
    theirs = tf.TensorShape([tf.Dimension(2), None, tf.Dimension(None)])
    assert norm(ours) == norm(theirs)


DIM_OPS = [
    operator.add,
    operator.sub,
    operator.mul,
    operator.floordiv,
    operator.mod,
    operator.truediv,
    operator.eq,
    operator.ne,
    operator.lt,
    operator.le,
    operator.gt,
    operator.ge,
]


@pytest.mark.tf_oracle
@FAST
@given(dims, dims)
def test_dimension_ops_match_tf(tf, a, b):
    ours, theirs = Dimension(a), tf.Dimension(a)
    for op in DIM_OPS:
        assert outcome(op, ours, Dimension(b)) == outcome(op, theirs, tf.Dimension(b)), op
        if b is not None:
            assert outcome(op, ours, b) == outcome(op, theirs, b), op
        if a is not None:
            assert outcome(op, b, ours) == outcome(op, b, theirs), op
    for method in ["merge_with", "is_compatible_with", "assert_is_compatible_with"]:
        assert outcome(getattr(ours, method), b) == outcome(getattr(theirs, method), b), method
    for fn in [repr, str, bool, lambda d: d.value, lambda d: pickle.loads(pickle.dumps(d))]:
        assert outcome(fn, ours) == outcome(fn, theirs)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("value", [-1, 1.5, "a", True, np.int64(3), None, 0], ids=repr)
def test_dimension_constructor_matches_tf(tf, value):
    assert outcome(Dimension, value) == outcome(tf.Dimension, value)
