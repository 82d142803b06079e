//! The stages that work ahead of their consumer: `prefetch` (a producer thread with
//! a bounded buffer), parallel `map` and `map_and_batch` (up to `num_parallel_calls`
//! function calls in flight on the pipeline's pool, results in input order). Every
//! wait looks at the consumer's cancellation and the pipeline's every [`POLL`], so
//! closing the session never hangs on a full or empty buffer.
use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

use super::function::Function;
use super::transforms::{BatchIter, function_kernel};
use super::{Dataset, DatasetIter, Element, IterCtx, POLL, Pipeline, dataset_input, set_dataset_output};
use crate::error::{Code, Error, Result};
use crate::kernels::{KernelBuild, OpContext, OpKernel, stateless};

/// What AUTOTUNE (`-1`) picks where TF would tune: one call per core, a prefetch
/// buffer of a few elements.
fn autotune_width() -> usize {
    crate::framework::pool::default_threads().max(2)
}
const AUTOTUNE_BUFFER: usize = 8;

/// A panic in a pipeline stage as the element's `Internal` error.
fn caught<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(Error::from_panic(&*payload)))
}

// ---- prefetch ----

struct Buffered {
    items: VecDeque<Result<Element>>,
    ended: bool,
    stop: bool,
    /// Set by the producer as it returns.
    exited: bool,
}

/// How long dropping a prefetching iterator waits for its producer to see `stop`.
/// A producer inside a host-language call (a generator waiting for the GIL the
/// dropping thread may hold) is left to finish on its own after that.
const STOP_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

/// Marks the producer's exit, however it returns.
struct Exit<'a>(&'a Shared);

impl Drop for Exit<'_> {
    fn drop(&mut self) {
        self.0.state.lock().exited = true;
        self.0.changed.notify_all();
    }
}

struct Shared {
    state: Mutex<Buffered>,
    /// Signalled when an item is added (for the consumer) or taken (for the producer).
    changed: Condvar,
}

/// An iterator whose input runs on a producer thread of its own, up to `capacity`
/// elements ahead (TF's `PrefetchDataset` iterator, and the reading ahead of
/// `parallel_interleave`'s inputs).
struct PrefetchIter {
    shared: Arc<Shared>,
    capacity: usize,
    input: Option<Box<dyn DatasetIter>>,
    producer: Option<JoinHandle<()>>,
}

/// `input` read ahead by up to `capacity` elements on a thread, started at the
/// first `next`.
pub(crate) fn prefetching(input: Box<dyn DatasetIter>, capacity: usize) -> Box<dyn DatasetIter> {
    let shared = Arc::new(Shared {
        state: Mutex::new(Buffered { items: VecDeque::new(), ended: false, stop: false, exited: false }),
        changed: Condvar::new(),
    });
    Box::new(PrefetchIter { shared, capacity: capacity.max(1), input: Some(input), producer: None })
}

fn produce(shared: &Shared, mut input: Box<dyn DatasetIter>, capacity: usize, pipeline: &Arc<Pipeline>) {
    let _exit = Exit(shared);
    let ctx = pipeline.ctx();
    loop {
        {
            let mut st = shared.state.lock();
            while st.items.len() >= capacity && !st.stop && !pipeline.is_cancelled() {
                shared.changed.wait_for(&mut st, POLL);
            }
            if st.stop || pipeline.is_cancelled() {
                return;
            }
        }
        let item = caught(|| input.next(&ctx));
        let mut st = shared.state.lock();
        match item {
            Ok(None) => {
                st.ended = true;
                shared.changed.notify_all();
                return;
            }
            Err(_) if pipeline.is_cancelled() || st.stop => return,
            Ok(Some(e)) => st.items.push_back(Ok(e)),
            Err(e) => st.items.push_back(Err(e)),
        }
        shared.changed.notify_all();
    }
}

impl DatasetIter for PrefetchIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        if let Some(input) = self.input.take() {
            let (shared, pipeline, capacity) = (Arc::clone(&self.shared), Arc::clone(ctx.pipeline), self.capacity);
            let spawned = std::thread::Builder::new()
                .name("ferroflow-prefetch".into())
                .spawn(move || produce(&shared, input, capacity, &pipeline));
            self.producer = Some(spawned.map_err(|e| Error::new(Code::ResourceExhausted, e.to_string()))?);
        }
        let mut st = self.shared.state.lock();
        loop {
            if let Some(item) = st.items.pop_front() {
                self.shared.changed.notify_all();
                return item.map(Some);
            }
            if st.ended {
                return Ok(None);
            }
            self.shared.changed.wait_for(&mut st, POLL);
            if st.items.is_empty() && !st.ended {
                // Never hold the buffer's lock while the check may take the GIL.
                parking_lot::MutexGuard::unlocked(&mut st, || ctx.check())?;
            }
        }
    }
}

