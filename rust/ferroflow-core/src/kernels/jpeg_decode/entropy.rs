//! A scan's entropy-coded data into coefficients: `jdhuff.c`'s sequential blocks and
//! `jdphuff.c`'s progressive DC/AC first and refinement scans, restart markers with
//! `jpeg_resync_to_restart`'s recovery, and libjpeg's treatment of data that runs out
//! (the rest of the segment is left as it is: zeros in a sequential file).

use super::huffman::{BitReader, HuffTable, Window, extend};
use super::{Frame, find_marker};
use crate::error::Result;
use crate::kernels::jpeg_tables::NATURAL_ORDER;

/// `jpeg_natural_order` with libjpeg's extra entries, so a corrupt run past 63 lands
/// on 63 (128 entries: an index masked with 127 needs no bounds check).
const NATURAL: [usize; 128] = {
    let mut t = [63usize; 128];
    let mut i = 0;
    while i < 64 {
        t[i] = NATURAL_ORDER[i];
        i += 1;
    }
    t
};

/// What one scan codes (`SOS`), with its tables resolved.
pub(super) struct Scan<'t> {
    /// Frame component indices, in the scan's order.
    pub comps: Vec<usize>,
    pub dc: Vec<Option<&'t HuffTable>>,
    pub ac: Vec<Option<&'t HuffTable>>,
    pub ss: usize,
    pub se: usize,
    pub ah: u32,
    pub al: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sequential,
    DcFirst,
    DcRefine,
    AcFirst,
    AcRefine,
}

/// The state of one scan's decoding.
pub(super) struct ScanDecoder<'a, 's> {
    pub reader: BitReader<'a>,
    scan: &'s Scan<'s>,
    kind: Kind,
    last_dc: [i32; 4],
    eobrun: u32,
    insufficient: bool,
    restart_interval: usize,
    restarts_to_go: usize,
    next_restart: u8,
    /// MCU rows decoded before the scan stops (all unless a crop needs fewer).
    mcu_rows: usize,
}

impl<'a, 's> ScanDecoder<'a, 's> {
    pub(super) fn new(reader: BitReader<'a>, scan: &'s Scan<'s>, progressive: bool, restart_interval: usize) -> Self {
        let kind = match (progressive, scan.ss == 0, scan.ah != 0) {
            (false, _, _) => Kind::Sequential,
            (true, true, false) => Kind::DcFirst,
            (true, true, true) => Kind::DcRefine,
            (true, false, false) => Kind::AcFirst,
            (true, false, true) => Kind::AcRefine,
        };
        ScanDecoder {
            reader,
            scan,
            kind,
            last_dc: [0; 4],
            eobrun: 0,
            insufficient: false,
            restart_interval,
            restarts_to_go: restart_interval,
            next_restart: 0,
            mcu_rows: usize::MAX,
        }
    }

    /// Stops the scan after `rows` MCU rows (a single-scan file's rows a crop needs).
    pub(super) fn stop_after(&mut self, rows: usize) {
        self.mcu_rows = rows;
    }

    /// Decodes every MCU of the scan into `coefs` (a component without storage is
    /// decoded into a scratch block). Returns with the reader where the scan's data
    /// stopped; the data's end without a marker (and without recovery) is an error.
    pub(super) fn run(&mut self, frame: &Frame, coefs: &mut [Vec<[i16; 64]>]) -> Result<()> {
        let mut scratch = [0i16; 64];
        if self.scan.comps.len() == 1 {
            let ci = self.scan.comps[0];
            let c = &frame.comps[ci];
            for by in 0..c.height_in_blocks.min(self.mcu_rows.saturating_mul(c.v)) {
                for bx in 0..c.width_in_blocks {
                    self.start_mcu()?;
                    if !self.insufficient {
                        let block = match coefs[ci].get_mut(by * c.blocks_w + bx) {
                            Some(b) => b,
                            None => &mut scratch,
                        };
                        self.block(0, block);
                        self.insufficient = self.reader.ran_out();
                    }
                    self.check_end()?;
                }
            }
            return Ok(());
        }
        self.run_rows(frame, coefs, |_, _| {})
    }

