"""`tf.nn.rnn_cell` and the RNN functions (`dynamic_rnn`, `static_rnn`, ...), against TF.

TF 2.21 with Keras 3 has no `tf.compat.v1.nn.rnn_cell`, but keeps TF 1.15's cells as
`tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl`, and `tf.compat.v1.nn`
still has the RNN functions: they are the oracle. Each program is built with both
libraries; the variables must have TF's names and shapes, and, after the same values
are assigned to them (by name), outputs, final states and the gradients of a loss
with respect to the inputs and every variable must equal TF's. Errors must be TF's.
"""

import re
import zlib

import numpy as np
import pytest

import ferroflow as ff
from conftest import op_error_message

# TF's legacy cells warn that they are deprecated on every use.
pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"), pytest.mark.timeout(120)]

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)  # [batch, time, depth]
LENGTHS = [4, 1, 3]


@pytest.fixture(scope="module")
def tf(tf1):
    return tf1


@pytest.fixture(scope="module")
def tf_cells(tf1):
    return pytest.importorskip("tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl")


def _cells(lib, tf_cells):
    return ff.nn.rnn_cell if lib is ff else tf_cells


def _flat(x):
    if isinstance(x, list | tuple):
        return [leaf for item in x for leaf in _flat(item)]
    return [x]


def _value(name, shape, dtype):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return rng.uniform(-0.6, 0.6, shape).astype(dtype)


def _initialize(lib, sess):
    """Initializes the variables, then gives each the same values in both libraries."""
    sess.run(lib.global_variables_initializer())
    sess.run(
        [
            v.assign(_value(v.name, v.shape.as_list(), v.dtype.base_dtype.as_numpy_dtype))
            for v in lib.global_variables()
        ]
    )


def _run(lib, cells, build, grads, feeds):
    g = lib.Graph()
    with g.as_default():
        fetches, xs = build(lib, cells)
        flat = _flat(fetches)
        variables = sorted(lib.global_variables(), key=lambda v: v.name)
        signature = [(v.name, v.shape.as_list()) for v in variables]
        gs = []
        if grads:
            loss = lib.add_n(
                [lib.reduce_sum(lib.sin(t * (0.5 + 0.25 * i))) for i, t in enumerate(flat)]
            )
            gs = lib.gradients(loss, list(xs) + variables)
            gs = [lib.convert_to_tensor(t) if isinstance(t, lib.IndexedSlices) else t for t in gs]
        with lib.Session(graph=g) as sess:
            _initialize(lib, sess)
            feed = {g.get_tensor_by_name(k): v for k, v in (feeds or {}).items()}
            values = sess.run(flat + [t for t in gs if t is not None], feed)
        shapes = [t.shape.as_list() if t.shape.ndims is not None else None for t in flat]
        names = [t.name for t in flat]
        return signature, names, shapes, [t is None for t in gs], values


def compare(tf, tf_cells, build, grads=True, feeds=None, names=True, rtol=None):
    """The same variables, static shapes, values and gradients (with respect to the
    inputs and every variable) from TF and ferroflow."""
    want = _run(tf, tf_cells, build, grads, feeds)
    got = _run(ff, ff.nn.rnn_cell, build, grads, feeds)
    assert got[0] == want[0], "variable names and shapes"
    if names:
        assert got[1] == want[1], "tensor names"
    assert got[2] == want[2], "static shapes"
    assert got[3] == want[3], "which gradients are None"
    assert len(got[4]) == len(want[4])
    for i, (a, b) in enumerate(zip(want[4], got[4], strict=True)):
        a, b = np.asarray(a), np.asarray(b)
        assert (b.dtype, b.shape) == (a.dtype, a.shape), i
        tol = rtol or (1e-5 if a.dtype == np.float32 else 1e-12)
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol, err_msg=f"fetch {i}")
    return want


# -- cells, one step -------------------------------------------------------------------
def _lib(cells):
    """The library whose cells `cells` are."""
    return ff if cells is ff.nn.rnn_cell else pytest.importorskip("tensorflow.compat.v1")


def _custom_cell(cells):
    """A TF-1.x style cell: its `call` makes its variable with `tf.get_variable`."""
    lib = _lib(cells)

    class MinimalCell(cells.RNNCell):
        @property
        def state_size(self):
            return 4

        @property
        def output_size(self):
            return 4

        def call(self, inputs, state):
            w = lib.get_variable("w", [int(inputs.shape[1]) + 4, 4])
            out = lib.tanh(lib.matmul(lib.concat([inputs, state], 1), w))
            return out, out + state

    return MinimalCell()


