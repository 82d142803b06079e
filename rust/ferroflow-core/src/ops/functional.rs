//! The functional loop `While` (TF-2's form of `tf.while_loop`) and its gradient op
//! `_WhileGrad`. The loop's cond and body are sub-graphs of the same graph: nodes
//! whose only outside inputs are the tensors the op feeds them (its `_feeds` attr: the
//! loop variables' placeholders, then the captured outer tensors). The kernels
//! (`kernels::functional`) compile them into sub-plans once per plan and run them in
//! a loop on the executor's run loop, so no host-language callback is involved.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    // Gradients: `While`'s is registered in Python (it differentiates the body
    // sub-graph with `tf.gradients`); `_WhileGrad` has none (no second order).
    r.add(OpDef::new("While", &["input"], infer_while).variadic().stateful());
    r.add(OpDef::new("_WhileGrad", &["input"], infer_while_grad).variadic().stateful());
}

/// The forward loop's attrs, checked against its inputs.
fn check_loop_attrs(ctx: &InferCtx<'_>, n_inputs: usize) -> Result<usize> {
    let feeds: Vec<Vec<u8>> = ctx.required_attr("_feeds")?;
    let body: Vec<Vec<u8>> = ctx.required_attr("_body")?;
    ctx.required_attr::<Vec<u8>>("_cond")?;
    if feeds.len() != n_inputs {
        return Err(Error::value(format!(
            "{} '{}' has {n_inputs} loop inputs but feeds {} sub-graph tensors",
            ctx.def.name,
            ctx.name,
            feeds.len()
        )));
    }
    if body.is_empty() || body.len() > n_inputs {
        return Err(Error::value(format!(
            "{} '{}' has {} body outputs for {n_inputs} inputs",
            ctx.def.name,
            ctx.name,
            body.len()
        )));
    }
    Ok(body.len())
}

/// One output per input (captured tensors pass through unchanged, as TF-2's `While`),
/// typed as the input and shaped as `output_shapes` (the shape invariants).
fn infer_while(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let n = ctx.inputs.len();
    check_loop_attrs(&ctx, n)?;
    let shapes: Vec<PartialShape> = match ctx.attr::<Vec<PartialShape>>("output_shapes")? {
        Some(s) if !s.is_empty() => s,
        _ => ctx.inputs.iter().map(|s| s.shape.clone()).collect(),
    };
    if shapes.len() != n {
        return Err(Error::value(format!("While '{}' has {n} inputs but {} output_shapes", ctx.name, shapes.len())));
    }
    let types: Vec<DType> = ctx.inputs.iter().map(|s| s.dtype).collect();
    ctx.attrs.insert("T".into(), AttrValue::ListType(types.clone()));
    ctx.attrs.insert("output_shapes".into(), AttrValue::ListShape(shapes.clone()));
    if !ctx.attrs.contains_key("parallel_iterations") {
        ctx.attrs.insert("parallel_iterations".into(), AttrValue::I(10));
    }
    Ok(types.into_iter().zip(shapes).map(|(t, s)| OutputSpec::new(t, s)).collect())
}

/// Inputs: the forward loop's inputs, then one incoming gradient per differentiated
/// input (`_diff`, indices into the forward inputs); outputs: one gradient per
/// differentiated input, shaped as that input.
fn infer_while_grad(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let diff: Vec<i64> = ctx.required_attr("_diff")?;
    let n_fwd =
        ctx.inputs.len().checked_sub(diff.len()).ok_or_else(|| Error::value("_WhileGrad has too few inputs"))?;
    check_loop_attrs(&ctx, n_fwd)?;
    let grad_feeds: Vec<Vec<u8>> = ctx.required_attr("_grad_feeds")?;
    let grad_fetches: Vec<Vec<u8>> = ctx.required_attr("_grad_fetches")?;
    if grad_feeds.len() != diff.len() || grad_fetches.len() != diff.len() {
        return Err(Error::value(format!(
            "_WhileGrad '{}' differentiates {} inputs with {} gradient feeds and {} fetches",
            ctx.name,
            diff.len(),
            grad_feeds.len(),
            grad_fetches.len()
        )));
    }
    let mut out = Vec::with_capacity(diff.len());
    for (j, &d) in diff.iter().enumerate() {
        let i = usize::try_from(d)
            .ok()
            .filter(|&i| i < n_fwd)
            .ok_or_else(|| Error::value(format!("_WhileGrad '{}': differentiated input {d} out of range", ctx.name)))?;
        let spec = ctx.input(i);
        if ctx.input(n_fwd + j).dtype != spec.dtype {
            return Err(Error::type_error(format!(
                "_WhileGrad '{}': the gradient of input {i} is {}, the input {}",
                ctx.name,
                ctx.input(n_fwd + j).dtype,
                spec.dtype
            )));
        }
        out.push(OutputSpec::new(spec.dtype, spec.shape.clone()));
    }
    let types: Vec<DType> = ctx.inputs.iter().map(|s| s.dtype).collect();
    ctx.attrs.insert("T".into(), AttrValue::ListType(types));
    Ok(out)
}