impl Drop for PrefetchIter {
    fn drop(&mut self) {
        let deadline = std::time::Instant::now() + STOP_WAIT;
        let mut st = self.shared.state.lock();
        st.stop = true;
        self.shared.changed.notify_all();
        let Some(producer) = self.producer.take() else { return };
        // The producer sees `stop` at its next element (or its next poll). Never wait
        // unboundedly: the dropping thread may hold what the producer waits for.
        while !st.exited && !self.shared.changed.wait_until(&mut st, deadline).timed_out() {}
        let exited = st.exited;
        drop(st);
        if exited {
            let _ = producer.join();
        }
    }
}

struct PrefetchDataset {
    input: Arc<dyn Dataset>,
    capacity: usize,
}

impl Dataset for PrefetchDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        let input = Arc::clone(&self.input).make_iter(ctx)?;
        Ok(if self.capacity == 0 { input } else { prefetching(input, self.capacity) })
    }
}

pub(crate) fn prefetch_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let input = dataset_input(ctx, 0)?;
        let n = ctx.input(1)?.scalar_value::<i64>()?;
        let capacity = match n {
            -1 => AUTOTUNE_BUFFER,
            n if n < 0 => {
                ff_bail!(InvalidArgument, "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning")
            }
            n => usize::try_from(n).map_err(|_| Error::invalid_argument("buffer_size is too large"))?,
        };
        set_dataset_output(ctx, PrefetchDataset { input, capacity });
        Ok(())
    })
}

// ---- parallel map ----

/// The work one pool task should hold: below this, handing a call to another
/// thread (a wake-up there, one back here) costs more than the call.
const TASK_NS: u64 = 50_000;
/// The most calls one task runs in a row.
const MAX_GROUP: usize = 256;

/// A run of consecutive calls, given to one pool task; results filled in order.
struct Chunk {
    results: Mutex<Option<Vec<Result<Element>>>>,
    done: Condvar,
}

/// Up to `width` tasks of `f`'s calls in flight on the pipeline's pool; results leave
/// in input order (TF's deterministic `ParallelMapDataset`). A task runs a group of
/// consecutive calls, sized from the calls' measured time so that each task holds
/// about [`TASK_NS`] of work: cheap functions (a record's parse) are not drowned by
/// the hand-offs, costly ones (an image decode) still run one per task.
pub(crate) struct ParallelMapIter {
    input: Option<Box<dyn DatasetIter>>,
    f: Arc<Function>,
    width: usize,
    in_flight: VecDeque<Arc<Chunk>>,
    /// Results of the front chunk not handed out yet.
    ready: VecDeque<Result<Element>>,
    /// A moving average of one call's time, in ns (0: not measured yet).
    call_ns: Arc<std::sync::atomic::AtomicU64>,
}

impl ParallelMapIter {
    /// Calls of `f` on `input`'s elements, `width` tasks at once.
    pub(crate) fn new(input: Box<dyn DatasetIter>, f: Arc<Function>, width: usize) -> Self {
        ParallelMapIter {
            input: Some(input),
            f,
            width: width.max(1),
            in_flight: VecDeque::new(),
            ready: VecDeque::new(),
            call_ns: Arc::default(),
        }
    }

    /// How many calls the next task takes.
    fn group(&self) -> usize {
        match self.call_ns.load(std::sync::atomic::Ordering::Relaxed) {
            0 => 1,
            ns => usize::try_from(TASK_NS / ns.max(1)).unwrap_or(MAX_GROUP).clamp(1, MAX_GROUP),
        }
    }