CELLS = {
    "basic_rnn": lambda c: c.BasicRNNCell(4),
    "basic_rnn_relu": lambda c: c.BasicRNNCell(3, activation="relu"),
    "basic_lstm": lambda c: c.BasicLSTMCell(4, forget_bias=0.5),
    "basic_lstm_concat": lambda c: c.BasicLSTMCell(3, state_is_tuple=False),
    "lstm": lambda c: c.LSTMCell(4),
    "lstm_peep_clip_proj": lambda c: c.LSTMCell(
        4, use_peepholes=True, cell_clip=0.2, num_proj=3, proj_clip=0.1, forget_bias=0.3
    ),
    "lstm_concat_proj": lambda c: c.LSTMCell(3, num_proj=2, state_is_tuple=False),
    "lstm_shards": lambda c: c.LSTMCell(4, num_unit_shards=2, num_proj=3, num_proj_shards=2),
    "gru": lambda c: c.GRUCell(4),
    "gru_initializers": lambda c: c.GRUCell(
        3,
        kernel_initializer=_lib(c).orthogonal_initializer(seed=1),
        bias_initializer=_lib(c).constant_initializer(0.3),
    ),
    "custom": _custom_cell,
    "multi": lambda c: c.MultiRNNCell([c.BasicLSTMCell(3), c.GRUCell(2), c.LSTMCell(2)]),
    "multi_concat": lambda c: c.MultiRNNCell(
        [c.BasicRNNCell(3), c.GRUCell(2)], state_is_tuple=False
    ),
    "dropout_keep_1": lambda c: c.DropoutWrapper(
        c.BasicLSTMCell(3), input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0
    ),
    "residual": lambda c: c.ResidualWrapper(c.BasicRNNCell(5)),
    "device": lambda c: c.DeviceWrapper(c.GRUCell(3), "/cpu:0"),
    "multi_wrapped": lambda c: c.MultiRNNCell(
        [c.ResidualWrapper(c.BasicRNNCell(5)), c.DropoutWrapper(_custom_cell(c))]
    ),
}
CELL_CASES = [(kind, "float32") for kind in sorted(CELLS)] + [
    (kind, "float64") for kind in ("basic_lstm", "lstm_peep_clip_proj", "gru", "multi")
]


@pytest.mark.parametrize(("kind", "dtype"), CELL_CASES)
def test_cell_steps(tf, tf_cells, kind, dtype):
    """Two steps of a cell from its zero state (the second reuses the variables)."""

    def build(lib, cells):
        x = lib.constant(X[:, 0].astype(dtype))
        cell = CELLS[kind](cells)
        zero = cell.zero_state(3, lib.as_dtype(dtype))
        out1, state1 = cell(x, zero)
        out2, state2 = cell(x * 2.0, state1)
        return [zero, out1, state1, out2, state2], [x]

    compare(tf, tf_cells, build)


def test_scope_argument(tf, tf_cells):
    """`cell(inputs, state, scope=...)`: TF's variable and op names, first call and later."""

    def build(lib, cells):
        x = lib.constant(X[:, 0])
        multi = cells.MultiRNNCell([cells.BasicLSTMCell(2), cells.GRUCell(2)])
        basic = cells.BasicRNNCell(2)
        out, state = multi(x, multi.zero_state(3, lib.float32), scope="dec")
        out, state = multi(x, state, scope="dec")
        with lib.variable_scope("outer"):
            out2, _ = basic(x, basic.zero_state(3, lib.float32), scope="enc")
            out3, _ = basic(x, out2)
        return [out, state, out2, out3], [x]

    compare(tf, tf_cells, build)


@pytest.mark.parametrize("kind", ["multi", "multi_wrapped", "lstm_shards", "custom"])
def test_cell_properties_and_weights(tf, tf_cells, kind):
    """`state_size`, `output_size` and the cell's weight lists are TF's."""

    def describe(lib, cells):
        with lib.Graph().as_default():
            cell = CELLS[kind](cells)
            cell(lib.zeros([3, 5]), cell.zero_state(3, lib.float32))
            return (
                cell.state_size,
                cell.output_size,
                [v.name for v in cell.trainable_weights],
                [v.name for v in cell.non_trainable_weights],
            )

    assert describe(ff, ff.nn.rnn_cell) == describe(tf, tf_cells)


