"""`tf.TensorArray`: TF-1.x's resource-backed array of tensors (`TensorArrayV3`).

The elements live in a native resource behind `handle`, made when the run executes
`TensorArrayV3` and kept while the run holds the handle. Every operation takes the
array's scalar float `flow` and the writes return a new one, which orders reads
after the writes they depend on; a `TensorArray` object is a (handle, flow) pair, and
`write`/`scatter`/`unstack`/`split` return a new object over the same handle. A write
keeps the tensor written (O(1), no copy of the array); TF's errors guard every
invalid use (an index written twice, out of range, a cleared or unwritten element,
inconsistent shapes, a wrong dtype). `tf.while_loop` carries an array as its flow.

This is TF's `_GraphTensorArray`, method for method (the colocation arguments are
accepted: ferroflow places the array's ops with their inputs). Gradients are TF's
(`tensor_array_grad`): gradient arrays made by `TensorArrayGradV3`, one per
`tf.gradients` call.
"""

from __future__ import annotations

from ..framework import dtypes, ops, tensor_shape, tensor_util
from . import array_ops, math_ops


def _create(op_type, inputs, attrs, name):
    return ops.get_default_graph()._create_op(op_type, inputs, attrs, name=name)


def tensor_array_read_v3(handle, index, flow_in, dtype, name=None):
    """TF's raw `TensorArrayReadV3`: element `index` of the array `handle` as `dtype`.

    The op checks `dtype` against the array's when it runs (an `InvalidArgumentError`).
    """
    index = ops.convert_to_tensor(index, dtype=dtypes.int32)
    op = _create(
        "TensorArrayReadV3",
        [handle, index, flow_in],
        {"dtype": dtypes.as_dtype(dtype)},
        name or "TensorArrayReadV3",
    )
    return op.outputs[0]


