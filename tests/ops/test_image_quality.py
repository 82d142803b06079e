"""`tf.image`'s quality measures and filters against TensorFlow: `ssim`, `ssim_multiscale`,
`psnr`, `image_gradients`, `sobel_edges` (values for several shapes and dtypes, batched
and not, their gradients, the graphs they build with TF's static shapes, and TF's
errors), TF 2's `resize_images_v2` / `resize_image_with_pad_v1/_v2` that TF 1.15's
`image_ops` defines, and `decode_image`'s dispatch on the file's first bytes."""

import numpy as np
import pytest
from tests.conftest import outcome, run_ff, run_tf

import ferroflow as ff
from ferroflow import _ferroflow
from ferroflow.ops import image_ops as ff_image_ops

RNG = np.random.default_rng(42)


def _images(shape, dtype=np.float32, noise=0.2):
    """Two related random images (the second a noisy copy), in `dtype`'s range."""
    a = RNG.random(shape)
    b = np.clip(a + noise * (RNG.random(shape) - 0.5), 0, 1)
    if np.dtype(dtype).kind in "ui":
        top = np.iinfo(dtype).max if np.dtype(dtype).itemsize < 4 else 255
        return (a * top).astype(dtype), (b * top).astype(dtype)
    return a.astype(dtype), b.astype(dtype)


def _max_val(dtype):
    if np.dtype(dtype).kind in "ui":
        return np.iinfo(dtype).max if np.dtype(dtype).itemsize < 4 else 255
    return 1.0


def _mod(tf):
    """TF's `image_ops` module (the v1 `tf.image` less the v2 names) or ferroflow's."""
    if tf is ff:
        return ff_image_ops
    from tensorflow.python.ops import image_ops

    return image_ops


def _close(want, got, rtol=1e-5, atol=1e-5):
    if isinstance(want, list | tuple):
        assert len(want) == len(got)
        for w, g in zip(want, got, strict=True):
            _close(w, g, rtol, atol)
        return
    want, got = np.asarray(want), np.asarray(got)
    assert want.dtype == got.dtype, (want.dtype, got.dtype)
    assert want.shape == got.shape, (want.shape, got.shape)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(got, want)


def _both(tf1, build, **tol):
    want = run_tf(tf1, build)
    got = run_ff(build)
    _close(want, got, **tol)
    return got


def _graphs(tf1, build):
    """The graph `build` makes, and what it returns, in TF and in ferroflow."""
    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        out_tf = build(tf1)
    with g_ff.as_default():
        out_ff = build(ff)
    return (g_tf, out_tf), (g_ff, out_ff)


def _shape(t):
    return None if t.shape.ndims is None else t.shape.as_list()


def _assert_same_graph(tf1, build):
    """Same ops (names, types, inputs, control inputs) and static shapes, op by op."""
    (g_tf, out_tf), (g_ff, out_ff) = _graphs(tf1, build)
    out_tf = out_tf if isinstance(out_tf, tuple) else (out_tf,)
    out_ff = out_ff if isinstance(out_ff, tuple) else (out_ff,)
    for a, b in zip(out_tf, out_ff, strict=True):
        assert (a.name, a.dtype.name, _shape(a)) == (b.name, b.dtype.name, _shape(b))
    ops_ff = {op.name: op for op in g_ff.get_operations()}
    assert len(ops_ff) == len(g_tf.get_operations())
    for op in g_tf.get_operations():
        mine = ops_ff[op.name]
        assert mine.type == op.type, op.name
        assert [t.name for t in mine.inputs] == [t.name for t in op.inputs], op.name
        assert sorted(c.name for c in mine.control_inputs) == sorted(
            c.name for c in op.control_inputs
        ), op.name
        for x, y in zip(op.outputs, mine.outputs, strict=True):
            assert _shape(x) == _shape(y), x.name


