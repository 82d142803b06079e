//! A master's graph partitioning (TF's `graph/graph_partition.cc` with the feed and
//! fetch rewriting of `graph/subgraph.cc` as `master_session.cc` drives them), as a
//! pure function over a [`Graph`]: prune to a run signature, place every node on one of
//! a cluster's devices (the place pass: colocation, explicit requests such as
//! `/job:ps/task:0`, soft placement, TF's errors), then cut the graph by task
//! (`/job:J/replica:R/task:T`) into one `GraphDef` per task.
//!
//! * Every cross-task data edge becomes a `_Send` on the producer's device and a
//!   `_Recv` on the consumer's, one pair per (output, destination task), with TF's
//!   attrs and `tensor_name` `edge_<id>_<producer>`. A value read from a variable
//!   reference is not shared between consumers (TF's rule for ref edges), and its
//!   `_Recv` waits for the consumer's other inputs (TF's read control).
//! * A cross-task control edge becomes TF's dummy: an empty float `Const` (control
//!   input: the source) sent to the destination task, whose `_Recv` feeds an
//!   `Identity` that the destination waits for.
//! * Feeds and fetches are rewritten TF's way and placed TF's way, on the client
//!   device: feed `x:0` is a client-terminated `_Recv` named `_recv_x_0`, fetch `y:0`
//!   a client-terminated `_Send` named `_send_y_0`, both with `tensor_name` `x:0` /
//!   `y:0` and `send_device` = `recv_device` = the client device, connected to the
//!   rest by ordinary cross-task pairs. So the client task's partition holds every
//!   feed and fetch, and a worker never treats them specially: it injects
//!   `RunGraph.send` entries whose keys name one of its devices and reads its
//!   `recv_key`s, exactly as a TF worker does under a TF master.
//!
//! Inserted nodes are named `<source>_S<n>` (TF's master suffix), made unique against
//! the graph. Original nodes keep their names (variables on a ps are shared by name in
//! the ps's resources). Every node's device is a full canonical device name.
use std::collections::{BTreeMap, HashMap, HashSet};

use ferroflow_proto as pb;

use super::place::{Placement, place};
use super::prune::{binding_controls, index_feeds, prune};
use crate::device::{Device, DeviceSet, DeviceSpec, TaskName};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, GRAPH_DEF_VERSION, Graph, Node, NodeId, Output};
use crate::kernels::functional::{LoopSubgraph, is_loop, loop_subgraph, loop_tensor_names, parse_tensor};
use crate::runtime::rendezvous::create_key;
use crate::tensor::Tensor;

/// Where to place a graph and what the client talks to.
#[derive(Clone, Debug)]
pub struct ClusterOptions<'a> {
    /// The full names of every device of the cluster (from the workers' `GetStatus`).
    pub devices: &'a [String],
    /// The full name of the device that feeds and fetches are exchanged at (TF: the
    /// master's first local device); it must be one of `devices`.
    pub client_device: &'a str,
    /// `allow_soft_placement`.
    pub allow_soft_placement: bool,
}

/// A fed or fetched tensor of one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientTensor {
    /// Its position in the `feeds` (or `fetches`) the partition was made for.
    pub index: usize,
    /// The tensor's name, `x:0`.
    pub tensor: String,
    /// The rendezvous key it travels under (`RunGraph.send` name / `recv_key`).
    pub key: String,
}

/// One task's part of a partitioned graph.
#[derive(Clone, Debug)]
pub struct TaskPartition {
    /// The task, `/job:J/replica:R/task:T`.
    pub task: TaskName,
    /// Its graph: every node with its full device name, and the graph's versions.
    pub graph_def: pb::GraphDef,
    /// The feeds it receives (put them into its `RunGraph.send`, keyed by `key`).
    pub feeds: Vec<ClientTensor>,
    /// The fetches it sends (ask for them with its `RunGraph.recv_key`; a tensor
    /// fetched twice is listed twice under one key, which is sent once).
    pub fetches: Vec<ClientTensor>,
}

/// A graph cut into one partition per task that runs part of it.
#[derive(Clone, Debug)]
pub struct ClusterPartition {
    /// The partitions, ordered by task.
    pub partitions: Vec<TaskPartition>,
}

impl ClusterPartition {
    /// The partition of `task`, if it runs anything.
    pub fn partition(&self, task: &TaskName) -> Option<&TaskPartition> {
        self.partitions.iter().find(|p| &p.task == task)
    }
}

