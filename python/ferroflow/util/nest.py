"""Nested structures: TF 1.15's `tensorflow/python/util/nest.py` (and its C++ core).

A structure nests *sequences*: lists, tuples (namedtuples included), dicts and other
`collections.abc.Mapping`s (their values in sorted key order, `OrderedDict`s too),
mapping views, `attrs` classes and other `collections.abc.Sequence`s (a `range`
included). Strings, sets, numpy arrays and everything else are leaves; a leaf alone
flattens to `[leaf]`.

With `expand_composites=True` a composite tensor (`SparseTensor`, `IndexedSlices`)
is a sequence of its component tensors (`indices, values, dense_shape`; `values,
indices[, dense_shape]`), packed back into one of the same type; a `TypeSpec` other
than `TensorSpec` is a sequence of its component specs. Two composites have the same
structure when some spec is compatible with both (`most_specific_compatible_type`),
so a `cond` may return sparse tensors of different dense shapes from its branches.
A `TensorArray` is a leaf, as in TF 1.15.

Error messages are TF's, word for word.
"""

from __future__ import annotations

import collections as _collections
import collections.abc as _abc
from typing import Any

from .._compat import zip_strict
from ..framework.composite_tensor import CompositeTensor as _CompositeTensor
from ..framework.tensor_spec import TensorSpec as _TensorSpec
from ..framework.type_spec import TypeSpec as _TypeSpec

__all__ = [
    "assert_same_structure",
    "assert_shallow_structure",
    "flatten",
    "flatten_dict_items",
    "flatten_up_to",
    "get_traverse_shallow_structure",
    "is_nested",
    "is_sequence",
    "is_sequence_or_composite",
    "map_structure",
    "map_structure_up_to",
    "map_structure_with_tuple_paths_up_to",
    "pack_sequence_as",
]

_SHALLOW_TREE_HAS_INVALID_KEYS = (
    "The shallow_tree's keys are not a subset of the input_tree's keys. The "
    "shallow_tree has the following keys that are not in the input_tree: {}."
)
_STRUCTURES_HAVE_MISMATCHING_TYPES = (
    "The two structures don't have the same sequence type. Input structure has "
    "type {input_type}, while shallow structure has type {shallow_type}."
)
_STRUCTURES_HAVE_MISMATCHING_LENGTHS = (
    "The two structures don't have the same sequence length. Input "
    "structure has length {input_length}, while shallow structure has length "
    "{shallow_length}."
)
_INPUT_TREE_SMALLER_THAN_SHALLOW_TREE = (
    "The input_tree has fewer elements than the shallow_tree. Input structure "
    "has length {input_size}, while shallow structure has length "
    "{shallow_size}."
)
_IF_SHALLOW_IS_SEQ_INPUT_MUST_BE_SEQ = (
    "If shallow structure is a sequence, input must also be a sequence. Input has type: {}."
)

_warned_set_is_not_sequence = False


# -- what is a sequence ------------------------------------------------------------------
def _is_mapping(o) -> bool:
    return isinstance(o, _abc.Mapping)


def _is_mapping_view(o) -> bool:
    return isinstance(o, _abc.MappingView)


def _is_attrs(o) -> bool:
    return hasattr(type(o), "__attrs_attrs__")


def _is_composite_tensor(o) -> bool:
    return isinstance(o, _CompositeTensor)


def _is_type_spec(o) -> bool:
    """A `TypeSpec` that is not a `TensorSpec` (TF's `IsTypeSpec`)."""
    return isinstance(o, _TypeSpec) and not isinstance(o, _TensorSpec)


def _is_namedtuple(instance, strict=False) -> bool:
    """Whether `instance` is a namedtuple: a tuple with `_fields`, all strings.

    With `strict`, only a direct subclass of `tuple` is.
    """
    if not isinstance(instance, tuple):
        return False
    if strict and type(instance).__base__ is not tuple:
        return False
    if not hasattr(instance, "_fields"):
        return False
    fields = instance._fields
    if not isinstance(fields, _abc.Sequence):
        return False
    return all(isinstance(f, (str, bytes)) for f in fields)