def _error_type(tf1, build):
    """Builds and runs `build` in both; both must fail with the same error class."""
    want = outcome(run_tf, tf1, build)
    got = outcome(run_ff, build)
    assert want[0] != "ok"
    assert got[0] == want[0], (want, got)
    return want, got


# ---------------------------------------------------------------------------------
# SSIM

SSIM_SHAPES = [(16, 16, 3), (2, 20, 18, 1), (3, 2, 24, 24, 2), (1, 11, 11, 4)]


@pytest.mark.parametrize("shape", SSIM_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.uint8, np.uint16])
def test_ssim(tf1, shape, dtype):
    a, b = _images(shape, dtype)
    m = _max_val(dtype)
    _both(tf1, lambda tf: tf.image.ssim(tf.constant(a), tf.constant(b), m))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"filter_size": 7},
        {"filter_size": 5, "filter_sigma": 0.8},
        {"filter_sigma": 3.0, "k1": 0.05, "k2": 0.1},
        {"max_val": 2.0},
        {"return_index_map": True},
        {"filter_size": 3, "return_index_map": True},
    ],
    ids=str,
)
def test_ssim_arguments(tf1, kwargs):
    a, b = _images((2, 17, 19, 3))
    kwargs = {"max_val": 1.0, **kwargs}
    _both(tf1, lambda tf: tf.image.ssim(tf.constant(a), tf.constant(b), **kwargs))


def test_ssim_broadcasts_batch_dimensions(tf1):
    a, b = _images((2, 16, 16, 1))

    def build(tf):
        x = tf.constant(np.concatenate([a, b]))
        return tf.image.ssim(tf.expand_dims(x, 0), tf.expand_dims(x, 1), 1.0)

    got = _both(tf1, build)
    assert got.shape == (4, 4)
    np.testing.assert_allclose(np.diag(got), 1.0, atol=1e-6)


def test_ssim_int_matches_float(tf1):
    a, b = _images((1, 16, 16, 3), np.uint8)

    def build(tf):
        fa = tf.image.convert_image_dtype(tf.constant(a), tf.float32)
        fb = tf.image.convert_image_dtype(tf.constant(b), tf.float32)
        return tf.image.ssim(a, b, 255), tf.image.ssim(fa, fb, 1.0)

    u8, f32 = _both(tf1, build)
    np.testing.assert_allclose(u8, f32, atol=1e-6)


def test_ssim_negative(tf1):
    step = np.expand_dims(np.arange(0, 256, 16, dtype=np.uint8), axis=0)
    a = np.tile(step, (16, 1)).reshape((1, 16, 16, 1))
    b = np.fliplr(a[0, :, :, 0]).reshape((1, 16, 16, 1))
    got = _both(tf1, lambda tf: tf.image.ssim(tf.constant(a), tf.constant(b), 255))
    assert got[0] < 0


def test_ssim_fed_shapes(tf1):
    a, b = _images((3, 14, 15, 2))

    def build(tf):
        pa = tf.placeholder_with_default(a, [None, None, None, 2])
        pb = tf.placeholder_with_default(b, None)
        return tf.image.ssim(pa, pb, 1.0, filter_size=5)

    _both(tf1, build)


# ---------------------------------------------------------------------------------
# MS-SSIM


@pytest.mark.parametrize(
    "shape, dtype, kwargs",
    [
        ((1, 176, 180, 1), np.float32, {}),
        ((2, 181, 177, 3), np.float32, {}),
        ((180, 176, 1), np.uint8, {}),
        ((2, 1, 50, 45, 2), np.float32, {"power_factors": (0.5, 0.3, 0.2)}),
        ((1, 47, 45, 1), np.float64, {"power_factors": (1, 1, 1), "filter_size": 9}),
        ((1, 60, 60, 3), np.float32, {"power_factors": (0.5, 0.5), "k1": 0.02, "k2": 0.05}),
        ((1, 23, 31, 1), np.uint16, {"power_factors": (1.0,), "filter_sigma": 2.0}),
    ],
    ids=str,
)
def test_ssim_multiscale(tf1, shape, dtype, kwargs):
    a, b = _images(shape, dtype, noise=0.1)
    m = _max_val(dtype)
    _both(tf1, lambda tf: tf.image.ssim_multiscale(tf.constant(a), tf.constant(b), m, **kwargs))


