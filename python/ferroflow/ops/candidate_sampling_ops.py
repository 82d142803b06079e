"""Candidate samplers, accidental hits, and the sampled losses built on them.

TF's `candidate_sampling_ops`, and `nce_loss` and `sampled_softmax_loss`.

Each sampler draws `num_sampled` class ids in `[0, range_max)` (without repeats when
`unique`) and returns `(sampled_candidates, true_expected_count,
sampled_expected_count)`: the expected count of a class is `p * num_sampled`, or, for
`unique=True`, `-expm1(num_tries * log1p(-p))` where `num_tries` is how many draws it
took to find `num_sampled` distinct ids (TF's formula). Seeds follow
`tf.set_random_seed` as the random ops'; the ids drawn for a seed are ferroflow's own
(the distributions and expected counts are TF's).
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, ops, random_seed
from . import array_ops, math_ops, nn_ops
from ._op_util import make_op


def _sampler(op_type, true_classes, attrs, seed, name):
    seed1, seed2 = random_seed.get_seed(seed)
    attrs = {**attrs, "seed": seed1 or 0, "seed2": seed2 or 0}
    with ops.name_scope(name, op_type, [true_classes]) as scope:
        true_classes = ops.convert_to_tensor(true_classes, dtype=dtypes.int64, name="true_classes")
        return tuple(make_op(op_type, [true_classes], attrs, scope=scope).outputs)


def _counts(num_true, num_sampled, unique):
    return {"num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique)}


def uniform_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Samples classes uniformly from `[0, range_max)`.

    Args:
        true_classes: An int64 `[batch_size, num_true]` tensor of target classes.
        num_true: Target classes per example.
        num_sampled: How many classes to sample.
        unique: Whether the sampled classes are distinct (then `num_sampled <=
            range_max`).
        range_max: The number of classes.
        seed: Op-level seed; see `tf.set_random_seed`.
        name: Name of the operation.

    Returns:
        `(sampled_candidates, true_expected_count, sampled_expected_count)`: int64
        `[num_sampled]`, float32 `[batch_size, num_true]` and float32 `[num_sampled]`.
    """
    attrs = {**_counts(num_true, num_sampled, unique), "range_max": int(range_max)}
    return _sampler("UniformCandidateSampler", true_classes, attrs, seed, name)


def log_uniform_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Samples classes from the log-uniform (Zipfian) distribution over `[0, range_max)`.

    `P(class) = (log(class + 2) - log(class + 1)) / log(range_max + 1)`: suits classes
    sorted by decreasing frequency. Same arguments and results as
    `uniform_candidate_sampler`.
    """
    attrs = {**_counts(num_true, num_sampled, unique), "range_max": int(range_max)}
    return _sampler("LogUniformCandidateSampler", true_classes, attrs, seed, name)


def learned_unigram_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Samples classes by the unigram counts of the true classes seen so far.

    Every class starts with a count of 1; each run adds the true classes it is given
    (after sampling), for the life of the session. Same arguments and results as
    `uniform_candidate_sampler`.
    """
    attrs = {**_counts(num_true, num_sampled, unique), "range_max": int(range_max)}
    return _sampler("LearnedUnigramCandidateSampler", true_classes, attrs, seed, name)


