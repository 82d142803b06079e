//! Initializing a table from a vocabulary file (TF's `TextFileLineIterator`): each line
//! gives a key and a value, a column split on a one-character delimiter, the whole
//! line (-2) or the line number (-1), with TF's checks and messages.
use std::fs::File;
use std::io::{BufRead, BufReader};

use super::table::InitSource;
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::tensor::Tensor;

/// The key or value index meaning "the whole line".
pub(crate) const WHOLE_LINE: i64 = -2;
/// The key or value index meaning "the line number".
pub(crate) const LINE_NUMBER: i64 = -1;

const BATCH: usize = 4096;

/// What `InitializeTableFromTextFileV2` reads.
pub(crate) struct TextFileSpec {
    pub filename: String,
    pub vocab_size: i64,
    pub delimiter: u8,
    pub key_index: i64,
    pub value_index: i64,
    pub offset: i64,
    pub key_dtype: DType,
    pub value_dtype: DType,
}

/// The lines of a vocabulary file as key-value batches.
pub(crate) struct TextFileSource {
    spec: TextFileSpec,
    input: BufReader<File>,
    total: i64,
    next_id: i64,
    pos: u64,
    done: bool,
}

fn open(name: &str) -> Result<File> {
    File::open(name).map_err(|e| {
        let reason = e.to_string();
        let reason = reason.split(" (os error").next().unwrap_or(&reason).to_string();
        Error::new(crate::error::io_code(&e), format!("{name}; {reason}"))
    })
}

/// TF's `ReadLine`: a line without its `\n` and one trailing `\r`; `None` at the end.
fn read_line(input: &mut BufReader<File>, line: &mut Vec<u8>) -> Result<Option<usize>> {
    line.clear();
    let n = input.read_until(b'\n', line).map_err(|e| crate::runtime::reader::read_error(&e))?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(Some(n))
}

impl TextFileSource {
    /// Opens the file (and counts its lines when the vocabulary size is not given),
    /// after TF's checks of the indices against the table's dtypes.
    pub(crate) fn open(spec: TextFileSpec) -> Result<Self> {
        if spec.key_index == LINE_NUMBER && spec.key_dtype != DType::Int64 {
            ff_bail!(
                InvalidArgument,
                "Key index for line number requires table key dtype of int64, got {}",
                spec.key_dtype.cpp_name()
            );
        }
        if spec.key_index == WHOLE_LINE && !spec.key_dtype.is_integer() && spec.key_dtype != DType::String {
            ff_bail!(
                InvalidArgument,
                "Key index for whole line requires string or integer table key, got {}",
                spec.key_dtype.cpp_name()
            );
        }
        if spec.value_index == LINE_NUMBER && spec.value_dtype != DType::Int64 {
            ff_bail!(
                InvalidArgument,
                "Value index for line number requires table value dtype of int64, got {}",
                spec.value_dtype.cpp_name()
            );
        }
        if spec.value_index == WHOLE_LINE && !spec.value_dtype.is_integer() && spec.value_dtype != DType::String {
            ff_bail!(
                InvalidArgument,
                "Value index for whole line requires table value dtype of integer or string, got {}",
                spec.value_dtype.cpp_name()
            );
        }
        let total = if spec.vocab_size == -1 {
            let mut input = BufReader::with_capacity(1 << 16, open(&spec.filename)?);
            let mut line = Vec::new();
            let mut n = 0i64;
            while read_line(&mut input, &mut line)?.is_some() {
                n += 1;
            }
            n
        } else {
            spec.vocab_size
        };
        let input = BufReader::with_capacity(1 << 16, open(&spec.filename)?);
        Ok(TextFileSource { spec, input, total, next_id: 0, pos: 0, done: false })
    }

    /// The key or value of one line, by index, converted to `dtype`.
    fn field(&self, line: &[u8], tokens: &[&[u8]], index: i64, out: &mut Column) -> Result<()> {
        if index == LINE_NUMBER {
            return out.push_i64(self.next_id + self.spec.offset);
        }
        let token = if index == WHOLE_LINE { line } else { tokens[index as usize] };
        out.push_token(token, self.next_id)
    }
}

/// One batch's keys or values being converted.
enum Column {
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Str(Vec<Vec<u8>>),
}

fn invalid(token: &[u8], line: i64, what: &str) -> Error {
    Error::invalid_argument(format!("Field {} in line {line} is not a valid {what}.", String::from_utf8_lossy(token)))
}

