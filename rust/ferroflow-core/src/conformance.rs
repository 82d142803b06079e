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
/// matmul, activations, layout) and the optimizer updates, in float32, float64 and
/// float16.
pub fn standard_cases() -> Result<Vec<Case>> {
    let mut cases = Vec::new();
    let case = |name: String, op, inputs, refs, attrs, tolerance| Case { name, op, inputs, refs, attrs, tolerance };
    for dtype in [DType::Float32, DType::Float64, DType::Float16] {
        let tol = match dtype {
            DType::Float32 => 1e-5,
            DType::Float64 => 1e-12,
            // A device may compute in float32 and round once where the CPU rounds
            // each step (or the other way round): a few half ulps.
            _ => 2e-3,
        };
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
        more_math_cases(&mut cases, dtype, tol)?;
        optimizer_cases(&mut cases, dtype, tol)?;
        variable_update_cases(&mut cases, dtype, tol)?;
        conv_cases(&mut cases, dtype, tol)?;
        pool_cases(&mut cases, dtype, tol)?;
    }
    logical_cases(&mut cases)?;
    half_cases(&mut cases)?;
    lstm_cases(&mut cases)?;
    Ok(cases)
}

/// The rest of the elementwise ops, the gradient helpers and the layers' ops a training
/// step runs (every op the GPU backend has a float kernel for).
fn more_math_cases(cases: &mut Vec<Case>, dtype: DType, tol: f64) -> Result<()> {
    let t = |shape: &[usize], seed| tensor(dtype, shape, seed, false);
    let pos = |shape: &[usize], seed| tensor(dtype, shape, seed, true);
    let mut push = |name: String, op, inputs, attrs, tolerance| {
        cases.push(Case { name, op, inputs, refs: vec![], attrs, tolerance });
    };
    let shape = [7usize, 37];
    for op in ["SquaredDifference", "TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad"] {
        push(format!("{op} {dtype}"), op, vec![pos(&shape, 40)?, t(&shape, 41)?], vec![], tol);
    }
    let mut zeros = t(&shape, 85)?;
    zeros = crate::kernels::array::cast(&scale(&zeros, 0.0)?, dtype)?;
    push(format!("DivNoNan {dtype}"), "DivNoNan", vec![t(&shape, 86)?, pos(&shape, 87)?], vec![], tol);
    push(format!("DivNoNan {dtype} by zero"), "DivNoNan", vec![t(&shape, 88)?, zeros], vec![], 0.0);
    push(format!("Mul {dtype} broadcast both"), "Mul", vec![t(&[7, 1], 42)?, t(&[1, 37], 43)?], vec![], tol);
    push(format!("Sub {dtype} scalar"), "Sub", vec![t(&[], 44)?, t(&shape, 45)?], vec![], tol);
    for op in ["Sign", "Sin", "Cos", "Floor", "Ceil", "Round", "Log1p", "ZerosLike", "OnesLike"] {
        push(format!("{op} {dtype}"), op, vec![t(&shape, 46)?], vec![], tol);
    }
    push(format!("Reciprocal {dtype}"), "Reciprocal", vec![pos(&shape, 47)?], vec![], tol);
    push(format!("AddN {dtype}"), "AddN", vec![t(&shape, 48)?, t(&shape, 49)?, t(&shape, 50)?], vec![], tol);
    push(format!("LogSoftmax {dtype}"), "LogSoftmax", vec![t(&shape, 51)?], vec![], tol);
    push(
        format!("SoftmaxCrossEntropyWithLogits {dtype}"),
        "SoftmaxCrossEntropyWithLogits",
        vec![t(&shape, 52)?, pos(&shape, 53)?],
        vec![],
        tol * 10.0,
    );
    let labels = Tensor::from_slice(&[7], &[0i32, 36, 5, 5, 17, 2, 30])?;
    push(
        format!("SparseSoftmaxCrossEntropyWithLogits {dtype}"),
        "SparseSoftmaxCrossEntropyWithLogits",
        vec![t(&shape, 54)?, labels.clone()],
        vec![],
        tol * 10.0,
    );
    push(format!("BiasAddGrad {dtype}"), "BiasAddGrad", vec![t(&shape, 55)?], vec![], tol * 10.0);
    let nchw = vec![("data_format", AttrValue::S(b"NCHW".to_vec()))];
    push(format!("BiasAdd {dtype} NCHW"), "BiasAdd", vec![t(&[2, 3, 5, 4], 56)?, t(&[3], 57)?], nchw.clone(), tol);
    push(format!("BiasAddGrad {dtype} NCHW"), "BiasAddGrad", vec![t(&[2, 3, 5, 4], 58)?], nchw, tol * 10.0);
    push(
        format!("Prod {dtype}"),
        "Prod",
        vec![pos(&shape, 59)?, Tensor::from_slice(&[1], &[0i32])?],
        vec![("keep_dims", AttrValue::B(false))],
        tol * 10.0,
    );
    push(
        format!("Sum {dtype} rank 3 middle axis"),
        "Sum",
        vec![t(&[3, 5, 17], 60)?, Tensor::from_slice(&[1], &[1i32])?],
        vec![("keep_dims", AttrValue::B(false))],
        tol * 10.0,
    );
    push(
        format!("MatMul {dtype} 70x130x90"),
        "MatMul",
        vec![t(&[70, 130], 63)?, t(&[130, 90], 64)?],
        vec![],
        tol * 100.0,
    );
    push(
        format!("Tile {dtype}"),
        "Tile",
        vec![t(&[2, 3, 5], 65)?, Tensor::from_slice(&[3], &[2i32, 1, 3])?],
        vec![],
        0.0,
    );
    push(
        format!("BroadcastTo {dtype}"),
        "BroadcastTo",
        vec![t(&[3, 1], 66)?, Tensor::from_slice(&[3], &[2i32, 3, 4])?],
        vec![],
        0.0,
    );
    push(
        format!("Transpose {dtype} rank 3"),
        "Transpose",
        vec![t(&[2, 3, 5], 67)?, Tensor::from_slice(&[3], &[2i32, 0, 1])?],
        vec![],
        0.0,
    );
    push(
        format!("OneHot {dtype}"),
        "OneHot",
        vec![labels, Tensor::scalar(37i32), scalar(dtype, 1.0)?, scalar(dtype, -0.5)?],
        vec![("axis", AttrValue::I(-1))],
        0.0,
    );
    push(
        format!("Fill {dtype}"),
        "Fill",
        vec![Tensor::from_slice(&[2], &[3i32, 4])?, scalar(dtype, 2.5)?],
        vec![],
        0.0,
    );
    // Comparisons see ties: values on a coarse grid.
    let coarse = |shape: &[usize], seed| -> Result<Tensor> {
        let v: Vec<f64> = values(shape.iter().product(), seed).iter().map(|x| (x * 3.0).round() / 3.0).collect();
        crate::kernels::array::cast(&Tensor::from_slice(shape, &v)?, dtype)
    };
    for op in ["Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"] {
        push(format!("{op} {dtype}"), op, vec![coarse(&shape, 70)?, coarse(&shape, 71)?], vec![], 0.0);
        push(format!("{op} {dtype} broadcast"), op, vec![coarse(&[7, 1], 72)?, coarse(&[37], 73)?], vec![], 0.0);
    }
    let flags = |shape: &[usize], seed| crate::kernels::array::cast(&coarse(shape, seed)?, DType::Bool);
    push(
        format!("Cast {dtype} to bool"),
        "Cast",
        vec![coarse(&shape, 74)?],
        vec![("DstT", AttrValue::Type(DType::Bool))],
        0.0,
    );
    push(
        format!("Cast bool to {dtype}"),
        "Cast",
        vec![flags(&shape, 75)?],
        vec![("DstT", AttrValue::Type(dtype))],
        0.0,
    );
    push(
        format!("SelectV2 {dtype}"),
        "SelectV2",
        vec![flags(&[7, 1], 76)?, t(&shape, 77)?, t(&[37], 78)?],
        vec![],
        0.0,
    );
    for op in ["ArgMax", "ArgMin"] {
        for (axis, out) in [(0i32, DType::Int64), (1, DType::Int32), (-1, DType::Int64)] {
            push(
                format!("{op} {dtype} axis {axis} to {out}"),
                op,
                vec![coarse(&shape, 93)?, Tensor::scalar(axis)],
                vec![("output_type", AttrValue::Type(out))],
                0.0,
            );
        }
    }
    for (axis, indices) in [(0i32, vec![6i32, 0, 6, 3]), (1, vec![36, 2])] {
        push(
            format!("GatherV2 {dtype} axis {axis}"),
            "GatherV2",
            vec![t(&shape, 94)?, Tensor::from_slice(&[indices.len()], &indices)?, Tensor::scalar(axis)],
            vec![],
            0.0,
        );
    }
    push(
        format!("UnsortedSegmentSum {dtype}"),
        "UnsortedSegmentSum",
        vec![t(&shape, 95)?, Tensor::from_slice(&[7], &[3i32, 0, 3, -1, 5, 3, 0])?, Tensor::scalar(6i32)],
        vec![],
        tol,
    );
    // Seeded random fills: the same stream on every device (a tail group of three).
    for op in ["RandomUniform", "RandomStandardNormal", "TruncatedNormal"] {
        push(
            format!("{op} {dtype}"),
            op,
            vec![Tensor::from_slice(&[2], &[5i32, 103])?],
            vec![("dtype", AttrValue::Type(dtype)), ("seed", AttrValue::I(7)), ("seed2", AttrValue::I(11))],
            tol * 10.0,
        );
    }
    push(
        format!("Cast int32 to {dtype}"),
        "Cast",
        vec![Tensor::from_slice(&[5], &[-3i32, 0, 7, 1 << 20, 12])?],
        vec![("DstT", AttrValue::Type(dtype))],
        0.0,
    );
    Ok(())
}