def test_ssim_multiscale_range(tf1):
    a, b = _images((1, 50, 50, 1), noise=1.0)
    # Not the pairs of constant images (zeros against 255): their contrast terms cancel
    # to rounding noise, and TF's own result is then 0, NaN or 1e-5 by summation order.
    pairs = [(a, b), (a, np.zeros_like(a)), (b, 1 - b)]

    def build(tf):
        return [
            tf.image.ssim_multiscale(x, y, 1.0, power_factors=(0.3, 0.3, 0.4)) for x, y in pairs
        ]

    got = np.asarray(_both(tf1, build))
    assert np.all(got >= 0) and np.all(got <= 1)


# ---------------------------------------------------------------------------------
# PSNR


@pytest.mark.parametrize("shape", [(8, 8, 1), (10, 8, 8, 1), (2, 3, 5, 7, 3)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8, np.int16])
def test_psnr(tf1, shape, dtype):
    a, b = _images(shape, dtype, noise=0.5)
    m = _max_val(dtype)
    _both(tf1, lambda tf: tf.image.psnr(tf.constant(a), tf.constant(b), m, name="psnr"))


def test_psnr_numpy_inputs_and_identical_images(tf1):
    a, b = _images((2, 6, 6, 3))

    def build(tf):
        return tf.image.psnr(a, b, 1), tf.image.psnr(a, a, 1.0)

    same = _both(tf1, build)[1]
    assert np.all(np.isinf(same))


def test_psnr_int_matches_float(tf1):
    a, b = _images((4, 8, 8, 1), np.uint8, noise=0.5)

    def build(tf):
        fa = tf.image.convert_image_dtype(tf.constant(a), tf.float32)
        fb = tf.image.convert_image_dtype(tf.constant(b), tf.float32)
        return tf.image.psnr(tf.constant(a), tf.constant(b), 255), tf.image.psnr(fa, fb, 1.0)

    u8, f32 = _both(tf1, build)
    np.testing.assert_allclose(u8, f32, atol=1e-3)


# ---------------------------------------------------------------------------------
# Image gradients and Sobel edges


@pytest.mark.parametrize("shape", [(1, 2, 4, 1), (2, 5, 7, 3), (3, 1, 1, 2)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8])
def test_image_gradients(tf1, shape, dtype):
    a, _ = _images(shape, dtype)
    _both(tf1, lambda tf: tf.image.image_gradients(tf.constant(a)))


def test_image_gradients_fed_shape(tf1):
    a, _ = _images((2, 4, 6, 3))

    def build(tf):
        return tf.image.image_gradients(tf.placeholder_with_default(a, [None, 4, None, 3]))

    _both(tf1, build)