/// What a value being sent comes from: an original node's output, or a node the
/// partitioner added (a feed's `_Recv`, a control edge's dummy `Const`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Source {
    Node(NodeId, usize),
    Added(String),
}

/// Which partition and position a NodeDef of the result has.
#[derive(Clone, Copy)]
struct DefRef {
    part: usize,
    pos: usize,
}

struct Builder<'g, F: Fn(&str) -> u64> {
    graph: &'g Graph,
    incarnation: F,
    tasks: Vec<TaskName>,
    defs: Vec<Vec<pb::NodeDef>>,
    taken: HashSet<String>,
    next_name: usize,
    next_edge: usize,
    // (source, source output or -1 for control, destination task) -> the recv side's
    // node name (the `_Recv`, or the `Identity` after it for control).
    dup: HashMap<(Source, i64, usize), String>,
}

/// A loop's `_feeds` with its renamed captures.
fn rename_feeds(
    graph: &Graph,
    attrs: &mut BTreeMap<String, AttrValue>,
    renamed: &HashMap<Output, String>,
) -> Result<()> {
    if renamed.is_empty() {
        return Ok(());
    }
    if let Some(AttrValue::ListS(names)) = attrs.get_mut("_feeds") {
        for name in names.iter_mut() {
            if let Some(here) = renamed.get(&parse_tensor(graph, name)?) {
                *name = here.clone().into_bytes();
            }
        }
    }
    Ok(())
}

/// A loop that would need a value or state of another task inside its body.
fn loop_across_tasks(lp: &str, node: &str, where_: &str, dev: &Device) -> Error {
    Error::new(
        crate::error::Code::Unimplemented,
        format!(
            "while loop '{lp}' runs on {}, but its body uses '{node}' ({where_}) directly: ferroflow runs a \
             loop's body on the loop's task, with the values it captures; state the body changes must be \
             placed on that task",
            dev.name
        ),
    )
}

fn s(v: &str) -> AttrValue {
    AttrValue::S(v.as_bytes().to_vec())
}

fn input_name(node: &str, index: usize) -> String {
    if index == 0 { node.to_string() } else { format!("{node}:{index}") }
}

fn node_def(name: &str, op: &str, input: Vec<String>, attrs: BTreeMap<String, AttrValue>) -> pb::NodeDef {
    pb::NodeDef {
        name: name.to_string(),
        op: op.to_string(),
        input,
        device: String::new(),
        attr: attrs.iter().map(|(k, v)| (k.clone(), v.to_proto())).collect(),
        experimental_debug_info: None,
    }
}

impl<F: Fn(&str) -> u64> Builder<'_, F> {
    fn part_of(&mut self, device: &Device) -> usize {
        match self.tasks.iter().position(|t| *t == device.task) {
            Some(i) => i,
            None => {
                self.tasks.push(device.task.clone());
                self.defs.push(Vec::new());
                self.tasks.len() - 1
            }
        }
    }

    /// TF's master `new_name`: `<prefix>_S<n>`, unique in the graph.
    fn new_name(&mut self, prefix: &str) -> String {
        loop {
            let name = format!("{prefix}_S{}", self.next_name);
            self.next_name += 1;
            if self.graph.find(&name).is_none() && self.taken.insert(name.clone()) {
                return name;
            }
        }
    }

    /// `name` itself if it is free, else a `_S<n>` variant.
    fn fixed_name(&mut self, name: &str) -> String {
        if self.graph.find(name).is_none() && self.taken.insert(name.to_string()) {
            return name.to_string();
        }
        self.new_name(name)
    }

    fn push(&mut self, device: &Device, def: pb::NodeDef) -> DefRef {
        let part = self.part_of(device);
        self.defs[part].push(pb::NodeDef { device: device.name.clone(), ..def });
        DefRef { part, pos: self.defs[part].len() - 1 }
    }

    fn key_attrs(
        &self,
        tensor_name: &str,
        send: &Device,
        recv: &Device,
        client: bool,
    ) -> Vec<(&'static str, AttrValue)> {
        vec![
            ("tensor_name", s(tensor_name)),
            ("send_device", s(&send.name)),
            ("send_device_incarnation", AttrValue::I((self.incarnation)(&send.name).cast_signed())),
            ("recv_device", s(&recv.name)),
            ("client_terminated", AttrValue::B(client)),
        ]
    }

    /// Adds a `_Send` of `from` (an input string on `send`'s task) and its `_Recv` on
    /// `recv`'s task; returns the `_Recv`'s position. `prefix` names both (TF uses the
    /// source node's name); `src`/`dst` are TF's debugging attrs.
    #[allow(clippy::too_many_arguments)]
    fn add_pair(
        &mut self,
        from: String,
        dtype: DType,
        prefix: &str,
        send: &Device,
        recv: &Device,
        src: &str,
        dst: &str,
    ) -> (String, DefRef) {
        let tensor_name = format!("edge_{}_{prefix}", self.next_edge);
        self.next_edge += 1;
        let mut send_attrs: BTreeMap<String, AttrValue> =
            self.key_attrs(&tensor_name, send, recv, false).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        send_attrs.insert("_src".into(), s(src));
        send_attrs.insert("_dst".into(), s(dst));
        let mut recv_attrs = send_attrs.clone();
        send_attrs.insert("T".into(), AttrValue::Type(dtype));
        recv_attrs.insert("tensor_type".into(), AttrValue::Type(dtype));
        let send_name = self.new_name(prefix);
        self.push(send, node_def(&send_name, "_Send", vec![from], send_attrs));
        let recv_name = self.new_name(prefix);
        let at = self.push(recv, node_def(&recv_name, "_Recv", Vec::new(), recv_attrs));
        (recv_name, at)
    }
}

