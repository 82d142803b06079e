//! What one step of a run carries down to its kernels: how long a blocked kernel may
//! wait and what cancels it ([`Wait`]), the step's rendezvous, and where the step is in
//! its loops ([`LoopFrame`]).
use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use parking_lot::Mutex;

use crate::framework::cancel::RunCancellation;
use crate::framework::output::NodeId;
use crate::framework::rendezvous::Rendezvous;

/// How long a blocked operation may wait, and what cancels it.
#[derive(Clone, Copy)]
pub struct Wait<'a> {
    /// When the run's deadline (`RunOptions.timeout_in_ms`) expires.
    pub deadline: Option<Instant>,
    /// Set when the session closes; blocked operations then fail with `Cancelled`.
    pub closed: &'a AtomicBool,
    /// The run's cancellation: set when another step of the same run failed (the run is
    /// over, so blocked operations fail with `Cancelled` and the run reports the first
    /// error) or the caller was interrupted. A blocked operation registers with it.
    pub run: &'a RunCancellation<'a>,
    /// Fail with [`Error::would_block`](crate::error::Error::would_block) instead of
    /// waiting, before changing anything (the executor then finishes the operation
    /// where its wait delays no other step).
    pub nonblocking: bool,
    /// The step's rendezvous, where `_Send`/`_Recv` kernels exchange tensors (set by
    /// the executor for runs whose plan has such nodes).
    pub rendezvous: Option<&'a dyn Rendezvous>,
    /// Where the step is in its loops.
    pub loops: LoopFrame<'a>,
}

impl Wait<'_> {
    /// Whether a blocked operation must give up now.
    pub fn is_cancelled(&self) -> bool {
        self.closed.load(Ordering::Acquire) || self.run.is_cancelled()
    }
}

/// A step's loop tapes (what a forward loop kept for its gradient), by forward `While`
/// node and the iterations of the loops around it ([`LoopFrame::path`]); dropped with
/// the step. The loop kernels own the tape's type: here it is only stored.
#[derive(Default)]
pub struct Tapes(Mutex<HashMap<TapeKey, Arc<dyn Any + Send + Sync>>>);

/// A forward loop node and the iterations of the loops around it.
type TapeKey = (NodeId, Vec<u32>);

impl Tapes {
    /// Keeps `tape` for loop `node` at `path`.
    pub fn put<T: Any + Send + Sync>(&self, node: NodeId, path: &[u32], tape: T) {
        self.0.lock().insert((node, path.to_vec()), Arc::new(tape));
    }
    /// The tape kept for loop `node` at `path`, if it is a `T`.
    pub fn get<T: Any + Send + Sync>(&self, node: NodeId, path: &[u32]) -> Option<Arc<T>> {
        let tape = self.0.lock().get(&(node, path.to_vec())).cloned()?;
        tape.downcast::<T>().ok()
    }
}

/// Where a step is in its loops: what a `While` kernel passes down to the sub-plans
/// it runs.
#[derive(Clone, Copy, Default)]
pub struct LoopFrame<'a> {
    /// The step's tapes (none where the step keeps none: gradients then re-run the
    /// forward loop).
    pub tapes: Option<&'a Tapes>,
    /// The iteration of each enclosing loop, outermost first.
    pub path: &'a [u32],
    /// Whether an enclosing loop records its tape, so loops inside it record theirs
    /// (their gradients run inside its gradient).
    pub record: bool,
}
