"""RNN cells (TF-1.x `tf.nn.rnn_cell`): `RNNCell` and the basic, LSTM, GRU and stacked cells.

Ported from TF's `rnn_cell_impl.py` (TF 2.x keeps TF 1.15's as
`keras/layers/legacy_rnn/rnn_cell_impl.py`) onto ferroflow's `tf.layers.Layer`: a
cell is a layer whose `__call__(inputs, state, scope=None)` builds on first use in
its variable scope (`rnn/basic_lstm_cell`, `rnn/multi_rnn_cell/cell_0/gru_cell`, ...)
and reuses its variables afterwards, so variable names, shapes and the math are TF's
and TF checkpoints of RNN models restore. The wrappers (`DropoutWrapper`,
`ResidualWrapper`, `DeviceWrapper`) are in `rnn_cell_wrapper_impl.py`.
"""

from __future__ import annotations

import collections

from .._compat import zip_strict
from ..framework import constant_op, dtypes, ops, tensor_shape, tensor_util
from ..layers.base import InputSpec, Layer
from ..layers.core import _activation
from . import (
    array_ops,
    clip_ops,
    indexing_ops,
    init_ops,
    math_ops,
    nn_ops,
    partitioned_variables,
    variables,
)
from . import variable_scope as vs
from ._nest import flatten, is_nested, map_structure

_BIAS_VARIABLE_NAME = "bias"
_WEIGHTS_VARIABLE_NAME = "kernel"

# For matching errors of `assert_like_rnncell` (TF's constant).
ASSERT_LIKE_RNNCELL_ERROR_REGEXP = "is not an RNNCell"


def _hasattr(obj, attr_name) -> bool:
    try:
        getattr(obj, attr_name)
    except AttributeError:
        return False
    return True


def assert_like_rnncell(cell_name, cell) -> None:
    """Raises a TypeError if `cell` does not behave like an RNNCell.

    Args:
        cell_name: The argument's name, for the message.
        cell: The object to check (needs `output_size`, `state_size`, `zero_state` or
            `get_initial_state`, and to be callable).

    Raises:
        TypeError: Naming what is missing.
    """
    conditions = [
        _hasattr(cell, "output_size"),
        _hasattr(cell, "state_size"),
        _hasattr(cell, "get_initial_state") or _hasattr(cell, "zero_state"),
        callable(cell),
    ]
    errors = [
        "'output_size' property is missing",
        "'state_size' property is missing",
        "either 'zero_state' or 'get_initial_state' method is required",
        "is not callable",
    ]
    if not all(conditions):
        missing = [error for error, cond in zip_strict(errors, conditions) if not cond]
        raise TypeError(
            f"The argument {cell_name!r} ({cell}) is not an RNNCell: {', '.join(missing)}."
        )


def _concat(prefix, suffix, static=False):
    """`prefix` (a batch size) then `suffix` (a size): an int32 tensor, or a list if `static`.

    Each of them may be an int, a `TensorShape` or a scalar/vector tensor (TF's).

    Raises:
        ValueError: For a tensor that is not a scalar or vector, or, unless `static`,
            for a prefix or suffix that is not fully known.
    """
    p: ops.Tensor | None
    s: ops.Tensor | None
    if isinstance(prefix, ops.Tensor):
        p = prefix
        p_static = tensor_util.constant_value(prefix)
        if p.shape.ndims == 0:
            p = array_ops.expand_dims(p, 0)
        elif p.shape.ndims != 1:
            raise ValueError(
                f"prefix tensor must be either a scalar or vector, but saw tensor: {p}"
            )
    else:
        p_shape = tensor_shape.TensorShape(prefix)
        p_static = p_shape.as_list() if p_shape.ndims is not None else None
        p = (
            constant_op.constant(p_shape.as_list(), dtype=dtypes.int32)
            if p_shape.is_fully_defined()
            else None
        )
    if isinstance(suffix, ops.Tensor):
        s = suffix
        s_static = tensor_util.constant_value(suffix)
        if s.shape.ndims == 0:
            s = array_ops.expand_dims(s, 0)
        elif s.shape.ndims != 1:
            raise ValueError(
                f"suffix tensor must be either a scalar or vector, but saw tensor: {s}"
            )
    else:
        s_shape = tensor_shape.TensorShape(suffix)
        s_static = s_shape.as_list() if s_shape.ndims is not None else None
        s = (
            constant_op.constant(s_shape.as_list(), dtype=dtypes.int32)
            if s_shape.is_fully_defined()
            else None
        )
    if static:
        p_static, s_static = _static_dims(p_static), _static_dims(s_static)
        shape = tensor_shape.TensorShape(p_static).concatenate(s_static)
        return shape.as_list() if shape.ndims is not None else None
    if p is None or s is None:
        raise ValueError(f"Provided a prefix or suffix of None: {prefix} and {suffix}")
    return array_ops.concat((p, s), 0)


