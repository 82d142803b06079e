"""Hostile and careless inputs: none may crash, abort or hang the process (issue 13).

Each reproducer runs in a child process (`isolated`), so a segfault or an abort fails
one test instead of killing the runner; the child's address space is capped, so an
allocation that the machine could not hold fails at once even where the kernel
overcommits memory. The expected classes and messages are TensorFlow 2.21's, taken
from running the same programs (`tensorflow.compat.v1`, graph mode); where TF is
installed the differential tests below also compare live.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import ferroflow as tf
from ferroflow.ops import io_ops

# Every child may map at most this much memory: far below a 2**40-element tensor.
_CHILD_ADDRESS_SPACE = 6 << 30

_PRELUDE = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
import numpy as np
import ferroflow as tf

def report(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the class is what is reported
        print(json.dumps({{"error": type(e).__name__, "message": getattr(e, "message", str(e))}}))
    else:
        shape = list(np.shape(out)) if out is not None else None
        print(json.dumps({{"error": None, "shape": shape}}))
"""


def isolated(body: str, timeout: float = 60.0) -> dict:
    """Runs `body` (which calls `report(fn)` once) in a child; returns what it reported.

    Fails the test if the child crashed, aborted or hung.
    """
    code = _PRELUDE.format(limit=_CHILD_ADDRESS_SPACE) + textwrap.dedent(body)
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, f"child died ({proc.returncode}): {proc.stderr[-2000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_fed(expr: str, feeds: str) -> dict:
    """Builds `expr` (names x, shp, d, i1 are placeholders) and runs it with `feeds`."""
    return isolated(
        f"""
        x = tf.placeholder(tf.float32, [None])
        shp = tf.placeholder(tf.int64, [None])
        d = tf.placeholder(tf.int64, [None])
        i1 = tf.placeholder(tf.int32, [])
        out = {expr}
        with tf.Session() as sess:
            report(lambda: sess.run(out, {{{feeds}}}))
        """
    )


# 1. Sizes: a shape whose element count overflows is an InvalidArgumentError.


def test_reshape_to_an_overflowing_shape_is_invalid_argument():
    r = run_fed("tf.reshape(x, shp)", "x: [1., 2., 3., 4.], shp: [2**62 + 1, 4]")
    assert r["error"] == "InvalidArgumentError"
    assert "Shape [4611686018427387905, 4] has too many elements" in r["message"]


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        (
            "tf.fill(d, 1.0)",
            "Shape [4611686018427387905,4] would have more than 2**63 - 1 elements",
        ),
        ("tf.broadcast_to(1.0, d)", "Shape [4611686018427387905,4] would have more than 2**63 - 1"),
        ("tf.random_uniform(d)", "would have more than 2**63 - 1 elements"),
        ("tf.zeros(d)", "would have more than 2**63 - 1 elements"),
    ],
)
def test_shape_arguments_that_overflow_are_invalid_argument(expr, message):
    r = run_fed(expr, "d: [2**62 + 1, 4]")
    assert r["error"] == "InvalidArgumentError"
    assert message in r["message"]


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("tf.fill(d, 1.0)", "Shape [4294967296,4294967296] would have more than 2**63 - 1"),
        ("tf.reshape(x, d)", "Shape [4294967296, 4294967296] has too many elements"),
        ("tf.broadcast_to(1.0, d)", "Shape [4294967296,4294967296] would have more than"),
        ("tf.tile(tf.ones([1, 1]), d)", "Encountered overflow when multiplying 4294967296 with"),
    ],
)
def test_two_to_the_64_elements_never_wrap_to_zero(expr, message):
    r = run_fed(expr, "x: [1., 2., 3., 4.], d: [2**32, 2**32]")
    assert r["error"] == "InvalidArgumentError", r
    assert message in r["message"]


# 2. Allocation failure is a ResourceExhaustedError naming the op, never an abort.


