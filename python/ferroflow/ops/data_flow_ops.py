"""Queues: `tf.FIFOQueue`, `tf.PaddingFIFOQueue`, `tf.RandomShuffleQueue`, `tf.PriorityQueue`.

A queue is a resource of the session that runs it (two sessions on one graph have
two queues). The queue object only builds ops: `enqueue`, `enqueue_many`, `dequeue`,
`dequeue_many`, `dequeue_up_to`, `close`, `size` and `is_closed`, with TensorFlow's
names, static shapes and construction-time checks. The blocking, closing and
cancelling happen in Rust (`ferroflow-core`'s `queue` module), without the GIL.

Running semantics, as in TF: an enqueue waits while the queue is full; a dequeue
waits for its elements. After `close()`, enqueues fail with `CancelledError`, pending
ones first complete (or, with `cancel_pending_enqueues=True`, fail with
`CancelledError`), and dequeues drain what is left, then raise `OutOfRangeError`.
A blocked run honours `RunOptions.timeout_in_ms` (`DeadlineExceededError`) and is
cancelled by closing the session (`CancelledError`).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence

from .._compat import zip_strict
from ..framework import dtypes as _dtypes
from ..framework import indexed_slices, ops, random_seed, tensor_shape, tensor_util
from . import array_ops
from ._op_util import make_op

__all__ = [
    "ConditionalAccumulator",
    "ConditionalAccumulatorBase",
    "FIFOQueue",
    "PaddingFIFOQueue",
    "PriorityQueue",
    "QueueBase",
    "RandomShuffleQueue",
    "SparseConditionalAccumulator",
]


def _as_type_list(dtypes) -> list:
    """`dtypes` as a list of `DType`s."""
    if dtypes is None:
        raise ValueError("dtypes must be given")
    if not isinstance(dtypes, (list, tuple)):
        dtypes = [dtypes]
    return [_dtypes.as_dtype(d) for d in dtypes]


def _as_shape_list(shapes, unknown_dim_allowed=False, unknown_rank_allowed=False):
    """`shapes` as a list of `TensorShape`s (None stays None), checked as TF does."""
    if unknown_dim_allowed and (
        not isinstance(shapes, Sequence)
        or not shapes
        or any(shape is None or isinstance(shape, int) for shape in shapes)
    ):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, tensor_shape.TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError(
            "Shapes must be a TensorShape or a list or tuple of TensorShapes, "
            f"got {type(shapes)} instead."
        )
    if all(shape is None or isinstance(shape, int) for shape in shapes):
        shapes = [shapes]
    shapes = [tensor_shape.as_shape(shape) for shape in shapes]
    if not unknown_dim_allowed and any(not shape.is_fully_defined() for shape in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if not unknown_rank_allowed and any(shape.dims is None for shape in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError(
            "List of names must have the same length as the list "
            f"of dtypes, received len(names)={len(names)},"
            f"len(dtypes)={len(dtypes)}"
        )
    return list(names)


def _check_shapes_length(dtypes, shapes) -> None:
    """TF's `QueueBase` check, made before the queue op exists (the op would reject it)."""
    if shapes is not None and len(shapes) != len(dtypes):
        raise ValueError(
            "Queue shapes must have the same length as dtypes, "
            f"received len(shapes)={len(shapes)}, "
            f"len(dtypes)={len(dtypes)}"
        )


def _shape_common(s1, s2):
    """The most specific shape both `s1` and `s2` match."""
    s1, s2 = tensor_shape.TensorShape(s1), tensor_shape.TensorShape(s2)
    if s1.ndims is None or s2.ndims is None or s1.ndims != s2.ndims:
        return tensor_shape.unknown_shape()
    return tensor_shape.TensorShape(
        [a if a is not None and a == b else None for a, b in zip_strict(s1.as_list(), s2.as_list())]
    )


def _queue_op(op_type, name, dtypes, shapes, capacity, shared_name, **attrs):
    """Creates the queue op outside any control-dependency block (TF's `init_scope`)."""
    attrs = {
        "capacity": int(capacity),
        "container": "",
        "shared_name": shared_name or "",
        **attrs,
    }
    if dtypes:
        attrs["component_types"] = list(dtypes)
    if shapes:
        attrs["shapes"] = list(shapes)
    graph = ops.get_default_graph()
    with graph.control_dependencies(None):
        return make_op(op_type, [], attrs, name=name).outputs[0]


