//! Queues: TF's `FIFOQueue`, `PaddingFIFOQueue`, `RandomShuffleQueue` and
//! `PriorityQueue` as session resources, with blocking enqueue/dequeue that honour a
//! deadline and session cancellation, and TF's close semantics.
//!
//! As in TF's `QueueBase`, enqueue attempts and dequeue attempts each wait in a line
//! and are served in arrival order: the head of a line makes progress element by
//! element (so `dequeue_many(n)` works with a capacity below `n`, and the elements of
//! one `enqueue_many` stay together), and `close` joins the end of the enqueue line,
//! so enqueues already waiting complete before the queue counts as closed. Closing
//! with `cancel_pending_enqueues` fails the waiting enqueues instead.
//!
//! Each waiting attempt sleeps on a condition variable of its own, and a change wakes
//! only the attempt that can act on it: the head of a line (the dequeuer at the head
//! only once its whole request can be met, or the queue is full). Cancellation and
//! closing with `cancel_pending_enqueues` wake every waiter.
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Condvar, Mutex, MutexGuard};
use smallvec::SmallVec;

use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::framework::cancel::{Wake, cancelled};
use crate::framework::resource::{Resource, ResourceMgr};
use crate::framework::step::Wait;
use crate::random::Philox;
use crate::shape::{PartialShape, fmt_shape};
use crate::tensor::Tensor;

/// One queue element: a tensor per component (inline for up to two components, so
/// an element costs no allocation of its own).
pub type Element = SmallVec<[Tensor; 2]>;

/// The order in which elements leave the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueKind {
    /// First in, first out.
    Fifo,
    /// First in, first out; `dequeue_many` pads components of differing shapes.
    PaddingFifo,
    /// A uniformly random element, once more than `min_after_dequeue` are held (or the
    /// queue is closed).
    RandomShuffle {
        /// Elements that must stay behind after a dequeue while the queue is open.
        min_after_dequeue: usize,
        /// Op-level seed.
        seed: i64,
        /// Graph-level seed.
        seed2: i64,
    },
    /// Smallest int64 priority (component 0) first.
    Priority,
}

impl QueueKind {
    /// TF's class name, used in error messages.
    pub fn class_name(self) -> &'static str {
        match self {
            QueueKind::Fifo => "FIFOQueue",
            QueueKind::PaddingFifo => "PaddingFIFOQueue",
            QueueKind::RandomShuffle { .. } => "RandomShuffleQueue",
            QueueKind::Priority => "PriorityQueue",
        }
    }
}

/// What a queue holds and how it orders it.
#[derive(Clone, Debug)]
pub struct QueueSpec {
    /// The queue's order.
    pub kind: QueueKind,
    /// The queue op's name (TF's messages quote it).
    pub name: String,
    /// Component dtypes (a priority queue's first is its int64 priority).
    pub dtypes: Vec<DType>,
    /// Component shapes; empty when the queue was created without shapes.
    pub shapes: Vec<PartialShape>,
    /// The most elements held at once; `None` for unbounded.
    pub capacity: Option<usize>,
}

/// The elements in their leaving order.
enum Store {
    Fifo(VecDeque<Element>),
    Shuffle(Vec<Element>, Philox),
    // Ties leave in arrival order (the sequence number).
    Priority(BinaryHeap<Reverse<(i64, u64, Prioritized)>>, u64),
}