@pytest.mark.parametrize(
    ("expr", "feeds", "shape_text"),
    [
        ("tf.reduce_sum(tf.fill(d, 1.0))", "d: [2**40]", "shape[1099511627776] and type float"),
        ("tf.range(tf.constant(0, tf.int64), d[0])", "d: [2**40]", "type int64"),
        ("tf.tile(tf.ones([1]), d)", "d: [2**40]", "shape[1099511627776]"),
        ("tf.pad(tf.ones([1]), tf.reshape(d, [1, 2]))", "d: [0, 2**40]", "shape[1099511627777]"),
        ("tf.random_uniform(d)", "d: [2**40]", "shape[1099511627776]"),
        ("tf.broadcast_to(1.0, d)", "d: [2**40]", "shape[1099511627776]"),
        ("tf.one_hot(tf.zeros([1024], tf.int32), i1)", "i1: 2**31 - 1", "shape[1024,2147483647]"),
        (
            "tf.unsorted_segment_sum(tf.ones([2]), tf.zeros([2], tf.int64), d[0])",
            "d: [2**40]",
            "shape[1099511627776]",
        ),
        ("tf.fill(d, 'x')", "d: [2**40]", "type string"),
    ],
)
def test_impossible_allocations_are_resource_exhausted(expr, feeds, shape_text):
    r = run_fed(expr, feeds)
    assert r["error"] == "ResourceExhaustedError", r
    assert "OOM when allocating tensor with" in r["message"]
    assert shape_text in r["message"]


# 4. Shape arguments are int64 when a value does not fit in int32, as TF converts them.


@pytest.mark.parametrize(
    ("build", "shape"),
    [
        (lambda: tf.fill([2**32 + 3], 1.0), [2**32 + 3]),
        (lambda: tf.fill([2**40], 1.0), [2**40]),
        (lambda: tf.tile(tf.ones([1]), [2**32]), [2**32]),
        (lambda: tf.pad(tf.ones([1]), [[0, 2**32]]), [2**32 + 1]),
        (lambda: tf.broadcast_to(1.0, [2**32]), [2**32]),
        (lambda: tf.random_uniform([2**32]), [2**32]),
        (lambda: tf.zeros([2**32]), [2**32]),
    ],
)
def test_large_shape_arguments_keep_their_values(build, shape):
    t = build()
    assert t.shape.as_list() == shape
    assert tf.int64 in [i.dtype for i in t.op.inputs]


def test_small_shape_arguments_stay_int32():
    assert tf.fill([3], 1.0).op.inputs[0].dtype == tf.int32
    assert tf.fill([2**31 - 1], 1.0).op.inputs[0].dtype == tf.int32
    assert tf.fill([2**31], 1.0).op.inputs[0].dtype == tf.int64


def test_construction_errors_for_shapes_that_cannot_hold():
    with pytest.raises(ValueError, match="Cannot reshape a tensor"):
        tf.reshape(tf.ones([4]), [2**32, 1])
    with pytest.raises(ValueError):
        tf.transpose(tf.ones([2, 3]), perm=[2**32, 0])


# 5. Values that used to panic or give nonsense.


@pytest.mark.parametrize(
    ("start", "limit", "delta", "message"),
    [
        (0.0, float("inf"), 1.0, "Requires ((limit - start) / delta) <= 9223372036854775807"),
        (0.0, float("nan"), 1.0, "Requires start <= limit when delta > 0: 0/nan"),
        (float("nan"), 1.0, 1.0, "Requires start <= limit when delta > 0: nan/1"),
        (0.0, 1.0, float("nan"), "Requires start >= limit when delta < 0: 0/1"),
        (0.0, 1.0, 0.0, "Requires delta != 0: 0"),
        (0.0, 1e30, 1.0, "Requires ((limit - start) / delta) <= 9223372036854775807"),
        (-float("inf"), 0.0, 1.0, "Requires ((limit - start) / delta) <= 9223372036854775807"),
    ],
)
def test_range_of_non_finite_bounds_is_invalid_argument(start, limit, delta, message):
    p = [tf.placeholder(tf.float32, []) for _ in range(3)]
    out = tf.range(*p)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(out, dict(zip(p, [start, limit, delta], strict=True)))
    assert message in e.value.message


def test_range_with_an_infinite_step_is_empty_and_constant_bounds_fail_at_construction():
    p = tf.placeholder(tf.float32, [])
    with tf.Session() as sess:
        assert sess.run(tf.range(0.0, 1.0, p), {p: float("inf")}).shape == (0,)
    with pytest.raises(ValueError, match="Requires"):
        tf.range(0.0, float("inf"), 1.0)


def test_int64_ranges_are_counted_exactly():
    lo = tf.placeholder(tf.int64, [])
    out = tf.range(lo, tf.constant(2**63 - 1, tf.int64), tf.constant(2**62, tf.int64))
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out, {lo: -(2**63)}), [-(2**63), -(2**62), 0, 2**62])
        with pytest.raises(tf.errors.InvalidArgumentError, match="<= 9223372036854775807"):
            sess.run(tf.range(lo, tf.constant(2**62, tf.int64)), {lo: -(2**62)})


