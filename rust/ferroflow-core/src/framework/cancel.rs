//! Per-run cancellation: TF's step `CancellationManager`. Every `Session.run` has its
//! own [`RunCancellation`]; an operation about to block (a queue wait) registers a
//! [`Wake`] with it, so when another step of the same run fails, or the caller is
//! interrupted (Ctrl-C), exactly that run's blocked operations are woken and fail with
//! `Cancelled` while the run reports its first error. Other runs of the session, and
//! other sessions, are not disturbed.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::error::{Code, Error, Result};

/// How often a run that may be interrupted checks for it while it waits.
pub const INTERRUPT_POLL: Duration = Duration::from_millis(100);

/// Something blocked on a condition variable that must re-check its cancellation.
pub trait Wake: Send + Sync {
    /// Wakes every waiter (taking the lock their condition is checked under, so a
    /// waiter between its check and its wait cannot miss it).
    fn wake(&self);
}

/// A check for an outside interrupt (the bindings poll Python's signal handlers):
/// an `Err` cancels the run with that error.
pub type InterruptCheck<'a> = &'a (dyn Fn() -> Result<()> + Sync);

/// The part of a run's cancellation that outlives borrows: the flag and the waiters.
#[derive(Default)]
struct Shared {
    cancelled: AtomicBool,
    next_id: AtomicU64,
    waiters: Mutex<Vec<(u64, Arc<dyn Wake>)>>,
}

impl Shared {
    fn cancel(&self) -> bool {
        if self.cancelled.swap(true, Ordering::AcqRel) {
            return false;
        }
        // Wake outside the list's lock: a waiter registers while holding its own lock,
        // and `wake` takes that lock.
        let waiters: Vec<Arc<dyn Wake>> = self.waiters.lock().iter().map(|(_, w)| Arc::clone(w)).collect();
        for w in waiters {
            w.wake();
        }
        true
    }
}

/// The cancellation state of one run.
pub struct RunCancellation<'a> {
    shared: Arc<Shared>,
    interrupt: Option<InterruptCheck<'a>>,
}

/// A handle that cancels a run from anywhere, for as long as anyone keeps it (a
/// session cancels its running runs when it is closed). Cheap to clone.
#[derive(Clone)]
pub struct CancelHandle(Arc<Shared>);

impl CancelHandle {
    /// Cancels the run: wakes every operation of it that is registered as waiting.
    /// Returns false if it already was cancelled.
    pub fn cancel(&self) -> bool {
        self.0.cancel()
    }

    /// Whether the run was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::Acquire)
    }
}

impl<'a> RunCancellation<'a> {
    /// A run that is not cancelled; `interrupt`, if given, is polled while it waits.
    pub fn new(interrupt: Option<InterruptCheck<'a>>) -> Self {
        RunCancellation { shared: Arc::new(Shared::default()), interrupt }
    }

    /// A handle that cancels this run (it holds no borrow of the run).
    pub fn handle(&self) -> CancelHandle {
        CancelHandle(Arc::clone(&self.shared))
    }

    /// Whether the run was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.shared.cancelled.load(Ordering::Acquire)
    }

    /// Cancels the run: wakes every registered waiter. Returns false if it already was.
    pub fn cancel(&self) -> bool {
        self.shared.cancel()
    }

    /// Registers `waker` until the returned guard drops. Register *before* checking
    /// [`is_cancelled`](Self::is_cancelled): a cancel that comes later then wakes it.
    ///
    /// This is the hook for waits that live outside the core (the rpc crate's
    /// `RecvTensor` call): register a [`Wake`] whose `wake` aborts the call or
    /// signals the thread waiting for it, then check the run's state, then wait.
    pub fn register(&self, waker: Arc<dyn Wake>) -> Registration<'_, 'a> {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        self.shared.waiters.lock().push((id, waker));
        Registration { run: self, id }
    }

    /// Whether an interrupt check is installed (waits then wake up to poll it).
    pub fn polls_interrupts(&self) -> bool {
        self.interrupt.is_some()
    }

    /// Runs the interrupt check and returns an interrupt as an error. It does not
    /// cancel the run: the caller fails the run with it, which records it as the
    /// run's error before cancelling, so the cancellation errors of other blocked
    /// steps never win that race.
    pub fn poll_interrupt(&self) -> Result<()> {
        self.interrupt.map_or(Ok(()), |check| check())
    }

    /// When a wait starting now should wake to poll for interrupts (or `deadline`,
    /// whichever is first).
    pub fn wake_time(&self, deadline: Option<Instant>) -> Option<Instant> {
        if !self.polls_interrupts() {
            return deadline;
        }
        let poll = Instant::now() + INTERRUPT_POLL;
        Some(deadline.map_or(poll, |d| d.min(poll)))
    }
}

