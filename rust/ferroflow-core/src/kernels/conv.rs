//! 2-D convolution (NHWC input, HWIO filter) and its two backward passes. A 3x3,
//! stride-1 convolution (and so the input gradient of one) runs as Winograd's
//! F(2x2, 3x3) (`winograd.rs`); the rest as im2col + GEMM: each block of output rows gathers its input patches into a
//! matrix small enough to stay in cache and multiplies it by the filter with the
//! `gemm` crate's vectorised kernels. Blocks are independent, so they run in
//! parallel on the intra-op pool (the backward-input pass splits by image, because
//! neighbouring row blocks scatter into overlapping input rows). Also the kernel of
//! the convolution and pooling ops, and their window attrs (shapes and registration
//! in `ops/conv.rs`).
pub use crate::framework::shape_util::{Padding, WindowAttrs, window_attrs, windowed_output};

use parking_lot::Mutex;

use super::matmul::{MatRef, gemm_into};
use super::num::Float;
use super::pool::{PoolGeometry, avg_pool, avg_pool_grad, max_pool, max_pool_grad, max_pool_grad_grad};
use super::{ExecEnv, KernelBuild, OpContext, OpKernel};
use crate::dispatch_float;
use crate::error::{Error, Result};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// Everything about one convolution's shapes: input `n x h x w x c`, filter
/// `kh x kw x c x o`, output `n x oh x ow x o`.
#[derive(Clone, Copy, Debug)]
pub struct ConvGeometry {
    /// Batch.
    pub n: usize,
    /// Input rows.
    pub h: usize,
    /// Input columns.
    pub w: usize,
    /// Input channels.
    pub c: usize,
    /// Filter rows.
    pub kh: usize,
    /// Filter columns.
    pub kw: usize,
    /// Output channels.
    pub o: usize,
    /// Row stride.
    pub sh: usize,
    /// Column stride.
    pub sw: usize,
    /// Row dilation.
    pub dh: usize,
    /// Column dilation.
    pub dw: usize,
    /// Output rows.
    pub oh: usize,
    /// Output columns.
    pub ow: usize,
    /// Zero rows above the input.
    pub pad_top: usize,
    /// Zero columns left of the input.
    pub pad_left: usize,
}

/// Elements of the patch matrix one block may hold (4 MiB of f32): a whole 32x32x(3x3x64)
/// image, so each GEMM is tall enough to run near its peak (the GEMM packs its own
/// cache-sized panels; measured 20-35% faster than 1 MiB blocks on a 2-core Xeon; on
/// the 2-core EPYC, 512 KiB blocks that stay in L2 were 4% slower, not faster).
const BLOCK_ELEMENTS: usize = 1 << 20;
/// Multiply-adds below which a piece of work is not worth sending to another thread.
const MIN_PARALLEL_FLOPS: usize = 1 << 17;

impl ConvGeometry {
    /// The geometry of `input` (NHWC) convolved with a `[kh, kw, c, o]` filter.
    pub fn new(
        input: &[usize],
        filter: &[usize],
        strides: [usize; 2],
        dilations: [usize; 2],
        padding: Padding,
    ) -> std::result::Result<Self, String> {
        let ([n, h, w, c], [kh, kw, fc, o]) = (dims4(input, "input")?, dims4(filter, "filter")?);
        if c != fc {
            return Err(format!("input depth must be evenly divisible by filter depth: {c} vs {fc}"));
        }
        let (oh, pad_top) = windowed_output(h, kh, dilations[0], strides[0], padding)?;
        let (ow, pad_left) = windowed_output(w, kw, dilations[1], strides[1], padding)?;
        Ok(ConvGeometry {
            n,
            h,
            w,
            c,
            kh,
            kw,
            o,
            sh: strides[0],
            sw: strides[1],
            dh: dilations[0],
            dw: dilations[1],
            oh,
            ow,
            pad_top,
            pad_left,
        })
    }

    /// Length of one patch (a row of the patch matrix).
    fn patch(&self) -> usize {
        self.kh * self.kw * self.c
    }

    /// A 1x1, stride-1 convolution is a plain matrix product over pixels.
    fn is_pointwise(&self) -> bool {
        self.kh == 1 && self.kw == 1 && self.sh == 1 && self.sw == 1 && self.oh == self.h && self.ow == self.w
    }