def _same_namedtuples(a, b) -> bool:
    """Namedtuples of the same fields and class name count as one type (TF's)."""
    return a._fields == b._fields and type(a).__name__ == type(b).__name__


def is_sequence(seq) -> bool:
    """Whether `seq` is a sequence for `nest`: a (non-string) sequence, mapping or attrs.

    A set is not (TF logs a warning, once).
    """
    global _warned_set_is_not_sequence
    if _is_mapping(seq) or _is_mapping_view(seq) or _is_attrs(seq):
        return True
    if isinstance(seq, set) and not _warned_set_is_not_sequence:
        from ..platform import tf_logging

        tf_logging.warning(
            "Sets are not currently considered sequences, but this may change in the "
            "future, so consider avoiding using them."
        )
        _warned_set_is_not_sequence = True
    return isinstance(seq, _abc.Sequence) and not isinstance(seq, (str, bytes))


def is_sequence_or_composite(seq) -> bool:
    """Whether `seq` is a sequence, a composite tensor or a (non-`TensorSpec`) `TypeSpec`."""
    return is_sequence(seq) or _is_composite_tensor(seq) or _is_type_spec(seq)


def is_nested(seq) -> bool:
    """Whether `seq` is a nested structure: a (non-string) sequence, a dict or mapping.

    Args:
        seq: Any value.

    Returns:
        True for a list, tuple, namedtuple, dict (or other mapping), mapping view,
        attrs object or other `collections.abc.Sequence` that is not a string.
    """
    return is_sequence(seq)


def _tp_name(cls) -> str:
    """`cls`'s C-level `tp_name`: `module.Name` for a builtin type outside `builtins`."""
    if cls.__flags__ & (1 << 9) or cls.__module__ == "builtins":  # a heap (Python) type
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


def _obj_str(o) -> str:
    """TF's `PyObjectToString`: `type=<class name> str=<str(o)>`."""
    return f"type={type(o).__name__} str={o}"


# -- iterating a sequence ---------------------------------------------------------------
def _values(nested, expand_composites=False) -> list:
    """The children of a sequence, in `nest`'s order (TF's C++ `GetValueIterator`)."""
    if expand_composites:
        if _is_composite_tensor(nested):
            return [nested._type_spec._to_components(nested)]
        if _is_type_spec(nested):
            return [nested._component_specs]
    if _is_mapping(nested):
        return [nested[k] for k in sorted(nested.keys())]
    if _is_attrs(nested):
        return [getattr(nested, a.name) for a in type(nested).__attrs_attrs__]
    return list(nested)


def _sorted(dict_):
    """`dict_`'s keys, sorted (TF's `_sorted`).

    Raises:
        TypeError: If the keys do not sort.
    """
    try:
        return sorted(dict_)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _get_attrs_items(obj):
    return [(a.name, getattr(obj, a.name)) for a in type(obj).__attrs_attrs__]


def _yield_sorted_items(iterable):
    """`(key, value)` pairs of a sequence in `nest`'s order (TF's)."""
    if isinstance(iterable, _abc.Mapping):
        for key in _sorted(iterable):
            yield key, iterable[key]
    elif _is_attrs(iterable):
        yield from _get_attrs_items(iterable)
    elif _is_namedtuple(iterable):
        for field in iterable._fields:
            yield field, getattr(iterable, field)
    elif _is_composite_tensor(iterable):
        yield type(iterable).__name__, iterable._type_spec._to_components(iterable)
    elif _is_type_spec(iterable):
        yield iterable.value_type.__name__, iterable._component_specs
    else:
        yield from enumerate(iterable)


def _yield_value(iterable):
    for _, v in _yield_sorted_items(iterable):
        yield v


