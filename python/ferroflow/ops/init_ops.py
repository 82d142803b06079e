"""TF-1.x initializers (`tf.zeros_initializer`, `tf.glorot_uniform_initializer`, ...).

An initializer is a callable `init(shape, dtype=None, partition_info=None)` that
builds graph ops for a variable's initial value. `tf.get_variable` calls it inside
the variable's `Initializer` name scope. The classes port TF's `init_ops.py`: the
same constructor arguments, the same random ops with the same seeds (so seeded
initializers give TensorFlow's numbers), the same `get_config`.

Some build other ops than TF's, with TF's values: `Orthogonal` and the orthogonal
convolution kernels (`ConvolutionDeltaOrthogonal`, `ConvolutionOrthogonal1D/2D/3D`)
orthonormalise their random matrices by Gram-Schmidt (ferroflow has no `Qr` op; TF's
Householder QR with the signs of R's diagonal taken out is the same unique
factorisation, so the values agree to rounding), `Identity` and the kernels' identity
matrices use `OneHot` instead of `MatrixDiag`, and the delta-orthogonal kernel places
its matrix with `Pad` instead of `ScatterNd`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._compat import zip_strict
from ..framework import constant_op, dtypes, ops, tensor_shape
from . import array_ops, indexing_ops, math_ops, random_ops


def _assert_float_dtype(dtype):
    if not dtype.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {dtype}.")
    return dtype


def _compute_fans(shape):
    """(fan_in, fan_out) of a weight shape, as TF's `_compute_fans`."""
    if len(shape) < 1:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape[0], shape[1]
    else:
        receptive_field_size = 1
        for dim in shape[:-2]:
            receptive_field_size *= dim
        fan_in = shape[-2] * receptive_field_size
        fan_out = shape[-1] * receptive_field_size
    return int(fan_in), int(fan_out)


class Initializer:
    """Base class of the initializers: `__call__(shape, dtype, partition_info)`."""

    def __call__(self, shape, dtype=None, partition_info=None):
        """Builds the initial-value tensor of `shape` and `dtype`."""
        raise NotImplementedError

    def get_config(self) -> dict:
        """The constructor arguments, as a JSON-serialisable dict."""
        return {}

    @classmethod
    def from_config(cls, config):
        """An initializer built from `get_config()`'s dict."""
        return cls(**config)


