"""`tf.image` against TensorFlow (TF-1.x names through `tf.compat.v1`): resizes and
their gradients, colour ops, crops, pads and flips, the seeded random ops (TF's exact
numbers), static shapes and errors, and the PNG/JPEG codecs both ways (files written
by TF decoded by ferroflow and the reverse), round trips and corrupt input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import run_ff, run_tf

import ferroflow as ff

RNG = np.random.default_rng(7)
IMG_F = RNG.random((2, 5, 7, 3), dtype=np.float32)
IMG_U8 = RNG.integers(0, 256, (2, 5, 7, 3), dtype=np.uint8)
ONE_F = IMG_F[0]
ONE_U8 = IMG_U8[0]


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


def _static(tf1, build):
    """The static shape (as a list) of what `build` returns, in TF and in ferroflow."""
    g = tf1.Graph()
    with g.as_default():
        want = build(tf1).shape.as_list() if build(tf1).shape.ndims is not None else None
    with ff.Graph().as_default():
        t = build(ff)
        got = t.shape.as_list() if t.shape.ndims is not None else None
    assert want == got
    return got


# ---------------------------------------------------------------------------------
# Resizing

SIZES = [(3, 4), (10, 14), (5, 7), (1, 1), (9, 3)]
METHODS = ["bilinear", "nearest_neighbor", "bicubic", "area"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("img", [IMG_F, IMG_U8, IMG_F.astype(np.float64)], ids=["f32", "u8", "f64"])
def test_resize_ops(tf1, method, size, align_corners, img):
    def build(tf):
        fn = getattr(tf.image, f"resize_{method}")
        return fn(tf.constant(img), size, align_corners=align_corners)

    _both(tf1, build, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("method", ["bilinear", "nearest_neighbor", "bicubic"])
@pytest.mark.parametrize("size", SIZES)
def test_resize_half_pixel_centers(tf1, method, size):
    def build(tf):
        fn = getattr(tf.image, f"resize_{method}")
        return fn(tf.constant(IMG_F * 255), size, half_pixel_centers=True)

    _both(tf1, build, rtol=1e-5, atol=1e-3)


def _run_threads(tf, build, threads):
    g = tf.Graph()
    with g.as_default():
        out = build(tf)
        config = tf.ConfigProto(intra_op_parallelism_threads=threads)
        with tf.Session(graph=g, config=config) as sess:
            return sess.run(out)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("channels", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("size", [(141, 97), (33, 260), (29, 31)], ids=["up", "wide", "down"])
@pytest.mark.parametrize("flags", [{}, {"align_corners": True}, {"half_pixel_centers": True}])
def test_resize_large_images_bit_for_bit(tf1, method, channels, size, flags):
    """Images of many rows, split over the intra-op threads, every channel count the
    kernels special-case and one they don't: TF's values to the bit (0 ulp)."""
    if method == "area" and flags.get("half_pixel_centers"):
        pytest.skip("ResizeArea has no half_pixel_centers")
    img = np.random.default_rng(channels).random((2, 70, 90, channels), dtype=np.float32) * 255
    # Nearest neighbours copy pixels of any size: of 1-5 bytes too.
    images = [img, img.astype(np.uint8)] if method == "nearest_neighbor" else [img]
    for image in images:

        def build(tf, image=image):
            return getattr(tf.image, f"resize_{method}")(tf.constant(image), size, **flags)

        want = _run_threads(tf1, build, 2)
        for threads in (1, 2):
            got = _run_threads(ff, build, threads)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)


LARGE = np.random.default_rng(11).random((3, 61, 77, 3), dtype=np.float32)
# Every ordering of channel values with ties, zeros, negatives and values past 1
# (the branches of TF's hue and saturation code), as 2 images of 33x40 pixels.
_TIES = np.array([0.0, 0.25, 0.5, 1.0, -0.5, 2.0, 1e-8, 0.75, 255.0, 1 / 3, 2 / 3], np.float32)
TIES = np.stack(np.meshgrid(_TIES, _TIES, _TIES, indexing="ij"), -1).reshape(-1, 3)
TIES = np.concatenate([TIES, np.random.default_rng(14).random((2 * 33 * 40 - len(TIES), 3))])
TIES = TIES.astype(np.float32).reshape(2, 33, 40, 3)
UPSTREAM = np.random.default_rng(12).standard_normal((3, 97, 141, 3)).astype(np.float32)


def _crops(tf, images, method):
    """40 boxes, some reaching outside the image (extrapolated), some flipped."""
    rng = np.random.default_rng(13)
    boxes = rng.uniform(-0.3, 1.3, (40, 4)).astype(np.float32)
    index = rng.integers(0, len(images), 40).astype(np.int32)
    return tf.image.crop_and_resize(
        tf.constant(images), boxes, index, [23, 31], method=method, extrapolation_value=-1.0
    )


def _resize_grad(tf, method):
    """The gradient a resize of LARGE passes back for fixed upstream gradients."""
    x = tf.constant(LARGE)
    y = getattr(tf.image, f"resize_{method}")(x, [97, 141])
    return tf.gradients(y, x, grad_ys=tf.constant(UPSTREAM))[0]


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.image.adjust_contrast(tf.constant(LARGE), 1.7),
        lambda tf: tf.image.adjust_hue(tf.constant(LARGE), 0.3),
        lambda tf: tf.image.adjust_saturation(tf.constant(LARGE), 1.4),
        lambda tf: tf.image.adjust_hue(tf.constant(TIES), -0.9),
        lambda tf: tf.image.adjust_hue(tf.constant(TIES), 1.0),
        lambda tf: tf.image.adjust_saturation(tf.constant(TIES), 0.6),
        lambda tf: tf.image.rgb_to_hsv(tf.constant(TIES)),
        lambda tf: tf.image.hsv_to_rgb(tf.constant(LARGE)),
        lambda tf: tf.image.flip_left_right(tf.constant(LARGE)),
        lambda tf: tf.image.flip_up_down(tf.constant(LARGE)),
        lambda tf: tf.reverse(tf.constant(LARGE), [0, 2]),
        lambda tf: tf.reverse(tf.constant(LARGE.astype(np.uint8)), [1, 3]),
        lambda tf: _resize_grad(tf, "bilinear"),
        lambda tf: _resize_grad(tf, "bicubic"),
        lambda tf: _crops(tf, LARGE, "bilinear"),
        lambda tf: _crops(tf, LARGE[..., :2], "bilinear"),
        lambda tf: _crops(tf, LARGE, "nearest"),
    ],
    ids=[
        "contrast",
        "hue",
        "saturation",
        "hue_ties",
        "hue_full_turn",
        "saturation_ties",
        "rgb_to_hsv_ties",
        "hsv_to_rgb",
        "flip_lr",
        "flip_ud",
        "reverse02",
        "reverse13_u8",
        "bilinear_grad",
        "bicubic_grad",
        "crop_bilinear",
        "crop_bilinear_2ch",
        "crop_nearest",
    ],
)
def test_image_ops_on_large_batches_bit_for_bit(tf1, build):
    """Batches of several images, split over the intra-op threads: TF's values to the
    bit, on 1 and 2 threads."""
    want = _run_threads(tf1, build, 2)
    for threads in (1, 2):
        np.testing.assert_array_equal(_run_threads(ff, build, threads), want)


@pytest.mark.parametrize("method", [0, 1, 2, 3])
@pytest.mark.parametrize(
    "img,size,preserve",
    [
        (ONE_F, [4, 9], False),
        (IMG_U8, [8, 3], False),
        (IMG_F, [5, 7], False),
        (ONE_U8, [12, 12], True),
        (IMG_F, [4, 20], True),
    ],
)
def test_resize_images(tf1, method, img, size, preserve):
    def build(tf):
        return tf.image.resize_images(
            tf.constant(img), size, method=method, preserve_aspect_ratio=preserve
        )

    _both(tf1, build, rtol=1e-5, atol=1e-3)
    _static(tf1, build)


def test_resize_method_names_and_aliases(tf1):
    assert ff.image.ResizeMethod.BICUBIC == tf1.image.ResizeMethod.BICUBIC
    assert ff.image.resize is ff.image.resize_images

    def build(tf):
        x = tf.placeholder_with_default(tf.constant(IMG_F), [None, None, None, 3])
        return tf.image.resize(x, [4, 4], align_corners=True)

    _both(tf1, build)
    _static(tf1, build)


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.image.resize_images(tf.zeros([4, 4]), [2, 2]),
        lambda tf: tf.image.resize_images(tf.zeros([1, 4, 4, 1]), [2, 2, 2]),
        lambda tf: tf.image.resize_images(tf.zeros([1, 4, 4, 1]), [2, 2], method=7),
        lambda tf: tf.image.resize_bilinear(tf.zeros([4, 4, 1]), [2, 2]),
    ],
)
def test_resize_value_errors(tf1, build):
    with pytest.raises(ValueError), tf1.Graph().as_default():
        build(tf1)
    with pytest.raises(ValueError), ff.Graph().as_default():
        build(ff)


def test_resize_runtime_errors():
    with ff.Session() as sess:
        x = ff.placeholder(ff.float32)
        size = ff.placeholder(ff.int32)
        y = ff.image.resize_bilinear(x, size)
        with pytest.raises(ff.errors.InvalidArgumentError, match="must be 4-dimensional"):
            sess.run(y, {x: np.zeros((2, 2, 1)), size: [1, 1]})
        with pytest.raises(ff.errors.InvalidArgumentError, match="must be positive"):
            sess.run(y, {x: np.zeros((1, 2, 2, 1)), size: [0, 1]})
        z = ff.image.resize_bilinear(x, [2, 2], align_corners=True, half_pixel_centers=True)
        with pytest.raises(ff.errors.InvalidArgumentError, match="half_pixel_centers"):
            sess.run(z, {x: np.zeros((1, 2, 2, 1))})


@pytest.mark.parametrize("method", ["bilinear", "nearest_neighbor", "bicubic"])
@pytest.mark.parametrize("size", [(3, 4), (11, 13), (5, 7)])
@pytest.mark.parametrize("flags", [(False, False), (True, False), (False, True)])
def test_resize_gradients(tf1, method, size, flags):
    align, half = flags
    w = RNG.random((2, *size, 3), dtype=np.float32)

    def build(tf):
        x = tf.constant(IMG_F)
        fn = getattr(tf.image, f"resize_{method}")
        y = fn(x, size, align_corners=align, half_pixel_centers=half)
        return tf.gradients(tf.reduce_sum(y * w), x)[0]

    _both(tf1, build, rtol=1e-5, atol=1e-5)


def test_rgb_to_hsv_gradient(tf1):
    special = [[0.5, 0.5, 0.5], [0.2, 0.2, 0.9], [0.0, 0.0, 0.0], [0.9, 0.3, 0.3]] + [
        [0.1, 0.7, 0.7]
    ] * 3
    x = np.concatenate([IMG_F[0], np.array([special], np.float32)], 0)
    w = RNG.random(x.shape, dtype=np.float32)

    def build(tf):
        t = tf.constant(x)
        return tf.gradients(tf.reduce_sum(tf.image.rgb_to_hsv(t) * w), t)[0]

    _both(tf1, build, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "build",
    [
        lambda tf, x: tf.image.resize_area(x, [3, 3]),
        lambda tf, x: tf.image.adjust_hue(x, 0.1),
    ],
)
def test_ops_without_gradient_raise_lookup_error(tf1, build):
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            x = lib.zeros([1, 2, 2, 3])
            y = build(lib, x)
            with pytest.raises(LookupError):
                lib.gradients(y, x)


def test_resize_nearest_gradient_dynamic_shape(tf1):
    def build(tf):
        x = tf.placeholder_with_default(tf.constant(IMG_F), [None, None, None, 3])
        y = tf.image.resize_nearest_neighbor(x, [9, 4])
        return tf.gradients(tf.reduce_sum(y * y), x)[0]

    _both(tf1, build)


# ---------------------------------------------------------------------------------
# Colour and dtype ops

COLOR = [
    lambda tf: tf.image.rgb_to_hsv(tf.constant(IMG_F)),
    lambda tf: tf.image.rgb_to_hsv(tf.constant(IMG_F.astype(np.float64))),
    lambda tf: tf.image.rgb_to_hsv(tf.constant([[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [1, 0, 0]])),
    lambda tf: tf.image.hsv_to_rgb(tf.constant(IMG_F)),
    lambda tf: tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(tf.constant(IMG_F))),
    lambda tf: tf.image.adjust_hue(tf.constant(IMG_F), 0.2),
    lambda tf: tf.image.adjust_hue(tf.constant(IMG_F), -0.7),
    lambda tf: tf.image.adjust_hue(tf.constant(IMG_U8), 0.45),
    lambda tf: tf.image.adjust_saturation(tf.constant(IMG_F), 0.3),
    lambda tf: tf.image.adjust_saturation(tf.constant(IMG_F), 2.5),
    lambda tf: tf.image.adjust_saturation(tf.constant(IMG_U8), 1.7),
    lambda tf: tf.image.adjust_contrast(tf.constant(IMG_F), 1.8),
    lambda tf: tf.image.adjust_contrast(tf.constant(ONE_F), -0.5),
    lambda tf: tf.image.adjust_contrast(tf.constant(IMG_U8), 2.0),
    lambda tf: tf.image.adjust_brightness(tf.constant(IMG_F), 0.3),
    lambda tf: tf.image.adjust_brightness(tf.constant(IMG_U8), -0.2),
    lambda tf: tf.image.adjust_gamma(tf.constant(IMG_F), 2.2, 0.9),
    lambda tf: tf.image.adjust_gamma(tf.constant(IMG_U8), 0.5),
    lambda tf: tf.image.rgb_to_grayscale(tf.constant(IMG_F)),
    lambda tf: tf.image.rgb_to_grayscale(tf.constant(IMG_U8)),
    lambda tf: tf.image.grayscale_to_rgb(tf.constant(IMG_U8[..., :1])),
    lambda tf: tf.image.per_image_standardization(tf.constant(IMG_U8)),
    lambda tf: tf.image.per_image_standardization(tf.constant(ONE_F)),
    lambda tf: tf.image.per_image_standardization(tf.zeros([3, 3, 1])),
    lambda tf: tf.image.total_variation(tf.constant(IMG_F)),
    lambda tf: tf.image.total_variation(tf.constant(ONE_F)),
]


@pytest.mark.parametrize("build", COLOR)
def test_color_ops(tf1, build):
    got = _both(tf1, build, rtol=1e-5, atol=2e-6)
    assert got is not None


@pytest.mark.parametrize(
    "src,dst",
    [
        (np.uint8, np.float32),
        (np.uint8, np.int32),
        (np.uint8, np.uint16),
        (np.uint16, np.uint8),
        (np.int32, np.uint8),
        (np.int32, np.float64),
        (np.float32, np.uint8),
        (np.float32, np.int16),
        (np.float32, np.float64),
        (np.float64, np.int32),
        (np.float32, np.uint8),
    ],
)
@pytest.mark.parametrize("saturate", [False, True])
def test_convert_image_dtype(tf1, src, dst, saturate):
    if np.dtype(src).kind == "f":
        x = np.array([[-0.5, 0.0, 0.25], [0.5, 0.999, 1.5]], dtype=src)
    else:
        info = np.iinfo(src)
        x = np.array([[info.min, 0, 1], [7, info.max // 2, info.max]], dtype=src)

    def build(tf):
        return tf.image.convert_image_dtype(tf.constant(x), dst, saturate=saturate)

    if not saturate and np.dtype(src).kind == "f" and np.dtype(dst).kind != "f":
        # Out-of-range floats cast without saturation are C++ undefined behaviour.
        x = np.clip(x, 0, 1)
    _both(tf1, build)


def test_color_errors(tf1):
    for build in [
        lambda tf: tf.image.rgb_to_hsv(tf.zeros([2, 4])),
        lambda tf: tf.image.adjust_contrast(tf.zeros([4, 3]), 2.0),
        lambda tf: tf.image.grayscale_to_rgb(tf.zeros([4, 4, 3])),
        lambda tf: tf.image.random_hue(tf.zeros([2, 2, 3]), 0.6),
        lambda tf: tf.image.random_contrast(tf.zeros([2, 2, 3]), 0.5, 0.2),
        lambda tf: tf.image.random_saturation(tf.zeros([2, 2, 3]), -1.0, 0.2),
        lambda tf: tf.image.random_brightness(tf.zeros([2, 2, 3]), -0.1),
    ]:
        with pytest.raises(ValueError) as want, tf1.Graph().as_default():
            build(tf1)
        with pytest.raises(ValueError) as got, ff.Graph().as_default():
            build(ff)
        if "Shape" not in str(want.value) and "Dimension" not in str(want.value):
            assert str(got.value) == str(want.value)
    with ff.Session() as sess:
        x = ff.placeholder(ff.float32)
        with pytest.raises(ff.errors.InvalidArgumentError, match="3 channels"):
            sess.run(ff.image.adjust_hue(x, 0.1), {x: np.zeros((2, 2, 4))})
        with pytest.raises(ff.errors.FailedPreconditionError, match="3 channels"):
            sess.run(ff.image.rgb_to_hsv(x), {x: np.zeros((2, 2, 4))})


# ---------------------------------------------------------------------------------
# Flips, crops, pads

GEOMETRY = [
    lambda tf: tf.image.flip_left_right(tf.constant(ONE_U8)),
    lambda tf: tf.image.flip_up_down(tf.constant(ONE_F)),
    lambda tf: tf.image.flip_left_right(tf.constant(IMG_F)),
    lambda tf: tf.image.flip_up_down(tf.constant(IMG_U8)),
    lambda tf: tf.image.transpose_image(tf.constant(ONE_F)),
    lambda tf: tf.image.transpose(tf.constant(IMG_U8)),
    lambda tf: tf.image.rot90(tf.constant(ONE_F)),
    lambda tf: tf.image.rot90(tf.constant(ONE_F), 2),
    lambda tf: tf.image.rot90(tf.constant(ONE_F), 3),
    lambda tf: tf.image.rot90(tf.constant(IMG_U8), -1),
    lambda tf: tf.image.rot90(tf.constant(IMG_U8), 4),
    lambda tf: tf.reverse(tf.constant(IMG_F), [0, -1]),
    lambda tf: tf.reverse_v2(tf.constant([["a", "b"], ["c", "d"]]), [1]),
    lambda tf: tf.image.crop_to_bounding_box(tf.constant(ONE_U8), 1, 2, 3, 4),
    lambda tf: tf.image.crop_to_bounding_box(tf.constant(IMG_F), 0, 0, 5, 7),
    lambda tf: tf.image.pad_to_bounding_box(tf.constant(ONE_U8), 1, 2, 8, 12),
    lambda tf: tf.image.pad_to_bounding_box(tf.constant(IMG_F), 0, 3, 6, 10),
    lambda tf: tf.image.resize_image_with_crop_or_pad(tf.constant(ONE_F), 3, 3),
    lambda tf: tf.image.resize_image_with_crop_or_pad(tf.constant(ONE_F), 9, 11),
    lambda tf: tf.image.resize_image_with_crop_or_pad(tf.constant(IMG_U8), 8, 4),
    lambda tf: tf.image.resize_with_crop_or_pad(tf.constant(IMG_U8), 2, 10),
    lambda tf: tf.image.central_crop(tf.constant(ONE_F), 0.5),
    lambda tf: tf.image.central_crop(tf.constant(IMG_U8), 0.3),
    lambda tf: tf.image.central_crop(tf.constant(ONE_F), 1.0),
    lambda tf: tf.image.resize_image_with_pad(tf.constant(ONE_F), 9, 4),
    lambda tf: tf.image.resize_image_with_pad(tf.constant(IMG_U8), 4, 12, method=1),
    lambda tf: tf.image.crop_to_bounding_box(
        tf.placeholder_with_default(ONE_U8, [None, None, 3]), 1, 1, 2, 2
    ),
    lambda tf: tf.image.pad_to_bounding_box(
        tf.placeholder_with_default(ONE_U8, [None, None, 3]), 1, 1, 9, 9
    ),
    lambda tf: tf.image.resize_image_with_crop_or_pad(
        tf.placeholder_with_default(ONE_U8, [None, None, 3]), 4, 9
    ),
    lambda tf: tf.image.central_crop(tf.placeholder_with_default(IMG_F, [2, None, None, 3]), 0.6),
    lambda tf: tf.image.flip_left_right(tf.placeholder_with_default(ONE_F, None)),
]


@pytest.mark.parametrize("build", GEOMETRY)
def test_geometry(tf1, build):
    _both(tf1, build)
    _static(tf1, build)


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.image.crop_to_bounding_box(tf.zeros([4, 4, 3]), -1, 0, 2, 2),
        lambda tf: tf.image.crop_to_bounding_box(tf.zeros([4, 4, 3]), 0, 0, 5, 2),
        lambda tf: tf.image.crop_to_bounding_box(tf.zeros([4, 4, 3]), 0, 0, 2, 0),
        lambda tf: tf.image.pad_to_bounding_box(tf.zeros([4, 4, 3]), 0, 1, 4, 4),
        lambda tf: tf.image.pad_to_bounding_box(tf.zeros([4, 4]), 0, 0, 4, 4),
        lambda tf: tf.image.resize_image_with_crop_or_pad(tf.zeros([4, 4, 3]), 0, 2),
        lambda tf: tf.image.central_crop(tf.zeros([4, 4, 3]), 0.0),
        lambda tf: tf.image.central_crop(tf.zeros([4, 4, 3]), 1.5),
        lambda tf: tf.image.flip_left_right(tf.zeros([4, 4])),
        lambda tf: tf.image.random_flip_up_down(tf.zeros([1, 1, 4, 4, 3])),
        lambda tf: tf.image.rot90(tf.zeros([4, 4])),
        lambda tf: tf.image.flip_up_down(tf.zeros([0, 4, 3])),
    ],
)
def test_geometry_value_errors(tf1, build):
    with pytest.raises(ValueError) as want, tf1.Graph().as_default():
        build(tf1)
    with pytest.raises(ValueError) as got, ff.Graph().as_default():
        build(ff)
    assert str(got.value) == str(want.value)


def test_dynamic_crop_checks_fail_at_run_time():
    with ff.Session() as sess:
        x = ff.placeholder(ff.float32, [None, None, 3])
        y = ff.image.crop_to_bounding_box(x, 1, 1, 4, 4)
        with pytest.raises(ff.errors.InvalidArgumentError, match="width must be >= target"):
            sess.run(y, {x: np.zeros((9, 3, 3))})
        assert sess.run(y, {x: np.zeros((6, 6, 3))}).shape == (4, 4, 3)


# ---------------------------------------------------------------------------------
# Random ops: TF's numbers for the same seeds

RANDOM = [
    lambda tf: tf.image.random_flip_left_right(tf.constant(ONE_F), seed=3),
    lambda tf: tf.image.random_flip_up_down(tf.constant(ONE_U8), seed=11),
    lambda tf: tf.image.random_flip_left_right(tf.constant(IMG_F), seed=5),
    lambda tf: tf.image.random_flip_up_down(tf.constant(IMG_F), seed=8),
    lambda tf: tf.image.random_brightness(tf.constant(IMG_F), 0.4, seed=2),
    lambda tf: tf.image.random_contrast(tf.constant(IMG_F), 0.2, 1.8, seed=9),
    lambda tf: tf.image.random_hue(tf.constant(IMG_F), 0.3, seed=4),
    lambda tf: tf.image.random_saturation(tf.constant(IMG_U8), 0.5, 1.5, seed=6),
    lambda tf: tf.image.random_crop(tf.constant(IMG_F), [1, 3, 4, 3], seed=7),
    lambda tf: tf.random_crop(tf.constant(ONE_U8), [2, 2, 3], seed=1),
]


@pytest.mark.parametrize("build", RANDOM)
def test_random_ops_match_tensorflow(tf1, build):
    def run(m):
        g = m.Graph()
        with g.as_default():
            m.set_random_seed(1234)
            t = build(m)
            with m.Session(graph=g) as sess:
                return [sess.run(t) for _ in range(6)]

    want, got = run(tf1), run(ff)
    _close(want, got, rtol=1e-5, atol=2e-6)


def test_random_flip_is_a_flip_or_the_image():
    x = np.arange(2 * 3 * 4 * 1, dtype=np.float32).reshape(2, 3, 4, 1)
    seen = set()
    with ff.Session() as sess:
        y = ff.image.random_flip_left_right(ff.constant(x))
        for _ in range(40):
            out = sess.run(y)
            for i in range(2):
                flipped = np.array_equal(out[i], x[i, :, ::-1])
                assert flipped or np.array_equal(out[i], x[i])
                seen.add(flipped)
    assert seen == {True, False}


def test_random_crop_size_check():
    with ff.Session() as sess:
        with pytest.raises(ff.errors.InvalidArgumentError, match=r"Need value\.shape >= size"):
            sess.run(ff.random_crop(ff.zeros([2, 2]), [3, 1]))


# ---------------------------------------------------------------------------------
# Codecs

PNG_IMAGES = [
    RNG.integers(0, 256, (6, 9, 1), dtype=np.uint8),
    RNG.integers(0, 256, (5, 4, 2), dtype=np.uint8),
    RNG.integers(0, 256, (7, 3, 3), dtype=np.uint8),
    RNG.integers(0, 256, (3, 8, 4), dtype=np.uint8),
    RNG.integers(0, 65536, (4, 5, 3), dtype=np.uint16),
    RNG.integers(0, 65536, (4, 5, 1), dtype=np.uint16),
]


def _encode_tf(tf1, build_encode):
    return run_tf(tf1, build_encode)


@pytest.mark.parametrize("img", PNG_IMAGES, ids=lambda a: f"{a.dtype}{a.shape}")
def test_png_both_ways(tf1, img):
    dtype = img.dtype

    def enc(tf):
        return tf.image.encode_png(tf.constant(img))

    tf_png = run_tf(tf1, enc)
    ff_png = run_ff(enc)
    assert ff_png.startswith(b"\x89PNG")

    def dec(data, channels=0):
        return lambda tf: tf.image.decode_png(tf.constant(data), channels=channels, dtype=dtype)

    # Written by TF, read by ferroflow; written by ferroflow, read by TF; our round trip.
    np.testing.assert_array_equal(run_ff(dec(tf_png)), img)
    np.testing.assert_array_equal(run_tf(tf1, dec(ff_png)), img)
    np.testing.assert_array_equal(run_ff(dec(ff_png)), img)
    # Channel conversions and the other bit depth, exactly as TF's libpng does them.
    for channels in [1, 3, 4]:
        _both(tf1, dec(tf_png, channels))
    other = np.uint8 if dtype == np.uint16 else np.uint16
    _both(tf1, lambda tf: tf.image.decode_png(tf.constant(tf_png), dtype=other))
    _both(tf1, lambda tf: tf.image.decode_image(tf.constant(tf_png), dtype=other))
    _both(tf1, lambda tf: tf.image.decode_image(tf.constant(tf_png), dtype=tf.float32))


def test_png_static_shapes(tf1):
    data = run_tf(tf1, lambda tf: tf.image.encode_png(tf.constant(PNG_IMAGES[2])))
    for build in [
        lambda tf: tf.image.decode_png(tf.constant(data)),
        lambda tf: tf.image.decode_png(tf.constant(data), channels=3),
        lambda tf: tf.image.decode_image(tf.constant(data), channels=3, expand_animations=False),
        lambda tf: tf.image.encode_png(tf.zeros([2, 2, 3], tf.uint8)),
    ]:
        _static(tf1, build)


JPEG_SRC = np.clip(
    np.stack(
        [
            np.add.outer(np.arange(40) * 5, np.arange(56) * 3),
            np.add.outer(np.arange(40) * 2, np.arange(56) * -4) + 200,
            np.full((40, 56), 90) + RNG.integers(0, 30, (40, 56)),
        ],
        axis=-1,
    ),
    0,
    255,
).astype(np.uint8)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"quality": 60},
        {"quality": 100, "chroma_downsampling": False},
        {"progressive": True},
        {"optimize_size": True},
        {"format": "rgb", "density_unit": "cm", "x_density": 72, "y_density": 96},
    ],
)
def test_jpeg_both_ways(tf1, kwargs):
    def enc(tf):
        return tf.image.encode_jpeg(tf.constant(JPEG_SRC), **kwargs)

    tf_jpeg = run_tf(tf1, enc)
    ff_jpeg = run_ff(enc)
    assert ff_jpeg.startswith(b"\xff\xd8\xff")

    def dec(data, **kw):
        return lambda tf: tf.image.decode_jpeg(tf.constant(data), **kw)

    # Both files decode to TF's pixels exactly, with either IDCT and either output.
    for data in [tf_jpeg, ff_jpeg]:
        for kw in [{}, {"dct_method": "INTEGER_ACCURATE"}, {"channels": 1}]:
            np.testing.assert_array_equal(run_ff(dec(data, **kw)), run_tf(tf1, dec(data, **kw)))

    # Our file decodes (in TF) about as close to the source image as TF's own file.
    def error(data):
        return np.abs(run_tf(tf1, dec(data)).astype(np.int32) - JPEG_SRC).mean()

    assert error(ff_jpeg) <= 1.5 * error(tf_jpeg) + 0.5, (error(ff_jpeg), error(tf_jpeg))
    np.testing.assert_array_equal(
        run_ff(lambda tf: tf.image.decode_image(tf.constant(tf_jpeg))),
        run_tf(tf1, lambda tf: tf.image.decode_image(tf.constant(tf_jpeg))),
    )


def test_jpeg_gray_and_ratio(tf1):
    gray = JPEG_SRC[..., :1]
    tf_jpeg = run_tf(tf1, lambda tf: tf.image.encode_jpeg(tf.constant(gray)))
    ff_jpeg = run_ff(lambda tf: tf.image.encode_jpeg(tf.constant(gray), format="grayscale"))
    for data in [tf_jpeg, ff_jpeg]:
        for channels in [0, 1, 3]:

            def build(tf, d=data, c=channels):
                return tf.image.decode_jpeg(d, channels=c)

            np.testing.assert_array_equal(run_ff(build), run_tf(tf1, build))
    color = run_tf(tf1, lambda tf: tf.image.encode_jpeg(tf.constant(JPEG_SRC)))
    for ratio in [2, 4, 8]:
        for method in ["INTEGER_FAST", "INTEGER_ACCURATE"]:

            def build(tf, r=ratio, m=method):
                return tf.image.decode_jpeg(color, ratio=r, dct_method=m)

            # libjpeg's reduced IDCTs, the chroma scaled by the IDCT instead of upsampled.
            np.testing.assert_array_equal(run_ff(build), run_tf(tf1, build))


def _pillow_jpegs():
    """JPEG files TF cannot write: 4:2:2 and 4:1:1 sampling, progressive with
    optimised tables and restart markers, restart intervals, Adobe CMYK, and RGB
    (Adobe transform 0), from Pillow's libjpeg."""
    pil = pytest.importorskip("PIL.Image")
    import io

    out = {}
    for shape, kind in [((37, 53, 3), "smooth"), ((64, 48, 3), "noise"), ((9, 130, 3), "smooth")]:
        img = pil.fromarray(_jpeg_content(shape, kind, 5))
        options = {
            "422": {"subsampling": 1, "quality": 85},
            "420": {"subsampling": 2, "quality": 40},
            "progressive": {"progressive": True, "optimize": True, "quality": 75},
            "progressive_restarts": {"progressive": True, "restart_marker_rows": 1},
            "restarts": {"quality": 90, "restart_marker_blocks": 3},
            "rgb": {"keep_rgb": True, "quality": 90},
        }
        for name, kw in options.items():
            buf = io.BytesIO()
            img.save(buf, "JPEG", **kw)
            out[f"{name} {shape} {kind}"] = buf.getvalue()
        buf = io.BytesIO()
        img.convert("CMYK").save(buf, "JPEG", quality=90)
        out[f"cmyk {shape} {kind}"] = buf.getvalue()
    return out


