//! `ScaleAndTranslate` (TF 2's resampling behind `resize_images_v2`'s Lanczos,
//! Gaussian and Mitchell methods and its anti-aliased bilinear and bicubic ones) and
//! its gradient, as TF's `scale_and_translate_op.cc`: each output row (then column)
//! is a weighted sum of a span of input rows (columns), the weights a sampling
//! kernel's, normalized to sum to one; when shrinking with `antialias` the kernel is
//! widened by the inverse scale, so it also low-pass filters. The sums are in float32,
//! as TF's. The gradient is the transposed map: each output gradient scattered back
//! with the same weights (TF's `ComputeGradSpans` computes the same sums).
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::array::cast;
use crate::kernels::{KernelBuild, OpContext, OpKernel};
use crate::tensor::Tensor;

/// TF's sampling kernels (`sampling_kernels.h`).
#[derive(Clone, Copy, Debug)]
enum Sampling {
    Lanczos(f32),
    Gaussian,
    Box,
    Triangle,
    KeysCubic,
    MitchellCubic,
}

impl Sampling {
    fn parse(name: &str) -> Option<Sampling> {
        Some(match name {
            "lanczos1" => Sampling::Lanczos(1.0),
            "lanczos3" => Sampling::Lanczos(3.0),
            "lanczos5" => Sampling::Lanczos(5.0),
            "gaussian" => Sampling::Gaussian,
            "box" => Sampling::Box,
            "triangle" => Sampling::Triangle,
            "keyscubic" => Sampling::KeysCubic,
            "mitchellcubic" => Sampling::MitchellCubic,
            _ => return None,
        })
    }

    fn radius(self) -> f32 {
        match self {
            Sampling::Lanczos(r) => r,
            Sampling::Gaussian => 1.5,
            Sampling::Box | Sampling::Triangle => 1.0,
            Sampling::KeysCubic | Sampling::MitchellCubic => 2.0,
        }
    }

