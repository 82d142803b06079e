"""The `*_at_k` metrics of `tf.metrics` against TensorFlow.

TF counts them with set operations on the label ids; ferroflow counts densely. These
compare streamed values, variable names, collections and errors, with repeated,
negative and out-of-range ids, and the private per-row counts.
"""

import collections

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ferroflow
from ferroflow.ops import metrics_impl as ff_metrics_impl

NUM_CLASSES = 5
BATCH = 4
COLLS = {"metrics_collections": ["my_metrics"], "updates_collections": ["my_updates"]}
WEIGHTS = {
    "none": None,
    "scalar": 0.5,
    "per_row": np.array([1.0, 0.0, 2.0, 0.5], np.float32),
}


def _scores(rng, shape):
    """Scores without ties: a random permutation of each row's ranks."""
    return np.argsort(rng.rand(*shape), axis=-1).astype(np.float32) / shape[-1]


def _labels(rng, shape):
    """Ids in [-1, NUM_CLASSES + 1]: repeats, negatives and out-of-range ids."""
    return rng.randint(-1, NUM_CLASSES + 2, shape).astype(np.int64)


def _stream(tf, build):
    """Builds the metric on placeholders, streams batches, returns every value seen."""
    g = tf.Graph()
    with g.as_default():
        feeds, value, update = build(tf)
        names = (
            value.name,
            update.name,
            value.dtype.name,
            [(v.name, v.dtype.base_dtype.name) for v in tf.local_variables()],
            [v.name for v in g.get_collection(tf.GraphKeys.METRIC_VARIABLES)],
            [v.name for v in tf.global_variables()],
            [v.name for v in tf.trainable_variables()],
            {k: [t.name for t in g.get_collection(k)] for k in ("my_metrics", "my_updates")},
        )
        seen = []
        with tf.Session(graph=g) as sess:
            sess.run(tf.local_variables_initializer())
            seen.append(sess.run(value))
            for fd in feeds:
                seen.append(sess.run(update, fd))
                seen.append(sess.run(value))
        return seen, names


def _compare(tf1, build):
    ours, our_names = _stream(ferroflow, build)
    theirs, their_names = _stream(tf1, build)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    assert our_names == their_names
    return ours


# (name, takes top-k ids, takes class_id)
METRICS = [
    ("recall_at_k", False, True),
    ("precision_at_k", False, True),
    ("sparse_precision_at_k", False, True),
    ("average_precision_at_k", False, False),
    ("sparse_average_precision_at_k", False, False),
    ("recall_at_top_k", True, True),
    ("precision_at_top_k", True, True),
]


def _cases():
    for name, top, has_class in METRICS:
        for class_id in (None, 2) if has_class else (None,):
            for k in (1, 3):
                yield name, top, class_id, k


@pytest.mark.parametrize("labels_rank", [1, 2])
@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize(("name", "top", "class_id", "k"), list(_cases()))
def test_at_k_metric_streams_like_tf(tf1, name, top, class_id, k, weights, labels_rank):
    rng = np.random.RandomState(k * 10 + labels_rank)
    label_shape = [BATCH] if labels_rank == 1 else [BATCH, 3]
    batches = []
    for _ in range(3):
        scores = _scores(rng, (BATCH, NUM_CLASSES))
        ids = rng.randint(-1, NUM_CLASSES + 1, (BATCH, k)).astype(np.int32)
        batches.append((_labels(rng, label_shape), scores if not top else ids))
    w = WEIGHTS[weights]

    def build(tf):
        labels = tf.placeholder(tf.int64, label_shape)
        if top:
            preds = tf.placeholder(tf.int32, [BATCH, k])
        else:
            preds = tf.placeholder(tf.float32, [BATCH, NUM_CLASSES])
        kwargs = dict(COLLS, weights=w)
        if class_id is not None:
            kwargs["class_id"] = class_id
        if top:
            value, update = getattr(tf.metrics, name)(labels, preds, k=k, **kwargs)
        else:
            value, update = getattr(tf.metrics, name)(labels, preds, k, **kwargs)
        return [{labels: lab, preds: p} for lab, p in batches], value, update

    _compare(tf1, build)


@pytest.mark.parametrize("labels_shape", [[2, 3], [2, 3, 2]])
@pytest.mark.parametrize("name", ["recall_at_k", "precision_at_k", "average_precision_at_k"])
def test_three_dimensional_predictions_like_tf(tf1, name, labels_shape):
    rng = np.random.RandomState(3)
    batches = [(_labels(rng, labels_shape), _scores(rng, (2, 3, NUM_CLASSES))) for _ in range(2)]
    weights = np.array([[1.0, 0.0, 2.0], [0.5, 1.0, 1.0]], np.float32)

    def build(tf):
        labels = tf.placeholder(tf.int64, labels_shape)
        preds = tf.placeholder(tf.float32, [2, 3, NUM_CLASSES])
        value, update = getattr(tf.metrics, name)(labels, preds, 2, weights=weights, name="m")
        return [{labels: lab, preds: p} for lab, p in batches], value, update

    _compare(tf1, build)


