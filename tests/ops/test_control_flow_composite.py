"""Composite values through control flow, and `tf.switch_case`, compared with TensorFlow.

`SparseTensor` and `IndexedSlices` through `cond` (strict or not), `while_loop` (loop
variables, `shape_invariants`, `maximum_iterations`), `tuple`, `group`, `switch` and
`merge`; a `TensorArray` through `cond`; `switch_case` (lists, dicts, `default`, out of
range indices, nesting, errors). Values, dtypes, static shapes and gradients are TF's
(control flow v1). Where TF 2.21 differs from TF 1.15 (the dense shape of a sparse
tensor out of a `cond`), TF 1.15's behaviour is asserted.
"""

import collections
import re

import pytest

import ferroflow as ff
from conftest import plain_value, run_ff, run_tf

Pair = collections.namedtuple("Pair", "sparse dense")


@pytest.fixture(scope="module")
def tf(tf1):
    return tf1


def both(tf, build, feeds=None):
    return plain_value(run_tf(tf, build, feeds)), plain_value(run_ff(build, feeds))


def _feeds(values):
    def make(g):
        return {g.get_tensor_by_name(k): v for k, v in values.items()}

    return make


def _static(x):
    """A structure's kinds and static shapes, component by component."""
    if isinstance(x, dict):
        return {k: _static(v) for k, v in sorted(x.items())}
    if isinstance(x, list | tuple):
        return type(x).__name__, [_static(v) for v in x]
    if hasattr(x, "indices"):
        parts = [x.values, x.indices] + ([] if x.dense_shape is None else [x.dense_shape])
        return type(x).__name__, [(t.dtype.name, t.shape.as_list()) for t in parts]
    if hasattr(x, "flow"):
        return "TensorArray", x.dtype.name
    return x.dtype.name, x.shape.as_list()


def both_static(tf, build):
    out = []
    for lib in (tf, ff):
        with lib.Graph().as_default():
            out.append(_static(build(lib)))
    return out


def _sparse_pair(lib):
    a = lib.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    b = lib.SparseTensor([[0, 1], [2, 1], [2, 3]], [3.0, 4.0, 5.0], [3, 4])
    return a, b


# -- cond ------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [True, False])
@pytest.mark.parametrize("strict", [False, True])
def test_cond_sparse_values_match_tf(tf, p, strict):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        a, b = _sparse_pair(lib)
        x = lib.constant(2.0)
        inner = lib.SparseTensor(b.indices, b.values * x, b.dense_shape)
        return lib.cond(pred, lambda: [a], lambda: [inner], strict=strict)

    want, got = both(tf, build, _feeds({"p:0": p}))
    assert got == want
    assert both_static(tf, build)[0] == both_static(tf, build)[1]


def test_cond_sparse_dense_shape_is_tf_1_15s(tf):
    # TF 1.15 rebuilds the merged sparse tensor from its components: its dense shape is
    # only what `dense_shape`'s value says (unknown after a Merge) -- TF 2.21 keeps the
    # branches' [3, 4].
    with ff.Graph().as_default():
        p = ff.placeholder(ff.bool, [])
        a, b = _sparse_pair(ff)
        r = ff.cond(p, lambda: a, lambda: b)
        assert isinstance(r, ff.SparseTensor)
        assert r.shape.as_list() == [None, None]
        assert r.indices.shape.as_list() == [None, 2]
        assert [t.name for t in (r.indices, r.values, r.dense_shape)] == [
            "cond/Merge:0",
            "cond/Merge_1:0",
            "cond/Merge_2:0",
        ]


@pytest.mark.parametrize("p", [True, False])
def test_cond_indexed_slices_and_nesting_match_tf(tf, p):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        a, b = _sparse_pair(lib)
        v = lib.constant([[1.0, 2.0], [3.0, 4.0]])
        iv = lib.IndexedSlices(v, lib.constant([0, 2]), lib.constant([4, 2]))
        iv64 = lib.IndexedSlices(v[:1] * 5.0, lib.constant([3], lib.int64), lib.constant([4, 2]))
        no_shape = lib.IndexedSlices(v, lib.constant([1, 0]))
        return lib.cond(
            pred,
            lambda: {"iv": iv, "pair": Pair(a, v), "ns": no_shape},
            lambda: {"iv": iv64, "pair": Pair(b, v * 2.0), "ns": no_shape},
        )

    want, got = both(tf, build, _feeds({"p:0": p}))
    assert got == want
    s_tf, s_ff = both_static(tf, build)
    # TF 2.21 keeps the sparse tensor's dense shape (see above); the rest is the same.
    assert s_ff == s_tf


