//! Neural-network kernels over the last dimension: softmax, log-softmax, the fused
//! softmax cross-entropy losses (loss and backprop in one pass, as TF's kernels),
//! bias add and its gradient, L2 loss; and the kernels of the nn ops (activations and
//! their gradients, `InTopKV2`; shapes and registration in `ops/nn.rs`).
use std::marker::PhantomData;

use super::elementwise::{binary, unary};
use super::num::{Float, Num};
use multiversion::multiversion;

use super::{ExecEnv, KernelBuild, OpContext, OpKernel, stateless};
use crate::dispatch_float;
use crate::dtype::DType;
use crate::error::Result;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

fn rows(t: &Tensor, what: &str) -> Result<(usize, usize)> {
    let s = t.shape();
    if s.is_empty() {
        ff_bail!(InvalidArgument, "{what} must have at least one dimension, got shape []");
    }
    let c = s[s.len() - 1];
    Ok((t.num_elements().checked_div(c).unwrap_or(0), c))
}

/// Lanes of the row reductions: independent accumulators, so the loops vectorise
/// (one accumulator would fix the order of every addition).
const LANES: usize = 16;

/// `row` folded by `f` from `init` in [`LANES`] partial results, then across them.
#[inline(always)]
fn row_fold<T: Float>(row: &[T], init: T, f: impl Fn(T, T) -> T) -> T {
    let mut lanes = [init; LANES];
    let chunks = row.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (l, &v) in lanes.iter_mut().zip(chunk) {
            *l = f(*l, v);
        }
    }
    rest.iter().fold(lanes.into_iter().fold(init, &f), |a, &v| f(a, v))
}

/// `row`'s largest element, NaNs skipped: the rows' softmaxes and cross-entropies come
/// out NaN anyway when one is there (the NaN reaches their sum), and a plain compare is
/// one instruction where a NaN-propagating max is four.
#[inline(always)]
fn row_max<T: Float>(row: &[T]) -> T {
    row_fold(row, T::LOWEST, |m, v| if v > m { v } else { m })
}

/// TF's softmax of one row into `out`: `exp(x - max) / sum`, or with `log`,
/// `(x - max) - log(sum)`, where `sum` adds the shifted exponentials.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn softmax_row<T: Float>(row: &[T], out: &mut [T], log: bool) {
    softmax_row_inline(row, out, log);
}

/// [`softmax_row`]'s body, for loops of other vectorised kernels to inline.
#[inline(always)]
fn softmax_row_inline<T: Float>(row: &[T], out: &mut [T], log: bool) {
    let max = row_max(row);
    // The exponentials are summed as they are written (in LANES partial sums).
    let mut lanes = [T::ZERO; LANES];
    let split = row.len() / LANES * LANES;
    for (o, r) in out[..split].chunks_exact_mut(LANES).zip(row[..split].chunks_exact(LANES)) {
        for ((l, o), &v) in lanes.iter_mut().zip(o).zip(r) {
            *o = v.sub(max).exp_nonpositive();
            *l = l.add(*o);
        }
    }
    let mut sum = lanes.into_iter().fold(T::ZERO, T::add);
    for (o, &v) in out[split..].iter_mut().zip(&row[split..]) {
        *o = v.sub(max).exp_nonpositive();
        sum = sum.add(*o);
    }
    if log {
        let log_sum = sum.ln();
        for (o, &v) in out.iter_mut().zip(row) {
            *o = v.sub(max).sub(log_sum);
        }
    } else {
        // As TF's kernel: a multiply by the sum's reciprocal, not a divide per element.
        let inv = T::ONE.div(sum);
        for o in out.iter_mut() {
            *o = o.mul(inv);
        }
    }
}

/// The dense cross-entropy of one row: its loss `-sum(labels * log_softmax)`, with the
/// backprop `softmax - labels` written to `grad`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn xent_row<T: Float>(row: &[T], labels: &[T], grad: &mut [T]) -> T {
    softmax_row_inline(row, grad, true);
    let mut lanes = [T::ZERO; LANES];
    let (chunks, rest) = (grad.chunks_exact(LANES), grad.len() / LANES * LANES);
    for (chunk, lab) in chunks.zip(labels.chunks_exact(LANES)) {
        for ((l, &g), &y) in lanes.iter_mut().zip(chunk).zip(lab) {
            *l = l.add(y.mul(g));
        }
    }
    let tail = grad[rest..].iter().zip(&labels[rest..]).fold(T::ZERO, |a, (&g, &y)| a.add(y.mul(g)));
    let total = lanes.into_iter().fold(T::ZERO, T::add).add(tail);
    for (g, &y) in grad.iter_mut().zip(labels) {
        *g = g.exp().sub(y);
    }
    total.neg()
}

