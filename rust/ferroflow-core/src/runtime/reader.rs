//! Readers (TF's `ReaderBase` and its five kinds): a session resource that takes work
//! units (file names) from a string queue and turns each into records, keyed as TF
//! keys them. The state machine is TF's: a work unit is in progress while fewer units
//! finished than started; reading at the end of a unit finishes it; `reset` forgets
//! everything; the base state serializes as TF's `ReaderBaseState` proto.
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;

use ferroflow_io::record::{Compression, RecordReader, open_record_file, open_stream};
use parking_lot::Mutex;
use prost::Message;

use crate::error::{Code, Error, Result};
use crate::framework::resource::Resource;
use crate::framework::step::Wait;
use crate::runtime::queue::Queue;

/// What one reader does with a work unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReaderKind {
    /// TFRecord files, decompressed as asked; key `file:offset`.
    TfRecord(Compression),
    /// Records of `record_bytes` after `header_bytes`, before `footer_bytes`, each
    /// `hop_bytes` after the previous one (0: back to back); key `file:index`.
    FixedLength {
        /// Bytes per record.
        record_bytes: usize,
        /// Bytes skipped at the start of each file.
        header_bytes: usize,
        /// Bytes ignored at the end of each file.
        footer_bytes: usize,
        /// Bytes from one record's start to the next (0: `record_bytes`).
        hop_bytes: usize,
        /// How the files are compressed.
        encoding: Compression,
    },
    /// Lines without their `\n` (and a `\r` before it), after skipping
    /// `skip_header_lines` of each file; key `file:line` (from 1).
    TextLine {
        /// Lines skipped at the start of each file.
        skip_header_lines: usize,
    },
    /// The whole file; key the file name.
    WholeFile,
    /// The work unit itself, as key and value.
    Identity,
}

impl ReaderKind {
    /// TF's class name, which prefixes the reader's name in messages.
    fn class_name(&self) -> &'static str {
        match self {
            ReaderKind::TfRecord(_) => "TFRecordReader",
            ReaderKind::FixedLength { .. } => "FixedLengthRecordReader",
            ReaderKind::TextLine { .. } => "TextLineReader",
            ReaderKind::WholeFile => "WholeFileReader",
            ReaderKind::Identity => "IdentityReader",
        }
    }
    /// Whether the state can be serialized (TF: the whole-file and identity readers).
    fn supports_serialize(&self) -> bool {
        matches!(self, ReaderKind::WholeFile | ReaderKind::Identity)
    }
}

/// TF's `ReaderBaseState`.
#[derive(Clone, PartialEq, Message)]
struct ReaderBaseState {
    #[prost(int64, tag = "1")]
    work_started: i64,
    #[prost(int64, tag = "2")]
    work_finished: i64,
    #[prost(int64, tag = "3")]
    num_records_produced: i64,
    #[prost(bytes = "vec", tag = "4")]
    current_work: Vec<u8>,
}

/// The open work unit of a file reader.
enum Open {
    None,
    Records(RecordReader<Box<dyn Read + Send>>),
    Fixed { input: Box<dyn Read + Send>, cache: Vec<u8>, record_number: u64 },
    Lines { input: BufReader<Box<dyn Read + Send>>, line_number: u64 },
}

struct State {
    work: Vec<u8>,
    work_started: i64,
    work_finished: i64,
    produced: i64,
    open: Open,
}

/// A reader resource.
pub struct Reader {
    kind: ReaderKind,
    name: String,
    state: Mutex<State>,
}

impl Resource for Reader {}

/// A key and value read.
pub type Record = (Vec<u8>, Vec<u8>);

/// TF's message for a file that cannot be opened: `path; reason`.
fn open_error(path: &[u8], e: &Error) -> Error {
    let reason = e.message.rsplit_once(": ").map_or(e.message.as_str(), |(_, r)| r);
    let reason = reason.split(" (os error").next().unwrap_or(reason);
    Error::new(e.code, format!("{}; {reason}", String::from_utf8_lossy(path)))
}

/// Fills `buf` from `r` as far as the data goes; the count read.
fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(read_error(&e)),
        }
    }
    Ok(got)
}

/// A read's error: a cut or damaged compressed file is `DataLoss`, never a quiet
/// end; others by their kind.
pub(crate) fn read_error(e: &std::io::Error) -> Error {
    if ferroflow_io::record::damaged(e).is_some() {
        return Error::new(Code::DataLoss, e.to_string());
    }
    Error::new(crate::error::io_code(e), e.to_string())
}

/// Appends up to `n` bytes of `r` to `out`; whether all `n` came. Reads in bounded
/// steps, so a huge `n` allocates only what the data has.
pub(crate) fn read_n(r: &mut dyn Read, n: usize, out: &mut Vec<u8>) -> Result<bool> {
    let mut left = n;
    let mut chunk = [0u8; 1 << 16];
    while left > 0 {
        let want = left.min(chunk.len());
        let got = read_full(r, &mut chunk[..want])?;
        out.extend_from_slice(&chunk[..got]);
        if got < want {
            return Ok(false);
        }
        left -= got;
    }
    Ok(true)
}

