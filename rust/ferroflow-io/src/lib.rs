//! ferroflow's file formats, independent of the graph runtime:
//! - [`record`]: TFRecord framing (length, masked CRC32C of the length, payload,
//!   masked CRC32C of the payload), a writer and a verifying reader;
//! - [`events`]: event files (`events.out.tfevents.*`) and the background thread that
//!   writes them behind a bounded queue;
//! - [`summary`]: what the summary ops encode: TF's histogram buckets, PNG images,
//!   WAV audio;
//! - [`table`] and [`bundle`]: V2 checkpoints (the tensor bundle: a data file and a
//!   LevelDB-style sorted table as its index), byte-identical to TensorFlow's;
//! - [`glob`]: glob patterns over the file system (TF's `GetMatchingPaths`);
//! - [`slices`]: V1 checkpoints (TF's tensor-slice tables);
//! - [`durable`]: atomic, synced file replacement (temporary file, fsync, rename,
//!   directory fsync).
pub mod bundle;
pub mod durable;
pub mod events;
pub mod glob;
pub mod record;
pub mod slices;
pub mod summary;
pub mod table;

mod error;
pub use error::{Error, Result};
