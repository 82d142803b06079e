"""The `checkpoint` state file: which checkpoints exist and which is the latest.

`update_checkpoint_state` writes the text-format `CheckpointState` exactly as
TensorFlow does (field order, escaping, one line per path) through a temporary
file renamed into place, so a reader never sees half a file;
`get_checkpoint_state` and `latest_checkpoint` read it (TensorFlow's files too),
turning relative paths into paths under the checkpoint directory.
"""

from __future__ import annotations

import glob
import logging
import os
import re

from google.protobuf import text_format

from .. import _ferroflow
from ..protos import CheckpointState, SaverDef

__all__ = [
    "checkpoint_exists",
    "generate_checkpoint_state_proto",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "latest_checkpoint",
    "meta_graph_filename",
    "remove_checkpoint",
    "update_checkpoint_state",
    "update_checkpoint_state_internal",
]

_log = logging.getLogger(__name__)


def _state_path(save_dir, latest_filename=None) -> str:
    return os.path.join(save_dir, latest_filename or "checkpoint")


def generate_checkpoint_state_proto(
    save_dir,
    model_checkpoint_path,
    all_model_checkpoint_paths=None,
    all_model_checkpoint_timestamps=None,
    last_preserved_timestamp=None,
):
    """A `CheckpointState` whose last path is `model_checkpoint_path`.

    As TensorFlow's, a list passed as `all_model_checkpoint_paths` is updated in place
    (the latest path appended, relative paths rewritten).

    Args:
        save_dir: The directory the checkpoints are in.
        model_checkpoint_path: The latest checkpoint's prefix.
        all_model_checkpoint_paths: The kept checkpoints, oldest to newest; the
            latest is appended if it is not last.
        all_model_checkpoint_timestamps: Optional save times, one per path.
        last_preserved_timestamp: Optional time of the last preserved checkpoint.

    Returns:
        The `CheckpointState`; with a relative `save_dir`, relative paths are made
        relative to it.

    Raises:
        ValueError: The timestamps do not match the paths in number.
    """
    paths = all_model_checkpoint_paths if all_model_checkpoint_paths is not None else []
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError(
            "Checkpoint timestamps, if provided, must match checkpoint paths (got "
            f"paths {paths} and timestamps {all_model_checkpoint_timestamps})"
        )
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        for i, p in enumerate(paths):
            if not os.path.isabs(p):
                paths[i] = os.path.relpath(p, save_dir)
    return CheckpointState(
        model_checkpoint_path=model_checkpoint_path,
        all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp,
    )


def _atomic_write(path: str, text: str) -> None:
    """Writes `text` to `path` durably, so a crash leaves the old file or the new one.

    A synced temporary file is renamed into place and the directory synced. OS errors
    raise TF's classes (`NotFoundError`, `FailedPreconditionError`, ...).
    """
    _ferroflow.write_file_atomically(path, text.encode("utf-8"))


def _atomic_write_bytes(path: str, data: bytes) -> None:
    """Writes `data` to `path` durably (see `_atomic_write`)."""
    _ferroflow.write_file_atomically(path, data)


def update_checkpoint_state(
    save_dir,
    model_checkpoint_path,
    all_model_checkpoint_paths=None,
    latest_filename=None,
    all_model_checkpoint_timestamps=None,
    last_preserved_timestamp=None,
    save_relative_paths=False,
) -> None:
    """Writes the state file `save_dir/latest_filename` (default `checkpoint`).

    Args:
        save_dir: The directory of the checkpoints and the state file.
        model_checkpoint_path: The latest checkpoint's prefix.
        all_model_checkpoint_paths: The kept checkpoints, oldest to newest.
        latest_filename: The state file's name (default `checkpoint`).
        all_model_checkpoint_timestamps: Optional save times, one per path.
        last_preserved_timestamp: Optional time of the last preserved checkpoint.
        save_relative_paths: Write absolute paths relative to `save_dir`.

    Raises:
        RuntimeError: The checkpoint path is the state file's path.
        tf.errors.OpError: The file cannot be written (`NotFoundError` for a missing
            directory, `FailedPreconditionError` where `checkpoint` is a directory,
            `ResourceExhaustedError` for a full disk, as TensorFlow).
    """
    update_checkpoint_state_internal(
        save_dir,
        model_checkpoint_path,
        all_model_checkpoint_paths=all_model_checkpoint_paths,
        latest_filename=latest_filename,
        save_relative_paths=save_relative_paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp,
    )


