//! Compiling a run signature (feeds, fetches, targets) into a plan, as passes: prune
//! (the nodes the fetches and targets need), place (a device per node, `place.rs`),
//! remap (contraction + bias + activation chains into fused steps, `fuse.rs`), select
//! each node's kernel for its device, partition (a copy step wherever a value
//! crosses devices), and schedule: a topological order, value slots, which input
//! occurrence is a value's last use (so it is moved, not cloned, and its buffer can be
//! reused in place), and whether the plan has enough independent work to be worth
//! spreading over the thread pool.
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use smallvec::SmallVec;

use super::fuse::{Fusion, fuse};
use super::place::{Placement, place};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::framework::resource::ResourceMgr;
use crate::graph::{AttrValue, Graph, Node, NodeId, Output};
use crate::kernels::registry::{KernelDef, find_kernel};
use crate::kernels::{KernelBuild, OpKernel};
use crate::ops::{control_flow, sendrecv};
use crate::shape::PartialShape;

/// Independent work (in element-ops) a plan must have before it is run on the pool:
/// waking a parked thread costs ~25 µs here, so smaller plans run inline.
const PARALLEL_MIN_WORK: f64 = (1u64 << 18) as f64;
/// Assumed size of a dimension unknown at compile time, for cost estimates only.
const UNKNOWN_DIM_GUESS: f64 = 64.0;

/// Where a step reads one input from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InputRef {
    /// The value slot.
    pub slot: usize,
    /// Last use in the sequential order: move the value out instead of cloning it.
    pub take: bool,
    /// Dereference a variable reference (every input but a kernel's `ref` inputs).
    pub deref: bool,
}

/// One node of the plan.
pub(crate) struct Step {
    pub name: String,
    /// The graph nodes a fused step computes besides its own (remapping), earliest first.
    pub absorbed: Vec<String>,
    /// `name = Op(input, input:1, ^control)`: the node as TF's step statistics label it.
    pub label: String,
    /// The device it runs on (an index into the session's devices).
    pub device: usize,
    pub kernel: Box<dyn OpKernel>,
    pub inputs: SmallVec<[InputRef; 4]>,
    pub out_base: usize,
    pub num_outputs: usize,
    /// Steps that wait for this one (data or control), for the parallel executor.
    pub successors: Vec<usize>,
    /// Number of distinct steps this one waits for.
    pub num_predecessors: usize,
    /// Whether the kernel may block (a queue operation): a parallel run executes it on
    /// the calling thread, so pool threads never wait on a queue.
    pub blocking: bool,
    /// How the step takes part in control flow (deadness).
    pub flow: Flow,
    /// The steps of its control inputs: a dead one makes this step dead (filled only
    /// in plans with control flow).
    pub control_preds: SmallVec<[usize; 2]>,
}

/// A step's part in conditional control flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Dead when any input (data or control) is dead.
    Plain,
    /// A `Switch`: one of its outputs is left dead.
    Switch,
    /// A `Merge`: dead only when every data input is.
    Merge,
    /// A `_Send`: runs even when dead, to send the deadness on.
    Send,
    /// A `_Recv`: its output is dead when a dead value arrives.
    Recv,
}

/// One step of the plan before slots are assigned: a node, or a copy of a value to
/// another device.
enum Entry {
    Node(NodeId),
    Copy { src: Output, device: usize },
}

/// How a plan is compiled.
#[derive(Clone, Copy, Debug)]
pub struct CompileOptions {
    /// Threads of the pool that runs independent steps: more than one allows a
    /// parallel plan.
    pub pool_threads: usize,
    /// Fuse contraction + bias + activation chains (TF's remapper; on unless the
    /// session's `rewrite_options` turn it off).
    pub remap: bool,
}

/// A fed tensor: the slot it fills and the static type the fed value must have.
pub(crate) struct FeedSlot {
    pub name: String,
    pub dtype: DType,
    pub shape: PartialShape,
}

