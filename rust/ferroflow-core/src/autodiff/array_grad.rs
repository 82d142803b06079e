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

pub(crate) fn identity_n(_: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    Ok(g.to_vec())
}

pub(crate) fn cast(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let x = ctx.input(0);
    let (src, dst) = (ctx.spec(x)?.dtype, ctx.spec(ctx.output(0))?.dtype);
    let trainable = |d: DType| d.is_floating() || d.is_complex();
    if !(trainable(src) && trainable(dst)) {
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

/// The dense gradient of every output, zeros for outputs that got none (TF fills
/// those in for multi-output ops whose gradient needs all of them).
fn dense_or_zeros(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Result<Vec<Output>> {
    (0..g.len())
        .map(|i| match ctx.dense_out(g, i)? {
            Some(d) => Ok(d),
            None => {
                let o = ctx.output(i);
                ctx.op("ZerosLike", &[o], vec![])
            }
        })
        .collect()
}

pub(crate) fn unpack(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let axis = axis_of(ctx);
    let parts = dense_or_zeros(ctx, g)?;
    Ok(vec![Some(Grad::Dense(ctx.op("Pack", &parts, vec![("axis", AttrValue::I(axis))])?))])
}

/// `GatherV2` along axis 0: an `IndexedSlices` gradient (rows of the params).
pub(crate) fn gather(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (params, indices, axis) = (ctx.input(0), ctx.input(1), ctx.input(2));
    let axis_value = ctx
        .constant_value(axis)
        .map(|t| crate::framework::tensor_util::int_values(&t))
        .transpose()?
        .and_then(|v| v.first().copied());
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
    let axis = ctx
        .constant_value(axis_t)
        .map(|t| crate::framework::tensor_util::int_values(&t))
        .transpose()?
        .and_then(|v| v.first().copied());
    let known = (0..n).map(|i| ctx.spec(ctx.input(i)).map(|s| s.shape.to_shape())).collect::<Result<Vec<_>>>()?;
    let shapes: Option<Vec<_>> = known.into_iter().collect();
    let mut out = Vec::with_capacity(n + 1);
    if let (Some(axis), Some(shapes)) = (axis, shapes) {
        // Static: constant begin/size per piece.
        let mut offset = 0usize;
        for shape in shapes {
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
    } else {
        // TF's dynamic form: ShapeN of the inputs, ConcatOffset for the begins.
        let x0 = ctx.input(0);
        let rank = ctx.op("Rank", &[x0], vec![])?;
        let axis = ctx.op("FloorMod", &[axis_t, rank], vec![])?;
        let inputs: Vec<Output> = (0..n).map(|i| ctx.input(i)).collect();
        let shape_n = ctx.node("ShapeN", &inputs, vec![])?;
        let sizes: Vec<Output> = (0..n).map(|index| Output { node: shape_n, index }).collect();
        let offsets = ctx.node("ConcatOffset", &[&[axis][..], &sizes].concat(), vec![])?;
        for (index, &size) in sizes.iter().enumerate() {
            let begin = Output { node: offsets, index };
            out.push(Some(Grad::Dense(ctx.op("Slice", &[dy, begin, size], vec![])?)));
        }
    }
    out.push(None);
    Ok(out)
}

/// The gradient of `Slice`: `dy` padded back to the input's shape (TF's `_SliceGrad`),
/// with constant paddings when begin and shapes are static.
pub(crate) fn slice(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, begin) = (ctx.input(0), ctx.input(1));
    let statics = (ctx.spec(x)?.shape.to_shape(), ctx.constant_value(begin), ctx.spec(ctx.output(0))?.shape.to_shape());
    let paddings = if let (Some(shape), Some(b), Some(size)) = statics {
        let b = crate::framework::tensor_util::int_values(&b)?;
        let mut p = Vec::with_capacity(2 * shape.len());
        for i in 0..shape.len() {
            let before = i32::try_from(b[i]).unwrap_or(0);
            p.extend([before, i32::try_from(shape[i] - size[i]).unwrap_or(0) - before]);
        }
        ctx.constant(Tensor::from_slice(&[shape.len(), 2], &p)?)?
    } else {
        let begin = as_int32(ctx, begin)?;
        let xs = ctx.op("Shape", &[x], vec![])?;
        let ys = ctx.op("Shape", &[ctx.output(0)], vec![])?;
        let rest = ctx.op("Sub", &[xs, ys], vec![])?;
        let after = ctx.op("Sub", &[rest, begin], vec![])?;
        ctx.op("Pack", &[begin, after], vec![("axis", AttrValue::I(1))])?
    };
    Ok(vec![Some(Grad::Dense(ctx.op("Pad", &[dy, paddings], vec![])?)), None, None])
}

/// `t` as int32 (index inputs may be int64; shapes here are int32).
fn as_int32(ctx: &mut GradCtx<'_>, t: Output) -> Result<Output> {
    if ctx.spec(t)?.dtype == DType::Int32 {
        Ok(t)
    } else {
        ctx.op("Cast", &[t], vec![("DstT", AttrValue::Type(DType::Int32))])
    }
}

/// The gradient of `Tile`: `dy` viewed as `[m0, d0, m1, d1, ...]`, summed over the
/// multiples (TF's `_TileGrad`).
pub(crate) fn tile(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, multiples) = (ctx.input(0), ctx.input(1));
    let (split_shape, axes) = match (ctx.spec(x)?.shape.to_shape(), ctx.constant_value(multiples)) {
        (Some(shape), Some(m)) => {
            let m = crate::framework::tensor_util::int_values(&m)?;
            let split: Vec<usize> =
                m.iter().zip(&shape).flat_map(|(&m, &d)| [usize::try_from(m).unwrap_or(0), d]).collect();
            let axes: Vec<usize> = (0..shape.len()).map(|i| 2 * i).collect();
            (ctx.int_vector(&split)?, ctx.int_vector(&axes)?)
        }
        _ => {
            let m = as_int32(ctx, multiples)?;
            let xs = ctx.op("Shape", &[x], vec![])?;
            let stacked = ctx.op("Pack", &[m, xs], vec![("axis", AttrValue::I(1))])?;
            let flat = ctx.constant(Tensor::from_slice(&[1], &[-1i32])?)?;
            let split = ctx.op("Reshape", &[stacked, flat], vec![])?;
            let size = ctx.op("Size", &[split], vec![])?;
            let (zero, two) = (ctx.constant(Tensor::scalar(0i32))?, ctx.constant(Tensor::scalar(2i32))?);
            (split, ctx.op("Range", &[zero, size, two], vec![])?)
        }
    };
    let viewed = ctx.op("Reshape", &[dy, split_shape], vec![])?;
    let summed = ctx.op("Sum", &[viewed, axes], vec![("keep_dims", AttrValue::B(false))])?;
    Ok(vec![Some(Grad::Dense(summed)), None])
}

/// The gradient of `Pad`/`PadV2`: the slice of `dy` the input occupies.
pub(crate) fn pad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, paddings) = (ctx.input(0), ctx.input(1));
    let paddings = as_int32(ctx, paddings)?;
    let zero = ctx.constant(Tensor::from_slice(&[2], &[0i32, 0])?)?;
    let column = match ctx.spec(x)?.shape.rank() {
        Some(r) => ctx.int_vector(&[r, 1])?,
        None => {
            let rank = ctx.op("Rank", &[x], vec![])?;
            let one = ctx.constant(Tensor::scalar(1i32))?;
            ctx.op("Pack", &[rank, one], vec![])?
        }
    };
    let before = ctx.op("Slice", &[paddings, zero, column], vec![])?;
    let flat = ctx.constant(Tensor::from_slice(&[1], &[-1i32])?)?;
    let begin = ctx.op("Reshape", &[before, flat], vec![])?;
    let size = ctx.shape_of(x)?;
    let mut out = vec![Some(Grad::Dense(ctx.op("Slice", &[dy, begin, size], vec![])?))];
    out.resize(ctx.num_inputs(), None);
    Ok(out)
}

