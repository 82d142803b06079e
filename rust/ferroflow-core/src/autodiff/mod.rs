//! `tf.gradients` as a graph-to-graph transform: walks backwards from `ys` through
//! the ops that lie between `xs` and `ys`, calls each op's registered gradient
//! function (which adds gradient nodes to the graph), sums the contributions that
//! reach each tensor, and returns the gradient of `sum(ys)` for every `x`.
pub(crate) mod array_grad;
pub(crate) mod control_flow_grad;
pub(crate) mod image_grad;
pub(crate) mod math_grad;
pub(crate) mod nn_grad;
pub mod registry;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Graph, NodeId, NodeSpec, Output, OutputSpec};
use crate::tensor::Tensor;
use registry::{Gradient, gradient};

/// A gradient flowing backwards: dense, or sparse rows of a dense tensor
/// (`tf.IndexedSlices`, produced by `gather`/`embedding_lookup`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grad {
    /// A dense tensor of the forward tensor's shape.
    Dense(Output),
    /// `values[i]` is the gradient of row `indices[i]` of a tensor of `dense_shape`.
    Sparse {
        /// Gradient rows.
        values: Output,
        /// Row indices (int32 or int64).
        indices: Output,
        /// Shape of the dense tensor.
        dense_shape: Output,
    },
}

/// A gradient function: given the gradients of an op's outputs (None where nothing
/// flows back), returns one gradient (or None) per input.
pub type GradFn = fn(&mut GradCtx<'_>, &[Option<Grad>]) -> Result<Vec<Option<Grad>>>;

/// How multiple gradient contributions to one tensor are summed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Aggregation {
    /// One `AddN` over all contributions (TF's `ADD_N` and `DEFAULT`).
    #[default]
    AddN,
    /// Pairwise `AddV2` in arrival order (TF's `EXPERIMENTAL_TREE`/`ACCUMULATE_N`
    /// reduce to the same sums; kept for API compatibility).
    Tree,
}

/// What gradient functions see: the forward node, and a builder for new nodes
/// named under `<scope><node name>_grad/`.
pub struct GradCtx<'a> {
    graph: &'a mut Graph,
    node: NodeId,
    prefix: String,
    device: String,
    /// The `_class` groups new nodes join (`colocate_gradients_with_ops`).
    groups: Option<AttrValue>,
}

