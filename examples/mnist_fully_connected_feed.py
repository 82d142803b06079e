"""Trains and evaluates a two-hidden-layer MNIST network using a feed dictionary.

The structure of TF 1.x's classic `fully_connected_feed.py` tutorial: the model is
built by `inference()` (two ReLU layers and a linear softmax layer, each under its own
`tf.name_scope`, with `tf.Variable(tf.truncated_normal(...))` weights), `loss()`,
`training()` (gradient descent counting a `global_step` variable) and `evaluation()`
(`tf.nn.in_top_k`); each step feeds a mini-batch into placeholders. Every
`--summary_every` steps the merged summaries go to a `tf.summary.FileWriter`, and every
`--checkpoint_every` steps (and at the end) a `tf.train.Saver` writes a checkpoint and
`do_eval` reports the precision on the training, validation and test sets.

The data are generated MNIST-like digits (28x28 stroke figures, one per class,
shifted and noisy; see `_data.py`), so nothing is downloaded.

Run: python examples/mnist_fully_connected_feed.py [--max_steps=2000] [--train_dir=DIR]
Then: tensorboard --logdir DIR
"""

import math
import os
import time

from _data import read_data_sets

import ferroflow as tf

NUM_CLASSES = 10
IMAGE_SIZE = 28
IMAGE_PIXELS = IMAGE_SIZE * IMAGE_SIZE

flags = tf.app.flags
FLAGS = flags.FLAGS
flags.DEFINE_float("learning_rate", 0.1, "Initial learning rate.")
flags.DEFINE_integer("max_steps", 2000, "Number of steps to run the trainer.")
flags.DEFINE_integer("hidden1", 128, "Number of units in hidden layer 1.")
flags.DEFINE_integer("hidden2", 32, "Number of units in hidden layer 2.")
flags.DEFINE_integer("batch_size", 100, "Batch size; must divide the dataset sizes evenly.")
flags.DEFINE_integer("summary_every", 100, "Steps between summaries.")
flags.DEFINE_integer("checkpoint_every", 1000, "Steps between checkpoints and evaluations.")
flags.DEFINE_string(
    "train_dir",
    os.path.join(os.getenv("TEST_TMPDIR", "/tmp"), "ferroflow/mnist/logs/fully_connected_feed"),
    "Directory for the checkpoints and TensorBoard event files.",
)


def inference(images, hidden1_units, hidden2_units):
    """Builds the model up to where it may be used for inference.

    Args:
        images: Images placeholder, [batch_size, IMAGE_PIXELS].
        hidden1_units: Size of the first hidden layer.
        hidden2_units: Size of the second hidden layer.

    Returns:
        The logits, [batch_size, NUM_CLASSES].
    """
    with tf.name_scope("hidden1"):
        weights = tf.Variable(
            tf.truncated_normal(
                [IMAGE_PIXELS, hidden1_units], stddev=1.0 / math.sqrt(float(IMAGE_PIXELS))
            ),
            name="weights",
        )
        biases = tf.Variable(tf.zeros([hidden1_units]), name="biases")
        hidden1 = tf.nn.relu(tf.matmul(images, weights) + biases)
    with tf.name_scope("hidden2"):
        weights = tf.Variable(
            tf.truncated_normal(
                [hidden1_units, hidden2_units], stddev=1.0 / math.sqrt(float(hidden1_units))
            ),
            name="weights",
        )
        biases = tf.Variable(tf.zeros([hidden2_units]), name="biases")
        hidden2 = tf.nn.relu(tf.matmul(hidden1, weights) + biases)
    with tf.name_scope("softmax_linear"):
        weights = tf.Variable(
            tf.truncated_normal(
                [hidden2_units, NUM_CLASSES], stddev=1.0 / math.sqrt(float(hidden2_units))
            ),
            name="weights",
        )
        biases = tf.Variable(tf.zeros([NUM_CLASSES]), name="biases")
        logits = tf.matmul(hidden2, weights) + biases
    return logits


