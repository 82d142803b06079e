"""TF's fused LSTM cells: `tf.contrib.rnn.LSTMBlockCell`, `LSTMBlockFusedCell`.

As TF 1.15's `lstm_ops.py`: `LSTMBlockCell` computes a whole LSTM step in one native op
(`LSTMBlockCell`: the gates' matrix product, bias, activations and state update) and its
gradient in one more (`LSTMBlockCellGrad`, plus the matrix products for the inputs and
weights). `LSTMBlockFusedCell` runs a whole sequence in one op (`BlockLSTM`) and its
gradient in one more (`BlockLSTMGrad`). Their variables are `LSTMCell`'s (`kernel`
`[input + units, 4 * units]`, `bias`, the peepholes `w_i_diag`, `w_f_diag`, `w_o_diag`),
in the same gate order, so checkpoints move between the cells and TensorFlow.
"""

from __future__ import annotations

from ..framework import constant_op, dtypes, ops
from ..layers.base import InputSpec, Layer
from . import array_ops, indexing_ops, init_ops, math_ops, sparse_ops
from .rnn_cell_impl import LayerRNNCell, LSTMStateTuple


def _lstm_block_cell(
    x,
    cs_prev,
    h_prev,
    w,
    b,
    wci=None,
    wcf=None,
    wco=None,
    forget_bias=None,
    cell_clip=None,
    use_peephole=None,
    name=None,
):
    """One LSTM step as TF's `LSTMBlockCell` op: `(i, cs, f, o, ci, co, h)`.

    Raises:
        ValueError: If the cell size cannot be told from `cs_prev`'s static shape
            (without peepholes given).
    """
    if wci is None:
        cell_size = cs_prev.shape.with_rank(2).dims[1].value
        if cell_size is None:
            raise ValueError("cell_size from `cs_prev` should not be None.")
        wci = constant_op.constant(0, dtype=dtypes.float32, shape=[cell_size])
        wcf = wci
        wco = wci
    attrs = {
        "forget_bias": 1.0 if forget_bias is None else float(forget_bias),
        "cell_clip": -1.0 if cell_clip is None else float(cell_clip),
        "use_peephole": bool(use_peephole),
    }
    inputs = [ops.convert_to_tensor(t) for t in (x, cs_prev, h_prev, w, wci, wcf, wco, b)]
    op = ops.get_default_graph()._create_op("LSTMBlockCell", inputs, attrs, name=name)
    return tuple(op.outputs)


@ops.RegisterGradient("LSTMBlockCell")
def _LSTMBlockCellGrad(op, *grad):
    """The fused step's gradient (TF's `_LSTMBlockCellGrad`)."""
    (x, cs_prev, h_prev, w, wci, wcf, wco, b) = op.inputs
    (i, cs, f, o, ci, co, _) = op.outputs
    (_, cs_grad, _, _, _, _, h_grad) = grad
    batch_size = array_ops.shape(x)[0]
    input_size = x.shape.with_rank(2).dims[1].value
    if input_size is None:
        raise ValueError("input_size from `x` should not be None.")
    cell_size = cs_prev.shape.with_rank(2).dims[1].value
    if cell_size is None:
        raise ValueError("cell_size from `cs_prev` should not be None.")
    grad_op = ops.get_default_graph()._create_op(
        "LSTMBlockCellGrad",
        [x, cs_prev, h_prev, w, wci, wcf, wco, b, i, cs, f, o, ci, co, cs_grad, h_grad],
        {"use_peephole": op.get_attr("use_peephole")},
        name="LSTMBlockCellGrad",
    )
    cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad = grad_op.outputs
    # From the gates' pre-activations to [x, h_prev], w and b.
    xh_grad = math_ops.matmul(dicfo, w, transpose_b=True)
    x_grad = array_ops.slice(xh_grad, (0, 0), (batch_size, input_size))
    h_prev_grad = array_ops.slice(xh_grad, (0, input_size), (batch_size, cell_size))
    xh = array_ops.concat([x, h_prev], 1)
    w_grad = math_ops.matmul(xh, dicfo, transpose_a=True)
    g = ops.get_default_graph()
    b_grad = g._create_op("BiasAddGrad", [dicfo], {}, name="BiasAddGrad").outputs[0]
    return (x_grad, cs_prev_grad, h_prev_grad, w_grad, wci_grad, wcf_grad, wco_grad, b_grad)


