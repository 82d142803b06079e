//! The plan's remapping pass (TF grappler's remapper, as it runs on the CPU): a
//! `MatMul`, `Conv2D` or `DepthwiseConv2dNative` whose product only a `BiasAdd` reads,
//! and that `BiasAdd` with its sum read only by an activation (`Relu`, `Relu6`, `Elu`,
//! `Tanh`, `Sigmoid`) or by nothing but later steps, become one `_FusedMatMul`/
//! `_FusedConv2D`/`_FusedDepthwiseConv2dNative` step (`kernels::fused`). The fused
//! step takes the last node's name and outputs, so its consumers, fetches, gradients
//! (`ReluGrad` reads the activation's output) and step statistics are unchanged; the
//! absorbed nodes' values were read by nothing else, so nothing can observe that they
//! were never materialised.
//!
//! A `MatMul` whose product only an `Add`/`AddV2` reads becomes `_FusedMatMul` with
//! `fused_ops = ["Add"]` and the other addend as its argument: gemm accumulates the
//! product into the addend (a loop gradient's per-iteration `acc + x^T dy`).
//!
//! A chain is left alone when an absorbed value is fed or fetched, when any other node
//! reads it or waits on its node through a control edge, when its nodes are on
//! different devices or not on a CPU (GPU kernels are separate), or when its type is
//! not float32/float64. `ConfigProto.graph_options.rewrite_options.remapping = OFF`
//! (or `disable_meta_optimizer`) turns the pass off, as in TF, for the session's plans;
//! the sub-plans of loop bodies (`kernels/functional.rs`) see no session options and are
//! always remapped (their values are the same either way).
use std::collections::{HashMap, HashSet};

use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{AttrValue, Graph, Node, NodeId, Output};
use crate::kernels::fused::{Activation, contraction_channels_first, fused_op_of};

/// The fused nodes of a plan.
#[derive(Default)]
pub(crate) struct Fusion {
    /// The fused node standing in for the last node of each chain (which it is named
    /// after and whose outputs it has), by that node's id.
    pub nodes: HashMap<NodeId, Node>,
    /// The nodes each fused node absorbed, earliest first (not run themselves).
    pub absorbed: HashMap<NodeId, Vec<NodeId>>,
}

impl Fusion {
    /// The node to compile for `n`: its fused stand-in, or the graph's node.
    pub fn node<'a>(&'a self, graph: &'a Graph, n: NodeId) -> Result<&'a Node> {
        match self.nodes.get(&n) {
            Some(node) => Ok(node),
            None => graph.node(n),
        }
    }
}

