//! Reader kernels: the reader op (binds the session's reader once per plan and hands
//! out its handle) and the ops that read through it from a queue of work units, count,
//! reset, and serialize or restore its state. Reads take work from a queue and so may
//! block; they run where a blocked step delays no other.
use std::sync::Arc;

use ferroflow_io::record::Compression;

use super::{KernelBuild, OpContext, OpKernel};
use crate::error::{Error, Result};
use crate::runtime::queue::Queue;
use crate::runtime::reader::{Reader, ReaderKind};
use crate::tensor::Tensor;

pub(crate) fn compression(s: &str, what: &str) -> Result<Compression> {
    match s {
        "" => Ok(Compression::None),
        "ZLIB" => Ok(Compression::Zlib),
        "GZIP" => Ok(Compression::Gzip),
        _ => ff_bail!(InvalidArgument, "Unsupported {what}: {s}"),
    }
}

fn non_negative(b: &KernelBuild<'_>, attr: &str, default: i64) -> Result<usize> {
    let v = b.node.attr_or::<i64>(attr, default)?;
    usize::try_from(v).map_err(|_| Error::invalid_argument(format!("{attr} must be >= 0 not {v}")))
}

/// The reader's kind from the reader op's attrs.
fn reader_kind(b: &KernelBuild<'_>) -> Result<ReaderKind> {
    Ok(match b.node.op_type() {
        "TFRecordReaderV2" => ReaderKind::TfRecord(compression(
            &b.node.attr_or::<String>("compression_type", String::new())?,
            "compression_type",
        )?),
        "FixedLengthRecordReaderV2" => {
            let record_bytes = non_negative(b, "record_bytes", 0)?;
            if record_bytes == 0 {
                ff_bail!(InvalidArgument, "record_bytes must be > 0 not 0");
            }
            ReaderKind::FixedLength {
                record_bytes,
                header_bytes: non_negative(b, "header_bytes", 0)?,
                footer_bytes: non_negative(b, "footer_bytes", 0)?,
                hop_bytes: non_negative(b, "hop_bytes", 0)?,
                encoding: compression(&b.node.attr_or::<String>("encoding", String::new())?, "encoding")?,
            }
        }
        "TextLineReaderV2" => ReaderKind::TextLine { skip_header_lines: non_negative(b, "skip_header_lines", 0)? },
        "WholeFileReaderV2" => ReaderKind::WholeFile,
        _ => ReaderKind::Identity,
    })
}

/// `TFRecordReaderV2` and its siblings: the handle of this session's reader.
struct ReaderOpKernel(Arc<Reader>);

pub(crate) fn reader_op_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let shared = b.node.attr_or::<String>("shared_name", String::new())?;
    let name = if shared.is_empty() { b.node.name.clone() } else { shared };
    let kind = reader_kind(b)?;
    let container = b.node.attr_or::<String>("container", String::new())?;
    let reader = b.resources.lookup_or_create(&container, &name, || Ok(Reader::new(kind.clone(), &b.node.name)))?;
    if reader.kind() != &kind {
        ff_bail!(InvalidArgument, "Shared reader '{name}' is a {:?}, but a {kind:?} was requested", reader.kind());
    }
    Ok(Box::new(ReaderOpKernel(reader)))
}

impl OpKernel for ReaderOpKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.set_resource_output(0, Arc::clone(&self.0) as Arc<_>);
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ReaderOp {
    Read,
    ReadUpTo,
    NumRecordsProduced,
    NumWorkUnitsCompleted,
    Reset,
    SerializeState,
    RestoreState,
}

struct ReaderOpsKernel(ReaderOp);

pub(crate) fn reader_access_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let op = match b.node.op_type() {
        "ReaderReadV2" => ReaderOp::Read,
        "ReaderReadUpToV2" => ReaderOp::ReadUpTo,
        "ReaderNumRecordsProducedV2" => ReaderOp::NumRecordsProduced,
        "ReaderNumWorkUnitsCompletedV2" => ReaderOp::NumWorkUnitsCompleted,
        "ReaderResetV2" => ReaderOp::Reset,
        "ReaderSerializeStateV2" => ReaderOp::SerializeState,
        _ => ReaderOp::RestoreState,
    };
    Ok(Box::new(ReaderOpsKernel(op)))
}

fn string_scalar(v: Vec<u8>) -> Result<Tensor> {
    Tensor::from_strings(&[], vec![v])
}

impl OpKernel for ReaderOpsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let reader = ctx.resource_input::<Reader>(0)?;
        match self.0 {
            ReaderOp::Read => {
                let queue = ctx.resource_input::<Queue>(1)?;
                let (key, value) = reader.read(&queue, ctx.wait)?;
                ctx.set_output(0, string_scalar(key)?);
                ctx.set_output(1, string_scalar(value)?);
            }
            ReaderOp::ReadUpTo => {
                let queue = ctx.resource_input::<Queue>(1)?;
                let n = ctx.input(2)?.scalar_value::<i64>()?;
                let Ok(n) = usize::try_from(n) else {
                    ff_bail!(InvalidArgument, "num_records ({n}) must be >= 0");
                };
                let records = reader.read_up_to(&queue, n, ctx.wait)?;
                let count = records.len();
                let (keys, values): (Vec<_>, Vec<_>) = records.into_iter().unzip();
                ctx.set_output(0, Tensor::from_strings(&[count], keys)?);
                ctx.set_output(1, Tensor::from_strings(&[count], values)?);
            }
            ReaderOp::NumRecordsProduced => ctx.set_output(0, Tensor::scalar(reader.num_records_produced())),
            ReaderOp::NumWorkUnitsCompleted => ctx.set_output(0, Tensor::scalar(reader.num_work_units_completed())),
            ReaderOp::Reset => reader.reset(),
            ReaderOp::SerializeState => ctx.set_output(0, string_scalar(reader.serialize_state()?)?),
            ReaderOp::RestoreState => {
                let state = ctx.input(1)?;
                if !state.shape().is_empty() {
                    ff_bail!(InvalidArgument, "Reader state must be a scalar, but had shape: {:?}", state.shape());
                }
                reader.restore_state(&state.as_strings()?[0])?;
            }
        }
        Ok(())
    }

    fn is_blocking(&self) -> bool {
        matches!(self.0, ReaderOp::Read | ReaderOp::ReadUpTo)
    }
}
