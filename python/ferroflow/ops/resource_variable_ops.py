"""TF's `ResourceVariable` interface over ferroflow's variables.

ferroflow keeps every variable's value in a `VariableV2` op (TF-1.x's reference
variables): its graphs have no resource handles. What makes a TF program's variable a
resource variable in the Python API is kept: `ResourceVariable(...)`, or a variable
made with `use_resource=True` (the argument, or its variable scope's), is a
`ResourceVariable`, which

* `is_resource_variable` recognises (`tf.custom_gradient` takes only those),
* reads a few rows with `sparse_read` / `gather_nd` (their gradient with respect to
  the variable is `IndexedSlices`), and
* returns, from `assign`, `assign_add` and `assign_sub`, the variable after the update
  (TF's `_UnreadVariable`: reading it reads the value the update wrote) rather than
  the update's reference tensor; the update op itself with `read_value=False`.

Their values, dtypes (`float32_ref`), initializers, savers and gradients are those of
ferroflow's variables.
"""

from __future__ import annotations

from ..framework import ops
from . import array_ops, sparse_ops, state_ops, variables


class ResourceVariable(variables.Variable):
    """A variable with TF's resource-variable interface (see the module docstring).

    Example:
        ```python
        v = ResourceVariable([1.0, 2.0, 3.0])
        rows = v.sparse_read([0, 2])  # gradient: IndexedSlices
        after = v.assign_add([1.0, 1.0, 1.0]).read_value()
        ```
    """

    def sparse_read(self, indices, name=None):
        """The rows of the variable at `indices` (a `gather` of its value).

        Args:
            indices: An int32 or int64 tensor of row indices.
            name: Name scope of the op (default `Gather`).

        Returns:
            A tensor of the variable's base dtype.
        """
        with ops.name_scope("Gather" if name is None else name) as scope:
            return array_ops.gather(self.value(), indices, name=scope)

    def gather_nd(self, indices, name=None):
        """The slices of the variable at `indices` (a `gather_nd` of its value).

        Args:
            indices: An int32 or int64 tensor of index vectors.
            name: Name scope of the op (default `GatherNd`).

        Returns:
            A tensor of the variable's base dtype.
        """
        with ops.name_scope("GatherNd" if name is None else name) as scope:
            return sparse_ops.gather_nd(self.value(), indices, name=scope)

    def _lazy_read(self, update):
        return _UnreadVariable(self, update)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Assigns `value`.

        Returns:
            The variable after the assignment (reads see the new value), or the
            assignment op when `read_value` is False.
        """
        t = state_ops.assign(self._variable, value, use_locking=bool(use_locking), name=name)
        return self._lazy_read(t) if read_value else t.op

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds `delta` in place.

        Returns:
            The variable after the update, or the update op when `read_value` is
            False.
        """
        t = state_ops.assign_add(self._variable, delta, use_locking=bool(use_locking), name=name)
        return self._lazy_read(t) if read_value else t.op

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts `delta` in place.

        Returns:
            The variable after the update, or the update op when `read_value` is
            False.
        """
        t = state_ops.assign_sub(self._variable, delta, use_locking=bool(use_locking), name=name)
        return self._lazy_read(t) if read_value else t.op

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.base_dtype.name}>"


class _UnreadVariable:
    """The variable after an update (TF's `_UnreadVariable`): a future read of it.

    Every read (`value()`, `read_value()`, converting it to a tensor, fetching it)
    reads the variable through the update's result, so after the update; further
    updates run after this one.
    """

    __array_priority__ = 100

    def __init__(self, variable, update):
        self._parent = variable
        self._update = update
        # What `session.run` fetches: the value the update wrote.
        self._graph_element = array_ops.identity(update, name="read")

    @property
    def name(self) -> str:
        """The name of the update op (TF's)."""
        return self._update.op.name

    @property
    def op(self):
        """The update op."""
        return self._update.op

    @property
    def dtype(self):
        """The variable's dtype."""
        return self._parent.dtype

    @property
    def shape(self):
        """The variable's static shape."""
        return self._parent.shape

    def get_shape(self):
        """Alias of `shape`."""
        return self.shape

    @property
    def graph(self):
        """The variable's graph."""
        return self._parent.graph

    @property
    def device(self) -> str:
        """The variable's device."""
        return self._parent.device

    def value(self):
        """A tensor reading the variable after the update."""
        return array_ops.identity(self._update, name="read")

    def read_value(self):
        """A tensor reading the variable after the update."""
        return array_ops.identity(self._update, name="read")

    def _ref(self):
        return self._parent._ref()

    def _as_graph_element(self):
        return self._graph_element

    def eval(self, session=None):
        """The value after the update, in `session` (or the default session)."""
        return self._graph_element.eval(session=session)

    def _after_update(self, method, *args, **kwargs):
        with ops.control_dependencies([self._update.op]):
            return method(*args, **kwargs)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """`ResourceVariable.assign`, after this update."""
        return self._after_update(self._parent.assign, value, use_locking, name, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """`ResourceVariable.assign_add`, after this update."""
        return self._after_update(self._parent.assign_add, delta, use_locking, name, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """`ResourceVariable.assign_sub`, after this update."""
        return self._after_update(self._parent.assign_sub, delta, use_locking, name, read_value)

    def sparse_read(self, indices, name=None):
        """`ResourceVariable.sparse_read` of the value after the update."""
        with ops.name_scope("Gather" if name is None else name) as scope:
            return array_ops.gather(self.value(), indices, name=scope)

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' (the value after {self._update.op.name})>"


def _unread_to_tensor(v, dtype=None, name=None, as_ref=False):
    del name
    if dtype is not None and not dtype.is_compatible_with(v.dtype.base_dtype):
        raise ValueError(
            f"Incompatible type conversion requested to type '{dtype.name}' for variable "
            f"of type '{v.dtype.name}'"
        )
    return v._update if as_ref else v.value()


ops.register_tensor_conversion_function(_UnreadVariable, _unread_to_tensor)


for _dunder in (
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__neg__",
    "__getitem__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
):
    setattr(_UnreadVariable, _dunder, variables._delegate_operator(_dunder))


def is_resource_variable(var) -> bool:
    """Whether `var` is to be considered a resource variable (TF's test)."""
    return isinstance(var, (ResourceVariable, _UnreadVariable)) or hasattr(
        var, "_should_act_as_resource_variable"
    )