/// The sparse cross-entropy of one row of class `k`: its loss `-log_softmax[k]`, with
/// the backprop `softmax - onehot(k)` written to `grad`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn sparse_xent_row<T: Float>(row: &[T], k: usize, grad: &mut [T]) -> T {
    softmax_row_inline(row, grad, true);
    let loss = grad[k].neg();
    for g in grad.iter_mut() {
        *g = g.exp();
    }
    grad[k] = grad[k].sub(T::ONE);
    loss
}

/// Runs `f(first_row, losses, grads)` over blocks of rows of the `b x c` backprop
/// `grad` and the `b` losses `loss`, on the intra-op threads when the rows are many.
fn for_row_blocks<T: Send>(
    env: &ExecEnv,
    loss: &mut [T],
    grad: &mut [T],
    c: usize,
    f: impl Fn(usize, &mut [T], &mut [T]) + Sync,
) {
    let b = loss.len();
    env.for_each_row_block([loss, grad], &[1, c], b, |rows, parts| {
        if let [l, g] = parts {
            f(rows.start, l, g);
        }
    });
}

/// Softmax (or log-softmax) over the last dimension, rows split over the intra-op
/// threads.
pub fn softmax<T: Float>(x: &Tensor, log: bool, env: &ExecEnv) -> Result<Tensor> {
    let (_, c) = rows(x, "logits")?;
    let mut out = Tensor::for_overwrite(x.dtype(), x.shape())?;
    if c == 0 || out.num_elements() == 0 {
        return Ok(out);
    }
    let src = x.as_slice::<T>()?;
    let dst = out.as_mut_slice::<T>()?;
    let min_rows = super::elementwise::PARALLEL_MIN.div_ceil(c) * c;
    env.for_each_chunk(dst, min_rows, c, |offset, chunk| {
        for (r, o) in src[offset..offset + chunk.len()].chunks_exact(c).zip(chunk.chunks_exact_mut(c)) {
            softmax_row(r, o, log);
        }
    });
    Ok(out)
}

/// `SoftmaxCrossEntropyWithLogits`: per-row loss `-sum(labels * log_softmax)` and
/// backprop `softmax - labels`.
pub fn softmax_xent<T: Float>(logits: &Tensor, labels: &Tensor, env: &ExecEnv) -> Result<(Tensor, Tensor)> {
    if logits.shape() != labels.shape() || logits.shape().len() != 2 {
        ff_bail!(
            InvalidArgument,
            "logits and labels must be 2-D and the same shape: logits_size={} labels_size={}",
            fmt_shape(logits.shape()),
            fmt_shape(labels.shape())
        );
    }
    let (b, c) = rows(logits, "logits")?;
    let mut loss = Tensor::zeros(logits.dtype(), &[b])?;
    let mut back = Tensor::zeros(logits.dtype(), logits.shape())?;
    if c == 0 {
        return Ok((loss, back));
    }
    let (x, y) = (logits.as_slice::<T>()?, labels.as_slice::<T>()?);
    for_row_blocks(env, loss.as_mut_slice::<T>()?, back.as_mut_slice::<T>()?, c, |r0, l, g| {
        for (i, (lv, grad)) in l.iter_mut().zip(g.chunks_exact_mut(c)).enumerate() {
            let r = (r0 + i) * c;
            *lv = xent_row(&x[r..r + c], &y[r..r + c], grad);
        }
    });
    Ok((loss, back))
}

/// `SparseSoftmaxCrossEntropyWithLogits`: integer class labels.
pub fn sparse_softmax_xent<T: Float>(logits: &Tensor, labels: &Tensor, env: &ExecEnv) -> Result<(Tensor, Tensor)> {
    let labels = Labels::of(labels)?;
    if logits.shape().len() != 2 || labels.len() != logits.shape()[0] {
        ff_bail!(
            InvalidArgument,
            "logits must be 2-D and labels 1-D with as many rows: logits shape {} labels {}",
            fmt_shape(logits.shape()),
            labels.len()
        );
    }
    let (b, c) = rows(logits, "logits")?;
    if c == 0 {
        ff_bail!(InvalidArgument, "Must have at least one class, but got logits shape {}", fmt_shape(logits.shape()));
    }
    // Every label checked first, so a bad one fails before any work (TF's error).
    if let Some(label) = (0..b).map(|r| labels.get(r)).find(|&l| usize::try_from(l).map_or(true, |k| k >= c)) {
        ff_bail!(InvalidArgument, "Received a label value of {label} which is outside the valid range of [0, {c}).");
    }
    let mut loss = Tensor::zeros(logits.dtype(), &[b])?;
    let mut back = Tensor::zeros(logits.dtype(), logits.shape())?;
    let x = logits.as_slice::<T>()?;
    for_row_blocks(env, loss.as_mut_slice::<T>()?, back.as_mut_slice::<T>()?, c, |r0, l, g| {
        for (i, (lv, grad)) in l.iter_mut().zip(g.chunks_exact_mut(c)).enumerate() {
            let r = r0 + i;
            // In [0, c): checked above.
            let class = labels.get(r) as usize;
            *lv = sparse_xent_row(&x[r * c..(r + 1) * c], class, grad);
        }
    });
    Ok((loss, back))
}

