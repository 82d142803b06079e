//! `Graph` handle: node creation (validated and shape-inferred in the core),
//! unique names, static shapes, attrs and GraphDef export.
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use parking_lot_shim::RwLock;
use prost::Message;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use ferroflow_core::autodiff::{Aggregation, Grad, GradientWalk, Gradients, WalkStep};
use ferroflow_core::graph::{AttrValue, Graph, NodeSpec, Output, OutputSpec};
use ferroflow_core::{DType, PartialShape};

use crate::errors::guarded;
use crate::tensor::{tensor_from_py, tensor_to_py};

/// The core's lock type, re-exported so the bindings need no direct parking_lot dependency.
pub(crate) mod parking_lot_shim {
    pub use ferroflow_core::executor::GraphLock as RwLock;
}

/// A static shape from Python: `None` (unknown rank) or a list of ints/`None` (`-1` is unknown too).
fn shape_from_py(obj: &Bound<'_, PyAny>) -> PyResult<PartialShape> {
    if obj.is_none() {
        return Ok(PartialShape::unknown());
    }
    let dims: Vec<Option<i64>> = obj.extract()?;
    Ok(PartialShape::from_dims(dims.into_iter().map(|d| d.and_then(|v| usize::try_from(v).ok()))))
}

/// A static shape for Python: `None` or a list of ints/`None`.
fn shape_to_py<'py>(py: Python<'py>, s: &PartialShape) -> PyResult<Bound<'py, PyAny>> {
    match s.dims() {
        None => Ok(py.None().into_bound(py)),
        Some(d) => Ok(PyList::new(py, d.iter().copied())?.into_any()),
    }
}

fn dtype_from_py(v: &Bound<'_, PyAny>) -> PyResult<DType> {
    DType::from_code(v.extract()?).map_err(|e| PyTypeError::new_err(e.message))
}

/// An attr from its `(kind, value)` pair as the Python op builders pass it.
fn attr_from_py(kind: &str, v: &Bound<'_, PyAny>) -> PyResult<AttrValue> {
    fn list<'py>(v: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        v.try_iter()?.collect()
    }
    Ok(match kind {
        "int" => AttrValue::I(v.extract()?),
        "float" => AttrValue::F(v.extract()?),
        "bool" => AttrValue::B(v.extract()?),
        "string" => AttrValue::S(v.extract()?),
        "type" => AttrValue::Type(dtype_from_py(v)?),
        "shape" => AttrValue::Shape(shape_from_py(v)?),
        "tensor" => AttrValue::Tensor(tensor_from_py(v)?),
        // A serialized TensorProto (a GraphDef being imported).
        "tensor_proto" => {
            let bytes: Vec<u8> = v.extract()?;
            let proto = <ferroflow_proto::TensorProto as prost::Message>::decode(bytes.as_slice())
                .map_err(|e| PyValueError::new_err(format!("bad TensorProto: {e}")))?;
            AttrValue::Tensor(
                ferroflow_core::tensor::Tensor::from_proto(&proto).map_err(|e| PyValueError::new_err(e.message))?,
            )
        }
        "list(int)" => AttrValue::ListI(v.extract()?),
        "list(float)" => AttrValue::ListF(v.extract()?),
        "list(bool)" => AttrValue::ListB(v.extract()?),
        "list(string)" => AttrValue::ListS(v.extract()?),
        "list(type)" => AttrValue::ListType(list(v)?.iter().map(dtype_from_py).collect::<PyResult<_>>()?),
        "list(shape)" => AttrValue::ListShape(list(v)?.iter().map(shape_from_py).collect::<PyResult<_>>()?),
        other => {
            return Err(PyValueError::new_err(format!("unknown attr kind '{other}'")));
        }
    })
}

