//! Adding the nodes of a `GraphDef` to a graph: what a session master does with the
//! graph a client sends (`CreateSession`, `ExtendSession`) and a worker with the
//! partition it is given (`RegisterGraph`). Python's `tf.import_graph_def` stays in
//! Python (it renames, maps inputs and returns elements); this is the plain, whole-
//! graph form, as TF's `ConvertGraphDefToGraph`.
use std::collections::{HashMap, HashSet};

use ferroflow_proto as pb;

use super::{AttrValue, Graph, NodeId, NodeSpec, Output};
use crate::error::{Code, Error, Result};

/// One parsed NodeDef input: `src`, `src:k` or `^src`.
enum InputRef<'a> {
    Data(&'a str, usize),
    Control(&'a str),
}

fn parse_input<'a>(node: &str, input: &'a str) -> Result<InputRef<'a>> {
    if let Some(src) = input.strip_prefix('^') {
        return Ok(InputRef::Control(src));
    }
    match input.rsplit_once(':') {
        Some((src, idx)) => idx
            .parse::<usize>()
            .map(|i| InputRef::Data(src, i))
            .map_err(|_| Error::invalid_argument(format!("Node '{node}': Malformed input '{input}'"))),
        None => Ok(InputRef::Data(input, 0)),
    }
}

