"""Our .proto files against TensorFlow's wire format.

Every field of every ferroflow message must exist in TensorBoard's compiled copy of
TensorFlow's protos (same number, type and label), so our bytes parse as TF's and
theirs as ours; enums must agree value for value.
"""

import ast
import importlib
import pathlib

import pytest
from google.protobuf.message import Message

import ferroflow as ff
from ferroflow import protos

TB_MODULES = [
    "types_pb2",
    "tensor_shape_pb2",
    "resource_handle_pb2",
    "tensor_pb2",
    "attr_value_pb2",
    "node_def_pb2",
    "versions_pb2",
    "graph_pb2",
    "config_pb2",
    "allocation_description_pb2",
    "tensor_description_pb2",
    "step_stats_pb2",
    "histogram_pb2",
    "summary_pb2",
    "event_pb2",
    "op_def_pb2",
    "saver_pb2",
    "meta_graph_pb2",
    "variable_pb2",
    "cluster_pb2",
    "rpc_options_pb2",
]


def _tensorboard_descriptors():
    pool = {}
    for name in TB_MODULES:
        try:
            mod = importlib.import_module(f"tensorboard.compat.proto.{name}")
        except ImportError:
            pytest.skip("tensorboard is not installed")
        for msg in mod.DESCRIPTOR.message_types_by_name.values():
            stack = [msg]
            while stack:
                m = stack.pop()
                pool[m.full_name.removeprefix("tensorboard.")] = m
                stack.extend(m.nested_types)
        for enum in mod.DESCRIPTOR.enum_types_by_name.values():
            pool[enum.full_name.removeprefix("tensorboard.")] = enum
    return pool


# Messages TensorBoard does not compile: compared with TensorFlow's own descriptors
# (skipped where TensorFlow is not installed): our name -> (TF module, TF name).
# Our `Code` is TF's `error.Code`.
TF_ONLY = {
    "QueueRunnerDef": ("tensorflow.core.protobuf.queue_runner_pb2", "QueueRunnerDef"),
    "Code": ("tensorflow.core.protobuf.queue_runner_pb2", "error.Code"),
    "BundleHeaderProto": ("tensorflow.core.protobuf.tensor_bundle_pb2", "BundleHeaderProto"),
    "BundleEntryProto": ("tensorflow.core.protobuf.tensor_bundle_pb2", "BundleEntryProto"),
    "CheckpointState": ("tensorflow.python.training.checkpoint_state_pb2", "CheckpointState"),
    "TensorSliceProto": ("tensorflow.core.framework.tensor_slice_pb2", "TensorSliceProto"),
    "TensorSliceProto.Extent": (
        "tensorflow.core.framework.tensor_slice_pb2",
        "TensorSliceProto.Extent",
    ),
    "BytesList": ("tensorflow.core.example.feature_pb2", "BytesList"),
    "FloatList": ("tensorflow.core.example.feature_pb2", "FloatList"),
    "Int64List": ("tensorflow.core.example.feature_pb2", "Int64List"),
    "Feature": ("tensorflow.core.example.feature_pb2", "Feature"),
    "Features": ("tensorflow.core.example.feature_pb2", "Features"),
    "Features.FeatureEntry": ("tensorflow.core.example.feature_pb2", "Features.FeatureEntry"),
    "FeatureList": ("tensorflow.core.example.feature_pb2", "FeatureList"),
    "FeatureLists": ("tensorflow.core.example.feature_pb2", "FeatureLists"),
    "FeatureLists.FeatureListEntry": (
        "tensorflow.core.example.feature_pb2",
        "FeatureLists.FeatureListEntry",
    ),
    "Example": ("tensorflow.core.example.example_pb2", "Example"),
    "SequenceExample": ("tensorflow.core.example.example_pb2", "SequenceExample"),
    "RewriterConfig": ("tensorflow.core.protobuf.rewriter_config_pb2", "RewriterConfig"),
    "RewriterConfig.CustomGraphOptimizer": (
        "tensorflow.core.protobuf.rewriter_config_pb2",
        "RewriterConfig.CustomGraphOptimizer",
    ),
    "RewriterConfig.CustomGraphOptimizer.ParameterMapEntry": (
        "tensorflow.core.protobuf.rewriter_config_pb2",
        "RewriterConfig.CustomGraphOptimizer.ParameterMapEntry",
    ),
    "AutoParallelOptions": ("tensorflow.core.protobuf.rewriter_config_pb2", "AutoParallelOptions"),
    "ScopedAllocatorOptions": (
        "tensorflow.core.protobuf.rewriter_config_pb2",
        "ScopedAllocatorOptions",
    ),
    "VerifierConfig": ("tensorflow.core.protobuf.verifier_config_pb2", "VerifierConfig"),
}

