//! 3-D convolution (NDHWC input, DHWIO filter) with its two backward passes, and the
//! 3-D pooling ops (the 2-D pooling kernels of `pool.rs`, which also take a depth).
//! The convolution is im2col + GEMM, one output plane (all rows and columns at one
//! output depth) per block: the block's patches gather into a matrix multiplied by
//! the filter with the `gemm` crate's kernels. Planes are independent in the forward
//! pass and the filter gradient (partial sums per thread); the input gradient
//! scatters into overlapping input planes, so it splits by image. Shapes and
//! registration in `ops/conv.rs`.
pub use crate::framework::shape_util::{Window3dAttrs, window3d_attrs};

use super::conv::{Padding, sum_over_units, windowed_output};
use super::matmul::{MatRef, gemm_into};
use super::num::Float;
use super::pool::{PoolGeometry, avg_pool, avg_pool_grad, max_pool, max_pool_grad, max_pool_grad_grad};
use super::{ExecEnv, KernelBuild, OpContext, OpKernel};
use crate::dispatch_float;
use crate::error::{Error, Result};
use crate::graph::AttrValue;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// Multiply-adds below which a piece of work is not worth sending to another thread.
const MIN_PARALLEL_FLOPS: usize = 1 << 17;

/// The shapes of one 3-D convolution: input `n x [d, h, w] x c`, filter
/// `[kd, kh, kw] x c x o`, output `n x [od, oh, ow] x o`.
#[derive(Clone, Copy, Debug)]
pub struct Conv3dGeometry {
    /// Batch.
    pub n: usize,
    /// Input depth, rows, columns.
    pub input: [usize; 3],
    /// Input channels.
    pub c: usize,
    /// Filter depth, rows, columns.
    pub window: [usize; 3],
    /// Output channels.
    pub o: usize,
    /// Strides per spatial dimension.
    pub strides: [usize; 3],
    /// Dilations per spatial dimension.
    pub dilations: [usize; 3],
    /// Output depth, rows, columns.
    pub out: [usize; 3],
    /// Leading zero padding per spatial dimension.
    pub pad: [usize; 3],
}

fn dims5(s: &[usize], what: &str) -> std::result::Result<[usize; 5], String> {
    s.try_into().map_err(|_| format!("{what} must be 5-dimensional: {}", fmt_shape(s)))
}

impl Conv3dGeometry {
    /// The geometry of `input` (NDHWC) convolved with a `[kd, kh, kw, c, o]` filter.
    pub fn new(
        input: &[usize],
        filter: &[usize],
        strides: [usize; 3],
        dilations: [usize; 3],
        padding: Padding,
    ) -> std::result::Result<Self, String> {
        let ([n, d, h, w, c], [kd, kh, kw, fc, o]) = (dims5(input, "input")?, dims5(filter, "filter")?);
        if c != fc {
            return Err(format!("Input depth must be equal to filter depth: {c} vs {fc}"));
        }
        let (input, window) = ([d, h, w], [kd, kh, kw]);
        let mut out = [0; 3];
        let mut pad = [0; 3];
        for i in 0..3 {
            (out[i], pad[i]) = windowed_output(input[i], window[i], dilations[i], strides[i], padding)?;
        }
        Ok(Conv3dGeometry { n, input, c, window, o, strides, dilations, out, pad })
    }

    /// Length of one patch (a row of the patch matrix).
    fn patch(&self) -> usize {
        self.window.iter().product::<usize>() * self.c
    }
    /// Output pixels of one plane.
    fn plane(&self) -> usize {
        self.out[1] * self.out[2]
    }
    /// Elements of one input image.
    fn image(&self) -> usize {
        self.input.iter().product::<usize>() * self.c
    }
    /// The output's shape.
    fn out_shape(&self) -> [usize; 5] {
        [self.n, self.out[0], self.out[1], self.out[2], self.o]
    }
    /// The input's shape.
    fn in_shape(&self) -> [usize; 5] {
        [self.n, self.input[0], self.input[1], self.input[2], self.c]
    }

