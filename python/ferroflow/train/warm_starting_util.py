"""`tf.train.warm_start` and `tf.train.VocabInfo`: initializing a model from a checkpoint.

TF 1.15's `warm_starting_util`. Variables are chosen by regex, list of names or list
of variables; their initializers are replaced by ops that restore them from the
checkpoint (whole, as slices of a partitioned variable, or under another name). A
variable with a `VocabInfo` is remapped row by row (or column by column, `axis=1`):
an entry of the new vocabulary found in the old one gets the checkpoint's row for it,
the others and the OOV buckets get the backup initializer's values.

TF builds that remapping with two kernels, `GenerateVocabRemapping` and
`LoadAndRemapMatrix`, which ferroflow's core does not have. Their results are
reproduced exactly here: the two vocabulary files are read (as TF's
`TextFileLineIterator` reads them, with its errors) and the checkpoint's index is
consulted when the initializer is built; the initializer then restores the old
matrix with `RestoreV2` when it runs, gathers the surviving rows and columns, and
takes every missing value from the backup initializer in TF's order (row-major over
the missing cells), so random backup initializers give TF's numbers. The difference
is when the vocabulary files are read and the remapping's errors surface: when
`warm_start` is called rather than when the initializer runs.

An object-based checkpoint (`tf.train.Checkpoint`'s) is read through its object
graph, as TF does: variables are looked up by their checkpoint keys.
"""

from __future__ import annotations

import collections
import logging
import os

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from .. import errors
from ..framework import dtypes, ops
from ..ops import (
    array_ops,
    init_ops,
    io_ops,
    math_ops,
    state_ops,
    variable_scope,
)
from ..ops.variables import PartitionedVariable, Variable
from ..platform import gfile
from . import checkpoint_utils

__all__ = ["VocabInfo", "warm_start"]

_log = logging.getLogger(__name__)


class VocabInfo(
    collections.namedtuple(
        "VocabInfo",
        [
            "new_vocab",
            "new_vocab_size",
            "num_oov_buckets",
            "old_vocab",
            "old_vocab_size",
            "backup_initializer",
            "axis",
        ],
    )
):
    """Vocabulary information for warm-starting (TF's `tf.train.VocabInfo`).

    Attributes:
        new_vocab: Path to the new vocabulary file (one entry a line).
        new_vocab_size: How many entries of the new vocabulary the variable uses.
        num_oov_buckets: How many OOV buckets follow the vocabulary.
        old_vocab: Path to the vocabulary file of the checkpoint's variable.
        old_vocab_size: How many entries of the old vocabulary the checkpoint used
            (-1: all of them).
        backup_initializer: Initializer for new entries and OOV buckets (None: zeros).
        axis: The variable's axis the vocabulary indexes: 0 (rows: embeddings,
            linear weights) or 1 (columns: output layers over classes).

    Example:
        ```python
        vocab_info = tf.train.VocabInfo(
            new_vocab="new_vocab.txt",
            new_vocab_size=100,
            num_oov_buckets=1,
            old_vocab="old_vocab.txt",
            backup_initializer=tf.truncated_normal_initializer(stddev=0.1),
        )
        tf.train.warm_start("/tmp/prev_model", var_name_to_vocab_info={"emb": vocab_info})
        ```
    """

    def __new__(
        cls,
        new_vocab,
        new_vocab_size,
        num_oov_buckets,
        old_vocab,
        old_vocab_size=-1,
        backup_initializer=None,
        axis=0,
    ):
        """Creates a `VocabInfo`.

        Raises:
            ValueError: `axis` is neither 0 nor 1.
        """
        if axis != 0 and axis != 1:
            raise ValueError(
                "The only supported values for the axis argument are 0 "
                f"and 1.  Provided axis: {axis}"
            )
        return super().__new__(
            cls,
            new_vocab,
            new_vocab_size,
            num_oov_buckets,
            old_vocab,
            old_vocab_size,
            backup_initializer,
            axis,
        )


def _is_variable(x) -> bool:
    return isinstance(x, Variable)


def _names_to_variables(var_list) -> dict:
    """TF's `saveable_object_util.op_list_to_dict` for variables: name -> variable(s).

    A part of a partitioned variable counts under its full variable's name.

    Raises:
        ValueError: Two variables have one name, or slices mix with a whole variable.
        TypeError: An element is not a variable.
    """
    names: dict = {}
    for v in sorted(var_list, key=lambda x: x.name):
        if isinstance(v, PartitionedVariable):
            if v.name in names:
                raise ValueError(f"At least two variables have the same name: {v.name}")
            names[v.name] = v
        elif isinstance(v, Variable) and v._get_save_slice_info():
            name = v._get_save_slice_info().full_name
            if name in names and not isinstance(names[name], list):
                raise ValueError(f"Mixing slices and non-slices with the same name: {name}")
            names.setdefault(name, []).append(v)
        elif isinstance(v, Variable):
            if v.op.name in names:
                raise ValueError(f"At least two variables have the same name: {v.op.name}")
            names[v.op.name] = v
        else:
            raise TypeError(f"Variable to save is not a Variable: {v}")
    return names


