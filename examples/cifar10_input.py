"""CIFAR-10's input pipeline, as TF 1.x's tutorial (`cifar10_input.py`).

Reads CIFAR-10's binary record format (one label byte, then 32x32x3 pixel bytes,
plane by plane) with `tf.FixedLengthRecordReader` from a filename queue, decodes it
with `tf.decode_raw`, and, for training, distorts each image as the tutorial does
(`tf.random_crop` to 24x24, `tf.image.random_flip_left_right`,
`tf.image.random_brightness`, `tf.image.random_contrast`, then
`tf.image.per_image_standardization`) before `tf.train.shuffle_batch`; evaluation
images are centre-cropped (`tf.image.resize_image_with_crop_or_pad`) and batched in
order. Reading, decoding and distorting run in the queue runners' threads.

The files come from `_data.write_cifar_binaries` (generated images with the layout
of the downloaded CIFAR-10 binaries; see there for the classes).
"""

import os

import ferroflow as tf

# Images are cropped to this size (the tutorial's 24 of CIFAR-10's 32).
IMAGE_SIZE = 24
NUM_CLASSES = 4
NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = 2500
NUM_EXAMPLES_PER_EPOCH_FOR_EVAL = 500
NUM_PREPROCESS_THREADS = 4


class CIFAR10Record:
    """One decoded record: `key`, `label` (int32 [1]) and `uint8image` [32, 32, 3]."""

    height = 32
    width = 32
    depth = 3


def read_cifar10(filename_queue):
    """Reads and decodes one record from the files in `filename_queue`.

    Returns:
        A `CIFAR10Record` whose tensors yield the next record each time they run.
    """
    result = CIFAR10Record()
    label_bytes = 1
    image_bytes = result.height * result.width * result.depth
    record_bytes = label_bytes + image_bytes
    # Every record is the same size: no header or footer in CIFAR-10's format.
    reader = tf.FixedLengthRecordReader(record_bytes=record_bytes)
    result.key, value = reader.read(filename_queue)
    record = tf.decode_raw(value, tf.uint8)
    result.label = tf.cast(tf.strided_slice(record, [0], [label_bytes]), tf.int32)
    depth_major = tf.reshape(
        tf.strided_slice(record, [label_bytes], [label_bytes + image_bytes]),
        [result.depth, result.height, result.width],
    )
    # [depth, height, width] to [height, width, depth].
    result.uint8image = tf.transpose(depth_major, [1, 2, 0])
    return result


def _generate_image_and_label_batch(image, label, min_queue_examples, batch_size, shuffle):
    """A queue of shuffled (or ordered) batches of images and labels."""
    if shuffle:
        images, label_batch = tf.train.shuffle_batch(
            [image, label],
            batch_size=batch_size,
            num_threads=NUM_PREPROCESS_THREADS,
            capacity=min_queue_examples + 3 * batch_size,
            min_after_dequeue=min_queue_examples,
        )
    else:
        images, label_batch = tf.train.batch(
            [image, label],
            batch_size=batch_size,
            num_threads=NUM_PREPROCESS_THREADS,
            capacity=min_queue_examples + 3 * batch_size,
        )
    tf.summary.image("images", images)
    return images, tf.reshape(label_batch, [batch_size])


def _files(data_dir, eval_data):
    if eval_data:
        names = ["test_batch.bin"]
    else:
        names = [f"data_batch_{i}.bin" for i in range(1, 6)]
    filenames = [os.path.join(data_dir, n) for n in names]
    for f in filenames:
        if not tf.gfile.Exists(f):
            raise ValueError("Failed to find file: " + f)
    return filenames


def distorted_inputs(data_dir, batch_size):
    """Distorted training batches: images [batch, 24, 24, 3] float32, labels [batch]."""
    filename_queue = tf.train.string_input_producer(_files(data_dir, eval_data=False))
    with tf.name_scope("data_augmentation"):
        read_input = read_cifar10(filename_queue)
        reshaped_image = tf.cast(read_input.uint8image, tf.float32)
        # A random 24x24 crop, flipped half the time, with random brightness and
        # contrast; then zero mean and unit variance per image.
        distorted_image = tf.random_crop(reshaped_image, [IMAGE_SIZE, IMAGE_SIZE, 3])
        distorted_image = tf.image.random_flip_left_right(distorted_image)
        distorted_image = tf.image.random_brightness(distorted_image, max_delta=63)
        distorted_image = tf.image.random_contrast(distorted_image, lower=0.2, upper=1.8)
        float_image = tf.image.per_image_standardization(distorted_image)
        float_image.set_shape([IMAGE_SIZE, IMAGE_SIZE, 3])
        read_input.label.set_shape([1])
        min_queue_examples = int(NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN * 0.4)
    return _generate_image_and_label_batch(
        float_image, read_input.label, min_queue_examples, batch_size, shuffle=True
    )


def inputs(eval_data, data_dir, batch_size):
    """Undistorted batches (centre crops) of the test (or training) files, in order."""
    filenames = _files(data_dir, eval_data)
    examples = NUM_EXAMPLES_PER_EPOCH_FOR_EVAL if eval_data else NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN
    with tf.name_scope("input"):
        filename_queue = tf.train.string_input_producer(filenames, shuffle=False)
        read_input = read_cifar10(filename_queue)
        reshaped_image = tf.cast(read_input.uint8image, tf.float32)
        resized_image = tf.image.resize_image_with_crop_or_pad(
            reshaped_image, IMAGE_SIZE, IMAGE_SIZE
        )
        float_image = tf.image.per_image_standardization(resized_image)
        float_image.set_shape([IMAGE_SIZE, IMAGE_SIZE, 3])
        read_input.label.set_shape([1])
        min_queue_examples = int(examples * 0.4)
    return _generate_image_and_label_batch(
        float_image, read_input.label, min_queue_examples, batch_size, shuffle=False
    )
