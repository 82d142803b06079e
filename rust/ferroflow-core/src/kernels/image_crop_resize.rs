//! `CropAndResize` and its two gradients (`CropAndResizeGradImage`,
//! `CropAndResizeGradBoxes`): boxes `[y1, x1, y2, x2]` of normalized coordinates, each
//! sampled on a `crop_height x crop_width` grid (bilinear or nearest), points outside
//! the image taking `extrapolation_value`; computed in f32 as TF's CPU kernels, the
//! boxes' gradient the bilinear one whatever the method (as TF). Shapes and
//! registration in `ops/image.rs`.
use super::image::by_channels;
use super::{KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Forward,
    GradImage,
    GradBoxes,
}

struct CropAndResize {
    which: Which,
    bilinear: bool,
    extrapolation: f32,
    /// `CropAndResizeGradImage`'s output type.
    out_type: DType,
}

pub(crate) fn crop_and_resize_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let which = match b.node.op_type() {
        "CropAndResize" => Which::Forward,
        "CropAndResizeGradImage" => Which::GradImage,
        _ => Which::GradBoxes,
    };
    let method: String = b.node.attr_or("method", "bilinear".to_string())?;
    let allowed = if which == Which::GradBoxes { &["bilinear"][..] } else { &["bilinear", "nearest"][..] };
    if !allowed.contains(&method.as_str()) {
        ff_bail!(
            InvalidArgument,
            "method must be {}{method}",
            allowed.iter().map(|m| format!("'{m}'")).collect::<Vec<_>>().join(" or ")
        );
    }
    Ok(Box::new(CropAndResize {
        which,
        bilinear: method == "bilinear",
        extrapolation: b.node.attr_or("extrapolation_value", 0.0f32)?,
        out_type: b.node.attr_or("T", DType::Float32)?,
    }))
}

/// The sampling grid of one box along one axis: for each output index, the source
/// coordinate, or `None` outside the image. `ratio_first`: the step as the boxes'
/// gradient computes it, `(hi - lo) * ((size - 1) / (crop - 1))` (the forward pass and
/// the image gradient compute `(hi - lo) * (size - 1) / (crop - 1)`): the rounding
/// decides which pixels a point on a pixel boundary falls between.
fn axis(lo: f32, hi: f32, size: usize, crop: usize, ratio_first: bool) -> Vec<Option<f32>> {
    let last = (size - 1) as f32;
    let scale = match (crop > 1, ratio_first) {
        (false, _) => 0.0,
        (true, false) => (hi - lo) * last / (crop - 1) as f32,
        (true, true) => (hi - lo) * (last / (crop - 1) as f32),
    };
    (0..crop)
        .map(|i| {
            let at = if crop > 1 {
                lo * last + i as f32 * scale
            } else {
                // TF computes this one in double (`0.5` is a double literal).
                (0.5 * (f64::from(lo) + f64::from(hi)) * f64::from(last)) as f32
            };
            (at >= 0.0 && at <= last).then_some(at)
        })
        .collect()
}

/// An output column's bilinear taps in a source row: the left and right pixels' first
/// elements and the right one's weight (`in_x - floor(in_x)`, TF's `x_lerp`), or
/// `None` outside the image.
type Tap = Option<(usize, usize, f32)>;

/// The taps of a box's columns, computed once for all its rows (`floor` and `ceil`
/// are library calls on the baseline target).
fn taps(xs: &[Option<f32>], depth: usize) -> Vec<Tap> {
    xs.iter()
        .map(|x| {
            x.map(|x| {
                let left = x.floor();
                (left as usize * depth, x.ceil() as usize * depth, x - left)
            })
        })
        .collect()
}

/// One output row of bilinear sampling between source rows `top` and `bottom`, `C`
/// channels per pixel.
fn lerp_row<const C: usize>(top: &[f32], bottom: &[f32], yl: f32, taps: &[Tap], fill: f32, dst: &mut [f32]) {
    for (tap, px) in taps.iter().zip(dst.chunks_exact_mut(C)) {
        let Some((left, right, xl)) = *tap else {
            px.fill(fill);
            continue;
        };
        let at = |row: &[f32], i: usize| -> [f32; C] { row[i..i + C].try_into().expect("C values") };
        let (tl, tr, bl, br) = (at(top, left), at(top, right), at(bottom, left), at(bottom, right));
        for d in 0..C {
            let t = tl[d] + (tr[d] - tl[d]) * xl;
            let b = bl[d] + (br[d] - bl[d]) * xl;
            px[d] = t + (b - t) * yl;
        }
    }
}

