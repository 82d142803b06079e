//! Transformations that run on the calling thread: `repeat`, `take`, `skip`,
//! `shard`, `batch`, `padded_batch`, `unbatch`, `shuffle`, `cache` (memory),
//! `filter`, sequential `map`, `flat_map`, `interleave` and `ignore_errors`.
use std::sync::Arc;

use parking_lot::Mutex;

use super::function::{Function, FunctionPlan};
use super::sources::row;
use super::{
    Dataset, DatasetIter, Element, IterCtx, count_arg, dataset_input, dataset_of, positive_arg, set_dataset_output,
};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::kernels::{KernelBuild, OpContext, OpKernel, stateless};
use crate::random::WordStream;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

// ---- repeat ----

struct RepeatDataset {
    input: Arc<dyn Dataset>,
    /// `None`: forever.
    count: Option<u64>,
}

struct RepeatIter {
    dataset: Arc<RepeatDataset>,
    current: Option<Box<dyn DatasetIter>>,
    /// Epochs started.
    epoch: u64,
    /// Whether the current epoch produced nothing yet (an empty epoch of a forever
    /// repeat ends it, as TF's, instead of spinning).
    fresh: bool,
    done: bool,
}

impl Dataset for RepeatDataset {
    fn make_iter(self: Arc<Self>, _: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        Ok(Box::new(RepeatIter { dataset: self, current: None, epoch: 0, fresh: true, done: false }))
    }
}

impl DatasetIter for RepeatIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        while !self.done {
            if self.current.is_none() {
                if self.dataset.count.is_some_and(|c| self.epoch >= c) {
                    self.done = true;
                    break;
                }
                self.current = Some(Arc::clone(&self.dataset.input).make_iter(ctx)?);
                self.epoch += 1;
                self.fresh = true;
            }
            let Some(it) = &mut self.current else { continue };
            if let Some(e) = it.next(ctx)? {
                self.fresh = false;
                return Ok(Some(e));
            }
            self.current = None;
            self.done = self.fresh && self.dataset.count.is_none();
        }
        Ok(None)
    }
}

pub(crate) fn repeat_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let input = dataset_input(ctx, 0)?;
        let count = count_arg(ctx, 1)?;
        set_dataset_output(ctx, RepeatDataset { input, count });
        Ok(())
    })
}

// ---- take / skip ----

struct TakeDataset {
    input: Arc<dyn Dataset>,
    /// Elements to take (`None`: all) or to skip (`None`: all).
    count: Option<u64>,
    skip: bool,
}

struct TakeIter {
    input: Box<dyn DatasetIter>,
    left: Option<u64>,
    skip: bool,
}

impl Dataset for TakeDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        let input = Arc::clone(&self.input).make_iter(ctx)?;
        Ok(Box::new(TakeIter { input, left: self.count, skip: self.skip }))
    }
}

impl DatasetIter for TakeIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        if self.skip {
            loop {
                if self.left == Some(0) {
                    return self.input.next(ctx);
                }
                // Skipping all (`-1`) reads the input to its end.
                if self.input.next(ctx)?.is_none() {
                    self.left = Some(0);
                    return Ok(None);
                }
                self.left = self.left.map(|n| n - 1);
            }
        }
        match self.left {
            Some(0) => Ok(None),
            left => {
                let e = self.input.next(ctx)?;
                if e.is_some() {
                    self.left = left.map(|n| n - 1);
                } else {
                    self.left = Some(0);
                }
                Ok(e)
            }
        }
    }
}

fn take_or_skip(ctx: &mut OpContext<'_>, skip: bool) -> Result<()> {
    let input = dataset_input(ctx, 0)?;
    let count = count_arg(ctx, 1)?;
    set_dataset_output(ctx, TakeDataset { input, count, skip });
    Ok(())
}

pub(crate) fn take_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| take_or_skip(ctx, false))
}

pub(crate) fn skip_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| take_or_skip(ctx, true))
}

// ---- shard ----

struct ShardDataset {
    input: Arc<dyn Dataset>,
    num_shards: u64,
    index: u64,
}

struct ShardIter {
    input: Box<dyn DatasetIter>,
    num_shards: u64,
    index: u64,
    /// Position of the next input element.
    position: u64,
    done: bool,
}

impl Dataset for ShardDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        let input = Arc::clone(&self.input).make_iter(ctx)?;
        Ok(Box::new(ShardIter { input, num_shards: self.num_shards, index: self.index, position: 0, done: false }))
    }
}

