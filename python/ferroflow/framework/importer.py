"""`tf.import_graph_def`: adds the nodes of a `GraphDef` to the default graph.

Each node is created through the graph's normal path (so shapes and dtypes are
inferred and checked in Rust, as for ops built in Python), in dependency order, under
the name scope `name` (default `import`), with `input_map` substituting tensors (and
control inputs) for some of the `GraphDef`'s. Arguments, name clashes and errors are
TF's (`importer.py` and the C API's `ImportGraphDef`).
"""

from __future__ import annotations

import contextlib

from ..protos import GraphDef
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
    op, index = _parse_tensor_name(name)
    return op, index, False


def _parse_tensor_name(tensor_name):
    """`("foo", 7)` for `"foo:7"`, `("foo", 0)` for `"foo"` (TF's `_ParseTensorName`)."""
    components = tensor_name.split(":")
    if len(components) == 2:
        try:
            return components[0], int(components[1])
        except ValueError:
            raise ValueError(
                f"Cannot convert {tensor_name!r} to a tensor name. Second component of "
                "the name following the `:` should be an int. Got "
                f"{components[1]}."
            ) from None
    if len(components) == 1:
        return components[0], 0
    raise ValueError(
        f"Cannot convert '{tensor_name}' to a tensor name. Tensor names should not "
        f"contain more than 1 `:`. Obtained {len(components) - 1}"
    )


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


def _graph_def_param(graph_def):
    """`graph_def` as our `GraphDef` message (another library's is re-parsed)."""
    if isinstance(graph_def, GraphDef):
        return graph_def
    descriptor = getattr(graph_def, "DESCRIPTOR", None)
    if getattr(descriptor, "name", None) == "GraphDef" and hasattr(graph_def, "SerializeToString"):
        # A GraphDef of TensorFlow's own protobuf package: the same wire format.
        return GraphDef.FromString(graph_def.SerializeToString())
    raise TypeError("Argument `graph_def` must be a GraphDef proto.")


def _input_map_param(input_map):
    if input_map is None:
        return {}
    if not isinstance(input_map, dict):
        raise TypeError(
            f"Argument `input_map` must be a dictionary. Obtained {type(input_map).__name__}"
        )
    if not all(isinstance(k, (str, bytes)) for k in input_map):
        raise TypeError(
            f"All keys for argument `input_map` must be strings. Obtained keys: {list(input_map)}"
        )
    return {k.decode() if isinstance(k, bytes) else k: v for k, v in input_map.items()}


def _return_elements_param(return_elements):
    if return_elements is None:
        return None
    if not all(isinstance(x, (str, bytes)) for x in return_elements):
        raise TypeError(
            f"Argument `return_elements` must be a list of strings. Obtained {return_elements}."
        )
    return tuple(x.decode() if isinstance(x, bytes) else x for x in return_elements)


def _check_return_elements(return_elements, names):
    """TF's errors for return elements that name no node of the GraphDef."""
    for element in return_elements:
        if ":" in element:
            op_name, _ = _parse_tensor_name(element)
            if op_name not in names:
                raise ValueError(f"Requested return tensor '{element}' not found in graph def")
        elif element not in names:
            raise ValueError(f"Requested return node '{element}' not found in graph def")


# Attrs that name tensors of the graph: `While`/`_WhileGrad`'s (see
# ops/control_flow_ops.py) and `tf.data`'s functions and one-shot datasets.
_LOOP_TENSOR_ATTRS = (
    "_feeds",
    "_cond",
    "_body",
    "_grad_feeds",
    "_grad_fetches",
    "_updates",
    # `tf.data`: the functions of dataset ops and a one-shot iterator's dataset.
    *(
        f"_{f}_{part}"
        for f in ("f", "predicate", "init_func", "next_func", "finalize_func")
        for part in ("feeds", "outputs")
    ),
    "_dataset",
)


def _renamed_tensors(attr, rename):
    """A tensor-name attr (one `s` or a list of them) with each node name renamed."""

    def one(name: bytes) -> bytes:
        node, sep, index = name.decode().rpartition(":")
        if not sep:
            node, index = index, "0"
        return f"{rename(node)}:{index}".encode()

    if attr.WhichOneof("value") == "s":
        return ("string", one(attr.s))
    return ("list(string)", [one(x) for x in attr.list.s])


