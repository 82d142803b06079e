//! Conditional accumulators: TF's `ConditionalAccumulator` and
//! `SparseConditionalAccumulator` as session resources. Gradients applied with a local
//! step older than the accumulator's global step are dropped (stale); a take waits
//! until `num_required` gradients arrived, returns their sum or mean, resets the
//! accumulator and increments its global step. A blocked take honours the run's
//! deadline, cancellation, interrupts and session close, as queue dequeues do.
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::framework::cancel::{Wake, cancelled};
use crate::framework::resource::Resource;
use crate::framework::step::Wait;
use crate::shape::{PartialShape, fmt_shape};
use crate::tensor::Tensor;

/// How accumulated gradients are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// The mean (dense: over gradients; sparse: per index, over those that had it).
    Mean,
    /// The sum.
    Sum,
}

/// What an accumulator holds.
#[derive(Clone, Debug)]
pub struct AccumulatorSpec {
    /// The op's name.
    pub name: String,
    /// Gradient element type (float16 is not supported, float32 and float64 are).
    pub dtype: DType,
    /// The declared gradient shape.
    pub shape: PartialShape,
    /// MEAN or SUM.
    pub reduction: Reduction,
    /// Whether gradients are `IndexedSlices`.
    pub sparse: bool,
}

/// A sparse gradient: indices, values and (if known) the dense shape.
pub struct SparseGrad {
    /// Row indices, `[n]`.
    pub indices: Vec<i64>,
    /// Values, `[n, ...]`.
    pub values: Tensor,
    /// The dense shape, when the gradient knows it.
    pub shape: Option<Vec<i64>>,
}

enum Accum {
    Empty,
    Dense(Tensor),
    // Indices (ascending where the inputs were), values and per-row counts.
    Sparse(Vec<i64>, Tensor, Vec<i64>),
}

struct State {
    global_step: i64,
    counter: i64,
    accum: Accum,
}

/// A conditional accumulator resource.
pub struct Accumulator {
    spec: AccumulatorSpec,
    state: Mutex<State>,
    cv: Condvar,
}

impl Resource for Accumulator {
    fn wake_blocked(&self) {
        self.wake_all();
    }
}

impl Wake for Accumulator {
    fn wake(&self) {
        self.wake_all();
    }
}

/// Float element arithmetic the accumulator needs.
trait Real: crate::dtype::Element + std::ops::AddAssign + std::ops::Div<Output = Self> {
    fn from_count(n: i64) -> Self;
}
impl Real for f32 {
    #[allow(clippy::cast_precision_loss)]
    fn from_count(n: i64) -> Self {
        n as f32
    }
}
impl Real for f64 {
    #[allow(clippy::cast_precision_loss)]
    fn from_count(n: i64) -> Self {
        n as f64
    }
}

macro_rules! dispatch_real {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            DType::Float32 => {
                type $T = f32;
                $body
            }
            DType::Float64 => {
                type $T = f64;
                $body
            }
            d => Err(Error::invalid_argument(format!("accumulators of {d} are not supported (float32, float64)"))),
        }
    };
}

fn add_into<T: Real>(acc: &mut Tensor, g: &Tensor) -> Result<()> {
    let src = g.as_slice::<T>()?;
    for (a, &b) in acc.as_mut_slice::<T>()?.iter_mut().zip(src) {
        *a += b;
    }
    Ok(())
}

fn divide<T: Real>(t: &mut Tensor, n: i64) -> Result<()> {
    let d = T::from_count(n);
    for a in t.as_mut_slice::<T>()? {
        *a = *a / d;
    }
    Ok(())
}

/// Divides each row of `t` by its own count.
fn divide_rows<T: Real>(t: &mut Tensor, counts: &[i64]) -> Result<()> {
    let rows = counts.len();
    let s = t.as_mut_slice::<T>()?;
    let width = s.len().checked_div(rows).unwrap_or(0);
    if width == 0 {
        return Ok(());
    }
    for (row, &c) in s.chunks_exact_mut(width).zip(counts) {
        let d = T::from_count(c);
        for a in row {
            *a = *a / d;
        }
    }
    Ok(())
}

