//! The executor's blocking steps and per-run cancellation: blocked steps of one run wait
//! together, a failing step wakes exactly its own run's blocked steps, an interrupt
//! cancels a waiting run, and sessions can share a server's resources.
mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::Builder;
use ferroflow_core::framework::resource::ResourceMgr;
use ferroflow_core::{AttrValue, Code, DType, DirectSession, Error, Output, PartialShape, RunArgs, Tensor};

fn fifo(b: &Builder, name: &str) -> Output {
    b.op(
        "FIFOQueueV2",
        name,
        &[],
        vec![
            ("component_types", AttrValue::ListType(vec![DType::Int64])),
            ("shapes", AttrValue::ListShape(vec![PartialShape::scalar()])),
            ("capacity", AttrValue::I(10)),
        ],
    )
}

fn dequeue(b: &Builder, q: Output) -> Output {
    b.op("QueueDequeueV2", "dequeue", &[q], vec![("component_types", AttrValue::ListType(vec![DType::Int64]))])
}

fn enqueue(b: &Builder, q: Output, v: i64) -> usize {
    let value = b.constant(Tensor::scalar(v));
    b.op("QueueEnqueueV2", "enqueue", &[q, value], vec![]).node
}

/// A step that fails at run time: `CheckNumerics` of a NaN, behind a short chain.
fn failing(b: &Builder) -> Output {
    let nan = b.constant(Tensor::scalar(f32::NAN));
    let doubled = b.op("AddV2", "doubled", &[nan, nan], vec![]);
    b.op("CheckNumerics", "check", &[doubled], vec![("message", AttrValue::S(b"bad value".to_vec()))])
}

fn int(t: &Tensor) -> i64 {
    t.scalar_value::<i64>().unwrap()
}

const SOON: RunArgs<'static> =
    RunArgs { timeout: Some(Duration::from_secs(5)), trace: false, interrupt: None, rendezvous: None };

#[test]
fn blocked_steps_of_one_run_wait_together() {
    for threads in [1, 2] {
        let b = Builder::new();
        let q = fifo(&b, "q");
        let d = dequeue(&b, q);
        let e = enqueue(&b, q, 7);
        let sess = b.session(threads);
        // The dequeue would wait for ever if it held up the enqueue of the same run.
        let plan = sess.prepare(&[], &[d], &[e]).unwrap();
        assert!(plan.is_parallel(), "two blocking steps make a plan parallel");
        let out = sess.run_with(&plan, vec![], &SOON).unwrap();
        assert_eq!(int(&out.values[0]), 7);
    }
}

#[test]
fn a_failing_step_cancels_the_blocked_steps_of_its_run_only() {
    let b = Builder::new();
    let (q1, q2) = (fifo(&b, "q1"), fifo(&b, "q2"));
    let (d1, d2) = (dequeue(&b, q1), dequeue(&b, q2));
    let check = failing(&b);
    let sess = b.session(2);

    // Another run of the session, blocked on q1 meanwhile, must not be cancelled.
    let other = {
        let sess = Arc::clone(&sess);
        let plan = sess.prepare(&[], &[d1], &[]).unwrap();
        std::thread::spawn(move || sess.run_with(&plan, vec![], &SOON).map(|o| int(&o.values[0])))
    };
    std::thread::sleep(Duration::from_millis(50));

    let started = Instant::now();
    let plan = sess.prepare(&[], &[d1, d2, check], &[]).unwrap();
    let e = sess.run(&plan, vec![]).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(4), "the run returned at once");
    assert_eq!(e.code, Code::InvalidArgument, "{e:?}");
    assert!(e.message.contains("bad value"), "the first error: {e:?}");
    assert_eq!(e.node.as_deref(), Some("check"));

    // Released: nothing of the failed run still waits in either queue's line, so the
    // values enqueued now go to the run that is still waiting, then to a new one.
    // One run per value: enqueues of one run are independent steps and may run in
    // either order (a parallel plan), which made 2 arrive first now and then.
    let (e1a, e1b, e2) = (enqueue(&b, q1, 1), enqueue(&b, q1, 2), enqueue(&b, q2, 3));
    for e in [e1a, e1b, e2] {
        sess.run_once(&[], &[], &[e]).unwrap();
    }
    assert_eq!(other.join().unwrap().unwrap(), 1, "the other run was not cancelled");
    let again = sess.prepare(&[], &[d1, d2], &[]).unwrap();
    let out = sess.run_with(&again, vec![], &SOON).unwrap();
    assert_eq!((int(&out.values[0]), int(&out.values[1])), (2, 3));
}

