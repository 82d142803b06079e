"""A small `nest` (TF's `tensorflow/python/util/nest.py`) for the RNN code.

Sequences are lists, tuples (namedtuples included, rebuilt field by field) and dicts
(flattened in sorted key order, as TF); anything else, a `TensorArray` included, is a
leaf. Only what `rnn_cell_impl`, `rnn` and `control_flow_ops` use is here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._compat import zip_strict


def is_nested(structure) -> bool:
    """Whether `structure` is a list, tuple or dict (TF's `nest.is_nested`)."""
    return isinstance(structure, (list, tuple, dict))


def _children(structure) -> list:
    if isinstance(structure, dict):
        return [structure[k] for k in sorted(structure)]
    return list(structure)


def _sequence_like(instance, args):
    """A sequence of `instance`'s type holding `args` (dict keys in sorted order)."""
    if isinstance(instance, dict):
        by_key = dict(zip_strict(sorted(instance), args))
        return type(instance)((k, by_key[k]) for k in instance)
    if hasattr(instance, "_fields"):
        return type(instance)(*args)
    return type(instance)(args)


def flatten(structure) -> list:
    """The leaves of `structure`, depth first (a leaf alone is `[leaf]`)."""
    if not is_nested(structure):
        return [structure]
    return [leaf for child in _children(structure) for leaf in flatten(child)]


def pack_sequence_as(structure, flat_sequence):
    """`flat_sequence` packed into the nesting of `structure`.

    Raises:
        ValueError: If the number of leaves differs.
    """
    flat_sequence = list(flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"Structure is a scalar but len(flat_sequence) == {len(flat_sequence)} > 1"
            )
        return flat_sequence[0]
    n = len(flatten(structure))
    if n != len(flat_sequence):
        raise ValueError(
            "Could not pack sequence. Structure had "
            f"{n} elements, but flat_sequence had {len(flat_sequence)} elements.  "
            f"Structure: {structure}, flat_sequence: {flat_sequence}."
        )
    return pack_unchecked(structure, flat_sequence)


def pack_unchecked(structure, flat_sequence):
    """`flat_sequence`'s leading leaves packed into the nesting of `structure`.

    For callers that know the counts agree (no check, unlike `pack_sequence_as`).
    """
    it = iter(flat_sequence)

    def pack(s):
        if not is_nested(s):
            return next(it)
        return _sequence_like(s, [pack(c) for c in _children(s)])

    return pack(structure)


def assert_same_structure(nest1, nest2, check_types=True) -> None:
    """TF's `nest.assert_same_structure`.

    Raises:
        ValueError: If the nestings or numbers of leaves differ.
        TypeError: If `check_types` and two sequences have different types.
    """

    def check(a, b):
        if is_nested(a) != is_nested(b):
            raise ValueError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: {nest1}\n\nSecond structure: {nest2}"
            )
        if not is_nested(a):
            return
        if check_types and type(a) is not type(b):
            raise TypeError(
                "The two structures don't have the same sequence type. Input structure has "
                f"type {type(a)}, while shallow structure has type {type(b)}."
            )
        if isinstance(a, dict) and sorted(a) != sorted(b):
            raise ValueError(
                "The two dictionaries don't have the same set of keys. First structure has "
                f"keys {list(a)}, while second structure has keys {list(b)}."
            )
        ca, cb = _children(a), _children(b)
        if len(ca) != len(cb):
            raise ValueError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: {nest1}\n\nSecond structure: {nest2}"
            )
        for x, y in zip_strict(ca, cb):
            check(x, y)

    check(nest1, nest2)


def map_structure(func: Callable[..., Any], *structures):
    """`func` applied leaf by leaf to `structures` (all of the same nesting)."""
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    flat = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip_strict(*flat)])


def _flatten_up_to(shallow, structure) -> list:
    if not is_nested(shallow):
        return [structure]
    if not is_nested(structure):
        raise TypeError(
            "If shallow structure is a sequence, input must also be a sequence. "
            f"Input has type: {type(structure)}."
        )
    shallow_children, children = _children(shallow), _children(structure)
    if len(shallow_children) != len(children):
        raise ValueError(
            "The two structures don't have the same sequence length. Input structure has "
            f"length {len(children)}, while shallow structure has length "
            f"{len(shallow_children)}."
        )
    return [
        leaf for s, c in zip_strict(shallow_children, children) for leaf in _flatten_up_to(s, c)
    ]


def map_structure_up_to(shallow_structure, func: Callable[..., Any], *inputs):
    """`func` applied to the parts of `inputs` at the leaves of `shallow_structure`.

    Raises:
        TypeError: If an input is a leaf where `shallow_structure` is a sequence.
        ValueError: If sequence lengths differ.
    """
    flat = [_flatten_up_to(shallow_structure, x) for x in inputs]
    results = [func(*leaves) for leaves in zip_strict(*flat)]
    return pack_sequence_as(shallow_structure, results)


def get_traverse_shallow_structure(traverse_fn: Callable[[Any], Any], structure):
    """The shallow structure (of bools) `traverse_fn` marks in `structure` (TF's).

    `traverse_fn(substructure)` returns True (traverse it), False (do not) or a
    depth-1 structure of bools saying which children to traverse.

    Raises:
        TypeError: If `traverse_fn` returns something else.
    """
    to_traverse = traverse_fn(structure)
    if not is_nested(structure):
        if not isinstance(to_traverse, bool):
            raise TypeError(
                f"traverse_fn returned structure: {to_traverse} for non-structure: {structure}"
            )
        return to_traverse
    level: list = []
    if isinstance(to_traverse, bool):
        if not to_traverse:
            return False
        level = [get_traverse_shallow_structure(traverse_fn, c) for c in _children(structure)]
    elif not is_nested(to_traverse):
        raise TypeError(
            f"traverse_fn returned a non-bool scalar: {to_traverse} for input: {structure}"
        )
    else:
        if len(_children(to_traverse)) != len(_children(structure)):
            raise ValueError(
                f"traverse_fn returned {to_traverse}, which does not match the length of "
                f"{structure}"
            )
        for t, child in zip_strict(_children(to_traverse), _children(structure)):
            if not isinstance(t, bool):
                raise TypeError(
                    f"traverse_fn didn't return a depth=1 structure of bools.  saw: {to_traverse} "
                    f" for structure: {structure}"
                )
            level.append(get_traverse_shallow_structure(traverse_fn, child) if t else False)
    return _sequence_like(structure, level)
