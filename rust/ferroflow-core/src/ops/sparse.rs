//! Sparse-tensor ops (TF's `sparse_ops.cc`, `SparseSegment*` from `math_ops.cc`): a
//! sparse tensor travels as int64 indices `[N, rank]`, values `[N]` and an int64 dense
//! shape `[rank]`. Kernels in `kernels/sparse.rs`; gradients are TF's Python ones
//! (`ops/sparse_grad.py`, `ops/math_ops.py` on the Python side).
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

const INDEX: &[DType] = &[DType::Int32, DType::Int64];

pub(crate) fn register(r: &mut Registry) {
    r.add(
        OpDef::new(
            "SparseCross",
            // Four input lists (`indices`, `values`, `shapes`, `dense_inputs`), any of
            // them empty: one variadic run, split by the attrs.
            &["inputs"],
            infer_sparse_cross,
        )
        .variadic(),
    );
    r.add(OpDef::new(
        "SparseToDense",
        &["sparse_indices", "output_shape", "sparse_values", "default_value"],
        infer_to_dense,
    ));
    r.add(OpDef::new("SparseReorder", &["input_indices", "input_values", "input_shape"], infer_reorder));
    r.add(OpDef::new("SparseReshape", &["input_indices", "input_shape", "new_shape"], infer_reshape));
    r.add(OpDef::new("SparseConcat", &["indices", "values", "shapes"], infer_concat).variadic());
    r.add(OpDef::new(
        "SparseAdd",
        &["a_indices", "a_values", "a_shape", "b_indices", "b_values", "b_shape", "thresh"],
        infer_add,
    ));
    r.add(OpDef::new("SparseAddGrad", &["backprop_val_grad", "a_indices", "b_indices", "sum_indices"], infer_add_grad));
    r.add(OpDef::new(
        "SparseReduceSum",
        &["input_indices", "input_values", "input_shape", "reduction_axes"],
        infer_reduce_sum,
    ));
    r.add(OpDef::new(
        "SparseReduceSumSparse",
        &["input_indices", "input_values", "input_shape", "reduction_axes"],
        infer_reduce_sum_sparse,
    ));
    r.add(OpDef::new(
        "SparseReduceMax",
        &["input_indices", "input_values", "input_shape", "reduction_axes"],
        infer_reduce_sum,
    ));
    r.add(OpDef::new(
        "SparseReduceMaxSparse",
        &["input_indices", "input_values", "input_shape", "reduction_axes"],
        infer_reduce_sum_sparse,
    ));
    r.add(OpDef::new("SparseTensorDenseAdd", &["a_indices", "a_values", "a_shape", "b"], infer_tensor_dense_add));
    for name in ["SparseDenseCwiseAdd", "SparseDenseCwiseMul", "SparseDenseCwiseDiv"] {
        r.add(OpDef::new(name, &["sp_indices", "sp_values", "sp_shape", "dense"], infer_dense_cwise));
    }
    for name in ["SparseSparseMaximum", "SparseSparseMinimum"] {
        r.add(OpDef::new(
            name,
            &["a_indices", "a_values", "a_shape", "b_indices", "b_values", "b_shape"],
            infer_sparse_sparse,
        ));
    }
    r.add(OpDef::new("SparseSoftmax", &["sp_indices", "sp_values", "sp_shape"], infer_softmax));
    r.add(OpDef::new("SparseSlice", &["indices", "values", "shape", "start", "size"], infer_slice));
    r.add(OpDef::new(
        "SparseSliceGrad",
        &["backprop_val_grad", "input_indices", "input_start", "output_indices"],
        infer_slice_grad,
    ));
    r.add(OpDef::new("SparseSplit", &["split_dim", "indices", "values", "shape"], infer_split));
    r.add(
        OpDef::new("SparseTensorDenseMatMul", &["a_indices", "a_values", "a_shape", "b"], infer_matmul)
            .cost(super::Cost::Contraction),
    );
    r.add(OpDef::new(
        "SparseFillEmptyRows",
        &["indices", "values", "dense_shape", "default_value"],
        infer_fill_empty_rows,
    ));
    r.add(OpDef::new("SparseFillEmptyRowsGrad", &["reverse_index_map", "grad_values"], infer_fill_empty_rows_grad));
    r.add(OpDef::new("SerializeSparse", &["sparse_indices", "sparse_values", "sparse_shape"], infer_serialize));
    r.add(OpDef::new(
        "SerializeManySparse",
        &["sparse_indices", "sparse_values", "sparse_shape"],
        infer_serialize_many,
    ));
    r.add(OpDef::new("DeserializeManySparse", &["serialized_sparse"], infer_deserialize_many));
    r.add(OpDef::new("SegmentSum", &["data", "segment_ids"], infer_segment_sum));
    r.add(OpDef::new("GatherNd", &["params", "indices"], infer_gather_nd));
    for name in ["SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"] {
        r.add(OpDef::new(name, &["data", "indices", "segment_ids"], infer_segment));
    }
    for name in
        ["SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments", "SparseSegmentSqrtNWithNumSegments"]
    {
        r.add(OpDef::new(name, &["data", "indices", "segment_ids", "num_segments"], infer_segment));
    }
    for name in ["SparseSegmentSumGrad", "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad"] {
        r.add(OpDef::new(name, &["grad", "indices", "segment_ids", "output_dim0"], infer_segment_grad));
    }
}

