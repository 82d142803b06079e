//! Kernels of the functional loop `While` and its gradient `_WhileGrad`. Each
//! compiles the loop's cond and body sub-graphs (named by the node's attrs) into
//! sub-plans once, when its own plan is compiled, and runs them on the executor's
//! straight-line run loop for as many iterations as the cond allows. Between
//! iterations it checks the run's cancellation, the session's closing, the run's
//! deadline and (every [`INTERRUPT_POLL`]) the caller's interrupt check, so a loop
//! whose cond never turns false can be stopped like any blocked run.
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{ExecEnv, KernelBuild, OpContext, OpKernel, SubPlan, Value};
use crate::error::{Code, Error, Result};
use crate::framework::cancel::INTERRUPT_POLL;
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::framework::step::{LoopFrame, Wait};
use crate::graph::{AttrValue, Graph, Node, NodeId, Output};

/// The tensor a name such as `while/x:0` (or `while/x`, output 0) stands for.
pub(crate) fn parse_tensor(graph: &Graph, name: &[u8]) -> Result<Output> {
    let name = String::from_utf8_lossy(name);
    let (node, index) = match name.rsplit_once(':') {
        Some((n, i)) if !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()) => {
            (n, i.parse::<usize>().map_err(|e| Error::invalid_argument(e.to_string()))?)
        }
        _ => (name.as_ref(), 0),
    };
    let id = graph
        .find(node)
        .ok_or_else(|| Error::invalid_argument(format!("loop sub-graph tensor '{name}' is not in the graph")))?;
    let out = Output { node: id, index };
    graph.output_spec(out)?;
    Ok(out)
}

/// Whether `node` runs sub-graphs of its own graph (a functional loop or its gradient).
pub(crate) fn is_loop(node: &Node) -> bool {
    matches!(node.op_type(), "While" | "_WhileGrad")
}

/// The tensor names a loop node's attr lists (`_feeds`, `_body`, ...; one for `_cond`).
pub(crate) fn loop_tensor_names(node: &Node, attr: &str) -> Vec<Vec<u8>> {
    match node.attrs.get(attr) {
        Some(AttrValue::ListS(names)) => names.clone(),
        Some(AttrValue::S(name)) => vec![name.clone()],
        _ => Vec::new(),
    }
}

/// Where a walk over a loop's sub-graphs starts and stops.
pub(crate) struct LoopSubgraph {
    /// The tensors the loop feeds its sub-plans: a walk does not go past them.
    pub fed: HashSet<Output>,
    /// The fetched tensors' producers and the loop's own placeholders; not the
    /// captures (the loop's inputs at their positions in `_feeds`: outer tensors).
    pub starts: Vec<NodeId>,
}

/// The sub-graphs of loop node `node` (see [`LoopSubgraph`]).
pub(crate) fn loop_subgraph(graph: &Graph, node: &Node) -> Result<LoopSubgraph> {
    let mut fed = HashSet::new();
    let mut starts = Vec::new();
    for (i, name) in loop_tensor_names(node, "_feeds").iter().enumerate() {
        let t = parse_tensor(graph, name)?;
        fed.insert(t);
        if node.inputs.get(i) != Some(&t) {
            starts.push(t.node);
        }
    }
    for name in loop_tensor_names(node, "_grad_feeds") {
        let t = parse_tensor(graph, &name)?;
        fed.insert(t);
        starts.push(t.node);
    }
    for attr in ["_cond", "_body", "_grad_fetches"] {
        for name in loop_tensor_names(node, attr) {
            starts.push(parse_tensor(graph, &name)?.node);
        }
    }
    Ok(LoopSubgraph { fed, starts })
}

/// Which nodes of `graph` exist only for its loops: the cond, body and gradient
/// sub-graphs of every `While`/`_WhileGrad` and the loops' own placeholders, not the
/// outer tensors they capture. A partition shipped to a worker holds these beside the
/// outer graph; the worker runs every other node.
pub fn loop_only_nodes(graph: &Graph) -> Result<Vec<bool>> {
    let mut inside = vec![false; graph.len()];
    for node in graph.nodes().iter().filter(|n| is_loop(n)) {
        let LoopSubgraph { fed, starts } = loop_subgraph(graph, node)?;
        mark_upstream(graph, &mut inside, starts, &fed)?;
    }
    Ok(inside)
}

