//! Array kernels that move or convert elements without arithmetic: cast, fill,
//! stack, gather, range, where. Dense copies work on bytes, so one body serves
//! every dtype; string tensors take the same paths over their element vectors.
use crate::buffer::try_vec;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::shape::checked_num_elements;
use crate::tensor::{Tensor, oom_error};

/// Conversion between element types with the results TF's CPU kernels give: C++
/// `static_cast` as x86 executes it. Integer-to-integer wraps (Rust `as`); a float
/// that is NaN or out of an integer type's range becomes that type's minimum (the x86
/// "integer indefinite" value, where Rust `as` would saturate), and a float to `uint8`
/// goes through int32 (`-2.5` is 254, NaN is 0).
pub trait Castable: Element {
    /// As f64.
    fn to_f64(self) -> f64;
    /// As i64.
    fn to_i64(self) -> i64;
    /// From f64.
    fn from_f64(v: f64) -> Self;
    /// From i64.
    fn from_i64(v: i64) -> Self;
}

macro_rules! castable {
    ($($t:ty),*) => {$(
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss,
                clippy::cast_possible_wrap, clippy::cast_lossless)]
        impl Castable for $t {
            fn to_f64(self) -> f64 { self as f64 }
            fn to_i64(self) -> i64 { self as i64 }
            fn from_f64(v: f64) -> Self { v as $t }
            fn from_i64(v: i64) -> Self { v as $t }
        }
    )*};
}
castable!(f32, f64);

macro_rules! castable_int {
    ($($t:ty => $from_f64:expr),*) => {$(
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss,
                clippy::cast_possible_wrap, clippy::cast_lossless)]
        impl Castable for $t {
            fn to_f64(self) -> f64 { self as f64 }
            fn to_i64(self) -> i64 { self as i64 }
            fn from_f64(v: f64) -> Self { $from_f64(v) }
            fn from_i64(v: i64) -> Self { v as $t }
        }
    )*};
}
castable_int!(i32 => f64_to_i32, i64 => f64_to_i64, u8 => |v| f64_to_i32(v) as u8);

/// x86's truncating float-to-int32 conversion (`cvttsd2si`): NaN and values outside
/// int32's range give `i32::MIN`.
#[allow(clippy::cast_possible_truncation)]
fn f64_to_i32(v: f64) -> i32 {
    if v > -2_147_483_649.0 && v < 2_147_483_648.0 { v as i32 } else { i32::MIN }
}

/// x86's truncating float-to-int64 conversion: NaN and values outside int64's range
/// give `i64::MIN`.
#[allow(clippy::cast_possible_truncation)]
fn f64_to_i64(v: f64) -> i64 {
    if v > -9_223_372_036_854_777_856.0 && v < 9_223_372_036_854_775_808.0 { v as i64 } else { i64::MIN }
}

impl Castable for bool {
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn from_i64(v: i64) -> Self {
        v != 0
    }
}

fn cast_typed<S: Castable, D: Castable>(x: &Tensor) -> Result<Tensor> {
    let via_float = S::DTYPE.is_floating();
    super::elementwise::map_into::<S, D>(x, &super::ExecEnv::SINGLE_THREADED, |v| {
        if via_float { D::from_f64(v.to_f64()) } else { D::from_i64(v.to_i64()) }
    })
}

/// Converts `x` to `to`.
pub fn cast(x: &Tensor, to: DType) -> Result<Tensor> {
    if x.dtype() == to {
        return Ok(x.clone());
    }
    crate::dispatch_pod!(x.dtype(), S => crate::dispatch_pod!(to, D => cast_typed::<S, D>(x),
        _ => ff_bail!(Unimplemented, "Cast {} to {to} is not supported", x.dtype())),
        _ => ff_bail!(Unimplemented, "Cast {} to {to} is not supported", x.dtype()))
}

/// A tensor of `shape` with every element equal to the one element of `value`.
pub fn fill(shape: &[usize], value: &Tensor) -> Result<Tensor> {
    if value.dtype() == DType::String {
        let n = checked_num_elements(shape)?;
        let mut v = try_vec(n).map_err(|_| oom_error(DType::String, shape))?;
        v.resize(n, value.as_strings()?[0].clone());
        return Tensor::from_strings(shape, v);
    }
    let one = value.as_bytes()?;
    let mut out = Tensor::for_overwrite(value.dtype(), shape)?;
    if !one.is_empty() {
        for chunk in out.as_mut_bytes()?.chunks_exact_mut(one.len()) {
            chunk.copy_from_slice(one);
        }
    }
    Ok(out)
}