def _sequence_like(instance, args):
    """`args` as a sequence of `instance`'s type (a dict's values in sorted key order)."""
    if _is_mapping(instance):
        result = dict(zip(_sorted(instance), args))
        instance_type = type(instance)
        if instance_type is _collections.defaultdict:
            d: Any = _collections.defaultdict(instance.default_factory)
            for key in instance:
                d[key] = result[key]
            return d
        return instance_type((key, result[key]) for key in instance)
    if _is_mapping_view(instance):
        return list(args)
    if _is_namedtuple(instance) or _is_attrs(instance):
        return type(instance)(*args)
    if _is_composite_tensor(instance):
        assert len(args) == 1
        return instance._type_spec._from_components(args[0])
    if _is_type_spec(instance):
        assert len(args) == 1
        return instance._from_components(args[0])
    if isinstance(instance, range):
        return _sequence_like(list(instance), args)
    return type(instance)(args)


# -- flatten / pack ---------------------------------------------------------------------
def flatten(structure, expand_composites=False) -> list:
    """The leaves of `structure`, depth first; a leaf alone gives `[structure]`.

    Dict values come in sorted key order (an `OrderedDict`'s too).

    Args:
        structure: A nested structure, or a leaf.
        expand_composites: Whether composite tensors (`SparseTensor`,
            `IndexedSlices`) flatten to their component tensors.

    Returns:
        A list.

    Raises:
        TypeError: If a dict has keys that do not sort.
    """
    is_seq = is_sequence_or_composite if expand_composites else is_sequence
    out: list = []

    def walk(x):
        if not is_seq(x):
            out.append(x)
            return
        for child in _values(x, expand_composites):
            walk(child)

    walk(structure)
    return out


def _packed_nest_with_indices(structure, flat, index, is_seq):
    packed = []
    for s in _yield_value(structure):
        if is_seq(s):
            index, child = _packed_nest_with_indices(s, flat, index, is_seq)
            packed.append(_sequence_like(s, child))
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """`flat_sequence` packed into the nesting of `structure` (the inverse of `flatten`).

    Args:
        structure: The nested structure to mimic (a leaf: `flat_sequence` has one item).
        flat_sequence: A flat sequence, as many items as `structure` has leaves.
        expand_composites: Whether composite tensors count as their components.

    Returns:
        `flat_sequence` nested as `structure`.

    Raises:
        TypeError: If `flat_sequence` is not a sequence.
        ValueError: If the numbers of items and leaves differ.
    """
    is_seq = is_sequence_or_composite if expand_composites else is_sequence
    if not is_seq(flat_sequence):
        raise TypeError("flat_sequence must be a sequence")
    if not is_seq(structure):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"Structure is a scalar but len(flat_sequence) == {len(flat_sequence)} > 1"
            )
        return flat_sequence[0]
    try:
        final_index, packed = _packed_nest_with_indices(structure, flat_sequence, 0, is_seq)
        if final_index < len(flat_sequence):
            raise IndexError
    except IndexError:
        flat_structure = flatten(structure, expand_composites)
        raise ValueError(
            f"Could not pack sequence. Structure had {len(flat_structure)} elements, but "
            f"flat_sequence had {len(flat_sequence)} elements.  Structure: {structure}, "
            f"flat_sequence: {flat_sequence}."
        ) from None
    return _sequence_like(structure, packed)


# -- comparing structures -----------------------------------------------------------------
def _keys_error(o1, o2) -> tuple[str, bool]:
    return (
        "The two dictionaries don't have the same set of keys. First structure has keys "
        f"{_obj_str(list(o1.keys()))}, while second structure has keys "
        f"{_obj_str(list(o2.keys()))}",
        False,
    )


