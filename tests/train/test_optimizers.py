"""Optimizers against TensorFlow's: the same model, the same steps, every variable
and slot compared after each step."""

import numpy as np
import pytest

import ferroflow as ff

# float16: TF's own optimizer tests compare half results with rtol = atol = 1e-3
# (a few half ulps); each half operation rounds once in both libraries.
RTOL = {np.float16: 1e-3, np.float32: 1e-5, np.float64: 1e-12}
# Values near zero after cancellation: float32 rounding differences are ~1e-7 absolute.
ATOL = {np.float16: 1e-3, np.float32: 1e-6, np.float64: 1e-12}


def _model(lib, dtype, sparse=False):
    rng = np.random.default_rng(0)
    w0 = rng.normal(size=(4, 3)).astype(dtype)
    b0 = rng.normal(size=(3,)).astype(dtype)
    emb0 = rng.normal(size=(6, 4)).astype(dtype)
    x = lib.constant(rng.normal(size=(5, 4)).astype(dtype))
    target = lib.constant(rng.normal(size=(5, 3)).astype(dtype))
    w = lib.Variable(w0, name="w")
    b = lib.Variable(b0, name="b")
    variables = [w, b]
    if sparse:
        emb = lib.Variable(emb0, name="emb")
        # Row 2 is looked up twice: its gradient rows must add up.
        x = x + lib.gather(emb, [2, 0, 2, 5, 1])
        variables.append(emb)
    y = lib.tanh(lib.matmul(x, w) + b)
    loss = lib.reduce_mean(lib.square(y - target))
    return loss, variables


def _typed(lib, dtype, *values):
    # TF's proximal optimizers do not cast their hyper-parameters: they must be
    # Tensors of the variable's dtype.
    return [lib.constant(v, dtype=lib.as_dtype(dtype)) for v in values]


OPTIMIZERS = {
    "sgd": lambda lib, lr, dt: lib.train.GradientDescentOptimizer(lr),
    "momentum": lambda lib, lr, dt: lib.train.MomentumOptimizer(lr, 0.9),
    "nesterov": lambda lib, lr, dt: lib.train.MomentumOptimizer(lr, 0.8, use_nesterov=True),
    # In half, an epsilon of 1e-6 lets one ulp of a subnormal second moment (which
    # rounding ties decide) move a weight by lr * m / eps: a wider epsilon keeps the
    # comparison about the update, not about that chaos.
    "adam": lambda lib, lr, dt: lib.train.AdamOptimizer(
        lr, beta1=0.8, beta2=0.95, epsilon=1e-3 if dt == np.float16 else 1e-6
    ),
    "adadelta": lambda lib, lr, dt: lib.train.AdadeltaOptimizer(lr, rho=0.9, epsilon=1e-4),
    "adagrad": lambda lib, lr, dt: lib.train.AdagradOptimizer(lr, initial_accumulator_value=0.3),
    "adagrad_da": lambda lib, lr, dt: lib.train.AdagradDAOptimizer(
        lr,
        lib.train.get_or_create_global_step(),
        initial_gradient_squared_accumulator_value=0.2,
        l1_regularization_strength=0.001,
        l2_regularization_strength=0.01,
    ),
    "adagrad_da_no_l1": lambda lib, lr, dt: lib.train.AdagradDAOptimizer(
        lr, lib.train.get_or_create_global_step()
    ),
    "ftrl": lambda lib, lr, dt: lib.train.FtrlOptimizer(
        lr, l1_regularization_strength=0.001, l2_regularization_strength=0.01
    ),
    "ftrl_power": lambda lib, lr, dt: lib.train.FtrlOptimizer(
        lr, learning_rate_power=-0.7, initial_accumulator_value=0.2, beta=0.1
    ),
    "ftrl_shrinkage": lambda lib, lr, dt: lib.train.FtrlOptimizer(
        lr, l1_regularization_strength=0.002, l2_shrinkage_regularization_strength=0.05
    ),
    "rmsprop": lambda lib, lr, dt: lib.train.RMSPropOptimizer(lr, decay=0.8, epsilon=1e-6),
    "rmsprop_momentum": lambda lib, lr, dt: lib.train.RMSPropOptimizer(lr, momentum=0.5),
    "rmsprop_centered": lambda lib, lr, dt: lib.train.RMSPropOptimizer(
        lr, momentum=0.3, centered=True, epsilon=1e-4
    ),
    "proximal_gd": lambda lib, lr, dt: lib.train.ProximalGradientDescentOptimizer(
        *_typed(lib, dt, 0.05, 0.002, 0.01)
    ),
    "proximal_adagrad": lambda lib, lr, dt: lib.train.ProximalAdagradOptimizer(
        _typed(lib, dt, 0.05)[0],
        0.2,
        *_typed(lib, dt, 0.001, 0.01),
    ),
}


