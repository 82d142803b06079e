//! TF's fused LSTM cell step, `LSTMBlockCell`, and its gradient `LSTMBlockCellGrad`
//! (TF's `lstm_ops`): one op for the gates' matrix product, the bias, the
//! activations and the state update of one time step, instead of a dozen small ones.
//!
//! Forward, with `[i, ci, f, o] = [x, h_prev] · w + b` (gate order of TF's LSTM
//! cells, so the variables are `LSTMCell`'s):
//! `i = σ(i + cs_prev·wci)`, `ci = tanh(ci)`, `f = σ(f + forget_bias + cs_prev·wcf)`,
//! `cs = clip(i·ci + f·cs_prev, cell_clip)`, `o = σ(o + cs·wco)`, `co = tanh(cs)`,
//! `h = o·co` (the peephole terms only with `use_peephole`; no clip when
//! `cell_clip <= 0`). The gradient gives `cs_prev`'s, the four gates' pre-activation
//! gradients `dicfo` (from which the Python gradient makes `x`'s, `h_prev`'s, `w`'s and
//! `b`'s by matrix products) and the peepholes'; as TF's, it ignores the clip.
use super::num::Float;
use super::{KernelBuild, OpContext, OpKernel};
use crate::dispatch_float;
use crate::error::{Error, Result};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// The batch and cell sizes of a step, checked against every input's shape.
struct Dims {
    batch: usize,
    cell: usize,
}

fn dims(ctx: &OpContext<'_>) -> Result<Dims> {
    let (x, cs_prev, h_prev, w) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.input(3)?);
    let bad = |what: &str, t: &Tensor| {
        Error::invalid_argument(format!("{what} has the wrong shape: {}", fmt_shape(t.shape())))
    };
    let [batch, input] = x.shape() else { return Err(bad("x", x)) };
    let [b2, cell] = cs_prev.shape() else { return Err(bad("cs_prev", cs_prev)) };
    let (batch, input, cell) = (*batch, *input, *cell);
    if *b2 != batch {
        return Err(Error::invalid_argument(format!("cs_prev.dims(0) != batch_size: {b2} vs. {batch}")));
    }
    if h_prev.shape() != [batch, cell] {
        return Err(bad("h_prev", h_prev));
    }
    let gates = cell.checked_mul(4).ok_or_else(|| bad("cs_prev", cs_prev))?;
    if w.shape() != [input + cell, gates] {
        return Err(Error::invalid_argument(format!(
            "w has the wrong shape: {}, expected {}",
            fmt_shape(w.shape()),
            fmt_shape(&[input + cell, gates])
        )));
    }
    for (i, name) in [(4, "wci"), (5, "wcf"), (6, "wco")] {
        if ctx.input(i)?.shape() != [cell] {
            return Err(bad(name, ctx.input(i)?));
        }
    }
    if ctx.input(7)?.shape() != [gates] {
        return Err(bad("b", ctx.input(7)?));
    }
    Ok(Dims { batch, cell })
}

/// `[x, h_prev] · w`: the four gates' pre-activations without the bias,
/// `[batch, 4 * cell]`.
fn gate_products(ctx: &OpContext<'_>) -> Result<Tensor> {
    let xh = super::layout::concat(&[ctx.input(0)?, ctx.input(2)?], 1)?;
    super::matmul::matmul(&xh, ctx.input(3)?, false, false, ctx.env)
}

struct LstmBlockCell {
    forget_bias: f64,
    cell_clip: f64,
    use_peephole: bool,
}

pub(crate) fn lstm_block_cell_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(LstmBlockCell {
        forget_bias: f64::from(b.node.attr_or::<f32>("forget_bias", 1.0)?),
        cell_clip: f64::from(b.node.attr_or::<f32>("cell_clip", 3.0)?),
        use_peephole: b.node.attr_or("use_peephole", false)?,
    }))
}

