//! Concrete shapes (run time) and partial shapes (graph construction, unknown
//! dimensions and unknown rank allowed), with numpy broadcasting for both.
use smallvec::SmallVec;
use std::fmt;

use crate::error::{Error, Result};

/// A concrete shape: one size per dimension.
pub type Shape = SmallVec<[usize; 4]>;

/// A possibly-unknown dimension.
pub type Dim = Option<usize>;

/// A static shape known at graph-construction time: the rank may be unknown
/// (`dims == None`) and so may each dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct PartialShape {
    dims: Option<SmallVec<[Dim; 4]>>,
}

impl PartialShape {
    /// A shape of unknown rank.
    pub fn unknown() -> Self {
        PartialShape { dims: None }
    }
    /// A rank-0 shape.
    pub fn scalar() -> Self {
        PartialShape { dims: Some(SmallVec::new()) }
    }
    /// A shape of known rank whose dimensions may be unknown.
    pub fn from_dims(dims: impl IntoIterator<Item = Dim>) -> Self {
        PartialShape { dims: Some(dims.into_iter().collect()) }
    }
    /// A fully-known shape.
    pub fn known(dims: &[usize]) -> Self {
        Self::from_dims(dims.iter().map(|&d| Some(d)))
    }
    /// A shape of known rank with every dimension unknown.
    pub fn unknown_of_rank(rank: usize) -> Self {
        Self::from_dims(std::iter::repeat_n(None, rank))
    }
    /// The dimensions, or `None` for unknown rank.
    pub fn dims(&self) -> Option<&[Dim]> {
        self.dims.as_deref()
    }
    /// The rank, if known.
    pub fn rank(&self) -> Option<usize> {
        self.dims.as_ref().map(SmallVec::len)
    }
    /// Whether rank and every dimension are known.
    pub fn is_fully_defined(&self) -> bool {
        self.dims.as_ref().is_some_and(|d| d.iter().all(Option::is_some))
    }
    /// The concrete shape when fully defined.
    pub fn to_shape(&self) -> Option<Shape> {
        self.dims.as_ref()?.iter().copied().collect()
    }
    /// The number of elements when fully defined (and countable: `None` on overflow).
    pub fn num_elements(&self) -> Option<usize> {
        self.to_shape().and_then(|s| checked_num_elements(&s).ok())
    }
    /// Whether a tensor of concrete shape `shape` may have this static shape.
    pub fn is_compatible_with(&self, shape: &[usize]) -> bool {
        match &self.dims {
            None => true,
            Some(d) => d.len() == shape.len() && d.iter().zip(shape).all(|(a, b)| a.is_none_or(|a| a == *b)),
        }
    }
    /// The most specific shape compatible with both, or an error if they conflict.
    pub fn merge(&self, other: &PartialShape) -> Result<PartialShape> {
        match (&self.dims, &other.dims) {
            (None, _) => Ok(other.clone()),
            (_, None) => Ok(self.clone()),
            (Some(a), Some(b)) => {
                if a.len() != b.len() {
                    return Err(Error::value(format!("Shapes {self} and {other} are not compatible")));
                }
                let mut out = SmallVec::new();
                for (x, y) in a.iter().zip(b) {
                    out.push(match (x, y) {
                        (Some(x), Some(y)) if x != y => {
                            return Err(Error::value(format!("Shapes {self} and {other} are not compatible")));
                        }
                        (Some(x), _) => Some(*x),
                        (None, y) => *y,
                    });
                }
                Ok(PartialShape { dims: Some(out) })
            }
        }
    }
}

impl fmt::Display for PartialShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.dims {
            None => f.write_str("<unknown>"),
            Some(d) => {
                f.write_str("[")?;
                for (i, x) in d.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    match x {
                        Some(x) => write!(f, "{x}")?,
                        None => f.write_str("?")?,
                    }
                }
                f.write_str("]")
            }
        }
    }
}

/// Formats a concrete shape as TensorFlow does in run-time messages: `[2,3]`.
pub fn fmt_shape(shape: &[usize]) -> String {
    PartialShape::known(shape).to_string()
}

/// The numpy broadcast of two static shapes; incompatible known dimensions are a `ValueError`.
pub fn broadcast_partial(a: &PartialShape, b: &PartialShape) -> Result<PartialShape> {
    let (Some(x), Some(y)) = (a.dims(), b.dims()) else {
        return Ok(PartialShape::unknown());
    };
    let n = x.len().max(y.len());
    let mut out = SmallVec::<[Dim; 4]>::with_capacity(n);
    for i in 0..n {
        let dx = if i + x.len() >= n { x[i + x.len() - n] } else { Some(1) };
        let dy = if i + y.len() >= n { y[i + y.len() - n] } else { Some(1) };
        out.push(match (dx, dy) {
            (Some(1), d) | (d, Some(1)) => d,
            (Some(p), Some(q)) if p == q => Some(p),
            (Some(p), Some(q)) => {
                return Err(Error::value(format!(
                    "Dimensions must be equal, but are {p} and {q} with input shapes: {a}, {b}"
                )));
            }
            // An unknown dimension against a known d > 1 must be d (or the run fails).
            (None, Some(d)) | (Some(d), None) => Some(d),
            (None, None) => None,
        });
    }
    Ok(PartialShape::from_dims(out))
}

