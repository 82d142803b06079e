"""Control flow: `cond`, `case`, and the grouping ops (`no_op`, `group`, `tuple`).

`cond` is TF-1.x's: a `Switch` on the predicate, each branch built in a
`CondContext` (tensors from outside a branch enter it through a `Switch` of their
own, ops without inputs wait for the branch's pivot), and a `Merge` per output. The
executor propagates deadness, so only the taken branch's ops run.
"""

from __future__ import annotations

import builtins
import collections

from ..framework import constant_op, dtypes, op_def_registry, ops
from . import _nest, array_ops, logging_ops, math_ops


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
        # As TF: one `NoOp` on the inputs' device when they share one, else one per
        # device (in device order) under the returned `NoOp`.
        on_device: dict[str, list] = {}
        for op in deps:
            on_device.setdefault(op.device, []).append(op)
        if len(on_device) <= 1:
            device = next(iter(on_device), "")
            return _group_control_deps(device, deps, name=scope)
        per_device = [_group_control_deps(d, on_device[d]) for d in sorted(on_device)]
        with ops.control_dependencies(per_device):
            return no_op(name=scope)


def _group_control_deps(device, deps, name=None):
    """A `NoOp` on `device` (merged with the device scopes) after `deps` (TF's)."""
    with ops.control_dependencies(deps), ops.device(device):
        return no_op(name=name)


def with_dependencies(dependencies, output_tensor, name=None):
    """`output_tensor`'s value, available only after every op in `dependencies` ran.

    Returns an `Identity` named `control_dependency` (TF's name) under `name`.
    """
    with ops.name_scope(name, "control_dependency", [*dependencies, output_tensor]) as scope:
        # As TF: colocated with `output_tensor` (converted first when it is a value).
        anchor = output_tensor
        if not (isinstance(anchor, ops.Tensor | ops.Operation) or hasattr(anchor, "op")):
            anchor = ops.convert_to_tensor(anchor)
        with ops.colocate_with(anchor), ops.control_dependencies(dependencies):
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
            out.append(with_dependencies([gate], t))
        return out


# -- nested structures (a small `nest`: lists, tuples, namedtuples, dicts) -----------
_is_sequence = _nest.is_nested
_flatten = _nest.flatten
_pack_as = _nest.pack_unchecked


def _assert_same_structure(a, b):
    """TF's `nest.assert_same_structure`.

    ValueError for a different nesting, TypeError for different sequence types.
    """

    def check(x, y):
        if _is_sequence(x) != _is_sequence(y):
            raise ValueError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: {a}\n\nSecond structure: {b}"
            )
        if not _is_sequence(x):
            return
        if type(x) is not type(y):
            raise TypeError(
                "The two structures don't have the same sequence type. Input structure has "
                f"type {type(x)}, while shallow structure has type {type(y)}."
            )
        if isinstance(x, dict):
            if sorted(x) != sorted(y):
                raise ValueError(
                    "The two dictionaries don't have the same set of keys. First structure "
                    f"has keys {list(x)}, while second structure has keys {list(y)}."
                )
            for k in x:
                check(x[k], y[k])
            return
        if len(x) != len(y):
            raise ValueError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: {a}\n\nSecond structure: {b}\n\n"
                f'More specifically: Substructure "type={type(x).__name__} str={x}" has '
                f'length {len(x)}, while shallow structure "type={type(y).__name__} str={y}" '
                f"has length {len(y)}"
            )
        for u, v in zip(x, y, strict=True):
            check(u, v)

    check(a, b)


# -- Switch and Merge --------------------------------------------------------------
def switch(data, pred, name=None):
    """Forwards `data` to output 1 when `pred` is true, else to output 0.

    The other output is dead: ops that consume it do not run.

    Args:
        data: The tensor to forward.
        pred: A scalar bool tensor.
        name: A name for the op.

    Returns:
        `(output_false, output_true)`.
    """
    with ops.name_scope(name, "Switch", [data, pred]) as scope:
        data = ops.convert_to_tensor(data, name="data")
        pred = ops.convert_to_tensor(pred, name="pred")
        op_type = "RefSwitch" if data.dtype._is_ref_dtype else "Switch"
        op = ops.get_default_graph()._create_op(op_type, [data, pred], name=scope)
        return op.outputs[0], op.outputs[1]


