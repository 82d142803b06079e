//! Elementwise kernels: binary ops with numpy broadcasting and unary maps. Both reuse
//! an input's buffer in place when the executor handed over its last reference.
//!
//! The loops are plain iterator code that LLVM vectorises; `multiversion` compiles each
//! for AVX-512 and AVX2+FMA as well as the baseline and picks one at run time, so one
//! wheel runs at full width on the CPU it lands on (no fused multiply-adds appear: Rust
//! never contracts `a * b + c`, so results match the baseline bit for bit). Tensors of
//! at least [`PARALLEL_MIN`] elements are split across the intra-op pool.
use multiversion::multiversion;

use super::ExecEnv;
use crate::dtype::Element;
use crate::error::Result;
use crate::shape::{Shape, broadcast_shapes, strides};
use crate::tensor::Tensor;

pub use crate::framework::kernel::PARALLEL_MIN;

/// `out[i] = f(xs[i], ys[i])`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn zip_into<T: Copy, R: Copy, F: Fn(T, T) -> R>(out: &mut [R], xs: &[T], ys: &[T], f: &F) {
    for ((o, &x), &y) in out.iter_mut().zip(xs).zip(ys) {
        *o = f(x, y);
    }
}

/// `xs[i] = f(xs[i], ys[i])`, or `f(ys[i], xs[i])` when `swapped`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn zip_in_place<T: Copy, F: Fn(T, T) -> T>(xs: &mut [T], ys: &[T], swapped: bool, f: &F) {
    if swapped {
        xs.iter_mut().zip(ys).for_each(|(x, &y)| *x = f(y, *x));
    } else {
        xs.iter_mut().zip(ys).for_each(|(x, &y)| *x = f(*x, y));
    }
}

/// `out[i] = f(xs[i])`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn map_to<T: Copy, R: Copy, F: Fn(T) -> R>(out: &mut [R], xs: &[T], f: &F) {
    for (o, &x) in out.iter_mut().zip(xs) {
        *o = f(x);
    }
}

/// `xs[i] = f(xs[i])`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn map_in_place<T: Copy, F: Fn(T) -> T>(xs: &mut [T], f: &F) {
    for x in xs.iter_mut() {
        *x = f(*x);
    }
}

/// `f(a, b)` elementwise with numpy broadcasting.
pub fn binary<T: Element>(a: Tensor, b: Tensor, env: &ExecEnv, f: impl Fn(T, T) -> T + Sync) -> Result<Tensor> {
    if a.shape() == b.shape() {
        if a.is_unique() || b.is_unique() {
            let swapped = !a.is_unique();
            let (mut dst, src) = if swapped { (b, a) } else { (a, b) };
            let ys = src.as_slice::<T>()?;
            env.for_each_chunk(dst.as_mut_slice::<T>()?, PARALLEL_MIN, 64, |off, xs| {
                zip_in_place(xs, &ys[off..off + xs.len()], swapped, &f);
            });
            return Ok(dst);
        }
        let mut out = Tensor::for_overwrite(T::DTYPE, a.shape())?;
        let (xs, ys) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
        env.for_each_chunk(out.as_mut_slice::<T>()?, PARALLEL_MIN, 64, |off, o| {
            zip_into(o, &xs[off..off + o.len()], &ys[off..off + o.len()], &f);
        });
        return Ok(out);
    }
    let out_shape = broadcast_shapes(a.shape(), b.shape())?;
    if b.num_elements() == 1 && out_shape.as_slice() == a.shape() {
        let y = b.as_slice::<T>()?[0];
        return unary(a, env, |x| f(x, y));
    }
    if a.num_elements() == 1 && out_shape.as_slice() == b.shape() {
        let x = a.as_slice::<T>()?[0];
        return unary(b, env, |y| f(x, y));
    }
    let mut out = Tensor::for_overwrite(T::DTYPE, &out_shape)?;
    broadcast_into(out.as_mut_slice::<T>()?, &out_shape, &a, &b, env, f)?;
    Ok(out)
}

/// Strides of `shape` viewed at rank `rank` with broadcast dimensions given stride 0.
fn broadcast_strides(shape: &[usize], out: &[usize]) -> Shape {
    let pad = out.len() - shape.len();
    let own = strides(shape);
    (0..out.len()).map(|i| if i < pad || shape[i - pad] == 1 { 0 } else { own[i - pad] }).collect()
}

/// `f(a, b)` elementwise with numpy broadcasting into a tensor of another type
/// (comparisons, logical ops).
pub fn binary_to<T: Element, R: Element>(
    a: &Tensor,
    b: &Tensor,
    env: &ExecEnv,
    f: impl Fn(T, T) -> R + Sync,
) -> Result<Tensor> {
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let mut out = Tensor::for_overwrite(R::DTYPE, &shape)?;
    broadcast_into(out.as_mut_slice::<R>()?, &shape, a, b, env, f)?;
    Ok(out)
}

/// The general broadcast, split by rows of the innermost dimension.
fn broadcast_into<T: Element, R: Element>(
    out: &mut [R],
    shape: &[usize],
    a: &Tensor,
    b: &Tensor,
    env: &ExecEnv,
    f: impl Fn(T, T) -> R + Sync,
) -> Result<()> {
    let (xs, ys) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    if out.is_empty() {
        return Ok(());
    }
    let rank = shape.len();
    if rank == 0 {
        out[0] = f(xs[0], ys[0]);
        return Ok(());
    }
    let (sa, sb) = (broadcast_strides(a.shape(), shape), broadcast_strides(b.shape(), shape));
    let inner = shape[rank - 1];
    env.for_each_chunk(out, PARALLEL_MIN, inner, |off, rows| {
        broadcast_rows(rows, off / inner, shape, (&sa, &sb), (xs, ys), &f);
    });
    Ok(())
}

