"""Neural-network ops (`tf.nn`): activations, softmax, losses, bias add, moments."""

from __future__ import annotations

import numbers

import numpy as np

from .. import errors
from .._compat import zip_strict
from ..framework import dtypes, ops, tensor_shape
from . import array_ops, data_flow_ops, math_ops, random_ops, variables
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
    if logits.shape.ndims is not None:
        classes = logits.shape.as_list()[-1]
        if classes is not None:
            return [-1, classes]
        begin = [logits.shape.ndims - 1]
    else:
        begin = array_ops.expand_dims(array_ops.rank(logits) - 1, 0)
    last = array_ops.slice(array_ops.shape(logits), begin, [1])
    return array_ops.concat([[-1], last], 0)


def softmax_cross_entropy_with_logits_v2(labels=None, logits=None, axis=-1, name=None, dim=None):
    """Per-example `-sum(labels * log_softmax(logits))` along `axis`.

    As TF's: `labels` are cast to the logits' dtype (float64 labels with float32
    logits are allowed), half-precision logits are computed in float32 and the cost
    cast back, and gradients flow into the labels too.
    """
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    axis = dim if dim is not None else axis
    if axis is None:
        axis = -1
    with ops.name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = ops.convert_to_tensor(logits, name="logits")
        labels = ops.convert_to_tensor(labels, name="labels")
        to_float32 = logits.dtype.base_dtype in (dtypes.float16, dtypes.bfloat16)
        precise_logits = array_ops.cast(logits, dtypes.float32) if to_float32 else logits
        labels = array_ops.cast(labels, precise_logits.dtype)
        shape = logits.shape
        if axis != -1:
            rank = array_ops.rank(precise_logits)
            precise_logits = _move_dim_to_end(precise_logits, axis, rank)
            labels = _move_dim_to_end(labels, axis, rank)
        if axis == -1 and shape.ndims == 2:
            cost = make_op(
                "SoftmaxCrossEntropyWithLogits",
                [precise_logits, labels],
                scope=None if to_float32 else scope,
            )
            cost = cost.outputs[0]
        else:
            # Flatten to [batch, classes] and restore the batch dims afterwards.
            input_shape = array_ops.shape(precise_logits)
            flat = _flat_classes_shape(precise_logits)
            flat_logits = array_ops.reshape(precise_logits, flat)
            flat_labels = array_ops.reshape(labels, flat)
            op = make_op("SoftmaxCrossEntropyWithLogits", [flat_logits, flat_labels])
            cost = array_ops.reshape(
                op.outputs[0],
                array_ops.slice(input_shape, [0], [array_ops.rank(precise_logits) - 1]),
                name=None if to_float32 else scope,
            )
            if shape.ndims is not None:
                # (as TF: the reshape loses the static shape)
                dims = shape.as_list()
                del dims[axis]
                cost.set_shape(dims)
        if to_float32:
            return array_ops.cast(cost, logits.dtype, name=scope)
        return cost


def _move_dim_to_end(tensor, dim_index, rank):
    """`tensor` with dimension `dim_index` moved last (TF's helper)."""
    return array_ops.transpose(
        tensor,
        array_ops.concat(
            [math_ops.range(dim_index), math_ops.range(dim_index + 1, rank), [dim_index]], 0
        ),
    )


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
    if labels is None or logits is None:
        raise ValueError(
            "Both `labels` and `logits` must be provided for sigmoid_cross_entropy_with_logits"
            f"Received: labels={labels} and logits={logits}"
        )
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits, labels = convert_same_type([logits, labels], ["logits", "labels"])
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError(
                "`logits` and `labels` must have the same shape, "
                f"received ({logits.shape} vs {labels.shape})."
            )
        zeros = array_ops.zeros_like(logits)
        cond = math_ops.greater_equal(logits, zeros)
        relu_logits = array_ops.select(cond, logits, zeros)
        neg_abs = array_ops.select(cond, -logits, logits)
        return math_ops.add(
            relu_logits - logits * labels, math_ops.log1p(math_ops.exp(neg_abs)), name=scope
        )


def bias_add(value, bias, data_format=None, name=None):
    """`value + bias` along the channel dimension.

    The channel dimension is the last for `data_format` `NHWC` (the default), and
    dimension 1 for `NCHW` (of an input of rank 3 or more).
    """
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    with ops.name_scope(name, "BiasAdd", [value, bias]) as scope:
        # As TF: `bias` converts to the type of `value` (a float64 array to float32).
        value = ops.convert_to_tensor(value, name="input")
        bias = ops.convert_to_tensor(
            bias, dtype=None if is_tensor_like(bias) else value.dtype.base_dtype, name="bias"
        )
        attrs = {"data_format": data_format}
        return make_op("BiasAdd", [value, bias], attrs, scope=scope).outputs[0]


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


