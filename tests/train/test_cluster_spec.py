"""`tf.train.ClusterSpec` and `_make_server_def`, with TensorFlow's as the oracle.

The protos are ours (package `ferroflow.proto`) but carry TF's field numbers, so
the same cluster serializes (deterministically) to the same bytes.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroflow as ff
from ferroflow.train import server_lib

FAST = settings(max_examples=150, deadline=None, database=None)


@pytest.fixture(scope="module")
def tfsl():
    """TensorFlow's `server_lib` module (`ClusterSpec`, `_make_server_def`, protos)."""
    pytest.importorskip("tensorflow.compat.v1")
    from tensorflow.python.training import server_lib as tf_server_lib

    return tf_server_lib


def wire(message) -> bytes:
    return message.SerializeToString(deterministic=True)


def summary(spec):
    """Everything a ClusterSpec answers, as comparable plain values (errors included)."""
    out = {
        "repr": repr(spec),
        "str": str(spec),
        "bool": bool(spec),
        "nonzero": spec.__nonzero__(),
        "jobs": spec.jobs,
        "as_dict": spec.as_dict(),
        "def": wire(spec.as_cluster_def()),
    }
    for job in [*spec.jobs, "nope"]:
        for method in ("num_tasks", "task_indices", "job_tasks"):
            out[(method, job)] = outcome(getattr(spec, method), job)
        for index in range(-1, 6):
            out[("task_address", job, index)] = outcome(spec.task_address, job, index)
    return out


def outcome(fn, *args):
    """`fn(*args)`, or the exception's class name and message."""
    try:
        return ("value", fn(*args))
    except Exception as e:
        return ("raise", type(e).__name__, str(e))


def both(tfsl, cluster_of):
    """`(ours, TF's)` summary (or error) of `ClusterSpec(cluster_of(lib))`."""
    ours = outcome(lambda: summary(ff.train.ClusterSpec(cluster_of(ff))))
    theirs = outcome(lambda: summary(tfsl.ClusterSpec(cluster_of(tfsl))))
    return ours, theirs


def cluster_def(lib, data: bytes):
    """A `ClusterDef` of `lib` (ferroflow's `tf.train` or TF's `server_lib`) from wire bytes."""
    cls = lib.train.ClusterDef if lib is ff else lib.cluster_pb2.ClusterDef
    return cls.FromString(data)


