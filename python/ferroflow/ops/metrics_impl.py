"""`tf.metrics`: TF-1.x's streaming metrics (`metrics_impl.py`), built from graph ops.

Each metric opens TF's variable scope, makes its accumulators with `metric_variable`
(non-trainable, zero-initialised, in `LOCAL_VARIABLES` and `METRIC_VARIABLES`) and
returns `(value, update_op)`: `value` reads the accumulators, `update_op` adds one
batch to them and gives the value after the update.
"""

from __future__ import annotations

from .._compat import zip_strict
from ..framework import constant_op, dtypes, ops, sparse_tensor, tensor_util
from ..platform import tf_logging as logging
from . import (
    array_ops,
    check_ops,
    control_flow_ops,
    indexing_ops,
    logging_ops,
    math_ops,
    nn_ops,
    sparse_ops,
    state_ops,
    variables,
)
from . import confusion_matrix as confusion_matrix_ops
from . import variable_scope as vs
from .losses_impl import _assert_broadcastable, _broadcast_weights


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
    """TF's `_remove_squeezable_dimensions` of `metrics_impl`.

    Squeezes the last dimension of `predictions` or `labels` when their ranks differ by
    one and it is 1, and squeezes or expands the last dimension of non-scalar `weights`
    to `predictions`' rank; with unknown ranks a `tf.cond` decides when run, as TF's.
    """
    predictions = ops.convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = confusion_matrix_ops.remove_squeezable_dimensions(labels, predictions)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if weights is None:
        return predictions, labels, None
    weights = ops.convert_to_tensor(weights)
    weights_shape = weights.get_shape()
    weights_rank = weights_shape.ndims
    if weights_rank == 0:
        return predictions, labels, weights
    predictions_rank = predictions.get_shape().ndims
    if predictions_rank is not None and weights_rank is not None:
        if weights_rank - predictions_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
        elif predictions_rank - weights_rank == 1:
            weights = array_ops.expand_dims(weights, [-1])
        return predictions, labels, weights

    weights_rank_tensor = array_ops.rank(weights)
    rank_diff = weights_rank_tensor - array_ops.rank(predictions)

    def _maybe_expand_weights():
        return control_flow_ops.cond(
            math_ops.equal(rank_diff, -1),
            lambda: array_ops.expand_dims(weights, [-1]),
            lambda: weights,
        )

    # No squeeze where the static last dimension says it would fail (TF's check).
    if weights_rank is not None and not weights_shape.dims[-1].is_compatible_with(1):

        def maybe_squeeze_weights():
            return weights

    else:

        def maybe_squeeze_weights():
            return array_ops.squeeze(weights, [-1])

    def _maybe_adjust_weights():
        return control_flow_ops.cond(
            math_ops.equal(rank_diff, 1), maybe_squeeze_weights, _maybe_expand_weights
        )

    weights = control_flow_ops.cond(
        math_ops.equal(weights_rank_tensor, 0), lambda: weights, _maybe_adjust_weights
    )
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


def _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None, includes=None):
    """TF's per-threshold confusion counts: variables and update ops, keyed by kind.

    For each of `includes` (from `"tp"`, `"fn"`, `"tn"`, `"fp"`; all four by default) a
    `[len(thresholds)]` metric variable (`true_positives`, `false_negatives`,
    `true_negatives`, `false_positives`) counts the (weighted) elements whose prediction
    is above (positive) or at most (negative) each threshold. `predictions` are checked
    to lie in `[0, 1]` (statically when constant, else when the update runs).

    Returns:
        `(values, update_ops)`: two dicts keyed by `includes`.

    Raises:
        ValueError: An invalid key in `includes`, or mismatched shapes.
    """
    all_includes = ("tp", "fn", "tn", "fp")
    if includes is None:
        includes = all_includes
    else:
        for include in includes:
            if include not in all_includes:
                raise ValueError(f"Invalid key: {include}")
    predictions = ops.convert_to_tensor(predictions)
    with ops.control_dependencies(
        [
            check_ops.assert_greater_equal(
                predictions,
                array_ops.cast(0.0, dtype=predictions.dtype),
                message="predictions must be in [0, 1]",
            ),
            check_ops.assert_less_equal(
                predictions,
                array_ops.cast(1.0, dtype=predictions.dtype),
                message="predictions must be in [0, 1]",
            ),
        ]
    ):
        predictions, labels, weights = _remove_squeezable_dimensions(
            predictions=array_ops.cast(predictions, dtypes.float32),
            labels=array_ops.cast(labels, dtype=dtypes.bool),
            weights=weights,
        )
    num_thresholds = len(thresholds)
    predictions_2d = array_ops.reshape(predictions, [-1, 1])
    labels_2d = array_ops.reshape(array_ops.cast(labels, dtype=dtypes.bool), [1, -1])
    num_predictions = predictions_2d.get_shape().as_list()[0]
    if num_predictions is None:
        num_predictions = array_ops.shape(predictions_2d)[0]
    thresh_tiled = indexing_ops.tile(
        array_ops.expand_dims(constant_op.constant(thresholds), [1]),
        array_ops.stack([1, num_predictions]),
    )
    pred_is_pos = math_ops.greater(
        indexing_ops.tile(array_ops.transpose(predictions_2d), [num_thresholds, 1]), thresh_tiled
    )
    if ("fn" in includes) or ("tn" in includes):
        pred_is_neg = math_ops.logical_not(pred_is_pos)
    label_is_pos = indexing_ops.tile(labels_2d, [num_thresholds, 1])
    if ("fp" in includes) or ("tn" in includes):
        label_is_neg = math_ops.logical_not(label_is_pos)
    if weights is not None:
        weights = _broadcast_weights(array_ops.cast(weights, dtypes.float32), predictions)
        weights_tiled = indexing_ops.tile(array_ops.reshape(weights, [1, -1]), [num_thresholds, 1])
        thresh_tiled.get_shape().assert_is_compatible_with(weights_tiled.get_shape())
    else:
        weights_tiled = None

    values = {}
    update_ops = {}
    kinds = (
        ("tp", "true_positives", lambda: (label_is_pos, pred_is_pos)),
        ("fn", "false_negatives", lambda: (label_is_pos, pred_is_neg)),
        ("tn", "true_negatives", lambda: (label_is_neg, pred_is_neg)),
        ("fp", "false_positives", lambda: (label_is_neg, pred_is_pos)),
    )
    for key, var_name, operands in kinds:
        if key not in includes:
            continue
        var = metric_variable([num_thresholds], dtypes.float32, name=var_name)
        is_kind = array_ops.cast(math_ops.logical_and(*operands()), dtypes.float32)
        if weights_tiled is not None:
            is_kind *= weights_tiled
        update_ops[key] = state_ops.assign_add(var, math_ops.reduce_sum(is_kind, 1))
        values[key] = var
    return values, update_ops


