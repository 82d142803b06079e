"""The `*_at_k` metrics of `tf.metrics` with `SparseTensor` labels, against TensorFlow.

TF intersects the top-k ids with the sparse labels' sets (`DenseToSparseSetOperation`,
`SetSize`); ferroflow has no set ops and compares with the labels made dense, masked to
the entries they hold. These compare streamed values, variable names and the run-time
errors (indices out of order, repeated or out of bounds, rows that differ), with
repeated, negative and out-of-range ids and rows without labels.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroflow
from ferroflow.ops import metrics_impl as ff_metrics_impl

NUM_CLASSES = 5
BATCH = 4
MAX_LABELS = 3
WEIGHTS = {
    "none": None,
    "scalar": 0.5,
    "per_row": np.array([1.0, 0.0, 2.0, 0.5], np.float32),
}

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


def _sparse_value(lib, rng, lead_shape, max_labels=MAX_LABELS, low=-1, high=NUM_CLASSES + 2):
    """A random `SparseTensorValue`: each row holds 0..max_labels ids, in index order."""
    indices, values = [], []
    for lead in np.ndindex(*lead_shape):
        n = rng.randint(0, max_labels + 1)
        cols = np.sort(rng.choice(max_labels, n, replace=False))
        for c in cols:
            indices.append([*lead, int(c)])
            values.append(rng.randint(low, high))
    indices = np.array(indices, np.int64).reshape(-1, len(lead_shape) + 1)
    return lib.SparseTensorValue(
        indices, np.array(values, np.int64), np.array([*lead_shape, max_labels], np.int64)
    )


def _scores(rng, shape):
    """Scores without ties: a random permutation of each row's ranks."""
    return np.argsort(rng.rand(*shape), axis=-1).astype(np.float32) / shape[-1]


def _stream(tf, build):
    """Builds the metric, streams the batches, returns every value seen and the names."""
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


def _cases():
    for name, top, has_class in METRICS:
        for class_id in (None, 2) if has_class else (None,):
            for k in (1, 3):
                yield name, top, class_id, k


@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize(("name", "top", "class_id", "k"), list(_cases()))
def test_fed_sparse_labels_stream_like_tf(tf1, name, top, class_id, k, weights):
    rng = np.random.RandomState(k * 7 + (class_id or 0))
    batches = []
    for _ in range(3):
        labels = _sparse_value(tf1, rng, [BATCH])
        scores = _scores(rng, (BATCH, NUM_CLASSES))
        ids = rng.randint(-1, NUM_CLASSES + 1, (BATCH, k)).astype(np.int32)
        batches.append((labels, ids if top else scores))
    w = WEIGHTS[weights]

    def build(tf):
        labels = tf.sparse_placeholder(tf.int64, [BATCH, None])
        if top:
            preds = tf.placeholder(tf.int32, [BATCH, k])
        else:
            preds = tf.placeholder(tf.float32, [BATCH, NUM_CLASSES])
        kwargs = {"weights": w}
        if class_id is not None:
            kwargs["class_id"] = class_id
        if top:
            value, update = getattr(tf.metrics, name)(labels, preds, k=k, **kwargs)
        else:
            value, update = getattr(tf.metrics, name)(labels, preds, k, **kwargs)
        feeds = [{labels: tuple(lab), preds: p} for lab, p in batches]
        return feeds, value, update

    _compare(tf1, build)


@pytest.mark.parametrize("name", ["recall_at_k", "precision_at_k", "average_precision_at_k"])
def test_constant_sparse_labels_and_values_like_tf(tf1, name):
    scores = np.array([[0.1, 0.5, 0.3, 0.2], [0.9, 0.1, 0.3, 0.8]], np.float32)
    for make in (
        lambda tf: tf.SparseTensor(
            [[0, 0], [0, 2], [1, 1]], tf.constant([1, 3, 0], tf.int64), [2, 3]
        ),
        lambda tf: tf.SparseTensorValue(
            np.array([[0, 1], [1, 0], [1, 1]]), np.array([2, 0, 0]), np.array([2, 2])
        ),
        # Rank-1 labels: one id per row, expanded to [2, 1].
        lambda tf: tf.SparseTensor([[1]], tf.constant([3], tf.int64), [2]),
        # Empty labels.
        lambda tf: tf.SparseTensor(np.zeros((0, 2), np.int64), tf.constant([], tf.int64), [2, 4]),
    ):

        def build(tf, make=make):
            value, update = getattr(tf.metrics, name)(make(tf), scores, 2, name="m")
            return [{}], value, update

        _compare(tf1, build)


