//! HTTP/2 settings shared by every channel and the server.
//!
//! h2's defaults suit small RPCs: a 64 KiB flow-control window makes a 64 MiB
//! `RecvTensor` wait for a window update every 64 KiB, and 16 KiB frames cut it into
//! 4096 of them. TF's gRPC grows its windows by measuring the link (BDP probing); fixed
//! large windows are the same on loopback and LAN links, and the memory they allow per
//! connection is what a step moves anyway.
use std::time::Duration;

use ferroflow_core::error::{Error, Result};
use tonic::transport::{Endpoint, Server};

/// Bytes one stream may have in flight.
const STREAM_WINDOW: u32 = 32 << 20;
/// Bytes all streams of one connection may have in flight.
const CONNECTION_WINDOW: u32 = 64 << 20;
/// The largest DATA frame this side accepts (h2 allows up to 16 MiB - 1).
const MAX_FRAME: u32 = 1 << 20;

/// A lazily connecting endpoint for `host:port` (`what` names it in errors).
pub fn endpoint(address: &str, what: &str) -> Result<Endpoint> {
    Ok(Endpoint::from_shared(format!("http://{address}"))
        .map_err(|e| Error::invalid_argument(format!("Invalid {what} {address}: {e}")))?
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(20))
        .initial_stream_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .max_frame_size(MAX_FRAME))
}

/// A server builder with the same windows.
pub fn server() -> Server {
    Server::builder()
        .initial_stream_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .max_frame_size(MAX_FRAME)
}
