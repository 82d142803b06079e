//! Depthwise 2-D convolution (TF's `DepthwiseConv2dNative`): an NHWC input and a
//! `[kh, kw, c, m]` filter, each input channel `ci` convolved with its own `m` filters
//! into output channels `ci * m .. ci * m + m`; and its two backward passes. Direct
//! loops over the window, split across the intra-op pool by output pixel (forward),
//! by image (input gradient) and by filter tap (filter gradient), so no two threads
//! write one element. The geometry (padding, output size) is `Conv2D`'s
//! ([`ConvGeometry`] with `o = m`).
use super::conv::{ConvGeometry, WindowAttrs, sizes, window_attrs};
use super::num::Float;
use super::{ExecEnv, KernelBuild, OpContext, OpKernel};
use crate::dispatch_float;
use crate::error::Result;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// Multiply-adds below which a piece of work stays on one thread.
const MIN_PARALLEL_FLOPS: usize = 1 << 15;

/// The `(row, col)` input position of output `(oy, ox)` under tap `(ky, kx)`, if inside.
fn tap(g: &ConvGeometry, oy: usize, ox: usize, ky: usize, kx: usize) -> Option<(usize, usize)> {
    let iy = (oy * g.sh + ky * g.dh).wrapping_sub(g.pad_top);
    let ix = (ox * g.sw + kx * g.dw).wrapping_sub(g.pad_left);
    (iy < g.h && ix < g.w).then_some((iy, ix))
}

fn taps_flops(g: &ConvGeometry) -> usize {
    (g.kh * g.kw * g.c * g.o).max(1)
}

/// `DepthwiseConv2dNative`: `[n, oh, ow, c * m]`.
pub fn depthwise_conv2d<T: Float>(x: &Tensor, f: &Tensor, g: &ConvGeometry, env: &ExecEnv) -> Result<Tensor> {
    let (c, m) = (g.c, g.o);
    let oc = c * m;
    let mut out = Tensor::zeros(T::DTYPE, &[g.n, g.oh, g.ow, oc])?;
    let (xs, fs) = (x.as_slice::<T>()?, f.as_slice::<T>()?);
    if oc == 0 {
        return Ok(out);
    }
    let pixels = g.oh * g.ow;
    let min_chunk = (MIN_PARALLEL_FLOPS / taps_flops(g)).max(1) * oc;
    env.for_each_chunk(out.as_mut_slice::<T>()?, min_chunk, oc, |off, chunk| {
        for (k, px) in chunk.chunks_exact_mut(oc).enumerate() {
            let p = off / oc + k;
            let (n, oy, ox) = (p / pixels, (p % pixels) / g.ow, p % g.ow);
            for ky in 0..g.kh {
                for kx in 0..g.kw {
                    let Some((iy, ix)) = tap(g, oy, ox, ky, kx) else { continue };
                    let xrow = &xs[((n * g.h + iy) * g.w + ix) * c..][..c];
                    let frow = &fs[(ky * g.kw + kx) * oc..][..oc];
                    for ((o, fr), &xv) in px.chunks_exact_mut(m).zip(frow.chunks_exact(m)).zip(xrow) {
                        o.iter_mut().zip(fr).for_each(|(o, &fv)| *o = o.add(xv.mul(fv)));
                    }
                }
            }
        }
    });
    Ok(out)
}

/// `DepthwiseConv2dNativeBackpropInput`: the gradient with respect to the `[n, h, w, c]`
/// input of `dy` (`[n, oh, ow, c * m]`).
pub fn depthwise_backprop_input<T: Float>(f: &Tensor, dy: &Tensor, g: &ConvGeometry, env: &ExecEnv) -> Result<Tensor> {
    let (c, m) = (g.c, g.o);
    let oc = c * m;
    let mut out = Tensor::zeros(T::DTYPE, &[g.n, g.h, g.w, c])?;
    let (fs, dys) = (f.as_slice::<T>()?, dy.as_slice::<T>()?);
    let image = g.h * g.w * c;
    if image == 0 || oc == 0 {
        return Ok(out);
    }
    let min_chunk = (MIN_PARALLEL_FLOPS / (taps_flops(g) * g.oh * g.ow).max(1)).max(1) * image;
    env.for_each_chunk(out.as_mut_slice::<T>()?, min_chunk, image, |off, chunk| {
        for (k, dx) in chunk.chunks_exact_mut(image).enumerate() {
            let n = off / image + k;
            for oy in 0..g.oh {
                for ox in 0..g.ow {
                    let grow = &dys[((n * g.oh + oy) * g.ow + ox) * oc..][..oc];
                    for ky in 0..g.kh {
                        for kx in 0..g.kw {
                            let Some((iy, ix)) = tap(g, oy, ox, ky, kx) else { continue };
                            let frow = &fs[(ky * g.kw + kx) * oc..][..oc];
                            let dst = &mut dx[(iy * g.w + ix) * c..][..c];
                            for ((d, fr), gr) in dst.iter_mut().zip(frow.chunks_exact(m)).zip(grow.chunks_exact(m)) {
                                let s = fr.iter().zip(gr).fold(T::ZERO, |s, (&fv, &gv)| s.add(fv.mul(gv)));
                                *d = d.add(s);
                            }
                        }
                    }
                }
            }
        }
    });
    Ok(out)
}

