//! Kernels of the checkpoint ops `SaveV2` and `RestoreV2` (TF's tensor bundle,
//! `ferroflow_io::bundle`; shapes and registration in `ops/io.rs`). Only whole
//! tensors are supported: a non-empty `shape_and_slices` entry (a slice of a
//! partitioned variable) is `Unimplemented`.
use std::path::PathBuf;

use ferroflow_io::bundle::{BundleReader, BundleWriter, TensorBytes, TensorData};

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::{KernelBuild, OpContext, OpKernel};
use crate::ops::io::restore_types;
use crate::tensor::Tensor;

/// A path from a string tensor's bytes: any bytes on Unix (as TF, which passes them to
/// the OS unchanged), UTF-8 elsewhere. Never a lossy conversion, which would save
/// under another name than the one asked for.
pub(crate) fn path_from_bytes(bytes: &[u8]) -> Result<PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        let s = std::str::from_utf8(bytes)
            .map_err(|_| Error::invalid_argument(format!("the path {bytes:?} is not valid UTF-8")))?;
        Ok(PathBuf::from(s))
    }
}

/// The checkpoint prefix and the tensor names of a save or restore, checked.
fn names_and_prefix(ctx: &OpContext<'_>, op: &str, count: usize) -> Result<(PathBuf, Vec<String>)> {
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
    if let Some(i) = slices.iter().position(|s| !s.is_empty()) {
        ff_bail!(
            Unimplemented,
            "{op}: saving or restoring a slice ('{}' of {}) is not supported",
            String::from_utf8_lossy(&slices[i]),
            String::from_utf8_lossy(&names[i])
        );
    }
    let names = names.iter().map(|n| String::from_utf8_lossy(n).into_owned()).collect();
    Ok((prefix, names))
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

/// `SaveV2`: one bundle of every input tensor under its name.
struct SaveKernel;

/// `SaveV2`'s kernel.
pub(crate) fn save_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SaveKernel))
}

impl OpKernel for SaveKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let count = ctx.num_inputs() - 3;
        let (prefix, names) = names_and_prefix(ctx, "SaveV2", count)?;
        let mut writer = BundleWriter::new(&prefix)?;
        for (i, name) in names.iter().enumerate() {
            let t = ctx.input(3 + i)?;
            let dims: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
            let data = if t.dtype() == DType::String {
                TensorBytes::Strings(t.as_strings()?)
            } else {
                TensorBytes::Dense(t.as_bytes()?)
            };
            writer.add(name, t.dtype() as i32, &dims, data)?;
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
        let (prefix, names) = names_and_prefix(ctx, "RestoreV2", self.dtypes.len())?;
        let reader = BundleReader::open(&prefix).map_err(|e| match e {
            ferroflow_io::Error::Io(_, io) if io.kind() == std::io::ErrorKind::NotFound => Error::new(
                crate::error::Code::NotFound,
                format!("Failed to find any matching files for {}", prefix.display()),
            ),
            other => other.into(),
        })?;
        for (i, (name, &dtype)) in names.iter().zip(&self.dtypes).enumerate() {
            let t = restore_tensor(&reader, name)?;
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
