"""Tests for ferroflow.framework.device, with TensorFlow's DeviceSpecV1 as the oracle."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ferroflow.framework import device as pydev
from ferroflow.framework.device import DeviceSpec

FAST = settings(max_examples=100, deadline=None, database=None)

DEVICE_PARTS = [
    "cpu:0",
    "gpu:1",
    "GPU:*",
    "CPU",
    "gpu",
    "Cpu:1",
    "tpu:0",
    "epu:0",
    "CUSTOM:2",
    "device:CPU:0",
    "device:GPU:*",
    "device:gpu:2",
    "device:cpu:*",
    "device:tpu:1",
    "device:XLA_CPU:0",
]
BAD_PARTS = ["foo:1", "job:a:b", "device:GPU", "gpu:x", "replica:x", "task:", "device:a:b:c"]


@st.composite
def device_strings(draw, allow_bad=True):
    parts = []
    job = draw(st.sampled_from([None, "ps", "worker", "localhost", ""]))
    if job is not None:
        parts.append("job:" + job)
    for field in ("replica", "task"):
        value = draw(st.one_of(st.none(), st.integers(0, 3)))
        if value is not None:
            parts.append(f"{field}:{value}")
    for _ in range(draw(st.integers(0, 2 if allow_bad else 1))):
        parts.append(draw(st.sampled_from(DEVICE_PARTS)))
    if allow_bad and draw(st.integers(0, 9)) == 0:
        parts.append(draw(st.sampled_from(BAD_PARTS)))
    parts = draw(st.permutations(parts))
    lead = draw(st.sampled_from(["/", "", "//"]))
    trail = draw(st.sampled_from(["", "", "/"]))
    return lead + "/".join(parts) + trail


def outcome(fn, *args):
    """A comparable summary of fn(*args): a spec's fields, a value, or the exception."""
    try:
        value = fn(*args)
    except Exception as e:
        return ("raise", type(e).__name__, str(e))
    if hasattr(value, "to_string"):
        return (
            "spec",
            value.to_string(),
            value.job,
            value.replica,
            value.task,
            value.device_type,
            value.device_index,
            repr(value),
        )
    return ("value", value)


class Node:
    """Stands in for an op or NodeDef: only `device` is read."""

    def __init__(self, device):
        self.device = device


@pytest.fixture(scope="module")
def tfdev():
    pytest.importorskip("tensorflow.compat.v1")
    from tensorflow.python.framework import device as tf_device
    from tensorflow.python.framework import device_spec as tf_device_spec

    return tf_device, tf_device_spec.DeviceSpecV1


# -- without the oracle -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("/job:ps/replica:0/task:1/device:GPU:0", "/job:ps/replica:0/task:1/device:GPU:0"),
        ("/gpu:0", "/device:GPU:0"),
        ("/cpu:0", "/device:CPU:0"),
        ("/device:CPU:*", "/device:CPU:*"),
        ("GPU:1", "/device:GPU:1"),
        ("gpu", "/device:GPU:*"),
        ("/device:gpu:0", "/device:GPU:0"),
        ("/device:tpu:1", "/device:tpu:1"),
        ("/task:3/cpu:0", "/task:3/device:CPU:0"),
        ("/job:ps//task:0/", "/job:ps/task:0"),
        ("", ""),
        (None, ""),
    ],
)
def test_canonical_name(spec, canonical):
    assert pydev.canonical_name(spec) == canonical
    assert DeviceSpec.from_string(spec).to_string() == canonical


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("/job:a:b", "Unknown attribute 'job'"),
        ("/foo:1", "Unknown attribute 'foo'"),
        ("/cpu:0/gpu:1", "Multiple device types are not allowed"),
        ("/gpu:x", "invalid literal for int"),
    ],
)
def test_invalid(spec, error):
    with pytest.raises(ValueError, match=error):
        pydev.check_valid(spec)


def test_spec_is_mutable_v1():
    d = DeviceSpec(job="ps", replica=1, task="2", device_type="gpu", device_index="3")
    assert d.to_string() == "/job:ps/replica:1/task:2/device:GPU:3"
    assert d.task == 2
    assert repr(d) == ("<DeviceSpec(job=ps, replica=1, task=2, device_type=GPU, device_index=3)>")
    assert d.merge_from(DeviceSpec.from_string("/job:worker/cpu:0")) is None
    assert d.to_string() == "/job:worker/replica:1/task:2/device:CPU:0"
    d.job = None
    d.device_index = None
    assert d.to_string() == "/replica:1/task:2/device:CPU:*"
    assert hash(d) == hash(d.to_string())
    assert d.parse_from_string("/gpu:1") is d
    assert d.to_string() == "/device:GPU:1"
    assert d == DeviceSpec.from_string("/device:GPU:1")
    assert d != "/device:GPU:1"
    assert pydev.canonical_name(d) == "/device:GPU:1"


def test_v2_is_immutable():
    d = pydev.DeviceSpecV2.from_string("/job:ps/cpu:0")
    with pytest.raises(AttributeError):
        d.job = "x"
    assert d.replace(task=3).to_string() == "/job:ps/task:3/device:CPU:0"
    assert d.make_merged_spec(DeviceSpec(device_type="GPU")).to_string() == "/job:ps/device:GPU:0"


