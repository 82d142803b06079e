"""Neural-network ops (`tf.nn`): activations, softmax, losses, bias add, moments."""

from __future__ import annotations

import numbers

from .. import errors
from ..framework import dtypes, ops, tensor_shape
from . import array_ops, math_ops, random_ops
from ._op_util import convert_same_type, is_tensor_like, make_op, unary


def relu(features, name=None):
    """`max(features, 0)`."""
    return unary("Relu", features, name)


def relu6(features, name=None):
    """`min(max(features, 0), 6)`."""
    return unary("Relu6", features, name)


def elu(features, name=None):
    """`features` if positive, else `exp(features) - 1`."""
    return unary("Elu", features, name)


def softplus(features, name=None):
    """`log(exp(features) + 1)`."""
    return unary("Softplus", features, name)


def _last_axis_op(op_type, logits, axis, name):
    logits = ops.convert_to_tensor(logits, name="logits")
    ndims = logits.shape.ndims
    if axis in (None, -1) or (ndims is not None and axis == ndims - 1):
        return unary(op_type, logits, name)
    if ndims is None:
        raise ValueError(f"{op_type} along axis {axis} needs a known rank")
    if not -ndims <= axis < ndims:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"`dim` must be in the range [{-ndims}, {ndims}) where {ndims} is the number of "
            f"dimensions in the input. Received: dim={axis}",
        )
    # Move `axis` last, apply, move it back (as TF does).
    perm = list(range(ndims))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    with ops.name_scope(name, op_type, [logits]):
        t = array_ops.transpose(logits, perm)
        return array_ops.transpose(unary(op_type, t), perm)


def softmax(logits, axis=None, name=None, dim=None):
    """`exp(logits) / sum(exp(logits), axis)` (last axis by default)."""
    return _last_axis_op("Softmax", logits, dim if axis is None else axis, name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """`logits - log(sum(exp(logits), axis))` (last axis by default)."""
    return _last_axis_op("LogSoftmax", logits, dim if axis is None else axis, name)


def _flat_classes_shape(logits):
    """`[-1, classes]`, the shape flattening `logits` to a batch of class vectors."""
    classes = logits.shape.as_list()[-1]
    if classes is not None:
        return [-1, classes]
    last = array_ops.slice(array_ops.shape(logits), [logits.shape.ndims - 1], [1])
    return array_ops.concat([[-1], last], 0)


def softmax_cross_entropy_with_logits_v2(labels=None, logits=None, axis=-1, name=None, dim=None):
    """Per-example `-sum(labels * log_softmax(logits))`; gradients flow into labels too."""
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    axis = dim if dim is not None else axis
    if axis not in (-1, None):
        raise NotImplementedError("softmax_cross_entropy_with_logits supports the last axis")
    with ops.name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits, labels = convert_same_type([logits, labels], ["logits", "labels"])
        shape = logits.shape
        if shape.ndims is not None and shape.ndims != 2:
            # Flatten to [batch, classes] and restore the batch dims afterwards.
            flat = _flat_classes_shape(logits)
            flat_logits = array_ops.reshape(logits, flat)
            flat_labels = array_ops.reshape(labels, flat)
            op = make_op("SoftmaxCrossEntropyWithLogits", [flat_logits, flat_labels])
            cost = array_ops.reshape(
                op.outputs[0],
                array_ops.slice(array_ops.shape(logits), [0], [shape.ndims - 1]),
                name=scope,
            )
            cost.set_shape(shape[:-1])  # (as TF: the reshape loses the static shape)
            return cost
        op = make_op("SoftmaxCrossEntropyWithLogits", [logits, labels], scope=scope)
        return op.outputs[0]


def softmax_cross_entropy_with_logits(
    _sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None
):
    """TF-1.x version: like `_v2` but no gradient flows into `labels`."""
    if _sentinel is not None:
        raise ValueError(
            "Only call softmax_cross_entropy_with_logits with named arguments "
            "(labels=..., logits=..., ...)"
        )
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(
        labels=labels, logits=logits, axis=dim if axis is None else axis, name=name
    )


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """Per-example cross entropy with integer class `labels` (no gradient into labels)."""
    if _sentinel is not None:
        raise ValueError(
            "Only call sparse_softmax_cross_entropy_with_logits with named "
            "arguments (labels=..., logits=..., ...)"
        )
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    with ops.name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]) as scope:
        labels = ops.convert_to_tensor(labels, name="labels")
        logits = ops.convert_to_tensor(logits, name="logits")
        if labels.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"labels must be int32 or int64, got {labels.dtype.name}")
        lr, gr = labels.shape.ndims, logits.shape.ndims
        if lr is not None and gr is not None and lr != gr - 1:
            raise ValueError(
                f"Rank mismatch: Rank of labels (received {lr}) should equal rank of logits "
                f"minus 1 (received {gr})."
            )
        if gr is not None and gr != 2:
            flat = make_op(
                "SparseSoftmaxCrossEntropyWithLogits",
                [
                    array_ops.reshape(logits, _flat_classes_shape(logits)),
                    array_ops.reshape(labels, [-1]),
                ],
            )
            cost = array_ops.reshape(flat.outputs[0], array_ops.shape(labels), name=scope)
            cost.set_shape(labels.shape)  # (as TF: the reshape loses the static shape)
            return cost
        # As TF, the op is named inside the scope (`.../SparseSoftmaxCrossEntropyWithLogits`).
        return make_op(
            "SparseSoftmaxCrossEntropyWithLogits",
            [logits, labels],
            name=name or "SparseSoftmaxCrossEntropyWithLogits",
        ).outputs[0]


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """`max(x, 0) - x * z + log(1 + exp(-|x|))`, the stable logistic loss."""
    if _sentinel is not None:
        raise ValueError("Only call sigmoid_cross_entropy_with_logits with named arguments")
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits, labels = convert_same_type([logits, labels], ["logits", "labels"])
        zeros = array_ops.zeros_like(logits)
        cond = math_ops.greater_equal(logits, zeros)
        relu_logits = array_ops.select(cond, logits, zeros)
        neg_abs = array_ops.select(cond, -logits, logits)
        return math_ops.add(
            relu_logits - logits * labels, math_ops.log1p(math_ops.exp(neg_abs)), name=scope
        )


