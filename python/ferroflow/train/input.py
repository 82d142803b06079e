"""TF-1.x queue-based input pipelines: producers, `limit_epochs` and the batchers.

The producers (`input_producer`, `string_input_producer`, `range_input_producer`,
`slice_input_producer`) fill a `FIFOQueue` with the rows of a tensor, epoch after
epoch (shuffled within each epoch when asked); `limit_epochs` ends them with
`OutOfRangeError` after `num_epochs`. The batchers (`batch`, `batch_join`,
`shuffle_batch`, `shuffle_batch_join`) enqueue examples into a `FIFOQueue`,
`PaddingFIFOQueue` or `RandomShuffleQueue` and dequeue them `batch_size` at a time.
Each function adds a `QueueRunner` to `GraphKeys.QUEUE_RUNNERS` (start its threads
with `tf.train.start_queue_runners`) and builds the same ops, with the same names,
static shapes and summaries, as TensorFlow's `tensorflow/python/training/input.py`.

`num_epochs` creates a local variable `epochs`: run `tf.local_variables_initializer()`.
A `SparseTensor` component is stored as TF-1.x's `input.py` stores it: serialized
(`serialize_sparse`, or `serialize_many_sparse` with `enqueue_many`) into a string
component before the enqueue, and rebuilt with `deserialize_many_sparse` after the
dequeue, so a batch of sparse examples is one `SparseTensor` with dense shape
`[batch] + max(example shapes)`. (TF 2.x keeps the examples in a `SparseTensorsMap`
resource and enqueues int64 handles instead; the batches are the same.)
"""

from __future__ import annotations

from .._compat import zip_strict
from ..framework import dtypes, ops, tensor_shape
from ..framework.constant_op import constant
from ..framework.indexed_slices import IndexedSlices
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue
from ..ops import (
    array_ops,
    control_flow_ops,
    data_flow_ops,
    io_ops,
    logging_ops,
    math_ops,
    random_ops,
    smart_cond,
    sparse_ops,
    variables,
)
from ..ops import summary_ops as summary
from . import queue_runner

__all__ = [
    "batch",
    "batch_join",
    "input_producer",
    "limit_epochs",
    "match_filenames_once",
    "maybe_batch",
    "maybe_batch_join",
    "maybe_shuffle_batch",
    "maybe_shuffle_batch_join",
    "range_input_producer",
    "shuffle_batch",
    "shuffle_batch_join",
    "slice_input_producer",
    "string_input_producer",
]


def limit_epochs(tensor, num_epochs=None, name=None):
    """Returns `tensor` `num_epochs` times, then raises `OutOfRangeError`.

    Creates a local counter `epochs` (initialise it with
    `tf.local_variables_initializer()`); each evaluation of the result counts one
    epoch.

    Args:
        tensor: Any `Tensor`.
        num_epochs: A positive integer, or None for no limit (then `tensor` itself
            is returned).
        name: A name for the operations.

    Returns:
        `tensor`, or a tensor that raises `OutOfRangeError` after `num_epochs` runs.

    Raises:
        ValueError: `num_epochs` is not positive.
    """
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with ops.name_scope(name, "limit_epochs", [tensor]) as name:
        zero64 = constant(0, dtype=dtypes.int64)
        epochs = variables.Variable(
            zero64, name="epochs", trainable=False, collections=[ops.GraphKeys.LOCAL_VARIABLES]
        )
        counter = epochs.count_up_to(num_epochs)
        with ops.control_dependencies([counter]):
            return array_ops.identity(tensor, name=name)


