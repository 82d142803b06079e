//! TF's script ops `PyFunc` and `PyFuncStateless`: a node whose kernel calls a function
//! of the host language registered under its `token` attr (through [`crate::host`]).
//! Not differentiable, as in TF (`ops.NotDifferentiable("PyFunc")`).
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("PyFunc", &["input"], infer_py_func).variadic_or_empty().stateful());
    r.add(OpDef::new("PyFuncStateless", &["input"], infer_py_func).variadic_or_empty());
}

/// Records `Tin` from the inputs; one output of unknown shape per `Tout` entry.
fn infer_py_func(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.required_attr::<Vec<u8>>("token")?;
    let tout: Vec<DType> = ctx.required_attr("Tout")?;
    if let Some(t) = tout.iter().find(|t| matches!(**t, DType::Resource | DType::Variant)) {
        return Err(Error::type_error(format!("{} '{}' cannot return a {t} value", ctx.def.name, ctx.name)));
    }
    let tin: Vec<DType> = ctx.inputs.iter().map(|s| s.dtype).collect();
    ctx.attrs.insert("Tin".into(), AttrValue::ListType(tin));
    // An empty list arrives kindless; store it as the list of types it is.
    ctx.attrs.insert("Tout".into(), AttrValue::ListType(tout.clone()));
    Ok(tout.into_iter().map(|t| OutputSpec::new(t, PartialShape::unknown())).collect())
}
