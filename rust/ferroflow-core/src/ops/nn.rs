//! Neural-network ops: activations, softmax, the fused softmax cross-entropy losses,
//! `BiasAdd` and `L2Loss` (TF's op names, inputs and outputs).
use std::marker::PhantomData;

use super::math::FLOATS;
use super::{InferCtx, OpDef, Registry};
use crate::autodiff::nn_grad as g;
use crate::dispatch_float;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, OutputSpec};
use crate::kernels::elementwise::{binary, unary};
use crate::kernels::nn::{
    bias_add, bias_add_grad, in_top_k, l2_loss, labels_i64, softmax, softmax_xent, sparse_softmax_xent,
};
use crate::kernels::num::{Float, Num};
use crate::kernels::{KernelBuild, OpContext, OpKernel, stateless};
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    // Relu and Relu6 also take integers, as in TF.
    r.add(OpDef::new("Relu", &["features"], infer_numeric_unary, clamp_kernel::<false>).grad(g::relu));
    r.add(OpDef::new("Relu6", &["features"], infer_numeric_unary, clamp_kernel::<true>).grad(g::relu6));
    r.add(OpDef::new("Elu", &["features"], infer_float_unary, activation::<EluFn>).grad(g::elu));
    r.add(OpDef::new("Softplus", &["features"], infer_float_unary, activation::<SoftplusFn>).grad(g::softplus));
    r.add(
        OpDef::new("ReluGrad", &["gradients", "features"], infer_float_binary, activation_grad::<ReluGradFn>)
            .grad(g::relu_grad),
    );
    r.add(
        OpDef::new("Relu6Grad", &["gradients", "features"], infer_float_binary, activation_grad::<Relu6GradFn>)
            .grad(g::relu6_grad),
    );
    r.add(
        OpDef::new("EluGrad", &["gradients", "outputs"], infer_float_binary, activation_grad::<EluGradFn>)
            .grad(g::elu_grad),
    );
    r.add(
        OpDef::new("SoftplusGrad", &["gradients", "features"], infer_float_binary, activation_grad::<SoftplusGradFn>)
            .grad(g::softplus_grad),
    );
    r.add(
        OpDef::new("Softmax", &["logits"], infer_float_unary, |_| stateless(|c| softmax_compute(c, false)))
            .grad(g::softmax),
    );
    r.add(
        OpDef::new("LogSoftmax", &["logits"], infer_float_unary, |_| stateless(|c| softmax_compute(c, true)))
            .grad(g::log_softmax),
    );
    r.add(
        OpDef::new("SoftmaxCrossEntropyWithLogits", &["features", "labels"], infer_xent, |_| stateless(xent_compute))
            .grad(g::softmax_xent),
    );
    r.add(
        OpDef::new("SparseSoftmaxCrossEntropyWithLogits", &["features", "labels"], infer_sparse_xent, |_| {
            stateless(sparse_xent_compute)
        })
        .grad(g::sparse_softmax_xent),
    );
    r.add(OpDef::new("BiasAdd", &["value", "bias"], infer_bias_add, |_| stateless(bias_add_compute)).grad(g::bias_add));
    r.add(
        OpDef::new("BiasAddGrad", &["out_backprop"], infer_bias_add_grad, |_| stateless(bias_add_grad_compute))
            .grad(g::bias_add_grad),
    );
    r.add(OpDef::new("L2Loss", &["t"], infer_l2_loss, |_| stateless(l2_loss_compute)).grad(g::l2_loss));
    r.add(
        OpDef::new("InTopKV2", &["predictions", "targets", "k"], infer_in_top_k, |_| stateless(in_top_k_compute))
            .no_grad(),
    );
}

fn infer_float_unary(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, FLOATS)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

fn infer_numeric_unary(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, super::math::NUMERIC)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

/// `Relu` (`max(x, 0)`) and, with `SIX`, `Relu6` (`min(max(x, 0), 6)`) for every numeric type.
struct ClampKernel<const SIX: bool>;

fn clamp_kernel<const SIX: bool>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ClampKernel::<SIX>))
}

impl<const SIX: bool> OpKernel for ClampKernel<SIX> {
    // `v < 0` is always false for uint8, which is fine.
    #[allow(clippy::absurd_extreme_comparisons)]
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0)?;
        let out = crate::dispatch_numeric!(x.dtype(), T => unary::<T>(x, ctx.env, |v| {
            // NaN passes through `max` unchanged, as TF's Relu.
            let r = if v < T::ZERO { T::ZERO } else { v };
            if SIX && r > six() { six() } else { r }
        })?, _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn infer_float_binary(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, FLOATS)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.merge(&ctx.input(1).shape)?)])
}

