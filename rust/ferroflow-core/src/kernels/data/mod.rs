//! `tf.data`: datasets as Rust iterators over tensors (registration in `ops/data.rs`).
//!
//! A dataset op (`RangeDataset`, `MapDataset`, ...) outputs a `variant` scalar: a
//! [`DatasetHandle`], the immutable description of a dataset (its inputs' datasets,
//! its arguments, its compiled functions). Nothing is read when a dataset op runs. An
//! iterator resource ([`iterator::IteratorResource`]) makes a [`DatasetIter`] from
//! one (`MakeIterator`), and `IteratorGetNext` pulls elements from it, one session
//! run at a time. The iterators of `prefetch`, parallel `map` and `interleave` run
//! their input on threads of their own or on the session's intra-op pool, with
//! bounded buffers; all of them belong to one [`Pipeline`], which closing the
//! session (or re-initializing the iterator) cancels.
use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Code, Error, Result};
use crate::framework::cancel::RunCancellation;
use crate::framework::step::Wait;
use crate::tensor::Tensor;

use super::{ExecEnv, OpContext, Value};

pub(crate) mod function;
pub(crate) mod iterator;
pub(crate) mod parallel;
pub(crate) mod readers;
pub(crate) mod sources;
pub(crate) mod transforms;

/// One element of a dataset: its components, flattened.
pub(crate) type Element = Vec<Tensor>;

/// How often a wait inside a pipeline looks at its cancellation.
pub(crate) const POLL: Duration = Duration::from_millis(10);

/// A dataset: makes iterators over its elements. Immutable and shared: every
/// iterator made from it starts from its first element.
pub(crate) trait Dataset: Send + Sync + 'static {
    /// A fresh iterator over the elements.
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>>;
}

/// A running iterator over a dataset's elements.
pub(crate) trait DatasetIter: Send {
    /// The next element, or `None` at the end of the sequence (and for every call
    /// after it). An error is this element's: TF's iterators go on after it.
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>>;
}

/// The value of a dataset op's `variant` output.
pub(crate) struct DatasetHandle(pub Arc<dyn Dataset>);

/// Input `i` of a dataset kernel as a dataset.
pub(crate) fn dataset_input(ctx: &OpContext<'_>, i: usize) -> Result<Arc<dyn Dataset>> {
    Ok(Arc::clone(&ctx.resource_input::<DatasetHandle>(i)?.0))
}

/// A value as a dataset (a `flat_map` function's result).
pub(crate) fn dataset_of(value: &Value) -> Result<Arc<dyn Dataset>> {
    match value {
        Value::Resource(r) => Arc::clone(r)
            .downcast::<DatasetHandle>()
            .map(|h| Arc::clone(&h.0))
            .map_err(|_| Error::invalid_argument("expected a dataset (a variant tensor)")),
        _ => Err(Error::invalid_argument("expected a dataset (a variant tensor), got a tensor")),
    }
}

/// Sets output 0 of a dataset kernel.
pub(crate) fn set_dataset_output(ctx: &mut OpContext<'_>, d: impl Dataset) {
    ctx.set_resource_output(0, Arc::new(DatasetHandle(Arc::new(d))) as Arc<dyn Any + Send + Sync>);
}

/// What every iterator of one initialized iterator resource shares: its
/// cancellation (the session closing, the resource re-initialized or dropped) and
/// the threads its parallel stages run on.
pub(crate) struct Pipeline {
    closed: AtomicBool,
    run: RunCancellation<'static>,
    /// The pool parallel `map` and `interleave` run their calls on.
    pub env: ExecEnv,
    /// Its shuffles' seed generators (see [`ShuffleSeeds`]).
    seeds: parking_lot::Mutex<ShuffleSeeds>,
}

