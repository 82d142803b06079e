"""`dynamic_rnn` over LSTM cells as one `BlockLSTM` op per layer.

`dynamic_rnn` asks `fused_dynamic_rnn` first. For a `BasicLSTMCell`, an `LSTMCell`
without projection or clipping (peepholes allowed), or a `MultiRNNCell` of them, all
with tuple states, `tanh` and float32 inputs, each possibly in a `DropoutWrapper`
without state dropout, it builds the cells' variables exactly
where their first call in the loop would (so names, checkpoints and reuse are
unchanged) and runs each layer over the whole sequence as one `BlockLSTM` op, whose
gradient is one `BlockLSTMGrad` op: the input's share of the gates, the input
gradient and the weight gradient become single products over all time steps, where
the loop makes a dozen small ops per step and per direction. A multi-layer cell runs
layer after layer, which computes the same values (layer `l` at time `t` needs only
layer `l - 1` at `t` and itself at `t - 1`). With `sequence_length`, each layer runs
to the longest length; the outputs past each length are zeros and the final states
are those at each length, as the loop's copy-through gives them. A wrapper's input
and output dropout apply to whole sequences: the same distribution of masks as per
step (per element, or per sequence when variational), though not the same draws,
which already differ from TF's in the loop (see docs/ARCHITECTURE.md).

Any other cell (other wrappers, state dropout, GRUs, custom cells) runs in the loop. Setting the
environment variable `FERROFLOW_FUSED_RNN=0` makes every cell run in the loop.
"""

from __future__ import annotations

import contextlib
import os

from .._compat import zip_strict
from ..framework import dtypes, ops, tensor_shape
from . import array_ops, math_ops
from . import variable_scope as vs
from ._nest import flatten
from .rnn_cell_impl import BasicLSTMCell, LayerRNNCell, LSTMCell, MultiRNNCell
from .rnn_cell_wrapper_impl import DropoutWrapper, _should_dropout
from .rnn_ops import _block_lstm_op, _sequence_results


def _plain_lstm(cell) -> bool:
    """Whether `cell` computes exactly what `BlockLSTM` does.

    Only the exact classes qualify: a subclass may change the step.
    """
    if type(cell) is BasicLSTMCell:
        return cell._state_is_tuple and cell._activation is math_ops.tanh
    if type(cell) is LSTMCell:
        return (
            cell._state_is_tuple
            and cell._activation is math_ops.tanh
            and cell._num_proj is None
            and cell._cell_clip is None
        )
    return False


def _unwrap_dropout(cell):
    """`(wrapped, wrapper)` for a `DropoutWrapper` without state dropout, else `(cell, None)`.

    Such a wrapper's input and output dropout can apply to whole sequences.
    """
    if type(cell) is DropoutWrapper and not _should_dropout(cell._state_keep_prob):
        return cell.cell, cell
    return cell, None


def _lstm_layers(cell):
    """`(layers, multi, wrapper)` for a cell the fused op runs, else None.

    `layers` are `(lstm, dropout_wrapper_or_None)` pairs, `multi` the `MultiRNNCell`
    (or None) and `wrapper` a `DropoutWrapper` around the whole (or None).
    """
    core, wrapper = _unwrap_dropout(cell)
    if _plain_lstm(core):
        return [(core, None)], None, wrapper
    if type(core) is not MultiRNNCell or not core._state_is_tuple:
        return None
    layers = [_unwrap_dropout(c) for c in core._cells]
    if not all(_plain_lstm(c) for c, _ in layers):
        return None
    return layers, core, wrapper


def _dropout(wrapper, x, which):
    """`x` after `wrapper`'s input or output dropout (`which`), if it has one.

    Over the whole sequence: the same masks per element (or, variational, per
    sequence) as per step.
    """
    if wrapper is None:
        return x
    keep = wrapper._input_keep_prob if which == "input" else wrapper._output_keep_prob
    if not _should_dropout(keep):
        return x
    noise = wrapper._recurrent_input_noise if which == "input" else wrapper._recurrent_output_noise
    return wrapper._dropout(x, which, noise, keep)