/// Copies blocks: for each `outer` row, the `blocks` given by `pick` (source tensor,
/// block index) of `block` elements each, concatenated. Works for any dtype.
fn gather_blocks(
    dtype: DType,
    shape: &[usize],
    count: usize,
    block: usize,
    mut pick: impl FnMut(usize) -> (usize, usize),
    sources: &[&Tensor],
) -> Result<Tensor> {
    let oom = |_| oom_error(dtype, shape);
    let total = checked_num_elements(shape)?;
    if dtype == DType::String {
        let mut out = try_vec(total).map_err(oom)?;
        for i in 0..count {
            let (src, b) = pick(i);
            out.extend_from_slice(&sources[src].as_strings()?[b * block..(b + 1) * block]);
        }
        return Tensor::from_strings(shape, out);
    }
    let esize = dtype.size();
    let mut out = try_vec(total.checked_mul(esize).ok_or_else(|| oom_error(dtype, shape))?).map_err(oom)?;
    for i in 0..count {
        let (src, b) = pick(i);
        out.extend_from_slice(&sources[src].as_bytes()?[b * block * esize..(b + 1) * block * esize]);
    }
    Tensor::from_bytes(dtype, shape, &out)
}

/// Stacks same-shaped tensors along a new axis `axis` (TF's `Pack`).
pub fn pack(values: &[&Tensor], axis: usize) -> Result<Tensor> {
    let first = values[0];
    for (i, v) in values.iter().enumerate() {
        if v.shape() != first.shape() || v.dtype() != first.dtype() {
            ff_bail!(
                InvalidArgument,
                "Shapes of all inputs must match: values[0].shape = {} != values[{i}].shape = {}",
                crate::shape::fmt_shape(first.shape()),
                crate::shape::fmt_shape(v.shape())
            );
        }
    }
    let mut shape = first.shape().to_vec();
    shape.insert(axis, values.len());
    let outer: usize = first.shape()[..axis].iter().product();
    let block: usize = first.shape()[axis..].iter().product();
    let n = values.len();
    gather_blocks(first.dtype(), &shape, outer * n, block, |i| (i % n, i / n), values)
}

/// Gathers slices of `params` along `axis` at `indices` (TF's `GatherV2`).
pub fn gather(params: &Tensor, indices: &[i64], indices_shape: &[usize], axis: usize) -> Result<Tensor> {
    let dim = params.shape()[axis];
    for (i, &ix) in indices.iter().enumerate() {
        if usize::try_from(ix).map_or(true, |x| x >= dim) {
            ff_bail!(InvalidArgument, "indices[{i}] = {ix} is not in [0, {dim})");
        }
    }
    let outer: usize = params.shape()[..axis].iter().product();
    let block: usize = params.shape()[axis + 1..].iter().product();
    let mut shape = params.shape()[..axis].to_vec();
    shape.extend_from_slice(indices_shape);
    shape.extend_from_slice(&params.shape()[axis + 1..]);
    let k = indices.len();
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let pick = |i: usize| (0, (i / k) * dim + indices[i % k] as usize);
    gather_blocks(params.dtype(), &shape, outer * k, block, pick, &[params])
}

/// The coordinates of the true elements of a bool tensor, `[n, rank]` int64 (TF's `Where`).
pub fn where_true(x: &Tensor) -> Result<Tensor> {
    let mask = x.as_slice::<bool>()?;
    let strides = crate::shape::strides(x.shape());
    let mut coords = Vec::new();
    for (flat, _) in mask.iter().enumerate().filter(|(_, b)| **b) {
        let mut rem = flat;
        for s in &strides {
            coords.push(i64::try_from(rem / s).unwrap_or(i64::MAX));
            rem %= s;
        }
    }
    let rank = x.shape().len();
    let n = coords.len().checked_div(rank).unwrap_or(usize::from(mask.first() == Some(&true)));
    Tensor::from_slice(&[n, x.shape().len()], &coords)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_pack_gather_where() {
        let x = Tensor::from_slice(&[3], &[1.7f32, -2.2, 0.0]).unwrap();
        assert_eq!(cast(&x, DType::Int32).unwrap().as_slice::<i32>().unwrap(), &[1, -2, 0]);
        assert_eq!(cast(&x, DType::Bool).unwrap().as_slice::<bool>().unwrap(), &[true, true, false]);
        let a = Tensor::from_slice(&[2], &[1i32, 2]).unwrap();
        let b = Tensor::from_slice(&[2], &[3i32, 4]).unwrap();
        assert_eq!(pack(&[&a, &b], 1).unwrap().as_slice::<i32>().unwrap(), &[1, 3, 2, 4]);
        let p = Tensor::from_slice(&[3, 2], &[0i64, 1, 2, 3, 4, 5]).unwrap();
        let g = gather(&p, &[2, 0], &[2], 0).unwrap();
        assert_eq!(g.as_slice::<i64>().unwrap(), &[4, 5, 0, 1]);
        assert!(gather(&p, &[3], &[1], 0).is_err());
        let m = Tensor::from_slice(&[2, 2], &[true, false, false, true]).unwrap();
        assert_eq!(where_true(&m).unwrap().as_slice::<i64>().unwrap(), &[0, 0, 1, 1]);
        let s = Tensor::from_strings(&[2], vec![b"a".to_vec(), b"b".to_vec()]).unwrap();
        assert_eq!(gather(&s, &[1], &[1], 0).unwrap().as_strings().unwrap()[0], b"b");
    }
}
