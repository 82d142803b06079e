"""Control-flow grouping ops: `no_op`, `group`, `tuple`, `with_dependencies`."""

from __future__ import annotations

from ..framework import ops
from . import array_ops


def no_op(name=None):
    """An op that does nothing (useful as a control-dependency anchor)."""
    return ops.get_default_graph()._create_op("NoOp", [], name=name or "NoOp")


def _ops_of(inputs):
    out = []
    for i in inputs:
        if i is None:
            continue
        if hasattr(i, "_as_graph_element") and not isinstance(i, ops.Tensor | ops.Operation):
            i = i._as_graph_element()
        if isinstance(i, ops.Tensor):
            i = i.op
        if not isinstance(i, ops.Operation):
            raise TypeError(
                f"Expected tf.group() expected Tensor arguments not '{i!r}' with type '{type(i)}'"
            )
        out.append(i)
    return out


def group(*inputs, **kwargs):
    """An op that runs all of `inputs` (ops or tensors); it has no output.

    Args:
        *inputs: Ops or tensors to run.
        **kwargs: Only `name`.

    Returns:
        The grouping `NoOp`.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Unknown keyword arguments: {', '.join(kwargs)}")
    deps = _ops_of(inputs)
    with ops.name_scope(name, "group_deps", deps) as scope:
        with ops.control_dependencies(deps):
            return no_op(name=scope)


def with_dependencies(dependencies, output_tensor, name=None):
    """`output_tensor`'s value, available only after every op in `dependencies` ran.

    Returns an `Identity` named `control_dependency` (TF's name) under `name`.
    """
    with ops.name_scope(name, "control_dependency", [*dependencies, output_tensor]) as scope:
        with ops.control_dependencies(dependencies):
            output_tensor = ops.convert_to_tensor(output_tensor)
            return array_ops.identity(output_tensor, name=scope)


def tuple(tensors, name=None, control_inputs=None):
    """Tensors with the same values as `tensors`, each available only after all are computed."""
    with ops.name_scope(name, "tuple", tensors):
        tensors = [ops.convert_to_tensor(t) if t is not None else None for t in tensors]
        gating = [t.op for t in tensors if t is not None] + _ops_of(control_inputs or [])
        gating = sorted({id(op): op for op in gating}.values(), key=lambda op: op._id)
        gate = group(*gating)
        out: list[ops.Tensor | None] = []
        for t in tensors:
            if t is None:
                out.append(None)
                continue
            with ops.control_dependencies([gate]):
                out.append(array_ops.identity(t, name="control_dependency"))
        return out
