//! Huffman decoding as libjpeg-turbo does it (`jdhuff.c`): tables validated as
//! `jpeg_make_d_derived_tbl` validates them, a bit reader that stops at a marker and
//! feeds zeros after it, and a bad code that consumes 17 bits and decodes as 0.

use crate::error::{Error, Result};

/// Bits looked up at once; longer codes take the bit-by-bit path.
const LOOKAHEAD: u32 = 9;
/// Bits of the AC table that takes a code and its extra bits at once (8 KiB: larger
/// coefficients of high-quality files fit as well).
const FAST_BITS: u32 = 11;

/// A DHT table as defined in the file: code counts per length 1..=16 and the symbols.
#[derive(Clone)]
pub(super) struct HuffSpec {
    pub counts: [u8; 16],
    pub symbols: Vec<u8>,
}

/// A Huffman table as the decoder uses it (libjpeg's `d_derived_tbl`).
pub(super) struct HuffTable {
    /// `(length << 8) | symbol` for every `LOOKAHEAD`-bit prefix that starts with a
    /// code of at most `LOOKAHEAD` bits; 0 otherwise.
    lookup: Box<[u16; 1 << LOOKAHEAD]>,
    /// The largest code of each length (-1: none); `[17]` ends the search.
    maxcode: [i32; 18],
    /// Index of a code's symbol: `code + valoffset[length]`.
    valoffset: [i32; 18],
    symbols: [u8; 256],
    /// For AC tables: where a code and its extra bits fit in `FAST_BITS` bits, the
    /// coefficient at once: `value << 16 | run << 8 | bits`; 0 otherwise.
    pub fast_ac: Box<[i32; 1 << FAST_BITS]>,
}

fn bad_table() -> Error {
    Error::invalid_argument("Bogus Huffman table definition")
}

impl HuffTable {
    /// libjpeg's checks: at most 256 symbols, no length overflowing its codes (the
    /// all-ones code is not allowed), and DC symbols within 0..=15.
    pub(super) fn new(spec: &HuffSpec, is_dc: bool) -> Result<Self> {
        let mut sizes = Vec::with_capacity(256);
        for (l, &n) in spec.counts.iter().enumerate() {
            if sizes.len() + usize::from(n) > 256 {
                return Err(bad_table());
            }
            sizes.extend(std::iter::repeat_n(l as u32 + 1, usize::from(n)));
        }
        let nsym = sizes.len();
        if spec.symbols.len() < nsym {
            return Err(bad_table());
        }
        let mut codes = vec![0u32; nsym];
        let (mut code, mut p) = (0u32, 0usize);
        let mut si = sizes.first().copied().unwrap_or(0);
        while p < nsym {
            while p < nsym && sizes[p] == si {
                codes[p] = code;
                code += 1;
                p += 1;
            }
            if u64::from(code) >= 1u64 << si {
                return Err(bad_table());
            }
            code <<= 1;
            si += 1;
        }
        let mut maxcode = [-1i32; 18];
        let mut valoffset = [0i32; 18];
        let mut p = 0usize;
        for l in 1..=16 {
            let n = usize::from(spec.counts[l - 1]);
            if n > 0 {
                valoffset[l] = p as i32 - codes[p] as i32;
                p += n;
                maxcode[l] = codes[p - 1] as i32;
            }
        }
        maxcode[17] = 0xFFFFF;
        let mut symbols = [0u8; 256];
        symbols[..nsym].copy_from_slice(&spec.symbols[..nsym]);
        if is_dc && symbols[..nsym].iter().any(|&s| s > 15) {
            return Err(bad_table());
        }
        let mut lookup = Box::new([0u16; 1 << LOOKAHEAD]);
        for (i, (&len, &code)) in sizes.iter().zip(&codes).enumerate() {
            if len <= LOOKAHEAD {
                let first = (code << (LOOKAHEAD - len)) as usize;
                let entry = (len as u16) << 8 | u16::from(symbols[i]);
                lookup[first..first + (1 << (LOOKAHEAD - len))].fill(entry);
            }
        }
        let mut fast_ac = Box::new([0i32; 1 << FAST_BITS]);
        if !is_dc {
            for (i, f) in fast_ac.iter_mut().enumerate() {
                let e = lookup[i >> (FAST_BITS - LOOKAHEAD)];
                let (len, sym) = (u32::from(e >> 8), e & 0xFF);
                let (run, size) = (u32::from(sym >> 4), u32::from(sym & 15));
                if e != 0 && size != 0 && len + size <= FAST_BITS {
                    let extra = (i as i32 >> (FAST_BITS - len - size)) & ((1 << size) - 1);
                    *f = extend(extra, size) << 16 | (run << 8 | (len + size)) as i32;
                }
            }
        }
        Ok(HuffTable { lookup, maxcode, valoffset, symbols, fast_ac })
    }
}