class Zeros(Initializer):
    """Initializer of tensors filled with 0 (`tf.zeros_initializer`)."""

    def __init__(self, dtype=dtypes.float32):
        """Args: dtype: the default dtype when `__call__` gets none."""
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        """`tf.zeros(shape, dtype)`."""
        if dtype is None:
            dtype = self.dtype
        return array_ops.zeros(shape, dtype)

    def get_config(self) -> dict:
        """`{"dtype": ...}`."""
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    """Initializer of tensors filled with 1 (`tf.ones_initializer`)."""

    def __init__(self, dtype=dtypes.float32):
        """Args: dtype: the default dtype when `__call__` gets none."""
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        """`tf.ones(shape, dtype)`."""
        if dtype is None:
            dtype = self.dtype
        return array_ops.ones(shape, dtype)

    def get_config(self) -> dict:
        """`{"dtype": ...}`."""
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    """Initializer of tensors holding `value` (`tf.constant_initializer`).

    A list shorter than the shape is padded with its last element; `verify_shape`
    requires `value` to have exactly the shape (TF-1.x `tf.constant` rules).
    """

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        """Args: value: scalar, list, tuple or numpy array; dtype; verify_shape.

        Raises:
            TypeError: For another kind of `value`.
        """
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(
                f"Invalid type for initial value={value} of type: "
                f"{type(value).__name__}. Expected Python scalar, list or tuple of "
                "values, or numpy.ndarray."
            )
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        """`tf.constant(value, dtype, shape, verify_shape)`."""
        if dtype is None:
            dtype = self.dtype
        if verify_shape is None:
            verify_shape = self._verify_shape
        return constant_op.constant(self.value, dtype=dtype, shape=shape, verify_shape=verify_shape)

    def get_config(self) -> dict:
        """`{"value": ..., "dtype": ...}`."""
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    """Uniform values in `[minval, maxval)` (`tf.random_uniform_initializer`)."""

    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=dtypes.float32):
        """Args: minval, maxval (default 1 for floats), seed, dtype."""
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        """`tf.random_uniform(shape, minval, maxval, dtype, seed)`."""
        if dtype is None:
            dtype = self.dtype
        return random_ops.random_uniform(shape, self.minval, self.maxval, dtype, seed=self.seed)

    def get_config(self) -> dict:
        """`{"minval", "maxval", "seed", "dtype"}`."""
        return {
            "minval": self.minval,
            "maxval": self.maxval,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class _MeanStddev(Initializer):
    """An initializer drawing from a distribution given by mean and stddev."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        """Args: mean, stddev, seed, dtype (floating).

        Raises:
            ValueError: If `dtype` is not floating point.
        """
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    @staticmethod
    def _draw(shape, mean, stddev, dtype, seed):
        raise NotImplementedError  # each subclass names its random op

    def __call__(self, shape, dtype=None, partition_info=None):
        """The random op's values of `shape` (`dtype` defaults to the initializer's)."""
        if dtype is None:
            dtype = self.dtype
        return self._draw(shape, self.mean, self.stddev, dtype, self.seed)

    def get_config(self) -> dict:
        """`{"mean", "stddev", "seed", "dtype"}`."""
        return {
            "mean": self.mean,
            "stddev": self.stddev,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class RandomNormal(_MeanStddev):
    """Normally distributed values (`tf.random_normal_initializer`)."""

    @staticmethod
    def _draw(shape, mean, stddev, dtype, seed):
        return random_ops.random_normal(shape, mean, stddev, dtype, seed=seed)


class TruncatedNormal(_MeanStddev):
    """Normal values redrawn beyond two stddevs (`tf.truncated_normal_initializer`)."""

    @staticmethod
    def _draw(shape, mean, stddev, dtype, seed):
        return random_ops.truncated_normal(shape, mean, stddev, dtype, seed=seed)


class UniformUnitScaling(Initializer):
    """Uniform in `±sqrt(3 / input_size) * factor` (deprecated in TF for VarianceScaling)."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        """Args: factor, seed, dtype (floating)."""
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        """Uniform values scaled by the product of all dimensions but the last."""
        if dtype is None:
            dtype = self.dtype
        scale_shape = shape if partition_info is None else partition_info.full_shape
        input_size = 1.0
        for dim in scale_shape[:-1]:
            input_size *= float(dim)
        input_size = max(input_size, 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return random_ops.random_uniform(shape, -max_val, max_val, dtype, seed=self.seed)

    def get_config(self) -> dict:
        """`{"factor", "seed", "dtype"}`."""
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


class VarianceScaling(Initializer):
    """Values whose variance is `scale / fan` (`tf.variance_scaling_initializer`).

    `mode` picks the fan (`fan_in`, `fan_out`, `fan_avg`); `distribution` is
    `truncated_normal` (alias `normal`; stddev corrected by TF's 0.8796... for
    the truncation), `untruncated_normal` or `uniform` (limit `sqrt(3 * scale)`).
    """

    def __init__(
        self,
        scale=1.0,
        mode="fan_in",
        distribution="truncated_normal",
        seed=None,
        dtype=dtypes.float32,
    ):
        """Args: scale (> 0), mode, distribution, seed, dtype (floating).

        Raises:
            ValueError: For a non-positive scale, an unknown mode or distribution,
                or a non-floating dtype (TF's messages).
        """
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(
                f"Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). "
                f"Received: {mode}"
            )
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(
                "Argument `distribution` should be one of ('normal', uniform', "
                f"'truncated_normal', 'untruncated_normal'). Received: {distribution}"
            )
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        """The random op of `distribution` with the scale for `shape`."""
        if dtype is None:
            dtype = self.dtype
        scale = self.scale
        scale_shape = shape if partition_info is None else partition_info.full_shape
        fan_in, fan_out = _compute_fans(scale_shape)
        if self.mode == "fan_in":
            scale /= max(1.0, fan_in)
        elif self.mode == "fan_out":
            scale /= max(1.0, fan_out)
        else:
            scale /= max(1.0, (fan_in + fan_out) / 2.0)
        if self.distribution in ("normal", "truncated_normal"):
            # The stddev of a unit normal truncated to (-2, 2).
            stddev = math.sqrt(scale) / 0.87962566103423978
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            stddev = math.sqrt(scale)
            return random_ops.random_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self) -> dict:
        """`{"scale", "mode", "distribution", "seed", "dtype"}`."""
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


def _orthonormal_columns(a, rows, cols):
    """Q of the QR factorisation of `a` (rows >= cols) whose R has a positive diagonal.

    Classical Gram-Schmidt with reorthogonalisation ("twice is enough"), column by
    column in graph ops: each column loses its projection on the earlier ones twice,
    then is normalised.
    """
    with ops.name_scope("Qr"):
        q = None
        for j in range(cols):
            v = array_ops.slice(a, [0, j], [rows, 1])
            if q is not None:
                for _ in range(2):
                    v = v - math_ops.matmul(q, math_ops.matmul(q, v, transpose_a=True))
            v = v * math_ops.rsqrt(math_ops.reduce_sum(math_ops.square(v)))
            q = v if q is None else array_ops.concat([q, v], 1)
        return q


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix, reshaped to `shape` (`tf.orthogonal_initializer`).

    The shape is flattened to `(prod(shape[:-1]), shape[-1])`; the Q factor of a
    random normal matrix of that shape (or its transpose) is scaled by `gain`.
    """

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        """Args: gain, seed, dtype (floating)."""
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))
        self.seed = seed

    def __call__(self, shape, dtype=None, partition_info=None):
        """`gain * reshape(q, shape)` for the Q of a seeded random normal matrix.

        Raises:
            ValueError: If `shape` has fewer than two dimensions (TF's message).
        """
        if dtype is None:
            dtype = self.dtype
        if len(shape) < 2:
            raise ValueError(
                "The tensor to initialize, specified by argument `shape` must be at "
                f"least two-dimensional. Received shape={shape}"
            )
        num_rows = 1
        for dim in shape[:-1]:
            num_rows *= dim
        num_rows = int(num_rows)
        num_cols = int(shape[-1])
        flat_shape = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        a = random_ops.random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q = _orthonormal_columns(a, *flat_shape)
        if num_rows < num_cols:
            q = array_ops.transpose(q)
        return self.gain * array_ops.reshape(q, shape)

    def get_config(self) -> dict:
        """`{"gain", "seed", "dtype"}`."""
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """`gain` times the identity matrix (2-D shapes only; `tf.initializers.identity`)."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        """Args: gain, dtype (floating)."""
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        """`gain * eye(rows, cols)`.

        Raises:
            ValueError: If `shape` is not 2-D (TF's message).
        """
        full_shape = shape if partition_info is None else partition_info.full_shape
        if len(full_shape) != 2:
            raise ValueError(
                "The tensor to initialize, specified by argument `shape` must be at "
                f"least two-dimensional. Received shape={shape}"
            )
        if dtype is None:
            dtype = self.dtype
        if isinstance(full_shape, tensor_shape.TensorShape):
            full_shape = full_shape.as_list()
        rows, cols = full_shape
        eye = indexing_ops.one_hot(math_ops.range(rows), cols, dtype=dtype)
        if partition_info is not None:
            eye = array_ops.slice(eye, partition_info.var_offset, shape)
        return self.gain * eye

    def get_config(self) -> dict:
        """`{"gain", "dtype"}`."""
        return {"gain": self.gain, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """Glorot (Xavier) uniform: `VarianceScaling(1, "fan_avg", "uniform")`.

    As in TF, the constructor's `dtype` is ignored (float32 unless `__call__` says).
    """

    def __init__(self, seed=None, dtype=dtypes.float32):
        """Args: seed; dtype (ignored, as in TF)."""
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed)

    def get_config(self) -> dict:
        """`{"seed", "dtype"}`."""
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Glorot (Xavier) normal: `VarianceScaling(1, "fan_avg", "truncated_normal")`."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        """Args: seed; dtype (ignored, as in TF)."""
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed)

    def get_config(self) -> dict:
        """`{"seed", "dtype"}`."""
        return {"seed": self.seed, "dtype": self.dtype.name}


def _orthonormal_q(a, n):
    """TF's `q * sign(diag(r))` for `q, r = qr(a)` of a square `[n, n]` matrix `a`."""
    return _orthonormal_columns(a, n, n)


class ConvolutionDeltaOrthogonal(Initializer):
    """A delta-orthogonal convolution kernel (TF's `ConvolutionDeltaOrthogonal`).

    The kernel, of rank 3, 4 or 5 with no more input than output filters, is zero but
    at its centre pixel, which holds the first `shape[-2]` rows of a random orthogonal
    `[shape[-1], shape[-1]]` matrix times `gain` (algorithm 2 of Xiao et al., 2018).
    TF places the matrix with `ScatterNd`; ferroflow pads it with zeros (`Pad`).
    """

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        """Args: gain, seed, dtype (floating).

        Raises:
            ValueError: If `dtype` is not floating point.
        """
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))
        self.seed = seed

    def __call__(self, shape, dtype=None, partition_info=None):
        """The `shape` kernel: an orthogonal matrix at the centre, zeros elsewhere.

        Raises:
            ValueError: For a rank outside 3..5 or `shape[-2] > shape[-1]` (TF's
                messages).
        """
        if dtype is None:
            dtype = self.dtype
        if len(shape) < 3 or len(shape) > 5:
            raise ValueError(
                "The tensor to initialize, specified by argument `shape` must be at "
                "least three-dimensional and at most five-dimensional. Received "
                f"shape={shape}"
            )
        if shape[-2] > shape[-1]:
            raise ValueError(
                f"In_filters, specified by shape[-2]={shape[-2]} cannot be greater than "
                f"out_filters, specified by shape[-1]={shape[-1]}."
            )
        n = int(shape[-1])
        a = random_ops.random_normal([n, n], dtype=dtype, seed=self.seed)
        q = _orthonormal_q(a, n)
        q = array_ops.slice(q, [0, 0], [int(shape[-2]), n])
        q = q * array_ops.cast(self.gain, dtype=dtype)
        spatial = [int(d) for d in shape[:-2]]
        for _ in spatial:
            q = array_ops.expand_dims(q, 0)
        paddings = [[(d - 1) // 2, d - 1 - (d - 1) // 2] for d in spatial] + [[0, 0], [0, 0]]
        return indexing_ops.pad(q, paddings)

    def get_config(self) -> dict:
        """`{"gain", "seed", "dtype"}`."""
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class ConvolutionOrthogonal(Initializer):
    """Base class of the orthogonal convolution kernels (TF's `ConvolutionOrthogonal`).

    The kernels are built from random orthogonal matrices and symmetric projections
    (algorithm 1 of Xiao et al., 2018), drawn in `self.dtype`. As in TF, a truthy
    `seed` is incremented after each random draw, so calling an initializer twice
    gives other numbers.
    """

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        """Args: gain, seed, dtype (floating).

        Raises:
            ValueError: If `dtype` is not floating point.
        """
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))
        self.seed = seed

    def __call__(self, shape, dtype=None, partition_info=None):
        """Implemented by the 1-D, 2-D and 3-D subclasses."""
        raise NotImplementedError

    def get_config(self) -> dict:
        """`{"gain", "seed", "dtype"}`."""
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}

    def _orthogonal_matrix(self, n):
        """A random `[n, n]` orthogonal matrix (TF's draw, then the next seed)."""
        a = random_ops.random_normal([n, n], dtype=self.dtype, seed=self.seed)
        if self.seed:
            self.seed += 1
        return _orthonormal_q(a, n)

    def _symmetric_projection(self, n):
        """`c @ c^T` for an orthogonal matrix `c` with random columns zeroed."""
        q = self._orthogonal_matrix(n)
        mask = array_ops.cast(random_ops.random_normal([n], seed=self.seed) > 0, self.dtype)
        if self.seed:
            self.seed += 1
        c = math_ops.multiply(q, mask)
        return math_ops.matmul(c, array_ops.transpose(c))

    def _eye(self, n):
        return indexing_ops.one_hot(math_ops.range(n), n, dtype=self.dtype)

    def _check_filters(self, shape):
        if shape[-2] > shape[-1]:
            raise ValueError(
                f"In_filters, specified by shape[-2]={shape[-2]} cannot be greater than "
                f"out_filters, specified by shape[-1]={shape[-1]}."
            )

    def _orthogonal_kernel(self, ksize, cin, cout, dims):
        """The `[ksize] * dims + [cin, cout]` kernel (TF's `_orthogonal_kernel`)."""
        if cin > cout:
            raise ValueError(
                f"The number of input channels (cin={cin}) cannot exceed the number of "
                f"output channels (cout={cout})."
            )
        orth = array_ops.slice(self._orthogonal_matrix(cout), [0, 0], [cin, cout])
        if ksize == 1:
            for _ in range(dims):
                orth = array_ops.expand_dims(orth, 0)
            return orth
        p = self._block_orth([self._symmetric_projection(cout) for _ in range(dims)])
        for _ in range(ksize - 2):
            temp = self._block_orth([self._symmetric_projection(cout) for _ in range(dims)])
            p = self._matrix_conv(p, temp, dims)
        for index in sorted(p):
            p[index] = math_ops.matmul(orth, p[index])
        return self._dict_to_tensor(p, ksize, dims)

    def _block_orth(self, projections):
        """The `2 x ... x 2` kernel of products of `p` or `1 - p` per projection."""
        n = projections[0].shape.as_list()[0]
        for p in projections[1:]:
            if p.shape.as_list() != projections[0].shape.as_list():
                raise ValueError(
                    "The dimension of the matrices must be the same. Received "
                    + " and ".join(f"p{i + 1}.shape={q.shape}" for i, q in enumerate(projections))
                    + "."
                )
        eye = self._eye(n)
        dims = len(projections)
        kernel: dict[tuple[int, ...], Any] = {}
        if dims == 1:
            kernel[(0,)] = projections[0]
            kernel[(1,)] = eye - projections[0]
            return kernel
        if dims == 2:
            p1, p2 = projections
            kernel[0, 0] = math_ops.matmul(p1, p2)
            kernel[0, 1] = math_ops.matmul(p1, (eye - p2))
            kernel[1, 0] = math_ops.matmul((eye - p1), p2)
            kernel[1, 1] = math_ops.matmul((eye - p1), (eye - p2))
            return kernel

        def pick(i, p):
            return i * p + (1 - i) * (eye - p)

        p1, p2, p3 = projections
        for i in (0, 1):
            for j in (0, 1):
                for k in (0, 1):
                    kernel[i, j, k] = math_ops.matmul(
                        math_ops.matmul(pick(i, p1), pick(j, p2)), pick(k, p3)
                    )
        return kernel

    def _matrix_conv(self, m1, m2, dims):
        """The `dims`-dimensional convolution of two dicts of `[n, n]` matrices."""
        n = m1[(0,) * dims].shape.as_list()[0]
        if n != m2[(0,) * dims].shape.as_list()[0]:
            raise ValueError("The entries in matrices m1 and m2 must have the same dimensions.")
        k = round(len(m1) ** (1.0 / dims))
        l = round(len(m2) ** (1.0 / dims))  # noqa: E741 (TF's name)
        size = k + l - 1
        result = {}
        for out in np.ndindex(*([size] * dims)):
            acc = array_ops.zeros([n, n], self.dtype)
            for first in np.ndindex(*[min(k, o + 1) for o in out]):
                second = tuple(o - f for o, f in zip_strict(out, first))
                if all(s < l for s in second):
                    acc += math_ops.matmul(m1[first], m2[second])
            result[out] = acc
        return result

    @staticmethod
    def _dict_to_tensor(p, ksize, dims):
        def build(prefix):
            if len(prefix) == dims:
                return p[prefix]
            return array_ops.stack([build((*prefix, i)) for i in range(ksize)])

        return build(())