    /// Output rows per block: the largest divisor of `oh` whose patch matrix fits in
    /// `BLOCK_ELEMENTS`, so blocks tile each image exactly.
    fn rows_per_block(&self) -> usize {
        let fit = (BLOCK_ELEMENTS / (self.ow * self.patch()).max(1)).clamp(1, self.oh.max(1));
        (1..=fit).rev().find(|&r| self.oh.is_multiple_of(r)).unwrap_or(1)
    }

    /// Fills `cols` with the patches of output rows `rows` of image `img` (`h x w x c`).
    fn im2col<T: Float>(&self, img: &[T], rows: std::ops::Range<usize>, cols: &mut [T]) {
        let (patch, c) = (self.patch(), self.c);
        let pixels = rows.flat_map(|oh| (0..self.ow).map(move |ow| (oh, ow)));
        for ((oh, ow), row) in pixels.zip(cols.chunks_exact_mut(patch)) {
            let iw0 = (ow * self.sw).wrapping_sub(self.pad_left);
            for (kh, seg) in row.chunks_exact_mut(self.kw * c).enumerate() {
                let ih = (oh * self.sh + kh * self.dh).wrapping_sub(self.pad_top);
                if ih >= self.h {
                    seg.fill(T::ZERO);
                } else if self.dw == 1 && iw0 < self.w && self.w - iw0 >= self.kw {
                    // The row's taps are side by side in the input: one run.
                    copy_short(seg, &img[(ih * self.w + iw0) * c..][..seg.len()]);
                } else {
                    for (kw, dst) in seg.chunks_exact_mut(c).enumerate() {
                        let iw = iw0.wrapping_add(kw * self.dw);
                        if iw < self.w {
                            copy_short(dst, &img[(ih * self.w + iw) * c..][..c]);
                        } else {
                            dst.fill(T::ZERO);
                        }
                    }
                }
            }
        }
    }

    /// Adds the patches in `cols` (output rows `rows`) back into image `img`.
    fn col2im<T: Float>(&self, cols: &[T], rows: std::ops::Range<usize>, img: &mut [T]) {
        let (patch, c) = (self.patch(), self.c);
        let pixels = rows.flat_map(|oh| (0..self.ow).map(move |ow| (oh, ow)));
        for ((oh, ow), row) in pixels.zip(cols.chunks_exact(patch)) {
            let iw0 = (ow * self.sw).wrapping_sub(self.pad_left);
            for (kh, seg) in row.chunks_exact(self.kw * c).enumerate() {
                let ih = (oh * self.sh + kh * self.dh).wrapping_sub(self.pad_top);
                if ih >= self.h {
                    continue;
                }
                if self.dw == 1 && iw0 < self.w && self.w - iw0 >= self.kw {
                    // The row's taps are side by side in the image: one run.
                    let dst = &mut img[(ih * self.w + iw0) * c..][..seg.len()];
                    dst.iter_mut().zip(seg).for_each(|(d, &s)| *d = d.add(s));
                    continue;
                }
                for (kw, src) in seg.chunks_exact(c).enumerate() {
                    let iw = iw0.wrapping_add(kw * self.dw);
                    if iw < self.w {
                        let dst = &mut img[(ih * self.w + iw) * c..][..c];
                        dst.iter_mut().zip(src).for_each(|(d, &s)| *d = d.add(s));
                    }
                }
            }
        }
    }
}

/// `dst.copy_from_slice(src)` for the short runs of im2col (a few channels): runs under
/// 16 elements are copied as two overlapping fixed-size blocks, which compile to a
/// couple of vector moves, where a `memcpy` call per run cost more than the GEMM for
/// three-channel inputs.
#[inline(always)]
fn copy_short<T: Copy>(dst: &mut [T], src: &[T]) {
    let n = dst.len();
    match n {
        16.. => dst.copy_from_slice(src),
        8..16 => {
            dst[..8].copy_from_slice(&src[..8]);
            dst[n - 8..].copy_from_slice(&src[n - 8..n]);
        }
        4..8 => {
            dst[..4].copy_from_slice(&src[..4]);
            dst[n - 4..].copy_from_slice(&src[n - 4..n]);
        }
        _ => {
            for (d, &v) in dst.iter_mut().zip(src) {
                *d = v;
            }
        }
    }
}