/// The channel axis of `data_format` (`NHWC`-style: last; `NCHW`-style: 1) in a tensor
/// of `shape`, which TF's bias kernels require to be at least 2-D (3-D channels first).
pub fn channel_axis(data_format: &str, shape: &[usize]) -> Result<usize> {
    let rank = shape.len();
    let channels_first = data_format.starts_with("NC");
    let least = if channels_first { 3 } else { 2 };
    if rank < least {
        ff_bail!(InvalidArgument, "Input tensor must be at least {least}D: {}", fmt_shape(shape));
    }
    Ok(if channels_first { 1 } else { rank - 1 })
}

/// `shape` seen as `[outer, channels, inner]` around `axis`.
pub fn around_axis(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// The channel count and the run of elements sharing one channel (`1` for channels
/// last) of a `BiasAdd` of `bias` to a value of `shape`; an error when `bias` is not
/// one value per channel.
pub fn bias_channels(shape: &[usize], bias: &Tensor, data_format: &str) -> Result<(usize, usize)> {
    let axis = channel_axis(data_format, shape)?;
    let (_, c, inner) = around_axis(shape, axis);
    if bias.shape() != [c] {
        ff_bail!(
            InvalidArgument,
            "Must provide as many biases as the channel dimension of the input tensor: {} vs. {}",
            fmt_shape(bias.shape()),
            fmt_shape(shape)
        );
    }
    Ok((c, inner))
}

/// `BiasAdd`: adds `bias` along the channel axis of `data_format`, in `value`'s buffer
/// when nothing else shares it.
pub fn bias_add<T: Float>(value: Tensor, bias: &Tensor, data_format: &str) -> Result<Tensor> {
    let (c, inner) = bias_channels(value.shape(), bias, data_format)?;
    let b = bias.as_slice::<T>()?;
    if c == 0 || inner == 0 {
        return Ok(value);
    }
    if inner == 1 {
        // Channels last (NHWC, and every matrix): the bias is added row by row, a loop
        // LLVM vectorises (per element, the channel's `k % c` cost ten times the add).
        // A shared input is read once into a new buffer rather than copied first.
        if value.is_unique() {
            let mut out = value;
            add_to_rows(out.as_mut_slice::<T>()?, None, b);
            return Ok(out);
        }
        let mut out = Tensor::for_overwrite(value.dtype(), value.shape())?;
        add_to_rows(out.as_mut_slice::<T>()?, Some(value.as_slice::<T>()?), b);
        return Ok(out);
    }
    let mut out = value;
    for (k, run) in out.as_mut_slice::<T>()?.chunks_exact_mut(inner).enumerate() {
        let v = b[k % c];
        run.iter_mut().for_each(|o| *o = o.add(v));
    }
    Ok(out)
}

/// `out[r] = src[r] + b` (or `out[r] += b`) for every row `r` of `b`'s length.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn add_to_rows<T: Float>(out: &mut [T], src: Option<&[T]>, b: &[T]) {
    match src {
        Some(src) => {
            for (row, s) in out.chunks_exact_mut(b.len()).zip(src.chunks_exact(b.len())) {
                for ((o, &x), &v) in row.iter_mut().zip(s).zip(b) {
                    *o = x.add(v);
                }
            }
        }
        None => {
            for row in out.chunks_exact_mut(b.len()) {
                row.iter_mut().zip(b).for_each(|(o, &v)| *o = o.add(v));
            }
        }
    }
}

/// Column sums of the rows of `grad` (`out.len()` wide) added into `out`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn sum_rows_into<T: Float>(out: &mut [T], grad: &[T]) {
    for row in grad.chunks_exact(out.len()) {
        out.iter_mut().zip(row).for_each(|(o, &v)| *o = o.add(v));
    }
}

/// `BiasAddGrad`: sums the gradient over every dimension but the channel axis of
/// `data_format`.
pub fn bias_add_grad<T: Float>(grad: &Tensor, data_format: &str) -> Result<Tensor> {
    let axis = channel_axis(data_format, grad.shape())?;
    let (_, c, inner) = around_axis(grad.shape(), axis);
    let mut result = Tensor::zeros(T::DTYPE, &[c])?;
    let out = result.as_mut_slice::<T>()?;
    if c > 0 && inner == 1 {
        // Channels last: whole rows summed into the channels, vectorised across them.
        sum_rows_into(out, grad.as_slice::<T>()?);
    } else if c > 0 && inner > 0 {
        for (k, run) in grad.as_slice::<T>()?.chunks_exact(inner).enumerate() {
            let o = &mut out[k % c];
            *o = run.iter().fold(*o, |a, &v| a.add(v));
        }
    }
    Ok(result)
}

