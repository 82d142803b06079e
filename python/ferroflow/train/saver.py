"""`tf.train.Saver`: checkpoints of a graph's variables, as TF-1.x writes them.

The Saver is TF 1.x's, op for op: it builds `save/Const` (the filename tensor, a
`PlaceholderWithDefault`), `save/SaveV2` and `save/control_dependency` (the save
tensor), `save/RestoreV2`, one `save/Assign*` per variable and `save/restore_all`,
and describes them in a `SaverDef`, so a Supervisor, a hook or a remote session can
run them by name. Saving runs the `SaveV2` op (the V2 tensor bundle, byte-identical
to TensorFlow's, crash-safe: see `ferroflow_io::bundle`), then updates the
`checkpoint` state file, deletes checkpoints beyond `max_to_keep` and writes the
`.meta` file (a `MetaGraphDef`).
"""

from __future__ import annotations

import logging
import os
import time
import uuid

import numpy as np

from .. import errors
from .._compat import zip_strict
from ..framework import constant_op, meta_graph, ops
from ..framework import device as device_lib
from ..framework.session import SessionInterface
from ..ops import array_ops, control_flow_ops, io_ops, state_ops, string_ops
from ..ops.variables import PartitionedVariable, Variable
from ..protos import MetaGraphDef, SaverDef
from . import checkpoint_management

__all__ = [
    "BaseSaverBuilder",
    "Saver",
    "export_meta_graph",
    "import_meta_graph",
    "write_graph",
    "get_checkpoint_mtimes",
    "meta_graph_filename",
    "remove_checkpoint",
]

_log = logging.getLogger(__name__)


# TF 1.x's saver module re-exports these (their home is checkpoint_management).
meta_graph_filename = checkpoint_management.meta_graph_filename
remove_checkpoint = checkpoint_management.remove_checkpoint
get_checkpoint_mtimes = checkpoint_management.get_checkpoint_mtimes


class BaseSaverBuilder:
    """TF's `BaseSaverBuilder`: here only the home of `SaveSpec` and `SaveableObject`.

    A Saver saves variables and *saveable objects*: state that is not a variable
    (an iterator's position), described by the tensors to save and how to restore them.
    """

    class SaveSpec:
        """One tensor a saveable object saves: `tensor` under checkpoint name `name`."""

        def __init__(self, tensor, slice_spec, name, dtype=None, device=None):
            self.tensor = tensor
            self.slice_spec = slice_spec
            self.name = name
            self.dtype = dtype if dtype is not None else tensor.dtype.base_dtype
            # As TF's: the tensor's device unless one is given.
            self.device = device if device is not None else getattr(tensor, "device", "")

    class SaveableObject:
        """State a Saver saves through `specs` and restores with `restore`.

        Subclasses implement `restore(restored_tensors, restored_shapes)`, returning
        the op that restores the state from the tensors read (one per spec).
        """

        def __init__(self, op, specs, name):
            self.op = op
            self.specs = specs
            self.name = name

        @property
        def device(self):
            """The device of the saved tensors (the first spec's, as TF's)."""
            if self.specs:
                return self.specs[0].device
            return getattr(self.op, "device", "")

        def restore(self, restored_tensors, restored_shapes):
            """The op restoring the state from `restored_tensors`."""
            raise NotImplementedError

    class VariableSaveable(SaveableObject):
        """A variable (or the slice `slice_spec` of one) as a saveable object.

        TF's `ReferenceVariableSaveable`; TF's `ResourceVariableSaveable` is the same
        class here (ferroflow's variables are reference variables). Subclass it to
        restore into more than the variable (`restore` returns the assign op).
        """

        def __init__(self, var, slice_spec, name):
            spec = BaseSaverBuilder.SaveSpec(
                var._ref(), slice_spec, name, dtype=var.dtype.base_dtype
            )
            super().__init__(var, [spec], name)

        def restore(self, restored_tensors, restored_shapes):
            """Assigns the restored value (reshaped to `restored_shapes[0]` if given)."""
            value = restored_tensors[0]
            if restored_shapes is not None:
                value = array_ops.reshape(value, restored_shapes[0])
            return state_ops.assign(
                self.op._ref(),
                value,
                validate_shape=restored_shapes is None and self.op.shape.is_fully_defined(),
            )

    ResourceVariableSaveable = VariableSaveable


