"""SaveV2 / RestoreV2: V2 checkpoints that TensorFlow reads, and that read TensorFlow's."""

import numpy as np
import pytest

import ferroflow as ff
from ferroflow.ops import io_ops

VALUES = {
    "alpha/w": np.arange(6, dtype=np.float32).reshape(2, 3),
    "dbl": np.float64(0.5),
    "global_step": np.int64(15),
    "flags": np.array([True, False, True]),
    "pixels": np.array([[0, 255], [7, 9]], dtype=np.uint8),
    "counts": np.array([1, -2, 3], dtype=np.int32),
    "str_var": np.array(b"hi", dtype=object),
    "str_vec": np.array([b"", b"abc"], dtype=object),
    "empty": np.zeros((0, 4), dtype=np.float32),
}


def _save(prefix, values):
    names = list(values)
    with ff.Graph().as_default(), ff.Session() as sess:
        save = io_ops.save_v2(
            prefix, names, [""] * len(names), [ff.constant(values[n]) for n in names]
        )
        sess.run(save)


def _restore(prefix, names, dtypes):
    with ff.Graph().as_default(), ff.Session() as sess:
        return sess.run(io_ops.restore_v2(prefix, names, [""] * len(names), dtypes))


def _assert_same(got, want):
    assert np.asarray(got).shape == np.asarray(want).shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_save_and_restore_round_trip(tmp_path):
    prefix = str(tmp_path / "model.ckpt-15")
    _save(prefix, VALUES)
    names = sorted(VALUES)
    dtypes = [ff.as_dtype(np.asarray(VALUES[n]).dtype) for n in names]
    dtypes = [
        ff.string if np.asarray(VALUES[n]).dtype == object else d
        for n, d in zip(names, dtypes, strict=True)
    ]
    restored = _restore(prefix, names, dtypes)
    for n, got in zip(names, restored, strict=True):
        _assert_same(got, VALUES[n])
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "model.ckpt-15.data-00000-of-00001",
        "model.ckpt-15.index",
    ]


def test_restore_errors(tmp_path):
    prefix = str(tmp_path / "ckpt")
    _save(prefix, {"v": np.float32(1.0)})
    with pytest.raises(ff.errors.NotFoundError, match="Key w not found in checkpoint"):
        _restore(prefix, ["w"], [ff.float32])
    with pytest.raises(ff.errors.InvalidArgumentError, match="expected dtype float64"):
        _restore(prefix, ["v"], [ff.float64])
    with pytest.raises(ff.errors.NotFoundError, match="Failed to find any matching files"):
        _restore(str(tmp_path / "missing"), ["v"], [ff.float32])
    with ff.Graph().as_default(), ff.Session() as sess:
        restore = io_ops.restore_v2(prefix, ["v"], ["2 0,1"], [ff.float32])
        with pytest.raises(
            ff.errors.InvalidArgumentError, match="does not match the shape stored in checkpoint"
        ):
            sess.run(restore)
    data = tmp_path / "ckpt.data-00000-of-00001"
    data.write_bytes(b"\x00\x00\x80\x40")  # 4.0 where 1.0 was checksummed
    with pytest.raises(ff.errors.DataLossError, match="Checksum does not match"):
        _restore(prefix, ["v"], [ff.float32])


def test_save_checks_its_inputs():
    with pytest.raises(ValueError):
        io_ops.save_v2(["a", "b"], ["v"], [""], [ff.constant(1.0)])
    with ff.Session() as sess:
        save = io_ops.save_v2("/tmp/unused", ["a", "b"], ["", ""], [ff.constant(1.0)])
        with pytest.raises(ff.errors.InvalidArgumentError, match="expected 1 tensor names"):
            sess.run(save)


@pytest.mark.tf_oracle
def test_tensorflow_reads_our_checkpoint_and_writes_the_same_bytes(tf1, tmp_path):
    ours = str(tmp_path / "ours")
    _save(ours, VALUES)
    reader = tf1.train.load_checkpoint(ours)
    assert sorted(reader.get_variable_to_shape_map()) == sorted(VALUES)
    for name, want in VALUES.items():
        _assert_same(reader.get_tensor(name), want)
    # TensorFlow's own SaveV2 on the same tensors, in the same order: the same files.
    theirs = str(tmp_path / "theirs")
    g = tf1.Graph()
    with g.as_default():
        names = list(VALUES)
        save = tf1.raw_ops.SaveV2(
            prefix=theirs,
            tensor_names=names,
            shape_and_slices=[""] * len(names),
            tensors=[tf1.constant(VALUES[n]) for n in names],
        )
        with tf1.Session(graph=g) as sess:
            sess.run(save)
    for suffix in (".index", ".data-00000-of-00001"):
        assert (tmp_path / f"ours{suffix}").read_bytes() == (
            tmp_path / f"theirs{suffix}"
        ).read_bytes()


@pytest.mark.tf_oracle
def test_we_restore_what_tensorflow_saved(tf1, tmp_path):
    prefix = str(tmp_path / "tf")
    g = tf1.Graph()
    with g.as_default():
        w = tf1.Variable(np.arange(12, dtype=np.float32).reshape(3, 4), name="dense/kernel")
        step = tf1.Variable(np.int64(42), name="global_step")
        label = tf1.Variable(b"spirals", name="label")
        saver = tf1.train.Saver()
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            path = saver.save(sess, prefix)
            want = sess.run([w, step, label])
    got = _restore(
        path, ["dense/kernel", "global_step", "label"], [ff.float32, ff.int64, ff.string]
    )
    for g_, w_ in zip(got, want, strict=True):
        _assert_same(g_, w_)