@pytest.mark.parametrize("shape", [(1, 2, 2, 1), (5, 3, 4, 2), (2, 9, 7, 3)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sobel_edges(tf1, shape, dtype):
    a, _ = _images(shape, dtype)
    _both(tf1, lambda tf: tf.image.sobel_edges(tf.constant(a * 255)), rtol=1e-5, atol=1e-4)


def test_sobel_edges_upstream_example(tf1):
    plane = np.reshape([[1, 3, 6, 2], [4, 1, 5, 7], [2, 5, 1, 4]], [1, 3, 4, 1])
    img = np.concatenate([plane, plane], axis=3).astype(np.float32)
    got = _both(tf1, lambda tf: tf.image.sobel_edges(tf.constant(img)))
    expected = np.reshape(
        [
            [[0, 0], [0, 12], [0, 10], [0, 0]],
            [[6, 0], [0, 6], [-6, 10], [-6, 0]],
            [[0, 0], [0, 0], [0, 10], [0, 0]],
        ],
        [1, 3, 4, 1, 2],
    )
    np.testing.assert_array_equal(got, np.concatenate([expected, expected], axis=3))


# ---------------------------------------------------------------------------------
# Gradients

A_SMALL, B_SMALL = _images((2, 24, 20, 3))
A_BIG, B_BIG = _images((1, 180, 176, 2), noise=0.1)

DIFFERENTIABLE = {
    "ssim": (A_SMALL, B_SMALL, lambda tf, a, b: tf.image.ssim(a, b, 1.0)),
    "ssim_map": (
        A_SMALL,
        B_SMALL,
        lambda tf, a, b: tf.image.ssim(a, b, 1.0, filter_size=7, return_index_map=True),
    ),
    "ssim_multiscale": (A_BIG, B_BIG, lambda tf, a, b: tf.image.ssim_multiscale(a, b, 1.0)),
    "ssim_multiscale_unweighted": (
        A_BIG,
        B_BIG,
        lambda tf, a, b: tf.image.ssim_multiscale(a, b, 1.0, power_factors=(1, 1, 1, 1, 1)),
    ),
    "psnr": (A_SMALL, B_SMALL, lambda tf, a, b: tf.image.psnr(a, b, 1.0)),
    "sobel_edges": (A_SMALL, B_SMALL, lambda tf, a, b: tf.image.sobel_edges(a) * b[..., None]),
    "image_gradients": (
        A_SMALL,
        B_SMALL,
        lambda tf, a, b: tf.image.image_gradients(a)[0] * b + tf.image.image_gradients(a)[1],
    ),
}


@pytest.mark.parametrize("name", list(DIFFERENTIABLE))
def test_gradients(tf1, name):
    xa, xb, fn = DIFFERENTIABLE[name]

    def build(tf):
        a, b = tf.constant(xa), tf.constant(xb)
        out = fn(tf, a, b)
        return [out, *tf.gradients(tf.reduce_sum(out), [a, b])]

    got = _both(tf1, build, rtol=1e-4, atol=1e-5)
    assert all(np.isfinite(g).all() for g in got)


# ---------------------------------------------------------------------------------
# Graphs and static shapes (TF's graph, op for op)


def _p(tf, shape, dtype=None):
    return tf.placeholder(dtype or tf.float32, shape)


GRAPHS = {
    "ssim_partial": lambda tf: tf.image.ssim(
        _p(tf, [None, None, None, 3]), _p(tf, [4, None, None, 3]), 1.0
    ),
    "ssim_static": lambda tf: tf.image.ssim(_p(tf, [2, 20, 30, 3]), _p(tf, [2, 20, 30, 3]), 1.0),
    "ssim_broadcast": lambda tf: tf.image.ssim(
        _p(tf, [1, 2, 20, 30, 3]), _p(tf, [3, 1, 20, 30, 3]), 1.0
    ),
    "ssim_unknown_rank": lambda tf: tf.image.ssim(_p(tf, None), _p(tf, None), 1.0),
    "ssim_unbatched": lambda tf: tf.image.ssim(_p(tf, [20, 30, None]), _p(tf, [20, 30, 2]), 1.0),
    "ssim_map": lambda tf: tf.image.ssim(
        _p(tf, [None, 20, None, 3]),
        _p(tf, [2, None, 30, 3]),
        1.0,
        filter_size=5,
        return_index_map=True,
    ),
    "ssim_uint8": lambda tf: tf.image.ssim(
        _p(tf, [2, 20, 30, 3], tf.uint8), _p(tf, [2, 20, 30, 3], tf.uint8), 255
    ),
    "psnr_partial": lambda tf: tf.image.psnr(
        _p(tf, [5, None, None, 3]), _p(tf, [None, 8, 8, 3]), 1
    ),
    "psnr_unknown_rank": lambda tf: tf.image.psnr(_p(tf, None), _p(tf, None), 1.0, name="p"),
    "ssim_multiscale": lambda tf: tf.image.ssim_multiscale(
        _p(tf, [2, 200, 200, 3]), _p(tf, [2, 200, 200, 3]), 1.0
    ),
    "ssim_multiscale_partial": lambda tf: tf.image.ssim_multiscale(
        _p(tf, [None, None, None, 1]), _p(tf, [3, None, None, 1]), 1.0, power_factors=(0.5, 0.5)
    ),
    "ssim_multiscale_unknown_rank": lambda tf: tf.image.ssim_multiscale(
        _p(tf, None), _p(tf, None), 1.0
    ),
    "sobel_partial": lambda tf: tf.image.sobel_edges(_p(tf, [None, 5, None, 3])),
    "sobel_static": lambda tf: tf.image.sobel_edges(_p(tf, [2, 5, 6, 3], tf.float64)),
    "image_gradients": lambda tf: tf.image.image_gradients(_p(tf, [None, 5, None, 3])),
    "resize_v2": lambda tf: _mod(tf).resize_images_v2(_p(tf, [None, None, None, 3]), [5, 6]),
    "resize_v2_nearest": lambda tf: _mod(tf).resize_images_v2(
        _p(tf, [4, 10, None, 3], tf.uint8), [5, 6], "nearest"
    ),
    "resize_v2_same_size": lambda tf: _mod(tf).resize_images_v2(_p(tf, [10, 10, 3]), [10, 10]),
    "resize_v2_aspect": lambda tf: _mod(tf).resize_images_v2(
        _p(tf, [10, 20, 3]), [10, 10], "area", preserve_aspect_ratio=True
    ),
}


@pytest.mark.parametrize("name", list(GRAPHS))
def test_same_graph(tf1, name):
    _assert_same_graph(tf1, GRAPHS[name])


# ---------------------------------------------------------------------------------
# Errors


def _zeros(shape, dtype=np.float32):
    return np.zeros(shape, dtype)


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.image.ssim(_zeros((8, 8)), _zeros((8, 8)), 1.0),
        lambda tf: tf.image.ssim(_zeros((12, 12, 1)), _zeros((12, 13, 1)), 1.0),
        lambda tf: tf.image.ssim(_zeros((2, 12, 12, 1)), _zeros((3, 12, 12, 1)), 1.0),
        lambda tf: tf.image.ssim(_zeros((12, 12, 1)), _zeros((12, 12, 1), np.float64), 1.0),
        lambda tf: tf.image.ssim_multiscale(_zeros((16, 16)), _zeros((16, 16)), 1.0),
        lambda tf: tf.image.ssim_multiscale(_zeros((2, 9, 9, 1)), _zeros((2, 9, 8, 1)), 1.0),
        lambda tf: tf.image.image_gradients(tf.constant(_zeros((2, 2, 2)))),
        lambda tf: tf.image.image_gradients(tf.placeholder(tf.float32)),
        lambda tf: _mod(tf).resize_images_v2(_zeros((4, 4)), [2, 2]),
        lambda tf: _mod(tf).resize_images_v2(_zeros((4, 4, 3)), [2, 2, 2]),
        lambda tf: _mod(tf).resize_images_v2(_zeros((4, 4, 3)), [2, 2], "foo"),
        lambda tf: _mod(tf).resize_images_v2(tf.placeholder(tf.float32), [2, 2]),
        lambda tf: _mod(tf).resize_image_with_pad_v2(_zeros((4, 4, 3)), 0, 2),
        lambda tf: _mod(tf).resize_image_with_pad_v1(_zeros((4, 4, 3)), 2, -1),
    ],
)
def test_build_errors(tf1, build):
    """Errors raised while building: same class and message."""
    want = outcome(build, tf1)
    got = outcome(build, ff)
    assert want[0] in ("ValueError", "TypeError")
    assert got == want