/// The bits a reader holds: `bits` of them MSB-aligned in `buf`, zero padding
/// included. Hot loops keep a copy in locals (`BitReader::window`) and hand it back
/// (`set_window`), so the buffer stays in registers rather than in the reader.
#[derive(Clone, Copy)]
pub(super) struct Window {
    buf: u64,
    bits: u32,
}

impl Window {
    /// The next `n` bits (1..=32); the buffer holds them (callers refill first).
    #[inline(always)]
    fn peek(self, n: u32) -> u32 {
        (self.buf >> (64 - n)) as u32
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        debug_assert!(n <= self.bits);
        self.buf <<= n;
        self.bits -= n;
    }
}

/// Entropy-coded data read MSB first: `0xFF 0x00` is a data byte `0xFF`, and any other
/// `0xFF xx` is a marker, where the reader stops (libjpeg's `unread_marker`) and feeds
/// zeros from then on.
pub(super) struct BitReader<'a> {
    data: &'a [u8],
    /// Next unread byte.
    pub pos: usize,
    w: Window,
    /// Zero bits appended since the data stopped.
    padding: u32,
    /// The marker the data stopped at, not yet handled.
    pub marker: Option<u8>,
    /// The data ended without a marker (an error unless TF's `try_recover_truncated`,
    /// which reads a fake EOI there).
    pub hit_end: bool,
    recover: bool,
}

impl<'a> BitReader<'a> {
    pub(super) fn new(data: &'a [u8], pos: usize, recover: bool) -> Self {
        BitReader { data, pos, w: Window { buf: 0, bits: 0 }, padding: 0, marker: None, hit_end: false, recover }
    }

    fn stopped(&self) -> bool {
        self.marker.is_some() || self.hit_end
    }

    /// The bit buffer, to work on in locals.
    #[inline(always)]
    pub(super) fn window(&self) -> Window {
        self.w
    }

    /// The bit buffer back from a hot loop.
    #[inline(always)]
    pub(super) fn set_window(&mut self, w: Window) {
        self.w = w;
    }

    /// `w` filled to more than 56 bits (zeros once the data has stopped).
    #[inline(always)]
    pub(super) fn fill(&mut self, mut w: Window) -> Window {
        if w.bits > 56 {
            return w;
        }
        if !self.stopped()
            && let Some(word) = self.data.get(self.pos..self.pos + 8)
        {
            let word = u64::from_be_bytes(word.try_into().unwrap_or_default());
            // No 0xFF byte among the eight: take whole bytes straight.
            if (!word).wrapping_sub(0x0101_0101_0101_0101) & word & 0x8080_8080_8080_8080 == 0 {
                let take = (64 - w.bits) / 8;
                let new = if take == 8 { word } else { word >> (64 - 8 * take) };
                w.buf |= new << (64 - w.bits - 8 * take);
                w.bits += 8 * take;
                self.pos += take as usize;
                return w;
            }
        }
        self.fill_bytes(w)
    }

    #[cold]
    fn fill_bytes(&mut self, mut w: Window) -> Window {
        while w.bits <= 56 {
            let byte = if self.stopped() { None } else { self.next_byte() };
            match byte {
                Some(b) => w.buf |= u64::from(b) << (56 - w.bits),
                None => self.padding += 8,
            }
            w.bits += 8;
        }
        w
    }

