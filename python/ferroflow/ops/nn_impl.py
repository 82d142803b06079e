"""`tf.nn` functions composed in Python from existing ops (TF's `nn_impl.py` part).

Batch normalization (the formula and `fused_batch_norm`), `conv1d`, `xw_plus_b`,
`l2_normalize`, the weighted/Poisson losses, the activations TF builds from other
ops (`crelu`) or that are composed here from their formulas (`leaky_relu`, `selu`,
`softsign`: TF has one kernel each, here they are a few ops with the same values
and gradients), and the moment helpers.
"""

from __future__ import annotations

import math
import numbers

from ..framework import constant_op, dtypes, ops
from . import array_ops, conv_ops, math_ops, nn_ops
from ._op_util import convert_same_type, unary


def _same_shape_or_raise(a, b, message):
    try:
        a.shape.assert_is_compatible_with(b.shape)
    except ValueError:
        raise ValueError(message.format(a.shape, b.shape)) from None


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """`scale * (x - mean) / sqrt(variance + variance_epsilon) + offset`.

    Computed as TF does: `x * inv + (offset - mean * inv)` with
    `inv = rsqrt(variance + variance_epsilon) * scale`.

    Args:
        x: The input tensor.
        mean: A mean tensor broadcastable to `x`.
        variance: A variance tensor broadcastable to `x`.
        offset: The offset (beta) broadcastable to `x`, or None.
        scale: The scale (gamma) broadcastable to `x`, or None.
        variance_epsilon: A small float added to the variance.
        name: Name scope of the operation (default `batchnorm`).

    Returns:
        The normalized, scaled, offset tensor.
    """
    with ops.name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        x = ops.convert_to_tensor(x, name="x")
        shift = offset - mean * inv if offset is not None else -mean * inv
        return x * array_ops.cast(inv, x.dtype) + array_ops.cast(shift, x.dtype)


def _channel_axes(x, data_format, name):
    """(reduction axes, parameter shape) of a 4-D `x` in `data_format`."""
    ndims = x.shape.ndims
    if ndims is not None and ndims != 4:
        raise ValueError(
            f"Shape must be rank 4 but is rank {ndims} for '{name}' (op: 'FusedBatchNormV3')"
        )
    if data_format in ("NHWC", b"NHWC"):
        return [0, 1, 2], None
    if data_format in ("NCHW", b"NCHW"):
        return [0, 2, 3], [1, -1, 1, 1]
    raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}")