impl Graph {
    /// Adds every node of `def` (in any order: a node is added after its inputs),
    /// whose inputs name nodes of `def` or nodes already in the graph; returns the new
    /// nodes' ids in the order added. All or nothing: on an error (an unknown input, a
    /// cycle, a duplicate name, an op's own validation) the graph is left as it was.
    pub fn extend_from_graph_def(&mut self, def: &pb::GraphDef) -> Result<Vec<NodeId>> {
        let mut index: HashMap<&str, usize> = HashMap::with_capacity(def.node.len());
        for (i, n) in def.node.iter().enumerate() {
            if index.insert(n.name.as_str(), i).is_some() || self.find(&n.name).is_some() {
                return Err(Error::invalid_argument(format!("Node '{}' is not unique", n.name)));
            }
        }
        // Kahn's order over the new nodes' dependencies on each other.
        let mut waiting_on = vec![0usize; def.node.len()];
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); def.node.len()];
        for (i, n) in def.node.iter().enumerate() {
            let mut seen = HashSet::new();
            for input in &n.input {
                let src = match parse_input(&n.name, input)? {
                    InputRef::Data(s, _) | InputRef::Control(s) => s,
                };
                if let Some(&j) = index.get(src) {
                    if seen.insert(j) {
                        waiting_on[i] += 1;
                        dependents[j].push(i);
                    }
                } else if self.find(src).is_none() {
                    return Err(Error::invalid_argument(format!("Node '{}': Unknown input node '{input}'", n.name)));
                }
            }
        }
        let mut ready: Vec<usize> = (0..def.node.len()).rev().filter(|&i| waiting_on[i] == 0).collect();
        let mut order = Vec::with_capacity(def.node.len());
        while let Some(i) = ready.pop() {
            order.push(i);
            for &d in dependents[i].iter().rev() {
                waiting_on[d] -= 1;
                if waiting_on[d] == 0 {
                    ready.push(d);
                }
            }
        }
        if order.len() != def.node.len() {
            let stuck: Vec<&str> =
                (0..def.node.len()).filter(|&i| waiting_on[i] > 0).map(|i| def.node[i].name.as_str()).collect();
            return Err(Error::invalid_argument(format!(
                "GraphDef has a cycle through the nodes: {}",
                stuck.join(", ")
            )));
        }
        let start = self.len();
        let mut added = Vec::with_capacity(order.len());
        for i in order {
            match self.add_node_def(&def.node[i]) {
                Ok(id) => added.push(id),
                Err(e) => {
                    self.truncate(start);
                    return Err(e);
                }
            }
        }
        Ok(added)
    }

    fn add_node_def(&mut self, n: &pb::NodeDef) -> Result<NodeId> {
        let mut inputs = Vec::new();
        let mut control_inputs = Vec::new();
        for input in &n.input {
            match parse_input(&n.name, input)? {
                InputRef::Data(src, index) => {
                    let node =
                        self.find(src).ok_or_else(|| Error::new(Code::Internal, format!("input {src} not added")))?;
                    if index >= self.nodes[node].outputs.len() {
                        return Err(Error::invalid_argument(format!(
                            "Node '{}': Connecting to invalid output {index} of source node {src} which has {} \
                             outputs.",
                            n.name,
                            self.nodes[node].outputs.len()
                        )));
                    }
                    inputs.push(Output { node, index });
                }
                InputRef::Control(src) => control_inputs
                    .push(self.find(src).ok_or_else(|| Error::new(Code::Internal, format!("{src} not added")))?),
            }
        }
        let mut attrs = std::collections::BTreeMap::new();
        for (k, v) in &n.attr {
            // An empty AttrValue (a list of nothing) reads as an empty int list.
            let value = AttrValue::from_proto(v).unwrap_or(AttrValue::ListI(Vec::new()));
            attrs.insert(k.clone(), value);
        }
        self.add_node(NodeSpec {
            name: n.name.clone(),
            op: n.op.clone(),
            inputs,
            control_inputs,
            attrs,
            device: n.device.clone(),
        })
    }

    /// Drops the nodes from `len` on (nothing refers to them yet: an import undone).
    fn truncate(&mut self, len: usize) {
        for node in self.nodes.drain(len..) {
            self.by_name.remove(&node.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, op: &str, inputs: &[&str], attrs: Vec<(&str, AttrValue)>) -> pb::NodeDef {
        pb::NodeDef {
            name: name.into(),
            op: op.into(),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            attr: attrs.into_iter().map(|(k, v)| (k.to_string(), v.to_proto())).collect(),
            ..Default::default()
        }
    }

    fn const_f32(name: &str, v: f32) -> pb::NodeDef {
        let t = crate::tensor::Tensor::scalar(v);
        node(
            name,
            "Const",
            &[],
            vec![("value", AttrValue::Tensor(t)), ("dtype", AttrValue::Type(crate::dtype::DType::Float32))],
        )
    }

    #[test]
    fn nodes_in_any_order_and_extending_an_existing_graph() {
        let mut g = Graph::new();
        let t = AttrValue::Type(crate::dtype::DType::Float32).to_proto();
        let mut add = node("s", "AddV2", &["a", "b:0", "^c"], vec![]);
        add.attr.insert("T".into(), t.clone());
        let def = pb::GraphDef {
            node: vec![add, const_f32("a", 1.0), const_f32("b", 2.0), const_f32("c", 3.0)],
            ..Default::default()
        };
        let ids = g.extend_from_graph_def(&def).unwrap();
        assert_eq!(ids.len(), 4);
        let s = g.find("s").unwrap();
        assert_eq!(g.nodes()[s].control_inputs, vec![g.find("c").unwrap()]);
        // A second GraphDef may use the first one's nodes.
        let mut mul = node("m", "Mul", &["s", "a"], vec![]);
        mul.attr.insert("T".into(), t);
        g.extend_from_graph_def(&pb::GraphDef { node: vec![mul], ..Default::default() }).unwrap();
        assert_eq!(g.len(), 5);
    }

    #[test]
    fn errors_leave_the_graph_unchanged() {
        let mut g = Graph::new();
        g.extend_from_graph_def(&pb::GraphDef { node: vec![const_f32("a", 1.0)], ..Default::default() }).unwrap();
        let unknown = pb::GraphDef { node: vec![node("x", "Identity", &["nope"], vec![])], ..Default::default() };
        let e = g.extend_from_graph_def(&unknown).unwrap_err();
        assert!(e.to_string().contains("Unknown input node 'nope'"), "{e}");
        let dup = pb::GraphDef { node: vec![const_f32("a", 2.0)], ..Default::default() };
        assert!(g.extend_from_graph_def(&dup).unwrap_err().to_string().contains("not unique"));
        let cycle = pb::GraphDef {
            node: vec![node("p", "Identity", &["q"], vec![]), node("q", "Identity", &["p"], vec![])],
            ..Default::default()
        };
        assert!(g.extend_from_graph_def(&cycle).unwrap_err().to_string().contains("cycle"));
        // The op's own validation fails on the second node: the first is rolled back.
        let bad = pb::GraphDef {
            node: vec![const_f32("b", 1.0), node("bad", "AddV2", &["b"], vec![])],
            ..Default::default()
        };
        assert!(g.extend_from_graph_def(&bad).is_err());
        assert_eq!(g.len(), 1);
        assert!(g.find("b").is_none());
    }
}
