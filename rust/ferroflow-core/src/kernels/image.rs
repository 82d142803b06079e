//! Image kernels with TF's CPU arithmetic: the resizes (`ResizeBilinear`,
//! `ResizeNearestNeighbor`, `ResizeBicubic`, `ResizeArea`) and the gradient ops TF
//! has for three of them, the colour ops (`RGBToHSV`, `HSVToRGB`, `AdjustHue`,
//! `AdjustSaturation`, `AdjustContrastv2`) and `ReverseV2` (the flips). Where TF
//! computes in `float` whatever the input type (the resizes, the adjustments), so do
//! these kernels; TF's messages are kept.
use multiversion::multiversion;
use smallvec::SmallVec;

/// `$body` with the const `$C` set to the channel count `$c` when it is 1, 3 or 4 (grey,
/// RGB, RGBA: the per-pixel loops are then unrolled for them), else `$any`.
macro_rules! by_channels {
    ($c:expr, |$C:ident| $body:expr, _ => $any:expr) => {
        match $c {
            1 => {
                const $C: usize = 1;
                $body
            }
            3 => {
                const $C: usize = 3;
                $body
            }
            4 => {
                const $C: usize = 4;
                $body
            }
            _ => $any,
        }
    };
}
pub(crate) use by_channels;

use super::array::cast;
use super::{ExecEnv, KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::Result;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// Which resize a kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Bilinear,
    Nearest,
    Bicubic,
    Area,
}

/// TF's `CalculateResizeScale`.
fn resize_scale(in_size: usize, out_size: usize, align_corners: bool) -> f32 {
    if align_corners && out_size > 1 {
        (in_size - 1) as f32 / (out_size - 1) as f32
    } else {
        in_size as f32 / out_size as f32
    }
}

/// The sizes of one resize: `n x ih x iw x c` to `n x oh x ow x c`.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    n: usize,
    ih: usize,
    iw: usize,
    c: usize,
    oh: usize,
    ow: usize,
}

/// `f(0), ..., f(n - 1)` in a vector allocated fallibly: per-row tables of a resize
/// are as long as its output sides, which come from the user's values.
fn table<T>(n: usize, f: impl FnMut(usize) -> T) -> Result<Vec<T>> {
    let mut v = crate::buffer::try_vec(n)?;
    v.extend((0..n).map(f));
    Ok(v)
}

/// The two positive output sizes of a resize's `size` input (TF's checks and messages).
fn size_input(size: &Tensor, positive: &str) -> Result<[usize; 2]> {
    if size.shape().len() != 1 {
        ff_bail!(InvalidArgument, "shape_t must be 1-dimensional{}", fmt_shape(size.shape()));
    }
    if size.num_elements() != 2 {
        ff_bail!(InvalidArgument, "shape_t must have two elements{}", fmt_shape(size.shape()));
    }
    let s = size.as_slice::<i32>()?;
    if s[0] <= 0 || s[1] <= 0 {
        ff_bail!(InvalidArgument, "{positive}");
    }
    Ok([s[0] as usize, s[1] as usize])
}

fn check_centers(align_corners: bool, half_pixel_centers: bool) -> Result<()> {
    if align_corners && half_pixel_centers {
        ff_bail!(InvalidArgument, "If half_pixel_centers is True, align_corners must be False.");
    }
    Ok(())
}

/// TF's `ImageResizerState::ValidateAndCalculateOutputSize`.
fn resize_geometry(input: &Tensor, size: &Tensor, align_corners: bool, half: bool) -> Result<Geometry> {
    check_centers(align_corners, half)?;
    let d = input.shape();
    if d.len() != 4 {
        ff_bail!(InvalidArgument, "input must be 4-dimensional{}", fmt_shape(d));
    }
    if d[1] > i32::MAX as usize || d[2] > i32::MAX as usize {
        ff_bail!(InvalidArgument, "input sizes must be between 0 and max int32");
    }
    let [oh, ow] = size_input(size, "output dimensions must be positive")?;
    if d[3] == 0 {
        ff_bail!(InvalidArgument, "image must have at least one channel");
    }
    if d[1] == 0 || d[2] == 0 {
        ff_bail!(InvalidArgument, "input image must be of non-zero size");
    }
    Ok(Geometry { n: d[0], ih: d[1], iw: d[2], c: d[3], oh, ow })
}

/// Input `x` of any real type as `f32` values (TF's resizes read `float(x)`).
fn as_f32(x: &Tensor) -> Result<Tensor> {
    cast(x, DType::Float32)
}

/// The resize ops (one struct: the method decides the arithmetic).
struct Resize {
    method: Method,
    align_corners: bool,
    half_pixel_centers: bool,
}

pub(crate) fn resize_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let method = match b.node.op_type() {
        "ResizeBilinear" => Method::Bilinear,
        "ResizeNearestNeighbor" => Method::Nearest,
        "ResizeBicubic" => Method::Bicubic,
        _ => Method::Area,
    };
    let half_pixel_centers = method != Method::Area && b.node.attr_or("half_pixel_centers", false)?;
    Ok(Box::new(Resize { method, align_corners: b.node.attr_or("align_corners", false)?, half_pixel_centers }))
}

