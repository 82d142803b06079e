"""`tf.TensorArray` (TF-1.x's resource-backed `_GraphTensorArray`), compared with TensorFlow.

Each test builds the same program with `tensorflow.compat.v1` (TF-1.x control flow, so
TF uses its TensorArrayV3 ops) and with ferroflow, runs both and compares values,
dtypes and static shapes; gradients through reads, writes, scatters, splits and loops
against TF's; misuse (bad indices, double writes, cleared reads, inconsistent shapes,
closed arrays) must fail with TF's error class and message, never crash or hang.
"""

import re

import numpy as np
import pytest

import ferroflow as ff
from conftest import op_error_message
from gradcheck import check_against_tf

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def tf(tf1):
    # Control flow v1 is what makes TF build `_GraphTensorArray` (TensorArrayV3 ops).
    tf1.disable_control_flow_v2()
    return tf1


def _signature(lib, t):
    if isinstance(t, lib.Operation):
        return "op"
    return t.dtype.name, t.shape.as_list() if t.shape.ndims is not None else None


def _run(lib, build):
    """`build(lib)` in a fresh graph: each fetch's (dtype, static shape) and values."""
    g = lib.Graph()
    with g.as_default():
        fetches = build(lib)
        sigs = [_signature(lib, t) for t in fetches]
        with lib.Session(graph=g) as sess:
            return sigs, sess.run(fetches)


def check(tf, build):
    """The same values, dtypes and static shapes from TF and ferroflow."""
    (want_sigs, want), (got_sigs, got) = _run(tf, build), _run(ff, build)
    assert got_sigs == want_sigs
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(want, got, strict=True)):
        if a is None:  # an op's result
            assert b is None, i
            continue
        a, b = np.asarray(a), np.asarray(b)
        assert (b.dtype, b.shape) == (a.dtype, a.shape), i
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7, err_msg=f"fetch {i}")


def _ta(lib, dtype=None, **kwargs):
    return lib.TensorArray(dtype or lib.float32, **kwargs)


# -- values -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_write_read_stack_and_identity(tf, dtype):
    def build(lib):
        dt = lib.as_dtype(dtype)
        v = [lib.constant([1, 2], dt), lib.constant([3, 4], dt), lib.constant([5, 6], dt)]
        ta = _ta(lib, dt, size=3, clear_after_read=False)
        ta = ta.write(2, v[2]).write(0, v[0]).write(1, v[1])
        same = ta.identity()
        return [ta.read(1), ta.stack(), same.read(2), same.size(), ta.concat()]

    check(tf, build)


def test_unstack_stack_size(tf):
    def build(lib):
        x = lib.reshape(lib.range(24.0), [4, 2, 3])
        ta = _ta(lib, size=4, clear_after_read=False).unstack(x)
        return [ta.stack(), ta.read(3), ta.size(), _ta(lib, size=4).unstack(x).read(0)]

    check(tf, build)


def test_scatter_gather_unordered(tf):
    def build(lib):
        x = lib.constant([[1, 2], [3, 4], [5, 6]])
        ta = _ta(lib, lib.int32, size=4, clear_after_read=False).scatter([2, 0, 3], x)
        # Element 1 was never written: the inferred element shape makes it zeros.
        return [ta.gather([3, 0, 2, 1]), ta.gather([2, 2]), ta.stack(), ta.read(0)]

    check(tf, build)


def test_split_concat(tf):
    def build(lib):
        x = lib.reshape(lib.range(12.0), [6, 2])
        # Lengths of different sizes need infer_shape=False (see the misuse cases).
        ta = _ta(lib, size=3, infer_shape=False, clear_after_read=False).split(x, [1, 3, 2])
        even = _ta(lib, size=3, clear_after_read=False).split(x, [2, 2, 2])
        return [ta.concat(), ta.read(1), even.read(2), even.stack(), even.concat()]

    check(tf, build)


def test_infer_shape_false_differently_shaped_elements(tf):
    def build(lib):
        ta = _ta(lib, size=3, infer_shape=False, clear_after_read=False)
        ta = ta.write(0, [[1.0, 2.0]]).write(1, lib.ones([3, 2])).write(2, lib.zeros([0, 2]))
        return [ta.read(0), ta.read(1), ta.read(2), ta.concat()]

    check(tf, build)


