"""Tensor element types: TensorFlow's `DType` model with TF-1.x semantics.

A `DType` wraps one value of TensorFlow's `DataType` enum (`types.proto`).
ferroflow supports the element types below; reference types (`float32_ref`,
...) are the base enum plus 100, as in TensorFlow, and mark the outputs of
TF-1.x `Variable` ops.

`as_dtype` converts the same inputs as `tf.compat.v1.as_dtype`, with the same
quirks (it looks the value up in one mixed dictionary, so `as_dtype(1.0)` is
`float32` because `1.0 == 1`, and `as_dtype(int)` is a `TypeError`).
"""

from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

__all__ = [
    "DType",
    "as_dtype",
    "bfloat16",
    "bfloat16_ref",
    "bool",
    "bool_ref",
    "complex128",
    "complex128_ref",
    "complex64",
    "complex64_ref",
    "double",
    "float16",
    "float16_ref",
    "float32",
    "float32_ref",
    "float64",
    "float64_ref",
    "half",
    "int16",
    "int16_ref",
    "int32",
    "int32_ref",
    "int64",
    "int64_ref",
    "int8",
    "int8_ref",
    "resource",
    "resource_ref",
    "variant",
    "string",
    "string_ref",
    "uint16",
    "uint16_ref",
    "uint32",
    "uint32_ref",
    "uint64",
    "uint64_ref",
    "uint8",
    "uint8_ref",
]

# DataType enum values from tensorflow/core/framework/types.proto.
_DT_FLOAT = 1
_DT_DOUBLE = 2
_DT_INT32 = 3
_DT_UINT8 = 4
_DT_INT16 = 5
_DT_INT8 = 6
_DT_STRING = 7
_DT_COMPLEX64 = 8
_DT_INT64 = 9
_DT_BOOL = 10
_DT_BFLOAT16 = 14
_DT_UINT16 = 17
_DT_COMPLEX128 = 18
_DT_HALF = 19
_DT_RESOURCE = 20
_DT_VARIANT = 21
_DT_UINT32 = 22
_DT_UINT64 = 23
_REF_OFFSET = 100

_BASE_NAMES = {
    _DT_HALF: "float16",
    _DT_BFLOAT16: "bfloat16",
    _DT_FLOAT: "float32",
    _DT_DOUBLE: "float64",
    _DT_INT32: "int32",
    _DT_UINT8: "uint8",
    _DT_STRING: "string",
    _DT_INT64: "int64",
    _DT_BOOL: "bool",
    _DT_RESOURCE: "resource",
    _DT_VARIANT: "variant",
    _DT_INT8: "int8",
    _DT_INT16: "int16",
    _DT_UINT16: "uint16",
    _DT_UINT32: "uint32",
    _DT_UINT64: "uint64",
    _DT_COMPLEX64: "complex64",
    _DT_COMPLEX128: "complex128",
}
_TYPE_TO_STRING = {
    **_BASE_NAMES,
    **{enum + _REF_OFFSET: name + "_ref" for enum, name in _BASE_NAMES.items()},
}

# TensorFlow maps DT_STRING to the builtin `object` but DT_STRING_REF to
# `np.object_`; both mean numpy's 'O' dtype. bfloat16 is ml_dtypes' numpy type, as
# in TensorFlow.
_BASE_TO_NP = {
    _DT_HALF: np.float16,
    _DT_BFLOAT16: ml_dtypes.bfloat16,
    _DT_FLOAT: np.float32,
    _DT_DOUBLE: np.float64,
    _DT_INT32: np.int32,
    _DT_UINT8: np.uint8,
    _DT_STRING: object,
    _DT_INT64: np.int64,
    _DT_BOOL: np.bool_,
    _DT_INT8: np.int8,
    _DT_INT16: np.int16,
    _DT_UINT16: np.uint16,
    _DT_UINT32: np.uint32,
    _DT_UINT64: np.uint64,
    _DT_COMPLEX64: np.complex64,
    _DT_COMPLEX128: np.complex128,
}
_TF_TO_NP = {
    **_BASE_TO_NP,
    **{enum + _REF_OFFSET: np_type for enum, np_type in _BASE_TO_NP.items()},
}
_TF_TO_NP[_DT_STRING + _REF_OFFSET] = np.object_