def test_namespaces(tf_cells):
    """The cells are where TF 1.x has them: `tf.nn.rnn_cell`, `tf.contrib.rnn`."""
    cells = ff.nn.rnn_cell
    assert ff.contrib.rnn.BasicLSTMCell is cells.BasicLSTMCell
    assert ff.compat.v1.nn.rnn_cell.GRUCell is cells.GRUCell
    assert ff.contrib.rnn.static_rnn is ff.nn.static_rnn
    assert set(cells.__all__) <= set(dir(tf_cells))
    assert cells.LSTMStateTuple(1, 2) == (1, 2)


def test_zero_state_with_tensor_batch_and_shapes(tf, tf_cells):
    def build(lib, cells):
        batch = lib.placeholder(lib.int32, [], name="batch")
        cell = cells.MultiRNNCell([cells.BasicLSTMCell(2), cells.GRUCell(3)])
        return [cell.zero_state(batch, lib.float64), cell.zero_state(2, lib.float32)], []

    compare(tf, tf_cells, build, grads=False, feeds={"batch:0": 3})


# -- dynamic_rnn ---------------------------------------------------------------------
DYNAMIC = {
    "lstm": ("basic_lstm", {}),
    "lstm_lengths": ("basic_lstm", {"sequence_length": LENGTHS}),
    "lstm_time_major_lengths": ("lstm_peep_clip_proj", {"time_major": True, "lengths": 1}),
    "gru_lengths_int64": ("gru", {"sequence_length": np.array(LENGTHS, np.int64)}),
    "multi_lengths_initial_state": ("multi", {"sequence_length": LENGTHS, "initial": True}),
    "concat_states": ("multi_concat", {"sequence_length": [2, 2, 0]}),
    "wrappers": ("multi_wrapped", {"sequence_length": LENGTHS}),
}


DYNAMIC_CASES = [(case, "float32") for case in sorted(DYNAMIC)] + [
    ("lstm_lengths", "float64"),
    ("multi_lengths_initial_state", "float64"),
]


@pytest.mark.parametrize(("case", "dtype"), DYNAMIC_CASES)
def test_dynamic_rnn(tf, tf_cells, case, dtype):
    kind, options = DYNAMIC[case]
    options = dict(options)
    time_major = options.pop("time_major", False)
    initial = options.pop("initial", False)
    if options.pop("lengths", None):
        options["sequence_length"] = LENGTHS

    def build(lib, cells):
        data = np.transpose(X, (1, 0, 2)) if time_major else X
        x = lib.constant(data.astype(dtype))
        cell = CELLS[kind](cells)
        kwargs = dict(options, time_major=time_major)
        if initial:
            zero = cell.zero_state(3, lib.as_dtype(dtype))
            kwargs["initial_state"] = _plus(zero)
        else:
            kwargs["dtype"] = lib.as_dtype(dtype)
        outputs, state = lib.nn.dynamic_rnn(cell, x, **kwargs)
        return [outputs, state], [x]

    compare(tf, tf_cells, build, names=False)


def _plus(structure):
    """`structure` + 0.1, leaf by leaf (tuples and namedtuples kept)."""
    if hasattr(structure, "_fields"):
        return type(structure)(*[_plus(s) for s in structure])
    if isinstance(structure, tuple):
        return tuple(_plus(s) for s in structure)
    return structure + 0.1


def test_dynamic_rnn_unknown_batch_and_time(tf, tf_cells):
    """Fed inputs of unknown batch and time: the static shapes and values are TF's."""

    def build(lib, cells):
        x = lib.placeholder(lib.float32, [None, None, 5], name="x")
        lengths = lib.placeholder(lib.int32, [None], name="lengths")
        cell = cells.MultiRNNCell([cells.GRUCell(3), cells.BasicLSTMCell(2)])
        outputs, state = lib.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=lib.float32)
        return [outputs, state], [x]

    compare(tf, tf_cells, build, names=False, feeds={"x:0": X, "lengths:0": [0, 2, 3]})


