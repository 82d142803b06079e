//! TF-1.x's `TensorArray` (`TensorArrayV3` and the ops on its handle): a list of
//! tensors of one dtype that lives as long as the run that made it holds its handle.
//! A write keeps the written tensor itself (no copy, O(1)); a read hands it back and,
//! with `clear_after_read`, lets it go. Every invalid use is TF's error, with TF's
//! message: writing an index twice, an index outside a fixed-size array, reading a
//! cleared element or an unwritten one whose shape is unknown, elements of different
//! shapes where one shape is required, a dtype other than the array's.
//!
//! Gradient arrays (`TensorArrayGradV3`) hang off the forward array, one per gradient
//! source (`gradients`, `gradients_1`, ...), so every gradient op of one
//! `tf.gradients` call finds the same array; writes to them add up (TF's
//! `multiple_writes_aggregate`), as a read used twice gets two gradient writes.
//!
//! Elements are kept lazily: an array of size `n` holds slots only up to the highest
//! index written or read, so a declared size costs nothing until it is used (and an
//! absurd one is `ResourceExhausted` at the write that needs it, never an abort).
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use super::{ExecEnv, KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::shape::{PartialShape, fmt_shape};
use crate::tensor::Tensor;

/// Numbers arrays across the process, as TF's kernel does (`TensorArray_0`, ...).
static ARRAY_COUNTER: AtomicU64 = AtomicU64::new(0);

/// One element: what was written, and what has happened to it.
#[derive(Default)]
struct Slot {
    value: Option<Tensor>,
    written: bool,
    read: bool,
    cleared: bool,
}

struct State {
    /// The array's size (what `size()` returns); `slots` may be shorter.
    size: usize,
    slots: Vec<Slot>,
    /// The element shape: the declared one, refined by the first write when all
    /// elements must share one shape.
    element_shape: PartialShape,
    /// TF's "marked size": the element count of the last split into a forward array,
    /// inherited by its gradient arrays, which concatenate that many elements (so
    /// elements written after the split get no part of the split's gradient).
    marked_size: usize,
    closed: bool,
}

/// A `TensorArray` resource: what its handle points to.
pub(crate) struct TensorArray {
    /// TF's array name (`TensorArray_3`, `foo_0`, `TensorArray_3@gradients`).
    name: String,
    dtype: DType,
    dynamic_size: bool,
    identical_element_shapes: bool,
    clear_after_read: bool,
    /// Writes to one index add up (gradient arrays).
    aggregate: bool,
    /// A gradient array (`TensorArrayGradV3`'s).
    is_grad: bool,
    state: Mutex<State>,
    /// The gradient arrays made from this one, by gradient source.
    grads: Mutex<HashMap<String, Arc<TensorArray>>>,
}

fn oom() -> Error {
    Error::new(Code::ResourceExhausted, "OOM when allocating the elements of a TensorArray")
}

fn index_of(i: i64) -> Option<usize> {
    usize::try_from(i).ok()
}

impl TensorArray {
    fn closed_error(&self) -> Error {
        Error::invalid_argument(format!("TensorArray {} has already been closed.", self.name))
    }

    fn check_open(&self, st: &State) -> Result<()> {
        if st.closed { Err(self.closed_error()) } else { Ok(()) }
    }

    fn check_read_dtype(&self, dtype: DType) -> Result<()> {
        if dtype != self.dtype {
            return Err(Error::invalid_argument(format!(
                "TensorArray dtype is {} but Op requested dtype {}.",
                self.dtype.cpp_name(),
                dtype.cpp_name()
            )));
        }
        Ok(())
    }

    fn check_write_dtype(&self, dtype: DType) -> Result<()> {
        if dtype != self.dtype {
            return Err(Error::invalid_argument(format!(
                "TensorArray dtype is {} but Op is trying to write dtype {}.",
                self.dtype.cpp_name(),
                dtype.cpp_name()
            )));
        }
        Ok(())
    }

    /// The slot of `index`, making room for it (fallibly).
    fn slot(st: &mut State, index: usize) -> Result<&mut Slot> {
        if index >= st.slots.len() {
            let more = index + 1 - st.slots.len();
            st.slots.try_reserve(more).map_err(|_| oom())?;
            st.slots.resize_with(index + 1, Slot::default);
        }
        Ok(&mut st.slots[index])
    }

    /// Grows a dynamic array to hold `index` (TF counts a negative index as outside
    /// a fixed-size array, and so reports it for a dynamic one too).
    fn check_write_index(&self, st: &mut State, index: i64) -> Result<usize> {
        match index_of(index) {
            Some(i) if i < st.size => Ok(i),
            Some(i) if self.dynamic_size => {
                st.size = i.checked_add(1).ok_or_else(oom)?;
                Ok(i)
            }
            _ => Err(Error::invalid_argument(format!(
                "TensorArray {}: Tried to write to index {index} but array is not resizeable and size is: {}",
                self.name, st.size
            ))),
        }
    }

    /// Writes (or, in a gradient array, adds) `value` at `index`.
    fn write_locked(&self, st: &mut State, index: i64, value: Tensor, env: &ExecEnv) -> Result<()> {
        let i = self.check_write_index(st, index)?;
        self.check_write_dtype(value.dtype())?;
        if !st.element_shape.is_compatible_with(value.shape()) {
            return Err(Error::invalid_argument(format!(
                "TensorArray {}: Could not write to TensorArray index {i} because the value shape is {} which is \
                 incompatible with the TensorArray's inferred element shape: {} (consider setting infer_shape=False).",
                self.name,
                fmt_shape(value.shape()),
                st.element_shape
            )));
        }
        if self.identical_element_shapes && !st.element_shape.is_fully_defined() {
            st.element_shape = PartialShape::known(value.shape());
        }
        let name = &self.name;
        let aggregate = self.aggregate;
        let slot = Self::slot(st, i)?;
        if slot.read {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not write to TensorArray index {i} because it has already been read."
            )));
        }
        if slot.written && !aggregate {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not write to TensorArray index {i} because it has already been written to."
            )));
        }
        match slot.value.take() {
            Some(old) if slot.written => {
                if old.shape() != value.shape() {
                    let err = Error::invalid_argument(format!(
                        "TensorArray {name}: Could not aggregate to TensorArray index {i} because the existing shape \
                         is {} but the new input shape is {}",
                        fmt_shape(old.shape()),
                        fmt_shape(value.shape())
                    ));
                    slot.value = Some(old);
                    return Err(err);
                }
                slot.value = Some(if old.num_elements() == 0 { value } else { super::math::add(old, value, env)? });
            }
            _ => slot.value = Some(value),
        }
        slot.written = true;
        Ok(())
    }

    /// Reads element `index` (TF's `LockedRead`): an unwritten element is zeros when
    /// the element shape is fully known; with `clear_after_read` the value is let go.
    fn read_locked(&self, st: &mut State, index: i64) -> Result<Tensor> {
        let Some(i) = index_of(index).filter(|&i| i < st.size) else {
            return Err(Error::invalid_argument(format!(
                "Tried to read from index {index} but array size is: {}",
                st.size
            )));
        };
        let shape = st.element_shape.clone();
        let (name, dtype, clear) = (&self.name, self.dtype, self.clear_after_read);
        let slot = Self::slot(st, i)?;
        if slot.cleared {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not read index {i} twice because it was cleared after a previous read \
                 (perhaps try setting clear_after_read = false?)."
            )));
        }
        let value = match &slot.value {
            Some(v) if slot.written => v.clone(),
            _ => {
                let Some(dims) = shape.to_shape() else {
                    return Err(Error::invalid_argument(format!(
                        "TensorArray {name}: Could not read from TensorArray index {i}.  Furthermore, the element \
                         shape is not fully defined: {shape}.  It is possible you are working with a resizeable \
                         TensorArray and stop_gradients is not allowing the gradients to be written.  If you set the \
                         full element_shape property on the forward TensorArray, the proper all-zeros tensor will be \
                         returned instead of incurring this error."
                    )));
                };
                Tensor::zeros(dtype, &dims)?
            }
        };
        slot.read = true;
        if clear {
            slot.value = None;
            slot.cleared = true;
        }
        Ok(value)
    }

    /// The elements at `indices`, read in order.
    fn read_many(&self, indices: impl IntoIterator<Item = i64>) -> Result<Vec<Tensor>> {
        let mut st = self.state.lock();
        self.check_open(&st)?;
        indices.into_iter().map(|i| self.read_locked(&mut st, i)).collect()
    }

    fn size(&self) -> Result<usize> {
        let st = self.state.lock();
        self.check_open(&st)?;
        Ok(st.size)
    }

    /// The element shape the op's attr gives, refined by what the array knows.
    fn element_shape(&self, declared: &PartialShape) -> PartialShape {
        if declared.is_fully_defined() {
            return declared.clone();
        }
        self.state.lock().element_shape.merge(declared).unwrap_or_else(|_| declared.clone())
    }

    /// The gradient array for `source` (made on first use, TF's `TensorArrayGradV3`):
    /// the forward array's size and element shape, adding writes, cleared by reads.
    fn grad(&self, source: &str) -> Result<Arc<TensorArray>> {
        let (size, element_shape, marked_size) = {
            let st = self.state.lock();
            self.check_open(&st)?;
            (st.size, st.element_shape.clone(), st.marked_size)
        };
        let mut grads = self.grads.lock();
        let g = grads.entry(source.to_string()).or_insert_with(|| {
            Arc::new(TensorArray {
                name: format!("{}@{source}", self.name),
                dtype: self.dtype,
                dynamic_size: false,
                identical_element_shapes: self.identical_element_shapes,
                clear_after_read: true,
                aggregate: true,
                is_grad: true,
                state: Mutex::new(State { size, slots: Vec::new(), element_shape, marked_size, closed: false }),
                grads: Mutex::new(HashMap::new()),
            })
        });
        Ok(Arc::clone(g))
    }
}

