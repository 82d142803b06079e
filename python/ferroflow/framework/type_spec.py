"""`tf.TypeSpec`: the type of a value TensorFlow APIs accept (TF's `type_spec.py`).

A spec's state is its `_serialize()` tuple (of shapes, dtypes, specs, plain values):
equality, hashing, `repr`, `is_compatible_with` and `most_specific_compatible_type`
are all defined from it, as in TF 1.15. Subclasses: `TensorSpec`, `SparseTensorSpec`,
`IndexedSlicesSpec`.
"""

from __future__ import annotations

import numpy as np

from .._compat import zip_strict
from . import dtypes, tensor_shape


class TypeSpec:
    """Specifies a TensorFlow value type (TF's `tf.TypeSpec`)."""

    __slots__ = ()

    @property
    def value_type(self):
        """The Python type of the values this spec describes."""
        raise NotImplementedError(f"{type(self).__name__}.value_type")

    def is_compatible_with(self, spec_or_value) -> bool:
        """Whether `spec_or_value` (a spec or a value) is compatible with this spec.

        Two specs are compatible when they are of the same type and their serializations
        are: shapes, dtypes and specs by their own `is_compatible_with`, other values
        by equality.
        """
        if not isinstance(spec_or_value, TypeSpec):
            spec_or_value = type_spec_from_value(spec_or_value)
        if type(self) is not type(spec_or_value):
            return False
        return _is_compatible(self._serialize(), spec_or_value._serialize())

    def most_specific_compatible_type(self, other):
        """The most specific `TypeSpec` compatible with both `self` and `other`.

        Raises:
            ValueError: If no spec is compatible with both.
        """
        if type(self) is not type(other):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        merged = _most_specific_serialization(self._serialize(), other._serialize())
        return self._deserialize(merged)

    def _to_components(self, value):
        raise NotImplementedError(f"{type(self).__name__}._to_components()")

    def _from_components(self, components):
        raise NotImplementedError(f"{type(self).__name__}._from_components()")

    @property
    def _component_specs(self):
        raise NotImplementedError(f"{type(self).__name__}._component_specs()")

    def _serialize(self):
        raise NotImplementedError(f"{type(self).__name__}._serialize()")

    @classmethod
    def _deserialize(cls, serialization):
        return cls(*serialization)

    def __eq__(self, other):
        return type(other) is type(self) and self._cmp_key() == other._cmp_key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._cmp_key())

    def __reduce__(self):
        return type(self), self._serialize()

    def __repr__(self):
        return f"{type(self).__name__}{self._serialize()!r}"

    def _to_legacy_output_classes(self):
        return self.value_type

    def _cmp_key(self):
        return (type(self), _make_cmp_key(self._serialize(), self))


class BatchableTypeSpec(TypeSpec):
    """A `TypeSpec` whose values can be batched (TF's `BatchableTypeSpec`)."""

    __slots__ = ()

    def _batch(self, batch_size):
        """The spec of a batch of `batch_size` values of this spec."""
        raise NotImplementedError(f"{type(self).__name__}._batch")


def _make_cmp_key(value, spec):
    """`value` (part of a serialization) as a hashable, comparable key (TF's)."""
    if isinstance(value, (int, float, bool, dtypes.DType, TypeSpec)):
        return value
    if isinstance(value, (bytes, str)) or value is None:
        return value
    if isinstance(value, dict):
        return tuple((_make_cmp_key(k, spec), _make_cmp_key(value[k], spec)) for k in sorted(value))
    if isinstance(value, tuple):
        return tuple(_make_cmp_key(v, spec) for v in value)
    if isinstance(value, tensor_shape.TensorShape):
        if value.ndims is None:
            return (tensor_shape.TensorShape, None)
        return (tensor_shape.TensorShape, tuple(value.as_list()))
    if isinstance(value, np.ndarray):
        return (np.ndarray, value.shape, _nested_list_to_tuple(value.tolist()))
    raise ValueError(
        f"Unsupported value type {type(value).__name__} returned by "
        f"{type(spec).__name__}._serialize"
    )