impl LstmBlockCell {
    /// One step, a row (batch element) at a time, each gate a contiguous block of
    /// the row: the activations run over whole blocks (vectorised `sigmoid_block`).
    fn step<T: Float>(&self, ctx: &mut OpContext<'_>, d: &Dims) -> Result<()> {
        let mut icfo = gate_products(ctx)?;
        let icfo = icfo.as_mut_slice::<T>()?;
        let bias = ctx.input(7)?.as_slice::<T>()?;
        let cs_prev = ctx.input(1)?.as_slice::<T>()?;
        let peep = |i: usize| -> Result<&[T]> { ctx.input(i)?.as_slice::<T>() };
        let (wci, wcf, wco) = (peep(4)?, peep(5)?, peep(6)?);
        let cell = d.cell;
        // The seven outputs, written in place (every element is set below).
        let mut tensors =
            (0..7).map(|_| Tensor::for_overwrite(T::DTYPE, &[d.batch, cell])).collect::<Result<Vec<_>>>()?;
        let mut outs: Vec<&mut [T]> = tensors.iter_mut().map(|t| t.as_mut_slice::<T>()).collect::<Result<_>>()?;
        let forget_bias = T::from_f64(self.forget_bias);
        let clip = (self.cell_clip > 0.0).then(|| T::from_f64(self.cell_clip));
        for r in 0..d.batch {
            let row = &mut icfo[r * 4 * cell..(r + 1) * 4 * cell];
            row.iter_mut().zip(bias).for_each(|(g, &b)| *g = g.add(b));
            let (gi, rest) = row.split_at_mut(cell);
            let (gci, rest) = rest.split_at_mut(cell);
            let (gf, go) = rest.split_at_mut(cell);
            let csp = &cs_prev[r * cell..(r + 1) * cell];
            gf.iter_mut().for_each(|g| *g = g.add(forget_bias));
            if self.use_peephole {
                gi.iter_mut().zip(csp).zip(wci).for_each(|((g, &c), &w)| *g = g.add(c.mul(w)));
                gf.iter_mut().zip(csp).zip(wcf).for_each(|((g, &c), &w)| *g = g.add(c.mul(w)));
            }
            T::sigmoid_block(gi, None);
            T::sigmoid_block(gf, None);
            gci.iter_mut().for_each(|g| *g = g.tanh());
            let k = r * cell..(r + 1) * cell;
            let [o_i, o_cs, o_f, o_o, o_ci, o_co, o_h] = &mut outs[..] else {
                return Err(Error::new(crate::error::Code::Internal, "LSTMBlockCell: seven outputs"));
            };
            let cs = &mut o_cs[k.clone()];
            for c in 0..cell {
                let mut v = gi[c].mul(gci[c]).add(gf[c].mul(csp[c]));
                if let Some(clip) = clip {
                    v = v.min(clip).max(clip.neg());
                }
                cs[c] = v;
            }
            if self.use_peephole {
                go.iter_mut().zip(cs.iter()).zip(wco).for_each(|((g, &c), &w)| *g = g.add(c.mul(w)));
            }
            T::sigmoid_block(go, None);
            let co = &mut o_co[k.clone()];
            co.iter_mut().zip(cs.iter()).for_each(|(o, &c)| *o = c.tanh());
            o_h[k.clone()].iter_mut().zip(go.iter()).zip(co.iter()).for_each(|((h, &o), &c)| *h = o.mul(c));
            o_i[k.clone()].copy_from_slice(gi);
            o_f[k.clone()].copy_from_slice(gf);
            o_o[k.clone()].copy_from_slice(go);
            o_ci[k].copy_from_slice(gci);
        }
        drop(outs);
        for (j, t) in tensors.into_iter().enumerate() {
            ctx.set_output(j, t);
        }
        Ok(())
    }
}

impl OpKernel for LstmBlockCell {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let d = dims(ctx)?;
        let dtype = ctx.input(0)?.dtype();
        dispatch_float!(dtype, T => self.step::<T>(ctx, &d), _ => Err(Error::invalid_argument(format!("LSTMBlockCell does not support {dtype}"))))
    }
}

struct LstmBlockCellGrad {
    use_peephole: bool,
}

pub(crate) fn lstm_block_cell_grad_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(LstmBlockCellGrad { use_peephole: b.node.attr_or("use_peephole", false)? }))
}

