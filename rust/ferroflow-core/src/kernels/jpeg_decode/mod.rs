//! `DecodeJpeg` with TensorFlow's values: TF decodes with libjpeg-turbo, so this
//! decoder follows libjpeg-turbo's pipeline with its arithmetic at each step — the
//! marker rules of `jdmarker.c`, `jdhuff.c`/`jdphuff.c`'s entropy decoding (restart
//! markers, data that runs out), the IDCT TF asks for (`INTEGER_FAST`, TF's default,
//! or `INTEGER_ACCURATE`; the reduced IDCTs for `ratio`), `jdsample.c`'s upsampling
//! and `jdcolor.c`'s conversions, then TF's own CMYK -> RGB (`jpeg_mem.cc`).
//!
//! The file is decoded to coefficients first (scan by scan, as a progressive file
//! must be), then the IDCT runs over block rows in parallel and upsampling with colour
//! conversion over output rows in parallel, straight into the output tensor.
//! Corrupt data follows libjpeg: a bad Huffman code decodes as 0, data that stops at
//! a marker leaves the rest of its segment as it is (gray in a sequential file), and
//! data that ends without one is an error unless `try_recover_truncated`, which reads
//! a fake EOI there as TF's source manager does.
//!
//! Not libjpeg's: arithmetic-coded, lossless and 12-bit files are refused (TF's
//! libjpeg-turbo decodes arithmetic-coded files), and a progressive file whose
//! coefficients are never all sent is not block-smoothed.

mod entropy;
mod huffman;
mod idct;
mod output;
mod render;

use entropy::{Scan, ScanDecoder};
use huffman::{BitReader, HuffSpec, HuffTable};
use idct::Idct;
use output::{Convert, Upsample};
use render::Renderer;

use crate::error::{Code, Error, Result};
use crate::framework::kernel::ExecEnv;
use crate::kernels::jpeg_tables::{MAX_DIMENSION, NATURAL_ORDER};
use crate::tensor::Tensor;
use crate::tensor::buffer::try_vec;
use std::ops::Range;

/// TF's `DecodeJpeg` attributes that change the pixels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DecodeSettings {
    /// 0 (the file's: 1 or 3), 1 or 3.
    pub channels: usize,
    /// 1, 2, 4 or 8: the output is `1/ratio` the size (libjpeg's scaled IDCT).
    pub ratio: usize,
    /// `dct_method`: `INTEGER_FAST` (TF's default) or `INTEGER_ACCURATE`.
    pub fast_idct: bool,
    pub fancy_upscaling: bool,
    pub try_recover_truncated: bool,
    /// `DecodeAndCropJpeg`'s window `[y, x, height, width]` in output pixels (after
    /// `ratio`), checked against the image when its size is known.
    pub crop: Option<[i64; 4]>,
}

impl Default for DecodeSettings {
    fn default() -> Self {
        DecodeSettings {
            channels: 0,
            ratio: 1,
            fast_idct: true,
            fancy_upscaling: true,
            try_recover_truncated: false,
            crop: None,
        }
    }
}

/// Coefficient memory refused beyond this (a 65500-pixel-square file at `ratio` 8).
const MAX_COEFFICIENT_BYTES: usize = 1 << 32;

/// Decodes a JPEG file as TF's `DecodeJpeg` does. Every failure of the data is TF's
/// `InvalidArgument` "Invalid JPEG data or crop window", with libjpeg's reason after it.
pub(crate) fn decode(env: &ExecEnv, data: &[u8], settings: &DecodeSettings) -> Result<Tensor> {
    Decoder::new(data, settings).run(env).map_err(|e| {
        if e.code == Code::InvalidArgument {
            Error::invalid_argument(format!(
                "Invalid JPEG data or crop window, data size {}: {}",
                data.len(),
                e.message
            ))
        } else {
            e
        }
    })
}

/// `ExtractJpegShape`: `[height, width, components]` from the header, as TF's
/// `GetImageInfo` reads it (`jpeg_read_header`: the markers up to the first scan's
/// header, with their errors; libjpeg's default output has one channel per
/// component). Failures are TF's `InvalidArgument` "Invalid JPEG data, size N".
pub(crate) fn header_shape(env: &ExecEnv, data: &[u8]) -> Result<[usize; 3]> {
    let mut decoder = Decoder::new(data, &DecodeSettings::default());
    decoder.header_only = true;
    let read = decoder.read_markers(env);
    match (read, decoder.frame.as_ref()) {
        (Ok(()), Some(f)) => Ok([f.height, f.width, f.comps.len()]),
        (Err(e), _) if e.code != Code::InvalidArgument => Err(e),
        (result, _) => {
            let reason = result.err().map_or_else(|| "no image".to_string(), |e| e.message);
            Err(Error::invalid_argument(format!("Invalid JPEG data, size {}: {reason}", data.len())))
        }
    }
}

