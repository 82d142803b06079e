//! Gradients of the math ops (TF's `math_grad.py` formulas).
use super::{Grad, GradCtx, dense_all, kept_dims_shape};
use crate::error::Result;
use crate::graph::{AttrValue, Output};
use crate::tensor::Tensor;

type Grads = Result<Vec<Option<Grad>>>;

fn binary(ctx: &mut GradCtx<'_>, gx: Output, gy: Output) -> Grads {
    let (x, y) = (ctx.input(0), ctx.input(1));
    Ok(dense_all(vec![ctx.sum_to(gx, x)?, ctx.sum_to(gy, y)?]))
}

pub(crate) fn add(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    binary(ctx, dy, dy)
}

pub(crate) fn sub(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let neg = ctx.op("Neg", &[dy], vec![])?;
    binary(ctx, dy, neg)
}

/// `x`, conjugated when complex: TF's gradients of the products (`Mul`, `Div`,
/// `MatMul`, `Square`) use the conjugates of the forward operands (`math_ops.conj`,
/// the identity on real tensors).
fn conj(ctx: &mut GradCtx<'_>, x: Output) -> Result<Output> {
    if ctx.spec(x)?.dtype.is_complex() { ctx.op("Conj", &[x], vec![]) } else { Ok(x) }
}

pub(crate) fn mul(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, y) = (ctx.input(0), ctx.input(1));
    let (x, y) = (conj(ctx, x)?, conj(ctx, y)?);
    let gx = ctx.op("Mul", &[dy, y], vec![])?;
    let gy = ctx.op("Mul", &[x, dy], vec![])?;
    binary(ctx, gx, gy)
}

pub(crate) fn div(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, y) = (ctx.input(0), ctx.input(1));
    let (x, y) = (conj(ctx, x)?, conj(ctx, y)?);
    let op = ctx.op_type();
    let gx = ctx.op(op, &[dy, y], vec![])?;
    let negx = ctx.op("Neg", &[x], vec![])?;
    let a = ctx.op(op, &[negx, y], vec![])?;
    let b = ctx.op(op, &[a, y], vec![])?;
    let gy = ctx.op("Mul", &[dy, b], vec![])?;
    binary(ctx, gx, gy)
}

/// `SquaredDifference(x, y) = (x - y)^2`: `2 dy (x - y)` to `x`, its negation to `y`
/// (TF's `_SquaredDifferenceGrad`).
pub(crate) fn squared_difference(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, y) = (ctx.input(0), ctx.input(1));
    let two = ctx.scalar(ctx.spec(dy)?.dtype, 2.0)?;
    let scaled = ctx.op("Mul", &[two, dy], vec![])?;
    let diff = ctx.op("Sub", &[x, y], vec![])?;
    let gx = ctx.op("Mul", &[scaled, diff], vec![])?;
    let gy = ctx.op("Neg", &[gx], vec![])?;
    Ok(dense_all(vec![ctx.sum_to(gx, x)?, ctx.sum_to(gy, y)?]))
}

fn select_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>], selector: &str) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, y) = (ctx.input(0), ctx.input(1));
    let mask = ctx.op(selector, &[x, y], vec![])?;
    let zeros = ctx.op("ZerosLike", &[dy], vec![])?;
    let gx = ctx.op("SelectV2", &[mask, dy, zeros], vec![])?;
    let gy = ctx.op("SelectV2", &[mask, zeros, dy], vec![])?;
    binary(ctx, gx, gy)
}

pub(crate) fn maximum(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    select_grad(ctx, g, "GreaterEqual")
}

pub(crate) fn minimum(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    select_grad(ctx, g, "LessEqual")
}

pub(crate) fn floor_mod(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, y) = (ctx.input(0), ctx.input(1));
    let q = ctx.op("FloorDiv", &[x, y], vec![])?;
    let negq = ctx.op("Neg", &[q], vec![])?;
    let gy = ctx.op("Mul", &[dy, negq], vec![])?;
    binary(ctx, dy, gy)
}

