//! Elementwise kernels, generated from the core's element functions
//! (`kernels::math`'s `BinaryFn`, `UnaryFn`, `FloatFn`) traced through [`Expr`]:
//! binary ops with numpy broadcasting, unary maths, activations and their gradients.
use std::sync::Arc;

use ferroflow_core::DType;
use ferroflow_core::error::Result;
use ferroflow_core::kernels::KernelFn;
use ferroflow_core::kernels::math::{self as m, BinaryFn, FloatFn, UnaryFn};
use ferroflow_core::kernels::num::Num;
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::shape::broadcast_shapes;
use ferroflow_core::tensor::Tensor;

use super::{Binding, F32, broadcast_strides, buf, count_u32, device_input, gpu_of, output, shader, words};
use crate::DEVICE_TYPE;
use crate::expr::{Expr, trace};
use crate::gpu::Gpu;

/// An element function of one or two operands, as a traced WGSL body.
pub type Traced = fn(&[Expr]) -> Expr;

/// `op`'s WGSL body and result for operands read as `reads`.
fn traced(f: Traced, reads: &[&str]) -> (String, String) {
    let (out, body) = trace(|| {
        let xs: Vec<Expr> = reads.iter().map(|r| Expr::var(*r)).collect();
        f(&xs)
    });
    (body, out.to_string())
}

/// A binary op with broadcasting over `float32`.
struct Binary {
    gpu: Arc<Gpu>,
    name: &'static str,
    f: Traced,
}

impl OpKernel for Binary {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (device_input(ctx, 0, &self.gpu)?, device_input(ctx, 1, &self.gpu)?);
        let out = binary(&self.gpu, self.name, self.f, &a, &b)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `f(a, b)` elementwise with numpy broadcasting, on the GPU.
pub fn binary(gpu: &Arc<Gpu>, name: &str, f: Traced, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let out = output(gpu, a.dtype(), &shape)?;
    let n = count_u32(out.num_elements(), name)?;
    if n == 0 {
        return Ok(out);
    }
    let same = a.shape() == b.shape();
    let key = format!("binary/{name}/{}", if same { "same" } else { "strided" });
    let pipeline = gpu.pipeline(&key, || {
        let (body, result) = traced(f, &["a[ia]", "b[ib]"]);
        let index = if same {
            "    let ia = i;\n    let ib = i;\n".to_string()
        } else {
            // Output dims at p[2..], a's strides after them, b's after those.
            "    let rank = p[1];\n    var ia = 0u;\n    var ib = 0u;\n    var rem = i;\n    \
             for (var k = rank; k > 0u; k = k - 1u) {\n        let d = k - 1u;\n        let dim = p[2u + d];\n        \
             let c = rem % dim;\n        rem = rem / dim;\n        ia = ia + c * p[2u + rank + d];\n        \
             ib = ib + c * p[2u + 2u * rank + d];\n    }\n"
                .to_string()
        };
        shader(
            &[Binding("a", "f32", false), Binding("b", "f32", false), Binding("out", "f32", true)],
            &format!("    if (i >= p[0]) {{ return; }}\n{index}{body}    out[i] = {result};\n"),
        )
    })?;
    let mut params = vec![n, count_u32(shape.len(), name)?];
    if !same {
        params.extend(words(&shape)?);
        params.extend(words(&broadcast_strides(a.shape(), &shape))?);
        params.extend(words(&broadcast_strides(b.shape(), &shape))?);
    }
    gpu.dispatch(&pipeline, &[buf(a)?, buf(b)?, buf(&out)?], &params, n as usize);
    Ok(out)
}

/// A unary op over `float32`.
struct Unary {
    gpu: Arc<Gpu>,
    name: &'static str,
    f: Traced,
}

impl OpKernel for Unary {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = device_input(ctx, 0, &self.gpu)?;
        let out = unary(&self.gpu, self.name, self.f, &x)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `f(x)` elementwise on the GPU.
pub fn unary(gpu: &Arc<Gpu>, name: &str, f: Traced, x: &Tensor) -> Result<Tensor> {
    let out = output(gpu, x.dtype(), x.shape())?;
    let n = count_u32(out.num_elements(), name)?;
    if n == 0 {
        return Ok(out);
    }
    let pipeline = gpu.pipeline(&format!("unary/{name}"), || {
        let (body, result) = traced(f, &["x[i]"]);
        shader(
            &[Binding("x", "f32", false), Binding("out", "f32", true)],
            &format!("    if (i >= p[0]) {{ return; }}\n{body}    out[i] = {result};\n"),
        )
    })?;
    gpu.dispatch(&pipeline, &[buf(x)?, buf(&out)?], &[n], n as usize);
    Ok(out)
}

/// `AddN`: the inputs (all one shape) summed left to right, as the CPU's.
struct AddN(Arc<Gpu>);

/// `a + b`, the core's `AddFn` (also `BiasAdd`'s).
pub fn add(x: &[Expr]) -> Expr {
    m::AddFn::apply(x[0], x[1])
}

impl OpKernel for AddN {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut sum = device_input(ctx, 0, &self.0)?;
        for i in 1..ctx.num_inputs() {
            let x = device_input(ctx, i, &self.0)?;
            if x.shape() != sum.shape() {
                return Err(ferroflow_core::Error::invalid_argument(format!(
                    "Inputs to operation AddN must have the same size and shape.  Input 0: {} != input {i}: {}",
                    ferroflow_core::shape::fmt_shape(sum.shape()),
                    ferroflow_core::shape::fmt_shape(x.shape())
                )));
            }
            sum = binary(&self.0, "AddV2", add, &sum, &x)?;
        }
        ctx.set_output(0, sum);
        Ok(())
    }
}

fn add_n_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(AddN(gpu_of(b)?)))
}

