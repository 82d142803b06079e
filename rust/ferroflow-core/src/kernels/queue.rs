//! Queue kernels: the queue op (binds the session's queue once per plan and hands out
//! its handle), enqueue/dequeue in their single and batched forms, close, size and
//! is-closed. Enqueue, dequeue and close block, so plans holding them run on the
//! caller's thread.
use std::sync::Arc;

use super::layout::{concat, pad, unstack};
use super::{KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::runtime::queue::{Element, Queue, QueueKind, QueueSpec};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// The queue's spec from the queue op's attrs.
fn queue_spec(b: &KernelBuild<'_>) -> Result<QueueSpec> {
    let kind = match b.node.op_type() {
        "FIFOQueueV2" => QueueKind::Fifo,
        "PaddingFIFOQueueV2" => QueueKind::PaddingFifo,
        "RandomShuffleQueueV2" => {
            let m = b.node.attr_or::<i64>("min_after_dequeue", 0)?;
            QueueKind::RandomShuffle {
                min_after_dequeue: usize::try_from(m)
                    .map_err(|_| Error::invalid_argument(format!("min_after_dequeue {m} must be >= 0")))?,
                seed: b.node.attr_or::<i64>("seed", 0)?,
                seed2: b.node.attr_or::<i64>("seed2", 0)?,
            }
        }
        _ => QueueKind::Priority,
    };
    let mut dtypes: Vec<DType> = b.node.attr_or("component_types", Vec::new())?;
    let mut shapes: Vec<crate::shape::PartialShape> = b.node.attr_or("shapes", Vec::new())?;
    if kind == QueueKind::Priority {
        // The int64 priority is an implicit first component.
        dtypes.insert(0, DType::Int64);
        if !shapes.is_empty() {
            shapes.insert(0, crate::shape::PartialShape::scalar());
        }
    }
    let capacity = usize::try_from(b.node.attr_or::<i64>("capacity", -1)?).ok();
    Ok(QueueSpec { kind, name: b.node.name.clone(), dtypes, shapes, capacity })
}

/// `FIFOQueueV2` and its siblings: the handle of this session's queue.
struct QueueOpKernel(Arc<Queue>);

pub(crate) fn queue_op_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let shared = b.node.attr_or::<String>("shared_name", String::new())?;
    let name = if shared.is_empty() { b.node.name.clone() } else { shared };
    let queue =
        Queue::shared(b.resources, &b.node.attr_or::<String>("container", String::new())?, &name, queue_spec(b)?)?;
    Ok(Box::new(QueueOpKernel(queue)))
}

impl OpKernel for QueueOpKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.set_resource_output(0, Arc::clone(&self.0) as Arc<_>);
        Ok(())
    }
}

/// Which queue operation a kernel performs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum QueueOp {
    Enqueue,
    EnqueueMany,
    Dequeue,
    DequeueMany,
    DequeueUpTo,
    Close { cancel_pending_enqueues: bool },
    Size,
    IsClosed,
}

struct QueueOpsKernel(QueueOp);

pub(crate) fn queue_access_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let op = match b.node.op_type() {
        "QueueEnqueueV2" => QueueOp::Enqueue,
        "QueueEnqueueManyV2" => QueueOp::EnqueueMany,
        "QueueDequeueV2" => QueueOp::Dequeue,
        "QueueDequeueManyV2" => QueueOp::DequeueMany,
        "QueueDequeueUpToV2" => QueueOp::DequeueUpTo,
        "QueueCloseV2" => QueueOp::Close { cancel_pending_enqueues: b.node.attr_or("cancel_pending_enqueues", false)? },
        "QueueSizeV2" => QueueOp::Size,
        _ => QueueOp::IsClosed,
    };
    Ok(Box::new(QueueOpsKernel(op)))
}