pub(crate) fn pow(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, y, z) = (ctx.input(0), ctx.input(1), ctx.output(0));
    let dtype = ctx.spec(x)?.dtype;
    let one = ctx.scalar(dtype, 1.0)?;
    let ym1 = ctx.op("Sub", &[y, one], vec![])?;
    let p = ctx.op("Pow", &[x, ym1], vec![])?;
    let yp = ctx.op("Mul", &[y, p], vec![])?;
    let gx = ctx.op("Mul", &[dy, yp], vec![])?;
    // d/dy x**y = x**y * log(x), taken as 0 where x <= 0 (as TF).
    let zero = ctx.scalar(dtype, 0.0)?;
    let mask = ctx.op("Greater", &[x, zero], vec![])?;
    let ones = ctx.op("OnesLike", &[x], vec![])?;
    let safe = ctx.op("SelectV2", &[mask, x, ones], vec![])?;
    let logx = ctx.op("Log", &[safe], vec![])?;
    let zeros = ctx.op("ZerosLike", &[x], vec![])?;
    let logx = ctx.op("SelectV2", &[mask, logx, zeros], vec![])?;
    let zl = ctx.op("Mul", &[z, logx], vec![])?;
    let gy = ctx.op("Mul", &[dy, zl], vec![])?;
    binary(ctx, gx, gy)
}

pub(crate) fn add_n(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let grad = g[0];
    Ok(vec![grad; ctx.num_inputs()])
}

fn unary_with(
    ctx: &mut GradCtx<'_>,
    g: &[Option<Grad>],
    build: impl FnOnce(&mut GradCtx<'_>, Output, Output, Output) -> Result<Output>,
) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, y) = (ctx.input(0), ctx.output(0));
    Ok(dense_all(vec![build(ctx, dy, x, y)?]))
}

pub(crate) fn neg(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    unary_with(ctx, g, |c, dy, _, _| c.op("Neg", &[dy], vec![]))
}

pub(crate) fn square(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    unary_with(ctx, g, |c, dy, x, _| {
        let x = conj(c, x)?;
        let two = c.scalar(c.spec(x)?.dtype, 2.0)?;
        let x2 = c.op("Mul", &[x, two], vec![])?;
        c.op("Mul", &[dy, x2], vec![])
    })
}

pub(crate) fn abs(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    unary_with(ctx, g, |c, dy, x, _| {
        let s = c.op("Sign", &[x], vec![])?;
        c.op("Mul", &[dy, s], vec![])
    })
}

pub(crate) fn sign(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    unary_with(ctx, g, |c, _, x, _| c.op("ZerosLike", &[x], vec![]))
}

fn fused(ctx: &mut GradCtx<'_>, g: &[Option<Grad>], op: &'static str) -> Grads {
    unary_with(ctx, g, |c, dy, _, y| c.op(op, &[y, dy], vec![]))
}

pub(crate) fn sqrt(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    fused(ctx, g, "SqrtGrad")
}

pub(crate) fn rsqrt(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    fused(ctx, g, "RsqrtGrad")
}

pub(crate) fn reciprocal(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    fused(ctx, g, "ReciprocalGrad")
}

pub(crate) fn tanh(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    fused(ctx, g, "TanhGrad")
}

pub(crate) fn sigmoid(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    fused(ctx, g, "SigmoidGrad")
}

pub(crate) fn exp(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    unary_with(ctx, g, |c, dy, _, y| c.op("Mul", &[dy, y], vec![]))
}

pub(crate) fn log(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    unary_with(ctx, g, |c, dy, x, _| {
        let r = c.op("Reciprocal", &[x], vec![])?;
        c.op("Mul", &[dy, r], vec![])
    })
}

pub(crate) fn log1p(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    unary_with(ctx, g, |c, dy, x, _| {
        let one = c.scalar(c.spec(x)?.dtype, 1.0)?;
        let xp1 = c.op("AddV2", &[one, x], vec![])?;
        let r = c.op("Reciprocal", &[xp1], vec![])?;
        c.op("Mul", &[dy, r], vec![])
    })
}

pub(crate) fn sin(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    unary_with(ctx, g, |c, dy, x, _| {
        let cx = c.op("Cos", &[x], vec![])?;
        c.op("Mul", &[dy, cx], vec![])
    })
}

pub(crate) fn cos(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    unary_with(ctx, g, |c, dy, x, _| {
        let sx = c.op("Sin", &[x], vec![])?;
        let m = c.op("Mul", &[dy, sx], vec![])?;
        c.op("Neg", &[m], vec![])
    })
}

pub(crate) fn matmul(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (a, b) = (ctx.input(0), ctx.input(1));
    let (a, b) = (conj(ctx, a)?, conj(ctx, b)?);
    let (ta, tb) = (ctx.attr_bool("transpose_a"), ctx.attr_bool("transpose_b"));
    let mm = |c: &mut GradCtx<'_>, x: Output, y: Output, t1: bool, t2: bool| {
        c.op("MatMul", &[x, y], vec![("transpose_a", AttrValue::B(t1)), ("transpose_b", AttrValue::B(t2))])
    };
    let (ga, gb) = match (ta, tb) {
        (false, false) => (mm(ctx, dy, b, false, true)?, mm(ctx, a, dy, true, false)?),
        (false, true) => (mm(ctx, dy, b, false, false)?, mm(ctx, dy, a, true, false)?),
        (true, false) => (mm(ctx, b, dy, false, true)?, mm(ctx, a, dy, false, false)?),
        (true, true) => (mm(ctx, b, dy, true, true)?, mm(ctx, dy, a, true, true)?),
    };
    Ok(dense_all(vec![ga, gb]))
}