def test_dynamic_size_grows(tf):
    def build(lib):
        known = _ta(lib, size=0, dynamic_size=True, element_shape=[2]).write(4, [1.0, 2.0])
        inferred = _ta(lib, size=0, dynamic_size=True).write(4, [1.0, 2.0])
        scattered = _ta(lib, size=1, dynamic_size=True).scatter([3, 0], [1.0, 2.0])
        split = _ta(lib, size=1, dynamic_size=True).split([1.0, 2.0, 3.0, 4.0], [2, 2])
        # Unwritten elements are zeros when the element shape is known.
        return [
            known.size(),
            known.stack(),
            inferred.size(),
            inferred.stack(),
            scattered.size(),
            scattered.stack(),
            split.size(),
            split.concat(),
        ]

    check(tf, build)


def test_unwritten_elements_of_known_shape_are_zeros(tf):
    def build(lib):
        ta = _ta(lib, size=3, element_shape=[2], clear_after_read=False).write(1, [1.0, 2.0])
        return [ta.read(0), ta.read(2), ta.gather([0, 1]), ta.stack(), ta.concat()]

    check(tf, build)


def test_zero_size_with_known_element_shape(tf):
    def build(lib):
        return [
            _ta(lib, size=0, element_shape=[2]).stack(),
            _ta(lib, size=0, element_shape=[2]).concat(),
            _ta(lib, size=0, element_shape=[2]).size(),
        ]

    check(tf, build)


def test_clear_after_read_false_reads_twice(tf):
    def build(lib):
        ta = _ta(lib, size=2, clear_after_read=False).unstack([[1.0, 2.0], [3.0, 4.0]])
        first = ta.read(0)
        with lib.control_dependencies([first]):
            second = ta.read(0)
        return [first, second, ta.stack(), ta.stack()]

    check(tf, build)


def test_close_as_a_target(tf):
    def build(lib):
        ta = _ta(lib, size=3).unstack([1.0, 2.0, 3.0])
        r = ta.read(1)
        with lib.control_dependencies([r]):
            closed = ta.close()
        # A fixed size is known in Python: size() needs no live array.
        with lib.control_dependencies([closed]):
            size = ta.size()
        return [r, closed, size]

    check(tf, build)


# Static shapes of the results, for each way of knowing (or not) the element shape.
_CONFIGS = {
    "given": {"size": 4, "element_shape": [2, 3]},
    "given_partial": {"size": 4, "element_shape": [None, 3]},
    "inferred": {"size": 4},
    "no_infer": {"size": 4, "infer_shape": False},
    "no_infer_given": {"size": 4, "infer_shape": False, "element_shape": [2, 3]},
    "dynamic": {"size": 0, "dynamic_size": True},
}
_WRITES = {
    "nothing": lambda lib, ta: ta,
    "write": lambda lib, ta: ta.write(0, lib.zeros([2, 3])),
    "write_partial": lambda lib, ta: ta.write(0, lib.placeholder(lib.float32, [None, 3])),
    "write_unknown": lambda lib, ta: ta.write(0, lib.placeholder(lib.float32)),
    "unstack": lambda lib, ta: ta.unstack(lib.zeros([4, 2, 3])),
    "scatter": lambda lib, ta: ta.scatter([1, 0], lib.zeros([2, 2, 3])),
    "split": lambda lib, ta: ta.split(lib.zeros([8, 3]), [2, 2, 2, 2]),
}


@pytest.mark.parametrize("config", sorted(_CONFIGS))
def test_static_shapes(tf, config):
    def shapes(lib):
        out = {}
        for name, write in _WRITES.items():
            g = lib.Graph()
            with g.as_default():
                ta = write(lib, _ta(lib, **_CONFIGS[config]))
                results = [
                    ta.read(0),
                    ta.stack(),
                    ta.gather([0, 1]),
                    ta.gather(lib.placeholder(lib.int32)),
                    ta.concat(),
                    ta.size(),
                ]
                out[name] = [_signature(lib, t) for t in results]
        return out

    assert shapes(ff) == shapes(tf)