/// One component of the frame (`jpeg_component_info`).
pub(super) struct Component {
    id: u8,
    pub h: usize,
    pub v: usize,
    tq: usize,
    pub width_in_blocks: usize,
    pub height_in_blocks: usize,
    /// Columns of blocks held (whole MCUs).
    pub blocks_w: usize,
    blocks_h: usize,
    /// The quantisation table, latched at the component's first scan.
    quant: Option<[u16; 64]>,
}

/// The frame header (`SOF`) and the MCU grid.
pub(super) struct Frame {
    progressive: bool,
    width: usize,
    height: usize,
    pub comps: Vec<Component>,
    max_h: usize,
    max_v: usize,
    pub mcus_x: usize,
    pub mcus_y: usize,
}

/// The next marker at or after `pos` (libjpeg's `next_marker`: bytes before a `0xFF`
/// are skipped, as are fill `0xFF`s and `0xFF 0x00`): its code and the position after
/// it, or `None` at the end of the data.
pub(super) fn find_marker(data: &[u8], mut pos: usize) -> Option<(u8, usize)> {
    loop {
        pos += data.get(pos..)?.iter().position(|&b| b == 0xFF)?;
        while data.get(pos) == Some(&0xFF) {
            pos += 1;
        }
        let &code = data.get(pos)?;
        pos += 1;
        if code != 0 {
            return Some((code, pos));
        }
    }
}

/// The colour space of the file's components (`default_decompress_parms`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ColorSpace {
    Gray,
    YCbCr,
    Rgb,
    Cmyk,
    Ycck,
    Unknown,
}

/// How one needed component's blocks become samples of the output.
#[derive(Clone, Copy, Debug)]
struct CompPlan {
    idct: Idct,
    upsample: Upsample,
    /// The samples the upsampling filters see (`downsampled_width` and height; for a
    /// cropped decode, from the window's first block column on).
    width: usize,
    height: usize,
    /// The first block column rendered.
    first_block: usize,
}

/// The part of the image rendered and output: all of it for `DecodeJpeg`; for
/// `DecodeAndCropJpeg`, what libjpeg-turbo renders after `jpeg_crop_scanline` (the
/// window's left edge moved left to an iMCU column: the upsampling filters treat that
/// column and the window's right edge as the image's edges) and `jpeg_skip_scanlines`
/// (rows as in the whole image).
#[derive(Clone, Debug)]
struct Window {
    /// The first output column rendered, and how many are.
    x0: usize,
    width: usize,
    /// The columns of each rendered row that are output.
    cols: Range<usize>,
    /// The rows of the whole output that are output.
    rows: Range<usize>,
}

impl Window {
    fn whole(width: usize, height: usize) -> Self {
        Window { x0: 0, width, cols: 0..width, rows: 0..height }
    }

    /// TF's check of the window (`IsCropWindowValid`), then `jpeg_crop_scanline`'s
    /// alignment of its left edge to a multiple of `align` output columns.
    fn crop([y, x, h, w]: [i64; 4], out_w: usize, out_h: usize, align: usize) -> Result<Self> {
        let fits = |start: i64, len: i64, size: usize| {
            start >= 0 && len > 0 && start.checked_add(len).is_some_and(|end| end <= size as i64)
        };
        if !fits(x, w, out_w) || !fits(y, h, out_h) {
            return Err(invalid(&format!(
                "Invalid crop window: x={x}, y={y}, w={w}, h={h} for image_width: {out_w} and image_height: {out_h}"
            )));
        }
        let (x, y, w, h) = (x as usize, y as usize, w as usize, h as usize);
        if w == out_w {
            return Ok(Window { x0: 0, width: out_w, cols: 0..out_w, rows: y..y + h });
        }
        let x0 = x / align * align;
        Ok(Window { x0, width: w + x - x0, cols: x - x0..x - x0 + w, rows: y..y + h })
    }

    fn is_cropped_across(&self, out_w: usize) -> bool {
        self.width != out_w
    }
}

/// What the first scan fixed: the output's shape and how to make it.
struct Setup {
    convert: Convert,
    window: Window,
    /// Per component, if needed.
    comps: Vec<Option<CompPlan>>,
    multiple_scans: bool,
    /// A cropped decode of a single-scan file stops after this many MCU rows (libjpeg
    /// reads no further: TF skips the rows below the window).
    mcu_rows_needed: Option<usize>,
}

