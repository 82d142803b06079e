"""Candidate samplers, accidental hits and the sampled losses (`nce_loss`,
`sampled_softmax_loss`) against TensorFlow.

The ids a sampler draws for a seed are ferroflow's own, so the losses are compared
given the same `sampled_values`; the samplers are checked for range, uniqueness and
TF's expected-count formula, and their graphs, shapes and errors against TF's.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import build_both, run_ff, run_tf
from tests.gradcheck import check_against_tf

import ferroflow as ff

SAMPLERS = {
    "uniform": lambda lib, t, n, u, r, **kw: lib.nn.uniform_candidate_sampler(t, 2, n, u, r, **kw),
    "log_uniform": lambda lib, t, n, u, r, **kw: lib.random.log_uniform_candidate_sampler(
        t, 2, n, u, r, **kw
    ),
    "learned_unigram": lambda lib, t, n, u, r, **kw: lib.nn.learned_unigram_candidate_sampler(
        t, 2, n, u, r, **kw
    ),
    "fixed_unigram": lambda lib, t, n, u, r, **kw: lib.nn.fixed_unigram_candidate_sampler(
        t, 2, n, u, r, unigrams=[float(i % 5 + 1) for i in range(r)], distortion=0.75, **kw
    ),
}
TRUE = np.array([[0, 3], [7, 1], [2, 2]], np.int64)


def _probability(kind, r):
    """TF's sampling distribution of `kind` over `range(r)` (before any learning)."""
    v = np.arange(r, dtype=np.float64)
    if kind == "uniform":
        return np.full(r, 1.0 / r)
    if kind == "log_uniform":
        return np.log((v + 2) / (v + 1)) / np.log1p(r)
    if kind == "learned_unigram":
        return np.full(r, 1.0 / r)
    w = np.array([float(i % 5 + 1) for i in range(r)]) ** 0.75
    return w / w.sum()


@settings(max_examples=30, deadline=None)
@given(
    kind=st.sampled_from(sorted(SAMPLERS)),
    unique=st.booleans(),
    num_sampled=st.integers(1, 10),
    seed=st.integers(1, 2**20),
)
def test_samplers_draw_in_range_and_report_tfs_expected_counts(kind, unique, num_sampled, seed):
    r = 10
    with ff.Graph().as_default():
        sampled, true_count, sampled_count = SAMPLERS[kind](
            ff, TRUE, num_sampled, unique, r, seed=seed
        )
        with ff.Session() as sess:
            s, tc, sc = sess.run([sampled, true_count, sampled_count])
    assert s.dtype == np.int64 and s.shape == (num_sampled,)
    assert tc.dtype == np.float32 and tc.shape == TRUE.shape
    assert np.all((s >= 0) & (s < r))
    p = _probability(kind, r)
    if unique:
        assert len(set(s.tolist())) == num_sampled

        # TF: -expm1(num_tries * log1p(-p)) for the number of draws it took; find it.
        # TF: -expm1(num_tries * log1p(-p)) for the number of draws it took (p *
        # num_sampled when no draw was rejected); find that number.
        def counts(n, q):
            return q * num_sampled if n == num_sampled else -np.expm1(n * np.log1p(-q))

        tries = [
            n for n in range(num_sampled, 100000) if np.allclose(sc, counts(n, p[s]), rtol=1e-5)
        ]
        assert tries, (sc, p[s])
        np.testing.assert_allclose(tc, counts(tries[0], p[TRUE]), rtol=1e-5)
    else:
        np.testing.assert_allclose(sc, p[s] * num_sampled, rtol=1e-5)
        np.testing.assert_allclose(tc, p[TRUE] * num_sampled, rtol=1e-5)


def test_seeded_samplers_repeat_and_the_stream_moves_on():
    def draws():
        with ff.Graph().as_default():
            ff.set_random_seed(3)
            s = ff.nn.uniform_candidate_sampler(TRUE, 2, 5, True, 1000)[0]
            with ff.Session() as sess:
                return [sess.run(s) for _ in range(2)]

    first, second = draws(), draws()
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], first[1])