/// `L2Loss`: `sum(x ** 2) / 2`.
pub fn l2_loss<T: Float>(x: &Tensor) -> Result<Tensor> {
    let s = x.as_slice::<T>()?;
    let mut acc = [T::ZERO; 8];
    let chunks = s.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..8 {
            acc[i] = acc[i].add(c[i].mul(c[i]));
        }
    }
    let mut total = rest.iter().fold(T::ZERO, |a, &v| a.add(v.mul(v)));
    for a in acc {
        total = total.add(a);
    }
    let half = T::ONE.div(T::ONE.add(T::ONE));
    let mut t = Tensor::zeros(x.dtype(), &[])?;
    t.as_mut_slice::<T>()?[0] = total.mul(half);
    Ok(t)
}

/// Class labels read in place from an int32 or int64 tensor.
#[derive(Clone, Copy)]
enum Labels<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
}

impl<'a> Labels<'a> {
    fn of(t: &'a Tensor) -> Result<Self> {
        match t.dtype() {
            DType::Int32 => Ok(Labels::I32(t.as_slice()?)),
            DType::Int64 => Ok(Labels::I64(t.as_slice()?)),
            d => ff_bail!(InvalidArgument, "labels must be int32 or int64, got {d}"),
        }
    }
    fn len(self) -> usize {
        match self {
            Labels::I32(v) => v.len(),
            Labels::I64(v) => v.len(),
        }
    }
    fn get(self, i: usize) -> i64 {
        match self {
            Labels::I32(v) => i64::from(v[i]),
            Labels::I64(v) => v[i],
        }
    }
}

/// Labels of any integer dtype as i64.
pub fn labels_i64(t: &Tensor) -> Result<Vec<i64>> {
    match t.dtype() {
        DType::Int32 | DType::Int64 => crate::framework::tensor_util::int_values(t).map(smallvec::SmallVec::into_vec),
        d => ff_bail!(InvalidArgument, "labels must be int32 or int64, got {d}"),
    }
}

/// `InTopKV2`: whether each row's target class is among its `k` largest predictions.
/// Ties at the boundary count as inside; a non-finite prediction in the row, or a
/// target outside `[0, classes)`, gives `false` (TF's rules).
pub fn in_top_k(predictions: &Tensor, targets: &[i64], k: i64) -> Result<Tensor> {
    let (batch, classes) = match predictions.shape() {
        &[b, c] => (b, c),
        s => ff_bail!(InvalidArgument, "predictions must be 2-dimensional, got {}", fmt_shape(s)),
    };
    if targets.len() != batch {
        ff_bail!(
            InvalidArgument,
            "First dimension of predictions {batch} must match length of targets {}",
            targets.len()
        );
    }
    let p = predictions.as_slice::<f32>()?;
    let out: Vec<bool> = (0..batch)
        .map(|b| {
            let row = &p[b * classes..][..classes];
            let Some(&target) = usize::try_from(targets[b]).ok().and_then(|t| row.get(t)) else { return false };
            if !target.is_finite() || row.iter().any(|v| !v.is_finite()) {
                return false;
            }
            let better = row.iter().filter(|&&v| v > target).count();
            i64::try_from(better).is_ok_and(|n| n < k)
        })
        .collect();
    Tensor::from_slice(&[batch], &out)
}

/// `Relu` (`max(x, 0)`) and, with `SIX`, `Relu6` (`min(max(x, 0), 6)`) for every numeric type.
struct ClampKernel<const SIX: bool>;

/// `Relu` and `Relu6`.
pub(crate) fn clamp_kernel<const SIX: bool>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ClampKernel::<SIX>))
}

/// `Relu`'s element function (`Relu6`'s with `SIX`); the fused contractions apply it too.
// `v < 0` is always false for uint8, which is fine.
#[allow(clippy::absurd_extreme_comparisons)]
#[inline(always)]
pub(crate) fn clamp<T: Num, const SIX: bool>(v: T) -> T {
    // NaN passes through `max` unchanged, as TF's Relu.
    let r = if v < T::ZERO { T::ZERO } else { v };
    if SIX && r > six() { six() } else { r }
}

impl<const SIX: bool> OpKernel for ClampKernel<SIX> {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0)?;
        let out = crate::dispatch_numeric!(x.dtype(), T => unary::<T>(x, ctx.env, clamp::<T, SIX>)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// An activation `f(x)`.
pub(crate) trait ActivationFn: Send + Sync + 'static {
    fn apply<T: Float>(x: T) -> T;
}
/// An activation gradient `(dy, x_or_y) -> dx`.
pub(crate) trait ActivationGradFn: Send + Sync + 'static {
    fn apply<T: Float>(dy: T, v: T) -> T;
}

fn six<T: Num>() -> T {
    T::from_usize(6)
}

