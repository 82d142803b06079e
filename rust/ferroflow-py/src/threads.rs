//! Threads for Python: `CoordinatorCore`, the Rust half of `tf.train.Coordinator`
//! that Python threads and queue-runner loops share, and `RunnerJob`, the loop of a
//! queue-runner thread, run in Rust without the GIL.
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use parking_lot::Mutex;
use pyo3::prelude::*;

use ferroflow_core::Code;
use ferroflow_core::coord::{Coordinator, StopError};
use ferroflow_core::session::queue_runner::RunnerJob;

use crate::errors::{run_detached, to_pyerr};
use crate::session::PyPlan;

/// Stop flag, first error and registered threads of one `tf.train.Coordinator`.
#[pyclass(frozen, name = "CoordinatorCore", module = "ferroflow._ferroflow")]
pub struct PyCoordinatorCore {
    pub(crate) inner: Arc<Coordinator>,
    threads: Mutex<Vec<Py<PyAny>>>,
}

/// The Python value of a recorded error: the `exc_info` a Python thread reported, or
/// the `ferroflow.errors` exception of a native thread's status.
fn error_to_py(py: Python<'_>, e: Option<StopError>) -> Option<Py<PyAny>> {
    match e? {
        StopError::Foreign(obj) => obj.downcast_ref::<Py<PyAny>>().map(|o| o.clone_ref(py)),
        StopError::Status(status) => Some(to_pyerr(py, status).into_value(py).into_any()),
    }
}

#[pymethods]
impl PyCoordinatorCore {
    /// A coordinator; statuses with `clean_stop_codes` stop threads without an error.
    #[new]
    #[pyo3(signature = (clean_stop_codes = vec![Code::OutOfRange as i32]))]
    fn new(clean_stop_codes: Vec<i32>) -> Self {
        let codes = clean_stop_codes.into_iter().filter_map(Code::from_i32).collect();
        PyCoordinatorCore { inner: Arc::new(Coordinator::new(codes)), threads: Mutex::new(Vec::new()) }
    }

    /// Whether a stop was requested.
    fn should_stop(&self) -> bool {
        self.inner.should_stop()
    }

    /// Requests a stop, recording `exc_info` if it is the first error; returns True when
    /// the coordinator was already joined (the caller must raise the error itself).
    #[pyo3(signature = (exc_info = None))]
    fn request_stop(&self, exc_info: Option<Py<PyAny>>) -> bool {
        let error = exc_info.map(|e| StopError::Foreign(Arc::new(e)));
        self.inner.request_stop(error)
    }

    /// Clears the stop flag, the recorded error and the joined mark.
    fn clear_stop(&self) {
        self.inner.clear_stop();
    }

    /// Waits (without the GIL) until a stop is requested or `timeout` seconds pass.
    #[pyo3(signature = (timeout = None))]
    fn wait_for_stop(&self, py: Python<'_>, timeout: Option<f64>) -> bool {
        let timeout = timeout.map(|t| Duration::try_from_secs_f64(t.max(0.0)).unwrap_or(Duration::MAX));
        let inner = &self.inner;
        py.detach(|| inner.wait_for_stop(timeout))
    }

    /// The recorded error: an `exc_info` tuple, an exception instance, or None.
    fn error(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        error_to_py(py, self.inner.error())
    }

    /// Marks the coordinator joined and returns the recorded error (see `error`).
    fn mark_joined(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        error_to_py(py, self.inner.mark_joined())
    }

    /// Whether `join` ran since the last `clear_stop`.
    #[getter]
    fn joined(&self) -> bool {
        self.inner.joined()
    }

    /// Adds a thread for a later `join` to wait on.
    fn register_thread(&self, thread: Py<PyAny>) {
        self.threads.lock().push(thread);
    }

    /// The registered threads, forgotten by this call (a `join` takes them).
    fn take_registered_threads(&self) -> Vec<Py<PyAny>> {
        std::mem::take(&mut *self.threads.lock())
    }

    /// The registered threads (a copy).
    fn registered_threads(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        self.threads.lock().iter().map(|t| t.clone_ref(py)).collect()
    }
}

/// The loop of one queue-runner thread (the core's `RunnerJob`). The thread itself is
/// a Python `threading.Thread` (TF's contract: users check `isinstance(t,
/// threading.Thread)`) whose `run` calls [`PyRunnerJob::run`], which runs the whole
/// loop in Rust with the GIL released.
#[pyclass(frozen, name = "RunnerJob", module = "ferroflow._ferroflow")]
pub struct PyRunnerJob {
    job: RunnerJob,
    coord: Option<Arc<Coordinator>>,
}

#[pymethods]
impl PyRunnerJob {
    /// Runs the loop to its end without the GIL. An error that ended it was reported
    /// to the coordinator, if there is one; without one it is raised here.
    fn run(&self, py: Python<'_>) -> PyResult<()> {
        let (job, coord) = (&self.job, self.coord.as_deref());
        match run_detached(py, || job.run(coord)) {
            Err(e) if coord.is_some() => {
                drop(e);
                Ok(())
            }
            other => other,
        }
    }
}

/// The jobs of one `QueueRunner.create_threads` call: one per enqueue plan, sharing the
/// count of running enqueue loops (the last to see the queue closed runs `close`),
/// plus a close-on-stop job when there is a coordinator.
#[pyfunction]
#[pyo3(signature = (enqueue_plans, close_plan, cancel_plan, coord, closed_codes))]
pub fn queue_runner_jobs(
    enqueue_plans: Vec<PyRef<'_, PyPlan>>,
    close_plan: PyRef<'_, PyPlan>,
    cancel_plan: PyRef<'_, PyPlan>,
    coord: Option<PyRef<'_, PyCoordinatorCore>>,
    closed_codes: Vec<i32>,
) -> Vec<PyRunnerJob> {
    let coord = coord.map(|c| Arc::clone(&c.inner));
    let closed_codes: Vec<Code> = closed_codes.into_iter().filter_map(Code::from_i32).collect();
    let active = Arc::new(AtomicUsize::new(enqueue_plans.len()));
    let mut jobs: Vec<PyRunnerJob> = enqueue_plans
        .iter()
        .map(|p| PyRunnerJob {
            job: RunnerJob::Enqueue {
                enqueue: Arc::clone(&p.plan),
                close: Arc::clone(&close_plan.plan),
                closed_codes: closed_codes.clone(),
                active: Arc::clone(&active),
            },
            coord: coord.clone(),
        })
        .collect();
    if coord.is_some() {
        jobs.push(PyRunnerJob { job: RunnerJob::CloseOnStop { cancel: Arc::clone(&cancel_plan.plan) }, coord });
    }
    jobs
}
