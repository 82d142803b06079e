"""`tf.layers.BatchNormalization` / `tf.layers.batch_normalization` against TensorFlow's.

The oracle is TF's own TF-1.x layer: `tf.compat.v1.layers.BatchNormalization` is, in TF
2.x, tf-keras' `legacy_tf_layers.normalization` (what `tf.compat.v1.layers` serves with
`TF_USE_LEGACY_KERAS=1`); it is imported from tf-keras directly, so no environment
variable has to be set before TensorFlow is imported, and the tests skip when tf-keras is
missing. Each case trains a few SGD steps (with the update ops as control dependencies)
on both libraries with the same inputs and initial values, and compares the outputs, the
gradients, the variables (moving statistics included) after each step, the inference
outputs, and the names of the variables, collections and update ops.

TF 2.21's V1 layer is TF 1.15's but for a few changes, which the cases avoid (ferroflow
follows TF 1.15; the TF-1.15-only behavior is checked on ferroflow alone):

* 5-D inputs, and 4-D float64 inputs, take the fused path in TF 2.21 only (TF 1.15's
  fused kernel has no float64, and no 5-D form);
* `axis=0` (or -4) of a 4-D input raises in TF 2.21 with `fused=None`, while TF 1.15
  takes the non-fused path; a tuple `axis` is accepted by TF 2.21 only (TF 1.15 raises
  `TypeError`);
* the ghost-batch reshape uses the dynamic shape in TF 2.21 (ops `Shape`,
  `strided_slice`, `concat`), TF 1.15's the static one (a `Reshape/shape` constant);
* float16 inputs of the non-fused path are normalized in float32 by TF 2.21, in float16
  by TF 1.15 (so those cases compare to 16-bit precision).

ferroflow's ops differ where its building blocks do (outside this layer): `tf.nn.moments`
squares a difference (`sub`, `Square`) where TF has `SquaredDifference`,
`tf.nn.fused_batch_norm` is composed of small ops under `FusedBatchNormV3/` rather than
one `FusedBatchNormV3` op, and `ones_like` / `zeros_like` of a tensor captured in a
`tf.cond` branch switch that tensor in; those op names are left out of the comparison.
"""

import re

import numpy as np
import pytest

import ferroflow as ff

# TF's legacy layers warn that they are deprecated on every use.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

TOL = {"float32": 1e-5, "float16": 1e-2, "bfloat16": 5e-2}


@pytest.fixture(scope="module")
def tfbn(tf1):
    """TF's TF-1.x batch normalization module (`tf.compat.v1.layers`' classes)."""
    try:
        from tf_keras.src.legacy_tf_layers import normalization
    except ImportError:
        pytest.skip(
            "tf-keras is not installed: TF 2.x has no tf.compat.v1.layers without it "
            "(TF_USE_LEGACY_KERAS=1)"
        )
    return normalization


def _bn(lib, tfbn):
    """The library's module with `BatchNormalization` and `batch_normalization`."""
    return ff.layers.normalization if lib is ff else tfbn


def _values(shape, seed, low, high):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def _initializer(lib, seed, low, high):
    """An initializer of fixed pseudo-random values (the same in both libraries)."""

    def init(shape, dtype=None, partition_info=None):
        return lib.constant(_values(list(shape), seed, low, high), dtype=dtype)

    return init


def _initializers(lib):
    return {
        "gamma_initializer": _initializer(lib, 1, 0.5, 1.5),
        "beta_initializer": _initializer(lib, 2, -0.5, 0.5),
        "moving_mean_initializer": _initializer(lib, 3, -0.2, 0.2),
        "moving_variance_initializer": _initializer(lib, 4, 0.5, 1.5),
    }


def _adjustment(lib):
    def adjust(shape):
        return lib.fill(shape[-1:], 1.25), lib.fill(shape[-1:], -0.3)

    return adjust