def loss(logits, labels):
    """The mean cross-entropy of the logits against the integer labels."""
    labels = tf.to_int64(labels)
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits, name="xentropy"
    )
    return tf.reduce_mean(cross_entropy, name="xentropy_mean")


def training(loss, learning_rate):
    """The op that takes one gradient-descent step, with a summary of the loss."""
    tf.summary.scalar("loss", loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    return optimizer.minimize(loss, global_step=global_step)


def evaluation(logits, labels):
    """The number of examples whose label is the top prediction."""
    correct = tf.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))


def placeholder_inputs(batch_size):
    """Placeholders for one batch of images and labels."""
    images_placeholder = tf.placeholder(tf.float32, shape=(batch_size, IMAGE_PIXELS))
    labels_placeholder = tf.placeholder(tf.int32, shape=(batch_size,))
    return images_placeholder, labels_placeholder


def fill_feed_dict(data_set, images_pl, labels_pl):
    """The feed for the next batch of `data_set`."""
    images_feed, labels_feed = data_set.next_batch(FLAGS.batch_size)
    return {images_pl: images_feed, labels_pl: labels_feed}


def do_eval(sess, eval_correct, images_placeholder, labels_placeholder, data_set):
    """Runs one evaluation over a full epoch of `data_set`; returns the precision."""
    true_count = 0
    steps_per_epoch = data_set.num_examples // FLAGS.batch_size
    num_examples = steps_per_epoch * FLAGS.batch_size
    for _ in range(steps_per_epoch):
        feed_dict = fill_feed_dict(data_set, images_placeholder, labels_placeholder)
        true_count += sess.run(eval_correct, feed_dict=feed_dict)
    precision = float(true_count) / num_examples
    print(
        f"  Num examples: {num_examples}  Num correct: {true_count}  "
        f"Precision @ 1: {precision:0.04f}"
    )
    return precision


def run_training():
    """Trains the model for `--max_steps` steps.

    Returns:
        The (validation, test) precisions of the last evaluation.
    """
    data_sets = read_data_sets()
    with tf.Graph().as_default():
        images_placeholder, labels_placeholder = placeholder_inputs(FLAGS.batch_size)
        logits = inference(images_placeholder, FLAGS.hidden1, FLAGS.hidden2)
        loss_op = loss(logits, labels_placeholder)
        train_op = training(loss_op, FLAGS.learning_rate)
        eval_correct = evaluation(logits, labels_placeholder)
        summary = tf.summary.merge_all()
        init = tf.global_variables_initializer()
        saver = tf.train.Saver()
        sess = tf.Session()
        summary_writer = tf.summary.FileWriter(FLAGS.train_dir, sess.graph)
        sess.run(init)
        precisions = None
        for step in range(FLAGS.max_steps):
            start_time = time.time()
            feed_dict = fill_feed_dict(data_sets.train, images_placeholder, labels_placeholder)
            _, loss_value = sess.run([train_op, loss_op], feed_dict=feed_dict)
            duration = time.time() - start_time
            if step % FLAGS.summary_every == 0:
                print(f"Step {step}: loss = {loss_value:.2f} ({duration:.3f} sec)")
                summary_str = sess.run(summary, feed_dict=feed_dict)
                summary_writer.add_summary(summary_str, step)
                summary_writer.flush()
            if (step + 1) % FLAGS.checkpoint_every == 0 or (step + 1) == FLAGS.max_steps:
                checkpoint_file = os.path.join(FLAGS.train_dir, "model.ckpt")
                saved = saver.save(sess, checkpoint_file, global_step=step)
                tf.logging.info("Saved checkpoint %s", saved)
                args = (sess, eval_correct, images_placeholder, labels_placeholder)
                print("Training Data Eval:")
                do_eval(*args, data_sets.train)
                print("Validation Data Eval:")
                validation = do_eval(*args, data_sets.validation)
                print("Test Data Eval:")
                precisions = validation, do_eval(*args, data_sets.test)
        summary_writer.close()
        sess.close()
        return precisions


def main(_):
    tf.logging.set_verbosity(tf.logging.INFO)
    if tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)
    run_training()


if __name__ == "__main__":
    tf.app.run(main)