/// An attr as a `(kind, value)` pair for Python.
fn attr_to_py<'py>(py: Python<'py>, a: &AttrValue) -> PyResult<Bound<'py, PyTuple>> {
    let pair = |k: &str, v: Bound<'py, PyAny>| PyTuple::new(py, [k.into_pyobject(py)?.into_any(), v]);
    let any = |v: Bound<'py, PyAny>| v;
    match a {
        AttrValue::I(i) => pair("int", any(i.into_pyobject(py)?.into_any())),
        AttrValue::F(f) => pair("float", any(f.into_pyobject(py)?.into_any())),
        AttrValue::B(b) => pair("bool", any(b.into_pyobject(py)?.to_owned().into_any())),
        AttrValue::S(s) => pair("string", PyBytes::new(py, s).into_any()),
        AttrValue::Type(t) => pair("type", (*t as i32).into_pyobject(py)?.into_any()),
        AttrValue::Shape(s) => pair("shape", shape_to_py(py, s)?),
        AttrValue::Tensor(t) => pair("tensor", tensor_to_py(py, t.clone())?),
        AttrValue::ListI(v) => pair("list(int)", PyList::new(py, v)?.into_any()),
        AttrValue::ListF(v) => pair("list(float)", PyList::new(py, v)?.into_any()),
        AttrValue::ListB(v) => pair("list(bool)", PyList::new(py, v)?.into_any()),
        AttrValue::ListS(v) => pair("list(string)", PyList::new(py, v.iter().map(|s| PyBytes::new(py, s)))?.into_any()),
        AttrValue::ListType(v) => pair("list(type)", PyList::new(py, v.iter().map(|t| *t as i32))?.into_any()),
        AttrValue::ListShape(v) => {
            let items = v.iter().map(|s| shape_to_py(py, s)).collect::<PyResult<Vec<_>>>()?;
            pair("list(shape)", PyList::new(py, items)?.into_any())
        }
    }
}

fn spec_to_py<'py>(py: Python<'py>, s: &OutputSpec) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(
        py,
        [
            (s.dtype as i32).into_pyobject(py)?.into_any(),
            shape_to_py(py, &s.shape)?,
            s.is_ref.into_pyobject(py)?.to_owned().into_any(),
        ],
    )
}

/// The native half of `ferroflow.Graph`.
#[pyclass(frozen, name = "Graph", module = "ferroflow._ferroflow")]
pub struct PyGraph {
    pub(crate) inner: Arc<RwLock<Graph>>,
}

#[pymethods]
impl PyGraph {
    #[new]
    fn new() -> Self {
        PyGraph { inner: Arc::new(RwLock::new(Graph::new())) }
    }