impl OpKernel for QueueOpsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let queue = ctx.resource_input::<Queue>(0)?;
        match self.0 {
            QueueOp::Enqueue => {
                // Inputs are cloned (shared, not copied), not taken: a try that would
                // block must leave them for the retry.
                let element = (1..ctx.num_inputs()).map(|i| ctx.input(i).cloned()).collect::<Result<Element>>()?;
                queue.check_element(&element)?;
                queue.enqueue(vec![element], ctx.wait)
            }
            QueueOp::EnqueueMany => {
                let batch = (1..ctx.num_inputs()).map(|i| ctx.input(i).cloned()).collect::<Result<Vec<_>>>()?;
                let elements = split_batch(&queue, &batch)?;
                queue.enqueue(elements, ctx.wait)
            }
            QueueOp::Dequeue => {
                check_output_types(&queue, ctx.num_outputs())?;
                let element =
                    queue.dequeue(1, false, ctx.wait)?.pop().ok_or_else(|| Error::new(Code::Internal, "no element"))?;
                for (i, t) in element.into_iter().enumerate() {
                    ctx.set_output(i, t);
                }
                Ok(())
            }
            QueueOp::DequeueMany | QueueOp::DequeueUpTo => {
                check_output_types(&queue, ctx.num_outputs())?;
                let n = ctx.input(1)?.scalar_value::<i32>()?;
                let n = usize::try_from(n).map_err(|_| {
                    let op = if self.0 == QueueOp::DequeueUpTo { "DequeueUpToOp" } else { "DequeueManyOp" };
                    Error::invalid_argument(format!("{op} requested {n} < 0 elements"))
                })?;
                check_batchable(&queue)?;
                let elements = queue.dequeue(n, self.0 == QueueOp::DequeueUpTo, ctx.wait)?;
                for c in 0..ctx.num_outputs() {
                    let batch = stack(&queue, &elements, c)?;
                    ctx.set_output(c, batch);
                }
                Ok(())
            }
            QueueOp::Close { cancel_pending_enqueues } => queue.close(cancel_pending_enqueues, ctx.wait),
            QueueOp::Size => {
                let n = i32::try_from(queue.size()).unwrap_or(i32::MAX);
                ctx.set_output(0, Tensor::scalar(n));
                Ok(())
            }
            QueueOp::IsClosed => {
                ctx.set_output(0, Tensor::scalar(queue.is_closed()));
                Ok(())
            }
        }
    }

    fn is_blocking(&self) -> bool {
        !matches!(self.0, QueueOp::Size | QueueOp::IsClosed)
    }
}

fn check_output_types(queue: &Queue, outputs: usize) -> Result<()> {
    let want = queue.spec().dtypes.len();
    if outputs != want {
        ff_bail!(InvalidArgument, "Queue '{}' has {want} components, the dequeue expects {outputs}", queue.spec().name);
    }
    Ok(())
}

/// `DequeueMany`/`DequeueUpTo` need every element of a component to have one shape,
/// which only declared shapes guarantee (a padding queue pads them to one instead).
fn check_batchable(queue: &Queue) -> Result<()> {
    let spec = queue.spec();
    let fully_defined = spec.shapes.iter().all(|s| s.dims().is_some_and(|d| d.iter().all(Option::is_some)));
    if spec.shapes.is_empty() || (spec.kind != QueueKind::PaddingFifo && !fully_defined) {
        ff_bail!(
            InvalidArgument,
            "{}'s DequeueMany and DequeueUpTo require the components to have specified shapes.",
            spec.kind.class_name()
        );
    }
    Ok(())
}

/// Splits an `enqueue_many` batch along dimension 0 into checked elements.
fn split_batch(queue: &Queue, batch: &[Tensor]) -> Result<Vec<Element>> {
    let spec = queue.spec();
    if batch.len() != spec.dtypes.len() {
        ff_bail!(InvalidArgument, "Expected {} components, got {}", spec.dtypes.len(), batch.len());
    }
    let mut n = None;
    for (i, (t, &dtype)) in batch.iter().zip(&spec.dtypes).enumerate() {
        if t.dtype() != dtype {
            ff_bail!(InvalidArgument, "Type mismatch in tuple component {i}. Expected {dtype}, got {}", t.dtype());
        }
        if spec.kind == QueueKind::Priority && i == 0 && t.shape().len() != 1 {
            ff_bail!(InvalidArgument, "Expected the priorities (component 0) to be a vector");
        }
        let Some(&rows) = t.shape().first() else {
            ff_bail!(InvalidArgument, "Input tensor {i} of EnqueueMany must have at least 1 dimension, got a scalar");
        };
        if *n.get_or_insert(rows) != rows {
            ff_bail!(
                InvalidArgument,
                "Expected all inputs to EnqueueMany to have the same size in the 0th dimension, got {} and {}",
                n.unwrap_or(0),
                rows
            );
        }
        if let Some(s) = spec.shapes.get(i)
            && !s.is_compatible_with(&t.shape()[1..])
        {
            // As TF's `ValidateManyTupleLocked`: both shapes with the batch dimension.
            let expected = crate::shape::PartialShape::from_dims(
                std::iter::once(Some(rows)).chain(s.dims().unwrap_or_default().iter().copied()),
            );
            ff_bail!(
                InvalidArgument,
                "Shape mismatch in tuple component {i}. Expected {}, got {}",
                expected,
                fmt_shape(t.shape())
            );
        }
    }
    let n = n.unwrap_or(0);
    // A FIFO queue lets a batch's rows go in order, so rows can share the batch's buffer
    // (no allocation per element); a shuffling or priority queue may hold single rows of
    // many batches for long, which would pin every one of those batches: rows are copied.
    let share = matches!(spec.kind, QueueKind::Fifo | QueueKind::PaddingFifo);
    let mut elements: Vec<Element> = (0..n).map(|_| Element::with_capacity(batch.len())).collect();
    for t in batch {
        if share && t.dtype() != DType::String && t.device_memory().is_none() {
            for (i, e) in elements.iter_mut().enumerate() {
                e.push(t.row_view(i)?);
            }
        } else {
            for (e, row) in elements.iter_mut().zip(rows(t)?) {
                e.push(row);
            }
        }
    }
    Ok(elements)
}