def test_dynamic_rnn_nested_inputs_and_scope(tf, tf_cells):
    """A tuple of inputs (concatenated by a custom cell) and a given scope."""

    def build(lib, cells):
        class ConcatCell(cells.BasicRNNCell):
            def __call__(self, inputs, state, scope=None):
                return super().__call__(lib.concat(list(inputs), 1), state, scope=scope)

        a, b = lib.constant(X[:, :, :2]), lib.constant(X[:, :, 2:])
        with lib.variable_scope("model"):
            outputs, state = lib.nn.dynamic_rnn(
                ConcatCell(3), (a, b), dtype=lib.float32, scope="encoder"
            )
        return [outputs, state], [a, b]

    compare(tf, tf_cells, build, names=False)


# -- static and bidirectional RNNs ---------------------------------------------------
@pytest.mark.parametrize("lengths", [None, LENGTHS])
def test_static_rnn(tf, tf_cells, lengths):
    def build(lib, cells):
        xs = [lib.constant(X[:, t]) for t in range(4)]
        cell = cells.MultiRNNCell([cells.BasicLSTMCell(3), cells.GRUCell(2)])
        outputs, state = lib.nn.static_rnn(cell, xs, dtype=lib.float32, sequence_length=lengths)
        return [outputs, state], xs

    compare(tf, tf_cells, build)


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize("lengths", [None, LENGTHS])
def test_bidirectional_dynamic_rnn(tf, tf_cells, time_major, lengths):
    def build(lib, cells):
        x = lib.constant(np.transpose(X, (1, 0, 2)) if time_major else X)
        outputs, states = lib.nn.bidirectional_dynamic_rnn(
            cells.BasicLSTMCell(3),
            cells.GRUCell(2),
            x,
            sequence_length=lengths,
            dtype=lib.float32,
            time_major=time_major,
        )
        return [outputs, states], [x]

    compare(tf, tf_cells, build, names=False)


@pytest.mark.parametrize("lengths", [None, LENGTHS])
def test_static_bidirectional_rnn(tf, tf_cells, lengths):
    def build(lib, cells):
        xs = [lib.constant(X[:, t]) for t in range(4)]
        outputs, fw, bw = lib.nn.static_bidirectional_rnn(
            cells.GRUCell(3), cells.BasicRNNCell(2), xs, dtype=lib.float32, sequence_length=lengths
        )
        return [outputs, fw, bw], xs

    compare(tf, tf_cells, build, names=lengths is None)


def test_stack_bidirectional_dynamic_rnn(tf, tf_cells):
    """`tf.contrib.rnn.stack_bidirectional_dynamic_rnn` against TF 1.x's construction."""

    def build(lib, cells):
        x = lib.constant(X)
        fw = [cells.BasicLSTMCell(3), cells.GRUCell(2)]
        bw = [cells.GRUCell(2), cells.BasicRNNCell(3)]
        if lib is ff:
            return list(
                ff.contrib.rnn.stack_bidirectional_dynamic_rnn(
                    fw, bw, x, dtype=ff.float32, sequence_length=LENGTHS
                )
            ), [x]
        # TF 1.x's contrib/rnn/python/ops/rnn.py, layer by layer.
        prev, states_fw, states_bw = x, [], []
        with lib.variable_scope("stack_bidirectional_rnn"):
            for i, (f, b) in enumerate(zip(fw, bw, strict=True)):
                with lib.variable_scope(f"cell_{i}"):
                    outputs, (sf, sb) = lib.nn.bidirectional_dynamic_rnn(
                        f, b, prev, sequence_length=LENGTHS, dtype=lib.float32
                    )
                    prev = lib.concat(outputs, 2)
                states_fw.append(sf)
                states_bw.append(sb)
        return [prev, tuple(states_fw), tuple(states_bw)], [x]

    compare(tf, tf_cells, build, names=False)


