//! `ParseExampleV2` and `ParseSequenceExampleV2`: serialized `tf.train.Example` and
//! `tf.train.SequenceExample` records into dense tensors (`FixedLenFeature`,
//! `FixedLenSequenceFeature`) and sparse components (`VarLenFeature`), with TF's
//! semantics and messages. The records are read in place (`wire`), not decoded into
//! messages. `parse_features` reads the `Features` of an `Example` and the context
//! of a `SequenceExample` alike; `sequence` adds the feature lists. Ragged features
//! are not supported.
mod json;
mod sequence;
mod wire;

pub(crate) use json::decode_json_example_kernel;
pub(crate) use sequence::parse_sequence_example_kernel;
use wire::{FeatureMap, Values};

use super::{KernelBuild, OpContext, OpKernel};
use crate::buffer::try_vec;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::{PartialShape, fmt_shape};
use crate::tensor::Tensor;

struct ParseExample {
    sparse_types: Vec<DType>,
    dense_types: Vec<DType>,
    dense_shapes: Vec<DenseShape>,
}

pub(crate) fn parse_example_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let ragged: Vec<DType> = b.node.attr_or("ragged_value_types", Vec::new())?;
    if !ragged.is_empty() {
        ff_bail!(Unimplemented, "ParseExampleV2 with ragged features is not supported");
    }
    let shapes: Vec<PartialShape> = b.node.attr_or("dense_shapes", Vec::new())?;
    let dense_shapes = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| DenseShape::from_attr(s, "dense_shapes", i, true))
        .collect::<Result<Vec<_>>>()?;
    Ok(Box::new(ParseExample {
        sparse_types: b.node.attr_or("sparse_types", Vec::new())?,
        dense_types: b.node.attr_or("Tdense", Vec::new())?,
        dense_shapes,
    }))
}

impl Values<'_> {
    fn dtype(&self) -> DType {
        match self {
            Values::Float(_) => DType::Float32,
            Values::Int64(_) => DType::Int64,
            Values::Bytes(_) => DType::String,
        }
    }
}

/// TF's `DataTypeString` of a feature dtype.
fn type_name(t: DType) -> &'static str {
    match t {
        DType::Float32 => "float",
        DType::Int64 => "int64",
        _ => "string",
    }
}

/// The word TF's fast parser uses for a feature's values in its count errors
/// (`"bytes"`, not `DataTypeString`'s `"string"`).
fn values_word(t: DType) -> &'static str {
    match t {
        DType::String => "bytes",
        t => type_name(t),
    }
}

/// Output columns being filled.
enum Column {
    Float(Vec<f32>),
    Int64(Vec<i64>),
    Bytes(Vec<Vec<u8>>),
}

impl Column {
    /// An empty column with room for `cap` values (`ResourceExhausted` if the
    /// memory cannot be had).
    fn new(t: DType, cap: usize) -> Result<Column> {
        Ok(match t {
            DType::Float32 => Column::Float(try_vec(cap)?),
            DType::Int64 => Column::Int64(try_vec(cap)?),
            DType::String => Column::Bytes(try_vec(cap)?),
            t => ff_bail!(InvalidArgument, "Feature dtype {t} is not supported (float, int64 or string)"),
        })
    }

    fn len(&self) -> usize {
        match self {
            Column::Float(c) => c.len(),
            Column::Int64(c) => c.len(),
            Column::Bytes(c) => c.len(),
        }
    }

    /// Appends `v`'s values (of the column's kind; `None` if malformed).
    fn extend(&mut self, v: &Values<'_>) -> Option<()> {
        match self {
            Column::Float(c) => v.floats(c),
            Column::Int64(c) => v.int64s(c),
            Column::Bytes(c) => v.bytes(c),
        }
    }

    fn extend_tensor(&mut self, t: &Tensor) -> Result<()> {
        match self {
            Column::Float(c) => c.extend_from_slice(t.as_slice::<f32>()?),
            Column::Int64(c) => c.extend_from_slice(t.as_slice::<i64>()?),
            Column::Bytes(c) => c.extend(t.as_strings()?.iter().cloned()),
        }
        Ok(())
    }

    /// Appends `count` copies of `value`'s first element, or of zero (`""`).
    fn pad(&mut self, value: Option<&Tensor>, count: usize) -> Result<()> {
        match self {
            Column::Float(c) => {
                let x = value.map_or(Ok(0.0), |t| t.as_slice::<f32>().map(|s| s.first().copied().unwrap_or(0.0)))?;
                c.resize(c.len() + count, x);
            }
            Column::Int64(c) => {
                let x = value.map_or(Ok(0), |t| t.as_slice::<i64>().map(|s| s.first().copied().unwrap_or(0)))?;
                c.resize(c.len() + count, x);
            }
            Column::Bytes(c) => {
                let x =
                    value.map_or(Ok(Vec::new()), |t| t.as_strings().map(|s| s.first().cloned().unwrap_or_default()))?;
                c.resize(c.len() + count, x);
            }
        }
        Ok(())
    }

