//! Iterators: session resources holding a running [`DatasetIter`]. `IteratorV2`
//! (and `Iterator`) names one; `MakeIterator` starts it on a dataset (stopping the
//! one before); `IteratorGetNext` pulls an element, `OutOfRange` at the end;
//! `OneShotIterator` starts itself from its dataset sub-graph on first use;
//! `IteratorToStringHandle` / `IteratorFromStringHandleV2` pass one by name (a
//! feedable iterator).
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Weak};

use parking_lot::Mutex;

use super::{DatasetIter, IterCtx, POLL, Pipeline, dataset_input, dataset_of, end_of_sequence, is_cancellation};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::framework::resource::Resource;
use crate::kernels::functional::{compile_on, parse_tensor};
use crate::kernels::{KernelBuild, OpContext, OpKernel, SubPlan, stateless};
use crate::shape::PartialShape;
use crate::tensor::Tensor;

/// A running iterator and the pipeline it belongs to.
struct Running {
    pipeline: Arc<Pipeline>,
    /// `None` once the end was reached (every later `get_next` is `OutOfRange`).
    iter: Option<Box<dyn DatasetIter>>,
    /// The dataset it iterates (a restore replays it).
    dataset: Arc<dyn super::Dataset>,
    /// Elements (and element errors) handed out so far.
    produced: u64,
}

/// What `SerializeIterator` saves: where the iterator is in its dataset. A restore
/// makes a new iterator over the dataset the resource was initialized with, its
/// shuffles taking the saved seeds, and replays `produced` elements: the pipeline's
/// state is a function of them, for every deterministic dataset (which includes
/// shuffles; not a generator whose values change from run to run).
#[derive(Clone, PartialEq, prost::Message)]
struct IteratorState {
    #[prost(uint64, tag = "1")]
    produced: u64,
    #[prost(bool, tag = "2")]
    ended: bool,
    /// The random op seeds of its shuffles: nodes, and seed pairs (flattened).
    #[prost(string, repeated, tag = "3")]
    random_nodes: Vec<String>,
    #[prost(uint64, repeated, tag = "4")]
    random_seeds: Vec<u64>,
}

/// Whether a `next` result used up an element: one, or that element's error (not
/// the end, nor the caller's cancellation).
fn took_element(next: &Result<Option<super::Element>>) -> bool {
    match next {
        Ok(e) => e.is_some(),
        Err(e) => !is_cancellation(e),
    }
}

/// The magic that starts a serialized iterator state.
const STATE_MAGIC: &[u8] = b"ferroflow-iterator-state-1:";

/// TF's `IteratorResource`: the element signature it was made with and the
/// iterator it runs, if initialized.
pub(crate) struct IteratorResource {
    handle: String,
    dtypes: Vec<DType>,
    shapes: Vec<PartialShape>,
    state: Mutex<Option<Running>>,
    /// The current pipeline, apart from `state` so it can be cancelled while a
    /// `get_next` holds the state.
    pipeline: Mutex<Option<Arc<Pipeline>>>,
    /// Held by a one-shot iterator starting itself, so two runs never both start it.
    starting: Mutex<()>,
}

/// Iterators by string handle (weakly: a handle outlives nothing).
static HANDLES: LazyLock<Mutex<HashMap<String, Weak<IteratorResource>>>> = LazyLock::new(Default::default);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl Resource for IteratorResource {
    fn wake_blocked(&self) {
        if let Some(p) = self.pipeline.lock().as_ref() {
            p.cancel();
        }
    }
}

impl Drop for IteratorResource {
    fn drop(&mut self) {
        self.wake_blocked();
        HANDLES.lock().remove(&self.handle);
    }
}

impl IteratorResource {
    fn new(name: &str, dtypes: Vec<DType>, shapes: Vec<PartialShape>) -> Self {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        IteratorResource {
            handle: format!("ferroflow-iterator:{id}:{name}"),
            dtypes,
            shapes,
            state: Mutex::new(None),
            pipeline: Mutex::new(None),
            starting: Mutex::new(()),
        }
    }