/// Variable updates in place: `AssignAdd`/`AssignSub` and the scatters (rows that
/// repeat: adds accumulate, the last update wins).
fn variable_update_cases(cases: &mut Vec<Case>, dtype: DType, tol: f64) -> Result<()> {
    let shape = [7usize, 37];
    for (k, op) in ["AssignAdd", "AssignSub"].into_iter().enumerate() {
        let inputs = vec![tensor(dtype, &shape, 120 + k as u64, false)?, tensor(dtype, &shape, 122 + k as u64, false)?];
        cases.push(Case { name: format!("{op} {dtype}"), op, inputs, refs: vec![0], attrs: vec![], tolerance: tol });
    }
    let rows = [4i32, 0, 4, 6, 4];
    for (k, op) in ["ScatterUpdate", "ScatterAdd", "ScatterSub"].into_iter().enumerate() {
        let inputs = vec![
            tensor(dtype, &shape, 124 + k as u64, false)?,
            Tensor::from_slice(&[rows.len()], &rows)?,
            tensor(dtype, &[rows.len(), 37], 127 + k as u64, false)?,
        ];
        cases.push(Case { name: format!("{op} {dtype}"), op, inputs, refs: vec![0], attrs: vec![], tolerance: tol });
    }
    Ok(())
}

/// `Conv2D` and its gradients: SAME with strides, VALID with dilations.
fn conv_cases(cases: &mut Vec<Case>, dtype: DType, tol: f64) -> Result<()> {
    let t = |shape: &[usize], seed| tensor(dtype, shape, seed, false);
    let (x, f) = ([2usize, 7, 6, 3], [3usize, 2, 3, 4]);
    // (label, strides, dilations, padding, output rows and columns)
    for (label, strides, dilations, padding, (oh, ow)) in [
        ("SAME strides 1x2", [1i64, 1, 2, 1], [1i64; 4], "SAME", (7, 3)),
        ("VALID dilations 2x2", [1; 4], [1, 2, 2, 1], "VALID", (3, 4)),
    ] {
        let attrs = vec![
            ("strides", AttrValue::ListI(strides.to_vec())),
            ("dilations", AttrValue::ListI(dilations.to_vec())),
            ("padding", AttrValue::S(padding.as_bytes().to_vec())),
        ];
        let dy = [2, oh, ow, 4];
        let sizes = |d: &[usize]| Tensor::from_slice(&[4], &d.iter().map(|&v| v as i32).collect::<Vec<_>>());
        let mut push = |op: &'static str, inputs: Vec<Tensor>| {
            cases.push(Case {
                name: format!("{op} {dtype} {label}"),
                op,
                inputs,
                refs: vec![],
                attrs: attrs.clone(),
                tolerance: tol * 100.0,
            });
        };
        push("Conv2D", vec![t(&x, 130)?, t(&f, 131)?]);
        push("Conv2DBackpropInput", vec![sizes(&x)?, t(&f, 132)?, t(&dy, 133)?]);
        push("Conv2DBackpropFilter", vec![t(&x, 134)?, sizes(&f)?, t(&dy, 135)?]);
    }
    Ok(())
}

