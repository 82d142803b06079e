"""The fused GRU step (`GRUBlockCell` op, `tf.contrib.rnn.GRUBlockCell`/`V2`) against TF.

The ops are compared with TF's own kernels (`tf.raw_ops.GRUBlockCell` and
`GRUBlockCellGrad`: all outputs); the cells, which TF 2.x no longer ships, with TF's
`GRUCell`, which computes the same step (`GRUBlockCellV2` on the same variable
names): outputs, final states and gradients for the inputs and every variable
through `dynamic_rnn` with `sequence_length`.
"""

import zlib

import numpy as np
import pytest

import ferroflow as ff
from ferroflow.ops import gru_ops

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"), pytest.mark.tf_oracle]

B, DEPTH, H = 3, 5, 4
ORDER = ["x", "h_prev", "w_ru", "w_c", "b_ru", "b_c"]


def _value(name, shape):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return rng.uniform(-0.8, 0.8, shape).astype(np.float32)


def test_ops_match_tf_kernels(tf1):
    import tensorflow as tf2

    shapes = {"x": [B, DEPTH], "h_prev": [B, H], "w_ru": [DEPTH + H, 2 * H], "w_c": [DEPTH + H, H]}
    shapes.update({"b_ru": [2 * H], "b_c": [H]})
    v = {k: _value(k, s) for k, s in shapes.items()}
    d_h = _value("d_h", [B, H])
    with tf1.Graph().as_default():
        inputs = {k: tf1.constant(v[k]) for k in ORDER}
        want = tf2.raw_ops.GRUBlockCell(**inputs)
        r, u, c, _ = want
        want_grad = tf2.raw_ops.GRUBlockCellGrad(**inputs, r=r, u=u, c=c, d_h=tf1.constant(d_h))
        with tf1.Session() as sess:
            want, want_grad = sess.run([list(want), list(want_grad)])
    with ff.Graph().as_default() as g:
        t = [ff.constant(v[k]) for k in ORDER]
        outs = gru_ops._gru_block_cell(*t)
        grad_op = g._create_op("GRUBlockCellGrad", [*t, *outs[:3], ff.constant(d_h)], {})
        assert [o.shape.as_list() for o in grad_op.outputs] == [
            [B, DEPTH],
            [B, H],
            [B, H],
            [B, 2 * H],
        ]
        with ff.Session() as sess:
            got, got_grad = sess.run([list(outs), list(grad_op.outputs)])
    for a, b in zip(want + want_grad, got + got_grad, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


def _run(lib, make_cell):
    g = lib.Graph()
    with g.as_default():
        x = lib.constant(_value("inputs", [B, 6, DEPTH]))
        outputs, state = lib.nn.dynamic_rnn(
            make_cell(), x, sequence_length=[6, 2, 4], dtype=lib.float32
        )
        variables = sorted(lib.global_variables(), key=lambda v: v.name)
        loss = lib.reduce_sum(lib.sin(outputs)) + lib.reduce_sum(state * state)
        gs = lib.gradients(loss, [x, *variables])
        with lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            for var in variables:
                # Shared values by the variables' roles in either naming.
                role = var.op.name.split("rnn/gru_cell/")[-1]
                role = {
                    "w_ru": "gates/kernel",
                    "b_ru": "gates/bias",
                    "w_c": "candidate/kernel",
                }.get(role, role)
                role = {"b_c": "candidate/bias"}.get(role, role)
                sess.run(var.assign(_value(role, var.shape.as_list())))
            values = sess.run([outputs, state, *gs])
    return [(v.name, v.shape.as_list()) for v in variables], values


@pytest.mark.parametrize("v2", [False, True])
def test_cells_equal_tf_gru_cell(tf1, v2):
    from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl

    want_vars, want = _run(tf1, lambda: rnn_cell_impl.GRUCell(H))
    cell = ff.contrib.rnn.GRUBlockCellV2 if v2 else ff.contrib.rnn.GRUBlockCell
    got_vars, got = _run(ff, lambda: cell(H))
    if v2:
        assert got_vars == want_vars  # rnn/gru_cell/gates/kernel, ..., candidate/bias
    else:
        names = [
            "rnn/gru_cell/b_c:0",
            "rnn/gru_cell/b_ru:0",
            "rnn/gru_cell/w_c:0",
            "rnn/gru_cell/w_ru:0",
        ]
        assert [n for n, _ in got_vars] == names
        # Same values, other names: the gradients in TF's (name) order of the roles.
        mine = dict(zip(["b_c", "b_ru", "w_c", "w_ru"], got[3:], strict=True))
        got = got[:3] + [mine[r] for r in ["b_c", "w_c", "b_ru", "w_ru"]]
    for a, b in zip(want, got, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-5)


def test_bad_arguments_are_tf_s_errors():
    with pytest.raises(ValueError, match="Exactly one of num_units or cell_size must be provided"):
        ff.contrib.rnn.GRUBlockCell(4, cell_size=4)
    with pytest.raises(ValueError, match="Exactly one of num_units or cell_size must be provided"):
        ff.contrib.rnn.GRUBlockCell()
    assert ff.contrib.rnn.GRUBlockCell(cell_size=3).state_size == 3
    with ff.Graph().as_default():
        cell = ff.contrib.rnn.GRUBlockCell(H)
        with pytest.raises(ValueError, match="Shape of h_prev\\[1\\] incorrect: cell_size 4 vs 5"):
            cell(ff.zeros([B, DEPTH]), ff.zeros([B, 5]))
        with pytest.raises(TypeError, match="DataType float64 not in list of allowed values"):
            gru_ops._gru_block_cell(
                *[ff.zeros([2, 2], ff.float64)] * 4,
                ff.zeros([4], ff.float64),
                ff.zeros([2], ff.float64),
            )
        x = ff.placeholder(ff.float32, [None, DEPTH])
        w_ru = ff.zeros([DEPTH + H, 2 * H + 1])
        outs = gru_ops._gru_block_cell(
            x, ff.zeros([B, H]), w_ru, ff.zeros([DEPTH + H, H]), ff.zeros([2 * H]), ff.zeros([H])
        )
        with (
            ff.Session() as sess,
            pytest.raises(
                ff.errors.InvalidArgumentError,
                match=r"w_ru.dim_size\(1\) != cell_size \* 2: 9 vs. 8",
            ),
        ):
            sess.run(outs[3], {x: np.zeros([B, DEPTH], np.float32)})
