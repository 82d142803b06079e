//! Gradients of the array and layout ops (TF's `array_grad.py` formulas).
use super::{Grad, GradCtx, dense_all};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::graph::{AttrValue, Output};
use crate::tensor::Tensor;

type Grads = Result<Vec<Option<Grad>>>;

pub(crate) fn identity(_: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    Ok(vec![g[0]])
}

pub(crate) fn cast(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let x = ctx.input(0);
    let (src, dst) = (ctx.spec(x)?.dtype, ctx.spec(ctx.output(0))?.dtype);
    if !(src.is_floating() && dst.is_floating()) {
        return Ok(vec![None]);
    }
    let to = vec![("DstT", AttrValue::Type(src))];
    Ok(vec![match g[0] {
        Some(Grad::Sparse { values, indices, dense_shape }) => {
            Some(Grad::Sparse { values: ctx.op("Cast", &[values], to)?, indices, dense_shape })
        }
        Some(Grad::Dense(d)) => Some(Grad::Dense(ctx.op("Cast", &[d], to)?)),
        None => None,
    }])
}

/// Reshape, Squeeze, ExpandDims: the gradient is the output gradient in the input's shape.
pub(crate) fn reshape_like_input(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let x = ctx.input(0);
    let shape = ctx.shape_of(x)?;
    let mut out = vec![Some(Grad::Dense(ctx.op("Reshape", &[dy, shape], vec![])?))];
    out.resize(ctx.num_inputs(), None);
    Ok(out)
}

pub(crate) fn fill(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let axes = ctx.all_axes(dy)?;
    Ok(vec![None, Some(Grad::Dense(ctx.op("Sum", &[dy, axes], vec![("keep_dims", AttrValue::B(false))])?))])
}

fn axis_of(ctx: &GradCtx<'_>) -> i64 {
    match ctx.attr("axis") {
        Some(AttrValue::I(a)) => *a,
        _ => 0,
    }
}

pub(crate) fn pack(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let n = ctx.num_inputs();
    let axis = axis_of(ctx);
    let node = ctx.node(
        "Unpack",
        &[dy],
        vec![("num", AttrValue::I(i64::try_from(n).unwrap_or(i64::MAX))), ("axis", AttrValue::I(axis))],
    )?;
    Ok(dense_all((0..n).map(|index| Output { node, index }).collect()))
}

pub(crate) fn unpack(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let axis = axis_of(ctx);
    let mut parts = Vec::with_capacity(g.len());
    for i in 0..g.len() {
        parts.push(match ctx.dense_out(g, i)? {
            Some(d) => d,
            None => {
                let o = ctx.output(i);
                ctx.op("ZerosLike", &[o], vec![])?
            }
        });
    }
    Ok(vec![Some(Grad::Dense(ctx.op("Pack", &parts, vec![("axis", AttrValue::I(axis))])?))])
}

/// `GatherV2` along axis 0: an `IndexedSlices` gradient (rows of the params).
pub(crate) fn gather(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (params, indices, axis) = (ctx.input(0), ctx.input(1), ctx.input(2));
    let axis_value =
        ctx.constant_value(axis).map(|t| crate::ops::int_values(&t)).transpose()?.and_then(|v| v.first().copied());
    if axis_value != Some(0) {
        return Err(Error::new(Code::Unimplemented, "the gradient of gather is implemented for a constant axis 0"));
    }
    let dense_shape = ctx.shape_of(params)?;
    let minus_one = ctx.constant(Tensor::from_slice(&[1], &[-1i32])?)?;
    let flat_indices = ctx.op("Reshape", &[indices, minus_one], vec![])?;
    // values: [num_indices] + params.shape[1:]
    let values = match ctx.spec(params)?.shape.dims().map(<[Option<usize>]>::to_vec) {
        Some(d) if d[1..].iter().all(Option::is_some) => {
            let rest: Vec<i64> = d[1..].iter().map(|v| i64::try_from(v.unwrap_or(0)).unwrap_or(i64::MAX)).collect();
            let mut shape = vec![-1i64];
            shape.extend(rest);
            let s =
                ctx.constant(crate::kernels::array::cast(&Tensor::from_slice(&[shape.len()], &shape)?, DType::Int32)?)?;
            ctx.op("Reshape", &[dy, s], vec![])?
        }
        _ => {
            let ps = ctx.op("Shape", &[params], vec![])?;
            let one = ctx.constant(Tensor::from_slice(&[1], &[1i32])?)?;
            let big = ctx.constant(Tensor::from_slice(&[1], &[-1i32])?)?;
            let rest = ctx.op("Slice", &[ps, one, big], vec![])?;
            let zero = ctx.constant(Tensor::scalar(0i32))?;
            let shape = ctx.op("ConcatV2", &[minus_one, rest, zero], vec![])?;
            ctx.op("Reshape", &[dy, shape], vec![])?
        }
    };
    Ok(vec![Some(Grad::Sparse { values, indices: flat_indices, dense_shape }), None, None])
}

