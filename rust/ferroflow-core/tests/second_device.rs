//! The device seams, proved from outside the core crate: this test registers a second
//! CPU-like device type, `TESTDEV`, with its own kernels for a few ops (float `AddV2`
//! and `Mul`, and `_DeviceCopy`), as a backend crate would. Nodes placed on it run
//! through its kernels, a copy step is inserted wherever a value crosses between it and
//! the CPU, colocation and soft placement decide the rest, and the errors are TF's.
mod common;

use std::collections::HashMap;
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::Builder;
use ferroflow_core::device::{DeviceDescription, register_device_type};
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::{AttrValue, Code, DType, Result, SessionOptions, Tensor};

const TESTDEV: &str = "TESTDEV";
static ADDS: AtomicUsize = AtomicUsize::new(0);
static MULS: AtomicUsize = AtomicUsize::new(0);
static COPIES: AtomicUsize = AtomicUsize::new(0);

/// An elementwise float kernel of the test device (the second operand the same shape
/// as the first, or broadcast along its leading dimensions).
struct Binary(fn(f32, f32) -> f32, &'static AtomicUsize);

impl OpKernel for Binary {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        self.1.fetch_add(1, Ordering::SeqCst);
        let (a, b) = (ctx.input(0)?, ctx.input(1)?);
        // `b` the same shape as `a`, or broadcast along `a`'s leading dimensions.
        let (a, b) = (a.as_slice::<f32>()?, b.as_slice::<f32>()?);
        let values: Vec<f32> = a.iter().enumerate().map(|(i, &x)| (self.0)(x, b[i % b.len()])).collect();
        let a = ctx.input(0)?;
        let out = Tensor::from_slice(a.shape(), &values)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The test device's copy: counts, and passes the value on (host memory).
struct Copy;

impl OpKernel for Copy {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        COPIES.fetch_add(1, Ordering::SeqCst);
        let v = ctx.take_value(0)?;
        ctx.set_value_output(0, v);
        Ok(())
    }
}

fn add_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Binary(|x, y| x + y, &ADDS)))
}
fn mul_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Binary(|x, y| x * y, &MULS)))
}
fn copy_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Copy))
}

/// Registers the device and its kernels once per test process. Its priority is below
/// the CPU's, so only nodes asked to go there do.
fn register_test_device() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        register_device_type(TESTDEV, 10, vec![DeviceDescription::cpu()]);
        register_kernel(KernelDef::new("AddV2", TESTDEV, add_kernel).type_constraint("T", &[DType::Float32]));
        register_kernel(KernelDef::new("Mul", TESTDEV, mul_kernel).type_constraint("T", &[DType::Float32]));
        register_kernel(KernelDef::new(ferroflow_core::ops::DEVICE_COPY, TESTDEV, copy_kernel));
    });
}

fn vector(values: &[f32]) -> Tensor {
    Tensor::from_slice(&[values.len()], values).unwrap()
}

const ON_TEST: &str = "/device:TESTDEV:0";
const CPU_NAME: &str = "/job:localhost/replica:0/task:0/device:CPU:0";
const TEST_NAME: &str = "/job:localhost/replica:0/task:0/device:TESTDEV:0";

#[test]
fn placed_nodes_run_through_the_devices_kernels_with_copies_at_the_boundary() {
    register_test_device();
    let b = Builder::new();
    let x = b.placeholder("x");
    let c = b.constant(vector(&[10.0, 20.0]));
    let sum = b.op_on(ON_TEST, "AddV2", "sum", &[x, c], vec![]);
    // Colocated with `sum` (as `tf.colocate_with` writes it): on the test device too.
    let colocated = vec![("_class", AttrValue::ListS(vec![b"loc:@sum".to_vec()]))];
    let square = b.op("Mul", "square", &[sum, sum], colocated);
    // Unplaced, and the test device has no `Neg` kernel: back on the CPU.
    let neg = b.op("Neg", "neg", &[square], vec![]);
    let sess = b.session(1);
    let plan = sess.prepare(&[x], &[neg, sum], &[]).unwrap();
    let placement: HashMap<&str, &str> = plan.placement().into_iter().collect();
    assert_eq!(placement["sum"], TEST_NAME);
    assert_eq!(placement["square"], TEST_NAME);
    assert_eq!(placement["neg"], CPU_NAME);
    assert_eq!(placement["Const"], CPU_NAME);
    // One copy per value and destination: x and Const to the device, square back.
    let mut copies: Vec<&str> = placement.keys().copied().filter(|n| n.contains("/_copy_to_")).collect();
    copies.sort_unstable();
    // A fetched value comes back to the host through a copy too (TF: a `_Recv`).
    assert_eq!(
        copies,
        ["Const/_copy_to_TESTDEV_0", "square/_copy_to_CPU_0", "sum/_copy_to_CPU_0", "x/_copy_to_TESTDEV_0"]
    );

    let (adds, muls, device_copies) =
        (ADDS.load(Ordering::SeqCst), MULS.load(Ordering::SeqCst), COPIES.load(Ordering::SeqCst));
    let out = sess.run(&plan, vec![vector(&[1.0, 2.0])]).unwrap();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), &[-121.0, -484.0]);
    assert_eq!(out[1].as_slice::<f32>().unwrap(), &[11.0, 22.0]);
    assert!(ADDS.load(Ordering::SeqCst) > adds && MULS.load(Ordering::SeqCst) > muls);
    // The copies to the test device ran its kernel (the one back, the CPU's).
    assert!(COPIES.load(Ordering::SeqCst) >= device_copies + 2);

    // A traced run reports each device's nodes under that device.
    let (_, stats) = sess.run_traced(&plan, vec![vector(&[1.0, 2.0])], None).unwrap();
    let by_device: HashMap<&str, Vec<&str>> = stats
        .dev_stats
        .iter()
        .map(|d| (d.device.as_str(), d.node_stats.iter().map(|n| n.node_name.as_str()).collect()))
        .collect();
    assert!(by_device[TEST_NAME].contains(&"sum") && by_device[TEST_NAME].contains(&"square"));
    assert!(by_device[CPU_NAME].contains(&"neg"));
}

