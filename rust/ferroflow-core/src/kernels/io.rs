//! Kernels of the checkpoint ops `SaveV2` and `RestoreV2` (TF's tensor bundle,
//! `ferroflow_io::bundle`; shapes and registration in `ops/io.rs`). A non-empty
//! `shape_and_slices` entry (`"10 4 0,5:-"`: the full shape, then start,length or
//! `-` per dimension) saves the tensor as that slice of the full tensor, or restores
//! that slice, as TF's `ParseShapeAndSlice`, `AddSlice` and `LookupSlice` do.
use std::path::{Path, PathBuf};

use ferroflow_io::bundle::{BundleReader, BundleWriter, TensorBytes, TensorData};
use ferroflow_io::slices::{SliceReader, SliceWriter};

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::{KernelBuild, OpContext, OpKernel};
use crate::ops::io::restore_types;
use crate::tensor::Tensor;

/// A path from a string tensor's bytes: any bytes on Unix (as TF, which passes them to
/// the OS unchanged), UTF-8 elsewhere. Never a lossy conversion, which would save
/// under another name than the one asked for.
pub(crate) fn path_from_bytes(bytes: &[u8]) -> Result<PathBuf> {
    Ok(ferroflow_io::glob::path_from_bytes(bytes)?)
}

/// A parsed `shape_and_slices` entry: the full shape, (start, length) per dimension
/// (-1 for a whole dimension) and the slice's shape.
#[derive(Debug, PartialEq)]
pub(crate) struct ShapeAndSlice {
    pub full: Vec<i64>,
    pub extents: Vec<(i64, i64)>,
    pub dims: Vec<i64>,
}

/// TF's `checkpoint::ParseShapeAndSlice` (with `TensorSlice::Parse` and
/// `SliceTensorShape`), with TF's messages.
pub(crate) fn parse_shape_and_slice(spec: &str) -> Result<ShapeAndSlice> {
    let splits: Vec<&str> = spec.split(' ').collect();
    if splits.len() < 2 {
        ff_bail!(InvalidArgument, "Need least two elements in shape_and_slice specification: {spec}");
    }
    let slice = splits[splits.len() - 1];
    let mut extents = Vec::new();
    if !slice.is_empty() {
        for item in slice.split(':') {
            if item == "-" {
                extents.push((0, -1));
                continue;
            }
            let pair: Option<(i64, i64)> =
                item.split_once(',').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
            let Some((start, length)) = pair else {
                ff_bail!(InvalidArgument, "Expected a pair of numbers or '-' but got '{item}': string = {slice}");
            };
            if start < 0 || length <= 0 {
                ff_bail!(
                    InvalidArgument,
                    "Expected non-negative start and positive length but got start = {start}, length = {length}: \
                     string = {slice}"
                );
            }
            extents.push((start, length));
        }
    }
    let mut full = Vec::new();
    for d in &splits[..splits.len() - 1] {
        match d.parse::<i64>() {
            Ok(v) if v >= 0 => full.push(v),
            _ => ff_bail!(InvalidArgument, "Non numerical dimension in shape_and_slice: {spec}"),
        }
    }
    let shown = |v: &[i64]| format!("[{}]", v.iter().map(ToString::to_string).collect::<Vec<_>>().join(","));
    if extents.len() != full.len() {
        ff_bail!(InvalidArgument, "Mismatching ranks: shape = {}, slice = {slice}", shown(&full));
    }
    let mut dims = Vec::with_capacity(full.len());
    for (d, (&(start, length), &size)) in extents.iter().zip(&full).enumerate() {
        if length < 0 {
            dims.push(size);
        } else if start.checked_add(length).is_none_or(|end| end > size) {
            ff_bail!(
                InvalidArgument,
                "Extent in dimension {d} out of bounds: shape = {}, slice = {slice}",
                shown(&full)
            );
        } else {
            dims.push(length);
        }
    }
    Ok(ShapeAndSlice { full, extents, dims })
}

/// The checkpoint prefix, the tensor names and their parsed slice specs (None for
/// a whole tensor) of a save or restore, checked.
fn names_and_prefix(
    ctx: &OpContext<'_>,
    op: &str,
    count: usize,
) -> Result<(PathBuf, Vec<String>, Vec<Option<ShapeAndSlice>>)> {
    let prefix = path_from_bytes(&ctx.input(0)?.as_strings()?[0])?;
    let names = ctx.input(1)?.as_strings()?;
    let slices = ctx.input(2)?.as_strings()?;
    if names.len() != count || slices.len() != count {
        ff_bail!(
            InvalidArgument,
            "{op}: expected {count} tensor names and shape_and_slices, got {} and {}",
            names.len(),
            slices.len()
        );
    }
    let specs = slices
        .iter()
        .map(|s| if s.is_empty() { Ok(None) } else { parse_shape_and_slice(&String::from_utf8_lossy(s)).map(Some) })
        .collect::<Result<Vec<_>>>()?;
    let names = names.iter().map(|n| String::from_utf8_lossy(n).into_owned()).collect();
    Ok((prefix, names, specs))
}

