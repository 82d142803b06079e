"""conv3d 3x3x3, SAME, on a batch of 8 16x32x32x16 volumes (32 output channels).

Times the forward convolution, and forward + backward (input and filter gradients),
in ferroflow and TensorFlow (compat.v1 graph + Session), with PyTorch eager as a
reference, in the same process, each with 2 threads; prints ms per step and ratios.

Run: python benches/python/bench_conv3d.py [--steps N]
"""

import argparse
import os

import numpy as np
from _timing import best_per_call

N, D, H, W, C, K, OUT = 8, 16, 32, 32, 16, 3, 32


def data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, D, H, W, C)).astype(np.float32)
    f = (rng.normal(size=(K, K, K, C, OUT)) * np.sqrt(2.0 / (K**3 * C))).astype(np.float32)
    return x, f


def time_step(step, n):
    return best_per_call(step, n, repeat=3, warmup=min(3, n))


def graph_steps(tf, config):
    """(forward, forward+backward) callables in a TF-1.x style library."""
    g = tf.Graph()
    with g.as_default():
        x0, f0 = data()
        x = tf.placeholder(tf.float32, [N, D, H, W, C])
        f = tf.Variable(f0)
        y = tf.nn.conv3d(x, f, [1, 1, 1, 1, 1], "SAME")
        grads = tf.gradients(tf.reduce_sum(y), [x, f])
        sess = tf.Session(graph=g, config=config)
        sess.run(tf.global_variables_initializer())
        fwd = sess.make_callable(y, feed_list=[x])
        both = sess.make_callable([y, *grads], feed_list=[x])
    return (lambda: fwd(x0)), (lambda: both(x0))


def torch_steps():
    import torch

    torch.set_num_threads(2)
    x0, f0 = data()
    x = torch.tensor(x0).permute(0, 4, 1, 2, 3).contiguous().requires_grad_(True)
    f = torch.tensor(f0).permute(4, 3, 0, 1, 2).contiguous().requires_grad_(True)

    def fwd():
        with torch.no_grad():
            return torch.nn.functional.conv3d(x, f, padding=1)

    def both():
        y = torch.nn.functional.conv3d(x, f, padding=1)
        return torch.autograd.grad(y.sum(), [x, f])

    return fwd, both


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()

    import ferroflow as ff

    results = {}
    cfg = ff.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
    results["ferroflow"] = [time_step(s, args.steps) for s in graph_steps(ff, cfg)]
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf1

        tf1.disable_v2_behavior()
        tcfg = tf1.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
        results["tensorflow"] = [time_step(s, args.steps) for s in graph_steps(tf1, tcfg)]
    except ImportError:
        print("tensorflow not installed: skipped")
    try:
        results["pytorch"] = [time_step(s, args.steps) for s in torch_steps()]
    except ImportError:
        print("torch not installed: skipped")
    flops = 2 * N * D * H * W * K**3 * C * OUT
    ours = results["ferroflow"]
    for name, (fwd, both) in results.items():
        ratio = ""
        if name != "ferroflow":
            ratio = f"  ({fwd / ours[0]:.2f}x / {both / ours[1]:.2f}x ferroflow's time)"
        print(
            f"{name:11s} forward {fwd * 1e3:7.2f} ms ({flops / fwd / 1e9:5.1f} GFLOP/s)"
            f"  fwd+bwd {both * 1e3:7.2f} ms{ratio}"
        )


if __name__ == "__main__":
    main()