/// The gradient of `Split`/`SplitV`: the pieces' gradients concatenated (zeros for
/// pieces without one).
pub(crate) fn split(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let is_v = ctx.op_type() == "SplitV";
    let axis = ctx.input(if is_v { 2 } else { 0 });
    let mut parts = dense_or_zeros(ctx, g)?;
    parts.push(axis);
    let joined = Some(Grad::Dense(ctx.op("ConcatV2", &parts, vec![])?));
    Ok(if is_v { vec![joined, None, None] } else { vec![None, joined] })
}

/// The gradient of `StridedSlice`: `dy` scattered back by `StridedSliceGrad`.
pub(crate) fn strided_slice(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let x = ctx.input(0);
    let (begin, end, strides) = (ctx.input(1), ctx.input(2), ctx.input(3));
    let mut shape = ctx.shape_of(x)?;
    if ctx.spec(begin)?.dtype == DType::Int64 {
        shape = ctx.op("Cast", &[shape], vec![("DstT", AttrValue::Type(DType::Int64))])?;
    }
    let attrs = strided_masks(ctx);
    let dx = ctx.op("StridedSliceGrad", &[shape, begin, end, strides, dy], attrs)?;
    Ok(vec![Some(Grad::Dense(dx)), None, None, None])
}

fn strided_masks(ctx: &GradCtx<'_>) -> Vec<(&'static str, AttrValue)> {
    ["begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"]
        .into_iter()
        .filter_map(|n| ctx.attr(n).map(|v| (n, v.clone())))
        .collect()
}

/// `StridedSliceGrad` scatters `dy` into zeros: its gradient slices the same window.
pub(crate) fn strided_slice_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let grad = ctx.dy(g)?;
    let (begin, end, strides) = (ctx.input(1), ctx.input(2), ctx.input(3));
    let attrs = strided_masks(ctx);
    let ddy = ctx.op("StridedSlice", &[grad, begin, end, strides], attrs)?;
    Ok(vec![None, None, None, None, Some(Grad::Dense(ddy))])
}