    fn into_tensor(self, shape: &[usize]) -> Result<Tensor> {
        match self {
            Column::Float(c) => Tensor::from_slice(shape, &c),
            Column::Int64(c) => Tensor::from_slice(shape, &c),
            Column::Bytes(c) => Tensor::from_strings(shape, c),
        }
    }
}

impl OpKernel for ParseExample {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let rec = Records::from_inputs(ctx)?;
        let sparse_keys = ctx.input(2)?.as_strings()?;
        let dense_keys = ctx.input(3)?.as_strings()?;
        if !ctx.input(4)?.as_strings()?.is_empty() {
            ff_bail!(Unimplemented, "ParseExampleV2 with ragged features is not supported");
        }
        if sparse_keys.len() != self.sparse_types.len() || dense_keys.len() != self.dense_types.len() {
            ff_bail!(
                InvalidArgument,
                "Expected {} sparse keys and {} dense keys, got {} and {}",
                self.sparse_types.len(),
                self.dense_types.len(),
                sparse_keys.len(),
                dense_keys.len()
            );
        }
        let defaults: Vec<&Tensor> = (5..ctx.num_inputs()).map(|i| ctx.input(i)).collect::<Result<_>>()?;
        if defaults.len() != dense_keys.len() {
            ff_bail!(InvalidArgument, "Expected {} dense defaults, got {}", dense_keys.len(), defaults.len());
        }
        let examples = rec
            .serialized
            .iter()
            .enumerate()
            .map(|(i, s)| wire::example(s).ok_or_else(|| rec.malformed(i)))
            .collect::<Result<Vec<_>>>()?;
        let maps: Vec<&FeatureMap<'_>> = examples.iter().collect();
        let spec = FeatureSpec {
            sparse_keys,
            sparse_types: &self.sparse_types,
            dense_keys,
            dense_types: &self.dense_types,
            dense_shapes: &self.dense_shapes,
            defaults: &defaults,
        };
        let outputs = parse_features(&maps, &rec, &spec, Flavor::Example)?;
        for (i, t) in outputs.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    }
}

/// A dense feature's shape per record: fully defined, or any number of rows of a
/// fully defined shape (a `FixedLenSequenceFeature`: `[?] + row` in TF's attr).
#[derive(Clone, Debug)]
enum DenseShape {
    Fixed(Vec<usize>),
    Rows(Vec<usize>),
}

impl DenseShape {
    /// The shape of a `dense_shapes` attr entry; an unknown first dimension only
    /// where `rows` allows it.
    fn from_attr(s: &PartialShape, attr: &str, i: usize, rows: bool) -> Result<DenseShape> {
        let known = |d: &[Option<usize>]| d.iter().copied().collect::<Option<Vec<usize>>>();
        if let Some(d) = s.dims() {
            if let Some(all) = known(d) {
                return Ok(DenseShape::Fixed(all));
            }
            if rows
                && d.first() == Some(&None)
                && let Some(row) = known(&d[1..])
            {
                return Ok(DenseShape::Rows(row));
            }
        }
        ff_bail!(InvalidArgument, "{attr}[{i}] has unknown rank or unknown inner dimensions: {s}")
    }
}

/// The product of `dims`, or `InvalidArgument` when it overflows.
fn num_elements(dims: &[usize]) -> Result<usize> {
    dims.iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| Error::invalid_argument(format!("Shape {} has too many elements", fmt_shape(dims))))
}

fn checked_mul(a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(|| Error::invalid_argument(format!("Output of {a} x {b} elements is too large")))
}

/// The records of one call: serialized bytes and names (for messages), and whether
/// `serialized` is a vector (a batch) or a scalar (one record).
struct Records<'a> {
    serialized: &'a [Vec<u8>],
    names: &'a [Vec<u8>],
    batch: bool,
}