def _tf_decode_or_both_fail(tf1, build):
    """TF's image, or None after checking that we refuse what TF refuses."""
    try:
        return run_tf(tf1, build)
    except tf1.errors.InvalidArgumentError:
        with pytest.raises(ff.errors.InvalidArgumentError, match="Invalid JPEG data"):
            run_ff(build)
        return None


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"dct_method": "INTEGER_ACCURATE"},
        {"channels": 1},
        {"channels": 3, "fancy_upscaling": False},
        {"ratio": 2},
        {"ratio": 4, "dct_method": "INTEGER_ACCURATE"},
        {"ratio": 8},
    ],
)
def test_jpeg_decode_is_tensorflows_on_other_encoders_files(tf1, kwargs):
    """Files from another libjpeg (Pillow's) decode to TF's pixels exactly, or fail
    where TF fails (a CMYK file has no gray output in libjpeg)."""
    for name, data in _pillow_jpegs().items():

        def build(tf, d=data):
            return tf.image.decode_jpeg(d, **kwargs)

        want = _tf_decode_or_both_fail(tf1, build)
        if want is not None:
            np.testing.assert_array_equal(run_ff(build), want, err_msg=name)


@pytest.mark.parametrize("recover", [False, True])
def test_jpeg_decode_of_damaged_files_is_tensorflows(tf1, recover):
    """Damage that libjpeg survives: a bad Huffman code, data cut short before the
    EOI (the rest of the scan gray), restart markers out of order. Where TF fails
    (data ending without an EOI, unless recovering), so do we."""
    y, x = np.mgrid[0:48, 0:64]
    img = np.stack([x * 3, y * 5, (x + y) * 2], -1).astype(np.uint8)
    clean = run_tf(tf1, lambda tf: tf.image.encode_jpeg(tf.constant(img), quality=90))
    sos = clean.index(b"\xff\xda")
    body = sos + 14
    damaged = {
        "flipped": clean[: body + 40] + bytes([clean[body + 40] ^ 0x5A]) + clean[body + 41 :],
        "cut before EOI": clean[: body + 300] + b"\xff\xd9",
        "garbage marker": clean[: body + 200] + b"\xff\xd5" + clean[body + 200 :],
        "no EOI": clean[:-2],
        "cut": clean[: body + 300],
    }
    for name, data in damaged.items():

        def build(tf, d=data):
            return tf.image.decode_jpeg(d, try_recover_truncated=recover)

        want = _tf_decode_or_both_fail(tf1, build)
        if want is None:
            continue
        if name == "cut" and recover:
            # TF's source manager re-reads stale bytes after a cut inside a scan
            # (docs/ARCHITECTURE.md); libjpeg's own recovery is a gray remainder.
            got = run_ff(build)
            assert got.shape == want.shape
            continue
        np.testing.assert_array_equal(run_ff(build), want, err_msg=name)