    /// Adds a node; returns `(node_id, [(dtype_code, shape, is_ref), ...])`.
    // The arguments are the fields of a NodeDef, passed positionally from Python.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (op_type, name, inputs, control_inputs, attrs, device))]
    fn add_op<'py>(
        &self,
        py: Python<'py>,
        op_type: String,
        name: String,
        inputs: Vec<(usize, usize)>,
        control_inputs: Vec<usize>,
        attrs: &Bound<'py, PyDict>,
        device: String,
    ) -> PyResult<(usize, Bound<'py, PyList>)> {
        let mut parsed = BTreeMap::new();
        for (k, v) in attrs.iter() {
            let (kind, value): (String, Bound<'py, PyAny>) = v.extract()?;
            parsed.insert(k.extract::<String>()?, attr_from_py(&kind, &value)?);
        }
        let spec = NodeSpec {
            name,
            op: op_type,
            inputs: inputs.into_iter().map(|(node, index)| Output { node, index }).collect(),
            control_inputs,
            attrs: parsed,
            device,
        };
        let mut g = self.inner.write();
        let id = guarded(py, || g.add_node(spec))?;
        let outs = g.nodes()[id].outputs.iter().map(|s| spec_to_py(py, s)).collect::<PyResult<Vec<_>>>()?;
        Ok((id, PyList::new(py, outs)?))
    }

    /// TensorFlow's `unique_name` (`name`, `name_1`, ...).
    #[pyo3(signature = (name, mark_as_used = true))]
    fn unique_name(&self, name: &str, mark_as_used: bool) -> String {
        self.inner.write().unique_name(name, mark_as_used)
    }

    /// Merges `shape` into the static shape of output `index` of `node`.
    fn set_shape(&self, py: Python<'_>, node: usize, index: usize, shape: &Bound<'_, PyAny>) -> PyResult<()> {
        let s = shape_from_py(shape)?;
        let mut g = self.inner.write();
        guarded(py, || g.set_output_shape(Output { node, index }, &s))
    }

    /// `(kind, value)` of attr `name` of `node`, or `None`.
    fn get_attr<'py>(&self, py: Python<'py>, node: usize, name: &str) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let g = self.inner.read();
        let n = guarded(py, || g.node(node))?;
        n.attrs.get(name).map(|a| attr_to_py(py, a)).transpose()
    }

    /// Names of the attrs of `node`, sorted.
    fn attr_names(&self, py: Python<'_>, node: usize) -> PyResult<Vec<String>> {
        let g = self.inner.read();
        Ok(guarded(py, || g.node(node))?.attrs.keys().cloned().collect())
    }

    /// Starts `tf.gradients`: a walk over the graph that pauses at each node of
    /// `external` (gradients computed in Python) and is driven by
    /// [`PyGradientWalk::resume`].
    #[allow(clippy::too_many_arguments)]
    fn gradient_walk(
        &self,
        py: Python<'_>,
        ys: Vec<(usize, usize)>,
        xs: Vec<(usize, usize)>,
        grad_ys: Vec<Bound<'_, PyAny>>,
        scope: &str,
        device: &str,
        aggregation: u8,
        colocate_with_ops: bool,
        stop: Vec<(usize, usize)>,
        external: Vec<usize>,
    ) -> PyResult<PyGradientWalk> {
        let out = |(node, index): (usize, usize)| Output { node, index };
        let ys: Vec<Output> = ys.into_iter().map(out).collect();
        let xs: Vec<Output> = xs.into_iter().map(out).collect();
        let grad_ys = grad_ys.iter().map(grad_from_py).collect::<PyResult<Vec<_>>>()?;
        let stop: Vec<Output> = stop.into_iter().map(out).collect();
        let aggregation = if aggregation == 0 { Aggregation::AddN } else { Aggregation::Tree };
        let mut g = self.inner.write();
        let walk = guarded(py, || {
            Gradients::new(&mut g, scope, device, aggregation)
                .colocate_with_ops(colocate_with_ops)
                .stop_at(&stop)
                .external(&external)
                .start_seeded(&ys, &xs, &grad_ys)
        })?;
        Ok(PyGradientWalk { graph: Arc::clone(&self.inner), walk: Mutex::new(walk) })
    }

    /// `(name, op_type, inputs, control_inputs, device, output specs)` of node `id`
    /// (used to wrap nodes that Rust added, such as gradients).
    #[allow(clippy::type_complexity)]
    fn node_info<'py>(
        &self,
        py: Python<'py>,
        id: usize,
    ) -> PyResult<(String, &'static str, Vec<(usize, usize)>, Vec<usize>, String, Bound<'py, PyList>)> {
        let g = self.inner.read();
        let n = guarded(py, || g.node(id))?;
        let specs = n.outputs.iter().map(|s| spec_to_py(py, s)).collect::<PyResult<Vec<_>>>()?;
        Ok((
            n.name.clone(),
            n.op_type(),
            n.inputs.iter().map(|o| (o.node, o.index)).collect(),
            n.control_inputs.clone(),
            n.device.clone(),
            PyList::new(py, specs)?,
        ))
    }

    /// Marks the graph read-only.
    fn finalize(&self) {
        self.inner.write().finalize();
    }

    /// Makes a finalized graph modifiable again.
    fn unfinalize(&self) {
        self.inner.write().unfinalize();
    }

    /// Whether the graph is read-only.
    #[getter]
    fn finalized(&self) -> bool {
        self.inner.read().finalized()
    }

    /// Number of nodes.
    fn num_nodes(&self) -> usize {
        self.inner.read().len()
    }

    /// The serialized GraphDef of the first `upto` nodes (all when `None`).
    #[pyo3(signature = (upto = None))]
    fn graph_def<'py>(&self, py: Python<'py>, upto: Option<usize>) -> Bound<'py, PyBytes> {
        let bytes = self.inner.read().to_graph_def(upto).encode_to_vec();
        PyBytes::new(py, &bytes)
    }
}

