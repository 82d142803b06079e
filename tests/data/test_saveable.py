"""Iterators saved with `make_saveable_from_iterator`: a checkpoint taken mid-epoch
resumes at the next element, in a new session and a new process's graph, with
shuffles (seeded or not), maps, batches and prefetching in the pipeline."""

import numpy as np
import pytest

import ferroflow as ff

pytestmark = pytest.mark.timeout(120)


def _pipeline(lib, seed):
    ds = lib.data.Dataset.range(40).map(lambda x: x * 10)
    ds = ds.shuffle(16, seed=seed).repeat(2).batch(3).prefetch(2)
    return ds


def _build(lib, seed, one_shot=False):
    ds = _pipeline(lib, seed)
    it = ds.make_one_shot_iterator() if one_shot else ds.make_initializable_iterator()
    saveable = lib.data.experimental.make_saveable_from_iterator(it)
    lib.add_to_collection(lib.GraphKeys.SAVEABLE_OBJECTS, saveable)
    counter = lib.Variable(0, name="counter")
    bump = lib.assign_add(counter, 1)
    return it, it.get_next(), bump, lib.train.Saver()


def _drain(sess, nxt):
    out = []
    while True:
        try:
            out.append(sess.run(nxt).tolist())
        except ff.errors.OutOfRangeError:
            return out


@pytest.mark.parametrize("seed", [5, None])
@pytest.mark.parametrize("one_shot", [False, True])
def test_resumes_mid_epoch(tmp_path, seed, one_shot):
    prefix = str(tmp_path / "ckpt")
    with ff.Graph().as_default():
        it, nxt, bump, saver = _build(ff, seed, one_shot)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            if not one_shot:
                sess.run(it.initializer)
            head = [sess.run(nxt).tolist() for _ in range(9)]
            sess.run(bump)
            saver.save(sess, prefix)
            tail = _drain(sess, nxt)
    assert len(head) + len(tail) == 27
    # Every element of both epochs exactly once.
    flat = sorted(v for b in head + tail for v in b)
    assert flat == sorted(list(range(0, 400, 10)) * 2)
    with ff.Graph().as_default():
        it, nxt, _, saver = _build(ff, seed, one_shot)
        with ff.Session() as sess:
            if not one_shot:
                sess.run(it.initializer)
            saver.restore(sess, prefix)
            assert sess.run("counter:0") == 1
            assert _drain(sess, nxt) == tail


def test_restored_at_the_end_stays_at_the_end(tmp_path):
    prefix = str(tmp_path / "ckpt")
    with ff.Graph().as_default():
        it, nxt, _, saver = _build(ff, 1)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            sess.run(it.initializer)
            _drain(sess, nxt)
            saver.save(sess, prefix)
    with ff.Graph().as_default():
        it, nxt, _, saver = _build(ff, 1)
        with ff.Session() as sess:
            sess.run(it.initializer)
            saver.restore(sess, prefix)
            with pytest.raises(ff.errors.OutOfRangeError):
                sess.run(nxt)


def test_restore_needs_an_initialized_iterator(tmp_path):
    prefix = str(tmp_path / "ckpt")
    with ff.Graph().as_default():
        it, nxt, _, saver = _build(ff, 1)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            sess.run(it.initializer)
            sess.run(nxt)
            saver.save(sess, prefix)
            # A fresh session whose iterator was never initialized.
        with ff.Session() as sess:
            with pytest.raises(ff.errors.FailedPreconditionError, match="initializer"):
                saver.restore(sess, prefix)


def test_damaged_state_is_data_loss():
    with ff.Graph().as_default():
        it = ff.data.Dataset.range(3).make_initializable_iterator()
        state = ff.placeholder(ff.string, [])
        restore = ff.get_default_graph()._create_op(
            "DeserializeIterator", [it._iterator_resource, state], {}, name="restore"
        )
        with ff.Session() as sess:
            sess.run(it.initializer)
            for bad in (b"", b"garbage", b"ferroflow-iterator-state-1:\xff\xff"):
                with pytest.raises(ff.errors.DataLossError):
                    sess.run(restore, {state: bad})


def test_tf_resumes_the_same_way(tf1, tmp_path):
    """TF's own saveable iterator gives the continuation ours gives (seeded)."""
    tails = []
    for lib in (tf1, ff):
        prefix = str(tmp_path / f"{lib.__name__}.ckpt")
        with lib.Graph().as_default():
            it, nxt, _, saver = _build(lib, 5)
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                sess.run(it.initializer)
                for _ in range(7):
                    sess.run(nxt)
                saver.save(sess, prefix)
        with lib.Graph().as_default():
            it, nxt, _, saver = _build(lib, 5)
            with lib.Session() as sess:
                sess.run(it.initializer)
                saver.restore(sess, prefix)
                out = []
                while True:
                    try:
                        out.append(np.asarray(sess.run(nxt)).tolist())
                    except lib.errors.OutOfRangeError:
                        break
                tails.append(out)
    assert tails[1] == tails[0]