/// An element ordered only by its key in the heap.
struct Prioritized(Element);
impl PartialEq for Prioritized {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for Prioritized {}
impl PartialOrd for Prioritized {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Prioritized {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

fn priority_of(e: &Element) -> i64 {
    e.first().and_then(|t| t.scalar_value::<i64>().ok()).unwrap_or(0)
}

impl Store {
    fn len(&self) -> usize {
        match self {
            Store::Fifo(q) => q.len(),
            Store::Shuffle(v, _) => v.len(),
            Store::Priority(h, _) => h.len(),
        }
    }
    fn push(&mut self, e: Element) {
        match self {
            Store::Fifo(q) => q.push_back(e),
            Store::Shuffle(v, _) => v.push(e),
            Store::Priority(h, seq) => {
                *seq += 1;
                h.push(Reverse((priority_of(&e), *seq, Prioritized(e))));
            }
        }
    }
    fn pop(&mut self) -> Option<Element> {
        match self {
            Store::Fifo(q) => q.pop_front(),
            Store::Shuffle(v, rng) => {
                if v.is_empty() {
                    return None;
                }
                #[allow(clippy::cast_possible_truncation)]
                let i = ((u64::from(rng.next_block()[0]) * v.len() as u64) >> 32) as usize;
                Some(v.swap_remove(i))
            }
            Store::Priority(h, _) => h.pop().map(|Reverse((_, _, Prioritized(e)))| e),
        }
    }
    /// Puts back elements a failed `dequeue_many` took, so they leave first again.
    fn restore(&mut self, taken: Vec<Element>) {
        match self {
            Store::Fifo(q) => {
                for e in taken.into_iter().rev() {
                    q.push_front(e);
                }
            }
            Store::Shuffle(v, _) => v.extend(taken),
            Store::Priority(h, _) => {
                // Sequence 0 sorts restored elements before later arrivals of equal priority.
                h.extend(taken.into_iter().map(|e| Reverse((priority_of(&e), 0, Prioritized(e)))));
            }
        }
    }
}

/// An attempt waiting in a line, and what wakes it.
struct Waiter {
    ticket: u64,
    wake: Arc<Condvar>,
}

/// A line of waiting attempts, served in arrival order.
#[derive(Default)]
struct Line(VecDeque<Waiter>);

impl Line {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn is_head(&self, ticket: u64) -> bool {
        self.0.front().is_some_and(|w| w.ticket == ticket)
    }
    /// Joins the end of the line; what wakes the new waiter.
    fn join(&mut self, ticket: u64) -> Arc<Condvar> {
        let wake = Arc::new(Condvar::new());
        self.0.push_back(Waiter { ticket, wake: Arc::clone(&wake) });
        wake
    }
    /// Takes `ticket` out of the line and wakes whoever is at its head now.
    fn leave(&mut self, ticket: u64) {
        if let Some(i) = self.0.iter().position(|w| w.ticket == ticket) {
            self.0.remove(i);
        }
        self.wake_head();
    }
    /// Wakes the attempt at the head of the line (the only one that can progress).
    fn wake_head(&self) {
        if let Some(w) = self.0.front() {
            w.wake.notify_one();
        }
    }
    /// Wakes every waiting attempt (to see a cancellation).
    fn wake_all(&self) {
        for w in &self.0 {
            w.wake.notify_one();
        }
    }
}

struct State {
    store: Store,
    closed: bool,
    next_ticket: u64,
    enqueuers: Line,
    dequeuers: Line,
    /// Enqueue attempts with a smaller ticket were cancelled by `close(cancel_pending_enqueues)`.
    cancel_below: u64,
    /// The size at which the sleeping head of the dequeue line can make progress
    /// (0 when none sleeps): enqueuers wake it only then, not once per element.
    wake_dequeuer_at: usize,
}

impl State {
    fn ticket(&mut self) -> u64 {
        self.next_ticket += 1;
        self.next_ticket
    }
}

/// A queue resource.
pub struct Queue {
    spec: QueueSpec,
    state: Mutex<State>,
}

impl Queue {
    /// A new, empty, open queue.
    pub fn new(spec: QueueSpec) -> Result<Queue> {
        if let QueueKind::RandomShuffle { min_after_dequeue, .. } = spec.kind
            && let Some(capacity) = spec.capacity.filter(|&c| min_after_dequeue >= c)
        {
            // TF's message, from the kernel that makes the queue.
            ff_bail!(InvalidArgument, "min_after_dequeue {min_after_dequeue} must be < capacity {capacity}");
        }
        if !spec.shapes.is_empty() && spec.shapes.len() != spec.dtypes.len() {
            ff_bail!(
                InvalidArgument,
                "{} '{}': {} shapes for {} components",
                spec.kind.class_name(),
                spec.name,
                spec.shapes.len(),
                spec.dtypes.len()
            );
        }
        let store = match spec.kind {
            QueueKind::Fifo | QueueKind::PaddingFifo => Store::Fifo(VecDeque::new()),
            QueueKind::RandomShuffle { seed, seed2, .. } => {
                #[allow(clippy::cast_sign_loss)]
                let (s1, s2) = if seed == 0 && seed2 == 0 { entropy_seeds() } else { (seed as u64, seed2 as u64) };
                Store::Shuffle(Vec::new(), Philox::new(s1, s2))
            }
            QueueKind::Priority => Store::Priority(BinaryHeap::new(), 0),
        };
        let state = State {
            store,
            closed: false,
            next_ticket: 0,
            enqueuers: Line::default(),
            dequeuers: Line::default(),
            cancel_below: 0,
            wake_dequeuer_at: 0,
        };
        Ok(Queue { spec, state: Mutex::new(state) })
    }