def _block_lstm_op(
    seq_len_max,
    x,
    cs_prev,
    h_prev,
    w,
    wci,
    wcf,
    wco,
    b,
    forget_bias,
    cell_clip,
    use_peephole,
    name=None,
):
    """The `BlockLSTM` op over the `[time, batch, input]` `x`: its seven outputs."""
    attrs = {
        "forget_bias": 1.0 if forget_bias is None else float(forget_bias),
        "cell_clip": -1.0 if cell_clip is None else float(cell_clip),
        "use_peephole": bool(use_peephole),
    }
    inputs = [ops.convert_to_tensor(seq_len_max, dtype=dtypes.int64)]
    inputs += [ops.convert_to_tensor(t) for t in (x, cs_prev, h_prev, w, wci, wcf, wco, b)]
    op = ops.get_default_graph()._create_op("BlockLSTM", inputs, attrs, name=name or "BlockLSTM")
    return tuple(op.outputs)


@ops.RegisterGradient("BlockLSTM")
def _BlockLSTMGrad(op, *grad):
    """The sequence's gradient (TF's `_BlockLSTMGrad`): one `BlockLSTMGrad` op."""
    inputs = list(op.inputs)
    (i, cs, f, o, ci, co, h) = op.outputs
    grad_op = ops.get_default_graph()._create_op(
        "BlockLSTMGrad",
        [*inputs, i, cs, f, o, ci, co, h, grad[1], grad[6]],
        {"use_peephole": op.get_attr("use_peephole")},
        name="BlockLSTMGrad",
    )
    return [None, *grad_op.outputs]


class LSTMBlockCell(LayerRNNCell):
    """The LSTM cell as one fused op per step (TF-1.x `tf.contrib.rnn.LSTMBlockCell`).

    Computes what `LSTMCell` (without projection) computes, with the same variables.

    Args:
        num_units: The number of units.
        forget_bias: Added to the forget gate's pre-activation (default 1.0).
        cell_clip: If given, the cell state is clipped to `[-cell_clip, cell_clip]`.
        use_peephole: Whether to use diagonal (peephole) connections.
        dtype: The variables' dtype.
        reuse: Whether to reuse variables in an existing scope.
        name: The cell's name (default `lstm_cell`, as `LSTMCell`'s variables).
    """

    def __init__(
        self,
        num_units,
        forget_bias=1.0,
        cell_clip=None,
        use_peephole=False,
        dtype=None,
        reuse=None,
        name="lstm_cell",
    ):
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._use_peephole = use_peephole
        self._cell_clip = cell_clip if cell_clip is not None else -1
        self._names = {"W": "kernel", "b": "bias", "wci": "w_i_diag", "wcf": "w_f_diag"}
        self._names["wco"] = "w_o_diag"
        # Inputs must be 2-dimensional.
        self.input_spec = InputSpec(ndim=2)

    @property
    def state_size(self):
        """`LSTMStateTuple(num_units, num_units)`."""
        return LSTMStateTuple(self._num_units, self._num_units)

    @property
    def output_size(self):
        """`num_units`."""
        return self._num_units

    def build(self, inputs_shape):
        """Creates the kernel, the bias and the peephole weights.

        Raises:
            ValueError: If the input depth is not known.
        """
        if not inputs_shape.dims or inputs_shape.dims[1].value is None:
            raise ValueError(f"Expecting inputs_shape[1] to be set: {inputs_shape}")
        input_size = inputs_shape.dims[1].value
        units = self._num_units
        self._kernel = self.add_weight(self._names["W"], [input_size + units, units * 4])
        self._bias = self.add_weight(
            self._names["b"], [units * 4], initializer=init_ops.constant_initializer(0.0)
        )
        if self._use_peephole:
            self._w_i_diag = self.add_weight(self._names["wci"], [units])
            self._w_f_diag = self.add_weight(self._names["wcf"], [units])
            self._w_o_diag = self.add_weight(self._names["wco"], [units])
        else:
            self._w_i_diag = self._w_f_diag = self._w_o_diag = None
        self.built = True

    def call(self, inputs, states_prev):
        """One step: `(h, LSTMStateTuple(cs, h))`.

        Raises:
            ValueError: If `states_prev` is not a pair or the input size is unknown.
        """
        if len(states_prev) != 2:
            raise ValueError("Expecting states_prev to be a tuple with length 2.")
        input_size = inputs.shape.with_rank(2).dims[1].value
        if input_size is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        cs_prev, h_prev = states_prev
        if self._use_peephole:
            wci, wcf, wco = self._w_i_diag, self._w_f_diag, self._w_o_diag
        else:
            wci = wcf = wco = array_ops.zeros([self._num_units], dtype=self.dtype)
        (_, cs, _, _, _, _, h) = _lstm_block_cell(
            inputs,
            cs_prev,
            h_prev,
            self._kernel,
            self._bias,
            wci=wci,
            wcf=wcf,
            wco=wco,
            cell_clip=self._cell_clip,
            forget_bias=self._forget_bias,
            use_peephole=self._use_peephole,
        )
        return h, LSTMStateTuple(cs, h)


