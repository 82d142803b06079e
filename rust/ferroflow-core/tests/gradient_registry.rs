//! Which ops have no gradient registered: a `tf.gradients` through them is a
//! `LookupError`. The list is explicit so that a new op cannot silently join it; it is
//! TF's (tests/test_gradient_registry.py compares it with TF's registry).
use ferroflow_core::autodiff::registry::{Gradient, gradient, registered};
use ferroflow_core::ops::op_names;

/// The sparse ops and `RGBToHSV`: their gradients are TF's Python functions (registered
/// from python/ferroflow/ops/sparse_ops.py and image_ops.py; tests/test_gradient_registry.py
/// counts them), or none, as TF's; the core registry has none of them. `While`'s gradient
/// is registered in python/ferroflow/ops/control_flow_ops.py (it differentiates the body
/// sub-graph), the TensorArray ops' in python/ferroflow/ops/tensor_array_grad.py (TF's:
/// they build gradient arrays), the fused RNN cells' (`LSTMBlockCell`, `BlockLSTM`,
/// `GRUBlockCell`) in python/ferroflow/ops/rnn_ops.py and gru_ops.py, TF-1.0's `Select`
/// and `PreventGradient` (it raises) in python/ferroflow/ops/array_ops.py, the complex-number
/// ops' (`Complex`, `Real`, `Imag`, `Conj`, `ComplexAbs`, `Angle`) in
/// python/ferroflow/ops/math_ops.py.
const PYTHON_GRADIENTS: [&str; 50] = [
    "Angle",
    "BlockLSTM",
    "Complex",
    "ComplexAbs",
    "Conj",
    "DeserializeManySparse",
    "GRUBlockCell",
    "GatherNd",
    "Imag",
    "LSTMBlockCell",
    "PreventGradient",
    "RGBToHSV",
    "Real",
    "SegmentSum",
    "Select",
    "SerializeManySparse",
    "SerializeSparse",
    "SparseAdd",
    "SparseDenseCwiseAdd",
    "SparseDenseCwiseDiv",
    "SparseDenseCwiseMul",
    "SparseFillEmptyRows",
    "SparseFillEmptyRowsGrad",
    "SparseReduceSum",
    "SparseReduceSumSparse",
    "SparseReorder",
    "SparseReshape",
    "SparseSegmentMean",
    "SparseSegmentMeanGrad",
    "SparseSegmentMeanWithNumSegments",
    "SparseSegmentSqrtN",
    "SparseSegmentSqrtNGrad",
    "SparseSegmentSqrtNWithNumSegments",
    "SparseSegmentSum",
    "SparseSegmentSumGrad",
    "SparseSegmentSumWithNumSegments",
    "SparseSlice",
    "SparseSoftmax",
    "SparseSparseMaximum",
    "SparseSparseMinimum",
    "SparseTensorDenseAdd",
    "SparseTensorDenseMatMul",
    "SparseToDense",
    "TensorArrayConcatV3",
    "TensorArrayGatherV3",
    "TensorArrayReadV3",
    "TensorArrayScatterV3",
    "TensorArraySplitV3",
    "TensorArrayWriteV3",
    "While",
];

