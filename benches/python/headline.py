"""The headline comparisons in one table: ferroflow vs TensorFlow and PyTorch (each
where installed), each with 2 threads, each library in its own child process (idle
OpenMP and Eigen workers of one library spin and would take the second core from the
next; torch must also load its compiler stack before TensorFlow registers LLVM's).

Rows: Session.run overhead, the MLP 784-256-256-10 Adam step, conv2d 3x3 forward and
forward+backward, tanh on 2048x2048, an Adam update of 16M parameters, and a
FIFOQueue fed by two QueueRunner threads. Each row reuses the graph builders of the
dedicated script (bench_session_overhead.py, bench_mlp.py, ...), which print more.
PyTorch has no graph `Session` or queue runners: those rows are blank. A ratio above
1 means ferroflow is faster.

Run: python benches/python/headline.py [--quick]
"""

import argparse
import json
import os

import bench_conv
import bench_mlp
import bench_optimizers
import bench_queue_runner
import numpy as np
from _timing import best_per_call, run_each


def session_overhead(lib, config, number):
    with lib.Graph().as_default():
        noop = lib.no_op()
        with lib.Session(config=config) as sess:
            return best_per_call(lambda: sess.run(noop), number, repeat=3)


def tanh_2048(lib, config, number):
    x0 = np.random.default_rng(0).normal(size=(2048, 2048)).astype(np.float32)
    with lib.Graph().as_default():
        x = lib.Variable(x0)
        y = lib.tanh(x)
        with lib.Session(config=config) as sess:
            sess.run(lib.global_variables_initializer())
            return best_per_call(lambda: sess.run(y.op), number, repeat=3)


def rows(lib, config, quick):
    """Seconds per operation (lower is better) of each headline row in `lib`."""
    n = 20 if quick else 100
    fwd, both = bench_conv.graph_steps(lib, config)
    return {
        "Session.run(no_op)": session_overhead(lib, config, 200 if quick else 2000),
        "MLP Adam step (batch 128)": best_per_call(
            bench_mlp.graph_step(lib, config, train=True), n, repeat=3
        ),
        "conv2d 3x3 64x32x32x64 fwd": best_per_call(fwd, 3 if quick else 10, repeat=3),
        "conv2d 3x3 fwd+bwd": best_per_call(both, 2 if quick else 5, repeat=3),
        "tanh 2048x2048": tanh_2048(lib, config, n),
        "Adam update, 16M params": best_per_call(
            bench_optimizers.graph_step(lib, config, "adam", 1 << 24), 5 if quick else 20, 3
        ),
        "FIFOQueue + 2 QueueRunners (1/elem/s)": 1.0
        / bench_queue_runner.run_pipeline(lib, 1000, True, 0.5 if quick else 2.0, 2),
    }


def torch_rows(quick):
    """Seconds per operation of the rows PyTorch has (eager, 2 threads)."""
    import torch

    torch.set_num_threads(2)
    n = 20 if quick else 100
    fwd, both = bench_conv.torch_steps()
    x = torch.randn(2048, 2048)
    adam = bench_optimizers.torch_steps("adam", 1 << 24)
    return {
        "MLP Adam step (batch 128)": best_per_call(bench_mlp.torch_step("fused"), n, repeat=3),
        "conv2d 3x3 64x32x32x64 fwd": best_per_call(fwd, 3 if quick else 10, repeat=3),
        "conv2d 3x3 fwd+bwd": best_per_call(both, 2 if quick else 5, repeat=3),
        "tanh 2048x2048": best_per_call(lambda: torch.tanh(x), n, repeat=3),
        "Adam update, 16M params": best_per_call(
            adam.get("pytorch fused", adam["pytorch foreach"]), 5 if quick else 20, 3
        ),
    }


def library_rows(lib, quick):
    """The rows of one library, measured in this process."""
    if lib == "pytorch":
        return torch_rows(quick)
    if lib == "tensorflow":
        import tensorflow.compat.v1 as tf1

        tf1.disable_eager_execution()
        config = tf1.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
        return rows(tf1, config, quick)
    import ferroflow as ff

    config = ff.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
    return rows(ff, config, quick)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if args.child:
        print(json.dumps(library_rows(args.child, args.quick)))
        return

    libraries = (("ferroflow", "ferroflow"), ("tensorflow", "tensorflow"), ("pytorch", "torch"))
    results = run_each(__file__, libraries, *(["--quick"] if args.quick else []))
    ours = results["ferroflow"]
    others = [lib for lib in results if lib != "ferroflow"]
    header = f"{'row':40s} {'ferroflow':>12s}"
    for lib in others:
        header += f" {lib:>12s} {'ratio':>7s}"
    print(header)
    for name, t in ours.items():
        line = f"{name:40s} {show(name, t):>12s}"
        for lib in others:
            other = results[lib].get(name)
            line += f" {show(name, other, t):>12s} {f'{other / t:6.2f}x' if other else '':>7s}"
        print(line)


def show(name, t, scale_of=None):
    """`t` seconds (or 1/throughput for the queue row) in a readable unit."""
    if t is None:
        return ""
    if "1/elem/s" in name:
        return f"{1 / t / 1e6:9.2f} M/s"
    ref = scale_of or t
    unit, scale = next(((u, k) for u, k in (("s", 1.0), ("ms", 1e3)) if ref * k >= 1), ("us", 1e6))
    return f"{t * scale:9.2f} {unit}"


if __name__ == "__main__":
    main()
