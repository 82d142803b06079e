"""Ops over `SparseTensor`s (TF's `sparse_ops.py`) and their gradients (`sparse_grad.py`).

Every op runs a native kernel under TF's op type (`SparseToDense`, `SparseReorder`,
`SparseReshape`, `SparseConcat`, `SparseAdd`, `SparseReduceSum(Sparse)`,
`SparseTensorDenseMatMul`, `SparseFillEmptyRows`, `(De)Serialize(Many)Sparse`,
`SparseSegmentSum/Mean/SqrtN`); the Python here is TF's wrapper logic (static shapes,
argument conversion, names) and TF's gradient functions.
"""

from __future__ import annotations

import numpy as np

from .._compat import zip_strict
from ..framework import constant_op, dtypes, ops, tensor_shape, tensor_util
from ..framework.indexed_slices import IndexedSlices
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue
from . import array_ops, math_ops
from ._op_util import make_op


def _convert_to_sparse_tensor(sp_input):
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


def _convert_to_sparse_tensors(sp_inputs):
    if isinstance(sp_inputs, (list, tuple)):
        return [_convert_to_sparse_tensor(sp) for sp in sp_inputs]
    raise TypeError("Inputs must be a list or tuple.")


def _int_input(value, name, dtype=None):
    """An index-typed op input: a tensor keeps its type, a literal becomes `dtype`."""
    if isinstance(value, ops.Tensor):
        return value
    return ops.convert_to_tensor(value, dtype=dtype, name=name)


def sparse_to_dense(
    sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True, name=None
):
    """A dense tensor of `output_shape` with `sparse_values` at `sparse_indices`.

    Args:
        sparse_indices: 0-D, 1-D or 2-D int32/int64 coordinates (`[N, rank]`).
        output_shape: 1-D shape of the result (same int type as the indices).
        sparse_values: Scalar (for every index) or `[N]` values.
        default_value: Scalar value of the other elements.
        validate_indices: Check that indices are sorted and unique.
        name: Op name (default `SparseToDense`).

    Returns:
        The dense tensor, of `sparse_values`' dtype.
    """
    with ops.name_scope(name, "SparseToDense") as scope:
        sparse_indices = ops.convert_to_tensor(sparse_indices, name="sparse_indices")
        output_shape = _int_input(output_shape, "output_shape", sparse_indices.dtype)
        sparse_values = ops.convert_to_tensor(sparse_values, name="sparse_values")
        default_value = ops.convert_to_tensor(
            default_value, dtype=sparse_values.dtype, name="default_value"
        )
        return make_op(
            "SparseToDense",
            [sparse_indices, output_shape, sparse_values, default_value],
            {"validate_indices": bool(validate_indices)},
            scope=scope,
        ).outputs[0]


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor that `sp_input` represents (`default_value` elsewhere).

    Raises:
        TypeError: If `sp_input` is not sparse.
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    if default_value is None:
        default_value = array_ops.zeros([], dtype=sp_input.dtype)
    return sparse_to_dense(
        sp_input.indices,
        sp_input.dense_shape,
        sp_input.values,
        default_value=default_value,
        validate_indices=validate_indices,
        name=name,
    )