/// `DepthwiseConv2dNativeBackpropFilter`: the gradient with respect to the
/// `[kh, kw, c, m]` filter of `dy` for input `x`.
pub fn depthwise_backprop_filter<T: Float>(x: &Tensor, dy: &Tensor, g: &ConvGeometry, env: &ExecEnv) -> Result<Tensor> {
    let (c, m) = (g.c, g.o);
    let oc = c * m;
    let mut out = Tensor::zeros(T::DTYPE, &[g.kh, g.kw, c, m])?;
    let (xs, dys) = (x.as_slice::<T>()?, dy.as_slice::<T>()?);
    if oc == 0 {
        return Ok(out);
    }
    let min_chunk = (MIN_PARALLEL_FLOPS / (oc * g.n * g.oh * g.ow).max(1)).max(1) * oc;
    env.for_each_chunk(out.as_mut_slice::<T>()?, min_chunk, oc, |off, chunk| {
        for (k, df) in chunk.chunks_exact_mut(oc).enumerate() {
            let t = off / oc + k;
            let (ky, kx) = (t / g.kw, t % g.kw);
            for n in 0..g.n {
                for oy in 0..g.oh {
                    for ox in 0..g.ow {
                        let Some((iy, ix)) = tap(g, oy, ox, ky, kx) else { continue };
                        let xrow = &xs[((n * g.h + iy) * g.w + ix) * c..][..c];
                        let grow = &dys[((n * g.oh + oy) * g.ow + ox) * oc..][..oc];
                        for ((d, gr), &xv) in df.chunks_exact_mut(m).zip(grow.chunks_exact(m)).zip(xrow) {
                            d.iter_mut().zip(gr).for_each(|(d, &gv)| *d = d.add(xv.mul(gv)));
                        }
                    }
                }
            }
        }
    });
    Ok(out)
}

/// The kernel of the three depthwise ops: the validated attrs and which op it is.
struct DepthwiseKernel {
    op: &'static str,
    attrs: WindowAttrs,
}

/// `DepthwiseConv2dNative` and its backprop ops.
pub(crate) fn depthwise_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let op = b.node.op_type();
    Ok(Box::new(DepthwiseKernel { op, attrs: window_attrs(&b.node.attrs, op, false)? }))
}

impl DepthwiseKernel {
    fn geometry(&self, input: &[usize], filter: &[usize]) -> Result<ConvGeometry> {
        if input.len() != 4 || filter.len() != 4 {
            ff_bail!(
                InvalidArgument,
                "{}: input and filter must be 4-dimensional, got {} and {}",
                self.op,
                fmt_shape(input),
                fmt_shape(filter)
            );
        }
        if input[3] != filter[2] {
            ff_bail!(
                InvalidArgument,
                "{}: input and filter must have the same depth: {} vs {}",
                self.op,
                input[3],
                filter[2]
            );
        }
        let a = &self.attrs;
        ConvGeometry::new(input, filter, a.strides, a.dilations, a.padding)
            .map_err(|m| crate::error::Error::invalid_argument(format!("{}: {m}", self.op)))
    }

    fn check_grad(&self, dy: &[usize], g: &ConvGeometry) -> Result<()> {
        let want = [g.n, g.oh, g.ow, g.c * g.o];
        if dy != want {
            ff_bail!(
                InvalidArgument,
                "{}: out_backprop has shape {} but the forward output has shape {}",
                self.op,
                fmt_shape(dy),
                fmt_shape(&want)
            );
        }
        Ok(())
    }
}