impl<'a> Records<'a> {
    /// A parse op's `serialized` (input 0: a scalar, one record, or a vector) and
    /// `names` (input 1).
    fn from_inputs(ctx: &'a OpContext<'_>) -> Result<Records<'a>> {
        let serialized = ctx.input(0)?;
        if serialized.shape().len() > 1 {
            ff_bail!(
                InvalidArgument,
                "Expected serialized to be a scalar or vector, got shape: {}",
                fmt_shape(serialized.shape())
            );
        }
        Ok(Records {
            serialized: serialized.as_strings()?,
            names: ctx.input(1)?.as_strings()?,
            batch: serialized.shape().len() == 1,
        })
    }

    /// Record `i`'s name for messages: its entry of `names`, or `<unknown>`.
    fn name(&self, i: usize) -> String {
        self.names.get(i).map_or_else(|| "<unknown>".to_string(), |n| String::from_utf8_lossy(n).into_owned())
    }

    /// The outputs' leading dimensions: `[n]` for a batch, none for one record.
    fn lead(&self) -> Vec<usize> {
        if self.batch { vec![self.serialized.len()] } else { Vec::new() }
    }

    /// An output's shape: the leading dimensions, then `tail`.
    fn shape(&self, tail: &[usize]) -> Vec<usize> {
        let mut shape = self.lead();
        shape.extend_from_slice(tail);
        shape
    }

    fn malformed(&self, i: usize) -> Error {
        let s = self.serialized.get(i).map_or(&[][..], Vec::as_slice);
        Error::invalid_argument(format!("Could not parse example input, value: '{}'", String::from_utf8_lossy(s)))
    }
}

/// What to read from each record's `Features`: the sparse and dense keys, their
/// dtypes, the dense shapes and defaults (an empty default: required).
struct FeatureSpec<'a> {
    sparse_keys: &'a [Vec<u8>],
    sparse_types: &'a [DType],
    dense_keys: &'a [Vec<u8>],
    dense_types: &'a [DType],
    dense_shapes: &'a [DenseShape],
    defaults: &'a [&'a Tensor],
}

/// Whose semantics and messages `parse_features` follows: `ParseExampleV2`'s
/// (TF's `FastParseExample`), or the context of `ParseSequenceExampleV2`
/// (`FastParseSequenceExample`: a feature whose kind is unset is present and
/// empty, a value list of the wrong kind is an error even when empty, and dense
/// sizes are checked against the largest record first).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavor {
    Example,
    SequenceContext,
}

fn lossy(key: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(key)
}

/// `ParseSequenceExampleV2`'s message for a context feature of the wrong kind (or
/// whose values are malformed).
fn context_type_error(rec: &Records<'_>, b: usize, key: &[u8], t: DType) -> Error {
    Error::invalid_argument(format!(
        "Name: {}, Context feature: {}.  Data types don't match. Expected type: {}",
        rec.name(b),
        lossy(key),
        type_name(t)
    ))
}