impl Accumulator {
    /// A new, empty accumulator at global step 0.
    pub fn new(spec: AccumulatorSpec) -> Result<Accumulator> {
        if !matches!(spec.dtype, DType::Float32 | DType::Float64) {
            ff_bail!(InvalidArgument, "accumulators of {} are not supported (float32, float64)", spec.dtype);
        }
        Ok(Accumulator {
            spec,
            state: Mutex::new(State { global_step: 0, counter: 0, accum: Accum::Empty }),
            cv: Condvar::new(),
        })
    }

    /// What the accumulator holds.
    pub fn spec(&self) -> &AccumulatorSpec {
        &self.spec
    }

    /// Gradients accumulated since the last take.
    pub fn num_accumulated(&self) -> i64 {
        self.state.lock().counter
    }

    /// The accumulator's global step.
    pub fn global_step(&self) -> i64 {
        self.state.lock().global_step
    }

    /// TF's `SetGlobalStep`: a smaller step is allowed (TF only logs a warning).
    pub fn set_global_step(&self, step: i64) {
        self.state.lock().global_step = step;
    }

    fn check_dtype(&self, got: DType) -> Result<()> {
        if got != self.spec.dtype {
            ff_bail!(InvalidArgument, "Expected dtype {}, got {}", self.spec.dtype, got);
        }
        Ok(())
    }

    /// Applies a dense gradient; a stale one (`local_step` < global step) is dropped.
    pub fn apply_dense(&self, local_step: i64, grad: &Tensor) -> Result<()> {
        self.check_dtype(grad.dtype())?;
        let mut st = self.state.lock();
        if local_step < st.global_step {
            return Ok(());
        }
        if !self.spec.shape.is_compatible_with(grad.shape()) {
            ff_bail!(InvalidArgument, "Shape mismatch: expected {}, got {}", self.spec.shape, fmt_shape(grad.shape()));
        }
        match &mut st.accum {
            Accum::Dense(acc) => {
                if acc.shape() != grad.shape() {
                    ff_bail!(
                        InvalidArgument,
                        "Shape mismatch: expected {}, got {}",
                        fmt_shape(acc.shape()),
                        fmt_shape(grad.shape())
                    );
                }
                dispatch_real!(self.spec.dtype, T => add_into::<T>(acc, grad))?;
            }
            _ => st.accum = Accum::Dense(Tensor::from_bytes(grad.dtype(), grad.shape(), grad.as_bytes()?)?),
        }
        st.counter += 1;
        self.cv.notify_all();
        Ok(())
    }

    fn validate_sparse(&self, st: &State, g: &SparseGrad) -> Result<()> {
        let declared: Vec<i64> = match self.spec.shape.dims() {
            Some(d) => d.iter().map(|x| x.map_or(-1, |v| i64::try_from(v).unwrap_or(i64::MAX))).collect(),
            None => Vec::new(),
        };
        let known = self.spec.shape.dims().is_some();
        if let Some(shape) = &g.shape
            && known
        {
            if declared.len() > shape.len() {
                ff_bail!(
                    InvalidArgument,
                    "Shape mismatch: expected shape rank at least {}, got {}",
                    declared.len(),
                    shape.len()
                );
            }
            for (i, (&d, &s)) in declared.iter().zip(shape).enumerate() {
                if d != -1 && d != s {
                    ff_bail!(InvalidArgument, "Shape mismatch: expected shape dim {i} to be {d}, got {s}");
                }
            }
        }
        if let Some(&d0) = declared.first()
            && d0 != -1
        {
            for (i, &ix) in g.indices.iter().enumerate() {
                if ix >= d0 {
                    ff_bail!(
                        InvalidArgument,
                        "Shape mismatch: index of slice {i} exceeded limits of shape; index is {ix} exceeded {d0}"
                    );
                }
            }
        }
        let vshape = g.values.shape();
        if let Accum::Sparse(_, acc, _) = &st.accum {
            let ashape = acc.shape();
            if ashape.len() != vshape.len() {
                ff_bail!(
                    InvalidArgument,
                    "Shape mismatch: expected values rank {}, got {}",
                    ashape.len(),
                    vshape.len()
                );
            }
            for (i, (&a, &v)) in ashape.iter().zip(vshape).enumerate().skip(1) {
                if a != v {
                    ff_bail!(InvalidArgument, "Shape mismatch: expected values dim {i} to be {a}, got {v}");
                }
            }
        } else if known {
            if declared.len() > vshape.len() {
                ff_bail!(
                    InvalidArgument,
                    "Shape mismatch: expected values rank at least {}, got {}",
                    declared.len(),
                    vshape.len()
                );
            }
            for (i, (&d, &v)) in declared.iter().zip(vshape).enumerate().skip(1) {
                if d != -1 && usize::try_from(d).ok() != Some(v) {
                    ff_bail!(InvalidArgument, "Shape mismatch: expected values dim {i} to be {d}, got {v}");
                }
            }
        }
        Ok(())
    }