    /// Fills the buffer to more than 56 bits.
    #[cfg(test)]
    fn refill(&mut self) {
        self.w = self.fill(self.w);
    }

    /// The next data byte, or `None` where a marker or the end of the data stops it.
    fn next_byte(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos).or_else(|| {
            self.end();
            None
        })?;
        self.pos += 1;
        if b != 0xFF {
            return Some(b);
        }
        loop {
            let Some(&c) = self.data.get(self.pos) else {
                self.end();
                return None;
            };
            self.pos += 1;
            match c {
                0xFF => continue,
                0 => return Some(0xFF),
                m => {
                    self.marker = Some(m);
                    return None;
                }
            }
        }
    }

    /// The data as a whole.
    pub(super) fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Whether the reader read TF's fake EOI at the data's end.
    pub(super) fn fake_eoi(&self) -> bool {
        self.recover && self.marker == Some(0xD9) && self.pos >= self.data.len()
    }

    /// The data's end reached outside the bit buffer (looking for a marker).
    pub(super) fn stop_at_end(&mut self) {
        self.end();
    }

    fn end(&mut self) {
        if self.recover {
            // TF's source manager inserts an EOI where the data ends.
            self.marker = Some(0xD9);
        } else {
            self.hit_end = true;
        }
    }

    /// Whether zeros past the data's end were consumed (libjpeg's
    /// `insufficient_data`).
    pub(super) fn ran_out(&self) -> bool {
        self.w.bits < self.padding
    }

    /// `n` bits of `w` as a number (`n` <= 16; 0 gives 0).
    #[inline(always)]
    pub(super) fn bits_w(&mut self, mut w: Window, n: u32) -> (Window, i32) {
        if n == 0 {
            return (w, 0);
        }
        if w.bits < n {
            w = self.fill(w);
        }
        let v = w.peek(n);
        w.consume(n);
        (w, v as i32)
    }

    /// `n` bits as a number (`n` <= 16; 0 gives 0).
    #[inline(always)]
    pub(super) fn bits(&mut self, n: u32) -> i32 {
        let (w, v) = self.bits_w(self.w, n);
        self.w = w;
        v
    }

    /// An AC coefficient with its code in one lookup: `(run, value)`, if the next bits
    /// of `w` hold one short enough.
    #[inline(always)]
    pub(super) fn fast_ac_w(&mut self, mut w: Window, t: &HuffTable) -> (Window, Option<(usize, i32)>) {
        if w.bits < 32 {
            w = self.fill(w);
        }
        let f = t.fast_ac[w.peek(FAST_BITS) as usize];
        if f == 0 {
            return (w, None);
        }
        w.consume((f & 0xFF) as u32);
        (w, Some((((f >> 8) & 0xFF) as usize, f >> 16)))
    }

    /// One Huffman symbol from `w`.
    #[inline(always)]
    pub(super) fn decode_w(&mut self, mut w: Window, t: &HuffTable) -> (Window, u8) {
        if w.bits < 32 {
            w = self.fill(w);
        }
        let e = t.lookup[w.peek(LOOKAHEAD) as usize];
        if e != 0 {
            w.consume(u32::from(e >> 8));
            return (w, e as u8);
        }
        decode_long(w, t)
    }

    /// One Huffman symbol.
    #[inline(always)]
    pub(super) fn decode(&mut self, t: &HuffTable) -> u8 {
        let (w, s) = self.decode_w(self.w, t);
        self.w = w;
        s
    }

    /// Drops the buffered bits (at a restart marker).
    pub(super) fn reset(&mut self) {
        self.w = Window { buf: 0, bits: 0 };
        self.padding = 0;
    }

    /// The data resumes after a marker was handled.
    pub(super) fn resume(&mut self) {
        self.marker = None;
        self.reset();
    }
}