/// TF's first pass over the context of `SequenceExample`s: every requested
/// feature that is present must hold a well-formed list of its dtype.
fn check_context_types(maps: &[&FeatureMap<'_>], rec: &Records<'_>, spec: &FeatureSpec<'_>) -> Result<()> {
    let keys = spec.sparse_keys.iter().zip(spec.sparse_types).chain(spec.dense_keys.iter().zip(spec.dense_types));
    for (key, &t) in keys {
        for (b, m) in maps.iter().enumerate() {
            if let Some(Some(v)) = m.get(key)
                && (v.dtype() != t || v.len().is_none())
            {
                return Err(context_type_error(rec, b, key, t));
            }
        }
    }
    Ok(())
}

/// The sparse and dense outputs of one `Features` map per record, in the ops'
/// output order: every sparse key's indices, then values, then dense shapes, then
/// the dense values. Shared by `ParseExampleV2` and the context of
/// `ParseSequenceExampleV2`, with `flavor`'s semantics and messages.
fn parse_features(
    maps: &[&FeatureMap<'_>],
    rec: &Records<'_>,
    spec: &FeatureSpec<'_>,
    flavor: Flavor,
) -> Result<Vec<Tensor>> {
    let mut parts: [Vec<Tensor>; 3] = Default::default();
    for (key, &t) in spec.sparse_keys.iter().zip(spec.sparse_types) {
        let mut out = SparseOut::new(t, rec.lead().len() + 1)?;
        let mut max_len = 0usize;
        for (b, m) in maps.iter().enumerate() {
            let Some(v) = m.get(key).flatten() else { continue };
            let bad = || match flavor {
                Flavor::Example => rec.malformed(b),
                Flavor::SequenceContext => context_type_error(rec, b, key, t),
            };
            if v.dtype() != t {
                let len = v.len().ok_or_else(bad)?;
                if flavor == Flavor::SequenceContext {
                    return Err(context_type_error(rec, b, key, t));
                }
                if len == 0 {
                    continue;
                }
                ff_bail!(
                    InvalidArgument,
                    "Name: {}, Key: {}, Index: {b}.  Data types don't match. Expected type: {}, Actual type: {}",
                    rec.name(b),
                    lossy(key),
                    type_name(t),
                    type_name(v.dtype())
                );
            }
            let at = [b as i64];
            let prefix: &[i64] = if rec.batch { &at } else { &[] };
            max_len = max_len.max(out.push(prefix, &v).ok_or_else(bad)?);
        }
        for (part, t) in parts.iter_mut().zip(out.finish(&rec.shape(&[max_len]))?) {
            part.push(t);
        }
    }
    let [mut outputs, values, shapes] = parts;
    outputs.extend(values);
    outputs.extend(shapes);
    let dense = spec.dense_keys.iter().zip(spec.dense_types).zip(spec.dense_shapes).zip(spec.defaults);
    for (i, (((key, &t), shape), default)) in dense.enumerate() {
        outputs.push(match (shape, flavor) {
            (DenseShape::Fixed(dims), Flavor::Example) => example_dense(maps, rec, key, t, dims, default)?,
            (DenseShape::Fixed(dims), Flavor::SequenceContext) => context_dense(maps, rec, key, t, dims, default)?,
            (DenseShape::Rows(row), _) => dense_rows(maps, rec, i, key, t, row, default)?,
        });
    }
    Ok(outputs)
}

/// A `FixedLenFeature` of `ParseExampleV2`.
fn example_dense(
    maps: &[&FeatureMap<'_>],
    rec: &Records<'_>,
    key: &[u8],
    t: DType,
    dims: &[usize],
    default: &Tensor,
) -> Result<Tensor> {
    let per = num_elements(dims)?;
    let mut col = Column::new(t, checked_mul(per, maps.len())?)?;
    let key_s = lossy(key);
    let given = default.num_elements();
    for (b, m) in maps.iter().enumerate() {
        match m.get(key).flatten() {
            Some(v) => {
                let len = v.len().ok_or_else(|| rec.malformed(b))?;
                if v.dtype() != t {
                    ff_bail!(
                        InvalidArgument,
                        "Name: {}, Key: {key_s}, Index: {b}.  Data types don't match. Data type: {} but expected type: {}",
                        rec.name(b),
                        type_name(v.dtype()),
                        type_name(t)
                    );
                }
                if len != per {
                    ff_bail!(
                        InvalidArgument,
                        "Name: {}, Key: {key_s}, Index: {b}.  Number of {} values != expected.  Values size: {} but \
                         output shape: {}",
                        rec.name(b),
                        values_word(t),
                        len,
                        fmt_shape(dims)
                    );
                }
                col.extend(&v).ok_or_else(|| rec.malformed(b))?;
            }
            None if given == 0 && per > 0 => ff_bail!(
                InvalidArgument,
                "Name: {}, Feature: {key_s} (data type: {}) is required but could not be found.",
                rec.name(b),
                type_name(t)
            ),
            None if given == per => col.extend_tensor(default)?,
            None if given == 1 => col.pad(Some(default), per)?,
            None => ff_bail!(
                InvalidArgument,
                "Default value for key {key_s} has {given} values, the feature has shape {}",
                fmt_shape(dims)
            ),
        }
    }
    col.into_tensor(&rec.shape(dims))
}

/// A `FixedLenFeature` of a `SequenceExample`'s context: sizes are checked against
/// the largest record (or the default) first, as TF does.
fn context_dense(
    maps: &[&FeatureMap<'_>],
    rec: &Records<'_>,
    key: &[u8],
    t: DType,
    dims: &[usize],
    default: &Tensor,
) -> Result<Tensor> {
    let per = num_elements(dims)?;
    let key_s = lossy(key);
    let mut max = default.num_elements();
    for (b, m) in maps.iter().enumerate() {
        if let Some(Some(v)) = m.get(key) {
            if v.dtype() != t {
                return Err(context_type_error(rec, b, key, t));
            }
            max = max.max(v.len().ok_or_else(|| context_type_error(rec, b, key, t))?);
        }
    }
    if max != per {
        ff_bail!(
            InvalidArgument,
            "Inconsistent max number of elements for feature {key_s}: expected {per}, but found {max}"
        );
    }
    let mut col = Column::new(t, checked_mul(per, maps.len())?)?;
    for (b, m) in maps.iter().enumerate() {
        let before = col.len();
        match m.get(key) {
            None if default.num_elements() == 0 => ff_bail!(
                InvalidArgument,
                "Feature: {key_s} (data type: {}) is required but could not be found.",
                type_name(t)
            ),
            None => col.extend_tensor(default)?,
            Some(None) => {}
            Some(Some(v)) => col.extend(&v).ok_or_else(|| context_type_error(rec, b, key, t))?,
        }
        if col.len() - before != per {
            ff_bail!(InvalidArgument, "Unexpected number of elements in example {}", rec.name(b));
        }
    }
    col.into_tensor(&rec.shape(dims))
}

/// A `FixedLenSequenceFeature` of `ParseExampleV2`: each record's values are rows
/// of `row`, the output is `[max rows] + row` per record, padded with `default`
/// (a single value).
fn dense_rows(
    maps: &[&FeatureMap<'_>],
    rec: &Records<'_>,
    index: usize,
    key: &[u8],
    t: DType,
    row: &[usize],
    default: &Tensor,
) -> Result<Tensor> {
    let shape_s = PartialShape::from_dims(std::iter::once(None).chain(row.iter().copied().map(Some))).to_string();
    if default.num_elements() != 1 {
        ff_bail!(
            InvalidArgument,
            "dense_shape[{index}] is a variable length shape: {shape_s}, therefore def_value[{index}] must contain a \
             single element (the padding element).  But its shape is: {}",
            fmt_shape(default.shape())
        );
    }
    let stride = num_elements(row)?;
    let key_s = lossy(key);
    let mut rows: Vec<usize> = try_vec(maps.len())?;
    for (b, m) in maps.iter().enumerate() {
        let Some(v) = m.get(key).flatten() else {
            rows.push(0);
            continue;
        };
        let len = v.len().ok_or_else(|| rec.malformed(b))?;
        if v.dtype() != t {
            if rec.batch {
                ff_bail!(
                    InvalidArgument,
                    "Name: {}, Key: {key_s}, Index: {b}.  Data types don't match. Data type: {} but expected type: {}",
                    rec.name(b),
                    type_name(v.dtype()),
                    type_name(t)
                );
            }
            ff_bail!(
                InvalidArgument,
                "Key: {key_s}.  Data types don't match. Data type: {} but expected type: {}",
                type_name(v.dtype()),
                type_name(t)
            );
        }
        let whole = if stride == 0 { len == 0 } else { len % stride == 0 };
        if !whole {
            if rec.batch {
                ff_bail!(
                    InvalidArgument,
                    "Name: {}, Key: {key_s}, Index: {b}.  Number of {} values is not a multiple of stride length. Saw \
                     {len} values but output shape is: {shape_s}",
                    rec.name(b),
                    values_word(t)
                );
            }
            ff_bail!(
                InvalidArgument,
                "Error while parsing feature with key {key_s}: number of elements should be divisible by {stride}, \
                 found {len} instead"
            );
        }
        rows.push(len.checked_div(stride).unwrap_or(0));
    }
    let max_rows = rows.iter().copied().max().unwrap_or(0);
    let per = checked_mul(max_rows, stride)?;
    let mut col = Column::new(t, checked_mul(per, maps.len())?)?;
    for ((b, m), &r) in maps.iter().enumerate().zip(&rows) {
        if let Some(v) = m.get(key).flatten() {
            col.extend(&v).ok_or_else(|| rec.malformed(b))?;
        }
        col.pad(Some(default), per - r * stride)?;
    }
    col.into_tensor(&rec.shape(&[&[max_rows], row].concat()))
}

/// Sparse components being assembled: int64 indices `[count, width]` and values.
struct SparseOut {
    indices: Vec<i64>,
    values: Column,
    width: usize,
}

impl SparseOut {
    fn new(t: DType, width: usize) -> Result<SparseOut> {
        Ok(SparseOut { indices: Vec::new(), values: Column::new(t, 0)?, width })
    }

    /// Appends `v`'s values at indices `prefix + [i]`; their count, `None` when
    /// the list is malformed or of another kind.
    fn push(&mut self, prefix: &[i64], v: &Values<'_>) -> Option<usize> {
        let before = self.values.len();
        self.values.extend(v)?;
        let added = self.values.len() - before;
        for i in 0..added {
            self.indices.extend_from_slice(prefix);
            self.indices.push(i as i64);
        }
        Some(added)
    }

    /// The `(indices, values, dense_shape)` tensors.
    fn finish(self, dense_shape: &[usize]) -> Result<[Tensor; 3]> {
        let count = self.values.len();
        let shape: Vec<i64> = dense_shape.iter().map(|&d| d as i64).collect();
        Ok([
            Tensor::from_slice(&[count, self.width], &self.indices)?,
            self.values.into_tensor(&[count])?,
            Tensor::from_slice(&[shape.len()], &shape)?,
        ])
    }
}
