"""TF 1.x's `Defun` graph functions and `prevent_gradient`, against TensorFlow."""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff
from ferroflow.ops import array_ops as ff_array_ops
from ferroflow.ops import function as ff_function


def _function_module(tf):
    """The module holding `Defun` for the backend `tf` is."""
    if tf is ff:
        return ff_function
    from tensorflow.python.framework import function

    return function


def xsq_plus_b(x, b):
    return x * x + b


def xsq_plus_b_grad(x, b, g):
    g *= 2.0
    return g * 2.0 * x, g


def _python_grad(op, grad):
    grad *= 3.0
    return grad * op.inputs[0] * 2.0, grad


@pytest.mark.parametrize("kind", ["plain", "grad_func", "python_grad_func"])
def test_defun_values_and_gradients_match_tensorflow(tf1, kind):
    def build(tf):
        fn = _function_module(tf)
        kwargs = {}
        if kind == "grad_func":
            kwargs["grad_func"] = fn.Defun(tf.float32, tf.float32, tf.float32)(xsq_plus_b_grad)
        elif kind == "python_grad_func":
            kwargs["python_grad_func"] = _python_grad
        f = fn.Defun(tf.float32, tf.float32, **kwargs)(xsq_plus_b)
        x = tf.constant([2.0, -1.5, 0.25], name="x")
        b = tf.constant([1.0, 0.5, -3.0], name="b")
        y = f(f(x, b), b)  # composed: the gradient passes through two calls
        return [y, *tf.gradients(tf.reduce_sum(y * y), [x, b])]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, w in zip(got, want, strict=True):
        np.testing.assert_allclose(a, w, rtol=1e-6)


def test_overloaded_defun_takes_each_calls_types(tf1):
    def build(tf):
        fn = _function_module(tf)

        @fn.Defun()
        def scale_sum(x, y):
            return tf.reduce_sum(x * 3) + y, x - y

        a = scale_sum(tf.constant([1.5, 2.0]), tf.constant(0.5))
        c = scale_sum(tf.constant([1, 2], tf.int64), tf.constant(4, tf.int64))
        return [*a, *c]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, w in zip(got, want, strict=True):
        assert a.dtype == w.dtype
        np.testing.assert_array_equal(a, w)


def test_defun_in_while_loop_with_gradient(tf1):
    def build(tf):
        fn = _function_module(tf)

        @fn.Defun(tf.float32)
        def quartic(x):
            return tf.square(tf.square(x))

        x = tf.constant(1.5)
        # TF's call results have unknown shapes (no `shape_func`): the loop must allow it.
        unknown = tf.TensorShape(None)
        r = tf.while_loop(
            lambda i, v: i < 2, lambda i, v: [i + 1, quartic(v)], [0, x], [unknown, unknown]
        )
        return [r[1], tf.gradients(r[1], x)[0]]

    got, want = run_ff(build), run_tf(tf1, build)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_defun_stateful_body_op_runs_with_the_call(tf1):
    # An update whose output the body does not use still runs when the call does.
    def build(tf):
        fn = _function_module(tf)
        # (A TF function captures a resource variable's handle, not a reference.)
        v = tf.get_variable("v", initializer=10.0, use_resource=True)

        @fn.Defun(tf.float32)
        def bump(x):
            v.assign_add(1.0)
            return x * 2.0

        y = bump(tf.constant(3.0))
        with tf.control_dependencies([y]):
            return [y, tf.identity(v.read_value())]

    got, want = run_ff(build), run_tf(tf1, build)
    np.testing.assert_array_equal(got, want)

    def build_twice(tf):
        fn = _function_module(tf)
        v = tf.get_variable("v", initializer=10.0, use_resource=True)

        @fn.Defun()
        def bump():
            v.assign_add(1.0)  # no results: the call is an op

        call = bump()
        with tf.control_dependencies([call]):
            return tf.identity(v.read_value())

    assert run_ff(build_twice) == run_tf(tf1, build_twice) == 11.0


def test_defun_gradient_defined_twice_and_bad_arguments():
    grad = ff_function.Defun(ff.float32, ff.float32, ff.float32)(xsq_plus_b_grad)
    f = ff_function.Defun(ff.float32, ff.float32, grad_func=grad, python_grad_func=_python_grad)(
        xsq_plus_b
    )
    with pytest.raises(ValueError, match="Gradient defined twice"):
        f.add_to_graph(ff.Graph())
    with pytest.raises(ValueError, match="fewer arguments"):
        ff_function.Defun(ff.float32, ff.float32, ff.float32)(xsq_plus_b)
    with pytest.raises(ValueError, match="keyword arguments"):
        ff_function.Defun(ff.float32)(lambda x=1.0: x)
    g = ff_function.Defun(ff.float32, ff.float32)(xsq_plus_b)
    assert g.name.startswith("xsq_plus_b_")
    assert g.declared_input_types == (ff.float32, ff.float32)
    with ff.Graph().as_default():
        with pytest.raises(ValueError, match="Input 0 of function"):
            g(ff.constant(1, ff.int32), 2.0)
        y = g(ff.constant(1.0), 2.0, name="call")
        assert y.op.name == "call"


def test_prevent_gradient(tf1):
    def build(tf):
        if tf is ff:
            ops = ff_array_ops
        else:
            from tensorflow.python.ops import array_ops as ops
        x = tf.constant([[1.0, -2.0]])
        return ops.prevent_gradient(x * 2.0, message="no second order")

    np.testing.assert_array_equal(run_ff(build), run_tf(tf1, build))
    with ff.Graph().as_default():
        x = ff.constant([1.0])
        y = ff_array_ops.prevent_gradient(x, message="no second order")
        assert y.op.type == "PreventGradient"
        with pytest.raises(LookupError, match=r"explicitly disabled\. Reason: no second order"):
            ff.gradients(y, x)