class TensorArray:
    """A list of tensors of one dtype, indexed from 0 (TF-1.x's `tf.TensorArray`).

    Methods that write (`write`, `unstack`, `scatter`, `split`) return a new
    `TensorArray` whose `flow` follows the write: use that one, as in TF. Inside
    `tf.while_loop`, pass arrays as loop variables.
    """

    def __init__(
        self,
        dtype,
        size=None,
        dynamic_size=None,
        clear_after_read=None,
        tensor_array_name=None,
        handle=None,
        flow=None,
        infer_shape=True,
        element_shape=None,
        colocate_with_first_write_call=True,
        name=None,
    ):
        """An array of `size` elements, or the array behind an existing `handle`.

        Args:
            dtype: The element dtype.
            size: The number of elements (int32 scalar); required unless `handle` is.
            dynamic_size: Whether writes past the end grow the array (default False).
            clear_after_read: Whether a read lets the element go (default True), so it
                cannot be read again.
            tensor_array_name: The array's name in run-time messages.
            handle: The handle of an existing array (with its `flow`).
            flow: The flow of an existing array (with `handle`).
            infer_shape: Whether all elements share one shape, fixed by the first
                write (default True).
            element_shape: The element shape, if known (need not be fully defined).
            colocate_with_first_write_call: Accepted for compatibility.
            name: A name scope for the ops.

        Raises:
            ValueError: For TF's invalid combinations of arguments.
            TypeError: If `handle` is not a `Tensor`.
        """
        if handle is not None and tensor_array_name:
            raise ValueError(
                "Cannot provide both `handle` and `tensor_array_name` arguments at the same time."
            )
        if handle is not None and not isinstance(handle, ops.Tensor):
            raise TypeError(
                f"Expected `handle` to be a Tensor, but got `{handle}` of type "
                f"`{type(handle)}` instead."
            )
        if handle is None and size is None:
            raise ValueError("Argument `size` must be provided if handle is not provided.")
        if handle is not None and size is not None:
            raise ValueError(
                "Cannot provide both a `handle` and `size` arguments at the same time."
            )
        if handle is not None and element_shape is not None:
            raise ValueError(
                "Cannot provide both `handle` and `element_shape` arguments at the same time."
            )
        if handle is not None and dynamic_size is not None:
            raise ValueError(
                "Cannot provide both `handle` and `dynamic_size` arguments at the same time."
            )
        if handle is not None and clear_after_read is not None:
            raise ValueError(
                "Cannot provide both `handle` and `clear_after_read` arguments at the same time."
            )
        if clear_after_read is None:
            clear_after_read = True
        self._dynamic_size = bool(dynamic_size)
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._colocate_with_first_write_call = colocate_with_first_write_call
        # One list shared by every array over this handle: a write through any of
        # them refines the static element shape of all (TF's `_element_shape`).
        self._element_shape = [tensor_shape.as_shape(element_shape)]
        self._infer_shape = infer_shape
        self._size = size
        with ops.name_scope(name, "TensorArray", [handle, size, flow]) as scope:
            if handle is not None:
                if flow is None:
                    raise ValueError("flow must not be None if handle is not None.")
                self._handle = handle
                self._flow = flow
            else:
                size_t = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
                attrs = {
                    "dtype": self._dtype,
                    "element_shape": self._element_shape[0],
                    "identical_element_shapes": bool(infer_shape),
                    "dynamic_size": self._dynamic_size,
                    "clear_after_read": bool(clear_after_read),
                    "tensor_array_name": tensor_array_name or "",
                }
                op = _create("TensorArrayV3", [size_t], attrs, scope)
                self._handle, self._flow = op.outputs[0], op.outputs[1]

    @property
    def flow(self):
        """The scalar float tensor that orders operations on the array."""
        return self._flow

    @property
    def dtype(self):
        """The element dtype."""
        return self._dtype

    @property
    def handle(self):
        """The array's resource handle."""
        return self._handle

    @property
    def element_shape(self):
        """The static element shape (as known so far)."""
        return self._element_shape[0]

    @property
    def dynamic_size(self):
        """Whether writes past the end grow the array."""
        return self._dynamic_size

    def _check_element_shape(self, shape):
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    def identity(self):
        """The same array with its flow passed through `Identity`."""
        return build_ta_with_new_flow(self, array_ops.identity(self._flow))

    def grad(self, source, flow=None, name=None):
        """The gradient array of this one for gradient `source` (TF's `grad`)."""
        if flow is None:
            flow = self.flow
        with ops.name_scope(name, "TensorArrayGrad", [self._handle]):
            op = _create("TensorArrayGradV3", [self._handle, flow], {"source": source}, name)
            with ops.control_dependencies([op]):
                flow = array_ops.identity(flow, name="gradient_flow")
            g = TensorArray(
                dtype=self._dtype,
                handle=op.outputs[0],
                flow=flow,
                infer_shape=self._infer_shape,
                colocate_with_first_write_call=False,
            )
            g._element_shape = self._element_shape
            return g

    def mark_used(self):
        """Marks the array as used (TF's unused-array warning; nothing here)."""

    def read(self, index, name=None):
        """Element `index` (an int32 scalar)."""
        index = ops.convert_to_tensor(index, dtype=dtypes.int32)
        op = _create(
            "TensorArrayReadV3",
            [self._handle, index, self._flow],
            {"dtype": self._dtype},
            name or "TensorArrayReadV3",
        )
        value = op.outputs[0]
        value.set_shape(self._element_shape[0])
        return value

    def write(self, index, value, name=None):
        """A new array (same handle) whose element `index` is `value`.

        Raises:
            ValueError: If `value`'s static shape contradicts the element shape.
        """
        with ops.name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            self._check_element_shape(value.shape)
            index = ops.convert_to_tensor(index, dtype=dtypes.int32)
            op = _create(
                "TensorArrayWriteV3",
                [self._handle, index, value, self._flow],
                {},
                name or "TensorArrayWriteV3",
            )
            return build_ta_with_new_flow(self, op.outputs[0])

    def stack(self, name=None):
        """All elements stacked on a new dimension 0."""
        with ops.name_scope(name, "TensorArrayStack", [self._handle]):
            value = self.gather(math_ops.range(0, self.size()), name=name)
            if self.element_shape and not self._dynamic_size and self._size is not None:
                size = tensor_util.constant_value(ops.convert_to_tensor(self._size))
                value.set_shape([size, *self.element_shape.dims])
            return value

    def gather(self, indices, name=None):
        """The elements at `indices` (an int32 vector), stacked."""
        indices = ops.convert_to_tensor(indices, dtype=dtypes.int32)
        op = _create(
            "TensorArrayGatherV3",
            [self._handle, indices, self._flow],
            {"dtype": self._dtype, "element_shape": self._element_shape[0]},
            name or "TensorArrayGatherV3",
        )
        value = op.outputs[0]
        handle_shape = _handle_element_shape(self._handle)
        if handle_shape is not None:
            value.set_shape(tensor_shape.TensorShape([indices.shape[0]]).concatenate(handle_shape))
        if self.element_shape:
            value.set_shape([None, *self.element_shape.dims])
        return value

    def concat(self, name=None):
        """All elements concatenated on their dimension 0."""
        element_shape = self.element_shape
        except0 = element_shape[1:] if element_shape.ndims else tensor_shape.unknown_shape()
        op = _create(
            "TensorArrayConcatV3",
            [self._handle, self._flow],
            {"dtype": self._dtype, "element_shape_except0": except0},
            name or "TensorArrayConcatV3",
        )
        value = op.outputs[0]
        if self.element_shape:
            dim0 = None
            if self._infer_shape:
                size = tensor_util.constant_value(self.size())
                if size is not None and self.element_shape[0] is not None:
                    dim0 = int(size) * self.element_shape[0]
            value.set_shape([dim0, *self.element_shape.dims[1:]])
        return value

    def unstack(self, value, name=None):
        """A new array whose elements are `value` unstacked along dimension 0."""
        with ops.name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            num_elements = array_ops.shape(value)[0]
            return self.scatter(indices=math_ops.range(0, num_elements), value=value, name=name)

    def scatter(self, indices, value, name=None):
        """A new array whose elements at `indices` are the rows of `value`."""
        with ops.name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            self._check_element_shape(value.shape[1:])
            indices = ops.convert_to_tensor(indices, dtype=dtypes.int32)
            op = _create(
                "TensorArrayScatterV3",
                [self._handle, indices, value, self._flow],
                {},
                name or "TensorArrayScatterV3",
            )
            return build_ta_with_new_flow(self, op.outputs[0])

    def split(self, value, lengths, name=None):
        """A new array whose elements are `value` cut along dimension 0 by `lengths`."""
        with ops.name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = ops.convert_to_tensor(value, dtype=self._dtype, name="value")
            lengths_64 = array_ops.cast(lengths, dtypes.int64)
            clengths = tensor_util.constant_value(lengths_64)
            if value.shape.dims is not None and clengths is not None:
                if clengths.shape and clengths.max() == clengths.min():
                    self._check_element_shape(
                        tensor_shape.TensorShape([int(clengths[0])]).concatenate(value.shape[1:])
                    )
            op = _create(
                "TensorArraySplitV3",
                [self._handle, value, lengths_64, self._flow],
                {},
                name or "TensorArraySplitV3",
            )
            return build_ta_with_new_flow(self, op.outputs[0])

    def size(self, name=None):
        """The number of elements (an int32 scalar)."""
        if not self._dynamic_size and self._size is not None:
            return ops.convert_to_tensor(self._size, dtype=dtypes.int32)
        op = _create(
            "TensorArraySizeV3", [self._handle, self._flow], {}, name or "TensorArraySizeV3"
        )
        return op.outputs[0]

    def close(self, name=None):
        """An op that closes the array: its elements are let go, later uses fail."""
        return _create("TensorArrayCloseV3", [self._handle], {}, name or "TensorArrayCloseV3")


def _handle_element_shape(handle):
    """The element shape TF's shape functions know from the array's handle.

    That is the `element_shape` it was made with, when fully defined or when all
    elements share one shape (`infer_shape`); None otherwise.
    """
    op = handle.op
    while op.type == "TensorArrayGradV3":
        op = op.inputs[0].op
    if op.type != "TensorArrayV3":
        return None
    shape = tensor_shape.as_shape(op.get_attr("element_shape"))
    if shape.is_fully_defined() or op.get_attr("identical_element_shapes"):
        return shape
    return None


def build_ta_with_new_flow(old_ta, flow):
    """An array over `old_ta`'s handle with `flow` (TF's `build_ta_with_new_flow`)."""
    new_ta = TensorArray(
        dtype=old_ta.dtype,
        handle=old_ta.handle,
        flow=flow,
        infer_shape=old_ta._infer_shape,
        colocate_with_first_write_call=old_ta._colocate_with_first_write_call,
    )
    new_ta._dynamic_size = old_ta._dynamic_size
    new_ta._size = old_ta._size
    new_ta._element_shape = old_ta._element_shape
    return new_ta


__all__ = ["TensorArray"]

from . import tensor_array_grad  # noqa: E402,F401  (registers the gradients)
