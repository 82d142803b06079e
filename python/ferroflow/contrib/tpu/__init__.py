"""`tf.contrib.tpu`: where TF 1.x kept `AsyncCheckpointSaverHook`."""

from ...train.async_checkpoint import AsyncCheckpointSaverHook

__all__ = ["AsyncCheckpointSaverHook"]
