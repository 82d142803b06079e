//! The CPU kernel of every op, by op family: TF's `REGISTER_KERNEL_BUILDER(Name(...)
//! .Device(DEVICE_CPU))`. The op schemas are registered in [`crate::ops`], the
//! gradients in [`crate::autodiff::registry`]; a backend crate registers its kernels
//! the same way ([`super::registry::register_kernel`]). A test checks that every op
//! has a CPU kernel here and every kernel an op. A `type_constraint` restricts a kernel
//! to the dtypes TF registers kernels for (fewer than its OpDef allows: a node of another
//! type builds, and running it is TF's "No OpKernel was registered" error).
use super::registry::KernelDef;
use crate::device::CPU;
use crate::dtype::DType;

/// The CPU kernels, which the kernel registry starts from.
pub(crate) fn kernels() -> Vec<KernelDef> {
    let mut r = Vec::new();
    array(&mut r);
    candidate_sampling(&mut r);
    compare(&mut r);
    complex(&mut r);
    control_flow(&mut r);
    conv(&mut r);
    data(&mut r);
    data_flow(&mut r);
    functional(&mut r);
    image(&mut r);
    indexing(&mut r);
    io(&mut r);
    layout(&mut r);
    logging(&mut r);
    lookup(&mut r);
    math(&mut r);
    nn(&mut r);
    partition(&mut r);
    random(&mut r);
    reader(&mut r);
    reduce(&mut r);
    rnn(&mut r);
    script(&mut r);
    sendrecv(&mut r);
    sparse(&mut r);
    state(&mut r);
    strings(&mut r);
    summary(&mut r);
    tensor_array(&mut r);
    training(&mut r);
    r
}

fn cpu(op: &'static str, factory: super::KernelFn) -> KernelDef {
    KernelDef::new(op, CPU, factory)
}

fn array(r: &mut Vec<KernelDef>) {
    use super::array as k;
    use super::sequence as ks;
    r.push(cpu("Const", k::const_kernel));
    r.push(cpu("Placeholder", k::placeholder_kernel));
    r.push(cpu("PlaceholderWithDefault", k::identity_kernel));
    r.push(cpu("Identity", k::identity_kernel));
    r.push(cpu("IdentityN", k::identity_n_kernel));
    r.push(cpu("StopGradient", k::identity_kernel));
    r.push(cpu("RefIdentity", k::ref_identity_kernel));
    r.push(cpu("PreventGradient", k::identity_kernel));
    r.push(cpu("NoOp", k::no_op_kernel));
    r.push(cpu("Cast", k::cast_kernel));
    r.push(cpu("Reshape", k::reshape_kernel));
    r.push(cpu("Fill", k::fill_kernel));
    r.push(cpu("ZerosLike", k::zeros_like_kernel));
    r.push(cpu("OnesLike", k::ones_like_kernel));
    r.push(cpu("Unique", ks::unique_kernel));
    r.push(cpu("ListDiff", ks::list_diff_kernel));
    r.push(cpu("Shape", k::shape_kernel));
    r.push(cpu("ShapeN", k::shape_n_kernel));
    r.push(cpu("Size", k::size_kernel));
    r.push(cpu("Rank", k::rank_kernel));
    r.push(cpu("Range", ks::range_kernel));
    r.push(cpu("LinSpace", ks::lin_space_kernel));
    r.push(cpu("Pack", k::pack_kernel));
    r.push(cpu("LogicalNot", k::logical_not_kernel));
    r.push(cpu("Where", k::where_kernel));
    r.push(cpu("GatherV2", k::gather_kernel));
    r.push(cpu("Squeeze", k::squeeze_kernel));
    r.push(cpu(crate::ops::DEVICE_COPY, k::device_copy_kernel));
    r.push(cpu("_PanicForTesting", k::panic_kernel));
}

fn candidate_sampling(r: &mut Vec<KernelDef>) {
    use super::candidate_sampling::accidental_hits_kernel;
    use super::candidate_sampling::sampler_kernel;
    r.push(cpu("ComputeAccidentalHits", accidental_hits_kernel));
    for name in crate::ops::candidate_sampling::CANDIDATE_SAMPLERS {
        r.push(cpu(name, sampler_kernel));
    }
}

fn compare(r: &mut Vec<KernelDef>) {
    use super::compare as k;
    r.push(cpu("Equal", k::compare_kernel::<k::EqFn>));
    r.push(cpu("NotEqual", k::compare_kernel::<k::NeFn>));
    r.push(cpu("Less", k::compare_kernel::<k::LtFn>));
    r.push(cpu("LessEqual", k::compare_kernel::<k::LeFn>));
    r.push(cpu("Greater", k::compare_kernel::<k::GtFn>));
    r.push(cpu("GreaterEqual", k::compare_kernel::<k::GeFn>));
    r.push(cpu("LogicalAnd", k::logical_and_kernel));
    r.push(cpu("LogicalOr", k::logical_or_kernel));
    r.push(cpu("SelectV2", k::select_kernel));
    r.push(cpu("Select", k::select_v1_kernel));
    r.push(cpu("IsFinite", k::is_finite_kernel));
    r.push(cpu("CheckNumerics", k::check_numerics_kernel));
    r.push(cpu("IsNan", k::is_nan_kernel));
}