def test_raw_rnn(tf, tf_cells):
    """TF's docstring example: `dynamic_rnn` written with `raw_rnn`, plus a loop state."""

    def build(lib, cells):
        inputs = lib.constant(np.transpose(X, (1, 0, 2)))
        lengths = lib.constant(LENGTHS)
        inputs_ta = lib.TensorArray(dtype=lib.float32, size=4).unstack(inputs)
        cell = cells.LSTMCell(3)

        def loop_fn(time, cell_output, cell_state, loop_state):
            if cell_output is None:
                next_state = cell.zero_state(3, lib.float32)
                next_loop_state = lib.constant(0.0)
            else:
                next_state = cell_state
                next_loop_state = loop_state + lib.reduce_sum(cell_output)
            finished = time >= lengths
            next_input = lib.cond(
                lib.reduce_all(finished),
                lambda: lib.zeros([3, 5], dtype=lib.float32),
                lambda: inputs_ta.read(lib.minimum(time, 3)),
            )
            return finished, next_input, next_state, cell_output, next_loop_state

        outputs_ta, final_state, loop_state = lib.nn.raw_rnn(cell, loop_fn)
        return [outputs_ta.stack(), final_state, loop_state], [inputs]

    compare(tf, tf_cells, build, names=False)


def test_static_state_saving_rnn(tf, tf_cells):
    class Saver:
        """A state saver: states from constants, saved into (non-trainable) variables."""

        def __init__(self, lib):
            self.lib = lib

        def state(self, name):
            return self.lib.constant(_value(name, [3, 2], np.float32), name=name)

        def save_state(self, name, value):
            with self.lib.variable_scope("saved"):
                var = self.lib.get_variable(name, [3, 2], trainable=False)
            return var.assign(value)

    def build(lib, cells):
        xs = [lib.constant(X[:, t]) for t in range(3)]
        outputs, state = lib.nn.static_state_saving_rnn(
            cells.BasicLSTMCell(2), xs, Saver(lib), ("c", "h"), sequence_length=[3, 1, 2]
        )
        return [outputs, state], xs

    compare(tf, tf_cells, build)


# -- dropout -------------------------------------------------------------------------
DROPOUTS = {
    "per_step": {"input_keep_prob": 0.7, "output_keep_prob": 0.6, "state_keep_prob": 0.8},
    "variational": {
        "input_keep_prob": 0.7,
        "output_keep_prob": 0.6,
        "state_keep_prob": 0.8,
        "variational_recurrent": True,
        "input_size": 5,
    },
    "tensor_prob": {"output_keep_prob": "tensor"},
    "state_filter": {"state_keep_prob": 0.5, "dropout_state_filter_visitor": lambda s: True},
}


@pytest.mark.parametrize("case", sorted(DROPOUTS))
def test_dropout_wrapper_seeded(tf, tf_cells, case):
    """Seeded dropout masks are TF's (ferroflow's seeded random ops give TF's values).

    Per-step masks are compared through `static_rnn`: inside `dynamic_rnn`'s loop TF
    hands a random op's draws to iterations in its executor's order (reversed, when
    the mask does not depend on the loop state), ferroflow in iteration order.
    Variational masks are drawn once, outside the loop, so `dynamic_rnn` is exact.
    """
    options = dict(DROPOUTS[case])
    variational = options.get("variational_recurrent", False)

    def build(lib, cells):
        kwargs = dict(options)
        if kwargs.get("output_keep_prob") == "tensor":
            kwargs["output_keep_prob"] = lib.placeholder_with_default(0.5, [])
        cell = cells.DropoutWrapper(cells.BasicLSTMCell(3), seed=11, dtype=lib.float32, **kwargs)
        if variational:
            x = lib.constant(X)
            outputs, state = lib.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS, dtype=lib.float32)
            return [outputs, state], [x]
        xs = [lib.constant(X[:, t]) for t in range(3)]
        outputs, state = lib.nn.static_rnn(cell, xs, sequence_length=LENGTHS, dtype=lib.float32)
        return [outputs, state], xs

    want = compare(tf, tf_cells, build, names=not variational)
    assert any(np.any(np.asarray(v) == 0) for v in want[4][:3])  # something was dropped


@pytest.mark.parametrize("rnn", ["static_rnn", "dynamic_rnn"])
def test_training_steps(tf, tf_cells, rnn):
    """Three SGD steps of a stacked LSTM/GRU regression: the losses are TF's."""

    def train(lib, cells):
        with lib.Graph().as_default():
            x = lib.constant(X)
            cell = cells.MultiRNNCell([cells.LSTMCell(4, use_peepholes=True), cells.GRUCell(3)])
            inputs = lib.unstack(x, axis=1) if rnn == "static_rnn" else x
            _, state = getattr(lib.nn, rnn)(
                cell, inputs, sequence_length=LENGTHS, dtype=lib.float32
            )
            loss = lib.reduce_mean(lib.square(state[-1] - 0.5))
            step = lib.train.GradientDescentOptimizer(0.5).minimize(loss)
            with lib.Session() as sess:
                _initialize(lib, sess)
                return [sess.run([loss, step])[0] for _ in range(3)] + [sess.run(loss)]

    want = train(tf, tf_cells)
    np.testing.assert_allclose(train(ff, ff.nn.rnn_cell), want, rtol=1e-5)
    assert want[-1] < want[0]


