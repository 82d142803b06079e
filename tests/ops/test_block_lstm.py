"""The fused LSTM over a sequence (`BlockLSTM` op, `tf.contrib.rnn.LSTMBlockFusedCell`,
the fused-cell adaptors) against TF.

The ops are compared with TF's own kernels (`tf.raw_ops.BlockLSTM` and
`BlockLSTMGrad`: every output, with peepholes, clipping and a `seq_len_max` short of
the sequence). The cell, which TF 2.x no longer ships, is compared with TF's
`LSTMCell` under a time-major `dynamic_rnn`, which computes the same steps on the
same variables (and the same masking past `sequence_length`): outputs, final states
and the gradients for the inputs and every variable. `TimeReversedFusedRNN` is
compared with the backward half of TF's `bidirectional_dynamic_rnn`.
"""

import zlib

import numpy as np
import pytest

import ferroflow as ff
from ferroflow.ops import rnn_ops

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"), pytest.mark.tf_oracle]

T, B, DEPTH, H = 6, 3, 5, 4
LENGTHS = [6, 2, 4]
ORDER = ["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"]


def _value(name, shape, dtype=np.float32):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return rng.uniform(-0.8, 0.8, shape).astype(dtype)


def _op_inputs():
    shapes = {"x": [T, B, DEPTH], "cs_prev": [B, H], "h_prev": [B, H], "w": [DEPTH + H, 4 * H]}
    shapes.update({"wci": [H], "wcf": [H], "wco": [H], "b": [4 * H]})
    return {k: _value(k, s) * (3.0 if k == "cs_prev" else 1.0) for k, s in shapes.items()}