def test_inferred_shape_is_shared_by_derived_arrays(tf):
    # TF keeps one element shape per array: a write through a derived TensorArray
    # object also fixes the shape that the original object (and its reads) reports.
    def shapes(lib):
        g = lib.Graph()
        with g.as_default():
            ta = _ta(lib, size=3)
            before = ta.read(0)
            ta.write(1, lib.zeros([5]))
            return [_signature(lib, t) for t in (before, ta.read(0), ta.stack())]

    assert shapes(ff) == shapes(tf)


# -- in loops -----------------------------------------------------------------------------
def test_in_a_while_loop(tf):
    def build(lib):
        x = lib.reshape(lib.range(10.0), [5, 2])
        xs = _ta(lib, size=5).unstack(x)

        def body(i, out):
            return i + 1, out.write(i, lib.sin(xs.read(i)) * lib.cast(i, lib.float32))

        _, out = lib.while_loop(lambda i, o: i < 5, body, [lib.constant(0), _ta(lib, size=5)])
        return [out.stack(), out.size()]

    check(tf, build)


@pytest.mark.parametrize("trips", [0, 6])
def test_dynamic_array_grown_in_a_loop_of_unknown_trip_count(tf, trips):
    def build(lib):
        n = lib.placeholder_with_default(lib.constant(trips), [])
        ta = _ta(lib, size=0, dynamic_size=True, clear_after_read=False)

        def body(i, t):
            f = lib.cast(i, lib.float32)
            return i + 1, t.write(i, lib.stack([f, f * f]))

        _, ta = lib.while_loop(lambda i, t: i < n, body, [lib.constant(0), ta])
        # The body's write fixed the element shape: an empty array stacks as (0, 2).
        return [ta.stack(), ta.size(), ta.concat()]

    check(tf, build)


def _nested(lib, x):
    """A loop over x's rows; each row runs an inner loop that stores its steps."""
    rows = lib.TensorArray(x.dtype, size=3).unstack(x)

    def outer(i, out):
        xi = rows.read(i)

        def inner(j, acc, steps):
            acc = lib.tanh(acc * xi + lib.cast(j, x.dtype))
            return j + 1, acc, steps.write(j, acc)

        init = [lib.constant(0), lib.zeros_like(xi), lib.TensorArray(x.dtype, size=4)]
        _, _, steps = lib.while_loop(lambda j, a, s: j < 4, inner, init)
        return i + 1, out.write(i, steps.stack())

    init = [lib.constant(0), lib.TensorArray(x.dtype, size=3)]
    _, out = lib.while_loop(lambda i, o: i < 3, outer, init)
    return out.stack()


def test_nested_loops_each_with_a_tensor_array(tf):
    check(tf, lambda lib: [_nested(lib, lib.constant([[0.5, -1.0], [0.25, 2.0], [1.5, 0.0]]))])


# -- gradients ------------------------------------------------------------------------------
def _unstack_stack(lib, x, w):
    return lib.TensorArray(x.dtype, size=3).unstack(x).stack() * w


def _read_write(lib, x, w):
    src = lib.TensorArray(x.dtype, size=3).unstack(x)
    dst = lib.TensorArray(x.dtype, size=3)
    for i in (2, 0, 1):
        dst = dst.write(i, src.read(i) * w[i])
    return dst.stack()


def _scatter_gather(lib, x, w):
    # x row 2 (element 1) is never gathered: its gradient is zeros.
    ta = lib.TensorArray(x.dtype, size=3).scatter([2, 0, 1], x * w)
    return ta.gather([0, 2])


def _split_concat(lib, x, w):
    ta = lib.TensorArray(x.dtype, size=3, infer_shape=False).split(x * w, [2, 1, 3])
    return ta.concat()


def _rnn(lib, x, w):
    """h = tanh(x_t * w + h), stored at every step."""
    xs = lib.TensorArray(x.dtype, size=5).unstack(x)

    def body(t, h, hs):
        h = lib.tanh(xs.read(t) * w + h)
        return t + 1, h, hs.write(t, h)

    init = [lib.constant(0), lib.zeros_like(w), lib.TensorArray(x.dtype, size=5)]
    _, h, hs = lib.while_loop(lambda t, h, hs: t < 5, body, init)
    return hs.stack() + h