fn set_type(ctx: &mut InferCtx<'_>, attr: &str, i: usize) -> DType {
    let t = ctx.input(i).dtype;
    ctx.attrs.insert(attr.into(), AttrValue::Type(t));
    t
}

/// The number of rows of an indices input (`[N, rank]`), if known.
fn rows(ctx: &InferCtx<'_>, i: usize) -> Option<usize> {
    ctx.input(i).shape.dims().and_then(|d| d.first().copied().flatten())
}

/// The length of a vector input, if known.
fn len(ctx: &InferCtx<'_>, i: usize) -> Option<usize> {
    ctx.input(i).shape.dims().and_then(|d| d.first().copied().flatten())
}

fn check_int64(ctx: &InferCtx<'_>, inputs: &[usize]) -> Result<()> {
    for &i in inputs {
        ctx.check_type(i, &[DType::Int64])?;
    }
    Ok(())
}

fn check_rank_at_most(ctx: &InferCtx<'_>, i: usize, max: usize) -> Result<()> {
    if let Some(r) = ctx.input(i).shape.rank()
        && r > max
    {
        return Err(Error::value(format!(
            "Shape must be at most rank {max} but is rank {r} for '{}' (op: '{}')",
            ctx.name, ctx.def.name
        )));
    }
    Ok(())
}

fn infer_to_dense(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, INDEX)?;
    ctx.check_type(1, INDEX)?;
    let ti = ctx.same_type(&[0, 1]).map_err(|e| Error::type_error(e.message))?;
    let t = ctx.same_type(&[2, 3])?;
    ctx.attrs.insert("Tindices".into(), AttrValue::Type(ti));
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.attrs.entry("validate_indices".into()).or_insert(AttrValue::B(true));
    check_rank_at_most(&ctx, 0, 2)?;
    check_rank_at_most(&ctx, 1, 1)?;
    let shape = match ctx.shape_value(1) {
        Some(s) => s.clone(),
        None => len(&ctx, 1).map_or_else(PartialShape::unknown, PartialShape::unknown_of_rank),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_reorder(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 2])?;
    let t = set_type(&mut ctx, "T", 1);
    Ok(vec![OutputSpec::new(DType::Int64, ctx.input(0).shape.clone()), OutputSpec::new(t, ctx.input(1).shape.clone())])
}

fn infer_reshape(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 1, 2])?;
    let r = len(&ctx, 2);
    Ok(vec![
        OutputSpec::new(DType::Int64, PartialShape::from_dims([rows(&ctx, 0), r])),
        OutputSpec::new(DType::Int64, PartialShape::from_dims([r])),
    ])
}

fn infer_concat(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let total = ctx.inputs.len();
    if total == 0 || !total.is_multiple_of(3) {
        return Err(Error::value(format!("SparseConcat '{}' needs N indices, N values and N shapes", ctx.name)));
    }
    let n = total / 3;
    let idx: Vec<usize> = (0..n).chain(2 * n..3 * n).collect();
    check_int64(&ctx, &idx)?;
    let vals: Vec<usize> = (n..2 * n).collect();
    let t = ctx.same_type(&vals)?;
    ctx.attrs.insert("N".into(), AttrValue::I(i64::try_from(n).unwrap_or(i64::MAX)));
    let rank = (0..n).find_map(|i| len(&ctx, 2 * n + i));
    let nnz = (0..n).try_fold(0usize, |a, i| rows(&ctx, i).map(|r| a + r));
    Ok(vec![
        OutputSpec::new(DType::Int64, PartialShape::from_dims([nnz, rank])),
        OutputSpec::new(t, PartialShape::from_dims([nnz])),
        OutputSpec::new(DType::Int64, PartialShape::from_dims([rank])),
    ])
}