/// The seed generators of a pipeline's shuffles: TF's `RandomSeedGenerator` (or
/// `FixedSeedGenerator`) of each shuffle dataset, fresh in each pipeline, so an
/// iterator (re)initialized on a dataset shuffles as the first time, and a restored
/// one, replaying its iterators in the same order, draws the same seeds again. The
/// op seeds that were random are recorded by node, in the order they were first
/// used, so a restored pipeline (in another session or process) uses them again.
#[derive(Default)]
pub(crate) struct ShuffleSeeds {
    generators: std::collections::HashMap<u64, SeedGenerator>,
    /// Random op seeds first used, by node, in order.
    pub random_used: Vec<(String, u64, u64)>,
    /// Random op seeds to use instead (a restore), by node, in order.
    pub random_saved: std::collections::HashMap<String, std::collections::VecDeque<(u64, u64)>>,
}

enum SeedGenerator {
    Fixed(u64, u64),
    /// TF's `RandomSeedGenerator`: pairs of words of a Philox stream.
    Reshuffle(crate::random::WordStream),
}

impl Pipeline {
    /// A pipeline running parallel work on `pool` (the session's intra-op pool, or a
    /// shared one).
    pub(crate) fn new(pool: Option<Arc<rayon::ThreadPool>>) -> Arc<Self> {
        let pool = pool.or_else(|| crate::framework::pool::shared_pool(crate::framework::pool::default_threads()));
        Arc::new(Pipeline {
            closed: AtomicBool::new(false),
            run: RunCancellation::new(None),
            env: ExecEnv { intra_pool: pool },
            seeds: parking_lot::Mutex::default(),
        })
    }
    /// A pipeline whose shuffles with random op seeds take `saved`'s (a restore).
    pub(crate) fn restoring(pool: Option<Arc<rayon::ThreadPool>>, saved: Vec<(String, u64, u64)>) -> Arc<Self> {
        let p = Self::new(pool);
        {
            let mut seeds = p.seeds.lock();
            for (node, a, b) in saved {
                seeds.random_saved.entry(node).or_default().push_back((a, b));
            }
        }
        p
    }
    /// The seeds of a shuffle iterator being made over the dataset `shuffle`
    /// describes: the next draw of its generator in this pipeline.
    pub(crate) fn shuffle_seeds(&self, shuffle: &transforms::ShuffleSeeding) -> (u64, u64) {
        let mut seeds = self.seeds.lock();
        let ShuffleSeeds { generators, random_used, random_saved } = &mut *seeds;
        let generator = generators.entry(shuffle.id).or_insert_with(|| {
            let mut base = shuffle.base;
            if shuffle.random {
                if let Some(saved) = random_saved.get_mut(&shuffle.node).and_then(|q| q.pop_front()) {
                    base = saved;
                }
                random_used.push((shuffle.node.clone(), base.0, base.1));
            }
            if shuffle.reshuffle {
                SeedGenerator::Reshuffle(crate::random::WordStream::new(base.0, base.1))
            } else {
                SeedGenerator::Fixed(base.0, base.1)
            }
        });
        match generator {
            SeedGenerator::Fixed(a, b) => (*a, *b),
            SeedGenerator::Reshuffle(words) => (u64::from(words.next_u32()), u64::from(words.next_u32())),
        }
    }
    /// The random op seeds its shuffles used, by node, in order (for a saved state).
    pub(crate) fn random_seeds_used(&self) -> Vec<(String, u64, u64)> {
        self.seeds.lock().random_used.clone()
    }
    /// Stops every stage: waits end with `Cancelled`, threads exit.
    pub(crate) fn cancel(&self) {
        self.closed.store(true, Ordering::Release);
        self.run.cancel();
    }
    /// Whether it was cancelled.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }
    /// The wait of the pipeline's own threads: no deadline, cancelled with it.
    pub(crate) fn wait(&self) -> Wait<'_> {
        Wait {
            deadline: None,
            closed: &self.closed,
            run: &self.run,
            nonblocking: false,
            rendezvous: None,
            loops: Default::default(),
        }
    }
    /// The context of a pipeline thread.
    pub(crate) fn ctx<'a>(self: &'a Arc<Self>) -> IterCtx<'a> {
        IterCtx { wait: self.wait(), env: &self.env, pipeline: self }
    }
}