/// Pooling and its gradients: SAME and VALID windows, overlapping or not.
fn pool_cases(cases: &mut Vec<Case>, dtype: DType, tol: f64) -> Result<()> {
    let t = |shape: &[usize], seed| tensor(dtype, shape, seed, false);
    let x = [2usize, 7, 6, 3];
    // (label, window, strides, padding, output rows and columns)
    for (label, window, strides, padding, (oh, ow)) in
        [("SAME 3x3 strides 2", 3i64, 2i64, "SAME", (4, 3)), ("VALID 2x2 strides 1", 2, 1, "VALID", (6, 5))]
    {
        let attrs = vec![
            ("ksize", AttrValue::ListI(vec![1, window, window, 1])),
            ("strides", AttrValue::ListI(vec![1, strides, strides, 1])),
            ("padding", AttrValue::S(padding.as_bytes().to_vec())),
        ];
        let dy = [2, oh, ow, 3];
        let mut push = |op: &'static str, inputs: Vec<Tensor>| {
            cases.push(Case {
                name: format!("{op} {dtype} {label}"),
                op,
                inputs,
                refs: vec![],
                attrs: attrs.clone(),
                tolerance: tol * 10.0,
            });
        };
        push("MaxPool", vec![t(&x, 140)?]);
        push("AvgPool", vec![t(&x, 141)?]);
        push("MaxPoolGrad", vec![t(&x, 142)?, t(&dy, 143)?, t(&dy, 144)?]);
        let shape = Tensor::from_slice(&[4], &x.iter().map(|&v| v as i32).collect::<Vec<_>>())?;
        push("AvgPoolGrad", vec![shape, t(&dy, 145)?]);
    }
    Ok(())
}

