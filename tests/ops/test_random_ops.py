"""Random ops: TF's exact numbers for fixed seeds, seed semantics, distributions, errors."""

import json
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import run_ff

import ferroflow as ff

FIXTURE = pathlib.Path(__file__).parent.parent / "fixtures" / "random_tf.json"


def _run_twice(build, lib=ff):
    """Two runs of `build(lib)` in one session (the second continues the streams)."""
    g = lib.Graph()
    with g.as_default():
        t = build(lib)
        with lib.Session() as sess:
            return [sess.run(t) for _ in range(2)]


@pytest.mark.parametrize("case", json.loads(FIXTURE.read_text())["cases"], ids=lambda c: c["fn"])
def test_matches_numbers_recorded_from_tensorflow(case):
    kwargs = dict(case["kwargs"])
    if "dtype" in kwargs:
        kwargs["dtype"] = getattr(ff, kwargs["dtype"])
    runs = _run_twice(lambda m: getattr(m, case["fn"])(**kwargs))
    for ours, theirs in zip(runs, case["runs"], strict=True):
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-6, atol=1e-7)


BUILDERS = {
    "normal": lambda m, shape, seed: m.random_normal(shape, seed=seed, mean=1.5, stddev=0.5),
    "normal64": lambda m, shape, seed: m.random_normal(shape, seed=seed, dtype=m.float64),
    "uniform": lambda m, shape, seed: m.random_uniform(shape, -2.0, 3.0, seed=seed),
    "uniform64": lambda m, shape, seed: m.random_uniform(shape, seed=seed, dtype=m.float64),
    "truncated": lambda m, shape, seed: m.truncated_normal(shape, seed=seed, stddev=2.0),
    "truncated64": lambda m, shape, seed: m.truncated_normal(shape, seed=seed, dtype=m.float64),
    "int32": lambda m, shape, seed: m.random_uniform(shape, -7, 1000, m.int32, seed=seed),
    "int64": lambda m, shape, seed: m.random_uniform(shape, 3, 2**40, m.int64, seed=seed),
}


@settings(max_examples=25, deadline=None)
@given(
    kind=st.sampled_from(sorted(BUILDERS)),
    shape=st.lists(st.integers(0, 9), min_size=0, max_size=3),
    seed=st.integers(0, 2**31 - 2),
)
def test_same_numbers_as_tensorflow(tf1, kind, shape, seed):
    build = BUILDERS[kind]
    ours = _run_twice(lambda m: build(m, shape, seed))
    theirs = _run_twice(lambda m: build(m, shape, seed), tf1)
    for a, b in zip(ours, theirs, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["normal", "truncated", "uniform"])