def _static_dims(value):
    """A static size (None, a list, or a numpy scalar/vector) as a list of dims or None."""
    if value is None or isinstance(value, list):
        return value
    flat = value.tolist()
    return flat if isinstance(flat, list) else [flat]


def _zeros(prefix, suffix, dtype):
    """`zeros(_concat(prefix, suffix))` with the static shape TF's `Fill` infers.

    TF's shape function sees the partial value of the concatenated shape (an unknown
    batch size is one unknown dimension); ferroflow's does not, so it is set here.
    """
    zeros = array_ops.zeros(_concat(prefix, suffix), dtype=dtype)
    static = _concat(prefix, suffix, static=True)
    if static is None and isinstance(prefix, ops.Tensor) and prefix.shape.ndims in (0, 1):
        n = 1 if prefix.shape.ndims == 0 else tensor_shape.dimension_value(prefix.shape[0])
        if n is not None:
            tail = (
                tensor_shape.as_shape(tensor_util.constant_value(suffix))
                if isinstance(suffix, ops.Tensor)
                else tensor_shape.TensorShape(suffix)
            )
            static = tensor_shape.unknown_shape(rank=n).concatenate(tail)
    if static is not None:
        zeros.set_shape(static)
    return zeros


def _zero_state_tensors(state_size, batch_size, dtype):
    """Zeros of shape `[batch_size] + s` for each `s` in the (nested) `state_size`."""
    return map_structure(lambda s: _zeros(batch_size, s, dtype), state_size)


def _check_supported_dtypes(dtype) -> None:
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError(f"RNN cell only supports floating point inputs, but saw dtype: {dtype}")


def _check_rnn_cell_input_dtypes(inputs) -> None:
    for t in flatten(inputs):
        _check_supported_dtypes(t.dtype)


def _cell_activation(activation):
    """A cell's activation: a callable, a Keras name, or None for `tanh`."""
    if not activation:
        return math_ops.tanh
    fn = _activation(activation)
    return fn if fn is not None else array_ops.identity


def _initializer(initializer):
    """Keras' `initializers.get`: None, a callable, or an initializer's name."""
    if initializer is None or callable(initializer):
        return initializer
    table = {
        "zeros": init_ops.zeros_initializer,
        "ones": init_ops.ones_initializer,
        "glorot_uniform": init_ops.glorot_uniform_initializer,
        "glorot_normal": init_ops.glorot_normal_initializer,
        "orthogonal": init_ops.orthogonal_initializer,
        "random_normal": init_ops.random_normal_initializer,
        "random_uniform": init_ops.random_uniform_initializer,
        "truncated_normal": init_ops.truncated_normal_initializer,
    }
    if initializer not in table:
        raise ValueError(f"Unknown initializer: {initializer}")
    return table[initializer]()


def _static_depth(inputs_shape):
    """The last dimension of a build shape (an int), checked to be known."""
    shape = tensor_shape.TensorShape(inputs_shape)
    depth = None if shape.ndims is None else tensor_shape.dimension_value(shape[-1])
    if depth is None:
        shown = tuple(shape.as_list()) if shape.ndims is not None else None
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {shown}")
    return depth