/// Marks in `inside` every node that `stack`'s nodes reach through inputs and control
/// edges, stopping at the `fed` tensors (a loop sub-graph's placeholders).
fn mark_upstream(graph: &Graph, inside: &mut [bool], mut stack: Vec<NodeId>, fed: &HashSet<Output>) -> Result<()> {
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut inside[n], true) {
            continue;
        }
        let inner = graph.node(n)?;
        stack.extend(inner.inputs.iter().filter(|o| !fed.contains(o)).map(|o| o.node));
        stack.extend(inner.control_inputs.iter().copied());
    }
    Ok(())
}

fn tensors(graph: &Graph, names: &[Vec<u8>]) -> Result<Vec<Output>> {
    names.iter().map(|n| parse_tensor(graph, n)).collect()
}

/// A sub-plan over the session's local devices (placed as the outer plan would be
/// with soft placement), run on the calling thread.
pub(crate) fn compile(b: &KernelBuild<'_>, feeds: &[Output], fetches: &[Output]) -> Result<Box<dyn SubPlan>> {
    compile_on(b, b.devices.clone(), feeds, fetches)
}

/// [`compile`] placed on `devices` (a subset of the session's).
pub(crate) fn compile_on(
    b: &KernelBuild<'_>,
    devices: crate::device::DeviceSet,
    feeds: &[Output],
    fetches: &[Output],
) -> Result<Box<dyn SubPlan>> {
    b.subplans.compile(b.graph, b.resources, devices, feeds, fetches)
}

/// Checks, once per iteration, whether the loop must stop: the session closed, the
/// run cancelled (another step failed, or an interrupt), or its deadline passed.
struct Guard {
    last_poll: Instant,
}

impl Guard {
    fn new() -> Self {
        Guard { last_poll: Instant::now() }
    }
    fn check(&mut self, wait: &Wait<'_>) -> Result<()> {
        if wait.closed.load(Ordering::Acquire) {
            return Err(Error::new(Code::Cancelled, "Session has been closed."));
        }
        if wait.run.is_cancelled() {
            return Err(crate::framework::cancel::cancelled("While"));
        }
        if wait.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Error::new(Code::DeadlineExceeded, "Timed out waiting for notification"));
        }
        if wait.run.polls_interrupts() && self.last_poll.elapsed() >= INTERRUPT_POLL {
            self.last_poll = Instant::now();
            wait.run.poll_interrupt()?;
        }
        Ok(())
    }
}

/// What one run of a forward loop kept for its gradient.
pub(crate) struct Tape {
    /// The recorded body tensors, in column order (after the loop variables).
    tensors: Vec<Output>,
    /// Per iteration: the loop variables it started from, then the recorded tensors
    /// (`None` where dead: the untaken side of a cond in the body).
    iters: Vec<Vec<Option<Value>>>,
}

/// The nodes of a loop's body (and cond): everything its outputs reach backwards,
/// not crossing the tensors the loop feeds.
fn body_nodes(graph: &Graph, node: &Node, fed: &HashSet<Output>) -> Result<Vec<bool>> {
    let mut inside = vec![false; graph.len()];
    let mut stack: Vec<NodeId> = Vec::new();
    for attr in ["_body", "_cond"] {
        for name in loop_tensor_names(node, attr) {
            let t = parse_tensor(graph, &name)?;
            if !fed.contains(&t) {
                stack.push(t.node);
            }
        }
    }
    mark_upstream(graph, &mut inside, stack, fed)?;
    Ok(inside)
}

