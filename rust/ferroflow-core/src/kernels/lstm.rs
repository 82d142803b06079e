//! TF's fused LSTM ops (`lstm_ops`): `LSTMBlockCell` and its gradient
//! `LSTMBlockCellGrad` (one time step), and `BlockLSTM` and `BlockLSTMGrad` (a whole
//! sequence in one op): the gates' matrix products, the bias, the activations and the
//! state update, instead of a dozen small ops per step.
//!
//! Forward, with `[i, ci, f, o] = [x, h_prev] · w + b` (gate order of TF's LSTM
//! cells, so the variables are `LSTMCell`'s):
//! `i = σ(i + cs_prev·wci)`, `ci = tanh(ci)`, `f = σ(f + forget_bias + cs_prev·wcf)`,
//! `cs = clip(i·ci + f·cs_prev, cell_clip)`, `o = σ(o + cs·wco)`, `co = tanh(cs)`,
//! `h = o·co` (the peephole terms only with `use_peephole`; no clip when
//! `cell_clip <= 0`). The gradient gives `cs_prev`'s, the four gates' pre-activation
//! gradients `dicfo` and the peepholes'; as TF's, it ignores the clip.
//!
//! The step ops leave the products for `x`, `h_prev`, `w` and `b` to TF's Python
//! gradient. The sequence ops do them inside, and not one step at a time as TF's
//! kernels do: only the recurrent products (`h_prev · w_h` forward, `dicfo · w_h^T`
//! back) must wait for the previous step, so the input's share of the gates
//! (`x · w_x`), the input gradient and the weight gradient are each one product over
//! all time steps, large enough for the whole intra-op pool.
use super::matmul::{MatRef, gemm_pooled};
use super::num::Float;
use super::{KernelBuild, OpContext, OpKernel};
use crate::dispatch_float;
use crate::error::{Error, Result};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// The first `rows x cols` elements of `data` as an operand.
pub(super) fn mat<T>(data: &[T], rows: usize, cols: usize, transpose: bool) -> MatRef<'_, T> {
    MatRef::leading(data, rows, cols, transpose)
}

/// The sizes of a step or sequence, checked against every weight's shape.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    /// Rows of `x` (and of the states).
    pub batch: usize,
    /// Columns of `x`.
    pub input: usize,
    /// Columns of the states (a quarter of `w`'s columns).
    pub cell: usize,
}

/// Checks `w`, the peepholes and `b` (inputs `first..first + 5`) against `d`, with
/// TF's messages.
fn check_weights(ctx: &OpContext<'_>, first: usize, d: Dims) -> Result<()> {
    let w = ctx.input(first)?;
    let gates = d.cell.checked_mul(4).ok_or_else(|| Error::invalid_argument("cell_size * 4 overflows"))?;
    let [rows, cols] = w.shape() else {
        return Err(Error::invalid_argument(format!("w must be 2D, not {}", fmt_shape(w.shape()))));
    };
    if *rows != d.input + d.cell {
        return Err(Error::invalid_argument(format!(
            "w.dim_size(0) != input_size + cell_size: {rows} vs. {}",
            d.input + d.cell
        )));
    }
    if *cols != gates {
        return Err(Error::invalid_argument(format!("w.dim_size(1) != cell_size * 4: {cols} vs. {gates}")));
    }
    for (j, name) in [(1, "wci"), (2, "wcf"), (3, "wco")] {
        let t = ctx.input(first + j)?;
        match t.shape() {
            [n] if *n == d.cell => {}
            [n] => {
                return Err(Error::invalid_argument(format!("{name}.dim_size(0) != cell_size: {n} vs. {}", d.cell)));
            }
            s => return Err(Error::invalid_argument(format!("{name} must be 1D, not {}", fmt_shape(s)))),
        }
    }
    match ctx.input(first + 4)?.shape() {
        [n] if *n == gates => Ok(()),
        [n] => Err(Error::invalid_argument(format!("b.dim_size(0) != cell_size * 4: {n} vs. {gates}"))),
        s => Err(Error::invalid_argument(format!("b must be 1D, not {}", fmt_shape(s)))),
    }
}

