//! Tensors: a dtype, a concrete shape and a reference-counted, 64-byte-aligned
//! buffer. Clones share the buffer; writers copy only when it is shared. A tensor may
//! instead live in a device's memory ([`DeviceMemory`], a GPU buffer), where only that
//! device's kernels read it: the planner copies it to the host at every boundary.
//!
//! The value types under it: [`dtype`] (element types and their traits), [`shape`]
//! (static and concrete shapes, broadcasting) and [`buffer`] (aligned, recycled
//! buffers). The crate root re-exports them (`crate::dtype`, ...).
pub mod buffer;
pub mod dtype;
pub mod shape;

use std::any::Any;
use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::sync::Arc;

use ferroflow_proto as pb;

use crate::dtype::{DType, Element};
use crate::error::{Code, Error, Result};
use crate::shape::{PartialShape, Shape, checked_num_elements, fmt_shape};

use crate::buffer::try_vec;
pub use crate::buffer::{ALIGN, AlignedBuf};

/// A tensor's dense elements in a device's memory (a GPU buffer), as the backend that
/// owns the device implements it. The core never looks inside: the device's kernels
/// downcast it ([`DeviceMemory::as_any`]) and its `_DeviceCopy` kernel moves values
/// between it and the host.
pub trait DeviceMemory: Send + Sync {
    /// The device it is on (`/device:GPU:0`), for messages.
    fn device(&self) -> &str;
    /// The bytes of the elements it holds.
    fn byte_len(&self) -> usize;
    /// Its contents in host memory, once the device has written them (a blocking copy).
    fn to_host(&self) -> Result<AlignedBuf>;
    /// A copy in new memory of the same device (copy-on-write before an in-place update
    /// while something still reads the old value).
    fn duplicate(&self) -> Result<Arc<dyn DeviceMemory>>;
    /// The backend's own type.
    fn as_any(&self) -> &dyn Any;
}

/// The storage behind a tensor.
enum Storage {
    /// Dense little-endian elements.
    Dense(AlignedBuf),
    /// One byte string per element (`DT_STRING`).
    Strings(Vec<Vec<u8>>),
    /// Dense elements in a device's memory.
    Device(Arc<dyn DeviceMemory>),
}

impl Storage {
    /// A copy (for copy-on-write), `ResourceExhausted` when the memory cannot be had.
    fn try_clone(&self) -> Result<Storage> {
        Ok(match self {
            Storage::Dense(b) => Storage::Dense(AlignedBuf::from_bytes(b.as_bytes())?),
            Storage::Strings(s) => {
                let mut v = try_vec(s.len())?;
                v.extend(s.iter().cloned());
                Storage::Strings(v)
            }
            Storage::Device(m) => Storage::Device(m.duplicate()?),
        })
    }
}

/// A dense or string tensor. Cloning is cheap (the buffer is shared).
///
/// Invariant: the shape passed [`checked_num_elements`] and the buffer (or the view's
/// byte range of it) holds exactly that many elements. Every constructor checks it, so
/// the unchecked products over a tensor's dimensions elsewhere cannot overflow.
#[derive(Clone)]
pub struct Tensor {
    dtype: DType,
    shape: Shape,
    // Dropped by hand (`Drop for Tensor`): the last holder's storage goes back to
    // its thread's shells.
    data: ManuallyDrop<Arc<Storage>>,
    /// `(first byte, bytes)` of a dense tensor that is a row range of a shared buffer
    /// (see [`Tensor::row_view`]); `None` for the whole buffer.
    view: Option<(usize, usize)>,
}

/// The most idle storage shells (a tensor's reference-counted cell, its buffer
/// returned to the buffer pools) one thread keeps.
const MAX_IDLE_SHELLS: usize = 1024;

thread_local! {
    // Storage cells whose tensors were dropped on this thread, each holding an empty
    // buffer: a new tensor reuses one instead of allocating its `Arc`.
    static SHELLS: RefCell<Vec<Arc<Storage>>> = const { RefCell::new(Vec::new()) };
}

