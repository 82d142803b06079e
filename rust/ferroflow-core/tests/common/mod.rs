//! Graph building for the integration tests: nodes through the op registry, as the
//! Python layer adds them.
#![allow(dead_code)] // each test crate uses its own part

use std::collections::BTreeMap;
use std::sync::Arc;

use ferroflow_core::executor::GraphLock;
use ferroflow_core::{AttrValue, DType, DirectSession, Graph, NodeSpec, Output, PartialShape, SessionOptions, Tensor};

pub struct Builder {
    pub graph: Arc<GraphLock<Graph>>,
}

impl Builder {
    pub fn new() -> Self {
        Builder { graph: Arc::new(GraphLock::new(Graph::new())) }
    }

    pub fn op(&self, op: &str, name: &str, inputs: &[Output], attrs: Vec<(&str, AttrValue)>) -> Output {
        self.try_op(op, name, inputs, &[], attrs).unwrap()
    }

    /// A node on `device` (a device specification; empty for any).
    pub fn op_on(
        &self,
        device: &str,
        op: &str,
        name: &str,
        inputs: &[Output],
        attrs: Vec<(&str, AttrValue)>,
    ) -> Output {
        self.node(op, name, inputs, &[], attrs, device).unwrap()
    }

    /// A node on `device` with control inputs.
    pub fn op_full(
        &self,
        device: &str,
        op: &str,
        name: &str,
        inputs: &[Output],
        control: &[usize],
        attrs: Vec<(&str, AttrValue)>,
    ) -> Output {
        self.node(op, name, inputs, control, attrs, device).unwrap()
    }

    pub fn try_op(
        &self,
        op: &str,
        name: &str,
        inputs: &[Output],
        control: &[usize],
        attrs: Vec<(&str, AttrValue)>,
    ) -> ferroflow_core::Result<Output> {
        self.node(op, name, inputs, control, attrs, "")
    }

    fn node(
        &self,
        op: &str,
        name: &str,
        inputs: &[Output],
        control: &[usize],
        attrs: Vec<(&str, AttrValue)>,
        device: &str,
    ) -> ferroflow_core::Result<Output> {
        let mut g = self.graph.write();
        let name = g.unique_name(name, true);
        let attrs: BTreeMap<String, AttrValue> = attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let id = g.add_node(NodeSpec {
            name,
            op: op.to_string(),
            inputs: inputs.to_vec(),
            control_inputs: control.to_vec(),
            attrs,
            device: device.to_string(),
        })?;
        Ok(Output { node: id, index: 0 })
    }

    /// A scalar int64 reference variable and its `Assign` of `initial`.
    pub fn int_variable(&self, name: &str, initial: i64) -> (Output, Output) {
        let v = self.op(
            "VariableV2",
            name,
            &[],
            vec![("dtype", AttrValue::Type(DType::Int64)), ("shape", AttrValue::Shape(PartialShape::scalar()))],
        );
        let init_value = self.constant(Tensor::scalar(initial));
        (v, self.op("Assign", "init", &[v, init_value], vec![]))
    }

    pub fn constant(&self, t: Tensor) -> Output {
        self.op("Const", "Const", &[], vec![("value", AttrValue::Tensor(t))])
    }

    pub fn placeholder(&self, name: &str) -> Output {
        self.op(
            "Placeholder",
            name,
            &[],
            vec![
                ("dtype", AttrValue::Type(DType::Float32)),
                ("shape", AttrValue::Shape(PartialShape::from_dims([None]))),
            ],
        )
    }

    pub fn session(&self, inter: usize) -> Arc<DirectSession> {
        self.session_with(SessionOptions { inter_op_threads: inter, intra_op_threads: 1, ..Default::default() })
    }

    pub fn session_with(&self, options: SessionOptions) -> Arc<DirectSession> {
        DirectSession::new(Arc::clone(&self.graph), options)
    }
}
