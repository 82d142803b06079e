//! Coefficients to pixels: each component's IDCT into a plane, then upsampling and
//! colour conversion into the output rows. Whole images are done in parallel over
//! block rows and output rows; a sequential scan can instead be rendered one MCU row
//! at a time while later rows are still being decoded.

use std::ops::Range;

use super::idct::Idct;
use super::output::{Convert, Plane};
use super::{CompPlan, Frame, Setup};
use crate::dtype::DType;
use crate::error::Result;
use crate::framework::kernel::ExecEnv;
use crate::tensor::Tensor;
use crate::tensor::buffer::try_vec;

/// One needed component: its IDCT and where its blocks go.
struct Part {
    /// Frame component index.
    ci: usize,
    idct: Idct,
    mult: [i32; 64],
    /// The first column of blocks rendered, and how many columns the plane holds (the
    /// real samples' blocks).
    bx0: usize,
    bw: usize,
    /// The block rows the output's rows need (with the filters' row above and below).
    needed: Range<usize>,
    /// Columns of blocks in the coefficient storage, and block rows per MCU row.
    blocks_w: usize,
    v: usize,
}

pub(super) struct Renderer {
    parts: Vec<Part>,
    planes: Vec<Plane>,
    convert: Convert,
    /// Samples across a rendered row.
    width: usize,
    /// The columns of a rendered row that are output.
    cols: Range<usize>,
    /// The rows of the whole image that are output.
    rows: Range<usize>,
    /// The whole image's height.
    height: usize,
    /// Output rows per MCU row.
    mcu_rows: usize,
}

impl Renderer {
    pub(super) fn new(frame: &Frame, setup: &Setup, ratio: usize) -> Result<Self> {
        let (mut parts, mut planes) = (Vec::new(), Vec::new());
        let window = &setup.window;
        let min_s = 8 / ratio;
        for (ci, c) in frame.comps.iter().enumerate() {
            let Some(plan) = setup.comps[ci] else { continue };
            let CompPlan { idct, upsample, width: dw, height: dh, first_block: bx0 } = plan;
            let s = idct.size();
            let bw = dw.div_ceil(s).min(c.blocks_w.saturating_sub(bx0));
            let bh = dh.div_ceil(s).min(c.blocks_h);
            let stride = bw * s;
            let mut data: Vec<u8> = try_vec(stride * bh * s)?;
            data.resize(stride * bh * s, 0);
            let mult = idct.multipliers(&c.quant.unwrap_or([0; 64]));
            // The component's rows for the output's, one more each way for the filters.
            let (v_in, v_out) = (c.v * s / min_s, frame.max_v);
            let first = (window.rows.start * v_in / v_out).saturating_sub(1);
            let last = ((window.rows.end - 1) * v_in / v_out + 1).min(dh.saturating_sub(1));
            let needed = (first / s).min(bh)..(last / s + 1).min(bh);
            parts.push(Part { ci, idct, mult, bx0, bw, needed, blocks_w: c.blocks_w, v: c.v });
            planes.push(Plane { data, stride, width: dw, height: dh, upsample });
        }
        Ok(Renderer {
            parts,
            planes,
            convert: setup.convert,
            width: window.width,
            cols: window.cols.clone(),
            rows: window.rows.clone(),
            height: frame.height.div_ceil(ratio),
            mcu_rows: frame.max_v * min_s,
        })
    }

    /// The output tensor, `rows x columns x channels`, to be filled.
    pub(super) fn image(&self) -> Result<Tensor> {
        Tensor::for_overwrite(DType::UInt8, &[self.rows.len(), self.cols.len(), self.convert.channels()])
    }

    /// The rows of the whole image that are output.
    pub(super) fn rows(&self) -> Range<usize> {
        self.rows.clone()
    }

    /// Bytes per output row.
    pub(super) fn row_bytes(&self) -> usize {
        self.cols.len() * self.convert.channels()
    }

    /// Block rows `rows` of part `k` from `blocks` (whose first block row is
    /// `first`) into `plane` (the plane's bytes from block row `rows.start`).
    fn idct_rows(part: &Part, blocks: &[[i16; 64]], first: usize, rows: Range<usize>, plane: &mut [u8], stride: usize) {
        let s = part.idct.size();
        for (r, by) in rows.enumerate() {
            let band = &mut plane[r * s * stride..];
            let row = &blocks[(by - first) * part.blocks_w + part.bx0..];
            for bx in 0..part.bw {
                part.idct.run(&row[bx], &part.mult, &mut band[bx * s..], stride);
            }
        }
    }

    /// Every component's IDCT of the block rows the output needs, in parallel.
    pub(super) fn idct_all(&mut self, env: &ExecEnv, coefs: &[Vec<[i16; 64]>]) {
        for (part, plane) in self.parts.iter().zip(&mut self.planes) {
            let (s, stride) = (part.idct.size(), plane.stride);
            let band = s * stride;
            let blocks = &coefs[part.ci];
            let needed = &mut plane.data[part.needed.start * band..part.needed.end * band];
            env.for_each_chunk(needed, (64 * 64).max(band), band, |offset, chunk| {
                let first = part.needed.start + offset / band;
                Self::idct_rows(part, blocks, 0, first..first + chunk.len() / band, chunk, stride);
            });
        }
    }

    /// The IDCT of MCU row `my` (where the output needs it), given its blocks of each
    /// frame component.
    pub(super) fn idct_mcu_row(&mut self, my: usize, blocks: &[&[[i16; 64]]]) {
        for (part, plane) in self.parts.iter().zip(&mut self.planes) {
            let (s, stride) = (part.idct.size(), plane.stride);
            let (first, end) = ((my * part.v).max(part.needed.start), ((my + 1) * part.v).min(part.needed.end));
            if first < end {
                let at = first * s * stride;
                Self::idct_rows(part, blocks[part.ci], my * part.v, first..end, &mut plane.data[at..], stride);
            }
        }
    }

    /// Output rows `rows` (rows of the whole image, within the window), written to
    /// `out` (those rows' bytes).
    pub(super) fn output_rows(&self, rows: Range<usize>, out: &mut [u8]) {
        let mut scratch: Vec<Vec<u8>> = self.planes.iter().map(|_| vec![0u8; self.width]).collect();
        for (y, line) in rows.zip(out.chunks_mut(self.row_bytes())) {
            let mut comp_rows: [&[u8]; 4] = [&[]; 4];
            for ((slot, p), s) in comp_rows.iter_mut().zip(&self.planes).zip(scratch.iter_mut()) {
                *slot = &p.upsampled(y, s)[self.cols.clone()];
            }
            self.convert.row(&comp_rows[..self.planes.len()], line);
        }
    }

    /// Every output row, in parallel.
    pub(super) fn output_all(&self, env: &ExecEnv, out: &mut [u8]) {
        let row_bytes = self.row_bytes();
        env.for_each_chunk(out, (32 * 1024).max(row_bytes), row_bytes, |offset, chunk| {
            let first = self.rows.start + offset / row_bytes;
            self.output_rows(first..first + chunk.len() / row_bytes, chunk);
        });
    }

    /// The rows of the whole image complete once MCU rows `..=my` are through the
    /// IDCT (the upsampling filters reach one row into the next MCU row).
    pub(super) fn rows_ready_after(&self, my: usize) -> usize {
        (my * self.mcu_rows).min(self.height)
    }
}
