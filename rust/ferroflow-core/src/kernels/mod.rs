//! CPU kernels and the interface the executor drives them through. A kernel is built
//! once per node per plan (parsing attrs, binding variables) and then computed on
//! every run with the node's input values.
pub(crate) mod accumulator;
pub mod array;
pub mod candidate_sampling;
pub(crate) mod compare;
pub(crate) mod complex;
pub(crate) mod control_flow;
pub mod conv;
pub mod conv3d;
pub(crate) mod cpu;
pub(crate) mod data;
pub mod depthwise;
pub mod elementwise;
pub(crate) mod example;
pub mod fastmath;
pub mod functional;
pub mod fused;
pub(crate) mod gru;
pub(crate) mod hash;
pub(crate) mod image;
pub(crate) mod image_codec;
pub(crate) mod image_crop_resize;
pub(crate) mod image_gif_bmp;
pub(crate) mod image_nms;
pub(crate) mod image_sample_box;
pub(crate) mod image_scale_translate;
pub(crate) mod indexing;
pub mod io;
pub(crate) mod jpeg_decode;
pub(crate) mod jpeg_encode;
pub(crate) mod jpeg_tables;
pub mod layout;
pub(crate) mod logging;
pub(crate) mod lookup;
pub mod lstm;
pub mod math;
pub mod matmul;
pub mod nn;
pub mod num;
pub(crate) mod partition;
pub mod pool;
pub(crate) mod queue;
pub mod random;
pub(crate) mod reader;
pub mod reduce;
pub mod registry;
pub(crate) mod rnn;
pub(crate) mod script;
pub mod sendrecv;
pub(crate) mod sequence;
mod sliding;
pub mod sparse;
pub mod sparse_cross;
pub mod sparse_math;
pub(crate) mod state;
pub(crate) mod strings;
pub mod summarize;
pub(crate) mod summary;
pub(crate) mod summary_writer;
pub(crate) mod tensor_array;
pub mod training;
mod winograd;

use crate::device::DeviceSet;
use crate::error::{Error, Result};
pub(crate) use crate::framework::kernel::stateless;
pub use crate::framework::kernel::{ExecEnv, FnKernel, OpContext, OpKernel, Value};
use crate::framework::resource::ResourceMgr;
use crate::framework::step::Wait;
use crate::graph::{Graph, Node, Output};

/// Kernel factory: builds the kernel of one node once per plan.
pub type KernelFn = fn(&KernelBuild<'_>) -> Result<Box<dyn OpKernel>>;

/// What a kernel factory sees: the node, its graph, and the session's resources.
pub struct KernelBuild<'a> {
    /// The node to build a kernel for.
    pub node: &'a Node,
    /// Its graph.
    pub graph: &'a Graph,
    /// The session's variables and other resources.
    pub resources: &'a ResourceMgr,
    /// The session's devices (a loop's sub-plans are placed on them).
    pub devices: &'a crate::device::DeviceSet,
    /// The device the kernel runs on (for a copy, the device that copies).
    pub device: &'a crate::device::Device,
    /// Which nodes of the graph the plan runs (indexed by node id).
    pub plan_nodes: &'a [bool],
    /// Compiles the sub-graphs a loop or dataset kernel runs.
    pub subplans: &'a dyn SubPlanCompiler,
}

/// A compiled sub-graph that a kernel runs (a loop's body, a dataset's function):
/// TF's function handle of `FunctionLibraryRuntime`. The executor compiles it
/// ([`SubPlanCompiler`]), so kernels never name the executor.
pub trait SubPlan: Send + Sync {
    /// Whether a step of it may block (a queue operation).
    fn has_blocking_steps(&self) -> bool;

    /// Runs it on the calling thread with `feeds`, where feeds and fetches may be dead
    /// (`None`: the untaken side of a cond, as a loop's gradient records and replays it).
    fn run_partial(&self, feeds: Vec<Option<Value>>, env: &ExecEnv, wait: Wait<'_>) -> Result<Vec<Option<Value>>>;

    /// Runs it with live feeds; every fetch must be alive (TF's error otherwise).
    fn run(&self, feeds: Vec<Value>, env: &ExecEnv, wait: Wait<'_>) -> Result<Vec<Value>> {
        self.run_partial(feeds.into_iter().map(Some).collect(), env, wait)?
            .into_iter()
            .enumerate()
            .map(|(i, v)| v.ok_or_else(|| Error::invalid_argument(format!("Retval[{i}] does not have value"))))
            .collect()
    }
}

/// What compiles [`SubPlan`]s for kernels (TF's `FunctionLibraryRuntime` on the
/// kernel's construction context): the executor's plan compiler.
pub trait SubPlanCompiler: Sync {
    /// A sub-plan of `graph` from the `feeds` to the `fetches`, placed on `devices`
    /// (with soft placement, as the outer plan) and run on the calling thread.
    fn compile(
        &self,
        graph: &Graph,
        resources: &ResourceMgr,
        devices: DeviceSet,
        feeds: &[Output],
        fetches: &[Output],
    ) -> Result<Box<dyn SubPlan>>;
}
