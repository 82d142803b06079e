"""`AsyncCheckpointSaverHook` (seed 002): what it leaves against TF's synchronous hook,
saves off the training thread, snapshots, deferral, errors, listeners and recovery."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import ferroflow as ff


class _Listener:
    """Builds a `CheckpointSaverListener` of `lib` recording its calls in `log`.

    `gate`, if given, is waited for at the start of each `before_save` (so a test can
    hold a save in flight); `stop_after` makes `after_save` ask to stop at that step.
    """

    def __new__(cls, lib, log, gate=None, stop_after=None, fail_at=None):
        class Listener(lib.train.CheckpointSaverListener):
            in_flight = 0
            most_in_flight = 0

            def begin(self):
                log.append("begin")

            def before_save(self, session, step):
                Listener.in_flight += 1
                Listener.most_in_flight = max(Listener.most_in_flight, Listener.in_flight)
                if gate is not None:
                    assert gate.wait(30)
                if fail_at is not None and int(step) >= fail_at:
                    Listener.in_flight -= 1
                    raise RuntimeError(f"listener failed at {int(step)}")
                log.append(("before_save", int(step)))

            def after_save(self, session, step):
                Listener.in_flight -= 1
                log.append(("after_save", int(step)))
                return stop_after is not None and int(step) >= stop_after

            def end(self, session, step):
                log.append(("end", int(step)))

        return Listener()


def _model(lib):
    """`w` counts the steps (w == global_step + 1 after every step)."""
    step = lib.train.get_or_create_global_step()
    w = lib.Variable(np.ones([3], np.float32), name="w")
    train = lib.group(w.assign_add(lib.ones([3])), step.assign_add(1))
    return train


def _checkpoints(directory):
    """{step: (w, global_step)} of every checkpoint in `directory`."""
    out = {}
    for name in os.listdir(directory):
        if name.endswith(".index"):
            prefix = os.path.join(directory, name[: -len(".index")])
            reader = ff.train.NewCheckpointReader(prefix)
            out[int(name.split("-")[1].split(".")[0])] = (
                reader.get_tensor("w").tolist(),
                int(reader.get_tensor("global_step")),
            )
    return out


def _checkpoint_events(directory):
    steps = []
    for name in sorted(n for n in os.listdir(directory) if "tfevents" in n):
        for e in ff.train.summary_iterator(os.path.join(directory, name)):
            if e.WhichOneof("what") == "session_log":
                steps.append((e.step, e.session_log.status))
    return steps


def _wait_for_saves(hook):
    if isinstance(hook, ff.train.AsyncCheckpointSaverHook):
        hook._join_save_thread()


def _train(lib, directory, hook_class, steps, log, **hook_args):
    with lib.Graph().as_default():
        train = _model(lib)
        hook = hook_class(directory, listeners=[_Listener(lib, log)], **hook_args)
        with lib.train.MonitoredSession(hooks=[hook]) as sess:
            _wait_for_saves(hook)
            for _ in range(steps):
                sess.run(train)
                _wait_for_saves(hook)
    lib.summary.FileWriterCache.clear()


def test_when_each_save_finishes_in_time_it_leaves_what_tfs_hook_leaves(tf1, tmp_path):
    # TF 2.x no longer ships the async hook; its synchronous CheckpointSaverHook is the
    # reference for the files, the state file, the checkpoints' values, the
    # CHECKPOINT events and the listener's calls.
    results = {}
    for lib, hook_class in (
        (tf1, tf1.train.CheckpointSaverHook),
        (ff, ff.train.AsyncCheckpointSaverHook),
    ):
        directory = str(tmp_path / lib.__name__.split(".")[0])
        log = []
        _train(lib, directory, hook_class, 7, log, save_steps=3)
        files = sorted(n for n in os.listdir(directory) if "tfevents" not in n)
        state = ff.train.get_checkpoint_state(directory)
        results[lib] = (
            files,
            [os.path.basename(p) for p in state.all_model_checkpoint_paths],
            _checkpoints(directory),
            _checkpoint_events(directory),
            log,
        )
    assert results[ff] == results[tf1]
    files, paths, values, _, log = results[ff]
    assert paths == ["model.ckpt-0", "model.ckpt-3", "model.ckpt-6", "model.ckpt-7"]
    assert values[3] == ([4.0] * 3, 3) and values[7] == ([8.0] * 3, 7)
    assert log[0] == "begin" and log[-1] == ("end", 7)
    assert "graph.pbtxt" in files


def test_is_exposed_as_in_tf_and_checks_its_arguments(tmp_path):
    assert ff.contrib.tpu.AsyncCheckpointSaverHook is ff.train.AsyncCheckpointSaverHook
    assert issubclass(ff.train.AsyncCheckpointSaverHook, ff.train.CheckpointSaverHook)
    with pytest.raises(ValueError, match="both saver and scaffold"):
        ff.train.AsyncCheckpointSaverHook(
            str(tmp_path), save_steps=1, saver=object(), scaffold=object()
        )
    with pytest.raises(ValueError, match="every_secs or every_steps"):
        ff.train.AsyncCheckpointSaverHook(str(tmp_path))
    with pytest.raises(ValueError, match="both every_secs and every_steps"):
        ff.train.AsyncCheckpointSaverHook(str(tmp_path), save_secs=1, save_steps=1)


def test_training_goes_on_while_a_save_is_held_and_a_due_save_is_deferred(tmp_path):
    # The first save is held in `before_save` (on the save thread) while training
    # runs ten steps: no step waits for it, no second save starts, and none is
    # queued; once it finishes, the next step saves its own, newer values.
    gate = threading.Event()
    log = []
    listener = _Listener(ff, log, gate=gate)
    with ff.Graph().as_default():
        train = _model(ff)
        hook = ff.train.AsyncCheckpointSaverHook(str(tmp_path), save_steps=1, listeners=[listener])
        with ff.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(10):
                sess.run(train)
            assert log == ["begin"]  # the step-0 save is still held
            assert hook._save_in_flight()
            gate.set()
            hook._join_save_thread()
            sess.run(train)  # step 11: the deferred save takes this step
            hook._join_save_thread()
            sess.run(train)  # step 12 is due again and saved
    saved = [entry[1] for entry in log if entry[0] == "after_save"]
    assert saved == [0, 11, 12]
    assert type(listener).most_in_flight == 1
    assert sorted(_checkpoints(str(tmp_path))) == [0, 11, 12]


def test_a_checkpoint_holds_the_values_of_the_step_it_was_taken_at(tmp_path):
    # The save of step 2 is held while training runs on: the variables it writes are a
    # copy-on-write snapshot taken at step 2, not the values when the bytes are written.
    gate = threading.Event()
    gate.set()
    log = []
    with ff.Graph().as_default():
        train = _model(ff)
        hook = ff.train.AsyncCheckpointSaverHook(
            str(tmp_path), save_steps=2, listeners=[_Listener(ff, log, gate=gate)]
        )
        with ff.train.MonitoredSession(hooks=[hook]) as sess:
            hook._join_save_thread()
            gate.clear()
            for _ in range(6):
                sess.run(train)  # the save of step 2 starts and waits at the gate
            assert sess.run("w:0").tolist() == [7.0] * 3
            gate.set()
    values = _checkpoints(str(tmp_path))
    assert values[2] == ([3.0] * 3, 2)
    assert values[6] == ([7.0] * 3, 6)


def test_a_failed_background_save_is_raised_by_the_next_run(tmp_path):
    directory = tmp_path / "ckpt"
    runs = []
    with ff.Graph().as_default():
        train = _model(ff)
        hook = ff.train.AsyncCheckpointSaverHook(str(directory), save_steps=1)
        with pytest.raises(ValueError, match=r"Parent directory of .* doesn't exist"):
            with ff.train.MonitoredSession(hooks=[hook]) as sess:
                hook._join_save_thread()
                # The checkpoint directory disappears under training: the next save
                # fails on its thread, and the run after it raises that error.
                for name in os.listdir(directory):
                    os.remove(directory / name)
                os.rmdir(directory)
                directory.write_text("not a directory")
                for _ in range(3):
                    sess.run(train)
                    runs.append(1)
                    hook._join_save_thread()
    assert len(runs) == 1


def test_a_listener_error_reaches_the_training_loop(tmp_path):
    log = []
    with ff.Graph().as_default():
        train = _model(ff)
        hook = ff.train.AsyncCheckpointSaverHook(
            str(tmp_path), save_steps=1, listeners=[_Listener(ff, log, fail_at=1)]
        )
        with pytest.raises(RuntimeError, match="listener failed at 1"):
            with ff.train.MonitoredSession(hooks=[hook]) as sess:
                hook._join_save_thread()
                for _ in range(5):
                    sess.run(train)
                    hook._join_save_thread()
    assert ("after_save", 0) in log and ("end", 5) not in log


def test_a_listener_may_ask_to_stop(tmp_path):
    log = []
    with ff.Graph().as_default():
        train = _model(ff)
        hook = ff.train.AsyncCheckpointSaverHook(
            str(tmp_path), save_steps=2, listeners=[_Listener(ff, log, stop_after=4)]
        )
        with ff.train.MonitoredSession(hooks=[hook]) as sess:
            hook._join_save_thread()
            steps = 0
            while not sess.should_stop():
                sess.run(train)
                hook._join_save_thread()
                steps += 1
    assert steps == 5  # saved at 4; the run after it sees the request
    assert log[-1] == ("end", 5)


def test_end_waits_for_the_save_in_flight_then_saves_the_last_step(tmp_path):
    gate = threading.Event()
    log = []
    with ff.Graph().as_default():
        train = _model(ff)
        hook = ff.train.AsyncCheckpointSaverHook(
            str(tmp_path), save_steps=100, listeners=[_Listener(ff, log, gate=gate)]
        )
        threading.Timer(0.3, gate.set).start()
        with ff.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(3):
                sess.run(train)
    assert log == [
        "begin",
        ("before_save", 0),
        ("after_save", 0),
        ("before_save", 3),
        ("after_save", 3),
        ("end", 3),
    ]


def test_save_cadence_by_seconds(tmp_path):
    log = []
    with ff.Graph().as_default():
        train = _model(ff)
        hook = ff.train.AsyncCheckpointSaverHook(
            str(tmp_path), save_secs=3600, listeners=[_Listener(ff, log)]
        )
        with ff.train.MonitoredSession(hooks=[hook]) as sess:
            hook._join_save_thread()
            for _ in range(4):
                sess.run(train)
            hook._timer._last_triggered_time -= 3600  # an hour passes
            sess.run(train)
            hook._join_save_thread()
            sess.run(train)
    saved = [entry[1] for entry in log if entry[0] == "after_save"]
    assert saved == [0, 5, 6]  # first, after the hour, and the last step at the end


def test_end_is_not_called_when_a_run_fails_but_is_on_out_of_range(tmp_path):
    for error, ends in (
        (ff.errors.OutOfRangeError(None, None, "input done"), True),
        (KeyError("x"), False),
    ):
        log = []
        directory = tmp_path / str(ends)

        class Fail(ff.train.SessionRunHook):
            def before_run(self, run_context, error=error):
                if run_context.session.run("global_step:0") == 2:
                    raise error

        with ff.Graph().as_default():
            train = _model(ff)
            hook = ff.train.AsyncCheckpointSaverHook(
                str(directory), save_steps=100, listeners=[_Listener(ff, log)]
            )
            with pytest.raises(type(error)) if not ends else _nothing():
                with ff.train.MonitoredSession(hooks=[hook, Fail()]) as sess:
                    hook._join_save_thread()
                    for _ in range(5):
                        sess.run(train)
            hook._join_save_thread()
        assert (("end", 2) in log) == ends
        assert sorted(_checkpoints(str(directory))) == ([0, 2] if ends else [0])


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_preempted_monitored_training_session_recovers_from_the_async_checkpoint(tmp_path):
    # A run raising AbortedError: the session is recreated, restored from the latest
    # checkpoint the async hook wrote (after_create_session runs again and saves the
    # restored step), the step is retried, and training finishes.
    log = []
    attempts = []

    class Preempt(ff.train.SessionRunHook):
        def before_run(self, run_context):
            attempts.append(1)
            if len(attempts) == 5:
                raise ff.errors.AbortedError(None, None, "worker preempted")

    with ff.Graph().as_default():
        train = _model(ff)
        hook = ff.train.AsyncCheckpointSaverHook(
            str(tmp_path), save_steps=3, listeners=[_Listener(ff, log)]
        )
        with ff.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path),
            save_checkpoint_secs=None,
            save_summaries_steps=None,
            log_step_count_steps=None,
            chief_only_hooks=[hook],
            hooks=[Preempt(), ff.train.StopAtStepHook(last_step=8)],
        ) as sess:
            hook._join_save_thread()
            while not sess.should_stop():
                sess.run(train)
                hook._join_save_thread()
    saved = [entry[1] for entry in log if entry[0] == "after_save"]
    # Saved at 0 and 3; preempted at step 4's run, restored to 3 (saved again on the
    # new session), then 6, and the last step at the end.
    assert saved == [0, 3, 3, 6, 8]
    assert _checkpoints(str(tmp_path))[8] == ([9.0] * 3, 8)


def test_begin_twice_does_not_change_the_graph(tmp_path):
    with ff.Graph().as_default() as g:
        _model(ff)
        hook = ff.train.AsyncCheckpointSaverHook(str(tmp_path), save_steps=1)
        hook.begin()
        n = len(g.get_operations())
        hook.begin()
        assert len(g.get_operations()) == n
