"""`decode_json_example`, `parse_tensor`/`serialize_tensor` and `decode_raw` with
`fixed_length` (`DecodePaddedRaw`), against TensorFlow on the same inputs."""

import numpy as np
import pytest
from google.protobuf import json_format
from tests.conftest import run_ff, run_tf

import ferroflow as ff
from ferroflow.protos import Example


def _example(**features):
    e = Example()
    for name, (kind, values) in features.items():
        getattr(e.features.feature[name], kind).value.extend(values)
    return e


EXAMPLES = [
    _example(),
    _example(a=("float_list", [1.0, -2.5, float("inf")])),
    _example(b=("int64_list", [3, -(2**62), 0]), c=("bytes_list", [b"hi", b"\x00\xff\xfe"])),
]


def test_decode_json_example_matches_tensorflow(tf1):
    jsons = [json_format.MessageToJson(e) for e in EXAMPLES]
    # Both spellings of the field names and ints as JSON numbers are accepted too.
    jsons.append('{"features": {"feature": {"x": {"int64_list": {"value": [7, "8"]}}}}}')
    shaped = np.array(jsons, dtype=object).reshape(2, 2)

    def build(tf):
        return tf.decode_json_example(tf.constant(shaped))

    got, want = run_ff(build), run_tf(tf1, build)
    assert got.shape == want.shape == (2, 2)
    for a, b in zip(got.flatten(), want.flatten(), strict=True):
        assert Example.FromString(a) == Example.FromString(b)


@pytest.mark.parametrize("text", ["{]", '{"featurez": {}}', '{"features": 3}'])
def test_decode_json_example_rejects_bad_json_as_tensorflow(tf1, text):
    def build(tf):
        return tf.decode_json_example(tf.constant([text]))

    with pytest.raises(tf1.errors.InvalidArgumentError):
        run_tf(tf1, build)
    with pytest.raises(ff.errors.InvalidArgumentError, match="Error while parsing JSON"):
        run_ff(build)


@pytest.mark.parametrize(
    "value",
    [
        np.arange(24, dtype=np.float32).reshape(2, 3, 4),
        np.array([[1, 2], [3, 4]], dtype=np.uint8),
        np.array([b"a", b"bc", b""], dtype=object),
        np.array(7, dtype=np.int64),
    ],
)
def test_serialize_and_parse_tensor_round_trip_as_tensorflow(tf1, value):
    dtype = ff.as_dtype(value.dtype) if value.dtype != object else ff.string

    def build(tf):
        serialized = tf.serialize_tensor(tf.constant(value))
        return [serialized, tf.parse_tensor(serialized, dtype.name)]

    (ours, parsed), (theirs, tf_parsed) = run_ff(build), run_tf(tf1, build)
    np.testing.assert_array_equal(parsed, value)
    np.testing.assert_array_equal(tf_parsed, value)
    # Each side parses the other's serialization.
    np.testing.assert_array_equal(run_ff(lambda tf: tf.parse_tensor(theirs, dtype.name)), value)
    np.testing.assert_array_equal(run_tf(tf1, lambda tf: tf.parse_tensor(ours, dtype.name)), value)


def test_parse_tensor_errors_match_tensorflow():
    proto = ff.make_tensor_proto(np.zeros((2,), np.uint8)).SerializeToString()
    mismatch = r"Type mismatch .*\(uint8\).*\(uint16\)"
    with pytest.raises(ff.errors.InvalidArgumentError, match=mismatch):
        run_ff(lambda tf: tf.parse_tensor(proto, tf.uint16))
    with pytest.raises(ff.errors.InvalidArgumentError, match="Could not parse `serialized`"):
        run_ff(lambda tf: tf.parse_tensor(b"bogus", tf.uint16))
    with pytest.raises(ValueError, match="rank"):
        run_ff(lambda tf: tf.parse_tensor([proto], tf.uint8))


@pytest.mark.parametrize(("out_type", "fixed_length"), [("uint8", 5), ("int16", 4), ("float32", 8)])
def test_decode_raw_fixed_length_matches_tensorflow(tf1, out_type, fixed_length):
    words = [b"ab", b"\x01\x02\x03\x04\x05\x06\x07\x08\x09", b"", b"wxyz"]
    from tensorflow.python.ops import parsing_ops as tf_parsing_ops

    want = run_tf(
        tf1,
        lambda tf: tf_parsing_ops.decode_raw(
            tf.constant(words), out_type, fixed_length=fixed_length, little_endian=False
        ),
    )
    got = run_ff(
        lambda tf: tf.io.decode_raw(
            tf.constant(words), out_type, fixed_length=fixed_length, little_endian=False
        )
    )
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_decode_raw_fixed_length_must_be_a_multiple_of_the_type_size():
    message = r"fixed_length \(3\) must be a multiple"
    with pytest.raises(ff.errors.InvalidArgumentError, match=message):
        run_ff(lambda tf: tf.io.decode_raw(tf.constant([b"abc"]), tf.int16, fixed_length=3))