/// [`lerp_row`] for any channel count.
fn lerp_row_any(top: &[f32], bottom: &[f32], yl: f32, taps: &[Tap], fill: f32, depth: usize, dst: &mut [f32]) {
    for (tap, px) in taps.iter().zip(dst.chunks_exact_mut(depth)) {
        let Some((left, right, xl)) = *tap else {
            px.fill(fill);
            continue;
        };
        for (d, o) in px.iter_mut().enumerate() {
            let (tl, tr) = (top[left + d], top[right + d]);
            let (bl, br) = (bottom[left + d], bottom[right + d]);
            let t = tl + (tr - tl) * xl;
            let b = bl + (br - bl) * xl;
            *o = t + (b - t) * yl;
        }
    }
}

/// The geometry every op here checks: boxes `[n, 4]`, `box_ind` `[n]` in range.
fn boxes_of(ctx: &OpContext<'_>, boxes_i: usize, batch: usize) -> Result<(Vec<f32>, Vec<usize>)> {
    let boxes = ctx.input(boxes_i)?;
    let index = ctx.input(boxes_i + 1)?;
    let n = match boxes.shape() {
        [n, 4] => *n,
        [0] => 0,
        s => ff_bail!(InvalidArgument, "boxes must be 2-D{} and have 4 columns", fmt_shape(s)),
    };
    if index.shape() != [n] {
        ff_bail!(InvalidArgument, "box_index has incompatible shape {}", fmt_shape(index.shape()));
    }
    let values = boxes.as_slice::<f32>()?.to_vec();
    if values.iter().any(|v| !v.is_finite()) {
        ff_bail!(InvalidArgument, "Boxes contains at least one element that is not finite");
    }
    let idx = index
        .as_slice::<i32>()?
        .iter()
        .map(|&i| usize::try_from(i).ok().filter(|&i| i < batch))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| Error::new(Code::OutOfRange, "box_index has values outside [0, batch_size)"))?;
    Ok((values, idx))
}

fn dims4(t: &Tensor, what: &str) -> Result<[usize; 4]> {
    <[usize; 4]>::try_from(t.shape())
        .map_err(|_| Error::invalid_argument(format!("{what} must be 4-D{}", fmt_shape(t.shape()))))
}

impl OpKernel for CropAndResize {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        match self.which {
            Which::Forward => self.forward(ctx),
            Which::GradImage => self.grad_image(ctx),
            Which::GradBoxes => self.grad_boxes(ctx),
        }
    }
}

impl CropAndResize {
    fn forward(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let image_t = ctx.input(0)?;
        let [batch, h, w, depth] = dims4(image_t, "input image")?;
        if h == 0 || w == 0 {
            ff_bail!(InvalidArgument, "image dimensions must be positive");
        }
        let size = crate::framework::tensor_util::int_values(ctx.input(3)?)?;
        if ctx.input(3)?.shape() != [2] {
            ff_bail!(InvalidArgument, "crop_size must have two elements{}", fmt_shape(ctx.input(3)?.shape()));
        }
        let (ch, cw) = match (usize::try_from(size[0]), usize::try_from(size[1])) {
            (Ok(a), Ok(b)) if a > 0 && b > 0 => (a, b),
            _ => ff_bail!(InvalidArgument, "crop dimensions must be positive"),
        };
        let (boxes, idx) = boxes_of(ctx, 1, batch)?;
        let image = super::array::cast(image_t, DType::Float32)?;
        let img = image.as_slice::<f32>()?;
        let n = idx.len();
        let len = n.checked_mul(ch).and_then(|v| v.checked_mul(cw)).and_then(|v| v.checked_mul(depth));
        let len = len.ok_or_else(|| Error::new(Code::ResourceExhausted, "CropAndResize: output too large"))?;
        let mut out = Tensor::for_overwrite(DType::Float32, &[n, ch, cw, depth])?;
        let per_box = len.checked_div(n).unwrap_or(0);
        if per_box > 0 {
            let image_len = h * w * depth;
            // Boxes split over the intra-op pool, each written row by row.
            ctx.env.for_each_chunk(out.as_mut_slice::<f32>()?, per_box, per_box, |offset, chunk| {
                for (j, dst) in chunk.chunks_exact_mut(per_box).enumerate() {
                    let k = offset / per_box + j;
                    let source = &img[idx[k] * image_len..][..image_len];
                    self.crop_one(source, [h, w, depth], &boxes[k * 4..k * 4 + 4], cw, dst);
                }
            });
        }
        ctx.set_output(0, out);
        Ok(())
    }

