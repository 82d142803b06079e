"""`tf.contrib`: the parts of TF 1.x's contrib that training programs import."""

from . import rnn, tpu, training

__all__ = ["rnn", "tpu", "training"]