    /// What the queue holds.
    pub fn spec(&self) -> &QueueSpec {
        &self.spec
    }

    /// Number of elements held.
    pub fn size(&self) -> usize {
        self.state.lock().store.len()
    }

    /// Whether the queue was closed.
    pub fn is_closed(&self) -> bool {
        self.state.lock().closed
    }

    fn name(&self) -> String {
        format!("{} '{}'", self.spec.kind.class_name(), self.spec.name)
    }

    /// Checks one element's components against the queue's dtypes and shapes.
    pub fn check_element(&self, components: &[Tensor]) -> Result<()> {
        if components.len() != self.spec.dtypes.len() {
            ff_bail!(
                InvalidArgument,
                "Wrong number of components in tuple. Expected {}, got {}",
                self.spec.dtypes.len(),
                components.len()
            );
        }
        for (i, (t, &d)) in components.iter().zip(&self.spec.dtypes).enumerate() {
            if t.dtype() != d {
                ff_bail!(InvalidArgument, "Type mismatch in tuple component {i}. Expected {}, got {}", d, t.dtype());
            }
            if let Some(s) = self.spec.shapes.get(i)
                && !s.is_compatible_with(t.shape())
            {
                ff_bail!(
                    InvalidArgument,
                    "Shape mismatch in tuple component {i}. Expected {}, got {}",
                    s,
                    fmt_shape(t.shape())
                );
            }
        }
        if self.spec.kind == QueueKind::Priority && !components[0].shape().is_empty() {
            ff_bail!(InvalidArgument, "Expected the priority (component 0) to be a scalar");
        }
        Ok(())
    }

    /// Waits on `cv` once (the caller re-checks its condition), registered with the
    /// run's cancellation so that a failing step of the same run wakes it; a run that
    /// may be interrupted wakes every [`INTERRUPT_POLL`](crate::framework::cancel::INTERRUPT_POLL)
    /// to check, with the queue unlocked.
    fn block(
        self: &Arc<Self>,
        cv: &Condvar,
        state: &mut MutexGuard<'_, State>,
        wait: Wait<'_>,
        what: &str,
    ) -> Result<()> {
        let _registered = wait.run.register(Arc::clone(self) as Arc<dyn Wake>);
        if wait.is_cancelled() {
            return Err(cancelled(what));
        }
        match wait.run.wake_time(wait.deadline) {
            Some(t) => {
                if cv.wait_until(state, t).timed_out() {
                    if wait.deadline.is_some_and(|d| Instant::now() >= d) {
                        return Err(Error::new(Code::DeadlineExceeded, "Timed out waiting for notification"));
                    }
                    // Never hold the queue's lock while the check takes the GIL.
                    MutexGuard::unlocked(state, || wait.run.poll_interrupt())?;
                }
            }
            None => cv.wait(state),
        }
        Ok(())
    }

    /// Adds `elements` (already checked) in order, waiting for room and for earlier
    /// enqueue attempts. Fails with `Cancelled` if the queue is closed first.
    pub fn enqueue(self: &Arc<Self>, elements: Vec<Element>, wait: Wait<'_>) -> Result<()> {
        if elements.is_empty() {
            // TF completes an empty enqueue_many at once, even on a closed queue.
            return Ok(());
        }
        let capacity = self.spec.capacity.unwrap_or(usize::MAX);
        let mut st = self.state.lock();
        // The common case, uncontended: take the turn and leave at once.
        if st.enqueuers.is_empty() && !st.closed && st.store.len() + elements.len() <= capacity {
            for e in elements {
                st.store.push(e);
            }
            self.wake_dequeuers(&st);
            return Ok(());
        }
        if wait.nonblocking {
            return Err(Error::would_block());
        }
        let ticket = st.ticket();
        let wake = st.enqueuers.join(ticket);
        let mut pending = elements.into_iter().peekable();
        loop {
            if ticket < st.cancel_below {
                return Err(self.leave_enqueue_line(&mut st, ticket, cancelled_enqueue()));
            }
            if st.enqueuers.is_head(ticket) {
                if st.closed {
                    st.enqueuers.leave(ticket);
                    return Err(Error::new(Code::Cancelled, format!("{} is closed.", self.name())));
                }
                let mut added = false;
                while st.store.len() < capacity {
                    let Some(e) = pending.next() else { break };
                    st.store.push(e);
                    added = true;
                }
                if added {
                    self.wake_dequeuers(&st);
                }
                if pending.peek().is_none() {
                    st.enqueuers.leave(ticket);
                    return Ok(());
                }
            }
            if let Err(e) = self.block(&wake, &mut st, wait, "Enqueue") {
                return Err(self.leave_enqueue_line(&mut st, ticket, e));
            }
        }
    }