@pytest.mark.parametrize(("batch", "classes"), [(2, 0), (0, 0)])
def test_sparse_cross_entropy_needs_a_class(batch, classes):
    labels = tf.placeholder(tf.int32, [None])
    logits = tf.placeholder(tf.float32, [None, None])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(
                loss,
                {
                    labels: np.zeros([batch], np.int32),
                    logits: np.zeros([batch, classes], np.float32),
                },
            )
    assert (
        f"Must have at least one class, but got logits shape [{batch},{classes}]" in e.value.message
    )
    with tf.Session() as sess:
        out = sess.run(
            loss, {labels: np.zeros([0], np.int32), logits: np.zeros([0, 3], np.float32)}
        )
    assert out.shape == (0,)


_CAST_INPUT = [np.nan, np.inf, -np.inf, 1e20, -1e20, 3e9, -3e9, 2.5, -2.5]
# TensorFlow's CPU results (x86's truncating conversion).
_CAST_EXPECTED = {
    "int32": [-(2**31)] * 7 + [2, -2],
    "int64": [-(2**63)] * 5 + [3_000_000_000, -3_000_000_000, 2, -2],
    "uint8": [0, 0, 0, 0, 0, 0, 0, 2, 254],
}


@pytest.mark.parametrize("source", [np.float32, np.float64])
@pytest.mark.parametrize("target", ["int32", "int64", "uint8"])
def test_float_to_int_casts_of_nan_and_out_of_range_match_tf(source, target):
    x = tf.placeholder(tf.as_dtype(source), [None])
    with tf.Session() as sess:
        out = sess.run(tf.cast(x, getattr(tf, target)), {x: np.array(_CAST_INPUT, source)})
    np.testing.assert_array_equal(out, np.array(_CAST_EXPECTED[target]))


# 6. FileWriter.close while many threads add to a full queue: no deadlock.


def test_closing_a_file_writer_under_contention_does_not_deadlock(tmp_path):
    body = f"""
    import threading
    w = tf.summary.FileWriter({str(tmp_path)!r}, max_queue=2)
    summary = tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=1.0)]).SerializeToString()
    stop = threading.Event()
    def add():
        while not stop.is_set():
            w.add_summary(summary, 1)
    threads = [threading.Thread(target=add) for _ in range(8)]
    for t in threads:
        t.start()
    import time
    time.sleep(0.3)
    w.close()
    stop.set()
    for t in threads:
        t.join()
    report(lambda: None)
    """
    for _ in range(3):
        assert isolated(body, timeout=60)["error"] is None


# 7. A blocked dequeue in a run where another op fails is cancelled at once.


def test_a_failing_op_ends_a_run_blocked_on_a_dequeue():
    q = tf.FIFOQueue(10, [tf.int32], shapes=[()])
    a = q.dequeue()
    b = tf.Assert(False, ["x"])
    with tf.control_dependencies([b]):
        c = q.enqueue(33)
    with tf.Session() as sess:
        start = time.monotonic()
        with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed"):
            sess.run([a, c], options=tf.RunOptions(timeout_in_ms=20_000))
        assert time.monotonic() - start < 10


def test_a_failing_op_cancels_a_dequeue_in_a_parallel_run():
    # Enough independent work that the plan runs on the pool; the dequeue blocks the
    # calling thread while the failing op runs elsewhere.
    q = tf.FIFOQueue(10, [tf.float32], shapes=[()])
    a = q.dequeue()
    big = [tf.reduce_sum(tf.matmul(tf.ones([256, 256]), tf.ones([256, 256]))) for _ in range(4)]
    fails = tf.check_numerics(tf.add_n(big) * np.inf, "boom")
    with tf.Session() as sess:
        plan = sess._native.prepare([], [(a.op._id, 0), (fails.op._id, 0)], [])
        assert plan.is_parallel, "the test must exercise the parallel executor"
        start = time.monotonic()
        with pytest.raises(tf.errors.InvalidArgumentError, match="boom"):
            sess.run([a, fails], options=tf.RunOptions(timeout_in_ms=20_000))
        assert time.monotonic() - start < 10


# 9. I/O errors get TF's classes.