    /// Applies an `IndexedSlices` gradient; a stale one is dropped.
    pub fn apply_sparse(&self, local_step: i64, g: &SparseGrad) -> Result<()> {
        self.check_dtype(g.values.dtype())?;
        if g.values.shape().first().copied() != Some(g.indices.len()) {
            ff_bail!(
                InvalidArgument,
                "Shape mismatch: {} indices for values of shape {}",
                g.indices.len(),
                fmt_shape(g.values.shape())
            );
        }
        let mut st = self.state.lock();
        if local_step < st.global_step {
            return Ok(());
        }
        self.validate_sparse(&st, g)?;
        let accum = std::mem::replace(&mut st.accum, Accum::Empty);
        let merged = match accum {
            Accum::Sparse(idx, vals, counts) => {
                match dispatch_real!(self.spec.dtype, T => merge::<T>(&idx, &vals, &counts, g)) {
                    Ok(m) => m,
                    Err(e) => {
                        st.accum = Accum::Sparse(idx, vals, counts);
                        return Err(e);
                    }
                }
            }
            _ => {
                let values = Tensor::from_bytes(g.values.dtype(), g.values.shape(), g.values.as_bytes()?)?;
                Accum::Sparse(g.indices.clone(), values, vec![1; g.indices.len()])
            }
        };
        st.accum = merged;
        st.counter += 1;
        self.cv.notify_all();
        Ok(())
    }

    /// Waits until `num_required` gradients arrived, then takes their reduction,
    /// resets the accumulator and increments its global step.
    fn take(self: &Arc<Self>, num_required: i32, wait: Wait<'_>) -> Result<Accum> {
        if num_required <= 0 {
            ff_bail!(InvalidArgument, "Argument num_required must be positive, but was {num_required}");
        }
        let mut st = self.state.lock();
        loop {
            if st.counter >= i64::from(num_required) {
                st.global_step += 1;
                let counter = std::mem::replace(&mut st.counter, 0);
                let mut accum = std::mem::replace(&mut st.accum, Accum::Empty);
                if self.spec.reduction == Reduction::Mean {
                    match &mut accum {
                        Accum::Dense(t) => dispatch_real!(self.spec.dtype, T => divide::<T>(t, counter))?,
                        Accum::Sparse(_, t, counts) => {
                            dispatch_real!(self.spec.dtype, T => divide_rows::<T>(t, counts))?;
                        }
                        Accum::Empty => {}
                    }
                }
                return Ok(accum);
            }
            if wait.nonblocking {
                return Err(Error::would_block());
            }
            self.block(&mut st, wait)?;
        }
    }

