//! Constants, fills, casts and layout kernels: `Const` (uploaded once per plan),
//! `Fill`, `Cast` to `float32`, and the gathers `BroadcastTo`, `Tile`, `Transpose`.
//! Shapes, multiples and permutations arrive in host memory.
use std::sync::{Arc, OnceLock};

use ferroflow_core::error::{Error, Result};
use ferroflow_core::framework::tensor_util::int_values;
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::shape::{broadcast_shapes, fmt_shape};
use ferroflow_core::tensor::Tensor;
use ferroflow_core::{AttrValue, DType};

use super::{
    Binding, F32, broadcast_strides, buf, count_u32, device_input, gpu_of, output, shader, strided_offset, to_device,
    words,
};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// `Const`: the value uploaded at its first run and kept for the plan's life.
struct Const {
    gpu: Arc<Gpu>,
    value: Tensor,
    uploaded: OnceLock<Tensor>,
}

fn const_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let value = match b.node.attrs.get("value") {
        Some(AttrValue::Tensor(t)) => t.clone(),
        _ => return Err(Error::invalid_argument(format!("Const {} has no value", b.node.name))),
    };
    Ok(Box::new(Const { gpu: gpu_of(b)?, value, uploaded: OnceLock::new() }))
}

impl OpKernel for Const {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = match self.uploaded.get() {
            Some(t) => t.clone(),
            None => {
                let t = to_device(&self.value, &self.gpu)?;
                self.uploaded.get_or_init(|| t).clone()
            }
        };
        ctx.set_output(0, t);
        Ok(())
    }
}

/// `Fill(dims, value)`: `dims` on the host, `value` a scalar in GPU memory (a host
/// value is written into the kernel's parameters instead).
struct Fill(Arc<Gpu>);

