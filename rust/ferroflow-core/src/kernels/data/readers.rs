//! Datasets that read files: `TFRecordDataset`, `TextLineDataset`,
//! `FixedLengthRecordDataset(V2)`, and the file form of `cache`. Files are read one
//! after another, each through a buffered (and, as asked, decompressing) stream;
//! records are bounded by the data actually there, never by a declared length.
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::sync::Arc;

use ferroflow_io::record::{Compression, RecordFileWriter, RecordReader, open_record_file, open_stream};
use prost::Message;

use super::{Dataset, DatasetIter, Element, IterCtx, filenames_arg, set_dataset_output};
use crate::error::{Code, Error, Result};
use crate::kernels::io::path_from_bytes;
use crate::kernels::reader::compression;
use crate::kernels::{KernelBuild, OpKernel, stateless};
use crate::runtime::reader::{read_error, read_n};
use crate::tensor::Tensor;

/// How one file turns into records.
#[derive(Clone, Copy)]
enum Format {
    TfRecord,
    Lines,
    Fixed { header: usize, record: usize, footer: usize },
}

struct FileDataset {
    files: Vec<Vec<u8>>,
    compression: Compression,
    format: Format,
}

/// The open file of a [`FileIter`].
enum Open {
    Records(RecordReader<Box<dyn Read + Send>>),
    Lines(BufReader<Box<dyn Read + Send>>),
    /// A fixed-length file: its stream, the bytes read ahead (the footer's worth
    /// past the current record, so the footer is never returned as a record), the
    /// records left where the file's size says (uncompressed), the body bytes read.
    Fixed {
        input: Box<dyn Read + Send>,
        ahead: Vec<u8>,
        left: Option<u64>,
        body: u64,
        name: String,
    },
}

struct FileIter {
    dataset: Arc<FileDataset>,
    next_file: usize,
    open: Option<Open>,
}

impl Dataset for FileDataset {
    fn make_iter(self: Arc<Self>, _: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        Ok(Box::new(FileIter { dataset: self, next_file: 0, open: None }))
    }
}

/// Reads until `buf` holds `want` bytes or the stream ends; whether it got them.
fn fill(input: &mut dyn Read, buf: &mut Vec<u8>, want: usize) -> Result<bool> {
    read_n(input, want.saturating_sub(buf.len()), buf)
}

impl FileIter {
    fn open_next(&mut self) -> Result<bool> {
        let Some(name) = self.dataset.files.get(self.next_file) else { return Ok(false) };
        self.next_file += 1;
        let path = path_from_bytes(name)?;
        let c = self.dataset.compression;
        self.open = Some(match self.dataset.format {
            Format::TfRecord => Open::Records(open_record_file(&path, c)?),
            Format::Lines => Open::Lines(BufReader::with_capacity(1 << 16, open_stream(&path, c)?)),
            Format::Fixed { header, record, footer } => {
                let name = path.display().to_string();
                // An uncompressed file's size says how many records it holds (TF's check).
                let left = if c == Compression::None {
                    let size = std::fs::metadata(&path).map_err(|e| read_error(&e))?.len();
                    let body = size.wrapping_sub(header as u64).wrapping_sub(footer as u64);
                    if body % record as u64 != 0 {
                        return Err(body_error(Code::InvalidArgument, header, footer, &name, body, record));
                    }
                    Some(body / record as u64)
                } else {
                    None
                };
                let mut input = open_stream(&path, c)?;
                let mut skipped = Vec::new();
                fill(&mut *input, &mut skipped, header)?;
                let mut ahead = Vec::new();
                if left.is_none() {
                    fill(&mut *input, &mut ahead, footer)?;
                }
                Open::Fixed { input, ahead, left, body: 0, name }
            }
        });
        Ok(true)
    }

