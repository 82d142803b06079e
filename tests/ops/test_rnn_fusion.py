"""`dynamic_rnn` over LSTM cells as one `BlockLSTM` op per layer (ops/rnn_fusion.py).

The same TF-1.x programs run in TF (its while loop) and in ferroflow (the fused op):
outputs, final states and the gradients for the inputs, the initial state and every
variable must agree, for single and stacked cells, peepholes, `sequence_length`
(zero lengths included), both time layouts and a given initial state. Cells the
fused op does not compute stay in the loop, and `FERROFLOW_FUSED_RNN=0` keeps every
cell there.
"""

import zlib

import numpy as np
import pytest

import ferroflow as ff

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]

B, T, DEPTH = 4, 7, 3
LENGTHS = [7, 3, 0, 5]


def _value(name, shape):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return rng.uniform(-0.8, 0.8, shape).astype(np.float32)


def _cells(cells, kind):
    if kind == "basic":
        return cells.BasicLSTMCell(5, forget_bias=0.3)
    if kind == "peephole":
        return cells.LSTMCell(5, use_peepholes=True)
    # Dropout wrappers that drop nothing: the values stay TF's exactly.
    first = cells.DropoutWrapper(cells.BasicLSTMCell(5), input_keep_prob=1.0)
    return cells.MultiRNNCell([first, cells.LSTMCell(6, use_peepholes=True)])


def _run(lib, cells, kind, lengths, time_major, given_state):
    g = lib.Graph()
    with g.as_default():
        shape = [T, B, DEPTH] if time_major else [B, T, DEPTH]
        x = lib.constant(_value("inputs", shape))
        cell = _cells(cells, kind)
        initial = None
        leaves = []
        if given_state:
            sizes = [5, 6] if kind == "stacked" else [5]
            states = []
            for i, n in enumerate(sizes):
                c = lib.constant(_value(f"c{i}", [B, n]))
                h = lib.constant(_value(f"h{i}", [B, n]))
                states.append(cells.LSTMStateTuple(c, h))
                leaves += [c, h]
            initial = tuple(states) if kind == "stacked" else states[0]
        outputs, state = lib.nn.dynamic_rnn(
            cell,
            x,
            sequence_length=lengths,
            initial_state=initial,
            dtype=lib.float32,
            time_major=time_major,
        )
        finals = [state] if kind != "stacked" else list(state)
        variables = sorted(lib.global_variables(), key=lambda v: v.name)
        loss = lib.reduce_sum(lib.sin(outputs)) + sum(
            lib.reduce_sum(s.c * s.h) + lib.reduce_sum(s.c) for s in finals
        )
        gs = lib.gradients(loss, [x, *leaves, *variables])
        with lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            for var in variables:
                sess.run(var.assign(_value(var.op.name, var.shape.as_list())))
            values = sess.run([outputs, *[t for s in finals for t in s], *gs])
    types = {op.type for op in g.get_operations()}
    return [(v.name, v.shape.as_list()) for v in variables], values, types


@pytest.mark.tf_oracle
@pytest.mark.parametrize("kind", ["basic", "peephole", "stacked"])
@pytest.mark.parametrize("lengths", [None, LENGTHS])
@pytest.mark.parametrize(("time_major", "given_state"), [(False, False), (True, True)])
def test_fused_layers_equal_tf_s_loop(tf1, kind, lengths, time_major, given_state):
    from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl

    want_vars, want, _ = _run(tf1, rnn_cell_impl, kind, lengths, time_major, given_state)
    got_vars, got, types = _run(ff, ff.nn.rnn_cell, kind, lengths, time_major, given_state)
    assert "BlockLSTM" in types and "While" not in types
    assert got_vars == want_vars
    for a, b in zip(want, got, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=3e-5, atol=3e-5)


