"""Training a small `tf.layers` CNN (the MNIST "layers" tutorial's shape, batch 64).

conv2d(16, 5x5, relu) -> max_pooling2d -> conv2d(32, 5x5, relu) -> max_pooling2d ->
flatten -> dense(128, relu) -> dropout(0.4, training) -> dense(10), sparse softmax
cross entropy, one Adam step, in ferroflow (`tf.layers`) and TensorFlow (the same
TF-1.x layers from `legacy_tf_layers`, as TF 2.x with Keras 3 no longer exports
`tf.compat.v1.layers`), in the same process, each with 2 threads. Prints
milliseconds per step and the ratio.

Run: python benches/python/bench_layers.py [--steps N]
"""

import argparse
import os
import types

import numpy as np
from _timing import best_per_call

BATCH = 64


def batch(seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(BATCH, 28, 28, 1)).astype(np.float32)
    y = rng.integers(0, 10, size=BATCH).astype(np.int32)
    return x, y


def train_step(tf, layers, config):
    """A callable running one Adam step of the CNN built with `layers`."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [BATCH, 28, 28, 1])
        y = tf.placeholder(tf.int32, [BATCH])
        h = layers.conv2d(x, 16, 5, padding="same", activation=tf.nn.relu)
        h = layers.max_pooling2d(h, 2, 2)
        h = layers.conv2d(h, 32, 5, padding="same", activation=tf.nn.relu)
        h = layers.max_pooling2d(h, 2, 2)
        h = layers.dense(layers.flatten(h), 128, activation=tf.nn.relu)
        h = layers.dropout(h, 0.4, training=True)
        logits = layers.dense(h, 10)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        sess = tf.Session(graph=g, config=config)
        sess.run(tf.global_variables_initializer())
        run = sess.make_callable([loss, train], feed_list=[x, y])
    xb, yb = batch()
    return lambda: run(xb, yb)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()

    import ferroflow as ff

    cfg = ff.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
    results = {"ferroflow": best_per_call(train_step(ff, ff.layers, cfg), args.steps, 5, 5)}
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf1
        from tensorflow.python.keras.legacy_tf_layers import convolutional, core, pooling

        tf1.disable_v2_behavior()
        tf_layers = types.SimpleNamespace(
            conv2d=convolutional.conv2d,
            max_pooling2d=pooling.max_pooling2d,
            dense=core.dense,
            flatten=core.flatten,
            dropout=core.dropout,
        )
        tcfg = tf1.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
        results["tensorflow"] = best_per_call(train_step(tf1, tf_layers, tcfg), args.steps, 5, 5)
    except ImportError:
        print("tensorflow (with its legacy TF-1.x layers) not installed: skipped")
    ours = results["ferroflow"]
    print("tf.layers CNN, Adam training step")
    for name, t in results.items():
        ratio = "" if name == "ferroflow" else f"  ({t / ours:.2f}x ferroflow's time)"
        print(f"  {name:11s} {t * 1e3:8.3f} ms/step {1 / t:8.0f} steps/s{ratio}")


if __name__ == "__main__":
    main()