def _infer_var_name(var):
    """The (full) name of `var`, as a checkpoint stores it.

    `var` is a list holding one variable, one partitioned variable, or the parts of
    one partitioned variable.

    Raises:
        TypeError: `var` holds more than one variable.
    """
    name_to_var_dict = _names_to_variables(var)
    if len(name_to_var_dict) > 1:
        raise TypeError(
            f"`var` = {var} passed as arg violates the constraints.  "
            f"name_to_var_dict = {name_to_var_dict}"
        )
    return next(iter(name_to_var_dict))


def _get_var_info(var, prev_tensor_name=None):
    """`(checkpoint tensor name, variable or list of parts)` for `var`.

    Args:
        var: A `Variable`, a list of the parts of one partitioned variable, or a
            `PartitionedVariable`.
        prev_tensor_name: The tensor's name in the checkpoint (default: `var`'s name).

    Raises:
        TypeError: `var` is none of those.
    """
    if _is_variable(var):
        current_var_name = _infer_var_name([var])
    elif isinstance(var, list) and all(_is_variable(v) for v in var):
        current_var_name = _infer_var_name(var)
    elif isinstance(var, PartitionedVariable):
        current_var_name = _infer_var_name([var])
        var = var._get_variable_list()
    else:
        raise TypeError(
            "var MUST be one of the following: a Variable, list of Variable or "
            f"PartitionedVariable, but is {type(var)}"
        )
    if not prev_tensor_name:
        prev_tensor_name = current_var_name
    return prev_tensor_name, var


# -- GenerateVocabRemapping and LoadAndRemapMatrix, reproduced --------------------------
def _vocab_lines(filename, vocab_size=-1) -> list:
    """The entries of a vocabulary file, as TF's `TextFileLineIterator` reads them.

    Lines end at a newline (a trailing carriage return is dropped); the last line needs no newline.
    With `vocab_size` >= 0 only that many lines are read.

    Raises:
        tf.errors.NotFoundError: The file does not exist.
        tf.errors.InvalidArgumentError: An empty line comes before the end (or before
            `vocab_size` lines), or the file has fewer than `vocab_size` lines.
        tf.errors.OutOfRangeError: Nothing could be read (an empty file, or
            `vocab_size` 0): TF's table initialization fails on those.
    """
    filename = os.fsdecode(filename)
    with gfile.GFile(filename, "rb") as f:
        data = f.read()
    lines: list = []
    pos, end = 0, len(data)
    status = None
    while True:
        newline = data.find(b"\n", pos)
        if newline >= 0:
            line, pos = data[pos:newline], newline + 1
        else:
            line, pos = data[pos:], end
        if line.endswith(b"\r"):
            line = line[:-1]
        if newline < 0 and not line:
            status = (errors.OutOfRangeError, "Read less bytes than requested")
            if vocab_size != -1 and len(lines) != vocab_size:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Invalid vocab_size in {filename}: expected {vocab_size} but got {len(lines)}",
                )
            break
        if vocab_size != -1 and len(lines) >= vocab_size:
            status = (
                errors.OutOfRangeError,
                f"Finished reading {vocab_size} of lines from {filename}",
            )
            break
        if not line:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Invalid content in {filename}: empty line found at position {pos}.",
            )
        lines.append(line)
    if not lines:
        # TF's `InitializableLookupTable::Initialize`: no first entry is an error.
        cls, message = status
        raise cls(None, None, message)
    return lines


def _generate_vocab_remapping(
    new_vocab_file, old_vocab_file, new_vocab_offset, num_new_vocab, old_vocab_size=-1
):
    """TF's `GenerateVocabRemapping`, computed now: `(remapping, num_present)`.

    `remapping[i]` is the line of the old vocabulary holding entry
    `new_vocab_offset + i` of the new one, or -1.

    Raises:
        tf.errors.OpError: As TF's kernel (the files are read as `_vocab_lines` reads them;
            a token on two lines of the old vocabulary is `FailedPreconditionError`).
    """
    new_tokens = _vocab_lines(new_vocab_file)
    if new_vocab_offset + num_new_vocab > len(new_tokens):
        raise errors.InvalidArgumentError(
            None, None, "lookup table size must be larger than last new vocab entry's line"
        )
    old_ids: dict = {}
    for i, token in enumerate(_vocab_lines(old_vocab_file, old_vocab_size)):
        previous = old_ids.setdefault(token, i)
        if previous != i:
            raise errors.FailedPreconditionError(
                None,
                None,
                "HashTable has different value for same key. Key "
                f"{token.decode('utf-8', 'backslashreplace')} has {previous} and trying "
                f"to add value {i}",
            )
    remapping = np.array(
        [
            old_ids.get(t, -1)
            for t in new_tokens[new_vocab_offset : new_vocab_offset + num_new_vocab]
        ],
        dtype=np.int64,
    )
    return remapping, int(np.count_nonzero(remapping >= 0))