def _same_structure_error(o1, o2, check_types, expand_composites):
    """Why `o1` and `o2` differ in structure, as `(message, is_type_error)`, or None.

    TF's C++ `AssertSameStructureHelper`.
    """
    is_seq = is_sequence_or_composite if expand_composites else is_sequence
    seq1, seq2 = is_seq(o1), is_seq(o2)
    if seq1 != seq2:
        seq_str = _obj_str(o1 if seq1 else o2)
        non_seq_str = _obj_str(o2 if seq1 else o1)
        return (
            f'Substructure "{seq_str}" is a sequence, while substructure "{non_seq_str}" is not',
            False,
        )
    if not seq1:
        return None
    if check_types:
        type1, type2 = type(o1), type(o2)
        if _is_namedtuple(o1, True) and _is_namedtuple(o2, True):
            same_types = _same_namedtuples(o1, o2)
        else:
            same_types = (
                type1 is type2
                or (isinstance(o1, list) and isinstance(o2, list))
                or (_is_mapping(o1) and _is_mapping(o2))
                or (
                    expand_composites
                    and (_is_composite_tensor(o1) or _is_composite_tensor(o2))
                    and (_is_type_spec(o1) or _is_type_spec(o2))
                )
            )
        if not same_types:
            return (
                "The two namedtuples don't have the same sequence type. First structure "
                f"{_obj_str(o1)} has type {_tp_name(type1)}, while second structure "
                f"{_obj_str(o2)} has type {_tp_name(type2)}",
                True,
            )
        if _is_mapping(o1):
            if len(o1) != len(o2) or any(k not in o2 for k in o1):
                return _keys_error(o1, o2)
    if expand_composites and (_is_composite_tensor(o1) or _is_composite_tensor(o2)):
        spec1 = o1._type_spec if _is_composite_tensor(o1) else o1
        spec2 = o2._type_spec if _is_composite_tensor(o2) else o2
        try:
            spec1.most_specific_compatible_type(spec2)
        except Exception:  # TF's C++ clears any error here
            return (
                f"Incompatible CompositeTensor TypeSpecs: {_obj_str(spec1)} vs. {_obj_str(spec2)}",
                False,
            )
    values1 = _values(o1, expand_composites)
    values2 = _values(o2, expand_composites)
    for v1, v2 in zip(values1, values2):
        error = _same_structure_error(v1, v2, check_types, expand_composites)
        if error is not None:
            return error
    if len(values1) != len(values2):
        return (
            "The two structures don't have the same number of elements. First structure: "
            f"{_obj_str(o1)}. Second structure: {_obj_str(o2)}",
            False,
        )
    return None


class _DotString:
    def __str__(self):
        return "."

    def __repr__(self):
        return "."


_DOT = _DotString()


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False) -> None:
    """Asserts that two structures nest in the same way.

    Namedtuples of the same name and fields count as the same type; so do two lists
    (a list subclass included) and two mappings.

    Args:
        nest1: A nested structure.
        nest2: A nested structure.
        check_types: Whether the sequence types (and dict keys) must match too.
        expand_composites: Whether composite tensors are sequences of their components
            (two are alike when a spec is compatible with both).

    Raises:
        ValueError: If the nestings or numbers of elements differ.
        TypeError: If `check_types` and two sequences differ in type.
    """
    error = _same_structure_error(nest1, nest2, check_types, expand_composites)
    if error is None:
        return
    message, is_type_error = error
    message = (
        "The two structures don't have the same nested structure.\n\n"
        f"First structure: {_obj_str(nest1)}\n\nSecond structure: {_obj_str(nest2)}\n\n"
        f"More specifically: {message}"
    )
    str1 = str(map_structure(lambda _: _DOT, nest1))
    str2 = str(map_structure(lambda _: _DOT, nest2))
    raise (TypeError if is_type_error else ValueError)(
        f"{message}\nEntire first structure:\n{str1}\nEntire second structure:\n{str2}"
    )