def auc(
    labels,
    predictions,
    weights=None,
    num_thresholds=200,
    metrics_collections=None,
    updates_collections=None,
    curve="ROC",
    name=None,
    summation_method="trapezoidal",
    thresholds=None,
):
    """The area under the ROC or precision-recall curve, by a Riemann sum over thresholds.

    Four `[num_thresholds]` variables (`true_positives`, `false_negatives`,
    `true_negatives`, `false_positives`) count the predictions above each threshold:
    `num_thresholds - 2` evenly spaced in `(0, 1)` (or the sorted `thresholds`), plus
    `-1e-7` and `1 + 1e-7`. The curve's points (false positive rate and recall for
    `"ROC"`, recall and precision for `"PR"`) are summed by `summation_method`:
    `"trapezoidal"`, `"careful_interpolation"` (interpolating the counts, Davis &
    Goadrich 2006, for `"PR"`), `"minoring"` or `"majoring"`.

    Args:
        labels: A tensor of `predictions`' shape, cast to bool.
        predictions: Floating point predictions in `[0, 1]`.
        weights: Optional weights of rank 0 or `labels`' rank, broadcastable to it.
        num_thresholds: The number of thresholds (ignored with `thresholds`).
        metrics_collections: Collections to add the value to.
        updates_collections: Collections to add the update op to.
        curve: `"ROC"` or `"PR"`.
        name: The variable scope (default `auc`).
        summation_method: How the areas are summed (see above).
        thresholds: Optional thresholds in `[0, 1]`.

    Returns:
        `(auc, update_op)`.

    Raises:
        ValueError: An unknown `curve` or `summation_method`, or mismatched shapes.
    """
    with vs.variable_scope(name, "auc", (labels, predictions, weights)):
        if curve != "ROC" and curve != "PR":
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        kepsilon = 1e-7
        if thresholds is not None:
            thresholds = sorted(thresholds)
            num_thresholds = len(thresholds) + 2
        else:
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon, *thresholds, 1.0 + kepsilon]
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights
        )
        epsilon = 1.0e-6
        n = num_thresholds

        def interpolate_pr_auc(tp, fp, fn):
            dtp = tp[: n - 1] - tp[1:]
            p = tp + fp
            prec_slope = math_ops.div_no_nan(
                dtp, math_ops.maximum(p[: n - 1] - p[1:], 0), name="prec_slope"
            )
            intercept = tp[1:] - math_ops.multiply(prec_slope, p[1:])
            safe_p_ratio = array_ops.where(
                math_ops.logical_and(p[: n - 1] > 0, p[1:] > 0),
                math_ops.div_no_nan(
                    p[: n - 1], math_ops.maximum(p[1:], 0), name="recall_relative_ratio"
                ),
                array_ops.ones_like(p[1:]),
            )
            return math_ops.reduce_sum(
                math_ops.div_no_nan(
                    prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
                    math_ops.maximum(tp[1:] + fn[1:], 0),
                    name="pr_auc_increment",
                ),
                name="interpolate_pr_auc",
            )

        def compute_auc(tp, fn, tn, fp, name):
            if curve == "PR":
                if summation_method == "trapezoidal":
                    logging.warning(
                        "Trapezoidal rule is known to produce incorrect PR-AUCs; "
                        'please switch to "careful_interpolation" instead.'
                    )
                elif summation_method == "careful_interpolation":
                    return interpolate_pr_auc(tp, fp, fn)
            rec = math_ops.divide(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x = math_ops.divide(fp, fp + tn + epsilon)
                y = rec
            else:
                x = rec
                y = math_ops.divide(tp + epsilon, tp + fp + epsilon)
            if summation_method in ("trapezoidal", "careful_interpolation"):
                heights = (y[: n - 1] + y[1:]) / 2.0
            elif summation_method == "minoring":
                heights = math_ops.minimum(y[: n - 1], y[1:])
            elif summation_method == "majoring":
                heights = math_ops.maximum(y[: n - 1], y[1:])
            else:
                raise ValueError(
                    f"Invalid summation_method: {summation_method} summation_method should "
                    "be 'trapezoidal', 'careful_interpolation', 'minoring', or 'majoring'."
                )
            return math_ops.reduce_sum(math_ops.multiply(x[: n - 1] - x[1:], heights), name=name)

        auc_value = compute_auc(values["tp"], values["fn"], values["tn"], values["fp"], "value")
        _add(metrics_collections, auc_value)
        update_op = compute_auc(
            update_ops["tp"], update_ops["fn"], update_ops["tn"], update_ops["fp"], "update_op"
        )
        _add(updates_collections, update_op)
        return auc_value, update_op


def _counter_at_thresholds(default_name, key):
    def metric(
        labels,
        predictions,
        thresholds,
        weights=None,
        metrics_collections=None,
        updates_collections=None,
        name=None,
    ):
        with vs.variable_scope(name, default_name, (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights=weights, includes=(key,)
            )
            value = _read(values[key], metrics_collections)
            _add(updates_collections, update_ops[key])
            return value, update_ops[key]

    metric.__name__ = metric.__qualname__ = f"{default_name}_at_thresholds"
    metric.__doc__ = (
        f"The (weighted) {default_name.replace('_', ' ')} at each of `thresholds`.\n\n"
        "A prediction (in `[0, 1]`) is positive above a threshold and negative at or\n"
        "below it; `labels` are cast to bool. The counts stream into the\n"
        f"`[len(thresholds)]` variable `{default_name}/{default_name}`.\n\n"
        "Returns:\n    `(value, update_op)`, both of shape `[len(thresholds)]`.\n"
    )
    return metric


true_positives_at_thresholds = _counter_at_thresholds("true_positives", "tp")
false_positives_at_thresholds = _counter_at_thresholds("false_positives", "fp")
true_negatives_at_thresholds = _counter_at_thresholds("true_negatives", "tn")
false_negatives_at_thresholds = _counter_at_thresholds("false_negatives", "fn")


def _ratio_at_thresholds(default_name, other):
    prefix = default_name.split("_at_")[0]

    def metric(
        labels,
        predictions,
        thresholds,
        weights=None,
        metrics_collections=None,
        updates_collections=None,
        name=None,
    ):
        with vs.variable_scope(name, default_name, (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights, includes=("tp", other)
            )
            epsilon = 1e-7

            def compute(tp, o, name):
                return math_ops.divide(tp, epsilon + tp + o, name=f"{prefix}_{name}")

            value = compute(values["tp"], values[other], "value")
            _add(metrics_collections, value)
            update_op = compute(update_ops["tp"], update_ops[other], "update_op")
            _add(updates_collections, update_op)
            return value, update_op

    metric.__name__ = metric.__qualname__ = default_name
    other_name = {"fp": "false_positives", "fn": "false_negatives"}[other]
    metric.__doc__ = (
        f"The streamed {prefix} at each of `thresholds`: `tp / (tp + {other} + 1e-7)`.\n\n"
        "A prediction (in `[0, 1]`) is positive above a threshold; `labels` are cast to\n"
        f"bool. The `true_positives` and `{other_name}` variables count per threshold.\n\n"
        "Returns:\n    `(value, update_op)`, both of shape `[len(thresholds)]`.\n"
    )
    return metric


precision_at_thresholds = _ratio_at_thresholds("precision_at_thresholds", "fp")
recall_at_thresholds = _ratio_at_thresholds("recall_at_thresholds", "fn")


def sensitivity_at_specificity(
    labels,
    predictions,
    specificity,
    weights=None,
    num_thresholds=200,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The sensitivity (recall) at the threshold whose specificity is nearest `specificity`.

    Counts `true_positives`, `false_negatives`, `true_negatives` and `false_positives`
    at `num_thresholds` thresholds (as `auc`), picks the first threshold whose
    `tn / (tn + fp)` is nearest `specificity` and gives `tp / (tp + fn)` there.

    Returns:
        `(sensitivity, update_op)`.

    Raises:
        ValueError: `specificity` outside `[0, 1]`, or mismatched shapes.
    """
    if specificity < 0 or specificity > 1:
        raise ValueError(
            "`specificity` must be in the range [0, 1]. Currently, `specificity` got "
            f"{specificity}."
        )
    with vs.variable_scope(name, "sensitivity_at_specificity", (predictions, labels, weights)):
        kepsilon = 1e-7
        thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon, *thresholds, 1.0 + kepsilon]
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights
        )

        def compute(tp, tn, fp, fn, name):
            specificities = math_ops.divide(tn, tn + fp + kepsilon)
            tf_index = math_ops.argmin(math_ops.abs(specificities - specificity), 0)
            tf_index = array_ops.cast(tf_index, dtypes.int32)
            return math_ops.divide(tp[tf_index], tp[tf_index] + fn[tf_index] + kepsilon, name)

        sensitivity = compute(values["tp"], values["tn"], values["fp"], values["fn"], "value")
        _add(metrics_collections, sensitivity)
        update_op = compute(
            update_ops["tp"], update_ops["tn"], update_ops["fp"], update_ops["fn"], "update_op"
        )
        _add(updates_collections, update_op)
        return sensitivity, update_op


def specificity_at_sensitivity(
    labels,
    predictions,
    sensitivity,
    weights=None,
    num_thresholds=200,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The specificity at the threshold whose sensitivity is nearest `sensitivity`.

    Counts `true_positives`, `false_negatives`, `true_negatives` and `false_positives`
    at `num_thresholds` thresholds (the last `1 - 1e-7`, as TF), picks the last threshold
    whose `tp / (tp + fn)` is nearest `sensitivity` and gives `tn / (tn + fp)` there.

    Returns:
        `(specificity, update_op)`.

    Raises:
        ValueError: `sensitivity` outside `[0, 1]`, or mismatched shapes.
    """
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError(
            f"`sensitivity` must be in the range [0, 1]. Currently, `sensitivity` is {sensitivity}."
        )
    with vs.variable_scope(name, "specificity_at_sensitivity", (predictions, labels, weights)):
        kepsilon = 1e-7
        thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon, *thresholds, 1.0 - kepsilon]
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights
        )

        def compute(tp, tn, fp, fn, name):
            sensitivities = math_ops.divide(tp, tp + fn + kepsilon)
            min_val = math_ops.reduce_min(math_ops.abs(sensitivities - sensitivity))
            indices_at_minval = math_ops.equal(math_ops.abs(sensitivities - sensitivity), min_val)
            indices_at_minval = array_ops.cast(indices_at_minval, dtypes.int64)
            indices_at_minval = math_ops.cumsum(indices_at_minval)
            tf_index = math_ops.argmax(indices_at_minval, 0)
            tf_index = array_ops.cast(tf_index, dtypes.int32)
            return math_ops.divide(tn[tf_index], tn[tf_index] + fp[tf_index] + kepsilon, name)

        specificity = compute(values["tp"], values["tn"], values["fp"], values["fn"], "value")
        _add(metrics_collections, specificity)
        update_op = compute(
            update_ops["tp"], update_ops["tn"], update_ops["fp"], update_ops["fn"], "update_op"
        )
        _add(updates_collections, update_op)
        return specificity, update_op


def _streaming_confusion_matrix(labels, predictions, num_classes, weights=None):
    """A `[num_classes, num_classes]` float64 `total_confusion_matrix` and its update op."""
    total_cm = metric_variable(
        [num_classes, num_classes], dtypes.float64, name="total_confusion_matrix"
    )
    predictions = array_ops.cast(predictions, dtypes.int64)
    labels = array_ops.cast(labels, dtypes.int64)
    num_classes = array_ops.cast(num_classes, dtypes.int64)
    if predictions.get_shape().ndims > 1:
        predictions = array_ops.reshape(predictions, [-1])
    if labels.get_shape().ndims > 1:
        labels = array_ops.reshape(labels, [-1])
    if (weights is not None) and (weights.get_shape().ndims > 1):
        weights = array_ops.reshape(weights, [-1])
    current_cm = confusion_matrix_ops.confusion_matrix(
        labels, predictions, num_classes, weights=weights, dtype=dtypes.float64
    )
    update_op = state_ops.assign_add(total_cm, current_cm)
    return total_cm, update_op


def _diag_part(matrix):
    """The diagonal of a square matrix of static size (TF's `DiagPart`, by a gather)."""
    n = matrix.get_shape().dims[0].value
    return array_ops.gather(array_ops.reshape(matrix, [-1]), list(range(0, n * n, n + 1)))


def mean_iou(
    labels,
    predictions,
    num_classes,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The mean intersection-over-union of the classes, from a streamed confusion matrix.

    Each class's IOU is `true_positive / (true_positive + false_positive +
    false_negative)`, read off the float64 `total_confusion_matrix` variable; the mean
    is over the classes that occur in labels or predictions (0 if none).

    Args:
        labels: Class ids (int32 or int64), flattened when of rank > 1.
        predictions: Predicted class ids of `labels`' shape.
        num_classes: The number of classes (a Python int).
        weights: Optional per-element weights of `labels`' shape (or rank 0).
        metrics_collections: Collections to add the value to.
        updates_collections: Collections to add the update op to.
        name: The variable scope (default `mean_iou`).

    Returns:
        `(mean_iou, update_op)`; `update_op` gives the updated confusion matrix.

    Raises:
        ValueError: `predictions` and `labels` of incompatible shapes.

    Departure: `DiagPart` is a `Gather` of the flattened matrix.
    """
    with vs.variable_scope(name, "mean_iou", (predictions, labels, weights)):
        labels = ops.convert_to_tensor(labels)
        predictions = ops.convert_to_tensor(predictions)
        if weights is not None:
            weights = ops.convert_to_tensor(weights)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        total_cm, update_op = _streaming_confusion_matrix(labels, predictions, num_classes, weights)
        sum_over_row = array_ops.cast(math_ops.reduce_sum(total_cm, 0), dtypes.float32)
        sum_over_col = array_ops.cast(math_ops.reduce_sum(total_cm, 1), dtypes.float32)
        cm_diag = array_ops.cast(_diag_part(total_cm), dtypes.float32)
        denominator = sum_over_row + sum_over_col - cm_diag
        num_valid_entries = math_ops.reduce_sum(
            array_ops.cast(math_ops.not_equal(denominator, 0), dtype=dtypes.float32)
        )
        denominator = array_ops.where(
            math_ops.greater(denominator, 0), denominator, array_ops.ones_like(denominator)
        )
        iou = math_ops.divide(cm_diag, denominator)
        mean_iou_v = array_ops.where(
            math_ops.greater(num_valid_entries, 0),
            math_ops.reduce_sum(iou, name="mean_iou") / num_valid_entries,
            0.0,
        )
        _add(metrics_collections, mean_iou_v)
        _add(updates_collections, update_op)
        return mean_iou_v, update_op


def mean_per_class_accuracy(
    labels,
    predictions,
    num_classes,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The mean over classes of each class's accuracy (correct / seen, per label class).

    Two `[num_classes]` variables, `total` (the weight of each label class) and `count`
    (the weight of its correct predictions), are updated with `ScatterAdd`.

    Args:
        labels: Class ids, flattened when of rank > 1.
        predictions: Predicted class ids of `labels`' shape.
        num_classes: The number of classes.
        weights: Optional per-element weights of `labels`' shape.
        metrics_collections: Collections to add the value to.
        updates_collections: Collections to add the update op to.
        name: The variable scope (default `mean_accuracy`).

    Returns:
        `(mean_accuracy, update_op)`; `update_op` gives the per-class accuracies.

    Raises:
        ValueError: `predictions` and `labels` of incompatible shapes.
    """
    with vs.variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        labels = array_ops.cast(labels, dtypes.int64)
        predictions = ops.convert_to_tensor(predictions)
        if labels.get_shape().ndims > 1:
            labels = array_ops.reshape(labels, [-1])
        if predictions.get_shape().ndims > 1:
            predictions = array_ops.reshape(predictions, [-1])
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = array_ops.ones(array_ops.stack([array_ops.size(labels)]), dtypes.float32)
        if labels.dtype != predictions.dtype:
            predictions = array_ops.cast(predictions, labels.dtype)
        is_correct = array_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            weights = ops.convert_to_tensor(weights)
            if weights.get_shape().ndims > 1:
                weights = array_ops.reshape(weights, [-1])
            weights = array_ops.cast(weights, dtypes.float32)
            is_correct *= weights
            ones *= weights
        update_total_op = state_ops.scatter_add(total, labels, ones)
        update_count_op = state_ops.scatter_add(count, labels, is_correct)
        per_class_accuracy = math_ops.div_no_nan(count, math_ops.maximum(total, 0))
        mean_accuracy_v = math_ops.reduce_mean(per_class_accuracy, name="mean_accuracy")
        _add(metrics_collections, mean_accuracy_v)
        update_op = math_ops.div_no_nan(
            update_count_op, math_ops.maximum(update_total_op, 0), name="update_op"
        )
        _add(updates_collections, update_op)
        return mean_accuracy_v, update_op


def mean_relative_error(
    labels,
    predictions,
    normalizer,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The (weighted) `mean` of `|labels - predictions| / normalizer` (0 where it is 0).

    Returns:
        `(mean_relative_error, update_op)`.

    Raises:
        ValueError: `predictions`, `labels` and `normalizer` of incompatible shapes.
    """
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    predictions, normalizer = confusion_matrix_ops.remove_squeezable_dimensions(
        predictions, normalizer
    )
    predictions.get_shape().assert_is_compatible_with(normalizer.get_shape())
    relative_errors = array_ops.where(
        math_ops.equal(normalizer, 0.0),
        array_ops.zeros_like(labels),
        math_ops.divide(math_ops.abs(labels - predictions), normalizer),
    )
    return mean(
        relative_errors,
        weights,
        metrics_collections,
        updates_collections,
        name or "mean_relative_error",
    )


def mean_cosine_distance(
    labels,
    predictions,
    dim,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """One minus the (weighted) `mean` of `sum(labels * predictions, dim)`.

    `labels` and `predictions` should be unit vectors along `dim`; the products are
    summed along it (kept as a dimension of 1) and streamed through `mean`.

    Returns:
        `(mean_distance, update_op)`.

    Raises:
        ValueError: `predictions` and `labels` of incompatible shapes.
    """
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    radial_diffs = math_ops.multiply(predictions, labels)
    radial_diffs = math_ops.reduce_sum(radial_diffs, axis=[dim], keepdims=True)
    mean_distance, update_op = mean(
        radial_diffs, weights, None, None, name or "mean_cosine_distance"
    )
    mean_distance = math_ops.subtract(1.0, mean_distance)
    update_op = math_ops.subtract(1.0, update_op)
    _add(metrics_collections, mean_distance)
    _add(updates_collections, update_op)
    return mean_distance, update_op


def mean_tensor(
    values, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """The element-wise (weighted) mean of `values` over the batches streamed.

    `total_tensor` and `count_tensor` variables of `values`' (fully defined) shape
    accumulate `values * weights` and `weights` (or ones); the value divides them
    (0 where the count is 0).

    Returns:
        `(mean, update_op)`, both of `values`' shape.
    """
    with vs.variable_scope(name, "mean", (values, weights)):
        values = array_ops.cast(values, dtypes.float32)
        total = metric_variable(values.get_shape(), dtypes.float32, name="total_tensor")
        count = metric_variable(values.get_shape(), dtypes.float32, name="count_tensor")
        num_values = array_ops.ones_like(values)
        if weights is not None:
            values, _, weights = _remove_squeezable_dimensions(
                predictions=values, labels=None, weights=weights
            )
            weights = _broadcast_weights(array_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.multiply(num_values, weights)
        update_total_op = state_ops.assign_add(total, values)
        with ops.control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        mean_t = math_ops.div_no_nan(total, math_ops.maximum(count, 0), name="value")
        _add(metrics_collections, mean_t)
        update_op = math_ops.div_no_nan(
            update_total_op, math_ops.maximum(update_count_op, 0), name="update_op"
        )
        _add(updates_collections, update_op)
        return mean_t, update_op


def percentage_below(
    values,
    threshold,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The (weighted) fraction of `values` below `threshold`, streamed through `mean`.

    Returns:
        `(percentage, update_op)`.
    """
    is_below_threshold = array_ops.cast(math_ops.less(values, threshold), dtypes.float32)
    return mean(
        is_below_threshold,
        weights,
        metrics_collections,
        updates_collections,
        name or "percentage_below_threshold",
    )


# -- The *_at_k metrics ---------------------------------------------------------------
#
# TF turns the label ids into sets (`sets.set_intersection`, `set_size`, `set_difference`
# of the last dimension); ferroflow's core has no set ops (`DenseToDenseSetOperation`,
# `DenseToSparseSetOperation`, `SetSize`), so the same counts come densely from pairwise
# comparisons along the last dimension: an id counts once however often it repeats in
# its row, and any value (negative, or past the classes) is an id of its own, as TF's
# set operations treat them. `SparseTensor` labels are made dense with a mask of the
# entries they hold (`SparseToDense`, which validates the indices as the set ops do), so
# a row's set is its stored values only, as in TF.

# TF's set operations also take int8, int16 and uint16, which ferroflow does not have.
_SET_DTYPES = (dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.string)


def _is_sparse(labels) -> bool:
    """Whether `labels` is a `tf.SparseTensor` or `tf.SparseTensorValue`."""
    return sparse_tensor.is_sparse(labels)


def _reject_sparse(labels):
    """Raises `TypeError` for labels that look sparse but are no `tf.SparseTensor`.

    `tf.SparseTensor` and `tf.SparseTensorValue` labels are supported; another object
    with `indices`, `values` and `dense_shape` would otherwise be read as a dense list.
    """
    if isinstance(labels, ops.Tensor) or _is_sparse(labels):
        return
    if all(hasattr(labels, a) for a in ("indices", "values", "dense_shape")):
        raise TypeError(
            "Sparse labels must be a tf.SparseTensor or tf.SparseTensorValue (got "
            f"{type(labels).__name__}); dense labels are int64 ids of shape [D1, ... DN] "
            "or [D1, ... DN, num_labels]."
        )


def _sparse_labels(labels):
    """`labels` as a `SparseTensor` (from a `SparseTensorValue` too)."""
    return sparse_tensor.convert_to_tensor_or_sparse_tensor(labels)


def _densify(labels):
    """`(values, mask)`: the dense ids of sparse `labels` and where it holds entries.

    Both are `SparseToDense` of the labels' indices (validated: sorted, unique, in
    bounds, as TF's set operations validate them); the ids elsewhere are 0 (or `""`)
    and masked out.
    """
    with ops.name_scope(None, "densify_labels", (labels,)):
        values = sparse_ops.sparse_to_dense(
            labels.indices,
            labels.dense_shape,
            labels.values,
            default_value=array_ops.zeros([], labels.dtype),
        )
        mask = sparse_ops.sparse_to_dense(
            labels.indices,
            labels.dense_shape,
            constant_op.constant(True),
            default_value=constant_op.constant(False),
        )
        return values, mask


def _check_sparse_set_operands(a, labels, min_rank=2):
    """The checks of TF's `DenseToSparseSetOperation` on dense `a` and sparse `labels`.

    The same dtype (`TypeError`), `a` of rank `min_rank` or more (`ValueError`, TF's
    shape function: 2, less one where TF first adds a dimension to `a`), and equal
    dimensions but the last. TF's kernel checks those when run (the `cond` of its label
    expansion hides the static shapes); here a mismatch that the static shapes show is
    a `ValueError` when built, any other an `Assert` when run.
    """
    if a.dtype.base_dtype not in _SET_DTYPES:
        raise TypeError(
            f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: `{_SET_DTYPES}`."
        )
    if labels.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {labels.dtype}.")
    rank = a.get_shape().ndims
    if rank is not None and rank < min_rank:
        raise ValueError(
            f"Shape must be at least rank 2 but is rank {rank + 2 - min_rank} for "
            f"'{ops.get_default_graph().unique_name('DenseToSparseSetOperation', False)}' "
            "(op: 'DenseToSparseSetOperation')"
        )
    a_shape, b_shape = a.get_shape(), labels.get_shape()
    if a_shape.ndims is not None and b_shape.ndims is not None:
        a_dims, b_dims = a_shape.as_list()[:-1], b_shape.as_list()[:-1]
        mismatch = len(a_dims) != len(b_dims) or any(
            x is not None and y is not None and x != y for x, y in zip_strict(a_dims, b_dims)
        )
        if mismatch:
            raise ValueError(
                f"Shape mismatch: the set operands of shapes {a_shape} and {b_shape} "
                "(sparse) differ but in their last dimension; TensorFlow fails when run."
            )
    a_lead = array_ops.shape(a, out_type=dtypes.int64)[:-1]
    b_lead = labels.dense_shape[:-1]
    same_rank = math_ops.equal(array_ops.size(a_lead), array_ops.size(b_lead))
    same_dims = math_ops.reduce_all(math_ops.equal(a_lead, b_lead))
    return logging_ops.Assert(
        math_ops.logical_and(same_rank, same_dims),
        [
            "Shape mismatch: the set operands differ but in their last dimension: ",
            a_lead,
            b_lead,
        ],
    )


def _at_k_name(name, k=None, class_id=None):
    """TF's default scope names: `<name>_at_<k>` (or `_at_k`), then `_class<class_id>`."""
    if k is not None:
        name = f"{name}_at_{int(k)}"
    else:
        name = f"{name}_at_k"
    if class_id is not None:
        name = f"{name}_class{int(class_id)}"
    return name


def _maybe_expand_labels(labels, predictions):
    """`labels` with a last dimension of 1 added when its rank is `predictions`' less one.

    Raises:
        TypeError: `labels` is a `SparseTensor`.
        ValueError: The ranks differ otherwise.
        NotImplementedError: A rank is unknown (TF decides with a `cond` at run time).
    """
    _reject_sparse(labels)
    with ops.name_scope(None, "expand_labels", (labels, predictions)) as scope:
        if _is_sparse(labels):
            return _maybe_expand_sparse_labels(_sparse_labels(labels), predictions, scope)
        labels = ops.convert_to_tensor(labels)
        labels_rank = labels.get_shape().ndims
        predictions_rank = predictions.get_shape().ndims
        if labels_rank is None or predictions_rank is None:
            raise NotImplementedError("tf.metrics' *_at_k metrics need labels of known rank")
        if predictions_rank == labels_rank:
            return labels
        if predictions_rank == labels_rank + 1:
            return array_ops.expand_dims(labels, -1, name=scope)
        raise ValueError(
            f"Unexpected labels shape {labels.get_shape()} for predictions "
            f"shape {predictions.get_shape()}. Predictions rank should be the "
            "same rank as labels rank or labels rank plus one ."
        )


def _maybe_expand_sparse_labels(labels, predictions, scope):
    """Sparse `labels` reshaped to `dense_shape + [1]` when one rank below `predictions`.

    TF decides with a `cond` when run; ferroflow decides from the static ranks.

    Raises:
        NotImplementedError: A rank is unknown.
    """
    labels_rank = labels.dense_shape.get_shape().dims
    labels_rank = labels_rank[0].value if labels_rank else None
    predictions_rank = predictions.get_shape().ndims
    if labels_rank is None or predictions_rank is None:
        raise NotImplementedError("tf.metrics' *_at_k metrics need labels of known rank")
    if predictions_rank != labels_rank + 1:
        return labels
    return sparse_ops.sparse_reshape(
        labels,
        shape=array_ops.concat((labels.dense_shape, constant_op.constant([1], dtypes.int64)), 0),
        name=scope,
    )


def _set_dims(dims):
    """Dimensions as TF's shape functions print them: `[2,?,3]`, or `?`."""
    if dims is None:
        return "?"
    return "[" + ",".join("?" if d.value is None else str(d.value) for d in dims) + "]"


def _check_set_operands(a, b, a_shape=None, b_shape=None):
    """The build-time checks of TF's `DenseToDenseSetOperation` on `a` and `b`.

    Both of a set dtype and the same one (`TypeError`), of rank 2 or more, with equal
    dimensions but the last (`ValueError`, as TF's shape function). `a_shape` and
    `b_shape` stand for the operands' shapes where TF tiles them first. Returns an
    `Assert` of the leading dimensions when they are not all known, else `None`.
    """
    if a.dtype.base_dtype not in _SET_DTYPES:
        raise TypeError(
            f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: `{_SET_DTYPES}`."
        )
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    a_shape = a.get_shape() if a_shape is None else a_shape
    b_shape = b.get_shape() if b_shape is None else b_shape
    where = (
        f" for '{ops.get_default_graph().unique_name('DenseToDenseSetOperation', False)}'"
        f" (op: 'DenseToDenseSetOperation') with input shapes: {_set_dims(a_shape.dims)}, "
        f"{_set_dims(b_shape.dims)}."
    )
    for shape in (a_shape, b_shape):
        if shape.ndims is not None and shape.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {shape.ndims}{where}")
    if a_shape.ndims is None or b_shape.ndims is None:
        raise NotImplementedError("tf.metrics' *_at_k metrics need labels of known rank")
    a_lead, b_lead = a_shape.dims[:-1], b_shape.dims[:-1]
    if len(a_lead) != len(b_lead):
        raise ValueError(
            f"Shapes must be equal rank, but are {len(a_lead)} and {len(b_lead)}{where}"
        )
    for i, (x, y) in enumerate(zip_strict(a_lead, b_lead)):
        if x.value is not None and y.value is not None and x.value != y.value:
            raise ValueError(
                f"Dimension {i} in both shapes must be equal, but are {x.value} and "
                f"{y.value}. Shapes are {_set_dims(a_lead)} and {_set_dims(b_lead)}.{where}"
            )
    if all(d.value is not None for d in (*a_lead, *b_lead)):
        return None
    return check_ops.assert_equal(
        array_ops.shape(a)[:-1],
        array_ops.shape(b)[:-1],
        message="Shape mismatch: the set operands differ but in their last dimension",
    )


def _first_of_value(x, mask=None):
    """Whether each element of `x`'s last dimension is the first of its value there.

    With a `mask` only the elements it holds count (and only they can be first).
    """
    n = x.get_shape().dims[-1].value if x.get_shape().ndims is not None else None
    if n is None:
        n = array_ops.shape(x)[-1]
    positions = math_ops.range(n)
    # earlier[i, j]: position j comes before position i.
    earlier = math_ops.less(
        array_ops.expand_dims(positions, 0), array_ops.expand_dims(positions, 1)
    )
    same = math_ops.equal(array_ops.expand_dims(x, -1), array_ops.expand_dims(x, -2))
    if mask is not None:
        same = math_ops.logical_and(same, array_ops.expand_dims(mask, -2))
    first = math_ops.logical_not(math_ops.reduce_any(math_ops.logical_and(same, earlier), -1))
    return first if mask is None else math_ops.logical_and(first, mask)


def _is_in(a, b, b_mask=None):
    """Whether each element of `a`'s last dimension occurs in the same row of `b`.

    With `b_mask` only the elements of `b` that it holds count.
    """
    same = math_ops.equal(array_ops.expand_dims(a, -1), array_ops.expand_dims(b, -2))
    if b_mask is not None:
        same = math_ops.logical_and(same, array_ops.expand_dims(b_mask, -2))
    return math_ops.reduce_any(same, -1)


def _set_sizes(a, b, selected_id, sizes, b_mask=None):
    """Per row, float64 sizes of the sets of ids along the last dimensions of `a`, `b`.

    `sizes` picks from `"ab"` (their intersection), `"a"` and `"b"`. With `selected_id`
    the sets are first intersected with `{selected_id}` (TF's `_select_class_id`). With
    `b_mask` (sparse labels made dense) `b`'s sets hold only the elements it marks.
    """

    def count(mask, axis=-1):
        return array_ops.cast(
            math_ops.reduce_sum(array_ops.cast(mask, dtypes.int32), axis), dtypes.float64
        )

    if selected_id is not None:
        a_has = math_ops.reduce_any(math_ops.equal(a, array_ops.cast(selected_id, a.dtype)), -1)
        b_is = math_ops.equal(b, array_ops.cast(selected_id, b.dtype))
        if b_mask is not None:
            b_is = math_ops.logical_and(b_is, b_mask)
        b_has = math_ops.reduce_any(b_is, -1)
        masks = {"ab": lambda: math_ops.logical_and(a_has, b_has), "a": lambda: a_has}
        masks["b"] = lambda: b_has
        return [array_ops.cast(masks[s](), dtypes.float64) for s in sizes]
    first_a = _first_of_value(a)
    out = []
    for s in sizes:
        if s == "ab":
            out.append(count(math_ops.logical_and(first_a, _is_in(a, b, b_mask))))
        elif s == "a":
            out.append(count(first_a))
        else:
            out.append(count(_first_of_value(b, b_mask)))
    return out


def _weighted_count(count, weights):
    """`count` times `weights` (float64), once they are known to broadcast to it."""
    if weights is None:
        return count
    with ops.control_dependencies((_assert_broadcastable(weights, count),)):
        weights = array_ops.cast(weights, dtypes.float64)
        return math_ops.multiply(count, weights)


def _set_count_at_k(scope_name, labels, predictions_idx, class_id, weights, kind):
    """True positives (`kind="tp"`), false negatives (`"fn"`) or false positives (`"fp"`).

    Per row of `predictions_idx` (`[D1, ... DN, k]`) and `labels` (`[D1, ... DN,
    num_labels]`), from the sets of their last dimensions (`P` and `L`, both filtered
    to `{class_id}` when given): `|P & L|`, `|L - P|` or `|P - L|`, float64 and times
    `weights`.
    """
    with ops.name_scope(None, scope_name, (predictions_idx, labels, weights)):
        predictions_idx = ops.convert_to_tensor(predictions_idx)
        labels_mask = None
        if _is_sparse(labels):
            labels = _sparse_labels(labels)
            check = _check_sparse_set_operands(predictions_idx, labels)
            if class_id is not None:
                # TF's `_select_class_id`: only the entries of the class are validated.
                labels = sparse_ops.sparse_retain(labels, math_ops.equal(labels.values, class_id))
            labels, labels_mask = _densify(labels)
        else:
            labels = ops.convert_to_tensor(labels)
            check = _check_set_operands(predictions_idx, labels)
        with ops.control_dependencies([check] if check is not None else None):
            if kind == "tp":
                (count,) = _set_sizes(predictions_idx, labels, class_id, ["ab"], labels_mask)
            else:
                inter, size = _set_sizes(
                    predictions_idx,
                    labels,
                    class_id,
                    ["ab", "b" if kind == "fn" else "a"],
                    labels_mask,
                )
                count = math_ops.subtract(size, inter)
        return _weighted_count(count, weights)


def _sparse_true_positive_at_k(labels, predictions_idx, class_id=None, weights=None, name=None):
    """Per-row true positives for recall@k and precision@k: `|top_k & labels|`.

    Args:
        labels: int64 ids, `[D1, ... DN, num_labels]`.
        predictions_idx: int64 top-k ids, `[D1, ... DN, k]`.
        class_id: Count only this class.
        weights: Weights of rank 0 or N, broadcastable to `[D1, ... DN]`.
        name: Scope name (default `true_positives`).

    Returns:
        A float64 `[D1, ... DN]` tensor of counts.
    """
    scope = name or "true_positives"
    return _set_count_at_k(scope, labels, predictions_idx, class_id, weights, "tp")


def _sparse_false_negative_at_k(labels, predictions_idx, class_id=None, weights=None):
    """Per-row false negatives for recall@k: `|labels - top_k|` (float64, weighted)."""
    return _set_count_at_k("false_negatives", labels, predictions_idx, class_id, weights, "fn")


def _sparse_false_positive_at_k(labels, predictions_idx, class_id=None, weights=None):
    """Per-row false positives for precision@k: `|top_k - labels|` (float64, weighted)."""
    return _set_count_at_k("false_positives", labels, predictions_idx, class_id, weights, "fp")


def _streaming_count_at_k(
    count_fn, default_name, labels, predictions_idx, k, class_id, weights, name
):
    with ops.name_scope(
        name, _at_k_name(default_name, k, class_id=class_id), (predictions_idx, labels, weights)
    ) as scope:
        count = count_fn(
            labels=labels, predictions_idx=predictions_idx, class_id=class_id, weights=weights
        )
        batch_total = array_ops.cast(math_ops.reduce_sum(count), dtypes.float64)
        var = metric_variable([], dtypes.float64, name=scope)
        return var, state_ops.assign_add(var, batch_total, name="update")


def _streaming_sparse_true_positive_at_k(
    labels, predictions_idx, k=None, class_id=None, weights=None, name=None
):
    """A float64 `true_positive_at_<k>[_class<id>]` variable and the op adding a batch."""
    return _streaming_count_at_k(
        _sparse_true_positive_at_k,
        "true_positive",
        labels,
        predictions_idx,
        k,
        class_id,
        weights,
        name,
    )


def _streaming_sparse_false_negative_at_k(
    labels, predictions_idx, k, class_id=None, weights=None, name=None
):
    """A float64 `false_negative_at_<k>[_class<id>]` variable and the op adding a batch."""
    return _streaming_count_at_k(
        _sparse_false_negative_at_k,
        "false_negative",
        labels,
        predictions_idx,
        k,
        class_id,
        weights,
        name,
    )


def _streaming_sparse_false_positive_at_k(
    labels, predictions_idx, k=None, class_id=None, weights=None, name=None
):
    """A float64 `false_positive_at_<k>[_class<id>]` variable and the op adding a batch."""
    return _streaming_count_at_k(
        _sparse_false_positive_at_k,
        "false_positive",
        labels,
        predictions_idx,
        k,
        class_id,
        weights,
        name,
    )


def _ratio_at_top_k(
    default_name,
    other_fn,
    labels,
    predictions_idx,
    k,
    class_id,
    weights,
    metrics_collections,
    updates_collections,
    name,
):
    """`tp / (tp + other)` of the streamed counts: recall (`fn`) or precision (`fp`)."""
    _reject_sparse(labels)
    with ops.name_scope(
        name, _at_k_name(default_name, k, class_id=class_id), (predictions_idx, labels, weights)
    ) as scope:
        predictions_idx = ops.convert_to_tensor(predictions_idx)
        labels = _maybe_expand_labels(labels, predictions_idx)
        top_k_idx = array_ops.cast(predictions_idx, dtypes.int64)
        tp, tp_update = _streaming_sparse_true_positive_at_k(
            predictions_idx=top_k_idx, labels=labels, k=k, class_id=class_id, weights=weights
        )
        other, other_update = other_fn(
            predictions_idx=top_k_idx, labels=labels, k=k, class_id=class_id, weights=weights
        )
        metric = math_ops.divide(tp, math_ops.add(tp, other), name=scope)
        _add(metrics_collections, metric)
        update = math_ops.divide(tp_update, math_ops.add(tp_update, other_update), name="update")
        _add(updates_collections, update)
        return metric, update


def _at_k_doc(default, top, returns):
    """Appends the shared Args/Returns/Raises of the recall and precision at k metrics."""
    if top:
        predictions = (
            "predictions_idx: Integer `[D1, ... DN, k]` predicted class ids (cast to\n"
            "            int64); repeated ids count once."
        )
        k = "k: Only names the scope (`_at_k` when None)."
    else:
        predictions = (
            "predictions: Float scores `[D1, ... DN, num_classes]`; the `k` highest are\n"
            "            the predicted classes (`tf.nn.top_k`)."
        )
        k = "k: How many of the highest scores are predicted."
    outside = (
        "others are labels never predicted\n            (false negatives)."
        if default == "recall"
        else "others are ignored."
    )

    def decorate(fn):
        fn.__doc__ = (
            fn.__doc__.rstrip()
            + f"""

    Args:
        labels: int64 class ids, `[D1, ... DN, num_labels]` or `[D1, ... DN]` (one
            label per row), dense or a `tf.SparseTensor` (a row's set is then the
            values it holds). Each row is a set: repeated ids count once. Ids should
            be in `[0, num_classes)`; {outside}
        {predictions}
        {k}
        class_id: Optional class for binary metrics: only `class_id` is kept in both
            the labels and the top `k`.
        weights: Optional weights of rank 0 or N, broadcastable to `[D1, ... DN]`.
        metrics_collections: Collections to add the value to.
        updates_collections: Collections to add the update op to.
        name: The name scope (default `{default}_at_<k>[_class<class_id>]`).

    Returns:
        {returns}

    Raises:
        TypeError: `labels` not int64 (TF's set operations' "Types don't match"), or
            sparse-looking labels that are no `tf.SparseTensor`.
        ValueError: `labels`' rank neither `predictions`' nor one less, a rank below 2,
            leading dimensions that differ, or weights that do not broadcast (at build
            time when the static shapes tell; TF's set operations leave the counts'
            shapes unknown, so TF fails when run). Sparse labels' leading dimensions
            that differ only when run, and unsorted, repeated or out-of-bounds indices,
            fail when run (`InvalidArgumentError`), as in TF.
        NotImplementedError: `labels` of unknown rank (TF decides with a `cond`).
"""
        )
        return fn

    return decorate


@_at_k_doc("recall", True, "`(recall, update_op)`, as `recall_at_k`.")
def recall_at_top_k(
    labels,
    predictions_idx,
    k=None,
    class_id=None,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Recall@k of given top-k class ids: `recall_at_k` without the `top_k`."""
    return _ratio_at_top_k(
        "recall",
        _streaming_sparse_false_negative_at_k,
        labels,
        predictions_idx,
        k,
        class_id,
        weights,
        metrics_collections,
        updates_collections,
        name,
    )


@_at_k_doc(
    "recall",
    False,
    "`(recall, update_op)`: float64 scalars, the value named `<scope>` and the\n"
    "        update `<scope>/update`.",
)
def recall_at_k(
    labels,
    predictions,
    k,
    class_id=None,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """How often the labels of a row are among its `k` highest `predictions`.

    Two float64 local variables, `<scope>/true_positive_at_<k>` (labels in the top
    `k`) and `<scope>/false_negative_at_<k>` (labels not in it), count the (weighted)
    label ids; the value is `true_positive / (true_positive + false_negative)` (NaN
    while both are 0). With `class_id`, only that class counts: the fraction of rows
    labelled `class_id` that have it in their top `k`. The variables and ops are named
    `_class<class_id>` after the `k`.
    """
    _reject_sparse(labels)
    with ops.name_scope(
        name, _at_k_name("recall", k, class_id=class_id), (predictions, labels, weights)
    ) as scope:
        _, top_k_idx = nn_ops.top_k(predictions, k)
        return recall_at_top_k(
            labels=labels,
            predictions_idx=top_k_idx,
            k=k,
            class_id=class_id,
            weights=weights,
            metrics_collections=metrics_collections,
            updates_collections=updates_collections,
            name=scope,
        )


@_at_k_doc("precision", True, "`(precision, update_op)`, as `precision_at_k`.")
def precision_at_top_k(
    labels,
    predictions_idx,
    k=None,
    class_id=None,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Precision@k of given top-k class ids: `precision_at_k` without the `top_k`."""
    return _ratio_at_top_k(
        "precision",
        _streaming_sparse_false_positive_at_k,
        labels,
        predictions_idx,
        k,
        class_id,
        weights,
        metrics_collections,
        updates_collections,
        name,
    )


@_at_k_doc(
    "precision",
    False,
    "`(precision, update_op)`: float64 scalars, the value named `<scope>` and the\n"
    "        update `<scope>/update`.",
)
def precision_at_k(
    labels,
    predictions,
    k,
    class_id=None,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """How often the `k` highest `predictions` of a row are among its labels.

    Two float64 local variables, `<scope>/true_positive_at_<k>` (top-k classes that
    are labels) and `<scope>/false_positive_at_<k>` (top-k classes that are not), count
    the (weighted) predicted classes; the value is `true_positive / (true_positive +
    false_positive)`. With `class_id`, only that class counts: the fraction of rows
    with `class_id` in their top `k` that are labelled with it.
    """
    _reject_sparse(labels)
    with ops.name_scope(
        name, _at_k_name("precision", k, class_id=class_id), (predictions, labels, weights)
    ) as scope:
        _, top_k_idx = nn_ops.top_k(predictions, k)
        return precision_at_top_k(
            labels=labels,
            predictions_idx=top_k_idx,
            k=k,
            class_id=class_id,
            weights=weights,
            metrics_collections=metrics_collections,
            updates_collections=updates_collections,
            name=scope,
        )


_deprecation_logged: set[str] = set()


def _log_deprecated(old, new):
    if old not in _deprecation_logged:
        _deprecation_logged.add(old)
        logging.warning(
            f"{old} (from ferroflow.metrics) is deprecated and will be removed in a future "
            f"version.\nInstructions for updating:\nUse {new} instead"
        )


def sparse_precision_at_k(
    labels,
    predictions,
    k,
    class_id=None,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Renamed to `precision_at_k` (deprecated, as in TF), which it calls."""
    _log_deprecated("sparse_precision_at_k", "precision_at_k")
    return precision_at_k(
        labels=labels,
        predictions=predictions,
        k=k,
        class_id=class_id,
        weights=weights,
        metrics_collections=metrics_collections,
        updates_collections=updates_collections,
        name=name,
    )


def _num_relevant(labels, k):
    """Per row, the number of non-negative labels (repeats included), at most `k`."""
    if k < 1:
        raise ValueError(f"Invalid k={k}")
    with ops.name_scope(None, "num_relevant", (labels,)) as scope:
        _reject_sparse(labels)
        if _is_sparse(labels):
            # TF's `set_size`: the distinct ids of each row, negative ones included.
            values, mask = _densify(_sparse_labels(labels))
            sizes = math_ops.reduce_sum(
                array_ops.cast(_first_of_value(values, mask), dtypes.int32), axis=-1
            )
            return math_ops.minimum(sizes, k, name=scope)
        labels = ops.convert_to_tensor(labels)
        num_labels = math_ops.reduce_sum(
            array_ops.where(
                math_ops.greater_equal(labels, 0),
                array_ops.ones_like(labels),
                array_ops.zeros_like(labels),
            ),
            axis=-1,
        )
        return math_ops.minimum(num_labels, k, name=scope)


def _sparse_average_precision_at_top_k(labels, predictions_idx):
    """Per row, the average precision of the ranked `predictions_idx` against `labels`.

    `sum_i P_i * rel_i / min(k, num_relevant)`, where `rel_i` says whether the `i`-th
    prediction is a label, `P_i` is the precision of the first `i` predictions and
    `num_relevant` counts the non-negative labels of the row (repeats included, as
    TF's dense path). TF intersects the labels, tiled `k` times, with each prediction;
    here each prediction is compared with the row's labels.

    Returns:
        A float64 `[D1, ... DN]` tensor (NaN for a row without relevant labels).

    Raises:
        ValueError: `predictions_idx` of rank 0 or of unknown last dimension.
    """
    with ops.name_scope(None, "average_precision", (predictions_idx, labels)) as scope:
        predictions_idx = array_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if predictions_idx.get_shape().ndims == 0:
            raise ValueError("The rank of `predictions_idx` must be at least 1.")
        k = predictions_idx.get_shape().as_list()[-1]
        if k is None:
            raise ValueError(
                "The last dimension of predictions_idx must be set. Currently, it is None."
            )
        labels = _maybe_expand_labels(labels, predictions_idx)
        labels_mask = None
        if _is_sparse(labels):
            # TF intersects `predictions_idx[..., None]` with the labels tiled `k` times.
            check = _check_sparse_set_operands(predictions_idx, labels, min_rank=1)
            label_values, labels_mask = _densify(labels)
        else:
            labels_shape = labels.get_shape()
            labels_per_k_shape = None
            if labels_shape.ndims is not None:
                labels_per_k_shape = (
                    labels_shape[:-1].concatenate([k]).concatenate(labels_shape[-1:])
                )
            check = _check_set_operands(
                predictions_idx,
                labels,
                a_shape=predictions_idx.get_shape().concatenate([1]),
                b_shape=labels_per_k_shape,
            )
            label_values = labels
        with ops.control_dependencies([check] if check is not None else None):
            with ops.name_scope(None, "relevant_per_k"):
                relevant_per_k = array_ops.cast(
                    _is_in(predictions_idx, label_values, labels_mask), dtypes.float64
                )
        tp_per_k = math_ops.cumsum(relevant_per_k, axis=-1, name="tp_per_k")
        retrieved_per_k = math_ops.cumsum(
            array_ops.ones_like(relevant_per_k), axis=-1, name="retrieved_per_k"
        )
        precision_per_k = math_ops.divide(tp_per_k, retrieved_per_k, name="precision_per_k")
        relevant_precision_per_k = math_ops.multiply(
            precision_per_k, relevant_per_k, name="relevant_precision_per_k"
        )
        precision_sum = math_ops.reduce_sum(
            relevant_precision_per_k, axis=(-1,), name="precision_sum"
        )
        num_relevant_items = array_ops.cast(_num_relevant(labels, k), dtypes.float64)
        return math_ops.divide(precision_sum, num_relevant_items, name=scope)


def _streaming_sparse_average_precision_at_top_k(
    labels,
    predictions_idx,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The mean average precision of the streamed rows: `total / max` float64 variables.

    `max` adds the number of rows (or the sum of the broadcast weights), `total` the
    (weighted) per-row average precisions.
    """
    with ops.name_scope(
        name, "average_precision_at_top_k", (predictions_idx, labels, weights)
    ) as scope:
        average_precision = _sparse_average_precision_at_top_k(
            predictions_idx=predictions_idx, labels=labels
        )
        if weights is not None:
            weights = _broadcast_weights(array_ops.cast(weights, dtypes.float64), average_precision)
            average_precision = math_ops.multiply(average_precision, weights)
        with ops.name_scope(None, "max", (average_precision,)) as max_scope:
            max_var = metric_variable([], dtypes.float64, name=max_scope)
            if weights is None:
                batch_max = array_ops.cast(
                    array_ops.size(average_precision, name="batch_max"), dtypes.float64
                )
            else:
                batch_max = math_ops.reduce_sum(weights, name="batch_max")
            max_update = state_ops.assign_add(max_var, batch_max, name="update")
        with ops.name_scope(None, "total", (average_precision,)) as total_scope:
            total_var = metric_variable([], dtypes.float64, name=total_scope)
            batch_total = math_ops.reduce_sum(average_precision, name="batch_total")
            total_update = state_ops.assign_add(total_var, batch_total, name="update")
        mean_average_precision = math_ops.div_no_nan(total_var, max_var, name="mean")
        _add(metrics_collections, mean_average_precision)
        update = math_ops.div_no_nan(total_update, max_update, name=scope)
        _add(updates_collections, update)
        return mean_average_precision, update


def _clean_out_of_range_indices(labels, num_classes):
    """`labels` with every id `>= num_classes` replaced by -1 (ignored as a label).

    TF takes the replacement in a `cond` on `max(labels) >= num_classes`; ferroflow has
    no `cond` and selects between the two with that scalar instead.
    """
    _reject_sparse(labels)
    if _is_sparse(labels):
        labels = _sparse_labels(labels)
        values = labels.values
        max_labels = math_ops.reduce_max(values)
        any_out_of_range = math_ops.greater_equal(max_labels, num_classes)
        cleaned = array_ops.where(
            math_ops.greater_equal(values, num_classes), -1 * array_ops.ones_like(values), values
        )
        values = array_ops.where(any_out_of_range, cleaned, values)
        return sparse_tensor.SparseTensor(labels.indices, values, labels.dense_shape)
    labels = ops.convert_to_tensor(labels)
    max_labels = math_ops.reduce_max(labels)
    any_out_of_range = math_ops.greater_equal(max_labels, num_classes)
    cleaned = array_ops.where(
        math_ops.greater_equal(labels, num_classes), -1 * array_ops.ones_like(labels), labels
    )
    return array_ops.where(any_out_of_range, cleaned, labels)


def average_precision_at_k(
    labels,
    predictions,
    k,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The mean over rows of the average precision of the `k` highest `predictions`.

    Per row, `sum_{i<=k} precision@i * rel_i / min(k, num_relevant)`, where `rel_i`
    says whether the `i`-th highest prediction is a label and `num_relevant` counts the
    row's labels in `[0, num_classes)` (ids at or past `num_classes` become -1, and
    negative ids are ignored; repeated ids count in `num_relevant` as in TF). Two
    float64 local variables, `<scope>/total` and `<scope>/max` (named `max_1`, as TF's,
    since the scope already holds a `Max` op), sum the (weighted) average precisions
    and the (weighted) rows; the value is `total / max` (0 while `max` is 0; NaN once a
    row without relevant labels was added, as in TF).

    Args:
        labels: int64 class ids, `[D1, ... DN, num_labels]` or `[D1, ... DN]`, dense
            or a `tf.SparseTensor`. Sparse labels count, as TF's `set_size`, each
            distinct value of a row as relevant, negative and out-of-range ids
            (made -1) included.
        predictions: Float scores `[D1, ... DN, num_classes]`.
        k: The number of highest predictions ranked (>= 1).
        weights: Optional weights of rank 0 or N, broadcastable to `[D1, ... DN]`.
        metrics_collections: Collections to add the value to.
        updates_collections: Collections to add the update op to.
        name: The name scope (default `average_precision_at_<k>`).

    Returns:
        `(mean_average_precision, update_op)`: float64 scalars, the value named
        `<scope>/mean` and the update `<scope>`.

    Raises:
        ValueError: `k < 1`, or the shape errors of `recall_at_k`.
        TypeError: `labels` not int64, or sparse-looking labels that are no
            `tf.SparseTensor`.
    """
    _reject_sparse(labels)
    if k < 1:
        raise ValueError(f"Invalid k={k}. `k` should be >= 1.")
    with ops.name_scope(
        name, _at_k_name("average_precision", k), (predictions, labels, weights)
    ) as scope:
        predictions = ops.convert_to_tensor(predictions)
        _, predictions_idx = nn_ops.top_k(predictions, k)
        labels = _clean_out_of_range_indices(
            labels, array_ops.cast(array_ops.shape(predictions)[-1], dtypes.int64)
        )
        return _streaming_sparse_average_precision_at_top_k(
            labels=labels,
            predictions_idx=predictions_idx,
            weights=weights,
            metrics_collections=metrics_collections,
            updates_collections=updates_collections,
            name=scope,
        )


def sparse_average_precision_at_k(
    labels,
    predictions,
    k,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Renamed to `average_precision_at_k` (deprecated, as in TF), which it calls."""
    _log_deprecated("sparse_average_precision_at_k", "average_precision_at_k")
    return average_precision_at_k(
        labels=labels,
        predictions=predictions,
        k=k,
        weights=weights,
        metrics_collections=metrics_collections,
        updates_collections=updates_collections,
        name=name,
    )
