"""The examples train: each reaches its target within a short run."""

import importlib
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    yield
    for name in ("_data", "linear_regression", "softmax_regression", "mlp_classifier"):
        sys.modules.pop(name, None)


def test_linear_regression(examples_on_path):
    final = importlib.import_module("linear_regression").main(steps=100)
    assert final < 1e-3


def test_softmax_regression(examples_on_path):
    assert importlib.import_module("softmax_regression").main(steps=100) > 0.95


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_mlp_classifier(examples_on_path, optimizer):
    # A linear model gets about a third of the spirals right; the MLP must do far better.
    main = importlib.import_module("mlp_classifier").main
    assert main(steps=600, optimizer=optimizer) > 0.9


def test_mlp_classifier_writes_tensorboard_logs(examples_on_path, tmp_path):
    import ferroflow as ff

    # The Supervisor's services write the summaries: the first at once, at step 0.
    importlib.import_module("mlp_classifier").main(steps=100, logdir=str(tmp_path))
    (name,) = [f for f in tmp_path.iterdir() if "tfevents" in f.name]
    events = list(ff.train.summary_iterator(str(name)))
    assert events[1].HasField("graph_def") and events[2].HasField("meta_graph_def")
    tags = {v.tag for e in events if e.HasField("summary") for v in e.summary.value}
    assert {"loss", "accuracy", "hidden1_weights", "global_step/sec"} <= tags
    logs = [e.session_log.status for e in events if e.HasField("session_log")]
    assert logs[0] == ff.SessionLog.START and logs[-1] == ff.SessionLog.STOP
    assert (tmp_path / "graph.pbtxt").exists()


def test_mlp_classifier_saves_checkpoints_and_resumes(examples_on_path, tmp_path, capsys):
    import ferroflow as ff

    main = importlib.import_module("mlp_classifier").main
    main(steps=120, logdir=str(tmp_path))
    latest = ff.train.latest_checkpoint(str(tmp_path))
    assert latest == str(tmp_path / "model.ckpt-120")
    capsys.readouterr()
    ff.reset_default_graph()
    accuracy = main(steps=160, logdir=str(tmp_path))
    out = capsys.readouterr().out
    assert f"resumed from {latest} at step 120" in out
    assert ff.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-160")
    assert accuracy > 0.5
