"""`tf.metrics` against TensorFlow: streamed values, variable names, collections, errors."""

import numpy as np
import pytest

import ferroflow

PAIRED = [
    "accuracy",
    "mean_absolute_error",
    "mean_squared_error",
    "root_mean_squared_error",
    "true_positives",
    "false_positives",
    "true_negatives",
    "false_negatives",
    "precision",
    "recall",
]
BOOLEAN = {"true_positives", "false_positives", "true_negatives", "false_negatives"}
BOOLEAN |= {"precision", "recall", "accuracy"}

WEIGHTS = {
    "none": None,
    "scalar": 0.5,
    "per_row": np.array([[1.0], [0.0], [2.0], [0.5]], np.float32),
    "per_element": np.array([[1, 0, 2], [0, 0, 0], [0.5, 1, 0], [3, 1, 1]], np.float32),
}


def _batches(name, n=3):
    rng = np.random.RandomState(7)
    out = []
    for _ in range(n):
        if name in BOOLEAN:
            labels = rng.randint(0, 2, (4, 3)).astype(np.int64)
            preds = rng.randint(0, 2, (4, 3)).astype(np.int64)
        else:
            labels = rng.randn(4, 3).astype(np.float32)
            preds = rng.randn(4, 3).astype(np.float32)
        out.append((labels, preds))
    return out


def _stream(tf, build):
    """Builds the metric on placeholders, streams batches, returns every value seen."""
    g = tf.Graph()
    with g.as_default():
        feeds, value, update = build(tf)
        locals_ = [v.name for v in tf.local_variables()]
        metric_vars = [v.name for v in g.get_collection(tf.GraphKeys.METRIC_VARIABLES)]
        globals_ = [v.name for v in tf.global_variables()]
        trainable = [v.name for v in tf.trainable_variables()]
        colls = {k: [t.name for t in g.get_collection(k)] for k in ("my_metrics", "my_updates")}
        seen = []
        with tf.Session(graph=g) as sess:
            sess.run(tf.local_variables_initializer())
            seen.append(sess.run(value))
            for fd in feeds:
                seen.append(sess.run(update, fd))
                seen.append(sess.run(value))
        names = (value.name, update.name, locals_, metric_vars, globals_, trainable, colls)
        return seen, names


def _compare(tf1, build):
    ours, our_names = _stream(ferroflow, build)
    theirs, their_names = _stream(tf1, build)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert our_names == their_names


@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize("name", PAIRED)
def test_paired_metric_streams_like_tf(tf1, name, weights):
    batches = _batches(name)
    w = WEIGHTS[weights]

    def build(tf):
        dtype = tf.int64 if name in BOOLEAN else tf.float32
        labels = tf.placeholder(dtype, [4, 3])
        preds = tf.placeholder(dtype, [4, 3])
        value, update = getattr(tf.metrics, name)(
            labels,
            preds,
            weights=w,
            metrics_collections=["my_metrics"],
            updates_collections=["my_updates"],
        )
        return [{labels: lab, preds: p} for lab, p in batches], value, update

    _compare(tf1, build)


@pytest.mark.parametrize("weights", sorted(WEIGHTS))
def test_mean_streams_like_tf(tf1, weights):
    rng = np.random.RandomState(3)
    batches = [rng.randn(4, 3).astype(np.float32) for _ in range(3)]
    w = WEIGHTS[weights]

    def build(tf):
        x = tf.placeholder(tf.float32, [4, 3])
        value, update = tf.metrics.mean(x, w, ["my_metrics"], ["my_updates"], name="m")
        return [{x: b} for b in batches], value, update

    _compare(tf1, build)


def test_all_zero_weights_and_squeezable_dims(tf1):
    def build(tf):
        labels = tf.placeholder(tf.float32, [4, 1])
        preds = tf.placeholder(tf.float32, [4])
        value, update = tf.metrics.mean_absolute_error(labels, preds, weights=tf.zeros([4]))
        lab = np.arange(4, dtype=np.float32).reshape(4, 1)
        return [{labels: lab, preds: np.ones(4, np.float32)}], value, update

    _compare(tf1, build)


def _error(lib, build):
    g = lib.Graph()
    with g.as_default(), pytest.raises(Exception) as info:
        build(lib)
    return type(info.value).__name__, str(info.value).split(" Received ")[0]


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.metrics.mean(tf.zeros([4, 3]), weights=tf.ones([4, 2])),
        lambda tf: tf.metrics.accuracy(tf.zeros([4, 3]), tf.zeros([4, 2])),
        lambda tf: tf.metrics.mean_squared_error(tf.zeros([4, 3]), tf.zeros([5, 3])),
        lambda tf: tf.metrics.precision(tf.zeros([4, 3]), tf.zeros([4, 2])),
    ],
)
def test_errors_match_tf(tf1, build):
    assert _error(ferroflow, build) == _error(tf1, build)


def test_two_means_in_one_graph_get_their_own_scopes(tf1):
    rng = np.random.RandomState(5)
    batches = [rng.randn(4, 3).astype(np.float32) for _ in range(2)]

    def build(tf):
        x = tf.placeholder(tf.float32, [4, 3])
        first, update_first = tf.metrics.mean(x)
        second, update_second = tf.metrics.mean(x * 2.0)
        # The second mean's value and update, grouped with the first's so both stream.
        with tf.control_dependencies([update_first]):
            update = tf.identity(update_second)
        del first
        return [{x: b} for b in batches], second, update

    _compare(tf1, build)