struct Decoder<'a> {
    data: &'a [u8],
    pos: usize,
    settings: DecodeSettings,
    /// `try_recover_truncated`, until the fake EOI has been read.
    recover: bool,
    quant: [Option<[u16; 64]>; 4],
    dc: [Option<HuffSpec>; 4],
    ac: [Option<HuffSpec>; 4],
    restart_interval: usize,
    jfif: bool,
    adobe: Option<u8>,
    frame: Option<Frame>,
    setup: Option<Setup>,
    coefs: Vec<Vec<[i16; 64]>>,
    /// The image, when a sequential scan was rendered while it was decoded.
    rendered: Option<Tensor>,
    /// A cropped decode has all the rows it needs (or only the header was wanted):
    /// the rest of the file is not read.
    window_decoded: bool,
    /// Read only up to the first scan's header (`jpeg_read_header`).
    header_only: bool,
}

fn invalid(msg: &str) -> Error {
    Error::invalid_argument(msg)
}

impl<'a> Decoder<'a> {
    fn new(data: &'a [u8], settings: &DecodeSettings) -> Self {
        use crate::kernels::jpeg_tables as t;
        let std = |bits: &[u8; 16], vals: &[u8]| Some(HuffSpec { counts: *bits, symbols: vals.to_vec() });
        Decoder {
            data,
            pos: 2,
            settings: *settings,
            recover: settings.try_recover_truncated,
            quant: [None; 4],
            // libjpeg-turbo fills undefined tables 0 and 1 with the standard ones
            // (`std_huff_tables`: Motion-JPEG frames omit them).
            dc: [std(&t::DC_LUMINANCE_BITS, &t::DC_VALUES), std(&t::DC_CHROMINANCE_BITS, &t::DC_VALUES), None, None],
            ac: [
                std(&t::AC_LUMINANCE_BITS, &t::AC_LUMINANCE_VALUES),
                std(&t::AC_CHROMINANCE_BITS, &t::AC_CHROMINANCE_VALUES),
                None,
                None,
            ],
            restart_interval: 0,
            jfif: false,
            adobe: None,
            frame: None,
            setup: None,
            coefs: Vec::new(),
            rendered: None,
            window_decoded: false,
            header_only: false,
        }
    }

    fn run(mut self, env: &ExecEnv) -> Result<Tensor> {
        self.read_markers(env)?;
        if let Some(image) = self.rendered.take() {
            return Ok(image);
        }
        self.render(env)
    }

    /// The file's markers and scans, to its EOI (or as far as a crop or the header
    /// needs).
    fn read_markers(&mut self, env: &ExecEnv) -> Result<()> {
        if self.data.get(..2) != Some(&[0xFF, 0xD8]) {
            return Err(invalid("Not a JPEG file: starts with no SOI marker"));
        }
        let mut pending: Option<u8> = None;
        let mut scans = 0usize;
        loop {
            let marker = match pending.take() {
                Some(m) => m,
                None => self.next_marker()?,
            };
            match marker {
                0xD8 => return Err(invalid("Invalid JPEG file structure: two SOI markers")),
                0xC0..=0xC2 => self.sof(marker == 0xC2)?,
                0xC9 | 0xCA => return Err(invalid("Arithmetic-coded JPEG files are not supported")),
                0xC3 | 0xC5..=0xC7 | 0xCB | 0xCD..=0xCF => {
                    return Err(invalid(&format!("Unsupported JPEG process: SOF type 0x{marker:02x}")));
                }
                0xC4 => self.dht()?,
                0xDB => self.dqt()?,
                0xDD => self.dri()?,
                0xE0 => {
                    let s = self.segment()?;
                    self.jfif |= s.len() >= 14 && s.starts_with(b"JFIF\0");
                }
                0xEE => {
                    let s = self.segment()?;
                    if s.len() >= 12 && s.starts_with(b"Adobe") {
                        self.adobe = Some(s[11]);
                    }
                }
                0xE1..=0xED | 0xEF | 0xFE | 0xCC | 0xDC => {
                    self.segment()?;
                }
                0xD0..=0xD7 | 0x01 => {}
                0xDA => {
                    if scans > 0 && !self.setup.as_ref().is_some_and(|s| s.multiple_scans) {
                        return Err(invalid("Invalid JPEG file structure: missing EOI marker"));
                    }
                    pending = self.sos(env)?;
                    scans += 1;
                    if self.window_decoded {
                        break;
                    }
                }
                0xD9 => break,
                _ => return Err(invalid(&format!("Unsupported marker type 0x{marker:02x}"))),
            }
        }
        if scans == 0 {
            return Err(invalid("JPEG datastream contains no image"));
        }
        Ok(())
    }

