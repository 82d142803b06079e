"""Step time of a model with 64 MiB of variables while it checkpoints every step.

A `MonitoredSession` trains 4 x 16 MiB float32 variables (gradient descent on the
sum of squares: each step reads and writes every byte) under:
  (a) ferroflow, no checkpoints;
  (b) ferroflow, `AsyncCheckpointSaverHook(save_steps=1)`: the step takes a
      copy-on-write snapshot, a background thread writes it (fsynced), and a save due
      while one is in flight is skipped;
  (c) ferroflow, the synchronous `CheckpointSaverHook(save_steps=1)`;
  (d) TensorFlow, no checkpoints, and (e) TensorFlow's synchronous
      `CheckpointSaverHook(save_steps=1)` (TF 2.x no longer ships the async hook);
  (f) ferroflow, no checkpoints, while another process writes and fsyncs 64 MiB
      files in a loop: what any concurrent checkpoint write costs the step on this
      machine (memory bandwidth, page cache and disk path shared with training), the
      floor for (b).
Prints the mean step time of each (best of `--repeat` rounds of `--steps` steps
after a warm-up), the ratio to (a), and how many checkpoints each run finished.

Run: python benches/python/bench_async_checkpoint.py [--steps 40] [--repeat 3]
"""

import argparse
import contextlib
import logging
import shutil
import subprocess
import sys
import tempfile
import time

MIB_PER_VARIABLE = 16
VARIABLES = 4


def build(lib):
    """The model: (train op, variables)."""
    n = MIB_PER_VARIABLE * (1 << 20) // 4
    # Initialized by random ops, as TF-1.x programs do: numpy initial values would
    # embed 64 MiB of constants in the graph, and so in every checkpoint's .meta file.
    ws = [lib.Variable(lib.random_normal([n], seed=i), name=f"w{i}") for i in range(VARIABLES)]
    loss = lib.add_n([lib.reduce_sum(lib.square(w)) for w in ws])
    step = lib.train.get_or_create_global_step()
    train = lib.train.GradientDescentOptimizer(1e-6).minimize(loss, global_step=step)
    return train


def time_steps(lib, hook_factory, directory, steps, repeat):
    """(best mean seconds per step, checkpoints written) for one configuration."""
    g = lib.Graph()
    with g.as_default():
        train = build(lib)
        counter = _counter(lib)
        hooks = [hook_factory(directory, [counter])] if hook_factory else []
        creator = lib.train.ChiefSessionCreator()
        best = float("inf")
        with lib.train.MonitoredSession(session_creator=creator, hooks=hooks) as sess:
            for _ in range(3):
                sess.run(train)
            for _ in range(repeat):
                t0 = time.perf_counter()
                for _ in range(steps):
                    sess.run(train)
                best = min(best, (time.perf_counter() - t0) / steps)
    return best, counter.saves


# A process that keeps writing 64 MiB files, each fsynced, as a checkpoint save does.
_WRITER = """
import os, sys
block = os.urandom(1 << 20)
while True:
    with open(sys.argv[1], "wb") as f:
        for _ in range(64):
            f.write(block)
        f.flush()
        os.fsync(f.fileno())
"""


@contextlib.contextmanager
def _concurrent_writer(directory):
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, f"{directory}/blob"])
    try:
        time.sleep(0.5)
        yield
    finally:
        writer.kill()
        writer.wait()


def _counter(lib):
    """A `CheckpointSaverListener` counting finished saves."""

    class Counter(lib.train.CheckpointSaverListener):
        saves = 0

        def after_save(self, session, global_step_value):
            Counter.saves += 1

    return Counter()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    logging.disable(logging.INFO)
    import ferroflow as ff

    def ff_async(d, listeners):
        saver = ff.train.Saver()
        return ff.train.AsyncCheckpointSaverHook(d, save_steps=1, saver=saver, listeners=listeners)

    def ff_sync(d, listeners):
        saver = ff.train.Saver()
        return ff.train.CheckpointSaverHook(d, save_steps=1, saver=saver, listeners=listeners)

    configs = [
        ("(a) ferroflow, no saving", ff, None),
        ("(b) ferroflow, AsyncCheckpointSaverHook", ff, ff_async),
        ("(c) ferroflow, CheckpointSaverHook", ff, ff_sync),
    ]
    try:
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
        tf.logging.set_verbosity(tf.logging.ERROR)

        def tf_sync(d, listeners):
            saver = tf.train.Saver()
            return tf.train.CheckpointSaverHook(d, save_steps=1, saver=saver, listeners=listeners)

        configs += [
            ("(d) TensorFlow, no saving", tf, None),
            ("(e) TensorFlow, CheckpointSaverHook", tf, tf_sync),
        ]
    except ImportError:
        print("tensorflow skipped: not installed")
    configs.append(("(f) ferroflow, no saving, beside a writer", ff, "writer"))
    total = args.steps * args.repeat + 3
    print(f"{VARIABLES * MIB_PER_VARIABLE} MiB of variables; {total} steps per configuration")
    print(f"{'':42s} {'ms/step':>8s} {'vs (a)':>7s} {'saved':>6s}")
    base = None
    for name, lib, hook in configs:
        directory = tempfile.mkdtemp(prefix="bench_async_ckpt_")
        beside = _concurrent_writer(directory) if hook == "writer" else contextlib.nullcontext()
        hook = None if hook == "writer" else hook
        try:
            with beside:
                per_step, written = time_steps(lib, hook, directory, args.steps, args.repeat)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        base = base or per_step
        saved = f"{written}" if hook else "-"
        print(f"{name:42s} {per_step * 1e3:8.2f} {per_step / base:6.2f}x {saved:>6s}")


if __name__ == "__main__":
    main()
