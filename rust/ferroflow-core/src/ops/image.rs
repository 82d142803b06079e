//! Image ops under TF's names, inputs and attrs: the resizes and their gradients, the
//! colour ops, the PNG/JPEG codecs (no gradient, as TF: differentiating through them is
//! a `LookupError`; `RGBToHSV`'s is TF's Python function in `image_ops.py`), and `ReverseV2` (which `tf.reverse` and the image
//! flips build). Everything else of `tf.image` is composed in Python from these and
//! the array ops, as TF's `image_ops_impl.py` does.
use super::array::shape_input;
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    register_nms(r);
    r.add(OpDef::new("CropAndResize", &["image", "boxes", "box_ind", "crop_size"], infer_crop_and_resize));
    r.add(OpDef::new("CropAndResizeGradImage", &["grads", "boxes", "box_ind", "image_size"], infer_crop_and_resize));
    r.add(OpDef::new("CropAndResizeGradBoxes", &["grads", "image", "boxes", "box_ind"], infer_crop_and_resize));
    r.add(OpDef::new("SampleDistortedBoundingBox", &["image_size", "bounding_boxes"], infer_sample_box).stateful());
    r.add(
        OpDef::new(
            "SampleDistortedBoundingBoxV2",
            &["image_size", "bounding_boxes", "min_object_covered"],
            infer_sample_box,
        )
        .stateful(),
    );
    r.add(OpDef::new("ResizeBilinear", &["images", "size"], infer_resize));
    r.add(OpDef::new("ScaleAndTranslate", &["images", "size", "scale", "translation"], infer_scale_and_translate));
    // TF registers no gradient for it.
    r.add(OpDef::new(
        "ScaleAndTranslateGrad",
        &["grads", "original_image", "scale", "translation"],
        infer_scale_and_translate_grad,
    ));
    r.add(OpDef::new("ResizeNearestNeighbor", &["images", "size"], infer_resize));
    r.add(OpDef::new("ResizeBicubic", &["images", "size"], infer_resize));
    r.add(OpDef::new("ResizeArea", &["images", "size"], infer_resize));
    // As TF: `ResizeBilinearGrad` is not differentiable, `ResizeBicubicGrad` has nothing.
    r.add(OpDef::new("ResizeBilinearGrad", &["grads", "original_image"], infer_resize_grad));
    r.add(OpDef::new("ResizeBicubicGrad", &["grads", "original_image"], infer_resize_grad));
    r.add(OpDef::new("ResizeNearestNeighborGrad", &["grads", "size"], infer_resize_nn_grad));
    r.add(OpDef::new("RGBToHSV", &["images"], infer_colorspace));
    r.add(OpDef::new("HSVToRGB", &["images"], infer_colorspace));
    r.add(OpDef::new("AdjustContrastv2", &["images", "contrast_factor"], infer_adjust));
    r.add(OpDef::new("AdjustHue", &["images", "delta"], infer_adjust));
    r.add(OpDef::new("AdjustSaturation", &["images", "scale"], infer_adjust));
    r.add(OpDef::new("DecodePng", &["contents"], infer_decode));
    r.add(OpDef::new("DecodeJpeg", &["contents"], infer_decode));
    r.add(OpDef::new("DecodeAndCropJpeg", &["contents", "crop_window"], infer_decode));
    r.add(OpDef::new("ExtractJpegShape", &["contents"], infer_extract_jpeg_shape));
    r.add(OpDef::new("DecodeImage", &["contents"], infer_decode));
    r.add(OpDef::new("DecodeGif", &["contents"], infer_decode));
    r.add(OpDef::new("DecodeBmp", &["contents"], infer_decode));
    r.add(OpDef::new("EncodePng", &["image"], infer_encode));
    r.add(OpDef::new("EncodeJpeg", &["image"], infer_encode));
    r.add(OpDef::new("ReverseV2", &["tensor", "axis"], infer_reverse));
}

/// The element types TF's resizes take.
const REAL: &[DType] = &[
    DType::Int8,
    DType::UInt8,
    DType::Int16,
    DType::UInt16,
    DType::Int32,
    DType::Int64,
    DType::BFloat16,
    DType::Float16,
    DType::Float32,
    DType::Float64,
];
const GRAD_FLOATS: &[DType] = &[DType::Float32, DType::BFloat16, DType::Float16, DType::Float64];