_FLOATING = frozenset({_DT_HALF, _DT_BFLOAT16, _DT_FLOAT, _DT_DOUBLE})
_INTEGER = frozenset(
    {_DT_INT32, _DT_INT64, _DT_UINT8, _DT_INT8, _DT_INT16, _DT_UINT16, _DT_UINT32, _DT_UINT64}
)
_UNSIGNED = frozenset({_DT_UINT8, _DT_UINT16, _DT_UINT32, _DT_UINT64})
_COMPLEX = frozenset({_DT_COMPLEX64, _DT_COMPLEX128})
# A complex type's real part.
_REAL_OF = {_DT_COMPLEX64: _DT_FLOAT, _DT_COMPLEX128: _DT_DOUBLE}
_SIZES = {
    _DT_HALF: 2,
    _DT_BFLOAT16: 2,
    _DT_FLOAT: 4,
    _DT_DOUBLE: 8,
    _DT_INT32: 4,
    _DT_UINT8: 1,
    _DT_STRING: 0,
    _DT_INT64: 8,
    _DT_BOOL: 1,
    _DT_RESOURCE: 0,
    _DT_VARIANT: 0,
    _DT_INT8: 1,
    _DT_INT16: 2,
    _DT_UINT16: 2,
    _DT_UINT32: 4,
    _DT_UINT64: 8,
    _DT_COMPLEX64: 8,
    _DT_COMPLEX128: 16,
}

# `DType.limits` looks the numpy type up here, as TensorFlow does (float16,
# bfloat16 and string have no entry, so their `limits` raise).
_DTYPE_RANGE = {
    np.bool_: (False, True),
    np.uint8: (0, 255),
    np.uint16: (0, 65535),
    np.int8: (-128, 127),
    np.int16: (-32768, 32767),
    np.int64: (-(2**63), 2**63 - 1),
    np.uint64: (0, 2**64 - 1),
    np.int32: (-(2**31), 2**31 - 1),
    np.uint32: (0, 2**32 - 1),
    np.float32: (-1, 1),
    np.float64: (-1, 1),
}


