"""TensorFlow's tests on ferroflow, per file: the pass-rate table, checked against floors.

    python tests/upstream/table.py                      # every vendored file
    python tests/upstream/table.py session_test.py      # some of them
    python tests/upstream/table.py --results DIR        # keep (and reuse) the results there

Runs the ferroflow side of each file (`run.py --backend ferroflow`, one file at a time),
prints a Markdown table (tests passing on TensorFlow 2.21's compat.v1, those of them
passing on ferroflow, rate, floor) and exits 1 if a file falls below its floor.
`TF_PASSING` (tf_passing.json) is the denominator, recorded from `run.py --backend
tensorflow` (TensorFlow is not needed here); `FLOORS` are the counts of those passing on
ferroflow when last raised.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from tf_adapter import VENDORED  # noqa: E402

# The tests of each file passing on TensorFlow 2.21 (compat.v1, v2 behaviour off), less
# the adapter's skip list: the denominator, recorded with `run.py --backend tensorflow`
# (2026-11-29, sessions 25-26; re-record it when a file is added or the adapter changes).
TF_PASSING: dict[str, list[str]] = json.loads((HERE / "tf_passing.json").read_text())

# Of those, passing on ferroflow when last raised: no file may fall below its floor.
FLOORS: dict[str, int] = {
    "checkpoint_management_test.py": 12,
    "control_flow_ops_py_test.py": 178,
    "control_flow_ops_test.py": 63,
    "convolutional_test.py": 95,
    "coordinator_test.py": 18,
    "core_test.py": 37,
    "fifo_queue_test.py": 72,
    "gradients_test.py": 51,
    "image_ops_test.py": 161,
    "init_ops_test.py": 86,
    "moving_averages_test.py": 21,
    "normalization_test.py": 43,
    "optimizer_test.py": 11,
    "parsing_ops_test.py": 43,
    "pooling_test.py": 19,
    "queue_runner_test.py": 16,
    "saver_test.py": 70,
    # Two below the count: its parallel-run tests time threads on a loaded machine.
    "session_test.py": 82,
    "sparse_ops_test.py": 47,
    "sparse_tensor_test.py": 23,
    "tensor_array_ops_test.py": 58,
    "warm_starting_util_test.py": 29,
    "writer_test.py": 34,
}


def run_ferroflow(test_file: str, out: Path, timeout: int = 900) -> dict[str, list[str]]:
    """`run.py TEST_FILE --backend ferroflow --json OUT`: {test: [outcome, message]}."""
    cmd = [sys.executable, str(HERE / "run.py"), test_file, "--backend", "ferroflow"]
    proc = subprocess.run(
        [*cmd, "--json", str(out)], capture_output=True, text=True, timeout=timeout, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"run.py {test_file} exited {proc.returncode}:\n{proc.stderr}")
    return json.loads(out.read_text())["ferroflow"]


def passing(test_file: str, results: dict[str, list[str]]) -> int:
    """Tests of `test_file` passing on ferroflow, of those passing on TensorFlow."""
    ok = {name for name, (outcome, _) in results.items() if outcome == "passed"}
    return len(ok.intersection(TF_PASSING[test_file]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="vendored test files (default: all)")
    parser.add_argument(
        "--results", help="a directory for run.py --json files: those there are reused"
    )
    args = parser.parse_args()
    files = args.files or sorted(TF_PASSING)
    unknown = [f for f in files if f not in TF_PASSING or not (VENDORED / f).exists()]
    if unknown:
        parser.error(f"not a recorded vendored test file: {', '.join(unknown)}")

    print("| file | passing on TF | passing on ferroflow | rate | floor |")
    print("|---|---:|---:|---:|---:|")
    below = []
    total_tf = total_ff = 0
    with tempfile.TemporaryDirectory() as tmp:
        for test_file in files:
            out = Path(args.results or tmp, f"{test_file}.json")
            out.parent.mkdir(parents=True, exist_ok=True)
            results = (
                json.loads(out.read_text())["ferroflow"]
                if out.exists()
                else run_ferroflow(test_file, out)
            )
            n_ff, n_tf = passing(test_file, results), len(TF_PASSING[test_file])
            floor = FLOORS[test_file]
            total_tf += n_tf
            total_ff += n_ff
            mark = "" if n_ff >= floor else " **below floor**"
            print(f"| {test_file} | {n_tf} | {n_ff} | {100 * n_ff / n_tf:.1f}% | {floor}{mark} |")
            if n_ff < floor:
                below.append(test_file)
    print(f"| **total** | {total_tf} | {total_ff} | {100 * total_ff / total_tf:.1f}% | |")
    if below:
        print(f"\nbelow their floor: {', '.join(below)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    sys.exit(main())
