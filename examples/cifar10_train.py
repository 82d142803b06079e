"""Trains a small convolutional network on CIFAR-10-like images, as TF 1.x's tutorial.

The structure of the CIFAR-10 tutorial (`cifar10.py` + `cifar10_train.py`, and the
evaluation of `cifar10_eval.py`):

- inputs (`cifar10_input.py`): CIFAR-10's binary files, read by a
  `tf.FixedLengthRecordReader` from a filename queue and decoded with
  `tf.decode_raw`; training images are distorted (random 24x24 crops, left-right
  flips, brightness and contrast, then `per_image_standardization`) in four queue
  runner threads and shuffled into batches by `tf.train.shuffle_batch`. The files are
  generated (`_data.write_cifar_binaries`: four classes of striped images, written in
  CIFAR-10's record layout) in place of the downloaded CIFAR-10 binaries;
- `inference()`: conv1 -> pool1 -> conv2 -> pool2 -> local3 -> local4 -> softmax_linear,
  each layer's variables made by `_variable_on_cpu` / `_variable_with_weight_decay`
  (`tf.get_variable` under `tf.variable_scope`, weight decay added to the 'losses'
  collection), with activation histograms and sparsity summaries;
- `loss()`: cross entropy plus the weight decay terms (`tf.add_n` of the collection);
- `train_step()`: gradient descent on an exponentially decaying learning rate
  (`tf.train.exponential_decay`), moving averages of the losses for the summaries and
  of the trained variables (`tf.train.ExponentialMovingAverage`), ordered by
  `tf.control_dependencies`;
- `train()`: a `tf.train.MonitoredTrainingSession` with `StopAtStepHook`,
  `NanTensorHook` and a `_LoggerHook` that prints the loss and speed, writing
  checkpoints and TensorBoard summaries to `--train_dir`;
- `evaluate()`: restores the moving averages of the variables from the latest
  checkpoint (`variables_to_restore()`), starts the test pipeline's queue runners
  under a `Coordinator` and reports precision @ 1 over the held-out images.

The layers are narrower than the tutorial's (16/16/128/64 units instead of
64/64/384/192, with convolution weights drawn twice as wide and half its learning
rate to suit) so the program trains in seconds on a CPU. The tutorial's local
response normalisation (`tf.nn.lrn`) is left out.

Run: python examples/cifar10_train.py [--max_steps=1000] [--train_dir=DIR]
Then: tensorboard --logdir DIR
"""

import math
import re
import time
from datetime import datetime

import cifar10_input
import numpy as np
from _data import write_cifar_binaries

import ferroflow as tf

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_string(
    "train_dir", "/tmp/ferroflow/cifar10_train", "Directory for event logs and checkpoints."
)
tf.app.flags.DEFINE_string(
    "data_dir", "/tmp/ferroflow/cifar10_data", "Directory of the (generated) CIFAR-10 binaries."
)
tf.app.flags.DEFINE_integer("max_steps", 1000, "Number of batches to run.")
tf.app.flags.DEFINE_integer("batch_size", 32, "Number of images to process in a batch.")
tf.app.flags.DEFINE_integer("log_frequency", 10, "How often to log results to the console.")
tf.app.flags.DEFINE_integer("save_summaries_steps", 100, "How often to save summaries.")
tf.app.flags.DEFINE_boolean("log_device_placement", False, "Whether to log device placement.")
tf.app.flags.DEFINE_boolean("run_eval", True, "Evaluate the model after training.")

IMAGE_SIZE = cifar10_input.IMAGE_SIZE
NUM_CLASSES = cifar10_input.NUM_CLASSES
NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = cifar10_input.NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN
NUM_EXAMPLES_PER_EPOCH_FOR_EVAL = cifar10_input.NUM_EXAMPLES_PER_EPOCH_FOR_EVAL

MOVING_AVERAGE_DECAY = 0.9999  # The decay to use for the moving average.
NUM_EPOCHS_PER_DECAY = 20.0  # Epochs after which the learning rate decays.
LEARNING_RATE_DECAY_FACTOR = 0.1  # Learning rate decay factor.
INITIAL_LEARNING_RATE = 0.05  # Initial learning rate.

TOWER_NAME = "tower"


def _activation_summary(x):
    """Histogram and sparsity summaries of an activation."""
    tensor_name = re.sub(f"{TOWER_NAME}_[0-9]*/", "", x.op.name)
    tf.summary.histogram(tensor_name + "/activations", x)
    tf.summary.scalar(tensor_name + "/sparsity", tf.nn.zero_fraction(x))


def _variable_on_cpu(name, shape, initializer):
    """A variable stored in CPU memory."""
    with tf.device("/cpu:0"):
        var = tf.get_variable(name, shape, initializer=initializer, dtype=tf.float32)
    return var


