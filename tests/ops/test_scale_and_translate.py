"""`ScaleAndTranslate` (`resize_images_v2`'s Lanczos, Gaussian and Mitchell methods and
its anti-aliased bilinear/bicubic) and its gradient, against TensorFlow."""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff
from ferroflow.ops import image_ops

_KERNELS = [
    "lanczos1",
    "lanczos3",
    "lanczos5",
    "gaussian",
    "box",
    "triangle",
    "keyscubic",
    "mitchellcubic",
]


def _scale_and_translate(tf, images, size, scale, translation, kernel, antialias):
    if tf is ff:
        return image_ops._scale_and_translate(images, size, scale, translation, kernel, antialias)
    return tf.raw_ops.ScaleAndTranslate(
        images=images,
        size=size,
        scale=scale,
        translation=translation,
        kernel_type=kernel,
        antialias=antialias,
    )


@pytest.mark.parametrize("kernel", _KERNELS)
@pytest.mark.parametrize("antialias", [True, False])
def test_scale_and_translate_matches_tensorflow(tf1, kernel, antialias):
    rng = np.random.default_rng(7)
    image = rng.uniform(-1, 1, size=(2, 9, 7, 3)).astype(np.float32)

    def build(tf):
        x = tf.constant(image)
        outs = []
        for size, scale, translation in [
            ([4, 3], [4 / 9, 3 / 7], [0.0, 0.0]),  # shrink (anti-aliasing matters)
            ([13, 16], [13 / 9, 16 / 7], [0.5, -1.25]),  # grow, shifted
            ([9, 7], [1.0, 1.0], [0.0, 0.0]),
        ]:
            y = _scale_and_translate(tf, x, size, scale, translation, kernel, antialias)
            outs += [y, tf.gradients(tf.reduce_sum(y * y), x)[0]]
        return outs

    got, want = run_ff(build), run_tf(tf1, build)
    for a, w in zip(got, want, strict=True):
        assert a.shape == w.shape and a.dtype == w.dtype
        np.testing.assert_allclose(a, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method", ["lanczos3", "lanczos5", "gaussian", "mitchellcubic"])
def test_resize_images_v2_methods_match_tensorflow(tf1, method):
    image = (np.arange(2 * 6 * 5 * 2) % 251).reshape(2, 6, 5, 2).astype(np.uint8)

    def build(tf):
        x = tf.constant(image)
        resize = image_ops.resize_images_v2 if tf is ff else tf.compat.v2.image.resize
        return [
            resize(x, [3, 11], method=method),
            resize(tf.cast(x, tf.float32), [12, 2], method=method, antialias=True),
        ]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, w in zip(got, want, strict=True):
        np.testing.assert_allclose(a, w, rtol=1e-5, atol=1e-4)


def test_scale_and_translate_rejects_bad_input():
    with ff.Graph().as_default():
        x = ff.zeros([1, 4, 4, 1])
        y = _scale_and_translate(ff, x, [2, 2], [0.0, 1.0], [0.0, 0.0], "lanczos3", True)
        with ff.Session() as sess, pytest.raises(ff.errors.InvalidArgumentError, match="Scale"):
            sess.run(y)
        with pytest.raises((ValueError, ff.errors.InvalidArgumentError)):
            bad = _scale_and_translate(ff, x, [2, 2], [1.0, 1.0], [0.0, 0.0], "cubic", True)
            with ff.Session() as sess:
                sess.run(bad)
