"""`tf.train`'s queue-based input pipelines: `limit_epochs`, the producers and the
batchers, run with `start_queue_runners` and a Coordinator; TensorFlow's own
`tf.train` functions as the oracle for values (exactly, where the pipeline is
deterministic; as a multiset, where threads or a shuffling queue decide the order),
op names, static shapes, collections and errors."""

import numpy as np
import pytest

import ferroflow as ff
from conftest import build_both

# A lost wake-up or a queue that never closes must fail, not hang.
pytestmark = pytest.mark.timeout(30)

_TIMEOUT_MS = 10_000


def _values(x):
    """Fetched values as plain Python (lists, ints, bytes), dicts and lists kept."""
    if isinstance(x, dict):
        return {k: _values(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_values(v) for v in x]
    if isinstance(x, np.ndarray | np.generic):
        return x.tolist()
    return x


def _run_pipeline(lib, build, max_steps=100):
    """Builds `build(lib)` in a fresh graph, starts its queue runners and fetches the
    result until `OutOfRangeError` (or `max_steps` fetches).

    Returns (values, "OutOfRangeError" or None). The coordinator is stopped and its
    threads joined before returning; an error a thread reported is raised.
    """
    g = lib.Graph()
    with g.as_default():
        fetch = build(lib)
        opts = lib.RunOptions(timeout_in_ms=_TIMEOUT_MS)
        with lib.Session(graph=g) as sess:
            sess.run([lib.global_variables_initializer(), lib.local_variables_initializer()])
            coord = lib.train.Coordinator()
            threads = lib.train.start_queue_runners(sess, coord)
            out, end = [], None
            try:
                for _ in range(max_steps):
                    out.append(_values(sess.run(fetch, options=opts)))
            except lib.errors.OutOfRangeError:
                end = "OutOfRangeError"
            finally:
                coord.request_stop()
                coord.join(threads, stop_grace_period_secs=10)
    return out, end


def _flat(values):
    """The examples of a list of batches (each a list), sorted."""
    return sorted(v for batch in values for v in batch)


def _raised(fn):
    try:
        fn()
    except Exception as e:
        return type(e).__name__, str(e)
    return None


def _runner(lib):
    (qr,) = lib.get_collection(lib.GraphKeys.QUEUE_RUNNERS)
    return qr


# -- limit_epochs ----------------------------------------------------------------------


def test_limit_epochs_passes_the_tensor_num_epochs_times():
    t = ff.train.limit_epochs(ff.constant([1, 2]), num_epochs=2)
    assert t.op.name == "limit_epochs"
    (epochs,) = ff.local_variables()
    assert epochs.op.name == "limit_epochs/epochs"
    assert ff.global_variables() == []
    with ff.Session() as sess:
        sess.run(ff.local_variables_initializer())
        assert sess.run(t).tolist() == [1, 2]
        assert sess.run(t).tolist() == [1, 2]
        with pytest.raises(ff.errors.OutOfRangeError, match="Reached limit of 2"):
            sess.run(t)
        assert sess.run(epochs) == 2


def test_limit_epochs_without_num_epochs_is_the_tensor():
    c = ff.constant(3)
    assert ff.train.limit_epochs(c) is c
    assert ff.local_variables() == []


@pytest.mark.parametrize("num_epochs", [0, -1])
def test_limit_epochs_rejects_non_positive_num_epochs(num_epochs):
    with pytest.raises(ValueError, match=f"num_epochs must be > 0 not {num_epochs}"):
        ff.train.limit_epochs(ff.constant(1), num_epochs)


@pytest.mark.tf_oracle
def test_limit_epochs_like_tensorflow(tf1):
    def scenario(lib):
        g = lib.Graph()
        with g.as_default():
            t = lib.train.limit_epochs(lib.constant([1.0, 2.0]), 3, name="lim")
            names = sorted(op.name for op in g.get_operations())
            with lib.Session(graph=g) as sess:
                sess.run(lib.local_variables_initializer())
                values = [sess.run(t).tolist() for _ in range(3)]
                return t.name, names, values, _raised(lambda: sess.run(t))

    ff_out, tf_out = scenario(ff), scenario(tf1)
    assert ff_out[:3] == tf_out[:3]
    assert ff_out[3][0] == tf_out[3][0] == "OutOfRangeError"
    assert "Reached limit of 3" in ff_out[3][1] and "Reached limit of 3" in tf_out[3][1]


# -- producers -------------------------------------------------------------------------


def test_string_input_producer_gives_each_string_once_per_epoch():
    def build(lib):
        q = lib.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
        return q.dequeue()

    assert _run_pipeline(ff, build) == ([b"a", b"b", b"c"] * 2, "OutOfRangeError")


def test_shuffled_producer_permutes_each_epoch():
    def build(lib):
        return lib.train.range_input_producer(10, num_epochs=3, seed=4).dequeue()

    values, end = _run_pipeline(ff, build)
    assert end == "OutOfRangeError"
    epochs = [values[i : i + 10] for i in range(0, 30, 10)]
    assert all(sorted(e) == list(range(10)) for e in epochs)
    assert any(e != list(range(10)) for e in epochs)


def test_producer_without_num_epochs_cycles_forever():
    def build(lib):
        return lib.train.range_input_producer(3, shuffle=False, capacity=2).dequeue()

    assert _run_pipeline(ff, build, max_steps=10) == ([0, 1, 2] * 3 + [0], None)
    assert ff.local_variables() == []


def test_input_producer_returns_a_queue_with_a_runner_and_an_optional_summary():
    cancel = ff.no_op(name="my_cancel")
    q = ff.train.input_producer(
        ff.constant([[1, 2], [3, 4]]), shuffle=False, capacity=5, cancel_op=cancel, name="rows"
    )
    assert isinstance(q, ff.FIFOQueue)
    assert q.name == "rows/rows"
    assert [s.as_list() for s in q.shapes] == [[2]]
    qr = _runner(ff)
    assert qr.queue is q
    assert [op.name for op in qr.enqueue_ops] == ["rows/rows_EnqueueMany"]
    assert qr.cancel_op is cancel
    assert ff.get_collection(ff.GraphKeys.SUMMARIES) == []
    ff.train.input_producer(ff.constant([1, 2]), summary_name="full", capacity=4)
    (s,) = ff.get_collection(ff.GraphKeys.SUMMARIES)
    assert s.op.name == "input_producer/full"


def test_input_producer_needs_the_element_shape():
    x = ff.placeholder(ff.int32, shape=[None, None])
    with pytest.raises(ValueError, match="must have a fully defined shape"):
        ff.train.input_producer(x)
    q = ff.train.input_producer(x, element_shape=[2])
    assert [s.as_list() for s in q.shapes] == [[2]]
    with pytest.raises(ValueError):
        ff.train.input_producer(ff.constant([[1, 2]]), element_shape=[3])


def test_producer_shared_name_is_the_queue_attribute():
    q = ff.train.string_input_producer(["a"], shared_name="files")
    assert q.queue_ref.op.get_attr("shared_name") == b"files"


def test_slice_input_producer_slices_every_tensor_together():
    def build(lib):
        return lib.train.slice_input_producer(
            [lib.constant([[1, 2], [3, 4], [5, 6]]), lib.constant(["x", "y", "z"])],
            num_epochs=1,
            shuffle=False,
        )

    values, end = _run_pipeline(ff, build)
    assert values == [[[1, 2], b"x"], [[3, 4], b"y"], [[5, 6], b"z"]]
    assert end == "OutOfRangeError"


def test_string_input_producer_rejects_an_empty_list():
    with pytest.raises(ValueError, match="requires a non-null input tensor"):
        ff.train.string_input_producer([])
    with pytest.raises(ValueError, match="requires a non-null input tensor"):
        ff.train.string_input_producer(np.array([], dtype=object))


def test_string_input_producer_fails_at_run_time_on_an_empty_tensor():
    def build(lib):
        empty = lib.constant(np.array([], dtype="U1"), dtype=lib.string)
        return lib.train.string_input_producer(empty).dequeue()

    with pytest.raises(ff.errors.InvalidArgumentError, match="requires a non-null input"):
        _run_pipeline(ff, build)


def test_slice_input_producer_rejects_an_empty_list():
    with pytest.raises(ValueError, match="Expected at least one tensor"):
        ff.train.slice_input_producer([])


# -- batch -----------------------------------------------------------------------------


def _range_batch(lib, n, batch_size, **kwargs):
    i = lib.train.range_input_producer(n, num_epochs=1, shuffle=False).dequeue()
    return lib.train.batch([i], batch_size, **kwargs)


@pytest.mark.parametrize(
    ("smaller", "expected"),
    [(False, [[0, 1, 2], [3, 4, 5]]), (True, [[0, 1, 2], [3, 4, 5], [6]])],
)
def test_batch_in_order_and_the_final_batch(smaller, expected):
    def build(lib):
        return _range_batch(lib, 7, 3, allow_smaller_final_batch=smaller)

    assert _run_pipeline(ff, build) == (expected, "OutOfRangeError")


def test_batch_enqueue_many_and_dict_in_dict_out():
    def build(lib):
        x = lib.train.limit_epochs(lib.constant(np.arange(10).reshape(5, 2)), 2)
        return lib.train.batch(
            {"x": x, "y": lib.constant(["a", "b", "c", "d", "e"])},
            3,
            enqueue_many=True,
            allow_smaller_final_batch=True,
        )

    values, end = _run_pipeline(ff, build)
    assert end == "OutOfRangeError"
    assert [len(v["y"]) for v in values] == [3, 3, 3, 1]
    xs = [row for v in values for row in v["x"]]
    assert xs == np.arange(10).reshape(5, 2).tolist() * 2
    assert [y for v in values for y in v["y"]] == [b"a", b"b", b"c", b"d", b"e"] * 2


def test_batch_output_types_follow_the_input():
    one = ff.train.batch([ff.constant(1)], 2)
    assert isinstance(one, ff.Tensor)
    assert one.shape.as_list() == [2]
    two = ff.train.batch((ff.constant(1), ff.constant([1.0, 2.0])), 2)
    assert isinstance(two, list)
    assert [t.shape.as_list() for t in two] == [[2], [2, 2]]
    d1 = ff.train.batch({"k": ff.constant(1)}, 2)
    assert list(d1) == ["k"] and d1["k"].shape.as_list() == [2]
    d2 = ff.train.batch({"b": ff.constant(1), "a": ff.constant("s")}, 4, name="named")
    assert d2["a"].name == "named:0" and d2["b"].name == "named:1"


def test_batch_dynamic_pad_pads_each_batch_to_its_longest():
    def build(lib):
        i = lib.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
        words = lib.gather(lib.constant(["a", "bb", "ccc", "dddd"]), lib.range(i))
        return lib.train.batch(
            [lib.range(i), words], 2, dynamic_pad=True, allow_smaller_final_batch=True
        )

    values, end = _run_pipeline(ff, build)
    assert end == "OutOfRangeError"
    assert values == [
        [[[0], [0]], [[b""], [b"a"]]],
        [[[0, 1, 0], [0, 1, 2]], [[b"a", b"bb", b""], [b"a", b"bb", b"ccc"]]],
        [[[0, 1, 2, 3]], [[b"a", b"bb", b"ccc", b"dddd"]]],
    ]


def test_batch_shapes_must_be_defined_without_dynamic_pad():
    x = ff.placeholder(ff.int32, shape=[None])
    with pytest.raises(ValueError, match="All shapes must be fully defined"):
        ff.train.batch([x], 2)
    assert ff.train.batch([x], 2, dynamic_pad=True).shape.as_list() == [2, None]
    assert ff.train.batch([x], 2, shapes=[[3]]).shape.as_list() == [2, 3]
    y = ff.placeholder(ff.int32)
    with pytest.raises(ValueError, match="Cannot infer Tensor's rank"):
        ff.train.batch([y], 2, dynamic_pad=True)
    with pytest.raises(ValueError):
        ff.train.batch([ff.constant(1)], 2, enqueue_many=True)
    with pytest.raises(ValueError, match="Expected at least one tensor in batch"):
        ff.train.batch([], 2)


def test_batch_num_threads_enqueue_each_example_once():
    def build(lib):
        b = _range_batch(lib, 100, 7, num_threads=4, allow_smaller_final_batch=True)
        runners.extend(lib.get_collection(lib.GraphKeys.QUEUE_RUNNERS))
        return b

    runners = []
    values, end = _run_pipeline(ff, build)
    assert end == "OutOfRangeError"
    assert _flat(values) == list(range(100))
    # The same op, once per thread, as TF.
    assert [op.name for op in runners[-1].enqueue_ops] == ["batch/fifo_queue_enqueue"] * 4


def test_batch_adds_a_runner_and_its_fullness_summary():
    x = ff.placeholder_with_default(ff.constant(1.0), shape=[])
    b = ff.train.batch([x], 2, capacity=4)
    qr = _runner(ff)
    assert qr.queue.name == "batch/fifo_queue"
    (s,) = ff.get_collection(ff.GraphKeys.SUMMARIES)
    assert s.op.name == "batch/fraction_of_4_full"
    with ff.Session() as sess:
        for _ in range(3):
            sess.run(qr.enqueue_ops[0])
        summary = ff.Summary.FromString(sess.run(s))
        assert [(v.tag, v.simple_value) for v in summary.value] == [
            ("batch/fraction_of_4_full", 0.75)
        ]
        assert sess.run(b).tolist() == [1.0, 1.0]


def _sparse_example(lib):
    """Example `i` of 0..5 (one epoch, in order): a scalar, a [1]-shaped sparse tensor
    and a sparse vector of dense length `i + 1` holding `10 * i` at position `i`."""
    i = lib.train.range_input_producer(6, num_epochs=1, shuffle=False).dequeue()
    i64 = lib.cast(i, lib.int64)
    one = lib.SparseTensor([[0]], lib.stack([i]), [1])
    grow = lib.SparseTensor(
        lib.reshape(i64, [1, 1]), lib.stack([10 * i]), lib.reshape(i64 + 1, [1])
    )
    return i, one, grow


@pytest.mark.parametrize("how", ["batch", "batch_join", "shuffle_batch"])
def test_sparse_tensors_are_batched_as_tensorflow(tf1, how):
    def build(lib):
        i, one, grow = _sparse_example(lib)
        if how == "batch":
            out = lib.train.batch([i, one, grow], 2)
        elif how == "batch_join":
            out = lib.train.batch_join([[i, one, grow]], 2)
        else:
            out = lib.train.shuffle_batch(
                [i, one, grow], 2, capacity=6, min_after_dequeue=0, seed=3
            )
        assert isinstance(out[1], lib.SparseTensor) and isinstance(out[2], lib.SparseTensor)
        assert out[2].indices.shape.as_list() == [None, 2]
        assert out[2].dense_shape.shape.as_list() == [2]
        return out

    want, want_end = _run_pipeline(tf1, build)
    got, got_end = _run_pipeline(ff, build)
    assert got_end == want_end == "OutOfRangeError"
    if how != "shuffle_batch":
        assert got == want
    # Each batch's sparse parts belong to its examples, whatever the order.
    for ids, (ind1, val1, shape1), (ind2, val2, shape2) in got:
        assert shape1 == [2, 1] and ind1 == [[0, 0], [1, 0]] and val1 == ids
        assert shape2 == [2, max(ids) + 1]
        assert ind2 == [[0, ids[0]], [1, ids[1]]] and val2 == [10 * v for v in ids]
    assert sorted(v for b in got for v in b[0]) == list(range(6))


def test_sparse_batches_enqueue_many(tf1):
    def build(lib):
        sp = lib.SparseTensor([[0, 1], [2, 0], [3, 2]], [1.0, 2.0, 3.0], [4, 3])
        dense = lib.constant([0, 1, 2, 3])
        return lib.train.batch([dense, sp], 2, enqueue_many=True)

    def first_two(lib):
        g = lib.Graph()
        with g.as_default():
            out = build(lib)
            with lib.Session(graph=g) as sess:
                coord = lib.train.Coordinator()
                threads = lib.train.start_queue_runners(sess, coord)
                values = [_values(sess.run(out)) for _ in range(2)]
                coord.request_stop()
                coord.join(threads, stop_grace_period_secs=10)
        return values

    assert first_two(ff) == first_two(tf1)


def test_sparse_batch_join_needs_consistent_lists():
    with pytest.raises(ValueError, match="Inconsistent SparseTensors list"):
        ff.train.batch_join([[ff.SparseTensor([[0]], [1.0], [1])], [ff.constant([1.0])]], 2)


# -- batch_join ------------------------------------------------------------------------


def _join_sources(lib, n):
    """Three lists, each its own unshuffled producer of `n` numbers (offset by 100k)."""
    return [
        [lib.train.range_input_producer(n, num_epochs=1, shuffle=False).dequeue() + 100 * k]
        for k in range(3)
    ]


def test_batch_join_one_thread_per_list():
    def build(lib):
        b = lib.train.batch_join(_join_sources(lib, 10), 4, allow_smaller_final_batch=True)
        runners.extend(lib.get_collection(lib.GraphKeys.QUEUE_RUNNERS))
        return b

    runners = []
    values, end = _run_pipeline(ff, build)
    assert end == "OutOfRangeError"
    assert _flat(values) == sorted(v + 100 * k for k in range(3) for v in range(10))
    qr = runners[-1]
    assert [op.name for op in qr.enqueue_ops] == [
        "batch_join/fifo_queue_enqueue",
        "batch_join/fifo_queue_enqueue_1",
        "batch_join/fifo_queue_enqueue_2",
    ]


def test_batch_join_dicts():
    out = ff.train.batch_join(
        [{"a": ff.constant(1), "b": ff.constant([1.0])}, {"b": ff.constant([2.0]), "a": 3}], 5
    )
    assert sorted(out) == ["a", "b"]
    assert out["a"].shape.as_list() == [5] and out["b"].shape.as_list() == [5, 1]


def test_batch_join_checks_its_lists():
    with pytest.raises(ValueError, match="Expected at least one set of tensors"):
        ff.train.batch_join([], 2)
    with pytest.raises(TypeError, match=r"Expected types to be consistent: int32 vs\. float32"):
        ff.train.batch_join([[ff.constant(1)], [ff.constant(1.0)]], 2)
    with pytest.raises(ValueError, match="must have the same keys"):
        ff.train.batch_join([{"a": ff.constant(1)}, {"b": ff.constant(1)}], 2)
    with pytest.raises(ValueError):
        ff.train.batch_join([[ff.constant([1])], [ff.constant([1, 2])]], 2)


# -- shuffle_batch ---------------------------------------------------------------------


def test_shuffle_batch_gives_each_example_once_shuffled():
    def build(lib):
        i = lib.train.range_input_producer(60, num_epochs=1, shuffle=False).dequeue()
        return lib.train.shuffle_batch([i], 5, capacity=40, min_after_dequeue=30, seed=3)

    values, end = _run_pipeline(ff, build)
    assert end == "OutOfRangeError"
    assert all(len(v) == 5 for v in values)
    assert _flat(values) == list(range(60))
    assert [v for b in values for v in b] != list(range(60))


def test_shuffle_batch_smaller_final_batch_and_threads():
    def build(lib):
        i = lib.train.range_input_producer(23, num_epochs=1, shuffle=False).dequeue()
        runners.append(lib.get_collection_ref(lib.GraphKeys.QUEUE_RUNNERS))
        return lib.train.shuffle_batch(
            {"i": i, "s": lib.constant("x")},
            4,
            capacity=10,
            min_after_dequeue=2,
            num_threads=3,
            allow_smaller_final_batch=True,
        )

    runners = []
    values, end = _run_pipeline(ff, build)
    assert end == "OutOfRangeError"
    assert sorted(x for v in values for x in v["i"]) == list(range(23))
    assert [len(v["i"]) for v in values] == [4] * 5 + [3]
    qr = runners[0][-1]
    assert qr.queue.name == "shuffle_batch/random_shuffle_queue"
    assert len(qr.enqueue_ops) == 3


def test_shuffle_batch_fullness_summary_counts_above_min_after_dequeue():
    ff.train.shuffle_batch([ff.constant(1)], 2, capacity=10, min_after_dequeue=4)
    qr = _runner(ff)
    (s,) = ff.get_collection(ff.GraphKeys.SUMMARIES)
    assert s.op.name == "shuffle_batch/fraction_over_4_of_6_full"
    with ff.Session() as sess:
        fractions = []
        for _ in range(7):
            fractions.append(ff.Summary.FromString(sess.run(s)).value[0].simple_value)
            sess.run(qr.enqueue_ops[0])
    np.testing.assert_allclose(fractions, [0, 0, 0, 0, 0, 1 / 6, 2 / 6], rtol=1e-6)


def test_shuffle_batch_needs_capacity_above_min_after_dequeue():
    with pytest.raises(ValueError, match="capacity 5 must be bigger than min_after_dequeue 5"):
        ff.train.shuffle_batch([ff.constant(1)], 2, capacity=5, min_after_dequeue=5)


def test_shuffle_batch_join_one_thread_per_list():
    def build(lib):
        runners.append(lib.get_collection_ref(lib.GraphKeys.QUEUE_RUNNERS))
        return lib.train.shuffle_batch_join(
            _join_sources(lib, 10),
            4,
            capacity=12,
            min_after_dequeue=5,
            seed=1,
            allow_smaller_final_batch=True,
        )

    runners = []
    values, end = _run_pipeline(ff, build)
    assert end == "OutOfRangeError"
    assert _flat(values) == sorted(v + 100 * k for k in range(3) for v in range(10))
    qr = runners[0][-1]
    assert qr.queue.name == "shuffle_batch_join/random_shuffle_queue"
    assert len(qr.enqueue_ops) == 3


# -- TensorFlow as the oracle ----------------------------------------------------------


def _producer_string_epochs(lib):
    return lib.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False).dequeue()