# -- checkpoints ---------------------------------------------------------------------
def _lstm_model(lib, cells):
    x = lib.placeholder(lib.float32, [None, 4, 5], name="x")
    cell = cells.MultiRNNCell([cells.LSTMCell(3, use_peepholes=True), cells.GRUCell(2)])
    outputs, state = lib.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS, dtype=lib.float32)
    return x, _flat([outputs, state])


def _run_from_checkpoint(lib, cells, path, write=False):
    g = lib.Graph()
    with g.as_default():
        x, fetches = _lstm_model(lib, cells)
        saver = lib.train.Saver()
        with lib.Session(graph=g) as sess:
            if write:
                _initialize(lib, sess)
                saver.save(sess, path)
            else:
                saver.restore(sess, path)
            return sess.run(fetches, {x: X})


@pytest.mark.parametrize("writer", ["tf", "ff"])
def test_checkpoint_round_trip(tf, tf_cells, tmp_path, writer):
    """A checkpoint of an RNN model written by one library restores in the other."""
    path = str(tmp_path / "model.ckpt")
    libs = {"tf": (tf, tf_cells), "ff": (ff, ff.nn.rnn_cell)}
    reader = "ff" if writer == "tf" else "tf"
    want = _run_from_checkpoint(*libs[writer], path, write=True)
    got = _run_from_checkpoint(*libs[reader], path)
    for a, b in zip(want, got, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    names = {name for name, _ in ff.train.list_variables(path)}
    assert "rnn/multi_rnn_cell/cell_0/lstm_cell/w_f_diag" in names
    assert "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/kernel" in names


# -- errors --------------------------------------------------------------------------
def _outcome(lib, cells, fn):
    g = lib.Graph()
    with g.as_default():
        try:
            t = fn(lib, cells)
            if isinstance(t, lib.Tensor):
                with lib.Session(graph=g) as sess:
                    sess.run(lib.global_variables_initializer())
                    sess.run(t)
            return "ok"
        except Exception as e:
            message = op_error_message(e)
            message = re.sub(r" at 0x[0-9a-f]+", "", message)
            message = re.sub(r"<[\w.]+\.(\w+) object", r"<\1 object", message)
            return type(e).__name__, message


X2 = X[:, :3]
ERRORS = {
    "no_dtype": lambda lib, c: lib.nn.dynamic_rnn(c.BasicRNNCell(2), lib.constant(X2)),
    "lengths_rank_2": lambda lib, c: lib.nn.dynamic_rnn(
        c.BasicRNNCell(2), lib.constant(X2), sequence_length=[[1], [2], [3]], dtype=lib.float32
    ),
    "lengths_fed_wrong_size": lambda lib, c: lib.nn.dynamic_rnn(
        c.BasicRNNCell(2),
        lib.constant(X2),
        sequence_length=lib.placeholder_with_default([1, 2], [None]),
        dtype=lib.float32,
    )[0],
    "lengths_strings": lambda lib, c: lib.nn.dynamic_rnn(
        c.BasicRNNCell(2), lib.constant(X2), sequence_length=["a", "b", "c"], dtype=lib.float32
    )[0],
    "static_lengths_rank_2": lambda lib, c: lib.nn.static_rnn(
        c.BasicRNNCell(2), [lib.constant(X[:, 0])], sequence_length=[[1]], dtype=lib.float32
    ),
    "not_a_cell": lambda lib, c: lib.nn.dynamic_rnn(lambda a, b: a, lib.constant(X2), dtype=1),
    "static_inputs_not_a_list": lambda lib, c: lib.nn.static_rnn(
        c.BasicRNNCell(2), lib.constant(X[0]), dtype=lib.float32
    ),
    "static_no_inputs": lambda lib, c: lib.nn.static_rnn(c.BasicRNNCell(2), [], dtype=lib.float32),
    "multi_no_cells": lambda lib, c: c.MultiRNNCell([]),
    "multi_not_a_list": lambda lib, c: c.MultiRNNCell(c.GRUCell(2)),
    "multi_tuple_states_concat": lambda lib, c: c.MultiRNNCell(
        [c.BasicLSTMCell(2)], state_is_tuple=False
    ),
    "keep_prob_above_1": lambda lib, c: c.DropoutWrapper(c.GRUCell(2), input_keep_prob=1.5),
    "variational_no_dtype": lambda lib, c: c.DropoutWrapper(
        c.GRUCell(2), variational_recurrent=True
    ),
    "variational_no_input_size": lambda lib, c: c.DropoutWrapper(
        c.GRUCell(2), input_keep_prob=0.5, variational_recurrent=True, dtype=lib.float32
    ),
    "filter_not_callable": lambda lib, c: c.DropoutWrapper(
        c.GRUCell(2), dropout_state_filter_visitor=3
    ),
    "int_cell_dtype": lambda lib, c: c.GRUCell(2, dtype=lib.int32),
    "int_inputs": lambda lib, c: lib.nn.dynamic_rnn(
        c.BasicRNNCell(2), lib.constant(X2.astype(np.int32)), dtype=lib.int32
    ),
    "unknown_depth": lambda lib, c: lib.nn.dynamic_rnn(
        c.BasicRNNCell(2), lib.placeholder(lib.float32, [2, 3, None]), dtype=lib.float32
    ),
    "rank_2_inputs": lambda lib, c: lib.nn.dynamic_rnn(
        c.BasicRNNCell(2), lib.constant(X[0]), dtype=lib.float32
    ),
    "time_steps_differ": lambda lib, c: lib.nn.dynamic_rnn(
        c.BasicRNNCell(2), (lib.constant(X), lib.constant(X2)), dtype=lib.float32
    ),
    "state_tuple_dtypes": lambda lib, c: (
        c.LSTMStateTuple(lib.zeros([1]), lib.zeros([1], lib.float64)).dtype
    ),
    "loop_fn_not_callable": lambda lib, c: lib.nn.raw_rnn(c.BasicRNNCell(2), 3),
}
# Shape-inference errors: TF's class and the start of its message (the rest names
# nodes in each library's own format).
SHAPE_ERRORS = {
    "state_depth": (
        lambda lib, c: lib.nn.dynamic_rnn(
            c.BasicRNNCell(2), lib.constant(X2), initial_state=lib.zeros([3, 3])
        )[0],
        "Dimensions must be equal, but are 8 and 7",
    ),
    "state_batch": (
        lambda lib, c: lib.nn.dynamic_rnn(
            c.BasicRNNCell(2), lib.constant(X2), initial_state=lib.zeros([2, 2])
        )[0],
        "Dimension 0 in both shapes must be equal, but are 3 and 2.",
    ),
    "state_not_a_tuple": (
        lambda lib, c: lib.nn.dynamic_rnn(
            c.BasicLSTMCell(2), lib.constant(X2), initial_state=lib.zeros([3, 4])
        )[0],
        "",
    ),
    "lengths_static_wrong_size": (
        lambda lib, c: lib.nn.dynamic_rnn(
            c.BasicRNNCell(2), lib.constant(X2), sequence_length=[1, 2], dtype=lib.float32
        )[0],
        "Dimension",
    ),
    "cell_input_rank_3": (
        lambda lib, c: c.BasicLSTMCell(2)(
            lib.constant(X), c.BasicLSTMCell(2).zero_state(3, lib.float32)
        ),
        "Input 0 of layer basic_lstm_cell_1 is incompatible with the layer: expected ndim=2, "
        "found ndim=3.",
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(tf, tf_cells, case):
    want = _outcome(tf, tf_cells, ERRORS[case])
    assert want != "ok"
    assert _outcome(ff, ff.nn.rnn_cell, ERRORS[case]) == want


@pytest.mark.parametrize("case", sorted(SHAPE_ERRORS))
def test_shape_errors(tf, tf_cells, case):
    fn, start = SHAPE_ERRORS[case]
    want = _outcome(tf, tf_cells, fn)
    got = _outcome(ff, ff.nn.rnn_cell, fn)
    assert got[0] == want[0]
    assert want[1].startswith(start) and got[1].startswith(start), (want, got)