class RNNCell(Layer):
    """Abstract object representing an RNN cell (TF-1.x `tf.nn.rnn_cell.RNNCell`).

    A cell maps `(inputs, state)` to `(output, next_state)`: subclasses define
    `state_size`, `output_size` and `call(inputs, state)`. `state_size` may be an
    int, a `TensorShape` or a nested tuple of them; the state is then a matching
    structure of `[batch_size] + s` tensors.

    Args:
        trainable: Whether the cell's variables are trainable.
        name: The cell's name (and variable scope base).
        dtype: Dtype of the variables (default: the first input's).
        **kwargs: `tf.layers.Layer`'s (`_scope`, `_reuse`).

    Example:
        ```python
        cell = tf.nn.rnn_cell.BasicLSTMCell(64)
        state = cell.zero_state(batch_size, tf.float32)
        output, state = cell(x_t, state)
        ```
    """

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        # TF's flag telling its RNN code that a single state is not wrapped in a list.
        self._is_tf_rnn_cell = True

    def __call__(self, inputs, state, scope=None):
        """Runs the cell on `inputs` from `state`.

        Args:
            inputs: A `[batch_size, input_size]` tensor.
            state: A `[batch_size, state_size]` tensor, or the structure `state_size`
                describes.
            scope: A variable scope (or its name) for the variables; by default the
                cell's own scope under the current variable scope.

        Returns:
            `(output, new_state)`: a `[batch_size, output_size]` tensor and a state
            of the same structure as `state`.
        """
        if scope is not None:
            with vs.variable_scope(scope, custom_getter=self._rnn_get_variable) as entered:
                return super().__call__(inputs, state, scope=entered)
        with self._default_scope():
            return super().__call__(inputs, state)

    def _default_scope(self):
        """The variable scope a call without `scope` runs in (TF's `rnncell_scope`).

        It is the scope current at the first call, with the custom getter that makes
        `get_variable`'s variables the cell's weights.
        """
        scope_cm = getattr(self, "rnncell_scope", None)
        if scope_cm is None:
            scope_cm = vs.variable_scope(
                vs.get_variable_scope(), custom_getter=self._rnn_get_variable
            )
            self.rnncell_scope = scope_cm
        return scope_cm

    def _rnn_get_variable(self, getter, *args, **kwargs):
        # The custom getter of the cell's scope: variables that `call` makes with
        # `tf.get_variable` become the cell's weights (TF's).
        variable = getter(*args, **kwargs)
        parts = list(variable) if isinstance(variable, variables.PartitionedVariable) else []
        trainable_vars = variables.trainable_variables()
        first = parts[0] if parts else variable
        trainable = any(first is v for v in trainable_vars)
        if trainable and all(variable is not v for v in self._trainable_weights):
            self._trainable_weights.append(variable)
        elif not trainable and all(variable is not v for v in self._non_trainable_weights):
            self._non_trainable_weights.append(variable)
        return variable

    @property
    def state_size(self):
        """The size(s) of the state: an int, a `TensorShape`, or a nested tuple of them."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        """The size of the output: an int or a `TensorShape`."""
        raise NotImplementedError("Abstract method")

    def build(self, _):
        """Nothing to build: `call` may make variables with `tf.get_variable`."""

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """The initial state: `zero_state` of `inputs`' batch size and dtype, or the given.

        Args:
            inputs: An optional tensor whose first dimension is the batch size.
            batch_size: The batch size (checked against `inputs` when both are given).
            dtype: The state's dtype (checked against `inputs` when both are given).

        Returns:
            The zero state.

        Raises:
            ValueError: On a mismatch with `inputs`, or without a batch size or dtype.
        """
        if inputs is not None:
            inputs = ops.convert_to_tensor(inputs, name="inputs")
            first = tensor_shape.dimension_value(inputs.shape[0])
            if batch_size is not None:
                static_batch_size = (
                    tensor_util.constant_value(batch_size)
                    if isinstance(batch_size, ops.Tensor)
                    else batch_size
                )
                if first != static_batch_size:
                    raise ValueError(
                        "batch size from input tensor is different from the input param. "
                        f"Input tensor batch: {first}, batch_size: {batch_size}"
                    )
            if dtype is not None and inputs.dtype != dtype:
                raise ValueError(
                    "dtype from input tensor is different from the input param. "
                    f"Input tensor dtype: {inputs.dtype}, dtype: {dtype}"
                )
            batch_size = first or array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError(
                "batch_size and dtype cannot be None while constructing initial state: "
                f"batch_size={batch_size}, dtype={dtype}"
            )
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zero-filled state tensor(s), under the name scope `<ClassName>ZeroState`.

        Args:
            batch_size: An int or scalar int tensor.
            dtype: The state's dtype.

        Returns:
            A `[batch_size, state_size]` tensor of zeros, or a structure of them
            matching a nested `state_size`.
        """
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            return _zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """An RNN cell that builds its variables in `build` (as any `tf.layers.Layer`).

    `__call__` skips `RNNCell`'s custom getter: subclasses create their variables
    with `add_weight` in `build(inputs_shape)`, and `call` uses them.
    """

    def __call__(self, inputs, state, scope=None, *args, **kwargs):
        """Runs the cell on `inputs` from `state` (see `RNNCell.__call__`).

        Args:
            inputs: A `[batch_size, input_size]` tensor.
            state: The cell's state.
            scope: An optional variable scope for the first call.
            *args: More arguments of `call`.
            **kwargs: More arguments of `call`.

        Returns:
            `(output, new_state)`.
        """
        return Layer.__call__(self, inputs, state, *args, scope=scope, **kwargs)