def _train(lib, name, dtype, steps, tensor_lr, sparse=False):
    g = lib.Graph()
    with g.as_default():
        loss, variables = _model(lib, dtype, sparse)
        lr = lib.constant(0.05, dtype=lib.float32) if tensor_lr else 0.05
        opt = OPTIMIZERS[name](lib, lr, dtype)
        step = lib.train.get_or_create_global_step()
        train = opt.minimize(loss, global_step=step)
        slots = [opt.get_slot(v, s) for v in variables for s in opt.get_slot_names()]
        watched = variables + slots + [step]
        history = []
        with lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            for _ in range(steps):
                sess.run(train)
                history.append(sess.run(watched))
        names = [v.op.name for v in watched]
        return names, history, opt.get_slot_names()


# TF's CPU kernels of these updates are float and double only.
NO_HALF_KERNEL = {"adagrad_da", "adagrad_da_no_l1", "proximal_adagrad", "proximal_gd"}


def _no_half_kernel_like_tensorflow(tf1, name, sparse):
    for lib in (tf1, ff):
        with pytest.raises(
            lib.errors.InvalidArgumentError, match="No OpKernel was registered"
        ) as e:
            _train(lib, name, np.float16, 1, False, sparse=sparse)
        assert "T=DT_HALF" in str(e.value)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("tensor_lr", [False, True])
def test_dense_steps_match_tensorflow(tf1, name, dtype, tensor_lr):
    if dtype == np.float16 and name in NO_HALF_KERNEL:
        _no_half_kernel_like_tensorflow(tf1, name, sparse=False)
        return
    want_names, want, want_slots = _train(tf1, name, dtype, 4, tensor_lr)
    got_names, got, got_slots = _train(ff, name, dtype, 4, tensor_lr)
    assert got_slots == want_slots
    assert got_names == want_names  # slots named as TF names them (w/Momentum, w/Adam_1, ...)
    for step, (a, b) in enumerate(zip(got, want, strict=True)):
        for n, u, v in zip(got_names, a, b, strict=True):
            np.testing.assert_allclose(
                u, v, rtol=RTOL[dtype], atol=ATOL[dtype], err_msg=f"{n}@{step}"
            )


@pytest.mark.tf_oracle
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sparse_steps_match_tensorflow(tf1, name, dtype):
    if dtype == np.float16 and name in NO_HALF_KERNEL:
        _no_half_kernel_like_tensorflow(tf1, name, sparse=True)
        return
    # The embedding's gradient is IndexedSlices with a repeated row.
    want_names, want, _ = _train(tf1, name, dtype, 3, False, sparse=True)
    got_names, got, _ = _train(ff, name, dtype, 3, False, sparse=True)
    assert got_names == want_names
    rtol, atol = RTOL[dtype], ATOL[dtype]
    if dtype == np.float16 and name == "adam":
        # The embedding's second moment holds half subnormals, where a one-ulp
        # difference in a gradient moves sqrt(v) by a large fraction of epsilon.
        rtol = atol = 1e-2
    for a, b in zip(got, want, strict=True):
        for n, u, v in zip(got_names, a, b, strict=True):
            np.testing.assert_allclose(u, v, rtol=rtol, atol=atol, err_msg=n)


@pytest.mark.tf_oracle
def test_adam_non_slot_variables_match_tensorflow(tf1):
    def build(lib):
        loss, _ = _model(lib, np.float32)
        opt = lib.train.AdamOptimizer(0.1)
        train = opt.minimize(loss)
        names = sorted(v.op.name for v in lib.global_variables())
        return names, train

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        tf_names, _ = build(tf1)
    with g_ff.as_default():
        ff_names, train = build(ff)
        assert train.name == "Adam"
        assert ff.get_collection(ff.GraphKeys.TRAIN_OP) == [train]
    assert ff_names == tf_names


