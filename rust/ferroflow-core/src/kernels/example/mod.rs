//! `ParseExampleV2`: serialized `tf.train.Example` records into dense tensors
//! (`FixedLenFeature`) and sparse components (`VarLenFeature`), with TF's semantics
//! and messages. The records are read in place (`wire`), not decoded into messages.
//! Ragged features are not supported.
mod wire;

use wire::Values;

use super::{KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::{PartialShape, fmt_shape};
use crate::tensor::Tensor;

struct ParseExample {
    sparse_types: Vec<DType>,
    dense_types: Vec<DType>,
    dense_shapes: Vec<Vec<usize>>,
}

pub(crate) fn parse_example_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let ragged: Vec<DType> = b.node.attr_or("ragged_value_types", Vec::new())?;
    if !ragged.is_empty() {
        ff_bail!(Unimplemented, "ParseExampleV2 with ragged features is not supported");
    }
    let shapes: Vec<PartialShape> = b.node.attr_or("dense_shapes", Vec::new())?;
    let dense_shapes = shapes
        .iter()
        .map(|s| match s.dims() {
            Some(d) if d.iter().all(Option::is_some) => Ok(d.iter().map(|x| x.unwrap_or(0)).collect()),
            _ => Err(Error::new(
                crate::error::Code::Unimplemented,
                format!("ParseExampleV2 needs fully defined dense shapes, got {s}"),
            )),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Box::new(ParseExample {
        sparse_types: b.node.attr_or("sparse_types", Vec::new())?,
        dense_types: b.node.attr_or("Tdense", Vec::new())?,
        dense_shapes,
    }))
}

fn malformed(what: &str, s: &[u8]) -> Error {
    Error::invalid_argument(format!("Could not parse {what} input, value: '{}'", String::from_utf8_lossy(s)))
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

fn type_name(t: DType) -> &'static str {
    match t {
        DType::Float32 => "float",
        DType::Int64 => "int64",
        _ => "string",
    }
}

/// Output columns being filled.
enum Column {
    Float(Vec<f32>),
    Int64(Vec<i64>),
    Bytes(Vec<Vec<u8>>),
}

impl Column {
    fn new(t: DType, cap: usize) -> Result<Column> {
        Ok(match t {
            DType::Float32 => Column::Float(Vec::with_capacity(cap)),
            DType::Int64 => Column::Int64(Vec::with_capacity(cap)),
            DType::String => Column::Bytes(Vec::with_capacity(cap)),
            t => ff_bail!(InvalidArgument, "Feature dtype {t} is not supported (float, int64 or string)"),
        })
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
    fn into_tensor(self, shape: &[usize]) -> Result<Tensor> {
        match self {
            Column::Float(c) => Tensor::from_slice(shape, &c),
            Column::Int64(c) => Tensor::from_slice(shape, &c),
            Column::Bytes(c) => Tensor::from_strings(shape, c),
        }
    }
}

/// A feature's values: `None` when absent or when no kind is set.
fn lookup<'a>(e: &wire::FeatureMap<'a>, key: &[u8]) -> Option<Values<'a>> {
    e.get(key).flatten()
}

fn name_of(names: &[Vec<u8>], i: usize) -> String {
    names.get(i).map_or_else(|| "<unknown>".to_string(), |n| String::from_utf8_lossy(n).into_owned())
}

