//! TFRecord framing, as TF's `RecordWriter`/`RecordReader` (formats.md §1.2): each
//! record is `u64 LE length | u32 LE masked_crc32c(length bytes) | payload |
//! u32 LE masked_crc32c(payload)`, records simply concatenated; a TFRecord file may
//! compress that whole stream with zlib or gzip (TF's `TFRecordOptions`).
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use flate2::Compression as Level;
use flate2::read::{MultiGzDecoder, ZlibDecoder};
use flate2::write::{GzEncoder, ZlibEncoder};

use crate::{Error, Result};

/// TF's `kMaskDelta`.
const MASK_DELTA: u32 = 0xA282_EAD8;
/// Bytes of framing around a payload.
pub const FRAMING: usize = 16;

/// TF's masked CRC32C: the CRC rotated right by 15 bits plus a constant, so a CRC
/// stored inside CRC-checked data does not checksum to a trivial value.
pub fn masked_crc(data: &[u8]) -> u32 {
    mask(crc32c::crc32c(data))
}

/// TF's mask of a CRC value (see [`masked_crc`]).
pub fn mask(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

/// The inverse of the mask.
pub fn unmask(masked: u32) -> u32 {
    masked.wrapping_sub(MASK_DELTA).rotate_left(15)
}

/// Appends the framed record of `payload` to `out`.
pub fn frame_into(payload: &[u8], out: &mut Vec<u8>) {
    let len = (payload.len() as u64).to_le_bytes();
    out.reserve(payload.len() + FRAMING);
    out.extend_from_slice(&len);
    out.extend_from_slice(&masked_crc(&len).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&masked_crc(payload).to_le_bytes());
}

/// Writes one framed record.
pub fn write_record(w: &mut impl Write, payload: &[u8]) -> std::io::Result<()> {
    let mut buf = Vec::new();
    frame_into(payload, &mut buf);
    w.write_all(&buf)
}

/// Reads records one by one, verifying both CRCs. A tail too short for a header is
/// the end of the file (a writer may still be appending); a complete header whose
/// payload or footer is cut short is `DataLoss("truncated record at <offset>")`,
/// and a CRC mismatch is `DataLoss("corrupted record at <offset>")` (TF's texts,
/// with the file name in front).
pub struct RecordReader<R> {
    inner: R,
    name: String,
    offset: u64,
    failed: bool,
}

impl<R: Read> RecordReader<R> {
    /// A reader of `inner`; `name` (the path) prefixes error messages.
    pub fn new(inner: R, name: impl Into<String>) -> Self {
        RecordReader { inner, name: name.into(), offset: 0, failed: false }
    }

    /// The offset of the next record.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Fills `buf` as far as the data goes; returns how many bytes were read.
    /// `at_record` says `buf` is a record's header: a compressed stream that ends
    /// before its first byte lost no record, only the stream's own trailer, and ends
    /// the file as TF's reader ends it.
    fn read_full(&mut self, buf: &mut [u8], at_record: bool) -> Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            match self.inner.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // A compressed stream cut short or damaged loses records: TF's DataLoss
                // at the record being read, never a quiet end of the file.
                Err(e) => {
                    return match damaged(&e).map(|d| d.truncated) {
                        Some(true) if at_record && got == 0 => Ok(0),
                        Some(truncated) => Err(self.loss(if truncated { "truncated" } else { "corrupted" })),
                        None => Err(Error::Io(format!("reading {}", self.name), e)),
                    };
                }
            }
        }
        Ok(got)
    }

    fn loss(&mut self, what: &str) -> Error {
        self.failed = true;
        Error::DataLoss(format!("{}: {what} record at {}", self.name, self.offset))
    }

    /// The next payload, `None` at the end.
    pub fn next_record(&mut self) -> Result<Option<Vec<u8>>> {
        if self.failed {
            return Ok(None);
        }
        let mut header = [0u8; 12];
        let got = self.read_full(&mut header, true)?;
        if got < header.len() {
            // A partial header is a record still being written: a clean end.
            return Ok(None);
        }
        let (len_bytes, crc_bytes) = header.split_at(8);
        if masked_crc(len_bytes) != u32::from_le_bytes(crc_bytes.try_into().expect("4 bytes")) {
            return Err(self.loss("corrupted"));
        }
        let len = u64::from_le_bytes(len_bytes.try_into().expect("8 bytes"));
        let len = usize::try_from(len).map_err(|_| self.loss("corrupted"))?;
        // Read in place, in steps of at most 1 MiB: a corrupt length must not allocate
        // terabytes, memory follows the data actually there.
        let mut payload = Vec::with_capacity(len.min(1 << 20));
        while payload.len() < len {
            let start = payload.len();
            let want = (len - start).min(1 << 20);
            payload.resize(start + want, 0);
            let got = self.read_full(&mut payload[start..], false)?;
            if got < want {
                payload.truncate(start + got);
                return Err(self.loss("truncated"));
            }
        }
        let mut footer = [0u8; 4];
        if self.read_full(&mut footer, false)? < 4 {
            return Err(self.loss("truncated"));
        }
        if masked_crc(&payload) != u32::from_le_bytes(footer) {
            return Err(self.loss("corrupted"));
        }
        self.offset += (len + FRAMING) as u64;
        Ok(Some(payload))
    }
}