/// The rows of `t` along dimension 0, each its own tensor (dense types by a copy of
/// their bytes).
fn rows(t: &Tensor) -> Result<Vec<Tensor>> {
    if t.dtype() == DType::String {
        return unstack(t, 0);
    }
    let row_shape = &t.shape()[1..];
    let n = t.shape()[0];
    let bytes = t.as_bytes()?;
    let width = bytes.len().checked_div(n).unwrap_or(0);
    (0..n).map(|i| Tensor::from_bytes(t.dtype(), row_shape, &bytes[i * width..(i + 1) * width])).collect()
}

/// Component `c` of `elements` stacked along a new dimension 0; a padding queue first
/// pads each to the largest size in every dimension (with zeros, or empty strings).
fn stack(queue: &Queue, elements: &[Element], c: usize) -> Result<Tensor> {
    let spec = queue.spec();
    let dtype = spec.dtypes[c];
    let Some(first) = elements.first() else {
        // An empty batch: unknown dimensions of a padding queue become 0.
        let shape = spec.shapes[c].dims().unwrap_or(&[]);
        let dims: Vec<usize> = std::iter::once(0).chain(shape.iter().map(|d| d.unwrap_or(0))).collect();
        return if dtype == DType::String {
            Tensor::from_strings(&dims, Vec::new())
        } else {
            Tensor::zeros(dtype, &dims)
        };
    };
    let rank = first[c].shape().len();
    let mut target = first[c].shape().to_vec();
    let mut same = true;
    for e in elements {
        let s = e[c].shape();
        if s.len() != rank {
            ff_bail!(InvalidArgument, "Ranks of component {c} differ within a batch: {} and {}", rank, s.len());
        }
        for (t, &d) in target.iter_mut().zip(s) {
            same &= *t == d;
            *t = (*t).max(d);
        }
    }
    if same && dtype != DType::String {
        // The common case, equal shapes of dense data: one allocation, a copy per row.
        let mut dims = Vec::with_capacity(rank + 1);
        dims.push(elements.len());
        dims.extend_from_slice(&target);
        let mut out = Tensor::for_overwrite(dtype, &dims)?;
        let dst = out.as_mut_bytes()?;
        let width = dst.len() / elements.len();
        if width > 0 {
            for (chunk, e) in dst.chunks_exact_mut(width).zip(elements) {
                chunk.copy_from_slice(e[c].as_bytes()?);
            }
        }
        return Ok(out);
    }
    let zero =
        if dtype == DType::String { Tensor::from_strings(&[], vec![Vec::new()])? } else { Tensor::zeros(dtype, &[])? };
    let mut rows = Vec::with_capacity(elements.len());
    let mut shape1 = Vec::with_capacity(rank + 1);
    for e in elements {
        let t = &e[c];
        let row = if t.shape() == target.as_slice() {
            t.clone()
        } else {
            let pads: Vec<(usize, usize)> = t.shape().iter().zip(&target).map(|(&d, &m)| (0, m - d)).collect();
            pad(t, &pads, &zero)?
        };
        shape1.clear();
        shape1.push(1);
        shape1.extend_from_slice(row.shape());
        rows.push(row.reshaped(&shape1)?);
    }
    let refs: Vec<&Tensor> = rows.iter().collect();
    concat(&refs, 0)
}