impl OpKernel for Resize {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (input, size) = (ctx.input(0)?, ctx.input(1)?);
        let g = resize_geometry(input, size, self.align_corners, self.half_pixel_centers)?;
        let hs = resize_scale(g.ih, g.oh, self.align_corners);
        let ws = resize_scale(g.iw, g.ow, self.align_corners);
        let out = match self.method {
            Method::Nearest => nearest(input, &g, hs, ws, self.align_corners, self.half_pixel_centers, ctx.env)?,
            Method::Bilinear => bilinear(&as_f32(input)?, &g, hs, ws, self.half_pixel_centers, ctx.env)?,
            Method::Bicubic => bicubic(&as_f32(input)?, &g, hs, ws, self.half_pixel_centers, ctx.env)?,
            Method::Area => area(&as_f32(input)?, &g, hs, ws, ctx.env)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The source index of output `i` in nearest-neighbour resizing (TF's
/// `HalfPixelScalerForNN` and `LegacyScaler`, rounded with `roundf` under
/// `align_corners`, else floored, then bounded to `[0, limit)`).
fn nearest_index(i: usize, scale: f32, limit: usize, align_corners: bool, half: bool) -> usize {
    let x = if half { (i as f32 + 0.5) * scale } else { i as f32 * scale };
    let v = if align_corners { x.round() } else { x.floor() } as i64;
    v.clamp(0, limit as i64 - 1) as usize
}

/// `ResizeNearestNeighbor`: copies elements, so any element type works unchanged.
/// Rows split over the intra-op pool; an output row with the same source row as the
/// one before it is a copy of that row.
fn nearest(input: &Tensor, g: &Geometry, hs: f32, ws: f32, align: bool, half: bool, env: &ExecEnv) -> Result<Tensor> {
    let mut out = Tensor::for_overwrite(input.dtype(), &[g.n, g.oh, g.ow, g.c])?;
    let pixel = g.c * input.dtype().size();
    let src = input.as_bytes()?;
    let ys = table(g.oh, |y| nearest_index(y, hs, g.ih, align, half))?;
    // Byte offsets of each output pixel's source within a row.
    let xs = table(g.ow, |x| nearest_index(x, ws, g.iw, align, half) * pixel)?;
    let (in_row, out_row) = (g.iw * pixel, g.ow * pixel);
    if out_row == 0 || g.oh == 0 {
        return Ok(out);
    }
    let dst = out.as_mut_bytes()?;
    let min = out_row * (1usize << 15).div_ceil(out_row);
    let source_of = |r: usize| (r / g.oh * g.ih + ys[r % g.oh]) * in_row;
    env.for_each_chunk(dst, min, out_row, |offset, chunk| {
        let mut rows = chunk.chunks_exact_mut(out_row);
        let mut r = offset / out_row;
        while let Some(row) = rows.next() {
            let source = source_of(r);
            gather_pixels(&src[source..][..in_row], &xs, pixel, row);
            r += 1;
            // The following rows of the chunk with the same source are copies.
            let mut filled: &mut [u8] = row;
            while source_of(r) == source {
                let Some(next) = rows.next() else { break };
                next.copy_from_slice(filled);
                filled = next;
                r += 1;
            }
        }
    });
    Ok(out)
}

/// `dst`'s pixels of `pixel` bytes, each from `src` at its offset in `xs`.
fn gather_pixels(src: &[u8], xs: &[usize], pixel: usize, dst: &mut [u8]) {
    fn fixed<const P: usize>(src: &[u8], xs: &[usize], dst: &mut [u8]) {
        for (&x, d) in xs.iter().zip(dst.chunks_exact_mut(P)) {
            d.copy_from_slice(&src[x..x + P]);
        }
    }
    match pixel {
        1 => fixed::<1>(src, xs, dst),
        3 => fixed::<3>(src, xs, dst),
        4 => fixed::<4>(src, xs, dst),
        12 => fixed::<12>(src, xs, dst),
        16 => fixed::<16>(src, xs, dst),
        _ => {
            for (&x, d) in xs.iter().zip(dst.chunks_exact_mut(pixel)) {
                d.copy_from_slice(&src[x..x + pixel]);
            }
        }
    }
}

/// One interpolation step of bilinear resizing (TF's `CachedInterpolation`).
#[derive(Clone, Copy)]
struct Lerp {
    lower: usize,
    upper: usize,
    lerp: f32,
}

/// TF's `compute_interpolation_weights`.
fn bilinear_weights(out_size: usize, in_size: usize, scale: f32, half: bool) -> Result<Vec<Lerp>> {
    table(out_size, |i| {
        let x = if half { (i as f32 + 0.5) * scale - 0.5 } else { i as f32 * scale };
        let f = x.floor();
        let top = in_size as i64 - 1;
        Lerp { lower: (f as i64).clamp(0, top) as usize, upper: (x.ceil() as i64).clamp(0, top) as usize, lerp: x - f }
    })
}

/// `ResizeBilinear` on `f32` values, with TF's arithmetic: each source row is first
/// interpolated across (`top = tl + (tr - tl) * x_lerp`), once for all the output rows
/// that use it, then each output row between its two such rows
/// (`top + (bottom - top) * y_lerp`, vectorised).
fn bilinear(input: &Tensor, g: &Geometry, hs: f32, ws: f32, half: bool, env: &ExecEnv) -> Result<Tensor> {
    let x = input.as_slice::<f32>()?;
    let mut out = Tensor::for_overwrite(DType::Float32, &[g.n, g.oh, g.ow, g.c])?;
    let ys = bilinear_weights(g.oh, g.ih, hs, half)?;
    let xs = bilinear_weights(g.ow, g.iw, ws, half)?;
    let (c, row) = (g.c, g.iw * g.c);
    let across = |key: usize, dst: &mut [f32]| lerp_across(&x[key * row..][..row], &xs, c, dst);
    output_rows(env, out.as_mut_slice::<f32>()?, g, LerpedRows::new, |held, b, y, dst| {
        let yl = ys[y];
        let (top, bottom) = held.pair(b * g.ih + yl.lower, b * g.ih + yl.upper, dst.len(), across);
        lerp_down(top, bottom, yl.lerp, dst);
    });
    Ok(out)
}

/// Two source rows interpolated across, by the index of their row in the batch
/// (consecutive output rows mostly share theirs).
struct LerpedRows {
    keys: [usize; 2],
    rows: [Vec<f32>; 2],
}

impl LerpedRows {
    fn new() -> Self {
        LerpedRows { keys: [usize::MAX; 2], rows: [Vec::new(), Vec::new()] }
    }

    /// Rows `upper` and `lower`, each made by `fill(key, values)` unless held already.
    fn pair(&mut self, lower: usize, upper: usize, len: usize, fill: impl Fn(usize, &mut [f32])) -> (&[f32], &[f32]) {
        let mut slot = |key: usize, keep: Option<usize>| {
            if let Some(i) = self.keys.iter().position(|&k| k == key) {
                return i;
            }
            let i = if keep == Some(0) { 1 } else { 0 };
            // At most two output rows long: the output itself was allocated fallibly.
            self.rows[i].resize(len, 0.0);
            fill(key, &mut self.rows[i]);
            self.keys[i] = key;
            i
        };
        let l = slot(lower, None);
        let u = slot(upper, Some(l));
        (&self.rows[l], &self.rows[u])
    }
}

/// One source row interpolated across to the output's columns (TF's
/// `top_left + (top_right - top_left) * x_lerp`), channels known at compile time for
/// the common counts.
fn lerp_across(src: &[f32], xs: &[Lerp], c: usize, dst: &mut [f32]) {
    fn fixed<const C: usize>(src: &[f32], xs: &[Lerp], dst: &mut [f32]) {
        for (xl, px) in xs.iter().zip(dst.chunks_exact_mut(C)) {
            let l: &[f32; C] = src[xl.lower * C..][..C].try_into().expect("C values");
            let r: &[f32; C] = src[xl.upper * C..][..C].try_into().expect("C values");
            for ch in 0..C {
                px[ch] = l[ch] + (r[ch] - l[ch]) * xl.lerp;
            }
        }
    }
    by_channels!(c, |C| fixed::<C>(src, xs, dst), _ => {
        for (xl, px) in xs.iter().zip(dst.chunks_exact_mut(c)) {
            let (l, r) = (&src[xl.lower * c..][..c], &src[xl.upper * c..][..c]);
            for ch in 0..c {
                px[ch] = l[ch] + (r[ch] - l[ch]) * xl.lerp;
            }
        }
    })
}

/// `top + (bottom - top) * w`, element by element (no fused multiply-add: TF's
/// rounding).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn lerp_down(top: &[f32], bottom: &[f32], w: f32, dst: &mut [f32]) {
    for ((d, &t), &b) in dst.iter_mut().zip(top).zip(bottom) {
        *d = t + (b - t) * w;
    }
}

/// Entries of TF's bicubic coefficient table.
const TABLE_SIZE: usize = 1024;

/// TF's `InitCoeffsTable(a)`: `(TABLE_SIZE + 1) x 2` floats.
fn coeffs_table(a: f64) -> Vec<f32> {
    let mut t = Vec::with_capacity((TABLE_SIZE + 1) * 2);
    for i in 0..=TABLE_SIZE {
        let mut x = (i as f64 / TABLE_SIZE as f64) as f32;
        let xd = f64::from(x);
        t.push((((a + 2.0) * xd - (a + 3.0)) * xd * xd + 1.0) as f32);
        x += 1.0;
        let xd = f64::from(x);
        t.push((((a * xd - 5.0 * a) * xd + 8.0 * a) * xd - 4.0 * a) as f32);
    }
    t
}

/// Four source indices and weights of one bicubic output position (TF's
/// `GetWeightsAndIndices`; with half-pixel centres Keys' cubic with out-of-image taps
/// dropped and the weights renormalised).
#[derive(Clone, Copy)]
struct Cubic {
    index: [usize; 4],
    weight: [f32; 4],
}

fn cubic_weights(out_size: usize, in_size: usize, scale: f32, half: bool, coeffs: &[f32]) -> Result<Vec<Cubic>> {
    let limit = in_size as i64;
    let bound = |v: i64| v.clamp(0, limit - 1);
    table(out_size, |i| {
        let x = if half { (i as f32 + 0.5) * scale - 0.5 } else { i as f32 * scale };
        let loc = x.floor() as i64;
        let delta = x - loc as f32;
        let offset = ((delta * TABLE_SIZE as f32).round_ties_even() as i64).clamp(0, TABLE_SIZE as i64) as usize;
        let raw = [
            coeffs[offset * 2 + 1],
            coeffs[offset * 2],
            coeffs[(TABLE_SIZE - offset) * 2],
            coeffs[(TABLE_SIZE - offset) * 2 + 1],
        ];
        let mut index = [0usize; 4];
        let mut weight = raw;
        for (k, (idx, w)) in index.iter_mut().zip(weight.iter_mut()).enumerate() {
            let want = loc - 1 + k as i64;
            let got = bound(want);
            *idx = got as usize;
            if half && got != want {
                *w = 0.0;
            }
        }
        if half {
            let sum = weight[0] + weight[1] + weight[2] + weight[3];
            if sum.abs() >= 1000.0 * f32::MIN_POSITIVE {
                let inv = 1.0 / sum;
                weight.iter_mut().for_each(|w| *w *= inv);
            }
        }
        Cubic { index, weight }
    })
}

fn interpolate_1d(w: &[f32; 4], v: [f32; 4]) -> f32 {
    w[0] * v[0] + w[1] * v[1] + w[2] * v[2] + w[3] * v[3]
}

/// `ResizeBicubic` on `f32` values, with TF's arithmetic: per output row, the four
/// source rows interpolated down at every column (vectorised), then each output pixel
/// interpolated across four of those columns.
fn bicubic(input: &Tensor, g: &Geometry, hs: f32, ws: f32, half: bool, env: &ExecEnv) -> Result<Tensor> {
    let x = input.as_slice::<f32>()?;
    // The output first: its size is the user's, and its error names its shape.
    let mut out = Tensor::for_overwrite(DType::Float32, &[g.n, g.oh, g.ow, g.c])?;
    let coeffs = coeffs_table(if half { -0.5 } else { -0.75 });
    let ys = cubic_weights(g.oh, g.ih, hs, half, &coeffs)?;
    let xs = cubic_weights(g.ow, g.iw, ws, half, &coeffs)?;
    let (c, row) = (g.c, g.iw * g.c);
    output_rows(env, out.as_mut_slice::<f32>()?, g, Vec::new, |down, b, y, dst| {
        let img = &x[b * g.ih * row..][..g.ih * row];
        let yw = &ys[y];
        let rows = yw.index.map(|i| &img[i * row..][..row]);
        // One source row long (no longer than the input, which exists).
        down.resize(row, 0.0);
        cubic_down(rows, &yw.weight, down);
        cubic_across(down, &xs, c, dst);
    });
    Ok(out)
}

/// `w0 * r0 + w1 * r1 + w2 * r2 + w3 * r3` at each column, in TF's order.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn cubic_down(rows: [&[f32]; 4], w: &[f32; 4], dst: &mut [f32]) {
    let [r0, r1, r2, r3] = rows;
    let n = dst.len();
    let (r0, r1, r2, r3) = (&r0[..n], &r1[..n], &r2[..n], &r3[..n]);
    for i in 0..n {
        dst[i] = w[0] * r0[i] + w[1] * r1[i] + w[2] * r2[i] + w[3] * r3[i];
    }
}

/// Each output pixel from four columns of a row interpolated down.
fn cubic_across(down: &[f32], xs: &[Cubic], c: usize, dst: &mut [f32]) {
    fn fixed<const C: usize>(down: &[f32], xs: &[Cubic], dst: &mut [f32]) {
        for (xw, px) in xs.iter().zip(dst.chunks_exact_mut(C)) {
            let taps: [&[f32; C]; 4] = xw.index.map(|i| down[i * C..][..C].try_into().expect("C values"));
            for ch in 0..C {
                px[ch] = interpolate_1d(&xw.weight, [taps[0][ch], taps[1][ch], taps[2][ch], taps[3][ch]]);
            }
        }
    }
    by_channels!(c, |C| fixed::<C>(down, xs, dst), _ => {
        for (xw, px) in xs.iter().zip(dst.chunks_exact_mut(c)) {
            for (ch, d) in px.iter_mut().enumerate() {
                *d = interpolate_1d(&xw.weight, xw.index.map(|i| down[i * c + ch]));
            }
        }
    })
}

/// One output column of area resizing (TF's `CachedInterpolation` of `ResizeArea`).
#[derive(Clone, Copy)]
struct AreaSpan {
    start: i64,
    end: i64,
    start_scale: f32,
    end_minus_one_scale: f32,
}

fn area_spans(out_size: usize, scale: f32) -> Result<Vec<AreaSpan>> {
    table(out_size, |x| {
        let in_x = x as f32 * scale;
        let in_x1 = (x + 1) as f32 * scale;
        let v = in_x.floor() as i64;
        let vf = v as f32;
        let start_scale = if vf < in_x {
            if vf + 1.0 > in_x1 { scale } else { vf + 1.0 - in_x }
        } else if vf + 1.0 > in_x1 {
            in_x1 - vf
        } else {
            1.0
        };
        let end = in_x1.ceil() as i64;
        let e = (end - 1) as f32;
        let end_minus_one_scale = if e + 1.0 > in_x1 { if e > in_x { in_x1 - e } else { scale } } else { 1.0 };
        AreaSpan { start: v, end, start_scale, end_minus_one_scale }
    })
}

/// `ResizeArea` on `f32` values (TF's `ComputePatchSum`, indices bounded to the image),
/// in TF's order of sums: for each source row of an output row, every output pixel's
/// sum across that row, then those sums weighted and added down (vectorised).
fn area(input: &Tensor, g: &Geometry, hs: f32, ws: f32, env: &ExecEnv) -> Result<Tensor> {
    let x = input.as_slice::<f32>()?;
    let mut out = Tensor::for_overwrite(DType::Float32, &[g.n, g.oh, g.ow, g.c])?;
    let xs = area_spans(g.ow, ws)?;
    let scale = 1.0 / (hs * ws);
    let (c, row) = (g.c, g.iw * g.c);
    let bound = |v: i64, limit: usize| v.clamp(0, limit as i64 - 1) as usize;
    output_rows(env, out.as_mut_slice::<f32>()?, g, Vec::new, |across: &mut Vec<f32>, b, y, dst| {
        let img = &x[b * g.ih * row..][..g.ih * row];
        let in_y = y as f32 * hs;
        let in_y1 = (y + 1) as f32 * hs;
        let (y_start, y_end) = (in_y.floor() as i64, in_y1.ceil() as i64);
        // One output row long (the output was allocated fallibly).
        across.resize(dst.len(), 0.0);
        dst.fill(0.0);
        for i in y_start..y_end {
            let fi = i as f32;
            let scale_y = if fi < in_y {
                if fi + 1.0 > in_y1 { hs } else { fi + 1.0 - in_y }
            } else if fi + 1.0 > in_y1 {
                in_y1 - fi
            } else {
                1.0
            };
            let src = &img[bound(i, g.ih) * row..][..row];
            area_across(src, &xs, c, g.iw, across);
            add_scaled(across, scale_y, dst);
        }
        scale_in_place(dst, scale);
    });
    Ok(out)
}

/// Each output pixel's sum across one source row (TF's `sum_y`: the first and last
/// columns weighted by how much of them the pixel covers).
fn area_across(src: &[f32], xs: &[AreaSpan], c: usize, iw: usize, dst: &mut [f32]) {
    fn fixed<const C: usize>(src: &[f32], xs: &[AreaSpan], iw: usize, dst: &mut [f32]) {
        let at = |xi: i64| -> &[f32; C] {
            let xi = xi.clamp(0, iw as i64 - 1) as usize;
            src[xi * C..][..C].try_into().expect("C values")
        };
        for (span, px) in xs.iter().zip(dst.chunks_exact_mut(C)) {
            let first = at(span.start);
            let mut sum: [f32; C] = std::array::from_fn(|ch| first[ch] * span.start_scale);
            if span.start + 1 != span.end {
                for xi in span.start + 1..span.end - 1 {
                    let v = at(xi);
                    for ch in 0..C {
                        sum[ch] += v[ch];
                    }
                }
                let last = at(span.end - 1);
                for ch in 0..C {
                    sum[ch] += last[ch] * span.end_minus_one_scale;
                }
            }
            px.copy_from_slice(&sum);
        }
    }
    by_channels!(c, |C| fixed::<C>(src, xs, iw, dst), _ => {
        let at = |xi: i64, ch: usize| src[xi.clamp(0, iw as i64 - 1) as usize * c + ch];
        for (span, px) in xs.iter().zip(dst.chunks_exact_mut(c)) {
            for (ch, d) in px.iter_mut().enumerate() {
                let mut sum = at(span.start, ch) * span.start_scale;
                if span.start + 1 != span.end {
                    for xi in span.start + 1..span.end - 1 {
                        sum += at(xi, ch);
                    }
                    sum += at(span.end - 1, ch) * span.end_minus_one_scale;
                }
                *d = sum;
            }
        }
    })
}

/// `dst += v * w`, element by element (no fused multiply-add).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn add_scaled(v: &[f32], w: f32, dst: &mut [f32]) {
    for (d, &x) in dst.iter_mut().zip(v) {
        *d += x * w;
    }
}