    /// Wakes the head of the dequeue line if what it waits for is there now.
    fn wake_dequeuers(&self, st: &State) {
        if st.store.len() >= st.wake_dequeuer_at {
            st.dequeuers.wake_head();
        }
    }

    /// Elements that must stay behind after a dequeue while the queue is open.
    fn reserve(&self) -> usize {
        match self.spec.kind {
            QueueKind::RandomShuffle { min_after_dequeue, .. } => min_after_dequeue,
            _ => 0,
        }
    }

    /// Elements a dequeue must leave behind now (none once the queue is closed).
    fn held_back(&self, st: &State) -> usize {
        if st.closed { 0 } else { self.reserve() }
    }

    fn can_take(&self, st: &State) -> bool {
        st.store.len() > self.held_back(st)
    }

    /// Takes `ticket` out of the enqueue line (an attempt that failed with `error`)
    /// and lets the next attempt go; returns `error`.
    fn leave_enqueue_line(&self, st: &mut State, ticket: u64, error: Error) -> Error {
        st.enqueuers.leave(ticket);
        error
    }

    /// Removes `n` elements, waiting for them and for earlier dequeue attempts. When
    /// the queue is closed with fewer left, fails with `OutOfRange`, or with
    /// `allow_smaller` returns what is left (at least one element).
    pub fn dequeue(self: &Arc<Self>, n: usize, allow_smaller: bool, wait: Wait<'_>) -> Result<Vec<Element>> {
        let mut st = self.state.lock();
        if n == 0 {
            return Ok(Vec::new());
        }
        // The common case, uncontended: all `n` are there; take them and leave at once.
        if st.dequeuers.is_empty() && st.store.len().saturating_sub(self.held_back(&st)) >= n {
            let taken: Vec<Element> = (0..n).filter_map(|_| st.store.pop()).collect();
            st.enqueuers.wake_head();
            return Ok(taken);
        }
        if wait.nonblocking {
            return Err(Error::would_block());
        }
        let ticket = st.ticket();
        let wake = st.dequeuers.join(ticket);
        let mut taken: Vec<Element> = Vec::with_capacity(n.min(1024));
        loop {
            if st.dequeuers.is_head(ticket) {
                let before = taken.len();
                while taken.len() < n && self.can_take(&st) {
                    taken.extend(st.store.pop());
                }
                if taken.len() > before {
                    st.enqueuers.wake_head();
                }
                if taken.len() == n {
                    st.wake_dequeuer_at = 0;
                    st.dequeuers.leave(ticket);
                    return Ok(taken);
                }
                if st.closed {
                    st.wake_dequeuer_at = 0;
                    st.dequeuers.leave(ticket);
                    if allow_smaller && !taken.is_empty() {
                        return Ok(taken);
                    }
                    let held = st.store.len() + taken.len();
                    st.store.restore(taken);
                    return Err(Error::new(
                        Code::OutOfRange,
                        format!(
                            "{} is closed and has insufficient elements (requested {n}, current size {held})",
                            self.name()
                        ),
                    ));
                }
                // Sleep until the rest can be taken, or the queue is full (a batch
                // larger than the capacity is taken as it comes).
                let capacity = self.spec.capacity.unwrap_or(usize::MAX);
                st.wake_dequeuer_at = (self.reserve() + n - taken.len()).min(capacity);
            }
            let blocked = self.block(&wake, &mut st, wait, "Dequeue");
            if st.dequeuers.is_head(ticket) {
                st.wake_dequeuer_at = 0;
            }
            if let Err(e) = blocked {
                st.store.restore(std::mem::take(&mut taken));
                // The next dequeuer (now the head) sees what was put back.
                st.dequeuers.leave(ticket);
                return Err(e);
            }
        }
    }