fn complex(r: &mut Vec<KernelDef>) {
    use super::complex as k;
    r.push(cpu("Complex", k::complex_kernel));
    r.push(cpu("Real", k::real_kernel));
    r.push(cpu("Imag", k::imag_kernel));
    r.push(cpu("ComplexAbs", k::complex_abs_kernel));
    r.push(cpu("Angle", k::angle_kernel));
    r.push(cpu("Conj", k::conj_kernel));
}

fn control_flow(r: &mut Vec<KernelDef>) {
    use super::control_flow as k;
    r.push(cpu("Switch", k::switch_kernel));
    r.push(cpu("RefSwitch", k::switch_kernel));
    r.push(cpu("Merge", k::merge_kernel));
}

fn conv(r: &mut Vec<KernelDef>) {
    use super::conv as k;
    use super::conv3d::window3d_kernel;
    use super::depthwise as kd;
    use super::fused::fused_kernel;
    use crate::ops::math::FUSED_TYPES;
    r.push(cpu("Conv2D", k::conv_kernel));
    r.push(cpu("Conv2DBackpropInput", k::conv_kernel));
    r.push(cpu("Conv2DBackpropFilter", k::conv_kernel));
    r.push(cpu("DepthwiseConv2dNative", kd::depthwise_kernel));
    r.push(cpu("_FusedConv2D", fused_kernel).type_constraint("T", FUSED_TYPES));
    r.push(cpu("_FusedDepthwiseConv2dNative", fused_kernel).type_constraint("T", FUSED_TYPES));
    r.push(cpu("DepthwiseConv2dNativeBackpropInput", kd::depthwise_kernel));
    r.push(cpu("DepthwiseConv2dNativeBackpropFilter", kd::depthwise_kernel));
    r.push(cpu("MaxPool", k::pool_kernel));
    r.push(cpu("MaxPoolGrad", k::pool_kernel));
    r.push(cpu("MaxPoolGradGrad", k::pool_kernel));
    r.push(cpu("AvgPool", k::pool_kernel));
    r.push(cpu("AvgPoolGrad", k::pool_kernel));
    r.push(cpu("Conv3D", window3d_kernel));
    r.push(cpu("Conv3DBackpropInputV2", window3d_kernel));
    r.push(cpu("Conv3DBackpropFilterV2", window3d_kernel));
    r.push(cpu("MaxPool3D", window3d_kernel));
    r.push(cpu("AvgPool3D", window3d_kernel));
    r.push(cpu("MaxPool3DGrad", window3d_kernel));
    r.push(cpu("MaxPool3DGradGrad", window3d_kernel));
    r.push(cpu("AvgPool3DGrad", window3d_kernel));
}

