"""`tf.layers.Layer`: the TF-1.x layer base (variable scopes, reuse, collections).

A layer is named once (`dense_1`, `dense_2`, ... per graph, as Keras names objects),
and on first use opens a variable scope of its base name made unique per enclosing
scope (`dense`, `dense_1`, ...), whose variables come from `tf.get_variable` (so
`dense/kernel:0`) and whose ops go under the scope's first name scope (a second call
of the same layer makes `dense/MatMul_1`). Later calls reuse the variables. Update
ops go to `GraphKeys.UPDATE_OPS` and losses to `GraphKeys.REGULARIZATION_LOSSES`.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import weakref
from typing import Any

from ..framework import dtypes, ops, tensor_shape
from ..ops import array_ops, init_ops, variables
from ..ops import variable_scope as vs

# The default initializers of biases / offsets and scales (shared, stateless).
_ZEROS = init_ops.zeros_initializer()
_ONES = init_ops.ones_initializer()

# Per graph: how many layers of each snake-case class name were made.
_LAYER_NAME_UIDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _to_snake_case(name: str) -> str:
    """`Conv2DTranspose` -> `conv2d_transpose` (Keras' rule)."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


def _unique_layer_name(base: str) -> str:
    uids = _LAYER_NAME_UIDS.setdefault(ops.get_default_graph(), {})
    uids[base] = uids.get(base, 0) + 1
    return f"{base}_{uids[base]}"


def _add_elements_to_collection(elements, collection_name) -> None:
    collection = ops.get_collection_ref(collection_name)
    present = {id(e) for e in collection}
    for element in elements:
        if id(element) not in present:
            collection.append(element)
            present.add(id(element))


class InputSpec:
    """The rank and known dimensions a layer accepts.

    Args:
        dtype: Expected dtype (unchecked; kept for compatibility).
        shape: Expected full shape.
        ndim: Expected rank.
        max_ndim: Largest accepted rank.
        min_ndim: Smallest accepted rank.
        axes: `{axis: size}` of dimensions that must have a given size.
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None):
        self.dtype = dtype
        self.shape = shape
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})

    def __repr__(self):
        parts = [f"{k}={v}" for k, v in vars(self).items() if v not in (None, {})]
        return f"InputSpec({', '.join(parts)})"


def _check_input_spec(spec: InputSpec | None, layer_name: str, shape) -> None:
    if spec is None or shape is None:
        return
    ndims = shape.ndims
    prefix = f"Input 0 of layer {layer_name} is incompatible with the layer: "
    full = f"Full shape received: {tuple(shape.as_list()) if ndims is not None else None}"
    if spec.ndim is not None and ndims is not None and ndims != spec.ndim:
        raise ValueError(f"{prefix}expected ndim={spec.ndim}, found ndim={ndims}. {full}")
    if spec.min_ndim is not None and ndims is not None and ndims < spec.min_ndim:
        raise ValueError(f"{prefix}expected min_ndim={spec.min_ndim}, found ndim={ndims}. {full}")
    if spec.max_ndim is not None and ndims is not None and ndims > spec.max_ndim:
        raise ValueError(f"{prefix}expected max_ndim={spec.max_ndim}, found ndim={ndims}. {full}")
    if ndims is not None:
        dims = shape.as_list()
        for axis, value in spec.axes.items():
            if value is not None and dims[axis] not in (value, None):
                raise ValueError(
                    f"{prefix}expected axis {axis} of input shape to have value {value} but "
                    f"received input with shape {tuple(dims)}"
                )


_KNOWN_KWARGS = {"_scope", "_reuse", "activity_regularizer", "input_shape", "autocast"}


class Layer:
    """Base layer class (TF-1.x `tf.layers.Layer`).

    Subclasses implement `build(input_shape)` (create variables with `add_weight`)
    and `call(inputs, ...)`; `__call__` builds on first use inside the layer's
    variable scope and calls.

    Args:
        trainable: Whether the layer's variables are trainable.
        name: Name of the layer, also the base of its variable scope.
        dtype: Dtype of the variables (default: the first input's).
        **kwargs: `_scope` (a variable scope to use as is) and `_reuse` (reuse its
            variables), as the functional forms pass them; `activity_regularizer`.

    Example:
        ```python
        layer = tf.layers.Dense(4)
        y1, y2 = layer(x1), layer(x2)   # one dense/kernel, dense/bias
        ```
    """

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        for key in kwargs:
            if key not in _KNOWN_KWARGS:
                raise TypeError("Keyword argument not understood:", key)
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        self._activity_regularizer = kwargs.pop("activity_regularizer", None)
        self._trainable = bool(trainable)
        self.built = False
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._updates: list = []
        self._losses: list = []
        self.input_spec: InputSpec | None = None
        self._always_reuse_variable_scope = None
        if isinstance(name, vs.VariableScope):
            self._base_name = name.name
            self._name = _unique_layer_name(_to_snake_case(type(self).__name__))
        elif name:
            self._base_name = self._name = name
        else:
            self._base_name = _to_snake_case(type(self).__name__)
            self._name = _unique_layer_name(self._base_name)
        self._call_has_scope_arg = "scope" in inspect.signature(self.call).parameters
        self._scope = None
        if scope:
            with vs.variable_scope(scope) as captured:
                self._scope = captured
        self._current_scope = None

    # --- properties -------------------------------------------------------------

    @property
    def name(self):
        """The layer's name."""
        return self._name

    @property
    def dtype(self):
        """The dtype of the layer's variables (None until known)."""
        return self._dtype

    @property
    def trainable(self):
        """Whether the layer's variables are trainable."""
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)

    @property
    def activity_regularizer(self):
        """Optional regularizer function for the output of this layer (or None)."""
        return self._activity_regularizer

    @activity_regularizer.setter
    def activity_regularizer(self, regularizer):
        self._activity_regularizer = regularizer

    @property
    def scope_name(self):
        """The name of the layer's variable scope (known once called).

        Raises:
            ValueError: if the layer has not been called yet.
        """
        if not self._scope:
            raise ValueError(
                f'No name available for layer scope because the layer "{self._name}" has '
                "not been used yet. The scope name  is determined the first time the layer "
                "instance is called. You must therefore call the layer before querying "
                "`scope_name`."
            )
        return self._scope.name

    @property
    def trainable_weights(self):
        """The trainable variables (none when the layer is not trainable)."""
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self):
        """The non-trainable variables (all of them when the layer is not trainable)."""
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    @property
    def weights(self):
        """Trainable then non-trainable variables."""
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self):
        """The update ops (e.g. moving averages) the layer made."""
        return list(self._updates)

    @property
    def losses(self):
        """The losses (regularization and `add_loss`) the layer made."""
        return list(self._losses)

    # --- hooks ------------------------------------------------------------------

    def build(self, input_shape):
        """Creates the variables; the default creates none."""
        self.built = True

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """The layer's computation `call(inputs, ...)`; the default returns `inputs`."""
        return args[0]

    def compute_output_shape(self, input_shape):
        """The output shape for `input_shape` (subclasses override)."""
        raise NotImplementedError(f"{type(self).__name__}.compute_output_shape")

    def add_update(self, updates, inputs=None):
        """Records update op(s), added to `GraphKeys.UPDATE_OPS` by `__call__`."""
        if not isinstance(updates, (list, tuple)):
            updates = [updates]
        self._updates.extend(updates)

    def add_loss(self, losses, inputs=None):
        """Records loss tensor(s), also added to `GraphKeys.REGULARIZATION_LOSSES`."""
        if not isinstance(losses, (list, tuple)):
            losses = [losses]
        losses = [loss for loss in losses if loss is not None]
        self._losses.extend(losses)
        _add_elements_to_collection(losses, ops.GraphKeys.REGULARIZATION_LOSSES)

    def _set_scope(self, scope=None):
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(scope if scope is not None else self._base_name) as c:
                    self._scope = c
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as c:
                    self._scope = c

    def add_weight(
        self,
        name,
        shape,
        dtype=None,
        initializer=None,
        regularizer=None,
        trainable=None,
        constraint=None,
        use_resource=None,
        synchronization=None,
        aggregation=None,
        partitioner=None,
    ):
        """Creates (or, when reusing, gets) the variable `<scope>/<name>`.

        Args:
            name: The variable's name in the layer's scope.
            shape: Its shape.
            dtype: Its dtype (default: the layer's, else float32).
            initializer: Its initializer (default: the scope's, else
                `glorot_uniform` for floats).
            regularizer: A function of the variable whose result is a layer loss
                (added once, under `<name>/Regularizer/`).
            trainable: Whether it is trainable (also needs `layer.trainable`).
            constraint: Projection applied after optimizer updates.
            use_resource: Accepted for compatibility.
            synchronization: Accepted for compatibility.
            aggregation: Accepted for compatibility.
            partitioner: Not supported by `get_variable`.

        Returns:
            The variable.
        """
        trainable = True if trainable is None else bool(trainable)
        existing = {id(v) for v in variables.global_variables()}
        dtype = dtypes.as_dtype(dtype or self.dtype or dtypes.float32)
        self._set_scope(None)
        reuse = self.built or self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with ops.name_scope(scope.original_name_scope):
                if initializer is None:
                    initializer = scope.initializer
                variable = vs.get_variable(
                    name,
                    shape=shape,
                    dtype=dtype,
                    initializer=initializer,
                    trainable=trainable and self.trainable,
                    constraint=constraint,
                    partitioner=partitioner,
                )
                if regularizer and id(variable) not in existing:
                    with ops.name_scope(name + "/Regularizer"):
                        self.add_loss(regularizer(variable))
        in_trainable = any(v is variable for v in variables.trainable_variables())
        # As TF: a partitioned variable is tracked as its parts, and (TF's quirk: the
        # partitioned object is never in the trainable collection) as non-trainable.
        parts = (
            list(variable) if isinstance(variable, variables.PartitionedVariable) else [variable]
        )
        if trainable and self.trainable and in_trainable:
            self._trainable_weights.extend(parts)
        else:
            self._non_trainable_weights.extend(parts)
        return variable

    def add_variable(self, *args, **kwargs):
        """Deprecated alias of `add_weight` (TF-1.x layers and RNN cells use it)."""
        return self.add_weight(*args, **kwargs)

    # --- calling ----------------------------------------------------------------

    def _first_input(self, inputs):
        flat = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        return flat[0] if flat else None

    def __call__(self, inputs, *args, **kwargs):
        """Builds the layer on first use, then applies `call` to `inputs`.

        Args:
            inputs: Input tensor(s).
            *args: More arguments of `call`.
            **kwargs: More arguments of `call`; `scope` names the variable scope of
                the first call.

        Returns:
            The output tensor(s).
        """
        scope = kwargs.pop("scope", None)
        with self._call_scope(scope) as current:
            if self._call_has_scope_arg:
                kwargs["scope"] = current
            if isinstance(inputs, (list, tuple)):
                inputs = type(inputs)(ops.convert_to_tensor(x) for x in inputs)
                shapes = [x.shape for x in inputs]
            else:
                inputs = ops.convert_to_tensor(inputs)
                shapes = inputs.shape
            first = self._first_input(inputs)
            if first is None:
                self._maybe_build(None, shapes, None)
            else:
                self._maybe_build(first.dtype, shapes, first.shape)
            outputs = self.call(inputs, *args, **kwargs)
            if self._activity_regularizer is not None:
                self._handle_activity_regularization(outputs)
        _add_elements_to_collection(self.updates, ops.GraphKeys.UPDATE_OPS)
        return outputs

    @contextlib.contextmanager
    def _call_scope(self, scope=None):
        """Enters the variable and name scopes `call` runs in; yields the variable scope.

        That is the layer's own scope (made on first use, under `scope` if given),
        reused after the first call.
        """
        self._set_scope(scope)
        if self.built:
            if self._always_reuse_variable_scope is None:
                self._always_reuse_variable_scope = vs.variable_scope(
                    self._scope, reuse=True, auxiliary_name_scope=False
                )
            context = self._always_reuse_variable_scope
        else:
            context = vs.variable_scope(self._scope, reuse=self._reuse, auxiliary_name_scope=False)
        with context as current:
            self._current_scope = current
            with ops.name_scope(current.original_name_scope):
                yield current

    def _maybe_build(self, dtype, shapes, first_shape):
        """Builds the layer for input shapes `shapes` on first use; checks `input_spec`.

        `dtype` (the first input's) becomes the layer's if it has none, and the first
        input's shape `first_shape` is checked against `input_spec`. Runs inside
        `_call_scope`.
        """
        if self._dtype is None and dtype is not None:
            self._dtype = dtype.base_dtype
        if not self.built:
            _check_input_spec(self.input_spec, self.name, first_shape)
            self.build(shapes)
            self.built = True
        _check_input_spec(self.input_spec, self.name, first_shape)

    def _handle_activity_regularization(self, outputs):
        # As Keras: the loss of each output is divided by its batch size.
        with ops.name_scope("ActivityRegularizer"):
            for output in outputs if isinstance(outputs, (list, tuple)) else [outputs]:
                loss = self._activity_regularizer(output)
                batch_size = array_ops.cast(array_ops.shape(output)[0], loss.dtype)
                self.add_loss(loss / batch_size)

    def apply(self, inputs, *args, **kwargs):
        """Deprecated alias of `__call__`."""
        return self.__call__(inputs, *args, **kwargs)