    /// Closes the queue once the enqueue attempts already waiting are done (closing a
    /// closed queue that way is a `Cancelled` error, as in TF). With
    /// `cancel_pending_enqueues` it closes at once and fails every waiting enqueue
    /// attempt, a waiting plain close included, with `Cancelled`; that never errs.
    pub fn close(self: &Arc<Self>, cancel_pending_enqueues: bool, wait: Wait<'_>) -> Result<()> {
        let mut st = self.state.lock();
        if cancel_pending_enqueues {
            st.cancel_below = st.next_ticket + 1;
            st.closed = true;
            st.enqueuers.wake_all();
            st.dequeuers.wake_head();
            return Ok(());
        }
        if wait.nonblocking && !st.enqueuers.is_empty() {
            return Err(Error::would_block());
        }
        let ticket = st.ticket();
        let wake = st.enqueuers.join(ticket);
        loop {
            if ticket < st.cancel_below {
                return Err(self.leave_enqueue_line(&mut st, ticket, cancelled_enqueue()));
            }
            if st.enqueuers.is_head(ticket) {
                st.enqueuers.leave(ticket);
                if std::mem::replace(&mut st.closed, true) {
                    return Err(Error::new(Code::Cancelled, format!("Queue '{}' is already closed.", self.spec.name)));
                }
                // The dequeuers learn it one after another, each from the one before.
                st.dequeuers.wake_head();
                return Ok(());
            }
            if let Err(e) = self.block(&wake, &mut st, wait, "Close") {
                return Err(self.leave_enqueue_line(&mut st, ticket, e));
            }
        }
    }

    /// Wakes every blocked caller to re-check its cancellation flag (session close).
    pub fn wake_all(&self) {
        let st = self.state.lock();
        st.enqueuers.wake_all();
        st.dequeuers.wake_all();
    }
}

impl Wake for Queue {
    fn wake(&self) {
        self.wake_all();
    }
}

fn cancelled_enqueue() -> Error {
    Error::new(Code::Cancelled, "Enqueue operation was cancelled")
}

/// Seeds for a shuffle queue created without any (TF then seeds from entropy): each
/// `RandomState` is keyed randomly.
fn entropy_seeds() -> (u64, u64) {
    use std::hash::{BuildHasher, Hasher};
    let draw = || std::collections::hash_map::RandomState::new().build_hasher().finish();
    (draw(), draw())
}

impl Resource for Queue {
    fn wake_blocked(&self) {
        self.wake_all();
    }
}

impl Queue {
    /// The queue `container/name`, created from `spec` on first use. A queue shared
    /// under that name must have the same component types, shapes and capacity.
    pub fn shared(resources: &ResourceMgr, container: &str, name: &str, spec: QueueSpec) -> Result<Arc<Queue>> {
        let q = resources.lookup_or_create(container, name, || Queue::new(spec.clone()))?;
        let have = q.spec();
        // TF's `QueueBase::MatchesNodeDef*` checks, in its order and words.
        if have.kind.class_name() != spec.kind.class_name() {
            ff_bail!(
                InvalidArgument,
                "Shared queue '{name}' has type '{}' that does not match type of Node '{}': {}",
                have.kind.class_name(),
                spec.name,
                spec.kind.class_name()
            );
        }
        let capacity = |c: Option<usize>| c.map_or(-1, |c| i64::try_from(c).unwrap_or(i64::MAX));
        if have.capacity != spec.capacity {
            ff_bail!(
                InvalidArgument,
                "Shared queue '{name}' has capacity {} but requested capacity was {}",
                capacity(have.capacity),
                capacity(spec.capacity)
            );
        }
        let types = |d: &[DType]| d.iter().map(|t| t.cpp_name()).collect::<Vec<_>>().join(", ");
        if have.dtypes != spec.dtypes {
            ff_bail!(
                InvalidArgument,
                "Shared queue '{name}' has component types {} but requested component types were {}",
                types(&have.dtypes),
                types(&spec.dtypes)
            );
        }
        let shapes =
            |s: &[PartialShape]| format!("[{}]", s.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "));
        if have.shapes != spec.shapes {
            ff_bail!(
                InvalidArgument,
                "Shared queue '{name}' has component shapes {} but requested component shapes were {}",
                shapes(&have.shapes),
                shapes(&spec.shapes)
            );
        }
        Ok(q)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::framework::cancel::RunCancellation;

    static NEVER: AtomicBool = AtomicBool::new(false);
    static NO_RUN: std::sync::LazyLock<RunCancellation<'static>> =
        std::sync::LazyLock::new(|| RunCancellation::new(None));
    fn forever() -> Wait<'static> {
        Wait {
            deadline: None,
            closed: &NEVER,
            run: &NO_RUN,
            nonblocking: false,
            rendezvous: None,
            loops: Default::default(),
        }
    }

    fn queue(kind: QueueKind, capacity: Option<usize>) -> Arc<Queue> {
        let spec = QueueSpec {
            kind,
            name: "q".into(),
            dtypes: vec![DType::Int64],
            shapes: vec![PartialShape::scalar()],
            capacity,
        };
        Arc::new(Queue::new(spec).unwrap())
    }
    fn el(v: i64) -> Element {
        smallvec::smallvec![Tensor::scalar(v)]
    }
    fn values(es: &[Element]) -> Vec<i64> {
        es.iter().map(|e| e[0].scalar_value::<i64>().unwrap()).collect()
    }
    fn soon() -> Wait<'static> {
        Wait { deadline: Some(Instant::now() + Duration::from_millis(50)), ..forever() }
    }