fn data(r: &mut Vec<KernelDef>) {
    use super::data::{iterator as it, parallel as p, readers as rd, sources as src, transforms as tr};
    r.push(cpu("IteratorGetNext", it::get_next_kernel));
    r.push(cpu("IteratorGetNextSync", it::get_next_kernel));
    r.push(cpu("TensorDataset", src::tensor_dataset));
    r.push(cpu("TensorSliceDataset", src::tensor_slice_dataset));
    r.push(cpu("RangeDataset", src::range_dataset));
    r.push(cpu("ZipDataset", src::zip_dataset));
    r.push(cpu("ConcatenateDataset", src::concatenate_dataset));
    r.push(cpu("GeneratorDataset", src::generator_dataset));
    r.push(cpu("RepeatDataset", tr::repeat_dataset));
    r.push(cpu("TakeDataset", tr::take_dataset));
    r.push(cpu("SkipDataset", tr::skip_dataset));
    r.push(cpu("ShardDataset", tr::shard_dataset));
    r.push(cpu("BatchDataset", tr::batch_dataset));
    r.push(cpu("BatchDatasetV2", tr::batch_dataset));
    r.push(cpu("PaddedBatchDatasetV2", tr::padded_batch_dataset));
    r.push(cpu("UnbatchDataset", tr::unbatch_dataset));
    r.push(cpu("WindowDataset", tr::window_dataset));
    r.push(cpu("ExperimentalUnbatchDataset", tr::unbatch_dataset));
    r.push(cpu("ShuffleDataset", tr::shuffle_dataset));
    r.push(cpu("ShuffleAndRepeatDataset", tr::shuffle_and_repeat_dataset));
    r.push(cpu("CacheDataset", tr::cache_dataset));
    r.push(cpu("PrefetchDataset", p::prefetch_dataset));
    r.push(cpu("IgnoreErrorsDataset", tr::ignore_errors_dataset));
    r.push(cpu("ExperimentalIgnoreErrorsDataset", tr::ignore_errors_dataset));
    r.push(cpu("MapDataset", tr::map_dataset));
    r.push(cpu("ParallelMapDataset", p::parallel_map_dataset));
    r.push(cpu("ParallelMapDatasetV2", p::parallel_map_dataset));
    r.push(cpu("MapAndBatchDataset", p::map_and_batch_dataset));
    r.push(cpu("ExperimentalMapAndBatchDataset", p::map_and_batch_dataset));
    r.push(cpu("FilterDataset", tr::filter_dataset));
    r.push(cpu("FlatMapDataset", tr::flat_map_dataset));
    r.push(cpu("InterleaveDataset", tr::interleave_dataset));
    r.push(cpu("ParallelInterleaveDatasetV2", tr::interleave_dataset));
    r.push(cpu("ParallelInterleaveDataset", tr::interleave_dataset));
    r.push(cpu("ExperimentalParallelInterleaveDataset", tr::interleave_dataset));
    r.push(cpu("TFRecordDataset", rd::tf_record_dataset));
    r.push(cpu("TextLineDataset", rd::text_line_dataset));
    r.push(cpu("FixedLengthRecordDataset", rd::fixed_length_record_dataset));
    r.push(cpu("FixedLengthRecordDatasetV2", rd::fixed_length_record_dataset));
    r.push(cpu("IteratorV2", it::iterator_kernel));
    r.push(cpu("Iterator", it::iterator_kernel));
    r.push(cpu("OneShotIterator", it::one_shot_iterator_kernel));
    r.push(cpu("IteratorFromStringHandleV2", it::from_string_handle_kernel));
    r.push(cpu("IteratorFromStringHandle", it::from_string_handle_kernel));
    r.push(cpu("MakeIterator", it::make_iterator_kernel));
    r.push(cpu("IteratorToStringHandle", it::to_string_handle_kernel));
    r.push(cpu("SerializeIterator", it::serialize_iterator_kernel));
    r.push(cpu("DeserializeIterator", it::deserialize_iterator_kernel));
}

fn data_flow(r: &mut Vec<KernelDef>) {
    use super::accumulator::{accumulator_access_kernel, accumulator_op_kernel};
    use super::queue::{queue_access_kernel, queue_op_kernel};
    r.push(cpu("QueueDequeueV2", queue_access_kernel));
    r.push(cpu("QueueCloseV2", queue_access_kernel));
    r.push(cpu("QueueSizeV2", queue_access_kernel));
    r.push(cpu("QueueIsClosedV2", queue_access_kernel));
    r.push(cpu("AccumulatorApplyGradient", accumulator_access_kernel));
    r.push(cpu("SparseAccumulatorApplyGradient", accumulator_access_kernel));
    r.push(cpu("AccumulatorTakeGradient", accumulator_access_kernel));
    r.push(cpu("SparseAccumulatorTakeGradient", accumulator_access_kernel));
    r.push(cpu("AccumulatorNumAccumulated", accumulator_access_kernel));
    r.push(cpu("AccumulatorSetGlobalStep", accumulator_access_kernel));
    r.push(cpu("ResourceConditionalAccumulator", accumulator_op_kernel));
    r.push(cpu("ResourceAccumulatorApplyGradient", accumulator_access_kernel));
    r.push(cpu("ResourceAccumulatorTakeGradient", accumulator_access_kernel));
    r.push(cpu("ResourceAccumulatorNumAccumulated", accumulator_access_kernel));
    r.push(cpu("ResourceAccumulatorSetGlobalStep", accumulator_access_kernel));
    for name in ["FIFOQueueV2", "PaddingFIFOQueueV2", "RandomShuffleQueueV2", "PriorityQueueV2"] {
        r.push(cpu(name, queue_op_kernel));
    }
    for name in ["QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueManyV2", "QueueDequeueUpToV2"] {
        r.push(cpu(name, queue_access_kernel));
    }
    for name in ["ConditionalAccumulator", "SparseConditionalAccumulator"] {
        r.push(cpu(name, accumulator_op_kernel));
    }
}

fn functional(r: &mut Vec<KernelDef>) {
    use super::functional as k;
    r.push(cpu("While", k::while_kernel));
    r.push(cpu("_WhileGrad", k::while_grad_kernel));
}

