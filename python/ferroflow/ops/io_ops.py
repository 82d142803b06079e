"""Checkpoint ops: `save_v2` and `restore_v2` (TF's `SaveV2`/`RestoreV2`).

They write and read V2 checkpoints, TensorFlow's tensor bundle (`<prefix>.index` and
`<prefix>.data-00000-of-00001`), byte for byte as TensorFlow does, so TensorFlow
restores what they save and they restore what TensorFlow saved. Files are written
under temporary names and renamed into place, the data file before the index.
`tf.train.Saver` builds on them.
"""

from __future__ import annotations

from ..framework import dtypes as _dtypes
from ..framework import ops
from ._op_util import make_op

__all__ = ["restore_v2", "save_v2"]


def _string_inputs(prefix, tensor_names, shape_and_slices):
    return [
        ops.convert_to_tensor(prefix, dtype=_dtypes.string, name="prefix"),
        ops.convert_to_tensor(tensor_names, dtype=_dtypes.string, name="tensor_names"),
        ops.convert_to_tensor(shape_and_slices, dtype=_dtypes.string, name="shape_and_slices"),
    ]


def save_v2(prefix, tensor_names, shape_and_slices, tensors, name=None):
    """The op that saves `tensors` under `tensor_names` in the checkpoint `prefix`.

    Args:
        prefix: Scalar string: the checkpoint's path prefix.
        tensor_names: 1-D strings, one name per tensor.
        shape_and_slices: 1-D strings, `""` per tensor (whole tensors; slices of
            partitioned variables are not supported).
        tensors: The tensors to save.
        name: A name for the operation.

    Returns:
        The `SaveV2` operation.
    """
    with ops.name_scope(name, "SaveV2", [prefix, tensor_names, tensors]) as scope:
        inputs = _string_inputs(prefix, tensor_names, shape_and_slices)
        values = [ops.convert_to_tensor(t, name="tensors") for t in tensors]
        return make_op("SaveV2", [*inputs, *values], scope=scope)


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes, name=None):
    """The tensors `tensor_names` restored from the checkpoint `prefix`.

    Running it raises `NotFoundError` for a missing checkpoint or name,
    `InvalidArgumentError` when a stored dtype differs from `dtypes`, and
    `DataLossError` when the files are corrupted.

    Args:
        prefix: Scalar string: the checkpoint's path prefix.
        tensor_names: 1-D strings.
        shape_and_slices: 1-D strings, `""` per tensor.
        dtypes: The dtype of each tensor.
        name: A name for the operation.

    Returns:
        A list of tensors, one per name.
    """
    with ops.name_scope(name, "RestoreV2", [prefix, tensor_names]) as scope:
        inputs = _string_inputs(prefix, tensor_names, shape_and_slices)
        attrs = {"dtypes": [_dtypes.as_dtype(d) for d in dtypes]}
        return list(make_op("RestoreV2", inputs, attrs, scope=scope).outputs)
