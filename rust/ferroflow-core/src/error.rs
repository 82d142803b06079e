//! One error type for the whole core: a TensorFlow canonical status code, a message
//! and (when an op raised it) the op's name. The bindings map each code to the
//! `ferroflow.errors` class of the same name.
use std::fmt;

/// TensorFlow's canonical error codes (`tensorflow/core/protobuf/error_codes.proto`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Code {
    /// Not an error; never carried by an [`Error`].
    Ok = 0,
    /// The operation was cancelled (a closed session, a cancelled queue wait).
    Cancelled = 1,
    /// Unknown error.
    Unknown = 2,
    /// The caller gave a bad argument (a bad feed, an out-of-range index).
    InvalidArgument = 3,
    /// A deadline expired before the operation finished.
    DeadlineExceeded = 4,
    /// Some requested entity (a file, a tensor name) was not found.
    NotFound = 5,
    /// An entity that the caller tried to create already exists.
    AlreadyExists = 6,
    /// The caller lacks permission.
    PermissionDenied = 7,
    /// Some resource (memory, queue capacity) is exhausted.
    ResourceExhausted = 8,
    /// The system is not in the state the operation needs (an uninitialized variable).
    FailedPrecondition = 9,
    /// The operation was aborted (a concurrency conflict).
    Aborted = 10,
    /// The operation ran past the valid range (a closed, empty queue).
    OutOfRange = 11,
    /// The operation is not implemented or not supported.
    Unimplemented = 12,
    /// An internal invariant broke (a bug in ferroflow).
    Internal = 13,
    /// The service is unavailable.
    Unavailable = 14,
    /// Unrecoverable data loss or corruption.
    DataLoss = 15,
    /// The request lacks valid authentication.
    Unauthenticated = 16,
}

impl Code {
    /// Every code, in enum order.
    pub const ALL: [Code; 17] = [
        Code::Ok,
        Code::Cancelled,
        Code::Unknown,
        Code::InvalidArgument,
        Code::DeadlineExceeded,
        Code::NotFound,
        Code::AlreadyExists,
        Code::PermissionDenied,
        Code::ResourceExhausted,
        Code::FailedPrecondition,
        Code::Aborted,
        Code::OutOfRange,
        Code::Unimplemented,
        Code::Internal,
        Code::Unavailable,
        Code::DataLoss,
        Code::Unauthenticated,
    ];

    /// The code with TensorFlow's number `n`, if there is one.
    pub fn from_i32(n: i32) -> Option<Code> {
        Code::ALL.into_iter().find(|c| *c as i32 == n)
    }

    /// TensorFlow's upper-case name of this code (`INVALID_ARGUMENT`).
    pub fn name(self) -> &'static str {
        match self {
            Code::Ok => "OK",
            Code::Cancelled => "CANCELLED",
            Code::Unknown => "UNKNOWN",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
            Code::NotFound => "NOT_FOUND",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::PermissionDenied => "PERMISSION_DENIED",
            Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::Aborted => "ABORTED",
            Code::OutOfRange => "OUT_OF_RANGE",
            Code::Unimplemented => "UNIMPLEMENTED",
            Code::Internal => "INTERNAL",
            Code::Unavailable => "UNAVAILABLE",
            Code::DataLoss => "DATA_LOSS",
            Code::Unauthenticated => "UNAUTHENTICATED",
        }
    }
}

/// Whether an error was found while building a graph (raised in Python as
/// `ValueError`/`TypeError`, as TensorFlow does) or while running it (`OpError`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A run-time status with a TF code.
    Status,
    /// A construction-time shape or value problem: Python `ValueError`.
    Value,
    /// A construction-time dtype problem: Python `TypeError`.
    Type,
    /// A missing registration (no gradient for an op): Python `LookupError`.
    Lookup,
    /// Not a failure: a kernel asked not to wait found that it would have to (see
    /// [`Error::would_block`]). The executor retries it; it never reaches a user.
    WouldBlock,
}

/// The core's error: a code, a message, and the name of the op that raised it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// TensorFlow canonical code.
    pub code: Code,
    /// Construction-time or run-time.
    pub kind: Kind,
    /// Human-readable message, in TensorFlow's wording where TF has one.
    pub message: String,
    /// Name of the node whose kernel failed, if any.
    pub node: Option<String>,
}