def _check_remapping(remapping) -> None:
    """TF's `RemapVectorToMap`: no old ID may be mapped to two new IDs.

    Raises:
        tf.errors.UnimplementedError: One is.
    """
    first_new_id: dict = {}
    for new_id, old_id in enumerate(remapping.tolist()):
        if old_id < 0:
            continue
        seen = first_new_id.setdefault(old_id, new_id)
        if seen != new_id:
            raise errors.UnimplementedError(
                None,
                None,
                f"Old ID {old_id} is mapped to both new ID {seen} and {new_id}, which is "
                "not supported.",
            )


_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _shape_string(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _load_and_remap_matrix_op(
    ckpt_path,
    old_tensor_name,
    row_remapping,
    col_remapping,
    initializing_values,
    num_rows,
    num_cols,
):
    """TF's `LoadAndRemapMatrix` over remappings known now (numpy int64 vectors).

    Output cell `(i, j)` is `old[row_remapping[i], col_remapping[j]]` when both are
    present (an empty `col_remapping` is the identity), and otherwise the next of
    `initializing_values`, taken in row-major order. The checkpoint's index is
    checked now (TF's errors); its values are read when the result is computed.

    Raises:
        tf.errors.OpError: As TF's kernel.
    """
    remap_cols = col_remapping.size > 0
    if row_remapping.size != num_rows:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Size of row_remapping is {row_remapping.size} instead of being equal to "
            f"num_rows={num_rows}",
        )
    _check_remapping(row_remapping)
    if remap_cols:
        if col_remapping.size != num_cols:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Provided col_remapping, but its size is {col_remapping.size} instead of "
                f"being equal to num_cols={num_cols}",
            )
        _check_remapping(col_remapping)
    reader = checkpoint_utils.NewCheckpointReader(ckpt_path)
    if not reader.has_tensor(old_tensor_name):
        raise errors.NotFoundError(None, None, f"Key {old_tensor_name} not found in checkpoint")
    shape = reader.get_variable_to_shape_map()[old_tensor_name]
    dtype = reader.get_variable_to_dtype_map()[old_tensor_name]
    if len(shape) != 2:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Tensor {old_tensor_name} has shape {_shape_string(shape)} of invalid rank "
            f"{len(shape)} instead of expected shape of rank 2.",
        )
    if dtype != dtypes.float32:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Tensor {old_tensor_name} has invalid type "
            f"{_TF_TYPE_NAMES.get(dtype.name, dtype.name)} instead of expected type float",
        )
    if not remap_cols and shape[1] != num_cols:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Tensor {old_tensor_name} has shape {_shape_string(shape)}, where the size of "
            f"its 2nd dimension is {shape[1]} instead of being equal to num_cols={num_cols}",
        )
    present_rows = row_remapping >= 0
    if present_rows.any():
        low, high = int(row_remapping[present_rows].min()), int(row_remapping.max())
        if high >= shape[0]:
            raise errors.InternalError(
                None,
                None,
                f"Extent in dimension 0 out of bounds: shape = {_shape_string(shape)}, "
                f"slice = {low},{high - low + 1}:-",
            )
    if remap_cols and col_remapping.max() >= shape[1]:
        # TF leaves such cells uninitialized: refused here.
        raise errors.InvalidArgumentError(
            None,
            None,
            f"col_remapping maps to column {int(col_remapping.max())} of tensor "
            f"{old_tensor_name}, of shape {_shape_string(shape)}",
        )
    present_cols = col_remapping >= 0 if remap_cols else np.ones([num_cols], bool)
    n_missing_cols = int(num_cols - np.count_nonzero(present_cols))
    missing_per_row = np.where(present_rows, n_missing_cols, num_cols).astype(np.int64)
    total_missing = int(missing_per_row.sum())
    init_values = ops.convert_to_tensor(initializing_values)
    n_init = init_values.shape.num_elements()
    if n_init is not None and n_init < total_missing:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"initializing_values contained {n_init} elements, but more missing values remain.",
        )
    if n_init is not None and n_init > total_missing:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"initializing_values contained {n_init} elements, but only {total_missing} "
            "elements were used to fill in missing values.",
        )
    with ops.name_scope(None, "LoadAndRemapMatrix"):
        flat_init = array_ops.reshape(init_values, [-1])
        if total_missing == num_rows * num_cols:
            # Nothing comes from the checkpoint (TF reads none of it).
            return array_ops.reshape(flat_init, [num_rows, num_cols])
        old = io_ops.restore_v2(ckpt_path, [old_tensor_name], [""], [dtypes.float32])[0]
        old = array_ops.gather(old, np.maximum(row_remapping, 0))
        if remap_cols:
            old = array_ops.gather(old, np.maximum(col_remapping, 0), axis=1)
        if total_missing == 0:
            return array_ops.reshape(old, [num_rows, num_cols])
        # The index into `initializing_values` of each cell: the row's first missing
        # value, plus the column's rank among the missing columns (or the column
        # itself in a row that is missing whole).
        row_start = (np.cumsum(missing_per_row) - missing_per_row).reshape([-1, 1])
        missing_row = (~present_rows).astype(np.int64).reshape([-1, 1])
        col_rank = (np.cumsum(~present_cols) - (~present_cols)).astype(np.int64).reshape([1, -1])
        columns = np.arange(num_cols, dtype=np.int64).reshape([1, -1])
        index = math_ops.add(
            math_ops.add(row_start, math_ops.multiply(missing_row, columns)),
            math_ops.multiply(1 - missing_row, col_rank),
        )
        index = math_ops.minimum(index, np.int64(total_missing - 1))
        from_init = array_ops.gather(flat_init, index)
        keep = math_ops.logical_and(
            present_rows.reshape([-1, 1]),
            present_cols.reshape([1, -1]),
        )
        return array_ops.where(keep, old, from_init)


