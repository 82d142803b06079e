"""`tf.Variable` (TF-1.x reference variables), variable collections and initializers."""

from __future__ import annotations

from ..framework import constant_op, dtypes, ops, tensor_shape
from ..protos import VariableDef
from . import array_ops, control_flow_ops, math_ops, state_ops


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
            use_resource: Accepted for compatibility; ferroflow variables are ref variables.
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
        if not isinstance(collections, list | tuple | set):
            raise ValueError(
                f"collections argument to Variable constructor must be a list, "
                f"tuple, or set. Got {collections} of type {type(collections)}"
            )
        collections = list(collections)
        if trainable and ops.GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(ops.GraphKeys.TRAINABLE_VARIABLES)
        self._trainable = trainable
        self._constraint = constraint
        values = [] if init_from_fn else [initial_value]
        # TF-1.x creates variables outside any enclosing control-dependency context.
        with ops.control_dependencies(None), ops.name_scope(name, "Variable", values) as scope:
            if init_from_fn:
                with ops.name_scope("Initializer"):
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
        """The value, initialising the variable first if needed (TF-1.x pattern)."""
        with ops.control_dependencies([self._initializer_op]):
            return array_ops.identity(self._variable)

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
        v._graph = graph
        return v

    def to_proto(self, export_scope=None):
        """The `VariableDef` naming this variable's ops (for a meta graph's collections).

        Returns None when the variable is not in `export_scope`.
        """
        if export_scope is not None and not self._variable.name.startswith(export_scope):
            return None
        strip = lambda name: ops.strip_name_scope(name, export_scope)  # noqa: E731
        return VariableDef(
            variable_name=strip(self._variable.name),
            initial_value_name=strip(self._initial_value.name),
            initializer_name=strip(self._initializer_op.name),
            snapshot_name=strip(self._snapshot.name),
            trainable=self._trainable,
        )

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