/// `dst *= w`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn scale_in_place(dst: &mut [f32], w: f32) {
    for d in dst {
        *d *= w;
    }
}

/// Fills the output of a resize row by row, rows split over the intra-op pool: each
/// piece makes its scratch state with `scratch()` once, then calls
/// `f(state, image, row, values)` for each of its rows of `ow x c` values.
fn output_rows<S>(
    env: &ExecEnv,
    dst: &mut [f32],
    g: &Geometry,
    scratch: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize, usize, &mut [f32]) + Sync,
) {
    let row = g.ow * g.c;
    if row == 0 || g.oh == 0 {
        return;
    }
    let min = row * (1usize << 14).div_ceil(row);
    env.for_each_chunk(dst, min, row, |offset, chunk| {
        let mut state = scratch();
        for (j, values) in chunk.chunks_exact_mut(row).enumerate() {
            let r = offset / row + j;
            f(&mut state, r / g.oh, r % g.oh, values);
        }
    });
}

/// `ResizeBilinearGrad`, `ResizeBicubicGrad` and `ResizeNearestNeighborGrad`.
struct ResizeGrad {
    method: Method,
    align_corners: bool,
    half_pixel_centers: bool,
}

pub(crate) fn resize_grad_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ResizeGrad {
        method: match b.node.op_type() {
            "ResizeBilinearGrad" => Method::Bilinear,
            "ResizeBicubicGrad" => Method::Bicubic,
            _ => Method::Nearest,
        },
        align_corners: b.node.attr_or("align_corners", false)?,
        half_pixel_centers: b.node.attr_or("half_pixel_centers", false)?,
    }))
}