fn rank_at_least(ctx: &InferCtx<'_>, i: usize, rank: usize) -> Result<()> {
    match ctx.input(i).shape.rank() {
        Some(r) if r < rank => Err(Error::value(format!(
            "Shape must be at least rank {rank} but is rank {r} for '{}' (op: '{}') input '{}'",
            ctx.name,
            ctx.def.name,
            ctx.def.input_name(i)
        ))),
        _ => Ok(()),
    }
}

/// The two output sizes of a resize's `size` input, as far as they are known.
/// Input `i` is a 1-D int32 tensor of `len` elements where its length is known.
fn check_vector(ctx: &InferCtx<'_>, i: usize, len: usize) -> Result<()> {
    ctx.check_type(i, &[DType::Int32])?;
    ctx.check_rank(i, 1)?;
    if let Some(Some(n)) = ctx.input(i).shape.dims().map(|d| d[0])
        && n != len
    {
        return Err(Error::value(format!(
            "Dimension must be {len} but is {n} for '{}' (op: '{}') input '{}'",
            ctx.name,
            ctx.def.name,
            ctx.def.input_name(i)
        )));
    }
    Ok(())
}

fn size_dims(ctx: &InferCtx<'_>, i: usize) -> Result<[Option<usize>; 2]> {
    check_vector(ctx, i, 2)?;
    if let Some(t) = ctx.constant_input(i) {
        let v = crate::framework::tensor_util::int_values(t)?;
        if v.len() == 2 {
            let dim = |x: i64| usize::try_from(x).ok();
            return Ok([dim(v[0]), dim(v[1])]);
        }
    }
    if let Some(d) = ctx.shape_value(i).and_then(|s| s.dims())
        && d.len() == 2
    {
        return Ok([d[0], d[1]]);
    }
    Ok([None, None])
}

/// `[batch, size[0], size[1], channels]` from a 4-D image and a size.
fn resized(images: &PartialShape, size: [Option<usize>; 2]) -> PartialShape {
    let (n, c) = match images.dims() {
        Some(d) => (d[0], d[3]),
        None => (None, None),
    };
    PartialShape::from_dims([n, size[0], size[1], c])
}

/// `ScaleAndTranslate`'s and its gradient's sampling attrs (TF's defaults) and their
/// `scale` and `translation` inputs (two floats each).
fn scale_translate_attrs(ctx: &mut InferCtx<'_>) -> Result<()> {
    let kernel: String = ctx.attr("kernel_type")?.unwrap_or_else(|| "lanczos3".to_string());
    let antialias = ctx.attr_bool("antialias", true)?;
    ctx.attrs.insert("kernel_type".into(), AttrValue::S(kernel.into_bytes()));
    ctx.attrs.insert("antialias".into(), AttrValue::B(antialias));
    for i in [2, 3] {
        ctx.check_type(i, &[DType::Float32])?;
        ctx.check_rank(i, 1)?;
    }
    Ok(())
}

fn infer_scale_and_translate(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.check_type(0, REAL)?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.check_rank(0, 4)?;
    let size = size_dims(&ctx, 1)?;
    scale_translate_attrs(&mut ctx)?;
    Ok(vec![OutputSpec::new(DType::Float32, resized(&ctx.input(0).shape, size))])
}

fn infer_scale_and_translate_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Float32])?;
    ctx.check_type(1, &[DType::Float32])?;
    ctx.attrs.insert("T".into(), AttrValue::Type(DType::Float32));
    ctx.check_rank(0, 4)?;
    ctx.check_rank(1, 4)?;
    scale_translate_attrs(&mut ctx)?;
    Ok(vec![OutputSpec::new(DType::Float32, ctx.input(1).shape.clone())])
}

