"""Generated classification data for the examples (no downloads)."""

import numpy as np


def spirals(n_per_class=300, classes=3, noise=0.2, seed=0):
    """Interleaved 2-D spirals: a dataset a linear model cannot separate.

    Returns:
        (features float32 [n, 2], labels int32 [n]), shuffled.
    """
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for c in range(classes):
        r = np.linspace(0.05, 1.0, n_per_class)
        t = np.linspace(c * 4.0, (c + 1) * 4.0, n_per_class) + rng.normal(
            scale=noise, size=n_per_class
        )
        xs.append(np.stack([r * np.sin(t), r * np.cos(t)], axis=1))
        ys.append(np.full(n_per_class, c))
    x = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int32)
    order = rng.permutation(len(y))
    return x[order], y[order]


def blobs(n=1000, classes=4, dims=10, seed=0):
    """Gaussian clusters: linearly separable, for softmax regression."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=3.0, size=(classes, dims))
    y = rng.integers(0, classes, size=n).astype(np.int32)
    x = (centers[y] + rng.normal(size=(n, dims))).astype(np.float32)
    return x, y


def _digit_templates(classes, size, seed):
    """One blurred stroke figure per class: two or three line segments on the canvas."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    templates = np.zeros((classes, size, size), np.float32)
    for c in range(classes):
        for _ in range(int(rng.integers(2, 4))):
            (y0, x0), (y1, x1) = rng.uniform(0.25 * size, 0.75 * size, size=(2, 2))
            for t in np.linspace(0.0, 1.0, 2 * size):
                cy, cx = y0 + t * (y1 - y0), x0 + t * (x1 - x0)
                blob = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 2.0)
                templates[c] = np.maximum(templates[c], blob)
    return templates


def synthetic_digits(n, classes=10, size=28, noise=0.25, max_shift=2, seed=0):
    """MNIST-like images: a class's stroke figure, shifted, dimmed and noisy.

    Returns:
        (images float32 [n, size * size] in [0, 1], labels int32 [n]).
    """
    rng = np.random.default_rng(seed)
    templates = _digit_templates(classes, size, seed=1234)
    labels = rng.integers(0, classes, size=n).astype(np.int32)
    images = templates[labels] * rng.uniform(0.6, 1.0, size=(n, 1, 1)).astype(np.float32)
    shifts = rng.integers(-max_shift, max_shift + 1, size=(n, 2))
    for dy in range(-max_shift, max_shift + 1):
        for dx in range(-max_shift, max_shift + 1):
            rows = (shifts[:, 0] == dy) & (shifts[:, 1] == dx)
            images[rows] = np.roll(images[rows], (dy, dx), axis=(1, 2))
    images += rng.normal(scale=noise, size=images.shape).astype(np.float32)
    return np.clip(images, 0.0, 1.0).reshape(n, size * size), labels


class DataSet:
    """Images and labels served in shuffled mini-batches, as the MNIST tutorial's."""

    def __init__(self, images, labels, seed=0):
        self.images, self.labels = images, labels
        self.num_examples = len(labels)
        self._rng = np.random.default_rng(seed)
        self._order = self._rng.permutation(self.num_examples)
        self._index = 0
        self.epochs_completed = 0

    def next_batch(self, batch_size):
        """The next `batch_size` examples; reshuffled after each full pass."""
        if self._index + batch_size > self.num_examples:
            self._order = self._rng.permutation(self.num_examples)
            self._index = 0
            self.epochs_completed += 1
        rows = self._order[self._index : self._index + batch_size]
        self._index += batch_size
        return self.images[rows], self.labels[rows]


class Datasets:
    """The train, validation and test splits."""

    def __init__(self, train, validation, test):
        self.train, self.validation, self.test = train, validation, test


def read_data_sets(train_size=5000, validation_size=1000, test_size=1000, seed=0):
    """Generated MNIST-like splits, in place of `input_data.read_data_sets`."""
    total = train_size + validation_size + test_size
    images, labels = synthetic_digits(total, seed=seed)
    cuts = [train_size, train_size + validation_size]
    splits = zip(np.split(images, cuts), np.split(labels, cuts))
    return Datasets(*(DataSet(x, y, seed=seed + i) for i, (x, y) in enumerate(splits)))


