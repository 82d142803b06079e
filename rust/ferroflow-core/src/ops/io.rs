//! Checkpoint ops: `SaveV2` writes tensors to a V2 checkpoint (TF's tensor bundle,
//! `ferroflow_io::bundle`), `RestoreV2` reads them back. Being ops, saving and
//! restoring run wherever the session runs its graph. A non-empty
//! `shape_and_slices` entry saves or restores a slice of a partitioned variable.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, OutputSpec};
use crate::kernels::io as k;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    r.add(
        OpDef::new("SaveV2", &["prefix", "tensor_names", "shape_and_slices", "tensors"], infer_save, k::save_kernel)
            .variadic()
            .stateful(),
    );
    r.add(
        OpDef::new("RestoreV2", &["prefix", "tensor_names", "shape_and_slices"], infer_restore, k::restore_kernel)
            .stateful(),
    );
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
