//! TF's optimizer ops (`ApplyGradientDescent`, `ApplyAdam`, `SparseApplyFtrl`, ...):
//! in-place updates of a ref variable and its slots, returning the variable.
//!
//! Every op is one row of [`SPECS`] (where its variable, slots, hyper-parameters,
//! gradient and indices are) and one [`Family`] (which [`Rule`] it runs); one kernel
//! validates inputs as TF does and runs the rule densely or on the indexed rows.
use std::sync::Arc;

use super::{InferCtx, OpDef, Registry};
use crate::dispatch_float;
use crate::dtype::{DType, Element};
use crate::error::{Code, Error, Result};
use crate::graph::{AttrValue, OutputSpec};
use crate::kernels::num::Float;
use crate::kernels::training::{
    Adadelta, Adagrad, AdagradDa, Adam, CenteredRmsProp, Ftrl, GradientDescent, Momentum, ProximalAdagrad,
    ProximalGradientDescent, RmsProp, Rule, apply_dense, apply_sparse,
};
use crate::kernels::{ExecEnv, KernelBuild, OpContext, OpKernel};
use crate::resource::Var;
use crate::shape::fmt_shape;

/// Which update rule an op runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Family {
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
struct Spec {
    op: &'static str,
    family: Family,
    inputs: &'static [&'static str],
    /// The variable, then its slots (ref inputs), in lock order.
    refs: &'static [usize],
    grad: usize,
    /// The sparse ops' row indices.
    indices: Option<usize>,
    /// AdagradDA's int64 global step.
    step: Option<usize>,
    /// The op's one bool attr besides `use_locking`, and its default.
    flag: Option<(&'static str, bool)>,
    /// What the op computes (the Python wrapper's docstring).
    doc: &'static str,
}

impl Spec {
    fn hyper(&self) -> impl Iterator<Item = usize> + '_ {
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
const MAX_HYPER: usize = 6;

const ON_ROWS: &str = " on the rows `indices` of the variable and its slots (`grad` holds one row per \
     index; a repeated index updates its row once per occurrence).";

/// Every optimizer op, with TF's input order.
static SPECS: &[Spec] = &[
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

fn spec_of(op: &str) -> Result<&'static Spec> {
    SPECS.iter().find(|s| s.op == op).ok_or_else(|| Error::new(Code::Internal, format!("no optimizer spec for {op}")))
}

pub(crate) fn register(r: &mut Registry) {
    for s in SPECS {
        r.add(OpDef::new(s.op, s.inputs, infer_apply, apply_kernel).refs(s.refs).stateful().no_grad());
    }
}

fn apply_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let spec = spec_of(b.node.op_type())?;
    let flag = match spec.flag {
        Some((name, default)) => b.node.attr_or::<bool>(name, default)?,
        None => false,
    };
    Ok(Box::new(ApplyKernel { spec, flag }))
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

/// The scalar input `i`, checked as TF does (`lr is not a scalar: [2]`).
fn scalar<T: Element>(ctx: &OpContext<'_>, i: usize, name: &str) -> Result<T> {
    let t = ctx.input(i)?;
    if !t.shape().is_empty() {
        ff_bail!(InvalidArgument, "{name} is not a scalar: {}", fmt_shape(t.shape()));
    }
    t.scalar_value::<T>()
}

/// The kernel of every op here.
struct ApplyKernel {
    spec: &'static Spec,
    /// The value of the op's bool attr (Nesterov, update_slots, multiply_linear_by_lr).
    flag: bool,
}

impl OpKernel for ApplyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let refs: Vec<Arc<Var>> =
            self.spec.refs.iter().map(|&i| ctx.ref_input(i).map(Arc::clone)).collect::<Result<_>>()?;
        // Locking one variable twice would deadlock.
        for (k, r) in refs.iter().enumerate() {
            if refs[..k].iter().any(|o| Arc::ptr_eq(o, r)) {
                ff_bail!(
                    InvalidArgument,
                    "{} is passed twice to {}: the variable and its slots must be distinct",
                    r.name(),
                    self.spec.op
                );
            }
        }
        let dtype = refs[0].dtype();
        dispatch_float!(dtype, T => self.update::<T>(ctx, &refs)?,
            _ => ff_bail!(InvalidArgument, "no optimizer kernel for {dtype}"));
        ctx.set_ref_output(0, Arc::clone(&refs[0]));
        Ok(())
    }
}