# The distributed runtime's files (TensorBoard compiles none of them): every message
# of ours from these files is compared with TensorFlow's.
TF_FILES = {
    "ferroflow/proto/tensorflow_server.proto": "tensorflow.core.protobuf.tensorflow_server_pb2",
    "ferroflow/proto/device_attributes.proto": "tensorflow.core.framework.device_attributes_pb2",
    "ferroflow/proto/named_tensor.proto": "tensorflow.core.protobuf.named_tensor_pb2",
    "ferroflow/proto/saved_model.proto": "tensorflow.core.protobuf.saved_model_pb2",
    "ferroflow/proto/saved_tensor_slice.proto": "tensorflow.core.util.saved_tensor_slice_pb2",
}
for _f in protos._FDS.file:
    if _f.name in TF_FILES:
        _stack = [(m.name, m) for m in _f.message_type]
        while _stack:
            _name, _m = _stack.pop()
            TF_ONLY[_name] = (TF_FILES[_f.name], _name)
            _stack.extend((f"{_name}.{n.name}", n) for n in _m.nested_type)

# TensorFlow's Python package does not ship master_pb2/worker_pb2: their messages are
# checked against the field numbers spec/distributed.md §1.2-1.3 records (observed on
# the wire against TF 2.15), the odd ones included.
SPEC_FIELD_NUMBERS = {
    "CreateSessionRequest": {"graph_def": 1, "config": 2, "target": 3},
    "CreateSessionResponse": {"session_handle": 1, "graph_version": 2},
    "ExtendSessionRequest": {"session_handle": 1, "graph_def": 2, "current_graph_version": 3},
    "ExtendSessionResponse": {"new_graph_version": 4},
    "RunStepRequest": {
        "session_handle": 1,
        "feed": 2,
        "fetch": 3,
        "target": 4,
        "options": 5,
        "partial_run_handle": 6,
        "store_errors_in_response_body": 7,
        "request_id": 8,
    },
    "RunStepResponse": {"tensor": 1, "metadata": 2, "status_code": 3, "status_error_message": 4},
    "PartialRunSetupRequest": {
        "session_handle": 1,
        "feed": 2,
        "fetch": 3,
        "target": 4,
        "request_id": 5,
    },
    "PartialRunSetupResponse": {"partial_run_handle": 1},
    "CloseSessionRequest": {"session_handle": 1},
    "ResetRequest": {"container": 1, "device_filters": 2},
    "ListDevicesRequest": {"session_handle": 1},
    "ListDevicesResponse": {"local_device": 1, "remote_device": 2},
    "MakeCallableRequest": {"session_handle": 1, "options": 2, "request_id": 3},
    "MakeCallableResponse": {"handle": 1},
    "RunCallableRequest": {"session_handle": 1, "handle": 2, "feed": 3, "request_id": 4},
    "RunCallableResponse": {"fetch": 1, "metadata": 2},
    "ReleaseCallableRequest": {"session_handle": 1, "handle": 2},
    "GetStatusResponse": {"device_attributes": 1},
    "CreateWorkerSessionRequest": {
        "session_handle": 1,
        "server_def": 2,
        "isolate_session_state": 3,
        "cluster_device_attributes": 4,
        "master_task": 5,
        "master_incarnation": 6,
    },
    "DeleteWorkerSessionRequest": {"session_handle": 1},
    "RegisterGraphRequest": {
        "session_handle": 1,
        "graph_def": 2,
        "has_control_flow": 3,
        "graph_options": 4,
        "debug_options": 5,
        "create_worker_session_called": 6,
        "collective_graph_key": 7,
        "config_proto": 8,
    },
    "RegisterGraphResponse": {"graph_handle": 1},
    "DeregisterGraphRequest": {
        "graph_handle": 1,
        "session_handle": 2,
        "create_worker_session_called": 3,
    },
    "RunGraphRequest": {
        "graph_handle": 1,
        "step_id": 2,
        "send": 3,
        "recv_key": 4,
        "exec_opts": 5,
        "is_partial": 6,
        "is_last_partial_run": 7,
        "session_handle": 8,
        "store_errors_in_response_body": 9,
        "create_worker_session_called": 10,
        "request_id": 11,
    },
    "ExecutorOpts": {
        "record_costs": 1,
        "record_timeline": 3,
        "record_partition_graphs": 4,
        "report_tensor_allocations_upon_oom": 5,
    },
    "RunGraphResponse": {
        "recv": 1,
        "step_stats": 2,
        "cost_graph": 3,
        "partition_graph": 4,
        "status_code": 5,
        "status_error_message": 6,
    },
    "CleanupGraphRequest": {"step_id": 1},
    "CleanupAllRequest": {"container": 1},
    "RecvTensorRequest": {
        "step_id": 1,
        "rendezvous_key": 2,
        "dma_ok": 3,
        "client_locality": 4,
        "server_locality": 5,
        "transport_options": 6,
        "request_id": 7,
    },
    "RecvTensorResponse": {
        "tensor": 1,
        "is_dead": 2,
        "send_start_micros": 3,
        "transport_options": 4,
        "require_ack": 5,
    },
    "MarkRecvFinishedRequest": {"request_id": 1},
    "LoggingRequest": {
        "enable_rpc_logging": 1,
        "clear": 2,
        "fetch_step_id": 3,
        "disable_rpc_logging": 4,
    },
}
SPEC_ONLY_FILES = ("ferroflow/proto/master.proto", "ferroflow/proto/worker.proto")

