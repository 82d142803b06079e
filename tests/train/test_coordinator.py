"""`tf.train.Coordinator` and `tf.train.LooperThread`: stop requests, the first error,
clean stops, `join`'s grace period, looper threads; TensorFlow's classes as the oracle
for the observable outcomes of the same calls, and random threads under hypothesis."""

import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroflow as ff

# Any of these hanging means a lost wake-up or a deadlock.
pytestmark = pytest.mark.timeout(30)


def _raised(fn, *args, **kwargs):
    """`("ok", result)` or `("raise", type name, message)`."""
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as e:
        return ("raise", type(e).__name__, str(e))


def _report(coord, ex):
    """Raises `ex` and reports it from its handler, as thread code does."""
    try:
        raise ex
    except Exception as e:
        coord.request_stop(e)


def _report_exc_info(coord, ex):
    try:
        raise ex
    except Exception:
        coord.request_stop(sys.exc_info())


class _Laggard:
    """A thread that ignores stop requests until `release()`."""

    def __init__(self, name):
        self._release = threading.Event()
        self.thread = threading.Thread(target=self._release.wait, args=(10,), name=name)
        self.thread.daemon = True
        self.thread.start()

    def release(self):
        self._release.set()
        self.thread.join(5)


@pytest.fixture
def laggards():
    made = []

    def make(name):
        made.append(_Laggard(name))
        return made[-1].thread

    yield make
    for laggard in made:
        laggard.release()


def _cooperative_thread(coord, name="worker", body=None):
    """A started thread that runs `body` (if any) then polls `should_stop`."""

    def run():
        with coord.stop_on_exception():
            if body is not None:
                body()
            while not coord.should_stop():
                coord.wait_for_stop(0.01)

    t = threading.Thread(target=run, name=name, daemon=True)
    t.start()
    return t


# --- stop flag, first error -----------------------------------------------------------


def test_should_stop_after_request_and_clear_stop():
    coord = ff.train.Coordinator()
    assert not coord.should_stop()
    assert not coord.joined
    coord.request_stop()
    assert coord.should_stop()
    coord.request_stop()  # a second request is harmless
    assert coord.should_stop()
    coord.clear_stop()
    assert not coord.should_stop()
    coord.raise_requested_exception()
    coord.join()  # nothing recorded, no threads
    assert coord.joined


def test_first_exception_is_kept_and_reraised_by_join():
    coord = ff.train.Coordinator()
    first = ValueError("first")
    _report(coord, first)
    _report(coord, TypeError("second"))
    assert coord.should_stop()
    with pytest.raises(ValueError, match="first") as info:
        coord.raise_requested_exception()
    assert info.value is first
    with pytest.raises(ValueError) as info:
        coord.join()
    assert info.value is first
    assert coord.joined


def test_exc_info_tuple_is_recorded_with_its_traceback():
    coord = ff.train.Coordinator()
    err = KeyError("k")
    _report_exc_info(coord, err)
    recorded = coord._core.error()
    assert isinstance(recorded, tuple) and recorded[0] is KeyError and recorded[1] is err
    assert recorded[2] is not None and recorded[2] is err.__traceback__
    with pytest.raises(KeyError) as info:
        coord.join()
    assert info.value is err
    # The traceback still reaches `_report_exc_info`, where the error was raised.
    assert any(tb.name == "_report_exc_info" for tb in info.traceback)


def test_an_exception_records_the_exception_being_handled():
    coord = ff.train.Coordinator()
    _report(coord, RuntimeError("boom"))
    recorded = coord._core.error()
    assert isinstance(recorded, tuple) and recorded[0] is RuntimeError


def test_request_stop_with_an_exception_outside_an_except_block_records_value_error():
    coord = ff.train.Coordinator()
    coord.request_stop(RuntimeError("not raised"))
    assert coord.should_stop()
    with pytest.raises(ValueError) as info:
        coord.join()
    assert str(info.value) == (
        "ex must be a tuple or sys.exc_info must return the current exception: (None, None, None)"
    )


def test_request_stop_with_a_bad_tuple_records_value_error():
    coord = ff.train.Coordinator()
    coord.request_stop((None, None, None))
    with pytest.raises(ValueError, match=r"ex must be a tuple or sys\.exc_info"):
        coord.raise_requested_exception()


def test_an_error_after_a_plain_stop_is_not_recorded():
    coord = ff.train.Coordinator()
    coord.request_stop()
    _report(coord, ValueError("late"))
    coord.raise_requested_exception()
    coord.join()