impl GradCtx<'_> {
    /// The forward node's `i`-th input.
    pub fn input(&self, i: usize) -> Output {
        self.graph.nodes()[self.node].inputs[i]
    }
    /// The forward node's `i`-th output.
    pub fn output(&self, i: usize) -> Output {
        Output { node: self.node, index: i }
    }
    /// The forward op's type.
    pub fn op_type(&self) -> &'static str {
        self.graph.nodes()[self.node].def.name
    }
    /// Number of forward inputs.
    pub fn num_inputs(&self) -> usize {
        self.graph.nodes()[self.node].inputs.len()
    }
    /// Static type of a tensor.
    pub fn spec(&self, t: Output) -> Result<OutputSpec> {
        self.graph.output_spec(t).cloned()
    }
    /// A forward attr.
    pub fn attr(&self, name: &str) -> Option<&AttrValue> {
        self.graph.nodes()[self.node].attrs.get(name)
    }
    /// A boolean forward attr (false when absent).
    pub fn attr_bool(&self, name: &str) -> bool {
        matches!(self.attr(name), Some(AttrValue::B(true)))
    }
    /// The constant value of a tensor produced by a `Const` node.
    pub fn constant_value(&self, t: Output) -> Option<Tensor> {
        if t.index == 0 { self.graph.const_value(t.node).cloned() } else { None }
    }

    /// Adds a node; returns the node id.
    pub fn node(&mut self, op: &str, inputs: &[Output], attrs: Vec<(&str, AttrValue)>) -> Result<NodeId> {
        let name = self.graph.unique_name(&format!("{}{op}", self.prefix), true);
        let mut attrs: BTreeMap<String, AttrValue> = attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        if let Some(groups) = &self.groups {
            attrs.insert("_class".into(), groups.clone());
        }
        self.graph.add_node(NodeSpec {
            name,
            op: op.to_string(),
            inputs: inputs.to_vec(),
            control_inputs: Vec::new(),
            attrs,
            device: self.device.clone(),
        })
    }
    /// Adds a node and returns its first output.
    pub fn op(&mut self, op: &str, inputs: &[Output], attrs: Vec<(&str, AttrValue)>) -> Result<Output> {
        Ok(Output { node: self.node(op, inputs, attrs)?, index: 0 })
    }
    /// A constant.
    pub fn constant(&mut self, t: Tensor) -> Result<Output> {
        self.op("Const", &[], vec![("value", AttrValue::Tensor(t))])
    }
    /// An int32 vector constant.
    pub fn int_vector(&mut self, values: &[usize]) -> Result<Output> {
        let v: Vec<i32> = values.iter().map(|&x| i32::try_from(x).unwrap_or(i32::MAX)).collect();
        self.constant(Tensor::from_slice(&[v.len()], &v)?)
    }
    /// A scalar constant of a floating or integer dtype.
    pub fn scalar(&mut self, dtype: DType, value: f64) -> Result<Output> {
        let t = crate::kernels::array::cast(&Tensor::scalar(value), dtype)?;
        self.constant(t)
    }
    /// The shape of `t`: a constant when static, else a `Shape` op.
    pub fn shape_of(&mut self, t: Output) -> Result<Output> {
        match self.spec(t)?.shape.to_shape() {
            Some(s) => self.int_vector(&s),
            None => self.op("Shape", &[t], vec![]),
        }
    }
    /// The dense form of a gradient (sparse rows are summed with `UnsortedSegmentSum`).
    pub fn dense(&mut self, g: Grad) -> Result<Output> {
        match g {
            Grad::Dense(o) => Ok(o),
            Grad::Sparse { values, indices, dense_shape } => densify(self, values, indices, dense_shape),
        }
    }

    /// Reduces `grad` (of a broadcast shape) to the shape of `x`: the gradient of numpy
    /// broadcasting. Static shapes give constant reduction axes; otherwise
    /// `BroadcastGradientArgs` finds the broadcast axes at run time.
    pub fn sum_to(&mut self, grad: Output, x: Output) -> Result<Output> {
        let (xs, gs) = (self.spec(x)?.shape, self.spec(grad)?.shape);
        if xs.is_fully_defined() && xs == gs {
            return Ok(grad);
        }
        if let (Some(xd), Some(gd)) = (xs.to_shape(), gs.to_shape()) {
            let pad = gd.len() - xd.len();
            let axes: Vec<usize> = (0..gd.len()).filter(|&i| i < pad || (xd[i - pad] == 1 && gd[i] != 1)).collect();
            let summed = if axes.is_empty() {
                grad
            } else {
                let a = self.int_vector(&axes)?;
                self.op("Sum", &[grad, a], vec![("keep_dims", AttrValue::B(false))])?
            };
            let shape = self.int_vector(&xd)?;
            return self.op("Reshape", &[summed, shape], vec![]);
        }
        let sx = self.op("Shape", &[x], vec![])?;
        let sg = self.op("Shape", &[grad], vec![])?;
        let args = self.node("BroadcastGradientArgs", &[sx, sg], vec![])?;
        let summed =
            self.op("Sum", &[grad, Output { node: args, index: 0 }], vec![("keep_dims", AttrValue::B(false))])?;
        self.op("Reshape", &[summed, sx], vec![])
    }
    /// The dense gradient of output `i`, if any.
    pub fn dense_out(&mut self, grads: &[Option<Grad>], i: usize) -> Result<Option<Output>> {
        grads.get(i).copied().flatten().map(|g| self.dense(g)).transpose()
    }
    /// The dense gradient of output 0 (present whenever a single-output op's gradient runs).
    pub fn dy(&mut self, grads: &[Option<Grad>]) -> Result<Output> {
        self.dense_out(grads, 0)?.ok_or_else(|| {
            Error::new(crate::error::Code::Internal, "gradient function called without an output gradient")
        })
    }
    /// An all-axes int32 vector for `t` (constant when its rank is known).
    pub fn all_axes(&mut self, t: Output) -> Result<Output> {
        match self.spec(t)?.shape.rank() {
            Some(r) => self.int_vector(&(0..r).collect::<Vec<_>>()),
            None => {
                let zero = self.constant(Tensor::scalar(0i32))?;
                let one = self.constant(Tensor::scalar(1i32))?;
                let rank = self.op("Rank", &[t], vec![])?;
                self.op("Range", &[zero, rank, one], vec![])
            }
        }
    }
}