_GRADS = {
    "unstack_stack": (_unstack_stack, (3, 2), (3, 2)),
    "read_write": (_read_write, (3, 2), (3,)),
    "scatter_gather": (_scatter_gather, (3, 2), (3, 2)),
    "split_concat": (_split_concat, (6, 2), (6, 2)),
    "rnn_loop": (_rnn, (5, 3), (3,)),
}


@pytest.mark.parametrize("case", sorted(_GRADS))
def test_gradients_match_tf(tf, case):
    build, x_shape, w_shape = _GRADS[case]
    rng = np.random.default_rng(len(case))
    args = [rng.uniform(-1.0, 1.0, s) for s in (x_shape, w_shape)]
    check_against_tf(tf, build, args)


def test_gradient_through_nested_loops(tf):
    check_against_tf(tf, _nested, [np.array([[0.5, -1.0], [0.25, 2.0], [1.5, 0.0]])])


# -- misuse -----------------------------------------------------------------------------------
def _message(e):
    """The error's own first line, the process-wide array counter normalized: TF names
    an array `<node name>_<counter>` ("TensorArray TensorArray_7: Could not ...")."""
    lines = [ln for ln in op_error_message(e).splitlines() if ln.strip()]
    return re.sub(r"(TensorArray\w*?)_\d+", r"\1_N", lines[0] if lines else "")


def _outcome(lib, build):
    """(error class name, message) of building and running `build(lib)`, or ("ok", ...)."""
    g = lib.Graph()
    with g.as_default():
        try:
            fetches = build(lib)
            with lib.Session(graph=g) as sess:
                return "ok", sess.run(fetches)
        except Exception as e:
            return type(e).__name__, _message(e)


def _unknown(lib, value):
    """`value`, its static shape hidden, so that only the run-time check sees it."""
    return lib.placeholder_with_default(value, None)


def _read_twice(lib, ta, index):
    first = ta.read(index)
    with lib.control_dependencies([first]):
        return ta.read(index)


def _after_close(op):
    def build(lib):
        ta = _ta(lib, size=3, element_shape=[]).unstack([1.0, 2.0, 3.0])
        with lib.control_dependencies([ta.flow]):
            closed = ta.close()
        with lib.control_dependencies([closed]):
            return op(lib, ta)

    return build


def _write_after_read(lib):
    ta = _ta(lib, size=2, clear_after_read=False).write(0, 1.0)
    r = ta.read(0)
    with lib.control_dependencies([r]):
        return ta.write(0, 2.0).read(0)