    /// Takes the dense reduction (see [`Accumulator::take`]).
    pub fn take_dense(self: &Arc<Self>, num_required: i32, wait: Wait<'_>) -> Result<Tensor> {
        match self.take(num_required, wait)? {
            Accum::Dense(t) => Ok(t),
            _ => Err(Error::new(Code::Internal, "dense accumulator held no dense gradient")),
        }
    }

    /// Takes the sparse reduction: indices, values and the dense shape (its first
    /// dimension the declared one, -1 if unknown).
    pub fn take_sparse(self: &Arc<Self>, num_required: i32, wait: Wait<'_>) -> Result<(Tensor, Tensor, Tensor)> {
        let Accum::Sparse(idx, vals, _) = self.take(num_required, wait)? else {
            return Err(Error::new(Code::Internal, "sparse accumulator held no sparse gradient"));
        };
        let d0 = self
            .spec
            .shape
            .dims()
            .and_then(|d| d.first().copied())
            .map_or(-1, |d| d.map_or(-1, |v| i64::try_from(v).unwrap_or(i64::MAX)));
        let mut shape = vec![d0];
        for &d in vals.shape().iter().skip(1) {
            shape.push(i64::try_from(d).unwrap_or(i64::MAX));
        }
        let n = idx.len();
        Ok((Tensor::from_slice(&[n], &idx)?, vals, Tensor::from_slice(&[shape.len()], &shape)?))
    }

    fn block(self: &Arc<Self>, st: &mut MutexGuard<'_, State>, wait: Wait<'_>) -> Result<()> {
        let _registered = wait.run.register(Arc::clone(self) as Arc<dyn Wake>);
        if wait.closed.load(Ordering::Acquire) || wait.run.is_cancelled() {
            return Err(cancelled("TakeGrad"));
        }
        match wait.run.wake_time(wait.deadline) {
            Some(t) => {
                if self.cv.wait_until(st, t).timed_out() {
                    if wait.deadline.is_some_and(|d| Instant::now() >= d) {
                        return Err(Error::new(Code::DeadlineExceeded, "Timed out waiting for notification"));
                    }
                    MutexGuard::unlocked(st, || wait.run.poll_interrupt())?;
                }
            }
            None => self.cv.wait(st),
        }
        Ok(())
    }

    /// Wakes every blocked take to re-check its cancellation (session close).
    pub fn wake_all(&self) {
        let _st = self.state.lock();
        self.cv.notify_all();
    }
}

