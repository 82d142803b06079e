"""Train a linear regression by gradient descent through `Session.run`.

The data are generated (a fixed random linear map plus noise); the gradient of the
mean squared error is written out by hand with graph ops (the other examples use
`tf.gradients`), and every step is one `Session.run` of the update ops.

Run: python examples/linear_regression.py [--steps N]
"""

import argparse

import numpy as np

import ferroflow as tf


def main(steps: int = 200, learning_rate: float = 0.1) -> float:
    rng = np.random.default_rng(0)
    n, d = 512, 8
    true_w = rng.normal(size=(d, 1)).astype(np.float32)
    features = rng.normal(size=(n, d)).astype(np.float32)
    labels = features @ true_w + 0.5 + 0.01 * rng.normal(size=(n, 1)).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, d], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(tf.zeros([d, 1]), name="w")
    b = tf.Variable(0.0, name="b")

    err = tf.matmul(x, w) + b - y
    loss = tf.reduce_mean(tf.square(err), name="loss")
    # d(loss)/dw = 2/N * x^T err ; d(loss)/db = 2 * mean(err)
    batch = tf.cast(tf.size(err), tf.float32)
    grad_w = tf.matmul(x, err, transpose_a=True) * (2.0 / batch)
    grad_b = 2.0 * tf.reduce_mean(err)
    train = tf.group(
        w.assign_sub(learning_rate * grad_w), b.assign_sub(learning_rate * grad_b), name="train"
    )

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: features, y: labels}
        for step in range(steps + 1):
            if step % 20 == 0:
                print(f"step {step:4d}  loss {sess.run(loss, feed):.6f}")
            sess.run(train, feed)
        final = float(sess.run(loss, feed))
        w_err = float(np.abs(sess.run(w) - true_w).max())
        print(f"final loss {final:.6f}; max |w - true_w| = {w_err:.4f}; b = {sess.run(b):.4f}")
    return final


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    main(parser.parse_args().steps)