def fixed_unigram_candidate_sampler(
    true_classes,
    num_true,
    num_sampled,
    unique,
    range_max,
    vocab_file="",
    distortion=1.0,
    num_reserved_ids=0,
    num_shards=1,
    shard=0,
    unigrams=(),
    seed=None,
    name=None,
):
    """Samples classes in proportion to given unigram weights raised to `distortion`.

    Args:
        true_classes: An int64 `[batch_size, num_true]` tensor of target classes.
        num_true: Target classes per example.
        num_sampled: How many classes to sample.
        unique: Whether the sampled classes are distinct.
        range_max: The number of classes: this shard's reserved ids plus weights.
        vocab_file: A file whose lines end with a comma-separated weight (give this or
            `unigrams`).
        distortion: The power each weight is raised to.
        num_reserved_ids: Ids before the weights, each of weight 0.
        num_shards: Split the ids over this many shards...
        shard: ...and sample this one's (ids `i` with `i % num_shards == shard`).
        unigrams: The weights, one per class.
        seed: Op-level seed; see `tf.set_random_seed`.
        name: Name of the operation.

    Returns:
        As `uniform_candidate_sampler`.
    """
    attrs = {
        **_counts(num_true, num_sampled, unique),
        "range_max": int(range_max),
        "vocab_file": vocab_file.encode() if isinstance(vocab_file, str) else vocab_file,
        "distortion": float(distortion),
        "num_reserved_ids": int(num_reserved_ids),
        "num_shards": int(num_shards),
        "shard": int(shard),
    }
    if len(unigrams):  # an empty list is the attr's default (and has no element type)
        attrs["unigrams"] = [float(u) for u in unigrams]
    return _sampler("FixedUnigramCandidateSampler", true_classes, attrs, seed, name)


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Samples every class `0 .. num_sampled - 1`, each with expected count 1 (for tests).

    Same results as `uniform_candidate_sampler`.
    """
    return _sampler(
        "AllCandidateSampler", true_classes, _counts(num_true, num_sampled, unique), seed, name
    )


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Where `sampled_candidates` holds one of a row's `true_classes`.

    Args:
        true_classes: An int64 `[batch_size, num_true]` tensor.
        sampled_candidates: An int64 `[num_sampled]` tensor (a sampler's first result).
        num_true: Target classes per example.
        seed: Accepted as TF's (unused).
        name: Name of the operation.

    Returns:
        `(indices, ids, weights)`: for each hit, its row (int32), the position in
        `sampled_candidates` (int64) and `-FLT_MAX` (float32), to add to the sampled
        logits.
    """
    seed1, seed2 = random_seed.get_seed(seed)
    attrs = {"num_true": int(num_true), "seed": seed1 or 0, "seed2": seed2 or 0}
    with ops.name_scope(name, "ComputeAccidentalHits", [true_classes, sampled_candidates]) as scope:
        true_classes = ops.convert_to_tensor(true_classes, dtype=dtypes.int64, name="true_classes")
        sampled_candidates = ops.convert_to_tensor(
            sampled_candidates, dtype=dtypes.int64, name="sampled_candidates"
        )
        inputs = [true_classes, sampled_candidates]
        return tuple(make_op("ComputeAccidentalHits", inputs, attrs, scope=scope).outputs)


def _sum_rows(x):
    """Each row's sum, as a matrix product with ones (TF's `_sum_rows`)."""
    cols = array_ops.shape(x)[1]
    ones = array_ops.ones(array_ops.stack([cols, 1]), x.dtype)
    out = array_ops.reshape(math_ops.matmul(x, ones), [-1])
    # TF's shape inference sees through `stack([cols, 1])`; the row count is static.
    out.set_shape(x.shape[:1])
    return out


def _embedding(params, ids, partition_strategy):
    if isinstance(params, (list, tuple)) and len(params) == 1:
        params = params[0]
    return nn_ops.embedding_lookup(params, ids, partition_strategy=partition_strategy)


