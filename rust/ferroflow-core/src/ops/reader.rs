//! Reader ops (TF's resource-handle `V2` forms): `TFRecordReaderV2`,
//! `FixedLengthRecordReaderV2`, `TextLineReaderV2`, `WholeFileReaderV2`,
//! `IdentityReaderV2`, and the ops that take a reader handle: `ReaderReadV2`,
//! `ReaderReadUpToV2`, `ReaderNumRecordsProducedV2`, `ReaderNumWorkUnitsCompletedV2`,
//! `ReaderResetV2`, `ReaderSerializeStateV2` and `ReaderRestoreStateV2`.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    for name in
        ["TFRecordReaderV2", "FixedLengthRecordReaderV2", "TextLineReaderV2", "WholeFileReaderV2", "IdentityReaderV2"]
    {
        r.add(OpDef::new(name, &[], infer_reader).stateful());
    }
    r.add(OpDef::new("ReaderReadV2", &["reader_handle", "queue_handle"], infer_read).stateful());
    r.add(OpDef::new("ReaderReadUpToV2", &["reader_handle", "queue_handle", "num_records"], infer_read).stateful());
    for name in ["ReaderNumRecordsProducedV2", "ReaderNumWorkUnitsCompletedV2"] {
        r.add(OpDef::new(name, &["reader_handle"], infer_count).stateful());
    }
    r.add(OpDef::new("ReaderResetV2", &["reader_handle"], infer_none).stateful());
    r.add(OpDef::new("ReaderSerializeStateV2", &["reader_handle"], infer_serialize).stateful());
    r.add(OpDef::new("ReaderRestoreStateV2", &["reader_handle", "state"], infer_restore).stateful());
}

fn infer_reader(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    match ctx.def.name {
        "TFRecordReaderV2" => {
            ctx.attr_or("compression_type", String::new())?;
        }
        "FixedLengthRecordReaderV2" => {
            ctx.required_attr::<i64>("record_bytes")?;
            for k in ["header_bytes", "footer_bytes", "hop_bytes"] {
                ctx.attr_int(k, 0)?;
            }
            ctx.attr_or("encoding", String::new())?;
        }
        "TextLineReaderV2" => {
            ctx.attr_int("skip_header_lines", 0)?;
        }
        _ => {}
    }
    for k in ["container", "shared_name"] {
        ctx.attrs.entry(k.into()).or_insert_with(|| AttrValue::S(Vec::new()));
    }
    Ok(vec![OutputSpec::new(DType::Resource, PartialShape::scalar())])
}

fn check_handle(ctx: &InferCtx<'_>, i: usize) -> Result<()> {
    let h = ctx.input(i);
    if h.dtype != DType::Resource {
        return Err(Error::type_error(format!(
            "Input '{}' of '{}' Op has type {} that does not match expected type of resource.",
            ctx.def.input_name(i),
            ctx.def.name,
            h.dtype
        )));
    }
    Ok(())
}

fn infer_read(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx, 0)?;
    check_handle(&ctx, 1)?;
    let shape = if ctx.inputs.len() > 2 {
        ctx.check_type(2, &[DType::Int64])?;
        ctx.check_rank(2, 0)?;
        PartialShape::from_dims(vec![None])
    } else {
        PartialShape::scalar()
    };
    Ok(vec![OutputSpec::new(DType::String, shape.clone()), OutputSpec::new(DType::String, shape)])
}

fn infer_count(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx, 0)?;
    Ok(vec![OutputSpec::new(DType::Int64, PartialShape::scalar())])
}

fn infer_none(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx, 0)?;
    Ok(vec![])
}

fn infer_serialize(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx, 0)?;
    Ok(vec![OutputSpec::new(DType::String, PartialShape::scalar())])
}

fn infer_restore(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx, 0)?;
    ctx.check_type(1, &[DType::String])?;
    ctx.check_rank(1, 0)?;
    Ok(vec![])
}