CLUSTERS = [
    {},
    {"worker": ["w0:2222"]},
    {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"]},
    {"worker": ("w0:1", "w1:1")},
    {"worker": {1: "worker1:2222"}, "ps": ["ps0:2222", "ps1:2222"]},
    {"worker": {"3": "w3:1", 0: "w0:1"}},
    {"worker": {0: "w0:1", 1: "w1:1"}},
    {"chief": ["c:1"], "evaluator": {}, "ps": []},
    {"zz": ["a"], "aa": ["b"], "mm": {7: "c"}},
    {b"ps": [b"ps0:1"], b"worker": [bytearray(b"w0:1")]},
    {"j\u00e9b": ["h\u00f6st:1"]},
    {"local": ["localhost:0"]},
    # Errors: TF's classes and messages.
    {"ps": "ps0:2222"},
    {"ps": 3},
    {"ps": None},
    {"ps": {"x": "a"}},
    {1: ["a"]},
    {None: ["a"]},
    {"ps": [None]},
    {"ps": [1]},
    {"ps": {0: 5}},
    {"ps": ["a"], b"worker": ["b"]},
]


@pytest.mark.tf_oracle
@pytest.mark.parametrize("cluster", CLUSTERS, ids=repr)
def test_dict_matches_tf(tfsl, cluster):
    ours, theirs = both(tfsl, lambda lib: dict(cluster))
    assert ours == theirs


@pytest.mark.tf_oracle
@pytest.mark.parametrize("cluster", [None, ["ps0:1"], "ps", 3, ("a", "b"), {"a"}])
def test_bad_cluster_type_matches_tf(tfsl, cluster):
    ours, theirs = both(tfsl, lambda lib: cluster)
    assert ours == theirs
    assert ours[:2] == ("raise", "TypeError")


@pytest.mark.tf_oracle
@pytest.mark.parametrize("cluster", [c for c in CLUSTERS[:12]], ids=repr)
def test_cluster_def_and_copy_match_tf(tfsl, cluster):
    data = wire(tfsl.ClusterSpec(cluster).as_cluster_def())
    # From a ClusterDef (kept, not copied, as TF), then from another ClusterSpec.
    ours, theirs = both(tfsl, lambda lib: cluster_def(lib, data))
    assert ours == theirs
    for lib, spec_cls in ((ff, ff.train.ClusterSpec), (tfsl, tfsl.ClusterSpec)):
        message = cluster_def(lib, data)
        assert spec_cls(message).as_cluster_def() is message
        copy = spec_cls(spec_cls(message))
        assert copy.as_cluster_def() is not message
        assert wire(copy.as_cluster_def()) == data
    ours, theirs = both(
        tfsl, lambda lib: (ff.train.ClusterSpec if lib is ff else lib.ClusterSpec)(cluster)
    )
    assert ours == theirs


@pytest.mark.tf_oracle
def test_equality_matches_tf(tfsl):
    a = {"ps": ["p0", "p1"], "worker": {1: "w1"}}
    b = {"worker": {1: "w1"}, "ps": ["p0", "p1"]}
    c = {"ps": ["p0"], "worker": {1: "w1"}}
    for lib_spec in (ff.train.ClusterSpec, tfsl.ClusterSpec):
        x, y, z = lib_spec(a), lib_spec(b), lib_spec(c)
        results = [
            x == y,
            x != y,
            x == z,
            x != z,
            x == {"ps": {0: "p0", 1: "p1"}, "worker": {1: "w1"}},
            x == a,
            x != "ps",
            x == lib_spec(x.as_cluster_def()),
            lib_spec({}) == {},
        ]
        assert results == [True, False, False, True, True, False, True, True, True]
        with pytest.raises(TypeError, match="unhashable"):
            hash(x)


@st.composite
def cluster_dicts(draw):
    names = draw(
        st.lists(
            st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=6),
            max_size=4,
            unique=True,
        )
    )
    addresses = st.builds(
        lambda host, port: f"{host}:{port}",
        st.text(alphabet="abcxyz.-0123456789", min_size=1, max_size=8),
        st.integers(0, 65535),
    )
    cluster = {}
    for name in names:
        if draw(st.booleans()):
            cluster[name] = draw(st.lists(addresses, max_size=5))
        else:
            cluster[name] = draw(st.dictionaries(st.integers(0, 12), addresses, max_size=5))
    return cluster


@pytest.mark.tf_oracle
@FAST
@given(cluster_dicts())
def test_random_clusters_match_tf(tfsl, cluster):
    ours, theirs = both(tfsl, lambda lib: cluster)
    assert ours == theirs
    assert ours[0] == "value"
    # Round trips: as_dict and the ClusterDef give the same cluster back.
    spec = ff.train.ClusterSpec(cluster)
    assert ff.train.ClusterSpec(spec.as_dict()) == spec
    assert ff.train.ClusterSpec(spec.as_cluster_def()) == spec


def test_sparse_job_without_oracle():
    spec = ff.train.ClusterSpec({"worker": {1: "w1:2222", 3: "w3:2222"}, "ps": ["p0:1"]})
    assert spec.jobs == ["worker", "ps"]
    assert spec.num_tasks("worker") == 2
    assert spec.task_indices("worker") == [1, 3]
    assert spec.job_tasks("worker") == [None, "w1:2222", None, "w3:2222"]
    assert spec.task_address("worker", 3) == "w3:2222"
    assert spec.as_dict() == {"worker": {1: "w1:2222", 3: "w3:2222"}, "ps": ["p0:1"]}
    assert repr(spec) == "ClusterSpec({'ps': ['p0:1'], 'worker': {1: 'w1:2222', 3: 'w3:2222'}})"
    assert [j.name for j in spec.as_cluster_def().job] == ["ps", "worker"]
    with pytest.raises(ValueError, match="No task with index 0 in job 'worker'"):
        spec.task_address("worker", 0)
    with pytest.raises(ValueError, match="No such job in cluster: 'chief'"):
        spec.num_tasks("chief")
    assert not ff.train.ClusterSpec({})
    assert isinstance(spec.as_cluster_def(), ff.train.ClusterDef)
    assert isinstance(spec.as_cluster_def().job[0], ff.train.JobDef)