def _switch_ref_or_tensor(data, pred, name="Switch"):
    """A `Switch` (or `RefSwitch`) of `data`, colocated with `data` (TF's).

    Only `data`'s colocation applies (TF's `ignore_existing`): a branch's value
    is switched where it is made, whatever the op it feeds is colocated with.
    """
    data = ops.convert_to_tensor(data, name="data")
    with ops.colocate_with(data, ignore_existing=True):
        return switch(data, pred, name=name)


def merge(inputs, name=None):
    """Forwards the one live tensor of `inputs`.

    Args:
        inputs: Tensors of one dtype, at most one of them alive at run time.
        name: A name for the op.

    Returns:
        `(output, value_index)`: the live tensor and its index in `inputs`.
    """
    with ops.name_scope(name, "Merge", inputs) as scope:
        inputs = [ops.convert_to_tensor(t) for t in inputs]
        op = ops.get_default_graph()._create_op("Merge", inputs, name=scope)
        return op.outputs[0], op.outputs[1]


class CondContext:
    """The context a branch of a `cond` is built in (TF's `CondContext`).

    Every tensor from outside the branch that an op inside uses goes through a
    `Switch` on the predicate (one per tensor and branch), so it is dead when the
    branch is not taken, and ops without inputs run after the branch's pivot.
    """

    def __init__(self, pred, pivot, branch):
        self._pred = pred
        self._pivot = pivot
        self._branch = branch
        self._graph = pred.graph
        self._outer_context = self._graph._control_flow_context
        self._values: set[str] = {pred.name, pivot.name}
        self._external_values: dict[str, ops.Tensor] = {}
        self._op_ids: set[int] = set()

    @property
    def pred(self):
        """The predicate tensor."""
        return self._pred

    @property
    def pivot(self):
        """The branch's pivot: alive exactly when the branch is taken."""
        return self._pivot

    @property
    def branch(self):
        """1 for the true branch, 0 for the false one."""
        return self._branch

    @property
    def outer_context(self):
        """The context this one is nested in, or None."""
        return self._outer_context

    def Enter(self):
        """Makes this the graph's current control-flow context."""
        self._saved = self._graph._control_flow_context
        self._graph._control_flow_context = self

    def Exit(self):
        """Restores the context that was current before `Enter`."""
        self._graph._control_flow_context = self._saved

    def AddValue(self, val):
        """`val` as seen inside the branch: a `Switch` of it for an outside tensor.

        In a nested cond the enclosing context routes `val` first, as TF's.
        """
        if val.name in self._values:
            return self._external_values.get(val.name, val)
        result = val
        self._values.add(val.name)
        if self._outer_context is not None:
            result = self._outer_context.AddValue(val)
            self._values.add(result.name)
            self._external_values[result.name] = result
        # Made outside any control dependencies and context (which its inputs are
        # already routed for), as TF's.
        with ops.control_dependencies(None):
            result = _switch_ref_or_tensor(result, self._pred)[self._branch]
        ctxt = self
        while ctxt is not None:
            ctxt._op_ids.add(result.op._id)
            ctxt._values.add(result.name)
            ctxt = ctxt._outer_context
        self._external_values[val.name] = result
        return result

    def _process_output_tensor(self, val):
        """A branch result, as TF's `_ProcessOutputTensor`.

        An outside tensor gets a `Switch` made in this context (under its control
        dependencies).
        """
        real_val = val
        if val.name not in self._values:
            self._values.add(val.name)
            if self._outer_context is not None:
                real_val = self._outer_context.AddValue(val)
                self._values.add(real_val.name)
                self._external_values[real_val.name] = real_val
            real_val = _switch_ref_or_tensor(real_val, self._pred)[self._branch]
            self._external_values[val.name] = real_val
        else:
            real_val = self._external_values.get(val.name, val)
        return real_val

    def _process_inputs(self, inputs):
        return [self.AddValue(t) for t in inputs]

    def _control_inputs_of_source(self, control):
        if any(c._id in self._op_ids for c in control):
            return control
        return [*control, self._pivot.op]

    def _process_control_inputs(self, control):
        if self._outer_context is not None:
            return self._outer_context._process_control_inputs(control)
        return control

    def _add_op(self, op):
        self._op_ids.add(op._id)
        for t in op.outputs:
            self._values.add(t.name)
        if self._outer_context is not None:
            self._outer_context._add_op(op)

    def _build_tensor(self, v):
        if isinstance(v, ops.Operation):
            # The pivot stands for an op.
            return with_dependencies([v], self._pivot)
        return self._process_output_tensor(ops.convert_to_tensor(v))

    def BuildCondBranch(self, fn):
        """Builds `fn()` in this context; returns (its result, the branch's tensors)."""
        original = fn()
        if original is None:
            return None, None
        result = _map_structure(self._build_tensor, original)
        if not isinstance(result, list | builtins.tuple):
            result = [result]
        return original, result