/// Finds the fusable chains among `needed` (a pruned plan's nodes).
/// `device_type(n)` is the type of the device node `n` was placed on.
pub(crate) fn fuse(
    graph: &Graph,
    needed: &[NodeId],
    feeds: &HashMap<Output, usize>,
    fetches: &[Output],
    device_of: &HashMap<NodeId, usize>,
    device_type: impl Fn(NodeId) -> String,
) -> Result<Fusion> {
    // Who reads each value, and which nodes others wait on through control edges.
    let mut readers: HashMap<Output, Vec<(NodeId, usize)>> = HashMap::new();
    let mut awaited: HashSet<NodeId> = HashSet::new();
    for &n in needed {
        let node = graph.node(n)?;
        for (i, o) in node.inputs.iter().enumerate() {
            readers.entry(*o).or_default().push((n, i));
        }
        awaited.extend(node.control_inputs.iter().copied());
    }
    let fetched: HashSet<Output> = fetches.iter().copied().collect();
    // The one node reading `o` as its input `index`, if `o` is read by nothing else and
    // is neither fed nor fetched (and its producer is waited on by no control edge).
    let sole_reader = |o: Output, index: usize| -> Option<NodeId> {
        if feeds.contains_key(&o) || fetched.contains(&o) || awaited.contains(&o.node) {
            return None;
        }
        match readers.get(&o).map(Vec::as_slice) {
            Some(&[(reader, i)]) if i == index => Some(reader),
            _ => None,
        }
    };

    let mut fusion = Fusion::default();
    for &p in needed {
        let producer = graph.node(p)?;
        let Some(fused_op) = fused_op_of(producer.op_type()) else { continue };
        let dtype = producer.outputs[0].dtype;
        let on_cpu = |n: NodeId| device_type(n) == crate::device::CPU && device_of.get(&n) == device_of.get(&p);
        if !matches!(dtype, DType::Float32 | DType::Float64) || !on_cpu(p) {
            continue;
        }
        let product = Output { node: p, index: 0 };
        if producer.op_type() == "MatMul" {
            // `acc + a @ b` (either operand order): the product accumulated into `acc`.
            let add = [0, 1].into_iter().find_map(|i| {
                let r = sole_reader(product, i)?;
                let node = graph.node(r).ok()?;
                let is_add = matches!(node.op_type(), "Add" | "AddV2")
                    && node.inputs.len() == 2
                    && node.outputs.first().is_some_and(|o| o.dtype == dtype);
                (is_add && on_cpu(r)).then(|| (r, node.inputs[1 - i]))
            });
            if let Some((r, addend)) = add {
                let add_node = graph.node(r)?;
                let mut attrs = producer.attrs.clone();
                attrs.insert("fused_ops".into(), AttrValue::ListS(vec![b"Add".to_vec()]));
                attrs.insert("num_args".into(), AttrValue::I(1));
                let node = Node {
                    name: add_node.name.clone(),
                    def: crate::ops::lookup(fused_op)?,
                    inputs: vec![producer.inputs[0], producer.inputs[1], addend],
                    control_inputs: merged_control_inputs(graph, &[p, r]),
                    attrs,
                    device: add_node.device.clone(),
                    outputs: add_node.outputs.clone(),
                };
                fusion.nodes.insert(r, node);
                fusion.absorbed.insert(r, vec![p]);
                continue;
            }
        }
        let Some(b) = sole_reader(product, 0) else { continue };
        let bias_add = graph.node(b)?;
        let channels_first = contraction_channels_first(producer)?;
        let bias_channels_first = bias_add.attr_or("data_format", "NHWC".to_string())?.starts_with("NC");
        if bias_add.op_type() != "BiasAdd"
            || bias_add.outputs[0].dtype != dtype
            || bias_channels_first != channels_first
            || !on_cpu(b)
        {
            continue;
        }
        let activation = sole_reader(Output { node: b, index: 0 }, 0)
            .and_then(|a| Some((a, Activation::of_op(graph.node(a).ok()?.op_type())?)))
            .filter(|&(a, _)| on_cpu(a));
        let (last, absorbed) = match activation {
            Some((a, _)) => (a, vec![p, b]),
            None => (b, vec![p]),
        };
        let last_node = graph.node(last)?;
        let mut fused_ops = vec![b"BiasAdd".to_vec()];
        fused_ops.extend(activation.and_then(|(_, act)| act.op_name()).map(|name| name.as_bytes().to_vec()));
        let mut attrs = producer.attrs.clone();
        attrs.insert("fused_ops".into(), AttrValue::ListS(fused_ops));
        attrs.insert("num_args".into(), AttrValue::I(1));
        let control_inputs = merged_control_inputs(graph, &[p, b, last]);
        let node = Node {
            name: last_node.name.clone(),
            def: crate::ops::lookup(fused_op)?,
            inputs: vec![producer.inputs[0], producer.inputs[1], bias_add.inputs[1]],
            control_inputs,
            attrs,
            device: last_node.device.clone(),
            outputs: last_node.outputs.clone(),
        };
        fusion.nodes.insert(last, node);
        fusion.absorbed.insert(last, absorbed);
    }
    Ok(fusion)
}

/// The control inputs of the nodes a fused node stands in for, once each.
fn merged_control_inputs(graph: &Graph, nodes: &[NodeId]) -> Vec<NodeId> {
    let mut control_inputs: Vec<NodeId> =
        nodes.iter().filter_map(|&n| graph.node(n).ok()).flat_map(|n| n.control_inputs.iter().copied()).collect();
    control_inputs.sort_unstable();
    control_inputs.dedup();
    control_inputs
}