def test_an_error_outside_except_after_a_stop_is_ignored():
    # TF only looks at sys.exc_info() when the error is the first of a stop.
    coord = ff.train.Coordinator()
    coord.request_stop()
    coord.request_stop(RuntimeError("not raised"))
    coord.join()


def test_out_of_range_is_a_clean_stop():
    coord = ff.train.Coordinator()
    _report(coord, ff.errors.OutOfRangeError(None, None, "end of input"))
    assert coord.should_stop()
    coord.raise_requested_exception()
    coord.join()
    # A clean stop counts as no error: a later error is not recorded either.
    coord.clear_stop()
    _report_exc_info(coord, ff.errors.OutOfRangeError(None, None, "end"))
    _report(coord, ValueError("after the clean stop"))
    coord.join()


def test_subclass_of_a_clean_stop_type_is_clean():
    class MyEnd(ff.errors.OutOfRangeError):
        pass

    coord = ff.train.Coordinator()
    _report(coord, MyEnd(None, None, "end"))
    coord.join()


def test_custom_clean_stop_exception_types():
    coord = ff.train.Coordinator(clean_stop_exception_types=[StopIteration])
    _report(coord, StopIteration())
    coord.join()
    coord = ff.train.Coordinator(clean_stop_exception_types=(StopIteration,))
    _report(coord, ff.errors.OutOfRangeError(None, None, "no longer clean"))
    with pytest.raises(ff.errors.OutOfRangeError, match="no longer clean"):
        coord.join()


def test_clean_stop_types_map_to_the_native_codes():
    errors = ff.errors
    assert errors._codes_caught_by((errors.OutOfRangeError,)) == [errors.OUT_OF_RANGE]
    assert errors._codes_caught_by((StopIteration,)) == []
    assert errors._codes_caught_by((errors.OpError,)) == list(range(1, 17))
    both = errors._codes_caught_by((errors.CancelledError, errors.AbortedError))
    assert both == [errors.CANCELLED, errors.ABORTED]
    # The core is built with them.
    assert isinstance(ff.train.Coordinator()._core, ff._ferroflow.CoordinatorCore)


def test_clear_stop_forgets_the_error_and_the_joined_mark():
    coord = ff.train.Coordinator()
    _report(coord, ValueError("x"))
    with pytest.raises(ValueError):
        coord.join()
    assert coord.joined
    coord.clear_stop()
    assert not coord.should_stop()
    assert not coord.joined
    coord.raise_requested_exception()
    _report(coord, TypeError("new"))
    with pytest.raises(TypeError, match="new"):
        coord.join()


# --- after join -------------------------------------------------------------------------


def test_request_stop_after_join_raises_the_exception():
    coord = ff.train.Coordinator()
    coord.request_stop()
    coord.join()
    err = ValueError("late")
    with pytest.raises(ValueError) as info:
        _report(coord, err)
    assert info.value is err
    with pytest.raises(KeyError, match="tuple"):
        _report_exc_info(coord, KeyError("tuple"))
    # Nothing to raise: no error, a clean stop, or a plain request.
    coord.request_stop()
    _report(coord, ff.errors.OutOfRangeError(None, None, "end"))
    assert coord.should_stop()
    coord.raise_requested_exception()


def test_request_stop_after_join_without_a_stop_sets_it():
    coord = ff.train.Coordinator()
    coord.join()
    assert not coord.should_stop()
    coord.request_stop()
    assert coord.should_stop()


# --- wait_for_stop, stop_on_exception -------------------------------------------------------


def test_wait_for_stop_times_out():
    coord = ff.train.Coordinator()
    start = time.monotonic()
    assert coord.wait_for_stop(0.05) is False
    assert time.monotonic() - start >= 0.045
    assert coord.wait_for_stop(0) is False
    assert coord.wait_for_stop(-1.0) is False
    coord.request_stop()
    start = time.monotonic()
    assert coord.wait_for_stop(5.0) is True
    assert coord.wait_for_stop() is True
    assert coord.wait_for_stop(-1.0) is True
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_wait_for_stop_wakes_when_another_thread_requests_stop(timeout):
    coord = ff.train.Coordinator()
    timer = threading.Timer(0.05, coord.request_stop)
    timer.start()
    start = time.monotonic()
    try:
        assert coord.wait_for_stop(timeout) is True
    finally:
        timer.join()
    assert 0.04 <= time.monotonic() - start < 2.0


