//! Fused optimizer updates (TF's `training_ops`): one pass over the parameter, its
//! gradient and its slots, in place, with TF's formulas term for term.
//!
//! Each optimizer is a [`Rule`]: the update of one element of the variable and its
//! slots. One generic loop ([`fused_loop`]) runs any rule; it is compiled for
//! AVX-512 / AVX2+FMA / NEON / baseline by `multiversion` (Rust never fuses
//! `a * b + c`, so all paths agree bit for bit), dense updates are split across the
//! intra-op pool, and sparse updates run it on each touched row. Hyper-parameters
//! arrive as scalars, so per-step constants (such as Adam's bias-corrected rate) are
//! computed once, never per element; loop-invariant choices (Nesterov, FTRL's
//! `sqrt` power) are const generics, so no rule branches per element on them.
//!
//! The kernel of every optimizer op (`ApplyKernel`) is here too: it reads the op's
//! row of the table in `ops/training.rs` (`SPECS`) and runs its rule.
use std::sync::Arc;

use multiversion::multiversion;
use smallvec::SmallVec;

use super::num::Float;
use super::{ExecEnv, KernelBuild, OpContext, OpKernel};
use crate::dispatch_float;
use crate::dtype::Element;
use crate::error::{Code, Error, Result};
use crate::framework::resource::Var;
use crate::ops::training::{Family, MAX_HYPER, Spec, spec_of};
use crate::shape::fmt_shape;

/// Elements per piece below which an update stays on one thread (it reads and writes
/// a few streams; 64 K elements take ~20 us).
const PARALLEL_MIN: usize = 1 << 16;

/// The update of one element: `x[0]` is the variable, `x[1..]` its slots in the op's
/// input order, `g` the gradient.
pub trait Rule<T: Float, const N: usize>: Copy + Send + Sync {
    /// Updates `x` in place.
    fn step(self, x: &mut [T; N], g: T);
}

/// Runs `rule` over every element of `parts` (all `grad.len()` long).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn fused_loop<T: Float, R: Rule<T, N>, const N: usize>(parts: [&mut [T]; N], grad: &[T], rule: R) {
    let n = grad.len();
    // Re-slicing to exactly `n` lets the compiler drop the bounds checks.
    let mut parts = parts.map(|p| &mut p[..n]);
    for (i, &g) in grad.iter().enumerate() {
        let mut x: [T; N] = std::array::from_fn(|k| parts[k][i]);
        rule.step(&mut x, g);
        for (p, v) in parts.iter_mut().zip(x) {
            p[i] = v;
        }
    }
}

/// A dense update: `parts` (the variable, then its slots) all have `grad`'s length.
pub fn apply_dense<T: Float, R: Rule<T, N>, const N: usize>(parts: [&mut [T]; N], grad: &[T], rule: R, env: &ExecEnv) {
    env.for_each_chunk_n(parts, PARALLEL_MIN, |off, p| {
        let len = p[0].len();
        fused_loop(p, &grad[off..off + len], rule);
    });
}

/// A sparse update: rule applied to rows `rows` of `parts` (each `width` long), with
/// `grad` holding one row per index, in order. Repeated rows are updated once per
/// occurrence, as TF's kernels do. Rows must be in range (the op checks them).
pub fn apply_sparse<T: Float, R: Rule<T, N>, const N: usize>(
    mut parts: [&mut [T]; N],
    grad: &[T],
    rows: &[usize],
    width: usize,
    rule: R,
) {
    for (i, &row) in rows.iter().enumerate() {
        let at = row * width;
        let p = parts.each_mut().map(|s| &mut s[at..at + width]);
        fused_loop(p, &grad[i * width..(i + 1) * width], rule);
    }
}

/// `var -= alpha * delta` (`ApplyGradientDescent`).
#[derive(Clone, Copy, Debug)]
pub struct GradientDescent<T> {
    /// Learning rate.
    pub alpha: T,
}

impl<T: Float> Rule<T, 1> for GradientDescent<T> {
    #[inline(always)]
    fn step(self, [v]: &mut [T; 1], g: T) {
        *v = v.sub(self.alpha.mul(g));
    }
}

/// `accum = accum * momentum + grad`; `var -= lr * accum` (Nesterov:
/// `var -= grad * lr + accum * momentum * lr`) (`ApplyMomentum`).
#[derive(Clone, Copy, Debug)]
pub struct Momentum<T, const NESTEROV: bool> {
    /// Learning rate.
    pub lr: T,
    /// Momentum.
    pub momentum: T,
}

