"""`tf.TensorSpec`, `tf.SparseTensorSpec`, `tf.IndexedSlicesSpec` against TensorFlow's.

Construction, properties, `repr`, equality and hashing, `is_compatible_with`,
`from_tensor`/`from_value`, and `most_specific_compatible_type`. Where TF 2.21 changed
TF 1.15 (a `TensorSpec` merged with one of another name), the 1.15 behaviour is asserted.
"""

import numpy as np
import pytest

import ferroflow as ff


def _outcome(fn):
    try:
        return ("ok", fn())
    except (TypeError, ValueError) as e:
        return (type(e).__name__,)


def _tensor_spec_facts(lib):
    T = lib.TensorSpec
    a = T([None, 3], lib.float32, name="x")
    b = T([2, 3], lib.float32)
    facts = {
        "repr": [repr(a), str(a), repr(T(None)), repr(T([])), repr(T((2,), "int64"))],
        "props": (a.shape.as_list(), a.dtype.name, a.name, T([1]).dtype.name),
        "eq": (
            a == b,
            a == T([None, 3], lib.float32, "x"),
            a == T([None, 3], lib.float32, "y"),
            a != b,
            T(None) == T(None),
            hash(T([None, 3], lib.float32)) == hash(T([None, 3], lib.float32, "y")),
            len({a, T([None, 3], lib.float32, "x"), b}),
        ),
        "compatible": (
            a.is_compatible_with(b),
            b.is_compatible_with(a),
            a.is_compatible_with(T([2, 4])),
            a.is_compatible_with(T([2, 3], lib.int32)),
            T(None).is_compatible_with(b),
        ),
        "errors": (_outcome(lambda: T([1], "nope")), _outcome(lambda: T("ab"))),
    }
    g = lib.Graph()
    with g.as_default():
        t = lib.placeholder(lib.float32, [5, 3], name="ph")
        u = lib.placeholder(lib.int32, None, name="u")
        facts["tensor"] = (
            a.is_compatible_with(t),
            a.is_compatible_with(u),
            repr(T.from_tensor(t)),
            repr(T.from_tensor(t, name="nm")),
            repr(T.from_tensor(u)),
            repr(T.from_spec(a)),
            repr(T.from_spec(b, name="z")),
        )
        facts["from_tensor_error"] = _outcome(lambda: T.from_tensor(np.ones(3)))
    return facts


def test_tensor_spec_matches_tf(tf1):
    assert _tensor_spec_facts(ff) == _tensor_spec_facts(tf1)


def test_tensor_spec_is_tf_1_15s():
    a = ff.TensorSpec([None, 3], ff.float32, name="x")
    # TF 1.15 merges specs of different names (the name is dropped); TF 2.21 refuses.
    merged = a.most_specific_compatible_type(ff.TensorSpec([2, 3], ff.float32))
    assert merged == ff.TensorSpec([None, 3], ff.float32)
    assert a.most_specific_compatible_type(ff.TensorSpec([2, 3], name="x")).name == "x"
    with pytest.raises(ValueError, match="Types are not compatible"):
        a.most_specific_compatible_type(ff.TensorSpec([2, 3], ff.int32))
    # `is_compatible_with` takes specs and tensors only (TF 2.21 also takes arrays).
    assert not a.is_compatible_with(np.ones([2, 3], np.float32))
    with pytest.raises(ValueError, match=r"`tensor` should be a tf\.Tensor"):
        ff.TensorSpec.from_tensor(np.ones(3))
    assert ff.TensorSpec([1]).value_type is ff.Tensor
    for name in ("TensorSpec", "SparseTensorSpec", "IndexedSlicesSpec", "TypeSpec"):
        assert name in ff.__all__ and getattr(ff.compat.v1, name) is getattr(ff, name)
    assert isinstance(a, ff.TypeSpec)


def _sparse_spec_facts(lib):
    S = lib.SparseTensorSpec
    s1 = S([None, 4], lib.float32)
    facts = {
        "repr": [repr(s1), repr(S()), repr(S([3], lib.int64))],
        "props": (s1.shape.as_list(), s1.dtype.name, S().shape.ndims),
        "eq": (s1 == S([None, 4]), s1 == S([None, 4], lib.int32), hash(s1) == hash(S([None, 4]))),
        "merge": (
            repr(s1.most_specific_compatible_type(S([3, 4]))),
            repr(s1.most_specific_compatible_type(S([3, 4, 5]))),
            _outcome(lambda: s1.most_specific_compatible_type(S([3, 4], lib.int32)))[0],
            _outcome(lambda: s1.most_specific_compatible_type(lib.TensorSpec([3, 4])))[0],
        ),
    }
    g = lib.Graph()
    with g.as_default():
        st = lib.SparseTensor([[0, 1]], [1.0], [3, 4])
        p = lib.sparse_placeholder(lib.float32, [None, 4])
        facts["value"] = (
            s1.is_compatible_with(st),
            S([3, 5]).is_compatible_with(st),
            S([3, 4], lib.int32).is_compatible_with(st),
            S().is_compatible_with(p),
            s1.is_compatible_with(lib.TensorSpec([3, 4])),
            repr(S.from_value(st)),
            repr(S.from_value(p)),
            repr(
                S.from_value(
                    lib.SparseTensorValue(
                        np.array([[0]]), np.array([1.0], np.float32), np.array([3])
                    )
                )
            ),
        )
    return facts


def test_sparse_tensor_spec_matches_tf(tf1):
    assert _sparse_spec_facts(ff) == _sparse_spec_facts(tf1)


def test_indexed_slices_spec_matches_tf(tf1):
    def facts(lib):
        S = lib.IndexedSlicesSpec
        spec = S([None, 2], lib.float32, lib.int32, lib.int64, [None])
        out = [repr(spec), repr(S()), spec == S([None, 2], lib.float32, lib.int32, lib.int64)]
        with lib.Graph().as_default():
            iv = lib.IndexedSlices(
                lib.constant([[1.0, 2.0]]), lib.constant([0]), lib.constant([4, 2])
            )
            out.append(S([None, 2], lib.float32, lib.int32, lib.int32).is_compatible_with(iv))
            out.append(S([None, 3], lib.float32, lib.int32, lib.int32).is_compatible_with(iv))
        return out

    assert facts(ff) == facts(tf1)


def test_composite_type_specs_match_tf(tf1):
    def facts(lib):
        with lib.Graph().as_default():
            st = lib.SparseTensor([[0, 1]], [1.0], [3, 4])
            iv = lib.IndexedSlices(
                lib.constant([[1.0, 2.0]]), lib.constant([0]), lib.constant([4, 2])
            )
            iv2 = lib.IndexedSlices(lib.constant([[1.0]]), lib.constant([0], lib.int64))
            return [
                repr(st._type_spec),
                repr(iv._type_spec),
                repr(iv2._type_spec),
                [repr(s) for s in st._type_spec._component_specs],
                [repr(s) for s in iv._type_spec._component_specs],
                repr(st._shape_invariant_to_type_spec(lib.TensorShape([2]))),
                repr(iv._shape_invariant_to_type_spec(lib.TensorShape([None, 2]))),
            ]

    assert facts(ff) == facts(tf1)
