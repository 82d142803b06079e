"""`MetaGraphDef`s: a graph with its collections and a `SaverDef` (TF's meta_graph).

Built here, in the framework, so that both the event writer (`FileWriter(graph=...)`
writes one) and `tf.train.Saver` can make one without the writer importing training.
Collection items serialize themselves (`to_proto`: variables, queue runners, savers),
so this module needs none of their classes.
"""

from __future__ import annotations

import logging

import numpy as np

from .. import _ferroflow
from ..protos import CollectionDef, MetaGraphDef, OpList
from . import op_def_registry, ops

__all__ = ["create_meta_graph_def", "stripped_op_list_for_graph"]

_log = logging.getLogger(__name__)


def _tf_op_defs() -> dict:
    """TensorFlow's OpDefs of the ops ferroflow registers, by name."""
    return op_def_registry._op_defs()


def stripped_op_list_for_graph(graph_def) -> OpList:
    """The OpDefs of the ops `graph_def` uses, sorted by name (as TF's function).

    ferroflow's private ops, which TF lacks, are left out.
    """
    defs = _tf_op_defs()
    used = sorted({node.op for node in graph_def.node})
    return OpList(op=[defs[name] for name in used if name in defs])


def _collection_def(values) -> CollectionDef | None:
    """The `CollectionDef` of one collection, as TF's `add_collection_def` writes it."""
    out = CollectionDef()
    if not values:
        return None
    first = values[0]
    if hasattr(first, "to_proto"):
        protos = [v.to_proto() for v in values]
        if any(p is None for p in protos):
            return None
        out.bytes_list.value.extend(p.SerializeToString() for p in protos)
    elif isinstance(first, ops.Tensor | ops.Operation):
        out.node_list.value.extend(v.name for v in values)
    elif isinstance(first, bool | int | np.integer):
        out.int64_list.value.extend(int(v) for v in values)
    elif isinstance(first, float | np.floating):
        out.float_list.value.extend(float(v) for v in values)
    elif isinstance(first, str | bytes):
        out.bytes_list.value.extend(v.encode() if isinstance(v, str) else v for v in values)
    else:
        return None
    return out


def create_meta_graph_def(
    meta_info_def=None,
    graph_def=None,
    saver_def=None,
    collection_list=None,
    graph=None,
    export_scope=None,
    clear_devices=False,
) -> MetaGraphDef:
    """The `MetaGraphDef` of a graph: its GraphDef, a SaverDef and its collections.

    `tf.train.export_meta_graph` is this plus writing the file.

    Args:
        meta_info_def: A `MetaInfoDef` to use instead of the default.
        graph_def: The `GraphDef` to use instead of the graph's.
        saver_def: The `SaverDef` to include.
        collection_list: The collections to include (default all that can be
            serialized: variables, tensors and ops, queue runners, savers, numbers and
            strings; others are skipped, as TF skips them).
        graph: The graph (default: the default graph).
        export_scope: Only export collection items in this name scope.
        clear_devices: Clear device fields of the nodes.

    Returns:
        The `MetaGraphDef`.
    """
    graph = graph or ops.get_default_graph()
    meta = MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    else:
        # TensorFlow parses `tensorflow_version` as a version number; the writer's
        # name goes in the free-text git version instead.
        meta.meta_info_def.tensorflow_git_version = f"ferroflow {_ferroflow.__version__}"
    if graph_def is None:
        graph_def = graph.as_graph_def(add_shapes=True)
    meta.graph_def.CopyFrom(graph_def)
    if not meta.meta_info_def.HasField("stripped_op_list"):
        meta.meta_info_def.stripped_op_list.CopyFrom(stripped_op_list_for_graph(meta.graph_def))
    if clear_devices:
        for node in meta.graph_def.node:
            node.device = ""
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    keys = collection_list if collection_list is not None else graph.get_all_collection_keys()
    for key in keys:
        values = graph.get_collection(key, scope=export_scope)
        try:
            collection = _collection_def(values)
        except Exception as e:
            _log.warning("Issue encountered when serializing %s: %s", key, e)
            continue
        if collection is not None:
            meta.collection_def[key].CopyFrom(collection)
    return meta