#[test]
fn a_dtype_the_devices_kernel_does_not_take_is_an_error_or_falls_back_softly() {
    register_test_device();
    let b = Builder::new();
    let i = b.constant(Tensor::from_slice(&[2], &[1i32, 2]).unwrap());
    let sum = b.op_on(ON_TEST, "AddV2", "isum", &[i, i], vec![]);
    let err = b.session(1).prepare(&[], &[sum], &[]).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(
        err.message,
        "Cannot assign a device for operation isum: Could not satisfy explicit device specification \
         '/device:TESTDEV:0' because no supported kernel for TESTDEV devices is available."
    );
    let soft = b.session_with(SessionOptions { allow_soft_placement: true, ..Default::default() });
    let plan = soft.prepare(&[], &[sum], &[]).unwrap();
    assert_eq!(plan.placement(), [("Const", CPU_NAME), ("isum", CPU_NAME)]);
    assert_eq!(soft.run(&plan, vec![]).unwrap()[0].as_slice::<i32>().unwrap(), &[2, 4]);
}

#[test]
fn unknown_devices_name_the_available_ones_and_device_count_limits_them() {
    register_test_device();
    let b = Builder::new();
    let c = b.constant(vector(&[1.0]));
    let on_gpu = b.op_on("/device:GPU:0", "AddV2", "g", &[c, c], vec![]);
    let err = b.session(1).prepare(&[], &[on_gpu], &[]).unwrap_err();
    assert_eq!(
        err.message,
        format!(
            "Cannot assign a device for operation g: {{{{node g}}}} was explicitly assigned to /device:GPU:0 but \
             available devices are [ {CPU_NAME}, {TEST_NAME} ]. Make sure the device specification refers to a \
             valid device."
        )
    );
    // Soft placement keeps the task and drops the type: the highest-priority device
    // with a kernel (the CPU).
    let soft = b.session_with(SessionOptions { allow_soft_placement: true, ..Default::default() });
    assert_eq!(soft.prepare(&[], &[on_gpu], &[]).unwrap().placement(), [("Const", CPU_NAME), ("g", CPU_NAME)]);

    let on_test = b.op_on(ON_TEST, "AddV2", "t", &[c, c], vec![]);
    let none = SessionOptions { device_count: [(TESTDEV.to_string(), 0)].into_iter().collect(), ..Default::default() };
    let err = b.session_with(none).prepare(&[], &[on_test], &[]).unwrap_err();
    assert!(err.message.contains(&format!("available devices are [ {CPU_NAME} ]")), "{}", err.message);
}

#[test]
fn colocated_nodes_with_conflicting_requests_are_tfs_error() {
    register_test_device();
    let b = Builder::new();
    let c = b.constant(vector(&[1.0]));
    let a = b.op_on(ON_TEST, "AddV2", "a", &[c, c], vec![]);
    let colocated = vec![("_class", AttrValue::ListS(vec![b"loc:@a".to_vec()]))];
    let m = b.op_on("/device:CPU:0", "Mul", "m", &[a, a], colocated);
    let err = b.session(1).prepare(&[], &[m], &[]).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    assert!(
        err.message.starts_with("Cannot colocate nodes {{colocation_node ")
            && err.message.contains("Cannot merge devices with incompatible types"),
        "{}",
        err.message
    );
    // With soft placement the group keeps the first request and runs there.
    let soft = b.session_with(SessionOptions { allow_soft_placement: true, ..Default::default() });
    let plan = soft.prepare(&[], &[m], &[]).unwrap();
    let placement: HashMap<&str, &str> = plan.placement().into_iter().collect();
    assert_eq!(placement["a"], placement["m"]);
}

#[test]
fn the_conformance_suite_passes_the_devices_kernels() {
    register_test_device();
    let report = ferroflow_core::conformance::check_device(TESTDEV).unwrap();
    // This device broadcasts only along leading dimensions: the suite catches it.
    let wrong: Vec<&str> = report.mismatches.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(wrong, ["Mul float32 broadcast both"], "{:?}", report.mismatches);
    assert_eq!(report.passed, ["AddV2 float32", "Mul float32", "AddV2 float32 broadcast"]);
    assert!(report.skipped.len() > 50, "every other case: no kernel there");
}
