//! Straight-line execution of a plan on the calling thread: small plans and the
//! sub-plans of loop and dataset kernels. (A plan with more than one blocking step is
//! always parallel, so a step blocked here delays no other.)
use smallvec::SmallVec;

use super::trace::NodeClock;
use super::{Plan, StepTrace, compute, gather_input, is_dead, outputs_of, plan, run_dead, store_outputs};
use crate::error::Result;
use crate::framework::step::Wait;
use crate::kernels::{ExecEnv, OpContext, Value};

/// Runs the plan's steps in order over `values` (its slots, feeds filled in). In a
/// plan with `Switch`/`Merge`, a value never produced (its slot empty when read, since
/// producers run first) is dead, and so is every step that reads one (but a `Merge`
/// with a live input) or runs after a dead step; dead steps are skipped, so only the
/// taken branch of a cond runs.
pub(super) fn run_inline(
    plan: &Plan,
    mut values: Vec<Option<Value>>,
    env: &ExecEnv,
    wait: Wait<'_>,
    trace: Option<&StepTrace>,
) -> Result<Vec<Option<Value>>> {
    let mut dead = if plan.control_flow { vec![false; plan.steps.len()] } else { Vec::new() };
    for (idx, step) in plan.steps.iter().enumerate() {
        if plan.control_flow && is_dead(step, |s| values[s].is_some(), |p| dead[p]) {
            dead[idx] = true;
            run_dead(step, env, wait)?;
            continue;
        }
        let outs = run_step(plan, idx, &mut values, env, wait, trace).map_err(|e| e.with_node(&step.name))?;
        store_outputs(step, outs, |slot, v| values[slot] = v);
    }
    Ok(values)
}

/// Step `idx`: takes or copies its inputs out of `values`, computes, and returns its
/// outputs (recording its timings under a trace).
#[inline]
fn run_step(
    plan: &Plan,
    idx: usize,
    values: &mut [Option<Value>],
    env: &ExecEnv,
    wait: Wait<'_>,
    trace: Option<&StepTrace>,
) -> Result<SmallVec<[Option<Value>; 2]>> {
    let step: &plan::Step = &plan.steps[idx];
    let mut clock = trace.map(|_| NodeClock::start());
    let mut inputs: SmallVec<[Option<Value>; 4]> = SmallVec::with_capacity(step.inputs.len());
    for i in &step.inputs {
        let v = if i.take { values[i.slot].take() } else { values[i.slot].clone() };
        inputs.push(gather_input(v, i.deref)?);
    }
    let mut ctx = OpContext::new(inputs, step.num_outputs, env, wait);
    if let Some(c) = clock.as_mut() {
        c.op_start();
    }
    compute(step, &mut ctx)?;
    if let Some(c) = clock.as_mut() {
        c.op_end();
    }
    // Only a control-flow plan has steps that leave outputs dead (`Switch`, `_Recv`).
    let outs = if plan.control_flow { outputs_of(step, ctx)? } else { ctx.into_outputs()? };
    if let (Some(t), Some(c)) = (trace, clock) {
        t.record(idx, c, &outs);
    }
    Ok(outs)
}