impl<R: Read> Iterator for RecordReader<R> {
    type Item = Result<Vec<u8>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// How a TFRecord file's stream of records is compressed (TF's
/// `TFRecordCompressionType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain records.
    None,
    /// A zlib stream (RFC 1950), as TF's `ZLIB`.
    Zlib,
    /// A gzip stream (RFC 1952), as TF's `GZIP`.
    Gzip,
}

/// The file's writer, compressing or not.
enum Sink {
    Plain(BufWriter<File>),
    Zlib(ZlibEncoder<BufWriter<File>>),
    Gzip(GzEncoder<BufWriter<File>>),
}

impl Sink {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Plain(w) => w,
            Sink::Zlib(w) => w,
            Sink::Gzip(w) => w,
        }
    }
}

/// Writes a TFRecord file record by record (TF's `TFRecordWriter`): framed payloads,
/// compressed as asked; `close` finishes the compressed stream and syncs the file.
pub struct RecordFileWriter {
    sink: Option<Sink>,
    name: String,
    frame: Vec<u8>,
}

impl RecordFileWriter {
    /// Creates (or truncates) `path`.
    pub fn create(path: &Path, compression: Compression, level: Option<u32>) -> Result<Self> {
        let name = path.display().to_string();
        let file = BufWriter::with_capacity(1 << 16, File::create(path).map_err(Error::io(name.clone()))?);
        let level = level.map_or(Level::default(), Level::new);
        let sink = match compression {
            Compression::None => Sink::Plain(file),
            Compression::Zlib => Sink::Zlib(ZlibEncoder::new(file, level)),
            Compression::Gzip => Sink::Gzip(GzEncoder::new(file, level)),
        };
        Ok(RecordFileWriter { sink: Some(sink), name, frame: Vec::new() })
    }

    fn sink(&mut self) -> Result<&mut dyn Write> {
        match self.sink.as_mut() {
            Some(s) => Ok(s.writer()),
            None => Err(Error::FailedPrecondition(format!("{} is closed", self.name))),
        }
    }

    /// Appends one record.
    pub fn write(&mut self, payload: &[u8]) -> Result<()> {
        let mut frame = std::mem::take(&mut self.frame);
        frame.clear();
        frame_into(payload, &mut frame);
        let name = self.name.clone();
        let written = self.sink()?.write_all(&frame).map_err(Error::io(name));
        self.frame = frame;
        written
    }

    /// Hands what is buffered to the OS (a compressed stream is flushed to a block
    /// boundary, which a reader can decode up to).
    pub fn flush(&mut self) -> Result<()> {
        let name = self.name.clone();
        self.sink()?.flush().map_err(Error::io(name))
    }

    /// Finishes the stream, syncs the file and closes it (a second close does nothing).
    pub fn close(&mut self) -> Result<()> {
        let Some(sink) = self.sink.take() else { return Ok(()) };
        let io = |e| Error::Io(self.name.clone(), e);
        let file = match sink {
            Sink::Plain(w) => w,
            Sink::Zlib(w) => w.finish().map_err(io)?,
            Sink::Gzip(w) => w.finish().map_err(io)?,
        };
        let file = file.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)
    }
}

impl Drop for RecordFileWriter {
    fn drop(&mut self) {
        // Errors at drop have nowhere to go; `close` reports them.
        let _ = self.close();
    }
}

/// A reader of the TFRecord file `path`, decompressing as asked (as TF's
/// `tf_record_iterator`, a partial header at the end ends the file).
pub fn open_record_file(path: &Path, compression: Compression) -> Result<RecordReader<Box<dyn Read + Send>>> {
    let inner = open_stream(path, compression)?;
    Ok(RecordReader::new(inner, path.display().to_string()))
}

/// The bytes of `path`, buffered and decompressed as asked (the stream the record
/// readers of `FixedLengthRecordReader` with an `encoding` read). A compressed stream
/// that is cut short or damaged reads as an error that [`damaged`] recognises, never
/// as the end of the data.
pub fn open_stream(path: &Path, compression: Compression) -> Result<Box<dyn Read + Send>> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(Error::io(name.clone()))?;
    // An empty file is an empty stream, compressed or not.
    let empty = file.metadata().map_err(Error::io(name.clone()))?.len() == 0;
    let file = BufReader::with_capacity(1 << 16, file);
    Ok(if empty { Box::new(file) } else { decompressing(file, compression, name) })
}

