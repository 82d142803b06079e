"""`tf.metrics`: TF-1.x's streaming metrics, each a `(value, update_op)` pair."""

from ..ops.metrics_impl import (
    accuracy,
    false_negatives,
    false_positives,
    mean,
    mean_absolute_error,
    mean_squared_error,
    precision,
    recall,
    root_mean_squared_error,
    true_negatives,
    true_positives,
)

__all__ = [
    "accuracy",
    "false_negatives",
    "false_positives",
    "mean",
    "mean_absolute_error",
    "mean_squared_error",
    "precision",
    "recall",
    "root_mean_squared_error",
    "true_negatives",
    "true_positives",
]