/// An activation `f(x)`.
trait ActivationFn: Send + Sync + 'static {
    fn apply<T: Float>(x: T) -> T;
}
/// An activation gradient `(dy, x_or_y) -> dx`.
trait ActivationGradFn: Send + Sync + 'static {
    fn apply<T: Float>(dy: T, v: T) -> T;
}

fn six<T: Num>() -> T {
    T::from_usize(6)
}

macro_rules! activation_fn {
    ($trait:ident, $name:ident, |$($a:ident),*| $e:expr) => {
        struct $name;
        impl $trait for $name {
            #[inline]
            fn apply<T: Float>($($a: T),*) -> T { $e }
        }
    };
}
activation_fn!(ActivationFn, EluFn, |x| if x > T::ZERO { x } else { x.exp().sub(T::ONE) });
// log(1 + exp(x)) computed without overflow: max(x, 0) + log1p(exp(-|x|)).
activation_fn!(ActivationFn, SoftplusFn, |x| x.max(T::ZERO).add(x.abs().neg().exp().ln_1p()));
activation_fn!(ActivationGradFn, ReluGradFn, |dy, x| if x > T::ZERO { dy } else { T::ZERO });
activation_fn!(ActivationGradFn, Relu6GradFn, |dy, x| if x > T::ZERO && x < six() { dy } else { T::ZERO });
activation_fn!(ActivationGradFn, EluGradFn, |dy, y| if y > T::ZERO { dy } else { dy.mul(y.add(T::ONE)) });
activation_fn!(ActivationGradFn, SoftplusGradFn, |dy, x| dy.div(T::ONE.add(x.neg().exp())));

struct Activation<F>(PhantomData<F>);
struct ActivationGrad<F>(PhantomData<F>);

fn activation<F: ActivationFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Activation::<F>(PhantomData)))
}
fn activation_grad<F: ActivationGradFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ActivationGrad::<F>(PhantomData)))
}

impl<F: ActivationFn> OpKernel for Activation<F> {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0)?;
        let out = dispatch_float!(x.dtype(), T => unary::<T>(x, ctx.env, F::apply::<T>)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

impl<F: ActivationGradFn> OpKernel for ActivationGrad<F> {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (dy, v) = (ctx.take_input(0)?, ctx.take_input(1)?);
        if dy.shape() != v.shape() {
            ff_bail!(InvalidArgument, "gradients and features must have the same shape");
        }
        let out = dispatch_float!(dy.dtype(), T => binary::<T>(dy, v, ctx.env, F::apply::<T>)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", dy.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn softmax_compute(ctx: &mut OpContext<'_>, log: bool) -> Result<()> {
    let x = ctx.input(0)?;
    let out = dispatch_float!(x.dtype(), T => softmax::<T>(x, log)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
    ctx.set_output(0, out);
    Ok(())
}

fn rank2(ctx: &InferCtx<'_>, i: usize, what: &str) -> Result<[Option<usize>; 2]> {
    match ctx.input(i).shape.dims() {
        None => Ok([None, None]),
        Some([a, b]) => Ok([*a, *b]),
        Some(d) => {
            Err(Error::value(format!("Shape must be rank 2 but is rank {} for '{}' ({what})", d.len(), ctx.name)))
        }
    }
}

fn infer_xent(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, FLOATS)?;
    let [b0, c0] = rank2(&ctx, 0, "logits")?;
    let [b1, c1] = rank2(&ctx, 1, "labels")?;
    let merged = PartialShape::from_dims([b0, c0]).merge(&PartialShape::from_dims([b1, c1])).map_err(|_| {
        Error::value(format!(
            "logits and labels must have the same shape {} vs {}",
            ctx.input(0).shape,
            ctx.input(1).shape
        ))
    })?;
    let b = merged.dims().and_then(|d| d[0]);
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([b])), OutputSpec::new(t, merged)])
}

fn xent_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (x, y) = (ctx.input(0)?, ctx.input(1)?);
    let (loss, back) = dispatch_float!(x.dtype(), T => softmax_xent::<T>(x, y)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
    ctx.set_output(0, loss);
    ctx.set_output(1, back);
    Ok(())
}

