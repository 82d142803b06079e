"""`tf.train.warm_start` and `tf.train.VocabInfo` against TensorFlow's.

Each test writes a checkpoint (with TensorFlow or ferroflow), builds the new model in
both libraries, warm-starts it the same way, runs the initializers and compares every
global variable's value exactly (or the error: its class and message; TF raises the
vocabulary-remapping errors when the initializer runs, ferroflow when `warm_start` is
called).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from tests.conftest import outcome

import ferroflow as ff

pytestmark = pytest.mark.tf_oracle

OLD_VOCAB = ["apple", "banana", "guava", "orange"]
NEW_VOCAB = ["orange", "guava", "kiwi", "banana", "apple", "raspberry"]


def _lib(lib, tf1):
    return tf1 if lib == "tf" else ff


def _write_checkpoint(lib, directory, make):
    """Runs `make(lib)` in a fresh graph, initializes and saves; returns `directory`."""
    g = lib.Graph()
    with g.as_default():
        after_init = make(lib)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            if isinstance(after_init, list):
                sess.run(after_init)
            lib.train.Saver().save(sess, os.path.join(directory, "model"), global_step=0)
    return str(directory)


def _warm_started(lib, make, warm, seed=None):
    """Builds `make(lib)`, calls `warm(lib, made)`, initializes: every global's value."""
    g = lib.Graph()
    with g.as_default():
        if seed is not None:
            lib.set_random_seed(seed)
        made = make(lib)
        warm(lib, made)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            return {v.op.name: sess.run(v) for v in lib.global_variables()}


def _assert_same(tf_values, ff_values):
    assert sorted(tf_values) == sorted(ff_values)
    for name, value in tf_values.items():
        np.testing.assert_array_equal(ff_values[name], value, err_msg=name)
        assert ff_values[name].dtype == value.dtype


def _both(tf1, make, warm, seed=None):
    tf_values = _warm_started(tf1, make, warm, seed)
    ff_values = _warm_started(ff, make, warm, seed)
    _assert_same(tf_values, ff_values)
    return ff_values


def _write_vocab(directory, name, entries, text=None):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("\n".join(entries) if text is None else text)
    return path


def _values(shape, start=1.0):
    return (np.arange(np.prod(shape), dtype=np.float32) * 0.5 + start).reshape(shape)


def _prev_model(lib):
    lib.get_variable("dense/kernel", initializer=_values([3, 2]))
    lib.get_variable("dense/bias", initializer=_values([2], 10.0))
    lib.get_variable("dense/kernel/Momentum", initializer=_values([3, 2], 20.0), trainable=False)
    lib.get_variable("old_name", initializer=_values([4], 30.0))
    lib.get_variable("global_step", initializer=np.int64(7), trainable=False)


def _new_model(lib):
    zeros = lib.zeros_initializer()
    return {
        "kernel": lib.get_variable("dense/kernel", [3, 2], initializer=zeros),
        "bias": lib.get_variable("dense/bias", [2], initializer=zeros),
        "momentum": lib.get_variable(
            "dense/kernel/Momentum", [3, 2], initializer=zeros, trainable=False
        ),
        "renamed": lib.get_variable("new_name", [4], initializer=zeros),
        "step": lib.get_variable("global_step", [], lib.int64, initializer=zeros, trainable=False),
    }


@pytest.mark.parametrize("writer", ["tf", "ff"])
def test_default_regex_warm_starts_the_trainable_variables(tf1, tmp_path, writer):
    ckpt = _write_checkpoint(_lib(writer, tf1), tmp_path, _prev_model)

    def warm(lib, made):
        lib.train.warm_start(ckpt, var_name_to_prev_var_name={"new_name": "old_name"})

    values = _both(tf1, _new_model, warm)
    np.testing.assert_array_equal(values["dense/kernel"], _values([3, 2]))
    np.testing.assert_array_equal(values["new_name"], _values([4], 30.0))
    # Not trainable: not warm-started.
    assert not values["dense/kernel/Momentum"].any() and values["global_step"] == 0


@pytest.mark.parametrize(
    "selection",
    [
        "dense/.*",
        ["dense", "global"],
        ["dense/kernel[^/]"],
        ["new_name"],
        "variables",
        None,
    ],
)
def test_selections(tf1, tmp_path, selection):
    ckpt = _write_checkpoint(tf1, tmp_path, _prev_model)

    def warm(lib, made):
        chosen = selection
        if selection == "variables":
            chosen = [made["kernel"], made["step"], made["renamed"]]
        lib.train.warm_start(
            ckpt, vars_to_warm_start=chosen, var_name_to_prev_var_name={"new_name": "old_name"}
        )

    if selection in (["dense", "global"], ["dense/kernel[^/]"], "dense/.*"):
        # `new_name` is not selected: its rename is unused, an error in both.
        tf_out = outcome(_warm_started, tf1, _new_model, warm)
        ff_out = outcome(_warm_started, ff, _new_model, warm)
        assert tf_out[0] == ff_out[0] == "ValueError"
        assert "var_name_to_prev_var_name that were not used: {'new_name'}" in ff_out[1]
        return
    _both(tf1, _new_model, warm)


