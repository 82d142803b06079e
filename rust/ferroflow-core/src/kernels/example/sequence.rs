//! `ParseSequenceExampleV2`: serialized `tf.train.SequenceExample` records into their
//! context's features (read by `parse_features`, as `ParseExampleV2` reads an
//! `Example`'s) and their feature lists', with the semantics and messages of TF's
//! `FastParseSequenceExample`: a dense feature list is `[T_max] + shape` per record,
//! padded with zeros (`""`), with each record's `T` in `feature_list_dense_lengths`;
//! a sparse one has `[step, index]` indices (behind the record's, for a batch).
use super::wire::{self, SequenceExample};
use super::{
    Column, DenseShape, FeatureMap, FeatureSpec, Flavor, Records, SparseOut, check_context_types, checked_mul,
    num_elements, parse_features, type_name,
};
use crate::buffer::try_vec;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::{KernelBuild, OpContext, OpKernel};
use crate::shape::{PartialShape, fmt_shape};
use crate::tensor::Tensor;

struct ParseSequenceExample {
    context_sparse_types: Vec<DType>,
    context_dense_types: Vec<DType>,
    context_dense_shapes: Vec<DenseShape>,
    list_sparse_types: Vec<DType>,
    list_dense_types: Vec<DType>,
    list_dense_shapes: Vec<Vec<usize>>,
}

pub(crate) fn parse_sequence_example_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    for attr in ["context_ragged_value_types", "feature_list_ragged_value_types"] {
        let ragged: Vec<DType> = b.node.attr_or(attr, Vec::new())?;
        if !ragged.is_empty() {
            ff_bail!(Unimplemented, "ParseSequenceExampleV2 with ragged features is not supported");
        }
    }
    let fixed = |attr: &str| -> Result<Vec<Vec<usize>>> {
        let shapes: Vec<PartialShape> = b.node.attr_or(attr, Vec::new())?;
        shapes
            .iter()
            .enumerate()
            .map(|(i, s)| match DenseShape::from_attr(s, attr, i, false)? {
                DenseShape::Fixed(d) | DenseShape::Rows(d) => Ok(d),
            })
            .collect()
    };
    Ok(Box::new(ParseSequenceExample {
        context_sparse_types: b.node.attr_or("context_sparse_types", Vec::new())?,
        context_dense_types: b.node.attr_or("Tcontext_dense", Vec::new())?,
        context_dense_shapes: fixed("context_dense_shapes")?.into_iter().map(DenseShape::Fixed).collect(),
        list_sparse_types: b.node.attr_or("feature_list_sparse_types", Vec::new())?,
        list_dense_types: b.node.attr_or("feature_list_dense_types", Vec::new())?,
        list_dense_shapes: fixed("feature_list_dense_shapes")?,
    }))
}

fn lossy(key: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(key)
}

fn check_count(what: &str, got: usize, want: usize) -> Result<()> {
    if got != want {
        ff_bail!(InvalidArgument, "Expected {what} to have {want} elements, got {got}");
    }
    Ok(())
}

/// `keys` must not repeat a key of `other` (TF's "cannot be both dense and sparse").
fn check_disjoint(what: &str, sparse: &[Vec<u8>], dense: &[Vec<u8>]) -> Result<()> {
    if let Some(k) = dense.iter().find(|k| sparse.contains(k)) {
        ff_bail!(InvalidArgument, "{what} feature {} cannot be both dense and sparse", lossy(k));
    }
    Ok(())
}

/// TF's message for a step of the wrong kind (or whose values are malformed).
fn list_type_error(rec: &Records<'_>, b: usize, key: &[u8], row: usize, t: DType) -> Error {
    Error::invalid_argument(format!(
        "Name: {}, Feature list: {}, Index: {row}.  Data types don't match. Expected type: {}",
        rec.name(b),
        lossy(key),
        type_name(t)
    ))
}