def _producer_string_seeded(lib):
    return lib.train.string_input_producer(list("abcdefg"), num_epochs=3, seed=11).dequeue()


def _producer_graph_seed(lib):
    lib.set_random_seed(7)
    return lib.train.range_input_producer(6, num_epochs=2).dequeue()


def _producer_rows(lib):
    x = lib.placeholder_with_default(lib.constant([[1, 2], [3, 4], [5, 6]]), shape=[None, None])
    q = lib.train.input_producer(x, element_shape=[2], num_epochs=2, shuffle=False)
    return q.dequeue()


def _producer_slices_seeded(lib):
    return lib.train.slice_input_producer(
        [lib.constant(np.arange(12).reshape(6, 2)), lib.constant(list("uvwxyz"))],
        num_epochs=2,
        seed=5,
    )


def _batch_dropped_tail(lib):
    return _range_batch(lib, 11, 4)


def _batch_smaller_tail(lib):
    return _range_batch(lib, 11, 4, allow_smaller_final_batch=True)


def _batch_enqueue_many(lib):
    x = lib.train.limit_epochs(lib.constant(np.arange(12).reshape(4, 3)), 2)
    return lib.train.batch([x, x * 2], 3, enqueue_many=True, allow_smaller_final_batch=True)


def _batch_dynamic_pad(lib):
    i = lib.train.range_input_producer(6, num_epochs=1, seed=2).dequeue()
    words = lib.gather(lib.constant(["a", "bb", "ccc", "dddd", "eeeee"]), lib.range(i))
    return lib.train.batch(
        {"n": lib.range(i) * 2, "w": words, "i": i},
        4,
        dynamic_pad=True,
        allow_smaller_final_batch=True,
    )