/// Gradient of `Sum`: the output gradient reshaped to keep the reduced axes, then
/// broadcast back to the input's shape.
fn sum_grad(ctx: &mut GradCtx<'_>, dy: Output) -> Result<Output> {
    let (x, axes) = (ctx.input(0), ctx.input(1));
    let kept = kept_dims_shape(ctx, x, axes)?;
    let r = ctx.op("Reshape", &[dy, kept], vec![])?;
    let shape = ctx.shape_of(x)?;
    ctx.op("BroadcastTo", &[r, shape], vec![])
}

pub(crate) fn sum(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    Ok(vec![Some(Grad::Dense(sum_grad(ctx, dy)?)), None])
}

pub(crate) fn mean(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, y) = (ctx.input(0), ctx.output(0));
    let dtype = ctx.spec(x)?.dtype;
    let spread = sum_grad(ctx, dy)?;
    let factor = match (ctx.spec(x)?.shape.num_elements(), ctx.spec(y)?.shape.num_elements()) {
        #[allow(clippy::cast_precision_loss)]
        (Some(nx), Some(ny)) => ctx.scalar(dtype, (nx / ny.max(1)) as f64)?,
        _ => {
            let sx = ctx.op("Size", &[x], vec![])?;
            let sy = ctx.op("Size", &[y], vec![])?;
            let one = ctx.constant(crate::tensor::Tensor::scalar(1i32))?;
            let sy = ctx.op("Maximum", &[sy, one], vec![])?;
            let q = ctx.op("FloorDiv", &[sx, sy], vec![])?;
            ctx.op("Cast", &[q], vec![("DstT", AttrValue::Type(dtype))])?
        }
    };
    let div = if dtype.is_floating() { "RealDiv" } else { "Div" };
    Ok(vec![Some(Grad::Dense(ctx.op(div, &[spread, factor], vec![])?)), None])
}

/// Gradient of `Max`/`Min`: split evenly between the elements equal to the result.
pub(crate) fn min_max(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, axes, y) = (ctx.input(0), ctx.input(1), ctx.output(0));
    let dtype = ctx.spec(x)?.dtype;
    let kept = kept_dims_shape(ctx, x, axes)?;
    let yr = ctx.op("Reshape", &[y, kept], vec![])?;
    let gr = ctx.op("Reshape", &[dy, kept], vec![])?;
    let eq = ctx.op("Equal", &[yr, x], vec![])?;
    let ind = ctx.op("Cast", &[eq], vec![("DstT", AttrValue::Type(dtype))])?;
    let count = ctx.op("Sum", &[ind, axes], vec![("keep_dims", AttrValue::B(false))])?;
    let count = ctx.op("Reshape", &[count, kept], vec![])?;
    let share = ctx.op("RealDiv", &[ind, count], vec![])?;
    Ok(vec![Some(Grad::Dense(ctx.op("Mul", &[share, gr], vec![])?)), None])
}

/// Gradient of `Prod`, TF's way: the reduced axes are moved to the front and merged,
/// and each element's gradient is the product of the others, `exclusive cumprod` from
/// the left times from the right, so zeros in the input are handled exactly.
pub(crate) fn prod(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, axes) = (ctx.input(0), ctx.input(1));
    let kept = kept_dims_shape(ctx, x, axes)?;
    let gr = ctx.op("Reshape", &[dy, kept], vec![])?;
    let shape = ctx.shape_of(x)?;
    let grad = ctx.op("BroadcastTo", &[gr, shape], vec![])?;
    let (reduced, other) = reduced_and_other_axes(ctx, x, axes)?;
    let zero = ctx.constant(Tensor::scalar(0i32))?;
    let perm = ctx.op("ConcatV2", &[reduced, other, zero], vec![])?;
    let count = |c: &mut GradCtx<'_>, idx: Output| -> Result<Output> {
        let dims = c.op("GatherV2", &[shape, idx, zero], vec![])?;
        c.op("Prod", &[dims, zero], vec![("keep_dims", AttrValue::B(false))])
    };
    let (reduced_num, other_num) = (count(ctx, reduced)?, count(ctx, other)?);
    let permuted = ctx.op("Transpose", &[x, perm], vec![])?;
    let permuted_shape = ctx.shape_of(permuted)?;
    let matrix_shape = ctx.op("Pack", &[reduced_num, other_num], vec![])?;
    let matrix = ctx.op("Reshape", &[permuted, matrix_shape], vec![])?;
    let cumprod = |c: &mut GradCtx<'_>, reverse: bool| {
        c.op("Cumprod", &[matrix, zero], vec![("exclusive", AttrValue::B(true)), ("reverse", AttrValue::B(reverse))])
    };
    let (left, right) = (cumprod(ctx, false)?, cumprod(ctx, true)?);
    let others = ctx.op("Mul", &[left, right], vec![])?;
    let others = ctx.op("Reshape", &[others, permuted_shape], vec![])?;
    let inverse = ctx.op("InvertPermutation", &[perm], vec![])?;
    let others = ctx.op("Transpose", &[others, inverse], vec![])?;
    let out = ctx.op("Mul", &[grad, others], vec![])?;
    Ok(vec![Some(Grad::Dense(ctx.op("Reshape", &[out, shape], vec![])?)), None])
}

