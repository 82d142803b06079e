//! The place pass of plan compilation (TF's `Placer`): every node of the pruned graph
//! gets one device of the session's [`DeviceSet`]. Nodes that must share a device
//! form colocation groups: the `_class` attr's `loc:@<node>` entries (written by
//! `tf.colocate_with`), and a ref input with the variable it refers to (an `Assign`
//! runs where its variable lives). A group's requests are merged; the group goes to
//! the highest-priority device that matches the request and has a kernel for every
//! member. With `allow_soft_placement`, a request no device can meet keeps only its
//! job, replica and task, as TF's soft placement does.
use std::collections::{HashMap, HashSet};

use crate::device::{Device, DeviceSet, DeviceSpec};
use crate::error::{Code, Error, Result};
use crate::graph::{AttrValue, Graph, NodeId};
use crate::kernels::registry::find_kernel;

/// Placement settings of a session (`ConfigProto`).
#[derive(Clone, Debug)]
pub struct Placement {
    /// The devices nodes may go to.
    pub devices: DeviceSet,
    /// `allow_soft_placement`: a request no device can meet falls back to one that can.
    pub soft: bool,
}

/// Union-find over node ids.
struct Groups {
    parent: HashMap<NodeId, NodeId>,
}

impl Groups {
    fn find(&mut self, n: NodeId) -> NodeId {
        let p = *self.parent.entry(n).or_insert(n);
        if p == n {
            return n;
        }
        let root = self.find(p);
        self.parent.insert(n, root);
        root
    }
    fn union(&mut self, a: NodeId, b: NodeId) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent.insert(ra.max(rb), ra.min(rb));
        }
    }
}

/// The nodes `node` is asked to be colocated with (`_class: ["loc:@name", ...]`).
fn colocated_names(graph: &Graph, node: NodeId) -> Result<Vec<String>> {
    let node = graph.node(node)?;
    let Some(AttrValue::ListS(items)) = node.attrs.get("_class") else { return Ok(Vec::new()) };
    Ok(items.iter().filter_map(|s| std::str::from_utf8(s).ok()?.strip_prefix("loc:@").map(str::to_string)).collect())
}

fn parse_request(graph: &Graph, n: NodeId) -> Result<DeviceSpec> {
    let node = graph.node(n)?;
    DeviceSpec::parse(&node.device).map_err(|e| e.with_node(&node.name))
}

/// The device of every node in `nodes` (indices into `placement.devices.devices()`).
///
/// Colocation groups are formed over the whole graph, as TF places the whole graph: a
/// variable goes where the ops that update it can run even in a run that does not
/// include them (the initializer's), so later runs find it there. Members outside the
/// run add their requests, and the kernels they need are preferred but not required.
pub(crate) fn place(graph: &Graph, nodes: &[NodeId], placement: &Placement) -> Result<HashMap<NodeId, usize>> {
    let mut groups = Groups { parent: HashMap::new() };
    for n in 0..graph.len() {
        for name in colocated_names(graph, n)? {
            if let Some(other) = graph.find(&name) {
                groups.union(n, other);
            }
        }
        let node = graph.node(n)?;
        for &i in node.def.ref_inputs {
            if let Some(src) = node.inputs.get(i) {
                groups.union(n, src.node);
            }
        }
    }
    let needed: HashSet<NodeId> = nodes.iter().copied().collect();
    let mut members: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    for &n in nodes {
        let root = groups.find(n);
        members.entry(root).or_default().push(n);
    }
    let mut outside: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    for n in 0..graph.len() {
        if !needed.contains(&n) && groups.parent.contains_key(&n) {
            let root = groups.find(n);
            if members.contains_key(&root) {
                outside.entry(root).or_default().push(n);
            }
        }
    }
    let mut assigned = HashMap::with_capacity(nodes.len());
    let mut roots: Vec<NodeId> = members.keys().copied().collect();
    roots.sort_unstable();
    for root in roots {
        let group = &members[&root];
        let others = outside.get(&root).map(Vec::as_slice).unwrap_or_default();
        let requesters: Vec<NodeId> = group.iter().chain(others).copied().collect();
        let request = merged_request(graph, &requesters, placement.soft)?;
        let mut any_match = false;
        let mut best = None;
        for must_run in [&requesters, group] {
            best = choose(graph, must_run, &request, placement, &mut any_match)?;
            if best.is_some() || others.is_empty() {
                break;
            }
        }
        let Some(device) = best else {
            return Err(unplaceable(graph, group, &request, any_match, &placement.devices)?);
        };
        for &n in group {
            assigned.insert(n, device);
        }
    }
    Ok(assigned)
}