pub(crate) fn broadcast_to(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let x = ctx.input(0);
    Ok(vec![Some(Grad::Dense(ctx.sum_to(dy, x)?)), None])
}

/// `ConcatV2`: each input gets its slice of the output gradient (static shapes).
pub(crate) fn concat(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let n = ctx.num_inputs() - 1;
    let axis_t = ctx.input(n);
    let Some(axis) =
        ctx.constant_value(axis_t).map(|t| crate::ops::int_values(&t)).transpose()?.and_then(|v| v.first().copied())
    else {
        return Err(Error::new(Code::Unimplemented, "the gradient of concat needs a constant axis"));
    };
    let mut out = Vec::with_capacity(n + 1);
    let mut offset = 0usize;
    for i in 0..n {
        let x = ctx.input(i);
        let Some(shape) = ctx.spec(x)?.shape.to_shape() else {
            return Err(Error::new(Code::Unimplemented, "the gradient of concat needs static input shapes"));
        };
        let Some(ax) = crate::shape::normalize_axis(axis, shape.len()) else {
            return Err(Error::value(format!("concat axis {axis} out of range")));
        };
        let mut begin = vec![0usize; shape.len()];
        begin[ax] = offset;
        offset += shape[ax];
        let b = ctx.int_vector(&begin)?;
        let s = ctx.int_vector(&shape)?;
        out.push(Some(Grad::Dense(ctx.op("Slice", &[dy, b, s], vec![])?)));
    }
    out.push(None);
    Ok(out)
}

/// `Slice`: the output gradient placed back at `begin` inside zeros (static shapes).
pub(crate) fn slice(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, begin) = (ctx.input(0), ctx.input(1));
    let (Some(shape), Some(begin), Some(size)) =
        (ctx.spec(x)?.shape.to_shape(), ctx.constant_value(begin), ctx.spec(ctx.output(0))?.shape.to_shape())
    else {
        return Err(Error::new(Code::Unimplemented, "the gradient of slice needs static shapes and begin"));
    };
    let begin = crate::ops::int_values(&begin)?;
    // Concatenate zero blocks around dy, one axis at a time.
    let dtype = ctx.spec(dy)?.dtype;
    let mut cur = dy;
    let mut cur_shape: Vec<usize> = size.to_vec();
    for (ax, (&b, &full)) in begin.iter().zip(shape.iter()).enumerate() {
        let b = usize::try_from(b).unwrap_or(0);
        let after = full - b - cur_shape[ax];
        let mut parts = Vec::new();
        for pad in [b, after] {
            let mut zshape = cur_shape.clone();
            zshape[ax] = pad;
            parts.push((pad, ctx.constant(Tensor::zeros(dtype, &zshape))?));
        }
        if b == 0 && after == 0 {
            continue;
        }
        let axis = ctx.constant(Tensor::scalar(i32::try_from(ax).unwrap_or(0)))?;
        cur = ctx.op("ConcatV2", &[parts[0].1, cur, parts[1].1, axis], vec![])?;
        cur_shape[ax] = full;
    }
    Ok(vec![Some(Grad::Dense(cur)), None, None])
}

pub(crate) fn transpose(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let perm = ctx.input(1);
    let inv = ctx.op("InvertPermutation", &[perm], vec![])?;
    Ok(vec![Some(Grad::Dense(ctx.op("Transpose", &[dy, inv], vec![])?)), None])
}
