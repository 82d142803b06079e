"""`tf.linalg`: linear-algebra ops under TF's `tf.linalg.*` names.

The ones ferroflow builds from its kernels: `norm`, TF's composite of reductions.
"""

from ..ops.linalg_ops import norm

__all__ = [
    "norm",
]