macro_rules! activation_fn {
    ($trait:ident, $name:ident, |$($a:ident),*| $e:expr) => {
        pub(crate) struct $name;
        impl $trait for $name {
            // Always: an activation with an `exp` is too large for LLVM to inline into
            // the vectorised loop by itself (a call per element, 10x slower).
            #[inline(always)]
            fn apply<T: Float>($($a: T),*) -> T { $e }
        }
    };
}
activation_fn!(ActivationFn, EluFn, |x| if x > T::ZERO { x } else { x.exp().sub(T::ONE) });
/// TF's softplus functor for one element: `x` above `-t`, `exp(x)` below `t`, else
/// `log1p(exp(x))`, each step rounded to `T`, where `t = log(epsilon) + 2` is where
/// the others are within an epsilon. Every branch is computed and one selected, so
/// the loop vectorises (the functions are branch-free).
#[inline(always)]
fn softplus_of<T: Float>(x: T, threshold: T) -> T {
    let e = x.exp();
    let soft = e.ln_1p();
    let below = if x < threshold { e } else { soft };
    if x > threshold.neg() { x } else { below }
}

/// `Softplus`: its threshold computed once per run, not per element. (Through the
/// activation table, with the threshold inside the element function, it measured
/// 14-24 ns per element against 1.1 here: the loop does not vectorise.)
pub(crate) fn softplus_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    super::stateless(|ctx| {
        let x = ctx.take_input(0)?;
        let out = dispatch_float!(x.dtype(), T => {
            let threshold = T::EPSILON.ln().add(T::ONE.add(T::ONE));
            // Inlined into the vectorised loop (too large for LLVM to inline by itself).
            unary::<T>(x, ctx.env, #[inline(always)] move |v| softplus_of(v, threshold))?
        }, _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    })
}
/// SELU's constants (TF's `selu` functor): `scale` and `scale * alpha`.
fn selu_scales<T: Float>() -> (T, T) {
    (T::from_f64(1.050_700_987_355_480_5), T::from_f64(1.758_099_340_847_376_9))
}
// TF's functors: `scale_alpha (exp(x) - 1)` below zero, else `scale x`; the gradient
// from the outputs. Softsign `x / (|x| + 1)`, its gradient `dy / (|x| + 1)^2`.
activation_fn!(ActivationFn, SeluFn, |x| {
    let (scale, scale_alpha) = selu_scales::<T>();
    let negative = scale_alpha.mul(x.exp().sub(T::ONE));
    if x < T::ZERO { negative } else { scale.mul(x) }
});
activation_fn!(ActivationFn, SoftsignFn, |x| x.div(x.abs().add(T::ONE)));
activation_fn!(ActivationGradFn, SeluGradFn, |dy, y| {
    let (scale, scale_alpha) = selu_scales::<T>();
    if y < T::ZERO { dy.mul(y.add(scale_alpha)) } else { dy.mul(scale) }
});
activation_fn!(ActivationGradFn, SoftsignGradFn, |dy, x| {
    let d = x.abs().add(T::ONE);
    dy.div(d.mul(d))
});
activation_fn!(ActivationGradFn, ReluGradFn, |dy, x| if x > T::ZERO { dy } else { T::ZERO });
activation_fn!(ActivationGradFn, Relu6GradFn, |dy, x| if x > T::ZERO && x < six() { dy } else { T::ZERO });
activation_fn!(ActivationGradFn, EluGradFn, |dy, y| if y > T::ZERO { dy } else { dy.mul(y.add(T::ONE)) });
activation_fn!(ActivationGradFn, SoftplusGradFn, |dy, x| dy.div(T::ONE.add(x.neg().exp())));

struct Activation<F>(PhantomData<F>);
struct ActivationGrad<F>(PhantomData<F>);

/// The kernel of an activation.
pub(crate) fn activation<F: ActivationFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Activation::<F>(PhantomData)))
}
/// The kernel of an activation gradient.
pub(crate) fn activation_grad<F: ActivationGradFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
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
    let out = dispatch_float!(x.dtype(), T => softmax::<T>(x, log, ctx.env)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
    ctx.set_output(0, out);
    Ok(())
}

fn xent_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (x, y) = (ctx.input(0)?, ctx.input(1)?);
    let (loss, back) = dispatch_float!(x.dtype(), T => softmax_xent::<T>(x, y, ctx.env)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
    ctx.set_output(0, loss);
    ctx.set_output(1, back);
    Ok(())
}

fn sparse_xent_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let (loss, back) = dispatch_float!(x.dtype(), T => sparse_softmax_xent::<T>(x, ctx.input(1)?, ctx.env)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
    ctx.set_output(0, loss);
    ctx.set_output(1, back);
    Ok(())
}

