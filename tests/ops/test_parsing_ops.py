"""`tf.parse_example`, `tf.parse_single_example`, `tf.io.parse_sequence_example` and
`tf.parse_single_sequence_example` against TensorFlow on the same serialized
`tf.train.Example`s and `SequenceExample`s (hypothesis-generated): values, static
shapes, graph nodes and error messages; and the protos themselves."""

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ferroflow as ff


def test_example_protos_are_wire_compatible(tf1):
    ex = ff.train.Example(
        features=ff.train.Features(
            feature={
                "f": ff.train.Feature(float_list=ff.train.FloatList(value=[1.5, -2.0])),
                "i": ff.train.Feature(int64_list=ff.train.Int64List(value=[3, 1 << 40])),
                "b": ff.train.Feature(bytes_list=ff.train.BytesList(value=[b"x", b""])),
            }
        )
    )
    theirs = tf1.train.Example.FromString(ex.SerializeToString())
    assert theirs.features.feature["i"].int64_list.value == [3, 1 << 40]
    assert ff.train.Example.FromString(theirs.SerializeToString()) == ex
    seq = ff.train.SequenceExample(
        feature_lists=ff.train.FeatureLists(
            feature_list={"s": ff.train.FeatureList(feature=[ex.features.feature["f"]])}
        )
    )
    assert tf1.train.SequenceExample.FromString(seq.SerializeToString()).feature_lists.feature_list[
        "s"
    ].feature[0].float_list.value == [1.5, -2.0]


def _example(lib, d):
    feats = {}
    for k, (kind, vals) in d.items():
        if kind == "f":
            feats[k] = lib.train.Feature(float_list=lib.train.FloatList(value=vals))
        elif kind == "i":
            feats[k] = lib.train.Feature(int64_list=lib.train.Int64List(value=vals))
        else:
            feats[k] = lib.train.Feature(bytes_list=lib.train.BytesList(value=vals))
    return lib.train.Example(features=lib.train.Features(feature=feats)).SerializeToString()


floats = st.floats(width=32, allow_nan=False)
ints = st.integers(-(1 << 62), 1 << 62)
byts = st.binary(max_size=5)


@st.composite
def batches(draw):
    n = draw(st.integers(1, 5))
    rows = []
    for _ in range(n):
        row = {"dense_f": ("f", draw(st.lists(floats, min_size=2, max_size=2)))}
        if draw(st.booleans()):
            row["dense_i"] = ("i", draw(st.lists(ints, min_size=3, max_size=3)))
        if draw(st.booleans()):
            row["var_b"] = ("b", draw(st.lists(byts, max_size=4)))
        if draw(st.booleans()):
            row["var_i"] = ("i", draw(st.lists(ints, max_size=4)))
        if draw(st.booleans()):
            row["scalar_s"] = ("b", [draw(byts)])
        rows.append(row)
    return rows


def _features(lib):
    return {
        "dense_f": lib.FixedLenFeature([2], lib.float32),
        "dense_i": lib.FixedLenFeature([3], lib.int64, default_value=[7, 8, 9]),
        "var_b": lib.VarLenFeature(lib.string),
        "var_i": lib.VarLenFeature(lib.int64),
        "scalar_s": lib.FixedLenFeature([], lib.string, default_value="none"),
    }


def _flatten(lib, out):
    flat = {}
    for k, v in out.items():
        if isinstance(v, tuple) or type(v).__name__ == "SparseTensor":
            parts = (v.indices, v.values, v.dense_shape) if not isinstance(v, tuple) else v
            for i, p in enumerate(parts):
                flat[f"{k}/{i}"] = p
        else:
            flat[k] = v
    return flat


