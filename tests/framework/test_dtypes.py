"""Tests for ferroflow.framework.dtypes, with TensorFlow as the oracle where installed."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ferroflow.framework import dtypes

SUPPORTED = {
    "float16": 19,
    "bfloat16": 14,
    "float32": 1,
    "float64": 2,
    "int32": 3,
    "int64": 9,
    "uint8": 4,
    "int8": 6,
    "int16": 5,
    "uint16": 17,
    "uint32": 22,
    "uint64": 23,
    "resource": 20,
    "bool": 10,
    "string": 7,
    "variant": 21,
    "complex64": 8,
    "complex128": 18,
}
# TF has no reference type of variants.
ALL_NAMES = [*SUPPORTED, *(name + "_ref" for name in SUPPORTED if name != "variant")]
PROPERTIES = [
    "name",
    "as_datatype_enum",
    "is_floating",
    "is_integer",
    "is_bool",
    "is_complex",
    "is_unsigned",
    "is_quantized",
    "is_numeric",
    "is_numpy_compatible",
    "_is_ref_dtype",
    "size",
]


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow.compat.v1")


def outcome(fn, *args):
    """The result of fn(*args) as comparable data, or the exception's type and message."""
    try:
        value = fn(*args)
    except Exception as e:
        return ("raise", type(e).__name__, str(e))
    if hasattr(value, "as_datatype_enum"):
        return ("dtype", value.name)
    return ("value", value)


# -- without the oracle -------------------------------------------------------------------------


def test_module_constants():
    for name, enum in SUPPORTED.items():
        d = getattr(dtypes, name)
        assert d.as_datatype_enum == enum
        assert d.name == name
        if name == "variant":
            assert d._as_ref.name == "variant_ref"  # TF's; `as_dtype` has no variant_ref
            continue
        ref = getattr(dtypes, name + "_ref")
        assert ref.as_datatype_enum == enum + 100
        assert ref.name == name + "_ref"
        assert ref.base_dtype is d
        assert d._as_ref is ref
        assert ref._as_ref is ref
        assert d.base_dtype is d
    assert dtypes.half is dtypes.float16
    assert dtypes.double is dtypes.float64


def test_repr_str_hash_int():
    assert repr(dtypes.float32) == "tf.float32"
    assert str(dtypes.float32) == "<dtype: 'float32'>"
    assert repr(dtypes.int64_ref) == "tf.int64_ref"
    assert str(dtypes.bool_ref) == "<dtype: 'bool_ref'>"
    assert hash(dtypes.float32) == 1
    assert int(dtypes.string_ref) == 107
    assert {dtypes.float32: "x"}[dtypes.DType(1)] == "x"


def test_constructor():
    assert dtypes.DType(1) == dtypes.float32
    assert dtypes.DType(1) is not dtypes.float32
    assert dtypes.as_dtype(dtypes.DType(1)) is dtypes.float32
    assert dtypes.DType(2.7) == dtypes.float64
    with pytest.raises(TypeError, match="999 does not correspond to a valid tensorflow::DataType"):
        dtypes.DType(999)
    with pytest.raises(TypeError):
        dtypes.DType(11)  # qint8: a TensorFlow type ferroflow does not support
    with pytest.raises(ValueError):
        dtypes.DType("x")


def test_numpy_types():
    assert dtypes.float32.as_numpy_dtype is np.float32
    assert dtypes.bool.as_numpy_dtype is np.bool_
    assert dtypes.string.as_numpy_dtype is object
    assert dtypes.string_ref.as_numpy_dtype is np.object_
    assert np.dtype(dtypes.string.as_numpy_dtype) == np.dtype("O")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("float32", dtypes.float32),
        ("float", dtypes.float32),
        ("double", dtypes.float64),
        ("half", dtypes.float16),
        ("float_ref", dtypes.float32_ref),
        ("uint8_ref", dtypes.uint8_ref),
        (1, dtypes.float32),
        (101, dtypes.float32_ref),
        (True, dtypes.float32),  # True == 1, TensorFlow's enum for float32
        (2.0, dtypes.float64),
        (float, dtypes.float32),
        (bool, dtypes.bool),
        (object, dtypes.string),
        (np.float32, dtypes.float32),
        (np.dtype("int64"), dtypes.int64),
        (np.bool_, dtypes.bool),
        (np.object_, dtypes.string),
        (np.str_, dtypes.string),
        (np.bytes_, dtypes.string),
        (np.dtype("S5"), dtypes.string),
        (np.dtype("<U3"), dtypes.string),
        (np.array([1.0]), dtypes.float64),
        (np.array([1], dtype=np.uint8), dtypes.uint8),
        (dtypes.float64_ref, dtypes.float64_ref),
        (np.complex64, dtypes.complex64),
        (np.array([1j]), dtypes.complex128),
    ],
)
def test_as_dtype_table(value, expected):
    assert dtypes.as_dtype(value) is expected


@pytest.mark.parametrize(
    "value",
    [int, str, bytes, complex, 0, 200, "int", "Float32", b"float32", None, [1], np.float128],
)
def test_as_dtype_rejects(value):
    with pytest.raises(TypeError, match="to a TensorFlow DType"):
        dtypes.as_dtype(value)


