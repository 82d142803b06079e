"""`tf.gradients`: symbolic differentiation, done by the Rust graph transform.

The Python side converts arguments and wraps the nodes Rust added; the walk over the
graph, each op's gradient function, and the summing of contributions are in
`rust/ferroflow-core/src/autodiff`.
"""

from __future__ import annotations

import collections
import contextlib
import enum
import threading

import numpy as np

from .._compat import zip_strict
from ..framework import ops
from ..framework.indexed_slices import IndexedSlices
from . import array_ops, math_ops


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
    return list(x) if isinstance(x, (list, tuple)) else [x]


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
        grad_ys = [
            g
            if g is None or isinstance(g, IndexedSlices)
            else ops.convert_to_tensor(g, name="grad_y")
            for g in grad_ys
        ]
    try:
        unconnected = UnconnectedGradients(
            unconnected_gradients.value
            if isinstance(unconnected_gradients, UnconnectedGradients)
            else unconnected_gradients
        )
    except ValueError:
        raise ValueError(
            f"Unknown value for unconnected_gradients: {unconnected_gradients!r}"
        ) from None
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
        given = [gy is not None for gy in grad_ys]
        if g._control_stack:
            # Inside `control_dependencies`, TF's gradient ops wait for the controls:
            # its default initial gradients (`grad_ys_<i>`, made here as TF makes
            # them) get the control inputs, and every gradient flows from them.
            grad_ys = [
                _default_grad_ys(y, i, colocate_gradients_with_ops) if gy is None else gy
                for i, (y, gy) in enumerate(zip_strict(ys, grad_ys))
            ]
        # A given initial gradient is renamed into this call's scope, as TF does: a
        # TensorArray gradient finds its gradient array by that scope.
        grad_ys = [
            _renamed_grad_y(gy, i) if was_given else gy
            for i, (gy, was_given) in enumerate(zip_strict(grad_ys, given))
        ]
        # The walk's sparse gradients carry a dense shape; one the caller left out is
        # y's, and None again in the results that pass it on unchanged (as TF's).
        unknown_shapes = set()
        for k, gy in enumerate(grad_ys):
            if isinstance(gy, IndexedSlices) and gy.dense_shape is None:
                shape = array_ops.shape(ys[k], out_type=gy.indices.dtype)
                unknown_shapes.add((shape._op._id, shape._value_index))
                grad_ys[k] = IndexedSlices(gy.values, gy.indices, shape)
        _check_no_grad_wrt_initial_loop_val(g, ys, xs)
        external = [op._id for op in g._ops if ops._python_gradient(op)[0]]
        start = len(g._ops)
        # The ops the walk makes in Rust join the caller's control-flow context (a
        # gradient taken inside a loop body is part of that body), as the ops made in
        # Python do.
        context = g._control_flow_context
        walk = g._native.gradient_walk(
            [(t._op._id, t._value_index) for t in ys],
            [(t._op._id, t._value_index) for t in xs],
            [_to_native(t) for t in grad_ys],
            scope,
            device,
            1
            if aggregation_method
            in (AggregationMethod.EXPERIMENTAL_TREE, AggregationMethod.EXPERIMENTAL_ACCUMULATE_N)
            else 0,
            bool(colocate_gradients_with_ops),
            [(t._op._id, t._value_index) for t in stops],
            external,
        )
        first = start
        step = walk.resume()
        _sync_walk_ops(g, first, context)
        while step[0] == "external":
            op = g._ops[step[1]]
            in_grads = _python_op_gradient(
                g, op, [_from_native(g, r) for r in step[2]], scope, colocate_gradients_with_ops
            )
            first = len(g._ops)
            step = walk.resume([_to_native(t) for t in in_grads])
            _sync_walk_ops(g, first, context)
        _set_original_ops(g, scope, start)
    out: list[ops.Tensor | IndexedSlices | None] = []
    for x, r in zip_strict(xs, step[1]):
        if r is None and unconnected is UnconnectedGradients.ZERO:
            with g.as_default():
                out.append(array_ops.zeros_like(x))
        else:
            grad = _from_native(g, r)
            if isinstance(grad, IndexedSlices) and grad.dense_shape is not None:
                if (grad.dense_shape._op._id, grad.dense_shape._value_index) in unknown_shapes:
                    grad = IndexedSlices(grad.values, grad.indices)
            out.append(grad)
    return out


