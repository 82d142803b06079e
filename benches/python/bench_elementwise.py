"""Large elementwise ops and reductions: ferroflow vs TensorFlow vs PyTorch vs numpy.

Each case runs on 2048x2048 float32 tensors (16 MiB) held in variables; graph
libraries run the result as a target (computed, nothing fetched), so no 16 MiB copy
is timed. Gradient cases build the op and its gradient for an upstream gradient `y`,
as training does (TF's fused `*Grad` kernels). PyTorch (eager) and numpy compute the
same expression; all libraries use 2 threads, each library in its own process.
Prints ms per op and ratios.

Run: python benches/python/bench_elementwise.py [--steps N]
"""

import argparse
import json
import os

import numpy as np
from _timing import best_per_call, run_each

SIDE = 2048

CASES = {
    "x + y": (lambda lib, x, y: x + y, lambda x, y: x + y),
    "x * y + x": (lambda lib, x, y: x * y + x, lambda x, y: x * y + x),
    "relu(x)": (lambda lib, x, y: lib.nn.relu(x), lambda x, y: np.maximum(x, 0)),
    "x * 2 (broadcast scalar)": (lambda lib, x, y: x * 2.0, lambda x, y: x * 2.0),
    "x + row (broadcast)": (lambda lib, x, y: x + y[0], lambda x, y: x + y[0]),
    "tanh(x)": (lambda lib, x, y: lib.tanh(x), np.tanh),
    "sum over axis 1": (lambda lib, x, y: lib.reduce_sum(x, 1), lambda x, y: x.sum(1)),
    "max over axis 0": (lambda lib, x, y: lib.reduce_max(x, 0), lambda x, y: x.max(0)),
    "x < y": (lambda lib, x, y: x < y, lambda x, y: x < y),
    "where(x < 0, x, y)": (
        lambda lib, x, y: lib.where(x < 0, x, y),
        lambda x, y: np.where(x < 0, x, y),
    ),
    "softmax (rows)": (lambda lib, x, y: lib.nn.softmax(x), None),
    "exp(x)": (lambda lib, x, y: lib.exp(x), np.exp),
    "sin(x)": (lambda lib, x, y: lib.sin(x), np.sin),
    "sigmoid(x)": (lambda lib, x, y: lib.sigmoid(x), None),
    "tanh + its gradient": (lambda lib, x, y: _with_grad(lib, lib.tanh, x, y), None),
    "sigmoid + its gradient": (lambda lib, x, y: _with_grad(lib, lib.sigmoid, x, y), None),
    "elu + its gradient": (lambda lib, x, y: _with_grad(lib, lib.nn.elu, x, y), None),
    "relu + its gradient": (lambda lib, x, y: _with_grad(lib, lib.nn.relu, x, y), None),
}


def _with_grad(lib, f, x, dy):
    return lib.gradients(f(x), x, grad_ys=dy)[0]


def arrays():
    rng = np.random.default_rng(0)
    return (rng.normal(size=(SIDE, SIDE)).astype(np.float32) for _ in range(2))


def graph_times(tf, config, steps):
    x0, y0 = arrays()
    g = tf.Graph()
    with g.as_default():
        x, y = tf.Variable(x0), tf.Variable(y0)
        targets = {name: build(tf, x, y).op for name, (build, _) in CASES.items()}
        sess = tf.Session(graph=g, config=config)
        sess.run(tf.global_variables_initializer())
        out = {
            name: best_per_call(sess.make_callable(t), steps, repeat=3)
            for name, t in targets.items()
        }
        sess.close()
    return out


def numpy_times(steps):
    x, y = arrays()
    return {
        name: best_per_call(lambda f=f: f(x, y), steps, repeat=3)
        for name, (_, f) in CASES.items()
        if f is not None
    }


def torch_times(steps):
    import torch

    torch.set_num_threads(2)
    aten, F = torch.ops.aten, torch.nn.functional
    x, y = (torch.tensor(a) for a in arrays())
    cases = {
        "x + y": lambda: x + y,
        "x * y + x": lambda: x * y + x,
        "relu(x)": lambda: torch.relu(x),
        "x * 2 (broadcast scalar)": lambda: x * 2.0,
        "x + row (broadcast)": lambda: x + y[0],
        "tanh(x)": lambda: torch.tanh(x),
        "sum over axis 1": lambda: x.sum(1),
        "max over axis 0": lambda: x.max(0).values,
        "x < y": lambda: x < y,
        "where(x < 0, x, y)": lambda: torch.where(x < 0, x, y),
        "softmax (rows)": lambda: torch.softmax(x, 1),
        "exp(x)": lambda: torch.exp(x),
        "sin(x)": lambda: torch.sin(x),
        "sigmoid(x)": lambda: torch.sigmoid(x),
        "tanh + its gradient": lambda: aten.tanh_backward(y, torch.tanh(x)),
        "sigmoid + its gradient": lambda: aten.sigmoid_backward(y, torch.sigmoid(x)),
        "elu + its gradient": lambda: aten.elu_backward(y, 1.0, 1, 1, False, F.elu(x)),
        "relu + its gradient": lambda: aten.threshold_backward(y, torch.relu(x), 0),
    }
    return {name: best_per_call(f, steps, repeat=3) for name, f in cases.items()}


def child_times(lib, steps):
    """ms per op of every case `lib` runs, measured in this process."""
    if lib == "ferroflow":
        import ferroflow as ff

        return graph_times(ff, ff.ConfigProto(intra_op_parallelism_threads=2), steps)
    if lib == "tensorflow":
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
        cfg = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
        return graph_times(tf, cfg, steps)
    if lib == "pytorch":
        return torch_times(steps)
    return numpy_times(steps)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if args.child:
        print(json.dumps(child_times(args.child, args.steps)))
        return

    libraries = (
        ("ferroflow", "ferroflow"),
        ("tensorflow", "tensorflow"),
        ("pytorch", "torch"),
        ("numpy (1 thread)", "numpy"),
    )
    results = run_each(__file__, libraries, "--steps", args.steps)

    libs = list(results)
    print(f"{SIDE}x{SIDE} float32, ms per op (lower is better); ratio = other / ferroflow")
    print(f"{'case':<26}" + "".join(f"{lib:>18}" for lib in libs))
    for name in CASES:
        ours = results["ferroflow"][name]
        cells = [f"{ours * 1e3:>18.2f}"]
        for lib in libs[1:]:
            t = results[lib].get(name)
            cells.append(f"{t * 1e3:>10.2f} ({t / ours:4.1f}x)" if t else f"{'':>18}")
        print(f"{name:<26}" + "".join(cells))


if __name__ == "__main__":
    main()
