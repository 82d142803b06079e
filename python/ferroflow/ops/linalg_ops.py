"""`tf.norm` (`tf.linalg.norm`): vector and matrix norms, TF's composite of reductions."""

from __future__ import annotations

import numpy as np

from ..framework import ops
from . import array_ops, math_ops

_MATRIX_NORMS = ["euclidean", "fro", 1, 2, np.inf]
_VECTOR_NORMS = ["euclidean", 1, 2, np.inf]


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):
    """Computes the norm of vectors, matrices, and tensors (TF's `linalg_ops.norm`).

    Vector norms: the 1-norm, the Euclidean (2-) norm, the inf-norm and the p-norm
    for any p > 0; matrix norms: Frobenius, 1-norm and inf-norm.

    Args:
        tensor: A floating-point tensor.
        ord: `'fro'`, `'euclidean'` (the default: the Frobenius norm of a matrix, the
            2-norm of a vector), `1`, `2`, `np.inf`, or any positive real (a p-norm).
            `'fro'` is a matrix norm only; matrix norms take `'euclidean'`, `'fro'`,
            `1`, `2` and `np.inf`.
        axis: None (the norm of the flattened tensor as a vector), an int (vector
            norms along that axis), or a pair of ints (matrix norms over those axes).
            Negative axes count from the end.
        keepdims: Keep the reduced axes with size 1.
        name: Name scope of the ops (default `norm`).
        keep_dims: Deprecated alias of `keepdims`.

    Returns:
        A tensor of `tensor`'s type holding the norms.

    Raises:
        ValueError: If `ord` or `axis` is invalid, or both `keepdims` and `keep_dims`
            are given.
        NotImplementedError: For the matrix 2-norm (the largest singular value),
            which needs TF's `Svd` op: ferroflow has no such kernel.
    """
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'.")
        keepdims = keep_dims
    if keepdims is None:
        keepdims = False

    is_matrix_norm = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix_norm:
        axis = tuple(axis)
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise ValueError(
                f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}"
            )
        if ord not in _MATRIX_NORMS:
            raise ValueError(f"'ord' must be a supported matrix norm in {_MATRIX_NORMS}, got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError(
                f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}"
            )
        if (not np.isreal(ord) or ord <= 0) and ord not in _VECTOR_NORMS:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)

    with ops.name_scope(name, "norm", [tensor]):
        tensor = ops.convert_to_tensor(tensor)
        if ord in ["fro", "euclidean", 2, 2.0]:
            if is_matrix_norm and ord in [2, 2.0]:
                raise NotImplementedError(
                    "norm(ord=2) of matrices is their largest singular value: TF computes "
                    "it with the Svd op, which ferroflow does not have"
                )
            # (conj(tensor) is tensor itself: ferroflow has no complex types.)
            result = math_ops.sqrt(math_ops.reduce_sum(tensor * tensor, axis, keepdims=True))
        else:
            result = math_ops.abs(tensor)
            if ord == 1:
                sum_axis = None if axis is None else axis[0]
                result = math_ops.reduce_sum(result, sum_axis, keepdims=True)
                if is_matrix_norm:
                    result = math_ops.reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix_norm:
                    result = math_ops.reduce_sum(result, axis[1], keepdims=True)
                max_axis = None if axis is None else axis[0]
                result = math_ops.reduce_max(result, max_axis, keepdims=True)
            else:
                # General p-norms (positive p only).
                result = math_ops.pow(
                    math_ops.reduce_sum(math_ops.pow(result, ord), axis, keepdims=True),
                    1.0 / ord,
                )
        if not keepdims:
            result = array_ops.squeeze(result, axis)
        return result