fn image(r: &mut Vec<KernelDef>) {
    use super::image as k;
    use super::image_codec as c;
    use super::image_nms::nms_kernel;
    r.push(cpu("CropAndResize", super::image_crop_resize::crop_and_resize_kernel));
    r.push(cpu("CropAndResizeGradImage", super::image_crop_resize::crop_and_resize_kernel));
    r.push(cpu("CropAndResizeGradBoxes", super::image_crop_resize::crop_and_resize_kernel));
    r.push(cpu("SampleDistortedBoundingBox", super::image_sample_box::sample_box_kernel));
    r.push(cpu("SampleDistortedBoundingBoxV2", super::image_sample_box::sample_box_kernel));
    r.push(cpu("ResizeBilinear", k::resize_kernel));
    r.push(cpu("ScaleAndTranslate", crate::kernels::image_scale_translate::scale_and_translate_kernel));
    r.push(cpu("ScaleAndTranslateGrad", crate::kernels::image_scale_translate::scale_and_translate_grad_kernel));
    r.push(cpu("ResizeNearestNeighbor", k::resize_kernel));
    r.push(cpu("ResizeBicubic", k::resize_kernel));
    r.push(cpu("ResizeArea", k::resize_kernel));
    r.push(cpu("ResizeBilinearGrad", k::resize_grad_kernel));
    r.push(cpu("ResizeBicubicGrad", k::resize_grad_kernel));
    r.push(cpu("ResizeNearestNeighborGrad", k::resize_grad_kernel));
    r.push(cpu("RGBToHSV", k::color_kernel));
    r.push(cpu("HSVToRGB", k::color_kernel));
    r.push(cpu("AdjustContrastv2", k::color_kernel));
    r.push(cpu("AdjustHue", k::color_kernel));
    r.push(cpu("AdjustSaturation", k::color_kernel));
    r.push(cpu("DecodePng", c::decode_kernel));
    r.push(cpu("DecodeJpeg", c::decode_kernel));
    r.push(cpu("DecodeAndCropJpeg", c::decode_kernel));
    r.push(cpu("ExtractJpegShape", c::extract_jpeg_shape_kernel));
    r.push(cpu("DecodeImage", c::decode_kernel));
    r.push(cpu("DecodeGif", c::decode_kernel));
    r.push(cpu("DecodeBmp", c::decode_kernel));
    r.push(cpu("EncodePng", c::encode_png_kernel));
    r.push(cpu("EncodeJpeg", c::encode_jpeg_kernel));
    r.push(cpu("ReverseV2", k::reverse_kernel));
    r.push(cpu("NonMaxSuppression", nms_kernel));
    r.push(cpu("NonMaxSuppressionV2", nms_kernel));
    r.push(cpu("NonMaxSuppressionV3", nms_kernel));
    r.push(cpu("NonMaxSuppressionV4", nms_kernel));
    r.push(cpu("NonMaxSuppressionV5", nms_kernel));
    r.push(cpu("NonMaxSuppressionWithOverlaps", nms_kernel));
}

fn indexing(r: &mut Vec<KernelDef>) {
    use super::indexing as k;
    r.push(cpu("Tile", k::tile_kernel));
    r.push(cpu("Pad", k::pad_kernel));
    r.push(cpu("PadV2", k::pad_kernel));
    r.push(cpu("MirrorPad", k::mirror_kernel));
    r.push(cpu("MirrorPadGrad", k::mirror_kernel));
    r.push(cpu("Split", k::split_kernel));
    r.push(cpu("SplitV", k::split_kernel));
    r.push(cpu("OneHot", k::one_hot_kernel));
    r.push(cpu("StridedSlice", k::strided_kernel));
    r.push(cpu("StridedSliceGrad", k::strided_kernel));
}

fn io(r: &mut Vec<KernelDef>) {
    use super::io as k;
    r.push(cpu("SaveV2", k::save_kernel));
    r.push(cpu("RestoreV2", k::restore_kernel));
    r.push(cpu("SaveSlices", k::save_slices_kernel));
    r.push(cpu("Save", k::save_slices_kernel));
    r.push(cpu("Restore", k::restore_one_kernel));
    r.push(cpu("RestoreSlice", k::restore_one_kernel));
    r.push(cpu("ShardedFilename", k::sharded_name_kernel));
    r.push(cpu("ShardedFilespec", k::sharded_name_kernel));
    r.push(cpu("MergeV2Checkpoints", k::merge_checkpoints_kernel));
}

fn layout(r: &mut Vec<KernelDef>) {
    use super::layout as k;
    r.push(cpu("BroadcastTo", k::broadcast_to_kernel));
    r.push(cpu("ConcatV2", k::concat_kernel));
    r.push(cpu("ConcatOffset", k::concat_offset_kernel));
    r.push(cpu("Slice", k::slice_kernel));
    r.push(cpu("Transpose", k::transpose_kernel));
    r.push(cpu("InvertPermutation", k::invert_permutation_kernel));
    r.push(cpu("ExpandDims", k::expand_dims_kernel));
    r.push(cpu("Unpack", k::unpack_kernel));
}

fn logging(r: &mut Vec<KernelDef>) {
    use super::logging as k;
    r.push(cpu("Assert", k::assert_kernel));
    r.push(cpu("Print", k::print_kernel));
}