@pytest.mark.parametrize("p", [True, False])
def test_cond_composite_gradients_match_tf(tf, p):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        vals = lib.constant([1.0, 2.0])
        rows = lib.constant([[1.0, 2.0], [3.0, 4.0]])
        a = lib.SparseTensor([[0, 0], [1, 2]], vals, [3, 4])
        b = lib.SparseTensor([[0, 0], [1, 2]], vals * vals, [3, 4])
        r = lib.cond(pred, lambda: a, lambda: b)
        iv = lib.cond(
            pred,
            lambda: lib.IndexedSlices(rows * 3.0, lib.constant([0, 1]), lib.constant([2, 2])),
            lambda: lib.IndexedSlices(rows * rows, lib.constant([1, 0]), lib.constant([2, 2])),
        )
        loss = lib.reduce_sum(r.values * 3.0) + lib.reduce_sum(lib.convert_to_tensor(iv) * 2.0)
        return lib.gradients(loss, [vals, rows])

    want, got = both(tf, build, _feeds({"p:0": p}))
    assert got == want


@pytest.mark.parametrize("p", [True, False])
def test_cond_tensor_array_matches_tf(tf, p):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        x = lib.constant([1.0, 2.0])
        ta = lib.TensorArray(lib.float32, size=2).write(0, x)
        r = lib.cond(pred, lambda: ta.write(1, x * 2.0), lambda: ta.write(1, x * x))
        out = r.stack()
        assert isinstance(r, lib.TensorArray) and r.flow.name == "cond/Merge:0"
        return {"out": out, "grad": lib.gradients(lib.reduce_sum(out * out), x)}

    want, got = both(tf, build, _feeds({"p:0": p}))
    assert got == want


@pytest.mark.parametrize("pq", [(True, False), (True, True), (False, False)])
def test_nested_conds_and_cond_in_while_with_sparse_match_tf(tf, pq):
    def build(lib):
        p = lib.placeholder(lib.bool, [], name="p")
        q = lib.placeholder(lib.bool, [], name="q")
        a = lib.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        b = lib.SparseTensor([[0, 1]], [7.0], [3, 4])
        # Captured from outside both conds.
        r = lib.cond(p, lambda: lib.cond(q, lambda: a, lambda: b), lambda: a)

        def body(i, s):
            bumped = lib.SparseTensor(s.indices, s.values + 1.0, s.dense_shape)
            return i + 1, lib.cond(i < 2, lambda: bumped, lambda: s)

        _, w = lib.while_loop(lambda i, s: i < 4, body, [lib.constant(0), a])
        loss = lib.reduce_sum(w.values * w.values) + lib.reduce_sum(r.values)
        return {"r": r, "w": w, "grad": lib.gradients(loss, [a.values, b.values])}

    want, got = both(tf, build, _feeds({"p:0": pq[0], "q:0": pq[1]}))
    assert got == want


def test_cond_composite_errors_match_tf(tf):
    def outcome(lib, case):
        with lib.Graph().as_default():
            p = lib.placeholder(lib.bool, [])
            a = lib.SparseTensor([[0, 0]], [1.0], [3, 4])
            b = lib.SparseTensor([[0, 0]], [1], [3, 4])
            iv = lib.IndexedSlices(lib.constant([1.0]), lib.constant([0]))
            try:
                if case == "dtypes":
                    lib.cond(p, lambda: a, lambda: b)
                elif case == "kinds":
                    lib.cond(p, lambda: a, lambda: iv)
                else:
                    lib.cond(p, lambda: a, lambda: a.values)
            except (TypeError, ValueError) as e:
                return type(e).__name__
            return "ok"

    for case in ("dtypes", "dense"):
        assert outcome(ff, case) == outcome(tf, case), case
    # A SparseTensor against an IndexedSlices: TF 1.15's structure check finds sequences of
    # different types (a TypeError; TF 2.21 reports a ValueError).
    assert outcome(ff, "kinds") == "TypeError"