def test_explicit_checkpoint_file_and_global_regexes(tf1, tmp_path):
    _write_checkpoint(tf1, tmp_path, _prev_model)
    ckpt = os.path.join(str(tmp_path), "model-0")

    def warm(lib, made):
        lib.train.warm_start(ckpt, vars_to_warm_start=["dense", "global_step"])

    values = _both(tf1, _new_model, warm)
    np.testing.assert_array_equal(values["dense/kernel/Momentum"], _values([3, 2], 20.0))
    assert values["global_step"] == 7


def _partitioned(lib, name, shape, parts, initializer):
    return lib.get_variable(
        name,
        shape=shape,
        initializer=initializer,
        partitioner=lambda shape, dtype: parts,
    )


def _saved_variable(lib, name, value, parts=None):
    """A variable holding `value` when saved (partitioned: assigned after init)."""
    if not parts:
        lib.get_variable(name, initializer=value)
        return []
    var = _partitioned(lib, name, list(value.shape), parts, lib.zeros_initializer())
    return var.assign(value)


def _without_map(message):
    """An error message less its trailing `{name: shape}` map (ordered by library)."""
    return message[: message.index("{")] if "{" in message else message


@pytest.mark.parametrize("prev_parts", [None, [2, 1], [3, 1]])
@pytest.mark.parametrize("new_parts", [None, [2, 1], [4, 1]])
def test_partitioned_variables(tf1, tmp_path, prev_parts, new_parts):
    ckpt = _write_checkpoint(
        tf1, tmp_path, lambda lib: _saved_variable(lib, "old/w", _values([6, 2]), prev_parts)
    )

    def make(lib):
        if new_parts:
            return _partitioned(lib, "new/w", [6, 2], new_parts, lib.zeros_initializer())
        return lib.get_variable("new/w", [6, 2], initializer=lib.zeros_initializer())

    def warm(lib, made):
        lib.train.warm_start(ckpt, var_name_to_prev_var_name={"new/w": "old/w"})

    values = _both(tf1, make, warm)
    names = sorted(values)
    np.testing.assert_array_equal(np.concatenate([values[n] for n in names]), _values([6, 2]))


def test_two_variables_from_one_tensor(tf1, tmp_path):
    ckpt = _write_checkpoint(tf1, tmp_path, _prev_model)

    def make(lib):
        return [lib.get_variable(n, [2], initializer=lib.zeros_initializer()) for n in "ab"]

    def warm(lib, made):
        lib.train.warm_start(ckpt, var_name_to_prev_var_name={"a": "dense/bias", "b": "dense/bias"})

    values = _both(tf1, make, warm)
    np.testing.assert_array_equal(values["a"], _values([2], 10.0))
    np.testing.assert_array_equal(values["b"], _values([2], 10.0))


# -- vocabularies --------------------------------------------------------------------
def _vocab_case(tmp_path, writer_lib, prev_shape=(4, 3), prev_parts=None):
    old = _write_vocab(str(tmp_path), "old_vocab", OLD_VOCAB)
    new = _write_vocab(str(tmp_path), "new_vocab", NEW_VOCAB)

    def prev(lib):
        return _saved_variable(lib, "emb", _values(list(prev_shape)), prev_parts)

    return _write_checkpoint(writer_lib, tmp_path, prev), old, new


def _backup(lib, kind):
    return {
        "none": None,
        "ones": lib.ones_initializer(),
        "uniform_seeded": lib.random_uniform_initializer(-1.0, 1.0, seed=3),
        "normal_graph_seed": lib.truncated_normal_initializer(stddev=0.3),
    }[kind]


