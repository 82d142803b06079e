"""`tf.SparseFeature` parsing and `tf.make_tensor_proto` / `tf.make_ndarray`, against TF.

The same serialized `Example`s go through both libraries' `parse_example` and
`parse_single_example`; the same values through both `make_tensor_proto`, whose protos
must serialize to the same bytes (ferroflow's messages are wire-compatible with TF's).
"""

import numpy as np
import pytest

import ferroflow as ff

# ---------------------------------------------------------------------------
# SparseFeature.


def _example(tf1, **features):
    """A serialized `tf.train.Example`: lists of ints (int64), floats or bytes."""
    feature = {}
    for key, values in features.items():
        if all(isinstance(v, bytes) for v in values) and values:
            feature[key] = tf1.train.Feature(bytes_list=tf1.train.BytesList(value=values))
        elif all(isinstance(v, int) for v in values):
            feature[key] = tf1.train.Feature(int64_list=tf1.train.Int64List(value=values))
        else:
            feature[key] = tf1.train.Feature(float_list=tf1.train.FloatList(value=values))
    example = tf1.train.Example(features=tf1.train.Features(feature=feature))
    return example.SerializeToString()


def _run(lib, build):
    """`build(lib)` in a fresh graph; the fetched dict as plain numpy values."""
    with lib.Graph().as_default():
        out = build(lib)
        with lib.Session() as sess:
            fetched = sess.run(out)
    result = {}
    for key, value in fetched.items():
        if hasattr(value, "indices"):
            result[key] = tuple(
                np.asarray(x) for x in (value.indices, value.values, value.dense_shape)
            )
        else:
            result[key] = (np.asarray(value),)
    return result


def _compare(tf1, build):
    ours, theirs = _run(ff, build), _run(tf1, build)
    assert list(ours) == list(theirs)
    for key in theirs:
        for a, b in zip(ours[key], theirs[key], strict=True):
            assert a.dtype == b.dtype, key
            np.testing.assert_array_equal(a, b, err_msg=key)
    return ours


@pytest.fixture
def serialized(tf1):
    return [
        _example(tf1, idx=[3, 0, 7], val=[0.5, -1.0, 2.0], i1=[1, 0, 2], s=[b"a", b"b", b"c"]),
        _example(tf1),
        _example(tf1, idx=[12], val=[4.0], i1=[1], s=[b"z"], d=[3]),
        _example(tf1, idx=[5, 2], val=[1.0, 3.0], i1=[0, 0], s=[b"x", b"y"]),
    ]


@pytest.mark.parametrize("already_sorted", [False, True])
def test_sparse_feature_batch_like_tf(tf1, serialized, already_sorted):
    def build(tf):
        features = {
            "sp": tf.SparseFeature("idx", "val", tf.float32, 13, already_sorted),
            "sp_list": tf.SparseFeature(["idx"], "s", tf.string, [13], already_sorted),
            "sp_2d": tf.SparseFeature(["idx", "i1"], "val", tf.float32, [13, 3], already_sorted),
            "sp_2d_rev": tf.SparseFeature(["i1", "idx"], "s", tf.string, [3, 20]),
            "d": tf.FixedLenFeature([1], tf.int64, default_value=[-1]),
        }
        return tf.parse_example(serialized, features)

    _compare(tf1, build)


def test_sparse_feature_reuse_like_tf(tf1, serialized):
    # Keys shared by features (and a feature named like a value key) are parsed once.
    def build(tf):
        features = {
            "val": tf.VarLenFeature(tf.float32),
            "idx": tf.VarLenFeature(tf.int64),
            "a": tf.SparseFeature("idx", "val", tf.float32, 13),
            "b": tf.SparseFeature(["i1", "idx"], "val", tf.float32, [3, 13], already_sorted=True),
            "i1": tf.SparseFeature("idx", "i1", tf.int64, 13),
        }
        return tf.parse_example(serialized, features, name="parse")

    _compare(tf1, build)