/// The accumulator type of a gradient: `f64` for doubles, `f32` otherwise.
trait Acc: Copy + Default + std::ops::AddAssign + From<f32> + crate::dtype::Element {}
impl Acc for f32 {}
impl Acc for f64 {}

impl OpKernel for ResizeGrad {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        check_centers(self.align_corners, self.half_pixel_centers)?;
        let grads = ctx.input(0)?;
        let out = if self.method != Method::Nearest {
            let original = ctx.input(1)?;
            let d = grads.shape();
            if d.len() != 4 {
                ff_bail!(InvalidArgument, "input_grad must be 4-dimensional{}", fmt_shape(d));
            }
            if original.shape().len() != 4 {
                ff_bail!(InvalidArgument, "original_image must be 4-dimensional{}", fmt_shape(original.shape()));
            }
            if d[1] == 0 || d[2] == 0 {
                ff_bail!(InvalidArgument, "resized dimensions must be positive");
            }
            let s = original.shape();
            let g = Geometry { n: d[0], ih: s[1], iw: s[2], c: d[3], oh: d[1], ow: d[2] };
            let t = original.dtype();
            let (align, half) = (self.align_corners, self.half_pixel_centers);
            let grads = grads.as_slice::<f32>()?;
            let acc = match (self.method, t == DType::Float64) {
                (Method::Bicubic, true) => bicubic_grad::<f64>(grads, &g, align, half, ctx.env)?,
                (Method::Bicubic, false) => bicubic_grad::<f32>(grads, &g, align, half, ctx.env)?,
                (_, true) => bilinear_grad::<f64>(grads, &g, align, half, ctx.env)?,
                (_, false) => bilinear_grad::<f32>(grads, &g, align, half, ctx.env)?,
            };
            cast(&acc, t)?
        } else {
            let d = grads.shape();
            if d.len() != 4 {
                ff_bail!(InvalidArgument, "input must be 4-dimensional{}", fmt_shape(d));
            }
            let [oh, ow] = size_input(ctx.input(1)?, "shape_t's elements must be positive")?;
            let g = Geometry { n: d[0], ih: d[1], iw: d[2], c: d[3], oh, ow };
            let t = grads.dtype();
            let acc = if t == DType::Float64 {
                nearest_grad::<f64>(&cast(grads, DType::Float64)?, &g, self.align_corners, self.half_pixel_centers)?
            } else {
                nearest_grad::<f32>(&cast(grads, DType::Float32)?, &g, self.align_corners, self.half_pixel_centers)?
            };
            cast(&acc, t)?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The bilinear gradient: each resized pixel's gradient spread over its four sources
/// (`g.ih x g.iw` is the original image, `g.oh x g.ow` the resized one).
fn bilinear_grad<A: Acc>(grads: &[f32], g: &Geometry, align: bool, half: bool, env: &ExecEnv) -> Result<Tensor> {
    let mut out = Tensor::zeros(A::DTYPE, &[g.n, g.ih, g.iw, g.c])?;
    if g.ih == 0 || g.iw == 0 || g.c == 0 {
        return Ok(out);
    }
    let ys = bilinear_weights(g.oh, g.ih, resize_scale(g.ih, g.oh, align), half)?;
    let xs = bilinear_weights(g.ow, g.iw, resize_scale(g.iw, g.ow, align), half)?;
    per_image(env, out.as_mut_slice::<A>()?, g, grads, |img, grads| {
        by_channels!(g.c, |C| bilinear_grad_image::<A, C>(img, grads, &ys, &xs, g.iw, C),
            _ => bilinear_grad_image::<A, 0>(img, grads, &ys, &xs, g.iw, g.c))
    });
    Ok(out)
}

/// One image of the bilinear gradient, in TF's order of sums. `C` is the channel
/// count when known at compile time (0: `c` at run time).
#[inline(always)]
fn bilinear_grad_image<A: Acc, const C: usize>(
    img: &mut [A],
    grads: &[f32],
    ys: &[Lerp],
    xs: &[Lerp],
    iw: usize,
    c: usize,
) {
    let c = if C > 0 { C } else { c };
    let row = iw * c;
    for (yl, g_row) in ys.iter().zip(grads.chunks_exact(xs.len() * c)) {
        let inv_y = 1.0 - yl.lerp;
        // The two source rows (the same one when the sample lies on a row).
        let (top, bottom) = (yl.lower * row, yl.upper * row);
        for (xl, px) in xs.iter().zip(g_row.chunks_exact(c)) {
            let (l, r) = (xl.lower * c, xl.upper * c);
            let inv_x = 1.0 - xl.lerp;
            for (ch, &grad) in px.iter().enumerate() {
                img[top + l + ch] += A::from(grad * inv_y * inv_x);
                img[top + r + ch] += A::from(grad * inv_y * xl.lerp);
                img[bottom + l + ch] += A::from(grad * yl.lerp * inv_x);
                img[bottom + r + ch] += A::from(grad * yl.lerp * xl.lerp);
            }
        }
    }
}

/// Runs `f(image, its gradients)` for each image of a resize gradient's output
/// (`n x ih x iw x c`, from `n x oh x ow x c` gradients), images split over the
/// intra-op pool: each image's sums stay in TF's order.
fn per_image<A: Send>(env: &ExecEnv, dst: &mut [A], g: &Geometry, grads: &[f32], f: impl Fn(&mut [A], &[f32]) + Sync) {
    let (image, resized) = (g.ih * g.iw * g.c, g.oh * g.ow * g.c);
    if image == 0 {
        return;
    }
    env.for_each_chunk(dst, image, image, |offset, chunk| {
        for (j, img) in chunk.chunks_exact_mut(image).enumerate() {
            let b = offset / image + j;
            f(img, &grads[b * resized..][..resized]);
        }
    });
}

/// The bicubic gradient: each resized pixel's gradient spread over its 16 taps with
/// the forward weights (TF's `ResizeBicubicGrad`).
fn bicubic_grad<A: Acc>(grads: &[f32], g: &Geometry, align: bool, half: bool, env: &ExecEnv) -> Result<Tensor> {
    let mut out = Tensor::zeros(A::DTYPE, &[g.n, g.ih, g.iw, g.c])?;
    if g.ih == 0 || g.iw == 0 || g.c == 0 {
        return Ok(out);
    }
    let coeffs = coeffs_table(if half { -0.5 } else { -0.75 });
    let ys = cubic_weights(g.oh, g.ih, resize_scale(g.ih, g.oh, align), half, &coeffs)?;
    let xs = cubic_weights(g.ow, g.iw, resize_scale(g.iw, g.ow, align), half, &coeffs)?;
    let c = g.c;
    per_image(env, out.as_mut_slice::<A>()?, g, grads, |img, grads| {
        for (yw, row) in ys.iter().zip(grads.chunks_exact(g.ow * c)) {
            for (xw, px) in xs.iter().zip(row.chunks_exact(c)) {
                for (ch, &grad) in px.iter().enumerate() {
                    for (&yi, &wy) in yw.index.iter().zip(&yw.weight) {
                        let taps = &mut img[yi * g.iw * c..][..g.iw * c];
                        for (&xi, &wx) in xw.index.iter().zip(&xw.weight) {
                            taps[xi * c + ch] += A::from(grad * wy * wx);
                        }
                    }
                }
            }
        }
    });
    Ok(out)
}

/// The nearest-neighbour gradient: each resized pixel's gradient added to its source
/// (`g.ih x g.iw` is the resized image here, `g.oh x g.ow` the original).
fn nearest_grad<A: Acc>(grads: &Tensor, g: &Geometry, align: bool, half: bool) -> Result<Tensor> {
    let src = grads.as_slice::<A>()?;
    let mut out = Tensor::zeros(A::DTYPE, &[g.n, g.oh, g.ow, g.c])?;
    if out.num_elements() == 0 {
        return Ok(out);
    }
    let (hs, ws) = (resize_scale(g.oh, g.ih, align), resize_scale(g.ow, g.iw, align));
    let ys = table(g.ih, |y| nearest_index(y, hs, g.oh, align, half))?;
    let xs = table(g.iw, |x| nearest_index(x, ws, g.ow, align, half))?;
    let dst = out.as_mut_slice::<A>()?;
    let c = g.c;
    let mut i = 0;
    for b in 0..g.n {
        for &y in &ys {
            for &x in &xs {
                let o = ((b * g.oh + y) * g.ow + x) * c;
                for ch in 0..c {
                    dst[o + ch] += src[i];
                    i += 1;
                }
            }
        }
    }
    Ok(out)
}

/// Which colour op a kernel runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Color {
    RgbToHsv,
    HsvToRgb,
    Hue,
    Saturation,
    Contrast,
}

struct ColorKernel(Color);

pub(crate) fn color_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ColorKernel(match b.node.op_type() {
        "RGBToHSV" => Color::RgbToHsv,
        "HSVToRGB" => Color::HsvToRgb,
        "AdjustHue" => Color::Hue,
        "AdjustSaturation" => Color::Saturation,
        _ => Color::Contrast,
    })))
}