def sparse_reorder(sp_input, name=None):
    """`sp_input` with its entries in row-major (canonical) order."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    with ops.name_scope(name, "SparseReorder") as scope:
        op = make_op(
            "SparseReorder",
            [sp_input.indices, sp_input.values, sp_input.dense_shape],
            scope=scope,
        )
    ind, val = op.outputs
    if sp_input.get_shape().is_fully_defined():
        return SparseTensor(ind, val, sp_input.get_shape().as_list())
    out = SparseTensor(ind, val, array_ops.identity(sp_input.dense_shape))
    out.set_shape(sp_input.shape)
    return out


def sparse_reshape(sp_input, shape, name=None):
    """`sp_input` with dense shape `shape` (one dimension may be -1), row-major.

    Raises:
        ValueError: If the static shapes are known and the sizes differ.
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    shape = array_ops.cast(shape, dtype=dtypes.int64)
    with ops.name_scope(name, "SparseReshape", [sp_input]) as name:
        op = make_op("SparseReshape", [sp_input.indices, sp_input.dense_shape, shape], scope=name)
        reshaped_ind, reshaped_shape = op.outputs
        known = tensor_util.constant_value_as_shape(shape)
        known = known.as_list() if known.ndims is not None else None
        if known is not None and sp_input.shape.is_fully_defined():
            by_user = tensor_util.constant_value(shape)
            if by_user is not None and sum(int(d) == -1 for d in by_user) > 1:
                raise ValueError(f"At most one dimension can be inferred (-1). Found: {by_user}")
            original = list(known)
            in_size = int(np.prod(sp_input.shape.as_list()))
            num_implied = sum(d is None for d in known)
            if num_implied == 1 and 0 not in known:
                i = original.index(None)
                rest = original[:i] + original[i + 1 :]
                known[i] = int(in_size // np.prod(rest))
            if num_implied == 0 or (num_implied == 1 and 0 not in known):
                size = int(np.prod(known))
                if size != in_size:
                    raise ValueError(
                        f"Cannot reshape a tensor with {in_size} elements to shape "
                        f"{original} ({size} elements)."
                    )
                reshaped_shape = ops.convert_to_tensor(known, dtype=dtypes.int64)
        return SparseTensor(reshaped_ind, array_ops.identity(sp_input.values), reshaped_shape)


def sparse_concat(
    axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
    expand_nonconcat_dims=None,
):  # fmt: skip
    """Concatenates sparse tensors along `axis` (TF-1.x argument order).

    Args:
        axis: The dimension to concatenate along.
        sp_inputs: A list of `SparseTensor`s.
        name: Op name (default `SparseConcat`).
        expand_nonconcat_dim: Let the other dimensions differ (each grows to the max).
        concat_dim: Deprecated name of `axis`.
        expand_nonconcat_dims: Alias of `expand_nonconcat_dim`.

    Returns:
        The concatenated `SparseTensor`.
    """
    if expand_nonconcat_dims is not None:
        expand_nonconcat_dim = expand_nonconcat_dims
    if concat_dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'concat_dim'")
        axis = concat_dim
    sp_inputs = _convert_to_sparse_tensors(sp_inputs)
    if len(sp_inputs) == 1:
        return sp_inputs[0]
    inds = [sp.indices for sp in sp_inputs]
    vals = [sp.values for sp in sp_inputs]
    shapes = [sp.dense_shape for sp in sp_inputs]
    if expand_nonconcat_dim:
        max_shape = math_ops.reduce_max(
            array_ops.concat([array_ops.reshape(s, [1, -1]) for s in shapes], 0), 0
        )
        shapes = [
            array_ops.concat(
                [
                    max_shape[:axis],
                    s[-1:] if axis == -1 else s[axis : axis + 1],
                    [] if axis == -1 else max_shape[axis + 1 :],
                ],
                0,
            )
            for s in shapes
        ]
    with ops.name_scope(name, "SparseConcat") as scope:
        op = make_op("SparseConcat", inds + vals + shapes, {"concat_dim": int(axis)}, scope=scope)
    output_ind, output_val, output_shape = op.outputs
    input_shapes = [sp.shape for sp in sp_inputs]
    static: list | None = None
    if all(s.rank is not None for s in input_shapes):
        dims = [
            [tensor_shape.dimension_at_index(s, d) for d in range(input_shapes[0].rank)]
            for s in input_shapes
        ]
        if expand_nonconcat_dim:
            merged = [max(col) for col in zip_strict(*dims)]
        else:
            merged = list(dims[0])
        merged[axis] = sum((d[axis] for d in dims[1:]), dims[0][axis])
        static = [tensor_shape.dimension_value(d) for d in merged]
    if all(s.is_fully_defined() for s in input_shapes):
        output_shape = ops.convert_to_tensor(static, dtype=dtypes.int64)
        return SparseTensor(output_ind, output_val, output_shape)
    out = SparseTensor(output_ind, output_val, output_shape)
    out.set_shape(tensor_shape.TensorShape(static))
    return out


def sparse_add(a, b, threshold=None, thresh=None):
    """The sum of two sparse tensors (sparse), or of a sparse and a dense one (dense).

    Entries present in both whose sum's magnitude is below `threshold` are dropped.

    Raises:
        TypeError: If neither input is sparse.
    """
    if thresh is not None:
        if threshold is not None:
            raise ValueError("Cannot specify both 'threshold' and 'thresh'")
        threshold = thresh
    if threshold is None:
        threshold = 0
    sparse_classes = (SparseTensor, SparseTensorValue)
    if not any(isinstance(x, sparse_classes) for x in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if not all(isinstance(x, sparse_classes) for x in (a, b)):
        if isinstance(b, sparse_classes):
            a, b = b, a
        a = _convert_to_sparse_tensor(a)
        with ops.name_scope(None, "SparseTensorDenseAdd") as scope:
            b = ops.convert_to_tensor(b, dtype=a.values.dtype.base_dtype, name="b")
            return make_op(
                "SparseTensorDenseAdd", [a.indices, a.values, a.dense_shape, b], scope=scope
            ).outputs[0]
    a = _convert_to_sparse_tensor(a)
    b = _convert_to_sparse_tensor(b)
    threshold = ops.convert_to_tensor(threshold, dtype=a.values.dtype.base_dtype, name="threshold")
    with ops.name_scope(None, "SparseAdd") as scope:
        op = make_op(
            "SparseAdd",
            [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, threshold],
            scope=scope,
        )
    output_ind, output_val, output_shape = op.outputs
    a.get_shape().assert_is_compatible_with(b.get_shape())
    static = a.get_shape().merge_with(b.get_shape())
    if static.is_fully_defined():
        output_shape = static.as_list()
    return SparseTensor(output_ind, output_val, output_shape)


def _reduction_dims(sp_input, axis):
    if axis is not None:
        return axis
    rank = sp_input.shape.rank
    if rank:
        return ops.convert_to_tensor(np.arange(rank, dtype=np.int32))
    return math_ops.range(0, array_ops.size(sp_input.dense_shape))


def _reduce_sum_op(op_type, sp_input, axis, keepdims, reduction_axes, keep_dims, name=None):
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
        keepdims = keep_dims
    if reduction_axes is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_axes'")
        axis = reduction_axes
    keepdims = bool(keepdims)
    sp_input = _convert_to_sparse_tensor(sp_input)
    with ops.name_scope(name, op_type) as scope:
        axes = ops.convert_to_tensor(
            _reduction_dims(sp_input, axis), dtype=dtypes.int32, name="reduction_axes"
        )
        return make_op(
            op_type,
            [sp_input.indices, sp_input.values, sp_input.dense_shape, axes],
            {"keep_dims": keepdims},
            scope=scope,
        )


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """Sums a sparse tensor along `axis` (all axes by default); the result is dense."""
    op = _reduce_sum_op("SparseReduceSum", sp_input, axis, keepdims, reduction_axes, keep_dims)
    return op.outputs[0]


def sparse_reduce_sum_sparse(
    sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None
):
    """Sums a sparse tensor along `axis`; the result is a `SparseTensor`."""
    op = _reduce_sum_op(
        "SparseReduceSumSparse", sp_input, axis, keepdims, reduction_axes, keep_dims
    )
    return SparseTensor(*op.outputs)


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The maximum of a sparse tensor's values along `axis` (all axes by default), dense.

    As TF, only the present values count (a row of negative values has a negative
    maximum, not 0), and an output position with no values at all is 0.
    """
    op = _reduce_sum_op("SparseReduceMax", sp_input, axis, keepdims, reduction_axes, keep_dims)
    return op.outputs[0]


def sparse_reduce_max_sparse(
    sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None
):
    """The maximum of a sparse tensor's values along `axis`; the result is a `SparseTensor`."""
    op = _reduce_sum_op(
        "SparseReduceMaxSparse", sp_input, axis, keepdims, reduction_axes, keep_dims
    )
    return SparseTensor(*op.outputs)


def sparse_softmax(sp_input, name=None):
    """Softmax over the last dimension of a sparse tensor's present values.

    Each group of entries sharing all but the last index is normalized on its own;
    the implicit zeros take no part (TF's `SparseSoftmax`; the indices must be in
    row-major order, see `sparse_reorder`).

    Args:
        sp_input: A `SparseTensor` of rank 2 or more (half, float or double).
        name: Name of the op.

    Returns:
        A `SparseTensor` with `sp_input`'s indices and shape.
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    with ops.name_scope(name, "SparseSoftmax", [sp_input.indices, sp_input.values]) as scope:
        out = make_op(
            "SparseSoftmax", [sp_input.indices, sp_input.values, sp_input.dense_shape], scope=scope
        ).outputs[0]
        return SparseTensor(sp_input.indices, out, sp_input.dense_shape)


def _sparse_sparse(op_type, sp_a, sp_b, name):
    sp_a = _convert_to_sparse_tensor(sp_a)
    sp_b = _convert_to_sparse_tensor(sp_b)
    with ops.name_scope(
        name, op_type, [sp_a.indices, sp_a.values, sp_b.indices, sp_b.values]
    ) as scope:
        out_indices, out_values = make_op(
            op_type,
            [
                sp_a.indices,
                sp_a.values,
                sp_a.dense_shape,
                sp_b.indices,
                sp_b.values,
                sp_b.dense_shape,
            ],
            scope=scope,
        ).outputs
    return SparseTensor(out_indices, out_values, sp_a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None):
    """The element-wise maximum of two sparse tensors of one shape (missing entries are 0).

    Both must be in row-major order (see `sparse_reorder`).
    """
    return _sparse_sparse("SparseSparseMaximum", sp_a, sp_b, name)


def sparse_minimum(sp_a, sp_b, name=None):
    """The element-wise minimum of two sparse tensors of one shape (missing entries are 0).

    Both must be in row-major order (see `sparse_reorder`).
    """
    return _sparse_sparse("SparseSparseMinimum", sp_a, sp_b, name)


def sparse_slice(sp_input, start, size, name=None):
    """The part of a sparse tensor from `start` spanning `size` (clipped at its end).

    Args:
        sp_input: A `SparseTensor`.
        start: 1-D int64: where the slice starts in each dimension.
        size: 1-D int64: the slice's size in each dimension.
        name: Name of the op.

    Returns:
        A `SparseTensor` holding the entries inside the slice, re-indexed from 0.
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    start = ops.convert_to_tensor(start, dtypes.int64)
    size = ops.convert_to_tensor(size, dtypes.int64)
    with ops.name_scope(name, "SparseSlice", [sp_input]) as scope:
        indices, values, shape = make_op(
            "SparseSlice",
            [sp_input.indices, sp_input.values, sp_input.dense_shape, start, size],
            scope=scope,
        ).outputs
        return SparseTensor(indices, values, shape)


def sparse_split(
    keyword_required=None, sp_input=None, num_split=None, axis=None, name=None, split_dim=None
):
    """Splits a sparse tensor into `num_split` along `axis` (keyword arguments only).

    As TF, the first `shape[axis] % num_split` parts are one longer than the others.

    Returns:
        A list of `num_split` `SparseTensor`s.

    Raises:
        ValueError: A positional argument, or a missing `sp_input`, `num_split` or `axis`.
    """
    if keyword_required is not None:
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if split_dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'split_dim'")
        axis = split_dim
    if axis is None:
        raise ValueError("axis is required")
    sp_input = _convert_to_sparse_tensor(sp_input)
    with ops.name_scope(name, "SparseSplit") as scope:
        axis = ops.convert_to_tensor(axis, dtypes.int64, name="split_dim")
        outs = make_op(
            "SparseSplit",
            [axis, sp_input.indices, sp_input.values, sp_input.dense_shape],
            {"num_split": int(num_split)},
            scope=scope,
        ).outputs
    n = int(num_split)
    return [SparseTensor(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]


def sparse_transpose(sp_input, perm=None, name=None):
    """A sparse tensor with its dimensions permuted by `perm` (reversed by default).

    The result is in row-major order (TF reorders it).
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    with ops.name_scope(name, "SparseTranspose", [sp_input]):
        if perm is None:
            if sp_input.shape.rank is not None:
                rank = sp_input.shape.rank
                perm = (rank - 1) - np.arange(0, rank, 1)
            else:
                rank = array_ops.rank(sp_input)
                perm = (rank - 1) - math_ops.range(0, rank, 1)
        indices = sp_input.indices
        transposed_indices = array_ops.transpose(
            array_ops.gather(array_ops.transpose(indices), perm)
        )
        perm_ = tensor_util.constant_value(ops.convert_to_tensor(perm))
        if perm_ is not None and sp_input.get_shape().is_fully_defined():
            old_shape = sp_input.get_shape().as_list()
            transposed_dense_shape = list(old_shape)
            for i, p in enumerate(perm_):
                transposed_dense_shape[i] = old_shape[p]
        else:
            transposed_dense_shape = array_ops.gather(sp_input.dense_shape, perm)
        return sparse_reorder(
            SparseTensor(transposed_indices, sp_input.values, transposed_dense_shape)
        )


def sparse_reset_shape(sp_input, new_shape=None):
    """`sp_input` with a new dense shape: `new_shape`, or the tightest one holding it.

    Raises:
        ValueError: A known `new_shape` smaller than `sp_input`'s known shape, or not
            of its rank.
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    in_indices = array_ops.identity(sp_input.indices)
    in_values = array_ops.identity(sp_input.values)
    in_shape = array_ops.identity(sp_input.dense_shape)
    if new_shape is None:
        dim_low_bound = math_ops.reduce_max(in_indices, axis=0)
        output_shape = math_ops.maximum(
            constant_op.constant(0, dtype=dtypes.int64),
            math_ops.add(dim_low_bound, array_ops.ones_like(in_shape)),
        )
    else:
        output_shape = ops.convert_to_tensor(new_shape)
        output_shape.get_shape().assert_has_rank(1)
        output_shape = array_ops.cast(output_shape, dtypes.int64)
        if output_shape.get_shape().rank is not None:
            output_shape.get_shape().dims[0].assert_is_compatible_with(in_shape.get_shape().dims[0])
        output_shape_const = tensor_util.constant_value(output_shape)
        if output_shape_const is not None and sp_input.get_shape().is_fully_defined():
            in_shape_const = np.array(sp_input.get_shape().as_list())
            if not np.all(in_shape_const <= output_shape_const):
                raise ValueError(
                    "Requested new_shape should have dimension sizes >= sp_input.shape."
                    f"  Found new_shape ({in_shape_const}), "
                    f"sp_input.shape ({output_shape_const})."
                )
            output_shape = output_shape_const
        else:
            from . import check_ops, control_flow_ops

            output_shape = control_flow_ops.with_dependencies(
                [check_ops.assert_equal(array_ops.shape(in_shape), array_ops.shape(output_shape))],
                output_shape,
            )
            output_shape = control_flow_ops.with_dependencies(
                [check_ops.assert_less_equal(in_shape, output_shape)], output_shape
            )
    return SparseTensor(in_indices, in_values, output_shape)


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """Combines ids and values sparse tensors into one indexed by the ids (TF-1.x).

    `sp_ids` (or a list of them, with a list of `vocab_size`s) gives, for each entry,
    its id along a new last dimension of size `vocab_size`; `sp_values` the value.

    Raises:
        TypeError: `sp_ids` or `vocab_size` of a wrong type.
        ValueError: Lists of unequal lengths.
    """
    import collections.abc
    import numbers

    if isinstance(sp_ids, (SparseTensorValue, SparseTensor)):
        sp_ids = [sp_ids]
        if not isinstance(vocab_size, (ops.Tensor, numbers.Integral)):
            raise TypeError(
                f"vocab_size has to be a Tensor or Python int. Found {type(vocab_size)}"
            )
        vocab_size = [vocab_size]
    else:
        if not isinstance(sp_ids, collections.abc.Iterable):
            raise TypeError(
                f"sp_ids has to be a SparseTensor or list thereof. Found {type(sp_ids)}"
            )
        if not isinstance(vocab_size, collections.abc.Iterable):
            raise TypeError(
                f"vocab_size has to be a list of Tensors or Python ints. Found {type(vocab_size)}"
            )
        for dim in vocab_size:
            if not isinstance(dim, (ops.Tensor, numbers.Integral)):
                raise TypeError(
                    f"vocab_size has to be a list of Tensors or Python ints. Found {type(dim)}"
                )
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with ops.name_scope(name, "SparseMerge", [sp_ids, sp_values]):
        sp_ids = [_convert_to_sparse_tensor(ids) for ids in sp_ids]
        sp_values = _convert_to_sparse_tensor(sp_values)
        ids = []
        for sp_ids_dim in sp_ids:
            ids_dim = sp_ids_dim.values
            if sp_ids_dim.dtype != dtypes.int64:
                ids_dim = array_ops.cast(ids_dim, dtypes.int64)
            ids.append(array_ops.expand_dims(ids_dim, axis=1))
        vocab_size = [array_ops.cast(x, dtypes.int64) for x in vocab_size]
        indices_columns_to_preserve = sp_ids[0].indices[:, :-1]
        new_indices = array_ops.concat([indices_columns_to_preserve, *ids], 1)
        new_shape = array_ops.concat([sp_ids[0].dense_shape[:-1], array_ops.stack(vocab_size)], 0)
        result = SparseTensor(new_indices, sp_values.values, new_shape)
        if already_sorted:
            return result
        sorted_result = sparse_reorder(result)
        return SparseTensor(sorted_result.indices, sorted_result.values, new_shape)


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor, last dimension `vocab_size`, True at each id of `sp_input`.

    Args:
        sp_input: A `SparseTensor` of int32/int64 ids.
        vocab_size: The size of the new last dimension.
        name: Name of the ops.
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    with ops.name_scope(name, "SparseToIndicator", [sp_input]) as scope:
        num_entries = array_ops.shape(sp_input.indices)[0]
        new_values = array_ops.fill(array_ops.expand_dims(num_entries, 0), True)
        sp_values = SparseTensor(sp_input.indices, new_values, sp_input.dense_shape)
        sp_new = sparse_merge(sp_input, sp_values, vocab_size, scope)
        return sparse_tensor_to_dense(
            sp_new, default_value=False, validate_indices=False, name=scope
        )


def sparse_dense_cwise_add(sp_t, dense_t):
    """A sparse tensor's values plus a dense tensor broadcast to its shape (sparse result)."""
    return _sparse_dense_cwise("SparseDenseCwiseAdd", sp_t, dense_t, None)


def _sparse_dense_cwise(op_type, sp_x, y, name):
    with ops.name_scope(name, op_type, [sp_x.indices, sp_x.values, y]) as scope:
        y = ops.convert_to_tensor(y, dtype=sp_x.values.dtype.base_dtype, name="y")
        values = make_op(
            op_type, [sp_x.indices, sp_x.values, sp_x.dense_shape, y], scope=scope
        ).outputs[0]
        return SparseTensor(sp_x.indices, values, sp_x.dense_shape)


def _sparse_mul(sp_x, y):
    return _sparse_dense_cwise("SparseDenseCwiseMul", sp_x, y, "mul")


def _sparse_div(sp_x, y):
    return _sparse_dense_cwise("SparseDenseCwiseDiv", sp_x, y, "div")


def _sparse_truediv(sp_x, y):
    """TF's `_sparse_dense_truediv`: integers are divided as floats."""
    with ops.name_scope(None, "truediv", [sp_x.indices, sp_x.values, y]):
        y = ops.convert_to_tensor(y, dtype=sp_x.values.dtype.base_dtype, name="y")
        dtype = math_ops._TRUEDIV_FLOAT.get(sp_x.values.dtype.base_dtype)
        if dtype is not None:
            sp_x = SparseTensor(sp_x.indices, array_ops.cast(sp_x.values, dtype), sp_x.dense_shape)
            y = array_ops.cast(y, dtype)
        return _sparse_dense_cwise("SparseDenseCwiseDiv", sp_x, y, None)


# TF's operator overloads of SparseTensor (`math_ops`): `*` and `/` with a dense right side.
for _name, _fn in (
    ("__mul__", _sparse_mul),
    ("__div__", _sparse_div),
    ("__truediv__", _sparse_truediv),
):
    setattr(SparseTensor, _name, _fn)


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """The dense product of a 2-D sparse `sp_a` and a dense matrix `b`.

    With a sparse `b` (and dense `sp_a`) the product is computed transposed, as TF does.
    """
    if isinstance(b, (SparseTensor, SparseTensorValue)):
        if adjoint_a != adjoint_b:
            return array_ops.transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a, adjoint_b))
        return array_ops.transpose(
            sparse_tensor_dense_matmul(b, sp_a, adjoint_a=not adjoint_a, adjoint_b=not adjoint_b)
        )
    sp_a = _convert_to_sparse_tensor(sp_a)
    with ops.name_scope(name, "SparseTensorDenseMatMul", [sp_a.indices, sp_a.values, b]) as name:
        b = ops.convert_to_tensor(b, name="b")
        with ops.name_scope(None, "SparseTensorDenseMatMul") as scope:
            return make_op(
                "SparseTensorDenseMatMul",
                [sp_a.indices, sp_a.values, sp_a.dense_shape, b],
                {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)},
                scope=scope,
            ).outputs[0]