fn lookup(r: &mut Vec<KernelDef>) {
    use super::hash::hash_bucket_kernel;
    use super::lookup::{table_access_kernel, table_op_kernel};
    r.push(cpu("MutableDenseHashTable", table_op_kernel));
    r.push(cpu("MutableDenseHashTableV2", table_op_kernel));
    r.push(cpu("StringToHashBucket", hash_bucket_kernel));
    for name in ["HashTable", "MutableHashTable", "MutableHashTableOfTensors"] {
        r.push(cpu(name, table_op_kernel));
    }
    for name in ["HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2"] {
        r.push(cpu(name, table_op_kernel));
    }
    for (v1, v2, _) in crate::ops::lookup::TABLE_ACCESS_OPS {
        for name in [v1, v2].into_iter().filter(|n| !n.is_empty()) {
            r.push(cpu(name, table_access_kernel));
        }
    }
    for name in ["StringToHashBucketFast", "StringToHashBucketStrong"] {
        r.push(cpu(name, super::hash::hash_bucket_kernel));
    }
}

fn math(r: &mut Vec<KernelDef>) {
    use super::math as k;
    use super::matmul::matmul_kernel;
    use crate::ops::math::FLOATS_AND_COMPLEX;
    use crate::ops::math::FUSED_TYPES;
    use crate::ops::math::WITHOUT_NARROW_INTS;
    r.push(cpu("Add", k::binary_kernel::<k::AddFn>));
    r.push(cpu("AddV2", k::binary_kernel::<k::AddFn>));
    r.push(cpu("Sub", k::binary_kernel::<k::SubFn>));
    r.push(cpu("Mul", k::binary_kernel::<k::MulFn>));
    r.push(cpu("Div", k::binary_kernel::<k::DivFn>));
    r.push(cpu("RealDiv", k::binary_kernel::<k::DivFn>).type_constraint("T", FLOATS_AND_COMPLEX));
    r.push(cpu("DivNoNan", k::binary_kernel::<k::DivNoNanFn>));
    r.push(cpu("Maximum", k::binary_kernel::<k::MaxFn>));
    r.push(cpu("Minimum", k::binary_kernel::<k::MinFn>));
    r.push(cpu("SquaredDifference", k::binary_kernel::<k::SquaredDifferenceFn>));
    r.push(cpu("FloorDiv", k::floor_kernel));
    r.push(cpu("FloorMod", k::floor_kernel));
    r.push(cpu("Pow", k::pow_kernel));
    r.push(cpu("AddN", k::add_n_kernel));
    r.push(cpu("Neg", k::unary_kernel::<k::NegFn>));
    r.push(cpu("Square", k::unary_kernel::<k::SquareFn>));
    r.push(cpu("Abs", k::unary_kernel::<k::AbsFn>));
    r.push(cpu("Sign", k::unary_kernel::<k::SignFn>));
    r.push(cpu("Sqrt", k::float_kernel::<k::SqrtFn>));
    r.push(cpu("Rsqrt", k::float_kernel::<k::RsqrtFn>));
    r.push(cpu("Reciprocal", k::float_kernel::<k::ReciprocalFn>));
    r.push(cpu("Exp", k::float_kernel::<k::ExpFn>));
    r.push(cpu("Log", k::float_kernel::<k::LogFn>));
    r.push(cpu("Log1p", k::float_kernel::<k::Log1pFn>));
    r.push(cpu("Tanh", k::float_kernel::<k::TanhFn>));
    r.push(cpu("Sigmoid", k::sigmoid_kernel));
    r.push(cpu("Sin", k::sin_cos_kernel::<true>));
    r.push(cpu("Cos", k::sin_cos_kernel::<false>));
    r.push(cpu("Floor", k::float_kernel::<k::FloorFn>));
    r.push(cpu("Ceil", k::float_kernel::<k::CeilFn>));
    r.push(cpu("Round", k::float_kernel::<k::RoundFn>));
    r.push(cpu("SqrtGrad", k::binary_kernel::<k::SqrtGradFn>));
    r.push(cpu("RsqrtGrad", k::binary_kernel::<k::RsqrtGradFn>));
    r.push(cpu("ReciprocalGrad", k::binary_kernel::<k::ReciprocalGradFn>));
    r.push(cpu("TanhGrad", k::binary_kernel::<k::TanhGradFn>));
    r.push(cpu("SigmoidGrad", k::binary_kernel::<k::SigmoidGradFn>));
    r.push(cpu("MatMul", matmul_kernel).type_constraint("T", WITHOUT_NARROW_INTS));
    r.push(cpu("_FusedMatMul", crate::kernels::fused::fused_kernel).type_constraint("T", FUSED_TYPES));
}

