"""`TensorInfo` protos: the tensors of a signature by name (TF's `saved_model.utils`)."""

from __future__ import annotations

from ..framework import dtypes, ops, sparse_tensor, tensor_shape
from ..protos import TensorInfo

__all__ = [
    "build_tensor_info",
    "build_tensor_info_from_op",
    "get_element_from_tensor_info",
    "get_tensor_from_tensor_info",
]


def build_tensor_info(tensor) -> TensorInfo:
    """The `TensorInfo` of a tensor: its name, dtype and static shape.

    Args:
        tensor: A `Tensor` (or variable), or a `SparseTensor`, whose three component
            tensors are named in the `coo_sparse` encoding.

    Returns:
        The `TensorInfo` protocol buffer.
    """
    info = TensorInfo(
        dtype=dtypes.as_dtype(tensor.dtype).as_datatype_enum,
        tensor_shape=tensor.get_shape().as_proto(),
    )
    if isinstance(tensor, sparse_tensor.SparseTensor):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    else:
        info.name = tensor.name
    return info


def build_tensor_info_from_op(op) -> TensorInfo:
    """A `TensorInfo` naming an op (dtype `DT_INVALID`, unknown shape).

    TF uses it for the init and train ops it stores in signatures.
    """
    return TensorInfo(
        dtype=0,  # DT_INVALID
        tensor_shape=tensor_shape.unknown_shape().as_proto(),
        name=op.name,
    )


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The `Tensor` or `SparseTensor` a `TensorInfo` describes.

    Args:
        tensor_info: A `TensorInfo` proto.
        graph: The graph to look the tensors up in (default: the default graph).
        import_scope: A name scope to prepend to the names in `tensor_info`.

    Returns:
        The `Tensor`, or a `SparseTensor` for the `coo_sparse` encoding.

    Raises:
        KeyError: A tensor is not in `graph`.
        ValueError: `tensor_info` has no encoding.
    """
    graph = graph or ops.get_default_graph()

    def _get_tensor(name):
        return graph.get_tensor_by_name(ops.prepend_name_scope(name, import_scope=import_scope))

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return _get_tensor(tensor_info.name)
    if encoding == "coo_sparse":
        return sparse_tensor.SparseTensor(
            _get_tensor(tensor_info.coo_sparse.indices_tensor_name),
            _get_tensor(tensor_info.coo_sparse.values_tensor_name),
            _get_tensor(tensor_info.coo_sparse.dense_shape_tensor_name),
        )
    raise ValueError(
        f"Invalid TensorInfo.encoding: {encoding}. Expected `"
        "coo_sparse`, `composite_tensor`, or `name` for a dense "
        "tensor."
    )


def get_element_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The op or tensor a `TensorInfo` names (as `build_tensor_info_from_op` wrote it).

    Raises:
        KeyError: Nothing of that name is in `graph`.
    """
    graph = graph or ops.get_default_graph()
    return graph.as_graph_element(
        ops.prepend_name_scope(tensor_info.name, import_scope=import_scope)
    )
