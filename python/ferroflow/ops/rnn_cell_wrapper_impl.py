"""RNN cell wrappers of TF-1.x `tf.nn.rnn_cell`: dropout, residual and device wrappers.

TF's `rnn_cell_wrapper_impl.py` bases merged with its V1 wrapper class: a wrapper is
an `RNNCell` holding `cell`, whose `__call__` calls the wrapped cell's `__call__`
(so the wrapped cell keeps its own variable scope: `rnn/basic_lstm_cell/kernel`
with or without a wrapper) and adds its own work around it.
"""

from __future__ import annotations

import hashlib
import numbers

from ..framework import ops, tensor_shape, tensor_util
from . import array_ops, math_ops, nn_ops, random_ops
from ._nest import assert_same_structure, get_traverse_shallow_structure, map_structure
from ._nest import map_structure_up_to as _map_structure_up_to
from .rnn_cell_impl import LSTMStateTuple, RNNCell, assert_like_rnncell
from .tensor_array_ops import TensorArray


def _default_dropout_state_filter_visitor(substate):
    """Dropout on every state except the memory `c` of an `LSTMStateTuple` and arrays."""
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    if isinstance(substate, TensorArray):
        return False
    return True


def _enumerated_map_structure_up_to(shallow_structure, map_fn, *args):
    """`map_structure_up_to` whose `map_fn` also gets the leaf's index."""
    ix = [0]

    def enumerated_fn(*inner_args):
        r = map_fn(ix[0], *inner_args)
        ix[0] += 1
        return r

    return _map_structure_up_to(shallow_structure, enumerated_fn, *args)


def _keep_prob(prob, attr):
    """A keep probability as a float when it is constant, else as a tensor."""
    tensor_prob = ops.convert_to_tensor(prob)
    const_prob = tensor_util.constant_value(tensor_prob)
    if const_prob is None:
        return tensor_prob
    if const_prob < 0 or const_prob > 1:
        raise ValueError(f"Parameter {attr} must be between 0 and 1: {int(const_prob)}")
    return float(const_prob)


class _RNNCellWrapper(RNNCell):
    """A cell around `cell`: calls its `__call__` through `_call_wrapped_cell`."""

    def __init__(self, cell, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        raise NotImplementedError

    def __call__(self, inputs, state, scope=None):
        """Runs the wrapped cell (in its own scope) with the wrapper's work around it.

        Args:
            inputs: The wrapped cell's input.
            state: The wrapped cell's state.
            scope: The variable scope for the wrapped cell's `__call__`.

        Returns:
            `(output, new_state)`.
        """
        return self._call_wrapped_cell(inputs, state, cell_call_fn=self.cell.__call__, scope=scope)

    @property
    def state_size(self):
        """The wrapped cell's state size."""
        return self.cell.state_size

    @property
    def output_size(self):
        """The wrapped cell's output size."""
        return self.cell.output_size

    def zero_state(self, batch_size, dtype):
        """The wrapped cell's zero state, under `<Wrapper>ZeroState`.

        Args:
            batch_size: An int or scalar int tensor.
            dtype: The state's dtype.

        Returns:
            The wrapped cell's zero state.
        """
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)


def _should_dropout(keep_prob) -> bool:
    """Whether a keep probability adds dropout: a tensor always does, a float below 1."""
    return (not isinstance(keep_prob, float)) or keep_prob < 1