impl OpKernel for Fill {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dims = shape_values(ctx.input(0)?, "dims")?;
        let value = ctx.input(1)?;
        if !value.shape().is_empty() {
            return Err(Error::invalid_argument(format!(
                "value must be a scalar, got shape {}",
                fmt_shape(value.shape())
            )));
        }
        let out = match super::buffer_on(value, &self.0) {
            None => fill(&self.0, &dims, value.to_host()?.scalar_value::<f32>()?)?,
            Some(v) => {
                let out = output(&self.0, DType::Float32, &dims)?;
                let n = count_u32(out.num_elements(), "Fill")?;
                let pipeline = self.0.pipeline("fill_from", || {
                    shader(
                        &[Binding("v", "f32", false), Binding("out", "f32", true)],
                        "    if (i >= p[0]) { return; }\n    out[i] = v[0];\n",
                    )
                })?;
                self.0.dispatch(&pipeline, &[v.buffer(), buf(&out)?], &[n], n as usize);
                out
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// Non-negative dimensions from an int tensor (`name` for the error).
fn shape_values(t: &Tensor, name: &str) -> Result<Vec<usize>> {
    int_values(&t.to_host()?)?
        .into_iter()
        .map(|d| {
            usize::try_from(d).map_err(|_| Error::invalid_argument(format!("{name} must be non-negative, got {d}")))
        })
        .collect()
}

/// A `float32` tensor of `shape` filled with `value`.
pub fn fill(gpu: &Arc<Gpu>, shape: &[usize], value: f32) -> Result<Tensor> {
    let out = output(gpu, DType::Float32, shape)?;
    let n = count_u32(out.num_elements(), "Fill")?;
    let pipeline = gpu.pipeline("fill", || {
        shader(&[Binding("out", "f32", true)], "    if (i >= p[0]) { return; }\n    out[i] = bitcast<f32>(p[1]);\n")
    })?;
    gpu.dispatch(&pipeline, &[buf(&out)?], &[n, value.to_bits()], n as usize);
    Ok(out)
}

/// Output element `i` reads input element at a strided offset (coordinates taken
/// modulo the input's dimensions when `wrap`): broadcasting, tiling, transposing.
pub fn gather(gpu: &Arc<Gpu>, x: &Tensor, out_shape: &[usize], strides: &[usize], wrap: bool) -> Result<Tensor> {
    let out = output(gpu, x.dtype(), out_shape)?;
    let n = count_u32(out.num_elements(), "gather")?;
    if n == 0 {
        return Ok(out);
    }
    let key = if wrap { "gather/wrap" } else { "gather" };
    let pipeline = gpu.pipeline(key, || {
        shader(
            &[Binding("x", "u32", false), Binding("out", "u32", true)],
            &format!("    if (i >= p[0]) {{ return; }}\n{}    out[i] = x[off];\n", strided_offset("off", 2, wrap)),
        )
    })?;
    let mut params = vec![n, count_u32(out_shape.len(), "gather")?];
    params.extend(words(out_shape)?);
    params.extend(words(strides)?);
    if wrap {
        let pad = out_shape.len() - x.shape().len();
        let dims: Vec<usize> = (0..out_shape.len()).map(|d| if d < pad { 1 } else { x.shape()[d - pad] }).collect();
        params.extend(words(&dims)?);
    }
    gpu.dispatch(&pipeline, &[buf(x)?, buf(&out)?], &params, n as usize);
    Ok(out)
}

/// The kernels of the gathers.
#[derive(Clone, Copy)]
enum Layout {
    BroadcastTo,
    Tile,
    Transpose,
}

struct Gather(Arc<Gpu>, Layout);

impl OpKernel for Gather {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = device_input(ctx, 0, &self.0)?;
        let arg = shape_values(ctx.input(1)?, "argument")?;
        let dims = x.shape();
        let out = match self.1 {
            Layout::BroadcastTo => {
                if broadcast_shapes(dims, &arg)?.as_slice() != arg.as_slice() || dims.len() > arg.len() {
                    return Err(Error::invalid_argument(format!(
                        "Unable to broadcast tensor of shape {} to tensor of shape {}",
                        fmt_shape(dims),
                        fmt_shape(&arg)
                    )));
                }
                gather(&self.0, &x, &arg, &broadcast_strides(dims, &arg), false)?
            }
            Layout::Tile => {
                if arg.len() != dims.len() {
                    return Err(Error::invalid_argument(format!(
                        "Expected multiples argument to be a vector of length {} but got length {}",
                        dims.len(),
                        arg.len()
                    )));
                }
                let shape: Vec<usize> = dims.iter().zip(&arg).map(|(d, m)| d * m).collect();
                gather(&self.0, &x, &shape, &broadcast_strides(dims, dims), true)?
            }
            Layout::Transpose => {
                let mut seen = vec![false; dims.len()];
                if arg.len() != dims.len()
                    || arg.iter().any(|&p| p >= dims.len() || std::mem::replace(&mut seen[p], true))
                {
                    return Err(Error::invalid_argument(format!(
                        "transpose expects a permutation of 0..{} for a tensor of shape {}",
                        dims.len(),
                        fmt_shape(dims)
                    )));
                }
                let strides = broadcast_strides(dims, dims);
                let shape: Vec<usize> = arg.iter().map(|&p| dims[p]).collect();
                let permuted: Vec<usize> = arg.iter().map(|&p| strides[p]).collect();
                gather(&self.0, &x, &shape, &permuted, false)?
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `OneHot` along the last axis: `indices` in host memory (uploaded as `i32`; an
/// index outside `[0, depth)` gives a row of `off_value`, as TF).
struct OneHot {
    gpu: Arc<Gpu>,
    axis: i64,
}

impl OpKernel for OneHot {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let indices = ctx.input(0)?.to_host()?;
        let depth = int_values(&ctx.input(1)?.to_host()?)?;
        let (on, off) =
            (ctx.input(2)?.to_host()?.scalar_value::<f32>()?, ctx.input(3)?.to_host()?.scalar_value::<f32>()?);
        let depth = match depth.as_slice() {
            [d] if *d >= 0 => *d as usize,
            _ => return Err(Error::invalid_argument("depth must be a non-negative scalar")),
        };
        if self.axis != -1 && self.axis != indices.shape().len() as i64 {
            return Err(Error::new(ferroflow_core::Code::Unimplemented, "OneHot on the GPU takes axis -1 only"));
        }
        let classes: Vec<i32> = int_values(&indices)?
            .into_iter()
            .map(|i| i32::try_from(i).ok().filter(|&k| k >= 0 && (k as usize) < depth).unwrap_or(-1))
            .collect();
        let mut shape = indices.shape().to_vec();
        shape.push(depth);
        let out = output(&self.gpu, DType::Float32, &shape)?;
        let n = count_u32(out.num_elements(), "OneHot")?;
        if n > 0 {
            let idx = to_device(&Tensor::from_slice(&[classes.len()], &classes)?, &self.gpu)?;
            let pipeline = self.gpu.pipeline("one_hot", || {
                shader(
                    &[Binding("idx", "i32", false), Binding("out", "f32", true)],
                    "    if (i >= p[0]) { return; }\n    let hit = idx[i / p[1]] == i32(i % p[1]);\n    \
                     out[i] = select(bitcast<f32>(p[3]), bitcast<f32>(p[2]), hit);\n",
                )
            })?;
            let params = [n, count_u32(depth, "OneHot")?, on.to_bits(), off.to_bits()];
            self.gpu.dispatch(&pipeline, &[buf(&idx)?, buf(&out)?], &params, n as usize);
        }
        ctx.set_output(0, out);
        Ok(())
    }
}

fn one_hot_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(OneHot { gpu: gpu_of(b)?, axis: b.node.attr_or("axis", -1i64)? }))
}

fn broadcast_to_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Gather(gpu_of(b)?, Layout::BroadcastTo)))
}
fn tile_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Gather(gpu_of(b)?, Layout::Tile)))
}
fn transpose_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Gather(gpu_of(b)?, Layout::Transpose)))
}
fn fill_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Fill(gpu_of(b)?)))
}
pub(crate) fn register() {
    register_kernel(KernelDef::new("Const", DEVICE_TYPE, const_kernel));
    register_kernel(KernelDef::new("OneHot", DEVICE_TYPE, one_hot_kernel).type_constraint("T", F32).host_memory(&[
        "indices",
        "depth",
        "on_value",
        "off_value",
    ]));
    register_kernel(KernelDef::new("Fill", DEVICE_TYPE, fill_kernel).type_constraint("T", F32).host_memory(&["dims"]));
    register_kernel(
        KernelDef::new("BroadcastTo", DEVICE_TYPE, broadcast_to_kernel)
            .type_constraint("T", F32)
            .host_memory(&["shape"]),
    );
    register_kernel(
        KernelDef::new("Tile", DEVICE_TYPE, tile_kernel).type_constraint("T", F32).host_memory(&["multiples"]),
    );
    register_kernel(
        KernelDef::new("Transpose", DEVICE_TYPE, transpose_kernel).type_constraint("T", F32).host_memory(&["perm"]),
    );
}