def test_state_file_errors_are_tf_errors(tmp_path):
    with pytest.raises(tf.errors.NotFoundError):
        tf.train.update_checkpoint_state(str(tmp_path / "missing" / "dir"), "model")
    (tmp_path / "checkpoint").mkdir()
    with pytest.raises(tf.errors.FailedPreconditionError):
        tf.train.update_checkpoint_state(str(tmp_path), "model")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint"], "no temporary file is left"
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None


def _save(prefix, **tensors):
    names = sorted(tensors)
    return io_ops.save_v2(prefix, names, [""] * len(names), [tensors[n] for n in names])


def _restore(prefix, names, dtypes):
    return io_ops.restore_v2(prefix, names, [""] * len(names), dtypes)


def test_save_into_a_file_is_failed_precondition_and_a_non_utf8_prefix_keeps_its_bytes(tmp_path):
    (tmp_path / "afile").write_text("x")
    with tf.Session() as sess:
        with pytest.raises((tf.errors.FailedPreconditionError, tf.errors.AlreadyExistsError)):
            sess.run(_save(str(tmp_path / "afile" / "model"), v=tf.constant([1.0])))
    prefix = os.fsencode(str(tmp_path)) + b"/m\xff\xfeodel"
    with tf.Session() as sess:
        sess.run(_save(tf.constant(prefix), v=tf.constant([1.0, 2.0])))
        (back,) = sess.run(_restore(tf.constant(prefix), ["v"], [tf.float32]))
    np.testing.assert_array_equal(back, [1.0, 2.0])
    assert os.path.exists(prefix + b".index")


# Damaged checkpoints: DataLossError, never a crash, an abort or wrong values.


def _write_checkpoint(prefix):
    with tf.Session() as sess:
        sess.run(
            _save(
                prefix,
                v=tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3)),
                w=tf.constant(np.arange(4, dtype=np.int64)),
                s=tf.constant([b"ab", b"cde"]),
            )
        )


@pytest.mark.parametrize("keep", [0.5, 0.0])
def test_a_truncated_data_file_is_data_loss(tmp_path, keep):
    prefix = str(tmp_path / "model")
    _write_checkpoint(prefix)
    data = prefix + ".data-00000-of-00001"
    size = os.path.getsize(data)
    with open(data, "r+b") as f:
        f.truncate(int(size * keep))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DataLossError, match="truncated"):
            sess.run(_restore(prefix, ["v", "w"], [tf.float32, tf.int64]))