    #[test]
    fn fifo_order_close_and_out_of_range() {
        let q = queue(QueueKind::Fifo, Some(10));
        q.enqueue(vec![el(1), el(2), el(3)], forever()).unwrap();
        assert_eq!(values(&q.dequeue(2, false, forever()).unwrap()), [1, 2]);
        q.close(false, forever()).unwrap();
        assert_eq!(q.close(false, forever()).unwrap_err().code, Code::Cancelled);
        assert_eq!(q.enqueue(vec![el(4)], forever()).unwrap_err().code, Code::Cancelled);
        let e = q.dequeue(2, false, forever()).unwrap_err();
        assert_eq!(e.code, Code::OutOfRange);
        assert!(e.message.contains("requested 2, current size 1"), "{}", e.message);
        assert_eq!(values(&q.dequeue(2, true, forever()).unwrap()), [3]);
        assert_eq!(q.dequeue(1, true, forever()).unwrap_err().code, Code::OutOfRange);
    }

    #[test]
    fn dequeue_many_beyond_capacity_and_timeouts() {
        let q = queue(QueueKind::Fifo, Some(2));
        let q2 = Arc::clone(&q);
        let producer = std::thread::spawn(move || q2.enqueue((0..7).map(el).collect(), forever()));
        assert_eq!(values(&q.dequeue(5, false, forever()).unwrap()), [0, 1, 2, 3, 4]);
        producer.join().unwrap().unwrap();
        assert_eq!(q.dequeue(3, false, soon()).unwrap_err().code, Code::DeadlineExceeded);
        // The timed-out attempt put back what it took.
        assert_eq!(q.size(), 2);
        assert_eq!(q.enqueue(vec![el(7)], soon()).unwrap_err().code, Code::DeadlineExceeded, "full");
        assert_eq!(values(&q.dequeue(2, false, forever()).unwrap()), [5, 6]);
    }

    #[test]
    fn close_waits_for_pending_enqueues_or_cancels_them() {
        let q = queue(QueueKind::Fifo, Some(1));
        q.enqueue(vec![el(0)], forever()).unwrap();
        let q2 = Arc::clone(&q);
        let pending = std::thread::spawn(move || q2.enqueue(vec![el(1)], forever()));
        std::thread::sleep(Duration::from_millis(20));
        let q3 = Arc::clone(&q);
        let closer = std::thread::spawn(move || q3.close(false, forever()));
        std::thread::sleep(Duration::from_millis(20));
        assert!(!q.is_closed(), "close waits behind the pending enqueue");
        assert_eq!(values(&q.dequeue(1, false, forever()).unwrap()), [0]);
        pending.join().unwrap().unwrap();
        closer.join().unwrap().unwrap();
        assert_eq!(values(&q.dequeue(1, false, forever()).unwrap()), [1]);

        let q = queue(QueueKind::Fifo, Some(1));
        q.enqueue(vec![el(0)], forever()).unwrap();
        let q2 = Arc::clone(&q);
        let pending = std::thread::spawn(move || q2.enqueue(vec![el(1)], forever()));
        std::thread::sleep(Duration::from_millis(20));
        q.close(true, forever()).unwrap();
        let e = pending.join().unwrap().unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (Code::Cancelled, "Enqueue operation was cancelled"));
        assert_eq!(q.size(), 1);
    }

