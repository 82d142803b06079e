//! What shape functions and kernels must compute alike (TF's `kernel_shape_util`,
//! `util/padding` and `ops_util`): windowed output sizes and window attrs, reshape's
//! `-1`, a range's length, permutations, reduction axes, mirror-pad modes. Both the op
//! schemas and the kernels call these, so a static shape never disagrees with the
//! value a kernel computes.
use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::dtype::Castable;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::tensor_util::{dims_from, int_values};
use crate::shape::normalize_axis;
use crate::tensor::Tensor;

/// TF's `padding` attr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// No padding: windows stay inside the input.
    Valid,
    /// Zero padding so that `out = ceil(in / stride)`, split evenly with the extra
    /// element after.
    Same,
}

impl Padding {
    /// Parses the attr value.
    pub fn parse(s: &str) -> Option<Padding> {
        match s {
            "VALID" => Some(Padding::Valid),
            "SAME" => Some(Padding::Same),
            _ => None,
        }
    }
}

/// Output size and leading padding of one spatial dimension (TF's
/// `GetWindowedOutputSizeVerbose`), or an error naming the sizes when the window
/// does not fit.
pub fn windowed_output(
    input: usize,
    window: usize,
    dilation: usize,
    stride: usize,
    padding: Padding,
) -> std::result::Result<(usize, usize), String> {
    let effective = (window - 1) * dilation + 1;
    match padding {
        Padding::Valid => {
            if input < effective {
                return Err(format!(
                    "Computed output size would be negative: {} [input_size: {input}, effective_filter_size: {effective}, stride: {stride}]",
                    input as i64 - effective as i64 + 1
                ));
            }
            Ok(((input - effective) / stride + 1, 0))
        }
        Padding::Same => {
            let out = input.div_ceil(stride);
            let needed = ((out.max(1) - 1) * stride + effective).saturating_sub(input);
            Ok((out, needed / 2))
        }
    }
}

/// The window attrs of a conv or pool node, validated as TF's shape functions do.
#[derive(Clone, Copy, Debug)]
pub struct WindowAttrs {
    /// `[rows, cols]` window of a pool (`ksize`); unused by convolutions.
    pub window: [usize; 2],
    /// `[rows, cols]` strides.
    pub strides: [usize; 2],
    /// `[rows, cols]` dilations (1 for pools).
    pub dilations: [usize; 2],
    /// `padding`.
    pub padding: Padding,
}

/// The `padding` attr of a node of op `op`: `SAME` or `VALID`.
fn padding_attr(attrs: &BTreeMap<String, AttrValue>, op: &str) -> Result<Padding> {
    match attrs.get("padding") {
        Some(AttrValue::S(s)) => Padding::parse(&String::from_utf8_lossy(s)),
        _ => None,
    }
    .ok_or_else(|| Error::value(format!("{op}: padding must be 'SAME' or 'VALID'")))
}

/// The window attrs of a node of op `op` (a pool when `pooling`), validated.
pub fn window_attrs(attrs: &BTreeMap<String, AttrValue>, op: &str, pooling: bool) -> Result<WindowAttrs> {
    let padding = padding_attr(attrs, op)?;
    match attrs.get("data_format") {
        None => {}
        Some(AttrValue::S(s)) if s == b"NHWC" => {}
        Some(other) => {
            return Err(Error::value(format!(
                "{op}: only the NHWC data format is supported on the CPU, got {other:?}"
            )));
        }
    }
    Ok(WindowAttrs {
        window: if pooling { spatial(attrs, op, "ksize", None)? } else { [1, 1] },
        strides: spatial(attrs, op, "strides", None)?,
        dilations: if pooling { [1, 1] } else { spatial(attrs, op, "dilations", Some(1))? },
        padding,
    })
}

/// The window attrs of a 3-D conv or pool node, validated as TF's shape functions do.
#[derive(Clone, Copy, Debug)]
pub struct Window3dAttrs {
    /// `[planes, rows, cols]` window of a pool (`ksize`); unused by convolutions.
    pub window: [usize; 3],
    /// Strides per spatial dimension.
    pub strides: [usize; 3],
    /// Dilations per spatial dimension (1 for pools).
    pub dilations: [usize; 3],
    /// `padding`.
    pub padding: Padding,
}

