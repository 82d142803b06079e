//! Step statistics of a traced run (`RunOptions.trace_level` above `NO_TRACE`): for
//! each node, when it started (wall clock), when its kernel started and ended, when it
//! finished, on which thread, and what it produced. They become TF's
//! `RunMetadata.step_stats`, which `timeline.Timeline` and `ProfilerHook` turn into
//! Chrome traces. An untraced run records nothing and pays one branch per step.
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use ferroflow_proto as pb;
use parking_lot::Mutex;
use smallvec::SmallVec;

use super::plan::Plan;
use crate::dtype::DType;
use crate::kernels::Value;
use crate::tensor::shape_to_proto;

/// The allocator TF's CPU device reports tensors from.
const CPU_ALLOCATOR: &str = "cpu";

/// A small number naming the current thread (TF's `thread_id` is a per-process id too).
fn thread_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    thread_local!(static ID: u32 = NEXT.fetch_add(1, Ordering::Relaxed));
    ID.with(|id| *id)
}

/// One produced tensor.
struct OutputRecord {
    slot: usize,
    dtype: DType,
    shape: SmallVec<[usize; 4]>,
    bytes: usize,
}

/// One node's times and outputs.
struct NodeRecord {
    step: usize,
    start: Instant,
    op_start: Instant,
    op_end: Instant,
    end: Instant,
    thread: u32,
    outputs: Vec<OutputRecord>,
}

/// Times of one node being run, taken as it goes; handed to [`StepTrace::record`].
pub(crate) struct NodeClock {
    start: Instant,
    op_start: Instant,
    op_end: Instant,
}

impl NodeClock {
    /// The node starts (before its inputs are gathered).
    pub(crate) fn start() -> Self {
        let now = Instant::now();
        NodeClock { start: now, op_start: now, op_end: now }
    }
    /// Its kernel starts.
    pub(crate) fn op_start(&mut self) {
        self.op_start = Instant::now();
    }
    /// Its kernel ended.
    pub(crate) fn op_end(&mut self) {
        self.op_end = Instant::now();
    }
}

/// The records of one traced run; shared by the threads of a parallel run.
pub struct StepTrace {
    run_start: Instant,
    run_start_wall_nanos: i64,
    records: Mutex<Vec<NodeRecord>>,
}

impl Default for StepTrace {
    fn default() -> Self {
        Self::new()
    }
}

impl StepTrace {
    /// A trace whose clock starts now.
    pub fn new() -> Self {
        let wall = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        StepTrace {
            run_start: Instant::now(),
            run_start_wall_nanos: i64::try_from(wall).unwrap_or(i64::MAX),
            records: Mutex::new(Vec::new()),
        }
    }

    /// Records step `step`, which finishes now with `outputs`.
    pub(crate) fn record(&self, step: usize, clock: NodeClock, outputs: &[Option<Value>]) {
        let outputs = outputs
            .iter()
            .enumerate()
            .filter_map(|(slot, v)| {
                // A reference is described by the variable's current value, as TF's
                // ref outputs are (an uninitialized variable has nothing to describe).
                let t = match v {
                    Some(Value::Tensor(t)) => t.clone(),
                    Some(Value::Ref(var)) => var.read().ok()?,
                    _ => return None,
                };
                Some(OutputRecord {
                    slot,
                    dtype: t.dtype(),
                    shape: t.shape().iter().copied().collect(),
                    // Every tensor that exists has a countable size (`Tensor`'s constructors).
                    bytes: t.num_elements().saturating_mul(t.dtype().size()),
                })
            })
            .collect();
        let record = NodeRecord {
            step,
            start: clock.start,
            op_start: clock.op_start,
            op_end: clock.op_end,
            end: Instant::now(),
            thread: thread_id(),
            outputs,
        };
        self.records.lock().push(record);
    }

    /// TF's `StepStats`: one device, its nodes in the order they started.
    pub fn into_proto(self, plan: &Plan) -> pb::StepStats {
        let mut records = self.records.into_inner();
        records.sort_by_key(|r| r.start);
        let nanos = |from: Instant, to: Instant| {
            i64::try_from(to.saturating_duration_since(from).as_nanos()).unwrap_or(i64::MAX)
        };
        let mut by_device: Vec<Vec<pb::NodeExecStats>> = vec![Vec::new(); plan.device_names.len()];
        for r in records {
            let step = &plan.steps[r.step];
            let all_start = self.run_start_wall_nanos.saturating_add(nanos(self.run_start, r.start));
            let (op_start, op_end, all_end) =
                (nanos(r.start, r.op_start), nanos(r.start, r.op_end), nanos(r.start, r.end));
            let stats = pb::NodeExecStats {
                node_name: step.name.clone(),
                all_start_micros: all_start / 1000,
                op_start_rel_micros: op_start / 1000,
                op_end_rel_micros: op_end / 1000,
                all_end_rel_micros: all_end / 1000,
                all_start_nanos: all_start,
                op_start_rel_nanos: op_start,
                op_end_rel_nanos: op_end,
                all_end_rel_nanos: all_end,
                timeline_label: step.label.clone(),
                thread_id: r.thread,
                output: r.outputs.into_iter().map(output_proto).collect(),
                ..Default::default()
            };
            by_device[step.device].push(stats);
        }
        // One `DeviceStepStats` per device that ran something (TF's layout).
        let dev_stats = by_device
            .into_iter()
            .zip(&plan.device_names)
            .filter(|(nodes, _)| !nodes.is_empty())
            .map(|(node_stats, device)| pb::DeviceStepStats {
                device: device.clone(),
                node_stats,
                ..Default::default()
            })
            .collect();
        pb::StepStats { dev_stats }
    }
}

fn output_proto(o: OutputRecord) -> pb::NodeOutput {
    let bytes = i64::try_from(o.bytes).unwrap_or(i64::MAX);
    pb::NodeOutput {
        slot: i32::try_from(o.slot).unwrap_or(i32::MAX),
        tensor_description: Some(pb::TensorDescription {
            dtype: o.dtype as i32,
            shape: Some(shape_to_proto(&crate::shape::PartialShape::known(&o.shape))),
            allocation_description: Some(pb::AllocationDescription {
                requested_bytes: bytes,
                allocated_bytes: bytes,
                allocator_name: CPU_ALLOCATOR.to_string(),
                ..Default::default()
            }),
        }),
    }
}
