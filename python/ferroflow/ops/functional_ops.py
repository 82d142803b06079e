"""`tf.map_fn`, `tf.foldl`, `tf.foldr` and `tf.scan` on `while_loop` and `TensorArray`s.

These are TF-1.x's constructions. The elements are unstacked into `TensorArray`s
read once per iteration, and each result is written to one (O(1) per iteration, no
copy of what came before), so a loop over `n` elements costs linear time and memory,
its gradient too.
"""

from __future__ import annotations

from .._compat import zip_strict
from ..framework import constant_op, dtypes, ops, tensor_shape
from . import array_ops
from .control_flow_ops import _assert_same_structure, _flatten, _is_sequence, _pack_as, while_loop
from .tensor_array_ops import TensorArray


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


def _unstacked(elems_flat, n, element_shapes=False):
    """One `TensorArray` per element tensor, holding its rows."""
    return [
        TensorArray(
            dtype=e.dtype.base_dtype,
            size=n,
            dynamic_size=False,
            element_shape=e.shape[1:] if element_shapes else None,
            infer_shape=True,
        ).unstack(e)
        for e in elems_flat
    ]


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
        infer_shape: Whether all results must have one shape (default True).
        name: A name scope (default `map`).
        fn_output_signature: Same as `dtype` (TF-2 name).

    Returns:
        The stacked results, in the structure of `dtype` (or of `elems`).

    Raises:
        TypeError: If `fn` is not callable.
        ValueError: If `elems` holds no tensors or scalars, or `fn`'s result does not
            have the expected structure.
    """
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
        elems_ta = _unstacked(elems_flat, n)
        accs_ta = [
            TensorArray(dtype=d, size=n, dynamic_size=False, infer_shape=infer_shape)
            for d in out_dtypes
        ]

        def compute(i, tas):
            value = _pack_as(elems, [ta.read(i) for ta in elems_ta])
            result = fn(value)
            _assert_same_structure(out_structure, result)
            flat = [ops.convert_to_tensor(r) for r in _flatten(result)]
            for r, d in zip_strict(flat, out_dtypes):
                if r.dtype.base_dtype != d:
                    raise TypeError(
                        f"TensorArray dtype is {d.name} but Op is trying to write dtype "
                        f"{r.dtype.base_dtype.name}."
                    )
            return i + 1, [ta.write(i, r) for ta, r in zip_strict(tas, flat)]

        _, r_a = while_loop(
            lambda i, _: i < n,
            compute,
            (constant_op.constant(0), accs_ta),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        results = [r.stack() for r in r_a]
        for r in results:
            r.set_shape(tensor_shape.TensorShape([n_static]).concatenate(r.shape[1:]))
        return _pack_as(out_structure, results)


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, reverse):
    _check_callable(fn)
    default = "foldr" if reverse else "foldl"
    with ops.name_scope(name, default, [e for e in _flatten(elems) if isinstance(e, ops.Tensor)]):
        elems_flat = [ops.convert_to_tensor(e, name="elem") for e in _flatten(elems)]
        n, _ = _leading_dim(elems_flat)
        n_t = ops.convert_to_tensor(n, dtype=dtypes.int32)
        elems_ta = _unstacked(elems_flat, n)
        if initializer is None:
            first = n_t - 1 if reverse else 0
            a = _pack_as(elems, [ta.read(first) for ta in elems_ta])
            i = n_t - 2 if reverse else constant_op.constant(1)
        else:
            a = initializer
            i = n_t - 1 if reverse else constant_op.constant(0)

        def compute(i, a):
            elem_i = _pack_as(elems, [ta.read(i) for ta in elems_ta])
            a = fn(a, elem_i)
            return [i - 1 if reverse else i + 1, a]

        _, r_a = while_loop(
            (lambda i, a: i >= 0) if reverse else (lambda i, a: i < n_t),
            compute,
            [i, a],
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
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
        infer_shape: Whether all results must have one shape (default True).
        reverse: Scan from the last element to the first (results stay in element
            order).
        name: A name scope (default `scan`).

    Returns:
        The stacked accumulators, in the structure of `initializer` (or `elems`).

    Raises:
        TypeError: If `fn` is not callable.
        ValueError: If `fn`'s result does not have the accumulator's structure.
    """
    _check_callable(fn)
    input_is_sequence = _is_sequence(elems)
    with ops.name_scope(name, "scan", [e for e in _flatten(elems) if isinstance(e, ops.Tensor)]):
        elems_flat = [ops.convert_to_tensor(e, name="elem") for e in _flatten(elems)]
        n, n_static = _leading_dim(elems_flat)
        n_t = ops.convert_to_tensor(n, dtype=dtypes.int32)
        elems_ta = _unstacked(elems_flat, n, element_shapes=True)
        if initializer is None:
            out_structure = elems
            a_flat = [ta.read(n_t - 1 if reverse else 0) for ta in elems_ta]
            start = 1
        else:
            out_structure = initializer
            a_flat = [ops.convert_to_tensor(x) for x in _flatten(initializer)]
            start = 0
        accs_ta = [
            TensorArray(
                dtype=a.dtype.base_dtype,
                size=n,
                element_shape=a.shape if infer_shape else None,
                dynamic_size=False,
                infer_shape=infer_shape,
            )
            for a in a_flat
        ]
        if initializer is None:
            last = n_t - 1 if reverse else 0
            accs_ta = [ta.write(last, a) for ta, a in zip_strict(accs_ta, a_flat)]
        output_is_sequence = _is_sequence(out_structure)

        def pack_out(flat):
            return _pack_as(out_structure, flat) if output_is_sequence else flat[0]

        def compute(i, a_flat, tas):
            elem = [ta.read(i) for ta in elems_ta]
            packed_elems = _pack_as(elems, elem) if input_is_sequence else elem[0]
            a_out = fn(pack_out(a_flat), packed_elems)
            _assert_same_structure(out_structure, a_out)
            flat = [ops.convert_to_tensor(x) for x in _flatten(a_out)]
            tas = [ta.write(i, v) for ta, v in zip_strict(tas, flat)]
            return (i - 1 if reverse else i + 1, flat, tas)

        initial_i = n_t - 1 - start if reverse else constant_op.constant(start)
        _, _, r_a = while_loop(
            (lambda i, _1, _2: i >= 0) if reverse else (lambda i, _1, _2: i < n_t),
            compute,
            (initial_i, a_flat, accs_ta),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        results = [r.stack() for r in r_a]
        for r in results:
            r.set_shape(tensor_shape.TensorShape([n_static]).concatenate(r.shape[1:]))
        return pack_out(results)


__all__ = ["foldl", "foldr", "map_fn", "scan"]
