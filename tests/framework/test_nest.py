"""`tf.nest` (`ferroflow.util.nest`) against TensorFlow's `nest`, structure by structure.

Flattening, packing, mapping and structure checks (with TF's messages), the `up_to`
functions, and `expand_composites=True` over `SparseTensor` and `IndexedSlices`. Where
TF 2.21 changed TF 1.15's behaviour (the message of a failed `pack_sequence_as`), the
1.15 behaviour is asserted directly.
"""

import collections

import pytest

import ferroflow as ff
from conftest import plain_value, run_ff, run_tf
from ferroflow.util import nest

N = collections.namedtuple("N", "a b")
SameName = collections.namedtuple("N", "a b")  # another class, same name and fields
Other = collections.namedtuple("Other", "a b")


class SubList(list):
    pass


STRUCTURES = {
    "scalar": 1,
    "none": None,
    "string": "ab",
    "bytes": b"x",
    "nested_list": [1, [2, (3, 4)]],
    "singleton_tuple": (1,),
    "dict_sorted_by_key": {"b": 1, "a": [2, 3]},
    "ordered_dict_sorted_too": collections.OrderedDict([("b", 1), ("a", 2)]),
    "namedtuple": N(1, [2, 3]),
    "range": range(3),
    "set_is_a_leaf": {1, 2},
    "nested_dicts": {"x": {"y": (1, 2)}, "w": [None]},
    "empties": [[], (), {}],
    "list_subclass": SubList([1, 2]),
    "defaultdict": collections.defaultdict(int, {"z": 1, "a": 2}),
    "dict_values_view": {"a": 1, "b": 2}.values(),
    "dict_items_view": {"b": 1, "a": 2}.items(),
    "bytearray_is_a_sequence": bytearray(b"ab"),
}


@pytest.fixture(scope="module")
def tf_nest():
    pytest.importorskip("tensorflow")
    from tensorflow.python.util import nest as tf_nest

    return tf_nest


@pytest.mark.parametrize("key", sorted(STRUCTURES))
def test_flatten_pack_and_is_nested_match_tf(tf_nest, key):
    s = STRUCTURES[key]
    flat = nest.flatten(s)
    assert flat == tf_nest.flatten(s)
    packed, want = nest.pack_sequence_as(s, flat), tf_nest.pack_sequence_as(s, flat)
    assert type(packed) is type(want)
    assert repr(packed) == repr(want)
    assert nest.is_nested(s) == tf_nest.is_nested(s)

    def doubled(n):
        try:
            return repr(n.map_structure(lambda x: (x, x), s))
        except TypeError as e:  # a bytearray cannot hold tuples
            return str(e)

    assert doubled(nest) == doubled(tf_nest)


def test_public_tf_nest_is_tf_1_15s():
    assert sorted(ff.nest.__all__) == [
        "assert_same_structure",
        "flatten",
        "is_nested",
        "map_structure",
        "pack_sequence_as",
    ]
    assert ff.nest.flatten({"b": [1, 2], "a": 3}) == [3, 1, 2]
    assert ff.compat.v1.nest is ff.nest
    assert "nest" in ff.__all__


PAIRS = {
    "list_and_list_subclass": ([1, 2], SubList([3, 4])),
    "namedtuples_same_name_fields": (N(1, 2), SameName(3, 4)),
    "namedtuples_other_names": (N(1, 2), Other(1, 2)),
    "dict_and_ordered_dict": ({"a": 1}, collections.OrderedDict(a=2)),
    "sequence_and_leaf": ([1, [2]], [1, 2]),
    "tuple_and_list": ((1, 2), [1, 2]),
    "dict_keys": ({"a": 1, "b": 2}, {"a": 1, "c": 2}),
    "lengths": ([1], [1, 2]),
    "inner_lengths": ([[1, 2], 3], [[1], 3]),
    "range_and_list": (range(2), [1, 2]),
    "leaves": (None, 1),
    "string_is_a_leaf": ("ab", [1]),
    "namedtuple_and_tuple": (N(1, 2), (1, 2)),
}


