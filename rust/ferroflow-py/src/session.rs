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
use ferroflow_core::{Plan, Session, SessionOptions};

use crate::errors::{guarded, run_detached};
use crate::graph::PyGraph;
use crate::tensor::{PyTensorHandle, tensor_from_py, tensor_to_py};

/// The native half of `ferroflow.Session`.
#[pyclass(frozen, name = "Session", module = "ferroflow._ferroflow")]
pub struct PySession {
    inner: Arc<Session>,
}

fn outputs(v: Vec<(usize, usize)>) -> Vec<Output> {
    v.into_iter().map(|(node, index)| Output { node, index }).collect()
}

#[pymethods]
impl PySession {
    /// A session on `graph` configured by a serialized `ConfigProto` (defaults if absent).
    #[new]
    #[pyo3(signature = (graph, config = None))]
    fn new(graph: &PyGraph, config: Option<&[u8]>) -> PyResult<Self> {
        let config = pb::ConfigProto::decode(config.unwrap_or_default())
            .map_err(|e| PyValueError::new_err(format!("bad ConfigProto: {e}")))?;
        let options = SessionOptions::from_config(&config);
        Ok(PySession { inner: Arc::new(Session::new(Arc::clone(&graph.inner), options)) })
    }

    /// Each step's node name and device for a run signature (compiling its plan).
    fn placement(
        &self,
        py: Python<'_>,
        feeds: Vec<(usize, usize)>,
        fetches: Vec<(usize, usize)>,
        targets: Vec<usize>,
    ) -> PyResult<Vec<(String, String)>> {
        let plan = self.prepare(py, feeds, fetches, targets)?.plan;
        Ok(plan.placement().into_iter().map(|(n, d)| (n.to_string(), d.to_string())).collect())
    }

    /// The full names of the session's devices, highest priority first.
    fn devices(&self) -> Vec<String> {
        self.inner.devices().devices().iter().map(|d| d.name.clone()).collect()
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
        Ok(PyPlan { session: Arc::clone(&self.inner), plan })
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

/// A compiled run signature of one session.
#[pyclass(frozen, name = "Plan", module = "ferroflow._ferroflow")]
pub struct PyPlan {
    pub(crate) session: Arc<Session>,
    pub(crate) plan: Arc<Plan>,
}

#[pymethods]
impl PyPlan {
    /// Runs the plan with one value per feed; returns the fetched values in order.
    #[pyo3(signature = (*feeds))]
    fn run<'py>(&self, py: Python<'py>, feeds: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyList>> {
        let values = feeds.iter().map(|f| tensor_from_py(&f)).collect::<PyResult<Vec<_>>>()?;
        let (session, plan) = (&self.session, &self.plan);
        let results = run_detached(py, || session.run(plan, values))?;
        let items = results.into_iter().map(|t| tensor_to_py(py, t)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// Runs the plan like `run`, failing with `DeadlineExceededError` if it blocks
    /// longer than `timeout_ms` (`RunOptions.timeout_in_ms`; 0 or less: no limit).
    fn run_with_timeout<'py>(
        &self,
        py: Python<'py>,
        timeout_ms: i64,
        feeds: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyList>> {
        let values = feeds.iter().map(|f| tensor_from_py(&f)).collect::<PyResult<Vec<_>>>()?;
        let timeout = u64::try_from(timeout_ms).ok().filter(|&ms| ms > 0).map(Duration::from_millis);
        let (session, plan) = (&self.session, &self.plan);
        let results = run_detached(py, || session.run_with_timeout(plan, values, timeout))?;
        let items = results.into_iter().map(|t| tensor_to_py(py, t)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
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
        let values = feeds.iter().map(|f| tensor_from_py(&f)).collect::<PyResult<Vec<_>>>()?;
        let timeout = u64::try_from(options.timeout_in_ms).ok().filter(|&ms| ms > 0).map(Duration::from_millis);
        let traced = options.trace_level > pb::run_options::TraceLevel::NoTrace as i32;
        let (session, plan) = (&self.session, &self.plan);
        let (results, metadata) = run_detached(py, || {
            if traced {
                let (values, stats) = session.run_traced(plan, values, timeout)?;
                Ok((values, pb::RunMetadata { step_stats: Some(stats), ..Default::default() }))
            } else {
                Ok((session.run_with_timeout(plan, values, timeout)?, pb::RunMetadata::default()))
            }
        })?;
        let items = results.into_iter().map(|t| tensor_to_py(py, t)).collect::<PyResult<Vec<_>>>()?;
        Ok((PyList::new(py, items)?, PyBytes::new(py, &metadata.encode_to_vec())))
    }

    /// Runs the plan like `run` but keeps the results in Rust, as `TensorHandle`s
    /// sharing their buffers (a variable's value is not copied).
    #[pyo3(signature = (*feeds))]
    fn run_to_handles(&self, py: Python<'_>, feeds: &Bound<'_, PyTuple>) -> PyResult<Vec<PyTensorHandle>> {
        let values = feeds.iter().map(|f| tensor_from_py(&f)).collect::<PyResult<Vec<_>>>()?;
        let (session, plan) = (&self.session, &self.plan);
        let results = run_detached(py, || session.run(plan, values))?;
        Ok(results.into_iter().map(PyTensorHandle).collect())
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