class DType:
    """The type of the elements in a `Tensor` (TensorFlow's `tf.DType`).

    Construct one from a `DataType` enum value, or more usually get one with
    `as_dtype` or a module constant such as `float32`. Two `DType`s compare
    equal when their enum values do; `DType` also compares equal to anything
    `as_dtype` converts to it (`float32 == "float32"`).
    """

    __slots__ = ("_type_enum",)

    def __init__(self, type_enum):
        """Create a `DType` for a `DataType` enum value.

        Args:
            type_enum: A `types_pb2.DataType` enum value (anything `int()` accepts).

        Raises:
            TypeError: If `type_enum` is not a `DataType` ferroflow supports.
            ValueError: If `int(type_enum)` fails with `ValueError`.
        """
        type_enum = int(type_enum)
        if type_enum not in _TYPE_TO_STRING:
            raise TypeError(f"{type_enum} does not correspond to a valid tensorflow::DataType")
        self._type_enum = type_enum

    @property
    def _is_ref_dtype(self) -> builtins.bool:
        """Whether this `DType` is a reference type."""
        return self._type_enum > _REF_OFFSET

    @property
    def _as_ref(self) -> DType:
        """The reference `DType` based on this `DType`."""
        if self._is_ref_dtype:
            return self
        if self._type_enum == _DT_VARIANT:
            return _variant_ref
        return _INTERN_TABLE[self._type_enum + _REF_OFFSET]

    @property
    def base_dtype(self) -> DType:
        """The non-reference `DType` based on this `DType`."""
        if self._is_ref_dtype:
            return _INTERN_TABLE[self._type_enum - _REF_OFFSET]
        return self

    @property
    def real_dtype(self) -> DType:
        """The `DType` of this type's real part.

        `float32` for `complex64`, `float64` for `complex128`; a real type's own.
        """
        real = _REAL_OF.get(self._base_enum)
        return _INTERN_TABLE[real] if real is not None else self

    @property
    def name(self) -> str:
        """The string name of this `DType`, e.g. `'float32'` or `'float32_ref'`."""
        return _TYPE_TO_STRING[self._type_enum]

    @property
    def as_numpy_dtype(self) -> type:
        """The numpy scalar type for this `DType` (`object` for `string`)."""
        return _TF_TO_NP[self._type_enum]

    @property
    def as_datatype_enum(self) -> int:
        """The `types_pb2.DataType` enum value of this `DType`."""
        return self._type_enum

    @property
    def _base_enum(self) -> int:
        return self._type_enum % _REF_OFFSET

    @property
    def is_bool(self) -> builtins.bool:
        """Whether this is a boolean type."""
        return self._base_enum == _DT_BOOL

    @property
    def is_floating(self) -> builtins.bool:
        """Whether this is a (non-quantized, real) floating point type."""
        return self._base_enum in _FLOATING

    @property
    def is_integer(self) -> builtins.bool:
        """Whether this is a (non-quantized) integer type."""
        return self._base_enum in _INTEGER

    @property
    def is_complex(self) -> builtins.bool:
        """Whether this is a complex type (`complex64`, `complex128`)."""
        return self._base_enum in _COMPLEX

    @property
    def is_quantized(self) -> builtins.bool:
        """Whether this is a quantized type (never, in ferroflow)."""
        return False

    @property
    def is_unsigned(self) -> builtins.bool:
        """Whether this type is unsigned (`bool` is not)."""
        return self._base_enum in _UNSIGNED

    @property
    def is_numeric(self) -> builtins.bool:
        """Whether this is a numeric type (not `bool`, `string` or `resource`)."""
        return self._base_enum not in (_DT_BOOL, _DT_STRING, _DT_RESOURCE, _DT_VARIANT)

    @property
    def is_numpy_compatible(self) -> builtins.bool:
        """Whether numpy can represent this type (all but `resource` and `variant`)."""
        return self._base_enum not in (_DT_RESOURCE, _DT_VARIANT)

    @property
    def size(self) -> int:
        """The size in bytes of one element (0 for `string`)."""
        return _SIZES[self._base_enum]

    @property
    def min(self):
        """The minimum representable value of this type.

        Raises:
            TypeError: If this is a non-numeric or unordered type.
        """
        if self.base_dtype in (bool, string, complex64, complex128):
            raise TypeError(f"Cannot find minimum value of {self} with type {self.base_dtype}.")
        if self._base_enum in (_DT_RESOURCE, _DT_VARIANT):
            raise TypeError(f"Cannot find minimum value of {self}.")
        np_type = self.as_numpy_dtype
        if self.is_floating:
            return ml_dtypes.finfo(np_type).min
        return np.iinfo(np_type).min

    @property
    def max(self):
        """The maximum representable value of this type.

        Raises:
            TypeError: If this is a non-numeric or unordered type.
        """
        if self.base_dtype in (bool, string, complex64, complex128):
            raise TypeError(f"Cannot find maximum value of {self} with type {self.base_dtype}.")
        if self._base_enum in (_DT_RESOURCE, _DT_VARIANT):
            raise TypeError(f"Cannot find maximum value of {self}.")
        np_type = self.as_numpy_dtype
        if self.is_floating:
            return ml_dtypes.finfo(np_type).max
        return np.iinfo(np_type).max

    @property
    def limits(self) -> tuple:
        """The intensity limits `(0, max)` of this type, as TensorFlow defines them.

        As in TensorFlow, the lower limit is always clipped to 0, and floating
        point types have the image range `(0, 1)`.

        Raises:
            ValueError: If the type has no defined limits (`float16`, `bfloat16`,
                `string`).
        """
        if self.as_numpy_dtype not in _DTYPE_RANGE:
            raise ValueError(str(self) + " does not have defined limits.")
        return 0, _DTYPE_RANGE[self.as_numpy_dtype][1]

    def is_compatible_with(self, other) -> builtins.bool:
        """Whether a tensor of `other`'s type converts implicitly to this type.

        This is equality, plus conversion from a reference type to its base type.

        Args:
            other: A `DType`, or anything `as_dtype` accepts.

        Returns:
            True if `other`'s type or base type is this type.

        Raises:
            TypeError: If `other` cannot be converted to a `DType`.
        """
        other = as_dtype(other)
        return self._type_enum in (other.as_datatype_enum, other.base_dtype.as_datatype_enum)

    def __eq__(self, other) -> builtins.bool:
        """Whether `other` (converted with `as_dtype`) is the same type; never raises."""
        if other is None:
            return False
        if type(other) is not DType:
            try:
                other = as_dtype(other)
            except TypeError:
                return False
        return self._type_enum == other._type_enum

    def __ne__(self, other) -> builtins.bool:
        """Whether `other` is not the same type; never raises."""
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._type_enum

    def __int__(self) -> int:
        return self._type_enum

    def __repr__(self) -> str:
        return "tf." + self.name

    def __str__(self) -> str:
        return f"<dtype: {self.name!r}>"

    def __reduce__(self):
        return as_dtype, (self.name,)


