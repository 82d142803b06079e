"""conv2d's three kernels apart: forward, input gradient and filter gradient.

Shapes: 3x3 convolutions at 32-128 channels (Winograd's F(2x2, 3x3) in ferroflow), an
RGB first layer (3 input channels: im2col, and col2im for the input gradient) and a
1x1 convolution (a plain product). Each library (ferroflow, TensorFlow's compat.v1
graph with its oneDNN kernels) runs in its own process with 2 threads, each kernel as
a graph target on variables. Prints ms per kernel and TF's time over ferroflow's.

Run: python benches/python/bench_conv_parts.py [--steps N]
"""

import argparse
import json
import os

import numpy as np
from _timing import best_per_call, run_each

# (input NHWC, filter HWIO), SAME padding, stride 1.
SHAPES = [
    ((64, 32, 32, 64), (3, 3, 64, 64)),
    ((128, 28, 28, 32), (3, 3, 32, 64)),
    ((64, 16, 16, 128), (3, 3, 128, 128)),
    ((64, 32, 32, 3), (3, 3, 3, 32)),
    ((64, 32, 32, 64), (1, 1, 64, 128)),
]
PARTS = ("forward", "input grad", "filter grad")


def library_times(lib, steps):
    if lib == "tensorflow":
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
    else:
        import ferroflow as tf
    rng = np.random.default_rng(0)
    config = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
    out = []
    for xs, fs in SHAPES:
        with tf.Graph().as_default():
            x = tf.Variable(rng.normal(size=xs).astype(np.float32))
            f = tf.Variable(rng.normal(size=fs).astype(np.float32) * 0.1)
            dy = tf.Variable(rng.normal(size=xs[:3] + fs[3:]).astype(np.float32))
            strides = [1, 1, 1, 1]
            kernels = [
                tf.nn.conv2d(x, f, strides, "SAME"),
                tf.nn.conv2d_backprop_input(tf.shape(x), f, dy, strides, "SAME"),
                tf.nn.conv2d_backprop_filter(x, tf.shape(f), dy, strides, "SAME"),
            ]
            sess = tf.Session(config=config)
            sess.run(tf.global_variables_initializer())
            out.append([best_per_call(sess.make_callable(k.op), steps, 3) for k in kernels])
            sess.close()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if args.child:
        print(json.dumps(library_times(args.child, args.steps)))
        return
    libraries = (("ferroflow", "ferroflow"), ("tensorflow", "tensorflow"))
    times = run_each(__file__, libraries, "--steps", args.steps)
    print("ms per kernel (TF's time / ferroflow's: above 1 means ferroflow is faster)")
    print(f"{'input':>18s} {'filter':>16s} {'kernel':>12s} {'ferroflow':>10s} {'tensorflow':>11s}")
    for i, (xs, fs) in enumerate(SHAPES):
        for j, part in enumerate(PARTS):
            ours = times["ferroflow"][i][j]
            line = f"{'x'.join(map(str, xs)):>18s} {'x'.join(map(str, fs)):>16s} {part:>12s}"
            line += f" {ours * 1e3:10.2f}"
            if "tensorflow" in times:
                theirs = times["tensorflow"][i][j]
                line += f" {theirs * 1e3:11.2f} ({theirs / ours:4.2f}x)"
            print(line)


if __name__ == "__main__":
    main()