/// The tensor `name` of an open bundle, of its stored dtype and shape. Dense tensors
/// are read straight into the tensor's buffer (one allocation, no copy); everything
/// the index claims is validated before that allocation.
pub fn restore_tensor(reader: &BundleReader, name: &str) -> Result<Tensor> {
    let entry = reader
        .entry(name)
        .ok_or_else(|| Error::new(crate::error::Code::NotFound, format!("Key {name} not found in checkpoint")))?;
    let dtype = DType::from_code(entry.dtype)
        .map_err(|_| Error::invalid_argument(format!("tensor_name = {name}; unsupported dtype {}", entry.dtype)))?;
    let shape = entry
        .shape
        .as_ref()
        .map_or(&[][..], |s| &s.dim[..])
        .iter()
        .map(|d| {
            usize::try_from(d.size)
                .map_err(|_| Error::new(crate::error::Code::DataLoss, format!("{name}: bad shape {}", d.size)))
        })
        .collect::<Result<Vec<usize>>>()?;
    if dtype == DType::String {
        return match reader.read(name)? {
            TensorData::Strings(v) => Tensor::from_strings(&shape, v),
            TensorData::Dense(_) => Err(Error::new(crate::error::Code::DataLoss, format!("{name}: not strings"))),
        };
    }
    // An entry that does not add up is `DataLoss` from the reader, before allocating.
    let mut t = Tensor::for_overwrite(dtype, &shape).map_err(|e| match e.code {
        crate::error::Code::InvalidArgument => {
            Error::new(crate::error::Code::DataLoss, format!("{name}: bad shape in the checkpoint: {}", e.message))
        }
        _ => e,
    })?;
    let element_size = dtype.size();
    let bytes = t.as_mut_bytes()?;
    if reader.is_sliced(name) {
        reader.read_sliced_dense_into(name, &shape, element_size, bytes)?;
    } else {
        reader.read_dense_into(name, bytes)?;
    }
    if dtype == DType::Bool {
        // Only 0 and 1 are valid bools.
        bytes.iter_mut().for_each(|b| *b = u8::from(*b != 0));
    }
    Ok(t)
}

/// The slice `spec` of the tensor `name` of an open bundle (TF's `RestoreV2` with a
/// `shape_and_slices` entry): the full shape must be the stored one.
fn restore_slice(reader: &BundleReader, name: &str, spec: &ShapeAndSlice) -> Result<Tensor> {
    let entry = reader
        .entry(name)
        .ok_or_else(|| Error::new(crate::error::Code::NotFound, format!("Key {name} not found in checkpoint")))?;
    let stored: Vec<i64> = entry.shape.as_ref().map_or(&[][..], |s| &s.dim[..]).iter().map(|d| d.size).collect();
    if stored != spec.full {
        let shown = |v: &[i64]| format!("[{}]", v.iter().map(ToString::to_string).collect::<Vec<_>>().join(","));
        ff_bail!(
            InvalidArgument,
            "tensor_name = {name}; shape in shape_and_slice spec {} does not match the shape stored in checkpoint: {}",
            shown(&spec.full),
            shown(&stored)
        );
    }
    let dtype = DType::from_code(entry.dtype)
        .map_err(|_| Error::invalid_argument(format!("tensor_name = {name}; unsupported dtype {}", entry.dtype)))?;
    if dtype == DType::String {
        ff_bail!(Unimplemented, "tensor_name = {name}; restoring a slice of a string tensor is not supported");
    }
    let to_usize = |v: i64| usize::try_from(v).map_err(|_| Error::invalid_argument(format!("{name}: bad shape {v}")));
    let full = spec.full.iter().map(|&d| to_usize(d)).collect::<Result<Vec<usize>>>()?;
    let dims = spec.dims.iter().map(|&d| to_usize(d)).collect::<Result<Vec<usize>>>()?;
    let region: Vec<(usize, usize)> =
        spec.extents.iter().zip(&dims).map(|(&(start, _), &len)| Ok((to_usize(start)?, len))).collect::<Result<_>>()?;
    let mut t = Tensor::for_overwrite(dtype, &dims)?;
    let bytes = t.as_mut_bytes()?;
    reader.read_slice_dense_into(name, &full, &region, dtype.size(), bytes)?;
    if dtype == DType::Bool {
        bytes.iter_mut().for_each(|b| *b = u8::from(*b != 0));
    }
    Ok(t)
}

