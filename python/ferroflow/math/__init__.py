"""`tf.math`: math ops under TF's `tf.math.*` names.

The ones also at the top level of `tf` are exported there; this namespace holds the
natively kerneled ones TF files under `tf.math`.
"""

from ..ops.math_ops import abs, angle, conj, imag, real, squared_difference
from ..ops.nn_ops import in_top_k, top_k

__all__ = [
    "abs",
    "angle",
    "conj",
    "imag",
    "in_top_k",
    "real",
    "squared_difference",
    "top_k",
]