    /// An interleaved scan, one MCU row at a time: `done(row, blocks)` after each,
    /// with that MCU row's blocks of every frame component (empty for a component
    /// without storage), so they can be used while the next rows are decoded.
    pub(super) fn run_rows<'c>(
        &mut self,
        frame: &Frame,
        coefs: &'c mut [Vec<[i16; 64]>],
        mut done: impl FnMut(usize, Vec<&'c [[i16; 64]]>),
    ) -> Result<()> {
        let mut scratch = [0i16; 64];
        let mut rows_of: Vec<_> =
            coefs.iter_mut().zip(&frame.comps).map(|(v, c)| v.chunks_mut((c.blocks_w * c.v).max(1))).collect();
        for my in 0..frame.mcus_y.min(self.mcu_rows) {
            let mut rows: Vec<&'c mut [[i16; 64]]> =
                rows_of.iter_mut().map(|it| it.next().unwrap_or_default()).collect();
            for mx in 0..frame.mcus_x {
                self.start_mcu()?;
                if !self.insufficient {
                    for (k, &ci) in self.scan.comps.iter().enumerate() {
                        let c = &frame.comps[ci];
                        for by in 0..c.v {
                            for bx in 0..c.h {
                                let at = by * c.blocks_w + mx * c.h + bx;
                                let block = match rows[ci].get_mut(at) {
                                    Some(b) => b,
                                    None => &mut scratch,
                                };
                                self.block(k, block);
                            }
                        }
                    }
                    self.insufficient = self.reader.ran_out();
                }
                self.check_end()?;
            }
            done(my, rows.drain(..).map(|r| &*r).collect());
        }
        Ok(())
    }

    fn check_end(&self) -> Result<()> {
        if self.reader.hit_end {
            ff_bail!(InvalidArgument, "Premature end of JPEG data");
        }
        Ok(())
    }

    /// Handles a due restart marker before an MCU (`process_restart`).
    fn start_mcu(&mut self) -> Result<()> {
        if self.restart_interval == 0 {
            return Ok(());
        }
        if self.restarts_to_go == 0 {
            self.restart()?;
        }
        self.restarts_to_go -= 1;
        Ok(())
    }

    fn restart(&mut self) -> Result<()> {
        self.reader.reset();
        if self.reader.marker.is_none() {
            self.next_marker();
        }
        let want = 0xD0 + self.next_restart;
        if self.reader.marker == Some(want) {
            self.reader.resume();
        } else {
            self.resync(self.next_restart)?;
        }
        self.check_end()?;
        self.next_restart = (self.next_restart + 1) & 7;
        self.last_dc = [0; 4];
        self.eobrun = 0;
        self.restarts_to_go = self.restart_interval;
        if self.reader.marker.is_none() {
            self.insufficient = false;
        }
        Ok(())
    }

    /// Moves the reader to the next marker in the data (libjpeg's `next_marker`).
    fn next_marker(&mut self) {
        match find_marker(self.reader.data(), self.reader.pos) {
            Some((m, pos)) => {
                self.reader.pos = pos;
                self.reader.marker = Some(m);
            }
            None => {
                self.reader.pos = self.reader.data().len();
                self.reader.stop_at_end();
            }
        }
    }

    /// `jpeg_resync_to_restart`: the marker found was not the restart expected.
    fn resync(&mut self, desired: u8) -> Result<()> {
        loop {
            self.check_end()?;
            let Some(m) = self.reader.marker else { return Ok(()) };
            let action = if m < 0xC0 {
                2
            } else if !(0xD0..=0xD7).contains(&m) {
                3
            } else {
                let n = m - 0xD0;
                if n == (desired + 1) & 7 || n == (desired + 2) & 7 {
                    3
                } else if n == desired.wrapping_sub(1) & 7 || n == desired.wrapping_sub(2) & 7 {
                    2
                } else {
                    1
                }
            };
            match action {
                1 => {
                    self.reader.resume();
                    return Ok(());
                }
                2 => {
                    self.reader.marker = None;
                    self.next_marker();
                }
                _ => return Ok(()),
            }
        }
    }

    /// One block of scan component `k`.
    #[inline(always)]
    fn block(&mut self, k: usize, block: &mut [i16; 64]) {
        let s = self.scan;
        match self.kind {
            Kind::Sequential => {
                if let (Some(dc), Some(ac)) = (s.dc[k], s.ac[k]) {
                    sequential(&mut self.reader, dc, ac, &mut self.last_dc[k], block);
                }
            }
            Kind::DcFirst => {
                if let Some(dc) = s.dc[k] {
                    let r = &mut self.reader;
                    let t = u32::from(r.decode(dc));
                    let diff = extend(r.bits(t), t);
                    self.last_dc[k] = self.last_dc[k].wrapping_add(diff);
                    block[0] = self.last_dc[k].wrapping_shl(s.al) as i16;
                }
            }
            Kind::DcRefine => {
                if self.reader.bits(1) != 0 {
                    block[0] |= (1i32 << s.al) as i16;
                }
            }
            Kind::AcFirst => {
                if let Some(ac) = s.ac[k] {
                    ac_first(&mut self.reader, ac, s.ss, s.se, s.al, &mut self.eobrun, block);
                }
            }
            Kind::AcRefine => {
                if let Some(ac) = s.ac[k] {
                    ac_refine(&mut self.reader, ac, s.ss, s.se, s.al, &mut self.eobrun, block);
                }
            }
        }
    }
}

