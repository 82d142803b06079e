"""`tf.strings`: string ops under TF-1.x's `tf.strings.*` names.

`join` is `tf.string_join`, `to_number` is `tf.string_to_number`; `reduce_join` and
`substr` are the top-level ops of the same names.
"""

from ..ops.string_ops import reduce_join, substr
from ..ops.string_ops import string_join as join
from ..ops.string_ops import string_to_number as to_number

__all__ = [
    "join",
    "reduce_join",
    "substr",
    "to_number",
]