/// Checks that input `i` (named `name`) has shape `want`.
pub fn check_shape(ctx: &OpContext<'_>, i: usize, name: &str, want: &[usize]) -> Result<()> {
    let t = ctx.input(i)?;
    if t.shape() != want {
        return Err(Error::invalid_argument(format!(
            "{name} has the wrong shape: {}, expected {}",
            fmt_shape(t.shape()),
            fmt_shape(want)
        )));
    }
    Ok(())
}

/// The sizes from `batch` and `input` (read from `x`) and `cs_prev` `[batch, cell]`
/// (input `cs_at`), with `h_prev` (the next input) and the weights (the five after)
/// checked against them.
fn state_dims(ctx: &OpContext<'_>, batch: usize, input: usize, cs_at: usize) -> Result<Dims> {
    let cs_prev = ctx.input(cs_at)?;
    let [b2, cell] = *cs_prev.shape() else {
        return Err(Error::invalid_argument(format!("cs_prev must be 2D, not {}", fmt_shape(cs_prev.shape()))));
    };
    if b2 != batch {
        return Err(Error::invalid_argument(format!("cs_prev.dims(0) != batch_size: {b2} vs. {batch}")));
    }
    check_shape(ctx, cs_at + 1, "h_prev", &[batch, cell])?;
    let d = Dims { batch, input, cell };
    check_weights(ctx, cs_at + 2, d)?;
    Ok(d)
}

/// The sizes of a step (`LSTMBlockCell` and its grad op) from `x` `[batch, input]`
/// (input 0), the state and the weights, with TF's errors: what a device's kernel of
/// these ops checks first.
pub fn step_dims(ctx: &OpContext<'_>) -> Result<Dims> {
    let x = ctx.input(0)?;
    let [batch, input] = *x.shape() else {
        return Err(Error::invalid_argument(format!("x must be 2D, not {}", fmt_shape(x.shape()))));
    };
    state_dims(ctx, batch, input, 1)
}

/// The forward's attributes, as element values.
#[derive(Clone, Copy)]
struct Cell<T> {
    forget_bias: T,
    clip: Option<T>,
    peephole: bool,
}

/// The forward's attributes as read from the node.
struct CellAttrs {
    forget_bias: f64,
    cell_clip: f64,
    use_peephole: bool,
}

impl CellAttrs {
    fn of(b: &KernelBuild<'_>) -> Result<CellAttrs> {
        Ok(CellAttrs {
            forget_bias: f64::from(b.node.attr_or::<f32>("forget_bias", 1.0)?),
            cell_clip: f64::from(b.node.attr_or::<f32>("cell_clip", 3.0)?),
            use_peephole: b.node.attr_or("use_peephole", false)?,
        })
    }

    fn cell<T: Float>(&self) -> Cell<T> {
        Cell {
            forget_bias: T::from_f64(self.forget_bias),
            clip: (self.cell_clip > 0.0).then(|| T::from_f64(self.cell_clip)),
            peephole: self.use_peephole,
        }
    }
}

/// The peephole weights and the bias, read by every row.
struct Weights<'a, T> {
    wci: &'a [T],
    wcf: &'a [T],
    wco: &'a [T],
    bias: &'a [T],
}

impl<'a, T: Float> Weights<'a, T> {
    /// Inputs `first..first + 3` (the peepholes) and `bias_at`.
    fn of(ctx: &'a OpContext<'_>, first: usize, bias_at: usize) -> Result<Weights<'a, T>> {
        Ok(Weights {
            wci: ctx.input(first)?.as_slice()?,
            wcf: ctx.input(first + 1)?.as_slice()?,
            wco: ctx.input(first + 2)?.as_slice()?,
            bias: ctx.input(bias_at)?.as_slice()?,
        })
    }
}