fn bin<F: BinaryFn>(x: &[Expr]) -> Expr {
    F::apply(x[0], x[1])
}
fn un<F: UnaryFn>(x: &[Expr]) -> Expr {
    F::apply(x[0])
}
fn fl<F: FloatFn>(x: &[Expr]) -> Expr {
    F::apply(x[0])
}

/// `Relu`: `max(x, 0)`, NaN passed on.
fn relu(x: &[Expr]) -> Expr {
    x[0].max(Expr::ZERO)
}
/// `ReluGrad(dy, x)`: `dy` where `x > 0`.
fn relu_grad(x: &[Expr]) -> Expr {
    x[1].select_gt(Expr::ZERO, x[0], Expr::ZERO)
}
/// `DivNoNan(x, y)`: `x / y`, or 0 where `y` is 0 (the core's `DivNoNanFn`, whose
/// branch on a value a symbolic number cannot take).
fn div_no_nan(x: &[Expr]) -> Expr {
    Expr::var(format!("select({a} / {b}, 0.0, {b} == 0.0)", a = x[0], b = x[1]))
}
fn zeros(_: &[Expr]) -> Expr {
    Expr::ZERO
}
fn ones(_: &[Expr]) -> Expr {
    Expr::ONE
}

/// The binary ops: name and element function.
const BINARY: &[(&str, Traced)] = &[
    ("AddV2", bin::<m::AddFn>),
    ("Add", bin::<m::AddFn>),
    ("Sub", bin::<m::SubFn>),
    ("Mul", bin::<m::MulFn>),
    ("RealDiv", bin::<m::DivFn>),
    ("Div", bin::<m::DivFn>),
    ("DivNoNan", div_no_nan),
    ("Maximum", bin::<m::MaxFn>),
    ("Minimum", bin::<m::MinFn>),
    ("SquaredDifference", bin::<m::SquaredDifferenceFn>),
    ("SqrtGrad", bin::<m::SqrtGradFn>),
    ("RsqrtGrad", bin::<m::RsqrtGradFn>),
    ("ReciprocalGrad", bin::<m::ReciprocalGradFn>),
    ("TanhGrad", bin::<m::TanhGradFn>),
    ("SigmoidGrad", bin::<m::SigmoidGradFn>),
    ("ReluGrad", relu_grad),
];