def _compute_sampled_logits(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    subtract_log_q=True,
    remove_accidental_hits=False,
    partition_strategy="mod",
    name=None,
    seed=None,
):
    """TF's `_compute_sampled_logits`: the logits of the true and sampled classes.

    Returns `(out_logits, out_labels)`, `[batch_size, num_true + num_sampled]`.
    Departure: the accidental hits are added as a dense mask built with
    `unsorted_segment_sum` (ferroflow has no `SparseToDense`); the values are TF's.
    """
    weights_list = list(weights) if isinstance(weights, (list, tuple)) else [weights]
    with ops.name_scope(name, "compute_sampled_logits", [*weights_list, biases, inputs, labels]):
        labels = ops.convert_to_tensor(labels, name="labels")
        if labels.dtype != dtypes.int64:
            labels = array_ops.cast(labels, dtypes.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(
                true_classes=labels,
                num_true=num_true,
                num_sampled=num_sampled,
                unique=True,
                range_max=num_classes,
                seed=seed,
            )
        sampled, true_expected_count, sampled_expected_count = (
            array_ops.stop_gradient(s) for s in sampled_values
        )
        sampled = array_ops.cast(sampled, dtypes.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        inputs = ops.convert_to_tensor(inputs, name="inputs")
        all_w = _embedding(weights, all_ids, partition_strategy)
        if all_w.dtype != inputs.dtype:
            all_w = array_ops.cast(all_w, inputs.dtype)
        n_true = array_ops.shape(labels_flat)[0]
        true_w = array_ops.slice(all_w, [0, 0], array_ops.stack([n_true, -1]))
        sampled_w = array_ops.slice(all_w, array_ops.stack([n_true, 0]), [-1, -1])
        sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True)
        all_b = _embedding(biases, all_ids, partition_strategy)
        if all_b.dtype != inputs.dtype:
            all_b = array_ops.cast(all_b, inputs.dtype)
        true_b = array_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = array_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        dim = array_ops.shape(true_w)[1:2]
        new_true_w_shape = array_ops.concat([[-1, num_true], dim], 0)
        row_wise_dots = math_ops.multiply(
            array_ops.expand_dims(inputs, 1), array_ops.reshape(true_w, new_true_w_shape)
        )
        dots_as_matrix = array_ops.reshape(row_wise_dots, array_ops.concat([[-1], dim], 0))
        true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_b = array_ops.reshape(true_b, [-1, num_true])
        true_logits += true_b
        sampled_logits += sampled_b
        if remove_accidental_hits:
            acc_indices, acc_ids, acc_weights = compute_accidental_hits(
                labels, sampled, num_true=num_true
            )
            batch = array_ops.shape(labels)[0]
            flat = acc_indices * num_sampled + array_ops.cast(acc_ids, dtypes.int32)
            hits = math_ops.unsorted_segment_sum(
                array_ops.ones_like(acc_weights), flat, batch * num_sampled
            )
            hits = array_ops.reshape(hits, [-1, num_sampled])
            # Each hit adds -FLT_MAX once, as TF's `sparse_to_dense` assignment.
            lowest = np.finfo(np.float32).min
            mask = array_ops.where(
                math_ops.greater(hits, 0.0),
                array_ops.fill(array_ops.shape(hits), lowest),
                array_ops.zeros_like(hits),
            )
            if sampled_logits.dtype != mask.dtype:
                mask = array_ops.cast(mask, sampled_logits.dtype)
            sampled_logits += mask
        if subtract_log_q:
            true_logits -= math_ops.log(true_expected_count)
            sampled_logits -= math_ops.log(sampled_expected_count)
        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat(
            [array_ops.ones_like(true_logits) / num_true, array_ops.zeros_like(sampled_logits)], 1
        )
        return out_logits, out_labels


def nce_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    remove_accidental_hits=False,
    partition_strategy="mod",
    name="nce_loss",
):
    """The noise-contrastive estimation loss of each example.

    Args:
        weights: `[num_classes, dim]` class embeddings (a tensor, a variable, or a
            one-element list of them).
        biases: `[num_classes]` class biases.
        labels: int `[batch_size, num_true]` target classes.
        inputs: `[batch_size, dim]` activations.
        num_sampled: Classes to sample per batch.
        num_classes: The number of classes.
        num_true: Target classes per example.
        sampled_values: A sampler's `(sampled_candidates, true_expected_count,
            sampled_expected_count)`; by default `log_uniform_candidate_sampler`
            with `unique=True`.
        remove_accidental_hits: Whether sampled classes equal to a target are masked.
        partition_strategy: Accepted as TF's (single-tensor weights only).
        name: Name scope of the ops.

    Returns:
        A `[batch_size]` tensor: the summed sigmoid cross-entropies of the true and
        sampled logits.
    """
    logits, labels = _compute_sampled_logits(
        weights=weights,
        biases=biases,
        labels=labels,
        inputs=inputs,
        num_sampled=num_sampled,
        num_classes=num_classes,
        num_true=num_true,
        sampled_values=sampled_values,
        subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy,
        name=name,
    )
    sampled_losses = nn_ops.sigmoid_cross_entropy_with_logits(
        labels=labels, logits=logits, name="sampled_losses"
    )
    return _sum_rows(sampled_losses)


def sampled_softmax_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    remove_accidental_hits=True,
    partition_strategy="mod",
    name="sampled_softmax_loss",
    seed=None,
):
    """The softmax cross-entropy of each example over its true and sampled classes.

    Same arguments as `nce_loss` (accidental hits are removed by default), plus
    `seed`, the op-level seed of the default sampler.

    Returns:
        A `[batch_size]` tensor of sampled softmax losses.
    """
    logits, labels = _compute_sampled_logits(
        weights=weights,
        biases=biases,
        labels=labels,
        inputs=inputs,
        num_sampled=num_sampled,
        num_classes=num_classes,
        num_true=num_true,
        sampled_values=sampled_values,
        subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy,
        name=name,
        seed=seed,
    )
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
