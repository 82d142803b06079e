"""Faults of a real multi-process cluster on loopback: every task is its own process
(`python test_faults.py <role> ...`), so a worker can be killed with SIGKILL and
started again, as a crashed machine would be.

A killed and restarted worker rejoins: the chief (worker 0) keeps training and
checkpointing while worker 1 is gone, the new worker 1 (a new server on the same port,
with new device incarnations) opens a session again and trains on, and both stop
cleanly when told to.
"""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import numpy as np

HERE = os.path.abspath(__file__)
DATA_X = np.random.default_rng(0).normal(size=(64, 3)).astype(np.float32)
DATA_Y = DATA_X @ np.array([[1.0], [-2.0], [0.5]], np.float32)


def serve(cluster, job, index):
    import ferroflow as tf

    server = tf.train.Server(cluster, job_name=job, task_index=index)
    print("ready", flush=True)
    server.join()


def work(cluster, index, checkpoint_dir, stop_file):
    """Trains until `stop_file` exists, printing the global step every few steps."""
    import ferroflow as tf

    server = tf.train.Server(cluster, job_name="worker", task_index=index)
    with tf.device(
        tf.train.replica_device_setter(worker_device=f"/job:worker/task:{index}", cluster=cluster)
    ):
        step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.Variable(tf.zeros([3, 1]), name="w")
        b = tf.Variable(0.0, name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=step)
    # Only this worker's tasks take part in its steps (TF's usual between-graph
    # setting), so a dead peer worker never stalls them.
    config = tf.ConfigProto(device_filters=["/job:ps", f"/job:worker/task:{index}"])
    with tf.train.MonitoredTrainingSession(
        master=server.target,
        is_chief=index == 0,
        checkpoint_dir=checkpoint_dir if index == 0 else None,
        save_checkpoint_steps=25 if index == 0 else None,
        save_summaries_steps=None,
        save_summaries_secs=None,
        log_step_count_steps=None,
        config=config,
        stop_grace_period_secs=5,
    ) as sess:
        local = 0
        while not os.path.exists(stop_file):
            _, g, current = sess.run([train, step, loss], {x: DATA_X, y: DATA_Y})
            local += 1
            if local % 10 == 0:
                print(f"step {g} {local} {current:.6f}", flush=True)
            time.sleep(0.002)
    print(f"done {local}", flush=True)


class Task:
    """A task's process, whose output lines a thread collects as they come (so the
    pipe never fills and stalls it)."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [sys.executable, HERE, *map(str, args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.split())
        self.lines.put(None)

    def wait_for(self, word, until=lambda fields: True, timeout=90):
        """The first new line starting with `word` for which `until(fields)` holds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                fields = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no '{word}' line within {timeout} s") from None
            if fields is None:
                raise AssertionError(f"task exited ({self.proc.wait()}) before a '{word}' line")
            if fields and fields[0] == word and until(fields):
                return fields

    def global_step(self, at_least=0):
        """The global step of the first new progress line at or past `at_least`."""
        return int(self.wait_for("step", lambda f: int(f[1]) >= at_least)[1])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)
        self.reader.join(30)
        self.proc.stdout.close()


def checkpoint_steps(checkpoint_dir):
    import ferroflow as tf

    state = tf.train.get_checkpoint_state(str(checkpoint_dir))
    paths = list(state.all_model_checkpoint_paths) if state else []
    return sorted(int(p.rsplit("-", 1)[1]) for p in paths)


def test_a_killed_worker_restarts_and_rejoins_while_the_chief_checkpoints(tmp_path):
    from conftest import free_ports  # not at the top: tasks run this file as a script

    ports = free_ports(3)
    cluster = {"ps": [f"localhost:{ports[0]}"], "worker": [f"localhost:{p}" for p in ports[1:]]}
    spec = json.dumps(cluster)
    stop_file = tmp_path / "stop"
    checkpoint_dir = tmp_path / "ckpt"
    tasks = []

    def start(*args):
        tasks.append(Task(*args))
        return tasks[-1]

    try:
        ps = start("serve", spec, "ps", 0)
        ps.wait_for("ready")
        chief = start("work", spec, 0, checkpoint_dir, stop_file)
        # Worker 1 starts once the chief has initialized the model (a non-chief that
        # finds it uninitialized waits TF's 30 s before it looks again).
        chief.global_step()
        worker = start("work", spec, 1, checkpoint_dir, stop_file)
        killed_at = worker.global_step()
        worker.proc.send_signal(signal.SIGKILL)
        worker.proc.wait(30)

        # The chief trains and checkpoints alone meanwhile.
        chief.global_step(killed_at + 60)
        assert any(s > killed_at for s in checkpoint_steps(checkpoint_dir))

        # A new worker 1 on the same address rejoins and trains on, beside the chief.
        restarted = start("work", spec, 1, checkpoint_dir, stop_file)
        rejoined_at = restarted.global_step()
        assert rejoined_at > killed_at
        for _ in range(3):
            restarted.global_step()
        chief_step = chief.global_step(rejoined_at)

        stop_file.write_text("")
        for t in (chief, restarted):
            assert int(t.wait_for("done")[1]) > 0
            assert t.proc.wait(60) == 0
        assert max(checkpoint_steps(checkpoint_dir)) >= chief_step
    finally:
        stop_file.write_text("")
        for t in tasks:
            t.stop()


if __name__ == "__main__":
    role, cluster = sys.argv[1], json.loads(sys.argv[2])
    if role == "serve":
        serve(cluster, sys.argv[3], int(sys.argv[4]))
    else:
        work(cluster, int(sys.argv[3]), sys.argv[4], sys.argv[5])
