//! numpy <-> Tensor. Fetched tensors become numpy arrays without a copy when the
//! result buffer is not shared (the array keeps the Rust buffer alive); shared
//! buffers (a variable's value, a constant) are copied so the caller may write to
//! the array freely. Rank-0 results become numpy scalars, as in TensorFlow.
use numpy::ndarray::{ArrayViewD, IxDyn};
use numpy::npyffi::PY_ARRAY_API;
use numpy::{PyArray, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyList, PyString};

use ferroflow_core::DType;
use ferroflow_core::dispatch_pod;
use ferroflow_core::dtype::Element;
use ferroflow_core::tensor::Tensor;

/// Keeps a tensor's buffer alive while numpy arrays view it.
#[pyclass(frozen, name = "_TensorBuffer", module = "ferroflow._ferroflow")]
pub struct TensorBuffer(Tensor);

/// A tensor that stays in Rust: fetched without converting to numpy and fed back
/// without a copy. It shares its buffer, so holding one is a snapshot: a variable
/// updated in place afterwards copies its buffer first (copy-on-write).
#[pyclass(frozen, name = "TensorHandle", module = "ferroflow._ferroflow")]
pub struct PyTensorHandle(pub(crate) Tensor);

#[pymethods]
impl PyTensorHandle {
    /// The element type's Python name (`float32`).
    #[getter]
    fn dtype(&self) -> &'static str {
        self.0.dtype().name()
    }
    /// The shape.
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.0.shape().to_vec()
    }
    /// The value as a numpy array (copied, as any shared buffer is).
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tensor_to_py(py, self.0.clone())
    }
    fn __repr__(&self) -> String {
        format!("TensorHandle(dtype={}, shape={:?})", self.0.dtype().name(), self.0.shape())
    }
}

fn numpy_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static NP: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    Ok(NP.get_or_try_init(py, || py.import("numpy").map(Bound::unbind))?.bind(py))
}

/// ml_dtypes' numpy `bfloat16` dtype (TensorFlow's own numpy type for it).
fn bfloat16_dtype(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static BF16: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    Ok(BF16
        .get_or_try_init(py, || {
            let ml = py
                .import("ml_dtypes")
                .map_err(|_| PyTypeError::new_err("bfloat16 tensors convert to numpy through the ml_dtypes package"))?;
            numpy_module(py)?.call_method1("dtype", (ml.getattr("bfloat16")?,)).map(Bound::unbind)
        })?
        .bind(py))
}

fn typed_to_numpy<'py, T: Element + numpy::Element>(py: Python<'py>, t: Tensor) -> PyResult<Bound<'py, PyAny>> {
    let shape = t.shape().to_vec();
    if shape.is_empty() {
        let mut v = t.as_slice::<T>().map_err(|e| PyTypeError::new_err(e.message))?[0];
        let descr = <T as numpy::Element>::get_dtype(py);
        // SAFETY: `v` is a valid T for the duration of the call and `descr` is T's numpy
        // dtype; PyArray_Scalar copies the value into a new numpy scalar (a new
        // reference) and keeps neither pointer.
        return unsafe {
            let ret = PY_ARRAY_API.PyArray_Scalar(py, (&raw mut v).cast(), descr.as_ptr().cast(), std::ptr::null_mut());
            Bound::from_owned_ptr_or_err(py, ret)
        };
    }
    if t.is_unique() && t.num_elements() > 0 {
        let holder = Bound::new(py, TensorBuffer(t))?;
        let ptr = holder.get().0.as_slice::<T>().map_err(|e| PyTypeError::new_err(e.message))?.as_ptr();
        // SAFETY: ptr addresses num_elements() contiguous T values, owned by the
        // tensor inside `holder`, which becomes the array's base object and is never
        // mutated or reallocated while it lives.
        let arr = unsafe {
            let view = ArrayViewD::from_shape_ptr(IxDyn(&shape), ptr);
            PyArrayDyn::<T>::borrow_from_array(&view, holder.into_any())
        };
        return Ok(arr.into_any());
    }
    let data = t.as_slice::<T>().map_err(|e| PyTypeError::new_err(e.message))?;
    Ok(PyArray::from_slice(py, data).reshape(IxDyn(&shape))?.into_any())
}

