//! The summary writer as a session resource (TF's `SummaryWriterInterface` ops behind
//! `tf.contrib.summary` and `FileWriter(session=...)`): `SummaryWriter` names the
//! resource, `CreateSummaryFileWriter` opens its event file (once: a shared writer is
//! reused), `ImportEvent` and the `Write*Summary` ops queue events, and
//! `FlushSummaryWriter`/`CloseSummaryWriter` flush or close it. A closed writer is
//! reopened (on a new file) by the next `CreateSummaryFileWriter`, as TF deletes the
//! resource on close. The file itself is `ferroflow-io`'s event writer, on its own
//! thread. Shapes and registration in `ops/summary.rs`.
use std::path::Path;
use std::sync::Arc;

use ferroflow_io::events::{EventFileWriter, WriterOptions, hostname, wall_time};
use ferroflow_proto::summary::{Value, value};
use ferroflow_proto::{Event, Summary, SummaryMetadata, event};
use parking_lot::Mutex;
use prost::Message;

use crate::dispatch_numeric;
use crate::error::{Error, Result};
use crate::kernels::array::Castable;
use crate::kernels::{KernelBuild, OpContext, OpKernel};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// A session's summary writer: the open event file, if any.
#[derive(Default)]
pub(crate) struct SummaryWriterResource {
    file: Mutex<Option<EventFileWriter>>,
}

impl crate::framework::resource::Resource for SummaryWriterResource {}

impl SummaryWriterResource {
    /// Runs `f` on the open event file; TF's `NotFound` when the writer was never
    /// created or was closed.
    fn with_file<R>(&self, op: &str, f: impl FnOnce(&EventFileWriter) -> Result<R>) -> Result<R> {
        let file = self.file.lock();
        match file.as_ref() {
            Some(w) => f(w),
            None => ff_bail!(
                NotFound,
                "{op}: the summary writer is not initialized (run its init op, `CreateSummaryFileWriter`) or was closed"
            ),
        }
    }

    /// Queues `event`, stamping the wall time when it has none.
    fn write(&self, op: &str, mut event: Event) -> Result<()> {
        if event.wall_time == 0.0 {
            event.wall_time = wall_time();
        }
        self.with_file(op, |w| Ok(w.add_event(event.encode_to_vec())?))
    }
}

/// `SummaryWriter`: the writer resource named by `shared_name` (else by the node).
pub(crate) fn summary_writer_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let shared = b.node.attr_or::<String>("shared_name", String::new())?;
    let name = if shared.is_empty() { b.node.name.clone() } else { shared };
    let container = b.node.attr_or::<String>("container", String::new())?;
    let writer = b.resources.lookup_or_create(&container, &name, || Ok(SummaryWriterResource::default()))?;
    Ok(Box::new(HandleKernel(writer)))
}

struct HandleKernel(Arc<SummaryWriterResource>);

impl OpKernel for HandleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.set_resource_output(0, Arc::clone(&self.0) as Arc<_>);
        Ok(())
    }
}

/// What an op does with the writer its first input names.
#[derive(Clone, Copy)]
enum Action {
    Create,
    Flush,
    Close,
    ImportEvent,
    Scalar,
    Tensor,
    RawProto,
    Graph,
}

/// The ops that use a writer handle (everything but `SummaryWriter`).
pub(crate) fn summary_writer_op_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let op = b.node.op_type();
    let action = match op {
        "CreateSummaryFileWriter" => Action::Create,
        "FlushSummaryWriter" => Action::Flush,
        "CloseSummaryWriter" => Action::Close,
        "ImportEvent" => Action::ImportEvent,
        "WriteScalarSummary" => Action::Scalar,
        "WriteSummary" => Action::Tensor,
        "WriteRawProtoSummary" => Action::RawProto,
        _ => Action::Graph,
    };
    Ok(Box::new(WriterOpKernel { op, action }))
}

struct WriterOpKernel {
    op: &'static str,
    action: Action,
}

fn scalar_input<'a>(ctx: &'a OpContext<'_>, i: usize, what: &str, op: &str) -> Result<&'a Tensor> {
    let t = ctx.input(i)?;
    if !t.shape().is_empty() {
        ff_bail!(InvalidArgument, "{op}: {what} must be a scalar, got shape {}", fmt_shape(t.shape()));
    }
    Ok(t)
}

fn string_scalar(ctx: &OpContext<'_>, i: usize, what: &str, op: &str) -> Result<Vec<u8>> {
    Ok(scalar_input(ctx, i, what, op)?.as_strings()?[0].clone())
}