def test_sparse_feature_three_dimensional_like_tf(tf1):
    serialized = [
        _example(tf1, i0=[1, 0, 1], i1=[2, 0, 0], i2=[0, 3, 1], v=[1, 2, 3]),
        _example(tf1, i0=[0], i1=[1], i2=[3], v=[9]),
    ]

    def build(tf):
        features = {"sp": tf.SparseFeature(["i0", "i1", "i2"], "v", tf.int64, [2, 3, 4])}
        return tf.parse_example(serialized, features)

    _compare(tf1, build)


def test_sparse_feature_single_example_like_tf(tf1, serialized):
    for record in serialized:

        def build(tf, record=record):
            features = {
                "sp": tf.SparseFeature(["idx"], "s", tf.string, [13]),
                "sp_2d": tf.SparseFeature(["idx", "i1"], "val", tf.float32, [13, 3]),
                "val": tf.VarLenFeature(tf.float32),
                "d": tf.FixedLenFeature([], tf.int64, default_value=0),
            }
            return tf.parse_single_example(record, features)

        _compare(tf1, build)


def test_sparse_feature_fed_batch_like_tf(tf1, serialized):
    def build(tf):
        features = {"sp": tf.SparseFeature("idx", "val", tf.float32, 13)}
        placeholder = tf.placeholder_with_default(serialized, [None])
        return tf.parse_example(placeholder, features)

    _compare(tf1, build)


def test_sparse_feature_lengths_that_differ_fail_when_run(tf1):
    serialized = [_example(tf1, idx=[1, 2], val=[1.0])]
    for lib in (ff, tf1):
        with lib.Graph().as_default():
            out = lib.parse_example(
                serialized, {"sp": lib.SparseFeature("idx", "val", lib.float32, 5)}
            )
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError):
                sess.run(out)


def _error(lib, build):
    with lib.Graph().as_default(), pytest.raises(Exception) as info:
        build(lib)
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize(
    "features",
    [
        lambda tf: {"a": tf.SparseFeature(None, "v", tf.float32, 3)},
        lambda tf: {"a": tf.SparseFeature([], "v", tf.float32, 3)},
        lambda tf: {"a": tf.SparseFeature("i", "", tf.float32, 3)},
        lambda tf: {"a": tf.SparseFeature("i", "v", None, 3)},
        lambda tf: {
            "a": tf.SparseFeature("i", "v", tf.float32, 3),
            "i": tf.VarLenFeature(tf.string),
        },
        lambda tf: {
            "a": tf.SparseFeature("i", "v", tf.float32, 3),
            "b": tf.SparseFeature("j", "v", tf.int64, 3),
        },
        lambda tf: {
            "a": tf.SparseFeature("i", "v", tf.float32, 3),
            "i": tf.FixedLenFeature([], tf.int64),
        },
        lambda tf: {"a": tf.SparseFeature("i", "v", tf.float64, 3)},
        lambda tf: {"a": tf.SparseFeature("i", "v", tf.float32, [3])},
        lambda tf: {"a": tf.SparseFeature(["i"], "v", tf.float32, 3)},
        lambda tf: {"a": tf.SparseFeature(["i", "j"], "v", tf.float32, [3])},
    ],
)
def test_sparse_feature_errors_match_tf(tf1, features):
    def build(tf):
        return tf.parse_example(["x"], features(tf))

    assert _error(ff, build) == _error(tf1, build)


def test_sparse_feature_not_in_sequence_examples(tf1):
    def build(tf):
        return tf.parse_single_sequence_example(
            "x", context_features={"a": tf.SparseFeature("i", "v", tf.float32, 3)}
        )

    assert _error(ff, build) == _error(tf1, build)


def test_sparse_feature_config(tf1):
    ours = ff.SparseFeature(["a", "b"], "v", ff.int64, [2, 3])
    theirs = tf1.SparseFeature(["a", "b"], "v", tf1.int64, [2, 3])
    assert ours._fields == theirs._fields
    assert repr(ours) == repr(theirs)
    assert ff.SparseFeature("a", "v", ff.string, 4, True).already_sorted
    assert ff.SparseFeature.__doc__


# ---------------------------------------------------------------------------
# make_tensor_proto / make_ndarray.


def _protos(tf1, args, kwargs):
    """Both libraries' protos (dtype names resolved per library), or their errors."""
    out = []
    for lib in (ff, tf1):
        kw = {
            k: getattr(lib, v) if k == "dtype" and isinstance(v, str) else v
            for k, v in kwargs.items()
        }
        try:
            out.append(lib.make_tensor_proto(*args, **kw))
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out