/// `inner`'s bytes decompressed as asked; a stream cut short or damaged reads as an
/// error that [`damaged`] recognises (naming `name`), never as the end of the data.
pub fn decompressing(
    inner: impl Read + Send + 'static,
    compression: Compression,
    name: String,
) -> Box<dyn Read + Send> {
    match compression {
        Compression::None => Box::new(inner),
        Compression::Zlib => Box::new(BufReader::with_capacity(1 << 16, Checked::new(ZlibDecoder::new(inner), name))),
        Compression::Gzip => {
            Box::new(BufReader::with_capacity(1 << 16, Checked::new(MultiGzDecoder::new(inner), name)))
        }
    }
}

/// A compressed stream that is cut short or damaged (the payload of the
/// `std::io::Error` a decompressing reader of [`open_stream`] returns).
#[derive(Debug)]
pub struct DamagedStream {
    /// The file.
    pub name: String,
    /// Whether the stream ended early (else its bytes are not valid zlib/gzip).
    pub truncated: bool,
    /// Decompressed bytes read before the damage.
    pub offset: u64,
    /// The decoder's words.
    pub detail: String,
}

impl std::fmt::Display for DamagedStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.truncated { "truncated" } else { "corrupted" };
        write!(f, "{}: {what} compressed stream at byte {} ({})", self.name, self.offset, self.detail)
    }
}

impl std::error::Error for DamagedStream {}

/// The damage an error of a decompressing reader reports, if that is what it is.
pub fn damaged(e: &std::io::Error) -> Option<&DamagedStream> {
    e.get_ref().and_then(|inner| inner.downcast_ref::<DamagedStream>())
}

/// A decoder whose own errors (flate2 reports a cut stream as `UnexpectedEof`, bad
/// bytes as `InvalidInput`/`InvalidData`; the file's errors keep their kinds) become
/// [`DamagedStream`]s.
struct Checked<R> {
    inner: R,
    name: String,
    offset: u64,
}