/// The forward of the batch rows `rows` (a block of `parts`' rows): `parts` are the
/// block's `[i, cs, f, o, ci, co, h]` outputs and its gates' products `[i, ci, f, o]`
/// (without the bias, worked on in place); `cs_prev` is the whole batch's. Each gate
/// is a contiguous block of its row, so the activations run over whole blocks
/// (vectorised `sigmoid_block`).
fn forward_rows<T: Float>(
    c: &Cell<T>,
    w: &Weights<'_, T>,
    cs_prev: &[T],
    rows: std::ops::Range<usize>,
    parts: &mut [&mut [T]],
) {
    let [o_i, o_cs, o_f, o_o, o_ci, o_co, o_h, gates] = parts else { return };
    let cell = w.wci.len();
    for (j, r) in rows.enumerate() {
        let k = j * cell..(j + 1) * cell;
        let row = &mut gates[j * 4 * cell..(j + 1) * 4 * cell];
        row.iter_mut().zip(w.bias).for_each(|(g, &b)| *g = g.add(b));
        let (gi, rest) = row.split_at_mut(cell);
        let (gci, rest) = rest.split_at_mut(cell);
        let (gf, go) = rest.split_at_mut(cell);
        let csp = &cs_prev[r * cell..(r + 1) * cell];
        gf.iter_mut().for_each(|g| *g = g.add(c.forget_bias));
        if c.peephole {
            gi.iter_mut().zip(csp).zip(w.wci).for_each(|((g, &s), &p)| *g = g.add(s.mul(p)));
            gf.iter_mut().zip(csp).zip(w.wcf).for_each(|((g, &s), &p)| *g = g.add(s.mul(p)));
        }
        T::sigmoid_block(gi, None);
        T::sigmoid_block(gf, None);
        gci.iter_mut().for_each(|g| *g = g.tanh());
        let cs = &mut o_cs[k.clone()];
        for ((((s, &i), &ci), &f), &sp) in cs.iter_mut().zip(&*gi).zip(&*gci).zip(&*gf).zip(csp) {
            let v = i.mul(ci).add(f.mul(sp));
            *s = match c.clip {
                Some(clip) => v.min(clip).max(clip.neg()),
                None => v,
            };
        }
        if c.peephole {
            go.iter_mut().zip(cs.iter()).zip(w.wco).for_each(|((g, &s), &p)| *g = g.add(s.mul(p)));
        }
        T::sigmoid_block(go, None);
        let co = &mut o_co[k.clone()];
        co.iter_mut().zip(cs.iter()).for_each(|(o, &s)| *o = s.tanh());
        o_h[k.clone()].iter_mut().zip(go.iter()).zip(co.iter()).for_each(|((h, &o), &s)| *h = o.mul(s));
        o_i[k.clone()].copy_from_slice(gi);
        o_f[k.clone()].copy_from_slice(gf);
        o_o[k.clone()].copy_from_slice(go);
        o_ci[k].copy_from_slice(gci);
    }
}

/// What the forward kept of one step, each `[batch, cell]`.
#[derive(Clone, Copy)]
struct Saved<'a, T> {
    cs_prev: &'a [T],
    i: &'a [T],
    cs: &'a [T],
    f: &'a [T],
    o: &'a [T],
    ci: &'a [T],
    co: &'a [T],
}

