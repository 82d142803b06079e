"""`tf.map_fn`, `tf.foldl`, `tf.foldr` and `tf.scan`, built on `tf.while_loop`.

They are TF's constructions, but where TF reads the elements from and writes the
results to `TensorArray`s, ferroflow reads element `i` with a strided slice of the
(captured) elements and keeps each stacked result as a loop variable that grows by
one row per iteration (a `ConcatV2`), so the loop and its gradient need no op beyond
`While`. The cost is quadratic copying in the number of iterations (each row is
copied once per later iteration), which a native TensorArray would avoid.
"""

from __future__ import annotations

from ..framework import constant_op, dtypes, ops, tensor_shape
from . import array_ops
from .control_flow_ops import _assert_same_structure, _flatten, _is_sequence, _pack_as, while_loop


def _check_callable(fn):
    if not callable(fn):
        name = getattr(fn, "__name__", repr(fn))
        raise TypeError(f"{name} is not callable. Please provide a callable function.")


def _leading_dim(elems_flat):
    """The number of elements: static when known, else the first dim at run time."""
    first = elems_flat[0]
    if first.shape.ndims is not None and first.shape.ndims < 1:
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    n_static = tensor_shape.Dimension(None)
    for t in elems_flat:
        if t.shape.ndims is not None:
            d = tensor_shape.Dimension(t.shape.dims[0].value)
            n_static.assert_is_compatible_with(d)
            n_static = n_static.merge_with(d)
    n = n_static.value if n_static.value is not None else array_ops.shape(first)[0]
    return n, n_static


def _read(elems, i):
    """Element `i` of `elems` (a row on dimension 0), shaped `elems.shape[1:]`."""
    return array_ops.gather(elems, i)


def _append(acc, value, front=False):
    """`acc` with `value` as one more row (first or last).

    An empty accumulator may still be the rank-1 `[0]` it started as: it is reshaped
    to `[rows, *shape(value)]`.
    """
    rows = array_ops.expand_dims(array_ops.shape(acc)[0], 0)
    acc = array_ops.reshape(acc, array_ops.concat([rows, array_ops.shape(value)], 0))
    row = array_ops.expand_dims(value, 0)
    return array_ops.concat([row, acc] if front else [acc, row], 0)


def _empty_rows(like=None, dtype=None):
    """An accumulator with no rows: `[0, *shape(like)]`, or `[0]` (row shape unknown)."""
    if like is None:
        return array_ops.zeros([0], dtype=dtype)
    shape = array_ops.concat([[0], array_ops.shape(like)], 0)
    return array_ops.zeros(shape, dtype=like.dtype.base_dtype)


def _finish_stack(acc, n, n_static, row_shape):
    """The stacked result `[n, *row_shape]` (also when no row was written)."""
    if row_shape.is_fully_defined():
        n_t = array_ops.expand_dims(ops.convert_to_tensor(n, dtype=dtypes.int32), 0)
        acc = array_ops.reshape(acc, array_ops.concat([n_t, row_shape.as_list()], 0))
    acc.set_shape(tensor_shape.TensorShape([n_static]).concatenate(row_shape))
    return acc


