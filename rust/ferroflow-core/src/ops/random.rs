//! Random ops (TF's `random_ops`): stateful, seeded by the `seed`/`seed2` attrs that
//! the Python layer derives from the graph- and op-level seeds, never differentiable.
use super::array::shape_input;
use super::math::FLOATS;
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

const INDEX_TYPES: &[DType] = &[DType::Int32, DType::Int64];

pub(crate) fn register(r: &mut Registry) {
    for name in ["RandomUniform", "RandomStandardNormal", "TruncatedNormal"] {
        r.add(OpDef::new(name, &["shape"], infer_float_random).stateful());
    }
    r.add(OpDef::new("RandomUniformInt", &["shape", "minval", "maxval"], infer_random_int).stateful());
    r.add(OpDef::new("RandomShuffle", &["value"], infer_shuffle).stateful());
    r.add(OpDef::new("Multinomial", &["logits", "num_samples"], infer_multinomial).stateful());
}

/// Records the seed attrs with TF's defaults.
fn seeds(ctx: &mut InferCtx<'_>) {
    for name in ["seed", "seed2"] {
        ctx.attrs.entry(name.into()).or_insert(AttrValue::I(0));
    }
}

fn infer_float_random(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, INDEX_TYPES)?;
    ctx.attrs.insert("T".into(), AttrValue::Type(ctx.input(0).dtype));
    let dtype = ctx.attr_type("dtype")?;
    if !FLOATS.contains(&dtype) {
        return Err(Error::type_error(format!(
            "Value for attr 'dtype' of {dtype} is not in the list of allowed values: half, bfloat16, float, double"
        )));
    }
    seeds(&mut ctx);
    Ok(vec![OutputSpec::new(dtype, shape_input(&ctx, 0, "shape")?)])
}

fn infer_random_int(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, INDEX_TYPES)?;
    ctx.attrs.insert("T".into(), AttrValue::Type(ctx.input(0).dtype));
    let tout = ctx.input(1).dtype;
    if tout != ctx.input(2).dtype {
        return Err(Error::type_error(format!(
            "Input 'maxval' of 'RandomUniformInt' Op has type {} that does not match type {tout} of argument 'minval'.",
            ctx.input(2).dtype
        )));
    }
    ctx.check_type(1, INDEX_TYPES)?;
    ctx.check_rank(1, 0)?;
    ctx.check_rank(2, 0)?;
    ctx.attrs.insert("Tout".into(), AttrValue::Type(tout));
    seeds(&mut ctx);
    Ok(vec![OutputSpec::new(tout, shape_input(&ctx, 0, "shape")?)])
}

fn infer_shuffle(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    seeds(&mut ctx);
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

/// `Multinomial`: `[batch, num_samples]` class indices drawn from `[batch, classes]`
/// logits (TF's shape function: rank-2 logits, scalar int32 `num_samples`).
fn infer_multinomial(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, FLOATS)?;
    ctx.attrs.insert("T".into(), AttrValue::Type(ctx.input(0).dtype));
    ctx.check_type(1, &[DType::Int32])?;
    ctx.check_rank(0, 2)?;
    ctx.check_rank(1, 0)?;
    let out = ctx.attr_or("output_dtype", DType::Int64)?;
    if !INDEX_TYPES.contains(&out) {
        return Err(Error::type_error(format!(
            "Value for attr 'output_dtype' of {out} is not in the list of allowed values: int32, int64"
        )));
    }
    seeds(&mut ctx);
    let batch = ctx.input(0).shape.dims().and_then(|d| d[0]);
    let samples = match ctx.constant_input(1) {
        Some(t) => {
            let n = t.scalar_value::<i32>()?;
            // TF's `MakeDimForScalarInput`.
            Some(usize::try_from(n).map_err(|_| {
                Error::value(format!("Dimension size, given by scalar input 1, must be non-negative but is {n}"))
            })?)
        }
        None => None,
    };
    Ok(vec![OutputSpec::new(out, PartialShape::from_dims([batch, samples]))])
}