fn infer_add(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 2, 3, 5])?;
    let t = ctx.same_type(&[1, 4])?;
    set_type(&mut ctx, "Treal", 6);
    let rank = len(&ctx, 2).or_else(|| len(&ctx, 5));
    Ok(vec![
        OutputSpec::new(DType::Int64, PartialShape::from_dims([None, rank])),
        OutputSpec::new(t, PartialShape::from_dims([None])),
        OutputSpec::new(DType::Int64, PartialShape::from_dims([rank])),
    ])
}

fn infer_add_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[1, 2, 3])?;
    let t = set_type(&mut ctx, "T", 0);
    Ok(vec![
        OutputSpec::new(t, PartialShape::from_dims([rows(&ctx, 1)])),
        OutputSpec::new(t, PartialShape::from_dims([rows(&ctx, 2)])),
    ])
}

/// The reduced dense shape when the axes and the input's dense shape are constants.
fn reduced(ctx: &InferCtx<'_>, keep_dims: bool) -> Option<Vec<usize>> {
    let shape = ctx.shape_value(2)?.dims()?.iter().copied().collect::<Option<Vec<usize>>>()?;
    let axes = crate::framework::tensor_util::int_values(ctx.constant_input(3)?).ok()?;
    let r = i64::try_from(shape.len()).ok()?;
    let mut keep = vec![true; shape.len()];
    for a in axes {
        let a = if a < 0 { a + r } else { a };
        *keep.get_mut(usize::try_from(a).ok()?)? = false;
    }
    Some(
        shape
            .iter()
            .zip(&keep)
            .filter_map(|(d, k)| match (k, keep_dims) {
                (true, _) => Some(*d),
                (false, true) => Some(1),
                (false, false) => None,
            })
            .collect(),
    )
}

fn infer_reduce_sum(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 2])?;
    ctx.check_type(3, &[DType::Int32])?;
    let t = set_type(&mut ctx, "T", 1);
    let keep = ctx.attr_bool("keep_dims", false)?;
    let shape =
        reduced(&ctx, keep).map_or_else(PartialShape::unknown, |d| PartialShape::from_dims(d.into_iter().map(Some)));
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_reduce_sum_sparse(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 2])?;
    ctx.check_type(3, &[DType::Int32])?;
    let t = set_type(&mut ctx, "T", 1);
    ctx.attr_bool("keep_dims", false)?;
    Ok(vec![
        OutputSpec::new(DType::Int64, PartialShape::from_dims([None, None])),
        OutputSpec::new(t, PartialShape::from_dims([None])),
        OutputSpec::new(DType::Int64, PartialShape::from_dims([None])),
    ])
}

fn infer_tensor_dense_add(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, INDEX)?;
    let ti = ctx.same_type(&[0, 2])?;
    ctx.attrs.insert("Tindices".into(), AttrValue::Type(ti));
    let t = ctx.same_type(&[1, 3])?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    Ok(vec![OutputSpec::new(t, ctx.input(3).shape.clone())])
}

fn infer_dense_cwise(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 2])?;
    let t = ctx.same_type(&[1, 3])?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([rows(&ctx, 0)]))])
}

fn infer_sparse_sparse(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 2, 3, 5])?;
    let t = ctx.same_type(&[1, 4])?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    let rank = ctx.input(0).shape.dims().and_then(|d| d.get(1).copied().flatten());
    Ok(vec![
        OutputSpec::new(DType::Int64, PartialShape::from_dims([None, rank])),
        OutputSpec::new(t, PartialShape::from_dims([None])),
    ])
}

fn infer_softmax(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 2])?;
    ctx.check_type(1, &[DType::Float16, DType::Float32, DType::Float64])?;
    let t = set_type(&mut ctx, "T", 1);
    ctx.check_rank(0, 2)?;
    ctx.check_rank(1, 1)?;
    ctx.check_rank(2, 1)?;
    Ok(vec![OutputSpec::new(t, ctx.input(1).shape.clone())])
}

fn infer_slice(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 2, 3, 4])?;
    let t = set_type(&mut ctx, "T", 1);
    let rank = len(&ctx, 2);
    Ok(vec![
        OutputSpec::new(DType::Int64, PartialShape::from_dims([None, rank])),
        OutputSpec::new(t, PartialShape::from_dims([None])),
        OutputSpec::new(DType::Int64, ctx.input(2).shape.clone()),
    ])
}

fn infer_slice_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[1, 2, 3])?;
    let t = set_type(&mut ctx, "T", 0);
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([rows(&ctx, 1)]))])
}

