//! TF's optimizer ops (`ApplyGradientDescent`, `ApplyAdam`, `SparseApplyFtrl`, ...):
//! in-place updates of a ref variable and its slots, returning the variable.
//!
//! Every op is one row of [`SPECS`] (where its variable, slots, hyper-parameters,
//! gradient and indices are) and one [`Family`] (which [`Rule`] it runs); one kernel
//! validates inputs as TF does and runs the rule densely or on the indexed rows
//! (`kernels::training`, which reads this table).
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;

/// Which update rule an op runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[allow(missing_docs)] // each names its rule in `kernels::training`
pub enum Family {
    GradientDescent,
    ProximalGradientDescent,
    Adadelta,
    Adagrad,
    ProximalAdagrad,
    AdagradDa,
    Ftrl,
    FtrlV2,
    Momentum,
    Adam,
    RmsProp,
    CenteredRmsProp,
}

/// Where one op's inputs are. Its scalar hyper-parameters are the inputs that are
/// none of the others, and the kernel reads them by name.
pub struct Spec {
    /// The op's type name.
    pub op: &'static str,
    /// Its update rule.
    pub family: Family,
    /// Its input names, in TF's order.
    pub inputs: &'static [&'static str],
    /// The variable, then its slots (ref inputs), in lock order.
    pub refs: &'static [usize],
    /// The gradient.
    pub grad: usize,
    /// The sparse ops' row indices.
    pub indices: Option<usize>,
    /// AdagradDA's int64 global step.
    pub step: Option<usize>,
    /// The op's one bool attr besides `use_locking`, and its default.
    pub flag: Option<(&'static str, bool)>,
    /// What the op computes (the Python wrapper's docstring).
    doc: &'static str,
}

impl Spec {
    /// The hyper-parameter inputs: those that are none of the others.
    pub fn hyper(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.inputs.len())
            .filter(|&i| !self.refs.contains(&i) && i != self.grad && Some(i) != self.indices && Some(i) != self.step)
    }
}

/// How a training op's input is given: a variable or slot reference, a value of the
/// variable's type (hyper-parameters, gradient), the sparse ops' indices, or
/// AdagradDA's int64 global step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A reference variable (the variable, or one of its slots).
    Ref,
    /// A tensor of the variable's dtype.
    Typed,
    /// An int32 or int64 vector of rows.
    Indices,
    /// An int64 scalar step.
    Step,
}

