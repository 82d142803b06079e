//! `Session` and compiled `Plan` handles. `Plan.run` is the hot path: feeds are
//! copied into tensors, then the whole run happens with the GIL released.
use std::sync::Arc;
use std::time::Duration;

use prost::Message;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use ferroflow_core::graph::Output;
use ferroflow_core::proto as pb;
use ferroflow_core::{PreparedRun, RunArgs, RunOutput, SessionBackend, Tensor};

use crate::errors::{guarded, run_detached, run_interruptible};
use crate::graph::PyGraph;
use crate::tensor::{PyTensorHandle, tensor_from_py, tensor_to_py};

/// The native half of `ferroflow.Session`: a session backend for its target.
#[pyclass(frozen, name = "Session", module = "ferroflow._ferroflow")]
pub struct PySession {
    inner: Arc<dyn SessionBackend>,
}

fn outputs(v: Vec<(usize, usize)>) -> Vec<Output> {
    v.into_iter().map(|(node, index)| Output { node, index }).collect()
}

fn decode_config(config: Option<&[u8]>) -> PyResult<pb::ConfigProto> {
    pb::ConfigProto::decode(config.unwrap_or_default())
        .map_err(|e| PyValueError::new_err(format!("bad ConfigProto: {e}")))
}

#[pymethods]
impl PySession {
    /// A session on `graph` for `target` (`""`: in-process) configured by a serialized
    /// `ConfigProto` (defaults if absent); `NotFoundError` for a target no registered
    /// factory accepts.
    #[new]
    #[pyo3(signature = (graph, config = None, target = ""))]
    fn new(py: Python<'_>, graph: &PyGraph, config: Option<&[u8]>, target: &str) -> PyResult<Self> {
        let config = decode_config(config)?;
        let graph = Arc::clone(&graph.inner);
        let inner = guarded(py, || ferroflow_core::session::new_session(target, graph, &config))?;
        Ok(PySession { inner })
    }

    /// Each step's node name and device for a run signature (compiling its plan).
    fn placement(
        &self,
        py: Python<'_>,
        feeds: Vec<(usize, usize)>,
        fetches: Vec<(usize, usize)>,
        targets: Vec<usize>,
    ) -> PyResult<Vec<(String, String)>> {
        Ok(self.prepare(py, feeds, fetches, targets)?.plan.placement())
    }

    /// The full names of the session's devices, highest priority first.
    fn devices(&self) -> Vec<String> {
        self.inner.devices()
    }

    /// `(name, device_type, memory_limit_bytes, incarnation)` of each device (a
    /// remote session asks its master, without the GIL).
    fn device_attributes(&self, py: Python<'_>) -> PyResult<Vec<(String, String, i64, u64)>> {
        let s = Arc::clone(&self.inner);
        let names = run_detached(py, move || Ok(s.devices()))?;
        Ok(names
            .into_iter()
            .map(|name| {
                let (device_type, index) = name
                    .rsplit_once("/device:")
                    .and_then(|(_, d)| d.split_once(':'))
                    .map_or(("CPU", 0), |(t, i)| (t, i.parse().unwrap_or(0)));
                let memory = ferroflow_core::device::describe(device_type, index).memory_limit;
                (name.clone(), device_type.to_string(), i64::try_from(memory).unwrap_or(i64::MAX), 0)
            })
            .collect())
    }

    /// Compiles (or fetches from the cache) the plan for a run signature.
    fn prepare(
        &self,
        py: Python<'_>,
        feeds: Vec<(usize, usize)>,
        fetches: Vec<(usize, usize)>,
        targets: Vec<usize>,
    ) -> PyResult<PyPlan> {
        let (feeds, fetches) = (outputs(feeds), outputs(fetches));
        let session = Arc::clone(&self.inner);
        let plan = run_detached(py, move || session.prepare(&feeds, &fetches, &targets))?;
        Ok(PyPlan { plan })
    }

    /// Closes the session and releases its variable values.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let s = Arc::clone(&self.inner);
        guarded(py, move || {
            s.close();
            Ok(())
        })
    }

    /// Whether `close` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_closed()
    }
}

