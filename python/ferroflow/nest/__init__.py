"""`tf.nest`: TF 1.15's public functions over nested structures.

`assert_same_structure`, `flatten`, `is_nested`, `map_structure` and
`pack_sequence_as`, as `tensorflow.python.util.nest` has them (ferroflow's is
`ferroflow.util.nest`, which also has TF's internal `flatten_up_to`,
`map_structure_up_to` and friends).

Example:
    ```python
    tf.nest.flatten({"b": [1, 2], "a": 3})  # [3, 1, 2]
    tf.nest.map_structure(lambda x: x * 2, (1, [2]))  # (2, [4])
    ```
"""

from ..util.nest import (
    assert_same_structure,
    flatten,
    is_nested,
    map_structure,
    pack_sequence_as,
)

__all__ = [
    "assert_same_structure",
    "flatten",
    "is_nested",
    "map_structure",
    "pack_sequence_as",
]