# Each case: (input shape, input dtype, layer kwargs as a function of the library,
# `_bessels_correction_test_only` or None, whether ferroflow's fused path is taken).
CASES = {
    "2d": ((8, 5), "float32", lambda lib: {}, None, False),
    "3d_axis1": ((6, 4, 5), "float32", lambda lib: {"axis": 1}, None, False),
    "3d_axis_list": ((6, 4, 5), "float32", lambda lib: {"axis": [1, 2]}, None, False),
    "4d_axis2": ((4, 3, 5, 2), "float32", lambda lib: {"axis": 2}, None, False),
    "fused_nhwc": ((4, 3, 5, 3), "float32", lambda lib: {}, None, True),
    "fused_nchw": ((4, 3, 5, 2), "float32", lambda lib: {"axis": 1}, None, True),
    "fused_true_nchw": (
        (4, 3, 5, 2),
        "float32",
        lambda lib: {"axis": -3, "fused": True},
        None,
        True,
    ),
    "fused_no_bessel": ((4, 3, 5, 3), "float32", lambda lib: {}, False, True),
    "fused_nchw_no_bessel": ((4, 3, 5, 2), "float32", lambda lib: {"axis": 1}, False, True),
    "fused_no_center_scale": (
        (4, 3, 5, 3),
        "float32",
        lambda lib: {"center": False, "scale": False},
        None,
        True,
    ),
    "not_fused_4d": ((4, 3, 5, 3), "float32", lambda lib: {"fused": False}, None, False),
    "not_fused_nchw": (
        (4, 3, 5, 2),
        "float32",
        lambda lib: {"axis": 1, "fused": False},
        None,
        False,
    ),
    "not_fused_no_center": ((8, 5), "float32", lambda lib: {"center": False}, None, False),
    "renorm": (
        (8, 3),
        "float32",
        lambda lib: {
            "renorm": True,
            "renorm_clipping": {"rmax": 1.2, "rmin": 0.8, "dmax": 0.3},
            "renorm_momentum": 0.7,
        },
        None,
        False,
    ),
    "renorm_no_clipping": ((8, 3), "float32", lambda lib: {"renorm": True}, None, False),
    "renorm_nchw_fused_true": (
        (4, 3, 2, 2),
        "float32",
        lambda lib: {"axis": 1, "renorm": True, "fused": True, "renorm_clipping": {"rmax": 1.5}},
        None,
        False,
    ),
    "renorm_no_scale": (
        (8, 3),
        "float32",
        lambda lib: {"renorm": True, "scale": False, "center": False},
        None,
        False,
    ),
    "adjustment": ((8, 3), "float32", lambda lib: {"adjustment": _adjustment(lib)}, None, False),
    "renorm_adjustment": (
        (8, 3),
        "float32",
        lambda lib: {"renorm": True, "adjustment": _adjustment(lib)},
        None,
        False,
    ),
    "ghost_2d": ((6, 4), "float32", lambda lib: {"virtual_batch_size": 3}, None, False),
    "ghost_4d": ((6, 3, 2, 2), "float32", lambda lib: {"virtual_batch_size": 2}, None, False),
    "ghost_nchw": (
        (6, 2, 3, 2),
        "float32",
        lambda lib: {"axis": 1, "virtual_batch_size": 2, "fused": False},
        None,
        False,
    ),
    "ghost_multi_axis": (
        (4, 3, 2, 2),
        "float32",
        lambda lib: {"axis": [1, 3], "virtual_batch_size": 2},
        None,
        False,
    ),
    "fused_float16": ((4, 3, 5, 3), "float16", lambda lib: {}, None, True),
    "fused_nchw_float16": ((4, 3, 5, 2), "float16", lambda lib: {"axis": 1}, None, True),
    "float16": ((8, 5), "float16", lambda lib: {}, None, False),
    "fused_bfloat16": ((4, 3, 5, 3), "bfloat16", lambda lib: {}, None, True),
    "float64": ((8, 5), "float64", lambda lib: {}, None, False),
    # Not trainable: no trainable variables, and no updates in UPDATE_OPS.
    "not_trainable": ((8, 5), "float32", lambda lib: {"trainable": False}, None, False),
    "fused_not_trainable": ((4, 3, 5, 3), "float32", lambda lib: {"trainable": False}, None, True),
}
# The cases whose op names are not compared: TF 2.21 reshapes ghost batches with the
# dynamic shape, casts non-fused 16-bit inputs to float32, and without Bessel's
# correction also builds ops correcting the (unused) moving variance it feeds the fused
# op in training; ferroflow casts fused 16-bit inputs to float32 (its
# `fused_batch_norm` takes one dtype).
OPS_DIFFER = {
    name for name in CASES if name.startswith("ghost") or "16" in name or name.endswith("no_bessel")
}


