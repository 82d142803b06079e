"""`tf.metrics` against TensorFlow: streamed values, variable names, collections, errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ferroflow
from conftest import build_both

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


# ---------------------------------------------------------------------------
# The threshold metrics (auc, *_at_thresholds, sensitivity/specificity).

THRESHOLD_METRICS = {
    "auc": lambda m, lab, p, w: m.auc(lab, p, w, num_thresholds=11, **COLLS),
    "auc_default": lambda m, lab, p, w: m.auc(lab, p, w, **COLLS),
    "auc_thresholds": lambda m, lab, p, w: m.auc(
        lab, p, w, thresholds=[0.7, 0.25, 0.5, 0.0], **COLLS
    ),
    "true_positives_at_thresholds": lambda m, lab, p, w: m.true_positives_at_thresholds(
        lab, p, [0.0, 0.25, 0.5, 1.0], w, **COLLS
    ),
    "false_positives_at_thresholds": lambda m, lab, p, w: m.false_positives_at_thresholds(
        lab, p, [0.0, 0.25, 0.5, 1.0], w, **COLLS
    ),
    "true_negatives_at_thresholds": lambda m, lab, p, w: m.true_negatives_at_thresholds(
        lab, p, [0.0, 0.25, 0.5, 1.0], w, **COLLS
    ),
    "false_negatives_at_thresholds": lambda m, lab, p, w: m.false_negatives_at_thresholds(
        lab, p, [0.0, 0.25, 0.5, 1.0], w, **COLLS
    ),
    "precision_at_thresholds": lambda m, lab, p, w: m.precision_at_thresholds(
        lab, p, [0.1, 0.5, 0.9], w, **COLLS
    ),
    "recall_at_thresholds": lambda m, lab, p, w: m.recall_at_thresholds(
        lab, p, [0.1, 0.5, 0.9], w, **COLLS
    ),
    "sensitivity_at_specificity": lambda m, lab, p, w: m.sensitivity_at_specificity(
        lab, p, 0.6, w, num_thresholds=21, **COLLS
    ),
    "specificity_at_sensitivity": lambda m, lab, p, w: m.specificity_at_sensitivity(
        lab, p, 0.4, w, **COLLS
    ),
}
COLLS = {"metrics_collections": ["my_metrics"], "updates_collections": ["my_updates"]}


def _scores(rng, shape=(4, 3)):
    """Scores in [0, 1], some exactly 0, 1 or on a threshold."""
    p = rng.rand(*shape).astype(np.float32)
    flat = p.reshape(-1)
    k = min(3, flat.size)
    flat[rng.choice(flat.size, k, replace=False)] = [0.0, 1.0, 0.5][:k]
    return p


def _score_batches(n=3, seed=11):
    rng = np.random.RandomState(seed)
    return [(rng.randint(0, 2, (4, 3)).astype(np.int64), _scores(rng)) for _ in range(n)]


def _compare_tight(tf1, build):
    ours, our_names = _stream(ferroflow, build)
    theirs, their_names = _stream(tf1, build)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert our_names == their_names


@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize("name", sorted(THRESHOLD_METRICS))
def test_threshold_metric_streams_like_tf(tf1, name, weights):
    batches = _score_batches()
    w = WEIGHTS[weights]

    def build(tf):
        labels = tf.placeholder(tf.int64, [4, 3])
        preds = tf.placeholder(tf.float32, [4, 3])
        value, update = THRESHOLD_METRICS[name](tf.metrics, labels, preds, w)
        return [{labels: lab, preds: p} for lab, p in batches], value, update

    _compare_tight(tf1, build)


@pytest.mark.parametrize("method", ["trapezoidal", "careful_interpolation", "minoring", "majoring"])
@pytest.mark.parametrize("curve", ["ROC", "PR"])
@pytest.mark.parametrize("weights", ["none", "per_element"])
def test_auc_curves_and_summations_stream_like_tf(tf1, curve, method, weights):
    batches = _score_batches(seed=5)
    w = WEIGHTS[weights]

    def build(tf):
        labels = tf.placeholder(tf.bool, [4, 3])
        preds = tf.placeholder(tf.float32, [4, 3])
        value, update = tf.metrics.auc(
            labels, preds, w, 25, curve=curve, summation_method=method, name="my_auc", **COLLS
        )
        feeds = [{labels: lab.astype(bool), preds: p} for lab, p in batches]
        return feeds, value, update

    _compare_tight(tf1, build)


def test_threshold_metrics_squeeze_and_use_dynamic_batch(tf1):
    # Labels [N, 1] against predictions [N], a batch size known only when fed, and
    # float64 predictions (cast to float32 as TF does).
    rng = np.random.RandomState(2)
    batches = [
        (rng.randint(0, 2, (n, 1)).astype(np.int32), _scores(rng, (n,)).astype(np.float64))
        for n in (5, 2, 7)
    ]

    def build(tf):
        labels = tf.placeholder(tf.int32, [None, 1])
        preds = tf.placeholder(tf.float64, [None])
        _, first = tf.metrics.auc(labels, preds, num_thresholds=9, curve="PR")
        value, update = tf.metrics.recall_at_thresholds(labels, preds, [0.3, 0.6])
        with tf.control_dependencies([first]):
            update = tf.identity(update)
        return [{labels: lab, preds: p} for lab, p in batches], value, update

    _compare_tight(tf1, build)


# ---------------------------------------------------------------------------
# The class metrics (a confusion matrix or per-class counters).

CLASS_WEIGHTS = {
    "none": None,
    "per_element": np.array([[1, 0, 2], [0.5, 1, 0], [3, 1, 1], [0, 0, 0]], np.float32),
}


def _class_batches(n=3, seed=4, num_classes=4):
    rng = np.random.RandomState(seed)
    return [
        (
            rng.randint(0, num_classes, (4, 3)).astype(np.int64),
            rng.randint(0, num_classes, (4, 3)).astype(np.int32),
        )
        for _ in range(n)
    ]


@pytest.mark.parametrize("weights", sorted(CLASS_WEIGHTS))
@pytest.mark.parametrize("name", ["mean_iou", "mean_per_class_accuracy"])
def test_class_metric_streams_like_tf(tf1, name, weights):
    # Class 3 never occurs in the first batch; 4 classes of which 5 is never seen.
    batches = _class_batches()
    w = CLASS_WEIGHTS[weights]

    def build(tf):
        labels = tf.placeholder(tf.int64, [4, 3])
        preds = tf.placeholder(tf.int32, [4, 3])
        # TF reads the static shape of `weights`: it must be a tensor here.
        weights = None if w is None else tf.constant(w)
        value, update = getattr(tf.metrics, name)(labels, preds, 5, weights, **COLLS)
        return [{labels: lab, preds: p} for lab, p in batches], value, update

    _compare_tight(tf1, build)


def test_mean_iou_of_vectors_with_weight_vector(tf1):
    rng = np.random.RandomState(9)
    batches = [(rng.randint(0, 3, 6), rng.randint(0, 3, 6), rng.rand(6)) for _ in range(3)]

    def build(tf):
        labels = tf.placeholder(tf.int32, [6])
        preds = tf.placeholder(tf.int64, [6])
        weights = tf.placeholder(tf.float64, [6])
        value, update = tf.metrics.mean_iou(labels, preds, 3, weights, name="iou")
        feeds = [{labels: lab, preds: p, weights: w} for lab, p, w in batches]
        return feeds, value, update

    _compare_tight(tf1, build)


def test_mean_iou_out_of_range_label_fails_like_tf(tf1):
    def outcome(tf):
        g = tf.Graph()
        with g.as_default():
            labels = tf.placeholder(tf.int64, [3])
            _, update = tf.metrics.mean_iou(labels, tf.constant([0, 1, 1], tf.int64), 2)
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(update, {labels: [0, 2, 1]})
        return "`labels` out of bound" in str(info.value)

    assert outcome(ferroflow) and outcome(tf1)


# ---------------------------------------------------------------------------
# The means built on `mean`, and `mean_tensor`.

MEAN_METRICS = {
    "mean_relative_error": lambda m, lab, p, w: m.mean_relative_error(lab, p, lab, w, **COLLS),
    "mean_cosine_distance": lambda m, lab, p, w: m.mean_cosine_distance(lab, p, 1, w, **COLLS),
    "mean_cosine_distance_dim0": lambda m, lab, p, w: m.mean_cosine_distance(
        lab, p, 0, None if w is None or np.ndim(w) == 0 else w[:1] * 0 + 1, **COLLS
    ),
    "percentage_below": lambda m, lab, p, w: m.percentage_below(p, 0.2, w, **COLLS),
    "mean_tensor": lambda m, lab, p, w: m.mean_tensor(p, w, **COLLS),
}


def _unit_rows(x):
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize("name", sorted(MEAN_METRICS))
def test_mean_based_metric_streams_like_tf(tf1, name, weights):
    rng = np.random.RandomState(6)
    batches = [(_unit_rows(rng.randn(4, 3)), _unit_rows(rng.randn(4, 3))) for _ in range(3)]
    batches[0][0][1, 2] = 0.0  # a zero normalizer for mean_relative_error
    w = WEIGHTS[weights]
    if name == "mean_cosine_distance" and weights == "per_element":
        w = w[:, :1]  # weights of the reduced [4, 1] distances

    def build(tf):
        labels = tf.placeholder(tf.float32, [4, 3])
        preds = tf.placeholder(tf.float32, [4, 3])
        value, update = MEAN_METRICS[name](tf.metrics, labels, preds, w)
        return [{labels: lab, preds: p} for lab, p in batches], value, update

    _compare_tight(tf1, build)


# ---------------------------------------------------------------------------
# tf.confusion_matrix.


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"num_classes": 5},
        {"num_classes": 4, "dtype": "float64", "weights": [0.5, 1.0, 2.0, 0.0, 1.5, 3.0]},
        {"dtype": "float32", "weights": [1, 2, 3, 4, 5, 6], "name": "cm"},
    ],
)
def test_confusion_matrix_like_tf(tf1, kwargs):
    labels = np.array([0, 3, 1, 1, 2, 0])
    preds = np.array([[0], [2], [1], [3], [2], [1]])  # a squeezable last dimension

    def build(tf):
        kw = dict(kwargs)
        if "dtype" in kw:
            kw["dtype"] = getattr(tf, kw["dtype"])
        lab = tf.placeholder(tf.int32, [6])
        pred = tf.placeholder(tf.int64, [6, 1])
        cm = tf.confusion_matrix(lab, pred, **kw)
        with tf.Session() as sess:
            value = sess.run(cm, {lab: labels, pred: preds})
        return value, value.dtype, cm.name, cm.dtype.name, cm.get_shape().as_list()

    (_, theirs), (_, ours) = build_both(tf1, build)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1:] == theirs[1:]


# ---------------------------------------------------------------------------
# Errors of the metrics above and of tf.confusion_matrix.


def _full_error(lib, build):
    g = lib.Graph()
    with g.as_default(), pytest.raises(Exception) as info:
        build(lib)
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.metrics.auc(tf.zeros([4]), tf.zeros([4]), curve="XX"),
        lambda tf: tf.metrics.auc(tf.zeros([4]), tf.zeros([4]), summation_method="left"),
        lambda tf: tf.metrics.auc(tf.zeros([4]), tf.constant([0.5, 1.5, 0.0, 0.2])),
        lambda tf: tf.metrics.auc(tf.zeros([4]), tf.constant([0.5, -1.5, 0.0, 0.2])),
        lambda tf: tf.metrics.auc(tf.zeros([4, 3]), tf.zeros([4, 2])),
        lambda tf: tf.metrics.auc(tf.zeros([4, 3]), tf.zeros([4, 3]), weights=tf.ones([4, 2])),
        lambda tf: tf.metrics.sensitivity_at_specificity(tf.zeros([4]), tf.zeros([4]), 1.5),
        lambda tf: tf.metrics.specificity_at_sensitivity(tf.zeros([4]), tf.zeros([4]), -0.1),
        lambda tf: tf.metrics.precision_at_thresholds(tf.zeros([4, 3]), tf.zeros([4, 2]), [0.5]),
        lambda tf: tf.metrics.mean_iou(tf.zeros([4, 3], tf.int32), tf.zeros([4, 2], tf.int32), 3),
        lambda tf: tf.metrics.mean_iou(
            tf.zeros([4], tf.int32), tf.zeros([4], tf.int32), 3, weights=tf.ones([3])
        ),
        lambda tf: tf.metrics.mean_per_class_accuracy(
            tf.zeros([4, 3], tf.int32), tf.zeros([4, 2], tf.int32), 3
        ),
        lambda tf: tf.metrics.mean_relative_error(
            tf.zeros([4, 3]), tf.zeros([4, 3]), tf.ones([4, 2])
        ),
        lambda tf: tf.metrics.mean_cosine_distance(tf.zeros([4, 3]), tf.zeros([4, 2]), 1),
        lambda tf: tf.metrics.mean_tensor(tf.zeros([4, 3]), weights=tf.ones([2, 3])),
        lambda tf: tf.metrics.percentage_below(tf.zeros([4, 3]), 0.5, weights=tf.ones([4, 2])),
        lambda tf: tf.confusion_matrix([0, 1], [1, 2], weights=[1.0, 2.0, 3.0]),
        lambda tf: tf.confusion_matrix([0, -1], [1, 2]),
        lambda tf: tf.confusion_matrix([0, 1], [1, -2]),
        lambda tf: tf.confusion_matrix([0, 1], [1, 2], num_classes=2),
        lambda tf: tf.confusion_matrix([0, 3], [1, 1], num_classes=3),
    ],
)
def test_more_errors_match_tf(tf1, build):
    assert _full_error(ferroflow, build) == _full_error(tf1, build)


def test_confusion_matrix_of_mismatched_ranks_is_a_value_error(tf1):
    # TF's message is its C++ shape function's; both come from the stacked pairs.
    def build(tf):
        return tf.confusion_matrix([[0, 1]], [1, 2, 3])

    ours, theirs = _full_error(ferroflow, build), _full_error(tf1, build)
    assert ours[0] == theirs[0] == "ValueError"
    assert "confusion_matrix/stack_1" in ours[1] and "confusion_matrix/stack_1" in theirs[1]


@pytest.mark.parametrize("dtypes", ["int64-float32", "bool-float64", "bool-float32"])
@pytest.mark.parametrize("score", [1.5, -0.25])
def test_threshold_metric_checks_fed_predictions_when_updating(tf1, score, dtypes):
    # The [0, 1] checks guard the casts of labels and predictions; with bool labels and
    # float32 predictions there is no cast, so TF (and ferroflow) never check them.
    label_dtype, pred_dtype = dtypes.split("-")

    def outcome(tf):
        g = tf.Graph()
        with g.as_default():
            labels = tf.placeholder(getattr(tf, label_dtype), [3])
            preds = tf.placeholder(getattr(tf, pred_dtype), [3])
            value, update = tf.metrics.auc(labels, preds, num_thresholds=5)
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                try:
                    sess.run(update, {labels: [1, 0, 1], preds: [0.5, score, 0.0]})
                    raised = None
                except tf.errors.InvalidArgumentError as e:
                    raised = "predictions must be in [0, 1]" in str(e)
                return raised, sess.run(value)

    ours, theirs = outcome(ferroflow), outcome(tf1)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    assert (ours[0] is None) == (dtypes == "bool-float32")


# ---------------------------------------------------------------------------
# Hypothesis: random streams through every metric of one graph per library.

AUC_VARIANTS = [
    (curve, method)
    for curve in ("ROC", "PR")
    for method in ("trapezoidal", "careful_interpolation", "minoring", "majoring")
]


@pytest.fixture(scope="module")
def metric_graphs(tf1):
    """`_all_metrics_graph` of each library, built once for all the examples."""
    graphs = {lib.__name__: _all_metrics_graph(lib) for lib in (ferroflow, tf1)}
    yield graphs
    for sess, *_ in graphs.values():
        sess.close()


def _all_metrics_graph(tf):
    """One graph holding every metric above, on fed labels, scores, classes and weights."""
    g = tf.Graph()
    with g.as_default():
        labels = tf.placeholder(tf.bool, [None])
        scores = tf.placeholder(tf.float32, [None])
        classes = tf.placeholder(tf.int64, [None])
        predicted = tf.placeholder(tf.int32, [None])
        weights = tf.placeholder(tf.float32, [None])
        m = tf.metrics
        pairs = [
            m.auc(labels, scores, weights, 17, curve=curve, summation_method=method)
            for curve, method in AUC_VARIANTS
        ]
        pairs += [
            m.auc(labels, scores, weights, thresholds=[0.25, 0.5, 0.75]),
            m.sensitivity_at_specificity(labels, scores, 0.7, weights, num_thresholds=13),
            m.sensitivity_at_specificity(labels, scores, 0.0),
            m.specificity_at_sensitivity(labels, scores, 0.7, weights, num_thresholds=13),
            m.specificity_at_sensitivity(labels, scores, 1.0),
            m.precision_at_thresholds(labels, scores, [0.0, 0.5, 1.0], weights),
            m.recall_at_thresholds(labels, scores, [0.0, 0.5, 1.0], weights),
            m.false_positives_at_thresholds(labels, scores, [0.25, 0.75], weights),
            m.mean_iou(classes, predicted, 4, weights),
            m.mean_iou(classes, predicted, 4),
            m.mean_per_class_accuracy(classes, predicted, 4, weights),
            m.percentage_below(scores, 0.5, weights),
            m.mean_relative_error(scores, scores * 0.5 + 0.25, scores, weights),
        ]
        init = tf.local_variables_initializer()
    return tf.Session(graph=g), init, (labels, scores, classes, predicted, weights), pairs


def _stream_all(graph, batches):
    sess, init, placeholders, pairs = graph
    sess.run(init)
    seen = []
    for batch in batches:
        seen.append(sess.run([u for _, u in pairs], dict(zip(placeholders, batch, strict=True))))
        seen.append(sess.run([v for v, _ in pairs]))
    return seen


# No subnormal scores: TF's kernels flush them to zero (1e-45 > 0 is false there), and
# ferroflow's do not.
_SCORES = st.one_of(
    st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),
    st.floats(0.0, 1.0, width=32, allow_subnormal=False),
)


@st.composite
def _metric_batch(draw):
    n = draw(st.integers(1, 12))
    labels = draw(hnp.arrays(np.bool_, n))
    scores = draw(hnp.arrays(np.float32, n, elements=_SCORES))
    classes = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 3)))
    predicted = draw(hnp.arrays(np.int32, n, elements=st.integers(0, 3)))
    # Dyadic weights: every count is exact, whatever the summation order.
    weights = draw(hnp.arrays(np.float32, n, elements=st.sampled_from([0.0, 0.5, 1.0, 2.0])))
    return labels, scores, classes, predicted, weights


@settings(max_examples=60, deadline=None)
@given(batches=st.lists(_metric_batch(), min_size=1, max_size=3))
def test_every_metric_streams_random_batches_like_tf(tf1, metric_graphs, batches):
    ours = _stream_all(metric_graphs[ferroflow.__name__], batches)
    theirs = _stream_all(metric_graphs[tf1.__name__], batches)
    for step_ours, step_theirs in zip(ours, theirs, strict=True):
        for a, b in zip(step_ours, step_theirs, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


UNKNOWN_RANK_FEEDS = [
    # labels, logits, weights, predictions: trailing 1s squeezed by the run-time cond.
    ([[0], [2]], [[1, 2, 3], [1, 0, 0]], [[1.0], [2.0]], [0, 2]),
    ([0, 2], [[1, 2, 3], [1, 0, 0]], [1.0, 2.0], [[0], [1]]),
    ([0, 2], [[1, 2, 3], [1, 0, 0]], 3.0, [0, 1]),
    ([1, 1], [[0, 5, 0], [0, 0, 9]], [[2.0], [0.5]], [[1], [1]]),
]


@pytest.mark.parametrize("feeds", UNKNOWN_RANK_FEEDS)
def test_unknown_ranks_are_squeezed_by_a_cond_as_tf(tf1, feeds):
    """`losses.sparse_softmax_cross_entropy` and `metrics.accuracy` on placeholders of
    unknown rank: TF squeezes labels, predictions and weights in a `tf.cond`."""
    results = []
    for tf in (tf1, ferroflow):
        with tf.Graph().as_default() as g:
            lab = tf.placeholder(tf.int64, None)
            logits = tf.placeholder(tf.float32, [None, 3])
            w = tf.placeholder(tf.float32, None)
            pred = tf.placeholder(tf.int64, None)
            loss = tf.losses.sparse_softmax_cross_entropy(lab, logits, weights=w)
            acc, update = tf.metrics.accuracy(lab, pred, weights=w)
            types = {op.type for op in g.get_operations()}
            with tf.Session() as s:
                s.run(tf.local_variables_initializer())
                fd = dict(zip((lab, logits, w, pred), map(np.asarray, feeds), strict=True))
                s.run(update, fd)
                results.append(s.run([loss, acc], fd))
        assert {"Switch", "Merge"} <= types
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)
