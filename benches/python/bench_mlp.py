"""Forward + backward of an MLP 784-256-256-10 (batch 128, ReLU, softmax cross entropy).

Times one training-gradient step (loss and all six parameter gradients) in ferroflow,
TensorFlow (compat.v1 graph + Session) and PyTorch (eager), in the same process, each
with 2 threads, and prints milliseconds per step and ratios.

Run: python benches/python/bench_mlp.py [--steps N]
"""

import argparse
import itertools
import os

import numpy as np
from _timing import best_per_call

BATCH, SIZES = 128, (784, 256, 256, 10)


def params(seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for fan_in, fan_out in itertools.pairwise(SIZES):
        w = (rng.normal(size=(fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        out.append((w, np.zeros(fan_out, np.float32)))
    return out


def batch(seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], size=BATCH).astype(np.int32)
    return x, y


def time_step(step, n):
    return best_per_call(step, n, repeat=5, warmup=min(20, n))


def graph_step(tf, config):
    """A callable running loss + gradients in a TF-1.x style library (ferroflow or TF)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [BATCH, SIZES[0]])
        y = tf.placeholder(tf.int32, [BATCH])
        h, variables = x, []
        for i, (w0, b0) in enumerate(params()):
            w, b = tf.Variable(w0), tf.Variable(b0)
            variables += [w, b]
            h = tf.nn.bias_add(tf.matmul(h, w), b)
            if i < len(SIZES) - 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        grads = tf.gradients(loss, variables)
        sess = tf.Session(graph=g, config=config)
        sess.run(tf.global_variables_initializer())
        run = sess.make_callable([loss, *grads], feed_list=[x, y])
    xb, yb = batch()
    return lambda: run(xb, yb)


def torch_step():
    import torch

    torch.set_num_threads(2)
    tensors = []
    for w0, b0 in params():
        tensors += [torch.tensor(w0, requires_grad=True), torch.tensor(b0, requires_grad=True)]
    xb, yb = batch()
    x, y = torch.tensor(xb), torch.tensor(yb, dtype=torch.long)

    def step():
        h = x
        for i in range(0, len(tensors), 2):
            h = h @ tensors[i] + tensors[i + 1]
            if i < len(tensors) - 2:
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h, y)
        return torch.autograd.grad(loss, tensors)

    return step


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()

    import ferroflow as ff

    results = {}
    cfg = ff.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
    results["ferroflow"] = time_step(graph_step(ff, cfg), args.steps)
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf1

        tf1.disable_v2_behavior()
        tcfg = tf1.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
        results["tensorflow"] = time_step(graph_step(tf1, tcfg), args.steps)
    except ImportError:
        print("tensorflow not installed: skipped")
    try:
        results["pytorch"] = time_step(torch_step(), args.steps)
    except ImportError:
        print("torch not installed: skipped")
    ours = results["ferroflow"]
    for name, t in results.items():
        ratio = "" if name == "ferroflow" else f"  ({t / ours:.2f}x ferroflow's time)"
        print(f"{name:11s} {t * 1e3:8.3f} ms/step{ratio}")


if __name__ == "__main__":
    main()
