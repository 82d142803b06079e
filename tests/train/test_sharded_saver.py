"""Sharded savers over several CPU devices (`device_count={'CPU': 2}`), as TF's: one
shard per device, merged into one V2 checkpoint (or V1 shard files and their
pattern), and restored across ferroflow and TensorFlow."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest

import ferroflow as ff


def _build(lib):
    with lib.device("/cpu:0"):
        a = lib.Variable(np.arange(4, dtype=np.float32), name="a")
    with lib.device("/cpu:1"):
        b = lib.Variable(np.array([[1.5, -2.0]]), name="b")
    return a, b


def _config(lib):
    return lib.ConfigProto(device_count={"CPU": 2})


def _save(lib, path, version, v1):
    with lib.Graph().as_default():
        _build(lib)
        saver = lib.train.Saver(sharded=True, write_version=version(lib, v1))
        with lib.Session(config=_config(lib)) as sess:
            sess.run(lib.global_variables_initializer())
            return saver.save(sess, path, write_meta_graph=False)


def _restore(lib, path, version, v1):
    with lib.Graph().as_default():
        a, b = _build(lib)
        saver = lib.train.Saver(sharded=True, write_version=version(lib, v1))
        with lib.Session(config=_config(lib)) as sess:
            saver.restore(sess, path)
            return sess.run([a, b])


def _version(lib, v1):
    return lib.train.SaverDef.V1 if v1 else lib.train.SaverDef.V2


def test_two_cpu_devices_are_made():
    with ff.Session(config=_config(ff)) as sess:
        cpus = [d.name for d in sess.list_devices() if d.device_type == "CPU"]
    assert len(cpus) == 2


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("v1", [False, True], ids=["V2", "V1"])
def test_one_shard_per_device_and_restored_both_ways(tf1, tmp_path, v1):
    # V1 savers do not make the directory (TF's neither).
    os.makedirs(tmp_path / "ours")
    os.makedirs(tmp_path / "theirs")
    ours = _save(ff, str(tmp_path / "ours" / "m"), _version, v1)
    theirs = _save(tf1, str(tmp_path / "theirs" / "m"), _version, v1)
    assert os.path.basename(ours) == os.path.basename(theirs)
    ours_files = sorted(os.path.basename(p) for p in glob.glob(str(tmp_path / "ours" / "*")))
    theirs_files = sorted(os.path.basename(p) for p in glob.glob(str(tmp_path / "theirs" / "*")))
    assert ours_files == theirs_files
    want = [np.arange(4, dtype=np.float32), np.array([[1.5, -2.0]])]
    for lib, path in ((ff, theirs), (tf1, ours), (ff, ours)):
        got = _restore(lib, path, _version, v1)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
