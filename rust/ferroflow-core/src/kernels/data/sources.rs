//! Datasets made from tensors and functions: `TensorDataset` (`from_tensors`),
//! `TensorSliceDataset` (`from_tensor_slices`), `RangeDataset`, `ZipDataset`,
//! `ConcatenateDataset` and `GeneratorDataset` (`from_generator`).
use std::sync::Arc;

use super::function::{Function, FunctionPlan};
use super::{Dataset, DatasetIter, Element, IterCtx, dataset_input, set_dataset_output};
use crate::error::{Code, Result};
use crate::kernels::{KernelBuild, OpContext, OpKernel, stateless};
use crate::tensor::Tensor;

/// Row `i` of `t` along dimension 0 (a view of a dense tensor; a copy of strings).
pub(crate) fn row(t: &Tensor, i: usize) -> Result<Tensor> {
    if t.dtype() == crate::dtype::DType::String {
        #[allow(clippy::cast_possible_wrap)]
        return crate::kernels::array::gather(t, &[i as i64], &[], 0);
    }
    t.row_view(i)
}

/// The inputs of a dataset kernel from `first` on, as tensors.
fn tensor_inputs(ctx: &OpContext<'_>, first: usize) -> Result<Vec<Tensor>> {
    (first..ctx.num_inputs()).map(|i| ctx.input(i).cloned()).collect()
}

// ---- from_tensors ----

struct TensorDataset(Element);

impl Dataset for TensorDataset {
    fn make_iter(self: Arc<Self>, _: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        Ok(Box::new(Some(self.0.clone())))
    }
}

impl DatasetIter for Option<Element> {
    fn next(&mut self, _: &IterCtx<'_>) -> Result<Option<Element>> {
        Ok(self.take())
    }
}

pub(crate) fn tensor_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let components = tensor_inputs(ctx, 0)?;
        set_dataset_output(ctx, TensorDataset(components));
        Ok(())
    })
}

// ---- from_tensor_slices ----

struct TensorSliceDataset {
    components: Element,
    rows: usize,
}

struct SliceIter {
    dataset: Arc<TensorSliceDataset>,
    next: usize,
}

impl Dataset for TensorSliceDataset {
    fn make_iter(self: Arc<Self>, _: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        Ok(Box::new(SliceIter { dataset: self, next: 0 }))
    }
}

impl DatasetIter for SliceIter {
    fn next(&mut self, _: &IterCtx<'_>) -> Result<Option<Element>> {
        if self.next >= self.dataset.rows {
            return Ok(None);
        }
        let i = self.next;
        self.next += 1;
        self.dataset.components.iter().map(|t| row(t, i)).collect::<Result<Vec<_>>>().map(Some)
    }
}

pub(crate) fn tensor_slice_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let components = tensor_inputs(ctx, 0)?;
        let mut rows = None;
        for t in &components {
            let Some(&n) = t.shape().first() else {
                ff_bail!(InvalidArgument, "All components must be at least 1-dimensional");
            };
            if rows.is_some_and(|r| r != n) {
                ff_bail!(InvalidArgument, "All components must have the same size in the 0th dimension");
            }
            rows = Some(n);
        }
        let rows = rows.unwrap_or(0);
        set_dataset_output(ctx, TensorSliceDataset { components, rows });
        Ok(())
    })
}

// ---- range ----

struct RangeDataset {
    start: i64,
    stop: i64,
    step: i64,
}

struct RangeIter {
    next: i64,
    stop: i64,
    step: i64,
}

impl Dataset for RangeDataset {
    fn make_iter(self: Arc<Self>, _: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        Ok(Box::new(RangeIter { next: self.start, stop: self.stop, step: self.step }))
    }
}

impl DatasetIter for RangeIter {
    fn next(&mut self, _: &IterCtx<'_>) -> Result<Option<Element>> {
        let more = if self.step > 0 { self.next < self.stop } else { self.next > self.stop };
        if !more {
            return Ok(None);
        }
        let v = self.next;
        // Past the last value the iterator is over, also where the step overflows.
        self.next = v.checked_add(self.step).unwrap_or(self.stop);
        Ok(Some(vec![Tensor::scalar(v)]))
    }
}

pub(crate) fn range_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let arg = |i| ctx.input(i).and_then(|t: &Tensor| t.scalar_value::<i64>());
        let (start, stop, step) = (arg(0)?, arg(1)?, arg(2)?);
        if step == 0 {
            ff_bail!(InvalidArgument, "step must be a non-zero integer.");
        }
        set_dataset_output(ctx, RangeDataset { start, stop, step });
        Ok(())
    })
}

