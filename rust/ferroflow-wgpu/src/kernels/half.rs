//! `float16` for the ops whose GPU kernels compute in `float32`: reductions, softmax and
//! the cross-entropies, bias ops, convolutions, pooling, layout ops, indexing, variable
//! updates and every optimizer update. A `float16` node runs the op's `float32` kernel
//! on widened copies of its `float16` inputs, and each `float16` result is rounded
//! once when narrowed back. That is TF's arithmetic for half on a GPU (its reductions,
//! softmax and convolutions accumulate in float); elementwise ops, casts and matmul
//! read the packed halves themselves (`elementwise.rs`, `matmul.rs`) and are not
//! wrapped.
//!
//! A `float16` variable an op updates in place (optimizer updates, `AssignAdd`, the
//! scatters) is write-locked for the whole update: its value is widened into a private
//! `float32` twin that the kernel updates, and the twin's value, rounded, becomes the
//! variable's.
use std::sync::Arc;

use ferroflow_core::DType;
use ferroflow_core::error::{Code, Error, Result};
use ferroflow_core::framework::resource::Var;
use ferroflow_core::kernels::registry::{KernelDef, kernels_of, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel, Value};
use ferroflow_core::shape::PartialShape;
use ferroflow_core::tensor::Tensor;
use smallvec::SmallVec;

use super::logic::map;
use super::{buffer_on, gpu_of, to_device};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// The ops given `float16` kernels here (each has a `float32` GPU kernel).
const WIDENED: &[&str] = &[
    "Sum",
    "Mean",
    "Max",
    "Min",
    "Prod",
    "Softmax",
    "LogSoftmax",
    "SoftmaxCrossEntropyWithLogits",
    "SparseSoftmaxCrossEntropyWithLogits",
    "BiasAdd",
    "BiasAddGrad",
    "Conv2D",
    "Conv2DBackpropInput",
    "Conv2DBackpropFilter",
    "MaxPool",
    "AvgPool",
    "MaxPoolGrad",
    "AvgPoolGrad",
    "AddN",
    "SelectV2",
    "ArgMax",
    "ArgMin",
    "GatherV2",
    "UnsortedSegmentSum",
    "OneHot",
    "Fill",
    "BroadcastTo",
    "Tile",
    "Transpose",
    "AssignAdd",
    "AssignSub",
    "ScatterUpdate",
    "ScatterAdd",
    "ScatterSub",
    "RandomUniform",
    "RandomStandardNormal",
    "TruncatedNormal",
];

/// `t` as `float32`: converted on the GPU when it is in `gpu`'s memory; a host value
/// (a hyper-parameter, a host-memory argument) converted where it is.
pub fn widen(gpu: &Arc<Gpu>, t: &Tensor) -> Result<Tensor> {
    if buffer_on(t, gpu).is_some() {
        map(gpu, "Cast", &[t], &[None], t.shape(), DType::Float32, "", "v0")
    } else {
        ferroflow_core::kernels::array::cast(&t.to_host()?, DType::Float32)
    }
}

/// `t` rounded to `float16` in `gpu`'s memory.
pub fn narrow(gpu: &Arc<Gpu>, t: &Tensor) -> Result<Tensor> {
    let t = to_device(t, gpu)?;
    map(gpu, "Cast", &[&t], &[None], t.shape(), DType::Float16, "", "v0")
}

/// A `float16` node run by its op's `float32` kernel.
struct Widened {
    gpu: Arc<Gpu>,
    inner: Box<dyn OpKernel>,
    /// Which outputs the node declares `float16`.
    half_outputs: Vec<bool>,
}

/// The `float32` twin of `var` among `twins`, made on first sight (one per variable,
/// so a variable passed twice is still one variable to the kernel).
fn twin_of(twins: &mut Vec<(Arc<Var>, Arc<Var>)>, var: Arc<Var>) -> Arc<Var> {
    if let Some((_, twin)) = twins.iter().find(|(v, _)| Arc::ptr_eq(v, &var)) {
        return Arc::clone(twin);
    }
    let twin = Arc::new(Var::new(var.name(), DType::Float32, PartialShape::unknown()));
    twins.push((var, Arc::clone(&twin)));
    twin
}

