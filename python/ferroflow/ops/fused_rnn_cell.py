"""Fused RNN cells: RNNs that run a whole sequence per call.

TF-1.x `tf.contrib.rnn.FusedRNNCell`, `FusedRNNCellAdaptor` and
`TimeReversedFusedRNN` (TF 1.15's `fused_rnn_cell.py`). A fused cell is called as
`outputs, state = cell(inputs, initial_state=None, dtype=None,
sequence_length=None, scope=None)` on time-major inputs (a
`[time_len, batch_size, input_size]` tensor, or a list of `time_len` steps, which
gives a list of outputs). `LSTMBlockFusedCell` is one; the adaptor makes one of any
`RNNCell`, and `TimeReversedFusedRNN` runs one backwards in time (the backward half
of a bidirectional RNN).
"""

from __future__ import annotations

import abc

from . import array_ops, image_ops, rnn


class FusedRNNCell(abc.ABC):
    """Abstract base of RNNs that run a whole time-major sequence per call."""

    @abc.abstractmethod
    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        """Runs the RNN over `inputs`: `(outputs, final_state)`."""


class FusedRNNCellAdaptor(FusedRNNCell):
    """Runs an `RNNCell` as a fused cell.

    It runs with `static_rnn`, or with a time-major `dynamic_rnn` when
    `use_dynamic_rnn`.

    Args:
        cell: The `RNNCell`.
        use_dynamic_rnn: Whether to run it with `dynamic_rnn`.
    """

    def __init__(self, cell, use_dynamic_rnn=False):
        self._cell = cell
        self._use_dynamic_rnn = use_dynamic_rnn

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        """Runs the cell over `inputs`: `(outputs, final_state)`."""
        is_list = isinstance(inputs, list)
        if self._use_dynamic_rnn:
            if is_list:
                inputs = array_ops.stack(inputs)
            outputs, state = rnn.dynamic_rnn(
                self._cell,
                inputs,
                sequence_length=sequence_length,
                initial_state=initial_state,
                dtype=dtype,
                time_major=True,
                scope=scope,
            )
            if is_list:
                outputs = array_ops.unstack(outputs)
        else:
            if not is_list:
                inputs = array_ops.unstack(inputs)
            outputs, state = rnn.static_rnn(
                self._cell,
                inputs,
                initial_state=initial_state,
                dtype=dtype,
                sequence_length=sequence_length,
                scope=scope,
            )
            if not is_list:
                outputs = array_ops.stack(outputs)
        return outputs, state


class TimeReversedFusedRNN(FusedRNNCell):
    """Runs a fused cell backwards in time.

    Its inputs are reversed (each sequence within its `sequence_length`) and its
    outputs reversed back.

    Args:
        cell: The fused cell (a `FusedRNNCell` or `LSTMBlockFusedCell`).
    """

    def __init__(self, cell):
        self._cell = cell

    def _reverse(self, t, lengths):
        """`t` reversed along time (a list reversed whole, as TF's)."""
        if isinstance(t, list):
            return list(reversed(t))
        if lengths is None:
            return image_ops.reverse_v2(t, [0])
        return array_ops.reverse_sequence(t, lengths, 0, 1)

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        """Runs the cell over `inputs` reversed: `(outputs, final_state)`."""
        inputs = self._reverse(inputs, sequence_length)
        outputs, state = self._cell(
            inputs,
            initial_state=initial_state,
            dtype=dtype,
            sequence_length=sequence_length,
            scope=scope,
        )
        return self._reverse(outputs, sequence_length), state


__all__ = ["FusedRNNCell", "FusedRNNCellAdaptor", "TimeReversedFusedRNN"]
