"""The headline comparisons in one table: ferroflow vs TensorFlow (and PyTorch where it
is installed), each with 2 threads, in this process.

Rows: Session.run overhead, the MLP 784-256-256-10 Adam step, conv2d 3x3 forward and
forward+backward, tanh on 2048x2048, an Adam update of 16M parameters, and a
FIFOQueue fed by two QueueRunner threads. Each row reuses the graph builders of the
dedicated script (bench_session_overhead.py, bench_mlp.py, ...), which print more.
A ratio above 1 means ferroflow is faster.

Run: python benches/python/headline.py [--quick]
"""

import argparse
import os

import bench_conv
import bench_mlp
import bench_optimizers
import bench_queue_runner
import numpy as np
from _timing import best_per_call


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

    import ferroflow as ff

    config = ff.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
    ours = rows(ff, config, args.quick)
    try:
        import tensorflow.compat.v1 as tf1

        tf1.disable_eager_execution()
        tf_config = tf1.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
        theirs = rows(tf1, tf_config, args.quick)
    except ImportError:
        print("tensorflow not installed: ferroflow's column only")
        theirs = {}

    print(f"{'row':40s} {'ferroflow':>12s} {'tensorflow':>12s} {'TF / ff':>8s}")
    for name, t in ours.items():
        other = theirs.get(name)
        if "1/elem/s" in name:
            shown = f"{1 / t / 1e6:9.2f} M/s"
            other_shown = f"{1 / other / 1e6:9.2f} M/s" if other else ""
        else:
            unit, scale = next(
                ((u, k) for u, k in (("s", 1.0), ("ms", 1e3)) if t * k >= 1), ("us", 1e6)
            )
            shown = f"{t * scale:9.2f} {unit}"
            other_shown = f"{other * scale:9.2f} {unit}" if other else ""
        ratio = f"{other / t:7.2f}x" if other else ""
        print(f"{name:40s} {shown:>12s} {other_shown:>12s} {ratio:>8s}")


if __name__ == "__main__":
    main()
