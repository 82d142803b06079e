//! Reductions over axes (sum, mean, max, min, prod). Consecutive reduced axes are
//! merged so each pass is a `(outer, reduced, inner)` sweep over contiguous memory.
use multiversion::multiversion;

use super::ExecEnv;
use super::elementwise::PARALLEL_MIN;
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
}

/// Lanes of independent accumulators in a contiguous fold: one AVX-512 vector of
/// `f32`, so the loop vectorises, and float sums lose less precision than one serial
/// accumulator.
const LANES: usize = 16;

/// Folds a contiguous run with [`LANES`] accumulators.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn fold_lanes<T: Copy, F: Fn(T, T) -> T>(s: &[T], init: T, f: &F) -> T {
    let mut acc = [init; LANES];
    let chunks = s.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..LANES {
            acc[i] = f(acc[i], c[i]);
        }
    }
    let mut total = rest.iter().fold(init, |a, &v| f(a, v));
    for a in acc {
        total = f(total, a);
    }
    total
}

/// `dst[j] = f(dst[j], src[j])`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn accumulate<T: Copy, F: Fn(T, T) -> T>(dst: &mut [T], src: &[T], f: &F) {
    dst.iter_mut().zip(src).for_each(|(d, &v)| *d = f(*d, v));
}

/// Reduces the middle axis of `data` viewed as `outer x r x inner`, split across the
/// intra-op pool when large.
fn reduce_run<T: Num>(data: &[T], (outer, r, inner): (usize, usize, usize), red: Reduction, env: &ExecEnv) -> Vec<T> {
    let init = red.init::<T>();
    match red {
        Reduction::Sum | Reduction::Mean => reduce_run_with(data, (outer, r, inner), init, T::add, env),
        Reduction::Prod => reduce_run_with(data, (outer, r, inner), init, T::mul, env),
        Reduction::Max => reduce_run_with(data, (outer, r, inner), init, T::max, env),
        Reduction::Min => reduce_run_with(data, (outer, r, inner), init, T::min, env),
    }
}

fn reduce_run_with<T: Num>(
    data: &[T],
    (outer, r, inner): (usize, usize, usize),
    init: T,
    f: impl Fn(T, T) -> T + Sync + Copy,
    env: &ExecEnv,
) -> Vec<T> {
    let mut out = vec![init; outer * inner];
    if out.is_empty() || r == 0 {
        return out;
    }
    // Work per output element is `r`; split so each piece reads at least PARALLEL_MIN.
    let min_outputs = PARALLEL_MIN.div_ceil(r).max(1);
    if inner == 1 {
        if outer == 1 && r >= 2 * PARALLEL_MIN && env.intra_threads() > 1 {
            // One long run: per-thread partial folds, then one fold of the partials.
            let mut partials = vec![init; env.intra_threads() * 4];
            let piece = r.div_ceil(partials.len());
            env.for_each_chunk(&mut partials, 1, 1, |i, p| {
                for (j, slot) in p.iter_mut().enumerate() {
                    let start = ((i + j) * piece).min(r);
                    *slot = fold_lanes(&data[start..(start + piece).min(r)], init, &f);
                }
            });
            out[0] = fold_lanes(&partials, init, &f);
        } else {
            env.for_each_chunk(&mut out, min_outputs, 1, |first, dst| {
                for (o, d) in dst.iter_mut().enumerate() {
                    let o = first + o;
                    *d = fold_lanes(&data[o * r..(o + 1) * r], init, &f);
                }
            });
        }
        return out;
    }
    // Rows of `inner` outputs, each accumulating `r` rows of the input.
    env.for_each_chunk(&mut out, min_outputs.max(LANES), 1, |first, dst| {
        let mut done = 0;
        while done < dst.len() {
            let (o, j) = ((first + done) / inner, (first + done) % inner);
            let seg = (inner - j).min(dst.len() - done);
            let d = &mut dst[done..done + seg];
            for k in 0..r {
                let at = (o * r + k) * inner + j;
                accumulate(d, &data[at..at + seg], &f);
            }
            done += seg;
        }
    });
    out
}

/// Reduces `x` over `axes` (valid, sorted, distinct).
pub fn reduce<T: Num>(x: &Tensor, axes: &[usize], keep_dims: bool, red: Reduction, env: &ExecEnv) -> Result<Tensor> {
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
            Some(d) => reduce_run(d, (outer, r, inner), red, env),
            None => reduce_run(x.as_slice::<T>()?, (outer, r, inner), red, env),
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
    fn parallel_reductions_match_the_serial_ones() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let par = ExecEnv { intra_pool: Some(std::sync::Arc::new(pool)) };
        let one = ExecEnv::SINGLE_THREADED;
        // Integers, so any summation order gives the same answer.
        for shape in [vec![1 << 19], vec![3, 1 << 17], vec![1 << 9, 1 << 9], vec![7, 301, 113]] {
            let n: usize = shape.iter().product();
            let x = Tensor::from_slice(&shape, &(0..n as i64).map(|v| v % 1000 - 500).collect::<Vec<_>>()).unwrap();
            for axes in (0..shape.len()).map(|a| vec![a]).chain([(0..shape.len()).collect()]) {
                for red in [Reduction::Sum, Reduction::Max, Reduction::Min] {
                    let a = reduce::<i64>(&x, &axes, false, red, &par).unwrap();
                    let b = reduce::<i64>(&x, &axes, false, red, &one).unwrap();
                    assert_eq!(
                        a.as_slice::<i64>().unwrap(),
                        b.as_slice::<i64>().unwrap(),
                        "{shape:?} {axes:?} {red:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn reduces_runs_and_gaps() {
        let x = Tensor::from_slice(&[2, 3, 2], &(0..12).map(|v| v as f32).collect::<Vec<_>>()).unwrap();
        let s = reduce::<f32>(&x, &[0, 2], false, Reduction::Sum, &ExecEnv::SINGLE_THREADED).unwrap();
        assert_eq!(s.shape(), &[3]);
        assert_eq!(s.as_slice::<f32>().unwrap(), &[14., 22., 30.]);
        let m = reduce::<f32>(&x, &[1], true, Reduction::Mean, &ExecEnv::SINGLE_THREADED).unwrap();
        assert_eq!(m.shape(), &[2, 1, 2]);
        assert_eq!(m.as_slice::<f32>().unwrap(), &[2., 3., 8., 9.]);
        let all = reduce::<f32>(&x, &[0, 1, 2], false, Reduction::Max, &ExecEnv::SINGLE_THREADED).unwrap();
        assert_eq!(all.as_slice::<f32>().unwrap(), &[11.]);
        let i = Tensor::from_slice(&[3], &[1i32, 2, 4]).unwrap();
        assert_eq!(
            reduce::<i32>(&i, &[0], false, Reduction::Mean, &ExecEnv::SINGLE_THREADED)
                .unwrap()
                .as_slice::<i32>()
                .unwrap(),
            &[2]
        );
    }
}