def _batch_chained_epochs(lib):
    x = lib.train.slice_input_producer([lib.constant(np.arange(8))], num_epochs=3, seed=9)
    return lib.train.batch(x, 5)


EXACT = [
    _producer_string_epochs,
    _producer_string_seeded,
    _producer_graph_seed,
    _producer_rows,
    _producer_slices_seeded,
    _batch_dropped_tail,
    _batch_smaller_tail,
    _batch_enqueue_many,
    _batch_dynamic_pad,
    _batch_chained_epochs,
]


@pytest.mark.tf_oracle
@pytest.mark.parametrize("build", EXACT, ids=[f.__name__.strip("_") for f in EXACT])
def test_deterministic_pipelines_like_tensorflow(tf1, build):
    assert _run_pipeline(ff, build) == _run_pipeline(tf1, build)


def _threads_batch(lib):
    return _range_batch(lib, 50, 6, num_threads=3, allow_smaller_final_batch=True)


def _threads_batch_join(lib):
    return lib.train.batch_join(_join_sources(lib, 9), 3)


def _threads_shuffle_batch(lib):
    i = lib.train.range_input_producer(40, num_epochs=1, shuffle=False).dequeue()
    return lib.train.shuffle_batch(
        [i], 6, capacity=20, min_after_dequeue=10, num_threads=2, allow_smaller_final_batch=True
    )


