"""`tf.losses`: TF-1.x's `losses_impl.py` and `losses/util.py`, built from graph ops.

Every loss opens TF's name scope, casts as TF does, checks that the weights broadcast
to the losses (TF's `assert_broadcastable`: a `ValueError` when the static shapes say
no, an `Assert` op when they are not known) and reduces with `compute_weighted_loss`,
which adds the result to `loss_collection`.
"""

from __future__ import annotations

from ..framework import constant_op, dtypes, ops, tensor_util
from . import array_ops, confusion_matrix, control_flow_ops, logging_ops, math_ops, nn_ops


class Reduction:
    """Types of loss reduction.

    `NONE` keeps the weighted losses; `SUM` sums them; `MEAN` divides the sum by the
    sum of the weights; `SUM_OVER_BATCH_SIZE` by the number of loss elements;
    `SUM_OVER_NONZERO_WEIGHTS` (alias `SUM_BY_NONZERO_WEIGHTS`, the default) by the
    number of elements whose weight is not 0.
    """

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        """All reduction keys, in TF's order (the alias listed twice, as TF)."""
        return (
            cls.NONE,
            cls.SUM,
            cls.MEAN,
            cls.SUM_OVER_BATCH_SIZE,
            cls.SUM_OVER_NONZERO_WEIGHTS,
            cls.SUM_BY_NONZERO_WEIGHTS,
        )

    @classmethod
    def validate(cls, key):
        """Raises TF's `ValueError` when `key` is not one of `all()`."""
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of {cls.all()}.")


_ASSERT_BROADCASTABLE_ERROR_PREFIX = "weights can not be broadcast to values."


def _assert_broadcastable(weights, values):
    """TF's `weights_broadcast_ops.assert_broadcastable`.

    Static shapes decide at build time (a `NoOp`, or TF's `ValueError`). Departure:
    when they do not, TF builds a `cond` over a `DenseToDenseSetOperation`; ferroflow
    has neither, so it asserts the same condition with other ops: the scalar case, or
    equal ranks and every weight dimension 1 or the value's (the two shape vectors are
    padded with zeros to one length so that unequal ranks compare without error).
    """
    with ops.name_scope(None, "assert_broadcastable", (weights, values)) as scope:
        with ops.name_scope(None, "weights", (weights,)) as weights_scope:
            weights = ops.convert_to_tensor(weights, name=weights_scope)
            weights_shape = array_ops.shape(weights, name="shape")
            weights_rank = array_ops.rank(weights, name="rank")
        weights_rank_static = tensor_util.constant_value(weights_rank)

        with ops.name_scope(None, "values", (values,)) as values_scope:
            values = ops.convert_to_tensor(values, name=values_scope)
            values_shape = array_ops.shape(values, name="shape")
            values_rank = array_ops.rank(values, name="rank")
        values_rank_static = tensor_util.constant_value(values_rank)

        if weights_rank_static is not None and values_rank_static is not None:
            if weights_rank_static == 0:
                return control_flow_ops.no_op(name="static_scalar_check_success")
            if weights_rank_static != values_rank_static:
                raise ValueError(
                    f"{_ASSERT_BROADCASTABLE_ERROR_PREFIX} values.rank="
                    f"{values_rank_static}. weights.rank={weights_rank_static}. "
                    f"values.shape={values.shape}. weights.shape={weights.shape}. "
                    f"Received weights={weights}, values={values}"
                )
            weights_shape_static = tensor_util.constant_value(weights_shape)
            values_shape_static = tensor_util.constant_value(values_shape)
            if weights_shape_static is not None and values_shape_static is not None:
                for i in range(len(values_shape_static)):
                    if weights_shape_static[i] not in (1, values_shape_static[i]):
                        raise ValueError(
                            f"{_ASSERT_BROADCASTABLE_ERROR_PREFIX} Mismatch at dim {i}. "
                            f"values.shape={values_shape_static}, weights.shape="
                            f"{weights_shape_static}. Received weights={weights}, "
                            f"values={values}"
                        )
                return control_flow_ops.no_op(name="static_dims_check_success")

        is_scalar = math_ops.equal(0, weights_rank, name="is_scalar")
        with ops.name_scope(None, "is_valid_shape"):
            is_same_rank = math_ops.equal(values_rank, weights_rank, name="is_same_rank")
            w = array_ops.concat([weights_shape, array_ops.zeros_like(values_shape)], 0)
            v = array_ops.concat([values_shape, array_ops.zeros_like(weights_shape)], 0)
            dims_ok = math_ops.reduce_all(
                math_ops.logical_or(math_ops.equal(w, v), math_ops.equal(w, 1))
            )
            is_valid_shape = math_ops.logical_or(
                is_scalar, math_ops.logical_and(is_same_rank, dims_ok)
            )
        data = (
            _ASSERT_BROADCASTABLE_ERROR_PREFIX,
            "weights.shape=",
            weights.name,
            weights_shape,
            "values.shape=",
            values.name,
            values_shape,
            "is_scalar=",
            is_scalar,
        )
        return logging_ops.Assert(is_valid_shape, data, name=scope)