def _jpeg_content(shape, kind, seed):
    rng = np.random.default_rng(seed)
    h, w, c = shape
    if kind == "noise":
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if kind == "checker":  # the largest AC coefficients an 8-bit block can make
        board = (np.add.outer(np.arange(h), np.arange(w)) % 2 * 255).astype(np.uint8)
        return np.repeat(board[..., None], c, axis=-1)
    if kind == "flat":
        return np.full(shape, rng.integers(0, 256), np.uint8)
    y, x = np.mgrid[0:h, 0:w]
    smooth = np.stack([x * 7 + y * 3, 255 - x * 5, y * 9 + 40], -1)[..., :c] % 256
    return (smooth + rng.integers(0, 12, shape)).clip(0, 255).astype(np.uint8)


def _encode_both(tf1, img, kwargs):
    def enc(tf):
        return tf.image.encode_jpeg(tf.constant(img), **kwargs)

    return run_tf(tf1, enc), run_ff(enc)


@pytest.mark.parametrize(
    ("shape", "kind", "kwargs"),
    [
        ((1, 1, 3), "smooth", {}),
        ((7, 5, 3), "smooth", {}),
        ((16, 16, 3), "noise", {}),
        ((17, 33, 3), "smooth", {}),
        ((31, 9, 3), "noise", {"quality": 1}),
        ((24, 40, 3), "smooth", {"quality": 50}),
        ((9, 13, 3), "checker", {"quality": 100}),
        ((12, 20, 3), "checker", {"quality": 100, "chroma_downsampling": False}),
        ((13, 29, 3), "noise", {"chroma_downsampling": False}),
        ((19, 23, 1), "smooth", {}),
        ((19, 23, 1), "noise", {"quality": 30}),
        ((8, 8, 1), "checker", {"quality": 100}),
        ((33, 47, 3), "smooth", {"optimize_size": True}),
        ((21, 11, 1), "noise", {"optimize_size": True}),
        ((40, 56, 3), "noise", {"optimize_size": True, "quality": 100}),
        ((5, 6, 3), "flat", {"optimize_size": True}),
        ((8, 8, 3), "flat", {"density_unit": "cm", "x_density": 72, "y_density": 1}),
        ((10, 10, 3), "smooth", {"xmp_metadata": "<x:xmpmeta>ferroflow</x:xmpmeta>"}),
        ((10, 10, 3), "smooth", {"format": "rgb", "quality": 0}),
        ((130, 250, 3), "smooth", {}),
    ],
)
def test_jpeg_bytes_are_tensorflows(tf1, shape, kind, kwargs):
    # TF writes JPEGs with libjpeg-turbo's baseline encoder; ours does its arithmetic
    # step by step (colour conversion, edges, downsampling, DCT, quantisation, Huffman
    # codes, markers), so the files must be the same bytes.
    img = _jpeg_content(shape, kind, seed=sum(shape))
    want, got = _encode_both(tf1, img, kwargs)
    assert got == want


