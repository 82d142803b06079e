"""Distributed runtime, ferroflow against TensorFlow on loopback, in one run.

(a) RecvTensor throughput: a 64 MiB float32 variable lives on a ps task in its own
    process; each step the worker reads it (the tensor crosses the process boundary
    with one RecvTensor) and reduces it there. Prints MiB/s.
(b) RunStep's tensors: a client feeds a 16 MiB float32 tensor to a server in another
    process and fetches it back (the feed and the fetched value each cross once, inside
    `RunStep`'s request and response). Prints MiB/s, both directions counted.
(c) Between-graph replication: 1 ps + 2 worker processes, each worker training a
    784-256-256-10 MLP (batch 128, SGD) placed with `replica_device_setter`; prints
    the steps/s of both workers together.

Every task is a separate process (`python bench_distributed.py task ...`), started
by the driver; each library runs the same script.

    python benches/python/bench_distributed.py [--steps 20] [--repeats 3]
"""

import argparse
import json
import socket
import statistics
import subprocess
import sys
import time

import numpy as np

MIB = 1 << 20
FEED_MIB = 16


def library(name):
    if name == "tf":
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
        return tf
    import ferroflow as tf

    return tf


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def cluster_of(ports, workers):
    return {
        "ps": [f"localhost:{ports[0]}"],
        "worker": [f"localhost:{p}" for p in ports[1 : 1 + workers]],
    }


def serve(lib, cluster, job, index):
    tf = library(lib)
    server = tf.train.Server(cluster, job_name=job, task_index=index)
    print("ready", flush=True)
    server.join()