def _outcome(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except (TypeError, ValueError) as e:
        return type(e).__name__, str(e)
    return "ok"


@pytest.mark.parametrize("check_types", [True, False])
@pytest.mark.parametrize("key", sorted(PAIRS))
def test_assert_same_structure_matches_tf(tf_nest, key, check_types):
    a, b = PAIRS[key]
    got = _outcome(nest.assert_same_structure, a, b, check_types=check_types)
    assert got == _outcome(tf_nest.assert_same_structure, a, b, check_types=check_types)
    got = _outcome(nest.map_structure, lambda x, y: x, a, b, check_types=check_types)
    assert got == _outcome(tf_nest.map_structure, lambda x, y: x, a, b, check_types=check_types)


@pytest.mark.parametrize(
    "call",
    [
        lambda n: n.map_structure(1, [1]),
        lambda n: n.map_structure(lambda x: x),
        lambda n: n.map_structure(lambda x: x, [1], foo=1),
        lambda n: n.flatten({1: 1, "a": 2}),
        lambda n: n.pack_sequence_as(1, [1, 2]),
    ],
    ids=["not_callable", "no_structure", "bad_kwarg", "unsortable_keys", "scalar_structure"],
)
def test_errors_match_tf(tf_nest, call):
    got = _outcome(call, nest)
    if "scalar" in str(got) and "target structure" in str(_outcome(call, tf_nest)):
        # TF 2.21 reworded it; TF 1.15's message.
        assert got == ("ValueError", "Structure is a scalar but len(flat_sequence) == 2 > 1")
        return
    assert got == _outcome(call, tf_nest)


def test_pack_sequence_as_errors_are_tf_1_15s():
    # TF 2.21 says "atoms"/"items" and rejects a non-sequence differently.
    assert _outcome(nest.pack_sequence_as, [1, 2], [1]) == (
        "ValueError",
        "Could not pack sequence. Structure had 2 elements, but flat_sequence had 1 elements.  "
        "Structure: [1, 2], flat_sequence: [1].",
    )
    assert _outcome(nest.pack_sequence_as, [1], 1) == (
        "TypeError",
        "flat_sequence must be a sequence",
    )


def test_up_to_functions_match_tf(tf_nest):
    shallow = [[True, True], [False, True]]
    deep = [[[2, 2], [3, 3]], [[4, 9], [5, 5]]]
    assert nest.flatten_up_to(shallow, deep) == tf_nest.flatten_up_to(shallow, deep)
    names = ["evens", ["odds", "primes"]]
    data = [[2, 4, 6, 8], [[1, 3, 5, 7, 9], [3, 5, 7]]]

    def fn(name, sec):
        return f"first_{len(sec)}_{name}"

    assert nest.map_structure_up_to(names, fn, names, data) == tf_nest.map_structure_up_to(
        names, fn, names, data
    )
    ab = collections.namedtuple("ab", "a b")
    op = collections.namedtuple("op", "add mul")
    val, opv = ab(2, 3), ab(op(1, 2), op(2, 3))
    assert nest.map_structure_up_to(
        val, lambda v, o: (v + o.add) * o.mul, val, opv
    ) == tf_nest.map_structure_up_to(val, lambda v, o: (v + o.add) * o.mul, val, opv)
    for shallow, deep in [([0, 1], 0), ([0, 1], [0, 1, 2]), ((1, 2), [1, 2]), ({"a": 1}, {"b": 1})]:
        assert _outcome(nest.flatten_up_to, shallow, deep) == _outcome(
            tf_nest.flatten_up_to, shallow, deep
        )
    assert nest.flatten_up_to(["a", "b"], ["c", ["d", "e"], "f"], check_subtrees_length=False) == [
        "c",
        ["d", "e"],
    ]
    assert nest.flatten_dict_items({(4, 5, (6, 8)): ("a", "b", ("c", "d"))}) == (
        tf_nest.flatten_dict_items({(4, 5, (6, 8)): ("a", "b", ("c", "d"))})
    )


def _composites(lib):
    st = lib.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    iv = lib.IndexedSlices(lib.constant([[1.0, 2.0]]), lib.constant([0]), lib.constant([4, 2]))
    iv_no_shape = lib.IndexedSlices(lib.constant([[3.0]]), lib.constant([1]))
    return [st, {"iv": iv, "x": lib.constant(1.0)}, (iv_no_shape,)]


def _names(structure):
    return [getattr(t, "name", t) for t in structure]


def test_expand_composites_matches_tf(tf1):
    from tensorflow.python.util import nest as tf_nest

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        s_tf = _composites(tf1)
        flat_tf = tf_nest.flatten(s_tf, expand_composites=True)
        packed_tf = tf_nest.pack_sequence_as(s_tf, flat_tf, expand_composites=True)
    with g_ff.as_default():
        s_ff = _composites(ff)
        flat_ff = nest.flatten(s_ff, expand_composites=True)
        packed_ff = nest.pack_sequence_as(s_ff, flat_ff, expand_composites=True)
        # Without expanding, a composite tensor is a leaf.
        assert len(nest.flatten(s_ff)) == 4
        assert nest.is_nested(s_ff[0]) is False
    assert _names(flat_ff) == _names(flat_tf)
    assert [type(x).__name__ for x in nest.flatten(packed_ff)] == [
        type(x).__name__.replace("Symbolic", "") for x in tf_nest.flatten(packed_tf)
    ]
    st = packed_ff[0]
    assert isinstance(st, ff.SparseTensor) and st is not s_ff[0]
    assert _names([st.indices, st.values, st.dense_shape]) == _names(flat_ff[:3])
    assert packed_ff[2][0].dense_shape is None


def test_composites_compare_by_spec(tf1):
    from tensorflow.python.util import nest as tf_nest

    def build(lib):
        a = lib.SparseTensor([[0, 0]], [1.0], [3, 4])
        b = lib.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [5, 4])
        c = lib.SparseTensor([[0, 0]], [1], [3, 4])
        return [(a, b), (a, c), (a, lib.constant(1.0)), ([a], [b])]

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        pairs_tf = build(tf1)
        want = [
            _outcome(tf_nest.assert_same_structure, x, y, expand_composites=True)[0]
            for x, y in pairs_tf
        ]
    with g_ff.as_default():
        pairs_ff = build(ff)
        got = [
            _outcome(nest.assert_same_structure, x, y, expand_composites=True)[0]
            for x, y in pairs_ff
        ]
        # Without expanding, composites are leaves: any two match.
        assert all(
            _outcome(nest.assert_same_structure, x, y) == "ok" for x, y in pairs_ff if x is not y
        )
        msg = _outcome(nest.assert_same_structure, *pairs_ff[1], expand_composites=True)[1]
        assert "Incompatible CompositeTensor TypeSpecs: type=SparseTensorSpec" in msg
    assert got == want == ["o", "ValueError", "ValueError", "o"]


def test_composites_of_different_types_are_a_type_error():
    # TF 1.15's check: two composites of different classes differ in sequence type (a
    # TypeError; TF 2.21 reports a ValueError).
    with ff.Graph().as_default():
        a = ff.SparseTensor([[0, 0]], [1.0], [3, 4])
        d = ff.IndexedSlices(ff.constant([1.0]), ff.constant([0]))
        kind, msg = _outcome(nest.assert_same_structure, a, d, expand_composites=True)
        assert kind == "TypeError"
        assert "has type SparseTensor, while second structure" in msg
        assert _outcome(nest.assert_same_structure, a, d, True, True) == (kind, msg)
        assert _outcome(nest.assert_same_structure, a, d, False, True)[0] == "ValueError"


def test_map_structure_with_expand_composites(tf1):
    def build(lib, n):
        st = lib.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        doubled = n.map_structure(
            lambda t: t * 2 if t.dtype == lib.float32 else t, [st], expand_composites=True
        )
        return doubled[0]

    from tensorflow.python.util import nest as tf_nest

    assert plain_value(run_ff(lambda lib: build(lib, nest))) == plain_value(
        run_tf(tf1, lambda lib: build(lib, tf_nest))
    )