class QueueBase:
    """The base class of the queue implementations (TF's `tf.QueueBase`).

    A queue holds a bounded number of elements, each a tuple of tensors with fixed
    dtypes (and optionally shapes, and names). Its methods add ops to the graph;
    running them enqueues, dequeues, closes or inspects the session's queue.
    """

    def __init__(self, dtypes, shapes, names, queue_ref):
        """Wraps an existing queue handle.

        Args:
            dtypes: The component types.
            shapes: The component shapes (each a `TensorShape`), or None.
            names: The component names, or None.
            queue_ref: The queue's handle tensor (a `resource`).

        Raises:
            ValueError: `shapes` or `names` does not match `dtypes` in length.
        """
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError(
                    "Queue shapes must have the same length as dtypes, "
                    f"received len(shapes)={len(shapes)}, "
                    f"len(dtypes)={len(dtypes)}"
                )
            self._shapes = [tensor_shape.TensorShape(s) for s in shapes]
        else:
            self._shapes = [tensor_shape.unknown_shape() for _ in self._dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError(
                    "Queue names must have the same length as dtypes,"
                    f"received len(names)={len(names)},"
                    f"len {len(dtypes)}"
                )
            self._names = names
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = self._queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        """A queue that runs its ops on `queues[index]` (`index` a scalar tensor).

        Its component shapes are the most specific shapes compatible with every
        queue's. Running one of its ops with `index` outside `[0, len(queues))` raises
        `InvalidArgumentError` ("indices = 3 is not in [0, 2)"), as TF's.

        Args:
            index: An integer scalar tensor: which queue.
            queues: A list of `QueueBase` objects.

        Returns:
            A `QueueBase` (named `GatherV2`, as TF's).

        Raises:
            TypeError: `queues` is not a non-empty list of queues with matching
                dtypes and names.
        """
        if (
            not queues
            or not isinstance(queues, list)
            or not all(isinstance(x, QueueBase) for x in queues)
        ):
            raise TypeError("A list of queues expected")
        dtypes = queues[0].dtypes
        if not all(dtypes == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        reduced = [
            functools.reduce(_shape_common, s) for s in zip_strict(*[q.shapes for q in queues])
        ]
        # TF gathers from the stacked handles (`stack`, `GatherV2`); ferroflow's `Pack`
        # and `GatherV2` kernels take no resource handles, so the handle is chosen
        # with the same result by a `Switch` per queue and a `Merge` (named as TF's
        # gather), on the position gathered from `range(len(queues))`, which fails
        # with TF's error when `index` is out of range.
        from . import control_flow_ops, math_ops

        with ops.name_scope(None, "stack", [index]):
            position = array_ops.gather(list(range(len(queues))), index)
            selected = [
                control_flow_ops.switch(q.queue_ref, math_ops.equal(position, i))[1]
                for i, q in enumerate(queues)
            ]
        return QueueBase(
            dtypes=dtypes,
            shapes=reduced,
            names=names,
            queue_ref=control_flow_ops.merge(selected, name="GatherV2")[0],
        )

    @property
    def queue_ref(self):
        """The underlying queue handle."""
        return self._queue_ref

    @property
    def name(self) -> str:
        """The name of the underlying queue op."""
        return self._queue_ref.op.name

    @property
    def dtypes(self) -> list:
        """The dtypes of the components of an element."""
        return self._dtypes

    @property
    def shapes(self) -> list:
        """The static shapes of the components of an element."""
        return self._shapes

    @property
    def names(self):
        """The component names, or None."""
        return self._names

    def _check_enqueue_dtypes(self, vals):
        """`vals` (a tensor, list, tuple or dict by name) as tensors of the queue's dtypes."""
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(
                    "Keys in dictionary to enqueue do not match "
                    f"names of Queue.  Dictionary: {sorted(vals.keys())},"
                    f"Queue: {sorted(self._names)}"
                )
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        return [
            ops.convert_to_tensor(val, dtype=dtype, name=f"component_{i}")
            for i, (val, dtype) in enumerate(zip(vals, self._dtypes))
        ]

    @staticmethod
    def _scope_vals(vals):
        if isinstance(vals, (list, tuple)):
            return vals
        if isinstance(vals, dict):
            return list(vals.values())
        return [vals]

    def enqueue(self, vals, name=None):
        """The op that adds one element (`vals`: a tensor, tuple/list, or dict by name).

        Running it blocks while the queue is full; it fails with `CancelledError` if
        the queue is closed first.

        Raises:
            ValueError: A component's shape does not match the queue's.
        """
        with ops.name_scope(name, f"{self._name}_enqueue", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                val.get_shape().assert_is_compatible_with(shape)
            return make_op("QueueEnqueueV2", [self._queue_ref, *vals], scope=scope)

    def enqueue_many(self, vals, name=None):
        """The op that adds the elements `vals` holds along dimension 0.

        Raises:
            ValueError: A component has rank 0, the components' first dimensions
                differ, or the rest of a shape does not match the queue's.
        """
        with ops.name_scope(name, f"{self._name}_EnqueueMany", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = tensor_shape.Dimension(vals[0].get_shape().with_rank_at_least(1)[0])
            for val, shape in zip(vals, self._shapes):
                val_batch = tensor_shape.Dimension(val.get_shape().with_rank_at_least(1)[0])
                batch_dim = batch_dim.merge_with(val_batch)
                val.get_shape()[1:].assert_is_compatible_with(shape)
            return make_op("QueueEnqueueManyV2", [self._queue_ref, *vals], scope=scope)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def _dequeue_op(self, op_type, name, n=None):
        # As TF's generated wrappers: `n` is converted inside the op's name scope.
        with ops.name_scope(name) as scope:
            inputs = [self._queue_ref]
            if n is not None:
                inputs.append(ops.convert_to_tensor(n, dtype=_dtypes.int32, name="n"))
            attrs = {"component_types": list(self._dtypes)}
            op = make_op(op_type, inputs, attrs, scope=scope)
        return op, list(op.outputs)

    def dequeue(self, name=None):
        """One element: a tensor, a list of tensors, or a dict by component name.

        Running it blocks until an element is there; once the queue is closed and
        empty it raises `OutOfRangeError`.
        """
        _, ret = self._dequeue_op("QueueDequeueV2", name or f"{self._name}_Dequeue")
        for output, shape in zip_strict(ret, self._shapes):
            output.set_shape(shape)
        return self._dequeue_return_value(ret)

    def dequeue_many(self, n, name=None):
        """`n` elements, each component stacked along a new dimension 0.

        Running it blocks until `n` elements are there; once the queue is closed with
        fewer left it raises `OutOfRangeError` (and takes none).
        """
        op, ret = self._dequeue_op("QueueDequeueManyV2", name or f"{self._name}_DequeueMany", n)
        batch_dim = tensor_shape.Dimension(tensor_util.constant_value(op.inputs[1]))
        for output, shape in zip_strict(ret, self._shapes):
            output.set_shape(tensor_shape.TensorShape([batch_dim]).concatenate(shape))
        return self._dequeue_return_value(ret)

    def dequeue_up_to(self, n, name=None):
        """Like `dequeue_many`, but returns what is left of a closed queue.

        Once the queue is closed with fewer than `n` elements, it returns them (at
        least one) instead of raising `OutOfRangeError`.
        """
        _, ret = self._dequeue_op("QueueDequeueUpToV2", name or f"{self._name}_DequeueUpTo", n)
        for output, shape in zip_strict(ret, self._shapes):
            output.set_shape(tensor_shape.TensorShape([None]).concatenate(shape))
        return self._dequeue_return_value(ret)

    def close(self, cancel_pending_enqueues=False, name=None):
        """The op that closes the queue.

        Enqueues already waiting complete first, or fail with `CancelledError` when
        `cancel_pending_enqueues` is set.
        """
        attrs = {"cancel_pending_enqueues": bool(cancel_pending_enqueues)}
        return make_op("QueueCloseV2", [self._queue_ref], attrs, name=name or f"{self._name}_Close")

    def is_closed(self, name=None):
        """A scalar bool tensor: whether the queue is closed."""
        op = make_op("QueueIsClosedV2", [self._queue_ref], name=name or f"{self._name}_Is_Closed")
        return op.outputs[0]

    def size(self, name=None):
        """A scalar int32 tensor: the number of elements in the queue."""
        op = make_op("QueueSizeV2", [self._queue_ref], name=name or f"{self._name}_Size")
        return op.outputs[0]


class FIFOQueue(QueueBase):
    """A queue whose elements leave in the order they came (TF's `tf.FIFOQueue`)."""

    def __init__(
        self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"
    ):
        """Creates a FIFO queue.

        Args:
            capacity: The most elements held at once (negative: unbounded).
            dtypes: The component types (a `DType` or a list of them).
            shapes: Fully defined component shapes, or None (then `dequeue_many`
                and `dequeue_up_to` cannot be used).
            names: Component names, or None.
            shared_name: Share the queue under this name within a session.
            name: Name of the queue op.
        """
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        _check_shapes_length(dtypes, shapes)
        queue_ref = _queue_op("FIFOQueueV2", name, dtypes, shapes, capacity, shared_name)
        super().__init__(dtypes, shapes, names, queue_ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose batched dequeues pad components to a common shape.

    Shapes may leave dimensions unknown (`None`); `dequeue_many` and `dequeue_up_to`
    pad each component with zeros (empty strings) to the largest size in the batch.
    """

    def __init__(
        self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"
    ):
        """Creates a padding FIFO queue (`shapes` required, one per component).

        Raises:
            ValueError: `shapes` is missing, has unknown ranks, or does not match
                `dtypes` in length.
        """
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError(
                "Shapes must be provided for all components, "
                f"but received {len(dtypes)} dtypes and "
                f"{len(shapes)} shapes."
            )
        queue_ref = _queue_op("PaddingFIFOQueueV2", name, dtypes, shapes, capacity, shared_name)
        super().__init__(dtypes, shapes, names, queue_ref)


class RandomShuffleQueue(QueueBase):
    """A queue that hands out its elements in random order.

    While open it keeps at least `min_after_dequeue` elements after each dequeue, so
    the elements mix; once closed it hands out the rest.
    """

    def __init__(
        self,
        capacity,
        min_after_dequeue,
        dtypes,
        shapes=None,
        names=None,
        seed=None,
        shared_name=None,
        name="random_shuffle_queue",
    ):
        """Creates a shuffling queue (`seed` as for random ops, with the graph seed)."""
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        _check_shapes_length(dtypes, shapes)
        seed1, seed2 = random_seed.get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            text = (str(seed1) + shared_name).encode("utf-8")
            seed2 = int(hashlib.md5(text).hexdigest()[:8], 16) & 0x7FFFFFFF
        queue_ref = _queue_op(
            "RandomShuffleQueueV2",
            name,
            dtypes,
            shapes,
            capacity,
            shared_name,
            min_after_dequeue=int(min_after_dequeue),
            seed=int(seed1),
            seed2=int(seed2),
        )
        super().__init__(dtypes, shapes, names, queue_ref)


class PriorityQueue(QueueBase):
    """A queue whose elements leave smallest priority first.

    Each element's first component is its priority, an int64 scalar, followed by the
    components of `types`.
    """

    def __init__(
        self, capacity, types, shapes=None, names=None, shared_name=None, name="priority_queue"
    ):
        """Creates a priority queue (`types` and `shapes` exclude the priority)."""
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes)
        priority_dtypes = [_dtypes.int64, *types]
        priority_shapes = [tensor_shape.TensorShape([]), *shapes] if shapes else shapes
        _check_shapes_length(priority_dtypes, priority_shapes)
        queue_ref = _queue_op("PriorityQueueV2", name, types, shapes, capacity, shared_name)
        super().__init__(priority_dtypes, priority_shapes, names, queue_ref)


def dynamic_partition(data, partitions, num_partitions, name=None):
    """Splits the rows of `data` into `num_partitions` tensors by `partitions`.

    `outputs[i]` holds, in order, the slices `data[j...]` whose `partitions[j...]` is
    `i`; `partitions`' shape must be a prefix of `data`'s.

    Args:
        data: A tensor.
        partitions: An int32 tensor of ids in `[0, num_partitions)`.
        num_partitions: The number of outputs (at least 1).
        name: Name of the op.

    Returns:
        A list of `num_partitions` tensors.
    """
    with ops.name_scope(name, "DynamicPartition", [data, partitions]) as scope:
        data = ops.convert_to_tensor(data, name="data")
        partitions = ops.convert_to_tensor(partitions, name="partitions")
        attrs = {"num_partitions": int(num_partitions)}
        return list(make_op("DynamicPartition", [data, partitions], attrs, scope=scope).outputs)


def _stitch(op_type, indices, data, name):
    if len(indices) != len(data):
        raise ValueError(
            f"List argument 'data' to '{op_type}' Op with length {len(data)} must match "
            f"length {len(indices)} of argument 'indices'."
        )
    with ops.name_scope(name, op_type, [*indices, *data]) as scope:
        indices = [ops.convert_to_tensor(i, name="indices") for i in indices]
        data = [ops.convert_to_tensor(d, name="data") for d in data]
        return make_op(op_type, [*indices, *data], scope=scope).outputs[0]


def dynamic_stitch(indices, data, name=None):
    """Merges the rows of `data` into one tensor at the positions in `indices`.

    `merged[indices[m][i...], ...] = data[m][i..., ...]`; where an index repeats, the
    last one written (in `m`, then `i` order) wins. The result has `max(indices) + 1`
    rows.

    Args:
        indices: A list of int32 tensors.
        data: A list of tensors of one dtype, `data[m]`'s shape starting with
            `indices[m]`'s.
        name: Name of the op.

    Returns:
        The merged tensor.
    """
    return _stitch("DynamicStitch", list(indices), list(data), name)


def parallel_dynamic_stitch(indices, data, name=None):
    """`dynamic_stitch` for indices that do not repeat (TF's `ParallelDynamicStitch`).

    Where indices repeat TF leaves the winner unspecified; ferroflow gives
    `dynamic_stitch`'s.
    """
    return _stitch("ParallelDynamicStitch", list(indices), list(data), name)


class ConditionalAccumulatorBase:
    """A conditional accumulator for aggregating gradients (TF's base class).

    Up-to-date gradients (computed at a time step at least the accumulator's) are
    added to the accumulator; stale ones are dropped. Taking the aggregate blocks
    until the required number of gradients has been accumulated.
    """

    def __init__(self, dtype, shape, accumulator_ref):
        """Wraps an accumulator handle.

        Args:
            dtype: Datatype of the accumulated gradients.
            shape: Shape of the accumulated gradients (None: unknown).
            accumulator_ref: The accumulator op's handle.
        """
        self._dtype = dtype
        if shape is not None:
            self._shape = tensor_shape.TensorShape(shape)
        else:
            self._shape = tensor_shape.unknown_shape()
        self._accumulator_ref = accumulator_ref
        self._name = self._accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self):
        """The underlying accumulator reference."""
        return self._accumulator_ref

    @property
    def name(self) -> str:
        """The name of the underlying accumulator."""
        return self._name

    @property
    def dtype(self):
        """The datatype of the gradients accumulated by this accumulator."""
        return self._dtype

    def num_accumulated(self, name=None):
        """The number of gradients accumulated since the last take (an int32 tensor)."""
        if name is None:
            name = f"{self._name}_NumAccumulated"
        return make_op("AccumulatorNumAccumulated", [self._accumulator_ref], name=name).outputs[0]

    def set_global_step(self, new_global_step, name=None):
        """The op that sets the accumulator's time step (a smaller one is allowed)."""
        step = array_ops.cast(ops.convert_to_tensor(new_global_step), _dtypes.int64)
        return make_op("AccumulatorSetGlobalStep", [self._accumulator_ref, step], name=name)


def _accumulator_op(op_type, dtype, shape, shared_name, name, reduction_type):
    dtype = _dtypes.as_dtype(dtype)
    attrs = {
        "dtype": dtype,
        "shape": tensor_shape.unknown_shape() if shape is None else tensor_shape.as_shape(shape),
        "container": "",
        "shared_name": shared_name or "",
        "reduction_type": reduction_type,
    }
    return make_op(op_type, [], attrs, name=name).outputs[0]


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """A conditional accumulator of dense gradients (TF's `tf.ConditionalAccumulator`).

    Running `take_grad(n)` blocks until `n` up-to-date gradients were applied, then
    returns their mean (or sum, `reduction_type="SUM"`), resets the accumulator and
    increments its time step. The wait honours the run's deadline and cancellation.
    """

    def __init__(
        self,
        dtype,
        shape=None,
        shared_name=None,
        name="conditional_accumulator",
        reduction_type="MEAN",
    ):
        """Creates a new ConditionalAccumulator.

        Args:
            dtype: Datatype of the accumulated gradients (float32 or float64 run).
            shape: Shape of the accumulated gradients.
            shared_name: If non-empty, the accumulator is shared under this name.
            name: Optional name for the accumulator.
            reduction_type: "MEAN" or "SUM".
        """
        ref = _accumulator_op(
            "ConditionalAccumulator", dtype, shape, shared_name, name, reduction_type
        )
        super().__init__(_dtypes.as_dtype(dtype), shape, ref)

    def apply_grad(self, grad, local_step=0, name=None):
        """The op that applies `grad`, computed at `local_step` (dropped if stale).

        Raises:
            ValueError: `grad`'s static shape does not match the accumulator's.
        """
        grad = ops.convert_to_tensor(grad, self._dtype)
        grad.get_shape().assert_is_compatible_with(self._shape)
        local_step = array_ops.cast(ops.convert_to_tensor(local_step), _dtypes.int64)
        return make_op(
            "AccumulatorApplyGradient", [self._accumulator_ref, local_step, grad], name=name
        )

    def take_grad(self, num_required, name=None):
        """The aggregate of `num_required` gradients (blocks until they arrived)."""
        with ops.name_scope(name, "AccumulatorTakeGradient", [num_required]) as scope:
            n = ops.convert_to_tensor(num_required, _dtypes.int32, name="num_required")
            out = make_op(
                "AccumulatorTakeGradient",
                [self._accumulator_ref, n],
                {"dtype": self._dtype},
                scope=scope,
            ).outputs[0]
        out.set_shape(self._shape)
        return out


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """A conditional accumulator of `IndexedSlices` gradients (TF's class of that name).

    Rows with equal indices are summed; with MEAN each row is divided by the number
    of gradients that had it.
    """

    def __init__(
        self,
        dtype,
        shape=None,
        shared_name=None,
        name="sparse_conditional_accumulator",
        reduction_type="MEAN",
    ):
        """Creates a new SparseConditionalAccumulator (arguments as `ConditionalAccumulator`)."""
        ref = _accumulator_op(
            "SparseConditionalAccumulator", dtype, shape, shared_name, name, reduction_type
        )
        super().__init__(_dtypes.as_dtype(dtype), shape, ref)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """The op that applies the `IndexedSlices` `grad` (dropped if stale)."""
        return self.apply_grad(
            grad_indices=grad.indices,
            grad_values=grad.values,
            grad_shape=grad.dense_shape,
            local_step=local_step,
            name=name,
        )

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        """The op that applies a sparse gradient given as indices, values and shape."""
        local_step = array_ops.cast(ops.convert_to_tensor(local_step), _dtypes.int64)
        indices = array_ops.cast(grad_indices, _dtypes.int64)
        values = ops.convert_to_tensor(grad_values, self._dtype)
        shape = array_ops.cast([] if grad_shape is None else grad_shape, _dtypes.int64)
        return make_op(
            "SparseAccumulatorApplyGradient",
            [self._accumulator_ref, local_step, indices, values, shape],
            {"has_known_shape": grad_shape is not None},
            name=name,
        )

    def take_grad(self, num_required, name=None):
        """The aggregate as a tuple of indices, values and shape tensors (blocks)."""
        with ops.name_scope(name, "SparseAccumulatorTakeGradient", [num_required]) as scope:
            n = ops.convert_to_tensor(num_required, _dtypes.int32, name="num_required")
            op = make_op(
                "SparseAccumulatorTakeGradient",
                [self._accumulator_ref, n],
                {"dtype": self._dtype},
                scope=scope,
            )
        return tuple(op.outputs)

    def take_indexed_slices_grad(self, num_required, name=None):
        """The aggregate as `IndexedSlices` (blocks until enough gradients arrived)."""
        indices, values, shape = self.take_grad(num_required, name=name)
        return indexed_slices.IndexedSlices(indices=indices, values=values, dense_shape=shape)