fn bias_add_compute(ctx: &mut OpContext<'_>, data_format: &str) -> Result<()> {
    let (v, b) = (ctx.take_input(0)?, ctx.input(1)?.clone());
    let out = dispatch_float!(v.dtype(), T => bias_add::<T>(v, &b, data_format)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", v.dtype()));
    ctx.set_output(0, out);
    Ok(())
}

fn bias_add_grad_compute(ctx: &mut OpContext<'_>, data_format: &str) -> Result<()> {
    let g = ctx.input(0)?;
    let out = dispatch_float!(g.dtype(), T => bias_add_grad::<T>(g, data_format)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", g.dtype()));
    ctx.set_output(0, out);
    Ok(())
}

fn l2_loss_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let out = dispatch_float!(x.dtype(), T => l2_loss::<T>(x)?, _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
    ctx.set_output(0, out);
    Ok(())
}

fn in_top_k_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let targets = labels_i64(ctx.input(1)?)?;
    let k = crate::framework::tensor_util::scalar_int(ctx.input(2)?, "k")?;
    let out = in_top_k(ctx.input(0)?, &targets, k)?;
    ctx.set_output(0, out);
    Ok(())
}

/// `Softmax`.
pub(crate) fn softmax_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|c| softmax_compute(c, false))
}

/// `LogSoftmax`.
pub(crate) fn log_softmax_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|c| softmax_compute(c, true))
}

/// `SoftmaxCrossEntropyWithLogits`.
pub(crate) fn softmax_xent_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(xent_compute)
}

/// `SparseSoftmaxCrossEntropyWithLogits`.
pub(crate) fn sparse_softmax_xent_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(sparse_xent_compute)
}

/// `BiasAdd`.
pub(crate) fn bias_add_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(if channels_first(b)? { |c| bias_add_compute(c, "NCHW") } else { |c| bias_add_compute(c, "NHWC") })
}

/// Whether a bias op's `data_format` puts channels before the spatial dimensions.
fn channels_first(b: &KernelBuild<'_>) -> Result<bool> {
    Ok(b.node.attr_or("data_format", "NHWC".to_string())?.starts_with("NC"))
}

/// `BiasAddGrad`.
pub(crate) fn bias_add_grad_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(if channels_first(b)? {
        |c| bias_add_grad_compute(c, "NCHW")
    } else {
        |c| bias_add_grad_compute(c, "NHWC")
    })
}

/// `L2Loss`.
pub(crate) fn l2_loss_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(l2_loss_compute)
}

/// `InTopKV2`.
pub(crate) fn in_top_k_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(in_top_k_compute)
}

/// Orders `a` before `b` when it is larger (NaN largest), so that a stable sort puts
/// the largest first and ties keep their index order: TF's `TopKV2` comparator made
/// total.
fn descending<T: PartialOrd>(a: &T, b: &T) -> std::cmp::Ordering {
    #[allow(clippy::eq_op)] // `x != x` is the NaN test of a generic `PartialOrd`
    let (a_nan, b_nan) = (a != a, b != b);
    match (a_nan, b_nan) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Less,
        (false, true) => std::cmp::Ordering::Greater,
        (false, false) => b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal),
    }
}

/// `TopKV2`: the `k` largest entries of each last-dimension row of `x` and their
/// indices, largest first; equal values keep their order (the lower index first).
pub fn top_k<T: Num>(x: &Tensor, k: usize) -> Result<(Tensor, Vec<i64>)> {
    let (n, cols) = rows(x, "input")?;
    if cols < k {
        ff_bail!(InvalidArgument, "input must have at least k columns. Had {cols}, needed {k}");
    }
    let mut shape = x.shape().to_vec();
    *shape.last_mut().unwrap_or(&mut 0) = k;
    let mut values = Tensor::for_overwrite(T::DTYPE, &shape)?;
    let mut indices = Vec::with_capacity(n * k);
    if k > 0 {
        let xs = x.as_slice::<T>()?;
        let out = values.as_mut_slice::<T>()?;
        let mut order: Vec<usize> = Vec::with_capacity(cols);
        for (row, o) in xs.chunks_exact(cols).zip(out.chunks_exact_mut(k)) {
            order.clear();
            order.extend(0..cols);
            let by = |a: &usize, b: &usize| descending(&row[*a], &row[*b]).then(a.cmp(b));
            if k < cols {
                order.select_nth_unstable_by(k - 1, by);
                order.truncate(k);
            }
            order.sort_unstable_by(by);
            for (slot, &i) in o.iter_mut().zip(&order) {
                *slot = row[i];
                indices.push(i as i64);
            }
        }
    }
    Ok((values, indices))
}

/// `TopKV2`'s kernel: the index dtype comes from the node's `index_type`.
struct TopKKernel {
    index_type: DType,
}

/// `TopKV2`.
pub(crate) fn top_k_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(TopKKernel { index_type: b.node.attr_or("index_type", DType::Int32)? }))
}

impl OpKernel for TopKKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let k = crate::framework::tensor_util::scalar_int(ctx.input(1)?, "k")?;
        let Ok(k) = usize::try_from(k) else { ff_bail!(InvalidArgument, "Need k >= 0, got {k}") };
        let x = ctx.input(0)?;
        if x.shape().is_empty() {
            ff_bail!(InvalidArgument, "input must be >= 1-D, got shape []");
        }
        let (values, indices) = crate::dispatch_numeric!(x.dtype(), T => top_k::<T>(x, k)?,
            _ => ff_bail!(InvalidArgument, "no TopKV2 kernel for {}", x.dtype()));
        let indices = match self.index_type {
            DType::Int64 => Tensor::from_slice(values.shape(), &indices)?,
            _ => {
                let narrow: Vec<i32> = indices.iter().map(|&i| i32::try_from(i).unwrap_or(i32::MAX)).collect();
                Tensor::from_slice(values.shape(), &narrow)?
            }
        };
        ctx.set_output(0, values);
        ctx.set_output(1, indices);
        Ok(())
    }
}