/// The body tensors `_WhileGrad` node `grad` reads from its forward loop: the inputs
/// of its gradient sub-graph's ops that body ops produce (not the fed placeholders).
/// Recorded forward, fed to the gradient sub-plan, they cut it off from the body, so
/// no forward op runs again.
fn tape_tensors(graph: &Graph, grad: &Node) -> Result<Vec<Output>> {
    let mut fed: HashSet<Output> = tensors(graph, &loop_tensor_names(grad, "_feeds"))?.into_iter().collect();
    let body = body_nodes(graph, grad, &fed)?;
    fed.extend(tensors(graph, &loop_tensor_names(grad, "_grad_feeds"))?);
    let mut seen = vec![false; graph.len()];
    let mut out = Vec::new();
    let mut recorded = HashSet::new();
    let fetches = tensors(graph, &loop_tensor_names(grad, "_grad_fetches"))?;
    let mut stack: Vec<NodeId> = fetches.iter().filter(|t| !fed.contains(t)).map(|t| t.node).collect();
    // A fetched tensor the body computes is itself recorded.
    for t in fetches {
        if body[t.node] && !fed.contains(&t) && recorded.insert(t) {
            out.push(t);
        }
    }
    while let Some(n) = stack.pop() {
        if body[n] || std::mem::replace(&mut seen[n], true) {
            continue;
        }
        let inner = graph.node(n)?;
        for &o in &inner.inputs {
            if fed.contains(&o) {
                continue;
            }
            if body[o.node] {
                if recorded.insert(o) {
                    out.push(o);
                }
            } else {
                stack.push(o.node);
            }
        }
        stack.extend(inner.control_inputs.iter().copied().filter(|&c| !body[c]));
    }
    Ok(out)
}

/// The compiled cond and body of one loop.
struct Loop {
    cond: Box<dyn SubPlan>,
    body: Box<dyn SubPlan>,
    /// Loop variables (the first inputs); the rest are captured tensors.
    n_vars: usize,
    /// All sub-graph feeds (loop variables' placeholders, then captures).
    feeds: Vec<Output>,
    /// Whether the cond or body has a step that may block (a queue operation).
    blocking: bool,
    /// How several iterations run at once, when they are independent.
    parallel: Option<Independent>,
}

/// TF's `parallel_iterations` for a loop whose iterations are independent (what
/// `map_fn` builds): up to `width` bodies run at once on the intra-op pool. Such a
/// loop's variables are counters, whose next values depend only on counters and
/// captured tensors (and which alone decide the cond), and TensorArray flows, each the
/// flow of one write (or scatter) in the body that is the flow's only use: iterations
/// then differ only in their counters, and a flow only orders operations on its array.
/// The body may hold no stateful op but TensorArray reads and writes, so the results
/// are those of the loop run one iteration after another.
struct Independent {
    /// Iterations run at once (`parallel_iterations`).
    width: usize,
    /// The counters' positions among the loop variables.
    counters: Vec<usize>,
    /// A sub-plan computing the counters' next values (their body outputs).
    step: Box<dyn SubPlan>,
}

/// The stateful ops a body whose iterations run at once may hold.
const PARALLEL_SAFE: &[&str] =
    &["TensorArrayReadV3", "TensorArrayWriteV3", "TensorArrayScatterV3", "TensorArrayGatherV3", "TensorArraySizeV3"];

/// What one tensor of a loop's sub-graphs depends on there.
#[derive(Default)]
struct Deps {
    /// The loop variables (positions).
    vars: HashSet<usize>,
    /// Whether a stateful op is upstream.
    stateful: bool,
}

/// What each of `outs` depends on within a loop's sub-graphs (the walk stops at the
/// `fed` tensors; `vars` maps the loop variables' feeds to positions), adding the
/// nodes walked to `nodes`.
fn var_deps(
    graph: &Graph,
    outs: &[Output],
    fed: &HashSet<Output>,
    vars: &HashMap<Output, usize>,
    nodes: &mut HashSet<NodeId>,
) -> Result<Vec<Deps>> {
    let mut all = Vec::with_capacity(outs.len());
    for out in outs {
        let mut deps = Deps::default();
        if let Some(&v) = vars.get(out) {
            deps.vars.insert(v);
            all.push(deps);
            continue;
        }
        let (mut stack, mut seen) = (vec![out.node], HashSet::new());
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            nodes.insert(n);
            let node = graph.node(n)?;
            deps.stateful |= node.def.stateful;
            for input in &node.inputs {
                match vars.get(input) {
                    Some(&v) => {
                        deps.vars.insert(v);
                    }
                    None if fed.contains(input) => {}
                    None => stack.push(input.node),
                }
            }
            stack.extend(node.control_inputs.iter().copied());
        }
        all.push(deps);
    }
    Ok(all)
}

