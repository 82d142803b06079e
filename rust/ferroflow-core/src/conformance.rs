//! Kernel conformance across devices (candle's `test_device!`, burn's backend tests):
//! one suite of op cases, each run on a device under test and on the CPU, whose results
//! must agree. A backend crate calls [`check_device`] from its tests with its device
//! type; a case whose op (for its dtypes) the device has no kernel for is skipped and
//! listed, so a report shows what a backend covers.
//!
//! Each case is a small graph: constant inputs, the op placed on the device (and, for
//! the optimizer ops, its variable and slots placed there too, set from the inputs),
//! every output fetched, and every variable read back after the update. Inputs are
//! deterministic pseudo-random values in shapes that exercise vector loops and their
//! tails.
use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::RwLock;

use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::executor::{DirectSession, SessionOptions};
use crate::graph::{AttrValue, Graph, NodeId, NodeSpec, Output};
use crate::tensor::Tensor;

/// One op to run on both devices.
pub struct Case {
    /// A label for reports (`"MatMul f32 transpose_b"`).
    pub name: String,
    /// The op type.
    pub op: &'static str,
    /// Input values, in the op's order.
    pub inputs: Vec<Tensor>,
    /// Inputs that are reference variables (set from their value before the op runs).
    pub refs: Vec<usize>,
    /// Attributes beyond the ones shape inference fills in.
    pub attrs: Vec<(&'static str, AttrValue)>,
    /// Largest allowed `|a - b| / max(1, |b|)` per element (0 for exact).
    pub tolerance: f64,
}

/// What [`check_device`] found.
#[derive(Debug, Default)]
pub struct Report {
    /// Cases the device ran and that agreed with the CPU.
    pub passed: Vec<String>,
    /// Cases the device has no kernel for.
    pub skipped: Vec<String>,
    /// Cases whose results differed (or that failed), with what differed.
    pub mismatches: Vec<(String, String)>,
}

/// Deterministic values in `[-1, 1)` (a 64-bit LCG), so reports are reproducible.
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            #[allow(clippy::cast_precision_loss)]
            let unit = (s >> 11) as f64 / (1u64 << 53) as f64;
            unit * 2.0 - 1.0
        })
        .collect()
}

/// A tensor of `dtype` and `shape` with [`values`] (positive when `positive`).
fn tensor(dtype: DType, shape: &[usize], seed: u64, positive: bool) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = values(n, seed).into_iter().map(|x| if positive { x.abs() + 0.1 } else { x }).collect();
    let t = Tensor::from_slice(shape, &v)?;
    crate::kernels::array::cast(&t, dtype)
}

fn scalar(dtype: DType, v: f64) -> Result<Tensor> {
    crate::kernels::array::cast(&Tensor::scalar(v), dtype)
}