fn dims4(s: &[usize], what: &str) -> std::result::Result<[usize; 4], String> {
    s.try_into().map_err(|_| format!("{what} must be 4-dimensional: {}", fmt_shape(s)))
}

fn mat<T>(data: &[T], rows: usize, cols: usize, transpose: bool) -> MatRef<'_, T> {
    MatRef { data, rows, cols, transpose }
}

/// Minimum chunk (a multiple of `unit` elements of work of `unit_flops` each) worth
/// a thread of its own.
fn min_chunk(unit: usize, unit_flops: usize) -> usize {
    unit * MIN_PARALLEL_FLOPS.div_ceil(unit_flops.max(1))
}

/// `Conv2D`: `x` `[n, h, w, c]` with `filter` `[kh, kw, c, o]`.
pub fn conv2d<T: Float>(x: &Tensor, filter: &Tensor, g: &ConvGeometry, env: &ExecEnv) -> Result<Tensor> {
    // `conv2d_into` writes every element: no zeroing pass over the output.
    let mut out = Tensor::for_overwrite(x.dtype(), &[g.n, g.oh, g.ow, g.o])?;
    if out.num_elements() > 0 {
        conv2d_into(x.as_slice::<T>()?, filter.as_slice::<T>()?, g, env, out.as_mut_slice::<T>()?);
    }
    Ok(out)
}

/// The forward convolution on slices, writing every element of `ys`.
fn conv2d_into<T: Float>(xs: &[T], fs: &[T], g: &ConvGeometry, env: &ExecEnv, ys: &mut [T]) {
    if super::winograd::applies::<T>(g) {
        super::winograd::conv2d(xs, fs, g, env, ys);
        return;
    }
    if super::sliding::applies::<T>(g) {
        super::sliding::conv2d(xs, fs, g, env, ys);
        return;
    }
    let patch = g.patch();
    if g.is_pointwise() {
        env.for_each_chunk(ys, min_chunk(g.o, g.c * g.o), g.o, |offset, chunk| {
            let (p0, pixels) = (offset / g.o, chunk.len() / g.o);
            gemm_into(chunk, mat(&xs[p0 * g.c..][..pixels * g.c], pixels, g.c, false), mat(fs, g.c, g.o, false), false);
        });
        return;
    }
    let rows = g.rows_per_block();
    let (blocks, unit) = (g.oh / rows, rows * g.ow * g.o);
    env.for_each_chunk(ys, min_chunk(unit, rows * g.ow * patch * g.o), unit, |offset, chunk| {
        let mut cols = vec![T::ZERO; rows * g.ow * patch];
        for (j, dst) in chunk.chunks_exact_mut(unit).enumerate() {
            let u = offset / unit + j;
            let (img, r0) = (u / blocks, (u % blocks) * rows);
            g.im2col(&xs[img * g.h * g.w * g.c..][..g.h * g.w * g.c], r0..r0 + rows, &mut cols);
            gemm_into(dst, mat(&cols, rows * g.ow, patch, false), mat(fs, patch, g.o, false), false);
        }
    });
}

/// For stride 1, the input gradient is itself a convolution: `dy` correlated with the
/// filter rotated 180 degrees and with its channel axes swapped, padded by what the
/// forward pass did not pad. Running it through the forward path avoids col2im's
/// scattered adds.
fn backprop_input_as_conv<T: Float>(fs: &[T], dys: &[T], g: &ConvGeometry, env: &ExecEnv, dxs: &mut [T]) {
    let (kh, kw, c, o) = (g.kh, g.kw, g.c, g.o);
    let mut flipped = vec![T::ZERO; fs.len()];
    for i in 0..kh {
        for j in 0..kw {
            let src = &fs[((kh - 1 - i) * kw + (kw - 1 - j)) * c * o..][..c * o];
            let dst = &mut flipped[(i * kw + j) * o * c..][..o * c];
            for ch in 0..c {
                for oc in 0..o {
                    dst[oc * c + ch] = src[ch * o + oc];
                }
            }
        }
    }
    let transposed = ConvGeometry {
        h: g.oh,
        w: g.ow,
        c: o,
        o: c,
        oh: g.h,
        ow: g.w,
        pad_top: (kh - 1) * g.dh - g.pad_top,
        pad_left: (kw - 1) * g.dw - g.pad_left,
        ..*g
    };
    conv2d_into(dys, &flipped, &transposed, env, dxs);
}

