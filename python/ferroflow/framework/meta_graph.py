"""`MetaGraphDef`s: a graph with its collections and a `SaverDef` (TF's meta_graph).

Built here, in the framework, so that both the event writer (`FileWriter(graph=...)`
writes one) and `tf.train.Saver` can make one without the writer importing training.

Collections serialize as TensorFlow's do: a collection registered with
`register_proto_function` (variables, queue runners, savers) holds protos
(`bytes_list`); any other holds strings, integers, floats or graph element names,
by the type of its first item. `export_scoped_meta_graph` and
`import_scoped_meta_graph` export the subgraph under a name scope and import it under
another (inputs from outside the scope become `$unbound_inputs_<name>`, remapped
through `input_map` on import); `copy_scoped_meta_graph` does both.
"""

from __future__ import annotations

import logging
import os

import numpy as np
from google.protobuf import text_format

from .. import _ferroflow
from ..protos import AttrValue, GraphDef, MetaGraphDef, OpList
from . import op_def_registry, ops

__all__ = [
    "add_collection_def",
    "copy_scoped_meta_graph",
    "create_meta_graph_def",
    "export_scoped_meta_graph",
    "get_collection_proto_type",
    "get_from_proto_function",
    "get_to_proto_function",
    "import_scoped_meta_graph",
    "import_scoped_meta_graph_with_return_elements",
    "read_meta_graph_file",
    "register_proto_function",
    "strip_graph_default_valued_attrs",
    "stripped_op_list_for_graph",
]

_log = logging.getLogger(__name__)

# The prefix of the names of inputs from outside an exported scope.
_UNBOUND_INPUT_PREFIX = "$unbound_inputs_"

# The ops a Saver builds, by which `clear_extraneous_savers` finds other savers.
SAVE_AND_RESTORE_OPS = (
    "SaveV2",
    "Save",
    "SaveSlices",
    "LegacySave",
    "LegacySaveSlice",
    "RestoreV2",
    "Restore",
    "RestoreSlice",
    "LegacyRestore",
    "LegacyRestoreSlice",
)

# Collection key -> (proto type, to_proto, from_proto): TF's proto-function registry.
_PROTO_FUNCTIONS: dict[str, tuple] = {}


def register_proto_function(collection_name, proto_type=None, to_proto=None, from_proto=None):
    """Registers how the items of collection `collection_name` become protos and back.

    `to_proto(item, export_scope=None)` returns a `proto_type` (or None to leave the
    item out); `from_proto(proto, import_scope=None)` rebuilds the item.
    """
    if to_proto and not callable(to_proto):
        raise TypeError("to_proto must be callable.")
    if from_proto and not callable(from_proto):
        raise TypeError("from_proto must be callable.")
    _PROTO_FUNCTIONS[collection_name] = (proto_type, to_proto, from_proto)


def get_collection_proto_type(collection_name):
    """The proto type of a registered collection's items, or None."""
    return _PROTO_FUNCTIONS.get(collection_name, (None, None, None))[0]


def get_to_proto_function(collection_name):
    """The `to_proto` function of a registered collection, or None."""
    return _PROTO_FUNCTIONS.get(collection_name, (None, None, None))[1]


def get_from_proto_function(collection_name):
    """The `from_proto` function of a registered collection, or None."""
    return _PROTO_FUNCTIONS.get(collection_name, (None, None, None))[2]


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


def _kind_of(item) -> str:
    """The `CollectionDef` field for a collection whose first item is `item`."""
    if isinstance(item, (str, bytes)):
        return "bytes_list"
    if isinstance(item, (int, np.integer)):
        return "int64_list"
    if isinstance(item, (float, np.floating)):
        return "float_list"
    return "node_list"


def _item_name(item):
    if isinstance(item, str):
        return item
    return getattr(item, "name", None)


def _should_include_node(node_or_node_name, export_scope, exclude_nodes) -> bool:
    """Whether a node (or collection item) belongs to the export.

    Items without a name are kept; names in `exclude_nodes` are not; otherwise what is
    in `export_scope` (by name prefix, as TF) or an unbound input.
    """
    node_name = _item_name(node_or_node_name)
    if node_name is None:
        return True
    if exclude_nodes and node_name in exclude_nodes:
        return False
    return node_name.startswith(_UNBOUND_INPUT_PREFIX) or (
        not export_scope or node_name.startswith(export_scope)
    )


