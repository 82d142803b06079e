//! TF's optimizer ops (`ApplyGradientDescent`, `ApplyMomentum`, `SparseApplyMomentum`,
//! `ApplyAdam`): in-place updates of ref variables and their slots, returning the
//! variable.
use std::sync::Arc;

use super::{InferCtx, OpDef, Registry};
use crate::dispatch_float;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::graph::OutputSpec;
use crate::kernels::num::Float;
use crate::kernels::training::{
    Adam, Momentum, apply_adam, apply_gradient_descent, apply_momentum, sparse_apply_momentum,
};
use crate::kernels::{KernelBuild, OpContext, OpKernel};
use crate::resource::Var;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// Which update, and where its inputs are: the ref variables (var first, then
/// slots), the scalar hyper-parameters, and the gradient.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    GradientDescent,
    Momentum,
    Adam,
}

struct Layout {
    refs: &'static [usize],
    scalars: &'static [usize],
    grad: usize,
}

impl Kind {
    fn of(op: &str) -> Kind {
        match op {
            "ApplyGradientDescent" => Kind::GradientDescent,
            "ApplyMomentum" => Kind::Momentum,
            _ => Kind::Adam,
        }
    }
    fn layout(self) -> Layout {
        match self {
            Kind::GradientDescent => Layout { refs: &[0], scalars: &[1], grad: 2 },
            Kind::Momentum => Layout { refs: &[0, 1], scalars: &[2, 4], grad: 3 },
            Kind::Adam => Layout { refs: &[0, 1, 2], scalars: &[3, 4, 5, 6, 7, 8], grad: 9 },
        }
    }
}

fn apply_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ApplyKernel {
        kind: Kind::of(b.node.op_type()),
        nesterov: b.node.attr_bool_or("use_nesterov", false)?,
    }))
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        OpDef::new("ApplyGradientDescent", &["var", "alpha", "delta"], infer_apply, apply_kernel)
            .refs(&[0])
            .stateful()
            .no_grad(),
    );
    r.add(
        OpDef::new("ApplyMomentum", &["var", "accum", "lr", "grad", "momentum"], infer_apply, apply_kernel)
            .refs(&[0, 1])
            .stateful()
            .no_grad(),
    );
    r.add(
        OpDef::new(
            "SparseApplyMomentum",
            &["var", "accum", "lr", "grad", "indices", "momentum"],
            infer_sparse_apply,
            |b| Ok(Box::new(SparseMomentumKernel { nesterov: b.node.attr_bool_or("use_nesterov", false)? })),
        )
        .refs(&[0, 1])
        .stateful()
        .no_grad(),
    );
    r.add(
        OpDef::new(
            "ApplyAdam",
            &["var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"],
            infer_apply,
            apply_kernel,
        )
        .refs(&[0, 1, 2])
        .stateful()
        .no_grad(),
    );
}

fn infer_apply(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let all: Vec<usize> = (0..ctx.inputs.len()).collect();
    let t = ctx.same_type(&all)?;
    ctx.check_type(0, super::math::FLOATS)?;
    ctx.attr_bool("use_locking", false)?;
    if ctx.def.name != "ApplyGradientDescent" {
        ctx.attr_bool("use_nesterov", false)?;
    }
    let l = Kind::of(ctx.def.name).layout();
    let mut shape = ctx.input(0).shape.clone();
    for &i in l.refs[1..].iter().chain([&l.grad]) {
        shape = shape.merge(&ctx.input(i).shape).map_err(|_| {
            Error::value(format!(
                "Shapes must be equal rank, but are {} and {} for '{}' (op: '{}'): '{}' does not match 'var'",
                ctx.input(0).shape,
                ctx.input(i).shape,
                ctx.name,
                ctx.def.name,
                ctx.def.input_name(i)
            ))
        })?;
    }
    check_scalar_inputs(&ctx, l.scalars)?;
    Ok(vec![OutputSpec { dtype: t, shape, is_ref: true }])
}

/// The hyper-parameter inputs must be scalars when their rank is known.
fn check_scalar_inputs(ctx: &InferCtx<'_>, inputs: &[usize]) -> Result<()> {
    inputs.iter().try_for_each(|&i| ctx.check_rank(i, 0))
}

fn infer_sparse_apply(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1, 2, 3, 5])?;
    ctx.check_type(0, super::math::FLOATS)?;
    ctx.check_type(4, &[crate::dtype::DType::Int32, crate::dtype::DType::Int64])?;
    ctx.attrs.insert("Tindices".into(), crate::graph::AttrValue::Type(ctx.input(4).dtype));
    ctx.attr_bool("use_locking", false)?;
    ctx.attr_bool("use_nesterov", false)?;
    let (var, accum) = (ctx.input(0).shape.clone(), ctx.input(1).shape.clone());
    let shape = var.merge(&accum).map_err(|_| {
        Error::value(format!("Shapes {var} and {accum} are incompatible for '{}' (op: '{}')", ctx.name, ctx.def.name))
    })?;
    check_scalar_inputs(&ctx, &[2, 5])?;
    ctx.check_rank(4, 1)?;
    Ok(vec![OutputSpec { dtype: t, shape, is_ref: true }])
}

/// `SparseApplyMomentum`: the momentum update on the rows a sparse gradient touches.
struct SparseMomentumKernel {
    nesterov: bool,
}

