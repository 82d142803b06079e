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