_MISUSE = {
    "write_twice": lambda lib: _ta(lib, size=3).write(0, 1.0).write(0, 2.0).read(0),
    "write_negative": lambda lib: _ta(lib, size=3).write(-1, 1.0).read(0),
    "write_past_end": lambda lib: _ta(lib, size=3).write(3, 1.0).read(0),
    # A dynamic array refuses a negative index with the fixed-size message.
    "write_negative_dynamic": lambda lib: (
        _ta(lib, size=0, dynamic_size=True).write(-1, 1.0).read(0)
    ),
    "read_past_end": lambda lib: _ta(lib, size=3).unstack([1.0, 2.0, 3.0]).read(3),
    "read_negative": lambda lib: _ta(lib, size=3).unstack([1.0, 2.0, 3.0]).read(-1),
    "read_past_end_dynamic": lambda lib: _ta(lib, size=0, dynamic_size=True).write(1, 1.0).read(3),
    "gather_past_end": lambda lib: _ta(lib, size=3).unstack([1.0, 2.0, 3.0]).gather([0, 5]),
    "gather_negative": lambda lib: _ta(lib, size=3).unstack([1.0, 2.0, 3.0]).gather([0, -1]),
    "read_cleared": lambda lib: _read_twice(lib, _ta(lib, size=2).unstack([1.0, 2.0]), 0),
    "gather_cleared": lambda lib: _ta(lib, size=2).unstack([1.0, 2.0]).gather([1, 1]),
    "read_unwritten_unknown_shape": lambda lib: _ta(lib, size=3).read(1),
    "stack_unwritten_unknown_shape": lambda lib: (
        _ta(lib, size=3, infer_shape=False).write(0, [1.0, 2.0]).stack()
    ),
    "write_after_read": _write_after_read,
    "stack_inconsistent_shapes": lambda lib: (
        _ta(lib, size=2, infer_shape=False).write(0, [1.0, 2.0]).write(1, [1.0]).stack()
    ),
    "concat_inconsistent_shapes": lambda lib: (
        _ta(lib, size=2, infer_shape=False).write(0, [[1.0, 2.0]]).write(1, [[1.0]]).concat()
    ),
    "scatter_past_end": lambda lib: _ta(lib, size=3).scatter([0, 7], [1.0, 2.0]).stack(),
    "scatter_negative": lambda lib: _ta(lib, size=3).scatter([0, -1], [1.0, 2.0]).stack(),
    "scatter_twice": lambda lib: _ta(lib, size=3).scatter([1, 1], [1.0, 2.0]).stack(),
    "scatter_length_mismatch": lambda lib: (
        _ta(lib, size=3).scatter(_unknown(lib, [0, 1]), _unknown(lib, [1.0, 2.0, 3.0])).stack()
    ),
    "unstack_too_many_rows": lambda lib: _ta(lib, size=2).unstack([1.0, 2.0, 3.0]).stack(),
    "split_lengths_sum": lambda lib: (
        _ta(lib, size=2).split(_unknown(lib, [1.0, 2.0, 3.0]), _unknown(lib, [1, 1])).concat()
    ),
    "split_lengths_count": lambda lib: (
        _ta(lib, size=3).split(_unknown(lib, [1.0, 2.0, 3.0]), _unknown(lib, [1, 2])).concat()
    ),
    "split_scalar": lambda lib: _ta(lib, size=1).split(_unknown(lib, 1.0), [1]).concat(),
    # Lengths of different sizes break the element shape that infer_shape=True fixes.
    "split_uneven_inferred": lambda lib: (
        _ta(lib, size=3).split(lib.zeros([6, 2]), [1, 3, 2]).concat()
    ),
    # TF only logs an error when building this write; the kernel refuses it.
    "write_wrong_dtype": lambda lib: _ta(lib, size=3).write(0, lib.constant(1)).read(0),
    "write_shape_vs_inferred": lambda lib: (
        _ta(lib, size=2).write(0, [1.0, 2.0]).write(1, _unknown(lib, [1.0])).stack()
    ),
    "scatter_shape_vs_inferred": lambda lib: (
        _ta(lib, size=3).write(0, [1.0, 2.0]).scatter([1], _unknown(lib, [[1.0]])).stack()
    ),
    "static_inconsistent_shapes": lambda lib: (
        _ta(lib, size=2).write(0, [1.0]).write(1, [1.0, 2.0]).stack()
    ),
    "static_vs_element_shape": lambda lib: (
        _ta(lib, size=2, element_shape=[3]).write(0, [1.0, 2.0]).stack()
    ),
    "read_after_close": _after_close(lambda lib, ta: ta.read(0)),
    "write_after_close": _after_close(lambda lib, ta: ta.write(0, 5.0).flow),
    "stack_after_close": _after_close(lambda lib, ta: ta.stack()),
    "stack_zero_size_unknown_shape": lambda lib: _ta(lib, size=0).stack(),
    "concat_zero_size_unknown_shape": lambda lib: _ta(lib, size=0).concat(),
    # Not stack(): its range(0, size) would fail as well, in no set order.
    "negative_size": lambda lib: _ta(lib, size=_unknown(lib, -1)).write(0, 1.0).read(0),
}


@pytest.mark.parametrize("case", sorted(_MISUSE))
def test_misuse_fails_as_in_tf(tf, case):
    want = _outcome(tf, _MISUSE[case])
    assert want[0] != "ok", want
    assert _outcome(ff, _MISUSE[case]) == want