def sparse_retain(sp_input, to_retain):
    """The entries of `sp_input` where the 1-D bool `to_retain` is true.

    Raises:
        ValueError: If `to_retain` is not 1-D or its length differs from the values'.
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    to_retain = ops.convert_to_tensor(to_retain)
    retain_shape = to_retain.get_shape()
    retain_shape.assert_has_rank(1)
    if sp_input.values.get_shape().dims is not None:
        sp_input.values.get_shape().dims[0].assert_is_compatible_with(
            tensor_shape.dimension_at_index(retain_shape, 0)
        )
    where_true = array_ops.reshape(array_ops.where(to_retain), [-1])
    new_indices = array_ops.gather(sp_input.indices, where_true)
    new_values = array_ops.gather(sp_input.values, where_true)
    return SparseTensor(new_indices, new_values, array_ops.identity(sp_input.dense_shape))


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """Adds `default_value` at `[row, 0, ...]` for every row with no entry.

    Returns:
        `(sp_output, empty_row_indicator)`: the filled `SparseTensor` and a bool
        vector, true for the rows that were empty.
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    with ops.name_scope(name, "SparseFillEmptyRows", [sp_input]):
        default_value = ops.convert_to_tensor(default_value, dtype=sp_input.values.dtype)
        with ops.name_scope(None, "SparseFillEmptyRows") as scope:
            op = make_op(
                "SparseFillEmptyRows",
                [sp_input.indices, sp_input.values, sp_input.dense_shape, default_value],
                scope=scope,
            )
        output_indices, output_values, empty_row_indicator, _ = op.outputs
        return (
            SparseTensor(output_indices, output_values, sp_input.dense_shape),
            empty_row_indicator,
        )