@pytest.mark.parametrize(
    "build",
    [
        # Smaller than the filter: the depthwise convolution's static shape check.
        lambda tf: tf.image.ssim(_zeros((8, 8, 1)), _zeros((8, 8, 1)), 1.0),
        lambda tf: tf.image.ssim_multiscale(_zeros((1, 40, 40, 1)), _zeros((1, 40, 40, 1)), 1.0),
        lambda tf: tf.image.psnr(_zeros((8, 8)), _zeros((8, 8)), 1.0),
        # Broadcast batch dimensions that do not agree.
        lambda tf: tf.image.psnr(_zeros((2, 8, 8, 1)), _zeros((3, 8, 8, 1)), 1.0),
        lambda tf: tf.image.sobel_edges(tf.constant(_zeros((3, 3, 3)))),
        lambda tf: tf.image.sobel_edges(tf.constant(np.zeros((1, 3, 3, 1), np.int32))),
    ],
)
def test_build_error_classes(tf1, build):
    """Errors from the ops' shape and type checks: same class (the core words them)."""
    _error_type(tf1, build)


def _fed(tf, value):
    return tf.placeholder_with_default(value, None)


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.image.ssim(_fed(tf, _zeros((8, 8, 1))), _fed(tf, _zeros((8, 8, 1))), 1.0),
        lambda tf: tf.image.ssim(
            _fed(tf, _zeros((1, 12, 12, 1))), _fed(tf, _zeros((1, 12, 13, 1))), 1.0
        ),
        lambda tf: tf.image.psnr(_fed(tf, _zeros((2, 2))), _fed(tf, _zeros((2, 2))), 1.0),
        lambda tf: tf.image.psnr(
            _fed(tf, _zeros((1, 2, 2, 1))), _fed(tf, _zeros((1, 3, 3, 1))), 1.0
        ),
        lambda tf: tf.image.ssim_multiscale(
            _fed(tf, _zeros((1, 40, 40, 1))), _fed(tf, _zeros((1, 40, 40, 1))), 1.0
        ),
    ],
)
def test_run_errors(tf1, build):
    """Shapes known only when run: `InvalidArgumentError` (TF's asserts, or the op that
    the executor happens to run first)."""
    want, _ = _error_type(tf1, build)
    assert want[0] == "InvalidArgumentError"