def _threads_shuffle_batch_join(lib):
    return lib.train.shuffle_batch_join(_join_sources(lib, 7), 3, capacity=9, min_after_dequeue=4)


NONDETERMINISTIC = [
    _threads_batch,
    _threads_batch_join,
    _threads_shuffle_batch,
    _threads_shuffle_batch_join,
]


@pytest.mark.tf_oracle
@pytest.mark.parametrize(
    "build", NONDETERMINISTIC, ids=[f.__name__.strip("_") for f in NONDETERMINISTIC]
)
def test_threaded_and_shuffled_pipelines_give_tensorflows_multiset(tf1, build):
    ff_values, ff_end = _run_pipeline(ff, build)
    tf_values, tf_end = _run_pipeline(tf1, build)
    assert ff_end == tf_end == "OutOfRangeError"
    assert _flat(ff_values) == _flat(tf_values)
    # Full batches are the same in number; only the final one may be short.
    assert sorted(len(v) for v in ff_values) == sorted(len(v) for v in tf_values)


@pytest.mark.tf_oracle
def test_empty_string_tensor_fails_like_tensorflow(tf1):
    def build(lib):
        empty = lib.constant(np.array([], dtype="U1"), dtype=lib.string)
        return lib.train.string_input_producer(empty).dequeue()

    for lib in (ff, tf1):
        with pytest.raises(lib.errors.InvalidArgumentError, match="requires a non-null input"):
            _run_pipeline(lib, build)