fn infer_split(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 1, 3])?;
    let t = set_type(&mut ctx, "T", 2);
    let n = ctx.attr_int("num_split", 0)?;
    let n = match usize::try_from(n) {
        Ok(n) if n >= 1 => n,
        _ => {
            return Err(Error::value(format!(
                "Value for attr 'num_split' of {n} must be at least minimum 1 for '{}' (op: 'SparseSplit')",
                ctx.name
            )));
        }
    };
    let rank = len(&ctx, 3);
    let mut out = Vec::with_capacity(3 * n);
    out.extend((0..n).map(|_| OutputSpec::new(DType::Int64, PartialShape::from_dims([None, rank]))));
    out.extend((0..n).map(|_| OutputSpec::new(t, PartialShape::from_dims([None]))));
    out.extend((0..n).map(|_| OutputSpec::new(DType::Int64, PartialShape::from_dims([rank]))));
    Ok(out)
}

fn infer_matmul(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, INDEX)?;
    ctx.check_type(2, &[DType::Int64])?;
    set_type(&mut ctx, "Tindices", 0);
    let t = ctx.same_type(&[1, 3])?;
    let adj_a = ctx.attr_bool("adjoint_a", false)?;
    let adj_b = ctx.attr_bool("adjoint_b", false)?;
    if let Some(r) = ctx.input(3).shape.rank()
        && r != 2
    {
        return Err(Error::value(format!(
            "Shape must be rank 2 but is rank {r} for '{}' (op: 'SparseTensorDenseMatMul')",
            ctx.name
        )));
    }
    let rows = ctx
        .shape_value(2)
        .and_then(|s| s.dims().map(<[_]>::to_vec))
        .and_then(|d| if d.len() == 2 { d[usize::from(adj_a)] } else { None });
    let cols = ctx.input(3).shape.dims().and_then(|d| d[usize::from(!adj_b)]);
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([rows, cols]))])
}

fn infer_fill_empty_rows(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 2])?;
    let t = ctx.same_type(&[1, 3])?;
    let rank = len(&ctx, 2);
    let dense_rows = ctx.shape_value(2).and_then(|s| s.dims().and_then(|d| d.first().copied().flatten()));
    Ok(vec![
        OutputSpec::new(DType::Int64, PartialShape::from_dims([None, rank])),
        OutputSpec::new(t, PartialShape::from_dims([None])),
        OutputSpec::new(DType::Bool, PartialShape::from_dims([dense_rows])),
        OutputSpec::new(DType::Int64, PartialShape::from_dims([rows(&ctx, 0)])),
    ])
}

fn infer_fill_empty_rows_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0])?;
    let t = set_type(&mut ctx, "T", 1);
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([len(&ctx, 0)])), OutputSpec::new(t, PartialShape::scalar())])
}

fn infer_serialize(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 2])?;
    set_type(&mut ctx, "T", 1);
    ctx.attrs.entry("out_type".into()).or_insert(AttrValue::Type(DType::String));
    Ok(vec![OutputSpec::new(DType::String, PartialShape::from_dims([Some(3)]))])
}

fn infer_serialize_many(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_int64(&ctx, &[0, 2])?;
    set_type(&mut ctx, "T", 1);
    ctx.attrs.entry("out_type".into()).or_insert(AttrValue::Type(DType::String));
    Ok(vec![OutputSpec::new(DType::String, PartialShape::from_dims([None, Some(3)]))])
}

fn infer_deserialize_many(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::String])?;
    let t = ctx.attr_type("dtype")?;
    Ok(vec![
        OutputSpec::new(DType::Int64, PartialShape::from_dims([None, None])),
        OutputSpec::new(t, PartialShape::from_dims([None])),
        OutputSpec::new(DType::Int64, PartialShape::from_dims([None])),
    ])
}