/// A compiled, immutable run signature. Shared by concurrent runs.
pub struct Plan {
    pub(crate) steps: Vec<Step>,
    pub(crate) num_slots: usize,
    pub(crate) feeds: Vec<FeedSlot>,
    pub(crate) fetches: Vec<usize>,
    /// Uses of each slot (input occurrences plus fetches), for the parallel executor.
    pub(crate) uses: Vec<usize>,
    /// Whether to dispatch on the pool.
    pub(crate) parallel: bool,
    /// Whether it has `Switch`/`Merge` steps, so values may be dead (runs of plans
    /// without pay nothing for deadness).
    pub(crate) control_flow: bool,
    /// The full names of the session's devices (steps refer to them by index).
    pub(crate) device_names: Vec<String>,
    /// Whether it has `_Send`/`_Recv` steps (a run then needs a rendezvous).
    pub(crate) uses_rendezvous: bool,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan").field("steps", &self.placement()).field("parallel", &self.parallel).finish()
    }
}

impl Plan {
    /// Number of nodes the plan runs.
    pub fn num_steps(&self) -> usize {
        self.steps.len()
    }
    /// Each step's node (or inserted copy) name and the device it runs on, in run order
    /// (the nodes a fused step absorbed are listed just before it, on its device).
    pub fn placement(&self) -> Vec<(&str, &str)> {
        self.steps
            .iter()
            .flat_map(|s| {
                let device = self.device_names[s.device].as_str();
                s.absorbed.iter().chain([&s.name]).map(move |name| (name.as_str(), device))
            })
            .collect()
    }
    /// Whether the plan runs its independent branches on the thread pool.
    pub fn is_parallel(&self) -> bool {
        self.parallel
    }
    /// Whether a step may block (a queue operation).
    pub(crate) fn has_blocking_steps(&self) -> bool {
        self.steps.iter().any(|s| s.blocking)
    }

