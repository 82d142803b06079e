"""Control flow: `cond`, `case`, `switch_case`, `while_loop` and the grouping ops.

`cond` is TF-1.x's: a `Switch` on the predicate, each branch built in a
`CondContext` (tensors from outside a branch enter it through a `Switch` of their
own, ops without inputs wait for the branch's pivot), and a `Merge` per output. The
executor propagates deadness, so only the taken branch's ops run.

Composite tensors (`SparseTensor`, `IndexedSlices`) go through `cond`, `while_loop`,
`switch`, `merge`, `tuple` and `group` as their component tensors (TF's
`nest.flatten(..., expand_composites=True)`) and come out rebuilt; a `TensorArray`
goes through as its flow.
"""

from __future__ import annotations

import builtins
import collections

from .._compat import zip_strict
from ..framework import constant_op, dtypes, op_def_registry, ops, tensor_shape
from ..framework.composite_tensor import CompositeTensor
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor_spec import TensorSpec
from ..framework.type_spec import TypeSpec
from ..util import nest
from . import array_ops, control_flow_util, logging_ops, math_ops


def no_op(name=None):
    """An op that does nothing (useful as a control-dependency anchor)."""
    return ops.get_default_graph()._create_op("NoOp", [], name=name or "NoOp")


def _ops_of(inputs):
    out = []
    for i in inputs:
        if i is None:
            continue
        if hasattr(i, "_as_graph_element") and not isinstance(i, (ops.Tensor, ops.Operation)):
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

    As TF's, nested lists of inputs are flattened (`tf.group([a, b])`), and a
    composite tensor stands for its component tensors.

    Args:
        *inputs: Ops or tensors to run, or (nested) lists of them.
        **kwargs: Only `name`.

    Returns:
        The grouping `NoOp`.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Unknown keyword arguments: {', '.join(kwargs)}")
    deps = _ops_of(nest.flatten(inputs, expand_composites=True))
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


def _convert_to_tensor_or_composite(value, dtype=None, name=None):
    """`value` itself when a composite tensor, else `value` as a `Tensor` (TF's)."""
    if isinstance(value, CompositeTensor):
        value_dtype = getattr(value, "dtype", None)
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value_dtype):
            raise ValueError(
                f"Tensor conversion dtype mismatch. Requested dtype is "
                f"{dtypes.as_dtype(dtype).name}, Tensor has dtype "
                f"{getattr(value_dtype, 'name', value_dtype)}: {value!r}"
            )
        return value
    return ops.convert_to_tensor(value, dtype=dtype, name=name)


def with_dependencies(dependencies, output_tensor, name=None):
    """`output_tensor`'s value, available only after every op in `dependencies` ran.

    Returns an `Identity` named `control_dependency` (TF's name) under `name`; for an
    `IndexedSlices` only its values go through one, for another composite tensor each
    component does.
    """
    with ops.name_scope(name, "control_dependency", [*dependencies, output_tensor]) as scope:
        # As TF: colocated with `output_tensor` (converted first when it is a value).
        anchor = output_tensor
        if not (isinstance(anchor, (ops.Tensor, ops.Operation)) or hasattr(anchor, "op")):
            anchor = ops.convert_to_tensor(anchor)
        with ops.colocate_with(anchor), ops.control_dependencies(dependencies):
            output_tensor = _convert_to_tensor_or_composite(output_tensor)
            if isinstance(output_tensor, IndexedSlices):
                return IndexedSlices(
                    array_ops.identity(output_tensor.values, name=scope),
                    output_tensor.indices,
                    output_tensor.dense_shape,
                )
            if isinstance(output_tensor, CompositeTensor):
                return nest.map_structure(array_ops.identity, output_tensor, expand_composites=True)
            return array_ops.identity(output_tensor, name=scope)


def _is_tensor(t) -> bool:
    return isinstance(t, (ops.Tensor, CompositeTensor))


def tuple(tensors, name=None, control_inputs=None):
    """Tensors with the same values as `tensors`, each available only after all are computed.

    Args:
        tensors: A list of tensors, composite tensors (`IndexedSlices`,
            `SparseTensor`), ops or None.
        name: A name scope for the ops (default `tuple`).
        control_inputs: More ops (or tensors) that must finish first.

    Returns:
        A list like `tensors`: each tensor through an `Identity` gated on all of them,
        each op as a `NoOp` after them, None left as is.

    Raises:
        ValueError: If `tensors` holds no tensor or op.
        TypeError: If a control input is not an op or tensor.
    """
    with ops.name_scope(name, "tuple", tensors):
        tensors = [
            t
            if isinstance(t, ops.Operation) or _is_tensor(t) or t is None
            else ops.convert_to_tensor(t)
            for t in tensors
        ]
        gating = [t if isinstance(t, ops.Operation) else t.op for t in tensors if t is not None]
        for c in control_inputs or []:
            if isinstance(c, ops.Tensor):
                c = c.op
            elif not isinstance(c, ops.Operation):
                raise TypeError(
                    f"'control_inputs' must only contain Operation or Tensor. Received: {type(c)}"
                )
            gating.append(c)
        # In creation order, as TF's (so the graph is the same).
        gating = sorted({id(op): op for op in gating}.values(), key=lambda op: op._id)
        if not gating:
            raise ValueError(f"'tensors' must have at least one Tensor. Received: {tensors}.")
        gate = group(*gating)
        out: list = []
        for t in tensors:
            if _is_tensor(t):
                out.append(with_dependencies([gate], t))
            elif isinstance(t, ops.Operation):
                with ops.control_dependencies([gate]):
                    out.append(group(t))
            else:
                out.append(None)
        return out