    fn read(&mut self) -> Result<Option<Vec<u8>>> {
        let Some(open) = &mut self.open else { return Ok(None) };
        match open {
            Open::Records(r) => Ok(r.next_record()?),
            Open::Lines(r) => {
                let mut line = Vec::new();
                if r.read_until(b'\n', &mut line).map_err(|e| read_error(&e))? == 0 {
                    return Ok(None);
                }
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                // TF's `ReadLine` drops every carriage return, not only a last one.
                line.retain(|&b| b != b'\r');
                Ok(Some(line))
            }
            Open::Fixed { input, ahead, left, body, name } => {
                let Format::Fixed { header, record, footer } = self.dataset.format else {
                    return Err(Error::new(Code::Internal, "fixed-length file of another format"));
                };
                match left {
                    Some(0) => return Ok(None),
                    Some(n) => {
                        *n -= 1;
                        ahead.clear();
                        if !fill(&mut **input, ahead, record)? {
                            ff_bail!(DataLoss, "{name}: file shorter than its size says");
                        }
                        return Ok(Some(std::mem::take(ahead)));
                    }
                    None => {}
                }
                // A compressed stream: its records come out first, then the error for a
                // partial one (TF's `DataLoss`).
                if !fill(&mut **input, ahead, footer + record)? {
                    let partial = (ahead.len() - footer.min(ahead.len())) as u64;
                    if partial > 0 {
                        let body = *body + partial;
                        return Err(body_error(Code::DataLoss, header, footer, name, body, record));
                    }
                    return Ok(None);
                }
                *body += record as u64;
                let rest = ahead.split_off(record);
                Ok(Some(std::mem::replace(ahead, rest)))
            }
        }
    }
}

impl DatasetIter for FileIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        loop {
            if self.open.is_some() {
                match self.read() {
                    Ok(Some(record)) => return Ok(Some(vec![Tensor::from_strings(&[], vec![record])?])),
                    Ok(None) => self.open = None,
                    Err(e) => {
                        // The rest of a damaged file is lost; the next file is read next.
                        self.open = None;
                        return Err(e);
                    }
                }
            }
            ctx.check()?;
            if !self.open_next()? {
                return Ok(None);
            }
        }
    }
}

/// TF's error for a file whose body is not a whole number of records.
fn body_error(code: Code, header: usize, footer: usize, name: &str, body: u64, record: usize) -> Error {
    Error::new(
        code,
        format!(
            "Excluding the header ({header} bytes) and footer ({footer} bytes), input file \"{name}\" has body \
             length {body} bytes, which is not an exact multiple of the record length ({record} bytes)."
        ),
    )
}

fn compression_arg(ctx: &crate::kernels::OpContext<'_>, i: usize) -> Result<Compression> {
    let t = ctx.input(i)?;
    let s = t.as_strings()?.first().cloned().unwrap_or_default();
    compression(&String::from_utf8_lossy(&s), "compression_type")
}

/// `TFRecordDataset`: inputs `filenames, compression_type, buffer_size`.
pub(crate) fn tf_record_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let files = filenames_arg(ctx, 0)?;
        let compression = compression_arg(ctx, 1)?;
        set_dataset_output(ctx, FileDataset { files, compression, format: Format::TfRecord });
        Ok(())
    })
}

/// `TextLineDataset`: inputs `filenames, compression_type, buffer_size`.
pub(crate) fn text_line_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let files = filenames_arg(ctx, 0)?;
        let compression = compression_arg(ctx, 1)?;
        set_dataset_output(ctx, FileDataset { files, compression, format: Format::Lines });
        Ok(())
    })
}

/// `FixedLengthRecordDataset(V2)`: inputs `filenames, header_bytes, record_bytes,
/// footer_bytes, buffer_size` (and `compression_type` in V2).
pub(crate) fn fixed_length_record_dataset(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let files = filenames_arg(ctx, 0)?;
        let arg = |i: usize, what: &str, min: i64| -> Result<usize> {
            let v = ctx.input(i)?.scalar_value::<i64>()?;
            if v < min {
                ff_bail!(InvalidArgument, "`{what}` must be {}", if min > 0 { "> 0" } else { ">= 0" });
            }
            usize::try_from(v).map_err(|_| Error::invalid_argument(format!("{what} is too large")))
        };
        let header = arg(1, "header_bytes", 0)?;
        let record = arg(2, "record_bytes", 1)?;
        let footer = arg(3, "footer_bytes", 0)?;
        let compression = if ctx.num_inputs() > 5 { compression_arg(ctx, 5)? } else { Compression::None };
        set_dataset_output(ctx, FileDataset { files, compression, format: Format::Fixed { header, record, footer } });
        Ok(())
    })
}