/// A code longer than the lookahead (`jpeg_huff_decode`), bit by bit; `w` holds at
/// least 32 bits.
#[cold]
fn decode_long(mut w: Window, t: &HuffTable) -> (Window, u8) {
    let mut l = LOOKAHEAD as usize + 1;
    while l <= 16 && w.peek(l as u32) as i32 > t.maxcode[l] {
        l += 1;
    }
    if l > 16 {
        // libjpeg: "Corrupt JPEG data: bad Huffman code", 17 bits gone, symbol 0.
        w.consume(17);
        return (w, 0);
    }
    let code = w.peek(l as u32) as i32;
    w.consume(l as u32);
    (w, t.symbols.get((code + t.valoffset[l]) as usize).copied().unwrap_or(0))
}

/// libjpeg's `HUFF_EXTEND`: `r` of `s` bits as a signed value.
#[inline(always)]
pub(super) fn extend(r: i32, s: u32) -> i32 {
    if s == 0 {
        return 0;
    }
    // Without a branch on the sign: the top bit clear means negative.
    let negative = ((r >> (s - 1)) & 1) - 1;
    r + (negative & (1 - (1 << s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(counts: &[(usize, u8)], symbols: &[u8]) -> HuffSpec {
        let mut c = [0u8; 16];
        for &(l, n) in counts {
            c[l - 1] = n;
        }
        HuffSpec { counts: c, symbols: symbols.to_vec() }
    }

    #[test]
    fn libjpegs_table_checks() {
        // Two 1-bit codes: the second is the all-ones code.
        assert!(HuffTable::new(&table(&[(1, 2)], &[0, 1]), false).is_err());
        assert!(HuffTable::new(&table(&[(1, 1), (2, 1)], &[0, 1]), false).is_ok());
        assert!(HuffTable::new(&table(&[(1, 1)], &[16]), true).is_err());
        assert!(HuffTable::new(&table(&[(1, 1)], &[16]), false).is_ok());
        assert!(HuffTable::new(&table(&[(16, 255), (15, 2)], &[0; 257]), false).is_err());
    }

    #[test]
    fn codes_long_and_short_stuffing_and_markers() {
        // Lengths 1 (sym 7), 2 (sym 8), 12 (sym 9): codes 0, 10, 110000000000.
        let t = HuffTable::new(&table(&[(1, 1), (2, 1), (12, 1)], &[7, 8, 9]), false).unwrap();
        // 0 10 110000000000 0 0, then ones: 0101_1000 0000_0000 0111_1111 1111_1111
        // (the last byte 0xFF stuffed with 0x00), then EOI.
        let data = [0x58, 0x00, 0x7F, 0xFF, 0x00, 0xFF, 0xD9];
        let mut r = BitReader::new(&data, 0, false);
        assert_eq!(r.decode(&t), 7);
        assert_eq!(r.decode(&t), 8);
        assert_eq!(r.decode(&t), 9);
        assert_eq!(r.decode(&t), 7);
        assert_eq!(r.decode(&t), 7);
        assert_eq!(r.bits(7), 0x7F);
        assert_eq!(r.bits(8), 0xFF);
        assert!(!r.ran_out());
        assert_eq!(r.marker, Some(0xD9));
        // Past the marker: zeros, and then the reader knows it ran out.
        assert_eq!(r.bits(16), 0);
        assert!(r.ran_out());
        // A bad code (all ones) takes 17 bits and decodes as 0.
        let mut r = BitReader::new(&[0xFF, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0x12], 0, false);
        assert_eq!(r.decode(&t), 0);
        assert_eq!(r.bits(7), 0x7F);
        // Data ending without a marker.
        let mut r = BitReader::new(&[0x12], 0, false);
        r.refill();
        assert!(r.hit_end);
        let mut r = BitReader::new(&[0x12], 0, true);
        r.refill();
        assert_eq!(r.marker, Some(0xD9));
    }

    #[test]
    fn extend_is_libjpegs() {
        assert_eq!(extend(0, 1), -1);
        assert_eq!(extend(1, 1), 1);
        assert_eq!(extend(0, 3), -7);
        assert_eq!(extend(3, 3), -4);
        assert_eq!(extend(4, 3), 4);
        assert_eq!(extend(0, 0), 0);
    }
}