def _variable_with_weight_decay(name, shape, stddev, wd):
    """A truncated-normal variable, with `wd` times its L2 loss added to 'losses'."""
    var = _variable_on_cpu(name, shape, tf.truncated_normal_initializer(stddev=stddev))
    if wd is not None:
        weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss")
        tf.add_to_collection("losses", weight_decay)
    return var


def maybe_generate_data():
    """Writes the generated CIFAR-10 binaries to `--data_dir` unless they are there.

    The tutorial's `maybe_download_and_extract()`, without a download.
    """
    if not tf.gfile.Exists(FLAGS.data_dir):
        write_cifar_binaries(FLAGS.data_dir)


def distorted_inputs():
    """Distorted training batches from the CIFAR-10 binaries in `--data_dir`."""
    return cifar10_input.distorted_inputs(FLAGS.data_dir, FLAGS.batch_size)


def inputs(eval_data):
    """Centre-cropped batches of the test (or training) binaries, in order."""
    return cifar10_input.inputs(eval_data, FLAGS.data_dir, FLAGS.batch_size)


def inference(images):
    """Builds the model; returns the logits, [batch_size, NUM_CLASSES]."""
    with tf.variable_scope("conv1") as scope:
        kernel = _variable_with_weight_decay("weights", shape=[5, 5, 3, 16], stddev=0.1, wd=None)
        conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding="SAME")
        biases = _variable_on_cpu("biases", [16], tf.constant_initializer(0.0))
        pre_activation = tf.nn.bias_add(conv, biases)
        conv1 = tf.nn.relu(pre_activation, name=scope.name)
        _activation_summary(conv1)
    pool1 = tf.nn.max_pool(
        conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME", name="pool1"
    )
    with tf.variable_scope("conv2") as scope:
        kernel = _variable_with_weight_decay("weights", shape=[5, 5, 16, 16], stddev=0.1, wd=None)
        conv = tf.nn.conv2d(pool1, kernel, [1, 1, 1, 1], padding="SAME")
        biases = _variable_on_cpu("biases", [16], tf.constant_initializer(0.1))
        pre_activation = tf.nn.bias_add(conv, biases)
        conv2 = tf.nn.relu(pre_activation, name=scope.name)
        _activation_summary(conv2)
    pool2 = tf.nn.max_pool(
        conv2, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME", name="pool2"
    )
    with tf.variable_scope("local3") as scope:
        # Move everything into depth so we can perform a single matrix multiply.
        reshape = tf.reshape(pool2, [images.get_shape().as_list()[0], -1])
        dim = reshape.get_shape()[1].value
        weights = _variable_with_weight_decay("weights", shape=[dim, 128], stddev=0.04, wd=0.004)
        biases = _variable_on_cpu("biases", [128], tf.constant_initializer(0.1))
        local3 = tf.nn.relu(tf.matmul(reshape, weights) + biases, name=scope.name)
        _activation_summary(local3)
    with tf.variable_scope("local4") as scope:
        weights = _variable_with_weight_decay("weights", shape=[128, 64], stddev=0.04, wd=0.004)
        biases = _variable_on_cpu("biases", [64], tf.constant_initializer(0.1))
        local4 = tf.nn.relu(tf.matmul(local3, weights) + biases, name=scope.name)
        _activation_summary(local4)
    # A linear layer: tf.nn.sparse_softmax_cross_entropy_with_logits takes the
    # unscaled logits and applies the softmax itself.
    with tf.variable_scope("softmax_linear") as scope:
        weights = _variable_with_weight_decay(
            "weights", [64, NUM_CLASSES], stddev=1 / 64.0, wd=None
        )
        biases = _variable_on_cpu("biases", [NUM_CLASSES], tf.constant_initializer(0.0))
        softmax_linear = tf.add(tf.matmul(local4, weights), biases, name=scope.name)
        _activation_summary(softmax_linear)
    return softmax_linear


def loss(logits, labels):
    """The total loss: the mean cross entropy plus all weight decay terms."""
    labels = tf.cast(labels, tf.int64)
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits, name="cross_entropy_per_example"
    )
    cross_entropy_mean = tf.reduce_mean(cross_entropy, name="cross_entropy")
    tf.add_to_collection("losses", cross_entropy_mean)
    return tf.add_n(tf.get_collection("losses"), name="total_loss")


def _add_loss_summaries(total_loss):
    """Moving averages of the losses, and summaries of the raw and averaged values."""
    loss_averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
    losses = tf.get_collection("losses")
    loss_averages_op = loss_averages.apply([*losses, total_loss])
    for each_loss in [*losses, total_loss]:
        tf.summary.scalar(each_loss.op.name + " (raw)", each_loss)
        tf.summary.scalar(each_loss.op.name, loss_averages.average(each_loss))
    return loss_averages_op


