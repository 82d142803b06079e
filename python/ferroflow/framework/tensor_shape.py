"""Static tensor shapes: TF-1.x `Dimension` and `TensorShape`.

These follow TensorFlow's v1 shape behaviour (`tf.compat.v1.disable_v2_tensorshape()`):
indexing and iterating a `TensorShape` yields `Dimension` objects, and `str`
shows unknown dimensions as `?`, e.g. `(2, ?)`. Comparisons with an unknown
`Dimension` return None, as in TensorFlow.

`_to_native` and `_from_native` convert to and from the plain form the Rust
core uses: None for unknown rank, else a list of `int | None`.
"""

from __future__ import annotations

import functools
import operator

from .._compat import zip_strict
from ..protos import TensorShapeProto

__all__ = [
    "Dimension",
    "TensorShape",
    "as_dimension",
    "as_shape",
    "dimension_at_index",
    "dimension_value",
    "matrix",
    "scalar",
    "unknown_shape",
    "vector",
]


def dimension_value(dimension):
    """Return the value of `dimension` (an int or None), whether a `Dimension` or not.

    Args:
        dimension: A `Dimension`, an int, or None.

    Returns:
        `dimension.value` for a `Dimension`, else `dimension` itself.
    """
    if isinstance(dimension, Dimension):
        return dimension.value
    return dimension


def dimension_at_index(shape, index) -> Dimension:
    """Return the dimension of `shape` at `index`, `Dimension(None)` if the rank is unknown.

    Args:
        shape: A `TensorShape`.
        index: An int index.

    Returns:
        A `Dimension`.
    """
    assert isinstance(shape, TensorShape)
    dims = shape.dims
    if dims is None:
        return Dimension(None)
    return dims[index]