/// The window attrs of a 3-D node of op `op` (a pool when `pooling`), validated.
pub fn window3d_attrs(attrs: &BTreeMap<String, AttrValue>, op: &str, pooling: bool) -> Result<Window3dAttrs> {
    let padding = padding_attr(attrs, op)?;
    match attrs.get("data_format") {
        None => {}
        Some(AttrValue::S(s)) if s == b"NDHWC" => {}
        Some(AttrValue::S(s)) if s == b"NCDHW" => {}
        Some(other) => return Err(Error::value(format!("{op}: invalid data format {other:?}"))),
    }
    Ok(Window3dAttrs {
        window: if pooling { spatial3(attrs, op, "ksize", None)? } else { [1, 1, 1] },
        strides: spatial3(attrs, op, "strides", None)?,
        dilations: if pooling { [1, 1, 1] } else { spatial3(attrs, op, "dilations", Some(1))? },
        padding,
    })
}

/// How `MirrorPad` reflects: `Reflect` leaves out the edge element (`[1 2 3]` padded by
/// 2 is `3 2 [1 2 3] 2 1`), `Symmetric` repeats it (`2 1 [1 2 3] 3 2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MirrorMode {
    /// TF's `REFLECT`.
    Reflect,
    /// TF's `SYMMETRIC`.
    Symmetric,
}

/// A permutation of `rank` axes from an int tensor (`Transpose`'s `perm`), checked.
pub fn perm_of(t: &Tensor, rank: usize) -> Result<Vec<usize>> {
    let p = dims_from(&int_values(t)?, "perm")?;
    if p.len() != rank {
        ff_bail!(
            InvalidArgument,
            "transpose expects a vector of size {rank}. But input(1) is a vector of size {}",
            p.len()
        );
    }
    Ok(p.into_vec())
}

