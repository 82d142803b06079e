"""`tf.data.experimental`: `AUTOTUNE` and transformations for `Dataset.apply`."""

from __future__ import annotations

from ...framework import dtypes, ops
from .. import _structure as structure
from ..dataset_ops import (
    AUTOTUNE,
    Options,
    _batched,
    _int64,
    _seeds,
    _static_batch_dim,
    _TracedFunction,
)
from ..iterator_ops import (
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_saveable_from_iterator,
)

__all__ = [
    "AUTOTUNE",
    "Options",
    "get_output_classes",
    "get_output_shapes",
    "get_output_types",
    "ignore_errors",
    "make_saveable_from_iterator",
    "map_and_batch",
    "parallel_interleave",
    "shuffle_and_repeat",
    "unbatch",
]


def map_and_batch(
    map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None
):
    """`map(map_func)` then `batch(batch_size)` as one stage (TF's `MapAndBatchDataset`).

    `num_parallel_calls` (or `num_parallel_batches` batches' worth) calls run at once.
    """
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError(
            "`map_and_batch` allows only one of `num_parallel_batches` and "
            "`num_parallel_calls` to be set."
        )

    def apply(dataset):
        with ops.name_scope(None, "MapAndBatchDataset", []) as scope:
            fn = _TracedFunction(map_func, dataset._structure, "f")
            size = _int64(batch_size, "batch_size")
            if num_parallel_calls is not None:
                calls = num_parallel_calls
            else:
                calls = batch_size * (num_parallel_batches or 1)
            drop = ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
            specs = _batched(fn.output_structure, _static_batch_dim(size, drop))
            inputs = [
                dataset._variant_tensor,
                *fn.captures,
                size,
                _int64(calls, "num_parallel_calls"),
                drop,
            ]
            attrs = {
                **fn.attrs("f"),
                "preserve_cardinality": False,
                "_sparse": structure.sparse_positions(fn.output_structure),
            }
            return dataset._derive(
                "MapAndBatchDataset", inputs, specs, attrs, scope, fn.external_controls
            )

    return apply


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """`shuffle(buffer_size, seed)` then `repeat(count)` as one stage (TF's order)."""

    def apply(dataset):
        with ops.name_scope(None, "ShuffleAndRepeatDataset", []):
            seed_t, seed2_t = _seeds(seed)
            inputs = [
                dataset._variant_tensor,
                _int64(buffer_size, "buffer_size"),
                seed_t,
                seed2_t,
                _int64(-1 if count is None else count, "count"),
            ]
            return dataset._derive(
                "ShuffleAndRepeatDataset", inputs, attrs={"reshuffle_each_iteration": True}
            )

    return apply


def parallel_interleave(
    map_func,
    cycle_length,
    block_length=1,
    sloppy=False,
    buffer_output_elements=None,
    prefetch_input_elements=None,
):
    """`interleave` whose open datasets are read ahead on threads of their own.

    The order is `interleave`'s (also with `sloppy=True`: ferroflow's is always
    deterministic).
    """

    def apply(dataset):
        with ops.name_scope(None, "ParallelInterleaveDataset", []) as scope:
            fn = _TracedFunction(map_func, dataset._structure, "f", returns_dataset=True)
            inputs = [
                dataset._variant_tensor,
                *fn.captures,
                _int64(cycle_length, "cycle_length"),
                _int64(block_length, "block_length"),
                ops.convert_to_tensor(bool(sloppy), dtype=dtypes.bool, name="sloppy"),
                _int64(
                    2 * block_length if buffer_output_elements is None else buffer_output_elements,
                    "buffer_output_elements",
                ),
                _int64(
                    2 * cycle_length
                    if prefetch_input_elements is None
                    else prefetch_input_elements,
                    "prefetch_input_elements",
                ),
            ]
            attrs = fn.attrs("f")
            return dataset._derive(
                "ParallelInterleaveDataset",
                inputs,
                fn.result._structure,
                attrs,
                scope,
                fn.external_controls,
            )

    return apply


def ignore_errors():
    """Drops the elements whose computation fails (TF's `ignore_errors`)."""

    def apply(dataset):
        with ops.name_scope(None, "IgnoreErrorsDataset", []):
            return dataset._derive("IgnoreErrorsDataset", [dataset._variant_tensor])

    return apply


def unbatch():
    """`Dataset.unbatch()` as a transformation."""
    return lambda dataset: dataset.unbatch()