/// A scalar float input of an adjustment op (`what` names it in TF's message).
fn scalar_factor(t: &Tensor, what: &str) -> Result<f32> {
    if !t.shape().is_empty() {
        ff_bail!(InvalidArgument, "{what} must be scalar: {}", fmt_shape(t.shape()));
    }
    t.scalar_value::<f32>()
}

impl OpKernel for ColorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0)?;
        let d = input.shape();
        let t = input.dtype();
        let out = match self.0 {
            Color::RgbToHsv | Color::HsvToRgb => {
                let Some(&channels) = d.last() else {
                    ff_bail!(InvalidArgument, "input must be at least 1D{}", fmt_shape(d));
                };
                if channels != 3 {
                    ff_bail!(FailedPrecondition, "input must have 3 channels but input only has {channels} channels.");
                }
                let forward = self.0 == Color::RgbToHsv;
                if t == DType::Float64 {
                    let mut out = input.clone();
                    let v = out.as_mut_slice::<f64>()?;
                    v.chunks_exact_mut(3).for_each(|p| if forward { rgb_to_hsv64(p) } else { hsv_to_rgb64(p) });
                    out
                } else {
                    // Read from the input, written to a new buffer, in parallel blocks.
                    let x = as_f32(input)?;
                    let src = x.as_slice::<f32>()?;
                    let mut out = Tensor::for_overwrite(DType::Float32, d)?;
                    let block: fn(&[f32], &mut [f32]) = if forward { rgb_to_hsv_block } else { hsv_to_rgb_block };
                    ctx.env.for_each_chunk(out.as_mut_slice::<f32>()?, 1 << 14, 3, |offset, chunk| {
                        let src = &src[offset..][..chunk.len()];
                        for (s, d) in src.chunks(3 * COLOR_BLOCK).zip(chunk.chunks_mut(3 * COLOR_BLOCK)) {
                            block(s, d);
                        }
                    });
                    cast(&out, t)?
                }
            }
            op => {
                if d.len() < 3 {
                    ff_bail!(InvalidArgument, "input must be at least 3-D, got shape{}", fmt_shape(d));
                }
                let (h, w, c) = (d[d.len() - 3], d[d.len() - 2], d[d.len() - 1]);
                let what = match op {
                    Color::Hue => "delta",
                    Color::Saturation => "scale",
                    _ => "contrast_factor",
                };
                let factor = scalar_factor(ctx.input(1)?, what)?;
                if op != Color::Contrast && c != 3 {
                    ff_bail!(InvalidArgument, "input must have 3 channels but instead has {c} channels.");
                }
                // Read from the input, written to a new buffer (the input is shared).
                let x = as_f32(input)?;
                let src = x.as_slice::<f32>()?;
                let mut out = Tensor::for_overwrite(DType::Float32, d)?;
                let plane = h * w * c;
                let per_block = |f: fn(&[f32], &mut [f32], f32)| {
                    move |offset: usize, chunk: &mut [f32]| {
                        let src = &src[offset..][..chunk.len()];
                        for (s, d) in src.chunks(3 * COLOR_BLOCK).zip(chunk.chunks_mut(3 * COLOR_BLOCK)) {
                            f(s, d, factor);
                        }
                    }
                };
                let dst = out.as_mut_slice::<f32>()?;
                match op {
                    Color::Hue => ctx.env.for_each_chunk(dst, 1 << 14, 3, per_block(adjust_hue_block)),
                    Color::Saturation => ctx.env.for_each_chunk(dst, 1 << 14, 3, per_block(adjust_saturation_block)),
                    _ if plane > 0 => ctx.env.for_each_chunk(dst, plane, plane, |offset, chunk| {
                        let mut sums = Vec::new();
                        for (j, img) in chunk.chunks_exact_mut(plane).enumerate() {
                            let src = &src[offset + j * plane..][..plane];
                            adjust_contrast(src, img, h * w, c, factor, &mut sums);
                        }
                    }),
                    _ => {}
                }
                cast(&out, t)?
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

macro_rules! colorspace {
    ($to_hsv:ident, $to_rgb:ident, $T:ty) => {
        /// TF's `RGBToHSV` (Eigen expressions of `colorspace_op.h`) on one pixel. The
        /// `f32` one is what `rgb_to_hsv_block` is tested against.
        #[cfg_attr(not(test), allow(dead_code))]
        fn $to_hsv(p: &mut [$T]) {
            let (r, g, b) = (p[0], p[1], p[2]);
            let v = r.max(g).max(b);
            let range = v - r.min(g).min(b);
            let s = if v > 0.0 { range / v } else { 0.0 };
            let norm = (1.0 / range) * (1.0 / 6.0);
            let mut h = if r == v {
                norm * (g - b)
            } else if g == v {
                norm * (b - r) + 2.0 / 6.0
            } else {
                norm * (r - g) + 4.0 / 6.0
            };
            // Eigen's `(range > 0).select(h, 0)`: NaN ranges give 0 too.
            if range.is_nan() || range <= 0.0 {
                h = 0.0;
            }
            if h < 0.0 {
                h += 1.0;
            }
            p.copy_from_slice(&[h, s, v]);
        }
        /// TF's `HSVToRGB` on one pixel.
        fn $to_rgb(p: &mut [$T]) {
            let (h, s, v) = (p[0], p[1], p[2]);
            let dh = h * 6.0;
            let dr = ((dh - 3.0).abs() - 1.0).max(0.0).min(1.0);
            let dg = (-(dh - 2.0).abs() + 2.0).max(0.0).min(1.0);
            let db = (-(dh - 4.0).abs() + 2.0).max(0.0).min(1.0);
            let one_s = -s + 1.0;
            p.copy_from_slice(&[(one_s + s * dr) * v, (one_s + s * dg) * v, (one_s + s * db) * v]);
        }
    };
}
colorspace!(rgb_to_hsv32, hsv_to_rgb32, f32);
colorspace!(rgb_to_hsv64, hsv_to_rgb64, f64);

/// TF's `rgb_to_hv_range` of `AdjustHue`: hue in `[0, 6)` and the value range.
fn rgb_to_hv_range(r: f32, g: f32, b: f32) -> (f32, f32, f32) {
    let (v_max, v_mid, v_min, category) = if r < g {
        if b < r {
            (g, r, b, 1)
        } else if b > g {
            (b, g, r, 3)
        } else {
            (g, b, r, 2)
        }
    } else if b < g {
        (r, g, b, 0)
    } else if b > r {
        (b, r, g, 4)
    } else {
        (r, b, g, 5)
    };
    if v_max == v_min {
        return (0.0, v_min, v_max);
    }
    let ratio = (v_mid - v_min) / (v_max - v_min);
    let h = category as f32 + if category & 1 == 0 { ratio } else { 1.0 - ratio };
    (h, v_min, v_max)
}

/// TF's `hv_range_to_rgb`.
fn hv_range_to_rgb(h: f32, v_min: f32, v_max: f32) -> [f32; 3] {
    // `as` saturates (NaN to 0) where C++'s cast is undefined.
    let category = h as i32;
    let mut ratio = h - category as f32;
    if category & 1 != 0 {
        ratio = 1.0 - ratio;
    }
    let v_mid = v_min + ratio * (v_max - v_min);
    match category {
        0 => [v_max, v_mid, v_min],
        1 => [v_mid, v_max, v_min],
        2 => [v_min, v_max, v_mid],
        3 => [v_min, v_mid, v_max],
        4 => [v_mid, v_min, v_max],
        _ => [v_max, v_min, v_mid],
    }
}

/// `AdjustHue` on one pixel: `delta` of a full turn added to the hue.
fn adjust_hue(p: &mut [f32], delta: f32) {
    let (mut h, v_min, v_max) = rgb_to_hv_range(p[0], p[1], p[2]);
    h += delta * 6.0;
    if h.is_finite() {
        // TF's two loops, bounded: far-out hues wrap in one step.
        if !(-12.0..12.0).contains(&h) {
            h = h.rem_euclid(6.0);
        }
        while h < 0.0 {
            h += 6.0;
        }
        while h >= 6.0 {
            h -= 6.0;
        }
    }
    p.copy_from_slice(&hv_range_to_rgb(h, v_min, v_max));
}

/// `AdjustSaturation` on one pixel (TF's `rgb_to_hsv`, scaled and clamped saturation,
/// `hsv_to_rgb` of `adjust_saturation_op.cc`).
fn adjust_saturation(p: &mut [f32], scale: f32) {
    let (r, g, b) = (p[0], p[1], p[2]);
    let vv = r.max(g.max(b));
    let range = vv - r.min(g.min(b));
    let mut s = if vv > 0.0 { range / vv } else { 0.0 };
    let norm = 1.0 / (6.0 * range);
    // TF adds the double `2.0 / 6.0` to the float product: the sum is a double,
    // rounded once to float.
    let mut h = if r == vv {
        norm * (g - b)
    } else if g == vv {
        (f64::from(norm * (b - r)) + 2.0 / 6.0) as f32
    } else {
        (f64::from(norm * (r - g)) + 4.0 / 6.0) as f32
    };
    if range <= 0.0 {
        h = 0.0;
    }
    if h < 0.0 {
        h += 1.0;
    }
    // `std::min(1, std::max(0, s * scale))`: NaN becomes 0.
    let scaled = s * scale;
    s = if scaled > 0.0 { scaled.min(1.0) } else { 0.0 };
    let c = s * vv;
    let m = vv - c;
    let dh = h * 6.0;
    let category = dh as i32;
    let mut fmodu = dh;
    if fmodu.is_finite() {
        while fmodu <= 0.0 {
            fmodu += 2.0;
        }
        while fmodu >= 2.0 {
            fmodu -= 2.0;
        }
    }
    let x = c * (1.0 - (fmodu - 1.0).abs());
    let (rr, gg, bb) = match category {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        5 => (c, 0.0, x),
        _ => (0.0, 0.0, 0.0),
    };
    p.copy_from_slice(&[rr + m, gg + m, bb + m]);
}

/// Pixels per block of the hue and saturation adjustments: a block is split into
/// its R, G and B planes, adjusted lane by lane with selects instead of branches (so
/// that it vectorises: the per-pixel branches of TF's code mispredict on real images),
/// and interleaved back. Each lane does the scalar functions' arithmetic, in their
/// order, so the values are theirs to the bit.
const COLOR_BLOCK: usize = 64;

/// `a` where `c`, else `b` (a select, not a branch).
#[inline(always)]
fn pick(c: bool, a: f32, b: f32) -> f32 {
    if c { a } else { b }
}

/// The R, G and B planes of up to `COLOR_BLOCK` interleaved pixels (zeros beyond).
#[inline(always)]
fn planes(src: &[f32]) -> [[f32; COLOR_BLOCK]; 3] {
    let mut out = [[0.0; COLOR_BLOCK]; 3];
    for (i, p) in src.chunks_exact(3).enumerate() {
        out[0][i] = p[0];
        out[1][i] = p[1];
        out[2][i] = p[2];
    }
    out
}

/// Interleaves the first `dst.len() / 3` pixels of `rgb` into `dst`.
#[inline(always)]
fn interleave(rgb: &[[f32; COLOR_BLOCK]; 3], dst: &mut [f32]) {
    for (i, p) in dst.chunks_exact_mut(3).enumerate() {
        p.copy_from_slice(&[rgb[0][i], rgb[1][i], rgb[2][i]]);
    }
}

/// `RGBToHSV` of up to `COLOR_BLOCK` pixels of `src` into `dst` (`rgb_to_hsv32`'s
/// values, its branches as selects).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn rgb_to_hsv_block(src: &[f32], dst: &mut [f32]) {
    let [r, g, b] = planes(src);
    let mut out = [[0.0; COLOR_BLOCK]; 3];
    for i in 0..COLOR_BLOCK {
        let (r, g, b) = (r[i], g[i], b[i]);
        let v = r.max(g).max(b);
        let range = v - r.min(g).min(b);
        let s = pick(v > 0.0, range / v, 0.0);
        let norm = (1.0 / range) * (1.0 / 6.0);
        let h = pick(r == v, norm * (g - b), pick(g == v, norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0));
        // Eigen's `(range > 0).select(h, 0)`: NaN ranges give 0 too.
        let h = pick(range > 0.0, h, 0.0);
        out[0][i] = pick(h < 0.0, h + 1.0, h);
        out[1][i] = s;
        out[2][i] = v;
    }
    interleave(&out, dst);
}

/// `HSVToRGB` of up to `COLOR_BLOCK` pixels of `src` into `dst` (`hsv_to_rgb32` on
/// each lane of the planes: it has no branches, so this vectorises).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn hsv_to_rgb_block(src: &[f32], dst: &mut [f32]) {
    let [h, s, v] = planes(src);
    let mut out = [[0.0; COLOR_BLOCK]; 3];
    for i in 0..COLOR_BLOCK {
        let mut p = [h[i], s[i], v[i]];
        hsv_to_rgb32(&mut p);
        (out[0][i], out[1][i], out[2][i]) = (p[0], p[1], p[2]);
    }
    interleave(&out, dst);
}