    #[test]
    fn cancellation_wakes_blocked_callers() {
        let q = queue(QueueKind::Fifo, None);
        let flag = Arc::new(AtomicBool::new(false));
        let (q2, f2) = (Arc::clone(&q), Arc::clone(&flag));
        let t = std::thread::spawn(move || q2.dequeue(1, false, Wait { closed: &f2, ..forever() }).map(|_| ()));
        std::thread::sleep(Duration::from_millis(20));
        flag.store(true, Ordering::Release);
        q.wake_all();
        assert_eq!(t.join().unwrap().unwrap_err().code, Code::Cancelled);
    }

    #[test]
    fn only_heads_are_woken_yet_no_wake_up_is_lost() {
        // Producers and consumers of many request sizes on a small queue, some with
        // deadlines that expire (their elements go back, the next in line takes over):
        // every element arrives once, each producer's in order, and nobody hangs.
        let q = queue(QueueKind::Fifo, Some(5));
        let producers: Vec<_> = (0..4i64)
            .map(|p| {
                let q = Arc::clone(&q);
                std::thread::spawn(move || {
                    let mut next = 0i64;
                    while next < 600 {
                        let n = 1 + (next % 7);
                        q.enqueue((next..next + n).map(|i| el(p * 1_000_000 + i)).collect(), forever()).unwrap();
                        next += n;
                    }
                    next
                })
            })
            .collect();
        let consumers: Vec<_> = (0..3usize)
            .map(|c| {
                let q = Arc::clone(&q);
                std::thread::spawn(move || {
                    let mut got = Vec::new();
                    for round in 0usize.. {
                        let n = 1 + (round + c) % 9;
                        let wait = if (round + c) % 5 == 0 {
                            Wait { deadline: Some(Instant::now() + Duration::from_micros(200)), ..forever() }
                        } else {
                            forever()
                        };
                        match q.dequeue(n, true, wait) {
                            Ok(es) => got.extend(values(&es)),
                            Err(e) if e.code == Code::DeadlineExceeded => {}
                            Err(e) if e.code == Code::OutOfRange => return got,
                            Err(e) => panic!("{e:?}"),
                        }
                    }
                    got
                })
            })
            .collect();
        let sent: Vec<i64> = producers.into_iter().map(|t| t.join().unwrap()).collect();
        q.close(false, forever()).unwrap();
        let streams: Vec<Vec<i64>> = consumers.into_iter().map(|t| t.join().unwrap()).collect();
        for stream in &streams {
            for p in 0..4 {
                let mine: Vec<i64> = stream.iter().copied().filter(|v| v / 1_000_000 == p).collect();
                assert!(mine.windows(2).all(|w| w[0] < w[1]), "producer {p} out of order");
            }
        }
        let mut all: Vec<i64> = streams.concat();
        all.sort_unstable();
        let want: Vec<i64> = (0..4i64).flat_map(|p| (0..sent[p as usize]).map(move |i| p * 1_000_000 + i)).collect();
        assert_eq!(all, want);
    }

    #[test]
    fn shuffle_and_priority_orders() {
        let q = queue(QueueKind::RandomShuffle { min_after_dequeue: 2, seed: 1, seed2: 2 }, Some(100));
        q.enqueue((0..50).map(el).collect(), forever()).unwrap();
        let mut got = values(&q.dequeue(48, false, forever()).unwrap());
        assert_ne!(got, (0..48).collect::<Vec<_>>());
        assert_eq!(q.dequeue(1, false, soon()).unwrap_err().code, Code::DeadlineExceeded, "min_after_dequeue holds");
        q.close(false, forever()).unwrap();
        got.extend(values(&q.dequeue(2, false, forever()).unwrap()));
        got.sort_unstable();
        assert_eq!(got, (0..50).collect::<Vec<_>>());

        let q = queue(QueueKind::Priority, None);
        q.enqueue(vec![el(5), el(-1), el(3), el(5), el(0)], forever()).unwrap();
        assert_eq!(values(&q.dequeue(5, false, forever()).unwrap()), [-1, 0, 3, 5, 5]);
    }
}