def test_sparse_set_semantics(tf1):
    # Row 0 holds [1, 1, -1] (top 2: [1, 2]), row 1 holds [7, 0] (top 2: [0, 3]). A
    # repeated id counts once, a negative or too large id is a label never predicted;
    # average precision counts the distinct ids held (TF's set_size), -1 included.
    scores = np.array([[0.1, 0.5, 0.3, 0.2], [0.9, 0.1, 0.3, 0.8]], np.float32)
    expected = {"recall_at_k": 2 / 4, "precision_at_k": 2 / 4, "average_precision_at_k": 0.5}
    for name, want in expected.items():

        def build(tf, name=name):
            labels = tf.SparseTensor(
                [[0, 0], [0, 1], [0, 2], [1, 0], [1, 3]],
                tf.constant([1, 1, -1, 7, 0], tf.int64),
                [2, 4],
            )
            value, update = getattr(tf.metrics, name)(labels, scores, 2)
            return [{}], value, update

        np.testing.assert_allclose(_compare(tf1, build)[-1], want, rtol=1e-12)


@pytest.mark.parametrize("name", ["recall_at_k", "precision_at_k", "average_precision_at_k"])
def test_three_dimensional_predictions_like_tf(tf1, name):
    rng = np.random.RandomState(5)
    batches = [
        (_sparse_value(tf1, rng, [2, 3]), _scores(rng, (2, 3, NUM_CLASSES))) for _ in range(2)
    ]
    weights = np.array([[1.0, 0.0, 2.0], [0.5, 1.0, 1.0]], np.float32)

    def build(tf):
        labels = tf.sparse_placeholder(tf.int64, [2, 3, None])
        preds = tf.placeholder(tf.float32, [2, 3, NUM_CLASSES])
        value, update = getattr(tf.metrics, name)(labels, preds, 2, weights=weights, name="m")
        return [{labels: tuple(lab), preds: p} for lab, p in batches], value, update

    _compare(tf1, build)


def test_dynamic_batch_streams_like_tf(tf1):
    rng = np.random.RandomState(9)
    batches = [(_sparse_value(tf1, rng, [n]), _scores(rng, (n, NUM_CLASSES))) for n in (3, 5, 2)]

    def build(tf):
        labels = tf.sparse_placeholder(tf.int64, [None, None])
        preds = tf.placeholder(tf.float32, [None, NUM_CLASSES])
        metrics = [
            tf.metrics.recall_at_k(labels, preds, 2, weights=2.0),
            tf.metrics.precision_at_k(labels, preds, 2, class_id=1),
            tf.metrics.average_precision_at_k(labels, preds, 3),
        ]
        with tf.control_dependencies([u for _, u in metrics]):
            update = tf.identity(metrics[0][1] + metrics[1][1] + metrics[2][1])
        value = metrics[0][0] + metrics[1][0] + metrics[2][0]
        return [{labels: tuple(lab), preds: p} for lab, p in batches], value, update

    _compare(tf1, build)


# ---------------------------------------------------------------------------
# Errors.

P = [[0.1, 0.5, 0.3, 0.2], [0.9, 0.1, 0.3, 0.8]]

RUN_ERRORS = {
    "out_of_order": ([[1, 0], [0, 0]], [1, 2], [2, 1]),
    "repeated": ([[0, 0], [0, 0]], [1, 1], [2, 2]),
    "out_of_bounds": ([[0, 3]], [1], [2, 2]),
    "too_many_rows": ([[0, 0]], [1], [3, 1]),
}


@pytest.mark.parametrize("name", ["recall_at_k", "precision_at_top_k", "average_precision_at_k"])
@pytest.mark.parametrize("case", sorted(RUN_ERRORS))
def test_invalid_fed_labels_fail_when_run(tf1, case, name):
    indices, values, shape = RUN_ERRORS[case]
    preds = [[1, 2], [0, 3]] if "top" in name else P
    for lib in (ferroflow, tf1):
        with lib.Graph().as_default():
            labels = lib.sparse_placeholder(lib.int64, [None, None])
            _, update = getattr(lib.metrics, name)(labels, preds, 2)
            with lib.Session() as sess:
                sess.run(lib.local_variables_initializer())
                feed = {labels: (np.array(indices), np.array(values), np.array(shape))}
                with pytest.raises(lib.errors.InvalidArgumentError):
                    sess.run(update, feed)