impl DatasetIter for ShardIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        while !self.done {
            let Some(e) = self.input.next(ctx)? else {
                self.done = true;
                break;
            };
            let mine = self.position % self.num_shards == self.index;
            self.position += 1;
            if mine {
                return Ok(Some(e));
            }
        }
        Ok(None)
    }
}

pub(crate) fn shard_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let input = dataset_input(ctx, 0)?;
        let num_shards = ctx.input(1)?.scalar_value::<i64>()?;
        let index = ctx.input(2)?.scalar_value::<i64>()?;
        if num_shards <= 0 {
            ff_bail!(
                InvalidArgument,
                "Number of shards must be greater than zero (currently num_shards = {num_shards})."
            );
        }
        if index < 0 || index >= num_shards {
            ff_bail!(InvalidArgument, "Index must be between 0 and {} (currently index = {index}).", num_shards - 1);
        }
        let (num_shards, index) = (num_shards.unsigned_abs(), index.unsigned_abs());
        set_dataset_output(ctx, ShardDataset { input, num_shards, index });
        Ok(())
    })
}

// ---- batch ----

/// Stacks the elements of one batch component by component (TF's batching, with
/// its message for elements of different shapes). The components at `sparse` (and
/// the two after each) are a `SparseTensor`'s indices, values and dense shape, batched
/// as TF batches sparse tensors.
pub(crate) fn stack(batch: &[Element], sparse: &[usize]) -> Result<Element> {
    let first = &batch[0];
    let mut out = Vec::with_capacity(first.len());
    let mut skip = 0;
    for (c, head) in first.iter().enumerate() {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        if sparse.contains(&c) {
            out.extend(stack_sparse(batch, c)?);
            skip = 2;
            continue;
        }
        let mut parts = Vec::with_capacity(batch.len());
        for (i, e) in batch.iter().enumerate() {
            let t = e.get(c).ok_or_else(|| Error::new(Code::Internal, "element of fewer components"))?;
            if t.shape() != head.shape() {
                ff_bail!(
                    InvalidArgument,
                    "Cannot batch tensors with different shapes in component {c}. First element had shape {} and \
                     element {i} had shape {}.",
                    fmt_shape(head.shape()),
                    fmt_shape(t.shape())
                );
            }
            parts.push(t);
        }
        out.push(crate::kernels::array::pack(&parts, 0)?);
    }
    Ok(out)
}

/// Batches the sparse tensors at components `c..c + 3` of `batch`: each entry's
/// index gains its element's position in front, values are concatenated, and the
/// dense shape is the largest along each dimension, after the batch size.
fn stack_sparse(batch: &[Element], c: usize) -> Result<[Tensor; 3]> {
    let part = |e: &Element, k: usize| -> Result<Tensor> {
        e.get(c + k).cloned().ok_or_else(|| Error::new(Code::Internal, "element of fewer components"))
    };
    let rank = part(&batch[0], 2)?.num_elements();
    let mut dense = vec![0i64; rank];
    let mut indices = Vec::new();
    let mut values = Vec::with_capacity(batch.len());
    for (b, e) in batch.iter().enumerate() {
        let (idx, vals, shape) = (part(e, 0)?, part(e, 1)?, part(e, 2)?);
        if shape.num_elements() != rank || idx.shape().len() != 2 || idx.shape()[1] != rank {
            ff_bail!(
                InvalidArgument,
                "Cannot batch sparse tensors of different ranks in component {c}: {rank} and {}.",
                shape.num_elements()
            );
        }
        for (d, &n) in dense.iter_mut().zip(shape.as_slice::<i64>()?) {
            *d = (*d).max(n);
        }
        #[allow(clippy::cast_possible_wrap)]
        let b = b as i64;
        for row in idx.as_slice::<i64>()?.chunks_exact(rank.max(1)).take(idx.shape()[0]) {
            indices.push(b);
            indices.extend_from_slice(if rank == 0 { &[] } else { row });
        }
        values.push(vals);
    }
    let n = indices.len() / (rank + 1);
    let values = crate::kernels::layout::concat(&values.iter().collect::<Vec<_>>(), 0)?;
    #[allow(clippy::cast_possible_wrap)]
    let mut shape = vec![batch.len() as i64];
    shape.extend(dense);
    Ok([Tensor::from_slice(&[n, rank + 1], &indices)?, values, Tensor::from_slice(&[rank + 1], &shape)?])
}

/// How a batch is made of its elements: stacked, or padded first.
#[derive(Clone)]
enum Batching {
    /// Stacked; the sparse tensors' first components (see [`stack`]).
    Stack(Vec<usize>),
    Pad {
        shapes: Vec<Vec<i64>>,
        values: Vec<Tensor>,
    },
}

