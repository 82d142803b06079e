"""A two-hidden-layer ReLU classifier on generated spirals, trained by gradient descent.

The gradient descent step is written by hand from `tf.gradients` (one `assign_sub`
per variable); each step is one `Session.run`.

Run: python examples/mlp_classifier.py [--steps N]
"""

import argparse

import numpy as np
from _data import spirals

import ferroflow as tf


def dense(x, units, name, activation=None, seed=0):
    """A fully connected layer with He-initialised weights."""
    fan_in = int(x.shape[1])
    rng = np.random.default_rng(seed)
    init = (rng.normal(size=(fan_in, units)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
    with tf.name_scope(name):
        w = tf.Variable(init, name="weights")
        b = tf.Variable(tf.zeros([units]), name="biases")
        y = tf.nn.bias_add(tf.matmul(x, w), b)
    return activation(y) if activation else y


def main(steps=2000, learning_rate=0.5, hidden=64):
    features, labels = spirals()
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    h1 = dense(x, hidden, "hidden1", tf.nn.relu, seed=1)
    h2 = dense(h1, hidden, "hidden2", tf.nn.relu, seed=2)
    logits = dense(h2, 3, "logits", seed=3)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    correct = tf.equal(tf.argmax(logits, 1, output_type=tf.int32), y)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    params = tf.trainable_variables()
    grads = tf.gradients(loss, params)
    train = tf.group(*[p.assign_sub(learning_rate * g) for p, g in zip(params, grads, strict=True)])
    feed = {x: features, y: labels}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(steps + 1):
            if step % 200 == 0:
                loss_v, acc_v = sess.run([loss, accuracy], feed)
                print(f"step {step:5d}  loss {loss_v:.4f}  accuracy {acc_v:.3f}")
            sess.run(train, feed)
        return float(sess.run(accuracy, feed))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    print(f"final accuracy {main(parser.parse_args().steps):.3f}")