def test_class_id_validates_only_its_entries(tf1):
    # TF keeps the entries of the class (`sparse_retain`) before its set operation
    # validates the indices: unsorted entries of other classes pass.
    labels = ([[1, 0], [0, 0], [0, 1]], [1, 2, 2], [2, 2])
    outcomes = []
    for lib in (ferroflow, tf1):
        with lib.Graph().as_default():
            sp = lib.SparseTensor(*labels)
            sp = lib.SparseTensor(sp.indices, lib.cast(sp.values, lib.int64), sp.dense_shape)
            _, update = lib.metrics.precision_at_k(sp, P, 2, class_id=2)
            with lib.Session() as sess:
                sess.run(lib.local_variables_initializer())
                outcomes.append(sess.run(update))
    assert outcomes[0] == outcomes[1]


def _error(lib, build):
    g = lib.Graph()
    with g.as_default(), pytest.raises(Exception) as info:
        build(lib)
    message = str(info.value)
    return type(info.value).__name__, message.split(" for '")[0].split(" (node '")[0]


def _sp(tf, dtype):
    return tf.SparseTensor([[0, 0]], tf.constant([1], dtype), [2, 1])


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.metrics.recall_at_k(_sp(tf, tf.int32), P, 2),
        lambda tf: tf.metrics.precision_at_k(_sp(tf, tf.float32), P, 2),
        lambda tf: tf.metrics.recall_at_k(_sp(tf, tf.int32), P, 2, class_id=1),
        lambda tf: tf.metrics.recall_at_top_k(_sp(tf, tf.int32), tf.constant([[1, 2], [0, 3]])),
        lambda tf: tf.metrics.average_precision_at_k(_sp(tf, tf.int32), P, 2),
        lambda tf: tf.metrics.average_precision_at_k(_sp(tf, tf.int64), P, 0),
        lambda tf: tf.metrics.recall_at_k(
            tf.SparseTensor([[0]], tf.constant([1], tf.int64), [1]), P[0], 2
        ),
    ],
)
def test_build_errors_match_tf(tf1, build):
    assert _error(ferroflow, build) == _error(tf1, build)


def test_static_row_mismatch_fails_when_built():
    # TF's cond hides the shapes, so TF fails when run; ferroflow sees them.
    labels = ferroflow.SparseTensor([[0, 0]], ferroflow.constant([1], ferroflow.int64), [3, 1])
    with ferroflow.Graph().as_default(), pytest.raises(ValueError, match="Shape mismatch"):
        ferroflow.metrics.recall_at_k(labels, P, 2)


def test_sparse_looking_labels_that_are_no_sparse_tensor():
    class SparseLike:
        indices, values, dense_shape = [[0, 0]], [1], [2, 1]

    with ferroflow.Graph().as_default(), pytest.raises(TypeError, match=r"tf\.SparseTensor"):
        ferroflow.metrics.recall_at_k(SparseLike(), P, 2)


# ---------------------------------------------------------------------------
# The private per-row counts against TF's.


@st.composite
def _rows(draw):
    n = draw(st.integers(1, 5))
    max_labels = draw(st.integers(1, 4))
    k = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**31 - 1))
    predicted = np.array(
        draw(st.lists(st.integers(-2, NUM_CLASSES + 1), min_size=n * k, max_size=n * k)),
        np.int64,
    ).reshape(n, k)
    class_id = draw(st.one_of(st.none(), st.integers(-1, NUM_CLASSES)))
    weights = np.array(
        draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n)), np.float32
    )
    return n, max_labels, seed, predicted, class_id, weights


@settings(max_examples=60, deadline=None)
@given(rows=_rows())
def test_private_per_row_counts_match_tf(tf1, rows):
    from tensorflow.python.ops import metrics_impl as tf_metrics_impl

    n, max_labels, seed, predicted, class_id, weights = rows
    value = _sparse_value(tf1, np.random.RandomState(seed), [n], max_labels, -2, NUM_CLASSES + 2)
    results = []
    for lib, impl in ((ferroflow, ff_metrics_impl), (tf1, tf_metrics_impl)):
        with lib.Graph().as_default(), lib.Session() as sess:
            labels = lib.SparseTensor(*value)
            pred = lib.constant(predicted)
            w = lib.constant(weights)
            tensors = [
                impl._sparse_true_positive_at_k(labels, pred, class_id=class_id),
                impl._sparse_true_positive_at_k(labels, pred, class_id=class_id, weights=w),
                impl._sparse_false_negative_at_k(labels, pred, class_id=class_id, weights=w),
                impl._sparse_false_positive_at_k(labels, pred, class_id=class_id, weights=w),
                impl._sparse_average_precision_at_top_k(labels, pred),
                impl._num_relevant(labels, predicted.shape[-1]),
            ]
            results.append(sess.run(tensors))
    for ours, theirs in zip(*results, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
