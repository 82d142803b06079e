"""Array ops: placeholders, identity, shapes, reshapes, fills, casts, stacking, masks."""

from __future__ import annotations

import builtins
import math

import numpy as np

from ..framework import constant_op, dtypes, ops, tensor_shape
from ._op_util import convert_same_type, make_op, unary


def placeholder(dtype, shape=None, name=None):
    """A tensor whose value must be fed to `Session.run`.

    Args:
        dtype: The element type.
        shape: Static shape; `None` (any shape) or with `None` dimensions.
        name: Name of the op.

    Returns:
        A `Tensor`; running a plan that needs it without a feed raises
        `InvalidArgumentError`.
    """
    dtype = dtypes.as_dtype(dtype)
    shape = tensor_shape.as_shape(shape) if shape is not None else tensor_shape.unknown_shape()
    return (
        ops.get_default_graph()
        ._create_op("Placeholder", [], {"dtype": dtype, "shape": shape}, name=name or "Placeholder")
        .outputs[0]
    )


def placeholder_with_default(input, shape, name=None):
    """A placeholder that yields `input` when it is not fed."""
    with ops.name_scope(name, "PlaceholderWithDefault", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        attrs = {"shape": tensor_shape.as_shape(shape), "dtype": input.dtype.base_dtype}
        return make_op("PlaceholderWithDefault", [input], attrs, scope=scope).outputs[0]


def identity(input, name=None):
    """A tensor with the same value as `input` (a variable's current value for a variable)."""
    return unary("Identity", input, name)


def identity_n(input, name=None):
    """Each of the tensors in `input` passed on unchanged, as one `IdentityN` op.

    Args:
        input: A list of tensors (of any types).
        name: Name of the op.

    Returns:
        A list of tensors, one per input.
    """
    with ops.name_scope(name, "IdentityN", list(input)) as scope:
        tensors = [ops.convert_to_tensor(t) for t in input]
        return list(make_op("IdentityN", tensors, scope=scope).outputs)


def _int_vector(values, name, dtype=dtypes.int32):
    if (
        isinstance(values, ops.Tensor)
        or hasattr(values, "_as_graph_element")
        or _nested_tensor_dtype(values) is not None
    ):
        return ops.convert_to_tensor(values, name=name)
    if isinstance(values, tensor_shape.TensorShape):
        values = values.as_list()
    values = constant_op.dimensions_as_ints(values)
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu" and arr.size:
        raise TypeError(f"Expected int32 for argument '{name}', got {values!r}.")
    # As TF's conversion of a Python list: int32 unless a value does not fit, then
    # int64 (never a silent wrap: `fill([2**32 + 3], 1.)` has 2**32 + 3 elements).
    fits32 = arr.size == 0 or (
        arr.min() >= np.iinfo(np.int32).min and arr.max() <= np.iinfo(np.int32).max
    )
    wide = dtype == dtypes.int64 or not fits32
    if arr.size and (arr.min() < np.iinfo(np.int64).min or arr.max() > np.iinfo(np.int64).max):
        raise ValueError(f"Argument '{name}' has a value that does not fit in int64: {values!r}")
    return constant_op.constant(arr.astype(np.int64 if wide else np.int32), name=name)


def reshape(tensor, shape, name=None):
    """`tensor`'s elements in a new shape; one dimension may be -1."""
    with ops.name_scope(name, "Reshape", [tensor, shape]) as scope:
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        shape = _int_vector(shape, "shape")
        return make_op("Reshape", [tensor, shape], scope=scope).outputs[0]


def fill(dims, value, name=None):
    """A tensor of shape `dims` filled with the scalar `value`."""
    with ops.name_scope(name, "Fill", [dims, value]) as scope:
        dims = _int_vector(dims, "dims")
        value = ops.convert_to_tensor(value, name="value")
        return make_op("Fill", [dims, value], scope=scope).outputs[0]


# TF's `_constant_if_small`: below this many elements `zeros`/`ones` is one constant;
# from it on a `Fill` of a scalar, so a GraphDef never holds a large constant.
_SMALL_CONSTANT_ELEMENTS = 1000


def _filled(value, shape, dtype, name):
    dtype = dtypes.as_dtype(dtype).base_dtype
    fill_value = b"" if dtype == dtypes.string else value
    is_tensor = isinstance(shape, ops.Tensor) or hasattr(shape, "_as_graph_element")
    if not is_tensor:
        listed = tensor_shape.as_shape(shape).as_list()
        dims = [d for d in listed if d is not None]
        if len(dims) != len(listed):  # TF's error for a None in a shape
            raise TypeError("Expected int32, but got None of type 'NoneType'.")
        if math.prod(dims) < _SMALL_CONSTANT_ELEMENTS:
            return constant_op.constant(
                np.full(dims, fill_value, dtype=dtype.as_numpy_dtype), name=name
            )
    with ops.name_scope(name, "zeros" if value == 0 else "ones", [shape]) as scope:
        if not is_tensor:
            shape = _int_vector(dims, "shape_as_tensor")
        scalar = constant_op.constant(fill_value, dtype=dtype, name="Const")
        return make_op("Fill", [shape, scalar], scope=scope).outputs[0]


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros."""
    return _filled(0, shape, dtype, name or "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones."""
    return _filled(1, shape, dtype, name or "ones")


def _like(op_type, default, tensor, dtype, name, optimize):
    with ops.name_scope(name, default, [tensor]) as scope:
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        if dtype is not None and dtypes.as_dtype(dtype) != tensor.dtype.base_dtype:
            value = 0 if op_type == "ZerosLike" else 1
            if optimize and tensor.shape.is_fully_defined():
                return _filled(value, tensor.shape, dtype, scope[:-1] + "/")
            return fill(shape(tensor), constant_op.constant(value, dtype=dtype), name=scope)
        return make_op(op_type, [tensor], scope=scope).outputs[0]


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros with the shape (and, unless `dtype` is given, the type) of `tensor`."""
    return _like("ZerosLike", "zeros_like", tensor, dtype, name, optimize)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones with the shape (and, unless `dtype` is given, the type) of `tensor`."""
    return _like("OnesLike", "ones_like", tensor, dtype, name, optimize)


def _sparse_types():
    from ..framework.sparse_tensor import SparseTensor, SparseTensorValue

    return (SparseTensor, SparseTensorValue)


def shape(input, name=None, out_type=dtypes.int32):
    """The shape of `input` as a 1-D int tensor.

    A fully defined static shape gives a constant, as TF's `shape` (`optimize=True`);
    a `SparseTensor`'s is its `dense_shape`.
    """
    with ops.name_scope(name, "Shape", [input]) as scope:
        if isinstance(input, _sparse_types()):
            return cast(input.dense_shape, out_type)
        input = ops.convert_to_tensor(input, name="input")
        out_type = dtypes.as_dtype(out_type)
        if input.shape.is_fully_defined():
            return constant_op.constant(input.shape.as_list(), out_type, name=scope)
        return make_op("Shape", [input], {"out_type": out_type}, scope=scope).outputs[0]


def size(input, name=None, out_type=dtypes.int32):
    """The number of elements of `input`.

    Known while building (a fully defined shape, or a zero dimension), a constant as
    TF's `size` (`optimize=True`).
    """
    with ops.name_scope(name, "Size", [input]) as scope:
        if isinstance(input, _sparse_types()):
            from . import math_ops  # math_ops builds on array_ops

            return math_ops.reduce_prod(cast(input.dense_shape, out_type), 0, name=scope)
        input = ops.convert_to_tensor(input, name="input")
        out_type = dtypes.as_dtype(out_type)
        static = input.shape
        if static.is_fully_defined():
            return constant_op.constant(static.num_elements(), out_type, name=scope)
        if static.ndims is not None and any(d == 0 for d in static.as_list()):
            return constant_op.constant(0, out_type, name=scope)
        return make_op("Size", [input], {"out_type": out_type}, scope=scope).outputs[0]


def rank(input, name=None):
    """The rank of `input`; a constant when the static rank is known, as TF's."""
    with ops.name_scope(name, "Rank", [input]) as scope:
        if isinstance(input, _sparse_types()):
            return size(input.dense_shape, name=scope)
        input = ops.convert_to_tensor(input, name="input")
        if input.shape.ndims is not None:
            return constant_op.constant(input.shape.ndims, dtypes.int32, name=scope)
        return make_op("Rank", [input], scope=scope).outputs[0]


def stack(values, axis=0, name="stack"):
    """Stacks same-shaped tensors along a new axis (TF's `Pack`).

    Along axis 0 a list converts as `convert_to_tensor` converts it, as in TF: one
    constant when it holds only Python or numpy values, TF's autopacking when it
    holds tensors.
    """
    if axis == 0:
        try:
            return ops.convert_to_tensor(values, name=name)
        except (TypeError, ValueError, NotImplementedError):
            pass  # values that convert one by one (variables) or do not agree
    if not values:
        raise ValueError("stack requires at least one value")
    # TF converts the first value on its own (a constant of that name when it is a
    # Python value) to check `axis` against its rank.
    rank = ops.convert_to_tensor(values[0], name=name).shape.ndims
    if rank is not None and not -(rank + 1) <= axis < rank + 1:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-(rank + 1)}, {rank + 1})")
    with ops.name_scope(name) as scope:
        values = convert_same_type(list(values), [f"values_{i}" for i in range(len(values))])
        return make_op("Pack", values, {"axis": int(axis)}, scope=scope).outputs[0]