def _map_structure(fn, structure):
    return _pack_as(structure, [fn(x) for x in _flatten(structure)])


def _unpack_if_singleton(res):
    if isinstance(res, list | builtins.tuple) and len(res) == 1:
        return res[0]
    return res


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """`true_fn()` if `pred` is true, else `false_fn()` (TF-1.x `tf.cond`).

    Both branches are built; at run time only the taken branch's ops run (their side
    effects included). Tensors from outside a branch are captured.

    Args:
        pred: A scalar bool tensor.
        true_fn: A callable returning the true branch's result.
        false_fn: A callable returning the false branch's result, of the same
            nested structure and dtypes.
        strict: Whether to keep singleton lists/tuples (else they are unpacked).
        name: A name scope for the ops (default `cond`).
        fn1: Deprecated name of `true_fn`.
        fn2: Deprecated name of `false_fn`.

    Returns:
        Tensors of the structure `true_fn` returns, each the `Merge` of the branches.

    Raises:
        TypeError: If a fn is not callable, `pred` is not a bool tensor, or the
            branches return different sequence types.
        ValueError: If the branches return different structures or dtypes.
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): 'true_fn' and 'fn1' may not be set simultaneously.")
        true_fn = fn1
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): 'false_fn' and 'fn2' may not be set simultaneously.")
        false_fn = fn2
    if not callable(true_fn):
        raise TypeError("`true_fn` must be callable.")
    if not callable(false_fn):
        raise TypeError("`false_fn` must be callable.")
    with ops.name_scope(name, "cond", [pred]):
        if isinstance(pred, builtins.bool):
            raise TypeError("pred must not be a Python bool")
        pred = ops.convert_to_tensor(pred)
        p_2, p_1 = switch(pred, pred)
        pivot_1 = array_ops.identity(p_1, name="switch_t")
        pivot_2 = array_ops.identity(p_2, name="switch_f")
        pred = array_ops.identity(pred, name="pred_id")

        context_t = CondContext(pred, pivot_1, branch=1)
        try:
            context_t.Enter()
            orig_res_t, res_t = context_t.BuildCondBranch(true_fn)
            if orig_res_t is None:
                raise ValueError("true_fn must have a return value.")
        finally:
            context_t.Exit()

        context_f = CondContext(pred, pivot_2, branch=0)
        try:
            context_f.Enter()
            orig_res_f, res_f = context_f.BuildCondBranch(false_fn)
            if orig_res_f is None:
                raise ValueError("false_fn must have a return value.")
        finally:
            context_f.Exit()

        if not strict:
            orig_res_t = _unpack_if_singleton(orig_res_t)
            orig_res_f = _unpack_if_singleton(orig_res_f)
        try:
            _assert_same_structure(orig_res_t, orig_res_f)
        except TypeError as e:
            raise TypeError(f"Incompatible return types of `true_fn` and `false_fn`: {e}") from None
        except ValueError as e:
            raise ValueError(
                f"Incompatible return values of `true_fn` and `false_fn`: {e}"
            ) from None

        if not res_t:
            raise ValueError("`true_fn` and `false_fn` must return at least one result.")
        res_t_flat = _flatten(res_t)
        res_f_flat = _flatten(res_f)
        for x, y in zip(res_t_flat, res_f_flat, strict=True):
            if x.dtype.base_dtype != y.dtype.base_dtype:
                raise ValueError(
                    "Outputs of `true_fn` and `false_fn` must have the same type(s). "
                    f"Received {x.dtype.name} from `true_fn` and {y.dtype.name} from `false_fn`."
                )
        merges = [merge([f, t])[0] for f, t in zip(res_f_flat, res_t_flat, strict=True)]
        merges = _pack_as(orig_res_t, merges)
        if not strict:
            merges = _unpack_if_singleton(merges)
        return merges


def _case_verify_and_canonicalize_args(pred_fn_pairs, exclusive, name):
    if not isinstance(pred_fn_pairs, list | builtins.tuple | dict):
        raise TypeError(
            f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}"
        )
    if isinstance(pred_fn_pairs, collections.OrderedDict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, builtins.tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if isinstance(pred, ops.Tensor):
            if pred.dtype != dtypes.bool:
                raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        else:
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    predicates, actions = zip(*pred_fn_pairs, strict=True) if pred_fn_pairs else ((), ())
    return list(predicates), list(actions)


def _assert_at_most_n_true(predicates, n, msg):
    preds_c = array_ops.stack(predicates, name="preds_c")
    num_true = math_ops.reduce_sum(array_ops.cast(preds_c, dtypes.int32), name="num_true_conds")
    condition = math_ops.less_equal(num_true, ops.convert_to_tensor(n, name="n_true_conds"))
    preds_names = ", ".join(getattr(p, "name", "?") for p in predicates)
    error_msg = [f"{msg}: more than {n} conditions ({preds_names}) evaluated as True:", preds_c]
    return logging_ops.Assert(condition, data=error_msg, summarize=len(predicates))


def _case_create_default_action(predicates, actions):
    """The last pair as the default: it asserts that its predicate holds and no other."""
    k = len(predicates) - 1
    predicate, action = predicates[k], actions[k]
    other_predicates, other_actions = predicates[:k], actions[:k]

    def default_action():
        others_msg = (
            f"Implementation error: selected default action #{k} was called, "
            "but some of other predicates are True: "
        )
        default_msg = [
            "Input error: None of conditions evaluated as True:",
            array_ops.stack(predicates, name="preds_c"),
        ]
        with ops.control_dependencies(
            [
                _assert_at_most_n_true(other_predicates, n=0, msg=others_msg),
                logging_ops.Assert(predicate, data=default_msg),
            ]
        ):
            return action()

    return default_action, other_predicates, other_actions


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the first pair whose predicate is true (TF-1.x `tf.case`).

    Built as nested `cond`s, evaluated in order; with `exclusive`, an `Assert` checks
    that at most one predicate is true.

    Args:
        pred_fn_pairs: A list of `(pred, fn)` pairs (or a dict, ordered by the
            predicates' names).
        default: A callable for when no predicate holds; without one, the last pair's
            fn is the default, and running it with its predicate false fails.
        exclusive: Whether at most one predicate may be true.
        strict: As for `cond`.
        name: A name scope for the ops.

    Returns:
        The selected fn's tensors.

    Raises:
        TypeError: For pairs that are not `(bool tensor, callable)`.
    """
    predicates, actions = _case_verify_and_canonicalize_args(pred_fn_pairs, exclusive, name)
    with ops.name_scope(name, "case", [predicates]):
        if default is None:
            default, predicates, actions = _case_create_default_action(predicates, actions)
        fn = default
        for predicate, action in reversed(list(zip(predicates, actions, strict=True))):
            fn = _bind_cond(predicate, action, fn, strict)
        if exclusive:
            with ops.control_dependencies(
                [_assert_at_most_n_true(predicates, n=1, msg="Input error: exclusive=True")]
            ):
                return fn()
        return fn()


