//! The copy pass: a value consumed in another memory than its producer leaves it in
//! goes through one copy per destination, run just before its first consumer there.
//! Memories are devices by index, the CPU's being host memory: fed values are there,
//! and so are the inputs and outputs a device's kernel keeps on the host
//! (`KernelDef::host_memory`). Fetched values come back to the host. (Send/Recv pairs
//! for remote tasks are the partition of `partition.rs`.)
use std::collections::HashMap;

use super::fuse::Fusion;
use crate::error::Result;
use crate::graph::{Graph, Node, NodeId, Output};
use crate::kernels::registry::KernelDef;

/// One step of the plan before slots are assigned: a node, or a copy of a value to
/// another device.
pub(super) enum Entry {
    Node(NodeId),
    Copy { src: Output, device: usize },
}

/// Which memory each value is in and each input is read from.
pub(super) struct Memories<'a> {
    /// The host's device index.
    pub cpu: usize,
    /// Each node's device index.
    pub device_of: &'a HashMap<NodeId, usize>,
    /// Each node's kernel.
    pub kernel_defs: &'a HashMap<NodeId, KernelDef>,
    /// The fed values (in host memory).
    pub feeds: &'a HashMap<Output, usize>,
}

impl Memories<'_> {
    /// The memory value `o` is in.
    pub(super) fn of_value(&self, o: &Output) -> usize {
        if self.feeds.contains_key(o) || self.kernel_defs[&o.node].host_outputs {
            self.cpu
        } else {
            self.device_of[&o.node]
        }
    }
    /// The memory input `i` (from `src`) of node `n` is read from.
    pub(super) fn of_input(&self, n: NodeId, node: &Node, i: usize, src: &Output) -> usize {
        let def = &self.kernel_defs[&n];
        if def.shape_only {
            self.of_value(src)
        } else if def.input_on_host(node, i) {
            self.cpu
        } else {
            self.device_of[&n]
        }
    }
}

/// The plan's entries in order (each node, after copies of the inputs it reads from
/// another memory), and the entry of each copy by (value, destination memory).
#[allow(clippy::type_complexity)]
pub(super) fn insert_copies(
    graph: &Graph,
    fusion: &Fusion,
    order: &[NodeId],
    sources: &HashMap<NodeId, Vec<Output>>,
    fetches: &[Output],
    memories: &Memories<'_>,
) -> Result<(Vec<Entry>, HashMap<(Output, usize), usize>)> {
    let cpu = memories.cpu;
    let mut entries: Vec<Entry> = Vec::with_capacity(order.len());
    let mut copy_entry: HashMap<(Output, usize), usize> = HashMap::new();
    for &n in order {
        let node = fusion.node(graph, n)?;
        for (i, src) in sources[&n].iter().enumerate() {
            let dst = memories.of_input(n, node, i, src);
            if node.def.ref_inputs.contains(&i) || memories.of_value(src) == dst {
                continue;
            }
            copy_entry.entry((*src, dst)).or_insert_with(|| {
                entries.push(Entry::Copy { src: *src, device: dst });
                entries.len() - 1
            });
        }
        entries.push(Entry::Node(n));
    }
    for f in fetches {
        if !memories.feeds.contains_key(f) && memories.of_value(f) != cpu {
            copy_entry.entry((*f, cpu)).or_insert_with(|| {
                entries.push(Entry::Copy { src: *f, device: cpu });
                entries.len() - 1
            });
        }
    }
    Ok((entries, copy_entry))
}
