//! The per-step allocation floor: once an MLP training step has run a few times, a
//! step on the inline path makes no calls to the system allocator. Counted with a
//! counting global allocator around `DirectSession::run` of a cached plan.
//!
//! With `FERROFLOW_ALLOC_SITES=1` each counted allocation's backtrace is kept and the
//! sites are printed (for finding the allocation that a change brought back).
mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use common::Builder;
use ferroflow_core::autodiff::{Aggregation, Grad, Gradients};
use ferroflow_core::{AttrValue, DType, Output, PartialShape, RunArgs, Tensor};

/// The system allocator, counting the calls made while `COUNTING` is set.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static CALLS: AtomicUsize = AtomicUsize::new(0);
// Read from the environment before counting starts (reading it allocates).
static RECORD_SITES: AtomicBool = AtomicBool::new(false);
static SITES: Mutex<Vec<std::backtrace::Backtrace>> = Mutex::new(Vec::new());

thread_local! {
    // Set while this thread records a site (whose own allocations are not counted).
    static RECORDING: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if !COUNTING.load(Ordering::Relaxed) || RECORDING.with(Cell::get) {
        return;
    }
    CALLS.fetch_add(1, Ordering::Relaxed);
    if RECORD_SITES.load(Ordering::Relaxed) {
        RECORDING.with(|r| r.set(true));
        let trace = std::backtrace::Backtrace::force_capture();
        SITES.lock().unwrap().push(trace);
        RECORDING.with(|r| r.set(false));
    }
}

// SAFETY: every call is passed to `System` unchanged; counting allocates nothing
// (recording a site does, with counting off for the thread).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The allocator calls `f` makes (on any thread).
fn allocations(f: impl FnOnce()) -> usize {
    SITES.lock().unwrap().clear();
    RECORD_SITES.store(std::env::var_os("FERROFLOW_ALLOC_SITES").is_some(), Ordering::Relaxed);
    CALLS.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::SeqCst);
    f();
    COUNTING.store(false, Ordering::SeqCst);
    CALLS.load(Ordering::Relaxed)
}

/// The recorded sites, most frequent first: each backtrace's frames from the first
/// one in ferroflow or gemm on, a few deep.
fn sites() -> String {
    let mut by_site: HashMap<String, usize> = HashMap::new();
    for trace in SITES.lock().unwrap().iter() {
        let text = trace.to_string();
        let frames: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("at "))
            .map(str::trim)
            .skip_while(|l| !(l.contains("ferroflow") || l.contains("gemm")) || l.contains("step_allocations"))
            .take(6)
            .collect();
        *by_site.entry(frames.join("\n    ")).or_default() += 1;
    }
    let mut sites: Vec<_> = by_site.into_iter().collect();
    sites.sort_by_key(|s| std::cmp::Reverse(s.1));
    sites.iter().map(|(s, n)| format!("{n} x\n    {s}\n")).collect()
}

fn float_variable(b: &Builder, name: &str, init: Tensor) -> (Output, Output, Output) {
    let shape = PartialShape::known(init.shape());
    let var = b.op(
        "VariableV2",
        name,
        &[],
        vec![("dtype", AttrValue::Type(DType::Float32)), ("shape", AttrValue::Shape(shape))],
    );
    let value = b.constant(init);
    let assign = b.op("Assign", &format!("{name}/Assign"), &[var, value], vec![]);
    let read = b.op("Identity", &format!("{name}/read"), &[var], vec![]);
    (var, read, assign)
}

