"""A two-hidden-layer ReLU classifier on generated spirals, fed by an input pipeline.

The training loop takes its mini-batches from a TF-1.x queue pipeline:
`tf.train.slice_input_producer` shuffles the examples into a queue and
`tf.train.batch` groups them, each filled by queue-runner threads (native Rust
threads in ferroflow, started by `tf.train.start_queue_runners` under a
`tf.train.Coordinator`). The model reads the batch through
`tf.placeholder_with_default`, so evaluation feeds the whole dataset instead.

By default it trains with `tf.train.AdamOptimizer` on an exponentially decayed
learning rate, counting steps in the global step; `--optimizer sgd` writes the
gradient-descent step by hand from `tf.gradients` instead (one `assign_sub` per
variable). Each step is one `Session.run`.

Training runs under `tf.train.Supervisor` and `sv.managed_session()`, as TF 1.x's
guide shows: the Supervisor initializes the model or restores it from the latest
checkpoint in `--logdir`, starts the queue runners, and its services write
TensorBoard event files there (the graph, the loss and accuracy, histograms of the
weights, an image of the decision regions over the plane and `global_step/sec` every
`--save-secs` seconds: `tensorboard --logdir <dir>` shows them) and checkpoints (every
`--save-secs` seconds; the job also saves one when it ends). Run it again with the same
`--logdir` and a larger `--steps`, and it resumes where it stopped (TensorFlow can
restore those checkpoints too).

Run: python examples/mlp_classifier.py [--steps N] [--optimizer adam|sgd] [--logdir DIR]
"""

import argparse

import numpy as np
from _data import spirals

import ferroflow as tf


class Dense:
    """A fully connected layer with He-initialised weights, applicable to several inputs."""

    def __init__(self, fan_in, units, name, activation=None, seed=0):
        rng = np.random.default_rng(seed)
        init = (rng.normal(size=(fan_in, units)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        self.activation = activation
        with tf.name_scope(name) as self.scope:
            self.weights = tf.Variable(init, name="weights")
            self.biases = tf.Variable(tf.zeros([units]), name="biases")

    def __call__(self, x):
        with tf.name_scope(self.scope):  # "name/": the same scope again, not "name_1"
            y = tf.nn.bias_add(tf.matmul(x, self.weights), self.biases)
            return self.activation(y) if self.activation else y


def decision_regions(model, size=96, extent=1.2):
    """What the model predicts over the plane, as an image: each class's colour blended by
    its probability (TensorBoard's Images dashboard shows the regions take shape)."""
    with tf.name_scope("plane"):
        ticks = np.linspace(-extent, extent, size, dtype=np.float32)
        xs, ys = np.meshgrid(ticks, -ticks)  # image rows run top to bottom
        grid = tf.constant(np.stack([xs.ravel(), ys.ravel()], axis=1))
        probabilities = tf.nn.softmax(model(grid))
        palette = tf.constant([[0.89, 0.29, 0.2], [0.2, 0.55, 0.85], [0.3, 0.7, 0.3]])
        return tf.reshape(tf.matmul(probabilities, palette), [1, size, size, 3])


def train_op(loss, optimizer):
    """The training step: Adam on a decayed rate, or gradient descent by hand."""
    step = tf.train.get_or_create_global_step()
    if optimizer == "adam":
        rate = tf.train.exponential_decay(0.02, step, decay_steps=300, decay_rate=0.5)
        return tf.train.AdamOptimizer(rate).minimize(loss, global_step=step)
    params = tf.trainable_variables()
    grads = tf.gradients(loss, params)
    updates = [p.assign_sub(0.5 * g) for p, g in zip(params, grads)]
    return tf.group(*updates, step.assign_add(1))


def input_pipeline(features, labels, batch_size):
    """Shuffled mini-batches of (features, labels), filled by queue-runner threads."""
    with tf.name_scope("input"):
        example, label = tf.train.slice_input_producer(
            [tf.constant(features), tf.constant(labels)], shuffle=True, seed=0
        )
        return tf.train.batch([example, label], batch_size, num_threads=2, capacity=4 * batch_size)


def main(steps=2000, optimizer="adam", hidden=64, logdir=None, batch_size=128, save_secs=2.0):
    features, labels = spirals()
    x_batch, y_batch = input_pipeline(features, labels, batch_size)
    # Training reads the queue's batches; evaluation feeds the whole dataset instead.
    x = tf.placeholder_with_default(x_batch, [None, 2], name="x")
    y = tf.placeholder_with_default(y_batch, [None], name="y")
    layers = [
        Dense(2, hidden, "hidden1", tf.nn.relu, seed=1),
        Dense(hidden, hidden, "hidden2", tf.nn.relu, seed=2),
        Dense(hidden, 3, "logits", seed=3),
    ]

    def model(inputs):
        for layer in layers:
            inputs = layer(inputs)
        return inputs

    logits = model(x)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    correct = tf.equal(tf.argmax(logits, 1, output_type=tf.int32), y)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    train = train_op(loss, optimizer)
    tf.summary.scalar("loss", loss)
    tf.summary.scalar("accuracy", accuracy)
    for v in tf.trainable_variables():
        tf.summary.histogram(v.op.name.replace("/", "_"), v)
    tf.summary.image("decision_regions", decision_regions(model), max_outputs=1)
    global_step = tf.train.get_global_step()
    everything = {x: features, y: labels}
    sv = tf.train.Supervisor(
        logdir=logdir, save_summaries_secs=save_secs, save_model_secs=save_secs
    )
    with sv.managed_session() as sess:
        step = int(sess.run(global_step))
        if step:
            print(f"resumed from {tf.train.latest_checkpoint(logdir)} at step {step}")
        while step <= steps and not sv.should_stop():
            if step % 200 == 0 or step == steps:
                loss_v, acc_v = sess.run([loss, accuracy], everything)
                print(f"step {step:5d}  loss {loss_v:.4f}  accuracy {acc_v:.3f}")
            if step == steps:
                break
            sess.run(train)  # one mini-batch from the queue
            step += 1
        if logdir:
            # The Supervisor saves on a timer; save the final step too, once its threads
            # have stopped (a timed save begun earlier must not land after this one).
            sv.stop(close_summary_writer=False)
            print(f"saved {sv.saver.save(sess, sv.save_path, global_step=global_step)}")
        return float(sess.run(accuracy, everything))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--optimizer", choices=["adam", "sgd"], default="adam")
    parser.add_argument("--logdir", default=None, help="checkpoints and TensorBoard logs")
    parser.add_argument("--save-secs", type=float, default=2.0, help="summary/checkpoint period")
    args = parser.parse_args()
    accuracy = main(args.steps, args.optimizer, logdir=args.logdir, save_secs=args.save_secs)
    print(f"final accuracy {accuracy:.3f}")