def test_fused_and_looped_agree(monkeypatch):
    fused = _run(ff, ff.nn.rnn_cell, "stacked", LENGTHS, False, True)
    monkeypatch.setenv("FERROFLOW_FUSED_RNN", "0")
    looped = _run(ff, ff.nn.rnn_cell, "stacked", LENGTHS, False, True)
    assert "While" in looped[2] and "BlockLSTM" not in looped[2]
    assert fused[0] == looped[0]
    for a, b in zip(looped[1], fused[1], strict=True):
        np.testing.assert_allclose(b, a, rtol=3e-5, atol=3e-5)


@pytest.mark.parametrize(
    "make",
    [
        lambda c: c.LSTMCell(5, num_proj=3),
        lambda c: c.LSTMCell(5, cell_clip=0.5),
        lambda c: c.BasicLSTMCell(5, activation="relu"),
        lambda c: c.GRUCell(5),
        lambda c: c.DropoutWrapper(c.BasicLSTMCell(5), state_keep_prob=0.5),
        lambda c: c.MultiRNNCell([c.BasicLSTMCell(5), c.GRUCell(5)]),
    ],
)
def test_other_cells_stay_in_the_loop(make):
    with ff.Graph().as_default() as g:
        x = ff.zeros([B, T, DEPTH])
        ff.nn.dynamic_rnn(make(ff.nn.rnn_cell), x, dtype=ff.float32)
        types = {op.type for op in g.get_operations()}
    assert "While" in types and "BlockLSTM" not in types


def test_float64_stays_in_the_loop():
    with ff.Graph().as_default() as g:
        x = ff.zeros([B, T, DEPTH], ff.float64)
        ff.nn.dynamic_rnn(ff.nn.rnn_cell.BasicLSTMCell(5), x, dtype=ff.float64)
        types = {op.type for op in g.get_operations()}
    assert "While" in types and "BlockLSTM" not in types


def test_mismatched_state_is_tf_s_error():
    # The fused path leaves a state of the wrong size to the loop, which raises TF's error.
    with ff.Graph().as_default():
        x = ff.zeros([B, T, DEPTH])
        bad = ff.nn.rnn_cell.LSTMStateTuple(ff.zeros([B, 4]), ff.zeros([B, 4]))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 7 and 8"):
            ff.nn.dynamic_rnn(ff.nn.rnn_cell.BasicLSTMCell(5), x, initial_state=bad)


def test_cell_reused_after_the_fused_rnn():
    # The fused path builds the cell where its loop call would: a later step reuses it.
    with ff.Graph().as_default():
        x = ff.constant(_value("inputs", [B, T, DEPTH]))
        cell = ff.nn.rnn_cell.BasicLSTMCell(5)
        _, state = ff.nn.dynamic_rnn(cell, x, dtype=ff.float32)
        before = list(ff.global_variables())
        h, _ = cell(x[:, -1], state)
        assert ff.global_variables() == before
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            sess.run(h)


@pytest.mark.parametrize("variational", [False, True])
def test_output_dropout_over_the_whole_sequence(variational):
    # The fused path drops whole sequences: each output is the undropped output
    # scaled by 1 / keep, or zero, about half of them zero; variational masks are the
    # same at every step and batch row.
    batch, units = 32, 8
    with ff.Graph().as_default() as g:
        ff.set_random_seed(5)
        x = ff.constant(_value("inputs", [batch, T, DEPTH]))
        cell = ff.nn.rnn_cell.BasicLSTMCell(units)
        kw = {"variational_recurrent": True, "dtype": ff.float32} if variational else {}
        wrapped = ff.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=0.5, seed=3, **kw)
        dropped, _ = ff.nn.dynamic_rnn(wrapped, x, dtype=ff.float32, scope="rnn")
        plain, _ = ff.nn.dynamic_rnn(cell, x, dtype=ff.float32, scope="rnn")
        assert "While" not in {op.type for op in g.get_operations()}
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            d, p = sess.run([dropped, plain])
    kept = d != 0
    np.testing.assert_allclose(d[kept], 2 * p[kept], rtol=1e-5)
    assert 0.35 < kept.mean() < 0.65
    if variational:
        # One mask per unit for all rows and steps.
        assert (kept == kept[:1, :1, :]).all()