VALUES = {
    "int": (5,),
    "big_int": (2**40,),
    "neg_list": ([-1, 2, -3],),
    "float": (1.5,),
    "nested": ([[1.0, 2.0], [3.0, 4.5]],),
    "bool": (True,),
    "bools": ([[True, False], [False, True]],),
    "str": ("héllo",),
    "bytes_with_nul": (b"\x00a\x00",),
    "strs": ([["a", "bc"], ["", "d"]],),
    "empty": ([],),
    "empty_nested": ([[], []],),
    "bytearray": (bytearray(b"abc"),),
    "tuple": ((1, 2),),
}
for _name, _dtype in [
    ("f16", np.float16),
    ("f32", np.float32),
    ("f64", np.float64),
    ("i8", np.int8),
    ("i16", np.int16),
    ("i32", np.int32),
    ("i64", np.int64),
    ("u8", np.uint8),
    ("u16", np.uint16),
    ("u32", np.uint32),
    ("u64", np.uint64),
    ("b", np.bool_),
]:
    VALUES[f"np_{_name}"] = (np.array([[1, 0, 3], [4, 5, 6]]).astype(_dtype),)
    VALUES[f"np_{_name}_scalar"] = (_dtype(1),)
    VALUES[f"np_{_name}_one"] = (np.array([3]).astype(_dtype),)
VALUES["np_unicode"] = (np.array(["a", "bé"]),)
VALUES["np_bytes"] = (np.array([b"a", b"bc"]),)
VALUES["np_object"] = (np.array([b"a", "b"], dtype=object),)

CALLS = {f"value_{k}": (v, {}) for k, v in VALUES.items()}
CALLS.update(
    {
        "dtype_float_list": (([1, 2],), {"dtype": "float32"}),
        "dtype_int64": ((1,), {"dtype": "int64"}),
        "dtype_float16_list": (([1.5, 2.0],), {"dtype": "float16"}),
        "dtype_float16": ((1.5,), {"dtype": "float16"}),
        "dtype_bfloat16": (([1.5, 2.0, 3.0],), {"dtype": "bfloat16"}),
        "dtype_bfloat16_scalar": ((1.5,), {"dtype": "bfloat16"}),
        "dtype_uint8_wraps": (([1, 300],), {"dtype": "uint8"}),
        "dtype_string": ((["a", b"b"],), {"dtype": "string"}),
        "dtype_bool": (([True],), {"dtype": "bool"}),
        "dtype_np_array": ((np.array([1.7, 2.2]),), {"dtype": "int32"}),
        "dtype_name": (([1, 2],), {"dtype": "float64"}),
        "shape_fill": ((7,), {"shape": [2, 3]}),
        "shape_partial": (([1, 2],), {"shape": [3]}),
        "shape_same": (([[1, 2], [3, 4]],), {"shape": [4]}),
        "shape_zero": (([1, 2],), {"shape": [0, 2]}),
        "shape_string": ((["a"],), {"shape": [3]}),
        "verify_ok": (([1, 2],), {"shape": [2], "verify_shape": True}),
        "broadcast_scalar": ((3.0,), {"shape": [2, 2], "allow_broadcast": True}),
        "broadcast_one": (([3.0],), {"shape": [2, 2], "allow_broadcast": True}),
        "broadcast_same": (([1.0, 2.0],), {"shape": [1, 2], "allow_broadcast": True}),
        # Errors.
        "err_none": ((None,), {}),
        "err_float_as_int": (([1.5],), {"dtype": "int32"}),
        "err_str_as_int": (("a",), {"dtype": "int32"}),
        "err_int_as_string": (([1, 2],), {"dtype": "string"}),
        "err_np_as_string": ((np.array([1, 2]),), {"dtype": "string"}),
        "err_int_as_bool": (([1],), {"dtype": "bool"}),
        "err_too_many": (([1, 2, 3],), {"shape": [2]}),
        "err_verify": (([1, 2],), {"shape": [1, 2], "verify_shape": True}),
        "err_broadcast": (([1.0, 2.0],), {"shape": [3], "allow_broadcast": True}),
        "err_both": (([1.0],), {"verify_shape": True, "allow_broadcast": True}),
        "err_mixed": (([1, "a"],), {}),
        "err_ragged_lists": (([[1, 2], [3]],), {}),
    }
)