/// The counters of a loop whose iterations are independent (see [`Independent`]), or
/// None.
fn independent_counters(
    graph: &Graph,
    feeds: &[Output],
    body_outs: &[Output],
    cond_out: Output,
) -> Result<Option<Vec<usize>>> {
    let n_vars = body_outs.len();
    let fed: HashSet<Output> = feeds.iter().copied().collect();
    let vars: HashMap<Output, usize> = feeds[..n_vars].iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let mut nodes = HashSet::new();
    let deps = var_deps(graph, body_outs, &fed, &vars, &mut nodes)?;
    let cond_deps = var_deps(graph, &[cond_out], &fed, &vars, &mut nodes)?.pop().unwrap_or_default();
    for &n in &nodes {
        let node = graph.node(n)?;
        if node.def.stateful && !PARALLEL_SAFE.contains(&node.op_type()) {
            return Ok(None);
        }
    }
    // The counters: the largest set of variables whose next values depend on it alone,
    // through no stateful op (their step runs apart from the body's).
    let mut counter: Vec<bool> = deps.iter().map(|d| !d.stateful).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for j in 0..n_vars {
            if counter[j] && deps[j].vars.iter().any(|&v| !counter[v]) {
                counter[j] = false;
                changed = true;
            }
        }
    }
    if cond_deps.stateful || cond_deps.vars.iter().any(|&v| !counter[v]) || !counter.contains(&true) {
        return Ok(None);
    }
    for j in (0..n_vars).filter(|&j| !counter[j]) {
        let out = body_outs[j];
        let write = graph.node(out.node)?;
        let is_write = matches!(write.op_type(), "TensorArrayWriteV3" | "TensorArrayScatterV3");
        if !is_write || out.index != 0 || write.inputs.get(3) != Some(&feeds[j]) {
            return Ok(None);
        }
        if deps[j].vars.iter().any(|&v| v != j && !counter[v]) {
            return Ok(None);
        }
        let mut uses = 0;
        for &n in &nodes {
            uses += graph.node(n)?.inputs.iter().filter(|&&i| i == feeds[j]).count();
        }
        if uses != 1 {
            return Ok(None);
        }
    }
    Ok(Some((0..n_vars).filter(|&j| counter[j]).collect()))
}

/// A body sub-plan that also fetches the tensors a tape records.
struct Recorder {
    body: Box<dyn SubPlan>,
    tensors: Vec<Output>,
}

impl Loop {
    fn build(b: &KernelBuild<'_>) -> Result<Loop> {
        let node = b.node;
        let feeds = tensors(b.graph, &node.required_attr::<Vec<Vec<u8>>>("_feeds")?)?;
        let cond_out = parse_tensor(b.graph, &node.required_attr::<Vec<u8>>("_cond")?)?;
        let body_outs = Self::body_outputs(b)?;
        let cond = compile(b, &feeds, &[cond_out])?;
        let body = compile(b, &feeds, &body_outs)?;
        let blocking = cond.has_blocking_steps() || body.has_blocking_steps();
        let width = usize::try_from(node.attr_or::<i64>("parallel_iterations", 1)?).unwrap_or(1);
        let mut parallel = None;
        if width > 1
            && node.op_type() == "While"
            && let Some(counters) = independent_counters(b.graph, &feeds, &body_outs, cond_out)?
        {
            let outs: Vec<Output> = counters.iter().map(|&j| body_outs[j]).collect();
            parallel = Some(Independent { width, counters, step: compile(b, &feeds, &outs)? });
        }
        Ok(Loop { cond, body, n_vars: body_outs.len(), feeds, blocking, parallel })
    }

    fn body_outputs(b: &KernelBuild<'_>) -> Result<Vec<Output>> {
        tensors(b.graph, &b.node.required_attr::<Vec<Vec<u8>>>("_body")?)
    }

    /// A body sub-plan fetching the loop variables and `tensors`.
    fn recorder(&self, b: &KernelBuild<'_>, tensors: Vec<Output>) -> Result<Recorder> {
        let mut fetches = Self::body_outputs(b)?;
        fetches.extend(tensors.iter().copied());
        Ok(Recorder { body: compile(b, &self.feeds, &fetches)?, tensors })
    }