class Dimension:
    """The size of one dimension of a `TensorShape`, possibly unknown (None).

    Arithmetic with ints or other `Dimension`s gives a `Dimension`, unknown if
    either side is unknown. Comparisons return None when either side is unknown.
    """

    __slots__ = ("_value",)
    _value: int | None

    def __init__(self, value):
        """Create a `Dimension` of the given value.

        Args:
            value: A non-negative int, None (unknown), a `Dimension`, or an
                object with `__index__`.

        Raises:
            TypeError: If `value` is not an int, None, or index-like.
            ValueError: If `value` is negative.
        """
        if isinstance(value, int):
            if value < 0:
                raise ValueError(f"Dimension {value:d} must be >= 0")
            self._value = value
        elif value is None:
            self._value = None
        elif isinstance(value, Dimension):
            self._value = value._value
        else:
            try:
                self._value = int(value.__index__())
            except AttributeError:
                raise TypeError(
                    "Dimension value must be integer or None or have "
                    f"an __index__ method, got value '{value!r}' with type '{type(value)!r}'"
                ) from None
            if self._value < 0:
                raise ValueError(f"Dimension {self._value:d} must be >= 0")

    def __repr__(self) -> str:
        return f"Dimension({self._value!r})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)

    def __eq__(self, other):
        """Whether the values are equal; None if either is unknown."""
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other):
        """Whether the values differ; None if either is unknown."""
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value != other.value

    # TensorFlow's Dimension defines __eq__ without __hash__, so it is unhashable.
    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        return bool(self._value)

    def __int__(self) -> int:
        return self._value  # type: ignore[return-value]

    def __index__(self) -> int:
        return self._value  # type: ignore[return-value]

    @property
    def value(self) -> int | None:
        """The value of this dimension, or None if it is unknown."""
        return self._value

    def is_compatible_with(self, other) -> bool:
        """Whether this dimension and `other` could be the same size.

        Args:
            other: A `Dimension` or a value `Dimension()` accepts.

        Returns:
            True if either is unknown or both have the same value.
        """
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other) -> None:
        """Raise if this dimension and `other` are not compatible.

        Args:
            other: A `Dimension` or a value `Dimension()` accepts.

        Raises:
            ValueError: If they are not compatible.
        """
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other) -> Dimension:
        """Return a `Dimension` that combines the information in this one and `other`.

        Args:
            other: A `Dimension` or a value `Dimension()` accepts.

        Returns:
            The known value of either, or an unknown `Dimension` if both are unknown.

        Raises:
            ValueError: If they are not compatible.
        """
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        if self._value is None:
            return Dimension(other.value)
        return Dimension(self._value)

    def _binary(self, other, fn, reflected=False):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return Dimension(None)
        if reflected:
            return Dimension(fn(other.value, self._value))
        return Dimension(fn(self._value, other.value))

    def __add__(self, other):
        return self._binary(other, operator.add)

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self._binary(other, operator.sub)

    def __rsub__(self, other):
        other = as_dimension(other)
        return self._binary(other, operator.sub, reflected=True)

    def __mul__(self, other):
        return self._binary(other, operator.mul)

    def __rmul__(self, other):
        return self * other

    def __floordiv__(self, other):
        return self._binary(other, operator.floordiv)

    def __rfloordiv__(self, other):
        other = as_dimension(other)
        return self._binary(other, operator.floordiv, reflected=True)

    def __truediv__(self, other):
        raise TypeError(
            f"unsupported operand type(s) for /: 'Dimension' and '{type(other).__name__}', "
            "please use // instead"
        )

    def __rtruediv__(self, other):
        raise TypeError(
            f"unsupported operand type(s) for /: '{type(other).__name__}' and 'Dimension', "
            "please use // instead"
        )

    def __mod__(self, other):
        other = as_dimension(other)
        return self._binary(other, operator.mod)

    def __rmod__(self, other):
        other = as_dimension(other)
        return other % self

    def _compare(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return None
        return fn(self._value, other.value)

    def __lt__(self, other):
        return self._compare(other, operator.lt)

    def __le__(self, other):
        return self._compare(other, operator.le)

    def __gt__(self, other):
        return self._compare(other, operator.gt)

    def __ge__(self, other):
        return self._compare(other, operator.ge)

    def __reduce__(self):
        return Dimension, (self._value,)


def as_dimension(value) -> Dimension:
    """Convert `value` to a `Dimension` (returned unchanged if it is one).

    Args:
        value: A `Dimension`, an int, None, or an object with `__index__`.

    Returns:
        A `Dimension`.
    """
    if isinstance(value, Dimension):
        return value
    return Dimension(value)


class TensorShape:
    """The static shape of a `Tensor`: unknown rank, or a list of possibly unknown dimensions.

    With TF-1.x semantics, `shape[i]` and iteration give `Dimension` objects,
    `str` gives e.g. `(2, ?)` (`<unknown>` when the rank is unknown), and
    `repr` gives `TensorShape([Dimension(2), Dimension(None)])`.
    """

    __slots__ = ("_dims",)
    _dims: tuple[int | None, ...] | None

    def __init__(self, dims):
        """Create a `TensorShape` with the given dimensions.

        Args:
            dims: None (unknown rank), an iterable of dimensions (ints, None or
                `Dimension`s), a `TensorShape`, or a single dimension value.

        Raises:
            TypeError: If a dimension cannot be converted to a `Dimension`.
            ValueError: If a dimension is negative.
        """
        if isinstance(dims, (tuple, list)):
            self._dims = tuple(as_dimension(d).value for d in dims)
        elif dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        else:
            try:
                dims_iter = iter(dims)
            except TypeError:
                self._dims = (as_dimension(dims).value,)
            else:
                values = []
                for d in dims_iter:
                    try:
                        values.append(as_dimension(d).value)
                    except TypeError as e:
                        raise TypeError(
                            f"Failed to convert '{dims!r}' to a shape: '{d!r}'"
                            "could not be converted to a dimension. A shape should "
                            "either be single dimension (e.g. 10), or an iterable of "
                            "dimensions (e.g. [1, 10, None])."
                        ) from e
                self._dims = tuple(values)

    def __repr__(self) -> str:
        return f"TensorShape({self.dims})"

    def __str__(self) -> str:
        dims = self.dims
        if dims is None:
            return "<unknown>"
        if len(dims) == 1:
            return f"({dims[0]},)"
        return "({})".format(", ".join(str(d) for d in dims))

    @property
    def rank(self) -> int | None:
        """The rank of this shape, or None if it is unknown."""
        if self._dims is not None:
            return len(self._dims)
        return None

    @property
    def dims(self) -> list[Dimension] | None:
        """The dimensions as a new list of `Dimension`s, or None if the rank is unknown."""
        if self._dims is None:
            return None
        return [as_dimension(d) for d in self._dims]

    @property
    def ndims(self) -> int | None:
        """The rank of this shape, or None if it is unknown (TF-1.x name for `rank`)."""
        return self.rank

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __iter__(self):
        dims = self.dims
        if dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(dims)

    def __getitem__(self, key):
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            return [as_dimension(d) for d in self._dims][key]  # a list's IndexError, as TF
        if isinstance(key, slice):
            start = key.start if key.start is not None else 0
            stop = key.stop
            if key.step is not None:
                raise ValueError("Steps are not yet handled")
            if stop is None or start < 0 or stop < 0:
                return unknown_shape()
            return unknown_shape(rank=stop - start)
        return Dimension(None)

    def num_elements(self) -> int | None:
        """Return the number of elements of a fully defined shape, else None."""
        if self.is_fully_defined():
            return functools.reduce(operator.mul, self.as_list(), 1)
        return None

    def merge_with(self, other) -> TensorShape:
        """Return a shape that combines the information in this shape and `other`.

        Args:
            other: A `TensorShape` or a value `TensorShape()` accepts.

        Returns:
            A shape as specific as both; `other` itself if this rank is unknown.

        Raises:
            ValueError: If the shapes are not compatible.
        """
        other = as_shape(other)
        if self.dims is None:
            return other
        if other.dims is None:
            return self
        try:
            self.assert_same_rank(other)
            new_dims = [dim.merge_with(o) for dim, o in zip_strict(self.dims, other.dims)]
            return TensorShape(new_dims)
        except ValueError:
            raise ValueError(f"Shapes {self} and {other} are not compatible") from None

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        if not isinstance(other, TensorShape):
            other = TensorShape(other)
        return other.concatenate(self)

    def concatenate(self, other) -> TensorShape:
        """Return this shape followed by the dimensions of `other`.

        Args:
            other: A `TensorShape` or a value `TensorShape()` accepts.

        Returns:
            The concatenated shape; unknown rank if either rank is unknown.
        """
        other = as_shape(other)
        if self.dims is None or other.dims is None:
            return unknown_shape()
        return TensorShape(self.dims + other.dims)

    def assert_same_rank(self, other) -> None:
        """Raise if this shape and `other` both have known, different ranks.

        Args:
            other: A `TensorShape` or a value `TensorShape()` accepts.

        Raises:
            ValueError: If the ranks differ.
        """
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank) -> None:
        """Raise if this shape has a known rank other than `rank`.

        Args:
            rank: An int.

        Raises:
            ValueError: If the rank is known and differs from `rank`.
        """
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank:d}")

    def with_rank(self, rank) -> TensorShape:
        """Return this shape merged with an unknown shape of rank `rank`.

        Args:
            rank: An int.

        Returns:
            A shape of rank `rank`, as specific as this one.

        Raises:
            ValueError: If this shape has a known rank other than `rank`.
        """
        try:
            return self.merge_with(unknown_shape(rank=rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank:d}") from None

    def with_rank_at_least(self, rank) -> TensorShape:
        """Return this shape, checking that its rank is at least `rank`.

        Args:
            rank: An int.

        Returns:
            This shape.

        Raises:
            ValueError: If the rank is known and less than `rank`.
        """
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank:d}")
        return self

    def with_rank_at_most(self, rank) -> TensorShape:
        """Return this shape, checking that its rank is at most `rank`.

        Args:
            rank: An int.

        Returns:
            This shape.

        Raises:
            ValueError: If the rank is known and greater than `rank`.
        """
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank:d}")
        return self

    def is_compatible_with(self, other) -> bool:
        """Whether this shape and `other` could describe the same tensor.

        Args:
            other: A `TensorShape` or a value `TensorShape()` accepts.

        Returns:
            True if either rank is unknown, or the ranks match and each pair of
            dimensions is compatible.
        """
        other = as_shape(other)
        if self._dims is not None and other._dims is not None:
            if self.rank != other.rank:
                return False
            for x, y in zip_strict(self._dims, other._dims):
                if x is not None and y is not None and x != y:
                    return False
        return True

    def assert_is_compatible_with(self, other) -> None:
        """Raise if this shape and `other` are not compatible.

        Args:
            other: A `TensorShape` or a value `TensorShape()` accepts.

        Raises:
            ValueError: If they are not compatible.
        """
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def most_specific_compatible_shape(self, other) -> TensorShape:
        """Return the most specific shape compatible with both this shape and `other`.

        Args:
            other: A `TensorShape` or a value `TensorShape()` accepts.

        Returns:
            Unknown rank if the ranks differ or either is unknown; otherwise each
            dimension is kept where both agree and unknown elsewhere.
        """
        other = as_shape(other)
        if self._dims is None or other._dims is None or self.rank != other.rank:
            return unknown_shape()
        dims = [
            d1 if d1 is not None and d2 is not None and d1 == d2 else None
            for d1, d2 in zip_strict(self._dims, other._dims)
        ]
        return TensorShape(dims)

    def is_fully_defined(self) -> bool:
        """Whether the rank and every dimension are known."""
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self) -> None:
        """Raise if this shape is not fully defined.

        Raises:
            ValueError: If the rank or a dimension is unknown.
        """
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def as_proto(self):
        """The shape as a `TensorShapeProto` (`-1` for unknown dimensions)."""
        if self._dims is None:
            return TensorShapeProto(unknown_rank=True)
        return TensorShapeProto(
            dim=[TensorShapeProto.Dim(size=-1 if d is None else d) for d in self.as_list()]
        )

    def as_list(self) -> list[int | None]:
        """Return the dimensions as a list of `int | None`.

        Raises:
            ValueError: If the rank is unknown.
        """
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def __eq__(self, other):
        """Whether the dimensions (ints or None) are identical; unknown equals unknown."""
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __reduce__(self):
        return TensorShape, (self.dims,)

    def __concat__(self, other):
        return self.concatenate(other)