impl<T: Float, const NESTEROV: bool> Rule<T, 2> for Momentum<T, NESTEROV> {
    #[inline(always)]
    fn step(self, [v, a]: &mut [T; 2], g: T) {
        *a = a.mul(self.momentum).add(g);
        *v =
            if NESTEROV { v.sub(g.mul(self.lr).add(a.mul(self.momentum).mul(self.lr))) } else { v.sub(a.mul(self.lr)) };
    }
}

/// TF's Adam update (`ApplyAdam`), term for term:
/// `m += (g - m)(1 - beta1)`; `v += (g^2 - v)(1 - beta2)`;
/// `var -= m alpha / (sqrt(v) + epsilon)` (Nesterov: `(g (1 - beta1) + beta1 m) alpha`).
#[derive(Clone, Copy, Debug)]
pub struct Adam<T, const NESTEROV: bool> {
    /// `lr * sqrt(1 - beta2^t) / (1 - beta1^t)`, computed once per step as TF does.
    pub alpha: T,
    /// First-moment decay.
    pub beta1: T,
    /// Second-moment decay.
    pub beta2: T,
    /// Added to `sqrt(v)`.
    pub epsilon: T,
}

impl<T: Float, const NESTEROV: bool> Adam<T, NESTEROV> {
    /// The step's constants from TF's `ApplyAdam` inputs.
    pub fn new(lr: T, beta1_power: T, beta2_power: T, beta1: T, beta2: T, epsilon: T) -> Self {
        let alpha = lr.mul(T::ONE.sub(beta2_power).sqrt()).div(T::ONE.sub(beta1_power));
        Adam { alpha, beta1, beta2, epsilon }
    }
}

impl<T: Float, const NESTEROV: bool> Rule<T, 3> for Adam<T, NESTEROV> {
    #[inline(always)]
    fn step(self, [p, m, v]: &mut [T; 3], g: T) {
        *m = m.add(g.sub(*m).mul(T::ONE.sub(self.beta1)));
        *v = v.add(g.mul(g).sub(*v).mul(T::ONE.sub(self.beta2)));
        let num = if NESTEROV { g.mul(T::ONE.sub(self.beta1)).add(self.beta1.mul(*m)) } else { *m };
        *p = p.sub(num.mul(self.alpha).div(v.sqrt().add(self.epsilon)));
    }
}

/// `accum += grad^2` (unless `update_slots` is off); `var -= grad * lr / sqrt(accum)`
/// (`ApplyAdagrad`).
#[derive(Clone, Copy, Debug)]
pub struct Adagrad<T, const UPDATE_SLOTS: bool> {
    /// Learning rate.
    pub lr: T,
}

impl<T: Float, const UPDATE_SLOTS: bool> Rule<T, 2> for Adagrad<T, UPDATE_SLOTS> {
    #[inline(always)]
    fn step(self, [v, a]: &mut [T; 2], g: T) {
        if UPDATE_SLOTS {
            *a = a.add(g.mul(g));
        }
        *v = v.sub(g.mul(self.lr).div(a.sqrt()));
    }
}

/// Zeiler's Adadelta (`ApplyAdadelta`): `accum = accum rho + g^2 (1 - rho)`;
/// `update = sqrt(accum_update + eps) / sqrt(accum + eps) g`; `var -= update lr`;
/// `accum_update = accum_update rho + update^2 (1 - rho)`.
#[derive(Clone, Copy, Debug)]
pub struct Adadelta<T> {
    /// Learning rate.
    pub lr: T,
    /// Decay.
    pub rho: T,
    /// Added inside both square roots.
    pub epsilon: T,
}

impl<T: Float> Rule<T, 3> for Adadelta<T> {
    #[inline(always)]
    fn step(self, [v, accum, accum_update]: &mut [T; 3], g: T) {
        let one_rho = T::ONE.sub(self.rho);
        *accum = accum.mul(self.rho).add(g.mul(g).mul(one_rho));
        let update = accum_update.add(self.epsilon).sqrt().div(accum.add(self.epsilon).sqrt()).mul(g);
        *v = v.sub(update.mul(self.lr));
        *accum_update = accum_update.mul(self.rho).add(update.mul(update).mul(one_rho));
    }
}