/// `float16` cases beyond the standard suite's: casts from and to `float32`, and a
/// matmul whose rows start mid-word on a device that packs halves.
fn half_cases(cases: &mut Vec<Case>) -> Result<()> {
    let h = |shape: &[usize], seed, positive| tensor(DType::Float16, shape, seed, positive);
    let mut push = |name: String, op, inputs, attrs| {
        cases.push(Case { name, op, inputs, refs: vec![], attrs, tolerance: 2e-3 });
    };
    let shape = [7usize, 37];
    let dst = |d| vec![("DstT", AttrValue::Type(d))];
    push(
        "Cast float32 to float16".into(),
        "Cast",
        vec![tensor(DType::Float32, &shape, 150, false)?],
        dst(DType::Float16),
    );
    push("Cast float16 to float32".into(), "Cast", vec![h(&shape, 151, false)?], dst(DType::Float32));
    // Odd sizes, both transposed: rows of A and B start mid-word.
    let attrs = vec![("transpose_a", AttrValue::B(true)), ("transpose_b", AttrValue::B(true))];
    push(
        "MatMul float16 transpose_a true transpose_b true".into(),
        "MatMul",
        vec![h(&[19, 13], 158, false)?, h(&[21, 19], 159, false)?],
        attrs,
    );
    Ok(())
}