def _input(shape, step):
    return np.random.default_rng(10 + step).standard_normal(shape) * (1 + step) + step


def _known_difference(name):
    """An op name made by ferroflow's building blocks, not by the layer (see above)."""
    return (
        "/moments/" in name
        or "FusedBatchNormV3" in name
        or "ones_like/Switch" in name
        or "zeros_like/Switch" in name
    )


def _version_difference(case, name):
    """An op TF 1.15 makes and TF 2.21 does not (see above)."""
    # TF 1.15's fused path makes the momentum constant also when not training.
    return CASES[case][4] and re.fullmatch(r"batch_normalization/Const(_\d+)?", name)


def _train(lib, tfbn, case, training, steps=3):
    """Runs `steps` SGD steps; returns the values of each step and the graph's names."""
    shape, dtype, kwargs, bessel, _ = CASES[case]
    bn = _bn(lib, tfbn)
    g = lib.Graph()
    with g.as_default():
        x = lib.placeholder(dtype, shape, name="x")
        flag = lib.placeholder(lib.bool, [], name="flag") if training == "tensor" else True
        layer = bn.BatchNormalization(momentum=0.8, **_initializers(lib), **kwargs(lib))
        if bessel is not None:
            layer._bessels_correction_test_only = bessel
        y = layer.apply(x, training=flag)
        y_infer = layer.apply(x, training=False)
        layer_ops = sorted(
            op.name
            for op in g.get_operations()
            if not _known_difference(op.name) and not _version_difference(case, op.name)
        )
        w = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape)
        loss = lib.reduce_sum(lib.cast(y, lib.float32) * lib.constant(w, lib.float32))
        params = layer.trainable_variables
        grads = lib.gradients(loss, [x, *params])
        updates = lib.get_collection(lib.GraphKeys.UPDATE_OPS)
        with lib.control_dependencies(updates):
            if params:
                train_op = lib.train.GradientDescentOptimizer(0.1).minimize(loss)
            else:
                train_op = lib.no_op()
        names = {
            "variables": [(v.name, v.dtype.name) for v in lib.global_variables()],
            "trainable": [v.name for v in lib.trainable_variables()],
            "layer_variables": [v.name for v in layer.variables],
            "updates": [u.name for u in updates],
            "layer_updates": [u.name for u in layer.updates],
            "updates_are_ops": all(isinstance(u, lib.Operation) for u in updates),
            "output": (y.dtype.name, y.shape.as_list(), y_infer.dtype.name),
            "fused": layer.fused,
            "ops": layer_ops,
        }
        results = []
        with lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            for step in range(steps):
                feed = {x: _input(shape, step)}
                if training == "tensor":
                    # Inference through the tensor: the moving statistics stay.
                    results.append(sess.run([y, *updates], {**feed, flag: False})[0])
                    results.append(sess.run(layer.variables))
                    feed[flag] = True
                results.append(sess.run([y, *grads], feed))
                sess.run(train_op, feed)
                results.append(sess.run(layer.variables))
                results.append(sess.run(y_infer, feed))
    return results, names


def _assert_close(got, expected, tol, path="result"):
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), path
        for i, (a, b) in enumerate(zip(got, expected, strict=True)):
            _assert_close(a, b, tol, f"{path}[{i}]")
        return
    got = np.asarray(got, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, err_msg=path)


