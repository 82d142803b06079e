"""`tf.import_graph_def`: adds the nodes of a `GraphDef` to the default graph.

Each node is created through the graph's normal path (so shapes and dtypes are
inferred and checked in Rust, as for ops built in Python), in dependency order, under
the name scope `name` (default `import`), with `input_map` substituting tensors for
some of the `GraphDef`'s.
"""

from __future__ import annotations

import contextlib

from . import ops, tensor_shape

__all__ = ["import_graph_def"]

# Attributes TF adds for tooling that are not part of an op's definition.
_SKIPPED_ATTRS = {"_output_shapes"}


def _attr_value(attr):
    """The `(kind, value)` native pair for an `AttrValue` message."""
    which = attr.WhichOneof("value")
    if which == "type":
        return ("type", attr.type)
    if which == "shape":
        return ("shape", tensor_shape._to_native(tensor_shape.TensorShape(_dims(attr.shape))))
    if which == "tensor":
        return ("tensor_proto", attr.tensor.SerializeToString())
    if which == "i":
        return ("int", attr.i)
    if which == "f":
        return ("float", attr.f)
    if which == "b":
        return ("bool", attr.b)
    if which == "s":
        return ("string", attr.s)
    if which == "list":
        lst = attr.list
        if lst.type:
            return ("list(type)", list(lst.type))
        if lst.shape:
            shapes = [
                tensor_shape._to_native(tensor_shape.TensorShape(_dims(s))) for s in lst.shape
            ]
            return ("list(shape)", shapes)
        if lst.i:
            return ("list(int)", list(lst.i))
        if lst.f:
            return ("list(float)", list(lst.f))
        if lst.b:
            return ("list(bool)", list(lst.b))
        if lst.s:
            return ("list(string)", list(lst.s))
        return ("list(int)", [])
    raise ValueError(f"Unsupported attr value in GraphDef: {attr}")


def _dims(shape_proto):
    if shape_proto.unknown_rank:
        return None
    return [d.size if d.size >= 0 else None for d in shape_proto.dim]


def _parse_input(name):
    """(op name, output index, is control) of a NodeDef input string."""
    if name.startswith("^"):
        return name[1:], 0, True
    op, _, index = name.partition(":")
    return op, int(index) if index else 0, False


def _in_dependency_order(nodes):
    """The nodes, each after the nodes it reads (a GraphDef need not be ordered).

    A depth-first walk, so an input is created before its consumers.
    """
    by_name = {n.name: n for n in nodes}
    order, state = [], {}
    for root in nodes:
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                state[node.name] = 2
                order.append(node)
                continue
            if state.get(node.name):
                continue  # on the stack already (1) or emitted (2)
            state[node.name] = 1
            stack.append((node, True))
            for inp in node.input:
                src = by_name.get(_parse_input(inp)[0])
                if src is not None and not state.get(src.name):
                    stack.append((src, False))
    return order


def import_graph_def(
    graph_def,
    input_map=None,
    return_elements=None,
    name=None,
    op_dict=None,
    producer_op_list=None,
):
    """Imports the graph in `graph_def` into the default graph.

    Args:
        graph_def: A `GraphDef` message.
        input_map: Maps tensor names in `graph_def` (`"x:0"`) to tensors that replace
            them.
        return_elements: Names of ops or tensors in `graph_def` to return.
        name: Prefix for the imported names (default `"import"`; `""` for none).
        op_dict: Unused (TF's deprecated argument).
        producer_op_list: Unused.

    Returns:
        The elements named in `return_elements` (or None).

    Raises:
        ValueError: A node names an input that does not exist, or an op cannot be
            built (ferroflow lacks it, or its attributes are invalid).
    """
    del op_dict, producer_op_list
    graph = ops.get_default_graph()
    input_map = dict(input_map or {})
    for key, value in input_map.items():
        if not isinstance(value, ops.Tensor):
            input_map[key] = ops.convert_to_tensor(value)
    prefix = "import" if name is None else name
    created: dict[str, ops.Operation] = {}
    scope_ctx = ops.name_scope(prefix) if prefix else contextlib.nullcontext("")
    with scope_ctx as scope:
        for node in _in_dependency_order(list(graph_def.node)):
            inputs, control = [], []
            for inp in node.input:
                op_name, index, is_control = _parse_input(inp)
                if is_control:
                    if op_name not in created:
                        raise ValueError(f"Node '{node.name}': unknown control input '{inp}'")
                    control.append(created[op_name])
                    continue
                key = f"{op_name}:{index}"
                if key in input_map:
                    inputs.append(input_map[key])
                elif op_name in created:
                    inputs.append(created[op_name].outputs[index])
                else:
                    raise ValueError(
                        f"Node '{node.name}': Unknown input node '{inp}' in the GraphDef"
                    )
            attrs = {
                k: ops._NativeAttr(_attr_value(v))
                for k, v in node.attr.items()
                if k not in _SKIPPED_ATTRS
            }
            node_device = node.device
            if "_class" in node.attr:
                # Colocation groups name imported nodes: under the import scope; and the
                # node takes the device of the first of them that has one, as TF's.
                groups = [
                    b"loc:@" + scope.encode() + g[len(b"loc:@") :] if g.startswith(b"loc:@") else g
                    for g in node.attr["_class"].list.s
                ]
                attrs["_class"] = ops._NativeAttr(("list(string)", groups))
                for group in groups:
                    target = graph._ops_by_name.get(group[len(b"loc:@") :].decode())
                    if group.startswith(b"loc:@") and target is not None and target.device:
                        node_device = target.device
                        break
            full_name = scope + node.name
            if graph.unique_name(node.name) != full_name:
                raise ValueError(f"Duplicate node name in graph: '{full_name}'")
            deps = ops.control_dependencies(control) if control else contextlib.nullcontext()
            device = graph.device(node_device) if node_device else contextlib.nullcontext()
            with deps, device:
                created[node.name] = graph._create_op(node.op, inputs, attrs, name=full_name + "/")
    if return_elements is None:
        return None
    out = []
    for element in return_elements:
        op_name, index, _ = _parse_input(element)
        if ":" in element:
            out.append(created[op_name].outputs[index])
        else:
            out.append(created[op_name])
    return out