@contextlib.contextmanager
def _cell_scope(cell, dtype, input_shape):
    """Enters the scopes `cell(inputs, state)` enters before `call`.

    The cell is built for inputs of `input_shape` on first use.
    """
    outer = contextlib.nullcontext() if isinstance(cell, LayerRNNCell) else cell._default_scope()
    with outer, cell._call_scope():
        cell._maybe_build(dtype, input_shape, input_shape)
        yield


def _run_layer(cell, x, state, seq_len_max):
    """One LSTM layer over the time-major `x` from `state`: every step's `(cs, h)`."""
    c0, h0 = state
    peephole = type(cell) is LSTMCell and cell._use_peepholes
    if peephole:
        wci, wcf, wco = cell._w_i_diag, cell._w_f_diag, cell._w_o_diag
    else:
        wci = wcf = wco = array_ops.zeros([cell._num_units], dtype=dtypes.float32)
    _, cs, _, _, _, _, h = _block_lstm_op(
        seq_len_max,
        x,
        c0,
        h0,
        cell._kernel,
        wci,
        wcf,
        wco,
        cell._bias,
        forget_bias=cell._forget_bias,
        cell_clip=-1.0,
        use_peephole=peephole,
    )
    return cs, h


def fused_dynamic_rnn(cell, inputs, state, sequence_length):
    """`dynamic_rnn` over `cell` as one `BlockLSTM` op per layer, if it can be.

    Returns `(outputs, final_state)` (time-major), or None when `cell` or `inputs`
    is not one the fused op runs (see the module docstring).

    Args:
        cell: The RNN cell.
        inputs: The time-major inputs.
        state: The initial state (`cell`'s structure).
        sequence_length: An int32 vector of lengths, or None.
    """
    if os.environ.get("FERROFLOW_FUSED_RNN", "1") == "0":
        return None
    found = _lstm_layers(cell)
    if found is None or not isinstance(inputs, ops.Tensor) or inputs.dtype != dtypes.float32:
        return None
    layers, multi, wrapper = found
    shape = inputs.shape
    if shape.ndims != 3 or shape.as_list()[2] is None:
        return None
    time_len, batch, _ = shape.as_list()
    states = list(state) if multi is not None else [state]
    flat = flatten(states)
    if len(states) != len(layers) or len(flat) != 2 * len(layers):
        return None
    if any(s.dtype != dtypes.float32 for s in flat):
        return None
    for (layer, _), (c, h) in zip_strict(layers, states):
        # A state of another shape goes to the loop, which reports TF's error.
        want = tensor_shape.TensorShape([batch, layer._num_units])
        if not (c.shape.is_compatible_with(want) and h.shape.is_compatible_with(want)):
            return None
    step_rows = batch
    if time_len is None:
        time_len = array_ops.shape(inputs)[0]
    if batch is None:
        batch = array_ops.shape(inputs)[1]
    if sequence_length is None:
        seq_len_max = array_ops.cast(time_len, dtypes.int64)
    else:
        seq_len_max = array_ops.cast(math_ops.reduce_max(sequence_length), dtypes.int64)
    x, finals = _dropout(wrapper, inputs, "input"), []
    with contextlib.ExitStack() as outer:
        if multi is not None:
            outer.enter_context(_cell_scope(multi, dtypes.float32, shape[1:]))
        for i, ((layer, layer_wrapper), layer_state) in enumerate(zip_strict(layers, states)):
            scope = (
                vs.variable_scope(f"cell_{i}") if multi is not None else contextlib.nullcontext()
            )
            step_shape = tensor_shape.TensorShape([step_rows, x.shape.as_list()[2]])
            with scope:
                x = _dropout(layer_wrapper, x, "input")
                with _cell_scope(layer, dtypes.float32, step_shape):
                    cs, h = _run_layer(layer, x, layer_state, seq_len_max)
                    x, final = _sequence_results(
                        layer_state, cs, h, sequence_length, time_len, batch, dtypes.float32
                    )
                x = _dropout(layer_wrapper, x, "output")
            finals.append(final)
    x = _dropout(wrapper, x, "output")
    return x, (tuple(finals) if multi is not None else finals[0])