impl LstmBlockCellGrad {
    fn step<T: Float>(&self, ctx: &mut OpContext<'_>, d: &Dims) -> Result<()> {
        let get = |i: usize| -> Result<&[T]> {
            let t = ctx.input(i)?;
            let want: &[usize] = &[d.batch, d.cell];
            if i >= 8 && t.shape() != want {
                return Err(Error::invalid_argument(format!(
                    "input {i} has the wrong shape: {}, expected {}",
                    fmt_shape(t.shape()),
                    fmt_shape(want)
                )));
            }
            t.as_slice::<T>()
        };
        let cs_prev = get(1)?;
        let (wci, wcf, wco) = (get(4)?, get(5)?, get(6)?);
        let (i, cs, f, o, ci, co) = (get(8)?, get(9)?, get(10)?, get(11)?, get(12)?, get(13)?);
        let (cs_grad, h_grad) = (get(14)?, get(15)?);
        // Written in place: every element of the first two is set below; the
        // peephole gradients are sums over the batch.
        let mut cs_prev_grad_t = Tensor::for_overwrite(T::DTYPE, &[d.batch, d.cell])?;
        let mut dicfo_t = Tensor::for_overwrite(T::DTYPE, &[d.batch, 4 * d.cell])?;
        let mut peepholes = (0..3).map(|_| Tensor::zeros(T::DTYPE, &[d.cell])).collect::<Result<Vec<_>>>()?;
        let cs_prev_grad = cs_prev_grad_t.as_mut_slice::<T>()?;
        let dicfo = dicfo_t.as_mut_slice::<T>()?;
        let [wci_t, wcf_t, wco_t] = &mut peepholes[..] else {
            return Err(Error::new(crate::error::Code::Internal, "LSTMBlockCellGrad: three peepholes"));
        };
        let (wci_grad, wcf_grad, wco_grad) =
            (wci_t.as_mut_slice::<T>()?, wcf_t.as_mut_slice::<T>()?, wco_t.as_mut_slice::<T>()?);
        let one = T::ONE;
        for r in 0..d.batch {
            for c in 0..d.cell {
                let k = r * d.cell + c;
                let d_o = o[k].mul(one.sub(o[k])).mul(h_grad[k]).mul(co[k]);
                let mut dcs = one.sub(co[k].mul(co[k])).mul(h_grad[k]).mul(o[k]).add(cs_grad[k]);
                if self.use_peephole {
                    dcs = dcs.add(d_o.mul(wco[c]));
                }
                let dci = one.sub(ci[k].mul(ci[k])).mul(dcs).mul(i[k]);
                let df = f[k].mul(one.sub(f[k])).mul(dcs).mul(cs_prev[k]);
                let di = i[k].mul(one.sub(i[k])).mul(dcs).mul(ci[k]);
                let row = &mut dicfo[r * 4 * d.cell..(r + 1) * 4 * d.cell];
                row[c] = di;
                row[d.cell + c] = dci;
                row[2 * d.cell + c] = df;
                row[3 * d.cell + c] = d_o;
                let mut g = dcs.mul(f[k]);
                if self.use_peephole {
                    g = g.add(di.mul(wci[c])).add(df.mul(wcf[c]));
                    wci_grad[c] = wci_grad[c].add(di.mul(cs_prev[k]));
                    wcf_grad[c] = wcf_grad[c].add(df.mul(cs_prev[k]));
                    wco_grad[c] = wco_grad[c].add(d_o.mul(cs[k]));
                }
                cs_prev_grad[k] = g;
            }
        }
        ctx.set_output(0, cs_prev_grad_t);
        ctx.set_output(1, dicfo_t);
        for (j, t) in peepholes.into_iter().enumerate() {
            ctx.set_output(2 + j, t);
        }
        Ok(())
    }
}

impl OpKernel for LstmBlockCellGrad {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let d = dims(ctx)?;
        let dtype = ctx.input(0)?.dtype();
        dispatch_float!(dtype, T => self.step::<T>(ctx, &d), _ => Err(Error::invalid_argument(format!("LSTMBlockCellGrad does not support {dtype}"))))
    }
}