def _serialize(op_type, sp_input, name, out_type):
    sp_input = _convert_to_sparse_tensor(sp_input)
    if dtypes.as_dtype(out_type) != dtypes.string:
        raise NotImplementedError("serialized sparse tensors are strings (out_type=tf.string)")
    with ops.name_scope(name, op_type) as scope:
        return make_op(
            op_type,
            [sp_input.indices, sp_input.values, sp_input.dense_shape],
            {"out_type": dtypes.string},
            scope=scope,
        ).outputs[0]


def serialize_sparse(sp_input, name=None, out_type=dtypes.string):
    """A `SparseTensor` as a `[3]` string vector of serialized `TensorProto`s."""
    return _serialize("SerializeSparse", sp_input, name, out_type)


def serialize_many_sparse(sp_input, name=None, out_type=dtypes.string):
    """A rank-`R` `SparseTensor` as `[N, 3]` strings: one rank-`R-1` tensor per row."""
    return _serialize("SerializeManySparse", sp_input, name, out_type)


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The minibatch `SparseTensor` of `[N, 3]` serialized sparse tensors.

    Args:
        serialized_sparse: `[N, 3]` strings (from `serialize_many_sparse` or stacked
            `serialize_sparse` results).
        dtype: The values' dtype.
        rank: The static rank of the result, if known.
        name: Op name (default `DeserializeManySparse`).

    Returns:
        A `SparseTensor` with dense shape `[N] + max(shapes)`.
    """
    with ops.name_scope(name, "DeserializeManySparse") as scope:
        serialized_sparse = ops.convert_to_tensor(
            serialized_sparse, dtype=dtypes.string, name="serialized_sparse"
        )
        op = make_op(
            "DeserializeManySparse",
            [serialized_sparse],
            {"dtype": dtypes.as_dtype(dtype)},
            scope=scope,
        )
    output_indices, output_values, output_shape = op.outputs
    output_indices.set_shape([None, rank])
    output_shape.set_shape([rank])
    return SparseTensor(output_indices, output_values, output_shape)


def _sparse_segment(op_type, data, indices, segment_ids, name, num_segments=None):
    with ops.name_scope(name, op_type) as scope:
        data = ops.convert_to_tensor(data, name="data")
        indices = ops.convert_to_tensor(indices, name="indices")
        segment_ids = ops.convert_to_tensor(segment_ids, name="segment_ids")
        inputs = [data, indices, segment_ids]
        if num_segments is not None:
            op_type += "WithNumSegments"
            inputs.append(ops.convert_to_tensor(num_segments, name="num_segments"))
        return make_op(op_type, inputs, scope=scope).outputs[0]


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None):
    """Sums the rows `data[indices]` within each (sorted) segment of `segment_ids`."""
    return _sparse_segment("SparseSegmentSum", data, indices, segment_ids, name, num_segments)


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None):
    """Averages the rows `data[indices]` within each (sorted) segment of `segment_ids`."""
    return _sparse_segment("SparseSegmentMean", data, indices, segment_ids, name, num_segments)


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None):
    """Sums the rows `data[indices]` of each segment, divided by sqrt of its size."""
    return _sparse_segment("SparseSegmentSqrtN", data, indices, segment_ids, name, num_segments)


def segment_sum(data, segment_ids, name=None):
    """Sums the rows of `data` within each (sorted) segment of `segment_ids`."""
    with ops.name_scope(name, "SegmentSum") as scope:
        data = ops.convert_to_tensor(data, name="data")
        segment_ids = ops.convert_to_tensor(segment_ids, name="segment_ids")
        return make_op("SegmentSum", [data, segment_ids], scope=scope).outputs[0]


def gather_nd(params, indices, name=None, batch_dims=0):
    """The slices of `params` at the coordinates in the last dimension of `indices`."""
    if batch_dims != 0:
        raise NotImplementedError("gather_nd with batch_dims != 0")
    with ops.name_scope(name, "GatherNd") as scope:
        params = ops.convert_to_tensor(params, name="params")
        indices = ops.convert_to_tensor(indices, name="indices")
        return make_op("GatherNd", [params, indices], scope=scope).outputs[0]


def sparse_placeholder(dtype, shape=None, name=None):
    """A `SparseTensor` of placeholders, fed with a `SparseTensorValue`.

    Args:
        dtype: The values' type.
        shape: The dense shape (a list that may hold None, or a tensor); None leaves
            it to the feed.
        name: Prefix of the placeholders' names.

    Returns:
        A `SparseTensor` whose three tensors are feedable.
    """
    shape_name = (name + "/shape") if name is not None else None
    default_shape_name = (name + "/shape_default") if name is not None else None
    if shape is None:
        rank = None
        dense_shape = array_ops.placeholder(dtypes.int64, shape=[rank], name=shape_name)
        dense_shape_default = tensor_util.constant_value_as_shape(dense_shape)
    else:
        if isinstance(shape, ops.Tensor):
            rank = shape.get_shape()[0]
            dense_shape_default = tensor_util.constant_value_as_shape(shape)
        else:
            rank = len(shape)
            dense_shape_default = tensor_shape.TensorShape(
                tuple(None if dim == -1 else dim for dim in shape)
            )
            shape = tuple(tensor_shape.dimension_value(dim) for dim in shape)
            shape = tuple(-1 if dim is None else dim for dim in shape)
            shape = ops.convert_to_tensor(shape, dtype=dtypes.int64, name=default_shape_name)
        dense_shape = array_ops.placeholder_with_default(shape, shape=shape.shape, name=shape_name)
    result = SparseTensor(
        values=array_ops.placeholder(
            dtype, shape=[None], name=(name + "/values") if name is not None else None
        ),
        indices=array_ops.placeholder(
            dtypes.int64, shape=[None, rank], name=(name + "/indices") if name is not None else None
        ),
        dense_shape=dense_shape,
    )
    result._dense_shape_default = dense_shape_default
    return result


# -- gradients (TF's sparse_grad.py and the sparse segment ones of math_grad.py) --------


@ops.RegisterGradient("SparseReorder")
def _SparseReorderGrad(op, unused_output_indices_grad, output_values_grad):
    input_indices = op.inputs[0]
    input_shape = op.inputs[2]
    num_entries = array_ops.shape(input_indices)[0]
    entry_indices = math_ops.range(num_entries)
    sp_unordered = SparseTensor(input_indices, entry_indices, input_shape)
    sp_ordered = sparse_reorder(sp_unordered)
    inverted_permutation = make_op("InvertPermutation", [sp_ordered.values]).outputs[0]
    return (None, array_ops.gather(output_values_grad, inverted_permutation), None)


@ops.RegisterGradient("SparseAdd")
def _SparseAddGrad(op, *grads):
    val_grad = grads[1]
    a_indices = op.inputs[0]
    b_indices = op.inputs[3]
    sum_indices = op.outputs[0]
    a_val_grad, b_val_grad = make_op(
        "SparseAddGrad", [val_grad, a_indices, b_indices, sum_indices]
    ).outputs
    a_val_grad.set_shape(op.inputs[1].get_shape())
    b_val_grad.set_shape(op.inputs[4].get_shape())
    return (None, a_val_grad, None, None, b_val_grad, None, None)


def _reduced_shape(input_shape, axes):
    """TF's `math_ops.reduced_shape`: `input_shape` with the `axes` set to 1."""
    input_shape = array_ops.cast(input_shape, dtypes.int32)
    axes = array_ops.cast(axes, dtypes.int32)
    input_rank = array_ops.size(input_shape)
    axes = math_ops.floormod(axes + input_rank, input_rank)
    axes_shape = array_ops.shape(axes)
    from .data_flow_ops import dynamic_stitch

    return dynamic_stitch(
        [math_ops.range(input_rank), axes],
        [input_shape, array_ops.ones(axes_shape, dtype=dtypes.int32)],
    )