def as_shape(shape) -> TensorShape:
    """Convert `shape` to a `TensorShape` (returned unchanged if it is one).

    Args:
        shape: A `TensorShape` or a value `TensorShape()` accepts.

    Returns:
        A `TensorShape`.
    """
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


def unknown_shape(rank=None, **kwargs) -> TensorShape:
    """Return a shape of unknown rank, or of known rank `rank` with unknown dimensions.

    Args:
        rank: The rank, or None for unknown rank.
        **kwargs: Only `ndims`, the deprecated name of `rank`.

    Returns:
        A `TensorShape`.

    Raises:
        TypeError: On any other keyword argument.
    """
    if rank is None and "ndims" in kwargs:
        rank = kwargs.pop("ndims")
    if kwargs:
        raise TypeError(f"Unknown argument: {kwargs}")
    if rank is None:
        return TensorShape(None)
    return TensorShape([Dimension(None)] * rank)


def scalar() -> TensorShape:
    """Return the shape of a scalar, `TensorShape([])`."""
    return TensorShape([])


def vector(length) -> TensorShape:
    """Return the shape of a vector of `length` elements (None if unknown)."""
    return TensorShape([length])


def matrix(rows, cols) -> TensorShape:
    """Return the shape of a `rows` x `cols` matrix (either may be None)."""
    return TensorShape([rows, cols])


def _to_native(shape) -> list[int | None] | None:
    """Convert `shape` to the Rust core's form: None for unknown rank, else `int | None` list."""
    shape = as_shape(shape)
    if shape._dims is None:
        return None
    return list(shape._dims)


def _from_native(obj) -> TensorShape:
    """Convert the Rust core's form (None, or a list of `int | None`) to a `TensorShape`."""
    if obj is None:
        return TensorShape(None)
    return TensorShape(list(obj))
