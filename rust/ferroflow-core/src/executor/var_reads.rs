//! Where each input of a plan really reads from: a node that runs after an update of
//! a variable reads that variable through its reference, as TF's aliasing reads do.
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::fuse::Fusion;
use crate::error::Result;
use crate::graph::{Graph, Node, NodeId, Output};

/// The source of every input of the nodes in `order` (a topological order). A node that runs after an update of a
/// variable through a control dependency (one of its own, or downstream of one:
/// TF's ops created in a `control_dependencies` block drop control inputs that
/// an input already implies) reads that variable through its reference
/// (`variable_behind_read`), so it sees the update as TF's aliasing read does.
/// Reads of variables no such update writes keep their snapshots: a step's
/// gradients made after a control edge on, say, loss averages never see the
/// step's own weight updates.
pub(super) fn input_sources(
    graph: &Graph,
    fusion: &Fusion,
    order: &[NodeId],
    feed_slot: &HashMap<Output, usize>,
    controls: impl Fn(&Node) -> Vec<NodeId>,
) -> Result<HashMap<NodeId, Vec<Output>>> {
    let mut written: Vec<VarSet> = vec![None; graph.len()];
    let mut updated_before: Vec<VarSet> = vec![None; graph.len()];
    let mut sources: HashMap<NodeId, Vec<Output>> = HashMap::with_capacity(order.len());
    for &n in order {
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
                Some(vars) => variable_behind_read(graph, *o, feed_slot, vars),
                None => Ok(*o),
            })
            .collect::<Result<Vec<_>>>()?;
        sources.insert(n, src);
    }
    Ok(sources)
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
