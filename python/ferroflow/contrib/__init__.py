"""`tf.contrib`: the parts of TF 1.x's contrib that training programs import."""

from . import lookup, rnn, summary, tpu, training

__all__ = ["lookup", "rnn", "summary", "tpu", "training"]