/// An open checkpoint of either format: a V2 bundle, or the V1 tensor-slice files
/// (TF's `RestoreV2` falls back to V1 when there is no bundle, and so do the readers).
pub enum Checkpoint {
    /// A V2 tensor bundle (`<prefix>.index` and its data files).
    V2(BundleReader),
    /// The V1 table files matching the prefix (a file, or a shard pattern).
    V1(SliceReader),
}

fn not_found(prefix: &Path) -> Error {
    Error::new(crate::error::Code::NotFound, format!("Failed to find any matching files for {}", prefix.display()))
}

impl Checkpoint {
    /// Opens `prefix`: the bundle `<prefix>.index`, else the V1 files matching `prefix`.
    pub fn open(prefix: &Path) -> Result<Self> {
        match BundleReader::open(prefix) {
            Ok(r) => Ok(Checkpoint::V2(r)),
            Err(ferroflow_io::Error::Io(_, io)) if io.kind() == std::io::ErrorKind::NotFound => {
                match SliceReader::open(prefix) {
                    Ok(r) => Ok(Checkpoint::V1(r)),
                    Err(ferroflow_io::Error::NotFound(_)) => Err(not_found(prefix)),
                    Err(e) => Err(e.into()),
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    /// `(name, TF dtype code, shape)` of every tensor, sorted by name.
    pub fn entries(&self) -> Vec<(String, i32, Vec<i64>)> {
        match self {
            Checkpoint::V2(r) => r
                .names()
                .filter_map(|n| {
                    let e = r.entry(n)?;
                    let shape = e.shape.as_ref().map(|s| s.dim.iter().map(|d| d.size).collect()).unwrap_or_default();
                    Some((n.to_owned(), e.dtype, shape))
                })
                .collect(),
            Checkpoint::V1(r) => {
                r.names().filter_map(|n| r.tensor(n).map(|t| (n.to_owned(), t.dtype, t.shape.clone()))).collect()
            }
        }
    }

    /// The whole tensor `name`.
    pub fn restore(&self, name: &str) -> Result<Tensor> {
        match self {
            Checkpoint::V2(r) => restore_tensor(r, name),
            Checkpoint::V1(r) => {
                let t = r.tensor(name).ok_or_else(|| {
                    Error::new(crate::error::Code::NotFound, format!("Key {name} not found in checkpoint"))
                })?;
                let dtype = DType::from_code(t.dtype).map_err(|_| {
                    Error::invalid_argument(format!("tensor_name = {name}; unsupported dtype {}", t.dtype))
                })?;
                let shape: Vec<usize> = t.shape.iter().map(|&d| d as usize).collect();
                match r.read(name)? {
                    TensorData::Strings(v) => Tensor::from_strings(&shape, v),
                    TensorData::Dense(b) => Tensor::from_bytes(dtype, &shape, &b),
                }
            }
        }
    }

    /// The slice `spec` of tensor `name`.
    fn restore_slice(&self, name: &str, spec: &ShapeAndSlice) -> Result<Tensor> {
        match self {
            Checkpoint::V2(r) => restore_slice(r, name, spec),
            Checkpoint::V1(_) => {
                let full = self.restore(name)?;
                let stored: Vec<i64> = full.shape().iter().map(|&d| d as i64).collect();
                if stored != spec.full {
                    ff_bail!(
                        InvalidArgument,
                        "tensor_name = {name}; shape in shape_and_slice spec {:?} does not match the shape stored in \
                         checkpoint: {stored:?}",
                        spec.full
                    );
                }
                let begin: Vec<usize> = spec.extents.iter().map(|&(s, _)| s as usize).collect();
                let size: Vec<usize> = spec.dims.iter().map(|&d| d as usize).collect();
                crate::kernels::layout::slice(&full, &begin, &size)
            }
        }
    }
}

/// `SaveV2`: one bundle of every input tensor under its name.
struct SaveKernel;

/// `SaveV2`'s kernel.
pub(crate) fn save_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SaveKernel))
}

impl OpKernel for SaveKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let count = ctx.num_inputs() - 3;
        let (prefix, names, specs) = names_and_prefix(ctx, "SaveV2", count)?;
        let mut writer = BundleWriter::new(&prefix)?;
        for (i, (name, spec)) in names.iter().zip(&specs).enumerate() {
            let t = ctx.input(3 + i)?;
            let dims: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
            let data = if t.dtype() == DType::String {
                TensorBytes::Strings(t.as_strings()?)
            } else {
                TensorBytes::Dense(t.as_bytes()?)
            };
            match spec {
                None => writer.add(name, t.dtype() as i32, &dims, data)?,
                Some(spec) => {
                    if spec.dims != dims {
                        ff_bail!(
                            InvalidArgument,
                            "Slice in shape_and_slice specification does not match the shape of the tensor to  \
                             save: {name}, tensor: {:?}",
                            t.shape()
                        );
                    }
                    writer.add_slice(name, t.dtype() as i32, &spec.full, &spec.extents, data)?;
                }
            }
        }
        writer.finish()?;
        Ok(())
    }
}