/// The backward of the batch rows `rows`: on entry `cs_carry` holds the gradient
/// reaching each row's cell state and `h_grad` its output's (both the block's rows);
/// writes the block's gates' pre-activation gradients `dicfo` and leaves in `cs_carry`
/// the gradient of the previous cell state.
fn backward_rows<T: Float>(
    peephole: bool,
    w: &Weights<'_, T>,
    s: Saved<'_, T>,
    rows: std::ops::Range<usize>,
    dicfo: &mut [T],
    cs_carry: &mut [T],
    h_grad: &[T],
) {
    let one = T::ONE;
    let cell = w.wci.len();
    for (j, r) in rows.enumerate() {
        let k = r * cell..(r + 1) * cell;
        let (i, f, o, ci, co) = (&s.i[k.clone()], &s.f[k.clone()], &s.o[k.clone()], &s.ci[k.clone()], &s.co[k.clone()]);
        let csp = &s.cs_prev[k];
        let hg = &h_grad[j * cell..(j + 1) * cell];
        let row = &mut dicfo[j * 4 * cell..(j + 1) * 4 * cell];
        let (di, rest) = row.split_at_mut(cell);
        let (dci, rest) = rest.split_at_mut(cell);
        let (df, d_o) = rest.split_at_mut(cell);
        let carry = &mut cs_carry[j * cell..(j + 1) * cell];
        // o's gradient, then the cell state's (into `carry`).
        for ((((dov, &ov), &cov), &h), (g, &p)) in
            d_o.iter_mut().zip(o).zip(co).zip(hg).zip(carry.iter_mut().zip(w.wco))
        {
            *dov = ov.mul(one.sub(ov)).mul(h).mul(cov);
            let mut dcs = one.sub(cov.mul(cov)).mul(h).mul(ov).add(*g);
            if peephole {
                dcs = dcs.add(dov.mul(p));
            }
            *g = dcs;
        }
        for ((((div, dciv), dfv), g), ((((&iv, &civ), &fv), &cp), (&wi, &wf))) in di
            .iter_mut()
            .zip(dci.iter_mut())
            .zip(df.iter_mut())
            .zip(carry.iter_mut())
            .zip(i.iter().zip(ci).zip(f).zip(csp).zip(w.wci.iter().zip(w.wcf)))
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
}

/// Adds one step's peephole gradients to `sums` (`wci`'s, `wcf`'s, `wco`'s): over the
/// batch, the gates' gradients times the cell states they saw.
fn add_peephole_grads<T: Float>(sums: &mut [Vec<T>; 3], dicfo: &[T], cs_prev: &[T], cs: &[T], cell: usize) {
    for (sum, (gate, states)) in sums.iter_mut().zip([(0, cs_prev), (2, cs_prev), (3, cs)]) {
        for (g, c) in dicfo.chunks_exact(4 * cell).zip(states.chunks_exact(cell)) {
            let g = &g[gate * cell..(gate + 1) * cell];
            sum.iter_mut().zip(g).zip(c).for_each(|((s, &g), &c)| *s = s.add(g.mul(c)));
        }
    }
}

/// A `[n]` tensor of `values`.
fn vector<T: Float>(values: &[T]) -> Result<Tensor> {
    Tensor::from_slice(&[values.len()], values)
}

struct LstmBlockCell(CellAttrs);

pub(crate) fn lstm_block_cell_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(LstmBlockCell(CellAttrs::of(b)?)))
}

