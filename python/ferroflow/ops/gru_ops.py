"""TF's fused GRU cell: `tf.contrib.rnn.GRUBlockCell`, `GRUBlockCellV2`.

As TF 1.15's `gru_ops.py`: `GRUBlockCell` computes a whole GRU step in one native op
(`GRUBlockCell`: both gates' products, the candidate's, the activations and the state
update) and the gradients for its inputs in one more (`GRUBlockCellGrad`; TF's Python
gradient then makes the weights' and biases' with matrix products and `BiasAddGrad`). It
computes what `GRUCell` computes. `GRUBlockCell`'s variables are `w_ru`, `b_ru`, `w_c`,
`b_c`; `GRUBlockCellV2`'s are `GRUCell`'s (`gates/kernel`, `gates/bias`,
`candidate/kernel`, `candidate/bias`), so its checkpoints move to `GRUCell`.
"""

from __future__ import annotations

from typing import ClassVar

from ..framework import ops
from ..layers.base import InputSpec
from . import array_ops, init_ops, math_ops
from .rnn_cell_impl import LayerRNNCell


def _gru_block_cell(x, h_prev, w_ru, w_c, b_ru, b_c, name=None):
    """One GRU step as TF's `GRUBlockCell` op: `(r, u, c, h)`."""
    inputs = [ops.convert_to_tensor(t) for t in (x, h_prev, w_ru, w_c, b_ru, b_c)]
    op = ops.get_default_graph()._create_op("GRUBlockCell", inputs, {}, name=name or "GRUBlockCell")
    return tuple(op.outputs)


@ops.RegisterGradient("GRUBlockCell")
def _GRUBlockCellGrad(op, *grad):
    """The step's gradient (TF's `_GRUBlockCellGrad`)."""
    x, h_prev, w_ru, w_c, b_ru, b_c = op.inputs
    r, u, c, _ = op.outputs
    _, _, _, d_h = grad
    g = ops.get_default_graph()
    grad_op = g._create_op(
        "GRUBlockCellGrad",
        [x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h],
        {},
        name="GRUBlockCellGrad",
    )
    d_x, d_h_prev, d_c_bar, d_r_bar_u_bar = grad_op.outputs
    x_h_prev = array_ops.concat([x, h_prev], 1)
    d_w_ru = math_ops.matmul(x_h_prev, d_r_bar_u_bar, transpose_a=True)
    d_b_ru = g._create_op("BiasAddGrad", [d_r_bar_u_bar], {}, name="BiasAddGrad").outputs[0]
    x_h_prevr = array_ops.concat([x, h_prev * r], 1)
    d_w_c = math_ops.matmul(x_h_prevr, d_c_bar, transpose_a=True)
    d_b_c = g._create_op("BiasAddGrad", [d_c_bar], {}, name="BiasAddGrad_1").outputs[0]
    return d_x, d_h_prev, d_w_ru, d_w_c, d_b_ru, d_b_c


class GRUBlockCell(LayerRNNCell):
    """The GRU cell as one fused op per step (TF-1.x `tf.contrib.rnn.GRUBlockCell`).

    Computes what `GRUCell` computes, with variables named `w_ru`, `b_ru`, `w_c`
    and `b_c` (`GRUBlockCellV2` uses `GRUCell`'s names).

    Args:
        num_units: The number of units.
        cell_size: The old (deprecated) name of `num_units`.
        reuse: Whether to reuse variables in an existing scope.
        name: The cell's name (default `gru_cell`).

    Raises:
        ValueError: If both or neither of `num_units` and `cell_size` are given.
    """

    _names: ClassVar[dict[str, str]] = {"w_ru": "w_ru", "b_ru": "b_ru", "w_c": "w_c", "b_c": "b_c"}

    def __init__(self, num_units=None, cell_size=None, reuse=None, name="gru_cell"):
        super().__init__(_reuse=reuse, name=name)
        if (cell_size is None) == (num_units is None):
            raise ValueError("Exactly one of num_units or cell_size must be provided.")
        if num_units is None:
            num_units = cell_size
        self._cell_size = num_units
        # Inputs must be 2-dimensional.
        self.input_spec = InputSpec(ndim=2)

    @property
    def state_size(self):
        """`num_units`."""
        return self._cell_size

    @property
    def output_size(self):
        """`num_units`."""
        return self._cell_size

    def build(self, input_shape):
        """Creates the gates' and the candidate's kernels and biases.

        Raises:
            ValueError: If the input depth is not known.
        """
        input_size = input_shape.dims[1].value
        if input_size is None:
            raise ValueError("Expecting input_size to be set.")
        units, names = self._cell_size, self._names
        self._gate_kernel = self.add_weight(names["w_ru"], [input_size + units, units * 2])
        self._gate_bias = self.add_weight(
            names["b_ru"], [units * 2], initializer=init_ops.constant_initializer(1.0)
        )
        self._candidate_kernel = self.add_weight(names["w_c"], [input_size + units, units])
        self._candidate_bias = self.add_weight(
            names["b_c"], [units], initializer=init_ops.constant_initializer(0.0)
        )
        self.built = True

    def call(self, inputs, h_prev):
        """One step: `(h, h)`.

        Raises:
            ValueError: If `h_prev`'s size is not `num_units`.
        """
        cell_size = h_prev.shape.with_rank(2).dims[1].value
        if cell_size != self._cell_size:
            raise ValueError(
                f"Shape of h_prev[1] incorrect: cell_size {self._cell_size} vs {cell_size}"
            )
        _, _, _, new_h = _gru_block_cell(
            inputs,
            h_prev,
            self._gate_kernel,
            self._candidate_kernel,
            self._gate_bias,
            self._candidate_bias,
        )
        return new_h, new_h


class GRUBlockCellV2(GRUBlockCell):
    """`GRUBlockCell` with `GRUCell`'s variable names (TF-1.x `GRUBlockCellV2`).

    The variables are `gates/kernel`, `gates/bias`, `candidate/kernel` and
    `candidate/bias`, so checkpoints move between it and `GRUCell`.
    """

    _names: ClassVar[dict[str, str]] = {
        "w_ru": "gates/kernel",
        "b_ru": "gates/bias",
        "w_c": "candidate/kernel",
        "b_c": "candidate/bias",
    }


__all__ = ["GRUBlockCell", "GRUBlockCellV2"]