def bias_add(value, bias, data_format=None, name=None):
    """`value + bias` along the last dimension (NHWC)."""
    if data_format not in (None, "NHWC"):
        raise NotImplementedError("bias_add supports data_format='NHWC'")
    with ops.name_scope(name, "BiasAdd", [value, bias]) as scope:
        # As TF: `bias` converts to the type of `value` (a float64 array to float32).
        value = ops.convert_to_tensor(value, name="input")
        bias = ops.convert_to_tensor(
            bias, dtype=None if is_tensor_like(bias) else value.dtype.base_dtype, name="bias"
        )
        return make_op("BiasAdd", [value, bias], {"data_format": "NHWC"}, scope=scope).outputs[0]


def l2_loss(t, name=None):
    """`sum(t ** 2) / 2`."""
    return unary("L2Loss", t, name)


def zero_fraction(value, name=None):
    """The fraction of zeros in `value` (a float32 scalar)."""
    with ops.name_scope(name, "zero_fraction", [value]):
        value = ops.convert_to_tensor(value, name="value")
        zero = array_ops.zeros([], dtype=value.dtype.base_dtype)
        return math_ops.reduce_mean(array_ops.cast(math_ops.equal(value, zero), dtypes.float32))


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """Mean and variance of `x` over `axes`."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with ops.name_scope(name, "moments", [x, axes]):
        x = ops.convert_to_tensor(x, name="x")
        mean = math_ops.reduce_mean(x, axes, keepdims=True, name="mean")
        sq = math_ops.square(x - array_ops.stop_gradient(mean))
        variance = math_ops.reduce_mean(sq, axes, keepdims=True, name="variance")
        if not keep:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        return mean, variance


def embedding_lookup(
    params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None
):
    """Rows of `params` (a tensor, a variable, or a one-element list of them) at `ids`."""
    if isinstance(params, list | tuple):
        if len(params) != 1:
            raise NotImplementedError("embedding_lookup over partitioned params")
        params = params[0]
    if max_norm is not None:
        raise NotImplementedError("embedding_lookup(max_norm=...)")
    with ops.name_scope(name, "embedding_lookup", [params, ids]):
        return array_ops.gather(params, ids, name="embedding_lookup")


sigmoid = math_ops.sigmoid
tanh = math_ops.tanh


def in_top_k(predictions, targets, k, name=None):
    """Whether each `targets[i]` is among the `k` largest `predictions[i]`.

    Args:
        predictions: `[batch, classes]` float32 scores.
        targets: `[batch]` int32 or int64 class ids.
        k: How many of the largest scores count.
        name: Name of the operation.

    Returns:
        A `[batch]` bool tensor. Classes tied with the k-th largest score count as
        inside; a row with a non-finite score, or an out-of-range target, is False.
    """
    with ops.name_scope(name, "in_top_k") as scope:
        predictions = ops.convert_to_tensor(predictions, name="predictions")
        targets = ops.convert_to_tensor(targets, name="targets")
        k = ops.convert_to_tensor(k, dtype=targets.dtype.base_dtype, name="k")
        return make_op("InTopKV2", [predictions, targets, k], scope=scope).outputs[0]


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):
    """The `k` largest entries of the last dimension of `input`, and their indices.

    Args:
        input: A real tensor of rank at least 1 whose last dimension is at least `k`.
        k: A 0-D int32 or int64 tensor: how many entries to keep per row.
        sorted: Whether the values come out in descending order (they always do
            here; TF leaves the order unspecified when False).
        index_type: The dtype of `indices`, int32 or int64.
        name: Name of the operation.

    Returns:
        `(values, indices)`: `input`'s shape with the last dimension `k`. Equal
        values keep their order: the lower index comes first.

    Raises:
        ValueError: when `k` is a constant larger than a known last dimension, or
            negative.
        InvalidArgumentError: at run time for the same conditions on fed values.
    """
    with ops.name_scope(name, "TopKV2", [input, k]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        k = ops.convert_to_tensor(k, dtype=None if is_tensor_like(k) else dtypes.int32, name="k")
        attrs = {"sorted": bool(sorted), "index_type": dtypes.as_dtype(index_type)}
        op = make_op("TopKV2", [input, k], attrs, scope=scope)
        return TopKV2(op.outputs[0], op.outputs[1])


class TopKV2(tuple):
    """`top_k`'s `(values, indices)` pair, with the fields by name as TF's."""

    __slots__ = ()

    def __new__(cls, values, indices):
        """The pair `(values, indices)`."""
        return super().__new__(cls, (values, indices))

    @property
    def values(self):
        """The `k` largest entries of each row."""
        return self[0]

    @property
    def indices(self):
        """Their positions in the last dimension."""
        return self[1]


def lrn(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):
    """Local response normalization over the last dimension of a 4-D float32 `input`.

    `sqr_sum[a, b, c, d] = sum(input[a, b, c, d - depth_radius : d + depth_radius + 1] ** 2)`
    and `output = input / (bias + alpha * sqr_sum) ** beta`.

    Args:
        input: A 4-D float32 tensor.
        depth_radius: Half-width of the 1-D normalization window.
        bias: An offset (usually positive, to avoid dividing by 0).
        alpha: A scale factor.
        beta: An exponent.
        name: Name of the operation.
    """
    attrs = {
        "depth_radius": int(depth_radius),
        "bias": float(bias),
        "alpha": float(alpha),
        "beta": float(beta),
    }
    with ops.name_scope(name, "LRN", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        return make_op("LRN", [input], attrs, scope=scope).outputs[0]


local_response_normalization = lrn


def _noise_shape(x, noise_shape):
    """`noise_shape` with unknown dimensions filled from `x`'s static shape."""
    if noise_shape is None:
        return array_ops.shape(x)
    try:
        requested = tensor_shape.as_shape(noise_shape)
    except (TypeError, ValueError):
        return noise_shape
    if x.shape.ndims is not None and x.shape.ndims == requested.ndims:
        pairs = zip(x.shape.as_list(), requested.as_list(), strict=True)
        return tensor_shape.TensorShape([d if n is None else n for d, n in pairs])
    return noise_shape


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeroes elements of `x` with probability `rate`, scaling the rest by `1 / (1 - rate)`.

    Args:
        x: A floating-point tensor.
        keep_prob: Probability of keeping each element (TF 1.x); give this or `rate`.
        noise_shape: Shape of the random keep/drop mask, broadcast against `x` (e.g.
            `[batch, 1, 1, channels]` drops whole channels).
        seed: Op-level seed for the mask; see `tf.set_random_seed`.
        name: Name of the operation.
        rate: Probability of dropping each element, `1 - keep_prob`.

    Raises:
        ValueError: if neither or both of `keep_prob` and `rate` are given, `rate` is
            outside `[0, 1)`, or `x` is not floating point.
    """
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'rate' and 'keep_prob'")
    if keep_prob is not None:
        if isinstance(keep_prob, numbers.Real) and not 0 < float(keep_prob) <= 1:
            raise ValueError(f"`keep_prob` must be a float in the range (0, 1], got {keep_prob}")
        rate = 1 - keep_prob
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    with ops.name_scope(name, "dropout", [x]):
        is_number = isinstance(rate, numbers.Real)
        if is_number and not 0 <= rate < 1:
            raise ValueError(
                "`rate` must be a scalar tensor or a float in the range [0, 1). "
                f"Received: rate={rate}"
            )
        x = ops.convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError(
                "`x.dtype` must be a floating point tensor as `x` will be scaled. "
                f"Received: x_dtype={x.dtype}"
            )
        if is_number and rate == 0:
            return x
        if is_number:
            scaled = math_ops.multiply(x, ops.convert_to_tensor(1 / (1 - rate), dtype=x.dtype))
        elif not is_tensor_like(rate):
            raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate!r}")
        else:
            rate = ops.convert_to_tensor(rate)
            if rate.shape.ndims not in (None, 0):
                raise ValueError(f"`rate` must be a scalar, got shape {rate.shape}")
            if rate.dtype != x.dtype:
                # As TF: only a compatible dtype (a reference of x's) is cast.
                if not rate.dtype.is_compatible_with(x.dtype):
                    raise ValueError(
                        "`x.dtype` must be compatible with `rate.dtype`. "
                        f"Received: x.dtype={x.dtype} and rate.dtype={rate.dtype}"
                    )
                rate = array_ops.cast(rate, x.dtype)
            one = ops.convert_to_tensor(1, dtype=x.dtype)
            scaled = math_ops.truediv(x, math_ops.subtract(one, rate))
        noise = random_ops.random_uniform(_noise_shape(x, noise_shape), seed=seed, dtype=x.dtype)
        keep = math_ops.greater_equal(noise, rate)
        zero = ops.convert_to_tensor(0, dtype=x.dtype)
        out = array_ops.where(keep, scaled, zero)
        out.set_shape(x.shape)
        return out