/// Partitions the part of `graph` that the run signature (`feeds`, `fetches`,
/// `targets`) needs over a cluster's devices; `incarnation` gives each device's
/// incarnation (baked into the `_Send`/`_Recv` attrs and the keys). See the module
/// documentation for the layout.
pub fn partition_for_cluster<F: Fn(&str) -> u64>(
    graph: &Graph,
    feeds: &[Output],
    fetches: &[Output],
    targets: &[NodeId],
    options: &ClusterOptions<'_>,
    incarnation: F,
) -> Result<ClusterPartition> {
    // The client device first among equals: a node that asks for no device goes there
    // (TF's placer prefers the master's local device the same way).
    let mut names: Vec<&str> = options.devices.iter().map(String::as_str).collect();
    if let Some(i) = names.iter().position(|n| *n == options.client_device) {
        let client = names.remove(i);
        names.insert(0, client);
    }
    let set = DeviceSet::from_names(&names)?;
    let client = set.lookup(options.client_device)?.clone();
    let fed = index_feeds(graph, feeds, fetches, input_name)?;
    let controls = |node: &Node| binding_controls(graph, &fed, node);
    let needed = prune(graph, &fed, fetches, targets)?;
    let nodes: Vec<NodeId> = (0..graph.len()).filter(|&n| needed[n]).collect();
    let placement = Placement { devices: set.clone(), soft: options.allow_soft_placement };
    let device_of: HashMap<NodeId, Device> =
        place(graph, &nodes, &placement)?.into_iter().map(|(n, i)| (n, set.devices()[i].clone())).collect();

    let mut b = Builder {
        graph,
        incarnation,
        tasks: Vec::new(),
        defs: Vec::new(),
        taken: HashSet::new(),
        next_name: 0,
        next_edge: 0,
        dup: HashMap::new(),
    };
    let client_inc = (b.incarnation)(&client.name);
    let key_of = |tensor: &str| create_key(&client.name, client_inc, &client.name, tensor, 0, 0);

    // Feeds: a client-terminated `_Recv` each, on the client device.
    let mut feed_recv: HashMap<Output, String> = HashMap::new();
    let mut feed_list = Vec::with_capacity(feeds.len());
    for (i, f) in feeds.iter().enumerate() {
        let node = graph.node(f.node)?;
        let tensor = format!("{}:{}", node.name, f.index);
        let name = b.fixed_name(&format!("_recv_{}_{}", node.name, f.index));
        let mut attrs: BTreeMap<String, AttrValue> =
            b.key_attrs(&tensor, &client, &client, true).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        attrs.insert("tensor_type".into(), AttrValue::Type(graph.output_spec(*f)?.dtype));
        b.push(&client, node_def(&name, "_Recv", Vec::new(), attrs));
        feed_recv.insert(*f, name);
        feed_list.push(ClientTensor { index: i, key: key_of(&tensor), tensor });
    }

    // Where an input of a node on `dst` reads `o` from (a cross-task pair as needed).
    // Returns the input string and, for a reference read across tasks, its `_Recv`.
    let read = |b: &mut Builder<'_, F>, o: Output, dst: &Device, dst_name: &str| -> Result<(String, Option<DefRef>)> {
        let spec = graph.output_spec(o)?;
        let (source, src_dev, from, prefix) = match feed_recv.get(&o) {
            Some(r) => (Source::Added(r.clone()), client.clone(), r.clone(), r.clone()),
            None => {
                let n = graph.node(o.node)?;
                (
                    Source::Node(o.node, o.index),
                    device_of[&o.node].clone(),
                    input_name(&n.name, o.index),
                    n.name.clone(),
                )
            }
        };
        if src_dev.task == dst.task {
            return Ok((from, None));
        }
        let dst_part = b.part_of(dst);
        let dup_key = (source, i64::try_from(o.index).unwrap_or(i64::MAX), dst_part);
        // TF never shares the read of a reference between consumers.
        if !spec.is_ref
            && let Some(name) = b.dup.get(&dup_key)
        {
            return Ok((name.clone(), None));
        }
        let src_node = prefix.clone();
        let (recv, at) = b.add_pair(from, spec.dtype, &prefix, &src_dev, dst, &src_node, dst_name);
        if spec.is_ref {
            return Ok((recv, Some(at)));
        }
        b.dup.insert(dup_key, recv.clone());
        Ok((recv, None))
    };

    // Loop nodes placed so far, with the captures they read under another name.
    let mut loops: Vec<(NodeId, Device, HashMap<Output, String>)> = Vec::new();
    for &n in &nodes {
        let node = graph.node(n)?;
        let dst = device_of[&n].clone();
        let mut inputs = Vec::with_capacity(node.inputs.len() + node.control_inputs.len());
        let mut ref_recvs: Vec<DefRef> = Vec::new();
        let mut read_controls: Vec<String> = Vec::new();
        for &o in &node.inputs {
            let (input, ref_recv) = read(&mut b, o, &dst, &node.name)?;
            match ref_recv {
                Some(at) => ref_recvs.push(at),
                None if !graph.output_spec(o)?.is_ref => read_controls.push(input.clone()),
                None => {}
            }
            inputs.push(input);
        }
        for c in controls(node) {
            let src_dev = device_of[&c].clone();
            let src = &graph.node(c)?.name;
            if src_dev.task == dst.task {
                inputs.push(format!("^{src}"));
                read_controls.push(src.clone());
                continue;
            }
            let dst_part = b.part_of(&dst);
            let dup_key = (Source::Node(c, 0), -1, dst_part);
            let identity = match b.dup.get(&dup_key) {
                Some(name) => name.clone(),
                None => {
                    // TF's dummy: an empty float constant that runs after the source.
                    let dummy = b.new_name(&format!("{src}/ctrl"));
                    let empty = Tensor::zeros(DType::Float32, &[0])?;
                    let attrs = [
                        ("dtype".to_string(), AttrValue::Type(DType::Float32)),
                        ("value".to_string(), AttrValue::Tensor(empty)),
                    ];
                    b.push(&src_dev, node_def(&dummy, "Const", vec![format!("^{src}")], attrs.into_iter().collect()));
                    let (recv, _) = b.add_pair(dummy, DType::Float32, src, &src_dev, &dst, src, &node.name);
                    let identity = b.new_name(src);
                    let attrs = [("T".to_string(), AttrValue::Type(DType::Float32))];
                    b.push(&dst, node_def(&identity, "Identity", vec![recv], attrs.into_iter().collect()));
                    b.dup.insert(dup_key, identity.clone());
                    identity
                }
            };
            inputs.push(format!("^{identity}"));
            read_controls.push(identity);
        }
        // TF's read control: a reference read across tasks waits for the consumer's
        // other inputs, so the variable is read as late as it would be locally.
        for at in &ref_recvs {
            let recv = &mut b.defs[at.part][at.pos];
            recv.input.extend(read_controls.iter().map(|c| format!("^{c}")));
        }
        let mut attrs = node.attrs.clone();
        if is_loop(node) {
            // A capture read from another task is fed, inside the loop, under the name
            // of the `_Recv` that brings it here.
            let mut renamed = HashMap::new();
            for (i, name) in loop_tensor_names(node, "_feeds").iter().enumerate() {
                let t = parse_tensor(graph, name)?;
                let here = &inputs[i];
                if node.inputs.get(i) == Some(&t) && *here != input_name(&graph.node(t.node)?.name, t.index) {
                    renamed.insert(t, here.clone());
                }
            }
            rename_feeds(graph, &mut attrs, &renamed)?;
            loops.push((n, dst.clone(), renamed));
        }
        let mut def = node_def(&node.name, node.op_type(), inputs, attrs);
        b.taken.insert(node.name.clone());
        def.device.clear();
        b.push(&dst, def);
    }

    // Loops take their sub-graphs along: the `While` kernel compiles its cond and body
    // (named by tensor in its attrs) from the graph of its own task, so every node of
    // them goes to the loop's partition, on the loop's device.
    let mut shipped: HashSet<(usize, NodeId)> = HashSet::new();
    while let Some((l, dev, renamed)) = loops.pop() {
        let part = b.part_of(&dev);
        let lp = graph.node(l)?;
        let LoopSubgraph { fed, starts: mut stack } = loop_subgraph(graph, lp)?;
        while let Some(n) = stack.pop() {
            let inner = graph.node(n)?;
            if needed[n] {
                // A node of the outer graph the body uses directly (a variable it
                // updates): it must be on the loop's task.
                if device_of[&n].task != dev.task {
                    return Err(loop_across_tasks(&lp.name, &inner.name, &device_of[&n].task.to_string(), &dev));
                }
                continue;
            }
            if !shipped.insert((part, n)) {
                continue;
            }
            let shared = inner.outputs.iter().any(|o| o.is_ref || matches!(o.dtype, DType::Resource | DType::Variant));
            if shared {
                // State (a variable, a queue) is shared by name on its task: the copy
                // made here is the one meant only if that is where it was asked for.
                let spec = DeviceSpec::parse(&inner.device)?;
                if spec.job.is_none() || !spec.matches(&dev) {
                    let asked = if inner.device.is_empty() { "no device" } else { inner.device.as_str() };
                    return Err(loop_across_tasks(&lp.name, &inner.name, asked, &dev));
                }
            }
            let mut inputs = Vec::with_capacity(inner.inputs.len() + inner.control_inputs.len());
            for o in &inner.inputs {
                if !fed.contains(o) {
                    stack.push(o.node);
                }
                inputs.push(match renamed.get(o) {
                    Some(here) => here.clone(),
                    None => input_name(&graph.node(o.node)?.name, o.index),
                });
            }
            for &c in &inner.control_inputs {
                stack.push(c);
                inputs.push(format!("^{}", graph.node(c)?.name));
            }
            let mut attrs = inner.attrs.clone();
            if is_loop(inner) {
                rename_feeds(graph, &mut attrs, &renamed)?;
                loops.push((n, dev.clone(), renamed.clone()));
            }
            let mut def = node_def(&inner.name, inner.op_type(), inputs, attrs);
            def.device.clear();
            b.push(&dev, def);
        }
    }

    // Fetches: a client-terminated `_Send` each (one per distinct tensor).
    let mut fetch_list = Vec::with_capacity(fetches.len());
    let mut sent: HashMap<Output, String> = HashMap::new();
    for (i, f) in fetches.iter().enumerate() {
        let node = graph.node(f.node)?;
        let tensor = format!("{}:{}", node.name, f.index);
        if !sent.contains_key(f) {
            let (from, _) = read(&mut b, *f, &client, &format!("_send_{}_{}", node.name, f.index))?;
            let name = b.fixed_name(&format!("_send_{}_{}", node.name, f.index));
            let mut attrs: BTreeMap<String, AttrValue> =
                b.key_attrs(&tensor, &client, &client, true).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            attrs.insert("T".into(), AttrValue::Type(graph.output_spec(*f)?.dtype));
            b.push(&client, node_def(&name, "_Send", vec![from], attrs));
            sent.insert(*f, name);
        }
        fetch_list.push(ClientTensor { index: i, key: key_of(&tensor), tensor });
    }

    let client_part = if feeds.is_empty() && fetches.is_empty() { None } else { Some(b.part_of(&client)) };
    let versions = pb::VersionDef { producer: GRAPH_DEF_VERSION, ..Default::default() };
    let mut partitions: Vec<TaskPartition> = b
        .tasks
        .iter()
        .zip(b.defs)
        .enumerate()
        .map(|(i, (task, node))| {
            let is_client = client_part == Some(i);
            TaskPartition {
                task: task.clone(),
                graph_def: pb::GraphDef { node, versions: Some(versions.clone()), ..Default::default() },
                feeds: if is_client { feed_list.clone() } else { Vec::new() },
                fetches: if is_client { fetch_list.clone() } else { Vec::new() },
            }
        })
        .collect();
    partitions.sort_by(|a, b| a.task.cmp(&b.task));
    Ok(ClusterPartition { partitions })
}
