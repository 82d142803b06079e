//! Candidate-sampling ops (TF's `candidate_sampling_ops`): the five samplers of sampled
//! losses, stateful and seeded by `seed`/`seed2` as the random ops, and
//! `ComputeAccidentalHits`; none is differentiable.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

/// The candidate sampler ops (one schema, one kernel).
pub(crate) const CANDIDATE_SAMPLERS: [&str; 5] = [
    "UniformCandidateSampler",
    "LogUniformCandidateSampler",
    "LearnedUnigramCandidateSampler",
    "FixedUnigramCandidateSampler",
    "AllCandidateSampler",
];

pub(crate) fn register(r: &mut Registry) {
    for name in CANDIDATE_SAMPLERS {
        // No gradients registered, as TF (the sampled losses stop gradients at them).
        r.add(OpDef::new(name, &["true_classes"], infer_sampler).stateful());
    }
    r.add(OpDef::new("ComputeAccidentalHits", &["true_classes", "sampled_candidates"], infer_hits));
}

/// An `int >= min` attr, with TF's message for a smaller value.
fn at_least(ctx: &InferCtx<'_>, name: &str, min: i64) -> Result<i64> {
    let v: i64 = ctx.required_attr(name)?;
    if v < min {
        return Err(Error::value(format!(
            "Attr '{name}' of '{}' Op passed {v} less than minimum {min}.",
            ctx.def.name
        )));
    }
    Ok(v)
}

fn infer_sampler(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Int64])?;
    let num_true = at_least(&ctx, "num_true", 1)?;
    let num_sampled = at_least(&ctx, "num_sampled", 1)?;
    ctx.required_attr::<bool>("unique")?;
    if ctx.def.name != "AllCandidateSampler" {
        at_least(&ctx, "range_max", 1)?;
    }
    if ctx.def.name == "FixedUnigramCandidateSampler" {
        ctx.attr_or("vocab_file", String::new())?;
        ctx.attr_or("distortion", 1.0f32)?;
        ctx.attr_int("num_reserved_ids", 0)?;
        let shards = ctx.attr_int("num_shards", 1)?;
        let shard = ctx.attr_int("shard", 0)?;
        ctx.attr_or("unigrams", Vec::<f32>::new())?;
        if shards < 1 || shard < 0 {
            return Err(Error::value(format!(
                "Attr 'num_shards' (>= 1) and 'shard' (>= 0) of 'FixedUnigramCandidateSampler' Op passed {shards} and {shard}"
            )));
        }
    }
    for name in ["seed", "seed2"] {
        ctx.attrs.entry(name.into()).or_insert(AttrValue::I(0));
    }
    ctx.check_rank(0, 2)?;
    let batch = ctx.input(0).shape.dims().and_then(|d| d[0]);
    let n = usize::try_from(num_sampled).ok();
    let sampled = PartialShape::from_dims([n]);
    Ok(vec![
        OutputSpec::new(DType::Int64, sampled.clone()),
        OutputSpec::new(DType::Float32, PartialShape::from_dims([batch, usize::try_from(num_true).ok()])),
        OutputSpec::new(DType::Float32, sampled),
    ])
}

fn infer_hits(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Int64])?;
    ctx.check_type(1, &[DType::Int64])?;
    ctx.required_attr::<i64>("num_true")?;
    for name in ["seed", "seed2"] {
        ctx.attrs.entry(name.into()).or_insert(AttrValue::I(0));
    }
    ctx.check_rank(0, 2)?;
    ctx.check_rank(1, 1)?;
    let v = PartialShape::from_dims([None]);
    Ok(vec![
        OutputSpec::new(DType::Int32, v.clone()),
        OutputSpec::new(DType::Int64, v.clone()),
        OutputSpec::new(DType::Float32, v),
    ])
}
