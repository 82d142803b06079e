//! `BiasAdd` and its gradient (through the broadcasting add and the reduction),
//! `Softmax`/`LogSoftmax` and the two softmax cross-entropies with their backprop, one
//! invocation per row (the max-shifted log-sum-exp, as the CPU's rows).
use std::sync::Arc;

use ferroflow_core::error::{Error, Result};
use ferroflow_core::framework::tensor_util::int_values;
use ferroflow_core::kernels::nn::channel_axis;
use ferroflow_core::kernels::reduce::Reduction;
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::shape::fmt_shape;
use ferroflow_core::tensor::Tensor;

use super::{Binding, F32, buf, count_u32, device_input, gpu_of, output, shader, to_device};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// WGSL computing row `i`'s max `mx` and log-sum-exp `lse` over `c` columns of `x`
/// from `base`.
const ROW_LSE: &str = "    let c = p[1];\n    let base = i * c;\n    var mx = bitcast<f32>(0xff800000u);\n    \
    for (var j = 0u; j < c; j = j + 1u) { mx = max(mx, x[base + j]); }\n    var s = 0.0;\n    \
    for (var j = 0u; j < c; j = j + 1u) { s = s + exp(x[base + j] - mx); }\n    let lse = log(s);\n";

/// Rows and columns of a matrix-like tensor (columns: the last dimension).
fn rows_cols(x: &Tensor) -> Result<(usize, usize)> {
    let c = *x.shape().last().ok_or_else(|| Error::invalid_argument("logits must have at least one dimension"))?;
    Ok((x.num_elements().checked_div(c).unwrap_or(0), c))
}

struct Softmax {
    gpu: Arc<Gpu>,
    log: bool,
}

impl OpKernel for Softmax {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = device_input(ctx, 0, &self.gpu)?;
        let (rows, c) = rows_cols(&x)?;
        let out = output(&self.gpu, x.dtype(), x.shape())?;
        if rows > 0 {
            let key = if self.log { "log_softmax" } else { "softmax" };
            let value = if self.log { "x[base + j] - mx - lse" } else { "exp(x[base + j] - mx - lse)" };
            let pipeline = self.gpu.pipeline(key, || {
                shader(
                    &[Binding("x", "f32", false), Binding("out", "f32", true)],
                    &format!(
                        "    if (i >= p[0]) {{ return; }}\n{ROW_LSE}    for (var j = 0u; j < c; j = j + 1u) {{ out[base + j] = {value}; }}\n"
                    ),
                )
            })?;
            let params = [count_u32(rows, "Softmax")?, count_u32(c, "Softmax")?];
            count_u32(x.num_elements(), "Softmax")?;
            self.gpu.dispatch(&pipeline, &[buf(&x)?, buf(&out)?], &params, rows);
        }
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The cross-entropies: dense labels (a distribution per row) or sparse (a class).
struct Xent {
    gpu: Arc<Gpu>,
    sparse: bool,
}

impl OpKernel for Xent {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = device_input(ctx, 0, &self.gpu)?;
        let shape = x.shape().to_vec();
        let labels = if self.sparse {
            // Checked on the host, with the CPU kernel's error, then uploaded as i32.
            let labels = int_values(&ctx.input(1)?.to_host()?)?;
            if shape.len() != 2 || labels.len() != shape[0] {
                return Err(Error::invalid_argument(format!(
                    "logits must be 2-D and labels 1-D with as many rows: logits shape {} labels {}",
                    fmt_shape(&shape),
                    labels.len()
                )));
            }
            if shape[1] == 0 {
                return Err(Error::invalid_argument(format!(
                    "Must have at least one class, but got logits shape {}",
                    fmt_shape(&shape)
                )));
            }
            let mut classes = Vec::with_capacity(labels.len());
            for &label in &labels {
                match i32::try_from(label).ok().filter(|&k| k >= 0 && (k as usize) < shape[1]) {
                    Some(k) => classes.push(k),
                    None => {
                        return Err(Error::invalid_argument(format!(
                            "Received a label value of {label} which is outside the valid range of [0, {}).",
                            shape[1]
                        )));
                    }
                }
            }
            to_device(&Tensor::from_slice(&[classes.len()], &classes)?, &self.gpu)?
        } else {
            let labels = device_input(ctx, 1, &self.gpu)?;
            if labels.shape() != shape.as_slice() || shape.len() != 2 {
                return Err(Error::invalid_argument(format!(
                    "logits and labels must be 2-D and the same shape: logits_size={} labels_size={}",
                    fmt_shape(&shape),
                    fmt_shape(labels.shape())
                )));
            }
            labels
        };
        let (rows, c) = (shape[0], shape[1]);
        let loss = output(&self.gpu, x.dtype(), &[rows])?;
        let back = output(&self.gpu, x.dtype(), &shape)?;
        if rows > 0 {
            let (key, label_type, per_class) = if self.sparse {
                (
                    "sparse_xent",
                    "i32",
                    "let ls = x[base + j] - mx - lse;\n        let hit = j == u32(labels[i]);\n        \
                     total = total - select(0.0, ls, hit);\n        back[base + j] = exp(ls) - select(0.0, 1.0, hit);",
                )
            } else {
                (
                    "xent",
                    "f32",
                    "let ls = x[base + j] - mx - lse;\n        let y = labels[base + j];\n        total = total - y * ls;\n        \
                     back[base + j] = exp(ls) - y;",
                )
            };
            let pipeline = self.gpu.pipeline(key, || {
                shader(
                    &[
                        Binding("x", "f32", false),
                        Binding("labels", label_type, false),
                        Binding("loss", "f32", true),
                        Binding("back", "f32", true),
                    ],
                    &format!(
                        "    if (i >= p[0]) {{ return; }}\n{ROW_LSE}    var total = 0.0;\n    \
                         for (var j = 0u; j < c; j = j + 1u) {{\n        {per_class}\n    }}\n    loss[i] = total;\n"
                    ),
                )
            })?;
            count_u32(x.num_elements(), "SoftmaxCrossEntropyWithLogits")?;
            let params = [count_u32(rows, "xent")?, count_u32(c, "xent")?];
            self.gpu.dispatch(&pipeline, &[buf(&x)?, buf(&labels)?, buf(&loss)?, buf(&back)?], &params, rows);
        }
        ctx.set_output(0, loss);
        ctx.set_output(1, back);
        Ok(())
    }
}