def _run(lib, serialized, single=False):
    with lib.Graph().as_default():
        ph = lib.placeholder(lib.string, [] if single else [None])
        fn = lib.parse_single_example if single else lib.parse_example
        out = _flatten(lib, fn(ph, _features(lib)))
        names = {k: (v.name, v.dtype.name, v.shape.as_list()) for k, v in out.items()}
        with lib.Session() as s:
            return names, s.run(out, {ph: serialized})


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batches())
def test_parse_example_matches_tf(tf1, rows):
    serialized = [_example(tf1, r) for r in rows]
    want_names, want = _run(tf1, serialized)
    got_names, got = _run(ff, serialized)
    assert got_names == want_names
    for k in want:
        a, b = np.asarray(want[k]), np.asarray(got[k])
        assert a.dtype == b.dtype and a.shape == b.shape, k
        np.testing.assert_array_equal(a, b)
    # One at a time through parse_single_example.
    want_names, want = _run(tf1, serialized[0], single=True)
    got_names, got = _run(ff, serialized[0], single=True)
    assert got_names == want_names
    for k in want:
        np.testing.assert_array_equal(np.asarray(want[k]), np.asarray(got[k]))


@pytest.mark.parametrize(
    "row",
    [
        {},  # dense_f is required
        {"dense_f": ("f", [1.0])},  # wrong length
        {"dense_f": ("i", [1, 2])},  # wrong type
        {"dense_f": ("f", [1.0, 2.0]), "var_i": ("f", [1.0])},  # wrong sparse type
    ],
)
def test_parse_errors_match_tf(tf1, row):
    serialized = [_example(tf1, row)]
    with pytest.raises(tf1.errors.OpError) as want:
        _run(tf1, serialized)
    with pytest.raises(ff.errors.OpError) as got:
        _run(ff, serialized)
    assert type(got.value).__name__ == type(want.value).__name__


def test_garbage_is_invalid_argument():
    with pytest.raises(ff.errors.InvalidArgumentError, match="Could not parse example input"):
        _run(ff, [b"\xff\xff\xff"])


# --- SequenceExample parsing and FixedLenSequenceFeature -------------------------------


def _feature(lib, kind, vals):
    if kind == "f":
        return lib.train.Feature(float_list=lib.train.FloatList(value=vals))
    if kind == "i":
        return lib.train.Feature(int64_list=lib.train.Int64List(value=vals))
    if kind == "b":
        return lib.train.Feature(bytes_list=lib.train.BytesList(value=vals))
    return lib.train.Feature()  # no kind set


def _seq_example(lib, context=None, lists=None):
    t = lib.train
    return t.SequenceExample(
        context=t.Features(feature={k: _feature(lib, *v) for k, v in (context or {}).items()}),
        feature_lists=t.FeatureLists(
            feature_list={
                k: t.FeatureList(feature=[_feature(lib, *s) for s in steps])
                for k, steps in (lists or {}).items()
            }
        ),
    ).SerializeToString()


def _seq_features(lib):
    context = {
        "len": lib.FixedLenFeature([], lib.int64, default_value=-1),
        "ctx_f": lib.FixedLenFeature([2], lib.float32),
        "ctx_v": lib.VarLenFeature(lib.string),
    }
    sequence = {
        "tok": lib.FixedLenSequenceFeature([], lib.int64, allow_missing=True),
        "vec": lib.FixedLenSequenceFeature([2], lib.float32),
        "sp": lib.VarLenFeature(lib.float32),
        "words": lib.FixedLenSequenceFeature([], lib.string, allow_missing=True),
    }
    return context, sequence


@st.composite
def seq_records(draw):
    n = draw(st.integers(1, 4))
    rows = []
    for _ in range(n):
        context = {"ctx_f": ("f", draw(st.lists(floats, min_size=2, max_size=2)))}
        if draw(st.booleans()):
            context["len"] = ("i", [draw(ints)])
        if draw(st.booleans()):
            context["ctx_v"] = ("b", draw(st.lists(byts, max_size=3)))
        t = draw(st.integers(0, 3))
        lists = {"vec": [("f", draw(st.lists(floats, min_size=2, max_size=2))) for _ in range(t)]}
        if draw(st.booleans()):
            lists["tok"] = [("i", [draw(ints)]) for _ in range(draw(st.integers(0, 4)))]
        if draw(st.booleans()):
            lists["words"] = [("b", [draw(byts)]) for _ in range(draw(st.integers(0, 3)))]
        if draw(st.booleans()):
            lists["sp"] = [
                ("f", draw(st.lists(floats, max_size=3))) for _ in range(draw(st.integers(0, 3)))
            ]
        rows.append((context, lists))
    return rows


