"""`tf.data` iterators: the TF-1.x kinds (one-shot, initializable, reinitializable,
feedable), their ops and errors against TensorFlow's; bad input reaching `get_next`
as TF's error class with the session still usable; several threads pulling from one
iterator; a full prefetch buffer on close; `MonitoredTrainingSession` ending cleanly
at the end of the data."""

import threading
import time

import numpy as np
import pytest

import ferroflow as ff

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def tf(tf1):
    return tf1


def _ops(lib, build):
    g = lib.Graph()
    with g.as_default():
        build(lib)
    return [(op.name, op.type) for op in g.get_operations() if "Iterator" in op.type]


def test_iterator_ops_are_named_as_tf(tf):
    def one_shot(lib):
        lib.data.make_one_shot_iterator(lib.data.Dataset.range(3)).get_next()

    def initializable(lib):
        it = lib.data.Dataset.range(3).make_initializable_iterator(shared_name="shared")
        it.get_next()
        it.get_next(name="named")

    def reinitializable(lib):
        it = lib.data.Iterator.from_structure(lib.int64, [])
        it.make_initializer(lib.data.Dataset.range(3))
        it.make_initializer(lib.data.Dataset.range(3), name="init2")
        it.get_next()

    for build in (one_shot, initializable, reinitializable):
        assert _ops(ff, build) == _ops(tf, build)


def _run_reinitializable(lib):
    with lib.Graph().as_default() as g:
        train = lib.data.Dataset.range(10).map(lambda x: (x, x * 2)).batch(4)
        val = lib.data.Dataset.range(100, 103).map(lambda x: (x, -x)).batch(4)
        it = lib.data.Iterator.from_structure(train.output_types, train.output_shapes)
        train_init, val_init = it.make_initializer(train), it.make_initializer(val)
        x, y = it.get_next()
        out = []
        with lib.Session(graph=g) as sess:
            for init in (train_init, val_init, train_init):
                sess.run(init)
                out.append(sess.run([x, y]))
            # Re-initializing starts again from the beginning.
            sess.run(train_init)
            out.append(sess.run(x))
        return out


def test_reinitializable_iterator(tf):
    want, got = _run_reinitializable(tf), _run_reinitializable(ff)
    for a, b in zip(want, got, strict=True):
        np.testing.assert_equal(b, a)


def _run_feedable(lib):
    with lib.Graph().as_default() as g:
        a = lib.data.Dataset.range(5).make_one_shot_iterator()
        b = lib.data.Dataset.range(10, 15).make_initializable_iterator()
        handle = lib.placeholder(lib.string, [])
        it = lib.data.Iterator.from_string_handle(handle, lib.int64, [])
        nxt = it.get_next()
        with lib.Session(graph=g) as sess:
            sess.run(b.initializer)
            ha, hb = sess.run([a.string_handle(), b.string_handle()])
            return [sess.run(nxt, {handle: h}) for h in (ha, hb, ha, hb, hb, ha)]


def test_feedable_iterator(tf):
    assert _run_feedable(ff) == _run_feedable(tf)


def test_static_errors_match_tf(tf):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            it = lib.data.Iterator.from_structure(lib.int64, lib.TensorShape([]))
            with pytest.raises(TypeError, match=r"Expected output types tf\.int64 but got dataset"):
                it.make_initializer(lib.data.Dataset.from_tensors(1.0))
            with pytest.raises(TypeError, match="Expected output shapes compatible with"):
                it.make_initializer(lib.data.Dataset.from_tensors(np.zeros(2, np.int64)))
            with pytest.raises(ValueError, match="don't have the same nested structure"):
                it.make_initializer(lib.data.Dataset.from_tensors((np.int64(1), np.int64(2))))
            with pytest.raises(ValueError, match="does not have an initializer"):
                it.initializer  # noqa: B018


def _first_error(lib, build, init=True, steps=1):
    """The class and message of the first failing `get_next`, and what comes next."""
    with lib.Graph().as_default() as g:
        it = build(lib).make_initializable_iterator()
        nxt = it.get_next()
        with lib.Session(graph=g) as sess:
            got = []
            try:
                if init:
                    sess.run(it.initializer)
                for _ in range(steps):
                    got.append(sess.run(nxt))
            except lib.errors.OpError as e:
                after = None
                try:
                    after = sess.run(nxt)
                except lib.errors.OpError as e2:
                    after = type(e2).__name__
                return type(e).__name__, e.message, got, after
    raise AssertionError("no error")