/// `AdjustHue` of up to `COLOR_BLOCK` pixels of `src` into `dst` (`adjust_hue`'s
/// values). A block with a hue that TF's wrap-around loops would take more than two
/// steps over (possible only for a `delta` near a full turn) takes the scalar way.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn adjust_hue_block(src: &[f32], dst: &mut [f32], delta: f32) {
    let [r, g, b] = planes(src);
    let mut out = [[0.0; COLOR_BLOCK]; 3];
    let mut far = false;
    for i in 0..COLOR_BLOCK {
        let (r, g, b) = (r[i], g[i], b[i]);
        // `rgb_to_hv_range`'s six orders, as selects.
        let (c1, c2, c3, c4, c5) = (r < g, b < r, b > g, b < g, b > r);
        let v_max = pick(c1, pick(c2, g, pick(c3, b, g)), pick(c4, r, pick(c5, b, r)));
        let v_mid = pick(c1, pick(c2, r, pick(c3, g, b)), pick(c4, g, pick(c5, r, b)));
        let v_min = pick(c1, pick(c2, b, r), pick(c4, b, g));
        let category = pick(c1, pick(c2, 1.0, pick(c3, 3.0, 2.0)), pick(c4, 0.0, pick(c5, 4.0, 5.0)));
        let odd = if c1 { c2 || c3 } else { !c4 && !c5 };
        let ratio = (v_mid - v_min) / (v_max - v_min);
        let mut h = pick(v_max == v_min, 0.0, category + pick(odd, 1.0 - ratio, ratio));
        h += delta * 6.0;
        far |= h.is_finite() && !(-12.0..12.0).contains(&h);
        // TF's loops, unrolled: from [-12, 12) two steps each way at most.
        h = pick(h < 0.0, h + 6.0, h);
        h = pick(h < 0.0, h + 6.0, h);
        h = pick(h >= 6.0, h - 6.0, h);
        h = pick(h >= 6.0, h - 6.0, h);
        // `hv_range_to_rgb`.
        let category = h as i32;
        let mut ratio = h - category as f32;
        ratio = pick(category & 1 != 0, 1.0 - ratio, ratio);
        let v_mid = v_min + ratio * (v_max - v_min);
        let (k0, k1, k2, k3, k4) = (category == 0, category == 1, category == 2, category == 3, category == 4);
        out[0][i] = pick(k0, v_max, pick(k1 || k4, v_mid, pick(k2 || k3, v_min, v_max)));
        out[1][i] = pick(k0 || k3, v_mid, pick(k1 || k2, v_max, v_min));
        out[2][i] = pick(k0 || k1, v_min, pick(k2, v_mid, pick(k3 || k4, v_max, v_mid)));
    }
    if far {
        dst.copy_from_slice(src);
        dst.chunks_exact_mut(3).for_each(|p| adjust_hue(p, delta));
    } else {
        interleave(&out, dst);
    }
}