impl LstmBlockCell {
    fn step<T: Float>(&self, ctx: &mut OpContext<'_>, d: Dims) -> Result<()> {
        let (x, h_prev, w) =
            (ctx.input(0)?.as_slice::<T>()?, ctx.input(2)?.as_slice::<T>()?, ctx.input(3)?.as_slice::<T>()?);
        let cell = d.cell;
        // `[x, h_prev] · w` as two products into the gates (no concatenation).
        let mut gates_t = Tensor::for_overwrite(T::DTYPE, &[d.batch, 4 * cell])?;
        let gates = gates_t.as_mut_slice::<T>()?;
        gemm_pooled(gates, mat(x, d.batch, d.input, false), mat(w, d.input, 4 * cell, false), false, ctx.env)?;
        let w_h = &w[d.input * 4 * cell..];
        gemm_pooled(gates, mat(h_prev, d.batch, cell, false), mat(w_h, cell, 4 * cell, false), true, ctx.env)?;
        let weights = Weights::of(ctx, 4, 7)?;
        let cs_prev = ctx.input(1)?.as_slice::<T>()?;
        // The seven outputs (i, cs, f, o, ci, co, h), written in place (every element
        // is set).
        let mut tensors =
            (0..7).map(|_| Tensor::for_overwrite(T::DTYPE, &[d.batch, cell])).collect::<Result<Vec<_>>>()?;
        let mut outs: Vec<&mut [T]> = tensors.iter_mut().map(|t| t.as_mut_slice::<T>()).collect::<Result<_>>()?;
        outs.push(gates);
        let c = self.0.cell::<T>();
        let widths = [cell, cell, cell, cell, cell, cell, cell, 4 * cell];
        ctx.env
            .for_each_row_block(outs, &widths, d.batch, |rows, parts| forward_rows(&c, &weights, cs_prev, rows, parts));
        for (j, t) in tensors.into_iter().enumerate() {
            ctx.set_output(j, t);
        }
        Ok(())
    }
}

impl OpKernel for LstmBlockCell {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let d = step_dims(ctx)?;
        let dtype = ctx.input(0)?.dtype();
        dispatch_float!(dtype, T => self.step::<T>(ctx, d), _ => Err(Error::invalid_argument(format!("LSTMBlockCell does not support {dtype}"))))
    }
}

struct LstmBlockCellGrad {
    use_peephole: bool,
}

pub(crate) fn lstm_block_cell_grad_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(LstmBlockCellGrad { use_peephole: b.node.attr_or("use_peephole", false)? }))
}

impl LstmBlockCellGrad {
    fn step<T: Float>(&self, ctx: &mut OpContext<'_>, d: Dims) -> Result<()> {
        let names = ["i", "cs", "f", "o", "ci", "co", "cs_grad", "h_grad"];
        for (j, name) in names.into_iter().enumerate() {
            check_shape(ctx, 8 + j, name, &[d.batch, d.cell])?;
        }
        let get = |i: usize| -> Result<&[T]> { ctx.input(i)?.as_slice::<T>() };
        let saved =
            Saved { cs_prev: get(1)?, i: get(8)?, cs: get(9)?, f: get(10)?, o: get(11)?, ci: get(12)?, co: get(13)? };
        let weights = Weights::of(ctx, 4, 7)?;
        let (cs_grad, h_grad) = (get(14)?, get(15)?);
        let cell = d.cell;
        // The cell state's gradient becomes `cs_prev`'s in place.
        let mut cs_prev_grad_t = Tensor::from_slice(&[d.batch, cell], cs_grad)?;
        let mut dicfo_t = Tensor::for_overwrite(T::DTYPE, &[d.batch, 4 * cell])?;
        let outs = vec![cs_prev_grad_t.as_mut_slice::<T>()?, dicfo_t.as_mut_slice::<T>()?];
        let peephole = self.use_peephole;
        ctx.env.for_each_row_block(outs, &[cell, 4 * cell], d.batch, |rows, parts| {
            let [carry, dicfo] = parts else { return };
            let hg = &h_grad[rows.start * cell..rows.end * cell];
            backward_rows(peephole, &weights, saved, rows, dicfo, carry, hg);
        });
        let mut sums = [vec![T::ZERO; cell], vec![T::ZERO; cell], vec![T::ZERO; cell]];
        if peephole {
            add_peephole_grads(&mut sums, dicfo_t.as_slice::<T>()?, saved.cs_prev, saved.cs, cell);
        }
        ctx.set_output(0, cs_prev_grad_t);
        ctx.set_output(1, dicfo_t);
        for (j, s) in sums.iter().enumerate() {
            ctx.set_output(2 + j, vector(s)?);
        }
        Ok(())
    }
}