fn infer_resize(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.check_type(0, REAL)?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.check_rank(0, 4)?;
    let size = size_dims(&ctx, 1)?;
    ctx.attr_bool("align_corners", false)?;
    if ctx.def.name != "ResizeArea" {
        ctx.attr_bool("half_pixel_centers", false)?;
    }
    let out_type = if ctx.def.name == "ResizeNearestNeighbor" { t } else { DType::Float32 };
    Ok(vec![OutputSpec::new(out_type, resized(&ctx.input(0).shape, size))])
}

fn infer_resize_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Float32])?;
    ctx.check_type(1, GRAD_FLOATS)?;
    let t = ctx.input(1).dtype;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.check_rank(0, 4)?;
    ctx.check_rank(1, 4)?;
    ctx.attr_bool("align_corners", false)?;
    ctx.attr_bool("half_pixel_centers", false)?;
    let shape = match ctx.input(1).shape.rank() {
        Some(_) => ctx.input(1).shape.clone(),
        None => PartialShape::unknown_of_rank(4),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_resize_nn_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.check_type(
        0,
        &[DType::UInt8, DType::Int8, DType::Int32, DType::Float16, DType::Float32, DType::Float64, DType::BFloat16],
    )?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.check_rank(0, 4)?;
    let size = size_dims(&ctx, 1)?;
    ctx.attr_bool("align_corners", false)?;
    ctx.attr_bool("half_pixel_centers", false)?;
    Ok(vec![OutputSpec::new(t, resized(&ctx.input(0).shape, size))])
}

fn infer_colorspace(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, GRAD_FLOATS)?;
    rank_at_least(&ctx, 0, 1)?;
    if let Some(Some(last)) = ctx.input(0).shape.dims().and_then(|d| d.last().copied())
        && last != 3
    {
        return Err(Error::value(format!(
            "Dimension must be 3 but is {last} for '{}' (op: '{}') input '{}'",
            ctx.name,
            ctx.def.name,
            ctx.def.input_name(0)
        )));
    }
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

fn infer_adjust(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, &[DType::Float16, DType::Float32])?;
    ctx.check_type(1, &[DType::Float32])?;
    rank_at_least(&ctx, 0, 3)?;
    ctx.check_rank(1, 0)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

fn infer_decode(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::String])?;
    ctx.check_rank(0, 0)?;
    let op = ctx.def.name;
    let channels = if op == "DecodeGif" { 3 } else { ctx.attr_int("channels", 0)? };
    let dtype = match op {
        "DecodeJpeg" | "DecodeAndCropJpeg" => {
            ctx.attr_int("ratio", 1)?;
            ctx.attr_bool("fancy_upscaling", true)?;
            ctx.attr_bool("try_recover_truncated", false)?;
            ctx.attr_or("acceptable_fraction", 1.0f32)?;
            ctx.attr_or("dct_method", String::new())?;
            DType::UInt8
        }
        "DecodeGif" | "DecodeBmp" => DType::UInt8,
        _ => ctx.attr_or("dtype", DType::UInt8)?,
    };
    let allowed: &[DType] = match op {
        "DecodeJpeg" | "DecodeAndCropJpeg" | "DecodeGif" | "DecodeBmp" => &[DType::UInt8],
        "DecodePng" => &[DType::UInt8, DType::UInt16],
        _ => &[DType::UInt8, DType::UInt16, DType::Float32],
    };
    if !allowed.contains(&dtype) {
        let names: Vec<_> = allowed.iter().map(|a| a.name()).collect();
        return Err(Error::type_error(format!(
            "Value for attr 'dtype' of {dtype} is not in the list of allowed values: {}",
            names.join(", ")
        )));
    }
    let c = usize::try_from(channels).ok().filter(|&c| c > 0);
    let shape = if op == "DecodeGif" {
        PartialShape::from_dims([None, None, None, Some(3)])
    } else if op == "DecodeImage" && ctx.attr_bool("expand_animations", true)? {
        // TF's: a GIF would be 4-D, so the rank is unknown.
        PartialShape::unknown()
    } else if op == "DecodeAndCropJpeg" {
        // TF's: the window's height and width when it is a constant.
        let [h, w] = crop_size(&ctx)?;
        PartialShape::from_dims([h, w, c])
    } else {
        PartialShape::from_dims([None, None, c])
    };
    Ok(vec![OutputSpec::new(dtype, shape)])
}

