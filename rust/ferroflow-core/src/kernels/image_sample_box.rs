//! `SampleDistortedBoundingBox(V2)`: a random crop of an image covering enough of one
//! of its bounding boxes, TF's sampler draw for draw: each of `max_attempts` attempts
//! takes an aspect ratio (`RandFloat`), a height in the allowed area range and an
//! offset (`Uniform`, TF's rejection-free-of-bias integers) from the node's Philox
//! stream, which reserves `4 * max_attempts` words per run as TF's
//! `ReserveSamples32`; the whole image when no attempt satisfies the constraints.
//! Shapes and registration in `ops/image.rs`.
use std::sync::Arc;

use super::{KernelBuild, OpContext, OpKernel};
use crate::error::{Error, Result};
use crate::random::{GuardedPhilox, Philox, SingleSample, uint32_to_f32};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// TF's integer rectangle (`[min, max)` on both axes).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Rect {
    min_x: i64,
    min_y: i64,
    max_x: i64,
    max_y: i64,
}

impl Rect {
    fn area(&self) -> f32 {
        ((self.max_x - self.min_x) * (self.max_y - self.min_y)) as f32
    }
    fn intersect(&self, r: &Rect) -> Rect {
        let (x0, y0) = (self.min_x.max(r.min_x), self.min_y.max(r.min_y));
        let (x1, y1) = (self.max_x.min(r.max_x), self.max_y.min(r.max_y));
        if x0 > x1 || y0 > y1 { Rect::default() } else { Rect { min_x: x0, min_y: y0, max_x: x1, max_y: y1 } }
    }
}

/// TF's `SimplePhilox` over one reserved stretch of the stream.
struct Simple<'a>(SingleSample<'a>);

impl Simple<'_> {
    fn rand_float(&mut self) -> f32 {
        uint32_to_f32(self.0.next_u32())
    }
    /// TF's `ExactUniformInt`: uniform in `[0, n)` by rejection.
    fn uniform(&mut self, n: u32) -> u32 {
        if n == 0 {
            let _ = self.0.next_u32();
            return 0;
        }
        if n.is_power_of_two() {
            return self.0.next_u32() & (n - 1);
        }
        let rem = (u32::MAX % n) + 1;
        loop {
            let r = self.0.next_u32();
            if r >= rem {
                return r % n;
            }
        }
    }
}

/// `lrintf`: to the nearest integer, ties to even (the default rounding mode).
fn lrint(x: f32) -> i64 {
    x.round_ties_even() as i64
}

/// TF's `GenerateRandomCrop`.
fn random_crop(width: i64, height: i64, min_rel: f32, max_rel: f32, aspect: f32, rng: &mut Simple<'_>) -> Option<Rect> {
    if max_rel <= 0.0 || aspect <= 0.0 || width <= 0 || height <= 0 || min_rel > max_rel {
        return None;
    }
    let min_area = min_rel * width as f32 * height as f32;
    let max_area = max_rel * width as f32 * height as f32;
    let mut h = lrint((min_area / aspect).sqrt());
    let mut max_h = lrint((max_area / aspect).sqrt());
    if lrint(max_h as f32 * aspect) > width {
        const EPS: f64 = 0.000_000_1;
        max_h = ((width as f64 + 0.5 - EPS) / f64::from(aspect)) as i64;
        if lrint(max_h as f32 * aspect) > width {
            max_h -= 1;
        }
    }
    max_h = max_h.min(height);
    h = h.min(max_h);
    if h < max_h {
        h += i64::from(rng.uniform(u32::try_from(max_h - h + 1).unwrap_or(u32::MAX)));
    }
    let mut w = lrint(h as f32 * aspect);
    let mut area = (w * h) as f32;
    if area < min_area {
        h += 1;
        w = lrint(h as f32 * aspect);
        area = (w * h) as f32;
    }
    if area > max_area {
        h -= 1;
        w = lrint(h as f32 * aspect);
        area = (w * h) as f32;
    }
    if area < min_area || area > max_area || w > width || h > height || w <= 0 || h <= 0 {
        return None;
    }
    let y = if h < height { i64::from(rng.uniform(u32::try_from(height - h).unwrap_or(u32::MAX))) } else { 0 };
    let x = if w < width { i64::from(rng.uniform(u32::try_from(width - w).unwrap_or(u32::MAX))) } else { 0 };
    Some(Rect { min_x: x, min_y: y, max_x: x + w, max_y: y + h })
}

/// TF's `SatisfiesOverlapConstraints`.
fn covers(crop: &Rect, min_covered: f32, boxes: &[Rect]) -> bool {
    if crop.area() < 1.0 {
        return false;
    }
    boxes.iter().any(|b| b.area() >= 1.0 && crop.intersect(b).area() / b.area() >= min_covered)
}

struct SampleBox {
    philox: Arc<GuardedPhilox>,
    /// V1's attr; V2 reads its third input.
    min_object_covered: Option<f32>,
    aspect: [f32; 2],
    area: [f32; 2],
    max_attempts: i64,
    use_image: bool,
}

fn range_attr(b: &KernelBuild<'_>, name: &str, default: [f32; 2], what: &str) -> Result<[f32; 2]> {
    let v: Vec<f32> = b.node.attr_or(name, default.to_vec())?;
    <[f32; 2]>::try_from(v.as_slice())
        .map_err(|_| Error::invalid_argument(format!("{what} field must specify 2 dimensions")))
}