def test_large_outputs_split_across_threads_match_tensorflow(tf1, kind):
    # Large enough that the fill is split across the intra-op pool.
    build = BUILDERS[kind]
    ours = _run_twice(lambda m: build(m, [300_001], 17))
    theirs = _run_twice(lambda m: build(m, [300_001], 17), tf1)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_graph_seed_gives_tensorflows_op_seeds(tf1):
    def build(m):
        m.set_random_seed(42)
        return [
            m.random_normal([4]),
            m.random_uniform([3], maxval=2.0),
            m.random_shuffle([1, 2, 3, 4]),
        ]

    for a, b in zip(_run_twice(build), _run_twice(build, tf1), strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(x, y, rtol=1e-6)


def test_graph_seed_makes_runs_reproducible_across_sessions_and_graphs():
    def values():
        g = ff.Graph()
        with g.as_default():
            ff.set_random_seed(3)
            a, b = ff.random_normal([5]), ff.random_uniform([5])
            with ff.Session() as sess:
                return [*sess.run([a, b]), sess.run(a)]

    first, second = values(), values()
    for x, y in zip(first, second, strict=True):
        np.testing.assert_array_equal(x, y)
    # Two unseeded ops of one seeded graph draw different streams; a second run continues.
    assert not np.array_equal(first[0], first[1])
    assert not np.array_equal(first[0], first[2])


def test_stream_continues_across_runs_with_different_fetches():
    # The generator belongs to the session, not to one compiled run signature.
    x = ff.random_uniform([4], seed=1)
    y = x * 2.0
    with ff.Session() as sess:
        a = sess.run(x)
        b, b2 = sess.run([x, y])
    ref = _run_twice(lambda m: m.random_uniform([4], seed=1))
    np.testing.assert_array_equal(a, ref[0])
    np.testing.assert_array_equal(b, ref[1])
    np.testing.assert_allclose(b2, 2 * b)


def test_a_new_session_restarts_the_stream():
    x = ff.random_normal([3], seed=5)
    with ff.Session() as s1:
        a = s1.run(x)
    with ff.Session() as s2:
        np.testing.assert_array_equal(s2.run(x), a)


def test_unseeded_ops_differ_between_sessions():
    x = ff.random_normal([16])
    with ff.Session() as s1, ff.Session() as s2:
        assert not np.array_equal(s1.run(x), s2.run(x))


def test_get_seed_rules():
    assert ff.get_seed(None) == (None, None)
    assert ff.get_seed(5) == (87654321, 5)
    ff.set_random_seed(0)
    assert ff.get_seed(0) == (0, 2**31 - 1)
    ff.set_random_seed(2**31 + 4)
    assert ff.get_seed(None) == (5, 0)  # graph seed truncated; first default op seed
    assert ff.get_seed(None) == (5, 1)


def test_distribution_moments():
    n = 200_000
    normal, trunc, unif = run_ff(
        lambda m: [
            m.random_normal([n], mean=1.0, stddev=2.0, seed=1),
            m.truncated_normal([n], seed=2),
            m.random_uniform([n], minval=-1.0, maxval=3.0, seed=3),
        ]
    )
    assert abs(normal.mean() - 1.0) < 0.03 and abs(normal.std() - 2.0) < 0.03
    assert np.abs(trunc).max() < 2.0 and abs(trunc.std() - 0.8796) < 0.01
    assert unif.min() >= -1.0 and unif.max() < 3.0 and abs(unif.mean() - 1.0) < 0.02


def test_shuffle_permutes_rows_of_any_dtype():
    rows = np.arange(24).reshape(6, 2, 2).astype(np.int64)
    out = run_ff(lambda m: m.random_shuffle(rows, seed=4))
    assert sorted(map(tuple, out.reshape(6, -1).tolist())) == sorted(
        map(tuple, rows.reshape(6, -1).tolist())
    )
    words = np.array([b"a", b"b", b"c", b"d"])
    assert sorted(run_ff(lambda m: m.random_shuffle(words, seed=1)).tolist()) == sorted(
        words.tolist()
    )
    np.testing.assert_array_equal(run_ff(lambda m: m.random_shuffle([[1, 2]], seed=1)), [[1, 2]])


def test_static_shapes_and_names():
    a = ff.random_normal([2, 3], name="w")
    assert a.shape.as_list() == [2, 3] and a.op.name == "w"
    assert a.op.inputs[0].op.inputs[0].op.type == "RandomStandardNormal"
    shape = ff.placeholder(ff.int32, [3])
    assert ff.random_uniform(shape).shape.as_list() == [None, None, None]
    assert ff.random_uniform([2], maxval=5, dtype=ff.int32).op.type == "RandomUniformInt"
    assert ff.random_uniform([2]).op.type == "RandomUniform"  # [0, 1) needs no arithmetic


def test_fed_shape_at_run_time():
    shape = ff.placeholder(ff.int32, [None])
    x = ff.random_normal(shape, seed=1)
    with ff.Session() as sess:
        assert sess.run(x, {shape: [2, 5]}).shape == (2, 5)
        with pytest.raises(ff.errors.InvalidArgumentError, match="negative"):
            sess.run(x, {shape: [2, -1]})


def test_bad_arguments():
    with pytest.raises(ValueError, match="maxval"):
        ff.random_uniform([2], dtype=ff.int32)
    with pytest.raises(ValueError, match="dtype"):
        ff.random_uniform([2], dtype=ff.string)
    with pytest.raises(ValueError, match="dtype"):
        ff.random_normal([2], dtype=ff.int32)
    with pytest.raises(TypeError):
        ff.random_normal([2.5])
    with pytest.raises(ValueError, match="rank"):
        ff.random_normal([[2]])
    x = ff.random_uniform([3], minval=5, maxval=5, dtype=ff.int32)
    with (
        ff.Session() as sess,
        pytest.raises(ff.errors.InvalidArgumentError, match="minval < maxval"),
    ):
        sess.run(x)


def test_random_ops_have_no_gradient():
    x = ff.Variable([1.0, 2.0])
    shape = ff.cast(ff.shape(x), ff.int32)
    assert ff.gradients(ff.reduce_sum(ff.random_normal(shape) * 0.0), x) == [None]


@pytest.mark.parametrize(
    "batch,classes,samples", [(3, 7, 9), (64, 1000, 10), (7, 50000, 3), (300, 20, 33)]
)
def test_multinomial_draws_tensorflows_samples(tf1, batch, classes, samples):
    """TF's samples bit for bit for a fixed seed: TF's CDF search, its stream per
    shard and its sharding of rows (Shard + Eigen's cost model; both libraries use
    one intra-op pool per process, as many threads as cores)."""
    rs = np.random.RandomState(batch + classes)
    logits = rs.randn(batch, classes).astype(np.float32)
    logits[0, 1] = -np.inf  # never drawn

    def draw(lib):
        g = lib.Graph()
        with g.as_default():
            lib.set_random_seed(5)
            a = lib.multinomial(lib.constant(logits), samples, seed=3)
            b = lib.random.categorical(logits.astype(np.float64), 4, dtype=lib.int32, seed=4)
            with lib.Session() as sess:
                return [sess.run([a, b]) for _ in range(2)]

    ours, theirs = draw(ff), draw(tf1)
    for (a, b), (ta, tb) in zip(ours, theirs, strict=True):
        assert a.dtype == np.int64 and b.dtype == np.int32
        np.testing.assert_array_equal(a, ta)
        np.testing.assert_array_equal(b, tb)
    assert not (ours[0][0][0] == 1).any()


def test_multinomial_shapes_and_errors():
    logits = ff.placeholder(ff.float32, [None, 4])
    n = ff.placeholder(ff.int32, [])
    assert ff.multinomial(logits, 5).shape.as_list() == [None, 5]
    assert ff.multinomial(logits, n).shape.as_list() == [None, None]
    with pytest.raises(ValueError, match="rank 2"):
        ff.multinomial(ff.zeros([4]), 2)
    with pytest.raises(TypeError):
        ff.multinomial(logits, 2, output_dtype=ff.float32)
    with pytest.raises(ValueError, match="must be non-negative but is -2"):
        ff.multinomial(logits, -2)
    with ff.Session() as sess:
        out = sess.run(ff.multinomial(logits, n), {logits: np.zeros([2, 4]), n: 0})
        assert out.shape == (2, 0)
        nonnegative = "num_samples should be nonnegative"
        with pytest.raises(ff.errors.InvalidArgumentError, match=nonnegative):
            sess.run(ff.multinomial(logits, n), {logits: np.zeros([2, 4]), n: -1})
        with pytest.raises(ff.errors.InvalidArgumentError, match="num_classes should be positive"):
            sess.run(ff.multinomial(ff.zeros([2, 0]), n), {n: 3})
        # All classes impossible: TF answers num_classes.
        out = sess.run(ff.multinomial(logits, 3), {logits: np.full([1, 4], -np.inf)})
        assert out.tolist() == [[4, 4, 4]]