    /// Compiles a plan: prune, place (on `placement`'s devices), remap, select
    /// kernels, partition (copies at device boundaries), schedule.
    pub fn compile(
        graph: &Graph,
        resources: &ResourceMgr,
        placement: &Placement,
        feeds: &[Output],
        fetches: &[Output],
        targets: &[NodeId],
        options: CompileOptions,
    ) -> Result<Plan> {
        let mut feed_slot: HashMap<Output, usize> = HashMap::new();
        let mut feed_slots = Vec::with_capacity(feeds.len());
        for (i, f) in feeds.iter().enumerate() {
            let spec = graph.output_spec(*f)?;
            let name = format!("{}:{}", graph.node(f.node)?.name, f.index);
            if feed_slot.insert(*f, i).is_some() {
                return Err(Error::value(format!("Tensor {name} is fed more than once")));
            }
            feed_slots.push(FeedSlot { name, dtype: spec.dtype, shape: spec.shape.clone() });
        }
        for f in fetches {
            graph.output_spec(*f)?;
        }
        // The control inputs that still bind: a fed placeholder's are satisfied by the
        // feed (TF redirects them to the feed node), so it is neither run nor waited for.
        let controls = |node: &Node| -> Vec<NodeId> {
            node.control_inputs
                .iter()
                .copied()
                .filter(|&c| {
                    let fed = feed_slot.contains_key(&Output { node: c, index: 0 });
                    !(fed && graph.node(c).is_ok_and(|n| n.def.feed_satisfies_control))
                })
                .collect()
        };

        // Prune: every node reachable backwards from the fetches and targets, not
        // crossing fed edges. Nodes are appended after their inputs, so id order is a
        // topological order.
        let mut needed = vec![false; graph.len()];
        let mut stack: Vec<NodeId> = fetches
            .iter()
            .filter(|f| !feed_slot.contains_key(f))
            .map(|f| f.node)
            .chain(targets.iter().copied())
            .collect();
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut needed[n], true) {
                continue;
            }
            let node = graph.node(n)?;
            stack.extend(node.inputs.iter().filter(|i| !feed_slot.contains_key(i)).map(|i| i.node));
            stack.extend(controls(node));
        }
        let needed_nodes: Vec<NodeId> = (0..graph.len()).filter(|&n| needed[n]).collect();

        // Place, remap, then select each node's kernel for its device.
        let devices = placement.devices.devices();
        let device_of = place(graph, &needed_nodes, placement)?;
        let fusion = if options.remap {
            fuse(graph, &needed_nodes, &feed_slot, fetches, &device_of, |n| devices[device_of[&n]].device_type.clone())?
        } else {
            Fusion::default()
        };
        let absorbed: HashSet<NodeId> = fusion.absorbed.values().flatten().copied().collect();
        let needed_nodes: Vec<NodeId> = needed_nodes.into_iter().filter(|n| !absorbed.contains(n)).collect();
        let mut kernels: HashMap<NodeId, Box<dyn OpKernel>> = HashMap::with_capacity(needed_nodes.len());
        let mut kernel_defs: HashMap<NodeId, KernelDef> = HashMap::with_capacity(needed_nodes.len());
        for &n in &needed_nodes {
            let node = fusion.node(graph, n)?;
            let device = &devices[device_of[&n]];
            let def = find_kernel(node, &device.device_type).ok_or_else(|| {
                Error::new(Code::Internal, format!("no {} kernel for {}", device.device_type, node.name))
            })?;
            let kernel = (def.factory)(&KernelBuild {
                node,
                graph,
                resources,
                devices: &placement.devices,
                device,
                plan_nodes: &needed,
                subplans: &super::PlanCompiler,
            })
            .map_err(|e| e.with_node(&node.name))?;
            kernels.insert(n, kernel);
            kernel_defs.insert(n, def);
        }
        let order = blocking_last_order(graph, &fusion, &needed_nodes, &feed_slot, |n| kernels[&n].is_blocking())?;

        // Where each input really comes from. A node that runs after an update of a
        // variable through a control dependency (one of its own, or downstream of one:
        // TF's ops created in a `control_dependencies` block drop control inputs that
        // an input already implies) reads that variable through its reference
        // (`variable_behind_read`), so it sees the update as TF's aliasing read does.
        // Reads of variables no such update writes keep their snapshots: a step's
        // gradients made after a control edge on, say, loss averages never see the
        // step's own weight updates.
        let mut written: Vec<VarSet> = vec![None; graph.len()];
        let mut updated_before: Vec<VarSet> = vec![None; graph.len()];
        let mut sources: HashMap<NodeId, Vec<Output>> = HashMap::with_capacity(order.len());
        for &n in &order {
            let node = fusion.node(graph, n)?;
            let ctl = controls(node);
            let computed_inputs = || node.inputs.iter().filter(|o| !feed_slot.contains_key(o));
            updated_before[n] =
                union(ctl.iter().map(|c| &written[*c]).chain(computed_inputs().map(|o| &updated_before[o.node])));
            let mut own = union(ctl.iter().map(|c| &written[*c]).chain(computed_inputs().map(|o| &written[o.node])));
            if node.def.stateful {
                for &i in node.def.ref_inputs {
                    if let Some(r) = node.inputs.get(i) {
                        let root = variable_root(graph, *r)?;
                        Arc::make_mut(own.get_or_insert_with(Default::default)).insert(root);
                    }
                }
                // A loop writes the variables its body updates (`_updates`: their refs).
                if crate::kernels::functional::is_loop(node) {
                    // (A variable not in this graph, another task's, is that task's concern.)
                    for name in crate::kernels::functional::loop_tensor_names(node, "_updates") {
                        let Ok(r) = crate::kernels::functional::parse_tensor(graph, &name) else {
                            continue;
                        };
                        let root = variable_root(graph, r)?;
                        Arc::make_mut(own.get_or_insert_with(Default::default)).insert(root);
                    }
                }
            }
            written[n] = own;
            let src = node
                .inputs
                .iter()
                .map(|o| match &updated_before[n] {
                    Some(vars) => variable_behind_read(graph, *o, &feed_slot, vars),
                    None => Ok(*o),
                })
                .collect::<Result<Vec<_>>>()?;
            sources.insert(n, src);
        }

        // Partition: a value consumed in another memory than its producer leaves it in
        // goes through one copy per destination, run just before its first consumer
        // there. Memories are devices by index, the CPU's being host memory: fed values
        // are there, and so are the inputs and outputs a device's kernel keeps on the
        // host (`KernelDef::host_memory`). Fetched values come back to the host. (Send/
        // Recv pairs for remote tasks are the partition of `partition.rs`.)
        let cpu = devices.iter().position(|d| d == placement.devices.cpu()).unwrap_or(0);
        let memory_of_value = |o: &Output| {
            if feed_slot.contains_key(o) || kernel_defs[&o.node].host_outputs { cpu } else { device_of[&o.node] }
        };
        // The memory input `i` (from `src`) of node `n` is read from.
        let input_memory = |n: NodeId, node: &Node, i: usize, src: &Output| {
            let def = &kernel_defs[&n];
            if def.shape_only {
                memory_of_value(src)
            } else if def.input_on_host(node, i) {
                cpu
            } else {
                device_of[&n]
            }
        };
        let mut entries: Vec<Entry> = Vec::with_capacity(order.len());
        let mut copy_entry: HashMap<(Output, usize), usize> = HashMap::new();
        for &n in &order {
            let node = fusion.node(graph, n)?;
            for (i, src) in sources[&n].iter().enumerate() {
                let dst = input_memory(n, node, i, src);
                if node.def.ref_inputs.contains(&i) || memory_of_value(src) == dst {
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
            if !feed_slot.contains_key(f) && memory_of_value(f) != cpu {
                copy_entry.entry((*f, cpu)).or_insert_with(|| {
                    entries.push(Entry::Copy { src: *f, device: cpu });
                    entries.len() - 1
                });
            }
        }

        let mut step_of = vec![usize::MAX; graph.len()];
        let mut out_base = vec![0usize; entries.len()];
        let mut next_slot = feeds.len();
        for (s, e) in entries.iter().enumerate() {
            out_base[s] = next_slot;
            next_slot += match e {
                Entry::Node(n) => {
                    step_of[*n] = s;
                    fusion.node(graph, *n)?.outputs.len()
                }
                Entry::Copy { .. } => 1,
            };
        }
        let slot_of = |o: &Output| feed_slot.get(o).copied().unwrap_or_else(|| out_base[step_of[o.node]] + o.index);
        // The slot a value is in and the step that produces it (none for a feed).
        let produced = |o: &Output| (slot_of(o), (!feed_slot.contains_key(o)).then(|| step_of[o.node]));
        // Where an input on device `dst` reads it: its copy there, if it crosses devices.
        let read = |src: &Output, dst: usize| match copy_entry.get(&(*src, dst)) {
            Some(&c) => (out_base[c], Some(c)),
            None => produced(src),
        };

        let device_copy = crate::ops::lookup(crate::ops::DEVICE_COPY)?;
        // A `_Recv` may deliver a dead value (another task's untaken cond branch).
        let has_control_flow = needed_nodes.iter().any(|&n| {
            graph.node(n).is_ok_and(|node| {
                control_flow::SWITCH_OPS.contains(&node.def.name)
                    || control_flow::MERGE_OPS.contains(&node.def.name)
                    || sendrecv::RECV_OPS.contains(&node.def.name)
            })
        });
        let uses_rendezvous = needed_nodes.iter().any(|&n| {
            graph.node(n).is_ok_and(|node| {
                sendrecv::SEND_OPS.contains(&node.def.name) || sendrecv::RECV_OPS.contains(&node.def.name)
            })
        });
        let mut steps = Vec::with_capacity(entries.len());
        for (s, entry) in entries.iter().enumerate() {
            let (step, mut preds) = match *entry {
                Entry::Node(n) => {
                    let node = fusion.node(graph, n)?;
                    let kernel =
                        kernels.remove(&n).ok_or_else(|| Error::value(format!("no kernel for {}", node.name)))?;
                    let mut preds: Vec<usize> = controls(node).into_iter().map(|c| step_of[c]).collect();
                    // An input redirected to the variable behind a read still waits for
                    // the read, and so for the read's own control dependencies
                    // (`v.initialized_value()` reads `v` after its initializer).
                    preds.extend(
                        node.inputs
                            .iter()
                            .zip(&sources[&n])
                            .filter(|(o, src)| o != src && !feed_slot.contains_key(o))
                            .map(|(o, _)| step_of[o.node]),
                    );
                    let mut inputs = SmallVec::new();
                    for (i, src) in sources[&n].iter().enumerate() {
                        let (slot, pred) = read(src, input_memory(n, node, i, src));
                        preds.extend(pred);
                        inputs.push(InputRef { slot, take: false, deref: !node.def.ref_inputs.contains(&i) });
                    }
                    let label =
                        format!("{} = {}({})", node.name, node.op_type(), graph.node_def_inputs(node).join(", "));
                    let flow = if control_flow::SWITCH_OPS.contains(&node.def.name) {
                        Flow::Switch
                    } else if control_flow::MERGE_OPS.contains(&node.def.name) {
                        Flow::Merge
                    } else if sendrecv::SEND_OPS.contains(&node.def.name) {
                        Flow::Send
                    } else if sendrecv::RECV_OPS.contains(&node.def.name) {
                        Flow::Recv
                    } else {
                        Flow::Plain
                    };
                    let control_preds = if has_control_flow {
                        controls(node).into_iter().map(|c| step_of[c]).collect()
                    } else {
                        SmallVec::new()
                    };
                    let absorbed = fusion.absorbed.get(&n).map_or_else(Vec::new, |a| {
                        a.iter().filter_map(|&m| graph.node(m).ok()).map(|m| m.name.clone()).collect()
                    });
                    let step = Step {
                        name: node.name.clone(),
                        absorbed,
                        label,
                        device: device_of[&n],
                        blocking: kernel.is_blocking(),
                        kernel,
                        inputs,
                        out_base: out_base[s],
                        num_outputs: node.outputs.len(),
                        successors: Vec::new(),
                        num_predecessors: 0,
                        flow,
                        control_preds,
                    };
                    (step, preds)
                }
                Entry::Copy { src, device } => {
                    let producer = graph.node(src.node)?;
                    let source_name =
                        if src.index == 0 { producer.name.clone() } else { format!("{}:{}", producer.name, src.index) };
                    let target = &devices[device];
                    let name = format!("{source_name}/_copy_to_{}_{}", target.device_type, target.id);
                    // A node that is never in the graph, so the destination device's
                    // `_DeviceCopy` kernel can be built like any other.
                    let spec = graph.output_spec(src)?.clone();
                    let node = Node {
                        name: name.clone(),
                        def: device_copy,
                        inputs: vec![src],
                        control_inputs: Vec::new(),
                        attrs: [("T".to_string(), AttrValue::Type(spec.dtype))].into_iter().collect(),
                        device: target.name.clone(),
                        outputs: vec![spec],
                    };
                    // The device whose memory is not the host's copies (a GPU both
                    // uploads and downloads, as TF's device contexts do).
                    let source = &devices[memory_of_value(&src)];
                    let copier = if target.device_type == crate::device::CPU { source } else { target };
                    let def = find_kernel(&node, &copier.device_type)
                        .or_else(|| find_kernel(&node, crate::device::CPU))
                        .ok_or_else(|| Error::new(Code::Internal, "no _DeviceCopy kernel"))?;
                    let kernel = (def.factory)(&KernelBuild {
                        node: &node,
                        graph,
                        resources,
                        devices: &placement.devices,
                        device: copier,
                        plan_nodes: &needed,
                        subplans: &super::PlanCompiler,
                    })?;
                    let (slot, pred) = produced(&src);
                    let step = Step {
                        label: format!("{name} = {}({source_name})", crate::ops::DEVICE_COPY),
                        name,
                        absorbed: Vec::new(),
                        device,
                        blocking: false,
                        kernel,
                        // The copy passes a reference on; its consumer reads it when it runs.
                        inputs: smallvec::smallvec![InputRef { slot, take: false, deref: false }],
                        out_base: out_base[s],
                        num_outputs: 1,
                        successors: Vec::new(),
                        num_predecessors: 0,
                        flow: Flow::Plain,
                        control_preds: SmallVec::new(),
                    };
                    (step, pred.into_iter().collect())
                }
            };
            preds.sort_unstable();
            preds.dedup();
            steps.push(Step { num_predecessors: preds.len(), ..step });
            for p in preds {
                steps[p].successors.push(s);
            }
        }

        let fetch_slots: Vec<usize> = fetches.iter().map(|f| read(f, cpu).0).collect();
        let mut uses = vec![0usize; next_slot];
        for st in &steps {
            for i in &st.inputs {
                uses[i.slot] += 1;
            }
        }
        let mut fetched = vec![false; next_slot];
        for &f in &fetch_slots {
            uses[f] += 1;
            fetched[f] = true;
        }
        // The last input occurrence of an unfetched value moves it.
        let mut remaining = uses.clone();
        for st in &mut steps {
            for i in &mut st.inputs {
                remaining[i.slot] -= 1;
                i.take = remaining[i.slot] == 0 && !fetched[i.slot];
            }
        }

        // Blocking steps (queues) do not prevent a parallel run: it starts them on the
        // calling thread (see `executor::ParallelRun::serve_lane`). A plan with more than
        // one runs in parallel whatever its cost, so that one step waiting (a dequeue)
        // never holds up another that would release it (an enqueue in the same run),
        // unless each waits for the one before it (a reader's read feeding an enqueue):
        // then no order but the straight one exists and no step can release an earlier.
        let costs: Vec<f64> = entries
            .iter()
            .map(|e| match e {
                Entry::Node(n) => {
                    fusion.absorbed.get(n).into_iter().flatten().chain([n]).map(|&m| node_cost(graph, m)).sum()
                }
                Entry::Copy { .. } => 0.0,
            })
            .collect();
        let blocking: Vec<usize> = (0..steps.len()).filter(|&i| steps[i].blocking).collect();
        let chained = blocking.windows(2).all(|w| reaches(&steps, w[0], w[1]));
        let parallel = (blocking.len() > 1 && !chained)
            || (options.pool_threads > 1 && overlappable_work(&costs, &steps) >= PARALLEL_MIN_WORK);
        let device_names = devices.iter().map(|d| d.name.clone()).collect();
        Ok(Plan {
            steps,
            num_slots: next_slot,
            feeds: feed_slots,
            fetches: fetch_slots,
            uses,
            parallel,
            control_flow: has_control_flow,
            device_names,
            uses_rendezvous,
        })
    }
}