/// The most idle cancellation states a [`CancellationPool`] keeps.
const MAX_IDLE: usize = 8;

/// Cancellation states of finished runs, reset and handed to the next runs (a
/// session's), so a steady-state run allocates none.
#[derive(Default)]
pub struct CancellationPool(Mutex<Vec<Arc<Shared>>>);

impl CancellationPool {
    /// A run that is not cancelled, as [`RunCancellation::new`], on a reused state.
    pub fn start<'a>(&self, interrupt: Option<InterruptCheck<'a>>) -> RunCancellation<'a> {
        match self.0.lock().pop() {
            Some(shared) => RunCancellation { shared, interrupt },
            None => RunCancellation::new(interrupt),
        }
    }

    /// Takes back a finished run's state: kept when nothing else holds it (no
    /// handle of it is left), reset to "not cancelled" with no waiters.
    pub fn finish(&self, run: RunCancellation<'_>) {
        let mut shared = run.shared;
        let Some(state) = Arc::get_mut(&mut shared) else { return };
        *state.cancelled.get_mut() = false;
        state.waiters.get_mut().clear();
        let mut idle = self.0.lock();
        if idle.len() < MAX_IDLE {
            idle.push(shared);
        }
    }
}

impl Default for RunCancellation<'_> {
    fn default() -> Self {
        RunCancellation::new(None)
    }
}

/// A registered waiter; dropping it unregisters.
pub struct Registration<'r, 'a> {
    run: &'r RunCancellation<'a>,
    id: u64,
}

impl Drop for Registration<'_, '_> {
    fn drop(&mut self) {
        let mut waiters = self.run.shared.waiters.lock();
        if let Some(i) = waiters.iter().position(|(id, _)| *id == self.id) {
            waiters.swap_remove(i);
        }
    }
}

/// The error of an operation woken by its run's cancellation.
pub fn cancelled(what: &str) -> Error {
    Error::new(Code::Cancelled, format!("{what} operation was cancelled"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    struct Counter(AtomicUsize);
    impl Wake for Counter {
        fn wake(&self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn cancel_wakes_registered_waiters_once() {
        let run = RunCancellation::default();
        let a = Arc::new(Counter(AtomicUsize::new(0)));
        let b = Arc::new(Counter(AtomicUsize::new(0)));
        let _ra = run.register(Arc::clone(&a) as Arc<dyn Wake>);
        {
            let _rb = run.register(Arc::clone(&b) as Arc<dyn Wake>);
        }
        assert!(run.cancel());
        assert!(!run.cancel(), "a second cancel is a no-op");
        assert_eq!(a.0.load(Ordering::Relaxed), 1);
        assert_eq!(b.0.load(Ordering::Relaxed), 0, "an unregistered waiter is not woken");
        assert!(run.is_cancelled());
    }

    #[test]
    fn an_interrupt_is_returned_for_the_caller_to_fail_the_run() {
        let check = || Err(Error::new(Code::Cancelled, "interrupted"));
        let run = RunCancellation::new(Some(&check));
        assert!(run.polls_interrupts());
        assert!(run.wake_time(None).is_some());
        assert_eq!(run.poll_interrupt().unwrap_err().message, "interrupted");
        assert!(!run.is_cancelled(), "the caller records the error first, then cancels");
        assert!(RunCancellation::default().wake_time(None).is_none());
    }
}