/// `RestoreV2`: the named tensors of a bundle, each of its declared dtype.
struct RestoreKernel {
    dtypes: Vec<DType>,
}

/// `RestoreV2`'s kernel.
pub(crate) fn restore_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(RestoreKernel { dtypes: restore_types(&b.node.attrs) }))
}

impl OpKernel for RestoreKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (prefix, names, specs) = names_and_prefix(ctx, "RestoreV2", self.dtypes.len())?;
        let reader = Checkpoint::open(&prefix)?;
        for (i, ((name, &dtype), spec)) in names.iter().zip(&self.dtypes).zip(&specs).enumerate() {
            let t = match spec {
                None => reader.restore(name)?,
                Some(spec) => reader.restore_slice(name, spec)?,
            };
            if t.dtype() != dtype {
                ff_bail!(
                    InvalidArgument,
                    "tensor_name = {name}; expected dtype {dtype} does not equal original dtype {}",
                    t.dtype()
                );
            }
            ctx.set_output(i, t);
        }
        Ok(())
    }
}

/// `SaveSlices` and TF-1.0's `Save`: a V1 checkpoint file of the input tensors (or of
/// slices of them, by `shapes_and_slices`).
struct SaveSlicesKernel {
    sliced: bool,
}

pub(crate) fn save_slices_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SaveSlicesKernel { sliced: b.node.op_type() == "SaveSlices" }))
}

impl OpKernel for SaveSlicesKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let first = if self.sliced { 3 } else { 2 };
        let count = ctx.num_inputs() - first;
        let path = path_from_bytes(&scalar_string(ctx.input(0)?, "filename")?)?;
        let names = ctx.input(1)?.as_strings()?;
        if names.len() != count {
            ff_bail!(InvalidArgument, "Expected {count} elements in tensor_names, got {}", names.len());
        }
        let specs: Vec<Option<ShapeAndSlice>> =
            if self.sliced {
                let slices = ctx.input(2)?.as_strings()?;
                if slices.len() != count {
                    ff_bail!(InvalidArgument, "Expected {count} elements in shapes_and_slices, got {}", slices.len());
                }
                slices
                    .iter()
                    .map(|s| {
                        if s.is_empty() {
                            Ok(None)
                        } else {
                            parse_shape_and_slice(&String::from_utf8_lossy(s)).map(Some)
                        }
                    })
                    .collect::<Result<_>>()?
            } else {
                (0..count).map(|_| None).collect()
            };
        let mut writer = SliceWriter::new(&path);
        for (i, (name, spec)) in names.iter().zip(&specs).enumerate() {
            let name = String::from_utf8_lossy(name);
            let t = ctx.input(first + i)?;
            let dims: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
            let data = if t.dtype() == DType::String {
                TensorBytes::Strings(t.as_strings()?)
            } else {
                TensorBytes::Dense(t.as_bytes()?)
            };
            match spec {
                None => writer.add(&name, t.dtype() as i32, &dims, None, data)?,
                Some(spec) => {
                    if spec.dims != dims {
                        ff_bail!(
                            InvalidArgument,
                            "Slice in shape_and_slice specification does not match the shape of the tensor to  \
                             save: {name}, tensor: {:?}",
                            t.shape()
                        );
                    }
                    writer.add(&name, t.dtype() as i32, &spec.full, Some(&spec.extents), data)?;
                }
            }
        }
        writer.finish()?;
        Ok(())
    }
}

/// TF-1.0's `Restore` and `RestoreSlice`: one tensor (or a slice of it) of a
/// checkpoint, of the `dt` attr's dtype.
struct RestoreOneKernel {
    dtype: DType,
    sliced: bool,
}

pub(crate) fn restore_one_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(RestoreOneKernel {
        dtype: b.node.attr_or("dt", DType::Float32)?,
        sliced: b.node.op_type() == "RestoreSlice",
    }))
}