/// One dense gradient per input.
pub(crate) fn dense_all(grads: Vec<Output>) -> Vec<Option<Grad>> {
    grads.into_iter().map(|g| Some(Grad::Dense(g))).collect()
}

fn densify(ctx: &mut GradCtx<'_>, values: Output, indices: Output, dense_shape: Output) -> Result<Output> {
    // num_segments = dense_shape[0]
    let zero = ctx.constant(Tensor::from_slice(&[1], &[0i32])?)?;
    let one = ctx.constant(Tensor::from_slice(&[1], &[1i32])?)?;
    let rows = ctx.op("Slice", &[dense_shape, zero, one], vec![])?;
    let empty = ctx.constant(Tensor::from_slice::<i32>(&[0], &[])?)?;
    let n = ctx.op("Reshape", &[rows, empty], vec![])?;
    ctx.op("UnsortedSegmentSum", &[values, indices, n], vec![])
}

/// Where a node colocated with `node` goes, as TF's `colocate_with(node)`: into
/// `node`'s colocation groups (its `_class`, else `loc:@<name>`), on its device (outer
/// device scopes are ignored).
fn colocation_of(graph: &Graph, node: NodeId) -> Result<(AttrValue, String)> {
    let n = graph.node(node)?;
    let groups = match n.attrs.get("_class") {
        Some(AttrValue::ListS(g)) if !g.is_empty() => g.clone(),
        _ => vec![format!("loc:@{}", n.name).into_bytes()],
    };
    Ok((AttrValue::ListS(groups), n.device.clone()))
}

/// TF's `_MultiDeviceAddN`: the contributions on each device (in device order) are
/// summed first, colocated with the first of them; the partial sums are then added
/// in `ctx`'s placement. A single tensor is its own sum (TF's one-input `add_n`).
fn multi_device_add_n(ctx: &mut GradCtx<'_>, dense: &[Output]) -> Result<Output> {
    let mut by_device: Vec<(String, Vec<Output>)> = Vec::new();
    for t in dense {
        let device = ctx.graph.node(t.node)?.device.clone();
        match by_device.iter_mut().find(|(d, _)| *d == device) {
            Some((_, group)) => group.push(*t),
            None => by_device.push((device, vec![*t])),
        }
    }
    by_device.sort_by(|a, b| a.0.cmp(&b.0));
    let (outer_groups, outer_device) = (ctx.groups.take(), ctx.device.clone());
    let mut summands = Vec::with_capacity(by_device.len());
    for (_, group) in &by_device {
        if group.len() == 1 {
            summands.push(group[0]);
            continue;
        }
        let (groups, device) = colocation_of(ctx.graph, group[0].node)?;
        ctx.groups = Some(groups);
        ctx.device = device;
        summands.push(ctx.op("AddN", group, vec![])?);
    }
    ctx.groups = outer_groups;
    ctx.device = outer_device;
    if summands.len() == 1 {
        return Ok(summands[0]);
    }
    ctx.op("AddN", &summands, vec![])
}

/// TF's `_IsBackpropagatable`: a gradient flows through tensors of these types only.
fn backpropagatable(dtype: DType) -> bool {
    dtype.is_floating() || dtype.is_complex() || matches!(dtype, DType::Resource | DType::Variant)
}

/// How a gradient computation names, places and sums the nodes it adds.
#[derive(Clone, Debug)]
struct WalkConfig {
    /// Name scope of all new nodes, with a trailing slash (`gradients/`).
    scope: String,
    device: String,
    aggregation: Aggregation,
    colocate_with_ops: bool,
    /// Nodes not differentiated through (`stop_gradients`): they receive gradients
    /// but pass none to their inputs.
    stop: HashSet<NodeId>,
    /// Nodes whose gradient the caller computes (Python-registered gradient
    /// functions, `gradient_override_map`, `custom_gradient`): the walk pauses there.
    external: HashSet<NodeId>,
}

/// The graph-to-graph gradient transform.
pub struct Gradients<'a> {
    graph: &'a mut Graph,
    config: WalkConfig,
}

/// Where a paused [`GradientWalk`] stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkStep {
    /// The caller computes the input gradients of `node` (an external node) from the
    /// gradients of its outputs and passes them to [`GradientWalk::resume`].
    External {
        /// The node whose gradient is wanted.
        node: NodeId,
        /// The summed gradient of each of its outputs (None where nothing flows back).
        out_grads: Vec<Option<Grad>>,
    },
    /// The walk is over: the gradient of every x.
    Done(Vec<Option<Grad>>),
}