def update_checkpoint_state_internal(
    save_dir,
    model_checkpoint_path,
    all_model_checkpoint_paths=None,
    latest_filename=None,
    save_relative_paths=False,
    all_model_checkpoint_timestamps=None,
    last_preserved_timestamp=None,
) -> None:
    """`update_checkpoint_state` with TF's internal argument order (the Saver's)."""
    state_path = _state_path(save_dir, latest_filename)
    paths = all_model_checkpoint_paths
    if save_relative_paths:

        def rel(p):
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p

        model_checkpoint_path, paths = rel(model_checkpoint_path), [rel(p) for p in paths or []]
    state = generate_checkpoint_state_proto(
        save_dir,
        model_checkpoint_path,
        all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp,
    )
    if state_path == state.model_checkpoint_path:
        raise RuntimeError(
            f"Save path '{model_checkpoint_path}' conflicts with path used for "
            "checkpoint state.  Please use a different save path."
        )
    _atomic_write(state_path, text_format.MessageToString(state))


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The `CheckpointState` in `checkpoint_dir`, or None if there is none.

    A file that cannot be parsed also gives None (with a warning). Relative paths
    come back joined onto `checkpoint_dir`.

    Raises:
        ValueError: The file names no latest checkpoint.
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = _state_path(checkpoint_dir, latest_filename)
    if not os.path.isfile(path):
        return None
    state = CheckpointState()
    try:
        with open(path, encoding="utf-8") as f:
            text_format.Merge(f.read(), state)
    except (OSError, text_format.ParseError) as e:
        _log.warning("%s: %s; checkpoint state ignored", path, e)
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


def meta_graph_filename(checkpoint_filename, meta_graph_suffix="meta") -> str:
    """The `.meta` file of a checkpoint (`model.ckpt-3` -> `model.ckpt-3.meta`).

    A sharded V1 name loses its shard part (`model-?????-of-00002` -> `model.meta`).
    """
    basename = re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_filename)
    return ".".join([basename, meta_graph_suffix])


def _delete_file_if_exists(pattern):
    for name in glob.glob(pattern):
        try:
            os.remove(name)
        except FileNotFoundError:
            pass


def remove_checkpoint(
    checkpoint_prefix, checkpoint_format_version=SaverDef.V2, meta_graph_suffix="meta"
):
    """Removes a checkpoint's files: the `.meta` file, the `.index` and data files.

    A V1 checkpoint's files are those matching the prefix (a pattern when sharded).
    """
    _delete_file_if_exists(meta_graph_filename(checkpoint_prefix, meta_graph_suffix))
    if checkpoint_format_version == SaverDef.V2:
        _delete_file_if_exists(checkpoint_prefix + ".index")
        _delete_file_if_exists(checkpoint_prefix + ".data-?????-of-?????")
    else:
        _delete_file_if_exists(checkpoint_prefix)


def get_checkpoint_mtimes(checkpoint_prefixes) -> list[float]:
    """The modification times (seconds) of the given checkpoints that exist.

    A V2 checkpoint's time is its `.index` file's; missing checkpoints are skipped.
    """
    mtimes = []
    for prefix in checkpoint_prefixes:
        for pattern in (prefix + ".index", prefix):
            names = glob.glob(pattern)
            if names:
                mtimes.append(os.stat(names[0]).st_mtime_ns / 1e9)
                break
    return mtimes


def checkpoint_exists(checkpoint_prefix) -> bool:
    """Whether a checkpoint with this prefix exists (its V2 `.index` file, or V1 file)."""
    return bool(glob.glob(checkpoint_prefix + ".index") or glob.glob(checkpoint_prefix))


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The latest checkpoint's prefix in `checkpoint_dir`, or None if its files are gone."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        if checkpoint_exists(state.model_checkpoint_path):
            return state.model_checkpoint_path
        _log.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None
