"""`tf.Print`, `tf.Assert` and the `tf.assert_*` family, against TensorFlow.

The printed lines and the assertion messages are compared text for text: TF's
summaries (first `summarize` elements, nested brackets, `...`) are part of what users
read in their logs.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ferroflow as ff
from conftest import run_ff, run_tf

PRINTED = [
    np.float32(1.0),
    np.array([0.1, 1e-7, 123456789.0, -2.5, np.nan, -np.inf], np.float32),
    np.array([1 / 3, 1e20, 100000.0, 1234567.0, 0.1]),
    np.array([[True, False], [False, True]]),
    np.arange(12, dtype=np.int64).reshape(2, 2, 3),
    np.array([b'a"b\n\\', b"\xc3\xa9\x01'\t"], object),
    np.zeros([0, 3], np.float32),
    np.array([1.5], np.float16),
    np.uint8(200),
    np.zeros([2, 0]),
    np.arange(24, dtype=np.int32).reshape(2, 3, 4),
]


def _printed_lines(capfd, marker):
    err = capfd.readouterr().err
    return [line for line in err.splitlines() if line.startswith(marker)]


def _assertion(message):
    """The `assertion failed: ...` line of an error message (TF adds context around it)."""
    return re.search(r"assertion failed: [^\n]*", message).group(0)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("summarize", [None, 0, 1, 5, 100, -1])
def test_print_writes_what_tensorflow_writes(tf1, capfd, summarize):
    def build(lib):
        x = lib.constant([1.0, 2.0])
        data = [lib.constant(v) for v in PRINTED]
        return lib.Print(x, data, message=f"msg{summarize}: ", summarize=summarize)

    want = run_tf(tf1, build)
    tf_lines = _printed_lines(capfd, "msg")
    got = run_ff(build)
    ff_lines = _printed_lines(capfd, "msg")
    np.testing.assert_array_equal(got, want)
    assert len(tf_lines) == 1
    assert ff_lines == tf_lines


def test_print_first_n_counts_across_runs_of_the_session(capfd):
    x = ff.placeholder(ff.float32, [])
    p = ff.Print(x, [x], message="step ", first_n=2)
    doubled = p * 2.0
    with ff.Session() as sess:
        for i in range(4):
            # Alternate fetches: the count belongs to the node, not to one compiled plan.
            sess.run(p if i % 2 else doubled, {x: float(i)})
    assert _printed_lines(capfd, "step ") == ["step [0]", "step [1]"]


def test_print_defaults_and_gradient_pass_through():
    x = ff.constant([1.0, 2.0])
    p = ff.Print(x, [x])
    assert p.op.type == "Print"
    assert p.op.get_attr("summarize") == 3
    assert p.op.get_attr("first_n") == -1
    assert p.op.get_attr("message") == b""
    (g,) = ff.gradients(ff.reduce_sum(p * p), x)
    with ff.Session() as sess:
        np.testing.assert_allclose(sess.run(g), [2.0, 4.0])


def test_print_rejects_a_tensor_as_data():
    with pytest.raises(TypeError, match="list"):
        ff.Print(ff.constant(1.0), ff.constant(2.0))


@pytest.mark.tf_oracle
def test_assert_fails_with_tensorflows_message(tf1):
    def build(lib):
        x = lib.placeholder(lib.float32, [None])
        assertion = lib.Assert(
            lib.reduce_all(x > 0.0), ["x must be positive", x, lib.shape(x)], summarize=4
        )
        with lib.control_dependencies([assertion]):
            return x, lib.identity(x)

    feed = np.array([1.0, -2.0, 3.0, 4.0, 5.0], np.float32)
    messages = []
    for lib, g in ((tf1, tf1.Graph()), (ff, ff.Graph())):
        with g.as_default():
            x, y = build(lib)
            with lib.Session(graph=g) as sess:
                np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0]}), [1.0, 2.0])
                with pytest.raises(lib.errors.InvalidArgumentError) as e:
                    sess.run(y, {x: feed})
                messages.append(_assertion(e.value.message))
    assert messages[1] == messages[0]
    assert messages[1] == "assertion failed: [x must be positive] [1 -2 3 4...] [5]"


def test_assert_error_names_the_assert_op_and_checks_its_condition():
    cond = ff.placeholder(ff.bool)
    a = ff.Assert(cond, [ff.constant(7)], name="check")
    assert a.type == "Assert" and a.name == "check/Assert"
    with ff.Session() as sess:
        sess.run(a, {cond: True})
        with pytest.raises(ff.errors.InvalidArgumentError, match=r"assertion failed: \[7\]") as e:
            sess.run(a, {cond: False})
        assert e.value.op is a
        with pytest.raises(ff.errors.InvalidArgumentError, match="should be a scalar"):
            sess.run(a, {cond: [True, False]})
    with pytest.raises(ValueError, match="rank 0"):
        ff.Assert(ff.constant([True]), [])
    with pytest.raises(TypeError, match="bool"):
        ff.Assert(ff.constant(1), [])


# ---- assert_* ------------------------------------------------------------------

# name -> (call, passing x, failing x); one-argument checks ignore y.
CHECKS = {
    "assert_equal": (lambda lib, x, y: lib.assert_equal(x, y), [1, 2], [1, 3]),
    "assert_none_equal": (lambda lib, x, y: lib.assert_none_equal(x, y), [2, 1], [1, 1]),
    "assert_less": (lambda lib, x, y: lib.assert_less(x, y), [0, 1], [1, 1]),
    "assert_less_equal": (lambda lib, x, y: lib.assert_less_equal(x, y), [1, 2], [2, 2]),
    "assert_greater": (lambda lib, x, y: lib.assert_greater(x, y), [2, 3], [1, 3]),
    "assert_greater_equal": (lambda lib, x, y: lib.assert_greater_equal(x, y), [1, 2], [0, 2]),
    "assert_positive": (lambda lib, x, y: lib.assert_positive(x), [1, 2], [0, 2]),
    "assert_negative": (lambda lib, x, y: lib.assert_negative(x, message="neg"), [-1, -2], [-1, 2]),
    "assert_non_negative": (lambda lib, x, y: lib.assert_non_negative(x), [0, 2], [-1, 2]),
    "assert_non_positive": (lambda lib, x, y: lib.assert_non_positive(x), [0, -2], [1, 0]),
}
Y = [1, 2]


@pytest.mark.tf_oracle
@pytest.mark.parametrize("name", sorted(CHECKS))
def test_checks_fail_at_run_time_like_tensorflow(tf1, name):
    call, good, bad = CHECKS[name]
    messages = []
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            x = lib.placeholder(lib.int32, [2], name="x")
            check = call(lib, x, lib.constant(Y, name="y"))
            with lib.control_dependencies([check]):
                out = lib.identity(x)
            with lib.Session(graph=g) as sess:
                np.testing.assert_array_equal(sess.run(out, {x: good}), good)
                with pytest.raises(lib.errors.InvalidArgumentError) as e:
                    sess.run(out, {x: bad})
                messages.append(_assertion(e.value.message))
    assert messages[1] == messages[0]


@pytest.mark.tf_oracle
@pytest.mark.parametrize("name", sorted(CHECKS))
def test_checks_on_constants_fail_while_building_like_tensorflow(tf1, name):
    call, good, bad = CHECKS[name]
    messages = []
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            call(lib, lib.constant(good), lib.constant(Y))  # passes: an op, no error
            with pytest.raises(lib.errors.InvalidArgumentError) as e:
                call(lib, lib.constant(bad), lib.constant(Y))
            messages.append(e.value.message)
    assert messages[1] == messages[0]


@pytest.mark.tf_oracle
def test_assert_rank_static_and_dynamic_like_tensorflow(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            ok = lib.assert_rank(lib.zeros([2, 3]), 2)
            assert ok.type == "NoOp" and ok.name == "assert_rank/static_checks_determined_all_ok"
            lib.assert_rank_at_least(lib.zeros([2, 3]), 1)
    errors = []
    for lib in (tf1, ff):
        with lib.Graph().as_default(), pytest.raises(ValueError) as e:
            lib.assert_rank(lib.zeros([2, 3]), 3, message="need 3")
        errors.append(str(e.value))
        with lib.Graph().as_default(), pytest.raises(ValueError) as e:
            lib.assert_rank_at_least(lib.zeros([2]), 2)
        errors.append(str(e.value))
    assert errors[2:] == errors[:2]

    def dynamic(lib):
        x = lib.placeholder(lib.float32, None, name="x")
        with lib.control_dependencies([lib.assert_rank(x, 2)]):
            return x, lib.identity(x)

    messages = []
    for lib, g in ((tf1, tf1.Graph()), (ff, ff.Graph())):
        with g.as_default():
            x, y = dynamic(lib)
            with lib.Session(graph=g) as sess:
                assert sess.run(y, {x: np.ones([1, 2])}).shape == (1, 2)
                with pytest.raises(lib.errors.InvalidArgumentError) as e:
                    sess.run(y, {x: np.ones([3])})
                messages.append(_assertion(e.value.message))
    assert messages[1] == messages[0]


@pytest.mark.tf_oracle
def test_static_type_and_shape_checks_like_tensorflow(tf1):
    errors = []
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            assert lib.assert_type(lib.constant(1.0), lib.float32).type == "NoOp"
            assert lib.assert_integer(lib.constant(1)).type == "NoOp"
            s = lib.constant(2.0)
            assert lib.assert_scalar(s) is s
            for check, arg in (
                (lambda t, lib=lib: lib.assert_type(t, lib.float32, message="m"), 1),
                (lambda t, lib=lib: lib.assert_integer(t), 1.0),
                (lambda t, lib=lib: lib.assert_scalar(t), [1.0]),
            ):
                with pytest.raises((TypeError, ValueError)) as e:
                    check(lib.constant(arg))
                errors.append((type(e.value), str(e.value)))
    assert errors[3:] == errors[:3]


def test_assert_equal_of_one_tensor_with_itself_is_a_no_op():
    x = ff.placeholder(ff.float32)
    assert ff.assert_equal(x, x).type == "NoOp"


# ---- reduce_all / reduce_any ------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    x=hnp.arrays(np.bool_, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)),
    data=st.data(),
)
def test_reduce_all_and_any_match_numpy(x, data):
    axis = data.draw(st.none() | st.integers(-max(x.ndim, 1), max(x.ndim, 1) - 1))
    if x.ndim == 0 and axis is not None:
        axis = None
    keep = data.draw(st.booleans())
    with ff.Graph().as_default(), ff.Session() as sess:
        t = ff.constant(x)
        a = ff.reduce_all(t, axis=axis, keepdims=keep)
        b = ff.reduce_any(t, axis=axis, keepdims=keep)
        got_a, got_b = sess.run([a, b])
    np.testing.assert_array_equal(got_a, np.all(x, axis=axis, keepdims=keep))
    np.testing.assert_array_equal(got_b, np.any(x, axis=axis, keepdims=keep))
    assert a.shape.as_list() == list(np.all(x, axis=axis, keepdims=keep).shape)


def test_reduce_all_refuses_numbers():
    with pytest.raises(TypeError):
        ff.reduce_all(ff.constant([1.0]))
