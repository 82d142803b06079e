"""`tf.image.sample_distorted_bounding_box` against TensorFlow, draw for draw: the same
seeds give the same crops, run after run."""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff

BOXES = np.array([[[0.1, 0.2, 0.5, 0.9], [0.3, 0.3, 0.4, 0.35]]], np.float32)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"min_object_covered": 0.5},
        {"aspect_ratio_range": (0.5, 2.0), "area_range": (0.1, 0.6), "max_attempts": 20},
        {"min_object_covered": 0.95, "max_attempts": 3},
    ],
)
@pytest.mark.parametrize("size", [(120, 80, 3), (31, 257, 1), (5, 5, 3)])
def test_sample_distorted_bounding_box_matches_tensorflow(tf1, kwargs, size):
    def build(tf):
        begin, size_out, bbox = tf.image.sample_distorted_bounding_box(
            tf.constant(size, tf.int32), BOXES, seed=7, seed2=3, **kwargs
        )
        return [begin, size_out, bbox]

    def runs(tf, session_of):
        # Five runs of one graph: the node's stream advances run after run.
        g = tf.Graph()
        with g.as_default():
            fetches = build(tf)
            with session_of(g) as sess:
                return [sess.run(fetches) for _ in range(5)]

    got = runs(ff, lambda g: ff.Session(graph=g))
    want = runs(tf1, lambda g: tf1.Session(graph=g))
    for a_run, b_run in zip(got, want, strict=True):
        for a, b in zip(a_run, b_run, strict=True):
            np.testing.assert_array_equal(a, b)


def test_whole_image_without_boxes_and_errors(tf1):
    def build(tf):
        return list(
            tf.image.sample_distorted_bounding_box(
                tf.constant([40, 60, 3]),
                tf.zeros([1, 0, 4]),
                seed=1,
                seed2=2,
                use_image_if_no_bounding_boxes=True,
            )
        )

    for a, b in zip(run_ff(build), run_tf(tf1, build), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ff.errors.InvalidArgumentError, match="No bounding boxes provided"):
        run_ff(
            lambda tf: tf.image.sample_distorted_bounding_box(
                tf.constant([40, 60, 3]), tf.zeros([1, 0, 4]), seed=1
            )[0]
        )
    with pytest.raises(ff.errors.InvalidArgumentError, match=r"must be in \[0.0, 1.0\]"):
        run_ff(
            lambda tf: tf.image.sample_distorted_bounding_box(
                tf.constant([40, 60, 3]), [[[0.0, 0.0, 1.5, 1.0]]], seed=1
            )[0]
        )