/// `Conv2DBackpropInput`: the gradient with respect to the input, shape `[n, h, w, c]`.
pub fn conv2d_backprop_input<T: Float>(
    filter: &Tensor,
    dy: &Tensor,
    g: &ConvGeometry,
    env: &ExecEnv,
) -> Result<Tensor> {
    let (fs, dys) = (filter.as_slice::<T>()?, dy.as_slice::<T>()?);
    let dims = [g.n, g.h, g.w, g.c];
    // With few input channels the convolution form's GEMM would be `c` columns wide
    // (3 for RGB), far from its peak: col2im's GEMM is `kh * kw * c` wide instead.
    // (64x32x32x3 into 32 channels: 2.8 -> 0.7 ms, TF 1.4.)
    if g.sh == 1 && g.sw == 1 && !g.is_pointwise() && g.c >= super::sliding::NARROW_CHANNELS {
        // A forward convolution writes every element: no zeroing pass.
        let mut dx = Tensor::for_overwrite(dy.dtype(), &dims)?;
        if dx.num_elements() > 0 {
            backprop_input_as_conv(fs, dys, g, env, dx.as_mut_slice::<T>()?);
        }
        return Ok(dx);
    }
    let mut dx = Tensor::zeros(dy.dtype(), &dims)?;
    if dx.num_elements() == 0 {
        return Ok(dx);
    }
    let patch = g.patch();
    let dxs = dx.as_mut_slice::<T>()?;
    if g.is_pointwise() {
        env.for_each_chunk(dxs, min_chunk(g.c, g.c * g.o), g.c, |offset, chunk| {
            let (p0, pixels) = (offset / g.c, chunk.len() / g.c);
            gemm_into(chunk, mat(&dys[p0 * g.o..][..pixels * g.o], pixels, g.o, false), mat(fs, g.c, g.o, true), false);
        });
        return Ok(dx);
    }
    let rows = g.rows_per_block();
    let image = g.h * g.w * g.c;
    let image_flops = g.oh * g.ow * patch * g.o;
    env.for_each_chunk(dxs, min_chunk(image, image_flops), image, |offset, chunk| {
        let mut cols = vec![T::ZERO; rows * g.ow * patch];
        for (j, img) in chunk.chunks_exact_mut(image).enumerate() {
            let n = offset / image + j;
            for r0 in (0..g.oh).step_by(rows) {
                let dy_block = &dys[(n * g.oh + r0) * g.ow * g.o..][..rows * g.ow * g.o];
                gemm_into(&mut cols, mat(dy_block, rows * g.ow, g.o, false), mat(fs, patch, g.o, true), false);
                g.col2im(&cols, r0..r0 + rows, img);
            }
        }
    });
    Ok(dx)
}