def input_producer(
    input_tensor,
    element_shape=None,
    num_epochs=None,
    shuffle=True,
    seed=None,
    capacity=32,
    shared_name=None,
    summary_name=None,
    name=None,
    cancel_op=None,
):
    """Outputs the rows of `input_tensor` to a queue for an input pipeline.

    With `num_epochs`, creates a local counter `epochs` (initialise it with
    `tf.local_variables_initializer()`).

    Args:
        input_tensor: A tensor of the rows to produce, at least one-dimensional;
            its shape must be fully defined, or `element_shape` given.
        element_shape: The shape of a row, if it cannot be inferred.
        num_epochs: Produce each row this many times, then `OutOfRangeError`
            (None: cycle forever).
        shuffle: Shuffle the rows within each epoch.
        seed: The seed of the shuffle.
        capacity: The capacity of the queue.
        shared_name: Share the queue under this name.
        summary_name: If set, a scalar summary of how full the queue is, with this
            name.
        name: A name for the queue.
        cancel_op: The cancel op of the queue's `QueueRunner`.

    Returns:
        A `FIFOQueue` of the rows; its `QueueRunner` is added to
        `GraphKeys.QUEUE_RUNNERS`.

    Raises:
        ValueError: The shape of a row cannot be inferred.
    """
    with ops.name_scope(name, "input_producer", [input_tensor]):
        input_tensor = ops.convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(element_shape)
        if not element_shape.is_fully_defined():
            raise ValueError(
                "Either `input_tensor` must have a fully defined shape "
                "or `element_shape` must be specified"
            )
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = data_flow_ops.FIFOQueue(
            capacity=capacity,
            dtypes=[input_tensor.dtype.base_dtype],
            shapes=[element_shape],
            shared_name=shared_name,
            name=name,
        )
        enq = q.enqueue_many([input_tensor])
        queue_runner.add_queue_runner(queue_runner.QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            summary.scalar(
                summary_name, array_ops.cast(q.size(), dtypes.float32) * (1.0 / capacity)
            )
        return q


def string_input_producer(
    string_tensor,
    num_epochs=None,
    shuffle=True,
    seed=None,
    capacity=32,
    shared_name=None,
    name=None,
    cancel_op=None,
):
    """Outputs strings (e.g. filenames) to a queue for an input pipeline.

    With `num_epochs`, creates a local counter `epochs` (initialise it with
    `tf.local_variables_initializer()`). Adds the summary `fraction_of_<capacity>_full`.

    Args:
        string_tensor: A 1-D string tensor of the strings to produce.
        num_epochs: Produce each string this many times, then `OutOfRangeError`
            (None: cycle forever).
        shuffle: Shuffle the strings within each epoch.
        seed: The seed of the shuffle.
        capacity: The capacity of the queue.
        shared_name: Share the queue under this name.
        name: A name for the operations.
        cancel_op: The cancel op of the queue's `QueueRunner`.

    Returns:
        A `FIFOQueue` of the strings; its `QueueRunner` is added to
        `GraphKeys.QUEUE_RUNNERS`.

    Raises:
        ValueError: `string_tensor` is an empty Python list. An empty tensor fails
            an assertion (`InvalidArgumentError`) when run.
    """
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, ops.Tensor) and not _non_empty(string_tensor):
        raise ValueError(not_null_err)
    with ops.name_scope(name, "input_producer", [string_tensor]) as name:
        string_tensor = ops.convert_to_tensor(string_tensor, dtype=dtypes.string)
        with ops.control_dependencies(
            [logging_ops.Assert(math_ops.greater(array_ops.size(string_tensor), 0), [not_null_err])]
        ):
            string_tensor = array_ops.identity(string_tensor)
        return input_producer(
            input_tensor=string_tensor,
            element_shape=[],
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
            name=name,
            summary_name=f"fraction_of_{capacity}_full",
            cancel_op=cancel_op,
        )


def _non_empty(value) -> bool:
    """Python truth of `value`, with numpy arrays counted by their size."""
    size = getattr(value, "size", None)
    if isinstance(size, int) and not callable(size):
        return size > 0
    return bool(value)


def range_input_producer(
    limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None
):
    """Produces the integers from 0 to `limit - 1` in a queue.

    With `num_epochs`, creates a local counter `epochs` (initialise it with
    `tf.local_variables_initializer()`). Adds the summary `fraction_of_<capacity>_full`.

    Args:
        limit: An int32 scalar tensor.
        num_epochs: Produce each integer this many times, then `OutOfRangeError`
            (None: cycle forever).
        shuffle: Shuffle the integers within each epoch.
        seed: The seed of the shuffle.
        capacity: The capacity of the queue.
        shared_name: Share the queue under this name.
        name: A name for the operations.

    Returns:
        A `FIFOQueue` of the integers; its `QueueRunner` is added to
        `GraphKeys.QUEUE_RUNNERS`.
    """
    with ops.name_scope(name, "input_producer", [limit]) as name:
        range_tensor = math_ops.range(limit)
        return input_producer(
            range_tensor,
            [],
            num_epochs,
            shuffle,
            seed,
            capacity,
            shared_name,
            f"fraction_of_{capacity}_full",
            name,
        )


