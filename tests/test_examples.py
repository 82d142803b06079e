"""The examples train: each reaches its target within a short run."""

import importlib
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
# Example modules that import `ferroflow as tf` themselves, by the example using them.
DEPENDENCIES = {"cifar10_train": ("cifar10_input",)}


@pytest.fixture
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    yield
    for name in (
        "_data",
        "linear_regression",
        "softmax_regression",
        "mlp_classifier",
        "mnist_fully_connected_feed",
        "cifar10_input",
        "cifar10_train",
        "mnist_layers_supervisor",
        "lstm_mnist_rows",
        "char_rnn",
        "ptb_word_lm",
        "mnist_dataset",
        "tfrecord_pipeline",
        "mnist_saved_model",
    ):
        sys.modules.pop(name, None)


@pytest.fixture
def flags_example(examples_on_path, monkeypatch):
    """Imports an example that defines `tf.app.flags` and parses `--name=value` flags.

    The examples define flags of the same names (`train_dir`, `max_steps`, ...), as
    programs each run in their own process do; `load.unload()` (and the end of the
    test) removes the flags an example defined and forgets the module, so the next one
    can define its own. `load(name, tf=module)` runs the example's
    `import ferroflow as tf` on another module (TensorFlow's compat.v1).
    """
    from absl import flags

    before, was_parsed = set(flags.FLAGS), flags.FLAGS.is_parsed()
    loaded = []

    def load(name, tf=None, **flag_values):
        with monkeypatch.context() as patch:
            if tf is not None:
                patch.setitem(sys.modules, "ferroflow", tf)
            module = importlib.import_module(name)
        loaded.append(name)
        flags.FLAGS([name] + [f"--{k}={v}" for k, v in flag_values.items()])
        return module

    def unload():
        for name in set(flags.FLAGS) - before:
            delattr(flags.FLAGS, name)
        for name in loaded:
            sys.modules.pop(name, None)
            # Modules an example imported for itself (cifar10_input) go with it.
            for dependency in DEPENDENCIES.get(name, ()):
                sys.modules.pop(dependency, None)
        loaded.clear()

    load.unload = unload
    yield load
    unload()
    if not was_parsed:
        flags.FLAGS.unparse_flags()


def _events(logdir):
    import ferroflow as ff

    (path,) = [f for f in Path(logdir).iterdir() if "tfevents" in f.name]
    return list(ff.train.summary_iterator(str(path)))


def _scalars(events, tag):
    return [(e.step, v.simple_value) for e in events for v in e.summary.value if v.tag == tag]


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


@pytest.mark.parametrize("rnn", ["static", "dynamic", "bidirectional"])
def test_lstm_mnist_rows(examples_on_path, rnn):
    # The TF-1.x RNN tutorial: an LSTM reading digits row by row (chance is 0.1).
    assert importlib.import_module("lstm_mnist_rows").main(steps=120, rnn=rnn) > 0.8


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_char_rnn(examples_on_path, cell):
    # Uniform guessing over the text's 24 characters costs ln(24) = 3.2 nats.
    first, last = importlib.import_module("char_rnn").main(steps=150, cell=cell, sample=False)
    assert first > 3.0 and last < 1.0


def test_ptb_word_lm(examples_on_path):
    # Perplexity falls from the vocabulary's 200 toward the chain's 4.
    first, last = importlib.import_module("ptb_word_lm").main(steps=200)
    assert first > 100 and last < 12


def test_mlp_classifier_writes_tensorboard_logs(examples_on_path, tmp_path):
    import ferroflow as ff

    # The Supervisor's services write the summaries: the first at once, at step 0.
    importlib.import_module("mlp_classifier").main(steps=100, logdir=str(tmp_path))
    (name,) = [f for f in tmp_path.iterdir() if "tfevents" in f.name]
    events = list(ff.train.summary_iterator(str(name)))
    assert events[1].HasField("graph_def") and events[2].HasField("meta_graph_def")
    tags = {v.tag for e in events if e.HasField("summary") for v in e.summary.value}
    assert {
        "loss",
        "accuracy",
        "hidden1_weights",
        "decision_regions/image",
        "global_step/sec",
    } <= tags
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


