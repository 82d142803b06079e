//! ferroflow-core: TensorFlow 1.x's graph/Session runtime in pure Rust.
//!
//! - [`graph`]: the dataflow graph, built node by node through the op registry
//!   ([`ops`]), which infers dtypes and static shapes and raises TF's
//!   construction-time errors.
//! - [`session`]: the session backends and the factories that pick one per target;
//!   [`executor`]: the direct session, which compiles run signatures into cached
//!   plans and executes them inline or on a thread pool; [`cancel`]: per-run
//!   cancellation.
//! - [`kernels`]: CPU kernels; [`resource`]: per-session variables;
//!   [`random`]: TF's Philox generator and distributions.
//! - [`queue`]: the FIFO, padding, shuffle and priority queues of a session;
//!   [`queue_runner`]: the native loops of queue-runner threads.
//! - [`conformance`]: the kernel suite every device's kernels must agree with the
//!   CPU on.
//! - [`host`]: the seam through which `PyFunc` kernels call the host language.
//! - [`coord`]: the stop flag and first error of `tf.train.Coordinator`.
//! - [`tensor`], [`shape`], [`dtype`], [`error`]: the value types underneath.
#[macro_use]
pub mod error;
pub mod autodiff;
pub mod buffer;
pub mod conformance;
pub mod coord;
pub mod device;
pub mod dtype;
pub mod executor;
pub mod framework;
pub mod graph;
pub mod host;
pub mod kernels;
pub mod ops;
pub mod random;
pub mod runtime;
pub mod session;
pub mod shape;
pub mod tensor;

pub use dtype::DType;
pub use error::{Code, Error, Result};
pub use executor::{DirectSession, Plan, RunArgs, RunOutput, SessionOptions};
pub use ferroflow_proto as proto;
pub use graph::{AttrValue, Graph, NodeId, NodeSpec, Output};
pub use half;
pub use num_complex;
pub use session::{PreparedRun, SessionBackend};
pub use shape::PartialShape;
pub use tensor::Tensor;
