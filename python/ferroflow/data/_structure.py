"""Element structures of `tf.data` (TF's `data/util/nest.py` and `structure.py`).

An element is a nested structure of tensors: tuples (namedtuples included) and dicts
nest; a list is not a structure but a value, converted to one tensor, as in TF's
`tf.data`. Each leaf is described by a `_Spec` (dtype and static shape); the
Rust dataset ops see the flattened leaves.
"""

from __future__ import annotations

from typing import Any

from .._compat import zip_strict
from ..framework import dtypes, ops, tensor_shape
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue


def is_nested(structure) -> bool:
    """Whether `structure` is a tuple or dict (lists are values in `tf.data`)."""
    return isinstance(structure, (tuple, dict))


def _children(structure) -> list:
    if isinstance(structure, dict):
        return [structure[k] for k in sorted(structure)]
    return list(structure)


def _rebuild(instance, args):
    if isinstance(instance, dict):
        by_key = dict(zip_strict(sorted(instance), args))
        return type(instance)((k, by_key[k]) for k in instance)
    if hasattr(instance, "_fields"):
        return type(instance)(*args)
    return tuple(args)


def flatten(structure) -> list:
    """The leaves of `structure`, depth first, dict keys sorted."""
    if not is_nested(structure):
        return [structure]
    return [leaf for child in _children(structure) for leaf in flatten(child)]


def pack_as(structure, flat) -> Any:
    """`flat`'s leaves in the nesting of `structure`.

    Raises:
        ValueError: If the numbers of leaves differ.
    """
    flat = list(flat)
    if len(flat) != len(flatten(structure)):
        raise ValueError(
            f"Could not pack sequence. Structure had {len(flatten(structure))} elements, but "
            f"flat_sequence had {len(flat)} elements."
        )
    it = iter(flat)

    def pack(s):
        if not is_nested(s):
            return next(it)
        return _rebuild(s, [pack(c) for c in _children(s)])

    return pack(structure)


def map_structure(func, *structures):
    """`func` applied leaf by leaf to structures of the same nesting."""
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    flats = [flatten(s) for s in structures]
    return pack_as(structures[0], [func(*leaves) for leaves in zip_strict(*flats)])


def assert_same_structure(a, b) -> None:
    """TF's `nest.assert_same_structure` for `tf.data` structures.

    Raises:
        ValueError: If the nestings differ.
    """

    def same(x, y) -> bool:
        if is_nested(x) != is_nested(y):
            return False
        if not is_nested(x):
            return True
        if isinstance(x, dict) != isinstance(y, dict):
            return False
        if isinstance(x, dict) and sorted(x) != sorted(y):
            return False
        cx, cy = _children(x), _children(y)
        return len(cx) == len(cy) and all(same(p, q) for p, q in zip_strict(cx, cy))

    if not same(a, b):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: type={type(a).__name__} str={a}\n\n"
            f"Second structure: type={type(b).__name__} str={b}"
        )