class BasicRNNCell(LayerRNNCell):
    """The most basic RNN cell: `output = new_state = act(W [input, state] + b)`.

    Args:
        num_units: The number of units.
        activation: The nonlinearity (default `tanh`; a Keras name is accepted).
        reuse: Whether to reuse variables in an existing scope.
        name: The cell's name (layers of the same name share weights with `reuse`).
        dtype: The variables' dtype (default: the first input's).
        **kwargs: `tf.layers.Layer`'s (`trainable`, ...).

    Raises:
        ValueError: If `dtype` is not floating point.
    """

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = _cell_activation(activation)

    @property
    def state_size(self):
        """`num_units`."""
        return self._num_units

    @property
    def output_size(self):
        """`num_units`."""
        return self._num_units

    def build(self, inputs_shape):
        """Creates `kernel` (`[input_depth + num_units, num_units]`) and `bias`.

        Raises:
            ValueError: If the input depth is unknown.
        """
        input_depth = _static_depth(inputs_shape)
        _check_supported_dtypes(self.dtype)
        self._kernel = self.add_weight(
            _WEIGHTS_VARIABLE_NAME, shape=[input_depth + self._num_units, self._num_units]
        )
        self._bias = self.add_weight(
            _BIAS_VARIABLE_NAME,
            shape=[self._num_units],
            initializer=init_ops.zeros_initializer(dtype=self.dtype),
        )
        self.built = True

    def call(self, inputs, state):
        """`act(W [inputs, state] + b)`, as output and new state."""
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        output = self._activation(gate_inputs)
        return output, output