def _flat(out):
    flat = {}
    for i, d in enumerate(out):
        for k, v in d.items():
            if type(v).__name__ == "SparseTensor":
                for j, p in enumerate((v.indices, v.values, v.dense_shape)):
                    flat[f"{i}/{k}/{j}"] = p
            else:
                flat[f"{i}/{k}"] = v
    return flat


def _run_seq(lib, serialized, single, names=None, **kw):
    with lib.Graph().as_default():
        ph = lib.placeholder(lib.string, [] if single else [None])
        context, sequence = kw.pop("features", None) or _seq_features(lib)
        if single:
            out = lib.parse_single_sequence_example(ph, context, sequence, example_name=names, **kw)
        else:
            out = lib.io.parse_sequence_example(ph, context, sequence, example_names=names, **kw)
        flat = _flat(out)
        static = {k: (v.name, v.dtype.name, v.shape.as_list()) for k, v in flat.items()}
        with lib.Session() as s:
            return static, s.run(flat, {ph: serialized})


def _assert_same(want, got):
    assert got[0] == want[0]
    for k in want[1]:
        a, b = np.asarray(want[1][k]), np.asarray(got[1][k])
        assert a.dtype == b.dtype and a.shape == b.shape, k
        np.testing.assert_array_equal(a, b, err_msg=k)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seq_records())
def test_parse_sequence_example_matches_tf(tf1, rows):
    serialized = [_seq_example(tf1, c, ls) for c, ls in rows]
    _assert_same(_run_seq(tf1, serialized, False), _run_seq(ff, serialized, False))
    for record in serialized[:2]:
        _assert_same(_run_seq(tf1, record, True), _run_seq(ff, record, True))


def test_parse_sequence_example_graph_matches_tf(tf1):
    def build(lib):
        g = lib.Graph()
        with g.as_default():
            ph = lib.placeholder(lib.string, [])
            context, sequence = _seq_features(lib)
            lib.parse_single_sequence_example(ph, context, sequence, example_name="nm", name="foo")
            lib.parse_single_sequence_example("abc", context, sequence)
            lib.io.parse_sequence_example(["a", "b"], context, sequence, name="bar")
            lib.io.parse_sequence_example(
                lib.placeholder(lib.string), context, {"tok": sequence["tok"]}
            )
        return g.as_graph_def()

    want, got = build(tf1), build(ff)
    assert [(n.name, n.op) for n in got.node] == [(n.name, n.op) for n in want.node]
    for a, b in zip(want.node, got.node, strict=True):
        if a.op == "ParseSequenceExampleV2":
            assert sorted(b.attr) == sorted(a.attr)
            for k in a.attr:
                assert b.attr[k].SerializeToString() == a.attr[k].SerializeToString(), k
    # TF imports ferroflow's graph.
    with tf1.Graph().as_default():
        tf1.import_graph_def(tf1.GraphDef.FromString(got.SerializeToString()), name="")


def _first_line(e):
    """The kernel's message: TF 2's graph errors wrap it in lines about the node."""
    noise = ("Graph execution error:", "Detected at node", "Node: ", " ", "\t")
    return next(line for line in e.message.splitlines() if line and not line.startswith(noise))


def _assert_same_error(tf1, run):
    """`run(lib)` fails at run time with TF's error class and message for both."""
    with pytest.raises(tf1.errors.InvalidArgumentError) as want:
        run(tf1)
    with pytest.raises(ff.errors.InvalidArgumentError) as got:
        run(ff)
    assert _first_line(got.value) == _first_line(want.value)