/// A gradient computation that can pause at external nodes while the caller adds
/// their gradient nodes to the graph: it keeps node ids, never a borrow of the graph,
/// so the graph is free between steps.
#[derive(Debug)]
pub struct GradientWalk {
    config: WalkConfig,
    xs: Vec<Output>,
    between: Vec<bool>,
    pending: Vec<usize>,
    grads: HashMap<Output, Vec<Grad>>,
    ready: VecDeque<NodeId>,
    /// The external node whose input gradients the next `resume` brings.
    awaiting: Option<NodeId>,
    done: bool,
}

impl<'a> Gradients<'a> {
    /// A transform adding nodes under `scope` (e.g. `"gradients/"`) on `device`.
    pub fn new(graph: &'a mut Graph, scope: &str, device: &str, aggregation: Aggregation) -> Self {
        Gradients {
            graph,
            config: WalkConfig {
                scope: scope.to_string(),
                device: device.to_string(),
                aggregation,
                colocate_with_ops: false,
                stop: HashSet::new(),
                external: HashSet::new(),
            },
        }
    }

    /// TF's `colocate_gradients_with_ops`: the nodes of each op's gradient (and the
    /// default `grad_ys` of each y) are colocated with that op.
    #[must_use]
    pub fn colocate_with_ops(mut self, colocate: bool) -> Self {
        self.config.colocate_with_ops = colocate;
        self
    }

    /// TF's `stop_gradients`: the producers of `tensors` are treated as constants (a
    /// gradient reaches them, none flows on to their inputs).
    #[must_use]
    pub fn stop_at(mut self, tensors: &[Output]) -> Self {
        self.config.stop.extend(tensors.iter().map(|t| t.node));
        self
    }

    /// Nodes whose gradients the caller computes: [`GradientWalk::resume`] pauses at
    /// each with [`WalkStep::External`].
    #[must_use]
    pub fn external(mut self, nodes: &[NodeId]) -> Self {
        self.config.external.extend(nodes.iter().copied());
        self
    }

    /// The gradients of `sum(ys)` with respect to each of `xs`; `grad_ys[i]` (or ones)
    /// seeds `ys[i]`. Returns None for an `x` that no `y` depends on.
    ///
    /// # Errors
    /// As [`GradientWalk::resume`]; an `Internal` error when an external node is
    /// reached (use [`Gradients::start`] for those).
    pub fn compute(self, ys: &[Output], xs: &[Output], grad_ys: &[Option<Output>]) -> Result<Vec<Option<Grad>>> {
        let graph = self.graph;
        let mut walk = GradientWalk::start(graph, self.config, ys, xs, &dense_seeds(grad_ys))?;
        match walk.resume(graph, None)? {
            WalkStep::Done(grads) => Ok(grads),
            WalkStep::External { node, .. } => {
                Err(Error::new(crate::error::Code::Internal, format!("external gradient at node {node} in compute")))
            }
        }
    }

    /// Starts a walk that pauses at the external nodes; seeds the ys' gradients.
    ///
    /// # Errors
    /// A `grad_ys` entry whose dtype differs from its y's (`ValueError`).
    pub fn start(self, ys: &[Output], xs: &[Output], grad_ys: &[Option<Output>]) -> Result<GradientWalk> {
        GradientWalk::start(self.graph, self.config, ys, xs, &dense_seeds(grad_ys))
    }

    /// [`Gradients::start`] with initial gradients that may be sparse (TF's
    /// `IndexedSlices` `grad_ys`).
    ///
    /// # Errors
    /// As [`Gradients::start`] (a sparse seed's values are checked).
    pub fn start_seeded(self, ys: &[Output], xs: &[Output], grad_ys: &[Option<Grad>]) -> Result<GradientWalk> {
        GradientWalk::start(self.graph, self.config, ys, xs, grad_ys)
    }
}

fn dense_seeds(grad_ys: &[Option<Output>]) -> Vec<Option<Grad>> {
    grad_ys.iter().map(|g| g.map(Grad::Dense)).collect()
}