/// Rows `first..` of a broadcast (as many as `out` holds): an odometer over the outer
/// dimensions, a vectorised inner loop where the innermost strides allow one.
fn broadcast_rows<T: Copy, R: Copy>(
    out: &mut [R],
    first: usize,
    shape: &[usize],
    (sa, sb): (&[usize], &[usize]),
    (xs, ys): (&[T], &[T]),
    f: &(impl Fn(T, T) -> R + Sync),
) {
    let rank = shape.len();
    let inner = shape[rank - 1];
    // The odometer's starting position: `first` in mixed radix over dims 0..rank-1.
    let mut idx: Shape = smallvec::smallvec![0usize; rank - 1];
    let (mut oa, mut ob) = (0usize, 0usize);
    let mut rest = first;
    for d in (0..rank - 1).rev() {
        idx[d] = rest % shape[d];
        rest /= shape[d];
        oa += idx[d] * sa[d];
        ob += idx[d] * sb[d];
    }
    let (ia, ib) = (sa[rank - 1], sb[rank - 1]);
    for row in out.chunks_exact_mut(inner) {
        match (ia, ib) {
            (1, 1) => zip_into(row, &xs[oa..oa + inner], &ys[ob..ob + inner], f),
            (1, 0) => {
                let y = ys[ob];
                map_to(row, &xs[oa..oa + inner], &|x| f(x, y));
            }
            (0, 1) => {
                let x = xs[oa];
                map_to(row, &ys[ob..ob + inner], &|y| f(x, y));
            }
            _ => row.iter_mut().enumerate().for_each(|(j, o)| *o = f(xs[oa + j * ia], ys[ob + j * ib])),
        }
        // Advance the odometer over dimensions 0..rank-1.
        for d in (0..rank - 1).rev() {
            idx[d] += 1;
            oa += sa[d];
            ob += sb[d];
            if idx[d] < shape[d] {
                break;
            }
            oa -= sa[d] * shape[d];
            ob -= sb[d] * shape[d];
            idx[d] = 0;
        }
    }
}

/// `f(x)` elementwise, in place when `x`'s buffer is not shared.
pub fn unary<T: Element>(x: Tensor, env: &ExecEnv, f: impl Fn(T) -> T + Sync) -> Result<Tensor> {
    unary_chunks(x, env, |out, src| match src {
        None => map_in_place(out, &f),
        Some(src) => map_to(out, src, &f),
    })
}

/// A same-typed map of `x` by chunks (split over the intra-op threads):
/// `f(chunk, None)` maps a chunk of `x`'s own buffer in place when nothing else shares
/// it, else `f(out, Some(src))` writes a chunk of a new tensor from the matching chunk
/// of `x`. For kernels whose loop is a block function rather than an element function.
pub fn unary_chunks<T: Element>(x: Tensor, env: &ExecEnv, f: impl Fn(&mut [T], Option<&[T]>) + Sync) -> Result<Tensor> {
    if x.is_unique() {
        let mut x = x;
        env.for_each_chunk(x.as_mut_slice::<T>()?, PARALLEL_MIN, 64, |_, xs| f(xs, None));
        return Ok(x);
    }
    let mut out = Tensor::for_overwrite(T::DTYPE, x.shape())?;
    let src = x.as_slice::<T>()?;
    env.for_each_chunk(out.as_mut_slice::<T>()?, PARALLEL_MIN, 64, |off, o| f(o, Some(&src[off..off + o.len()])));
    Ok(out)
}

/// `f(x)` elementwise into a new tensor (of another element type, possibly).
pub fn map_into<T: Element, R: Element>(x: &Tensor, env: &ExecEnv, f: impl Fn(T) -> R + Sync) -> Result<Tensor> {
    let mut out = Tensor::for_overwrite(R::DTYPE, x.shape())?;
    let xs = x.as_slice::<T>()?;
    env.for_each_chunk(out.as_mut_slice::<R>()?, PARALLEL_MIN, 64, |off, o| map_to(o, &xs[off..off + o.len()], &f));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_matches_numpy_rules() {
        let a = Tensor::from_slice(&[2, 1, 3], &[1f32, 2., 3., 4., 5., 6.]).unwrap();
        let b = Tensor::from_slice(&[2, 1], &[10f32, 20.]).unwrap();
        let c = binary::<f32>(a, b, &ExecEnv { intra_pool: None }, |x, y| x + y).unwrap();
        assert_eq!(c.shape(), &[2, 2, 3]);
        assert_eq!(c.as_slice::<f32>().unwrap(), &[11., 12., 13., 21., 22., 23., 14., 15., 16., 24., 25., 26.]);
    }

    #[test]
    fn shared_inputs_are_not_overwritten() {
        let a = Tensor::from_slice(&[2], &[1i32, 2]).unwrap();
        let keep = a.clone();
        let c = binary::<i32>(a, Tensor::scalar(5i32), &ExecEnv { intra_pool: None }, |x, y| x * y).unwrap();
        assert_eq!(c.as_slice::<i32>().unwrap(), &[5, 10]);
        assert_eq!(keep.as_slice::<i32>().unwrap(), &[1, 2]);
        let three = Tensor::from_slice(&[3], &[1i32, 2, 3]).unwrap();
        let s = binary::<i32>(Tensor::scalar(1i32), three, &ExecEnv { intra_pool: None }, |x, y| x - y);
        assert_eq!(s.unwrap().as_slice::<i32>().unwrap(), &[0, -1, -2]);
    }
}