@ops.RegisterGradient("SparseReduceSum")
def _SparseReduceSumGrad(op, out_grad):
    sp_indices = op.inputs[0]
    sp_shape = op.inputs[2]
    output_shape_kept_dims = _reduced_shape(sp_shape, op.inputs[3])
    out_grad_reshaped = array_ops.reshape(out_grad, output_shape_kept_dims)
    scale = math_ops.floordiv(sp_shape, array_ops.cast(output_shape_kept_dims, dtypes.int64))
    return (
        None,
        gather_nd(out_grad_reshaped, math_ops.floordiv(sp_indices, scale)),
        None,
        None,
    )


@ops.RegisterGradient("SparseTensorDenseMatMul")
def _SparseTensorDenseMatMulGrad(op, grad):
    a_indices, a_values, a_shape = op.inputs[:3]
    b = op.inputs[3]
    adj_a = op.get_attr("adjoint_a")
    adj_b = op.get_attr("adjoint_b")
    a_type = a_values.dtype.base_dtype
    b_type = b.dtype.base_dtype
    if a_type != b_type:
        raise TypeError(
            f"SparseTensorDenseMatMul op received operands with different types: "
            f"`{a_type}` and `{b_type}`."
        )
    b_grad = make_op(
        "SparseTensorDenseMatMul",
        [a_indices, a_values, a_shape, grad],
        {"adjoint_a": not adj_a, "adjoint_b": False},
    ).outputs[0]
    if adj_b:
        b_grad = array_ops.transpose(b_grad)
    rows = a_indices[:, 0]
    cols = a_indices[:, 1]
    parts_a = array_ops.gather(grad, rows if not adj_a else cols)
    parts_b = array_ops.gather(
        b if not adj_b else array_ops.transpose(b), cols if not adj_a else rows
    )
    # Real types: each value's gradient is the dot product of its two rows (TF forms
    # it as a batch of [1, n] x [n, 1] products).
    a_values_grad = math_ops.reduce_sum(parts_a * parts_b, axis=-1)
    return (None, a_values_grad, None, b_grad)


