"""Reading checkpoints without a graph, and initializing variables from them.

`NewCheckpointReader`, `load_checkpoint`, `list_variables`, `load_variable` and
`checkpoints_iterator` read; `init_from_checkpoint` makes variables' initializers
restore them from a checkpoint.

Readers open TensorFlow's V2 bundles (ours or TF's); every index entry is validated
before anything is allocated from it, and damaged data is `DataLossError`.
"""

from __future__ import annotations

import logging
import os
import time

from .. import _ferroflow
from ..framework import dtypes, tensor_shape
from ..ops import io_ops, state_ops, variable_scope
from ..ops.variables import PartitionedVariable, Variable
from ..protos import DataType
from . import checkpoint_management

__all__ = [
    "CheckpointReader",
    "NewCheckpointReader",
    "checkpoints_iterator",
    "init_from_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
]

_log = logging.getLogger(__name__)


class CheckpointReader:
    """The tensors of one checkpoint (TF's `CheckpointReader`).

    Raises:
        tf.errors.NotFoundError: No checkpoint has this prefix.
        tf.errors.DataLossError: The index is damaged.
    """

    def __init__(self, filepattern):
        self._prefix = os.fsdecode(filepattern)
        self._native = _ferroflow.CheckpointReader(self._prefix)
        self._entries = {
            name: (dtypes.as_dtype(code), shape) for name, code, shape in self._native.entries()
        }

    def has_tensor(self, tensor_str) -> bool:
        """Whether the checkpoint holds a tensor named `tensor_str`."""
        return tensor_str in self._entries

    def get_tensor(self, tensor_str):
        """The tensor's value as a numpy array.

        Raises:
            tf.errors.NotFoundError: No tensor has this name.
        """
        return self._native.get_tensor(tensor_str)

    def get_variable_to_shape_map(self) -> dict:
        """Tensor name to shape (a list of ints)."""
        return {name: list(shape) for name, (_, shape) in self._entries.items()}

    def get_variable_to_dtype_map(self) -> dict:
        """Tensor name to `tf.DType`."""
        return {name: dtype for name, (dtype, _) in self._entries.items()}

    def debug_string(self) -> bytes:
        """One line per tensor, `name (DT_TYPE) [shape]`, as TF's reader prints them."""
        lines = []
        for name, (dtype, shape) in sorted(self._entries.items()):
            dims = ",".join(str(d) for d in shape)
            lines.append(f"{name} ({_dt_name(dtype)}) [{dims}]\n")
        return "".join(lines).encode()


def _dt_name(dtype) -> str:
    return DataType.values_by_number[dtype.as_datatype_enum].name


def NewCheckpointReader(filepattern):
    """A `CheckpointReader` for the checkpoint `filepattern` (a prefix)."""
    return CheckpointReader(filepattern)


def _get_checkpoint_filename(ckpt_dir_or_file) -> str:
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        return checkpoint_management.latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A reader for a checkpoint prefix, or the latest checkpoint of a directory.

    Raises:
        ValueError: The directory has no checkpoint.
    """
    filename = _get_checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError(
            f"Couldn't find 'checkpoint' file or checkpoints in given directory {ckpt_dir_or_file}"
        )
    return NewCheckpointReader(filename)


def load_variable(ckpt_dir_or_file, name):
    """The value of the tensor `name` (a trailing `:0` is ignored) as a numpy array."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file) -> list:
    """`(name, shape)` of every tensor in the checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1, timeout=None):
    """Waits until a checkpoint other than `last_checkpoint` is the latest one.

    Returns:
        Its path, or None if `timeout` seconds passed first.
    """
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = checkpoint_management.latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            return path
        if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint of `checkpoint_dir` as it appears.

    Args:
        checkpoint_dir: The directory to watch.
        min_interval_secs: At least this many seconds between two yields.
        timeout: Give up after this many seconds without a new checkpoint.
        timeout_fn: Called on a timeout; the iterator ends if it returns True.
    """
    checkpoint_path = None
    while True:
        new_path = wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, timeout=timeout)
        if new_path is None:
            if not timeout_fn or timeout_fn():
                return
            continue
        start = time.time()
        checkpoint_path = new_path
        yield checkpoint_path
        time_to_next_eval = start + min_interval_secs - time.time()
        if time_to_next_eval > 0:
            time.sleep(time_to_next_eval)


def _set_initializer_from_checkpoint(variable, ckpt_file, tensor_name, slice_spec=""):
    """Makes `variable`'s initializer assign it from `tensor_name` of `ckpt_file`.

    `slice_spec` (a part of a partitioned variable) restores that slice only.
    """
    restore = io_ops.restore_v2(
        ckpt_file,
        [tensor_name],
        [slice_spec],
        [variable.dtype.base_dtype],
        name="checkpoint_initializer",
    )[0]
    if slice_spec:
        restore.set_shape(variable.shape)
    init = state_ops.assign(
        variable._ref(), restore, validate_shape=variable.shape.is_fully_defined()
    )
    variable._initializer_op = init.op
    variable._initial_value = restore