/// `AdjustSaturation` of up to `COLOR_BLOCK` pixels of `src` into `dst`
/// (`adjust_saturation`'s values). A block with a hue outside the range TF's
/// wrap-around loops take at most four steps over (none from finite pixels) takes the
/// scalar way.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn adjust_saturation_block(src: &[f32], dst: &mut [f32], scale: f32) {
    let [r, g, b] = planes(src);
    let mut out = [[0.0; COLOR_BLOCK]; 3];
    let mut far = false;
    for i in 0..COLOR_BLOCK {
        let (r, g, b) = (r[i], g[i], b[i]);
        let vv = r.max(g.max(b));
        let range = vv - r.min(g.min(b));
        let s = pick(vv > 0.0, range / vv, 0.0);
        let norm = 1.0 / (6.0 * range);
        let from_g = (f64::from(norm * (b - r)) + 2.0 / 6.0) as f32;
        let from_b = (f64::from(norm * (r - g)) + 4.0 / 6.0) as f32;
        let mut h = pick(r == vv, norm * (g - b), pick(g == vv, from_g, from_b));
        h = pick(range <= 0.0, 0.0, h);
        h = pick(h < 0.0, h + 1.0, h);
        let scaled = s * scale;
        let s = pick(scaled > 0.0, scaled.min(1.0), 0.0);
        let c = s * vv;
        let m = vv - c;
        let dh = h * 6.0;
        let category = dh as i32;
        far |= dh.is_finite() && !(dh > -2.0 && dh < 8.0);
        // TF's loops, unrolled: from (-2, 8) one step up and three down at most.
        let mut fmodu = pick(dh <= 0.0, dh + 2.0, dh);
        fmodu = pick(fmodu >= 2.0, fmodu - 2.0, fmodu);
        fmodu = pick(fmodu >= 2.0, fmodu - 2.0, fmodu);
        fmodu = pick(fmodu >= 2.0, fmodu - 2.0, fmodu);
        let x = c * (1.0 - (fmodu - 1.0).abs());
        let (k0, k1, k2, k3, k4, k5) =
            (category == 0, category == 1, category == 2, category == 3, category == 4, category == 5);
        let rr = pick(k0 || k5, c, pick(k1 || k4, x, 0.0));
        let gg = pick(k1 || k2, c, pick(k0 || k3, x, 0.0));
        let bb = pick(k3 || k4, c, pick(k2 || k5, x, 0.0));
        out[0][i] = rr + m;
        out[1][i] = gg + m;
        out[2][i] = bb + m;
    }
    if far {
        dst.copy_from_slice(src);
        dst.chunks_exact_mut(3).for_each(|p| adjust_saturation(p, scale));
    } else {
        interleave(&out, dst);
    }
}

/// `AdjustContrastv2` on one `f32` image of `pixels x channels` values: the
/// per-channel mean (TF's halving fold summation) plus `factor` times the distance to
/// it, from `img` into `dst`. `sums` is scratch space, reused from image to image.
fn adjust_contrast(img: &[f32], dst: &mut [f32], pixels: usize, c: usize, factor: f32, sums: &mut Vec<f32>) {
    // The first fold writes half an image (at most the output, allocated fallibly);
    // the later ones fold that half in place.
    let right = pixels / 2;
    let left = pixels - right;
    let (head, tail) = img.split_at(left * c);
    sums.clear();
    sums.extend(tail[..right * c].iter().zip(head).map(|(&a, &b)| a + b));
    if left > right {
        sums.extend_from_slice(&img[right * c..(right + 1) * c]);
    }
    let mut remaining = left;
    while remaining > 1 {
        let right = remaining / 2;
        let left = remaining - right;
        let (head, tail) = sums.split_at_mut(left * c);
        for (d, &a) in head[..right * c].iter_mut().zip(&tail[..right * c]) {
            *d += a;
        }
        remaining = left;
    }
    let scaling = 1.0 / pixels as f32;
    let mean: SmallVec<[f32; 4]> = sums[..c].iter().map(|s| s * scaling).collect();
    for (d, px) in dst.chunks_exact_mut(c).zip(img.chunks_exact(c)) {
        for ((o, &p), &m) in d.iter_mut().zip(px).zip(&mean) {
            *o = m + factor * (p - m);
        }
    }
}

/// `ReverseV2`: reverses the listed axes (any element type, strings included).
pub(crate) fn reverse_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    super::stateless(|ctx| {
        let input = ctx.input(0)?;
        let axis = ctx.input(1)?;
        if axis.shape().len() != 1 {
            ff_bail!(InvalidArgument, "'dims' must be 1-dimension, not {}", axis.shape().len());
        }
        let dims = input.shape().to_vec();
        let rank = dims.len() as i64;
        let mut flip = vec![false; dims.len()];
        for (i, &a) in crate::framework::tensor_util::int_values(axis)?.iter().enumerate() {
            let canonical = if a < 0 { a + rank } else { a };
            if !(0..rank).contains(&canonical) {
                ff_bail!(InvalidArgument, "'axis'[{i}] = {a} is out of valid range [0, {}", rank - 1);
            }
            if flip[canonical as usize] {
                ff_bail!(InvalidArgument, "axis {canonical} specified more than once.");
            }
            flip[canonical as usize] = true;
        }
        let out = reverse(input, &dims, &flip, ctx.env)?;
        ctx.set_output(0, out);
        Ok(())
    })
}

/// `x` with the flagged axes reversed. The axes after the last flipped one form
/// contiguous blocks; each row of blocks along the last flipped axis is written as its
/// source row's blocks in reverse (rows split over the intra-op pool, blocks of 4 to
/// 16 bytes copied at a size known at compile time).
fn reverse(x: &Tensor, dims: &[usize], flip: &[bool], env: &ExecEnv) -> Result<Tensor> {
    if !flip.iter().any(|&f| f) || x.num_elements() == 0 {
        return Ok(x.clone());
    }
    let last = flip.iter().rposition(|&f| f).unwrap_or(0);
    let block: usize = dims[last + 1..].iter().product();
    let (outer, n) = (&dims[..last], dims[last]);
    // The source row of destination row `r` (rows: every index of the axes before
    // the last flipped one).
    let source_row = |mut r: usize| {
        let (mut s, mut stride) = (0, 1);
        for (k, &d) in outer.iter().enumerate().rev() {
            let i = r % d;
            r /= d;
            s += if flip[k] { d - 1 - i } else { i } * stride;
            stride *= d;
        }
        s
    };
    if x.dtype() == DType::String {
        let v = x.as_strings()?;
        let rows: usize = outer.iter().product();
        let mut out = Vec::with_capacity(v.len());
        for r in 0..rows {
            let row = &v[source_row(r) * n * block..][..n * block];
            for j in (0..n).rev() {
                out.extend(row[j * block..][..block].iter().cloned());
            }
        }
        return Tensor::from_strings(dims, out);
    }
    let es = x.dtype().size() * block;
    let row_bytes = es * n;
    let src = x.as_bytes()?;
    let mut out = Tensor::for_overwrite(x.dtype(), dims)?;
    let min = row_bytes * (1usize << 16).div_ceil(row_bytes);
    env.for_each_chunk(out.as_mut_bytes()?, min, row_bytes, |offset, chunk| {
        for (j, row) in chunk.chunks_exact_mut(row_bytes).enumerate() {
            let from = &src[source_row(offset / row_bytes + j) * row_bytes..][..row_bytes];
            reverse_blocks(from, es, row);
        }
    });
    Ok(out)
}