impl OpKernel for LstmBlockCellGrad {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let d = step_dims(ctx)?;
        let dtype = ctx.input(0)?.dtype();
        dispatch_float!(dtype, T => self.step::<T>(ctx, d), _ => Err(Error::invalid_argument(format!("LSTMBlockCellGrad does not support {dtype}"))))
    }
}

/// The sizes of a sequence: `x` `[time, batch, input]` (input 1), the states and
/// weights checked against it, and the steps to run (`seq_len_max`, input 0).
#[derive(Clone, Copy, Debug)]
pub struct SeqDims {
    /// Steps of `x`.
    pub time: usize,
    /// Steps to run (`seq_len_max`, at most `time`).
    pub steps: usize,
    /// The sizes of each step.
    pub d: Dims,
}

/// The sizes of a sequence (`BlockLSTM` and its grad op), with TF's errors;
/// `seq_len_max` (input 0) must be in host memory.
pub fn seq_dims(ctx: &OpContext<'_>) -> Result<SeqDims> {
    let seq_len_max = ctx.input(0)?;
    if !seq_len_max.shape().is_empty() {
        return Err(Error::invalid_argument(format!(
            "`seq_len_max_tensor` must be rank 0 but is rank {}",
            seq_len_max.shape().len()
        )));
    }
    let x = ctx.input(1)?;
    let [time, batch, input] = *x.shape() else {
        return Err(Error::invalid_argument(format!("x must be 3D, not {}", fmt_shape(x.shape()))));
    };
    let d = state_dims(ctx, batch, input, 2)?;
    let steps = seq_len_max.as_slice::<i64>()?[0];
    if !(0..=time as i64).contains(&steps) {
        return Err(Error::invalid_argument(format!("seq_len_max must be between 0 and {time} but is {steps}")));
    }
    Ok(SeqDims { time, steps: steps as usize, d })
}

/// `BlockLSTM`: `LSTMBlockCell` over the first `seq_len_max` steps of `x`, each step's
/// state the previous one's outputs; the outputs of later steps are zero.
struct BlockLstm(CellAttrs);

pub(crate) fn block_lstm_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(BlockLstm(CellAttrs::of(b)?)))
}

impl BlockLstm {
    fn run<T: Float>(&self, ctx: &mut OpContext<'_>, s: &SeqDims) -> Result<()> {
        let Dims { batch, input, cell } = s.d;
        let shape = [s.time, batch, cell];
        let step = batch * cell;
        let x = ctx.input(1)?.as_slice::<T>()?;
        let (cs_prev, h_prev) = (ctx.input(2)?.as_slice::<T>()?, ctx.input(3)?.as_slice::<T>()?);
        let w = ctx.input(4)?.as_slice::<T>()?;
        let weights = Weights::of(ctx, 5, 8)?;
        let (w_x, w_h) = w.split_at(input * 4 * cell);
        // Written in place: the steps run here, then zeros for the rest.
        let mut tensors = (0..7).map(|_| Tensor::for_overwrite(T::DTYPE, &shape)).collect::<Result<Vec<_>>>()?;
        let mut slices: Vec<&mut [T]> = tensors.iter_mut().map(|t| t.as_mut_slice::<T>()).collect::<Result<_>>()?;
        for out in &mut slices {
            out[s.steps * step..].fill(T::ZERO);
        }
        let Ok([o_i, o_cs, o_f, o_o, o_ci, o_co, o_h]) = <[&mut [T]; 7]>::try_from(slices) else { unreachable!() };
        // Every step's share of the gates from its input, in one product.
        let rows = s.steps * batch;
        let mut gates_t = Tensor::for_overwrite(T::DTYPE, &[rows, 4 * cell])?;
        let gates = gates_t.as_mut_slice::<T>()?;
        gemm_pooled(gates, mat(x, rows, input, false), mat(w_x, input, 4 * cell, false), false, ctx.env)?;
        let c = self.0.cell::<T>();
        let widths = [cell, cell, cell, cell, cell, cell, cell, 4 * cell];
        for (t, g) in gates.chunks_exact_mut((4 * step).max(1)).take(s.steps).enumerate() {
            let at = t * step..(t + 1) * step;
            let (cs_done, cs_now) = o_cs.split_at_mut(at.start);
            let (h_done, h_now) = o_h.split_at_mut(at.start);
            let (csp, hp) =
                if t == 0 { (cs_prev, h_prev) } else { (&cs_done[at.start - step..], &h_done[at.start - step..]) };
            gemm_pooled(g, mat(hp, batch, cell, false), mat(w_h, cell, 4 * cell, false), true, ctx.env)?;
            let parts = vec![
                &mut o_i[at.clone()],
                &mut cs_now[..step],
                &mut o_f[at.clone()],
                &mut o_o[at.clone()],
                &mut o_ci[at.clone()],
                &mut o_co[at],
                &mut h_now[..step],
                g,
            ];
            ctx.env
                .for_each_row_block(parts, &widths, batch, |rows, parts| forward_rows(&c, &weights, csp, rows, parts));
        }
        for (j, t) in tensors.into_iter().enumerate() {
            ctx.set_output(j, t);
        }
        Ok(())
    }
}