def _set_variable_or_list_initializer(variable_or_list, ckpt_file, tensor_name):
    """As `_set_initializer_from_checkpoint`, for a variable or the parts of one.

    Raises:
        ValueError: The parts are slices of different variables.
    """
    if not isinstance(variable_or_list, (list, tuple)):
        _set_initializer_from_checkpoint(variable_or_list, ckpt_file, tensor_name)
        return
    slice_name = None
    for v in variable_or_list:
        slice_info = v._get_save_slice_info()
        if slice_name is None:
            slice_name = slice_info.full_name
        elif slice_name != slice_info.full_name:
            raise ValueError(
                f"Slices must all be from the same tensor: {slice_name} != {slice_info.full_name}"
            )
        _set_initializer_from_checkpoint(v, ckpt_file, tensor_name, slice_info.spec)


def _collect_partitioned_variable(name, all_vars):
    """The parts `<name>/part_<i>` of a partitioned variable in `all_vars`, or None."""
    if f"{name}/part_0" not in all_vars:
        return None
    parts: list = []
    while f"{name}/part_{len(parts)}" in all_vars:
        parts.append(all_vars[f"{name}/part_{len(parts)}"])
    return parts


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Initializes variables from a checkpoint instead of their initial values.

    Replaces the initializers of the mapped variables with ops that restore them, so
    it must be called before `global_variables_initializer()`. As TF's:
    `{"ckpt/scope/": "scope/"}` maps every variable under `scope/` to the tensor of
    the same name under `ckpt/scope/`; `{"ckpt/name": "var_name"}` or
    `{"ckpt/name": variable}` maps one variable. Names are looked up, as in TF, among
    the variables `tf.get_variable` made (a `tf.Variable` is mapped by passing it).

    Raises:
        ValueError: A tensor is missing from the checkpoint, or its shape differs.
    """
    ckpt_file = _get_checkpoint_filename(ckpt_dir_or_file)
    reader = load_checkpoint(ckpt_dir_or_file)
    variable_map = reader.get_variable_to_shape_map()
    store = variable_scope._get_default_variable_store()._vars
    for tensor_name, current in sorted(assignment_map.items(), key=lambda kv: kv[0]):
        if isinstance(current, PartitionedVariable):
            current = current._get_variable_list()
        var: Variable | list | None
        if isinstance(current, Variable) or (
            isinstance(current, list) and all(isinstance(v, Variable) for v in current)
        ):
            var = current
        else:
            var = store.get(current)
            if var is None:
                var = _collect_partitioned_variable(current, store)
        if var is not None:
            if tensor_name not in variable_map:
                raise ValueError(
                    f"Tensor {tensor_name} is not found in {ckpt_dir_or_file} checkpoint "
                    f"{variable_map}"
                )
            if isinstance(var, Variable) and not var.shape.is_compatible_with(
                tensor_shape.TensorShape(variable_map[tensor_name])
            ):
                raise ValueError(
                    f"Shape of variable {var.name} ({var.shape}) doesn't match with shape of "
                    f"tensor {tensor_name} ({variable_map[tensor_name]}) from checkpoint reader."
                )
            _set_variable_or_list_initializer(var, ckpt_file, tensor_name)
            continue
        scopes = current[: current.rindex("/")] if "/" in current else ""
        if not tensor_name.endswith("/"):
            raise ValueError(
                f"Assignment map with scope only name {scopes} should map to scope only "
                f"{tensor_name}. Should be 'scope/': 'other_scope/'."
            )
        # The parts of a partitioned variable count under its full name.
        var_names = {
            n[: n.index("/part_")] if "/part_" in n else n
            for n in store
            if not scopes or n.startswith(scopes + "/")
        }
        for var_name in sorted(var_names):
            full_name = var_name[len(scopes) :]
            if current != "/":
                full_name = full_name[1:]
            if tensor_name != "/":
                full_name = tensor_name + full_name
            full_name = full_name.removesuffix("/")
            if full_name not in variable_map:
                raise ValueError(
                    f"Tensor {full_name} ({var_name[len(scopes) + 1 :]} in {tensor_name}) is not "
                    f"found in {ckpt_dir_or_file} checkpoint"
                )
            var = store.get(var_name)
            if var is None:
                var = _collect_partitioned_variable(var_name, store)
            _set_variable_or_list_initializer(var, ckpt_file, full_name)