/// RMSProp (`ApplyRMSProp`): `ms += (g^2 - ms)(1 - rho)`;
/// `mom = mom momentum + g lr / sqrt(ms + eps)`; `var -= mom`. Slots: ms, mom.
#[derive(Clone, Copy, Debug)]
pub struct RmsProp<T> {
    /// Learning rate.
    pub lr: T,
    /// Decay of the mean square.
    pub rho: T,
    /// Momentum.
    pub momentum: T,
    /// Added to the mean square.
    pub epsilon: T,
}

impl<T: Float> Rule<T, 3> for RmsProp<T> {
    #[inline(always)]
    fn step(self, [v, ms, mom]: &mut [T; 3], g: T) {
        *ms = ms.add(g.mul(g).sub(*ms).mul(T::ONE.sub(self.rho)));
        *mom = mom.mul(self.momentum).add(g.mul(self.lr).div(ms.add(self.epsilon).sqrt()));
        *v = v.sub(*mom);
    }
}

/// Centered RMSProp (`ApplyCenteredRMSProp`): as [`RmsProp`] with the mean gradient
/// `mg += (g - mg)(1 - rho)` subtracted: the denominator is
/// `sqrt(ms - mg^2 + eps)`. Slots: mg, ms, mom.
#[derive(Clone, Copy, Debug)]
pub struct CenteredRmsProp<T>(pub RmsProp<T>);

impl<T: Float> Rule<T, 4> for CenteredRmsProp<T> {
    #[inline(always)]
    fn step(self, [v, mg, ms, mom]: &mut [T; 4], g: T) {
        let h = self.0;
        let one_rho = T::ONE.sub(h.rho);
        *ms = ms.add(g.mul(g).sub(*ms).mul(one_rho));
        *mg = mg.add(g.sub(*mg).mul(one_rho));
        let denom = ms.sub(mg.mul(*mg)).add(h.epsilon);
        *mom = mom.mul(h.momentum).add(g.mul(h.lr).div(denom.sqrt()));
        *v = v.sub(*mom);
    }
}

/// FOBOS's proximal step after the move `prox = var - lr * g`:
/// `sign(prox) max(|prox| - lr l1, 0) / (1 + lr l2)`. With `l1 <= 0` TF skips the
/// shrinkage; `l1` is clamped to 0 then, which gives the same value.
#[inline(always)]
fn proximal<T: Float>(prox: T, lr: T, l1: T, l2: T) -> T {
    prox.sign().mul(prox.abs().sub(lr.mul(l1)).max(T::ZERO)).div(T::ONE.add(l2.mul(lr)))
}

/// Proximal gradient descent (`ApplyProximalGradientDescent`).
#[derive(Clone, Copy, Debug)]
pub struct ProximalGradientDescent<T> {
    /// Learning rate.
    pub lr: T,
    /// L1 strength, clamped to >= 0.
    pub l1: T,
    /// L2 strength.
    pub l2: T,
}

impl<T: Float> ProximalGradientDescent<T> {
    /// The rule for TF's inputs (`l1 <= 0` means no L1 shrinkage).
    pub fn new(lr: T, l1: T, l2: T) -> Self {
        ProximalGradientDescent { lr, l1: l1.select_gt(T::ZERO, l1, T::ZERO), l2 }
    }
}

impl<T: Float> Rule<T, 1> for ProximalGradientDescent<T> {
    #[inline(always)]
    fn step(self, [v]: &mut [T; 1], g: T) {
        *v = proximal(v.sub(g.mul(self.lr)), self.lr, self.l1, self.l2);
    }
}

/// Proximal Adagrad (`ApplyProximalAdagrad`): `accum += g^2`, then the proximal step
/// with the Adagrad rate `lr / sqrt(accum)`.
#[derive(Clone, Copy, Debug)]
pub struct ProximalAdagrad<T>(pub ProximalGradientDescent<T>);

impl<T: Float> Rule<T, 2> for ProximalAdagrad<T> {
    #[inline(always)]
    fn step(self, [v, a]: &mut [T; 2], g: T) {
        let h = self.0;
        *a = a.add(g.mul(g));
        let lr = h.lr.div(a.sqrt());
        *v = proximal(v.sub(g.mul(lr)), lr, h.l1, h.l2);
    }
}