/// The sparse ops' rows of `var` (checked to be in range) and the row width.
fn sparse_rows(
    indices: &crate::tensor::Tensor,
    grad_shape: &[usize],
    var_shape: &[usize],
) -> Result<(Vec<usize>, usize)> {
    if var_shape.is_empty() {
        ff_bail!(InvalidArgument, "var must be at least 1 dimensional");
    }
    if indices.shape().len() != 1 {
        ff_bail!(InvalidArgument, "indices must be one-dimensional");
    }
    if grad_shape.len() != var_shape.len() {
        ff_bail!(
            InvalidArgument,
            "var and grad must have the same rank: {} vs {}",
            fmt_shape(var_shape),
            fmt_shape(grad_shape)
        );
    }
    if let Some(d) = (1..var_shape.len()).find(|&d| var_shape[d] != grad_shape[d]) {
        ff_bail!(InvalidArgument, "var and grad must match in dimension {d}");
    }
    let indices = super::int_values(indices)?;
    if grad_shape[0] != indices.len() {
        ff_bail!(InvalidArgument, "grad must be the same size as indices in the first dimension.");
    }
    let rows = indices
        .iter()
        .enumerate()
        .map(|(i, &ix)| match usize::try_from(ix) {
            Ok(r) if r < var_shape[0] => Ok(r),
            _ => Err(Error::invalid_argument(format!("Index {ix} at offset {i} in indices is out of range"))),
        })
        .collect::<Result<_>>()?;
    Ok((rows, var_shape[1..].iter().product()))
}