# -- nested structures (TF's `nest`) -------------------------------------------------
# Kept for `functional_ops` (`map_fn`, `scan`, the folds).
_is_sequence = nest.is_sequence
_flatten = nest.flatten


def _pack_as(structure, flat):
    """`flat`'s leading items packed into the nesting of `structure`."""
    flat = list(flat)
    return nest.pack_sequence_as(structure, flat[: len(nest.flatten(structure))])


def _assert_same_structure(a, b):
    """TF's `nest.assert_same_structure` (ValueError for nestings, TypeError for types)."""
    nest.assert_same_structure(a, b)


def _convert_tensorarray_to_flow(tensor_or_tensor_array):
    from .tensor_array_ops import TensorArray

    if isinstance(tensor_or_tensor_array, TensorArray):
        return tensor_or_tensor_array.flow
    return tensor_or_tensor_array


def _convert_flows_to_tensorarrays(tensors_or_tensorarrays, tensors_or_flows):
    """A `TensorArray` with the new flow where the original is one (TF's)."""
    from .tensor_array_ops import TensorArray, build_ta_with_new_flow

    return [
        build_ta_with_new_flow(ta, t_or_flow) if isinstance(ta, TensorArray) else t_or_flow
        for ta, t_or_flow in zip_strict(tensors_or_tensorarrays, tensors_or_flows)
    ]


# -- Switch and Merge --------------------------------------------------------------
def _Identity(data, name=None):
    """TF's `_Identity`: an identity of `data` that keeps a variable's reference.

    A reference gets a `RefIdentity`; a composite tensor, one identity per component.
    """
    data = data._ref() if hasattr(data, "_ref") else _convert_to_tensor_or_composite(data)
    if isinstance(data, ops.Tensor):
        if data.dtype._is_ref_dtype:
            return _ref_identity(data, name=name)
        return array_ops.identity(data, name=name)
    if not isinstance(data, CompositeTensor):
        raise TypeError(f"Type {type(data)} not supported")
    return nest.map_structure(_Identity, data, expand_composites=True)


def _ref_identity(ref, name=None):
    """A `RefIdentity` of the variable reference `ref`: the same reference."""
    return (
        ops.get_default_graph()
        ._create_op("RefIdentity", [ref], name=name or "RefIdentity")
        .outputs[0]
    )


def _switch_op(data, pred, name="Switch"):
    op_type = "RefSwitch" if data.dtype._is_ref_dtype else "Switch"
    op = ops.get_default_graph()._create_op(op_type, [data, pred], name=name)
    return op.outputs[0], op.outputs[1]


def switch(data, pred, dtype=None, name=None):
    """Forwards `data` to output 1 when `pred` is true, else to output 0.

    The other output is dead: ops that consume it do not run. A composite tensor
    (`IndexedSlices`, `SparseTensor`) is switched component by component and comes
    out as two of its kind.

    Args:
        data: The tensor (or composite tensor) to forward.
        pred: A scalar bool tensor.
        dtype: The dtype to convert `data` to (optional).
        name: A name for the op.

    Returns:
        `(output_false, output_true)`.

    Raises:
        TypeError: If `data` is neither a tensor nor a composite tensor.
    """
    with ops.name_scope(name, "Switch", [data, pred]) as scope:
        data = _convert_to_tensor_or_composite(data, dtype=dtype, name="data")
        pred = ops.convert_to_tensor(pred, name="pred")
        if isinstance(data, ops.Tensor):
            return _switch_op(data, pred, name=scope)
        if not isinstance(data, CompositeTensor):
            raise TypeError(f"Type {type(data)} not supported")
        tensors = nest.flatten(data, expand_composites=True)
        mapped_f, mapped_t = zip_strict(*[_switch_op(t, pred) for t in tensors])
        return (
            nest.pack_sequence_as(data, list(mapped_f), expand_composites=True),
            nest.pack_sequence_as(data, list(mapped_t), expand_composites=True),
        )


def _switch_ref_or_tensor(data, pred, name="Switch"):
    """A `Switch` (or `RefSwitch`) of `data`, colocated with `data` (TF's).

    Only `data`'s colocation applies (TF's `ignore_existing`): a branch's value
    is switched where it is made, whatever the op it feeds is colocated with.
    """
    data = _convert_to_tensor_or_composite(data, name="data")
    with ops.colocate_with(data, ignore_existing=True):
        return switch(data, pred, name=name)