def _sequence_results(initial_state, cell_states, outputs, sequence_length, time_len, batch, dtype):
    """An LSTM's `(outputs, final_state)` from every step's cell states and outputs.

    As `LSTMBlockWrapper`'s, on time-major tensors: with `sequence_length`, the
    outputs past each length are zeros and the final state is the one at
    `length - 1` (the initial state for a length of 0); without, the last step's.
    """
    if sequence_length is None:
        return outputs, LSTMStateTuple(cell_states[-1], outputs[-1])
    initial_cell_state, initial_output = initial_state
    units = outputs.shape.dims[-1].value
    if units is None:
        units = array_ops.shape(outputs)[2]
    mask = array_ops.transpose(
        array_ops.sequence_mask(sequence_length, time_len, dtype=dtype), [1, 0]
    )
    outputs *= indexing_ops.tile(array_ops.expand_dims(mask, [-1]), [1, 1, units])
    # The initial states go first, so that `length - 1` indexes the state to keep.
    indices = array_ops.stack([sequence_length, math_ops.range(batch)], axis=1)

    def at_lengths(initial, steps):
        return sparse_ops.gather_nd(
            array_ops.concat([array_ops.expand_dims(initial, [0]), steps], 0), indices
        )

    return outputs, LSTMStateTuple(
        at_lengths(initial_cell_state, cell_states), at_lengths(initial_output, outputs)
    )


class LSTMBlockWrapper(Layer):
    """Housekeeping for LSTMs that run a whole sequence at once (`LSTMBlockWrapper`).

    As TF-1.x `tf.contrib.rnn.LSTMBlockWrapper`. Subclasses implement `num_units` and
    `_call_cell`; `call` makes the initial state, masks the outputs past
    `sequence_length` and picks each sequence's final state. Inputs are time-major,
    `[time_len, batch_size, input_size]`, or a list of `time_len` tensors `[batch_size,
    input_size]` (then the outputs are a list too).
    """

    @property
    def num_units(self):
        """The number of units (output dimension)."""
        raise NotImplementedError("LSTMBlockWrapper subclasses define num_units")

    def _call_cell(self, inputs, initial_cell_state, initial_output, dtype, sequence_length):
        """Runs the LSTM: the `[time_len, batch_size, num_units]` cell states and outputs."""
        raise NotImplementedError("LSTMBlockWrapper subclasses define _call_cell")

    def __call__(self, inputs, *args, **kwargs):
        """Runs the LSTM over `inputs`; a list of steps gives a list of outputs."""
        if not isinstance(inputs, list):
            return super().__call__(inputs, *args, **kwargs)
        outputs, state = super().__call__(array_ops.stack(inputs), *args, **kwargs)
        return array_ops.unstack(outputs), state

    def call(self, inputs, initial_state=None, dtype=None, sequence_length=None):
        """Runs the LSTM on `inputs` from `initial_state`: `(outputs, final_state)`.

        Args:
            inputs: `[time_len, batch_size, input_size]`.
            initial_state: `(initial_cell_state, initial_output)`, each
                `[batch_size, num_units]`; zeros of `dtype` when not given.
            dtype: The initial state's dtype (required without `initial_state`).
            sequence_length: `[batch_size]` int32/int64 lengths; the outputs past each
                are zeros and the final state is the one at the length.

        Raises:
            ValueError: If the input depth is unknown, or neither `initial_state` nor
                `dtype` is given, or `initial_state` is not a pair.
        """
        inputs_shape = inputs.shape.with_rank(3)
        if not inputs_shape.dims[2].value:
            raise ValueError(f"Expecting inputs_shape[2] to be set: {inputs_shape}")
        batch_size = inputs_shape.dims[1].value
        if batch_size is None:
            batch_size = array_ops.shape(inputs)[1]
        time_len = inputs_shape.dims[0].value
        if time_len is None:
            time_len = array_ops.shape(inputs)[0]
        if initial_state is None:
            if dtype is None:
                raise ValueError("Either initial_state or dtype needs to be specified")
            z = array_ops.zeros(array_ops.stack([batch_size, self.num_units]), dtype=dtype)
            initial_state = z, z
        else:
            if len(initial_state) != 2:
                raise ValueError("Expecting initial_state to be a tuple with length 2 or None")
            if dtype is None:
                dtype = initial_state[0].dtype
        if sequence_length is not None:
            sequence_length = ops.convert_to_tensor(sequence_length)
        initial_cell_state, initial_output = initial_state
        cell_states, outputs = self._call_cell(
            inputs, initial_cell_state, initial_output, dtype, sequence_length
        )
        return _sequence_results(
            initial_state, cell_states, outputs, sequence_length, time_len, batch_size, dtype
        )