    /// Calls `f(tap, offset)` for every tap of the window of output pixel `(od, oh, ow)`
    /// (in `kd, kh, kw` order): `offset` is the element offset of the tapped input
    /// pixel within its image, `None` in the padding.
    fn for_each_tap(&self, [od, oh, ow]: [usize; 3], mut f: impl FnMut(usize, Option<usize>)) {
        let [d, h, w] = self.input;
        let [kd, kh, kw] = self.window;
        let at = |o: usize, k: usize, i: usize| (o * self.strides[i] + k * self.dilations[i]).wrapping_sub(self.pad[i]);
        let mut tap = 0;
        for z in 0..kd {
            let iz = at(od, z, 0);
            for y in 0..kh {
                let iy = at(oh, y, 1);
                for x in 0..kw {
                    let ix = at(ow, x, 2);
                    let inside = iz < d && iy < h && ix < w;
                    f(tap, inside.then(|| ((iz * h + iy) * w + ix) * self.c));
                    tap += 1;
                }
            }
        }
    }

    /// Fills `cols` (`plane x patch`) with the patches of output plane `od` of `img`.
    fn im2col<T: Float>(&self, img: &[T], od: usize, cols: &mut [T]) {
        let (patch, c) = (self.patch(), self.c);
        for (p, row) in cols.chunks_exact_mut(patch).enumerate() {
            self.for_each_tap([od, p / self.out[2], p % self.out[2]], |tap, offset| {
                let dst = &mut row[tap * c..][..c];
                match offset {
                    Some(i) => dst.copy_from_slice(&img[i..][..c]),
                    None => dst.fill(T::ZERO),
                }
            });
        }
    }

    /// Adds the patches in `cols` (output plane `od`) back into image `img`.
    fn col2im<T: Float>(&self, cols: &[T], od: usize, img: &mut [T]) {
        let (patch, c) = (self.patch(), self.c);
        for (p, row) in cols.chunks_exact(patch).enumerate() {
            self.for_each_tap([od, p / self.out[2], p % self.out[2]], |tap, offset| {
                if let Some(i) = offset {
                    let src = &row[tap * c..][..c];
                    img[i..][..c].iter_mut().zip(src).for_each(|(d, &s)| *d = d.add(s));
                }
            });
        }
    }
}

fn mat<T>(data: &[T], rows: usize, cols: usize, transpose: bool) -> MatRef<'_, T> {
    MatRef { data, rows, cols, transpose }
}

/// `Conv3D`: `x` `[n, d, h, w, c]` with `filter` `[kd, kh, kw, c, o]`.
pub fn conv3d<T: Float>(x: &Tensor, filter: &Tensor, g: &Conv3dGeometry, env: &ExecEnv) -> Result<Tensor> {
    let (xs, fs) = (x.as_slice::<T>()?, filter.as_slice::<T>()?);
    let mut out = Tensor::zeros(x.dtype(), &g.out_shape())?;
    let (plane, patch) = (g.plane(), g.patch());
    let unit = plane * g.o;
    if out.num_elements() == 0 {
        return Ok(out);
    }
    let min_chunk = unit * MIN_PARALLEL_FLOPS.div_ceil((plane * patch * g.o).max(1));
    env.for_each_chunk(out.as_mut_slice::<T>()?, min_chunk, unit, |offset, chunk| {
        let mut cols = vec![T::ZERO; plane * patch];
        for (j, dst) in chunk.chunks_exact_mut(unit).enumerate() {
            let u = offset / unit + j;
            let (img, od) = (u / g.out[0], u % g.out[0]);
            g.im2col(&xs[img * g.image()..][..g.image()], od, &mut cols);
            gemm_into(dst, mat(&cols, plane, patch, false), mat(fs, patch, g.o, false), false);
        }
    });
    Ok(out)
}