def test_a_truncated_index_is_data_loss(tmp_path):
    prefix = str(tmp_path / "model")
    _write_checkpoint(prefix)
    index = prefix + ".index"
    with open(index, "r+b") as f:
        f.truncate(os.path.getsize(index) // 2)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DataLossError):
            sess.run(_restore(prefix, ["v"], [tf.float32]))


# 10. No large constants in the graph.


def test_large_zeros_and_ones_are_fills_of_a_scalar():
    z = tf.zeros([8192, 8192])
    assert z.op.type == "Fill" and z.op.name == "zeros"
    assert [i.op.name for i in z.op.inputs] == ["zeros/shape_as_tensor", "zeros/Const"]
    o = tf.ones([1000])
    assert o.op.type == "Fill" and o.op.name == "ones"
    assert tf.zeros([999]).op.type == "Const"
    assert tf.zeros([10, 10]).op.type == "Const"
    assert len(tf.get_default_graph().as_graph_def().SerializeToString()) < 10_000
    with tf.Session() as sess:
        assert sess.run(tf.reduce_sum(o)) == 1000.0


def test_zeros_structure_matches_tf(tf1):
    for lib in (tf1, tf):
        g = lib.Graph()
        with g.as_default():
            lib.zeros([8192, 8192])
            lib.ones([10, 100])
            lib.zeros([999])
        ops = [(op.name, op.type) for op in g.get_operations()]
        if lib is tf1:
            expected = ops
        else:
            assert ops == expected


# 8. Crash safety: a saver killed at any instant leaves a restorable checkpoint.

_SAVER_CHILD = """
import sys, numpy as np, ferroflow as tf
from ferroflow.ops import io_ops
prefix = sys.argv[1]
step = tf.placeholder(tf.int64, [])
big = tf.fill([1 << 18], tf.cast(step, tf.float32))
names = ["a", "b", "step"]
save = io_ops.save_v2(prefix, names, [""] * 3, [big, big * 2.0, step])
with tf.Session() as sess:
    i = 0
    while True:
        sess.run(save, {step: i})
        tf.train.update_checkpoint_state(sys.argv[2], prefix)
        if i == 0:
            print("ready", flush=True)
        i += 1
"""


def test_kill_a_saver_at_random_instants_and_the_checkpoint_always_restores(tmp_path):
    prefix = str(tmp_path / "model")
    rng = np.random.default_rng(13)
    names = ["a", "b", "step"]
    restore = _restore(prefix, names, [tf.float32, tf.float32, tf.int64])
    steps = []
    for _ in range(30):
        child = subprocess.Popen(
            [sys.executable, "-c", _SAVER_CHILD, prefix, str(tmp_path)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout.readline().strip() == "ready"
        time.sleep(float(rng.uniform(0.0, 0.15)))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        assert tf.train.latest_checkpoint(str(tmp_path)) == prefix
        with tf.Session() as sess:
            a, b, step = sess.run(restore)
        # Every tensor comes from the same save: never a mix of two.
        assert np.all(a == float(step)) and np.all(b == 2.0 * float(step))
        steps.append(int(step))
    # The next save cleans up whatever a killed one left.
    with tf.Session() as sess:
        sess.run(_save(prefix, a=tf.ones([1]), b=tf.ones([1]), step=tf.constant(-1, tf.int64)))
    tf.train.update_checkpoint_state(str(tmp_path), prefix)
    leftovers = [n for n in os.listdir(tmp_path) if "tempstate" in n or n.endswith(".prev")]
    assert leftovers == []
    assert max(steps) > 0


# Property test: shapes near the int32/int64/usize limits for every op that takes a
# shape argument. Runs hypothesis inside one capped child, so a crash fails it.

_SHAPE_SEARCH = """
from hypothesis import given, settings, strategies as st, HealthCheck
edges = [0, 1, 2, 3, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 3, 2**40, 2**62, 2**62 + 1,
         2**63 - 1]
dims = st.lists(st.sampled_from(edges), min_size=1, max_size=3)
OK_ERRORS = (tf.errors.InvalidArgumentError, tf.errors.ResourceExhaustedError, ValueError)
d = tf.placeholder(tf.int64, [None])
x = tf.placeholder(tf.float32, [None])
ops = {
    "fill": tf.fill(d, 1.0),
    "zeros": tf.zeros(d),
    "reshape": tf.reshape(x, d),
    "broadcast_to": tf.broadcast_to(1.0, d),
    "tile": tf.tile(tf.reshape(x, [1, 1, 1])[:, :, :1], tf.pad(d, [[0, 3]])[:3]),
    "pad": tf.pad(x, tf.reshape(tf.pad(d, [[0, 2]])[:2], [1, 2])),
    "random_uniform": tf.random_uniform(d),
    "range": tf.range(tf.constant(0, tf.int64), d[0]),
}
sess = tf.Session()

@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(ops)), shape=dims)
def check(name, shape):
    want = np.array(shape, dtype=np.int64)
    try:
        out = sess.run(ops[name], {d: want, x: np.ones([1], np.float32)})
    except OK_ERRORS:
        return
    n = int(np.prod([int(v) for v in out.shape], dtype=object))
    assert out.size == n

check()
report(lambda: None)
"""


def test_search_shapes_near_the_integer_limits():
    pytest.importorskip("hypothesis")
    assert isolated(_SHAPE_SEARCH, timeout=300)["error"] is None


def test_differential_errors_against_tf(tf1):
    """The same overflowing and impossible feeds raise the same classes in TF."""
    for lib in (tf1, tf):
        g = lib.Graph()
        with g.as_default():
            d = lib.placeholder(lib.int64, [None])
            fill = lib.fill(d, 1.0)
            with lib.Session(graph=g) as sess:
                with pytest.raises(lib.errors.InvalidArgumentError):
                    sess.run(fill, {d: [2**62 + 1, 4]})
                with pytest.raises(lib.errors.InvalidArgumentError):
                    sess.run(
                        lib.range(0.0, float("inf") + lib.cast(d[0], lib.float32), 1.0), {d: [0]}
                    )


def test_thread_safety_of_the_error_paths():
    """Many threads hitting allocation errors at once all get their own error."""
    d = tf.placeholder(tf.int64, [None])
    out = tf.fill(d, 1.0)
    errors = []
    with tf.Session() as sess:

        def work():
            for _ in range(20):
                try:
                    sess.run(out, {d: [2**62 + 1, 4]})
                except tf.errors.InvalidArgumentError as e:
                    errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(errors) == 80