/// The reduced axes of `x` (normalised, int32) and the remaining ones, in order:
/// constants when the rank and axes are static, else TF's `Range`/`ListDiff` ops.
fn reduced_and_other_axes(ctx: &mut GradCtx<'_>, x: Output, axes: Output) -> Result<(Output, Output)> {
    if let (Some(rank), Some(ax)) = (ctx.spec(x)?.shape.rank(), ctx.constant_value(axes)) {
        let mut reduced: Vec<usize> = Vec::new();
        for a in crate::framework::tensor_util::int_values(&ax)? {
            if let Some(i) = crate::shape::normalize_axis(a, rank)
                && !reduced.contains(&i)
            {
                reduced.push(i);
            }
        }
        let other: Vec<usize> = (0..rank).filter(|i| !reduced.contains(i)).collect();
        return Ok((ctx.int_vector(&reduced)?, ctx.int_vector(&other)?));
    }
    let rank = ctx.op("Rank", &[x], vec![])?;
    let flat = ctx.constant(Tensor::from_slice(&[1], &[-1i32])?)?;
    let axes = ctx.op("Reshape", &[axes, flat], vec![])?;
    let axes = ctx.op("Cast", &[axes], vec![("DstT", AttrValue::Type(crate::dtype::DType::Int32))])?;
    let shifted = ctx.op("AddV2", &[axes, rank], vec![])?;
    let reduced = ctx.op("FloorMod", &[shifted, rank], vec![])?;
    let (zero, one) = (ctx.constant(Tensor::scalar(0i32))?, ctx.constant(Tensor::scalar(1i32))?);
    let all = ctx.op("Range", &[zero, rank, one], vec![])?;
    let other = ctx.op("ListDiff", &[all, reduced], vec![("out_idx", AttrValue::Type(crate::dtype::DType::Int32))])?;
    Ok((reduced, other))
}

/// `Cumsum`'s gradient is the cumulative sum of the gradient the other way.
pub(crate) fn cumsum(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let axis = ctx.input(1);
    let attrs = vec![
        ("exclusive", AttrValue::B(ctx.attr_bool("exclusive"))),
        ("reverse", AttrValue::B(!ctx.attr_bool("reverse"))),
    ];
    Ok(vec![Some(Grad::Dense(ctx.op("Cumsum", &[dy, axis], attrs)?)), None])
}

/// `Cumprod`'s gradient (TF's formula): `cumsum(cumprod(x) * dy, reversed) / x`, with
/// 0 where `x` is 0.
pub(crate) fn cumprod(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, axis) = (ctx.input(0), ctx.input(1));
    let (exclusive, reverse) = (ctx.attr_bool("exclusive"), ctx.attr_bool("reverse"));
    let prod = ctx.op(
        "Cumprod",
        &[x, axis],
        vec![("exclusive", AttrValue::B(exclusive)), ("reverse", AttrValue::B(reverse))],
    )?;
    let weighted = ctx.op("Mul", &[prod, dy], vec![])?;
    let summed = ctx.op(
        "Cumsum",
        &[weighted, axis],
        vec![("exclusive", AttrValue::B(exclusive)), ("reverse", AttrValue::B(!reverse))],
    )?;
    Ok(vec![Some(Grad::Dense(ctx.op("DivNoNan", &[summed, x], vec![])?)), None])
}

pub(crate) fn unsorted_segment_sum(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let ids = ctx.input(1);
    let zero = ctx.constant(crate::tensor::Tensor::scalar(0i32))?;
    Ok(vec![Some(Grad::Dense(ctx.op("GatherV2", &[dy, ids, zero], vec![])?)), None, None])
}

