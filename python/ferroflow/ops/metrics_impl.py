"""`tf.metrics`: TF-1.x's streaming metrics (`metrics_impl.py`), built from graph ops.

Each metric opens TF's variable scope, makes its accumulators with `metric_variable`
(non-trainable, zero-initialised, in `LOCAL_VARIABLES` and `METRIC_VARIABLES`) and
returns `(value, update_op)`: `value` reads the accumulators, `update_op` adds one
batch to them and gives the value after the update.
"""

from __future__ import annotations

from ..framework import dtypes, ops, tensor_util
from . import array_ops, check_ops, control_flow_ops, logging_ops, math_ops, state_ops, variables
from . import variable_scope as vs
from .losses_impl import _broadcast_weights


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A non-trainable variable of zeros in `LOCAL_VARIABLES` and `METRIC_VARIABLES`."""
    return variables.Variable(
        lambda: array_ops.zeros(shape, dtype),
        trainable=False,
        collections=[ops.GraphKeys.LOCAL_VARIABLES, ops.GraphKeys.METRIC_VARIABLES],
        validate_shape=validate_shape,
        name=name,
    )


def _remove_squeezable_dimensions(predictions, labels, weights):
    """TF's static-shape `_remove_squeezable_dimensions` of `metrics_impl`.

    Squeezes the last dimension of `predictions` or `labels` when their ranks differ by
    one and it is 1, and squeezes or expands the last dimension of non-scalar `weights`
    to `predictions`' rank. Departure: TF falls back to `cond` when ranks are unknown;
    ferroflow has no `cond` and raises `NotImplementedError` there.
    """
    predictions = ops.convert_to_tensor(predictions)
    if labels is not None:
        labels = ops.convert_to_tensor(labels)
        with ops.name_scope(None, "remove_squeezable_dimensions", [labels, predictions]):
            p_rank = predictions.get_shape().ndims
            l_rank = labels.get_shape().ndims
            if p_rank is None or l_rank is None:
                raise NotImplementedError("tf.metrics needs known ranks")
            rank_diff = p_rank - l_rank
            if rank_diff == 1 and predictions.get_shape().dims[-1].is_compatible_with(1):
                predictions = array_ops.squeeze(predictions, [-1])
            elif rank_diff == -1 and labels.get_shape().dims[-1].is_compatible_with(1):
                labels = array_ops.squeeze(labels, [-1])
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if weights is None:
        return predictions, labels, None
    weights = ops.convert_to_tensor(weights)
    weights_rank = weights.get_shape().ndims
    if weights_rank == 0:
        return predictions, labels, weights
    predictions_rank = predictions.get_shape().ndims
    if predictions_rank is None or weights_rank is None:
        raise NotImplementedError("tf.metrics needs known ranks")
    if weights_rank - predictions_rank == 1:
        weights = array_ops.squeeze(weights, [-1])
    elif predictions_rank - weights_rank == 1:
        weights = array_ops.expand_dims(weights, [-1])
    return predictions, labels, weights


def _assert_rank_in(x, ranks):
    """TF's `check_ops.assert_rank_in` (static `ValueError`, else an `Assert` op)."""
    with ops.name_scope(None, "assert_rank_in", [x, *ranks]):
        x = ops.convert_to_tensor(x, name="x")
        ranks = [ops.convert_to_tensor(r, name="ranks") for r in ranks]
        static = [tensor_util.constant_value(r) for r in ranks]
        if all(s is not None for s in static) and x.get_shape().ndims is not None:
            want = tuple(int(s) for s in static)
            if x.get_shape().ndims not in want:
                raise ValueError(
                    f"Tensor {x.name} must have rank in {want}.  Received rank "
                    f"{x.get_shape().ndims}, shape {x.get_shape()}"
                )
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        rank = array_ops.rank(x)
        condition = math_ops.reduce_any(array_ops.stack([math_ops.equal(rank, r) for r in ranks]))
        data = [f"Tensor {x.name} must have rank in", *ranks, "Received shape: "]
        data.append(array_ops.shape(x))
        return logging_ops.Assert(condition, data)


def _add(collections, tensor):
    if collections:
        ops.add_to_collections(collections, tensor)


def _read(v, collections):
    """The value of a metric variable, as TF's default replica context reads it."""
    value = array_ops.identity(v)
    _add(collections, value)
    return value


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of `values`, streamed through the `total` and `count` variables.

    `update_op` adds `sum(values * weights)` to `total` and `sum(weights)` (or the size of
    `values`) to `count`; both results are `total / count` (0 while `count` is 0).
    """
    with vs.variable_scope(name, "mean", (values, weights)):
        values = array_ops.cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = array_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(
                predictions=values, labels=None, weights=weights
            )
            weights = _broadcast_weights(array_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.reduce_sum(weights)
        update_total_op = state_ops.assign_add(total, math_ops.reduce_sum(values))
        with ops.control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        mean_t = math_ops.div_no_nan(total, math_ops.maximum(count, 0), name="value")
        _add(metrics_collections, mean_t)
        update_op = math_ops.div_no_nan(
            update_total_op, math_ops.maximum(update_count_op, 0), name="update_op"
        )
        _add(updates_collections, update_op)
        return mean_t, update_op


def accuracy(
    labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """How often `predictions` equals `labels`: the (weighted) `mean` of their equality."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if labels.dtype != predictions.dtype:
        predictions = array_ops.cast(predictions, labels.dtype)
    is_correct = array_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


