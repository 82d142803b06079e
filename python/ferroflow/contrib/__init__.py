"""`tf.contrib`: the parts of TF 1.x's contrib that training programs import."""

from . import tpu, training

__all__ = ["tpu", "training"]
