//! TF's fused LSTM ops on the GPU (float32): `LSTMBlockCell` and `LSTMBlockCellGrad`
//! (one step), `BlockLSTM` and `BlockLSTMGrad` (a sequence, `seq_len_max` in host
//! memory as TF's GPU kernels have it). Same shapes, errors and values as the CPU's
//! (`ferroflow_core::kernels::lstm`, whose checks run first).
//!
//! A step is the gates' product (`[x, h_prev] · w`, the rows concatenated on the
//! device) and the cell's element work. WebGPU's default limit is 8 storage buffers
//! per shader stage, the parameter words included, so the element work is split into
//! kernels of at most 7 buffers: `forward_a` (the input, forget and cell gates and the
//! new cell state), `forward_b` (the output gate, `tanh` of the state, `h`), and back
//! `grad_a` (the output gate's gradient and the cell state's), `grad_b` (the other
//! gates'), `grad_c` (the previous cell state's) and `peephole_sums`. The bias and the
//! three peephole vectors travel packed in one buffer (`pack_weights`). A sequence's
//! gradient, as the CPU's, runs only the recurrent product per step: the input
//! gradient and the weight gradient are one product each over all steps.
use std::sync::Arc;

use ferroflow_core::DType;
use ferroflow_core::error::Result;
use ferroflow_core::kernels::lstm::{Dims, check_shape, seq_dims, step_dims};
use ferroflow_core::kernels::reduce::Reduction;
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::tensor::Tensor;

use super::matmul::{matmul, matmul_into};
use super::{Binding, F32, buf, device_input, gpu_of, output, shader, words};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// `sigmoid` and a `tanh` that stays finite for large arguments.
const ACTIVATIONS: &str = "fn sigm(x: f32) -> f32 { return 1.0 / (1.0 + exp(-x)); }\n\
    fn tanh_(x: f32) -> f32 { return tanh(clamp(x, -15.0, 15.0)); }\n";