/// `dst` as the blocks of `es` bytes of `src` in reverse order.
fn reverse_blocks(src: &[u8], es: usize, dst: &mut [u8]) {
    fn fixed<const B: usize>(src: &[u8], dst: &mut [u8]) {
        for (d, s) in dst.chunks_exact_mut(B).zip(src.chunks_exact(B).rev()) {
            d.copy_from_slice(s);
        }
    }
    match es {
        1 => dst.iter_mut().zip(src.iter().rev()).for_each(|(d, &s)| *d = s),
        2 => fixed::<2>(src, dst),
        4 => fixed::<4>(src, dst),
        8 => fixed::<8>(src, dst),
        12 => fixed::<12>(src, dst),
        16 => fixed::<16>(src, dst),
        _ => {
            for (d, s) in dst.chunks_exact_mut(es).zip(src.chunks_exact(es).rev()) {
                d.copy_from_slice(s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn reverse_axes() {
        let x = Tensor::from_slice(&[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap();
        let one = ExecEnv::SINGLE_THREADED;
        let r = reverse(&x, &[2, 3], &[false, true], &one).unwrap();
        assert_eq!(r.as_slice::<i32>().unwrap(), &[3, 2, 1, 6, 5, 4]);
        let r = reverse(&x, &[2, 3], &[true, false], &one).unwrap();
        assert_eq!(r.as_slice::<i32>().unwrap(), &[4, 5, 6, 1, 2, 3]);
        let r = reverse(&x, &[2, 3], &[true, true], &one).unwrap();
        assert_eq!(r.as_slice::<i32>().unwrap(), &[6, 5, 4, 3, 2, 1]);
    }

    #[test]
    fn reverse_matches_index_arithmetic_for_every_axis_set() {
        // Every subset of axes of a 4-D tensor, element sizes with and without a
        // fixed-size copy, strings, on one thread and on a pool.
        let dims = [3usize, 40, 33, 3];
        let n: usize = dims.iter().product();
        let pool =
            ExecEnv { intra_pool: Some(Arc::new(rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap())) };
        let values: Vec<i32> = (0..n as i32).collect();
        let tensors = [
            Tensor::from_slice(&dims, &values).unwrap(),
            Tensor::from_slice(&dims, &values.iter().map(|&v| v as i16).collect::<Vec<_>>()).unwrap(),
            Tensor::from_slice(&dims, &values.iter().map(|&v| v as u8).collect::<Vec<_>>()).unwrap(),
            Tensor::from_strings(&dims, values.iter().map(|v| v.to_string().into_bytes()).collect()).unwrap(),
        ];
        for mask in 0..16u32 {
            let flip: Vec<bool> = (0..4).map(|k| mask & (1 << k) != 0).collect();
            let want: Vec<usize> = (0..n)
                .map(|mut i| {
                    let mut idx = [0usize; 4];
                    for k in (0..4).rev() {
                        idx[k] = i % dims[k];
                        i /= dims[k];
                    }
                    (0..4).fold(0, |s, k| s * dims[k] + if flip[k] { dims[k] - 1 - idx[k] } else { idx[k] })
                })
                .collect();
            for env in [&ExecEnv::SINGLE_THREADED, &pool] {
                for t in &tensors {
                    let r = reverse(t, &dims, &flip, env).unwrap();
                    let ok = match t.dtype() {
                        DType::Int32 => {
                            want.iter().map(|&w| values[w]).eq(r.as_slice::<i32>().unwrap().iter().copied())
                        }
                        DType::Int16 => {
                            want.iter().map(|&w| values[w] as i16).eq(r.as_slice::<i16>().unwrap().iter().copied())
                        }
                        DType::UInt8 => {
                            want.iter().map(|&w| values[w] as u8).eq(r.as_slice::<u8>().unwrap().iter().copied())
                        }
                        _ => want
                            .iter()
                            .map(|&w| values[w].to_string().into_bytes())
                            .eq(r.as_strings().unwrap().to_vec()),
                    };
                    assert!(ok, "{:?} reversed along {flip:?}", t.dtype());
                }
            }
        }
    }

    #[test]
    fn hsv_round_trip() {
        let mut p = [0.2f32, 0.7, 0.4];
        rgb_to_hsv32(&mut p);
        hsv_to_rgb32(&mut p);
        assert!((p[0] - 0.2).abs() < 1e-6 && (p[1] - 0.7).abs() < 1e-6 && (p[2] - 0.4).abs() < 1e-6);
        let mut q = [0.2f32, 0.7, 0.4];
        adjust_hue(&mut q, 0.0);
        assert!((q[0] - 0.2).abs() < 1e-6 && (q[1] - 0.7).abs() < 1e-6);
        adjust_hue(&mut q, f32::NAN);
    }

    #[test]
    fn resize_identity_and_scale() {
        let g = Geometry { n: 1, ih: 2, iw: 2, c: 1, oh: 2, ow: 2 };
        let x = Tensor::from_slice(&[1, 2, 2, 1], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let y = bilinear(&x, &g, 1.0, 1.0, false, &ExecEnv::SINGLE_THREADED).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), &[1.0, 2.0, 3.0, 4.0]);
        let g = Geometry { n: 1, ih: 2, iw: 2, c: 1, oh: 1, ow: 1 };
        let y = area(&x, &g, 2.0, 2.0, &ExecEnv::SINGLE_THREADED).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), &[2.5]);
    }

    /// Pixels whose channels come from values with ties, signs, zeros, extremes,
    /// infinities and NaN, every ordering of them, then pseudo-random ones.
    fn awkward_pixels() -> Vec<f32> {
        let values = [
            0.0,
            -0.0,
            0.25,
            0.5,
            1.0,
            1e-8,
            -0.5,
            2.0,
            255.0,
            1e30,
            -1e30,
            f32::MIN_POSITIVE,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            0.333_333_34,
            0.666_666_7,
        ];
        let mut out = Vec::new();
        for &r in &values {
            for &g in &values {
                for &b in &values {
                    out.extend_from_slice(&[r, g, b]);
                }
            }
        }
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..30_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            #[allow(clippy::cast_precision_loss)]
            out.push((state >> 40) as f32 / (1u64 << 24) as f32 * 1.5 - 0.25);
        }
        out.truncate(out.len() / 3 * 3);
        out
    }

    fn same_bits(a: &[f32], b: &[f32]) -> bool {
        a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
    }

    #[test]
    fn colour_blocks_give_the_scalar_values_to_the_bit() {
        let src = awkward_pixels();
        for factor in [0.0, 0.2, -0.7, 0.5, -1.0, 1.0, 0.999_999, 3.5, -40.0, 1e-7, f32::NAN] {
            for (block, scalar) in [
                (adjust_hue_block as fn(&[f32], &mut [f32], f32), adjust_hue as fn(&mut [f32], f32)),
                (adjust_saturation_block, adjust_saturation),
            ] {
                let mut want = src.clone();
                want.chunks_exact_mut(3).for_each(|p| scalar(p, factor));
                let mut got = vec![0.0; src.len()];
                for (s, d) in src.chunks(3 * COLOR_BLOCK).zip(got.chunks_mut(3 * COLOR_BLOCK)) {
                    block(s, d, factor);
                }
                assert!(same_bits(&got, &want), "factor {factor}");
            }
        }
        for (block, scalar) in [
            (rgb_to_hsv_block as fn(&[f32], &mut [f32]), rgb_to_hsv32 as fn(&mut [f32])),
            (hsv_to_rgb_block, hsv_to_rgb32),
        ] {
            let mut want = src.clone();
            want.chunks_exact_mut(3).for_each(scalar);
            let mut got = vec![0.0; src.len()];
            for (s, d) in src.chunks(3 * COLOR_BLOCK).zip(got.chunks_mut(3 * COLOR_BLOCK)) {
                block(s, d);
            }
            assert!(same_bits(&got, &want));
        }
    }
}