/// `DecodeAndCropJpeg`'s `crop_window`: 1-D int32 of 4 elements; its height and width
/// when known.
fn crop_size(ctx: &InferCtx<'_>) -> Result<[Option<usize>; 2]> {
    check_vector(ctx, 1, 4)?;
    let window = ctx.constant_input(1).map(crate::framework::tensor_util::int_values).transpose()?;
    Ok(match window.as_deref() {
        Some(&[_, _, h, w]) => [usize::try_from(h).ok(), usize::try_from(w).ok()],
        _ => [None, None],
    })
}

fn infer_extract_jpeg_shape(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::String])?;
    ctx.check_rank(0, 0)?;
    let t = ctx.attr_or("output_type", DType::Int32)?;
    if ![DType::Int32, DType::Int64].contains(&t) {
        return Err(Error::type_error(format!(
            "Value for attr 'output_type' of {t} is not in the list of allowed values: int32, int64"
        )));
    }
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([Some(3)]))])
}

fn infer_encode(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    if ctx.def.name == "EncodePng" {
        ctx.check_type(0, &[DType::UInt8, DType::UInt16])?;
        let t = ctx.input(0).dtype;
        ctx.attrs.insert("T".into(), AttrValue::Type(t));
        ctx.attr_int("compression", -1)?;
    } else {
        ctx.check_type(0, &[DType::UInt8])?;
        ctx.attr_or("format", String::new())?;
        ctx.attr_int("quality", 95)?;
        ctx.attr_bool("progressive", false)?;
        ctx.attr_bool("optimize_size", false)?;
        ctx.attr_bool("chroma_downsampling", true)?;
        ctx.attr_or("density_unit", "in".to_string())?;
        ctx.attr_int("x_density", 300)?;
        ctx.attr_int("y_density", 300)?;
        ctx.attr_or("xmp_metadata", String::new())?;
    }
    ctx.check_rank(0, 3)?;
    Ok(vec![OutputSpec::new(DType::String, PartialShape::scalar())])
}

fn infer_reverse(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    let tidx = ctx.input(1).dtype;
    ctx.attrs.insert("Tidx".into(), AttrValue::Type(tidx));
    ctx.check_rank(1, 1)?;
    if let (Some(rank), Some(axes)) = (ctx.input(0).shape.rank(), ctx.constant_input(1)) {
        let rank = rank as i64;
        let mut seen = vec![false; rank as usize];
        for (i, &a) in crate::framework::tensor_util::int_values(axes)?.iter().enumerate() {
            let canonical = if a < 0 { a + rank } else { a };
            if !(0..rank).contains(&canonical) {
                return Err(Error::value(format!(
                    "'axis'[{i}] = {a} is out of valid range [0, {}] for '{}' (op: 'ReverseV2')",
                    rank - 1,
                    ctx.name
                )));
            }
            if std::mem::replace(&mut seen[canonical as usize], true) {
                return Err(Error::value(format!(
                    "axis {canonical} specified more than once. for '{}' (op: 'ReverseV2')",
                    ctx.name
                )));
            }
        }
    }
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

/// The non-max-suppression ops.
fn register_nms(r: &mut Registry) {
    const BOXES: [&str; 6] =
        ["boxes", "scores", "max_output_size", "iou_threshold", "score_threshold", "soft_nms_sigma"];
    let boxes: &'static [&'static str] = &BOXES;
    // As TF: V1, V2 and the overlaps form are marked not differentiable, the others
    // register nothing.
    r.add(OpDef::new("NonMaxSuppression", &boxes[..3], infer_nms));
    r.add(OpDef::new("NonMaxSuppressionV2", &boxes[..4], infer_nms));
    r.add(OpDef::new("NonMaxSuppressionV3", &boxes[..5], infer_nms));
    r.add(OpDef::new("NonMaxSuppressionV4", &boxes[..5], infer_nms));
    r.add(OpDef::new("NonMaxSuppressionV5", boxes, infer_nms));
    const OVERLAPS: [&str; 5] = ["overlaps", "scores", "max_output_size", "overlap_threshold", "score_threshold"];
    r.add(OpDef::new("NonMaxSuppressionWithOverlaps", &OVERLAPS, infer_nms));
}

