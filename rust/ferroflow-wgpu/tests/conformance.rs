//! The core's conformance suite on `/device:GPU:0`: every case the GPU has a kernel for
//! must agree with the CPU. Runs on a hardware adapter when there is one, else on
//! Mesa's software Vulkan driver (lavapipe), as CI does; without any adapter it passes
//! with a note, unless `FERROFLOW_REQUIRE_GPU` is set (CI sets it, so a missing driver
//! fails there).

const LAVAPIPE: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

/// The GPU cases the suite must cover: losing one (a kernel no longer registered, or
/// a case no longer placed there) fails the test instead of silently skipping it.
const MUST_PASS: &[&str] = &[
    "AddV2 float32 broadcast",
    "RealDiv float32",
    "Tanh float32",
    "Sum float32 axes [0, 1] keep_dims false",
    "Sum float32 rank 3 middle axis",
    "MatMul float32 transpose_a true transpose_b false",
    "MatMul float32 70x130x90",
    "Softmax float32",
    "SparseSoftmaxCrossEntropyWithLogits float32",
    "BiasAddGrad float32 NCHW",
    "Transpose float32 rank 3",
    "OneHot float32",
    "Cast int32 to float32",
    "RandomUniform float32",
    "RandomStandardNormal float32",
    "TruncatedNormal float32",
    "Equal float32",
    "GreaterEqual float32 broadcast",
    "Cast float32 to bool",
    "Cast bool to float32",
    "SelectV2 float32",
    "LogicalAnd broadcast",
    "LogicalNot",
    "ArgMax float32 axis 0 to int64",
    "ArgMin float32 axis 1 to int32",
    "GatherV2 float32 axis 0",
    "GatherV2 float32 axis 1",
    "UnsortedSegmentSum float32",
    "AssignSub float32",
    "ScatterUpdate float32",
    "ScatterAdd float32",
    "Conv2D float32 SAME strides 1x2",
    "Conv2DBackpropInput float32 SAME strides 1x2",
    "Conv2DBackpropFilter float32 VALID dilations 2x2",
    "MaxPool float32 SAME 3x3 strides 2",
    "AvgPool float32 VALID 2x2 strides 1",
    "MaxPoolGrad float32 SAME 3x3 strides 2",
    "AvgPoolGrad float32 SAME 3x3 strides 2",
    "Cast float32 to float16",
    "Cast float16 to float32",
    "AddV2 float16 broadcast",
    "Tanh float16",
    "MatMul float16 transpose_a true transpose_b true",
    "MatMul float16 70x130x90",
    "Sum float16 axes [0, 1] keep_dims false",
    "Mean float16 axes [1] keep_dims false",
    "Max float16 axes [0] keep_dims true",
    "Softmax float16",
    "LogSoftmax float16",
    "SoftmaxCrossEntropyWithLogits float16",
    "SparseSoftmaxCrossEntropyWithLogits float16",
    "BiasAdd float16 NCHW",
    "BiasAddGrad float16",
    "Conv2D float16 SAME strides 1x2",
    "Conv2DBackpropInput float16 VALID dilations 2x2",
    "Conv2DBackpropFilter float16 SAME strides 1x2",
    "MaxPool float16 SAME 3x3 strides 2",
    "AvgPoolGrad float16 VALID 2x2 strides 1",
    "MaxPoolGrad float16 VALID 2x2 strides 1",
    "Less float16 broadcast",
    "SelectV2 float16",
    "ArgMax float16 axis 1 to int32",
    "GatherV2 float16 axis 1",
    "UnsortedSegmentSum float16",
    "OneHot float16",
    "Transpose float16 rank 3",
    "RandomUniform float16",
    "TruncatedNormal float16",
    "AssignAdd float16",
    "LSTMBlockCell float32 peephole clip",
    "LSTMBlockCellGrad float32 peephole",
    "BlockLSTM float32 peephole clip 3 of 4 steps",
    "BlockLSTMGrad float32 peephole 3 of 4 steps",
    "ScatterSub float16",
    "ApplyGradientDescent float16",
    "ApplyAdam float16",
    "SparseApplyAdagrad float16 update_slots",
    "ApplyRMSProp float16",
    "ApplyFtrl float16",
    "SparseApplyMomentum float16 use_nesterov",
    "ApplyAdam float32",
    "ApplyAdam float32 use_nesterov",
    "ApplyCenteredRMSProp float32",
    "ApplyFtrlV2 float32 multiply_linear_by_lr",
    "SparseApplyAdagradDA float32",
    "SparseApplyMomentum float32 use_nesterov",
];

#[test]
fn gpu_kernels_agree_with_the_cpu() {
    // One test in this binary, and the environment is set before any thread reads it.
    if std::env::var_os("FERROFLOW_GPU").is_none() {
        // SAFETY: no other thread of this test binary is running yet (this is its only
        // test, and nothing has been spawned before this point).
        unsafe { std::env::set_var("FERROFLOW_GPU", "software") };
    }
    if std::env::var_os("VK_DRIVER_FILES").is_none() && std::path::Path::new(LAVAPIPE).exists() {
        // SAFETY: as above.
        unsafe { std::env::set_var("VK_DRIVER_FILES", LAVAPIPE) };
    }
    // As the Python package does at import: with no display session, Mesa's
    // device-select layer would ask libwayland for one and print "XDG_RUNTIME_DIR is
    // invalid" twice.
    let names = ["WAYLAND_DISPLAY", "DISPLAY", "MESA_VK_DEVICE_SELECT", "NODEVICE_SELECT"];
    if names.iter().all(|n| std::env::var_os(n).is_none_or(|v| v.is_empty())) {
        // SAFETY: as above.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    if ferroflow_wgpu::register() == 0 {
        assert!(std::env::var_os("FERROFLOW_REQUIRE_GPU").is_none(), "FERROFLOW_REQUIRE_GPU is set but no GPU adapter");
        eprintln!("no GPU adapter (install mesa-vulkan-drivers for lavapipe): conformance not run");
        return;
    }
    let report = ferroflow_core::conformance::check_device(ferroflow_wgpu::DEVICE_TYPE).unwrap();
    let lines: Vec<String> = report.mismatches.iter().map(|(case, why)| format!("{case}: {why}")).collect();
    assert!(lines.is_empty(), "GPU results differ from the CPU's:\n{}", lines.join("\n"));
    let missing: Vec<&&str> = MUST_PASS.iter().filter(|c| !report.passed.iter().any(|p| p == *c)).collect();
    assert!(missing.is_empty(), "not run on the GPU: {missing:?}\nskipped: {:?}", report.skipped);
    eprintln!(
        "GPU conformance: {} passed, {} without a GPU kernel: {:?}",
        report.passed.len(),
        report.skipped.len(),
        report.skipped
    );
}