class DropoutWrapper(_RNNCellWrapper):
    """Dropout on the inputs, states and/or outputs of `cell` (TF's `DropoutWrapper`).

    A keep probability that is a constant 1 adds no op. With
    `variational_recurrent=True` one mask per run (drawn when the wrapper is made, the
    same for all batch rows and time steps; Gal & Ghahramani, 2016) is used instead
    of a fresh mask per step. By default the memory `c` of an `LSTMStateTuple` is
    never dropped.

    Args:
        cell: The `RNNCell` to wrap.
        input_keep_prob: Keep probability of the inputs (float or scalar tensor).
        output_keep_prob: Keep probability of the outputs.
        state_keep_prob: Keep probability of the new states (those the filter
            selects).
        variational_recurrent: Use the same masks at every step.
        input_size: The (nested) depth(s) of the inputs; needed with
            `variational_recurrent` and `input_keep_prob < 1`.
        dtype: The dtype of inputs, states and outputs; needed with
            `variational_recurrent`.
        seed: An int seed: each mask's op seed is derived from it (TF's md5 salt), so
            seeded runs give TF's masks.
        dropout_state_filter_visitor: `fn(substate)` returning True, False, or a
            depth-1 structure of bools: which parts of the state get dropout.
        **kwargs: `tf.layers.Layer`'s.

    Raises:
        TypeError: If `cell` is not an RNNCell or the filter is not callable.
        ValueError: If a keep probability is outside `[0, 1]`, or
            `variational_recurrent` lacks `dtype` (or `input_size`).
    """

    def __init__(
        self,
        cell,
        input_keep_prob=1.0,
        output_keep_prob=1.0,
        state_keep_prob=1.0,
        variational_recurrent=False,
        input_size=None,
        dtype=None,
        seed=None,
        dropout_state_filter_visitor=None,
        **kwargs,
    ):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = (
            dropout_state_filter_visitor or _default_dropout_state_filter_visitor
        )
        with ops.name_scope("DropoutWrapperInit"):
            self._input_keep_prob = _keep_prob(input_keep_prob, "input_keep_prob")
            self._state_keep_prob = _keep_prob(state_keep_prob, "state_keep_prob")
            self._output_keep_prob = _keep_prob(output_keep_prob, "output_keep_prob")
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._recurrent_input_noise = None
        self._recurrent_state_noise = None
        self._recurrent_output_noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")

            def batch_noise(s, inner_seed):
                # A leading 1: one mask for all the batch rows.
                shape = array_ops.concat(([1], tensor_shape.TensorShape(s).as_list()), 0)
                return random_ops.random_uniform(shape, seed=inner_seed, dtype=dtype)

            if not isinstance(self._input_keep_prob, numbers.Real) or self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError(
                        "When variational_recurrent=True and input_keep_prob < 1.0 or "
                        "is unknown, input_size must be provided"
                    )
                self._recurrent_input_noise = _enumerated_map_structure_up_to(
                    input_size,
                    lambda i, s: batch_noise(s, inner_seed=self._gen_seed("input", i)),
                    input_size,
                )
            self._recurrent_state_noise = _enumerated_map_structure_up_to(
                cell.state_size,
                lambda i, s: batch_noise(s, inner_seed=self._gen_seed("state", i)),
                cell.state_size,
            )
            self._recurrent_output_noise = _enumerated_map_structure_up_to(
                cell.output_size,
                lambda i, s: batch_noise(s, inner_seed=self._gen_seed("output", i)),
                cell.output_size,
            )

    def _gen_seed(self, salt_prefix, index):
        if self._seed is None:
            return None
        salt = f"{salt_prefix}_{index}"
        string = (str(self._seed) + salt).encode("utf-8")
        return int(hashlib.md5(string).hexdigest()[:8], 16) & 0x7FFFFFFF

    @property
    def wrapped_cell(self):
        """The wrapped cell."""
        return self.cell

    def build(self, inputs_shape):
        """Builds the wrapped cell."""
        self.cell.build(inputs_shape)
        self.built = True

    def _variational_recurrent_dropout_value(self, unused_index, value, noise, keep_prob):
        # noise + keep_prob is uniform in [keep_prob, 1 + keep_prob): its floor keeps
        # an element with probability keep_prob.
        random_tensor = keep_prob + noise
        binary_tensor = math_ops.floor(random_tensor)
        ret = math_ops.divide(value, keep_prob) * binary_tensor
        ret.set_shape(value.shape)
        return ret

    def _dropout(
        self, values, salt_prefix, recurrent_noise, keep_prob, shallow_filtered_substructure=None
    ):
        if shallow_filtered_substructure is None:
            shallow_filtered_substructure = values
        if not self._variational_recurrent:

            def dropout(i, do_dropout, v):
                if not isinstance(do_dropout, bool) or do_dropout:
                    return nn_ops.dropout(
                        v, rate=1.0 - keep_prob, seed=self._gen_seed(salt_prefix, i)
                    )
                return v

            return _enumerated_map_structure_up_to(
                shallow_filtered_substructure, dropout, shallow_filtered_substructure, values
            )

        def recurrent_dropout(i, do_dropout, v, n):
            if not isinstance(do_dropout, bool) or do_dropout:
                return self._variational_recurrent_dropout_value(i, v, n, keep_prob)
            return v

        return _enumerated_map_structure_up_to(
            shallow_filtered_substructure,
            recurrent_dropout,
            shallow_filtered_substructure,
            values,
            recurrent_noise,
        )

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        if _should_dropout(self._input_keep_prob):
            inputs = self._dropout(
                inputs, "input", self._recurrent_input_noise, self._input_keep_prob
            )
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if _should_dropout(self._state_keep_prob):
            shallow_filtered_substructure = get_traverse_shallow_structure(
                self._dropout_state_filter, new_state
            )
            new_state = self._dropout(
                new_state,
                "state",
                self._recurrent_state_noise,
                self._state_keep_prob,
                shallow_filtered_substructure,
            )
        if _should_dropout(self._output_keep_prob):
            output = self._dropout(
                output, "output", self._recurrent_output_noise, self._output_keep_prob
            )
        return output, new_state


class ResidualWrapper(_RNNCellWrapper):
    """Adds the cell's inputs to its outputs (`residual_fn(inputs, outputs)`).

    Args:
        cell: The `RNNCell` to wrap.
        residual_fn: `fn(inputs, outputs)` giving the outputs; default: their sum,
            structure by structure (shapes must be compatible).
        **kwargs: `tf.layers.Layer`'s.

    Raises:
        TypeError: If `cell` is not an RNNCell.
    """

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def assert_shape_match(inp, out):
            inp.shape.assert_is_compatible_with(out.shape)

        def default_residual_fn(inputs, outputs):
            assert_same_structure(inputs, outputs)
            map_structure(assert_shape_match, inputs, outputs)
            return map_structure(lambda inp, out: inp + out, inputs, outputs)

        res_outputs = (self._residual_fn or default_residual_fn)(inputs, outputs)
        return res_outputs, new_state


class DeviceWrapper(_RNNCellWrapper):
    """Runs `cell` (and its zero state) under `tf.device(device)`.

    Args:
        cell: The `RNNCell` to wrap.
        device: A device string or function, as `tf.device` takes.
        **kwargs: `tf.layers.Layer`'s.

    Raises:
        TypeError: If `cell` is not an RNNCell.
    """

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        """The wrapped cell's zero state, made on the wrapper's device.

        Args:
            batch_size: An int or scalar int tensor.
            dtype: The state's dtype.

        Returns:
            The wrapped cell's zero state.
        """
        with ops.name_scope(type(self).__name__ + "ZeroState"), ops.device(self._device):
            return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with ops.device(self._device):
            return cell_call_fn(inputs, state, **kwargs)