class LSTMBlockFusedCell(LSTMBlockWrapper):
    """An LSTM over a whole sequence as one op (TF-1.x `tf.contrib.rnn.LSTMBlockFusedCell`).

    Computes what `LSTMCell` (without projection) computes at every step, with the
    same variables (`lstm_fused_cell/kernel`, `.../bias`, the peepholes). Called as
    `outputs, (cs, h) = cell(inputs, initial_state=None, dtype=None,
    sequence_length=None)` on time-major inputs.

    Args:
        num_units: The number of units.
        forget_bias: Added to the forget gate's pre-activation (default 1.0).
        cell_clip: If given, the cell state is clipped to `[-cell_clip, cell_clip]`.
        use_peephole: Whether to use diagonal (peephole) connections.
        reuse: Whether to reuse variables in an existing scope.
        dtype: The variables' dtype.
        name: The layer's name (default `lstm_fused_cell`).
    """

    def __init__(
        self,
        num_units,
        forget_bias=1.0,
        cell_clip=None,
        use_peephole=False,
        reuse=None,
        dtype=None,
        name="lstm_fused_cell",
    ):
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._cell_clip = cell_clip if cell_clip is not None else -1
        self._use_peephole = use_peephole
        # Inputs must be 3-dimensional.
        self.input_spec = InputSpec(ndim=3)

    @property
    def num_units(self):
        """The number of units."""
        return self._num_units

    def build(self, input_shape):
        """Creates the kernel, the bias and the peephole weights.

        Raises:
            ValueError: If the input depth is not known.
        """
        input_size = input_shape.dims[2].value
        if input_size is None:
            raise ValueError(f"Expecting inputs_shape[2] to be set: {input_shape}")
        units = self._num_units
        self._kernel = self.add_weight("kernel", [input_size + units, units * 4])
        self._bias = self.add_weight(
            "bias", [units * 4], initializer=init_ops.constant_initializer(0.0)
        )
        if self._use_peephole:
            self._w_i_diag = self.add_weight("w_i_diag", [units])
            self._w_f_diag = self.add_weight("w_f_diag", [units])
            self._w_o_diag = self.add_weight("w_o_diag", [units])
        self.built = True

    def _call_cell(
        self, inputs, initial_cell_state=None, initial_output=None, dtype=None, sequence_length=None
    ):
        """One `BlockLSTM` op over `inputs`: the cell states and outputs of every step."""
        inputs_shape = inputs.shape.with_rank(3)
        time_len = inputs_shape.dims[0].value
        if time_len is None:
            time_len = array_ops.shape(inputs)[0]
        if self._use_peephole:
            wci, wcf, wco = self._w_i_diag, self._w_f_diag, self._w_o_diag
        else:
            wci = wcf = wco = array_ops.zeros([self._num_units], dtype=dtype)
        if sequence_length is None:
            max_seq_len = array_ops.cast(time_len, dtypes.int64)
        else:
            max_seq_len = array_ops.cast(math_ops.reduce_max(sequence_length), dtypes.int64)
        (_, cs, _, _, _, _, h) = _block_lstm_op(
            max_seq_len,
            inputs,
            initial_cell_state,
            initial_output,
            self._kernel,
            wci,
            wcf,
            wco,
            self._bias,
            forget_bias=self._forget_bias,
            cell_clip=self._cell_clip,
            use_peephole=self._use_peephole,
        )
        return cs, h


__all__ = ["LSTMBlockCell", "LSTMBlockFusedCell", "LSTMBlockWrapper"]