def _bind_cond(pred, true_fn, false_fn, strict):
    return lambda: cond(pred, true_fn=true_fn, false_fn=false_fn, strict=strict)


# -- while_loop ----------------------------------------------------------------------
class WhileContext:
    """The context the cond and body of a `while_loop` are built in.

    ferroflow's loop is TF-2's functional `While` op: cond and body are sub-graphs of
    the same graph, fed by one placeholder per loop variable. Every tensor from
    outside the loop that an op inside uses is *captured*: it becomes an input of
    the `While` op and is fed to the sub-graphs as is (the op's `_feeds` name it), so
    the sub-graphs never run outside ops. Control inputs on outside ops move to the
    `While` op.
    """

    def __init__(self, graph):
        self._graph = graph
        self._outer_context = graph._control_flow_context
        self._start = len(graph._ops)
        self._captures: dict[str, ops.Tensor] = {}
        self._external_controls: list[ops.Operation] = []
        # What a cond nested inside records in its enclosing contexts.
        self._op_ids: set[int] = set()
        self._values: set[str] = set()

    @property
    def outer_context(self):
        """The context this one is nested in, or None."""
        return self._outer_context

    def Enter(self):
        """Makes this the graph's current control-flow context."""
        self._saved = self._graph._control_flow_context
        self._graph._control_flow_context = self

    def Exit(self):
        """Restores the context that was current before `Enter`."""
        self._graph._control_flow_context = self._saved

    def _is_outside(self, op):
        # Ops made while building the loop but outside its context (a variable and its
        # `read`, made under `init_scope` by a cell's first call in the body) are
        # outside it, as in TF: captured, so gradients reach them.
        return op._id < self._start or op._id not in self._op_ids

    def AddValue(self, val):
        """`val` as the loop sees it: itself, captured when it comes from outside.

        A variable reference is not captured: the sub-graph uses the variable itself
        (so assignments inside the loop reach it).
        """
        if self._is_outside(val.op) and not val.dtype._is_ref_dtype:
            self._captures.setdefault(val.name, val)
        return val

    def _process_inputs(self, inputs):
        return [self.AddValue(t) for t in inputs]

    def _control_inputs_of_source(self, control):
        return control

    def _process_control_inputs(self, control):
        kept = []
        for c in control:
            if self._is_outside(c):
                if all(c is not e for e in self._external_controls):
                    self._external_controls.append(c)
            else:
                kept.append(c)
        return kept

    def _add_op(self, op):
        """Records `op` as made inside this loop (and inside the loops around it)."""
        self._op_ids.add(op._id)
        if self._outer_context is not None:
            self._outer_context._add_op(op)