#[test]
fn only_the_listed_ops_lack_a_gradient() {
    let mut missing: Vec<&str> = op_names().into_iter().filter(|n| matches!(gradient(n), Gradient::Missing)).collect();
    missing.sort_unstable();
    // As TF: the optimizer updates, queue ops, checkpoint ops, predicates, `Unique`,
    // `Where`, the image codecs... have no gradient; a variable has no inputs; the panic
    // op is a test aid.
    let training: Vec<String> = ["Adadelta", "Adagrad", "AdagradDA", "CenteredRMSProp", "Ftrl", "FtrlV2", "Momentum"]
        .iter()
        .chain(["ProximalAdagrad", "ProximalGradientDescent", "RMSProp"].iter())
        .flat_map(|s| [format!("Apply{s}"), format!("SparseApply{s}")])
        .chain(["ApplyAdam".to_string(), "ApplyGradientDescent".to_string()])
        .collect();
    let mut expected: Vec<&str> = [
        "AdjustContrastv2",
        "CloseSummaryWriter",
        "CreateSummaryFileWriter",
        "CropAndResizeGradBoxes",
        "CropAndResizeGradImage",
        "NonMaxSuppressionV3",
        "ScaleAndTranslateGrad",
        "NonMaxSuppressionV4",
        "NonMaxSuppressionV5",
        "DecodeJSONExample",
        "FlushSummaryWriter",
        "ImportEvent",
        "SparseCross",
        "SummaryWriter",
        "WriteGraphSummary",
        "WriteRawProtoSummary",
        "WriteScalarSummary",
        "WriteSummary",
        "LookupTableExport",
        "LookupTableExportV2",
        "LookupTableImport",
        "LookupTableImportV2",
        "LookupTableRemoveV2",
        "RegexFullMatch",
        "StaticRegexFullMatch",
        "MergeV2Checkpoints",
        "Restore",
        "RestoreSlice",
        "Save",
        "SaveSlices",
        "ShardedFilename",
        "ShardedFilespec",
        "AdjustHue",
        "AdjustSaturation",
        "All",
        "AllCandidateSampler",
        "Any",
        "ComputeAccidentalHits",
        "CountUpTo",
        "DecodeCSV",
        "FIFOQueueV2",
        "FixedLengthRecordReaderV2",
        "IdentityReaderV2",
        "MatchingFiles",
        "ParseExampleV2",
        "ParseSequenceExampleV2",
        "ReadFile",
        "ReaderNumRecordsProducedV2",
        "ReaderNumWorkUnitsCompletedV2",
        "ReaderReadUpToV2",
        "ReaderReadV2",
        "ReaderResetV2",
        "ReaderRestoreStateV2",
        "ReaderSerializeStateV2",
        "StringSplitV2",
        "Substr",
        "TFRecordReaderV2",
        "TextLineReaderV2",
        "WholeFileReaderV2",
        "WriteFile",
        "FixedUnigramCandidateSampler",
        "InTopKV2",
        "IsFinite",
        "IsNan",
        "IsVariableInitialized",
        "LearnedUnigramCandidateSampler",
        "LogUniformCandidateSampler",
        "LRNGrad",
        "DecodeBmp",
        "DecodeGif",
        "DecodeImage",
        "DecodeJpeg",
        "DecodeAndCropJpeg",
        "ExtractJpegShape",
        "DecodePng",
        "EncodeJpeg",
        "EncodePng",
        "ListDiff",
        "NoOp",
        "PaddingFIFOQueueV2",
        "Placeholder",
        "PriorityQueueV2",
        "QueueCloseV2",
        "QueueDequeueManyV2",
        "QueueDequeueUpToV2",
        "QueueDequeueV2",
        "QueueEnqueueManyV2",
        "QueueEnqueueV2",
        "QueueIsClosedV2",
        "QueueSizeV2",
        "RandomShuffleQueueV2",
        "RandomUniformInt",
        "ResizeArea",
        "ResizeBicubicGrad",
        "ResizeNearestNeighborGrad",
        "RestoreV2",
        "SaveV2",
        "ScatterUpdate",
        "UniformCandidateSampler",
        "Unique",
        "VariableV2",
        "Where",
        // Conditional accumulators (SyncReplicasOptimizer): none in TF either.
        "AccumulatorApplyGradient",
        "AccumulatorNumAccumulated",
        "AccumulatorSetGlobalStep",
        "AccumulatorTakeGradient",
        "ConditionalAccumulator",
        "ResourceAccumulatorApplyGradient",
        "ResourceAccumulatorNumAccumulated",
        "ResourceAccumulatorSetGlobalStep",
        "ResourceAccumulatorTakeGradient",
        "ResourceConditionalAccumulator",
        "SparseAccumulatorApplyGradient",
        "SparseAccumulatorTakeGradient",
        "SparseConditionalAccumulator",
        "SparseReduceMax",
        "SparseReduceMaxSparse",
        "SparseSliceGrad",
        "SparseSplit",
        // TF registers no gradient of `SoftsignGrad` (no second order through softsign).
        "SoftsignGrad",
        // The remapper's fused contractions (plan steps, or an imported GraphDef's
        // nodes): TF registers no gradient for them either.
        "_FusedConv2D",
        "_FusedDepthwiseConv2dNative",
        "_FusedMatMul",
        // The ends of a partitioned edge: TF registers no gradient for them either.
        "_HostRecv",
        "_HostSend",
        "_PanicForTesting",
        "_Recv",
        "_Send",
        // The gradient of a loop has no gradient of its own (no second order).
        "_WhileGrad",
        // TF registers none for the fused RNN cells' gradient ops.
        "BlockLSTMGrad",
        "GRUBlockCellGrad",
        "LSTMBlockCellGrad",
        // `tf.data`'s dataset and iterator ops: none in TF either.
        "BatchDataset",
        "BatchDatasetV2",
        "CacheDataset",
        "ConcatenateDataset",
        "DeserializeIterator",
        "ExperimentalIgnoreErrorsDataset",
        "ExperimentalMapAndBatchDataset",
        "ExperimentalParallelInterleaveDataset",
        "ExperimentalUnbatchDataset",
        "FilterDataset",
        "FixedLengthRecordDataset",
        "FixedLengthRecordDatasetV2",
        "FlatMapDataset",
        "GeneratorDataset",
        "IgnoreErrorsDataset",
        "InterleaveDataset",
        "Iterator",
        "IteratorFromStringHandle",
        "IteratorFromStringHandleV2",
        "IteratorGetNext",
        "IteratorGetNextSync",
        "IteratorToStringHandle",
        "IteratorV2",
        "MakeIterator",
        "MapAndBatchDataset",
        "MapDataset",
        "OneShotIterator",
        "PaddedBatchDatasetV2",
        "ParallelInterleaveDataset",
        "ParallelInterleaveDatasetV2",
        "ParallelMapDataset",
        "ParallelMapDatasetV2",
        "PrefetchDataset",
        "RangeDataset",
        "RepeatDataset",
        "SerializeIterator",
        "ShardDataset",
        "ShuffleAndRepeatDataset",
        "ShuffleDataset",
        "SkipDataset",
        "TFRecordDataset",
        "TakeDataset",
        "TensorDataset",
        "TensorSliceDataset",
        "TextLineDataset",
        "UnbatchDataset",
        "WindowDataset",
        "ZipDataset",
    ]
    .into_iter()
    .chain(training.iter().map(String::as_str))
    .chain(PYTHON_GRADIENTS)
    .collect();
    expected.sort_unstable();
    assert_eq!(missing, expected);
}