class ConvolutionOrthogonal1D(ConvolutionOrthogonal):
    """An orthogonal 1-D convolution kernel `[k, cin, cout]` (`cin <= cout`).

    The convolution is an isometry (times `gain`) under circular padding.
    """

    def __call__(self, shape, dtype=None, partition_info=None):
        """The `shape` kernel, times `gain` (cast to `dtype`).

        Raises:
            ValueError: If `shape` is not 3-D or has `shape[-2] > shape[-1]`.
        """
        if dtype is None:
            dtype = self.dtype
        if len(shape) != 3:
            raise ValueError(
                "The tensor to initialize, specified by argument `shape` must be "
                f"three-dimensional. Received shape={shape}"
            )
        self._check_filters(shape)
        kernel = self._orthogonal_kernel(int(shape[0]), int(shape[-2]), int(shape[-1]), 1)
        return kernel * array_ops.cast(self.gain, dtype=dtype)


class ConvolutionOrthogonal2D(ConvolutionOrthogonal):
    """An orthogonal 2-D convolution kernel `[k, k, cin, cout]` (`cin <= cout`).

    The convolution is an isometry (times `gain`) under circular padding.
    """

    def __call__(self, shape, dtype=None, partition_info=None):
        """The `shape` kernel, times `gain` (cast to `dtype`).

        Raises:
            ValueError: If `shape` is not 4-D, has `shape[-2] > shape[-1]` or unequal
                kernel sizes.
        """
        if dtype is None:
            dtype = self.dtype
        if len(shape) != 4:
            raise ValueError(
                "The tensor to initialize, specified by argument `shape` must be "
                f"four-dimensional. Received: {shape}"
            )
        self._check_filters(shape)
        if shape[0] != shape[1]:
            raise ValueError(
                f"Kernel sizes, specified by shape[0]={shape[0]} and shape[1]={shape[1]} "
                "must be equal."
            )
        kernel = self._orthogonal_kernel(int(shape[0]), int(shape[2]), int(shape[3]), 2)
        return kernel * array_ops.cast(self.gain, dtype=dtype)