def _clip_embeddings(params, ids, max_norm):
    """TF's `_clip`: each embedding clipped to an L2 norm of `max_norm` (if given)."""
    if max_norm is None:
        return params
    from . import clip_ops  # clip_ops imports this module

    ids_rank = ops.convert_to_tensor(ids).get_shape().ndims
    params_rank = ops.convert_to_tensor(params).get_shape().ndims
    if ids_rank and params_rank:
        axes = list(range(ids_rank, params_rank))
    else:
        axes = math_ops.range(
            ids_rank if ids_rank else array_ops.rank(ids),
            params_rank if params_rank else array_ops.rank(params),
        )
    return clip_ops.clip_by_norm(params, max_norm, axes=axes)


def embedding_lookup(
    params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None
):
    """Rows of `params` at `ids`; `params` may be split into parts along dimension 0.

    `params` is a tensor or variable, a list of them (the parts of one table) or
    a `PartitionedVariable`. With several parts, id `i` lives in part `i % n` at
    row `i // n` (`partition_strategy="mod"`), or in contiguous ranges, the first
    `size % n` parts one row longer (`"div"`), as TF assigns them. The gradient
    of each part is an `IndexedSlices` of the rows it gave.

    Args:
        params: The table, or its parts (same shape past dimension 0).
        ids: Integer ids (any shape).
        partition_strategy: `"mod"` or `"div"`.
        name: Name scope of the ops.
        validate_indices: Accepted for compatibility (ids are always checked).
        max_norm: Clip each embedding to this L2 norm.

    Returns:
        A tensor of shape `ids.shape + params.shape[1:]`.

    Raises:
        ValueError: No params, or an unknown `partition_strategy`.
    """
    del validate_indices
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if isinstance(params, variables.PartitionedVariable):
        params = list(params)
    if not isinstance(params, list):
        params = [params] if not isinstance(params, tuple) else list(params)
    with ops.name_scope(name, "embedding_lookup", [*params, ids]) as name:
        np_ = len(params)
        params = [ops.convert_to_tensor(p, name="params") for p in params]
        ids = ops.convert_to_tensor(ids, name="ids")
        if np_ == 1:
            with ops.colocate_with(params[0]):
                result = _clip_embeddings(
                    array_ops.gather(params[0], ids, name=name), ids, max_norm
                )
            return array_ops.identity(result)
        flat_ids = array_ops.reshape(ids, [-1])
        original_indices = math_ops.range(array_ops.size(flat_ids, out_type=dtypes.int32))
        if partition_strategy == "mod":
            p_assignments = flat_ids % np_
            new_ids = flat_ids // np_
        elif partition_strategy == "div":
            dims = [tensor_shape.dimension_value(p.get_shape()[0]) for p in params]
            if all(d is not None for d in dims) and sum(dims):
                num_total_ids = ops.convert_to_tensor(
                    np.asarray(sum(dims), flat_ids.dtype.as_numpy_dtype)
                )
            else:
                dim_0_sizes = []
                for p, d in zip_strict(params, dims):
                    if d is not None:
                        dim_0_sizes.append(d)
                    else:
                        with ops.colocate_with(p):
                            dim_0_sizes.append(array_ops.shape(p)[0])
                num_total_ids = math_ops.reduce_sum(
                    array_ops.cast(array_ops.stack(dim_0_sizes), flat_ids.dtype)
                )
            ids_per_partition = num_total_ids // np_
            extras = num_total_ids % np_
            p_assignments = math_ops.maximum(
                flat_ids // (ids_per_partition + 1), (flat_ids - extras) // ids_per_partition
            )
            new_ids = array_ops.where(
                p_assignments < extras,
                flat_ids % (ids_per_partition + 1),
                (flat_ids - extras) % ids_per_partition,
            )
        else:
            raise ValueError(
                f"Unrecognized partition strategy: {partition_strategy}."
                "Must be one of either `mod` or `div`."
            )
        p_assignments = array_ops.cast(p_assignments, dtypes.int32)
        gather_ids = data_flow_ops.dynamic_partition(new_ids, p_assignments, np_)
        pindices = data_flow_ops.dynamic_partition(original_indices, p_assignments, np_)
        partitioned_result = []
        for p in range(np_):
            with ops.colocate_with(params[p]):
                partitioned_result.append(array_ops.gather(params[p], gather_ids[p]))
        ret = data_flow_ops.parallel_dynamic_stitch(pindices, partitioned_result, name=name)
        element_shape_s = params[0].get_shape()[1:]
        for p in params[1:]:
            element_shape_s = element_shape_s.merge_with(p.get_shape()[1:])
        if element_shape_s.is_fully_defined():
            element_shape_d = ops.convert_to_tensor(element_shape_s.as_list(), dtype=dtypes.int32)
        else:
            with ops.colocate_with(params[0]):
                element_shape_d = array_ops.shape(params[0])[1:]
        ret = array_ops.reshape(ret, array_ops.concat([array_ops.shape(ids), element_shape_d], 0))
        ret.set_shape(ids.get_shape().concatenate(element_shape_s))
        return _clip_embeddings(ret, ids, max_norm)


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
        pairs = zip_strict(x.shape.as_list(), requested.as_list())
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
        out = array_ops.where_v2(keep, scaled, zero)
        out.set_shape(x.shape)
        return out