class _Spec:
    """What `tf.data` knows statically about one component: dtype and shape."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype = dtypes.as_dtype(dtype).base_dtype
        self.shape = tensor_shape.as_shape(shape)

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r})"


class _SparseSpec(_Spec):
    """A `SparseTensor` component: three flat components (indices, values, shape)."""

    __slots__ = ()

    def __repr__(self):
        return f"SparseTensorSpec(shape={self.shape}, dtype={self.dtype!r})"

    def components(self) -> list[_Spec]:
        """The specs of its indices, values and dense shape."""
        rank = self.shape.ndims
        return [
            _Spec(dtypes.int64, [None, rank]),
            _Spec(self.dtype, [None]),
            _Spec(dtypes.int64, [rank]),
        ]

    def batched(self, dim):
        """The spec of a batch of these."""
        return _SparseSpec(self.dtype, tensor_shape.TensorShape([dim]).concatenate(self.shape))


class _WindowSpec(_Spec):
    """A component of a `window` dataset's element: a dataset of one component.

    It travels as one tensor (the window's elements stacked); a function receives
    it as a dataset of its slices.
    """

    __slots__ = ()

    def __repr__(self):
        return f"DatasetSpec(TensorSpec(shape={self.shape}, dtype={self.dtype!r}))"

    def components(self) -> list[_Spec]:
        """The spec of the stacked window."""
        return [_Spec(self.dtype, tensor_shape.TensorShape([None]).concatenate(self.shape))]


def has_windows(structure) -> bool:
    """Whether a structure of specs has `window` components."""
    return any(isinstance(s, _WindowSpec) for s in flatten(structure))


def normalize_element(element):
    """`element` with every leaf a tensor or `SparseTensor` (lists become tensors)."""
    if isinstance(element, list):
        return ops.convert_to_tensor(element)
    if is_nested(element):
        return _rebuild(element, [normalize_element(c) for c in _children(element)])
    if isinstance(element, (ops.Tensor, SparseTensor)):
        return element
    if isinstance(element, SparseTensorValue):
        return SparseTensor.from_value(element)
    return ops.convert_to_tensor(element)


def spec_of(element):
    """The specs of a structure of tensors and sparse tensors."""
    return map_structure(
        lambda t: (
            _SparseSpec(t.dtype, t.get_shape())
            if isinstance(t, SparseTensor)
            else _Spec(t.dtype, t.shape)
        ),
        element,
    )


def component_specs(structure) -> list:
    """The flat components' specs: three for each sparse tensor."""
    out: list = []
    for s in flatten(structure):
        out.extend(s.components() if isinstance(s, (_SparseSpec, _WindowSpec)) else [s])
    return out


def component_tensors(element) -> list:
    """The flat component tensors of an element: three for each sparse tensor."""
    out: list = []
    for t in flatten(element):
        out.extend([t.indices, t.values, t.dense_shape] if isinstance(t, SparseTensor) else [t])
    return out


def pack_components(structure, tensors, window=None):
    """The element of `structure` made of its flat component `tensors`.

    `window(tensor)` makes a `window` component's dataset from its stacked tensor.
    """
    it = iter(tensors)
    leaves = []
    for s in flatten(structure):
        if isinstance(s, _SparseSpec):
            st = SparseTensor(next(it), next(it), next(it))
            leaves.append(st)
        elif isinstance(s, _WindowSpec) and window is not None:
            leaves.append(window(next(it)))
        else:
            leaves.append(next(it))
    return pack_as(structure, leaves)


def sparse_positions(structure) -> list[int]:
    """The flat positions of the sparse tensors' first components (the `_sparse` attr)."""
    out, at = [], 0
    for s in flatten(structure):
        if isinstance(s, _SparseSpec):
            out.append(at)
            at += 3
        else:
            at += 1
    return out


def types_of(structure):
    """The dtypes of a structure of specs (`output_types`)."""
    return map_structure(lambda s: s.dtype, structure)


def shapes_of(structure):
    """The static shapes of a structure of specs (`output_shapes`)."""
    return map_structure(lambda s: s.shape, structure)


def classes_of(structure):
    """The component classes of a structure of specs (`output_classes`)."""
    return map_structure(
        lambda s: SparseTensor if isinstance(s, _SparseSpec) else ops.Tensor, structure
    )


def flatten_up_to(shallow, structure) -> list:
    """The parts of `structure` at the leaves of `shallow` (a shape per component).

    Raises:
        ValueError: If `structure` does not nest as `shallow` down to its leaves.
    """
    if not is_nested(shallow):
        return [structure]
    if not isinstance(structure, (tuple, dict, list)) or len(structure) != len(shallow):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: type={type(shallow).__name__} str={shallow}\n\n"
            f"Second structure: type={type(structure).__name__} str={structure}"
        )
    children = (
        [structure[k] for k in sorted(structure)]
        if isinstance(structure, dict)
        else list(structure)
    )
    return [
        leaf for s, c in zip_strict(_children(shallow), children) for leaf in flatten_up_to(s, c)
    ]


def from_types_and_shapes(output_types, output_shapes=None):
    """Specs from `output_types` and (optionally) `output_shapes` nested as the types."""
    flat_types = flatten(output_types)
    if output_shapes is None:
        flat_shapes = [tensor_shape.TensorShape(None)] * len(flat_types)
    else:
        flat_shapes = flatten_up_to(output_types, output_shapes)
    return pack_as(
        output_types,
        [_Spec(t, s) for t, s in zip_strict(flat_types, flat_shapes)],
    )


def flat_attrs(structure) -> dict:
    """`output_types` and `output_shapes` attrs of the flat components."""
    flat = component_specs(structure)
    return {
        "output_types": [s.dtype for s in flat],
        "output_shapes": [s.shape for s in flat],
    }


class Structured:
    """The element-structure properties shared by datasets and iterators (`_structure`)."""

    _structure: Any

    @property
    def output_types(self):
        """The dtypes of an element's components, nested as the element."""
        return types_of(self._structure)

    @property
    def output_shapes(self):
        """The static shapes of an element's components, nested as the element."""
        return shapes_of(self._structure)

    @property
    def output_classes(self):
        """The classes (`tf.Tensor`) of an element's components, nested as the element."""
        return classes_of(self._structure)

    @property
    def element_spec(self):
        """The specs (dtype and shape) of an element's components."""
        return self._structure