fn int_scalar(ctx: &OpContext<'_>, i: usize, what: &str, op: &str) -> Result<i64> {
    let t = scalar_input(ctx, i, what, op)?;
    crate::framework::tensor_util::int_values(t)?
        .first()
        .copied()
        .ok_or_else(|| Error::invalid_argument(format!("{op}: {what} is empty")))
}

fn utf8(bytes: Vec<u8>, what: &str, op: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|_| Error::invalid_argument(format!("{op}: {what} is not valid UTF-8")))
}

/// An event of `summary` at `step`.
fn summary_event(step: i64, summary: Summary) -> Event {
    Event { step, what: Some(event::What::Summary(summary)), ..Default::default() }
}

impl OpKernel for WriterOpKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let writer = ctx.resource_input::<SummaryWriterResource>(0)?;
        let op = self.op;
        match self.action {
            Action::Create => {
                let logdir = utf8(string_scalar(ctx, 1, "logdir", op)?, "logdir", op)?;
                let max_queue = int_scalar(ctx, 2, "max_queue", op)?;
                let flush_millis = int_scalar(ctx, 3, "flush_millis", op)?;
                let suffix = utf8(string_scalar(ctx, 4, "filename_suffix", op)?, "filename_suffix", op)?;
                let mut file = writer.file.lock();
                // As TF's `LookupOrCreateResource`: an open shared writer is reused.
                if file.is_none() {
                    let options = WriterOptions {
                        max_queue: usize::try_from(max_queue).unwrap_or(0),
                        flush_secs: flush_millis.max(0) as f64 / 1000.0,
                        filename_suffix: suffix,
                        hostname: hostname(),
                    };
                    *file = Some(EventFileWriter::create(Path::new(&logdir), &options)?);
                }
            }
            Action::Flush => writer.with_file(op, |w| Ok(w.flush()?))?,
            Action::Close => {
                let taken = writer.file.lock().take();
                if let Some(mut w) = taken {
                    w.close()?;
                }
            }
            Action::ImportEvent => {
                let t = ctx.input(1)?;
                for bytes in t.as_strings()? {
                    let event = Event::decode(bytes.as_slice())
                        .map_err(|e| Error::invalid_argument(format!("{op}: Could not parse event proto: {e}")))?;
                    writer.write(op, event)?;
                }
            }
            Action::Scalar => {
                let step = int_scalar(ctx, 1, "step", op)?;
                let tag = utf8(string_scalar(ctx, 2, "tag", op)?, "tag", op)?;
                let v = scalar_input(ctx, 3, "value", op)?;
                let x: f64 = dispatch_numeric!(v.dtype(), T => v.as_slice::<T>()?[0].to_f64(),
                    _ => ff_bail!(InvalidArgument, "{op}: a scalar summary needs a real number, got {}", v.dtype()));
                let value = Value { tag, value: Some(value::Value::SimpleValue(x as f32)), ..Default::default() };
                writer.write(op, summary_event(step, Summary { value: vec![value] }))?;
            }
            Action::Tensor => {
                let step = int_scalar(ctx, 1, "step", op)?;
                let tensor = ctx.input(2)?;
                let tag = utf8(string_scalar(ctx, 3, "tag", op)?, "tag", op)?;
                let metadata_bytes = string_scalar(ctx, 4, "summary_metadata", op)?;
                let metadata = if metadata_bytes.is_empty() {
                    None
                } else {
                    Some(SummaryMetadata::decode(metadata_bytes.as_slice()).map_err(|e| {
                        Error::invalid_argument(format!("{op}: summary_metadata is not a SummaryMetadata: {e}"))
                    })?)
                };
                let value =
                    Value { tag, metadata, value: Some(value::Value::Tensor(tensor.to_proto())), ..Default::default() };
                writer.write(op, summary_event(step, Summary { value: vec![value] }))?;
            }
            Action::RawProto => {
                let step = int_scalar(ctx, 1, "step", op)?;
                for bytes in ctx.input(2)?.as_strings()? {
                    let summary = Summary::decode(bytes.as_slice())
                        .map_err(|e| Error::invalid_argument(format!("{op}: Could not parse Summary proto: {e}")))?;
                    writer.write(op, summary_event(step, summary))?;
                }
            }
            Action::Graph => {
                let step = int_scalar(ctx, 1, "step", op)?;
                let graph = string_scalar(ctx, 2, "tensor", op)?;
                let event = Event { step, what: Some(event::What::GraphDef(graph)), ..Default::default() };
                writer.write(op, event)?;
            }
        }
        Ok(())
    }
}
