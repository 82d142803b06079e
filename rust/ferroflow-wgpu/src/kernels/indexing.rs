//! `ArgMax`/`ArgMin`, `GatherV2` and `UnsortedSegmentSum` of `float32` on the GPU.
//!
//! Integer results in GPU memory have the CPU's layout: `int32` as one word, `int64`
//! as two (low word first; indices are never negative). Gather indices arrive in host
//! memory, where they are checked (TF's CPU error, not its GPU's silent zeros) before
//! they go up as words.
use std::sync::Arc;

use ferroflow_core::DType;
use ferroflow_core::error::{Error, Result};
use ferroflow_core::framework::tensor_util::int_values;
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::shape::{fmt_shape, normalize_axis};
use ferroflow_core::tensor::Tensor;

use super::{Binding, F32, buf, count_u32, device_input, gpu_of, output, shader, to_device};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// `ArgMax` or `ArgMin` along one axis: NaNs are skipped, ties keep the first index,
/// as the CPU's kernel.
struct Arg {
    gpu: Arc<Gpu>,
    max: bool,
    out: DType,
}

impl OpKernel for Arg {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = device_input(ctx, 0, &self.gpu)?;
        let a = int_values(&ctx.input(1)?.to_host()?)?.first().copied().unwrap_or(0);
        let rank = x.shape().len();
        let Some(axis) = normalize_axis(a, rank) else {
            return Err(Error::invalid_argument(format!(
                "Expected dimension in the range [{}, {rank}), but got {a}",
                -(rank as i64)
            )));
        };
        let s = x.shape();
        let (n, inner) = (s[axis], s[axis + 1..].iter().product::<usize>());
        if n == 0 {
            return Err(Error::invalid_argument(format!("Reduction axis {axis} is empty in shape {}", fmt_shape(s))));
        }
        let mut shape = s.to_vec();
        shape.remove(axis);
        let out = output(&self.gpu, self.out, &shape)?;
        let count = count_u32(out.num_elements(), "ArgMax")?;
        if count > 0 {
            let wide = self.out == DType::Int64;
            let key = format!("arg/{}/{wide}", if self.max { "max" } else { "min" });
            let pipeline = self.gpu.pipeline(&key, || {
                let better = if self.max { "v > best" } else { "v < best" };
                let store =
                    if wide { "    out[2u * i] = idx;\n    out[2u * i + 1u] = 0u;\n" } else { "    out[i] = idx;\n" };
                shader(
                    &[Binding("x", "f32", false), Binding("out", "u32", true)],
                    &format!(
                        "    if (i >= p[0]) {{ return; }}\n    let n = p[1];\n    let inner = p[2];\n    \
                         let base = (i / inner) * n * inner + i % inner;\n    var idx = 0u;\n    \
                         var best = x[base];\n    for (var k = 1u; k < n; k = k + 1u) {{\n        \
                         let v = x[base + k * inner];\n        \
                         let v_nan = (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;\n        \
                         let best_nan = (bitcast<u32>(best) & 0x7fffffffu) > 0x7f800000u;\n        \
                         if (!v_nan && (best_nan || {better})) {{ best = v; idx = k; }}\n    }}\n{store}"
                    ),
                )
            })?;
            let params = [count, count_u32(n, "ArgMax")?, count_u32(inner, "ArgMax")?];
            self.gpu.dispatch(&pipeline, &[buf(&x)?, buf(&out)?], &params, count as usize);
        }
        ctx.set_output(0, out);
        Ok(())
    }
}

fn arg_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Arg { gpu: gpu_of(b)?, max: b.node.op_type() == "ArgMax", out: b.node.outputs[0].dtype }))
}

/// `GatherV2(params, indices, axis)` of `float32` params.
struct Gather(Arc<Gpu>);

