"""The `checkpoint` state file, against TensorFlow's bytes and readers."""

import os

import pytest

import ferroflow as ff


def _touch_checkpoint(prefix):
    for suffix in (".index", ".data-00000-of-00001"):
        with open(prefix + suffix, "wb"):
            pass


def test_state_file_text_and_reading_back(tmp_path):
    d = str(tmp_path)
    paths = [os.path.join(d, f"model.ckpt-{s}") for s in (5, 10, 15)]
    ff.train.update_checkpoint_state(d, paths[-1], paths[1:])
    text = (tmp_path / "checkpoint").read_text()
    assert text == (
        f'model_checkpoint_path: "{paths[2]}"\n'
        f'all_model_checkpoint_paths: "{paths[1]}"\n'
        f'all_model_checkpoint_paths: "{paths[2]}"\n'
    )
    state = ff.train.get_checkpoint_state(d)
    assert state.model_checkpoint_path == paths[2]
    assert list(state.all_model_checkpoint_paths) == paths[1:]
    assert ff.train.latest_checkpoint(d) is None, "no .index file yet"
    _touch_checkpoint(paths[2])
    assert ff.train.checkpoint_exists(paths[2])
    assert ff.train.latest_checkpoint(d) == paths[2]
    assert [p.name for p in tmp_path.iterdir() if "tmp" in p.name] == []


def test_relative_paths_and_errors(tmp_path):
    d = str(tmp_path)
    ff.train.update_checkpoint_state(
        d,
        os.path.join(d, "model.ckpt-2"),
        [os.path.join(d, "model.ckpt-1")],
        save_relative_paths=True,
    )
    assert (tmp_path / "checkpoint").read_text() == (
        'model_checkpoint_path: "model.ckpt-2"\n'
        'all_model_checkpoint_paths: "model.ckpt-1"\n'
        'all_model_checkpoint_paths: "model.ckpt-2"\n'
    )
    state = ff.train.get_checkpoint_state(d)
    assert state.model_checkpoint_path == os.path.join(d, "model.ckpt-2")
    with pytest.raises(RuntimeError, match="conflicts with path used for checkpoint state"):
        ff.train.update_checkpoint_state(d, os.path.join(d, "checkpoint"))
    with pytest.raises(ValueError, match="must match checkpoint paths"):
        ff.train.generate_checkpoint_state_proto(
            d, "a", ["a"], all_model_checkpoint_timestamps=[1.0, 2.0]
        )
    (tmp_path / "checkpoint").write_text("all_model_checkpoint_paths: 'x'\n")
    with pytest.raises(ValueError, match="Invalid checkpoint state"):
        ff.train.get_checkpoint_state(d)
    (tmp_path / "checkpoint").write_text("not a proto {{{")
    assert ff.train.get_checkpoint_state(d) is None
    assert ff.train.get_checkpoint_state(str(tmp_path / "nowhere")) is None


@pytest.mark.tf_oracle
@pytest.mark.parametrize("relative", [False, True])
def test_same_files_as_tensorflow_and_reads_its_files(tf1, tmp_path, relative):
    for who in ("ours", "theirs"):
        (tmp_path / who).mkdir()
    ours, theirs = str(tmp_path / "ours"), str(tmp_path / "theirs")

    def args(d):
        paths = [os.path.join(d, f"model.ckpt-{s}") for s in (10, 15)]
        return d, paths[-1], paths

    from tensorflow.python.checkpoint import checkpoint_management as tf_cm

    ff.train.update_checkpoint_state(*args(ours), save_relative_paths=relative)
    tf_cm.update_checkpoint_state_internal(*args(theirs), save_relative_paths=relative)
    want = (tmp_path / "theirs" / "checkpoint").read_text()
    assert (tmp_path / "ours" / "checkpoint").read_text() == want.replace(theirs, ours)
    state = ff.train.get_checkpoint_state(theirs)
    tf_state = tf1.train.get_checkpoint_state(theirs)
    assert state.model_checkpoint_path == tf_state.model_checkpoint_path
    assert list(state.all_model_checkpoint_paths) == list(tf_state.all_model_checkpoint_paths)
    # TensorFlow reads ours.
    assert tf1.train.get_checkpoint_state(ours).model_checkpoint_path.endswith("model.ckpt-15")


@pytest.mark.tf_oracle
def test_tfs_checkpoint_management_functions_are_in_checkpoint_management(tf1, tmp_path):
    from tensorflow.python.checkpoint import checkpoint_management as tf_cm

    from ferroflow.train import checkpoint_management as ff_cm
    from ferroflow.train import saver as ff_saver

    for name in ("meta_graph_filename", "remove_checkpoint", "get_checkpoint_mtimes"):
        assert getattr(ff_saver, name) is getattr(ff_cm, name)
    for path in ("m.ckpt-3", "m-?????-of-00002", "m-00001-of-00002"):
        assert ff_cm.meta_graph_filename(path) == tf_cm.meta_graph_filename(path)
    prefixes = {}
    for who, cm in (("ours", ff_cm), ("theirs", tf_cm)):
        prefix = str(tmp_path / who / "model.ckpt-1")
        os.makedirs(os.path.dirname(prefix))
        _touch_checkpoint(prefix)
        (tmp_path / who / "model.ckpt-1.meta").write_bytes(b"")
        (tmp_path / who / "other").write_bytes(b"")
        assert len(cm.get_checkpoint_mtimes([prefix, prefix + "-missing"])) == 1
        cm.remove_checkpoint(prefix)
        prefixes[who] = sorted(os.listdir(tmp_path / who))
    assert prefixes["ours"] == prefixes["theirs"] == ["other"]


@pytest.mark.tf_oracle
def test_the_paths_list_is_completed_in_place_as_tfs(tf1, tmp_path):
    from tensorflow.python.checkpoint import checkpoint_management as tf_cm

    from ferroflow.train import checkpoint_management as ff_cm

    latest = str(tmp_path / "model-0")
    results = {}
    for who, cm in (("ours", ff_cm), ("theirs", tf_cm)):
        lists = [[], ["model-2"], [latest]]
        states = [
            cm.generate_checkpoint_state_proto(str(tmp_path), latest, all_model_checkpoint_paths=p)
            for p in lists
        ]
        relative = ["train/model-1"]
        cm.generate_checkpoint_state_proto("train", "train/model-1", relative)
        results[who] = (lists, [list(s.all_model_checkpoint_paths) for s in states], relative)
    assert results["ours"] == results["theirs"]
    assert results["ours"][0][1] == ["model-2", latest]
    assert results["ours"][2] == ["model-1"]


def test_update_checkpoint_state_internal_takes_tfs_arguments(tmp_path):
    from ferroflow.train import checkpoint_management as ff_cm

    d = str(tmp_path)
    ff_cm.update_checkpoint_state_internal(
        save_dir=d,
        model_checkpoint_path=os.path.join(d, "model-2"),
        all_model_checkpoint_paths=["model-0", os.path.join(d, "model-2")],
        save_relative_paths=True,
    )
    text = (tmp_path / "checkpoint").read_text()
    assert text == (
        'model_checkpoint_path: "model-2"\n'
        'all_model_checkpoint_paths: "model-0"\n'
        'all_model_checkpoint_paths: "model-2"\n'
    )
    state = ff.train.get_checkpoint_state(d)
    assert state.model_checkpoint_path == os.path.join(d, "model-2")