def test_optimizer_errors_like_tensorflow():
    with pytest.raises(ValueError, match="optimizer name"):
        ff.train.Optimizer(False, "")
    x = ff.constant([1.0, 2.0])
    opt = ff.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="No variables to optimize"):
        opt.compute_gradients(ff.reduce_sum(x))
    v = ff.Variable([1.0, 2.0])
    unused = ff.Variable([3.0])
    with pytest.raises(ValueError, match="gate_gradients"):
        opt.compute_gradients(ff.reduce_sum(v), gate_gradients=7)
    grads = opt.compute_gradients(ff.reduce_sum(v * x), var_list=[v, unused])
    assert grads[1] == (None, unused)
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.minimize(ff.reduce_sum(x) + 0.0 * ff.reduce_sum(ff.constant(1.0)), var_list=[unused])
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, v)])
    with pytest.raises(ValueError, match="No variables provided"):
        opt.apply_gradients([])
    with pytest.raises(TypeError, match="Gradient must be"):
        opt.apply_gradients([(object(), v)])
    i = ff.Variable([1, 2])
    with pytest.raises(ValueError, match="Invalid type"):
        opt.compute_gradients(ff.reduce_sum(i), var_list=[i])
    # As TF: a plain tensor in var_list gets its gradient, but cannot be updated.
    grads = opt.compute_gradients(ff.reduce_sum(v * x), var_list=[v, x])
    assert grads[1][1] is x and grads[1][0] is not None
    with pytest.raises(NotImplementedError, match="Trying to update a Tensor"):
        opt.apply_gradients(grads)
    with pytest.raises(NotImplementedError, match="unsupported type"):
        opt.compute_gradients(ff.reduce_sum(v), var_list=[v, "x"])


def test_global_step_helpers():
    assert ff.train.get_global_step() is None
    step = ff.train.get_or_create_global_step()
    assert step.op.name == "global_step" and step.dtype.base_dtype == ff.int64
    assert ff.train.get_or_create_global_step() is step
    with pytest.raises(ValueError, match="already exists"):
        ff.train.create_global_step()
    v = ff.Variable(2.0)
    train = ff.train.GradientDescentOptimizer(0.5).minimize(v * v, global_step=step)
    with ff.Session() as sess:
        sess.run(ff.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        assert ff.train.global_step(sess, step) == 3
        # Each step halves-and-doubles: v <- v - 0.5 * 2v = 0.
        assert sess.run(v) == 0.0


def test_global_step_is_tfs_get_variable(tf1):
    results = []
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            with lib.variable_scope("s"):
                step = lib.train.get_or_create_global_step()
            with lib.variable_scope("s", reuse=True):
                same = lib.get_variable("global_step", dtype=lib.int64) is step
            results.append((step.name, same, [op.name for op in g.get_operations()]))
    assert results[1] == results[0]


def test_scatter_ops_and_errors():
    v = ff.Variable(np.zeros((4, 2), np.float32))
    add = ff.scatter_add(v, [1, 3, 1], [[1, 1], [2, 2], [3, 3]])
    sub = ff.scatter_sub(v, [0], [[1, 2]])
    upd = ff.scatter_update(v, [2], [[7, 8]])
    bad = ff.scatter_add(v, ff.placeholder(ff.int32, [1]), [[1, 1]])
    with ff.Session() as sess:
        sess.run(v.initializer)
        sess.run([add])
        sess.run(sub)
        out = sess.run(upd)
        np.testing.assert_array_equal(out, [[-1, -2], [4, 4], [7, 8], [2, 2]])
        with pytest.raises(ff.errors.InvalidArgumentError, match="not in"):
            sess.run(bad, {bad.op.inputs[1]: [4]})
    with pytest.raises(ValueError, match="updates"):
        ff.scatter_add(v, [0, 1], [[1.0, 2.0]])


@pytest.mark.tf_oracle
def test_unique_matches_tensorflow(tf1):
    from conftest import run_ff, run_tf

    def build(lib):
        r = lib.unique([4, 1, 4, 4, 7, 1, 0], out_idx=lib.int64)
        f = lib.unique(lib.constant([0.5, -0.0, 0.0, 0.5]))
        return [r.y, r.idx, f.y, f.idx]

    for a, b in zip(run_ff(build), run_tf(tf1, build), strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.tf_oracle
def test_constructor_validation_matches_tensorflow(tf1):
    bad = [
        lambda lib: lib.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0),
        lambda lib: lib.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=-1.0),
        lambda lib: lib.train.AdagradDAOptimizer(0.1, None, 0.0),
        lambda lib: lib.train.FtrlOptimizer(0.1, initial_accumulator_value=-0.1),
        lambda lib: lib.train.FtrlOptimizer(0.1, learning_rate_power=0.5),
        lambda lib: lib.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0),
        lambda lib: lib.train.FtrlOptimizer(0.1, l2_regularization_strength=-1.0),
        lambda lib: lib.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=-1.0),
    ]
    for make in bad:
        with pytest.raises(ValueError) as want:
            make(tf1)
        with pytest.raises(ValueError) as got:
            make(ff)
        assert str(got.value) == str(want.value)


