"""`tf.train`: optimizers and the global step (more of TF-1.x's module as it lands)."""

from .adam import AdamOptimizer
from .gradient_descent import GradientDescentOptimizer
from .momentum import MomentumOptimizer
from .optimizer import Optimizer
from .training_util import (
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)

__all__ = [
    "AdamOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
]
