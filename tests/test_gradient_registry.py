"""Gradient functions written in Python: `RegisterGradient`, `NotDifferentiable`,
`gradient_override_map`, `custom_gradient`, `hessians`, and TF's LookupError for ops
without a gradient; compared with TensorFlow."""

import itertools

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff

_names = itertools.count()


def _unique(prefix):
    """A gradient name not yet registered in this process (registries are global)."""
    return f"{prefix}{next(_names)}"


def _both(tf1, build):
    return run_tf(tf1, build), run_ff(build)


def test_override_map_uses_the_registered_python_gradient(tf1):
    name = _unique("CustomSquare")

    def build(lib):
        @lib.RegisterGradient(name)
        def _grad(op, grad):
            return grad * 3.0 * op.inputs[0]

        x = lib.constant([1.0, -2.0, 0.5])
        with lib.get_default_graph().gradient_override_map({"Square": name}):
            y = lib.square(x)
        (gx,) = lib.gradients(lib.reduce_sum(y * 2.0), x)
        assert y.op.get_attr("_gradient_op_type") == name.encode()
        names[lib.__name__] = gx.name
        return gx

    names = {}
    tf_val, ff_val = _both(tf1, build)
    assert set(names.values()) == {"gradients/Square_grad/mul_1:0"}
    np.testing.assert_allclose(ff_val, tf_val)
    np.testing.assert_allclose(ff_val, [6.0, -12.0, 3.0])


def test_override_map_to_a_native_gradient(tf1):
    # Square differentiated as Identity: the gradient passes through unchanged.
    def build(lib):
        x = lib.constant([1.0, 2.0])
        with lib.get_default_graph().gradient_override_map({"Square": "Identity"}):
            y = lib.square(x)
        return lib.gradients(y, x)[0]

    tf_val, ff_val = _both(tf1, build)
    np.testing.assert_allclose(ff_val, tf_val)
    np.testing.assert_allclose(ff_val, [1.0, 1.0])


def test_override_applies_only_inside_the_block_and_to_the_mapped_types():
    g = ff.Graph()
    with g.as_default():
        x = ff.constant(2.0)
        with g.gradient_override_map({"Square": "Identity"}):
            inner, other = ff.square(x), ff.exp(x)
        outer = ff.square(x)
    assert inner.op.get_attr("_gradient_op_type") == b"Identity"
    for op in (other.op, outer.op):
        with pytest.raises(ValueError):
            op.get_attr("_gradient_op_type")


def test_python_not_differentiable_stops_the_gradient(tf1):
    name = _unique("Blocked")

    def build(lib):
        lib.NotDifferentiable(name)
        x = lib.constant([1.0, 2.0])
        with lib.get_default_graph().gradient_override_map({"Square": name}):
            y = lib.square(x)
        return lib.gradients(lib.reduce_sum(y) + lib.reduce_sum(x), x)[0]

    tf_val, ff_val = _both(tf1, build)
    np.testing.assert_allclose(ff_val, tf_val)
    np.testing.assert_allclose(ff_val, [1.0, 1.0])


def test_python_gradient_gets_zeros_for_outputs_nothing_reached(tf1):
    name = _unique("SplitGrad")
    seen = {}

    def build(lib):
        @lib.RegisterGradient(name)
        def _grad(op, *grads):
            seen[lib.__name__] = [g is None for g in grads]
            return None, lib.concat(grads, 0) * 10.0

        x = lib.constant([1.0, 2.0, 3.0, 4.0])
        with lib.get_default_graph().gradient_override_map({"Split": name}):
            a, _ = lib.split(x, 2)
        return lib.gradients(lib.reduce_sum(a), x)[0]

    tf_val, ff_val = _both(tf1, build)
    np.testing.assert_allclose(ff_val, tf_val)
    np.testing.assert_allclose(ff_val, [10.0, 10.0, 0.0, 0.0])
    assert seen["ferroflow"] == [False, False]


