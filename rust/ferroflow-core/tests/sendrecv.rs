//! `_Send`/`_Recv` in one process: a pair in one graph meets in the run's own
//! rendezvous, a caller's rendezvous carries values into and out of a run, blocked
//! receivers honour deadlines, session close and failing steps (which abort the
//! rendezvous, releasing other tasks' receivers), and deadness crosses the pair.
mod common;

use std::sync::Arc;
use std::time::Duration;

use common::Builder;
use ferroflow_core::runtime::rendezvous::{LocalRendezvous, Rendezvous, create_key, parse_key};
use ferroflow_core::{AttrValue, Code, DType, Output, RunArgs, Tensor};

const CPU: &str = "/job:localhost/replica:0/task:0/device:CPU:0";
const INCARNATION: u64 = 0xfeed_f00d_dead_beef;

fn key_attrs(name: &str) -> Vec<(&'static str, AttrValue)> {
    vec![
        ("tensor_name", AttrValue::S(name.as_bytes().to_vec())),
        ("send_device", AttrValue::S(CPU.as_bytes().to_vec())),
        ("send_device_incarnation", AttrValue::I(INCARNATION.cast_signed())),
        ("recv_device", AttrValue::S(CPU.as_bytes().to_vec())),
    ]
}

fn send(b: &Builder, name: &str, x: Output) -> usize {
    b.op("_Send", "send", &[x], key_attrs(name)).node
}

fn recv(b: &Builder, name: &str) -> Output {
    let mut attrs = key_attrs(name);
    attrs.push(("tensor_type", AttrValue::Type(DType::Float32)));
    b.op("_Recv", "recv", &[], attrs)
}

fn key(name: &str) -> ferroflow_core::runtime::rendezvous::ParsedKey {
    parse_key(&create_key(CPU, INCARNATION, CPU, name, 0, 0)).unwrap()
}

fn float(t: &Tensor) -> f32 {
    t.scalar_value::<f32>().unwrap()
}

#[test]
fn a_pair_in_one_graph_meets_in_a_fresh_rendezvous_per_run() {
    for threads in [1, 2] {
        let b = Builder::new();
        let c = b.constant(Tensor::scalar(3.0f32));
        let s = send(&b, "edge_1_c", c);
        let r = recv(&b, "edge_1_c");
        let y = b.op("Mul", "y", &[r, r], vec![]);
        let sess = b.session(threads);
        let plan = sess.prepare(&[], &[y], &[s]).unwrap();
        for _ in 0..3 {
            // Each run has its own table: nothing is left over from the run before.
            assert_eq!(float(&sess.run(&plan, vec![]).unwrap()[0]), 9.0);
        }
        let node = b.graph.read();
        let n = node.node(s).unwrap();
        assert_eq!(n.attr::<bool>("client_terminated").unwrap(), Some(false), "default recorded");
        assert_eq!(n.attr::<DType>("T").unwrap(), Some(DType::Float32));
    }
}

#[test]
fn missing_attrs_are_tfs_invalid_argument() {
    let b = Builder::new();
    let c = b.constant(Tensor::scalar(1.0f32));
    let mut attrs = key_attrs("t");
    attrs.retain(|(k, _)| *k != "recv_device");
    let e = b.try_op("_Send", "s", &[c], &[], attrs).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "NodeDef missing attr 'recv_device' from Op<name=_Send; signature=tensor:T -> ; attr=T:type; \
         attr=tensor_name:string; attr=send_device:string; attr=send_device_incarnation:int; \
         attr=recv_device:string; attr=client_terminated:bool,default=false; is_stateful=true; \
         is_distributed_communication=true>; NodeDef: {{node s}}"
    );
    let e = b.try_op("_Recv", "r", &[], &[], key_attrs("t")).unwrap_err();
    assert!(e.message.starts_with("NodeDef missing attr 'tensor_type' from Op<name=_Recv; signature= -> tensor:"));
    // A key TF cannot parse fails when the kernel is built, as TF's constructor.
    let mut attrs = key_attrs("t");
    attrs[1] = ("send_device", AttrValue::S(b"cpu".to_vec()));
    let s = b.op("_Send", "s", &[c], attrs);
    let e = b.session(1).prepare(&[], &[], &[s.node]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Invalid  rendezvous key: cpu;feedf00ddeadbeef;"), "{}", e.message);
}