def map_structure(func, *structure, **kwargs):
    """`func` applied to the leaves of `structure`s, packed as the first one.

    Args:
        func: A callable taking one argument per structure.
        *structure: Structures of the same nesting.
        **kwargs: `check_types` (default True: sequence types must match) and
            `expand_composites` (default False).

    Returns:
        A structure like `structure[0]` holding `func(x[0], x[1], ...)`.

    Raises:
        TypeError: If `func` is not callable, or the sequence types differ.
        ValueError: If no structure is given, they nest differently, or an unknown
            keyword argument is given.
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(
            "Only valid keyword arguments are `check_types` and `expand_composites`, not: "
            f"`{'`, `'.join(kwargs.keys())}`"
        )
    for other in structure[1:]:
        assert_same_structure(
            structure[0], other, check_types=check_types, expand_composites=expand_composites
        )
    flat_structure = [flatten(s, expand_composites) for s in structure]
    entries = zip(*flat_structure)
    return pack_sequence_as(
        structure[0], [func(*x) for x in entries], expand_composites=expand_composites
    )


def flatten_dict_items(dictionary) -> dict:
    """A dict of the flattened keys to the flattened values of `dictionary` (TF's).

    Raises:
        TypeError: If `dictionary` is not a mapping.
        ValueError: If a key and its value nest differently, or keys repeat.
    """
    if not isinstance(dictionary, (dict, _abc.Mapping)):
        raise TypeError("input must be a dictionary")
    flat_dictionary = {}
    for i, v in dictionary.items():
        if not is_sequence(i):
            if i in flat_dictionary:
                raise ValueError(f"Could not flatten dictionary: key {i} is not unique.")
            flat_dictionary[i] = v
            continue
        flat_i, flat_v = flatten(i), flatten(v)
        if len(flat_i) != len(flat_v):
            raise ValueError(
                f"Could not flatten dictionary. Key had {len(flat_i)} elements, but value had "
                f"{len(flat_v)} elements. Key: {flat_i}, value: {flat_v}."
            )
        for new_i, new_v in zip_strict(flat_i, flat_v):
            if new_i in flat_dictionary:
                raise ValueError(f"Could not flatten dictionary: key {new_i} is not unique.")
            flat_dictionary[new_i] = new_v
    return flat_dictionary


# -- partial flattening ("up to" a shallow structure) ------------------------------------
def _yield_flat_up_to(shallow_tree, input_tree, is_seq, path=()):
    if not is_seq(shallow_tree):
        yield (path, input_tree)
        return
    input_tree = dict(_yield_sorted_items(input_tree))
    for shallow_key, shallow_subtree in _yield_sorted_items(shallow_tree):
        subpath = (*path, shallow_key)
        yield from _yield_flat_up_to(shallow_subtree, input_tree[shallow_key], is_seq, subpath)


def assert_shallow_structure(
    shallow_tree, input_tree, check_types=True, expand_composites=False, check_subtrees_length=True
) -> None:
    """Asserts that `input_tree` extends `shallow_tree` (its leaves may be structures).

    Raises:
        TypeError: If `shallow_tree` is a sequence where `input_tree` is not, or (with
            `check_types`) their sequence types differ.
        ValueError: If sequence lengths (with `check_subtrees_length`) or keys differ.
    """
    is_seq = is_sequence_or_composite if expand_composites else is_sequence
    if not is_seq(shallow_tree):
        return
    if not is_seq(input_tree):
        raise TypeError(_IF_SHALLOW_IS_SEQ_INPUT_MUST_BE_SEQ.format(type(input_tree)))
    if check_types and not isinstance(input_tree, type(shallow_tree)):
        shallow_is_namedtuple = _is_namedtuple(shallow_tree, False)
        input_is_namedtuple = _is_namedtuple(input_tree, False)
        if shallow_is_namedtuple and input_is_namedtuple:
            if not _same_namedtuples(shallow_tree, input_tree):
                raise TypeError(
                    _STRUCTURES_HAVE_MISMATCHING_TYPES.format(
                        input_type=type(input_tree), shallow_type=type(shallow_tree)
                    )
                )
        elif (_is_composite_tensor(shallow_tree) or _is_composite_tensor(input_tree)) and (
            _is_type_spec(shallow_tree) or _is_type_spec(input_tree)
        ):
            pass  # Compatibility is checked below.
        elif not (_is_mapping(shallow_tree) and _is_mapping(input_tree)):
            raise TypeError(
                _STRUCTURES_HAVE_MISMATCHING_TYPES.format(
                    input_type=type(input_tree), shallow_type=type(shallow_tree)
                )
            )
    if _is_composite_tensor(shallow_tree) or _is_composite_tensor(input_tree):
        if not (
            (_is_composite_tensor(input_tree) or _is_type_spec(input_tree))
            and (_is_composite_tensor(shallow_tree) or _is_type_spec(shallow_tree))
        ):
            raise TypeError(
                _STRUCTURES_HAVE_MISMATCHING_TYPES.format(
                    input_type=type(input_tree), shallow_type=type(shallow_tree)
                )
            )
        spec1 = shallow_tree if _is_type_spec(shallow_tree) else shallow_tree._type_spec
        spec2 = input_tree if _is_type_spec(input_tree) else input_tree._type_spec
        try:
            spec1.most_specific_compatible_type(spec2)
        except (TypeError, ValueError) as e:
            raise ValueError(
                f"Incompatible CompositeTensor TypeSpecs: {spec1} vs. {spec2} -- {e}"
            ) from None
    elif _is_type_spec(shallow_tree):
        if not _is_type_spec(input_tree):
            raise TypeError(
                "If shallow structure is a TypeSpec, input must also be a TypeSpec.  "
                f"Input has type: {type(input_tree)}."
            )
    else:
        if check_subtrees_length and len(input_tree) != len(shallow_tree):
            raise ValueError(
                _STRUCTURES_HAVE_MISMATCHING_LENGTHS.format(
                    input_length=len(input_tree), shallow_length=len(shallow_tree)
                )
            )
        if len(input_tree) < len(shallow_tree):
            raise ValueError(
                _INPUT_TREE_SMALLER_THAN_SHALLOW_TREE.format(
                    input_size=len(input_tree), shallow_size=len(shallow_tree)
                )
            )
    if isinstance(shallow_tree, _abc.Mapping):
        absent_keys = set(shallow_tree) - set(input_tree)
        if absent_keys:
            raise ValueError(_SHALLOW_TREE_HAS_INVALID_KEYS.format(sorted(absent_keys)))
    for shallow_branch, input_branch in zip(_yield_value(shallow_tree), _yield_value(input_tree)):
        assert_shallow_structure(
            shallow_branch,
            input_branch,
            check_types=check_types,
            expand_composites=expand_composites,
            check_subtrees_length=check_subtrees_length,
        )


def flatten_up_to(
    shallow_tree, input_tree, check_types=True, expand_composites=False, check_subtrees_length=True
) -> list:
    """`input_tree` flattened down to the leaves of `shallow_tree` (deeper parts kept).

    Raises:
        TypeError: If `shallow_tree` is a sequence where `input_tree` is not, or the
            sequence types differ.
        ValueError: If sequence lengths differ.
    """
    is_seq = is_sequence_or_composite if expand_composites else is_sequence
    assert_shallow_structure(
        shallow_tree,
        input_tree,
        check_types=check_types,
        expand_composites=expand_composites,
        check_subtrees_length=check_subtrees_length,
    )
    return [v for _, v in _yield_flat_up_to(shallow_tree, input_tree, is_seq)]


def map_structure_with_tuple_paths_up_to(shallow_tree, func, *inputs, **kwargs):
    """`func(path, *values)` over `inputs` flattened up to `shallow_tree` (TF's).

    `path` is the tuple of keys (indices, dict keys, field names) of a leaf of
    `shallow_tree`. Keyword arguments `check_types`, `expand_composites` and
    `check_subtrees_length` are `nest`'s; the others go to `func`.

    Raises:
        ValueError: If no input is given, or lengths differ.
        TypeError: If an input is not a sequence where `shallow_tree` is.
    """
    if not inputs:
        raise ValueError("Cannot map over no sequences")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    check_subtrees_length = kwargs.pop("check_subtrees_length", True)
    is_seq = is_sequence_or_composite if expand_composites else is_sequence
    for input_tree in inputs:
        assert_shallow_structure(
            shallow_tree,
            input_tree,
            check_types=check_types,
            expand_composites=expand_composites,
            check_subtrees_length=check_subtrees_length,
        )
    flat_value_lists = [
        flatten_up_to(
            shallow_tree,
            input_tree,
            check_types,
            expand_composites=expand_composites,
            check_subtrees_length=check_subtrees_length,
        )
        for input_tree in inputs
    ]
    flat_path_list = [path for path, _ in _yield_flat_up_to(shallow_tree, inputs[0], is_seq)]
    results = [func(*args, **kwargs) for args in zip(flat_path_list, *flat_value_lists)]
    return pack_sequence_as(
        structure=shallow_tree, flat_sequence=results, expand_composites=expand_composites
    )


def map_structure_up_to(shallow_tree, func, *inputs, **kwargs):
    """`func` applied to `inputs` flattened up to `shallow_tree`, packed as it.

    Args:
        shallow_tree: A structure whose leaves mark where `inputs` stop being walked.
        func: A callable taking one argument per input.
        *inputs: Structures extending `shallow_tree`.
        **kwargs: `check_types`, `expand_composites`, `check_subtrees_length`; the
            others go to `func`.

    Returns:
        A structure like `shallow_tree` of `func`'s results.

    Raises:
        TypeError: If an input is a leaf where `shallow_tree` is a sequence, or the
            sequence types differ.
        ValueError: If sequence lengths differ.
    """
    return map_structure_with_tuple_paths_up_to(
        shallow_tree, lambda _, *values: func(*values), *inputs, **kwargs
    )


def get_traverse_shallow_structure(traverse_fn, structure, expand_composites=False):
    """The shallow structure of bools `traverse_fn` marks in `structure` (TF's).

    `traverse_fn(substructure)` returns True (walk it), False (do not) or a depth-1
    structure of bools saying which children to walk.

    Raises:
        TypeError: If `traverse_fn` returns something else.
    """
    is_seq = is_sequence_or_composite if expand_composites else is_sequence
    to_traverse = traverse_fn(structure)
    if not is_seq(structure):
        if not isinstance(to_traverse, bool):
            raise TypeError(
                f"traverse_fn returned structure: {to_traverse} for non-structure: {structure}"
            )
        return to_traverse
    level_traverse = []
    if isinstance(to_traverse, bool):
        if not to_traverse:
            return False
        for branch in _yield_value(structure):
            level_traverse.append(
                get_traverse_shallow_structure(
                    traverse_fn, branch, expand_composites=expand_composites
                )
            )
    elif not is_seq(to_traverse):
        raise TypeError(
            f"traverse_fn returned a non-bool scalar: {to_traverse} for input: {structure}"
        )
    else:
        assert_shallow_structure(to_traverse, structure, expand_composites=expand_composites)
        for t, branch in zip(_yield_value(to_traverse), _yield_value(structure)):
            if not isinstance(t, bool):
                raise TypeError(
                    f"traverse_fn didn't return a depth=1 structure of bools.  saw: "
                    f"{to_traverse}  for structure: {structure}"
                )
            if t:
                level_traverse.append(get_traverse_shallow_structure(traverse_fn, branch))
            else:
                level_traverse.append(False)
    return _sequence_like(structure, level_traverse)