struct BatchDataset {
    input: Arc<dyn Dataset>,
    size: usize,
    drop_remainder: bool,
    batching: Batching,
}

pub(crate) struct BatchIter {
    input: Option<Box<dyn DatasetIter>>,
    size: usize,
    drop_remainder: bool,
    batching: Batching,
}

impl Dataset for BatchDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        let input = Arc::clone(&self.input).make_iter(ctx)?;
        Ok(Box::new(BatchIter {
            input: Some(input),
            size: self.size,
            drop_remainder: self.drop_remainder,
            batching: self.batching.clone(),
        }))
    }
}

impl BatchIter {
    /// Batches of `size` elements of `input`, stacked (`sparse`: see [`stack`]).
    pub(crate) fn stacking(input: Box<dyn DatasetIter>, size: usize, drop_remainder: bool, sparse: Vec<usize>) -> Self {
        BatchIter { input: Some(input), size, drop_remainder, batching: Batching::Stack(sparse) }
    }
}

impl DatasetIter for BatchIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        let Some(input) = &mut self.input else { return Ok(None) };
        let mut batch = Vec::with_capacity(self.size.min(1024));
        while batch.len() < self.size {
            match input.next(ctx)? {
                Some(e) => batch.push(e),
                None => {
                    self.input = None;
                    break;
                }
            }
        }
        if batch.is_empty() || (self.drop_remainder && batch.len() < self.size) {
            self.input = None;
            return Ok(None);
        }
        match &self.batching {
            Batching::Stack(sparse) => stack(&batch, sparse).map(Some),
            Batching::Pad { shapes, values } => pad_batch(&batch, shapes, values).map(Some),
        }
    }
}

/// The first components of the sparse tensors of a batching op's elements (its
/// `_sparse` attr, set by the Python layer; each is followed by its values and shape).
pub(crate) fn sparse_components(b: &KernelBuild<'_>) -> Result<Vec<usize>> {
    let positions: Vec<i64> = b.node.attr_or("_sparse", Vec::new())?;
    positions
        .into_iter()
        .map(|p| usize::try_from(p).map_err(|_| Error::invalid_argument(format!("bad _sparse position {p}"))))
        .collect()
}

struct BatchKernel(Vec<usize>);

impl OpKernel for BatchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = dataset_input(ctx, 0)?;
        let size = positive_arg(ctx, 1, "Batch size")?;
        let drop_remainder = if ctx.num_inputs() > 2 { ctx.input(2)?.scalar_value::<bool>()? } else { false };
        set_dataset_output(
            ctx,
            BatchDataset { input, size, drop_remainder, batching: Batching::Stack(self.0.clone()) },
        );
        Ok(())
    }
}

pub(crate) fn batch_dataset(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(BatchKernel(sparse_components(b)?)))
}

/// `PaddedBatchDatasetV2`: inputs `input_dataset, batch_size, padded_shapes (N),
/// padding_values (N), drop_remainder`.
pub(crate) fn padded_batch_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let input = dataset_input(ctx, 0)?;
        let size = positive_arg(ctx, 1, "Batch size")?;
        let n = (ctx.num_inputs() - 3) / 2;
        let mut shapes = Vec::with_capacity(n);
        let mut values = Vec::with_capacity(n);
        for c in 0..n {
            let s = ctx.input(2 + c)?;
            if s.shape().len() != 1 {
                ff_bail!(
                    InvalidArgument,
                    "All padded shapes must be vectors, but component {c} has shape {}.",
                    fmt_shape(s.shape())
                );
            }
            shapes.push(s.as_slice::<i64>()?.to_vec());
            let v = ctx.input(2 + n + c)?;
            if !v.shape().is_empty() {
                ff_bail!(
                    InvalidArgument,
                    "All padding values must be scalars, but component {c} has shape {}.",
                    fmt_shape(v.shape())
                );
            }
            values.push(v.clone());
        }
        let drop_remainder = ctx.input(2 + 2 * n)?.scalar_value::<bool>()?;
        set_dataset_output(
            ctx,
            BatchDataset { input, size, drop_remainder, batching: Batching::Pad { shapes, values } },
        );
        Ok(())
    })
}

