"""`tf.strings`: string ops under TF-1.x's `tf.strings.*` names.

`join` is `tf.string_join`, `to_number` is `tf.string_to_number`, `split` is TF-1.x's
`tf.strings.split` (`str.split` semantics, a `SparseTensor`); `reduce_join` and `substr`
are the top-level ops of the same names.
"""

from ..ops.string_ops import as_string, reduce_join, substr
from ..ops.string_ops import string_join as join
from ..ops.string_ops import string_to_hash_bucket as to_hash_bucket
from ..ops.string_ops import string_to_hash_bucket_fast as to_hash_bucket_fast
from ..ops.string_ops import string_to_hash_bucket_strong as to_hash_bucket_strong
from ..ops.string_ops import string_to_number as to_number
from ..ops.string_ops import strings_split_v1 as split

__all__ = [
    "as_string",
    "to_hash_bucket",
    "to_hash_bucket_fast",
    "to_hash_bucket_strong",
    "join",
    "reduce_join",
    "split",
    "substr",
    "to_number",
]