def _graph_construction(lib):
    """Every helper once, with most of their options; returns the output tensors."""
    outs = []
    q = lib.train.string_input_producer(["a", "b"], num_epochs=2, seed=1, capacity=8)
    s = q.dequeue()
    outs.append(s)
    q = lib.train.range_input_producer(5, shuffle=False, name="ranged")
    r = q.dequeue()
    outs.append(r)
    outs += lib.train.slice_input_producer(
        [lib.constant(np.zeros((4, 2, 3), np.float32)), lib.constant([1, 2, 3, 4])],
        num_epochs=1,
        capacity=16,
    )
    x = lib.placeholder(lib.float32, shape=[None, 3])
    q = lib.train.input_producer(x, shuffle=False, summary_name="rows_full", name="rows")
    outs.append(q.dequeue())
    outs.append(lib.train.limit_epochs(r, 4))
    outs += lib.train.batch([s, r, lib.constant([[1.0, 2.0]])], 4, num_threads=2)
    outs.append(lib.train.batch([x], 3, enqueue_many=True, allow_smaller_final_batch=True))
    outs += lib.train.batch(
        {"v": lib.range(r), "s": s}, 2, dynamic_pad=True, name="padded", capacity=10
    ).values()
    outs += lib.train.batch_join([[s, r], [s, r * 2]], 3, allow_smaller_final_batch=True)
    outs += lib.train.batch_join(
        [{"a": r}, {"a": r}], 3, shapes=[[]], shared_name="bj", dynamic_pad=True
    ).values()
    outs += lib.train.shuffle_batch(
        [s, lib.constant([1, 2])], 5, 20, 10, num_threads=3, seed=4, name="sb"
    )
    outs.append(
        lib.train.shuffle_batch([x], 3, 20, 10, enqueue_many=True, allow_smaller_final_batch=True)
    )
    outs.append(lib.train.shuffle_batch_join([[s], [s]], 2, 10, 5))
    return outs


