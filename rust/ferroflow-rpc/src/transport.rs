//! HTTP/2 settings shared by every channel and the server.
//!
//! h2's defaults suit small RPCs: a 64 KiB flow-control window makes a 64 MiB
//! `RecvTensor` wait for a window update every 64 KiB, and 16 KiB frames cut it into
//! 4096 of them. TF's gRPC grows its windows by measuring the link (BDP probing); fixed
//! large windows are the same on loopback and LAN links, and the memory they allow per
//! connection is what a step moves anyway.
use std::time::Duration;

use ferroflow_core::error::{Error, Result};
use tonic::transport::{Channel, Endpoint, Server};

use crate::limits::{BoundedResponses, Limits};

/// Bytes one stream may have in flight.
const STREAM_WINDOW: u32 = 32 << 20;
/// Bytes all streams of one connection may have in flight.
const CONNECTION_WINDOW: u32 = 64 << 20;
/// The largest DATA frame this side accepts (h2 allows up to 16 MiB - 1).
const MAX_FRAME: u32 = 1 << 20;
/// Streams one client connection may have open at once (a step's `RecvTensor`s share
/// a connection, so this is well above what a step opens; gRPC's default is unbounded).
const MAX_STREAMS: u32 = 1024;
/// The largest header block a peer may send (gRPC's default metadata limit is 16 KiB;
/// hyper's would be 16 MiB).
const MAX_HEADER_LIST: u32 = 16 << 10;
/// Pings on a connection with no traffic, and how long the answer may take: a peer
/// that vanished without closing its connection is dropped (gRPC's keepalive).
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(60);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);

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

/// A client channel: the response bodies it reads are bounded as a server bounds
/// requests (a hostile server cannot make the client reserve what it only declares).
pub type BoundedChannel = BoundedResponses<Channel>;

/// A lazily connected channel to `host:port` (`what` names it in errors) whose
/// responses are bounded by `limits`; needs the network runtime entered.
pub fn channel(address: &str, what: &str, limits: Limits) -> Result<BoundedChannel> {
    Ok(BoundedResponses::new(endpoint(address, what)?.connect_lazy(), limits))
}

/// A server builder with the same windows, and bounds on what one peer may hold
/// open: streams, header sizes, dead connections (message sizes and stalled messages
/// are bounded by `limits.rs`).
pub fn server() -> Server {
    Server::builder()
        .initial_stream_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .max_frame_size(MAX_FRAME)
        .max_concurrent_streams(MAX_STREAMS)
        .http2_max_header_list_size(MAX_HEADER_LIST)
        .http2_keepalive_interval(Some(KEEPALIVE_INTERVAL))
        .http2_keepalive_timeout(Some(KEEPALIVE_TIMEOUT))
        .tcp_keepalive(Some(KEEPALIVE_INTERVAL))
}