    /// The next marker between segments; the end of the data is an error, or (with
    /// recovery, once) a fake EOI.
    fn next_marker(&mut self) -> Result<u8> {
        match find_marker(self.data, self.pos) {
            Some((m, pos)) => {
                self.pos = pos;
                Ok(m)
            }
            None => {
                self.pos = self.data.len();
                if self.recover {
                    self.recover = false;
                    Ok(0xD9)
                } else {
                    Err(invalid("Premature end of JPEG file"))
                }
            }
        }
    }

    /// A marker segment's payload (after its 2-byte length).
    fn segment(&mut self) -> Result<&'a [u8]> {
        let len = match self.data.get(self.pos..self.pos + 2) {
            Some(b) => usize::from(u16::from_be_bytes([b[0], b[1]])),
            None => return Err(invalid("Premature end of JPEG file")),
        };
        if len < 2 {
            return Err(invalid("Bogus marker length"));
        }
        let body = self.data.get(self.pos + 2..self.pos + len).ok_or_else(|| invalid("Premature end of JPEG file"))?;
        self.pos += len;
        Ok(body)
    }

    fn sof(&mut self, progressive: bool) -> Result<()> {
        let s = self.segment()?;
        if self.frame.is_some() {
            return Err(invalid("Invalid JPEG file structure: two SOF markers"));
        }
        if s.len() < 6 {
            return Err(invalid("Bogus marker length"));
        }
        let (precision, height, width, n) =
            (s[0], usize::from(u16::from_be_bytes([s[1], s[2]])), usize::from(u16::from_be_bytes([s[3], s[4]])), s[5]);
        if height == 0 || width == 0 || n == 0 {
            return Err(invalid("Empty JPEG image (DNL not supported)"));
        }
        if s.len() != 6 + 3 * usize::from(n) {
            return Err(invalid("Bogus marker length"));
        }
        if height > MAX_DIMENSION || width > MAX_DIMENSION {
            return Err(invalid(&format!("Maximum supported image dimension is {MAX_DIMENSION} pixels")));
        }
        if precision != 8 {
            return Err(invalid(&format!("Unsupported JPEG data precision {precision}")));
        }
        if n > 10 {
            return Err(invalid(&format!("Too many color components: {n}, max 10")));
        }
        let mut comps = Vec::with_capacity(usize::from(n));
        for c in s[6..].chunks_exact(3) {
            let (h, v) = (usize::from(c[1] >> 4), usize::from(c[1] & 15));
            if !(1..=4).contains(&h) || !(1..=4).contains(&v) {
                return Err(invalid("Bogus sampling factors"));
            }
            if comps.iter().any(|k: &Component| k.id == c[0]) {
                return Err(invalid(&format!("Duplicate component id {}", c[0])));
            }
            let tq = usize::from(c[2]);
            comps.push(Component {
                id: c[0],
                h,
                v,
                tq,
                width_in_blocks: 0,
                height_in_blocks: 0,
                blocks_w: 0,
                blocks_h: 0,
                quant: None,
            });
        }
        let max_h = comps.iter().map(|c| c.h).max().unwrap_or(1);
        let max_v = comps.iter().map(|c| c.v).max().unwrap_or(1);
        let mcus_x = width.div_ceil(max_h * 8);
        let mcus_y = height.div_ceil(max_v * 8);
        for c in &mut comps {
            c.width_in_blocks = (width * c.h).div_ceil(max_h * 8);
            c.height_in_blocks = (height * c.v).div_ceil(max_v * 8);
            c.blocks_w = (mcus_x * c.h).max(c.width_in_blocks);
            c.blocks_h = (mcus_y * c.v).max(c.height_in_blocks);
        }
        self.frame = Some(Frame { progressive, width, height, comps, max_h, max_v, mcus_x, mcus_y });
        Ok(())
    }

    fn dqt(&mut self) -> Result<()> {
        let mut s = self.segment()?;
        while let Some((&pq, rest)) = s.split_first() {
            let (prec16, index) = (pq >> 4 != 0, usize::from(pq & 15));
            if index >= 4 {
                return Err(invalid(&format!("Bogus DQT index {index}")));
            }
            let size = if prec16 { 2 } else { 1 };
            let count = (rest.len() / size).min(64);
            // libjpeg-turbo reads a short table, the rest of it 1.
            let mut table = [1u16; 64];
            for (i, v) in rest[..count * size].chunks_exact(size).enumerate() {
                table[NATURAL_ORDER[i]] = if prec16 { u16::from_be_bytes([v[0], v[1]]) } else { u16::from(v[0]) };
            }
            self.quant[index] = Some(table);
            s = &rest[count * size..];
        }
        Ok(())
    }

    fn dht(&mut self) -> Result<()> {
        let mut s = self.segment()?;
        while s.len() > 16 {
            let index = s[0];
            let mut counts = [0u8; 16];
            counts.copy_from_slice(&s[1..17]);
            let count: usize = counts.iter().map(|&c| usize::from(c)).sum();
            s = &s[17..];
            if count > 256 || count > s.len() {
                return Err(invalid("Bogus Huffman table definition"));
            }
            let spec = HuffSpec { counts, symbols: s[..count].to_vec() };
            s = &s[count..];
            let slot = usize::from(index & 0x0F);
            if index & !0x1F != 0 || slot >= 4 {
                return Err(invalid(&format!("Bogus DHT index {index}")));
            }
            if index & 0x10 != 0 {
                self.ac[slot] = Some(spec);
            } else {
                self.dc[slot] = Some(spec);
            }
        }
        if !s.is_empty() {
            return Err(invalid("Bogus marker length"));
        }
        Ok(())
    }

    fn dri(&mut self) -> Result<()> {
        let s = self.segment()?;
        if s.len() != 2 {
            return Err(invalid("Bogus marker length"));
        }
        self.restart_interval = usize::from(u16::from_be_bytes([s[0], s[1]]));
        Ok(())
    }

    /// A scan: its header, the setup at the first, then its data. Returns the marker
    /// the data stopped at, if it stopped at one.
    fn sos(&mut self, env: &ExecEnv) -> Result<Option<u8>> {
        if self.frame.is_none() {
            return Err(invalid("Invalid JPEG file structure: SOS before SOF"));
        }
        let s = self.segment()?;
        let n = usize::from(*s.first().unwrap_or(&0));
        if s.len() != 2 * n + 4 || !(1..=4).contains(&n) {
            return Err(invalid("Bogus marker length"));
        }
        let frame = self.frame.as_mut().ok_or_else(|| invalid("no frame"))?;
        let mut comps = Vec::with_capacity(n);
        let mut tables = Vec::with_capacity(n);
        for c in s[1..1 + 2 * n].chunks_exact(2) {
            let found = frame.comps.iter().take(4).position(|k| k.id == c[0]);
            match found {
                Some(ci) if !comps.contains(&ci) => {
                    comps.push(ci);
                    tables.push((usize::from(c[1] >> 4), usize::from(c[1] & 15)));
                }
                _ => return Err(invalid(&format!("Invalid component ID {} in SOS", c[0]))),
            }
        }
        if self.header_only {
            // `jpeg_read_header` stops here; the scan's parameters are checked later.
            self.window_decoded = true;
            return Ok(None);
        }
        let (ss, se, ah, al) =
            (usize::from(s[1 + 2 * n]), usize::from(s[2 + 2 * n]), s[3 + 2 * n] >> 4, s[3 + 2 * n] & 15);
        if n > 1 && comps.iter().map(|&ci| frame.comps[ci].h * frame.comps[ci].v).sum::<usize>() > 10 {
            return Err(invalid("Sampling factors too large for interleaved scan"));
        }
        if frame.progressive {
            let bad = if ss == 0 { se != 0 } else { ss > se || se > 63 || n != 1 };
            if bad || (ah != 0 && al != ah - 1) || al > 13 {
                return Err(invalid(&format!("Invalid progressive parameters Ss={ss} Se={se} Ah={ah} Al={al}")));
            }
        }
        // Quantisation tables are latched at a component's first scan.
        for &ci in &comps {
            let c = &mut frame.comps[ci];
            if c.quant.is_none() {
                let tq = c.tq;
                c.quant = Some(
                    self.quant
                        .get(tq)
                        .copied()
                        .flatten()
                        .ok_or_else(|| invalid(&format!("Quantization table 0x{tq:02x} was not defined")))?,
                );
            }
        }
        if self.setup.is_none() {
            self.start(n)?;
        }
        let progressive = self.frame.as_ref().is_some_and(|f| f.progressive);
        // Tables as libjpeg builds them at the scan's start (errors for bad ones).
        let need_dc = !progressive || (ss == 0 && ah == 0);
        let need_ac = !progressive || ss != 0;
        let mut built: Vec<(Option<HuffTable>, Option<HuffTable>)> = Vec::with_capacity(n);
        for &(td, ta) in &tables {
            built.push((
                if need_dc { Some(huff_table(&self.dc, td, true)?) } else { None },
                if need_ac { Some(huff_table(&self.ac, ta, false)?) } else { None },
            ));
        }
        // An AC scan of a component the output does not use is skipped to its end.
        if progressive && ss != 0 && self.setup.as_ref().is_some_and(|s| s.comps[comps[0]].is_none()) {
            return self.skip_scan_data();
        }
        let scan = Scan {
            comps,
            dc: built.iter().map(|(d, _)| d.as_ref()).collect(),
            ac: built.iter().map(|(_, a)| a.as_ref()).collect(),
            ss,
            se,
            ah: u32::from(ah),
            al: u32::from(al),
        };
        let frame = self.frame.as_ref().ok_or_else(|| invalid("no frame"))?;
        let setup = self.setup.as_ref().ok_or_else(|| invalid("no setup"))?;
        let reader = BitReader::new(self.data, self.pos, self.recover);
        let mut dec = ScanDecoder::new(reader, &scan, progressive, self.restart_interval);
        if let Some(rows) = setup.mcu_rows_needed {
            dec.stop_after(rows);
            self.window_decoded = true;
        }
        // The file's only scan, interleaved: rendered MCU row by MCU row on a second
        // thread while the rest is decoded.
        let one_scan = !setup.multiple_scans && frame.comps.len() > 1;
        match env.intra_pool.as_ref().filter(|p| one_scan && p.current_num_threads() > 1) {
            Some(pool) => {
                let ratio = self.settings.ratio;
                self.rendered = Some(decode_rendering(pool, frame, setup, ratio, &mut self.coefs, &mut dec)?);
            }
            None => dec.run(frame, &mut self.coefs)?,
        }
        let reader = dec.reader;
        if reader.fake_eoi() {
            self.recover = false;
        }
        self.pos = reader.pos;
        Ok(reader.marker)
    }

    /// The position after the scan's data: the first marker that is not a restart.
    fn skip_scan_data(&mut self) -> Result<Option<u8>> {
        loop {
            let m = self.next_marker()?;
            if !(0xD0..=0xD7).contains(&m) {
                return Ok(Some(m));
            }
        }
    }

    /// At the first scan: the colour spaces, the output's size and TF's limit on it,
    /// each component's IDCT and upsampling, and the coefficient storage.
    fn start(&mut self, first_scan_comps: usize) -> Result<()> {
        let frame = self.frame.as_ref().ok_or_else(|| invalid("no frame"))?;
        let n = frame.comps.len();
        let space = match n {
            1 => ColorSpace::Gray,
            3 if self.jfif => ColorSpace::YCbCr,
            3 => match self.adobe {
                Some(0) => ColorSpace::Rgb,
                Some(_) => ColorSpace::YCbCr,
                None => {
                    let ids: Vec<u8> = frame.comps.iter().map(|c| c.id).collect();
                    if ids == [82, 71, 66] { ColorSpace::Rgb } else { ColorSpace::YCbCr }
                }
            },
            4 => match self.adobe {
                Some(0) => ColorSpace::Cmyk,
                Some(_) => ColorSpace::Ycck,
                None => ColorSpace::Cmyk,
            },
            _ => ColorSpace::Unknown,
        };
        // TF: channels 0 means the file's, capped at 3.
        let channels = match self.settings.channels {
            0 => n.min(3),
            c => c,
        };
        let inverted = self.adobe.is_some();
        let convert = match (channels, space) {
            (1, ColorSpace::Gray | ColorSpace::YCbCr) => Convert::Gray,
            (1, ColorSpace::Rgb) => Convert::RgbToGray,
            (3, ColorSpace::Gray) => Convert::GrayToRgb,
            (3, ColorSpace::YCbCr) => Convert::YccToRgb,
            (3, ColorSpace::Rgb) => Convert::Rgb,
            (3, ColorSpace::Cmyk) => Convert::Cmyk { ycck: false, inverted },
            (3, ColorSpace::Ycck) => Convert::Cmyk { ycck: true, inverted },
            (1 | 3, _) => return Err(invalid("Unsupported color conversion request")),
            (c, _) => return Err(invalid(&format!("Invalid components value {c}"))),
        };
        let needed = |ci: usize| convert != Convert::Gray || ci == 0;

        let ratio = self.settings.ratio;
        let min_s = 8 / ratio;
        let out_w = frame.width.div_ceil(ratio);
        let out_h = frame.height.div_ceil(ratio);
        let total = out_w.checked_mul(out_h).and_then(|p| p.checked_mul(n));
        if total.is_none_or(|t| t >= 1 << 29) {
            return Err(invalid(&format!("Image too large ({out_w} by {out_h})")));
        }
        let do_fancy = self.settings.fancy_upscaling && min_s > 1;
        // `jpeg_crop_scanline`'s alignment: an iMCU column (one block of a lone
        // component).
        let align = if n == 1 { min_s } else { min_s * frame.max_h };
        let window = match self.settings.crop {
            Some(c) => Window::crop(c, out_w, out_h, align)?,
            None => Window::whole(out_w, out_h),
        };
        let cropped = window.is_cropped_across(out_w);
        // Every component's scaled block size and `downsampled_width`, before and
        // after the crop; `jpeg_crop_scanline` re-chooses the upsampling filters when a
        // width falls below 2 (a filter across needs 3 samples).
        let scaled: Vec<(usize, usize, usize)> = frame
            .comps
            .iter()
            .map(|c| {
                // `jpeg_calc_output_dimensions`: chroma scaled up by the IDCT where it can.
                let mut s = min_s;
                while s < 8
                    && (frame.max_h * min_s).is_multiple_of(c.h * s * 2)
                    && (frame.max_v * min_s).is_multiple_of(c.v * s * 2)
                {
                    s *= 2;
                }
                let dw = (frame.width * c.h * s).div_ceil(frame.max_h * 8);
                (s, dw, (window.width * c.h).div_ceil(frame.max_h))
            })
            .collect();
        let reinit = cropped && scaled.iter().any(|&(_, dw, cropped_dw)| cropped_dw < 2 && dw >= 2);
        let mut comps = Vec::with_capacity(n);
        let mut coef_blocks = 0usize;
        for (ci, c) in frame.comps.iter().enumerate() {
            if !needed(ci) {
                comps.push(None);
                continue;
            }
            let (s, full_dw, cropped_dw) = scaled[ci];
            let idct = match s {
                8 if self.settings.fast_idct => Idct::Ifast,
                8 => Idct::Islow,
                4 => Idct::Reduced4,
                2 => Idct::Reduced2,
                _ => Idct::Reduced1,
            };
            let dh = (frame.height * c.v * s).div_ceil(frame.max_v * 8);
            let (h_in, v_in) = (c.h * s / min_s, c.v * s / min_s);
            let (h_out, v_out) = (frame.max_h, frame.max_v);
            // The samples across the filters see: the file's, or the window's.
            let dw = if cropped { (window.width * h_in).div_ceil(h_out) } else { full_dw };
            let fancy_across = do_fancy && if reinit { cropped_dw > 2 } else { full_dw > 2 };
            let up = if h_in == h_out && v_in == v_out {
                Upsample::Full
            } else if h_in * 2 == h_out && v_in == v_out {
                if fancy_across { Upsample::FancyH2V1 } else { Upsample::Box { h: 2, v: 1 } }
            } else if h_in == h_out && v_in * 2 == v_out && do_fancy {
                Upsample::FancyH1V2
            } else if h_in * 2 == h_out && v_in * 2 == v_out {
                if fancy_across { Upsample::FancyH2V2 } else { Upsample::Box { h: 2, v: 2 } }
            } else if h_out.is_multiple_of(h_in) && v_out.is_multiple_of(v_in) {
                Upsample::Box { h: h_out / h_in, v: v_out / v_in }
            } else {
                return Err(invalid("Fractional sampling not implemented yet"));
            };
            coef_blocks = coef_blocks.saturating_add(c.blocks_w.saturating_mul(c.blocks_h));
            let first_block = window.x0 * c.h / (min_s * frame.max_h);
            comps.push(Some(CompPlan { idct, upsample: up, width: dw, height: dh, first_block }));
        }
        if coef_blocks.saturating_mul(128) > MAX_COEFFICIENT_BYTES {
            return Err(Error::new(
                Code::ResourceExhausted,
                format!("JPEG of {} by {} pixels needs more than 4 GiB of coefficients", frame.width, frame.height),
            ));
        }
        let mut coefs = Vec::with_capacity(n);
        for (ci, c) in frame.comps.iter().enumerate() {
            let mut v = Vec::new();
            if comps[ci].is_some() {
                v = try_vec(c.blocks_w * c.blocks_h)?;
                v.resize(c.blocks_w * c.blocks_h, [0i16; 64]);
            }
            coefs.push(v);
        }
        self.coefs = coefs;
        let multiple_scans = first_scan_comps < n || frame.progressive;
        // A single scan is decoded only down to the window's last row (and the MCU row
        // after it where the vertical filters need the row below: libjpeg's context
        // rows are read one MCU row ahead for a row group's last rows); the data after
        // it is never read, as TF skips those rows.
        let mut mcu_rows_needed = None;
        if self.settings.crop.is_some() && !multiple_scans && window.rows.end < out_h {
            let rows_per_mcu = frame.max_v * min_s;
            let last = window.rows.end - 1;
            let context =
                comps.iter().flatten().any(|p| matches!(p.upsample, Upsample::FancyH1V2 | Upsample::FancyH2V2));
            let in_last_group = last % rows_per_mcu >= rows_per_mcu - frame.max_v;
            let needed = last / rows_per_mcu + 1 + usize::from(context && in_last_group);
            mcu_rows_needed = Some(needed.min(frame.mcus_y));
        }
        self.setup = Some(Setup { convert, window, comps, multiple_scans, mcu_rows_needed });
        Ok(())
    }

    /// Coefficients to pixels: the IDCT into planes, then upsampling and colour
    /// conversion into the output, each in parallel.
    fn render(self, env: &ExecEnv) -> Result<Tensor> {
        let frame = self.frame.as_ref().ok_or_else(|| invalid("no frame"))?;
        let setup = self.setup.as_ref().ok_or_else(|| invalid("no setup"))?;
        let mut renderer = Renderer::new(frame, setup, self.settings.ratio)?;
        renderer.idct_all(env, &self.coefs);
        let mut out = renderer.image()?;
        renderer.output_all(env, out.as_mut_bytes()?);
        Ok(out)
    }
}

