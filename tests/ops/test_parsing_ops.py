"""`tf.parse_example` and `tf.parse_single_example` against TensorFlow on the same
serialized `tf.train.Example`s (hypothesis-generated), and the protos themselves."""

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
