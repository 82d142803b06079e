"""The fused LSTM ops on /gpu:0 (the wgpu backend; in CI Mesa's software Vulkan
driver) give the CPU kernels' values: `LSTMBlockCell`, `BlockLSTM` and their grad ops
(peepholes, clipping, a `seq_len_max` short of the sequence, an empty batch), and a
`dynamic_rnn` of stacked LSTM cells trained on the GPU, whose fused ops run there."""

import os
import zlib

import numpy as np
import pytest

import ferroflow as tf
from ferroflow.ops import rnn_ops

pytestmark = pytest.mark.skipif(
    not tf.test.is_gpu_available() and not os.environ.get("FERROFLOW_REQUIRE_GPU"),
    reason="no GPU adapter (install Mesa's mesa-vulkan-drivers)",
)

T, B, DEPTH, H = 5, 3, 4, 6
ORDER = ["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"]


def _value(name, shape):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return rng.uniform(-0.8, 0.8, shape).astype(np.float32)


def _inputs(batch, sequence):
    x_shape = [T, batch, DEPTH] if sequence else [batch, DEPTH]
    shapes = {"x": x_shape, "cs_prev": [batch, H], "h_prev": [batch, H], "w": [DEPTH + H, 4 * H]}
    shapes.update({"wci": [H], "wcf": [H], "wco": [H], "b": [4 * H]})
    return {k: _value(k, s) * (3.0 if k == "cs_prev" else 1.0) for k, s in shapes.items()}


def _ops(device, sequence, steps, peephole, clip, batch):
    """The op's outputs and its grad op's, built on `device`, as numpy values."""
    v = _inputs(batch, sequence)
    out_shape = [T, batch, H] if sequence else [batch, H]
    grads = [_value("cs_grad", out_shape), _value("h_grad", out_shape)]
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        t = [tf.constant(v[k]) for k in ORDER]
        attrs = {"use_peephole": peephole}
        if sequence:
            seq = tf.constant(steps, tf.int64)
            outs = rnn_ops._block_lstm_op(seq, *t, 0.7, clip, peephole)
            grad_inputs = [seq, *t, *outs, *[tf.constant(x) for x in grads]]
            grad_op = g._create_op("BlockLSTMGrad", grad_inputs, attrs)
        else:
            x, cs, h, w, wci, wcf, wco, b = t
            outs = rnn_ops._lstm_block_cell(x, cs, h, w, b, wci, wcf, wco, 0.7, clip, peephole)
            grad_inputs = [*t, *outs[:6], *[tf.constant(x) for x in grads]]
            grad_op = g._create_op("LSTMBlockCellGrad", grad_inputs, attrs)
    with tf.Session(graph=g) as sess:
        return sess.run([list(outs), list(grad_op.outputs)])


@pytest.mark.parametrize("sequence", [False, True])
@pytest.mark.parametrize(("peephole", "clip"), [(False, -1.0), (True, 0.5)])
def test_ops_on_the_gpu_equal_the_cpu(sequence, peephole, clip):
    want = _ops("/cpu:0", sequence, T, peephole, clip, B)
    got = _ops("/gpu:0", sequence, T, peephole, clip, B)
    for a, b in zip(want[0] + want[1], got[0] + got[1], strict=True):
        assert a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("steps", "batch"), [(3, B), (0, B), (T, 0)])
def test_short_and_empty_sequences_on_the_gpu(steps, batch):
    want = _ops("/cpu:0", True, steps, True, -1.0, batch)
    got = _ops("/gpu:0", True, steps, True, -1.0, batch)
    for a, b in zip(want[0] + want[1], got[0] + got[1], strict=True):
        assert a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


def _train(device, steps=3):
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        x = tf.constant(_value("inputs", [B, T, DEPTH]))
        cells = [tf.nn.rnn_cell.BasicLSTMCell(H), tf.nn.rnn_cell.LSTMCell(5, use_peepholes=True)]
        cell = tf.nn.rnn_cell.MultiRNNCell(cells)
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        loss = tf.reduce_mean(tf.square(outputs - 0.3))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        variables = sorted(tf.global_variables(), key=lambda v: v.name)
    meta = tf.RunMetadata()
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        for var in variables:
            sess.run(var.assign(_value(var.op.name, var.shape.as_list())))
        options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        run = sess.make_callable([loss, train], accept_options=True)
        losses = [run(options=options, run_metadata=meta)[0] for _ in range(steps)]
        final = sess.run(variables)
    devices = {ns.node_name: d.device for d in meta.step_stats.dev_stats for ns in d.node_stats}
    return losses, final, devices


def test_a_fused_rnn_trains_on_the_gpu_as_on_the_cpu():
    want_losses, want_vars, _ = _train("/cpu:0")
    losses, final, devices = _train("/gpu:0")
    np.testing.assert_allclose(losses, want_losses, rtol=1e-4)
    for a, b in zip(want_vars, final, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
    fused = [n for n in devices if n.endswith("BlockLSTM") or n.endswith("BlockLSTMGrad")]
    assert fused and all("GPU" in devices[n] for n in fused)