fn nn(r: &mut Vec<KernelDef>) {
    use super::nn as k;
    r.push(cpu("Relu", k::clamp_kernel::<false>));
    r.push(cpu("Relu6", k::clamp_kernel::<true>));
    r.push(cpu("Elu", k::activation::<k::EluFn>));
    r.push(cpu("Softplus", k::softplus_kernel));
    r.push(cpu("Selu", k::activation::<k::SeluFn>));
    r.push(cpu("Softsign", k::activation::<k::SoftsignFn>));
    r.push(cpu("SeluGrad", k::activation_grad::<k::SeluGradFn>));
    r.push(cpu("SoftsignGrad", k::activation_grad::<k::SoftsignGradFn>));
    r.push(cpu("ReluGrad", k::activation_grad::<k::ReluGradFn>));
    r.push(cpu("Relu6Grad", k::activation_grad::<k::Relu6GradFn>));
    r.push(cpu("EluGrad", k::activation_grad::<k::EluGradFn>));
    r.push(cpu("SoftplusGrad", k::activation_grad::<k::SoftplusGradFn>));
    r.push(cpu("Softmax", k::softmax_kernel));
    r.push(cpu("LogSoftmax", k::log_softmax_kernel));
    r.push(cpu("SoftmaxCrossEntropyWithLogits", k::softmax_xent_kernel));
    r.push(cpu("SparseSoftmaxCrossEntropyWithLogits", k::sparse_softmax_xent_kernel));
    r.push(cpu("BiasAdd", k::bias_add_kernel));
    r.push(cpu("BiasAddGrad", k::bias_add_grad_kernel));
    r.push(cpu("L2Loss", k::l2_loss_kernel));
    r.push(cpu("InTopKV2", k::in_top_k_kernel));
    r.push(cpu("TopKV2", k::top_k_kernel));
    r.push(cpu("LRN", k::lrn_kernel));
    r.push(cpu("LRNGrad", k::lrn_kernel));
}

fn partition(r: &mut Vec<KernelDef>) {
    use super::partition as k;
    r.push(cpu("DynamicPartition", k::dynamic_partition_kernel));
    for name in ["DynamicStitch", "ParallelDynamicStitch"] {
        r.push(cpu(name, k::dynamic_stitch_kernel));
    }
}

fn random(r: &mut Vec<KernelDef>) {
    use super::random::{multinomial_kernel, random_int_kernel, random_shuffle_kernel};
    r.push(cpu("RandomUniformInt", random_int_kernel));
    r.push(cpu("RandomShuffle", random_shuffle_kernel));
    r.push(cpu("Multinomial", multinomial_kernel));
    for name in ["RandomUniform", "RandomStandardNormal", "TruncatedNormal"] {
        r.push(cpu(name, super::random::float_random_kernel));
    }
}

fn reader(r: &mut Vec<KernelDef>) {
    use super::reader::reader_access_kernel;
    r.push(cpu("ReaderReadV2", reader_access_kernel));
    r.push(cpu("ReaderReadUpToV2", reader_access_kernel));
    r.push(cpu("ReaderResetV2", reader_access_kernel));
    r.push(cpu("ReaderSerializeStateV2", reader_access_kernel));
    r.push(cpu("ReaderRestoreStateV2", reader_access_kernel));
    for name in
        ["TFRecordReaderV2", "FixedLengthRecordReaderV2", "TextLineReaderV2", "WholeFileReaderV2", "IdentityReaderV2"]
    {
        r.push(cpu(name, super::reader::reader_op_kernel));
    }
    for name in ["ReaderNumRecordsProducedV2", "ReaderNumWorkUnitsCompletedV2"] {
        r.push(cpu(name, reader_access_kernel));
    }
}

fn reduce(r: &mut Vec<KernelDef>) {
    use super::reduce as k;
    r.push(cpu("Sum", k::reduce_kernel));
    r.push(cpu("Mean", k::reduce_kernel));
    r.push(cpu("Max", k::reduce_kernel));
    r.push(cpu("Min", k::reduce_kernel));
    r.push(cpu("Prod", k::reduce_kernel));
    r.push(cpu("Cumsum", k::scan_kernel));
    r.push(cpu("Cumprod", k::scan_kernel));
    r.push(cpu("All", k::reduce_kernel));
    r.push(cpu("Any", k::reduce_kernel));
    r.push(cpu("ArgMax", k::arg_kernel));
    r.push(cpu("ArgMin", k::arg_kernel));
    r.push(cpu("UnsortedSegmentSum", k::segment_sum_kernel));
    r.push(cpu("BroadcastGradientArgs", k::broadcast_gradient_args_kernel));
}