def _normalize_tuple(value, n, name):
    """An int or `n` ints -> a tuple of `n` ints (Keras' `conv_utils.normalize_tuple`)."""
    if isinstance(value, int):
        return (value,) * n
    try:
        value_tuple = tuple(value)
    except TypeError:
        raise ValueError(
            f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
        ) from None
    if len(value_tuple) != n:
        raise ValueError(
            f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
        )
    for single in value_tuple:
        try:
            int(single)
        except (ValueError, TypeError):
            raise ValueError(
                f"The `{name}` argument must be a tuple of {n} integers. Received: {value} "
                f"including element {single} of type {type(single)}"
            ) from None
    return tuple(int(v) for v in value_tuple)


def _normalize_padding(value, allow_causal=False):
    padding = value.lower() if isinstance(value, str) else value
    allowed = {"valid", "same", "causal"} if allow_causal else {"valid", "same"}
    if padding not in allowed:
        raise ValueError(
            'The `padding` argument must be a list/tuple or one of "valid", "same" (or '
            f'"causal", only for `Conv1D). Received: {value}'
        )
    return padding


def _normalize_data_format(value):
    data_format = "channels_last" if value is None else str(value).lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(
            'The `data_format` argument must be one of "channels_first", "channels_last". '
            f"Received: {value}"
        )
    if data_format == "channels_first":
        raise ValueError(
            "data_format='channels_first' is not supported: ferroflow's convolution and "
            "pooling kernels are NHWC (as TensorFlow's CPU kernels)"
        )
    return data_format


def _as_shape(shape) -> tensor_shape.TensorShape:
    return tensor_shape.TensorShape(shape)
