//! The gradient of every differentiable op, by op family (TF's `REGISTER_GRADIENT`
//! and `ops.NotDifferentiable`), looked up with [`gradient`]. An op registered here
//! neither way has no gradient: differentiating through it is TF's `LookupError`.
use std::collections::HashMap;
use std::sync::OnceLock;

use super::GradFn;

/// How an op takes part in `tf.gradients`.
#[derive(Clone, Copy)]
pub enum Gradient {
    /// No gradient registered: differentiating through the op is a `LookupError`.
    Missing,
    /// The op has no gradient by definition (shapes, comparisons, `StopGradient`):
    /// its inputs receive none.
    NotDifferentiable,
    /// The function that adds the op's gradient to the graph.
    Fn(GradFn),
}

/// The table under construction.
#[derive(Default)]
struct Gradients(HashMap<&'static str, Gradient>);

impl Gradients {
    fn grad(&mut self, op: &'static str, f: GradFn) {
        let previous = self.0.insert(op, Gradient::Fn(f));
        debug_assert!(previous.is_none(), "gradient of {op} registered twice");
    }
    fn no_grad(&mut self, op: &'static str) {
        let previous = self.0.insert(op, Gradient::NotDifferentiable);
        debug_assert!(previous.is_none(), "gradient of {op} registered twice");
    }
}

fn table() -> &'static HashMap<&'static str, Gradient> {
    static TABLE: OnceLock<HashMap<&'static str, Gradient>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut r = Gradients::default();
        array(&mut r);
        compare(&mut r);
        control_flow(&mut r);
        conv(&mut r);
        image(&mut r);
        indexing(&mut r);
        layout(&mut r);
        logging(&mut r);
        lookup(&mut r);
        math(&mut r);
        nn(&mut r);
        partition(&mut r);
        random(&mut r);
        reduce(&mut r);
        rnn(&mut r);
        script(&mut r);
        sparse(&mut r);
        state(&mut r);
        strings(&mut r);
        summary(&mut r);
        tensor_array(&mut r);
        r.0
    })
}

/// How op type `name` takes part in `tf.gradients` (`Missing` for an op with no
/// registration, or an unknown one).
pub fn gradient(name: &str) -> Gradient {
    table().get(name).copied().unwrap_or(Gradient::Missing)
}

/// The op types with a registration, either way (the registry's tests check each is
/// an op).
pub fn registered() -> Vec<&'static str> {
    let mut v: Vec<_> = table().keys().copied().collect();
    v.sort_unstable();
    v
}

fn array(r: &mut Gradients) {
    use super::array_grad as g;
    r.no_grad("Const");
    r.grad("PlaceholderWithDefault", g::identity);
    r.grad("Identity", g::identity);
    r.grad("IdentityN", g::identity_n);
    r.no_grad("StopGradient");
    r.grad("RefIdentity", g::identity);
    r.grad("Cast", g::cast);
    r.grad("Reshape", g::reshape_like_input);
    r.grad("Fill", g::fill);
    r.no_grad("ZerosLike");
    r.no_grad("OnesLike");
    r.no_grad("Shape");
    r.no_grad("ShapeN");
    r.no_grad("Size");
    r.no_grad("Rank");
    r.no_grad("Range");
    r.no_grad("LinSpace");
    r.grad("Pack", g::pack);
    r.no_grad("LogicalNot");
    r.grad("GatherV2", g::gather);
    r.grad("Squeeze", g::reshape_like_input);
    r.no_grad(crate::ops::DEVICE_COPY);
}

fn compare(r: &mut Gradients) {
    use super::math_grad as g;
    r.no_grad("Equal");
    r.no_grad("NotEqual");
    r.no_grad("Less");
    r.no_grad("LessEqual");
    r.no_grad("Greater");
    r.no_grad("GreaterEqual");
    r.no_grad("LogicalAnd");
    r.no_grad("LogicalOr");
    r.grad("SelectV2", g::select);
    r.grad("CheckNumerics", g::check_numerics);
}

fn control_flow(r: &mut Gradients) {
    use super::control_flow_grad as g;
    r.grad("Switch", g::switch);
    r.grad("RefSwitch", g::switch);
    r.grad("Merge", g::merge);
}

