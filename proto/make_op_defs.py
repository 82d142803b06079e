"""Writes `python/ferroflow/framework/tf_op_defs.binpb`: TensorFlow's `OpDef`s of the
ops ferroflow registers, as one serialized `OpList`.

A meta graph's `meta_info_def.stripped_op_list` holds the OpDef of every op its graph
uses, exactly as TensorFlow's registry defines them; ferroflow does not carry OpDefs
in its op registry, so it ships TF's (Apache-2.0) and picks from them
(`train/saver.py`). Ops TF does not have (ferroflow's private helpers) are left out.
Rerun after registering new ops (needs TensorFlow installed):

    python proto/make_op_defs.py
"""

import os

import tensorflow as tf  # noqa: F401 - registers TF's ops
from tensorflow.core.framework import op_def_pb2
from tensorflow.python.framework import op_def_registry

import ferroflow

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "python", "ferroflow", "framework", "tf_op_defs.binpb")


def main():
    ops = op_def_pb2.OpList()
    missing = []
    for name in sorted(ferroflow._ferroflow.op_names()):
        op_def = op_def_registry.get(name)
        if op_def is None:
            missing.append(name)
        else:
            ops.op.add().CopyFrom(op_def)
    with open(OUT, "wb") as f:
        f.write(ops.SerializeToString())
    print(f"{len(ops.op)} OpDefs written to {OUT}; not in TensorFlow: {missing}")


if __name__ == "__main__":
    main()