/// A paused `tf.gradients` computation (the core's `GradientWalk`).
#[pyclass(frozen, name = "GradientWalk", module = "ferroflow._ferroflow")]
pub struct PyGradientWalk {
    graph: Arc<RwLock<Graph>>,
    walk: Mutex<GradientWalk>,
}

fn grad_to_py<'py>(py: Python<'py>, g: Option<Grad>) -> PyResult<Bound<'py, PyAny>> {
    let pair = |o: Output| (o.node, o.index);
    Ok(match g {
        None => py.None().into_bound(py),
        Some(Grad::Dense(o)) => ("dense", pair(o)).into_pyobject(py)?.into_any(),
        Some(Grad::Sparse { values, indices, dense_shape }) => {
            ("sparse", pair(values), pair(indices), pair(dense_shape)).into_pyobject(py)?.into_any()
        }
    })
}

fn grad_from_py(g: &Bound<'_, PyAny>) -> PyResult<Option<Grad>> {
    if g.is_none() {
        return Ok(None);
    }
    let out = |(node, index): (usize, usize)| Output { node, index };
    let kind: String = g.get_item(0)?.extract()?;
    Ok(Some(match kind.as_str() {
        "dense" => Grad::Dense(out(g.get_item(1)?.extract()?)),
        "sparse" => Grad::Sparse {
            values: out(g.get_item(1)?.extract()?),
            indices: out(g.get_item(2)?.extract()?),
            dense_shape: out(g.get_item(3)?.extract()?),
        },
        other => return Err(PyValueError::new_err(format!("unknown gradient kind {other:?}"))),
    }))
}

#[pymethods]
impl PyGradientWalk {
    /// Runs the walk on. `supplied` is None at first, then the input gradients of the
    /// node the previous step returned (`None`, `("dense", t)` or `("sparse", v, i,
    /// s)` each). Returns `("external", node, out_grads)` or `("done", grads)`.
    #[pyo3(signature = (supplied=None))]
    fn resume<'py>(&self, py: Python<'py>, supplied: Option<Vec<Bound<'py, PyAny>>>) -> PyResult<Bound<'py, PyTuple>> {
        let supplied = supplied.map(|v| v.iter().map(grad_from_py).collect::<PyResult<Vec<_>>>()).transpose()?;
        let step = {
            let mut g = self.graph.write();
            let mut walk = self.walk.lock().map_err(|_| PyValueError::new_err("gradient walk poisoned"))?;
            guarded(py, || walk.resume(&mut g, supplied))?
        };
        match step {
            WalkStep::External { node, out_grads } => {
                let grads = out_grads.into_iter().map(|g| grad_to_py(py, g)).collect::<PyResult<Vec<_>>>()?;
                PyTuple::new(
                    py,
                    [
                        "external".into_pyobject(py)?.into_any(),
                        node.into_pyobject(py)?.into_any(),
                        PyList::new(py, grads)?.into_any(),
                    ],
                )
            }
            WalkStep::Done(grads) => {
                let grads = grads.into_iter().map(|g| grad_to_py(py, g)).collect::<PyResult<Vec<_>>>()?;
                PyTuple::new(py, ["done".into_pyobject(py)?.into_any(), PyList::new(py, grads)?.into_any()])
            }
        }
    }
}
