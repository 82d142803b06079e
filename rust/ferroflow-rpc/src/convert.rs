//! Tensor and node names as TF's messages carry them.
use ferroflow_core::error::{Error, Result};
use ferroflow_core::graph::{Graph, NodeId, Output};

/// `"name:k"` (or `"name"`, output 0) to the output of `graph` it names.
pub fn find_output(graph: &Graph, name: &str) -> Result<Output> {
    let (node, index) = match name.rsplit_once(':') {
        Some((n, i)) => match i.parse::<usize>() {
            Ok(i) => (n, i),
            Err(_) => (name, 0),
        },
        None => (name, 0),
    };
    let id = graph.find(node).ok_or_else(|| {
        Error::invalid_argument(format!(
            "Tensor {name}, specified in either feed_devices or fetch_devices was not in the Graph"
        ))
    })?;
    if index >= graph.nodes()[id].outputs.len() {
        return Err(Error::invalid_argument(format!(
            "Tensor {name}: node {node} has only {} outputs",
            graph.nodes()[id].outputs.len()
        )));
    }
    Ok(Output { node: id, index })
}

/// A target node by name.
pub fn find_node(graph: &Graph, name: &str) -> Result<NodeId> {
    graph.find(name).ok_or_else(|| Error::invalid_argument(format!("Node '{name}' is not in the graph")))
}

/// `"name:k"` as TF's clients write a fetch.
pub fn output_name(graph: &Graph, o: Output) -> String {
    format!("{}:{}", graph.nodes()[o.node].name, o.index)
}
