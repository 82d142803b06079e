"""`tf.strings`: string ops under TF-1.x's `tf.strings.*` names.

`join` is `tf.string_join`, `to_number` is `tf.string_to_number`, `split` is TF-1.x's
`tf.strings.split` (`str.split` semantics, a `SparseTensor`); `reduce_join` and `substr`
are the top-level ops of the same names.
"""

from ..ops.string_ops import reduce_join, substr
from ..ops.string_ops import string_join as join
from ..ops.string_ops import string_to_number as to_number
from ..ops.string_ops import strings_split_v1 as split

__all__ = [
    "join",
    "reduce_join",
    "split",
    "substr",
    "to_number",
]
