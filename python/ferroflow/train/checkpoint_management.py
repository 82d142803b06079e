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

from google.protobuf import text_format

from .. import _ferroflow
from ..protos import CheckpointState

__all__ = [
    "checkpoint_exists",
    "generate_checkpoint_state_proto",
    "get_checkpoint_state",
    "latest_checkpoint",
    "update_checkpoint_state",
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
    paths = list(all_model_checkpoint_paths or [])
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
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
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
    state_path = _state_path(save_dir, latest_filename)
    paths = list(all_model_checkpoint_paths or [])
    if save_relative_paths:

        def rel(p):
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p

        model_checkpoint_path, paths = rel(model_checkpoint_path), [rel(p) for p in paths]
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