def test_wait_for_stop_releases_the_gil():
    coord = ff.train.Coordinator()
    count = [0]
    done = threading.Event()

    def spin():
        while not done.is_set():
            count[0] += 1

    t = threading.Thread(target=spin, daemon=True)
    t.start()
    try:
        before = count[0]
        time.sleep(0.1)
        during_sleep = count[0] - before
        before = count[0]
        coord.wait_for_stop(0.1)
        during_wait = count[0] - before
    finally:
        done.set()
        t.join()
    # Holding the GIL for the wait would freeze the counter for most of it.
    assert during_wait > 0.2 * during_sleep


def test_stop_on_exception_reports_and_swallows():
    coord = ff.train.Coordinator()
    with coord.stop_on_exception():
        pass
    assert not coord.should_stop()
    err = IndexError("in body")
    with coord.stop_on_exception():
        raise err
    assert coord.should_stop()
    with pytest.raises(IndexError) as info:
        coord.join()
    assert info.value is err


def test_stop_on_exception_with_a_clean_stop():
    coord = ff.train.Coordinator()
    with coord.stop_on_exception():
        raise ff.errors.OutOfRangeError(None, None, "end")
    assert coord.should_stop()
    coord.join()


# --- join -------------------------------------------------------------------------------


def test_join_waits_for_threads_that_end():
    coord = ff.train.Coordinator()
    threads = [
        threading.Thread(target=time.sleep, args=(0.05 * (i + 1),), daemon=True) for i in range(3)
    ]
    for t in threads:
        t.start()
    start = time.monotonic()
    coord.join(threads)
    assert time.monotonic() - start >= 0.1
    assert not any(t.is_alive() for t in threads)
    assert not coord.should_stop()
    assert coord.joined


def test_join_returns_when_a_stop_is_requested():
    coord = ff.train.Coordinator()
    threads = [_cooperative_thread(coord, f"w{i}") for i in range(3)]
    timer = threading.Timer(0.05, coord.request_stop)
    timer.start()
    start = time.monotonic()
    coord.join(threads, stop_grace_period_secs=5)
    timer.join()
    assert time.monotonic() - start < 3.0
    assert not any(t.is_alive() for t in threads)


def test_join_reraises_an_exception_of_a_thread():
    coord = ff.train.Coordinator()

    def fail():
        time.sleep(0.02)
        raise ZeroDivisionError("in thread")

    threads = [_cooperative_thread(coord, "failing", fail), _cooperative_thread(coord, "ok")]
    with pytest.raises(ZeroDivisionError, match="in thread"):
        coord.join(threads, stop_grace_period_secs=5)
    assert not any(t.is_alive() for t in threads)


def test_join_names_the_laggards_after_the_grace_period(laggards):
    coord = ff.train.Coordinator()
    threads = [_cooperative_thread(coord, "polite"), laggards("slow1"), laggards("slow2")]
    coord.request_stop()
    start = time.monotonic()
    with pytest.raises(RuntimeError) as info:
        coord.join(threads, stop_grace_period_secs=0.1)
    assert 0.09 <= time.monotonic() - start < 2.0
    prefix = "Coordinator stopped with threads still running: "
    message = str(info.value)
    assert message.startswith(prefix)
    assert sorted(message[len(prefix) :].split(" ")) == ["slow1", "slow2"]
    assert coord.joined


def test_join_grace_period_lets_slow_threads_finish():
    coord = ff.train.Coordinator()
    t = threading.Thread(target=time.sleep, args=(0.05,), name="finishes", daemon=True)
    t.start()
    coord.request_stop()
    coord.join([t], stop_grace_period_secs=2)
    assert not t.is_alive()


def test_join_ignore_live_threads(laggards):
    coord = ff.train.Coordinator()
    t = laggards("ignored")
    coord.request_stop()
    coord.join([t], stop_grace_period_secs=0.02, ignore_live_threads=True)
    assert t.is_alive()
    assert coord.joined


def test_join_raises_the_error_rather_than_the_laggards(laggards):
    coord = ff.train.Coordinator()
    t = laggards("lagging")
    _report(coord, ValueError("the error"))
    with pytest.raises(ValueError, match="the error"):
        coord.join([t], stop_grace_period_secs=0.02)


def test_join_with_a_negative_grace_period_does_not_wait(laggards):
    coord = ff.train.Coordinator()
    t = laggards("late")
    coord.request_stop()
    with pytest.raises(RuntimeError, match=r"still running: late$"):
        coord.join([t], stop_grace_period_secs=-1)