def _load_and_remap_matrix(
    ckpt_path,
    old_tensor_name,
    new_row_vocab_offset,
    num_rows_to_load,
    new_col_vocab_size,
    initializer,
    old_row_vocab_size=-1,
    old_row_vocab_file=None,
    new_row_vocab_file=None,
    old_col_vocab_file=None,
    new_col_vocab_file=None,
    num_row_oov_buckets=0,
    num_col_oov_buckets=0,
    max_rows_in_memory=-1,
):
    """TF's `checkpoint_ops._load_and_remap_matrix`: a remapped 2-D checkpoint tensor.

    Returns:
        A float32 tensor `[num_rows_to_load + num_row_oov_buckets, new_col_vocab_size +
        num_col_oov_buckets]`.

    Raises:
        ValueError: Negative OOV counts, only one of a pair of vocabularies, or none.
    """
    del max_rows_in_memory  # Only how TF's kernel reads the checkpoint.
    if num_row_oov_buckets < 0:
        raise ValueError(f"num_row_oov_buckets must be >= 0, but received {num_row_oov_buckets}")
    if num_col_oov_buckets < 0:
        raise ValueError(f"num_col_oov_buckets must be >= 0, but received {num_col_oov_buckets}")
    if bool(old_row_vocab_file) != bool(new_row_vocab_file):
        raise ValueError(
            "old_row_vocab_file and new_row_vocab_file must both be specified or "
            f"left unspecified. old_row_vocab_file='{old_row_vocab_file}', "
            f"new_row_vocab_file='{new_row_vocab_file}'"
        )
    if bool(old_col_vocab_file) != bool(new_col_vocab_file):
        raise ValueError(
            "old_col_vocab_file and new_col_vocab_file must both be specified or "
            f"left unspecified. old_col_vocab_file='{old_col_vocab_file}', "
            f"new_col_vocab_file='{new_col_vocab_file}'"
        )
    remap_rows = new_row_vocab_file and old_row_vocab_file
    remap_cols = new_col_vocab_file and old_col_vocab_file
    if not (remap_rows or remap_cols):
        raise ValueError(
            "Must provide either row or column vocab files. If no remapping is "
            "necessary, consider using `tf.contrib.framework.init_from_checkpoint` "
            "instead."
        )
    num_rows_present = num_rows_to_load
    if remap_rows:
        row_remapping, num_rows_present = _generate_vocab_remapping(
            new_row_vocab_file,
            old_row_vocab_file,
            new_row_vocab_offset,
            num_rows_to_load,
            old_row_vocab_size,
        )
    else:
        # Partitions still need the offset of their rows in the old matrix.
        row_remapping = np.arange(
            new_row_vocab_offset, new_row_vocab_offset + num_rows_to_load, dtype=np.int64
        )
    col_remapping = np.zeros([0], np.int64)
    num_cols_present = new_col_vocab_size
    if remap_cols:
        col_remapping, num_cols_present = _generate_vocab_remapping(
            new_col_vocab_file, old_col_vocab_file, 0, new_col_vocab_size
        )
    init_vals = initializer(
        [num_rows_to_load * new_col_vocab_size - num_rows_present * num_cols_present, 1]
    )
    return_tensor = _load_and_remap_matrix_op(
        ckpt_path,
        old_tensor_name,
        row_remapping,
        col_remapping,
        init_vals,
        num_rows_to_load,
        new_col_vocab_size,
    )
    if num_row_oov_buckets > 0:
        init_row_oov_val = ops.convert_to_tensor(
            initializer([num_row_oov_buckets, new_col_vocab_size])
        )
        return_tensor = array_ops.concat([return_tensor, init_row_oov_val], 0)
    if num_col_oov_buckets > 0:
        init_col_oov_val = ops.convert_to_tensor(
            initializer([num_rows_to_load + num_row_oov_buckets, num_col_oov_buckets])
        )
        return_tensor = array_ops.concat([return_tensor, init_col_oov_val], 1)
    return return_tensor


