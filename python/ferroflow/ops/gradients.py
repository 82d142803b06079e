"""`tf.gradients`: symbolic differentiation, done by the Rust graph transform.

The Python side converts arguments and wraps the nodes Rust added; the walk over the
graph, each op's gradient function, and the summing of contributions are in
`rust/ferroflow-core/src/autodiff`.
"""

from __future__ import annotations

import enum

from ..framework import ops
from ..framework.indexed_slices import IndexedSlices
from . import array_ops


class UnconnectedGradients(enum.Enum):
    """What `tf.gradients` returns for an x that the ys do not depend on.

    `NONE`: None (the default). `ZERO`: zeros shaped like x.
    """

    NONE = "none"
    ZERO = "zero"


class AggregationMethod:
    """How `tf.gradients` sums several gradient contributions to one tensor.

    `ADD_N` (the default) adds them with one `AddN` op; the experimental methods add
    them pairwise, which ferroflow treats alike.
    """

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def _as_list(x):
    return list(x) if isinstance(x, list | tuple) else [x]


def gradients(
    ys,
    xs,
    grad_ys=None,
    name="gradients",
    colocate_gradients_with_ops=False,
    gate_gradients=False,
    aggregation_method=None,
    stop_gradients=None,
    unconnected_gradients=UnconnectedGradients.NONE,
):
    """Symbolic partial derivatives of `sum(ys)` with respect to each of `xs`.

    Args:
        ys: A tensor or list of tensors to differentiate.
        xs: A tensor, variable, or list of them.
        grad_ys: Optional tensors (one per y) holding the initial gradients; ones by
            default.
        name: Name scope of the gradient ops.
        colocate_gradients_with_ops: If True, the ops of each op's gradient are
            colocated with that op (its `_class` groups and device), as TF's; the
            sum of several gradient contributions is always colocated with its first
            summand's op.
        gate_gradients: Accepted for compatibility.
        aggregation_method: An `AggregationMethod` value.
        stop_gradients: Tensors not differentiated through: each is treated as a
            constant (it gets a gradient when it is an x; none flows on to its inputs).
        unconnected_gradients: An `UnconnectedGradients` (or `"none"`/`"zero"`): what an
            x the ys do not depend on gets.

    Returns:
        A list with one entry per x: a `Tensor`, an `IndexedSlices` (for gradients of
        `gather`/`embedding_lookup`), or None when x does not affect ys.

    Raises:
        LookupError: If an op between xs and ys has no registered gradient.
        ValueError: If `grad_ys` has the wrong length or dtype.
    """
    ys = [ops.convert_to_tensor(y, name="y") for y in _as_list(ys)]
    xs = [
        x._ref() if hasattr(x, "_ref") else ops.convert_to_tensor(x, name="x") for x in _as_list(xs)
    ]
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    else:
        grad_ys = _as_list(grad_ys)
        if len(grad_ys) != len(ys):
            raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
        grad_ys = [None if g is None else ops.convert_to_tensor(g, name="grad_y") for g in grad_ys]
    unconnected = UnconnectedGradients(
        unconnected_gradients.value
        if isinstance(unconnected_gradients, UnconnectedGradients)
        else unconnected_gradients
    )
    stops = (
        []
        if stop_gradients is None
        else [ops.convert_to_tensor(t) for t in _as_list(stop_gradients)]
    )
    g = ops._graph_of(ys + xs)
    with g.as_default(), g.name_scope(name) as scope:
        device = g._device_for(ops._PendingOp("Gradients", scope)) if g._device_stack else ""
        if g._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        result = g._native.gradients(
            [(t._op._id, t._value_index) for t in ys],
            [(t._op._id, t._value_index) for t in xs],
            [None if t is None else (t._op._id, t._value_index) for t in grad_ys],
            scope,
            device,
            1
            if aggregation_method
            in (AggregationMethod.EXPERIMENTAL_TREE, AggregationMethod.EXPERIMENTAL_ACCUMULATE_N)
            else 0,
            bool(colocate_gradients_with_ops),
            [(t._op._id, t._value_index) for t in stops],
        )
        ops._sync_native_ops(g)
    tensor = lambda pair: g._ops[pair[0]]._outputs[pair[1]]  # noqa: E731
    out: list[ops.Tensor | IndexedSlices | None] = []
    for x, r in zip(xs, result, strict=True):
        if r is None:
            if unconnected is UnconnectedGradients.ZERO:
                with g.as_default():
                    out.append(array_ops.zeros_like(x))
            else:
                out.append(None)
        elif r[0] == "dense":
            out.append(tensor(r[1]))
        else:
            out.append(IndexedSlices(tensor(r[1]), tensor(r[2]), tensor(r[3])))
    return out