/// What a TensorArray kernel does.
#[derive(Clone, Copy)]
enum Op {
    Create,
    Write,
    Read,
    Gather,
    Scatter,
    Concat,
    Split,
    Size,
    Close,
    Grad,
}

struct TensorArrayKernel {
    op: Op,
    /// `dtype` (reads) of the op.
    dtype: DType,
    /// `element_shape` (create, gather) or `element_shape_except0` (concat).
    shape: PartialShape,
    /// Create: the array's settings and name; grad: the gradient source.
    dynamic_size: bool,
    clear_after_read: bool,
    identical_element_shapes: bool,
    name: String,
}

pub(crate) fn tensor_array_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let node = b.node;
    let op = match node.op_type() {
        "TensorArrayV3" => Op::Create,
        "TensorArrayWriteV3" => Op::Write,
        "TensorArrayReadV3" => Op::Read,
        "TensorArrayGatherV3" => Op::Gather,
        "TensorArrayScatterV3" => Op::Scatter,
        "TensorArrayConcatV3" => Op::Concat,
        "TensorArraySplitV3" => Op::Split,
        "TensorArraySizeV3" => Op::Size,
        "TensorArrayCloseV3" => Op::Close,
        _ => Op::Grad,
    };
    let dtype = node.attr_or("dtype", DType::Float32)?;
    let shape_attr = if matches!(op, Op::Concat) { "element_shape_except0" } else { "element_shape" };
    let shape = node.attr_or(shape_attr, PartialShape::unknown())?;
    let name = match op {
        Op::Grad => node.required_attr::<String>("source")?,
        _ => {
            let given = node.attr_or::<String>("tensor_array_name", String::new())?;
            if given.is_empty() { node.name.clone() } else { given }
        }
    };
    Ok(Box::new(TensorArrayKernel {
        op,
        dtype,
        shape,
        dynamic_size: node.attr_or("dynamic_size", false)?,
        clear_after_read: node.attr_or("clear_after_read", true)?,
        identical_element_shapes: node.attr_or("identical_element_shapes", false)?,
        name,
    }))
}