impl OpKernel for Widened {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut twins: Vec<(Arc<Var>, Arc<Var>)> = Vec::new();
        let mut inputs: SmallVec<[Option<Value>; 4]> = SmallVec::with_capacity(ctx.num_inputs());
        for i in 0..ctx.num_inputs() {
            if !ctx.has_input(i) {
                inputs.push(None);
                continue;
            }
            inputs.push(Some(match ctx.take_value(i)? {
                Value::Tensor(t) if t.dtype() == DType::Float16 => Value::Tensor(widen(&self.gpu, &t)?),
                Value::Ref(var) if var.dtype() == DType::Float16 => Value::Ref(twin_of(&mut twins, var)),
                other => other,
            }));
        }
        // The variables stay locked from widening to narrowing, so no other update
        // interleaves with this one.
        let mut guards = twins.iter().map(|(var, _)| var.write()).collect::<Result<Vec<_>>>()?;
        for ((_, twin), value) in twins.iter().zip(&guards) {
            twin.assign(widen(&self.gpu, value)?, false)?;
        }
        let mut wide = OpContext::new(inputs, ctx.num_outputs(), ctx.env, ctx.wait);
        self.inner.compute(&mut wide)?;
        for ((_, twin), value) in twins.iter().zip(&mut guards) {
            **value = narrow(&self.gpu, &twin.read()?)?;
        }
        drop(guards);
        for (k, out) in wide.into_outputs()?.into_iter().enumerate() {
            let out = match out {
                Some(Value::Tensor(t)) if self.half_outputs[k] && t.dtype() == DType::Float32 => {
                    Value::Tensor(narrow(&self.gpu, &t)?)
                }
                Some(Value::Ref(r)) => match twins.iter().find(|(_, twin)| Arc::ptr_eq(twin, &r)) {
                    Some((var, _)) => Value::Ref(Arc::clone(var)),
                    None => Value::Ref(r),
                },
                Some(other) => other,
                None => return Err(Error::new(Code::Internal, format!("kernel did not set output {k}"))),
            };
            ctx.set_value_output(k, out);
        }
        Ok(())
    }
    fn is_blocking(&self) -> bool {
        self.inner.is_blocking()
    }
}

/// The `float32` GPU kernel of `op`.
fn float_kernel(op: &str) -> Option<KernelDef> {
    kernels_of(op, DEVICE_TYPE)
        .into_iter()
        .rev()
        .find(|k| k.type_constraint.is_some_and(|(_, dtypes)| dtypes.contains(&DType::Float32)))
}

fn widened_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let def = float_kernel(b.node.op_type()).ok_or_else(|| {
        Error::new(Code::Internal, format!("no float32 GPU kernel of {} to run float16 with", b.node.op_type()))
    })?;
    Ok(Box::new(Widened {
        gpu: gpu_of(b)?,
        inner: (def.factory)(b)?,
        half_outputs: b.node.outputs.iter().map(|o| o.dtype == DType::Float16).collect(),
    }))
}

/// Whether the CPU runs `op` in `float16` (TF has no half kernel of some ops, such as
/// the proximal updates; a GPU gets none either, so a graph fails alike on both).
fn cpu_has_half(op: &str) -> bool {
    kernels_of(op, "CPU").iter().any(|k| k.type_constraint.is_none_or(|(_, dtypes)| dtypes.contains(&DType::Float16)))
}

/// Registers the `float16` kernels: each op's `float32` kernel definition (its host
/// memory marks included) for `float16` nodes, built by [`widened_kernel`]. Runs after
/// the `float32` kernels are registered.
pub(crate) fn register() {
    let ops = WIDENED.iter().copied().chain(ferroflow_core::ops::training::SPECS.iter().map(|s| s.op));
    for op in ops.filter(|op| cpu_has_half(op)) {
        if let Some(def) = float_kernel(op)
            && let Some((attr, _)) = def.type_constraint
        {
            register_kernel(KernelDef { factory: widened_kernel, ..def }.type_constraint(attr, &[DType::Float16]));
        }
    }
}
