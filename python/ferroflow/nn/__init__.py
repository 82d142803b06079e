"""`tf.nn`: neural-network ops."""

from ..ops.math_ops import sigmoid, tanh
from ..ops.nn_ops import (
    bias_add,
    elu,
    embedding_lookup,
    l2_loss,
    log_softmax,
    moments,
    relu,
    relu6,
    sigmoid_cross_entropy_with_logits,
    softmax,
    softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
    softplus,
    sparse_softmax_cross_entropy_with_logits,
    zero_fraction,
)

__all__ = [
    "bias_add",
    "elu",
    "embedding_lookup",
    "l2_loss",
    "log_softmax",
    "moments",
    "relu",
    "relu6",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "softplus",
    "sparse_softmax_cross_entropy_with_logits",
    "tanh",
    "zero_fraction",
]