/// FTRL-Proximal (`ApplyFtrl`, `ApplyFtrlV2`; McMahan et al.). Slots: accum, linear.
/// `SQRT` is TF's special case `lr_power == -0.5` (square roots instead of `pow`);
/// `BY_LR` is the `multiply_linear_by_lr` form. `ApplyFtrl` is V2 with no shrinkage.
#[derive(Clone, Copy, Debug)]
pub struct Ftrl<T, const SQRT: bool, const BY_LR: bool> {
    /// Learning rate.
    pub lr: T,
    /// L1 strength.
    pub l1: T,
    /// L2 strength.
    pub l2: T,
    /// L2 shrinkage strength (V2; zero for `ApplyFtrl`).
    pub l2_shrinkage: T,
    /// The learning-rate power (<= 0).
    pub lr_power: T,
}

impl<T: Float, const SQRT: bool, const BY_LR: bool> Ftrl<T, SQRT, BY_LR> {
    #[inline(always)]
    fn power(self, a: T) -> T {
        if SQRT { a.sqrt() } else { a.powf(T::ZERO.sub(self.lr_power)) }
    }
}

impl<T: Float, const SQRT: bool, const BY_LR: bool> Rule<T, 3> for Ftrl<T, SQRT, BY_LR> {
    #[inline(always)]
    fn step(self, [v, accum, linear]: &mut [T; 3], g: T) {
        let two = T::ONE.add(T::ONE);
        let g_shrunk = g.add(two.mul(self.l2_shrinkage).mul(*v));
        let new_accum = accum.add(g.mul(g));
        let (new_pow, old_pow) = (self.power(new_accum), self.power(*accum));
        let (x, y, threshold);
        if BY_LR {
            *linear = linear.add(g_shrunk.mul(self.lr).sub(new_pow.sub(old_pow).mul(*v)));
            threshold = self.l1.mul(self.lr);
            x = threshold.mul(linear.sign()).sub(*linear);
            y = new_pow.add(two.mul(self.l2).mul(self.lr));
        } else {
            *linear = linear.add(g_shrunk.sub(new_pow.sub(old_pow).div(self.lr).mul(*v)));
            threshold = self.l1;
            x = self.l1.mul(linear.sign()).sub(*linear);
            y = new_pow.div(self.lr).add(two.mul(self.l2));
        }
        *v = linear.abs().select_gt(threshold, x.div(y), T::ZERO);
        *accum = new_accum;
    }
}

/// Adagrad dual averaging (`ApplyAdagradDA`): accumulates the gradient and its
/// square, then sets `var = -lr sign(g_acc) max(|g_acc| - l1 t, 0) /
/// (l2 t lr + sqrt(gg_acc))` for global step `t`. Slots: the two accumulators.
#[derive(Clone, Copy, Debug)]
pub struct AdagradDa<T> {
    /// Learning rate.
    pub lr: T,
    /// L1 strength, clamped to >= 0.
    pub l1: T,
    /// L2 strength.
    pub l2: T,
    /// The global step, as TF converts it (through `float`).
    pub step: T,
}

impl<T: Float> AdagradDa<T> {
    /// The rule for TF's inputs (`l1 <= 0` means no L1 shrinkage); `step` is the
    /// global step as [`AdagradDa::step_value`] converts it.
    pub fn new(lr: T, l1: T, l2: T, step: T) -> Self {
        AdagradDa { lr, l1: l1.select_gt(T::ZERO, l1, T::ZERO), l2, step }
    }
    /// The int64 global step as TF converts it (through `float`).
    #[allow(clippy::cast_precision_loss)]
    pub fn step_value(global_step: i64) -> T {
        T::from_f64(f64::from(global_step as f32))
    }
}

impl<T: Float> Rule<T, 3> for AdagradDa<T> {
    #[inline(always)]
    fn step(self, [v, ga, gga]: &mut [T; 3], g: T) {
        *ga = ga.add(g);
        *gga = gga.add(g.mul(g));
        let shrunk = ga.sign().mul(ga.abs().sub(self.step.mul(self.l1)).max(T::ZERO));
        let denom = self.l2.mul(self.step.mul(self.lr)).add(gga.sqrt());
        *v = self.lr.neg().mul(shrunk).div(denom);
    }
}

/// The kernel of every optimizer op: its table row and its bool attr, read once.
pub(crate) fn apply_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let (spec, flag) = optimizer_op(b.node)?;
    Ok(Box::new(ApplyKernel { spec, flag }))
}