def slice_input_producer(
    tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None
):
    """Produces one slice (along dimension 0) of every tensor of `tensor_list` at a time.

    A `range_input_producer` queue of indices (its `QueueRunner` added to
    `GraphKeys.QUEUE_RUNNERS`) picks the slice.

    Args:
        tensor_list: Tensors with the same size in dimension 0.
        num_epochs: Produce each slice this many times, then `OutOfRangeError`
            (None: cycle forever).
        shuffle: Shuffle the slices within each epoch.
        seed: The seed of the shuffle.
        capacity: The capacity of the queue.
        shared_name: Share the queue under this name.
        name: A name for the operations.

    Returns:
        One tensor per element of `tensor_list`: the shape `[N, a, ..., z]` gives
        `[a, ..., z]`.

    Raises:
        ValueError: `tensor_list` is empty.
    """
    with ops.name_scope(name, "input_producer", tensor_list):
        tensor_list = _convert_n(tensor_list)
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(
            range_size,
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
        )
        index = queue.dequeue()
        return [array_ops.gather(t, index) for t in tensor_list]


# -- Batching -------------------------------------------------------------------------


def _convert_n(tensor_list) -> list:
    """Each element as a tensor, `SparseTensor` or `IndexedSlices`.

    TF's `convert_n_to_tensor_or_indexed_slices`.
    """
    out = []
    for t in tensor_list:
        if isinstance(t, SparseTensorValue):
            t = SparseTensor.from_value(t)
        out.append(t if isinstance(t, (IndexedSlices, SparseTensor)) else ops.convert_to_tensor(t))
    return out


class _SparseMetaData:
    """Whether a component is sparse, and its values' dtype and static rank."""

    def __init__(self, sparse, dtype=None, rank=None):
        self.sparse = sparse
        self.dtype = dtype
        self.rank = tensor_shape.as_dimension(rank)

    def __eq__(self, other):
        if self.sparse != other.sparse:
            return False
        if not self.sparse:
            return True
        return self.dtype == other.dtype and self.rank.is_compatible_with(other.rank)

    def __str__(self):
        return f"[SparseMetaData({self.sparse}, {self.dtype}, {self.rank})]"

    def merge_with(self, other):
        if self != other:
            raise ValueError(f"SparseMetaData objects are incompatible: {self} vs. {other}")
        if self.sparse:
            self.rank = self.rank.merge_with(other.rank)
        return self


def _store_sparse_tensors(tensor_list, enqueue_many):
    """Each `SparseTensor` serialized to strings; the metadata to rebuild it."""

    def meta(t):
        if not isinstance(t, SparseTensor):
            return _SparseMetaData(False)
        rank = t.dense_shape.shape.with_rank(1).dims[0]
        rank = tensor_shape.dimension_value(rank)
        if enqueue_many and rank is not None:
            rank -= 1
        return _SparseMetaData(True, t.dtype, rank)

    def store(t):
        if not isinstance(t, SparseTensor):
            return t
        if enqueue_many:
            return sparse_ops.serialize_many_sparse(t)
        return sparse_ops.serialize_sparse(t)

    return [store(t) for t in tensor_list], [meta(t) for t in tensor_list]


def _store_sparse_tensors_join(tensor_list_list, enqueue_many):
    s0, sparse_info_list = _store_sparse_tensors(tensor_list_list[0], enqueue_many)
    stored_list_list = [s0]
    for tensor_list in tensor_list_list[1:]:
        s, candidate = _store_sparse_tensors(tensor_list, enqueue_many)
        if sparse_info_list != candidate:
            raise ValueError(
                f"Inconsistent SparseTensors list: {tensor_list_list[0]} vs. {tensor_list}"
            )
        sparse_info_list = [a.merge_with(b) for a, b in zip_strict(sparse_info_list, candidate)]
        stored_list_list.append(s)
    return stored_list_list, sparse_info_list


def _restore_sparse_tensors(stored_list, sparse_info_list):
    """The dequeued components with each serialized batch rebuilt as a `SparseTensor`."""
    received_sequence = isinstance(stored_list, (list, tuple))
    if not received_sequence:
        stored_list = (stored_list,)
    tensors = [
        sparse_ops.deserialize_many_sparse(
            s,
            dtype=info.dtype,
            rank=None if info.rank.value is None else info.rank.value + 1,
        )
        if info.sparse
        else s
        for s, info in zip_strict(stored_list, sparse_info_list)
    ]
    return tensors if received_sequence else tensors[0]


