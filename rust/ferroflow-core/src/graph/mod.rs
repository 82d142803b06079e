//! The dataflow graph: nodes with typed, shape-inferred outputs, added through the op
//! registry, which validates inputs and raises TF's construction-time errors.
mod import;

use std::collections::{BTreeMap, HashMap};

use ferroflow_proto as pb;

pub(crate) use crate::framework::attr::read_attr;
pub use crate::framework::attr::{AttrValue, FromAttr};
pub use crate::framework::output::{NodeId, Output, OutputSpec};

use crate::error::{Error, Result};
use crate::ops::{self, InferCtx, OpDef};
use crate::shape::PartialShape;
use crate::tensor::Tensor;

/// One operation in the graph.
pub struct Node {
    /// Unique name.
    pub name: String,
    /// The op's definition (type, arity, shape function, kernel).
    pub def: &'static OpDef,
    /// Data inputs.
    pub inputs: Vec<Output>,
    /// Nodes that must run before this one.
    pub control_inputs: Vec<NodeId>,
    /// Attributes, sorted by name.
    pub attrs: BTreeMap<String, AttrValue>,
    /// Requested device (`/device:CPU:0`), empty for any.
    pub device: String,
    /// Output types and static shapes.
    pub outputs: Vec<OutputSpec>,
}

impl Node {
    /// The op type name (`MatMul`).
    pub fn op_type(&self) -> &'static str {
        self.def.name
    }
    /// Attr `name` as a `T`: `None` when absent, a `ValueError` naming the node when it
    /// holds another kind of value.
    pub fn attr<T: FromAttr>(&self, name: &str) -> Result<Option<T>> {
        read_attr(&self.attrs, &self.name, self.def.name, name)
    }
    /// Attr `name` as a `T`, or `default` when absent.
    pub fn attr_or<T: FromAttr>(&self, name: &str, default: T) -> Result<T> {
        Ok(self.attr(name)?.unwrap_or(default))
    }
    /// Attr `name` as a `T`; a `ValueError` naming it when absent.
    pub fn required_attr<T: FromAttr>(&self, name: &str) -> Result<T> {
        self.attr(name)?
            .ok_or_else(|| Error::value(format!("Op '{}' ({}) is missing attr '{name}'", self.name, self.def.name)))
    }
}

/// What a caller supplies to add a node.
pub struct NodeSpec {
    /// The already-unique node name.
    pub name: String,
    /// The op type.
    pub op: String,
    /// Data inputs.
    pub inputs: Vec<Output>,
    /// Control inputs.
    pub control_inputs: Vec<NodeId>,
    /// Attributes.
    pub attrs: BTreeMap<String, AttrValue>,
    /// Requested device.
    pub device: String,
}

/// A dataflow graph. Nodes are only ever appended, so ids and plans stay valid as it grows.
#[derive(Default)]
pub struct Graph {
    nodes: Vec<Node>,
    by_name: HashMap<String, NodeId>,
    names_in_use: HashMap<String, usize>,
    finalized: bool,
}