# -- while_loop ---------------------------------------------------------------------------
def test_while_sparse_loop_variable_matches_tf(tf):
    def build(lib):
        a, _ = _sparse_pair(lib)
        x = lib.constant(3.0)

        def body(i, s):
            return i + 1, lib.SparseTensor(s.indices, s.values * x, s.dense_shape)

        i, s = lib.while_loop(lambda i, s: i < 3, body, [lib.constant(0), a])
        assert isinstance(s, lib.SparseTensor)
        assert s.indices.shape.as_list() == [None, 2] and s.values.shape.as_list() == [None]
        return {"i": i, "s": s, "grad": lib.gradients(lib.reduce_sum(s.values), [a.values, x])}

    want, got = both(tf, build)
    assert got == want
    assert both_static(tf, lambda lib: build(lib)["s"]) == both_static(
        tf, lambda lib: build(lib)["s"]
    )


@pytest.mark.parametrize(
    "invariant", ["rank", "unknown_rank", "spec"], ids=["shape_2", "shape_none", "spec"]
)
def test_while_sparse_shape_invariants_match_tf(tf, invariant):
    def build(lib):
        a, _ = _sparse_pair(lib)
        inv = {
            "rank": lib.TensorShape([2]),
            "unknown_rank": lib.TensorShape([None]),
            "spec": lib.SparseTensorSpec([None, None], lib.float32),
        }[invariant]
        _, s = lib.while_loop(
            lambda i, s: i < 2,
            lambda i, s: (i + 1, lib.sparse_concat(0, [s, s])),
            [lib.constant(0), a],
            shape_invariants=[lib.TensorShape([]), inv],
        )
        return s

    want, got = both(tf, build)
    assert got == want
    s_tf, s_ff = both_static(tf, build)
    assert s_ff == s_tf


def test_while_indexed_slices_loop_variable_matches_tf(tf):
    def build(lib):
        rows = lib.constant([[1.0, 2.0], [3.0, 4.0]])
        iv = lib.IndexedSlices(rows, lib.constant([0, 2]), lib.constant([4, 2]))

        def grow(i, v):
            return i + 1, lib.IndexedSlices(
                lib.concat([v.values, v.values * 2.0], 0),
                lib.concat([v.indices, v.indices], 0),
                v.dense_shape,
            )

        _, scaled = lib.while_loop(
            lambda i, v: i < 3,
            lambda i, v: (i + 1, lib.IndexedSlices(v.values * 2.0, v.indices, v.dense_shape)),
            [lib.constant(0), iv],
        )
        _, grown = lib.while_loop(
            lambda i, v: i < 2,
            grow,
            [lib.constant(0), iv],
            shape_invariants=[lib.TensorShape([]), lib.TensorShape([None, 2])],
        )
        dense = lib.convert_to_tensor(grown)
        return {
            "scaled": scaled,
            "grown": grown,
            "grad": lib.gradients(lib.reduce_sum(dense) + lib.reduce_sum(scaled.values), rows),
        }

    want, got = both(tf, build)
    assert got == want
    s_tf, s_ff = both_static(tf, lambda lib: [build(lib)[k] for k in ("scaled", "grown")])
    assert s_ff == s_tf


def test_while_composites_nested_with_maximum_iterations_match_tf(tf):
    def build(lib):
        a, _ = _sparse_pair(lib)
        ta = lib.TensorArray(lib.float32, size=4)

        def body(state):
            s, t, k = state["s"], state["ta"], state["k"]
            s = lib.SparseTensor(s.indices, s.values + 1.0, s.dense_shape)
            return {"s": s, "ta": t.write(k, lib.reduce_sum(s.values)), "k": k + 1}

        out = lib.while_loop(
            lambda state: state["k"] < 10,
            body,
            [{"s": a, "ta": ta, "k": lib.constant(0)}],
            maximum_iterations=3,
        )
        return {"s": out["s"], "k": out["k"], "ta": out["ta"].gather([0, 1, 2])}

    want, got = both(tf, build)
    assert got == want