impl WalkConfig {
    fn ctx<'g>(&self, graph: &'g mut Graph, node: NodeId, prefix: String) -> GradCtx<'g> {
        GradCtx { graph, node, prefix, device: self.device.clone(), groups: None }
    }

    /// A context whose nodes are colocated with `node` when `colocate` holds.
    fn ctx_colocated<'g>(&self, graph: &'g mut Graph, node: NodeId, prefix: String) -> Result<GradCtx<'g>> {
        let placed = if self.colocate_with_ops { Some(colocation_of(graph, node)?) } else { None };
        let mut ctx = self.ctx(graph, node, prefix);
        if let Some((groups, device)) = placed {
            ctx.groups = Some(groups);
            ctx.device = device;
        }
        Ok(ctx)
    }

    /// Sums gradient contributions for one output of `owner` (in `owner`'s
    /// colocation when gradients are colocated with their ops, as TF's
    /// `_AggregatedGrads` under `_maybe_colocate_with(op)`).
    fn aggregate(&self, graph: &mut Graph, owner: NodeId, grads: Vec<Grad>) -> Result<Option<Grad>> {
        if grads.len() <= 1 {
            return Ok(grads.into_iter().next());
        }
        let mut ctx = self.ctx_colocated(graph, owner, self.scope.clone())?;
        if grads.iter().all(|g| matches!(g, Grad::Sparse { .. })) {
            // Sparse + sparse: concatenate the rows (as TF does for IndexedSlices).
            let (mut vals, mut idxs, mut shape) = (Vec::new(), Vec::new(), None);
            for g in &grads {
                if let Grad::Sparse { values, indices, dense_shape } = *g {
                    vals.push(values);
                    idxs.push(indices);
                    shape.get_or_insert(dense_shape);
                }
            }
            let axis = ctx.constant(Tensor::scalar(0i32))?;
            vals.push(axis);
            idxs.push(axis);
            let values = ctx.op("ConcatV2", &vals, vec![])?;
            let idx_types: HashSet<DType> =
                idxs[..idxs.len() - 1].iter().filter_map(|i| ctx.spec(*i).ok()).map(|s| s.dtype).collect();
            if idx_types.len() > 1 {
                for i in idxs.iter_mut().take(grads.len()) {
                    *i = ctx.op("Cast", &[*i], vec![("DstT", AttrValue::Type(DType::Int64))])?;
                }
            }
            let indices = ctx.op("ConcatV2", &idxs, vec![])?;
            let dense_shape = shape.ok_or_else(|| Error::value("no sparse gradient"))?;
            return Ok(Some(Grad::Sparse { values, indices, dense_shape }));
        }
        let dense: Vec<Output> = grads.into_iter().map(|g| ctx.dense(g)).collect::<Result<_>>()?;
        let sum = match self.aggregation {
            Aggregation::AddN => multi_device_add_n(&mut ctx, &dense)?,
            Aggregation::Tree => {
                let mut acc = dense[0];
                for d in &dense[1..] {
                    acc = ctx.op("AddV2", &[acc, *d], vec![])?;
                }
                acc
            }
        };
        Ok(Some(Grad::Dense(sum)))
    }
}

/// The gradient function of `node`: its `_gradient_op_type` override (TF's
/// `gradient_override_map`) when it has one, else its op type's.
fn gradient_of(graph: &Graph, node: NodeId) -> Result<(Gradient, String)> {
    let n = graph.node(node)?;
    match n.attrs.get("_gradient_op_type") {
        Some(AttrValue::S(t)) => {
            let t = String::from_utf8_lossy(t).into_owned();
            Ok((gradient(&t), t))
        }
        _ => Ok((gradient(n.def.name), n.def.name.to_string())),
    }
}