@settings(max_examples=25, deadline=None)
@given(
    h=st.integers(1, 40),
    w=st.integers(1, 40),
    channels=st.sampled_from([1, 3]),
    kind=st.sampled_from(["noise", "smooth", "checker"]),
    quality=st.integers(0, 100),
    chroma=st.booleans(),
    optimize=st.booleans(),
)
def test_jpeg_bytes_are_tensorflows_for_any_shape(
    tf1, h, w, channels, kind, quality, chroma, optimize
):
    img = _jpeg_content((h, w, channels), kind, seed=h * 41 + w)
    kwargs = {"quality": quality, "chroma_downsampling": chroma, "optimize_size": optimize}
    want, got = _encode_both(tf1, img, kwargs)
    assert got == want


@settings(max_examples=25, deadline=None)
@given(
    h=st.integers(1, 70),
    w=st.integers(1, 70),
    kind=st.sampled_from(["noise", "smooth", "checker"]),
    quality=st.integers(1, 100),
    encoding=st.sampled_from(["420", "444", "progressive", "gray"]),
    channels=st.sampled_from([0, 1, 3]),
    ratio=st.sampled_from([1, 2, 4, 8]),
    accurate=st.booleans(),
    fancy=st.booleans(),
)
def test_jpeg_decode_is_tensorflows_for_any_shape(
    tf1, h, w, kind, quality, encoding, channels, ratio, accurate, fancy
):
    img = _jpeg_content((h, w, 1 if encoding == "gray" else 3), kind, seed=h * 37 + w)
    enc = {"quality": quality, "chroma_downsampling": encoding != "444"}
    if encoding == "progressive":
        enc["progressive"] = True
    data = run_tf(tf1, lambda tf: tf.image.encode_jpeg(tf.constant(img), **enc))
    dec = {
        "channels": channels,
        "ratio": ratio,
        "dct_method": "INTEGER_ACCURATE" if accurate else "INTEGER_FAST",
        "fancy_upscaling": fancy,
    }

    def build(tf):
        return tf.image.decode_jpeg(data, **dec)

    np.testing.assert_array_equal(run_ff(build), run_tf(tf1, build))