def add_collection_def(
    meta_graph_def,
    key,
    graph=None,
    export_scope=None,
    exclude_nodes=None,
    override_contents=None,
) -> None:
    """Adds collection `key` of `graph` to `meta_graph_def` (TF's `add_collection_def`).

    A collection that cannot be serialized (a key that is not a string, items of
    mixed or unsupported types) is left out, with a warning, as TF leaves it out.

    Args:
        meta_graph_def: The `MetaGraphDef` to add to.
        key: The collection's name.
        graph: The graph (default: the default graph).
        export_scope: Keep only items in this name scope, and strip it from names.
        exclude_nodes: Names of nodes whose items to leave out.
        override_contents: Items to write instead of the collection's.
    """
    if graph is not None and not isinstance(graph, ops.Graph):
        raise TypeError(f"graph must be of type Graph, not {type(graph)}")
    if not isinstance(key, (str, bytes)):
        _log.warning(
            "Only collections with string type keys will be serialized. This key has %s",
            type(key),
        )
        return
    graph = graph or ops.get_default_graph()
    items = override_contents if override_contents else graph.get_collection(key)
    items = [x for x in items if _should_include_node(x, export_scope, exclude_nodes)]
    if not items:
        return
    try:
        col_def = meta_graph_def.collection_def[key]
        to_proto = get_to_proto_function(key)
        if to_proto:
            for x in items:
                proto = to_proto(x, export_scope=export_scope)
                if proto:
                    col_def.bytes_list.value.append(proto.SerializeToString())
            return
        kind = _kind_of(items[0])
        if kind == "node_list":
            for x in items:
                if not export_scope or x.name.startswith(export_scope):
                    col_def.node_list.value.append(ops.strip_name_scope(x.name, export_scope))
        elif kind == "bytes_list":
            col_def.bytes_list.value.extend(
                x.encode("utf-8") if isinstance(x, str) else x for x in items
            )
        elif kind == "int64_list":
            # Not `int(x)`: a float among integers fails, as in TF.
            col_def.int64_list.value.extend(
                x.item() if isinstance(x, np.integer) else x for x in items
            )
        else:
            col_def.float_list.value.extend(
                x.item() if isinstance(x, np.floating) else x for x in items
            )
    except Exception as e:
        _log.warning(
            "Issue encountered when serializing %s.\nType is unsupported, or the types of "
            "the items don't match field type in CollectionDef. Note this is a warning and "
            "probably safe to ignore.\n%s",
            key,
            e,
        )
        if key in meta_graph_def.collection_def:
            del meta_graph_def.collection_def[key]


def _is_default_attr_value(op_def, attr_name, attr_value) -> bool:
    for attr_def in op_def.attr:
        if attr_def.name == attr_name:
            if not attr_def.HasField("default_value"):
                return False
            return AttrValue.FromString(attr_def.default_value.SerializeToString()) == attr_value
    return False


def strip_graph_default_valued_attrs(meta_graph_def) -> None:
    """Removes node attributes equal to their op's default; sets `stripped_default_attrs`.

    Nodes of ops TF does not define (ferroflow's own) keep every attribute.
    """
    for node_def in meta_graph_def.graph_def.node:
        op_def = op_def_registry.get(node_def.op)
        if op_def is None:
            continue
        for name in [n for n, v in node_def.attr.items() if _is_default_attr_value(op_def, n, v)]:
            del node_def.attr[name]
    meta_graph_def.meta_info_def.stripped_default_attrs = True


