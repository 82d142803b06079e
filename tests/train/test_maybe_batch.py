"""`tf.train.maybe_batch*` with a vector `keep_input` and `match_filenames_once`,
against TensorFlow: the batches, the op and variable names, the collections."""

import numpy as np
import pytest

import ferroflow as ff


def _maybe(lib, which):
    x = lib.constant(np.arange(8, dtype=np.float32).reshape(8, 1))
    y = lib.constant(np.arange(8, dtype=np.int64))
    keep = lib.constant([True, False, True, True, False, False, True, True])
    if which == "batch":
        return lib.train.maybe_batch([x, y], keep, 5, enqueue_many=True, capacity=20)
    if which == "batch_join":
        return lib.train.maybe_batch_join([[x, y], [x * 10, y]], keep, 5, enqueue_many=True)
    if which == "shuffle_batch":
        return lib.train.maybe_shuffle_batch([x, y], 5, 20, 2, keep, enqueue_many=True, seed=3)
    return lib.train.maybe_shuffle_batch_join(
        [[x, y], [x, y * 2]], 5, 20, 2, keep, enqueue_many=True, seed=3
    )


def _run(lib, which):
    with lib.Graph().as_default() as g:
        out = _maybe(lib, which)
        names = [t.name for t in out] + sorted(op.type for op in g.get_operations())
        with lib.Session() as s:
            coord = lib.train.Coordinator()
            threads = lib.train.start_queue_runners(s, coord)
            got = [s.run(out) for _ in range(2)]
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    return names, got


@pytest.mark.parametrize("which", ["batch", "batch_join", "shuffle_batch", "shuffle_batch_join"])
def test_vector_keep_input_enqueues_selected_rows(tf1, which):
    want_names, want = _run(tf1, which)
    got_names, got = _run(ff, which)
    assert got_names == want_names
    kept = {0, 2, 3, 6, 7}
    for batch in got:
        xs, ys = batch
        assert xs.shape == (5, 1) and ys.shape == (5,)
        assert set(ys.tolist()) <= kept | {2 * k for k in kept}
    if which == "batch":
        for a, b in zip(want, got, strict=True):
            for u, v in zip(a, b, strict=True):
                np.testing.assert_array_equal(u, v)


def _scalar_keep(lib, which):
    """Keeps the even numbers of a range producer: a scalar `keep_input` per record."""
    with lib.Graph().as_default() as g:
        i = lib.train.range_input_producer(10, shuffle=False).dequeue()
        keep = lib.equal(lib.mod(i, 2), 0)
        if which == "batch":
            out = lib.train.maybe_batch([i], keep, 3)
        else:
            out = lib.train.maybe_batch_join([[i], [i * 100]], keep, 3)
        types = sorted(op.type for op in g.get_operations())
        with lib.Session() as s:
            coord = lib.train.Coordinator()
            threads = lib.train.start_queue_runners(s, coord)
            got = [s.run(out) for _ in range(3)]
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    return types, got


@pytest.mark.parametrize("which", ["batch", "batch_join"])
def test_scalar_dynamic_keep_input_builds_tf_cond(tf1, which):
    want_types, want = _scalar_keep(tf1, which)
    got_types, got = _scalar_keep(ff, which)
    assert got_types == want_types
    assert {"Switch", "Merge"} <= set(got_types)
    for batch in got:
        values = np.ravel(batch)
        assert values.shape == (3,) and not np.any(values % 2)
    if which == "batch":
        for a, b in zip(want, got, strict=True):
            np.testing.assert_array_equal(np.ravel(a), np.ravel(b))


def test_constant_scalar_keep_input():
    with ff.Graph().as_default():
        out = ff.train.maybe_batch([ff.constant([1.0, 2.0])], True, 2, enqueue_many=True)
        with ff.Session() as s:
            coord = ff.train.Coordinator()
            threads = ff.train.start_queue_runners(s, coord)
            np.testing.assert_array_equal(
                s.run(out)[0] if isinstance(out, list) else s.run(out), [1.0, 2.0]
            )
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)


def test_match_filenames_once_as_tf(tf1, tmp_path):
    for n in ("a1.txt", "a2.txt", "b1.txt", "sub/a3.txt"):
        (tmp_path / n).parent.mkdir(exist_ok=True)
        (tmp_path / n).write_text("x")
    patterns = [
        str(tmp_path / "a*.txt"),
        str(tmp_path / "*" / "a?.txt"),
        str(tmp_path / "[ab]1.txt"),
    ]

    def run(lib, pattern):
        with lib.Graph().as_default() as g:
            v = lib.train.match_filenames_once(pattern)
            info = (
                v.op.name,
                [x.op.name for x in g.get_collection(lib.GraphKeys.LOCAL_VARIABLES)],
                g.get_collection(lib.GraphKeys.GLOBAL_VARIABLES),
            )
            with lib.Session() as s:
                s.run(lib.local_variables_initializer())
                return info, s.run(v).tolist()

    for p in [*patterns, patterns[:2], str(tmp_path / "none*")]:
        assert run(ff, p) == run(tf1, p)
