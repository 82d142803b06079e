//! Fused optimizer updates (TF's `training_ops`): one pass over the parameter, its
//! gradient and its slots, in place, with TF's formulas term for term. Each loop is
//! compiled for AVX-512 / AVX2+FMA / baseline by `multiversion` (Rust never fuses
//! `a * b + c`, so all paths agree bit for bit), and large tensors are split across
//! the intra-op pool. Hyper-parameters arrive as scalars, so per-step constants (such
//! as Adam's bias-corrected rate) are computed once, never per element.
use multiversion::multiversion;

use super::ExecEnv;
use super::num::Float;

/// Elements per piece below which an update stays on one thread (it reads and writes
/// a few streams; 64 K elements take ~20 us).
const PARALLEL_MIN: usize = 1 << 16;

/// `var -= alpha * delta`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn gradient_descent_loop<T: Float>(var: &mut [T], delta: &[T], alpha: T) {
    for (v, &d) in var.iter_mut().zip(delta) {
        *v = v.sub(alpha.mul(d));
    }
}

/// TF's `ApplyGradientDescent`.
pub fn apply_gradient_descent<T: Float>(var: &mut [T], delta: &[T], alpha: T, env: &ExecEnv) {
    env.for_each_chunk(var, PARALLEL_MIN, 64, |off, v| gradient_descent_loop(v, &delta[off..off + v.len()], alpha));
}

/// Hyper-parameters of a momentum step.
#[derive(Clone, Copy, Debug)]
pub struct Momentum<T> {
    /// Learning rate.
    pub lr: T,
    /// Momentum.
    pub momentum: T,
    /// Nesterov's variant.
    pub nesterov: bool,
}

/// `accum = accum * momentum + grad`; `var -= lr * accum` (Nesterov:
/// `var -= grad * lr + accum * momentum * lr`).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn momentum_loop<T: Float>(var: &mut [T], accum: &mut [T], grad: &[T], h: Momentum<T>) {
    // Two loops rather than a branch per element, so each vectorises on its own.
    let rows = var.iter_mut().zip(accum.iter_mut()).zip(grad);
    if h.nesterov {
        for ((v, a), &g) in rows {
            *a = a.mul(h.momentum).add(g);
            *v = v.sub(g.mul(h.lr).add(a.mul(h.momentum).mul(h.lr)));
        }
    } else {
        for ((v, a), &g) in rows {
            *a = a.mul(h.momentum).add(g);
            *v = v.sub(a.mul(h.lr));
        }
    }
}

/// TF's `ApplyMomentum`.
pub fn apply_momentum<T: Float>(var: &mut [T], accum: &mut [T], grad: &[T], h: Momentum<T>, env: &ExecEnv) {
    env.for_each_chunk_n([var, accum], PARALLEL_MIN, |off, [v, a]| {
        momentum_loop(v, a, &grad[off..off + v.len()], h);
    });
}

/// Hyper-parameters of an Adam step.
#[derive(Clone, Copy, Debug)]
pub struct Adam<T> {
    /// `lr * sqrt(1 - beta2^t) / (1 - beta1^t)`, computed once per step as TF does.
    pub alpha: T,
    /// First-moment decay.
    pub beta1: T,
    /// Second-moment decay.
    pub beta2: T,
    /// Added to `sqrt(v)`.
    pub epsilon: T,
    /// Nesterov's variant.
    pub nesterov: bool,
}

impl<T: Float> Adam<T> {
    /// The step's constants from TF's `ApplyAdam` inputs.
    pub fn new(lr: T, beta1_power: T, beta2_power: T, beta1: T, beta2: T, epsilon: T, nesterov: bool) -> Self {
        let alpha = lr.mul(T::ONE.sub(beta2_power).sqrt()).div(T::ONE.sub(beta1_power));
        Adam { alpha, beta1, beta2, epsilon, nesterov }
    }
}

/// TF's Adam update, term for term:
/// `m += (g - m)(1 - beta1)`; `v += (g^2 - v)(1 - beta2)`;
/// `var -= m alpha / (sqrt(v) + epsilon)` (Nesterov: `(g (1 - beta1) + beta1 m) alpha`).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn adam_loop<T: Float>(var: &mut [T], m: &mut [T], v: &mut [T], grad: &[T], h: Adam<T>) {
    let (one_b1, one_b2) = (T::ONE.sub(h.beta1), T::ONE.sub(h.beta2));
    let rows = var.iter_mut().zip(m.iter_mut()).zip(v.iter_mut()).zip(grad);
    if h.nesterov {
        for (((p, mm), vv), &g) in rows {
            *mm = mm.add(g.sub(*mm).mul(one_b1));
            *vv = vv.add(g.mul(g).sub(*vv).mul(one_b2));
            let num = g.mul(one_b1).add(h.beta1.mul(*mm));
            *p = p.sub(num.mul(h.alpha).div(vv.sqrt().add(h.epsilon)));
        }
    } else {
        for (((p, mm), vv), &g) in rows {
            *mm = mm.add(g.sub(*mm).mul(one_b1));
            *vv = vv.add(g.mul(g).sub(*vv).mul(one_b2));
            *p = p.sub(mm.mul(h.alpha).div(vv.sqrt().add(h.epsilon)));
        }
    }
}

/// TF's `ApplyAdam`.
pub fn apply_adam<T: Float>(var: &mut [T], m: &mut [T], v: &mut [T], grad: &[T], h: Adam<T>, env: &ExecEnv) {
    env.for_each_chunk_n([var, m, v], PARALLEL_MIN, |off, [p, mm, vv]| {
        adam_loop(p, mm, vv, &grad[off..off + p.len()], h);
    });
}

/// TF's `SparseApplyMomentum`: the momentum update on rows `indices` of `var` and
/// `accum` (each `width` long), with `grad` holding one row per index, in order.
/// Indices must be in range (checked by the op).
pub fn sparse_apply_momentum<T: Float>(
    var: &mut [T],
    accum: &mut [T],
    grad: &[T],
    indices: &[usize],
    width: usize,
    h: Momentum<T>,
) {
    for (i, &row) in indices.iter().enumerate() {
        let at = row * width;
        momentum_loop(&mut var[at..at + width], &mut accum[at..at + width], &grad[i * width..(i + 1) * width], h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_updates_match_one_pass() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let par = ExecEnv { intra_pool: Some(std::sync::Arc::new(pool)) };
        let n = 3 * PARALLEL_MIN + 17;
        let grad: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 * 1e-3 - 0.5).collect();
        let h = Adam::new(0.01f32, 0.9, 0.999, 0.9, 0.999, 1e-8, false);
        let run = |env: &ExecEnv| {
            let (mut p, mut m, mut v) = (vec![1f32; n], vec![0.1f32; n], vec![0.2f32; n]);
            apply_adam(&mut p, &mut m, &mut v, &grad, h, env);
            let mut a = vec![0.5f32; n];
            apply_momentum(&mut p, &mut a, &grad, Momentum { lr: 0.1, momentum: 0.9, nesterov: true }, env);
            apply_gradient_descent(&mut p, &grad, 0.5, env);
            (p, m, v, a)
        };
        assert_eq!(run(&par), run(&ExecEnv::SINGLE_THREADED));
    }
}
