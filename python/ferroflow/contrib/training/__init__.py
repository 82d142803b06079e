"""`tf.contrib.training`: the ps placement strategies of TF 1.x's contrib."""

from .device_setter import GreedyLoadBalancingStrategy, byte_size_load_fn

__all__ = ["GreedyLoadBalancingStrategy", "byte_size_load_fn"]
