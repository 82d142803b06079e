//! What a kernel is and what it sees while it runs (TF's `OpKernel` and
//! `OpKernelContext`): the values on graph edges ([`Value`]), the intra-op threads
//! ([`ExecEnv`]), a node's inputs and outputs ([`OpContext`]). How kernels are built
//! and registered is the kernel layer's ([`crate::kernels`]).
use std::any::Any;
use std::sync::Arc;

use parking_lot::Mutex;
use smallvec::SmallVec;

use crate::error::{Code, Error, Result};
use crate::framework::rendezvous::ReadyCallback;
use crate::framework::resource::Var;
use crate::framework::step::Wait;
use crate::tensor::Tensor;

/// Elements per piece below which an elementwise pass stays on one thread: a pass over
/// 64 K floats takes ~10 us, the cost of waking a worker is a few us.
pub const PARALLEL_MIN: usize = 1 << 16;

/// A value flowing along a graph edge: a tensor, or a reference to a variable
/// (TF-1.x ref edges, dereferenced by each consumer when it runs).
#[derive(Clone)]
pub enum Value {
    /// A tensor.
    Tensor(Tensor),
    /// A variable reference.
    Ref(Arc<Var>),
    /// A handle to a session resource (a queue).
    Resource(Arc<dyn Any + Send + Sync>),
}

impl Value {
    /// The tensor, reading the variable's current value for a reference.
    pub fn into_tensor(self) -> Result<Tensor> {
        match self {
            Value::Tensor(t) => Ok(t),
            Value::Ref(v) => v.read(),
            Value::Resource(_) => {
                Err(Error::invalid_argument("a resource handle cannot be fetched or used as a tensor"))
            }
        }
    }
}

/// Threads a kernel may split large work across (the session's intra-op pool).
pub struct ExecEnv {
    /// The intra-op pool, absent when the session runs single-threaded.
    pub intra_pool: Option<Arc<rayon::ThreadPool>>,
}

impl ExecEnv {
    /// No intra-op pool: every kernel runs on the calling thread.
    pub const SINGLE_THREADED: ExecEnv = ExecEnv { intra_pool: None };