/// `Conv3DBackpropInputV2`: the gradient with respect to the input, `[n, d, h, w, c]`.
pub fn conv3d_backprop_input<T: Float>(
    filter: &Tensor,
    dy: &Tensor,
    g: &Conv3dGeometry,
    env: &ExecEnv,
) -> Result<Tensor> {
    let (fs, dys) = (filter.as_slice::<T>()?, dy.as_slice::<T>()?);
    let mut dx = Tensor::zeros(dy.dtype(), &g.in_shape())?;
    let (plane, patch, image) = (g.plane(), g.patch(), g.image());
    if dx.num_elements() == 0 || g.out.contains(&0) {
        return Ok(dx);
    }
    let image_flops = g.out[0] * plane * patch * g.o;
    let min_chunk = image * MIN_PARALLEL_FLOPS.div_ceil(image_flops.max(1));
    env.for_each_chunk(dx.as_mut_slice::<T>()?, min_chunk, image, |offset, chunk| {
        let mut cols = vec![T::ZERO; plane * patch];
        for (j, img) in chunk.chunks_exact_mut(image).enumerate() {
            let n = offset / image + j;
            for od in 0..g.out[0] {
                let dy_plane = &dys[(n * g.out[0] + od) * plane * g.o..][..plane * g.o];
                gemm_into(&mut cols, mat(dy_plane, plane, g.o, false), mat(fs, patch, g.o, true), false);
                g.col2im(&cols, od, img);
            }
        }
    });
    Ok(dx)
}

/// `Conv3DBackpropFilterV2`: the gradient with respect to the filter, `[kd, kh, kw, c, o]`.
pub fn conv3d_backprop_filter<T: Float>(x: &Tensor, dy: &Tensor, g: &Conv3dGeometry, env: &ExecEnv) -> Result<Tensor> {
    let (xs, dys) = (x.as_slice::<T>()?, dy.as_slice::<T>()?);
    let [kd, kh, kw] = g.window;
    let mut dw = Tensor::zeros(dy.dtype(), &[kd, kh, kw, g.c, g.o])?;
    let (plane, patch) = (g.plane(), g.patch());
    if dw.num_elements() == 0 || g.n * g.out[0] * plane == 0 {
        return Ok(dw);
    }
    sum_over_units(env, g.n * g.out[0], plane * patch * g.o, dw.as_mut_slice::<T>()?, |acc, units| {
        let mut cols = vec![T::ZERO; plane * patch];
        for u in units {
            let (img, od) = (u / g.out[0], u % g.out[0]);
            g.im2col(&xs[img * g.image()..][..g.image()], od, &mut cols);
            let dy_plane = &dys[u * plane * g.o..][..plane * g.o];
            gemm_into(acc, mat(&cols, plane, patch, true), mat(dy_plane, plane, g.o, false), true);
        }
    });
    Ok(dw)
}

/// The kernel of every 3-D op: the validated attrs and which op it is.
struct Window3dKernel {
    op: &'static str,
    attrs: Window3dAttrs,
}

/// `Conv3D`, its backprop ops and the 3-D pooling ops and their gradients. Like TF's
/// CPU kernels, only NDHWC runs (the layers transpose NCDHW around the op).
pub(crate) fn window3d_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let op = b.node.op_type();
    if matches!(b.node.attrs.get("data_format"), Some(AttrValue::S(s)) if s == b"NCDHW") {
        ff_bail!(Unimplemented, "{op}: the CPU kernel supports only the NDHWC data format");
    }
    let pooling = op.contains("Pool");
    Ok(Box::new(Window3dKernel { op, attrs: window3d_attrs(&b.node.attrs, op, pooling)? }))
}

/// A 5-element int vector input (`input_sizes`, `filter_sizes`) as dimensions.
fn sizes5(ctx: &OpContext<'_>, i: usize, what: &str) -> Result<Vec<usize>> {
    let v = crate::framework::tensor_util::int_values(ctx.input(i)?)?;
    if v.len() != 5 {
        ff_bail!(InvalidArgument, "{what} must be a 5-element vector, got {} elements", v.len());
    }
    crate::framework::tensor_util::dims_from(&v, what).map(smallvec::SmallVec::into_vec)
}

