"""Math ops: broadcasting arithmetic, unary functions, matmul, reductions, operators."""

from __future__ import annotations

import builtins

import numpy as np

from .._compat import zip_strict
from ..framework import constant_op, dtypes, indexed_slices, ops
from . import array_ops
from ._op_util import binary, convert_same_type, make_op, unary


def add(x, y, name=None):
    """`x + y` elementwise with broadcasting."""
    return binary("AddV2", x, y, name, default_name="Add")


def subtract(x, y, name=None):
    """`x - y` elementwise with broadcasting."""
    return binary("Sub", x, y, name)


def squared_difference(x, y, name=None):
    """`(x - y) * (x - y)` elementwise with broadcasting.

    Args:
        x: A float32, float64, int32 or int64 tensor.
        y: A tensor of the same dtype.
        name: Name of the operation.

    Returns:
        A tensor of `x`'s dtype and the broadcast shape.
    """
    return binary("SquaredDifference", x, y, name)


def multiply(x, y, name=None):
    """`x * y` elementwise with broadcasting."""
    return binary("Mul", x, y, name)


def maximum(x, y, name=None):
    """The elementwise maximum (NaN-propagating)."""
    return binary("Maximum", x, y, name)


def minimum(x, y, name=None):
    """The elementwise minimum (NaN-propagating)."""
    return binary("Minimum", x, y, name)


_TRUEDIV_FLOAT = {
    dtypes.uint8: dtypes.float32,
    dtypes.int8: dtypes.float32,
    dtypes.uint16: dtypes.float32,
    dtypes.int16: dtypes.float32,
    dtypes.uint32: dtypes.float64,
    dtypes.int32: dtypes.float64,
    dtypes.uint64: dtypes.float64,
    dtypes.int64: dtypes.float64,
}


def truediv(x, y, name=None):
    """`x / y` as floating-point division; integers are cast to float first (as TF)."""
    with ops.name_scope(name, "truediv", [x, y]) as scope:
        return _truediv_scoped(x, y, scope)


def div_no_nan(x, y, name=None):
    """`x / y`, with 0 wherever `y` is 0 (floating types)."""
    return binary("DivNoNan", x, y, name, default_name="div_no_nan")