pub(crate) fn sample_box_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let v1 = b.node.op_type() == "SampleDistortedBoundingBox";
    let min_object_covered = if v1 {
        let m: f32 = b.node.attr_or("min_object_covered", 0.1)?;
        if m < 0.0 {
            ff_bail!(InvalidArgument, "Min object covered must be non-negative: {m}");
        }
        Some(m)
    } else {
        None
    };
    let aspect = range_attr(b, "aspect_ratio_range", [0.75, 1.33], "Aspect ratio range")?;
    if !(aspect[0] > 0.0 && aspect[1] > 0.0) {
        ff_bail!(InvalidArgument, "Aspect ratio range must be non-negative: [{}, {}]", aspect[0], aspect[1]);
    }
    let area = range_attr(b, "area_range", [0.05, 1.0], "Area range")?;
    if !(area[0] > 0.0 && area[1] > 0.0) {
        ff_bail!(InvalidArgument, "Area range must be non-negative: [{}, {}]", area[0], area[1]);
    }
    if area[0] > 1.0 || area[1] > 1.0 {
        ff_bail!(InvalidArgument, "Area range must be less then or equal to 1.0: [{}, {}]", area[0], area[1]);
    }
    let max_attempts: i64 = b.node.attr_or("max_attempts", 100)?;
    if max_attempts <= 0 {
        ff_bail!(InvalidArgument, "Max attempts must be non-negative: {max_attempts}");
    }
    let (seed, seed2) = (b.node.attr_or::<i64>("seed", 0)?, b.node.attr_or::<i64>("seed2", 0)?);
    Ok(Box::new(SampleBox {
        philox: b.resources.node_state(&b.node.name, || GuardedPhilox::new(seed, seed2))?,
        min_object_covered,
        aspect,
        area,
        max_attempts,
        use_image: b.node.attr_or("use_image_if_no_bounding_boxes", false)?,
    }))
}

impl OpKernel for SampleBox {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let size_t = ctx.input(0)?;
        if size_t.shape() != [3] {
            let what = if size_t.shape().len() == 1 { "contain 3 elements" } else { "be 1-dimensional" };
            ff_bail!(InvalidArgument, "image_size must {what}{}", fmt_shape(size_t.shape()));
        }
        let dims = crate::framework::tensor_util::int_values(size_t)?;
        let bound = |v: i64, what: &str| {
            if (0..i64::from(i32::MAX)).contains(&v) {
                Ok(v)
            } else {
                Err(Error::invalid_argument(format!("image {what} cannot be >= int32 max")))
            }
        };
        let (height, width) = (bound(dims[0], "height")?, bound(dims[1], "width")?);
        let boxes_t = ctx.input(1)?;
        if boxes_t.shape().len() != 3 {
            ff_bail!(
                InvalidArgument,
                "input boxes must be 3-dimensional [batch, num_boxes, coords]: {}",
                fmt_shape(boxes_t.shape())
            );
        }
        if boxes_t.shape()[2] != 4 {
            ff_bail!(
                InvalidArgument,
                "bounding boxes must have shape [4] or [*, 4], got {}",
                fmt_shape(boxes_t.shape())
            );
        }
        let min_covered = match self.min_object_covered {
            Some(m) => m,
            None => {
                let t = ctx.input(2)?;
                if !t.shape().is_empty() {
                    ff_bail!(InvalidArgument, "min_object_covered must be 0-D, got shape {}", fmt_shape(t.shape()));
                }
                let m = t.as_slice::<f32>()?[0];
                if m < 0.0 {
                    ff_bail!(InvalidArgument, "Min object covered must be non-negative: {m}");
                }
                m
            }
        };
        let mut boxes = Vec::new();
        for b in boxes_t.as_slice::<f32>()?.chunks_exact(4) {
            if let Some(v) = b.iter().find(|v| !(0.0..=1.0).contains(*v)) {
                ff_bail!(InvalidArgument, "All bounding box coordinates must be in [0.0, 1.0]: {v}");
            }
            let at = |v: f32, n: i64| (v * n as f32) as i32 as i64;
            boxes.push(Rect {
                min_x: at(b[1], width),
                min_y: at(b[0], height),
                max_x: at(b[3], width),
                max_y: at(b[2], height),
            });
        }
        let image = Rect { min_x: 0, min_y: 0, max_x: width, max_y: height };
        if boxes.is_empty() {
            if !self.use_image {
                ff_bail!(
                    InvalidArgument,
                    "No bounding boxes provided as input. One must enable use_image_if_no_bounding_boxes if you wish \
                     to not provide any bounding boxes."
                );
            }
            boxes.push(image);
        }
        let words = u64::try_from(self.max_attempts).unwrap_or(0).saturating_mul(4);
        let mut local: Philox = self.philox.reserve_words(words);
        let mut rng = Simple(SingleSample::new(&mut local));
        let [amin, amax] = self.aspect;
        let mut crop = None;
        for _ in 0..self.max_attempts {
            let aspect = rng.rand_float() * (amax - amin) + amin;
            if let Some(c) = random_crop(width, height, self.area[0], self.area[1], aspect, &mut rng)
                && covers(&c, min_covered, &boxes)
            {
                crop = Some(c);
                break;
            }
        }
        let c = crop.unwrap_or(image);
        let dtype = size_t.dtype();
        let begin = Tensor::from_slice(&[3], &[c.min_y, c.min_x, 0])?;
        let size = Tensor::from_slice(&[3], &[c.max_y - c.min_y, c.max_x - c.min_x, -1])?;
        ctx.set_output(0, super::array::cast(&begin, dtype)?);
        ctx.set_output(1, super::array::cast(&size, dtype)?);
        let (h, w) = (height as f32, width as f32);
        let bbox = [c.min_y as f32 / h, c.min_x as f32 / w, c.max_y as f32 / h, c.max_x as f32 / w];
        ctx.set_output(2, Tensor::from_slice(&[1, 1, 4], &bbox)?);
        Ok(())
    }
}