def _broadcast_weights(weights, values):
    """TF's `weights_broadcast_ops.broadcast_weights`: `weights` times ones of `values`."""
    with ops.name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = ops.convert_to_tensor(values, name="values")
        weights = ops.convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        weights_shape = weights.get_shape()
        values_shape = values.get_shape()
        if (
            weights_shape.is_fully_defined()
            and values_shape.is_fully_defined()
            and weights_shape.is_compatible_with(values_shape)
        ):
            return weights
        with ops.control_dependencies((_assert_broadcastable(weights, values),)):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


def _safe_mean(losses, num_present):
    """`sum(losses) / num_present`, 0 where `num_present` is 0."""
    total_loss = math_ops.reduce_sum(losses)
    return math_ops.div_no_nan(total_loss, num_present, name="value")


def _num_elements(losses):
    """The number of elements of `losses`, in its dtype."""
    with ops.name_scope(None, "num_elements", values=[losses]) as scope:
        return array_ops.cast(array_ops.size(losses, name=scope), dtype=losses.dtype)


def _num_present(losses, weights, per_batch=False):
    """The number of elements of `losses` with a non-zero (broadcast) weight."""
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with ops.name_scope(None, "num_present", (losses, weights)) as scope:
        weights = array_ops.cast(weights, dtype=dtypes.float32)
        present = array_ops.where(
            math_ops.equal(weights, 0.0),
            array_ops.zeros_like(weights),
            array_ops.ones_like(weights),
        )
        present = _broadcast_weights(present, losses)
        if per_batch:
            return math_ops.reduce_sum(
                present,
                axis=math_ops.range(1, array_ops.rank(present)),
                keepdims=True,
                name=scope,
            )
        return math_ops.reduce_sum(present, name=scope)


def add_loss(loss, loss_collection=ops.GraphKeys.LOSSES):
    """Adds an externally defined `loss` to `loss_collection` (if it is not empty)."""
    if loss_collection:
        ops.add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=ops.GraphKeys.LOSSES):
    """The losses in `loss_collection`, filtered by `scope` when given."""
    return ops.get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The tensors in `GraphKeys.REGULARIZATION_LOSSES`, filtered by `scope`."""
    return ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses (a constant 0.0 when there are none)."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant_op.constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of `get_losses(scope)` and, by default, the regularization losses.

    As TF, an empty list raises `ValueError` from `add_n`.
    """
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)


