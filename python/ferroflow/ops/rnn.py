"""Recurrent networks over `RNNCell`s (TF-1.x `tf.nn.dynamic_rnn`, `static_rnn`, ...).

TF's `rnn.py` ported op for op: `dynamic_rnn` is `_dynamic_rnn_loop` (one
`while_loop` whose body reads the time step from input `TensorArray`s, calls the cell
and writes the output arrays, stacked after the loop), `static_rnn` unrolls the cell
in Python, `raw_rnn` is TF's loop around a user `loop_fn`. With `sequence_length`,
outputs past a row's length are zeros and its state is copied through (TF's
`_rnn_step`). One departure, for an op ferroflow has in another form: TF-1.x's
`where` with a vector condition (`Select`, choosing rows) is `where` over a
condition reshaped to `[batch, 1, ...]`; values and gradients are TF's.
"""

from __future__ import annotations

from .._compat import zip_strict
from ..framework import constant_op, dtypes, ops, tensor_shape, tensor_util
from . import array_ops, control_flow_ops, logging_ops, math_ops, rnn_fusion
from . import variable_scope as vs
from ._nest import assert_same_structure, flatten, is_nested, map_structure, pack_sequence_as
from .image_ops import reverse_v2
from .rnn_cell_impl import _concat, _zeros, assert_like_rnncell
from .tensor_array_ops import TensorArray


def _transpose_batch_time(x):
    """`x` with its first two dimensions swapped (rank < 2: `x`), keeping static shapes."""
    x_static_shape = x.shape
    if x_static_shape.ndims is not None and x_static_shape.ndims < 2:
        return x
    x_rank = array_ops.rank(x)
    x_t = array_ops.transpose(x, array_ops.concat(([1, 0], math_ops.range(2, x_rank)), axis=0))
    if x_static_shape.ndims is not None:
        dims = x_static_shape.as_list()
        x_t.set_shape(tensor_shape.TensorShape([dims[1], dims[0]]).concatenate(x_static_shape[2:]))
    else:
        x_t.set_shape(tensor_shape.unknown_shape())
    return x_t


def _best_effort_input_batch_size(flat_input):
    """The static batch size of time-major inputs if known, else `shape(input)[1]`.

    Raises:
        ValueError: If an input has rank < 2.
    """
    for input_ in flat_input:
        shape = input_.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(
                f"Input tensor should have rank >= 2. Received input={input_} of rank {shape.ndims}"
            )
        batch_size = tensor_shape.dimension_value(shape[1])
        if batch_size is not None:
            return batch_size
    return array_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype, state):
    """`explicit_dtype`, else the single dtype of `state`'s tensors.

    Raises:
        ValueError: If `state` is empty or its tensors' dtypes differ.
    """
    if explicit_dtype is not None:
        return explicit_dtype
    if is_nested(state):
        inferred = [element.dtype for element in flatten(state)]
        if not inferred:
            raise ValueError(f"Unable to infer dtype from argument state={state}.")
        if not all(x == inferred[0] for x in inferred):
            raise ValueError(
                f"Argument state={state} has tensors of different inferred dtypes. Unable to "
                f"infer a single representative dtype. Dtypes received: {inferred}"
            )
        return inferred[0]
    return state.dtype


def _maybe_tensor_shape_from_tensor(shape):
    if isinstance(shape, ops.Tensor):
        return tensor_shape.as_shape(tensor_util.constant_value(shape))
    return shape


def _should_cache():
    """Whether to set a caching device: not inside a `while_loop` (TF's)."""
    context = ops.get_default_graph()._control_flow_context
    while context is not None:
        if isinstance(context, control_flow_ops.WhileContext):
            return False
        context = getattr(context, "_outer_context", None)
    return True


def _select_rows(condition, x, y):
    """TF-1.x `where(condition, x, y)`: a vector `condition` chooses rows of x or y."""
    return array_ops.where(condition, x, y)