struct BiasAdd {
    gpu: Arc<Gpu>,
    format: String,
}

impl OpKernel for BiasAdd {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (v, b) = (device_input(ctx, 0, &self.gpu)?, device_input(ctx, 1, &self.gpu)?);
        let rank = v.shape().len();
        let axis = channel_axis(&self.format, v.shape())?;
        if b.shape().len() != 1 || b.shape()[0] != v.shape()[axis] {
            return Err(Error::invalid_argument(format!(
                "Must provide as many biases as the channel dimension of the input tensor: {} vs. {}",
                fmt_shape(b.shape()),
                fmt_shape(v.shape())
            )));
        }
        // The bias as [C, 1, ..., 1] broadcasts along the channel axis.
        let mut bias_shape = vec![1; rank - axis];
        bias_shape[0] = b.shape()[0];
        let out =
            super::elementwise::binary(&self.gpu, "AddV2", super::elementwise::add, &v, &b.reshaped(&bias_shape)?)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

struct BiasAddGrad {
    gpu: Arc<Gpu>,
    format: String,
}

impl OpKernel for BiasAddGrad {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let g = device_input(ctx, 0, &self.gpu)?;
        let rank = g.shape().len();
        let axis = channel_axis(&self.format, g.shape())?;
        let axes: Vec<usize> = (0..rank).filter(|&d| d != axis).collect();
        let out = super::reduce::reduce(&self.gpu, &g, &axes, false, Reduction::Sum)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn softmax_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Softmax { gpu: gpu_of(b)?, log: b.node.op_type() == "LogSoftmax" }))
}
fn xent_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Xent { gpu: gpu_of(b)?, sparse: b.node.op_type().starts_with("Sparse") }))
}
fn bias_add_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(BiasAdd { gpu: gpu_of(b)?, format: b.node.attr_or("data_format", "NHWC".to_string())? }))
}
fn bias_add_grad_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(BiasAddGrad { gpu: gpu_of(b)?, format: b.node.attr_or("data_format", "NHWC".to_string())? }))
}

pub(crate) fn register() {
    for op in ["Softmax", "LogSoftmax"] {
        register_kernel(KernelDef::new(op, DEVICE_TYPE, softmax_kernel).type_constraint("T", F32));
    }
    register_kernel(
        KernelDef::new("SoftmaxCrossEntropyWithLogits", DEVICE_TYPE, xent_kernel).type_constraint("T", F32),
    );
    register_kernel(
        KernelDef::new("SparseSoftmaxCrossEntropyWithLogits", DEVICE_TYPE, xent_kernel)
            .type_constraint("T", F32)
            .host_memory(&["labels"]),
    );
    register_kernel(KernelDef::new("BiasAdd", DEVICE_TYPE, bias_add_kernel).type_constraint("T", F32));
    register_kernel(KernelDef::new("BiasAddGrad", DEVICE_TYPE, bias_add_grad_kernel).type_constraint("T", F32));
}
