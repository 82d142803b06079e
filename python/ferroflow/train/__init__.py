"""`tf.train`: optimizers, learning-rate schedules and the global step.

More of TF-1.x's module lands issue by issue.
"""

from .adam import AdamOptimizer
from .gradient_descent import GradientDescentOptimizer
from .learning_rate_decay import (
    cosine_decay,
    exponential_decay,
    inverse_time_decay,
    natural_exp_decay,
    piecewise_constant,
    polynomial_decay,
)
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
    "cosine_decay",
    "exponential_decay",
    "inverse_time_decay",
    "natural_exp_decay",
    "piecewise_constant",
    "polynomial_decay",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
]