impl OpKernel for DepthwiseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let env = ctx.env;
        let dtype = ctx.input(ctx.num_inputs() - 1)?.dtype();
        let out = match self.op {
            "DepthwiseConv2dNative" => {
                let (x, f) = (ctx.input(0)?, ctx.input(1)?);
                let g = self.geometry(x.shape(), f.shape())?;
                dispatch_float!(dtype, T => depthwise_conv2d::<T>(x, f, &g, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            "DepthwiseConv2dNativeBackpropInput" => {
                let (sizes, f, dy) = (sizes(ctx, 0, "input_sizes")?, ctx.input(1)?, ctx.input(2)?);
                let g = self.geometry(&sizes, f.shape())?;
                self.check_grad(dy.shape(), &g)?;
                dispatch_float!(dtype, T => depthwise_backprop_input::<T>(f, dy, &g, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            _ => {
                let (x, sizes, dy) = (ctx.input(0)?, sizes(ctx, 1, "filter_sizes")?, ctx.input(2)?);
                let g = self.geometry(x.shape(), &sizes)?;
                self.check_grad(dy.shape(), &g)?;
                dispatch_float!(dtype, T => depthwise_backprop_filter::<T>(x, dy, &g, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::conv::Padding;

    /// The definition: `out[n, y, x, ci * m + q] = sum x[n, y', x', ci] f[ky, kx, ci, q]`.
    fn naive(x: &[f64], f: &[f64], g: &ConvGeometry) -> Vec<f64> {
        let (c, m) = (g.c, g.o);
        let mut out = vec![0.0; g.n * g.oh * g.ow * c * m];
        for n in 0..g.n {
            for oy in 0..g.oh {
                for ox in 0..g.ow {
                    for ci in 0..c {
                        for q in 0..m {
                            let mut s = 0.0;
                            for ky in 0..g.kh {
                                for kx in 0..g.kw {
                                    if let Some((iy, ix)) = tap(g, oy, ox, ky, kx) {
                                        s += x[((n * g.h + iy) * g.w + ix) * c + ci]
                                            * f[((ky * g.kw + kx) * c + ci) * m + q];
                                    }
                                }
                            }
                            out[((n * g.oh + oy) * g.ow + ox) * c * m + ci * m + q] = s;
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn forward_matches_the_definition_and_backprops_are_its_adjoints() {
        let env = ExecEnv { intra_pool: None };
        for (strides, dil, pad) in
            [([1, 1], [1, 1], Padding::Same), ([2, 1], [1, 1], Padding::Valid), ([1, 1], [2, 1], Padding::Same)]
        {
            let (xs, fs) = ([2, 6, 5, 3], [3, 2, 3, 2]);
            let g = ConvGeometry::new(&xs, &fs, strides, dil, pad).unwrap();
            let xv: Vec<f64> = (0..xs.iter().product()).map(|i: usize| ((i * 7) % 11) as f64 - 5.0).collect();
            let fv: Vec<f64> = (0..fs.iter().product()).map(|i: usize| ((i * 5) % 7) as f64 * 0.25).collect();
            let x = Tensor::from_slice(&xs, &xv).unwrap();
            let f = Tensor::from_slice(&fs, &fv).unwrap();
            let y = depthwise_conv2d::<f64>(&x, &f, &g, &env).unwrap();
            assert_eq!(y.as_slice::<f64>().unwrap(), naive(&xv, &fv, &g).as_slice());
            // <conv(x, f), dy> = <x, dx(dy)> = <f, df(dy)>.
            let dyv: Vec<f64> = (0..y.num_elements()).map(|i| ((i * 3) % 5) as f64 - 2.0).collect();
            let dy = Tensor::from_slice(y.shape(), &dyv).unwrap();
            let dx = depthwise_backprop_input::<f64>(&f, &dy, &g, &env).unwrap();
            let df = depthwise_backprop_filter::<f64>(&x, &dy, &g, &env).unwrap();
            let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
            let lhs = dot(y.as_slice::<f64>().unwrap(), &dyv);
            assert!((lhs - dot(&xv, dx.as_slice::<f64>().unwrap())).abs() < 1e-9);
            assert!((lhs - dot(&fv, df.as_slice::<f64>().unwrap())).abs() < 1e-9);
        }
    }
}