# Submessages ferroflow relays without reading them, kept as bytes under TF's number
# (the same wire type as a message): (message, field).
# ferroflow's own settings, at numbers TF leaves unused (docs/distributed.md).
FERROFLOW_FIELDS = {
    ("RPCOptions", "max_receive_message_size"),
    ("RPCOptions", "stalled_request_timeout_in_ms"),
}
RELAYED_AS_BYTES = {
    ("RegisterGraphRequest", "debug_options"),
    ("RunGraphResponse", "cost_graph"),
    ("RecvTensorRequest", "transport_options"),
    ("RecvTensorResponse", "transport_options"),
}


def _tensorflow_descriptor(ours_name):
    module_name, name = TF_ONLY[ours_name]
    module = pytest.importorskip(module_name)
    if name == "error.Code":
        qr = module.QueueRunnerDef.DESCRIPTOR
        return qr.fields_by_name["queue_closed_exception_types"].enum_type
    pool = module.DESCRIPTOR.pool
    full = f"tensorflow.{name}"
    try:
        return pool.FindMessageTypeByName(full)
    except KeyError:
        return pool.FindEnumTypeByName(full)


def _ours():
    out = {}
    for f in protos._FDS.file:
        fd = protos._POOL.FindFileByName(f.name)
        for msg in fd.message_types_by_name.values():
            stack = [msg]
            while stack:
                m = stack.pop()
                out[m.full_name.removeprefix("ferroflow.proto.")] = m
                stack.extend(m.nested_types)
        for enum in fd.enum_types_by_name.values():
            out[enum.full_name.removeprefix("ferroflow.proto.")] = enum
    return out


def test_master_and_worker_messages_have_tfs_field_numbers():
    ours = {
        m.name: m
        for f in protos._FDS.file
        if f.name in SPEC_ONLY_FILES
        for m in protos._POOL.FindFileByName(f.name).message_types_by_name.values()
    }
    for name, fields in SPEC_FIELD_NUMBERS.items():
        got = {f.name: f.number for f in ours[name].fields}
        assert got == fields, name
    # TF's error code enum in the status fields (the same numbers as gRPC's).
    assert (
        ours["RunStepResponse"].fields_by_name["status_code"].enum_type.full_name
        == "ferroflow.proto.Code"
    )


def test_every_field_matches_tensorflow():
    theirs = _tensorboard_descriptors()
    ours = _ours()
    assert len(ours) > 20
    spec_only = {
        m.full_name.removeprefix("ferroflow.proto.")
        for f in protos._FDS.file
        if f.name in SPEC_ONLY_FILES
        for m in protos._POOL.FindFileByName(f.name).message_types_by_name.values()
    }
    for name, desc in ours.items():
        if name in TF_ONLY or name.split(".")[0] in spec_only:
            continue
        assert name in theirs, f"{name} is not a TensorFlow message"
        _check_same(name, desc, theirs[name])


@pytest.mark.parametrize("name", sorted(TF_ONLY))
def test_messages_outside_tensorboard_match_tensorflow(name):
    _check_same(name, _ours()[name], _tensorflow_descriptor(name))