def _crop_windows(height, width, ratio, seed):
    """Windows `[y, x, h, w]` of a `height x width` image decoded at `ratio` that meet
    each case of libjpeg-turbo's cropped decode: the whole image, whole rows, a left
    edge on an iMCU column (16 or 8 pixels at ratio 1) and just past one, even and odd
    widths (the right edge is the filters' image edge), single pixels at the corners,
    and windows ending above the last MCU row (the data below is not read), plus a few
    at random."""
    rows, cols = -(-height // ratio), -(-width // ratio)
    rng = np.random.default_rng(seed)
    windows = [[0, 0, rows, cols], [rows // 3, 0, rows - rows // 3, cols], [0, 0, 1, 1]]
    windows.append([rows - 1, cols - 1, 1, 1])
    for align in (8 // ratio, 16 // ratio):
        for x in (align, align + 1, 2 * align - 1):
            for w in (1, 2, 5, 6, cols):
                windows.append([rows // 4, x, max(rows // 2, 1), min(w, cols - x)])
    for _ in range(8):
        y, x = int(rng.integers(0, rows)), int(rng.integers(0, cols))
        h, w = int(rng.integers(1, rows - y + 1)), int(rng.integers(1, cols - x + 1))
        windows.append([y, x, h, w])
    return [
        [y, x, h, w]
        for y, x, h, w in windows
        if h > 0 and w > 0 and y + h <= rows and x + w <= cols
    ]


def _crops_both(tf1, data, windows, **kwargs):
    """Every window of `data` decoded by TF and by us, or None where TF refuses the
    settings (after checking that we refuse them too)."""

    def build(tf):
        return [tf.image.decode_and_crop_jpeg(data, w, **kwargs) for w in windows]

    want = _tf_decode_or_both_fail(tf1, build)
    return None if want is None else (want, run_ff(build))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"dct_method": "INTEGER_ACCURATE", "channels": 1},
        {"channels": 3, "fancy_upscaling": False},
        {"ratio": 2},
        {"ratio": 4, "fancy_upscaling": False},
        {"ratio": 8, "channels": 1},
    ],
)
def test_jpeg_decode_and_crop_is_tensorflows(tf1, kwargs):
    """`DecodeAndCropJpeg` gives TF's pixels for every window of TF's and Pillow's
    files — including the edge columns where libjpeg-turbo's cropped decode differs
    from a crop of the whole image (a window's right edge, and its left edge on an MCU
    column, are the chroma filters' image edges)."""
    files = dict(_pillow_jpegs())
    for shape, enc in [((77, 93, 3), {}), ((77, 93, 3), {"chroma_downsampling": False})]:
        img = _jpeg_content(shape, "smooth", 3)
        files[f"tf {enc}"] = run_tf(tf1, lambda tf, i=img, e=enc: tf.image.encode_jpeg(i, **e))
    files["tf gray"] = run_tf(tf1, lambda tf: tf.image.encode_jpeg(JPEG_SRC[..., :1]))
    edge_columns_differ = False
    for name, data in files.items():
        h, w, _ = run_tf(tf1, lambda tf, d=data: tf.image.extract_jpeg_shape(d))
        windows = _crop_windows(h, w, kwargs.get("ratio", 1), seed=h * 7 + w)
        both = _crops_both(tf1, data, windows, **kwargs)
        if both is None:
            continue
        whole = run_tf(tf1, lambda tf, d=data: tf.image.decode_jpeg(d, **kwargs))
        for window, want, got in zip(windows, *both, strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {window}")
            y, x, ch, cw = window
            edge_columns_differ |= not np.array_equal(want, whole[y : y + ch, x : x + cw])
    # The windows do reach the columns where a cropped decode is not a crop (with
    # TF's defaults: the chroma filters upsample).
    assert edge_columns_differ or kwargs


@settings(max_examples=25, deadline=None)
@given(
    h=st.integers(1, 90),
    w=st.integers(1, 90),
    encoding=st.sampled_from(["420", "444", "progressive", "gray"]),
    ratio=st.sampled_from([1, 2, 4, 8]),
    fancy=st.booleans(),
    window=st.tuples(*[st.floats(0, 1)] * 4),
)
def test_jpeg_decode_and_crop_is_tensorflows_for_any_window(
    tf1, h, w, encoding, ratio, fancy, window
):
    img = _jpeg_content((h, w, 1 if encoding == "gray" else 3), "smooth", seed=h * 31 + w)
    enc = {"chroma_downsampling": encoding != "444", "progressive": encoding == "progressive"}
    data = run_tf(tf1, lambda tf: tf.image.encode_jpeg(img, **enc))
    rows, cols = -(-h // ratio), -(-w // ratio)
    fy, fx, fh, fw = window
    y, x = min(int(fy * rows), rows - 1), min(int(fx * cols), cols - 1)
    crop = [y, x, 1 + int(fh * (rows - y - 1)), 1 + int(fw * (cols - x - 1))]
    want, got = _crops_both(tf1, data, [crop], ratio=ratio, fancy_upscaling=fancy)
    np.testing.assert_array_equal(got[0], want[0])


def test_jpeg_decode_and_crop_of_damaged_files_is_tensorflows(tf1):
    """A single-scan file is read only down to the window (TF skips the rest): a
    window above a cut or a missing EOI decodes as TF's, one reaching into the damage
    fails or shows libjpeg's gray as TF's does."""
    img = _jpeg_content((96, 80, 3), "smooth", 11)
    clean = run_tf(tf1, lambda tf: tf.image.encode_jpeg(img, quality=90))
    body = clean.index(b"\xff\xda") + 14
    damaged = {
        "cut": clean[: body + (len(clean) - body) // 2],
        "cut before EOI": clean[: body + (len(clean) - body) // 2] + b"\xff\xd9",
        "no EOI": clean[:-2],
        "flipped": clean[: body + 900] + bytes([clean[body + 900] ^ 0x5A]) + clean[body + 901 :],
    }
    windows = [[0, 0, 16, 80], [3, 17, 20, 30], [0, 0, 40, 80], [10, 5, 86, 60], [80, 0, 16, 80]]
    decoded = set()
    for name, data in damaged.items():
        for window in windows:
            for fancy in (True, False):
                both = _crops_both(tf1, data, [window], fancy_upscaling=fancy)
                if both is not None:
                    want, got = both
                    np.testing.assert_array_equal(got[0], want[0], err_msg=f"{name} {window}")
                    decoded.add((name, tuple(window)))
    # The whole file fails to decode, but the window above the damage does not.
    for name in ("cut", "no EOI"):
        with pytest.raises(ff.errors.InvalidArgumentError):
            run_ff(lambda tf, d=damaged[name]: tf.image.decode_jpeg(d))
        assert (name, (0, 0, 16, 80)) in decoded, name


def test_jpeg_decode_and_crop_refuses_what_tensorflow_refuses(tf1):
    data = run_tf(tf1, lambda tf: tf.image.encode_jpeg(JPEG_SRC))
    h, w = JPEG_SRC.shape[:2]
    bad = [[-1, 11, 11, 11], [11, -1, 11, 11], [11, 11, -1, 11], [11, 11, 11, -1], [11, 11, 0, 11]]
    bad += [[11, 11, 11, 0], [0, 0, h + 1, w], [0, 0, h, w + 1], [h, 0, 1, 1], [0, 2**31 - 1, 1, 5]]
    for window in bad:
        for run in (lambda b: run_tf(tf1, b), run_ff):
            with pytest.raises(Exception, match="Invalid JPEG data or crop window") as e:
                run(lambda tf, c=window: tf.image.decode_and_crop_jpeg(data, c))
            assert type(e.value).__name__ == "InvalidArgumentError"
    # A window that is not 4 elements: a static error, or TF's at run time when fed.
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match="must be 4"):
                lib.image.decode_and_crop_jpeg(data, [0, 0, 1])
            window = lib.placeholder(lib.int32, [None])
            out = lib.image.decode_and_crop_jpeg(data, window)
            with lib.Session() as sess:
                error = lib.errors.InvalidArgumentError
                with pytest.raises(error, match="crop_size must have four"):
                    sess.run(out, {window: [0, 0, 1]})
    # The static shape is the window's when it is a constant.
    for channels in (0, 1, 3):
        for window in ([1, 2, 3, 4], [0, 0, h, w]):
            _static(
                tf1,
                lambda tf, c=window, n=channels: tf.image.decode_and_crop_jpeg(data, c, channels=n),
            )
    _static(tf1, lambda tf: tf.image.decode_and_crop_jpeg(data, tf.placeholder(tf.int32, [4])))


def test_extract_jpeg_shape_is_tensorflows(tf1):
    """`[height, width, components]` from the header alone: 4 for CMYK, 1 for gray;
    a file cut right after its first scan's header still has a shape; what is not a
    JPEG header fails as in TF."""
    files = dict(_pillow_jpegs())
    files["gray"] = run_tf(tf1, lambda tf: tf.image.encode_jpeg(JPEG_SRC[..., :1]))
    color = run_tf(tf1, lambda tf: tf.image.encode_jpeg(JPEG_SRC))
    files["header only"] = color[: color.index(b"\xff\xda") + 14]
    for name, data in files.items():
        for dtype in ("int32", "int64"):
            want = run_tf(
                tf1, lambda tf, d=data, t=dtype: tf.io.extract_jpeg_shape(d, output_type=t)
            )
            got = run_ff(lambda tf, d=data, t=dtype: tf.io.extract_jpeg_shape(d, output_type=t))
            assert got.dtype == want.dtype and got.tolist() == want.tolist(), name
    for data in [b"", b"\xff\xd8", color[:20], color[: color.index(b"\xff\xda") + 5], b"GIF89a"]:
        for run in (lambda b: run_tf(tf1, b), run_ff):
            with pytest.raises(Exception, match="Invalid JPEG data") as e:
                run(lambda tf, d=data: tf.image.extract_jpeg_shape(d))
            assert type(e.value).__name__ == "InvalidArgumentError"
    _static(tf1, lambda tf: tf.image.extract_jpeg_shape(color))


def test_jpeg_encode_limits_match_tensorflow(tf1):
    # Both refuse what libjpeg refuses, as Internal "JPEG encoding failed".
    too_long_xmp = {"xmp_metadata": "x" * 70000}
    for shape, kwargs in [((0, 5, 3), {}), ((1, 65501, 1), {}), ((2, 2, 3), too_long_xmp)]:
        img = np.zeros(shape, np.uint8)
        for run in (lambda b: run_tf(tf1, b), run_ff):
            with pytest.raises(Exception, match="JPEG encoding failed") as e:
                run(lambda tf, img=img, kw=kwargs: tf.image.encode_jpeg(tf.constant(img), **kw))
            assert type(e.value).__name__ == "InternalError"


def test_is_jpeg(tf1):
    data = run_tf(tf1, lambda tf: tf.image.encode_jpeg(tf.zeros([2, 2, 3], tf.uint8)))
    png = run_tf(tf1, lambda tf: tf.image.encode_png(tf.zeros([2, 2, 3], tf.uint8)))
    for d in [data, png]:
        _both(tf1, lambda tf, d=d: tf.image.is_jpeg(tf.constant(d)))


def _corrupt_inputs(tf1):
    png = run_tf(tf1, lambda tf: tf.image.encode_png(tf.constant(PNG_IMAGES[2])))
    jpeg = run_tf(tf1, lambda tf: tf.image.encode_jpeg(tf.constant(JPEG_SRC)))
    huge_png = bytearray(png)
    huge_png[16:24] = (100000).to_bytes(4, "big") + (100000).to_bytes(4, "big")
    big_png = bytearray(png)
    big_png[16:24] = (20000).to_bytes(4, "big") + (20000).to_bytes(4, "big")
    flipped = bytearray(jpeg)
    for i in range(200, len(flipped) - 10, 7):
        flipped[i] ^= 0x5A
    return [
        ("png", png[:40]),
        ("png", png[: len(png) // 2]),
        ("png", bytes(huge_png)),
        ("png", bytes(big_png)),
        ("png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 30),
        ("png", b"not an image"),
        ("jpeg", jpeg[:100]),
        ("jpeg", jpeg[: len(jpeg) // 2]),
        ("jpeg", b"\xff\xd8\xff\xe0" + b"\x00" * 50),
        ("jpeg", b"garbage"),
        ("jpeg", bytes(flipped)),
    ]


def test_corrupt_images_are_invalid_argument(tf1):
    with ff.Session() as sess:
        data = ff.placeholder(ff.string, [])
        ops = {
            "png": ff.image.decode_png(data),
            "jpeg": ff.image.decode_jpeg(data),
            "any": ff.image.decode_image(data),
        }
        for kind, blob in _corrupt_inputs(tf1):
            for op in (ops[kind], ops["any"]):
                try:
                    out = sess.run(op, {data: blob})
                except ff.errors.InvalidArgumentError:
                    continue
                # A damaged JPEG body may still decode (as libjpeg's does, to a
                # picture with artefacts); it must have the header's size.
                assert kind == "jpeg" and out.shape == JPEG_SRC.shape, (kind, blob[:20])


def test_codec_errors(tf1):
    with ff.Session() as sess:
        img = ff.placeholder(ff.uint8)
        with pytest.raises(ff.errors.InvalidArgumentError, match="must be 3-dimensional"):
            sess.run(ff.image.encode_png(img), {img: np.zeros((2, 2), np.uint8)})
        with pytest.raises(ff.errors.InvalidArgumentError, match="1 or 3 channels"):
            sess.run(ff.image.encode_jpeg(img), {img: np.zeros((2, 2, 4), np.uint8)})
        with pytest.raises(ff.errors.InvalidArgumentError, match="expects 1 channels"):
            sess.run(
                ff.image.encode_jpeg(img, format="grayscale"), {img: np.zeros((2, 2, 3), np.uint8)}
            )
        with pytest.raises(ff.errors.InvalidArgumentError, match="Unknown image file format"):
            sess.run(ff.image.decode_image(ff.constant(b"abcdefgh")))
    for build in [
        lambda tf: tf.image.decode_png(tf.constant([b"a", b"b"])),
        lambda tf: tf.image.encode_png(tf.zeros([2, 2], tf.uint8)),
        lambda tf: tf.image.encode_jpeg(tf.zeros([2, 2, 3], tf.float32)),
    ]:
        with pytest.raises((ValueError, TypeError)) as want, tf1.Graph().as_default():
            build(tf1)
        with pytest.raises((ValueError, TypeError)) as got, ff.Graph().as_default():
            build(ff)
        assert type(got.value) is type(want.value)