    /// Number of intra-op threads available (1 without a pool).
    pub fn intra_threads(&self) -> usize {
        self.intra_pool.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// Runs `f(offset, chunk)` over `data` cut into contiguous chunks (each a multiple
    /// of `align` elements, except the last) on the intra-op pool. Data shorter than
    /// two chunks of `min_chunk` runs as one call on this thread: splitting only pays
    /// once each piece outweighs the cost of waking a worker.
    pub fn for_each_chunk<T: Send>(
        &self,
        data: &mut [T],
        min_chunk: usize,
        align: usize,
        f: impl Fn(usize, &mut [T]) + Sync,
    ) {
        let n = data.len();
        let pieces = (n / min_chunk.max(1)).min(self.intra_threads() * 4);
        if self.intra_pool.is_none() || pieces < 2 {
            f(0, data);
            return;
        }
        let align = align.max(1);
        let len = n.div_ceil(pieces).div_ceil(align) * align;
        let chunks: Vec<Mutex<Option<&mut [T]>>> = data.chunks_mut(len).map(|c| Mutex::new(Some(c))).collect();
        self.run_pieces(chunks.len(), |i| {
            if let Some(c) = chunks[i].lock().take() {
                f(i * len, c);
            }
        });
    }

    /// Runs `f(0)`, ..., `f(pieces - 1)` on this thread and idle intra-op workers (in
    /// order on this thread without a pool). The calling thread runs no other job while
    /// it waits, so a kernel may split its work while holding a variable's lock.
    pub fn run_pieces(&self, pieces: usize, f: impl Fn(usize) + Sync) {
        match &self.intra_pool {
            Some(pool) => crate::framework::pool::run_pieces(pool, pieces, &f),
            None => (0..pieces).for_each(f),
        }
    }

    /// Runs `f(rows, parts)` over blocks of `rows` rows on the intra-op pool, where
    /// `parts[j]` is `outs[j]`'s share of the block (`outs[j]` holds `widths[j]`
    /// elements per row): kernels writing several row-major outputs of one batch (a
    /// loss and its backprop, an LSTM step's seven). Fewer than
    /// [`PARALLEL_MIN`] elements in all run as one block on this thread.
    pub fn for_each_row_block<'a, T: Send + 'a>(
        &self,
        outs: impl IntoIterator<Item = &'a mut [T]>,
        widths: &[usize],
        rows: usize,
        f: impl Fn(std::ops::Range<usize>, &mut [&mut [T]]) + Sync,
    ) {
        let total = widths.iter().sum::<usize>().saturating_mul(rows);
        let pieces = (total / PARALLEL_MIN).clamp(1, self.intra_threads() * 4).min(rows.max(1));
        // On the stack for up to 8 outputs: the one-thread path allocates nothing.
        let mut outs: smallvec::SmallVec<[&mut [T]; 8]> = outs.into_iter().collect();
        if self.intra_pool.is_none() || pieces < 2 {
            f(0..rows, &mut outs[..]);
            return;
        }
        let per = rows.div_ceil(pieces);
        // Each block's rows, taken once by whichever thread runs the block.
        let mut splits: Vec<_> = outs.into_iter().zip(widths).map(|(o, &w)| o.chunks_mut((w * per).max(1))).collect();
        let blocks: Vec<Mutex<Option<Vec<&mut [T]>>>> = (0..rows.div_ceil(per))
            .map(|_| Mutex::new(Some(splits.iter_mut().filter_map(Iterator::next).collect())))
            .collect();
        self.run_pieces(blocks.len(), |i| {
            if let Some(mut parts) = blocks[i].lock().take() {
                f(i * per..((i + 1) * per).min(rows), &mut parts);
            }
        });
    }

    /// As [`for_each_chunk`](Self::for_each_chunk) over `N` equally long slices cut at
    /// the same offsets (a parameter and its optimizer slots).
    pub fn for_each_chunk_n<T: Send, const N: usize>(
        &self,
        parts: [&mut [T]; N],
        min_chunk: usize,
        f: impl Fn(usize, [&mut [T]; N]) + Sync,
    ) {
        let n = parts.first().map_or(0, |p| p.len());
        debug_assert!(parts.iter().all(|p| p.len() == n));
        let pieces = (n / min_chunk.max(1)).min(self.intra_threads() * 4);
        if self.intra_pool.is_none() || pieces < 2 {
            f(0, parts);
            return;
        }
        let len = n.div_ceil(pieces);
        let mut rest: [Option<&mut [T]>; N] = parts.map(Some);
        let mut chunks = Vec::with_capacity(pieces);
        let mut offset = 0;
        while offset < n {
            let take = len.min(n - offset);
            let mut heads: [Option<&mut [T]>; N] = std::array::from_fn(|_| None);
            for (head, tail) in heads.iter_mut().zip(rest.iter_mut()) {
                let (h, t) = tail.take().unwrap_or_default().split_at_mut(take);
                *head = Some(h);
                *tail = Some(t);
            }
            chunks.push(Mutex::new(Some((offset, heads.map(Option::unwrap_or_default)))));
            offset += take;
        }
        self.run_pieces(chunks.len(), |i| {
            if let Some((off, c)) = chunks[i].lock().take() {
                f(off, c);
            }
        });
    }
}

/// What a kernel sees while it runs: its inputs (owned, so a last consumer may reuse
/// a buffer in place) and the outputs it must set.
pub struct OpContext<'a> {
    inputs: SmallVec<[Option<Value>; 4]>,
    outputs: SmallVec<[Option<Value>; 2]>,
    /// Threads for intra-op parallelism.
    pub env: &'a ExecEnv,
    /// The run's deadline and the session's cancellation flag, for blocking kernels.
    pub wait: Wait<'a>,
}

fn missing(i: usize) -> Error {
    Error::new(Code::Internal, format!("kernel input {i} is missing"))
}

