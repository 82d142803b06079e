"""Graphs, operations and tensors: thin Python handles over the Rust graph.

A `Graph` owns a native graph (nodes, dtypes, static shapes, unique names live in
Rust) plus what only Python can hold: collections of arbitrary objects, the name
scope, control-dependency and device stacks, and the `Operation` handles.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _ferroflow, protos
from . import device as pydev
from . import dtypes, op_def_registry, tensor_shape

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\-/>]*$")


def _per_thread_list(attr: str) -> property:
    """A `Graph` property holding a list per thread (in `_thread_local.<attr>`)."""

    def get(self) -> list:
        stack = getattr(self._thread_local, attr, None)
        if stack is None:
            stack = []
            setattr(self._thread_local, attr, stack)
        return stack

    def set_(self, value) -> None:
        setattr(self._thread_local, attr, value)

    return property(get, set_)


class GraphKeys:
    """Standard names of graph collections (TensorFlow's `tf.GraphKeys`)."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = GLOBAL_VARIABLES
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"

    _VARIABLE_COLLECTIONS = (
        GLOBAL_VARIABLES,
        LOCAL_VARIABLES,
        METRIC_VARIABLES,
        MODEL_VARIABLES,
        TRAINABLE_VARIABLES,
        MOVING_AVERAGE_VARIABLES,
        CONCATENATED_VARIABLES,
        TRAINABLE_RESOURCE_VARIABLES,
    )


class Tensor:
    """A symbolic handle to one output of an `Operation`.

    A `Tensor` holds no value; it names the `value_index`-th output of `op`, whose
    value is computed by `Session.run` (or `Tensor.eval`). Its `dtype` and static
    `shape` are inferred by the Rust graph when the op is created.
    """

    __slots__ = ("__weakref__", "_dtype", "_op", "_shape", "_value_index")

    # numpy defers binary operators to Tensor when it is on the right-hand side.
    __array_priority__ = 100

    def __init__(self, op: Operation, value_index: int, dtype: dtypes.DType, shape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = shape

    @property
    def op(self) -> Operation:
        """The `Operation` that produces this tensor."""
        return self._op

    @property
    def value_index(self) -> int:
        """The index of this tensor among its op's outputs."""
        return self._value_index

    @property
    def dtype(self) -> dtypes.DType:
        """The element type (a ref type such as `float32_ref` for variable references)."""
        return self._dtype

    @property
    def graph(self) -> Graph:
        """The graph that contains this tensor."""
        return self._op._graph

    @property
    def name(self) -> str:
        """The tensor's name, `"<op name>:<output index>"`."""
        return f"{self._op._name}:{self._value_index}"

    @property
    def device(self) -> str:
        """The device of the producing op."""
        return self._op.device

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The static shape inferred at graph-construction time."""
        return self._shape

    def get_shape(self) -> tensor_shape.TensorShape:
        """Alias of `shape`."""
        return self._shape

    def set_shape(self, shape) -> None:
        """Refines the static shape; raises `ValueError` if `shape` is incompatible."""
        shape = tensor_shape.as_shape(shape)
        self._op._graph._native.set_shape(
            self._op._id, self._value_index, tensor_shape._to_native(shape)
        )
        self._shape = self._shape.merge_with(shape)

    def consumers(self) -> list[Operation]:
        """The ops that take this tensor as an input."""
        return [op for op in self._op._graph._ops if any(t is self for t in op._inputs)]

    def eval(self, feed_dict=None, session=None):
        """Computes this tensor in `session` (or the default session).

        Args:
            feed_dict: Optional feeds, as for `Session.run`.
            session: The session to use; defaults to the default session.

        Returns:
            A numpy array (or numpy scalar) with the value.
        """
        return _eval_using_default_session(self, feed_dict, self.graph, session)

    def _as_node_def_input(self) -> str:
        return self._op._name if self._value_index == 0 else self.name

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self) -> str:
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name})'

    # Tensors compare and hash by identity (TF-1.x); the default object hash is the
    # fastest for the session's plan-cache lookups.

    def __bool__(self) -> bool:
        raise TypeError(
            "Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not None:` "
            "instead of `if t:` to test if a tensor is defined, and use TensorFlow ops such "
            "as tf.cond to execute subgraphs conditioned on the value of a tensor."
        )

    def __iter__(self):
        raise TypeError("'Tensor' object is not iterable.")

    def __len__(self) -> int:
        raise TypeError(
            f"len is not well defined for symbolic Tensors. ({self.name}) Please call "
            "`x.shape` rather than `len(x)` for shape information."
        )

    # The operators that op modules above this floor install (TF's list): math_ops the
    # arithmetic, logical and comparison operators, indexing_ops `__getitem__`.
    OVERLOADABLE_OPERATORS = frozenset(
        {
            # Binary.
            "__add__",
            "__radd__",
            "__sub__",
            "__rsub__",
            "__mul__",
            "__rmul__",
            "__div__",
            "__rdiv__",
            "__truediv__",
            "__rtruediv__",
            "__floordiv__",
            "__rfloordiv__",
            "__mod__",
            "__rmod__",
            "__lt__",
            "__le__",
            "__gt__",
            "__ge__",
            "__ne__",
            "__eq__",
            "__and__",
            "__rand__",
            "__or__",
            "__ror__",
            "__xor__",
            "__rxor__",
            "__getitem__",
            "__pow__",
            "__rpow__",
            # Unary.
            "__invert__",
            "__neg__",
            "__abs__",
            "__matmul__",
            "__rmatmul__",
        }
    )

    if TYPE_CHECKING:
        # What math_ops and indexing_ops install, for type checkers.
        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __floordiv__(self, other: Any) -> Tensor: ...
        def __rfloordiv__(self, other: Any) -> Tensor: ...
        def __mod__(self, other: Any) -> Tensor: ...
        def __rmod__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __and__(self, other: Any) -> Tensor: ...
        def __rand__(self, other: Any) -> Tensor: ...
        def __or__(self, other: Any) -> Tensor: ...
        def __ror__(self, other: Any) -> Tensor: ...
        def __lt__(self, other: Any) -> Tensor: ...
        def __le__(self, other: Any) -> Tensor: ...
        def __gt__(self, other: Any) -> Tensor: ...
        def __ge__(self, other: Any) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
        def __getitem__(self, slice_spec: Any) -> Tensor: ...

    @classmethod
    def _override_operator(cls, operator: str, func) -> None:
        """Installs `func` as the Python operator `operator` (TF's `_override_operator`).

        This is how the op modules give tensors their operators without this module
        importing them: `math_ops` installs `__add__` and the others, `indexing_ops`
        `__getitem__`. An operator is installed once.

        Raises:
            ValueError: `operator` was installed already or is not one of
                `OVERLOADABLE_OPERATORS`.
        """
        if operator not in cls.OVERLOADABLE_OPERATORS:
            raise ValueError(
                f"Overriding {operator} is disallowed. Allowed operators are "
                f"{sorted(cls.OVERLOADABLE_OPERATORS)}."
            )
        # Inherited slots (`object.__lt__`, `type.__or__`) may be replaced; an operator
        # this class already defines may not (a second installer is a bug).
        if operator in cls.__dict__:
            raise ValueError(f"operator {operator} cannot be overwritten again on class {cls}.")
        setattr(cls, operator, func)


class Operation:
    """A node of the graph: an op type, its inputs, attributes and outputs."""

    __slots__ = (
        "__weakref__",
        "_control_flow_context",
        "_control_inputs",
        "_device",
        "_graph",
        "_id",
        "_inputs",
        "_name",
        "_original_op",
        "_outputs",
        "_type",
    )

    def __init__(self, graph, node_id, name, op_type, inputs, control_inputs, device, specs):
        self._graph = graph
        # TF's `_original_op`: the op this one was built from (a gradient op's forward
        # op: the graph's `_original_op()` scope, or `tf.gradients` for the ops it
        # builds natively); None for every other op.
        self._original_op: Operation | None = None
        # The control-flow context (cond branch, while loop) the op was created in.
        self._control_flow_context = None
        self._id = node_id
        self._name = name
        self._type = op_type
        self._inputs = tuple(inputs)
        self._control_inputs = list(control_inputs)
        self._device = device
        self._outputs = [
            Tensor(
                self,
                i,
                dtypes.as_dtype(code + 100 if is_ref else code),
                tensor_shape._from_native(dims),
            )
            for i, (code, dims, is_ref) in enumerate(specs)
        ]

    @property
    def name(self) -> str:
        """The op's unique name."""
        return self._name

    def _get_control_flow_context(self):
        """The control-flow context the op was created in (TF's, private), or None."""
        return self._control_flow_context

    def _set_control_flow_context(self, ctx) -> None:
        """Sets the op's control-flow context (TF's, private)."""
        self._control_flow_context = ctx

    @property
    def type(self) -> str:
        """The op type (`"MatMul"`)."""
        return self._type

    @property
    def graph(self) -> Graph:
        """The graph that contains this op."""
        return self._graph

    @property
    def inputs(self) -> tuple[Tensor, ...]:
        """The data inputs."""
        return self._inputs

    @property
    def control_inputs(self) -> list[Operation]:
        """The ops that must run before this one."""
        return list(self._control_inputs)

    @property
    def outputs(self) -> list[Tensor]:
        """The output tensors."""
        return list(self._outputs)

    @property
    def device(self) -> str:
        """The requested device, or `""`.

        Canonical when device-name scopes chose it; a device function's result
        is kept as it returned it (as TF).
        """
        return self._device

    @property
    def node_def(self):
        """The op as a `NodeDef` message."""
        node = protos.NodeDef(name=self._name, op=self._type, device=self._device)
        node.input.extend(t._as_node_def_input() for t in self._inputs)
        node.input.extend("^" + c._name for c in self._control_inputs)
        graph_def = protos.GraphDef.FromString(self._graph._native.graph_def(self._id + 1))
        for k, v in graph_def.node[self._id].attr.items():
            node.attr[k].CopyFrom(v)
        return node

    def colocation_groups(self) -> list[bytes]:
        """The colocation groups of this op: its `_class` attr's `loc:@` entries, or its own."""
        try:
            groups = [g for g in self.get_attr("_class") if g.startswith(b"loc:@")]
        except ValueError:
            groups = []
        return groups or [b"loc:@" + self._name.encode()]

    def get_attr(self, name: str):
        """The value of attribute `name` (`ValueError` if the op has none of that name)."""
        found = self._graph._native.get_attr(self._id, name)
        if found is None:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.")
        return _attr_from_native(*found)

    def values(self) -> tuple[Tensor, ...]:
        """The outputs, as a tuple."""
        return tuple(self._outputs)

    def run(self, feed_dict=None, session=None) -> None:
        """Runs this op in `session` (or the default session)."""
        _run_using_default_session(self, feed_dict, self._graph, session)

    def _add_control_input(self, op: Operation) -> None:
        raise NotImplementedError(
            "ferroflow graphs are append-only: add control inputs when the op is created"
        )

    def __repr__(self) -> str:
        return f"<tf.Operation '{self._name}' type={self._type}>"

    def __str__(self) -> str:
        return str(self.node_def)


def _attr_from_native(kind, value):
    if kind == "type":
        return dtypes.as_dtype(value)
    if kind == "shape":
        return tensor_shape._from_native(value)
    if kind == "list(type)":
        return [dtypes.as_dtype(v) for v in value]
    if kind == "list(shape)":
        return [tensor_shape._from_native(v) for v in value]
    return value


class _NativeAttr:
    """An attribute already in the native `(kind, value)` form (an imported GraphDef's)."""

    __slots__ = ("pair",)

    def __init__(self, pair):
        self.pair = pair


def _attr_to_native(value) -> tuple[str, Any]:
    """The `(kind, value)` pair the native graph expects for an attr value."""
    if isinstance(value, _NativeAttr):
        return value.pair
    if type(value).__name__ == "AttrValue" and hasattr(value, "WhichOneof"):
        # An `AttrValue` message (as TF's `_attr_scope` takes them).
        from .importer import _attr_value

        return _attr_value(value)
    if isinstance(value, dtypes.DType):
        return ("type", value.base_dtype.as_datatype_enum)
    if isinstance(value, tensor_shape.TensorShape):
        return ("shape", tensor_shape._to_native(value))
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", value)
    if isinstance(value, str):
        return ("string", value.encode())
    if isinstance(value, bytes):
        return ("string", value)
    if isinstance(value, np.ndarray):
        return ("tensor", value)
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, bool) for v in value) and value:
            return ("list(bool)", list(value))
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return ("list(int)", list(value))
        if all(isinstance(v, (float, int)) for v in value):
            return ("list(float)", [float(v) for v in value])
        if all(isinstance(v, dtypes.DType) for v in value):
            return ("list(type)", [v.base_dtype.as_datatype_enum for v in value])
        if all(isinstance(v, tensor_shape.TensorShape) for v in value):
            return ("list(shape)", [tensor_shape._to_native(v) for v in value])
        if all(isinstance(v, (str, bytes)) for v in value):
            return ("list(string)", [v.encode() if isinstance(v, str) else v for v in value])
    raise TypeError(f"Cannot use {value!r} as an op attribute")


class _ControlDependencies:
    """One `control_dependencies` context: its ops, and the ops created inside it."""

    __slots__ = ("control_inputs", "created")

    def __init__(self, control_inputs):
        self.control_inputs = control_inputs
        self.created: set[int] = set()


class Graph:
    """A TensorFlow computation graph.

    Ops are added through the op functions (`tf.add`, `tf.matmul`, ...) to the default
    graph, or to this graph inside `with g.as_default():`. A graph may be used by
    several threads at once; once `finalize`d it is read-only.
    """

    def __init__(self):
        self._native = _ferroflow.Graph()
        self._lock = threading.RLock()
        self._ops: list[Operation] = []
        self._ops_by_name: dict[str, Operation] = {}
        self._collections: dict[str, list] = {}
        self._thread_local = threading.local()
        self._seed = None
        self._unseeded_random_ops = 0  # default op seeds handed out (random_seed.get_seed)
        self._finalized = False
        # The container stateful ops created now keep their resources in (`container()`).
        self._container = ""
        # op type -> gradient name for ops created now (`gradient_override_map`).
        self._gradient_override_map: dict[str, str] = {}
        # node id -> the gradient name its `_gradient_op_type` attr holds.
        self._gradient_types: dict[int, str] = {}
        # The `_original_op` of the ops created now (`_original_op()`), as TF's.
        self._default_original_op: Operation | None = None
        # Node ids of the ops that may not be fetched and the (node id, index) of the
        # tensors that may not be fed: those made inside cond branches and loop bodies.
        self._unfetchable_ops: set[int] = set()
        self._unfeedable_tensors: set[tuple[int, int]] = set()
        # name -> the graph functions (`Defun`) called in this graph.
        self._functions: dict[str, object] = {}

    def prevent_fetching(self, op) -> None:
        """Marks `op` as not fetchable (an op inside a cond branch or a loop body)."""
        self._unfetchable_ops.add(op._id)

    def is_fetchable(self, tensor_or_op) -> bool:
        """Whether `tensor_or_op` (a tensor or an operation) may be fetched."""
        op = tensor_or_op._op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op._id not in self._unfetchable_ops

    def prevent_feeding(self, tensor) -> None:
        """Marks `tensor` as not feedable (a tensor inside a loop body)."""
        self._unfeedable_tensors.add((tensor._op._id, tensor._value_index))

    def is_feedable(self, tensor) -> bool:
        """Whether `tensor` may be fed."""
        return (tensor._op._id, tensor._value_index) not in self._unfeedable_tensors

    # -- per-thread construction state (TF keeps these per thread too) ------------
    @property
    def _name_stack(self) -> str:
        return getattr(self._thread_local, "name_stack", "")

    @_name_stack.setter
    def _name_stack(self, value: str) -> None:
        self._thread_local.name_stack = value

    @property
    def _control_flow_context(self):
        """The control-flow context ops created now join (a cond branch), or None.

        The context (`ops.control_flow_ops.CondContext`) routes tensors from outside
        it through `Switch`es before an op uses them, as TF's `AddOp` does.
        """
        return getattr(self._thread_local, "control_flow_context", None)

    @_control_flow_context.setter
    def _control_flow_context(self, value) -> None:
        self._thread_local.control_flow_context = value

    # Each a list of this thread's own, created on first use.
    _control_stack = _per_thread_list("control_stack")
    _device_stack = _per_thread_list("device_stack")
    _colocation_stack = _per_thread_list("colocation_stack")

    # -- basics ----------------------------------------------------------------
    @property
    def seed(self):
        """The graph-level random seed (`tf.set_random_seed`)."""
        return self._seed

    @seed.setter
    def seed(self, value) -> None:
        self._seed = value

    @property
    def version(self) -> int:
        """Number of ops in the graph; grows as ops are added."""
        return len(self._ops)

    @property
    def finalized(self) -> bool:
        """True if the graph is read-only."""
        return self._finalized

    @property
    def building_function(self) -> bool:
        """Always False: ferroflow has no function graphs."""
        return False

    @property
    def graph_def_versions(self):
        """The `VersionDef` written into this graph's GraphDefs."""
        return protos.GraphDef.FromString(self._native.graph_def(0)).versions

    def finalize(self) -> None:
        """Makes the graph read-only: adding an op afterwards raises `RuntimeError`."""
        self._finalized = True
        self._native.finalize()

    def _unsafe_unfinalize(self) -> None:
        """Makes a finalized graph modifiable again.

        TF's escape hatch, used by `MonitoredSession.close` for graphs it finalized.
        """
        self._finalized = False
        self._native.unfinalize()

    def as_default(self):
        """Returns a context manager that makes this graph the default graph."""
        return _default_graph_stack.get_controller(self)

    def as_graph_def(self, from_version=None, add_shapes=False):
        """The graph as a `GraphDef` message.

        Args:
            from_version: If set, only ops added after `graph.version` was this value.
            add_shapes: If True, each node gets an `_output_shapes` attr.

        Returns:
            A `GraphDef` protocol buffer.
        """
        graph_def = protos.GraphDef.FromString(self._native.graph_def(None))
        if from_version:
            kept = graph_def.node[from_version:]
            del graph_def.node[:]
            graph_def.node.extend(kept)
        if add_shapes:
            start = from_version or 0
            for node, op in zip(graph_def.node, self._ops[start:]):
                if not op._outputs:
                    continue  # as TF: no `_output_shapes` on an op without outputs
                shapes = node.attr["_output_shapes"].list.shape
                for t in op._outputs:
                    shapes.add().CopyFrom(t.shape.as_proto())
        return graph_def

    # -- lookup ------------------------------------------------------------------
    def get_operations(self) -> list[Operation]:
        """All ops, in creation order."""
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        """The op called `name` (`KeyError` if none, `TypeError` for a non-string)."""
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name: str) -> Tensor:
        """The tensor called `name` (`"op:index"`)."""
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """Resolves `obj` (a name, Tensor, Operation or variable) to an element of this graph."""
        if allow_tensor and allow_operation:
            types_str = "Tensor or Operation"
        elif allow_tensor:
            types_str = "Tensor"
        else:
            types_str = "Operation"
        conv = getattr(obj, "_as_graph_element", None)
        if conv is not None and callable(conv):
            obj = conv()
        if isinstance(obj, bytes):
            obj = obj.decode()  # TF's `compat.as_str`: byte-string names work too
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                op_name, _, out = obj.rpartition(":")
                try:
                    index = int(out)
                except ValueError:
                    raise ValueError(
                        f"The name {obj!r} looks a like a Tensor name, but is not a valid one. "
                        'Tensor names must be of the form "<op_name>:<output_index>".'
                    ) from None
                op = self._ops_by_name.get(op_name)
                if op is None:
                    raise KeyError(
                        f"The name {obj!r} refers to a Tensor which does not exist. The "
                        f"operation, {op_name!r}, does not exist in the graph."
                    )
                if index >= len(op._outputs):
                    raise KeyError(
                        f"The name {obj!r} refers to a Tensor which does not exist. The "
                        f"operation, {op_name!r}, exists but only has "
                        f"{len(op._outputs)} outputs."
                    )
                return op._outputs[index]
            if ":" in obj:
                raise ValueError(f"Name {obj!r} appears to refer to a Tensor, not a {types_str}.")
            op = self._ops_by_name.get(obj)
            if op is None:
                raise KeyError(f"The name {obj!r} refers to an Operation not in the graph.")
            if not allow_operation:
                raise ValueError(
                    f"The name {obj!r} refers to an Operation, not a {types_str}. Tensor "
                    'names must be of the form "<op_name>:<output_index>".'
                )
            return op
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj._graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {types_str}.")

    # -- names --------------------------------------------------------------------
    def get_name_scope(self) -> str:
        """The current name scope (without a trailing slash)."""
        return self._name_stack

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """`name` inside the current scope, suffixed `_1`, `_2`, ... if already taken."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        return self._native.unique_name(name, mark_as_used)

    @contextlib.contextmanager
    def name_scope(self, name):
        """Context manager that opens name scope `name` (see `tf.name_scope`).

        A name ending in `/` re-enters that exact scope; `None` or `""` resets to the
        top level. Yields the scope string with a trailing slash (or `""`).
        """
        if name:
            if isinstance(name, bytes):
                name = name.decode()
            if not _VALID_SCOPE_NAME.match(name) or (
                not self._name_stack and not _VALID_OP_NAME.match(name)
            ):
                raise ValueError(f"'{name}' is not a valid scope name")
            new_stack = name[:-1] if name.endswith("/") else self.unique_name(name)
        else:
            new_stack = ""
        old = self._name_stack
        self._name_stack = new_stack
        try:
            yield new_stack + "/" if new_stack else ""
        finally:
            self._name_stack = old

    # -- control dependencies -----------------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside run only after every op in `control_inputs`.

        Args:
            control_inputs: Ops or tensors (their ops) that must run first, or `None`
                to clear the enclosing control dependencies.

        Raises:
            TypeError: If an element is not an `Operation` or `Tensor`.
        """
        if control_inputs is None:
            # As TF: also leaves any control-flow context (ops made here run outside it).
            saved = self._control_stack
            saved_flow = self._control_flow_context
            self._control_stack = []
            self._control_flow_context = None
            try:
                yield
            finally:
                self._control_stack = saved
                self._control_flow_context = saved_flow
            return
        current = {id(c) for ctl in self._control_stack for c in ctl.control_inputs}
        ops = []
        for c in control_inputs:
            if hasattr(c, "_as_graph_element") and not isinstance(c, (Tensor, Operation)):
                c = c._as_graph_element()
            if isinstance(c, Tensor):
                c = c.op
            elif not isinstance(c, Operation):
                raise TypeError(f"Control input must be Operation or Tensor: {c}")
            if c._graph is not self:
                raise ValueError(f"Control input {c.name} is not an element of this graph.")
            if id(c) not in current:
                current.add(id(c))
                ops.append(c)
        ctl = _ControlDependencies(ops)
        self._control_stack.append(ctl)
        try:
            yield
        finally:
            self._control_stack.remove(ctl)

    def _control_dependencies_for_inputs(self, input_ops) -> list[Operation]:
        # As TF: a context adds its ops unless one of the inputs was created inside it
        # (that input already depends on them).
        ret: list[Operation] = []
        input_ids = {id(op) for op in input_ops}
        for ctl in self._control_stack:
            if any(op._id in ctl.created for op in input_ops):
                continue
            for c in ctl.control_inputs:
                if id(c) not in input_ids and all(c is not r for r in ret):
                    ret.append(c)
        return ret

    # -- devices ------------------------------------------------------------------
    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Ops created inside are placed on a device (a string, spec or function of the op)."""
        if device_name_or_function is not None and not callable(device_name_or_function):
            device_name_or_function = pydev.merge_device(device_name_or_function)
        self._device_stack.append(device_name_or_function)
        try:
            yield
        finally:
            self._device_stack.pop()

    def _device_for(self, pending) -> str:
        """The device the device-scope stack gives the op `pending` stands for.

        As TF's `_apply_device_functions`: innermost scope first, each seeing in
        `pending.device` what the scopes inside it chose; a string scope merges
        (the inner choice's fields win, canonical result), a function's result is
        taken as it is (a `DeviceSpec` as its string); a `device(None)` scope
        hides every scope outside it.
        """
        device = pending.device = ""
        for fn in reversed(self._device_stack):
            if fn is None:
                break
            if isinstance(fn, pydev.MergeDevice):
                if fn.is_null_merge:
                    continue
                device = fn.shortcut_string_merge(pending)
            else:
                device = _device_string(fn(pending))
            pending.device = device
        return device

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Ops created inside are placed with `op` (an op, tensor or variable).

        As TF: they join `op`'s colocation groups (the `_class` attr,
        `loc:@<name>`), take its device when it has one, and device scopes outside
        this block are ignored (ones opened inside apply). `ignore_existing` drops
        enclosing colocations; `op=None` with it resets colocation.

        Raises:
            ValueError: `op` is None without `ignore_existing`.
        """
        if op is None and not ignore_existing:
            raise ValueError(
                "Trying to reset colocation (op is None) but ignore_existing is not True"
            )
        if op is not None and not isinstance(op, Operation):
            op = getattr(op, "op", op)
        device_stack, self._device_stack = self._device_stack, []
        # The stack outside every colocation, which `init_scope` brings back (as TF's,
        # whose context switches keep the graph's device stack from before).
        outermost = getattr(self._thread_local, "uncolocated_device_stack", None) is None
        if outermost:
            self._thread_local.uncolocated_device_stack = device_stack
        colocation_stack = self._colocation_stack
        if ignore_existing:
            self._colocation_stack = []
        if op is not None:
            self._colocation_stack.append(op)
        try:
            yield
        finally:
            self._device_stack = device_stack
            if outermost:
                self._thread_local.uncolocated_device_stack = None
            if op is not None:
                self._colocation_stack.pop()
            if ignore_existing:
                self._colocation_stack = colocation_stack

    @contextlib.contextmanager
    def _attr_scope(self, attr_map):
        """Ops created inside get these attrs when they do not set them (TF's, private).

        `attr_map` maps attr names to values (as op attrs take them: a `_class` list
        of bytes, ...) or to None, which lifts an enclosing scope's value. TF's
        `RefVariable` uses it to colocate a variable's initializer ops with the
        variable before the variable exists. Per thread, like the device stack.

        Raises:
            TypeError: `attr_map` is not a dict with string keys.
        """
        if not isinstance(attr_map, dict) or not all(isinstance(k, str) for k in attr_map):
            raise TypeError(
                "attr_map must be a dictionary mapping strings to AttrValue protocol buffers"
            )
        scope_map = getattr(self._thread_local, "attr_scope_map", None)
        if scope_map is None:
            scope_map = self._thread_local.attr_scope_map = {}
        saved = {name: scope_map.get(name, _MISSING) for name in attr_map}
        scope_map.update(attr_map)
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is _MISSING:
                    scope_map.pop(name, None)
                else:
                    scope_map[name] = value

    @contextlib.contextmanager
    def _original_op(self, op):
        """Ops created inside get `op` as their `_original_op` (TF's, private).

        An op's original op is the one it was based on (a gradient op's is the op
        differentiated); errors report the chain.
        """
        old_original_op = self._default_original_op
        self._default_original_op = op
        try:
            yield
        finally:
            self._default_original_op = old_original_op

    # -- containers ---------------------------------------------------------------
    @contextlib.contextmanager
    def container(self, container_name):
        """Stateful ops created inside keep their resources in `container_name`.

        Stateful operations, such as variables and queues, can maintain their states
        on devices so that they can be shared by multiple processes. A resource
        container is a string name under which these stateful operations are tracked.
        These resources can be released or cleared with `tf.Session.reset()`.

        ```python
        with g.container('experiment0'):
            # All stateful Operations constructed in this context will be placed
            # in resource container "experiment0".
            v1 = tf.Variable([1.0])
            v2 = tf.Variable([2.0])
            with g.container("experiment1"):
                # All stateful Operations constructed in this context will be
                # placed in resource container "experiment1".
                v3 = tf.Variable([3.0])
                q1 = tf.FIFOQueue(10, tf.float32)
            # All stateful Operations constructed in this context will be
            # be created in the "experiment0".
            v4 = tf.Variable([4.0])
            q1 = tf.FIFOQueue(20, tf.float32)
            with g.container(""):
                # All stateful Operations constructed in this context will be
                # be placed in the default resource container.
                v5 = tf.Variable([5.0])
                q3 = tf.FIFOQueue(30, tf.float32)

        # Resets container "experiment0", after which the state of v1, v2, v4, q1
        # will become undefined (such as uninitialized).
        tf.Session.reset(target, ["experiment0"])
        ```

        Args:
            container_name: container name string.

        Returns:
            A context manager for defining resource containers for stateful ops.
        """
        original, self._container = self._container, container_name
        try:
            yield self._container
        finally:
            self._container = original

    # -- gradients ---------------------------------------------------------------
    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Ops created inside use other gradient functions than their type's.

        ```python
        @tf.RegisterGradient("CustomSquare")
        def _custom_square_grad(op, grad):
            ...

        with tf.get_default_graph().gradient_override_map({"Square": "CustomSquare"}):
            s = tf.square(c)  # differentiated with _custom_square_grad
        ```

        The op keeps the name in its `_gradient_op_type` attr, as TF's.

        Args:
            op_type_map: A dict from op type to the gradient name to use instead.

        Raises:
            TypeError: If `op_type_map` is not a dict of strings.
        """
        if not isinstance(op_type_map, dict):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        for op_type, mapped in op_type_map.items():
            if not (isinstance(op_type, str) and isinstance(mapped, str)):
                raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    def switch_to_thread_local(self) -> None:
        """Makes the control-dependency, device and colocation stacks per thread.

        TF shares these stacks between the threads building a graph until this is
        called; ferroflow always keeps them per thread, as after this call, so there
        is nothing left to switch.
        """

    # -- collections --------------------------------------------------------------
    def add_to_collection(self, name, value) -> None:
        """Adds `value` to the collection `name`."""
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value) -> None:
        """Adds `value` to each collection in `names` (a string or iterable of strings)."""
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name) -> list:
        """The collection `name` itself (a list that may be modified in place)."""
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None) -> list:
        """A copy of collection `name`, filtered to items whose `name` matches `scope`."""
        with self._lock:
            items = list(self._collections.get(name, []))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [i for i in items if hasattr(i, "name") and pattern.match(i.name)]

    def get_all_collection_keys(self) -> list[str]:
        """Names of the non-empty collections (string keys only, as TF's)."""
        with self._lock:
            return [k for k, v in self._collections.items() if v and isinstance(k, str)]

    def clear_collection(self, name) -> None:
        """Empties collection `name`."""
        with self._lock:
            self._collections.pop(name, None)

    # -- op creation ----------------------------------------------------------------
    def _create_op(
        self, op_type, inputs, attrs=None, name=None, colocate_ref_inputs=True
    ) -> Operation:
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        name = name or op_type
        if isinstance(name, bytes):
            name = name.decode()
        if name.endswith("/"):
            name = name[:-1]  # an exact (already unique) scope name, as TF's name_from_scope_name
        else:
            if not _VALID_OP_NAME.match(name.rpartition("/")[2] or name):
                raise ValueError(f"'{name}' is not a valid node name")
            name = self.unique_name(name)
        # TF's op wrappers create an op that takes a reference (`Assign`'s `ref`, a
        # training op's `var` and slots) inside `colocate_with` of those inputs: the
        # device scopes are ignored and the op goes with its variables. (An imported
        # node keeps what its NodeDef says: `colocate_ref_inputs=False`.)
        ref_ops = []
        if colocate_ref_inputs:
            flags = op_def_registry.ref_input_flags(op_type)
            ref_ops = [t._op for t, is_ref in zip(inputs, flags) if is_ref]
        flow_context = self._control_flow_context
        for t in inputs:
            input_context = t._op._control_flow_context
            if input_context is not None and input_context is not flow_context:
                # TF's `CheckInputFromValidContext`: no tensor of a while loop used
                # from outside it (the contexts hold the rules).
                input_context._check_inputs_from_valid_context(name, op_type, flow_context, inputs)
                break
        if flow_context is not None:
            inputs = flow_context._process_inputs(inputs)
        input_ops = [t._op for t in inputs]
        control = self._control_dependencies_for_inputs(input_ops)
        if flow_context is not None and not inputs:
            control = flow_context._control_inputs_of_source(control)
        if flow_context is not None:
            # A loop's sub-graph leaves control inputs from outside it to the loop op.
            control = flow_context._process_control_inputs(control)
        attrs = dict(attrs or {})
        if self._container and "container" in attrs and not attrs["container"]:
            # TF fills an empty `container` attr of a stateful op from `container()`.
            attrs["container"] = self._container
        attr_scope = getattr(self._thread_local, "attr_scope_map", None)
        if attr_scope:
            for key, value in attr_scope.items():
                if value is not None and key not in attrs:
                    attrs[key] = value
        device = (
            self._device_for(_PendingOp(op_type, name, self, inputs, control, attrs))
            if self._device_stack and not ref_ops
            else ""
        )
        colocation_stack = [*self._colocation_stack, *ref_ops]
        if colocation_stack:
            # TF: the groups of every op colocated with, and the device of the innermost
            # one that has a device (over any device scope).
            groups, device_from_colocation = set(), False
            for colocated in reversed(colocation_stack):
                groups.update(colocated.colocation_groups())
                if colocated.device and not device_from_colocation:
                    device, device_from_colocation = colocated.device, True
            attrs["_class"] = sorted(groups)
        gradient_type = self._gradient_override_map.get(op_type)
        if gradient_type is not None:
            attrs["_gradient_op_type"] = gradient_type.encode()
        native_attrs = {k: _attr_to_native(v) for k, v in attrs.items()}
        with self._lock:
            node_id, specs = self._native.add_op(
                op_type,
                name,
                [(t._op._id, t._value_index) for t in inputs],
                [c._id for c in control],
                native_attrs,
                device,
            )
            if node_id > len(self._ops):
                # Another thread's `tf.gradients` added nodes natively that are not
                # wrapped yet: wrap them first, so that `_ops[i]` stays node `i`.
                _sync_native_ops(self, node_id)
            op = Operation(self, node_id, name, op_type, inputs, control, device, specs)
            op._original_op = self._default_original_op
            op._control_flow_context = flow_context
            self._ops.append(op)
            self._ops_by_name[name] = op
            if gradient_type is not None:
                self._gradient_types[node_id] = gradient_type
        for ctl in self._control_stack:
            ctl.created.add(node_id)
        if flow_context is not None:
            flow_context._add_op(op)
        return op


# -- gradient registry (TF's `ops.RegisterGradient`) ----------------------------------
# Gradient functions written in Python, by op type or `gradient_override_map` name; a
# None entry is `NotDifferentiable`. Op types with a native gradient (or a native
# not-differentiable mark) are registered already, as in TF's registry.
_gradient_registry: dict[str, Callable | None] = {}
_gradient_registry_lock = threading.Lock()


def _register_gradient(op_type, fn) -> None:
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    with _gradient_registry_lock:
        if op_type in _gradient_registry:
            previous = _gradient_registry[op_type]
            where = getattr(previous, "__module__", "") if previous is not None else ""
            raise KeyError(
                f"Registering two gradient with name '{op_type}'! "
                f"(Previous registration was in {where or 'NotDifferentiable'})"
            )
        if _ferroflow.gradient_status(op_type) != "missing":
            raise KeyError(
                f"Registering two gradient with name '{op_type}'! "
                "(Previous registration was in ferroflow's native gradient registry)"
            )
        _gradient_registry[op_type] = fn


class RegisterGradient:
    """Decorator registering the gradient function of an op type.

    ```python
    @tf.RegisterGradient("CustomSquare")
    def _custom_square_grad(op, grad):
        return 3.0 * grad * op.inputs[0]
    ```

    The function gets the forward `Operation` and one gradient per output (None
    replaced by zeros for float outputs), and returns one gradient (or None) per
    input. Combined with `Graph.gradient_override_map` it replaces the gradient of
    existing op types.
    """

    __slots__ = ("_op_type",)

    def __init__(self, op_type):
        """Registers under `op_type`.

        Raises:
            TypeError: If `op_type` is not a string.
        """
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        """Registers `f` and returns it.

        Raises:
            KeyError: If a gradient is already registered under this name.
        """
        _register_gradient(self._op_type, f)
        return f


def NotDifferentiable(op_type) -> None:
    """Declares that ops of `op_type` have no gradient: none flows through them.

    Raises:
        TypeError: If `op_type` is not a string.
        KeyError: If a gradient is already registered for it.
    """
    _register_gradient(op_type, None)


no_gradient = NotDifferentiable


def _python_gradient(op: Operation) -> tuple[bool, Callable | None]:
    """`(found, fn)`: the Python gradient of `op` (None when not differentiable)."""
    name = op._graph._gradient_types.get(op._id, op._type)
    if name in _gradient_registry:
        return True, _gradient_registry[name]
    return False, None


def get_gradient_function(op: Operation):
    """The Python gradient function of `op` (from `RegisterGradient`), or None.

    Native gradients have no Python function: None for those too.
    """
    return _python_gradient(op)[1]


def _sync_native_ops(g: Graph, end: int | None = None) -> None:
    """Wraps nodes that Rust added to `g` (e.g. by `tf.gradients`) in `Operation`s.

    The nodes below `end` (default: all of them) get theirs.
    """
    with g._lock:
        for node_id in range(len(g._ops), g._native.num_nodes() if end is None else end):
            name, op_type, inputs, control, device, specs = g._native.node_info(node_id)
            op = Operation(
                g,
                node_id,
                name,
                op_type,
                [g._ops[n]._outputs[i] for n, i in inputs],
                [g._ops[c] for c in control],
                device,
                specs,
            )
            g._ops.append(op)
            g._ops_by_name[name] = op


_MISSING = object()


class _PendingOp:
    """What a device function sees of an op being created: TF passes the `Operation`.

    The native graph takes an op's device when the op is added, so the device
    functions run just before that, on this stand-in. It answers what an
    `Operation` answers: `type`, `name`, `device` (what the device functions
    inside this one chose), `inputs`, `control_inputs`, `graph`, `node_def`,
    `get_attr`, `outputs` (their dtypes and static shapes) and `values()`. The
    attrs and outputs are those the op will have: they come from adding the op,
    once and only when asked, to a scratch native graph whose inputs stand in
    for the real ones (a copy of each `Const` input, so shape functions see its
    value; a variable for each reference input; a placeholder for the others).
    """

    __slots__ = (
        "_attrs",
        "_control_inputs",
        "_graph",
        "_inputs",
        "_name",
        "_scratch",
        "_type",
        "device",
    )

    def __init__(self, op_type, name, graph=None, inputs=(), control_inputs=(), attrs=None):
        self._type = op_type
        self._name = name
        self._graph = graph
        self._inputs = tuple(inputs)
        self._control_inputs = list(control_inputs)
        self._attrs = dict(attrs or {})
        self._scratch: tuple[Any, int, list] | None = None
        self.device = ""

    @property
    def type(self) -> str:
        """The op type."""
        return self._type

    @property
    def name(self) -> str:
        """The op's (unique) name."""
        return self._name

    @property
    def graph(self):
        """The graph the op is being added to (None for the gradient ops' stand-in)."""
        return self._graph

    @property
    def inputs(self) -> tuple[Tensor, ...]:
        """The input tensors."""
        return self._inputs

    @property
    def control_inputs(self) -> list[Operation]:
        """The ops this op will have control dependencies on."""
        return list(self._control_inputs)

    def _native_node(self):
        """`(scratch native graph, node id, output specs)`, built on first use."""
        if self._scratch is None:
            if self._graph is None:
                # The gradient ops' stand-in: many ops, made natively together.
                self._scratch = (None, -1, [])
                return self._scratch
            scratch = _ferroflow.Graph()
            native = self._graph._native
            stand_ins = []
            for i, t in enumerate(self._inputs):
                name = f"input_{i}"
                source = t._op
                if source._type == "Const":
                    value = native.get_attr(source._id, "value")[1]
                    attrs = {
                        "value": ("tensor", np.asarray(value)),
                        "dtype": native.get_attr(source._id, "dtype"),
                    }
                    node_id, _ = scratch.add_op("Const", name, [], [], attrs, "")
                else:
                    attrs = {
                        "dtype": ("type", t.dtype.base_dtype.as_datatype_enum),
                        "shape": ("shape", tensor_shape._to_native(t.shape)),
                    }
                    kind = "VariableV2" if t.dtype._is_ref_dtype else "Placeholder"
                    node_id, _ = scratch.add_op(kind, name, [], [], attrs, "")
                stand_ins.append((node_id, 0))
            native_attrs = {k: _attr_to_native(v) for k, v in self._attrs.items()}
            node_id, specs = scratch.add_op(
                self._type, self._name, stand_ins, [], native_attrs, self.device
            )
            outputs = [
                Tensor(
                    self,  # type: ignore[arg-type]
                    i,
                    dtypes.as_dtype(code + 100 if is_ref else code),
                    tensor_shape._from_native(dims),
                )
                for i, (code, dims, is_ref) in enumerate(specs)
            ]
            self._scratch = (scratch, node_id, outputs)
        return self._scratch

    @property
    def outputs(self) -> list[Tensor]:
        """The output tensors the op will have (dtype and static shape)."""
        return list(self._native_node()[2])

    def values(self) -> tuple[Tensor, ...]:
        """The outputs, as a tuple."""
        return tuple(self.outputs)

    def get_attr(self, name: str):
        """The value of attribute `name` (`ValueError` if the op will have none of that name)."""
        scratch, node_id, _ = self._native_node()
        found = None if scratch is None else scratch.get_attr(node_id, name)
        if found is None:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.")
        return _attr_from_native(*found)

    @property
    def node_def(self):
        """A `NodeDef` with the op's type, name, current device, inputs and attrs."""
        node = protos.NodeDef(name=self._name, op=self._type, device=self.device)
        node.input.extend(t._as_node_def_input() for t in self._inputs)
        node.input.extend("^" + c._name for c in self._control_inputs)
        scratch, node_id, _ = self._native_node()
        if scratch is not None:
            graph_def = protos.GraphDef.FromString(scratch.graph_def())
            for k, v in graph_def.node[node_id].attr.items():
                node.attr[k].CopyFrom(v)
        return node

    def __repr__(self) -> str:
        return f"<tf.Operation '{self._name}' type={self._type}>"

    def __str__(self) -> str:
        return str(self.node_def)


def _device_string(device) -> str:
    """A device function's result as a string, as TF's `compat.as_str(_device_string(...))`."""
    if pydev.is_device_spec(device):
        return device.to_string()
    if isinstance(device, str):
        return device
    if isinstance(device, (bytes, bytearray)):
        return bytes(device).decode("utf-8")
    raise TypeError(f"Expected binary or unicode string, got {device!r}")


class _DefaultGraphStack(threading.local):
    """The per-thread stack of default graphs, above one process-wide global default."""

    _global_default: Graph | None = None
    _global_lock = threading.Lock()

    def __init__(self):
        super().__init__()
        self.stack: list[Graph] = []

    def get_default(self) -> Graph:
        if self.stack:
            return self.stack[-1]
        cls = type(self)
        if cls._global_default is None:
            with cls._global_lock:
                if cls._global_default is None:
                    cls._global_default = Graph()
        return cls._global_default

    def reset(self) -> None:
        type(self)._global_default = Graph()

    @contextlib.contextmanager
    def get_controller(self, graph: Graph):
        self.stack.append(graph)
        try:
            yield graph
        finally:
            self.stack.remove(graph)


_default_graph_stack = _DefaultGraphStack()


def get_default_graph() -> Graph:
    """The default graph of the current thread."""
    return _default_graph_stack.get_default()


def reset_default_graph() -> None:
    """Replaces the global default graph with a new, empty one.

    Raises:
        AssertionError: If called inside a `with graph.as_default():` block.
    """
    if _default_graph_stack.stack:
        raise AssertionError(
            "Do not use tf.reset_default_graph() to clear nested graphs. If you need a "
            "cleared graph, exit the nesting and create a new graph."
        )
    _default_graph_stack.reset()


# -- the default session ------------------------------------------------------------
# Kept here, beside the default graph, as TF keeps it in ops.py: `Tensor.eval` and
# `Operation.run` need a session's `run` and `graph` only, so this floor never imports
# session.py; `Session.as_default` enters `default_session(self)`.


class _DefaultSessionStack(threading.local):
    """The per-thread stack of sessions entered with `as_default()` (or `with sess:`)."""

    def __init__(self):
        super().__init__()
        self.stack: list[Any] = []

    def get_default(self):
        return self.stack[-1] if self.stack else None

    @contextlib.contextmanager
    def get_controller(self, session):
        self.stack.append(session)
        try:
            yield session
        finally:
            if session in self.stack:
                self.stack.remove(session)


_default_session_stack = _DefaultSessionStack()


def default_session(session):
    """Makes `session` this thread's default session (not its graph the default graph).

    A context manager; `Session.as_default` returns it. As TF's, ops made inside go to
    the default graph; `with sess:` enters the session's graph as well.
    """
    return _default_session_stack.get_controller(session)


def get_default_session():
    """The innermost session entered with `as_default()` (or `with sess:`), or None."""
    return _default_session_stack.get_default()


def _session_for(graph: Graph, session, what: str):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError(
                f"Cannot evaluate {what} using `eval()`: No default session is registered. Use "
                "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`"
            )
        if session.graph is not graph:
            raise ValueError(
                f"Cannot use the default session to evaluate {what}: the {what}'s graph is "
                "different from the session's graph. Pass an explicit session to "
                "`eval(session=sess)`."
            )
    elif session.graph is not graph:
        raise ValueError(
            f"Cannot use the given session to evaluate {what}: the {what}'s graph is different "
            "from the session's graph."
        )
    return session


def _eval_using_default_session(tensors, feed_dict, graph: Graph, session=None):
    return _session_for(graph, session, "tensor").run(tensors, feed_dict)


def _run_using_default_session(operation, feed_dict, graph: Graph, session=None) -> None:
    _session_for(graph, session, "operation").run(operation, feed_dict)


def _graph_of(values, default=None) -> Graph:
    """The one graph that all tensors/ops in `values` belong to (or the default graph)."""
    graph = None
    for v in values:
        g = getattr(v, "graph", None) if isinstance(v, (Tensor, Operation)) else None
        if g is None and hasattr(v, "_as_graph_element") and not isinstance(v, str):
            g = v._as_graph_element().graph
        if g is None:
            continue
        if graph is None:
            graph = g
        elif g is not graph:
            raise ValueError(f"{v!r} must be from the same graph as {values[0]!r}.")
    return graph or default or get_default_graph()


def name_scope(name, default_name=None, values=None):
    """Context manager for a name scope (TF-1.x `tf.name_scope`).

    Args:
        name: The scope name; `None` uses `default_name`.
        default_name: The name to use when `name` is None.
        values: Tensors passed to the op function, used to pick their graph.

    Returns:
        A context manager yielding the scope string (with a trailing slash).
    """
    if values is None:
        values = []
    g = _graph_of(list(values))
    n = name if name is not None else default_name
    if n is None and values:
        raise ValueError(
            f"At least one of name ({name}) and default_name ({default_name}) must be provided."
        )
    return _scoped(g, n)


@contextlib.contextmanager
def _scoped(g: Graph, name):
    with g.as_default(), g.name_scope(name) as scope:
        yield scope


def control_dependencies(control_inputs):
    """`Graph.control_dependencies` on the default graph."""
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function):
    """`Graph.device` on the default graph."""
    return get_default_graph().device(device_name_or_function)


@contextlib.contextmanager
def init_scope():
    """Where TF-1.x creates variables and other state: TF's `init_scope`, in a graph.

    Outside every control-dependency block, in the current name scope; when the
    device-scope stack is empty because a `colocate_with` block cleared it, the
    stack from outside the colocation applies again (TF's lifting to the outer
    context restores the device stack the graph had there), so a device function
    such as `replica_device_setter` still sees the variable ops made inside
    (their colocation then decides the device when the colocated op has one).
    """
    graph = get_default_graph()
    current = graph._device_stack
    outer = getattr(graph._thread_local, "uncolocated_device_stack", None)
    lift = not current and outer is not None
    if lift:
        graph._device_stack = outer
    try:
        with graph.control_dependencies(None):
            yield
    finally:
        if lift:
            graph._device_stack = current


def colocate_with(op, ignore_existing=False):
    """`Graph.colocate_with` on the default graph."""
    return get_default_graph().colocate_with(op, ignore_existing)


def container(container_name):
    """Wrapper for `Graph.container()` using the default graph."""
    return get_default_graph().container(container_name)


def add_to_collection(name, value) -> None:
    """Adds `value` to collection `name` of the default graph."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value) -> None:
    """Adds `value` to collections `names` of the default graph."""
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None) -> list:
    """A copy of collection `key` of the default graph."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key) -> list:
    """Collection `key` of the default graph itself."""
    return get_default_graph().get_collection_ref(key)


# -- conversion to tensors -------------------------------------------------------------
# TF's tensor_conversion_registry. The modules above register how their types become
# tensors (constant_op: Python and numpy values; variables; IndexedSlices in math_ops),
# so this floor converts values without importing any of them.
ConversionFunction = Callable[..., Any]
_conversion_lock = threading.Lock()
# priority -> [(base type(s), function)], in registration order.
_conversion_registry: dict[int, list[tuple[type | tuple[type, ...], ConversionFunction]]] = {}
# type(value) -> the functions that apply to it, best first.
_conversion_cache: dict[type, list[tuple[type | tuple[type, ...], ConversionFunction]]] = {}


def register_tensor_conversion_function(base_type, conversion_func, priority=100) -> None:
    """Registers a function that converts objects of `base_type` to a `Tensor`.

    `convert_to_tensor(value)` tries the functions registered for `value`'s type (an
    `isinstance` match) by ascending `priority`, and in registration order within one
    priority. A function is called as `conversion_func(value, dtype=None, name=None,
    as_ref=False)` and returns a `Tensor` (of `dtype`, when given: else it raises
    `ValueError` or `TypeError`), or `NotImplemented` to pass the value to the next
    function.

    Args:
        base_type: A type or a tuple of types.
        conversion_func: The function.
        priority: Lower runs first; TF's default is 100 (constant_op's fallback for
            any object is 200).

    Raises:
        TypeError: `base_type` is not a type or tuple of types, or `conversion_func`
            is not callable.
    """
    if not (
        isinstance(base_type, type)
        or (isinstance(base_type, tuple) and all(isinstance(x, type) for x in base_type))
    ):
        raise TypeError("base_type must be a type or a tuple of types.")
    if not callable(conversion_func):
        raise TypeError("conversion_func must be callable.")
    with _conversion_lock:
        _conversion_registry.setdefault(priority, []).append((base_type, conversion_func))
        _conversion_cache.clear()


def _conversion_functions(value_type: type):
    """The conversion functions for values of `value_type`, in the order to try them."""
    funcs = _conversion_cache.get(value_type)
    if funcs is None:
        with _conversion_lock:
            funcs = [
                (base_type, func)
                for _, entries in sorted(_conversion_registry.items())
                for base_type, func in entries
                if issubclass(value_type, base_type)
            ]
            _conversion_cache[value_type] = funcs
    return funcs


def _error_prefix(name) -> str:
    return "" if name is None else f"{name}: "


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, as_ref=False):
    """Converts `value` (a Tensor, variable, numpy array or Python value) to a Tensor.

    Tensors are returned as they are; anything else goes through the functions given
    to `register_tensor_conversion_function`.

    Args:
        value: The object to convert.
        dtype: Required element type, or None.
        name: Name of a new constant, if one is created.
        preferred_dtype: Element type to try when `dtype` is None (a conversion that
            cannot give it falls back to the value's own type).
        as_ref: Return a variable reference rather than its value.

    Returns:
        A `Tensor`.

    Raises:
        TypeError: If `value` cannot be converted.
        ValueError: If `value` is a Tensor of another dtype than `dtype`.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype.base_dtype):
            raise ValueError(
                f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                f"{value.dtype.base_dtype.name}: {value!r}"
            )
        return value
    if isinstance(value, Operation):
        raise TypeError(
            f"Can't convert Operation '{value.name}' to Tensor (target dtype={dtype}, "
            f"name={name}, as_ref={as_ref})"
        )
    if preferred_dtype is not None:
        preferred_dtype = dtypes.as_dtype(preferred_dtype)
    for base_type, func in _conversion_functions(type(value)):
        ret = None
        if dtype is None and preferred_dtype is not None:
            try:
                ret = func(value, dtype=preferred_dtype, name=name, as_ref=as_ref)
            except (TypeError, ValueError):
                ret = None  # not representable in the preferred type: the value's own
            if (
                ret is not None
                and ret is not NotImplemented
                and ret.dtype.base_dtype != preferred_dtype.base_dtype
            ):
                raise RuntimeError(
                    f"{_error_prefix(name)}Conversion function {func!r} for type {base_type} "
                    f"returned incompatible dtype: requested = {preferred_dtype.base_dtype.name}"
                    f", actual = {ret.dtype.base_dtype.name}"
                )
        if ret is None:
            ret = func(value, dtype=dtype, name=name, as_ref=as_ref)
        if ret is NotImplemented:
            continue
        if not isinstance(ret, Tensor):
            raise RuntimeError(
                f"{_error_prefix(name)}Conversion function {func!r} for type {base_type} "
                f"returned non-Tensor: {ret!r}"
            )
        if dtype is not None and not dtype.is_compatible_with(ret.dtype.base_dtype):
            raise RuntimeError(
                f"{_error_prefix(name)}Conversion function {func!r} for type {base_type} "
                f"returned incompatible dtype: requested = {dtype.name}, actual = "
                f"{ret.dtype.base_dtype.name}"
            )
        return ret
    raise TypeError(
        f"{_error_prefix(name)}Cannot convert {value!r} with type {type(value)} to Tensor: "
        "no conversion function registered."
    )


def convert_n_to_tensor(values, dtype=None, name=None, preferred_dtype=None):
    """Converts each of `values` with `convert_to_tensor`."""
    return [
        convert_to_tensor(
            v,
            dtype=dtype,
            preferred_dtype=preferred_dtype,
            name=None if name is None else f"{name}_{i}",
        )
        for i, v in enumerate(values)
    ]


def internal_convert_to_tensor(value, dtype=None, name=None, as_ref=False, preferred_dtype=None):
    """`convert_to_tensor` with TF's internal argument order."""
    return convert_to_tensor(
        value, dtype=dtype, name=name, preferred_dtype=preferred_dtype, as_ref=as_ref
    )


def create_op(op_type, inputs, attrs=None, name=None) -> Operation:
    """Adds an op to the graph of its inputs (or the default graph) and returns it."""
    g = _graph_of(inputs)
    return g._create_op(op_type, inputs, attrs, name)


def strip_name_scope(name: str, export_scope) -> str:
    """`name` without the leading `export_scope/` (TF's `ops.strip_name_scope`)."""
    if not export_scope:
        return name
    scope = export_scope if export_scope.endswith("/") else export_scope + "/"
    prefix = "^" if name.startswith("^") else ""
    bare = name[1:] if prefix else name
    return prefix + (bare[len(scope) :] if bare.startswith(scope) else bare)


def prepend_name_scope(name: str, import_scope) -> str:
    """`import_scope/name` (TF's `ops.prepend_name_scope`)."""
    if not import_scope:
        return name
    scope = import_scope.rstrip("/")
    if name.startswith("^"):
        return f"^{scope}/{name[1:]}"
    return f"{scope}/{name}"