def test_eq_never_raises():
    assert dtypes.float32 == "float32"
    assert dtypes.float32 == 1
    assert dtypes.float32 == np.float32
    assert dtypes.float32 != "foo"
    assert dtypes.float32 != None  # noqa: E711
    assert dtypes.float32 != [1]
    assert dtypes.float32 != object()
    assert dtypes.float32 != dtypes.float32_ref


def test_is_compatible_with():
    assert dtypes.float32.is_compatible_with(dtypes.float32_ref)
    assert not dtypes.float32_ref.is_compatible_with(dtypes.float32)
    assert dtypes.float32.is_compatible_with("float32")
    assert not dtypes.float32.is_compatible_with(dtypes.int32)
    with pytest.raises(TypeError):
        dtypes.float32.is_compatible_with("foo")


def test_min_max_limits():
    assert dtypes.int32.min == -(2**31)
    assert dtypes.uint8.max == 255
    assert dtypes.float16.max == np.float16(65504)
    assert dtypes.int32.limits == (0, 2**31 - 1)
    assert dtypes.float32.limits == (0, 1)
    with pytest.raises(TypeError, match="Cannot find minimum value of <dtype: 'bool'>"):
        _ = dtypes.bool.min
    with pytest.raises(ValueError, match="does not have defined limits"):
        _ = dtypes.float16.limits


@pytest.mark.parametrize("name", ALL_NAMES)
def test_pickle(name):
    d = dtypes.as_dtype(name)
    assert pickle.loads(pickle.dumps(d)) is d


# -- against TensorFlow --------------------------------------------------------------------------


@pytest.mark.tf_oracle
@pytest.mark.parametrize("name", ALL_NAMES)
def test_properties_match_tf(tf, name):
    ours, theirs = dtypes.as_dtype(name), tf.as_dtype(name)
    for prop in PROPERTIES:
        assert getattr(ours, prop) == getattr(theirs, prop), prop
    # A resource has no numpy type: both raise.
    assert outcome(getattr, ours, "as_numpy_dtype") == outcome(getattr, theirs, "as_numpy_dtype")
    for prop in ["base_dtype", "real_dtype", "_as_ref"]:
        assert getattr(ours, prop).name == getattr(theirs, prop).name, prop
    for prop in ["min", "max", "limits"]:
        ours_out = outcome(getattr, ours, prop)
        theirs_out = outcome(getattr, theirs, prop)
        assert ours_out == theirs_out, prop
        assert type(ours_out[-1]) is type(theirs_out[-1]), prop
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)
    assert hash(ours) == hash(theirs)
    assert int(ours) == int(theirs)


AS_DTYPE_INPUTS = [
    *ALL_NAMES,
    "float",
    "double",
    "half",
    "float_ref",
    "double_ref",
    "half_ref",
    "int",
    "str",
    "Float32",
    "",
    b"float32",
    np.str_("int64"),
    int,
    float,
    bool,
    object,
    str,
    bytes,
    complex,
    0,
    1,
    True,
    False,
    1.0,
    2.0,
    -1,
    np.float32(1.0),
    np.int64(9),
    np.float16,
    np.float32,
    np.float64,
    np.int32,
    np.int64,
    np.uint8,
    np.bool_,
    np.object_,
    np.str_,
    np.bytes_,
    np.intc,
    np.int_,
    np.longlong,
    np.datetime64,
    np.void,
    np.dtype("float16"),
    np.dtype("float32"),
    np.dtype("float64"),
    np.dtype("int32"),
    np.dtype("int64"),
    np.dtype("uint8"),
    np.dtype("bool"),
    np.dtype("O"),
    np.dtype("S5"),
    np.dtype("<U3"),
    np.dtype([("a", np.int8)]),
    np.array([1.0]),
    np.array([1, 2], dtype=np.int32),
    np.array(["a"]),
    None,
    [1],
    (),
    object(),
]


@pytest.mark.tf_oracle
@pytest.mark.parametrize("value", AS_DTYPE_INPUTS, ids=repr)
def test_as_dtype_matches_tf(tf, value):
    assert outcome(dtypes.as_dtype, value) == outcome(tf.as_dtype, value)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("name", ALL_NAMES)
def test_eq_and_compatibility_match_tf(tf, name):
    ours, theirs = dtypes.as_dtype(name), tf.as_dtype(name)
    for value in AS_DTYPE_INPUTS:
        assert (ours == value) == (theirs == value), value
        assert (ours != value) == (theirs != value), value
        assert outcome(ours.is_compatible_with, value) == outcome(
            theirs.is_compatible_with, value
        ), value


@pytest.mark.tf_oracle
@settings(max_examples=100, deadline=None, database=None)
@given(st.one_of(st.integers(-5, 250), st.sampled_from([*ALL_NAMES, "float", "double", "half"])))
def test_as_dtype_enums_and_names_match_tf(tf, value):
    theirs = outcome(tf.as_dtype, value)
    ours = outcome(dtypes.as_dtype, value)
    if theirs[0] == "dtype" and theirs[1].removesuffix("_ref") not in SUPPORTED:
        assert ours[:2] == ("raise", "TypeError")  # a TensorFlow type ferroflow lacks
    else:
        assert ours == theirs