impl ApplyKernel {
    /// Locks the variable and its slots (in input order), validates the shapes and runs
    /// the op's rule.
    fn update<T: Float + Element>(&self, ctx: &OpContext<'_>, refs: &[Arc<Var>]) -> Result<()> {
        let s = self.spec;
        // Hyper-parameters by name: read (and checked to be scalars) before locking.
        let mut hyper = [T::ZERO; MAX_HYPER];
        let mut names = [""; MAX_HYPER];
        for (k, i) in s.hyper().enumerate() {
            hyper[k] = scalar::<T>(ctx, i, s.inputs[i])?;
            names[k] = s.inputs[i];
        }
        let h = |name: &str| -> Result<T> {
            names
                .iter()
                .position(|n| *n == name)
                .map(|k| hyper[k])
                .ok_or_else(|| Error::new(Code::Internal, format!("{} has no hyper-parameter {name}", s.op)))
        };
        let step = s.step.map(|i| scalar::<i64>(ctx, i, s.inputs[i])).transpose()?;
        let grad = ctx.input(s.grad)?;
        let mut guards = refs.iter().map(|r| r.write()).collect::<Result<Vec<_>>>()?;
        let var_shape = guards[0].shape().to_vec();
        for (g, &i) in guards.iter().zip(s.refs).skip(1) {
            if g.shape() != var_shape.as_slice() {
                ff_bail!(
                    InvalidArgument,
                    "var and {} do not have the same shape{} {}",
                    s.inputs[i],
                    fmt_shape(&var_shape),
                    fmt_shape(g.shape())
                );
            }
        }
        let sparse = match s.indices {
            None if grad.shape() != var_shape.as_slice() => ff_bail!(
                InvalidArgument,
                "var and grad do not have the same shape{} {}",
                fmt_shape(&var_shape),
                fmt_shape(grad.shape())
            ),
            None => None,
            Some(i) => Some(sparse_rows(ctx.input(i)?, grad.shape(), &var_shape)?),
        };
        let parts: Vec<&mut [T]> = guards.iter_mut().map(|t| t.as_mut_slice::<T>()).collect::<Result<_>>()?;
        let run = Run {
            parts,
            grad: grad.as_slice::<T>()?,
            sparse: sparse.as_ref().map(|(r, w)| (r.as_slice(), *w)),
            env: ctx.env,
        };
        let f = self.flag;
        let rms = || -> Result<RmsProp<T>> {
            Ok(RmsProp { lr: h("lr")?, rho: h("rho")?, momentum: h("momentum")?, epsilon: h("epsilon")? })
        };
        let proximal = |lr: &str| -> Result<ProximalGradientDescent<T>> {
            Ok(ProximalGradientDescent::new(h(lr)?, h("l1")?, h("l2")?))
        };
        let adam = || -> Result<[T; 6]> {
            Ok([h("lr")?, h("beta1_power")?, h("beta2_power")?, h("beta1")?, h("beta2")?, h("epsilon")?])
        };
        match s.family {
            Family::GradientDescent => run.go(GradientDescent { alpha: h("alpha")? }),
            Family::ProximalGradientDescent => run.go(proximal("alpha")?),
            Family::Adadelta => run.go(Adadelta { lr: h("lr")?, rho: h("rho")?, epsilon: h("epsilon")? }),
            Family::Adagrad if f => run.go(Adagrad::<T, true> { lr: h("lr")? }),
            Family::Adagrad => run.go(Adagrad::<T, false> { lr: h("lr")? }),
            Family::ProximalAdagrad => run.go(ProximalAdagrad(proximal("lr")?)),
            Family::AdagradDa => run.go(AdagradDa::new(h("lr")?, h("l1")?, h("l2")?, step.unwrap_or_default())),
            Family::Ftrl => run.ftrl(f, [h("lr")?, h("l1")?, h("l2")?, T::ZERO, h("lr_power")?]),
            Family::FtrlV2 => run.ftrl(f, [h("lr")?, h("l1")?, h("l2")?, h("l2_shrinkage")?, h("lr_power")?]),
            Family::Momentum if f => run.go(Momentum::<T, true> { lr: h("lr")?, momentum: h("momentum")? }),
            Family::Momentum => run.go(Momentum::<T, false> { lr: h("lr")?, momentum: h("momentum")? }),
            Family::Adam => {
                let [lr, beta1_power, beta2_power, beta1, beta2, epsilon] = adam()?;
                if f {
                    run.go(Adam::<T, true>::new(lr, beta1_power, beta2_power, beta1, beta2, epsilon))
                } else {
                    run.go(Adam::<T, false>::new(lr, beta1_power, beta2_power, beta1, beta2, epsilon))
                }
            }
            Family::RmsProp => run.go(rms()?),
            Family::CenteredRmsProp => run.go(CenteredRmsProp(rms()?)),
        }
    }
}

/// One update's locked buffers, gradient and (sparse ops) rows, ready for a rule.
struct Run<'a, T> {
    parts: Vec<&'a mut [T]>,
    grad: &'a [T],
    sparse: Option<(&'a [usize], usize)>,
    env: &'a ExecEnv,
}

impl<T: Float> Run<'_, T> {
    fn go<R: Rule<T, N>, const N: usize>(self, rule: R) -> Result<()> {
        let parts: [&mut [T]; N] = self
            .parts
            .try_into()
            .map_err(|_| Error::new(Code::Internal, "optimizer slot count does not match its rule"))?;
        match self.sparse {
            None => apply_dense(parts, self.grad, rule, self.env),
            Some((rows, width)) => apply_sparse(parts, self.grad, rows, width, rule),
        }
        Ok(())
    }

    /// FTRL with TF's `lr_power == -0.5` fast path; `h` is lr, l1, l2, l2_shrinkage,
    /// lr_power.
    fn ftrl(self, by_lr: bool, [lr, l1, l2, l2_shrinkage, lr_power]: [T; 5]) -> Result<()> {
        let sqrt = lr_power == T::from_f64(-0.5);
        match (sqrt, by_lr) {
            (true, false) => self.go(Ftrl::<T, true, false> { lr, l1, l2, l2_shrinkage, lr_power }),
            (true, true) => self.go(Ftrl::<T, true, true> { lr, l1, l2, l2_shrinkage, lr_power }),
            (false, false) => self.go(Ftrl::<T, false, false> { lr, l1, l2, l2_shrinkage, lr_power }),
            (false, true) => self.go(Ftrl::<T, false, true> { lr, l1, l2, l2_shrinkage, lr_power }),
        }
    }
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
