//! String and file ops: `DecodeRaw`, `DecodePaddedRaw`, `ParseTensor`, `SerializeTensor`,
//! `DecodeJSONExample`, `StringToNumber`, `StringJoin`, `Substr`,
//! `StringSplit`, `StringSplitV2`, `ReduceJoin`, `DecodeCSV`, `ParseExampleV2`, `ParseSequenceExampleV2`,
//! `ReadFile`, `WriteFile`. None has a
//! gradient; those TF registers as not differentiable are marked so, the rest are
//! missing (a `LookupError` when differentiated through), as in TF.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("DecodeRaw", &["bytes"], infer_decode_raw));
    r.add(OpDef::new("DecodePaddedRaw", &["input_bytes", "fixed_length"], infer_decode_raw));
    r.add(OpDef::new("ParseTensor", &["serialized"], infer_parse_tensor));
    r.add(OpDef::new("SerializeTensor", &["tensor"], infer_serialize_tensor));
    r.add(OpDef::new("DecodeJSONExample", &["json_examples"], infer_decode_json_example));
    r.add(OpDef::new("StringToNumber", &["string_tensor"], infer_string_to_number));
    r.add(OpDef::new("StringJoin", &["inputs"], infer_string_join).variadic());
    r.add(OpDef::new("Substr", &["input", "pos", "len"], infer_substr));
    r.add(OpDef::new("StringSplit", &["input", "delimiter"], infer_string_split));
    r.add(OpDef::new("StringSplitV2", &["input", "sep"], infer_string_split_v2));
    r.add(OpDef::new("ReduceJoin", &["inputs", "reduction_indices"], infer_reduce_join));
    r.add(OpDef::new("DecodeCSV", &["records", "record_defaults"], infer_decode_csv).variadic());
    r.add(
        OpDef::new(
            "ParseExampleV2",
            &["serialized", "names", "sparse_keys", "dense_keys", "ragged_keys", "dense_defaults"],
            infer_parse_example,
        )
        .variadic_or_empty(),
    );
    r.add(
        OpDef::new(
            "ParseSequenceExampleV2",
            &[
                "serialized",
                "debug_name",
                "context_sparse_keys",
                "context_dense_keys",
                "context_ragged_keys",
                "feature_list_sparse_keys",
                "feature_list_dense_keys",
                "feature_list_ragged_keys",
                "feature_list_dense_missing_assumed_empty",
                "context_dense_defaults",
            ],
            infer_parse_sequence_example,
        )
        .variadic_or_empty(),
    );
    r.add(OpDef::new("RegexFullMatch", &["input", "pattern"], infer_regex));
    r.add(OpDef::new("StaticRegexFullMatch", &["input"], infer_regex));
    r.add(OpDef::new("AsString", &["input"], infer_as_string));
    r.add(OpDef::new("MatchingFiles", &["pattern"], infer_matching_files).stateful());
    r.add(OpDef::new("ReadFile", &["filename"], infer_read_file).stateful());
    r.add(OpDef::new("WriteFile", &["filename", "contents"], infer_write_file).stateful());
}

fn strings_in(ctx: &InferCtx<'_>, i: usize) -> Result<()> {
    ctx.check_type(i, &[DType::String])
}

fn infer_parse_tensor(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    strings_in(&ctx, 0)?;
    ctx.check_rank(0, 0)?;
    let t = ctx.attr_type("out_type")?;
    Ok(vec![OutputSpec::new(t, PartialShape::unknown())])
}

fn infer_serialize_tensor(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    Ok(vec![OutputSpec::new(DType::String, PartialShape::scalar())])
}

fn infer_decode_json_example(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    strings_in(&ctx, 0)?;
    Ok(vec![OutputSpec::new(DType::String, ctx.input(0).shape.clone())])
}