/// The standard suite: what a dense training step needs (elementwise, reductions,
/// matmul, activations, layout) and the optimizer updates, in float32 and float64.
pub fn standard_cases() -> Result<Vec<Case>> {
    let mut cases = Vec::new();
    let case = |name: String, op, inputs, refs, attrs, tolerance| Case { name, op, inputs, refs, attrs, tolerance };
    for dtype in [DType::Float32, DType::Float64] {
        let tol = if dtype == DType::Float32 { 1e-5 } else { 1e-12 };
        let t = |shape: &[usize], seed| tensor(dtype, shape, seed, false);
        let pos = |shape: &[usize], seed| tensor(dtype, shape, seed, true);
        let shape = [7usize, 37];
        for op in ["AddV2", "Sub", "Mul", "Maximum", "Minimum"] {
            cases.push(case(format!("{op} {dtype}"), op, vec![t(&shape, 1)?, t(&shape, 2)?], vec![], vec![], tol));
        }
        cases.push(case(
            format!("RealDiv {dtype}"),
            "RealDiv",
            vec![t(&shape, 3)?, pos(&shape, 4)?],
            vec![],
            vec![],
            tol,
        ));
        cases.push(case(
            format!("AddV2 {dtype} broadcast"),
            "AddV2",
            vec![t(&shape, 5)?, t(&[37], 6)?],
            vec![],
            vec![],
            tol,
        ));
        for op in ["Neg", "Square", "Relu", "Tanh", "Sigmoid", "Exp", "Abs"] {
            cases.push(case(format!("{op} {dtype}"), op, vec![t(&shape, 7)?], vec![], vec![], tol));
        }
        for op in ["Sqrt", "Rsqrt", "Log"] {
            cases.push(case(format!("{op} {dtype}"), op, vec![pos(&shape, 8)?], vec![], vec![], tol));
        }
        cases.push(case(
            format!("ReluGrad {dtype}"),
            "ReluGrad",
            vec![t(&shape, 9)?, t(&shape, 10)?],
            vec![],
            vec![],
            tol,
        ));
        for op in ["Sum", "Mean", "Max", "Min"] {
            for (axes, keep) in [(vec![1i32], false), (vec![0], true), (vec![0, 1], false)] {
                let axes_t = Tensor::from_slice(&[axes.len()], &axes)?;
                cases.push(case(
                    format!("{op} {dtype} axes {axes:?} keep_dims {keep}"),
                    op,
                    vec![t(&shape, 11)?, axes_t],
                    vec![],
                    vec![("keep_dims", AttrValue::B(keep))],
                    tol * 10.0,
                ));
            }
        }
        for (ta, tb) in [(false, false), (true, false), (false, true)] {
            let a = if ta { t(&[19, 13], 12)? } else { t(&[13, 19], 12)? };
            let b = if tb { t(&[21, 19], 13)? } else { t(&[19, 21], 13)? };
            cases.push(case(
                format!("MatMul {dtype} transpose_a {ta} transpose_b {tb}"),
                "MatMul",
                vec![a, b],
                vec![],
                vec![("transpose_a", AttrValue::B(ta)), ("transpose_b", AttrValue::B(tb))],
                tol * 10.0,
            ));
        }
        cases.push(case(
            format!("BiasAdd {dtype}"),
            "BiasAdd",
            vec![t(&shape, 14)?, t(&[37], 15)?],
            vec![],
            vec![],
            tol,
        ));
        cases.push(case(format!("Softmax {dtype}"), "Softmax", vec![t(&shape, 16)?], vec![], vec![], tol));
        cases.push(case(
            format!("Transpose {dtype}"),
            "Transpose",
            vec![t(&shape, 17)?, Tensor::from_slice(&[2], &[1i32, 0])?],
            vec![],
            vec![],
            0.0,
        ));
        cases.push(case(
            format!("Reshape {dtype}"),
            "Reshape",
            vec![t(&shape, 18)?, Tensor::from_slice(&[2], &[37i32, 7])?],
            vec![],
            vec![],
            0.0,
        ));
        cases.push(case(
            format!("Cast {dtype} to int32"),
            "Cast",
            vec![t(&shape, 19)?],
            vec![],
            vec![("DstT", AttrValue::Type(DType::Int32))],
            0.0,
        ));
        // Optimizer updates: variable (and slots) first, as TF orders the inputs.
        let lr = || scalar(dtype, 0.01);
        cases.push(case(
            format!("ApplyGradientDescent {dtype}"),
            "ApplyGradientDescent",
            vec![t(&shape, 20)?, lr()?, t(&shape, 21)?],
            vec![0],
            vec![],
            tol,
        ));
        cases.push(case(
            format!("ApplyMomentum {dtype}"),
            "ApplyMomentum",
            vec![t(&shape, 22)?, t(&shape, 23)?, lr()?, t(&shape, 24)?, scalar(dtype, 0.9)?],
            vec![0, 1],
            vec![],
            tol,
        ));
        cases.push(case(
            format!("ApplyAdam {dtype}"),
            "ApplyAdam",
            vec![
                t(&shape, 25)?,
                t(&shape, 26)?,
                pos(&shape, 27)?,
                scalar(dtype, 0.9)?,
                scalar(dtype, 0.999)?,
                lr()?,
                scalar(dtype, 0.9)?,
                scalar(dtype, 0.999)?,
                scalar(dtype, 1e-7)?,
                t(&shape, 28)?,
            ],
            vec![0, 1, 2],
            vec![],
            tol,
        ));
        cases.push(case(
            format!("ApplyRMSProp {dtype}"),
            "ApplyRMSProp",
            vec![
                t(&shape, 29)?,
                pos(&shape, 30)?,
                t(&shape, 31)?,
                lr()?,
                scalar(dtype, 0.9)?,
                scalar(dtype, 0.5)?,
                scalar(dtype, 1e-7)?,
                t(&shape, 32)?,
            ],
            vec![0, 1, 2],
            vec![],
            tol,
        ));
    }
    Ok(cases)
}

