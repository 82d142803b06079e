//! Elementwise kernels: binary ops with numpy broadcasting and unary maps. Both reuse
//! an input's buffer in place when the executor handed over its last reference.
use crate::dtype::Element;
use crate::error::Result;
use crate::shape::{broadcast_shapes, strides};
use crate::tensor::Tensor;

/// `f(a, b)` elementwise with numpy broadcasting.
pub fn binary<T: Element>(a: Tensor, b: Tensor, f: impl Fn(T, T) -> T) -> Result<Tensor> {
    if a.shape() == b.shape() {
        if a.is_unique() {
            let mut a = a;
            let ys = b.as_slice::<T>()?;
            a.as_mut_slice::<T>()?.iter_mut().zip(ys).for_each(|(x, &y)| *x = f(*x, y));
            return Ok(a);
        }
        if b.is_unique() {
            let mut b = b;
            let xs = a.as_slice::<T>()?;
            b.as_mut_slice::<T>()?.iter_mut().zip(xs).for_each(|(y, &x)| *y = f(x, *y));
            return Ok(b);
        }
        let mut out = Tensor::zeros(T::DTYPE, a.shape());
        let (xs, ys) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
        out.as_mut_slice::<T>()?.iter_mut().zip(xs.iter().zip(ys)).for_each(|(o, (&x, &y))| *o = f(x, y));
        return Ok(out);
    }
    let out_shape = broadcast_shapes(a.shape(), b.shape())?;
    if b.num_elements() == 1 && out_shape.as_slice() == a.shape() {
        let y = b.as_slice::<T>()?[0];
        return unary(a, |x| f(x, y));
    }
    if a.num_elements() == 1 && out_shape.as_slice() == b.shape() {
        let x = a.as_slice::<T>()?[0];
        return unary(b, |y| f(x, y));
    }
    let mut out = Tensor::zeros(T::DTYPE, &out_shape);
    broadcast_into(out.as_mut_slice::<T>()?, &out_shape, &a, &b, f)?;
    Ok(out)
}

/// Strides of `shape` viewed at rank `rank` with broadcast dimensions given stride 0.
fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let pad = out.len() - shape.len();
    let own = strides(shape);
    (0..out.len()).map(|i| if i < pad || shape[i - pad] == 1 { 0 } else { own[i - pad] }).collect()
}

/// `f(a, b)` elementwise with numpy broadcasting into a tensor of another type
/// (comparisons, logical ops).
pub fn binary_to<T: Element, R: Element>(a: &Tensor, b: &Tensor, f: impl Fn(T, T) -> R) -> Result<Tensor> {
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let mut out = Tensor::zeros(R::DTYPE, &shape);
    broadcast_into(out.as_mut_slice::<R>()?, &shape, a, b, f)?;
    Ok(out)
}

/// The general broadcast: an odometer over the outer dimensions, a strided inner loop.
fn broadcast_into<T: Element, R: Element>(
    out: &mut [R],
    shape: &[usize],
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(T, T) -> R,
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
    let (ia, ib) = (sa[rank - 1], sb[rank - 1]);
    let mut idx = vec![0usize; rank - 1];
    let (mut oa, mut ob) = (0usize, 0usize);
    for row in out.chunks_exact_mut(inner) {
        match (ia, ib) {
            (1, 1) => {
                row.iter_mut().zip(&xs[oa..oa + inner]).zip(&ys[ob..ob + inner]).for_each(|((o, &x), &y)| *o = f(x, y))
            }
            (1, 0) => row.iter_mut().zip(&xs[oa..oa + inner]).for_each(|(o, &x)| *o = f(x, ys[ob])),
            (0, 1) => row.iter_mut().zip(&ys[ob..ob + inner]).for_each(|(o, &y)| *o = f(xs[oa], y)),
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
    Ok(())
}

/// `f(x)` elementwise, in place when `x`'s buffer is not shared.
pub fn unary<T: Element>(x: Tensor, f: impl Fn(T) -> T) -> Result<Tensor> {
    if x.is_unique() {
        let mut x = x;
        x.as_mut_slice::<T>()?.iter_mut().for_each(|v| *v = f(*v));
        return Ok(x);
    }
    let mut out = Tensor::zeros(T::DTYPE, x.shape());
    out.as_mut_slice::<T>()?.iter_mut().zip(x.as_slice::<T>()?).for_each(|(o, &v)| *o = f(v));
    Ok(out)
}

/// `f(x)` elementwise into a tensor of another element type.
pub fn map_into<T: Element, R: Element>(x: &Tensor, f: impl Fn(T) -> R) -> Result<Tensor> {
    let mut out = Tensor::zeros(R::DTYPE, x.shape());
    out.as_mut_slice::<R>()?.iter_mut().zip(x.as_slice::<T>()?).for_each(|(o, &v)| *o = f(v));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_matches_numpy_rules() {
        let a = Tensor::from_slice(&[2, 1, 3], &[1f32, 2., 3., 4., 5., 6.]).unwrap();
        let b = Tensor::from_slice(&[2, 1], &[10f32, 20.]).unwrap();
        let c = binary::<f32>(a, b, |x, y| x + y).unwrap();
        assert_eq!(c.shape(), &[2, 2, 3]);
        assert_eq!(c.as_slice::<f32>().unwrap(), &[11., 12., 13., 21., 22., 23., 14., 15., 16., 24., 25., 26.]);
    }

    #[test]
    fn shared_inputs_are_not_overwritten() {
        let a = Tensor::from_slice(&[2], &[1i32, 2]).unwrap();
        let keep = a.clone();
        let c = binary::<i32>(a, Tensor::scalar(5i32), |x, y| x * y).unwrap();
        assert_eq!(c.as_slice::<i32>().unwrap(), &[5, 10]);
        assert_eq!(keep.as_slice::<i32>().unwrap(), &[1, 2]);
        let s = binary::<i32>(Tensor::scalar(1i32), Tensor::from_slice(&[3], &[1i32, 2, 3]).unwrap(), |x, y| x - y);
        assert_eq!(s.unwrap().as_slice::<i32>().unwrap(), &[0, -1, -2]);
    }
}