/// Pads every element of `batch` to one shape per component (a `-1` in `shapes`:
/// the largest in the batch) with that component's padding value, and stacks.
fn pad_batch(batch: &[Element], shapes: &[Vec<i64>], values: &[Tensor]) -> Result<Element> {
    let mut out = Vec::with_capacity(shapes.len());
    for (c, (padded, value)) in shapes.iter().zip(values).enumerate() {
        let mut dims = Vec::with_capacity(padded.len());
        for (d, &p) in padded.iter().enumerate() {
            let mut size = usize::try_from(p).unwrap_or(0);
            for e in batch {
                let t = &e[c];
                if t.shape().len() != padded.len() {
                    ff_bail!(
                        InvalidArgument,
                        "All elements in a batch must have the same rank as the padded shape for component{c}: \
                         expected rank {} but got element with rank {}",
                        padded.len(),
                        t.shape().len()
                    );
                }
                if p < 0 {
                    size = size.max(t.shape()[d]);
                } else if t.shape()[d] > size {
                    ff_bail!(DataLoss, "Attempted to pad to a smaller size than the input element.");
                }
            }
            dims.push(size);
        }
        let mut parts = Vec::with_capacity(batch.len());
        for e in batch {
            let t = &e[c];
            if t.dtype() != value.dtype() {
                ff_bail!(InvalidArgument, "Mismatched type between padding value {c} and input element");
            }
            let pads: Vec<(usize, usize)> =
                t.shape().iter().zip(&dims).map(|(&have, &want)| (0, want - have)).collect();
            parts.push(crate::kernels::layout::pad(t, &pads, value)?);
        }
        out.push(crate::kernels::array::pack(&parts.iter().collect::<Vec<_>>(), 0)?);
    }
    Ok(out)
}

// ---- unbatch ----

struct UnbatchDataset(Arc<dyn Dataset>);

struct UnbatchIter {
    input: Box<dyn DatasetIter>,
    current: Option<(Element, usize, usize)>,
}

impl Dataset for UnbatchDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        Ok(Box::new(UnbatchIter { input: Arc::clone(&self.0).make_iter(ctx)?, current: None }))
    }
}

impl DatasetIter for UnbatchIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        loop {
            if let Some((batch, next, rows)) = &mut self.current {
                if *next < *rows {
                    let i = *next;
                    *next += 1;
                    return batch.iter().map(|t| row(t, i)).collect::<Result<Vec<_>>>().map(Some);
                }
                self.current = None;
            }
            let Some(batch) = self.input.next(ctx)? else { return Ok(None) };
            let mut rows = None;
            for (c, t) in batch.iter().enumerate() {
                let Some(&n) = t.shape().first() else {
                    ff_bail!(InvalidArgument, "Input element must have a non-scalar value in each component.");
                };
                if let Some(r) = rows.filter(|&r| r != n) {
                    ff_bail!(
                        InvalidArgument,
                        "Input element must have the same batch size in each component. Component 0 had size {r} \
                         but component {c} had size, {n}."
                    );
                }
                rows = Some(n);
            }
            self.current = Some((batch, 0, rows.unwrap_or(0)));
        }
    }
}

pub(crate) fn unbatch_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let input = dataset_input(ctx, 0)?;
        set_dataset_output(ctx, UnbatchDataset(input));
        Ok(())
    })
}

// ---- shuffle ----

/// A shuffle op's seeds, as the pipeline's seed generators take them (see
/// [`super::ShuffleSeeds`]).
pub(crate) struct ShuffleSeeding {
    /// This dataset's own generator in each pipeline (a fresh one per instance, as TF's).
    pub id: u64,
    /// The op's node, naming random seeds in a saved state.
    pub node: String,
    /// The op's seeds (drawn at random for `(0, 0)`).
    pub base: (u64, u64),
    pub random: bool,
    /// TF's `reshuffle_each_iteration`: each iterator draws new seeds from a generator
    /// seeded with `base`; otherwise every iterator uses `base`.
    pub reshuffle: bool,
}

static NEXT_SHUFFLE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

struct ShuffleDataset {
    input: Arc<dyn Dataset>,
    buffer_size: usize,
    seeds: ShuffleSeeding,
    /// `ShuffleAndRepeatDataset`'s count (`Some(1)` for a plain shuffle).
    count: Option<u64>,
}

struct ShuffleIter {
    dataset: Arc<ShuffleDataset>,
    input: Option<Box<dyn DatasetIter>>,
    epoch: u64,
    /// TF's `SingleSampleAdapter<PhiloxRandom>` over this iterator's seeds.
    rng: WordStream,
    buffer: Vec<Option<Element>>,
    /// Where each epoch's elements lie in the ring buffer: `[start, end)` positions.
    slices: std::collections::VecDeque<(usize, usize)>,
    num_elements: usize,
    end_of_input: bool,
    data_produced: bool,
}

/// TF's `kMaxEpochsInBuffer`.
const MAX_EPOCHS_IN_BUFFER: usize = 3;