def _flatten(tensor_list_list):
    return [tensor for tensor_list in tensor_list_list for tensor in tensor_list]


def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected_keys = set(tensors_list[0].keys())
        for tensors in tensors_list[1:]:
            if set(tensors.keys()) != expected_keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(tensors) for tensors in tensors_list]
    return tensors_list


def _as_original_type(original_tensors, tensor_list):
    if isinstance(original_tensors, dict):
        if len(original_tensors) == 1:
            # A queue of one component dequeues a tensor, not a list.
            tensor_list = [tensor_list]
        return {k: tensor_list[i] for i, k in enumerate(sorted(original_tensors, key=str))}
    return tensor_list


def _validate(tensor_list):
    tensor_list = _convert_n(tensor_list)
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def _validate_join(tensor_list_list):
    tensor_list_list = [_convert_n(tl) for tl in tensor_list_list]
    if not tensor_list_list:
        raise ValueError("Expected at least one input in batch_join().")
    return tensor_list_list


def _validate_keep_input(keep_input, enqueue_many):
    """`keep_input` as a tensor, checked as TF does (only constant scalars reach here)."""
    keep_input = ops.convert_to_tensor(keep_input)
    if keep_input.shape.ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep_input.shape.ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep_input.shape.ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _dtypes(tensor_list_list):
    all_types = [[t.dtype for t in tl] for tl in tensor_list_list]
    types = all_types[0]
    for other_types in all_types[1:]:
        if other_types != types:
            raise TypeError(
                "Expected types to be consistent: "
                f"{', '.join(x.name for x in types)} vs. "
                f"{', '.join(x.name for x in other_types)}."
            )
    return types


def _merge_shapes(shape_list, enqueue_many):
    shape_list = [tensor_shape.as_shape(s) for s in shape_list]
    if enqueue_many:
        # We want the shapes without the leading batch dimension.
        shape_list = [s.with_rank_at_least(1)[1:] for s in shape_list]
    merged_shape = shape_list[0]
    for s in shape_list[1:]:
        # As TF: checks compatibility, keeps the first shape.
        merged_shape.merge_with(s)
    return merged_shape.as_list()


def _shapes(tensor_list_list, shapes, enqueue_many):
    """The component shapes: `shapes`, or those of the tensors merged."""
    if shapes is None:
        len0 = len(tensor_list_list[0])
        for tl in tensor_list_list:
            for i in range(len0):
                if tl[i].shape.ndims is None:
                    raise ValueError(f"Cannot infer Tensor's rank: {tl[i]}")
        shapes = [
            _merge_shapes([tl[i].shape.as_list() for tl in tensor_list_list], enqueue_many)
            for i in range(len0)
        ]
    return shapes


def _select_which_to_enqueue(tensor_list, keep_input):
    """The rows of `tensor_list` where the vector `keep_input` is true.

    TF's `dynamic_partition` into two parts, the second kept.
    """
    select_i = array_ops.cast(keep_input, dtypes.int32)
    return [data_flow_ops.dynamic_partition(x, select_i, num_partitions=2)[1] for x in tensor_list]


def _enqueue_fns(queue, tensor_lists, enqueue_many, keep_input):
    """One enqueue op per tensor list.

    The selected rows for a vector `keep_input`; TF's `smart_cond` for a scalar one
    (an enqueue or a `no_op`, chosen while building when `keep_input` is constant).
    """
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input.shape.ndims == 1:
        return [enqueue_fn(_select_which_to_enqueue(tl, keep_input)) for tl in tensor_lists]
    return [
        smart_cond.smart_cond(
            keep_input,
            lambda tl=tl: enqueue_fn(tl),
            control_flow_ops.no_op,
        )
        for tl in tensor_lists
    ]


def _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input):
    """Adds a `QueueRunner` with one enqueue op (and thread) per tensor list."""
    enqueue_ops = _enqueue_fns(queue, tensor_list_list, enqueue_many, keep_input)
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, enqueue_ops))


def _enqueue(queue, tensor_list, threads, enqueue_many, keep_input):
    """Adds a `QueueRunner` running one enqueue op in `threads` threads."""
    enqueue_ops = _enqueue_fns(queue, [tensor_list], enqueue_many, keep_input) * threads
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, enqueue_ops))


def _which_queue(dynamic_pad):
    return data_flow_ops.PaddingFIFOQueue if dynamic_pad else data_flow_ops.FIFOQueue