pub(crate) fn transpose(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let perm = ctx.input(1);
    let inv = ctx.op("InvertPermutation", &[perm], vec![])?;
    Ok(vec![Some(Grad::Dense(ctx.op("Transpose", &[dy, inv], vec![])?)), None])
}

/// `Print` passes its first input through; the printed data gets no gradient.
pub(crate) fn print(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let mut grads = vec![g[0]];
    grads.resize(ctx.num_inputs(), None);
    Ok(grads)
}

/// `MirrorPad`'s gradient folds the padded copies back (`MirrorPadGrad`), and that
/// op's gradient is the padding again: both are linear.
pub(crate) fn mirror_pad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    mirror_pair(ctx, g, "MirrorPadGrad")
}

/// See [`mirror_pad`].
pub(crate) fn mirror_pad_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    mirror_pair(ctx, g, "MirrorPad")
}

fn mirror_pair(ctx: &mut GradCtx<'_>, g: &[Option<Grad>], op: &str) -> Grads {
    let dy = ctx.dy(g)?;
    let paddings = ctx.input(1);
    let mode = ctx.attr("mode").cloned().unwrap_or(AttrValue::S(b"REFLECT".to_vec()));
    Ok(vec![Some(Grad::Dense(ctx.op(op, &[dy, paddings], vec![("mode", mode)])?)), None])
}

/// TF's `_DynamicPartitionGrads`: the output gradients stitched back to the rows they
/// came from (outputs no gradient reached contribute zeros).
pub(crate) fn dynamic_partition(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let (data, partitions) = (ctx.input(0), ctx.input(1));
    let num = g.len();
    let prefix_shape = ctx.op("Shape", &[partitions], vec![("out_type", AttrValue::Type(DType::Int32))])?;
    let axis = ctx.constant(Tensor::from_slice(&[1], &[0i32])?)?;
    let count = ctx.op("Prod", &[prefix_shape, axis], vec![("keep_dims", AttrValue::B(false))])?;
    let (zero, one) = (ctx.scalar(DType::Int32, 0.0)?, ctx.scalar(DType::Int32, 1.0)?);
    let range = ctx.op("Range", &[zero, count, one], vec![])?;
    let original = ctx.op("Reshape", &[range, prefix_shape], vec![])?;
    let n = i64::try_from(num).unwrap_or(i64::MAX);
    let split = ctx.node("DynamicPartition", &[original, partitions], vec![("num_partitions", AttrValue::I(n))])?;
    let mut inputs: Vec<Output> = (0..num).map(|i| Output { node: split, index: i }).collect();
    for (i, grad) in g.iter().enumerate() {
        let dense = match grad {
            Some(grad) => ctx.dense(*grad)?,
            None => {
                let out = ctx.output(i);
                ctx.op("ZerosLike", &[out], vec![])?
            }
        };
        inputs.push(dense);
    }
    let stitched = ctx.op("ParallelDynamicStitch", &inputs, vec![])?;
    let data_shape = ctx.shape_of(data)?;
    let reconstructed = ctx.op("Reshape", &[stitched, data_shape], vec![])?;
    Ok(vec![Some(Grad::Dense(reconstructed)), None])
}

/// TF's `_DynamicStitchGrads`: each data tensor's gradient is the output gradient
/// gathered at its indices; the indices get none.
pub(crate) fn dynamic_stitch(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let n = ctx.num_inputs() / 2;
    let Some(grad) = g[0] else { return Ok(vec![None; 2 * n]) };
    let dense = match grad {
        Grad::Dense(d) => d,
        Grad::Sparse { values, indices, .. } => {
            let out = ctx.output(0);
            let shape = ctx.op("Shape", &[out], vec![("out_type", AttrValue::Type(DType::Int32))])?;
            let (begin, size) =
                (ctx.constant(Tensor::from_slice(&[1], &[0i32])?)?, ctx.constant(Tensor::from_slice(&[1], &[1i32])?)?);
            let rows = ctx.op("Slice", &[shape, begin, size], vec![])?;
            let scalar_shape = ctx.constant(Tensor::from_slice::<i32>(&[0], &[])?)?;
            let rows = ctx.op("Reshape", &[rows, scalar_shape], vec![])?;
            ctx.op("UnsortedSegmentSum", &[values, indices, rows], vec![])?
        }
    };
    let mut out = vec![None; n];
    for m in 0..n {
        let indices = ctx.input(m);
        let axis = ctx.scalar(DType::Int32, 0.0)?;
        out.push(Some(Grad::Dense(ctx.op("GatherV2", &[dense, indices, axis], vec![])?)));
    }
    Ok(out)
}

/// `ReverseSequence` reverses the same prefixes of `dy` (TF's `_ReverseSequenceGrad`).
pub(crate) fn reverse_sequence(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let lengths = ctx.input(1);
    let attrs: Vec<(&'static str, AttrValue)> =
        ["seq_dim", "batch_dim"].into_iter().filter_map(|n| ctx.attr(n).map(|v| (n, v.clone()))).collect();
    let dx = ctx.op("ReverseSequence", &[dy, lengths], attrs)?;
    Ok(vec![Some(Grad::Dense(dx)), None])
}