impl Dataset for ShuffleDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        let (s, s2) = ctx.pipeline.shuffle_seeds(&self.seeds);
        Ok(Box::new(ShuffleIter {
            input: None,
            epoch: 0,
            rng: WordStream::new(s, s2),
            buffer: Vec::new(),
            slices: std::collections::VecDeque::new(),
            num_elements: 0,
            end_of_input: false,
            data_produced: false,
            dataset: self,
        }))
    }
}

impl ShuffleIter {
    /// TF's `FillBuffer`: reads until the buffer is full, the input is over, or it
    /// holds more than [`MAX_EPOCHS_IN_BUFFER`] epochs.
    fn fill(&mut self, ctx: &IterCtx<'_>) -> Result<()> {
        let size = self.dataset.buffer_size;
        loop {
            if self.input.is_none() && self.dataset.count.is_some_and(|c| self.epoch >= c) {
                break;
            }
            if self.slices.len() > MAX_EPOCHS_IN_BUFFER && self.num_elements > 0 {
                break;
            }
            if self.num_elements >= size || self.end_of_input {
                break;
            }
            if self.input.is_none() {
                let end = self.slices.back().map_or(0, |s| s.1);
                self.slices.push_back((end, end));
                self.input = Some(Arc::clone(&self.dataset.input).make_iter(ctx)?);
                self.epoch += 1;
            }
            let Some(input) = &mut self.input else { break };
            match input.next(ctx)? {
                Some(e) => {
                    self.data_produced = true;
                    let back = self.slices.back_mut().ok_or_else(|| Error::new(Code::Internal, "no slice"))?;
                    let at = back.1 % size;
                    if self.buffer.len() < size {
                        self.buffer.push(Some(e));
                    } else {
                        self.buffer[at] = Some(e);
                    }
                    back.1 += 1;
                    self.num_elements += 1;
                }
                None => {
                    self.input = None;
                    // An input that gives nothing ends a forever repeat.
                    if !self.data_produced && self.dataset.count.is_none() {
                        self.end_of_input = true;
                    }
                }
            }
        }
        Ok(())
    }
}

impl DatasetIter for ShuffleIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        self.fill(ctx)?;
        if self.num_elements == 0 {
            return Ok(None);
        }
        while self.slices.front().is_some_and(|s| s.0 == s.1) {
            self.slices.pop_front();
            // `shuffle_and_repeat` reseeds at each epoch, as a new shuffle iterator would.
            if self.dataset.count != Some(1) {
                let (s, s2) = ctx.pipeline.shuffle_seeds(&self.dataset.seeds);
                self.rng = WordStream::new(s, s2);
            }
        }
        let Some(&(start, end)) = self.slices.front() else { return Ok(None) };
        let size = self.dataset.buffer_size;
        let pick = (start + self.rng.next_u32() as usize % (end - start)) % size;
        let out = self.buffer[pick].take();
        self.buffer.swap(pick, start % size);
        if let Some(front) = self.slices.front_mut() {
            front.0 += 1;
        }
        self.num_elements -= 1;
        out.map(Some).ok_or_else(|| Error::new(Code::Internal, "shuffle buffer slot was empty"))
    }
}

fn shuffle(ctx: &mut OpContext<'_>, node: &str, count: Option<u64>, reshuffle: bool) -> Result<()> {
    let input = dataset_input(ctx, 0)?;
    let buffer_size = ctx.input(1)?.scalar_value::<i64>()?;
    if buffer_size <= 0 {
        ff_bail!(InvalidArgument, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY");
    }
    let buffer_size = usize::try_from(buffer_size).map_err(|_| Error::invalid_argument("buffer_size is too large"))?;
    let seed = ctx.input(2)?.scalar_value::<i64>()?;
    let seed2 = ctx.input(3)?.scalar_value::<i64>()?;
    let seeds = ShuffleSeeding {
        id: NEXT_SHUFFLE.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        node: node.to_string(),
        base: crate::random::op_seeds(seed, seed2),
        random: seed == 0 && seed2 == 0,
        reshuffle,
    };
    set_dataset_output(ctx, ShuffleDataset { input, buffer_size, seeds, count });
    Ok(())
}

struct ShuffleKernel {
    node: String,
    reshuffle: bool,
    repeat: bool,
}

impl OpKernel for ShuffleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let count = if self.repeat { count_arg(ctx, 4)? } else { Some(1) };
        shuffle(ctx, &self.node, count, self.reshuffle)
    }
}

pub(crate) fn shuffle_dataset(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let reshuffle = b.node.attr_or::<bool>("reshuffle_each_iteration", true)?;
    Ok(Box::new(ShuffleKernel { node: b.node.name.clone(), reshuffle, repeat: false }))
}