impl<'a> OpContext<'a> {
    /// A context over `inputs` expecting `num_outputs` outputs.
    pub fn new(inputs: SmallVec<[Option<Value>; 4]>, num_outputs: usize, env: &'a ExecEnv, wait: Wait<'a>) -> Self {
        OpContext { inputs, outputs: smallvec::smallvec![None; num_outputs], env, wait }
    }
    /// Number of outputs the node declares.
    pub fn num_outputs(&self) -> usize {
        self.outputs.len()
    }
    /// Number of inputs.
    pub fn num_inputs(&self) -> usize {
        self.inputs.len()
    }
    /// Input `i` as a tensor.
    pub fn input(&self, i: usize) -> Result<&Tensor> {
        match self.inputs.get(i).and_then(Option::as_ref) {
            Some(Value::Tensor(t)) => Ok(t),
            Some(Value::Ref(_)) => Err(Error::new(Code::Internal, format!("kernel input {i} is a reference"))),
            Some(Value::Resource(_)) => Err(Error::invalid_argument(format!("input {i} is a resource handle"))),
            None => Err(missing(i)),
        }
    }
    /// Whether input `i` has a value (a dead input has none).
    pub fn has_input(&self, i: usize) -> bool {
        self.inputs.get(i).is_some_and(Option::is_some)
    }
    /// Takes input `i` out of the context (so its buffer can be reused when unique).
    pub fn take_input(&mut self, i: usize) -> Result<Tensor> {
        match self.inputs.get_mut(i).and_then(Option::take) {
            Some(v) => v.into_tensor(),
            None => Err(missing(i)),
        }
    }
    /// Takes input `i` as it flows (tensor, reference or resource handle), for kernels
    /// that pass values on unchanged (device copies between host-memory devices).
    pub fn take_value(&mut self, i: usize) -> Result<Value> {
        self.inputs.get_mut(i).and_then(Option::take).ok_or_else(|| missing(i))
    }
    /// Input `i` as it flows, shared (a captured tensor a kernel keeps).
    pub fn input_value(&self, i: usize) -> Result<Value> {
        self.inputs.get(i).and_then(Option::as_ref).cloned().ok_or_else(|| missing(i))
    }
    /// Sets output `i` to a value as it flows.
    pub fn set_value_output(&mut self, i: usize, v: Value) {
        self.outputs[i] = Some(v);
    }
    /// Input `i` as a variable reference.
    pub fn ref_input(&self, i: usize) -> Result<&Arc<Var>> {
        match self.inputs.get(i).and_then(Option::as_ref) {
            Some(Value::Ref(v)) => Ok(v),
            _ => Err(Error::new(Code::Internal, format!("kernel input {i} is not a reference"))),
        }
    }
    /// Input `i` as a handle to a resource of type `T`.
    pub fn resource_input<T: Any + Send + Sync>(&self, i: usize) -> Result<Arc<T>> {
        match self.inputs.get(i).and_then(Option::as_ref) {
            Some(Value::Resource(r)) => Arc::clone(r)
                .downcast::<T>()
                .map_err(|_| Error::invalid_argument(format!("input {i} is a handle to another kind of resource"))),
            Some(_) => Err(Error::invalid_argument(format!("input {i} is not a resource handle"))),
            None => Err(missing(i)),
        }
    }
    /// Sets output `i` to a resource handle.
    pub fn set_resource_output(&mut self, i: usize, r: Arc<dyn Any + Send + Sync>) {
        self.outputs[i] = Some(Value::Resource(r));
    }
    /// Takes back output `i` a kernel set (a wrapping kernel's epilogue works on it).
    pub fn take_output_tensor(&mut self, i: usize) -> Result<Tensor> {
        match self.outputs.get_mut(i).and_then(Option::take) {
            Some(v) => v.into_tensor(),
            None => Err(Error::new(Code::Internal, format!("output {i} was not set"))),
        }
    }

    /// Sets output `i` to a tensor.
    pub fn set_output(&mut self, i: usize, t: Tensor) {
        self.outputs[i] = Some(Value::Tensor(t));
    }
    /// Sets output `i` to a variable reference.
    pub fn set_ref_output(&mut self, i: usize, v: Arc<Var>) {
        self.outputs[i] = Some(Value::Ref(v));
    }
    /// The outputs as set; an unset one is dead (a `Switch`'s untaken side).
    pub(crate) fn into_outputs_allow_dead(self) -> SmallVec<[Option<Value>; 2]> {
        self.outputs
    }
    /// The outputs; every one must have been set.
    pub fn into_outputs(self) -> Result<SmallVec<[Option<Value>; 2]>> {
        if let Some(i) = self.outputs.iter().position(Option::is_none) {
            return Err(Error::new(Code::Internal, format!("kernel did not set output {i}")));
        }
        Ok(self.outputs)
    }
}

/// A node's compiled CPU kernel.
pub trait OpKernel: Send + Sync {
    /// Computes the outputs from the inputs.
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()>;
    /// Whether the kernel may block waiting on other steps (queues); the executor never
    /// runs those inline on a thread others depend on.
    fn is_blocking(&self) -> bool {
        false
    }
    /// For a blocking kernel whose nonblocking attempt would block: calls `ready` once
    /// another attempt may get further, and returns `true` (the executor parks the
    /// step meanwhile, TF's asynchronous kernel); `false` where it cannot tell, and the
    /// step waits on a thread of its own.
    fn notify_when_ready(&self, ctx: &OpContext<'_>, ready: ReadyCallback) -> bool {
        let _ = (ctx, ready);
        false
    }
}

/// A kernel defined by a plain function (for ops with no per-node state).
pub struct FnKernel(pub fn(&mut OpContext<'_>) -> Result<()>);

impl OpKernel for FnKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        (self.0)(ctx)
    }
}

/// Boxes a stateless kernel function (the common kernel factory).
pub(crate) fn stateless(f: fn(&mut OpContext<'_>) -> Result<()>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(FnKernel(f)))
}