/// A 784-256-256-10 ReLU MLP with sparse softmax cross entropy and plain SGD, as
/// `GradientDescentOptimizer.minimize` builds it: returns (x, y, loss, train op,
/// initializers).
fn mlp(b: &Builder, batch: usize) -> (Output, Output, Output, Output, Vec<Output>) {
    let sizes = [784usize, 256, 256, 10];
    let x = b.op(
        "Placeholder",
        "x",
        &[],
        vec![
            ("dtype", AttrValue::Type(DType::Float32)),
            ("shape", AttrValue::Shape(PartialShape::from_dims([Some(batch), Some(784)]))),
        ],
    );
    let y = b.op(
        "Placeholder",
        "y",
        &[],
        vec![
            ("dtype", AttrValue::Type(DType::Int32)),
            ("shape", AttrValue::Shape(PartialShape::from_dims([Some(batch)]))),
        ],
    );
    let (mut h, mut vars, mut reads, mut inits) = (x, Vec::new(), Vec::new(), Vec::new());
    for (i, w) in sizes.windows(2).enumerate() {
        let values: Vec<f32> = (0..w[0] * w[1]).map(|k| ((k * 7919 % 1000) as f32 / 1000.0 - 0.5) * 0.1).collect();
        let (wv, wr, wi) = float_variable(b, &format!("w{i}"), Tensor::from_slice(&[w[0], w[1]], &values).unwrap());
        let (bv, br, bi) = float_variable(b, &format!("b{i}"), Tensor::zeros(DType::Float32, &[w[1]]).unwrap());
        vars.extend([wv, bv]);
        reads.extend([wr, br]);
        inits.extend([wi, bi]);
        h = b.op("MatMul", "MatMul", &[h, wr], vec![]);
        h = b.op("BiasAdd", "BiasAdd", &[h, br], vec![]);
        if i < 2 {
            h = b.op("Relu", "Relu", &[h], vec![]);
        }
    }
    let xent = b.op("SparseSoftmaxCrossEntropyWithLogits", "xent", &[h, y], vec![]);
    let axes = b.constant(Tensor::from_slice(&[1], &[0i32]).unwrap());
    let loss = b.op("Mean", "loss", &[xent, axes], vec![]);
    let grads = {
        let mut g = b.graph.write();
        Gradients::new(&mut g, "gradients/", "", Aggregation::AddN).compute(&[loss], &reads, &[None]).unwrap()
    };
    let lr = b.constant(Tensor::scalar(0.01f32));
    let mut updates = Vec::new();
    for (var, grad) in vars.iter().zip(grads) {
        let Some(Grad::Dense(g)) = grad else { panic!("no dense gradient") };
        updates.push(b.op("ApplyGradientDescent", "update", &[*var, lr, g], vec![]).node);
    }
    let train = b.try_op("NoOp", "train", &[], &updates, vec![]).unwrap();
    (x, y, loss, train, inits)
}

#[test]
fn a_steady_state_inline_mlp_step_makes_no_allocator_calls() {
    let batch = 128;
    let b = Builder::new();
    let (x, y, loss, train, inits) = mlp(&b, batch);
    let sess = b.session(1);
    let init_nodes: Vec<usize> = inits.iter().map(|o| o.node).collect();
    sess.run_once(&[], &[], &init_nodes).unwrap();
    let plan = sess.prepare(&[x, y], &[loss], &[train.node]).unwrap();
    assert!(!plan.is_parallel());
    let xs: Vec<f32> = (0..batch * 784).map(|k| (k % 255) as f32 / 255.0).collect();
    let ys: Vec<i32> = (0..batch as i32).map(|k| k % 10).collect();
    let feeds = || vec![Tensor::from_slice(&[batch, 784], &xs).unwrap(), Tensor::from_slice(&[batch], &ys).unwrap()];
    let mut losses = Vec::new();
    for _ in 0..5 {
        losses.push(sess.run(&plan, feeds()).unwrap()[0].scalar_value::<f32>().unwrap());
    }
    assert!(losses[4] < losses[0], "SGD does not lower the loss: {losses:?}");
    // The counter sees an allocation made in its window (so a 0 below is a count).
    assert_eq!(allocations(|| drop(std::hint::black_box(Vec::<u8>::with_capacity(1)))), 1);
    // The feeds and the vector of fetched values are the caller's: made outside.
    let (fed, mut fetched) = (feeds(), Vec::with_capacity(1));
    let args = RunArgs::default();
    let calls = allocations(|| {
        sess.run_into(&plan, fed, &args, &mut fetched).unwrap();
    });
    assert!(fetched[0].scalar_value::<f32>().unwrap() < losses[4]);
    assert_eq!(calls, 0, "allocator calls in one step; sites:\n{}", sites());
}
