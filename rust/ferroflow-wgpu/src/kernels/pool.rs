//! `MaxPool`, `AvgPool` and their gradients of `float32`, NHWC, on the GPU, on the
//! CPU kernel's `PoolGeometry` and attr checks. One invocation per value produced;
//! a gradient invocation visits the windows that cover its input pixel in the CPU's
//! order (rows, then columns), so sums round as the CPU's do, and a max-pool gradient
//! goes to the first maximum of each window, as TF's CPU kernel sends it.
use std::sync::Arc;

use ferroflow_core::DType;
use ferroflow_core::error::{Error, Result};
use ferroflow_core::kernels::conv::{WindowAttrs, sizes, window_attrs};
use ferroflow_core::kernels::pool::PoolGeometry;
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::shape::fmt_shape;

use super::{Binding, F32, buf, count_u32, device_input, gpu_of, output, shader, words};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// The geometry from `p[1..13]` (`p[0]` is the count of values made), and WGSL
/// helpers over it: a window's clamped rows and columns, and an output pixel's window.
const GEOMETRY: &str = "    let h = i32(p[2]); let w = i32(p[3]); let c = p[4];\n    \
                        let kh = i32(p[5]); let kw = i32(p[6]); let sh = i32(p[7]); let sw = i32(p[8]);\n    \
                        let oh = i32(p[9]); let ow = i32(p[10]); let pt = i32(p[11]); let pl = i32(p[12]);\n";

/// The window of output pixel `(r, s)` as clamped `[y0, y1) x [x0, x1)`.
const WINDOW: &str = "        let y0 = max(r * sh - pt, 0); let y1 = min(r * sh - pt + kh, h);\n        \
                      let x0 = max(s * sw - pl, 0); let x1 = min(s * sw - pl + kw, w);\n";

/// Output `(b, r, s, ch)` of invocation `i`.
const OUTPUT_PIXEL: &str = "    let ch = i % c;\n    let s = i32((i / c) % u32(ow));\n    \
                            let r = i32((i / (c * u32(ow))) % u32(oh));\n    let b = i / (c * u32(ow) * u32(oh));\n";

/// Input `(b, y, x, ch)` of invocation `i`, and the output rows `[r0, r1]` and columns
/// `[s0, s1]` whose windows may cover it.
const INPUT_PIXEL: &str = "    let ch = i % c;\n    let x = i32((i / c) % u32(w));\n    \
                           let y = i32((i / (c * u32(w))) % u32(h));\n    let b = i / (c * u32(w) * u32(h));\n    \
                           let r0 = max((y + pt - kh + sh) / sh, 0); let r1 = min((y + pt) / sh, oh - 1);\n    \
                           let s0 = max((x + pl - kw + sw) / sw, 0); let s1 = min((x + pl) / sw, ow - 1);\n";

fn max_pool_body() -> String {
    format!(
        "{OUTPUT_PIXEL}    {{\n{WINDOW}        var best = -3.40282347e+38;\n        \
         for (var y = y0; y < y1; y = y + 1) {{\n            for (var x = x0; x < x1; x = x + 1) {{\n                \
         let v = a[((b * u32(h) + u32(y)) * u32(w) + u32(x)) * c + ch];\n                \
         let v_nan = (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;\n                \
         let best_nan = (bitcast<u32>(best) & 0x7fffffffu) > 0x7f800000u;\n                \
         if (!best_nan && (v_nan || v > best)) {{ best = v; }}\n            }}\n        }}\n        \
         out[i] = best;\n    }}\n"
    )
}

fn avg_pool_body() -> String {
    format!(
        "{OUTPUT_PIXEL}    {{\n{WINDOW}        var sum = 0.0;\n        \
         for (var y = y0; y < y1; y = y + 1) {{\n            for (var x = x0; x < x1; x = x + 1) {{\n                \
         sum = sum + a[((b * u32(h) + u32(y)) * u32(w) + u32(x)) * c + ch];\n            }}\n        }}\n        \
         out[i] = sum / f32((y1 - y0) * (x1 - x0));\n    }}\n"
    )
}

/// `a` is the input, `g` the gradient of the pooled output.
fn max_pool_grad_body() -> String {
    format!(
        "{INPUT_PIXEL}    var acc = 0.0;\n    for (var r = r0; r <= r1; r = r + 1) {{\n        \
         for (var s = s0; s <= s1; s = s + 1) {{\n{WINDOW}            \
         var best = 0.0; var by = -1; var bx = -1;\n            \
         for (var yy = y0; yy < y1; yy = yy + 1) {{\n                for (var xx = x0; xx < x1; xx = xx + 1) {{\n                    \
         let v = a[((b * u32(h) + u32(yy)) * u32(w) + u32(xx)) * c + ch];\n                    \
         if (by < 0 || v > best) {{ best = v; by = yy; bx = xx; }}\n                }}\n            }}\n            \
         if (by == y && bx == x) {{\n                \
         acc = acc + g[((b * u32(oh) + u32(r)) * u32(ow) + u32(s)) * c + ch];\n            }}\n        }}\n    }}\n    \
         out[i] = acc;\n"
    )
}