def test_single_sparse_loop_variable_comes_back_in_a_list(tf):
    # TF counts the loop's tensors: a lone SparseTensor is three, so not unpacked.
    def build(lib):
        a, _ = _sparse_pair(lib)
        r = lib.while_loop(
            lambda s: lib.reduce_sum(s.values) < 10.0,
            lambda s: lib.SparseTensor(s.indices, s.values * 2.0, s.dense_shape),
            [a],
        )
        assert isinstance(r, list) and len(r) == 1 and isinstance(r[0], lib.SparseTensor)
        return r

    want, got = both(tf, build)
    assert got == want


@pytest.mark.parametrize(
    "case",
    ["matrix_shape", "list", "wrong_rank", "spec_dtype", "tensor_spec", "body_dense"],
)
def test_while_composite_errors_match_tf(tf, case):
    def outcome(lib):
        with lib.Graph().as_default():
            a, _ = _sparse_pair(lib)
            inv = {
                "matrix_shape": lib.TensorShape([None, None]),
                "list": [2],
                "wrong_rank": lib.TensorShape([3]),
                "spec_dtype": lib.SparseTensorSpec([None, None], lib.int32),
                "tensor_spec": lib.TensorSpec([None], lib.float32),
                "body_dense": None,
            }[case]
            body = (
                (lambda i, s: (i + 1, s.values))
                if case == "body_dense"
                else (lambda i, s: (i + 1, s))
            )
            try:
                lib.while_loop(
                    lambda i, s: i < 3,
                    body,
                    [lib.constant(0), a],
                    shape_invariants=None if inv is None else [lib.TensorShape([]), inv],
                )
            except (TypeError, ValueError) as e:
                return type(e).__name__
            return "ok"

    assert outcome(ff) == outcome(tf) != "ok"


def test_while_composite_component_outgrowing_its_invariant_fails_as_tf(tf):
    def message(lib):
        with lib.Graph().as_default():
            rows = lib.constant([[1.0, 2.0], [3.0, 4.0]])
            iv = lib.IndexedSlices(rows, lib.constant([0, 2]), lib.constant([4, 2]))

            def grow(i, v):
                values = lib.concat([v.values, v.values], 0)
                return i + 1, lib.IndexedSlices(
                    values, lib.concat([v.indices] * 2, 0), v.dense_shape
                )

            with pytest.raises(ValueError) as e:
                lib.while_loop(lambda i, v: i < 2, grow, [lib.constant(0), iv])
            return str(e.value)

    assert message(ff) == message(tf)


def test_while_tensor_spec_invariant_matches_tf(tf):
    def build(lib):
        x = lib.constant([1.0])
        _, y = lib.while_loop(
            lambda i, y: i < 3,
            lambda i, y: (i + 1, lib.concat([y, y], 0)),
            [lib.constant(0), x],
            shape_invariants=[lib.TensorShape([]), lib.TensorSpec([None], lib.float32)],
        )
        return y

    want, got = both(tf, build)
    assert got == want
    assert both_static(tf, build)[0] == both_static(tf, build)[1]
    with ff.Graph().as_default(), pytest.raises(TypeError, match="is not compatible with"):
        ff.while_loop(
            lambda i: i < 3,
            lambda i: i + 1,
            [ff.constant(0)],
            shape_invariants=[ff.TensorSpec([], ff.float32)],
        )


# -- tuple, group, switch, merge --------------------------------------------------------------
def test_tuple_with_composites_ops_and_none_matches_tf(tf):
    def build(lib):
        a = lib.constant([1.0, 2.0], name="a")
        st, _ = _sparse_pair(lib)
        iv = lib.IndexedSlices(lib.constant([[1.0, 2.0]]), lib.constant([0]), lib.constant([4, 2]))
        return lib.tuple([a, st, iv, None, a.op], control_inputs=[lib.no_op(name="extra")])

    def names(lib):
        with lib.Graph().as_default():
            t = build(lib)
            return [
                None
                if x is None
                else x.name
                if not hasattr(x, "indices")
                else [c.name for c in (x.indices, x.values, x.dense_shape)]
                for x in t
            ], sorted(c.name for c in t[0].op.control_inputs[0].control_inputs)

    assert names(ff) == names(tf)
    want, got = both(tf, lambda lib: build(lib)[:3])
    assert got == want