/// `Conv2DBackpropFilter`: the gradient with respect to the filter, `[kh, kw, c, o]`.
pub fn conv2d_backprop_filter<T: Float>(x: &Tensor, dy: &Tensor, g: &ConvGeometry, env: &ExecEnv) -> Result<Tensor> {
    let (xs, dys) = (x.as_slice::<T>()?, dy.as_slice::<T>()?);
    let patch = g.patch();
    let mut dw = Tensor::zeros(dy.dtype(), &[g.kh, g.kw, g.c, g.o])?;
    if dw.num_elements() == 0 || g.n * g.oh * g.ow == 0 {
        return Ok(dw);
    }
    if super::winograd::applies::<T>(g) {
        super::winograd::backprop_filter(xs, dys, g, env, dw.as_mut_slice::<T>()?);
        return Ok(dw);
    }
    if super::sliding::applies::<T>(g) {
        super::sliding::backprop_filter(xs, dys, g, env, dw.as_mut_slice::<T>()?);
        return Ok(dw);
    }
    let rows = g.rows_per_block();
    let blocks = g.oh / rows;
    let block_grad = |acc: &mut [T], cols: &mut Vec<T>, u: usize| {
        let (img, r0) = (u / blocks, (u % blocks) * rows);
        let dy_block = &dys[(img * g.oh + r0) * g.ow * g.o..][..rows * g.ow * g.o];
        if g.is_pointwise() {
            let x_block = &xs[(img * g.h + r0) * g.w * g.c..][..rows * g.w * g.c];
            gemm_into(acc, mat(x_block, rows * g.ow, g.c, true), mat(dy_block, rows * g.ow, g.o, false), true);
        } else {
            cols.resize(rows * g.ow * patch, T::ZERO);
            g.im2col(&xs[img * g.h * g.w * g.c..][..g.h * g.w * g.c], r0..r0 + rows, cols);
            gemm_into(acc, mat(cols, rows * g.ow, patch, true), mat(dy_block, rows * g.ow, g.o, false), true);
        }
    };
    let out = dw.as_mut_slice::<T>()?;
    sum_over_units(env, g.n * blocks, rows * g.ow * patch * g.o, out, |acc, units| {
        let mut cols = Vec::new();
        units.for_each(|u| block_grad(acc, &mut cols, u));
    });
    Ok(dw)
}

/// `out` = the sum over `units` units of work (of `unit_flops` multiply-adds each) of
/// what `add(acc, units)` accumulates into a zeroed `acc` of `out`'s length: ranges of
/// units run on the intra-op threads, each into its own partial sum, added at the end.
/// `out` must be zeroed.
pub(super) fn sum_over_units<T: Float>(
    env: &ExecEnv,
    units: usize,
    unit_flops: usize,
    out: &mut [T],
    add: impl Fn(&mut [T], std::ops::Range<usize>) + Sync,
) {
    let parallel = env.intra_pool.is_some()
        && env.intra_threads() > 1
        && units >= 2
        && units * unit_flops >= 2 * MIN_PARALLEL_FLOPS;
    if !parallel {
        add(out, 0..units);
        return;
    }
    let per = units.div_ceil(env.intra_threads() * 4).max(MIN_PARALLEL_FLOPS.div_ceil(unit_flops.max(1)));
    let partials: Vec<Mutex<Option<Vec<T>>>> = (0..units.div_ceil(per)).map(|_| Mutex::new(None)).collect();
    env.run_pieces(partials.len(), |i| {
        let mut acc = vec![T::ZERO; out.len()];
        add(&mut acc, i * per..((i + 1) * per).min(units));
        *partials[i].lock() = Some(acc);
    });
    for part in partials.into_iter().filter_map(Mutex::into_inner) {
        out.iter_mut().zip(&part).for_each(|(x, &y)| *x = x.add(y));
    }
}

/// The kernel of every op here: the validated attrs and which op it is.
struct WindowKernel {
    op: &'static str,
    attrs: WindowAttrs,
}

/// `Conv2D` and its backprop ops.
pub(crate) fn conv_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(WindowKernel { op: b.node.op_type(), attrs: window_attrs(&b.node.attrs, b.node.op_type(), false)? }))
}

/// The pooling ops and their gradients.
pub(crate) fn pool_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(WindowKernel { op: b.node.op_type(), attrs: window_attrs(&b.node.attrs, b.node.op_type(), true)? }))
}

/// A 4-element int vector input (`input_sizes`, `filter_sizes`) as dimensions.
pub fn sizes(ctx: &OpContext<'_>, i: usize, what: &str) -> Result<Vec<usize>> {
    let v = crate::framework::tensor_util::int_values(ctx.input(i)?)?;
    if v.len() != 4 {
        ff_bail!(InvalidArgument, "{what} must be a 4-element vector, got {} elements", v.len());
    }
    crate::framework::tensor_util::dims_from(&v, what).map(smallvec::SmallVec::into_vec)
}

fn invalid(op: &str) -> impl Fn(String) -> Error + '_ {
    move |m| Error::invalid_argument(format!("{op}: {m}"))
}