_CTX = {"len": ("f", [1.0])}
_SEQ_ERRORS = [
    # (context, lists, context features, sequence features) of one record
    ({}, {}, {"len": ("fl", [], "int64", None)}, {}),  # required, all missing
    ({"len": ("i", [1])}, {}, {"len": ("fl", [], "float32", None)}, {}),  # wrong type
    ({"len": ("i", [1, 2])}, {}, {"len": ("fl", [], "int64", None)}, {}),  # too many
    ({"len": ("n", [])}, {}, {"len": ("fl", [], "int64", 4)}, {}),  # no kind set
    ({"v": ("f", [])}, {}, {"v": ("var", "int64")}, {}),  # empty list, wrong kind
    ({}, {}, {}, {"gone": ("seq", [], "int64", False)}),  # required list
    ({}, {"vec": [("f", [1, 2])]}, {}, {"vec": ("seq", [3], "float32", False)}),
    ({}, {"vec": [("f", [1, 2, 3]), ("f", [1] * 6)]}, {}, {"vec": ("seq", [3], "float32", 0)}),
    ({}, {"vec": [("f", [1, 2])]}, {}, {"vec": ("seq", [2], "int64", False)}),
    ({}, {"vec": [("i", [1]), ("n", [])]}, {}, {"vec": ("seq", [], "int64", False)}),
    ({}, {"vec": [("f", [])]}, {}, {"vec": ("var", "int64")}),
]


def _config(lib, spec):
    out = {}
    for k, s in spec.items():
        if s[0] == "var":
            out[k] = lib.VarLenFeature(getattr(lib, s[1]))
        elif s[0] == "fl":
            out[k] = lib.FixedLenFeature(s[1], getattr(lib, s[2]), default_value=s[3])
        else:
            out[k] = lib.FixedLenSequenceFeature(s[1], getattr(lib, s[2]), allow_missing=bool(s[3]))
    return out


@pytest.mark.parametrize("case", _SEQ_ERRORS)
def test_parse_sequence_example_errors_match_tf(tf1, case):
    context, lists, cspec, sspec = case

    def run(lib):
        features = (_config(lib, cspec), _config(lib, sspec))
        return _run_seq(lib, _seq_example(tf1, context, lists), True, features=features)

    _assert_same_error(tf1, run)


def test_parse_sequence_example_batch_errors_name_the_record(tf1):
    def run(lib, case):
        serialized, names, cspec, sspec = case
        features = (_config(lib, cspec), _config(lib, sspec))
        return _run_seq(lib, serialized, False, names, features=features)

    seq = {"v": ("seq", [2], "float32", False)}
    two = {"c": ("fl", [2], "int64", None)}
    cases = [
        ([_seq_example(tf1, {}, {"v": [("f", [1, 2])]}), _seq_example(tf1)], ["a", "b"], {}, seq),
        ([_seq_example(tf1), b"\x12\x03\x0a\x01"], ["first", "second"], {}, seq),
        ([b"\xff"], None, {}, seq),
        ([_seq_example(tf1)], ["a", "b"], {}, seq),
        ([_seq_example(tf1, {"c": ("i", [1, 2])}), _seq_example(tf1)], None, two, {}),
        (
            [_seq_example(tf1, {"c": ("i", [1, 2])}), _seq_example(tf1, {"c": ("i", [3])})],
            ["x", "y"],
            two,
            {},
        ),
    ]
    for case in cases:
        _assert_same_error(tf1, functools.partial(run, case=case))


def test_parse_sequence_example_build_errors_match_tf(tf1):
    def build(lib, **kw):
        with lib.Graph().as_default():
            ph = lib.placeholder(lib.string, kw.pop("shape", [None]))
            fn = kw.pop("fn", lib.io.parse_sequence_example)
            fn(ph, kw.pop("context", None), kw.pop("sequence", None))

    cases = [
        {},
        {"context": {"a": "seq"}},
        {"sequence": {"a": "fl"}},
        {"sequence": {"a": "seq_default"}},
        {"context": {"a": "unknown_first"}},
        {"context": {"a": "partial"}},
        {"context": {"a": "int32"}},
        {"sequence": {"a": "var_int32"}},
        {"context": {"a": "fl"}, "fn": "single"},
    ]

    def features(lib, spec):
        make = {
            "seq": lambda: lib.FixedLenSequenceFeature([], lib.int64, allow_missing=True),
            "seq_default": lambda: lib.FixedLenSequenceFeature([], lib.int64, True, 3),
            "fl": lambda: lib.FixedLenFeature([], lib.int64),
            "unknown_first": lambda: lib.FixedLenFeature([None], lib.int64),
            "partial": lambda: lib.FixedLenFeature([2, None], lib.int64),
            "int32": lambda: lib.FixedLenFeature([], lib.int32),
            "var_int32": lambda: lib.VarLenFeature(lib.int32),
        }
        return None if spec is None else {k: make[v]() for k, v in spec.items()}

    for case in cases:
        errors = []
        for lib in (tf1, ff):
            kw = dict(case)
            kw["context"] = features(lib, kw.get("context"))
            kw["sequence"] = features(lib, kw.get("sequence"))
            if kw.get("fn") == "single":
                kw["fn"] = lib.parse_single_sequence_example
            with pytest.raises((ValueError, TypeError)) as e:
                build(lib, **kw)
            errors.append((type(e.value), str(e.value).replace("tf.", "")))
        assert errors[1] == errors[0], case