def synthetic_cifar(n, classes=4, size=24, noise=0.5, seed=0):
    """CIFAR-like colour images: class k shows stripes at angle k * 180 / classes degrees.

    Each image has its own stripe frequency, phase and colours, and Gaussian noise;
    images are standardised per image (zero mean, unit variance), as the CIFAR-10
    tutorial's `per_image_standardization` does.

    Returns:
        (images float32 [n, size, size, 3], labels int32 [n]).
    """
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, size=n).astype(np.int32)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    angle = labels * np.pi / classes + rng.normal(scale=0.05, size=n)
    freq = rng.uniform(0.5, 1.0, size=n)
    phase = rng.uniform(0, 2 * np.pi, size=n)
    along = np.cos(angle)[:, None, None] * xx + np.sin(angle)[:, None, None] * yy
    wave = np.sin(freq[:, None, None] * along + phase[:, None, None])
    colours = rng.uniform(0.2, 1.0, size=(n, 2, 3))
    mix = (wave[..., None] + 1.0) / 2.0
    images = mix * colours[:, None, None, 0] + (1.0 - mix) * colours[:, None, None, 1]
    images = images + rng.normal(scale=noise * images.std(), size=images.shape)
    mean = images.mean(axis=(1, 2, 3), keepdims=True)
    std = np.maximum(images.std(axis=(1, 2, 3), keepdims=True), 1.0 / np.sqrt(size * size * 3))
    return ((images - mean) / std).astype(np.float32), labels


CIFAR_CLASSES = ("horizontal coarse", "horizontal fine", "vertical coarse", "vertical fine")


def write_cifar_binaries(directory, n_train=2500, n_test=500, size=32, noise=0.3, seed=0):
    """Writes generated images as CIFAR-10's binary files, for `cifar10_input.py`.

    The files have CIFAR-10's layout: `data_batch_1.bin` ... `data_batch_5.bin` and
    `test_batch.bin`, each record one label byte then the `size` x `size` x 3 pixels
    as bytes, red plane, green plane, blue plane (row-major). Class k
    (`CIFAR_CLASSES`) shows horizontal (k < 2) or vertical stripes, coarse (even k)
    or fine; frequency, phase, colours and noise vary per image. The classes survive
    the tutorial's distortions (crops, left-right flips, brightness and contrast).

    Returns:
        The paths of the training files and of the test file.
    """
    import os

    rng = np.random.default_rng(seed)
    os.makedirs(directory, exist_ok=True)

    def images(n):
        labels = rng.integers(0, len(CIFAR_CLASSES), size=n)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        across = np.where((labels < 2)[:, None, None], yy, xx)
        fine = (labels % 2 == 1)[:, None, None]
        coarse_freq, fine_freq = rng.uniform(0.3, 0.5, (n, 1, 1)), rng.uniform(1.2, 1.6, (n, 1, 1))
        freq = np.where(fine, fine_freq, coarse_freq)
        wave = np.sin(freq * across + rng.uniform(0, 2 * np.pi, size=(n, 1, 1)))
        colours = rng.uniform(40, 215, size=(n, 2, 3))
        mix = (wave[..., None] + 1.0) / 2.0
        pixels = mix * colours[:, None, None, 0] + (1.0 - mix) * colours[:, None, None, 1]
        pixels += rng.normal(scale=noise * 40, size=pixels.shape)
        planes = np.clip(pixels, 0, 255).astype(np.uint8).transpose(0, 3, 1, 2)  # NCHW
        return np.concatenate([labels.astype(np.uint8)[:, None], planes.reshape(n, -1)], axis=1)

    train = []
    for i, part in enumerate(np.array_split(np.arange(n_train), 5), start=1):
        path = os.path.join(directory, f"data_batch_{i}.bin")
        images(len(part)).tofile(path)
        train.append(path)
    test = os.path.join(directory, "test_batch.bin")
    images(n_test).tofile(test)
    return train, test