def recv_bench(lib, cluster, steps):
    tf = library(lib)
    server = tf.train.Server(cluster, job_name="worker", task_index=0)
    with tf.device("/job:ps/task:0"):
        big = tf.Variable(tf.ones([64 * MIB // 4]), name="big")
    with tf.device("/job:worker/task:0"):
        total = tf.reduce_sum(big)
    with tf.Session(server.target) as sess:
        sess.run(big.initializer)
        sess.run(total)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(steps):
                sess.run(total)
            best = min(best, (time.perf_counter() - t0) / steps)
    print(f"result {64 / best:.1f}", flush=True)


def feed_bench(lib, cluster, steps):
    tf = library(lib)
    x = tf.placeholder(tf.float32, [FEED_MIB * MIB // 4])
    with tf.device("/job:ps/task:0"):
        y = tf.identity(x)
    value = np.random.default_rng(0).random(FEED_MIB * MIB // 4, dtype=np.float32)
    with tf.Session(f"grpc://{cluster['ps'][0]}") as sess:
        got = sess.run(y, {x: value})
        assert np.array_equal(got, value)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(steps):
                sess.run(y, {x: value})
            best = min(best, (time.perf_counter() - t0) / steps)
    print(f"result {2 * FEED_MIB / best:.1f}", flush=True)


def mlp_worker(lib, cluster, index, steps):
    tf = library(lib)
    server = tf.train.Server(cluster, job_name="worker", task_index=index)
    rng = np.random.default_rng(index)
    xs = rng.normal(size=(128, 784)).astype(np.float32)
    ys = rng.integers(0, 10, size=128)
    with tf.device(
        tf.train.replica_device_setter(worker_device=f"/job:worker/task:{index}", cluster=cluster)
    ):
        step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.int64, [None])
        h = x
        for i, (n_in, n_out) in enumerate([(784, 256), (256, 256), (256, 10)]):
            w = tf.Variable(tf.random_normal([n_in, n_out], stddev=0.05, seed=i), name=f"w{i}")
            b = tf.Variable(tf.zeros([n_out]), name=f"b{i}")
            h = tf.matmul(h, w) + b
            if n_out != 10:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=step)
        init = tf.global_variables_initializer()
    with tf.Session(server.target) as sess:
        if index == 0:
            sess.run(init)
        else:
            while sess.run(tf.report_uninitialized_variables()).size:
                time.sleep(0.05)
        for _ in range(5):
            sess.run(train, {x: xs, y: ys})
        print("warm", flush=True)
        sys.stdin.readline()  # the driver starts both workers' timed loops together
        t0 = time.perf_counter()
        for _ in range(steps):
            sess.run(train, {x: xs, y: ys})
        print(f"result {steps / (time.perf_counter() - t0):.1f}", flush=True)


def spawn(*args):
    return subprocess.Popen(
        [sys.executable, __file__, "task", *map(str, args)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def wait_for(proc, word):
    for line in proc.stdout:
        if line.startswith(word):
            return line.split()[1:] if word == "result" else None
    raise RuntimeError(f"task exited before '{word}'")


def one_client_of_a_ps(lib, what, cluster, steps):
    """Serves the ps task of `cluster`, runs the `what` client task against it, and
    returns the figure it prints."""
    ps = spawn(lib, "serve", json.dumps(cluster), "ps", 0)
    wait_for(ps, "ready")
    client = spawn(lib, what, json.dumps(cluster), 0, steps)
    (figure,) = wait_for(client, "result")
    client.wait()
    ps.kill()
    return float(figure)


def run_recv(lib, steps):
    return one_client_of_a_ps(lib, "recv", cluster_of(free_ports(2), 1), steps)


def run_feed(lib, steps):
    # One task: its master runs the step itself, the tensors cross only in RunStep.
    return one_client_of_a_ps(lib, "feed", {"ps": [f"localhost:{free_ports(1)[0]}"]}, steps)


def run_mlp(lib, steps):
    ports = free_ports(3)
    cluster = cluster_of(ports, 2)
    ps = spawn(lib, "serve", json.dumps(cluster), "ps", 0)
    wait_for(ps, "ready")
    workers = [spawn(lib, "mlp", json.dumps(cluster), i, steps) for i in range(2)]
    for w in workers:
        wait_for(w, "warm")
    for w in workers:
        w.stdin.write("go\n")
        w.stdin.flush()
    rates = [float(wait_for(w, "result")[0]) for w in workers]
    for w in workers:
        w.wait()
    ps.kill()
    return sum(rates)


def main():
    if sys.argv[1:2] == ["task"]:
        lib, what, cluster = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
        rest = [int(a) if a.isdigit() else a for a in sys.argv[5:]]
        if what == "serve":
            serve(lib, cluster, *rest)
        elif what == "recv":
            recv_bench(lib, cluster, rest[1])
        elif what == "feed":
            feed_bench(lib, cluster, rest[1])
        else:
            mlp_worker(lib, cluster, *rest)
        return
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--repeats", type=int, default=3, help="runs per library, alternating")
    p.add_argument("--only", choices=["recv", "feed", "mlp"], help="run one of the benchmarks")
    args = p.parse_args()

    def compare(name, run, steps):
        # Alternate the libraries so that both meet the same machine load; the median
        # and the range, since one run of either can be off by a third on a busy VM.
        got = {"ff": [], "tf": []}
        for _ in range(args.repeats):
            for lib in got:
                got[lib].append(run(lib, steps))
        ff, tf = (statistics.median(got[lib]) for lib in ("ff", "tf"))
        spread = " ".join(f"{lib} {min(v):.0f}-{max(v):.0f}" for lib, v in got.items())
        print(f"{name:48} {ff:10.1f} {tf:10.1f} {ff / tf:6.2f}   ({spread})", flush=True)

    print(f"{'benchmark (median of runs)':48} {'ferroflow':>10} {'tensorflow':>10} {'ratio':>6}")
    if args.only in (None, "recv"):
        compare("RecvTensor 64 MiB ps->worker (MiB/s)", run_recv, args.steps)
    if args.only in (None, "feed"):
        compare(f"RunStep feed + fetch {FEED_MIB} MiB (MiB/s)", run_feed, args.steps)
    if args.only in (None, "mlp"):
        compare("1 ps + 2 workers MLP 784-256-256-10 (steps/s)", run_mlp, args.steps * 10)


if __name__ == "__main__":
    main()