_SaveableObject = BaseSaverBuilder.SaveableObject


def _on_cpu0(device):
    """`device` with its device part replaced by `CPU:0` (TF's `set_cpu0`)."""
    if not device:
        return ""
    spec = device_lib.DeviceSpec.from_string(device)
    return spec.replace(device_type="CPU", device_index=0).to_string()


def _slices_of(name, parts) -> list[tuple[str, object, str]]:
    """The (name, part, slice spec) of slices saved together as `name`, checked.

    As TF's `saveable_objects_for_op`: the parts must be slices of one tensor, and
    are saved under `name` (a dict key may differ from the slices' full name).
    Saveable objects among them are saved as they are.
    """
    out: list[tuple[str, object, str]] = []
    slice_name = None
    for part in parts:
        if isinstance(part, _SaveableObject):
            out.extend(_specs_of(part))
            continue
        if not isinstance(part, Variable):
            raise ValueError(f"Slices must all be Variables: {part}")
        info = part._get_save_slice_info()
        if info is None:
            raise ValueError(f"Slices must all be slices: {part}")
        if slice_name is None:
            slice_name = info.full_name
        elif slice_name != info.full_name:
            raise ValueError(
                f"Slices must all be from the same tensor: {slice_name} != {info.full_name}"
            )
        out.append((name, part, info.spec))
    return out


def _saveables(var_list) -> list[tuple[str, object, str]]:
    """(checkpoint name, variable, slice spec) sorted by name, as TF's `op_list_to_dict`.

    A part of a partitioned variable is saved as a slice (spec `"10 4 0,5:0,4"`) of the
    full variable's name; a whole variable has the spec `""`.

    Raises:
        ValueError: Two variables have one name, or one variable or saveable object
            is saved under two names.
        TypeError: An entry is not a variable or saveable object.
    """
    named: dict = {}
    if isinstance(var_list, dict):
        for name, v in var_list.items():
            if isinstance(v, _SaveableObject):
                named[name] = _specs_of(v)
            elif isinstance(v, (PartitionedVariable, list, tuple)):
                named[name] = _slices_of(name, list(v))
            elif isinstance(v, Variable):
                named[name] = [(name, v, "")]
            else:
                raise TypeError(
                    "names_to_saveables must be a dict mapping string names to "
                    f"Tensors/Variables. Not a variable: {v}"
                )
    elif isinstance(var_list, (list, tuple, set)):
        for v in sorted(var_list, key=lambda x: x.name):
            if isinstance(v, _SaveableObject):
                named[v.name] = _specs_of(v)
                continue
            if isinstance(v, PartitionedVariable):
                if v.name in named:
                    raise ValueError(f"At least two variables have the same name: {v.name}")
                named[v.name] = _slices_of(v.name, list(v))
                continue
            if not isinstance(v, Variable):
                raise TypeError(f"Variable to save is not a Variable: {v}")
            info = v._get_save_slice_info()
            if info is not None:
                entry = named.setdefault(info.full_name, [])
                if entry and entry[0][2] == "":
                    raise ValueError(
                        f"Mixing slices and non-slices with the same name: {info.full_name}"
                    )
                entry.append((info.full_name, v, info.spec))
            else:
                if v.op.name in named:
                    raise ValueError(f"At least two variables have the same name: {v.op.name}")
                named[v.op.name] = [(v.op.name, v, "")]
    else:
        raise TypeError(f"Variables to save should be passed in a dict or a list: {var_list}")
    # As TF's `_add_saveable`: one variable (or saveable object) is saved once.
    seen: dict[int, str] = {}
    for name in sorted(named):
        for _, v, _ in named[name]:
            obj = v.saveable if isinstance(v, _Spec) else v
            if seen.setdefault(id(obj), name) != name:
                shown = obj.name if isinstance(obj, _SaveableObject) else name
                raise ValueError(f"The same saveable will be restored with two names: {shown}")
    return [item for name in sorted(named) for item in named[name]]