fn int_vector(t: &Tensor, what: &str) -> Result<Vec<i64>> {
    if t.shape().len() != 1 {
        return Err(Error::invalid_argument(format!(
            "Expected {what} to be a vector, but received shape: {}",
            fmt_shape(t.shape())
        )));
    }
    crate::framework::tensor_util::int_values(t).map(smallvec::SmallVec::into_vec)
}

fn at_least_vector(t: &Tensor) -> Result<usize> {
    t.shape().first().copied().ok_or_else(|| {
        Error::invalid_argument(format!(
            "Expected value to be at least a vector, but received shape: {}",
            fmt_shape(t.shape())
        ))
    })
}

/// Rows `start..start + len` of `t` along dimension 0, as a tensor of their own.
fn rows(t: &Tensor, start: usize, len: usize) -> Result<Tensor> {
    let mut shape = t.shape().to_vec();
    shape[0] = len;
    let block = crate::shape::checked_num_elements(&t.shape()[1..])?;
    super::array::gather_blocks(t.dtype(), &shape, len, block, |i| (0, start + i), &[t])
}

fn flow_through(ctx: &mut OpContext<'_>, i: usize) -> Result<()> {
    let flow = ctx.take_input(i)?;
    ctx.set_output(0, flow);
    Ok(())
}