    /// The state, locked; waits for another `get_next` as a blocked op waits (the
    /// run's cancellation and deadline end the wait).
    fn lock_state(&self, ctx: &OpContext<'_>) -> Result<parking_lot::MutexGuard<'_, Option<Running>>> {
        loop {
            if let Some(g) = self.state.try_lock_for(POLL) {
                return Ok(g);
            }
            super::check_wait(&ctx.wait)?;
        }
    }

    /// Starts iterating `dataset`, stopping (and dropping) the iteration before.
    fn initialize(&self, ctx: &OpContext<'_>, dataset: Arc<dyn super::Dataset>) -> Result<()> {
        let pipeline = Pipeline::new(ctx.env.intra_pool.clone());
        let iter = {
            let ictx = IterCtx { wait: ctx.wait, env: ctx.env, pipeline: &pipeline };
            Arc::clone(&dataset).make_iter(&ictx)?
        };
        self.install(ctx, Running { pipeline, iter: Some(iter), dataset, produced: 0 })
    }

    /// Makes `running` the iteration, stopping (and dropping) the one before.
    fn install(&self, ctx: &OpContext<'_>, running: Running) -> Result<()> {
        if let Some(old) = self.pipeline.lock().replace(Arc::clone(&running.pipeline)) {
            old.cancel();
        }
        let old = self.lock_state(ctx)?.replace(running);
        // Dropped outside the lock: stopping its threads may take a moment.
        drop(old);
        Ok(())
    }

    /// `SerializeIterator`: the iterator's position (see [`IteratorState`]).
    fn save(&self, ctx: &OpContext<'_>) -> Result<Vec<u8>> {
        let state = self.lock_state(ctx)?;
        let Some(running) = state.as_ref() else {
            ff_bail!(FailedPrecondition, "Cannot save an iterator that has not been initialized.");
        };
        let used = running.pipeline.random_seeds_used();
        let proto = IteratorState {
            produced: running.produced,
            ended: running.iter.is_none(),
            random_nodes: used.iter().map(|(n, _, _)| n.clone()).collect(),
            random_seeds: used.iter().flat_map(|&(_, a, b)| [a, b]).collect(),
        };
        let mut out = STATE_MAGIC.to_vec();
        prost::Message::encode(&proto, &mut out).map_err(|e| Error::new(Code::Internal, e.to_string()))?;
        Ok(out)
    }

    /// `DeserializeIterator`: replays the saved position over the dataset the
    /// iterator was initialized with.
    fn restore(&self, ctx: &OpContext<'_>, bytes: &[u8]) -> Result<()> {
        let proto = bytes
            .strip_prefix(STATE_MAGIC)
            .and_then(|b| <IteratorState as prost::Message>::decode(b).ok())
            .filter(|p| p.random_seeds.len() == 2 * p.random_nodes.len())
            .ok_or_else(|| Error::new(Code::DataLoss, "the saved iterator state is not ferroflow's or is damaged"))?;
        let dataset = match self.lock_state(ctx)?.as_ref() {
            Some(running) => Arc::clone(&running.dataset),
            None => ff_bail!(
                FailedPrecondition,
                "Restoring an iterator needs its dataset: run the iterator's initializer before restoring it."
            ),
        };
        let saved = proto
            .random_nodes
            .iter()
            .zip(proto.random_seeds.chunks_exact(2))
            .map(|(n, p)| (n.clone(), p[0], p[1]))
            .collect();
        let pipeline = Pipeline::restoring(ctx.env.intra_pool.clone(), saved);
        let mut iter = {
            let ictx = IterCtx { wait: ctx.wait, env: ctx.env, pipeline: &pipeline };
            let mut iter = Arc::clone(&dataset).make_iter(&ictx)?;
            for _ in 0..proto.produced {
                // An element's error, handed out before, is replayed, not raised.
                match iter.next(&ictx) {
                    Ok(None) => break,
                    Err(e) if is_cancellation(&e) => return Err(e),
                    _ => {}
                }
            }
            Some(iter)
        };
        if proto.ended {
            iter = None;
        }
        self.install(ctx, Running { pipeline, iter, dataset, produced: proto.produced })
    }

    /// The next element, checked against the iterator's signature.
    fn get_next(&self, ctx: &OpContext<'_>) -> Result<Vec<Tensor>> {
        let mut state = self.lock_state(ctx)?;
        let Some(running) = state.as_mut() else {
            ff_bail!(
                FailedPrecondition,
                "GetNext() failed because the iterator has not been initialized. Ensure that you have run the \
                 initializer operation for this iterator before getting the next element."
            );
        };
        let Some(iter) = running.iter.as_mut() else { return Err(end_of_sequence()) };
        let ictx = IterCtx { wait: ctx.wait, env: ctx.env, pipeline: &running.pipeline };
        let next = iter.next(&ictx);
        running.produced += u64::from(took_element(&next));
        match next? {
            Some(element) => {
                self.check(&element)?;
                Ok(element)
            }
            None => {
                let ended = running.iter.take();
                drop(state);
                drop(ended);
                Err(end_of_sequence())
            }
        }
    }

    fn check(&self, element: &[Tensor]) -> Result<()> {
        if element.len() != self.dtypes.len() {
            ff_bail!(
                InvalidArgument,
                "Number of components does not match: expected {} types but got {}.",
                self.dtypes.len(),
                element.len()
            );
        }
        for (i, (t, (&want, shape))) in element.iter().zip(self.dtypes.iter().zip(&self.shapes)).enumerate() {
            if t.dtype() != want {
                ff_bail!(
                    InvalidArgument,
                    "Data type mismatch at component {i}: expected {} but got {}.",
                    want.name(),
                    t.dtype().name()
                );
            }
            if !shape.is_compatible_with(t.shape()) {
                ff_bail!(
                    InvalidArgument,
                    "Incompatible shapes at component {i}: expected {shape} but got {}.",
                    crate::shape::fmt_shape(t.shape())
                );
            }
        }
        Ok(())
    }
}

/// The signature attrs of an iterator node.
fn signature(b: &KernelBuild<'_>) -> Result<(Vec<DType>, Vec<PartialShape>)> {
    let dtypes: Vec<DType> = b.node.required_attr("output_types")?;
    let mut shapes: Vec<PartialShape> = b.node.attr_or("output_shapes", Vec::new())?;
    if shapes.is_empty() {
        shapes = vec![PartialShape::unknown(); dtypes.len()];
    }
    if shapes.len() != dtypes.len() {
        ff_bail!(
            InvalidArgument,
            "{} has {} output_types but {} output_shapes",
            b.node.name,
            dtypes.len(),
            shapes.len()
        );
    }
    Ok((dtypes, shapes))
}

/// The session's iterator resource that node `b` names (`shared_name`, else the
/// node's name, in `container`).
fn resource(b: &KernelBuild<'_>) -> Result<Arc<IteratorResource>> {
    let shared = b.node.attr_or::<String>("shared_name", String::new())?;
    let name = if shared.is_empty() { b.node.name.clone() } else { shared };
    let container = b.node.attr_or::<String>("container", String::new())?;
    let (dtypes, shapes) = signature(b)?;
    let r = b.resources.lookup_or_create(&container, &name, || {
        let r = IteratorResource::new(&name, dtypes.clone(), shapes.clone());
        Ok(r)
    })?;
    if r.dtypes != dtypes {
        ff_bail!(InvalidArgument, "Shared iterator '{name}' has another element signature");
    }
    HANDLES.lock().entry(r.handle.clone()).or_insert_with(|| Arc::downgrade(&r));
    Ok(r)
}

struct HandleKernel(Arc<IteratorResource>);

impl OpKernel for HandleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.set_resource_output(0, Arc::clone(&self.0) as Arc<_>);
        Ok(())
    }
}

