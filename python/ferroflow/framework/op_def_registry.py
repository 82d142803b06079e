"""TensorFlow's `OpDef`s of the ops ferroflow registers (TF's `op_def_registry`).

They ship with the package as `framework/tf_op_defs.binpb` (written by
`proto/make_op_defs.py`) and are read once, on first use: the meta graph's
stripped op list and the graph's colocation of reference inputs use them.
"""

from __future__ import annotations

import os
import threading

from ..protos import OpList

__all__ = ["get", "ref_input_flags"]

_OP_DEFS: dict | None = None
_REF_FLAGS: dict[str, tuple[bool, ...]] = {}
_lock = threading.Lock()


def _op_defs() -> dict:
    """All the OpDefs, by op name."""
    global _OP_DEFS
    if _OP_DEFS is None:
        with _lock:
            if _OP_DEFS is None:
                path = os.path.join(os.path.dirname(__file__), "tf_op_defs.binpb")
                op_list = OpList()
                with open(path, "rb") as f:
                    op_list.ParseFromString(f.read())
                _OP_DEFS = {op.name: op for op in op_list.op}
    return _OP_DEFS


def get(name):
    """The `OpDef` of op `name`, or None when TF has no such op (ferroflow's own)."""
    return _op_defs().get(name)


def ref_input_flags(name) -> tuple[bool, ...]:
    """Per input of op `name`, whether its OpDef takes it by reference (`is_ref`).

    Empty for an op without reference inputs, and for one TF does not define.
    Every TF op with a reference input takes single tensors before any list, so
    the flags line up with the op's inputs.
    """
    flags = _REF_FLAGS.get(name)
    if flags is None:
        op_def = get(name)
        flags = ()
        if op_def is not None and any(arg.is_ref for arg in op_def.input_arg):
            flags = tuple(bool(arg.is_ref) for arg in op_def.input_arg)
        _REF_FLAGS[name] = flags
    return flags