/// The attrs of `LRN` and `LRNGrad`.
#[derive(Clone, Copy, Debug)]
pub struct LrnParams {
    /// Half-width of the window over the depth.
    pub depth_radius: i64,
    /// Offset added to the scaled sum of squares.
    pub bias: f32,
    /// Scale of the sum of squares.
    pub alpha: f32,
    /// Exponent.
    pub beta: f32,
}

impl LrnParams {
    /// The window `[begin, end)` around depth `i` of a row of `depth`.
    fn window(&self, i: usize, depth: usize) -> std::ops::Range<usize> {
        let r = self.depth_radius;
        let i = i as i64;
        let begin = usize::try_from(Ord::max(i - r, 0)).unwrap_or(0);
        let end = usize::try_from((i + r + 1).clamp(0, depth as i64)).unwrap_or(0);
        begin..Ord::max(end, begin)
    }
}

fn lrn_rows(x: &Tensor, what: &str) -> Result<(usize, usize)> {
    if x.shape().len() != 4 {
        ff_bail!(InvalidArgument, "{what} must be 4-dimensional, got shape {}", fmt_shape(x.shape()));
    }
    rows(x, what)
}

/// `LRN`: `x / (bias + alpha * sum(x[d - r .. d + r]^2)) ^ beta` over the depth (the
/// last dimension) of a 4-D `x` (TF's local response normalization).
pub fn lrn(x: &Tensor, p: LrnParams) -> Result<Tensor> {
    let (_, depth) = lrn_rows(x, "in")?;
    let mut out = Tensor::for_overwrite(DType::Float32, x.shape())?;
    if depth == 0 {
        return Ok(out);
    }
    let xs = x.as_slice::<f32>()?;
    for (row, o) in xs.chunks_exact(depth).zip(out.as_mut_slice::<f32>()?.chunks_exact_mut(depth)) {
        for (i, slot) in o.iter_mut().enumerate() {
            let sum: f32 = row[p.window(i, depth)].iter().map(|v| v * v).sum();
            *slot = row[i] * (p.bias + p.alpha * sum).powf(-p.beta);
        }
    }
    Ok(out)
}

/// `LRNGrad`: the gradient of `LRN` at `input` (whose output was `output`) for the
/// output gradient `grads`, as TF's CPU kernel:
/// `dx[j] += dy[i] * (δij N_i^-beta - 2 alpha beta x[j] y[i] / N_i)` for `j` in `i`'s window.
pub fn lrn_grad(grads: &Tensor, input: &Tensor, output: &Tensor, p: LrnParams) -> Result<Tensor> {
    let (_, depth) = lrn_rows(input, "input_image")?;
    if grads.shape() != input.shape() || output.shape() != input.shape() {
        ff_bail!(
            InvalidArgument,
            "input_grads, input_image, and out_image should have the same shape, got {}, {} and {}",
            fmt_shape(grads.shape()),
            fmt_shape(input.shape()),
            fmt_shape(output.shape())
        );
    }
    let mut out = Tensor::zeros(DType::Float32, input.shape())?;
    if depth == 0 {
        return Ok(out);
    }
    let (gs, xs, ys) = (grads.as_slice::<f32>()?, input.as_slice::<f32>()?, output.as_slice::<f32>()?);
    let rows = gs.chunks_exact(depth).zip(xs.chunks_exact(depth)).zip(ys.chunks_exact(depth));
    for (((g, x), y), o) in rows.zip(out.as_mut_slice::<f32>()?.chunks_exact_mut(depth)) {
        for i in 0..depth {
            let window = p.window(i, depth);
            let sum: f32 = x[window.clone()].iter().map(|v| v * v).sum();
            let norm = p.alpha * sum + p.bias;
            let pow = norm.powf(-p.beta);
            for j in window {
                let mut dyi = -2.0 * p.alpha * p.beta * x[j] * y[i] / norm;
                if i == j {
                    dyi += pow;
                }
                o[j] += dyi * g[i];
            }
        }
    }
    Ok(out)
}

/// `LRN` and `LRNGrad`, with their attrs read once.
struct LrnKernel {
    grad: bool,
    params: LrnParams,
}

/// `LRN` and `LRNGrad`.
pub(crate) fn lrn_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let n = b.node;
    let params = LrnParams {
        depth_radius: n.attr_or("depth_radius", 5i64)?,
        bias: n.attr_or("bias", 1.0f32)?,
        alpha: n.attr_or("alpha", 1.0f32)?,
        beta: n.attr_or("beta", 0.5f32)?,
    };
    if i32::try_from(params.depth_radius).is_err() {
        ff_bail!(InvalidArgument, "depth_radius = {} larger than int max", params.depth_radius);
    }
    Ok(Box::new(LrnKernel { grad: n.op_type() == "LRNGrad", params }))
}