pub(crate) fn shuffle_and_repeat_dataset(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let reshuffle = b.node.attr_or::<bool>("reshuffle_each_iteration", true)?;
    Ok(Box::new(ShuffleKernel { node: b.node.name.clone(), reshuffle, repeat: true }))
}

// ---- cache (memory) ----

/// `CacheDataset` with an empty file name: the first iterator to reach the end
/// keeps what it read, and later iterators (the next epochs of a `repeat`) replay it.
struct CacheDataset {
    input: Arc<dyn Dataset>,
    cache: Mutex<Option<Arc<Vec<Element>>>>,
}

enum CacheIter {
    Filling { dataset: Arc<CacheDataset>, input: Box<dyn DatasetIter>, seen: Vec<Element> },
    Replaying { elements: Arc<Vec<Element>>, next: usize },
}

impl Dataset for CacheDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        if let Some(elements) = self.cache.lock().clone() {
            return Ok(Box::new(CacheIter::Replaying { elements, next: 0 }));
        }
        let input = Arc::clone(&self.input).make_iter(ctx)?;
        Ok(Box::new(CacheIter::Filling { dataset: self, input, seen: Vec::new() }))
    }
}

impl DatasetIter for CacheIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        match self {
            CacheIter::Replaying { elements, next } => {
                let e = elements.get(*next).cloned();
                *next += usize::from(e.is_some());
                Ok(e)
            }
            CacheIter::Filling { dataset, input, seen } => match input.next(ctx)? {
                Some(e) => {
                    seen.push(e.clone());
                    Ok(Some(e))
                }
                None => {
                    let elements = Arc::new(std::mem::take(seen));
                    dataset.cache.lock().get_or_insert_with(|| Arc::clone(&elements));
                    let next = elements.len();
                    *self = CacheIter::Replaying { elements, next };
                    Ok(None)
                }
            },
        }
    }
}

pub(crate) fn cache_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let input = dataset_input(ctx, 0)?;
        let filename = ctx.input(1)?.as_strings()?.first().cloned().unwrap_or_default();
        if filename.is_empty() {
            set_dataset_output(ctx, CacheDataset { input, cache: Mutex::new(None) });
        } else {
            let path = crate::kernels::io::path_from_bytes(&filename)?;
            set_dataset_output(ctx, super::readers::FileCacheDataset::new(input, path));
        }
        Ok(())
    })
}

// ---- functions: map, filter, flat_map, interleave ----

/// Makes a function dataset from its input, its bound function and the position of
/// its first input after the captures.
pub(crate) type MakeFn = fn(&mut OpContext<'_>, Arc<dyn Dataset>, Arc<Function>, usize, &[usize]) -> Result<()>;

/// A dataset kernel with one function whose captures are its inputs from 1 on
/// (`Targuments` long), followed by `extra` scalar inputs.
pub(crate) struct FunctionKernel {
    pub function: FunctionPlan,
    pub n_captures: usize,
    pub make: MakeFn,
    /// The op's sparse components, for a batching op (see [`stack`]).
    pub sparse: Vec<usize>,
}

impl OpKernel for FunctionKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = dataset_input(ctx, 0)?;
        let f = self.function.bind(ctx, 1)?;
        (self.make)(ctx, input, f, 1 + self.n_captures, &self.sparse)
    }
}

/// The kernel of a dataset op with function attr `name` (`f`, `predicate`).
pub(crate) fn function_kernel(b: &KernelBuild<'_>, name: &str, make: MakeFn) -> Result<Box<dyn OpKernel>> {
    let n_captures = b.node.attr_or::<Vec<DType>>("Targuments", Vec::new())?.len();
    let function = FunctionPlan::compile(b, name, n_captures)?;
    Ok(Box::new(FunctionKernel { function, n_captures, make, sparse: sparse_components(b)? }))
}

/// What a function does to each element.
#[derive(Clone, Copy)]
enum Apply {
    Map,
    Filter,
    FlatMap,
}

struct FunctionDataset {
    input: Arc<dyn Dataset>,
    f: Arc<Function>,
    apply: Apply,
}

struct FunctionIter {
    input: Box<dyn DatasetIter>,
    f: Arc<Function>,
    apply: Apply,
    inner: Option<Box<dyn DatasetIter>>,
}

impl Dataset for FunctionDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        let input = Arc::clone(&self.input).make_iter(ctx)?;
        Ok(Box::new(FunctionIter { input, f: Arc::clone(&self.f), apply: self.apply, inner: None }))
    }
}

