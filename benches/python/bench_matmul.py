"""GEMM at training shapes: ferroflow vs TensorFlow vs PyTorch vs numpy (OpenBLAS).

The shapes are the MLP 784-256-256-10 at batch 128 (each layer's forward product, the
weight gradient `x^T g` and the input gradient `g W^T`) and two medium squares. Every
library runs with 1 and then 2 threads: ferroflow and TensorFlow through a graph whose
operands are variables (the product is run as a target, nothing is fetched), PyTorch
with `torch.mm(..., out=)`, numpy with `np.matmul(..., out=)` under threadpoolctl.
Each library runs in its own child process: idle worker threads of one library
(OpenMP's and OpenBLAS's spin before they sleep) would otherwise take the second core
from the next. Prints GFLOP/s and each library's time relative to ferroflow's (above
1: ferroflow is faster). The issue's goal is within 10% of the best library on every
row.

Run: python benches/python/bench_matmul.py [--steps N] [--threads 1 2]
"""

import argparse
import json
import os

import numpy as np
from _timing import best_per_call, installed, run_child

# (m, k, n, transpose_a, transpose_b): C[m, n] = op(A) @ op(B).
SHAPES = [
    (128, 784, 256, False, False),  # layer 1 forward
    (784, 128, 256, True, False),  # layer 1 weight gradient: x^T g
    (128, 256, 784, False, True),  # input gradient of layer 1: g W^T
    (128, 256, 256, False, False),  # layer 2 forward
    (256, 128, 256, True, False),  # layer 2 weight gradient
    (128, 256, 10, False, False),  # logits
    (512, 512, 512, False, False),
    (1024, 1024, 1024, False, False),
]


def operands(m, k, n, ta, tb):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(k, m) if ta else (m, k)).astype(np.float32)
    b = rng.normal(size=(n, k) if tb else (k, n)).astype(np.float32)
    return a, b


def graph_step(lib, threads, shape):
    ta, tb = shape[3:]
    a0, b0 = operands(*shape)
    g = lib.Graph()
    with g.as_default():
        a, b = lib.Variable(a0), lib.Variable(b0)
        c = lib.matmul(a, b, transpose_a=ta, transpose_b=tb)
        config = lib.ConfigProto(
            intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads
        )
        sess = lib.Session(graph=g, config=config)
        sess.run(lib.global_variables_initializer())
    return sess.make_callable(c.op)


def torch_step(threads, shape):
    import torch

    torch.set_num_threads(threads)
    m, _, n, ta, tb = shape
    a, b = (torch.tensor(x) for x in operands(*shape))
    out = torch.empty(m, n)
    a_op, b_op = (a.t() if ta else a), (b.t() if tb else b)
    return lambda: torch.mm(a_op, b_op, out=out)


def numpy_step(shape):
    m, _, n, ta, tb = shape
    a, b = operands(*shape)
    a_op, b_op = (a.T if ta else a), (b.T if tb else b)
    out = np.empty((m, n), np.float32)
    return lambda: np.matmul(a_op, b_op, out=out)


def library_times(lib, threads, steps):
    """Seconds per product of every shape, in this process, for one library."""
    if lib == "numpy":
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=threads):
            return [best_per_call(numpy_step(s), number(s, steps), 5) for s in SHAPES]
    if lib == "pytorch":
        make = torch_step
    elif lib == "tensorflow":
        import tensorflow.compat.v1 as tf1

        tf1.disable_eager_execution()
        make = lambda t, s: graph_step(tf1, t, s)  # noqa: E731
    else:
        import ferroflow as ff

        make = lambda t, s: graph_step(ff, t, s)  # noqa: E731
    return [best_per_call(make(threads, s), number(s, steps), 5) for s in SHAPES]


def number(shape, steps):
    m, k, n, _, _ = shape
    return max(3, min(steps, int(2e10 / (2.0 * m * k * n))))


def available():
    libs = ["ferroflow"]
    optional = (("pytorch", "torch"), ("tensorflow", "tensorflow"), ("numpy", "threadpoolctl"))
    for lib, module in optional:
        if installed(module):
            libs.append(lib)
        else:
            print(f"{module} not installed: the {lib} column is skipped")
    return libs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--child", nargs=2, metavar=("LIB", "THREADS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if args.child:
        print(json.dumps(library_times(args.child[0], int(args.child[1]), args.steps)))
        return

    libs = available()
    print("GFLOP/s (time relative to ferroflow's: above 1 means ferroflow is faster)")
    print(f"{'threads':>7s} {'m x k x n':>22s}" + "".join(f"{name:>20s}" for name in libs))
    for threads in args.threads:
        times = {
            lib: run_child(__file__, "--steps", args.steps, "--child", lib, threads) for lib in libs
        }
        for i, (m, k, n, ta, tb) in enumerate(SHAPES):
            flops = 2.0 * m * k * n
            label = f"{m}x{k}x{n}" + (" (A^T)" if ta else "") + (" (B^T)" if tb else "")
            ours = times["ferroflow"][i]
            cells = [f"{flops / t[i] / 1e9:9.1f} ({t[i] / ours:4.2f}x)" for t in times.values()]
            print(f"{threads:>7d} {label:>22s}" + "".join(f"{c:>20s}" for c in cells))


if __name__ == "__main__":
    main()