    /// A loop that may block starts only where it may wait: asked not to wait (the
    /// parallel executor's first try on its calling thread), it declines before
    /// running anything, and the executor runs it on a thread of its own.
    fn check_may_wait(&self, wait: &Wait<'_>) -> Result<()> {
        if self.blocking && wait.nonblocking {
            return Err(Error::would_block());
        }
        Ok(())
    }

    fn feeds(vars: &[Value], caps: &[Value]) -> Vec<Value> {
        vars.iter().chain(caps).cloned().collect()
    }

    /// Whether the cond holds for `vars`.
    fn holds(&self, vars: &[Value], caps: &[Value], env: &ExecEnv, wait: Wait<'_>) -> Result<bool> {
        let out = self.cond.run(Self::feeds(vars, caps), env, wait)?;
        let t = match out.into_iter().next() {
            Some(v) => v.into_tensor()?,
            None => return Err(Error::new(Code::Internal, "the loop cond returned nothing")),
        };
        if !t.shape().is_empty() {
            return Err(Error::invalid_argument(format!(
                "The loop condition must be a scalar, but it has shape {}",
                crate::shape::fmt_shape(t.shape())
            )));
        }
        t.scalar_value::<bool>()
    }

    /// The inputs of a node, split into loop variables and captures.
    fn inputs(&self, ctx: &mut OpContext<'_>, n: usize) -> Result<(Vec<Value>, Vec<Value>)> {
        let mut all = (0..n).map(|i| ctx.take_value(i)).collect::<Result<Vec<_>>>()?;
        let caps = all.split_off(self.n_vars.min(all.len()));
        Ok((all, caps))
    }

    /// Runs the loop from `vars` (the body's iterations in frame `path + [k]`);
    /// returns the final loop variables, and with a `recorder` the tape.
    fn run(
        &self,
        mut vars: Vec<Value>,
        caps: &[Value],
        recorder: Option<&Recorder>,
        env: &ExecEnv,
        wait: Wait<'_>,
    ) -> Result<(Vec<Value>, Option<Tape>)> {
        let mut start = 0u32;
        if let Some(p) = &self.parallel
            && recorder.is_none()
            && !wait.loops.record
            && env.intra_threads() > 1
        {
            match self.run_parallel(p, vars, caps, env, wait)? {
                Parallel::Done(vars) => return Ok((vars, None)),
                Parallel::Sequential(next, k) => (vars, start) = (next, k),
            }
        }
        let mut guard = Guard::new();
        let mut path: Vec<u32> = wait.loops.path.to_vec();
        path.push(0);
        let mut iters: Vec<Vec<Option<Value>>> = Vec::new();
        for k in start.. {
            guard.check(&wait)?;
            if let Some(last) = path.last_mut() {
                *last = k;
            }
            let inner = Wait { loops: LoopFrame { path: &path, record: recorder.is_some(), ..wait.loops }, ..wait };
            if !self.holds(&vars, caps, env, inner)? {
                break;
            }
            match recorder {
                None => vars = self.body.run(Self::feeds(&vars, caps), env, inner)?,
                Some(r) => {
                    let feeds = Self::feeds(&vars, caps).into_iter().map(Some).collect();
                    let mut out = r.body.run_partial(feeds, env, inner)?;
                    let recorded = out.split_off(self.n_vars);
                    let next = out
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| {
                            v.ok_or_else(|| Error::invalid_argument(format!("Retval[{i}] does not have value")))
                        })
                        .collect::<Result<Vec<_>>>()?;
                    let mut row: Vec<Option<Value>> = Vec::new();
                    row.try_reserve(self.n_vars + recorded.len()).map_err(|_| oom())?;
                    row.extend(std::mem::replace(&mut vars, next).into_iter().map(Some));
                    row.extend(recorded);
                    iters.try_reserve(1).map_err(|_| oom())?;
                    iters.push(row);
                }
            }
        }
        let tape = recorder.map(|r| Tape { tensors: r.tensors.clone(), iters });
        Ok((vars, tape))
    }
}