pub(crate) fn select(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (c, t, e) = (ctx.input(0), ctx.input(1), ctx.input(2));
    let zeros = ctx.op("ZerosLike", &[dy], vec![])?;
    let gt = ctx.op("SelectV2", &[c, dy, zeros], vec![])?;
    let ge = ctx.op("SelectV2", &[c, zeros, dy], vec![])?;
    Ok(vec![None, Some(Grad::Dense(ctx.sum_to(gt, t)?)), Some(Grad::Dense(ctx.sum_to(ge, e)?))])
}

/// The gradient of `CheckNumerics` checks the gradient too (TF's message prefix).
pub(crate) fn check_numerics(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let message = match ctx.attr("message") {
        Some(AttrValue::S(m)) => String::from_utf8_lossy(m).into_owned(),
        _ => String::new(),
    };
    let prefix = "Not a number (NaN) or infinity (Inf) values detected in gradient. ";
    let attrs = vec![("message", AttrValue::S(format!("{prefix}{message}").into_bytes()))];
    Ok(vec![Some(Grad::Dense(ctx.op("CheckNumerics", &[dy], attrs)?))])
}

// Second-order gradients: the fused `*Grad(y, dy)` ops are differentiated in both
// inputs with TF's formulas (`math_grad.py`), so `tf.gradients` of a gradient works.

/// `SqrtGrad(y, dy) = dy / (2y)`.
pub(crate) fn sqrt_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let grad = ctx.dy(g)?;
    let (a, out) = (ctx.input(0), ctx.output(0));
    let ga = ctx.op("RealDiv", &[grad, a], vec![])?;
    let prod = ctx.op("Mul", &[ga, out], vec![])?;
    let da = ctx.op("Neg", &[prod], vec![])?;
    let half = ctx.scalar(ctx.spec(a)?.dtype, 0.5)?;
    let db = ctx.op("Mul", &[half, ga], vec![])?;
    Ok(dense_all(vec![da, db]))
}

/// `RsqrtGrad(y, dy) = -dy y^3 / 2`.
pub(crate) fn rsqrt_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let grad = ctx.dy(g)?;
    let (a, b) = (ctx.input(0), ctx.input(1));
    let k = ctx.scalar(ctx.spec(a)?.dtype, -1.5)?;
    let a2 = ctx.op("Square", &[a], vec![])?;
    let gb = ctx.op("Mul", &[grad, b], vec![])?;
    let t = ctx.op("Mul", &[k, gb], vec![])?;
    let da = ctx.op("Mul", &[t, a2], vec![])?;
    let db = ctx.op("RsqrtGrad", &[a, grad], vec![])?;
    Ok(dense_all(vec![da, db]))
}

/// `ReciprocalGrad(y, dy) = -dy y^2`.
pub(crate) fn reciprocal_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    second_order_ab(ctx, g, -2.0, "ReciprocalGrad")
}

/// `TanhGrad(y, dy) = dy (1 - y^2)`.
pub(crate) fn tanh_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    second_order_ab(ctx, g, -2.0, "TanhGrad")
}

/// `grad * k * b * a` for `a`, and the op itself applied to `(a, grad)` for `b`.
fn second_order_ab(ctx: &mut GradCtx<'_>, g: &[Option<Grad>], k: f64, op: &str) -> Grads {
    let grad = ctx.dy(g)?;
    let (a, b) = (ctx.input(0), ctx.input(1));
    let k = ctx.scalar(ctx.spec(a)?.dtype, k)?;
    let gk = ctx.op("Mul", &[grad, k], vec![])?;
    let gkb = ctx.op("Mul", &[gk, b], vec![])?;
    let da = ctx.op("Mul", &[gkb, a], vec![])?;
    let db = ctx.op(op, &[a, grad], vec![])?;
    Ok(dense_all(vec![da, db]))
}

/// `SigmoidGrad(y, dy) = dy y (1 - y)`.
pub(crate) fn sigmoid_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let grad = ctx.dy(g)?;
    let (a, b) = (ctx.input(0), ctx.input(1));
    let gb = ctx.op("Mul", &[grad, b], vec![])?;
    let two = ctx.scalar(ctx.spec(a)?.dtype, 2.0)?;
    let t = ctx.op("Mul", &[two, gb], vec![])?;
    let t = ctx.op("Mul", &[t, a], vec![])?;
    let da = ctx.op("Sub", &[gb, t], vec![])?;
    let db = ctx.op("SigmoidGrad", &[a, grad], vec![])?;
    Ok(dense_all(vec![da, db]))
}