/// A fetched tensor as a numpy array (or numpy scalar, or `bytes` for a string scalar).
pub fn tensor_to_py(py: Python<'_>, t: Tensor) -> PyResult<Bound<'_, PyAny>> {
    if t.dtype() == DType::String {
        let strings = t.as_strings().map_err(|e| PyTypeError::new_err(e.message))?;
        if t.shape().is_empty() {
            return Ok(PyBytes::new(py, &strings[0]).into_any());
        }
        let items = PyList::new(py, strings.iter().map(|s| PyBytes::new(py, s)))?;
        let np = numpy_module(py)?;
        let arr = np.call_method1("array", (items, np.getattr("object_")?))?;
        return arr.call_method1("reshape", (t.shape().to_vec(),));
    }
    if t.dtype() == DType::BFloat16 {
        // numpy has no bfloat16: the bit patterns as uint16, viewed as ml_dtypes'.
        let bits = t.bitcast(DType::UInt16).map_err(|e| PyTypeError::new_err(e.message))?;
        return typed_to_numpy::<u16>(py, bits)?.call_method1("view", (bfloat16_dtype(py)?,));
    }
    match t.dtype() {
        DType::Complex64 => return typed_to_numpy::<ferroflow_core::num_complex::Complex32>(py, t),
        DType::Complex128 => return typed_to_numpy::<ferroflow_core::num_complex::Complex64>(py, t),
        _ => {}
    }
    dispatch_pod!(t.dtype(), T => typed_to_numpy::<T>(py, t),
        _ => Err(PyTypeError::new_err(format!("cannot convert a {} tensor to numpy", t.dtype()))))
}

fn typed_from_numpy<T: Element + numpy::Element>(a: &Bound<'_, PyArrayDyn<T>>) -> PyResult<Tensor> {
    let r = if a.is_c_contiguous() {
        // SAFETY: the array is C-contiguous and is read only here, while this thread
        // holds the GIL, into a copy; no Rust code holds a mutable borrow of a user's
        // array. (rust-numpy's `readonly()` would record the borrow in its table,
        // which allocates on every call: two allocations per fed array per step.)
        let values = unsafe { a.as_slice() }.map_err(|e| PyTypeError::new_err(e.to_string()))?;
        Tensor::from_slice(a.shape(), values)
    } else {
        let ro = a.readonly();
        Tensor::from_slice(ro.shape(), &ro.as_array().iter().copied().collect::<Vec<_>>())
    };
    r.map_err(|e| PyTypeError::new_err(e.message))
}

fn string_tensor(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let np = numpy_module(obj.py())?;
    let arr = np.call_method1("asarray", (obj, np.getattr("object_")?))?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let flat = arr.call_method1("reshape", (-1,))?.call_method0("tolist")?;
    let mut values = Vec::new();
    for item in flat.cast::<PyList>()?.iter() {
        if let Ok(b) = item.cast::<PyBytes>() {
            values.push(b.as_bytes().to_vec());
        } else if let Ok(s) = item.cast::<PyString>() {
            values.push(s.to_cow()?.into_owned().into_bytes());
        } else {
            return Err(PyTypeError::new_err(format!(
                "Expected bytes or str for a string tensor, got {}",
                item.get_type().name()?
            )));
        }
    }
    Tensor::from_strings(&shape, values).map_err(|e| PyTypeError::new_err(e.message))
}

/// A tensor copied from a numpy array (any layout) of a supported dtype; `string`
/// accepts arrays of bytes/str (object, `S` or `U` kinds); a `TensorHandle` is
/// shared, not copied.
pub fn tensor_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    if let Ok(handle) = obj.cast::<PyTensorHandle>() {
        return Ok(handle.get().0.clone());
    }
    macro_rules! try_typed {
        ($($t:ty),*) => {$(
            if let Ok(a) = obj.cast::<PyArrayDyn<$t>>() {
                return typed_from_numpy::<$t>(a);
            }
        )*};
    }
    try_typed!(
        f32,
        f64,
        i32,
        i64,
        u8,
        bool,
        ferroflow_core::half::f16,
        i8,
        i16,
        u16,
        u32,
        u64,
        ferroflow_core::num_complex::Complex32,
        ferroflow_core::num_complex::Complex64
    );
    if let Ok(dtype) = obj.getattr("dtype")
        && dtype.getattr("name").and_then(|n| n.extract::<String>()).is_ok_and(|n| n == "bfloat16")
        && dtype.eq(bfloat16_dtype(obj.py())?)?
    {
        let bits = obj.call_method1("view", (numpy_module(obj.py())?.getattr("uint16")?,))?;
        let t = typed_from_numpy::<u16>(bits.cast::<PyArrayDyn<u16>>()?)?;
        return t.bitcast(DType::BFloat16).map_err(|e| PyTypeError::new_err(e.message));
    }
    if let Ok(kind) = obj.getattr("dtype").and_then(|d| d.getattr("kind")).and_then(|k| k.extract::<String>())
        && matches!(kind.as_str(), "O" | "S" | "U")
    {
        return string_tensor(obj);
    }
    Err(PyTypeError::new_err(format!(
        "ferroflow cannot make a tensor from {}",
        obj.getattr("dtype").map_or_else(|_| obj.get_type().to_string(), |d| d.to_string())
    )))
}
