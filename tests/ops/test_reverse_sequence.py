"""`tf.reverse_sequence` (`ReverseSequence`) against TensorFlow: values, gradients, errors.

Each index along `batch_axis` has the first `seq_lengths[b]` entries along `seq_axis`
reversed and the rest copied; the gradient is the same reversal of the incoming
gradient. Bidirectional RNNs reverse their inputs with it.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import run_ff, run_tf

import ferroflow as ff


@st.composite
def cases(draw):
    """A shape, the two axes, lengths (within the sequence axis) and their dtype."""
    rank = draw(st.integers(2, 4))
    shape = draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank))
    seq_axis, batch_axis = draw(st.permutations(range(rank)))[:2]
    lengths = draw(
        st.lists(
            st.integers(0, shape[seq_axis]),
            min_size=shape[batch_axis],
            max_size=shape[batch_axis],
        )
    )
    ltype = draw(st.sampled_from([np.int32, np.int64]))
    return shape, seq_axis, batch_axis, np.array(lengths, ltype)


def _build(x0, lengths, seq_axis, batch_axis):
    def build(m):
        x = m.constant(x0)
        y = m.reverse_sequence(x, lengths, seq_axis=seq_axis, batch_axis=batch_axis)
        weights = m.constant(np.arange(x0.size, dtype=x0.dtype).reshape(x0.shape))
        return [y, m.gradients(m.reduce_sum(y * weights), x)[0]]

    return build


@settings(max_examples=40, deadline=None)
@given(case=cases(), dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**31))
def test_values_and_gradients_match_tensorflow(tf1, case, dtype, seed):
    shape, seq_axis, batch_axis, lengths = case
    x0 = np.random.default_rng(seed).normal(size=shape).astype(dtype)
    build = _build(x0, lengths, seq_axis, batch_axis)
    ours, theirs = run_ff(build), run_tf(tf1, build)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_ints_and_strings_are_reversed_as_values():
    x = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.int32)
    got = run_ff(lambda m: m.reverse_sequence(x, [3, 1], seq_axis=1))
    np.testing.assert_array_equal(got, [[3, 2, 1, 4], [5, 6, 7, 8]])
    words = np.array([[b"a", b"b", b"c"], [b"d", b"e", b"f"]], object)
    got = run_ff(lambda m: m.reverse_sequence(words, [2, 3], seq_axis=1, batch_axis=0))
    assert got.tolist() == [[b"b", b"a", b"c"], [b"f", b"e", b"d"]]


def test_names_and_static_shapes_are_tensorflows(tf1):
    def build(m):
        x = m.placeholder(m.float32, [None, 7, 3])
        lengths = m.placeholder(m.int64, [4])
        y = m.reverse_sequence(x, lengths, seq_dim=1, batch_dim=0)
        return y.name, y.shape.as_list()

    g = ff.Graph()
    with g.as_default():
        ours = build(ff)
    with tf1.Graph().as_default():
        theirs = build(tf1)
    assert ours == theirs == ("ReverseSequence:0", [4, 7, 3])


def test_bad_arguments_are_tensorflows_errors(tf1):
    x = np.zeros((2, 3), np.float32)
    for bad in (
        lambda m: m.reverse_sequence(x, [1, 2], seq_axis=1, seq_dim=1),
        lambda m: m.reverse_sequence(x, [1, 2], seq_axis=2),
        lambda m: m.reverse_sequence(x, [1, 2, 3], seq_axis=1),
    ):
        with pytest.raises(ValueError):
            run_ff(bad)
        with pytest.raises(ValueError):
            run_tf(tf1, bad)
    # Values known only when the step runs: TF's kernel errors.
    for lengths, message in [
        ([1, 4], r"seq_lens\(1\) > input.dims\(1\)"),
        ([1, -1], r"seq_lens\(1\) < 0"),
        ([1, 2, 3], r"Length of seq_lengths != input.dims\(0\), \(3 vs. 2\)"),
    ]:
        for lib in (ff, tf1):
            g = lib.Graph()
            with g.as_default():
                lens = lib.placeholder(lib.int32, [None])
                y = lib.reverse_sequence(x, lens, seq_axis=1)
                with lib.Session(graph=g) as sess:
                    with pytest.raises(lib.errors.InvalidArgumentError, match=message):
                        sess.run(y, {lens: lengths})
