//! Per-session state: variables and queues, looked up by container and shared name. A
//! direct session owns its own `ResourceMgr`, so two sessions on one graph never share
//! values.
use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::{MappedRwLockWriteGuard, Mutex, RwLock, RwLockWriteGuard};

use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::queue::{Queue, QueueSpec};
use crate::shape::{PartialShape, fmt_shape};
use crate::tensor::Tensor;

/// A mutable variable: a name, a dtype, a declared shape and (once initialised) a value.
pub struct Var {
    name: String,
    dtype: DType,
    shape: PartialShape,
    value: RwLock<Option<Tensor>>,
}

impl Var {
    /// The variable's node name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// Whether a value has been assigned.
    pub fn is_initialized(&self) -> bool {
        self.value.read().is_some()
    }
    /// The current value (shares the buffer; a later in-place update copies first).
    pub fn read(&self) -> Result<Tensor> {
        self.value.read().clone().ok_or_else(|| self.uninitialized())
    }
    fn uninitialized(&self) -> Error {
        Error::new(Code::FailedPrecondition, format!("Attempting to use uninitialized value {}", self.name))
    }
    /// TF's `Assign`: replaces the value; with `validate_shape`, an initialised variable
    /// keeps its shape and an uninitialised one must match its declared shape.
    pub fn assign(&self, value: Tensor, validate_shape: bool) -> Result<()> {
        if value.dtype() != self.dtype {
            ff_bail!(InvalidArgument, "Assign of a {} value to {} variable {}", value.dtype(), self.dtype, self.name);
        }
        let mut slot = self.value.write();
        if validate_shape {
            let ok = match slot.as_ref() {
                Some(old) => old.shape() == value.shape(),
                None => self.shape.is_compatible_with(value.shape()),
            };
            if !ok {
                let lhs = slot.as_ref().map_or_else(|| self.shape.to_string(), |t| fmt_shape(t.shape()));
                ff_bail!(
                    InvalidArgument,
                    "Assign requires shapes of both tensors to match. lhs shape= {lhs} rhs shape= {}",
                    fmt_shape(value.shape())
                );
            }
        }
        *slot = Some(value);
        Ok(())
    }
    /// Updates the value in place under the write lock. The buffer is copied first only
    /// when something else (a fetched result, a concurrent reader) still shares it.
    pub fn update<R>(&self, f: impl FnOnce(&mut Tensor) -> Result<R>) -> Result<R> {
        f(&mut *self.write()?)
    }
    /// The value, write-locked for an in-place update until the guard drops (the same
    /// copy-on-write rule as [`Var::update`] applies to its buffer).
    pub fn write(&self) -> Result<MappedRwLockWriteGuard<'_, Tensor>> {
        RwLockWriteGuard::try_map(self.value.write(), Option::as_mut).map_err(|_| self.uninitialized())
    }
}

/// State a kernel keeps for its node across runs and plans of one session.
type NodeState = Arc<dyn Any + Send + Sync>;

/// The variables, queues and per-node kernel state of one session or server.
#[derive(Default)]
pub struct ResourceMgr {
    vars: Mutex<HashMap<String, Arc<Var>>>,
    queues: Mutex<HashMap<String, Arc<Queue>>>,
    node_states: Mutex<HashMap<String, NodeState>>,
}

impl ResourceMgr {
    /// An empty manager.
    pub fn new() -> Self {
        Self::default()
    }
    /// The variable `container/name`, created uninitialised on first use. A variable
    /// that exists with another dtype is an error.
    pub fn variable(&self, container: &str, name: &str, dtype: DType, shape: &PartialShape) -> Result<Arc<Var>> {
        let key = format!("{container}/{name}");
        let mut vars = self.vars.lock();
        if let Some(v) = vars.get(&key) {
            if v.dtype != dtype {
                ff_bail!(InvalidArgument, "Variable {name} exists with dtype {} but was requested as {dtype}", v.dtype);
            }
            return Ok(Arc::clone(v));
        }
        let v = Arc::new(Var { name: name.to_string(), dtype, shape: shape.clone(), value: RwLock::new(None) });
        vars.insert(key, Arc::clone(&v));
        Ok(v)
    }
    /// The queue `container/name`, created from `spec` on first use. A queue shared
    /// under that name must have the same component types, shapes and capacity.
    pub fn queue(&self, container: &str, name: &str, spec: QueueSpec) -> Result<Arc<Queue>> {
        let key = format!("{container}/{name}");
        let mut queues = self.queues.lock();
        if let Some(q) = queues.get(&key) {
            let have = q.spec();
            if have.kind.class_name() != spec.kind.class_name()
                || have.dtypes != spec.dtypes
                || have.shapes != spec.shapes
                || have.capacity != spec.capacity
            {
                ff_bail!(
                    InvalidArgument,
                    "Shared queue '{name}' is a {} of {:?} with shapes {:?} and capacity {:?}, but a {} of {:?} with \
                     shapes {:?} and capacity {:?} was requested",
                    have.kind.class_name(),
                    have.dtypes,
                    have.shapes,
                    have.capacity,
                    spec.kind.class_name(),
                    spec.dtypes,
                    spec.shapes,
                    spec.capacity
                );
            }
            return Ok(Arc::clone(q));
        }
        let q = Arc::new(Queue::new(spec)?);
        queues.insert(key, Arc::clone(&q));
        Ok(q)
    }
    /// Wakes every caller blocked on a queue, so it sees its run cancelled.
    pub fn wake_blocked(&self) {
        for q in self.queues.lock().values() {
            q.wake_all();
        }
    }
    /// The state node `node` keeps for the session's lifetime (a random op's generator
    /// position), created by `init` on first use. Plans are compiled per run signature,
    /// so state that must survive between differently-fetched runs lives here, not in
    /// the kernel.
    pub fn node_state<T: Any + Send + Sync>(&self, node: &str, init: impl FnOnce() -> T) -> Result<Arc<T>> {
        let mut states = self.node_states.lock();
        let state = Arc::clone(states.entry(node.to_string()).or_insert_with(|| Arc::new(init())));
        state.downcast::<T>().map_err(|_| Error::new(Code::Internal, format!("node {node} has state of another type")))
    }
    /// Drops every resource (session close).
    pub fn clear(&self) {
        self.vars.lock().clear();
        self.queues.lock().clear();
        self.node_states.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_created_once_and_checked() {
        let rm = ResourceMgr::new();
        let s = PartialShape::known(&[2]);
        let v = rm.variable("", "v", DType::Float32, &s).unwrap();
        assert!(Arc::ptr_eq(&v, &rm.variable("", "v", DType::Float32, &s).unwrap()));
        assert!(rm.variable("", "v", DType::Int32, &s).is_err());
        let e = v.read().unwrap_err();
        assert_eq!(e.code, Code::FailedPrecondition);
        assert!(e.message.contains("uninitialized value v"));
        assert!(v.assign(Tensor::from_slice(&[3], &[1f32, 2., 3.]).unwrap(), true).is_err());
        v.assign(Tensor::from_slice(&[2], &[1f32, 2.]).unwrap(), true).unwrap();
        let before = v.read().unwrap();
        v.update(|t| {
            t.as_mut_slice::<f32>()?[0] = 5.0;
            Ok(())
        })
        .unwrap();
        assert_eq!(before.as_slice::<f32>().unwrap(), &[1.0, 2.0]);
        assert_eq!(v.read().unwrap().as_slice::<f32>().unwrap(), &[5.0, 2.0]);
    }
}