impl OpKernel for BlockLstm {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s = seq_dims(ctx)?;
        let dtype = ctx.input(1)?.dtype();
        dispatch_float!(dtype, T => self.run::<T>(ctx, &s), _ => Err(Error::invalid_argument(format!("BlockLSTM does not support {dtype}"))))
    }
}

/// `BlockLSTMGrad`: `BlockLSTM`'s gradients for `x`, the initial states, `w`, the
/// peepholes and `b`, from the gradients of its `cs` and `h` outputs.
struct BlockLstmGrad {
    use_peephole: bool,
}

pub(crate) fn block_lstm_grad_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(BlockLstmGrad { use_peephole: b.node.attr_or("use_peephole", false)? }))
}

impl BlockLstmGrad {
    fn run<T: Float>(&self, ctx: &mut OpContext<'_>, s: &SeqDims) -> Result<()> {
        let env = ctx.env;
        let Dims { batch, input, cell } = s.d;
        let names = ["i", "cs", "f", "o", "ci", "co", "h", "cs_grad", "h_grad"];
        for (j, name) in names.into_iter().enumerate() {
            check_shape(ctx, 9 + j, name, &[s.time, batch, cell])?;
        }
        let get = |i: usize| -> Result<&[T]> { ctx.input(i)?.as_slice::<T>() };
        let (x, cs_prev, h_prev, w) = (get(1)?, get(2)?, get(3)?, get(4)?);
        let weights = Weights::of(ctx, 5, 8)?;
        let (i, cs, f, o, ci, co, h) = (get(9)?, get(10)?, get(11)?, get(12)?, get(13)?, get(14)?, get(15)?);
        let (cs_grad, h_grad) = (get(16)?, get(17)?);
        let (w_x, w_h) = w.split_at(input * 4 * cell);
        let step = batch * cell;
        let rows = s.steps * batch;
        // Every step's gates' gradients, kept for the products over all steps.
        let mut dicfo_t = Tensor::for_overwrite(T::DTYPE, &[rows, 4 * cell])?;
        let dicfo = dicfo_t.as_mut_slice::<T>()?;
        // The gradients reaching the cell state and the output from later steps.
        let mut cs_carry_t = Tensor::zeros(T::DTYPE, &[batch, cell])?;
        let mut h_carry_t = Tensor::zeros(T::DTYPE, &[batch, cell])?;
        let (cs_carry, h_carry) = (cs_carry_t.as_mut_slice::<T>()?, h_carry_t.as_mut_slice::<T>()?);
        let mut sums = [vec![T::ZERO; cell], vec![T::ZERO; cell], vec![T::ZERO; cell]];
        let peephole = self.use_peephole;
        for t in (0..s.steps).rev() {
            let at = t * step..(t + 1) * step;
            let cs_prev_t = if t == 0 { cs_prev } else { &cs[at.start - step..at.start] };
            let saved = Saved {
                cs_prev: cs_prev_t,
                i: &i[at.clone()],
                cs: &cs[at.clone()],
                f: &f[at.clone()],
                o: &o[at.clone()],
                ci: &ci[at.clone()],
                co: &co[at.clone()],
            };
            let (csg, hg) = (&cs_grad[at.clone()], &h_grad[at]);
            let d_t = &mut dicfo[t * 4 * step..(t + 1) * 4 * step];
            let outs = vec![&mut *d_t, &mut *cs_carry, &mut *h_carry];
            env.for_each_row_block(outs, &[4 * cell, cell, cell], batch, |rows, parts| {
                let [d, carry, h_sum] = parts else { return };
                let k = rows.start * cell..rows.end * cell;
                carry.iter_mut().zip(&csg[k.clone()]).for_each(|(c, &g)| *c = c.add(g));
                h_sum.iter_mut().zip(&hg[k]).for_each(|(c, &g)| *c = c.add(g));
                backward_rows(peephole, &weights, saved, rows, d, carry, h_sum);
            });
            // The previous output's gradient, through the recurrent weights.
            gemm_pooled(h_carry, mat(d_t, batch, 4 * cell, false), mat(w_h, cell, 4 * cell, true), false, env)?;
            if peephole {
                add_peephole_grads(&mut sums, d_t, cs_prev_t, saved.cs, cell);
            }
        }
        // The input gradients of all steps in one product; steps not run get zeros.
        let mut x_grad_t = Tensor::zeros(T::DTYPE, &[s.time, batch, input])?;
        let x_grad = &mut x_grad_t.as_mut_slice::<T>()?[..rows * input];
        gemm_pooled(x_grad, mat(dicfo, rows, 4 * cell, false), mat(w_x, input, 4 * cell, true), false, env)?;
        // The weights' gradient: the input rows from all steps at once, the recurrent
        // rows from the initial output and the outputs of all but the last step.
        let mut w_grad_t = Tensor::zeros(T::DTYPE, &[input + cell, 4 * cell])?;
        let (wg_x, wg_h) = w_grad_t.as_mut_slice::<T>()?.split_at_mut(input * 4 * cell);
        if rows > 0 {
            gemm_pooled(wg_x, mat(x, rows, input, true), mat(dicfo, rows, 4 * cell, false), false, env)?;
            gemm_pooled(wg_h, mat(h_prev, batch, cell, true), mat(dicfo, batch, 4 * cell, false), false, env)?;
            let later = rows - batch;
            let d_later = &dicfo[batch * 4 * cell..];
            gemm_pooled(wg_h, mat(h, later, cell, true), mat(d_later, later, 4 * cell, false), true, env)?;
        }
        let mut b_grad = vec![T::ZERO; 4 * cell];
        for row in dicfo.chunks_exact((4 * cell).max(1)) {
            b_grad.iter_mut().zip(row).for_each(|(s, &g)| *s = s.add(g));
        }
        ctx.set_output(0, x_grad_t);
        ctx.set_output(1, cs_carry_t);
        ctx.set_output(2, h_carry_t);
        ctx.set_output(3, w_grad_t);
        for (j, sum) in sums.iter().enumerate() {
            ctx.set_output(4 + j, vector(sum)?);
        }
        ctx.set_output(7, vector(&b_grad)?);
        Ok(())
    }
}

impl OpKernel for BlockLstmGrad {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s = seq_dims(ctx)?;
        let dtype = ctx.input(1)?.dtype();
        dispatch_float!(dtype, T => self.run::<T>(ctx, &s), _ => Err(Error::invalid_argument(format!("BlockLSTMGrad does not support {dtype}"))))
    }
}