def test_registration_errors_match_tf(tf1):
    name = _unique("Twice")
    for lib in (tf1, ff):

        @lib.RegisterGradient(name)
        def _grad(op, grad):
            return grad

        with pytest.raises(KeyError, match=f"Registering two gradient with name '{name}'"):
            lib.RegisterGradient(name)(_grad)
        with pytest.raises(TypeError, match="op_type must be a string"):
            lib.RegisterGradient(3)
        with pytest.raises(KeyError, match="Registering two gradient with name 'Square'"):
            lib.RegisterGradient("Square")(_grad)
        with pytest.raises(KeyError):
            lib.NotDifferentiable("Square")
    assert ff.no_gradient is ff.NotDifferentiable


def test_op_without_gradient_raises_lookup_error_as_tf(tf1):
    def build(lib):
        x = lib.constant([1.0, 2.0, 1.0])
        u, _ = lib.unique(x)
        return lib.gradients(lib.reduce_sum(u), x)

    with pytest.raises(LookupError) as tf_err:
        run_tf(tf1, build)
    with pytest.raises(LookupError) as ff_err:
        run_ff(build)
    # TF 1.x's message; TF 2 appends advice after the same start.
    assert str(ff_err.value) == "No gradient defined for operation 'Unique' (op type: Unique)"
    assert "(op type: Unique)" in str(tf_err.value)


def test_python_gradient_wrong_count_is_a_value_error():
    name = _unique("TooMany")

    @ff.RegisterGradient(name)
    def _grad(op, grad):
        return grad, grad

    x = ff.constant(1.0)
    with ff.get_default_graph().gradient_override_map({"Exp": name}):
        y = ff.exp(x)
    with pytest.raises(ValueError, match="Num gradients 2 generated for op"):
        ff.gradients(y, x)


def _gradient_kinds(tf1):
    from tensorflow.python.framework import ops as tf_ops

    registry = tf_ops._gradient_registry._registry
    kinds = {}
    from ferroflow.framework import ops as ff_ops

    for op_type in ff._ferroflow.op_names():
        native = ff._ferroflow.gradient_status(op_type)
        if native == "missing" and op_type in ff_ops._gradient_registry:
            # A gradient written in Python (TF's own function, as the sparse ops').
            native = "none" if ff_ops._gradient_registry[op_type] is None else "function"
        if op_type not in registry:
            tf_kind = "missing"
        else:
            tf_kind = "none" if registry[op_type]["type"] is None else "function"
        kinds[op_type] = (native, tf_kind)
    return kinds


def test_ops_without_gradient_are_those_tf_lacks(tf1):
    # Missing in one registry must be missing in the other: that is where TF raises
    # LookupError. Ops without inputs are never differentiated through, and
    # _DeviceCopy is ferroflow's own. TF 1.x registers LSTMBlockCell's and
    # GRUBlockCell's gradients in tf.contrib.rnn's lstm_ops and gru_ops, which TF 2.x
    # (the oracle here) no longer ships.
    # `_WhileGrad` (ferroflow's loop gradient) has TF 1.x's second-order error as its
    # gradient.
    exempt = {"_DeviceCopy", "LSTMBlockCell", "GRUBlockCell", "_WhileGrad"}
    mismatched = []
    for op_type, (native, tf_kind) in _gradient_kinds(tf1).items():
        if op_type in exempt or (native == "missing") == (tf_kind == "missing"):
            continue
        mismatched.append((op_type, native, tf_kind))
    no_inputs = {
        "FIFOQueueV2",
        "PaddingFIFOQueueV2",
        "PriorityQueueV2",
        "RandomShuffleQueueV2",
        "Placeholder",
        "NoOp",
        "Const",
        "VariableV2",
    }
    assert [m for m in mismatched if m[0] not in no_inputs] == []


def test_custom_gradient_matches_tf(tf1):
    def build(lib):
        @lib.custom_gradient
        def log1pexp(x):
            e = lib.exp(x)

            def grad(dy):
                return dy * (1 - 1 / (1 + e))

            return lib.log(1 + e), grad

        x = lib.constant([0.0, 1.0, 100.0])
        y = log1pexp(x)
        return y, lib.gradients(lib.reduce_sum(y * 3.0), x)[0]

    (tf_y, tf_g), (ff_y, ff_g) = _both(tf1, build)
    np.testing.assert_allclose(ff_y, tf_y)
    np.testing.assert_allclose(ff_g, tf_g, rtol=1e-6)
    assert np.isfinite(ff_g).all()