def create_meta_graph_def(
    meta_info_def=None,
    graph_def=None,
    saver_def=None,
    collection_list=None,
    graph=None,
    export_scope=None,
    exclude_nodes=None,
    clear_extraneous_savers=False,
    strip_default_attrs=False,
    clear_devices=False,
) -> MetaGraphDef:
    """The `MetaGraphDef` of a graph: its GraphDef, a SaverDef and its collections.

    `tf.train.export_meta_graph` is this plus writing the file.

    Args:
        meta_info_def: A `MetaInfoDef` to use instead of the default.
        graph_def: The `GraphDef` to use instead of the graph's.
        saver_def: The `SaverDef` to include.
        collection_list: The collections to include (default all that can be
            serialized; others are skipped with a warning, as TF skips them).
        graph: The graph (default: the default graph).
        export_scope: Only export collection items in this name scope.
        exclude_nodes: Names of nodes whose collection items to leave out.
        clear_extraneous_savers: Write only `saver_def` to the `savers` collection.
        strip_default_attrs: Remove attributes equal to their op's default.
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
    if strip_default_attrs:
        strip_graph_default_valued_attrs(meta)
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    keys = collection_list if collection_list is not None else graph.get_all_collection_keys()
    for key in keys:
        override = None
        if clear_extraneous_savers and key == ops.GraphKeys.SAVERS and saver_def is not None:
            from_proto = get_from_proto_function(key)
            override = [from_proto(saver_def)] if from_proto else None
        add_collection_def(
            meta,
            key,
            graph=graph,
            export_scope=export_scope,
            exclude_nodes=exclude_nodes,
            override_contents=override,
        )
    return meta


def read_meta_graph_file(filename) -> MetaGraphDef:
    """The `MetaGraphDef` in `filename`, binary or text format.

    Raises:
        IOError: The file does not exist or cannot be parsed (TF's messages).
    """
    if not os.path.exists(filename):
        raise OSError(f"File {filename} does not exist.")
    with open(filename, "rb") as f:
        content = f.read()
    meta = MetaGraphDef()
    try:
        meta.ParseFromString(content)
        return meta
    except Exception:
        pass
    try:
        text_format.Merge(content.decode("utf-8"), meta)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise OSError(f"Cannot parse file {filename}: {e}.") from e
    return meta


# -- scoped export and import ---------------------------------------------------------
def _op_name(tensor_name: str) -> str:
    if not tensor_name:
        raise ValueError("Tensor name cannot be empty or None.")
    return tensor_name.lstrip("^").split(":")[0]


def _get_scope(node_name: str) -> str:
    if not node_name:
        raise ValueError("Node name cannot be empty or None.")
    node_name = node_name.lstrip("^")
    return node_name.rsplit("/", 1)[0] if "/" in node_name else ""


def _find_extraneous_saver_nodes(graph_def, saver_def) -> set[str]:
    """The nodes of the savers other than `saver_def`'s: those in their name scopes.

    As TF, each saver is taken to live in a name scope of its own, found from its
    save and restore ops.
    """
    names = {node.name: node.op for node in graph_def.node}
    keep = set()
    if saver_def is not None:
        keep = {
            _get_scope(_op_name(saver_def.save_tensor_name)) + "/",
            _get_scope(_op_name(saver_def.restore_op_name)) + "/",
        }
    saver_nodes = {name for name, op in names.items() if op in SAVE_AND_RESTORE_OPS}
    scopes = {_get_scope(name) for name in saver_nodes} - saver_nodes
    extraneous = {scope + "/" for scope in scopes} - keep
    return {name for name in names if any(name.startswith(s) for s in extraneous)}


def _scoped_node_def(node_def, export_scope, unbound_inputs, clear_devices):
    """`node_def` with `export_scope` stripped; inputs from outside it made unbound."""
    out = type(node_def)()
    out.CopyFrom(node_def)
    for i, name in enumerate(node_def.input):
        if export_scope and not name.lstrip("^").startswith(export_scope):
            prefix = "^" if name.startswith("^") else ""
            out.input[i] = prefix + _UNBOUND_INPUT_PREFIX + name.lstrip("^")
            unbound_inputs.append(out.input[i])
        else:
            out.input[i] = ops.strip_name_scope(name, export_scope)
    out.name = ops.strip_name_scope(node_def.name, export_scope)
    if "_class" in node_def.attr:
        kept = [
            ("loc:@" + ops.strip_name_scope(s.decode()[len("loc:@") :], export_scope)).encode()
            for s in node_def.attr["_class"].list.s
            if not export_scope or s.decode().split("@")[1].startswith(export_scope)
        ]
        del out.attr["_class"].list.s[:]
        out.attr["_class"].list.s.extend(kept)
    if node_def.op in ("Enter", "RefEnter") and "frame_name" in node_def.attr:
        frame = node_def.attr["frame_name"].s.decode()
        if not export_scope or frame.startswith(export_scope):
            out.attr["frame_name"].s = ops.strip_name_scope(frame, export_scope).encode()
    if clear_devices:
        out.device = ""
    return out


def export_scoped_meta_graph(
    filename=None,
    graph_def=None,
    graph=None,
    export_scope=None,
    as_text=False,
    unbound_inputs_col_name="unbound_inputs",
    clear_devices=False,
    saver_def=None,
    clear_extraneous_savers=False,
    strip_default_attrs=False,
    save_debug_info=False,
    **kwargs,
):
    """The `MetaGraphDef` of the graph (or of the subgraph under `export_scope`).

    Args:
        filename: Where to write it (binary, or text with `as_text`); None writes nothing.
        graph_def: The `GraphDef` to export instead of the graph's.
        graph: The graph (default: the default graph).
        export_scope: Export only the nodes and collection items in this name scope,
            with the scope stripped from their names. Inputs from outside it are
            renamed `$unbound_inputs_<name>` and listed in the collection
            `unbound_inputs_col_name` (to be given in `input_map` on import).
        as_text: Write the text format.
        unbound_inputs_col_name: The collection listing the unbound inputs.
        clear_devices: Clear the nodes' devices.
        saver_def: The `SaverDef` to include.
        clear_extraneous_savers: Leave out the nodes and `SaverDef`s of every other
            saver.
        strip_default_attrs: Remove attributes equal to their op's default.
        save_debug_info: Accepted (no debug info is written).
        **kwargs: `meta_info_def` and `collection_list`, for `create_meta_graph_def`.

    Returns:
        The `MetaGraphDef` and a dict of the exported variables by (stripped) name.
    """
    del save_debug_info
    graph = graph or ops.get_default_graph()
    exclude_nodes = None
    unbound_inputs: list[str] = []
    if export_scope or clear_extraneous_savers or clear_devices:
        source = graph_def if graph_def is not None else graph.as_graph_def(add_shapes=True)
        if clear_extraneous_savers:
            exclude_nodes = _find_extraneous_saver_nodes(source, saver_def)
        graph_def = GraphDef()
        graph_def.versions.CopyFrom(source.versions)
        for node_def in source.node:
            if _should_include_node(node_def.name, export_scope, exclude_nodes):
                graph_def.node.append(
                    _scoped_node_def(node_def, export_scope, unbound_inputs, clear_devices)
                )
        if unbound_inputs_col_name:
            graph.clear_collection(unbound_inputs_col_name)
            for name in unbound_inputs:
                graph.add_to_collection(unbound_inputs_col_name, name)
    var_list = {}
    for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope=export_scope):
        if _should_include_node(v, export_scope, exclude_nodes):
            var_list[ops.strip_name_scope(v.name, export_scope)] = v
    meta = create_meta_graph_def(
        graph_def=graph_def,
        graph=graph,
        export_scope=export_scope,
        exclude_nodes=exclude_nodes,
        clear_extraneous_savers=clear_extraneous_savers,
        saver_def=saver_def,
        strip_default_attrs=strip_default_attrs,
        **kwargs,
    )
    if filename:
        data = text_format.MessageToString(meta).encode() if as_text else meta.SerializeToString()
        directory = os.path.dirname(filename)
        if directory:
            os.makedirs(directory, exist_ok=True)
        _ferroflow.write_file_atomically(filename, data)
    return meta, var_list


def import_scoped_meta_graph(
    meta_graph_or_file,
    clear_devices=False,
    graph=None,
    import_scope=None,
    input_map=None,
    unbound_inputs_col_name="unbound_inputs",
    restore_collections_predicate=(lambda key: True),
):
    """Imports a `MetaGraphDef` (or `.meta` file) into `graph` under `import_scope`.

    The nodes are imported and the collections restored (variables, queue runners,
    savers, ...). Unbound inputs of a scoped export must all be given in
    `input_map` (keys `$unbound_inputs_<name>`).

    Returns:
        A dict of the variables imported into the scope, by name within it.

    Raises:
        ValueError: Unbound inputs are missing from `input_map`.
    """
    return import_scoped_meta_graph_with_return_elements(
        meta_graph_or_file,
        clear_devices,
        graph,
        import_scope,
        input_map,
        unbound_inputs_col_name,
        restore_collections_predicate,
    )[0]


def import_scoped_meta_graph_with_return_elements(
    meta_graph_or_file,
    clear_devices=False,
    graph=None,
    import_scope=None,
    input_map=None,
    unbound_inputs_col_name="unbound_inputs",
    restore_collections_predicate=(lambda key: True),
    return_elements=None,
):
    """`import_scoped_meta_graph`, also returning the `return_elements` imported.

    Returns:
        The dict of imported variables and the list of `return_elements` (or None).
    """
    from .importer import import_graph_def

    if isinstance(meta_graph_or_file, MetaGraphDef):
        meta = meta_graph_or_file
    else:
        meta = read_meta_graph_file(meta_graph_or_file)
    if unbound_inputs_col_name and unbound_inputs_col_name in meta.collection_def:
        col_def = meta.collection_def[unbound_inputs_col_name]
        kind = col_def.WhichOneof("kind")
        names = [v.decode() if isinstance(v, bytes) else v for v in getattr(col_def, kind).value]
        if names and (not input_map or sorted(names) != sorted(input_map)):
            missing = [n for n in names if not input_map or n not in input_map]
            raise ValueError(
                f"Graph contains unbound inputs: {','.join(missing)}. Must provide these "
                "inputs through input_map."
            )
    graph = graph or ops.get_default_graph()
    with graph.as_default():
        graph_def = meta.graph_def
        if clear_devices:
            graph_def = GraphDef.FromString(graph_def.SerializeToString())
            for node in graph_def.node:
                node.device = ""
        scope = graph.unique_name(import_scope or "", mark_as_used=False)
        returned = import_graph_def(
            graph_def,
            name=import_scope or scope,
            input_map=input_map,
            return_elements=return_elements,
        )
        # Trainable variables first, so that one Variable object serves every
        # variable collection it is in.
        keys = sorted(meta.collection_def)
        if ops.GraphKeys.TRAINABLE_VARIABLES in keys:
            keys.remove(ops.GraphKeys.TRAINABLE_VARIABLES)
            keys.insert(0, ops.GraphKeys.TRAINABLE_VARIABLES)
        variables_by_bytes: dict = {}
        for key in keys:
            if key == unbound_inputs_col_name or not restore_collections_predicate(key):
                continue
            col_def = meta.collection_def[key]
            kind = col_def.WhichOneof("kind")
            if kind is None:
                # An empty collection, or one of a kind ferroflow's CollectionDef lacks
                # (TF's `any_list`).
                _log.warning("Cannot identify data type for collection %s. Skipping.", key)
                continue
            from_proto = get_from_proto_function(key)
            if key == ops.GraphKeys.METRIC_VARIABLES:
                from_proto = get_from_proto_function(ops.GraphKeys.GLOBAL_VARIABLES)
            if from_proto and kind == "bytes_list":
                proto_type = get_collection_proto_type(key) or get_collection_proto_type(
                    ops.GraphKeys.GLOBAL_VARIABLES
                )
                for value in col_def.bytes_list.value:
                    if key in ops.GraphKeys._VARIABLE_COLLECTIONS:
                        item = variables_by_bytes.get(value)
                        if item is None:
                            item = from_proto(proto_type.FromString(value), import_scope=scope)
                            variables_by_bytes[value] = item
                    else:
                        item = from_proto(proto_type.FromString(value), import_scope=scope)
                    graph.add_to_collection(key, item)
            elif kind == "node_list":
                for value in col_def.node_list.value:
                    graph.add_to_collection(
                        key, graph.as_graph_element(ops.prepend_name_scope(value, scope))
                    )
            elif kind == "int64_list":
                for value in col_def.int64_list.value:
                    graph.add_to_collection(key, int(value))
            elif kind == "float_list":
                for value in col_def.float_list.value:
                    graph.add_to_collection(key, value)
            else:
                for value in getattr(col_def, kind).value:
                    if scope:
                        value = ops.prepend_name_scope(value.decode(), scope)
                    graph.add_to_collection(key, value)
        var_list = {}
        for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope=scope):
            var_list[ops.strip_name_scope(v.name, scope)] = v
    return var_list, returned


def copy_scoped_meta_graph(from_scope, to_scope, from_graph=None, to_graph=None):
    """Copies the subgraph under `from_scope` to `to_scope` (in another graph or this).

    Returns:
        A dict of the copied variables, by name within `to_scope`.

    Raises:
        ValueError: `from_scope` and `to_scope` are the same within one graph.
    """
    from_graph = from_graph or ops.get_default_graph()
    to_graph = to_graph or ops.get_default_graph()
    if from_graph is to_graph and from_scope == to_scope:
        raise ValueError(
            "'from_scope' and 'to_scope' need to be different when performing copy in the "
            "same graph."
        )
    meta, _ = export_scoped_meta_graph(export_scope=from_scope, graph=from_graph)
    return import_scoped_meta_graph(meta, graph=to_graph, import_scope=to_scope)