def _shape_less_equal(shape1, shape2):
    """TF's `_ShapeLessThanOrEqual`: `shape1` is at least as specific as `shape2`."""
    if shape2.dims is None:
        return True
    if shape1.ndims != shape2.ndims:
        return False
    return all(
        d2.value is None or d1.value == d2.value
        for d1, d2 in zip(shape1.dims, shape2.dims, strict=True)
    )


def _loop_var_to_tensor(v):
    if hasattr(v, "_as_graph_element") and not isinstance(v, ops.Tensor):
        v = v.value() if hasattr(v, "value") else v._as_graph_element()
    t = ops.convert_to_tensor(v)
    if t.dtype._is_ref_dtype:
        t = array_ops.identity(t)
    return t


def _rank0_message(scope, c):
    dims = ", ".join("?" if d.value is None else str(d.value) for d in c.shape.dims)
    return (
        f"Shape must be rank 0 but is rank {c.shape.ndims} for "
        f"'{{{{node {scope}LoopCond}}}} = LoopCond[]({c.op.name})' with input shapes: [{dims}]."
    )


def _build_while(cond, body, loop_vars, shape_invariants, parallel_iterations, back_prop, scope):
    """Builds the `While` op (TF's `WhileContext.BuildLoop`).

    Returns the outputs packed as the body's result, and the number of loop variables.
    """
    from ..framework import tensor_shape
    from .tensor_array_ops import TensorArray, build_ta_with_new_flow

    g = ops.get_default_graph()
    flat_orig = _flatten(loop_vars)
    flat = [v.flow if isinstance(v, TensorArray) else _loop_var_to_tensor(v) for v in flat_orig]
    if shape_invariants is None:
        invariants = [t.shape for t in flat]
    else:
        _assert_same_structure(loop_vars, shape_invariants)
        invariants = [tensor_shape.as_shape(s) for s in _flatten(shape_invariants)]
    # A TensorArray travels as its flow, a float scalar.
    invariants = [
        tensor_shape.TensorShape([]) if isinstance(v, TensorArray) else inv
        for v, inv in zip(flat_orig, invariants, strict=True)
    ]
    for t, inv in zip(flat, invariants, strict=True):
        if not _shape_less_equal(t.shape, inv):
            raise ValueError(
                f"The shape invariant specified for {t.name} is not compatible with the "
                f"initial shape of the loop variable. It enters the loop with shape {t.shape}, "
                f"but the specified shape invariant is {inv}."
            )
    context = WhileContext(g)
    context.Enter()
    try:
        placeholders = [
            array_ops.placeholder(t.dtype.base_dtype, inv, name="loop_var")
            for t, inv in zip(flat, invariants, strict=True)
        ]
        packed = _pack_as(
            loop_vars,
            [
                build_ta_with_new_flow(v, p) if isinstance(v, TensorArray) else p
                for v, p in zip(flat_orig, placeholders, strict=True)
            ],
        )
        c = context.AddValue(ops.convert_to_tensor(cond(*packed)))
        if c.dtype.base_dtype != dtypes.bool:
            raise TypeError(
                f"Input 'input' of 'LoopCond' Op has type {c.dtype.base_dtype.name} that does "
                "not match expected type of bool."
            )
        if c.shape.ndims is not None and c.shape.ndims != 0:
            raise ValueError(_rank0_message(scope, c))
        body_result = body(*packed)
        if not _is_sequence(body_result):
            body_result = [body_result]
        _assert_same_structure(list(packed), list(body_result))
        flat_result = _flatten(body_result)
        results = [
            context.AddValue(r.flow if isinstance(r, TensorArray) else _loop_var_to_tensor(r))
            for r in flat_result
        ]
    finally:
        context.Exit()
    if len(results) != len(flat):
        raise ValueError(
            "Number of inputs and outputs of 'body' must match 'loop_vars'. Got "
            f"{len(flat)} for the number of inputs/outputs, and {len(results)} for 'loop_vars'."
        )
    for t, p, r in zip(flat, placeholders, results, strict=True):
        if r.dtype.base_dtype != t.dtype.base_dtype:
            raise TypeError(
                f"Loop var {t.name} enters the loop with type {t.dtype.base_dtype.name}, "
                f"but has type {r.dtype.base_dtype.name} after 1 iteration."
            )
        if not _shape_less_equal(r.shape, p.shape):
            raise ValueError(
                f"Input tensor '{t.name}' enters the loop with shape {t.shape}, but has shape "
                f"{r.shape} after one iteration. To allow the shape to vary across iterations, "
                "use the `shape_invariants` argument of tf.while_loop to specify a "
                "less-specific shape."
            )
    captures = list(context._captures.values())
    # Variables the loop updates (an op inside takes the variable as a reference):
    # their captured reads are read afresh by every op that uses them (TF-1.x's
    # `v/read` aliases the variable), so the cond sees the body's updates.
    updated: dict[int, ops.Tensor] = {}
    for inner in (op for op in g._ops[context._start :] if op._id in context._op_ids):
        flags = op_def_registry.ref_input_flags(inner.type)
        for t, is_ref in zip(inner.inputs, flags, strict=False):
            if is_ref:
                updated.setdefault(t.op._id, t)
    live = [
        len(flat) + k
        for k, c in enumerate(captures)
        if c.op.type == "Identity"
        and c.op.inputs
        and c.op.inputs[0].dtype._is_ref_dtype
        and c.op.inputs[0].op._id in updated
    ]
    attrs = {
        "_feeds": [t.name for t in placeholders + captures],
        "_cond": c.name,
        "_body": [r.name for r in results],
        "_back_prop": bool(back_prop),
        "output_shapes": [*invariants, *(t.shape for t in captures)],
        "parallel_iterations": int(parallel_iterations),
        "_live_captures": live,
        # The refs of the variables the loop updates: later reads of them (after the
        # loop, by a control dependency) read the variable, as TF's aliasing reads do.
        "_updates": [t.name for t in updated.values()],
    }
    with ops.control_dependencies(context._external_controls):
        op = g._create_op("While", flat + captures, attrs, name=scope)
    # Named as TF-1.x's loop exits (`while/Exit`, `while/Exit_1`, ...), so programs
    # that fetch those names find them.
    outputs = [array_ops.identity(t, name="Exit") for t in op.outputs[: len(flat)]]
    # A TensorArray leaves over the same handle, with the element shape the body's
    # writes gave it (the shape list is shared).
    outputs = [
        build_ta_with_new_flow(v, t) if isinstance(r, TensorArray) else t
        for v, r, t in zip(flat_orig, flat_result, outputs, strict=True)
    ]
    return _pack_as(body_result, outputs), len(outputs)