impl DatasetIter for FunctionIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        loop {
            if let Some(inner) = &mut self.inner {
                if let Some(e) = inner.next(ctx)? {
                    return Ok(Some(e));
                }
                self.inner = None;
            }
            let Some(e) = self.input.next(ctx)? else { return Ok(None) };
            match self.apply {
                Apply::Map => return self.f.call(e, ctx).map(Some),
                Apply::Filter => {
                    if self.f.predicate(e.clone(), ctx)? {
                        return Ok(Some(e));
                    }
                }
                Apply::FlatMap => {
                    let out = self.f.call_values(e, ctx)?;
                    let [d] = out.as_slice() else {
                        ff_bail!(InvalidArgument, "flat_map's function must return one dataset");
                    };
                    self.inner = Some(dataset_of(d)?.make_iter(ctx)?);
                }
            }
        }
    }
}

fn make_function_dataset(ctx: &mut OpContext<'_>, input: Arc<dyn Dataset>, f: Arc<Function>, apply: Apply) {
    set_dataset_output(ctx, FunctionDataset { input, f, apply });
}

pub(crate) fn map_dataset(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    function_kernel(b, "f", |ctx, input, f, _, _| {
        make_function_dataset(ctx, input, f, Apply::Map);
        Ok(())
    })
}

pub(crate) fn filter_dataset(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    function_kernel(b, "predicate", |ctx, input, f, _, _| {
        make_function_dataset(ctx, input, f, Apply::Filter);
        Ok(())
    })
}

pub(crate) fn flat_map_dataset(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    function_kernel(b, "f", |ctx, input, f, _, _| {
        make_function_dataset(ctx, input, f, Apply::FlatMap);
        Ok(())
    })
}

/// TF's `InterleaveDataset`: `cycle_length` inputs' datasets open at once, taking
/// `block_length` elements from each in turn; an exhausted one is replaced by the
/// next input element's dataset in its place in the cycle.
pub(crate) struct InterleaveDataset {
    pub input: Arc<dyn Dataset>,
    pub f: Arc<Function>,
    pub cycle_length: usize,
    pub block_length: usize,
    /// Elements each open inner iterator reads ahead on a thread of its own (0: none).
    pub prefetch: usize,
}

struct InterleaveIter {
    dataset: Arc<InterleaveDataset>,
    input: Box<dyn DatasetIter>,
    current: Vec<Option<Box<dyn DatasetIter>>>,
    cycle_index: usize,
    block_index: usize,
    num_open: usize,
    end_of_input: bool,
}

impl Dataset for InterleaveDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        let input = Arc::clone(&self.input).make_iter(ctx)?;
        let current = (0..self.cycle_length).map(|_| None).collect();
        Ok(Box::new(InterleaveIter {
            dataset: self,
            input,
            current,
            cycle_index: 0,
            block_index: 0,
            num_open: 0,
            end_of_input: false,
        }))
    }
}

impl InterleaveIter {
    fn advance_cycle(&mut self) {
        self.block_index = 0;
        self.cycle_index = (self.cycle_index + 1) % self.dataset.cycle_length;
    }
}

impl DatasetIter for InterleaveIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        while !self.end_of_input || self.num_open > 0 {
            let i = self.cycle_index;
            if let Some(it) = &mut self.current[i] {
                if let Some(e) = it.next(ctx)? {
                    self.block_index += 1;
                    if self.block_index == self.dataset.block_length {
                        self.advance_cycle();
                    }
                    return Ok(Some(e));
                }
                self.current[i] = None;
                self.num_open -= 1;
                self.advance_cycle();
            } else if !self.end_of_input {
                match self.input.next(ctx)? {
                    Some(e) => {
                        let out = self.dataset.f.call_values(e, ctx)?;
                        let [d] = out.as_slice() else {
                            ff_bail!(InvalidArgument, "interleave's function must return one dataset");
                        };
                        let inner = dataset_of(d)?.make_iter(ctx)?;
                        let inner = if self.dataset.prefetch > 0 {
                            super::parallel::prefetching(inner, self.dataset.prefetch)
                        } else {
                            inner
                        };
                        self.current[i] = Some(inner);
                        self.num_open += 1;
                    }
                    None => self.end_of_input = true,
                }
            } else {
                self.advance_cycle();
            }
        }
        Ok(None)
    }
}