def test_set_semantics_of_repeated_negative_and_out_of_range_ids(tf1):
    # Rows (top 2 of the scores is [1, 2] then [0, 3]): a repeated id counts once, a
    # negative or too large id is a label never predicted (a false negative for
    # recall), and average precision ignores them but counts repeats as relevant.
    scores = np.array([[0.1, 0.5, 0.3, 0.2], [0.9, 0.1, 0.3, 0.8]], np.float32)
    cases = {
        "negative": [[-1, 1], [0, 0]],
        "too_large": [[5, 1], [0, 7]],
        "repeated": [[1, 1], [3, 3]],
        "all_negative": [[-1, -1], [-2, -3]],
    }
    expected_recall = {"negative": 2 / 3, "too_large": 0.5, "repeated": 1.0, "all_negative": 0}
    expected_ap = {"negative": 0.75, "too_large": 1.0, "repeated": 0.375, "all_negative": np.nan}
    for case, lab in cases.items():
        for name, expected in (("recall_at_k", expected_recall), ("average_precision_at_k", None)):

            def build(tf, lab=lab, name=name):
                labels = tf.placeholder(tf.int64, [2, 2])
                preds = tf.placeholder(tf.float32, [2, 4])
                value, update = getattr(tf.metrics, name)(labels, preds, 2)
                return [{labels: np.array(lab), preds: scores}], value, update

            seen = _compare(tf1, build)
            want = (expected or expected_ap)[case]
            np.testing.assert_allclose(seen[-1], want, rtol=1e-12)


def test_absent_class_gives_nan_and_k_zero_counts_every_label(tf1):
    scores = np.array([[0.1, 0.5, 0.3, 0.2], [0.9, 0.1, 0.3, 0.8]], np.float32)

    def absent(tf):
        labels = tf.placeholder(tf.int64, [2, 1])
        preds = tf.placeholder(tf.float32, [2, 4])
        value, update = tf.metrics.recall_at_k(labels, preds, 2, class_id=7)
        return [{labels: [[1], [0]], preds: scores}], value, update

    def k_zero(tf):
        labels = tf.placeholder(tf.int64, [2, 1])
        preds = tf.placeholder(tf.float32, [2, 4])
        value, update = tf.metrics.recall_at_k(labels, preds, 0)
        return [{labels: [[1], [0]], preds: scores}], value, update

    assert np.isnan(_compare(tf1, absent)[-1])
    assert _compare(tf1, k_zero)[-1] == 0.0


def test_dynamic_shapes_stream_like_tf(tf1):
    rng = np.random.RandomState(9)
    batches = [
        (_labels(rng, (n, m)), _scores(rng, (n, NUM_CLASSES))) for n, m in ((3, 2), (5, 1), (2, 4))
    ]

    def build(tf):
        labels = tf.placeholder(tf.int64, [None, None])
        preds = tf.placeholder(tf.float32, [None, NUM_CLASSES])
        w = tf.placeholder_with_default(tf.constant(2.0), None)
        metrics = [
            tf.metrics.recall_at_k(labels, preds, 2, weights=w),
            tf.metrics.precision_at_k(labels, preds, 2, class_id=1),
            tf.metrics.average_precision_at_k(labels, preds, 3, weights=w),
        ]
        with tf.control_dependencies([u for _, u in metrics]):
            update = tf.identity(metrics[0][1] + metrics[1][1] + metrics[2][1])
        value = metrics[0][0] + metrics[1][0] + metrics[2][0]
        return [{labels: lab, preds: p} for lab, p in batches], value, update

    _compare(tf1, build)


def test_mismatched_rows_fed_fail_when_run(tf1):
    def outcome(tf):
        g = tf.Graph()
        with g.as_default():
            labels = tf.placeholder(tf.int64, [None, 2])
            preds = tf.placeholder(tf.float32, [None, NUM_CLASSES])
            _, update = tf.metrics.recall_at_k(labels, preds, 2)
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                feed = {labels: np.zeros((3, 2), np.int64), preds: np.zeros((2, 5), np.float32)}
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(update, feed)

    outcome(ferroflow)
    outcome(tf1)


# ---------------------------------------------------------------------------
# Errors.


