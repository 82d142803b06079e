"""What a Saver's `var_list` may hold, against TensorFlow's Saver.

Name clashes and one variable under two names are errors; slices given under a dict
key are saved under that key; `BaseSaverBuilder.VariableSaveable` (TF's
`ReferenceVariableSaveable`) is a base for saveables that restore more than one
variable.
"""

from __future__ import annotations

import os

import pytest

import ferroflow as ff
from ferroflow.train import saver as ff_saver


def _saver_module(lib):
    if lib is ff:
        return ff_saver
    from tensorflow.python.training import saver

    return saver


def test_name_clashes_and_one_variable_under_two_names_are_errors(tf1):
    messages = {}
    for lib in (tf1, ff):
        got = []
        with lib.Graph().as_default():
            v0 = lib.Variable([10.0], name="v0")
            with pytest.raises(ValueError) as e:
                lib.train.Saver({"v0": v0, "v0too": v0})
            got.append(str(e.value))
            p = lib.get_variable("p", shape=[4, 5], partitioner=lib.fixed_size_partitioner(2))
            q = lib.get_variable("q", shape=[4, 5], partitioner=lib.fixed_size_partitioner(2))
            q._name = "p"
            with pytest.raises(ValueError) as e:
                lib.train.Saver([p, q])
            got.append(str(e.value))
        messages[lib] = got
    assert messages[ff] == messages[tf1]
    assert messages[ff] == [
        "The same saveable will be restored with two names: v0too",
        "At least two variables have the same name: p",
    ]


def test_slices_under_a_dict_key_are_saved_under_the_key(tf1, tmp_path):
    keys = {}
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            v1 = lib.Variable([20.0], name="v1")
            v2 = lib.Variable([30.0], name="v2")
            v2._set_save_slice_info(lib.Variable.SaveSliceInfo("v1", [1], [0], [1]))
            saver = lib.train.Saver({"vee1": v1, "other": [v2]})
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                path = saver.save(sess, os.path.join(str(tmp_path), lib.__name__, "ckpt"))
            keys[lib] = sorted(lib.train.list_variables(path))
            w = lib.Variable([1.0], name="w")
            w._set_save_slice_info(lib.Variable.SaveSliceInfo("x", [1], [0], [1]))
            with pytest.raises(ValueError, match="Slices must all be from the same tensor"):
                lib.train.Saver({"both": [v2, w]})
    assert keys[ff] == keys[tf1] == [("other", [1]), ("vee1", [1])]


def test_a_variable_saveable_subclass_restores_two_variables(tf1, tmp_path):
    values = {}
    for lib in (tf1, ff):
        base = _saver_module(lib).BaseSaverBuilder.VariableSaveable

        class Mirroring(base):
            def __init__(self, primary, mirror, name, group):
                self._mirror = mirror
                self._group = group
                super().__init__(primary, "", name)

            def restore(self, restored_tensors, restored_shapes):
                (value,) = restored_tensors
                return self._group(self.op.assign(value), self._mirror.assign(value))

        with lib.Graph().as_default():
            w = lib.Variable(1.0, name="w")
            mirror = lib.Variable(5.0, name="mirror")
            saver = lib.train.Saver([Mirroring(w, mirror, "w", lib.group)])
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                path = saver.save(sess, os.path.join(str(tmp_path), lib.__name__, "ckpt"))
                sess.run([w.assign(3.0), mirror.assign(4.0)])
                saver.restore(sess, path)
                values[lib] = (
                    sess.run([w, mirror]),
                    [n for n, _ in lib.train.list_variables(path)],
                )
    assert values[ff] == values[tf1] == ([1.0, 1.0], ["w"])
    assert ff_saver.BaseSaverBuilder.ResourceVariableSaveable is (
        ff_saver.BaseSaverBuilder.VariableSaveable
    )