/// A shared cell holding `storage`: an idle shell of this thread's, or a new one.
fn shared(storage: Storage) -> ManuallyDrop<Arc<Storage>> {
    let idle = SHELLS.try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.pop())).ok().flatten();
    ManuallyDrop::new(match idle {
        Some(mut shell) => match Arc::get_mut(&mut shell) {
            Some(slot) => {
                *slot = storage;
                shell
            }
            None => Arc::new(storage),
        },
        None => Arc::new(storage),
    })
}

/// Lets go of a tensor's cell: the last holder's storage is dropped (its buffer back
/// to the buffer pools) and the empty cell kept for the next tensor made here.
fn release(mut data: Arc<Storage>) {
    // A plain load first: `get_mut` locks the weak count (a write to the cell's cache
    // line), which a tensor shared with other threads should not pay on every drop.
    if Arc::strong_count(&data) != 1 {
        return;
    }
    let Some(storage) = Arc::get_mut(&mut data) else { return };
    *storage = Storage::Dense(AlignedBuf::empty());
    let _ = SHELLS.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut()
            && s.len() < MAX_IDLE_SHELLS
        {
            s.push(data);
        }
    });
}

impl Drop for Tensor {
    fn drop(&mut self) {
        // SAFETY: `data` is not used again: this is the tensor's drop.
        release(unsafe { ManuallyDrop::take(&mut self.data) });
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tensor<{}, {}>", self.dtype, fmt_shape(&self.shape))
    }
}

fn type_mismatch(want: DType, have: DType) -> Error {
    Error::new(Code::Internal, format!("tensor of type {have} accessed as {want}"))
}

/// A kernel that reads host memory was handed a tensor in a device's memory: a value
/// crossed a device boundary without the copy the planner inserts there.
fn on_device_error(memory: &dyn DeviceMemory) -> Error {
    Error::new(Code::Internal, format!("a tensor in the memory of {} was read on the host", memory.device()))
}

/// TF's out-of-memory error for a tensor: `OOM when allocating tensor with
/// shape[1099511627776] and type float on ... by allocator cpu`.
pub fn oom_error(dtype: DType, shape: &[usize]) -> Error {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    Error::new(
        Code::ResourceExhausted,
        format!(
            "OOM when allocating tensor with shape[{}] and type {} on /job:localhost/replica:0/task:0/device:CPU:0 \
             by allocator cpu",
            dims.join(","),
            dtype.cpp_name()
        ),
    )
}

/// The element count and byte size of a dense `dtype` tensor of `shape`, checked.
fn dense_size(dtype: DType, shape: &[usize]) -> Result<(usize, usize)> {
    let n = checked_num_elements(shape)?;
    let bytes = n
        .checked_mul(dtype.size())
        .filter(|&b| b <= isize::MAX as usize - crate::buffer::ALIGN)
        .ok_or_else(|| oom_error(dtype, shape))?;
    Ok((n, bytes))
}

/// `n` empty strings, `ResourceExhausted` when the memory cannot be had.
fn empty_strings(shape: &[usize]) -> Result<Vec<Vec<u8>>> {
    let n = checked_num_elements(shape)?;
    let mut v = try_vec(n).map_err(|_| oom_error(DType::String, shape))?;
    v.resize(n, Vec::new());
    Ok(v)
}

