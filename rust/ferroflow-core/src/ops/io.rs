//! Checkpoint ops: `SaveV2` writes tensors to a V2 checkpoint (TF's tensor bundle,
//! `ferroflow_io::bundle`), `RestoreV2` reads them back. Being ops, saving and
//! restoring run wherever the session runs its graph. A non-empty
//! `shape_and_slices` entry saves or restores a slice of a partitioned variable.
//! A sharded save names its parts with `ShardedFilename` and joins them with
//! `MergeV2Checkpoints`.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    r.add(
        OpDef::new("SaveV2", &["prefix", "tensor_names", "shape_and_slices", "tensors"], infer_save)
            .variadic()
            .stateful(),
    );
    r.add(OpDef::new("RestoreV2", &["prefix", "tensor_names", "shape_and_slices"], infer_restore).stateful());
    // V1 checkpoints (TF's tensor-slice files): written by `SaveSlices`/`Save`, read by
    // `RestoreV2` (which falls back to V1, as TF's) and TF-1.0's `Restore`/`RestoreSlice`.
    let slices = &["filename", "tensor_names", "shapes_and_slices", "data"];
    r.add(OpDef::new("SaveSlices", slices, infer_save_v1).variadic().stateful());
    r.add(OpDef::new("Save", &["filename", "tensor_names", "data"], infer_save_v1).variadic().stateful());
    r.add(OpDef::new("Restore", &["file_pattern", "tensor_name"], infer_restore_one).stateful());
    let one = &["file_pattern", "tensor_name", "shape_and_slice"];
    r.add(OpDef::new("RestoreSlice", one, infer_restore_one).stateful());
    // A sharded save's names and its merge (TF's sharded `Saver` graph).
    r.add(OpDef::new("ShardedFilename", &["basename", "shard", "num_shards"], infer_sharded));
    r.add(OpDef::new("ShardedFilespec", &["basename", "num_shards"], infer_sharded));
    let merge = &["checkpoint_prefixes", "destination_prefix"];
    r.add(OpDef::new("MergeV2Checkpoints", merge, infer_merge).stateful());
}

fn infer_save_v1(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let first = if ctx.def.name == "SaveSlices" { 3 } else { 2 };
    for i in 0..first {
        ctx.check_type(i, &[DType::String])?;
    }
    ctx.check_rank(0, 0)?;
    let types: Vec<DType> = ctx.inputs[first..].iter().map(|s| s.dtype).collect();
    ctx.attrs.insert("T".into(), AttrValue::ListType(types));
    Ok(vec![])
}

fn infer_restore_one(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    for i in 0..ctx.inputs.len() {
        ctx.check_type(i, &[DType::String])?;
        ctx.check_rank(i, 0)?;
    }
    let dt = ctx.attr_type("dt")?;
    ctx.attr_int("preferred_shard", -1)?;
    Ok(vec![OutputSpec::new(dt, PartialShape::unknown())])
}

fn infer_sharded(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::String])?;
    for i in 1..ctx.inputs.len() {
        ctx.check_type(i, &[DType::Int32])?;
    }
    Ok(vec![OutputSpec::new(DType::String, PartialShape::scalar())])
}

fn infer_merge(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::String])?;
    ctx.check_type(1, &[DType::String])?;
    ctx.check_rank(1, 0)?;
    ctx.attr_bool("delete_old_dirs", true)?;
    Ok(vec![])
}

fn check_names(ctx: &InferCtx<'_>) -> Result<()> {
    for i in 0..3 {
        ctx.check_type(i, &[DType::String])?;
    }
    ctx.check_rank(0, 0)?;
    ctx.check_rank(1, 1)?;
    ctx.check_rank(2, 1)
}

fn infer_save(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_names(&ctx)?;
    let types: Vec<DType> = ctx.inputs[3..].iter().map(|s| s.dtype).collect();
    ctx.attrs.insert("dtypes".into(), AttrValue::ListType(types));
    Ok(vec![])
}

/// The dtypes a `RestoreV2` node restores (its `dtypes` attr; none when absent).
pub(crate) fn restore_types(attrs: &std::collections::BTreeMap<String, AttrValue>) -> Vec<DType> {
    match attrs.get("dtypes") {
        Some(AttrValue::ListType(t)) => t.clone(),
        _ => Vec::new(),
    }
}

fn infer_restore(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_names(&ctx)?;
    let types = restore_types(ctx.attrs);
    if types.is_empty() {
        return Err(Error::value(format!("RestoreV2 '{}' needs a non-empty list attr 'dtypes'", ctx.name)));
    }
    Ok(types.into_iter().map(|t| OutputSpec::new(t, PartialShape::unknown())).collect())
}