/// Below this a body's first iteration took, the rest run one after another: measured
/// on the 2-vCPU VMs with `map_fn` (10 at once against one by one), bodies of 8-15 us
/// (2000-element elementwise ops, a 64x64 product) gain nothing from running at once
/// and bodies of ~5 us lose a third to waking the pool's threads, while a 128x128
/// product's 56 us run 1.6x faster.
const PARALLEL_MIN_ITERATION: std::time::Duration = std::time::Duration::from_micros(40);

/// How [`Loop::run_parallel`] ended.
enum Parallel {
    /// The loop is over: its final variables.
    Done(Vec<Value>),
    /// Its body is too small to share out: the variables to continue from, one
    /// iteration after another, and that iteration's number.
    Sequential(Vec<Value>, u32),
}

impl Loop {
    /// Runs a loop of independent iterations (see [`Independent`]) from `vars`. The
    /// first iteration runs alone and is timed; if it took long enough to share out
    /// (see [`PARALLEL_MIN_ITERATION`]), the cond and the counters' step decide the next
    /// `width` iterations at a time, whose bodies then run at once; the flows come from
    /// the last of them (a flow only orders operations). The first failing iteration's
    /// error is the loop's.
    fn run_parallel(
        &self,
        p: &Independent,
        mut vars: Vec<Value>,
        caps: &[Value],
        env: &ExecEnv,
        wait: Wait<'_>,
    ) -> Result<Parallel> {
        let mut guard = Guard::new();
        let frame = |k: u32| {
            let mut path = wait.loops.path.to_vec();
            path.push(k);
            path
        };
        guard.check(&wait)?;
        let path = frame(0);
        let inner = Wait { loops: LoopFrame { path: &path, ..wait.loops }, ..wait };
        if !self.holds(&vars, caps, env, inner)? {
            return Ok(Parallel::Done(vars));
        }
        let started = Instant::now();
        vars = self.body.run(Self::feeds(&vars, caps), env, inner)?;
        if started.elapsed() < PARALLEL_MIN_ITERATION {
            return Ok(Parallel::Sequential(vars, 1));
        }
        let mut k = 1u32;
        loop {
            let mut batch: Vec<(u32, Vec<Value>)> = Vec::new();
            let mut done = false;
            while batch.len() < p.width {
                guard.check(&wait)?;
                let path = frame(k);
                let inner = Wait { loops: LoopFrame { path: &path, ..wait.loops }, ..wait };
                if !self.holds(&vars, caps, env, inner)? {
                    done = true;
                    break;
                }
                let next = p.step.run(Self::feeds(&vars, caps), env, inner)?;
                let here = vars.clone();
                for (&j, v) in p.counters.iter().zip(next) {
                    vars[j] = v;
                }
                batch.push((k, here));
                k = k.wrapping_add(1);
            }
            let results: Vec<Mutex<Option<Result<Vec<Value>>>>> = batch.iter().map(|_| Mutex::new(None)).collect();
            env.run_pieces(batch.len(), |i| {
                let (k, here) = &batch[i];
                let path = frame(*k);
                let inner = Wait { loops: LoopFrame { path: &path, ..wait.loops }, ..wait };
                *results[i].lock() = Some(self.body.run(Self::feeds(here, caps), env, inner));
            });
            for r in results {
                let out = r
                    .into_inner()
                    .unwrap_or_else(|| Err(Error::new(Code::Internal, "a loop iteration did not run")))?;
                for (j, v) in out.into_iter().enumerate() {
                    if !p.counters.contains(&j) {
                        vars[j] = v;
                    }
                }
            }
            if done {
                return Ok(Parallel::Done(vars));
            }
        }
    }
}

fn oom() -> Error {
    Error::new(Code::ResourceExhausted, "OOM when recording a loop's iterations for its gradient")
}

/// `While`: runs the body while the cond holds; outputs the final loop variables,
/// then the captured inputs unchanged. When the step needs its gradient, it records
/// its tape (see the module docs).
struct WhileKernel {
    lp: Loop,
    /// Captured reads of variables the loop updates, by input position: fed to the
    /// sub-plans as the variable itself, so every op reads the value it has when the
    /// op runs (TF-1.x's `v/read` aliases the variable's buffer).
    live: Vec<(usize, Arc<crate::framework::resource::Var>)>,
    /// Set when a `_WhileGrad` of this loop exists: what to record.
    recorder: Option<Recorder>,
    /// Whether one of those gradients is in this plan (else the loop records only
    /// inside a recording loop).
    grad_in_plan: bool,
    node: NodeId,
}