def _error(lib, build):
    g = lib.Graph()
    with g.as_default(), pytest.raises(Exception) as info:
        build(lib)
    message = str(info.value)
    # TF prints its nodes in full after " for '"; ferroflow's type errors end with
    # " (node '...')".
    return type(info.value).__name__, message.split(" for '")[0].split(" (node '")[0]


L = [[1], [0]]
P = [[0.1, 0.5, 0.3, 0.2], [0.9, 0.1, 0.3, 0.8]]


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.metrics.recall_at_k(tf.constant(L, tf.int32), P, 2),
        lambda tf: tf.metrics.recall_at_k(L, P, 2),
        lambda tf: tf.metrics.precision_at_k(tf.constant(L, tf.float32), P, 2),
        lambda tf: tf.metrics.recall_at_k(tf.constant(L, tf.int32), P, 2, class_id=1),
        lambda tf: tf.metrics.recall_at_top_k(
            tf.constant(L, tf.int32), tf.constant([[1, 2], [0, 3]])
        ),
        lambda tf: tf.metrics.recall_at_k(tf.zeros([2, 3, 1, 1], tf.int64), P, 2),
        lambda tf: tf.metrics.precision_at_k(tf.zeros([2, 1, 3], tf.int64), P, 2),
        lambda tf: tf.metrics.recall_at_k(tf.constant([1], tf.int64), P[0], 2),
        lambda tf: tf.metrics.precision_at_k(tf.constant([[1], [0], [2]], tf.int64), P, 2),
        lambda tf: tf.metrics.recall_at_k(tf.constant(L, tf.int64), P, 5),
        lambda tf: tf.metrics.average_precision_at_k(tf.constant(L, tf.int64), P, 0),
        lambda tf: tf.metrics.sparse_average_precision_at_k(tf.constant(L, tf.int64), P, -1),
        lambda tf: tf.metrics.average_precision_at_k(tf.constant(L, tf.int32), P, 2),
        lambda tf: tf.metrics.average_precision_at_k(L, P, 2),
        lambda tf: tf.metrics.average_precision_at_k(tf.zeros([2, 3, 1], tf.int64), P, 2),
    ],
)
def test_errors_match_tf(tf1, build):
    assert _error(ferroflow, build) == _error(tf1, build)


@pytest.mark.parametrize(
    "weights", [[1.0, 2.0, 3.0], [[1.0], [2.0]]], ids=["too_many_rows", "rank_two"]
)
@pytest.mark.parametrize("name", ["recall_at_k", "average_precision_at_k"])
def test_weights_that_do_not_broadcast_fail(tf1, name, weights):
    # TF's set operations leave the counts' shape unknown, so its check fails when
    # run; ferroflow's counts have static shapes and the same check fails when built.
    labels, preds = np.array(L, np.int64), np.array(P, np.float32)
    g = ferroflow.Graph()
    with g.as_default(), pytest.raises(ValueError, match="weights can not be broadcast"):
        getattr(ferroflow.metrics, name)(labels, preds, 2, weights=weights)
    with tf1.Graph().as_default():
        _, update = getattr(tf1.metrics, name)(labels, preds, 2, weights=weights)
        with tf1.Session() as sess:
            sess.run(tf1.local_variables_initializer())
            with pytest.raises(tf1.errors.InvalidArgumentError, match="can not be broadcast"):
                sess.run(update)


SparseLike = collections.namedtuple("SparseLike", ["indices", "values", "dense_shape"])


@pytest.mark.parametrize("name", [m for m, _, _ in METRICS])
def test_sparse_labels_are_a_type_error(name):
    labels = SparseLike([[0, 0], [1, 0]], [1, 0], [2, 1])
    with ferroflow.Graph().as_default(), pytest.raises(TypeError, match="SparseTensor"):
        getattr(ferroflow.metrics, name)(labels, P if "top" not in name else [[1], [0]], 1)


# ---------------------------------------------------------------------------
# The private per-row counts against TF's, and random streams through every metric.


@st.composite
def _rows(draw):
    n = draw(st.integers(1, 5))
    num_labels = draw(st.integers(1, 4))
    k = draw(st.integers(1, 4))
    ids = st.integers(-2, NUM_CLASSES + 1)
    labels = draw(hnp.arrays(np.int64, (n, num_labels), elements=ids))
    predicted = draw(hnp.arrays(np.int64, (n, k), elements=ids))
    class_id = draw(st.one_of(st.none(), st.integers(-1, NUM_CLASSES)))
    weights = draw(hnp.arrays(np.float32, n, elements=st.sampled_from([0.0, 0.5, 1.0, 3.0])))
    return labels, predicted, class_id, weights