impl OpKernel for ParseExample {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let serialized_t = ctx.input(0)?;
        if serialized_t.shape().len() > 1 {
            ff_bail!(
                InvalidArgument,
                "Expected serialized to be a scalar or vector, got shape: {}",
                fmt_shape(serialized_t.shape())
            );
        }
        let batch_dims = serialized_t.shape().to_vec();
        let serialized = serialized_t.as_strings()?;
        let names = ctx.input(1)?.as_strings()?;
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
        let examples = serialized
            .iter()
            .map(|s| wire::example(s).ok_or_else(|| malformed("example", s)))
            .collect::<Result<Vec<_>>>()?;
        let n = examples.len();
        let mut outputs: Vec<Tensor> = Vec::new();
        // Sparse: indices, values and shapes per key.
        let mut sparse_out = Vec::with_capacity(sparse_keys.len());
        for (key, &t) in sparse_keys.iter().zip(&self.sparse_types) {
            let mut indices: Vec<i64> = Vec::new();
            let mut col = Column::new(t, 0)?;
            let mut max_len = 0usize;
            for (b, e) in examples.iter().enumerate() {
                let Some(v) = lookup(e, key) else { continue };
                let len = v.len().ok_or_else(|| malformed("example", &serialized[b]))?;
                if v.dtype() != t && len > 0 {
                    ff_bail!(
                        InvalidArgument,
                        "Name: {}, Key: {}, Index: {b}.  Data types don't match. Expected type: {}, Actual type: {}",
                        name_of(names, b),
                        String::from_utf8_lossy(key),
                        type_name(t),
                        type_name(v.dtype())
                    );
                }
                if v.dtype() != t {
                    continue;
                }
                for i in 0..len {
                    indices.extend([b as i64, i as i64]);
                }
                max_len = max_len.max(len);
                col.extend(&v).ok_or_else(|| malformed("example", &serialized[b]))?;
            }
            let count = indices.len() / 2;
            let rank = batch_dims.len();
            let idx = if rank == 1 {
                Tensor::from_slice(&[count, 2], &indices)?
            } else {
                let only: Vec<i64> = indices.chunks(2).map(|c| c[1]).collect();
                Tensor::from_slice(&[count, 1], &only)?
            };
            let shape: Vec<i64> = if rank == 1 { vec![n as i64, max_len as i64] } else { vec![max_len as i64] };
            sparse_out.push((idx, col.into_tensor(&[count])?, Tensor::from_slice(&[shape.len()], &shape)?));
        }
        let (mut idx, mut vals, mut shapes) = (Vec::new(), Vec::new(), Vec::new());
        for (i, v, s) in sparse_out {
            idx.push(i);
            vals.push(v);
            shapes.push(s);
        }
        outputs.extend(idx);
        outputs.extend(vals);
        outputs.extend(shapes);
        // Dense: one `[batch] + shape` tensor per key.
        for (((key, &t), dims), default) in
            dense_keys.iter().zip(&self.dense_types).zip(&self.dense_shapes).zip(&defaults)
        {
            let per: usize = dims.iter().product();
            let mut col = Column::new(t, per * n)?;
            let key_s = String::from_utf8_lossy(key);
            for (b, e) in examples.iter().enumerate() {
                match lookup(e, key) {
                    Some(v) => {
                        let len = v.len().ok_or_else(|| malformed("example", &serialized[b]))?;
                        if v.dtype() != t {
                            ff_bail!(
                                InvalidArgument,
                                "Name: {}, Key: {key_s}, Index: {b}.  Data types don't match. Data type: {} but expected \
                                 type: {}",
                                name_of(names, b),
                                type_name(v.dtype()),
                                type_name(t)
                            );
                        }
                        if len != per {
                            ff_bail!(
                                InvalidArgument,
                                "Name: {}, Key: {key_s}, Index: {b}.  Number of {} values != expected.  Values size: {} \
                                 but output shape: {}",
                                name_of(names, b),
                                type_name(t),
                                len,
                                fmt_shape(dims)
                            );
                        }
                        col.extend(&v).ok_or_else(|| malformed("example", &serialized[b]))?;
                    }
                    None => {
                        if default.shape().iter().product::<usize>() == 0 && per > 0 {
                            ff_bail!(
                                InvalidArgument,
                                "Name: {}, Feature: {key_s} (data type: {}) is required but could not be found.",
                                name_of(names, b),
                                type_name(t)
                            );
                        }
                        let count: usize = default.shape().iter().product();
                        if count == per {
                            col.extend_tensor(default)?;
                        } else if count == 1 {
                            for _ in 0..per {
                                col.extend_tensor(default)?;
                            }
                        } else {
                            ff_bail!(
                                InvalidArgument,
                                "Default value for key {key_s} has {count} values, the feature has shape {}",
                                fmt_shape(dims)
                            );
                        }
                    }
                }
            }
            let mut shape = batch_dims.clone();
            shape.extend_from_slice(dims);
            outputs.push(col.into_tensor(&shape)?);
        }
        for (i, t) in outputs.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    }
}