float16 = DType(_DT_HALF)
half = float16
bfloat16 = DType(_DT_BFLOAT16)
float32 = DType(_DT_FLOAT)
float64 = DType(_DT_DOUBLE)
double = float64
int32 = DType(_DT_INT32)
int64 = DType(_DT_INT64)
uint8 = DType(_DT_UINT8)
int8 = DType(_DT_INT8)
int16 = DType(_DT_INT16)
uint16 = DType(_DT_UINT16)
uint32 = DType(_DT_UINT32)
uint64 = DType(_DT_UINT64)
bool = DType(_DT_BOOL)  # shadows the builtin, as TensorFlow's public name does
string = DType(_DT_STRING)
resource = DType(_DT_RESOURCE)
variant = DType(_DT_VARIANT)

float16_ref = DType(_DT_HALF + _REF_OFFSET)
bfloat16_ref = DType(_DT_BFLOAT16 + _REF_OFFSET)
float32_ref = DType(_DT_FLOAT + _REF_OFFSET)
float64_ref = DType(_DT_DOUBLE + _REF_OFFSET)
int32_ref = DType(_DT_INT32 + _REF_OFFSET)
int64_ref = DType(_DT_INT64 + _REF_OFFSET)
uint8_ref = DType(_DT_UINT8 + _REF_OFFSET)
int8_ref = DType(_DT_INT8 + _REF_OFFSET)
int16_ref = DType(_DT_INT16 + _REF_OFFSET)
uint16_ref = DType(_DT_UINT16 + _REF_OFFSET)
uint32_ref = DType(_DT_UINT32 + _REF_OFFSET)
uint64_ref = DType(_DT_UINT64 + _REF_OFFSET)
bool_ref = DType(_DT_BOOL + _REF_OFFSET)
string_ref = DType(_DT_STRING + _REF_OFFSET)
resource_ref = DType(_DT_RESOURCE + _REF_OFFSET)
complex64 = DType(_DT_COMPLEX64)
complex128 = DType(_DT_COMPLEX128)
complex64_ref = DType(_DT_COMPLEX64 + _REF_OFFSET)
complex128_ref = DType(_DT_COMPLEX128 + _REF_OFFSET)

_INTERN_TABLE: dict[int, DType] = {
    d.as_datatype_enum: d
    for d in (
        *(float16, float32, float64, int32, int64, uint8, bool, string),
        *(float16_ref, float32_ref, float64_ref, int32_ref, int64_ref, uint8_ref, bool_ref),
        *(string_ref, resource, resource_ref, variant),
        *(int8, int16, uint16, uint32, uint64),
        *(int8_ref, int16_ref, uint16_ref, uint32_ref, uint64_ref),
        *(bfloat16, bfloat16_ref),
        *(complex64, complex128, complex64_ref, complex128_ref),
    )
}