impl Window3dKernel {
    fn conv_geometry(&self, input: &[usize], filter: &[usize]) -> Result<Conv3dGeometry> {
        Conv3dGeometry::new(input, filter, self.attrs.strides, self.attrs.dilations, self.attrs.padding)
            .map_err(|m| Error::invalid_argument(format!("{}: {m}", self.op)))
    }
    fn pool_geometry(&self, input: &[usize]) -> Result<PoolGeometry> {
        PoolGeometry::new_3d(input, self.attrs.window, self.attrs.strides, self.attrs.padding)
            .map_err(|m| Error::invalid_argument(format!("{}: {m}", self.op)))
    }
    fn check_shape(&self, what: &str, got: &[usize], want: &[usize], of: &str) -> Result<()> {
        if got != want {
            ff_bail!(
                InvalidArgument,
                "{}: {what} has shape {} but {of} has shape {}",
                self.op,
                fmt_shape(got),
                fmt_shape(want)
            );
        }
        Ok(())
    }
}

fn pooled_shape(g: &PoolGeometry) -> [usize; 5] {
    [g.n, g.od, g.oh, g.ow, g.c]
}

impl OpKernel for Window3dKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let env = ctx.env;
        // The last input is the float operand of every op here.
        let dtype = ctx.input(ctx.num_inputs() - 1)?.dtype();
        let no_kernel = || Error::invalid_argument(format!("{}: no kernel for {dtype}", self.op));
        let out = match self.op {
            "Conv3D" => {
                let (x, f) = (ctx.input(0)?, ctx.input(1)?);
                let geo = self.conv_geometry(x.shape(), f.shape())?;
                dispatch_float!(dtype, T => conv3d::<T>(x, f, &geo, env)?, _ => return Err(no_kernel()))
            }
            "Conv3DBackpropInputV2" => {
                let (sizes, f, dy) = (sizes5(ctx, 0, "input_sizes")?, ctx.input(1)?, ctx.input(2)?);
                let geo = self.conv_geometry(&sizes, f.shape())?;
                self.check_shape("out_backprop", dy.shape(), &geo.out_shape(), "the forward output")?;
                dispatch_float!(dtype, T => conv3d_backprop_input::<T>(f, dy, &geo, env)?, _ => return Err(no_kernel()))
            }
            "Conv3DBackpropFilterV2" => {
                let (x, sizes, dy) = (ctx.input(0)?, sizes5(ctx, 1, "filter_sizes")?, ctx.input(2)?);
                let geo = self.conv_geometry(x.shape(), &sizes)?;
                self.check_shape("out_backprop", dy.shape(), &geo.out_shape(), "the forward output")?;
                dispatch_float!(dtype, T => conv3d_backprop_filter::<T>(x, dy, &geo, env)?, _ => return Err(no_kernel()))
            }
            "MaxPool3D" | "AvgPool3D" => {
                let x = ctx.input(0)?;
                let geo = self.pool_geometry(x.shape())?;
                if self.op == "MaxPool3D" {
                    dispatch_float!(dtype, T => max_pool::<T>(x, &geo, env)?, _ => return Err(no_kernel()))
                } else {
                    dispatch_float!(dtype, T => avg_pool::<T>(x, &geo, env)?, _ => return Err(no_kernel()))
                }
            }
            "MaxPool3DGrad" => {
                let (x, y, dy) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
                let geo = self.pool_geometry(x.shape())?;
                self.check_shape("orig_output", y.shape(), &pooled_shape(&geo), "the pooled output")?;
                self.check_shape("grad", dy.shape(), &pooled_shape(&geo), "the pooled output")?;
                dispatch_float!(dtype, T => max_pool_grad::<T>(x, dy, &geo, env)?, _ => return Err(no_kernel()))
            }
            "MaxPool3DGradGrad" => {
                let (x, y, gx) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
                let geo = self.pool_geometry(x.shape())?;
                self.check_shape("orig_output", y.shape(), &pooled_shape(&geo), "the pooled output")?;
                self.check_shape("grad", gx.shape(), x.shape(), "orig_input")?;
                dispatch_float!(dtype, T => max_pool_grad_grad::<T>(x, y, gx, &geo, env)?, _ => return Err(no_kernel()))
            }
            _ => {
                let (sizes, dy) = (sizes5(ctx, 0, "orig_input_shape")?, ctx.input(1)?);
                let geo = self.pool_geometry(&sizes)?;
                self.check_shape("grad", dy.shape(), &pooled_shape(&geo), "the pooled output")?;
                dispatch_float!(dtype, T => avg_pool_grad::<T>(dy, &geo, env)?, _ => return Err(no_kernel()))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition of the convolution, for checking the im2col path.
    fn naive(x: &[f64], f: &[f64], g: &Conv3dGeometry) -> Vec<f64> {
        let mut out = vec![0.0; g.out_shape().iter().product()];
        let [od, oh, ow] = g.out;
        for n in 0..g.n {
            let img = &x[n * g.image()..][..g.image()];
            for z in 0..od {
                for y in 0..oh {
                    for xx in 0..ow {
                        let o0 = (((n * od + z) * oh + y) * ow + xx) * g.o;
                        g.for_each_tap([z, y, xx], |tap, offset| {
                            if let Some(i) = offset {
                                for ch in 0..g.c {
                                    for oc in 0..g.o {
                                        out[o0 + oc] += img[i + ch] * f[(tap * g.c + ch) * g.o + oc];
                                    }
                                }
                            }
                        });
                    }
                }
            }
        }
        out
    }

    #[test]
    fn conv3d_matches_the_definition_and_its_adjoints() {
        let env = ExecEnv { intra_pool: None };
        for (padding, strides, dilations) in [
            (Padding::Same, [1, 1, 1], [1, 1, 1]),
            (Padding::Valid, [2, 1, 2], [1, 1, 1]),
            (Padding::Same, [1, 2, 1], [2, 1, 1]),
        ] {
            let (xs, fs) = ([2, 4, 5, 3, 2], [3, 2, 2, 2, 3]);
            let g = Conv3dGeometry::new(&xs, &fs, strides, dilations, padding).unwrap();
            let xv: Vec<f64> = (0..xs.iter().product()).map(|i: usize| ((i * 7) % 11) as f64 - 5.0).collect();
            let fv: Vec<f64> = (0..fs.iter().product()).map(|i: usize| ((i * 5) % 7) as f64 - 3.0).collect();
            let x = Tensor::from_slice(&xs, &xv).unwrap();
            let f = Tensor::from_slice(&fs, &fv).unwrap();
            let y = conv3d::<f64>(&x, &f, &g, &env).unwrap();
            assert_eq!(y.as_slice::<f64>().unwrap(), naive(&xv, &fv, &g).as_slice());
            // <conv(x, f), dy> = <x, dx(dy)> = <f, df(dy)>: the two backward passes are the adjoints.
            let dyv: Vec<f64> = (0..y.num_elements()).map(|i| ((i * 3) % 5) as f64 - 2.0).collect();
            let dy = Tensor::from_slice(y.shape(), &dyv).unwrap();
            let dx = conv3d_backprop_input::<f64>(&f, &dy, &g, &env).unwrap();
            let df = conv3d_backprop_filter::<f64>(&x, &dy, &g, &env).unwrap();
            let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
            let lhs = dot(y.as_slice::<f64>().unwrap(), &dyv);
            assert_eq!(lhs, dot(&xv, dx.as_slice::<f64>().unwrap()));
            assert_eq!(lhs, dot(&fv, df.as_slice::<f64>().unwrap()));
        }
    }
}
