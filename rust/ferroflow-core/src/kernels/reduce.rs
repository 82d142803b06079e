//! Reductions over axes (sum, mean, max, min, prod). Consecutive reduced axes are
//! merged so each pass is a `(outer, reduced, inner)` sweep over contiguous memory.
use super::num::Num;
use crate::error::Result;
use crate::tensor::Tensor;

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Sum.
    Sum,
    /// Arithmetic mean (integer division for integer types, as TF).
    Mean,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
    /// Product.
    Prod,
}

impl Reduction {
    fn init<T: Num>(self) -> T {
        match self {
            Reduction::Sum | Reduction::Mean => T::ZERO,
            Reduction::Prod => T::ONE,
            Reduction::Max => T::LOWEST,
            Reduction::Min => T::HIGHEST,
        }
    }
    fn combine<T: Num>(self) -> fn(T, T) -> T {
        match self {
            Reduction::Sum | Reduction::Mean => T::add,
            Reduction::Prod => T::mul,
            Reduction::Max => T::max,
            Reduction::Min => T::min,
        }
    }
}

/// Folds a contiguous run with eight independent accumulators (so the loop vectorises
/// and float sums lose less precision than one serial accumulator).
fn fold_lanes<T: Num>(s: &[T], init: T, f: fn(T, T) -> T) -> T {
    let mut acc = [init; 8];
    let chunks = s.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..8 {
            acc[i] = f(acc[i], c[i]);
        }
    }
    let mut total = rest.iter().fold(init, |a, &v| f(a, v));
    for a in acc {
        total = f(total, a);
    }
    total
}

fn reduce_run<T: Num>(data: &[T], outer: usize, r: usize, inner: usize, red: Reduction) -> Vec<T> {
    let (init, f) = (red.init::<T>(), red.combine::<T>());
    let mut out = vec![init; outer * inner];
    if out.is_empty() {
        return out;
    }
    if inner == 1 {
        for (o, dst) in out.iter_mut().enumerate() {
            *dst = fold_lanes(&data[o * r..(o + 1) * r], init, f);
        }
    } else {
        for (o, dst) in out.chunks_exact_mut(inner).enumerate() {
            for k in 0..r {
                let src = &data[(o * r + k) * inner..(o * r + k + 1) * inner];
                dst.iter_mut().zip(src).for_each(|(d, &s)| *d = f(*d, s));
            }
        }
    }
    out
}

/// Reduces `x` over `axes` (valid, sorted, distinct).
pub fn reduce<T: Num>(x: &Tensor, axes: &[usize], keep_dims: bool, red: Reduction) -> Result<Tensor> {
    let in_shape = x.shape().to_vec();
    let mut shape = in_shape.clone();
    // The first pass reads the input in place; later passes read the previous result.
    let mut data: Option<Vec<T>> = None;
    let mut count = 1usize;
    // Walk runs of consecutive axes from the last, so earlier axis numbers stay valid.
    let mut i = axes.len();
    while i > 0 {
        let end = axes[i - 1];
        let mut start = end;
        i -= 1;
        while i > 0 && axes[i - 1] + 1 == start {
            start -= 1;
            i -= 1;
        }
        let outer: usize = shape[..start].iter().product();
        let r: usize = shape[start..=end].iter().product();
        let inner: usize = shape[end + 1..].iter().product();
        let next = match &data {
            Some(d) => reduce_run(d, outer, r, inner, red),
            None => reduce_run(x.as_slice::<T>()?, outer, r, inner, red),
        };
        data = Some(next);
        count *= r;
        shape.splice(start..=end, std::iter::once(1));
    }
    let mut data = match data {
        Some(d) => d,
        None => x.as_slice::<T>()?.to_vec(),
    };
    if red == Reduction::Mean {
        // Mean over nothing is 0/0 (NaN for floats), as in TF.
        let n = if count > 0 { T::from_usize(count) } else { T::ZERO };
        data.iter_mut().for_each(|v| *v = v.div(n));
    }
    let out_shape: Vec<usize> = if keep_dims {
        in_shape.iter().enumerate().map(|(d, &s)| if axes.contains(&d) { 1 } else { s }).collect()
    } else {
        in_shape.iter().enumerate().filter(|(d, _)| !axes.contains(d)).map(|(_, &s)| s).collect()
    };
    Tensor::from_slice(&out_shape, &data)
}

/// `Cumsum`/`Cumprod` along `axis`: `exclusive` leaves each element out of its own
/// running total (starting from the identity), `reverse` runs from the end.
pub fn scan<T: Num>(x: &Tensor, axis: usize, exclusive: bool, reverse: bool, product: bool) -> Result<Tensor> {
    let shape = x.shape();
    let (outer, n, inner) =
        (shape[..axis].iter().product::<usize>(), shape[axis], shape[axis + 1..].iter().product::<usize>());
    let (init, f): (T, fn(T, T) -> T) = if product { (T::ONE, T::mul) } else { (T::ZERO, T::add) };
    let xs = x.as_slice::<T>()?;
    let mut out = vec![init; xs.len()];
    let mut acc = vec![init; inner];
    for o in 0..outer {
        acc.fill(init);
        for step in 0..n {
            let k = if reverse { n - 1 - step } else { step };
            let at = (o * n + k) * inner;
            let (src, dst) = (&xs[at..at + inner], &mut out[at..at + inner]);
            for ((d, a), &v) in dst.iter_mut().zip(acc.iter_mut()).zip(src) {
                if exclusive {
                    *d = *a;
                    *a = f(*a, v);
                } else {
                    *a = f(*a, v);
                    *d = *a;
                }
            }
        }
    }
    Tensor::from_slice(shape, &out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_forward_backward_and_exclusive() {
        let x = Tensor::from_slice(&[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap();
        let s = |axis, e, r, p| scan::<i32>(&x, axis, e, r, p).unwrap().as_slice::<i32>().unwrap().to_vec();
        assert_eq!(s(1, false, false, false), [1, 3, 6, 4, 9, 15]);
        assert_eq!(s(1, true, false, false), [0, 1, 3, 0, 4, 9]);
        assert_eq!(s(1, true, true, true), [6, 3, 1, 30, 6, 1]);
        assert_eq!(s(0, false, true, false), [5, 7, 9, 4, 5, 6]);
    }

    #[test]
    fn reduces_runs_and_gaps() {
        let x = Tensor::from_slice(&[2, 3, 2], &(0..12).map(|v| v as f32).collect::<Vec<_>>()).unwrap();
        let s = reduce::<f32>(&x, &[0, 2], false, Reduction::Sum).unwrap();
        assert_eq!(s.shape(), &[3]);
        assert_eq!(s.as_slice::<f32>().unwrap(), &[14., 22., 30.]);
        let m = reduce::<f32>(&x, &[1], true, Reduction::Mean).unwrap();
        assert_eq!(m.shape(), &[2, 1, 2]);
        assert_eq!(m.as_slice::<f32>().unwrap(), &[2., 3., 8., 9.]);
        let all = reduce::<f32>(&x, &[0, 1, 2], false, Reduction::Max).unwrap();
        assert_eq!(all.as_slice::<f32>().unwrap(), &[11.]);
        let i = Tensor::from_slice(&[3], &[1i32, 2, 4]).unwrap();
        assert_eq!(reduce::<i32>(&i, &[0], false, Reduction::Mean).unwrap().as_slice::<i32>().unwrap(), &[2]);
    }
}
