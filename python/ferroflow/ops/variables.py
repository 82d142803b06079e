"""`tf.Variable` (TF-1.x reference variables), variable collections and initializers."""

from __future__ import annotations

import contextlib
import enum

from .._compat import zip_strict
from ..framework import constant_op, dtypes, meta_graph, ops, tensor_shape
from ..protos import SaveSliceInfoDef, VariableDef
from . import array_ops, control_flow_ops, indexing_ops, math_ops, state_ops


class Variable:
    """A mutable tensor whose value lives in each session that runs its graph.

    The variable is a `VariableV2` op; its `initializer` assigns `initial_value`;
    `value()` is a snapshot tensor read by ops that use the variable. Values belong to
    the session: two sessions on one graph hold independent values.

    Example:
        ```python
        w = tf.Variable(tf.zeros([3, 1]), name="w")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign_add(tf.ones([3, 1])))
        ```
    """

    # numpy defers binary operators to a Variable on the right-hand side (as to Tensor).
    __array_priority__ = 100

    def __new__(cls, *args, **kwargs):
        """A `Variable`, or a `ResourceVariable` when `use_resource` says so (as TF's).

        `use_resource` is the argument's, else the current variable scope's.
        """
        if cls is Variable:
            use_resource = kwargs.get("use_resource", args[11] if len(args) > 11 else None)
            if use_resource is None:
                from .variable_scope import _current_use_resource

                use_resource = _current_use_resource()
            if use_resource:
                from .resource_variable_ops import ResourceVariable

                cls = ResourceVariable
        return super().__new__(cls)

    def __init__(
        self,
        initial_value=None,
        trainable=True,
        collections=None,
        validate_shape=True,
        caching_device=None,
        name=None,
        variable_def=None,
        dtype=None,
        expected_shape=None,
        import_scope=None,
        constraint=None,
        use_resource=None,
        synchronization=None,
        aggregation=None,
        shape=None,
    ):
        """Creates a variable.

        Args:
            initial_value: A Tensor or Python/numpy value (or a callable returning one).
            trainable: Also add it to `GraphKeys.TRAINABLE_VARIABLES`.
            collections: Collections to add it to (default `[GLOBAL_VARIABLES]`).
            validate_shape: If False, the variable may be assigned values of any shape.
            caching_device: Accepted for compatibility; unused.
            name: Name of the variable (default `"Variable"`).
            variable_def: Not supported (raises `NotImplementedError`).
            dtype: Element type; the initial value is converted to it.
            expected_shape: Deprecated TF-1.x argument, ignored.
            import_scope: Not supported with `variable_def`.
            constraint: A function applied to the value after optimizer updates.
            use_resource: If true (or None in a variable scope with
                `use_resource=True`), the variable is a `ResourceVariable` (TF's
                resource-variable interface over ferroflow's variable).
            synchronization: Accepted for compatibility.
            aggregation: Accepted for compatibility.
            shape: Static shape to give the variable instead of the initial value's.

        Raises:
            ValueError: If `initial_value` is None.
        """
        if variable_def is not None:
            raise NotImplementedError("Variable(variable_def=...) is not supported yet")
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        init_from_fn = callable(initial_value)
        if collections is None:
            collections = [ops.GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError(
                f"collections argument to Variable constructor must be a list, "
                f"tuple, or set. Got {collections} of type {type(collections)}"
            )
        collections = list(collections)
        if trainable and ops.GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(ops.GraphKeys.TRAINABLE_VARIABLES)
        self._trainable = trainable
        self._constraint = constraint
        self._save_slice_info = None
        values = [] if init_from_fn else [initial_value]
        # TF-1.x creates variables in `init_scope`: outside any enclosing
        # control-dependency context, under the device scopes outside colocation.
        with ops.init_scope(), ops.name_scope(name, "Variable", values) as scope:
            if init_from_fn:
                # As TF: the initializer ops (and the variable) carry the colocation
                # group of the variable about to exist, and are outside every device
                # scope, so they go with the variable rather than where the device
                # functions would put them.
                colocate: contextlib.AbstractContextManager = ops.get_default_graph()._attr_scope(
                    {"_class": [b"loc:@" + scope[:-1].encode()]}
                )
            else:
                colocate = contextlib.nullcontext()
            with colocate:
                if init_from_fn:
                    with ops.name_scope("Initializer"), ops.device(None):
                        initial_value = ops.convert_to_tensor(
                            initial_value(), name="initial_value", dtype=dtype
                        )
                else:
                    initial_value = ops.convert_to_tensor(
                        initial_value, name="initial_value", dtype=dtype
                    )
                self._initial_value = initial_value
                if shape is not None:
                    var_shape = tensor_shape.as_shape(shape)
                elif validate_shape:
                    var_shape = initial_value.shape
                else:
                    var_shape = tensor_shape.unknown_shape()
                if validate_shape and not var_shape.is_fully_defined() and shape is None:
                    raise ValueError(f"initial_value must have a shape specified: {initial_value}")
                self._variable = state_ops.variable_op_v2(
                    var_shape, initial_value.dtype.base_dtype, name=scope
                )
            # As TF: the initializer and the snapshot are colocated with the variable.
            with ops.colocate_with(self._variable.op):
                self._initializer_op = state_ops.assign(
                    self._variable, initial_value, validate_shape=validate_shape, name="Assign"
                ).op
                self._snapshot = array_ops.identity(self._variable, name="read")
        ops.add_to_collections(collections, self)
        self._graph = self._variable.graph

    # -- identity -------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The variable's tensor name (`"w:0"`)."""
        return self._variable.name

    @property
    def op(self):
        """The `VariableV2` op."""
        return self._variable.op

    @property
    def dtype(self) -> dtypes.DType:
        """The reference dtype (`float32_ref`)."""
        return self._variable.dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The static shape."""
        return self._variable.shape

    def get_shape(self) -> tensor_shape.TensorShape:
        """Alias of `shape`."""
        return self.shape

    @property
    def device(self) -> str:
        """The device of the variable op."""
        return self._variable.device

    @property
    def graph(self):
        """The graph of the variable."""
        return self._graph

    @property
    def trainable(self) -> bool:
        """Whether the variable was created trainable."""
        return self._trainable

    @property
    def constraint(self):
        """The projection function applied after optimizer updates, or None."""
        return self._constraint

    @property
    def _shared_name(self) -> str:
        """The name without the `:0` output suffix (TF's `_shared_name`)."""
        return self.name[: self.name.index(":")]

    # -- slices of partitioned variables ----------------------------------------------
    class SaveSliceInfo:
        """Where a part of a partitioned variable lies in the full variable (for saving).

        Attributes:
            full_name: Name of the full (partitioned) variable.
            full_shape: Its shape, a list of ints.
            var_offset: This part's offset in it, per dimension.
            var_shape: This part's shape.
        """

        def __init__(
            self,
            full_name=None,
            full_shape=None,
            var_offset=None,
            var_shape=None,
            save_slice_info_def=None,
            import_scope=None,
        ):
            """From the four fields, or from a `SaveSliceInfoDef` (prefixed by `import_scope`)."""
            if save_slice_info_def:
                self.full_name = ops.prepend_name_scope(
                    save_slice_info_def.full_name, import_scope=import_scope
                )
                self.full_shape = list(save_slice_info_def.full_shape)
                self.var_offset = list(save_slice_info_def.var_offset)
                self.var_shape = list(save_slice_info_def.var_shape)
            else:
                self.full_name = full_name
                self.full_shape = full_shape
                self.var_offset = var_offset
                self.var_shape = var_shape

        @property
        def spec(self) -> str:
            """The `SaveV2` `shape_and_slices` string: `"10 4 0,5:0,4"`."""
            full_shape_str = " ".join(f"{d}" for d in self.full_shape) + " "
            sl_spec = ":".join(f"{o},{s}" for o, s in zip_strict(self.var_offset, self.var_shape))
            return full_shape_str + sl_spec

        def to_proto(self, export_scope=None):
            """A `SaveSliceInfoDef`, or None when `full_name` is outside `export_scope`."""
            if export_scope is not None and not self.full_name.startswith(export_scope):
                return None
            return SaveSliceInfoDef(
                full_name=ops.strip_name_scope(self.full_name, export_scope),
                full_shape=list(self.full_shape),
                var_offset=list(self.var_offset),
                var_shape=list(self.var_shape),
            )

    def _set_save_slice_info(self, save_slice_info):
        """Marks this variable as a slice of a partitioned variable."""
        self._save_slice_info = save_slice_info

    def _get_save_slice_info(self):
        return self._save_slice_info

    # -- values ---------------------------------------------------------------------
    @property
    def initializer(self):
        """The op that assigns the initial value."""
        return self._initializer_op

    @property
    def initial_value(self):
        """The tensor the initializer assigns."""
        return self._initial_value

    def initialized_value(self):
        """The variable's value if it is initialized, else its initial value.

        As TF: `cond(is_variable_initialized(v), v.read_value, lambda: v.initial_value)`
        outside any control dependencies, so another variable's initial value can
        use it whatever order the initializers run in.
        """
        with ops.control_dependencies(None):
            return control_flow_ops.cond(
                state_ops.is_variable_initialized(self._variable),
                self.read_value,
                lambda: self.initial_value,
            )

    def value(self):
        """The snapshot tensor (`<name>/read`) through which ops read the variable."""
        return self._snapshot

    def read_value(self):
        """A new tensor that reads the variable's current value."""
        return array_ops.identity(self._variable, name="read")

    def _ref(self):
        return self._variable

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        """A `Variable` over the ops a `VariableDef` names in the default graph."""
        graph = ops.get_default_graph()

        def element(name):
            return graph.as_graph_element(ops.prepend_name_scope(name, import_scope))

        v = Variable.__new__(Variable)
        v._variable = element(variable_def.variable_name)
        v._initializer_op = element(variable_def.initializer_name)
        v._snapshot = element(variable_def.snapshot_name)
        v._initial_value = (
            element(variable_def.initial_value_name) if variable_def.initial_value_name else None
        )
        v._trainable = variable_def.trainable
        v._constraint = None
        v._save_slice_info = None
        if variable_def.HasField("save_slice_info_def"):
            v._save_slice_info = Variable.SaveSliceInfo(
                save_slice_info_def=variable_def.save_slice_info_def, import_scope=import_scope
            )
        v._graph = graph
        return v

    def to_proto(self, export_scope=None):
        """The `VariableDef` naming this variable's ops (for a meta graph's collections).

        Returns None when the variable is not in `export_scope`.
        """
        if export_scope is not None and not self._variable.name.startswith(export_scope):
            return None
        strip = lambda name: ops.strip_name_scope(name, export_scope)  # noqa: E731
        var_def = VariableDef(
            variable_name=strip(self._variable.name),
            initial_value_name=strip(self._initial_value.name),
            initializer_name=strip(self._initializer_op.name),
            snapshot_name=strip(self._snapshot.name),
            trainable=self._trainable,
        )
        if self._save_slice_info is not None:
            var_def.save_slice_info_def.MergeFrom(
                self._save_slice_info.to_proto(export_scope=export_scope)
            )
        return var_def

    def _as_graph_element(self):
        return self._variable

    def eval(self, session=None):
        """The current value in `session` (or the default session)."""
        return self._variable.eval(session=session)

    def load(self, value, session=None):
        """Writes `value` into the variable in `session` (runs the initializer with a feed)."""
        session = session or ops.get_default_session()
        if session is None:
            raise ValueError(
                "Either session argument should be provided or default session "
                "should be established"
            )
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # -- updates ----------------------------------------------------------------------
    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Assigns `value`; returns the variable reference (or the op if `read_value` is False)."""
        t = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        """Adds `delta` in place."""
        t = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        """Subtracts `delta` in place."""
        t = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def count_up_to(self, limit):
        """Increments the variable until it reaches `limit` (see `tf.count_up_to`)."""
        return state_ops.count_up_to(self._variable, limit)

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"


def _variable_to_tensor(v, dtype=None, name=None, as_ref=False):
    del name  # the variable's own tensors
    if dtype is not None and not dtype.is_compatible_with(v.dtype.base_dtype):
        raise ValueError(
            f"Incompatible type conversion requested to type '{dtype.name}' for variable "
            f"of type '{v.dtype.name}'"
        )
    return v._ref() if as_ref else v.value()


ops.register_tensor_conversion_function(Variable, _variable_to_tensor)


def _delegate_operator(dunder):
    def method(self, *args):
        return getattr(self.value(), dunder)(*args)

    method.__name__ = dunder
    return method


for _dunder in (
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__matmul__",
    "__rmatmul__",
    "__floordiv__",
    "__rfloordiv__",
    "__mod__",
    "__rmod__",
    "__pow__",
    "__rpow__",
    "__and__",
    "__rand__",
    "__or__",
    "__ror__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__invert__",
    "__neg__",
    "__abs__",
    "__getitem__",
):
    setattr(Variable, _dunder, _delegate_operator(_dunder))


class PartitionedVariable:
    """A variable made of parts (`get_variable` with a partitioner), TF-1.x's.

    Iterating gives the part `Variable`s ordered by offset; converting it to a
    tensor concatenates them (`<name>/ConcatPartitions/concat`, read through an
    identity named `<name>`). Each part has a `SaveSliceInfo`, so a `Saver` writes
    the parts as slices of one checkpoint tensor `<name>`.
    """

    def __init__(self, name, shape, dtype, variable_list, partitions):
        """Wraps `variable_list` (each with a save slice info) as the variable `name`.

        Raises:
            TypeError: If `variable_list` or `partitions` is not a list or tuple.
            ValueError: If `variable_list` is empty, a part lacks its slice info or
                has another full shape, or `partitions` is not positive.
        """
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        for v in variable_list:
            if not all(v._get_save_slice_info() is not None for v in variable_list):
                raise ValueError(
                    "All variables must have a save_slice_info available: "
                    f"{[v.name for v in variable_list]}"
                )
            if len(shape) != len(partitions):
                raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
            if v._get_save_slice_info().full_shape != shape:
                raise ValueError(
                    f"All variables' full shapes must match shape: {shape}; but full shapes "
                    f"were: {[v._get_save_slice_info().full_shape]}"
                )
        self._variable_list = sorted(
            variable_list, key=lambda v: v._get_save_slice_info().var_offset
        )
        self._name = name
        self._shape = shape
        self._dtype = dtype
        self._partitions = partitions
        self._as_tensor = None

    def __iter__(self):
        """The part variables, ordered by offset."""
        return iter(self._variable_list)

    def __len__(self) -> int:
        """The number of parts.

        Raises:
            ValueError: If the variable is partitioned along more than one axis.
        """
        num_partition_axes = len(self._partition_axes())
        if num_partition_axes > 1:
            raise ValueError(f"Cannot get a length for {num_partition_axes} > 1 partition axes")
        return len(self._variable_list)

    def _partition_axes(self):
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self):
        """The parts concatenated into one tensor named after the variable."""
        if len(self._variable_list) == 1:
            with ops.name_scope(None):
                return array_ops.identity(self._variable_list[0], name=self._name)
        partition_axes = self._partition_axes()
        if len(partition_axes) > 1:
            raise NotImplementedError(
                f"Cannot concatenate along more than one dimension: {partition_axes}.  "
                "Multi-axis partition concat is not supported"
            )
        partition_ix = partition_axes[0]
        with ops.name_scope(self._name + "/ConcatPartitions/"):
            concatenated = array_ops.concat(self._variable_list, partition_ix)
        with ops.name_scope(None):
            return array_ops.identity(concatenated, name=self._name)

    def as_tensor(self):
        """The full value (the parts concatenated), outside any control dependencies."""
        with ops.control_dependencies(None):
            return self._concat()

    @property
    def name(self) -> str:
        """The full variable's name (without an output suffix)."""
        return self._name

    @property
    def dtype(self):
        """The dtype of the parts."""
        return self._dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The full shape."""
        return self.get_shape()

    def get_shape(self) -> tensor_shape.TensorShape:
        """The full shape."""
        return self._shape

    def _get_variable_list(self):
        return self._variable_list

    def _get_partitions(self):
        return self._partitions

    def _apply_assign_fn(self, assign_fn, value):
        partition_axes = self._partition_axes()
        if len(partition_axes) > 1:
            raise NotImplementedError(
                f"Cannot do assign action along more than one dimension: {partition_axes}.  "
                "Multi-axis partition assign action is not supported "
            )
        if isinstance(value, list):
            if len(value) != len(self._variable_list):
                raise ValueError(
                    f"Expected {len(self._variable_list)} values, one per part, got {len(value)}"
                )
            value_list = value
        elif isinstance(value, PartitionedVariable):
            value_list = list(value)
        else:
            partition_ix = partition_axes[0]
            size_splits_list = [
                tensor_shape.dimension_value(var.shape[partition_ix]) for var in self._variable_list
            ]
            value_list = indexing_ops.split(value, size_splits_list, axis=partition_ix)
        return [assign_fn(var, value_list[idx]) for idx, var in enumerate(self._variable_list)]

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Assigns `value` (split along the partition axis) to the parts; one op per part."""
        return self._apply_assign_fn(
            lambda var, v: var.assign(v, use_locking=use_locking, name=name, read_value=read_value),
            value,
        )

    def assign_add(self, value, use_locking=False, name=None, read_value=True):
        """Adds `value` (split along the partition axis) to the parts."""
        return self._apply_assign_fn(
            lambda var, v: var.assign_add(
                v, use_locking=use_locking, name=name, read_value=read_value
            ),
            value,
        )

    def assign_sub(self, value, use_locking=False, name=None, read_value=True):
        """Subtracts `value` (split along the partition axis) from the parts."""
        return self._apply_assign_fn(
            lambda var, v: var.assign_sub(
                v, use_locking=use_locking, name=name, read_value=read_value
            ),
            value,
        )

    def __repr__(self) -> str:
        return (
            f"<tf.PartitionedVariable '{self._name}' shape={self._shape} "
            f"parts={len(self._variable_list)}>"
        )


def _partitioned_variable_to_tensor(v, dtype=None, name=None, as_ref=False):
    del name
    if dtype is not None and not dtype.is_compatible_with(v.dtype):
        raise ValueError(
            f"Incompatible type conversion requested to type '{dtype.name}' for variable "
            f"of type '{v.dtype.name}'"
        )
    if as_ref:
        raise NotImplementedError("PartitionedVariable doesn't support being used as a reference.")
    return v.as_tensor()


ops.register_tensor_conversion_function(PartitionedVariable, _partitioned_variable_to_tensor)


# -- collections and initializers ---------------------------------------------------


def global_variables(scope=None) -> list:
    """Variables in `GraphKeys.GLOBAL_VARIABLES` (those saved and restored)."""
    return ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables() -> list:
    """Deprecated alias of `global_variables`."""
    return global_variables()


def trainable_variables(scope=None) -> list:
    """Variables in `GraphKeys.TRAINABLE_VARIABLES`."""
    return ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None) -> list:
    """Variables in `GraphKeys.LOCAL_VARIABLES`."""
    return ops.get_collection(ops.GraphKeys.LOCAL_VARIABLES, scope)


def moving_average_variables(scope=None) -> list:
    """Variables in `GraphKeys.MOVING_AVERAGE_VARIABLES`."""
    return ops.get_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """An op that runs the initializers of `var_list` (a `NoOp` when it is empty)."""
    if var_list:
        return control_flow_ops.group(*[v.initializer for v in var_list], name=name)
    return control_flow_ops.no_op(name=name)


def global_variables_initializer():
    """`variables_initializer(global_variables())`."""
    return variables_initializer(global_variables())


def initialize_all_variables():
    """Deprecated alias of `global_variables_initializer`."""
    return global_variables_initializer()


def local_variables_initializer():
    """`variables_initializer(local_variables())`."""
    return variables_initializer(local_variables(), name="init")


def initialize_local_variables():
    """Deprecated alias of `local_variables_initializer`."""
    return local_variables_initializer()


def is_variable_initialized(variable):
    """A bool scalar: whether `variable` is initialized in the running session."""
    return state_ops.is_variable_initialized(variable)


def assert_variables_initialized(var_list=None):
    """An op that fails with `FailedPreconditionError` if a variable is uninitialized."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    if not var_list:
        return None
    reads = [array_ops.identity(v._ref() if hasattr(v, "_ref") else v) for v in var_list]
    return control_flow_ops.group(*reads, name="assert_variables_initialized")


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor with the names of the variables not yet initialized.

    Args:
        var_list: Variables to check; default all global and local variables (or, when
            there are none, every variable op in the graph).
        name: Name scope of the ops.

    Returns:
        A string tensor, empty when every variable is initialized.
    """
    if var_list is None:
        var_list = global_variables() + local_variables()
        if not var_list:
            var_list = [
                op.outputs[0]
                for op in ops.get_default_graph().get_operations()
                if op.type in ("Variable", "VariableV2", "AutoReloadVariable")
            ]
    with ops.name_scope(name):
        if not var_list:
            return constant_op.constant([], dtype=dtypes.string)
        init_vars = [state_ops.is_variable_initialized(v) for v in var_list]
        mask = math_ops.logical_not(array_ops.stack(init_vars))
        names = constant_op.constant([v.op.name for v in var_list])
        return array_ops.boolean_mask(names, mask)


def _variable_to_proto(v, export_scope=None):
    return v.to_proto(export_scope=export_scope)


def _variable_from_proto(variable_def, import_scope=None):
    return Variable.from_proto(variable_def, import_scope=import_scope)


# Meta graphs write the variable collections as `VariableDef`s (TF's registration).
for _key in (
    ops.GraphKeys.GLOBAL_VARIABLES,
    ops.GraphKeys.TRAINABLE_VARIABLES,
    ops.GraphKeys.MOVING_AVERAGE_VARIABLES,
    ops.GraphKeys.LOCAL_VARIABLES,
    ops.GraphKeys.MODEL_VARIABLES,
    ops.GraphKeys.GLOBAL_STEP,
    ops.GraphKeys.METRIC_VARIABLES,
):
    meta_graph.register_proto_function(
        _key,
        proto_type=VariableDef,
        to_proto=_variable_to_proto,
        from_proto=_variable_from_proto,
    )
del _key


class VariableSynchronization(enum.Enum):
    """When a distributed variable is aggregated (TF's `tf.VariableSynchronization`).

    ferroflow accepts it wherever TF does (`tf.Variable`, `tf.get_variable`); with no
    distribution strategy, every value behaves as `AUTO`.
    """

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates combine (TF's `tf.VariableAggregation`).

    ferroflow accepts it wherever TF does; with no distribution strategy it changes
    nothing.
    """

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