@pytest.mark.parametrize("training", ["python", "tensor"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_training_steps_match_tensorflow(tf1, tfbn, case, training):
    expected, expected_names = _train(tf1, tfbn, case, training)
    got, names = _train(ff, tfbn, case, training)
    _assert_close(got, expected, TOL.get(CASES[case][1], 1e-5))
    for key in names:
        if key == "ops" and case in OPS_DIFFER:
            continue
        assert names[key] == expected_names[key], key
    assert names["fused"] == CASES[case][4]


def test_fused_float16_variables_are_float32_as_tensorflow(tf1, tfbn):
    def build(lib):
        x = lib.placeholder(lib.float16, [5, 4, 3, 3])
        layer = _bn(lib, tfbn).BatchNormalization(axis=1, fused=True)
        y = layer.apply(x, training=lib.placeholder(lib.bool, []))
        return [v.dtype.name for v in layer.variables], y.dtype.name, len(layer.updates)

    with tf1.Graph().as_default():
        expected = build(tf1)
    with ff.Graph().as_default():
        got = build(ff)
    assert got == expected == (["float32_ref"] * 4, "float16", 2)


@pytest.mark.parametrize(
    ("shape", "kwargs"),
    [
        ((2, 3), {"fused": True}),
        ((2, 3, 4, 5), {}),
        ((2, 3, 4, 5), {"axis": 1, "fused": True}),
        ((2, 3, 4, 5), {"axis": 2}),
        ((2, 3, 4, 5), {"axis": [1, 3]}),
        ((2, 3, 4, 5), {"fused": False}),
        ((2, 3, 4, 5), {"renorm": True, "fused": True}),
        ((2, 3, 4, 5), {"virtual_batch_size": 2, "fused": True}),
        ((2, 3, 4, 5), {"adjustment": lambda shape: (1.0, 0.0), "fused": None}),
    ],
)
def test_fused_choice_matches_tensorflow(tf1, tfbn, shape, kwargs):
    def build(lib):
        layer = _bn(lib, tfbn).BatchNormalization(**kwargs)
        before = layer.fused
        layer.apply(lib.placeholder(lib.float32, shape), training=True)
        return before, layer.fused, layer.axis

    with tf1.Graph().as_default():
        expected = build(tf1)
    with ff.Graph().as_default():
        got = build(ff)
    assert got == expected


@pytest.mark.parametrize(
    ("shape", "kwargs"),
    [
        ((6, 5, 4, 3), {"virtual_batch_size": -1}),
        ((6, 5, 4, 3), {"virtual_batch_size": 0}),
        ((6, 5, 4, 3), {"virtual_batch_size": 2, "axis": 0}),
        ((6, 5, 4, 3), {"virtual_batch_size": 2, "adjustment": lambda s: (1.0, 0.0)}),
        ((6, 5, 4, 3), {"axis": [1, 4]}),
        ((6, 5, 4, 3), {"axis": [1, -3]}),
        ((6, 5, 4, 3), {"axis": 4}),
        ((6, None), {}),
        (None, {}),
    ],
)
def test_build_errors_match_tensorflow(tf1, tfbn, shape, kwargs):
    def build(lib):
        try:
            _bn(lib, tfbn).batch_normalization(lib.placeholder(lib.float32, shape), **kwargs)
        except Exception as e:
            return type(e).__name__
        return "ok"

    with tf1.Graph().as_default():
        expected = build(tf1)
    with ff.Graph().as_default():
        got = build(ff)
    assert got == expected == "ValueError"


def test_constructor_errors_match_tensorflow(tf1, tfbn):
    for lib in (tf1, ff):
        bn = _bn(lib, tfbn)
        with pytest.raises(ValueError, match="renorm_clipping"):
            bn.BatchNormalization(renorm=True, renorm_clipping={"rmax": 2.0, "x": 1.0})
        # renorm_clipping is not checked without renorm.
        bn.BatchNormalization(renorm_clipping={"x": 1.0})
        with pytest.raises(TypeError):
            bn.BatchNormalization(axis="1")


def test_tuple_axis_raises_as_tensorflow_1_15():
    # TF 1.15 takes an int or a list (TF 2.21's layer also takes a tuple).
    with pytest.raises(TypeError, match="axis must be int or list"):
        ff.layers.BatchNormalization(axis=(1, 2))


def test_ghost_batches_of_unknown_or_indivisible_batch_size(tf1, tfbn):
    def run(lib, shape, batch):
        g = lib.Graph()
        with g.as_default():
            x = lib.placeholder(lib.float32, shape)
            y = _bn(lib, tfbn).batch_normalization(x, virtual_batch_size=2, training=True)
            with lib.Session(graph=g) as sess:
                sess.run(lib.global_variables_initializer())
                try:
                    return y.shape.as_list(), sess.run(y, {x: _input([batch, 5, 4], 0)})
                except lib.errors.InvalidArgumentError as e:
                    return y.shape.as_list(), type(e).__name__

    for shape, batch in [([None, 5, 4], 10), ([None, 5, 4], 7), ([8, 5, 4], 8)]:
        (shape_tf, expected), (shape_ff, got) = run(tf1, shape, batch), run(ff, shape, batch)
        assert shape_ff == shape_tf
        if isinstance(expected, str):
            assert got == expected
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_reuse_regularizers_and_collections_match_tensorflow(tf1, tfbn):
    def build(lib):
        bn = _bn(lib, tfbn)
        x = lib.placeholder(lib.float32, [None, 4, 4, 3])
        x2 = lib.placeholder(lib.float32, [None, 3])
        bn.batch_normalization(x, training=True, gamma_regularizer=lib.nn.l2_loss)
        bn.batch_normalization(x, training=True, name="bn", beta_regularizer=lib.nn.l2_loss)
        bn.batch_normalization(x, training=True, name="bn", reuse=True)
        with lib.variable_scope("s"):
            bn.batch_normalization(x, training=False, trainable=False, center=False)
            bn.batch_normalization(x2, training=True, trainable=False, renorm=True)
        with lib.variable_scope("a", reuse=lib.AUTO_REUSE):
            bn.batch_normalization(x2, name="bn", training=True, renorm=True)
            bn.batch_normalization(x2, name="bn", training=True, renorm=True)
        return {
            "global": [v.name for v in lib.global_variables()],
            "trainable": [v.name for v in lib.trainable_variables()],
            "updates": [u.name for u in lib.get_collection(lib.GraphKeys.UPDATE_OPS)],
            "losses": [t.name for t in lib.get_collection(lib.GraphKeys.REGULARIZATION_LOSSES)],
        }

    with tf1.Graph().as_default():
        expected = build(tf1)
    with ff.Graph().as_default():
        got = build(ff)
    assert got == expected


def test_functional_reuse_shares_the_moving_statistics(tf1, tfbn):
    def run(lib):
        g = lib.Graph()
        with g.as_default():
            bn = _bn(lib, tfbn)
            x = lib.placeholder(lib.float32, [6, 3])
            kw = {"momentum": 0.5, **_initializers(lib)}
            y1 = bn.batch_normalization(x, name="bn", training=True, **kw)
            y2 = bn.batch_normalization(x * 2.0, name="bn", reuse=True, training=True, **kw)
            y3 = bn.batch_normalization(x, name="bn", reuse=True, training=False, **kw)
            updates = lib.get_collection(lib.GraphKeys.UPDATE_OPS)
            with lib.Session(graph=g) as sess:
                sess.run(lib.global_variables_initializer())
                out = []
                for step in range(2):
                    feed = {x: _input([6, 3], step)}
                    out.append(sess.run([y1, y2], feed))
                    # One layer call's updates at a time (they update the same variables).
                    sess.run(updates[:2], feed)
                    sess.run(updates[2:], feed)
                    out.append(sess.run([y3, *lib.global_variables()], feed))
                return out

    _assert_close(run(ff), run(tf1), 1e-5)


@pytest.mark.parametrize("training", [True, 1, np.True_, "constant"])
def test_static_training_values_build_no_cond_as_tensorflow(tf1, tfbn, training):
    def build(lib):
        x = lib.placeholder(lib.float32, [4, 3])
        flag = lib.constant(True) if training == "constant" else training
        _bn(lib, tfbn).batch_normalization(x, training=flag)
        return [u.name for u in lib.get_collection(lib.GraphKeys.UPDATE_OPS)]

    with tf1.Graph().as_default():
        expected = build(tf1)
    with ff.Graph().as_default():
        got = build(ff)
    assert (
        got
        == expected
        == [
            "batch_normalization/AssignMovingAvg",
            "batch_normalization/AssignMovingAvg_1",
        ]
    )


def test_a_training_tensor_selects_training_or_inference():
    shape = (8, 3, 4, 3)
    x_value = np.random.default_rng(7).standard_normal(shape).astype(np.float32) + 1
    g = ff.Graph()
    with g.as_default():
        x = ff.constant(x_value)
        flag = ff.placeholder(ff.bool, [])
        layer = ff.layers.BatchNormalization(momentum=0.9)
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
            np.testing.assert_allclose(mean, 0.1 * x_value.reshape(-1, 3).mean(0), rtol=1e-4)
