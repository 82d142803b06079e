"""`tf.TensorSpec`: the shape, dtype and (optional) name of a tensor (TF 1.15's).

Example:
    ```python
    spec = tf.TensorSpec([None, 3], tf.float32, name="x")
    spec.is_compatible_with(tf.placeholder(tf.float32, [2, 3]))  # True
    ```
"""

from __future__ import annotations

import numpy as np

from . import dtypes, ops, tensor_shape, type_spec


class TensorSpec(type_spec.BatchableTypeSpec):
    """Describes a `tf.Tensor`: its static shape, dtype and an optional name."""

    __slots__ = ("_dtype", "_name", "_shape", "_shape_tuple")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        """Creates a `TensorSpec`.

        Args:
            shape: Anything `tf.TensorShape` accepts: the shape of the tensor.
            dtype: Anything `tf.as_dtype` accepts: the type of its elements.
            name: An optional name for the tensor.

        Raises:
            TypeError: If `shape` or `dtype` does not convert.
        """
        self._shape = tensor_shape.TensorShape(shape)
        self._shape_tuple: tuple[int | None, ...] | None
        try:
            self._shape_tuple = tuple(self._shape.as_list())
        except ValueError:
            self._shape_tuple = None
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_spec(cls, spec, name=None):
        """A spec of `spec`'s shape and dtype, named `name` (default: `spec`'s name)."""
        return cls(spec.shape, spec.dtype, name or spec.name)

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of `tensor`: its shape and dtype, named `name` or its op's name.

        Raises:
            ValueError: If `tensor` is not a `tf.Tensor`.
        """
        if isinstance(tensor, ops.Tensor):
            return TensorSpec(tensor.shape, tensor.dtype, name or tensor.op.name)
        raise ValueError("`tensor` should be a tf.Tensor")

    @property
    def shape(self):
        """The `TensorShape` of the described tensor."""
        return self._shape

    @property
    def dtype(self):
        """The `DType` of the described tensor's elements."""
        return self._dtype

    @property
    def name(self):
        """The (optional) name of the described tensor."""
        return self._name

    @property
    def value_type(self):
        """`tf.Tensor`."""
        return ops.Tensor

    def is_compatible_with(self, spec_or_tensor) -> bool:
        """Whether `spec_or_tensor` (a `TensorSpec` or `Tensor`) is compatible with this.

        Compatible means of a compatible dtype and a compatible shape; the names are not
        compared.
        """
        return (
            isinstance(spec_or_tensor, (TensorSpec, ops.Tensor))
            and self._dtype.is_compatible_with(spec_or_tensor.dtype)
            and self._shape.is_compatible_with(spec_or_tensor.shape)
        )

    def most_specific_compatible_type(self, other):
        """The spec of the most specific shape compatible with both (same dtype).

        Raises:
            ValueError: If `other` is not a `TensorSpec` of the same dtype.
        """
        if type(self) is not type(other) or self._dtype != other.dtype:
            raise ValueError(f"Types are not compatible: {self!r} vs {other!r}")
        shape = self._shape.most_specific_compatible_shape(other.shape)
        name = self._name if self._name == other.name else None
        return TensorSpec(shape, self._dtype, name)

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})"

    def __hash__(self):
        return hash((self._shape_tuple, self.dtype))

    def __eq__(self, other):
        return (
            type(self) is type(other)
            and self._shape_tuple == other._shape_tuple
            and self._dtype == other._dtype
            and self._name == other._name
        )

    def __ne__(self, other):
        return not self == other

    def _serialize(self):
        return (self._shape, self._dtype, self._name)

    @property
    def _component_specs(self):
        return self

    def _to_components(self, value):
        try:
            value = ops.convert_to_tensor(value, self._dtype)
        except (TypeError, ValueError):
            raise ValueError(
                f"Value {value!r} is not convertible to a tensor with dtype {self._dtype} "
                f"and shape {self._shape}."
            ) from None
        if not value.shape.is_compatible_with(self._shape):
            raise ValueError(
                f"Value {value!r} is not convertible to a tensor with dtype {self._dtype} "
                f"and shape {self._shape}."
            )
        return value

    def _from_components(self, components):
        return components

    def _batch(self, batch_size):
        return TensorSpec(
            tensor_shape.TensorShape([batch_size]).concatenate(self._shape), self._dtype
        )

    def _unbatch(self):
        if self._shape.ndims == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return TensorSpec(self._shape[1:], self._dtype)

    def _to_legacy_output_types(self):
        return self._dtype

    def _to_legacy_output_shapes(self):
        return self._shape

    def _to_legacy_output_classes(self):
        return ops.Tensor


# As TF: a tensor's (and an array's) spec leaves out its name.
type_spec.register_type_spec_from_value_converter(
    ops.Tensor, lambda tensor: TensorSpec(tensor.shape, tensor.dtype)
)
type_spec.register_type_spec_from_value_converter(
    np.ndarray, lambda array: TensorSpec(array.shape, array.dtype)
)