impl Column {
    fn new(dtype: DType) -> Result<Self> {
        Ok(match dtype {
            DType::Int32 => Column::I32(Vec::new()),
            DType::Int64 => Column::I64(Vec::new()),
            DType::Float32 => Column::F32(Vec::new()),
            DType::Float64 => Column::F64(Vec::new()),
            DType::String => Column::Str(Vec::new()),
            d => ff_bail!(InvalidArgument, "Data type {} not supported.", d.cpp_name()),
        })
    }
    fn push_i64(&mut self, v: i64) -> Result<()> {
        match self {
            Column::I64(c) => c.push(v),
            Column::I32(c) => c.push(v as i32),
            _ => ff_bail!(InvalidArgument, "line numbers need an int64 column"),
        }
        Ok(())
    }
    fn push_token(&mut self, token: &[u8], line: i64) -> Result<()> {
        let text = std::str::from_utf8(token).map(str::trim);
        match self {
            Column::I32(c) => {
                c.push(text.ok().and_then(|t| t.parse().ok()).ok_or_else(|| invalid(token, line, "int32"))?)
            }
            Column::I64(c) => {
                c.push(text.ok().and_then(|t| t.parse().ok()).ok_or_else(|| invalid(token, line, "int64"))?)
            }
            Column::F32(c) => {
                c.push(text.ok().and_then(|t| t.parse().ok()).ok_or_else(|| invalid(token, line, "float"))?)
            }
            Column::F64(c) => {
                c.push(text.ok().and_then(|t| t.parse().ok()).ok_or_else(|| invalid(token, line, "double"))?);
            }
            Column::Str(c) => c.push(token.to_vec()),
        }
        Ok(())
    }
    fn into_tensor(self) -> Result<Tensor> {
        match self {
            Column::I32(c) => Tensor::from_slice(&[c.len()], &c),
            Column::I64(c) => Tensor::from_slice(&[c.len()], &c),
            Column::F32(c) => Tensor::from_slice(&[c.len()], &c),
            Column::F64(c) => Tensor::from_slice(&[c.len()], &c),
            Column::Str(c) => Tensor::from_strings(&[c.len()], c),
        }
    }
}

impl InitSource for TextFileSource {
    fn total_size(&self) -> i64 {
        self.total
    }

    fn next_batch(&mut self) -> Result<Option<(Tensor, Tensor)>> {
        if self.done {
            return Ok(None);
        }
        let mut keys = Column::new(self.spec.key_dtype)?;
        let mut values = Column::new(self.spec.value_dtype)?;
        let split = self.spec.key_index.max(self.spec.value_index) >= 0;
        let mut line = Vec::new();
        let mut count = 0;
        while count < BATCH {
            let Some(n) = read_line(&mut self.input, &mut line)? else {
                self.done = true;
                if self.spec.vocab_size != -1 && self.next_id != self.spec.vocab_size {
                    ff_bail!(
                        InvalidArgument,
                        "Invalid vocab_size in {}: expected {} but got {}",
                        self.spec.filename,
                        self.spec.vocab_size,
                        self.next_id
                    );
                }
                break;
            };
            self.pos += n as u64;
            if self.spec.vocab_size != -1 && self.next_id >= self.spec.vocab_size {
                // TF stops quietly at the vocabulary size (a warning, not an error).
                self.done = true;
                break;
            }
            if line.is_empty() {
                return Err(Error::new(
                    Code::InvalidArgument,
                    format!("Invalid content in {}: empty line found at position {}.", self.spec.filename, self.pos),
                ));
            }
            let tokens: Vec<&[u8]> =
                if split { line.split(|&b| b == self.spec.delimiter).collect() } else { Vec::new() };
            let need = self.spec.key_index.max(self.spec.value_index);
            if split && need >= tokens.len() as i64 {
                ff_bail!(
                    InvalidArgument,
                    "Invalid number of columns in {} line {} ({}) : expected at least {} got {}",
                    self.spec.filename,
                    self.next_id,
                    String::from_utf8_lossy(&line),
                    need + 1,
                    tokens.len()
                );
            }
            self.field(&line, &tokens, self.spec.key_index, &mut keys)?;
            self.field(&line, &tokens, self.spec.value_index, &mut values)?;
            self.next_id += 1;
            count += 1;
        }
        if count == 0 {
            return Ok(None);
        }
        Ok(Some((keys.into_tensor()?, values.into_tensor()?)))
    }
}