/// Where an iterator's `next` runs: the session run that called `IteratorGetNext`
/// (its deadline and cancellation), or one of the pipeline's threads.
pub(crate) struct IterCtx<'a> {
    /// The caller's cancellation and deadline; function calls run under it.
    pub wait: Wait<'a>,
    /// Threads a function's kernels may split work across.
    pub env: &'a ExecEnv,
    /// The pipeline the iterator belongs to.
    pub pipeline: &'a Arc<Pipeline>,
}

impl IterCtx<'_> {
    /// Fails if the caller's run or the pipeline was cancelled, or the deadline passed:
    /// what a waiting stage checks every [`POLL`].
    pub(crate) fn check(&self) -> Result<()> {
        if self.pipeline.is_cancelled() {
            return Err(Error::new(Code::Cancelled, "Iterator was cancelled"));
        }
        check_wait(&self.wait)
    }
}

/// Fails if `wait`'s run was cancelled (or its session closed), its deadline passed,
/// or its caller was interrupted: what a step waiting on the pipeline checks.
pub(crate) fn check_wait(wait: &Wait<'_>) -> Result<()> {
    if wait.is_cancelled() {
        return Err(Error::new(Code::Cancelled, "Session has been closed."));
    }
    if wait.deadline.is_some_and(|d| Instant::now() >= d) {
        return Err(Error::new(Code::DeadlineExceeded, "Timed out waiting for notification"));
    }
    wait.run.poll_interrupt()
}

/// Whether `e` is a cancellation (of the caller or the pipeline) or a passed
/// deadline: the pipeline's end, not an element's error.
pub(crate) fn is_cancellation(e: &Error) -> bool {
    matches!(e.code, Code::Cancelled | Code::DeadlineExceeded)
}

/// The error of a `next` called after an iterator's end (`IteratorGetNext`).
pub(crate) fn end_of_sequence() -> Error {
    Error::new(Code::OutOfRange, "End of sequence")
}

/// A count argument: a negative number (TF's `-1`) means all, or forever.
pub(crate) fn count_arg(ctx: &OpContext<'_>, i: usize) -> Result<Option<u64>> {
    let v = ctx.input(i)?.scalar_value::<i64>()?;
    Ok(u64::try_from(v).ok())
}

/// A positive `int64` scalar input (a batch size, a buffer size).
pub(crate) fn positive_arg(ctx: &OpContext<'_>, i: usize, what: &str) -> Result<usize> {
    let v = ctx.input(i)?.scalar_value::<i64>()?;
    if v <= 0 {
        ff_bail!(InvalidArgument, "{what} must be greater than zero.");
    }
    usize::try_from(v).map_err(|_| Error::invalid_argument(format!("{what} {v} is too large")))
}

