//! The loops a `tf.train.QueueRunner` thread runs, natively: no Python, no GIL.
//!
//! Each enqueue thread runs its enqueue plan until the coordinator asks to stop, the
//! queue closes (a status in `closed_codes`; the last such thread then runs the close
//! plan), or another error (reported to the coordinator). A close-on-stop thread waits
//! for the coordinator's stop and then runs the cancel plan. These are TF's
//! `QueueRunner._run` and `_close_on_stop`.
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::coord::{Coordinator, StopError};
use crate::error::{Code, Error};
use crate::executor::RunArgs;
use crate::session::PreparedRun;

/// What one queue-runner thread does.
pub enum RunnerJob {
    /// Runs `enqueue` until stopped or the queue closes.
    Enqueue {
        /// The plan running the enqueue op.
        enqueue: Arc<dyn PreparedRun>,
        /// The plan running the queue's close op, run by the last thread to see the
        /// queue closed.
        close: Arc<dyn PreparedRun>,
        /// Statuses that mean the queue was closed (TF: `OutOfRange`).
        closed_codes: Vec<Code>,
        /// Enqueue threads of this runner still running in this session (shared).
        active: Arc<AtomicUsize>,
    },
    /// Waits for the coordinator's stop, then runs `cancel` (closes the queue,
    /// cancelling pending enqueues).
    CloseOnStop {
        /// The plan running the queue's cancel op.
        cancel: Arc<dyn PreparedRun>,
    },
}

impl RunnerJob {
    /// Runs the job to its end. Returns the error that ended it, which has already
    /// been reported to `coord` when there is one.
    pub fn run(&self, coord: Option<&Coordinator>) -> Result<(), Error> {
        let run = |p: &Arc<dyn PreparedRun>| p.run(Vec::new(), &RunArgs::default());
        match self {
            RunnerJob::Enqueue { enqueue, close, closed_codes, active } => {
                let ended = loop {
                    if coord.is_some_and(Coordinator::should_stop) {
                        break Ok(());
                    }
                    match run(enqueue) {
                        Ok(_) => {}
                        Err(e) if closed_codes.contains(&e.code) => {
                            if active.fetch_sub(1, Ordering::AcqRel) == 1 {
                                // Errors from closing are ignored, as in TF.
                                let _ = run(close);
                            }
                            return Ok(());
                        }
                        Err(e) => break Err(e),
                    }
                };
                active.fetch_sub(1, Ordering::AcqRel);
                if let (Err(e), Some(c)) = (&ended, coord) {
                    c.request_stop(Some(StopError::Status(e.clone())));
                }
                ended
            }
            RunnerJob::CloseOnStop { cancel } => {
                if let Some(c) = coord {
                    c.wait_for_stop(None);
                    // The queue may already be closed; that error is ignored, as in TF.
                    let _ = run(cancel);
                }
                Ok(())
            }
        }
    }
}