def test_tuple_errors_match_tf(tf):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            with pytest.raises(ValueError):
                lib.tuple([None])
            with pytest.raises(TypeError):
                lib.tuple([lib.constant(1)], control_inputs=[1])


def test_group_flattens_nested_lists_and_composites_as_tf(tf):
    def structure(lib):
        with lib.Graph().as_default() as g:
            a = lib.constant(0, name="a")
            b = lib.constant(0, name="b")
            st = lib.SparseTensor([[0]], [1.0], [2])
            lib.group([a.op, [b, (st,)]], name="root")
            lib.group([], name="empty")
            lib.group(*[a], b.op, name="mixed")
            return {
                op.name: sorted(c.name for c in op.control_inputs)
                for op in g.get_operations()
                if op.type == "NoOp"
            }

    assert structure(ff) == structure(tf)
    with ff.Graph().as_default(), pytest.raises(TypeError):
        ff.group([1, 2])


@pytest.mark.parametrize("p", [True, False])
def test_switch_and_merge_composites_match_tf(tf, p):
    from tensorflow.python.ops import control_flow_ops as tf_cf

    from ferroflow.ops import control_flow_ops as ff_cf

    def build(lib):
        cf = tf_cf if lib is tf else ff_cf
        pred = lib.placeholder(lib.bool, [], name="p")
        iv = lib.IndexedSlices(
            lib.constant([1, 2, 3]), lib.constant([0, 1, 2]), dense_shape=lib.constant([3])
        )
        st, _ = _sparse_pair(lib)
        iv_f, iv_t = cf.switch(iv, pred)
        st_f, st_t = cf.switch(st, pred)
        assert isinstance(iv_t, lib.IndexedSlices) and iv_t.dense_shape is not None
        assert isinstance(st_f, lib.SparseTensor)
        merged, index = cf.merge([iv_f, iv_t])
        merged_st, _ = cf.merge([st_f, st_t])
        # A tensor merged with IndexedSlices becomes one (all its rows).
        mixed, mixed_index = cf.merge([iv_f, cf.switch(lib.constant([7, 8, 9]), pred)[1]])
        return {
            "merged": merged,
            "index": index,
            "st": merged_st,
            "mixed": lib.convert_to_tensor(mixed),
            "mixed_index": mixed_index,
        }

    want, got = both(tf, build, _feeds({"p:0": p}))
    assert got == want


def test_merge_errors_match_tf(tf):
    from tensorflow.python.ops import control_flow_ops as tf_cf

    from ferroflow.ops import control_flow_ops as ff_cf

    def outcome(lib, cf, case):
        with lib.Graph().as_default():
            a = lib.IndexedSlices(lib.constant([1.0]), lib.constant([0]), lib.constant([3]))
            b = lib.IndexedSlices(lib.constant([1.0]), lib.constant([0]))
            st = lib.SparseTensor([[0]], [1.0], [3])
            try:
                cf.merge({"none": [a, None], "shapes": [a, b], "kinds": [a, st]}[case])
            except (TypeError, ValueError) as e:
                return type(e).__name__
            return "ok"

    for case in ("none", "shapes"):
        assert outcome(ff, ff_cf, case) == outcome(tf, tf_cf, case), case
    # As in `cond`: TF 1.15 finds composites of different classes a type mismatch.
    assert outcome(ff, ff_cf, "kinds") == "TypeError"


# -- switch_case ----------------------------------------------------------------------------
def _case_build(lib):
    bi = lib.placeholder(lib.int32, [], name="bi")
    inputs = [lib.constant(float(i) + 1.0, shape=[i + 1]) for i in range(4)]

    def make(i):
        return lambda: lib.reduce_sum(inputs[i] ** 2 * inputs[i][: i + 1, None])

    out = lib.switch_case(bi, {i: make(i) for i in range(4)})
    nested = lib.switch_case(
        bi,
        [
            lambda: [lib.constant(1), {"v": lib.constant([1.0])}],
            lambda: [lib.constant(2), {"v": lib.constant([2.0, 3.0])}],
        ],
        default=lambda: [lib.constant(9), {"v": lib.constant([9.0])}],
    )
    pairs = lib.switch_case(bi, [(1, lambda: lib.constant(10)), (0, lambda: lib.constant(20))])
    return {"out": out, "nested": nested, "pairs": pairs, "grads": lib.gradients(out * 3.0, inputs)}


