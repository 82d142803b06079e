//! Reading the small int tensors that shape functions and kernels take as arguments
//! (shapes, axes, counts), with TF's errors (TF's `tensor_util`/`TensorShapeUtils`).
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// The values of a small int tensor (a shape, axes): on the stack up to rank 8, so a
/// kernel reading its shape argument allocates nothing.
pub type IntValues = smallvec::SmallVec<[i64; 8]>;

/// Reads an int vector from a constant int32/int64 tensor.
pub fn int_values(t: &Tensor) -> Result<IntValues> {
    match t.dtype() {
        DType::Int32 => Ok(t.as_slice::<i32>()?.iter().map(|&v| i64::from(v)).collect()),
        DType::Int64 => Ok(IntValues::from_slice(t.as_slice::<i64>()?)),
        d => Err(Error::type_error(format!("expected an int32 or int64 tensor, got {d}"))),
    }
}

/// Element counts from an int vector that must be non-negative.
pub fn dims_from(values: &[i64], what: &str) -> Result<Shape> {
    values
        .iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| Error::invalid_argument(format!("{what} must be non-negative, got {d}")))
        })
        .collect()
}

/// A shape from the values of a shape argument (`Fill`'s dims, `BroadcastTo`'s shape,
/// the random ops' shape), with the errors of TF's `TensorShapeUtils::MakeShape`.
pub fn shape_from_values(values: &[i64], what: &str) -> Result<Shape> {
    let dims = dims_from(values, what)?;
    crate::shape::checked_num_elements(&dims).map_err(|_| {
        Error::invalid_argument(format!(
            "Shape {} would have more than 2**63 - 1 elements",
            crate::shape::fmt_shape(&dims)
        ))
    })?;
    Ok(dims)
}

/// The value of a 0-D int32/int64 tensor (an axis, a depth, a bound); `what` names it
/// in the `InvalidArgumentError` for any other shape.
pub fn scalar_int(t: &Tensor, what: &str) -> Result<i64> {
    if !t.shape().is_empty() {
        return Err(Error::invalid_argument(format!(
            "{what} must be 0-D, got shape {}",
            crate::shape::fmt_shape(t.shape())
        )));
    }
    Ok(int_values(t)?[0])
}
