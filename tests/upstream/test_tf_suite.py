"""TensorFlow's own tests on ferroflow (`run.py`): per file, no fewer pass than recorded.

The floors (table.py's `FLOORS`) count the tests passing on ferroflow of those passing on
TensorFlow (tf_passing.json) when they were last raised (README.md); raise them as
ferroflow catches up. TensorFlow is not needed: only the ferroflow side runs. With
`FERROFLOW_UPSTREAM_RESULTS` set, each file's results are kept there (`.ci/run` prints
the per-file table from them with table.py).
"""

import os
from pathlib import Path

import pytest
from table import FLOORS, passing, run_ferroflow


@pytest.mark.parametrize("test_file", sorted(FLOORS))
def test_no_fewer_tf_tests_pass_than_recorded(test_file, tmp_path):
    keep = os.environ.get("FERROFLOW_UPSTREAM_RESULTS")
    out_dir = Path(keep) if keep else tmp_path
    out_dir.mkdir(parents=True, exist_ok=True)
    results = run_ferroflow(test_file, out_dir / f"{test_file}.json")
    failed = sorted(name for name, (outcome, _) in results.items() if outcome != "passed")
    assert passing(test_file, results) >= FLOORS[test_file], failed