// ---- cache to a file ----

/// `cache(filename)`: the first iterator to read its input to the end writes every
/// element to `<filename>.ffcache` (TFRecord framing, one `TensorProto` per
/// component; written to a temporary name and renamed once complete); iterators made
/// once that file exists read it instead of the input, also in a later process.
pub(crate) struct FileCacheDataset {
    input: Arc<dyn Dataset>,
    path: PathBuf,
}

impl FileCacheDataset {
    pub(crate) fn new(input: Arc<dyn Dataset>, filename: PathBuf) -> Self {
        let mut path = filename.into_os_string();
        path.push(".ffcache");
        FileCacheDataset { input, path: path.into() }
    }
}

enum FileCacheIter {
    Writing {
        input: Box<dyn DatasetIter>,
        writer: Option<Box<RecordFileWriter>>,
        tmp: PathBuf,
        path: PathBuf,
        started: bool,
    },
    Reading(RecordReader<Box<dyn Read + Send>>, usize),
}

impl Dataset for FileCacheDataset {
    fn make_iter(self: Arc<Self>, ctx: &IterCtx<'_>) -> Result<Box<dyn DatasetIter>> {
        if self.path.exists() {
            return Ok(Box::new(FileCacheIter::Reading(open_record_file(&self.path, Compression::None)?, 0)));
        }
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(format!(".tmp-{}", std::process::id()));
        let tmp = PathBuf::from(tmp);
        let writer = Box::new(RecordFileWriter::create(&tmp, Compression::None, None)?);
        let input = Arc::clone(&self.input).make_iter(ctx)?;
        Ok(Box::new(FileCacheIter::Writing {
            input,
            writer: Some(writer),
            tmp,
            path: self.path.clone(),
            started: false,
        }))
    }
}

impl DatasetIter for FileCacheIter {
    fn next(&mut self, ctx: &IterCtx<'_>) -> Result<Option<Element>> {
        match self {
            FileCacheIter::Reading(reader, components) => {
                // The first record says how many components an element has.
                if *components == 0 {
                    let Some(head) = reader.next_record()? else { return Ok(None) };
                    let n: [u8; 4] = head
                        .as_slice()
                        .try_into()
                        .map_err(|_| Error::new(Code::DataLoss, "cache file has a damaged header"))?;
                    *components = u32::from_le_bytes(n) as usize;
                }
                let mut element = Vec::with_capacity((*components).min(64));
                for c in 0..*components {
                    let Some(bytes) = reader.next_record()? else {
                        if c == 0 {
                            return Ok(None);
                        }
                        ff_bail!(DataLoss, "cache file ends inside an element");
                    };
                    let proto = ferroflow_proto::TensorProto::decode(bytes.as_slice())
                        .map_err(|e| Error::new(Code::DataLoss, format!("cache file record: {e}")))?;
                    element.push(Tensor::from_proto(&proto)?);
                }
                Ok(Some(element))
            }
            FileCacheIter::Writing { input, writer, tmp, path, started } => {
                let item = input.next(ctx)?;
                let Some(w) = writer else { return Ok(item) };
                match &item {
                    Some(e) => {
                        if !*started {
                            *started = true;
                            let n =
                                u32::try_from(e.len()).map_err(|_| Error::invalid_argument("too many components"))?;
                            w.write(&n.to_le_bytes())?;
                        }
                        for t in e {
                            w.write(&t.to_proto().encode_to_vec())?;
                        }
                    }
                    None => {
                        w.close()?;
                        *writer = None;
                        std::fs::rename(&*tmp, &*path).map_err(|e| read_error(&e))?;
                        ferroflow_io::durable::sync_parent(path)?;
                    }
                }
                Ok(item)
            }
        }
    }
}

impl Drop for FileCacheIter {
    fn drop(&mut self) {
        // An unfinished cache is never left to be read as complete.
        if let FileCacheIter::Writing { writer: Some(_), tmp, .. } = self {
            let _ = std::fs::remove_file(&*tmp);
        }
    }
}