/// `InterleaveDataset`: inputs `input_dataset, other_arguments, cycle_length,
/// block_length`; `ParallelInterleaveDatasetV2`/`V3` add `num_parallel_calls`, and
/// the legacy `ParallelInterleaveDataset` `sloppy, buffer_output_elements,
/// prefetch_input_elements`: those read each open input ahead on a thread.
pub(crate) fn interleave_dataset(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    function_kernel(b, "f", |ctx, input, f, at, _| {
        let cycle = ctx.input(at)?.scalar_value::<i64>()?;
        let block = ctx.input(at + 1)?.scalar_value::<i64>()?;
        if cycle <= 0 && cycle != -1 {
            ff_bail!(InvalidArgument, "cycle_length must be greater than zero.");
        }
        if block <= 0 {
            ff_bail!(InvalidArgument, "block_length must be greater than zero.");
        }
        // AUTOTUNE (`-1`): one per core, as TF's default.
        let cycle_length = usize::try_from(cycle).unwrap_or_else(|_| crate::framework::pool::default_threads());
        let block_length = usize::try_from(block).unwrap_or(1);
        let prefetch = if ctx.num_inputs() > at + 2 { block_length.max(2) } else { 0 };
        set_dataset_output(ctx, InterleaveDataset { input, f, cycle_length, block_length, prefetch });
        Ok(())
    })
}

// ---- ignore_errors ----

struct IgnoreErrorsDataset(Arc<dyn Dataset>);

struct IgnoreErrorsIter(Box<dyn DatasetIter>);

impl Dataset for IgnoreErrorsDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        Ok(Box::new(IgnoreErrorsIter(Arc::clone(&self.0).make_iter(ctx)?)))
    }
}

impl DatasetIter for IgnoreErrorsIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        loop {
            match self.0.next(ctx) {
                Ok(e) => return Ok(e),
                // Cancellation is the pipeline's end, not an element's error.
                Err(e) if super::is_cancellation(&e) => return Err(e),
                Err(_) => ctx.check()?,
            }
        }
    }
}

pub(crate) fn ignore_errors_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let input = dataset_input(ctx, 0)?;
        set_dataset_output(ctx, IgnoreErrorsDataset(input));
        Ok(())
    })
}

// ---- window ----

/// TF's `WindowDataset`: windows of `size` elements taken `stride` apart, starting
/// `shift` elements after the previous window's start. A window leaves as one
/// tensor per component, its elements stacked (the Python layer presents it as a
/// dataset of them).
struct WindowDataset {
    input: Arc<dyn Dataset>,
    size: usize,
    shift: usize,
    stride: usize,
    drop_remainder: bool,
}

struct WindowIter {
    dataset: Arc<WindowDataset>,
    input: Option<Box<dyn DatasetIter>>,
    buffer: std::collections::VecDeque<Element>,
}

impl Dataset for WindowDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        let input = Arc::clone(&self.input).make_iter(ctx)?;
        Ok(Box::new(WindowIter { dataset: self, input: Some(input), buffer: std::collections::VecDeque::new() }))
    }
}

impl DatasetIter for WindowIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        let d = &self.dataset;
        // The elements one window spans: `(size - 1) * stride + 1`.
        let target = (d.size - 1).saturating_mul(d.stride).saturating_add(1);
        while self.buffer.len() < target {
            let Some(input) = &mut self.input else { break };
            match input.next(ctx)? {
                Some(e) => self.buffer.push_back(e),
                None => self.input = None,
            }
        }
        if self.buffer.is_empty() || (d.drop_remainder && self.buffer.len() < target) {
            self.buffer.clear();
            return Ok(None);
        }
        let window: Vec<Element> = self.buffer.iter().step_by(d.stride).take(d.size).cloned().collect();
        // Shift, reading past the buffer where the shift is longer than it.
        if d.shift >= self.buffer.len() {
            for _ in self.buffer.len()..d.shift {
                let Some(input) = &mut self.input else { break };
                if input.next(ctx)?.is_none() {
                    self.input = None;
                }
            }
            self.buffer.clear();
        } else {
            self.buffer.drain(..d.shift);
        }
        stack(&window, &[])
            .map_err(|e| {
                Error::invalid_argument(format!(
                    "a window's elements are stacked by ferroflow and must have one shape per component: {}",
                    e.message
                ))
            })
            .map(Some)
    }
}

/// `WindowDataset`: inputs `input_dataset, size, shift, stride, drop_remainder`.
pub(crate) fn window_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let input = dataset_input(ctx, 0)?;
        let size = positive_arg(ctx, 1, "Window size")?;
        let shift = positive_arg(ctx, 2, "Window shift")?;
        let stride = positive_arg(ctx, 3, "Window stride")?;
        let drop_remainder = ctx.input(4)?.scalar_value::<bool>()?;
        set_dataset_output(ctx, WindowDataset { input, size, shift, stride, drop_remainder });
        Ok(())
    })
}
