//! The core of `tf.train.Coordinator`: a stop flag with a condition variable and the
//! first reported error, shared by Python threads and native (queue-runner) threads.
//!
//! Native threads poll [`Coordinator::should_stop`] (one atomic load) and report
//! failures as a status [`Error`]; the Python layer reports its exceptions as an opaque
//! payload. Only the first error reported while stopping is kept, as in TF.
use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::error::{Code, Error};

/// Why the coordinator was stopped, when a thread reported an error.
#[derive(Clone)]
pub enum StopError {
    /// A status from a native thread (a queue runner's enqueue failed).
    Status(Error),
    /// Whatever the binding layer keeps for its own exceptions (Python's `exc_info`).
    Foreign(Arc<dyn Any + Send + Sync>),
}

#[derive(Default)]
struct State {
    error: Option<StopError>,
    joined: bool,
}

/// Stop flag, first error and `joined` mark of one coordinator.
pub struct Coordinator {
    stopped: AtomicBool,
    state: Mutex<State>,
    stop_changed: Condvar,
    clean_stop_codes: Vec<Code>,
}

impl Default for Coordinator {
    fn default() -> Self {
        Self::new(vec![Code::OutOfRange])
    }
}

impl Coordinator {
    /// A coordinator for which statuses with `clean_stop_codes` (TF's default:
    /// `OutOfRange`, the end of the input) stop the threads without being an error.
    pub fn new(clean_stop_codes: Vec<Code>) -> Self {
        Coordinator {
            stopped: AtomicBool::new(false),
            state: Mutex::new(State::default()),
            stop_changed: Condvar::new(),
            clean_stop_codes,
        }
    }

    /// Whether a stop was requested.
    pub fn should_stop(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// Requests a stop. An error is recorded only by the first request (a clean-stop
    /// status counts as none). Returns whether the coordinator was already joined: the
    /// caller then raises the error itself, since `join` will not.
    pub fn request_stop(&self, error: Option<StopError>) -> bool {
        let error = error.filter(|e| !matches!(e, StopError::Status(s) if self.clean_stop_codes.contains(&s.code)));
        let mut state = self.state.lock();
        if state.joined && error.is_some() {
            return true;
        }
        if !self.stopped.load(Ordering::Acquire) {
            if state.error.is_none() {
                state.error = error;
            }
            self.stopped.store(true, Ordering::Release);
            self.stop_changed.notify_all();
        }
        false
    }

    /// Clears the stop flag, the recorded error and the joined mark.
    pub fn clear_stop(&self) {
        let mut state = self.state.lock();
        *state = State::default();
        self.stopped.store(false, Ordering::Release);
    }

    /// Blocks until a stop is requested or `timeout` passes; whether it was requested.
    pub fn wait_for_stop(&self, timeout: Option<Duration>) -> bool {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut state = self.state.lock();
        while !self.should_stop() {
            match deadline {
                Some(d) => {
                    if self.stop_changed.wait_until(&mut state, d).timed_out() {
                        return self.should_stop();
                    }
                }
                None => self.stop_changed.wait(&mut state),
            }
        }
        true
    }

    /// The first error reported with a stop request, if any.
    pub fn error(&self) -> Option<StopError> {
        self.state.lock().error.clone()
    }

    /// Marks the coordinator joined (`Coordinator.join` returned or raised); returns the
    /// recorded error for `join` to raise.
    pub fn mark_joined(&self) -> Option<StopError> {
        let mut state = self.state.lock();
        state.joined = true;
        state.error.clone()
    }

    /// Whether `join` has run since the last `clear_stop`.
    pub fn joined(&self) -> bool {
        self.state.lock().joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: Code) -> Option<StopError> {
        Some(StopError::Status(Error::new(code, "x")))
    }

    #[test]
    fn first_error_wins_and_clean_stops_are_not_errors() {
        let c = Coordinator::default();
        assert!(!c.should_stop());
        c.request_stop(status(Code::OutOfRange));
        assert!(c.should_stop());
        assert!(c.error().is_none());
        c.request_stop(status(Code::Internal));
        assert!(c.error().is_none(), "a request after the stop records nothing");
        c.clear_stop();
        c.request_stop(status(Code::Internal));
        c.request_stop(status(Code::Aborted));
        assert!(matches!(c.error(), Some(StopError::Status(e)) if e.code == Code::Internal));
        assert!(matches!(c.mark_joined(), Some(StopError::Status(_))));
        assert!(c.request_stop(status(Code::Aborted)), "after join the caller must raise");
    }

    #[test]
    fn wait_for_stop_wakes_on_request_and_times_out() {
        let c = Arc::new(Coordinator::default());
        assert!(!c.wait_for_stop(Some(Duration::from_millis(10))));
        let c2 = Arc::clone(&c);
        let t = std::thread::spawn(move || c2.wait_for_stop(None));
        std::thread::sleep(Duration::from_millis(20));
        c.request_stop(None);
        assert!(t.join().unwrap());
        assert!(c.wait_for_stop(Some(Duration::ZERO)));
    }
}
