//! The conformance harness itself: every case runs on the CPU, and a device whose
//! kernel is slightly wrong is caught. (A process of its own: the device registered
//! here would otherwise show in other tests' device lists.)

use ferroflow_core::device::{DeviceDescription, register_device_type};
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::{DType, Result, Tensor};

const BADDEV: &str = "BADDEV";

/// `Mul` off by a tenth of a percent.
struct BadMul;

impl OpKernel for BadMul {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (ctx.input(0)?, ctx.input(1)?);
        let (x, y) = (a.as_slice::<f32>()?, b.as_slice::<f32>()?);
        let values: Vec<f32> = x.iter().enumerate().map(|(i, &v)| v * y[i % y.len()] * 1.001).collect();
        let out = Tensor::from_slice(a.shape(), &values)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The device's copy passes the value on (host memory).
struct Copy;

impl OpKernel for Copy {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let v = ctx.take_value(0)?;
        ctx.set_value_output(0, v);
        Ok(())
    }
}

#[test]
fn a_subtly_wrong_kernel_is_caught() {
    register_device_type(BADDEV, 5, vec![DeviceDescription::cpu()]);
    register_kernel(
        KernelDef::new("Mul", BADDEV, |_: &KernelBuild<'_>| Ok(Box::new(BadMul) as Box<dyn OpKernel>))
            .type_constraint("T", &[DType::Float32]),
    );
    register_kernel(KernelDef::new(ferroflow_core::ops::DEVICE_COPY, BADDEV, |_: &KernelBuild<'_>| {
        Ok(Box::new(Copy) as Box<dyn OpKernel>)
    }));
    let report = ferroflow_core::conformance::check_device(BADDEV).unwrap();
    // The off values, and (this Mul does not broadcast) the shape of a broadcast.
    let cases: Vec<&str> = report.mismatches.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(cases, ["Mul float32", "Mul float32 broadcast both"], "{:?}", report.mismatches);
    let what = &report.mismatches[0].1;
    assert!(what.starts_with("result 0["), "{what}");
    assert!(report.passed.is_empty());
}

#[test]
fn every_case_runs_on_the_cpu() {
    let report = ferroflow_core::conformance::check_device("CPU").unwrap();
    assert!(report.mismatches.is_empty() && report.skipped.is_empty(), "{report:?}");
    assert!(report.passed.len() >= 200, "{}", report.passed.len());
}