def _check_same(name, desc, ref):
    """`desc` (ours) has `ref`'s enum values, or its fields by number, name and type."""
    if hasattr(desc, "values_by_number"):
        for number, value in desc.values_by_number.items():
            assert ref.values_by_number[number].name == value.name, (name, number)
        return
    for field in desc.fields:
        if (name, field.name) in FERROFLOW_FIELDS:
            # Ours alone: TF must not use the number (its parsers keep it as unknown).
            assert field.number not in ref.fields_by_number, (name, field.number)
            continue
        assert field.number in ref.fields_by_number, f"{name}.{field.name}"
        other = ref.fields_by_number[field.number]
        assert other.name == field.name, (name, field.number)
        if (name, field.name) in RELAYED_AS_BYTES:
            assert field.type == field.TYPE_BYTES and other.type == other.TYPE_MESSAGE
            continue
        assert other.type == field.type, (name, field.name)
        assert other.is_repeated == field.is_repeated, (name, field.name)
        if field.enum_type is not None:  # nested enums too (BundleHeaderProto.Endianness)
            _check_same(field.enum_type.full_name, field.enum_type, other.enum_type)


def test_graph_def_round_trips_through_tensorboard_protos():
    graph_pb2 = pytest.importorskip("tensorboard.compat.proto.graph_pb2")
    ff.placeholder(ff.float32, [None, 3], name="x")
    ff.constant([[1.0, 2.0]], name="c")
    ours = ff.get_default_graph().as_graph_def()
    theirs = graph_pb2.GraphDef.FromString(ours.SerializeToString())
    assert [n.name for n in theirs.node] == ["x", "c"]
    assert theirs.node[0].attr["shape"].shape.dim[0].size == -1
    back = protos.GraphDef.FromString(theirs.SerializeToString())
    assert back == ours


def test_config_proto_fields():
    c = ff.ConfigProto(
        inter_op_parallelism_threads=3,
        allow_soft_placement=True,
        gpu_options=ff.GPUOptions(allow_growth=True),
    )
    c.device_count["GPU"] = 0
    config_pb2 = pytest.importorskip("tensorboard.compat.proto.config_pb2")
    t = config_pb2.ConfigProto.FromString(c.SerializeToString())
    assert t.inter_op_parallelism_threads == 3 and t.gpu_options.allow_growth
    assert dict(t.device_count) == {"GPU": 0}


def test_event_bytes_match_tensorflow():
    # formats.md 5.2, example 5: a scalar event as TensorFlow serializes it.
    s = protos.Summary(value=[protos.Summary.Value(tag="loss", simple_value=0.25)])
    e = protos.Event(wall_time=1700000000.5, step=10, summary=s)
    want = "0900002040fc54d941100a2a0d0a0b0a046c6f7373150000803e"
    assert e.SerializeToString().hex() == want
    event_pb2 = pytest.importorskip("tensorboard.compat.proto.event_pb2")
    theirs = event_pb2.Event.FromString(bytes.fromhex(want))
    assert theirs.summary.value[0].simple_value == 0.25
    log = protos.SessionLog(status=protos.SessionLog.CHECKPOINT, checkpoint_path="m.ckpt-3")
    back = event_pb2.Event.FromString(protos.Event(step=3, session_log=log).SerializeToString())
    assert back.session_log.status == event_pb2.SessionLog.CHECKPOINT
    assert back.session_log.checkpoint_path == "m.ckpt-3"


def test_the_type_stub_names_every_message_class():
    # `protos/__init__.pyi` (what type checkers read) must list what `__init__.py` builds.
    stub = ast.parse((pathlib.Path(protos.__file__).parent / "__init__.pyi").read_text())
    classes = {n.name for n in stub.body if isinstance(n, ast.ClassDef)}
    public = {name for name in classes if not name.startswith("_")}
    assert public | {"DataType"} == set(protos.__all__)
    for name in public:
        assert issubclass(getattr(protos, name), Message), name


def test_top_level_messages_are_tf1s(tf1):
    """Every message class TF 1.x exports at top level (`tf.NodeDef`, ...) is exported."""
    names = [
        name
        for name in dir(tf1)
        if not name.startswith("_") and hasattr(getattr(tf1, name), "DESCRIPTOR")
    ]
    assert "NodeDef" in names
    for name in names:
        ours = getattr(ff, name)
        assert issubclass(ours, Message), name
        assert ours.DESCRIPTOR.name == getattr(tf1, name).DESCRIPTOR.name
        assert name in ff.__all__
    assert ff.NodeDef(name="a", op="NoOp").SerializeToString() == (
        tf1.NodeDef(name="a", op="NoOp").SerializeToString()
    )