def _load_and_remap_matrix_initializer(
    ckpt_path,
    old_tensor_name,
    new_row_vocab_size,
    new_col_vocab_size,
    old_row_vocab_size=-1,
    old_row_vocab_file=None,
    new_row_vocab_file=None,
    old_col_vocab_file=None,
    new_col_vocab_file=None,
    num_row_oov_buckets=0,
    num_col_oov_buckets=0,
    initializer=None,
    max_rows_in_memory=-1,
):
    """TF's `checkpoint_ops._load_and_remap_matrix_initializer`.

    Returns:
        An initializer `(shape, dtype=float32, partition_info=None)` for a (possibly
        partitioned, along rows) variable of full shape `[new_row_vocab_size +
        num_row_oov_buckets, new_col_vocab_size + num_col_oov_buckets]`.

    Raises:
        TypeError: `initializer` is not callable.
    """
    if initializer is None:
        initializer = init_ops.zeros_initializer()
    if not callable(initializer):
        raise TypeError(
            f"initializer must be callable, instead of being {initializer} of type "
            f"{type(initializer)}."
        )

    def _initializer(shape, dtype=dtypes.float32, partition_info=None):
        if dtype != dtypes.float32:
            raise TypeError(f"Currently, only float32 is supported. Received dtype: {dtype}")
        if len(shape) != 2:
            raise ValueError(f"Expected 2-dim shape, but received: {shape}")
        if shape[0] <= 0:
            raise ValueError(f"Expected 1st dim of shape to be > 0, but received shape: {shape}")
        if shape[1] != (new_col_vocab_size + num_col_oov_buckets):
            raise ValueError(
                f"Expected 2nd dim of shape to be new_col_vocab_size ({new_col_vocab_size}) + "
                f"num_col_oov_buckets ({num_col_oov_buckets}) = "
                f"{new_col_vocab_size + num_col_oov_buckets}, but received shape: {shape}"
            )
        offset = 0
        if partition_info is not None:
            offset = partition_info.single_offset(shape)
        if offset + shape[0] > new_row_vocab_size + num_row_oov_buckets:
            raise ValueError(
                f"Trying to initialize {shape[0]} additional rows after {offset} rows have "
                "already been initialized, which would exceed expected total row count of "
                f"new_row_vocab_size ({new_row_vocab_size}) + num_row_oov_buckets "
                f"({num_row_oov_buckets}) = {new_row_vocab_size + num_row_oov_buckets}."
            )
        row_oov_buckets_to_use = min(shape[0], max(0, offset + shape[0] - new_row_vocab_size))
        num_rows_to_load = shape[0] - row_oov_buckets_to_use
        # A partition of OOV rows only is all new.
        if offset > new_row_vocab_size:
            if shape[0] != row_oov_buckets_to_use:
                raise ValueError(
                    "Partitioned variable offset is greater than new vocab size and "
                    "not operating on OOV-only partition."
                )
            return initializer(shape)
        return _load_and_remap_matrix(
            ckpt_path=ckpt_path,
            old_tensor_name=old_tensor_name,
            new_row_vocab_offset=offset,
            num_rows_to_load=num_rows_to_load,
            new_col_vocab_size=new_col_vocab_size,
            initializer=initializer,
            old_row_vocab_size=old_row_vocab_size,
            old_row_vocab_file=old_row_vocab_file,
            new_row_vocab_file=new_row_vocab_file,
            old_col_vocab_file=old_col_vocab_file,
            new_col_vocab_file=new_col_vocab_file,
            num_row_oov_buckets=row_oov_buckets_to_use,
            num_col_oov_buckets=num_col_oov_buckets,
            max_rows_in_memory=max_rows_in_memory,
        )

    return _initializer