def _same_error(tf, build, text, **kw):
    want, got = _first_error(tf, build, **kw), _first_error(ff, build, **kw)
    assert got[0] == want[0], (got, want)
    assert text in got[1] and text in want[1], (got[1], want[1])
    np.testing.assert_equal(got[2], want[2])
    if not isinstance(want[3], str):
        np.testing.assert_equal(got[3], want[3])
    else:
        assert got[3] == want[3]


def test_get_next_before_initializer(tf):
    _same_error(
        tf,
        lambda lib: lib.data.Dataset.range(3),
        "GetNext() failed because the iterator has not been initialized",
        init=False,
    )


def test_bad_input_errors_match_tf(tf):
    def ragged(lib):
        return lib.data.Dataset.range(1, 4).map(lambda x: lib.fill([x], x)).batch(2)

    _same_error(tf, ragged, "", steps=2)

    def gather(lib):
        return lib.data.Dataset.range(5).map(lambda i: lib.gather(lib.constant([1, 2, 3]), i))

    # Elements 0..2 come out, 3 fails with TF's message, then the pipeline goes on (4 fails too).
    _same_error(tf, gather, "indices = 3 is not in [0, 3)", steps=5)

    def pad(lib):
        return lib.data.Dataset.range(1, 4).map(lambda x: lib.fill([x], x)).padded_batch(1, [2])

    _same_error(tf, pad, "Attempted to pad to a smaller size than the input element.", steps=3)

    def shard(lib):
        return lib.data.Dataset.range(4).shard(2, 2)

    _same_error(tf, shard, "Index must be between 0 and 1 (currently index = 2).")

    def step(lib):
        return lib.data.Dataset.range(0, 4, 0)

    _same_error(tf, step, "step must be a non-zero integer.")


def test_unbatch_mismatch(tf):
    def build(lib):
        return (
            lib.data.Dataset.range(1, 3)
            .map(lambda x: (lib.fill([1], x), lib.fill([x], x)))
            .unbatch()
        )

    _same_error(tf, build, "Input element must have the same batch size in each component", steps=3)


def test_generator_errors(tf):
    def raising():
        yield 1
        raise ValueError("bad generator")

    def build(lib):
        return lib.data.Dataset.from_generator(raising, lib.int64, [])

    cls, message, got, _ = _first_error(ff, build, steps=3)
    want = _first_error(tf, build, steps=3)
    assert (cls, got) == (want[0], want[2])
    assert "bad generator" in message

    def wrong_shape():
        yield [1, 2]

    def shaped(lib):
        return lib.data.Dataset.from_generator(wrong_shape, lib.int64, [3])

    cls, message, _, _ = _first_error(ff, shaped)
    assert cls == _first_error(tf, shaped)[0]
    assert "where an element of shape (3,) was expected" in message


