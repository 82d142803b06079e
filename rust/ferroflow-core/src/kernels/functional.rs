//! Kernels of the functional loop `While` and its gradient `_WhileGrad`. Each
//! compiles the loop's cond and body sub-graphs (named by the node's attrs) into
//! sub-plans once, when its own plan is compiled, and runs them on the executor's
//! straight-line run loop for as many iterations as the cond allows. Between
//! iterations it checks the run's cancellation, the session's closing, the run's
//! deadline and (every [`INTERRUPT_POLL`]) the caller's interrupt check, so a loop
//! whose cond never turns false can be stopped like any blocked run.
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{ExecEnv, KernelBuild, OpContext, OpKernel, Value};
use crate::cancel::INTERRUPT_POLL;
use crate::error::{Code, Error, Result};
use crate::executor::{Placement, Plan, run_subplan};
use std::collections::HashSet;

use crate::graph::{AttrValue, Graph, Node, NodeId, Output};
use crate::queue::Wait;

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
        let LoopSubgraph { fed, mut starts } = loop_subgraph(graph, node)?;
        while let Some(n) = starts.pop() {
            if std::mem::replace(&mut inside[n], true) {
                continue;
            }
            let inner = graph.node(n)?;
            starts.extend(inner.inputs.iter().filter(|o| !fed.contains(o)).map(|o| o.node));
            starts.extend(inner.control_inputs.iter().copied());
        }
    }
    Ok(inside)
}

fn tensors(graph: &Graph, names: &[Vec<u8>]) -> Result<Vec<Output>> {
    names.iter().map(|n| parse_tensor(graph, n)).collect()
}

/// A sub-plan over the session's local devices (placed as the outer plan would be
/// with soft placement), run on the calling thread.
fn compile(b: &KernelBuild<'_>, feeds: &[Output], fetches: &[Output]) -> Result<Plan> {
    let placement = Placement { devices: b.devices.clone(), soft: true };
    Plan::compile(
        b.graph,
        b.resources,
        &placement,
        feeds,
        fetches,
        &[],
        crate::executor::CompileOptions { pool_threads: 1, remap: true },
    )
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
            return Err(crate::cancel::cancelled("While"));
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

/// The compiled cond and body of one loop.
struct Loop {
    cond: Plan,
    body: Plan,
    /// Loop variables (the first inputs); the rest are captured tensors.
    n_vars: usize,
    /// All sub-graph feeds (loop variables' placeholders, then captures).
    feeds: Vec<Output>,
    /// Whether the cond or body has a step that may block (a queue operation).
    blocking: bool,
}

impl Loop {
    fn build(b: &KernelBuild<'_>) -> Result<Loop> {
        let node = b.node;
        let feeds = tensors(b.graph, &node.required_attr::<Vec<Vec<u8>>>("_feeds")?)?;
        let cond_out = parse_tensor(b.graph, &node.required_attr::<Vec<u8>>("_cond")?)?;
        let body_outs = tensors(b.graph, &node.required_attr::<Vec<Vec<u8>>>("_body")?)?;
        let cond = compile(b, &feeds, &[cond_out])?;
        let body = compile(b, &feeds, &body_outs)?;
        let blocking = cond.has_blocking_steps() || body.has_blocking_steps();
        Ok(Loop { cond, body, n_vars: body_outs.len(), feeds, blocking })
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

    fn feeds(vars: &[Value], caps: &[Value], extra: &[Value]) -> Vec<Value> {
        vars.iter().chain(caps).chain(extra).cloned().collect()
    }

    /// Whether the cond holds for `vars`.
    fn holds(&self, vars: &[Value], caps: &[Value], env: &ExecEnv, wait: Wait<'_>) -> Result<bool> {
        let out = run_subplan(&self.cond, Self::feeds(vars, caps, &[]), env, wait)?;
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

    /// One iteration: the body's outputs for `vars`.
    fn step(&self, vars: &[Value], caps: &[Value], env: &ExecEnv, wait: Wait<'_>) -> Result<Vec<Value>> {
        run_subplan(&self.body, Self::feeds(vars, caps, &[]), env, wait)
    }

    /// The inputs of a node, split into loop variables and captures.
    fn inputs(&self, ctx: &mut OpContext<'_>, n: usize) -> Result<(Vec<Value>, Vec<Value>)> {
        let mut all = (0..n).map(|i| ctx.take_value(i)).collect::<Result<Vec<_>>>()?;
        let caps = all.split_off(self.n_vars.min(all.len()));
        Ok((all, caps))
    }
}

/// `While`: runs the body while the cond holds; outputs the final loop variables,
/// then the captured inputs unchanged.
struct WhileKernel {
    lp: Loop,
}

pub(crate) fn while_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(WhileKernel { lp: Loop::build(b)? }))
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
        let (mut vars, caps) = self.lp.inputs(ctx, n)?;
        let mut guard = Guard::new();
        loop {
            guard.check(&wait)?;
            if !self.lp.holds(&vars, &caps, env, wait)? {
                break;
            }
            vars = self.lp.step(&vars, &caps, env, wait)?;
        }
        for (i, v) in vars.into_iter().chain(caps).enumerate() {
            ctx.set_value_output(i, v);
        }
        Ok(())
    }
}

/// `_WhileGrad`: the gradient of a `While` with respect to its differentiated inputs
/// (`_diff`). It re-runs the forward loop from the inputs, keeping each iteration's
/// loop variables, then runs the body's vector-Jacobian product sub-graph over them in
/// reverse: its feeds are the forward feeds plus one incoming gradient per
/// differentiated input (`_grad_feeds`: a loop variable's gradient, or a capture's
/// running sum), its fetches the same gradients one iteration earlier.
struct WhileGradKernel {
    lp: Loop,
    vjp: Plan,
    n_fwd: usize,
}

pub(crate) fn while_grad_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let lp = Loop::build(b)?;
    let n_fwd = lp.feeds.len();
    let mut feeds = lp.feeds.clone();
    feeds.extend(tensors(b.graph, &b.node.required_attr::<Vec<Vec<u8>>>("_grad_feeds")?)?);
    let fetches = tensors(b.graph, &b.node.required_attr::<Vec<Vec<u8>>>("_grad_fetches")?)?;
    let vjp = compile(b, &feeds, &fetches)?;
    Ok(Box::new(WhileGradKernel { lp, vjp, n_fwd }))
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
        let (mut vars, caps) = self.lp.inputs(ctx, self.n_fwd)?;
        let mut grads = (self.n_fwd..n).map(|i| ctx.take_value(i)).collect::<Result<Vec<_>>>()?;
        let mut guard = Guard::new();
        // The forward pass again, keeping the loop variables each iteration starts from.
        let mut states: Vec<Vec<Value>> = Vec::new();
        loop {
            guard.check(&wait)?;
            if !self.lp.holds(&vars, &caps, env, wait)? {
                break;
            }
            let next = self.lp.step(&vars, &caps, env, wait)?;
            states.try_reserve(1).map_err(|_| Error::new(Code::ResourceExhausted, "out of memory"))?;
            states.push(std::mem::replace(&mut vars, next));
        }
        drop(vars);
        while let Some(state) = states.pop() {
            guard.check(&wait)?;
            grads = run_subplan(&self.vjp, Loop::feeds(&state, &caps, &grads), env, wait)?;
        }
        for (i, g) in grads.into_iter().enumerate() {
            ctx.set_value_output(i, g);
        }
        Ok(())
    }
}