/// `g` is the gradient of the pooled output.
fn avg_pool_grad_body() -> String {
    format!(
        "{INPUT_PIXEL}    var acc = 0.0;\n    for (var r = r0; r <= r1; r = r + 1) {{\n        \
         for (var s = s0; s <= s1; s = s + 1) {{\n{WINDOW}            \
         let count = f32((y1 - y0) * (x1 - x0));\n            \
         acc = acc + g[((b * u32(oh) + u32(r)) * u32(ow) + u32(s)) * c + ch] / count;\n        }}\n    }}\n    \
         out[i] = acc;\n"
    )
}

/// Which of the four ops.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Max,
    Avg,
    MaxGrad,
    AvgGrad,
}

struct Pool {
    gpu: Arc<Gpu>,
    op: Op,
    name: &'static str,
    attrs: WindowAttrs,
}

impl OpKernel for Pool {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let geometry = |input: &[usize]| {
            PoolGeometry::new(input, self.attrs.window, self.attrs.strides, self.attrs.padding)
                .map_err(|m| Error::invalid_argument(format!("{}: {m}", self.name)))
        };
        let check_grad = |dy: &[usize], g: &PoolGeometry| {
            let want = [g.n, g.oh, g.ow, g.c];
            if dy == want {
                Ok(())
            } else {
                Err(Error::invalid_argument(format!(
                    "{}: out_backprop has shape {} but the forward output has shape {}",
                    self.name,
                    fmt_shape(dy),
                    fmt_shape(&want)
                )))
            }
        };
        // (geometry, the operands bound as `a` (the input) and `g` (the gradient) where
        // the kernel reads them, out shape, body): a binding a shader never reads is
        // not in its layout, so each kernel binds only its own.
        let (geo, operands, names, shape, body) = match self.op {
            Op::Max | Op::Avg => {
                let x = device_input(ctx, 0, &self.gpu)?;
                let geo = geometry(x.shape())?;
                let body = if self.op == Op::Max { max_pool_body() } else { avg_pool_body() };
                (geo, vec![x], &["a"][..], [geo.n, geo.oh, geo.ow, geo.c], body)
            }
            Op::MaxGrad => {
                let (x, dy) = (device_input(ctx, 0, &self.gpu)?, device_input(ctx, 2, &self.gpu)?);
                let geo = geometry(x.shape())?;
                check_grad(dy.shape(), &geo)?;
                (geo, vec![x, dy], &["a", "g"][..], [geo.n, geo.h, geo.w, geo.c], max_pool_grad_body())
            }
            Op::AvgGrad => {
                let input = sizes(ctx, 0, "orig_input_shape")?;
                let dy = device_input(ctx, 1, &self.gpu)?;
                let geo = geometry(&input)?;
                check_grad(dy.shape(), &geo)?;
                (geo, vec![dy], &["g"][..], [geo.n, geo.h, geo.w, geo.c], avg_pool_grad_body())
            }
        };
        let out = output(&self.gpu, DType::Float32, &shape)?;
        let count = count_u32(out.num_elements(), self.name)?;
        if count > 0 {
            let pipeline = self.gpu.pipeline(&format!("pool/{}", self.name), || {
                let mut bindings: Vec<Binding> = names.iter().map(|n| Binding(n, "f32", false)).collect();
                bindings.push(Binding("out", "f32", true));
                shader(&bindings, &format!("    if (i >= p[0]) {{ return; }}\n{GEOMETRY}{body}"))
            })?;
            let mut params = vec![count];
            params.extend(words(&[
                geo.n,
                geo.h,
                geo.w,
                geo.c,
                geo.kh,
                geo.kw,
                geo.sh,
                geo.sw,
                geo.oh,
                geo.ow,
                geo.pad_top,
                geo.pad_left,
            ])?);
            // Signed arithmetic on positions: every coordinate must fit an i32.
            if params.iter().any(|&v| v > i32::MAX as u32) {
                return Err(Error::invalid_argument(format!("{}: a dimension is too large for the GPU", self.name)));
            }
            let buffers: Vec<&wgpu::Buffer> =
                operands.iter().chain(std::iter::once(&out)).map(buf).collect::<Result<_>>()?;
            self.gpu.dispatch(&pipeline, &buffers, &params, count as usize);
        }
        ctx.set_output(0, out);
        Ok(())
    }
}

fn pool_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let name = b.node.op_type();
    let op = match name {
        "MaxPool" => Op::Max,
        "AvgPool" => Op::Avg,
        "MaxPoolGrad" => Op::MaxGrad,
        _ => Op::AvgGrad,
    };
    Ok(Box::new(Pool { gpu: gpu_of(b)?, op, name, attrs: window_attrs(&b.node.attrs, name, true)? }))
}

pub(crate) fn register() {
    for op in ["MaxPool", "AvgPool", "MaxPoolGrad"] {
        register_kernel(KernelDef::new(op, DEVICE_TYPE, pool_kernel).type_constraint("T", F32));
    }
    register_kernel(
        KernelDef::new("AvgPoolGrad", DEVICE_TYPE, pool_kernel)
            .type_constraint("T", F32)
            .host_memory(&["orig_input_shape"]),
    );
}