def _scan(op_type, default_name, x, axis, exclusive, reverse, name):
    with ops.name_scope(name, default_name, [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        a = ops.convert_to_tensor(axis, dtype=dtypes.int32, name="axis")
        attrs = {"exclusive": bool(exclusive), "reverse": bool(reverse)}
        return make_op(op_type, [x, a], attrs, scope=scope).outputs[0]


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sums along `axis`.

    `exclusive` leaves each element out of its own sum; `reverse` sums from the end.
    """
    return _scan("Cumsum", "Cumsum", x, axis, exclusive, reverse, name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running products along `axis` (see `cumsum` for `exclusive` and `reverse`)."""
    return _scan("Cumprod", "Cumprod", x, axis, exclusive, reverse, name)


def divide(x, y, name=None):
    """`x / y` (Python 3 semantics: `truediv`)."""
    return truediv(x, y, name=name)


def div(x, y, name=None):
    """TF-1.x `tf.div`: Python 2 division (floor division for integers)."""
    with ops.name_scope(name, "div", [x, y]) as scope:
        x, y = convert_same_type([x, y], ["x", "y"])
        op_type = "FloorDiv" if x.dtype.base_dtype.is_integer else "RealDiv"
        return make_op(op_type, [x, y], scope=scope).outputs[0]


def realdiv(x, y, name=None):
    """`x / y` for real (floating) types: TF's `RealDiv` op, with broadcasting.

    TF's OpDef admits integer types but its CPU kernels are floating only, so integer
    inputs build and fail when run, as in TF.
    """
    return binary("RealDiv", x, y, name, default_name="RealDiv")


def floordiv(x, y, name=None):
    """`x // y` rounded toward negative infinity (Python semantics)."""
    return binary("FloorDiv", x, y, name, default_name="floordiv")


def floormod(x, y, name=None):
    """`x % y` with the sign of `y` (Python semantics)."""
    return binary("FloorMod", x, y, name)


mod = floormod


def pow(x, y, name=None):
    """`x ** y` elementwise."""
    return binary("Pow", x, y, name)


def add_n(inputs, name=None):
    """The sum of a list of same-shaped tensors (one `AddN` op)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError(
            "inputs must be a list of at least one Tensor with the same dtype and shape"
        )
    with ops.name_scope(name, "AddN", inputs) as scope:
        names = [f"inputs_{i}" for i in builtins.range(len(inputs))]
        tensors = convert_same_type(list(inputs), names)
        if len(tensors) == 1:
            return array_ops.identity(tensors[0], name=scope)
        return make_op("AddN", tensors, scope=scope).outputs[0]


def equal(x, y, name=None):
    """`x == y` elementwise (bool)."""
    return binary("Equal", x, y, name)


def not_equal(x, y, name=None):
    """`x != y` elementwise (bool)."""
    return binary("NotEqual", x, y, name)


def less(x, y, name=None):
    """`x < y` elementwise (bool)."""
    return binary("Less", x, y, name)


def less_equal(x, y, name=None):
    """`x <= y` elementwise (bool)."""
    return binary("LessEqual", x, y, name)


def greater(x, y, name=None):
    """`x > y` elementwise (bool)."""
    return binary("Greater", x, y, name)


def greater_equal(x, y, name=None):
    """`x >= y` elementwise (bool)."""
    return binary("GreaterEqual", x, y, name)


def logical_and(x, y, name=None):
    """Elementwise AND of bool tensors."""
    return binary("LogicalAnd", x, y, name)


def logical_or(x, y, name=None):
    """Elementwise OR of bool tensors."""
    return binary("LogicalOr", x, y, name)


def is_finite(x, name=None):
    """Whether each element is finite."""
    return unary("IsFinite", x, name)


def check_numerics(tensor, message, name=None):
    """`tensor` unchanged, or `InvalidArgumentError` when it holds NaN or Inf.

    The error reads `"<message> : Tensor had NaN values"` (or `Inf`, or `Inf and
    NaN`); the gradient is checked the same way.
    """
    with ops.name_scope(name, "CheckNumerics", [tensor]) as scope:
        t = ops.convert_to_tensor(tensor, name="tensor")
        attrs = {"message": message.encode() if isinstance(message, str) else bytes(message)}
        return make_op("CheckNumerics", [t], attrs, scope=scope).outputs[0]


def is_nan(x, name=None):
    """Whether each element is NaN."""
    return unary("IsNan", x, name)


def _arg(op_type, input, axis, name, dimension, output_type):
    if dimension is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dimension'")
        axis = dimension
    axis = 0 if axis is None else axis
    with ops.name_scope(name, op_type, [input]) as scope:
        x = ops.convert_to_tensor(input, name="input")
        if isinstance(axis, ops.Tensor) and axis.dtype.base_dtype == dtypes.int64:
            a = axis  # the op takes an int64 axis too (`Tidx`)
        else:
            a = ops.convert_to_tensor(axis, dtype=dtypes.int32, name="dimension")
        return make_op(
            op_type, [x, a], {"output_type": dtypes.as_dtype(output_type)}, scope=scope
        ).outputs[0]


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):
    """Index of the largest value along `axis` (first on ties)."""
    return _arg("ArgMax", input, axis, name, dimension, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):
    """Index of the smallest value along `axis` (first on ties)."""
    return _arg("ArgMin", input, axis, name, dimension, output_type)


def _raw_arg(op_type, input, dimension, output_type, name):
    """The raw `ArgMax`/`ArgMin` op with a required `dimension` (TF-1.x's spellings)."""
    if dimension is None:
        raise ValueError(
            "Tried to convert 'dimension' to a tensor and failed. Error: None values not supported."
        )
    return _arg(op_type, input, dimension, name, None, output_type)


def arg_max(input, dimension, output_type=dtypes.int64, name=None):
    """TF-1.x's `tf.arg_max`: the raw `ArgMax` op, `dimension` required.

    Args:
        input: A numeric tensor.
        dimension: The int32/int64 scalar axis to reduce.
        output_type: int32 or int64 (default).
        name: Name of the op.

    Returns:
        The index of the largest value along `dimension` (first on ties).

    Raises:
        ValueError: If `dimension` is None.
    """
    return _raw_arg("ArgMax", input, dimension, output_type, name)


def arg_min(input, dimension, output_type=dtypes.int64, name=None):
    """TF-1.x's `tf.arg_min`: the raw `ArgMin` op, `dimension` required.

    Args and Raises as `arg_max`; returns the index of the smallest value.
    """
    return _raw_arg("ArgMin", input, dimension, output_type, name)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums the rows of `data` into `num_segments` buckets given by `segment_ids`."""
    with ops.name_scope(name, "UnsortedSegmentSum", [data, segment_ids, num_segments]) as scope:
        data = ops.convert_to_tensor(data, name="data")
        ids = ops.convert_to_tensor(segment_ids, name="segment_ids")
        n = ops.convert_to_tensor(num_segments, name="num_segments")
        return make_op("UnsortedSegmentSum", [data, ids, n], scope=scope).outputs[0]


def _indexed_slices_to_tensor(value, dtype=None, name=None, as_ref=False):
    """An `IndexedSlices` as a dense tensor: its rows summed into `dense_shape`."""
    del as_ref
    if dtype is not None and not dtype.is_compatible_with(value.dtype.base_dtype):
        raise ValueError(
            f"Incompatible tensor conversion requested to `dtype` {dtype.name} for "
            f"IndexedSlices ({value}) with dtype {value.dtype.base_dtype.name}"
        )
    if value.dense_shape is None:
        raise ValueError(
            f"Tensor conversion requested for IndexedSlices without dense_shape: {value!r}"
        )
    with ops.name_scope(name, "IndexedSlicesToDense", [value.values, value.indices]):
        rows = array_ops.reshape(array_ops.slice(value.dense_shape, [0], [1]), [])
        return unsorted_segment_sum(value.values, value.indices, rows)


# framework/indexed_slices.py holds the type; the ops that densify it live here.
ops.register_tensor_conversion_function(indexed_slices.IndexedSlices, _indexed_slices_to_tensor)


def negative(x, name=None):
    """`-x`."""
    return unary("Neg", x, name)


def square(x, name=None):
    """`x * x`."""
    return unary("Square", x, name)


def abs(x, name=None):
    """`|x|`: a complex tensor's magnitudes (`ComplexAbs`, of its parts' dtype)."""
    with ops.name_scope(name, "Abs", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return make_op("ComplexAbs", [x], {"Tout": x.dtype.real_dtype}, scope=scope).outputs[0]
        return make_op("Abs", [x], scope=scope).outputs[0]


def complex(real, imag, name=None):
    """The complex tensor `real + imag * 1j` (with broadcasting).

    float32 parts make a `complex64` tensor, float64 parts a `complex128` one.

    Raises:
        TypeError: If the parts are not both float32 or both float64.
    """
    real = ops.convert_to_tensor(real, name="real")
    imag = ops.convert_to_tensor(imag, name="imag")
    with ops.name_scope(name, "Complex", [real, imag]) as scope:
        types = (real.dtype.base_dtype, imag.dtype.base_dtype)
        if types == (dtypes.float64, dtypes.float64):
            tout = dtypes.complex128
        elif types == (dtypes.float32, dtypes.float32):
            tout = dtypes.complex64
        else:
            raise TypeError(
                f"real and imag have incorrect types: {real.dtype.name} {imag.dtype.name}"
            )
        return make_op("Complex", [real, imag], {"Tout": tout}, scope=scope).outputs[0]


def _complex_to_real(op_type, input, name, of_real):
    """`op_type` (`Real`, `Imag`, `Angle`) of a complex tensor, or `of_real(input)`."""
    with ops.name_scope(name, op_type, [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            attrs = {"Tout": input.dtype.real_dtype}
            return make_op(op_type, [input], attrs, scope=scope).outputs[0]
        return of_real(input)


def real(input, name=None):
    """The real parts of a complex tensor (a real tensor itself)."""
    return _complex_to_real("Real", input, name, lambda x: x)


def imag(input, name=None):
    """The imaginary parts of a complex tensor (zeros for a real one)."""
    return _complex_to_real("Imag", input, name, array_ops.zeros_like)


def angle(input, name=None):
    """The arguments of a complex tensor (`atan2(imag, real)`; 0 or pi for a real one)."""

    def of_real(x):
        # TF's: pi where the value is negative, else 0.
        return array_ops.where(
            less(x, 0.0), np.pi * array_ops.ones_like(x), array_ops.zeros_like(x)
        )

    return _complex_to_real("Angle", input, name, of_real)


def conj(x, name=None):
    """The complex conjugates of `x` (a real tensor itself).

    Raises:
        TypeError: If `x` is not numeric.
    """
    if isinstance(x, ops.Tensor):
        dt = x.dtype
        if dt.is_floating or dt.is_integer:
            return x
    with ops.name_scope(name, "Conj", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.is_complex or x.dtype.base_dtype == dtypes.variant:
            return make_op("Conj", [x], scope=scope).outputs[0]
        if x.dtype.is_floating or x.dtype.is_integer:
            return x
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}")


@ops.RegisterGradient("Complex")
def _complex_grad(op, grad):
    """TF's: the real and imaginary parts of the gradient, summed to each part's shape."""
    x, y = op.inputs
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    args = make_op("BroadcastGradientArgs", [sx, sy], name="BroadcastGradientArgs")
    rx, ry = args.outputs
    return (
        array_ops.reshape(reduce_sum(real(grad), rx), sx),
        array_ops.reshape(reduce_sum(imag(grad), ry), sy),
    )


@ops.RegisterGradient("Real")
def _real_grad(_, grad):
    """TF's: the gradient as the real part of a complex one."""
    zero = constant_op.constant(0, dtype=grad.dtype)
    return complex(grad, zero)


@ops.RegisterGradient("Imag")
def _imag_grad(_, grad):
    """TF's: the gradient as the imaginary part of a complex one."""
    zero = constant_op.constant(0, dtype=grad.dtype)
    return complex(zero, grad)


@ops.RegisterGradient("Angle")
def _angle_grad(op, grad):
    """TF's: `-grad / (imag + real * 1j)`."""
    x = op.inputs[0]
    with ops.control_dependencies([grad]):
        re, im = real(x), imag(x)
        z = divide(constant_op.constant(1, dtype=x.dtype), complex(im, re))
        zero = constant_op.constant(0, dtype=grad.dtype)
        return negative(complex(grad, zero) * z)


@ops.RegisterGradient("Conj")
def _conj_grad(_, grad):
    """TF's: the gradient's conjugate."""
    return conj(grad)


@ops.RegisterGradient("ComplexAbs")
def _complex_abs_grad(op, grad):
    """TF's: `grad * x / |x|` (0 where `x` is 0)."""
    return div_no_nan(
        complex(grad, array_ops.zeros_like(grad)) * op.inputs[0],
        complex(op.outputs[0], array_ops.zeros_like(op.outputs[0])),
    )


def sign(x, name=None):
    """-1, 0 or 1 by the sign of `x`."""
    return unary("Sign", x, name)


def sqrt(x, name=None):
    """Square root (floating types)."""
    return unary("Sqrt", x, name)


def rsqrt(x, name=None):
    """`1 / sqrt(x)`."""
    return unary("Rsqrt", x, name)


def reciprocal(x, name=None):
    """`1 / x`."""
    return unary("Reciprocal", x, name)


def exp(x, name=None):
    """`e ** x`."""
    return unary("Exp", x, name)


def log(x, name=None):
    """Natural logarithm."""
    return unary("Log", x, name)


def log1p(x, name=None):
    """`log(1 + x)`, accurate for small `x`."""
    return unary("Log1p", x, name)


def tanh(x, name=None):
    """Hyperbolic tangent."""
    return unary("Tanh", x, name)


def sigmoid(x, name=None):
    """`1 / (1 + exp(-x))`."""
    return unary("Sigmoid", x, name)


def floor(x, name=None):
    """The largest integer not above `x`, elementwise (floating types)."""
    return unary("Floor", x, name)


def ceil(x, name=None):
    """The smallest integer not below `x`, elementwise (floating types)."""
    return unary("Ceil", x, name)


def round(x, name=None):
    """`x` rounded to the nearest integer, halves to even (floating types)."""
    return unary("Round", x, name)


def sin(x, name=None):
    """Sine."""
    return unary("Sin", x, name)


def cos(x, name=None):
    """Cosine."""
    return unary("Cos", x, name)


def logical_not(x, name=None):
    """Elementwise NOT of a bool tensor."""
    return unary("LogicalNot", x, name, dtype=dtypes.bool)


def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    name=None,
):
    """The matrix product of rank-2 `a` and `b`, optionally transposing either first.

    Raises:
        ValueError: If the inner dimensions are known and differ, or a rank is not 2.
    """
    with ops.name_scope(name, "MatMul", [a, b]) as scope:
        a, b = convert_same_type([a, b], ["a", "b"])
        attrs = {
            "transpose_a": bool(transpose_a or adjoint_a),
            "transpose_b": bool(transpose_b or adjoint_b),
        }
        return make_op("MatMul", [a, b], attrs, scope=scope).outputs[0]


def range(start, limit=None, delta=1, dtype=None, name="range"):
    """The sequence `start, start + delta, ...` below `limit` (TF's `tf.range`).

    Without `dtype`, the widest of the arguments' types in TF's order (int32, int64,
    float16, bfloat16, float32, float64) wins; every argument is cast to that type or to
    the given `dtype`.
    """
    if limit is None:
        start, limit = 0, start
    with ops.name_scope(name, "Range", [start, limit, delta]) as scope:
        values = (start, limit, delta)
        if dtype is None:
            hierarchy = [
                dtypes.int32,
                dtypes.int64,
                dtypes.float16,
                dtypes.bfloat16,
                dtypes.float32,
                dtypes.float64,
            ]
            kinds = [
                v.dtype.base_dtype
                if isinstance(v, ops.Tensor)
                else dtypes.as_dtype(constant_op._infer_numpy(v).dtype)
                for v in values
            ]
            if any(k not in hierarchy for k in kinds):
                raise TypeError(
                    f"Range arguments must be of {[h.name for h in hierarchy]}: {kinds}"
                )
            dtype = max(kinds, key=hierarchy.index)
        args = []
        for v, n in zip_strict(values, ("start", "limit", "delta")):
            if isinstance(v, ops.Tensor):
                # TF casts tensors to the inferred type or the given `dtype` (no op when
                # they have it already).
                args.append(array_ops.cast(v, dtype))
            else:
                # (TF converts, then casts: a constant of the type directly keeps the
                # length static for shape inference.)
                args.append(constant_op.constant(v, dtype=dtype, name=n))
        return make_op("Range", args, scope=scope).outputs[0]


def linspace(start, stop, num, name=None):
    """`num` evenly spaced values from `start` to `stop` inclusive (TF 1.x's `tf.linspace`).

    Args:
        start: A float scalar: the first value.
        stop: A scalar of `start`'s type: the last value (exactly).
        num: An int32 or int64 scalar > 0: how many values.
        name: A name for the operation.

    Returns:
        A 1-D tensor of `num` values of `start`'s type.
    """
    with ops.name_scope(name, "LinSpace", [start, stop, num]) as scope:
        # As TF's op wrapper: the first argument with a type of its own (a tensor or a
        # numpy value) fixes the other's.
        typed = [v for v in (start, stop) if hasattr(v, "dtype")]
        dtype = dtypes.as_dtype(typed[0].dtype).base_dtype if typed else None
        start = ops.convert_to_tensor(start, dtype=dtype, name="start")
        stop = ops.convert_to_tensor(stop, dtype=start.dtype.base_dtype, name="stop")
        num = ops.convert_to_tensor(num, name="num")
        if not num.dtype.is_integer:
            num = ops.convert_to_tensor(num, dtypes.int32, name="num")
        return make_op("LinSpace", [start, stop, num], scope=scope).outputs[0]


lin_space = linspace


def _reduction(op_type, input_tensor, axis, keepdims, name, reduction_indices, keep_dims):
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
        axis = reduction_indices
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'.")
        keepdims = keep_dims
    x = ops.convert_to_tensor(input_tensor, name="input")
    if axis is None:
        # As TF, the all-axes vector is made before the op's name scope opens.
        if x.shape.ndims is not None:
            # (an int32 array: `constant([], dtype=int32)` of a scalar's no axes is refused)
            axes = constant_op.constant(np.arange(x.shape.ndims, dtype=np.int32))
        else:
            axes = range(0, array_ops.rank(x), 1)
    with ops.name_scope(name, op_type, [x]) as scope:
        if isinstance(axis, ops.Tensor):
            axes = axis
        elif axis is not None:
            if not isinstance(axis, int) and np.size(axis) == 0:
                axis = np.zeros([0], np.int32)  # (`constant([], dtype=int32)` is refused)
            axes = constant_op.constant(axis, dtype=dtypes.int32, name="reduction_indices")
        return make_op(op_type, [x, axes], {"keep_dims": bool(keepdims)}, scope=scope).outputs[0]


def reduce_sum(
    input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
):
    """Sum over `axis` (all axes when None)."""
    return _reduction("Sum", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_mean(
    input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
):
    """Mean over `axis` (integer division for integer tensors, as TF)."""
    return _reduction("Mean", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_max(
    input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
):
    """Maximum over `axis`."""
    return _reduction("Max", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_min(
    input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
):
    """Minimum over `axis`."""
    return _reduction("Min", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_all(
    input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
):
    """Logical and of a boolean tensor over `axis` (True over nothing)."""
    return _reduction("All", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_any(
    input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
):
    """Logical or of a boolean tensor over `axis` (False over nothing)."""
    return _reduction("Any", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_prod(
    input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
):
    """Product over `axis`."""
    return _reduction("Prod", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# -- operator overloads ---------------------------------------------------------------


def _binary_operator(func, scope_name):
    def forward(x, y):
        if scope_name == "mul" and _is_sparse(y):
            # TF's `_mul_dispatch`: dense * sparse is the sparse tensor's `*`.
            return y * x
        with ops.name_scope(None, scope_name, [x, y]) as scope:
            if not isinstance(y, (ops.Tensor, ops.Operation)) and not hasattr(
                y, "_as_graph_element"
            ):
                y = ops.convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
            return func(x, y, name=scope)

    def reverse(y, x):
        with ops.name_scope(None, scope_name, [x, y]) as scope:
            x = ops.convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return func(x, y, name=scope)

    return forward, reverse


def _is_sparse(x):
    from ..framework.sparse_tensor import SparseTensor

    return isinstance(x, SparseTensor)


def _scoped_binary(op_type):
    def op(x, y, name):
        x, y = convert_same_type([x, y], ["x", "y"])
        return make_op(op_type, [x, y], scope=name).outputs[0]

    return op


def _truediv_scoped(x, y, name):
    x, y = convert_same_type([x, y], ["x", "y"])
    to = _TRUEDIV_FLOAT.get(x.dtype.base_dtype)
    if to is not None:
        x, y = array_ops.cast(x, to), array_ops.cast(y, to)
    return make_op("RealDiv", [x, y], scope=name).outputs[0]


def _matmul_scoped(a, b, name):
    a, b = convert_same_type([a, b], ["a", "b"])
    return make_op(
        "MatMul", [a, b], {"transpose_a": False, "transpose_b": False}, scope=name
    ).outputs[0]


OVERLOADS = {
    "add": (_scoped_binary("AddV2"), "add"),
    "sub": (_scoped_binary("Sub"), "sub"),
    "mul": (_scoped_binary("Mul"), "mul"),
    "truediv": (_truediv_scoped, "truediv"),
    "matmul": (_matmul_scoped, "matmul"),
    "floordiv": (_scoped_binary("FloorDiv"), "floordiv"),
    "mod": (_scoped_binary("FloorMod"), "mod"),
    "pow": (_scoped_binary("Pow"), "pow"),
    "and": (_scoped_binary("LogicalAnd"), "and"),
    "or": (_scoped_binary("LogicalOr"), "or"),
}

_COMPARISONS = {"lt": less, "le": less_equal, "gt": greater, "ge": greater_equal}


def _install_operators(cls) -> None:
    for dunder, key in (
        ("add", "add"),
        ("sub", "sub"),
        ("mul", "mul"),
        ("truediv", "truediv"),
        ("matmul", "matmul"),
        ("floordiv", "floordiv"),
        ("mod", "mod"),
        ("pow", "pow"),
        ("and", "and"),
        ("or", "or"),
    ):
        fwd, rev = _binary_operator(*OVERLOADS[key])
        cls._override_operator(f"__{dunder}__", fwd)
        cls._override_operator(f"__r{dunder}__", rev)
    for dunder, func in _COMPARISONS.items():
        # As TF: `x < y` is one `Less` op (Python reflects `1 < x` to `x > 1`).
        cls._override_operator(f"__{dunder}__", lambda self, other, func=func: func(self, other))
    cls._override_operator("__neg__", lambda self: negative(self))
    cls._override_operator("__abs__", lambda self: abs(self))
    cls._override_operator("__invert__", lambda self: logical_not(self))


# The framework's Tensor gets its operators from here (TF's `_override_operator`).
_install_operators(ops.Tensor)