def fused_batch_norm(
    x,
    scale,
    offset,
    mean=None,
    variance=None,
    epsilon=0.001,
    data_format="NHWC",
    is_training=True,
    name=None,
    exponential_avg_factor=1.0,
):
    """Batch normalization of a 4-D `x` over its batch and spatial dimensions.

    The semantics of TF's `FusedBatchNormV3`, composed from smaller ops. In training,
    `x` is normalized with its own batch mean and (biased) variance, and the returned
    statistics are the batch mean and the Bessel-corrected variance `n / (n - 1)` times
    the biased one (or, with `exponential_avg_factor` f != 1, `(1 - f) * mean + f *
    batch_mean` and likewise for the variance). In inference, `x` is normalized with
    the given `mean` and `variance`, which are returned unchanged. As the fused op's
    gradient, no gradient flows into the returned statistics nor, in inference, into
    `mean` and `variance`.

    Args:
        x: A 4-D float tensor.
        scale: 1-D scale (gamma), one value per channel.
        offset: 1-D offset (beta), one value per channel.
        mean: 1-D population mean for inference (or the running mean with
            `exponential_avg_factor`).
        variance: 1-D population variance for inference.
        epsilon: Added to the variance.
        data_format: `"NHWC"` or `"NCHW"`.
        is_training: Whether to use the batch statistics.
        name: Name scope of the operation (default `FusedBatchNormV3`).
        exponential_avg_factor: The running-average factor of the statistics.

    Returns:
        `(y, batch_mean, batch_variance)`.

    Raises:
        ValueError: if `mean` or `variance` is missing where needed, `x` is not 4-D,
            or `data_format` is unknown.
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError(
            "Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
            f"`exponential_avg_factor` != 1.0. Received: `mean` {mean!r} and `variance` "
            f"{variance!r}"
        )
    with ops.name_scope(name, "FusedBatchNormV3", [x, scale, offset, mean, variance]):
        x = ops.convert_to_tensor(x, name="x")
        axes, param_shape = _channel_axes(x, data_format, "FusedBatchNormV3")

        def per_channel(v):
            return v if param_shape is None else array_ops.reshape(v, param_shape)

        scale, offset = convert_same_type([scale, offset], ["scale", "offset"])
        if is_training:
            batch_mean, batch_var = nn_ops.moments(x, axes)
            var_for_norm = batch_var
            mean_for_norm = batch_mean
            size = array_ops.cast(array_ops.size(x), batch_var.dtype)
            count = size / array_ops.cast(array_ops.size(batch_var), batch_var.dtype)
            # Bessel's correction of the returned variance (count 1 keeps it).
            factor = count / math_ops.maximum(count - 1, 1)
            out_mean, out_var = batch_mean, batch_var * factor
            if exponential_avg_factor != 1.0:
                f = float(exponential_avg_factor)
                out_mean = (1 - f) * mean + f * out_mean
                out_var = (1 - f) * variance + f * out_var
        else:
            mean_for_norm = array_ops.stop_gradient(ops.convert_to_tensor(mean, name="mean"))
            var_for_norm = array_ops.stop_gradient(ops.convert_to_tensor(variance, name="var"))
            out_mean, out_var = mean_for_norm, var_for_norm
        y = batch_normalization(
            x,
            per_channel(mean_for_norm),
            per_channel(var_for_norm),
            per_channel(offset),
            per_channel(scale),
            epsilon,
        )
        y.set_shape(x.shape)
        return (
            y,
            array_ops.stop_gradient(out_mean, name="batch_mean"),
            array_ops.stop_gradient(out_var, name="batch_variance"),
        )


def _conv1d_sequence(value, name):
    if isinstance(value, numbers.Integral):
        return [1, int(value)]
    value = [int(v) for v in value]
    if len(value) == 1:
        return [1, value[0]]
    if len(value) == 3:
        return [1, value[1]]
    raise ValueError(
        f"{name} should be of length 1 or 3. Received: {name}={value} of length {len(value)}"
    )


def conv1d(
    value=None,
    filters=None,
    stride=None,
    padding=None,
    use_cudnn_on_gpu=None,
    data_format=None,
    name=None,
    input=None,
    dilations=None,
):
    """1-D convolution of `[batch, in_width, in_channels]` with `[width, in, out]` filters.

    As TF: the input and filters get a unit height (`ExpandDims`), a `Conv2D` runs,
    and the height is squeezed away.

    Args:
        value: A 3-D float tensor (`"NWC"`).
        filters: A 3-D `[filter_width, in_channels, out_channels]` tensor.
        stride: An int or a list of 1 or 3 ints.
        padding: `"SAME"` or `"VALID"`.
        use_cudnn_on_gpu: Accepted for compatibility.
        data_format: `"NWC"` (or None, `"NHWC"`).
        name: Name scope of the operation (default `conv1d`).
        input: Alias of `value`.
        dilations: An int or a list of 1 or 3 ints (default 1).

    Returns:
        The `[batch, out_width, out_channels]` result.

    Raises:
        ValueError: for an unsupported `data_format` or malformed strides.
    """
    value = input if value is None else value
    if data_format not in (None, "NHWC", "NWC"):
        if data_format in ("NCHW", "NCW"):
            raise ValueError("conv1d supports data_format='NWC' (CPU kernels are NHWC)")
        raise ValueError(
            f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}"
        )
    strides = [1, *_conv1d_sequence(stride, "stride"), 1]
    dilation = [1, *_conv1d_sequence(1 if dilations is None else dilations, "dilations"), 1]
    with ops.name_scope(name, "conv1d", [value, filters]) as scope:
        value = array_ops.expand_dims(value, -3)
        filters = array_ops.expand_dims(filters, 0)
        result = conv_ops.conv2d(
            value, filters, strides, padding, data_format="NHWC", dilations=dilation, name=scope
        )
        return array_ops.squeeze(result, [-3])


def xw_plus_b(x, weights, biases, name=None):
    """`matmul(x, weights) + biases` (a `MatMul` and a `BiasAdd`)."""
    with ops.name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        weights = ops.convert_to_tensor(weights, name="weights")
        biases = ops.convert_to_tensor(biases, name="biases")
        mm = math_ops.matmul(x, weights)
        return nn_ops.bias_add(mm, biases, name=scope)


def relu_layer(x, weights, biases, name=None):
    """`relu(matmul(x, weights) + biases)`."""
    with ops.name_scope(name, "relu_layer", [x, weights, biases]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        weights = ops.convert_to_tensor(weights, name="weights")
        biases = ops.convert_to_tensor(biases, name="biases")
        xw_plus_b_ = nn_ops.bias_add(math_ops.matmul(x, weights), biases)
        return nn_ops.relu(xw_plus_b_, name=scope)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """`x / sqrt(max(sum(x ** 2, axis), epsilon))`.

    Args:
        x: A float tensor.
        axis: The dimension(s) to normalize along (all when None).
        epsilon: The lower bound of the squared norm.
        name: Name of the operation (default `l2_normalize`).
        dim: Deprecated alias of `axis`.
    """
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    axis = dim if axis is None else axis
    with ops.name_scope(name, "l2_normalize", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(x, x_inv_norm, name=scope)


def weighted_cross_entropy_with_logits(
    labels=None, logits=None, pos_weight=None, name=None, targets=None
):
    """Sigmoid cross entropy whose positive term is weighted by `pos_weight`.

    `labels * -log(sigmoid(logits)) * pos_weight + (1 - labels) *
    -log(1 - sigmoid(logits))`, computed stably as
    `(1 - labels) * logits + (1 + (pos_weight - 1) * labels) *
    (log1p(exp(-|logits|)) + relu(-logits))`.

    Args:
        labels: Targets of the same shape and type as `logits`.
        logits: Float logits.
        pos_weight: The weight of the positive examples.
        name: Name of the operation (default `logistic_loss`).
        targets: Deprecated alias of `labels` (TF 1.x's first argument).

    Raises:
        ValueError: if both or neither of `labels` and `targets` are given, or the
            shapes of `logits` and `labels` differ.
    """
    if labels is not None and targets is not None:
        raise ValueError("Cannot specify both 'labels' and 'targets'.")
    labels = targets if labels is None else labels
    if labels is None:
        raise ValueError("Must specify 'labels' or 'targets'.")
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = ops.convert_to_tensor(logits, name="logits")
        labels = ops.convert_to_tensor(labels, name="labels")
        _same_shape_or_raise(
            logits, labels, "`logits` and `labels` must have the same shape, received ({} vs {})."
        )
        log_weight = 1 + (pos_weight - 1) * labels
        return math_ops.add(
            (1 - labels) * logits,
            log_weight
            * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits))) + nn_ops.relu(-logits)),
            name=scope,
        )


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """The Poisson negative log-likelihood `exp(log_input) - log_input * targets`.

    With `compute_full_loss`, Stirling's approximation of `log(targets!)` is added
    where `targets > 1`.

    Raises:
        ValueError: if the shapes of `log_input` and `targets` differ.
    """
    with ops.name_scope(name, "log_poisson_loss", [log_input, targets]):
        log_input = ops.convert_to_tensor(log_input, name="log_input")
        targets = ops.convert_to_tensor(targets, name="targets")
        _same_shape_or_raise(
            log_input,
            targets,
            "`log_input` and `targets` must have the same shape, received ({} vs {}).",
        )
        result = math_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = constant_op.constant(0.5, dtype=targets.dtype)
            two_pi = constant_op.constant(2 * math.pi, dtype=targets.dtype)
            stirling_approx = (
                (targets * math_ops.log(targets))
                - targets
                + (point_five * math_ops.log(two_pi * targets))
            )
            zeros = array_ops.zeros_like(targets, dtype=targets.dtype)
            ones = array_ops.ones_like(targets, dtype=targets.dtype)
            cond = math_ops.logical_and(targets >= zeros, targets <= ones)
            result += array_ops.where(cond, zeros, stirling_approx)
        return result


def leaky_relu(features, alpha=0.2, name=None):
    """`features` where positive, else `alpha * features` (int inputs become float32)."""
    with ops.name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        features = ops.convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            features = array_ops.cast(features, dtypes.float32)
        alpha = float(getattr(alpha, "item", lambda: alpha)())
        zero = ops.convert_to_tensor(0, dtype=features.dtype)
        return array_ops.where(
            math_ops.greater(features, zero), features, alpha * features, name=scope
        )


def selu(features, name=None):
    """Scaled ELU (TF's `Selu` op, with `SeluGrad` as its gradient).

    `scale * features` where positive, else `scale * alpha * (exp(features) - 1)`.
    """
    return unary("Selu", features, name)


def softsign(features, name=None):
    """`features / (abs(features) + 1)` (TF's `Softsign` op and its `SoftsignGrad`)."""
    return unary("Softsign", features, name)


def crelu(features, name=None, axis=-1):
    """`relu(concat([features, -features], axis))`: the positive and negative parts."""
    with ops.name_scope(name, "CRelu", [features]) as scope:
        features = ops.convert_to_tensor(features, name="features")
        c = array_ops.concat([features, -features], axis, name=scope)
        return nn_ops.relu(c)


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """The count, (shifted) sum and (shifted) sum of squares of `x` over `axes`.

    Returns:
        `(count, mean_ss, var_ss, shift)`: `count` is a constant when the reduced
        dimensions are known statically, else computed from the shape of `x`.
    """
    axes = sorted(set(axes))
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'.")
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with ops.name_scope(name, "sufficient_statistics", [x, shift]):
        x = ops.convert_to_tensor(x, name="x")
        shape = x.shape
        if shape.ndims is not None and all(shape.dims[d].value is not None for d in axes):
            count = 1
            for d in axes:
                count *= shape.dims[d].value
            counts = constant_op.constant(count, dtype=x.dtype)
        else:
            rank = array_ops.rank(x)
            positive = [a + rank if a < 0 else a for a in axes]
            dims = array_ops.gather(array_ops.cast(array_ops.shape(x), x.dtype), positive)
            counts = math_ops.reduce_prod(dims, name="count")
        if shift is not None:
            shift = ops.convert_to_tensor(shift, name="shift")
            m_ss = math_ops.subtract(x, shift)
            v_ss = math_ops.square(math_ops.subtract(x, shift))
        else:
            m_ss = x
            v_ss = math_ops.square(x)
        m_ss = math_ops.reduce_sum(m_ss, axes, keepdims=keep, name="mean_ss")
        v_ss = math_ops.reduce_sum(v_ss, axes, keepdims=keep, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """The mean and variance from `sufficient_statistics`' outputs."""
    with ops.name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = math_ops.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = math_ops.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = math_ops.subtract(
            math_ops.multiply(variance_ss, divisor),
            math_ops.square(shifted_mean),
            name="variance",
        )
    return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """The mean and variance of `x` over `axes`, each element weighted.

    Args:
        x: A float tensor.
        axes: The dimensions to reduce.
        frequency_weights: Weights broadcastable to `x`.
        name: Name scope of the operation (default `weighted_moments`).
        keep_dims: Keep the reduced dimensions (with size 1).
        keepdims: Alias of `keep_dims`.

    Returns:
        `(weighted_mean, weighted_variance)`.
    """
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'.")
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with ops.name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = ops.convert_to_tensor(x, name="x")
        weights = ops.convert_to_tensor(frequency_weights, name="frequency_weights")
        if weights.dtype != x.dtype:
            weights = array_ops.cast(weights, x.dtype)
        # Reductions keep their dimensions so the mean broadcasts against `x`.
        weighted_input_sum = math_ops.reduce_sum(
            weights * x, axes, name="weighted_input_sum", keepdims=True
        )
        broadcasted_weights = weights + array_ops.zeros_like(x)
        sum_of_weights = math_ops.reduce_sum(
            broadcasted_weights, axes, name="sum_of_weights", keepdims=True
        )
        divisor = math_ops.reciprocal(sum_of_weights, name="inv_weight_sum")
        weighted_mean = math_ops.multiply(weighted_input_sum, divisor)
        weighted_distsq = math_ops.reduce_sum(
            weights * math_ops.square(x - weighted_mean),
            axes,
            name="weighted_distsq",
            keepdims=True,
        )
        weighted_variance = math_ops.multiply(weighted_distsq, divisor)
        if not keep:
            weighted_mean = array_ops.squeeze(weighted_mean, axis=axes)
            weighted_variance = array_ops.squeeze(weighted_variance, axis=axes)
        return weighted_mean, weighted_variance