@pytest.mark.parametrize("backup", ["none", "ones", "uniform_seeded", "normal_graph_seed"])
@pytest.mark.parametrize(
    ("new_vocab_size", "oov", "old_vocab_size", "parts"),
    [
        (6, 0, -1, None),
        (6, 2, -1, None),
        (5, 1, 2, None),
        (6, 2, -1, [2, 1]),
        (6, 3, -1, [3, 1]),  # the last part (offset 6) holds OOV rows only
        (4, 3, 3, [3, 1]),  # a part at offset == new_vocab_size
    ],
)
def test_vocabulary_rows(tf1, tmp_path, backup, new_vocab_size, oov, old_vocab_size, parts):
    ckpt, old, new = _vocab_case(tmp_path, tf1)
    rows = new_vocab_size + oov

    def make(lib):
        if parts:
            return _partitioned(lib, "emb", [rows, 3], parts, lib.zeros_initializer())
        return lib.get_variable("emb", [rows, 3], initializer=lib.zeros_initializer())

    def warm(lib, made):
        info = lib.train.VocabInfo(
            new, new_vocab_size, oov, old, old_vocab_size, _backup(lib, backup)
        )
        lib.train.warm_start(ckpt, var_name_to_vocab_info={"emb": info})

    values = _both(tf1, make, warm, seed=11 if backup == "normal_graph_seed" else None)
    if backup == "none" and not parts and old_vocab_size == -1:
        full = values["emb"]
        old_values = _values([4, 3])
        np.testing.assert_array_equal(full[0], old_values[3])  # orange
        np.testing.assert_array_equal(full[2], np.zeros(3))  # kiwi: new
        np.testing.assert_array_equal(full[4], old_values[0])  # apple


@pytest.mark.parametrize("backup", ["none", "uniform_seeded"])
@pytest.mark.parametrize(("oov", "parts"), [(0, None), (2, None), (1, [2, 1]), (0, [3, 1])])
def test_vocabulary_columns(tf1, tmp_path, backup, oov, parts):
    old = _write_vocab(str(tmp_path), "old_classes", ["apple", "orange"])
    new = _write_vocab(str(tmp_path), "new_classes", ["orange", "kiwi", "apple"])
    ckpt = _write_checkpoint(
        tf1,
        tmp_path,
        lambda lib: lib.get_variable("out", initializer=_values([6, 2])),
    )

    def make(lib):
        if parts:
            return _partitioned(lib, "out", [6, 3 + oov], parts, lib.zeros_initializer())
        return lib.get_variable("out", [6, 3 + oov], initializer=lib.zeros_initializer())

    def warm(lib, made):
        info = lib.train.VocabInfo(
            new, 3, oov, old, backup_initializer=_backup(lib, backup), axis=1
        )
        lib.train.warm_start(ckpt, var_name_to_vocab_info={"out": info})

    _both(tf1, make, warm)


@pytest.mark.parametrize("writer", ["tf", "ff"])
def test_vocabulary_from_a_partitioned_checkpoint_tensor_under_another_name(tf1, tmp_path, writer):
    ckpt, old, new = _vocab_case(tmp_path, _lib(writer, tf1), prev_parts=[2, 1])

    def make(lib):
        return {
            "emb": _partitioned(lib, "new_emb", [7, 3], [2, 1], lib.zeros_initializer()),
            "other": lib.get_variable("other", [2], initializer=lib.ones_initializer()),
        }

    def warm(lib, made):
        info = lib.train.VocabInfo(new, 6, 1, old, backup_initializer=lib.ones_initializer())
        lib.train.warm_start(
            ckpt,
            vars_to_warm_start=None,
            var_name_to_vocab_info={"new_emb": info},
            var_name_to_prev_var_name={"new_emb": "emb"},
        )

    values = _both(tf1, make, warm)
    np.testing.assert_array_equal(values["other"], np.ones(2))


def test_vocab_info_matches_tf(tf1):
    for args, kwargs in [(("a", 3, 1, "b"), {}), (("a", 3, 0, "b", 2), {"axis": 1})]:
        ours, theirs = ff.train.VocabInfo(*args, **kwargs), tf1.train.VocabInfo(*args, **kwargs)
        assert tuple(ours) == tuple(theirs)
        assert ours._fields == theirs._fields
        assert repr(ours) == repr(theirs)
    for lib in (ff, tf1):
        with pytest.raises(ValueError, match="Provided axis: 2"):
            lib.train.VocabInfo("a", 3, 1, "b", axis=2)