impl Tensor {
    /// A zero-filled tensor (empty strings for `string`). Fails with TF's
    /// `InvalidArgument` when the shape's element count overflows and with
    /// `ResourceExhausted` when the memory cannot be had.
    pub fn zeros(dtype: DType, shape: &[usize]) -> Result<Self> {
        let data = if dtype == DType::String {
            Storage::Strings(empty_strings(shape)?)
        } else {
            let (_, bytes) = dense_size(dtype, shape)?;
            Storage::Dense(AlignedBuf::zeroed(bytes).map_err(|_| oom_error(dtype, shape))?)
        };
        Ok(Tensor { dtype, shape: shape.into(), data: shared(data), view: None })
    }
    /// A tensor whose elements are unspecified until written (a recycled buffer's old
    /// bytes, or zeros): for kernels that overwrite every element. Strings are empty.
    /// Fails as [`zeros`](Self::zeros) does.
    pub fn for_overwrite(dtype: DType, shape: &[usize]) -> Result<Self> {
        if dtype == DType::String {
            return Self::zeros(dtype, shape);
        }
        let (_, bytes) = dense_size(dtype, shape)?;
        let buf = AlignedBuf::for_overwrite(bytes).map_err(|_| oom_error(dtype, shape))?;
        Ok(Tensor { dtype, shape: shape.into(), data: shared(Storage::Dense(buf)), view: None })
    }
    /// A tensor holding a copy of `values`.
    pub fn from_slice<T: Element>(shape: &[usize], values: &[T]) -> Result<Self> {
        let n = checked_num_elements(shape)?;
        if n != values.len() {
            return Err(Error::new(
                Code::InvalidArgument,
                format!("{} values cannot fill a tensor of shape {}", values.len(), fmt_shape(shape)),
            ));
        }
        let mut t = Tensor::for_overwrite(T::DTYPE, shape)?;
        t.as_mut_slice::<T>()?.copy_from_slice(values);
        Ok(t)
    }
    /// A rank-0 tensor.
    pub fn scalar<T: Element>(v: T) -> Self {
        let mut buf = AlignedBuf::small(std::mem::size_of::<T>());
        // SAFETY: the buffer is aligned for any element type and holds one T.
        unsafe { buf.as_mut_bytes().as_mut_ptr().cast::<T>().write(v) };
        Tensor { dtype: T::DTYPE, shape: Shape::new(), data: shared(Storage::Dense(buf)), view: None }
    }
    /// A dense tensor over `buf`, which holds exactly its elements' bytes (written by a
    /// kernel from elements of valid tensors of the same dtype).
    pub(crate) fn from_buf(dtype: DType, shape: &[usize], buf: AlignedBuf) -> Result<Self> {
        let (_, bytes) = dense_size(dtype, shape)?;
        if dtype == DType::String || buf.as_bytes().len() != bytes {
            return Err(Error::new(
                Code::Internal,
                format!("{} bytes cannot hold a {dtype} tensor of shape {}", buf.as_bytes().len(), fmt_shape(shape)),
            ));
        }
        Ok(Tensor { dtype, shape: shape.into(), data: shared(Storage::Dense(buf)), view: None })
    }
    /// A tensor over a copy of raw little-endian `bytes`.
    pub fn from_bytes(dtype: DType, shape: &[usize], bytes: &[u8]) -> Result<Self> {
        let n = checked_num_elements(shape)?;
        if dtype == DType::String || Some(bytes.len()) != n.checked_mul(dtype.size()) {
            return Err(Error::new(
                Code::InvalidArgument,
                format!("{} bytes cannot hold a {dtype} tensor of shape {}", bytes.len(), fmt_shape(shape)),
            ));
        }
        let mut buf = AlignedBuf::from_bytes(bytes).map_err(|_| oom_error(dtype, shape))?;
        if dtype == DType::Bool {
            // Only 0 and 1 are valid bools.
            for b in buf.as_mut_bytes() {
                *b = u8::from(*b != 0);
            }
        }
        Ok(Tensor { dtype, shape: shape.into(), data: shared(Storage::Dense(buf)), view: None })
    }
    /// The same buffer read as `dtype`, whose elements have this dtype's size (a
    /// bfloat16 tensor as its `uint16` bit patterns, and back); no copy. Never to or
    /// from `bool` or `string`, whose contents have rules of their own.
    pub fn bitcast(&self, dtype: DType) -> Result<Tensor> {
        let plain = |d: DType| !matches!(d, DType::Bool | DType::String | DType::Resource | DType::Variant);
        if !plain(self.dtype) || !plain(dtype) || dtype.size() != self.dtype.size() {
            ff_bail!(InvalidArgument, "cannot reinterpret a {} tensor as {dtype}", self.dtype);
        }
        Ok(Tensor { dtype, shape: self.shape.clone(), data: self.data.clone(), view: self.view })
    }
    /// A string tensor.
    pub fn from_strings(shape: &[usize], values: Vec<Vec<u8>>) -> Result<Self> {
        let n = checked_num_elements(shape)?;
        if n != values.len() {
            return Err(Error::new(
                Code::InvalidArgument,
                format!("{} strings cannot fill a tensor of shape {}", values.len(), fmt_shape(shape)),
            ));
        }
        Ok(Tensor { dtype: DType::String, shape: shape.into(), data: shared(Storage::Strings(values)), view: None })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// The number of elements.
    pub fn num_elements(&self) -> usize {
        self.shape.iter().product()
    }
    /// Whether no other tensor shares this buffer (so writing needs no copy).
    pub fn is_unique(&self) -> bool {
        Arc::strong_count(&self.data) == 1
    }
    /// The same buffer under another shape with as many elements.
    pub fn reshaped(&self, shape: &[usize]) -> Result<Tensor> {
        let n = checked_num_elements(shape)?;
        if n != self.num_elements() {
            return Err(Error::new(
                Code::InvalidArgument,
                format!(
                    "Input to reshape is a tensor with {} values, but the requested shape has {n}",
                    self.num_elements()
                ),
            ));
        }
        Ok(Tensor { dtype: self.dtype, shape: shape.into(), data: self.data.clone(), view: self.view })
    }
    /// Row `i` along dimension 0 of a dense tensor in host memory, sharing its buffer
    /// (no copy). The row keeps the whole buffer alive, so this suits consumers that let
    /// a batch's rows go in order (a FIFO queue taking `enqueue_many` batches apart),
    /// not ones that may hold single rows of many batches for long.
    pub fn row_view(&self, i: usize) -> Result<Tensor> {
        let (Storage::Dense(_), Some(&n)) = (&**self.data, self.shape.first()) else {
            return Err(Error::new(Code::Internal, "a row view needs a dense tensor of rank >= 1 in host memory"));
        };
        if i >= n {
            return Err(Error::new(Code::Internal, format!("row {i} of a tensor with {n} rows")));
        }
        let width = self.as_bytes()?.len() / n;
        let start = self.view.map_or(0, |(s, _)| s) + i * width;
        Ok(Tensor {
            dtype: self.dtype,
            shape: self.shape[1..].into(),
            data: self.data.clone(),
            view: Some((start, width)),
        })
    }
    /// The raw bytes of a dense tensor.
    pub fn as_bytes(&self) -> Result<&[u8]> {
        match &**self.data {
            Storage::Dense(b) => Ok(match self.view {
                Some((start, len)) => &b.as_bytes()[start..start + len],
                None => b.as_bytes(),
            }),
            Storage::Strings(_) => Err(type_mismatch(DType::UInt8, DType::String)),
            Storage::Device(m) => Err(on_device_error(m.as_ref())),
        }
    }
    /// The storage, exclusively ours: copied first if shared (copy-on-write), with
    /// `ResourceExhausted` instead of an abort when the copy cannot be had.
    fn storage_mut(&mut self) -> Result<&mut Storage> {
        if let Storage::Device(m) = &**self.data {
            return Err(on_device_error(m.as_ref()));
        }
        self.storage_mut_anywhere()
    }
    /// [`storage_mut`](Self::storage_mut), device memory included (duplicated on the
    /// device when shared).
    fn storage_mut_anywhere(&mut self) -> Result<&mut Storage> {
        if self.view.is_some() {
            // A row range of a shared buffer: its own compact copy.
            let buf = AlignedBuf::from_bytes(self.as_bytes()?).map_err(|_| oom_error(self.dtype, &self.shape))?;
            *self.data = Arc::new(Storage::Dense(buf));
            self.view = None;
        }
        if Arc::get_mut(&mut self.data).is_none() {
            *self.data = Arc::new(self.data.try_clone().map_err(|_| oom_error(self.dtype, &self.shape))?);
        }
        Arc::get_mut(&mut self.data).ok_or_else(|| Error::new(Code::Internal, "tensor buffer is still shared"))
    }
    /// The raw bytes of a dense tensor, mutably (copying the buffer first if shared).
    pub fn as_mut_bytes(&mut self) -> Result<&mut [u8]> {
        match self.storage_mut()? {
            Storage::Dense(b) => Ok(b.as_mut_bytes()),
            Storage::Strings(_) => Err(type_mismatch(DType::UInt8, DType::String)),
            Storage::Device(m) => Err(on_device_error(m.as_ref())),
        }
    }
    /// The strings of a string tensor.
    pub fn as_strings(&self) -> Result<&[Vec<u8>]> {
        match &**self.data {
            Storage::Strings(s) => Ok(s),
            Storage::Dense(_) | Storage::Device(_) => Err(type_mismatch(DType::String, self.dtype)),
        }
    }
    /// The elements as a typed slice.
    pub fn as_slice<T: Element>(&self) -> Result<&[T]> {
        if T::DTYPE != self.dtype {
            return Err(type_mismatch(T::DTYPE, self.dtype));
        }
        let bytes = self.as_bytes()?;
        if bytes.is_empty() {
            // An empty buffer's pointer is only byte-aligned: no slice of T over it.
            return Ok(&[]);
        }
        // SAFETY: the buffer is 64-byte aligned and a row view starts at a multiple of
        // T's size, so the bytes are aligned for T; they hold num_elements() values of T
        // (checked by dtype), and every bit pattern written into them is a valid T.
        Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), self.num_elements()) })
    }
    /// The elements as a mutable slice, copying the buffer first if it is shared.
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T]> {
        if T::DTYPE != self.dtype {
            return Err(type_mismatch(T::DTYPE, self.dtype));
        }
        let n = self.num_elements();
        match self.storage_mut()? {
            Storage::Dense(b) => {
                let bytes = b.as_mut_bytes();
                if bytes.is_empty() {
                    return Ok(&mut []);
                }
                // SAFETY: as in `as_slice`, and the buffer is now exclusively ours.
                Ok(unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), n) })
            }
            Storage::Strings(_) => Err(type_mismatch(T::DTYPE, DType::String)),
            Storage::Device(m) => Err(on_device_error(m.as_ref())),
        }
    }
    /// The single element of a one-element tensor.
    pub fn scalar_value<T: Element>(&self) -> Result<T> {
        let s = self.as_slice::<T>()?;
        if s.len() != 1 {
            return Err(Error::new(
                Code::InvalidArgument,
                format!("expected a scalar, got shape {}", fmt_shape(&self.shape)),
            ));
        }
        Ok(s[0])
    }

    /// The TensorProto of this tensor (dense data as `tensor_content`).
    pub fn to_proto(&self) -> pb::TensorProto {
        let mut p = pb::TensorProto {
            dtype: self.dtype as i32,
            tensor_shape: Some(shape_to_proto(&PartialShape::known(&self.shape))),
            ..Default::default()
        };
        match &**self.data {
            Storage::Dense(_) => p.tensor_content = self.as_bytes().map(<[u8]>::to_vec).unwrap_or_default(),
            Storage::Strings(s) => p.string_val.clone_from(s),
            // Unreached: the planner copies device values to the host before anything
            // serializes them. Were one to get here, a failed download leaves the
            // content empty, which `from_proto` rejects for a non-empty shape.
            Storage::Device(m) => p.tensor_content = m.to_host().map(|b| b.as_bytes().to_vec()).unwrap_or_default(),
        }
        p
    }

    /// A dense tensor whose elements are in a device's memory (`memory` holds exactly
    /// their bytes).
    pub fn on_device(dtype: DType, shape: &[usize], memory: Arc<dyn DeviceMemory>) -> Result<Self> {
        let (_, bytes) = dense_size(dtype, shape)?;
        if dtype == DType::String || memory.byte_len() != bytes {
            return Err(Error::new(
                Code::Internal,
                format!(
                    "{} bytes of {} cannot hold a {dtype} tensor of shape {}",
                    memory.byte_len(),
                    memory.device(),
                    fmt_shape(shape)
                ),
            ));
        }
        Ok(Tensor { dtype, shape: shape.into(), data: shared(Storage::Device(memory)), view: None })
    }
    /// The device memory holding the elements, or `None` for a tensor in host memory.
    pub fn device_memory(&self) -> Option<&Arc<dyn DeviceMemory>> {
        match &**self.data {
            Storage::Device(m) => Some(m),
            _ => None,
        }
    }
    /// The device memory, exclusively this tensor's (duplicated on the device first
    /// when something else shares it), for an in-place update; `None` in host memory.
    pub fn device_memory_mut(&mut self) -> Result<Option<&Arc<dyn DeviceMemory>>> {
        if !matches!(&**self.data, Storage::Device(_)) {
            return Ok(None);
        }
        match self.storage_mut_anywhere()? {
            Storage::Device(m) => Ok(Some(m)),
            _ => Ok(None),
        }
    }
    /// This tensor in host memory: itself, or a copy of its device memory.
    pub fn to_host(&self) -> Result<Tensor> {
        match &**self.data {
            Storage::Device(m) => {
                let buf = m.to_host()?;
                Tensor::from_buf(self.dtype, &self.shape, buf)
            }
            _ => Ok(self.clone()),
        }
    }

    /// Decodes a TensorProto (either `tensor_content` or the typed `*_val` lists,
    /// with TF's rule that one value fills the whole shape).
    pub fn from_proto(p: &pb::TensorProto) -> Result<Tensor> {
        let dtype = DType::from_code(p.dtype).map_err(|e| Error::new(Code::InvalidArgument, e.message))?;
        let shape = shape_from_proto(p.tensor_shape.as_ref().unwrap_or(&pb::TensorShapeProto::default()))
            .to_shape()
            .ok_or_else(|| Error::new(Code::InvalidArgument, "TensorProto shape is not fully defined"))?;
        let n = checked_num_elements(&shape)?;
        if dtype == DType::String {
            let vals = match p.string_val.len() {
                len if len == n => p.string_val.clone(),
                1 => {
                    let mut v = try_vec(n)?;
                    v.resize(n, p.string_val[0].clone());
                    v
                }
                0 => empty_strings(&shape)?,
                len => ff_bail!(InvalidArgument, "{len} strings for a tensor of {n} elements"),
            };
            return Tensor::from_strings(&shape, vals);
        }
        if !p.tensor_content.is_empty() {
            return Tensor::from_bytes(dtype, &shape, &p.tensor_content);
        }
        fn fill<T: Element, S: Copy>(shape: &[usize], vals: &[S], conv: impl Fn(S) -> T) -> Result<Tensor> {
            let n = checked_num_elements(shape)?;
            let mut t = Tensor::zeros(T::DTYPE, shape)?;
            let out = t.as_mut_slice::<T>()?;
            match vals.len() {
                0 => {}
                len if len == n => out.iter_mut().zip(vals).for_each(|(o, v)| *o = conv(*v)),
                // TF pads with the last value (a single value fills the tensor).
                len if len < n => {
                    out.iter_mut().zip(vals).for_each(|(o, v)| *o = conv(*v));
                    let last = conv(vals[len - 1]);
                    out[len..].iter_mut().for_each(|o| *o = last);
                }
                len => ff_bail!(InvalidArgument, "{len} values for a tensor of {n} elements"),
            }
            Ok(t)
        }
        match dtype {
            DType::Float32 => fill::<f32, f32>(&shape, &p.float_val, |v| v),
            DType::Float64 => fill::<f64, f64>(&shape, &p.double_val, |v| v),
            DType::Int32 => fill::<i32, i32>(&shape, &p.int_val, |v| v),
            // TF stores uint8 values in int_val; truncation is the format's rule.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            DType::UInt8 => fill::<u8, i32>(&shape, &p.int_val, |v| v as u8),
            DType::Int64 => fill::<i64, i64>(&shape, &p.int64_val, |v| v),
            // int8, int16 and uint16 values are in int_val too.
            #[allow(clippy::cast_possible_truncation)]
            DType::Int8 => fill::<i8, i32>(&shape, &p.int_val, |v| v as i8),
            #[allow(clippy::cast_possible_truncation)]
            DType::Int16 => fill::<i16, i32>(&shape, &p.int_val, |v| v as i16),
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            DType::UInt16 => fill::<u16, i32>(&shape, &p.int_val, |v| v as u16),
            DType::UInt32 => fill::<u32, u32>(&shape, &p.uint32_val, |v| v),
            DType::UInt64 => fill::<u64, u64>(&shape, &p.uint64_val, |v| v),
            DType::Bool => fill::<bool, bool>(&shape, &p.bool_val, |v| v),
            // (real, imaginary) pairs.
            DType::Complex64 => {
                let pairs: Vec<num_complex::Complex32> =
                    p.scomplex_val.chunks_exact(2).map(|c| num_complex::Complex32::new(c[0], c[1])).collect();
                fill::<num_complex::Complex32, num_complex::Complex32>(&shape, &pairs, |v| v)
            }
            DType::Complex128 => {
                let pairs: Vec<num_complex::Complex64> =
                    p.dcomplex_val.chunks_exact(2).map(|c| num_complex::Complex64::new(c[0], c[1])).collect();
                fill::<num_complex::Complex64, num_complex::Complex64>(&shape, &pairs, |v| v)
            }
            // half and bfloat16 values are their bit patterns in half_val.
            DType::Float16 | DType::BFloat16 => {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let bits = fill::<u16, i32>(&shape, &p.half_val, |v| v as u16)?;
                Tensor::from_bytes(dtype, &shape, bits.as_bytes()?)
            }
            DType::String => unreachable!("handled above"),
            DType::Resource | DType::Variant => {
                Err(Error::invalid_argument(format!("a {dtype} value cannot be a constant")))
            }
        }
    }
}