    fn weight(self, x: f32) -> f32 {
        let x = x.abs();
        match self {
            Sampling::Lanczos(radius) => {
                // TF's `kPI = 3.14159265359`, the same float as `PI`.
                const PI: f32 = std::f32::consts::PI;
                if x > radius {
                    0.0
                } else if x <= 1e-3 {
                    1.0
                } else {
                    radius * (PI * x).sin() * (PI * x / radius).sin() / (PI * PI * x * x)
                }
            }
            Sampling::Gaussian => {
                // sigma = radius / 3, computed in double as TF's `2.0 * sigma * sigma`.
                let (radius, sigma) = (1.5f32, 0.5f32);
                if x >= radius {
                    0.0
                } else {
                    #[allow(clippy::cast_possible_truncation)]
                    let w = (f64::from(-x * x) / (2.0 * f64::from(sigma) * f64::from(sigma))).exp() as f32;
                    w
                }
            }
            #[allow(clippy::float_cmp)]
            Sampling::Box => {
                if x < 0.5 {
                    1.0
                } else if x == 0.5 {
                    0.5
                } else {
                    0.0
                }
            }
            Sampling::Triangle => {
                if x < 1.0 {
                    1.0 - x
                } else {
                    0.0
                }
            }
            Sampling::KeysCubic => {
                if x >= 2.0 {
                    0.0
                } else if x >= 1.0 {
                    ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
                } else {
                    ((1.5 * x - 2.5) * x) * x + 1.0
                }
            }
            Sampling::MitchellCubic => {
                if x >= 2.0 {
                    0.0
                } else if x >= 1.0 {
                    (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0
                } else {
                    (((7.0 / 6.0) * x - 2.0) * x) * x + 8.0 / 9.0
                }
            }
        }
    }
}

/// For each output index, the first input index of its span and `span` weights.
struct Spans {
    span: usize,
    starts: Vec<usize>,
    weights: Vec<f32>,
}

/// TF's `ComputeSpansCore`.
#[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss, clippy::cast_sign_loss)]
fn spans(
    kernel: Sampling,
    out_size: usize,
    in_size: usize,
    scale: f32,
    translate: f32,
    antialias: bool,
) -> Result<Spans> {
    let inv_scale = 1.0 / scale;
    let inv_translate = -inv_scale * translate;
    let kernel_scale = if antialias { inv_scale.max(1.0) } else { 1.0 };
    let reach = kernel.radius() * kernel_scale;
    let span = ((2.0 * f64::from(reach).ceil() + 1.0).min(in_size as f64)).max(0.0) as usize;
    let total =
        span.checked_mul(out_size).ok_or_else(|| Error::invalid_argument("ScaleAndTranslate: too many weights"))?;
    let oom = |_| Error::new(crate::error::Code::ResourceExhausted, "ScaleAndTranslate: out of memory for its weights");
    let mut weights = Vec::new();
    weights.try_reserve_exact(total).map_err(oom)?;
    weights.resize(total, 0.0f32);
    let mut starts = Vec::new();
    starts.try_reserve_exact(out_size).map_err(oom)?;
    let one_over_kernel_scale = 1.0 / kernel_scale;
    let last = in_size.saturating_sub(1) as i64;
    let mut temp = Vec::with_capacity(span);
    for x in 0..out_size {
        let sample = (x as f32 + 0.5) * inv_scale + inv_translate;
        if sample < 0.0 || sample > in_size as f32 {
            starts.push(0);
            continue;
        }
        let start = ((sample - reach - 0.5).ceil() as i64).clamp(0, last);
        let end = ((sample + reach - 0.5).floor() as i64).clamp(0, last) + 1;
        let this = usize::try_from(end - start).unwrap_or(0);
        if this > span {
            return Err(Error::new(crate::error::Code::Internal, format!("Span is too large: {this} vs {span}.")));
        }
        temp.clear();
        let mut sum = 0.0f32;
        for source in start..end {
            let pos = source as f32 + 0.5 - sample;
            let w = kernel.weight((pos * one_over_kernel_scale).abs());
            sum += w;
            temp.push(w);
        }
        if sum.abs() >= 1000.0 * f32::MIN_POSITIVE {
            let inv = 1.0 / sum;
            for (k, w) in temp.iter().enumerate() {
                weights[span * x + k] = w * inv;
            }
        }
        starts.push(start as usize);
    }
    Ok(Spans { span, starts, weights })
}

/// The op's `scale` and `translation` inputs: two positive scales, two offsets.
fn scale_translation(ctx: &OpContext<'_>, name: &str) -> Result<([f32; 2], [f32; 2])> {
    let pair = |i: usize, what: &str| -> Result<[f32; 2]> {
        let t = ctx.input(i)?;
        let v = t.as_slice::<f32>()?;
        if t.shape() != [2] {
            ff_bail!(InvalidArgument, "{what} must be a 1-D tensor with 2 elements, got shape {:?}", t.shape());
        }
        Ok([v[0], v[1]])
    };
    let scale = pair(2, "scale")?;
    if !(scale[0] > 0.0 && scale[1] > 0.0) {
        ff_bail!(InvalidArgument, "{name}: Scale must be greater than zero.");
    }
    Ok((scale, pair(3, "translation")?))
}

/// `images`' `[batch, height, width, channels]`.
fn image_dims(t: &Tensor, what: &str) -> Result<[usize; 4]> {
    match t.shape() {
        &[b, h, w, c] => Ok([b, h, w, c]),
        s => Err(Error::invalid_argument(format!("{what} must be 4-dimensional, got shape {s:?}"))),
    }
}

struct ScaleAndTranslate {
    kernel: Sampling,
    antialias: bool,
}

/// The kernel of `ScaleAndTranslate` (`kernel_type`, `antialias` read once).
pub(crate) fn scale_and_translate_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let name: String = b.node.attr_or("kernel_type", "lanczos3".to_string())?;
    let kernel =
        Sampling::parse(&name).ok_or_else(|| Error::invalid_argument(format!("Unrecognized kernel type: {name}")))?;
    Ok(Box::new(ScaleAndTranslate { kernel, antialias: b.node.attr_or("antialias", true)? }))
}