def test_custom_gradient_nested_results_and_several_inputs(tf1):
    def build(lib):
        @lib.custom_gradient
        def f(a, b):
            def grad(da, db):
                return da * 2.0 + db, da - db * 5.0

            return (a * b, [a + b]), grad

        a, b = lib.constant([1.0, 2.0]), lib.constant([3.0, 4.0])
        (p, (s,)) = f(a, b)
        return p, s, lib.gradients(lib.reduce_sum(p) + 2.0 * lib.reduce_sum(s), [a, b])

    tf_out, ff_out = _both(tf1, build)
    for t, f_ in zip(tf_out[:2], ff_out[:2], strict=True):
        np.testing.assert_allclose(f_, t)
    for t, f_ in zip(tf_out[2], ff_out[2], strict=True):
        np.testing.assert_allclose(f_, t)


def test_custom_gradient_with_variables(tf1):
    def build(lib):
        w = lib.Variable([2.0, 3.0], name="w")

        @lib.custom_gradient
        def f(x):
            def grad(dy, variables=None):
                return dy * 7.0, [dy * 11.0 for _ in variables]

            return x * w, grad

        x = lib.constant([1.0, 1.0])
        y = f(x)
        return lib.gradients(lib.reduce_sum(y), [x, w])

    ff_x, ff_w = run_ff(build)
    np.testing.assert_allclose(ff_x, [7.0, 7.0])
    np.testing.assert_allclose(ff_w, [11.0, 11.0])


def test_custom_gradient_using_variables_needs_a_variables_argument(tf1):
    def build(lib):
        w = lib.Variable([2.0, 3.0], name="w")

        @lib.custom_gradient
        def f(x):
            return x * w, lambda dy: dy

        return f(lib.constant([1.0, 1.0]))

    with pytest.raises(TypeError) as ff_err:
        run_ff(build)
    assert "must accept a keyword argument 'variables'" in str(ff_err.value)


@pytest.mark.parametrize("case", ["cubic", "quadratic_form", "matrix_x"])
def test_hessians_match_tf(tf1, case):
    a = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.5, -1.0, 4.0]], np.float32)

    def build(lib):
        if case == "cubic":
            x = lib.constant([1.0, -2.0, 3.0])
            y = lib.reduce_sum(x**3)
        elif case == "quadratic_form":
            x = lib.constant([[1.0], [2.0], [-1.0]])
            y = lib.matmul(lib.transpose(x), lib.matmul(a, x))
        else:
            x = lib.constant([[1.0, 2.0], [0.5, -1.0]])
            y = lib.reduce_sum(lib.exp(x) * x)
        return lib.hessians(y, x)[0]

    tf_h, ff_h = _both(tf1, build)
    assert ff_h.shape == tf_h.shape
    np.testing.assert_allclose(ff_h, tf_h, rtol=1e-5)


def test_hessians_need_a_known_shape():
    x = ff.placeholder(ff.float32, [None])
    with pytest.raises(ValueError, match="fully known shape"):
        ff.hessians(ff.reduce_sum(x * x), x)


def test_identity_n_matches_tf(tf1):
    def build(lib):
        a, b = lib.constant([1.0, 2.0]), lib.constant(3, lib.int32)
        out = lib.identity_n([a, b])
        names.append([t.name for t in out])
        return out, lib.gradients(lib.reduce_sum(out[0] * 4.0), a)[0]

    names = []
    (tf_out, tf_g), (ff_out, ff_g) = _both(tf1, build)
    assert names[0] == names[1]
    for t, f_ in zip(tf_out, ff_out, strict=True):
        np.testing.assert_array_equal(f_, t)
    np.testing.assert_allclose(ff_g, tf_g)


def test_compute_gradients_with_a_callable_loss():
    w = ff.Variable([1.0, 2.0], name="w")
    ff.Variable(5.0, name="unused")
    opt = ff.train.GradientDescentOptimizer(0.5)
    pairs = opt.compute_gradients(lambda: ff.reduce_sum(w * w))
    assert [v.op.name for _, v in pairs] == ["w"]
    train = opt.apply_gradients(pairs)
    with ff.Session() as sess:
        sess.run(ff.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [0.0, 0.0])