#[test]
fn a_callers_rendezvous_carries_values_in_and_out() {
    let b = Builder::new();
    let x = recv(&b, "x:0");
    let y = b.op("Square", "y", &[x], vec![]);
    let s = send(&b, "y:0", y);
    let sess = b.session(1);
    let plan = sess.prepare(&[], &[], &[s]).unwrap();
    for v in [2.0f32, 5.0] {
        let table = LocalRendezvous::new();
        table.send(&key("x:0"), Tensor::scalar(v), false).unwrap();
        let args = RunArgs { rendezvous: Some(Arc::clone(&table) as Arc<dyn Rendezvous>), ..RunArgs::default() };
        sess.run_with(&plan, vec![], &args).unwrap();
        let (out, dead) = take(&table, "y:0", true);
        assert!(!dead);
        assert_eq!(float(&out), v * v);
    }
}

#[test]
fn a_blocked_recv_ends_at_the_deadline_and_when_the_session_closes() {
    for threads in [1, 2] {
        let b = Builder::new();
        let r = recv(&b, "never");
        let sess = b.session(threads);
        let plan = sess.prepare(&[], &[r], &[]).unwrap();
        let args = RunArgs { timeout: Some(Duration::from_millis(50)), ..RunArgs::default() };
        let e = sess.run_with(&plan, vec![], &args).err().unwrap();
        assert_eq!(e.code, Code::DeadlineExceeded);
        let waiting = {
            let sess = Arc::clone(&sess);
            std::thread::spawn(move || sess.run(&plan, vec![]).map(|_| ()))
        };
        std::thread::sleep(Duration::from_millis(50));
        sess.close();
        assert_eq!(waiting.join().unwrap().unwrap_err().code, Code::Cancelled);
    }
}

#[test]
fn a_failing_step_aborts_the_steps_rendezvous() {
    // Task A: a receiver that would wait for ever, and a step that fails. Task B (another
    // session on the same table) waits for a value A never sends.
    let a = Builder::new();
    let r = recv(&a, "from_b");
    let nan = a.constant(Tensor::scalar(f32::NAN));
    let check = a.op("CheckNumerics", "check", &[nan], vec![("message", AttrValue::S(b"bad value".to_vec()))]);
    let b = Builder::new();
    let rb = recv(&b, "from_a");
    let table = LocalRendezvous::new();
    let sb = b.session(1);
    let plan_b = sb.prepare(&[], &[rb], &[]).unwrap();
    let waiting = {
        let table = Arc::clone(&table) as Arc<dyn Rendezvous>;
        std::thread::spawn(move || {
            sb.run_with(&plan_b, vec![], &RunArgs { rendezvous: Some(table), ..RunArgs::default() }).map(|_| ())
        })
    };
    for threads in [1, 2] {
        let sa = a.session(threads);
        let plan_a = sa.prepare(&[], &[r, check], &[]).unwrap();
        let args = RunArgs { rendezvous: Some(Arc::clone(&table) as Arc<dyn Rendezvous>), ..RunArgs::default() };
        let e = sa.run_with(&plan_a, vec![], &args).err().unwrap();
        assert_eq!(e.code, Code::InvalidArgument, "{e}");
        assert!(e.message.contains("bad value"), "{e}");
    }
    let e = waiting.join().unwrap().unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "B fails with A's error: {e}");
    assert!(e.message.contains("bad value"));
    assert!(table.aborted().is_some());
}

#[test]
fn deadness_crosses_a_pair() {
    for threads in [1, 2] {
        let b = Builder::new();
        let x = b.constant(Tensor::scalar(2.0f32));
        let p = b.constant(Tensor::scalar(false));
        let sw = b.op("Switch", "switch", &[x, p], vec![]);
        let taken = b.op("Square", "square", &[Output { node: sw.node, index: 1 }], vec![]);
        let s = send(&b, "edge_2_square", taken);
        let r = recv(&b, "edge_2_square");
        let other = b.op("Neg", "neg", &[Output { node: sw.node, index: 0 }], vec![]);
        let m = b.op("Merge", "merge", &[r, other], vec![]);
        let sess = b.session(threads);
        let out = sess.run_once(&[], &[m], &[s]).unwrap();
        assert_eq!(float(&out[0]), -2.0, "the dead send arrives dead; the merge takes the live branch");
    }
}