class _Spec:
    """One saved tensor of a saveable object, as `_saveables` lists it."""

    def __init__(self, saveable, spec):
        self.saveable = saveable
        self.spec = spec


def _specs_of(saveable) -> list:
    return [(spec.name, _Spec(saveable, spec), spec.slice_spec) for spec in saveable.specs]


def _saved_tensors(graph, saver_def) -> list:
    """The tensors written by the `SaveV2` ops that `saver_def`'s save tensor runs."""
    seen, stack, tensors = set(), [graph.get_tensor_by_name(saver_def.save_tensor_name).op], []
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.type == "SaveV2":
            tensors.extend(op.inputs[3:])
            continue
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return tensors


def _all_saveable_objects(scope=None):
    return ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope) + ops.get_collection(
        ops.GraphKeys.SAVEABLE_OBJECTS, scope
    )


class Saver:
    """Saves and restores variables (TF-1.x's `tf.train.Saver`).

    Args:
        var_list: The variables to save: None (every global variable and saveable
            object), a list of variables (saved under their op names) or a dict from
            checkpoint names to variables.
        reshape: Restore into variables of another shape with as many elements.
        sharded: Save one shard per device of the saved objects (TF's sharded save).
        max_to_keep: Checkpoints kept; older ones are deleted (0 or None keeps all).
        keep_checkpoint_every_n_hours: Also keep one checkpoint every N hours.
        name: The name scope of the save and restore ops (default `save`).
        restore_sequentially: Accepted (restores run as one op).
        saver_def: Build from this `SaverDef` (of an imported graph) instead.
        builder: Not supported (TF's builders are internal); must be None.
        defer_build: Build the ops later, with `build()`.
        allow_empty: With no variables, save and restore do nothing instead of
            raising `ValueError`.
        write_version: `SaverDef.V2` (TF's tensor bundle) or `SaverDef.V1` (TF's older
            single-file table format, which every reader here also reads).
        pad_step_number: Zero-pad the step in file names (`model-00000012`).
        save_relative_paths: Write paths in the state file relative to its directory.
        filename: The default filename of the filename tensor.

    Raises:
        ValueError: No variables to save, `defer_build` with a `var_list`, or an
            unsupported `write_version`.
    """

    def __init__(
        self,
        var_list=None,
        reshape=False,
        sharded=False,
        max_to_keep=5,
        keep_checkpoint_every_n_hours=10000.0,
        name=None,
        restore_sequentially=False,
        saver_def=None,
        builder=None,
        defer_build=False,
        allow_empty=False,
        write_version=SaverDef.V2,
        pad_step_number=False,
        save_relative_paths=False,
        filename=None,
    ):
        if defer_build and var_list:
            raise ValueError(
                "If `var_list` is provided then build cannot be deferred. "
                "Either set defer_build=False or var_list=None."
            )
        if write_version not in (SaverDef.V1, SaverDef.V2):
            raise ValueError(f"Unsupported write_version: {write_version}")
        if builder is not None:
            raise ValueError("Custom saver builders are not supported; pass builder=None.")
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self.saver_def = saver_def
        self._allow_empty = allow_empty
        self._is_built = False
        self._is_empty = None
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._last_checkpoints = []
        self._checkpoints_to_be_deleted = []
        self._save_relative_paths = save_relative_paths
        self._next_checkpoint_time = None
        if not defer_build:
            self.build()
        if self.saver_def is not None:
            self._check_saver_def()
            self._write_version = self.saver_def.version

    # -- building -------------------------------------------------------------------
    def build(self):
        """Builds the save and restore ops (needed once after `defer_build=True`)."""
        if self._is_built:
            return
        self._is_built = True
        if self.saver_def is None:
            var_list = _all_saveable_objects() if self._var_list is None else self._var_list
            if not var_list:
                if self._allow_empty:
                    self._is_empty = True
                    return
                raise ValueError("No variables to save")
            self._is_empty = False
            self.saver_def = self._build_saver_def(_saveables(var_list))
        else:
            self._is_empty = False
            if self._name:
                # An imported SaverDef: its names live under the import scope.
                saver_def = SaverDef()
                saver_def.CopyFrom(self.saver_def)
                for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                    setattr(
                        saver_def,
                        field,
                        ops.prepend_name_scope(getattr(saver_def, field), self._name),
                    )
                self.saver_def = saver_def
        self._check_saver_def()
        self._next_checkpoint_time = (
            time.time() + self.saver_def.keep_checkpoint_every_n_hours * 3600
        )

    def _build_saver_def(self, saveables) -> SaverDef:
        max_to_keep = self._max_to_keep or 0
        variables = [v for _, v, _ in saveables if not isinstance(v, _Spec)]
        with ops.name_scope(self._name, "save", [v.op for v in variables]) as scope:
            filename = array_ops.placeholder_with_default(
                self._filename or "model", shape=(), name="filename"
            )
            # TF keeps the name "Const" for backwards compatibility.
            filename = array_ops.placeholder_with_default(filename, shape=(), name="Const")
            if self._sharded:
                save_tensor, restore_op = self._sharded_ops(filename, saveables)
            else:
                save_tensor = self._save_op(filename, saveables)
                restore_op = self._restore_op(filename, saveables, "restore_all")
        del scope
        return SaverDef(
            filename_tensor_name=filename.name,
            save_tensor_name=save_tensor.name,
            restore_op_name=restore_op.name,
            max_to_keep=max_to_keep,
            sharded=self._sharded,
            keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours,
            version=self._write_version,
        )

    def _save_op(self, filename, saveables):
        """The tensor that saves `saveables` to `filename` and then is the path saved."""
        names = [name for name, _, _ in saveables]
        slices = [spec for _, _, spec in saveables]
        tensors = [v.spec.tensor if isinstance(v, _Spec) else v._ref() for _, v, _ in saveables]
        if self._write_version == SaverDef.V1:
            save = io_ops.save_slices(filename, names, slices, tensors)
        else:
            save = io_ops.save_v2(filename, names, slices, tensors)
        return control_flow_ops.with_dependencies([save], filename)

    def _restore_op(self, filename, saveables, name):
        """The op restoring `saveables` from `filename` (TF's `_AddRestoreOps`)."""
        # As TF's bulk restore: read on the CPU (merged with the device scopes).
        with ops.device("cpu:0"):
            restored = io_ops.restore_v2(
                filename,
                [n for n, _, _ in saveables],
                [spec for _, _, spec in saveables],
                [
                    v.spec.dtype if isinstance(v, _Spec) else v.dtype.base_dtype
                    for _, v, _ in saveables
                ],
            )
        assigns = []
        by_saveable: dict = {}
        for (_, var, _), value in zip_strict(saveables, restored):
            if isinstance(var, _Spec):
                by_saveable.setdefault(id(var.saveable), (var.saveable, []))[1].append(value)
                continue
            if self._reshape:
                value = array_ops.reshape(value, array_ops.shape(var._ref()))
            assigns.append(
                state_ops.assign(
                    var._ref(),
                    value,
                    validate_shape=not self._reshape and var.shape.is_fully_defined(),
                )
            )
        for saveable, values in by_saveable.values():
            assigns.append(saveable.restore(values, None))
        return control_flow_ops.group(*assigns, name=name)

    def _sharded_ops(self, filename, saveables):
        """TF's sharded save and restore: one shard per device of the saved objects.

        V2: each device's shard is saved under `<filename>_temp_<uuid>/part-NNNNN-of-N`
        and `MergeV2Checkpoints` joins them as `<filename>` (the temporary directory
        removed). V1: each shard is the file `<filename>-NNNNN-of-N`, and the save
        tensor is their pattern (`<filename>-?????-of-N`).
        """
        by_device: dict = {}
        for item in saveables:
            v = item[1]
            dev = v.saveable.device if isinstance(v, _Spec) else v.device
            by_device.setdefault(device_lib.canonical_name(dev or ""), []).append(item)
        groups = sorted(by_device.items(), key=lambda t: t[0])
        num_shards = len(groups)
        num_shards_tensor = constant_op.constant(num_shards, name="num_shards")
        saves, prefixes = [], []
        if self._write_version == SaverDef.V2:
            suffix = constant_op.constant(f"_temp_{uuid.uuid4().hex}/part")
            target = string_ops.string_join([filename, suffix])
        else:
            target = filename
        for shard, (dev, items) in enumerate(groups):
            with ops.device(_on_cpu0(dev)):
                part = io_ops.sharded_filename(target, shard, num_shards_tensor)
                prefixes.append(part)
                saves.append(self._save_op(part, items))
        last = _on_cpu0(groups[-1][0]) if groups else ""
        with ops.control_dependencies([t.op for t in saves]), ops.device(last):
            if self._write_version == SaverDef.V2:
                merge = io_ops.merge_v2_checkpoints(prefixes, filename, delete_old_dirs=True)
                with ops.control_dependencies([merge]):
                    save_tensor = array_ops.identity(filename)
            else:
                save_tensor = io_ops.sharded_filespec(filename, num_shards_tensor)
        restores = []
        for dev, items in groups:
            with ops.device(dev):
                restores.append(self._restore_op(filename, items, "restore_shard"))
        return save_tensor, control_flow_ops.group(*restores, name="restore_all")

    def _check_saver_def(self):
        if not isinstance(self.saver_def, SaverDef):
            raise ValueError(f"saver_def must be a saver_pb2.SaverDef: {self.saver_def}")
        if not self.saver_def.save_tensor_name:
            raise ValueError(f"saver_def must specify the save_tensor_name: {self.saver_def}")
        if not self.saver_def.restore_op_name:
            raise ValueError(f"saver_def must specify the restore_op_name: {self.saver_def}")

    def as_saver_def(self) -> SaverDef:
        """The `SaverDef` naming this saver's filename tensor, save tensor and restore op."""
        return self.saver_def

    def to_proto(self, export_scope=None) -> SaverDef | None:
        """The `SaverDef` (for the `savers` collection of a meta graph)."""
        if export_scope is None:
            return self.saver_def
        if not (
            self.saver_def.filename_tensor_name.startswith(export_scope)
            and self.saver_def.save_tensor_name.startswith(export_scope)
            and self.saver_def.restore_op_name.startswith(export_scope)
        ):
            return None
        out = SaverDef()
        out.CopyFrom(self.saver_def)
        for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
            setattr(out, field, ops.strip_name_scope(getattr(out, field), export_scope))
        return out

    @staticmethod
    def from_proto(saver_def, import_scope=None) -> Saver:
        """A Saver over the ops a `SaverDef` names (in the default graph)."""
        return Saver(saver_def=saver_def, name=import_scope)

    # -- the list of kept checkpoints ------------------------------------------------
    @property
    def last_checkpoints(self) -> list[str]:
        """The kept checkpoints' prefixes, oldest first."""
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        """Replaces the list of kept checkpoints (they count as never expiring)."""
        assert isinstance(last_checkpoints, list)
        self._last_checkpoints = [(s, np.inf) for s in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        """Replaces the list of kept checkpoints with (prefix, save time) pairs."""
        assert isinstance(last_checkpoints_with_time, list)
        self._last_checkpoints = last_checkpoints_with_time

    def recover_last_checkpoints(self, checkpoint_paths):
        """Takes over the checkpoints of a crashed saver (those that still exist)."""
        with_times = []
        for path in checkpoint_paths:
            mtime = get_checkpoint_mtimes([path])
            if mtime:
                with_times.append((path, mtime[0]))
        self.set_last_checkpoints_with_time(with_times)

    def _record_last_checkpoint(self, latest_save_path):
        if not self.saver_def.max_to_keep:
            return
        self._last_checkpoints = [p for p in self._last_checkpoints if p[0] != latest_save_path]
        self._last_checkpoints.append((latest_save_path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix="meta"):
        if not self._checkpoints_to_be_deleted:
            return
        path, saved_at = self._checkpoints_to_be_deleted.pop(0)
        # Keep one checkpoint every keep_checkpoint_every_n_hours.
        if saved_at > self._next_checkpoint_time:
            self._next_checkpoint_time += self.saver_def.keep_checkpoint_every_n_hours * 3600
            return
        try:
            remove_checkpoint(path, self.saver_def.version, meta_graph_suffix)
        except OSError as e:
            _log.warning("Ignoring: %s", e)

    # -- saving and restoring --------------------------------------------------------
    def save(
        self,
        sess,
        save_path,
        global_step=None,
        latest_filename=None,
        meta_graph_suffix="meta",
        write_meta_graph=True,
        write_state=True,
        strip_default_attrs=False,
        save_debug_info=False,
    ):
        """Saves the variables to `save_path[-global_step]`; returns the prefix written.

        Args:
            sess: The session holding the variables' values.
            save_path: The checkpoint prefix (its directory is created if missing).
            global_step: An int, or a tensor/variable holding the step, appended to
                the prefix (`model.ckpt-1000`).
            latest_filename: The state file's name (default `checkpoint`).
            meta_graph_suffix: The suffix of the meta graph file.
            write_meta_graph: Also write `<prefix>.meta`.
            write_state: Update the state file and delete checkpoints beyond
                `max_to_keep`.
            strip_default_attrs: Write the meta graph without the node attributes
                that equal their op's default.
            save_debug_info: Accepted (no debug info is written).

        Returns:
            The checkpoint prefix, or None when there was nothing to save.

        Raises:
            RuntimeError: `defer_build` was set and `build()` was not called.
            TypeError: `sess` is not a Session.
            ValueError: `latest_filename` has a directory or collides with the prefix,
                or the parent directory cannot be created.
        """
        del save_debug_info
        return self._save_values(
            sess,
            None,
            save_path,
            global_step,
            latest_filename,
            meta_graph_suffix,
            write_meta_graph,
            write_state,
            strip_default_attrs,
        )

    def _check_built(self):
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")

    def _snapshot(self, sess) -> dict:
        """The values `save` writes, as they are now, held in Rust.

        A feed dict from each tensor the save op writes to a `TensorHandle` sharing
        its buffer: nothing is copied here, and a variable updated in place later
        copies its own buffer first, so the snapshot stays as it was. Pass it to
        `_save_values` (on any thread) to write it.
        """
        self._check_built()
        if self._is_empty:
            return {}
        tensors = _saved_tensors(sess.graph, self.saver_def)
        return dict(zip_strict(tensors, sess._run_to_handles(tensors)))

    def _save_values(
        self,
        sess,
        snapshot,
        save_path,
        global_step=None,
        latest_filename=None,
        meta_graph_suffix="meta",
        write_meta_graph=True,
        write_state=True,
        strip_default_attrs=False,
    ):
        """`save`, writing `snapshot` (from `_snapshot`) instead of the current values."""
        self._check_built()
        if latest_filename is None:
            latest_filename = "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = os.fsdecode(save_path)
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = int(sess.run(global_step))
            if self._pad_step_number:
                checkpoint_file = f"{save_path}-{global_step:08d}"
            else:
                checkpoint_file = f"{save_path}-{int(global_step)}"
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError(
                    f"'latest_filename' collides with 'save_path': "
                    f"'{latest_filename}' and '{save_path}'"
                )
        if not isinstance(sess, SessionInterface):
            raise TypeError(f"'sess' must be a Session; {sess}")
        save_path_parent = os.path.dirname(save_path)
        model_checkpoint_path = None
        if not self._is_empty:
            try:
                feeds = {self.saver_def.filename_tensor_name: checkpoint_file}
                if snapshot:
                    feeds.update(snapshot)
                model_checkpoint_path = sess.run(self.saver_def.save_tensor_name, feeds)
            except (errors.FailedPreconditionError, errors.NotFoundError) as exc:
                if not os.path.isdir(save_path_parent or "."):
                    raise ValueError(
                        f"Parent directory of {save_path} doesn't exist, can't save."
                    ) from exc
                raise
            model_checkpoint_path = os.fsdecode(model_checkpoint_path)
            if write_state:
                self._record_last_checkpoint(model_checkpoint_path)
                checkpoint_management.update_checkpoint_state(
                    save_path_parent,
                    model_checkpoint_path,
                    all_model_checkpoint_paths=self.last_checkpoints,
                    latest_filename=latest_filename,
                    save_relative_paths=self._save_relative_paths,
                )
                self._maybe_delete_old_checkpoints(meta_graph_suffix=meta_graph_suffix)
        if write_meta_graph:
            with sess.graph.as_default():
                self.export_meta_graph(
                    meta_graph_filename(checkpoint_file, meta_graph_suffix),
                    strip_default_attrs=strip_default_attrs,
                )
        return model_checkpoint_path

    def restore(self, sess, save_path):
        """Restores the variables from the checkpoint `save_path`.

        Raises:
            ValueError: `save_path` is None or no checkpoint is there.
            tf.errors.NotFoundError: A variable is missing from the checkpoint.
            tf.errors.InvalidArgumentError: A dtype or shape differs.
        """
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        prefix = os.fsdecode(save_path)
        if not checkpoint_management.checkpoint_exists(prefix):
            raise ValueError("The passed save_path is not a valid checkpoint: " + prefix)
        _log.info("Restoring parameters from %s", prefix)
        try:
            sess.run(self.saver_def.restore_op_name, {self.saver_def.filename_tensor_name: prefix})
        except errors.NotFoundError as err:
            raise _wrap_restore_error(
                err, "a Variable name or other graph key that is missing"
            ) from err
        except errors.InvalidArgumentError as err:
            raise _wrap_restore_error(
                err, "a mismatch between the current graph and the graph"
            ) from err

    def export_meta_graph(
        self,
        filename=None,
        collection_list=None,
        as_text=False,
        export_scope=None,
        clear_devices=False,
        clear_extraneous_savers=False,
        strip_default_attrs=False,
        save_debug_info=False,
    ):
        """The default graph's `MetaGraphDef` with this saver's `SaverDef`.

        Written to `filename` when one is given; see the module's `export_meta_graph`.
        """
        return export_meta_graph(
            filename=filename,
            graph_def=ops.get_default_graph().as_graph_def(add_shapes=True),
            saver_def=self.saver_def,
            collection_list=collection_list,
            as_text=as_text,
            export_scope=export_scope,
            clear_devices=clear_devices,
            clear_extraneous_savers=clear_extraneous_savers,
            strip_default_attrs=strip_default_attrs,
            save_debug_info=save_debug_info,
        )

    @staticmethod
    def _add_collection_def(meta_graph_def, key, export_scope=None):
        """Adds collection `key` of the default graph to `meta_graph_def` (TF's)."""
        meta_graph.add_collection_def(meta_graph_def, key, export_scope=export_scope)


def _wrap_restore_error(err, extra_verbiage):
    message = (
        f"Restoring from checkpoint failed. This is most likely due to {extra_verbiage} "
        "from the checkpoint. Please ensure that you have not altered the graph expected "
        f"based on the checkpoint. Original error:\n\n{err.message}"
    )
    return type(err)(err.node_def, err.op, message)


def export_meta_graph(
    filename=None,
    meta_info_def=None,
    graph_def=None,
    saver_def=None,
    collection_list=None,
    as_text=False,
    graph=None,
    export_scope=None,
    clear_devices=False,
    clear_extraneous_savers=False,
    strip_default_attrs=False,
    save_debug_info=False,
    **kwargs,
):
    """The `MetaGraphDef` of a graph: its GraphDef, a SaverDef and its collections.

    Args:
        filename: Where to write it (binary, or text with `as_text`); None writes nothing.
        meta_info_def: A `MetaInfoDef` to use instead of the default.
        graph_def: The `GraphDef` to use instead of the graph's.
        saver_def: The `SaverDef` to include.
        collection_list: The collections to include (default all that can be
            serialized: variables, queue runners and savers as protos, numbers,
            strings and graph elements; others are skipped, as TF skips them).
        as_text: Write the text format.
        graph: The graph (default: the default graph).
        export_scope: Only export the nodes and collection items in this name scope
            (see `tf.compat.v1.train.export_meta_graph`).
        clear_devices: Clear device fields of the nodes.
        clear_extraneous_savers: Leave out the nodes and `SaverDef`s of every saver
            but `saver_def`'s.
        strip_default_attrs: Remove node attributes equal to their op's default.
        save_debug_info: Accepted (no debug info is written).
        **kwargs: TF's other options, accepted and ignored.

    Returns:
        The `MetaGraphDef`.
    """
    del kwargs
    meta, _ = meta_graph.export_scoped_meta_graph(
        filename=filename,
        meta_info_def=meta_info_def,
        graph_def=graph_def,
        saver_def=saver_def,
        collection_list=collection_list,
        as_text=as_text,
        graph=graph,
        export_scope=export_scope,
        clear_devices=clear_devices,
        clear_extraneous_savers=clear_extraneous_savers,
        strip_default_attrs=strip_default_attrs,
        save_debug_info=save_debug_info,
    )
    return meta


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a graph's `GraphDef` to `logdir/name` (text format, or binary).

    The directory is created if missing; the file is written atomically.

    Returns:
        The path written.
    """
    graph_def = graph_or_graph_def
    if isinstance(graph_or_graph_def, ops.Graph):
        graph_def = graph_or_graph_def.as_graph_def()
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    data = str(graph_def).encode() if as_text else graph_def.SerializeToString()
    checkpoint_management._atomic_write_bytes(path, data)
    return path


def _saver_to_proto(saver, export_scope=None):
    return saver.to_proto(export_scope=export_scope)


def _saver_from_proto(saver_def, import_scope=None):
    return Saver.from_proto(saver_def, import_scope=import_scope)


meta_graph.register_proto_function(
    ops.GraphKeys.SAVERS,
    proto_type=SaverDef,
    to_proto=_saver_to_proto,
    from_proto=_saver_from_proto,
)


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Rebuilds a graph saved by `export_meta_graph` (or a `Saver`) in the default graph.

    Imports the `GraphDef`, restores the collections (variables, trainable variables,
    the global step, queue runners, train ops, summaries, ...) and returns a `Saver`
    built from the meta graph's `SaverDef`, so training resumes from a `.meta` file and
    a checkpoint alone.

    Args:
        meta_graph_or_file: A `MetaGraphDef` or the path of a `.meta` file (binary or
            text).
        clear_devices: Drop the nodes' device placements.
        import_scope: A name scope to import under (default: the current one).
        **kwargs: `graph`, `input_map`, `return_elements`, `unbound_inputs_col_name`
            and `restore_collections_predicate`, as `import_scoped_meta_graph` takes.

    Returns:
        The `Saver`, or None when the meta graph has no `SaverDef` and there are no
        variables (under `import_scope`) to save.

    Raises:
        IOError: The file does not exist or cannot be parsed.
    """
    return _import_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices, import_scope, **kwargs
    )[0]


def _import_meta_graph_with_return_elements(
    meta_graph_or_file, clear_devices=False, import_scope=None, return_elements=None, **kwargs
):
    if isinstance(meta_graph_or_file, MetaGraphDef):
        meta = meta_graph_or_file
    else:
        meta = meta_graph.read_meta_graph_file(meta_graph_or_file)
    imported_vars, returned = meta_graph.import_scoped_meta_graph_with_return_elements(
        meta,
        clear_devices=clear_devices,
        import_scope=import_scope,
        return_elements=return_elements,
        **kwargs,
    )
    return _create_saver_from_imported_meta_graph(meta, import_scope, imported_vars), returned


def _create_saver_from_imported_meta_graph(meta, import_scope, imported_vars):
    """The Saver of an imported meta graph, under the scope it was imported into."""
    if meta.HasField("saver_def"):
        # The scope the import prepended: a variable's name less its name in the file.
        scope = import_scope
        if imported_vars:
            key, var = next(iter(imported_vars.items()))
            scope = var.name[: -len(key)]
        return Saver(saver_def=meta.saver_def, name=scope)
    if _all_saveable_objects(scope=import_scope):
        return Saver()
    _log.info("Saver not created because there are no variables in the graph to restore")
    return None