impl OpKernel for ScaleAndTranslate {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let [batch, in_h, in_w, channels] = image_dims(ctx.input(0)?, "input")?;
        let size = ctx.input(1)?;
        if size.shape() != [2] {
            ff_bail!(
                InvalidArgument,
                "output_shape must be a 1-D tensor with 2 elements, got shape {:?}",
                size.shape()
            );
        }
        let sizes = size.as_slice::<i32>()?;
        let (Ok(out_h), Ok(out_w)) = (usize::try_from(sizes[0]), usize::try_from(sizes[1])) else {
            ff_bail!(InvalidArgument, "output dimensions must be positive");
        };
        if out_h == 0 || out_w == 0 {
            ff_bail!(InvalidArgument, "output dimensions must be positive");
        }
        let (scale, translate) = scale_translation(ctx, "ScaleAndTranslate")?;
        let mut out = Tensor::zeros(DType::Float32, &[batch, out_h, out_w, channels])?;
        if batch == 0 || channels == 0 || in_h == 0 || in_w == 0 {
            ctx.set_output(0, out);
            return Ok(());
        }
        let rows = spans(self.kernel, out_h, in_h, scale[0], translate[0], self.antialias)?;
        let cols = spans(self.kernel, out_w, in_w, scale[1], translate[1], self.antialias)?;
        let image = cast(ctx.input(0)?, DType::Float32)?;
        let mut mid = Tensor::zeros(DType::Float32, &[out_h, in_w, channels])?;
        let src = image.as_slice::<f32>()?;
        let dst = out.as_mut_slice::<f32>()?;
        let mid = mid.as_mut_slice::<f32>()?;
        let (in_row, mid_row, out_row) = (in_w * channels, in_w * channels, out_w * channels);
        for b in 0..batch {
            let img = &src[b * in_h * in_row..(b + 1) * in_h * in_row];
            // Rows: `mid[y] = sum_k w[y][k] * img[start[y] + k]` (TF's `GatherRows`).
            for y in 0..out_h {
                let row = &mut mid[y * mid_row..(y + 1) * mid_row];
                row.fill(0.0);
                let start = rows.starts[y];
                let n = (start + rows.span).min(in_h) - start;
                for (k, w) in rows.weights[y * rows.span..y * rows.span + n].iter().enumerate() {
                    let from = &img[(start + k) * in_row..(start + k + 1) * in_row];
                    row.iter_mut().zip(from).for_each(|(o, v)| *o += w * v);
                }
            }
            // Columns (TF's `GatherColumns`).
            let out_b = &mut dst[b * out_h * out_row..(b + 1) * out_h * out_row];
            for y in 0..out_h {
                for x in 0..out_w {
                    let pix = &mut out_b[y * out_row + x * channels..y * out_row + (x + 1) * channels];
                    let start = cols.starts[x];
                    let n = (start + cols.span).min(in_w) - start;
                    for (k, w) in cols.weights[x * cols.span..x * cols.span + n].iter().enumerate() {
                        let from = &mid[y * mid_row + (start + k) * channels..y * mid_row + (start + k + 1) * channels];
                        pix.iter_mut().zip(from).for_each(|(o, v)| *o += w * v);
                    }
                }
            }
        }
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The kernel of `ScaleAndTranslateGrad`: the output gradient mapped back through the
/// transposed spans, to the original image's shape.
pub(crate) fn scale_and_translate_grad_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let name: String = b.node.attr_or("kernel_type", "lanczos3".to_string())?;
    let kernel =
        Sampling::parse(&name).ok_or_else(|| Error::invalid_argument(format!("Unrecognized kernel type: {name}")))?;
    Ok(Box::new(ScaleAndTranslateGrad { kernel, antialias: b.node.attr_or("antialias", true)? }))
}

struct ScaleAndTranslateGrad {
    kernel: Sampling,
    antialias: bool,
}

impl OpKernel for ScaleAndTranslateGrad {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let [batch, out_h, out_w, channels] = image_dims(ctx.input(0)?, "input_grad")?;
        let [ob, in_h, in_w, oc] = image_dims(ctx.input(1)?, "original_image")?;
        if ob != batch || oc != channels {
            ff_bail!(InvalidArgument, "original_image's batch and channels must be the gradient's");
        }
        let (scale, translate) = scale_translation(ctx, "ScaleAndTranslateGrad")?;
        let mut out = Tensor::zeros(DType::Float32, &[batch, in_h, in_w, channels])?;
        if batch == 0 || channels == 0 || in_h == 0 || in_w == 0 || out_h == 0 || out_w == 0 {
            ctx.set_output(0, out);
            return Ok(());
        }
        let rows = spans(self.kernel, out_h, in_h, scale[0], translate[0], self.antialias)?;
        let cols = spans(self.kernel, out_w, in_w, scale[1], translate[1], self.antialias)?;
        let dy = ctx.input(0)?.as_slice::<f32>()?;
        let mut mid = Tensor::zeros(DType::Float32, &[out_h, in_w, channels])?;
        let mid = mid.as_mut_slice::<f32>()?;
        let dst = out.as_mut_slice::<f32>()?;
        let (out_row, mid_row, in_row) = (out_w * channels, in_w * channels, in_w * channels);
        for b in 0..batch {
            let g = &dy[b * out_h * out_row..(b + 1) * out_h * out_row];
            // Columns transposed: each output pixel's gradient back to its span.
            mid.fill(0.0);
            for y in 0..out_h {
                for x in 0..out_w {
                    let pix = &g[y * out_row + x * channels..y * out_row + (x + 1) * channels];
                    let start = cols.starts[x];
                    let n = (start + cols.span).min(in_w) - start;
                    for (k, w) in cols.weights[x * cols.span..x * cols.span + n].iter().enumerate() {
                        let to =
                            &mut mid[y * mid_row + (start + k) * channels..y * mid_row + (start + k + 1) * channels];
                        to.iter_mut().zip(pix).for_each(|(o, v)| *o += w * v);
                    }
                }
            }
            // Rows transposed.
            let img = &mut dst[b * in_h * in_row..(b + 1) * in_h * in_row];
            for y in 0..out_h {
                let from = &mid[y * mid_row..(y + 1) * mid_row];
                let start = rows.starts[y];
                let n = (start + rows.span).min(in_h) - start;
                for (k, w) in rows.weights[y * rows.span..y * rows.span + n].iter().enumerate() {
                    let to = &mut img[(start + k) * in_row..(start + k + 1) * in_row];
                    to.iter_mut().zip(from).for_each(|(o, v)| *o += w * v);
                }
            }
        }
        ctx.set_output(0, out);
        Ok(())
    }
}