class GRUCell(LayerRNNCell):
    """Gated Recurrent Unit cell (Cho et al., 2014), TF's `gates`/`candidate` variables.

    Args:
        num_units: The number of units.
        activation: The candidate's nonlinearity (default `tanh`).
        reuse: Whether to reuse variables in an existing scope.
        kernel_initializer: Initializer of both kernels (default: the scope's, else
            glorot uniform).
        bias_initializer: Initializer of both biases (default: 1.0 for the gates' bias,
            zeros for the candidate's).
        name: The cell's name.
        dtype: The variables' dtype.
        **kwargs: `tf.layers.Layer`'s.

    Raises:
        ValueError: If `dtype` is not floating point.
    """

    def __init__(
        self,
        num_units,
        activation=None,
        reuse=None,
        kernel_initializer=None,
        bias_initializer=None,
        name=None,
        dtype=None,
        **kwargs,
    ):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = _cell_activation(activation)
        self._kernel_initializer = _initializer(kernel_initializer)
        self._bias_initializer = _initializer(bias_initializer)

    @property
    def state_size(self):
        """`num_units`."""
        return self._num_units

    @property
    def output_size(self):
        """`num_units`."""
        return self._num_units

    def build(self, inputs_shape):
        """Creates `gates/kernel`, `gates/bias`, `candidate/kernel`, `candidate/bias`.

        Raises:
            ValueError: If the input depth is unknown.
        """
        input_depth = _static_depth(inputs_shape)
        _check_supported_dtypes(self.dtype)
        n = self._num_units
        self._gate_kernel = self.add_weight(
            f"gates/{_WEIGHTS_VARIABLE_NAME}",
            shape=[input_depth + n, 2 * n],
            initializer=self._kernel_initializer,
        )
        self._gate_bias = self.add_weight(
            f"gates/{_BIAS_VARIABLE_NAME}",
            shape=[2 * n],
            initializer=(
                self._bias_initializer
                if self._bias_initializer is not None
                else init_ops.constant_initializer(1.0, dtype=self.dtype)
            ),
        )
        self._candidate_kernel = self.add_weight(
            f"candidate/{_WEIGHTS_VARIABLE_NAME}",
            shape=[input_depth + n, n],
            initializer=self._kernel_initializer,
        )
        self._candidate_bias = self.add_weight(
            f"candidate/{_BIAS_VARIABLE_NAME}",
            shape=[n],
            initializer=(
                self._bias_initializer
                if self._bias_initializer is not None
                else init_ops.zeros_initializer(dtype=self.dtype)
            ),
        )
        self.built = True

    def call(self, inputs, state):
        """One GRU step: `new_h = u * state + (1 - u) * act(candidate)`."""
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._gate_bias)
        value = math_ops.sigmoid(gate_inputs)
        r, u = indexing_ops.split(value=value, num_or_size_splits=2, axis=1)
        r_state = r * state
        candidate = math_ops.matmul(array_ops.concat([inputs, r_state], 1), self._candidate_kernel)
        candidate = nn_ops.bias_add(candidate, self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


_LSTMStateTuple = collections.namedtuple("_LSTMStateTuple", ("c", "h"))


class LSTMStateTuple(_LSTMStateTuple):
    """`(c, h)`: an LSTM's cell state and output, as state, `state_size` or zero state.

    Only used when `state_is_tuple=True`.
    """

    __slots__ = ()

    @property
    def dtype(self):
        """The dtype of `c` and `h`.

        Raises:
            TypeError: If they differ.
        """
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


class BasicLSTMCell(LayerRNNCell):
    """Basic LSTM cell: no peepholes, clipping nor projection (TF's `BasicLSTMCell`).

    Gates `i, j, f, o` come from one `kernel` `[input_depth + num_units, 4 * num_units]`
    and `bias`; `forget_bias` is added to `f` before its sigmoid.

    Args:
        num_units: The number of units.
        forget_bias: Added to the forget gate's pre-activation (default 1.0).
        state_is_tuple: States are `LSTMStateTuple(c, h)` (default), else one
            `[batch, 2 * num_units]` tensor `[c, h]`.
        activation: The inner nonlinearity (default `tanh`).
        reuse: Whether to reuse variables in an existing scope.
        name: The cell's name.
        dtype: The variables' dtype.
        **kwargs: `tf.layers.Layer`'s.

    Raises:
        ValueError: If `dtype` is not floating point.
    """

    def __init__(
        self,
        num_units,
        forget_bias=1.0,
        state_is_tuple=True,
        activation=None,
        reuse=None,
        name=None,
        dtype=None,
        **kwargs,
    ):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _cell_activation(activation)

    @property
    def state_size(self):
        """`LSTMStateTuple(num_units, num_units)`, or `2 * num_units`."""
        if self._state_is_tuple:
            return LSTMStateTuple(self._num_units, self._num_units)
        return 2 * self._num_units

    @property
    def output_size(self):
        """`num_units`."""
        return self._num_units

    def build(self, inputs_shape):
        """Creates `kernel` and `bias` (zeros).

        Raises:
            ValueError: If the input depth is unknown.
        """
        input_depth = _static_depth(inputs_shape)
        _check_supported_dtypes(self.dtype)
        n = self._num_units
        self._kernel = self.add_weight(_WEIGHTS_VARIABLE_NAME, shape=[input_depth + n, 4 * n])
        self._bias = self.add_weight(
            _BIAS_VARIABLE_NAME,
            shape=[4 * n],
            initializer=init_ops.zeros_initializer(dtype=self.dtype),
        )
        self.built = True

    def call(self, inputs, state):
        """One LSTM step; returns `(new_h, new_state)`."""
        _check_rnn_cell_input_dtypes([inputs, state])
        sigmoid = math_ops.sigmoid
        one = constant_op.constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = indexing_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        # i = input_gate, j = new_input, f = forget_gate, o = output_gate
        i, j, f, o = indexing_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias_tensor = constant_op.constant(self._forget_bias, dtype=f.dtype)
        add, multiply = math_ops.add, math_ops.multiply
        new_c = add(
            multiply(c, sigmoid(add(f, forget_bias_tensor))),
            multiply(sigmoid(i), self._activation(j)),
        )
        new_h = multiply(self._activation(new_c), sigmoid(o))
        if self._state_is_tuple:
            new_state = LSTMStateTuple(new_c, new_h)
        else:
            new_state = array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(LayerRNNCell):
    """LSTM cell with optional peepholes, cell clipping and projection (TF's `LSTMCell`).

    Peepholes (Sak et al., 2014) add `w_f_diag`, `w_i_diag`, `w_o_diag`; a projection
    adds `projection/kernel` `[num_units, num_proj]`, and the output (and `h`) is then
    `num_proj` wide.

    Args:
        num_units: The number of units.
        use_peepholes: Whether to use diagonal (peephole) connections.
        cell_clip: If given, `c` is clipped to `[-cell_clip, cell_clip]`.
        initializer: Initializer of the kernels and peephole weights.
        num_proj: If given, the output is projected to this many units.
        proj_clip: If given (with `num_proj`), the projection is clipped to
            `[-proj_clip, proj_clip]`.
        num_unit_shards: Deprecated: the kernel is split in this many parts.
        num_proj_shards: Deprecated: the projection kernel is split in this many parts.
        forget_bias: Added to the forget gate's pre-activation (default 1.0).
        state_is_tuple: States are `LSTMStateTuple(c, m)` (default), else `[c, m]`.
        activation: The inner nonlinearity (default `tanh`).
        reuse: Whether to reuse variables in an existing scope.
        name: The cell's name.
        dtype: The variables' dtype.
        **kwargs: `tf.layers.Layer`'s.

    Raises:
        ValueError: If `dtype` is not floating point.
    """

    def __init__(
        self,
        num_units,
        use_peepholes=False,
        cell_clip=None,
        initializer=None,
        num_proj=None,
        proj_clip=None,
        num_unit_shards=None,
        num_proj_shards=None,
        forget_bias=1.0,
        state_is_tuple=True,
        activation=None,
        reuse=None,
        name=None,
        dtype=None,
        **kwargs,
    ):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = _initializer(initializer)
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _cell_activation(activation)
        h_size = num_proj if num_proj else num_units
        self._state_size = (
            LSTMStateTuple(num_units, h_size) if state_is_tuple else num_units + h_size
        )
        self._output_size = h_size

    @property
    def state_size(self):
        """`LSTMStateTuple(num_units, num_proj or num_units)`, or their sum."""
        return self._state_size

    @property
    def output_size(self):
        """`num_proj` if given, else `num_units`."""
        return self._output_size

    def build(self, inputs_shape):
        """Creates `kernel`, `bias`, the peephole weights and `projection/kernel`.

        Raises:
            ValueError: If the input depth is unknown.
        """
        input_depth = _static_depth(inputs_shape)
        _check_supported_dtypes(self.dtype)
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        unit_partitioner = (
            partitioned_variables.fixed_size_partitioner(self._num_unit_shards)
            if self._num_unit_shards is not None
            else None
        )
        self._kernel = self.add_weight(
            _WEIGHTS_VARIABLE_NAME,
            shape=[input_depth + h_depth, 4 * n],
            initializer=self._initializer,
            partitioner=unit_partitioner,
        )
        self._bias = self.add_weight(
            _BIAS_VARIABLE_NAME,
            shape=[4 * n],
            initializer=init_ops.zeros_initializer(dtype=self.dtype),
        )
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", shape=[n], initializer=self._initializer)
            self._w_i_diag = self.add_weight("w_i_diag", shape=[n], initializer=self._initializer)
            self._w_o_diag = self.add_weight("w_o_diag", shape=[n], initializer=self._initializer)
        if self._num_proj is not None:
            proj_partitioner = (
                partitioned_variables.fixed_size_partitioner(self._num_proj_shards)
                if self._num_proj_shards is not None
                else None
            )
            self._proj_kernel = self.add_weight(
                f"projection/{_WEIGHTS_VARIABLE_NAME}",
                shape=[n, self._num_proj],
                initializer=self._initializer,
                partitioner=proj_partitioner,
            )
        self.built = True

    def call(self, inputs, state):
        """One LSTM step; returns `(m, new_state)` with `m` the (projected) output.

        Raises:
            ValueError: If the input depth is unknown.
        """
        _check_rnn_cell_input_dtypes([inputs, state])
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, self._num_units])
            m_prev = array_ops.slice(state, [0, self._num_units], [-1, num_proj])
        input_size = tensor_shape.dimension_value(inputs.shape.with_rank(2)[1])
        if input_size is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        # i = input_gate, j = new_input, f = forget_gate, o = output_gate
        lstm_matrix = math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel)
        lstm_matrix = nn_ops.bias_add(lstm_matrix, self._bias)
        i, j, f, o = indexing_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev + sigmoid(
                i + self._w_i_diag * c_prev
            ) * self._activation(j)
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else array_ops.concat([c, m], 1)
        return m, new_state


