"""Writes MNIST-like digits to TFRecord files, then trains on them through `tf.data`.

The two halves of TF 1.x's `convert_to_records.py` and `fully_connected_reader.py`
tutorials:

- `convert_to()` writes each image as a `tf.train.Example` (its pixels as a bytes
  feature `image_raw`, one byte a pixel, with int64 features `height`, `width`,
  `depth` and `label`) to a TFRecord file with `tf.python_io.TFRecordWriter`;
- `inputs()` reads a file back with `tf.data.TFRecordDataset`, whose `map(decode)`
  parses each record with `tf.parse_single_example` (`tf.FixedLenFeature`s), turns
  the bytes into pixels with `tf.decode_raw` and scales them to [-0.5, 0.5]; the
  training examples are then shuffled (`shuffle`), grouped into mini-batches
  (`batch`) and repeated `--num_epochs` times (`repeat`), and a
  `make_one_shot_iterator()` hands them to the model.

Training runs under `tf.train.MonitoredTrainingSession` until the data end: the
iterator's `OutOfRangeError` leaves the `with` block as a clean stop, and the
session's hooks end as they do at a `StopAtStepHook`'s last step (the checkpoint
hook saves the final step). A `FinalOpsHook` then measures the accuracy on the test
file, read as a single batch by a second pipeline.

The model is a one-hidden-layer ReLU network (`tf.get_variable` weights, shared by
the two pipelines) trained with `tf.train.AdamOptimizer`. The data are generated
MNIST-like digits (see `_data.py`), so nothing is downloaded.

Run: python examples/tfrecord_pipeline.py [--num_epochs=10] [--train_dir=DIR]
Then: tensorboard --logdir DIR
"""

import math
import os

from _data import synthetic_digits

import ferroflow as tf

NUM_CLASSES = 10
IMAGE_SIZE = 28
IMAGE_PIXELS = IMAGE_SIZE * IMAGE_SIZE
TRAIN_FILE = "train.tfrecords"
TEST_FILE = "test.tfrecords"

flags = tf.app.flags
FLAGS = flags.FLAGS
flags.DEFINE_string(
    "data_dir", "/tmp/ferroflow/tfrecord_pipeline/data", "Directory for the TFRecord files."
)
flags.DEFINE_string(
    "train_dir",
    "/tmp/ferroflow/tfrecord_pipeline/logs",
    "Directory for checkpoints and event logs (empty: none are written).",
)
flags.DEFINE_integer("train_size", 2000, "Generated training examples.")
flags.DEFINE_integer("test_size", 500, "Generated test examples.")
flags.DEFINE_integer("num_epochs", 10, "Passes over the training file.")
flags.DEFINE_integer("batch_size", 100, "Training batch size.")
flags.DEFINE_integer("hidden_units", 128, "Units in the hidden layer.")
flags.DEFINE_float("learning_rate", 0.001, "Adam's learning rate.")
flags.DEFINE_integer("log_every", 20, "Steps between progress lines.")
flags.DEFINE_integer("seed", 0, "Graph-level random seed (initial weights, shuffling).")


def _int64_feature(value):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))


def _bytes_feature(value):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))


def convert_to(images, labels, path):
    """Writes [n, IMAGE_PIXELS] images in [0, 1] and their labels as `tf.train.Example`s."""
    pixels = (images * 255.0).round().astype("uint8")
    with tf.python_io.TFRecordWriter(path) as writer:
        for image, label in zip(pixels, labels):
            example = tf.train.Example(
                features=tf.train.Features(
                    feature={
                        "height": _int64_feature(IMAGE_SIZE),
                        "width": _int64_feature(IMAGE_SIZE),
                        "depth": _int64_feature(1),
                        "label": _int64_feature(int(label)),
                        "image_raw": _bytes_feature(image.tobytes()),
                    }
                )
            )
            writer.write(example.SerializeToString())
    print(f"Wrote {len(labels)} examples to {path}")


def write_data():
    """Generates the training and test digits and writes their TFRecord files."""
    tf.gfile.MakeDirs(FLAGS.data_dir)
    images, labels = synthetic_digits(FLAGS.train_size + FLAGS.test_size)
    train = slice(0, FLAGS.train_size)
    test = slice(FLAGS.train_size, None)
    convert_to(images[train], labels[train], os.path.join(FLAGS.data_dir, TRAIN_FILE))
    convert_to(images[test], labels[test], os.path.join(FLAGS.data_dir, TEST_FILE))


