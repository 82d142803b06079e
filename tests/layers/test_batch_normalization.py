"""`tf.layers.batch_normalization` against TF's formula for it.

TF 2.21's Keras 3 has no TF-1.x batch normalization layer, so the oracle is the
TF-1.x layer's computation written with TensorFlow ops (read from its source,
`keras/layers/normalization.py`): a 4-D input normalized over axis 3 (or 1) goes
through `tf.nn.fused_batch_norm`, whose Bessel-corrected variance feeds the moving
average; other inputs go through `tf.nn.moments` (biased variance). Each update is
`var -= (var - value) * (1 - momentum)`.
"""

import numpy as np
import pytest

import ferroflow as ff

RNG = np.random.default_rng(7)
MOMENTUM, EPS = 0.9, 1e-3


def _oracle(tf, x, axis, training, fused):
    """TF-1.x's batch normalization layer written with TF ops: (y, updates, vars)."""
    ndims = x.shape.ndims
    channels = x.shape.as_list()[axis]
    with tf.variable_scope("batch_normalization"):
        gamma = tf.get_variable("gamma", [channels], initializer=tf.constant_initializer(1.5))
        beta = tf.get_variable("beta", [channels], initializer=tf.constant_initializer(-0.5))
        mm = tf.get_variable(
            "moving_mean", [channels], initializer=tf.zeros_initializer(), trainable=False
        )
        mv = tf.get_variable(
            "moving_variance", [channels], initializer=tf.ones_initializer(), trainable=False
        )
    if fused:
        fmt = "NHWC" if axis in (3, -1) else "NCHW"
        if fmt == "NCHW":  # TF's CPU kernel is NHWC: transpose around it.
            x = tf.transpose(x, [0, 2, 3, 1])
        if training:
            y, mean, var = tf.nn.fused_batch_norm(x, gamma, beta, epsilon=EPS)
        else:
            y, mean, var = tf.nn.fused_batch_norm(
                x, gamma, beta, mm, mv, epsilon=EPS, is_training=False
            )
        if fmt == "NCHW":
            y = tf.transpose(y, [0, 3, 1, 2])
    else:
        axes = [i for i in range(ndims) if i != axis % ndims]
        shape = [1] * ndims
        shape[axis] = channels
        if training:
            mean, var = tf.nn.moments(x, axes)
        else:
            mean, var = mm, mv

        def b(v):
            return tf.reshape(v, shape)

        y = tf.nn.batch_normalization(x, b(mean), b(var), b(beta), b(gamma), EPS)
    updates = []
    if training:
        updates = [
            tf.assign_sub(mm, (mm - mean) * (1 - MOMENTUM)),
            tf.assign_sub(mv, (mv - var) * (1 - MOMENTUM)),
        ]
    return y, updates, [gamma, beta, mm, mv]


def _layer(tf, x, axis, training):
    y = tf.layers.batch_normalization(
        x,
        axis=axis,
        momentum=MOMENTUM,
        epsilon=EPS,
        gamma_initializer=tf.constant_initializer(1.5),
        beta_initializer=tf.constant_initializer(-0.5),
        training=training,
    )
    return y, tf.get_collection(tf.GraphKeys.UPDATE_OPS), tf.global_variables()


SHAPES = [
    ((8, 3, 4, 3), -1, True),
    ((8, 3, 4, 3), 1, True),
    ((16, 5), -1, False),
    ((6, 4, 5), 1, False),
    ((6, 4, 5), -1, False),
]


def _train(lib, build, shape, steps):
    """Runs `steps` training steps (outputs, updates) and the gradients of the last."""
    g = lib.Graph()
    with g.as_default():
        x = lib.placeholder(lib.float32, shape, name="x")
        y, updates, variables = build(lib, x)
        loss = lib.reduce_sum(
            y * lib.constant(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape), lib.float32)
        )
        grads = lib.gradients(loss, [x, variables[0], variables[1]])
        with lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            results = []
            for step in range(steps):
                feed = {
                    x: np.random.default_rng(step).standard_normal(shape).astype(np.float32)
                    * (step + 1)
                    + step
                }
                out = sess.run([y, *grads, *updates], feed)
                results.append(out[:4])
            results.append(sess.run(variables))
    return results


@pytest.mark.parametrize(("shape", "axis", "fused"), SHAPES)
def test_training_steps_and_moving_statistics_match_tensorflow(tf1, shape, axis, fused):
    expected = _train(tf1, lambda tf, x: _oracle(tf, x, axis, True, fused), shape, 3)
    got = _train(ff, lambda tf, x: _layer(tf, x, axis, True), shape, 3)
    for step_got, step_expected in zip(got, expected, strict=True):
        for a, b in zip(step_got, step_expected, strict=True):
            np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize(("shape", "axis", "fused"), SHAPES)
