//! Threads for Python: `CoordinatorCore`, the Rust half of `tf.train.Coordinator`
//! that Python threads and native queue-runner threads share, and `NativeThread`, a
//! queue-runner thread that runs in Rust without the GIL but looks like a
//! `threading.Thread`.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use ferroflow_core::coord::{Coordinator, StopError};
use ferroflow_core::queue_runner::RunnerJob;
use ferroflow_core::{Code, Session};

use crate::errors::to_pyerr;
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

/// Lifecycle of a native thread, shared with the thread itself.
#[derive(Default)]
struct Lifecycle {
    started: bool,
    finished: bool,
    error: Option<ferroflow_core::Error>,
}

/// A native (Rust, GIL-free) queue-runner thread with the interface of
/// `threading.Thread`: `start`, `join`, `is_alive`, `name`, `daemon`, `ident`.
#[pyclass(frozen, weakref, name = "NativeThread", module = "ferroflow._ferroflow")]
pub struct PyNativeThread {
    job: Arc<RunnerJob>,
    session: Arc<Session>,
    coord: Option<Arc<Coordinator>>,
    name: Mutex<String>,
    daemon: AtomicBool,
    ident: AtomicU64,
    state: Arc<(Mutex<Lifecycle>, Condvar)>,
}

impl PyNativeThread {
    fn new(job: RunnerJob, session: Arc<Session>, coord: Option<Arc<Coordinator>>, name: String, daemon: bool) -> Self {
        PyNativeThread {
            job: Arc::new(job),
            session,
            coord,
            name: Mutex::new(name),
            daemon: AtomicBool::new(daemon),
            ident: AtomicU64::new(0),
            state: Arc::new((Mutex::new(Lifecycle::default()), Condvar::new())),
        }
    }
}

#[pymethods]
impl PyNativeThread {
    /// Starts the thread; `RuntimeError` if it was started before.
    fn start(&self) -> PyResult<()> {
        let mut st = self.state.0.lock();
        if st.started {
            return Err(PyRuntimeError::new_err("threads can only be started once"));
        }
        let (job, session, coord, state) =
            (Arc::clone(&self.job), Arc::clone(&self.session), self.coord.clone(), Arc::clone(&self.state));
        let spawned = std::thread::Builder::new().name(self.name.lock().clone()).spawn(move || {
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.run(&session, coord.as_deref())));
            let error = match outcome {
                Ok(r) => r.err(),
                Err(_) => Some(ferroflow_core::Error::new(Code::Internal, "queue runner thread panicked")),
            };
            let mut st = state.0.lock();
            st.finished = true;
            st.error = error;
            state.1.notify_all();
        });
        spawned.map_err(|e| PyRuntimeError::new_err(format!("can't start new thread: {e}")))?;
        static NEXT_IDENT: AtomicU64 = AtomicU64::new(1);
        self.ident.store(NEXT_IDENT.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        st.started = true;
        Ok(())
    }

    /// Waits (without the GIL) until the thread ends or `timeout` seconds pass.
    #[pyo3(signature = (timeout = None))]
    fn join(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        if !self.state.0.lock().started {
            return Err(PyRuntimeError::new_err("cannot join thread before it is started"));
        }
        let deadline =
            timeout.map(|t| Instant::now() + Duration::try_from_secs_f64(t.max(0.0)).unwrap_or(Duration::MAX));
        let state = &self.state;
        py.detach(|| {
            let mut st = state.0.lock();
            while !st.finished {
                match deadline {
                    Some(d) => {
                        if state.1.wait_until(&mut st, d).timed_out() {
                            break;
                        }
                    }
                    None => state.1.wait(&mut st),
                }
            }
        });
        Ok(())
    }

    /// Whether the thread was started and has not ended.
    fn is_alive(&self) -> bool {
        let st = self.state.0.lock();
        st.started && !st.finished
    }

    /// The thread's name.
    #[getter]
    fn get_name(&self) -> String {
        self.name.lock().clone()
    }

    #[setter]
    fn set_name(&self, name: String) {
        *self.name.lock() = name;
    }

    /// Whether the interpreter may exit while the thread runs.
    #[getter]
    fn get_daemon(&self) -> bool {
        self.daemon.load(Ordering::Relaxed)
    }

    #[setter]
    fn set_daemon(&self, daemon: bool) -> PyResult<()> {
        if self.state.0.lock().started {
            return Err(PyRuntimeError::new_err("cannot set daemon status of active thread"));
        }
        self.daemon.store(daemon, Ordering::Relaxed);
        Ok(())
    }

    /// A nonzero identifier once started, else None.
    #[getter]
    fn ident(&self) -> Option<u64> {
        Some(self.ident.load(Ordering::Relaxed)).filter(|&i| i != 0)
    }

    /// The error that ended the thread (a `ferroflow.errors` exception), or None.
    fn error(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let e = self.state.0.lock().error.clone()?;
        Some(to_pyerr(py, e).into_value(py).into_any())
    }

    fn __repr__(&self) -> String {
        let st = self.state.0.lock();
        let status = match (st.started, st.finished) {
            (false, _) => "initial",
            (true, false) => "started",
            (true, true) => "stopped",
        };
        let daemon = if self.daemon.load(Ordering::Relaxed) { " daemon" } else { "" };
        format!("<NativeThread({}, {status}{daemon})>", self.name.lock())
    }
}

/// The threads of one `QueueRunner.create_threads` call, not started: one per enqueue
/// plan, sharing the count of running enqueue threads (the last to see the queue
/// closed runs `close`), plus a close-on-stop thread when there is a coordinator.
#[pyfunction]
#[pyo3(signature = (enqueue_plans, close_plan, cancel_plan, coord, closed_codes, daemon, name))]
pub fn queue_runner_threads(
    enqueue_plans: Vec<PyRef<'_, PyPlan>>,
    close_plan: PyRef<'_, PyPlan>,
    cancel_plan: PyRef<'_, PyPlan>,
    coord: Option<PyRef<'_, PyCoordinatorCore>>,
    closed_codes: Vec<i32>,
    daemon: bool,
    name: &str,
) -> Vec<PyNativeThread> {
    let coord = coord.map(|c| Arc::clone(&c.inner));
    let closed_codes: Vec<Code> = closed_codes.into_iter().filter_map(Code::from_i32).collect();
    let active = Arc::new(AtomicUsize::new(enqueue_plans.len()));
    let mut threads: Vec<PyNativeThread> = enqueue_plans
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let job = RunnerJob::Enqueue {
                enqueue: Arc::clone(&p.plan),
                close: Arc::clone(&close_plan.plan),
                closed_codes: closed_codes.clone(),
                active: Arc::clone(&active),
            };
            PyNativeThread::new(job, Arc::clone(&p.session), coord.clone(), format!("{name}-enqueue-{i}"), daemon)
        })
        .collect();
    if coord.is_some() {
        let job = RunnerJob::CloseOnStop { cancel: Arc::clone(&cancel_plan.plan) };
        let session = Arc::clone(&cancel_plan.session);
        threads.push(PyNativeThread::new(job, session, coord, format!("{name}-close-on-stop"), daemon));
    }
    threads
}