# -- _make_server_def ---------------------------------------------------------------------------


def config_bytes(lib_config_cls):
    config = lib_config_cls(inter_op_parallelism_threads=3, allow_soft_placement=True)
    config.device_count["CPU"] = 2
    return wire(config)


def server_def_case(lib, case):
    """`_make_server_def` of `lib` for a case (kind, job_name, task_index, protocol, config)."""
    kind, job_name, task_index, protocol, with_config = case
    ours = lib is ff
    make = server_lib._make_server_def if ours else lib._make_server_def
    spec_cls = ff.train.ClusterSpec if ours else lib.ClusterSpec
    if ours:
        config_cls = ff.ConfigProto
    else:
        from tensorflow.core.protobuf import config_pb2

        config_cls = config_pb2.ConfigProto
    server_def_cls = ff.train.ServerDef if ours else lib.tensorflow_server_pb2.ServerDef
    one = {"worker": ["localhost:2222"]}
    two = {"ps": ["p0:1", "p1:1"], "worker": {3: "w3:1"}}
    if kind == "one_dict":
        arg = one
    elif kind == "two_dict":
        arg = two
    elif kind == "two_spec":
        arg = spec_cls(two)
    elif kind == "two_def":
        arg = cluster_def(lib, wire(spec_cls(two).as_cluster_def()))
    elif kind == "server_def":
        base = server_def_cls(job_name="ps", task_index=1, protocol="grpc+verbs", port=7)
        base.cluster.CopyFrom(spec_cls(two).as_cluster_def())
        base.default_session_config.intra_op_parallelism_threads = 5
        arg = base
    else:
        arg = None if kind == "none" else kind
    config = config_cls.FromString(config_bytes(config_cls)) if with_config else None
    return wire(make(arg, job_name, task_index, protocol, config))


SERVER_DEF_CASES = [
    ("one_dict", None, None, None, False),
    ("one_dict", None, None, "grpc+verbs", True),
    ("one_dict", "worker", 0, None, False),
    ("one_dict", "ps", None, None, False),  # unknown job
    ("one_dict", None, 5, None, False),  # task index not checked
    ("two_dict", None, None, None, False),  # job ambiguous
    ("two_dict", "ps", None, None, False),  # task ambiguous
    ("two_dict", "ps", 1, None, True),
    ("two_dict", "worker", None, None, False),  # the sparse job's only task: 3
    ("two_spec", "ps", 0, "grpc", True),
    ("two_def", "worker", None, None, False),
    ("two_def", None, 0, None, False),
    ("server_def", None, None, None, False),
    ("server_def", "worker", 3, "grpc", True),
    ("server_def", None, 0, None, True),
    ("none", "worker", 0, None, False),
    (["a:1"], "worker", 0, None, False),
    ("a string", "worker", 0, None, False),
]


@pytest.mark.tf_oracle
@pytest.mark.parametrize("case", SERVER_DEF_CASES, ids=repr)
def test_make_server_def_matches_tf(tfsl, case):
    ours = outcome(server_def_case, ff, case)
    theirs = outcome(server_def_case, tfsl, case)
    assert ours == theirs


def test_make_server_def_without_oracle():
    server_def = server_lib._make_server_def(
        {"ps": ["p0:1"], "worker": ["w0:1", "w1:1"]}, "worker", 1, None, ff.ConfigProto()
    )
    assert server_def.job_name == "worker"
    assert server_def.task_index == 1
    assert server_def.protocol == "grpc"
    assert server_def.HasField("default_session_config")
    assert dict(server_def.cluster.job[1].tasks) == {0: "w0:1", 1: "w1:1"}
    with pytest.raises(ValueError, match=r"Must specify an explicit `job_name`\."):
        server_lib._make_server_def({"a": ["x"], "b": ["y"]}, None, None, None, None)
    with pytest.raises(TypeError, match="Could not convert `server_or_cluster_def`"):
        server_lib._make_server_def(None, "a", 0, None, None)
