//! Session backends: the seam between `tf.Session` and whatever runs its graph.
//!
//! A [`SessionBackend`] compiles run signatures into [`PreparedRun`]s and closes; the
//! in-process [`DirectSession`](crate::executor::DirectSession) is one, and a remote
//! session (the rpc crate's `grpc://` sessions) will be another. Which backend a
//! `Session(target)` gets is decided by the [`SessionFactory`]s registered here, as
//! TF's `SessionFactory::Register` does: the direct factory accepts the empty target,
//! and a crate that serves other targets registers its own factory at start-up, so the
//! core never depends on the network. `Session.reset(target, containers)` goes to the
//! same factory.
pub mod queue_runner;

use std::sync::{Arc, Weak};

use parking_lot::{Mutex, RwLock};

use crate::error::{Code, Error, Result};
use crate::executor::{DirectSession, Plan, RunArgs, RunOutput, SessionOptions};
use crate::graph::{Graph, NodeId, Output};
use crate::tensor::Tensor;

/// A compiled run signature (feeds, fetches, targets) of some backend, run many times.
pub trait PreparedRun: Send + Sync {
    /// Runs it with one value per feed (in the signature's feed order).
    fn run(&self, feeds: Vec<Tensor>, args: &RunArgs<'_>) -> Result<RunOutput>;
    /// Number of nodes (and inserted copies) it runs.
    fn num_steps(&self) -> usize;
    /// Whether it spreads independent work over threads.
    fn is_parallel(&self) -> bool;
    /// Each step's name and the device it runs on, in run order.
    fn placement(&self) -> Vec<(String, String)>;
}

/// A session: compiles run signatures of its graph and runs them until closed.
pub trait SessionBackend: Send + Sync {
    /// The prepared run for a signature (compiled once and cached by the backend).
    fn prepare(&self, feeds: &[Output], fetches: &[Output], targets: &[NodeId]) -> Result<Arc<dyn PreparedRun>>;
    /// The full names of the devices it places nodes on, highest priority first.
    fn devices(&self) -> Vec<String>;
    /// Closes it: later runs fail with `Cancelled`, runs blocked now are cancelled.
    fn close(&self);
    /// Whether it was closed.
    fn is_closed(&self) -> bool;
}

/// Makes the sessions of the targets it accepts (TF's `SessionFactory`).
pub trait SessionFactory: Send + Sync {
    /// TF's name of the factory (`DIRECT_SESSION`, `GRPC_SESSION`), for error messages.
    fn name(&self) -> &str;
    /// Whether this factory serves `target`.
    fn accepts(&self, target: &str) -> bool;
    /// A new session on `graph` for `target`.
    fn new_session(
        &self,
        target: &str,
        graph: Arc<RwLock<Graph>>,
        config: &ferroflow_proto::ConfigProto,
    ) -> Result<Arc<dyn SessionBackend>>;
    /// Resets `containers` (none: the default container) wherever `target` keeps them,
    /// and closes the sessions connected there (TF's `Session.reset`).
    fn reset(&self, target: &str, containers: &[String]) -> Result<()>;
}

fn factories() -> &'static Mutex<Vec<Arc<dyn SessionFactory>>> {
    static FACTORIES: std::sync::OnceLock<Mutex<Vec<Arc<dyn SessionFactory>>>> = std::sync::OnceLock::new();
    FACTORIES.get_or_init(|| Mutex::new(vec![Arc::new(DirectSessionFactory::default()) as Arc<dyn SessionFactory>]))
}

/// Registers a factory for more targets (a later registration is asked first).
pub fn register_session_factory(factory: Arc<dyn SessionFactory>) {
    factories().lock().insert(0, factory);
}

/// The factory that accepts `target`, or TF's `NotFound` error naming the registered ones.
fn factory_for(target: &str) -> Result<Arc<dyn SessionFactory>> {
    let all = factories().lock();
    if let Some(f) = all.iter().find(|f| f.accepts(target)) {
        return Ok(Arc::clone(f));
    }
    let mut names: Vec<&str> = all.iter().map(|f| f.name()).collect();
    names.sort_unstable();
    Err(Error::new(
        Code::NotFound,
        format!(
            "No session factory registered for the given session options: {{target: {target:?}}} Registered \
             factories are {{{}}}.",
            names.join(", ")
        ),
    ))
}