def test_learned_unigram_learns_from_the_true_classes():
    with ff.Graph().as_default():
        true = ff.constant([[4, 4]], ff.int64)
        _, tc, _ = ff.nn.learned_unigram_candidate_sampler(true, 2, 1, False, 5, seed=1)
        with ff.Session() as sess:
            first, second = sess.run(tc), sess.run(tc)
    # Counts start at 1 each (total 5); the first run adds class 4 twice.
    np.testing.assert_allclose(first, [[1 / 5, 1 / 5]], rtol=1e-6)
    np.testing.assert_allclose(second, [[3 / 7, 3 / 7]], rtol=1e-6)


def test_fixed_unigram_shards_reserved_ids_and_vocab_file(tmp_path):
    vocab = tmp_path / "vocab.csv"
    vocab.write_text("a,1\nb,2\nc,3\nd,4\n")
    with ff.Graph().as_default():
        t = ff.constant([[1]], ff.int64)
        # Shard 1 of 2 after 3 reserved ids: reserved id 1 (weight 0) then the entries
        # numbered 1, 3 from its weight count (TF's numbering): weights 0, 1, 3.
        _, tc, _ = ff.nn.fixed_unigram_candidate_sampler(
            t, 1, 1, False, 3, num_reserved_ids=3, num_shards=2, shard=1, unigrams=[1, 2, 3, 4]
        )
        _, tv, _ = ff.nn.fixed_unigram_candidate_sampler(t, 1, 1, False, 4, vocab_file=str(vocab))
        with ff.Session() as sess:
            np.testing.assert_allclose(sess.run(tc), [[1 / 4]], rtol=1e-6)
            np.testing.assert_allclose(sess.run(tv), [[2 / 10]], rtol=1e-6)


def test_fixed_unigram_shards_as_tensorflow(tf1):
    def build(lib):
        t = lib.constant([[0], [1], [2]], lib.int64)
        return list(
            lib.nn.fixed_unigram_candidate_sampler(
                t, 1, 3, False, 3, num_reserved_ids=3, num_shards=2, shard=1, unigrams=[1, 2, 3, 4]
            )[1:2]
        )

    np.testing.assert_allclose(run_ff(build), run_tf(tf1, build), rtol=1e-6)


