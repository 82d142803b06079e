"""Program plumbing against TensorFlow: tf.gfile / tf.io.gfile, tf.compat's strings,
tf.app.run with tf.app.flags, and tf.logging (scripts run as TF-1.x programs would)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import ferroflow as ff

pytestmark = pytest.mark.timeout(120)


def _gfile_scenario(tf, d):
    """Every gfile call a program makes, on a fresh directory; outcomes as text."""
    out = []

    def t(name, f):
        try:
            out.append((name, repr(f())))
        except Exception as e:
            out.append((name, type(e).__name__, str(e).replace(d, "<d>")))

    gf = tf.gfile
    p = os.path.join(d, "a.txt")
    t("exists missing", lambda: gf.Exists(p))
    t("remove missing", lambda: gf.Remove(p))
    t("delete missing", lambda: gf.DeleteRecursively(os.path.join(d, "nope")))
    t("list missing", lambda: gf.ListDirectory(os.path.join(d, "nope")))
    t("stat missing", lambda: gf.Stat(p))
    t("read missing", lambda: gf.GFile(p).read())
    with gf.GFile(p, "w") as f:
        f.write("hello\nworld\n")
    t("read", lambda: gf.GFile(p).read())
    t("read bytes", lambda: gf.GFile(p, "rb").read())
    t("read 3", lambda: gf.GFile(p).read(3))
    t("readlines", lambda: gf.GFile(p).readlines())
    t("iterate", lambda: list(gf.GFile(p)))
    t("size", lambda: gf.GFile(p).size())
    t("stat", lambda: (gf.Stat(p).length, gf.Stat(p).is_directory, gf.Stat(d).is_directory))
    t("mkdir existing", lambda: gf.MkDir(d))
    t("makedirs existing", lambda: gf.MakeDirs(d))
    t("mkdir without parent", lambda: gf.MkDir(os.path.join(d, "x", "y")))
    t("rename onto existing", lambda: gf.Rename(p, p))
    t("copy onto existing", lambda: gf.Copy(p, p))
    t("copy", lambda: gf.Copy(p, os.path.join(d, "b.txt")))
    t("copy overwrite", lambda: gf.Copy(p, os.path.join(d, "b.txt"), overwrite=True))
    t("glob", lambda: sorted(os.path.basename(x) for x in gf.Glob(os.path.join(d, "*.txt"))))
    t("glob missing", lambda: gf.Glob(os.path.join(d, "nope", "*")))
    t("list", lambda: sorted(gf.ListDirectory(d)))
    gf.MakeDirs(os.path.join(d, "sub", "deep"))
    t(
        "walk",
        lambda: [(os.path.relpath(a, d), sorted(b), sorted(c)) for a, b, c in gf.Walk(d)],
    )
    t(
        "walk bottom up",
        lambda: [os.path.relpath(a, d) for a, _, _ in gf.Walk(d, in_order=False)],
    )
    t("walk missing", lambda: list(gf.Walk(os.path.join(d, "nope"))))
    t("isdir", lambda: (gf.IsDirectory(d), gf.IsDirectory(p), gf.IsDirectory(p + "x")))
    t("remove a directory", lambda: gf.Remove(os.path.join(d, "sub")))
    t("append", lambda: gf.GFile(p, "a").write("x"))
    t("bad mode", lambda: gf.GFile(p, "z").read())
    t("write to a reader", lambda: gf.GFile(p, "r").write("x"))
    t("read a writer", lambda: gf.GFile(os.path.join(d, "w.txt"), "w").read())

    def seek_tell():
        f = gf.GFile(p)
        return f.read(3), f.tell(), f.seek(1), f.read(2)

    t("seek and tell", seek_tell)

    def lines():
        f = gf.GFile(p)
        return f.readline(), f.readline(), f.readline(), f.readline()

    t("readline", lines)
    t("rename", lambda: gf.Rename(os.path.join(d, "b.txt"), os.path.join(d, "c.txt")))
    t("rename overwrite", lambda: gf.Rename(os.path.join(d, "c.txt"), p, overwrite=True))
    t("read renamed", lambda: gf.GFile(p).read())
    t("delete", lambda: gf.DeleteRecursively(os.path.join(d, "sub")))
    t("io.gfile", lambda: (tf.io.gfile.exists(p), tf.io.gfile.isdir(d)))
    t("io.gfile list", lambda: sorted(tf.io.gfile.listdir(d)))
    t("io.gfile makedirs", lambda: tf.io.gfile.makedirs(os.path.join(d, "m", "n")))
    t("io.gfile rmtree", lambda: tf.io.gfile.rmtree(os.path.join(d, "m")))
    t("io.gfile GFile", lambda: tf.io.gfile.GFile(p, "rb").read())
    return out


def test_gfile_as_tensorflow(tf1, tmp_path):
    (tmp_path / "tf").mkdir()
    (tmp_path / "ff").mkdir()
    theirs = _gfile_scenario(tf1, str(tmp_path / "tf"))
    ours = _gfile_scenario(ff, str(tmp_path / "ff"))
    for a, b in zip(ours, theirs, strict=True):
        assert a == b


def _compat(tf):
    out = []
    for f, arg in [
        (tf.compat.as_str, b"x"),
        (tf.compat.as_bytes, "x"),
        (tf.compat.as_bytes, bytearray(b"y")),
        (tf.compat.as_text, b"\xc3\xa9"),
        (tf.compat.as_str_any, 3),
        (tf.compat.as_str_any, b"z"),
        (tf.compat.as_bytes, 3),
        (tf.compat.as_text, 3),
    ]:
        try:
            out.append(repr(f(arg)))
        except TypeError as e:
            out.append(("TypeError", str(e)))
    out.append(tf.compat.path_to_str(__import__("pathlib").Path("/a/b")))
    return out


def test_compat_strings_as_tensorflow(tf1):
    assert _compat(ff) == _compat(tf1)


_APP_SCRIPT = textwrap.dedent(
    """
    import sys
    import {lib} as tf

    flags = tf.app.flags
    flags.DEFINE_string("data_dir", "/tmp/data", "Where the data is.")
    flags.DEFINE_integer("batch_size", 32, "Batch size.")
    flags.DEFINE_float("learning_rate", 0.01, "Learning rate.")
    flags.DEFINE_boolean("fake_data", False, "Use fake data.")
    flags.DEFINE_bool("log", True, "Log.")
    flags.DEFINE_list("layers", ["64", "32"], "Hidden layers.")
    flags.DEFINE_enum("optimizer", "adam", ["adam", "sgd"], "Optimizer.")
    flags.DEFINE_integer(flag_name="steps", default_value=10, docstring="old names")
    FLAGS = flags.FLAGS

    def main(argv):
        print("argv", argv[1:])
        print("values", FLAGS.data_dir, FLAGS.batch_size, FLAGS.learning_rate,
              FLAGS.fake_data, FLAGS.log, FLAGS.layers, FLAGS.optimizer, FLAGS.steps)
        return 3

    if __name__ == "__main__":
        if sys.argv[1] == "read-first":
            # Reading a flag before tf.app.run parses the command line (TF-1.x).
            print("early", FLAGS.batch_size)
        tf.app.run(main=main, argv=sys.argv[:1] + sys.argv[2:])
    """
)


def _run_script(lib, tmp_path, args):
    script = tmp_path / f"app_{lib.split('.')[0]}.py"
    script.write_text(_APP_SCRIPT.format(lib=lib))
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, env=env, timeout=100
    )
    err = [line for line in done.stderr.splitlines() if "FATAL Flags parsing error" in line]
    return done.returncode, done.stdout.splitlines(), err


@pytest.mark.parametrize(
    "args",
    [
        ["plain"],
        [
            "read-first",
            "--batch_size=64",
            "--data_dir",
            "/d",
            "--nofake_data",
            "--layers=128,64",
            "--optimizer=sgd",
            "--steps=5",
            "--learning_rate=0.5",
            "--unknown_flag=1",
            "positional",
        ],
        ["plain", "--batch_size=many"],
        ["plain", "--optimizer=rmsprop"],
    ],
)
def test_app_run_and_flags_as_tensorflow(tf1, tmp_path, args):
    ours = _run_script("ferroflow", tmp_path, args)
    theirs = _run_script("tensorflow.compat.v1", tmp_path, args)
    assert ours == theirs


_LOGGING_SCRIPT = textwrap.dedent(
    """
    import {lib} as tf

    print("default", tf.logging.get_verbosity() == tf.logging.WARN)
    tf.logging.info("hidden %d", 1)
    tf.logging.set_verbosity(tf.logging.INFO)
    print("set", tf.logging.get_verbosity() == tf.logging.INFO)
    tf.logging.info("step %d loss %.2f", 7, 0.5)
    tf.logging.warn("careful")
    tf.logging.warning("careful too")
    tf.logging.error("bad")
    tf.logging.debug("hidden")
    tf.logging.log(tf.logging.INFO, "logged %s", "x")
    for i in range(5):
        tf.logging.log_every_n(tf.logging.INFO, "every second %d", 2, i)
        tf.logging.log_first_n(tf.logging.INFO, "first two %d", 2, i)
    tf.logging.log_if(tf.logging.INFO, "if true", True)
    tf.logging.log_if(tf.logging.INFO, "if false", False)
    tf.logging.vlog(tf.logging.INFO, "vlog")
    tf.logging.TaskLevelStatusMessage("status")
    print("levels", tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR,
          tf.logging.FATAL)
    """
)


def _log_lines(lib, tmp_path):
    script = tmp_path / f"log_{lib.split('.')[0]}.py"
    script.write_text(_LOGGING_SCRIPT.format(lib=lib))
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    logged = [
        line.replace(":tensorflow:", ":<lib>:").replace(":ferroflow:", ":<lib>:")
        for line in done.stderr.splitlines()
        if ":tensorflow:" in line or ":ferroflow:" in line
    ]
    return done.stdout.splitlines(), logged


def test_logging_as_tensorflow(tf1, tmp_path):
    ours = _log_lines("ferroflow", tmp_path)
    assert ours == _log_lines("tensorflow.compat.v1", tmp_path)
    assert "INFO:<lib>:step 7 loss 0.50" in ours[1]
    assert ff.get_logger() is ff.logging.get_logger()


@pytest.mark.parametrize("compression", [None, "ZLIB", "GZIP"])
def test_tfrecord_files_interoperate_with_tensorflow(tf1, tmp_path, compression):
    records = [bytes([i]) * (i * 13) for i in range(40)] + [b"", "text"]
    expect = [r.encode() if isinstance(r, str) else r for r in records]
    paths = {lib: tmp_path / f"{name}.tfrecord" for lib, name in ((ff, "ours"), (tf1, "theirs"))}
    for lib, path in paths.items():
        options = lib.python_io.TFRecordOptions(compression)
        with lib.python_io.TFRecordWriter(str(path), options) as w:
            for r in records:
                w.write(r)
    for reader in (ff, tf1):
        for path in paths.values():
            got = list(reader.python_io.tf_record_iterator(str(path), compression))
            assert got == expect, (reader.__name__, path.name)
    if compression is None:
        assert paths[ff].read_bytes() == paths[tf1].read_bytes()
    assert list(ff.io.tf_record_iterator(str(paths[tf1]), compression)) == expect


def _record_errors(tf, tmp_path):
    out = []
    good = tmp_path / f"good_{tf.__name__}.tfrecord"
    with tf.python_io.TFRecordWriter(str(good)) as w:
        w.write(b"payload")
    raw = good.read_bytes()
    cut = tmp_path / f"cut_{tf.__name__}.tfrecord"
    cut.write_bytes(raw + raw[:5])
    bad = tmp_path / f"bad_{tf.__name__}.tfrecord"
    bad.write_bytes(raw[:14] + b"X" + raw[15:])
    for path in (tmp_path / "missing.tfrecord", cut, bad):
        try:
            out.append(len(list(tf.python_io.tf_record_iterator(str(path)))))
        except tf.errors.OpError as e:
            out.append((type(e).__name__, str(e).replace(str(tmp_path), "<d>").split(":")[-1]))
    for options in (None, "GZIP", tf.python_io.TFRecordCompressionType.ZLIB, 0):
        out.append(tf.python_io.TFRecordOptions.get_compression_type_string(options))
    return out


def test_tfrecord_errors_as_tensorflow(tf1, tmp_path):
    ours, theirs = _record_errors(ff, tmp_path), _record_errors(tf1, tmp_path)
    assert [type(x) for x in ours] == [type(x) for x in theirs]
    assert [x[0] if isinstance(x, tuple) else x for x in ours] == [
        x[0] if isinstance(x, tuple) else x for x in theirs
    ]
    assert ours[1] == 1, "a partial header at the end ends the file, as TF's"
    assert ours[2][0] == "DataLossError"
