//! Errors of the file formats, mapped by callers onto TF's error classes.
use std::fmt;

/// What went wrong reading or writing a file.
#[derive(Debug)]
pub enum Error {
    /// Corrupted data (a CRC mismatch, a truncated record): TF's `DataLossError`.
    DataLoss(String),
    /// A bad argument (an image with 2 channels, a non-finite histogram value).
    InvalidArgument(String),
    /// The operation needs a state the object is not in (a closed writer).
    FailedPrecondition(String),
    /// Something asked for does not exist (a tensor name in a checkpoint).
    NotFound(String),
    /// Memory for a buffer the file asks for could not be had.
    ResourceExhausted(String),
    /// The operating system's error, with the path or action it concerned.
    Io(String, std::io::Error),
}

/// A `Result` of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DataLoss(m)
            | Error::InvalidArgument(m)
            | Error::FailedPrecondition(m)
            | Error::NotFound(m)
            | Error::ResourceExhausted(m) => f.write_str(m),
            Error::Io(what, e) => write!(f, "{what}: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// An I/O error about `what` (a path, an action).
    pub fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let what = what.into();
        move |e| Error::Io(what, e)
    }
}