def hessians(
    ys,
    xs,
    name="hessians",
    colocate_gradients_with_ops=False,
    gate_gradients=False,
    aggregation_method=None,
):
    """The Hessian of `sum(ys)` with respect to each x in `xs`.

    For an x of shape `S` the result has shape `S + S`: entry `[i..., j...]` is
    `d^2 sum(ys) / dx[i...] dx[j...]`. TF builds the rows in a `while_loop`; ferroflow
    (without loops) builds one second-order gradient per element of x, so x's shape
    must be fully known.

    Args:
        ys: A tensor or list of tensors to differentiate.
        xs: A tensor or list of tensors.
        name: Name scope of the ops.
        colocate_gradients_with_ops: As `gradients`.
        gate_gradients: As `gradients`.
        aggregation_method: As `gradients`.

    Returns:
        A list with one Hessian per x.

    Raises:
        LookupError: If an op between xs and ys has no (second-order) gradient.
        ValueError: If an x's shape is not fully known, or ys or their gradient do not
            depend on an x (as TF's, which cannot write a None row).
    """
    xs = _as_list(xs)
    kwargs = {
        "colocate_gradients_with_ops": colocate_gradients_with_ops,
        "gate_gradients": gate_gradients,
        "aggregation_method": aggregation_method,
    }
    first = gradients(ys, xs, **kwargs)
    out = []
    g = ops._graph_of(_as_list(ys) + xs)
    with g.as_default(), ops.name_scope(None, name, _as_list(ys) + xs):
        for gradient, x in zip_strict(first, xs):
            x = ops.convert_to_tensor(x)
            shape = x.get_shape()
            if not shape.is_fully_defined():
                raise ValueError(
                    f"hessians needs the fully known shape of {x.name}, got {shape} (TF loops "
                    "over its elements with while_loop)"
                )
            if gradient is None:
                raise ValueError(f"ys do not depend on {x.name}: it has no Hessian")
            flat = array_ops.reshape(gradient, [-1])
            dims = shape.as_list()
            n = int(np.prod(dims, dtype=np.int64))
            rows = []
            for j in range(n):
                (row,) = gradients(flat[j], x, **kwargs)
                if row is None:
                    # TF writes each row to a TensorArray, which takes no None (a
                    # gradient that does not depend on x).
                    raise ValueError("None values not supported.")
                rows.append(row)
            stacked = array_ops.stack(rows) if rows else array_ops.zeros([0, *dims], x.dtype)
            out.append(array_ops.reshape(stacked, dims + dims))
    return out


def _hessian_vector_product(ys, xs, v):
    """The product of the Hessian of `sum(ys)` (with respect to `xs`) with vectors `v`.

    TF's `gradients_impl._hessian_vector_product`: two backward passes, the second
    through the gradients' elementwise products with `v` (which is held constant):
    `grad(sum_i grad_i(ys) * v_i, xs)`. The Hessian is never formed.

    Args:
        ys: A tensor or list of tensors to differentiate.
        xs: A list of tensors.
        v: A list of tensors, one per x, each shaped like it.

    Returns:
        A list of tensors, one per x: the Hessian-vector products.

    Raises:
        ValueError: If `xs` and `v` differ in length.
    """
    length = len(xs)
    if len(v) != length:
        raise ValueError("xs and v must have the same length.")
    grads = gradients(ys, xs)
    assert len(grads) == length
    elemwise_products = [
        math_ops.multiply(grad_elem, array_ops.stop_gradient(v_elem))
        for grad_elem, v_elem in zip_strict(grads, v)
        if grad_elem is not None
    ]
    return gradients(elemwise_products, xs)


def _set_original_ops(g, scope, start):
    """Sets TF's `Operation._original_op` on the ops a `gradients` call made.

    TF builds the gradient of op X under `<scope>X_grad/` with `X` as the graph's
    original op; ops made outside those scopes (the sums of contributions) keep None.
    An op of a nested call (a gradient function's own `gradients`) keeps what that
    call set.
    """
    for op in g._ops[start:]:
        if op._original_op is not None or not op.name.startswith(scope):
            continue
        rest = op.name[len(scope) :]
        i = rest.find("_grad/")
        while i > 0:
            forward = g._ops_by_name.get(rest[:i])
            if forward is not None and forward._id < start:
                op._original_op = forward
                break
            i = rest.find("_grad/", i + 1)


