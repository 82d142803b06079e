"""conv2d, max_pool, avg_pool (and their backprop ops), dropout and in_top_k."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import build_both, run_ff, run_tf
from tests.gradcheck import FLOATS, SEEDS, check_against_tf, check_finite_differences, values

import ferroflow as ff

PADDINGS = st.sampled_from(["SAME", "VALID"])


@st.composite
def conv_cases(draw, dilated=False):
    """Input and filter shapes and window attrs for which VALID still has an output."""
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dil = [draw(st.integers(1, 2)), draw(st.integers(1, 2))] if dilated else [1, 1]
    strides = [1, 1] if dilated else [draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    h = draw(st.integers((kh - 1) * dil[0] + 1, 7))
    w = draw(st.integers((kw - 1) * dil[1] + 1, 7))
    n, c, o = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return (n, h, w, c), (kh, kw, c, o), strides, dil, draw(PADDINGS)


@settings(max_examples=40, deadline=None)
@given(case=conv_cases(), dtype=FLOATS, dynamic=st.booleans(), seed=SEEDS)
def test_conv2d_and_its_gradients_match_tensorflow(tf1, case, dtype, dynamic, seed):
    xs, fs, strides, _, padding = case
    rng = np.random.default_rng(seed)
    x, f = values(rng, xs, dtype), values(rng, fs, dtype)
    check_against_tf(
        tf1,
        lambda m, a, b: m.nn.conv2d(a, b, strides, padding),
        [x, f],
        dynamic=dynamic,
        seed=seed,
        tol={"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else None,
    )


@settings(max_examples=15, deadline=None)
@given(case=conv_cases(dilated=True), seed=SEEDS)
def test_dilated_conv2d_forward_matches_tensorflow_and_gradients_finite_differences(
    tf1, case, seed
):
    # TensorFlow's CPU kernels have no dilated backprop; finite differences check ours.
    xs, fs, _, dil, padding = case
    rng = np.random.default_rng(seed)
    x, f = values(rng, xs, np.float64), values(rng, fs, np.float64)

    def build(m):
        return m.nn.conv2d(m.constant(x), m.constant(f), 1, padding, dilations=dil)

    ours, theirs = run_ff(build), run_tf(tf1, build)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    check_finite_differences(
        lambda m, a, b: m.nn.conv2d(a, b, 1, padding, dilations=dil), [x, f], seed
    )


@st.composite
def pool_cases(draw):
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    h, w = draw(st.integers(kh, 7)), draw(st.integers(kw, 7))
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 4))
    strides = [draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    return (n, h, w, c), [kh, kw], strides, draw(PADDINGS)


@settings(max_examples=40, deadline=None)
@given(case=pool_cases(), op=st.sampled_from(["max_pool", "avg_pool"]), dtype=FLOATS, seed=SEEDS)
def test_pooling_and_its_gradients_match_tensorflow(tf1, case, op, dtype, seed):
    xs, ksize, strides, padding = case
    # Distinct values: the max-pool gradient is only defined without ties.
    x = values(np.random.default_rng(seed), xs, dtype, "distinct")
    check_against_tf(
        tf1, lambda m, a: getattr(m.nn, op)(a, ksize, strides, padding), [x], seed=seed
    )


@settings(max_examples=10, deadline=None)
@given(case=pool_cases(), seed=SEEDS)
def test_avg_pool_gradient_matches_finite_differences(case, seed):
    xs, ksize, strides, padding = case
    x = values(np.random.default_rng(seed), xs, np.float64)
    check_finite_differences(lambda m, a: m.nn.avg_pool(a, ksize, strides, padding), [x], seed)


def test_max_pool_gradient_goes_to_the_first_maximum_on_ties(tf1):
    x = np.array([[1.0, 3.0, 3.0], [3.0, 0.0, 2.0]]).reshape(1, 2, 3, 1)

    def build(m):
        t = m.constant(x)
        return m.gradients(m.reduce_sum(m.nn.max_pool(t, [2, 2], 1, "VALID")), t)[0]

    np.testing.assert_array_equal(run_ff(build), run_tf(tf1, build))


def test_a_larger_conv_split_across_threads_matches_tensorflow(tf1):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 20, 20, 16)).astype(np.float32)
    f = rng.standard_normal((3, 3, 16, 32)).astype(np.float32)
    check_against_tf(
        tf1,
        lambda m, a, b: m.nn.conv2d(a, b, 1, "SAME"),
        [x, f],
        tol={"rtol": 1e-3, "atol": 1e-3},
    )


@settings(max_examples=12, deadline=None)
@given(
    h=st.integers(2, 9),
    w=st.integers(2, 9),
    n=st.integers(1, 3),
    c=st.sampled_from([16, 19]),
    o=st.sampled_from([16, 21]),
    padding=PADDINGS,
    dtype=FLOATS,
    seed=SEEDS,
)
def test_winograd_3x3_convolutions_and_gradients_match_tensorflow(
    tf1, h, w, n, c, o, padding, dtype, seed
):
    # 3x3, stride 1, at least 16 channels in and out: Winograd's F(2x2, 3x3) computes
    # the forward pass, (as a convolution of dy) the input gradient and, with the
    # transposed transforms, the filter gradient; odd sizes leave partial tiles at the
    # edges, VALID's input gradient pads by 2.
    if padding == "VALID" and (h < 3 or w < 3):
        h, w = max(h, 3), max(w, 3)
    rng = np.random.default_rng(seed)
    x, f = values(rng, (n, h, w, c), dtype), values(rng, (3, 3, c, o), dtype) * 0.3
    check_against_tf(
        tf1,
        lambda m, a, b: m.nn.conv2d(a, b, 1, padding),
        [x, f],
        seed=seed,
        tol={"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-10},
    )


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides", [1, 2])
def test_an_rgb_first_layer_split_across_threads_matches_tensorflow(tf1, padding, strides):
    # Three input channels: im2col copies each row's taps as one short run, and the
    # stride-1 input gradient goes through col2im instead of a 3-column-wide product.
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 21, 19, 3)).astype(np.float32)
    f = rng.standard_normal((3, 3, 3, 32)).astype(np.float32)
    check_against_tf(
        tf1,
        lambda m, a, b: m.nn.conv2d(a, b, strides, padding),
        [x, f],
        tol={"rtol": 1e-3, "atol": 1e-3},
    )


@settings(max_examples=25, deadline=None)
@given(
    c=st.integers(1, 4),
    o=st.sampled_from([16, 32, 48]),
    kh=st.integers(1, 4),
    kw=st.integers(2, 4),
    h=st.integers(4, 12),
    w=st.integers(4, 12),
    padding=PADDINGS,
    seed=SEEDS,
)
def test_few_channels_into_whole_vectors_of_outputs_match_tensorflow(
    tf1, c, o, kh, kw, h, w, padding, seed
):
    # Stride 1, at most four input channels and outputs in 16s: the direct float32
    # kernel (8 positions x 16 outputs of accumulators), with a partial last block.
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, h, w, c)).astype(np.float32)
    f = rng.standard_normal((kh, kw, c, o)).astype(np.float32)
    ours = run_ff(lambda m: m.nn.conv2d(x, f, 1, padding))
    wide_x, wide_f = x.astype(np.float64), f.astype(np.float64)
    theirs = run_tf(tf1, lambda m: m.nn.conv2d(wide_x, wide_f, 1, padding))
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


def test_pointwise_conv_is_a_matrix_product():
    rng = np.random.default_rng(2)
    x, f = rng.standard_normal((2, 5, 4, 3)), rng.standard_normal((1, 1, 3, 6))
    out = run_ff(lambda m: m.nn.conv2d(x, f, [1, 1, 1, 1], "VALID"))
    np.testing.assert_allclose(out, x @ f[0, 0], rtol=1e-12)


def test_conv2d_transpose_is_the_input_gradient(tf1):
    rng = np.random.default_rng(3)
    y, f = rng.standard_normal((2, 3, 3, 4)), rng.standard_normal((3, 3, 5, 4))

    def build(m):
        return m.nn.conv2d_transpose(m.constant(y), m.constant(f), [2, 6, 6, 5], 2, "SAME")

    np.testing.assert_allclose(run_ff(build), run_tf(tf1, build), rtol=1e-10)


def test_static_shapes_names_and_attrs(tf1):
    def build(m):
        x = m.placeholder(m.float32, [None, 28, 28, 3])
        f = m.placeholder(m.float32, [5, 5, 3, 8])
        c = m.nn.conv2d(x, f, [1, 2, 2, 1], "SAME")
        p = m.nn.max_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        a = m.nn.avg_pool(p, 3, 1, "SAME", name="pool")
        return [c, p, a]

    (_, want), (_, got) = build_both(tf1, build)
    for w, g in zip(want, got, strict=True):
        assert g.name == w.name
        assert g.shape.as_list() == w.shape.as_list()
        for attr in ("strides", "padding", "data_format"):
            assert g.op.get_attr(attr) == w.op.get_attr(attr)


def test_bad_arguments_raise_at_construction():
    x = ff.placeholder(ff.float32, [1, 4, 4, 3])
    with pytest.raises(ValueError, match="rank 4"):
        ff.nn.conv2d(ff.zeros([4, 4, 3]), ff.zeros([2, 2, 3, 1]), 1, "SAME")
    with pytest.raises(ValueError, match="Depth of input"):
        ff.nn.conv2d(x, ff.zeros([2, 2, 2, 1]), 1, "SAME")
    with pytest.raises(ValueError, match="batch and depth"):
        ff.nn.conv2d(x, ff.zeros([2, 2, 3, 1]), [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="negative"):
        ff.nn.conv2d(x, ff.zeros([5, 5, 3, 1]), 1, "VALID")
    with pytest.raises(ValueError, match="padding"):
        ff.nn.max_pool(x, 2, 2, "FULL")
    with pytest.raises(ValueError, match="NHWC"):
        ff.nn.avg_pool(x, 2, 2, "SAME", data_format="NCHW")
    with pytest.raises(TypeError):
        ff.nn.conv2d(ff.zeros([1, 4, 4, 3], ff.int32), ff.zeros([2, 2, 3, 1], ff.int32), 1, "SAME")
    with pytest.raises(ValueError, match="length 1, 2 or 4"):
        ff.nn.conv2d(x, ff.zeros([2, 2, 3, 1]), [1, 1, 1], "SAME")


def test_window_too_large_for_a_fed_input_is_an_invalid_argument():
    x = ff.placeholder(ff.float32, [None, None, None, 1])
    y = ff.nn.conv2d(x, ff.zeros([3, 3, 1, 1]), 1, "VALID")
    with ff.Session() as sess:
        with pytest.raises(ff.errors.InvalidArgumentError, match="Conv2D"):
            sess.run(y, {x: np.zeros((1, 2, 2, 1), np.float32)})


def test_in_top_k_matches_tensorflow(tf1):
    rng = np.random.default_rng(4)
    scores = rng.integers(0, 4, (20, 6)).astype(np.float32)  # many ties
    scores[3, 2] = np.nan
    scores[5, 0] = np.inf
    targets = rng.integers(0, 6, 20)
    for k in (0, 1, 2, 5):
        for dtype in ("int32", "int64"):

            def build(m, k=k, dtype=dtype):
                return m.nn.in_top_k(scores, m.constant(targets, getattr(m, dtype)), k)

            np.testing.assert_array_equal(run_ff(build), run_tf(tf1, build))
    out = run_ff(lambda m: m.nn.in_top_k([[1.0, 2.0]], [7], 1))
    np.testing.assert_array_equal(out, [False])


def test_dropout_matches_tensorflow(tf1):
    x = np.random.default_rng(5).standard_normal((30, 40)).astype(np.float32)
    for kwargs in ({"keep_prob": 0.7}, {"rate": 0.25}, {"rate": 0.5, "noise_shape": [30, 1]}):

        def build(m, kwargs=kwargs):
            return m.nn.dropout(m.constant(x), seed=7, **kwargs)

        np.testing.assert_allclose(run_ff(build), run_tf(tf1, build), rtol=1e-6)


def test_dropout_statistics_and_gradient():
    x = ff.ones([100_000])
    keep = ff.placeholder(ff.float32, [])
    y = ff.nn.dropout(x, keep_prob=keep)
    (gx,) = ff.gradients(ff.reduce_sum(y), [x])
    with ff.Session() as sess:
        out, g = sess.run([y, gx], {keep: 0.8})
    assert set(np.unique(out)) <= {0.0, np.float32(1 / 0.8)}
    assert abs((out == 0).mean() - 0.2) < 0.01
    np.testing.assert_array_equal(g, out)  # kept elements pass the scaled gradient
    assert ff.nn.dropout(x, keep_prob=1.0) is x
    with pytest.raises(ValueError, match="range"):
        ff.nn.dropout(x, keep_prob=0.0)
    with pytest.raises(ValueError, match="floating"):
        ff.nn.dropout(ff.ones([2], ff.int32), rate=0.5)
    with pytest.raises(ValueError, match="rate"):
        ff.nn.dropout(x)
    with pytest.raises(ValueError, match="scalar"):
        ff.nn.dropout(x, rate=[0.5])
    # A rate tensor of another dtype is TF's error (it was an AttributeError).
    with pytest.raises(ValueError, match=r"`x.dtype` must be compatible with `rate.dtype`"):
        ff.nn.dropout(x, rate=ff.constant(0.5, ff.float64))