/// Normalises, sorts and de-duplicates reduction axes for a tensor of rank `rank`.
pub fn reduction_axes(axes: &[i64], rank: usize) -> Result<crate::shape::Shape> {
    let mut out = crate::shape::Shape::new();
    for &a in axes {
        match normalize_axis(a, rank) {
            Some(x) => out.push(x),
            None => ff_bail!(InvalidArgument, "Invalid reduction dimension ({a} for input with {rank} dimension(s)"),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The number of elements of `Range(start, limit, delta)` computed in floating point
/// (TF's rule for float ranges; the shape function uses it for every type), with
/// TF's checks: a NaN or infinite bound or step is an `InvalidArgument`, never a
/// saturated or empty size.
/// The size is computed in the range's own type, as TF's kernel and shape function
/// do (a float32 span can round to another count than in f64).
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
pub fn range_len<T>(start: T, limit: T, delta: T) -> Result<usize>
where
    T: Castable + std::ops::Sub<Output = T> + std::ops::Div<Output = T>,
{
    check_range_bounds(start.to_f64(), limit.to_f64(), delta.to_f64())?;
    // The quotient in T, widened exactly: its magnitude's ceiling is T's own.
    let size = ((limit - start) / delta).to_f64().abs().ceil();
    // NaN bounds fail the comparisons above; an infinite span lands here.
    if !matches!(size.partial_cmp(&(i64::MAX as f64)), Some(Ordering::Less | Ordering::Equal)) {
        ff_bail!(InvalidArgument, "Requires ((limit - start) / delta) <= {}", i64::MAX);
    }
    Ok(size as usize)
}

/// TF's `RangeOp` checks on the bounds, branch for branch: a NaN bound fails the
/// comparison, and a NaN step takes the `delta < 0` branch, as in TF.
pub(crate) fn check_range_bounds<T: PartialOrd + Default + std::fmt::Display + Copy>(
    start: T,
    limit: T,
    delta: T,
) -> Result<()> {
    use Ordering::{Equal, Greater, Less};
    let zero = T::default();
    if delta == zero {
        ff_bail!(InvalidArgument, "Requires delta != 0: {}", show(delta));
    }
    if delta > zero {
        if !matches!(start.partial_cmp(&limit), Some(Less | Equal)) {
            ff_bail!(InvalidArgument, "Requires start <= limit when delta > 0: {}/{}", show(start), show(limit));
        }
    } else if !matches!(start.partial_cmp(&limit), Some(Greater | Equal)) {
        ff_bail!(InvalidArgument, "Requires start >= limit when delta < 0: {}/{}", show(start), show(limit));
    }
    Ok(())
}

/// Resolves a requested shape with at most one `-1` against `n` elements.
pub fn resolve_shape(requested: &[i64], n: Option<usize>) -> Result<smallvec::SmallVec<[Option<usize>; 4]>> {
    let mut unknown = None;
    let mut known = 1usize;
    let mut dims = smallvec::SmallVec::with_capacity(requested.len());
    for (i, &d) in requested.iter().enumerate() {
        if d == -1 {
            if unknown.replace(i).is_some() {
                ff_bail!(InvalidArgument, "only one input size may be -1, not both {} and {i}", unknown.unwrap_or(0));
            }
            dims.push(None);
        } else {
            let d = usize::try_from(d)
                .map_err(|_| Error::invalid_argument(format!("size {i} must be non-negative, not {d}")))?;
            known = known.checked_mul(d).filter(|&k| k <= crate::shape::MAX_ELEMENTS).ok_or_else(|| {
                let list: Vec<String> = requested.iter().map(ToString::to_string).collect();
                Error::invalid_argument(format!("Shape [{}] has too many elements", list.join(", ")))
            })?;
            dims.push(Some(d));
        }
    }
    if let Some(n) = n {
        match unknown {
            Some(i) if known > 0 && n % known == 0 => dims[i] = Some(n / known),
            Some(_) if n == 0 => {}
            None if n == known => {}
            _ => ff_bail!(
                InvalidArgument,
                "Input to reshape is a tensor with {n} values, but the requested shape {} {}",
                if unknown.is_some() { "requires a multiple of" } else { "has" },
                known
            ),
        }
    }
    Ok(dims)
}

fn spatial(attrs: &BTreeMap<String, AttrValue>, op: &str, name: &str, default: Option<i64>) -> Result<[usize; 2]> {
    let values = match (attrs.get(name), default) {
        (Some(AttrValue::ListI(v)), _) => v.clone(),
        (None, Some(d)) => vec![d; 4],
        _ => return Err(Error::value(format!("{op} requires the '{name}' attribute (a list of 4 ints)"))),
    };
    if values.len() != 4 {
        return Err(Error::value(format!(
            "{op} requires the {name} attribute to contain 4 values, but got: {}",
            values.len()
        )));
    }
    if values[0] != 1 || values[3] != 1 {
        return Err(Error::value(format!(
            "{op}: {name} in the batch and depth dimensions must be 1 (this implementation does not yet support others), got {values:?}"
        )));
    }
    let as_size = |v: i64| {
        usize::try_from(v)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| Error::value(format!("{op}: {name} must be positive, got {values:?}")))
    };
    Ok([as_size(values[1])?, as_size(values[2])?])
}

fn spatial3(attrs: &BTreeMap<String, AttrValue>, op: &str, name: &str, default: Option<i64>) -> Result<[usize; 3]> {
    let values = match (attrs.get(name), default) {
        (Some(AttrValue::ListI(v)), _) => v.clone(),
        (None, Some(d)) => vec![d; 5],
        _ => return Err(Error::value(format!("{op} requires the '{name}' attribute (a list of 5 ints)"))),
    };
    if values.len() != 5 {
        return Err(Error::value(format!("{op}: {name} attribute must contain 5 values, but got: {}", values.len())));
    }
    if values[0] != 1 || values[4] != 1 {
        return Err(Error::value(format!(
            "{op}: {name} in the batch and depth dimensions must be 1 (this implementation does not yet support others), got {values:?}"
        )));
    }
    let as_size = |v: i64| {
        usize::try_from(v)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| Error::value(format!("{op}: {name} must be positive, got {values:?}")))
    };
    Ok([as_size(values[1])?, as_size(values[2])?, as_size(values[3])?])
}

/// A bound as TF prints it (`nan`, not Rust's `NaN`).
fn show<T: std::fmt::Display>(v: T) -> String {
    let s = v.to_string();
    if s == "NaN" { "nan".into() } else { s }
}