/// `IteratorV2` / `Iterator`: the handle of the session's iterator resource.
pub(crate) fn iterator_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(HandleKernel(resource(b)?)))
}

/// `MakeIterator(dataset, iterator)`.
pub(crate) fn make_iterator_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let dataset = dataset_input(ctx, 0)?;
        let it = ctx.resource_input::<IteratorResource>(1)?;
        it.initialize(ctx, dataset)
    })
}

/// `IteratorGetNext` / `IteratorGetNextSync`.
pub(crate) fn get_next_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let it = ctx.resource_input::<IteratorResource>(0)?;
        for (i, t) in it.get_next(ctx)?.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    })
}

/// `IteratorToStringHandle`.
pub(crate) fn to_string_handle_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let it = ctx.resource_input::<IteratorResource>(0)?;
        ctx.set_output(0, Tensor::from_strings(&[], vec![it.handle.clone().into_bytes()])?);
        Ok(())
    })
}

struct FromStringHandleKernel {
    dtypes: Vec<DType>,
    shapes: Vec<PartialShape>,
}

/// `IteratorFromStringHandleV2` / `IteratorFromStringHandle`: the iterator a string
/// handle names, whose signature must be the node's.
pub(crate) fn from_string_handle_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let dtypes: Vec<DType> = b.node.attr_or("output_types", Vec::new())?;
    let shapes: Vec<PartialShape> = b.node.attr_or("output_shapes", Vec::new())?;
    Ok(Box::new(FromStringHandleKernel { dtypes, shapes }))
}