#[test]
fn an_interrupt_cancels_a_waiting_run_and_leaves_the_queue_usable() {
    for threads in [1, 2] {
        let b = Builder::new();
        let q = fifo(&b, "q");
        let d = dequeue(&b, q);
        let e = enqueue(&b, q, 5);
        let sess = b.session(threads);
        let polls = AtomicUsize::new(0);
        let check = || {
            if polls.fetch_add(1, Ordering::Relaxed) >= 2 {
                return Err(Error::new(Code::Cancelled, "interrupted"));
            }
            Ok(())
        };
        let plan = sess.prepare(&[], &[d], &[]).unwrap();
        let started = Instant::now();
        let err =
            sess.run_with(&plan, vec![], &RunArgs { interrupt: Some(&check), ..RunArgs::default() }).err().unwrap();
        assert_eq!((err.code, err.message.as_str()), (Code::Cancelled, "interrupted"));
        assert_eq!(polls.load(Ordering::Relaxed), 3, "polled every 100 ms while waiting");
        assert!(started.elapsed() < Duration::from_secs(4));
        sess.run_once(&[], &[], &[e]).unwrap();
        assert_eq!(int(&sess.run_with(&plan, vec![], &SOON).unwrap().values[0]), 5);
    }
}

#[test]
fn an_interrupt_reaches_a_parallel_run_waiting_for_a_blocked_step() {
    let b = Builder::new();
    let (q1, q2) = (fifo(&b, "q1"), fifo(&b, "q2"));
    let (d1, d2) = (dequeue(&b, q1), dequeue(&b, q2));
    let sess = b.session(2);
    let check = || Err(Error::new(Code::Cancelled, "interrupted"));
    let plan = sess.prepare(&[], &[d1, d2], &[]).unwrap();
    let err = sess.run_with(&plan, vec![], &RunArgs { interrupt: Some(&check), ..RunArgs::default() }).err().unwrap();
    assert_eq!(err.message, "interrupted");
}

#[test]
fn a_deadline_ends_blocked_steps_of_a_parallel_run() {
    let b = Builder::new();
    let (q1, q2) = (fifo(&b, "q1"), fifo(&b, "q2"));
    let (d1, d2) = (dequeue(&b, q1), dequeue(&b, q2));
    let sess = b.session(2);
    let plan = sess.prepare(&[], &[d1, d2], &[]).unwrap();
    let args = RunArgs { timeout: Some(Duration::from_millis(100)), ..RunArgs::default() };
    assert_eq!(sess.run_with(&plan, vec![], &args).err().unwrap().code, Code::DeadlineExceeded);
}

#[test]
fn closing_the_session_cancels_a_waiting_run() {
    let b = Builder::new();
    let q = fifo(&b, "q");
    let (d1, d2) = (dequeue(&b, q), dequeue(&b, q));
    let sess = b.session(2);
    let plan = sess.prepare(&[], &[d1, d2], &[]).unwrap();
    let waiting = {
        let sess = Arc::clone(&sess);
        std::thread::spawn(move || sess.run(&plan, vec![]).map(|_| ()))
    };
    std::thread::sleep(Duration::from_millis(50));
    sess.close();
    assert_eq!(waiting.join().unwrap().unwrap_err().code, Code::Cancelled);
}

#[test]
fn sessions_sharing_resources_see_one_variable() {
    let b = Builder::new();
    let (v, init) = b.int_variable("v", 3);
    let shared = Arc::new(ResourceMgr::new());
    let options = ferroflow_core::SessionOptions::default;
    let s1 = DirectSession::with_resources(Arc::clone(&b.graph), options(), Arc::clone(&shared));
    let s2 = DirectSession::with_resources(Arc::clone(&b.graph), options(), Arc::clone(&shared));
    s1.run_once(&[], &[], &[init.node]).unwrap();
    s1.close();
    assert_eq!(int(&s2.run_once(&[], &[v], &[]).unwrap()[0]), 3, "closing a sharing session keeps the values");
    shared.clear_containers(&[]);
    assert_eq!(s2.run_once(&[], &[v], &[]).unwrap_err().code, Code::FailedPrecondition, "reset: a fresh variable");
}
