//! A plan and its compilation from a run signature (feeds, fetches, targets), as
//! passes, each in its file: prune (the nodes the fetches and targets need,
//! `prune.rs`), place (a device per node, `place.rs`), remap (contraction + bias +
//! activation chains into fused steps, `fuse.rs`), select each node's kernel for its
//! device (here), resolve variable reads (`var_reads.rs`), partition (a copy step
//! wherever a value crosses memories, `copies.rs`), and schedule (`schedule.rs`: a
//! topological order, value slots, which input occurrence is a value's last use, so
//! it is moved, not cloned, and its buffer can be reused in place, and whether the
//! plan has enough independent work to be worth spreading over the thread pool).
//! This file builds the steps from what the passes decide.
use std::collections::{HashMap, HashSet};

use smallvec::SmallVec;

use super::copies::{Entry, Memories, insert_copies};
use super::fuse::{Fusion, fuse};
use super::place::{Placement, place};
use super::prune::{binding_controls, index_feeds, prune};
use super::schedule::{assign_slots, blocking_last_order, is_parallel, mark_last_uses};
use super::var_reads::input_sources;
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::framework::resource::ResourceMgr;
use crate::graph::{AttrValue, Graph, Node, NodeId, Output};
use crate::kernels::registry::{KernelDef, find_kernel};
use crate::kernels::{KernelBuild, OpKernel, Value};
use crate::ops::{control_flow, sendrecv};
use crate::shape::PartialShape;

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
    /// Slot vectors of finished runs, emptied, for the next runs (so a steady-state
    /// run allocates none).
    idle_slots: parking_lot::Mutex<Vec<Vec<Option<Value>>>>,
}

/// The most idle slot vectors a plan keeps (one per run in flight at once).
const MAX_IDLE_SLOT_VECTORS: usize = 8;

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan").field("steps", &self.placement()).field("parallel", &self.parallel).finish()
    }
}

impl Plan {
    /// A run's value slots, all empty: a vector an earlier run gave back, or a new one.
    pub(crate) fn take_slots(&self) -> Vec<Option<Value>> {
        let mut slots = self.idle_slots.lock().pop().unwrap_or_default();
        slots.resize(self.num_slots, None);
        slots
    }
    /// Takes back a finished run's slots; the values still in them are dropped here.
    pub(crate) fn give_back_slots(&self, mut slots: Vec<Option<Value>>) {
        slots.clear();
        let mut idle = self.idle_slots.lock();
        if idle.len() < MAX_IDLE_SLOT_VECTORS {
            idle.push(slots);
        }
    }
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
    /// kernels, resolve variable reads, partition (copies at device boundaries),
    /// schedule; then the steps.
    pub fn compile(
        graph: &Graph,
        resources: &ResourceMgr,
        placement: &Placement,
        feeds: &[Output],
        fetches: &[Output],
        targets: &[NodeId],
        options: CompileOptions,
    ) -> Result<Plan> {
        let feed_slot = index_feeds(graph, feeds, fetches, |name, index| format!("{name}:{index}"))?;
        let feed_slots = feeds
            .iter()
            .map(|f| {
                let spec = graph.output_spec(*f)?;
                let name = format!("{}:{}", graph.node(f.node)?.name, f.index);
                Ok(FeedSlot { name, dtype: spec.dtype, shape: spec.shape.clone() })
            })
            .collect::<Result<Vec<_>>>()?;
        let controls = |node: &Node| binding_controls(graph, &feed_slot, node);
        let needed = prune(graph, &feed_slot, fetches, targets)?;
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

        let sources = input_sources(graph, &fusion, &order, &feed_slot, controls)?;

        // Partition: a copy step wherever a value crosses memories (`copies.rs`).
        let cpu = devices.iter().position(|d| d == placement.devices.cpu()).unwrap_or(0);
        let memories = Memories { cpu, device_of: &device_of, kernel_defs: &kernel_defs, feeds: &feed_slot };
        let (entries, copy_entry) = insert_copies(graph, &fusion, &order, &sources, fetches, &memories)?;

        let (step_of, out_base, next_slot) = assign_slots(graph, &fusion, &entries, feeds.len())?;
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
                        let (slot, pred) = read(src, memories.of_input(n, node, i, src));
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
                    let source = &devices[memories.of_value(&src)];
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
        let uses = mark_last_uses(&mut steps, &fetch_slots, next_slot);

        let parallel = is_parallel(graph, &fusion, &entries, &steps, options.pool_threads);
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
            idle_slots: parking_lot::Mutex::new(Vec::new()),
        })
    }
}
