"""TF's fused LSTM cell (`tf.contrib.rnn.LSTMBlockCell`, TF 1.15's `lstm_ops.py`).

`LSTMBlockCell` computes a whole LSTM step in one native op (`LSTMBlockCell`: the
gates' matrix product, bias, activations and state update) and its gradient in one
more (`LSTMBlockCellGrad`, plus the matrix products for the inputs and weights). Its
variables are `LSTMCell`'s (`lstm_cell/kernel` `[input + units, 4 * units]`,
`lstm_cell/bias`, the peepholes `w_i_diag`, `w_f_diag`, `w_o_diag`), in the same
gate order, so checkpoints move between the two cells and TensorFlow.
"""

from __future__ import annotations

from ..framework import constant_op, dtypes, ops
from . import array_ops, init_ops, math_ops
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
        (_, cs, _, _, _, _, h) = _lstm_block_cell(
            inputs,
            cs_prev,
            h_prev,
            self._kernel,
            self._bias,
            wci=self._w_i_diag,
            wcf=self._w_f_diag,
            wco=self._w_o_diag,
            cell_clip=self._cell_clip,
            forget_bias=self._forget_bias,
            use_peephole=self._use_peephole,
        )
        return h, LSTMStateTuple(cs, h)


__all__ = ["LSTMBlockCell"]