/// TF's `Session.reset`: resets `containers` (none: the default container) on
/// `target` and closes the sessions connected to it.
#[pyfunction]
#[pyo3(signature = (target, containers = Vec::new()))]
pub fn reset_sessions(py: Python<'_>, target: &str, containers: Vec<String>) -> PyResult<()> {
    run_detached(py, || ferroflow_core::session::reset(target, &containers))
}

/// A compiled run signature of one session.
#[pyclass(frozen, name = "Plan", module = "ferroflow._ferroflow")]
pub struct PyPlan {
    pub(crate) plan: Arc<dyn PreparedRun>,
}

fn feed_tensors(feeds: &Bound<'_, PyTuple>) -> PyResult<Vec<Tensor>> {
    feeds.iter().map(|f| tensor_from_py(&f)).collect()
}

fn timeout_of(ms: i64) -> Option<Duration> {
    u64::try_from(ms).ok().filter(|&ms| ms > 0).map(Duration::from_millis)
}

impl PyPlan {
    /// Runs with the GIL released; Ctrl-C while the run waits interrupts it.
    fn execute(
        &self,
        py: Python<'_>,
        values: Vec<Tensor>,
        timeout: Option<Duration>,
        trace: bool,
    ) -> PyResult<RunOutput> {
        let plan = &self.plan;
        run_interruptible(py, |interrupt| {
            plan.run(values, &RunArgs { timeout, trace, interrupt: Some(interrupt), ..RunArgs::default() })
        })
    }
}

fn to_py_list<'py>(py: Python<'py>, values: Vec<Tensor>) -> PyResult<Bound<'py, PyList>> {
    let items = values.into_iter().map(|t| tensor_to_py(py, t)).collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

#[pymethods]
impl PyPlan {
    /// Runs the plan with one value per feed; returns the fetched values in order.
    #[pyo3(signature = (*feeds))]
    fn run<'py>(&self, py: Python<'py>, feeds: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyList>> {
        let out = self.execute(py, feed_tensors(feeds)?, None, false)?;
        to_py_list(py, out.values)
    }

    /// Runs the plan like `run`, failing with `DeadlineExceededError` if it blocks
    /// longer than `timeout_ms` (`RunOptions.timeout_in_ms`; 0 or less: no limit).
    fn run_with_timeout<'py>(
        &self,
        py: Python<'py>,
        timeout_ms: i64,
        feeds: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyList>> {
        let out = self.execute(py, feed_tensors(feeds)?, timeout_of(timeout_ms), false)?;
        to_py_list(py, out.values)
    }

    /// Runs the plan under a serialized `RunOptions` (its timeout and trace level);
    /// returns the fetched values and a serialized `RunMetadata`, whose `step_stats`
    /// a traced run (trace level above `NO_TRACE`) fills.
    fn run_with_options<'py>(
        &self,
        py: Python<'py>,
        options: &[u8],
        feeds: &Bound<'py, PyTuple>,
    ) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyBytes>)> {
        let options =
            pb::RunOptions::decode(options).map_err(|e| PyValueError::new_err(format!("bad RunOptions: {e}")))?;
        let traced = options.trace_level > pb::run_options::TraceLevel::NoTrace as i32;
        let out = self.execute(py, feed_tensors(feeds)?, timeout_of(options.timeout_in_ms), traced)?;
        let metadata = pb::RunMetadata { step_stats: out.step_stats, ..Default::default() };
        Ok((to_py_list(py, out.values)?, PyBytes::new(py, &metadata.encode_to_vec())))
    }

    /// Runs the plan like `run` but keeps the results in Rust, as `TensorHandle`s
    /// sharing their buffers (a variable's value is not copied).
    #[pyo3(signature = (*feeds))]
    fn run_to_handles(&self, py: Python<'_>, feeds: &Bound<'_, PyTuple>) -> PyResult<Vec<PyTensorHandle>> {
        let out = self.execute(py, feed_tensors(feeds)?, None, false)?;
        Ok(out.values.into_iter().map(PyTensorHandle).collect())
    }

    /// Number of nodes the plan runs.
    #[getter]
    fn num_steps(&self) -> usize {
        self.plan.num_steps()
    }

    /// Whether the plan spreads independent branches over the thread pool.
    #[getter]
    fn is_parallel(&self) -> bool {
        self.plan.is_parallel()
    }
}
