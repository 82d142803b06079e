//! TF-1.x conditional control flow: `Switch` routes a value to one of two outputs
//! (the other is dead), `Merge` forwards whichever of its inputs is alive. The
//! executor propagates deadness (see `executor::run_inline_cf`), so only the ops of
//! the taken branch of a `tf.cond` run.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

/// Op types the executor treats as routing values (`Switch`, `RefSwitch`).
pub(crate) const SWITCH_OPS: &[&str] = &["Switch", "RefSwitch"];
/// Op types that forward their one live input.
pub(crate) const MERGE_OPS: &[&str] = &["Merge"];

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Switch", &["data", "pred"], infer_switch));
    r.add(OpDef::new("RefSwitch", &["data", "pred"], infer_switch).refs(&[0]));
    r.add(OpDef::new("Merge", &["inputs"], infer_merge).variadic());
}

fn infer_switch(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let pred = ctx.input(1);
    if pred.dtype != DType::Bool {
        return Err(Error::type_error(format!(
            "Input 'pred' of '{}' Op has type {} that does not match expected type of bool.",
            ctx.def.name, pred.dtype
        )));
    }
    if let Some(r) = pred.shape.rank()
        && r != 0
    {
        return Err(Error::value(format!(
            "Shape must be rank 0 but is rank {r} for '{{{{node {}}}}} = {}[T=DT_{}](...)' with input shapes: {}, {}.",
            ctx.name,
            ctx.def.name,
            ctx.input(0).dtype.to_string().to_uppercase(),
            ctx.input(0).shape,
            pred.shape
        )));
    }
    let data = ctx.input(0).clone();
    ctx.attrs.insert("T".into(), AttrValue::Type(data.dtype));
    let is_ref = ctx.def.name == "RefSwitch" && data.is_ref;
    let out = OutputSpec { dtype: data.dtype, shape: data.shape, is_ref };
    Ok(vec![out.clone(), out])
}

/// TF's `MergeShape`: the inputs' shape where they agree, unknown dims where they do
/// not, unknown rank where ranks differ.
fn infer_merge(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let first = ctx.input(0).clone();
    let mut dims = first.shape.dims().map(<[_]>::to_vec);
    for (i, s) in ctx.inputs.iter().enumerate().skip(1) {
        if s.dtype != first.dtype {
            return Err(Error::type_error(format!(
                "Input 'inputs' of '{}' Op has type {} at position {i} that does not match type {} of the first.",
                ctx.def.name, s.dtype, first.dtype
            )));
        }
        dims = match (dims, s.shape.dims()) {
            (Some(a), Some(b)) if a.len() == b.len() => {
                Some(a.iter().zip(b).map(|(x, y)| if x == y { *x } else { None }).collect())
            }
            _ => None,
        };
    }
    let shape = match dims {
        Some(d) => PartialShape::from_dims(d),
        None => PartialShape::unknown(),
    };
    let n = i64::try_from(ctx.inputs.len()).unwrap_or(i64::MAX);
    ctx.attrs.insert("T".into(), AttrValue::Type(first.dtype));
    ctx.attrs.insert("N".into(), AttrValue::I(n));
    Ok(vec![OutputSpec::new(first.dtype, shape), OutputSpec::new(DType::Int32, PartialShape::scalar())])
}