/// TF's `NMSShapeFn` (and its V4/V5/overlaps forms): ranks, then the box count of
/// `boxes` (or both sides of `overlaps`) against `scores`, then 4 box columns.
fn infer_nms(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let op = ctx.def.name;
    let overlaps = op == "NonMaxSuppressionWithOverlaps";
    let ranks = [2usize, 1, 0, 0, 0, 0];
    for (i, &rank) in ranks.iter().enumerate().take(ctx.inputs.len()) {
        ctx.check_rank(i, rank)?;
    }
    let floats = [DType::Float16, DType::Float32];
    ctx.check_type(0, if overlaps { &[DType::Float32] } else { &floats })?;
    ctx.check_type(1, if overlaps { &[DType::Float32] } else { &floats })?;
    ctx.check_type(2, &[DType::Int32])?;
    if !overlaps && op != "NonMaxSuppression" {
        let t = ctx.same_type(&[0, 1])?;
        let thresholds: Vec<usize> = (3..ctx.inputs.len()).collect();
        if op == "NonMaxSuppressionV5" {
            // V5's thresholds and sigma are of the boxes' type.
            let all: Vec<usize> = [0].into_iter().chain(thresholds).collect();
            ctx.same_type(&all)?;
        } else {
            // TF's `T_threshold`: the thresholds' own float type.
            ctx.check_type(3, &floats)?;
            let tt = ctx.same_type(&thresholds)?;
            ctx.attrs.insert("T_threshold".into(), AttrValue::Type(tt));
        }
        ctx.attrs.insert("T".into(), AttrValue::Type(t));
    }
    if op == "NonMaxSuppression" {
        ctx.attr_or("iou_threshold", 0.5f32)?;
    }
    let dims = |i: usize| ctx.input(i).shape.dims().map(<[Option<usize>]>::to_vec);
    let (first, scores) = (dims(0), dims(1));
    let n = first.as_ref().and_then(|d| d[0]);
    let merge = |a: Option<usize>, b: Option<usize>| -> Result<()> {
        if let (Some(a), Some(b)) = (a, b)
            && a != b
        {
            return Err(Error::value(format!(
                "Dimensions must be equal, but are {a} and {b} for '{}' (op: '{op}') with input shapes: {}, {}.",
                ctx.name,
                ctx.input(0).shape,
                ctx.input(1).shape
            )));
        }
        Ok(())
    };
    if overlaps {
        merge(n, first.as_ref().and_then(|d| d[1]))?;
    }
    merge(n, scores.as_ref().and_then(|d| d[0]))?;
    if !overlaps
        && let Some(Some(c)) = first.as_ref().map(|d| d[1])
        && c != 4
    {
        return Err(Error::value(format!(
            "Dimension must be 4 but is {c} for '{}' (op: '{op}') with input shapes: {}, {}.",
            ctx.name,
            ctx.input(0).shape,
            ctx.input(1).shape
        )));
    }
    let padded = matches!(op, "NonMaxSuppressionV4" | "NonMaxSuppressionV5")
        && ctx.attr_bool("pad_to_max_output_size", false)?;
    let len = match ctx.constant_input(2).map(crate::framework::tensor_util::int_values) {
        Some(Ok(v)) if padded => v.first().and_then(|&m| usize::try_from(m).ok()),
        _ => None,
    };
    let selected = OutputSpec::new(DType::Int32, PartialShape::from_dims([len]));
    let valid = OutputSpec::new(DType::Int32, PartialShape::scalar());
    Ok(match op {
        "NonMaxSuppressionV4" => vec![selected, valid],
        "NonMaxSuppressionV5" => {
            let t = ctx.input(1).dtype;
            vec![selected, OutputSpec::new(t, PartialShape::from_dims([len])), valid]
        }
        _ => vec![selected],
    })
}