impl TensorArrayKernel {
    fn create(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let size = ctx.input(0)?.scalar_value::<i32>()?;
        let size = usize::try_from(size).map_err(|_| Error::invalid_argument("Size should be >= 0."))?;
        let n = ARRAY_COUNTER.fetch_add(1, Ordering::Relaxed);
        let array = TensorArray {
            name: format!("{}_{n}", self.name),
            dtype: self.dtype,
            dynamic_size: self.dynamic_size,
            identical_element_shapes: self.identical_element_shapes,
            clear_after_read: self.clear_after_read,
            aggregate: false,
            is_grad: false,
            state: Mutex::new(State {
                size,
                slots: Vec::new(),
                element_shape: self.shape.clone(),
                marked_size: 0,
                closed: false,
            }),
            grads: Mutex::new(HashMap::new()),
        };
        ctx.set_resource_output(0, Arc::new(array));
        ctx.set_output(1, Tensor::scalar(0f32));
        Ok(())
    }

    fn gather(&self, ta: &TensorArray, indices: Vec<i64>) -> Result<Tensor> {
        ta.check_read_dtype(self.dtype)?;
        if indices.is_empty() {
            let shape = ta.element_shape(&self.shape);
            let Some(dims) = shape.to_shape() else {
                return Err(Error::new(
                    Code::Unimplemented,
                    format!(
                        "TensorArray has size zero, but element shape {shape} is not fully defined. Currently only \
                         static shapes are supported when packing zero-size TensorArrays."
                    ),
                ));
            };
            let dims: Vec<usize> = std::iter::once(0).chain(dims).collect();
            return Tensor::zeros(self.dtype, &dims);
        }
        let values = ta.read_many(indices)?;
        let first = values[0].shape();
        if let Some((i, v)) = values.iter().enumerate().find(|(_, v)| v.shape() != first) {
            return Err(Error::invalid_argument(format!(
                "TensorArray has inconsistent shapes.  Index 0 has shape: {} but index {i} has shape: {}",
                fmt_shape(first),
                fmt_shape(v.shape())
            )));
        }
        super::array::pack(&values.iter().collect::<Vec<_>>(), 0)
    }

    fn concat(&self, ctx: &mut OpContext<'_>, ta: &TensorArray) -> Result<()> {
        ta.check_read_dtype(self.dtype)?;
        // TF's `PackOrConcatSize`: a gradient array concatenates its marked size.
        let size = if ta.is_grad { ta.state.lock().marked_size } else { ta.size()? };
        if size == 0 {
            let Some(dims) = self.shape.to_shape() else {
                return Err(Error::new(
                    Code::Unimplemented,
                    format!(
                        "TensorArray has size zero, but element_shape_except0 {} is not fully defined. Currently only \
                         static shapes are supported when concatenating zero-size TensorArrays.",
                        self.shape
                    ),
                ));
            };
            let dims: Vec<usize> = std::iter::once(0).chain(dims).collect();
            ctx.set_output(0, Tensor::zeros(self.dtype, &dims)?);
            ctx.set_output(1, Tensor::from_slice::<i64>(&[0], &[])?);
            return Ok(());
        }
        let upto = i64::try_from(size).map_err(|_| oom())?;
        let values = ta.read_many(0..upto)?;
        let mut lengths = Vec::with_capacity(values.len());
        for (i, v) in values.iter().enumerate() {
            let Some(&rows) = v.shape().first() else {
                return Err(Error::invalid_argument(format!(
                    "Concat saw a scalar shape at index {i} but requires at least vectors.  Did you mean to call \
                     TensorArray.stack()?"
                )));
            };
            if v.shape()[1..] != values[0].shape()[1..] {
                return Err(Error::invalid_argument(format!(
                    "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: {} but index \
                     {i} has (excepting dimension 0) shape: {}",
                    fmt_shape(&values[0].shape()[1..]),
                    fmt_shape(&v.shape()[1..])
                )));
            }
            lengths.push(i64::try_from(rows).map_err(|_| oom())?);
        }
        let value = super::layout::concat(&values.iter().collect::<Vec<_>>(), 0)?;
        ctx.set_output(0, value);
        ctx.set_output(1, Tensor::from_slice(&[lengths.len()], &lengths)?);
        Ok(())
    }

