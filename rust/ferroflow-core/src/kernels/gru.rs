//! TF's fused GRU cell step, `GRUBlockCell`, and its gradient `GRUBlockCellGrad`
//! (TF's `gru_ops`).
//!
//! Forward, with the gates `[r, u] = σ([x, h_prev] · w_ru + b_ru)` (`GRUCell`'s gate
//! order): `c = tanh([x, r·h_prev] · w_c + b_c)`, `h = u·(h_prev - c) + c`. The
//! gradient gives `x`'s and `h_prev`'s, and the pre-activation gradients `d_c_bar`
//! and `d_r_bar_u_bar` from which TF's Python gradient makes the weights' and biases'.
//! Each `[x, ·] · w` is two products over the weights' top and bottom rows, so
//! nothing is concatenated.
use super::lstm::{check_shape, mat};
use super::matmul::gemm_pooled;
use super::num::Float;
use super::{KernelBuild, OpContext, OpKernel};
use crate::dispatch_float;
use crate::error::{Error, Result};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

#[derive(Clone, Copy)]
struct Dims {
    batch: usize,
    input: usize,
    cell: usize,
}

/// The sizes from `x` `[batch, input]` and `h_prev` `[batch, cell]`, with the weights
/// checked against them (TF's messages).
fn dims(ctx: &OpContext<'_>) -> Result<Dims> {
    let (x, h_prev) = (ctx.input(0)?, ctx.input(1)?);
    let [batch, input] = *x.shape() else {
        return Err(Error::invalid_argument(format!("x must be 2D, not {}", fmt_shape(x.shape()))));
    };
    let [b2, cell] = *h_prev.shape() else {
        return Err(Error::invalid_argument(format!("h_prev must be 2D, not {}", fmt_shape(h_prev.shape()))));
    };
    if b2 != batch {
        return Err(Error::invalid_argument(format!("h_prev.dims(0) != batch_size: {b2} vs. {batch}")));
    }
    let two = cell.checked_mul(2).ok_or_else(|| Error::invalid_argument("cell_size * 2 overflows"))?;
    for (i, name, cols, what) in [(2, "w_ru", two, "cell_size * 2"), (3, "w_c", cell, "cell_size")] {
        let w = ctx.input(i)?;
        let [r, c] = *w.shape() else {
            return Err(Error::invalid_argument(format!("{name} must be 2D, not {}", fmt_shape(w.shape()))));
        };
        if r != input + cell {
            return Err(Error::invalid_argument(format!(
                "{name}.dim_size(0) != input_size + cell_size: {r} vs. {}",
                input + cell
            )));
        }
        if c != cols {
            return Err(Error::invalid_argument(format!("{name}.dim_size(1) != {what}: {c} vs. {cols}")));
        }
    }
    for (i, name, len, what) in [(4, "b_ru", two, "cell_size * 2"), (5, "b_c", cell, "cell_size")] {
        match ctx.input(i)?.shape() {
            [n] if *n == len => {}
            [n] => return Err(Error::invalid_argument(format!("{name}.dim_size(0) != {what}: {n} vs. {len}"))),
            s => return Err(Error::invalid_argument(format!("{name} must be 1D, not {}", fmt_shape(s)))),
        }
    }
    Ok(Dims { batch, input, cell })
}

/// Input `i` as a slice of `T`.
fn input<'a, T: Float>(ctx: &'a OpContext<'_>, i: usize) -> Result<&'a [T]> {
    ctx.input(i)?.as_slice::<T>()
}

struct GruBlockCell;

pub(crate) fn gru_block_cell_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(GruBlockCell))
}

fn gru_step<T: Float>(ctx: &mut OpContext<'_>, d: Dims) -> Result<()> {
    let Dims { batch, input: n_in, cell } = d;
    let env = ctx.env;
    let (x, h_prev) = (input::<T>(ctx, 0)?, input::<T>(ctx, 1)?);
    let (w_ru, w_c) = (input::<T>(ctx, 2)?, input::<T>(ctx, 3)?);
    let (b_ru, b_c) = (input::<T>(ctx, 4)?, input::<T>(ctx, 5)?);
    let (w_ru_x, w_ru_h) = w_ru.split_at(n_in * 2 * cell);
    let (w_c_x, w_c_h) = w_c.split_at(n_in * cell);
    // The gates' pre-activations, `[batch, 2 * cell]`.
    let mut ru_t = Tensor::for_overwrite(T::DTYPE, &[batch, 2 * cell])?;
    let ru = ru_t.as_mut_slice::<T>()?;
    gemm_pooled(ru, mat(x, batch, n_in, false), mat(w_ru_x, n_in, 2 * cell, false), false, env)?;
    gemm_pooled(ru, mat(h_prev, batch, cell, false), mat(w_ru_h, cell, 2 * cell, false), true, env)?;
    let mut out = (0..4).map(|_| Tensor::for_overwrite(T::DTYPE, &[batch, cell])).collect::<Result<Vec<_>>>()?;
    let [r_t, u_t, c_t, h_t] = &mut out[..] else { unreachable!() };
    let (r, u) = (r_t.as_mut_slice::<T>()?, u_t.as_mut_slice::<T>()?);
    // `h` holds `r·h_prev` until the end.
    let h = h_t.as_mut_slice::<T>()?;
    for ((row, (rr, ur)), (hr, hp)) in ru
        .chunks_exact_mut((2 * cell).max(1))
        .zip(r.chunks_exact_mut(cell.max(1)).zip(u.chunks_exact_mut(cell.max(1))))
        .zip(h.chunks_exact_mut(cell.max(1)).zip(h_prev.chunks_exact(cell.max(1))))
    {
        row.iter_mut().zip(b_ru).for_each(|(g, &b)| *g = g.add(b));
        T::sigmoid_block(row, None);
        rr.copy_from_slice(&row[..cell]);
        ur.copy_from_slice(&row[cell..]);
        hr.iter_mut().zip(&*rr).zip(hp).for_each(|((o, &r), &h)| *o = r.mul(h));
    }
    let c = c_t.as_mut_slice::<T>()?;
    gemm_pooled(c, mat(x, batch, n_in, false), mat(w_c_x, n_in, cell, false), false, env)?;
    gemm_pooled(c, mat(h, batch, cell, false), mat(w_c_h, cell, cell, false), true, env)?;
    for ((cr, hr), (ur, hp)) in c
        .chunks_exact_mut(cell.max(1))
        .zip(h.chunks_exact_mut(cell.max(1)))
        .zip(u.chunks_exact(cell.max(1)).zip(h_prev.chunks_exact(cell.max(1))))
    {
        for ((((cv, hv), &uv), &hpv), &b) in cr.iter_mut().zip(hr).zip(ur).zip(hp).zip(b_c) {
            *cv = cv.add(b).tanh();
            *hv = uv.mul(hpv.sub(*cv)).add(*cv);
        }
    }
    for (j, t) in out.into_iter().enumerate() {
        ctx.set_output(j, t);
    }
    Ok(())
}

