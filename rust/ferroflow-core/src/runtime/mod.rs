//! A session's runtime state that kernels act on: queues ([`queue`]), readers
//! ([`reader`]), gradient accumulators ([`accumulator`]) and the in-process rendezvous
//! table ([`rendezvous`]). It sits above the op schemas and the graph and below the
//! kernels, which create and use these objects.
pub mod accumulator;
pub mod queue;
pub mod reader;
pub mod rendezvous;
