"""Bad input gets TF's error class and message (issue 42, part 2), checked against TF."""

from __future__ import annotations

import pytest

import ferroflow as ff

CASES = {
    "loss_weights_none": lambda tf: tf.losses.mean_squared_error([1.0], [2.0], weights=None),
    "absolute_difference_weights_none": lambda tf: tf.losses.absolute_difference(
        [1.0], [2.0], weights=None
    ),
    "constant_none": lambda tf: tf.constant(None),
    "add_none": lambda tf: tf.add(1.0, None),
    "unconnected_gradients": lambda tf: tf.gradients(
        tf.constant(1.0), tf.constant(2.0), unconnected_gradients="foo"
    ),
    "queue_tuple_component_shape": lambda tf: tf.FIFOQueue(
        10, (tf.int32, tf.float32), shapes=((), (2,))
    ).enqueue((1, [1.0, 2.0, 3.0])),
    "queue_many_shape": lambda tf: tf.FIFOQueue(10, tf.float32, shapes=(2,)).enqueue_many(
        [[1.0, 2.0, 3.0]]
    ),
}


def _outcome(lib, build):
    g = lib.Graph()
    with g.as_default():
        try:
            build(lib)
        except Exception as e:  # (the class is what is compared)
            return type(e).__name__, str(e).splitlines()[0]
    return None


@pytest.mark.parametrize("case", sorted(CASES))
def test_error_class_and_message_match_tf(tf1, case):
    theirs = _outcome(tf1, CASES[case])
    assert theirs is not None
    assert _outcome(ff, CASES[case]) == theirs