fn key_of(work: &[u8], n: u64) -> Vec<u8> {
    let mut k = Vec::with_capacity(work.len() + 12);
    k.extend_from_slice(work);
    k.push(b':');
    k.extend_from_slice(n.to_string().as_bytes());
    k
}

impl Reader {
    /// A reader of `kind` for the node `node`.
    pub fn new(kind: ReaderKind, node: &str) -> Reader {
        let name = format!("{} '{node}'", kind.class_name());
        Reader {
            kind,
            name,
            state: Mutex::new(State {
                work: Vec::new(),
                work_started: 0,
                work_finished: 0,
                produced: 0,
                open: Open::None,
            }),
        }
    }

    /// The reader's kind.
    pub fn kind(&self) -> &ReaderKind {
        &self.kind
    }

    /// The next work unit from `queue` (TF's `GetNextWorkLocked`).
    fn next_work(queue: &Arc<Queue>, wait: Wait<'_>) -> Result<Vec<u8>> {
        let mut element =
            queue.dequeue(1, false, wait)?.pop().ok_or_else(|| Error::new(Code::Internal, "no element"))?;
        if element.len() != 1 {
            ff_bail!(InvalidArgument, "Expected single component queue");
        }
        let t = element.pop().ok_or_else(|| Error::new(Code::Internal, "no component"))?;
        if t.dtype() != crate::dtype::DType::String {
            ff_bail!(InvalidArgument, "Expected queue with single string component");
        }
        let s = t.as_strings()?;
        if s.len() != 1 {
            ff_bail!(InvalidArgument, "Expected to dequeue a one-element string tensor");
        }
        Ok(s[0].clone())
    }

    fn start_work(&self, st: &mut State) -> Result<()> {
        let path = || Ok::<_, Error>(ferroflow_io::glob::path_from_bytes(&st.work)?);
        st.open = match &self.kind {
            ReaderKind::TfRecord(c) => {
                Open::Records(open_record_file(&path()?, *c).map_err(|e| open_error(&st.work, &e.into()))?)
            }
            ReaderKind::FixedLength { header_bytes, footer_bytes, encoding, .. } => {
                let mut input = open_stream(&path()?, *encoding).map_err(|e| open_error(&st.work, &e.into()))?;
                let mut skipped = Vec::new();
                let mut cache = Vec::new();
                // A file shorter than its header and footer has no records.
                if read_n(&mut input, *header_bytes, &mut skipped)? {
                    read_n(&mut input, *footer_bytes, &mut cache)?;
                }
                Open::Fixed { input, cache, record_number: 0 }
            }
            ReaderKind::TextLine { skip_header_lines } => {
                let input = open_stream(&path()?, Compression::None).map_err(|e| open_error(&st.work, &e.into()))?;
                let mut input = BufReader::with_capacity(1 << 16, input);
                let mut line = Vec::new();
                let mut line_number = 0;
                for _ in 0..*skip_header_lines {
                    line.clear();
                    if input
                        .read_until(b'\n', &mut line)
                        .map_err(|e| Error::new(crate::error::io_code(&e), e.to_string()))?
                        == 0
                    {
                        break;
                    }
                    line_number += 1;
                }
                Open::Lines { input, line_number }
            }
            ReaderKind::WholeFile | ReaderKind::Identity => Open::None,
        };
        Ok(())
    }

    /// One step of TF's `ReadLocked`: a record, or none at the end of the unit.
    fn read_one(&self, st: &mut State) -> Result<(Option<Record>, bool)> {
        let work = &st.work;
        match (&self.kind, &mut st.open) {
            (ReaderKind::Identity, _) => Ok((Some((work.clone(), work.clone())), true)),
            (ReaderKind::WholeFile, _) => {
                let data = std::fs::read(ferroflow_io::glob::path_from_bytes(work)?).map_err(|e| {
                    let reason = e.to_string();
                    let reason = reason.split(" (os error").next().unwrap_or(&reason).to_string();
                    Error::new(crate::error::io_code(&e), format!("{}; {reason}", String::from_utf8_lossy(work)))
                })?;
                Ok((Some((work.clone(), data)), true))
            }
            (_, Open::Records(r)) => {
                let offset = r.offset();
                match r.next_record()? {
                    Some(v) => Ok((Some((key_of(work, offset), v)), false)),
                    None => Ok((None, true)),
                }
            }
            (ReaderKind::FixedLength { record_bytes, hop_bytes, .. }, Open::Fixed { input, cache, record_number }) => {
                let want = if *hop_bytes > 0 && *record_number > 0 { *hop_bytes } else { *record_bytes };
                if !read_n(input, want, cache)? {
                    cache.clear();
                    return Ok((None, true));
                }
                let value = cache[..*record_bytes].to_vec();
                let key = key_of(work, *record_number);
                *record_number += 1;
                let step = if *hop_bytes > 0 { *hop_bytes } else { *record_bytes };
                cache.drain(..step.min(cache.len()));
                Ok((Some((key, value)), false))
            }
            (_, Open::Lines { input, line_number }) => {
                let mut line = Vec::new();
                let n = input
                    .read_until(b'\n', &mut line)
                    .map_err(|e| Error::new(crate::error::io_code(&e), e.to_string()))?;
                if n == 0 {
                    return Ok((None, true));
                }
                if line.last() == Some(&b'\n') {
                    line.pop();
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                }
                *line_number += 1;
                Ok((Some((key_of(work, *line_number), line)), false))
            }
            _ => Err(Error::new(Code::Internal, format!("{} has no open work", self.name))),
        }
    }