impl OpKernel for LrnKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = if self.grad {
            lrn_grad(ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, self.params)?
        } else {
            lrn(ctx.input(0)?, self.params)?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_and_losses() {
        let x = Tensor::from_slice(&[2, 3], &[1.0f64, 2.0, 3.0, 0.0, 0.0, 0.0]).unwrap();
        let s = softmax::<f64>(&x, false, &crate::kernels::ExecEnv::SINGLE_THREADED).unwrap();
        let v = s.as_slice::<f64>().unwrap();
        assert!((v[0..3].iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((v[3] - 1.0 / 3.0).abs() < 1e-12);
        let (loss, back) =
            sparse_softmax_xent::<f64>(&x, &Tensor::from_slice(&[2], &[2i64, 0]).unwrap(), &ExecEnv::SINGLE_THREADED)
                .unwrap();
        let l = loss.as_slice::<f64>().unwrap();
        assert!((l[1] - 3f64.ln()).abs() < 1e-12);
        assert!((back.as_slice::<f64>().unwrap()[3] - (1.0 / 3.0 - 1.0)).abs() < 1e-12);
        assert!(
            sparse_softmax_xent::<f64>(&x, &Tensor::from_slice(&[2], &[3i32, 0]).unwrap(), &ExecEnv::SINGLE_THREADED)
                .is_err()
        );
        let labels = Tensor::from_slice(&[2, 3], &[0.0f64, 0.0, 1.0, 1.0, 0.0, 0.0]).unwrap();
        let (loss2, _) = softmax_xent::<f64>(&x, &labels, &ExecEnv::SINGLE_THREADED).unwrap();
        assert!((loss2.as_slice::<f64>().unwrap()[0] - l[0]).abs() < 1e-12);
        let b = bias_add_grad::<f64>(&x, "NHWC").unwrap();
        assert_eq!(b.as_slice::<f64>().unwrap(), &[1.0, 2.0, 3.0]);
        assert_eq!(l2_loss::<f64>(&x).unwrap().as_slice::<f64>().unwrap(), &[7.0]);
    }

    #[test]
    fn top_k_breaks_ties_by_the_lower_index() {
        let x = Tensor::from_slice(&[2, 4], &[1.0f32, 3.0, 3.0, 2.0, 5.0, 5.0, 5.0, 5.0]).unwrap();
        let (v, i) = top_k::<f32>(&x, 3).unwrap();
        assert_eq!(v.shape(), &[2, 3]);
        assert_eq!(v.as_slice::<f32>().unwrap(), &[3.0, 3.0, 2.0, 5.0, 5.0, 5.0]);
        assert_eq!(i, vec![1, 2, 3, 0, 1, 2]);
        let (v0, i0) = top_k::<f32>(&x, 0).unwrap();
        assert_eq!((v0.shape(), i0.len()), (&[2usize, 0][..], 0));
        assert!(top_k::<f32>(&x, 5).is_err());
    }

    #[test]
    fn lrn_follows_the_definition_and_its_gradient_the_derivative() {
        let p = LrnParams { depth_radius: 1, bias: 1.0, alpha: 0.5, beta: 0.75 };
        let xv = [0.5f32, -1.0, 2.0, 0.25];
        let x = Tensor::from_slice(&[1, 1, 1, 4], &xv).unwrap();
        let y = lrn(&x, p).unwrap();
        let ys = y.as_slice::<f32>().unwrap();
        let want = xv[1] / (1.0 + 0.5 * (0.25 + 1.0 + 4.0f32)).powf(0.75);
        assert!((ys[1] - want).abs() < 1e-6);
        // d sum(y * w) / dx against central differences (in f64 from the f32 kernel).
        let w = [1.0f32, -2.0, 0.5, 3.0];
        let g = Tensor::from_slice(&[1, 1, 1, 4], &w).unwrap();
        let dx = lrn_grad(&g, &x, &y, p).unwrap();
        let loss = |v: &[f32]| -> f64 {
            let t = Tensor::from_slice(&[1, 1, 1, 4], v).unwrap();
            let o = lrn(&t, p).unwrap();
            o.as_slice::<f32>().unwrap().iter().zip(&w).map(|(a, b)| f64::from(a * b)).sum()
        };
        for j in 0..4 {
            let (mut up, mut down) = (xv, xv);
            up[j] += 1e-2;
            down[j] -= 1e-2;
            let numeric = (loss(&up) - loss(&down)) / 2e-2;
            assert!((f64::from(dx.as_slice::<f32>().unwrap()[j]) - numeric).abs() < 1e-3, "{j}");
        }
        assert!(lrn(&Tensor::from_slice(&[4], &xv).unwrap(), p).is_err());
    }
}