def _as_indexed_slices(x):
    """`x` as an `IndexedSlices` of all its rows (TF's `_as_indexed_slices`, unoptimized).

    Raises:
        TypeError: If `x` is neither a tensor nor an `IndexedSlices`.
    """
    from ._op_util import make_op

    if not isinstance(x, (ops.Tensor, IndexedSlices)):
        raise TypeError(f"Not a Tensor or IndexedSlices: {type(x)}")
    if isinstance(x, IndexedSlices):
        return x
    with ops.name_scope(None, "Shape", [x]) as scope:
        x_shape = make_op("Shape", [x], {"out_type": dtypes.int32}, scope=scope).outputs[0]
    return IndexedSlices(x, math_ops.range(0, x_shape[0]), x_shape)


def _as_indexed_slices_list(inputs):
    """`inputs` as `IndexedSlices`, with int64 indices when their index dtypes mix (TF's)."""
    outputs = [_as_indexed_slices(i) for i in inputs]
    with_int32_index = [o.indices for o in outputs if o.indices.dtype == dtypes.int32]
    if not with_int32_index or len(with_int32_index) == len(outputs):
        return outputs
    return [
        IndexedSlices(o.values, array_ops.cast(o.indices, dtypes.int64), o.dense_shape)
        if o.indices.dtype == dtypes.int32
        else o
        for o in outputs
    ]


# What `merge` returns: TF's generated `Merge` wrapper's named pair.
_MergeOutput = collections.namedtuple("_MergeOutput", ["output", "value_index"])


def _merge_op(inputs, name="Merge"):
    op = ops.get_default_graph()._create_op("Merge", list(inputs), name=name)
    return _MergeOutput(op.outputs[0], op.outputs[1])


def merge(inputs, name=None):
    """Forwards the one live tensor of `inputs`.

    Composite tensors (`IndexedSlices`, `SparseTensor`) of one structure are merged
    component by component; tensors merged with `IndexedSlices` become ones (all
    their rows).

    Args:
        inputs: Tensors (or composite tensors) of one dtype, at most one of them alive
            at run time.
        name: A name for the op.

    Returns:
        `(output, value_index)`: the live tensor and its index in `inputs`.

    Raises:
        ValueError: If an input is None, or composite inputs differ in structure.
        TypeError: If an input is of an unsupported type.
    """
    if any(inp is None for inp in inputs):
        raise ValueError(f"At least one of the merge inputs is None: {inputs}")
    with ops.name_scope(name, "Merge", inputs) as scope:
        inputs = [_convert_to_tensor_or_composite(t) for t in inputs]
        if all(isinstance(v, ops.Tensor) for v in inputs):
            return _merge_op(inputs, name=scope)
        if all(isinstance(v, (IndexedSlices, ops.Tensor)) for v in inputs):
            inputs = _as_indexed_slices_list(inputs)
        for v in inputs:
            if not isinstance(v, CompositeTensor):
                raise TypeError(f"Type {type(v)} not supported")
        for v in inputs[1:]:
            nest.assert_same_structure(inputs[0], v, expand_composites=True)
        flat_inputs = [nest.flatten(v, expand_composites=True) for v in inputs]
        merged = [_merge_op(component) for component in zip_strict(*flat_inputs)]
        flat_merged = [t for t, _ in merged]
        chosen_index = merged[0][1]
        return _MergeOutput(
            nest.pack_sequence_as(inputs[0], flat_merged, expand_composites=True), chosen_index
        )


class ControlFlowContext:
    """The base of the cond and while contexts (TF's `ControlFlowContext`).

    A context is current while the ops of a branch or a loop body are built
    (`Enter`/`Exit`); ops made then record themselves in it, and every tensor from
    outside that they use goes through `AddValue`, which each kind of context
    routes its own way. Contexts nest: `outer_context` is the one current when this
    one was made.
    """

    def __init__(self, graph):
        self._graph = graph
        self._outer_context = graph._control_flow_context
        # The ops made inside, and the names of the tensors known inside.
        self._op_ids: set[int] = set()
        self._values: set[str] = set()

    @property
    def outer_context(self):
        """The context this one is nested in, or None."""
        return self._outer_context

    def IsWhileContext(self):
        """Whether this is a while loop's context."""
        return False

    def IsCondContext(self):
        """Whether this is a cond branch's context."""
        return False

    def IsXLAContext(self):
        """Whether this is an XLA compilation context (never, in ferroflow)."""
        return False

    def GetWhileContext(self):
        """The innermost while context this one is (or is nested in), or None."""
        if self.IsWhileContext():
            return self
        return self._outer_context.GetWhileContext() if self._outer_context is not None else None

    def Enter(self):
        """Makes this the graph's current control-flow context."""
        self._saved = self._graph._control_flow_context
        self._graph._control_flow_context = self

    def Exit(self):
        """Restores the context that was current before `Enter`."""
        self._graph._control_flow_context = self._saved

    def AddValue(self, val):
        """`val` as seen inside this context (each kind routes outside tensors)."""
        raise NotImplementedError

    def _check_inputs_from_valid_context(self, op_name, op_type, op_ctxt, inputs):
        """TF's `CheckInputFromValidContext` for an op about to use `inputs`.

        Raises:
            ValueError: If an input is in a while loop that does not contain the op.
        """
        control_flow_util.check_inputs_from_valid_context(op_name, op_type, op_ctxt, inputs)

    def _process_inputs(self, inputs):
        return [self.AddValue(t) for t in inputs]


