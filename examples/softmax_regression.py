"""Softmax regression trained by gradient descent written with `tf.gradients`.

Run: python examples/softmax_regression.py [--steps N]
"""

import argparse

from _data import blobs

import ferroflow as tf


def main(steps=300, learning_rate=0.5):
    features, labels = blobs()
    classes = int(labels.max()) + 1
    x = tf.placeholder(tf.float32, [None, features.shape[1]], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    w = tf.Variable(tf.zeros([features.shape[1], classes]), name="w")
    b = tf.Variable(tf.zeros([classes]), name="b")
    logits = tf.matmul(x, w) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    accuracy = tf.reduce_mean(
        tf.cast(tf.equal(tf.argmax(logits, 1, output_type=tf.int32), y), tf.float32)
    )
    grads = tf.gradients(loss, [w, b])
    train = tf.group(*[v.assign_sub(learning_rate * g) for v, g in zip([w, b], grads)])
    feed = {x: features, y: labels}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(steps + 1):
            if step % 50 == 0:
                loss_v, acc_v = sess.run([loss, accuracy], feed)
                print(f"step {step:4d}  loss {loss_v:.4f}  accuracy {acc_v:.3f}")
            sess.run(train, feed)
        return float(sess.run(accuracy, feed))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    print(f"final accuracy {main(parser.parse_args().steps):.3f}")