def map_fn(
    fn,
    elems,
    dtype=None,
    parallel_iterations=None,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    name=None,
    fn_output_signature=None,
):
    """Applies `fn` to each element of `elems` and stacks the results (`tf.map_fn`).

    The elements are `elems` unstacked on dimension 0.

    Args:
        fn: A callable taking one element (in the structure of `elems`).
        elems: A tensor or (possibly nested) sequence of tensors, each with the same
            first dimension.
        dtype: The dtype (structure) of `fn`'s result, when it differs from `elems`'.
        parallel_iterations: Passed to `while_loop` (default 10).
        back_prop: Whether gradients flow through the loop.
        swap_memory: Accepted for compatibility.
        infer_shape: Accepted for compatibility (results must keep one shape).
        name: A name scope (default `map`).
        fn_output_signature: Same as `dtype` (TF-2 name).

    Returns:
        The stacked results, in the structure of `dtype` (or of `elems`).

    Raises:
        TypeError: If `fn` is not callable.
        ValueError: If `elems` holds no tensors or scalars, or `fn`'s result does not
            have the expected structure.
    """
    del infer_shape
    if fn_output_signature is None:
        fn_output_signature = dtype
    if not callable(fn):
        name_of = getattr(fn, "__name__", repr(fn))
        raise TypeError(f"The provided function {name_of} is not callable.fn must be callable.")
    if not parallel_iterations:
        parallel_iterations = 10
    elems_flat_in = _flatten(elems)
    if not elems_flat_in:
        raise ValueError(
            "elems must be a Tensor or (possibly nested) sequence of Tensors. "
            f"Got {elems}, which does not contain any Tensors."
        )
    with ops.name_scope(name, "map", [e for e in elems_flat_in if isinstance(e, ops.Tensor)]):
        elems_flat = [ops.convert_to_tensor(e, name="elem") for e in elems_flat_in]
        n, n_static = _leading_dim(elems_flat)
        if fn_output_signature is None:
            out_dtypes = [e.dtype.base_dtype for e in elems_flat]
            out_structure = elems
        else:
            out_dtypes = [dtypes.as_dtype(d) for d in _flatten(fn_output_signature)]
            out_structure = fn_output_signature
        row_shapes: list[tensor_shape.TensorShape] = []

        def compute(i, accs):
            value = _pack_as(elems, [_read(e, i) for e in elems_flat])
            result = fn(value)
            _assert_same_structure(out_structure, result)
            flat = [ops.convert_to_tensor(r) for r in _flatten(result)]
            for r, d in zip(flat, out_dtypes, strict=True):
                if r.dtype.base_dtype != d:
                    raise TypeError(
                        f"TensorArray dtype is {d.name} but Op is trying to write dtype "
                        f"{r.dtype.base_dtype.name}."
                    )
            row_shapes[:] = [r.shape for r in flat]
            return i + 1, [_append(a, r) for a, r in zip(accs, flat, strict=True)]

        accs = [_empty_rows(dtype=d) for d in out_dtypes]
        _, accs = while_loop(
            lambda i, _: i < n,
            compute,
            (constant_op.constant(0), accs),
            shape_invariants=(
                tensor_shape.TensorShape([]),
                [tensor_shape.TensorShape(None)] * len(accs),
            ),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
        )
        results = [_finish_stack(a, n, n_static, s) for a, s in zip(accs, row_shapes, strict=True)]
        return _pack_as(out_structure, results)


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, reverse):
    _check_callable(fn)
    default = "foldr" if reverse else "foldl"
    with ops.name_scope(name, default, [e for e in _flatten(elems) if isinstance(e, ops.Tensor)]):
        elems_flat = [ops.convert_to_tensor(e, name="elem") for e in _flatten(elems)]
        n, _ = _leading_dim(elems_flat)
        n_t = ops.convert_to_tensor(n, dtype=dtypes.int32)
        if initializer is None:
            first = n_t - 1 if reverse else 0
            a = _pack_as(elems, [_read(e, first) for e in elems_flat])
            i = n_t - 2 if reverse else constant_op.constant(1)
        else:
            a = initializer
            i = n_t - 1 if reverse else constant_op.constant(0)

        def compute(i, a):
            elem_i = _pack_as(elems, [_read(e, i) for e in elems_flat])
            a = fn(a, elem_i)
            return [i - 1 if reverse else i + 1, a]

        _, r_a = while_loop(
            (lambda i, a: i >= 0) if reverse else (lambda i, a: i < n_t),
            compute,
            [i, a],
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
        )
        return r_a