@ops.RegisterGradient("SparseFillEmptyRows")
def _SparseFillEmptyRowsGrad(op, unused_grad_output_indices, output_grad_values, *unused):
    reverse_index_map = op.outputs[3]
    d_values, d_default_value = make_op(
        "SparseFillEmptyRowsGrad", [reverse_index_map, output_grad_values]
    ).outputs
    return [None, d_values, None, d_default_value]


@ops.RegisterGradient("SparseToDense")
def _SparseToDenseGrad(op, grad):
    sparse_indices, output_shape, _, _ = op.inputs
    sparse_values_grad = gather_nd(grad, sparse_indices)
    default_value_grad = math_ops.reduce_sum(grad) - math_ops.reduce_sum(sparse_values_grad)
    return [
        array_ops.zeros_like(sparse_indices),
        array_ops.zeros_like(output_shape),
        sparse_values_grad,
        default_value_grad,
    ]


def _segment_grad(grad_type, op, grad, extra):
    dim0 = array_ops.shape(op.inputs[0])[0]
    g = make_op(grad_type, [grad, op.inputs[1], op.inputs[2], dim0]).outputs[0]
    return (g, None, None) + (None,) * extra


for _name, _grad_type in [
    ("SparseSegmentSum", "SparseSegmentSumGrad"),
    ("SparseSegmentMean", "SparseSegmentMeanGrad"),
    ("SparseSegmentSqrtN", "SparseSegmentSqrtNGrad"),
]:
    ops.RegisterGradient(_name)(lambda op, grad, _t=_grad_type: _segment_grad(_t, op, grad, 0))
    ops.RegisterGradient(_name + "WithNumSegments")(
        lambda op, grad, _t=_grad_type: _segment_grad(_t, op, grad, 1)
    )