def test_join_waits_for_registered_threads():
    coord = ff.train.Coordinator()
    t = threading.Thread(target=time.sleep, args=(0.05,), daemon=True)
    t.start()
    coord.register_thread(t)
    coord.register_thread(t)
    assert coord._core.registered_threads() == [t, t]
    other = threading.Thread(target=time.sleep, args=(0.05,), daemon=True)
    other.start()
    coord.join([other, t])
    assert not t.is_alive() and not other.is_alive()
    # A join forgets the registered threads.
    assert coord._core.registered_threads() == []


def test_join_names_registered_laggards(laggards):
    coord = ff.train.Coordinator()
    coord.register_thread(laggards("registered"))
    coord.request_stop()
    with pytest.raises(RuntimeError, match=r"still running: registered$"):
        coord.join(stop_grace_period_secs=0.01)


class _FakeThread:
    """Thread-like, as native queue-runner threads are: `is_alive`, `join`, `name`."""

    def __init__(self, name, alive_for):
        self.name = name
        self._until = time.monotonic() + alive_for

    def is_alive(self):
        return time.monotonic() < self._until

    def join(self, timeout=None):
        time.sleep(max(0.0, min(self._until - time.monotonic(), timeout or 1e9)))


def test_join_accepts_thread_like_objects():
    coord = ff.train.Coordinator()
    coord.join([_FakeThread("quick", 0.03)])
    coord.clear_stop()
    coord.request_stop()
    with pytest.raises(RuntimeError, match=r"still running: native-runner$"):
        coord.join([_FakeThread("native-runner", 5.0)], stop_grace_period_secs=0.02)


def test_join_raises_an_exception_instance_recorded_by_the_core():
    # Native threads record an exception instance rather than an exc_info tuple.
    coord = ff.train.Coordinator()
    err = ff.errors.InternalError(None, None, "from a native thread")
    assert coord._core.request_stop(err) is False
    assert coord.should_stop()
    with pytest.raises(ff.errors.InternalError) as info:
        coord.raise_requested_exception()
    assert info.value is err
    with pytest.raises(ff.errors.InternalError, match="from a native thread"):
        coord.join()


# --- LooperThread -----------------------------------------------------------------------


def test_looper_back_to_back_with_target_args_kwargs():
    coord = ff.train.Coordinator()
    calls = []

    def target(a, b, c=None):
        calls.append((a, b, c))
        if len(calls) == 5:
            coord.request_stop()

    looper = ff.train.LooperThread(coord, None, target=target, args=(1, 2), kwargs={"c": 3})
    assert looper.daemon
    assert coord._core.registered_threads() == [looper]
    looper.start()
    coord.join(stop_grace_period_secs=5)
    assert calls == [(1, 2, 3)] * 5
    assert not looper.is_alive()


def test_looper_on_a_timer():
    coord = ff.train.Coordinator()
    times = []
    start = time.monotonic()
    looper = ff.train.LooperThread.loop(coord, 0.05, lambda: times.append(time.monotonic()))
    time.sleep(0.3)
    coord.request_stop()
    coord.join([looper], stop_grace_period_secs=5)
    # Calls at 0, 0.05, ..., 0.3 s: the first one at once, then about one per interval.
    assert times and times[0] - start < 0.1
    assert 3 <= len(times) <= 9


def test_looper_on_a_timer_stops_between_calls():
    coord = ff.train.Coordinator()
    calls = []
    looper = ff.train.LooperThread.loop(coord, 10.0, calls.append, args=("tick",))
    time.sleep(0.05)
    start = time.monotonic()
    coord.request_stop()
    coord.join([looper], stop_grace_period_secs=5)
    assert time.monotonic() - start < 2.0
    assert calls == ["tick"]


def test_looper_subclass_run_loop_start_loop_stop_loop():
    events = []

    class Counter(ff.train.LooperThread):
        def start_loop(self):
            events.append("start")

        def run_loop(self):
            events.append("run")
            if events.count("run") == 3:
                self._coord.request_stop()

        def stop_loop(self):
            events.append("stop")

    coord = ff.train.Coordinator()
    looper = Counter(coord, None)
    looper.start()
    coord.join()
    assert events == ["start", "run", "run", "run", "stop"]
    assert not looper.is_alive()


def test_looper_without_target_loops_until_stop():
    coord = ff.train.Coordinator()
    looper = ff.train.LooperThread(coord, 0.01)
    looper.start()
    time.sleep(0.03)
    assert looper.is_alive()
    coord.request_stop()
    coord.join(stop_grace_period_secs=5)
    assert not looper.is_alive()