def compute_weighted_loss(
    losses,
    weights=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """`losses` times `weights`, reduced by `reduction`, added to `loss_collection`.

    `weights` must be a scalar or have the rank of `losses` with each dimension 1 or
    the loss's (TF's `ValueError` otherwise). The result has the dtype of `losses`.
    """
    Reduction.validate(reduction)
    with ops.name_scope(scope, "weighted_loss", (losses, weights)):
        ops.get_default_graph()._last_loss_reduction = reduction  # type: ignore[attr-defined]
        with ops.control_dependencies((_assert_broadcastable(weights, losses),)):
            losses = ops.convert_to_tensor(losses)
            input_dtype = losses.dtype
            losses = array_ops.cast(losses, dtype=dtypes.float32)
            weights = array_ops.cast(weights, dtype=dtypes.float32)
            weighted_losses = math_ops.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted_losses
            else:
                loss = math_ops.reduce_sum(weighted_losses)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(
                        loss, math_ops.reduce_sum(array_ops.ones_like(losses) * weights)
                    )
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, _num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            loss = array_ops.cast(loss, input_dtype)
            add_loss(loss, loss_collection)
            return loss


def _check_args(**kwargs):
    for arg, value in kwargs.items():
        if value is None:
            raise ValueError(f"Argument `{arg}` must not be None.")


def _cast_pair(predictions, labels):
    predictions = array_ops.cast(predictions, dtype=dtypes.float32)
    labels = array_ops.cast(labels, dtype=dtypes.float32)
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    return predictions, labels


def absolute_difference(
    labels,
    predictions,
    weights=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """The weighted `|predictions - labels|` loss (see `compute_weighted_loss`)."""
    _check_args(labels=labels, predictions=predictions)
    with ops.name_scope(scope, "absolute_difference", (predictions, labels, weights)) as scope:
        predictions, labels = _cast_pair(predictions, labels)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def cosine_distance(
    labels,
    predictions,
    axis=None,
    weights=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
    dim=None,
):
    """`1 - sum(predictions * labels, axis)` for unit-normalised inputs (`dim`: old name)."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    if axis is None:
        axis = dim
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    _check_args(labels=labels, predictions=predictions)
    with ops.name_scope(scope, "cosine_distance_loss", (predictions, labels, weights)) as scope:
        predictions, labels = _cast_pair(predictions, labels)
        radial_diffs = math_ops.multiply(predictions, labels)
        losses = 1 - math_ops.reduce_sum(radial_diffs, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def hinge_loss(
    labels,
    logits,
    weights=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """`relu(1 - (2 * labels - 1) * logits)` for labels in {0, 1}, weighted."""
    _check_args(labels=labels, logits=logits)
    with ops.name_scope(scope, "hinge_loss", (logits, labels, weights)) as scope:
        logits, labels = _cast_pair(logits, labels)
        all_ones = array_ops.ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        losses = nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def huber_loss(
    labels,
    predictions,
    weights=1.0,
    delta=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """Quadratic within `delta` of the label, linear beyond it, weighted."""
    _check_args(labels=labels, predictions=predictions)
    with ops.name_scope(scope, "huber_loss", (predictions, labels, weights)) as scope:
        predictions, labels = _cast_pair(predictions, labels)
        error = math_ops.subtract(predictions, labels)
        abs_error = math_ops.abs(error)
        quadratic = math_ops.minimum(abs_error, delta)
        linear = math_ops.subtract(abs_error, quadratic)
        losses = math_ops.add(
            math_ops.multiply(
                ops.convert_to_tensor(0.5, dtype=quadratic.dtype),
                math_ops.multiply(quadratic, quadratic),
            ),
            math_ops.multiply(delta, linear),
        )
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def log_loss(
    labels,
    predictions,
    weights=1.0,
    epsilon=1e-7,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """The weighted log loss of probabilities `predictions` (`epsilon` guards `log(0)`)."""
    _check_args(labels=labels, predictions=predictions)
    with ops.name_scope(scope, "log_loss", (predictions, labels, weights)) as scope:
        predictions, labels = _cast_pair(predictions, labels)
        losses = -math_ops.multiply(
            labels, math_ops.log(predictions + epsilon)
        ) - math_ops.multiply((1 - labels), math_ops.log(1 - predictions + epsilon))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def mean_pairwise_squared_error(
    labels, predictions, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES
):
    """The weighted mean, over the batch, of squared differences of pairwise differences.

    For each batch row the loss is the mean of `((p_i - p_j) - (l_i - l_j))**2` over
    pairs of its elements; `weights` is a scalar or per batch row (`[batch, 1, ...]`).
    """
    _check_args(labels=labels, predictions=predictions)
    with ops.name_scope(
        scope, "mean_pairwise_squared_error", (predictions, labels, weights)
    ) as scope:
        weights = array_ops.cast(weights, dtype=dtypes.float32)
        labels = array_ops.cast(labels, dtype=dtypes.float32)
        with ops.control_dependencies((_assert_broadcastable(weights, labels),)):
            predictions = array_ops.cast(predictions, dtype=dtypes.float32)
            predictions.get_shape().assert_is_compatible_with(labels.get_shape())
            diffs = math_ops.subtract(predictions, labels)
            axis = math_ops.range(1, array_ops.rank(diffs))
            sum_squares_diff_per_batch = math_ops.reduce_sum(
                math_ops.square(diffs), axis=axis, keepdims=True
            )
            num_present_per_batch = _num_present(diffs, weights, per_batch=True)
            term1 = 2.0 * math_ops.div_no_nan(
                sum_squares_diff_per_batch,
                math_ops.maximum(num_present_per_batch - 1, 0),
                name="value",
            )
            sum_diff = math_ops.reduce_sum(diffs, axis=axis, keepdims=True)
            term2 = 2.0 * math_ops.div_no_nan(
                math_ops.square(sum_diff),
                math_ops.maximum(
                    math_ops.multiply(num_present_per_batch, num_present_per_batch - 1), 0
                ),
                name="value",
            )
            weighted_losses = math_ops.multiply(term1 - term2, weights)
            loss = math_ops.reduce_sum(weighted_losses)
            mean_loss = array_ops.where(
                math_ops.reduce_sum(num_present_per_batch) > 0,
                loss,
                array_ops.zeros_like(loss),
                name="value",
            )
            add_loss(mean_loss, loss_collection)
            return mean_loss


def mean_squared_error(
    labels,
    predictions,
    weights=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """The weighted `(predictions - labels)**2` loss (one `SquaredDifference` op)."""
    _check_args(labels=labels, predictions=predictions)
    with ops.name_scope(scope, "mean_squared_error", (predictions, labels, weights)) as scope:
        predictions, labels = _cast_pair(predictions, labels)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def sigmoid_cross_entropy(
    multi_class_labels,
    logits,
    weights=1.0,
    label_smoothing=0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """Weighted `sigmoid_cross_entropy_with_logits`; labels smoothed toward 1/2."""
    _check_args(multi_class_labels=multi_class_labels, logits=logits)
    with ops.name_scope(
        scope, "sigmoid_cross_entropy_loss", (logits, multi_class_labels, weights)
    ) as scope:
        logits = ops.convert_to_tensor(logits)
        multi_class_labels = array_ops.cast(multi_class_labels, logits.dtype)
        logits.get_shape().assert_is_compatible_with(multi_class_labels.get_shape())
        if label_smoothing > 0:
            multi_class_labels = multi_class_labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_ops.sigmoid_cross_entropy_with_logits(
            labels=multi_class_labels, logits=logits, name="xentropy"
        )
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def softmax_cross_entropy(
    onehot_labels,
    logits,
    weights=1.0,
    label_smoothing=0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """Weighted softmax cross-entropy per batch row; labels smoothed toward uniform."""
    _check_args(onehot_labels=onehot_labels, logits=logits)
    with ops.name_scope(
        scope, "softmax_cross_entropy_loss", (logits, onehot_labels, weights)
    ) as scope:
        logits = ops.convert_to_tensor(logits)
        onehot_labels = array_ops.cast(onehot_labels, logits.dtype)
        logits.get_shape().assert_is_compatible_with(onehot_labels.get_shape())
        if label_smoothing > 0:
            num_classes = array_ops.cast(array_ops.shape(onehot_labels)[-1], logits.dtype)
            smooth_positives = 1.0 - label_smoothing
            smooth_negatives = label_smoothing / num_classes
            onehot_labels = onehot_labels * smooth_positives + smooth_negatives
        onehot_labels = array_ops.stop_gradient(onehot_labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(
            labels=onehot_labels, logits=logits, name="xentropy"
        )
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def _remove_squeezable_dimensions(labels, predictions, weights=None, expected_rank_diff=0):
    """TF's `remove_squeezable_dimensions`, and a trailing 1 of `weights`.

    Unknown ranks are compared when run (`tf.cond`), as TF's.
    """
    labels, predictions = confusion_matrix.remove_squeezable_dimensions(
        labels, predictions, expected_rank_diff=expected_rank_diff
    )
    if weights is not None:
        weights = ops.convert_to_tensor(weights)
        labels_rank = labels.get_shape().ndims
        weights_shape = weights.get_shape()
        weights_rank = weights_shape.ndims
        if labels_rank is not None and weights_rank is not None:
            if weights_rank - labels_rank == 1:
                weights = array_ops.squeeze(weights, [-1])
            return labels, predictions, weights
        rank_diff = array_ops.rank(weights) - array_ops.rank(labels)
        if weights_rank is None or (
            weights_rank > 0 and weights_shape.dims[-1].is_compatible_with(1)
        ):
            weights = control_flow_ops.cond(
                math_ops.equal(1, rank_diff),
                lambda: array_ops.squeeze(weights, [-1]),
                lambda: weights,
            )
    return labels, predictions, weights


def sparse_softmax_cross_entropy(
    labels,
    logits,
    weights=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """Weighted `sparse_softmax_cross_entropy_with_logits` of integer class `labels`."""
    _check_args(labels=labels, logits=logits)
    with ops.name_scope(
        scope, "sparse_softmax_cross_entropy_loss", (logits, labels, weights)
    ) as scope:
        labels, logits, weights = _remove_squeezable_dimensions(
            labels, logits, weights, expected_rank_diff=1
        )
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits, name="xentropy"
        )
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)