fn rnn(r: &mut Vec<KernelDef>) {
    use super::gru::{gru_block_cell_grad_kernel, gru_block_cell_kernel};
    use super::lstm::{block_lstm_grad_kernel, block_lstm_kernel, lstm_block_cell_grad_kernel, lstm_block_cell_kernel};
    use super::rnn::reverse_sequence_kernel;
    r.push(cpu("LSTMBlockCell", lstm_block_cell_kernel));
    r.push(cpu("LSTMBlockCellGrad", lstm_block_cell_grad_kernel));
    r.push(cpu("BlockLSTM", block_lstm_kernel));
    r.push(cpu("BlockLSTMGrad", block_lstm_grad_kernel));
    r.push(cpu("GRUBlockCell", gru_block_cell_kernel));
    r.push(cpu("GRUBlockCellGrad", gru_block_cell_grad_kernel));
    r.push(cpu("ReverseSequence", reverse_sequence_kernel));
}

fn script(r: &mut Vec<KernelDef>) {
    use super::script as k;
    r.push(cpu("PyFunc", k::py_func_kernel));
    r.push(cpu("PyFuncStateless", k::py_func_kernel));
}

fn sendrecv(r: &mut Vec<KernelDef>) {
    use super::sendrecv as k;
    r.push(cpu("_Send", k::send_kernel));
    r.push(cpu("_Recv", k::recv_kernel));
    r.push(cpu("_HostSend", k::send_kernel));
    r.push(cpu("_HostRecv", k::recv_kernel));
}

fn sparse(r: &mut Vec<KernelDef>) {
    use super::sparse as k;
    use super::sparse_math as km;
    r.push(cpu("SparseToDense", k::sparse_to_dense_kernel));
    r.push(cpu("SparseReorder", k::sparse_reorder_kernel));
    r.push(cpu("SparseReshape", k::sparse_reshape_kernel));
    r.push(cpu("SparseConcat", k::sparse_concat_kernel));
    r.push(cpu("SparseAdd", k::sparse_add_kernel));
    r.push(cpu("SparseAddGrad", k::sparse_add_grad_kernel));
    r.push(cpu("SparseReduceSum", k::sparse_reduce_sum_kernel));
    r.push(cpu("SparseReduceSumSparse", k::sparse_reduce_sum_sparse_kernel));
    r.push(cpu("SparseReduceMax", k::sparse_reduce_max_kernel));
    r.push(cpu("SparseReduceMaxSparse", k::sparse_reduce_max_sparse_kernel));
    r.push(cpu("SparseTensorDenseAdd", km::sparse_tensor_dense_add_kernel));
    r.push(cpu("SparseSoftmax", km::sparse_softmax_kernel));
    r.push(cpu("SparseSlice", km::sparse_slice_kernel));
    r.push(cpu("SparseSliceGrad", km::sparse_slice_grad_kernel));
    r.push(cpu("SparseSplit", km::sparse_split_kernel));
    r.push(cpu("SparseTensorDenseMatMul", k::sparse_dense_matmul_kernel));
    r.push(cpu("SparseFillEmptyRows", k::sparse_fill_empty_rows_kernel));
    r.push(cpu("SparseFillEmptyRowsGrad", k::sparse_fill_empty_rows_grad_kernel));
    r.push(cpu("SerializeSparse", k::serialize_sparse_kernel));
    r.push(cpu("SerializeManySparse", k::serialize_many_sparse_kernel));
    r.push(cpu("DeserializeManySparse", k::deserialize_many_sparse_kernel));
    r.push(cpu("SegmentSum", k::segment_sum_kernel));
    r.push(cpu("GatherNd", k::gather_nd_kernel));
    r.push(cpu("SparseCross", super::sparse_cross::sparse_cross_kernel));
    r.push(cpu("SparseDenseCwiseAdd", km::sparse_dense_cwise_add_kernel));
    r.push(cpu("SparseDenseCwiseMul", km::sparse_dense_cwise_mul_kernel));
    r.push(cpu("SparseDenseCwiseDiv", km::sparse_dense_cwise_div_kernel));
    r.push(cpu("SparseSparseMaximum", km::sparse_sparse_maximum_kernel));
    r.push(cpu("SparseSparseMinimum", km::sparse_sparse_minimum_kernel));
    r.push(cpu("SparseSegmentSum", k::sparse_segment_sum_kernel));
    r.push(cpu("SparseSegmentMean", k::sparse_segment_mean_kernel));
    r.push(cpu("SparseSegmentSqrtN", k::sparse_segment_sqrt_n_kernel));
    r.push(cpu("SparseSegmentSumWithNumSegments", k::sparse_segment_sum_n_kernel));
    r.push(cpu("SparseSegmentMeanWithNumSegments", k::sparse_segment_mean_n_kernel));
    r.push(cpu("SparseSegmentSqrtNWithNumSegments", k::sparse_segment_sqrt_n_n_kernel));
    r.push(cpu("SparseSegmentSumGrad", k::sparse_segment_sum_grad_kernel));
    r.push(cpu("SparseSegmentMeanGrad", k::sparse_segment_mean_grad_kernel));
    r.push(cpu("SparseSegmentSqrtNGrad", k::sparse_segment_sqrt_n_grad_kernel));
}

