"""Protocol-buffer message classes (`GraphDef`, `ConfigProto`, `Event`, ...).

The classes are built at import time from the descriptor set compiled into the native
module, in a private descriptor pool: the messages are wire-compatible with
TensorFlow's (same field numbers) but live in the package `ferroflow.proto`, so
ferroflow can be imported beside TensorFlow or TensorBoard in one process.
"""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from .. import _ferroflow

_POOL = descriptor_pool.DescriptorPool()
_FDS = descriptor_pb2.FileDescriptorSet.FromString(_ferroflow.FILE_DESCRIPTOR_SET)
for _file in _FDS.file:
    _POOL.Add(_file)


def _message(name):
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName("ferroflow.proto." + name))


DataType = _POOL.FindEnumTypeByName("ferroflow.proto.DataType")
TensorShapeProto = _message("TensorShapeProto")
TensorProto = _message("TensorProto")
AttrValue = _message("AttrValue")
NameAttrList = _message("NameAttrList")
NodeDef = _message("NodeDef")
VersionDef = _message("VersionDef")
GraphDef = _message("GraphDef")
GPUOptions = _message("GPUOptions")
OptimizerOptions = _message("OptimizerOptions")
RewriterConfig = _message("RewriterConfig")
GraphOptions = _message("GraphOptions")
ThreadPoolOptionProto = _message("ThreadPoolOptionProto")
ConfigProto = _message("ConfigProto")
RunOptions = _message("RunOptions")
RunMetadata = _message("RunMetadata")
StepStats = _message("StepStats")
DeviceStepStats = _message("DeviceStepStats")
NodeExecStats = _message("NodeExecStats")
NodeOutput = _message("NodeOutput")
TensorDescription = _message("TensorDescription")
AllocationDescription = _message("AllocationDescription")
# Event files: `Summary` (with `Summary.Value`, `.Image`, `.Audio`) and the `Event` record.
HistogramProto = _message("HistogramProto")
SummaryDescription = _message("SummaryDescription")
SummaryMetadata = _message("SummaryMetadata")
Summary = _message("Summary")
SourceMetadata = _message("SourceMetadata")
LogMessage = _message("LogMessage")
SessionLog = _message("SessionLog")
TaggedRunMetadata = _message("TaggedRunMetadata")
Event = _message("Event")
QueueRunnerDef = _message("QueueRunnerDef")
CheckpointState = _message("CheckpointState")
SaverDef = _message("SaverDef")
MetaGraphDef = _message("MetaGraphDef")
OpDef = _message("OpDef")
OpList = _message("OpList")
CollectionDef = _message("CollectionDef")
# Example records (`tf.train.Example`, `tf.train.SequenceExample` and their parts).
BytesList = _message("BytesList")
FloatList = _message("FloatList")
Int64List = _message("Int64List")
Feature = _message("Feature")
Features = _message("Features")
FeatureList = _message("FeatureList")
FeatureLists = _message("FeatureLists")
Example = _message("Example")
SequenceExample = _message("SequenceExample")
TensorInfo = _message("TensorInfo")
SignatureDef = _message("SignatureDef")
AssetFileDef = _message("AssetFileDef")
SavedModel = _message("SavedModel")
# V1 checkpoints (the tensor-slice table format).
SavedSliceMeta = _message("SavedSliceMeta")
SavedTensorSliceMeta = _message("SavedTensorSliceMeta")
SavedSlice = _message("SavedSlice")
SavedTensorSlices = _message("SavedTensorSlices")
TensorSliceProto = _message("TensorSliceProto")
VariableDef = _message("VariableDef")
SaveSliceInfoDef = _message("SaveSliceInfoDef")
# Clusters and servers (`tf.train.ClusterSpec`, `tf.train.Server`, `Session.list_devices`).
JobDef = _message("JobDef")
ClusterDef = _message("ClusterDef")
ServerDef = _message("ServerDef")
DeviceAttributes = _message("DeviceAttributes")
DeviceLocality = _message("DeviceLocality")
RPCOptions = _message("RPCOptions")
CallableOptions = _message("CallableOptions")
TensorConnection = _message("TensorConnection")
NamedTensorProto = _message("NamedTensorProto")

__all__ = [
    "JobDef",
    "ClusterDef",
    "ServerDef",
    "DeviceAttributes",
    "DeviceLocality",
    "RPCOptions",
    "CallableOptions",
    "TensorConnection",
    "NamedTensorProto",
    "AssetFileDef",
    "SavedModel",
    "SavedSlice",
    "SavedSliceMeta",
    "SavedTensorSliceMeta",
    "SavedTensorSlices",
    "TensorSliceProto",
    "BytesList",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
    "AttrValue",
    "CheckpointState",
    "CollectionDef",
    "MetaGraphDef",
    "OpDef",
    "OpList",
    "SaveSliceInfoDef",
    "SaverDef",
    "SignatureDef",
    "TensorInfo",
    "VariableDef",
    "ConfigProto",
    "DataType",
    "DeviceStepStats",
    "Event",
    "QueueRunnerDef",
    "GPUOptions",
    "GraphDef",
    "GraphOptions",
    "HistogramProto",
    "LogMessage",
    "NameAttrList",
    "NodeDef",
    "NodeExecStats",
    "NodeOutput",
    "TensorDescription",
    "AllocationDescription",
    "OptimizerOptions",
    "RewriterConfig",
    "RunMetadata",
    "RunOptions",
    "SessionLog",
    "SourceMetadata",
    "StepStats",
    "Summary",
    "SummaryDescription",
    "SummaryMetadata",
    "TaggedRunMetadata",
    "TensorProto",
    "TensorShapeProto",
    "ThreadPoolOptionProto",
    "VersionDef",
]