def train_step(total_loss, global_step):
    """One training step: a gradient-descent update, then the variables' averages."""
    num_batches_per_epoch = NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN / FLAGS.batch_size
    decay_steps = int(num_batches_per_epoch * NUM_EPOCHS_PER_DECAY)
    lr = tf.train.exponential_decay(
        INITIAL_LEARNING_RATE,
        global_step,
        decay_steps,
        LEARNING_RATE_DECAY_FACTOR,
        staircase=True,
    )
    tf.summary.scalar("learning_rate", lr)
    loss_averages_op = _add_loss_summaries(total_loss)
    with tf.control_dependencies([loss_averages_op]):
        opt = tf.train.GradientDescentOptimizer(lr)
        grads = opt.compute_gradients(total_loss)
    apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
    for var in tf.trainable_variables():
        tf.summary.histogram(var.op.name, var)
    for grad, var in grads:
        if grad is not None:
            tf.summary.histogram(var.op.name + "/gradients", grad)
    variable_averages = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY, global_step)
    with tf.control_dependencies([apply_gradient_op]):
        variables_averages_op = variable_averages.apply(tf.trainable_variables())
    return variables_averages_op


def train():
    """Trains the model for `--max_steps` steps."""
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        # The input pipeline runs on the CPU.
        with tf.device("/cpu:0"):
            images, labels = distorted_inputs()
        logits = inference(images)
        total_loss = loss(logits, labels)
        train_op = train_step(total_loss, global_step)

        class _LoggerHook(tf.train.SessionRunHook):
            """Logs the loss and the speed every `--log_frequency` steps."""

            def begin(self):
                self._step = -1
                self._start_time = time.time()

            def before_run(self, run_context):
                self._step += 1
                return tf.train.SessionRunArgs(total_loss)  # Asks for the loss value.

            def after_run(self, run_context, run_values):
                if self._step % FLAGS.log_frequency == 0:
                    current_time = time.time()
                    duration = current_time - self._start_time
                    self._start_time = current_time
                    loss_value = run_values.results
                    examples_per_sec = FLAGS.log_frequency * FLAGS.batch_size / duration
                    sec_per_batch = float(duration / FLAGS.log_frequency)
                    print(
                        f"{datetime.now()}: step {self._step}, loss = {loss_value:.2f} "
                        f"({examples_per_sec:.1f} examples/sec; {sec_per_batch:.3f} sec/batch)"
                    )

        with tf.train.MonitoredTrainingSession(
            checkpoint_dir=FLAGS.train_dir,
            hooks=[
                tf.train.StopAtStepHook(last_step=FLAGS.max_steps),
                tf.train.NanTensorHook(total_loss),
                _LoggerHook(),
            ],
            save_summaries_steps=FLAGS.save_summaries_steps,
            config=tf.ConfigProto(log_device_placement=FLAGS.log_device_placement),
        ) as mon_sess:
            while not mon_sess.should_stop():
                mon_sess.run(train_op)


def evaluate():
    """Precision @ 1 of the moving-averaged model of the latest checkpoint.

    Returns:
        The fraction of the evaluation images whose label is the top prediction.
    """
    with tf.Graph().as_default():
        images, labels = inputs(eval_data=True)
        logits = inference(images)
        top_k_op = tf.nn.in_top_k(logits, labels, 1)
        # Restore the moving average version of the learned variables.
        variable_averages = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY)
        saver = tf.train.Saver(variable_averages.variables_to_restore())
        summary_writer = tf.summary.FileWriter(FLAGS.train_dir + "/eval")
        with tf.Session() as sess:
            ckpt = tf.train.get_checkpoint_state(FLAGS.train_dir)
            if not (ckpt and ckpt.model_checkpoint_path):
                tf.logging.error("No checkpoint file found in %s", FLAGS.train_dir)
                return None
            saver.restore(sess, ckpt.model_checkpoint_path)
            global_step = int(ckpt.model_checkpoint_path.split("/")[-1].split("-")[-1])
            # The test pipeline's queue runners, as cifar10_eval.py starts them.
            coord = tf.train.Coordinator()
            threads = []
            for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
                threads.extend(qr.create_threads(sess, coord=coord, daemon=True, start=True))
            num_iter = math.ceil(NUM_EXAMPLES_PER_EPOCH_FOR_EVAL / FLAGS.batch_size)
            true_count, step = 0, 0
            while step < num_iter and not coord.should_stop():
                true_count += int(np.sum(sess.run(top_k_op)))
                step += 1
            precision = true_count / (num_iter * FLAGS.batch_size)
            tf.logging.info("%s: precision @ 1 = %.3f", datetime.now(), precision)
            summary = tf.Summary()
            summary.value.add(tag="Precision @ 1", simple_value=precision)
            summary_writer.add_summary(summary, global_step)
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
        summary_writer.close()
        return precision


def main(argv=None):
    tf.logging.set_verbosity(tf.logging.INFO)
    if tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)
    maybe_generate_data()
    train()
    if FLAGS.run_eval:
        evaluate()


if __name__ == "__main__":
    tf.app.run(main)