def test_verify_compatible_image_shapes(tf1):
    """TF's helper of `ssim` and `psnr`: its run-time checks (rank, last three dims)."""
    from tensorflow.python.ops import image_ops_impl

    feeds = [
        ((1, 2, 2, 1), (2, 2, 1), "ok"),
        ((2, 2), (2, 2), "InvalidArgumentError"),
        ((1, 2, 2, 1), (1, 3, 3, 1), "InvalidArgumentError"),
    ]
    for mod, tf in ((image_ops_impl, tf1), (ff_image_ops, ff)):
        with tf.Graph().as_default():
            img1 = tf.placeholder(tf.float32)
            img2 = tf.placeholder(tf.float32)
            _, _, checks = mod._verify_compatible_image_shapes(img1, img2)
            with tf.Session() as sess:
                for a, b, want in feeds:
                    feed = {img1: np.zeros(a), img2: np.zeros(b)}
                    got = outcome(sess.run, checks, feed)[0]
                    assert got == want, (tf, a, b, got)


# ---------------------------------------------------------------------------------
# TF 2's resizing, as TF 1.15's `image_ops` defines it

IMG = RNG.random((2, 9, 13, 3), dtype=np.float32)


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area"])
@pytest.mark.parametrize("size", [(5, 7), (18, 20), (9, 13), (1, 1)], ids=str)
@pytest.mark.parametrize("preserve", [False, True])
@pytest.mark.parametrize("batched", [False, True])
def test_resize_images_v2(tf1, method, size, preserve, batched):
    img = IMG if batched else IMG[0]

    def build(tf):
        return _mod(tf).resize_images_v2(
            tf.constant(img), size, method, preserve_aspect_ratio=preserve
        )

    _both(tf1, build, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float64])