# -- object-based checkpoints --------------------------------------------------------
def test_object_based_checkpoint_written_by_tf(tf1, tmp_path):
    g = tf1.Graph()
    with g.as_default():
        v = tf1.get_variable("fruit_weights", initializer=_values([4, 1]))
        w = tf1.get_variable("other", initializer=_values([2], 5.0))
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            tf1.train.Checkpoint(v=v, sub=tf1.train.Checkpoint(w=w)).save(
                os.path.join(str(tmp_path), "checkpoint"), session=sess
            )

    def make(lib):
        return [
            lib.get_variable("fruit_weights", [4, 1], initializer=lib.zeros_initializer()),
            lib.get_variable("other", [2], initializer=lib.zeros_initializer()),
        ]

    def warm(lib, made):
        lib.train.warm_start(str(tmp_path))

    values = _both(tf1, make, warm)
    np.testing.assert_array_equal(values["other"], _values([2], 5.0))

    def make_more(lib):
        return [*make(lib), lib.get_variable("missing", [1])]

    tf_out = outcome(_warm_started, tf1, make_more, warm)
    ff_out = outcome(_warm_started, ff, make_more, warm)
    assert tf_out == ff_out
    assert ff_out[0] == "ValueError" and "{'missing'}" in ff_out[1]


# -- errors --------------------------------------------------------------------------
def _same_outcome(tf1, make, warm):
    tf_out = outcome(_warm_started, tf1, make, warm)
    ff_out = outcome(_warm_started, ff, make, warm)
    assert tf_out == ff_out
    return ff_out


@pytest.mark.parametrize(
    "kwargs",
    [
        {"var_name_to_vocab_info": {"nope": ("vocab",)}},
        {"var_name_to_prev_var_name": {"nope": "x"}},
        {"vars_to_warm_start": 3},
        {"vars_to_warm_start": ["dense", 3]},
        {"vars_to_warm_start": ("dense",)},
    ],
)
def test_argument_errors(tf1, tmp_path, kwargs):
    ckpt = _write_checkpoint(tf1, tmp_path, _prev_model)

    def warm(lib, made):
        args = dict(kwargs)
        if "var_name_to_vocab_info" in args:
            args["var_name_to_vocab_info"] = {"nope": lib.train.VocabInfo("", 1, 0, "")}
        lib.train.warm_start(ckpt, **args)

    def make(lib):
        return [lib.get_variable(n, s) for n, s in [("dense/bias", [2]), ("old_name", [4])]]

    got = outcome(_warm_started, ff, make, warm)
    expected = outcome(_warm_started, tf1, make, warm)
    assert got[0] == expected[0] == "ValueError"
    # The messages list Python types and dict views, which differ by library.
    assert got[1].split(".")[0] == expected[1].split(".")[0]
    assert got[1].split("{")[:2] == expected[1].split("{")[:2]


def test_missing_tensor_and_shape_errors(tf1, tmp_path):
    ckpt = _write_checkpoint(tf1, tmp_path, _prev_model)

    def missing(lib):
        return lib.get_variable("absent", [2])

    def warm(lib, made):
        lib.train.warm_start(ckpt)

    got = outcome(_warm_started, ff, missing, warm)
    expected = outcome(_warm_started, tf1, missing, warm)
    assert (got[0], _without_map(got[1])) == (expected[0], _without_map(expected[1]))
    assert got[0] == "ValueError" and got[1].startswith("Tensor absent is not found in")

    def wrong_shape(lib):
        return lib.get_variable("dense/bias", [3])

    got = outcome(_warm_started, ff, wrong_shape, warm)
    expected = outcome(_warm_started, tf1, wrong_shape, warm)
    assert got[0] == expected[0] == "ValueError"
    assert "Shape of variable dense/bias:0 ((3,)) doesn't match" in got[1]

    def partitioned_missing(lib):
        return _partitioned(lib, "absent", [4, 1], [2, 1], lib.zeros_initializer())

    got = outcome(_warm_started, ff, partitioned_missing, warm)
    expected = outcome(_warm_started, tf1, partitioned_missing, warm)
    assert (got[0], _without_map(got[1])) == (expected[0], _without_map(expected[1]))
    assert got[1].startswith("Tensor absent is not found in")


