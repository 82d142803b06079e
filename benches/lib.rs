//! Placeholder library target so the benches package builds; benchmarks live in `kernels.rs`.