class ConvolutionOrthogonal3D(ConvolutionOrthogonal):
    """An orthogonal 3-D convolution kernel `[k, k, k, cin, cout]` (`cin <= cout`).

    The convolution is an isometry (times `gain`) under circular padding.
    """

    def __call__(self, shape, dtype=None, partition_info=None):
        """The `shape` kernel, times `gain` (cast to `dtype`).

        Raises:
            ValueError: If `shape` is not 5-D, has `shape[-2] > shape[-1]` or unequal
                kernel sizes.
        """
        if dtype is None:
            dtype = self.dtype
        if len(shape) != 5:
            raise ValueError(
                "The tensor to initialize, specified by argument `shape` must be "
                f"five-dimensional. Received shape={shape}"
            )
        self._check_filters(shape)
        if shape[0] != shape[1] or shape[0] != shape[2]:
            raise ValueError(
                f"Kernel sizes, specified by shape[0]={shape[0]},  shape[1]={shape[1]} and "
                f"shape[2]={shape[2]} must be equal."
            )
        kernel = self._orthogonal_kernel(int(shape[0]), int(shape[-2]), int(shape[-1]), 3)
        return kernel * array_ops.cast(self.gain, dtype=dtype)


def lecun_normal(seed=None):
    """LeCun normal: `VarianceScaling(1, "fan_in", "truncated_normal", seed)`."""
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed=None):
    """LeCun uniform: `VarianceScaling(1, "fan_in", "uniform", seed)`."""
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform", seed=seed)


def he_normal(seed=None):
    """He normal: `VarianceScaling(2, "fan_in", "truncated_normal", seed)`."""
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed=None):
    """He uniform: `VarianceScaling(2, "fan_in", "uniform", seed)`."""
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform", seed=seed)


# TF-1.x's lower-case names.
zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
identity_initializer = Identity
orthogonal_initializer = Orthogonal
convolutional_delta_orthogonal = ConvolutionDeltaOrthogonal
convolutional_orthogonal_1d = ConvolutionOrthogonal1D
convolutional_orthogonal_2d = ConvolutionOrthogonal2D
convolutional_orthogonal_3d = ConvolutionOrthogonal3D
