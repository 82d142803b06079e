//! Resources: variables and queues, looked up by container, type and shared name. A
//! direct session owns its own `ResourceMgr`, so two sessions on one graph never share
//! values; a server owns one that the sessions connected to it share.
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{MappedRwLockWriteGuard, Mutex, RwLock, RwLockWriteGuard};

use crate::dtype::DType;
use crate::error::{Code, Error, Result};
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
    /// An uninitialised variable (a session's variables come from
    /// [`ResourceMgr::variable`]; a kernel may make a private one, such as a backend
    /// computing a `float16` update in `float32`).
    pub fn new(name: &str, dtype: DType, shape: PartialShape) -> Self {
        Var { name: name.to_string(), dtype, shape, value: RwLock::new(None) }
    }
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

/// The container of resources created with an empty `container` attr (TF's default).
pub const DEFAULT_CONTAINER: &str = "localhost";

/// A value kept in a [`ResourceMgr`]: a variable, a queue, and whatever a backend adds.
pub trait Resource: Any + Send + Sync {
    /// Wakes every caller blocked on it (the resource is being dropped or its session
    /// closed); most resources never block anyone.
    fn wake_blocked(&self) {}
}

impl Resource for Var {}

/// One stored resource, as its own type (to hand out) and as a [`Resource`].
struct Entry {
    any: Arc<dyn Any + Send + Sync>,
    resource: Arc<dyn Resource>,
}

/// Resources of one container, by type and name.
type Container = HashMap<(TypeId, String), Entry>;

/// The resources of a session, or of a server whose sessions share them: TF's
/// `ResourceMgr`, containers of typed, named resources (variables, queues), plus the
/// per-node kernel state of a session.
#[derive(Default)]
pub struct ResourceMgr {
    containers: Mutex<HashMap<String, Container>>,
    node_states: Mutex<HashMap<String, NodeState>>,
    // Bumped whenever resources are dropped, so plans that bound the old ones recompile.
    generation: AtomicU64,
}

/// The container an op's `container` attr names (empty: the default).
fn container_name(container: &str) -> &str {
    if container.is_empty() { DEFAULT_CONTAINER } else { container }
}

impl ResourceMgr {
    /// An empty manager.
    pub fn new() -> Self {
        Self::default()
    }

    /// The resource of type `T` named `name` in `container` (empty: the default
    /// container), made by `create` if there is none. TF's `LookupOrCreate`: the
    /// lookup and the creation are one step, so concurrent callers get one resource.
    pub fn lookup_or_create<T: Resource>(
        &self,
        container: &str,
        name: &str,
        create: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        let mut containers = self.containers.lock();
        let c = containers.entry(container_name(container).to_string()).or_default();
        let key = (TypeId::of::<T>(), name.to_string());
        if let Some(e) = c.get(&key) {
            return Arc::clone(&e.any)
                .downcast::<T>()
                .map_err(|_| Error::new(Code::Internal, format!("resource {name} has another type")));
        }
        let r = Arc::new(create()?);
        c.insert(key, Entry { any: Arc::clone(&r) as Arc<dyn Any + Send + Sync>, resource: Arc::clone(&r) as _ });
        Ok(r)
    }

    /// The resource of type `T` named `name` in `container`, if it exists.
    pub fn lookup<T: Resource>(&self, container: &str, name: &str) -> Option<Arc<T>> {
        let containers = self.containers.lock();
        let e = containers.get(container_name(container))?.get(&(TypeId::of::<T>(), name.to_string()))?;
        Arc::clone(&e.any).downcast::<T>().ok()
    }

    /// The variable `container/name`, created uninitialised on first use. A variable
    /// that exists with another dtype is an error.
    pub fn variable(&self, container: &str, name: &str, dtype: DType, shape: &PartialShape) -> Result<Arc<Var>> {
        let v = self.lookup_or_create(container, name, || Ok(Var::new(name, dtype, shape.clone())))?;
        if v.dtype != dtype {
            ff_bail!(InvalidArgument, "Variable {name} exists with dtype {} but was requested as {dtype}", v.dtype);
        }
        Ok(v)
    }

    /// Wakes every caller blocked on a resource, so it sees its run cancelled.
    pub fn wake_blocked(&self) {
        for r in self.resources() {
            r.wake_blocked();
        }
    }

    fn resources(&self) -> Vec<Arc<dyn Resource>> {
        self.containers.lock().values().flat_map(|c| c.values().map(|e| Arc::clone(&e.resource))).collect()
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

    /// The names of the containers that hold resources, sorted.
    pub fn container_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.containers.lock().keys().cloned().collect();
        names.sort();
        names
    }

    /// Drops the resources of `containers` (TF's `ClearContainers`: none named means
    /// the default container). Callers blocked on them are woken first.
    pub fn clear_containers(&self, containers: &[String]) {
        let names: Vec<&str> = if containers.is_empty() {
            vec![DEFAULT_CONTAINER]
        } else {
            containers.iter().map(String::as_str).collect()
        };
        let removed: Vec<Container> = {
            let mut all = self.containers.lock();
            names.iter().filter_map(|n| all.remove(*n)).collect()
        };
        self.generation.fetch_add(1, Ordering::AcqRel);
        for e in removed.iter().flat_map(HashMap::values) {
            e.resource.wake_blocked();
        }
    }

    /// Changes whenever resources are dropped: a plan compiled under another
    /// generation may hold resources that no longer exist.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Drops every resource (session close).
    pub fn clear(&self) {
        let all = std::mem::take(&mut *self.containers.lock());
        self.node_states.lock().clear();
        self.generation.fetch_add(1, Ordering::AcqRel);
        for e in all.values().flat_map(HashMap::values) {
            e.resource.wake_blocked();
        }
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

    #[test]
    fn containers_are_separate_and_cleared_by_name() {
        let rm = ResourceMgr::new();
        let s = PartialShape::scalar();
        let default = rm.variable("", "v", DType::Float32, &s).unwrap();
        let exp = rm.variable("exp", "v", DType::Float32, &s).unwrap();
        assert!(!Arc::ptr_eq(&default, &exp));
        assert!(Arc::ptr_eq(&default, &rm.variable(DEFAULT_CONTAINER, "v", DType::Float32, &s).unwrap()));
        assert_eq!(rm.container_names(), ["exp", "localhost"]);
        let before = rm.generation();
        rm.clear_containers(&["exp".to_string()]);
        assert!(rm.generation() > before);
        assert!(rm.lookup::<Var>("exp", "v").is_none());
        assert!(Arc::ptr_eq(&default, &rm.lookup::<Var>("", "v").unwrap()), "the default container stays");
        rm.clear_containers(&[]);
        assert!(rm.lookup::<Var>("", "v").is_none(), "no names: the default container");
    }

    #[test]
    fn lookup_or_create_is_typed_and_creates_once() {
        #[derive(Debug)]
        struct Counter(u32);
        impl Resource for Counter {}
        let rm = ResourceMgr::new();
        let a = rm.lookup_or_create("c", "n", || Ok(Counter(1))).unwrap();
        let b = rm.lookup_or_create("c", "n", || -> Result<Counter> { panic!("created twice") }).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(b.0, 1);
        // The same name with another type is another resource.
        assert!(rm.lookup::<Var>("c", "n").is_none());
        let e = rm.lookup_or_create::<Counter>("c", "m", || Err(Error::invalid_argument("no"))).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert!(rm.lookup::<Counter>("c", "m").is_none(), "a failed creation stores nothing");
    }
}
