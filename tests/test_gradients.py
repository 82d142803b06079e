"""`tf.gradients`: values against TensorFlow and finite differences, and its semantics.

The differential checks build the same program with TensorFlow and ferroflow on
placeholders, differentiate it with one random `grad_ys` (so that gradients which sum
to zero, such as softmax's, are still checked), and compare the values.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tests.gradcheck import (
    FLOATS,
    SEEDS,
    TOL,
    check_against_tf,
    check_finite_differences,
    values,
)

import ferroflow as ff


def _flip_float(lib, x):
    return lib.cast(x, lib.float64 if x.dtype == lib.float32 else lib.float32)


UNARY = {
    "negative": (lambda lib, x: lib.negative(x), "any"),
    "neg_operator": (lambda lib, x: -x, "any"),
    "square": (lambda lib, x: lib.square(x), "any"),
    "abs": (lambda lib, x: lib.abs(x), "nonzero"),
    "abs_operator": (lambda lib, x: abs(x), "nonzero"),
    "sign": (lambda lib, x: lib.sign(x), "nonzero"),
    "sqrt": (lambda lib, x: lib.sqrt(x), "pos"),
    "rsqrt": (lambda lib, x: lib.rsqrt(x), "pos"),
    "reciprocal": (lambda lib, x: lib.reciprocal(x), "nonzero"),
    "exp": (lambda lib, x: lib.exp(x), "any"),
    "log": (lambda lib, x: lib.log(x), "pos"),
    "log1p": (lambda lib, x: lib.log1p(x), "pos"),
    "tanh": (lambda lib, x: lib.tanh(x), "any"),
    "sigmoid": (lambda lib, x: lib.sigmoid(x), "any"),
    "sin": (lambda lib, x: lib.sin(x), "any"),
    "cos": (lambda lib, x: lib.cos(x), "any"),
    "nn.relu": (lambda lib, x: lib.nn.relu(x), "nonzero"),
    "nn.relu6": (lambda lib, x: lib.nn.relu6(x), "relu6"),
    "nn.elu": (lambda lib, x: lib.nn.elu(x), "nonzero"),
    "nn.selu": (lambda lib, x: lib.nn.selu(x), "nonzero"),
    "nn.softsign": (lambda lib, x: lib.nn.softsign(x), "nonzero"),
    "nn.softplus": (lambda lib, x: lib.nn.softplus(x), "any"),
    "nn.sigmoid": (lambda lib, x: lib.nn.sigmoid(x), "any"),
    "nn.tanh": (lambda lib, x: lib.nn.tanh(x), "any"),
    "nn.l2_loss": (lambda lib, x: lib.nn.l2_loss(x), "any"),
    "identity": (lambda lib, x: lib.identity(x), "any"),
    "cast_between_floats": (lambda lib, x: _flip_float(lib, x) * 3.0, "any"),
    "cast_round_trip": (lambda lib, x: lib.cast(_flip_float(lib, x), x.dtype), "any"),
    "placeholder_with_default": (
        lambda lib, x: lib.placeholder_with_default(x, [None] * x.shape.ndims) * 2.0,
        "any",
    ),
    "stop_gradient": (lambda lib, x: lib.stop_gradient(x) * 2.0, "any"),
    "stop_gradient_partial": (lambda lib, x: lib.stop_gradient(x) * x, "any"),
    "zeros_like": (lambda lib, x: lib.zeros_like(x) + lib.ones_like(x), "any"),
    "chain": (lambda lib, x: lib.exp(lib.sin(x) * lib.tanh(x)) / (1.0 + lib.square(x)), "any"),
}


@pytest.mark.tf_oracle
@settings(max_examples=50, deadline=None)
@given(
    name=st.sampled_from(sorted(UNARY)),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_unary_gradients_match_tensorflow(tf1, name, shape, dtype, dynamic, seed):
    build, domain = UNARY[name]
    x = values(np.random.default_rng(seed), shape, dtype, domain)
    check_against_tf(tf1, build, [x], dynamic=dynamic, seed=seed)


BINARY = {
    "add": (lambda lib, x, y: lib.add(x, y), "any", "any"),
    "add_operator": (lambda lib, x, y: x + y, "any", "any"),
    "subtract": (lambda lib, x, y: lib.subtract(x, y), "any", "any"),
    "sub_operator": (lambda lib, x, y: x - y, "any", "any"),
    "multiply": (lambda lib, x, y: lib.multiply(x, y), "any", "any"),
    "mul_operator": (lambda lib, x, y: x * y, "any", "any"),
    "divide": (lambda lib, x, y: lib.divide(x, y), "any", "nonzero"),
    "truediv": (lambda lib, x, y: lib.truediv(x, y), "any", "nonzero"),
    "div": (lambda lib, x, y: lib.div(x, y), "any", "nonzero"),
    "div_operator": (lambda lib, x, y: x / y, "any", "nonzero"),
    "maximum": (lambda lib, x, y: lib.maximum(x, y), "any", "any"),
    "minimum": (lambda lib, x, y: lib.minimum(x, y), "any", "any"),
    "squared_difference": (lambda lib, x, y: lib.squared_difference(x, y), "any", "any"),
    "pow": (lambda lib, x, y: lib.pow(x, y), "pos", "any"),
    "pow_operator": (lambda lib, x, y: x**y, "pos", "any"),
    "floormod": (lambda lib, x, y: lib.floormod(x, y), "any", "nonzero"),
    "mod_operator": (lambda lib, x, y: x % y, "any", "nonzero"),
    "floordiv": (lambda lib, x, y: lib.floordiv(x, y) * x, "any", "nonzero"),
    "mixed": (lambda lib, x, y: lib.sqrt(lib.square(x) + 1.0) * lib.sin(y) - x / 2.0, "any", "any"),
}


@pytest.mark.tf_oracle
@settings(max_examples=50, deadline=None)
@given(
    name=st.sampled_from(sorted(BINARY)),
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_broadcasting_binary_gradients_match_tensorflow(tf1, name, shapes, dtype, dynamic, seed):
    build, dx, dy = BINARY[name]
    rng = np.random.default_rng(seed)
    x = values(rng, shapes.input_shapes[0], dtype, dx)
    y = values(rng, shapes.input_shapes[1], dtype, dy)
    xb, yb = np.broadcast_arrays(x.astype(np.float64), y.astype(np.float64))
    if name in ("maximum", "minimum"):
        assume(np.all(np.abs(xb - yb) > 1e-3))
    if name in ("floormod", "mod_operator", "floordiv"):
        q = xb / yb
        assume(np.all(np.abs(q - np.round(q)) > 1e-3))
    check_against_tf(tf1, build, [x, y], dynamic=dynamic, seed=seed)


REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"]


@pytest.mark.tf_oracle
@settings(max_examples=50, deadline=None)
@given(
    data=st.data(),
    name=st.sampled_from(REDUCE),
    keepdims=st.booleans(),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_reduction_gradients_match_tensorflow(tf1, data, name, keepdims, dtype, dynamic, seed):
    # Sums and means over empty dimensions are fine; max/min/prod get non-empty inputs.
    min_side = 0 if name in ("reduce_sum", "reduce_mean") else 1
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=min_side, max_side=3))
    rank = len(shape)
    axis = data.draw(
        st.none()
        | st.integers(-rank, rank - 1)
        | st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True).map(
            lambda a: [i - rank if i % 2 else i for i in a]  # some negative
        )
    )
    # Products see zeros too: TF's gradient (exclusive cumprods) is exact there.
    domain = {"reduce_max": "distinct", "reduce_min": "distinct", "reduce_prod": "unit_zeros"}
    x = values(np.random.default_rng(seed), shape, dtype, domain.get(name, "any"))

    def build(lib, x):
        return getattr(lib, name)(x, axis=axis, keepdims=keepdims)

    check_against_tf(tf1, build, [x], dynamic=dynamic, seed=seed)


@pytest.mark.tf_oracle
@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    product=st.booleans(),
    exclusive=st.booleans(),
    reverse=st.booleans(),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_cumsum_and_cumprod_match_tensorflow(
    tf1, data, product, exclusive, reverse, dtype, dynamic, seed
):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = values(np.random.default_rng(seed), shape, dtype, "unit_zeros" if product else "any")
    name = "cumprod" if product else "cumsum"

    def build(lib, t):
        return getattr(lib, name)(t, axis, exclusive=exclusive, reverse=reverse)

    check_against_tf(tf1, build, [x], dynamic=dynamic, seed=seed)


@pytest.mark.tf_oracle
@settings(max_examples=30, deadline=None)
@given(
    m=st.integers(1, 4),
    k=st.integers(1, 4),
    n=st.integers(1, 4),
    ta=st.booleans(),
    tb=st.booleans(),
    operator=st.booleans(),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_matmul_gradients_match_tensorflow(tf1, m, k, n, ta, tb, operator, dtype, dynamic, seed):
    rng = np.random.default_rng(seed)
    a = values(rng, (k, m) if ta else (m, k), dtype)
    b = values(rng, (n, k) if tb else (k, n), dtype)
    if operator:
        ta = tb = False
        a, b = values(rng, (m, k), dtype), values(rng, (k, n), dtype)

    def build(lib, a, b):
        if operator:
            return a @ b
        return lib.matmul(a, b, transpose_a=ta, transpose_b=tb)

    check_against_tf(tf1, build, [a, b], dynamic=dynamic, seed=seed)


@pytest.mark.tf_oracle
@settings(max_examples=30, deadline=None)
@given(
    data=st.data(),
    log=st.booleans(),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_softmax_gradients_match_tensorflow(tf1, data, log, dtype, dynamic, seed):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    if dynamic and axis not in (None, -1, len(shape) - 1):
        dynamic = False  # a non-last axis needs a known rank (the placeholder keeps it anyway)
    x = values(np.random.default_rng(seed), shape, dtype)

    def build(lib, x):
        f = lib.nn.log_softmax if log else lib.nn.softmax
        return f(x, axis=axis)

    check_against_tf(tf1, build, [x], dynamic=dynamic, seed=seed)


def _distribution(rng, shape, dtype):
    p = rng.uniform(0.1, 1.0, shape)
    return (p / p.sum(axis=-1, keepdims=True)).astype(dtype)


@pytest.mark.tf_oracle
@settings(max_examples=30, deadline=None)
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
    v2=st.booleans(),
    dtype=FLOATS,
    seed=SEEDS,
)
def test_softmax_xent_gradients_match_tensorflow(tf1, shape, v2, dtype, seed):
    rng = np.random.default_rng(seed)
    logits = values(rng, shape, dtype)
    labels = _distribution(rng, shape, dtype)

    def build(lib, logits, labels):
        f = (
            lib.nn.softmax_cross_entropy_with_logits_v2
            if v2
            else lib.nn.softmax_cross_entropy_with_logits
        )
        return f(labels=labels, logits=logits)

    # v1 stops the gradient into labels (None), v2 does not.
    check_against_tf(tf1, build, [logits, labels], seed=seed)


@pytest.mark.tf_oracle
@settings(max_examples=30, deadline=None)
@given(
    shape=hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=4),
    label_dtype=st.sampled_from([np.int32, np.int64]),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_sparse_xent_gradients_match_tensorflow(tf1, shape, label_dtype, dtype, dynamic, seed):
    rng = np.random.default_rng(seed)
    logits = values(rng, shape, dtype)
    labels = rng.integers(0, shape[-1], shape[:-1]).astype(label_dtype)

    def build(lib, logits):
        return lib.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)

    check_against_tf(tf1, build, [logits], dynamic=dynamic, seed=seed)


@pytest.mark.tf_oracle
@settings(max_examples=25, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    dtype=FLOATS,
    seed=SEEDS,
)
def test_sigmoid_xent_gradients_match_tensorflow(tf1, shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    shape = shapes.result_shape  # logits and labels have one shape
    logits = values(rng, shape, dtype, "nonzero")
    labels = rng.uniform(0, 1, shape).astype(dtype)

    def build(lib, logits, labels):
        return lib.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)

    check_against_tf(tf1, build, [logits, labels], seed=seed)


@pytest.mark.tf_oracle
@settings(max_examples=25, deadline=None)
@given(
    shape=hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=3),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_bias_add_and_moments_gradients_match_tensorflow(tf1, shape, dtype, dynamic, seed):
    rng = np.random.default_rng(seed)
    value = values(rng, shape, dtype)
    bias = values(rng, shape[-1:], dtype)

    def build(lib, value, bias):
        return lib.nn.bias_add(value, bias) * 2.0

    check_against_tf(tf1, build, [value, bias], dynamic=dynamic, seed=seed)

    if 0 in shape:
        return
    axes = [0, len(shape) - 1]

    def build_moments(lib, value):
        mean, variance = lib.nn.moments(value, axes)
        return mean * 3.0 + variance

    check_against_tf(tf1, build_moments, [value], seed=seed)


# -- array ops -------------------------------------------------------------------------


@pytest.mark.tf_oracle
@settings(max_examples=20, deadline=None)
@given(
    data=st.data(),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_reshape_squeeze_expand_dims_gradients_match_tensorflow(tf1, data, dtype, dynamic, seed):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3))
    rng = np.random.default_rng(seed)
    x = values(rng, shape, dtype)
    new = [int(d) for d in rng.permutation([*shape, 1])]
    if new:
        new[int(rng.integers(len(new)))] = -1
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    ones = [i for i, d in enumerate(shape) if d == 1]
    squeeze_axis = None
    if ones:
        squeeze_axis = data.draw(
            st.none() | st.lists(st.sampled_from(ones), unique=True, min_size=1)
        )

    def build(lib, x):
        r = lib.reshape(x, new)
        e = lib.expand_dims(x, axis)
        s = lib.squeeze(x, squeeze_axis)
        return lib.stack(
            [lib.reduce_sum(r * r), lib.reduce_sum(lib.sin(e)), lib.reduce_sum(lib.exp(s))]
        )

    check_against_tf(tf1, build, [x], dynamic=dynamic, seed=seed)


@pytest.mark.tf_oracle
@settings(max_examples=20, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 3),
    dtype=FLOATS,
    dynamic=st.booleans(),
    seed=SEEDS,
)
def test_stack_unstack_concat_add_n_gradients_match_tensorflow(tf1, data, n, dtype, dynamic, seed):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    rank = len(shape)
    rng = np.random.default_rng(seed)
    xs = [values(rng, shape, dtype) for _ in range(n)]
    stack_axis = data.draw(st.integers(-rank - 1, rank))
    unstack_axis = data.draw(st.integers(-rank, rank - 1))
    concat_axis = data.draw(st.integers(-rank, rank - 1))
    stacked_shape = np.stack(xs, axis=stack_axis).shape
    # Concatenated pieces differ along the axis (one may be empty).
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    pieces = []
    for s in sizes:
        ps = list(shape)
        ps[concat_axis] = s
        pieces.append(values(rng, ps, dtype))

    def build(lib, *args):
        xs, pieces = args[:n], args[n:]
        st_ = lib.stack(list(xs), axis=stack_axis)
        outs = lib.unstack(st_, num=stacked_shape[unstack_axis], axis=unstack_axis)
        # Only some outputs of the Unpack are used: the others get zero gradients.
        un = outs[0] * 2.0 if len(outs) == 1 else outs[0] * 2.0 + outs[-1]
        parts = [lib.reduce_sum(lib.square(un)), lib.reduce_sum(lib.add_n([x * x for x in xs]))]
        if n > 1:
            c = lib.concat(list(pieces), axis=concat_axis)
            parts.append(lib.reduce_sum(lib.sin(c)))
        return lib.stack(parts)

    check_against_tf(tf1, build, xs + pieces, dynamic=dynamic, seed=seed)


@pytest.mark.tf_oracle
def test_concat_gradient_with_a_fed_axis_and_unknown_shapes(tf1):
    a, b = np.arange(6.0).reshape(2, 3), np.arange(4.0).reshape(2, 2)

    def build(lib):
        x, y = lib.placeholder(lib.float64, None), lib.placeholder(lib.float64, None)
        axis = lib.placeholder(lib.int32, [])
        c = lib.concat([x, y], axis)
        grads = lib.gradients(lib.reduce_sum(lib.sin(c) * 3.0), [x, y])
        return (x, y, axis), grads

    results = []
    for lib, g in ((tf1, tf1.Graph()), (ff, ff.Graph())):
        with g.as_default():
            (x, y, axis), grads = build(lib)
            with lib.Session(graph=g) as sess:
                results.append(sess.run(grads, {x: a, y: b, axis: -1}))
                with pytest.raises(lib.errors.InvalidArgumentError):
                    sess.run(grads, {x: a, y: b, axis: 0})
    for got, want in zip(results[1], results[0], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.tf_oracle
@settings(max_examples=20, deadline=None)
@given(
    data=st.data(),
    dtype=FLOATS,
    seed=SEEDS,
)
def test_transpose_slice_broadcast_to_gradients_match_tensorflow(tf1, data, dtype, seed):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=3))
    rng = np.random.default_rng(seed)
    x = values(rng, shape, dtype)
    perm = data.draw(st.permutations(range(len(shape))))
    default_perm = data.draw(st.booleans())
    begin = [data.draw(st.integers(0, d - 1)) for d in shape]
    size = [data.draw(st.integers(-1, d - b)) for d, b in zip(shape, begin, strict=True)]
    target = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=1, base_shape=shape))
    target = list(target.result_shape)

    def build(lib, x):
        t = lib.transpose(x) if default_perm else lib.transpose(x, perm)
        s = lib.slice(x, begin, size)
        b = lib.broadcast_to(x, target)
        return lib.stack(
            [lib.reduce_sum(t * t * t), lib.reduce_sum(lib.exp(s)), lib.reduce_sum(lib.sin(b))]
        )

    check_against_tf(tf1, build, [x], seed=seed)


@pytest.mark.tf_oracle
@settings(max_examples=30, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3),
    dtype=FLOATS,
    seed=SEEDS,
)
def test_select_gradients_match_tensorflow(tf1, shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    cond = rng.random(shapes.input_shapes[0]) < 0.5
    x = values(rng, shapes.input_shapes[1], dtype)
    y = values(rng, shapes.input_shapes[2], dtype)

    def build(lib, x, y):
        # `where_v2` broadcasts the three (TF-1.x's `where` picks rows instead).
        return lib.where_v2(cond, x, y) * 2.0 + lib.where_v2(cond, y, x)

    check_against_tf(tf1, build, [x, y], seed=seed)


@pytest.mark.tf_oracle
@settings(max_examples=20, deadline=None)
@given(
    params_shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
    indices_shape=hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4),
    dtype=FLOATS,
    index_dtype=st.sampled_from([np.int32, np.int64]),
    seed=SEEDS,
)
def test_gather_and_segment_sum_gradients_match_tensorflow(
    tf1, params_shape, indices_shape, dtype, index_dtype, seed
):
    rng = np.random.default_rng(seed)
    params = values(rng, params_shape, dtype)
    indices = rng.integers(0, params_shape[0], indices_shape).astype(index_dtype)
    num_segments = int(rng.integers(1, 5))
    segment_ids = rng.integers(0, num_segments, params_shape[:1]).astype(index_dtype)
    mask = rng.random(params_shape[:1]) < 0.5

    def build(lib, params):
        parts = [
            lib.reduce_sum(lib.sin(lib.gather(params, indices))),
            lib.reduce_sum(lib.exp(lib.nn.embedding_lookup(params, indices))),
            lib.reduce_sum(lib.square(lib.unsorted_segment_sum(params, segment_ids, num_segments))),
            lib.reduce_sum(lib.cos(lib.boolean_mask(params, mask))),
        ]
        return lib.stack(parts)

    check_against_tf(tf1, build, [params], seed=seed)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fill_and_scalar_broadcast_gradients_match_tensorflow(tf1, dtype):
    x = np.asarray(1.5, dtype)

    def build(lib, x):
        return lib.fill([2, 3], x) * lib.constant(np.arange(6, dtype=dtype).reshape(2, 3))

    check_against_tf(tf1, build, [x])


# -- finite differences ----------------------------------------------------------------

FD_CASES = {
    **{k: UNARY[k] for k in ("square", "sqrt", "reciprocal", "tanh", "sigmoid", "nn.elu")},
    **{k: UNARY[k] for k in ("nn.softplus", "chain", "nn.l2_loss", "log1p", "sin", "exp")},
    **{k: UNARY[k] for k in ("nn.selu", "nn.softsign")},
}
FD_BINARY = {k: BINARY[k] for k in ("add", "subtract", "multiply", "divide", "pow", "mixed")}


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(sorted(FD_CASES)),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3),
    seed=SEEDS,
)
def test_unary_gradients_match_finite_differences(name, shape, seed):
    build, domain = FD_CASES[name]
    x = values(np.random.default_rng(seed), shape, np.float64, domain)
    check_finite_differences(build, [x], seed)


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(sorted(FD_BINARY)),
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    seed=SEEDS,
)
def test_broadcasting_binary_gradients_match_finite_differences(name, shapes, seed):
    build, dx, dy = FD_BINARY[name]
    rng = np.random.default_rng(seed)
    x = values(rng, shapes.input_shapes[0], np.float64, dx)
    y = values(rng, shapes.input_shapes[1], np.float64, dy)
    check_finite_differences(build, [x, y], seed)


@settings(max_examples=30, deadline=None)
@given(
    data=st.data(),
    kind=st.sampled_from(["reduce_sum", "reduce_mean", "reduce_max", "reduce_prod", "matmul"]),
    seed=SEEDS,
)
def test_reductions_and_matmul_match_finite_differences(data, kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "matmul":
        m, k, n = (data.draw(st.integers(1, 3)) for _ in range(3))
        ta, tb = data.draw(st.booleans()), data.draw(st.booleans())
        a = values(rng, (k, m) if ta else (m, k), np.float64)
        b = values(rng, (n, k) if tb else (k, n), np.float64)
        check_finite_differences(
            lambda lib, a, b: lib.matmul(a, b, transpose_a=ta, transpose_b=tb), [a, b], seed
        )
        return
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    keepdims = data.draw(st.booleans())
    domain = {"reduce_max": "distinct", "reduce_prod": "unit"}.get(kind, "any")
    x = values(rng, shape, np.float64, domain)
    check_finite_differences(
        lambda lib, x: getattr(lib, kind)(x, axis=axis, keepdims=keepdims), [x], seed
    )


@settings(max_examples=25, deadline=None)
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3),
    kind=st.sampled_from(["softmax", "log_softmax", "xent", "sparse_xent", "sigmoid_xent"]),
    seed=SEEDS,
)
def test_softmax_and_xent_match_finite_differences(shape, kind, seed):
    rng = np.random.default_rng(seed)
    logits = values(rng, shape, np.float64)
    if kind in ("softmax", "log_softmax"):
        check_finite_differences(lambda lib, x: getattr(lib.nn, kind)(x), [logits], seed)
    elif kind == "xent":
        labels = _distribution(rng, shape, np.float64)
        check_finite_differences(
            lambda lib, x, z: lib.nn.softmax_cross_entropy_with_logits_v2(labels=z, logits=x),
            [logits, labels],
            seed,
        )
    elif kind == "sparse_xent":
        if len(shape) < 2:
            logits = logits.reshape(1, -1)
        labels = rng.integers(0, logits.shape[-1], logits.shape[:-1])
        check_finite_differences(
            lambda lib, x: lib.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x),
            [logits],
            seed,
        )
    else:
        logits = values(rng, shape, np.float64, "nonzero")
        labels = rng.uniform(0, 1, shape)
        check_finite_differences(
            lambda lib, x, z: lib.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
            [logits, labels],
            seed,
        )


# -- semantics -------------------------------------------------------------------------


def _run(fetches, feeds=None):
    with ff.Session() as sess:
        sess.run(ff.global_variables_initializer())
        return sess.run(fetches, feeds)


def test_grad_ys_default_to_ones_and_scale_when_given():
    x = ff.constant([1.0, 2.0, 3.0])
    y = x * x
    (g_default,) = ff.gradients(y, x)
    (g_ones,) = ff.gradients(y, x, grad_ys=ff.ones([3]))
    (g_given,) = ff.gradients(y, x, grad_ys=ff.constant([1.0, 10.0, 100.0]))
    (g_y,) = ff.gradients(y, y)
    got = _run([g_default, g_ones, g_given, g_y])
    np.testing.assert_allclose(got[0], [2, 4, 6])
    np.testing.assert_allclose(got[1], [2, 4, 6])
    np.testing.assert_allclose(got[2], [2, 40, 600])
    np.testing.assert_allclose(got[3], [1, 1, 1])


def test_multiple_ys_are_summed_and_grad_ys_pair_with_them():
    x = ff.constant([1.0, 2.0])
    y1, y2 = x * 3.0, ff.square(x)
    got = _run(
        [
            ff.gradients([y1, y2], x)[0],
            ff.gradients([y1, y2], [x], grad_ys=[[1.0, 1.0], [2.0, 0.5]])[0],
            ff.gradients([y1, y2], x, grad_ys=[None, [2.0, 0.5]])[0],
        ]
    )
    np.testing.assert_allclose(got[0], [5, 7])
    np.testing.assert_allclose(got[1], [3 + 4, 3 + 2])
    np.testing.assert_allclose(got[2], [3 + 4, 3 + 2])
    with pytest.raises(ValueError):
        ff.gradients([y1, y2], x, grad_ys=[[1.0, 1.0]])


def test_unconnected_and_non_differentiable_paths_give_none():
    x = ff.constant([1.0, 2.0])
    z = ff.constant([3.0, 4.0])
    y = x * 2.0
    assert ff.gradients(y, z) == [None]
    gx, gz = ff.gradients(y, [x, z])
    assert gz is None
    np.testing.assert_allclose(_run(gx), [2, 2])
    # argmax/comparisons/shape ops are not differentiable: no gradient flows through them.
    a = ff.cast(ff.argmax(x), ff.float32) + ff.reduce_sum(ff.cast(ff.greater(x, 1.5), ff.float32))
    assert ff.gradients(a, x) == [None]
    assert ff.gradients(ff.cast(ff.shape(x), ff.float32), x) == [None]
    # ... but another path still does.
    (g,) = ff.gradients(a + ff.reduce_sum(x), x)
    np.testing.assert_allclose(_run(g), [1, 1])


def test_stop_gradient_masks():
    x = ff.constant([1.0, 2.0, 3.0])
    assert ff.gradients(ff.stop_gradient(x) * 2.0, x) == [None]
    (g,) = ff.gradients(x * ff.stop_gradient(x), x)  # d/dx x * c = c
    np.testing.assert_allclose(_run(g), [1, 2, 3])
    (g,) = ff.gradients(ff.square(x) + ff.stop_gradient(ff.square(x)), x)
    np.testing.assert_allclose(_run(g), [2, 4, 6])


def test_y_that_is_an_ancestor_of_another_y():
    x = ff.constant([1.0, 2.0])
    y1 = x * 2.0
    y2 = y1 * 3.0
    (g,) = ff.gradients([y1, y2], x)
    np.testing.assert_allclose(_run(g), [8, 8])
    (g,) = ff.gradients([y2, y1], x, grad_ys=[[1.0, 2.0], [10.0, 10.0]])
    np.testing.assert_allclose(_run(g), [26, 32])
    # y1 as both a y and an x: the gradient of y2 + y1 with respect to y1.
    (g,) = ff.gradients([y1, y2], y1)
    np.testing.assert_allclose(_run(g), [4, 4])


@pytest.mark.parametrize(
    "method",
    [
        None,
        ff.AggregationMethod.ADD_N,
        ff.AggregationMethod.DEFAULT,
        ff.AggregationMethod.EXPERIMENTAL_TREE,
        ff.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N,
    ],
)
def test_repeated_use_aggregates_with_every_method(method):
    xv = np.array([[1.0, -2.0], [0.5, 3.0]])
    x = ff.constant(xv)
    y = x * x + ff.sin(x) * x + ff.exp(x) + x
    (g,) = ff.gradients(y, x, aggregation_method=method)
    want = 2 * xv + np.cos(xv) * xv + np.sin(xv) + np.exp(xv) + 1
    np.testing.assert_allclose(_run(g), want, rtol=1e-12)
    (g2,) = ff.gradients(x * x, x, aggregation_method=method)
    np.testing.assert_allclose(_run(g2), 2 * xv)


def test_add_n_and_tree_aggregation_give_equalvalues():
    rng = np.random.default_rng(0)
    xv = rng.normal(size=(3, 4)).astype(np.float32)
    x = ff.constant(xv)
    y = ff.add_n([x * float(i) + ff.square(x) for i in range(5)]) + ff.tanh(x) * x
    (a,) = ff.gradients(y, x, aggregation_method=ff.AggregationMethod.ADD_N)
    (b,) = ff.gradients(y, x, aggregation_method=ff.AggregationMethod.EXPERIMENTAL_TREE)
    ga, gb = _run([a, b])
    np.testing.assert_allclose(ga, gb, rtol=1e-6)
    assert a.op.type == "AddN"


@pytest.mark.tf_oracle
def test_gradient_op_names_are_scoped_like_tensorflow(tf1):
    def build(lib):
        x = lib.placeholder(lib.float32, [None, 3], name="x")
        w = lib.constant(np.ones((3, 2), np.float32), name="w")
        y = lib.reduce_sum(lib.tanh(lib.matmul(x, w)))
        first = lib.gradients(y, [x, w])
        second = lib.gradients(lib.sigmoid(x), x)
        named = lib.gradients(lib.nn.relu(x), x, name="my_grads")
        return first + second + named

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        want = [t.name for t in build(tf1)]
    with g_ff.as_default():
        before = {op.name for op in g_ff.get_operations()}
        got = [t.name for t in build(ff)]
        added = [op.name for op in g_ff.get_operations() if op.name not in before]
    assert got == want
    assert got[:2] == ["gradients/MatMul_grad/MatMul:0", "gradients/MatMul_grad/MatMul_1:0"]
    assert got[2] == "gradients_1/Sigmoid_grad/SigmoidGrad:0"
    assert got[3] == "my_grads/Relu_grad/ReluGrad:0"
    grad_ops = [n for n in added if n.split("/")[0] in ("gradients", "gradients_1", "my_grads")]
    forward = {"x", "w", "Tanh", "Sum", "MatMul", "Sigmoid", "Relu", "Const"}
    assert set(added) - set(grad_ops) <= forward
    assert "gradients/Tanh_grad/TanhGrad" in grad_ops
    assert any(n.startswith("gradients/Sum_grad/") for n in grad_ops)


def test_missing_gradient_is_a_lookup_error():
    # Every differentiable op has a gradient (the registry test in Rust keeps it so);
    # the test-only panic op is the one without.
    x = ff.constant(1.0)
    boom = ff.get_default_graph()._create_op("_PanicForTesting", [x], name="boom").outputs[0]
    missing = r"No gradient defined for operation 'boom'.*_PanicForTesting"
    with pytest.raises(LookupError, match=missing):
        ff.gradients(boom, x)


def _pool(lib, x):
    image = lib.reshape(x, [1, 3, 4, 1])
    return lib.square(lib.nn.max_pool(image, [1, 2, 2, 1], [1, 1, 1, 1], "VALID"))


SECOND_ORDER = {
    "tanh": (lambda lib, x: lib.tanh(x), False),
    "sigmoid_times_x": (lambda lib, x: lib.sigmoid(x) * x, False),
    "sqrt": (lambda lib, x: lib.sqrt(x), True),
    "rsqrt": (lambda lib, x: lib.rsqrt(x), True),
    "reciprocal": (lambda lib, x: lib.reciprocal(x), True),
    "relu_times_x": (lambda lib, x: lib.nn.relu(x) * x, False),
    "relu6_times_x": (lambda lib, x: lib.nn.relu6(3.0 * x) * x, False),
    "elu": (lambda lib, x: lib.nn.elu(x), False),
    "selu": (lambda lib, x: lib.nn.selu(x), False),
    "softplus": (lambda lib, x: lib.nn.softplus(x), False),
    "softmax": (lambda lib, x: lib.nn.softmax(x), False),
    "log_softmax": (lambda lib, x: lib.nn.log_softmax(x), False),
    "softmax_xent": (
        lambda lib, x: lib.nn.softmax_cross_entropy_with_logits(
            labels=lib.constant([[0.1, 0.2, 0.3, 0.4]] * 3, lib.float64), logits=x
        ),
        False,
    ),
    "sparse_softmax_xent": (
        lambda lib, x: lib.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 3, 1], logits=x),
        False,
    ),
    "bias_add_of_a_slice": (lambda lib, x: lib.nn.bias_add(lib.square(x), x[0]), False),
    "max_pool_squared": (_pool, False),
    "mirror_pad_squared": (
        lambda lib, x: lib.square(lib.pad(x, [[1, 2], [3, 0]], "SYMMETRIC")),
        False,
    ),
}


@pytest.mark.tf_oracle
@pytest.mark.parametrize("case", sorted(SECOND_ORDER))
def test_second_order_gradients_match_tensorflow(tf1, case):
    """d/d(x, w) of sum(v * dy/dx) with `grad_ys=w`: both inputs of every fused
    gradient op are differentiated (the forward input and the incoming gradient)."""
    fn, positive = SECOND_ORDER[case]
    rng = np.random.default_rng(7)
    x0 = rng.permutation(np.linspace(-2.0, 2.0, 12)).reshape(3, 4)
    if positive:
        x0 = np.abs(x0) + 0.25

    def build(lib):
        x = lib.constant(x0, dtype=lib.float64)
        y = fn(lib, x)
        w = lib.constant(rng_w.standard_normal(y.shape.as_list()), dtype=lib.float64)
        (g,) = lib.gradients(y, x, grad_ys=w)
        v = lib.constant(rng_v.standard_normal(x0.shape), dtype=lib.float64)
        second = lib.gradients(lib.reduce_sum(g * v), [x, w])
        return [t for t in second if t is not None]

    from conftest import run_ff, run_tf

    rng_w, rng_v = np.random.default_rng(1), np.random.default_rng(2)
    want = run_tf(tf1, build)
    rng_w, rng_v = np.random.default_rng(1), np.random.default_rng(2)
    got = run_ff(build)
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.tf_oracle
def test_third_order_gradient_of_tanh_matches_tensorflow(tf1):
    def build(lib):
        x = lib.constant([0.5, -1.0, 2.0], dtype=lib.float64)
        (g1,) = lib.gradients(lib.tanh(x), x)
        (g2,) = lib.gradients(g1, x)
        return lib.gradients(g2, x)

    from conftest import run_ff, run_tf

    np.testing.assert_allclose(run_ff(build)[0], run_tf(tf1, build)[0], rtol=1e-12)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("lib_name", ["tf", "ff"])
def test_gradient_through_assign_is_none_like_tensorflow(tf1, lib_name):
    lib = tf1 if lib_name == "tf" else ff
    g = lib.Graph()
    with g.as_default():
        x = lib.constant([1.0, 2.0])
        v = lib.Variable([0.0, 0.0], name="v")
        assert lib.gradients(v.assign(x * 2.0), x) == [None]
        assert lib.gradients(lib.reduce_sum(v.assign_add(x)), x) == [None]


def test_grad_ys_of_the_wrong_dtype_is_a_value_error():
    x = ff.constant([1.0, 2.0])
    y = ff.reduce_mean(x * x)
    with pytest.raises(ValueError, match="float64"):
        ff.gradients(y, x, grad_ys=ff.constant(1.0, ff.float64))
    with pytest.raises(ValueError, match="float64"):
        ff.gradients(y, x, grad_ys=np.float64(1.0))


@pytest.mark.tf_oracle
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradients_through_variables_match_tensorflow(tf1, dtype):
    rng = np.random.default_rng(3)
    wv = rng.normal(size=(3, 2)).astype(dtype)
    bv = rng.normal(size=(2,)).astype(dtype)
    xv = rng.normal(size=(4, 3)).astype(dtype)
    labels = np.array([0, 1, 1, 0])

    def build(lib):
        w = lib.Variable(wv, name="w")
        b = lib.Variable(bv, name="b")
        logits = lib.nn.bias_add(lib.matmul(lib.constant(xv), w), b)
        loss = lib.reduce_mean(
            lib.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        ) + 0.1 * lib.nn.l2_loss(w)
        loss = loss + lib.reduce_sum(w * w * b)  # the variable used more than once
        return lib.gradients(loss, [w, b])

    from conftest import run_ff, run_tf

    want = run_tf(tf1, build)
    got = run_ff(build)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, **TOL[w.dtype])


def test_gradient_descent_on_a_variable_converges():
    rng = np.random.default_rng(0)
    xv = rng.normal(size=(32, 3))
    true_w = np.array([[1.5], [-2.0], [0.5]])
    yv = xv @ true_w + 0.25
    w = ff.Variable(np.zeros((3, 1)), name="w")
    b = ff.Variable(0.0, dtype=ff.float64, name="b")
    loss = ff.reduce_mean(ff.square(ff.matmul(ff.constant(xv), w) + b - yv))
    gw, gb = ff.gradients(loss, [w, b])
    step = ff.group(w.assign_sub(0.1 * gw), b.assign_sub(0.1 * gb))
    with ff.Session() as sess:
        sess.run(ff.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(200):
            sess.run(step)
        last, w_got, b_got = sess.run([loss, w, b])
    assert last < 1e-8 < first
    np.testing.assert_allclose(w_got, true_w, atol=1e-4)
    np.testing.assert_allclose(b_got, 0.25, atol=1e-4)


@pytest.mark.parametrize("lookup", ["gather", "embedding_lookup"])
def test_gather_gradient_is_indexed_slices(lookup):
    params_v = np.arange(12, dtype=np.float32).reshape(4, 3)
    params = ff.Variable(params_v, name="params")
    ids = ff.constant([[3, 1], [3, 0]])
    if lookup == "gather":
        rows = ff.gather(params, ids)
    else:
        rows = ff.nn.embedding_lookup(params, ids)
    y = ff.reduce_sum(rows * ff.constant([1.0, 2.0, 3.0]))
    (g,) = ff.gradients(y, params)
    assert isinstance(g, ff.IndexedSlices)
    assert g.dtype == ff.float32
    assert g.values.shape.as_list() == [4, 3]
    assert g.indices.shape.as_list() == [4]
    values, indices, dense_shape, dense = _run(
        [g.values, g.indices, g.dense_shape, ff.convert_to_tensor(g)]
    )
    np.testing.assert_array_equal(indices, [3, 1, 3, 0])
    np.testing.assert_allclose(values, np.tile([1.0, 2.0, 3.0], (4, 1)))
    np.testing.assert_array_equal(dense_shape, [4, 3])
    want = np.zeros((4, 3), np.float32)
    np.add.at(want, [3, 1, 3, 0], np.tile([1.0, 2.0, 3.0], (4, 1)))
    np.testing.assert_allclose(dense, want)
    # Adding a dense contribution densifies the sum.
    (g2,) = ff.gradients(y + ff.reduce_sum(params), params)
    assert not isinstance(g2, ff.IndexedSlices)
    np.testing.assert_allclose(_run(g2), want + 1)


def test_fetching_indexed_slices_like_tensorflow():
    params = ff.constant(np.ones((3, 2), np.float32))
    (g,) = ff.gradients(ff.reduce_sum(ff.gather(params, [2, 2])), params)
    got = _run(g)
    np.testing.assert_array_equal(got.indices, [2, 2])
    np.testing.assert_array_equal(got.values, np.ones((2, 2)))
    np.testing.assert_array_equal(got.dense_shape, [3, 2])


def test_gradient_of_empty_broadcast_with_unknown_shapes():
    x = ff.placeholder(ff.float32, [None, None])
    (g,) = ff.gradients(x * 2.0, x)
    assert _run(g, {x: np.zeros((1, 0), np.float32)}).shape == (1, 0)


def _stop_and_unconnected(tf):
    """stop_gradients and unconnected_gradients, as TF-1.x programs use them."""
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        a = x * 3.0
        b = a * a + x
        y = tf.reduce_sum(b * x)
        unrelated = tf.constant([5.0, 6.0, 7.0])
        cases = [
            tf.gradients(y, [x, a], stop_gradients=[a]),
            tf.gradients(y, [x], stop_gradients=a),
            tf.gradients(y, [x, b], stop_gradients=[b]),
            tf.gradients(y, [x, a, b], stop_gradients=[a, b]),
            tf.gradients(y, [unrelated], unconnected_gradients="zero"),
            tf.gradients(y, [unrelated, x], unconnected_gradients=tf.UnconnectedGradients.ZERO),
            tf.gradients(y, [unrelated]),
        ]
        with tf.Session() as sess:
            return [[None if g is None else sess.run(g).tolist() for g in grads] for grads in cases]


def test_stop_gradients_and_unconnected_gradients_as_tensorflow(tf1):
    ours = _stop_and_unconnected(ff)
    assert ours == _stop_and_unconnected(tf1)
    assert ours[4] == [[0.0, 0.0, 0.0]] and ours[6] == [None]
    with pytest.raises(ValueError):
        ff.gradients(ff.constant(1.0), [ff.constant(2.0)], unconnected_gradients="sometimes")


@pytest.mark.tf_oracle
def test_gradients_inside_control_dependencies_wait_for_the_controls(tf1):
    # As the CIFAR-10 tutorial's `with tf.control_dependencies([loss_averages_op]):
    # grads = opt.compute_gradients(loss)`: each training step runs the controls.
    def build(tf):
        x = tf.Variable(2.0, name="x")
        y = x * x
        count = tf.Variable(0.0, trainable=False, name="count")
        increment = count.assign_add(1.0)
        with tf.control_dependencies([increment]):
            opt = tf.train.GradientDescentOptimizer(0.1)
            grads = opt.compute_gradients(y, var_list=[x])
        train = opt.apply_gradients(grads)
        controls = {
            o.name: sorted(c.name for c in o.control_inputs)
            for o in tf.get_default_graph().get_operations()
            if o.name.startswith("gradients/grad_ys_0") or o.name == "gradients/Shape"
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            sess.run(train)
            return sess.run([count, x]), controls

    with tf1.Graph().as_default():
        theirs = build(tf1)
    with ff.Graph().as_default():
        ours = build(ff)
    assert ours[0][0] == theirs[0][0] == 2.0
    np.testing.assert_allclose(ours[0][1], theirs[0][1], rtol=1e-6)
    assert ours[1] == theirs[1]


def _colocated_gradient_sums(lib):
    """Gradient sums over ops on several devices, colocated with their ops or not."""
    g = lib.get_default_graph()
    with g.device("/device:GPU:1"):
        w = lib.constant(1.0, shape=[1, 1])
    x = lib.constant(1.0, shape=[1, 2])
    y = lib.constant(1.0, shape=[1, 2])
    wx = lib.matmul(w, x)
    wy = lib.matmul(w, y)
    with g.device("/device:GPU:0"):
        z = wx + wy
    with g.device("/cpu:0"):
        a = lib.constant([1.0, 2.0])
    with g.device("/cpu:1"):
        b = a * 2
        b2 = a * 5
    with g.device("/cpu:2"):
        c = a * 3
    d = b + c + b2
    grads = [
        lib.gradients(z, [w], colocate_gradients_with_ops=True)[0],
        lib.gradients(z, [w], colocate_gradients_with_ops=False)[0],
        lib.gradients(d, a, colocate_gradients_with_ops=True)[0],
        lib.gradients(d, a, colocate_gradients_with_ops=False)[0],
    ]
    return [
        (
            t.op.name,
            t.op.type,
            t.op.colocation_groups(),
            t.device,
            [(i.op.name, i.op.colocation_groups(), i.device) for i in t.op.inputs],
        )
        for t in grads
    ]


def test_colocated_gradient_aggregation_matches_tf(tf1):
    """TF's `_MultiDeviceAddN`: a sum per device (with its first summand), then the
    partial sums in the op's colocation (issue 42: the whole sum went with the first
    summand's op)."""
    from tests.conftest import build_both

    (_, tf_out), (_, ff_out) = build_both(tf1, _colocated_gradient_sums)
    assert tf_out[0][2] == [b"loc:@MatMul"]
    assert ff_out == tf_out
