"""Saving and restoring 512 MiB of float32 variables (8 x 64 MiB) with `tf.train.Saver`.

ferroflow's Saver (SaveV2 streaming tensor bytes into the bundle, synced and renamed
into place: crash-safe) against TensorFlow's `tf.compat.v1.train.Saver` (which does
not fsync), in the same process, into the same directory; plus numpy writing and
reading the same bytes (`ndarray.tofile` / `np.fromfile`, no fsync) as the plain
file-I/O baseline, and numpy with an fsync per file: what durability costs on this
disk, the bound of a crash-safe save. Each save goes to a new prefix (so no save
replaces an old one); each restore reads the checkpoint just written (from the page
cache, as a training job resuming right after a save would). Prints GB/s (best of
`--repeat`) and the ratio to TensorFlow's. Every restore is checked against the saved
values.

Run: python benches/python/bench_checkpoint.py [--variables 8] [--mib 64] [--repeat 3]
"""

import argparse
import os
import shutil
import tempfile
import time

import numpy as np


def values(count, mib):
    rng = np.random.default_rng(0)
    n = mib * (1 << 20) // 4
    return [rng.standard_normal(n, dtype=np.float32) for _ in range(count)]


def bench_lib(lib, name, vals, directory, repeat):
    """(save seconds, restore seconds), best of `repeat`, for one library."""
    g = lib.Graph()
    with g.as_default():
        variables = [lib.Variable(v, name=f"var{i}") for i, v in enumerate(vals)]
        saver = lib.train.Saver(max_to_keep=None)
        with lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            best_save = best_restore = float("inf")
            for r in range(repeat):
                prefix = os.path.join(directory, f"{name}-{r}")
                t0 = time.perf_counter()
                path = saver.save(sess, prefix, write_meta_graph=False, write_state=False)
                best_save = min(best_save, time.perf_counter() - t0)
                sess.run([v.initializer for v in variables])
                t0 = time.perf_counter()
                saver.restore(sess, path)
                best_restore = min(best_restore, time.perf_counter() - t0)
            got = sess.run(variables[-1])
            assert np.array_equal(got, vals[-1]), f"{name} restored other values"
    return best_save, best_restore


def bench_numpy(vals, directory, repeat, sync=False):
    """(save, restore) seconds of numpy writing each array to its own file (with
    `sync`, each file fsynced as it is closed: what durability costs on this disk)."""
    best_save = best_restore = float("inf")
    for r in range(repeat):
        paths = [os.path.join(directory, f"np-{sync}-{r}-{i}.bin") for i in range(len(vals))]
        t0 = time.perf_counter()
        for v, p in zip(vals, paths, strict=True):
            with open(p, "wb") as f:
                v.tofile(f)
                if sync:
                    f.flush()
                    os.fsync(f.fileno())
        best_save = min(best_save, time.perf_counter() - t0)
        t0 = time.perf_counter()
        back = [np.fromfile(p, dtype=np.float32) for p in paths]
        best_restore = min(best_restore, time.perf_counter() - t0)
        assert np.array_equal(back[-1], vals[-1])
    return best_save, best_restore


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variables", type=int, default=8)
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    vals = values(args.variables, args.mib)
    gb = args.variables * args.mib * (1 << 20) / 1e9
    rows = {}
    directory = tempfile.mkdtemp(prefix="bench_checkpoint_")
    try:
        import ferroflow as ff

        rows["ferroflow Saver (fsync)"] = bench_lib(ff, "ff", vals, directory, args.repeat)
        try:
            import tensorflow.compat.v1 as tf

            tf.disable_eager_execution()
            rows["TensorFlow Saver (no fsync)"] = bench_lib(tf, "tf", vals, directory, args.repeat)
        except ImportError:
            print("tensorflow skipped: not installed")
        rows["numpy tofile/fromfile (no fsync)"] = bench_numpy(vals, directory, args.repeat)
        rows["numpy tofile + fsync (the disk)"] = bench_numpy(vals, directory, args.repeat, True)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    tf_row = rows.get("TensorFlow Saver (no fsync)")
    print(f"{gb:.3f} GB in {args.variables} float32 variables, best of {args.repeat}")
    print(f"{'':34s} {'save GB/s':>10s} {'vs TF':>7s} {'restore GB/s':>13s} {'vs TF':>7s}")
    for name, (save, restore) in rows.items():
        vs_save = f"{tf_row[0] / save:.2f}x" if tf_row else ""
        vs_restore = f"{tf_row[1] / restore:.2f}x" if tf_row else ""
        print(f"{name:34s} {gb / save:10.2f} {vs_save:>7s} {gb / restore:13.2f} {vs_restore:>7s}")


if __name__ == "__main__":
    main()