    fn scatter(&self, ctx: &OpContext<'_>, ta: &TensorArray) -> Result<()> {
        let indices = int_vector(ctx.input(1)?, "indices")?;
        let value = ctx.input(2)?;
        ta.check_write_dtype(value.dtype())?;
        let n = at_least_vector(value)?;
        if indices.len() != n {
            return Err(Error::invalid_argument(format!(
                "Expected len(indices) == values.shape[0], but saw: {} vs. {n}",
                indices.len()
            )));
        }
        let mut st = ta.state.lock();
        ta.check_open(&st)?;
        if let Some(&max) = indices.iter().max()
            && !ta.dynamic_size
            && index_of(max).is_some_and(|m| m >= st.size)
        {
            return Err(Error::invalid_argument(format!(
                "Max scatter index must be < array size ({max} vs. {})",
                st.size
            )));
        }
        for (k, &i) in indices.iter().enumerate() {
            ta.write_locked(&mut st, i, rows(value, k, 1)?.reshaped(&value.shape()[1..])?, ctx.env)?;
        }
        Ok(())
    }

    fn split(&self, ctx: &OpContext<'_>, ta: &TensorArray) -> Result<()> {
        let value = ctx.input(1)?;
        let lengths = ctx.input(2)?;
        if lengths.shape().len() != 1 {
            return Err(Error::invalid_argument(format!(
                "Expected lengths to be a vector, received shape: {}",
                fmt_shape(lengths.shape())
            )));
        }
        let lengths = crate::framework::tensor_util::int_values(lengths)?;
        ta.check_write_dtype(value.dtype())?;
        let rows_total = at_least_vector(value)?;
        let mut sum: u64 = 0;
        for (i, &l) in lengths.iter().enumerate() {
            let l = u64::try_from(l).map_err(|_| {
                Error::invalid_argument(format!("Expected lengths to be non-negative, but lengths[{i}] is {l}"))
            })?;
            sum = sum.saturating_add(l);
        }
        if sum != rows_total as u64 {
            return Err(Error::invalid_argument(format!(
                "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is {sum} and value's \
                 shape is: {}",
                fmt_shape(value.shape())
            )));
        }
        let mut st = ta.state.lock();
        ta.check_open(&st)?;
        if !ta.dynamic_size && st.size != lengths.len() {
            return Err(Error::invalid_argument(format!(
                "TensorArray's size is not equal to the size of lengths ({} vs. {}), and the TensorArray is not \
                 marked as dynamically resizeable",
                st.size,
                lengths.len()
            )));
        }
        st.size = st.size.max(lengths.len());
        if !ta.is_grad {
            st.marked_size = lengths.len();
        }
        let mut start = 0usize;
        for (i, &l) in lengths.iter().enumerate() {
            #[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)]
            let l = l as usize; // checked non-negative and summing to a row count above
            let index = i64::try_from(i).map_err(|_| oom())?;
            ta.write_locked(&mut st, index, rows(value, start, l)?, ctx.env)?;
            start += l;
        }
        Ok(())
    }
}