def decode(serialized_example):
    """Parses one `tf.train.Example` into an image [IMAGE_PIXELS] uint8 and a label."""
    features = tf.parse_single_example(
        serialized_example,
        features={
            "image_raw": tf.FixedLenFeature([], tf.string),
            "label": tf.FixedLenFeature([], tf.int64),
        },
    )
    image = tf.decode_raw(features["image_raw"], tf.uint8)
    image.set_shape([IMAGE_PIXELS])
    label = tf.cast(features["label"], tf.int32)
    return image, label


def normalize(image, label):
    """Scales the pixels from [0, 255] to [-0.5, 0.5]."""
    image = tf.cast(image, tf.float32) * (1.0 / 255) - 0.5
    return image, label


def inputs(train, batch_size, num_epochs):
    """The next batch of images [batch, IMAGE_PIXELS] and labels [batch] from a file.

    Args:
        train: Read the training file (shuffled, repeated) or the test file.
        batch_size: Examples per batch.
        num_epochs: Passes over the training file.
    """
    filename = os.path.join(FLAGS.data_dir, TRAIN_FILE if train else TEST_FILE)
    with tf.name_scope("input"):
        dataset = tf.data.TFRecordDataset(filename)
        dataset = dataset.map(decode)
        dataset = dataset.map(normalize)
        if train:
            dataset = dataset.shuffle(1000 + 3 * batch_size)
        dataset = dataset.batch(batch_size)
        if train:
            dataset = dataset.repeat(num_epochs)
        iterator = dataset.make_one_shot_iterator()
    return iterator.get_next()


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
    """The logits of the network; a second call reuses the first one's variables."""
    with tf.variable_scope("mlp", reuse=tf.AUTO_REUSE):
        hidden = dense(images, FLAGS.hidden_units, "hidden", activation=tf.nn.relu)
        return dense(hidden, NUM_CLASSES, "softmax_linear")


def accuracy_of(logits, labels):
    """The fraction of the batch whose label is the top prediction."""
    predictions = tf.argmax(logits, 1, output_type=tf.int32)
    return tf.reduce_mean(tf.cast(tf.equal(predictions, labels), tf.float32))


def run_training():
    """Writes the TFRecord files, then trains for `--num_epochs` epochs.

    Returns:
        The last training batch's loss and the accuracy on the test file.
    """
    write_data()
    with tf.Graph().as_default():
        tf.set_random_seed(FLAGS.seed)
        images, labels = inputs(True, FLAGS.batch_size, FLAGS.num_epochs)
        logits = inference(images)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        accuracy = accuracy_of(logits, labels)
        tf.summary.scalar("loss", loss)
        tf.summary.scalar("accuracy", accuracy)
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.train.AdamOptimizer(FLAGS.learning_rate).minimize(
            loss, global_step=global_step
        )

        # The whole test file in one batch, read once, when the session ends.
        test_images, test_labels = inputs(False, FLAGS.test_size, None)
        test_accuracy = accuracy_of(inference(test_images), test_labels)
        final_hook = tf.train.FinalOpsHook({"test_accuracy": test_accuracy})

        step = 0
        loss_value = accuracy_value = None
        with tf.train.MonitoredTrainingSession(
            checkpoint_dir=FLAGS.train_dir or None,
            hooks=[tf.train.NanTensorHook(loss), final_hook],
            save_summaries_steps=FLAGS.log_every,
            log_step_count_steps=None,
        ) as sess:
            # Runs until the training iterator raises OutOfRangeError, which the
            # MonitoredTrainingSession takes as the end of training.
            while not sess.should_stop():
                _, loss_value, accuracy_value = sess.run([train_op, loss, accuracy])
                step += 1
                if step % FLAGS.log_every == 0:
                    print(f"Step {step}: loss = {loss_value:.4f}, accuracy = {accuracy_value:.3f}")
        print(f"Done training for {FLAGS.num_epochs} epochs, {step} steps.")
        print(f"Final batch: loss = {loss_value:.4f}, accuracy = {accuracy_value:.3f}")
        final_accuracy = float(final_hook.final_ops_values["test_accuracy"])
        print(f"Test accuracy: {final_accuracy:.4f}")
        return float(loss_value), final_accuracy


def main(_):
    if FLAGS.train_dir and tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    run_training()


if __name__ == "__main__":
    tf.app.run(main)
