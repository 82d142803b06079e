"""The fused update kernels against a plain numpy reference, for sizes around the
vector widths and the thread-split threshold (hypothesis), dense and sparse."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroflow as ff
from ferroflow.ops import training_ops

SIZES = st.one_of(st.integers(0, 70), st.sampled_from([127, 129, 1 << 16, (1 << 17) + 3]))
TOL = {np.float32: {"rtol": 2e-6, "atol": 1e-7}, np.float64: {"rtol": 1e-13, "atol": 1e-15}}


def _run(dtype, arrays, build):
    with ff.Graph().as_default():
        variables = [ff.Variable(a) for a in arrays[:-1]]
        update = build(variables, ff.constant(arrays[-1]))
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            sess.run(update)
            return sess.run(variables)


@settings(max_examples=25, deadline=None)
@given(n=SIZES, dtype=st.sampled_from([np.float32, np.float64]), nesterov=st.booleans())
def test_dense_kernels_match_numpy(n, dtype, nesterov):
    rng = np.random.default_rng(n)
    p, a, v, g = (rng.normal(size=n).astype(dtype) for _ in range(4))
    v = np.abs(v)
    lr, mom, b1, b2, eps, b1p, b2p = (dtype(x) for x in (0.1, 0.9, 0.8, 0.95, 1e-6, 0.64, 0.9025))

    (sgd,) = _run(dtype, [p, g], lambda vs, gr: training_ops.apply_gradient_descent(vs[0], lr, gr))
    np.testing.assert_allclose(sgd, p - lr * g, **TOL[dtype])

    def momentum(vs, gr):
        return training_ops.apply_momentum(vs[0], vs[1], lr, gr, mom, use_nesterov=nesterov)

    got_p, got_a = _run(dtype, [p, a, g], momentum)
    want_a = a * mom + g
    want_p = p - (g * lr + want_a * mom * lr) if nesterov else p - want_a * lr
    np.testing.assert_allclose(got_a, want_a, **TOL[dtype])
    np.testing.assert_allclose(got_p, want_p, **TOL[dtype])

    def adam(vs, gr):
        return training_ops.apply_adam(vs[0], vs[1], vs[2], b1p, b2p, lr, b1, b2, eps, gr)

    got_p, got_m, got_v = _run(dtype, [p, a, v, g], adam)
    alpha = lr * np.sqrt(1 - b2p) / (1 - b1p)
    want_m = a + (g - a) * (1 - b1)
    want_v = v + (g * g - v) * (1 - b2)
    np.testing.assert_allclose(got_m, want_m, **TOL[dtype])
    np.testing.assert_allclose(got_v, want_v, **TOL[dtype])
    np.testing.assert_allclose(got_p, p - want_m * alpha / (np.sqrt(want_v) + eps), **TOL[dtype])


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 9), width=st.integers(1, 20), data=st.data())
def test_sparse_momentum_matches_numpy(rows, width, data):
    idx = data.draw(st.lists(st.integers(0, rows - 1), max_size=6))
    rng = np.random.default_rng(rows * 31 + width)
    p, a = rng.normal(size=(rows, width)), rng.normal(size=(rows, width))
    g = rng.normal(size=(len(idx), width))
    with ff.Graph().as_default():
        var, acc = ff.Variable(p), ff.Variable(a)
        idx_t = ff.constant(np.array(idx, np.int64).reshape(-1))
        up = training_ops.sparse_apply_momentum(var, acc, 0.1, g.reshape(-1, width), idx_t, 0.9)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            sess.run(up)
            got_p, got_a = sess.run([var, acc])
    want_p, want_a = p.copy(), a.copy()
    for i, r in enumerate(idx):  # in order: a repeated row is updated twice
        want_a[r] = want_a[r] * 0.9 + g[i]
        want_p[r] -= 0.1 * want_a[r]
    np.testing.assert_allclose(got_a, want_a, rtol=1e-13)
    np.testing.assert_allclose(got_p, want_p, rtol=1e-13)


def test_kernel_errors_name_the_problem():
    with ff.Graph().as_default():
        v = ff.Variable(np.zeros(3, np.float32))
        g = ff.placeholder(ff.float32, None)
        up = training_ops.apply_gradient_descent(v, 0.1, g)
        with pytest.raises(ValueError, match="rank 0"):
            training_ops.apply_gradient_descent(v, [0.1, 0.2], ff.zeros([3]))
        with pytest.raises(ValueError, match="Shapes"):
            training_ops.apply_gradient_descent(v, 0.1, ff.zeros([4]))
        acc = ff.Variable(np.zeros((3, 2)))
        w = ff.Variable(np.zeros((3, 2)))
        sparse = training_ops.sparse_apply_momentum(w, acc, 0.1, np.ones((1, 2)), [5], 0.9)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            with pytest.raises(ff.errors.InvalidArgumentError, match="same shape"):
                sess.run(up, {g: np.zeros(4, np.float32)})
            with pytest.raises(ff.errors.InvalidArgumentError, match="out of range"):
                sess.run(sparse)


# Every raw optimizer op against TF's on the same inputs: the slots start positive
# (accumulators), hyper-parameters are chosen so the L1 thresholds both zero some
# entries and keep others, and the sparse forms get a repeated index.
_SLOTS = {
    "ApplyGradientDescent": [],
    "ApplyProximalGradientDescent": [],
    "ApplyAdadelta": ["accum", "accum_update"],
    "ApplyAdagrad": ["accum"],
    "ApplyProximalAdagrad": ["accum"],
    "ApplyAdagradDA": ["gradient_accumulator", "gradient_squared_accumulator"],
    "ApplyFtrl": ["accum", "linear"],
    "ApplyFtrlV2": ["accum", "linear"],
    "ApplyMomentum": ["accum"],
    "ApplyAdam": ["m", "v"],
    "ApplyRMSProp": ["ms", "mom"],
    "ApplyCenteredRMSProp": ["mg", "ms", "mom"],
}
_HYPER = {
    "ApplyGradientDescent": [{"alpha": 0.3}],
    "ApplyProximalGradientDescent": [
        {"alpha": 0.3, "l1": 0.4, "l2": 0.2},
        {"alpha": 0.3, "l1": 0.0, "l2": 0.2},
    ],
    "ApplyAdadelta": [{"lr": 0.9, "rho": 0.8, "epsilon": 1e-3}],
    "ApplyAdagrad": [{"lr": 0.3}, {"lr": 0.3, "update_slots": False}],
    "ApplyProximalAdagrad": [{"lr": 0.3, "l1": 0.2, "l2": 0.1}, {"lr": 0.3, "l1": 0.0, "l2": 0.0}],
    "ApplyAdagradDA": [
        {"lr": 0.3, "l1": 0.1, "l2": 0.2, "global_step": 3},
        {"lr": 0.3, "l1": 0.0, "l2": 0.2, "global_step": 1},
    ],
    "ApplyFtrl": [
        {"lr": 0.3, "l1": 0.5, "l2": 0.2, "lr_power": -0.5},
        {"lr": 0.3, "l1": 0.5, "l2": 0.2, "lr_power": -0.6},
        {"lr": 0.3, "l1": 0.5, "l2": 0.2, "lr_power": -0.5, "multiply_linear_by_lr": True},
    ],
    "ApplyFtrlV2": [
        {"lr": 0.3, "l1": 0.5, "l2": 0.2, "l2_shrinkage": 0.1, "lr_power": -0.5},
        {"lr": 0.3, "l1": 0.5, "l2": 0.2, "l2_shrinkage": 0.1, "lr_power": 0.0},
    ],
    "ApplyMomentum": [
        {"lr": 0.3, "momentum": 0.9},
        {"lr": 0.3, "momentum": 0.9, "use_nesterov": True},
    ],
    "ApplyAdam": [
        {
            "beta1_power": 0.81,
            "beta2_power": 0.9,
            "lr": 0.3,
            "beta1": 0.9,
            "beta2": 0.95,
            "epsilon": 1e-3,
        }
    ],
    "ApplyRMSProp": [{"lr": 0.3, "rho": 0.8, "momentum": 0.5, "epsilon": 1e-3}],
    "ApplyCenteredRMSProp": [{"lr": 0.3, "rho": 0.8, "momentum": 0.5, "epsilon": 1e-3}],
}
_NO_SPARSE = {"ApplyGradientDescent", "ApplyAdam"}
_CASES = [
    (op, i, sparse)
    for op, hypers in _HYPER.items()
    for i in range(len(hypers))
    for sparse in (False, True)
    if not (sparse and op in _NO_SPARSE)
]


def _snake(op_type):
    import re

    name = op_type.replace("RMSProp", "RmsProp").replace("AdagradDA", "AdagradDa")
    return re.sub(r"(?<!^)(?=[A-Z0-9])", "_", name).lower().replace("v_2", "v2")


def _raw_update(lib, op_type, sparse, hyper, dtype, rng_seed):
    rng = np.random.default_rng(rng_seed)
    shape = (6, 3)
    var = lib.Variable(rng.normal(size=shape).astype(dtype), name="var")
    slots = [
        lib.Variable((rng.uniform(0.1, 1.0, size=shape)).astype(dtype), name=s)
        for s in _SLOTS[op_type]
    ]
    indices = np.array([4, 0, 4, 2], np.int64)
    grad = rng.normal(size=(len(indices), 3) if sparse else shape).astype(dtype)
    kwargs = {"var": var, **dict(zip(_SLOTS[op_type], slots, strict=True))}
    for k, v in hyper.items():
        if isinstance(v, bool):
            kwargs[k] = v
        elif k == "global_step":
            kwargs[k] = lib.constant(v, lib.int64)
        else:
            kwargs[k] = lib.constant(v, lib.as_dtype(dtype))
    grad_name = (
        "delta" if op_type in ("ApplyGradientDescent", "ApplyProximalGradientDescent") else "grad"
    )
    if sparse:
        kwargs["grad"], kwargs["indices"] = lib.constant(grad), lib.constant(indices)
    else:
        kwargs[grad_name] = lib.constant(grad)
    op_name = ("Sparse" + op_type) if sparse else op_type
    if lib is ff:
        update = getattr(training_ops, _snake(op_name))(**kwargs)
    else:
        update = getattr(lib.raw_ops, op_name)(**kwargs)
    return update, [var, *slots]


@pytest.mark.tf_oracle
@pytest.mark.parametrize(("op_type", "case", "sparse"), _CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_raw_ops_match_tensorflow(tf1, op_type, case, sparse, dtype):
    results = []
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            update, watched = _raw_update(lib, op_type, sparse, _HYPER[op_type][case], dtype, 7)
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                steps = []
                for _ in range(3):
                    sess.run(update)
                    steps.append(sess.run(watched))
                results.append(steps)
    tol = {np.float32: {"rtol": 2e-5, "atol": 1e-6}, np.float64: {"rtol": 1e-12, "atol": 1e-13}}
    for want, got in zip(*results, strict=True):
        for w, g in zip(want, got, strict=True):
            np.testing.assert_allclose(g, w, **tol[dtype])


def test_wrappers_derived_from_the_registry_have_tensorflows_signatures(tf1):
    """The wrappers are made from the core's op table; each has TF's signature."""
    import inspect

    from tensorflow.python.ops import gen_training_ops

    from ferroflow.ops import training_ops

    assert len(training_ops.__all__) == 22
    for name in training_ops.__all__:
        ours = inspect.signature(getattr(training_ops, name))
        theirs = inspect.signature(getattr(gen_training_ops, name))
        assert [(p.name, p.default) for p in ours.parameters.values()] == [
            (p.name, p.default) for p in theirs.parameters.values()
        ], name
    for op_type, *_ in ff._ferroflow.training_op_signatures():
        doc = getattr(training_ops, training_ops._snake_case(op_type)).__doc__
        assert f"Adds TF's `{op_type}` op" in doc, doc


def test_the_typing_stub_is_the_generated_one():
    """`training_ops.pyi` lists every wrapper the table makes, with its signature."""
    from pathlib import Path

    stub = Path(training_ops.__file__).with_suffix(".pyi")
    assert stub.read_text() == training_ops._stub_text(), (
        "regenerate python/ferroflow/ops/training_ops.pyi (see training_ops._stub_text)"
    )