def _rnn_step(
    time,
    sequence_length,
    min_sequence_length,
    max_sequence_length,
    zero_output,
    state,
    call_cell,
    state_size,
    skip_conditionals=False,
):
    """One step of an RNN over `sequence_length` (TF's `_rnn_step`).

    Rows whose sequence has ended (`time >= sequence_length`) output zeros and keep
    their state. Without `skip_conditionals`, a step past the longest sequence runs
    no cell, and one before the shortest copies nothing (two `cond`s).

    Returns:
        `(output, state)` for this step.

    Raises:
        ValueError: If the cell's outputs and states do not match their structures.
    """
    del state_size
    flat_state = flatten(state)
    flat_zero_output = flatten(zero_output)
    copy_cond = time >= sequence_length

    def _copy_one_through(output, new_output):
        if isinstance(output, TensorArray) or output.shape.ndims == 0:
            return new_output
        with ops.colocate_with(new_output):
            return _select_rows(copy_cond, output, new_output)

    def _copy_some_through(flat_new_output, flat_new_state):
        flat_new_output = [
            _copy_one_through(zero, new)
            for zero, new in zip_strict(flat_zero_output, flat_new_output)
        ]
        flat_new_state = [
            _copy_one_through(old, new) for old, new in zip_strict(flat_state, flat_new_state)
        ]
        return flat_new_output + flat_new_state

    def _maybe_copy_some_through():
        new_output, new_state = call_cell()
        assert_same_structure(zero_output, new_output)
        assert_same_structure(state, new_state)
        flat_new_state = flatten(new_state)
        flat_new_output = flatten(new_output)
        return control_flow_ops.cond(
            time < min_sequence_length,
            lambda: flat_new_output + flat_new_state,
            lambda: _copy_some_through(flat_new_output, flat_new_state),
        )

    if skip_conditionals:
        new_output, new_state = call_cell()
        assert_same_structure(zero_output, new_output)
        assert_same_structure(state, new_state)
        final_output_and_state = _copy_some_through(flatten(new_output), flatten(new_state))
    else:
        final_output_and_state = control_flow_ops.cond(
            time >= max_sequence_length,
            lambda: flat_zero_output + flat_state,
            _maybe_copy_some_through,
        )
    final_output_and_state = list(final_output_and_state)
    if len(final_output_and_state) != len(flat_zero_output) + len(flat_state):
        raise ValueError(
            "Internal error: state and output were not concatenated correctly. Received "
            f"state length: {len(flat_state)}, output length: {len(flat_zero_output)}. "
            f"Expected contatenated length: {len(final_output_and_state)}."
        )
    final_output = final_output_and_state[: len(flat_zero_output)]
    final_state = final_output_and_state[len(flat_zero_output) :]
    for output, flat_output in zip_strict(final_output, flat_zero_output):
        output.set_shape(flat_output.shape)
    for substate, flat_substate in zip_strict(final_state, flat_state):
        if not isinstance(substate, TensorArray):
            substate.set_shape(flat_substate.shape)
    return (
        pack_sequence_as(zero_output, final_output),
        pack_sequence_as(state, final_state),
    )


def _reverse_sequence(input_, seq_lengths, seq_axis, batch_axis):
    """TF's `array_ops.reverse_sequence` as `rnn.py` calls it (the `ReverseSequence` op)."""
    return array_ops.reverse_sequence(
        input=input_, seq_lengths=seq_lengths, seq_axis=seq_axis, batch_axis=batch_axis
    )


def _reverse_seq(input_seq, lengths):
    """A list of per-time tensors (or structures) reversed up to `lengths` (TF's)."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_input_seq = tuple(flatten(input_) for input_ in input_seq)
    flat_results: list[list] = [[] for _ in range(len(input_seq))]
    for sequence in zip_strict(*flat_input_seq):
        input_shape = tensor_shape.unknown_shape(rank=sequence[0].shape.ndims)
        for input_ in sequence:
            input_shape.assert_is_compatible_with(input_.shape)
            input_.set_shape(input_shape)
        s_joined = array_ops.stack(sequence)
        s_reversed = _reverse_sequence(s_joined, lengths, 0, 1)
        result = array_ops.unstack(s_reversed)
        for r, flat_result in zip_strict(result, flat_results):
            r.set_shape(input_shape)
            flat_result.append(r)
    return [
        pack_sequence_as(input_, flat_result)
        for input_, flat_result in zip_strict(input_seq, flat_results)
    ]


def bidirectional_dynamic_rnn(
    cell_fw,
    cell_bw,
    inputs,
    sequence_length=None,
    initial_state_fw=None,
    initial_state_bw=None,
    dtype=None,
    parallel_iterations=None,
    swap_memory=False,
    time_major=False,
    scope=None,
):
    """A forward and a backward `dynamic_rnn` over `inputs` (scopes `fw` and `bw`).

    The backward RNN reads each sequence reversed up to its length, and its outputs
    are reversed back.

    Args:
        cell_fw: The forward `RNNCell`.
        cell_bw: The backward `RNNCell`.
        inputs: `[batch, time, ...]` (or `[time, batch, ...]` if `time_major`), or a
            nested tuple of such tensors.
        sequence_length: Optional int32/int64 `[batch]` vector of lengths.
        initial_state_fw: Optional initial state of the forward RNN.
        initial_state_bw: Optional initial state of the backward RNN.
        dtype: The state dtype; required without initial states.
        parallel_iterations: Accepted (iterations run one after another).
        swap_memory: Accepted for compatibility.
        time_major: Whether inputs and outputs are time-major.
        scope: Variable scope (default `bidirectional_rnn`).

    Returns:
        `((output_fw, output_bw), (output_state_fw, output_state_bw))`.

    Raises:
        TypeError: If a cell is not an RNNCell.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell=cell_fw,
                inputs=inputs,
                sequence_length=sequence_length,
                initial_state=initial_state_fw,
                dtype=dtype,
                parallel_iterations=parallel_iterations,
                swap_memory=swap_memory,
                time_major=time_major,
                scope=fw_scope,
            )
        time_axis, batch_axis = (0, 1) if time_major else (1, 0)

        def _reverse(input_, seq_lengths, seq_axis, batch_axis):
            if seq_lengths is not None:
                return _reverse_sequence(input_, seq_lengths, seq_axis, batch_axis)
            return reverse_v2(input_, axis=[seq_axis])

        with vs.variable_scope("bw") as bw_scope:
            inputs_reverse = map_structure(
                lambda inp: _reverse(inp, sequence_length, time_axis, batch_axis), inputs
            )
            tmp, output_state_bw = dynamic_rnn(
                cell=cell_bw,
                inputs=inputs_reverse,
                sequence_length=sequence_length,
                initial_state=initial_state_bw,
                dtype=dtype,
                parallel_iterations=parallel_iterations,
                swap_memory=swap_memory,
                time_major=time_major,
                scope=bw_scope,
            )
    output_bw = _reverse(tmp, sequence_length, time_axis, batch_axis)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)


