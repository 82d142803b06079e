"""`tf.TensorArray`: a list of same-shaped tensors that a `while_loop` can carry.

TF-1.x keeps the elements in a session resource behind a handle and threads a
scalar `flow` tensor through the graph to order the reads and writes. ferroflow has
no such resource: a `TensorArray` is a value, its elements stacked in one dense
tensor (its `flow`), and every `write`/`unstack`/`scatter` returns a new array
over a new tensor. A `while_loop` carries that tensor as a loop variable of
unknown shape. Gradients therefore flow through ordinary ops (`SelectV2`,
`Reshape`, `Gather`). Writes cost a copy of the whole array; reading an element
never written gives zeros (TF fails), and writing one twice keeps the last value
(TF fails unless `clear_after_read`).
"""

from __future__ import annotations

from ..framework import dtypes, ops, tensor_shape
from . import array_ops, math_ops


class TensorArray:
    """A list of tensors of one dtype and shape, indexed from 0 (TF's `TensorArray`).

    Every method that changes it returns a new `TensorArray` (use that one, as in
    TF). Inside `tf.while_loop`, pass it as a loop variable.
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
        """An empty array of `size` elements (growing on writes with `dynamic_size`).

        Args:
            dtype: The element dtype.
            size: The number of elements (int or int32 scalar tensor); required unless
                `flow` is given.
            dynamic_size: Whether writes past the end grow the array.
            clear_after_read: Accepted for compatibility.
            tensor_array_name: Accepted for compatibility.
            handle: Not supported (ferroflow arrays have no resource handle).
            flow: The stacked elements (what `flow` of another array returned).
            infer_shape: Whether the first write fixes the element shape.
            element_shape: The element shape, if known.
            colocate_with_first_write_call: Accepted for compatibility.
            name: A name scope for the ops.

        Raises:
            ValueError: If neither `size` nor `flow` is given, or `handle` is.
        """
        del clear_after_read, tensor_array_name, colocate_with_first_write_call
        if handle is not None:
            raise ValueError("ferroflow's TensorArray has no resource handle; pass flow")
        if size is None and flow is None:
            raise ValueError("Size must be provided if handle is not provided")
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape = tensor_shape.as_shape(element_shape)
        with ops.name_scope(name, "TensorArray", [size] if isinstance(size, ops.Tensor) else []):
            if flow is None:
                self._size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
                if self._element_shape.is_fully_defined():
                    shape = array_ops.concat(
                        [array_ops.expand_dims(self._size, 0), self._element_shape.as_list()], 0
                    )
                    flow = array_ops.zeros(shape, dtype=self._dtype)
                else:
                    # Rows are laid out once the first write shows the element shape.
                    flow = array_ops.zeros([0], dtype=self._dtype)
            else:
                flow = ops.convert_to_tensor(flow, dtype=self._dtype)
                self._size = None if size is None else ops.convert_to_tensor(size, dtypes.int32)
        self._flow = flow

    def _with(self, flow, size=None, element_shape=None):
        new = object.__new__(TensorArray)
        new._dtype = self._dtype
        new._dynamic_size = self._dynamic_size
        new._infer_shape = self._infer_shape
        new._element_shape = self._element_shape if element_shape is None else element_shape
        new._size = self._size if size is None else size
        new._flow = flow
        return new

    @property
    def dtype(self):
        """The element dtype."""
        return self._dtype

    @property
    def flow(self):
        """The stacked elements: the tensor a `while_loop` carries."""
        return self._flow

    @property
    def handle(self):
        """The same as `flow` (ferroflow arrays have no resource handle)."""
        return self._flow

    @property
    def element_shape(self):
        """The static element shape (unknown until known)."""
        return self._element_shape

    @property
    def dynamic_size(self):
        """Whether writes past the end grow the array."""
        return self._dynamic_size

    def _merge_shape(self, value):
        shape = value.shape
        if self._infer_shape and self._element_shape.ndims is not None:
            if not shape.is_compatible_with(self._element_shape):
                raise ValueError(
                    f"Incompatible shape for value ({shape}), expected ({self._element_shape})"
                )
            return self._element_shape.merge_with(shape)
        return shape if self._infer_shape else self._element_shape

    def size(self, name=None):
        """The number of elements (an int32 scalar)."""
        with ops.name_scope(name, "TensorArraySize", [self._flow]):
            if self._size is not None and not self._dynamic_size:
                return array_ops.identity(self._size)
            # The rows laid out (the flow is `[0]` before the first write).
            return array_ops.shape(self._flow)[0]

    def write(self, index, value, name=None):
        """A new array whose element `index` is `value`.

        Raises:
            ValueError: If `value`'s shape contradicts the element shape.
        """
        with ops.name_scope(name, "TensorArrayWrite", [self._flow, index, value]):
            value = ops.convert_to_tensor(value, dtype=self._dtype, name="value")
            index = ops.convert_to_tensor(index, dtype=dtypes.int32, name="index")
            element_shape = self._merge_shape(value)
            row_shape = array_ops.shape(value)
            row_size = array_ops.size(value)
            # Rows already laid out: the flow's size over the element's (0 at first).
            have = math_ops.floordiv(array_ops.size(self._flow), math_ops.maximum(row_size, 1))
            want = math_ops.maximum(have, index + 1)
            if self._size is not None:
                want = math_ops.maximum(want, self._size)
            missing = math_ops.maximum(want * row_size - array_ops.size(self._flow), 0)
            padded = array_ops.concat(
                [
                    array_ops.reshape(self._flow, [-1]),
                    array_ops.zeros(array_ops.expand_dims(missing, 0), dtype=self._dtype),
                ],
                0,
            )
            full_shape = array_ops.concat([array_ops.expand_dims(want, 0), row_shape], 0)
            base = array_ops.reshape(padded, full_shape)
            ones = array_ops.ones_like(row_shape)
            mask_shape = array_ops.concat([array_ops.expand_dims(want, 0), ones], 0)
            mask = array_ops.reshape(math_ops.equal(math_ops.range(want), index), mask_shape)
            flow = array_ops.where(mask, array_ops.expand_dims(value, 0), base)
            new = self._with(flow, element_shape=element_shape)
            if self._dynamic_size:
                new._size = None  # the flow's rows
            return new

    def read(self, index, name=None):
        """Element `index`."""
        with ops.name_scope(name, "TensorArrayRead", [self._flow, index]):
            out = array_ops.gather(self._flow, index)
            if self._element_shape.ndims is not None:
                out.set_shape(self._element_shape)
            return out

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked."""
        with ops.name_scope(name, "TensorArrayGather", [self._flow, indices]):
            out = array_ops.gather(self._flow, indices)
            if self._element_shape.ndims is not None:
                out.set_shape(tensor_shape.TensorShape([None]).concatenate(self._element_shape))
            return out

    def stack(self, name=None):
        """All elements stacked on a new dimension 0."""
        with ops.name_scope(name, "TensorArrayStack", [self._flow]):
            out = array_ops.identity(self._flow)
            if (
                self._element_shape.is_fully_defined()
                and self._size is not None
                and not self._dynamic_size
            ):
                shape = array_ops.concat(
                    [array_ops.expand_dims(self._size, 0), self._element_shape.as_list()], 0
                )
                out = array_ops.reshape(out, shape)
            if self._element_shape.ndims is not None:
                n = tensor_shape.TensorShape([None])
                if self._size is not None and not self._dynamic_size:
                    n = tensor_shape.TensorShape([_constant_value(self._size)])
                out.set_shape(n.concatenate(self._element_shape))
            return out

    def concat(self, name=None):
        """All elements concatenated on their dimension 0."""
        with ops.name_scope(name, "TensorArrayConcat", [self._flow]):
            stacked = self.stack()
            shape = array_ops.shape(stacked)
            merged = array_ops.concat([[-1], shape[2:]], 0)
            return array_ops.reshape(stacked, merged)

    def unstack(self, value, name=None):
        """A new array whose elements are `value` unstacked on dimension 0."""
        with ops.name_scope(name, "TensorArrayUnstack", [value]):
            value = ops.convert_to_tensor(value, dtype=self._dtype, name="value")
            element_shape = self._element_shape
            if value.shape.ndims is not None and value.shape.ndims >= 1:
                element_shape = (
                    element_shape.merge_with(value.shape[1:])
                    if (element_shape.ndims is not None)
                    else value.shape[1:]
                )
            size = array_ops.shape(value)[0]
            return self._with(value, size=size, element_shape=element_shape)

    def scatter(self, indices, value, name=None):
        """A new array whose elements at `indices` are the rows of `value`."""
        with ops.name_scope(name, "TensorArrayScatter", [self._flow, indices, value]):
            value = ops.convert_to_tensor(value, dtype=self._dtype, name="value")
            indices = ops.convert_to_tensor(indices, dtype=dtypes.int32, name="indices")
            n = array_ops.shape(indices)[0]
            out = self
            # One write per row, unrolled when the count is static.
            count = indices.shape.dims[0].value if indices.shape.ndims == 1 else None
            if count is None:
                raise ValueError("scatter needs indices of static length in ferroflow")
            del n
            for k in range(count):
                out = out.write(indices[k], value[k])
            return out

    def identity(self):
        """The same array, its flow passed through `Identity`."""
        return self._with(array_ops.identity(self._flow))

    def close(self, name=None):
        """A no-op (ferroflow arrays hold no resource)."""
        from .control_flow_ops import no_op

        return no_op(name=name or "TensorArrayClose")


def _constant_value(t):
    """The value of an int scalar tensor when it is a constant, else None."""
    if t is None:
        return None
    op = t.op
    if op.type == "Const":
        try:
            return int(op.get_attr("value"))
        except (TypeError, ValueError):
            return None
    return None


__all__ = ["TensorArray"]