def _example_seq_features(lib, default=None):
    return {
        "v": lib.FixedLenSequenceFeature([2], lib.float32, allow_missing=True),
        "s": lib.FixedLenSequenceFeature([], lib.string, True, default_value=default),
        "d": lib.FixedLenFeature([], lib.int64, default_value=0),
    }


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.none() | st.lists(floats, max_size=3).map(lambda x: x * 2),
            st.none() | st.lists(byts, max_size=3),
        ),
        min_size=1,
        max_size=4,
    ),
    st.none() | byts,
)
def test_fixed_len_sequence_feature_in_parse_example_matches_tf(tf1, rows, default):
    serialized = []
    for v, s in rows:
        d = {}
        if v is not None:
            d["v"] = ("f", v)
        if s is not None:
            d["s"] = ("b", s)
        serialized.append(_example(tf1, d))

    def run(lib, data, single):
        with lib.Graph().as_default():
            ph = lib.placeholder(lib.string, [] if single else [None])
            fn = lib.parse_single_example if single else lib.parse_example
            out = fn(ph, _example_seq_features(lib, default))
            static = {k: (v.name, v.dtype.name, v.shape.as_list()) for k, v in out.items()}
            with lib.Session() as sess:
                return static, sess.run(out, {ph: data})

    _assert_same(run(tf1, serialized, False), run(ff, serialized, False))
    _assert_same(run(tf1, serialized[0], True), run(ff, serialized[0], True))


@pytest.mark.parametrize(
    "data,feature,single",
    [
        ([{"v": ("i", [1, 2])}, {"v": ("i", [1, 2, 3, 4])}], ([3], "int64"), False),
        ({"v": ("i", [1, 2, 3, 4])}, ([3], "int64"), True),
        ([{"v": ("i", [])}], ([], "float32"), False),
        ({"v": ("i", [1])}, ([], "float32"), True),
    ],
)
def test_fixed_len_sequence_feature_errors_match_tf(tf1, data, feature, single):
    def run(lib):
        with lib.Graph().as_default():
            ph = lib.placeholder(lib.string, [] if single else [None])
            fn = lib.parse_single_example if single else lib.parse_example
            f = lib.FixedLenSequenceFeature(feature[0], getattr(lib, feature[1]), True)
            out = fn(ph, {"v": f})
            ser = _example(tf1, data) if single else [_example(tf1, d) for d in data]
            with lib.Session() as sess:
                return sess.run(out, {ph: ser})

    _assert_same_error(tf1, run)


def test_fixed_len_sequence_feature_build_errors_match_tf(tf1):
    for make in (
        lambda lib: lib.FixedLenSequenceFeature([2], lib.float32),  # allow_missing=False
        lambda lib: lib.FixedLenSequenceFeature([None], lib.float32, True),
        lambda lib: lib.FixedLenSequenceFeature([], lib.float32, True, default_value=[1.0, 2.0]),
    ):
        errors = []
        for lib in (tf1, ff):
            with lib.Graph().as_default():
                with pytest.raises(ValueError) as e:
                    lib.parse_example(lib.placeholder(lib.string, [None]), {"v": make(lib)})
            errors.append(str(e.value).split(" for '")[0])
        if errors[0].startswith("Cannot reshape"):  # the padding value's reshape to []
            assert errors[1].startswith("Cannot reshape a tensor")
        else:
            assert errors[1] == errors[0]