/// Runs a one-dimensional generated kernel over `n` invocations, with `reads`
/// bound read-only and then `writes`, each a tensor and its name in `body`.
fn run(
    gpu: &Arc<Gpu>,
    key: &str,
    body: &str,
    reads: &[(&'static str, &Tensor)],
    writes: &[(&'static str, &Tensor)],
    params: &[u32],
    n: usize,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let all = || reads.iter().map(|r| (r, false)).chain(writes.iter().map(|w| (w, true)));
    let pipeline = gpu.pipeline(&format!("lstm/{key}"), || {
        let bindings: Vec<Binding> = all().map(|(&(name, _), write)| Binding(name, "f32", write)).collect();
        format!("{ACTIVATIONS}{}", shader(&bindings, body))
    })?;
    let buffers = all().map(|(&(_, t), _)| buf(t)).collect::<Result<Vec<_>>>()?;
    gpu.dispatch(&pipeline, &buffers, params, n);
    Ok(())
}

/// `[a, b]` row by row: `rows` rows of `ca` columns of `a` (from element `a_off`) then
/// `cb` of `b` (from `b_off`).
fn concat_cols(gpu: &Arc<Gpu>, a: (&Tensor, usize, usize), b: (&Tensor, usize, usize), rows: usize) -> Result<Tensor> {
    let ((a, a_off, ca), (b, b_off, cb)) = (a, b);
    let out = output(gpu, DType::Float32, &[rows, ca + cb])?;
    let body = "    let w = p[1] + p[2];\n    if (i >= p[0] * w) { return; }\n    let r = i / w;\n    let c = i % w;\n    \
        if (c < p[1]) { out[i] = a[p[3] + r * p[1] + c]; } else { out[i] = b[p[4] + r * p[2] + c - p[1]]; }\n";
    let params = words(&[rows, ca, cb, a_off, b_off])?;
    run(gpu, "concat_cols", body, &[("a", a), ("b", b)], &[("out", &out)], &params, out.num_elements())?;
    Ok(out)
}

/// `na` elements of `a` from `a_off`, then `nb` of `b` from `b_off`, as `shape`.
fn concat_flat(
    gpu: &Arc<Gpu>,
    a: (&Tensor, usize, usize),
    b: (&Tensor, usize, usize),
    shape: &[usize],
) -> Result<Tensor> {
    let ((a, a_off, na), (b, b_off, nb)) = (a, b);
    let out = output(gpu, DType::Float32, shape)?;
    let body = "    if (i >= p[0] + p[1]) { return; }\n    \
        if (i < p[0]) { out[i] = a[p[2] + i]; } else { out[i] = b[p[3] + i - p[0]]; }\n";
    let params = words(&[na, nb, a_off, b_off])?;
    run(gpu, "concat_flat", body, &[("a", a), ("b", b)], &[("out", &out)], &params, na + nb)?;
    Ok(out)
}

/// `a[a_off..] + b` over `b`'s elements (a time step's incoming gradient plus what
/// the later steps sent back).
fn add_at(gpu: &Arc<Gpu>, a: &Tensor, a_off: usize, b: &Tensor) -> Result<Tensor> {
    let out = output(gpu, DType::Float32, b.shape())?;
    let body = "    if (i >= p[0]) { return; }\n    out[i] = a[p[1] + i] + b[i];\n";
    let params = words(&[b.num_elements(), a_off])?;
    run(gpu, "add_at", body, &[("a", a), ("b", b)], &[("out", &out)], &params, b.num_elements())?;
    Ok(out)
}

/// The bias `[4c]` and the peepholes `[c]` each, packed as `[b, wci, wcf, wco]`.
fn pack_weights(gpu: &Arc<Gpu>, ctx: &OpContext<'_>, bias_at: usize, peep_at: usize, cell: usize) -> Result<Tensor> {
    let t = |i: usize| device_input(ctx, i, gpu);
    let (b, wci, wcf, wco) = (t(bias_at)?, t(peep_at)?, t(peep_at + 1)?, t(peep_at + 2)?);
    let out = output(gpu, DType::Float32, &[7 * cell])?;
    let body = "    let c = p[0];\n    if (i >= 7u * c) { return; }\n    \
        if (i < 4u * c) { out[i] = b[i]; } else if (i < 5u * c) { out[i] = wci[i - 4u * c]; } \
        else if (i < 6u * c) { out[i] = wcf[i - 5u * c]; } else { out[i] = wco[i - 6u * c]; }\n";
    let reads = [("b", &b), ("wci", &wci), ("wcf", &wcf), ("wco", &wco)];
    run(gpu, "pack_weights", body, &reads, &[("out", &out)], &words(&[cell])?, 7 * cell)?;
    Ok(out)
}

/// The forward's attributes.
#[derive(Clone, Copy)]
struct Cell {
    forget_bias: f32,
    cell_clip: f32,
    use_peephole: bool,
}

impl Cell {
    fn of(b: &KernelBuild<'_>) -> Result<Cell> {
        Ok(Cell {
            forget_bias: b.node.attr_or("forget_bias", 1.0)?,
            cell_clip: b.node.attr_or("cell_clip", 3.0)?,
            use_peephole: b.node.attr_or("use_peephole", false)?,
        })
    }
}

/// One forward step from its gates' products `gates` `[batch, 4 cell]` and the
/// previous cell state (`cs_prev` from element `csp_off`): writes the step's outputs
/// at element `at` of the seven `[.., batch, cell]` outputs `outs` (`i, cs, f, o, ci,
/// co, h`), going through `cs_tmp` `[batch, cell]` so that no kernel reads and writes
/// one buffer.
#[allow(clippy::too_many_arguments)]
fn forward_step(
    gpu: &Arc<Gpu>,
    c: Cell,
    d: Dims,
    gates: &Tensor,
    wb: &Tensor,
    (cs_prev, csp_off): (&Tensor, usize),
    cs_tmp: &Tensor,
    outs: &[Tensor],
    at: usize,
) -> Result<()> {
    let n = d.batch * d.cell;
    let flags = [c.forget_bias.to_bits(), c.cell_clip.to_bits(), u32::from(c.use_peephole)];
    let mut params = words(&[d.batch, d.cell, csp_off, at])?;
    params.extend(flags);
    let body = "    let c = p[1];\n    if (i >= p[0] * c) { return; }\n    let u = i % c;\n    let g = (i / c) * 4u * c;\n    \
        let sp = csp[p[2] + i];\n    var pi = gates[g + u] + wb[u];\n    let pci = gates[g + c + u] + wb[c + u];\n    \
        var pf = gates[g + 2u * c + u] + wb[2u * c + u] + bitcast<f32>(p[4]);\n    \
        if (p[6] == 1u) { pi = pi + sp * wb[4u * c + u]; pf = pf + sp * wb[5u * c + u]; }\n    \
        let ig = sigm(pi);\n    let fg = sigm(pf);\n    let cig = tanh_(pci);\n    var s = ig * cig + fg * sp;\n    \
        let clip = bitcast<f32>(p[5]);\n    if (clip > 0.0) { s = clamp(s, -clip, clip); }\n    \
        o_i[p[3] + i] = ig;\n    o_f[p[3] + i] = fg;\n    o_ci[p[3] + i] = cig;\n    cs[i] = s;\n";
    let [o_i, o_cs, o_f, o_o, o_ci, o_co, o_h] = outs else { unreachable!("seven LSTM outputs") };
    let reads = [("gates", gates), ("wb", wb), ("csp", cs_prev)];
    let writes = [("o_i", o_i), ("o_f", o_f), ("o_ci", o_ci), ("cs", cs_tmp)];
    run(gpu, "forward_a", body, &reads, &writes, &params, n)?;
    let body = "    let c = p[1];\n    if (i >= p[0] * c) { return; }\n    let u = i % c;\n    let g = (i / c) * 4u * c;\n    \
        let s = cs[i];\n    var po = gates[g + 3u * c + u] + wb[3u * c + u];\n    \
        if (p[3] == 1u) { po = po + s * wb[6u * c + u]; }\n    let og = sigm(po);\n    let co = tanh_(s);\n    \
        o_o[p[2] + i] = og;\n    o_co[p[2] + i] = co;\n    o_h[p[2] + i] = og * co;\n    o_cs[p[2] + i] = s;\n";
    let params = words(&[d.batch, d.cell, at, usize::from(c.use_peephole)])?;
    let reads = [("gates", gates), ("wb", wb), ("cs", cs_tmp)];
    let writes = [("o_o", o_o), ("o_co", o_co), ("o_h", o_h), ("o_cs", o_cs)];
    run(gpu, "forward_b", body, &reads, &writes, &params, n)
}

/// The forward values one backward step reads: each saved output (`i, cs, f, o, ci,
/// co`) with the step at element `at`, and the previous cell state from `csp_off`.
struct Saved<'a> {
    i: &'a Tensor,
    f: &'a Tensor,
    o: &'a Tensor,
    ci: &'a Tensor,
    co: &'a Tensor,
    cs_prev: &'a Tensor,
    at: usize,
    csp_off: usize,
}

/// One backward step from the gradients reaching its output `h_grad` and cell state
/// `cs_grad` (each `[batch, cell]`): writes the gates' pre-activation gradients into
/// `dicfo` from element `d_off` and returns the previous cell state's gradient.
#[allow(clippy::too_many_arguments)]
fn backward_step(
    gpu: &Arc<Gpu>,
    peephole: bool,
    d: Dims,
    s: &Saved<'_>,
    wb: &Tensor,
    h_grad: &Tensor,
    cs_grad: &Tensor,
    dicfo: &Tensor,
    d_off: usize,
) -> Result<Tensor> {
    let n = d.batch * d.cell;
    let peep = usize::from(peephole);
    let dcs = output(gpu, DType::Float32, &[d.batch, d.cell])?;
    let body = "    let c = p[1];\n    if (i >= p[0] * c) { return; }\n    let u = i % c;\n    \
        let ov = o[p[2] + i];\n    let cov = co[p[2] + i];\n    let h = hg[i];\n    let dov = ov * (1.0 - ov) * h * cov;\n    \
        var dc = (1.0 - cov * cov) * h * ov + csg[i];\n    if (p[4] == 1u) { dc = dc + dov * wb[6u * c + u]; }\n    \
        d[p[3] + (i / c) * 4u * c + 3u * c + u] = dov;\n    dcs[i] = dc;\n";
    let params = words(&[d.batch, d.cell, s.at, d_off, peep])?;
    let reads = [("o", s.o), ("co", s.co), ("hg", h_grad), ("csg", cs_grad), ("wb", wb)];
    run(gpu, "grad_a", body, &reads, &[("d", dicfo), ("dcs", &dcs)], &params, n)?;
    let body = "    let c = p[1];\n    if (i >= p[0] * c) { return; }\n    let u = i % c;\n    \
        let g = p[4] + (i / c) * 4u * c;\n    let dc = dcs[i];\n    let iv = ig[p[2] + i];\n    let civ = ci[p[2] + i];\n    \
        let fv = f[p[2] + i];\n    d[g + u] = iv * (1.0 - iv) * dc * civ;\n    d[g + c + u] = (1.0 - civ * civ) * dc * iv;\n    \
        d[g + 2u * c + u] = fv * (1.0 - fv) * dc * csp[p[3] + i];\n";
    let params = words(&[d.batch, d.cell, s.at, s.csp_off, d_off])?;
    let reads = [("dcs", &dcs), ("ig", s.i), ("ci", s.ci), ("f", s.f), ("csp", s.cs_prev)];
    run(gpu, "grad_b", body, &reads, &[("d", dicfo)], &params, n)?;
    let cs_prev_grad = output(gpu, DType::Float32, &[d.batch, d.cell])?;
    let body = "    let c = p[1];\n    if (i >= p[0] * c) { return; }\n    let u = i % c;\n    \
        var back = dcs[i] * f[p[2] + i];\n    if (p[4] == 1u) {\n        let g = p[3] + (i / c) * 4u * c;\n        \
        back = back + d[g + u] * wb[4u * c + u] + d[g + 2u * c + u] * wb[5u * c + u];\n    }\n    out[i] = back;\n";
    let params = words(&[d.batch, d.cell, s.at, d_off, peep])?;
    let reads = [("dcs", &dcs), ("f", s.f), ("d", dicfo), ("wb", wb)];
    run(gpu, "grad_c", body, &reads, &[("out", &cs_prev_grad)], &params, n)?;
    Ok(cs_prev_grad)
}

/// The peephole gradients over `rows` rows: `wci`'s `Σ di·cs_prev`, `wcf`'s
/// `Σ df·cs_prev`, `wco`'s `Σ do·cs` (zeros without peepholes, as TF's).
fn peephole_sums(
    gpu: &Arc<Gpu>,
    peephole: bool,
    dicfo: &Tensor,
    cs_prev: &Tensor,
    cs: &Tensor,
    rows: usize,
    cell: usize,
) -> Result<[Tensor; 3]> {
    let sum = || output(gpu, DType::Float32, &[cell]);
    let (a, b, c) = (sum()?, sum()?, sum()?);
    let body = "    let c = p[1];\n    if (i >= c) { return; }\n    var si = 0.0;\n    var sf = 0.0;\n    var so = 0.0;\n    \
        if (p[2] == 1u) {\n        for (var r = 0u; r < p[0]; r = r + 1u) {\n            let g = r * 4u * c;\n            \
        let k = r * c + i;\n            si = si + d[g + i] * csp[k];\n            sf = sf + d[g + 2u * c + i] * csp[k];\n            \
        so = so + d[g + 3u * c + i] * cs[k];\n        }\n    }\n    gi[i] = si;\n    gf[i] = sf;\n    go[i] = so;\n";
    let params = words(&[rows, cell, usize::from(peephole)])?;
    let writes = [("gi", &a), ("gf", &b), ("go", &c)];
    run(gpu, "peephole_sums", body, &[("d", dicfo), ("csp", cs_prev), ("cs", cs)], &writes, &params, cell)?;
    Ok([a, b, c])
}

/// The `[batch, 4 cell]` gates' products `[x_t, h_prev] · w` of one step: `x` from
/// element `x_off`, `h_prev` from `h_off`.
fn gate_products(
    gpu: &Arc<Gpu>,
    d: Dims,
    (x, x_off): (&Tensor, usize),
    (h, h_off): (&Tensor, usize),
    w: &Tensor,
) -> Result<Tensor> {
    let xh = concat_cols(gpu, (x, x_off, d.input), (h, h_off, d.cell), d.batch)?;
    matmul(gpu, &xh, w, &[d.batch, 4 * d.cell], (d.batch, 4 * d.cell, d.input + d.cell), (false, false), &[(0, 0)])
}

struct LstmBlockCell {
    gpu: Arc<Gpu>,
    cell: Cell,
}

impl OpKernel for LstmBlockCell {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let d = step_dims(ctx)?;
        let gpu = &self.gpu;
        let t = |i: usize| device_input(ctx, i, gpu);
        let (x, cs_prev, h_prev, w) = (t(0)?, t(1)?, t(2)?, t(3)?);
        let wb = pack_weights(gpu, ctx, 7, 4, d.cell)?;
        let outs = (0..7).map(|_| output(gpu, DType::Float32, &[d.batch, d.cell])).collect::<Result<Vec<_>>>()?;
        if d.batch * d.cell > 0 {
            let gates = gate_products(gpu, d, (&x, 0), (&h_prev, 0), &w)?;
            let cs_tmp = output(gpu, DType::Float32, &[d.batch, d.cell])?;
            forward_step(gpu, self.cell, d, &gates, &wb, (&cs_prev, 0), &cs_tmp, &outs, 0)?;
        }
        for (j, o) in outs.into_iter().enumerate() {
            ctx.set_output(j, o);
        }
        Ok(())
    }
}

struct LstmBlockCellGrad {
    gpu: Arc<Gpu>,
    peephole: bool,
}

impl OpKernel for LstmBlockCellGrad {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let d = step_dims(ctx)?;
        for (j, name) in ["i", "cs", "f", "o", "ci", "co", "cs_grad", "h_grad"].into_iter().enumerate() {
            check_shape(ctx, 8 + j, name, &[d.batch, d.cell])?;
        }
        let gpu = &self.gpu;
        let t = |i: usize| device_input(ctx, i, gpu);
        let cs_prev = t(1)?;
        let (i, cs, f, o, ci, co) = (t(8)?, t(9)?, t(10)?, t(11)?, t(12)?, t(13)?);
        let (cs_grad, h_grad) = (t(14)?, t(15)?);
        let wb = pack_weights(gpu, ctx, 7, 4, d.cell)?;
        let dicfo = output(gpu, DType::Float32, &[d.batch, 4 * d.cell])?;
        let saved = Saved { i: &i, f: &f, o: &o, ci: &ci, co: &co, cs_prev: &cs_prev, at: 0, csp_off: 0 };
        let cs_prev_grad = if d.batch * d.cell > 0 {
            backward_step(gpu, self.peephole, d, &saved, &wb, &h_grad, &cs_grad, &dicfo, 0)?
        } else {
            output(gpu, DType::Float32, &[d.batch, d.cell])?
        };
        let sums = peephole_sums(gpu, self.peephole, &dicfo, &cs_prev, &cs, d.batch, d.cell)?;
        ctx.set_output(0, cs_prev_grad);
        ctx.set_output(1, dicfo);
        for (j, s) in sums.into_iter().enumerate() {
            ctx.set_output(2 + j, s);
        }
        Ok(())
    }
}

struct BlockLstm {
    gpu: Arc<Gpu>,
    cell: Cell,
}

impl OpKernel for BlockLstm {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s = seq_dims(ctx)?;
        let (d, gpu) = (s.d, &self.gpu);
        let t = |i: usize| device_input(ctx, i, gpu);
        let (x, cs_prev, h_prev, w) = (t(1)?, t(2)?, t(3)?, t(4)?);
        let wb = pack_weights(gpu, ctx, 8, 5, d.cell)?;
        let shape = [s.time, d.batch, d.cell];
        let outs = (0..7).map(|_| super::array::fill(gpu, &shape, 0.0)).collect::<Result<Vec<_>>>()?;
        let step = d.batch * d.cell;
        if step > 0 {
            // The cell state alternates between two buffers: one read, one written.
            let mut cs_tmp =
                [output(gpu, DType::Float32, &[d.batch, d.cell])?, output(gpu, DType::Float32, &[d.batch, d.cell])?];
            for k in 0..s.steps {
                let at = k * step;
                let h = if k == 0 { (&h_prev, 0) } else { (&outs[6], at - step) };
                let gates = gate_products(gpu, d, (&x, k * d.batch * d.input), h, &w)?;
                let [prev, next] = &mut cs_tmp;
                let csp = if k == 0 { (&cs_prev, 0) } else { (&*prev, 0) };
                forward_step(gpu, self.cell, d, &gates, &wb, csp, next, &outs, at)?;
                cs_tmp.swap(0, 1);
            }
        }
        for (j, o) in outs.into_iter().enumerate() {
            ctx.set_output(j, o);
        }
        Ok(())
    }
}