/// The signature of one optimizer op, for the Python wrappers derived from it.
pub struct TrainingOpSignature {
    /// TF's op name (`ApplyAdam`).
    pub op: &'static str,
    /// Inputs in TF's order, with how each is given.
    pub inputs: Vec<(&'static str, InputKind)>,
    /// The op's bool attr besides `use_locking`, with its default.
    pub flag: Option<(&'static str, bool)>,
    /// What it computes.
    pub doc: String,
}

/// Every optimizer op's signature, in table order: the one source of the Python
/// wrappers in `ferroflow.ops.training_ops`.
pub fn training_op_signatures() -> Vec<TrainingOpSignature> {
    SPECS
        .iter()
        .map(|s| TrainingOpSignature {
            op: s.op,
            inputs: s
                .inputs
                .iter()
                .enumerate()
                .map(|(i, &name)| {
                    let kind = if s.refs.contains(&i) {
                        InputKind::Ref
                    } else if Some(i) == s.indices {
                        InputKind::Indices
                    } else if Some(i) == s.step {
                        InputKind::Step
                    } else {
                        InputKind::Typed
                    };
                    (name, kind)
                })
                .collect(),
            flag: s.flag,
            doc: if s.indices.is_some() { format!("{}{ON_ROWS}", s.doc) } else { s.doc.to_string() },
        })
        .collect()
}

const NESTEROV: (&str, bool) = ("use_nesterov", false);
const UPDATE_SLOTS: (&str, bool) = ("update_slots", true);
const LINEAR_BY_LR: (&str, bool) = ("multiply_linear_by_lr", false);

/// `Some` of the optional macro argument, or `None`.
macro_rules! opt {
    () => {
        None
    };
    ($v:expr) => {
        Some($v)
    };
}

macro_rules! spec {
    ($op:literal, $family:ident, [$($input:literal),*], refs $refs:expr, grad $grad:literal
     $(, indices $idx:literal)? $(, step $step:literal)? $(, flag $flag:ident)?, $doc:literal) => {
        Spec {
            op: $op,
            family: Family::$family,
            inputs: &[$($input),*],
            refs: &$refs,
            grad: $grad,
            indices: opt!($($idx)?),
            step: opt!($($step)?),
            flag: opt!($($flag)?),
            doc: $doc,
        }
    };
}

/// The most hyper-parameters an op has (Adam's six).
pub const MAX_HYPER: usize = 6;

const ON_ROWS: &str = " on the rows `indices` of the variable and its slots (`grad` holds one row per \
     index; a repeated index updates its row once per occurrence).";

/// Every optimizer op, with TF's input order.
pub static SPECS: &[Spec] = &[
    spec!("ApplyGradientDescent", GradientDescent, ["var", "alpha", "delta"], refs [0], grad 2,
        "`var -= alpha * delta`."),
    spec!("ApplyProximalGradientDescent", ProximalGradientDescent, ["var", "alpha", "l1", "l2", "delta"],
        refs [0], grad 4,
        "FOBOS's proximal step after `prox = var - alpha * delta`:\n\n\
         `var = sign(prox) * max(|prox| - alpha * l1, 0) / (1 + alpha * l2)`."),
    spec!("SparseApplyProximalGradientDescent", ProximalGradientDescent,
        ["var", "alpha", "l1", "l2", "grad", "indices"], refs [0], grad 4, indices 5,
        "`apply_proximal_gradient_descent`"),
    spec!("ApplyAdadelta", Adadelta, ["var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"],
        refs [0, 1, 2], grad 6,
        "Zeiler's Adadelta step:\n\n\
         `accum = rho * accum + (1 - rho) * grad^2`;\n\
         `update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad`;\n\
         `var -= lr * update`; `accum_update = rho * accum_update + (1 - rho) * update^2`."),
    spec!("SparseApplyAdadelta", Adadelta,
        ["var", "accum", "accum_update", "lr", "rho", "epsilon", "grad", "indices"],
        refs [0, 1, 2], grad 6, indices 7, "`apply_adadelta`"),
    spec!("ApplyAdagrad", Adagrad, ["var", "accum", "lr", "grad"], refs [0, 1], grad 3, flag UPDATE_SLOTS,
        "Adagrad: `accum += grad^2` (if `update_slots`); `var -= lr * grad / sqrt(accum)`."),
    spec!("SparseApplyAdagrad", Adagrad, ["var", "accum", "lr", "grad", "indices"], refs [0, 1],
        grad 3, indices 4, flag UPDATE_SLOTS, "`apply_adagrad`"),
    spec!("ApplyProximalAdagrad", ProximalAdagrad, ["var", "accum", "lr", "l1", "l2", "grad"], refs [0, 1],
        grad 5, "`accum += grad^2`, then the proximal step with the rate `lr / sqrt(accum)`."),
    spec!("SparseApplyProximalAdagrad", ProximalAdagrad, ["var", "accum", "lr", "l1", "l2", "grad", "indices"],
        refs [0, 1], grad 5, indices 6, "`apply_proximal_adagrad`"),
    spec!("ApplyAdagradDA", AdagradDa,
        ["var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "lr", "l1", "l2", "global_step"],
        refs [0, 1, 2], grad 3, step 7,
        "Adagrad dual averaging.\n\n\
         Accumulates `grad` (g) and `grad^2` (gg), then\n\
         `var = -lr * sign(g) * max(|g| - l1 * t, 0) / (l2 * t * lr + sqrt(gg))`."),
    spec!("SparseApplyAdagradDA", AdagradDa,
        ["var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "indices", "lr", "l1", "l2",
         "global_step"],
        refs [0, 1, 2], grad 3, indices 4, step 8, "`apply_adagrad_da`"),
    spec!("ApplyFtrl", Ftrl, ["var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"], refs [0, 1, 2],
        grad 3, flag LINEAR_BY_LR,
        "FTRL-Proximal: `accum_new = accum + grad^2`;\n\
         `linear += grad - (accum_new^-lr_power - accum^-lr_power) / lr * var`;\n\
         `var = (sign(linear) * l1 - linear) / (accum_new^-lr_power / lr + 2 * l2)` where\n\
         `|linear| > l1`, else 0."),
    spec!("SparseApplyFtrl", Ftrl, ["var", "accum", "linear", "grad", "indices", "lr", "l1", "l2", "lr_power"],
        refs [0, 1, 2], grad 3, indices 4, flag LINEAR_BY_LR, "`apply_ftrl`"),
    spec!("ApplyFtrlV2", FtrlV2,
        ["var", "accum", "linear", "grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"],
        refs [0, 1, 2], grad 3, flag LINEAR_BY_LR,
        "`apply_ftrl` with online L2 shrinkage: the linear term uses\n\
         `grad + 2 * l2_shrinkage * var`."),
    spec!("SparseApplyFtrlV2", FtrlV2,
        ["var", "accum", "linear", "grad", "indices", "lr", "l1", "l2", "l2_shrinkage", "lr_power"],
        refs [0, 1, 2], grad 3, indices 4, flag LINEAR_BY_LR, "`apply_ftrl_v2`"),
    spec!("ApplyMomentum", Momentum, ["var", "accum", "lr", "grad", "momentum"], refs [0, 1],
        grad 3, flag NESTEROV,
        "`accum = accum * momentum + grad`; `var -= lr * accum` (Nesterov:\n\
         `var -= lr * (grad + momentum * accum)`)."),
    spec!("SparseApplyMomentum", Momentum, ["var", "accum", "lr", "grad", "indices", "momentum"], refs [0, 1],
        grad 3, indices 4, flag NESTEROV, "`apply_momentum`"),
    spec!("ApplyAdam", Adam,
        ["var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"],
        refs [0, 1, 2], grad 9, flag NESTEROV,
        "Adam: `lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)`;\n\
         `m = beta1 * m + (1 - beta1) * grad`; `v = beta2 * v + (1 - beta2) * grad^2`;\n\
         `var -= lr_t * m / (sqrt(v) + epsilon)` (Nesterov: `m` replaced by\n\
         `beta1 * m + (1 - beta1) * grad` once more)."),
    spec!("ApplyRMSProp", RmsProp, ["var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"],
        refs [0, 1, 2], grad 7,
        "RMSProp: `ms = rho * ms + (1 - rho) * grad^2`;\n\
         `mom = momentum * mom + lr * grad / sqrt(ms + epsilon)`; `var -= mom`."),
    spec!("SparseApplyRMSProp", RmsProp,
        ["var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"],
        refs [0, 1, 2], grad 7, indices 8, "`apply_rms_prop`"),
    spec!("ApplyCenteredRMSProp", CenteredRmsProp,
        ["var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"],
        refs [0, 1, 2, 3], grad 8,
        "Centered RMSProp: as `apply_rms_prop`, with `mg = rho * mg + (1 - rho) * grad` and\n\
         the denominator `sqrt(ms - mg^2 + epsilon)`."),
    spec!("SparseApplyCenteredRMSProp", CenteredRmsProp,
        ["var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"],
        refs [0, 1, 2, 3], grad 8, indices 9, "`apply_centered_rms_prop`"),
];

/// The table row of optimizer op `op`.
pub fn spec_of(op: &str) -> Result<&'static Spec> {
    SPECS.iter().find(|s| s.op == op).ok_or_else(|| Error::new(Code::Internal, format!("no optimizer spec for {op}")))
}

pub(crate) fn register(r: &mut Registry) {
    for s in SPECS {
        r.add(OpDef::new(s.op, s.inputs, infer_apply).refs(s.refs).stateful());
    }
}

fn infer_apply(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let s = spec_of(ctx.def.name)?;
    let typed: Vec<usize> = (0..s.inputs.len()).filter(|&i| Some(i) != s.indices && Some(i) != s.step).collect();
    let t = ctx.same_type(&typed)?;
    ctx.check_type(0, super::math::FLOATS)?;
    if let Some(i) = s.indices {
        ctx.check_type(i, &[DType::Int32, DType::Int64])?;
        ctx.attrs.insert("Tindices".into(), AttrValue::Type(ctx.input(i).dtype));
        ctx.check_rank(i, 1)?;
    }
    if let Some(i) = s.step {
        ctx.check_type(i, &[DType::Int64])?;
        ctx.check_rank(i, 0)?;
    }
    ctx.attr_bool("use_locking", false)?;
    if let Some((name, default)) = s.flag {
        ctx.attr_bool(name, default)?;
    }
    let mismatch = |i: usize, a: &dyn std::fmt::Display, b: &dyn std::fmt::Display| {
        Error::value(format!(
            "Shapes must be equal rank, but are {a} and {b} for '{}' (op: '{}'): '{}' does not match 'var'",
            ctx.name, ctx.def.name, s.inputs[i]
        ))
    };
    let mut shape = ctx.input(0).shape.clone();
    for &i in &s.refs[1..] {
        shape = shape.merge(&ctx.input(i).shape).map_err(|_| mismatch(i, &shape, &ctx.input(i).shape))?;
    }
    let grad = &ctx.input(s.grad).shape;
    match s.indices {
        None => shape = shape.merge(grad).map_err(|_| mismatch(s.grad, &shape, grad))?,
        Some(i) => {
            // The gradient has one row per index, each shaped like a row of `var`.
            if let (Some(var_dims), Some(grad_dims)) = (shape.dims(), grad.dims()) {
                let rows = ctx.input(i).shape.dims().and_then(|d| d.first().copied().flatten());
                let rows_ok = match (rows, grad_dims.first().copied().flatten()) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                };
                let tail_ok = var_dims.len() == grad_dims.len()
                    && var_dims.iter().zip(grad_dims).skip(1).all(|(a, b)| a.zip(*b).is_none_or(|(a, b)| a == b));
                if var_dims.is_empty() || !rows_ok || !tail_ok {
                    return Err(Error::value(format!(
                        "grad {grad} does not match var {shape} and indices {} for '{}' (op: '{}')",
                        ctx.input(i).shape,
                        ctx.name,
                        ctx.def.name
                    )));
                }
            }
        }
    }
    s.hyper().try_for_each(|i| ctx.check_rank(i, 0))?;
    Ok(vec![OutputSpec { dtype: t, shape, is_ref: true }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_is_consistent() {
        for s in SPECS {
            let hyper: Vec<usize> = s.hyper().collect();
            assert!(!hyper.is_empty() && hyper.len() <= MAX_HYPER, "{}", s.op);
            assert_eq!(s.inputs[s.refs[0]], "var", "{}", s.op);
            assert!(s.inputs[s.grad] == "grad" || s.inputs[s.grad] == "delta", "{}", s.op);
            assert_eq!(s.indices.map(|i| s.inputs[i]), s.op.starts_with("Sparse").then_some("indices"), "{}", s.op);
        }
        let sigs = training_op_signatures();
        let adam = sigs.iter().find(|s| s.op == "ApplyAdam").unwrap();
        assert_eq!(adam.inputs[3], ("beta1_power", InputKind::Typed));
        assert_eq!(adam.flag, Some(("use_nesterov", false)));
        let sparse = sigs.iter().find(|s| s.op == "SparseApplyMomentum").unwrap();
        assert!(sparse.doc.starts_with("`apply_momentum` on the rows `indices`"), "{}", sparse.doc);
        assert_eq!(sparse.inputs[4], ("indices", InputKind::Indices));
    }
}