/// A TensorShapeProto for a static shape (`-1` for unknown dimensions).
pub fn shape_to_proto(s: &PartialShape) -> pb::TensorShapeProto {
    match s.dims() {
        None => pb::TensorShapeProto { unknown_rank: true, ..Default::default() },
        Some(d) => pb::TensorShapeProto {
            dim: d
                .iter()
                .map(|x| pb::tensor_shape_proto::Dim {
                    size: x.map_or(-1, |v| i64::try_from(v).unwrap_or(i64::MAX)),
                    name: String::new(),
                })
                .collect(),
            unknown_rank: false,
        },
    }
}

/// The static shape a TensorShapeProto describes.
pub fn shape_from_proto(p: &pb::TensorShapeProto) -> PartialShape {
    if p.unknown_rank {
        return PartialShape::unknown();
    }
    PartialShape::from_dims(p.dim.iter().map(|d| usize::try_from(d.size).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_copy_on_write() {
        let a = Tensor::from_slice(&[2, 2], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(a.as_bytes().unwrap().as_ptr() as usize % ALIGN, 0);
        let mut b = a.clone();
        assert!(!b.is_unique());
        b.as_mut_slice::<f32>().unwrap()[0] = 9.0;
        assert_eq!(a.as_slice::<f32>().unwrap()[0], 1.0);
        assert_eq!(b.as_slice::<f32>().unwrap()[0], 9.0);
        assert!(a.as_slice::<f64>().is_err());
    }

    #[test]
    fn row_views_share_the_batch_and_copy_before_writing() {
        let batch = Tensor::from_slice(&[3, 2], &[1i32, 2, 3, 4, 5, 6]).unwrap();
        let mut row = batch.row_view(1).unwrap();
        assert_eq!(row.shape(), &[2]);
        assert_eq!(row.as_slice::<i32>().unwrap(), &[3, 4]);
        assert_eq!(
            row.to_proto().tensor_content,
            Tensor::from_slice(&[2], &[3i32, 4]).unwrap().to_proto().tensor_content
        );
        // A view of a reshaped view composes its offsets.
        let last = batch.reshaped(&[3, 1, 2]).unwrap().row_view(2).unwrap().row_view(0).unwrap();
        assert_eq!(last.as_slice::<i32>().unwrap(), &[5, 6]);
        assert!(!row.is_unique());
        row.as_mut_slice::<i32>().unwrap()[0] = 30;
        assert_eq!(row.as_slice::<i32>().unwrap(), &[30, 4]);
        assert_eq!(batch.as_slice::<i32>().unwrap(), &[1, 2, 3, 4, 5, 6]);
        assert!(batch.row_view(3).is_err());
        assert!(Tensor::scalar(1f32).row_view(0).is_err());
        assert!(Tensor::from_strings(&[1], vec![b"a".to_vec()]).unwrap().row_view(0).is_err());
    }

    #[test]
    fn proto_round_trip_and_broadcast_fill() {
        let a = Tensor::from_slice(&[3], &[1i64, -2, 3]).unwrap();
        let b = Tensor::from_proto(&a.to_proto()).unwrap();
        assert_eq!(b.as_slice::<i64>().unwrap(), &[1, -2, 3]);
        let p = pb::TensorProto {
            dtype: DType::Float32 as i32,
            tensor_shape: Some(shape_to_proto(&PartialShape::known(&[2, 2]))),
            float_val: vec![7.0],
            ..Default::default()
        };
        assert_eq!(Tensor::from_proto(&p).unwrap().as_slice::<f32>().unwrap(), &[7.0; 4]);
        // The narrow integers are in int_val, truncated; the wide unsigned in their lists.
        let p8 = pb::TensorProto {
            dtype: DType::Int8 as i32,
            tensor_shape: Some(shape_to_proto(&PartialShape::known(&[3]))),
            int_val: vec![-1, 127, 300],
            ..Default::default()
        };
        assert_eq!(Tensor::from_proto(&p8).unwrap().as_slice::<i8>().unwrap(), &[-1, 127, 44]);
        let p64 = pb::TensorProto {
            dtype: DType::UInt64 as i32,
            tensor_shape: Some(shape_to_proto(&PartialShape::known(&[2]))),
            uint64_val: vec![u64::MAX],
            ..Default::default()
        };
        assert_eq!(Tensor::from_proto(&p64).unwrap().as_slice::<u64>().unwrap(), &[u64::MAX; 2]);
        let u16s = Tensor::from_slice(&[2], &[7u16, 65535]).unwrap();
        assert_eq!(Tensor::from_proto(&u16s.to_proto()).unwrap().as_slice::<u16>().unwrap(), &[7, 65535]);
        let s = Tensor::from_strings(&[2], vec![b"a".to_vec(), b"bc".to_vec()]).unwrap();
        assert_eq!(Tensor::from_proto(&s.to_proto()).unwrap().as_strings().unwrap()[1], b"bc");
    }
}
