//! ferroflow-core: TensorFlow 1.x's graph/Session runtime in pure Rust, in layers
//! whose dependencies point down only (docs/ARCHITECTURE.md, "The map"; CI checks):
//!
//! - values: [`tensor`] (with [`dtype`], [`shape`], [`buffer`]), [`error`],
//!   [`device`], [`random`] (TF's Philox generator), [`host`] (the seam through which
//!   `PyFunc` kernels call the host language);
//! - [`framework`]: the kernel interface, attrs, node outputs, shared tensor and shape
//!   helpers, thread pools, a step's cancellation and rendezvous, resources;
//! - [`ops`]: op schemas and shape functions; [`graph`]: the dataflow graph, built
//!   node by node through them, which raises TF's construction-time errors;
//! - [`runtime`]: queues, readers, accumulators and the local rendezvous of a session;
//! - [`kernels`]: the CPU kernels and the kernel registry backends add theirs to;
//!   [`autodiff`]: gradients;
//! - [`executor`]: plans compiled as passes, the direct session, inline and parallel
//!   runners; [`session`]: the session backends, the factories that pick one per
//!   target, and the native queue-runner loops; [`coord`]: the stop flag and first
//!   error of `tf.train.Coordinator`; [`conformance`]: the kernel suite every device's
//!   kernels must agree with the CPU on.
#[macro_use]
pub mod error;
pub mod autodiff;
pub mod conformance;
pub mod coord;
pub mod device;
pub mod executor;
pub mod framework;
pub mod graph;
pub mod host;
pub mod kernels;
pub mod ops;
pub mod random;
pub mod runtime;
pub mod session;
pub mod tensor;

pub use tensor::{buffer, dtype, shape};

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