@pytest.mark.parametrize("steps", [T, 4, 0])
@pytest.mark.parametrize(("peephole", "clip"), [(False, -1.0), (True, 0.5), (True, -1.0)])
def test_ops_match_tf_kernels(tf1, steps, peephole, clip):
    import tensorflow as tf2

    v = _op_inputs()
    grads = {"cs_grad": _value("cs_grad", [T, B, H]), "h_grad": _value("h_grad", [T, B, H])}
    attrs = dict(forget_bias=0.7, cell_clip=clip, use_peephole=peephole)
    names = ["i", "cs", "f", "o", "ci", "co", "h"]

    with tf1.Graph().as_default():
        inputs = {k: tf1.constant(v[k]) for k in ORDER}
        seq = tf1.constant(steps, tf1.int64)
        want = tf2.raw_ops.BlockLSTM(seq_len_max=seq, **inputs, **attrs)
        want_grad = tf2.raw_ops.BlockLSTMGrad(
            seq_len_max=seq,
            **inputs,
            **dict(zip(names, want, strict=True)),
            **{k: tf1.constant(g) for k, g in grads.items()},
            use_peephole=peephole,
        )
        with tf1.Session() as sess:
            want, want_grad = sess.run([list(want), list(want_grad)])

    with ff.Graph().as_default() as g:
        t = {k: ff.constant(v[k]) for k in ORDER}
        outs = rnn_ops._block_lstm_op(
            steps, *[t[k] for k in ORDER], forget_bias=0.7, cell_clip=clip, use_peephole=peephole
        )
        grad_op = g._create_op(
            "BlockLSTMGrad",
            [ff.constant(steps, ff.int64)] + [t[k] for k in ORDER] + list(outs)
            + [ff.constant(x) for x in grads.values()],
            {"use_peephole": peephole},
        )  # fmt: skip
        assert [o.shape.as_list() for o in outs] == [[T, B, H]] * 7
        with ff.Session() as sess:
            got, got_grad = sess.run([list(outs), list(grad_op.outputs)])
    for name, a, b in zip(names, want, got, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        # TF leaves the gates of steps past seq_len_max unwritten; cs and h are zeros.
        keep = T if name in ("cs", "h") else steps
        np.testing.assert_allclose(b[:keep], a[:keep], rtol=2e-5, atol=2e-5, err_msg=name)
    for a, b in zip(want_grad, got_grad, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=5e-5, atol=5e-5)


def _run(lib, build, keep=""):
    """Runs `build`'s RNN with seeded variable values: the variables' names and shapes
    and `[outputs, c, h, d_inputs, d_variables...]` for the variables whose names
    contain `keep`."""
    g = lib.Graph()
    with g.as_default():
        x = lib.constant(_value("inputs", [T, B, DEPTH]))
        outputs, state = build(x)
        every = lib.global_variables()
        variables = sorted((v for v in every if keep in v.name), key=lambda v: v.name)
        loss = lib.reduce_sum(lib.sin(outputs)) + lib.reduce_sum(state.c * state.h)
        gs = lib.gradients(loss, [x, *variables])
        with lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            for var in every:
                # The same values for the same variable under either cell's scope.
                sess.run(var.assign(_value(var.op.name.split("/")[-1], var.shape.as_list())))
            values = sess.run([outputs, state.c, state.h, *gs])
    return [(v.name, v.shape.as_list()) for v in variables], values


def _assert_close(want, got, tol=2e-5):
    for a, b in zip(want, got, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


@pytest.mark.parametrize("lengths", [None, LENGTHS])
@pytest.mark.parametrize("peephole", [False, True])
def test_fused_cell_equals_tf_lstm_cell(tf1, lengths, peephole):
    from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl

    def tf_build(x):
        cell = rnn_cell_impl.LSTMCell(H, use_peepholes=peephole, forget_bias=0.6)
        return tf1.nn.dynamic_rnn(
            cell, x, sequence_length=lengths, dtype=tf1.float32, time_major=True
        )

    def ff_build(x):
        cell = ff.contrib.rnn.LSTMBlockFusedCell(H, use_peephole=peephole, forget_bias=0.6)
        return cell(x, sequence_length=lengths, dtype=ff.float32)

    want_vars, want = _run(tf1, tf_build)
    got_vars, got = _run(ff, ff_build)
    # TF's LSTMBlockFusedCell names its variables lstm_fused_cell/kernel, .../bias.
    assert got_vars == [(n.replace("rnn/lstm_cell", "lstm_fused_cell"), s) for n, s in want_vars]
    _assert_close(want, got)


def test_time_reversed_fused_cell_is_tf_s_backward_direction(tf1):
    from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl

    def tf_build(x):
        fw = rnn_cell_impl.LSTMCell(H)
        bw = rnn_cell_impl.LSTMCell(H)
        (_, out), (_, state) = tf1.nn.bidirectional_dynamic_rnn(
            fw, bw, x, sequence_length=LENGTHS, dtype=tf1.float32, time_major=True
        )
        return out, state

    def ff_build(x):
        cell = ff.contrib.rnn.TimeReversedFusedRNN(ff.contrib.rnn.LSTMBlockFusedCell(H))
        out, state = cell(x, sequence_length=LENGTHS, dtype=ff.float32)
        return out, state

    want_vars, want = _run(tf1, tf_build, keep="/bw/")
    got_vars, got = _run(ff, ff_build)
    assert [s for _, s in got_vars] == [s for _, s in want_vars]
    _assert_close(want, got)


@pytest.mark.parametrize("dynamic", [False, True])
def test_adaptor_runs_the_cell_as_tf_s_rnns(tf1, dynamic):
    from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl

    def tf_build(x):
        cell = rnn_cell_impl.LSTMCell(H)
        if dynamic:
            return tf1.nn.dynamic_rnn(
                cell, x, sequence_length=LENGTHS, dtype=tf1.float32, time_major=True
            )
        out, state = tf1.nn.static_rnn(
            cell, tf1.unstack(x), sequence_length=LENGTHS, dtype=tf1.float32
        )
        return tf1.stack(out), state

    def ff_build(x):
        cell = ff.contrib.rnn.FusedRNNCellAdaptor(
            ff.nn.rnn_cell.LSTMCell(H), use_dynamic_rnn=dynamic
        )
        return cell(x, sequence_length=LENGTHS, dtype=ff.float32)

    want_vars, want = _run(tf1, tf_build)
    got_vars, got = _run(ff, ff_build)
    assert got_vars == want_vars
    _assert_close(want, got)


def test_list_inputs_give_list_outputs():
    with ff.Graph().as_default():
        steps = [ff.constant(_value(f"s{i}", [B, DEPTH])) for i in range(T)]
        cell = ff.contrib.rnn.LSTMBlockFusedCell(H)
        outputs, state = cell(steps, dtype=ff.float32)
        stacked, _ = cell(ff.stack(steps), dtype=ff.float32)
        assert isinstance(outputs, list) and len(outputs) == T
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            a, b, h = sess.run([ff.stack(outputs), stacked, state.h])
    np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_allclose(h, b[-1], rtol=1e-6)


def test_fused_cell_trains():
    # Steps of Adam on a fixed target lower the loss.
    with ff.Graph().as_default():
        ff.set_random_seed(3)
        x = ff.constant(_value("inputs", [T, B, DEPTH]))
        target = ff.constant(_value("target", [T, B, H]) * 0.5)
        outputs, _ = ff.contrib.rnn.LSTMBlockFusedCell(H, use_peephole=True)(x, dtype=ff.float32)
        loss = ff.reduce_mean(ff.square(outputs - target))
        train = ff.train.AdamOptimizer(0.05).minimize(loss)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            first = sess.run(loss)
            for _ in range(80):
                sess.run(train)
            last = sess.run(loss)
    assert last < 0.3 * first


def test_bad_input_is_tf_s_errors():
    with ff.Graph().as_default():
        v = {k: ff.constant(a) for k, a in _op_inputs().items()}
        seq = ff.placeholder(ff.int64, [])
        outs = rnn_ops._block_lstm_op(seq, *[v[k] for k in ORDER], 1.0, -1.0, False)
        with ff.Session() as sess:
            with pytest.raises(
                ff.errors.InvalidArgumentError, match="seq_len_max must be between 0 and 6 but is 7"
            ):
                sess.run(outs[6], {seq: 7})
            with pytest.raises(
                ff.errors.InvalidArgumentError,
                match="seq_len_max must be between 0 and 6 but is -1",
            ):
                sess.run(outs[6], {seq: -1})
        with pytest.raises(ValueError, match="must be rank 3"):
            rnn_ops._block_lstm_op(3, v["cs_prev"], *[v[k] for k in ORDER[1:]], 1.0, -1.0, False)
        x = ff.placeholder(ff.float32, [T, B, None])
        with pytest.raises(ValueError, match="Expecting inputs_shape"):
            ff.contrib.rnn.LSTMBlockFusedCell(H)(x, dtype=ff.float32)
        with pytest.raises(ValueError, match="Either initial_state or dtype needs to be specified"):
            ff.contrib.rnn.LSTMBlockFusedCell(H)(v["x"])
        with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
            ff.contrib.rnn.LSTMBlockFusedCell(H)(v["cs_prev"], dtype=ff.float32)
        w = ff.placeholder(ff.float32, [DEPTH + H + 1, 4 * H])
        outs = rnn_ops._block_lstm_op(
            T, v["x"], v["cs_prev"], v["h_prev"], w, *[v[k] for k in ORDER[4:]], 1.0, -1.0, False
        )
        with (
            ff.Session() as sess,
            pytest.raises(ff.errors.InvalidArgumentError, match=r"w\.dim_size"),
        ):
            sess.run(outs[6], {w: np.zeros([DEPTH + H + 1, 4 * H], np.float32)})