def test_resize_images_v2_dtypes(tf1, dtype):
    img = (IMG * 200).astype(dtype)

    def build(tf):
        m = _mod(tf)
        return [m.resize_images_v2(img, [4, 5], meth) for meth in ("bilinear", "nearest", "area")]

    _both(tf1, build)


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area"])
@pytest.mark.parametrize("target", [(12, 20), (4, 4), (9, 13)], ids=str)
def test_resize_image_with_pad_v2(tf1, method, target):
    def build(tf):
        return _mod(tf).resize_image_with_pad_v2(tf.constant(IMG), *target, method=method)

    _both(tf1, build, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method", [0, 1, 2, 3])
def test_resize_image_with_pad_v1(tf1, method):
    def build(tf):
        return _mod(tf).resize_image_with_pad_v1(tf.constant(IMG[0]), 12, 20, method=method)

    _both(tf1, build, rtol=1e-5, atol=1e-5)


def test_resize_method_classes(tf1):
    from tensorflow.python.ops import image_ops

    for name in dir(image_ops.ResizeMethod):
        if name.isupper():
            assert getattr(ff_image_ops.ResizeMethodV2, name) == getattr(
                image_ops.ResizeMethod, name
            )
    assert ff_image_ops.ResizeMethodV1 is ff.image.ResizeMethod
    assert ff.image.ResizeMethod.BILINEAR == tf1.image.ResizeMethod.BILINEAR == 0


SCALE_AND_TRANSLATE = "ScaleAndTranslate" in _ferroflow.op_names()


@pytest.mark.parametrize(
    "method, antialias",
    [
        ("lanczos3", False),
        ("lanczos5", False),
        ("gaussian", False),
        ("mitchellcubic", False),
        ("bilinear", True),
        ("bicubic", True),
    ],
)
def test_resize_images_v2_scale_and_translate(tf1, method, antialias):
    def build(tf):
        return _mod(tf).resize_images_v2(tf.constant(IMG), [5, 7], method, antialias=antialias)

    if SCALE_AND_TRANSLATE:
        _both(tf1, build, rtol=1e-5, atol=1e-5)
    else:
        # ferroflow has no `ScaleAndTranslate` kernel yet.
        with ff.Graph().as_default(), pytest.raises(ValueError, match="ScaleAndTranslate"):
            build(ff)


# ---------------------------------------------------------------------------------
# decode_image: the format from the first bytes


def _gif():
    return (
        b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00"
        b"\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
    )


def _bmp(width=3, height=2):
    import struct

    row = (width * 3 + 3) // 4 * 4
    pixels = bytes(range(256)) * (row * height // 256 + 1)
    data = pixels[: row * height]
    header = b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, len(data), 2835, 2835, 0, 0)
    return header + info + data


@pytest.fixture(scope="module")
def encoded(tf1):
    img = (RNG.random((6, 5, 3)) * 255).astype(np.uint8)
    png = run_tf(tf1, lambda tf: tf.image.encode_png(img))
    # One colour: ferroflow's JPEG decoder (accurate IDCT, its chroma upsampling) gives
    # TF's pixels exactly only where the image is flat.
    flat = np.zeros((8, 8, 3), np.uint8) + np.array([200, 100, 50], np.uint8)
    jpg = run_tf(tf1, lambda tf: tf.image.encode_jpeg(flat))
    return {"png": png, "jpeg": jpg, "gif": _gif(), "bmp": _bmp()}


@pytest.mark.parametrize("fmt", ["png", "jpeg", "gif", "bmp"])
@pytest.mark.parametrize("channels", [None, 1, 3])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "uint16"])
def test_decode_image_formats(tf1, encoded, fmt, channels, dtype):
    data = encoded[fmt]

    def build(tf):
        return tf.image.decode_image(tf.constant(data), channels=channels, dtype=getattr(tf, dtype))

    want = outcome(run_tf, tf1, build)
    got = outcome(run_ff, build)
    if fmt in ("gif", "bmp") and got[0] == "UnimplementedError":
        pytest.xfail("ferroflow's DecodeImage has no GIF or BMP decoder yet")
    assert got == want
