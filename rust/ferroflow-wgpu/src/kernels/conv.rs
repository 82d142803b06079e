//! `Conv2D` and its two gradients (`Conv2DBackpropInput`, `Conv2DBackpropFilter`) of
//! `float32`, NHWC, on the GPU: direct kernels, one invocation per value produced,
//! summing its window in registers. The geometry (output size, padding, strides,
//! dilations) and the attr and shape checks are the CPU kernel's (`ConvGeometry`,
//! `window_attrs`), so both devices agree on what is valid and what it means.
use std::sync::Arc;

use ferroflow_core::DType;
use ferroflow_core::error::{Error, Result};
use ferroflow_core::kernels::conv::{ConvGeometry, WindowAttrs, sizes, window_attrs};
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::shape::fmt_shape;

use super::{Binding, F32, buf, count_u32, device_input, gpu_of, output, shader, words};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// The geometry as WGSL `let`s from `p[1..16]` (`p[0]` is the count of values made).
const GEOMETRY: &str = "    let n = p[1]; let h = i32(p[2]); let w = i32(p[3]); let c = p[4];\n    \
                        let kh = p[5]; let kw = p[6]; let o = p[7];\n    \
                        let sh = i32(p[8]); let sw = i32(p[9]); let dh = i32(p[10]); let dw = i32(p[11]);\n    \
                        let oh = i32(p[12]); let ow = i32(p[13]); let pt = i32(p[14]); let pl = i32(p[15]);\n";

/// `y[b, i, j, q] = sum over u, v, ch of x[b, i*sh + u*dh - pt, j*sw + v*dw - pl, ch] *
/// f[u, v, ch, q]`.
const FORWARD: &str = "    let q = i % o;\n    let j = i32((i / o) % u32(ow));\n    \
                       let r = i32((i / (o * u32(ow))) % u32(oh));\n    let b = i / (o * u32(ow) * u32(oh));\n    \
                       var acc = 0.0;\n    for (var u = 0u; u < kh; u = u + 1u) {\n        \
                       let y = r * sh + i32(u) * dh - pt;\n        if (y < 0 || y >= h) { continue; }\n        \
                       for (var v = 0u; v < kw; v = v + 1u) {\n            \
                       let x = j * sw + i32(v) * dw - pl;\n            if (x < 0 || x >= w) { continue; }\n            \
                       let xb = ((b * u32(h) + u32(y)) * u32(w) + u32(x)) * c;\n            \
                       let fb = (u * kw + v) * c * o + q;\n            \
                       for (var ch = 0u; ch < c; ch = ch + 1u) {\n                \
                       acc = acc + a[xb + ch] * f[fb + ch * o];\n            }\n        }\n    }\n    out[i] = acc;\n";

/// `dx[b, y, x, ch] = sum over u, v, q of dy[b, i, j, q] * f[u, v, ch, q]`, where the
/// window at output `(i, j)` puts tap `(u, v)` on `(y, x)`.
const BACKPROP_INPUT: &str = "    let ch = i % c;\n    let x = i32((i / c) % u32(w));\n    \
                              let y = i32((i / (c * u32(w))) % u32(h));\n    let b = i / (c * u32(w) * u32(h));\n    \
                              var acc = 0.0;\n    for (var u = 0u; u < kh; u = u + 1u) {\n        \
                              let ty = y + pt - i32(u) * dh;\n        \
                              if (ty < 0 || ty % sh != 0 || ty / sh >= oh) { continue; }\n        \
                              let r = ty / sh;\n        for (var v = 0u; v < kw; v = v + 1u) {\n            \
                              let tx = x + pl - i32(v) * dw;\n            \
                              if (tx < 0 || tx % sw != 0 || tx / sw >= ow) { continue; }\n            \
                              let j = tx / sw;\n            \
                              let gb = ((b * u32(oh) + u32(r)) * u32(ow) + u32(j)) * o;\n            \
                              let fb = ((u * kw + v) * c + ch) * o;\n            \
                              for (var q = 0u; q < o; q = q + 1u) {\n                \
                              acc = acc + a[gb + q] * f[fb + q];\n            }\n        }\n    }\n    out[i] = acc;\n";

/// `df[u, v, ch, q] = sum over b, i, j of x[b, i*sh + u*dh - pt, j*sw + v*dw - pl, ch] *
/// dy[b, i, j, q]`.
const BACKPROP_FILTER: &str = "    let q = i % o;\n    let ch = (i / o) % c;\n    let v = (i / (o * c)) % kw;\n    \
                               let u = i / (o * c * kw);\n    var acc = 0.0;\n    \
                               for (var b = 0u; b < n; b = b + 1u) {\n        \
                               for (var r = 0; r < oh; r = r + 1) {\n            \
                               let y = r * sh + i32(u) * dh - pt;\n            if (y < 0 || y >= h) { continue; }\n            \
                               for (var j = 0; j < ow; j = j + 1) {\n                \
                               let x = j * sw + i32(v) * dw - pl;\n                if (x < 0 || x >= w) { continue; }\n                \
                               let xi = ((b * u32(h) + u32(y)) * u32(w) + u32(x)) * c + ch;\n                \
                               let gi = ((b * u32(oh) + u32(r)) * u32(ow) + u32(j)) * o + q;\n                \
                               acc = acc + a[xi] * f[gi];\n            }\n        }\n    }\n    out[i] = acc;\n";