    /// One box of an image `h x w x depth` sampled into `dst` (`crop_height` rows of
    /// `cw x depth`), with TF's arithmetic: `top + (bottom - top) * y_lerp` of the
    /// rows' `left + (right - left) * x_lerp`.
    fn crop_one(&self, image: &[f32], [h, w, depth]: [usize; 3], bx: &[f32], cw: usize, dst: &mut [f32]) {
        let ch = dst.len() / (cw * depth);
        let (ys, xs) = (axis(bx[0], bx[2], h, ch, false), axis(bx[1], bx[3], w, cw, false));
        let row_len = w * depth;
        let fill = self.extrapolation;
        let bilinear = if self.bilinear { taps(&xs, depth) } else { Vec::new() };
        let nearest: Vec<Option<usize>> =
            if self.bilinear { Vec::new() } else { xs.iter().map(|x| x.map(|x| x.round() as usize * depth)).collect() };
        for (in_y, out_row) in ys.iter().zip(dst.chunks_exact_mut(cw * depth)) {
            let Some(in_y) = *in_y else {
                out_row.fill(fill);
                continue;
            };
            if self.bilinear {
                let top = &image[in_y.floor() as usize * row_len..][..row_len];
                let bottom = &image[in_y.ceil() as usize * row_len..][..row_len];
                let yl = in_y - in_y.floor();
                by_channels!(depth, |C| lerp_row::<C>(top, bottom, yl, &bilinear, fill, out_row),
                    _ => lerp_row_any(top, bottom, yl, &bilinear, fill, depth, out_row));
            } else {
                let row = &image[in_y.round() as usize * row_len..][..row_len];
                for (at, px) in nearest.iter().zip(out_row.chunks_exact_mut(depth)) {
                    match *at {
                        Some(at) => px.copy_from_slice(&row[at..at + depth]),
                        None => px.fill(fill),
                    }
                }
            }
        }
    }

    fn grad_image(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let grads_t = ctx.input(0)?;
        let [n, ch, cw, depth] = dims4(grads_t, "grads image")?;
        if ch == 0 || cw == 0 {
            ff_bail!(InvalidArgument, "grads dimensions must be positive");
        }
        let size_t = ctx.input(3)?;
        if size_t.shape() != [4] {
            ff_bail!(InvalidArgument, "image_size must have 4 elements{}", fmt_shape(size_t.shape()));
        }
        let dims = crate::framework::tensor_util::dims_from(
            &crate::framework::tensor_util::int_values(size_t)?,
            "image_size",
        )?;
        let [batch, h, w, d] = [dims[0], dims[1], dims[2], dims[3]];
        if h == 0 || w == 0 {
            ff_bail!(InvalidArgument, "image dimensions must be positive");
        }
        if d != depth {
            ff_bail!(InvalidArgument, "image_size and grads are incompatible");
        }
        let (boxes, idx) = boxes_of(ctx, 1, batch)?;
        if idx.len() != n {
            ff_bail!(InvalidArgument, "boxes and grads have incompatible shape");
        }
        let grads = grads_t.as_slice::<f32>()?;
        let mut out = Tensor::zeros(DType::Float32, &[batch, h, w, depth])?;
        let img = out.as_mut_slice::<f32>()?;
        let row = |b: usize, y: usize| (b * h + y) * w * depth;
        for (k, &b_in) in idx.iter().enumerate() {
            let bx = &boxes[k * 4..k * 4 + 4];
            let (ys, xs) = (axis(bx[0], bx[2], h, ch, false), axis(bx[1], bx[3], w, cw, false));
            let bilinear = taps(&xs, depth);
            for (y, in_y) in ys.iter().enumerate() {
                let Some(in_y) = *in_y else { continue };
                let (top, bottom, yl) =
                    (row(b_in, in_y.floor() as usize), row(b_in, in_y.ceil() as usize), in_y - in_y.floor());
                let nearest = row(b_in, in_y.round() as usize);
                for (x, (tap, in_x)) in bilinear.iter().zip(&xs).enumerate() {
                    let (Some((left, right, xl)), Some(in_x)) = (*tap, *in_x) else { continue };
                    let g = &grads[((k * ch + y) * cw + x) * depth..][..depth];
                    if self.bilinear {
                        for (dd, &gv) in g.iter().enumerate() {
                            let dtop = (1.0 - yl) * gv;
                            img[top + left + dd] += (1.0 - xl) * dtop;
                            img[top + right + dd] += xl * dtop;
                            let dbottom = yl * gv;
                            img[bottom + left + dd] += (1.0 - xl) * dbottom;
                            img[bottom + right + dd] += xl * dbottom;
                        }
                    } else {
                        let base = nearest + in_x.round() as usize * depth;
                        for (dd, &gv) in g.iter().enumerate() {
                            img[base + dd] += gv;
                        }
                    }
                }
            }
        }
        ctx.set_output(0, super::array::cast(&out, self.out_type)?);
        Ok(())
    }