pub(crate) fn while_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let lp = Loop::build(b)?;
    let mut tensors: Vec<Output> = Vec::new();
    let mut grad_in_plan = false;
    let mut any_grad = false;
    for (id, grad) in b.graph.nodes().iter().enumerate().filter(|(_, n)| n.op_type() == "_WhileGrad") {
        if grad.attr_or::<String>("_forward", String::new())? != b.node.name {
            continue;
        }
        any_grad = true;
        grad_in_plan |= b.plan_nodes.get(id).copied().unwrap_or(false);
        for t in tape_tensors(b.graph, grad)? {
            if !tensors.contains(&t) {
                tensors.push(t);
            }
        }
    }
    let recorder = if any_grad { Some(lp.recorder(b, tensors)?) } else { None };
    let node = b.graph.find(&b.node.name).ok_or_else(|| Error::new(Code::Internal, "While: node not in its graph"))?;
    let live = live_captures(b, lp.n_vars)?;
    Ok(Box::new(WhileKernel { lp, live, recorder, grad_in_plan, node }))
}

/// The captures the `_live_captures` attr names that are a variable's read
/// (`Identity` of a `VariableV2` of this graph), with the variable. A capture whose
/// variable is elsewhere (received from another task) stays a value.
fn live_captures(b: &KernelBuild<'_>, n_vars: usize) -> Result<Vec<(usize, Arc<crate::framework::resource::Var>)>> {
    let mut live = Vec::new();
    for p in b.node.attr_or::<Vec<i64>>("_live_captures", Vec::new())? {
        let Some(input) = usize::try_from(p).ok().filter(|&p| p >= n_vars).and_then(|p| b.node.inputs.get(p)) else {
            continue;
        };
        let read = b.graph.node(input.node)?;
        let Some(var_out) = read.inputs.first().filter(|_| read.op_type() == "Identity") else {
            continue;
        };
        let var = b.graph.node(var_out.node)?;
        if matches!(var.op_type(), "VariableV2" | "Variable") {
            live.push((usize::try_from(p).unwrap_or(usize::MAX), super::state::variable_of(b.resources, var)?));
        }
    }
    Ok(live)
}

impl OpKernel for WhileKernel {
    fn is_blocking(&self) -> bool {
        self.lp.blocking
    }
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (env, wait) = (ctx.env, ctx.wait);
        self.lp.check_may_wait(&wait)?;
        let n = ctx.num_inputs();
        if n != self.lp.feeds.len() {
            return Err(Error::new(Code::Internal, "While: inputs and sub-graph feeds differ"));
        }
        let (vars, mut caps) = self.lp.inputs(ctx, n)?;
        for (p, var) in &self.live {
            if let Some(c) = caps.get_mut(p - self.lp.n_vars) {
                *c = Value::Ref(Arc::clone(var));
            }
        }
        let tapes = wait.loops.tapes.filter(|_| self.grad_in_plan || wait.loops.record);
        let recorder = self.recorder.as_ref().filter(|_| tapes.is_some());
        let (vars, tape) = self.lp.run(vars, &caps, recorder, env, wait)?;
        if let (Some(tapes), Some(tape)) = (tapes, tape) {
            tapes.put(self.node, wait.loops.path, tape);
        }
        for (i, v) in vars.into_iter().chain(caps).enumerate() {
            ctx.set_value_output(i, v);
        }
        Ok(())
    }
}

/// `_WhileGrad`: the gradient of a `While` (its `_forward` attr) with respect to its
/// differentiated inputs (`_diff`). It replays the forward loop's tape in reverse,
/// running the body's vector-Jacobian product sub-graph per iteration: its feeds are
/// the forward feeds, one incoming gradient per differentiated input
/// (`_grad_feeds`: a loop variable's gradient, or a capture's running sum) and the
/// recorded body tensors; its fetches the same gradients one iteration earlier.
/// Without a tape (the forward loop did not run in this step, or a graph from before
/// tapes), it runs the forward loop itself first, recording.
struct WhileGradKernel {
    lp: Loop,
    /// This gradient's own recording of the forward loop (when there is no tape).
    recorder: Recorder,
    vjp: Box<dyn SubPlan>,
    n_fwd: usize,
    forward: Option<NodeId>,
}