impl OpKernel for SparseMomentumKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (var, accum) = (Arc::clone(ctx.ref_input(0)?), Arc::clone(ctx.ref_input(1)?));
        let grad = ctx.input(3)?.clone();
        let indices = super::int_values(ctx.input(4)?)?;
        let dtype = var.dtype();
        dispatch_float!(dtype, T => {
            let h = Momentum { lr: scalar::<T>(ctx, 2, "lr")?, momentum: scalar::<T>(ctx, 5, "momentum")?, nesterov: self.nesterov };
            var.update(|v| accum.update(|a| {
                if v.shape() != a.shape() || v.shape().is_empty() {
                    ff_bail!(InvalidArgument, "var and accum do not have the same shape{} {}", fmt_shape(v.shape()), fmt_shape(a.shape()));
                }
                let rows = v.shape()[0];
                let width: usize = v.shape()[1..].iter().product();
                let mut want = vec![indices.len()];
                want.extend_from_slice(&v.shape()[1..]);
                if grad.shape() != want.as_slice() {
                    ff_bail!(InvalidArgument, "grad must have shape {} for indices of length {}, got {}", fmt_shape(&want), indices.len(), fmt_shape(grad.shape()));
                }
                let mut rows_of = Vec::with_capacity(indices.len());
                for (i, &ix) in indices.iter().enumerate() {
                    match usize::try_from(ix) {
                        Ok(r) if r < rows => rows_of.push(r),
                        _ => ff_bail!(InvalidArgument, "Index {ix} at offset {i} in indices is out of range"),
                    }
                }
                sparse_apply_momentum(v.as_mut_slice::<T>()?, a.as_mut_slice::<T>()?, grad.as_slice::<T>()?, &rows_of, width, h);
                Ok(())
            }))?
        }, _ => ff_bail!(InvalidArgument, "no optimizer kernel for {dtype}"));
        ctx.set_ref_output(0, var);
        Ok(())
    }
}

/// The scalar hyper-parameter at input `i`, checked as TF does (`lr is not a scalar`).
fn scalar<T: Float + Element>(ctx: &OpContext<'_>, i: usize, name: &str) -> Result<T> {
    let t = ctx.input(i)?;
    if !t.shape().is_empty() {
        ff_bail!(InvalidArgument, "{name} is not a scalar: {}", fmt_shape(t.shape()));
    }
    t.scalar_value::<T>()
}

/// The kernel of every op here.
struct ApplyKernel {
    kind: Kind,
    nesterov: bool,
}

impl OpKernel for ApplyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let l = self.kind.layout();
        let refs: Vec<Arc<Var>> = l.refs.iter().map(|&i| ctx.ref_input(i).map(Arc::clone)).collect::<Result<_>>()?;
        let grad = ctx.input(l.grad)?.clone();
        let dtype = refs[0].dtype();
        dispatch_float!(dtype, T => self.update::<T>(ctx, &refs, &grad)?,
            _ => ff_bail!(InvalidArgument, "no optimizer kernel for {dtype}"));
        ctx.set_ref_output(0, Arc::clone(&refs[0]));
        Ok(())
    }
}

impl ApplyKernel {
    /// Locks the variable and its slots (always in input order) and runs the update.
    fn update<T: Float + Element>(&self, ctx: &OpContext<'_>, refs: &[Arc<Var>], grad: &Tensor) -> Result<()> {
        let env = ctx.env;
        let g = grad.as_slice::<T>()?;
        let check = |t: &Tensor, what: &str| -> Result<()> {
            if t.shape() != grad.shape() {
                ff_bail!(
                    InvalidArgument,
                    "var and {what} do not have the same shape{} {}",
                    fmt_shape(t.shape()),
                    fmt_shape(grad.shape())
                );
            }
            Ok(())
        };
        let s = |i, name| scalar::<T>(ctx, i, name);
        match self.kind {
            Kind::GradientDescent => {
                let alpha = s(1, "alpha")?;
                refs[0].update(|v| {
                    check(v, "delta")?;
                    apply_gradient_descent(v.as_mut_slice::<T>()?, g, alpha, env);
                    Ok(())
                })
            }
            Kind::Momentum => {
                let h = Momentum { lr: s(2, "lr")?, momentum: s(4, "momentum")?, nesterov: self.nesterov };
                refs[0].update(|v| {
                    refs[1].update(|a| {
                        check(v, "grad")?;
                        check(a, "accum")?;
                        apply_momentum(v.as_mut_slice::<T>()?, a.as_mut_slice::<T>()?, g, h, env);
                        Ok(())
                    })
                })
            }
            Kind::Adam => {
                let (lr, b1p, b2p) = (s(5, "lr")?, s(3, "beta1_power")?, s(4, "beta2_power")?);
                let h = Adam::new(lr, b1p, b2p, s(6, "beta1")?, s(7, "beta2")?, s(8, "epsilon")?, self.nesterov);
                refs[0].update(|p| {
                    refs[1].update(|m| {
                        refs[2].update(|v| {
                            check(p, "grad")?;
                            check(m, "m")?;
                            check(v, "v")?;
                            let (ps, ms, vs) = (p.as_mut_slice::<T>()?, m.as_mut_slice::<T>()?, v.as_mut_slice::<T>()?);
                            apply_adam(ps, ms, vs, g, h, env);
                            Ok(())
                        })
                    })
                })
            }
        }
    }
}