def _warm_start_var_with_vocab(
    var,
    current_vocab_path,
    current_vocab_size,
    prev_ckpt,
    prev_vocab_path,
    previous_vocab_size=-1,
    current_oov_buckets=0,
    prev_tensor_name=None,
    initializer=None,
    axis=0,
):
    """Makes `var`'s initializer load `prev_tensor_name` remapped to the new vocabulary.

    Args:
        var: A `Variable`, the parts of one partitioned variable, or a
            `PartitionedVariable`.
        current_vocab_path: The new vocabulary file.
        current_vocab_size: How many of its entries `var` uses.
        prev_ckpt: The checkpoint (a directory or a prefix).
        prev_vocab_path: The checkpoint's vocabulary file.
        previous_vocab_size: How many old entries to use (-1: all).
        current_oov_buckets: The OOV buckets following the new vocabulary.
        prev_tensor_name: The tensor's name in the checkpoint (default: `var`'s name).
        initializer: For entries not in the old vocabulary and OOV buckets (None: zeros).
        axis: 0 when the vocabulary indexes rows, 1 when it indexes columns.

    Raises:
        ValueError: A required argument is missing, or `axis` is not 0 or 1.
        TypeError: `var` is not a variable, list of parts or partitioned variable.
    """
    if not (current_vocab_path and current_vocab_size and prev_ckpt and prev_vocab_path):
        raise ValueError(
            "Invalid args: Must provide all of [current_vocab_path, "
            "current_vocab_size, prev_ckpt, prev_vocab_path}."
        )
    if _is_variable(var):
        var = [var]
    elif isinstance(var, list) and all(_is_variable(v) for v in var):
        pass
    elif isinstance(var, PartitionedVariable):
        var = var._get_variable_list()
    else:
        raise TypeError(
            "var MUST be one of the following: a Variable, list of Variable or "
            f"PartitionedVariable, but is {type(var)}"
        )
    if not prev_tensor_name:
        prev_tensor_name = _infer_var_name(var)
    total_v_first_axis = sum(v.get_shape().as_list()[0] for v in var)
    for v in var:
        v_shape = v.get_shape().as_list()
        slice_info = v._get_save_slice_info()
        partition_info = None
        if slice_info:
            partition_info = variable_scope._PartitionInfo(
                full_shape=slice_info.full_shape, var_offset=slice_info.var_offset
            )
        if axis == 0:
            new_row_vocab_size = current_vocab_size
            new_col_vocab_size = v_shape[1]
            old_row_vocab_size = previous_vocab_size
            old_row_vocab_file = prev_vocab_path
            new_row_vocab_file = current_vocab_path
            old_col_vocab_file = None
            new_col_vocab_file = None
            num_row_oov_buckets = current_oov_buckets
            num_col_oov_buckets = 0
        elif axis == 1:
            # Rows are counted over every partition (only rows are partitioned).
            new_row_vocab_size = total_v_first_axis
            new_col_vocab_size = current_vocab_size
            old_row_vocab_size = -1
            old_row_vocab_file = None
            new_row_vocab_file = None
            old_col_vocab_file = prev_vocab_path
            new_col_vocab_file = current_vocab_path
            num_row_oov_buckets = 0
            num_col_oov_buckets = current_oov_buckets
        else:
            raise ValueError(
                "The only supported values for the axis argument are 0 "
                f"and 1.  Provided axis: {axis}"
            )
        init = _load_and_remap_matrix_initializer(
            ckpt_path=checkpoint_utils._get_checkpoint_filename(prev_ckpt),
            old_tensor_name=prev_tensor_name,
            new_row_vocab_size=new_row_vocab_size,
            new_col_vocab_size=new_col_vocab_size,
            old_row_vocab_size=old_row_vocab_size,
            old_row_vocab_file=old_row_vocab_file,
            new_row_vocab_file=new_row_vocab_file,
            old_col_vocab_file=old_col_vocab_file,
            new_col_vocab_file=new_col_vocab_file,
            num_row_oov_buckets=num_row_oov_buckets,
            num_col_oov_buckets=num_col_oov_buckets,
            initializer=initializer,
        )
        new_init_val = ops.convert_to_tensor(init(shape=v_shape, partition_info=partition_info))
        v._initializer_op = state_ops.assign(v, new_init_val).op