    fn in_progress(st: &State) -> bool {
        st.work_finished < st.work_started
    }

    /// Starts the next unit when none is in progress. On failure the unit is dropped
    /// (TF would retry reading it).
    fn ensure_work(&self, st: &mut State, queue: &Arc<Queue>, wait: Wait<'_>) -> Result<()> {
        if Self::in_progress(st) {
            return Ok(());
        }
        st.work = Self::next_work(queue, wait)?;
        self.start_work(st)?;
        st.work_started += 1;
        Ok(())
    }

    fn finish_work(st: &mut State) {
        st.open = Open::None;
        st.work_finished = st.work_started;
    }

    /// TF's `ReaderRead`: the next record, taking work from `queue` as needed.
    pub fn read(&self, queue: &Arc<Queue>, wait: Wait<'_>) -> Result<Record> {
        let mut st = self.state.lock();
        loop {
            self.ensure_work(&mut st, queue, wait)?;
            let (record, at_end) = self.read_one(&mut st)?;
            if at_end {
                Self::finish_work(&mut st);
            }
            if let Some(r) = record {
                st.produced += 1;
                return Ok(r);
            }
        }
    }

    /// TF's `ReaderReadUpTo`: up to `n` records; stops early at the end of a work
    /// unit once it has some.
    pub fn read_up_to(&self, queue: &Arc<Queue>, n: usize, wait: Wait<'_>) -> Result<Vec<Record>> {
        let mut st = self.state.lock();
        let mut out = Vec::new();
        while out.len() < n {
            self.ensure_work(&mut st, queue, wait)?;
            while out.len() < n {
                let (record, at_end) = self.read_one(&mut st)?;
                if let Some(r) = record {
                    st.produced += 1;
                    out.push(r);
                }
                if at_end {
                    Self::finish_work(&mut st);
                    break;
                }
            }
            if !out.is_empty() && !Self::in_progress(&st) {
                break;
            }
        }
        Ok(out)
    }

    /// Records produced since creation or the last reset.
    pub fn num_records_produced(&self) -> i64 {
        self.state.lock().produced
    }

    /// Work units finished since creation or the last reset.
    pub fn num_work_units_completed(&self) -> i64 {
        self.state.lock().work_finished
    }

    /// Forgets all progress.
    pub fn reset(&self) {
        let mut st = self.state.lock();
        *st = State { work: Vec::new(), work_started: 0, work_finished: 0, produced: 0, open: Open::None };
    }

    /// The state as TF's serialized `ReaderBaseState`.
    pub fn serialize_state(&self) -> Result<Vec<u8>> {
        if !self.kind.supports_serialize() {
            ff_bail!(Unimplemented, "Reader SerializeState");
        }
        let st = self.state.lock();
        let state = ReaderBaseState {
            work_started: st.work_started,
            work_finished: st.work_finished,
            num_records_produced: st.produced,
            current_work: st.work.clone(),
        };
        Ok(state.encode_to_vec())
    }

    /// Restores a state `serialize_state` produced.
    pub fn restore_state(&self, bytes: &[u8]) -> Result<()> {
        if !self.kind.supports_serialize() {
            ff_bail!(Unimplemented, "Reader RestoreState");
        }
        let Ok(s) = ReaderBaseState::decode(bytes) else {
            ff_bail!(InvalidArgument, "Could not parse state for {}: {}", self.name, c_escape(bytes));
        };
        if s.work_started < 0 || s.work_finished < 0 || s.num_records_produced < 0 {
            ff_bail!(InvalidArgument, "Unexpected negative value when restoring in {}: {s:?}", self.name);
        }
        let mut st = self.state.lock();
        *st = State {
            work: s.current_work,
            work_started: s.work_started,
            work_finished: s.work_finished,
            produced: s.num_records_produced,
            open: Open::None,
        };
        Ok(())
    }
}

/// Bytes as `absl::CEscape` writes them.
fn c_escape(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        match b {
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            b'"' => s.push_str("\\\""),
            b'\'' => s.push_str("\\'"),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(char::from(b)),
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
    s
}