fn recv_as(b: &Builder, node: &str, name: &str) -> Output {
    let mut attrs = key_attrs(name);
    attrs.push(("tensor_type", AttrValue::Type(DType::Float32)));
    b.op("_Recv", node, &[], attrs)
}

/// The value under `name` in `table`, as another task's `RecvTensor` takes it
/// (waiting for it unless `nonblocking`).
fn take(table: &LocalRendezvous, name: &str, nonblocking: bool) -> (Tensor, bool) {
    let run = ferroflow_core::framework::cancel::RunCancellation::new(None);
    let closed = std::sync::atomic::AtomicBool::new(false);
    let wait = ferroflow_core::framework::step::Wait {
        deadline: None,
        closed: &closed,
        run: &run,
        nonblocking,
        rendezvous: None,
        loops: Default::default(),
    };
    table.recv(&key(name), &wait).unwrap()
}

#[test]
fn parked_receivers_resume_in_any_order_and_end_with_the_run() {
    // Two receivers of one parallel run (parked while their values are missing): "a"
    // arrives only after the run sent back what "b" brought, so the run must not wait
    // for "a" before "b" was received and sent on.
    let b = Builder::new();
    let ra = recv_as(&b, "ra", "a");
    let rb = recv_as(&b, "rb", "b");
    let echo = b.op("_Send", "echo", &[rb], key_attrs("b_echo")).node;
    let y = b.op("Add", "y", &[ra, rb], vec![]);
    let sess = b.session(2);
    let plan = sess.prepare(&[], &[y], &[echo]).unwrap();
    let with = |table: &Arc<LocalRendezvous>, timeout| RunArgs {
        rendezvous: Some(Arc::clone(table) as Arc<dyn Rendezvous>),
        timeout,
        ..RunArgs::default()
    };
    for i in 0..20 {
        let table = LocalRendezvous::new();
        let peer = {
            let table = Arc::clone(&table);
            std::thread::spawn(move || {
                if i % 2 == 0 {
                    std::thread::sleep(Duration::from_millis(2));
                }
                table.send(&key("b"), Tensor::scalar(2.0f32), false).unwrap();
                let (echoed, _) = take(&table, "b_echo", false);
                table.send(&key("a"), Tensor::scalar(float(&echoed) * 10.0), false).unwrap();
            })
        };
        let out = sess.run_with(&plan, vec![], &with(&table, None)).unwrap();
        assert_eq!(float(&out.values[0]), 22.0);
        peer.join().unwrap();
    }
    // Parked receivers end with the run's deadline, the session's close and an abort
    // of the rendezvous (another task failed), each with its own error.
    let e =
        sess.run_with(&plan, vec![], &with(&LocalRendezvous::new(), Some(Duration::from_millis(50)))).err().unwrap();
    assert_eq!(e.code, Code::DeadlineExceeded, "{e}");
    let table = LocalRendezvous::new();
    let waiting = {
        let (sess, plan, args) = (Arc::clone(&sess), plan.clone(), with(&table, None));
        std::thread::spawn(move || sess.run_with(&plan, vec![], &args).map(|_| ()))
    };
    std::thread::sleep(Duration::from_millis(50));
    table.start_abort(ferroflow_core::Error::new(Code::Aborted, "the peer task went away"));
    let e = waiting.join().unwrap().unwrap_err();
    assert_eq!((e.code, e.message.contains("the peer task went away")), (Code::Aborted, true), "{e}");
    let waiting = {
        let (sess, plan, args) = (Arc::clone(&sess), plan.clone(), with(&LocalRendezvous::new(), None));
        std::thread::spawn(move || sess.run_with(&plan, vec![], &args).map(|_| ()))
    };
    std::thread::sleep(Duration::from_millis(50));
    sess.close();
    assert_eq!(waiting.join().unwrap().unwrap_err().code, Code::Cancelled);
}