fn conv(r: &mut Gradients) {
    use super::nn_grad as g;
    r.grad("Conv2D", g::conv2d);
    r.grad("Conv2DBackpropInput", g::conv2d_backprop_input);
    r.grad("Conv2DBackpropFilter", g::conv2d_backprop_filter);
    r.grad("DepthwiseConv2dNative", g::depthwise_conv2d);
    r.grad("DepthwiseConv2dNativeBackpropInput", g::depthwise_backprop_input);
    r.grad("DepthwiseConv2dNativeBackpropFilter", g::depthwise_backprop_filter);
    r.grad("MaxPool", g::max_pool);
    r.grad("MaxPoolGrad", g::max_pool_grad);
    r.grad("MaxPoolGradGrad", g::max_pool_grad_grad);
    r.grad("AvgPool", g::avg_pool);
    r.grad("AvgPoolGrad", g::avg_pool_grad);
    r.grad("Conv3D", g::conv3d);
    r.grad("Conv3DBackpropInputV2", g::conv3d_backprop_input);
    r.grad("Conv3DBackpropFilterV2", g::conv3d_backprop_filter);
    r.grad("MaxPool3D", g::max_pool3d);
    r.grad("AvgPool3D", g::avg_pool3d);
    r.grad("MaxPool3DGrad", g::max_pool3d_grad);
    r.grad("MaxPool3DGradGrad", g::max_pool3d_grad_grad);
    r.grad("AvgPool3DGrad", g::avg_pool3d_grad);
}

fn image(r: &mut Gradients) {
    use super::image_grad as g;
    r.grad("CropAndResize", g::crop_and_resize);
    r.no_grad("SampleDistortedBoundingBox");
    r.no_grad("SampleDistortedBoundingBoxV2");
    r.grad("ResizeBilinear", g::resize_bilinear);
    r.grad("ScaleAndTranslate", g::scale_and_translate);
    r.grad("ResizeNearestNeighbor", g::resize_nearest_neighbor);
    r.grad("ResizeBicubic", g::resize_bicubic);
    r.no_grad("ResizeBilinearGrad");
    r.no_grad("HSVToRGB");
    r.grad("ReverseV2", g::reverse);
    r.no_grad("NonMaxSuppression");
    r.no_grad("NonMaxSuppressionV2");
    r.no_grad("NonMaxSuppressionWithOverlaps");
}

fn indexing(r: &mut Gradients) {
    use super::array_grad as g;
    r.grad("Tile", g::tile);
    r.grad("Pad", g::pad);
    r.grad("PadV2", g::pad);
    r.grad("MirrorPad", g::mirror_pad);
    r.grad("MirrorPadGrad", g::mirror_pad_grad);
    r.grad("Split", g::split);
    r.grad("SplitV", g::split);
    r.no_grad("OneHot");
    r.grad("StridedSlice", g::strided_slice);
    r.grad("StridedSliceGrad", g::strided_slice_grad);
}

fn layout(r: &mut Gradients) {
    use super::array_grad as g;
    r.grad("BroadcastTo", g::broadcast_to);
    r.grad("ConcatV2", g::concat);
    r.no_grad("ConcatOffset");
    r.grad("Slice", g::slice);
    r.grad("Transpose", g::transpose);
    r.no_grad("InvertPermutation");
    r.grad("ExpandDims", g::reshape_like_input);
    r.grad("Unpack", g::unpack);
}

fn logging(r: &mut Gradients) {
    r.no_grad("Assert");
    r.grad("Print", super::array_grad::print);
}

fn lookup(r: &mut Gradients) {
    r.no_grad("MutableDenseHashTable");
    r.no_grad("MutableDenseHashTableV2");
    r.no_grad("StringToHashBucket");
    for name in ["HashTable", "MutableHashTable", "MutableHashTableOfTensors"] {
        r.no_grad(name);
    }
    for name in ["HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2"] {
        r.no_grad(name);
    }
    // As TF: export, import and remove have no gradient registered, the others are
    // not differentiable.
    for (v1, v2, _) in crate::ops::lookup::TABLE_ACCESS_OPS {
        if !matches!(v2, "LookupTableExportV2" | "LookupTableImportV2" | "LookupTableRemoveV2") {
            for name in [v1, v2].into_iter().filter(|n| !n.is_empty()) {
                r.no_grad(name);
            }
        }
    }
    for name in ["StringToHashBucketFast", "StringToHashBucketStrong"] {
        r.no_grad(name);
    }
}

fn math(r: &mut Gradients) {
    use super::math_grad as g;
    r.grad("Add", g::add);
    r.grad("AddV2", g::add);
    r.grad("Sub", g::sub);
    r.grad("Mul", g::mul);
    r.grad("Div", g::div);
    r.grad("RealDiv", g::div);
    r.grad("DivNoNan", g::div);
    r.grad("Maximum", g::maximum);
    r.grad("Minimum", g::minimum);
    r.grad("SquaredDifference", g::squared_difference);
    r.no_grad("FloorDiv");
    r.grad("FloorMod", g::floor_mod);
    r.grad("Pow", g::pow);
    r.grad("AddN", g::add_n);
    r.grad("Neg", g::neg);
    r.grad("Square", g::square);
    r.grad("Abs", g::abs);
    r.grad("Sign", g::sign);
    r.grad("Sqrt", g::sqrt);
    r.grad("Rsqrt", g::rsqrt);
    r.grad("Reciprocal", g::reciprocal);
    r.grad("Exp", g::exp);
    r.grad("Log", g::log);
    r.grad("Log1p", g::log1p);
    r.grad("Tanh", g::tanh);
    r.grad("Sigmoid", g::sigmoid);
    r.grad("Sin", g::sin);
    r.grad("Cos", g::cos);
    r.no_grad("Floor");
    r.no_grad("Ceil");
    r.no_grad("Round");
    r.grad("SqrtGrad", g::sqrt_grad);
    r.grad("RsqrtGrad", g::rsqrt_grad);
    r.grad("ReciprocalGrad", g::reciprocal_grad);
    r.grad("TanhGrad", g::tanh_grad);
    r.grad("SigmoidGrad", g::sigmoid_grad);
    r.grad("MatMul", g::matmul);
}