def _dequeue(queue, batch_size, allow_smaller_final_batch, name):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _fraction_full(queue, capacity):
    summary.scalar(
        f"fraction_of_{capacity}_full",
        array_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity),
    )


def _fraction_over_min_full(queue, capacity, min_after_dequeue):
    full = array_ops.cast(math_ops.maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
        1.0 / (capacity - min_after_dequeue)
    )
    summary_name = f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full"
    summary.scalar(summary_name, full)


def _batch(
    tensors,
    batch_size,
    keep_input,
    num_threads=1,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    tensor_list = _as_tensor_list(tensors)
    with ops.name_scope(name, "batch", [*tensor_list, keep_input]) as name:
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = _store_sparse_tensors(tensor_list, enqueue_many)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(
            capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name
        )
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _fraction_full(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        dequeued = _restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors, dequeued)


def _batch_join(
    tensors_list,
    batch_size,
    keep_input,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with ops.name_scope(name, "batch_join", [*_flatten(tensor_list_list), keep_input]) as name:
        tensor_list_list = _validate_join(tensor_list_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = _store_sparse_tensors_join(tensor_list_list, enqueue_many)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(
            capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name
        )
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _fraction_full(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        dequeued = _restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors_list[0], dequeued)


def _shuffle_batch(
    tensors,
    batch_size,
    capacity,
    min_after_dequeue,
    keep_input,
    num_threads=1,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    tensor_list = _as_tensor_list(tensors)
    with ops.name_scope(name, "shuffle_batch", [*tensor_list, keep_input]) as name:
        if capacity <= min_after_dequeue:
            raise ValueError(
                f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}."
            )
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = _store_sparse_tensors(tensor_list, enqueue_many)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = data_flow_ops.RandomShuffleQueue(
            capacity=capacity,
            min_after_dequeue=min_after_dequeue,
            seed=seed,
            dtypes=types,
            shapes=shapes,
            shared_name=shared_name,
        )
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _fraction_over_min_full(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        dequeued = _restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors, dequeued)


def _shuffle_batch_join(
    tensors_list,
    batch_size,
    capacity,
    min_after_dequeue,
    keep_input,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with ops.name_scope(
        name, "shuffle_batch_join", [*_flatten(tensor_list_list), keep_input]
    ) as name:
        tensor_list_list = _validate_join(tensor_list_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = _store_sparse_tensors_join(tensor_list_list, enqueue_many)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = data_flow_ops.RandomShuffleQueue(
            capacity=capacity,
            min_after_dequeue=min_after_dequeue,
            seed=seed,
            dtypes=types,
            shapes=shapes,
            shared_name=shared_name,
        )
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _fraction_over_min_full(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        dequeued = _restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors_list[0], dequeued)


def batch(
    tensors,
    batch_size,
    num_threads=1,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """Creates batches of the tensors in `tensors` (a list or dict), through a queue.

    A `QueueRunner` with `num_threads` enqueue threads is added to
    `GraphKeys.QUEUE_RUNNERS`, and the summary `fraction_of_<capacity>_full` to
    `GraphKeys.SUMMARIES`. Without `enqueue_many`, `tensors` is one example and a
    component of shape `[x, y, z]` comes out as `[batch_size, x, y, z]`; with it,
    dimension 0 of every tensor indexes examples (`[*, x, y, z]` in, the same out).
    The result raises `OutOfRangeError` once the queue is closed and drained.

    Without `dynamic_pad`, every component's shape must be fully defined (or
    `shapes` given). With it, a known rank suffices: the queue is a
    `PaddingFIFOQueue` and each batch is padded on the right with zeros (empty
    strings) to the largest shape in the batch.

    Args:
        tensors: The list or dictionary of tensors to enqueue.
        batch_size: The number of examples per batch.
        num_threads: The number of enqueuing threads (order is nondeterministic
            with more than one).
        capacity: The most elements in the queue.
        enqueue_many: Whether each tensor in `tensors` is a batch of examples.
        shapes: The shape of each component of an example (default: inferred).
        dynamic_pad: Allow variable dimensions, padded upon dequeue.
        allow_smaller_final_batch: Return a smaller final batch when the queue is
            closed with fewer than `batch_size` examples left (instead of dropping
            them); the static batch dimension is then unknown.
        shared_name: Share the queue under this name.
        name: A name for the operations.

    Returns:
        A list or dictionary of tensors like `tensors` (a tensor for a list of one).

    Raises:
        ValueError: `shapes` is not given and cannot be inferred from `tensors`.
    """
    return _batch(
        tensors,
        batch_size,
        keep_input=True,
        num_threads=num_threads,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def batch_join(
    tensors_list,
    batch_size,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """Runs a list of tensor lists (or dicts) to fill one queue, and batches it.

    Each element of `tensors_list` gets its own enqueue thread: e.g. several
    readers, each producing examples with the same dtypes and compatible shapes.
    Otherwise as `batch` (`enqueue_many`, `shapes`, `dynamic_pad`,
    `allow_smaller_final_batch`, the summary `fraction_of_<capacity>_full`).

    Args:
        tensors_list: A list of tuples or dictionaries of tensors to enqueue.
        batch_size: The number of examples per batch.
        capacity: The most elements in the queue.
        enqueue_many: Whether each tensor is a batch of examples.
        shapes: The shape of each component of an example (default: inferred).
        dynamic_pad: Allow variable dimensions, padded upon dequeue.
        allow_smaller_final_batch: Return a smaller final batch instead of dropping
            the remaining examples.
        shared_name: Share the queue under this name.
        name: A name for the operations.

    Returns:
        A list or dictionary of tensors like `tensors_list[0]` (a tensor for a
        list of one).

    Raises:
        ValueError: `shapes` is not given and cannot be inferred, or the
            dictionaries' keys differ.
        TypeError: The dtypes of the lists differ.
    """
    return _batch_join(
        tensors_list,
        batch_size,
        keep_input=True,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def shuffle_batch(
    tensors,
    batch_size,
    capacity,
    min_after_dequeue,
    num_threads=1,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """Creates batches by randomly shuffling the tensors in `tensors` (a list or dict).

    As `batch`, through a `RandomShuffleQueue` that keeps at least
    `min_after_dequeue` elements after each dequeue while open, so they mix. Adds
    the summary `fraction_over_<min_after_dequeue>_of_<capacity - min_after_dequeue>_full`.

    Args:
        tensors: The list or dictionary of tensors to enqueue.
        batch_size: The number of examples per batch.
        capacity: The most elements in the queue.
        min_after_dequeue: The fewest elements left after a dequeue (until closed).
        num_threads: The number of enqueuing threads.
        seed: The seed of the shuffle.
        enqueue_many: Whether each tensor in `tensors` is a batch of examples.
        shapes: The shape of each component of an example (default: inferred).
        allow_smaller_final_batch: Return a smaller final batch instead of dropping
            the remaining examples.
        shared_name: Share the queue under this name.
        name: A name for the operations.

    Returns:
        A list or dictionary of tensors like `tensors` (a tensor for a list of one).

    Raises:
        ValueError: `capacity <= min_after_dequeue`, or `shapes` is not given and
            cannot be inferred.
    """
    return _shuffle_batch(
        tensors,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input=True,
        num_threads=num_threads,
        seed=seed,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def shuffle_batch_join(
    tensors_list,
    batch_size,
    capacity,
    min_after_dequeue,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """Shuffles and batches examples from a list of tensor lists (or dicts).

    Each element of `tensors_list` gets its own enqueue thread into one
    `RandomShuffleQueue`; otherwise as `shuffle_batch`.

    Args:
        tensors_list: A list of tuples or dictionaries of tensors to enqueue.
        batch_size: The number of examples per batch.
        capacity: The most elements in the queue.
        min_after_dequeue: The fewest elements left after a dequeue (until closed).
        seed: The seed of the shuffle.
        enqueue_many: Whether each tensor is a batch of examples.
        shapes: The shape of each component of an example (default: inferred).
        allow_smaller_final_batch: Return a smaller final batch instead of dropping
            the remaining examples.
        shared_name: Share the queue under this name.
        name: A name for the operations.

    Returns:
        A list or dictionary of tensors like `tensors_list[0]` (a tensor for a
        list of one).

    Raises:
        ValueError: `capacity <= min_after_dequeue`, `shapes` is not given and
            cannot be inferred, or the dictionaries' keys differ.
        TypeError: The dtypes of the lists differ.
    """
    return _shuffle_batch_join(
        tensors_list,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input=True,
        seed=seed,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def match_filenames_once(pattern, name=None):
    """A local variable holding the files that match `pattern`, matched once.

    TF's: a `MatchingFiles` op as the initial value of a local variable (run
    `tf.local_variables_initializer()`), so the list is fixed at initialisation.

    Args:
        pattern: A file pattern (glob), or a 1-D tensor of them.
        name: A name for the operations.

    Returns:
        The variable; its value is the sorted 1-D string tensor of matching paths.
    """
    with ops.name_scope(name, "matching_filenames", [pattern]) as name:
        return variables.Variable(
            name=name,
            initial_value=io_ops.matching_files(pattern),
            trainable=False,
            validate_shape=False,
            collections=[ops.GraphKeys.LOCAL_VARIABLES],
        )


def maybe_batch(
    tensors,
    keep_input,
    batch_size,
    num_threads=1,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """As `batch`, enqueueing only the examples where `keep_input` is true.

    Args:
        tensors: The tensors (a list or dict) to batch.
        keep_input: Bool: a vector (with `enqueue_many=True`) selecting rows, or a
            scalar (a constant until `tf.cond` lands).
        batch_size: The batch size.
        num_threads: Enqueue threads.
        capacity: The queue's capacity.
        enqueue_many: Whether each tensor is a batch of examples.
        shapes: The shapes of the examples.
        dynamic_pad: Whether to pad variable shapes.
        allow_smaller_final_batch: Whether the last batch may be smaller.
        shared_name: The queue's shared name.
        name: A name for the operations.

    Returns:
        The batched tensors, in the structure of `tensors`.
    """
    return _batch(
        tensors,
        batch_size,
        keep_input,
        num_threads=num_threads,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def maybe_batch_join(
    tensors_list,
    keep_input,
    batch_size,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """As `batch_join`, enqueueing only the examples where `keep_input` is true.

    Args:
        tensors_list: Lists (or dicts) of tensors, one per enqueue thread.
        keep_input: Bool vector (with `enqueue_many=True`) or scalar (constant).
        batch_size: The batch size.
        capacity: The queue's capacity.
        enqueue_many: Whether each tensor is a batch of examples.
        shapes: The shapes of the examples.
        dynamic_pad: Whether to pad variable shapes.
        allow_smaller_final_batch: Whether the last batch may be smaller.
        shared_name: The queue's shared name.
        name: A name for the operations.

    Returns:
        The batched tensors, in the structure of `tensors_list[0]`.
    """
    return _batch_join(
        tensors_list,
        batch_size,
        keep_input,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def maybe_shuffle_batch(
    tensors,
    batch_size,
    capacity,
    min_after_dequeue,
    keep_input,
    num_threads=1,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """As `shuffle_batch`, enqueueing only the examples where `keep_input` is true.

    Args:
        tensors: The tensors (a list or dict) to batch.
        batch_size: The batch size.
        capacity: The queue's capacity.
        min_after_dequeue: Elements left after a dequeue, for mixing.
        keep_input: Bool vector (with `enqueue_many=True`) or scalar (constant).
        num_threads: Enqueue threads.
        seed: The shuffling seed.
        enqueue_many: Whether each tensor is a batch of examples.
        shapes: The shapes of the examples.
        allow_smaller_final_batch: Whether the last batch may be smaller.
        shared_name: The queue's shared name.
        name: A name for the operations.

    Returns:
        The batched tensors, in the structure of `tensors`.
    """
    return _shuffle_batch(
        tensors,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input,
        num_threads=num_threads,
        seed=seed,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def maybe_shuffle_batch_join(
    tensors_list,
    batch_size,
    capacity,
    min_after_dequeue,
    keep_input,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """As `shuffle_batch_join`, enqueueing only the examples where `keep_input` is true.

    Args:
        tensors_list: Lists (or dicts) of tensors, one per enqueue thread.
        batch_size: The batch size.
        capacity: The queue's capacity.
        min_after_dequeue: Elements left after a dequeue, for mixing.
        keep_input: Bool vector (with `enqueue_many=True`) or scalar (constant).
        seed: The shuffling seed.
        enqueue_many: Whether each tensor is a batch of examples.
        shapes: The shapes of the examples.
        allow_smaller_final_batch: Whether the last batch may be smaller.
        shared_name: The queue's shared name.
        name: A name for the operations.

    Returns:
        The batched tensors, in the structure of `tensors_list[0]`.
    """
    return _shuffle_batch_join(
        tensors_list,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input,
        seed=seed,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )
