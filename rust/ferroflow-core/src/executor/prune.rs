//! The prune pass, shared by local plans ([`super::Plan::compile`]) and cluster
//! partitions ([`super::partition_for_cluster`]): a run signature's feeds, checked, and
//! the nodes its fetches and targets need.
use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::graph::{Graph, Node, NodeId, Output};

/// The fed tensors, by position in `feeds`; TF's `ValueError` for a tensor fed twice
/// (`display` names it as the caller's messages do). Every feed and fetch must exist.
pub(super) fn index_feeds(
    graph: &Graph,
    feeds: &[Output],
    fetches: &[Output],
    display: impl Fn(&str, usize) -> String,
) -> Result<HashMap<Output, usize>> {
    let mut fed = HashMap::with_capacity(feeds.len());
    for (i, f) in feeds.iter().enumerate() {
        graph.output_spec(*f)?;
        if fed.insert(*f, i).is_some() {
            let name = display(&graph.node(f.node)?.name, f.index);
            return Err(Error::value(format!("Tensor {name} is fed more than once")));
        }
    }
    for f in fetches {
        graph.output_spec(*f)?;
    }
    Ok(fed)
}

/// The control inputs of `node` that still bind: a fed placeholder's are satisfied by
/// the feed (TF redirects them to the feed node), so it is neither run nor waited for.
pub(super) fn binding_controls(graph: &Graph, fed: &HashMap<Output, usize>, node: &Node) -> Vec<NodeId> {
    node.control_inputs
        .iter()
        .copied()
        .filter(|&c| {
            let is_fed = fed.contains_key(&Output { node: c, index: 0 });
            !(is_fed && graph.node(c).is_ok_and(|n| n.def.feed_satisfies_control))
        })
        .collect()
}

/// Which nodes run (indexed by node id): every node reachable backwards from the
/// fetches and targets, not crossing fed edges. Nodes are appended after their
/// inputs, so id order is a topological order of the result.
pub(super) fn prune(
    graph: &Graph,
    fed: &HashMap<Output, usize>,
    fetches: &[Output],
    targets: &[NodeId],
) -> Result<Vec<bool>> {
    let mut needed = vec![false; graph.len()];
    let mut stack: Vec<NodeId> =
        fetches.iter().filter(|f| !fed.contains_key(f)).map(|f| f.node).chain(targets.iter().copied()).collect();
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut needed[n], true) {
            continue;
        }
        let node = graph.node(n)?;
        stack.extend(node.inputs.iter().filter(|i| !fed.contains_key(i)).map(|i| i.node));
        stack.extend(binding_controls(graph, fed, node));
    }
    Ok(needed)
}
