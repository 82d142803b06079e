"""Trains a softmax-regression MNIST model and exports it as a SavedModel for serving.

TensorFlow Serving's `mnist_saved_model.py` (TF 1.x), on ferroflow: the model of the
"MNIST For ML Beginners" tutorial, trained by gradient descent on mini-batches of 50,
then written by `tf.saved_model.builder.SavedModelBuilder` to
`<export_dir>/<model_version>` with the two signatures `tensorflow_model_server`
serves:

- `serving_default`, a classification signature (the Classify API): its input is a
  batch of serialized `tf.train.Example`s (a string placeholder parsed by
  `tf.parse_example`, the 784 pixels in the float feature `x`); its outputs are the
  ten classes of each image, best first, as strings (`tf.nn.top_k`'s indices mapped
  through `tf.contrib.lookup.index_to_string_table_from_tensor`), and their scores;
- `predict_images`, a predict signature: the images `x` (the parsed examples, which
  training and this signature feed directly) to the softmax scores `y`.

The lookup table is initialized by the main op (`tf.tables_initializer()`), which a
loader runs after restoring the variables. The export loads in TensorFlow
(`tf.compat.v1.saved_model.loader.load`, or TF 2's `tf.saved_model.load`) and in
TensorFlow Serving as well as in ferroflow.

The data are generated MNIST-like digits (28x28 stroke figures, one per class,
shifted and noisy; see `_data.py`), so nothing is downloaded.

Run: python examples/mnist_saved_model.py [--training_iteration=1000] \
    [--model_version=1] [export_dir]
(the export directory defaults to `<--work_dir>/mnist_model`).
"""

import os
import sys

from _data import read_data_sets

import ferroflow as tf

NUM_CLASSES = 10
IMAGE_PIXELS = 28 * 28

flags = tf.app.flags
FLAGS = flags.FLAGS
flags.DEFINE_integer("training_iteration", 1000, "number of training iterations.")
flags.DEFINE_integer("model_version", 1, "version number of the model.")
flags.DEFINE_string("work_dir", "/tmp", "Working directory.")
flags.DEFINE_integer("train_size", 5000, "Generated training examples.")


def build_model():
    """The model's graph in the default graph.

    Returns:
        A dict of its tensors and ops: `serialized_tf_example` (the string input),
        `x` (the parsed images), `y_` (the labels), `y` (the softmax scores),
        `train_step`, `accuracy`, `values` and `prediction_classes` (the top
        classes' scores and names).
    """
    serialized_tf_example = tf.placeholder(tf.string, name="tf_example")
    feature_configs = {"x": tf.FixedLenFeature(shape=[IMAGE_PIXELS], dtype=tf.float32)}
    tf_example = tf.parse_example(serialized_tf_example, feature_configs)
    x = tf.identity(tf_example["x"], name="x")  # use tf.identity() to assign name
    y_ = tf.placeholder(tf.int32, shape=[None], name="labels")
    w = tf.Variable(tf.zeros([IMAGE_PIXELS, NUM_CLASSES]), name="weights")
    b = tf.Variable(tf.zeros([NUM_CLASSES]), name="biases")
    logits = tf.matmul(x, w) + b
    y = tf.nn.softmax(logits, name="y")
    cross_entropy = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_, logits=logits)
    )
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    values, indices = tf.nn.top_k(y, NUM_CLASSES)
    table = tf.contrib.lookup.index_to_string_table_from_tensor(
        tf.constant([str(i) for i in range(NUM_CLASSES)])
    )
    prediction_classes = table.lookup(tf.to_int64(indices))
    correct_prediction = tf.equal(tf.argmax(y, 1, output_type=tf.int32), y_)
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    return {
        "serialized_tf_example": serialized_tf_example,
        "x": x,
        "y_": y_,
        "y": y,
        "train_step": train_step,
        "accuracy": accuracy,
        "values": values,
        "prediction_classes": prediction_classes,
    }


def export(sess, model, export_path):
    """Writes the SavedModel of `sess`'s graph, with its two signatures, to `export_path`."""
    builder = tf.saved_model.builder.SavedModelBuilder(export_path)

    # Build the signature_def_map.
    classification_inputs = tf.saved_model.utils.build_tensor_info(model["serialized_tf_example"])
    classification_outputs_classes = tf.saved_model.utils.build_tensor_info(
        model["prediction_classes"]
    )
    classification_outputs_scores = tf.saved_model.utils.build_tensor_info(model["values"])
    classification_signature = tf.saved_model.signature_def_utils.build_signature_def(
        inputs={tf.saved_model.signature_constants.CLASSIFY_INPUTS: classification_inputs},
        outputs={
            tf.saved_model.signature_constants.CLASSIFY_OUTPUT_CLASSES: (
                classification_outputs_classes
            ),
            tf.saved_model.signature_constants.CLASSIFY_OUTPUT_SCORES: (
                classification_outputs_scores
            ),
        },
        method_name=tf.saved_model.signature_constants.CLASSIFY_METHOD_NAME,
    )
    prediction_signature = tf.saved_model.signature_def_utils.predict_signature_def(
        inputs={"images": model["x"]}, outputs={"scores": model["y"]}
    )

    builder.add_meta_graph_and_variables(
        sess,
        [tf.saved_model.tag_constants.SERVING],
        signature_def_map={
            "predict_images": prediction_signature,
            tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: (
                classification_signature
            ),
        },
        main_op=tf.tables_initializer(),
        strip_default_attrs=True,
    )
    builder.save()


def train_and_export(export_path_base):
    """Trains for `--training_iteration` steps and exports to `<base>/<model_version>`.

    Returns:
        (the export directory, the accuracy on the test images).
    """
    print("Training model...")
    mnist = read_data_sets(train_size=FLAGS.train_size)
    with tf.Graph().as_default(), tf.Session() as sess:
        model = build_model()
        sess.run(tf.global_variables_initializer())
        for _ in range(FLAGS.training_iteration):
            images, labels = mnist.train.next_batch(50)
            sess.run(model["train_step"], feed_dict={model["x"]: images, model["y_"]: labels})
        accuracy = sess.run(
            model["accuracy"],
            feed_dict={model["x"]: mnist.test.images, model["y_"]: mnist.test.labels},
        )
        print(f"test accuracy {accuracy:g}")
        print("Done training!")

        export_path = os.path.join(export_path_base, str(FLAGS.model_version))
        print("Exporting trained model to", export_path)
        export(sess, model, export_path)
    print("Done exporting!")
    return export_path, float(accuracy)


def main(argv):
    """Checks the flags, then trains and exports under `argv[1]` (or `<work_dir>/mnist_model`)."""
    if len(argv) > 2 or (len(argv) == 2 and argv[-1].startswith("-")):
        print(
            "Usage: mnist_saved_model.py [--training_iteration=x] [--model_version=y] [export_dir]"
        )
        sys.exit(-1)
    if FLAGS.training_iteration <= 0:
        print("Please specify a positive value for training iteration.")
        sys.exit(-1)
    if FLAGS.model_version <= 0:
        print("Please specify a positive value for version number.")
        sys.exit(-1)
    export_path_base = argv[1] if len(argv) == 2 else os.path.join(FLAGS.work_dir, "mnist_model")
    train_and_export(export_path_base)


if __name__ == "__main__":
    tf.app.run(main)
