"""Exporting and loading a SavedModel of 512 MiB of float32 variables: ferroflow vs TensorFlow.

The model: `--variables` float32 variables (default 8, 512 MiB in all, `--mib`), made
with a zeros initializer and assigned random values through a placeholder (so the
graph stays small: no large constants), plus a small graph reading them (a 16x16
slice of the first one multiplied by a placeholder `x`) and a predict signature of it.

    export: SavedModelBuilder(dir).add_meta_graph_and_variables(sess, ["serve"],
            signature_def_map={"serving_default": ...}) + save()
    load:   a fresh Graph and Session, then saved_model.loader.load(sess, ["serve"], dir)

for ferroflow and for TensorFlow (`tensorflow.compat.v1`, graph mode, the same graph
and values), each library in its own process. Each export goes to a new directory
(under a temporary directory in /tmp, removed at the end; a library's previous
export is removed once the next one has been loaded); each load reads the export
just written (from the page cache, as serving a model right after exporting it
would). ferroflow's Saver syncs the checkpoint's files before renaming them into
place (crash-safe); TensorFlow's does not fsync. Every load is checked: the
signature's output and the last variable's values against the values assigned.

Prints seconds and MB/s (MB = 10^6 bytes of variables; best of `--repeat`) and
ferroflow's speed relative to TensorFlow's (ff/TF = TF seconds / ferroflow seconds:
above 1, ferroflow is faster).

Run: python benches/python/bench_saved_model.py [--mib 512] [--variables 8] [--repeat 3]
"""

import argparse
import os
import shutil
import tempfile
import time

import numpy as np
from _timing import run_each

X = np.arange(32, dtype=np.float32).reshape(2, 16) / 32.0


def values(count, mib):
    """The variables' values: `count` float32 vectors of `mib / count` MiB each."""
    rng = np.random.default_rng(0)
    n = mib * (1 << 20) // 4 // count
    return [rng.standard_normal(n, dtype=np.float32) for _ in range(count)]


def build(tf, vals):
    """The variables, an op assigning them from placeholders, and the signature's tensors."""
    variables = [
        tf.Variable(tf.zeros([len(v)], tf.float32), name=f"var{i}") for i, v in enumerate(vals)
    ]
    sources = [tf.placeholder(tf.float32, [len(v)], name=f"value{i}") for i, v in enumerate(vals)]
    assign = tf.group(*[tf.assign(v, s) for v, s in zip(variables, sources, strict=True)])
    x = tf.placeholder(tf.float32, [None, 16], name="x")
    y = tf.matmul(x, tf.reshape(variables[0][:256], [16, 16]), name="y")
    return variables, dict(zip(sources, vals, strict=True)), assign, x, y


def export(tf, sess, x, y, export_dir):
    """Writes the session's graph and variables as a SavedModel; returns the seconds."""
    t0 = time.perf_counter()
    builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
    signature = tf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y})
    builder.add_meta_graph_and_variables(
        sess, ["serve"], signature_def_map={"serving_default": signature}
    )
    builder.save()
    return time.perf_counter() - t0


def load_and_check(tf, export_dir, vals, n_variables):
    """Loads the SavedModel into a fresh session; returns the seconds (checks excluded)."""
    g = tf.Graph()
    with g.as_default():
        t0 = time.perf_counter()
        sess = tf.Session(graph=g)
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir)
        seconds = time.perf_counter() - t0
        try:
            signature = meta.signature_def["serving_default"]
            got = sess.run(signature.outputs["y"].name, {signature.inputs["x"].name: X})
            np.testing.assert_allclose(got, X @ vals[0][:256].reshape(16, 16), rtol=1e-5)
            last = sess.run(f"var{n_variables - 1}:0")
            assert np.array_equal(last, vals[-1]), "the loaded variable has other values"
        finally:
            sess.close()
    return seconds


def child(lib, directory, n_variables, mib, repeat):
    """{"export": best seconds, "load": best seconds, "files": bytes of one export}."""
    if lib == "tensorflow":
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
    else:
        import ferroflow as tf

    vals = values(n_variables, mib)
    best_export = best_load = float("inf")
    files = 0
    previous = None
    g = tf.Graph()
    with g.as_default():
        variables, feed, assign, x, y = build(tf, vals)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(assign, feed)
            del feed
            assert len(variables) == n_variables
            for r in range(repeat):
                export_dir = os.path.join(directory, f"{lib}-{r}")
                best_export = min(best_export, export(tf, sess, x, y, export_dir))
                best_load = min(best_load, load_and_check(tf, export_dir, vals, n_variables))
                files = sum(
                    os.path.getsize(os.path.join(root, name))
                    for root, _, names in os.walk(export_dir)
                    for name in names
                )
                if previous is not None:
                    shutil.rmtree(previous)
                previous = export_dir
    if previous is not None:
        shutil.rmtree(previous)
    return {"export": best_export, "load": best_load, "files": files}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=512, help="MiB of variables in all")
    parser.add_argument("--variables", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if args.child:
        import json

        print(json.dumps(child(args.child, args.dir, args.variables, args.mib, args.repeat)))
        return

    directory = tempfile.mkdtemp(prefix="bench_saved_model_", dir="/tmp")
    try:
        results = run_each(
            __file__,
            (("ferroflow", "ferroflow"), ("tensorflow", "tensorflow")),
            *("--dir", directory, "--variables", args.variables),
            *("--mib", args.mib, "--repeat", args.repeat),
        )
    finally:
        shutil.rmtree(directory, ignore_errors=True)

    n = args.mib * (1 << 20) // 4 // args.variables
    mb = n * 4 * args.variables / 1e6
    print(
        f"{mb:.0f} MB ({args.mib} MiB) in {args.variables} float32 variables,"
        f" best of {args.repeat}; loads checked"
    )
    for lib, result in results.items():
        print(f"  {lib}: export directory {result['files'] / 1e6:.1f} MB")
    tf_result = results.get("tensorflow")
    print(f"{'':38s} {'seconds':>8s} {'MB/s':>8s} {'ff/TF':>7s}")
    for step, what in (("export", "export (builder + save)"), ("load", "load (fresh session)")):
        for lib, result in results.items():
            seconds = result[step]
            ratio = ""
            if tf_result and lib != "tensorflow":
                ratio = f"{tf_result[step] / seconds:.2f}x"
            label = f"{what}, {lib}"
            print(f"{label:38s} {seconds:8.3f} {mb / seconds:8.0f} {ratio:>7s}")


if __name__ == "__main__":
    main()
