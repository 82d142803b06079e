"""The fused LSTM step (`LSTMBlockCell` op, `tf.contrib.rnn.LSTMBlockCell`) against TF.

The ops are compared with TF's own kernels (`tf.raw_ops.LSTMBlockCell` and
`LSTMBlockCellGrad`: all outputs, with peepholes and clipping); the cell, which TF
2.x no longer ships, with TF's `LSTMCell`, which computes the same step on the same
variables: outputs, final states and gradients with respect to the inputs and every
variable through `dynamic_rnn`.
"""

import zlib

import numpy as np
import pytest

import ferroflow as ff
from ferroflow.ops import rnn_ops

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"), pytest.mark.tf_oracle]

B, DEPTH, H = 3, 5, 4


def _value(name, shape, dtype=np.float32):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return rng.uniform(-0.8, 0.8, shape).astype(dtype)


def _op_inputs(dtype):
    names = {"x": [B, DEPTH], "cs_prev": [B, H], "h_prev": [B, H], "w": [DEPTH + H, 4 * H]}
    names.update({"wci": [H], "wcf": [H], "wco": [H], "b": [4 * H]})
    return {k: _value(k, s, dtype) * (3.0 if k == "cs_prev" else 1.0) for k, s in names.items()}


@pytest.mark.parametrize("dtype", [np.float32])
@pytest.mark.parametrize(("peephole", "clip"), [(False, -1.0), (True, 0.5), (True, -1.0)])
def test_ops_match_tf_kernels(tf1, dtype, peephole, clip):
    import tensorflow as tf2

    v = _op_inputs(dtype)
    order = ["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"]
    grads = {"cs_grad": _value("cs_grad", [B, H], dtype), "h_grad": _value("h_grad", [B, H], dtype)}
    attrs = dict(forget_bias=0.7, cell_clip=clip, use_peephole=peephole)

    with tf1.Graph().as_default():
        want = tf2.raw_ops.LSTMBlockCell(**{k: tf1.constant(v[k]) for k in order}, **attrs)
        want_grad = tf2.raw_ops.LSTMBlockCellGrad(
            **{k: tf1.constant(v[k]) for k in order},
            **dict(zip(["i", "cs", "f", "o", "ci", "co"], want[:6], strict=True)),
            **{k: tf1.constant(g) for k, g in grads.items()},
            use_peephole=peephole,
        )
        with tf1.Session() as sess:
            want, want_grad = sess.run([list(want), list(want_grad)])

    with ff.Graph().as_default() as g:
        t = {k: ff.constant(v[k]) for k in order}
        outs = rnn_ops._lstm_block_cell(
            t["x"], t["cs_prev"], t["h_prev"], t["w"], t["b"], t["wci"], t["wcf"], t["wco"],
            forget_bias=0.7, cell_clip=clip, use_peephole=peephole,
        )  # fmt: skip
        grad_op = g._create_op(
            "LSTMBlockCellGrad",
            [t[k] for k in order] + list(outs[:6]) + [ff.constant(x) for x in grads.values()],
            {"use_peephole": peephole},
        )
        with ff.Session() as sess:
            got, got_grad = sess.run([list(outs), list(grad_op.outputs)])
    tol = 1e-5
    for a, b in zip(want + want_grad, got + got_grad, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


def _run_cell(lib, make_cell, peephole, dtype):
    g = lib.Graph()
    with g.as_default():
        x = lib.constant(_value("inputs", [B, 6, DEPTH], dtype))
        cell = make_cell(lib, peephole)
        outputs, state = lib.nn.dynamic_rnn(cell, x, sequence_length=[6, 2, 4], dtype=dtype)
        variables = sorted(lib.global_variables(), key=lambda v: v.name)
        loss = lib.reduce_sum(lib.sin(outputs)) + lib.reduce_sum(state.c * state.h)
        gs = lib.gradients(loss, [x, *variables])
        with lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            for var in variables:
                sess.run(var.assign(_value(var.op.name, var.shape.as_list(), dtype)))
            values = sess.run([outputs, state.c, state.h, *gs])
    return [(v.name, v.shape.as_list()) for v in variables], values


@pytest.mark.parametrize("dtype", [np.float32])
@pytest.mark.parametrize("peephole", [False, True])
def test_cell_equals_tf_lstm_cell(tf1, dtype, peephole):
    from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl

    def tf_cell(lib, peephole):
        return rnn_cell_impl.LSTMCell(H, use_peepholes=peephole, forget_bias=0.6)

    def ff_cell(lib, peephole):
        return ff.contrib.rnn.LSTMBlockCell(H, use_peephole=peephole, forget_bias=0.6)

    want_vars, want = _run_cell(tf1, tf_cell, peephole, dtype)
    got_vars, got = _run_cell(ff, ff_cell, peephole, dtype)
    assert got_vars == want_vars  # rnn/lstm_cell/kernel, bias (and the w_*_diag)
    tol = 1e-5
    for a, b in zip(want, got, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


def test_float64_is_tf_s_type_error():
    # TF's kernels take half and float only.
    with ff.Graph().as_default():
        x = ff.zeros([B, DEPTH], ff.float64)
        cs = ff.zeros([B, H], ff.float64)
        w = ff.zeros([DEPTH + H, 4 * H], ff.float64)
        with pytest.raises(TypeError, match="DataType float64 not in list of allowed values"):
            rnn_ops._lstm_block_cell(x, cs, cs, w, ff.zeros([4 * H], ff.float64))


def test_bad_shapes_are_invalid_argument():
    with ff.Graph().as_default():
        x = ff.placeholder(ff.float32, [None, DEPTH])
        cs = ff.zeros([B, H])
        w = ff.zeros([DEPTH + H + 1, 4 * H])
        outs = rnn_ops._lstm_block_cell(x, cs, cs, w, ff.zeros([4 * H]))
        with (
            ff.Session() as sess,
            pytest.raises(
                ff.errors.InvalidArgumentError,
                match=r"w.dim_size\(0\) != input_size \+ cell_size: 10 vs. 9",
            ),
        ):
            sess.run(outs[6], {x: np.zeros([B, DEPTH], np.float32)})