    fn start(&mut self, ctx: &IterCtx<'_>) -> Result<()> {
        while self.in_flight.len() < self.width {
            let group = self.group();
            let Some(input) = &mut self.input else { break };
            // The chunk's elements, or an element's error (which ends the chunk there).
            let mut elements = Vec::with_capacity(group);
            let mut failed = None;
            let mut ended = false;
            while elements.len() < group {
                match input.next(ctx) {
                    Ok(Some(e)) => elements.push(e),
                    Ok(None) => {
                        ended = true;
                        break;
                    }
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            if ended {
                self.input = None;
            }
            if elements.is_empty() && failed.is_none() {
                break;
            }
            let chunk = Arc::new(Chunk { results: Mutex::new(None), done: Condvar::new() });
            let (f, done, pipeline, call_ns) =
                (Arc::clone(&self.f), Arc::clone(&chunk), Arc::clone(ctx.pipeline), Arc::clone(&self.call_ns));
            let call = move || {
                let pctx = pipeline.ctx();
                let mut out = Vec::with_capacity(elements.len() + 1);
                for e in elements {
                    let t = std::time::Instant::now();
                    out.push(caught(|| f.call(e, &pctx)));
                    let ns = u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX).max(1);
                    let old = call_ns.load(std::sync::atomic::Ordering::Relaxed);
                    let avg = if old == 0 { ns } else { (old * 7 + ns) / 8 };
                    call_ns.store(avg, std::sync::atomic::Ordering::Relaxed);
                }
                if let Some(e) = failed {
                    out.push(Err(e));
                }
                *done.results.lock() = Some(out);
                done.done.notify_all();
            };
            // One task at a time gains nothing from another thread.
            match &ctx.pipeline.env.intra_pool {
                Some(pool) if self.width > 1 => pool.spawn(call),
                _ => call(),
            }
            self.in_flight.push_back(chunk);
        }
        Ok(())
    }
}

impl DatasetIter for ParallelMapIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        if let Some(result) = self.ready.pop_front() {
            return result.map(Some);
        }
        self.start(ctx)?;
        let Some(front) = self.in_flight.front().cloned() else { return Ok(None) };
        // A consumer on the pool itself (a parallel map nested in another's function)
        // runs queued calls while it waits, or the pool could wait on itself.
        let on_pool = ctx.pipeline.env.intra_pool.as_ref().is_some_and(|p| p.current_thread_index().is_some());
        loop {
            {
                let mut r = front.results.lock();
                if let Some(results) = r.take() {
                    drop(r);
                    self.in_flight.pop_front();
                    self.ready = results.into();
                    // Keep the pool busy while the consumer works on these.
                    self.start(ctx)?;
                    return match self.ready.pop_front() {
                        Some(result) => result.map(Some),
                        None => self.next(ctx),
                    };
                }
                if !on_pool {
                    front.done.wait_for(&mut r, POLL);
                }
            }
            if on_pool && rayon::yield_now() != Some(rayon::Yield::Executed) {
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
            ctx.check()?;
        }
    }
}

impl Drop for ParallelMapIter {
    fn drop(&mut self) {
        // Calls in flight finish on their own; their results are dropped with the chunks.
        self.in_flight.clear();
    }
}

struct ParallelMapDataset {
    input: Arc<dyn Dataset>,
    f: Arc<Function>,
    width: usize,
    /// `map_and_batch`: batches of this size, whether to drop a short last one, and
    /// the sparse components (see `transforms::stack`).
    batch: Option<(usize, bool, Vec<usize>)>,
}

impl Dataset for ParallelMapDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        let input = Arc::clone(&self.input).make_iter(ctx)?;
        let mapped = Box::new(ParallelMapIter::new(input, Arc::clone(&self.f), self.width));
        Ok(match &self.batch {
            Some((size, drop_remainder, sparse)) => {
                Box::new(BatchIter::stacking(mapped, *size, *drop_remainder, sparse.clone()))
            }
            None => mapped,
        })
    }
}

fn width_arg(ctx: &OpContext<'_>, i: usize) -> Result<usize> {
    let t = ctx.input(i)?;
    let n = if t.dtype() == crate::dtype::DType::Int32 {
        i64::from(t.scalar_value::<i32>()?)
    } else {
        t.scalar_value::<i64>()?
    };
    match n {
        -1 => Ok(autotune_width()),
        n if n <= 0 => Err(Error::invalid_argument("num_parallel_calls must be greater than zero.")),
        n => usize::try_from(n).map_err(|_| Error::invalid_argument("num_parallel_calls is too large")),
    }
}

/// `ParallelMapDataset` / `V2`: inputs `input_dataset, other_arguments,
/// num_parallel_calls`.
pub(crate) fn parallel_map_dataset(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    function_kernel(b, "f", |ctx, input, f, at, _| {
        let width = width_arg(ctx, at)?;
        set_dataset_output(ctx, ParallelMapDataset { input, f, width, batch: None });
        Ok(())
    })
}

/// `MapAndBatchDataset`: inputs `input_dataset, other_arguments, batch_size,
/// num_parallel_calls, drop_remainder`.
pub(crate) fn map_and_batch_dataset(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    function_kernel(b, "f", |ctx, input, f, at, sparse| {
        let size = super::positive_arg(ctx, at, "batch_size")?;
        let width = width_arg(ctx, at + 1)?;
        let drop_remainder = ctx.input(at + 2)?.scalar_value::<bool>()?;
        let batch = Some((size, drop_remainder, sparse.to_vec()));
        set_dataset_output(ctx, ParallelMapDataset { input, f, width, batch });
        Ok(())
    })
}