/// A session for `target` on `graph`, made by the factory that accepts the target.
pub fn new_session(
    target: &str,
    graph: Arc<RwLock<Graph>>,
    config: &ferroflow_proto::ConfigProto,
) -> Result<Arc<dyn SessionBackend>> {
    factory_for(target)?.new_session(target, graph, config)
}

/// TF's `Session.reset(target, containers)`: resets the containers on `target` and
/// closes the sessions connected to it.
pub fn reset(target: &str, containers: &[String]) -> Result<()> {
    factory_for(target)?.reset(target, containers)
}

/// The factory of in-process sessions (target `""`). It remembers the sessions it
/// made, because TF's `Session.reset("")` resets and closes every one of them.
#[derive(Default)]
pub struct DirectSessionFactory {
    sessions: Mutex<Vec<Weak<DirectSession>>>,
}

impl SessionFactory for DirectSessionFactory {
    fn name(&self) -> &str {
        "DIRECT_SESSION"
    }

    fn accepts(&self, target: &str) -> bool {
        target.is_empty()
    }

    fn new_session(
        &self,
        _target: &str,
        graph: Arc<RwLock<Graph>>,
        config: &ferroflow_proto::ConfigProto,
    ) -> Result<Arc<dyn SessionBackend>> {
        let session = DirectSession::new(graph, SessionOptions::from_config(config));
        let mut sessions = self.sessions.lock();
        sessions.retain(|w| w.strong_count() > 0);
        sessions.push(Arc::downgrade(&session));
        Ok(session)
    }

    fn reset(&self, _target: &str, containers: &[String]) -> Result<()> {
        // Take the list first: closing must not run under its lock.
        let sessions = std::mem::take(&mut *self.sessions.lock());
        for s in sessions.iter().filter_map(Weak::upgrade) {
            s.resources().clear_containers(containers);
            s.close();
        }
        Ok(())
    }
}

impl SessionBackend for DirectSession {
    fn prepare(&self, feeds: &[Output], fetches: &[Output], targets: &[NodeId]) -> Result<Arc<dyn PreparedRun>> {
        let plan = DirectSession::prepare(self, feeds, fetches, targets)?;
        let session = self.handle().ok_or_else(|| Error::new(Code::Internal, "session is being dropped"))?;
        Ok(Arc::new(DirectRun { session, plan }))
    }

    fn devices(&self) -> Vec<String> {
        DirectSession::devices(self).devices().iter().map(|d| d.name.clone()).collect()
    }

    fn close(&self) {
        DirectSession::close(self);
    }

    fn is_closed(&self) -> bool {
        DirectSession::is_closed(self)
    }
}

/// A plan of a direct session, with the session it runs in.
pub struct DirectRun {
    session: Arc<DirectSession>,
    plan: Arc<Plan>,
}

impl PreparedRun for DirectRun {
    fn run(&self, feeds: Vec<Tensor>, args: &RunArgs<'_>) -> Result<RunOutput> {
        self.session.run_with(&self.plan, feeds, args)
    }

    fn num_steps(&self) -> usize {
        self.plan.num_steps()
    }

    fn is_parallel(&self) -> bool {
        self.plan.is_parallel()
    }

    fn placement(&self) -> Vec<(String, String)> {
        self.plan.placement().into_iter().map(|(n, d)| (n.to_string(), d.to_string())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_targets_are_tfs_not_found() {
        let graph = Arc::new(RwLock::new(Graph::new()));
        let e = new_session("foo", graph, &ferroflow_proto::ConfigProto::default()).err().unwrap();
        assert_eq!(e.code, Code::NotFound);
        assert!(e.message.starts_with("No session factory registered for the given session options: {target: \"foo\""));
        assert!(e.message.contains("Registered factories are {"), "{}", e.message);
        assert!(e.message.contains("DIRECT_SESSION"), "{}", e.message);
        assert_eq!(reset("grpc+x://a", &[]).unwrap_err().code, Code::NotFound);
    }

    #[test]
    fn reset_closes_every_direct_session() {
        let graph = Arc::new(RwLock::new(Graph::new()));
        let config = ferroflow_proto::ConfigProto::default();
        let a = new_session("", Arc::clone(&graph), &config).unwrap();
        let b = new_session("", graph, &config).unwrap();
        reset("", &[]).unwrap();
        assert!(a.is_closed() && b.is_closed());
    }
}