_KNOWN_EXTRA_TF_OPS = {
    # TF's `Assert` converts its data twice (the op's own `data_0` constant);
    # ferroflow's converts it once.
    "input_producer/Assert/Assert/data_0",
}


@pytest.mark.tf_oracle
def test_graphs_like_tensorflow(tf1):
    """Op names, output names, dtypes and static shapes, and the collections."""
    (g_tf, tf_out), (g_ff, ff_out) = build_both(tf1, _graph_construction)
    assert len(tf_out) == len(ff_out)
    for a, b in zip(tf_out, ff_out, strict=True):
        assert (a.name, a.dtype.name, a.shape.as_list()) == (
            b.name,
            b.dtype.name,
            b.shape.as_list(),
        )
    tf_ops = {op.name for op in g_tf.get_operations()} - _KNOWN_EXTRA_TF_OPS
    assert sorted(op.name for op in g_ff.get_operations()) == sorted(tf_ops)

    def collections(g, lib):
        keys = lib.GraphKeys
        runners = [
            (
                qr.queue.name,
                [op.name for op in qr.enqueue_ops],
                qr.close_op.name,
                qr.cancel_op.name,
                qr.queue.queue_ref.op.get_attr("shared_name"),
            )
            for qr in g.get_collection(keys.QUEUE_RUNNERS)
        ]
        return (
            runners,
            [t.name for t in g.get_collection(keys.SUMMARIES)],
            [v.name for v in g.get_collection(keys.LOCAL_VARIABLES)],
            [v.name for v in g.get_collection(keys.GLOBAL_VARIABLES)],
        )

    assert collections(g_ff, ff) == collections(g_tf, tf1)
    assert collections(g_ff, ff)[0][8][-1] == b"bj"