impl GradientWalk {
    fn start(
        graph: &mut Graph,
        config: WalkConfig,
        ys: &[Output],
        xs: &[Output],
        grad_ys: &[Option<Grad>],
    ) -> Result<GradientWalk> {
        let n = graph.len();
        // Consumers of each node over the edges a gradient can travel (TF's
        // `_MarkReachedOps` follows only backpropagatable tensors: floating point,
        // resources and variants, never integers, booleans or strings).
        let mut consumers: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for (id, node) in graph.nodes().iter().enumerate() {
            for i in &node.inputs {
                if backpropagatable(graph.output_spec(*i)?.dtype) {
                    consumers[i.node].push(id);
                }
            }
        }
        // Forward-reachable from xs.
        let mut reached = vec![false; n];
        let mut queue: VecDeque<NodeId> = xs.iter().map(|x| x.node).collect();
        while let Some(id) = queue.pop_front() {
            if std::mem::replace(&mut reached[id], true) {
                continue;
            }
            queue.extend(consumers[id].iter().copied());
        }
        // Between xs and ys: reached from xs and reaching ys.
        let mut between = vec![false; n];
        let mut queue: VecDeque<NodeId> = ys.iter().map(|y| y.node).collect();
        while let Some(id) = queue.pop_front() {
            if !reached[id] || std::mem::replace(&mut between[id], true) {
                continue;
            }
            queue.extend(graph.nodes()[id].inputs.iter().map(|i| i.node));
        }
        // Pending = number of consumer edges inside the between set.
        let mut pending = vec![0usize; n];
        for (id, node) in graph.nodes().iter().enumerate() {
            if between[id] {
                for i in &node.inputs {
                    if between[i.node] {
                        pending[i.node] += 1;
                    }
                }
            }
        }
        let mut grads: HashMap<Output, Vec<Grad>> = HashMap::new();
        for (k, y) in ys.iter().enumerate() {
            let seed = match grad_ys.get(k).cloned().flatten() {
                Some(g) => {
                    let values = match &g {
                        Grad::Dense(t) => *t,
                        Grad::Sparse { values, .. } => *values,
                    };
                    let (gs, ys_spec) = (graph.output_spec(values)?.dtype, graph.output_spec(*y)?.dtype);
                    if gs != ys_spec {
                        return Err(Error::value(format!(
                            "Gradient type {gs} generated for op {} does not match input type {ys_spec}",
                            graph.node(y.node)?.name
                        )));
                    }
                    g
                }
                None => {
                    let mut ctx = config.ctx_colocated(graph, y.node, config.scope.clone())?;
                    let dtype = ctx.spec(*y)?.dtype;
                    let shape = ctx.shape_of(*y)?;
                    let one = ctx.scalar(dtype, 1.0)?;
                    Grad::Dense(ctx.op("Fill", &[shape, one], vec![])?)
                }
            };
            grads.entry(*y).or_default().push(seed);
        }
        let ready: VecDeque<NodeId> = {
            let mut seen = HashSet::new();
            ys.iter().map(|y| y.node).filter(|id| between[*id] && pending[*id] == 0 && seen.insert(*id)).collect()
        };
        Ok(GradientWalk { config, xs: xs.to_vec(), between, pending, grads, ready, awaiting: None, done: false })
    }