/// The numpy broadcast of two concrete shapes.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Shape> {
    let n = a.len().max(b.len());
    let mut out = Shape::with_capacity(n);
    for i in 0..n {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out.push(match (da, db) {
            (1, d) | (d, 1) => d,
            (p, q) if p == q => p,
            _ => {
                return Err(Error::new(
                    crate::error::Code::InvalidArgument,
                    format!("Incompatible shapes: {} vs. {}", fmt_shape(a), fmt_shape(b)),
                ));
            }
        });
    }
    Ok(out)
}

/// The most elements a tensor may have: TF's `TensorShape` counts in `int64`.
pub const MAX_ELEMENTS: usize = i64::MAX as usize;

/// The number of elements of a concrete shape that came from a user's values (a fed
/// shape, a `Fill`'s dims, a checkpoint's index), or TF's `InvalidArgument` when the
/// count overflows. The one gate between a shape and anything sized by it: every
/// tensor's shape passes it, so `Tensor::num_elements` and any sub-product of a
/// tensor's dimensions are exact.
///
/// Stricter than TF in one corner: the product of the *non-zero* dimensions must fit
/// (TF accepts `[2**62, 0, 2**62]`, whose partial products a kernel could still
/// overflow).
pub fn checked_num_elements(shape: &[usize]) -> Result<usize> {
    let mut nonzero: usize = 1;
    let mut zero = false;
    for &d in shape {
        if d == 0 {
            zero = true;
            continue;
        }
        nonzero = match nonzero.checked_mul(d) {
            Some(p) if p <= MAX_ELEMENTS => p,
            _ => {
                return Err(Error::new(
                    crate::error::Code::InvalidArgument,
                    format!("Encountered overflow when multiplying {nonzero} with {d}, result: -1"),
                ));
            }
        };
    }
    Ok(if zero { 0 } else { nonzero })
}

/// Row-major strides (in elements) of `shape`.
pub fn strides(shape: &[usize]) -> Shape {
    let mut s: Shape = smallvec::smallvec![0; shape.len()];
    let mut acc = 1;
    for i in (0..shape.len()).rev() {
        s[i] = acc;
        acc *= shape[i];
    }
    s
}

/// Resolves a possibly-negative axis against `rank` (`-1` is the last axis).
pub fn normalize_axis(axis: i64, rank: usize) -> Option<usize> {
    let r = i64::try_from(rank).ok()?;
    let a = if axis < 0 { axis + r } else { axis };
    (0..r).contains(&a).then(|| usize::try_from(a).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shapes(&[2, 1, 3], &[4, 1]).unwrap().as_slice(), &[2, 4, 3]);
        assert!(broadcast_shapes(&[2], &[3]).is_err());
        let a = PartialShape::from_dims([None, Some(3)]);
        let b = PartialShape::known(&[3]);
        assert_eq!(broadcast_partial(&a, &b).unwrap(), a);
        assert!(broadcast_partial(&PartialShape::known(&[2]), &b).is_err());
        assert_eq!(broadcast_partial(&PartialShape::unknown(), &b).unwrap(), PartialShape::unknown());
    }

    #[test]
    fn merge_and_display() {
        let a = PartialShape::from_dims([None, Some(3)]);
        let b = PartialShape::from_dims([Some(2), None]);
        assert_eq!(a.merge(&b).unwrap(), PartialShape::known(&[2, 3]));
        assert!(a.merge(&PartialShape::known(&[2, 4])).is_err());
        assert_eq!(a.to_string(), "[?,3]");
        assert_eq!(normalize_axis(-1, 3), Some(2));
        assert_eq!(normalize_axis(3, 3), None);
        assert_eq!(strides(&[2, 3, 4]).as_slice(), &[12, 4, 1]);
    }

    #[test]
    fn element_counts_are_checked() {
        assert_eq!(checked_num_elements(&[]).unwrap(), 1);
        assert_eq!(checked_num_elements(&[2, 0, 3]).unwrap(), 0);
        assert_eq!(checked_num_elements(&[1 << 31, 1 << 31]).unwrap(), 1 << 62);
        let e = checked_num_elements(&[(1 << 62) + 1, 4]).unwrap_err();
        assert_eq!(e.message, "Encountered overflow when multiplying 4611686018427387905 with 4, result: -1");
        assert!(checked_num_elements(&[1 << 32, 1 << 32]).is_err());
        assert!(checked_num_elements(&[1 << 32, 0, 1 << 32]).is_err());
        assert!(checked_num_elements(&[usize::MAX]).is_err());
    }
}