fn infer_segment(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Float32, DType::Float64, DType::Float16, DType::BFloat16])?;
    ctx.check_type(1, INDEX)?;
    ctx.check_type(2, INDEX)?;
    let t = set_type(&mut ctx, "T", 0);
    set_type(&mut ctx, "Tidx", 1);
    set_type(&mut ctx, "Tsegmentids", 2);
    let num = if ctx.inputs.len() == 4 {
        ctx.check_type(3, INDEX)?;
        set_type(&mut ctx, "Tnumsegments", 3);
        ctx.constant_input(3)
            .and_then(|c| crate::framework::tensor_util::int_values(c).ok())
            .and_then(|v| v.first().and_then(|n| usize::try_from(*n).ok()))
    } else {
        None
    };
    let shape = match ctx.input(0).shape.dims() {
        Some(d) if !d.is_empty() => PartialShape::from_dims(std::iter::once(num).chain(d[1..].iter().copied())),
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_segment_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(1, INDEX)?;
    ctx.check_type(2, INDEX)?;
    ctx.check_type(3, &[DType::Int32])?;
    let t = set_type(&mut ctx, "T", 0);
    set_type(&mut ctx, "Tidx", 1);
    set_type(&mut ctx, "Tsegmentids", 2);
    let dim0 = ctx
        .constant_input(3)
        .and_then(|c| crate::framework::tensor_util::int_values(c).ok())
        .and_then(|v| v.first().and_then(|n| usize::try_from(*n).ok()));
    let shape = match ctx.input(0).shape.dims() {
        Some(d) if !d.is_empty() => PartialShape::from_dims(std::iter::once(dim0).chain(d[1..].iter().copied())),
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_segment_sum(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Float32, DType::Float64, DType::Float16, DType::BFloat16])?;
    ctx.check_type(1, INDEX)?;
    let t = set_type(&mut ctx, "T", 0);
    set_type(&mut ctx, "Tindices", 1);
    let shape = match ctx.input(0).shape.dims() {
        Some(d) if !d.is_empty() => PartialShape::from_dims(std::iter::once(None).chain(d[1..].iter().copied())),
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_gather_nd(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(1, INDEX)?;
    let t = set_type(&mut ctx, "Tparams", 0);
    set_type(&mut ctx, "Tindices", 1);
    let shape = match (ctx.input(0).shape.dims(), ctx.input(1).shape.dims()) {
        (Some(p), Some(ix)) if !ix.is_empty() => match ix[ix.len() - 1] {
            Some(depth) if depth <= p.len() => {
                PartialShape::from_dims(ix[..ix.len() - 1].iter().copied().chain(p[depth..].iter().copied()))
            }
            Some(_) => {
                return Err(Error::value(format!(
                    "indices.shape[-1] must be <= params.rank, but saw indices shape: {} and params shape: {} for '{}' (op: 'GatherNd')",
                    ctx.input(1).shape,
                    ctx.input(0).shape,
                    ctx.name
                )));
            }
            None => PartialShape::unknown(),
        },
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

/// `SparseCross`: `N` index matrices, `N` value vectors (`sparse_types`), `N` shapes,
/// then the dense matrices (`dense_types`); a 2-D `SparseTensor` of `out_type` out.
fn infer_sparse_cross(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let n = usize::try_from(ctx.attr_int("N", 0)?).map_err(|_| Error::value("SparseCross: N must be >= 0"))?;
    let sparse = match ctx.attrs.get("sparse_types") {
        Some(AttrValue::ListType(t)) => t.clone(),
        _ => Vec::new(),
    };
    let dense = match ctx.attrs.get("dense_types") {
        Some(AttrValue::ListType(t)) => t.clone(),
        _ => Vec::new(),
    };
    if sparse.len() != n || ctx.inputs.len() != 3 * n + dense.len() {
        return Err(Error::value(format!(
            "SparseCross '{}' takes N={n} sparse inputs (indices, values, shapes) and {} dense inputs, got {} inputs",
            ctx.name,
            dense.len(),
            ctx.inputs.len()
        )));
    }
    let allowed = [DType::Int64, DType::String];
    for (i, &t) in sparse.iter().chain(&dense).enumerate() {
        let input = if i < n { n + i } else { 3 * n + (i - n) };
        if !allowed.contains(&t) || ctx.input(input).dtype != t {
            return Err(Error::type_error(format!(
                "SparseCross '{}': input {input} must be int64 or string and match its type attr, got {}",
                ctx.name,
                ctx.input(input).dtype
            )));
        }
    }
    for i in (0..n).chain(2 * n..3 * n) {
        ctx.check_type(i, &[DType::Int64])?;
    }
    let hashed = ctx.attr_bool("hashed_output", false)?;
    ctx.attr_int("num_buckets", 0)?;
    ctx.attr_int("hash_key", 0)?;
    let out = ctx.attr_type("out_type")?;
    ctx.attr_type("internal_type")?;
    if hashed != (out == DType::Int64) {
        return Err(Error::type_error(format!(
            "SparseCross '{}': out_type must be int64 for a hashed cross and string otherwise, got {out}",
            ctx.name
        )));
    }
    Ok(vec![
        OutputSpec::new(DType::Int64, PartialShape::from_dims([None, Some(2)])),
        OutputSpec::new(out, PartialShape::from_dims([None])),
        OutputSpec::new(DType::Int64, PartialShape::from_dims([Some(2)])),
    ])
}