/// The highest-priority device that matches `request` and has a kernel for every node
/// of `group`; with soft placement, one that matches only the request's task when none
/// does. `any_match` notes whether some device matched the request at all.
fn choose(
    graph: &Graph,
    group: &[NodeId],
    request: &DeviceSpec,
    placement: &Placement,
    any_match: &mut bool,
) -> Result<Option<usize>> {
    let devices = placement.devices.devices();
    let supports = |d: &Device| -> Result<bool> {
        for &n in group {
            if find_kernel(graph.node(n)?, &d.device_type).is_none() {
                return Ok(false);
            }
        }
        Ok(true)
    };
    let mut best: Option<usize> = None;
    for (i, d) in devices.iter().enumerate() {
        if !request.matches(d) {
            continue;
        }
        *any_match = true;
        if supports(d)? && best.is_none_or(|b| placement.devices.rank(d) > placement.devices.rank(&devices[b])) {
            best = Some(i);
        }
    }
    if best.is_none() && placement.soft {
        // TF's soft placement: drop the device type and index, keep the task.
        let relaxed = DeviceSpec { device_type: None, id: None, ..request.clone() };
        for (i, d) in devices.iter().enumerate() {
            if relaxed.matches(d)
                && supports(d)?
                && best.is_none_or(|b| placement.devices.rank(d) > placement.devices.rank(&devices[b]))
            {
                best = Some(i);
            }
        }
    }
    Ok(best)
}

/// The request every member of a group satisfies, or TF's colocation error.
fn merged_request(graph: &Graph, requesters: &[NodeId], soft: bool) -> Result<DeviceSpec> {
    let mut merged = DeviceSpec::default();
    let mut from: Option<NodeId> = None;
    for &n in requesters {
        let spec = parse_request(graph, n)?;
        if spec.is_empty() {
            continue;
        }
        match merged.merged(&spec) {
            Some(m) => merged = m,
            None if soft => {}
            None => {
                let (a, b) = (graph.node(n)?, graph.node(from.unwrap_or(n))?);
                let what = if merged.device_type != spec.device_type { "types" } else { "ids" };
                return Err(Error::new(
                    Code::InvalidArgument,
                    format!(
                        "Cannot colocate nodes {{{{colocation_node {}}}}} and {{{{colocation_node {}}}}}: Cannot \
                         merge devices with incompatible {what}: '{spec}' and '{merged}'",
                        a.name, b.name
                    ),
                )
                .with_node(&a.name));
            }
        }
        from.get_or_insert(n);
    }
    Ok(merged)
}

/// TF's error for a group no device can take.
fn unplaceable(
    graph: &Graph,
    group: &[NodeId],
    request: &DeviceSpec,
    device_exists: bool,
    devices: &DeviceSet,
) -> Result<Error> {
    // Name the member that asked for the device (or the first).
    let mut node = graph.node(group[0])?;
    for &n in group {
        if !graph.node(n)?.device.is_empty() {
            node = graph.node(n)?;
            break;
        }
    }
    for &n in group {
        let member = graph.node(n)?;
        let kinds: Vec<&str> = devices.devices().iter().map(|d| d.device_type.as_str()).collect();
        let mut kinds_unique = kinds.clone();
        kinds_unique.dedup();
        if let Some(e) = crate::kernels::registry::no_kernel_error(member, &kinds_unique.join(", ")) {
            return Ok(e.with_node(&member.name));
        }
    }
    let message = if device_exists {
        let kind = request.device_type.as_deref().unwrap_or("any");
        format!(
            "Cannot assign a device for operation {0}: Could not satisfy explicit device specification '{request}' \
             because no supported kernel for {kind} devices is available.",
            node.name
        )
    } else {
        format!(
            "Cannot assign a device for operation {0}: {{{{node {0}}}}} was explicitly assigned to {request} but \
             available devices are [ {1} ]. Make sure the device specification refers to a valid device.",
            node.name,
            devices.names()
        )
    };
    Ok(Error::new(Code::InvalidArgument, message).with_node(&node.name))
}