impl OpKernel for RestoreOneKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let pattern = path_from_bytes(&scalar_string(ctx.input(0)?, "file_pattern")?)?;
        let name = String::from_utf8_lossy(&scalar_string(ctx.input(1)?, "tensor_name")?).into_owned();
        let reader = Checkpoint::open(&pattern)?;
        let spec = if self.sliced {
            let s = scalar_string(ctx.input(2)?, "shape_and_slice")?;
            if s.is_empty() { None } else { Some(parse_shape_and_slice(&String::from_utf8_lossy(&s))?) }
        } else {
            None
        };
        let t = match &spec {
            None => reader.restore(&name)?,
            Some(spec) => reader.restore_slice(&name, spec)?,
        };
        if t.dtype() != self.dtype {
            ff_bail!(
                InvalidArgument,
                "tensor_name = {name}; expected dtype {} does not equal original dtype {}",
                self.dtype,
                t.dtype()
            );
        }
        ctx.set_output(0, t);
        Ok(())
    }
}

fn scalar_string(t: &Tensor, what: &str) -> Result<Vec<u8>> {
    if !t.shape().is_empty() {
        ff_bail!(InvalidArgument, "{what} must be a scalar, got shape {}", crate::shape::fmt_shape(t.shape()));
    }
    Ok(t.as_strings()?[0].clone())
}

fn scalar_i32(t: &Tensor, what: &str) -> Result<i32> {
    if !t.shape().is_empty() {
        ff_bail!(InvalidArgument, "{what} must be a scalar, got shape {}", crate::shape::fmt_shape(t.shape()));
    }
    t.scalar_value::<i32>()
}

/// `ShardedFilename` (`<basename>-00001-of-00004`) and `ShardedFilespec`
/// (`<basename>-?????-of-00004`): the names of a sharded save's parts.
struct ShardedName {
    spec: bool,
}

pub(crate) fn sharded_name_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ShardedName { spec: b.node.op_type() == "ShardedFilespec" }))
}

impl OpKernel for ShardedName {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut name = scalar_string(ctx.input(0)?, "basename")?;
        let text = if self.spec {
            let n = scalar_i32(ctx.input(1)?, "num_shards")?;
            format!("-?????-of-{n:05}")
        } else {
            let (shard, n) = (scalar_i32(ctx.input(1)?, "shard")?, scalar_i32(ctx.input(2)?, "num_shards")?);
            format!("-{shard:05}-of-{n:05}")
        };
        name.extend_from_slice(text.as_bytes());
        ctx.set_output(0, Tensor::from_strings(&[], vec![name])?);
        Ok(())
    }
}

/// `MergeV2Checkpoints`: the per-device bundles of a sharded save become one.
struct MergeCheckpoints {
    delete_old_dirs: bool,
}

pub(crate) fn merge_checkpoints_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(MergeCheckpoints { delete_old_dirs: b.node.attr_or("delete_old_dirs", true)? }))
}

impl OpKernel for MergeCheckpoints {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let sources = ctx.input(0)?;
        if sources.shape().len() != 1 {
            ff_bail!(
                InvalidArgument,
                "Input checkpoint_prefixes should be an 1-D tensor, got {} instead.",
                crate::shape::fmt_shape(sources.shape())
            );
        }
        let dest = path_from_bytes(&scalar_string(ctx.input(1)?, "destination_prefix")?)?;
        let sources: Vec<PathBuf> = sources.as_strings()?.iter().map(|s| path_from_bytes(s)).collect::<Result<_>>()?;
        ferroflow_io::bundle::merge(&sources, &dest, self.delete_old_dirs)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_and_slice_specs_parse_as_tf() {
        let s = parse_shape_and_slice("10 4 0,5:-").unwrap();
        assert_eq!(s, ShapeAndSlice { full: vec![10, 4], extents: vec![(0, 5), (0, -1)], dims: vec![5, 4] });
        let s = parse_shape_and_slice("5 2 3,2:0,2").unwrap();
        assert_eq!(s.extents, vec![(3, 2), (0, 2)]);
        assert_eq!(s.dims, vec![2, 2]);
        for (bad, msg) in [
            ("-", "Need least two elements"),
            ("10 4 0,5", "Mismatching ranks: shape = [10,4], slice = 0,5"),
            ("10 4 8,5:-", "Extent in dimension 0 out of bounds"),
            ("10 x 0,5:-", "Non numerical dimension"),
            ("10 4 a,5:-", "Expected a pair of numbers or '-' but got 'a,5'"),
            ("10 4 0,0:-", "Expected non-negative start and positive length"),
        ] {
            let err = parse_shape_and_slice(bad).unwrap_err();
            assert!(err.message.contains(msg), "{bad}: {}", err.message);
        }
    }
}