@pytest.mark.parametrize("case", sorted(CALLS))
def test_make_tensor_proto_like_tf(tf1, case):
    args, kwargs = CALLS[case]
    ours, theirs = _protos(tf1, args, kwargs)
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple), ours
        assert ours[0] == theirs[0]
        if case != "err_ragged_lists":  # numpy's message, which names the object
            assert ours[1] == theirs[1]
        return
    assert type(ours).__name__ == "TensorProto"
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
    ours_array, theirs_array = ff.make_ndarray(ours), tf1.make_ndarray(theirs)
    assert ours_array.dtype == theirs_array.dtype
    assert ours_array.shape == theirs_array.shape
    np.testing.assert_array_equal(ours_array, theirs_array)


def test_make_tensor_proto_of_a_tensor_is_a_type_error(tf1):
    for lib in (ff, tf1):
        with lib.Graph().as_default():
            with pytest.raises(TypeError, match="Expected any non-tensor type"):
                lib.make_tensor_proto(lib.constant(1.0))
            with pytest.raises(TypeError, match="Expected float32, but got"):
                lib.make_tensor_proto(lib.constant(1.0), dtype=lib.float32)


def test_make_tensor_proto_returns_a_proto_unchanged():
    proto = ff.make_tensor_proto([1, 2])
    assert ff.make_tensor_proto(proto, dtype=ff.string, shape=[7]) is proto


@pytest.mark.parametrize(
    "fields",
    [
        {"dtype": 3, "shape": [3], "int_val": [1, 2]},  # padded with the last value
        {"dtype": 3, "shape": [2, 2], "int_val": []},  # zeros
        {"dtype": 7, "shape": [3], "string_val": [b"a"]},
        {"dtype": 7, "shape": [2], "string_val": []},
        {"dtype": 1, "shape": [2], "float_val": [1.5]},
        {"dtype": 2, "shape": [], "double_val": [2.5]},
        {"dtype": 9, "shape": [2], "int64_val": [2**40, -1]},
        {"dtype": 10, "shape": [3], "bool_val": [True, False]},
        {"dtype": 19, "shape": [2], "half_val": [15360]},
        {"dtype": 14, "shape": [1], "half_val": [16256]},
        {"dtype": 22, "shape": [2], "uint32_val": [2**32 - 1]},
        {"dtype": 23, "shape": [1], "uint64_val": [2**64 - 1]},
        {"dtype": 4, "shape": [2], "int_val": [255, 7]},
        {"dtype": 6, "shape": [2], "int_val": [-128, 7]},
        {"dtype": 17, "shape": [2], "int_val": [65535]},
        {"dtype": 1, "shape": [2], "tensor_content": np.array([1, 2], np.float32).tobytes()},
    ],
)
def test_make_ndarray_of_tf_protos(tf1, fields):
    from tensorflow.core.framework import tensor_pb2, tensor_shape_pb2

    fields = dict(fields)
    shape = tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in fields.pop("shape")]
    )
    theirs = tensor_pb2.TensorProto(tensor_shape=shape, **fields)
    ours = ff.protos.TensorProto.FromString(theirs.SerializeToString())
    expected = tf1.make_ndarray(theirs)
    for got in (ff.make_ndarray(ours), ff.make_ndarray(theirs)):
        assert got.dtype == expected.dtype
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


def test_make_ndarray_of_an_unknown_dtype_is_a_type_error():
    proto = ff.protos.TensorProto(dtype=11)  # qint8: ferroflow has no quantized dtypes
    with pytest.raises(TypeError, match="Unsupported tensor type"):
        ff.make_ndarray(proto)


def test_round_trip_through_a_constant():
    proto = ff.make_tensor_proto(np.arange(6, dtype=np.int64).reshape(2, 3))
    with ff.Graph().as_default(), ff.Session() as sess:
        value = sess.run(ff.constant(ff.make_ndarray(proto)))
    np.testing.assert_array_equal(value, np.arange(6).reshape(2, 3))