def _per_row(impl, labels, predicted, class_id, weights):
    return [
        impl._sparse_true_positive_at_k(labels, predicted, class_id=class_id),
        impl._sparse_true_positive_at_k(labels, predicted, class_id=class_id, weights=weights),
        impl._sparse_false_negative_at_k(labels, predicted, class_id=class_id, weights=weights),
        impl._sparse_false_positive_at_k(labels, predicted, class_id=class_id, weights=weights),
        impl._sparse_average_precision_at_top_k(labels, predicted),
        impl._num_relevant(labels, predicted.shape[-1]),
    ]


@settings(max_examples=80, deadline=None)
@given(rows=_rows())
def test_private_per_row_counts_match_tf(tf1, rows):
    from tensorflow.python.ops import metrics_impl as tf_metrics_impl

    labels, predicted, class_id, weights = rows
    results = []
    for lib, impl in ((ferroflow, ff_metrics_impl), (tf1, tf_metrics_impl)):
        with lib.Graph().as_default(), lib.Session() as sess:
            tensors = _per_row(
                impl,
                lib.constant(labels),
                lib.constant(predicted),
                class_id,
                lib.constant(weights),
            )
            results.append(sess.run(tensors))
    for ours, theirs in zip(*results, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.fixture(scope="module")
def at_k_graphs(tf1):
    graphs = {lib.__name__: _all_at_k_graph(lib) for lib in (ferroflow, tf1)}
    yield graphs
    for sess, *_ in graphs.values():
        sess.close()


def _all_at_k_graph(tf):
    """Every `*_at_k` metric on fed labels, scores, top-k ids and weights."""
    g = tf.Graph()
    with g.as_default():
        labels = tf.placeholder(tf.int64, [None, 3])
        single = tf.placeholder(tf.int64, [None])
        scores = tf.placeholder(tf.float32, [None, NUM_CLASSES])
        ids = tf.placeholder(tf.int32, [None, 2])
        weights = tf.placeholder(tf.float32, [None])
        m = tf.metrics
        pairs = []
        for k in (1, 2, 4):
            pairs += [
                m.recall_at_k(labels, scores, k, weights=weights),
                m.precision_at_k(labels, scores, k),
                m.average_precision_at_k(labels, scores, k, weights=weights),
                m.average_precision_at_k(single, scores, k),
                m.recall_at_k(single, scores, k, class_id=k),
                m.precision_at_k(labels, scores, k, class_id=0, weights=weights),
            ]
        pairs += [
            m.recall_at_top_k(labels, ids, weights=weights),
            m.precision_at_top_k(labels, ids),
            m.precision_at_top_k(single, ids, k=2, class_id=3, weights=weights),
        ]
        names = [(v.name, u.name) for v, u in pairs]
        names += [v.name for v in tf.local_variables()]
        init = tf.local_variables_initializer()
    placeholders = (labels, single, scores, ids, weights)
    return tf.Session(graph=g), init, placeholders, pairs, names


@st.composite
def _batch(draw):
    n = draw(st.integers(1, 6))
    ids = st.integers(-1, NUM_CLASSES + 1)
    labels = draw(hnp.arrays(np.int64, (n, 3), elements=ids))
    single = draw(hnp.arrays(np.int64, n, elements=ids))
    # Few distinct scores: ties, which top_k breaks towards the lower index.
    scores = draw(
        hnp.arrays(np.float32, (n, NUM_CLASSES), elements=st.sampled_from([0.0, 0.25, 1.0]))
    )
    predicted = draw(hnp.arrays(np.int32, (n, 2), elements=ids))
    weights = draw(hnp.arrays(np.float32, n, elements=st.sampled_from([0.0, 0.5, 1.0, 2.0])))
    return labels, single, scores, predicted, weights


def _stream_all(graph, batches):
    sess, init, placeholders, pairs, _ = graph
    sess.run(init)
    seen = []
    for batch in batches:
        seen.append(sess.run([u for _, u in pairs], dict(zip(placeholders, batch, strict=True))))
        seen.append(sess.run([v for v, _ in pairs]))
    return seen


def test_all_at_k_metrics_share_tf_names(at_k_graphs, tf1):
    assert at_k_graphs[ferroflow.__name__][4] == at_k_graphs[tf1.__name__][4]


@settings(max_examples=60, deadline=None)
@given(batches=st.lists(_batch(), min_size=1, max_size=3))
def test_every_at_k_metric_streams_random_batches_like_tf(tf1, at_k_graphs, batches):
    ours = _stream_all(at_k_graphs[ferroflow.__name__], batches)
    theirs = _stream_all(at_k_graphs[tf1.__name__], batches)
    for step_ours, step_theirs in zip(ours, theirs, strict=True):
        for a, b in zip(step_ours, step_theirs, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