# `variant_ref`: `variant._as_ref`, and TF's `as_dtype` knows its enum.
_variant_ref = DType(_DT_VARIANT + _REF_OFFSET)
_INTERN_TABLE[_variant_ref.as_datatype_enum] = _variant_ref
_STRING_TO_TF: dict[str, DType] = {
    name: _INTERN_TABLE[e] for e, name in _TYPE_TO_STRING.items() if e in _INTERN_TABLE
}
_STRING_TO_TF["half"] = float16
_STRING_TO_TF["half_ref"] = float16_ref
_STRING_TO_TF["float"] = float32
_STRING_TO_TF["float_ref"] = float32_ref
_STRING_TO_TF["double"] = float64
_STRING_TO_TF["double_ref"] = float64_ref

_NP_TO_TF: dict = {
    np.float16: float16,
    ml_dtypes.bfloat16: bfloat16,
    np.float32: float32,
    np.float64: float64,
    np.int32: int32,
    np.int64: int64,
    np.uint8: uint8,
    np.int8: int8,
    np.int16: int16,
    np.uint16: uint16,
    np.uint32: uint32,
    np.uint64: uint64,
    np.object_: string,
    np.bytes_: string,
    np.str_: string,
    np.bool_: bool,
    np.complex64: complex64,
    np.complex128: complex128,
}
# Platform integer aliases that are distinct types on some platforms.
for _pdt in (np.intc, np.uintc, np.int_, np.uint, np.longlong, np.ulonglong):
    if _pdt not in _NP_TO_TF:
        _match = next((_NP_TO_TF[dt] for dt in _NP_TO_TF if dt == _pdt().dtype), None)
        if _match is not None:
            _NP_TO_TF[_pdt] = _match
if hasattr(np, "dtypes") and hasattr(np.dtypes, "StringDType"):
    _NP_TO_TF[np.dtypes.StringDType()] = string

_PYTHON_TO_TF = {
    builtins.float: float32,
    builtins.bool: bool,
    builtins.object: string,
}

# One mixed dictionary, as in TensorFlow: lookups go through `hash` and `==`,
# so e.g. `True` and `1.0` find the enum key `1` (float32).
_ANY_TO_TF: dict = {}
_ANY_TO_TF.update(_INTERN_TABLE)
_ANY_TO_TF.update(_STRING_TO_TF)
_ANY_TO_TF.update(_PYTHON_TO_TF)
_ANY_TO_TF.update(_NP_TO_TF)


def as_dtype(type_value) -> DType:
    """Convert `type_value` to a `DType`.

    Accepts a `DType`, a `DataType` enum value, a type name (`'float32'`,
    `'float'`, `'double'`, `'half'`, `'float32_ref'`, ...), a numpy dtype or
    scalar type (numpy string and object kinds map to `string`), the Python
    types `float`, `bool` and `object`, or an object with a numpy-convertible
    `dtype` attribute (e.g. a numpy array).

    Args:
        type_value: A value that can be converted to a `DType`.

    Returns:
        The interned `DType` for `type_value`.

    Raises:
        TypeError: If `type_value` cannot be converted to a `DType`.
    """
    if isinstance(type_value, DType):
        return _INTERN_TABLE[type_value.as_datatype_enum]

    if isinstance(type_value, np.dtype):
        try:
            return _NP_TO_TF[type_value.type]
        except KeyError:
            pass

    try:
        return _ANY_TO_TF[type_value]
    except (KeyError, TypeError):
        pass

    if hasattr(type_value, "dtype"):
        try:
            return _NP_TO_TF[np.dtype(type_value.dtype).type]
        except (KeyError, TypeError):
            pass

    raise TypeError(
        f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType."
    )