/// Whether step `to` waits, directly or through others, for step `from`.
fn reaches(steps: &[Step], from: usize, to: usize) -> bool {
    let mut seen = vec![false; steps.len()];
    let mut stack = vec![from];
    while let Some(s) = stack.pop() {
        if s == to {
            return true;
        }
        // Steps are in a topological order: nothing after `to` leads back to it.
        for &n in &steps[s].successors {
            if n <= to && !std::mem::replace(&mut seen[n], true) {
                stack.push(n);
            }
        }
    }
    false
}

/// A topological order of `nodes` (ids in `needed`, inputs before consumers) that
/// runs every non-blocking node that is ready before any blocking one (a queue
/// operation). A straight-line run executes steps in this order, so an op that fails
/// (a `tf.Assert`) ends the run before a dequeue in the same run can wait for ever.
fn blocking_last_order(
    graph: &Graph,
    fusion: &Fusion,
    nodes: &[NodeId],
    feeds: &HashMap<Output, usize>,
    blocking: impl Fn(NodeId) -> bool,
) -> Result<Vec<NodeId>> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let index: HashMap<NodeId, usize> = nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut waiting = vec![0usize; nodes.len()];
    let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, &n) in nodes.iter().enumerate() {
        let node = fusion.node(graph, n)?;
        let mut preds: Vec<usize> = node
            .inputs
            .iter()
            .filter(|o| !feeds.contains_key(o))
            .map(|o| o.node)
            .chain(node.control_inputs.iter().copied())
            .filter_map(|p| index.get(&p).copied())
            .collect();
        preds.sort_unstable();
        preds.dedup();
        waiting[i] = preds.len();
        for p in preds {
            consumers[p].push(i);
        }
    }
    // Ready nodes by (blocking, id): non-blocking first, then graph order.
    let mut ready: BinaryHeap<Reverse<(bool, NodeId, usize)>> = BinaryHeap::new();
    for (i, &n) in nodes.iter().enumerate() {
        if waiting[i] == 0 {
            ready.push(Reverse((blocking(n), n, i)));
        }
    }
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(Reverse((_, n, i))) = ready.pop() {
        order.push(n);
        for &c in &consumers[i] {
            waiting[c] -= 1;
            if waiting[c] == 0 {
                ready.push(Reverse((blocking(nodes[c]), nodes[c], c)));
            }
        }
    }
    if order.len() != nodes.len() {
        return Err(Error::value("the graph has a cycle"));
    }
    Ok(order)
}