@pytest.mark.tf_oracle
def test_slot_names_match_tensorflow(tf1):
    def names(lib, make):
        with lib.Graph().as_default():
            loss, _ = _model(lib, np.float32)
            opt = make(lib)
            opt.minimize(loss, global_step=lib.train.get_or_create_global_step())
            return sorted(v.op.name for v in lib.global_variables()), opt.get_slot_names()

    for name in ("adadelta", "adagrad_da", "ftrl", "rmsprop_centered", "proximal_adagrad"):
        make = lambda lib, name=name: OPTIMIZERS[name](lib, 0.1, np.float32)  # noqa: E731
        assert names(ff, make) == names(tf1, make), name


def test_sparse_update_errors_name_the_problem():
    from ferroflow.ops import training_ops

    with ff.Graph().as_default():
        var = ff.Variable(np.zeros((3, 2), np.float32))
        acc = ff.Variable(np.ones((3, 2), np.float32))
        idx = ff.placeholder(ff.int32, [None])
        grad = ff.placeholder(ff.float32, [None, 2])
        up = training_ops.sparse_apply_adagrad(var, acc, 0.1, grad, idx)
        with pytest.raises(ValueError, match="rank 1"):
            training_ops.sparse_apply_adagrad(var, acc, 0.1, grad, [[0]])
        with pytest.raises(ValueError, match="does not match var"):
            training_ops.sparse_apply_adagrad(var, acc, 0.1, np.ones((1, 3), np.float32), [0])
        with pytest.raises(TypeError):
            training_ops.sparse_apply_adagrad(var, acc, 0.1, grad, [0.5])
        with ff.Session() as sess:
            with pytest.raises(ff.errors.FailedPreconditionError, match="uninitialized"):
                sess.run(up, {idx: [0], grad: np.ones((1, 2))})
            sess.run(ff.global_variables_initializer())
            with pytest.raises(ff.errors.InvalidArgumentError, match="out of range"):
                sess.run(up, {idx: [3], grad: np.ones((1, 2))})
            with pytest.raises(ff.errors.InvalidArgumentError, match="first dimension"):
                sess.run(up, {idx: [0, 1], grad: np.ones((1, 2))})
            # Nothing was written by the failed runs.
            np.testing.assert_array_equal(sess.run(var), np.zeros((3, 2)))
            sess.run(up, {idx: [2, 2], grad: np.ones((2, 2))})
            want_acc = np.ones((3, 2))
            want_acc[2] = 3.0
            np.testing.assert_allclose(sess.run(acc), want_acc)


def test_a_variable_passed_twice_is_an_error_not_a_deadlock():
    from ferroflow.ops import training_ops

    v = ff.Variable(np.ones(3, np.float32))
    up = training_ops.apply_adagrad(v, v, 0.1, np.ones(3, np.float32))
    with ff.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(ff.errors.InvalidArgumentError, match="passed twice"):
            sess.run(up)
