"""An MNIST classifier fed by a `tf.data` input pipeline, in the TF 1.x style.

The pipeline of TF 1.x's "Importing Data" guide, for arrays held in memory: the
images and labels are sliced into examples by
`tf.data.Dataset.from_tensor_slices((images, labels))`, shuffled (`shuffle`) and
grouped into mini-batches (`batch`). The arrays go in through placeholders, fed when
the iterator is initialized (`make_initializable_iterator`), so they are not embedded
in the graph as constants. Each epoch initializes the training iterator again and
trains until `get_next()` raises `tf.errors.OutOfRangeError`.

The model is a one-hidden-layer ReLU network (weights made by `tf.get_variable` in a
`tf.variable_scope`, shared by the training and the evaluation inputs) trained with
`tf.train.AdamOptimizer` on the softmax cross entropy.

Evaluation goes through a reinitializable iterator: `tf.data.Iterator.from_structure`
with the structure of the batches, and one `make_initializer` op per dataset it can be
pointed at, the shuffled training set and the (unshuffled) evaluation set, itself fed
the validation or the test arrays. After each epoch the program reports the
validation accuracy, and at the end the training and test accuracies.

The data are generated MNIST-like digits (28x28 stroke figures, one per class,
shifted and noisy; see `_data.py`), so nothing is downloaded.

Run: python examples/mnist_dataset.py [--num_epochs=5] [--batch_size=100]
"""

import math
import time

from _data import read_data_sets

import ferroflow as tf

NUM_CLASSES = 10
IMAGE_PIXELS = 28 * 28

flags = tf.app.flags
FLAGS = flags.FLAGS
flags.DEFINE_integer("num_epochs", 5, "Passes over the training set.")
flags.DEFINE_integer("batch_size", 100, "Training batch size.")
flags.DEFINE_integer("eval_batch_size", 500, "Evaluation batch size.")
flags.DEFINE_integer("shuffle_buffer", 5000, "Elements in the shuffle buffer.")
flags.DEFINE_integer("hidden_units", 128, "Units in the hidden layer.")
flags.DEFINE_float("learning_rate", 0.001, "Adam's learning rate.")
flags.DEFINE_integer("train_size", 5000, "Generated training examples.")
flags.DEFINE_integer("seed", 0, "Graph-level random seed (initial weights, shuffling).")


def dense(inputs, units, name, activation=None):
    """A fully connected layer whose variables are `name/weights` and `name/biases`."""
    fan_in = int(inputs.shape[1])
    with tf.variable_scope(name):
        weights = tf.get_variable(
            "weights",
            [fan_in, units],
            initializer=tf.truncated_normal_initializer(stddev=1.0 / math.sqrt(fan_in)),
        )
        biases = tf.get_variable("biases", [units], initializer=tf.zeros_initializer())
        outputs = tf.matmul(inputs, weights) + biases
    return activation(outputs) if activation is not None else outputs


def inference(images):
    """The logits of the network for [batch, IMAGE_PIXELS] images.

    Called once per input pipeline; the second call reuses the first one's variables.
    """
    with tf.variable_scope("mlp", reuse=tf.AUTO_REUSE):
        hidden = dense(images, FLAGS.hidden_units, "hidden", activation=tf.nn.relu)
        return dense(hidden, NUM_CLASSES, "softmax_linear")


def evaluate(sess, init_op, num_correct, feed_dict=None):
    """Runs `init_op`, then counts the correct predictions until the data end.

    Returns:
        The fraction of the examples whose label is the top prediction.
    """
    sess.run(init_op, feed_dict=feed_dict)
    correct = total = 0
    while True:
        try:
            batch_correct, batch_size = sess.run(num_correct)
        except tf.errors.OutOfRangeError:
            break
        correct += batch_correct
        total += batch_size
    return correct / total


def run_training():
    """Trains the network for `--num_epochs` epochs.

    Returns:
        The accuracy on the test set.
    """
    data_sets = read_data_sets(train_size=FLAGS.train_size)
    train, validation, test = data_sets.train, data_sets.validation, data_sets.test
    with tf.Graph().as_default():
        tf.set_random_seed(FLAGS.seed)
        # The arrays are fed when an iterator is initialized, not stored in the graph.
        images_placeholder = tf.placeholder(tf.float32, [None, IMAGE_PIXELS], name="images")
        labels_placeholder = tf.placeholder(tf.int32, [None], name="labels")
        train_dataset = (
            tf.data.Dataset.from_tensor_slices((images_placeholder, labels_placeholder))
            .shuffle(FLAGS.shuffle_buffer)
            .batch(FLAGS.batch_size)
        )
        eval_dataset = tf.data.Dataset.from_tensor_slices(
            (images_placeholder, labels_placeholder)
        ).batch(FLAGS.eval_batch_size)

        # Training: an initializable iterator, restarted (and reshuffled) every epoch.
        train_iterator = train_dataset.make_initializable_iterator()
        images, labels = train_iterator.get_next()
        logits = inference(images)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
            name="xentropy_mean",
        )
        global_step = tf.train.get_or_create_global_step()
        optimizer = tf.train.AdamOptimizer(FLAGS.learning_rate)
        train_op = optimizer.minimize(loss, global_step=global_step)

        # Evaluation: a reinitializable iterator, pointed at one dataset or the other.
        eval_iterator = tf.data.Iterator.from_structure(
            train_dataset.output_types, train_dataset.output_shapes
        )
        train_eval_init = eval_iterator.make_initializer(train_dataset)
        eval_init = eval_iterator.make_initializer(eval_dataset)
        eval_images, eval_labels = eval_iterator.get_next()
        predictions = tf.argmax(inference(eval_images), 1, output_type=tf.int32)
        correct = tf.reduce_sum(tf.cast(tf.equal(predictions, eval_labels), tf.int32))
        num_correct = (correct, tf.size(eval_labels))

        def feed(data_set):
            return {images_placeholder: data_set.images, labels_placeholder: data_set.labels}

        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for epoch in range(1, FLAGS.num_epochs + 1):
                start_time = time.time()
                sess.run(train_iterator.initializer, feed_dict=feed(train))
                losses = []
                while True:
                    try:
                        _, loss_value = sess.run([train_op, loss])
                    except tf.errors.OutOfRangeError:
                        break
                    losses.append(loss_value)
                duration = time.time() - start_time
                accuracy = evaluate(sess, eval_init, num_correct, feed(validation))
                print(
                    f"Epoch {epoch}: step {sess.run(global_step)}, "
                    f"loss = {sum(losses) / len(losses):.4f}, "
                    f"validation accuracy = {accuracy:.4f} ({duration:.2f} sec)"
                )
            train_accuracy = evaluate(sess, train_eval_init, num_correct, feed(train))
            test_accuracy = evaluate(sess, eval_init, num_correct, feed(test))
        print(f"Training accuracy: {train_accuracy:.4f}")
        print(f"Test accuracy: {test_accuracy:.4f}")
        return test_accuracy


def main(_):
    run_training()


if __name__ == "__main__":
    tf.app.run(main)
