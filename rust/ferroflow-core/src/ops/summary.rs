//! TF-1.x summary ops: each returns a serialized `Summary` protocol buffer as a
//! string scalar (`ScalarSummary`, `HistogramSummary`, `ImageSummary`,
//! `AudioSummaryV2`, `MergeSummary`). The encoders (histogram buckets, PNG, WAV)
//! live in `ferroflow-io`. And the summary writer resource's ops (`SummaryWriter`,
//! `CreateSummaryFileWriter`, `ImportEvent`, `WriteScalarSummary`, ...), which write
//! events from the graph (`tf.contrib.summary`, `FileWriter(session=...)`).
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

/// The summary writer ops and their inputs (one kernel serves them all).
pub(crate) const WRITER_OPS: [(&str, &[&str]); 8] = [
    ("CreateSummaryFileWriter", &["writer", "logdir", "max_queue", "flush_millis", "filename_suffix"]),
    ("FlushSummaryWriter", &["writer"]),
    ("CloseSummaryWriter", &["writer"]),
    ("ImportEvent", &["writer", "event"]),
    ("WriteScalarSummary", &["writer", "step", "tag", "value"]),
    ("WriteSummary", &["writer", "step", "tensor", "tag", "summary_metadata"]),
    ("WriteRawProtoSummary", &["writer", "step", "tensor"]),
    ("WriteGraphSummary", &["writer", "step", "tensor"]),
];

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("ScalarSummary", &["tags", "values"], infer_scalar));
    r.add(OpDef::new("HistogramSummary", &["tag", "values"], infer_histogram));
    r.add(OpDef::new("ImageSummary", &["tag", "tensor"], infer_image));
    r.add(OpDef::new("AudioSummaryV2", &["tag", "tensor", "sample_rate"], infer_audio));
    r.add(OpDef::new("MergeSummary", &["inputs"], infer_merge).variadic());
    // As TF, the writer ops register no gradient.
    r.add(OpDef::new("SummaryWriter", &[], infer_summary_writer).stateful());
    for (name, inputs) in WRITER_OPS {
        r.add(OpDef::new(name, inputs, infer_writer_op).stateful());
    }
}

fn infer_summary_writer(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    for k in ["container", "shared_name"] {
        ctx.attrs.entry(k.into()).or_insert_with(|| crate::framework::attr::AttrValue::S(Vec::new()));
    }
    Ok(vec![OutputSpec::new(DType::Resource, PartialShape::scalar())])
}

/// The writer ops: a resource handle, then their typed inputs (TF's OpDefs); no outputs.
fn infer_writer_op(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Resource])?;
    let (s, i32_, i64_) = (&[DType::String][..], &[DType::Int32][..], &[DType::Int64][..]);
    let typed: &[(usize, &[DType])] = match ctx.def.name {
        "CreateSummaryFileWriter" => &[(1, s), (2, i32_), (3, i32_), (4, s)],
        "ImportEvent" => &[(1, s)],
        "WriteScalarSummary" => &[(1, i64_), (2, s), (3, super::math::NUMERIC)],
        "WriteSummary" => &[(1, i64_), (3, s), (4, s)],
        "WriteRawProtoSummary" | "WriteGraphSummary" => &[(1, i64_), (2, s)],
        _ => &[],
    };
    for &(i, allowed) in typed {
        ctx.check_type(i, allowed)?;
    }
    let t = match ctx.def.name {
        "WriteScalarSummary" => Some(ctx.input(3).dtype),
        "WriteSummary" => Some(ctx.input(2).dtype),
        _ => None,
    };
    if let Some(t) = t {
        ctx.attrs.insert("T".into(), crate::framework::attr::AttrValue::Type(t));
    }
    Ok(vec![])
}

fn string_scalar() -> Vec<OutputSpec> {
    vec![OutputSpec::new(DType::String, PartialShape::scalar())]
}

fn check_string(ctx: &InferCtx<'_>, i: usize) -> Result<()> {
    ctx.check_type(i, &[DType::String])
}

fn infer_scalar(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_string(&ctx, 0)?;
    ctx.check_type(1, super::math::NUMERIC)?;
    let t = ctx.input(1).dtype;
    ctx.attrs.insert("T".into(), crate::framework::attr::AttrValue::Type(t));
    Ok(string_scalar())
}

fn infer_histogram(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_string(&ctx, 0)?;
    ctx.check_rank(0, 0)?;
    ctx.check_type(1, super::math::NUMERIC)?;
    let t = ctx.input(1).dtype;
    ctx.attrs.insert("T".into(), crate::framework::attr::AttrValue::Type(t));
    Ok(string_scalar())
}

fn infer_image(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_string(&ctx, 0)?;
    ctx.check_rank(0, 0)?;
    ctx.check_type(1, &[DType::UInt8, DType::Float32, DType::Float64])?;
    ctx.check_rank(1, 4)?;
    let t = ctx.input(1).dtype;
    ctx.attrs.insert("T".into(), crate::framework::attr::AttrValue::Type(t));
    if ctx.attr_int("max_images", 3)? < 1 {
        return Err(Error::value(format!("Attr 'max_images' of 'ImageSummary' Op must be >= 1 ({})", ctx.name)));
    }
    Ok(string_scalar())
}

fn infer_audio(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_string(&ctx, 0)?;
    ctx.check_rank(0, 0)?;
    ctx.check_type(1, &[DType::Float32])?;
    ctx.check_type(2, &[DType::Float32])?;
    ctx.check_rank(2, 0)?;
    if let Some(r) = ctx.input(1).shape.rank()
        && !(r == 2 || r == 3)
    {
        return Err(Error::value(format!(
            "Shape must be rank 2 or 3 but is rank {r} for '{}' (op: 'AudioSummaryV2') input 'tensor'",
            ctx.name
        )));
    }
    if ctx.attr_int("max_outputs", 3)? < 1 {
        return Err(Error::value(format!("Attr 'max_outputs' of 'AudioSummaryV2' Op must be >= 1 ({})", ctx.name)));
    }
    Ok(string_scalar())
}

fn infer_merge(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    for i in 0..ctx.inputs.len() {
        check_string(&ctx, i)?;
    }
    let n = ctx.inputs.len() as i64;
    ctx.attrs.insert("N".into(), crate::framework::attr::AttrValue::I(n));
    Ok(string_scalar())
}