/// Where one run of a case put its values: the op's outputs, then the variables.
fn run_case(case: &Case, device: &str) -> Result<(Vec<Tensor>, bool)> {
    let graph = Arc::new(RwLock::new(Graph::new()));
    let (fetches, inits, op_node) = {
        let mut g = graph.write();
        let mut add = |name: &str, op: &str, inputs: Vec<Output>, attrs: Vec<(&str, AttrValue)>, dev: &str| {
            let attrs: BTreeMap<String, AttrValue> = attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            let spec = NodeSpec {
                name: name.to_string(),
                op: op.to_string(),
                inputs,
                control_inputs: Vec::new(),
                attrs,
                device: dev.to_string(),
            };
            g.add_node(spec).map(|id| Output { node: id, index: 0 })
        };
        let mut inputs = Vec::with_capacity(case.inputs.len());
        let (mut inits, mut vars) = (Vec::new(), Vec::new());
        for (i, value) in case.inputs.iter().enumerate() {
            let c = add(&format!("input_{i}"), "Const", vec![], vec![("value", AttrValue::Tensor(value.clone()))], "")?;
            if case.refs.contains(&i) {
                let shape = crate::shape::PartialShape::known(value.shape());
                let var_attrs = vec![("dtype", AttrValue::Type(value.dtype())), ("shape", AttrValue::Shape(shape))];
                let v = add(&format!("var_{i}"), "VariableV2", vec![], var_attrs, device)?;
                inits.push(add(&format!("init_{i}"), "Assign", vec![v, c], vec![], device)?.node);
                vars.push(v);
                inputs.push(v);
            } else {
                inputs.push(c);
            }
        }
        let op = add("op", case.op, inputs, case.attrs.clone(), device)?;
        let reads = vars
            .iter()
            .enumerate()
            .map(|(k, v)| add(&format!("read_{k}"), "Identity", vec![*v], vec![], device))
            .collect::<Result<Vec<_>>>()?;
        let outputs = g.node(op.node)?.outputs.len();
        let mut fetches: Vec<Output> = (0..outputs).map(|index| Output { node: op.node, index }).collect();
        fetches.extend(reads);
        (fetches, inits, op.node)
    };
    let session = DirectSession::new(graph, SessionOptions { allow_soft_placement: true, ..Default::default() });
    session.run_once(&[], &[], &inits)?;
    let update: Vec<NodeId> = if case.refs.is_empty() { vec![] } else { vec![op_node] };
    let (op_fetches, reads) = fetches.split_at(fetches.len() - case.refs.len());
    let plan = session.prepare(&[], op_fetches, &update)?;
    let placed = plan
        .placement()
        .iter()
        .any(|(name, dev)| *name == "op" && dev.contains(&format!("device:{}:", device_type_of(device))));
    let mut out = session.run(&plan, Vec::new())?;
    out.extend(session.run_once(&[], reads, &[])?);
    Ok((out, placed))
}

fn device_type_of(device: &str) -> &str {
    device.trim_start_matches("/device:").split(':').next().unwrap_or(device)
}

/// How two results of one case differ, if they do beyond the case's tolerance.
fn difference(case: &Case, got: &[Tensor], want: &[Tensor]) -> Result<Option<String>> {
    if got.len() != want.len() {
        return Ok(Some(format!("{} results, the CPU gave {}", got.len(), want.len())));
    }
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        if a.dtype() != b.dtype() || a.shape() != b.shape() {
            return Ok(Some(format!(
                "result {k} is {} {:?}, the CPU's {} {:?}",
                a.dtype(),
                a.shape(),
                b.dtype(),
                b.shape()
            )));
        }
        let (a64, b64) =
            (crate::kernels::array::cast(a, DType::Float64)?, crate::kernels::array::cast(b, DType::Float64)?);
        for (i, (x, y)) in a64.as_slice::<f64>()?.iter().zip(b64.as_slice::<f64>()?).enumerate() {
            let err = (x - y).abs() / y.abs().max(1.0);
            if err > case.tolerance || x.is_nan() != y.is_nan() {
                return Ok(Some(format!("result {k}[{i}] is {x}, the CPU's {y}")));
            }
        }
    }
    Ok(None)
}

/// Runs `cases` on `device_type` (its device 0) and on the CPU and compares them.
pub fn check_device_with(device_type: &str, cases: &[Case]) -> Report {
    let device = format!("/device:{device_type}:0");
    let mut report = Report::default();
    for case in cases {
        let outcome = run_case(case, "/device:CPU:0").and_then(|(want, _)| {
            let (got, placed) = run_case(case, &device)?;
            Ok((placed, difference(case, &got, &want)?))
        });
        match outcome {
            Ok((false, _)) => report.skipped.push(case.name.clone()),
            Ok((true, None)) => report.passed.push(case.name.clone()),
            Ok((true, Some(d))) => report.mismatches.push((case.name.clone(), d)),
            Err(e) => report.mismatches.push((case.name.clone(), e.to_string())),
        }
    }
    report
}

/// [`check_device_with`] the [`standard_cases`].
pub fn check_device(device_type: &str) -> Result<Report> {
    let cases = standard_cases()?;
    if cases.is_empty() {
        return Err(Error::new(Code::Internal, "no conformance cases"));
    }
    Ok(check_device_with(device_type, &cases))
}
