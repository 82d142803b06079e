//! The executor: compiles run signatures into plans and runs them.
//!
//! - [`plan`](Plan): compilation, as passes over the graph (prune, place, fuse,
//!   partition into device copies, schedule);
//! - `direct_session`: the in-process session ([`DirectSession`]), which caches plans
//!   by run signature and runs them;
//! - `inline`: straight-line execution on the calling thread (small plans, loop
//!   bodies); `parallel`: plans with independent work on the inter-op pool;
//! - this module: the steps both share, and the sub-plans loop and dataset kernels
//!   run ([`PlanCompiler`]).
mod copies;
mod direct_session;
mod fuse;
mod inline;
mod parallel;
mod partition;
mod place;
mod plan;
mod prune;
mod schedule;
mod trace;
mod var_reads;

use parking_lot::RwLock;
use smallvec::SmallVec;

pub use direct_session::{DirectSession, RunArgs, RunOutput, SessionOptions};
pub use partition::{ClientTensor, ClusterOptions, ClusterPartition, TaskPartition, partition_for_cluster};
pub use place::Placement;
pub use plan::{CompileOptions, Plan};
pub use trace::StepTrace;

/// The lock that guards a graph shared by Python handles and sessions.
pub type GraphLock<T> = RwLock<T>;

use crate::device::DeviceSet;
use crate::error::{Error, Result};
use crate::framework::resource::ResourceMgr;
use crate::framework::step::Wait;
use crate::graph::{Graph, Output};
use crate::kernels::{ExecEnv, OpContext, SubPlan, SubPlanCompiler, Value};
use crate::shape::PartialShape;

/// The executor's [`SubPlanCompiler`]: loop and dataset kernels' sub-graphs become
/// [`Plan`]s run on the calling thread.
pub(crate) struct PlanCompiler;

impl SubPlanCompiler for PlanCompiler {
    fn compile(
        &self,
        graph: &Graph,
        resources: &ResourceMgr,
        devices: DeviceSet,
        feeds: &[Output],
        fetches: &[Output],
    ) -> Result<Box<dyn SubPlan>> {
        let placement = Placement { devices, soft: true };
        let options = CompileOptions { pool_threads: 1, remap: true };
        Ok(Box::new(Plan::compile(graph, resources, &placement, feeds, fetches, &[], options)?))
    }
}

/// A sub-plan (a loop's cond or body, see `kernels::functional`) runs on the calling
/// thread within the run of the kernel that owns it: `feeds` fill the plan's feed
/// slots in order, and the fetched values come back (a variable reference read).
/// A fed tensor must have its feed's dtype and a shape compatible with its static
/// shape (for a loop variable, its shape invariant). Its queue operations may wait.
impl SubPlan for Plan {
    fn has_blocking_steps(&self) -> bool {
        Plan::has_blocking_steps(self)
    }
    fn run_partial(&self, feeds: Vec<Option<Value>>, env: &ExecEnv, wait: Wait<'_>) -> Result<Vec<Option<Value>>> {
        run_subplan_partial(self, feeds, env, wait)
    }
}

fn run_subplan_partial(
    plan: &Plan,
    feeds: Vec<Option<Value>>,
    env: &ExecEnv,
    mut wait: Wait<'_>,
) -> Result<Vec<Option<Value>>> {
    // The loop kernel already runs where it may wait (see `kernels::functional`).
    wait.nonblocking = false;
    if feeds.len() != plan.feeds.len() {
        ff_bail!(Internal, "sub-plan expects {} feeds, got {}", plan.feeds.len(), feeds.len());
    }
    for (v, f) in feeds.iter().zip(&plan.feeds) {
        if let Some(Value::Tensor(t)) = v {
            if t.dtype() != f.dtype {
                ff_bail!(
                    InvalidArgument,
                    "Loop value for '{}' is a {} tensor, expected {}",
                    f.name,
                    t.dtype(),
                    f.dtype
                );
            }
            if !f.shape.is_compatible_with(t.shape()) {
                ff_bail!(
                    InvalidArgument,
                    "Loop value for '{}' has shape {}, which is not compatible with its shape invariant {}",
                    f.name,
                    py_shape(&PartialShape::known(t.shape())),
                    py_shape(&f.shape)
                );
            }
        }
    }
    let mut values = plan.take_slots();
    for (i, v) in feeds.into_iter().enumerate() {
        values[i] = v;
    }
    let values = inline::run_inline(plan, values, env, wait, None)?;
    let fetched = plan
        .fetches
        .iter()
        .map(|&s| match &values[s] {
            Some(Value::Ref(var)) => Ok(Some(Value::Tensor(var.read()?))),
            v => Ok(v.clone()),
        })
        .collect();
    plan.give_back_slots(values);
    fetched
}

/// TF-1.x Python's rendering of a static shape in feed errors: `(?, 3)`.
fn py_shape(s: &PartialShape) -> String {
    match s.dims() {
        None => "<unknown>".into(),
        Some([d]) => format!("({},)", d.map_or("?".into(), |v| v.to_string())),
        Some(d) => {
            let parts: Vec<String> = d.iter().map(|x| x.map_or("?".into(), |v| v.to_string())).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// Runs one kernel, turning a panic inside it into an `Internal` error for that step
/// (so the failing op is named and no panic crosses into the pool or the bindings).
fn compute(step: &plan::Step, ctx: &mut OpContext<'_>) -> Result<()> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| step.kernel.compute(ctx))) {
        Ok(r) => r,
        Err(payload) => Err(Error::from_panic(&*payload)),
    }
}

fn gather_input(v: Option<Value>, deref: bool) -> Result<Option<Value>> {
    match v {
        Some(Value::Ref(var)) if deref => Ok(Some(Value::Tensor(var.read()?))),
        other => Ok(other),
    }
}

fn store_outputs(step: &plan::Step, outs: SmallVec<[Option<Value>; 2]>, mut put: impl FnMut(usize, Option<Value>)) {
    for (i, v) in outs.into_iter().enumerate().take(step.num_outputs) {
        put(step.out_base + i, v);
    }
}

/// Whether step `step` is dead: a dead (missing) data input, or for a `Merge` all of
/// them, or a dead control input.
fn is_dead(step: &plan::Step, live: impl Fn(usize) -> bool, dead_step: impl Fn(usize) -> bool) -> bool {
    let inputs_dead = match step.flow {
        plan::Flow::Merge => !step.inputs.iter().any(|i| live(i.slot)),
        _ => !step.inputs.iter().all(|i| live(i.slot)),
    };
    inputs_dead || step.control_preds.iter().any(|&p| dead_step(p))
}

/// Outputs of a computed step: a `Switch` leaves one dead, a `_Recv` of a dead value
/// its output, any other sets them all.
fn outputs_of(step: &plan::Step, ctx: OpContext<'_>) -> Result<SmallVec<[Option<Value>; 2]>> {
    if matches!(step.flow, plan::Flow::Switch | plan::Flow::Recv) {
        Ok(ctx.into_outputs_allow_dead())
    } else {
        ctx.into_outputs()
    }
}

/// What a dead step does: nothing, except a `_Send`, which sends the deadness on (its
/// kernel sees no input), so the receiving task's step is dead too instead of waiting.
fn run_dead(step: &plan::Step, env: &ExecEnv, wait: Wait<'_>) -> Result<()> {
    if step.flow != plan::Flow::Send {
        return Ok(());
    }
    let mut ctx = OpContext::new(smallvec::smallvec![None; step.inputs.len()], step.num_outputs, env, wait);
    compute(step, &mut ctx).map_err(|e| e.with_node(&step.name))
}
