"""Runs a vendored TensorFlow test file on ferroflow and on TensorFlow; compares.

    python tests/upstream/run.py saver_test.py [-k SUBSTRING] [--backend ferroflow]

Each backend runs in its own process (`tf_adapter.install` maps `tensorflow.*` for
it); each test gets a timeout, and a process that dies or hangs is restarted after the
test it was running. Prints, per backend, the passed/failed/skipped counts and every
failure (test name and the first line of its error), then the pass rate: the tests
passing on ferroflow among those passing on TensorFlow, leaving out the tests the
adapter's skip list keeps off ferroflow.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent


# -- the child: runs one backend's tests, one JSON line per event ---------------------
class _Timeout(Exception):
    pass


def _first_line(exc_info) -> str:
    etype, value, _ = exc_info
    lines = traceback.format_exception_only(etype, value)
    text = "".join(lines).strip()
    # The first lines, blank ones dropped: numpy's assertion messages start with one.
    parts = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(parts[:4])[:400] if parts else etype.__name__


class _Result(unittest.TestResult):
    def __init__(self, out):
        super().__init__()
        self._out = out
        self._emitted = False
        self._subtest_error = None

    def _emit(self, test, outcome, message=""):
        record = {"event": "done", "test": _name(test), "outcome": outcome, "message": message}
        self._out.write(json.dumps(record) + "\n")
        self._out.flush()
        self._emitted = True

    def startTest(self, test):
        super().startTest(test)
        self._emitted = False
        self._subtest_error = None
        self._out.write(json.dumps({"event": "start", "test": _name(test)}) + "\n")
        self._out.flush()

    def stopTest(self, test):
        # TF 2.x runs `run_in_graph_and_eager_modes` tests as subtests: a test whose
        # subtests failed gets neither addSuccess nor addFailure.
        if not self._emitted:
            if self._subtest_error:
                self._emit(test, "failed", self._subtest_error)
            else:
                self._emit(test, "passed")
        super().stopTest(test)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None and self._subtest_error is None:
            self._subtest_error = _first_line(err)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._emit(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._emit(test, "failed", _first_line(err))

    def addError(self, test, err):
        super().addError(test, err)
        self._emit(test, "failed", _first_line(err))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._emit(test, "skipped", reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._emit(test, "failed", "expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._emit(test, "passed")


def _name(test) -> str:
    return f"{type(test).__name__}.{test._testMethodName}"


def _tests(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _tests(t)
        else:
            yield t


def _child(args) -> int:
    sys.path.insert(0, str(HERE))
    import tf_adapter

    tf_adapter.install(args.child)
    module = tf_adapter.load_test_module(args.test_file)
    if args.child == "ferroflow":
        tf_adapter.apply_skips(module)
    done = set(args.exclude.split(",")) if args.exclude else set()
    tests = [
        t
        for t in _tests(unittest.defaultTestLoader.loadTestsFromModule(module))
        # TF's `TestCase.test_session` is a helper, not a test.
        if t._testMethodName != "test_session"
        and _name(t) not in done
        and (not args.k or args.k in _name(t))
    ]
    out = open(args.out, "a", encoding="utf-8")
    result = _Result(out)

    def on_alarm(signum, frame):
        raise _Timeout(f"test timed out after {args.timeout}s")

    signal.signal(signal.SIGALRM, on_alarm)
    cwd = os.getcwd()
    for test in tests:
        signal.alarm(args.timeout)
        try:
            test(result)
        finally:
            signal.alarm(0)
            os.chdir(cwd)
    out.close()
    return 0


# -- the parent ------------------------------------------------------------------------
def _run_backend(backend, args) -> dict[str, tuple[str, str]]:
    """{test: (outcome, message)} for one backend, restarting a child that dies."""
    results: dict[str, tuple[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "events.jsonl")
        scratch = os.path.join(tmp, "cwd")
        os.mkdir(scratch)
        for _ in range(50):  # restarts
            open(out, "w").close()
            cmd = [
                sys.executable,
                os.path.abspath(__file__),
                os.path.abspath(args.test_file)
                if os.path.exists(args.test_file)
                else args.test_file,
                "--child",
                backend,
                "--out",
                out,
                "--timeout",
                str(args.timeout),
                "--exclude",
                ",".join(results),
            ]
            if args.k:
                cmd += ["-k", args.k]
            log = os.path.join(tmp, "child.log")
            with open(log, "w") as logf:
                try:
                    # In a scratch directory: what a test writes to a relative path
                    # (ferroflow takes `file://...` for one) stays out of the caller's.
                    # Temporary files too (TF's test temp dir reads TEST_TMPDIR).
                    env = dict(os.environ, TMPDIR=scratch, TEST_TMPDIR=scratch)
                    proc = subprocess.run(
                        cmd,
                        stdout=logf,
                        stderr=subprocess.STDOUT,
                        timeout=args.total_timeout,
                        cwd=scratch,
                        env=env,
                    )
                    rc = proc.returncode
                except subprocess.TimeoutExpired:
                    rc = "timeout"
            running = None
            with open(out, encoding="utf-8") as f:
                for line in f:
                    event = json.loads(line)
                    if event["event"] == "start":
                        running = event["test"]
                    else:
                        results[event["test"]] = (event["outcome"], event["message"])
                        running = None
            if rc == 0 and running is None:
                break
            if running is None:
                with open(log, encoding="utf-8", errors="replace") as f:
                    tail = f.read()[-3000:]
                results["<module>"] = ("failed", f"child exited {rc}: {tail.strip()}")
                break
            results[running] = ("failed", f"process died or hung (exit {rc})")
    return results


def _counts(results) -> dict[str, int]:
    out = {"passed": 0, "failed": 0, "skipped": 0}
    for outcome, _ in results.values():
        out[outcome] += 1
    return out


def _report(title, results):
    c = _counts(results)
    print(f"== {title}: passed {c['passed']}, failed {c['failed']}, skipped {c['skipped']}")
    for name in sorted(results):
        outcome, message = results[name]
        if outcome == "failed":
            print(f"  FAILED {name}: {message}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("test_file", help="a file of tests/upstream/vendored, or a path")
    parser.add_argument("-k", help="only tests whose Class.method contains this")
    parser.add_argument("--backend", choices=["ferroflow", "tensorflow", "both"], default="both")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per test")
    parser.add_argument("--total-timeout", type=int, default=3600, help="seconds per process")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--exclude", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child(args)

    sys.path.insert(0, str(HERE))
    from tf_adapter import skip_reason

    backends = ["ferroflow", "tensorflow"] if args.backend == "both" else [args.backend]
    all_results = {}
    for backend in backends:
        start = time.time()
        all_results[backend] = _run_backend(backend, args)
        title = "ferroflow" if backend == "ferroflow" else "TensorFlow (compat.v1)"
        _report(
            f"{title}, {Path(args.test_file).name} ({time.time() - start:.0f}s)",
            all_results[backend],
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(all_results, f, indent=1, sort_keys=True)
    if len(backends) == 2:
        ff, tf = all_results["ferroflow"], all_results["tensorflow"]
        stem = Path(args.test_file).stem
        skips = {t for t in tf if skip_reason(stem, t)}
        tf_pass = {t for t, (o, _) in tf.items() if o == "passed"}
        counted = tf_pass - skips
        ff_pass = {t for t, (o, _) in ff.items() if o == "passed"}
        print(
            f"== pass rate: {len(ff_pass & counted)}/{len(counted)} "
            f"({100 * len(ff_pass & counted) / max(len(counted), 1):.1f}%) of the tests "
            f"passing on TensorFlow ({len(tf_pass)}, less {len(tf_pass & skips)} "
            "in the skip list)"
        )
        for name in sorted(counted - ff_pass):
            print(f"  passes on TF only: {name}: {ff.get(name, ('missing', ''))[1]}")
        for name in sorted(ff_pass - tf_pass):
            print(f"  passes on ferroflow only: {name}: TF: {tf.get(name, ('missing', ''))[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
