"""`tf.confusion_matrix` (TF-1.x `confusion_matrix.py`), built from graph ops."""

from __future__ import annotations

from ..framework import dtypes, ops, tensor_util
from . import array_ops, check_ops, control_flow_ops, math_ops


def remove_squeezable_dimensions(labels, predictions, expected_rank_diff=0, name=None):
    """Squeezes the last dimension of `labels` or `predictions` if their ranks differ by one.

    With `expected_rank_diff` the rank difference the caller wants, the last dimension of
    `predictions` (or `labels`) is squeezed when it is 1 and `predictions` has one
    dimension more (or less) than that.

    Args:
        labels: The label values.
        predictions: The predicted values.
        expected_rank_diff: The expected `rank(predictions) - rank(labels)`.
        name: An optional name scope.

    Returns:
        `(labels, predictions)`, possibly squeezed.

    Unknown ranks are compared when run: a `tf.cond` squeezes or passes each through,
    as TF's.
    """
    with ops.name_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = ops.convert_to_tensor(predictions)
        labels = ops.convert_to_tensor(labels)
        predictions_shape = predictions.get_shape()
        predictions_rank = predictions_shape.ndims
        labels_shape = labels.get_shape()
        labels_rank = labels_shape.ndims
        if labels_rank is not None and predictions_rank is not None:
            rank_diff = predictions_rank - labels_rank
            if rank_diff == expected_rank_diff + 1 and predictions_shape.dims[
                -1
            ].is_compatible_with(1):
                predictions = array_ops.squeeze(predictions, [-1])
            elif rank_diff == expected_rank_diff - 1 and labels_shape.dims[-1].is_compatible_with(
                1
            ):
                labels = array_ops.squeeze(labels, [-1])
            return labels, predictions

        rank_diff = array_ops.rank(predictions) - array_ops.rank(labels)
        if predictions_rank is None or predictions_shape.dims[-1].is_compatible_with(1):
            predictions = control_flow_ops.cond(
                math_ops.equal(expected_rank_diff + 1, rank_diff),
                lambda: array_ops.squeeze(predictions, [-1]),
                lambda: predictions,
            )
        if labels_rank is None or labels_shape.dims[-1].is_compatible_with(1):
            labels = control_flow_ops.cond(
                math_ops.equal(expected_rank_diff - 1, rank_diff),
                lambda: array_ops.squeeze(labels, [-1]),
                lambda: labels,
            )
        return labels, predictions


def confusion_matrix(
    labels, predictions, num_classes=None, dtype=dtypes.int32, name=None, weights=None
):
    """The confusion matrix of `labels` (rows) against `predictions` (columns).

    Both are 1-D vectors of class ids in `[0, num_classes)`; entry `[i, j]` sums the
    weights (or counts) of the elements with label `i` and prediction `j`.

    Args:
        labels: 1-D class ids (cast to int64).
        predictions: 1-D predicted class ids, as long as `labels`.
        num_classes: The number of classes; `None` makes it one more than the largest
            id in `labels` and `predictions`.
        dtype: The dtype of the matrix.
        name: An optional name scope.
        weights: An optional tensor of `predictions`' shape, each element's weight.

    Returns:
        A `[num_classes, num_classes]` tensor of `dtype`. The ids are checked at run
        time (`InvalidArgumentError` for a negative or out-of-bound one).

    Departure: TF scatters the stacked `[label, prediction]` pairs with `ScatterNd`;
    ferroflow sums each pair's row-major cell (`label * num_classes + prediction`) with
    `UnsortedSegmentSum` and reshapes, naming the result `ScatterNd` as TF's.
    """
    with ops.name_scope(
        name, "confusion_matrix", (predictions, labels, num_classes, weights)
    ) as name:
        labels, predictions = remove_squeezable_dimensions(
            ops.convert_to_tensor(labels, name="labels"),
            ops.convert_to_tensor(predictions, name="predictions"),
        )
        predictions = array_ops.cast(predictions, dtypes.int64)
        labels = array_ops.cast(labels, dtypes.int64)
        labels = control_flow_ops.with_dependencies(
            [check_ops.assert_non_negative(labels, message="`labels` contains negative values")],
            labels,
        )
        predictions = control_flow_ops.with_dependencies(
            [
                check_ops.assert_non_negative(
                    predictions, message="`predictions` contains negative values"
                )
            ],
            predictions,
        )
        static = num_classes
        if isinstance(num_classes, ops.Tensor):
            static = tensor_util.constant_value(num_classes)
        if num_classes is None:
            num_classes = (
                math_ops.maximum(math_ops.reduce_max(predictions), math_ops.reduce_max(labels)) + 1
            )
        else:
            num_classes_int64 = array_ops.cast(num_classes, dtypes.int64)
            labels = control_flow_ops.with_dependencies(
                [check_ops.assert_less(labels, num_classes_int64, message="`labels` out of bound")],
                labels,
            )
            predictions = control_flow_ops.with_dependencies(
                [
                    check_ops.assert_less(
                        predictions, num_classes_int64, message="`predictions` out of bound"
                    )
                ],
                predictions,
            )
        if weights is not None:
            weights = ops.convert_to_tensor(weights, name="weights")
            predictions.get_shape().assert_is_compatible_with(weights.get_shape())
            weights = array_ops.cast(weights, dtype)
        num_classes = array_ops.cast(num_classes, dtypes.int64)
        shape = array_ops.stack([num_classes, num_classes])
        indices = array_ops.stack([labels, predictions], axis=1)
        # Row-major cell of each [label, prediction] pair.
        strides = array_ops.stack([num_classes, array_ops.ones([], dtypes.int64)])
        cells = math_ops.reduce_sum(math_ops.multiply(indices, strides), 1)
        values = array_ops.ones_like(predictions, dtype) if weights is None else weights
        counts = math_ops.unsorted_segment_sum(
            values, cells, math_ops.multiply(num_classes, num_classes)
        )
        matrix = array_ops.reshape(counts, shape, name="ScatterNd")
        if static is not None:
            matrix.set_shape([int(static), int(static)])
        return matrix