def test_looper_with_a_stop_already_requested_never_runs():
    coord = ff.train.Coordinator()
    coord.request_stop()
    calls = []
    ff.train.LooperThread.loop(coord, None, calls.append, args=(1,))
    coord.join(stop_grace_period_secs=5)
    assert calls == []


def test_looper_exception_reaches_the_coordinator():
    events = []
    err = ArithmeticError("in target")

    class Failing(ff.train.LooperThread):
        def stop_loop(self):
            events.append("stop")

    def target():
        events.append("run")
        raise err

    coord = ff.train.Coordinator()
    others = [_cooperative_thread(coord, "other")]
    Failing(coord, None, target=target).start()
    with pytest.raises(ArithmeticError) as info:
        coord.join(others, stop_grace_period_secs=5)
    assert info.value is err
    # The exception ends the thread: stop_loop is skipped.
    assert events == ["run"]


def test_looper_loop_returns_the_started_thread():
    coord = ff.train.Coordinator()
    looper = ff.train.LooperThread.loop(coord, None, coord.request_stop)
    assert isinstance(looper, ff.train.LooperThread)
    assert looper.ident is not None
    coord.join(stop_grace_period_secs=5)
    assert coord.should_stop()
    assert not looper.is_alive()


def test_looper_bad_arguments():
    with pytest.raises(ValueError, match=r"^'coord' argument must be a Coordinator: None$"):
        ff.train.LooperThread(None, 1.0)
    coord = ff.train.Coordinator()
    message = "^'args' and 'kwargs' argument require that you also pass 'target'$"
    with pytest.raises(ValueError, match=message):
        ff.train.LooperThread(coord, 1.0, args=(1,))
    with pytest.raises(ValueError, match=message):
        ff.train.LooperThread(coord, 1.0, kwargs={"a": 1})
    with pytest.raises(ValueError, match="must be a Coordinator"):
        ff.train.LooperThread.loop("not a coordinator", None, print)
    # Empty args without a target are fine.
    ff.train.LooperThread(coord, 1.0, args=(), kwargs={})


# --- TensorFlow as the oracle -----------------------------------------------------------


def _scenario_errors(lib):
    coord = lib.train.Coordinator()
    obs = [coord.should_stop(), coord.joined]
    _report(coord, ValueError("first"))
    _report_exc_info(coord, TypeError("second"))
    obs += [coord.should_stop(), _raised(coord.raise_requested_exception)]
    obs += [_raised(coord.join), coord.joined]
    # After join: errors are raised by request_stop itself, clean stops are not.
    obs.append(_raised(_report, coord, KeyError("after join")))
    obs.append(_raised(_report_exc_info, coord, IndexError("tuple after join")))
    obs.append(_raised(_report, coord, lib.errors.OutOfRangeError(None, None, "end")))
    obs.append(_raised(coord.request_stop))
    coord.clear_stop()
    obs += [coord.should_stop(), coord.joined, _raised(coord.raise_requested_exception)]
    # A plain stop first: later errors are not recorded.
    coord.request_stop()
    _report(coord, ValueError("not recorded"))
    obs += [_raised(coord.join)]
    return obs


def _scenario_clean_stops(lib):
    obs = []
    coord = lib.train.Coordinator()
    _report(coord, lib.errors.OutOfRangeError(None, None, "end"))
    _report(coord, ValueError("after clean stop"))
    obs += [coord.should_stop(), _raised(coord.join)]
    coord = lib.train.Coordinator(clean_stop_exception_types=(StopIteration,))
    with coord.stop_on_exception():
        raise StopIteration
    obs += [coord.should_stop(), _raised(coord.join)]
    coord = lib.train.Coordinator(clean_stop_exception_types=())
    with coord.stop_on_exception():
        raise lib.errors.OutOfRangeError(None, None, "now an error")
    obs += [coord.should_stop(), _raised(coord.join)]
    return obs


def _scenario_waits(lib):
    coord = lib.train.Coordinator()
    obs = [coord.wait_for_stop(0.01), coord.wait_for_stop(-1)]
    with coord.stop_on_exception():
        pass
    obs.append(coord.should_stop())
    timer = threading.Timer(0.02, coord.request_stop)
    timer.start()
    obs.append(coord.wait_for_stop(5))
    timer.join()
    obs.append(coord.wait_for_stop(0))
    return obs


