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
    /// One step, rows (batch elements) in blocks on the intra-op pool, each gate a
    /// contiguous block of the row: the activations run over whole blocks (vectorised
    /// `sigmoid_block`).
    fn step<T: Float>(&self, ctx: &mut OpContext<'_>, d: &Dims) -> Result<()> {
        let mut icfo_t = gate_products(ctx)?;
        let icfo = icfo_t.as_mut_slice::<T>()?;
        let bias = ctx.input(7)?.as_slice::<T>()?;
        let cs_prev = ctx.input(1)?.as_slice::<T>()?;
        let peep = |i: usize| -> Result<&[T]> { ctx.input(i)?.as_slice::<T>() };
        let (wci, wcf, wco) = (peep(4)?, peep(5)?, peep(6)?);
        let cell = d.cell;
        // The seven outputs (i, cs, f, o, ci, co, h), written in place (every element
        // is set below); the gates' products are worked on in place too.
        let mut tensors =
            (0..7).map(|_| Tensor::for_overwrite(T::DTYPE, &[d.batch, cell])).collect::<Result<Vec<_>>>()?;
        let mut outs: Vec<&mut [T]> = tensors.iter_mut().map(|t| t.as_mut_slice::<T>()).collect::<Result<_>>()?;
        outs.push(icfo);
        let forget_bias = T::from_f64(self.forget_bias);
        let clip = (self.cell_clip > 0.0).then(|| T::from_f64(self.cell_clip));
        let peephole = self.use_peephole;
        let widths = [cell, cell, cell, cell, cell, cell, cell, 4 * cell];
        ctx.env.for_each_row_block(outs, &widths, d.batch, |rows, parts| {
            let [o_i, o_cs, o_f, o_o, o_ci, o_co, o_h, gates] = parts else { return };
            for (j, r) in rows.enumerate() {
                let k = j * cell..(j + 1) * cell;
                let row = &mut gates[j * 4 * cell..(j + 1) * 4 * cell];
                row.iter_mut().zip(bias).for_each(|(g, &b)| *g = g.add(b));
                let (gi, rest) = row.split_at_mut(cell);
                let (gci, rest) = rest.split_at_mut(cell);
                let (gf, go) = rest.split_at_mut(cell);
                let csp = &cs_prev[r * cell..(r + 1) * cell];
                gf.iter_mut().for_each(|g| *g = g.add(forget_bias));
                if peephole {
                    gi.iter_mut().zip(csp).zip(wci).for_each(|((g, &c), &w)| *g = g.add(c.mul(w)));
                    gf.iter_mut().zip(csp).zip(wcf).for_each(|((g, &c), &w)| *g = g.add(c.mul(w)));
                }
                T::sigmoid_block(gi, None);
                T::sigmoid_block(gf, None);
                gci.iter_mut().for_each(|g| *g = g.tanh());
                let cs = &mut o_cs[k.clone()];
                for ((((c, &i), &ci), &f), &cp) in cs.iter_mut().zip(&*gi).zip(&*gci).zip(&*gf).zip(csp) {
                    let v = i.mul(ci).add(f.mul(cp));
                    *c = match clip {
                        Some(clip) => v.min(clip).max(clip.neg()),
                        None => v,
                    };
                }
                if peephole {
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
        });
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
        let cell = d.cell;
        // Written in place: every element of both is set below.
        let mut cs_prev_grad_t = Tensor::for_overwrite(T::DTYPE, &[d.batch, cell])?;
        let mut dicfo_t = Tensor::for_overwrite(T::DTYPE, &[d.batch, 4 * cell])?;
        let outs = vec![cs_prev_grad_t.as_mut_slice::<T>()?, dicfo_t.as_mut_slice::<T>()?];
        let peephole = self.use_peephole;
        let one = T::ONE;
        ctx.env.for_each_row_block(outs, &[cell, 4 * cell], d.batch, |rows, parts| {
            let [cs_prev_grad, dicfo] = parts else { return };
            for (j, r) in rows.enumerate() {
                let k = r * cell..(r + 1) * cell;
                let (i, f, o, ci, co) = (&i[k.clone()], &f[k.clone()], &o[k.clone()], &ci[k.clone()], &co[k.clone()]);
                let (csp, csg, hg) = (&cs_prev[k.clone()], &cs_grad[k.clone()], &h_grad[k]);
                let row = &mut dicfo[j * 4 * cell..(j + 1) * 4 * cell];
                let (di, rest) = row.split_at_mut(cell);
                let (dci, rest) = rest.split_at_mut(cell);
                let (df, d_o) = rest.split_at_mut(cell);
                let cpg = &mut cs_prev_grad[j * cell..(j + 1) * cell];
                // o's gradient, then the cell state's (into `cpg` for now).
                for ((((dov, &ov), &cov), &h), ((g, &csgv), &w)) in
                    d_o.iter_mut().zip(o).zip(co).zip(hg).zip(cpg.iter_mut().zip(csg).zip(wco))
                {
                    *dov = ov.mul(one.sub(ov)).mul(h).mul(cov);
                    let mut dcs = one.sub(cov.mul(cov)).mul(h).mul(ov).add(csgv);
                    if peephole {
                        dcs = dcs.add(dov.mul(w));
                    }
                    *g = dcs;
                }
                for ((((div, dciv), dfv), g), ((((&iv, &civ), &fv), &cp), (&wi, &wf))) in di
                    .iter_mut()
                    .zip(dci.iter_mut())
                    .zip(df.iter_mut())
                    .zip(cpg.iter_mut())
                    .zip(i.iter().zip(ci).zip(f).zip(csp).zip(wci.iter().zip(wcf)))
                {
                    let dcs = *g;
                    *dciv = one.sub(civ.mul(civ)).mul(dcs).mul(iv);
                    *dfv = fv.mul(one.sub(fv)).mul(dcs).mul(cp);
                    *div = iv.mul(one.sub(iv)).mul(dcs).mul(civ);
                    let mut back = dcs.mul(fv);
                    if peephole {
                        back = back.add(div.mul(wi)).add(dfv.mul(wf));
                    }
                    *g = back;
                }
            }
        });
        // The peepholes' gradients: sums over the batch of the gates' gradients times
        // the cell states they saw.
        let mut peepholes = (0..3).map(|_| Tensor::zeros(T::DTYPE, &[cell])).collect::<Result<Vec<_>>>()?;
        if peephole {
            let dicfo = dicfo_t.as_slice::<T>()?;
            for (p, (gate, states)) in peepholes.iter_mut().zip([(0, cs_prev), (2, cs_prev), (3, cs)]) {
                let sum = p.as_mut_slice::<T>()?;
                for r in 0..d.batch {
                    let g = &dicfo[r * 4 * cell + gate * cell..][..cell];
                    let c = &states[r * cell..(r + 1) * cell];
                    sum.iter_mut().zip(g).zip(c).for_each(|((s, &g), &c)| *s = s.add(g.mul(c)));
                }
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

/// `ReverseSequence`: along `seq_dim`, the first `seq_lengths[b]` entries of each
/// `batch_dim` slice `b` reversed, the rest copied (TF's kernel and errors).
struct ReverseSequence {
    seq_dim: i64,
    batch_dim: i64,
}

pub(crate) fn reverse_sequence_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ReverseSequence {
        seq_dim: b.node.required_attr("seq_dim")?,
        batch_dim: b.node.attr_or("batch_dim", 0)?,
    }))
}

impl ReverseSequence {
    /// The source element of each output element's run of `run` contiguous elements:
    /// `runs[j]` is where output run `j` is read from.
    fn source_runs(&self, input: &Tensor, lengths: &[i64]) -> Result<(Vec<usize>, usize)> {
        let dims = input.shape();
        let rank = dims.len() as i64;
        let (seq_dim, batch_dim) = (self.seq_dim, self.batch_dim);
        if seq_dim == batch_dim {
            return Err(Error::invalid_argument(format!("batch_dim == seq_dim == {seq_dim}")));
        }
        for (what, v) in [("seq_dim", seq_dim), ("batch_dim", batch_dim)] {
            if !(0..rank).contains(&v) {
                return Err(Error::invalid_argument(format!("{what} must be < input rank ( {v} vs. {rank})")));
            }
        }
        let (s, b) = (seq_dim as usize, batch_dim as usize);
        if lengths.len() != dims[b] {
            return Err(Error::invalid_argument(format!(
                "Length of seq_lengths != input.dims({b}), ({} vs. {})",
                lengths.len(),
                dims[b]
            )));
        }
        for (d, &len) in lengths.iter().enumerate() {
            if len < 0 {
                return Err(Error::invalid_argument(format!("seq_lens({d}) < 0")));
            }
            if len as u64 > dims[s] as u64 {
                return Err(Error::invalid_argument(format!("seq_lens({d}) > input.dims({s})")));
            }
        }
        let stride = |axis: usize| dims[axis + 1..].iter().product::<usize>();
        let (seq_stride, batch_stride) = (stride(s), stride(b));
        // Elements after the later of the two axes move together.
        let run = seq_stride.min(batch_stride);
        let n = input.num_elements();
        let runs = n.checked_div(run).unwrap_or(0);
        let mut sources = crate::buffer::try_vec(runs)?;
        for j in 0..runs {
            let i = j * run;
            let (t, bi) = ((i / seq_stride) % dims[s], (i / batch_stride) % dims[b]);
            let len = lengths[bi] as usize;
            sources.push(if t < len { i - t * seq_stride + (len - 1 - t) * seq_stride } else { i });
        }
        Ok((sources, run))
    }
}

impl OpKernel for ReverseSequence {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0)?;
        let lengths_t = ctx.input(1)?;
        if lengths_t.shape().len() != 1 {
            return Err(Error::invalid_argument(format!("seq_lengths must be 1-dim, not {}", lengths_t.shape().len())));
        }
        let lengths = crate::ops::int_values(lengths_t)?;
        let (sources, run) = self.source_runs(input, &lengths)?;
        let out = if input.dtype() == crate::dtype::DType::String {
            let src = input.as_strings()?;
            let mut out = crate::buffer::try_vec(src.len())?;
            for &from in &sources {
                out.extend_from_slice(&src[from..from + run]);
            }
            Tensor::from_strings(input.shape(), out)?
        } else {
            let mut out = Tensor::for_overwrite(input.dtype(), input.shape())?;
            let size = input.dtype().size() * run;
            let src = input.as_bytes()?;
            if size > 0 {
                for (dst, &from) in out.as_mut_bytes()?.chunks_exact_mut(size).zip(&sources) {
                    let at = from * input.dtype().size();
                    dst.copy_from_slice(&src[at..at + size]);
                }
            }
            out
        };
        ctx.set_output(0, out);
        Ok(())
    }
}