fn nn(r: &mut Gradients) {
    use super::nn_grad as g;
    r.grad("Relu", g::relu);
    r.grad("Relu6", g::relu6);
    r.grad("Elu", g::elu);
    r.grad("Softplus", g::softplus);
    r.grad("Selu", g::selu);
    r.grad("Softsign", g::softsign);
    r.grad("SeluGrad", g::selu_grad);
    r.grad("ReluGrad", g::relu_grad);
    r.grad("Relu6Grad", g::relu6_grad);
    r.grad("EluGrad", g::elu_grad);
    r.grad("SoftplusGrad", g::softplus_grad);
    r.grad("Softmax", g::softmax);
    r.grad("LogSoftmax", g::log_softmax);
    r.grad("SoftmaxCrossEntropyWithLogits", g::softmax_xent);
    r.grad("SparseSoftmaxCrossEntropyWithLogits", g::sparse_softmax_xent);
    r.grad("BiasAdd", g::bias_add);
    r.grad("BiasAddGrad", g::bias_add_grad);
    r.grad("L2Loss", g::l2_loss);
    r.grad("TopKV2", g::top_k);
    r.grad("LRN", g::lrn);
}

fn partition(r: &mut Gradients) {
    use super::array_grad as g;
    r.grad("DynamicPartition", g::dynamic_partition);
    for name in ["DynamicStitch", "ParallelDynamicStitch"] {
        r.grad(name, g::dynamic_stitch);
    }
}

fn random(r: &mut Gradients) {
    r.no_grad("RandomShuffle");
    r.no_grad("Multinomial");
    for name in ["RandomUniform", "RandomStandardNormal", "TruncatedNormal"] {
        r.no_grad(name);
    }
}

fn reduce(r: &mut Gradients) {
    use super::math_grad as g;
    r.grad("Sum", g::sum);
    r.grad("Mean", g::mean);
    r.grad("Max", g::min_max);
    r.grad("Min", g::min_max);
    r.grad("Prod", g::prod);
    r.grad("Cumsum", g::cumsum);
    r.grad("Cumprod", g::cumprod);
    r.no_grad("ArgMax");
    r.no_grad("ArgMin");
    r.grad("UnsortedSegmentSum", g::unsorted_segment_sum);
    r.no_grad("BroadcastGradientArgs");
}

fn rnn(r: &mut Gradients) {
    r.grad("ReverseSequence", super::array_grad::reverse_sequence);
}

fn script(r: &mut Gradients) {
    r.no_grad("PyFunc");
    r.no_grad("PyFuncStateless");
}

fn sparse(r: &mut Gradients) {
    r.no_grad("SparseConcat");
    r.no_grad("SparseAddGrad");
}

fn state(r: &mut Gradients) {
    r.no_grad("Assign");
    r.no_grad("AssignAdd");
    r.no_grad("AssignSub");
    // `ScatterUpdate` has no gradient at all (a path through it is a LookupError).
    for name in ["ScatterAdd", "ScatterSub"] {
        r.no_grad(name);
    }
}

fn strings(r: &mut Gradients) {
    r.no_grad("DecodeRaw");
    r.no_grad("DecodePaddedRaw");
    r.no_grad("ParseTensor");
    r.no_grad("SerializeTensor");
    r.no_grad("StringToNumber");
    r.no_grad("StringJoin");
    r.no_grad("StringSplit");
    r.no_grad("ReduceJoin");
    r.no_grad("AsString");
}

fn summary(r: &mut Gradients) {
    r.no_grad("ScalarSummary");
    r.no_grad("HistogramSummary");
    r.no_grad("ImageSummary");
    r.no_grad("AudioSummaryV2");
    r.no_grad("MergeSummary");
}

fn tensor_array(r: &mut Gradients) {
    r.no_grad("TensorArrayV3");
    r.no_grad("TensorArraySizeV3");
    r.no_grad("TensorArrayCloseV3");
    r.no_grad("TensorArrayGradV3");
}