def _check_no_grad_wrt_initial_loop_val(g, ys, xs):
    """TF's check that a gradient inside a while loop does not go through a loop variable.

    Inside a loop body, a gradient may go through loop invariants and be taken with
    respect to the body's loop variables, but not with respect to (or through) a loop
    variable's initial value: TF raises when the ys depend on a loop variable of the
    current loop whose initial value depends on an x.

    Raises:
        ValueError: If they do, naming the x nearest to the loop variable.
    """
    inits = getattr(g._control_flow_context, "_loop_inits", None)
    if not inits:
        return
    from_ops = {x.op._id for x in xs}
    seen: set[int] = set()
    stack = [y.op for y in ys]
    reached = set()
    while stack:
        op = stack.pop()
        if op._id in seen:
            continue
        seen.add(op._id)
        if op._id in inits:
            reached.add(op._id)
        stack.extend(t.op for t in op.inputs)
    for placeholder_id, initial in inits.items():
        if placeholder_id not in reached:
            continue
        queue = collections.deque([initial.op])
        visited: set[int] = set()
        while queue:
            op = queue.popleft()
            if op._id in visited:
                continue
            visited.add(op._id)
            if op._id in from_ops:
                raise ValueError(
                    "Cannot compute gradient inside while loop with respect to op "
                    f"'{op.name}'. We do not support taking the gradient wrt or through "
                    "the initial value of a loop variable. Gradients can be computed "
                    "through loop invariants or wrt the input parameters to the loop body."
                )
            queue.extend(t.op for t in op.inputs)


def _from_native(g, r):
    """A gradient as the walk reports it (`("dense", t)`/`("sparse", v, i, s)`/None)."""
    tensor = lambda pair: g._ops[pair[0]]._outputs[pair[1]]  # noqa: E731
    if r is None:
        return None
    if r[0] == "dense":
        return tensor(r[1])
    return IndexedSlices(tensor(r[1]), tensor(r[2]), tensor(r[3]))


def _to_native(t):
    if t is None:
        return None
    if isinstance(t, IndexedSlices):
        pair = lambda v: (v._op._id, v._value_index)  # noqa: E731
        return ("sparse", pair(t.values), pair(t.indices), pair(t.dense_shape))
    return ("dense", (t._op._id, t._value_index))


_colocating = threading.local()


def colocating_gradients() -> bool:
    """Whether the running gradient function's `gradients` call colocates its ops.

    A `While`'s gradient passes `colocate_gradients_with_ops` on to its body's.
    """
    return getattr(_colocating, "value", False)


@contextlib.contextmanager
def _colocation_flag(colocate):
    saved = colocating_gradients()
    _colocating.value = bool(colocate)
    try:
        yield
    finally:
        _colocating.value = saved


def _python_op_gradient(g, op, out_grads, scope, colocate):
    """Runs the Python gradient function of `op` (TF's `_GradientsHelper` step)."""
    _, fn = ops._python_gradient(op)
    if fn is None:  # NotDifferentiable
        return [None] * len(op.inputs)
    with g.name_scope(f"{scope}{op.name}_grad/"), _colocation_flag(colocate):
        with g.colocate_with(op) if colocate else contextlib.nullcontext():
            # TF passes zeros for float (and complex) outputs that no gradient reached.
            out_grads = [
                array_ops.zeros_like(t)
                if grad is None and (t.dtype.is_floating or t.dtype.is_complex)
                else grad
                for grad, t in zip_strict(out_grads, op.outputs)
            ]
            in_grads = fn(op, *out_grads)
    in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
    if len(in_grads) != len(op.inputs):
        raise ValueError(
            f"Num gradients {len(in_grads)} generated for op {op.name} do not match "
            f"num inputs {len(op.inputs)}"
        )
    converted = []
    with g.as_default():
        for grad, inp in zip_strict(in_grads, op.inputs):
            if grad is None or isinstance(grad, IndexedSlices):
                converted.append(grad)
                continue
            grad = ops.convert_to_tensor(grad, dtype=inp.dtype.base_dtype, name="grad")
            converted.append(grad)
    return converted


def _sync_walk_ops(g, first, context):
    """Wraps the nodes the walk added from node `first` on; they join `context`."""
    ops._sync_native_ops(g)
    if context is not None:
        for op in g._ops[first:]:
            op._control_flow_context = context
            context._add_native_op(op)


def _renamed_grad_y(gy, i):
    """A given initial gradient under this call's scope, as TF names it.

    `grad_ys_<i>`; for `IndexedSlices`, `grad_ys_<i>_values`/`_indices`/`_shape`.
    """
    if isinstance(gy, IndexedSlices):
        return IndexedSlices(
            array_ops.identity(gy.values, name=f"grad_ys_{i}_values"),
            array_ops.identity(gy.indices, name=f"grad_ys_{i}_indices"),
            None
            if gy.dense_shape is None
            else array_ops.identity(gy.dense_shape, name=f"grad_ys_{i}_shape"),
        )
    return array_ops.identity(gy, name=f"grad_ys_{i}")


def _default_grad_ys(y, i, colocate_gradients_with_ops):
    """TF's default initial gradient of `y`: `ones(shape(y))`, named `grad_ys_<i>`."""
    colocation = ops.colocate_with(y.op) if colocate_gradients_with_ops else None
    with colocation or contextlib.nullcontext():
        return array_ops.ones(array_ops.shape(y), dtype=y.dtype.base_dtype, name=f"grad_ys_{i}")