def test_corrupt_tfrecord_is_data_loss(tf, tmp_path):
    path = str(tmp_path / "c.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(3):
            w.write(b"record %d" % i)
    data = bytearray((tmp_path / "c.tfrecord").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "c.tfrecord").write_bytes(bytes(data))
    want = _first_error(tf, lambda lib: lib.data.TFRecordDataset(path), steps=3)
    got = _first_error(ff, lambda lib: lib.data.TFRecordDataset(path), steps=3)
    assert got[0] == want[0] == "DataLossError"
    assert got[2] == want[2]


def test_session_usable_after_errors():
    with ff.Graph().as_default() as g:
        ds = ff.data.Dataset.range(6).map(lambda i: ff.gather(ff.constant([1, 2, 3]), i))
        ds = ds.apply(ff.data.experimental.ignore_errors())
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        with ff.Session(graph=g) as sess:
            sess.run(it.initializer)
            assert [sess.run(nxt) for _ in range(3)] == [1, 2, 3]
            with pytest.raises(ff.errors.OutOfRangeError):
                sess.run(nxt)
            sess.run(it.initializer)
            assert sess.run(nxt) == 1


def test_threads_share_one_iterator():
    with ff.Graph().as_default() as g:
        ds = ff.data.Dataset.range(2000).map(lambda x: x * 3, num_parallel_calls=2).prefetch(8)
        nxt = ds.make_one_shot_iterator().get_next()
        seen = []
        lock = threading.Lock()
        with ff.Session(graph=g) as sess:

            def pull():
                while True:
                    try:
                        v = sess.run(nxt)
                    except ff.errors.OutOfRangeError:
                        return
                    with lock:
                        seen.append(int(v))

            threads = [threading.Thread(target=pull) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    assert sorted(seen) == [3 * i for i in range(2000)]


def test_close_with_full_prefetch_buffer_does_not_hang():
    with ff.Graph().as_default() as g:
        ds = ff.data.Dataset.range(10**9).map(lambda x: x + 1).prefetch(16)
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        sess = ff.Session(graph=g)
        sess.run(it.initializer)
        assert sess.run(nxt) == 1
        time.sleep(0.2)  # the producer fills the buffer and waits
        start = time.monotonic()
        sess.close()
        assert time.monotonic() - start < 5


def test_close_while_get_next_waits_on_a_slow_generator():
    release = threading.Event()

    def slow():
        yield 1
        release.wait(30)
        yield 2

    with ff.Graph().as_default() as g:
        ds = ff.data.Dataset.from_generator(slow, ff.int64, []).prefetch(1)
        nxt = ds.make_one_shot_iterator().get_next()
        sess = ff.Session(graph=g)
        assert sess.run(nxt) == 1
        errors = []

        def blocked():
            try:
                sess.run(nxt)
            except ff.errors.OpError as e:
                errors.append(type(e).__name__)

        t = threading.Thread(target=blocked)
        t.start()
        time.sleep(0.3)
        sess.close()
        t.join(10)
        release.set()
        assert not t.is_alive()
        assert errors == ["CancelledError"]


def test_monitored_training_session_ends_at_end_of_data(tmp_path):
    with ff.Graph().as_default():
        x = np.linspace(-1, 1, 64, dtype=np.float32)[:, None]
        y = 3 * x + 1
        ds = ff.data.Dataset.from_tensor_slices((x, y)).shuffle(64, seed=1).batch(8).repeat(5)
        bx, by = ds.make_one_shot_iterator().get_next()
        w = ff.Variable(ff.zeros([1, 1]))
        b = ff.Variable(ff.zeros([1]))
        loss = ff.reduce_mean(ff.square(ff.matmul(bx, w) + b - by))
        step = ff.train.get_or_create_global_step()
        train = ff.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
        steps = 0
        with ff.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path)) as sess:
            while not sess.should_stop():
                sess.run(train)
                steps += 1
        assert steps == 40


def test_meta_graph_round_trip_with_import_scope(tmp_path):
    """Dataset functions and one-shot datasets name tensors: an import scope renames them."""
    with ff.Graph().as_default():
        ds = ff.data.Dataset.range(10).map(lambda x: x * 2).filter(lambda x: x > 2).batch(3)
        ds.make_initializable_iterator().get_next()
        ff.data.Dataset.range(3).map(lambda x: x + 1).make_one_shot_iterator().get_next(name="o")
        ff.train.export_meta_graph(str(tmp_path / "m.meta"))
    with ff.Graph().as_default() as g:
        ff.train.import_meta_graph(str(tmp_path / "m.meta"), import_scope="imp")
        with ff.Session(graph=g) as sess:
            sess.run("imp/MakeIterator")
            assert sess.run("imp/IteratorGetNext:0").tolist() == [4, 6, 8]
            assert [sess.run("imp/o:0") for _ in range(3)] == [1, 2, 3]


def test_map_function_that_raises(tf):
    def bad(x):
        if x == 2:
            raise ValueError("no twos")
        return x * 10

    def build(lib):
        return lib.data.Dataset.range(4).map(lambda x: lib.py_func(bad, [x], lib.int64))

    want, got = _first_error(tf, build, steps=4), _first_error(ff, build, steps=4)
    assert got[0] == want[0]
    assert "no twos" in got[1]
    assert got[2] == want[2] == [0, 10]
    # The pipeline goes on after the failing element, as TF's.
    assert got[3] == want[3] == 30


def test_compat_v1_spellings():
    with ff.Graph().as_default():
        ds = ff.compat.v1.data.Dataset.range(3)
        one_shot = ff.compat.v1.data.make_one_shot_iterator(ds).get_next()
        it = ff.compat.v1.data.make_initializable_iterator(ds)
        nxt = it.get_next()
        assert ff.data.experimental.AUTOTUNE == -1
        assert ff.compat.v1.data.get_output_types(ds) == ff.int64
        with ff.Session() as sess:
            sess.run(it.initializer)
            assert [sess.run(one_shot) for _ in range(3)] == [0, 1, 2]
            assert [sess.run(nxt) for _ in range(3)] == [0, 1, 2]
