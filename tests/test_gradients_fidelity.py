"""`tf.gradients` details compared with TensorFlow: Hessian-vector products, `hessians`
of functions whose gradient does not depend on x, `Operation._original_op`, while-loop
gradients that no differentiable path carries, the no-gradient-through-initial-loop-
value check, and `custom_gradient` with resource variables.
"""

import numpy as np
import pytest

import ferroflow as ff
from conftest import run_ff, run_tf
from ferroflow.ops import gradients as ff_gradients


@pytest.fixture(scope="module")
def tf(tf1):
    return tf1


def _quadratic(lib):
    rng = np.random.RandomState([1, 2, 3])
    mat = lib.constant(rng.randn(4, 4).astype(np.float32))
    v = lib.constant(rng.randn(4, 1).astype(np.float32))
    x = lib.constant(rng.randn(4, 1).astype(np.float32))
    x_mat_x = lib.matmul(lib.transpose(x), lib.matmul(mat, x))
    return x_mat_x, x, v


def test_hessian_vector_product_matches_tf(tf):
    from tensorflow.python.ops import gradients_impl

    def build_tf(lib):
        y, x, v = _quadratic(lib)
        return gradients_impl._hessian_vector_product(y, [x], [v])

    def build_ff(lib):
        y, x, v = _quadratic(lib)
        return ff_gradients._hessian_vector_product(y, [x], [v])

    np.testing.assert_allclose(run_ff(build_ff)[0], run_tf(tf, build_tf)[0], rtol=1e-5)


def test_hessian_vector_product_checks_lengths():
    y, x, v = _quadratic(ff)
    with pytest.raises(ValueError, match="xs and v must have the same length"):
        ff_gradients._hessian_vector_product(y, [x], [v, v])


@pytest.mark.parametrize("shape", [(10, 10), (3,)])
def test_hessians_of_linear_functions_raise_as_tf(tf, shape):
    # The second derivative is not connected to x: TF cannot write the None row.
    for lib in (tf, ff):
        with lib.Graph().as_default():
            x = lib.placeholder(lib.float32, shape)
            with pytest.raises(ValueError):
                lib.hessians(2.0 * x, x)


def test_gradient_ops_record_their_forward_op(tf):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            inp = lib.constant(1.0, shape=[32, 100], name="in")
            w = lib.constant(1.0, shape=[100, 10], name="w")
            xw = lib.matmul(inp, w, name="xw")
            h = lib.nn.bias_add(xw, lib.constant(1.0, shape=[10]), name="h")
            w_grad = lib.gradients(h, w)[0]
            assert w_grad.op.type == "MatMul"
            assert w_grad.op._original_op is xw.op
            assert w_grad.op.get_attr("transpose_a")
            assert xw.op._original_op is None


def test_nested_gradient_ops_keep_the_inner_forward_op():
    x = ff.constant([1.0, 2.0])
    y = ff.square(x, name="sq")
    with ff.name_scope("outer"):
        dy = ff.gradients(y, x)[0]
    assert dy.op._original_op is not None
    assert dy.op._original_op.name == "sq"


def _non_differentiable_loop(lib):
    v = lib.placeholder(lib.float32, [])

    def step(i, a, ta):
        a += lib.cast(v, lib.int32)
        return i + 1, a, ta.write(i, a)

    i, _, ta = lib.while_loop(lambda i, *_: i < 4, step, [0, 0, lib.TensorArray(lib.int32, size=4)])
    return lib.gradients(ta.read(i - 1), v)[0]


def test_while_gradient_through_a_non_differentiable_capture_is_none(tf):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            assert _non_differentiable_loop(lib) is None


def test_while_gradient_of_a_differentiable_capture_is_unchanged(tf):
    def build(lib):
        w = lib.constant(3.0)
        x = lib.constant(2.0)
        _, r = lib.while_loop(lambda i, _: i < 3, lambda i, a: (i + 1, a * w), [0, x])
        return lib.gradients(r, [w, x])

    np.testing.assert_allclose(run_ff(build), run_tf(tf, build), rtol=1e-6)


def test_gradient_wrt_initial_loop_value_raises_as_tf(tf):
    messages = []
    for lib in (tf, ff):
        with lib.Graph().as_default():
            x = lib.placeholder(lib.float32, shape=(), name="x")
            y = x + 1

            def body(i, v, lib=lib, x=x):
                return i + 1, lib.gradients(v * 2, x)[0]

            with pytest.raises(ValueError) as info:
                lib.while_loop(lambda i, _: i < 3, body, [0, y])
            messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "Cannot compute gradient inside while loop with respect to op 'x'" in messages[1]


def test_gradient_wrt_loop_invariants_inside_a_loop_is_allowed(tf):
    def build(lib):
        w = lib.constant(2.0)

        def body(i, v):
            return i + 1, v + lib.gradients(w * w, w)[0]

        return lib.while_loop(lambda i, _: i < 3, body, [0, lib.constant(0.0)])[1]

    assert run_ff(build) == run_tf(tf, build)


def _custom_dense(lib, use_resource):
    @lib.custom_gradient
    def f(x):
        with lib.variable_scope("f", use_resource=use_resource):
            kernel = lib.get_variable(
                "kernel", [x.shape[-1], 3], initializer=lib.ones_initializer()
            )
            out = lib.matmul(x, kernel)

        def grad(dy, variables=None):
            assert len(variables) == 1
            return lib.gradients(out, x, grad_ys=dy)[0], [lib.ones(kernel.shape)]

        return out, grad

    return f


def test_custom_gradient_with_resource_variables_matches_tf(tf):
    def build(lib):
        x = lib.ones((2, 4))
        y = _custom_dense(lib, True)(x)
        (kernel,) = lib.global_variables()
        dx, dw = lib.gradients(y, [x, kernel])
        return lib.reduce_sum(dw), lib.shape(dx)

    a, b = run_tf(tf, build), run_ff(build)
    assert a[0] == b[0] == 12.0
    np.testing.assert_array_equal(a[1], b[1])


def test_custom_gradient_rejects_reference_variables_as_tf(tf):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            x = lib.ones((3, 2))
            with lib.variable_scope("outer", use_resource=True):
                with pytest.raises(TypeError, match="must be `ResourceVariable`s"):
                    _custom_dense(lib, False)(x)
            with lib.variable_scope("outer2", use_resource=False):
                _custom_dense(lib, True)(x)


def test_indexed_slices_grad_ys_match_tf(tf1):
    # An `IndexedSlices` initial gradient goes through as TF's: kept sparse by
    # `identity` and `gather`'s consumers, densified where an op needs it.
    def build(lib):
        params = lib.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        x = lib.identity(params)
        dy = lib.IndexedSlices(
            lib.constant([[1.0, -1.0], [0.5, 2.0]]), lib.constant([2, 0]), lib.constant([3, 2])
        )
        (dx,) = lib.gradients(x, params, grad_ys=dy)
        (dsq,) = lib.gradients(lib.square(params), params, grad_ys=dy)
        no_shape = lib.IndexedSlices(lib.constant([[2.0, 2.0]]), lib.constant([1]))
        (dn,) = lib.gradients(x, params, grad_ys=no_shape)
        assert isinstance(dx, lib.IndexedSlices) and dn.dense_shape is None
        return [lib.convert_to_tensor(dx), dsq, dn.values, dn.indices]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, w)