@pytest.mark.parametrize(
    "case",
    [
        "missing_new_vocab",
        "missing_old_vocab",
        "empty_line_in_old_vocab",
        "empty_old_vocab",
        "new_vocab_too_short",
        "old_vocab_size_too_large",
        "duplicate_in_old_vocab",
        "duplicate_in_new_vocab",
        "missing_tensor",
        "float64_tensor",
        "rank_1_tensor",
        "wider_variable",
        "old_vocab_longer_than_tensor",
    ],
)
def test_vocabulary_errors(tf1, tmp_path, case):
    directory = str(tmp_path)
    old = _write_vocab(directory, "old_vocab", OLD_VOCAB)
    new = _write_vocab(directory, "new_vocab", NEW_VOCAB)
    new_size, old_size, rows, cols, prev_name = 6, -1, 6, 3, "emb"
    prev_values = _values([4, 3])
    if case == "missing_new_vocab":
        new = os.path.join(directory, "absent")
    elif case == "missing_old_vocab":
        old = os.path.join(directory, "absent")
    elif case == "empty_line_in_old_vocab":
        old = _write_vocab(directory, "bad", None, "apple\r\n\nbanana\n")
    elif case == "empty_old_vocab":
        old = _write_vocab(directory, "bad", None, "")
    elif case == "new_vocab_too_short":
        new_size = rows = 7
    elif case == "old_vocab_size_too_large":
        old_size = 5
    elif case == "duplicate_in_old_vocab":
        old = _write_vocab(directory, "bad", ["apple", "banana", "apple", "kiwi"])
    elif case == "duplicate_in_new_vocab":
        new = _write_vocab(directory, "bad", ["apple", "kiwi", "apple", "x", "y", "z"])
    elif case == "missing_tensor":
        prev_name = "absent"
    elif case == "float64_tensor":
        prev_values = prev_values.astype(np.float64)
    elif case == "rank_1_tensor":
        prev_values = prev_values.reshape([-1])
    elif case == "wider_variable":
        cols = 4
    elif case == "old_vocab_longer_than_tensor":
        prev_values = prev_values[:3]
    ckpt = _write_checkpoint(
        tf1, tmp_path, lambda lib: lib.get_variable("emb", initializer=prev_values)
    )

    def make(lib):
        return lib.get_variable("emb", [rows, cols], initializer=lib.zeros_initializer())

    def warm(lib, made):
        info = lib.train.VocabInfo(new, new_size, 0, old, old_size)
        lib.train.warm_start(
            ckpt,
            var_name_to_vocab_info={"emb": info},
            var_name_to_prev_var_name={"emb": prev_name},
        )

    got = _same_outcome(tf1, make, warm)
    assert got[0] != "ok"


# -- the vocabulary remapping itself -------------------------------------------------
@pytest.mark.parametrize(
    ("old_text", "new_text", "offset", "num", "old_size"),
    [
        ("a\nb\nc\n", "c\nx\na", 0, 3, -1),
        ("a\r\nb\r\nc\r\n", "c\r\nb\n", 0, 2, -1),
        ("a\nb\n\r", "b\na\n", 1, 1, -1),
        ("a\nb\n\nc\n", "c\nb\na\n", 0, 3, 2),
        ("a\nb\n\nc\n", "c\nb\na\n", 0, 3, -1),
        ("a\nb\nc", "\n", 0, 1, -1),
        ("a\nb\nc", "c\nb\na", 1, 2, 0),
        ("a\nb\nc", "c\nb\na", 3, 0, -1),
        ("a\nb\nc", "c\nb\na", 2, 2, -1),
        ("a\nb\nc", "", 0, 0, -1),
        ("x y\n y\ny \n", " y\ny \nx y\n", 0, 3, -1),
        ("a\nb\na\n", "a\n", 0, 1, 2),
        ("\xe9t\xe9\nb\n\xe9t\xe9\n", "b\n", 0, 1, -1),
    ],
)
def test_generate_vocab_remapping_matches_tf_kernel(
    tf1, tmp_path, old_text, new_text, offset, num, old_size
):
    from tensorflow.python.ops import gen_checkpoint_ops

    from ferroflow.train import warm_starting_util

    old = _write_vocab(str(tmp_path), "old", None, old_text)
    new = _write_vocab(str(tmp_path), "new", None, new_text)

    def tf_remapping():
        with tf1.Graph().as_default(), tf1.Session() as sess:
            remapping, present = sess.run(
                gen_checkpoint_ops.generate_vocab_remapping(
                    new_vocab_file=new,
                    old_vocab_file=old,
                    new_vocab_offset=offset,
                    num_new_vocab=num,
                    old_vocab_size=old_size,
                )
            )
            return remapping.tolist(), int(present)

    def ff_remapping():
        remapping, present = warm_starting_util._generate_vocab_remapping(
            new, old, offset, num, old_size
        )
        return remapping.tolist(), present

    assert outcome(ff_remapping) == outcome(tf_remapping)


def test_checkpoint_directory_errors(tf1, tmp_path):
    (tmp_path / "empty").mkdir()

    def make(lib):
        return lib.get_variable("v", [2])

    for ckpt, renames in [
        (tmp_path / "empty", None),
        (tmp_path / "absent", None),
        (tmp_path / "empty", {"v": "w"}),
    ]:

        def warm(lib, made, ckpt=ckpt, renames=renames):
            lib.train.warm_start(str(ckpt), var_name_to_prev_var_name=renames)

        got = _same_outcome(tf1, make, warm)
        assert got[0] in ("TypeError", "NotFoundError", "ValueError")