fn infer_sparse_xent(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.check_type(0, FLOATS)?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.attrs.insert("Tlabels".into(), AttrValue::Type(ctx.input(1).dtype));
    let [b, c] = rank2(&ctx, 0, "logits")?;
    let lb = match ctx.input(1).shape.dims() {
        None => None,
        Some([x]) => *x,
        Some(d) => {
            return Err(Error::value(format!(
                "Shape must be rank 1 but is rank {} for '{}' (labels)",
                d.len(),
                ctx.name
            )));
        }
    };
    let b = PartialShape::from_dims([b]).merge(&PartialShape::from_dims([lb]))?.dims().and_then(|d| d[0]);
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([b])), OutputSpec::new(t, PartialShape::from_dims([b, c]))])
}

fn sparse_xent_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let labels = labels_i64(ctx.input(1)?)?;
    let (loss, back) = dispatch_float!(x.dtype(), T => sparse_softmax_xent::<T>(x, &labels)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
    ctx.set_output(0, loss);
    ctx.set_output(1, back);
    Ok(())
}

fn infer_bias_add(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, FLOATS)?;
    ctx.attrs.entry("data_format".into()).or_insert_with(|| AttrValue::S(b"NHWC".to_vec()));
    if let Some(AttrValue::S(f)) = ctx.attrs.get("data_format")
        && f.as_slice() != b"NHWC"
    {
        return Err(Error::value("BiasAdd supports data_format NHWC"));
    }
    if let Some(r) = ctx.input(0).shape.rank()
        && r < 2
    {
        return Err(Error::value(format!(
            "Shape must be at least rank 2 but is rank {r} for '{}' (op: 'BiasAdd')",
            ctx.name
        )));
    }
    let (v, b) = (ctx.input(0).shape.clone(), ctx.input(1).shape.clone());
    ctx.check_rank(1, 1)?;
    let Some(vd) = v.dims() else { return Ok(vec![OutputSpec::new(t, v)]) };
    // The last dimension is the bias length.
    let last = PartialShape::from_dims([vd[vd.len() - 1]]).merge(&b).map_err(|_| {
        Error::value(format!(
            "Dimensions must be equal for '{}' (op: 'BiasAdd') with input shapes: {v}, {b}.",
            ctx.name
        ))
    })?;
    let mut dims = vd.to_vec();
    dims[vd.len() - 1] = last.dims().and_then(|d| d.first().copied()).flatten();
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims(dims))])
}

fn bias_add_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (v, b) = (ctx.take_input(0)?, ctx.input(1)?.clone());
    let out = dispatch_float!(v.dtype(), T => bias_add::<T>(v, &b)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", v.dtype()));
    ctx.set_output(0, out);
    Ok(())
}

fn infer_bias_add_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, FLOATS)?;
    ctx.attrs.entry("data_format".into()).or_insert_with(|| AttrValue::S(b"NHWC".to_vec()));
    let c = ctx.input(0).shape.dims().and_then(|d| d.last().copied().flatten());
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([c]))])
}

fn bias_add_grad_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let g = ctx.input(0)?;
    let out = dispatch_float!(g.dtype(), T => bias_add_grad::<T>(g)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", g.dtype()));
    ctx.set_output(0, out);
    Ok(())
}

fn infer_l2_loss(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, FLOATS)?;
    Ok(vec![OutputSpec::new(t, PartialShape::scalar())])
}

fn l2_loss_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let out = dispatch_float!(x.dtype(), T => l2_loss::<T>(x)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
    ctx.set_output(0, out);
    Ok(())
}

fn infer_in_top_k(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Float32])?;
    let t = ctx.same_type(&[1, 2])?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    let [b, _] = rank2(&ctx, 0, "predictions")?;
    let targets = match ctx.input(1).shape.dims() {
        None => None,
        Some([x]) => *x,
        Some(d) => {
            return Err(Error::value(format!(
                "Shape must be rank 1 but is rank {} for '{}' (targets)",
                d.len(),
                ctx.name
            )));
        }
    };
    ctx.check_rank(2, 0)?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    let b = PartialShape::from_dims([b]).merge(&PartialShape::from_dims([targets])).map_err(|_| {
        Error::value(format!("predictions and targets must have the same batch size for '{}'", ctx.name))
    })?;
    Ok(vec![OutputSpec::new(DType::Bool, b)])
}

fn in_top_k_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let targets = labels_i64(ctx.input(1)?)?;
    let k = super::scalar_int(ctx.input(2)?, "k")?;
    let out = in_top_k(ctx.input(0)?, &targets, k)?;
    ctx.set_output(0, out);
    Ok(())
}