impl OpKernel for FromStringHandleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0)?;
        let [handle] = t.as_strings()? else {
            ff_bail!(InvalidArgument, "string_handle must be a scalar");
        };
        let handle = String::from_utf8_lossy(handle).into_owned();
        let it = HANDLES.lock().get(&handle).and_then(Weak::upgrade).ok_or_else(|| {
            Error::invalid_argument(format!("Could not parse string handle '{handle}' as an iterator of this process"))
        })?;
        if !self.dtypes.is_empty() && it.dtypes != self.dtypes {
            let names = |d: &[DType]| d.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ");
            ff_bail!(
                InvalidArgument,
                "Expected output_types [{}] but the iterator has [{}]",
                names(&self.dtypes),
                names(&it.dtypes)
            );
        }
        if !self.shapes.is_empty() {
            for (i, (want, have)) in self.shapes.iter().zip(&it.shapes).enumerate() {
                if want.merge(have).is_err() {
                    ff_bail!(InvalidArgument, "Incompatible shapes at component {i}: expected {want} but got {have}.");
                }
            }
        }
        ctx.set_resource_output(0, it as Arc<_>);
        Ok(())
    }
}

/// `OneShotIterator`: an iterator that makes its dataset (the sub-graph ending at
/// the tensor its `_dataset` attr names, run once) the first time it runs.
struct OneShotKernel {
    resource: Arc<IteratorResource>,
    dataset: Box<dyn SubPlan>,
}

pub(crate) fn one_shot_iterator_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let name: Vec<u8> = b.node.required_attr("_dataset")?;
    let fetch = parse_tensor(b.graph, &name)?;
    let dataset = compile_on(b, b.devices.host_only(), &[], &[fetch])?;
    Ok(Box::new(OneShotKernel { resource: resource(b)?, dataset }))
}

impl OpKernel for OneShotKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if self.resource.lock_state(ctx)?.is_none() {
            // One run starts it; others racing here wait for it, then find it started.
            let _starting = self.resource.starting.lock();
            if self.resource.lock_state(ctx)?.is_none() {
                let out = self.dataset.run(Vec::new(), ctx.env, ctx.wait)?;
                let [value] = out.as_slice() else {
                    ff_bail!(Internal, "a one-shot iterator's dataset sub-plan gives one value");
                };
                self.resource.initialize(ctx, dataset_of(value)?)?;
            }
        }
        ctx.set_resource_output(0, Arc::clone(&self.resource) as Arc<_>);
        Ok(())
    }
}

/// `SerializeIterator(resource_handle)`: the iterator's state as a string scalar.
pub(crate) fn serialize_iterator_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let it = ctx.resource_input::<IteratorResource>(0)?;
        let state = it.save(ctx)?;
        ctx.set_output(0, Tensor::from_strings(&[], vec![state])?);
        Ok(())
    })
}

/// `DeserializeIterator(resource_handle, serialized)`: restores a saved state.
pub(crate) fn deserialize_iterator_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let it = ctx.resource_input::<IteratorResource>(0)?;
        let t = ctx.input(1)?;
        let [state] = t.as_strings()? else {
            ff_bail!(InvalidArgument, "serialized iterator state must be a string scalar");
        };
        it.restore(ctx, state)
    })
}