struct BlockLstmGrad {
    gpu: Arc<Gpu>,
    peephole: bool,
}

impl OpKernel for BlockLstmGrad {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s = seq_dims(ctx)?;
        let (d, gpu) = (s.d, &self.gpu);
        let names = ["i", "cs", "f", "o", "ci", "co", "h", "cs_grad", "h_grad"];
        for (j, name) in names.into_iter().enumerate() {
            check_shape(ctx, 9 + j, name, &[s.time, d.batch, d.cell])?;
        }
        let t = |i: usize| device_input(ctx, i, gpu);
        let (x, cs_prev, h_prev, w) = (t(1)?, t(2)?, t(3)?, t(4)?);
        let (i, cs, f, o, ci, co, h) = (t(9)?, t(10)?, t(11)?, t(12)?, t(13)?, t(14)?, t(15)?);
        let (cs_grad, h_grad) = (t(16)?, t(17)?);
        let wb = pack_weights(gpu, ctx, 8, 5, d.cell)?;
        let (step, rows) = (d.batch * d.cell, s.steps * d.batch);
        let gates = 4 * d.cell;
        let x_grad = super::array::fill(gpu, &[s.time, d.batch, d.input], 0.0)?;
        let mut cs_carry = super::array::fill(gpu, &[d.batch, d.cell], 0.0)?;
        let mut h_carry = super::array::fill(gpu, &[d.batch, d.cell], 0.0)?;
        let zeros = |shape: &[usize]| super::array::fill(gpu, shape, 0.0);
        let (mut w_grad, mut b_grad) = (zeros(&[d.input + d.cell, gates])?, zeros(&[gates])?);
        let mut sums = [zeros(&[d.cell])?, zeros(&[d.cell])?, zeros(&[d.cell])?];
        if rows > 0 && step > 0 {
            let dicfo = output(gpu, DType::Float32, &[rows, gates])?;
            // Every step's previous cell state and output, `[steps * batch, cell]`.
            let before = (s.steps - 1) * step;
            let cs_prev_all = concat_flat(gpu, (&cs_prev, 0, step), (&cs, 0, before), &[rows, d.cell])?;
            let h_prev_all = concat_flat(gpu, (&h_prev, 0, step), (&h, 0, before), &[rows, d.cell])?;
            for k in (0..s.steps).rev() {
                let at = k * step;
                let hg = add_at(gpu, &h_grad, at, &h_carry)?;
                let csg = add_at(gpu, &cs_grad, at, &cs_carry)?;
                let saved = Saved { i: &i, f: &f, o: &o, ci: &ci, co: &co, cs_prev: &cs_prev_all, at, csp_off: at };
                let d_off = k * d.batch * gates;
                cs_carry = backward_step(gpu, self.peephole, d, &saved, &wb, &hg, &csg, &dicfo, d_off)?;
                // The previous output's gradient, through the recurrent rows of `w`.
                let dims = (d.batch, d.cell, gates);
                h_carry =
                    matmul(gpu, &dicfo, &w, &[d.batch, d.cell], dims, (false, true), &[(d_off, d.input * gates)])?;
            }
            // The input gradients of all steps, the weights' and the bias's, at once.
            if d.input > 0 {
                matmul_into(gpu, &dicfo, &w, &x_grad, (rows, d.input, gates), (false, true), &[(0, 0)])?;
                let top = matmul(gpu, &x, &dicfo, &[d.input, gates], (d.input, gates, rows), (true, false), &[(0, 0)])?;
                let bottom = matmul(
                    gpu,
                    &h_prev_all,
                    &dicfo,
                    &[d.cell, gates],
                    (d.cell, gates, rows),
                    (true, false),
                    &[(0, 0)],
                )?;
                w_grad = concat_flat(gpu, (&top, 0, d.input * gates), (&bottom, 0, d.cell * gates), w_grad.shape())?;
            } else {
                w_grad = matmul(
                    gpu,
                    &h_prev_all,
                    &dicfo,
                    &[d.cell, gates],
                    (d.cell, gates, rows),
                    (true, false),
                    &[(0, 0)],
                )?;
            }
            b_grad = super::reduce::reduce(gpu, &dicfo, &[0], false, Reduction::Sum)?;
            sums = peephole_sums(gpu, self.peephole, &dicfo, &cs_prev_all, &cs, rows, d.cell)?;
        }
        let [wci_grad, wcf_grad, wco_grad] = sums;
        let outs = [x_grad, cs_carry, h_carry, w_grad, wci_grad, wcf_grad, wco_grad, b_grad];
        for (j, o) in outs.into_iter().enumerate() {
            ctx.set_output(j, o);
        }
        Ok(())
    }
}

fn cell_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(LstmBlockCell { gpu: gpu_of(b)?, cell: Cell::of(b)? }))
}

fn cell_grad_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(LstmBlockCellGrad { gpu: gpu_of(b)?, peephole: b.node.attr_or("use_peephole", false)? }))
}

fn block_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(BlockLstm { gpu: gpu_of(b)?, cell: Cell::of(b)? }))
}

fn block_grad_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(BlockLstmGrad { gpu: gpu_of(b)?, peephole: b.node.attr_or("use_peephole", false)? }))
}

pub(crate) fn register() {
    register_kernel(KernelDef::new("LSTMBlockCell", DEVICE_TYPE, cell_kernel).type_constraint("T", F32));
    register_kernel(KernelDef::new("LSTMBlockCellGrad", DEVICE_TYPE, cell_grad_kernel).type_constraint("T", F32));
    register_kernel(
        KernelDef::new("BlockLSTM", DEVICE_TYPE, block_kernel).type_constraint("T", F32).host_memory(&["seq_len_max"]),
    );
    register_kernel(
        KernelDef::new("BlockLSTMGrad", DEVICE_TYPE, block_grad_kernel)
            .type_constraint("T", F32)
            .host_memory(&["seq_len_max"]),
    );
}
