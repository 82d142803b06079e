//! The floor of the core (TF's `core/framework`): what ops, kernels, the runtime state
//! and the executor all build on, depending on nothing above it.
//!
//! - [`attr`]: node attributes and their typed reader; [`output`]: node outputs and
//!   their static types; [`tensor_util`]: reading shape and axis arguments;
//!   [`shape_util`]: what shape functions and kernels compute alike.
//! - [`kernel`]: the kernel interface ([`kernel::OpKernel`], [`kernel::OpContext`],
//!   [`kernel::Value`], [`kernel::ExecEnv`]); [`pool`]: the thread pools.
//! - [`step`]: what a step carries to its kernels (its deadline and cancellation,
//!   its rendezvous, its loop frame); [`cancel`]: per-run cancellation;
//!   [`rendezvous`]: the rendezvous keys and trait.
//! - [`resource`]: the session's variables and other resources.
pub mod attr;
pub mod cancel;
pub mod kernel;
pub mod output;
pub mod pool;
pub mod rendezvous;
pub mod resource;
pub mod shape_util;
pub mod step;
pub mod tensor_util;