/// `SampleDistortedBoundingBox(V2)`: `begin` and `size` (3 of `image_size`'s type) and
/// the crop as one box, `[1, 1, 4]`; not differentiable.
fn infer_sample_box(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64])?;
    ctx.check_type(1, &[DType::Float32])?;
    let t = ctx.input(0).dtype;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.check_rank(0, 1)?;
    ctx.check_rank(1, 3)?;
    if let Some(&[Some(n)]) = ctx.input(0).shape.dims()
        && n != 3
    {
        return Err(Error::value(format!(
            "Dimension must be 3 but is {n} for '{}' (op: '{}')",
            ctx.name, ctx.def.name
        )));
    }
    if let Some(&[_, _, Some(c)]) = ctx.input(1).shape.dims()
        && c != 4
    {
        return Err(Error::value(format!(
            "Dimension must be 4 but is {c} for '{}' (op: '{}')",
            ctx.name, ctx.def.name
        )));
    }
    if ctx.def.name == "SampleDistortedBoundingBoxV2" {
        ctx.check_type(2, &[DType::Float32])?;
        ctx.check_rank(2, 0)?;
    } else {
        ctx.attr_or("min_object_covered", 0.1f32)?;
    }
    ctx.attr_int("seed", 0)?;
    ctx.attr_int("seed2", 0)?;
    ctx.attr_or("aspect_ratio_range", vec![0.75f32, 1.33])?;
    ctx.attr_or("area_range", vec![0.05f32, 1.0])?;
    ctx.attr_int("max_attempts", 100)?;
    ctx.attr_bool("use_image_if_no_bounding_boxes", false)?;
    Ok(vec![
        OutputSpec::new(t, PartialShape::from_dims([Some(3)])),
        OutputSpec::new(t, PartialShape::from_dims([Some(3)])),
        OutputSpec::new(DType::Float32, PartialShape::from_dims([Some(1), Some(1), Some(4)])),
    ])
}

/// `CropAndResize` (`[boxes, crop_height, crop_width, depth]` float) and its gradients
/// (the image's shape, of type `T`; the boxes' `[boxes, 4]`).
fn infer_crop_and_resize(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let op = ctx.def.name;
    let method = ctx.attr_or("method", "bilinear".to_string())?;
    let (boxes_i, image_i) = match op {
        "CropAndResizeGradBoxes" => (2, Some(1)),
        "CropAndResize" => (1, Some(0)),
        _ => (1, None),
    };
    ctx.check_rank(boxes_i, 2)?;
    ctx.check_rank(boxes_i + 1, 1)?;
    ctx.check_type(boxes_i, &[DType::Float32])?;
    ctx.check_type(boxes_i + 1, &[DType::Int32])?;
    if let Some(i) = image_i {
        ctx.check_rank(i, 4)?;
        ctx.check_type(i, super::math::NUMERIC)?;
        let t = ctx.input(i).dtype;
        ctx.attrs.insert("T".into(), AttrValue::Type(t));
    }
    if op == "CropAndResize" {
        if !["bilinear", "nearest"].contains(&method.as_str()) {
            return Err(Error::value(format!("method must be 'bilinear' or 'nearest', got {method}")));
        }
        ctx.attr_or("extrapolation_value", 0.0f32)?;
        ctx.check_rank(3, 1)?;
        let crop = match ctx.constant_input(3).map(crate::framework::tensor_util::int_values) {
            Some(Ok(v)) if v.len() == 2 => [usize::try_from(v[0]).ok(), usize::try_from(v[1]).ok()],
            _ => [None, None],
        };
        let n = ctx.input(1).shape.dims().and_then(|d| d[0]);
        let depth = ctx.input(0).shape.dims().and_then(|d| d[3]);
        return Ok(vec![OutputSpec::new(DType::Float32, PartialShape::from_dims([n, crop[0], crop[1], depth]))]);
    }
    ctx.check_rank(0, 4)?;
    ctx.check_type(0, &[DType::Float32])?;
    if op == "CropAndResizeGradBoxes" {
        let n = ctx.input(2).shape.dims().and_then(|d| d[0]);
        return Ok(vec![OutputSpec::new(DType::Float32, PartialShape::from_dims([n, Some(4)]))]);
    }
    let t = ctx.attr_type("T")?;
    Ok(vec![OutputSpec::new(t, shape_input(&ctx, 3, "image_size")?)])
}