    /// Runs the walk on until it needs an external node's gradient or is over.
    /// `supplied` carries the input gradients of the external node of the previous
    /// [`WalkStep::External`] (one per input), and must be None otherwise.
    ///
    /// # Errors
    /// `LookupError` for an op without a gradient function on the path; a wrong
    /// number of supplied gradients (`ValueError`); a walk resumed out of turn or after
    /// it ended (`Internal`); whatever a gradient function raises.
    pub fn resume(&mut self, graph: &mut Graph, supplied: Option<Vec<Option<Grad>>>) -> Result<WalkStep> {
        if self.done {
            return Err(Error::new(crate::error::Code::Internal, "the gradient walk is over"));
        }
        match (self.awaiting.take(), supplied) {
            (Some(node), Some(in_grads)) => {
                let inputs = graph.node(node)?.inputs.clone();
                if in_grads.len() != inputs.len() {
                    let n = graph.node(node)?;
                    return Err(Error::value(format!(
                        "Num gradients {} generated for op {} do not match num inputs {}",
                        in_grads.len(),
                        n.name,
                        inputs.len()
                    )));
                }
                self.propagate(&inputs, in_grads);
            }
            (None, None) => {}
            _ => return Err(Error::new(crate::error::Code::Internal, "gradient walk resumed out of turn")),
        }
        while let Some(id) = self.ready.pop_front() {
            let (num_out, inputs, name) = {
                let node = graph.node(id)?;
                (node.outputs.len(), node.inputs.clone(), node.name.clone())
            };
            let mut out_grads = Vec::with_capacity(num_out);
            for i in 0..num_out {
                let contributions = self.grads.remove(&Output { node: id, index: i }).unwrap_or_default();
                let agg = self.config.aggregate(graph, id, contributions)?;
                if let Some(g) = agg {
                    // Keep the aggregate: it is the answer if this tensor is an x.
                    self.grads.insert(Output { node: id, index: i }, vec![g]);
                }
                out_grads.push(agg);
            }
            // Only ops with an input on a path from xs need their gradient.
            let flows = inputs.iter().any(|i| self.between[i.node]) && !self.config.stop.contains(&id);
            if !(flows && out_grads.iter().any(Option::is_some)) {
                self.propagate(&inputs, vec![None; inputs.len()]);
                continue;
            }
            if self.config.external.contains(&id) {
                self.awaiting = Some(id);
                return Ok(WalkStep::External { node: id, out_grads });
            }
            let in_grads = match gradient_of(graph, id)? {
                (Gradient::Fn(f), op_type) => {
                    let prefix = format!("{}{name}_grad/", self.config.scope);
                    let mut ctx = self.config.ctx_colocated(graph, id, prefix)?;
                    let r = f(&mut ctx, &out_grads)?;
                    if r.len() != inputs.len() {
                        return Err(Error::new(
                            crate::error::Code::Internal,
                            format!("gradient of {op_type} returned {} values for {} inputs", r.len(), inputs.len()),
                        ));
                    }
                    r
                }
                (Gradient::NotDifferentiable, _) => vec![None; inputs.len()],
                (Gradient::Missing, op_type) => {
                    return Err(Error::lookup(format!(
                        "No gradient defined for operation '{name}' (op type: {op_type})"
                    )));
                }
            };
            self.propagate(&inputs, in_grads);
        }
        let mut out = Vec::with_capacity(self.xs.len());
        for x in &self.xs {
            let contributions = self.grads.get(x).cloned().unwrap_or_default();
            let agg = self.config.aggregate(graph, x.node, contributions)?;
            if let Some(g) = agg {
                self.grads.insert(*x, vec![g]);
            }
            out.push(agg);
        }
        self.done = true;
        Ok(WalkStep::Done(out))
    }

    /// Hands a node's input gradients to its inputs; an input whose every consumer
    /// has done so becomes ready.
    fn propagate(&mut self, inputs: &[Output], in_grads: Vec<Option<Grad>>) {
        for (inp, g) in inputs.iter().zip(in_grads) {
            if !self.between[inp.node] {
                continue;
            }
            if let Some(g) = g {
                self.grads.entry(*inp).or_default().push(g);
            }
            self.pending[inp.node] -= 1;
            if self.pending[inp.node] == 0 {
                self.ready.push_back(inp.node);
            }
        }
    }
}

/// Shape of a reduction's input with the reduced axes set to 1 (static when possible).
pub(crate) fn kept_dims_shape(ctx: &mut GradCtx<'_>, x: Output, axes: Output) -> Result<Output> {
    let xs = ctx.spec(x)?.shape;
    if let (Some(shape), Some(ax)) = (xs.to_shape(), ctx.constant_value(axes)) {
        let axes = crate::framework::tensor_util::int_values(&ax)?;
        let mut kept = shape.to_vec();
        for a in axes {
            if let Some(i) = crate::shape::normalize_axis(a, kept.len()) {
                kept[i] = 1;
            }
        }
        return ctx.int_vector(&kept);
    }
    // TF's `reduced_shape`: input_shape with 1 stitched in at the (normalized) axes.
    let shape = ctx.op("Shape", &[x], vec![("out_type", AttrValue::Type(DType::Int32))])?;
    let axes = if ctx.spec(axes)?.dtype == DType::Int32 {
        axes
    } else {
        ctx.op("Cast", &[axes], vec![("DstT", AttrValue::Type(DType::Int32))])?
    };
    let rank = ctx.op("Size", &[shape], vec![("out_type", AttrValue::Type(DType::Int32))])?;
    let shifted = ctx.op("AddV2", &[axes, rank], vec![])?;
    let axes = ctx.op("FloorMod", &[shifted, rank], vec![])?;
    let axes_shape = ctx.op("Shape", &[axes], vec![("out_type", AttrValue::Type(DType::Int32))])?;
    let (zero, one) = (ctx.scalar(DType::Int32, 0.0)?, ctx.scalar(DType::Int32, 1.0)?);
    let all = ctx.op("Range", &[zero, rank, one], vec![])?;
    let ones = ctx.op("Fill", &[axes_shape, one], vec![])?;
    ctx.op("DynamicStitch", &[all, axes, shape, ones], vec![])
}