def squeeze(input, axis=None, name=None, squeeze_dims=None):
    """Removes size-1 dimensions (all of them, or those listed in `axis`)."""
    axis = squeeze_dims if axis is None else axis
    if isinstance(axis, int):
        axis = [axis]
    with ops.name_scope(name, "Squeeze", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        return make_op(
            "Squeeze", [input], {"squeeze_dims": [int(a) for a in axis or []]}, scope=scope
        ).outputs[0]


def gather(params, indices, validate_indices=None, name=None, axis=0):
    """Slices of `params` along `axis` at `indices`."""
    with ops.name_scope(name, "GatherV2", [params, indices]) as scope:
        params = ops.convert_to_tensor(params, name="params")
        indices = ops.convert_to_tensor(indices, name="indices")
        axis = ops.convert_to_tensor(axis, dtype=dtypes.int32, name="axis")
        return make_op("GatherV2", [params, indices, axis], scope=scope).outputs[0]


class UniqueResult(builtins.tuple):
    """`(y, idx)` of `unique`, also readable by name."""

    __slots__ = ()

    @property
    def y(self):
        """The distinct values, in order of first appearance."""
        return self[0]

    @property
    def idx(self):
        """For each input element, the position of its value in `y`."""
        return self[1]


def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct elements of 1-D `x` and, per element, its index among them."""
    with ops.name_scope(name, "Unique", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        op = make_op("Unique", [x], {"out_idx": dtypes.as_dtype(out_idx)}, scope=scope)
        return UniqueResult(op.outputs)


class SetDiff1DResult(builtins.tuple):
    """`(out, idx)` of `setdiff1d`, also readable by name."""

    __slots__ = ()

    @property
    def out(self):
        """The elements of `x` not in `y`."""
        return self[0]

    @property
    def idx(self):
        """Their positions in `x`."""
        return self[1]


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """The elements of 1-D `x` that are not in `y`, in order, and their indices in `x`."""
    with ops.name_scope(name, "ListDiff", [x, y]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        attrs = {"out_idx": dtypes.as_dtype(index_dtype)}
        op = make_op("ListDiff", [x, y], attrs, scope=scope)
        return SetDiff1DResult(op.outputs)


def where(condition, x=None, y=None, name=None):
    """`x` where `condition` else `y`; with only `condition`, its true coordinates.

    With `x` and `y`, the three broadcast together (TF's `SelectV2`); with neither,
    the result is the int64 `[n, rank]` coordinates of the true elements.
    """
    if (x is None) != (y is None):
        raise ValueError("x and y must both be non-None or both be None.")
    if x is not None:
        return select(condition, x, y, name=name)
    with ops.name_scope(name, "Where", [condition]) as scope:
        condition = ops.convert_to_tensor(condition, dtype=dtypes.bool, name="condition")
        return make_op("Where", [condition], scope=scope).outputs[0]


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements of `tensor` (along its first dimension) where the 1-D `mask` is true."""
    if axis not in (None, 0):
        raise NotImplementedError("boolean_mask supports axis=0")
    with ops.name_scope(name, values=[tensor, mask]):
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        mask = ops.convert_to_tensor(mask, dtype=dtypes.bool, name="mask")
        if mask.shape.ndims is not None and mask.shape.ndims != 1:
            raise ValueError("boolean_mask supports a 1-D mask")
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=0)


def cast(x, dtype, name=None):
    """`x` converted to `dtype` (C++ `static_cast` semantics; bools become 0/1)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, ops.Tensor) and x.dtype.base_dtype == dtype:
        return x  # as TF: no name scope is opened (so no `Cast` name is taken)
    with ops.name_scope(name, "Cast", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.base_dtype == dtype:
            return x
        return make_op("Cast", [x], {"DstT": dtype}, scope=scope).outputs[0]


def to_float(x, name="ToFloat"):
    """`cast(x, float32)`."""
    return cast(x, dtypes.float32, name=name)


def to_bfloat16(x, name="ToBFloat16"):
    """`cast(x, bfloat16)`."""
    return cast(x, dtypes.bfloat16, name=name)


def to_double(x, name="ToDouble"):
    """`cast(x, float64)`."""
    return cast(x, dtypes.float64, name=name)


def to_int32(x, name="ToInt32"):
    """`cast(x, int32)`."""
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    """`cast(x, int64)`."""
    return cast(x, dtypes.int64, name=name)


def where_v2(condition, x=None, y=None, name=None):
    """TF's `tf.where_v2`: `where` whose op is named `SelectV2` (or `Where`) as TF's.

    With `x` and `y`, the three broadcast together; with neither, the int64
    coordinates of the true elements of `condition`.
    """
    if (x is None) != (y is None):
        raise ValueError("x and y must both be non-None or both be None.")
    if x is None:
        return where(condition, name=name)
    return select(condition, x, y, name=name, _default_name="SelectV2", _rows=False)


def select(condition, x, y, name=None, _default_name="Select", _rows=True):
    """`x` where `condition`, else `y` (TF-1.x's `tf.where`/`tf.select`: `Select`).

    As TF-1.x's `Select`, a vector `condition` for `x` of higher rank picks whole
    rows: `condition[i]` chooses `x[i]` or `y[i]` (`tf.where_v2` broadcasts it
    against the last dimension instead). Otherwise the three broadcast together.
    """
    with ops.name_scope(name, _default_name, [condition, x, y]) as scope:
        c = ops.convert_to_tensor(condition, dtype=dtypes.bool, name="condition")
        x, y = convert_same_type([x, y], ["t", "e"])
        x_rank = x.shape.ndims if x.shape.ndims is not None else y.shape.ndims
        if _rows and c.shape.ndims == 1 and x_rank is None:
            # [n] + ones(rank(x) - 1): rows, whatever x's rank turns out to be.
            from . import math_ops

            trailing = math_ops.subtract(rank(x), 1)
            c = reshape(c, concat([shape(c), ones(expand_dims(trailing, 0), dtypes.int32)], 0))
        elif _rows and c.shape.ndims == 1 and x_rank is not None and x_rank > 1:
            c = reshape(c, [-1] + [1] * (x_rank - 1))
        return make_op("SelectV2", [c, x, y], scope=scope).outputs[0]


def stop_gradient(input, name=None):
    """`input`, with no gradient flowing through it."""
    return unary("StopGradient", input, name)


def prevent_gradient(input, message="", name=None):
    """`input`, through an op whose gradient raises `LookupError` (with `message`)."""
    with ops.name_scope(name, "PreventGradient", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        return make_op("PreventGradient", [input], {"message": message}, scope=scope).outputs[0]


@ops.RegisterGradient("PreventGradient")
def _prevent_gradient_grad(op, _):
    """TF's: a gradient through `prevent_gradient` is an error."""
    message = op.get_attr("message")
    if isinstance(message, bytes):
        message = message.decode(errors="replace")
    raise LookupError(f"Gradient explicitly disabled. Reason: {message}")


def concat(values, axis, name="concat"):
    """Concatenates tensors along `axis`."""
    values = list(values)
    if len(values) == 1:
        with ops.name_scope(name) as scope:
            return identity(values[0], name=scope)
    with ops.name_scope(name) as scope:
        tensors = convert_same_type(values, [f"values_{i}" for i in range(len(values))])
        a = ops.convert_to_tensor(axis, dtype=dtypes.int32, name="axis")
        return make_op("ConcatV2", [*tensors, a], scope=scope).outputs[0]


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permutes dimensions; by default reverses them."""
    with ops.name_scope(name, "transpose", [a]) as scope:
        a = ops.convert_to_tensor(a, name="a")
        if perm is None:
            if a.shape.ndims is None:
                perm = _reversed_axes(rank(a))
            else:
                perm = list(range(a.shape.ndims))[::-1]
        perm = _int_vector(perm, "perm")
        return make_op("Transpose", [a, perm], scope=scope).outputs[0]


def _reversed_axes(r):
    """`[r - 1, ..., 1, 0]` for a rank tensor `r` (`transpose` of unknown rank).

    One `Range(r - 1, -1, -1)` made here, as TF's array_ops makes its `Range`, so
    this module needs nothing from math_ops (which imports it).
    """
    with ops.name_scope(None, "range", [r]) as scope:
        minus_one = constant_op.constant(-1, name="delta")
        start = make_op("AddV2", [r, minus_one], name="start").outputs[0]
        return make_op("Range", [start, minus_one, minus_one], scope=scope).outputs[0]


def expand_dims(input, axis=None, name=None, dim=None):
    """Inserts a size-1 dimension at `axis`."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    with ops.name_scope(name, "ExpandDims", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        a = ops.convert_to_tensor(axis, dtype=dtypes.int32, name="dim")
        return make_op("ExpandDims", [input, a], scope=scope).outputs[0]


def unstack(value, num=None, axis=0, name="unstack"):
    """Splits `value` along `axis` into a list of tensors."""
    with ops.name_scope(name) as scope:
        value = ops.convert_to_tensor(value, name="value")
        attrs = {"axis": int(axis)}
        if num is not None:
            attrs["num"] = int(num)
        op = make_op("Unpack", [value], attrs, scope=scope)
        return op.outputs


def slice(input_, begin, size, name=None):
    """The block of `input_` starting at `begin` with extent `size` (-1: to the end)."""
    with ops.name_scope(name, "Slice", [input_, begin, size]) as scope:
        x = ops.convert_to_tensor(input_, name="input")
        b = _int_vector(begin, "begin")
        s = _int_vector(size, "size")
        return make_op("Slice", [x, b, s], scope=scope).outputs[0]


def broadcast_to(input, shape, name=None):
    """`input` broadcast (numpy rules) to `shape`."""
    with ops.name_scope(name, "BroadcastTo", [input, shape]) as scope:
        x = ops.convert_to_tensor(input, name="input")
        s = _int_vector(shape, "shape")
        return make_op("BroadcastTo", [x, s], scope=scope).outputs[0]


def _nested_tensor_dtype(value):
    """The dtype of the first tensor in a nested list or tuple, or None."""
    if not isinstance(value, (list, tuple)):
        return None
    for elem in value:
        if isinstance(elem, ops.Tensor):
            return elem.dtype.base_dtype
        found = _nested_tensor_dtype(elem)
        if found is not None:
            return found
    return None


def _autopacking_helper(values, dtype, name):
    """A nested list holding tensors as one tensor (TF's autopacking).

    TF's `Pack` of its elements, with Python values as constants named by position.
    """
    must_pack = False
    converted = []
    with ops.name_scope(name) as scope:
        for i, elem in enumerate(values):
            if isinstance(elem, ops.Tensor):
                if elem.dtype.base_dtype != dtype:
                    raise TypeError(
                        f"Cannot convert a list containing a tensor of dtype {elem.dtype} to "
                        f"{dtype} (Tensor is: {elem!r})"
                    )
                must_pack = True
            elif isinstance(elem, (list, tuple)):
                elem = _autopacking_helper(elem, dtype, str(i))
                must_pack = must_pack or isinstance(elem, ops.Tensor)
            converted.append(elem)
        if not must_pack:
            return converted
        tensors = [
            e if isinstance(e, ops.Tensor) else constant_op.constant(e, dtype=dtype, name=str(i))
            for i, e in enumerate(converted)
        ]
        return make_op("Pack", tensors, {"axis": 0}, scope=scope).outputs[0]


def _cast_nested_tensors(value, dtype):
    if isinstance(value, ops.Tensor):
        return value if value.dtype.base_dtype == dtype else cast(value, dtype)
    if isinstance(value, (list, tuple)):
        return [_cast_nested_tensors(v, dtype) for v in value]
    return value


def _autopacking_conversion_function(value, dtype=None, name=None, as_ref=False):
    """Converts a (nested) list or tuple that holds tensors by packing, as TF does."""
    inferred = None if as_ref else _nested_tensor_dtype(value)
    if inferred is None:
        return NotImplemented
    if dtype is None:
        dtype = inferred
    elif dtype != inferred:
        value = _cast_nested_tensors(value, dtype)
    return _autopacking_helper(value, dtype, name or "packed")


# Before constant_op's conversion of lists (priority 100), as in TF.
ops.register_tensor_conversion_function((list, tuple), _autopacking_conversion_function, 99)


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """A mask of the first `lengths[i]` positions of each row (TF's `tf.sequence_mask`).

    `mask[i..., j] = j < lengths[i...]`, of shape `lengths.shape + [maxlen]`.

    Args:
        lengths: Integer tensor of lengths.
        maxlen: Scalar integer tensor, the mask's last dimension (default:
            `max(lengths)`, at least 0).
        dtype: The mask's dtype (default bool; others get 1 and 0).
        name: A name scope (default `SequenceMask`).

    Returns:
        The mask.

    Raises:
        ValueError: If `maxlen` is not a scalar.
    """
    from . import math_ops

    with ops.name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = ops.convert_to_tensor(lengths)
        if maxlen is None:
            maxlen = math_ops.reduce_max(lengths)
            maxlen = math_ops.maximum(constant_op.constant(0, maxlen.dtype), maxlen)
        else:
            maxlen = ops.convert_to_tensor(maxlen)
        if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
            raise ValueError("maxlen must be scalar for sequence_mask")
        zero = constant_op.constant(0, maxlen.dtype)
        one = constant_op.constant(1, maxlen.dtype)
        row_vector = math_ops.range(zero, maxlen, one)
        matrix = cast(expand_dims(lengths, -1), maxlen.dtype)
        result = math_ops.less(row_vector, matrix)
        if dtype is None or result.dtype.base_dtype == dtypes.as_dtype(dtype).base_dtype:
            return result
        return cast(result, dtype)


def reverse_sequence(
    input,
    seq_lengths,
    seq_axis=None,
    batch_axis=None,
    name=None,
    seq_dim=None,
    batch_dim=None,
):
    """Reverses variable-length slices (TF's `tf.reverse_sequence`, `ReverseSequence`).

    For each index `b` along `batch_axis`, the first `seq_lengths[b]` entries along
    `seq_axis` are reversed; the rest are copied.

    Args:
        input: The tensor to reverse.
        seq_lengths: An int32 or int64 vector with `input.dims[batch_axis]` lengths,
            each at most `input.dims[seq_axis]`.
        seq_axis: The dimension that is partially reversed.
        batch_axis: The dimension along which lengths are given (default 0).
        name: The op's name.
        seq_dim: Deprecated alias of `seq_axis`.
        batch_dim: Deprecated alias of `batch_axis`.

    Returns:
        A tensor of `input`'s shape and type.

    Raises:
        ValueError: If an axis is given under both of its names, or is out of range
            for a known rank.
        TypeError: If no sequence axis is given.
    """
    seq_axis = _deprecated_argument_lookup("seq_axis", seq_axis, "seq_dim", seq_dim)
    batch_axis = _deprecated_argument_lookup("batch_axis", batch_axis, "batch_dim", batch_dim)
    if seq_axis is None:
        raise TypeError("Expected int for argument 'seq_dim' not None.")
    with ops.name_scope(name, "ReverseSequence", [input, seq_lengths]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        seq_lengths = ops.convert_to_tensor(seq_lengths, name="seq_lengths")
        batch_axis = 0 if batch_axis is None else int(batch_axis)
        attrs = {"seq_dim": int(seq_axis), "batch_dim": batch_axis}
        return make_op("ReverseSequence", [input, seq_lengths], attrs, scope=scope).outputs[0]


def _deprecated_argument_lookup(new_name, new_value, old_name, old_value):
    """TF's `deprecation.deprecated_argument_lookup`: the value under either name."""
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'")
        return old_value
    return new_value


@ops.RegisterGradient("Select")
def _select_grad(op, grad):
    """TF's gradient of TF-1.0's `Select` (graphs TF wrote): the gradient where chosen."""
    c, x = op.inputs[0], op.inputs[1]
    zeros = zeros_like(x)
    return (
        None,
        make_op("Select", [c, grad, zeros]).outputs[0],
        make_op("Select", [c, zeros, grad]).outputs[0],
    )


def grad_pass_through(f):
    """Wraps `f` so that its gradient is the identity (TF's `tf.grad_pass_through`).

    The wrapped function computes `f(*args)`, but back-propagation passes the
    gradients of its results straight to its arguments, as if it were `identity`: for
    ops without a gradient (an assignment, a quantization) or to substitute a
    straight-through estimator. `f` must return as many tensors as it takes.
    Variables `f` reads get no gradient.

    ```python
    x = tf.Variable(1.0, name="x")
    z = tf.Variable(3.0, name="z")
    y = tf.grad_pass_through(x.assign)(z**2)  # 9.0, assigned to x
    grads = tf.gradients(y, z)  # [6.0]
    ```

    Args:
        f: The function to wrap, of tensors.

    Returns:
        A function of the same arguments (with `f`'s name and docstring).
    """
    import functools

    from .custom_gradient import custom_gradient

    @custom_gradient
    def _grad_pass_through_op(*args, **kwargs):
        def grad(*args, **kwargs):
            variables = kwargs.get("variables")
            if variables is not None:
                # The variables `f` involves get no gradient.
                return args, [None] * len(variables)
            return args

        return f(*args, **kwargs), grad

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return _grad_pass_through_op(*args, **kwargs)

    return wrapper