def mean_absolute_error(
    labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """The (weighted) `mean` of `|predictions - labels|`."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    absolute_errors = math_ops.abs(predictions - labels)
    return mean(
        absolute_errors,
        weights,
        metrics_collections,
        updates_collections,
        name or "mean_absolute_error",
    )


def mean_squared_error(
    labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """The (weighted) `mean` of `(labels - predictions)**2`."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    squared_error = math_ops.squared_difference(labels, predictions)
    return mean(
        squared_error,
        weights,
        metrics_collections,
        updates_collections,
        name or "mean_squared_error",
    )


def root_mean_squared_error(
    labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """The square root of the streamed `mean_squared_error`."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    mse, update_mse_op = mean_squared_error(
        labels, predictions, weights, None, None, name or "root_mean_squared_error"
    )
    rmse = math_ops.sqrt(mse)
    _add(metrics_collections, rmse)
    update_rmse_op = math_ops.sqrt(update_mse_op)
    _add(updates_collections, update_rmse_op)
    return rmse, update_rmse_op


def _count_condition(values, weights=None, metrics_collections=None, updates_collections=None):
    """Streams the (weighted) number of true `values` into a `count` variable."""
    check_ops.assert_type(values, dtypes.bool)
    count = metric_variable([], dtypes.float32, name="count")
    values = array_ops.cast(values, dtypes.float32)
    if weights is not None:
        with ops.control_dependencies((_assert_rank_in(weights, (0, array_ops.rank(values))),)):
            weights = array_ops.cast(weights, dtypes.float32)
            values = math_ops.multiply(values, weights)
    value_tensor = _read(count, metrics_collections)
    update_op = state_ops.assign_add(count, math_ops.reduce_sum(values))
    _add(updates_collections, update_op)
    return value_tensor, update_op


def _counter(default_name, label_value, prediction_value):
    def metric(
        labels,
        predictions,
        weights=None,
        metrics_collections=None,
        updates_collections=None,
        name=None,
    ):
        with vs.variable_scope(name, default_name, (predictions, labels, weights)):
            predictions, labels, weights = _remove_squeezable_dimensions(
                predictions=array_ops.cast(predictions, dtype=dtypes.bool),
                labels=array_ops.cast(labels, dtype=dtypes.bool),
                weights=weights,
            )
            is_condition = math_ops.logical_and(
                math_ops.equal(labels, label_value), math_ops.equal(predictions, prediction_value)
            )
            return _count_condition(is_condition, weights, metrics_collections, updates_collections)

    metric.__name__ = metric.__qualname__ = default_name
    metric.__doc__ = (
        f"The (weighted) number of elements with label {label_value} and prediction "
        f"{prediction_value} (both cast to bool), streamed into `{default_name}/count`."
    )
    return metric


true_positives = _counter("true_positives", True, True)
false_positives = _counter("false_positives", False, True)
true_negatives = _counter("true_negatives", False, False)
false_negatives = _counter("false_negatives", True, False)


def _ratio(default_name, other):
    def metric(
        labels,
        predictions,
        weights=None,
        metrics_collections=None,
        updates_collections=None,
        name=None,
    ):
        with vs.variable_scope(name, default_name, (predictions, labels, weights)):
            predictions, labels, weights = _remove_squeezable_dimensions(
                predictions=array_ops.cast(predictions, dtype=dtypes.bool),
                labels=array_ops.cast(labels, dtype=dtypes.bool),
                weights=weights,
            )
            true_p, tp_update = true_positives(labels, predictions, weights)
            other_v, other_update = other(labels, predictions, weights)

            def compute(tp, o, name):
                return array_ops.where(
                    math_ops.greater(tp + o, 0), math_ops.divide(tp, tp + o), 0.0, name
                )

            value = compute(true_p, other_v, "value")
            _add(metrics_collections, value)
            update_op = compute(tp_update, other_update, "update_op")
            _add(updates_collections, update_op)
            return value, update_op

    metric.__name__ = metric.__qualname__ = default_name
    other_name = other.__name__.replace("_", " ")
    metric.__doc__ = (
        f"The streamed {default_name}, `true_positives / (true_positives + {other.__name__})`"
        f" (0 while both are 0), from the {other_name} and true positives counters."
    )
    return metric


precision = _ratio("precision", false_positives)
recall = _ratio("recall", false_negatives)