/// The three registrations of an op (schema, CPU kernel, gradient) live in three
/// layers; each must name an op that exists, and every op must have a CPU kernel.
#[test]
fn every_registration_names_an_op_and_every_op_has_a_cpu_kernel() {
    let ops: std::collections::HashSet<_> = op_names().into_iter().collect();
    let stray: Vec<_> = registered().into_iter().filter(|n| !ops.contains(n)).collect();
    assert!(stray.is_empty(), "gradients registered for no op: {stray:?}");
    let without_kernel: Vec<_> = op_names()
        .into_iter()
        .filter(|n| ferroflow_core::kernels::registry::kernels_of(n, ferroflow_core::device::CPU).is_empty())
        .collect();
    assert!(without_kernel.is_empty(), "ops without a CPU kernel: {without_kernel:?}");
    // A second CPU registration would silently shadow the first (the registry picks the
    // latest that accepts a node).
    let twice: Vec<_> = op_names()
        .into_iter()
        .filter(|n| ferroflow_core::kernels::registry::kernels_of(n, ferroflow_core::device::CPU).len() > 1)
        .collect();
    assert!(twice.is_empty(), "ops with more than one CPU kernel: {twice:?}");
    let stray_kernels: Vec<_> =
        ferroflow_core::kernels::registry::registered_ops().into_iter().filter(|n| !ops.contains(n)).collect();
    assert!(stray_kernels.is_empty(), "kernels registered for no op: {stray_kernels:?}");
}