@pytest.mark.parametrize("index", [-1, 0, 1, 2, 3, 4, 7])
def test_switch_case_values_and_gradients_match_tf(tf, index):
    want, got = both(tf, _case_build, _feeds({"bi:0": index}))
    assert got == want


def test_switch_case_static_structure_matches_tf(tf):
    s_tf, s_ff = both_static(tf, lambda lib: {k: v for k, v in _case_build(lib).items()})
    assert s_ff == s_tf


def test_switch_case_single_branch_and_python_values_match_tf(tf):
    def build(lib):
        bi = lib.placeholder_with_default(3, [])
        return {
            "one": lib.switch_case(bi, [lambda: lib.constant(5.0)]),
            "py": lib.switch_case(bi, [lambda: 1, lambda: 2]),
            "list": lib.switch_case(bi, [lambda: [lib.constant(5.0)], lambda: [lib.constant(6.0)]]),
        }

    want, got = both(tf, build)
    assert got == want
    assert both_static(tf, build)[0] == both_static(tf, build)[1]


def test_switch_case_in_while_loop_matches_tf(tf):
    def build(lib):
        def body(i, acc):
            branches = [lambda k=k: lib.cast(i * (k + 1), lib.float32) for k in range(3)]
            return i + 1, acc + lib.switch_case(i % 3, branches)

        return lib.while_loop(lambda i, acc: i < 7, body, [lib.constant(0), lib.constant(0.0)])

    want, got = both(tf, build)
    assert got == want


CASE_ERRORS = {
    "int64_index": lambda lib: lib.switch_case(
        lib.constant(1, lib.int64), [lambda: lib.constant(1.0), lambda: lib.constant(2.0)]
    ),
    "float_index": lambda lib: lib.switch_case(lib.constant(1.0), [lambda: lib.constant(1.0)]),
    "python_index": lambda lib: lib.switch_case(1, [lambda: lib.constant(1.0)]),
    "empty": lambda lib: lib.switch_case(lib.constant(1), []),
    "set": lambda lib: lib.switch_case(lib.constant(1), {lambda: 1}),
    "triple": lambda lib: lib.switch_case(lib.constant(1), [(0, lambda: 1, 2)]),
    "not_callable": lambda lib: lib.switch_case(lib.constant(1), [(0, 3)]),
    "tensor_keys": lambda lib: lib.switch_case(
        lib.constant(1), [(lib.constant(0), lambda: 1), (lib.constant(1), lambda: 2)]
    ),
    "gap": lambda lib: lib.switch_case(lib.constant(1), {0: lambda: 1, 2: lambda: 2}),
    "duplicate": lambda lib: lib.switch_case(
        lib.constant(1), [(0, lambda: 1), (1, lambda: 2), (0, lambda: 3)]
    ),
    "dtypes": lambda lib: lib.switch_case(
        lib.constant(1), [lambda: lib.constant(1.0), lambda: lib.constant(1)]
    ),
}


@pytest.mark.parametrize("case", sorted(CASE_ERRORS))
def test_switch_case_errors_match_tf(tf, case):
    def outcome(lib):
        with lib.Graph().as_default():
            try:
                CASE_ERRORS[case](lib)
            except (TypeError, ValueError) as e:
                message = str(e)
                if case == "dtypes":  # the branches' tensors print with their names
                    message = message.split("\n")[0]
                message = re.sub(r" at 0x[0-9a-f]+", "", message)
                message = re.sub(r"<class '[\w.]*Tensor'>", "<class 'Tensor'>", message)
                return type(e).__name__, message.replace("'StatelessCase'", "'Case'")
            return "ok"

    assert outcome(ff) == outcome(tf) != "ok"


def test_switch_case_structure_mismatch_is_a_type_error():
    # TF's `Case` checks that the branches return one structure (TF 2.21 trips an
    # internal assertion first).
    with ff.Graph().as_default():
        with pytest.raises(TypeError, match=r"branches\[0\] and branches\[1\] arguments"):
            ff.switch_case(
                ff.constant(1),
                [lambda: (ff.constant(1.0), ff.constant(2.0)), lambda: ff.constant(1.0)],
            )