class MultiRNNCell(RNNCell):
    """Cells stacked in sequence: cell `i` runs in variable scope `cell_<i>`.

    Args:
        cells: The cells, in order (the output of one is the input of the next).
        state_is_tuple: States are `len(cells)`-tuples (default), else all the states
            concatenated along the columns.

    Raises:
        ValueError: If `cells` is empty, or a cell's state is a tuple while
            `state_is_tuple` is False.
        TypeError: If `cells` is not a list or tuple.

    Example:
        ```python
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(n) for n in (64, 32)])
        ```
    """

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells}.")
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(is_nested(c.state_size) for c in self._cells):
            raise ValueError(
                "Some cells return tuples of states, but the flag state_is_tuple is not set.  "
                f"State sizes are: {[c.state_size for c in self._cells]}"
            )

    @property
    def state_size(self):
        """A tuple of the cells' state sizes, or their sum."""
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        """The last cell's output size."""
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        """Each cell's zero state (a tuple), under `MultiRNNCellZeroState`.

        Args:
            batch_size: An int or scalar int tensor.
            dtype: The state's dtype.

        Returns:
            A tuple of the cells' zero states, or one concatenated tensor.
        """
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            # TF opens the scope a second time here (its names have it twice).
            return super().zero_state(batch_size, dtype)

    @property
    def trainable_weights(self):
        """The cells' trainable variables, cell by cell."""
        if not self.trainable:
            return []
        return [
            w for cell in self._cells if isinstance(cell, Layer) for w in cell.trainable_weights
        ]

    @property
    def non_trainable_weights(self):
        """The cells' non-trainable variables (all of them if not trainable)."""
        weights = [
            w for cell in self._cells if isinstance(cell, Layer) for w in cell.non_trainable_weights
        ]
        if not self.trainable:
            trainable = [
                w for cell in self._cells if isinstance(cell, Layer) for w in cell.trainable_weights
            ]
            return trainable + weights
        return weights

    @property
    def weights(self):
        """Trainable then non-trainable variables."""
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    def call(self, inputs, state):
        """Runs the cells in turn; returns the last output and the new states.

        Raises:
            ValueError: If `state_is_tuple` and `state` is not a tuple.
        """
        cur_state_pos = 0
        cur_inp = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with vs.variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not is_nested(state):
                        raise ValueError(
                            f"Expected state to be a tuple of length {len(self.state_size)}, "
                            f"but received: {state}"
                        )
                    cur_state = state[i]
                else:
                    cur_state = array_ops.slice(state, [0, cur_state_pos], [-1, cell.state_size])
                    cur_state_pos += cell.state_size
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        if self._state_is_tuple:
            return cur_inp, tuple(new_states)
        return cur_inp, array_ops.concat(new_states, 1)
