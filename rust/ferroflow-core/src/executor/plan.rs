//! Compiling a run signature (feeds, fetches, targets) into a plan: the pruned
//! subgraph in topological order, one kernel per node, value slots, which input
//! occurrence is a value's last use (so it is moved, not cloned, and its buffer can
//! be reused in place), and whether the plan has enough independent work to be
//! worth spreading over the thread pool.
use std::collections::HashMap;

use smallvec::SmallVec;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, Output};
use crate::kernels::{KernelBuild, OpKernel};
use crate::resource::ResourceMgr;
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
    /// `name = Op(input, input:1, ^control)`: the node as TF's step statistics label it.
    pub label: String,
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
}

impl Plan {
    /// Number of nodes the plan runs.
    pub fn num_steps(&self) -> usize {
        self.steps.len()
    }
    /// Whether the plan runs its independent branches on the thread pool.
    pub fn is_parallel(&self) -> bool {
        self.parallel
    }

    /// Compiles a plan. `pool_threads` > 1 allows a parallel plan.
    pub fn compile(
        graph: &Graph,
        resources: &ResourceMgr,
        feeds: &[Output],
        fetches: &[Output],
        targets: &[NodeId],
        pool_threads: usize,
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
            stack.extend(node.control_inputs.iter().copied());
        }
        let needed_nodes: Vec<NodeId> = (0..graph.len()).filter(|&n| needed[n]).collect();
        let mut kernels: HashMap<NodeId, Box<dyn OpKernel>> = HashMap::with_capacity(needed_nodes.len());
        for &n in &needed_nodes {
            let node = graph.node(n)?;
            let kernel =
                (node.def.kernel)(&KernelBuild { node, graph, resources }).map_err(|e| e.with_node(&node.name))?;
            kernels.insert(n, kernel);
        }
        let order = blocking_last_order(graph, &needed_nodes, &feed_slot, |n| kernels[&n].is_blocking())?;

        let mut step_of = vec![usize::MAX; graph.len()];
        let mut out_base = vec![0usize; graph.len()];
        let mut next_slot = feeds.len();
        for (s, &n) in order.iter().enumerate() {
            step_of[n] = s;
            out_base[n] = next_slot;
            next_slot += graph.node(n)?.outputs.len();
        }
        let slot_of = |o: &Output| feed_slot.get(o).copied().unwrap_or(out_base[o.node] + o.index);

        // Nodes that run after some control dependency: with one of their own, or
        // downstream of one (TF's ops created in a `control_dependencies` block
        // drop control inputs that an input already implies).
        let mut ordered = vec![false; graph.len()];
        let mut steps = Vec::with_capacity(order.len());
        for &n in &order {
            let node = graph.node(n)?;
            ordered[n] = !node.control_inputs.is_empty()
                || node.inputs.iter().any(|o| ordered[o.node] && !feed_slot.contains_key(o));
            let kernel = kernels.remove(&n).ok_or_else(|| Error::value(format!("no kernel for {}", node.name)))?;
            let inputs = node
                .inputs
                .iter()
                .enumerate()
                .map(|(i, o)| {
                    let src = if ordered[n] { variable_behind_read(graph, *o, &feed_slot)? } else { *o };
                    Ok(InputRef { slot: slot_of(&src), take: false, deref: !node.def.ref_inputs.contains(&i) })
                })
                .collect::<Result<_>>()?;
            let mut preds: Vec<usize> = node
                .inputs
                .iter()
                .filter(|o| !feed_slot.contains_key(o))
                .map(|o| step_of[o.node])
                .chain(node.control_inputs.iter().map(|&c| step_of[c]))
                .collect();
            preds.sort_unstable();
            preds.dedup();
            let blocking = kernel.is_blocking();
            let label = format!("{} = {}({})", node.name, node.op_type(), graph.node_def_inputs(node).join(", "));
            steps.push(Step {
                name: node.name.clone(),
                label,
                blocking,
                kernel,
                inputs,
                out_base: out_base[n],
                num_outputs: node.outputs.len(),
                successors: Vec::new(),
                num_predecessors: preds.len(),
            });
            let me = steps.len() - 1;
            for p in preds {
                steps[p].successors.push(me);
            }
        }

        let fetch_slots: Vec<usize> = fetches.iter().map(slot_of).collect();
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

        // Blocking steps (queues) do not prevent a parallel run: it executes them on the
        // calling thread (see `executor::ParallelRun::serve_lane`).
        let parallel = pool_threads > 1 && overlappable_work(graph, &order, &steps) >= PARALLEL_MIN_WORK;
        Ok(Plan { steps, num_slots: next_slot, feeds: feed_slots, fetches: fetch_slots, uses, parallel })
    }
}

/// A topological order of `nodes` (ids in `needed`, inputs before consumers) that
/// runs every non-blocking node that is ready before any blocking one (a queue
/// operation). A straight-line run executes steps in this order, so an op that fails
/// (a `tf.Assert`) ends the run before a dequeue in the same run can wait for ever.
fn blocking_last_order(
    graph: &Graph,
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
        let node = graph.node(n)?;
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

/// For an input of an op that runs after a control dependency: the variable reference
/// behind a read (`Identity` of a ref, such as `v/read`), so the op reads the variable
/// when it runs, after its control dependencies. TF's read aliases the variable's buffer, so
/// `with tf.control_dependencies([train_op]): y = v * 2` sees the trained `v`; the
/// read's snapshot may be older. Other consumers keep the snapshot, so reads within
/// one step are consistent (an update never leaks into the same step's gradients).
fn variable_behind_read(graph: &Graph, o: Output, feeds: &HashMap<Output, usize>) -> Result<Output> {
    let producer = graph.node(o.node)?;
    if feeds.contains_key(&o) || producer.def.name != "Identity" {
        return Ok(o);
    }
    let source = producer.inputs[0];
    let is_ref = graph.output_spec(source)?.is_ref;
    Ok(if is_ref && !feeds.contains_key(&source) { source } else { o })
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
    if node.op_type() == "MatMul" {
        // m*n outputs, each a k-long dot product.
        let k =
            node.inputs.first().and_then(|o| graph.output_spec(*o).ok()).and_then(|s| s.shape.dims().map(|d| d.len()));
        return out * k.map_or(UNKNOWN_DIM_GUESS, |_| inp.sqrt().max(1.0));
    }
    out.max(inp)
}

/// Total work minus the critical path: what threads could overlap.
fn overlappable_work(graph: &Graph, order: &[NodeId], steps: &[Step]) -> f64 {
    let costs: Vec<f64> = order.iter().map(|&n| node_cost(graph, n)).collect();
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