fn state(r: &mut Vec<KernelDef>) {
    use super::state::{
        assign_kernel, assign_update_kernel, count_up_to_kernel, is_initialized_kernel, variable_kernel,
    };
    r.push(cpu("VariableV2", variable_kernel));
    r.push(cpu("Assign", assign_kernel));
    r.push(cpu("AssignAdd", assign_update_kernel));
    r.push(cpu("AssignSub", assign_update_kernel));
    r.push(cpu("CountUpTo", count_up_to_kernel));
    r.push(cpu("IsVariableInitialized", is_initialized_kernel));
    for name in ["ScatterUpdate", "ScatterAdd", "ScatterSub"] {
        r.push(cpu(name, super::state::scatter_kernel));
    }
}

fn strings(r: &mut Vec<KernelDef>) {
    use super::strings as k;
    r.push(cpu("DecodeRaw", k::decode_raw_kernel));
    r.push(cpu("DecodePaddedRaw", k::decode_raw_kernel));
    r.push(cpu("ParseTensor", k::parse_tensor_kernel));
    r.push(cpu("SerializeTensor", k::serialize_tensor_kernel));
    r.push(cpu("DecodeJSONExample", crate::kernels::example::decode_json_example_kernel));
    r.push(cpu("StringToNumber", k::string_to_number_kernel));
    r.push(cpu("StringJoin", k::string_join_kernel));
    r.push(cpu("Substr", k::substr_kernel));
    r.push(cpu("StringSplit", k::string_split_kernel));
    r.push(cpu("StringSplitV2", k::string_split_v2_kernel));
    r.push(cpu("ReduceJoin", k::reduce_join_kernel));
    r.push(cpu("DecodeCSV", k::decode_csv_kernel));
    r.push(cpu("ParseExampleV2", crate::kernels::example::parse_example_kernel));
    r.push(cpu("ParseSequenceExampleV2", crate::kernels::example::parse_sequence_example_kernel));
    r.push(cpu("RegexFullMatch", k::regex_full_match_kernel));
    r.push(cpu("StaticRegexFullMatch", k::regex_full_match_kernel));
    r.push(cpu("AsString", k::as_string_kernel));
    r.push(cpu("MatchingFiles", k::matching_files_kernel));
    r.push(cpu("ReadFile", k::read_file_kernel));
    r.push(cpu("WriteFile", k::write_file_kernel));
}

fn summary(r: &mut Vec<KernelDef>) {
    use super::summary as k;
    use super::summary_writer as w;
    r.push(cpu("ScalarSummary", k::scalar_summary_kernel));
    r.push(cpu("HistogramSummary", k::histogram_summary_kernel));
    r.push(cpu("ImageSummary", k::image_summary_kernel));
    r.push(cpu("AudioSummaryV2", k::audio_summary_kernel));
    r.push(cpu("MergeSummary", k::merge_summary_kernel));
    r.push(cpu("SummaryWriter", w::summary_writer_kernel));
    for (name, _) in crate::ops::summary::WRITER_OPS {
        r.push(cpu(name, super::summary_writer::summary_writer_op_kernel));
    }
}

fn tensor_array(r: &mut Vec<KernelDef>) {
    use super::tensor_array::tensor_array_kernel as k;
    r.push(cpu("TensorArrayV3", k));
    r.push(cpu("TensorArrayWriteV3", k));
    r.push(cpu("TensorArrayReadV3", k));
    r.push(cpu("TensorArrayGatherV3", k));
    r.push(cpu("TensorArrayScatterV3", k));
    r.push(cpu("TensorArrayConcatV3", k));
    r.push(cpu("TensorArraySplitV3", k));
    r.push(cpu("TensorArraySizeV3", k));
    r.push(cpu("TensorArrayCloseV3", k));
    r.push(cpu("TensorArrayGradV3", k));
}

fn training(r: &mut Vec<KernelDef>) {
    use super::training::apply_kernel;
    use crate::ops::training::{Family, SPECS};
    // The float types of the updates TF has no half or bfloat16 kernel for.
    const WIDE_FLOATS: &[DType] = &[DType::Float32, DType::Float64];
    // The float types of the sparse RMSProp updates (TF has no bfloat16 kernel).
    const FLOATS_WITHOUT_BFLOAT16: &[DType] = &[DType::Float16, DType::Float32, DType::Float64];
    for s in SPECS {
        // TF registers no 16-bit kernels for the proximal and dual-averaging updates.
        let types = match s.family {
            Family::ProximalGradientDescent | Family::ProximalAdagrad | Family::AdagradDa => WIDE_FLOATS,
            Family::RmsProp | Family::CenteredRmsProp if s.op.starts_with("Sparse") => FLOATS_WITHOUT_BFLOAT16,
            _ => crate::ops::math::FLOATS,
        };
        r.push(cpu(s.op, apply_kernel).type_constraint("T", types));
    }
}