/// The fused LSTM ops in `float32` (their only type besides `float16`): a step and a
/// sequence run for 3 of its 4 steps, forward and back, with peepholes and clipping,
/// in odd sizes (batch 5, input 7, cell 9). The grad ops' saved values are arbitrary:
/// they are functions of whatever they are handed.
fn lstm_cases(cases: &mut Vec<Case>) -> Result<()> {
    let f = |shape: &[usize], seed| tensor(DType::Float32, shape, seed, false);
    let (batch, input, cell, time) = (5usize, 7usize, 9usize, 4usize);
    let weights = || -> Result<Vec<Tensor>> {
        let w = f(&[input + cell, 4 * cell], 160)?;
        Ok(vec![w, f(&[cell], 161)?, f(&[cell], 162)?, f(&[cell], 163)?, f(&[4 * cell], 164)?])
    };
    let attrs = || {
        vec![("forget_bias", AttrValue::F(0.7)), ("cell_clip", AttrValue::F(0.5)), ("use_peephole", AttrValue::B(true))]
    };
    let peephole = || vec![("use_peephole", AttrValue::B(true))];
    let mut push = |name: &str, op, inputs, attrs| {
        cases.push(Case { name: name.into(), op, inputs, refs: vec![], attrs, tolerance: 1e-4 });
    };
    let step = [batch, cell];
    let mut inputs = vec![f(&[batch, input], 165)?, f(&step, 166)?, f(&step, 167)?];
    inputs.extend(weights()?);
    push("LSTMBlockCell float32 peephole clip", "LSTMBlockCell", inputs.clone(), attrs());
    inputs.extend((0..8).map(|k| f(&step, 170 + k)).collect::<Result<Vec<_>>>()?);
    push("LSTMBlockCellGrad float32 peephole", "LSTMBlockCellGrad", inputs, peephole());
    let seq = Tensor::scalar(3i64);
    let mut inputs = vec![seq, f(&[time, batch, input], 180)?, f(&step, 181)?, f(&step, 182)?];
    inputs.extend(weights()?);
    push("BlockLSTM float32 peephole clip 3 of 4 steps", "BlockLSTM", inputs.clone(), attrs());
    let saved = [time, batch, cell];
    inputs.extend((0..9).map(|k| f(&saved, 190 + k)).collect::<Result<Vec<_>>>()?);
    push("BlockLSTMGrad float32 peephole 3 of 4 steps", "BlockLSTMGrad", inputs, peephole());
    Ok(())
}

/// `bool` cases: the logical ops (once: they have no dtype attr).
fn logical_cases(cases: &mut Vec<Case>) -> Result<()> {
    let flags = |shape: &[usize], seed| -> Result<Tensor> {
        let v: Vec<f64> =
            values(shape.iter().product(), seed).iter().map(|x| if *x > 0.0 { 1.0 } else { 0.0 }).collect();
        crate::kernels::array::cast(&Tensor::from_slice(shape, &v)?, DType::Bool)
    };
    for op in ["LogicalAnd", "LogicalOr"] {
        let inputs = vec![flags(&[7, 37], 90)?, flags(&[37], 91)?];
        cases.push(Case { name: format!("{op} broadcast"), op, inputs, refs: vec![], attrs: vec![], tolerance: 0.0 });
    }
    let inputs = vec![flags(&[5, 3], 92)?];
    cases.push(Case {
        name: "LogicalNot".into(),
        op: "LogicalNot",
        inputs,
        refs: vec![],
        attrs: vec![],
        tolerance: 0.0,
    });
    Ok(())
}

/// A hyper-parameter value an optimizer is usually given, by input name.
fn hyper_value(name: &str) -> f64 {
    match name {
        "momentum" | "beta1" | "beta1_power" | "rho" => 0.9,
        "beta2" | "beta2_power" => 0.999,
        "epsilon" => 1e-7,
        "l1" => 0.01,
        "l2" => 0.02,
        "l2_shrinkage" => 0.005,
        "lr_power" => -0.5,
        _ => 0.01, // lr, alpha
    }
}