/// The string scalar or vector at input `i` as file names.
pub(crate) fn filenames_arg(ctx: &OpContext<'_>, i: usize) -> Result<Vec<Vec<u8>>> {
    let t = ctx.input(i)?;
    if t.shape().len() > 1 {
        ff_bail!(InvalidArgument, "`filenames` must be a scalar or a vector.");
    }
    Ok(t.as_strings()?.to_vec())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::sources::row;
    use super::transforms::ShuffleSeeding;
    use super::*;

    /// `0..n` as a dataset of int64 scalars.
    struct Count(i64);

    struct CountIter(i64, i64);

    impl Dataset for Count {
        fn make_iter(self: Arc<Self>, _: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
            Ok(Box::new(CountIter(0, self.0)))
        }
    }

    impl DatasetIter for CountIter {
        fn next(&mut self, _: &IterCtx<'_>) -> Result<Option<Element>> {
            if self.0 >= self.1 {
                return Ok(None);
            }
            self.0 += 1;
            Ok(Some(vec![Tensor::scalar(self.0 - 1)]))
        }
    }

    fn drain(it: &mut dyn DatasetIter, ctx: &IterCtx<'_>) -> Vec<i64> {
        let mut out = Vec::new();
        while let Some(e) = it.next(ctx).unwrap() {
            out.push(e[0].scalar_value::<i64>().unwrap());
        }
        out
    }

    #[test]
    fn shuffle_seeds_follow_tf_generators() {
        // TF's vector: range(10).shuffle(5, seed=7) draws its iterator's seeds from a
        // RandomSeedGenerator over (87654321, 7): the first pair is this one.
        let p = Pipeline::new(None);
        let shuffle = ShuffleSeeding { id: 1, node: "s".into(), base: (87_654_321, 7), random: false, reshuffle: true };
        assert_eq!(p.shuffle_seeds(&shuffle), (1_992_159_687, 3_200_305_987));
        // A fresh pipeline (a re-initialized iterator) starts the generator again.
        assert_eq!(Pipeline::new(None).shuffle_seeds(&shuffle), (1_992_159_687, 3_200_305_987));
        let fixed = ShuffleSeeding { reshuffle: false, id: 2, ..shuffle };
        assert_eq!(p.shuffle_seeds(&fixed), (87_654_321, 7));
        assert_eq!(p.shuffle_seeds(&fixed), (87_654_321, 7));
    }

    #[test]
    fn random_seeds_are_saved_by_node_and_restored() {
        let p = Pipeline::new(None);
        let random = ShuffleSeeding { id: 3, node: "r".into(), base: (11, 12), random: true, reshuffle: false };
        p.shuffle_seeds(&random);
        assert_eq!(p.random_seeds_used(), vec![("r".to_string(), 11, 12)]);
        let restored = Pipeline::restoring(None, p.random_seeds_used());
        let fresh = ShuffleSeeding { id: 4, base: (99, 98), ..random };
        assert_eq!(restored.shuffle_seeds(&fresh), (11, 12));
    }

    #[test]
    fn prefetch_reads_ahead_and_stops_when_dropped_or_cancelled() {
        let p = Pipeline::new(None);
        let ctx = p.ctx();
        let input = Arc::new(Count(1_000_000)).make_iter(&ctx).unwrap();
        let mut it = parallel::prefetching(input, 4);
        assert_eq!(it.next(&ctx).unwrap().unwrap()[0].scalar_value::<i64>().unwrap(), 0);
        std::thread::sleep(Duration::from_millis(20));
        let start = Instant::now();
        drop(it);
        assert!(start.elapsed() < Duration::from_millis(150));
        // A consumer of a cancelled pipeline gets `Cancelled`, not a hang.
        let input = Arc::new(Count(0)).make_iter(&ctx).unwrap();
        struct Never;
        impl DatasetIter for Never {
            fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
                loop {
                    ctx.check()?;
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        }
        drop(input);
        let mut stuck = parallel::prefetching(Box::new(Never), 1);
        let p2 = Arc::clone(&p);
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            p2.cancel();
        });
        let err = stuck.next(&ctx).unwrap_err();
        assert_eq!(err.code, Code::Cancelled);
        canceller.join().unwrap();
    }

    #[test]
    fn rows_of_strings_and_numbers() {
        let t = Tensor::from_strings(&[2], vec![b"a".to_vec(), b"bc".to_vec()]).unwrap();
        assert_eq!(row(&t, 1).unwrap().as_strings().unwrap(), &[b"bc".to_vec()]);
        let n = Tensor::from_slice(&[2, 2], &[1i64, 2, 3, 4]).unwrap();
        assert_eq!(row(&n, 1).unwrap().as_slice::<i64>().unwrap(), &[3, 4]);
        let p = Pipeline::new(None);
        let ctx = p.ctx();
        let mut it = Arc::new(Count(5)).make_iter(&ctx).unwrap();
        assert_eq!(drain(&mut *it, &ctx), vec![0, 1, 2, 3, 4]);
    }
}