/// Which of the three ops.
#[derive(Clone, Copy)]
enum Op {
    Forward,
    Input,
    Filter,
}

struct Conv {
    gpu: Arc<Gpu>,
    op: Op,
    name: &'static str,
    attrs: WindowAttrs,
}

impl Conv {
    fn geometry(&self, input: &[usize], filter: &[usize]) -> Result<ConvGeometry> {
        ConvGeometry::new(input, filter, self.attrs.strides, self.attrs.dilations, self.attrs.padding)
            .map_err(|m| Error::invalid_argument(format!("{}: {m}", self.name)))
    }
}

impl OpKernel for Conv {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        // (geometry, the two float operands, the output shape, the kernel body)
        let (g, a, f, shape, body) = match self.op {
            Op::Forward => {
                let (x, f) = (device_input(ctx, 0, &self.gpu)?, device_input(ctx, 1, &self.gpu)?);
                let g = self.geometry(x.shape(), f.shape())?;
                (g, x, f, [g.n, g.oh, g.ow, g.o], FORWARD)
            }
            Op::Input => {
                let input = sizes(ctx, 0, "input_sizes")?;
                let (f, dy) = (device_input(ctx, 1, &self.gpu)?, device_input(ctx, 2, &self.gpu)?);
                let g = self.geometry(&input, f.shape())?;
                check_grad(self.name, dy.shape(), &g)?;
                (g, dy, f, [g.n, g.h, g.w, g.c], BACKPROP_INPUT)
            }
            Op::Filter => {
                let x = device_input(ctx, 0, &self.gpu)?;
                let filter = sizes(ctx, 1, "filter_sizes")?;
                let dy = device_input(ctx, 2, &self.gpu)?;
                let g = self.geometry(x.shape(), &filter)?;
                check_grad(self.name, dy.shape(), &g)?;
                (g, x, dy, [g.kh, g.kw, g.c, g.o], BACKPROP_FILTER)
            }
        };
        let out = output(&self.gpu, DType::Float32, &shape)?;
        let count = count_u32(out.num_elements(), self.name)?;
        if count > 0 {
            let pipeline = self.gpu.pipeline(&format!("conv/{}", self.name), || {
                shader(
                    &[Binding("a", "f32", false), Binding("f", "f32", false), Binding("out", "f32", true)],
                    &format!("    if (i >= p[0]) {{ return; }}\n{GEOMETRY}{body}"),
                )
            })?;
            let mut params = vec![count];
            params.extend(words(&[
                g.n, g.h, g.w, g.c, g.kh, g.kw, g.o, g.sh, g.sw, g.dh, g.dw, g.oh, g.ow, g.pad_top, g.pad_left,
            ])?);
            // Signed arithmetic on positions: every coordinate must fit an i32.
            if params.iter().any(|&v| v > i32::MAX as u32) {
                return Err(Error::invalid_argument(format!("{}: a dimension is too large for the GPU", self.name)));
            }
            self.gpu.dispatch(&pipeline, &[buf(&a)?, buf(&f)?, buf(&out)?], &params, count as usize);
        }
        ctx.set_output(0, out);
        Ok(())
    }
}

/// A gradient fed to a backprop op has the forward output's shape (the CPU's check).
fn check_grad(op: &str, dy: &[usize], g: &ConvGeometry) -> Result<()> {
    let want = [g.n, g.oh, g.ow, g.o];
    if dy != want {
        return Err(Error::invalid_argument(format!(
            "{op}: out_backprop has shape {} but the forward output has shape {}",
            fmt_shape(dy),
            fmt_shape(&want)
        )));
    }
    Ok(())
}

fn conv_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let name = b.node.op_type();
    let op = match name {
        "Conv2D" => Op::Forward,
        "Conv2DBackpropInput" => Op::Input,
        _ => Op::Filter,
    };
    Ok(Box::new(Conv { gpu: gpu_of(b)?, op, name, attrs: window_attrs(&b.node.attrs, name, false)? }))
}

pub(crate) fn register() {
    register_kernel(KernelDef::new("Conv2D", DEVICE_TYPE, conv_kernel).type_constraint("T", F32));
    register_kernel(
        KernelDef::new("Conv2DBackpropInput", DEVICE_TYPE, conv_kernel)
            .type_constraint("T", F32)
            .host_memory(&["input_sizes"]),
    );
    register_kernel(
        KernelDef::new("Conv2DBackpropFilter", DEVICE_TYPE, conv_kernel)
            .type_constraint("T", F32)
            .host_memory(&["filter_sizes"]),
    );
}