@pytest.mark.parametrize(
    ("outer", "inner", "merged"),
    [
        ("/job:ps", "/gpu:0", "/job:ps/device:GPU:0"),
        ("/job:ps/cpu:0", "/gpu:1", "/job:ps/device:GPU:1"),
        ("/gpu:0", "", "/device:GPU:0"),
        ("/gpu:0", None, "/device:GPU:0"),
        ("", "/cpu:0", "/device:CPU:0"),
        (None, "/cpu:0", "/device:CPU:0"),
        ("/job:w/task:1", "/job:ps", "/job:ps/task:1"),
        ("/device:GPU:*", "/device:GPU:1", "/device:GPU:1"),
        ("/device:GPU:1", "/cpu:*", "/device:CPU:1"),
    ],
)
def test_merge_device(outer, inner, merged):
    fn = pydev.merge_device(outer)
    assert fn(Node(inner)) == merged
    assert fn.shortcut_string_merge(Node(inner)) == merged
    assert fn.is_null_merge == (not outer)
    assert pydev.merge_device(fn) is fn
    assert "(spec: " in repr(fn)


def test_merge_device_snapshots_mutable_spec():
    spec = DeviceSpec.from_string("/job:ps")
    fn = pydev.merge_device(spec)
    spec.job = "worker"
    assert fn(Node("/cpu:0")) == "/job:ps/device:CPU:0"


# -- against TensorFlow --------------------------------------------------------------------------


@pytest.mark.tf_oracle
@FAST
@given(device_strings())
def test_parse_matches_tf(tfdev, spec):
    tf_device, tf_spec_v1 = tfdev
    assert outcome(DeviceSpec.from_string, spec) == outcome(tf_spec_v1.from_string, spec)
    assert outcome(pydev.canonical_name, spec) == outcome(tf_device.canonical_name, spec)
    ours = outcome(lambda s: DeviceSpec().parse_from_string(s), spec)
    assert ours == outcome(lambda s: tf_spec_v1().parse_from_string(s), spec)


@pytest.mark.tf_oracle
@FAST
@given(st.lists(st.one_of(st.none(), device_strings(allow_bad=False)), min_size=1, max_size=4))
def test_nested_device_scopes_match_tf(tfdev, stack):
    # Graph.device() applies each scope's function to the device chosen so far.
    tf_device, _ = tfdev
    ours = theirs = ""
    for spec in stack:
        if spec is None:
            ours = theirs = ""
            continue
        ours = pydev.canonical_name(pydev.merge_device(spec)(Node(ours)))
        theirs = tf_device.canonical_name(tf_device.merge_device(spec)(Node(theirs)))
        assert ours == theirs


@pytest.mark.tf_oracle
@FAST
@given(device_strings(allow_bad=False), device_strings(allow_bad=False))
def test_merge_from_matches_tf(tfdev, a, b):
    _, tf_spec_v1 = tfdev
    ours, theirs = DeviceSpec.from_string(a), tf_spec_v1.from_string(a)
    ours.merge_from(DeviceSpec.from_string(b))
    theirs.merge_from(tf_spec_v1.from_string(b))
    assert outcome(lambda: ours) == outcome(lambda: theirs)
    assert hash(ours) == hash(theirs)
    assert (ours == DeviceSpec.from_string(a)) == (theirs == tf_spec_v1.from_string(a))


@pytest.mark.tf_oracle
@FAST
@given(
    st.sampled_from([None, "ps", 3]),
    st.one_of(st.none(), st.integers(0, 3), st.just("2")),
    st.one_of(st.none(), st.integers(0, 3)),
    st.sampled_from([None, "cpu", "gpu", "GPU", "tpu", "XLA_CPU"]),
    st.one_of(st.none(), st.integers(0, 3), st.just("1")),
)
def test_constructor_matches_tf(tfdev, job, replica, task, device_type, device_index):
    _, tf_spec_v1 = tfdev
    args = (job, replica, task, device_type, device_index)
    assert outcome(DeviceSpec, *args) == outcome(tf_spec_v1, *args)


def test_list_local_devices_cpu_matches_tf():
    """The CPU device's attributes, locality included, as TF's `device_lib` lists them."""
    tf_device_lib = pytest.importorskip("tensorflow.python.client.device_lib")
    from ferroflow.client import device_lib

    ours = device_lib.list_local_devices()
    theirs = [d for d in tf_device_lib.list_local_devices() if d.device_type == "CPU"]
    assert ours[0].device_type == "CPU"
    for field in ("name", "device_type", "memory_limit", "physical_device_desc", "xla_global_id"):
        assert getattr(ours[0], field) == getattr(theirs[0], field), field
    # TF prints the locality message even when empty.
    assert ours[0].HasField("locality") and theirs[0].HasField("locality")
    assert ours[0].locality.SerializeToString() == theirs[0].locality.SerializeToString()
    # A fresh random incarnation for each listing, as TF makes the devices anew.
    assert ours[0].incarnation != device_lib.list_local_devices()[0].incarnation


def test_list_local_devices_locality_of_accelerators():
    """Each accelerator is on a bus numbered from its NUMA node (node + 1), as TF's GPUs."""
    from ferroflow.client import device_lib

    for d in device_lib.list_local_devices():
        if d.device_type != "CPU":
            assert d.locality.numa_node >= 0
            assert d.locality.bus_id == d.locality.numa_node + 1
    hidden = device_lib.list_local_devices(session_config=pydev_config(GPU=0))
    assert hidden[0].device_type == "CPU" and all(d.device_type != "GPU" for d in hidden)


def pydev_config(**counts):
    """A `ConfigProto` with `device_count` set."""
    from ferroflow.protos import ConfigProto

    config = ConfigProto()
    for k, v in counts.items():
        config.device_count[k] = v
    return config
