"""`tf.image.crop_and_resize` and its gradients against TensorFlow."""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

RNG = np.random.default_rng(9)
IMAGE = RNG.standard_normal((2, 9, 7, 3)).astype(np.float32)
BOXES = np.array(
    [
        [0.1, 0.2, 0.8, 0.9],
        [0.9, 0.8, 0.1, 0.05],  # flipped
        [-0.2, 0.3, 0.5, 1.3],  # partly outside: extrapolated
        [0.4, 0.4, 0.4, 0.6],
    ],
    np.float32,
)
BOX_IND = np.array([0, 1, 1, 0], np.int32)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("crop", [(5, 4), (1, 1), (1, 6), (12, 3)])
def test_crop_and_resize_and_gradients_match_tensorflow(tf1, method, crop):
    def build(tf):
        image, boxes = tf.constant(IMAGE), tf.constant(BOXES)
        y = tf.image.crop_and_resize(
            image, boxes, BOX_IND, crop, method=method, extrapolation_value=-1.5
        )
        weights = np.linspace(-1, 1, y.shape.num_elements()).reshape(y.shape.as_list())
        loss = tf.reduce_sum(y * weights.astype(np.float32))
        return [y, *tf.gradients(loss, [image, boxes])]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_crop_and_resize_of_integers_matches_tensorflow(tf1):
    image = (RNG.random((1, 6, 6, 2)) * 255).astype(np.uint8)

    def build(tf):
        return tf.image.crop_and_resize(image, BOXES[:2], [0, 0], [4, 4])

    np.testing.assert_allclose(run_ff(build), run_tf(tf1, build), rtol=1e-6)


def test_crop_and_resize_rejects_bad_indices(tf1):
    import ferroflow as ff

    with pytest.raises(ff.errors.OutOfRangeError, match=r"outside \[0, batch_size\)"):
        run_ff(lambda tf: tf.image.crop_and_resize(IMAGE, BOXES, [0, 1, 2, 0], [3, 3]))