def test_mnist_fully_connected_feed(flags_example, tmp_path, capsys):
    import ferroflow as ff

    example = flags_example(
        "mnist_fully_connected_feed",
        train_dir=tmp_path,
        max_steps=300,
        summary_every=50,
        checkpoint_every=150,
    )
    validation, test = example.run_training()
    assert validation > 0.8 and test > 0.8  # chance is 0.1
    out = capsys.readouterr().out
    assert out.count("Validation Data Eval:") == 2 and "Precision @ 1: " in out
    assert ff.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-299")
    events = _events(tmp_path)
    assert events[1].HasField("graph_def")
    losses = _scalars(events, "loss")
    assert [step for step, _ in losses] == [0, 50, 100, 150, 200, 250]
    assert losses[-1][1] < losses[0][1] / 2
    graph = ff.GraphDef.FromString(events[1].graph_def)
    names = {n.name for n in graph.node}
    assert {"hidden1/weights", "hidden2/biases", "softmax_linear/weights"} <= names


def test_mnist_fully_connected_feed_command_line(tmp_path):
    # tf.app.run parses the flags from argv; main() empties --train_dir with tf.gfile.
    import ferroflow as ff

    train_dir = tmp_path / "logs"
    train_dir.mkdir()
    (train_dir / "stale.txt").write_text("from an earlier run")
    package_root = str(Path(ff.__file__).resolve().parent.parent)
    pythonpath = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
    script = str(EXAMPLES / "mnist_fully_connected_feed.py")
    flags = ["--max_steps=120", f"--train_dir={train_dir}", "--batch_size=50", "--hidden1=64"]
    result = subprocess.run(
        [sys.executable, script, *flags],
        env={**os.environ, "PYTHONPATH": pythonpath},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Step 100: loss = " in result.stdout
    assert "Num examples: 1000" in result.stdout  # the test set, in batches of 50
    assert "Saved checkpoint" in result.stderr  # tf.logging, at INFO
    assert not (train_dir / "stale.txt").exists()
    assert ff.train.latest_checkpoint(str(train_dir)) == str(train_dir / "model.ckpt-119")
    reader = ff.train.load_checkpoint(str(train_dir))
    assert reader.get_variable_to_shape_map()["hidden1/weights"] == [784, 64]


def _epoch_lines(out):
    """The (step, loss, validation accuracy) that mnist_dataset prints per epoch."""
    pattern = r"Epoch \d+: step (\d+), loss = ([\d.]+), validation accuracy = ([\d.]+)"
    return [(int(s), float(loss), float(acc)) for s, loss, acc in re.findall(pattern, out)]


def test_mnist_dataset(flags_example, capsys):
    # from_tensor_slices + shuffle + batch through an initializable iterator fed the
    # arrays; each epoch runs until OutOfRangeError (5000 examples: 50 batches of 100).
    example = flags_example("mnist_dataset", num_epochs=3)
    assert example.run_training() > 0.9  # the test set, through the reinitializable iterator
    out = capsys.readouterr().out
    epochs = _epoch_lines(out)
    assert [step for step, _, _ in epochs] == [50, 100, 150]
    assert epochs[-1][1] < epochs[0][1] / 2 and epochs[-1][2] > 0.9
    train_accuracy = float(re.search(r"Training accuracy: ([\d.]+)", out)[1])
    assert train_accuracy > 0.9


@pytest.mark.tf_oracle
def test_mnist_dataset_on_tensorflow(flags_example, capsys, tf1):
    # The same program on TensorFlow: with the graph seed, the same initial weights and
    # shuffle order, so the same losses and accuracies (up to rounding).
    accuracy = flags_example("mnist_dataset", num_epochs=2).run_training()
    epochs = _epoch_lines(capsys.readouterr().out)
    flags_example.unload()
    tf_accuracy = flags_example("mnist_dataset", tf=tf1, num_epochs=2).run_training()
    tf_epochs = _epoch_lines(capsys.readouterr().out)
    assert tf_accuracy == pytest.approx(accuracy, abs=0.01)
    assert [s for s, _, _ in tf_epochs] == [s for s, _, _ in epochs] == [50, 100]
    for (_, loss, acc), (_, tf_loss, tf_acc) in zip(epochs, tf_epochs, strict=True):
        assert tf_loss == pytest.approx(loss, abs=0.01) and tf_acc == pytest.approx(acc, abs=0.01)


def _tfrecord_run(example, data_dir, capsys):
    """Runs tfrecord_pipeline for 8 epochs; returns the loss, test accuracy and output."""
    loss, accuracy = example.run_training()
    out = capsys.readouterr().out
    assert "Wrote 2000 examples to " + str(data_dir / "train.tfrecords") in out
    assert "Done training for 8 epochs, 160 steps." in out  # 20 batches of 100 an epoch
    return loss, accuracy, out


def test_tfrecord_pipeline(flags_example, tmp_path, capsys):
    import ferroflow as ff

    data_dir, train_dir = tmp_path / "data", tmp_path / "logs"
    example = flags_example(
        "tfrecord_pipeline", data_dir=data_dir, train_dir=train_dir, num_epochs=8
    )
    loss, accuracy, out = _tfrecord_run(example, data_dir, capsys)
    # The one-shot iterator's OutOfRangeError ended training; FinalOpsHook read the test file.
    assert loss < 1.0 and accuracy > 0.8  # chance is 0.1
    assert "Step 160: loss = " in out and "Test accuracy: " in out
    records = list(ff.python_io.tf_record_iterator(str(data_dir / "train.tfrecords")))
    assert len(records) == 2000
    feature = ff.train.Example.FromString(records[0]).features.feature
    assert set(feature) == {"height", "width", "depth", "label", "image_raw"}
    assert feature["height"].int64_list.value == [28]
    assert len(feature["image_raw"].bytes_list.value[0]) == 784
    # The session's hooks ended as at a last step: the checkpoint of the final step.
    assert ff.train.latest_checkpoint(str(train_dir)) == str(train_dir / "model.ckpt-160")
    variables = dict(ff.train.list_variables(str(train_dir)))
    assert variables["mlp/hidden/weights"] == [784, 128]
    assert variables["global_step"] == []
    losses = _scalars(_events(train_dir), "loss")
    assert [step for step, _ in losses] == list(range(1, 160, 20))  # as TF stamps them


@pytest.mark.tf_oracle
def test_tfrecord_pipeline_on_tensorflow(flags_example, tmp_path, capsys, tf1):
    import ferroflow as ff

    dirs = {lib: (tmp_path / lib / "data", tmp_path / lib / "logs") for lib in ("ff", "tf")}
    results = {}
    for lib, module in (("ff", None), ("tf", tf1)):
        data_dir, train_dir = dirs[lib]
        example = flags_example(
            "tfrecord_pipeline", tf=module, data_dir=data_dir, train_dir=train_dir, num_epochs=8
        )
        results[lib] = _tfrecord_run(example, data_dir, capsys)
        flags_example.unload()
    # TensorFlow trains as well on the same program (its initial weights differ: its
    # make_one_shot_iterator draws an op seed, ferroflow's does not).
    for lib in ("ff", "tf"):
        loss, accuracy, _ = results[lib]
        assert loss < 1.0 and accuracy > 0.8, lib
    # Both wrote the same examples (a map's serialization order varies, so compare parsed).
    paths = [str(dirs[lib][0] / "train.tfrecords") for lib in ("ff", "tf")]
    records = [list(ff.python_io.tf_record_iterator(path)) for path in paths]
    parsed = [[ff.train.Example.FromString(r) for r in rs] for rs in records]
    assert parsed[0] == parsed[1]
    # The checkpoints hold the same variables (Adam's slots and powers included).
    ff_variables = dict(ff.train.list_variables(str(dirs["ff"][1])))
    assert dict(tf1.train.list_variables(str(dirs["tf"][1]))) == ff_variables
    assert tf1.train.latest_checkpoint(str(dirs["tf"][1])).endswith("model.ckpt-160")
    steps = [[step for step, _ in _scalars(_events(dirs[lib][1]), "loss")] for lib in ("ff", "tf")]
    assert steps[0] == steps[1]


def _cifar10_run(example, train_dir, ea):
    """Trains and evaluates; returns the summary tags and the checkpoint's variables."""
    example.maybe_generate_data()
    example.train()
    precision = example.evaluate()
    acc = ea.EventAccumulator(
        str(train_dir), size_guidance={k: 0 for k in ea.DEFAULT_SIZE_GUIDANCE}
    )
    acc.Reload()
    evaluation = ea.EventAccumulator(str(train_dir / "eval"))
    evaluation.Reload()
    return precision, acc, evaluation


@pytest.mark.tf_oracle
def test_cifar10_train(flags_example, tmp_path, capsys, tf1):
    import ferroflow as ff

    ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    # 300 steps: the four-class loss sits on its ln(4) plateau for the first 100-200
    # steps (how long varies with the shuffling threads' interleaving), then falls.
    flags = {"max_steps": 300, "save_summaries_steps": 25, "data_dir": tmp_path / "data"}
    example = flags_example("cifar10_train", train_dir=tmp_path / "ff", **flags)
    precision, acc, evaluation = _cifar10_run(example, tmp_path / "ff", ea)
    # The moving averages of the weights, restored by evaluate(), classify the
    # held-out images (four classes: chance is 0.25).
    assert precision > 0.55
    out = capsys.readouterr().out
    assert "step 0, loss = " in out and "step 290, loss = " in out  # the _LoggerHook
    latest = ff.train.latest_checkpoint(str(tmp_path / "ff"))
    assert latest == str(tmp_path / "ff" / "model.ckpt-300")
    variables = dict(ff.train.list_variables(latest))
    assert variables["conv1/weights"] == [5, 5, 3, 16]

    # TensorBoard's own reader shows what the MonitoredTrainingSession's hooks wrote:
    # the loss averages, learning rate, activation and gradient histograms, images.
    tags = acc.Tags()
    assert tags["graph"] is True
    scalars = set(tags["scalars"])
    assert {"total_loss_1", "total_loss__raw_", "learning_rate", "global_step/sec"} <= scalars
    assert "conv1/conv1/conv1/sparsity" in scalars
    histograms = set(tags["histograms"])
    assert {"conv1/conv1/conv1/activations", "local3/weights/gradients"} <= histograms
    assert "images/image/0" in tags["images"]
    averaged = acc.Scalars("total_loss_1")
    assert [s.step for s in averaged] == list(range(1, 300, 25))  # as TF's hook stamps them
    raw = [s.value for s in acc.Scalars("total_loss__raw_")]
    assert sum(raw[-3:]) < sum(raw[:3])
    # The loss averages update (the train op's gradients run after them, as TF's do).
    # The summary reads the average's snapshot from before the step's update (TF's
    # aliasing read may see the update), so the first is the initial zero.
    later = [s.value for s in averaged[1:]]
    assert min(later) > 0.0 and later[-1] < max(later)
    ((step, value),) = [(s.step, s.value) for s in evaluation.Scalars("Precision @ 1")]
    assert step == 300 and value == pytest.approx(precision)

    # The same program on TensorFlow writes the same tags and checkpoint variables.
    flags_example.unload()
    example = flags_example("cifar10_train", tf=tf1, train_dir=tmp_path / "tf", **flags)
    tf_precision, tf_acc, _ = _cifar10_run(example, tmp_path / "tf", ea)
    assert tf_precision > 0.55
    for kind in ("scalars", "histograms", "images"):
        assert sorted(tags[kind]) == sorted(tf_acc.Tags()[kind])
    assert [s.step for s in tf_acc.Scalars("total_loss_1")] == [s.step for s in averaged]
    tf_latest = tf1.train.latest_checkpoint(str(tmp_path / "tf"))
    assert dict(tf1.train.list_variables(tf_latest)) == variables


def test_mnist_layers_supervisor(flags_example, tmp_path):
    import ferroflow as ff

    if not hasattr(ff, "layers"):
        pytest.skip("tf.layers is not in ferroflow yet")
    example = flags_example(
        "mnist_layers_supervisor",
        train_dir=tmp_path,
        max_steps=100,
        eval_every=50,
        summary_every=25,
    )
    assert example.run_training() > 0.8  # chance is 0.1
    assert ff.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-100")
    variables = dict(ff.train.list_variables(str(tmp_path)))
    assert variables["conv2d/kernel"] == [5, 5, 1, 8]
    assert variables["dense_1/kernel"] == [128, 10]
    events = _events(tmp_path)
    losses = _scalars(events, "loss")
    assert [step for step, _ in losses] == [0, 25, 50, 75]
    assert losses[-1][1] < losses[0][1] / 2
    assert [step for step, _ in _scalars(events, "validation_accuracy")] == [50, 100]

    # Run again with more steps: the Supervisor restores the checkpoint and goes on.
    ff.app.flags.FLAGS.max_steps = 150
    ff.reset_default_graph()
    assert example.run_training() > 0.8
    assert ff.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-150")


def _export_mnist(flags_example, tmp_path, capsys, tf=None, base="export"):
    """Runs mnist_saved_model (on `tf`) for 300 iterations as version 2 under `tmp_path/base`.

    Returns:
        (the export directory, the test accuracy it printed).
    """
    example = flags_example(
        "mnist_saved_model", tf=tf, training_iteration=300, model_version=2, work_dir=tmp_path
    )
    example.main(["mnist_saved_model.py", str(tmp_path / base)])
    out = capsys.readouterr().out
    export_dir = tmp_path / base / "2"
    assert f"Exporting trained model to {export_dir}" in out
    assert "Done exporting!" in out
    return export_dir, float(re.search(r"test accuracy ([\d.]+)", out)[1])


def _mnist_test_set():
    """The test images and labels of the example's generated data."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        from _data import read_data_sets
    finally:
        sys.path.remove(str(EXAMPLES))
    test = read_data_sets().test
    return test.images, test.labels


def _serialized_examples(lib, images):
    """Each image as a serialized `tf.train.Example` (its pixels in the float feature x)."""
    train = lib.train
    return [
        train.Example(
            features=train.Features(
                feature={"x": train.Feature(float_list=train.FloatList(value=image))}
            )
        ).SerializeToString()
        for image in images
    ]


# Both libraries' float32 softmax scores are within about 1.1e-5 (relative) of the
# float64 ones on the test set (the 784-term dot products are summed in other orders),
# so they agree to a little more than that with each other.
SCORES_RTOL = 3e-5


def _serve(lib, export_dir, serialized, images):
    """Loads the export with `lib`'s loader in a fresh graph and runs both signatures.

    Returns:
        (classes and scores of `serving_default` for `serialized`, scores of
        `predict_images` for `images`).
    """
    with lib.Graph().as_default() as g, lib.Session(graph=g) as sess:
        meta = lib.saved_model.loader.load(sess, [lib.saved_model.SERVING], str(export_dir))
        classify = meta.signature_def["serving_default"]
        predict = meta.signature_def["predict_images"]
        classes, scores = sess.run(
            [classify.outputs["classes"].name, classify.outputs["scores"].name],
            {classify.inputs["inputs"].name: serialized},
        )
        predicted = sess.run(
            predict.outputs["scores"].name, {predict.inputs["images"].name: images}
        )
    return (classes, scores), predicted


def test_mnist_saved_model(flags_example, tmp_path, capsys):
    import ferroflow as ff

    export_dir, accuracy = _export_mnist(flags_example, tmp_path, capsys)
    assert accuracy > 0.9  # chance is 0.1
    assert (export_dir / "saved_model.pb").is_file()
    assert (export_dir / "variables" / "variables.index").is_file()
    assert (export_dir / "variables" / "variables.data-00000-of-00001").is_file()
    variables = dict(ff.train.list_variables(str(export_dir / "variables" / "variables")))
    assert variables == {"weights": [784, 10], "biases": [10]}
    (meta,) = ff.saved_model.loader.parse_saved_model(str(export_dir)).meta_graphs
    assert list(meta.meta_info_def.tags) == ["serve"]
    methods = {key: s.method_name for key, s in meta.signature_def.items()}
    assert methods == {
        "serving_default": "tensorflow/serving/classify",
        "predict_images": "tensorflow/serving/predict",
    }
    assert "saved_model_main_op" in meta.collection_def

    # Loaded in a fresh graph, the signatures classify the test set as the example did.
    images, labels = _mnist_test_set()
    (classes, scores), predicted = _serve(
        ff, export_dir, _serialized_examples(ff, images[:100]), images
    )
    assert np.mean(predicted.argmax(1) == labels) == pytest.approx(accuracy, abs=1e-6)
    # Classes best first, as the class names the table initialized by the main op gives.
    want = np.argsort(-predicted[:100], axis=1, kind="stable").astype(str).astype(bytes)
    np.testing.assert_array_equal(classes, want)
    np.testing.assert_allclose(scores, -np.sort(-predicted[:100], axis=1), rtol=1e-6)


@pytest.mark.tf_oracle
def test_mnist_saved_model_loads_in_tensorflow(flags_example, tmp_path, capsys, tf1, monkeypatch):
    import ferroflow as ff

    export_dir, _ = _export_mnist(flags_example, tmp_path, capsys)
    images, _ = _mnist_test_set()
    serialized = _serialized_examples(tf1, images)  # built with TensorFlow's protos
    (tf_classes, tf_scores), tf_predicted = _serve(tf1, export_dir, serialized, images)
    (ff_classes, ff_scores), ff_predicted = _serve(ff, export_dir, serialized, images)
    np.testing.assert_array_equal(tf_classes, ff_classes)
    np.testing.assert_allclose(tf_scores, ff_scores, rtol=SCORES_RTOL)
    np.testing.assert_allclose(tf_predicted, ff_predicted, rtol=SCORES_RTOL)

    # The same program on TensorFlow (whose 2.x has no tf.contrib: its lookup_ops in
    # its place) exports the same signatures: the same tensors, by name and dtype.
    from tensorflow.python.ops import lookup_ops

    flags_example.unload()
    monkeypatch.setattr(tf1, "contrib", types.SimpleNamespace(lookup=lookup_ops), raising=False)
    tf_export_dir, tf_accuracy = _export_mnist(flags_example, tmp_path, capsys, tf1, "tf")
    assert tf_accuracy > 0.9

    def signatures(path):
        (meta,) = ff.saved_model.loader.parse_saved_model(str(path)).meta_graphs
        return {
            key: (
                signature.method_name,
                {k: (v.name, v.dtype) for k, v in signature.inputs.items()},
                {k: (v.name, v.dtype) for k, v in signature.outputs.items()},
            )
            for key, signature in meta.signature_def.items()
        }

    assert signatures(export_dir) == signatures(tf_export_dir)


_TF2_PREDICT = r"""
import sys
import numpy as np
import tensorflow as tf
model = tf.saved_model.load(sys.argv[1], tags=["serve"])
predict = model.signatures["predict_images"]
scores = predict(images=tf.constant(np.load(sys.argv[2])))["scores"]
np.save(sys.argv[3], scores.numpy())
"""


@pytest.mark.tf_oracle
def test_mnist_saved_model_tf2_eager_load(flags_example, tmp_path, capsys):
    # In a subprocess: the tf1 fixture turns TF's v2 behaviour off for the whole process.
    import ferroflow as ff

    pytest.importorskip("tensorflow")
    export_dir, _ = _export_mnist(flags_example, tmp_path, capsys)
    images, _ = _mnist_test_set()
    np.save(tmp_path / "images.npy", images)
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            _TF2_PREDICT,
            str(export_dir),
            str(tmp_path / "images.npy"),
            str(tmp_path / "scores.npy"),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
        timeout=240,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    _, ff_predicted = _serve(ff, export_dir, [], images)
    np.testing.assert_allclose(np.load(tmp_path / "scores.npy"), ff_predicted, rtol=SCORES_RTOL)