/// TF's first pass over a feature list: every step must hold a well-formed list of
/// `t` (or none). The number of values of each record's list, `None` when absent.
fn list_sizes(seqs: &[SequenceExample<'_>], rec: &Records<'_>, key: &[u8], t: DType) -> Result<Vec<Option<usize>>> {
    let mut sizes = try_vec(seqs.len())?;
    for (b, s) in seqs.iter().enumerate() {
        let Some(steps) = s.feature_list(key) else {
            sizes.push(None);
            continue;
        };
        let mut total = 0usize;
        for (row, step) in steps.iter().enumerate() {
            if let Some(v) = step {
                let len = v.len().filter(|_| v.dtype() == t).ok_or_else(|| list_type_error(rec, b, key, row, t))?;
                total = total.saturating_add(len);
            }
        }
        sizes.push(Some(total));
    }
    Ok(sizes)
}

/// A dense feature list: `(values, lengths)`.
#[allow(clippy::too_many_arguments)]
fn list_dense(
    seqs: &[SequenceExample<'_>],
    rec: &Records<'_>,
    key: &[u8],
    t: DType,
    row: &[usize],
    missing_is_empty: bool,
    sizes: &[Option<usize>],
) -> Result<(Tensor, Tensor)> {
    let key_s = lossy(key);
    let stride = num_elements(row)?;
    let max_values = sizes.iter().flatten().copied().max().unwrap_or(0);
    let max_rows = if stride == 0 {
        seqs.iter().filter_map(|s| s.feature_list(key)).map(<[_]>::len).max().unwrap_or(0)
    } else if max_values % stride == 0 {
        max_values / stride
    } else {
        ff_bail!(
            InvalidArgument,
            "Feature list '{key_s}' has an unexpected number of values.  Total values size: {max_values} is not \
             consistent with output shape: {}",
            PartialShape::from_dims(std::iter::once(None).chain(row.iter().copied().map(Some)))
        );
    };
    let per = checked_mul(max_rows, stride)?;
    let mut col = Column::new(t, checked_mul(per, seqs.len())?)?;
    let mut lengths: Vec<i64> = try_vec(seqs.len())?;
    for (b, s) in seqs.iter().enumerate() {
        let before = col.len();
        let mut rows = 0usize;
        match s.feature_list(key) {
            None if !missing_is_empty => ff_bail!(
                InvalidArgument,
                "Name: {}, Feature list '{key_s}' is required but could not be found.  Did you mean to include it in \
                 feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?",
                rec.name(b)
            ),
            None => {}
            Some(steps) => {
                for (i, step) in steps.iter().enumerate() {
                    let added = match step {
                        Some(v) => {
                            let start = col.len();
                            col.extend(v).ok_or_else(|| list_type_error(rec, b, key, i, t))?;
                            col.len() - start
                        }
                        None => 0,
                    };
                    if added != stride {
                        ff_bail!(
                            InvalidArgument,
                            "Name: {}, Key: {key_s}, Index: {i}.  Number of values != expected.  values size: \
                             {added} but output shape: {}",
                            rec.name(b),
                            fmt_shape(row)
                        );
                    }
                    rows += 1;
                }
            }
        }
        lengths.push(rows as i64);
        let filled = col.len() - before;
        let pad = per
            .checked_sub(filled)
            .ok_or_else(|| Error::invalid_argument(format!("Feature list '{key_s}' has more rows than counted")))?;
        col.pad(None, pad)?;
    }
    Ok((col.into_tensor(&rec.shape(&[&[max_rows], row].concat()))?, Tensor::from_slice(&rec.lead(), &lengths)?))
}

/// A sparse feature list: `[indices, values, dense_shape]`.
fn list_sparse(seqs: &[SequenceExample<'_>], rec: &Records<'_>, key: &[u8], t: DType) -> Result<[Tensor; 3]> {
    let mut out = SparseOut::new(t, rec.lead().len() + 2)?;
    let (mut max_rows, mut max_cols) = (0usize, 0usize);
    for (b, s) in seqs.iter().enumerate() {
        let Some(steps) = s.feature_list(key) else { continue };
        for (row, step) in steps.iter().enumerate() {
            let Some(v) = step else { continue };
            let at = [b as i64, row as i64];
            let prefix = if rec.batch { &at[..] } else { &at[1..] };
            let added = out.push(prefix, v).ok_or_else(|| list_type_error(rec, b, key, row, t))?;
            max_cols = max_cols.max(added);
        }
        max_rows = max_rows.max(steps.len());
    }
    out.finish(&rec.shape(&[max_rows, max_cols]))
}

impl OpKernel for ParseSequenceExample {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let rec = Records::from_inputs(ctx)?;
        let context_sparse_keys = ctx.input(2)?.as_strings()?;
        let context_dense_keys = ctx.input(3)?.as_strings()?;
        let list_sparse_keys = ctx.input(5)?.as_strings()?;
        let list_dense_keys = ctx.input(6)?.as_strings()?;
        if !ctx.input(4)?.as_strings()?.is_empty() || !ctx.input(7)?.as_strings()?.is_empty() {
            ff_bail!(Unimplemented, "ParseSequenceExampleV2 with ragged features is not supported");
        }
        let missing_is_empty = ctx.input(8)?.as_slice::<bool>()?;
        check_count("context_sparse_keys", context_sparse_keys.len(), self.context_sparse_types.len())?;
        check_count("context_dense_keys", context_dense_keys.len(), self.context_dense_types.len())?;
        check_count("feature_list_sparse_keys", list_sparse_keys.len(), self.list_sparse_types.len())?;
        check_count("feature_list_dense_keys", list_dense_keys.len(), self.list_dense_types.len())?;
        check_count("feature_list_dense_missing_assumed_empty", missing_is_empty.len(), self.list_dense_types.len())?;
        let defaults: Vec<&Tensor> = (9..ctx.num_inputs()).map(|i| ctx.input(i)).collect::<Result<_>>()?;
        check_count("context_dense_defaults", defaults.len(), self.context_dense_types.len())?;
        for (d, (def, (shape, &t))) in
            defaults.iter().zip(self.context_dense_shapes.iter().zip(&self.context_dense_types)).enumerate()
        {
            let (DenseShape::Fixed(dims) | DenseShape::Rows(dims)) = shape;
            if def.num_elements() > 0 && (def.shape() != dims.as_slice() || def.dtype() != t) {
                ff_bail!(
                    InvalidArgument,
                    "context_dense_defaults[{d}] is a {} tensor of shape {}, the feature is {} of shape {}",
                    def.dtype(),
                    fmt_shape(def.shape()),
                    t,
                    fmt_shape(dims)
                );
            }
        }
        if !rec.names.is_empty() && rec.names.len() != rec.serialized.len() {
            ff_bail!(InvalidArgument, "example_names must be empty or have the correct number of elements");
        }
        check_disjoint("Context", context_sparse_keys, context_dense_keys)?;
        check_disjoint("Sequence", list_sparse_keys, list_dense_keys)?;
        let seqs = rec
            .serialized
            .iter()
            .enumerate()
            .map(|(i, s)| {
                wire::sequence_example(s).ok_or_else(|| {
                    Error::invalid_argument(format!("Invalid protocol message input, example id: {}", rec.name(i)))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let maps: Vec<&FeatureMap<'_>> = seqs.iter().map(|s| &s.context).collect();
        let spec = FeatureSpec {
            sparse_keys: context_sparse_keys,
            sparse_types: &self.context_sparse_types,
            dense_keys: context_dense_keys,
            dense_types: &self.context_dense_types,
            dense_shapes: &self.context_dense_shapes,
            defaults: &defaults,
        };
        // TF checks every feature's kind before it sizes any output.
        check_context_types(&maps, &rec, &spec)?;
        let dense_sizes = list_dense_keys
            .iter()
            .zip(&self.list_dense_types)
            .map(|(k, &t)| list_sizes(&seqs, &rec, k, t))
            .collect::<Result<Vec<_>>>()?;
        for (k, &t) in list_sparse_keys.iter().zip(&self.list_sparse_types) {
            list_sizes(&seqs, &rec, k, t)?;
        }
        let mut outputs = parse_features(&maps, &rec, &spec, Flavor::SequenceContext)?;
        let mut parts: [Vec<Tensor>; 3] = Default::default();
        for (k, &t) in list_sparse_keys.iter().zip(&self.list_sparse_types) {
            for (part, x) in parts.iter_mut().zip(list_sparse(&seqs, &rec, k, t)?) {
                part.push(x);
            }
        }
        let (mut values, mut lengths) = (Vec::new(), Vec::new());
        for ((((k, &t), row), &empty), sizes) in list_dense_keys
            .iter()
            .zip(&self.list_dense_types)
            .zip(&self.list_dense_shapes)
            .zip(missing_is_empty)
            .zip(&dense_sizes)
        {
            let (v, l) = list_dense(&seqs, &rec, k, t, row, empty, sizes)?;
            values.push(v);
            lengths.push(l);
        }
        outputs.extend(parts.into_iter().flatten());
        outputs.extend(values);
        outputs.extend(lengths);
        for (i, t) in outputs.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    }
}