def _get_grouped_variables(vars_to_warm_start) -> dict:
    """The variables to warm-start, grouped by (full) name: name -> list of variables.

    Args:
        vars_to_warm_start: A regex over TRAINABLE_VARIABLES (or None: all of them),
            a list of regexes over GLOBAL_VARIABLES, or a list of variables.

    Raises:
        ValueError: It is none of those.
    """
    if isinstance(vars_to_warm_start, str) or vars_to_warm_start is None:
        _log.info("Warm-starting variables only in TRAINABLE_VARIABLES.")
        list_of_vars = ops.get_collection(
            ops.GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start
        )
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            list_of_vars = []
            for v in vars_to_warm_start:
                list_of_vars += ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope=v)
        elif all(_is_variable(v) for v in vars_to_warm_start):
            list_of_vars = vars_to_warm_start
        else:
            raise ValueError(
                "If `vars_to_warm_start` is a list, it must be all "
                f"`Variable` or all `str`.  Given types are {[type(v) for v in vars_to_warm_start]}"
            )
    else:
        raise ValueError(
            "`vars_to_warm_start must be a `list` or `str`.  Given "
            f"type is {type(vars_to_warm_start)}"
        )
    # Parts of partitioned variables are grouped under the full name.
    grouped_variables: dict = {}
    for v in list_of_vars:
        t = [v] if not isinstance(v, list) else v
        grouped_variables.setdefault(_infer_var_name(t), []).append(v)
    return grouped_variables


# -- object-based checkpoints ----------------------------------------------------------
_OBJECT_GRAPH_PROTO_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_object_graph_class = None


def _object_graph_message():
    """The fields of TF's `TrackableObjectGraph` that name the checkpoint keys.

    `nodes` (1) -> `attributes` (2) -> `full_name` (2), `checkpoint_key` (3); the
    other fields are kept as unknown fields.
    """
    global _object_graph_class
    if _object_graph_class is None:
        file = descriptor_pb2.FileDescriptorProto(
            name="ferroflow/warm_start/object_graph.proto",
            package="ferroflow.warm_start",
            syntax="proto3",
        )
        fdp = descriptor_pb2.FieldDescriptorProto
        tensor = file.message_type.add(name="SerializedTensor")
        for number, field in enumerate(["name", "full_name", "checkpoint_key"], start=1):
            tensor.field.add(
                name=field, number=number, type=fdp.TYPE_STRING, label=fdp.LABEL_OPTIONAL
            )
        node = file.message_type.add(name="TrackableObject")
        node.field.add(
            name="attributes",
            number=2,
            type=fdp.TYPE_MESSAGE,
            label=fdp.LABEL_REPEATED,
            type_name=".ferroflow.warm_start.SerializedTensor",
        )
        graph = file.message_type.add(name="TrackableObjectGraph")
        graph.field.add(
            name="nodes",
            number=1,
            type=fdp.TYPE_MESSAGE,
            label=fdp.LABEL_REPEATED,
            type_name=".ferroflow.warm_start.TrackableObject",
        )
        pool = descriptor_pool.DescriptorPool()
        pool.Add(file)
        _object_graph_class = message_factory.GetMessageClass(
            pool.FindMessageTypeByName("ferroflow.warm_start.TrackableObjectGraph")
        )
    return _object_graph_class


def _object_graph_key_mapping(checkpoint_path) -> dict:
    """TF's `saver.object_graph_key_mapping`: variable name -> checkpoint key.

    Raises:
        tf.errors.NotFoundError: The checkpoint has no object graph (it is name-based).
        TypeError: `checkpoint_path` is None (a directory without checkpoints).
    """
    if checkpoint_path is None:
        raise TypeError("Expected binary or unicode string, got None")
    reader = checkpoint_utils.NewCheckpointReader(checkpoint_path)
    serialized = reader.get_tensor(_OBJECT_GRAPH_PROTO_KEY)
    if isinstance(serialized, np.ndarray):
        serialized = serialized.item()
    graph = _object_graph_message().FromString(bytes(serialized))
    names_to_keys = {}
    for node in graph.nodes:
        for attribute in node.attributes:
            names_to_keys[attribute.full_name] = attribute.checkpoint_key
    return names_to_keys


def _get_object_checkpoint_renames(path, variable_names) -> dict:
    """Variable name -> checkpoint key for an object-based checkpoint, else `{}`.

    Raises:
        ValueError: The object-based checkpoint lacks some of `variable_names`.
    """
    fname = checkpoint_utils._get_checkpoint_filename(path)
    try:
        names_to_keys = _object_graph_key_mapping(fname)
    except errors.NotFoundError:
        return {}
    missing_names = set(variable_names) - set(names_to_keys.keys())
    if missing_names:
        raise ValueError(
            "Attempting to warm-start from an object-based checkpoint, but found "
            "that the checkpoint did not contain values for all variables. The "
            f"following variables were missing: {missing_names}"
        )
    return {name: names_to_keys[name] for name in variable_names}