/// `DecodeRaw` and `DecodePaddedRaw` (whose last dimension is `fixed_length / size`).
fn infer_decode_raw(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    strings_in(&ctx, 0)?;
    let t = ctx.attr_type("out_type")?;
    if !(t.is_numeric() || t == DType::Bool) {
        return Err(Error::type_error(format!(
            "Value for attr 'out_type' of {t} is not in the list of allowed values"
        )));
    }
    ctx.attr_bool("little_endian", true)?;
    let last = if ctx.def.name == "DecodePaddedRaw" {
        ctx.check_rank(1, 0)?;
        ctx.check_type(1, &[DType::Int32])?;
        ctx.consts[1]
            .as_ref()
            .and_then(|c| crate::framework::tensor_util::int_values(c).ok())
            .and_then(|v| v.first().copied())
            .and_then(|n| usize::try_from(n).ok())
            .map(|n| n / t.size().max(1))
    } else {
        None
    };
    let shape = match ctx.input(0).shape.dims() {
        Some(d) => PartialShape::from_dims(d.iter().copied().chain([last])),
        None => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_string_to_number(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    strings_in(&ctx, 0)?;
    let t = ctx.attr_or("out_type", DType::Float32)?;
    if ![DType::Float32, DType::Float64, DType::Int32, DType::Int64].contains(&t) {
        return Err(Error::type_error(format!(
            "Value for attr 'out_type' of {t} is not in the list of allowed values: float, double, int32, int64"
        )));
    }
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

fn infer_string_join(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let mut shape = PartialShape::scalar();
    for i in 0..ctx.inputs.len() {
        strings_in(&ctx, i)?;
        let s = &ctx.inputs[i].shape;
        if s.rank() != Some(0) {
            shape = if shape.rank() == Some(0) {
                s.clone()
            } else {
                shape.merge(s).unwrap_or_else(|_| PartialShape::unknown())
            };
        }
    }
    ctx.attrs.insert("N".into(), AttrValue::I(ctx.inputs.len() as i64));
    ctx.attr_or("separator", String::new())?;
    Ok(vec![OutputSpec::new(DType::String, shape)])
}

fn infer_substr(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    strings_in(&ctx, 0)?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    let t = ctx.inputs[1].dtype;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.attr_or("unit", "BYTE".to_string())?;
    let (pos, len) = (&ctx.input(1).shape, &ctx.input(2).shape);
    // TF's shape function compares each of pos's dimensions with len's by value, an
    // unknown one (or any of an unknown-rank len) counting as -1.
    if let Some(p) = pos.dims() {
        let l = len.dims();
        if let Some(l) = l.filter(|l| l.len() != p.len()) {
            return Err(Error::value(format!("Shape must be rank {} but is rank {}", l.len(), p.len())));
        }
        let differ =
            l.is_some_and(|l| l.len() != p.len()) || p.iter().enumerate().any(|(i, &d)| d != l.and_then(|l| l[i]));
        if differ {
            // TF's debug string of an unknown-rank shape is `?`.
            let show = |s: &PartialShape| if s.rank().is_some() { s.to_string() } else { "?".to_string() };
            return Err(Error::value(format!("pos and len shapes must match: {} vs. {}", show(pos), show(len))));
        }
    }
    let shape = crate::shape::broadcast_partial(&ctx.input(0).shape, pos)?;
    Ok(vec![OutputSpec::new(DType::String, shape)])
}

fn infer_string_split(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.attr_bool("skip_empty", true)?;
    split_outputs(&ctx)
}

fn infer_string_split_v2(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.attr_or("maxsplit", -1i64)?;
    split_outputs(&ctx)
}

/// The sparse components of a split of a string vector by a scalar separator.
fn split_outputs(ctx: &InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    strings_in(ctx, 0)?;
    strings_in(ctx, 1)?;
    ctx.check_rank(0, 1)?;
    ctx.check_rank(1, 0)?;
    Ok(vec![
        OutputSpec::new(DType::Int64, PartialShape::from_dims([None, Some(2)])),
        OutputSpec::new(DType::String, PartialShape::from_dims([None])),
        OutputSpec::new(DType::Int64, PartialShape::known(&[2])),
    ])
}

fn infer_reduce_join(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    strings_in(&ctx, 0)?;
    ctx.check_type(1, &[DType::Int32])?;
    let keep = ctx.attr_bool("keep_dims", false)?;
    ctx.attr_or("separator", String::new())?;
    let shape = match (ctx.input(0).shape.dims(), ctx.constant_input(1).map(crate::framework::tensor_util::int_values))
    {
        (Some(d), Some(Ok(axes))) => {
            let rank = d.len() as i64;
            let axes: Vec<i64> = axes.iter().map(|&a| if a < 0 { a + rank } else { a }).collect();
            let dims = d
                .iter()
                .enumerate()
                .filter_map(|(i, &x)| if axes.contains(&(i as i64)) { keep.then_some(Some(1)) } else { Some(x) });
            PartialShape::from_dims(dims.collect::<Vec<_>>())
        }
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(DType::String, shape)])
}

fn infer_decode_csv(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    strings_in(&ctx, 0)?;
    let types: Vec<DType> = ctx.inputs[1..].iter().map(|s| s.dtype).collect();
    for &t in &types {
        if ![DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::String].contains(&t) {
            return Err(Error::type_error(format!("DecodeCSV does not support record defaults of type {t}")));
        }
    }
    ctx.attrs.insert("OUT_TYPE".into(), AttrValue::ListType(types.clone()));
    ctx.attr_or("field_delim", ",".to_string())?;
    ctx.attr_bool("use_quote_delim", true)?;
    ctx.attr_or("na_value", String::new())?;
    ctx.attr_or("select_cols", Vec::<i64>::new())?;
    let shape = ctx.input(0).shape.clone();
    Ok(types.into_iter().map(|t| OutputSpec::new(t, shape.clone())).collect())
}

fn infer_read_file(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    strings_in(&ctx, 0)?;
    ctx.check_rank(0, 0)?;
    Ok(vec![OutputSpec::new(DType::String, PartialShape::scalar())])
}

fn infer_write_file(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    strings_in(&ctx, 0)?;
    strings_in(&ctx, 1)?;
    ctx.check_rank(0, 0)?;
    ctx.check_rank(1, 0)?;
    Ok(vec![])
}

fn infer_parse_example(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    for i in 0..5 {
        strings_in(&ctx, i)?;
    }
    let tdense: Vec<DType> = ctx.inputs[5..].iter().map(|s| s.dtype).collect();
    ctx.attrs.insert("Tdense".into(), AttrValue::ListType(tdense.clone()));
    let num_sparse = ctx.attr_int("num_sparse", 0)?;
    let sparse_types: Vec<DType> = ctx.attr_or("sparse_types", Vec::new())?;
    let shapes: Vec<PartialShape> = ctx.attr_or("dense_shapes", Vec::new())?;
    let ragged: Vec<DType> = ctx.attr_or("ragged_value_types", Vec::new())?;
    ctx.attr_or("ragged_split_types", Vec::<DType>::new())?;
    if usize::try_from(num_sparse).ok() != Some(sparse_types.len()) {
        return Err(Error::value(format!(
            "num_sparse ({num_sparse}) must match the number of sparse_types ({})",
            sparse_types.len()
        )));
    }
    if shapes.len() != tdense.len() {
        return Err(Error::value(format!(
            "len(dense_shapes) ({}) must match the number of dense defaults ({})",
            shapes.len(),
            tdense.len()
        )));
    }
    if !ragged.is_empty() {
        return Err(Error::value("ParseExampleV2 with ragged features is not supported".to_string()));
    }
    // A `FixedLenSequenceFeature` has an unknown first dimension; the rest must be known.
    for (i, s) in shapes.iter().enumerate() {
        if !s.dims().is_some_and(|d| d.iter().skip(1).all(Option::is_some)) {
            return Err(Error::value(format!(
                "dense_shapes[{i}] has unknown rank or unknown inner dimensions: {s} for '{}' (op: 'ParseExampleV2')",
                ctx.name
            )));
        }
    }
    for &t in sparse_types.iter().chain(&tdense) {
        if ![DType::Float32, DType::Int64, DType::String].contains(&t) {
            return Err(Error::type_error(format!("Feature dtype {t} is not supported (float32, int64 or string)")));
        }
    }
    let batch = ctx.input(0).shape.clone();
    let rank1 = batch.rank() != Some(0);
    let mut out = Vec::new();
    let idx_cols = if rank1 { 2 } else { 1 };
    for _ in &sparse_types {
        out.push(OutputSpec::new(DType::Int64, PartialShape::from_dims([None, Some(idx_cols)])));
    }
    for &t in &sparse_types {
        out.push(OutputSpec::new(t, PartialShape::from_dims([None])));
    }
    for _ in &sparse_types {
        out.push(OutputSpec::new(DType::Int64, PartialShape::known(&[idx_cols])));
    }
    for (&t, s) in tdense.iter().zip(&shapes) {
        let shape = match (batch.dims(), s.dims()) {
            (Some(b), Some(d)) => PartialShape::from_dims(b.iter().chain(d).copied().collect::<Vec<_>>()),
            _ => PartialShape::unknown(),
        };
        out.push(OutputSpec::new(t, shape));
    }
    Ok(out)
}

/// `input`'s dimensions followed by `tail`'s (unknown when `input`'s rank is).
fn concat_shape(input: &PartialShape, tail: impl IntoIterator<Item = Option<usize>>) -> PartialShape {
    match input.dims() {
        Some(d) => PartialShape::from_dims(d.iter().copied().chain(tail)),
        None => PartialShape::unknown(),
    }
}

/// TF's `AddSparseOutputShapes`: indices `[?, rank + delta]`, values `[?]`, shapes
/// `[rank + delta]`, for each of `types`.
fn sparse_outputs(out: &mut Vec<OutputSpec>, types: &[DType], rank: Option<usize>, delta: usize) {
    let width = rank.map(|r| r + delta);
    out.extend(types.iter().map(|_| OutputSpec::new(DType::Int64, PartialShape::from_dims([None, width]))));
    out.extend(types.iter().map(|&t| OutputSpec::new(t, PartialShape::from_dims([None]))));
    out.extend(types.iter().map(|_| OutputSpec::new(DType::Int64, PartialShape::from_dims([width]))));
}

fn infer_parse_sequence_example(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    for i in 0..8 {
        strings_in(&ctx, i)?;
    }
    ctx.check_type(8, &[DType::Bool])?;
    let context_dense: Vec<DType> = ctx.inputs[9..].iter().map(|s| s.dtype).collect();
    ctx.attrs.insert("Tcontext_dense".into(), AttrValue::ListType(context_dense.clone()));
    let mut counts = Vec::new();
    for attr in ["Ncontext_sparse", "Nfeature_list_sparse", "Nfeature_list_dense"] {
        counts.push(usize::try_from(ctx.attr_int(attr, 0)?).ok());
    }
    let mut types: Vec<Vec<DType>> = Vec::new();
    for attr in ["context_sparse_types", "feature_list_sparse_types", "feature_list_dense_types"] {
        types.push(ctx.attr_or(attr, Vec::new())?);
    }
    let context_shapes: Vec<PartialShape> = ctx.attr_or("context_dense_shapes", Vec::new())?;
    let list_shapes: Vec<PartialShape> = ctx.attr_or("feature_list_dense_shapes", Vec::new())?;
    let mut ragged = false;
    for attr in [
        "context_ragged_value_types",
        "context_ragged_split_types",
        "feature_list_ragged_value_types",
        "feature_list_ragged_split_types",
    ] {
        ragged |= !ctx.attr_or(attr, Vec::<DType>::new())?.is_empty();
    }
    if ragged {
        return Err(Error::value("ParseSequenceExampleV2 with ragged features is not supported".to_string()));
    }
    let named = [
        ("Ncontext_sparse", "context_sparse_types"),
        ("Nfeature_list_sparse", "feature_list_sparse_types"),
        ("Nfeature_list_dense", "feature_list_dense_types"),
    ];
    for ((count, t), (n_attr, t_attr)) in counts.iter().zip(&types).zip(named) {
        if *count != Some(t.len()) {
            return Err(Error::value(format!("{n_attr} must match the number of {t_attr} ({})", t.len())));
        }
    }
    if context_shapes.len() != context_dense.len() {
        return Err(Error::value(format!(
            "len(context_dense_shapes) ({}) must match the number of context dense defaults ({})",
            context_shapes.len(),
            context_dense.len()
        )));
    }
    if list_shapes.len() != types[2].len() {
        return Err(Error::value(format!(
            "len(feature_list_dense_shapes) ({}) must match the number of feature_list_dense_types ({})",
            list_shapes.len(),
            types[2].len()
        )));
    }
    for &t in types.iter().flatten().chain(&context_dense) {
        if ![DType::Float32, DType::Int64, DType::String].contains(&t) {
            return Err(Error::type_error(format!("Feature dtype {t} is not supported (float32, int64 or string)")));
        }
    }
    for s in context_shapes.iter().chain(&list_shapes) {
        if !s.dims().is_some_and(|d| d.iter().all(Option::is_some)) {
            return Err(Error::value(format!(
                "Shape {s} is not fully defined for '{}' (op: 'ParseSequenceExampleV2')",
                ctx.name
            )));
        }
    }
    for i in [0, 1] {
        if let Some(r) = ctx.input(i).shape.rank().filter(|&r| r > 1) {
            return Err(Error::value(format!(
                "Shape must be at most rank 1 but is rank {r} for '{}' (op: 'ParseSequenceExampleV2')",
                ctx.name
            )));
        }
    }
    let input = ctx.input(0).shape.clone();
    let rank = input.rank();
    let dims = |s: &PartialShape| s.dims().map(<[_]>::to_vec).unwrap_or_default();
    let mut out = Vec::new();
    sparse_outputs(&mut out, &types[0], rank, 1);
    for (&t, s) in context_dense.iter().zip(&context_shapes) {
        out.push(OutputSpec::new(t, concat_shape(&input, dims(s))));
    }
    sparse_outputs(&mut out, &types[1], rank, 2);
    for (&t, s) in types[2].iter().zip(&list_shapes) {
        out.push(OutputSpec::new(t, concat_shape(&input, std::iter::once(None).chain(dims(s)))));
    }
    out.extend(types[2].iter().map(|_| OutputSpec::new(DType::Int64, input.clone())));
    Ok(out)
}

fn infer_matching_files(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    strings_in(&ctx, 0)?;
    if ctx.input(0).shape.rank().is_some_and(|r| r > 1) {
        return Err(Error::value(format!(
            "Shape must be at most rank 1 but is rank {} for '{}' (op: 'MatchingFiles')",
            ctx.input(0).shape.rank().unwrap_or(0),
            ctx.name
        )));
    }
    Ok(vec![OutputSpec::new(DType::String, PartialShape::from_dims([None]))])
}

fn infer_as_string(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let d = ctx.input(0).dtype;
    if !(d.is_integer() || d.is_floating() || d == DType::Bool) {
        return Err(Error::type_error(format!(
            "Value passed to parameter 'input' has DataType {d} not in list of allowed values: int8, int16, \
             int32, int64, float32, float64, bool"
        )));
    }
    Ok(vec![OutputSpec::new(DType::String, ctx.input(0).shape.clone())])
}

fn infer_regex(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::String])?;
    if ctx.def.name == "RegexFullMatch" {
        ctx.check_type(1, &[DType::String])?;
        ctx.check_rank(1, 0)?;
    } else {
        ctx.required_attr::<String>("pattern")?;
    }
    Ok(vec![OutputSpec::new(DType::Bool, ctx.input(0).shape.clone())])
}
