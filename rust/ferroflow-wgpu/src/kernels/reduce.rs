//! Reductions (`Sum`, `Mean`, `Max`, `Min`, `Prod`) over any axes, with `keep_dims`:
//! one invocation per output element folds its reduced elements in order. The fold's
//! step is the core's element function (`Num::add`, `max`, ...) traced to WGSL.
use std::sync::Arc;

use ferroflow_core::error::Result;
use ferroflow_core::framework::tensor_util::int_values;
use ferroflow_core::kernels::num::Num;
use ferroflow_core::kernels::reduce::{Reduction, reduction_axes};
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::tensor::Tensor;

use super::{Binding, F32, buf, count_u32, device_input, gpu_of, output, shader, words};
use crate::DEVICE_TYPE;
use crate::expr::{Expr, literal, trace};
use crate::gpu::Gpu;

fn name(red: Reduction) -> &'static str {
    match red {
        Reduction::Sum => "sum",
        Reduction::Mean => "mean",
        Reduction::Max => "max",
        Reduction::Min => "min",
        Reduction::Prod => "prod",
    }
}

/// `x` reduced over `axes` (sorted, distinct).
pub fn reduce(gpu: &Arc<Gpu>, x: &Tensor, axes: &[usize], keep_dims: bool, red: Reduction) -> Result<Tensor> {
    let dims = x.shape();
    let strides = super::broadcast_strides(dims, dims);
    let (mut kept, mut kept_strides, mut reduced, mut reduced_strides) = (vec![], vec![], vec![], vec![]);
    for d in 0..dims.len() {
        if axes.contains(&d) {
            reduced.push(dims[d]);
            reduced_strides.push(strides[d]);
        } else {
            kept.push(dims[d]);
            kept_strides.push(strides[d]);
        }
    }
    let out_shape: Vec<usize> = if keep_dims {
        (0..dims.len()).map(|d| if axes.contains(&d) { 1 } else { dims[d] }).collect()
    } else {
        kept.clone()
    };
    let out = output(gpu, x.dtype(), &out_shape)?;
    let n = count_u32(out.num_elements(), "reduction")?;
    if n == 0 {
        return Ok(out);
    }
    let total: usize = reduced.iter().product();
    let pipeline = gpu.pipeline(&format!("reduce/{}", name(red)), || {
        let (acc, step) = trace(|| {
            let (acc, v) = (Expr::var("acc"), Expr::var("x[off]"));
            match red {
                Reduction::Sum | Reduction::Mean => acc.add(v),
                Reduction::Prod => acc.mul(v),
                Reduction::Max => acc.max(v),
                Reduction::Min => acc.min(v),
            }
        });
        let init = match red {
            Reduction::Sum | Reduction::Mean => 0.0,
            Reduction::Prod => 1.0,
            Reduction::Max => f32::NEG_INFINITY,
            Reduction::Min => f32::INFINITY,
        };
        let finish = if red == Reduction::Mean { "acc / f32(total)" } else { "acc" };
        shader(
            &[Binding("x", "f32", false), Binding("out", "f32", true)],
            &format!(
                "    if (i >= p[0]) {{ return; }}\n    let nk = p[1];\n    let nr = p[2];\n    let total = p[3];\n    \
                 var base = 0u;\n    var rem = i;\n    for (var q = nk; q > 0u; q = q - 1u) {{\n        let dim = p[3u + q];\n        \
                 base = base + (rem % dim) * p[3u + nk + q];\n        rem = rem / dim;\n    }}\n    var acc: f32 = {init};\n    \
                 for (var r = 0u; r < total; r = r + 1u) {{\n        var off = base;\n        var rr = r;\n        \
                 for (var q = nr; q > 0u; q = q - 1u) {{\n            let dim = p[3u + 2u * nk + q];\n            \
                 off = off + (rr % dim) * p[3u + 2u * nk + nr + q];\n            rr = rr / dim;\n        }}\n{step}        \
                 acc = {acc};\n    }}\n    out[i] = {finish};\n",
                init = literal(init),
            ),
        )
    })?;
    let mut params = vec![n, count_u32(kept.len(), "reduction")?, count_u32(reduced.len(), "reduction")?];
    params.push(count_u32(total, "reduction")?);
    params.extend(words(&kept)?);
    params.extend(words(&kept_strides)?);
    params.extend(words(&reduced)?);
    params.extend(words(&reduced_strides)?);
    gpu.dispatch(&pipeline, &[buf(x)?, buf(&out)?], &params, n as usize);
    Ok(out)
}

struct Reduce {
    gpu: Arc<Gpu>,
    red: Reduction,
    keep_dims: bool,
}

fn reduce_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let red = match b.node.op_type() {
        "Sum" => Reduction::Sum,
        "Mean" => Reduction::Mean,
        "Max" => Reduction::Max,
        "Min" => Reduction::Min,
        _ => Reduction::Prod,
    };
    Ok(Box::new(Reduce { gpu: gpu_of(b)?, red, keep_dims: b.node.attr_or("keep_dims", false)? }))
}

impl OpKernel for Reduce {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = device_input(ctx, 0, &self.gpu)?;
        let axes = reduction_axes(&int_values(&ctx.input(1)?.to_host()?)?, x.shape().len())?;
        let out = reduce(&self.gpu, &x, &axes, self.keep_dims, self.red)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(crate) fn register() {
    for op in ["Sum", "Mean", "Max", "Min", "Prod"] {
        register_kernel(
            KernelDef::new(op, DEVICE_TYPE, reduce_kernel)
                .type_constraint("T", F32)
                .host_memory(&["reduction_indices"]),
        );
    }
}
