"""`tf.contrib`: the parts of TF 1.x's contrib that training programs import."""

from . import lookup, rnn, tpu, training

__all__ = ["lookup", "rnn", "tpu", "training"]
