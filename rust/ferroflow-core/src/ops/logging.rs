//! TF's logging ops: `Assert` (fails the step with its data summarised when the
//! condition is false) and `Print` (passes its input through, writing its data to
//! standard error).
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Assert", &["condition", "data"], infer_assert).variadic_or_empty().stateful());
    r.add(OpDef::new("Print", &["input", "data"], infer_print).variadic_or_empty().stateful());
}

/// Records the `data` inputs' types as the list attr `attr`.
fn data_types(ctx: &mut InferCtx<'_>, attr: &str) {
    let types: Vec<DType> = ctx.inputs[1..].iter().map(|s| s.dtype).collect();
    ctx.attrs.insert(attr.into(), AttrValue::ListType(types));
}

fn infer_assert(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let cond = ctx.input(0);
    if cond.dtype != DType::Bool {
        return Err(Error::type_error(format!(
            "Input 'condition' of 'Assert' Op has type {} that does not match expected type of bool.",
            cond.dtype
        )));
    }
    ctx.check_rank(0, 0)?;
    data_types(&mut ctx, "T");
    ctx.attrs.entry("summarize".into()).or_insert(AttrValue::I(3));
    Ok(vec![])
}

fn infer_print(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let input = ctx.input(0).clone();
    ctx.attrs.insert("T".into(), AttrValue::Type(input.dtype));
    data_types(&mut ctx, "U");
    ctx.attrs.entry("message".into()).or_insert_with(|| AttrValue::S(Vec::new()));
    ctx.attrs.entry("first_n".into()).or_insert(AttrValue::I(-1));
    ctx.attrs.entry("summarize".into()).or_insert(AttrValue::I(3));
    Ok(vec![input])
}