/// Variables (their `VariableV2` nodes) written by a node or what it runs after; None
/// for none (most nodes), shared between nodes until one adds to it.
type VarSet = Option<Arc<BTreeSet<NodeId>>>;

fn union<'a>(sets: impl Iterator<Item = &'a VarSet>) -> VarSet {
    let mut acc: VarSet = None;
    for set in sets.flatten() {
        match &mut acc {
            None => acc = Some(Arc::clone(set)),
            Some(a) if Arc::ptr_eq(a, set) || set.is_subset(a) => {}
            Some(a) => Arc::make_mut(a).extend(set.iter().copied()),
        }
    }
    acc
}

/// The variable a reference comes from: through reads and ops that pass on their ref
/// input (`Assign` outputs its variable's reference).
fn variable_root(graph: &Graph, mut o: Output) -> Result<NodeId> {
    loop {
        let producer = graph.node(o.node)?;
        let passes_ref = producer.def.forwards_input || producer.def.ref_inputs.contains(&0);
        if graph.output_spec(o)?.is_ref && passes_ref && !producer.inputs.is_empty() {
            o = producer.inputs[0];
        } else {
            return Ok(o.node);
        }
    }
}

/// For an input of an op that runs after updates of `updated`: the variable reference
/// behind a read (`Identity` of a ref, such as `v/read`) of one of them, so the op
/// reads the variable when it runs, after its control dependencies. TF's read aliases
/// the variable's buffer, so `with tf.control_dependencies([train_op]): y = v * 2`
/// sees the trained `v`; the read's snapshot may be older. Other consumers keep the
/// snapshot, so reads within one step are consistent (an update never leaks into the
/// same step's gradients).
fn variable_behind_read(
    graph: &Graph,
    o: Output,
    feeds: &HashMap<Output, usize>,
    updated: &BTreeSet<NodeId>,
) -> Result<Output> {
    let producer = graph.node(o.node)?;
    if feeds.contains_key(&o) || !producer.def.forwards_input {
        return Ok(o);
    }
    let source = producer.inputs[0];
    let is_ref = graph.output_spec(source)?.is_ref;
    Ok(if is_ref && !feeds.contains_key(&source) && updated.contains(&variable_root(graph, source)?) {
        source
    } else {
        o
    })
}