def _scenario_grace(lib, laggards):
    obs = []
    coord = lib.train.Coordinator()
    lagging = laggards("lagging")
    coord.request_stop()
    obs.append(_raised(coord.join, [lagging], stop_grace_period_secs=0.02))
    obs.append(coord.joined)
    coord.clear_stop()
    coord.request_stop()
    coord.register_thread(lagging)
    obs.append(_raised(coord.join, stop_grace_period_secs=0.02, ignore_live_threads=True))
    coord.clear_stop()
    # Registered threads are forgotten by join.
    coord.request_stop()
    obs.append(_raised(coord.join, stop_grace_period_secs=0.02))
    coord.clear_stop()
    _report(coord, ValueError("wins over laggards"))
    obs.append(_raised(coord.join, [lagging], stop_grace_period_secs=0.02))
    return obs


def _scenario_loopers(lib):
    obs = []
    coord = lib.train.Coordinator()
    calls = []

    def target(x, y=0):
        calls.append(x + y)
        if len(calls) == 3:
            coord.request_stop()

    looper = lib.train.LooperThread.loop(coord, None, target, args=(1,), kwargs={"y": 2})
    obs += [type(looper).__name__, looper.daemon]
    obs += [_raised(coord.join, stop_grace_period_secs=5), calls]

    coord = lib.train.Coordinator()

    def failing():
        raise OverflowError("looper failed")

    lib.train.LooperThread.loop(coord, 0.01, failing)
    obs.append(_raised(coord.join, stop_grace_period_secs=5))

    obs.append(_raised(lib.train.LooperThread, None, 1))
    obs.append(_raised(lib.train.LooperThread, "coord", None))
    coord = lib.train.Coordinator()
    obs.append(_raised(lib.train.LooperThread, coord, None, args=(1,)))
    obs.append(_raised(lib.train.LooperThread, coord, None, kwargs={"a": 1}))
    return obs


@pytest.mark.tf_oracle
@pytest.mark.parametrize(
    "scenario", [_scenario_errors, _scenario_clean_stops, _scenario_waits, _scenario_loopers]
)
def test_same_outcomes_as_tensorflow(tf1, scenario):
    assert scenario(ff) == scenario(tf1)


@pytest.mark.tf_oracle
def test_same_grace_period_outcomes_as_tensorflow(tf1, laggards):
    assert _scenario_grace(ff, laggards) == _scenario_grace(tf1, laggards)


@pytest.mark.tf_oracle
def test_tensorflow_fails_to_format_its_value_error(tf1):
    # TF formats the message with `% exc_info`, a 3-tuple: a TypeError escapes
    # `request_stop` and the stop is never requested. We record the intended ValueError.
    coord = tf1.train.Coordinator()
    with pytest.raises(TypeError, match="not all arguments converted"):
        coord.request_stop(RuntimeError("not raised"))
    assert not coord.should_stop()


# --- random threads ---------------------------------------------------------------------


class _WorkerError(Exception):
    pass


@settings(max_examples=25, deadline=None)
@given(
    workers=st.lists(
        st.tuples(st.integers(0, 15), st.one_of(st.none(), st.integers(0, 15))),
        min_size=1,
        max_size=6,
    ),
    grace=st.sampled_from([0.0, 0.05, 1.0]),
)
def test_random_threads_join_in_bounded_time_with_the_first_error(workers, grace):
    """Each worker does `steps` units of work unless stopped, and may raise at `fail_at`."""
    coord = ff.train.Coordinator()
    reported = []
    report_lock = threading.Lock()

    def work(index, steps, fail_at):
        try:
            for i in range(steps):
                if coord.should_stop():
                    return
                if fail_at is not None and i == fail_at:
                    raise _WorkerError(index)
                time.sleep(0.001)
        except _WorkerError as e:
            # The lock makes `reported` the order in which the coordinator saw them.
            with report_lock:
                reported.append(e)
                coord.request_stop(e)

    threads = [
        threading.Thread(target=work, args=(i, steps, fail_at), name=f"w{i}", daemon=True)
        for i, (steps, fail_at) in enumerate(workers)
    ]
    for t in threads:
        t.start()
    start = time.monotonic()
    try:
        coord.join(threads, stop_grace_period_secs=grace)
    except _WorkerError as e:
        assert reported and e is reported[0]
    else:
        assert not reported
    assert time.monotonic() - start < 5.0
    for t in threads:
        t.join(5)
    assert not any(t.is_alive() for t in threads)
    assert coord.joined