def _nested_list_to_tuple(value):
    if isinstance(value, list):
        return tuple(_nested_list_to_tuple(v) for v in value)
    return value


def _is_compatible(a, b) -> bool:
    """Whether two type serializations are compatible (TF's `__is_compatible`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_is_compatible(x, y) for x, y in zip_strict(a, b))
    if isinstance(a, dict):
        return (
            len(a) == len(b)
            and sorted(a) == sorted(b)
            and all(_is_compatible(a[k], b[k]) for k in a)
        )
    if isinstance(a, (TypeSpec, tensor_shape.TensorShape, dtypes.DType)):
        return a.is_compatible_with(b)
    return a == b


def _most_specific_serialization(a, b):
    """Two type serializations combined (TF's `__most_specific_compatible_type_serialization`).

    Raises:
        ValueError: If they are not compatible.
    """
    if type(a) is not type(b):
        raise ValueError(f"Types are not compatible: {a!r} vs {b!r}")
    if isinstance(a, tuple):
        if len(a) != len(b):
            raise ValueError(f"Types are not compatible: {a!r} vs {b!r}")
        return tuple(_most_specific_serialization(x, y) for x, y in zip_strict(a, b))
    if isinstance(a, dict):
        a_keys, b_keys = sorted(a), sorted(b)
        if len(a) != len(b) or a_keys != b_keys:
            raise ValueError(f"Types are not compatible: {a!r} vs {b!r}")
        return {k: _most_specific_serialization(a[k], b[k]) for k in a_keys}
    if isinstance(a, tensor_shape.TensorShape):
        return a.most_specific_compatible_shape(b)
    if isinstance(a, list):
        raise AssertionError("_serialize() should not return list values.")
    if isinstance(a, TypeSpec):
        return a.most_specific_compatible_type(b)
    if a != b:
        raise ValueError(f"Types are not compatible: {a!r} vs {b!r}")
    return a


_TYPE_CONVERSION_FUNCTION_REGISTRY: list = []


def register_type_spec_from_value_converter(type_object, converter_fn, allow_subclass=False):
    """Registers `converter_fn(value) -> TypeSpec` for values of `type_object` (TF's).

    The most recent registration matching a value wins.
    """
    _TYPE_CONVERSION_FUNCTION_REGISTRY.append((type_object, converter_fn, allow_subclass))


def _type_spec_from_value(value):
    from . import ops
    from .composite_tensor import CompositeTensor
    from .tensor_spec import TensorSpec

    if isinstance(value, ops.Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, CompositeTensor):
        return value._type_spec
    if isinstance(value, list) and value:
        subspecs = [_type_spec_from_value(v) for v in value]
        if isinstance(subspecs[0], BatchableTypeSpec):
            merged = subspecs[0]
            try:
                for subspec in subspecs[1:]:
                    merged = merged.most_specific_compatible_type(subspec)
                return merged._batch(len(subspecs))
            except (ValueError, TypeError):
                pass
    for type_object, converter_fn, allow_subclass in reversed(_TYPE_CONVERSION_FUNCTION_REGISTRY):
        if type(value) is type_object or (allow_subclass and isinstance(value, type_object)):
            return converter_fn(value)
    return None


def type_spec_from_value(value):
    """A `TypeSpec` describing `value` (a tensor, composite tensor, or convertible value).

    Raises:
        TypeError: If no spec can describe `value`.
    """
    spec = _type_spec_from_value(value)
    if spec is not None:
        return spec
    from . import ops

    try:
        spec = _type_spec_from_value(ops.convert_to_tensor(value))
        if spec is not None:
            return spec
    except (ValueError, TypeError):
        pass
    raise TypeError(f"Could not build a TypeSpec for {value!r} with type {type(value).__name__}")