def foldl(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
):
    """Folds `fn` over `elems` from the left (TF-1.x `tf.foldl`).

    `a = fn(a, elems[i])` for i = 0, 1, ... (elements unstacked on dimension 0).

    Args:
        fn: A callable `(accumulator, element) -> accumulator`.
        elems: A tensor or (possibly nested) sequence of tensors.
        initializer: The first accumulator; by default `elems[0]` (the fold then
            starts at element 1).
        parallel_iterations: Passed to `while_loop`.
        back_prop: Whether gradients flow through the loop.
        swap_memory: Accepted for compatibility.
        name: A name scope (default `foldl`).

    Returns:
        The final accumulator.

    Raises:
        TypeError: If `fn` is not callable.
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, False)


def foldr(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
):
    """Folds `fn` over `elems` from the right (TF-1.x `tf.foldr`).

    `a = fn(a, elems[i])` for i = n-1, n-2, ...

    Args:
        fn: A callable `(accumulator, element) -> accumulator`.
        elems: A tensor or (possibly nested) sequence of tensors.
        initializer: The first accumulator; by default `elems[n-1]`.
        parallel_iterations: Passed to `while_loop`.
        back_prop: Whether gradients flow through the loop.
        swap_memory: Accepted for compatibility.
        name: A name scope (default `foldr`).

    Returns:
        The final accumulator.

    Raises:
        TypeError: If `fn` is not callable.
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, True)


def scan(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    reverse=False,
    name=None,
):
    """Every intermediate accumulator of a fold of `fn` over `elems` (`tf.scan`).

    The accumulators are stacked on a new dimension 0.

    Args:
        fn: A callable `(accumulator, element) -> accumulator`.
        elems: A tensor or (possibly nested) sequence of tensors.
        initializer: The first accumulator (structure of `fn`'s result); by default
            the first element (the last with `reverse`), which is also the first
            result.
        parallel_iterations: Passed to `while_loop`.
        back_prop: Whether gradients flow through the loop.
        swap_memory: Accepted for compatibility.
        infer_shape: Accepted for compatibility.
        reverse: Scan from the last element to the first (results stay in element
            order).
        name: A name scope (default `scan`).

    Returns:
        The stacked accumulators, in the structure of `initializer` (or `elems`).

    Raises:
        TypeError: If `fn` is not callable.
        ValueError: If `fn`'s result does not have the accumulator's structure.
    """
    del infer_shape
    _check_callable(fn)
    input_is_sequence = _is_sequence(elems)
    with ops.name_scope(name, "scan", [e for e in _flatten(elems) if isinstance(e, ops.Tensor)]):
        elems_flat = [ops.convert_to_tensor(e, name="elem") for e in _flatten(elems)]
        n, n_static = _leading_dim(elems_flat)
        n_t = ops.convert_to_tensor(n, dtype=dtypes.int32)
        if initializer is None:
            out_structure = elems
            first = n_t - 1 if reverse else 0
            a_flat = [_read(e, first) for e in elems_flat]
            accs = [array_ops.expand_dims(a, 0) for a in a_flat]
            start = 1
        else:
            out_structure = initializer
            a_flat = [ops.convert_to_tensor(x) for x in _flatten(initializer)]
            accs = [_empty_rows(like=a) for a in a_flat]
            start = 0
        output_is_sequence = _is_sequence(out_structure)

        def pack_out(flat):
            return _pack_as(out_structure, flat) if output_is_sequence else flat[0]

        def compute(i, a_flat, accs):
            elem = [_read(e, i) for e in elems_flat]
            packed_elems = _pack_as(elems, elem) if input_is_sequence else elem[0]
            a_out = fn(pack_out(a_flat), packed_elems)
            _assert_same_structure(out_structure, a_out)
            flat = [ops.convert_to_tensor(x) for x in _flatten(a_out)]
            accs = [_append(acc, v, front=reverse) for acc, v in zip(accs, flat, strict=True)]
            return (i - 1 if reverse else i + 1, flat, accs)

        initial_i = n_t - 1 - start if reverse else constant_op.constant(start)
        _, _, accs = while_loop(
            (lambda i, _1, _2: i >= 0) if reverse else (lambda i, _1, _2: i < n_t),
            compute,
            (initial_i, a_flat, accs),
            shape_invariants=(
                tensor_shape.TensorShape([]),
                [a.shape for a in a_flat],
                [tensor_shape.TensorShape([None]).concatenate(a.shape) for a in a_flat],
            ),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
        )
        for acc in accs:
            acc.set_shape(tensor_shape.TensorShape([n_static]).concatenate(acc.shape[1:]))
        return pack_out(accs)


__all__ = ["foldl", "foldr", "map_fn", "scan"]