impl OpKernel for TensorArrayKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Op::Create = self.op {
            return self.create(ctx);
        }
        let ta = ctx.resource_input::<TensorArray>(0)?;
        match self.op {
            Op::Create => unreachable!("handled above"),
            Op::Write => {
                let index = ctx.input(1)?.scalar_value::<i32>()?;
                let value = ctx.take_input(2)?;
                let mut st = ta.state.lock();
                ta.check_open(&st)?;
                ta.write_locked(&mut st, i64::from(index), value, ctx.env)?;
                drop(st);
                flow_through(ctx, 3)
            }
            Op::Read => {
                ta.check_read_dtype(self.dtype)?;
                let index = ctx.input(1)?.scalar_value::<i32>()?;
                let v =
                    ta.read_many([i64::from(index)])?.pop().ok_or_else(|| Error::new(Code::Internal, "no value"))?;
                ctx.set_output(0, v);
                Ok(())
            }
            Op::Gather => {
                let indices = int_vector(ctx.input(1)?, "indices")?;
                let v = self.gather(&ta, indices)?;
                ctx.set_output(0, v);
                Ok(())
            }
            Op::Scatter => {
                self.scatter(ctx, &ta)?;
                flow_through(ctx, 3)
            }
            Op::Concat => self.concat(ctx, &ta),
            Op::Split => {
                self.split(ctx, &ta)?;
                flow_through(ctx, 3)
            }
            Op::Size => {
                let n = i32::try_from(ta.size()?).map_err(|_| {
                    Error::invalid_argument(format!("TensorArray {} has more than 2^31 - 1 elements", ta.name))
                })?;
                ctx.set_output(0, Tensor::scalar(n));
                Ok(())
            }
            Op::Close => {
                let mut st = ta.state.lock();
                st.closed = true;
                st.slots = Vec::new();
                Ok(())
            }
            Op::Grad => {
                let g = ta.grad(&self.name)?;
                let flow = ctx.take_input(1)?;
                ctx.set_resource_output(0, g);
                ctx.set_output(1, flow);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(size: usize, dynamic: bool, aggregate: bool) -> TensorArray {
        TensorArray {
            name: "ta_0".into(),
            dtype: DType::Float32,
            dynamic_size: dynamic,
            identical_element_shapes: true,
            clear_after_read: true,
            aggregate,
            is_grad: aggregate,
            state: Mutex::new(State {
                size,
                slots: Vec::new(),
                element_shape: PartialShape::unknown(),
                marked_size: 0,
                closed: false,
            }),
            grads: Mutex::new(HashMap::new()),
        }
    }

    fn write(ta: &TensorArray, i: i64, v: f32) -> Result<()> {
        let mut st = ta.state.lock();
        ta.write_locked(&mut st, i, Tensor::from_slice(&[1], &[v])?, &ExecEnv::SINGLE_THREADED)
    }

    #[test]
    fn a_huge_declared_size_costs_nothing_until_used() {
        let ta = array(usize::MAX / 2, false, false);
        write(&ta, 3, 1.0).unwrap();
        assert_eq!(ta.state.lock().slots.len(), 4);
        assert_eq!(ta.size().unwrap(), usize::MAX / 2);
    }

    #[test]
    fn misuse_is_tf_s_error() {
        let ta = array(2, false, false);
        write(&ta, 0, 1.0).unwrap();
        let twice = write(&ta, 0, 2.0).unwrap_err();
        assert!(twice.message.contains("because it has already been written to."), "{twice:?}");
        let neg = write(&ta, -1, 2.0).unwrap_err();
        assert!(neg.message.contains("Tried to write to index -1 but array is not resizeable and size is: 2"));
        let shape = ta.state.lock().element_shape.clone();
        assert_eq!(shape, PartialShape::known(&[1]));
        assert_eq!(ta.read_many([0]).unwrap()[0].as_slice::<f32>().unwrap(), &[1.0]);
        let cleared = ta.read_many([0]).unwrap_err();
        assert!(cleared.message.contains("Could not read index 0 twice because it was cleared"));
        // Unwritten, with the element shape known from the first write: zeros.
        assert_eq!(ta.read_many([1]).unwrap()[0].as_slice::<f32>().unwrap(), &[0.0]);
        let late = write(&ta, 1, 2.0).unwrap_err();
        assert!(late.message.contains("because it has already been read."));
    }

    #[test]
    fn gradient_arrays_add_writes_and_are_shared_by_source() {
        let ta = array(3, false, false);
        let g = ta.grad("gradients").unwrap();
        assert!(Arc::ptr_eq(&g, &ta.grad("gradients").unwrap()));
        assert!(!Arc::ptr_eq(&g, &ta.grad("gradients_1").unwrap()));
        assert_eq!(g.name, "ta_0@gradients");
        write(&g, 2, 1.5).unwrap();
        write(&g, 2, 2.0).unwrap();
        assert_eq!(g.read_many([2]).unwrap()[0].as_slice::<f32>().unwrap(), &[3.5]);
    }

    #[test]
    fn dynamic_arrays_grow_and_closed_arrays_refuse() {
        let ta = array(0, true, false);
        write(&ta, 4, 1.0).unwrap();
        assert_eq!(ta.size().unwrap(), 5);
        ta.state.lock().closed = true;
        let e = ta.size().unwrap_err();
        assert_eq!(e.message, "TensorArray ta_0 has already been closed.");
    }
}