// ---- zip ----

struct ZipDataset(Vec<Arc<dyn Dataset>>);

struct ZipIter(Option<Vec<Box<dyn DatasetIter>>>);

impl Dataset for ZipDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        let iters = self.0.iter().map(|d| Arc::clone(d).make_iter(ctx)).collect::<Result<Vec<_>>>()?;
        Ok(Box::new(ZipIter(Some(iters))))
    }
}

impl DatasetIter for ZipIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        let Some(iters) = &mut self.0 else { return Ok(None) };
        let mut out = Vec::new();
        for it in iters.iter_mut() {
            match it.next(ctx)? {
                Some(e) => out.extend(e),
                None => {
                    self.0 = None;
                    return Ok(None);
                }
            }
        }
        Ok(Some(out))
    }
}

pub(crate) fn zip_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let inputs = (0..ctx.num_inputs()).map(|i| dataset_input(ctx, i)).collect::<Result<Vec<_>>>()?;
        set_dataset_output(ctx, ZipDataset(inputs));
        Ok(())
    })
}

// ---- concatenate ----

struct ConcatenateDataset(Arc<dyn Dataset>, Arc<dyn Dataset>);

struct ConcatenateIter {
    dataset: Arc<ConcatenateDataset>,
    current: Option<Box<dyn DatasetIter>>,
    on_second: bool,
}

impl Dataset for ConcatenateDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        let first = Arc::clone(&self.0).make_iter(ctx)?;
        Ok(Box::new(ConcatenateIter { dataset: self, current: Some(first), on_second: false }))
    }
}

impl DatasetIter for ConcatenateIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        while let Some(it) = &mut self.current {
            if let Some(e) = it.next(ctx)? {
                return Ok(Some(e));
            }
            self.current = if self.on_second { None } else { Some(Arc::clone(&self.dataset.1).make_iter(ctx)?) };
            self.on_second = true;
        }
        Ok(None)
    }
}

pub(crate) fn concatenate_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let (a, b) = (dataset_input(ctx, 0)?, dataset_input(ctx, 1)?);
        set_dataset_output(ctx, ConcatenateDataset(a, b));
        Ok(())
    })
}

// ---- from_generator ----

/// TF's `GeneratorDataset`: `init_func` makes a state, `next_func` turns it into
/// elements until it fails with `OutOfRange`, and `finalize_func` ends it.
struct GeneratorDataset {
    init: Arc<Function>,
    next: Arc<Function>,
    finalize: Arc<Function>,
}

struct GeneratorIter {
    dataset: Arc<GeneratorDataset>,
    /// The state `init_func` made, until `finalize_func` ran.
    state: Option<Element>,
    done: bool,
}

impl Dataset for GeneratorDataset {
    fn make_iter(self: Arc<Self>, _: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        Ok(Box::new(GeneratorIter { dataset: self, state: None, done: false }))
    }
}

impl DatasetIter for GeneratorIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        if self.done {
            return Ok(None);
        }
        let state = match &self.state {
            Some(s) => s.clone(),
            None => {
                let s = self.dataset.init.call(Vec::new(), ctx)?;
                self.state = Some(s.clone());
                s
            }
        };
        match self.dataset.next.call(state.clone(), ctx) {
            Err(e) if e.code == Code::OutOfRange => {
                self.done = true;
                self.state = None;
                self.dataset.finalize.call(state, ctx)?;
                Ok(None)
            }
            r => r.map(Some),
        }
    }
}

/// Inputs: the captures of `init_func`, `next_func` and `finalize_func`, in turn
/// (as many as the `T<f>_args` attrs list).
struct GeneratorKernel {
    functions: [FunctionPlan; 3],
}

pub(crate) fn generator_dataset(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let plan = |f: &str| -> Result<FunctionPlan> {
        let n = b.node.attr_or::<Vec<crate::dtype::DType>>(&format!("T{f}_args"), Vec::new())?.len();
        FunctionPlan::compile(b, f, n)
    };
    Ok(Box::new(GeneratorKernel { functions: [plan("init_func")?, plan("next_func")?, plan("finalize_func")?] }))
}

impl OpKernel for GeneratorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut first = 0;
        let mut bound = Vec::with_capacity(3);
        for f in &self.functions {
            bound.push(f.bind(ctx, first)?);
            first += f.captures();
        }
        let [init, next, finalize]: [Arc<Function>; 3] =
            bound.try_into().map_err(|_| crate::error::Error::new(Code::Internal, "three functions"))?;
        set_dataset_output(ctx, GeneratorDataset { init, next, finalize });
        Ok(())
    }
}
