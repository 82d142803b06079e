"""A convolutional MNIST classifier built with `tf.layers`, trained under a Supervisor.

The model of TF 1.x's "layers" tutorial (`cnn_mnist.py`): two `tf.layers.conv2d` +
`tf.layers.max_pooling2d` stages, `tf.layers.flatten`, a `tf.layers.dense` ReLU layer
with `tf.layers.dropout` (active only while training) and a dense logits layer, the
loss from `tf.losses.sparse_softmax_cross_entropy` and the accuracy from
`tf.metrics.accuracy`, whose local variables `tf.local_variables_initializer()` resets
before each evaluation pass.

Training runs under `tf.train.Supervisor` and `sv.managed_session()`: the Supervisor
initializes the model or restores it from the latest checkpoint in `--train_dir`,
saves checkpoints every `--save_model_secs` seconds (and the program saves one at the
end), and writes the graph to TensorBoard's event file. Because the model is fed
through placeholders, the summaries are computed in the training loop and handed to
the Supervisor with `sv.summary_computed` (its own summary service would run them
without a feed). Run it again with a larger `--max_steps` and it resumes.

The data are generated MNIST-like digits (see `_data.py`), so nothing is downloaded.

Run: python examples/mnist_layers_supervisor.py [--max_steps=1000] [--train_dir=DIR]
Then: tensorboard --logdir DIR
"""

from _data import read_data_sets

import ferroflow as tf

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_string(
    "train_dir", "/tmp/ferroflow/mnist_layers", "Directory for checkpoints and event logs."
)
tf.app.flags.DEFINE_integer("max_steps", 1000, "Number of training steps (in all, across runs).")
tf.app.flags.DEFINE_integer("batch_size", 50, "Training batch size.")
tf.app.flags.DEFINE_float("learning_rate", 0.001, "Adam's learning rate.")
tf.app.flags.DEFINE_integer("eval_every", 200, "Steps between evaluations on the validation set.")
tf.app.flags.DEFINE_integer("summary_every", 50, "Steps between training summaries.")
tf.app.flags.DEFINE_integer("save_model_secs", 60, "Seconds between checkpoints.")

IMAGE_SIZE = 28
NUM_CLASSES = 10


def cnn_model(images, training):
    """The logits of a two-convolution network for [batch, 784] images."""
    input_layer = tf.reshape(images, [-1, IMAGE_SIZE, IMAGE_SIZE, 1])
    conv1 = tf.layers.conv2d(
        inputs=input_layer, filters=8, kernel_size=[5, 5], padding="same", activation=tf.nn.relu
    )
    pool1 = tf.layers.max_pooling2d(inputs=conv1, pool_size=[2, 2], strides=2)
    conv2 = tf.layers.conv2d(
        inputs=pool1, filters=16, kernel_size=[5, 5], padding="same", activation=tf.nn.relu
    )
    pool2 = tf.layers.max_pooling2d(inputs=conv2, pool_size=[2, 2], strides=2)
    pool2_flat = tf.layers.flatten(pool2)
    dense = tf.layers.dense(inputs=pool2_flat, units=128, activation=tf.nn.relu)
    dropout = tf.layers.dropout(inputs=dense, rate=0.4, training=training)
    return tf.layers.dense(inputs=dropout, units=NUM_CLASSES)


def evaluate(sess, data_set, images, labels, accuracy, update_accuracy, reset_metrics):
    """The streaming accuracy over all of `data_set`, in batches."""
    sess.run(reset_metrics)
    for start in range(0, data_set.num_examples, FLAGS.batch_size):
        end = start + FLAGS.batch_size
        feed = {images: data_set.images[start:end], labels: data_set.labels[start:end]}
        sess.run(update_accuracy, feed)
    return float(sess.run(accuracy))


def run_training():
    """Trains (or resumes training) up to `--max_steps` global steps.

    Returns:
        The accuracy on the test set.
    """
    data_sets = read_data_sets()
    with tf.Graph().as_default():
        images = tf.placeholder(tf.float32, [None, IMAGE_SIZE * IMAGE_SIZE], name="images")
        labels = tf.placeholder(tf.int32, [None], name="labels")
        training = tf.placeholder_with_default(False, [], name="training")
        logits = cnn_model(images, training)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        global_step = tf.train.get_or_create_global_step()
        optimizer = tf.train.AdamOptimizer(FLAGS.learning_rate)
        train_op = optimizer.minimize(loss, global_step=global_step)
        predictions = tf.argmax(logits, axis=1, output_type=tf.int32)
        accuracy, update_accuracy = tf.metrics.accuracy(labels=labels, predictions=predictions)
        reset_metrics = tf.local_variables_initializer()
        train_summary = tf.summary.merge([tf.summary.scalar("loss", loss)])
        eval_summary = tf.summary.merge([tf.summary.scalar("validation_accuracy", accuracy)])
        eval_args = (images, labels, accuracy, update_accuracy, reset_metrics)

        sv = tf.train.Supervisor(
            logdir=FLAGS.train_dir,
            local_init_op=reset_metrics,
            summary_op=None,  # Summaries need a feed: the loop computes them.
            save_model_secs=FLAGS.save_model_secs,
        )
        with sv.managed_session() as sess:
            step = int(sess.run(global_step))
            if step:
                tf.logging.info(
                    "Resumed from %s at step %d", tf.train.latest_checkpoint(FLAGS.train_dir), step
                )
            while step < FLAGS.max_steps and not sv.should_stop():
                batch_images, batch_labels = data_sets.train.next_batch(FLAGS.batch_size)
                feed = {images: batch_images, labels: batch_labels, training: True}
                if step % FLAGS.summary_every == 0:
                    _, loss_value, summary = sess.run([train_op, loss, train_summary], feed)
                    sv.summary_computed(sess, summary, global_step=step)
                    tf.logging.info("step %d: loss = %.3f", step, loss_value)
                else:
                    sess.run(train_op, feed)
                step += 1
                if step % FLAGS.eval_every == 0 or step == FLAGS.max_steps:
                    value = evaluate(sess, data_sets.validation, *eval_args)
                    sv.summary_computed(sess, sess.run(eval_summary), global_step=step)
                    tf.logging.info("step %d: validation accuracy = %.3f", step, value)
            # The Supervisor saves on a timer; save the last step too.
            sv.saver.save(sess, sv.save_path, global_step=global_step)
            test_accuracy = evaluate(sess, data_sets.test, *eval_args)
            tf.logging.info("test accuracy = %.3f", test_accuracy)
            return test_accuracy


def main(_):
    tf.logging.set_verbosity(tf.logging.INFO)
    if not tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.MakeDirs(FLAGS.train_dir)
    run_training()


if __name__ == "__main__":
    tf.app.run(main)