/// An optimizer node's table row and the value of its bool attr (Nesterov,
/// update_slots, multiply_linear_by_lr; `false` for ops without one), for every
/// device's kernel.
pub fn optimizer_op(node: &crate::graph::Node) -> Result<(&'static Spec, bool)> {
    let spec = spec_of(node.op_type())?;
    let flag = match spec.flag {
        Some((name, default)) => node.attr_or::<bool>(name, default)?,
        None => false,
    };
    Ok((spec, flag))
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
        // Inline vectors: an update holds at most four buffers (the variable and three
        // slots), and a training step runs one per variable.
        let refs: SmallVec<[Arc<Var>; 4]> =
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

/// Checks an update's shapes as TF does: the slots (`shapes[1..]`) and a dense
/// gradient have the variable's shape (`shapes[0]`); a sparse gradient has one row
/// per index, each in range. Gives the sparse update's rows and row width.
pub fn check_update_shapes(
    s: &Spec,
    shapes: &[&[usize]],
    grad_shape: &[usize],
    indices: Option<&crate::tensor::Tensor>,
) -> Result<Option<(Vec<usize>, usize)>> {
    let var_shape = shapes[0];
    for (g, &i) in shapes.iter().zip(s.refs).skip(1) {
        if *g != var_shape {
            ff_bail!(
                InvalidArgument,
                "var and {} do not have the same shape{} {}",
                s.inputs[i],
                fmt_shape(var_shape),
                fmt_shape(g)
            );
        }
    }
    match indices {
        None if grad_shape != var_shape => ff_bail!(
            InvalidArgument,
            "var and grad do not have the same shape{} {}",
            fmt_shape(var_shape),
            fmt_shape(grad_shape)
        ),
        None => Ok(None),
        Some(indices) => Ok(Some(sparse_rows(indices, grad_shape, var_shape)?)),
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
    let indices = crate::framework::tensor_util::int_values(indices)?;
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
        let mut guards = refs.iter().map(|r| r.write()).collect::<Result<SmallVec<[_; 4]>>>()?;
        let indices = s.indices.map(|i| ctx.input(i)).transpose()?;
        let sparse = {
            let shapes: SmallVec<[&[usize]; 4]> = guards.iter().map(|g| g.shape()).collect();
            check_update_shapes(s, &shapes, grad.shape(), indices)?
        };
        let parts: SmallVec<[&mut [T]; 4]> = guards.iter_mut().map(|t| t.as_mut_slice::<T>()).collect::<Result<_>>()?;
        let run = Run {
            parts,
            grad: grad.as_slice::<T>()?,
            sparse: sparse.as_ref().map(|(r, w)| (r.as_slice(), *w)),
            env: ctx.env,
        };
        let step = AdagradDa::<T>::step_value(step.unwrap_or_default());
        let ftrl_sqrt = matches!(s.family, Family::Ftrl | Family::FtrlV2) && h("lr_power")? == T::from_f64(-0.5);
        visit_rule(s.family, self.flag, ftrl_sqrt, &h, step, run)?
    }
}

/// Receives an optimizer's rule, whatever its type: the CPU's fused loop runs it; a
/// device backend generates its kernel from it (with `T` a symbolic number).
pub trait RuleVisitor<T: Float> {
    /// What the visit gives back.
    type Output;
    /// Takes the rule of an update of `N` buffers (the variable and its slots).
    fn visit<R: Rule<T, N>, const N: usize>(self, rule: R) -> Self::Output;
}

/// Builds the rule of an optimizer `family` from its hyper-parameters (`h` by input
/// name), its bool attr `flag`, AdagradDA's `step` (see [`AdagradDa::step_value`])
/// and, for FTRL, whether `lr_power` is -0.5 (TF's square-root special case), and
/// hands it to `v`. The one place where an op's inputs become its rule's fields, for
/// every device.
pub fn visit_rule<T: Float, V: RuleVisitor<T>>(
    family: Family,
    flag: bool,
    ftrl_sqrt: bool,
    h: &dyn Fn(&str) -> Result<T>,
    step: T,
    v: V,
) -> Result<V::Output> {
    let f = flag;
    let rms = || -> Result<RmsProp<T>> {
        Ok(RmsProp { lr: h("lr")?, rho: h("rho")?, momentum: h("momentum")?, epsilon: h("epsilon")? })
    };
    let proximal = |lr: &str| -> Result<ProximalGradientDescent<T>> {
        Ok(ProximalGradientDescent::new(h(lr)?, h("l1")?, h("l2")?))
    };
    let adam = || -> Result<[T; 6]> {
        Ok([h("lr")?, h("beta1_power")?, h("beta2_power")?, h("beta1")?, h("beta2")?, h("epsilon")?])
    };
    let ftrl = |[lr, l1, l2, l2_shrinkage, lr_power]: [T; 5], v: V| match (ftrl_sqrt, f) {
        (true, false) => v.visit(Ftrl::<T, true, false> { lr, l1, l2, l2_shrinkage, lr_power }),
        (true, true) => v.visit(Ftrl::<T, true, true> { lr, l1, l2, l2_shrinkage, lr_power }),
        (false, false) => v.visit(Ftrl::<T, false, false> { lr, l1, l2, l2_shrinkage, lr_power }),
        (false, true) => v.visit(Ftrl::<T, false, true> { lr, l1, l2, l2_shrinkage, lr_power }),
    };
    Ok(match family {
        Family::GradientDescent => v.visit(GradientDescent { alpha: h("alpha")? }),
        Family::ProximalGradientDescent => v.visit(proximal("alpha")?),
        Family::Adadelta => v.visit(Adadelta { lr: h("lr")?, rho: h("rho")?, epsilon: h("epsilon")? }),
        Family::Adagrad if f => v.visit(Adagrad::<T, true> { lr: h("lr")? }),
        Family::Adagrad => v.visit(Adagrad::<T, false> { lr: h("lr")? }),
        Family::ProximalAdagrad => v.visit(ProximalAdagrad(proximal("lr")?)),
        Family::AdagradDa => v.visit(AdagradDa::new(h("lr")?, h("l1")?, h("l2")?, step)),
        Family::Ftrl => ftrl([h("lr")?, h("l1")?, h("l2")?, T::ZERO, h("lr_power")?], v),
        Family::FtrlV2 => ftrl([h("lr")?, h("l1")?, h("l2")?, h("l2_shrinkage")?, h("lr_power")?], v),
        Family::Momentum if f => v.visit(Momentum::<T, true> { lr: h("lr")?, momentum: h("momentum")? }),
        Family::Momentum => v.visit(Momentum::<T, false> { lr: h("lr")?, momentum: h("momentum")? }),
        Family::Adam => {
            let [lr, beta1_power, beta2_power, beta1, beta2, epsilon] = adam()?;
            if f {
                v.visit(Adam::<T, true>::new(lr, beta1_power, beta2_power, beta1, beta2, epsilon))
            } else {
                v.visit(Adam::<T, false>::new(lr, beta1_power, beta2_power, beta1, beta2, epsilon))
            }
        }
        Family::RmsProp => v.visit(rms()?),
        Family::CenteredRmsProp => v.visit(CenteredRmsProp(rms()?)),
    })
}

/// One update's locked buffers, gradient and (sparse ops) rows, ready for a rule.
struct Run<'a, T> {
    parts: SmallVec<[&'a mut [T]; 4]>,
    grad: &'a [T],
    sparse: Option<(&'a [usize], usize)>,
    env: &'a ExecEnv,
}

impl<T: Float> RuleVisitor<T> for Run<'_, T> {
    type Output = Result<()>;
    fn visit<R: Rule<T, N>, const N: usize>(self, rule: R) -> Result<()> {
        if self.parts.len() != N {
            ff_bail!(Internal, "optimizer slot count does not match its rule");
        }
        let mut parts_in = self.parts.into_iter();
        let parts: [&mut [T]; N] = std::array::from_fn(|_| parts_in.next().unwrap_or_default());
        match self.sparse {
            None => apply_dense(parts, self.grad, rule, self.env),
            Some((rows, width)) => apply_sparse(parts, self.grad, rows, width, rule),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dispatched (vector) loop against the rule applied one element at a time,
    /// bit for bit, for lengths around every vector width.
    fn agrees<T: Float, R: Rule<T, N>, const N: usize>(rule: R) {
        for n in (0..70).chain([127, 129, 1000]) {
            let init = |k: usize, i: usize| T::from_f64(((i * 7919 + k * 104_729) % 1000) as f64 * 1e-3 + 0.01);
            let grad: Vec<T> = (0..n).map(|i| init(N, i).sub(T::from_f64(0.5))).collect();
            let mut fast: Vec<Vec<T>> = (0..N).map(|k| (0..n).map(|i| init(k, i)).collect()).collect();
            let mut slow = fast.clone();
            let parts: Vec<&mut [T]> = fast.iter_mut().map(Vec::as_mut_slice).collect();
            apply_dense(parts.try_into().ok().unwrap(), &grad, rule, &ExecEnv::SINGLE_THREADED);
            for (i, &g) in grad.iter().enumerate() {
                let mut x: [T; N] = std::array::from_fn(|k| slow[k][i]);
                rule.step(&mut x, g);
                for (s, v) in slow.iter_mut().zip(x) {
                    s[i] = v;
                }
            }
            for (f, s) in fast.iter().zip(&slow) {
                // Equal, or both NaN (`Debug` prints every NaN alike).
                assert!(f.iter().zip(s).all(|(a, b)| format!("{a:?}") == format!("{b:?}")), "n = {n}");
            }
        }
    }

    fn all_rules<T: Float>() {
        let f = T::from_f64;
        agrees(GradientDescent { alpha: f(0.1) });
        agrees(Momentum::<T, true> { lr: f(0.1), momentum: f(0.9) });
        agrees(Momentum::<T, false> { lr: f(0.1), momentum: f(0.9) });
        agrees(Adam::<T, false>::new(f(0.1), f(0.9), f(0.99), f(0.9), f(0.99), f(1e-7)));
        agrees(Adam::<T, true>::new(f(0.1), f(0.9), f(0.99), f(0.9), f(0.99), f(1e-7)));
        agrees(Adagrad::<T, true> { lr: f(0.1) });
        agrees(Adadelta { lr: f(1.0), rho: f(0.95), epsilon: f(1e-6) });
        let rms = RmsProp { lr: f(0.1), rho: f(0.9), momentum: f(0.5), epsilon: f(1e-6) };
        agrees(rms);
        agrees(CenteredRmsProp(rms));
        let prox = ProximalGradientDescent::new(f(0.5), f(0.3), f(0.1));
        agrees(prox);
        agrees(ProximalAdagrad(prox));
        let (lr, l1, l2, l2_shrinkage) = (f(0.5), f(0.01), f(0.1), f(0.2));
        agrees(Ftrl::<T, true, false> { lr, l1, l2, l2_shrinkage, lr_power: f(-0.5) });
        agrees(Ftrl::<T, false, true> { lr, l1, l2, l2_shrinkage, lr_power: f(-0.7) });
        agrees(AdagradDa::new(f(0.5), f(0.01), f(0.1), AdagradDa::step_value(3)));
    }

    #[test]
    fn vector_loops_agree_with_scalar_rules() {
        all_rules::<f32>();
        all_rules::<f64>();
        all_rules::<half::f16>();
        all_rules::<half::bf16>();
    }

    #[test]
    fn split_updates_match_one_pass() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let par = ExecEnv { intra_pool: Some(std::sync::Arc::new(pool)) };
        let n = 3 * PARALLEL_MIN + 17;
        let grad: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 * 1e-3 - 0.5).collect();
        let run = |env: &ExecEnv| {
            let (mut p, mut m, mut v) = (vec![1f32; n], vec![0.1f32; n], vec![0.2f32; n]);
            apply_dense(
                [&mut p, &mut m, &mut v],
                &grad,
                Adam::<f32, false>::new(0.01, 0.9, 0.999, 0.9, 0.999, 1e-8),
                env,
            );
            let mut a = vec![0.5f32; n];
            apply_dense([&mut p, &mut a], &grad, Momentum::<f32, true> { lr: 0.1, momentum: 0.9 }, env);
            apply_dense([&mut p], &grad, GradientDescent { alpha: 0.5 }, env);
            (p, m, v, a)
        };
        assert_eq!(run(&par), run(&ExecEnv::SINGLE_THREADED));
    }

    #[test]
    fn sparse_updates_touch_only_their_rows_once_per_index() {
        let (mut v, mut a) = (vec![1f64; 8], vec![0f64; 8]);
        let grad = [1.0, 2.0, 10.0, 20.0, 100.0, 200.0];
        apply_sparse([&mut v, &mut a], &grad, &[3, 0, 3], 2, Momentum::<f64, false> { lr: 0.1, momentum: 0.5 });
        // Row 3 is updated twice: accum 1 then 0.5 + 100; row 0 once.
        assert_eq!(a, [10.0, 20.0, 0.0, 0.0, 0.0, 0.0, 100.5, 201.0]);
        assert_eq!(v[2..4], [1.0, 1.0]);
    }
}
