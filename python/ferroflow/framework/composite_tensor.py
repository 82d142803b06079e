"""`CompositeTensor`: a value made of several tensors (TF's `composite_tensor.py`).

`SparseTensor` and `IndexedSlices` are composite tensors: each has a `TypeSpec`
(`_type_spec`) that splits it into its component tensors and builds it back, which
is how `nest.flatten(..., expand_composites=True)` and the control-flow ops (`cond`,
`while_loop`, `switch`, `merge`) carry them as their components.
"""

from __future__ import annotations


class CompositeTensor:
    """A value made of component tensors, described by a `TypeSpec`."""

    __slots__ = ()

    @property
    def _type_spec(self):
        """The `TypeSpec` describing this value (its components' dtypes and shapes)."""
        raise NotImplementedError(f"{type(self).__name__}._type_spec()")

    def _shape_invariant_to_type_spec(self, shape):
        """The `TypeSpec` of this value under the `while_loop` shape invariant `shape`.

        Raises:
            NotImplementedError: For a type without a `TensorShape` invariant.
        """
        del shape
        raise NotImplementedError(
            f"{type(self).__name__}._shape_invariant_to_type_spec is not implemented."
        )

    def _consumers(self):
        """The ops consuming any of this value's component tensors."""
        seen = {}
        for t in self._type_spec._to_components(self):
            if t is None:
                continue
            for op in t.consumers():
                seen[op._id] = op
        return list(seen.values())