def import_graph_def(
    graph_def,
    input_map=None,
    return_elements=None,
    name=None,
    op_dict=None,
    producer_op_list=None,
):
    """Imports the graph in `graph_def` into the default graph.

    ```python
    (logits,) = tf.import_graph_def(
        graph_def, input_map={"images:0": batch}, return_elements=["logits:0"]
    )
    ```

    Args:
        graph_def: A `GraphDef` message (TensorFlow's own `GraphDef` is accepted too).
        input_map: Maps names in `graph_def` to tensors that replace them: tensor
            names (`"x:0"`, or `"x"` for output 0), and control inputs (`"^x"`: edges
            on op `x` become edges on the value's op). Values that are not tensors are
            converted under `<name>/_inputs/`.
        return_elements: Names in `graph_def` to return: op names give `Operation`s,
            tensor names `Tensor`s (a mapped tensor gives its replacement), in order.
        name: Prefix for the imported names: None for `import` (`import_1`, ... when
            taken), `""` for none (a name that clashes with an existing op is
            uniquified, `x` -> `x_1`, and its consumers and colocation follow).
        op_dict: Unused (TF's deprecated argument).
        producer_op_list: Unused.

    Returns:
        The elements named in `return_elements` (or None).

    Raises:
        TypeError: `graph_def` is not a `GraphDef`, `input_map` not a dict with string
            keys, or `return_elements` not a list of strings.
        ValueError: A key of `input_map` names nothing in `graph_def` (raised after
            the import, as TF's), a return element names nothing, a node names an input
            that does not exist, or an op cannot be built (ferroflow lacks it, or its
            attributes are invalid).
    """
    del op_dict, producer_op_list
    graph_def = _graph_def_param(graph_def)
    input_map = _input_map_param(input_map)
    return_elements = _return_elements_param(return_elements)
    graph = ops.get_default_graph()
    nodes = list(graph_def.node)
    names = {n.name for n in nodes}
    if return_elements is not None:
        _check_return_elements(return_elements, names)
    # Keys canonical as TF's TensorId: "x" is "x:0"; "^x" remaps control edges on x.
    tensor_map, control_map = {}, {}
    for key, value in input_map.items():
        if key.startswith("^"):
            control_map[key[1:]] = value
        else:
            op_name, index = _parse_tensor_name(key)
            tensor_map[f"{op_name}:{index}"] = value
    created: dict[str, ops.Operation] = {}
    renamed: dict[str, str] = {}  # GraphDef name -> name in the graph, where they differ
    used_keys = set()
    with ops.name_scope(name, "import", list(input_map.values())) as scope:
        if not all(isinstance(v, (ops.Tensor, ops.Operation)) for v in input_map.values()):
            if name == "":
                raise ValueError(
                    "tf.import_graph_def() requires a non-empty `name` if `input_map` "
                    "contains non-Tensor values. Try calling tf.convert_to_tensor() on "
                    "`input_map` values before calling tf.import_graph_def()."
                )
            with ops.name_scope("_inputs"):
                tensor_map = {
                    k: v if isinstance(v, ops.Tensor) else ops.convert_to_tensor(v)
                    for k, v in tensor_map.items()
                }
        for node in _in_dependency_order(nodes):
            inputs, control = [], []
            for inp in node.input:
                op_name, index, is_control = _parse_input(inp)
                if is_control:
                    if op_name in control_map:
                        used_keys.add("^" + op_name)
                        mapped = control_map[op_name]
                        control.append(mapped if isinstance(mapped, ops.Operation) else mapped.op)
                    elif op_name in created:
                        control.append(created[op_name])
                    else:
                        raise ValueError(f"Node '{node.name}': unknown control input '{inp}'")
                    continue
                key = f"{op_name}:{index}"
                if key in tensor_map:
                    used_keys.add(key)
                    inputs.append(tensor_map[key])
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
                # Colocation groups name imported nodes: under the import scope (and
                # renamed as they were); the node takes the device of the first of them
                # that has one, as TF's.
                groups = []
                for g in node.attr["_class"].list.s:
                    if g.startswith(b"loc:@"):
                        target = g[len(b"loc:@") :].decode()
                        g = b"loc:@" + renamed.get(target, scope + target).encode()
                    groups.append(g)
                attrs["_class"] = ops._NativeAttr(("list(string)", groups))
                for group in groups:
                    target = graph._ops_by_name.get(group[len(b"loc:@") :].decode())
                    if group.startswith(b"loc:@") and target is not None and target.device:
                        node_device = target.device
                        break
            for key in _LOOP_TENSOR_ATTRS:
                # A loop or a dataset op names its sub-graph tensors: they moved with
                # the import.
                if key in node.attr:
                    attrs[key] = ops._NativeAttr(
                        _renamed_tensors(node.attr[key], lambda n: renamed.get(n, scope + n))
                    )
            if node.op == "_WhileGrad" and "_forward" in node.attr:
                # The forward loop's node name (whose tape the gradient replays).
                fwd = node.attr["_forward"].s.decode()
                fwd = renamed.get(fwd, scope + fwd)
                attrs["_forward"] = ops._NativeAttr(("string", fwd.encode()))
            full_name = scope + node.name
            unique = graph.unique_name(node.name)
            if full_name in graph._ops_by_name:
                # TF uniquifies a clashing name (`x` -> `x_1`); its consumers follow.
                full_name = unique
                while full_name in graph._ops_by_name:
                    full_name = graph.unique_name(node.name)
                renamed[node.name] = full_name
            deps = ops.control_dependencies(control) if control else contextlib.nullcontext()
            device = graph.device(node_device) if node_device else contextlib.nullcontext()
            with deps, device:
                created[node.name] = graph._create_op(
                    node.op, inputs, attrs, name=full_name + "/", colocate_ref_inputs=False
                )
    # Keys naming nothing in the GraphDef are most likely typos: TF's error, raised
    # after the import (as TF's).
    missing = [
        key
        for key in [*(f"^{k}" for k in control_map), *tensor_map]
        if key not in used_keys and not _names_an_output(key, created)
    ]
    if missing:
        raise ValueError(
            f"Attempted to map inputs that were not found in graph_def: [{', '.join(missing)}]"
        )
    if return_elements is None:
        return None
    out = []
    for element in return_elements:
        if ":" not in element:
            out.append(created[element])
            continue
        op_name, index = _parse_tensor_name(element)
        key = f"{op_name}:{index}"
        outputs = created[op_name].outputs
        if index >= len(outputs):
            raise ValueError(
                f"Invalid return output {index} of node '{op_name}', which has "
                f"{len(outputs)} output(s)"
            )
        out.append(tensor_map[key] if key in tensor_map else outputs[index])
    return out


def _names_an_output(key, created):
    """Whether an input-map key names an op (`^x`) or an output (`x:1`) imported."""
    if key.startswith("^"):
        return key[1:] in created
    op_name, index = _parse_tensor_name(key)
    return op_name in created and index < len(created[op_name].outputs)