/// A sequential (baseline or extended) block: `decode_mcu_slow`'s arithmetic, the
/// bit buffer held in locals throughout.
#[inline(always)]
fn sequential(r: &mut BitReader<'_>, dc: &HuffTable, ac: &HuffTable, last_dc: &mut i32, block: &mut [i16; 64]) {
    let w = r.window();
    let (w, t) = r.decode_w(w, dc);
    let t = u32::from(t);
    let (mut w, bits) = r.bits_w(w, t);
    *last_dc = last_dc.wrapping_add(extend(bits, t));
    block[0] = *last_dc as i16;
    let mut k = 1usize;
    while k < 64 {
        let fast;
        (w, fast) = r.fast_ac_w(w, ac);
        if let Some((run, v)) = fast {
            k += run;
            block[NATURAL[k & 127] & 63] = v as i16;
            k += 1;
            continue;
        }
        let rs;
        (w, rs) = r.decode_w(w, ac);
        let (run, size) = (usize::from(rs >> 4), u32::from(rs & 15));
        if size != 0 {
            k += run;
            let bits;
            (w, bits) = r.bits_w(w, size);
            block[NATURAL[k & 127] & 63] = extend(bits, size) as i16;
        } else if run != 15 {
            break;
        } else {
            k += 15;
        }
        k += 1;
    }
    r.set_window(w);
}

/// An EOBr symbol's run of blocks with nothing left in the band: `2^r` plus `r`
/// appended bits.
#[inline(always)]
fn eob_run(r: &mut BitReader<'_>, w: Window, run: u32) -> (Window, u32) {
    let (w, bits) = r.bits_w(w, run);
    (w, (1 << run) + bits as u32)
}

/// `decode_mcu_AC_first`, the bit buffer in locals as in [`sequential`].
fn ac_first(
    r: &mut BitReader<'_>,
    ac: &HuffTable,
    ss: usize,
    se: usize,
    al: u32,
    eobrun: &mut u32,
    block: &mut [i16; 64],
) {
    if *eobrun > 0 {
        *eobrun -= 1;
        return;
    }
    let mut w = r.window();
    let mut k = ss;
    while k <= se {
        let fast;
        (w, fast) = r.fast_ac_w(w, ac);
        if let Some((run, v)) = fast {
            k += run;
            block[NATURAL[k & 127] & 63] = v.wrapping_shl(al) as i16;
            k += 1;
            continue;
        }
        let rs;
        (w, rs) = r.decode_w(w, ac);
        let (run, size) = (u32::from(rs >> 4), u32::from(rs & 15));
        if size != 0 {
            k += run as usize;
            let bits;
            (w, bits) = r.bits_w(w, size);
            block[NATURAL[k & 127] & 63] = extend(bits, size).wrapping_shl(al) as i16;
        } else if run == 15 {
            k += 15;
        } else {
            (w, *eobrun) = eob_run(r, w, run);
            *eobrun -= 1;
            break;
        }
        k += 1;
    }
    r.set_window(w);
}

/// `decode_mcu_AC_refine`: correction bits for the nonzero coefficients passed over,
/// and the newly nonzero ones.
fn ac_refine(
    r: &mut BitReader<'_>,
    ac: &HuffTable,
    ss: usize,
    se: usize,
    al: u32,
    eobrun: &mut u32,
    block: &mut [i16; 64],
) {
    let p1 = (1i32 << al) as i16;
    let m1 = (-1i32 << al) as i16;
    // A correction bit for a nonzero coefficient: 1 adds to its magnitude.
    let correct = |r: &mut BitReader<'_>, w: Window, c: &mut i16| -> Window {
        let (w, bit) = r.bits_w(w, 1);
        if bit != 0 && (*c & p1) == 0 {
            *c = if *c >= 0 { c.wrapping_add(p1) } else { c.wrapping_add(m1) };
        }
        w
    };
    let mut w = r.window();
    let mut k = ss;
    if *eobrun == 0 {
        while k <= se {
            let rs;
            (w, rs) = r.decode_w(w, ac);
            let (mut run, size) = (i32::from(rs >> 4), u32::from(rs & 15));
            let mut s = 0i16;
            if size != 0 {
                // A new coefficient's size is always 1 (libjpeg warns otherwise).
                let sign;
                (w, sign) = r.bits_w(w, 1);
                s = if sign != 0 { p1 } else { m1 };
            } else if run != 15 {
                (w, *eobrun) = eob_run(r, w, run as u32);
                break;
            }
            while k <= se {
                let c = &mut block[NATURAL[k & 127] & 63];
                if *c != 0 {
                    w = correct(r, w, c);
                } else {
                    run -= 1;
                    if run < 0 {
                        break;
                    }
                }
                k += 1;
            }
            if s != 0 {
                block[NATURAL[k & 127] & 63] = s;
            }
            k += 1;
        }
    }
    if *eobrun > 0 {
        while k <= se {
            let c = &mut block[NATURAL[k & 127] & 63];
            if *c != 0 {
                w = correct(r, w, c);
            }
            k += 1;
        }
        *eobrun -= 1;
    }
    r.set_window(w);
}