/// Every optimizer update (dense and sparse; each flag at its other value too), from
/// the training ops' table: the variable and slots set from inputs, scalar
/// hyper-parameters, and for the sparse ops rows that repeat (applied in order).
fn optimizer_cases(cases: &mut Vec<Case>, dtype: DType, tol: f64) -> Result<()> {
    let shape = [7usize, 37];
    for (k, spec) in crate::ops::training::SPECS.iter().enumerate() {
        // TF has no 16-bit kernel of some updates (the proximal ones): no reference.
        if !cpu_runs(spec.op, dtype) {
            continue;
        }
        let seed = 100 + 20 * k as u64;
        let rows = [4i32, 0, 4, 6];
        let grad_shape = if spec.indices.is_some() { vec![rows.len(), 37] } else { shape.to_vec() };
        let mut inputs = Vec::with_capacity(spec.inputs.len());
        for (i, name) in spec.inputs.iter().enumerate() {
            let seed = seed + i as u64;
            let value = if i == spec.grad {
                tensor(dtype, &grad_shape, seed, false)?
            } else if Some(i) == spec.indices {
                Tensor::from_slice(&[rows.len()], &rows)?
            } else if Some(i) == spec.step {
                Tensor::scalar(5i64)
            } else if spec.refs.contains(&i) {
                let v = tensor(dtype, &shape, seed, !signed_slot(spec.family, name) && i != 0)?;
                if *name == "mg" { crate::kernels::array::cast(&scale(&v, 0.1)?, dtype)? } else { v }
            } else {
                scalar(dtype, hyper_value(name))?
            };
            inputs.push(value);
        }
        let flags: Vec<Vec<(&'static str, AttrValue)>> = match spec.flag {
            Some((flag, default)) => vec![vec![], vec![(flag, AttrValue::B(!default))]],
            None => vec![vec![]],
        };
        // FTRL's `linear` takes a difference of square roots over `lr`: in half, one
        // device rounding each step and the other once differ by ulps of the roots
        // times 1/lr.
        let ftrl = matches!(spec.family, crate::ops::training::Family::Ftrl | crate::ops::training::Family::FtrlV2);
        let tolerance = if ftrl && dtype == DType::Float16 { tol * 40.0 } else { tol * 10.0 };
        for attrs in flags {
            let label = attrs.first().map(|(f, _)| format!(" {f}")).unwrap_or_default();
            cases.push(Case {
                name: format!("{} {dtype}{label}", spec.op),
                op: spec.op,
                inputs: inputs.clone(),
                refs: spec.refs.to_vec(),
                attrs,
                tolerance,
            });
        }
    }
    Ok(())
}

/// Whether the CPU has a kernel of `op` for `dtype` (by its type constraint).
fn cpu_runs(op: &str, dtype: DType) -> bool {
    crate::kernels::registry::kernels_of(op, "CPU")
        .iter()
        .any(|k| k.type_constraint.is_none_or(|(_, dtypes)| dtypes.contains(&dtype)))
}

/// Whether a slot may be negative: momenta, first moments and FTRL's `linear` may;
/// accumulators of squares (and Momentum's `accum`, which is a velocity) are positive
/// except where noted.
fn signed_slot(family: crate::ops::training::Family, name: &str) -> bool {
    use crate::ops::training::Family;
    match name {
        "mom" | "m" | "mg" | "linear" | "gradient_accumulator" => true,
        "accum" => matches!(family, Family::Momentum),
        _ => false,
    }
}

/// `t * factor`, in float64.
fn scale(t: &Tensor, factor: f64) -> Result<Tensor> {
    let v = crate::kernels::array::cast(t, DType::Float64)?;
    let scaled: Vec<f64> = v.as_slice::<f64>()?.iter().map(|x| x * factor).collect();
    Tensor::from_slice(t.shape(), &scaled)
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
        // A case the CPU has no kernel for has no reference (soft placement would put
        // the reference run on the device under test): it is skipped.
        let outcome = run_case(case, "/device:CPU:0").and_then(|(want, on_cpu)| {
            if !on_cpu {
                return Ok((false, None));
            }
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
