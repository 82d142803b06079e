//! Gradients of the image ops TF registers: the bilinear, bicubic and nearest-neighbour
//! resizes (their `...Grad` ops, `size` gets none) and `ReverseV2` (reversed back).
use super::{Grad, GradCtx, dense_all};
use crate::error::Result;
use crate::graph::AttrValue;
use crate::tensor::Tensor;

type Grads = Result<Vec<Option<Grad>>>;

fn resize_attrs(ctx: &GradCtx<'_>) -> Vec<(&'static str, AttrValue)> {
    ["align_corners", "half_pixel_centers"].iter().filter_map(|&n| ctx.attr(n).map(|v| (n, v.clone()))).collect()
}

/// TF's `_ResizeBilinearGrad`: `ResizeBilinearGrad(grad, images)`.
pub(crate) fn resize_bilinear(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let x = ctx.input(0);
    let attrs = resize_attrs(ctx);
    let dx = ctx.op("ResizeBilinearGrad", &[dy, x], attrs)?;
    Ok(vec![Some(Grad::Dense(dx)), None])
}

/// TF's `_ScaleAndTranslateGrad`: `ScaleAndTranslateGrad(grad, images, scale,
/// translation)` with the forward op's sampling attrs; none for the other inputs.
pub(crate) fn scale_and_translate(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, scale, translation) = (ctx.input(0), ctx.input(2), ctx.input(3));
    let attrs: Vec<(&'static str, AttrValue)> =
        ["kernel_type", "antialias"].iter().filter_map(|&n| ctx.attr(n).map(|v| (n, v.clone()))).collect();
    let dx = ctx.op("ScaleAndTranslateGrad", &[dy, x, scale, translation], attrs)?;
    Ok(vec![Some(Grad::Dense(dx)), None, None, None])
}

/// TF's `_ResizeBicubicGrad`: `ResizeBicubicGrad(grad, images)` for float32 and
/// float64 images, none for other types.
pub(crate) fn resize_bicubic(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let x = ctx.input(0);
    if !matches!(ctx.spec(x)?.dtype, crate::dtype::DType::Float32 | crate::dtype::DType::Float64) {
        return Ok(vec![None, None]);
    }
    let attrs = resize_attrs(ctx);
    let dx = ctx.op("ResizeBicubicGrad", &[dy, x], attrs)?;
    Ok(vec![Some(Grad::Dense(dx)), None])
}

/// TF's `_ResizeNearestNeighborGrad`: the image's static height and width when known,
/// else `Shape(images)[1:3]`.
pub(crate) fn resize_nearest_neighbor(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let x = ctx.input(0);
    let statics = match ctx.spec(x)?.shape.dims() {
        Some(&[_, Some(h), Some(w), _]) => Some([h, w]),
        _ => None,
    };
    let size = match statics {
        Some(hw) => ctx.int_vector(&hw)?,
        None => {
            let shape = ctx.op("Shape", &[x], vec![])?;
            let begin = ctx.constant(Tensor::from_slice(&[1], &[1i32])?)?;
            let len = ctx.constant(Tensor::from_slice(&[1], &[2i32])?)?;
            ctx.op("Slice", &[shape, begin, len], vec![])?
        }
    };
    let attrs = resize_attrs(ctx);
    let dx = ctx.op("ResizeNearestNeighborGrad", &[dy, size], attrs)?;
    Ok(vec![Some(Grad::Dense(dx)), None])
}

/// `ReverseV2`'s gradient reverses the same axes.
pub(crate) fn reverse(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let axis = ctx.input(1);
    let mut out = dense_all(vec![ctx.op("ReverseV2", &[dy, axis], vec![])?]);
    out.push(None);
    Ok(out)
}

/// TF's `_CropAndResizeGrad`: the image's gradient (float images only) by
/// `CropAndResizeGradImage`, the boxes' by `CropAndResizeGradBoxes` (bilinear, also
/// for nearest sampling, as TF approximates it); none for the indices and sizes.
pub(crate) fn crop_and_resize(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    use crate::dtype::DType;
    let dy = ctx.dy(g)?;
    let (image, boxes, box_ind) = (ctx.input(0), ctx.input(1), ctx.input(2));
    let t = ctx.spec(image)?.dtype;
    let method = ctx.attr("method").cloned();
    let mut attrs = vec![("T", crate::graph::AttrValue::Type(t))];
    if let Some(m) = method {
        attrs.push(("method", m));
    }
    let dimage = if matches!(t, DType::Float16 | DType::Float32 | DType::Float64) {
        let size = ctx.shape_of(image)?;
        Some(Grad::Dense(ctx.op("CropAndResizeGradImage", &[dy, boxes, box_ind, size], attrs)?))
    } else {
        None
    };
    let dboxes =
        ctx.op("CropAndResizeGradBoxes", &[dy, image, boxes, box_ind], vec![("T", crate::graph::AttrValue::Type(t))])?;
    Ok(vec![dimage, Some(Grad::Dense(dboxes)), None, None])
}