class CondContext(ControlFlowContext):
    """The context a branch of a `cond` is built in (TF's `CondContext`).

    Every tensor from outside the branch that an op inside uses goes through a
    `Switch` on the predicate (one per tensor and branch), so it is dead when the
    branch is not taken, and ops without inputs run after the branch's pivot.
    """

    def __init__(self, pred, pivot, branch):
        super().__init__(pred.graph)
        self._pred = pred
        self._pivot = pivot
        self._branch = branch
        self._values.update((pred.name, pivot.name))
        self._external_values: dict[str, ops.Tensor] = {}

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

    def IsCondContext(self):
        """True: a cond branch's context."""
        return True

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
        self._graph.prevent_fetching(result.op)
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

    def _control_inputs_of_source(self, control):
        if any(c._id in self._op_ids for c in control):
            return control
        return [*control, self._pivot.op]

    def _process_control_inputs(self, control):
        if self._outer_context is not None:
            return self._outer_context._process_control_inputs(control)
        return control

    def _add_native_op(self, op):
        """Records `op`, made by `tf.gradients` in Rust, as made in this branch.

        The loop around the branch (if any) captures what `op` uses from outside.
        """
        self._add_op(op)
        ctxt = self._outer_context.GetWhileContext() if self._outer_context is not None else None
        if ctxt is not None:
            for t in op.inputs:
                ctxt.AddValue(t)

    def _add_op(self, op):
        self._op_ids.add(op._id)
        for t in op.outputs:
            self._values.add(t.name)
        # As TF: a branch's ops run only when their branch is taken.
        self._graph.prevent_fetching(op)
        if self._outer_context is not None:
            self._outer_context._add_op(op)

    def _build_tensor(self, v):
        if isinstance(v, ops.Operation):
            # The pivot stands for an op.
            return with_dependencies([v], self._pivot)
        v = _convert_tensorarray_to_flow(v)
        return self._process_output_tensor(ops.convert_to_tensor(v))

    def BuildCondBranch(self, fn):
        """Builds `fn()` in this context; returns (its result, the branch's tensors).

        Composite tensors in the result are built component by component, a
        `TensorArray` as its flow.
        """
        original = fn()
        if original is None:
            return None, None
        result = nest.map_structure(self._build_tensor, original, expand_composites=True)
        if not isinstance(result, (list, builtins.tuple)):
            result = [result]
        return original, result


def _unpack_if_singleton(res):
    if isinstance(res, (list, builtins.tuple)) and len(res) == 1:
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
        # As TF: the tensors that exist on one branch only cannot be fetched.
        for tensor in (p_1, p_2, pivot_1, pivot_2, pred):
            tensor.op.graph.prevent_fetching(tensor.op)

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
        # As TF: composite tensors compare by their specs (sparse tensors of different
        # dense shapes match); IndexedSlices of int32 and int64 indices are cast to int64.
        try:
            nest.assert_same_structure(orig_res_t, orig_res_f, expand_composites=True)
        except (TypeError, ValueError):
            nest.map_structure(_cast_indexed_slice_indices, orig_res_t, orig_res_f)
            nest.map_structure(_cast_indexed_slice_indices, res_t, res_f)
            try:
                nest.assert_same_structure(orig_res_t, orig_res_f, expand_composites=True)
            except TypeError as e:
                raise TypeError(
                    f"Incompatible return types of `true_fn` and `false_fn`: {e}"
                ) from None
            except ValueError as e:
                raise ValueError(
                    f"Incompatible return values of `true_fn` and `false_fn`: {e}"
                ) from None

        if not res_t:
            raise ValueError("`true_fn` and `false_fn` must return at least one result.")
        res_t_flat = nest.flatten(res_t, expand_composites=True)
        res_f_flat = nest.flatten(res_f, expand_composites=True)
        for x, y in zip_strict(res_t_flat, res_f_flat):
            if x.dtype.base_dtype != y.dtype.base_dtype:
                raise ValueError(
                    "Outputs of `true_fn` and `false_fn` must have the same type(s). "
                    f"Received {x.dtype.name} from `true_fn` and {y.dtype.name} from `false_fn`."
                )
        merges = [merge([f, t])[0] for f, t in zip_strict(res_f_flat, res_t_flat)]
        # A TensorArray comes out as `true_fn`'s, over the merged flow (TF's).
        merges = _convert_flows_to_tensorarrays(
            nest.flatten(orig_res_t, expand_composites=True), merges
        )
        merges = nest.pack_sequence_as(orig_res_t, merges, expand_composites=True)
        if not strict:
            merges = _unpack_if_singleton(merges)
        return merges