/// The unary ops.
const UNARY: &[(&str, Traced)] = &[
    ("Neg", un::<m::NegFn>),
    ("Square", un::<m::SquareFn>),
    ("Abs", un::<m::AbsFn>),
    ("Sign", un::<m::SignFn>),
    ("Sqrt", fl::<m::SqrtFn>),
    ("Rsqrt", fl::<m::RsqrtFn>),
    ("Reciprocal", fl::<m::ReciprocalFn>),
    ("Inv", fl::<m::ReciprocalFn>),
    ("Exp", fl::<m::ExpFn>),
    ("Log", fl::<m::LogFn>),
    ("Log1p", fl::<m::Log1pFn>),
    ("Tanh", fl::<m::TanhFn>),
    ("Sigmoid", fl::<m::SigmoidFn>),
    ("Sin", fl::<m::SinFn>),
    ("Cos", fl::<m::CosFn>),
    ("Floor", fl::<m::FloorFn>),
    ("Ceil", fl::<m::CeilFn>),
    ("Round", fl::<m::RoundFn>),
    ("Relu", relu),
    ("ZerosLike", zeros),
    ("OnesLike", ones),
];

/// A table op over `float16` values: kept two to a word in GPU memory, computed in
/// `f32` by the same traced element function, rounded when stored.
struct Half {
    gpu: Arc<Gpu>,
    name: &'static str,
    f: Traced,
}

impl OpKernel for Half {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs: Vec<Tensor> =
            (0..ctx.num_inputs()).map(|i| device_input(ctx, i, &self.gpu)).collect::<Result<_>>()?;
        let reads: Vec<String> = (0..inputs.len()).map(|k| format!("v{k}")).collect();
        let reads: Vec<&str> = reads.iter().map(String::as_str).collect();
        let (body, result) = traced(self.f, &reads);
        let refs: Vec<&Tensor> = inputs.iter().collect();
        let out = super::logic::broadcast_map(&self.gpu, self.name, &refs, DType::Float16, &body, &result)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// A kernel factory per table row (plain `fn`s, as the registry stores them).
macro_rules! factories {
    ($table:ident, $kernel:ident, $($i:literal)*) => {
        [$(|b: &KernelBuild<'_>| -> Result<Box<dyn OpKernel>> {
            let (name, f) = $table[$i];
            Ok(Box::new($kernel { gpu: gpu_of(b)?, name, f }))
        }),*]
    };
}

pub(crate) fn register() {
    register_kernel(KernelDef::new("AddN", DEVICE_TYPE, add_n_kernel).type_constraint("T", F32));
    let binary: [KernelFn; 16] = factories!(BINARY, Binary, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    for ((name, _), factory) in BINARY.iter().zip(binary) {
        register_kernel(KernelDef::new(name, DEVICE_TYPE, factory).type_constraint("T", F32));
    }
    let unary: [KernelFn; 21] = factories!(UNARY, Unary, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20);
    for ((name, _), factory) in UNARY.iter().zip(unary) {
        register_kernel(KernelDef::new(name, DEVICE_TYPE, factory).type_constraint("T", F32));
    }
    let binary: [KernelFn; 16] = factories!(BINARY, Half, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    let unary: [KernelFn; 21] = factories!(UNARY, Half, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20);
    for ((name, _), factory) in BINARY.iter().chain(UNARY).zip(binary.into_iter().chain(unary)) {
        register_kernel(KernelDef::new(name, DEVICE_TYPE, factory).type_constraint("T", &[DType::Float16]));
    }
}