/// The GraphDef producer version ferroflow writes: a TF-1.x era value (see spec).
pub const GRAPH_DEF_VERSION: i32 = 27;

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    /// Whether the graph has no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
    /// The node with id `id`.
    pub fn node(&self, id: NodeId) -> Result<&Node> {
        self.nodes.get(id).ok_or_else(|| Error::value(format!("no node with id {id} in this graph")))
    }
    /// All nodes in creation order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    /// The id of the node named `name`.
    pub fn find(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).copied()
    }
    /// The static type of a tensor.
    pub fn output_spec(&self, out: Output) -> Result<&OutputSpec> {
        let node = self.node(out.node)?;
        node.outputs.get(out.index).ok_or_else(|| {
            Error::value(format!(
                "The operation '{}' has {} outputs; no output {}",
                node.name,
                node.outputs.len(),
                out.index
            ))
        })
    }
    /// Marks the graph read-only.
    pub fn finalize(&mut self) {
        self.finalized = true;
    }
    /// Whether the graph is read-only.
    /// Makes the graph modifiable again (TF's `_unsafe_unfinalize`, used by
    /// `MonitoredSession.close` to give back a graph it finalized).
    pub fn unfinalize(&mut self) {
        self.finalized = false;
    }
    /// Whether `finalize` was called (and not undone).
    pub fn finalized(&self) -> bool {
        self.finalized
    }

    /// TensorFlow's `Graph.unique_name`: `name`, or `name_1`, `name_2`, ... if taken
    /// (case-insensitively, as TF compares lower-cased names).
    pub fn unique_name(&mut self, name: &str, mark_as_used: bool) -> String {
        let key = name.to_lowercase();
        let mut i = self.names_in_use.get(&key).copied().unwrap_or(0);
        if mark_as_used {
            self.names_in_use.insert(key.clone(), i + 1);
        }
        if i == 0 {
            return name.to_string();
        }
        let mut candidate = format!("{key}_{i}");
        while self.names_in_use.contains_key(&candidate) {
            i += 1;
            candidate = format!("{key}_{i}");
        }
        if mark_as_used {
            self.names_in_use.insert(candidate, 1);
        }
        format!("{name}_{i}")
    }

    /// Validates `spec` against its op definition, infers its outputs and appends it.
    pub fn add_node(&mut self, spec: NodeSpec) -> Result<NodeId> {
        if self.finalized {
            return Err(Error::new(
                crate::error::Code::FailedPrecondition,
                "Graph is finalized and cannot be modified.",
            ));
        }
        let def = ops::lookup(&spec.op)?;
        if self.by_name.contains_key(&spec.name) {
            return Err(Error::value(format!("Duplicate node name in graph: '{}'", spec.name)));
        }
        if spec.name.is_empty() {
            return Err(Error::value("Node name must not be empty"));
        }
        def.check_arity(spec.inputs.len()).map_err(|e| prefix(e, &spec.name))?;
        let mut input_specs = Vec::with_capacity(spec.inputs.len());
        for (i, inp) in spec.inputs.iter().enumerate() {
            let s = self.output_spec(*inp).map_err(|e| prefix(e, &spec.name))?;
            if def.ref_inputs.contains(&i) && !s.is_ref {
                return Err(Error::type_error(format!(
                    "'{}' Op requires that input '{}' be a mutable tensor (e.g.: a tf.Variable)",
                    def.name,
                    def.input_name(i)
                )));
            }
            input_specs.push(s.clone());
        }
        for &c in &spec.control_inputs {
            self.node(c)?;
        }
        let consts: Vec<Option<Tensor>> =
            spec.inputs.iter().map(|o| if o.index == 0 { self.const_value(o.node).cloned() } else { None }).collect();
        let shape_values: Vec<Option<PartialShape>> = spec.inputs.iter().map(|o| self.shape_value(*o)).collect();
        let mut attrs = spec.attrs;
        let ctx = InferCtx {
            def,
            name: &spec.name,
            inputs: &input_specs,
            attrs: &mut attrs,
            consts: &consts,
            shape_values: &shape_values,
        };
        let outputs = (def.infer)(ctx).map_err(|e| prefix(e, &spec.name))?;
        let id = self.nodes.len();
        // A name taken explicitly also reserves it for unique_name.
        let key = spec.name.to_lowercase();
        self.names_in_use.entry(key).or_insert(1);
        self.by_name.insert(spec.name.clone(), id);
        self.nodes.push(Node {
            name: spec.name,
            def,
            inputs: spec.inputs,
            control_inputs: spec.control_inputs,
            attrs,
            device: spec.device,
            outputs,
        });
        Ok(id)
    }

    /// What is statically known about the value of an int vector used as a shape: a
    /// `Const` (with -1 as unknown) or a `Shape` op of a tensor of known rank.
    fn shape_value(&self, o: Output) -> Option<PartialShape> {
        let node = self.nodes.get(o.node)?;
        match node.def.name {
            "Shape" => {
                let s = &self.output_spec(node.inputs[0]).ok()?.shape;
                s.rank().map(|_| s.clone())
            }
            "Const" if o.index == 0 => {
                let t = self.const_value(o.node)?;
                if t.shape().len() != 1 {
                    return None;
                }
                let v = crate::framework::tensor_util::int_values(t).ok()?;
                Some(PartialShape::from_dims(v.into_iter().map(|d| usize::try_from(d).ok())))
            }
            // A stack of scalars (what a list holding tensors packs to): the constant
            // ones are known, as TF's `MakeShapeFromShapeTensor` reads them.
            "Pack" if matches!(node.attrs.get("axis"), Some(AttrValue::I(0))) => {
                let mut dims = Vec::with_capacity(node.inputs.len());
                for i in &node.inputs {
                    if self.output_spec(*i).ok()?.shape.rank() != Some(0) {
                        return None;
                    }
                    let known = self.const_value(i.node).filter(|_| i.index == 0);
                    dims.push(known.and_then(|t| {
                        usize::try_from(*crate::framework::tensor_util::int_values(t).ok()?.first()?).ok()
                    }));
                }
                Some(PartialShape::from_dims(dims))
            }
            _ => None,
        }
    }

    /// Overrides the static shape of an output (Python `Tensor.set_shape`), merging with the
    /// inferred one; incompatible shapes are a `ValueError`.
    pub fn set_output_shape(&mut self, out: Output, shape: &PartialShape) -> Result<()> {
        let merged = self.output_spec(out)?.shape.merge(shape)?;
        self.nodes[out.node].outputs[out.index].shape = merged;
        Ok(())
    }

    /// `node`'s inputs as a NodeDef lists them: `src`, `src:1`, then `^control`.
    pub fn node_def_inputs(&self, node: &Node) -> Vec<String> {
        node.inputs
            .iter()
            .map(|o| {
                let src = &self.nodes[o.node].name;
                if o.index == 0 { src.clone() } else { format!("{src}:{}", o.index) }
            })
            .chain(node.control_inputs.iter().map(|c| format!("^{}", self.nodes[*c].name)))
            .collect()
    }

    /// The GraphDef of nodes `0..upto` (all when `None`), as TensorFlow writes it.
    pub fn to_graph_def(&self, upto: Option<usize>) -> pb::GraphDef {
        let n = upto.unwrap_or(self.nodes.len()).min(self.nodes.len());
        let node = self.nodes[..n]
            .iter()
            .map(|node| pb::NodeDef {
                name: node.name.clone(),
                op: node.def.name.to_string(),
                input: self.node_def_inputs(node),
                device: node.device.clone(),
                attr: node.attrs.iter().map(|(k, v)| (k.clone(), v.to_proto())).collect(),
                experimental_debug_info: None,
            })
            .collect();
        pb::GraphDef {
            node,
            versions: Some(pb::VersionDef { producer: GRAPH_DEF_VERSION, ..Default::default() }),
            ..Default::default()
        }
    }

    /// A constant tensor attribute of a node (`Const.value`).
    pub fn const_value(&self, id: NodeId) -> Option<&Tensor> {
        match self.nodes.get(id)?.attrs.get("value") {
            Some(AttrValue::Tensor(t)) if self.nodes[id].def.name == "Const" => Some(t),
            _ => None,
        }
    }
}

fn prefix(mut e: Error, node: &str) -> Error {
    // A message in TF's node-validation form already names the node (`{{node x}}`).
    if e.kind != crate::error::Kind::Status && !e.message.contains(&format!("{{{{node {node}}}}}")) {
        e.message = format!("{} (node '{node}')", e.message);
    }
    e
}