impl OpKernel for Gather {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let params = device_input(ctx, 0, &self.0)?;
        let indices = ctx.input(1)?.to_host()?;
        let a = int_values(&ctx.input(2)?.to_host()?)?.first().copied().unwrap_or(0);
        let rank = params.shape().len();
        let Some(axis) = normalize_axis(a, rank) else {
            return Err(Error::invalid_argument(format!(
                "Expected axis in the range [{}, {rank}), but got {a}",
                -(rank as i64)
            )));
        };
        let s = params.shape();
        let dim = s[axis];
        let rows = int_values(&indices)?
            .iter()
            .enumerate()
            .map(|(i, &ix)| match usize::try_from(ix) {
                Ok(x) if x < dim => count_u32(x, "GatherV2"),
                _ => Err(Error::invalid_argument(format!("indices[{i}] = {ix} is not in [0, {dim})"))),
            })
            .collect::<Result<Vec<u32>>>()?;
        let mut shape = s[..axis].to_vec();
        shape.extend_from_slice(indices.shape());
        shape.extend_from_slice(&s[axis + 1..]);
        let out = output(&self.0, DType::Float32, &shape)?;
        let count = count_u32(out.num_elements(), "GatherV2")?;
        if count > 0 {
            let rows = to_device(&Tensor::from_slice(&[rows.len()], &rows)?, &self.0)?;
            let inner = count_u32(s[axis + 1..].iter().product(), "GatherV2")?;
            let pipeline = self.0.pipeline("gather_rows", || {
                shader(
                    &[Binding("params", "f32", false), Binding("rows", "u32", false), Binding("out", "f32", true)],
                    "    if (i >= p[0]) { return; }\n    let inner = p[1];\n    let k = p[2];\n    \
                     let dim = p[3];\n    let r = i % inner;\n    let j = (i / inner) % k;\n    \
                     let o = i / (inner * k);\n    out[i] = params[(o * dim + rows[j]) * inner + r];\n",
                )
            })?;
            let k = count_u32(indices.num_elements(), "GatherV2")?;
            let p = [count, inner, k, count_u32(dim, "GatherV2")?];
            self.0.dispatch(&pipeline, &[buf(&params)?, buf(&rows)?, buf(&out)?], &p, count as usize);
        }
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `UnsortedSegmentSum(data, segment_ids, num_segments)` of `float32` data: rows
/// added into zeros in the order they come, one dispatch per repetition of an id (so
/// no two invocations add into one place, and sums round as the CPU's do).
struct SegmentSum(Arc<Gpu>);

impl OpKernel for SegmentSum {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let data = device_input(ctx, 0, &self.0)?;
        let ids_t = ctx.input(1)?.to_host()?;
        let n = int_values(&ctx.input(2)?.to_host()?)?.first().copied().unwrap_or(0);
        let n = usize::try_from(n)
            .map_err(|_| Error::invalid_argument(format!("num_segments must be non-negative, got {n}")))?;
        let rank = ids_t.shape().len();
        if data.shape().len() < rank || data.shape()[..rank] != *ids_t.shape() {
            return Err(Error::invalid_argument(format!(
                "data.shape = {} does not start with segment_ids.shape = {}",
                fmt_shape(data.shape()),
                fmt_shape(ids_t.shape())
            )));
        }
        let row = &data.shape()[rank..];
        let inner: usize = row.iter().product();
        let mut shape = vec![n];
        shape.extend_from_slice(row);
        // (segment, data row) pairs, checked; negative ids are dropped, as TF does.
        let mut pairs = Vec::new();
        for (i, &id) in int_values(&ids_t)?.iter().enumerate() {
            if id < 0 {
                continue;
            }
            let Some(s) = usize::try_from(id).ok().filter(|&s| s < n) else {
                return Err(Error::invalid_argument(format!("segment_ids[{i}] = {id} is out of range [0, {n})")));
            };
            pairs.push((s, i));
        }
        let layers = super::occurrence_layers(pairs, "UnsortedSegmentSum")?;
        let out = super::array::fill(&self.0, &shape, 0.0)?;
        if inner > 0 {
            let pipeline = self.0.pipeline("segment_sum", || {
                shader(
                    &[Binding("data", "f32", false), Binding("pairs", "u32", false), Binding("out", "f32", true)],
                    "    if (i >= p[0]) { return; }\n    let w = p[1];\n    let r = i / w;\n    let c = i % w;\n    \
                     let dst = pairs[2u * r] * w + c;\n    out[dst] = out[dst] + data[pairs[2u * r + 1u] * w + c];\n",
                )
            })?;
            let width = count_u32(inner, "UnsortedSegmentSum")?;
            for layer in layers {
                let pairs = to_device(&Tensor::from_slice(&[layer.len()], &layer)?, &self.0)?;
                let threads = layer.len() / 2 * inner;
                let p = [count_u32(threads, "UnsortedSegmentSum")?, width];
                self.0.dispatch(&pipeline, &[buf(&data)?, buf(&pairs)?, buf(&out)?], &p, threads);
            }
        }
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(crate) fn register() {
    register_kernel(
        KernelDef::new("UnsortedSegmentSum", DEVICE_TYPE, |b: &KernelBuild<'_>| {
            Ok(Box::new(SegmentSum(gpu_of(b)?)) as Box<dyn OpKernel>)
        })
        .type_constraint("T", F32)
        .host_memory(&["segment_ids", "num_segments"]),
    );
    for op in ["ArgMax", "ArgMin"] {
        register_kernel(
            KernelDef::new(op, DEVICE_TYPE, arg_kernel).type_constraint("T", F32).host_memory(&["dimension"]),
        );
    }
    register_kernel(
        KernelDef::new("GatherV2", DEVICE_TYPE, |b: &KernelBuild<'_>| {
            Ok(Box::new(Gather(gpu_of(b)?)) as Box<dyn OpKernel>)
        })
        .type_constraint("Tparams", F32)
        .host_memory(&["indices", "axis"]),
    );
}