impl OpKernel for GruBlockCell {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let d = dims(ctx)?;
        let dtype = ctx.input(0)?.dtype();
        dispatch_float!(dtype, T => gru_step::<T>(ctx, d), _ => Err(Error::invalid_argument(format!("GRUBlockCell does not support {dtype}"))))
    }
}

struct GruBlockCellGrad;

pub(crate) fn gru_block_cell_grad_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(GruBlockCellGrad))
}

fn gru_grad<T: Float>(ctx: &mut OpContext<'_>, d: Dims) -> Result<()> {
    let Dims { batch, input: n_in, cell } = d;
    for (i, name) in [(6, "r"), (7, "u"), (8, "c"), (9, "d_h")] {
        check_shape(ctx, i, name, &[batch, cell])?;
    }
    let env = ctx.env;
    let (h_prev, w_ru, w_c) = (input::<T>(ctx, 1)?, input::<T>(ctx, 2)?, input::<T>(ctx, 3)?);
    let (r, u, c, d_h) = (input::<T>(ctx, 6)?, input::<T>(ctx, 7)?, input::<T>(ctx, 8)?, input::<T>(ctx, 9)?);
    let (w_ru_x, w_ru_h) = w_ru.split_at(n_in * 2 * cell);
    let (w_c_x, w_c_h) = w_c.split_at(n_in * cell);
    let one = T::ONE;
    let mut d_c_bar_t = Tensor::for_overwrite(T::DTYPE, &[batch, cell])?;
    let mut d_ru_t = Tensor::for_overwrite(T::DTYPE, &[batch, 2 * cell])?;
    let (d_c_bar, d_ru) = (d_c_bar_t.as_mut_slice::<T>()?, d_ru_t.as_mut_slice::<T>()?);
    // d_c_bar = d_h·(1-u)·(1-c²); d_u_bar = d_h·(h_prev-c)·u·(1-u).
    for (k, (dc, &dh)) in d_c_bar.iter_mut().zip(d_h).enumerate() {
        let (uv, cv) = (u[k], c[k]);
        *dc = dh.mul(one.sub(uv)).mul(one.sub(cv.mul(cv)));
        let (row, col) = (k / cell, k % cell);
        d_ru[row * 2 * cell + cell + col] = dh.mul(h_prev[k].sub(cv)).mul(uv).mul(one.sub(uv));
    }
    // [x, r·h_prev]'s gradient from the candidate: x's share into d_x, the rest d_hr.
    let mut d_x_t = Tensor::for_overwrite(T::DTYPE, &[batch, n_in])?;
    let d_x = d_x_t.as_mut_slice::<T>()?;
    gemm_pooled(d_x, mat(d_c_bar, batch, cell, false), mat(w_c_x, n_in, cell, true), false, env)?;
    let mut d_h_prev_t = Tensor::for_overwrite(T::DTYPE, &[batch, cell])?;
    let d_hr = d_h_prev_t.as_mut_slice::<T>()?;
    gemm_pooled(d_hr, mat(d_c_bar, batch, cell, false), mat(w_c_h, cell, cell, true), false, env)?;
    // d_r_bar = d_hr·h_prev·r·(1-r); then d_hr becomes its share of d_h_prev.
    for (k, hr) in d_hr.iter_mut().enumerate() {
        let rv = r[k];
        let (row, col) = (k / cell, k % cell);
        d_ru[row * 2 * cell + col] = hr.mul(h_prev[k]).mul(rv).mul(one.sub(rv));
        *hr = hr.mul(rv).add(d_h[k].mul(u[k]));
    }
    // The gates' share: [x, h_prev]'s gradient through w_ru, added.
    gemm_pooled(d_x, mat(d_ru, batch, 2 * cell, false), mat(w_ru_x, n_in, 2 * cell, true), true, env)?;
    gemm_pooled(d_hr, mat(d_ru, batch, 2 * cell, false), mat(w_ru_h, cell, 2 * cell, true), true, env)?;
    ctx.set_output(0, d_x_t);
    ctx.set_output(1, d_h_prev_t);
    ctx.set_output(2, d_c_bar_t);
    ctx.set_output(3, d_ru_t);
    Ok(())
}

impl OpKernel for GruBlockCellGrad {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let d = dims(ctx)?;
        let dtype = ctx.input(0)?.dtype();
        dispatch_float!(dtype, T => gru_grad::<T>(ctx, d), _ => Err(Error::invalid_argument(format!("GRUBlockCellGrad does not support {dtype}"))))
    }
}