/// TF's sorted merge of the accumulated rows with a new gradient's (both assumed
/// ascending): equal indices are summed and their counts incremented.
fn merge<T: Real>(idx: &[i64], vals: &Tensor, counts: &[i64], g: &SparseGrad) -> Result<Accum> {
    let width: usize = vals.shape().iter().skip(1).product();
    let a = vals.as_slice::<T>()?;
    let b = g.values.as_slice::<T>()?;
    let (mut oi, mut ov, mut oc) = (Vec::new(), Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < idx.len() || j < g.indices.len() {
        let take_a = j >= g.indices.len() || (i < idx.len() && idx[i] < g.indices[j]);
        let take_b = i >= idx.len() || (j < g.indices.len() && g.indices[j] < idx[i]);
        if take_a {
            oi.push(idx[i]);
            ov.extend_from_slice(&a[i * width..(i + 1) * width]);
            oc.push(counts[i]);
            i += 1;
        } else if take_b {
            oi.push(g.indices[j]);
            ov.extend_from_slice(&b[j * width..(j + 1) * width]);
            oc.push(1);
            j += 1;
        } else {
            oi.push(idx[i]);
            let start = ov.len();
            ov.extend_from_slice(&a[i * width..(i + 1) * width]);
            for (x, &y) in ov[start..].iter_mut().zip(&b[j * width..(j + 1) * width]) {
                *x += y;
            }
            oc.push(counts[i] + 1);
            i += 1;
            j += 1;
        }
    }
    let mut shape = vals.shape().to_vec();
    shape[0] = oi.len();
    Ok(Accum::Sparse(oi, Tensor::from_slice(&shape, &ov)?, oc))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use super::*;
    use crate::framework::cancel::RunCancellation;

    static NEVER: AtomicBool = AtomicBool::new(false);
    static NO_RUN: std::sync::LazyLock<RunCancellation<'static>> =
        std::sync::LazyLock::new(|| RunCancellation::new(None));
    fn forever() -> Wait<'static> {
        Wait {
            deadline: None,
            closed: &NEVER,
            run: &NO_RUN,
            nonblocking: false,
            rendezvous: None,
            loops: Default::default(),
        }
    }
    fn soon() -> Wait<'static> {
        Wait { deadline: Some(Instant::now() + Duration::from_millis(50)), ..forever() }
    }
    fn acc(reduction: Reduction, sparse: bool) -> Arc<Accumulator> {
        let shape = if sparse { PartialShape::unknown() } else { PartialShape::known(&[2]) };
        let spec = AccumulatorSpec { name: "a".into(), dtype: DType::Float32, shape, reduction, sparse };
        Arc::new(Accumulator::new(spec).unwrap())
    }
    fn t(v: &[f32]) -> Tensor {
        Tensor::from_slice(&[v.len()], v).unwrap()
    }

    #[test]
    fn mean_sum_and_stale_gradients() {
        for (reduction, want) in [(Reduction::Mean, [2f32, 3.]), (Reduction::Sum, [4., 6.])] {
            let a = acc(reduction, false);
            a.set_global_step(1);
            a.apply_dense(0, &t(&[100., 100.])).unwrap(); // stale: dropped
            a.apply_dense(1, &t(&[1., 2.])).unwrap();
            a.apply_dense(5, &t(&[3., 4.])).unwrap();
            assert_eq!(a.num_accumulated(), 2);
            let e = a.apply_dense(1, &t(&[1., 2., 3.])).unwrap_err();
            assert_eq!(e.message, "Shape mismatch: expected [2], got [3]");
            let out = a.take_dense(2, forever()).unwrap();
            assert_eq!(out.as_slice::<f32>().unwrap(), &want);
            assert_eq!((a.num_accumulated(), a.global_step()), (0, 2));
        }
    }

    #[test]
    fn take_waits_until_enough_gradients_or_the_deadline() {
        let a = acc(Reduction::Mean, false);
        assert_eq!(a.take_dense(0, forever()).unwrap_err().code, Code::InvalidArgument);
        a.apply_dense(0, &t(&[1., 1.])).unwrap();
        assert_eq!(a.take_dense(2, soon()).unwrap_err().code, Code::DeadlineExceeded);
        let nonblocking = Wait { nonblocking: true, ..forever() };
        assert!(a.take_dense(2, nonblocking).is_err());
        let b = Arc::clone(&a);
        let taker = std::thread::spawn(move || b.take_dense(2, forever()));
        std::thread::sleep(Duration::from_millis(50));
        a.apply_dense(0, &t(&[3., 3.])).unwrap();
        let out = taker.join().unwrap().unwrap();
        assert_eq!(out.as_slice::<f32>().unwrap(), &[2., 2.]);
    }

    #[test]
    fn sparse_rows_are_merged_and_averaged_per_row() {
        let a = acc(Reduction::Mean, true);
        let g = |indices: Vec<i64>, v: &[f32]| SparseGrad {
            values: Tensor::from_slice(&[indices.len(), 1], v).unwrap(),
            indices,
            shape: None,
        };
        a.apply_sparse(0, &g(vec![0, 2], &[1., 2.])).unwrap();
        a.apply_sparse(0, &g(vec![2, 3], &[4., 5.])).unwrap();
        let (i, v, s) = a.take_sparse(2, forever()).unwrap();
        assert_eq!(i.as_slice::<i64>().unwrap(), &[0, 2, 3]);
        assert_eq!(v.as_slice::<f32>().unwrap(), &[1., 3., 5.]);
        assert_eq!(s.as_slice::<i64>().unwrap(), &[-1, 1]);
    }
}