@ops.RegisterGradient("GatherNd")
def _GatherNdGrad(op, grad):
    # TF scatters the gradient back with `ScatterNd`; the same sum, built as an
    # `UnsortedSegmentSum` over the row-major offsets of the gathered slices.
    params, indices = op.inputs
    if indices.shape.ndims == 2 and tensor_shape.dimension_value(indices.shape[-1]) == 1:
        ref_shape = array_ops.shape(params, out_type=indices.dtype)
        return IndexedSlices(grad, array_ops.squeeze(indices, axis=-1), ref_shape), None
    params_shape = array_ops.shape(params, out_type=dtypes.int64)
    indices = array_ops.cast(indices, dtypes.int64)
    depth = array_ops.shape(indices, out_type=dtypes.int64)[-1]
    outer = params_shape[:depth]
    inner = params_shape[depth:]
    strides = math_ops.cumprod(outer, exclusive=True, reverse=True)
    offsets = math_ops.reduce_sum(indices * strides, axis=-1)
    minus_one = ops.convert_to_tensor([-1], dtype=dtypes.int64)
    rows = array_ops.reshape(grad, array_ops.concat([minus_one, inner], 0))
    summed = math_ops.unsorted_segment_sum(
        rows, array_ops.reshape(offsets, [-1]), math_ops.reduce_prod(outer)
    )
    return array_ops.reshape(summed, params_shape), None


@ops.RegisterGradient("SegmentSum")
def _SegmentSumGrad(op, grad):
    return array_ops.gather(grad, op.inputs[1]), None


def embedding_lookup_sparse(
    params, sp_ids, sp_weights, partition_strategy="mod", name=None, combiner=None,
    max_norm=None, allow_fast_lookup=False,
):  # fmt: skip
    """Combined embeddings of the ids in each row of the 2-D `SparseTensor` `sp_ids`.

    TF-1.x's form: the unique ids are looked up with `embedding_lookup` (so the
    gradient of `params` is an `IndexedSlices` of the rows used) and combined per row
    with `sparse_segment_sum/mean/sqrt_n`, or, with `sp_weights`, weighted and
    combined with `segment_sum`.

    Args:
        params: An embedding table, a list of its parts or a `PartitionedVariable`.
        sp_ids: `SparseTensor` of int ids, `[batch, max_ids]`, rows in order.
        sp_weights: `SparseTensor` of weights with `sp_ids`' indices, or None (all 1).
        partition_strategy: `"mod"` or `"div"` (for several parts).
        name: Name scope of the ops.
        combiner: `"mean"` (default), `"sqrtn"` or `"sum"`.
        max_norm: Clip each embedding to this L2 norm before combining.
        allow_fast_lookup: Accepted for compatibility.

    Returns:
        A dense tensor `[batch] + params.shape[1:]` (rows without ids are absent from
        the segment count: the result has `max(row) + 1` rows).

    Raises:
        ValueError: If `combiner` is unknown.
        TypeError: If `sp_ids` or `sp_weights` is not a `SparseTensor`.
    """
    from .nn_ops import embedding_lookup

    del allow_fast_lookup
    if combiner is None:
        combiner = "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if hasattr(params, "_get_variable_list"):
        params = list(params)
    if not isinstance(params, list):
        params = [params]
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    ignore_weights = sp_weights is None
    if not ignore_weights:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(
                f"sp_weights must be either None or SparseTensor,got {type(sp_weights)}"
            )
        sp_ids.values.get_shape().assert_is_compatible_with(sp_weights.values.get_shape())
        sp_ids.indices.get_shape().assert_is_compatible_with(sp_weights.indices.get_shape())
        sp_ids.dense_shape.get_shape().assert_is_compatible_with(sp_weights.dense_shape.get_shape())
    with ops.name_scope(name, "embedding_lookup_sparse", [*params, sp_ids]) as name:
        segment_ids = sp_ids.indices[:, 0]
        ids = sp_ids.values
        segment_ids = ops.convert_to_tensor(segment_ids, name="segment_ids")
        ids, idx = array_ops.unique(ids)
        embeddings = embedding_lookup(
            params, ids, partition_strategy=partition_strategy, max_norm=max_norm
        )
        if not ignore_weights:
            if segment_ids.dtype != dtypes.int32:
                segment_ids = array_ops.cast(segment_ids, dtypes.int32)
            weights = sp_weights.values
            embeddings = array_ops.gather(embeddings, idx)
            if weights.dtype != embeddings.dtype:
                weights = array_ops.cast(weights, embeddings.dtype)
            ones_shape = array_ops.expand_dims(array_ops.rank(embeddings) - 1, 0)
            weights_shape = array_ops.shape(weights)
            ones = array_ops.ones(ones_shape, dtype=weights_shape.dtype)
            bcast_weights_shape = array_ops.concat([weights_shape, ones], 0)
            orig_weights_shape = weights.get_shape()
            weights = array_ops.reshape(weights, bcast_weights_shape)
            if embeddings.get_shape().ndims is not None:
                weights.set_shape(
                    orig_weights_shape.concatenate(
                        [1 for _ in range(embeddings.get_shape().ndims - 1)]
                    )
                )
            embeddings *= weights
            if combiner == "sum":
                return segment_sum(embeddings, segment_ids, name=name)
            embeddings = segment_sum(embeddings, segment_ids)
            if combiner == "mean":
                weight_sum = segment_sum(weights, segment_ids)
                return math_ops.div_no_nan(embeddings, weight_sum, name=name)
            weight_sum = segment_sum(math_ops.pow(weights, 2), segment_ids)
            return math_ops.div_no_nan(embeddings, math_ops.sqrt(weight_sum), name=name)
        if segment_ids.dtype not in (dtypes.int32, dtypes.int64):
            segment_ids = array_ops.cast(segment_ids, dtypes.int32)
        reduce = {
            "sum": sparse_segment_sum,
            "mean": sparse_segment_mean,
            "sqrtn": sparse_segment_sqrt_n,
        }[combiner]
        return reduce(embeddings, idx, segment_ids, name=name)


@ops.RegisterGradient("SparseTensorDenseAdd")
def _SparseTensorDenseAddGrad(op, out_grad):
    sp_indices = op.inputs[0]
    return (None, gather_nd(out_grad, sp_indices), None, out_grad)


