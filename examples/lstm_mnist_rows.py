"""An LSTM that reads MNIST-like digits row by row, TF-1.x's classic RNN tutorial.

Each 28x28 image is a sequence of 28 rows of 28 pixels. The TF-1.x tutorial feeds the
rows to `tf.nn.static_rnn` over a `tf.nn.rnn_cell.BasicLSTMCell` (128 units) and
classifies the last output; `--rnn dynamic` runs the same cell with
`tf.nn.dynamic_rnn`, and `--rnn bidirectional` a forward and a backward cell with
`tf.nn.static_bidirectional_rnn`. The images are generated (`_data.py`: a stroke
figure per class, shifted and noisy), so nothing is downloaded. Adam, softmax cross
entropy, mini-batches of 64.

Run: python examples/lstm_mnist_rows.py [--steps N] [--rnn static|dynamic|bidirectional]
"""

import argparse

from _data import read_data_sets

import ferroflow as tf

ROWS, COLS, CLASSES = 28, 28, 10


def model(x, rnn, hidden=128):
    """Logits for images `x` `[batch, 28, 28]` read row by row."""
    out_w = 2 * hidden if rnn == "bidirectional" else hidden
    weights = tf.Variable(tf.random_normal([out_w, CLASSES], stddev=0.1, seed=1), name="out_w")
    biases = tf.Variable(tf.zeros([CLASSES]), name="out_b")
    if rnn == "dynamic":
        cell = tf.nn.rnn_cell.BasicLSTMCell(hidden, forget_bias=1.0)
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        last = outputs[:, -1, :]
    else:
        steps = tf.unstack(x, ROWS, axis=1)
        if rnn == "bidirectional":
            fw = tf.nn.rnn_cell.BasicLSTMCell(hidden, forget_bias=1.0)
            bw = tf.nn.rnn_cell.BasicLSTMCell(hidden, forget_bias=1.0)
            outputs, _, _ = tf.nn.static_bidirectional_rnn(fw, bw, steps, dtype=tf.float32)
        else:
            cell = tf.nn.rnn_cell.BasicLSTMCell(hidden, forget_bias=1.0)
            outputs, _ = tf.nn.static_rnn(cell, steps, dtype=tf.float32)
        last = outputs[-1]
    return tf.matmul(last, weights) + biases


def main(steps=300, rnn="static", batch_size=64, learning_rate=0.01, seed=0):
    """Trains; returns the test accuracy."""
    data = read_data_sets(train_size=3000, validation_size=0, test_size=500, seed=seed)
    tf.reset_default_graph()
    tf.set_random_seed(seed)
    x = tf.placeholder(tf.float32, [None, ROWS, COLS], name="images")
    y = tf.placeholder(tf.int32, [None], name="labels")
    logits = model(x, rnn)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(learning_rate).minimize(loss)
    correct = tf.equal(tf.argmax(logits, 1, output_type=tf.int32), y)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(steps):
            images, labels = data.train.next_batch(batch_size)
            feed = {x: images.reshape(-1, ROWS, COLS), y: labels}
            _, value = sess.run([train, loss], feed)
            if step % 50 == 0 or step == steps - 1:
                print(f"step {step}: loss {value:.4f}")
        test = {x: data.test.images.reshape(-1, ROWS, COLS), y: data.test.labels}
        result = float(sess.run(accuracy, test))
    print(f"test accuracy {result:.3f}")
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rnn", choices=["static", "dynamic", "bidirectional"], default="static")
    args = parser.parse_args()
    main(steps=args.steps, rnn=args.rnn)