def dynamic_rnn(
    cell,
    inputs,
    sequence_length=None,
    initial_state=None,
    dtype=None,
    parallel_iterations=None,
    swap_memory=False,
    time_major=False,
    scope=None,
):
    """Runs `cell` over the time steps of `inputs` in a `while_loop` (TF-1.x's).

    Args:
        cell: An `RNNCell`.
        inputs: `[batch, time, ...]` (or `[time, batch, ...]` if `time_major`), or a
            nested tuple of such tensors (the cell then gets that structure).
        sequence_length: Optional int32/int64 `[batch]` vector: past a row's length its
            outputs are zeros and its state is copied through; the loop stops at the
            longest length. Checked at run time to have `batch` elements.
        initial_state: Optional initial state (default: the cell's zero state).
        dtype: The state dtype; required without `initial_state`.
        parallel_iterations: Accepted (iterations run one after another).
        swap_memory: Accepted for compatibility.
        time_major: Whether inputs and outputs are time-major.
        scope: Variable scope (default `rnn`).

    Returns:
        `(outputs, state)`: outputs `[batch, time, output_size]` (time-major if
        `time_major`; a structure for a nested `output_size`) and the final state.

    Raises:
        TypeError: If `cell` is not an RNNCell.
        ValueError: Without `initial_state` and `dtype`, for a `sequence_length` that
            is not a vector, or inputs whose depth, time or batch sizes are unknown or
            inconsistent.

    Example:
        ```python
        cell = tf.nn.rnn_cell.BasicLSTMCell(64)
        outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
        ```
    """
    assert_like_rnncell("cell", cell)
    with vs.variable_scope(scope or "rnn") as varscope:
        if _should_cache() and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        flat_input = flatten(inputs)
        if not time_major:
            flat_input = [_transpose_batch_time(ops.convert_to_tensor(x)) for x in flat_input]
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = array_ops.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError(
                    "Argument sequence_length must be a vector of length batch_size. Received "
                    f"sequence_length={sequence_length} of shape: {sequence_length.shape}"
                )
            sequence_length = array_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError(
                    "If no initial_state is provided, argument `dtype` must be specified"
                )
            if getattr(cell, "get_initial_state", None) is not None:
                state = cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
            else:
                state = cell.zero_state(batch_size, dtype)

        def _assert_has_shape(x, shape):
            x_shape = array_ops.shape(x)
            packed_shape = array_ops.stack(shape)
            return logging_ops.Assert(
                math_ops.reduce_all(math_ops.equal(x_shape, packed_shape)),
                [
                    f"Expected shape for Tensor {x.name} is ",
                    packed_shape,
                    " but saw shape: ",
                    x_shape,
                ],
            )

        if sequence_length is not None:
            with ops.control_dependencies([_assert_has_shape(sequence_length, [batch_size])]):
                sequence_length = array_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = pack_sequence_as(inputs, flat_input)
        # LSTM cells run as one fused op per layer (see ops/rnn_fusion.py).
        fused = rnn_fusion.fused_dynamic_rnn(cell, inputs, state, sequence_length)
        if fused is not None:
            outputs, final_state = fused
        else:
            outputs, final_state = _dynamic_rnn_loop(
                cell,
                inputs,
                state,
                parallel_iterations=parallel_iterations,
                swap_memory=swap_memory,
                sequence_length=sequence_length,
                dtype=dtype,
            )
        if not time_major:
            outputs = map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _dynamic_rnn_loop(
    cell, inputs, initial_state, parallel_iterations, swap_memory, sequence_length=None, dtype=None
):
    """The loop of `dynamic_rnn` over time-major `inputs` (TF's `_dynamic_rnn_loop`).

    Returns:
        `(final_outputs, final_state)`, outputs time-major.

    Raises:
        ValueError: If the input depth is unknown, or time steps or batch sizes differ
            between inputs.
    """
    state = initial_state
    flat_input = flatten(inputs)
    flat_output_size = flatten(cell.output_size)
    input_shape = array_ops.shape(flat_input[0])
    time_steps = input_shape[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    inputs_got_shape = tuple(input_.shape.with_rank_at_least(3) for input_ in flat_input)
    const_time_steps, const_batch_size = inputs_got_shape[0].as_list()[:2]
    for i, shape in enumerate(inputs_got_shape):
        if not shape[2:].is_fully_defined():
            raise ValueError(
                "Input size (depth of inputs) must be accessible via shape inference, but saw "
                f"value None for input={flat_input[i]}."
            )
        got_time_steps, got_batch_size = shape.as_list()[:2]
        if const_time_steps != got_time_steps:
            raise ValueError(
                "Time steps is not the same for all the elements in the input in a batch. "
                f"Received time steps={got_time_steps} for input={flat_input[i]}."
            )
        if const_batch_size != got_batch_size:
            raise ValueError(
                "Batch_size is not the same for all the elements in the input. Received "
                f"batch size={got_batch_size} for input={flat_input[i]}."
            )

    def _create_zero_arrays(size):
        return _zeros(batch_size, size, _infer_state_dtype(dtype, state))

    flat_zero_output = tuple(_create_zero_arrays(output) for output in flat_output_size)
    zero_output = pack_sequence_as(cell.output_size, flat_zero_output)
    if sequence_length is not None:
        min_sequence_length = math_ops.reduce_min(sequence_length)
        max_sequence_length = math_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = constant_op.constant(0, dtype=dtypes.int32, name="time")
    with ops.name_scope("dynamic_rnn") as scope:
        base_name = scope

    def _create_ta(name, element_shape, dtype):
        return TensorArray(
            dtype=dtype,
            size=time_steps,
            element_shape=element_shape,
            tensor_array_name=base_name + name,
        )

    output_ta = tuple(
        _create_ta(
            f"output_{i}",
            element_shape=tensor_shape.TensorShape([const_batch_size]).concatenate(
                _maybe_tensor_shape_from_tensor(out_size)
            ),
            dtype=_infer_state_dtype(dtype, state),
        )
        for i, out_size in enumerate(flat_output_size)
    )
    input_ta = tuple(
        _create_ta(f"input_{i}", element_shape=flat_input_i.shape[1:], dtype=flat_input_i.dtype)
        for i, flat_input_i in enumerate(flat_input)
    )
    input_ta = tuple(ta.unstack(input_) for ta, input_ in zip_strict(input_ta, flat_input))

    def _time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for input_, shape in zip_strict(input_t, inputs_got_shape):
            input_.set_shape(shape[1:])
        input_t = pack_sequence_as(inputs, input_t)

        def call_cell():
            return cell(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(
                time=time,
                sequence_length=sequence_length,
                min_sequence_length=min_sequence_length,
                max_sequence_length=max_sequence_length,
                zero_output=zero_output,
                state=state,
                call_cell=call_cell,
                state_size=cell.state_size,
                skip_conditionals=True,
            )
        else:
            output, new_state = call_cell()
        output = flatten(output)
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip_strict(output_ta_t, output))
        return time + 1, output_ta_t, new_state

    # At least one step, so that the arrays learn the dynamic shape.
    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = control_flow_ops.while_loop(
        cond=lambda time, *_: time < loop_bound,
        body=_time_step,
        loop_vars=(time, output_ta, state),
        parallel_iterations=parallel_iterations,
        maximum_iterations=time_steps,
        swap_memory=swap_memory,
    )
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, output_size in zip_strict(final_outputs, flat_output_size):
        output.set_shape(_concat([const_time_steps, const_batch_size], output_size, static=True))
    return pack_sequence_as(cell.output_size, final_outputs), final_state


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """An RNN driven by `loop_fn`, which picks each step's input and emission (TF's).

    `loop_fn(time, cell_output, cell_state, loop_state)` returns `(finished,
    next_input, next_cell_state, emit_output, next_loop_state)`; its first call
    (`time=0`, the rest None) gives the initial input and state, and the structure of
    the emissions (None: `cell.output_size`). Steps run while some row is not
    finished; finished rows emit zeros and keep their state.

    Args:
        cell: An `RNNCell`.
        loop_fn: The callable described above.
        parallel_iterations: Accepted (iterations run one after another).
        swap_memory: Accepted for compatibility.
        scope: Variable scope (default `rnn`).

    Returns:
        `(emit_ta, final_state, final_loop_state)`: the emissions as (a structure of)
        `TensorArray`s, the final cell state and the final loop state (None if
        `loop_fn` keeps none).

    Raises:
        TypeError: If `cell` is not an RNNCell or `loop_fn` is not callable.
        ValueError: If structures do not match across steps.
    """
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError(f"Argument `loop_fn` must be a callable. Received: {loop_fn}.")
    parallel_iterations = parallel_iterations or 32
    with vs.variable_scope(scope or "rnn") as varscope:
        if _should_cache() and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        time = constant_op.constant(0, dtype=dtypes.int32)
        (elements_finished, next_input, initial_state, emit_structure, init_loop_state) = loop_fn(
            time, None, None, None
        )
        flat_input = flatten(next_input)
        loop_state = (
            init_loop_state
            if init_loop_state is not None
            else constant_op.constant(0, dtype=dtypes.int32)
        )
        input_shape = [input_.shape for input_ in flat_input]
        static_batch_size = tensor_shape.dimension_at_index(input_shape[0], 0)
        for input_shape_i in input_shape:
            static_batch_size.assert_is_compatible_with(
                tensor_shape.dimension_at_index(input_shape_i, 0)
            )
        batch_size = tensor_shape.dimension_value(static_batch_size)
        const_batch_size = batch_size
        if batch_size is None:
            batch_size = array_ops.shape(flat_input[0])[0]
        assert_same_structure(initial_state, cell.state_size)
        state = initial_state
        flat_state = [ops.convert_to_tensor(s) for s in flatten(state)]
        state = pack_sequence_as(state, flat_state)
        if emit_structure is not None:
            flat_emit_structure = flatten(emit_structure)
            flat_emit_size = [
                emit.shape if emit.shape.is_fully_defined() else array_ops.shape(emit)
                for emit in flat_emit_structure
            ]
            flat_emit_dtypes = [emit.dtype for emit in flat_emit_structure]
        else:
            emit_structure = cell.output_size
            flat_emit_size = flatten(emit_structure)
            flat_emit_dtypes = [flat_state[0].dtype] * len(flat_emit_size)
        flat_emit_ta = [
            TensorArray(
                dtype=dtype_i,
                dynamic_size=True,
                element_shape=tensor_shape.TensorShape([const_batch_size]).concatenate(
                    _maybe_tensor_shape_from_tensor(size_i)
                ),
                size=0,
                name=f"rnn_output_{i}",
            )
            for i, (dtype_i, size_i) in enumerate(zip_strict(flat_emit_dtypes, flat_emit_size))
        ]
        emit_ta = pack_sequence_as(emit_structure, flat_emit_ta)
        flat_zero_emit = [
            _zeros(batch_size, size_i, dtype_i)
            for size_i, dtype_i in zip_strict(flat_emit_size, flat_emit_dtypes)
        ]
        zero_emit = pack_sequence_as(emit_structure, flat_zero_emit)

        def condition(unused_time, elements_finished, *_):
            return math_ops.logical_not(math_ops.reduce_all(elements_finished))

        def body(time, elements_finished, current_input, emit_ta, state, loop_state):
            next_output, cell_state = cell(current_input, state)
            assert_same_structure(state, cell_state)
            assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            (next_finished, next_input, next_state, emit_output, next_loop_state) = loop_fn(
                next_time, next_output, cell_state, loop_state
            )
            assert_same_structure(state, next_state)
            assert_same_structure(current_input, next_input)
            assert_same_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state

            def _copy_some_through(current, candidate):
                def copy_fn(cur_i, cand_i):
                    if isinstance(cur_i, TensorArray) or cur_i.shape.ndims == 0:
                        return cand_i
                    with ops.colocate_with(cand_i):
                        return _select_rows(elements_finished, cur_i, cand_i)

                return map_structure(copy_fn, current, candidate)

            emit_output = _copy_some_through(zero_emit, emit_output)
            next_state = _copy_some_through(state, next_state)
            emit_ta = map_structure(lambda ta, emit: ta.write(time, emit), emit_ta, emit_output)
            elements_finished = math_ops.logical_or(elements_finished, next_finished)
            return (next_time, elements_finished, next_input, emit_ta, next_state, loop_state)

        returned = control_flow_ops.while_loop(
            condition,
            body,
            loop_vars=[time, elements_finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations,
            swap_memory=swap_memory,
        )
        emit_ta, final_state, final_loop_state = returned[-3:]
        if init_loop_state is None:
            final_loop_state = None
        return emit_ta, final_state, final_loop_state


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Runs `cell` over a Python list of time steps, unrolled in the graph (TF's).

    Args:
        cell: An `RNNCell`.
        inputs: A length-T list of `[batch, input_size]` tensors (or nested tuples).
        initial_state: Optional initial state (default: the cell's zero state).
        dtype: The state dtype; required without `initial_state`.
        sequence_length: Optional int32/int64 `[batch]` vector: past a row's length
            outputs are zeros and the state is copied through; steps past the longest
            length run no cell (a `cond`).
        scope: Variable scope (default `rnn`).

    Returns:
        `(outputs, state)`: the list of T outputs and the final state.

    Raises:
        TypeError: If `cell` is not an RNNCell or `inputs` is not a sequence.
        ValueError: If `inputs` is empty, the input depth is unknown, `dtype` and
            `initial_state` are both missing, or `sequence_length` is not a vector.
    """
    assert_like_rnncell("cell", cell)
    if not is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    outputs = []
    with vs.variable_scope(scope or "rnn") as varscope:
        if _should_cache() and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        first_input = inputs
        while is_nested(first_input):
            first_input = first_input[0]
        if first_input.shape.ndims != 1:
            input_shape = first_input.shape.with_rank_at_least(2)
            fixed_batch_size = input_shape[0]
            for flat_input in flatten(inputs):
                input_shape = flat_input.shape.with_rank_at_least(2)
                batch_dim, input_size = input_shape[0], input_shape[1:]
                fixed_batch_size.assert_is_compatible_with(batch_dim)
                for i, size in enumerate(input_size.dims or []):
                    if tensor_shape.dimension_value(size) is None:
                        raise ValueError(
                            f"Input size (dimension {i} of input {flat_input}) must be "
                            "accessible via shape inference, but saw value None."
                        )
        else:
            fixed_batch_size = first_input.shape.with_rank_at_least(1)[0]
        if tensor_shape.dimension_value(fixed_batch_size):
            batch_size = tensor_shape.dimension_value(fixed_batch_size)
        else:
            batch_size = array_ops.shape(first_input)[0]
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError(
                    "If no initial_state is provided, argument `dtype` must be specified"
                )
            if getattr(cell, "get_initial_state", None) is not None:
                state = cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
            else:
                state = cell.zero_state(batch_size, dtype)
        if sequence_length is not None:
            sequence_length = ops.convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError(
                    f"Argument `sequence_length` must be a vector of length {batch_size}. "
                    f"Received sequence_length={sequence_length}."
                )

            def _create_zero_output(output_size):
                size = _concat(batch_size, output_size)
                output = array_ops.zeros(size, _infer_state_dtype(dtype, state))
                shape = _concat(
                    tensor_shape.dimension_value(fixed_batch_size), output_size, static=True
                )
                output.set_shape(tensor_shape.TensorShape(shape))
                return output

            output_size = cell.output_size
            flat_zero_output = tuple(_create_zero_output(size) for size in flatten(output_size))
            zero_output = pack_sequence_as(output_size, flat_zero_output)
            sequence_length = array_ops.cast(sequence_length, dtypes.int32)
            min_sequence_length = math_ops.reduce_min(sequence_length)
            max_sequence_length = math_ops.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_=input_, state=state):
                return cell(input_, state)

            if sequence_length is not None:
                output, state = _rnn_step(
                    time=time,
                    sequence_length=sequence_length,
                    min_sequence_length=min_sequence_length,
                    max_sequence_length=max_sequence_length,
                    zero_output=zero_output,
                    state=state,
                    call_cell=call_cell,
                    state_size=cell.state_size,
                )
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def static_state_saving_rnn(
    cell, inputs, state_saver, state_name, sequence_length=None, scope=None
):
    """`static_rnn` whose initial state comes from, and final state goes to, `state_saver`.

    Args:
        cell: An `RNNCell`.
        inputs: A length-T list of `[batch, input_size]` tensors.
        state_saver: An object with `state(name)` and `save_state(name, value)`.
        state_name: The state's name, or a tuple of names for a tuple `state_size`.
        sequence_length: Optional `[batch]` vector of lengths (see `static_rnn`).
        scope: Variable scope (default `rnn`).

    Returns:
        `(outputs, state)`; the last output and the state depend on the saves.

    Raises:
        TypeError: If `cell` is not an RNNCell.
        ValueError: If `state_name` does not match `cell.state_size` in kind or length.
    """
    state_size = cell.state_size
    state_is_tuple = is_nested(state_size)
    state_name_tuple = is_nested(state_name)
    if state_is_tuple != state_name_tuple:
        raise ValueError(
            "Argument `state_name` should be the same type as `cell.state_size`. Received: "
            f"state_name={state_name!s}, cell.state_size={state_size!s}."
        )
    if state_is_tuple:
        state_name_flat = flatten(state_name)
        state_size_flat = flatten(state_size)
        if len(state_name_flat) != len(state_size_flat):
            raise ValueError(
                "Number of elements in argument `state_name` and `cell.state_size` are "
                f"mismatched. Received state_name={state_name} with {len(state_name_flat)} "
                f"elements and cell.state_size={cell.state_size} with "
                f"{len(state_size_flat)} elements."
            )
        initial_state = pack_sequence_as(
            state_size, [state_saver.state(s) for s in state_name_flat]
        )
    else:
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(
        cell, inputs, initial_state=initial_state, sequence_length=sequence_length, scope=scope
    )
    if state_is_tuple:
        flat_state = flatten(state)
        save_state = [
            state_saver.save_state(name, substate)
            for name, substate in zip_strict(flatten(state_name), flat_state)
        ]
    else:
        save_state = [state_saver.save_state(state_name, state)]
    with ops.control_dependencies(save_state):
        last_output = outputs[-1]
        flat_last_output = [array_ops.identity(output) for output in flatten(last_output)]
        outputs[-1] = pack_sequence_as(last_output, flat_last_output)
        if state_is_tuple:
            state = pack_sequence_as(state, [array_ops.identity(s) for s in flatten(state)])
        else:
            state = array_ops.identity(state)
    return outputs, state


def static_bidirectional_rnn(
    cell_fw,
    cell_bw,
    inputs,
    initial_state_fw=None,
    initial_state_bw=None,
    dtype=None,
    sequence_length=None,
    scope=None,
):
    """A forward and a backward `static_rnn`, outputs concatenated step by step (TF's).

    Args:
        cell_fw: The forward `RNNCell`.
        cell_bw: The backward `RNNCell`.
        inputs: A length-T list of `[batch, input_size]` tensors (or nested tuples).
        initial_state_fw: Optional initial state of the forward RNN.
        initial_state_bw: Optional initial state of the backward RNN.
        dtype: The state dtype; required without initial states.
        sequence_length: Optional `[batch]` vector of lengths.
        scope: Variable scope (default `bidirectional_rnn`).

    Returns:
        `(outputs, output_state_fw, output_state_bw)`, outputs a length-T list of
        `[batch, fw_size + bw_size]` tensors.

    Raises:
        TypeError: If a cell is not an RNNCell or `inputs` is not a sequence.
        ValueError: If `inputs` is empty.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = static_rnn(
                cell_fw, inputs, initial_state_fw, dtype, sequence_length, scope=fw_scope
            )
        with vs.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, output_state_bw = static_rnn(
                cell_bw, reversed_inputs, initial_state_bw, dtype, sequence_length, scope=bw_scope
            )
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_outputs = tuple(
        array_ops.concat([fw, bw], 1)
        for fw, bw in zip_strict(flatten(output_fw), flatten(output_bw))
    )
    outputs = pack_sequence_as(output_fw, flat_outputs)
    return outputs, output_state_fw, output_state_bw


def _check_stack_args(cells_fw, cells_bw, initial_states_fw, initial_states_bw):
    if not cells_fw:
        raise ValueError("Must specify at least one fw cell for BidirectionalRNN.")
    if not cells_bw:
        raise ValueError("Must specify at least one bw cell for BidirectionalRNN.")
    if not isinstance(cells_fw, list):
        raise ValueError("cells_fw must be a list of RNNCells (one per layer).")
    if not isinstance(cells_bw, list):
        raise ValueError("cells_bw must be a list of RNNCells (one per layer).")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    if initial_states_fw is not None and (
        not isinstance(initial_states_fw, list) or len(initial_states_fw) != len(cells_fw)
    ):
        raise ValueError("initial_states_fw must be a list of state tensors (one per layer).")
    if initial_states_bw is not None and (
        not isinstance(initial_states_bw, list) or len(initial_states_bw) != len(cells_bw)
    ):
        raise ValueError("initial_states_bw must be a list of state tensors (one per layer).")


def stack_bidirectional_rnn(
    cells_fw,
    cells_bw,
    inputs,
    initial_states_fw=None,
    initial_states_bw=None,
    dtype=None,
    sequence_length=None,
    scope=None,
):
    """Layers of `static_bidirectional_rnn`, each reading the last one's outputs.

    TF-1.x's `tf.contrib.rnn.stack_bidirectional_rnn`: layer `i` runs in variable
    scope `stack_bidirectional_rnn/cell_<i>`.

    Args:
        cells_fw: A list of forward `RNNCell`s, one per layer.
        cells_bw: A list of backward `RNNCell`s, as many.
        inputs: A length-T list of `[batch, input_size]` tensors.
        initial_states_fw: Optional list of forward initial states, one per layer.
        initial_states_bw: Optional list of backward initial states, one per layer.
        dtype: The state dtype; required without initial states.
        sequence_length: Optional `[batch]` vector of lengths.
        scope: Variable scope (default `stack_bidirectional_rnn`).

    Returns:
        `(outputs, output_states_fw, output_states_bw)`: the last layer's outputs and
        tuples of the layers' final states.

    Raises:
        ValueError: If the cell lists are empty, not lists, or of different lengths,
            or the initial states do not match them.
    """
    _check_stack_args(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    states_fw, states_bw = [], []
    prev_layer = inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip_strict(cells_fw, cells_bw)):
            initial_state_fw = initial_states_fw[i] if initial_states_fw else None
            initial_state_bw = initial_states_bw[i] if initial_states_bw else None
            with vs.variable_scope(f"cell_{i}") as cell_scope:
                prev_layer, state_fw, state_bw = static_bidirectional_rnn(
                    cell_fw,
                    cell_bw,
                    prev_layer,
                    initial_state_fw=initial_state_fw,
                    initial_state_bw=initial_state_bw,
                    sequence_length=sequence_length,
                    dtype=dtype,
                    scope=cell_scope,
                )
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)


def stack_bidirectional_dynamic_rnn(
    cells_fw,
    cells_bw,
    inputs,
    initial_states_fw=None,
    initial_states_bw=None,
    dtype=None,
    sequence_length=None,
    parallel_iterations=None,
    time_major=False,
    scope=None,
    swap_memory=False,
):
    """Layers of `bidirectional_dynamic_rnn`, each reading the last one's concatenated outputs.

    TF-1.x's `tf.contrib.rnn.stack_bidirectional_dynamic_rnn`: layer `i` runs in
    variable scope `stack_bidirectional_rnn/cell_<i>`.

    Args:
        cells_fw: A list of forward `RNNCell`s, one per layer.
        cells_bw: A list of backward `RNNCell`s, as many.
        inputs: `[batch, time, depth]` (or time-major) tensor.
        initial_states_fw: Optional list of forward initial states, one per layer.
        initial_states_bw: Optional list of backward initial states, one per layer.
        dtype: The state dtype; required without initial states.
        sequence_length: Optional `[batch]` vector of lengths.
        parallel_iterations: Accepted (iterations run one after another).
        time_major: Whether inputs and outputs are time-major.
        scope: Variable scope (default `stack_bidirectional_rnn`).
        swap_memory: Accepted for compatibility.

    Returns:
        `(outputs, output_states_fw, output_states_bw)`: the last layer's outputs
        (forward and backward concatenated on the depth axis) and tuples of the
        layers' final states.

    Raises:
        ValueError: If the cell lists are empty, not lists, or of different lengths,
            or the initial states do not match them.
    """
    _check_stack_args(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    states_fw, states_bw = [], []
    prev_layer = inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip_strict(cells_fw, cells_bw)):
            initial_state_fw = initial_states_fw[i] if initial_states_fw else None
            initial_state_bw = initial_states_bw[i] if initial_states_bw else None
            with vs.variable_scope(f"cell_{i}"):
                outputs, (state_fw, state_bw) = bidirectional_dynamic_rnn(
                    cell_fw,
                    cell_bw,
                    prev_layer,
                    initial_state_fw=initial_state_fw,
                    initial_state_bw=initial_state_bw,
                    sequence_length=sequence_length,
                    parallel_iterations=parallel_iterations,
                    dtype=dtype,
                    swap_memory=swap_memory,
                    time_major=time_major,
                )
                prev_layer = array_ops.concat(outputs, 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)