/// A sequential scan decoded on this thread while another renders each MCU row once
/// the next is decoded (the upsampling reaches into it). If the decoder fails, the
/// renderer finishes on what it was given and the error is returned.
fn decode_rendering(
    pool: &rayon::ThreadPool,
    frame: &Frame,
    setup: &Setup,
    ratio: usize,
    coefs: &mut [Vec<[i16; 64]>],
    dec: &mut ScanDecoder<'_, '_>,
) -> Result<Tensor> {
    let mut renderer = Renderer::new(frame, setup, ratio)?;
    let mut out = renderer.image()?;
    let bytes = out.as_mut_bytes()?;
    let row_bytes = renderer.row_bytes();
    let (tx, rx) = std::sync::mpsc::channel();
    // `join` runs the decoder here and the renderer on an idle worker, or after the
    // decoder on this thread if none is idle: the renderer only waits on rows the
    // decoder has sent or will send, so neither order can deadlock.
    let (decoded, ()) = pool.join(
        move || {
            dec.run_rows(frame, coefs, |my, rows| {
                let _ = tx.send((my, rows));
            })
        },
        || {
            let rows = renderer.rows();
            let at = |row: usize| (row - rows.start) * row_bytes;
            let mut done = rows.start;
            for (my, blocks) in rx {
                renderer.idct_mcu_row(my, &blocks);
                let ready = renderer.rows_ready_after(my).min(rows.end);
                if ready > done {
                    renderer.output_rows(done..ready, &mut bytes[at(done)..at(ready)]);
                    done = ready;
                }
            }
            renderer.output_rows(done..rows.end, &mut bytes[at(done)..]);
        },
    );
    decoded?;
    Ok(out)
}