impl<R> Checked<R> {
    fn new(inner: R, name: String) -> Self {
        Checked { inner, name, offset: 0 }
    }
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::io::ErrorKind as K;
        match self.inner.read(buf) {
            Ok(n) => {
                self.offset += n as u64;
                Ok(n)
            }
            Err(e) if matches!(e.kind(), K::UnexpectedEof | K::InvalidInput | K::InvalidData) => {
                let damage = DamagedStream {
                    name: self.name.clone(),
                    truncated: e.kind() == K::UnexpectedEof,
                    offset: self.offset,
                    detail: e.to_string(),
                };
                Err(std::io::Error::new(K::InvalidData, damage))
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_vectors_from_the_spec() {
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(masked_crc(b"123456789"), 0xC78A_B0E5);
        assert_eq!(masked_crc(b""), 0xA282_EAD8);
        assert_eq!(masked_crc(b"hello"), 0x191C_1FBB);
        assert_eq!(masked_crc(&5u64.to_le_bytes()), 0x3E04_B2EA);
        for x in [0u32, 1, 0xDEAD_BEEF, u32::MAX] {
            assert_eq!(unmask(x.rotate_right(15).wrapping_add(MASK_DELTA)), x);
        }
    }

    #[test]
    fn framing_matches_tf_bytes() {
        let mut out = Vec::new();
        frame_into(b"hello", &mut out);
        let want =
            [0x05, 0, 0, 0, 0, 0, 0, 0, 0xea, 0xb2, 0x04, 0x3e, b'h', b'e', b'l', b'l', b'o', 0xbb, 0x1f, 0x1c, 0x19];
        assert_eq!(out, want);
        let mut empty = Vec::new();
        frame_into(b"", &mut empty);
        assert_eq!(empty, [0, 0, 0, 0, 0, 0, 0, 0, 0x29, 0x03, 0x98, 0x07, 0xd8, 0xea, 0x82, 0xa2]);
    }

    #[test]
    fn cut_or_damaged_compressed_files_are_data_loss() {
        let dir = tempfile::tempdir().unwrap();
        for compression in [Compression::Zlib, Compression::Gzip] {
            let path = dir.path().join(format!("{compression:?}"));
            let mut w = RecordFileWriter::create(&path, compression, None).unwrap();
            for i in 0..80u32 {
                let payload: Vec<u8> = (0..200u32).map(|j| (i * 7919 + j * 31) as u8 ^ (j >> 3) as u8).collect();
                w.write(&payload).unwrap();
            }
            w.close().unwrap();
            let whole = std::fs::read(&path).unwrap();
            let all: Vec<_> = open_record_file(&path, compression).unwrap().collect();
            assert_eq!(all.len(), 80);
            // A stream cut in its trailer lost no record: all 80, then the end (TF's).
            std::fs::write(&path, &whole[..whole.len() - 1]).unwrap();
            let read: Vec<_> = open_record_file(&path, compression).unwrap().collect();
            assert_eq!(read.len(), 80);
            assert!(read.iter().all(Result::is_ok));
            for cut in [whole.len() / 2, whole.len() / 3] {
                std::fs::write(&path, &whole[..cut]).unwrap();
                let mut r = open_record_file(&path, compression).unwrap();
                let mut n = 0;
                let err = loop {
                    match r.next() {
                        Some(Ok(_)) => n += 1,
                        Some(Err(e)) => break e,
                        None => panic!("{compression:?} cut at {cut}: a quiet end after {n} records"),
                    }
                };
                let Error::DataLoss(m) = err else { panic!("{err:?}") };
                assert!(m.starts_with(&format!("{}: truncated record at {}", path.display(), n * 216)), "{m}");
                assert!(r.next().is_none());
            }
            let mut bad = whole.clone();
            let middle = bad.len() / 2;
            bad[middle..middle + 8].copy_from_slice(b"garbage!");
            std::fs::write(&path, &bad).unwrap();
            let errs: Vec<_> = open_record_file(&path, compression).unwrap().filter_map(|r| r.err()).collect();
            assert!(matches!(errs.as_slice(), [Error::DataLoss(_)]), "{compression:?}: {errs:?}");
            // The raw stream says what is damaged and where.
            std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
            let mut raw = Vec::new();
            let e = open_stream(&path, compression).unwrap().read_to_end(&mut raw).unwrap_err();
            let d = damaged(&e).expect("a damaged stream");
            assert!(d.truncated && d.offset == raw.len() as u64, "{d}");
        }
    }

    #[test]
    fn reader_round_trip_truncation_and_corruption() {
        let payloads: Vec<Vec<u8>> = vec![b"a".to_vec(), vec![], (0..200_000u32).map(|i| i as u8).collect()];
        let mut file = Vec::new();
        for p in &payloads {
            frame_into(p, &mut file);
        }
        let read: Vec<_> = RecordReader::new(file.as_slice(), "f").map(|r| r.unwrap()).collect();
        assert_eq!(read, payloads);
        // Every cut inside the last record: the first two still read, then a clean
        // end (short header) or a truncation error.
        for cut in [file.len() - 1, file.len() - 5, 17 + 16 + 5, 17 + 16 + 12 + 3] {
            let mut r = RecordReader::new(&file[..cut], "f");
            assert_eq!(r.next().unwrap().unwrap(), payloads[0]);
            assert_eq!(r.next().unwrap().unwrap(), payloads[1]);
            match r.next() {
                None => assert!(cut < 17 + 16 + 12),
                Some(Err(Error::DataLoss(m))) => assert_eq!(m, "f: truncated record at 33"),
                other => panic!("{other:?}"),
            }
        }
        let mut bad = file.clone();
        bad[17 + 16 + 12 + 100] ^= 1;
        let errs: Vec<_> = RecordReader::new(bad.as_slice(), "f").filter_map(|r| r.err()).collect();
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].to_string(), "f: corrupted record at 33");
        bad = file.clone();
        bad[0] ^= 1; // the length itself
        let mut r = RecordReader::new(bad.as_slice(), "f");
        assert_eq!(r.next().unwrap().unwrap_err().to_string(), "f: corrupted record at 0");
        assert!(r.next().is_none());
    }

    #[test]
    fn record_files_round_trip_in_every_compression() {
        let dir = tempfile::tempdir().unwrap();
        let payloads: Vec<Vec<u8>> = (0..50u8).map(|i| vec![i; usize::from(i) * 37]).collect();
        for compression in [Compression::None, Compression::Zlib, Compression::Gzip] {
            let path = dir.path().join(format!("{compression:?}.tfrecord"));
            let mut w = RecordFileWriter::create(&path, compression, None).unwrap();
            for p in &payloads {
                w.write(p).unwrap();
            }
            w.close().unwrap();
            w.close().unwrap();
            assert!(w.write(b"late").is_err(), "closed");
            let got: Vec<Vec<u8>> = open_record_file(&path, compression).unwrap().map(Result::unwrap).collect();
            assert_eq!(got, payloads, "{compression:?}");
            let raw = std::fs::read(&path).unwrap();
            match compression {
                Compression::None => assert_eq!(raw.len(), payloads.iter().map(|p| p.len() + FRAMING).sum::<usize>()),
                Compression::Zlib => assert_eq!(raw[0], 0x78, "a zlib header"),
                Compression::Gzip => assert_eq!(raw[..2], [0x1f, 0x8b], "a gzip header"),
            }
        }
    }
}