    fn grad_boxes(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let grads_t = ctx.input(0)?;
        let [n, ch, cw, depth] = dims4(grads_t, "grads image")?;
        let image_t = ctx.input(1)?;
        let [batch, h, w, d] = dims4(image_t, "input image")?;
        if h == 0 || w == 0 {
            ff_bail!(InvalidArgument, "image dimensions must be positive");
        }
        if d != depth {
            ff_bail!(InvalidArgument, "image, grads depth differ");
        }
        let (boxes, idx) = boxes_of(ctx, 2, batch)?;
        if idx.len() != n {
            ff_bail!(InvalidArgument, "boxes and grads have incompatible shape");
        }
        let image = super::array::cast(image_t, DType::Float32)?;
        let (img, grads) = (image.as_slice::<f32>()?, grads_t.as_slice::<f32>()?);
        let mut out = vec![0f32; n * 4];
        let at = |b: usize, y: usize, x: usize| ((b * h + y) * w + x) * depth;
        let hr = if ch > 1 { (h - 1) as f32 / (ch - 1) as f32 } else { 0.0 };
        let wr = if cw > 1 { (w - 1) as f32 / (cw - 1) as f32 } else { 0.0 };
        for (k, &b_in) in idx.iter().enumerate() {
            let bx = &boxes[k * 4..k * 4 + 4];
            let (ys, xs) = (axis(bx[0], bx[2], h, ch, true), axis(bx[1], bx[3], w, cw, true));
            let gb = &mut out[k * 4..k * 4 + 4];
            for (y, in_y) in ys.iter().enumerate() {
                let Some(in_y) = *in_y else { continue };
                let (top, bottom, yl) = (in_y.floor() as usize, in_y.ceil() as usize, in_y - in_y.floor());
                for (x, in_x) in xs.iter().enumerate() {
                    let Some(in_x) = *in_x else { continue };
                    let (left, right, xl) = (in_x.floor() as usize, in_x.ceil() as usize, in_x - in_x.floor());
                    for dd in 0..depth {
                        let (tl, tr) = (img[at(b_in, top, left) + dd], img[at(b_in, top, right) + dd]);
                        let (bl, br) = (img[at(b_in, bottom, left) + dd], img[at(b_in, bottom, right) + dd]);
                        let top_grad = grads[((k * ch + y) * cw + x) * depth + dd];
                        let gy = ((1.0 - xl) * (bl - tl) + xl * (br - tr)) * top_grad;
                        let gx = ((1.0 - yl) * (tr - tl) + yl * (br - bl)) * top_grad;
                        if ch > 1 {
                            gb[0] += gy * ((h - 1) as f32 - y as f32 * hr);
                            gb[2] += gy * (y as f32 * hr);
                        } else {
                            // TF adds a double here (`0.5` is a double literal).
                            let half = f64::from(gy) * 0.5 * (h - 1) as f64;
                            gb[0] = (f64::from(gb[0]) + half) as f32;
                            gb[2] = (f64::from(gb[2]) + half) as f32;
                        }
                        if cw > 1 {
                            gb[1] += gx * ((w - 1) as f32 - x as f32 * wr);
                            gb[3] += gx * (x as f32 * wr);
                        } else {
                            let half = f64::from(gx) * 0.5 * (w - 1) as f64;
                            gb[1] = (f64::from(gb[1]) + half) as f32;
                            gb[3] = (f64::from(gb[3]) + half) as f32;
                        }
                    }
                }
            }
        }
        ctx.set_output(0, Tensor::from_slice(&[n, 4], &out)?);
        Ok(())
    }
}