def test_all_candidate_sampler_and_accidental_hits_match_tensorflow(tf1):
    def build(lib):
        true = lib.constant([[1, 5], [3, 1], [0, 0]], lib.int64)
        sampled, tc, sc = lib.random.all_candidate_sampler(true, 2, 6, True)
        hits = lib.nn.compute_accidental_hits(true, lib.constant([1, 2, 3, 1, 0], lib.int64), 2)
        return [sampled, tc, sc, *hits]

    (_, a), (_, b) = build_both(tf1, build)
    for mine, theirs in zip(b, a, strict=True):
        assert mine.name == theirs.name
        assert mine.dtype.name == theirs.dtype.name
        assert mine.shape.as_list() == theirs.shape.as_list()
    for got, want in zip(run_ff(build), run_tf(tf1, build), strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_sampler_graphs_import_into_tensorflow(tf1):
    g = ff.Graph()
    with g.as_default():
        true = ff.constant(TRUE)
        outs = [
            *ff.nn.log_uniform_candidate_sampler(true, 2, 4, True, 10, seed=5),
            *ff.nn.compute_accidental_hits(true, ff.constant([3, 9], ff.int64), 2),
        ]
        for f in (SAMPLERS["fixed_unigram"], SAMPLERS["learned_unigram"]):
            outs.extend(f(ff, true, 3, False, 10))
        names = [t.name for t in outs]
    graph_def = tf1.GraphDef.FromString(g.as_graph_def().SerializeToString())
    with tf1.Graph().as_default() as imported:
        tf1.import_graph_def(graph_def, name="")
        with tf1.Session(graph=imported) as sess:
            got = sess.run(names)
    assert got[0].shape == (4,) and got[1].shape == (3, 2)
    np.testing.assert_array_equal(got[3], [0])  # true class 3 (row 0) is sampled[0]


def test_sampler_shapes_and_errors_match_tensorflow(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            true = lib.placeholder(lib.int64, [None, 2])
            s, tc, sc = lib.nn.uniform_candidate_sampler(true, 2, 3, True, 5)
            assert (s.shape.as_list(), tc.shape.as_list(), sc.shape.as_list()) == (
                [3],
                [None, 2],
                [3],
            )
            with pytest.raises(ValueError):
                lib.nn.uniform_candidate_sampler(lib.constant([1, 2], lib.int64), 1, 3, True, 5)
            with pytest.raises(ValueError):
                lib.nn.uniform_candidate_sampler(true, 2, 0, True, 5)
            too_many = lib.nn.uniform_candidate_sampler(true, 2, 6, True, 5)[0]
            wrong_cols = lib.nn.uniform_candidate_sampler(lib.placeholder(lib.int64), 2, 3, True, 5)
            with lib.Session() as sess:
                with pytest.raises(lib.errors.InvalidArgumentError, match="range is too small"):
                    sess.run(too_many, {true: [[0, 1]]})
                with pytest.raises(lib.errors.InvalidArgumentError, match="out of range"):
                    sess.run(s, {true: [[0, 7]]})
                with pytest.raises(lib.errors.InvalidArgumentError, match="num_true columns"):
                    sess.run(wrong_cols[0], {wrong_cols[0].op.inputs[0]: [[0, 1, 2]]})


def _loss_case(rng, num_true, dtype=np.float64):
    batch, dim, classes, num_sampled = 4, 3, 12, 5
    weights = rng.standard_normal((classes, dim)).astype(dtype)
    biases = rng.standard_normal(classes).astype(dtype)
    inputs = rng.standard_normal((batch, dim)).astype(dtype)
    labels = rng.integers(0, classes, (batch, num_true)).astype(np.int64)
    sampled = rng.choice(classes, num_sampled, replace=False).astype(np.int64)
    # Make accidental hits likely: reuse some labels as samples.
    sampled[:2] = labels[:2, 0] if len(set(labels[:2, 0])) == 2 else sampled[:2]
    # Expected counts of the inputs' dtype (a sampler's are float32).
    true_count = rng.uniform(0.1, 1.0, (batch, num_true)).astype(dtype)
    sampled_count = rng.uniform(0.1, 1.0, num_sampled).astype(dtype)
    return (
        weights,
        biases,
        inputs,
        labels,
        (sampled, true_count, sampled_count),
        num_sampled,
        classes,
    )


@settings(max_examples=20, deadline=None)
@given(
    loss=st.sampled_from(["nce_loss", "sampled_softmax_loss"]),
    num_true=st.integers(1, 2),
    remove=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_sampled_losses_and_gradients_match_tensorflow(tf1, loss, num_true, remove, seed):
    w, b, x, labels, sv, num_sampled, classes = _loss_case(np.random.default_rng(seed), num_true)

    def build(m, weights, biases, inputs):
        return getattr(m.nn, loss)(
            weights,
            biases,
            labels,
            inputs,
            num_sampled,
            classes,
            num_true=num_true,
            sampled_values=tuple(m.constant(v) for v in sv),
            remove_accidental_hits=remove,
            partition_strategy="div",
        )

    got = run_ff(lambda m: build(m, m.constant(w), m.constant(b), m.constant(x)))
    want = run_tf(tf1, lambda m: build(m, m.constant(w), m.constant(b), m.constant(x)))
    assert got.shape == want.shape == (4,)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    check_against_tf(tf1, build, [w, b, x], seed=seed)


def test_sampled_loss_names_and_default_sampler(tf1):
    w, b, x, labels, _, num_sampled, classes = _loss_case(np.random.default_rng(0), 1, np.float32)

    def build(lib):
        return [
            lib.nn.nce_loss(w, b, labels, x, num_sampled, classes),
            lib.nn.sampled_softmax_loss(w, b, labels, x, num_sampled, classes, seed=1),
        ]

    (_, a), (_, b_) = build_both(tf1, build)
    for mine, theirs in zip(b_, a, strict=True):
        assert mine.dtype.name == theirs.dtype.name
        assert mine.shape.as_list() == theirs.shape.as_list()
    values = run_ff(build)
    assert all(np.all(np.isfinite(v)) and v.shape == (4,) for v in values)