def _SparseDenseCwiseMulOrDivGrad(op, grad, is_mul):
    x_indices = op.inputs[0]
    x_shape = op.inputs[2]
    y = op.inputs[3]
    y_shape = array_ops.cast(array_ops.shape(y), dtypes.int64)
    num_added_dims = array_ops.expand_dims(array_ops.size(x_shape) - array_ops.size(y_shape), 0)
    augmented_y_shape = array_ops.concat([array_ops.ones(num_added_dims, dtypes.int64), y_shape], 0)
    scaling = math_ops.floordiv(x_shape, augmented_y_shape)
    scaled_indices = math_ops.floordiv(x_indices, scaling)
    scaled_indices = array_ops.slice(
        scaled_indices, array_ops.concat([[0], num_added_dims], 0), [-1, -1]
    )
    dense_vals = gather_nd(y, scaled_indices)
    if is_mul:
        dx = grad * dense_vals
        dy_val = grad * op.inputs[1]
    else:
        dx = grad / dense_vals
        dy_val = grad * (-op.inputs[1] / math_ops.square(dense_vals))
    dy = sparse_add(array_ops.zeros_like(y), SparseTensor(scaled_indices, dy_val, y_shape))
    return (None, dx, None, dy)


@ops.RegisterGradient("SparseDenseCwiseMul")
def _SparseDenseCwiseMulGrad(op, grad):
    return _SparseDenseCwiseMulOrDivGrad(op, grad, True)


@ops.RegisterGradient("SparseDenseCwiseDiv")
def _SparseDenseCwiseDivGrad(op, grad):
    return _SparseDenseCwiseMulOrDivGrad(op, grad, False)


@ops.RegisterGradient("SparseDenseCwiseAdd")
def _SparseDenseCwiseAddGrad(unused_op, unused_grad):
    raise NotImplementedError("Gradient for SparseDenseCwiseAdd is not implemented.")


@ops.RegisterGradient("SparseSoftmax")
def _SparseSoftmaxGrad(op, grad):
    # TF's: grad_x = (grad - sum(grad * softmax, last axis)) * softmax, over the
    # present values only.
    indices, shape = op.inputs[0], op.inputs[2]
    out_vals = op.outputs[0]
    sp_output = SparseTensor(indices, out_vals, shape)
    sp_grad = SparseTensor(indices, grad, shape)
    sp_product = SparseTensor(indices, sp_output.values * sp_grad.values, shape)
    sum_reduced = -sparse_reduce_sum(sp_product, [-1], keepdims=True)
    sp_sum = sparse_dense_cwise_add(sp_grad, sum_reduced)
    grad_x = sp_sum.values * sp_output.values
    return [None, grad_x, None]


@ops.RegisterGradient("SparseSparseMaximum")
def _SparseSparseMaximumGrad(unused_op, unused_grad):
    raise NotImplementedError("Gradient for SparseSparseMaximum is not implemented.")


@ops.RegisterGradient("SparseSparseMinimum")
def _SparseSparseMinimumGrad(unused_op, unused_grad):
    raise NotImplementedError("Gradient for SparseSparseMinimum is not implemented.")


@ops.RegisterGradient("SparseSlice")
def _SparseSliceGrad(op, *grads):
    backprop_val_grad = grads[1]
    input_indices = op.inputs[0]
    input_start = op.inputs[3]
    output_indices = op.outputs[0]
    val_grad = make_op(
        "SparseSliceGrad", [backprop_val_grad, input_indices, input_start, output_indices]
    ).outputs[0]
    val_grad.set_shape(op.inputs[1].get_shape())
    return (None, val_grad, None, None, None)


# TF's default fingerprint seed of a hashed cross.
_DEFAULT_HASH_KEY = 0xDECAFCAFFE


def _sparse_cross_internal(inputs, hashed_output=False, num_buckets=0, hash_key=None, name=None):
    """TF's `_sparse_cross_internal`: one `SparseCross` op over sparse and dense inputs."""
    if not isinstance(inputs, list):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (SparseTensor, ops.Tensor)) for i in inputs):
        raise TypeError("All inputs must be SparseTensors")
    sparse_inputs = [i for i in inputs if isinstance(i, SparseTensor)]
    dense_inputs = [i for i in inputs if not isinstance(i, SparseTensor)]
    values = [sp.values for sp in sparse_inputs]
    internal_type = dtypes.string
    for i, v in enumerate(values):
        if v.dtype != dtypes.string:
            values[i] = array_ops.cast(v, dtypes.int64)
            internal_type = dtypes.int64
    for i, d in enumerate(dense_inputs):
        if d.dtype != dtypes.string:
            dense_inputs[i] = array_ops.cast(d, dtypes.int64)
            internal_type = dtypes.int64
    with ops.name_scope(name, "SparseCross", inputs) as scope:
        attrs = {
            "N": len(sparse_inputs),
            "hashed_output": bool(hashed_output),
            "num_buckets": int(num_buckets),
            "hash_key": int(hash_key or _DEFAULT_HASH_KEY),
            "sparse_types": [v.dtype for v in values],
            "dense_types": [d.dtype for d in dense_inputs],
            "out_type": dtypes.int64 if hashed_output else dtypes.string,
            "internal_type": internal_type,
        }
        inputs_flat = [
            *[sp.indices for sp in sparse_inputs],
            *values,
            *[sp.dense_shape for sp in sparse_inputs],
            *dense_inputs,
        ]
        op = make_op("SparseCross", inputs_flat, attrs, scope=scope)
        return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])


def sparse_cross(inputs, name=None):
    """The string crosses of a list of sparse and dense 2-D inputs, row by row.

    Each cross joins one feature of every input with `"_X_"`, the last input varying
    fastest; a row missing features in any input has no crosses.

    Args:
        inputs: A list of `SparseTensor`s and `Tensor`s (`[batch, k]`), string or integer.
        name: A name for the operation.

    Returns:
        A string `SparseTensor` `[batch, max crosses per row]`.
    """
    return _sparse_cross_internal(inputs, hashed_output=False, name=name)


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The hashed crosses of a list of sparse and dense 2-D inputs, row by row.

    Each cross is TF's nested `FingerprintCat64` of the features' fingerprints, modulo
    `num_buckets` when it is positive.

    Args:
        inputs: A list of `SparseTensor`s and `Tensor`s (`[batch, k]`), string or integer.
        num_buckets: Buckets of the output (0: the full non-negative int64 range).
        hash_key: The seed of the fingerprints (TF's default when `None`).
        name: A name for the operation.

    Returns:
        An int64 `SparseTensor` `[batch, max crosses per row]`.
    """
    return _sparse_cross_internal(
        inputs, hashed_output=True, num_buckets=num_buckets, hash_key=hash_key, name=name
    )
