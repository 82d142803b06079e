//! In-place updates of `float32` variables in GPU memory: `AssignAdd`/`AssignSub` and
//! `ScatterUpdate`/`ScatterAdd`/`ScatterSub`. The variable is write-locked for the
//! update and its buffer made its own first (copy-on-write, as on the CPU). Scatter
//! rows are checked on the host with the CPU's errors; a repeated row is applied one
//! dispatch per occurrence, in order, so adds accumulate and the last update wins.
use std::sync::Arc;

use ferroflow_core::DType;
use ferroflow_core::error::{Error, Result};
use ferroflow_core::framework::tensor_util::int_values;
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::shape::fmt_shape;
use ferroflow_core::tensor::Tensor;

use super::{Binding, F32, buf, count_u32, device_input, gpu_of, shader, to_device};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// How an update combines a row with the variable's.
#[derive(Clone, Copy)]
enum Mode {
    Update,
    Add,
    Sub,
}

impl Mode {
    fn of(op: &str) -> Mode {
        if op.ends_with("Update") {
            Mode::Update
        } else if op.ends_with("Add") {
            Mode::Add
        } else {
            Mode::Sub
        }
    }
    /// WGSL of the new value from `dst[d]` (the variable's) and `u`.
    fn expr(self) -> &'static str {
        match self {
            Mode::Update => "u",
            Mode::Add => "dst[d] + u",
            Mode::Sub => "dst[d] - u",
        }
    }
    fn name(self) -> &'static str {
        match self {
            Mode::Update => "update",
            Mode::Add => "add",
            Mode::Sub => "sub",
        }
    }
}

/// The variable of ref input 0 locked, in `gpu`'s memory and exclusively its own;
/// `f` gets it.
fn update_in_place(ctx: &mut OpContext<'_>, gpu: &Arc<Gpu>, f: impl FnOnce(&Tensor) -> Result<()>) -> Result<()> {
    let var = Arc::clone(ctx.ref_input(0)?);
    {
        let mut g = var.write()?;
        if g.dtype() != DType::Float32 {
            return Err(Error::invalid_argument(format!("no GPU update kernel for {}", g.dtype())));
        }
        if super::buffer_on(&g, gpu).is_none() {
            *g = to_device(&g, gpu)?;
        }
        g.device_memory_mut()?;
        f(&g)?;
    }
    ctx.set_ref_output(0, var);
    Ok(())
}

/// `AssignAdd` / `AssignSub`.
struct AssignUpdate {
    gpu: Arc<Gpu>,
    mode: Mode,
}

impl OpKernel for AssignUpdate {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let delta = device_input(ctx, 1, &self.gpu)?;
        let (gpu, mode) = (Arc::clone(&self.gpu), self.mode);
        update_in_place(ctx, &self.gpu, |v| {
            if v.shape() != delta.shape() {
                return Err(Error::invalid_argument(format!(
                    "Parameters and update must be the same size: {} vs. {}",
                    fmt_shape(v.shape()),
                    fmt_shape(delta.shape())
                )));
            }
            let n = count_u32(v.num_elements(), "AssignAdd")?;
            let pipeline = gpu.pipeline(&format!("assign_{}", mode.name()), || {
                shader(
                    &[Binding("dst", "f32", true), Binding("delta", "f32", false)],
                    &format!(
                        "    if (i >= p[0]) {{ return; }}\n    let d = i;\n    let u = delta[i];\n    dst[d] = {};\n",
                        mode.expr()
                    ),
                )
            })?;
            gpu.dispatch(&pipeline, &[buf(v)?, buf(&delta)?], &[n], n as usize);
            Ok(())
        })
    }
}

/// `ScatterUpdate` / `ScatterAdd` / `ScatterSub`.
struct Scatter {
    gpu: Arc<Gpu>,
    mode: Mode,
}

impl OpKernel for Scatter {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let indices_t = ctx.input(1)?.to_host()?;
        let indices = int_values(&indices_t)?;
        let updates = device_input(ctx, 2, &self.gpu)?;
        let (gpu, mode) = (Arc::clone(&self.gpu), self.mode);
        update_in_place(ctx, &self.gpu, |v| {
            // updates.shape must be indices.shape + var.shape[1:].
            let mut want = indices_t.shape().to_vec();
            want.extend_from_slice(v.shape().get(1..).unwrap_or(&[]));
            if v.shape().is_empty() || updates.shape() != want.as_slice() {
                return Err(Error::invalid_argument(format!(
                    "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got \
                     updates.shape {}, indices.shape {}, params.shape {}",
                    fmt_shape(updates.shape()),
                    fmt_shape(indices_t.shape()),
                    fmt_shape(v.shape())
                )));
            }
            let rows = v.shape()[0];
            let width: usize = v.shape()[1..].iter().product();
            // (variable row, update row) pairs, checked.
            let pairs = indices
                .iter()
                .enumerate()
                .map(|(i, &ix)| match usize::try_from(ix) {
                    Ok(r) if r < rows => Ok((r, i)),
                    _ => Err(Error::invalid_argument(format!("indices[{i}] = {ix} is not in [0, {rows})"))),
                })
                .collect::<Result<Vec<_>>>()?;
            let layers = super::occurrence_layers(pairs, "Scatter")?;
            if width == 0 {
                return Ok(());
            }
            let pipeline = gpu.pipeline(&format!("scatter_{}", mode.name()), || {
                shader(
                    &[Binding("dst", "f32", true), Binding("updates", "f32", false), Binding("pairs", "u32", false)],
                    &format!(
                        "    if (i >= p[0]) {{ return; }}\n    let w = p[1];\n    let r = i / w;\n    let c = i % w;\n    \
                         let d = pairs[2u * r] * w + c;\n    let u = updates[pairs[2u * r + 1u] * w + c];\n    \
                         dst[d] = {};\n",
                        mode.expr()
                    ),
                )
            })?;
            let w = count_u32(width, "Scatter")?;
            for layer in layers {
                let pairs = to_device(&Tensor::from_slice(&[layer.len()], &layer)?, &gpu)?;
                let threads = layer.len() / 2 * width;
                let p = [count_u32(threads, "Scatter")?, w];
                gpu.dispatch(&pipeline, &[buf(v)?, buf(&updates)?, buf(&pairs)?], &p, threads);
            }
            Ok(())
        })
    }
}

pub(crate) fn register() {
    for op in ["AssignAdd", "AssignSub"] {
        register_kernel(
            KernelDef::new(op, DEVICE_TYPE, |b: &KernelBuild<'_>| {
                Ok(Box::new(AssignUpdate { gpu: gpu_of(b)?, mode: Mode::of(b.node.op_type()) }) as Box<dyn OpKernel>)
            })
            .type_constraint("T", F32),
        );
    }
    for op in ["ScatterUpdate", "ScatterAdd", "ScatterSub"] {
        register_kernel(
            KernelDef::new(op, DEVICE_TYPE, |b: &KernelBuild<'_>| {
                Ok(Box::new(Scatter { gpu: gpu_of(b)?, mode: Mode::of(b.node.op_type()) }) as Box<dyn OpKernel>)
            })
            .type_constraint("T", F32)
            .host_memory(&["indices"]),
        );
    }
}