impl Error {
    /// A run-time error with `code`.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error { code, kind: Kind::Status, message: message.into(), node: None }
    }
    /// A run-time `InvalidArgumentError` (bad values fed or computed).
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidArgument, message)
    }
    /// A construction-time `ValueError`.
    pub fn value(message: impl Into<String>) -> Self {
        Error { code: Code::InvalidArgument, kind: Kind::Value, message: message.into(), node: None }
    }
    /// A construction-time `TypeError`.
    pub fn type_error(message: impl Into<String>) -> Self {
        Error { code: Code::InvalidArgument, kind: Kind::Type, message: message.into(), node: None }
    }
    /// A construction-time `LookupError`.
    pub fn lookup(message: impl Into<String>) -> Self {
        Error { code: Code::NotFound, kind: Kind::Lookup, message: message.into(), node: None }
    }
    /// A blocking kernel run with `Wait::nonblocking` would have to wait: it returns
    /// this before changing anything, with its inputs still in its context.
    pub fn would_block() -> Self {
        Error { code: Code::Unavailable, kind: Kind::WouldBlock, message: "operation would block".into(), node: None }
    }
    /// Whether this is [`Error::would_block`].
    pub fn is_would_block(&self) -> bool {
        self.kind == Kind::WouldBlock
    }
    /// The `Internal` error of a caught Rust panic (its message, if it has one), so
    /// no panic crosses a thread pool or the bindings.
    pub fn from_panic(payload: &(dyn std::any::Any + Send)) -> Self {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Error::new(Code::Internal, format!("ferroflow internal error (Rust panic): {what}"))
    }
    /// Attaches the failing node's name unless one is already there.
    #[must_use]
    pub fn with_node(mut self, node: &str) -> Self {
        if self.node.is_none() {
            self.node = Some(node.to_string());
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.node {
            Some(n) => write!(f, "{}\n\t [[node {n}]]", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

impl From<ferroflow_io::Error> for Error {
    fn from(e: ferroflow_io::Error) -> Self {
        let code = match &e {
            ferroflow_io::Error::DataLoss(_) => Code::DataLoss,
            ferroflow_io::Error::InvalidArgument(_) => Code::InvalidArgument,
            ferroflow_io::Error::FailedPrecondition(_) => Code::FailedPrecondition,
            ferroflow_io::Error::NotFound(_) => Code::NotFound,
            ferroflow_io::Error::ResourceExhausted(_) => Code::ResourceExhausted,
            ferroflow_io::Error::Io(_, io) => io_code(io),
        };
        Error::new(code, e.to_string())
    }
}

/// TF's code for an operating-system error (`tsl::errors::ErrnoToCode`): a full disk
/// is `ResourceExhausted`, a read-only file system `PermissionDenied`, a directory
/// where a file should be `FailedPrecondition`, and so on.
pub fn io_code(e: &std::io::Error) -> Code {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => Code::NotFound,
        K::AlreadyExists => Code::AlreadyExists,
        K::PermissionDenied | K::ReadOnlyFilesystem => Code::PermissionDenied,
        K::StorageFull | K::OutOfMemory | K::QuotaExceeded | K::TooManyLinks => Code::ResourceExhausted,
        K::IsADirectory | K::NotADirectory | K::DirectoryNotEmpty | K::ResourceBusy | K::ExecutableFileBusy => {
            Code::FailedPrecondition
        }
        K::InvalidInput | K::InvalidFilename | K::ArgumentListTooLong => Code::InvalidArgument,
        K::FileTooLarge | K::UnexpectedEof => Code::OutOfRange,
        K::TimedOut => Code::DeadlineExceeded,
        K::Unsupported | K::CrossesDevices => Code::Unimplemented,
        K::Interrupted
        | K::WouldBlock
        | K::ConnectionRefused
        | K::ConnectionReset
        | K::ConnectionAborted
        | K::HostUnreachable
        | K::NetworkUnreachable
        | K::NetworkDown => Code::Unavailable,
        K::Deadlock | K::StaleNetworkFileHandle => Code::Aborted,
        _ => match e.raw_os_error() {
            // EMFILE, ENFILE, ENOSPC under names the kinds above do not cover.
            Some(23 | 24 | 28) => Code::ResourceExhausted,
            _ => Code::Unknown,
        },
    }
}

/// The core's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Returns early with a run-time error: `ff_bail!(InvalidArgument, "bad {x}")`.
#[macro_export]
macro_rules! ff_bail {
    ($code:ident, $($arg:tt)*) => {
        return Err($crate::error::Error::new($crate::error::Code::$code, format!($($arg)*)))
    };
}

/// Returns early with a run-time error unless `cond` holds.
#[macro_export]
macro_rules! ff_ensure {
    ($cond:expr, $code:ident, $($arg:tt)*) => {
        if !$cond {
            $crate::ff_bail!($code, $($arg)*);
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_the_node() {
        let e = Error::new(Code::InvalidArgument, "bad").with_node("x");
        assert_eq!(e.to_string(), "bad\n\t [[node x]]");
        assert_eq!(Code::OutOfRange as i32, 11);
        assert_eq!(Code::DataLoss.name(), "DATA_LOSS");
    }

    #[test]
    fn os_errors_map_to_tfs_codes() {
        use std::io::{Error as IoError, ErrorKind as K};
        for (kind, code) in [
            (K::NotFound, Code::NotFound),
            (K::StorageFull, Code::ResourceExhausted),
            (K::ReadOnlyFilesystem, Code::PermissionDenied),
            (K::PermissionDenied, Code::PermissionDenied),
            (K::IsADirectory, Code::FailedPrecondition),
            (K::NotADirectory, Code::FailedPrecondition),
            (K::AlreadyExists, Code::AlreadyExists),
        ] {
            assert_eq!(io_code(&IoError::from(kind)), code, "{kind:?}");
        }
        // ENOSPC and EROFS as the OS reports them.
        assert_eq!(io_code(&IoError::from_raw_os_error(28)), Code::ResourceExhausted);
        let e: Error = ferroflow_io::Error::Io("x".into(), IoError::from_raw_os_error(30)).into();
        assert_eq!(e.code, Code::PermissionDenied);
    }
}