@pytest.mark.tf_oracle
def test_construction_errors_like_tensorflow(tf1):
    def cases(lib):
        def ph(shape, dtype=None):
            return lib.placeholder(dtype or lib.int32, shape=shape)

        calls = [
            lambda: lib.train.limit_epochs(lib.constant(1), 0),
            lambda: lib.train.input_producer(ph([None, None])),
            lambda: lib.train.string_input_producer([]),
            lambda: lib.train.slice_input_producer([]),
            lambda: lib.train.batch([], 2),
            lambda: lib.train.batch([ph([None])], 2),
            lambda: lib.train.batch([ph(None)], 2, dynamic_pad=True),
            lambda: lib.train.batch([lib.constant(1)], 2, enqueue_many=True),
            lambda: lib.train.batch_join([], 2),
            lambda: lib.train.batch_join([[lib.constant(1)], [lib.constant(1.0)]], 2),
            lambda: lib.train.batch_join([{"a": lib.constant(1)}, {"b": lib.constant(1)}], 2),
            lambda: lib.train.batch_join([[lib.constant([1])], [lib.constant([1, 2])]], 2),
            lambda: lib.train.shuffle_batch([lib.constant(1)], 2, 5, 5),
        ]
        out = []
        for call in calls:
            with lib.Graph().as_default():
                out.append(_raised(call))
        return out

    for ff_case, tf_case in zip(cases(ff), cases(tf1), strict=True):
        assert ff_case is not None and tf_case is not None
        assert ff_case[0] == tf_case[0]
        # Messages that quote TensorShape reprs differ in those reprs only.
        assert ff_case[1].split(":")[0] == tf_case[1].split(":")[0]
