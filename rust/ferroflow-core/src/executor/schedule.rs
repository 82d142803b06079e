//! Scheduling a plan: a topological order that runs blocking steps last, value slots,
//! which input occurrence is a value's last use (so it is moved, not cloned, and its
//! buffer can be reused in place), and whether the plan has enough independent work to
//! be worth spreading over the thread pool.
use std::collections::HashMap;

use super::copies::Entry;
use super::fuse::Fusion;
use super::plan::Step;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, Output};
use crate::shape::PartialShape;

/// Independent work (in element-ops) a plan must have before it is run on the pool:
/// waking a parked thread costs ~25 µs here, so smaller plans run inline.
const PARALLEL_MIN_WORK: f64 = (1u64 << 18) as f64;
/// Assumed size of a dimension unknown at compile time, for cost estimates only.
const UNKNOWN_DIM_GUESS: f64 = 64.0;

/// The step of each node (by node id), the first output slot of each entry, and the
/// number of slots: the `n_feeds` fed values first, then each entry's outputs.
pub(super) fn assign_slots(
    graph: &Graph,
    fusion: &Fusion,
    entries: &[Entry],
    n_feeds: usize,
) -> Result<(Vec<usize>, Vec<usize>, usize)> {
    let mut step_of = vec![usize::MAX; graph.len()];
    let mut out_base = vec![0usize; entries.len()];
    let mut next_slot = n_feeds;
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
    Ok((step_of, out_base, next_slot))
}

/// Counts each slot's uses (inputs and fetches) and marks the last input occurrence of
/// an unfetched value to move it; returns the counts.
pub(super) fn mark_last_uses(steps: &mut [Step], fetch_slots: &[usize], next_slot: usize) -> Vec<usize> {
    let mut uses = vec![0usize; next_slot];
    for st in steps.iter() {
        for i in &st.inputs {
            uses[i.slot] += 1;
        }
    }
    let mut fetched = vec![false; next_slot];
    for &f in fetch_slots {
        uses[f] += 1;
        fetched[f] = true;
    }
    // The last input occurrence of an unfetched value moves it.
    let mut remaining = uses.clone();
    for st in steps.iter_mut() {
        for i in &mut st.inputs {
            remaining[i.slot] -= 1;
            i.take = remaining[i.slot] == 0 && !fetched[i.slot];
        }
    }
    uses
}

/// Whether the plan runs on the pool. Blocking steps (queues) do not prevent a parallel run: it starts them on the
/// calling thread (see `executor::ParallelRun::serve_lane`). A plan with more than
/// one runs in parallel whatever its cost, so that one step waiting (a dequeue)
/// never holds up another that would release it (an enqueue in the same run),
/// unless each waits for the one before it (a reader's read feeding an enqueue):
/// then no order but the straight one exists and no step can release an earlier.
pub(super) fn is_parallel(
    graph: &Graph,
    fusion: &Fusion,
    entries: &[Entry],
    steps: &[Step],
    pool_threads: usize,
) -> bool {
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
    let chained = blocking.windows(2).all(|w| reaches(steps, w[0], w[1]));
    (blocking.len() > 1 && !chained) || (pool_threads > 1 && overlappable_work(&costs, steps) >= PARALLEL_MIN_WORK)
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
pub(super) fn blocking_last_order(
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