def while_loop(
    cond,
    body,
    loop_vars,
    shape_invariants=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
    maximum_iterations=None,
    return_same_structure=False,
):
    """Repeats `body` while `cond` is true (TF-1.x `tf.while_loop`).

    The loop is one functional `While` op: `cond` and `body` are built once into
    sub-graphs that the op's kernel runs natively, iteration after iteration. Tensors
    from outside the loop that they use are captured as inputs of the op.

    Args:
        cond: A callable taking the loop variables, returning a scalar bool tensor.
        body: A callable taking the loop variables, returning their next values in the
            same structure.
        loop_vars: A (possibly nested) list, tuple, namedtuple or dict of tensors.
        shape_invariants: The shape each loop variable keeps across iterations (same
            structure as `loop_vars`); by default its initial shape.
        parallel_iterations: How many iterations may run at once, where iterations
            are independent (a `map_fn`-like loop of counters and TensorArray
            writes, with bodies large enough to share out); others run one after
            another. Must be positive.
        back_prop: Whether gradients flow through the loop (False: none do).
        swap_memory: Accepted for compatibility.
        name: A name scope for the ops (default `while`).
        maximum_iterations: An optional int scalar tensor: the loop stops after this
            many iterations at most (it becomes part of the condition, as TF's).
        return_same_structure: Whether to return the structure of `loop_vars` even for
            a single loop variable.

    Returns:
        The loop variables' final values, in the structure `body` returns (a single
        loop variable unpacked unless `return_same_structure`).

    Raises:
        TypeError: If `cond` or `body` is not callable, `parallel_iterations` is not
            positive, `cond` is not a bool tensor, or `body` changes a dtype.
        ValueError: If `loop_vars` is empty, the structures do not match, or a shape
            does not keep its invariant.
    """
    del swap_memory
    from ..framework import tensor_shape

    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if isinstance(loop_vars, ops.Tensor) or hasattr(loop_vars, "_as_graph_element"):
        loop_vars = [loop_vars]
    values = [v for v in _flatten(loop_vars) if isinstance(v, ops.Tensor)]
    with ops.name_scope(name, "while", values) as scope:
        if not loop_vars:
            raise ValueError("'loop_vars' must be provided.")
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            maximum_iterations = ops.convert_to_tensor(
                maximum_iterations, name="maximum_iterations"
            )
            if maximum_iterations.shape.ndims != 0:
                raise ValueError(
                    "'maximum_iterations' must be a scalar. "
                    f"Received shape: {maximum_iterations.shape}"
                )
            counter = constant_op.constant(
                0, dtype=maximum_iterations.dtype, name="iteration_counter"
            )
            orig_cond, orig_body = cond, body
            if try_to_pack:
                loop_vars = (counter, loop_vars[0])

                def cond(i, lv):
                    return math_ops.logical_and(i < maximum_iterations, orig_cond(lv))

                def body(i, lv):
                    return (i + 1, orig_body(lv))
            else:
                loop_vars = (counter, loop_vars)

                def cond(i, lv):
                    return math_ops.logical_and(i < maximum_iterations, orig_cond(*lv))

                def body(i, lv):
                    return (i + 1, orig_body(*lv))

            try_to_pack = False
            if shape_invariants is not None:
                shape_invariants = (tensor_shape.TensorShape([]), shape_invariants)
        packed, n = _build_while(
            cond, body, loop_vars, shape_invariants, parallel_iterations, back_prop, scope
        )
        if return_same_structure:
            result = packed
        else:
            result = packed[0] if n == 1 and isinstance(packed, list | builtins.tuple) else packed
        if maximum_iterations is not None:
            return result[1]
        return result