def _cast_indexed_slice_indices(a, b):
    """Both `IndexedSlices` with int64 indices when their index dtypes differ (TF's)."""
    if (
        isinstance(a, IndexedSlices)
        and isinstance(b, IndexedSlices)
        and a.indices.dtype != b.indices.dtype
    ):
        a._indices = array_ops.cast(a.indices, dtypes.int64)
        b._indices = array_ops.cast(b.indices, dtypes.int64)


def _case_verify_and_canonicalize_args(pred_fn_pairs, exclusive, name):
    if not isinstance(pred_fn_pairs, (list, builtins.tuple, dict)):
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
    predicates, actions = zip_strict(*pred_fn_pairs) if pred_fn_pairs else ((), ())
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
        for predicate, action in reversed(list(zip_strict(predicates, actions))):
            fn = _bind_cond(predicate, action, fn, strict)
        if exclusive:
            with ops.control_dependencies(
                [_assert_at_most_n_true(predicates, n=1, msg="Input error: exclusive=True")]
            ):
                return fn()
        return fn()


def _bind_cond(pred, true_fn, false_fn, strict):
    return lambda: cond(pred, true_fn=true_fn, false_fn=false_fn, strict=strict)


def _indexed_case_verify_and_canonicalize_args(branch_fns, default, branch_index):
    """`switch_case`'s branches as a list of callables (the default last), checked (TF's).

    Raises:
        TypeError: If `branch_index` is not an integer tensor, `branch_fns` is not a
            list, tuple or dict of callables or `(int, callable)` pairs.
        ValueError: If `branch_fns` is empty or its keys are not `0..n-1`.
    """
    if not isinstance(branch_index, ops.Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, builtins.tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = branch_fns.items()
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for key_fn_pair in branch_fns:
        if not isinstance(key_fn_pair, builtins.tuple) or len(key_fn_pair) != 2:
            raise TypeError(
                f"Each entry in 'branch_fns' must be a 2-tuple. Received {key_fn_pair}."
            )
        key, branch_fn = key_fn_pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(branch_fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [p[0] for p in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(
            f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but "
            f"found {{{','.join(map(str, sorted(keys)))}}}"
        )
    actions = [p[1] for p in sorted(branch_fns, key=lambda p: p[0])]
    if default is not None:
        actions.append(default)
    return actions


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """The result of `branch_fns[branch_index]()`: an integer-indexed `cond` (TF's).

    Out of range (negative or past the last key), `branch_index` selects `default`, or
    without one the branch of the largest key. As TF's n-way `Case` op, the branches'
    results keep their structure (singleton lists are not unpacked) and only the
    selected branch runs; here it is built as a chain of `cond`s on
    `branch_index == k`, so the results, shapes and gradients are those of TF's `Case`
    (zero for what only the other branches use).

    Args:
        branch_index: A scalar integer tensor.
        branch_fns: A list of callables, or a list of `(int, callable)` pairs or a dict
            `{int: callable}` whose keys are `0..n-1`.
        default: A callable for an out-of-range index (optional).
        name: A name scope for the ops.

    Returns:
        The selected branch's tensors.

    Raises:
        TypeError: If `branch_index` is not an integer tensor, or `branch_fns` is not
            made of callables (keyed by Python ints).
        ValueError: If `branch_fns` is empty or its keys are not contiguous from 0.
    """
    branch_fns = _indexed_case_verify_and_canonicalize_args(branch_fns, default, branch_index)
    if branch_index.dtype.base_dtype != dtypes.int32:
        # TF's `Case` op takes an int32 index.
        raise TypeError(
            f"Input 'branch_index' of 'Case' Op has type {branch_index.dtype.base_dtype.name} "
            "that does not match expected type of int32."
        )
    with ops.name_scope(name, "case", [branch_index]):
        outputs: dict[int, object] = {}

        def checked(b, fn):
            # Each branch's result, converted, checked against branch 0's (built first)
            # as TF's `Case` checks its branches.
            def branch():
                out = nest.map_structure(_case_output, fn(), expand_composites=True)
                outputs[b] = out
                if b:
                    _check_same_case_outputs(outputs[0], out, b)
                return out

            return branch

        fns = [checked(b, fn) for b, fn in enumerate(branch_fns)]
        if len(fns) == 1:
            # One branch always runs; its tensors come out through identities, as out
            # of a `Case` op.
            result = fns[0]()
            flat = nest.flatten(result, expand_composites=True)
            out = [
                x if isinstance(x, ops.Operation) else array_ops.identity(x)
                for x in (_convert_tensorarray_to_flow(x) for x in flat)
            ]
            out = _convert_flows_to_tensorarrays(flat, out)
            return nest.pack_sequence_as(result, out, expand_composites=True)
        preds = [
            math_ops.equal(branch_index, constant_op.constant(k, dtype=branch_index.dtype))
            for k in range(len(fns) - 1)
        ]
        fn = fns[-1]
        for pred, action in reversed(list(zip_strict(preds, fns[:-1]))):
            fn = _bind_cond(pred, action, fn, strict=True)
        return fn()


def _case_output(x):
    """A branch result of `switch_case` as TF's `Case` takes it (values as tensors)."""
    from .tensor_array_ops import TensorArray

    if x is None or isinstance(x, (ops.Operation, TensorArray)):
        return x
    return ops.convert_to_tensor(x)


def _check_same_case_outputs(out0, out, b):
    """Raises TF's `Case` error when branch `b`'s outputs differ from branch 0's.

    Raises:
        TypeError: If the structures or dtypes differ.
    """

    def error(detail):
        raise TypeError(
            f"branches[0] and branches[{b}] arguments to tf.switch_case must have the same "
            "number, type, and overall structure of return values.\n\n"
            f"branches[0] output: {out0}\nbranches[{b}] output: {out}\n\n"
            f"Error details:\n{detail}"
        )

    try:
        nest.assert_same_structure(out0, out, expand_composites=True)
    except (TypeError, ValueError) as e:
        error(str(e))
    flat0 = [_convert_tensorarray_to_flow(x) for x in nest.flatten(out0, expand_composites=True)]
    flat = [_convert_tensorarray_to_flow(x) for x in nest.flatten(out, expand_composites=True)]
    for x0, x in zip_strict(flat0, flat):
        if isinstance(x0, ops.Tensor) and isinstance(x, ops.Tensor) and x0.dtype != x.dtype:
            error(f"{x0} and {x} have different types")


# -- while_loop ----------------------------------------------------------------------
class WhileContext(ControlFlowContext):
    """The context the cond and body of a `while_loop` are built in.

    ferroflow's loop is TF-2's functional `While` op: cond and body are sub-graphs of
    the same graph, fed by one placeholder per loop variable. Every tensor from
    outside the loop that an op inside uses is *captured*: it becomes an input of
    the `While` op and is fed to the sub-graphs as is (the op's `_feeds` name it), so
    the sub-graphs never run outside ops. Control inputs on outside ops move to the
    `While` op.
    """

    def __init__(self, graph):
        super().__init__(graph)
        self._start = len(graph._ops)
        self._captures: dict[str, ops.Tensor] = {}
        self._external_controls: list[ops.Operation] = []
        # Each loop-variable placeholder's op id -> the tensor the loop starts it with.
        self._loop_inits: dict[int, ops.Tensor] = {}

    def IsWhileContext(self):
        """True: a while loop's context."""
        return True

    def _is_outside(self, op):
        # Ops made while building the loop but outside its context (a variable and its
        # `read`, made under `init_scope` by a cell's first call in the body) are
        # outside it, as in TF: captured, so gradients reach them.
        return op._id < self._start or op._id not in self._op_ids

    def AddValue(self, val):
        """`val` as the loop sees it: itself, captured when it comes from outside.

        A variable reference is not captured: the sub-graph uses the variable itself
        (so assignments inside the loop reach it). The reference an update op outside
        the loop returns (`assign_add(a, 1)`) is captured: the update runs once, before
        the loop, as TF's (whose loop only `Enter`s its result).
        """
        if self._is_outside(val.op) and (
            not val.dtype._is_ref_dtype or _is_variable_update(val.op)
        ):
            self._captures.setdefault(val.name, val)
        return val

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

    def _add_native_op(self, op):
        """Records `op`, made by `tf.gradients` in Rust, as made in this loop.

        What `op` uses from outside the loop is captured.
        """
        for t in op.inputs:
            self.AddValue(t)
        self._add_op(op)

    def _add_op(self, op):
        """Records `op` as made inside this loop (and inside the loops around it)."""
        self._op_ids.add(op._id)
        # As TF: a loop body's tensors exist only while the loop runs.
        op.graph.prevent_fetching(op)
        for t in op.outputs:
            op.graph.prevent_feeding(t)
        if self._outer_context is not None:
            self._outer_context._add_op(op)


# Ops that take a variable's reference and pass it on without updating it.
_REF_FORWARDING = frozenset(
    ["RefIdentity", "RefSwitch", "RefMerge", "RefEnter", "RefExit", "RefNextIteration", "RefSelect"]
)


def _is_variable_update(op):
    """`op` updates a variable it takes by reference (`Assign*`, `Scatter*`, `Apply*`)."""
    if op.type in _REF_FORWARDING:
        return False
    return any(op_def_registry.ref_input_flags(op.type))


def _shape_less_equal(shape1, shape2):
    """TF's `_ShapeLessThanOrEqual`: `shape1` is at least as specific as `shape2`."""
    if shape2.dims is None:
        return True
    if shape1.ndims != shape2.ndims:
        return False
    return all(
        d2.value is None or d1.value == d2.value for d1, d2 in zip_strict(shape1.dims, shape2.dims)
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


def _get_shape_invariant(var, shape=None):
    """The shape invariant(s) of loop variable `var` (TF's `_get_shape_invariant`).

    A tensor's is a shape (its own by default; a `TensorSpec` of its dtype gives its
    shape); a composite tensor's is the list of its components' shapes, from its spec
    (by default) or from `shape` (a `TypeSpec`, or a `TensorShape` read as TF's
    documented invariant: `[rank]` for a `SparseTensor`, the values' shape for an
    `IndexedSlices`).

    Raises:
        TypeError: If a spec does not describe `var`.
    """
    if isinstance(var, CompositeTensor):
        spec = var._type_spec if shape is None else _shape_invariant_to_type_spec(var, shape)
        return [s.shape for s in nest.flatten(spec, expand_composites=True)]
    if shape is None:
        return var.shape
    if isinstance(shape, TensorSpec):
        if var.dtype != shape.dtype:
            raise TypeError(f"TypeSpec {shape!r} is not compatible with {var!r}")
        return shape.shape
    if isinstance(shape, TypeSpec):
        raise TypeError(f"TypeSpec {shape!r} is not compatible with {var!r}")
    return shape


def _shape_invariant_to_type_spec(var, shape):
    """The spec a shape invariant gives composite loop variable `var` (TF's).

    Raises:
        TypeError: If `shape` is neither a compatible `TypeSpec` nor a `TensorShape`.
    """
    if isinstance(shape, TypeSpec):
        if not shape.is_compatible_with(var):
            raise TypeError(f"TypeSpec {shape!r} is not compatible with {var!r}")
        return shape
    if not isinstance(shape, tensor_shape.TensorShape):
        raise TypeError(f"Expected shape to be a TypeSpec or TensorShape, got {shape!r}")
    try:
        return var._shape_invariant_to_type_spec(shape)
    except NotImplementedError:
        raise TypeError(
            f"To describe or constrain a {type(var).__name__}, use a "
            f"{type(var._type_spec).__name__} instead of a TensorShape."
        ) from None


def _build_while(cond, body, loop_vars, shape_invariants, parallel_iterations, back_prop, scope):
    """Builds the `While` op (TF's `WhileContext.BuildLoop`).

    A composite loop variable (`SparseTensor`, `IndexedSlices`) is carried as its
    component tensors, a `TensorArray` as its flow; cond and body see them rebuilt.

    Returns the outputs packed as the body's result, and the number of loop tensors.
    """
    from .tensor_array_ops import TensorArray, build_ta_with_new_flow

    g = ops.get_default_graph()
    # The loop variables (a leaf each: tensors, composites, TensorArrays), converted.
    leaves = [
        v if isinstance(v, (TensorArray, CompositeTensor)) else _loop_var_to_tensor(v)
        for v in nest.flatten(loop_vars)
    ]
    if shape_invariants is None:
        leaf_invariants = [
            None if isinstance(v, TensorArray) else _get_shape_invariant(v) for v in leaves
        ]
    else:
        nest.assert_same_structure(loop_vars, shape_invariants)
        leaf_invariants = [
            None if isinstance(v, TensorArray) else _get_shape_invariant(v, s)
            for v, s in zip_strict(leaves, nest.flatten(shape_invariants))
        ]
    # The loop tensors: each leaf's components. A TensorArray travels as its flow, a
    # float scalar.
    flat_orig = nest.flatten(leaves, expand_composites=True)
    flat = [v.flow if isinstance(v, TensorArray) else v for v in flat_orig]
    invariants = []
    for v, inv in zip_strict(leaves, leaf_invariants):
        if isinstance(v, TensorArray):
            invariants.append(tensor_shape.TensorShape([]))
        elif isinstance(v, CompositeTensor):
            invariants.extend(inv or ())
        else:
            invariants.append(tensor_shape.as_shape(inv))
    for t, inv in zip_strict(flat, invariants):
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
            for t, inv in zip_strict(flat, invariants)
        ]
        context._loop_inits = {p.op._id: t for p, t in zip_strict(placeholders, flat)}
        inner = [
            build_ta_with_new_flow(v, p) if isinstance(v, TensorArray) else p
            for v, p in zip_strict(flat_orig, placeholders)
        ]
        inner_leaves = nest.pack_sequence_as(leaves, inner, expand_composites=True)
        packed = nest.pack_sequence_as(loop_vars, inner_leaves)
        c = ops.convert_to_tensor(cond(*packed))
        # TF's loop feeds the condition to a `LoopCond` op in the loop's context.
        control_flow_util.check_inputs_from_valid_context(
            f"{scope}LoopCond", "LoopCond", context, [c]
        )
        c = context.AddValue(c)
        if c.dtype.base_dtype != dtypes.bool:
            raise TypeError(
                f"Input 'input' of 'LoopCond' Op has type {c.dtype.base_dtype.name} that does "
                "not match expected type of bool."
            )
        if c.shape.ndims is not None and c.shape.ndims != 0:
            raise ValueError(_rank0_message(scope, c))
        body_result = body(*packed)
        if not nest.is_nested(body_result):
            body_result = [body_result]
        nest.assert_same_structure(list(packed), list(body_result), expand_composites=True)
        flat_result = nest.flatten(body_result, expand_composites=True)
        results = [
            r.flow if isinstance(r, TensorArray) else _loop_var_to_tensor(r) for r in flat_result
        ]
        # TF's loop feeds each next value to a `NextIteration` op in the loop's context.
        for k, r in enumerate(results):
            control_flow_util.check_inputs_from_valid_context(
                f"{scope}NextIteration" + (f"_{k}" if k else ""), "NextIteration", context, [r]
            )
        results = [context.AddValue(r) for r in results]
    finally:
        context.Exit()
    if len(results) != len(flat):
        raise ValueError(
            "Number of inputs and outputs of 'body' must match 'loop_vars'. Got "
            f"{len(flat)} for the number of inputs/outputs, and {len(results)} for 'loop_vars'."
        )
    for t, p, r in zip_strict(flat, placeholders, results):
        if r.dtype.base_dtype != t.dtype.base_dtype:
            raise TypeError(
                f"Loop var {t.name} enters the loop with type {t.dtype.base_dtype.name}, "
                f"but has type {r.dtype.base_dtype.name} after 1 iteration."
            )
        # A composite's components too (TF 1.15 left them unchecked, and its loop ran
        # with them growing; the `While` op needs every shape to keep its invariant, as
        # TF 2.x checks).
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
    for inner_op in (op for op in g._ops[context._start :] if op._id in context._op_ids):
        flags = op_def_registry.ref_input_flags(inner_op.type)
        for t, is_ref in zip(inner_op.inputs, flags):
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
        for v, r, t in zip_strict(flat_orig, flat_result, outputs)
    ]
    return nest.pack_sequence_as(body_result, outputs, expand_composites=True), len(outputs)


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
        loop_vars: A (possibly nested) list, tuple, namedtuple or dict of tensors,
            `TensorArray`s and composite tensors (`SparseTensor`, `IndexedSlices`).
        shape_invariants: The shape each loop variable keeps across iterations (same
            structure as `loop_vars`); by default its initial shape. As TF's: for a
            `SparseTensor` the shape of its `dense_shape` (`[rank]`: the number of
            values and the dense shape may vary), for an `IndexedSlices` the shape of
            its values; a `TypeSpec` (`TensorSpec`, `SparseTensorSpec`) also does.
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
            result = packed[0] if n == 1 and isinstance(packed, (list, builtins.tuple)) else packed
        if maximum_iterations is not None:
            return result[1]
        return result


def _is_differentiable(dtype):
    dtype = dtype.base_dtype
    return dtype.is_floating or dtype.is_complex


@ops.RegisterGradient("_WhileGrad")
def _while_grad_grad(op, *grads):
    """TF 1.x's error for differentiating a loop's gradient (its `_ExitGrad`'s)."""
    raise TypeError("Second-order gradient for while loops not supported.")


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
    # The gradient reads the loop's tensors, as TF's gradient loop context does.
    forward_context = feeds[0].op._control_flow_context
    # The context `tf.gradients` was called in: inside an outer loop's body (a
    # gradient taken per iteration), the gradient loop is part of that body.
    caller_context = g._control_flow_context
    with ops.control_dependencies(None), control_flow_util.while_gradient_of(forward_context):
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
            # Not `gradients...`: a TensorArray gradient finds its gradient array by
            # the outer call's scope (the last `gradients*` name component).
            name="vjp",
            # The body's gradient ops go where their forward ops are, as TF's.
            colocate_gradients_with_ops=gradients_impl.colocating_gradients(),
        )
        # A capture no differentiable body output depends on (an input of a
        # non-differentiable op only, such as a `Cast` to int) has no gradient: None
        # as TF's. A loop variable's gradient is zeros where the body does not use it.
        connected = [k for k, v in enumerate(vjp[len(diff_vars) :]) if v is not None]
        diff_caps = [diff_caps[k] for k in connected]
        accumulators = [accumulators[k] for k in connected]
        diff = diff_vars + diff_caps
        vjp_vars = [
            array_ops.zeros_like(x) if v is None else ops.convert_to_tensor(v)
            for x, v in zip(xs, vjp[: len(diff_vars)])
        ]
        vjp_caps = [ops.convert_to_tensor(vjp[len(diff_vars) + k]) for k in connected]
        fetches = vjp_vars + [acc + v for acc, v in zip_strict(accumulators, vjp_caps)]
        g._control_flow_context = caller_context
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
