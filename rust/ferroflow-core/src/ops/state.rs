//! Variable ops (TF-1.x reference variables): `VariableV2`, `Assign`, `AssignAdd`,
//! `AssignSub`, `ScatterUpdate`/`ScatterAdd`/`ScatterSub`, `IsVariableInitialized`.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("VariableV2", &[], infer_variable).stateful());
    r.add(OpDef::new("Assign", &["ref", "value"], infer_assign).refs(&[0]).stateful());
    r.add(OpDef::new("AssignAdd", &["ref", "value"], infer_assign).refs(&[0]).stateful());
    r.add(OpDef::new("AssignSub", &["ref", "value"], infer_assign).refs(&[0]).stateful());
    // As TF's registry: ScatterAdd/ScatterSub are not differentiable, ScatterUpdate
    // has no gradient at all (a path through it is a LookupError).
    for name in ["ScatterUpdate", "ScatterAdd", "ScatterSub"] {
        r.add(OpDef::new(name, &["ref", "indices", "updates"], infer_scatter).refs(&[0]).stateful());
    }
    r.add(OpDef::new("CountUpTo", &["ref"], infer_count_up_to).refs(&[0]).stateful());
    r.add(OpDef::new("IsVariableInitialized", &["ref"], infer_is_initialized).refs(&[0]).stateful());
}

fn infer_variable(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let dtype = ctx.attr_type("dtype")?;
    let shape = ctx.attr_shape("shape")?;
    for k in ["container", "shared_name"] {
        ctx.attrs.entry(k.into()).or_insert_with(|| AttrValue::S(Vec::new()));
    }
    ctx.attrs.insert("shape".into(), AttrValue::Shape(shape.clone()));
    Ok(vec![OutputSpec { dtype, shape, is_ref: true }])
}

fn infer_assign(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    let is_assign = ctx.def.name == "Assign";
    let validate = if is_assign { ctx.attr_bool("validate_shape", true)? } else { true };
    ctx.attr_bool("use_locking", is_assign)?;
    let (r, v) = (&ctx.input(0).shape, &ctx.input(1).shape);
    let shape = if validate {
        r.merge(v).map_err(|_| {
            Error::value(format!("Shapes {r} and {v} are incompatible for '{}' (op: '{}')", ctx.name, ctx.def.name))
        })?
    } else {
        v.clone()
    };
    Ok(vec![OutputSpec { dtype: t, shape, is_ref: true }])
}

fn infer_scatter(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 2])?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    ctx.attrs.insert("Tindices".into(), AttrValue::Type(ctx.input(1).dtype));
    ctx.attr_bool("use_locking", ctx.def.name == "ScatterUpdate")?;
    let (var, ids, upd) = (&ctx.input(0).shape, &ctx.input(1).shape, &ctx.input(2).shape);
    if let (Some(v), Some(i), Some(u)) = (var.dims(), ids.dims(), upd.dims()) {
        let want: Vec<_> = i.iter().chain(v.iter().skip(1)).copied().collect();
        let ok = !v.is_empty()
            && u.len() == want.len()
            && u.iter().zip(&want).all(|(a, b)| a.is_none() || b.is_none() || a == b);
        if !ok {
            return Err(Error::value(format!(
                "Shapes must be equal: updates {upd} must be indices {ids} + ref {var}[1:] for '{}' (op: '{}')",
                ctx.name, ctx.def.name
            )));
        }
    }
    Ok(vec![OutputSpec { dtype: t, shape: var.clone(), is_ref: true }])
}

fn infer_count_up_to(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.check_type(0, &[DType::Int32, DType::Int64])?;
    ctx.check_rank(0, 0)?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    if !matches!(ctx.attrs.get("limit"), Some(AttrValue::I(_))) {
        return Err(Error::value(format!("CountUpTo op '{}' needs an int attr 'limit'", ctx.name)));
    }
    Ok(vec![OutputSpec::new(t, PartialShape::scalar())])
}

fn infer_is_initialized(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.attrs.insert("dtype".into(), AttrValue::Type(ctx.input(0).dtype));
    Ok(vec![OutputSpec::new(DType::Bool, PartialShape::scalar())])
}