# -- restoring --------------------------------------------------------------------------
def warm_start(
    ckpt_to_initialize_from,
    vars_to_warm_start=".*",
    var_name_to_vocab_info=None,
    var_name_to_prev_var_name=None,
):
    """Warm-starts a model from a checkpoint: replaces variables' initializers.

    Call it after the model's variables exist and before running their initializers.

    Args:
        ckpt_to_initialize_from: A checkpoint directory (its latest checkpoint) or a
            checkpoint prefix.
        vars_to_warm_start: What to warm-start: a regex over the TRAINABLE_VARIABLES
            (default `".*"`: all of them); a list of regexes over the GLOBAL_VARIABLES
            (to include e.g. optimizer slots); a list of variables; or None: only the
            trainable variables in `var_name_to_vocab_info`.
        var_name_to_vocab_info: Variable name (of the full variable, not a part) ->
            `tf.train.VocabInfo`, for variables whose vocabulary changed.
        var_name_to_prev_var_name: Variable name -> the tensor's name in the checkpoint,
            where it differs. It only renames; it does not select.

    Raises:
        ValueError: A name in `var_name_to_vocab_info` or `var_name_to_prev_var_name`
            names no selected variable, a tensor is missing from the checkpoint, or
            `vars_to_warm_start` is of the wrong type.
    """
    _log.info("Warm-starting from: %s", ckpt_to_initialize_from)
    grouped_variables = _get_grouped_variables(vars_to_warm_start)
    if var_name_to_vocab_info is None:
        var_name_to_vocab_info = {}
    if not var_name_to_prev_var_name:
        # An object-based checkpoint names its tensors by checkpoint keys.
        var_name_to_prev_var_name = _get_object_checkpoint_renames(
            ckpt_to_initialize_from, grouped_variables.keys()
        )
    warmstarted_count = 0
    # Names given for no selected variable are an error (after the loop).
    prev_var_name_used = set()
    vocab_info_used = set()
    vocabless_vars: dict = {}
    for var_name, variable in grouped_variables.items():
        prev_var_name = var_name_to_prev_var_name.get(var_name)
        if prev_var_name:
            prev_var_name_used.add(var_name)
        vocab_info = var_name_to_vocab_info.get(var_name)
        if vocab_info:
            vocab_info_used.add(var_name)
            warmstarted_count += 1
            _log.debug(
                "Warm-starting variable: %s; current_vocab: %s current_vocab_size: %s "
                "prev_vocab: %s prev_vocab_size: %s current_oov: %s prev_tensor: %s "
                "initializer: %s",
                var_name,
                vocab_info.new_vocab,
                vocab_info.new_vocab_size,
                vocab_info.old_vocab,
                vocab_info.old_vocab_size if vocab_info.old_vocab_size > 0 else "All",
                vocab_info.num_oov_buckets,
                prev_var_name or "Unchanged",
                vocab_info.backup_initializer or "zero-initialized",
            )
            _warm_start_var_with_vocab(
                variable,
                current_vocab_path=vocab_info.new_vocab,
                current_vocab_size=vocab_info.new_vocab_size,
                prev_ckpt=ckpt_to_initialize_from,
                prev_vocab_path=vocab_info.old_vocab,
                previous_vocab_size=vocab_info.old_vocab_size,
                current_oov_buckets=vocab_info.num_oov_buckets,
                prev_tensor_name=prev_var_name,
                initializer=vocab_info.backup_initializer,
                axis=vocab_info.axis,
            )
        elif vars_to_warm_start:
            # (With vars_to_warm_start=None only variables with a vocabulary are.)
            warmstarted_count += 1
            _log.debug(
                "Warm-starting variable: %s; prev_var_name: %s",
                var_name,
                prev_var_name or "Unchanged",
            )
            if len(variable) == 1:
                variable = variable[0]
            prev_tensor_name, var = _get_var_info(variable, prev_var_name)
            if prev_tensor_name in vocabless_vars:
                # One tensor for two variables: one restore map per variable (TF 2.x;
                # TF 1.15 kept only the last of them).
                checkpoint_utils.init_from_checkpoint(ckpt_to_initialize_from, vocabless_vars)
                vocabless_vars.clear()
            vocabless_vars[prev_tensor_name] = var
    if vocabless_vars:
        checkpoint_utils.init_from_checkpoint(ckpt_to_initialize_from, vocabless_vars)
    prev_var_name_not_used = set(var_name_to_prev_var_name.keys()) - prev_var_name_used
    vocab_info_not_used = set(var_name_to_vocab_info.keys()) - vocab_info_used
    _log.info("Warm-started %d variables.", warmstarted_count)
    if prev_var_name_not_used:
        raise ValueError(
            "You provided the following variables in "
            f"var_name_to_prev_var_name that were not used: {prev_var_name_not_used}.  "
            "Perhaps you misspelled them?  Here is the list of viable variable names: "
            f"{grouped_variables.keys()}"
        )
    if vocab_info_not_used:
        raise ValueError(
            "You provided the following variables in "
            f"var_name_to_vocab_info that were not used: {vocab_info_not_used}. "
            " Perhaps you misspelled them?  Here is the list of viable variable "
            f"names: {grouped_variables.keys()}"
        )