def test_inference_uses_the_moving_statistics(tf1, shape, axis, fused):
    x_value = RNG.standard_normal(shape).astype(np.float32)

    def run(lib, build):
        g = lib.Graph()
        with g.as_default():
            x = lib.constant(x_value)
            y, updates, variables = build(lib, x)
            with lib.Session(graph=g) as sess:
                sess.run(lib.global_variables_initializer())
                # Moving statistics away from their initial values.
                sess.run(
                    [
                        lib.assign(variables[2], lib.fill(variables[2].shape, 0.3)),
                        lib.assign(variables[3], lib.fill(variables[3].shape, 2.0)),
                    ]
                )
                return sess.run(y), updates

    expected, _ = run(tf1, lambda tf, x: _oracle(tf, x, axis, False, fused))
    got, updates = run(ff, lambda tf, x: _layer(tf, x, axis, False))
    assert updates == []
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(8, 3, 4, 3), (16, 5)])
def test_a_training_tensor_selects_training_or_inference(shape):
    x_value = RNG.standard_normal(shape).astype(np.float32) + 1
    g = ff.Graph()
    with g.as_default():
        x = ff.constant(x_value)
        flag = ff.placeholder(ff.bool, [])
        layer = ff.layers.BatchNormalization(momentum=MOMENTUM)
        y = layer(x, training=flag)
        y_train = layer(x, training=True)
        y_infer = layer(x, training=False)
        updates = ff.get_collection(ff.GraphKeys.UPDATE_OPS)
        assert len(updates) == 4 and layer.updates == updates
        with ff.Session(graph=g) as sess:
            sess.run(ff.global_variables_initializer())
            before = sess.run(layer.variables)
            got, expected = sess.run([y, y_infer, *updates[:2]], {flag: False})[:2]
            np.testing.assert_allclose(got, expected, rtol=1e-6)
            for a, b in zip(sess.run(layer.variables), before, strict=True):
                np.testing.assert_array_equal(a, b)
            got, expected = sess.run([y, y_train], {flag: True})
            np.testing.assert_allclose(got, expected, rtol=1e-6)
            sess.run(updates[:2], {flag: True})
            mean = sess.run(layer.moving_mean)
            np.testing.assert_allclose(
                mean, (1 - MOMENTUM) * x_value.reshape(-1, shape[-1]).mean(0), rtol=1e-4
            )


def test_variables_collections_and_update_ops_as_tensorflow():
    with ff.Graph().as_default():
        x = ff.placeholder(ff.float32, [None, 4, 4, 3])
        ff.layers.batch_normalization(x, training=True)
        with ff.variable_scope("s"):
            ff.layers.batch_normalization(x, training=False, trainable=False, center=False)
        assert [v.name for v in ff.global_variables()] == [
            "batch_normalization/gamma:0",
            "batch_normalization/beta:0",
            "batch_normalization/moving_mean:0",
            "batch_normalization/moving_variance:0",
            "s/batch_normalization/gamma:0",
            "s/batch_normalization/moving_mean:0",
            "s/batch_normalization/moving_variance:0",
        ]
        assert [v.name for v in ff.trainable_variables()] == [
            "batch_normalization/gamma:0",
            "batch_normalization/beta:0",
        ]
        assert [op.name for op in ff.get_collection(ff.GraphKeys.UPDATE_OPS)] == [
            "batch_normalization/AssignMovingAvg:0",
            "batch_normalization/AssignMovingAvg_1:0",
        ]


def test_reuse_shares_the_variables_and_regularizers_are_collected():
    with ff.Graph().as_default():
        x = ff.placeholder(ff.float32, [None, 3])
        ff.layers.batch_normalization(x, name="bn", gamma_regularizer=ff.nn.l2_loss)
        ff.layers.batch_normalization(x, name="bn", reuse=True, gamma_regularizer=ff.nn.l2_loss)
        with ff.variable_scope("a", reuse=ff.AUTO_REUSE):
            ff.layers.batch_normalization(x, name="bn")
            ff.layers.batch_normalization(x, name="bn")
        assert len(ff.global_variables()) == 8
        losses = ff.get_collection(ff.GraphKeys.REGULARIZATION_LOSSES)
        assert [t.name for t in losses] == ["bn/gamma/Regularizer/L2Loss:0"]


def test_errors():
    with ff.Graph().as_default():
        x = ff.placeholder(ff.float32, [None, 3])
        with pytest.raises(ValueError, match="Invalid axis: 5"):
            ff.layers.batch_normalization(x, axis=5)
        with pytest.raises(ValueError, match="Duplicate axis"):
            ff.layers.batch_normalization(x, axis=[1, -1])
        with pytest.raises(ValueError, match="undefined `axis` dimension"):
            ff.layers.batch_normalization(ff.placeholder(ff.float32, [2, None]))
        with pytest.raises(ValueError, match="undefined rank"):
            ff.layers.batch_normalization(ff.placeholder(ff.float32))
        with pytest.raises(NotImplementedError, match="renorm"):
            ff.layers.batch_normalization(x, renorm=True)