impl WindowKernel {
    fn conv_geometry(&self, input: &[usize], filter: &[usize]) -> Result<ConvGeometry> {
        ConvGeometry::new(input, filter, self.attrs.strides, self.attrs.dilations, self.attrs.padding)
            .map_err(invalid(self.op))
    }
    fn pool_geometry(&self, input: &[usize]) -> Result<PoolGeometry> {
        PoolGeometry::new(input, self.attrs.window, self.attrs.strides, self.attrs.padding).map_err(invalid(self.op))
    }
    /// Checks that input `what` has the shape `want` (of the forward op's output or input).
    fn check_shape(&self, what: &str, got: &[usize], want: &[usize], of: &str) -> Result<()> {
        if got != want {
            ff_bail!(
                InvalidArgument,
                "{}: {what} has shape {} but {of} has shape {}",
                self.op,
                crate::shape::fmt_shape(got),
                crate::shape::fmt_shape(want)
            );
        }
        Ok(())
    }
    /// Checks that a gradient fed to a backprop op has the forward output's shape.
    fn check_grad(&self, dy: &[usize], want: [usize; 4]) -> Result<()> {
        self.check_shape("out_backprop", dy, &want, "the forward output")
    }
}

impl OpKernel for WindowKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let env = ctx.env;
        // The last input is the float operand of every op here.
        let dtype = ctx.input(ctx.num_inputs() - 1)?.dtype();
        let out = match self.op {
            "Conv2D" => {
                let (x, f) = (ctx.input(0)?, ctx.input(1)?);
                let geo = self.conv_geometry(x.shape(), f.shape())?;
                dispatch_float!(dtype, T => conv2d::<T>(x, f, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            "Conv2DBackpropInput" => {
                let (sizes, f, dy) = (sizes(ctx, 0, "input_sizes")?, ctx.input(1)?, ctx.input(2)?);
                let geo = self.conv_geometry(&sizes, f.shape())?;
                self.check_grad(dy.shape(), [geo.n, geo.oh, geo.ow, geo.o])?;
                dispatch_float!(dtype, T => conv2d_backprop_input::<T>(f, dy, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            "Conv2DBackpropFilter" => {
                let (x, sizes, dy) = (ctx.input(0)?, sizes(ctx, 1, "filter_sizes")?, ctx.input(2)?);
                let geo = self.conv_geometry(x.shape(), &sizes)?;
                self.check_grad(dy.shape(), [geo.n, geo.oh, geo.ow, geo.o])?;
                dispatch_float!(dtype, T => conv2d_backprop_filter::<T>(x, dy, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            "MaxPool" | "AvgPool" => {
                let x = ctx.input(0)?;
                let geo = self.pool_geometry(x.shape())?;
                if self.op == "MaxPool" {
                    dispatch_float!(dtype, T => max_pool::<T>(x, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
                } else {
                    dispatch_float!(dtype, T => avg_pool::<T>(x, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
                }
            }
            "MaxPoolGrad" => {
                let (x, dy) = (ctx.input(0)?, ctx.input(2)?);
                let geo = self.pool_geometry(x.shape())?;
                self.check_grad(dy.shape(), [geo.n, geo.oh, geo.ow, geo.c])?;
                dispatch_float!(dtype, T => max_pool_grad::<T>(x, dy, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            "MaxPoolGradGrad" => {
                let (x, y, gx) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
                let geo = self.pool_geometry(x.shape())?;
                self.check_shape("orig_output", y.shape(), &[geo.n, geo.oh, geo.ow, geo.c], "the pooled output")?;
                self.check_shape("grad", gx.shape(), x.shape(), "orig_input")?;
                dispatch_float!(dtype, T => max_pool_grad_grad::<T>(x, y, gx, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
            _ => {
                let (sizes, dy) = (sizes(ctx, 0, "orig_input_shape")?, ctx.input(1)?);
                let geo = self.pool_geometry(&sizes)?;
                self.check_grad(dy.shape(), [geo.n, geo.oh, geo.ow, geo.c])?;
                dispatch_float!(dtype, T => avg_pool_grad::<T>(dy, &geo, env)?, _ => ff_bail!(InvalidArgument, "no kernel for {dtype}"))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Direct definition of the convolution, for checking the im2col and Winograd paths.
    pub(in crate::kernels) fn naive(x: &[f64], f: &[f64], g: &ConvGeometry) -> Vec<f64> {
        let mut out = vec![0.0; g.n * g.oh * g.ow * g.o];
        for n in 0..g.n {
            for oh in 0..g.oh {
                for ow in 0..g.ow {
                    for o in 0..g.o {
                        let mut s = 0.0;
                        for kh in 0..g.kh {
                            for kw in 0..g.kw {
                                let ih = (oh * g.sh + kh * g.dh) as isize - g.pad_top as isize;
                                let iw = (ow * g.sw + kw * g.dw) as isize - g.pad_left as isize;
                                if ih < 0 || iw < 0 || ih >= g.h as isize || iw >= g.w as isize {
                                    continue;
                                }
                                for c in 0..g.c {
                                    let xv = x[((n * g.h + ih as usize) * g.w + iw as usize) * g.c + c];
                                    s += xv * f[((kh * g.kw + kw) * g.c + c) * g.o + o];
                                }
                            }
                        }
                        out[((n * g.oh + oh) * g.ow + ow) * g.o + o] = s;
                    }
                }
            }
        }
        out
    }

    /// Direct definition of the filter gradient: `dw[kh][kw][c][o]` sums
    /// `x[n][ih][iw][c] * dy[n][oh][ow][o]` over every output position whose window
    /// puts tap (kh, kw) on input pixel (ih, iw).
    pub(in crate::kernels) fn naive_filter_grad(x: &[f64], dy: &[f64], g: &ConvGeometry) -> Vec<f64> {
        let mut dw = vec![0.0; g.kh * g.kw * g.c * g.o];
        for (n, oh, ow) in (0..g.n).flat_map(|n| (0..g.oh).flat_map(move |oh| (0..g.ow).map(move |ow| (n, oh, ow)))) {
            for (kh, kw) in (0..g.kh).flat_map(|kh| (0..g.kw).map(move |kw| (kh, kw))) {
                let ih = (oh * g.sh + kh * g.dh).wrapping_sub(g.pad_top);
                let iw = (ow * g.sw + kw * g.dw).wrapping_sub(g.pad_left);
                if ih >= g.h || iw >= g.w {
                    continue;
                }
                for c in 0..g.c {
                    let xv = x[((n * g.h + ih) * g.w + iw) * g.c + c];
                    for o in 0..g.o {
                        dw[((kh * g.kw + kw) * g.c + c) * g.o + o] += xv * dy[((n * g.oh + oh) * g.ow + ow) * g.o + o];
                    }
                }
            }
        }
        dw
    }

    #[test]
    fn output_sizes_follow_tf() {
        assert_eq!(windowed_output(5, 3, 1, 2, Padding::Valid), Ok((2, 0)));
        assert_eq!(windowed_output(5, 3, 1, 2, Padding::Same), Ok((3, 1)));
        assert_eq!(windowed_output(4, 3, 1, 2, Padding::Same), Ok((2, 0)));
        assert_eq!(windowed_output(7, 3, 2, 1, Padding::Valid), Ok((3, 0)));
        assert!(windowed_output(2, 3, 1, 1, Padding::Valid).is_err());
    }

    #[test]
    fn im2col_path_matches_the_definition() {
        let env = ExecEnv { intra_pool: None };
        for (strides, dil, pad) in
            [([1, 1], [1, 1], Padding::Same), ([2, 1], [1, 1], Padding::Valid), ([1, 2], [2, 1], Padding::Same)]
        {
            let (xs, fs) = ([2, 7, 6, 3], [3, 2, 3, 4]);
            let g = ConvGeometry::new(&xs, &fs, strides, dil, pad).unwrap();
            let xv: Vec<f64> = (0..xs.iter().product()).map(|i: usize| ((i * 7) % 11) as f64 - 5.0).collect();
            let fv: Vec<f64> = (0..fs.iter().product()).map(|i: usize| ((i * 5) % 7) as f64 * 0.25).collect();
            let x = Tensor::from_slice(&xs, &xv).unwrap();
            let f = Tensor::from_slice(&fs, &fv).unwrap();
            let y = conv2d::<f64>(&x, &f, &g, &env).unwrap();
            assert_eq!(y.as_slice::<f64>().unwrap(), naive(&xv, &fv, &g).as_slice());
        }
    }
}
