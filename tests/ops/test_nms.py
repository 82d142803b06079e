"""Non-maximum suppression (`NonMaxSuppressionV3/V4/V5/WithOverlaps`) against TensorFlow."""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff

RNG = np.random.default_rng(5)


def _random_boxes(n):
    corners = RNG.uniform(0, 10, size=(n, 2, 2))
    sizes = RNG.uniform(0.5, 4, size=(n, 2))
    boxes = np.concatenate([corners[:, 0], corners[:, 0] + sizes], axis=1)
    # Some boxes given with their corners swapped.
    flip = RNG.random(n) < 0.3
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    return boxes.astype(np.float32)


BOXES = _random_boxes(40)
SCORES = RNG.random(40).astype(np.float32)
SCORES[5] = SCORES[6]  # a tie


@pytest.mark.parametrize("max_output", [0, 5, 40, 100])
@pytest.mark.parametrize(("iou", "score"), [(0.5, float("-inf")), (0.1, 0.3), (0.9, 0.0)])
def test_nms_matches_tensorflow(tf1, max_output, iou, score):
    from tensorflow.python.ops import gen_image_ops

    def build(tf):
        if tf is ff:
            padded = tf.image.non_max_suppression_padded(
                BOXES, SCORES, max_output, iou, score, pad_to_max_output_size=True
            )
        else:
            # TF 1.x's `non_max_suppression_padded` is this op (TF 2's runs another,
            # tiled algorithm when padding).
            padded = gen_image_ops.non_max_suppression_v4(
                BOXES, SCORES, max_output, iou, score, pad_to_max_output_size=True
            )
        return [tf.image.non_max_suppression(BOXES, SCORES, max_output, iou, score), *padded]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("sigma", [0.0, 0.5, 2.0])
def test_soft_nms_matches_tensorflow(tf1, sigma):
    def build(tf):
        return list(
            tf.image.non_max_suppression_with_scores(
                BOXES, SCORES, 30, iou_threshold=0.4, score_threshold=0.05, soft_nms_sigma=sigma
            )
        )

    (gi, gs), (wi, ws) = run_ff(build), run_tf(tf1, build)
    np.testing.assert_array_equal(gi, wi)
    np.testing.assert_allclose(gs, ws, rtol=1e-6)


def test_nms_with_overlaps_matches_tensorflow(tf1):
    overlaps = RNG.random((12, 12)).astype(np.float32)

    def build(tf):
        return tf.image.non_max_suppression_overlaps(overlaps, SCORES[:12], 6, 0.6, 0.1)

    np.testing.assert_array_equal(run_ff(build), run_tf(tf1, build))


def test_nms_shape_errors_as_tensorflow():
    with ff.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
            ff.image.non_max_suppression([0.0, 0.0, 1.0, 1.0], [0.9], 3)
        with pytest.raises(ValueError, match="Dimension must be 4 but is 3"):
            ff.image.non_max_suppression([[0.0, 0.0, 1.0]], [0.9], 3)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 1 and 2"):
            ff.image.non_max_suppression([[0.0, 0.0, 1.0, 1.0]], [0.9, 0.75], 3)
    with pytest.raises(ff.errors.InvalidArgumentError, match=r"iou_threshold must be in \[0, 1\]"):
        run_ff(lambda tf: tf.image.non_max_suppression(BOXES, SCORES, 3, 1.5))