/// Estimated element-ops of a node from its static shapes.
fn node_cost(graph: &Graph, n: NodeId) -> f64 {
    let Ok(node) = graph.node(n) else { return 0.0 };
    if node.inputs.is_empty() {
        // Sources (constants, placeholders, variables) only hand out a buffer.
        return 0.0;
    }
    let elems = |s: &PartialShape| -> f64 {
        s.dims().map_or(UNKNOWN_DIM_GUESS, |d| d.iter().map(|x| x.map_or(UNKNOWN_DIM_GUESS, |v| v as f64)).product())
    };
    let out: f64 = node.outputs.iter().map(|o| elems(&o.shape)).sum();
    let inp: f64 = node.inputs.iter().filter_map(|o| graph.output_spec(*o).ok()).map(|s| elems(&s.shape)).sum();
    if node.def.cost == crate::ops::Cost::Contraction {
        // m*n outputs, each a k-long dot product.
        let k =
            node.inputs.first().and_then(|o| graph.output_spec(*o).ok()).and_then(|s| s.shape.dims().map(|d| d.len()));
        return out * k.map_or(UNKNOWN_DIM_GUESS, |_| inp.sqrt().max(1.0));
    }
    out.max(inp)
}

/// Total work minus the critical path: what threads could overlap.
fn overlappable_work(costs: &[f64], steps: &[Step]) -> f64 {
    let total: f64 = costs.iter().sum();
    let mut finish = vec![0.0f64; steps.len()];
    let mut start = vec![0.0f64; steps.len()];
    for (i, st) in steps.iter().enumerate() {
        finish[i] = start[i] + costs[i];
        for &s in &st.successors {
            start[s] = start[s].max(finish[i]);
        }
    }
    let critical = finish.iter().copied().fold(0.0, f64::max);
    total - critical
}
