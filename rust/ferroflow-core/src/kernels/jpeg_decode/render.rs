//! Coefficients to pixels: each component's IDCT into a plane, then upsampling and
//! colour conversion into the output rows. Whole images are done in parallel over
//! block rows and output rows; a sequential scan can instead be rendered one MCU row
//! at a time while later rows are still being decoded.

use std::ops::Range;

use super::idct::Idct;
use super::output::{Convert, Plane};
use super::{Frame, Setup};
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
    /// Columns and rows of blocks the plane holds (the real samples' blocks).
    bw: usize,
    bh: usize,
    /// Columns of blocks in the coefficient storage, and block rows per MCU row.
    blocks_w: usize,
    v: usize,
}

pub(super) struct Renderer {
    parts: Vec<Part>,
    planes: Vec<Plane>,
    convert: Convert,
    pub width: usize,
    pub height: usize,
    /// Output rows per MCU row.
    mcu_rows: usize,
}

impl Renderer {
    pub(super) fn new(frame: &Frame, setup: &Setup, ratio: usize) -> Result<Self> {
        let (mut parts, mut planes) = (Vec::new(), Vec::new());
        for (ci, c) in frame.comps.iter().enumerate() {
            let Some((idct, upsample, dw, dh)) = setup.comps[ci] else { continue };
            let s = idct.size();
            let (bw, bh) = (dw.div_ceil(s).min(c.blocks_w), dh.div_ceil(s).min(c.blocks_h));
            let stride = bw * s;
            let mut data: Vec<u8> = try_vec(stride * bh * s)?;
            data.resize(stride * bh * s, 0);
            let mult = idct.multipliers(&c.quant.unwrap_or([0; 64]));
            parts.push(Part { ci, idct, mult, bw, bh, blocks_w: c.blocks_w, v: c.v });
            planes.push(Plane { data, stride, width: dw, height: dh, upsample });
        }
        Ok(Renderer {
            parts,
            planes,
            convert: setup.convert,
            width: setup.out_w,
            height: setup.out_h,
            mcu_rows: frame.max_v * 8 / ratio,
        })
    }

    /// The output tensor, `height x width x channels`, to be filled.
    pub(super) fn image(&self) -> Result<Tensor> {
        Tensor::for_overwrite(DType::UInt8, &[self.height, self.width, self.convert.channels()])
    }

    /// Bytes per output row.
    pub(super) fn row_bytes(&self) -> usize {
        self.width * self.convert.channels()
    }

    /// Block rows `rows` of part `k` from `blocks` (whose first block row is
    /// `first`) into `plane` (the plane's bytes from block row `rows.start`).
    fn idct_rows(part: &Part, blocks: &[[i16; 64]], first: usize, rows: Range<usize>, plane: &mut [u8], stride: usize) {
        let s = part.idct.size();
        for (r, by) in rows.enumerate() {
            let band = &mut plane[r * s * stride..];
            let row = &blocks[(by - first) * part.blocks_w..];
            for bx in 0..part.bw {
                part.idct.run(&row[bx], &part.mult, &mut band[bx * s..], stride);
            }
        }
    }

    /// Every component's IDCT, block rows in parallel.
    pub(super) fn idct_all(&mut self, env: &ExecEnv, coefs: &[Vec<[i16; 64]>]) {
        for (part, plane) in self.parts.iter().zip(&mut self.planes) {
            let (s, stride) = (part.idct.size(), plane.stride);
            let band = s * stride;
            let blocks = &coefs[part.ci];
            env.for_each_chunk(&mut plane.data, (64 * 64).max(band), band, |offset, chunk| {
                let first = offset / band;
                Self::idct_rows(part, blocks, 0, first..first + chunk.len() / band, chunk, stride);
            });
        }
    }

    /// The IDCT of MCU row `my`, given its blocks of each frame component.
    pub(super) fn idct_mcu_row(&mut self, my: usize, blocks: &[&[[i16; 64]]]) {
        for (part, plane) in self.parts.iter().zip(&mut self.planes) {
            let (s, stride) = (part.idct.size(), plane.stride);
            let rows = (my * part.v).min(part.bh)..((my + 1) * part.v).min(part.bh);
            let at = rows.start * s * stride;
            Self::idct_rows(part, blocks[part.ci], my * part.v, rows, &mut plane.data[at..], stride);
        }
    }

    /// Output rows `rows`, written to `out` (those rows' bytes).
    pub(super) fn output_rows(&self, rows: Range<usize>, out: &mut [u8]) {
        let mut scratch: Vec<Vec<u8>> = self.planes.iter().map(|_| vec![0u8; self.width]).collect();
        for (y, line) in rows.zip(out.chunks_mut(self.row_bytes())) {
            let mut comp_rows: [&[u8]; 4] = [&[]; 4];
            for ((slot, p), s) in comp_rows.iter_mut().zip(&self.planes).zip(scratch.iter_mut()) {
                *slot = p.upsampled(y, s);
            }
            self.convert.row(&comp_rows[..self.planes.len()], line);
        }
    }

    /// Every output row, in parallel.
    pub(super) fn output_all(&self, env: &ExecEnv, out: &mut [u8]) {
        let row_bytes = self.row_bytes();
        env.for_each_chunk(out, (32 * 1024).max(row_bytes), row_bytes, |offset, chunk| {
            let first = offset / row_bytes;
            self.output_rows(first..first + chunk.len() / row_bytes, chunk);
        });
    }

    /// The output rows complete once MCU rows `..=my` are through the IDCT (the
    /// upsampling filters reach one row into the next MCU row).
    pub(super) fn rows_ready_after(&self, my: usize) -> usize {
        (my * self.mcu_rows).min(self.height)
    }
}