/// The decoding table of a DHT slot, or libjpeg's error for a missing or bad one.
fn huff_table(slots: &[Option<HuffSpec>; 4], i: usize, dc: bool) -> Result<HuffTable> {
    let spec = slots
        .get(i)
        .and_then(Option::as_ref)
        .ok_or_else(|| invalid(&format!("Huffman table 0x{:02x} was not defined", i + if dc { 0 } else { 16 })))?;
    HuffTable::new(spec, dc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crop_windows_align_as_jpeg_crop_scanline() {
        // The left edge moves left to a multiple of the alignment; the right edge stays.
        let w = Window::crop([3, 37, 10, 20], 93, 77, 16).unwrap();
        assert_eq!((w.x0, w.width, w.cols, w.rows), (32, 25, 5..25, 3..13));
        // Already aligned, and the full width (libjpeg leaves it as it is).
        let w = Window::crop([0, 16, 1, 1], 93, 77, 16).unwrap();
        assert_eq!((w.x0, w.width, w.cols), (16, 1, 0..1));
        let w = Window::crop([5, 0, 2, 93], 93, 77, 16).unwrap();
        assert_eq!((w.x0, w.width, w.cols, w.rows), (0, 93, 0..93, 5..7));
        // TF's `IsCropWindowValid`: inside the image, positive sizes, no overflow.
        for bad in [[-1, 0, 1, 1], [0, -1, 1, 1], [0, 0, 0, 1], [0, 0, 1, 0], [0, 0, 78, 1], [0, 80, 1, 14]] {
            assert!(Window::crop(bad, 93, 77, 16).is_err(), "{bad:?}");
        }
        assert!(Window::crop([0, i64::MAX, 1, i64::MAX], 93, 77, 16).is_err());
    }

    #[test]
    fn header_shape_stops_at_the_first_scan() {
        let env = ExecEnv::SINGLE_THREADED;
        // SOI, SOF0 (2x3, 1 component), SOS header, then nothing.
        let mut data = vec![0xFF, 0xD8, 0xFF, 0xC0, 0, 11, 8, 0, 2, 0, 3, 1, 1, 0x11, 0];
        data.extend_from_slice(&[0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0]);
        assert_eq!(header_shape(&env, &data).unwrap(), [2, 3, 1]);
        // No scan: TF's "Invalid JPEG data".
        let err = header_shape(&env, &data[..15]).unwrap_err();
        assert!(err.message.starts_with("Invalid JPEG data, size 15"), "{}", err.message);
    }
}