def _is_differentiable(dtype):
    dtype = dtype.base_dtype
    return dtype.is_floating or dtype.is_complex


@ops.RegisterGradient("While")
def _while_grad(op, *grads):
    """The gradient of a `While`: a `_WhileGrad` op over the body's VJP sub-graph.

    The VJP sub-graph is `tf.gradients` of the body's outputs with respect to its
    loop-variable placeholders and captures, seeded with placeholders for the
    incoming gradients (a capture's gradient is summed across iterations through an
    accumulator placeholder). `_WhileGrad` replays what the forward loop recorded
    (each iteration's loop variables and the body tensors the VJP reads: TF's
    stack-based accumulation, without re-running the body) and runs the VJP over
    them in reverse. Captures are differentiated as independent inputs (`stop_gradients`):
    the outer graph carries their gradients on.
    """
    from . import gradients as gradients_impl

    n_inputs = len(op.inputs)
    if not op.get_attr("_back_prop"):
        return [None] * n_inputs
    g = op.graph

    def tensor(name):
        return g.get_tensor_by_name(name.decode() if isinstance(name, bytes) else name)

    feeds = [tensor(n) for n in op.get_attr("_feeds")]
    body = [tensor(n) for n in op.get_attr("_body")]
    n_vars = len(body)
    diff_vars = [
        i for i in range(n_vars) if _is_differentiable(op.inputs[i].dtype) and grads[i] is not None
    ]
    diff_caps = [i for i in range(n_vars, n_inputs) if _is_differentiable(op.inputs[i].dtype)]
    diff = diff_vars + diff_caps
    if not diff_vars:
        # No float loop variable: nothing differentiable leaves the loop.
        return [None] * n_inputs
    with ops.control_dependencies(None):
        seeds = [
            array_ops.placeholder(feeds[i].dtype.base_dtype, feeds[i].shape, name="grad_seed")
            for i in diff_vars
        ]
        accumulators = [
            array_ops.placeholder(
                op.inputs[i].dtype.base_dtype, op.inputs[i].shape, name="grad_acc"
            )
            for i in diff_caps
        ]
        xs = [feeds[i] for i in diff]
        vjp = gradients_impl.gradients(
            [body[i] for i in diff_vars],
            xs,
            grad_ys=seeds,
            stop_gradients=feeds,
            unconnected_gradients=gradients_impl.UnconnectedGradients.ZERO,
            # Not `gradients...`: a TensorArray gradient finds its gradient array by
            # the outer call's scope (the last `gradients*` name component).
            name="vjp",
        )
        vjp = [ops.convert_to_tensor(v) for v in vjp]
        fetches = vjp[: len(diff_vars)] + [
            acc + v for acc, v in zip(accumulators, vjp[len(diff_vars) :], strict=True)
        ]
        incoming = []
        for i in diff:
            gi = grads[i]
            gi = array_ops.zeros_like(op.inputs[i]) if gi is None else ops.convert_to_tensor(gi)
            incoming.append(gi)
        attrs = {
            "_feeds": [t.name for t in feeds],
            "_cond": op.get_attr("_cond"),
            "_body": [t.name for t in body],
            "_diff": diff,
            "_grad_feeds": [t.name for t in seeds + accumulators],
            "_grad_fetches": [t.name for t in fetches],
            # The forward loop, whose tape (what it recorded per iteration) this
            # gradient replays.
            "_forward": op.name,
        }
        grad_op = g._create_op("_WhileGrad", list(op.inputs) + incoming, attrs, name="WhileGrad")
    out: list[ops.Tensor | None] = [None] * n_inputs
    for j, i in enumerate(diff):
        out[i] = grad_op.outputs[j]
    return out