pub(crate) fn while_grad_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let lp = Loop::build(b)?;
    let n_fwd = lp.feeds.len();
    let recorded = tape_tensors(b.graph, b.node)?;
    let mut feeds = lp.feeds.clone();
    feeds.extend(tensors(b.graph, &b.node.required_attr::<Vec<Vec<u8>>>("_grad_feeds")?)?);
    feeds.extend(recorded.iter().copied());
    let fetches = tensors(b.graph, &b.node.required_attr::<Vec<Vec<u8>>>("_grad_fetches")?)?;
    let vjp = compile(b, &feeds, &fetches)?;
    let recorder = lp.recorder(b, recorded)?;
    let forward = match b.node.attr_or::<String>("_forward", String::new())? {
        name if name.is_empty() => None,
        name => b.graph.find(&name),
    };
    Ok(Box::new(WhileGradKernel { lp, recorder, vjp, n_fwd, forward }))
}

impl OpKernel for WhileGradKernel {
    fn is_blocking(&self) -> bool {
        self.lp.blocking
    }
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (env, wait) = (ctx.env, ctx.wait);
        self.lp.check_may_wait(&wait)?;
        let n = ctx.num_inputs();
        if n < self.n_fwd {
            return Err(Error::new(Code::Internal, "_WhileGrad: too few inputs"));
        }
        let (vars, caps) = self.lp.inputs(ctx, self.n_fwd)?;
        let mut grads = (self.n_fwd..n).map(|i| ctx.take_value(i)).collect::<Result<Vec<_>>>()?;
        let stored = match (self.forward, wait.loops.tapes) {
            (Some(f), Some(tapes)) => tapes.get::<Tape>(f, wait.loops.path),
            _ => None,
        };
        // The columns of the tape this gradient reads (a stored tape records what
        // every gradient of the loop reads).
        let tape = match stored {
            Some(t) => t,
            None => {
                let inner = Wait { loops: LoopFrame { record: true, ..wait.loops }, ..wait };
                let (_, tape) = self.lp.run(vars, &caps, Some(&self.recorder), env, inner)?;
                Arc::new(tape.ok_or_else(|| Error::new(Code::Internal, "_WhileGrad: no tape"))?)
            }
        };
        let columns = self
            .recorder
            .tensors
            .iter()
            .map(|t| {
                tape.tensors
                    .iter()
                    .position(|r| r == t)
                    .map(|p| self.lp.n_vars + p)
                    .ok_or_else(|| Error::new(Code::Internal, "_WhileGrad: the loop's tape lacks a tensor"))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut guard = Guard::new();
        let mut path: Vec<u32> = wait.loops.path.to_vec();
        path.push(0);
        for (k, row) in tape.iters.iter().enumerate().rev() {
            guard.check(&wait)?;
            if let Some(last) = path.last_mut() {
                *last = u32::try_from(k).unwrap_or(u32::MAX);
            }
            let inner = Wait { loops: LoopFrame { path: &path, record: false, ..wait.loops }, ..wait };
            let mut feeds: Vec<Option<Value>> = Vec::with_capacity(self.n_fwd + grads.len() + columns.len());
            feeds.extend(row[..self.lp.n_vars].iter().cloned());
            feeds.extend(caps.iter().cloned().map(Some));
            feeds.extend(grads.drain(..).map(Some));
            feeds.extend(columns.iter().map(|&c| row[c].clone()));
            grads = self
                .vjp
                .run_partial(feeds, env, inner)?
                .into_iter()
                .enumerate()
                .map(|(i, v)| v.ok_or_else(|| Error::invalid_argument(format!("Retval[{i}] does not have value"))))
                .collect::<Result<Vec<_>>>()?;
        }
        for (i, g) in grads.into_iter().enumerate() {
            ctx.set_value_output(i, g);
        }
        Ok(())
    }
}
