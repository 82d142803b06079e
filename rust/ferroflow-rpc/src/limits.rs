//! Bounds on what a peer sends: every gRPC message body that reaches tonic's decoder
//! (requests on the server, responses on the client) passes through [`BoundedBody`].
//!
//! Why a body wrapper and not tonic's own limit: tonic reserves a message's *declared*
//! length (its 5-byte prefix) before the bytes arrive, so a peer that declares 2 GiB
//! and then goes quiet makes the process reserve 2 GiB per stream, and under a memory
//! cap that reservation aborts. TF's default limit is `INT32_MAX` (it sets no other),
//! so lowering tonic's limit would refuse messages TF accepts. The wrapper instead
//! holds a large message's prefix back until half of its bytes have arrived, so what
//! tonic reserves is never more than twice what the peer really sent, and it first
//! probes that reservation fallibly (`ResourceExhausted` instead of an abort).
//!
//! Compressed messages (`grpc-encoding: gzip`) are inflated here, into a buffer that
//! grows fallibly and stops at the message limit (gRPC's rule: the limit applies to
//! the decompressed size), and handed on uncompressed; tonic's own inflater would
//! reserve and grow infallibly. A stream that stops sending mid-request (a slow or
//! stalled peer) is ended after a timeout, so it cannot pin its buffer forever.
use std::collections::VecDeque;
use std::future::Future;
use std::io::Read;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::{Buf, Bytes};
use http_body::{Body as HttpBody, Frame};
use tonic::Status;
use tonic::body::Body;

/// TF's limit on one message, both ways (`grpc_server_lib.cc`: `INT32_MAX`).
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = i32::MAX as usize;
/// How long a stream may go without a byte while its request (or response) is
/// incomplete before it is ended with `DeadlineExceeded`.
pub const DEFAULT_STALL_TIMEOUT: Duration = Duration::from_secs(60);
/// Messages up to this size are handed on at once (their reservation is harmless).
const EAGER_MESSAGE: usize = 64 << 10;
/// The gRPC message prefix: a compressed flag and a big-endian u32 length.
const PREFIX: usize = 5;

/// The bounds one side applies to what it receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest message accepted, after decompression.
    pub max_message_size: usize,
    /// How long an incomplete message may go without new bytes.
    pub stall_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_message_size: DEFAULT_MAX_MESSAGE_SIZE, stall_timeout: DEFAULT_STALL_TIMEOUT }
    }
}

impl Limits {
    /// The limits an `RPCOptions` asks for: its ferroflow fields
    /// `max_receive_message_size` and `stalled_request_timeout_in_ms`, 0 meaning the
    /// default (TF's `INT32_MAX` and 60 s).
    pub fn from_rpc_options(options: Option<&ferroflow_proto::RpcOptions>) -> Limits {
        let mut limits = Limits::default();
        if let Some(o) = options {
            if let Ok(max) = usize::try_from(o.max_receive_message_size)
                && max > 0
            {
                limits.max_message_size = max;
            }
            if let Ok(ms) = u64::try_from(o.stalled_request_timeout_in_ms)
                && ms > 0
            {
                limits.stall_timeout = Duration::from_millis(ms);
            }
        }
        limits
    }
}

/// What the wrapper is in the middle of.
enum Stage {
    /// Reading a message's prefix (`have` of its 5 bytes so far).
    Prefix { bytes: [u8; PREFIX], have: usize },
    /// An uncompressed message of `len` bytes, `got` of them seen; `released` once
    /// its prefix has been handed on (later bytes then pass straight through).
    Plain { len: usize, got: usize, released: bool },
    /// A gzip message of `len` compressed bytes, gathered in `data`.
    Gzip { len: usize, data: Vec<u8> },
    /// Failed or finished: nothing more is read.
    Done,
}

/// Which way the bytes go (for messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// A client's request, read by a server.
    Request,
    /// A server's response, read by a client.
    Response,
}

/// A gRPC message stream with the bounds of [`Limits`] (see the module docs).
pub struct BoundedBody {
    inner: Body,
    limits: Limits,
    gzip: bool,
    direction: Direction,
    stage: Stage,
    /// Chunks of a message whose prefix is held back.
    held: Vec<Bytes>,
    /// Chunks ready to hand on, in order.
    ready: VecDeque<Bytes>,
    /// Armed while the inner body has nothing to give.
    stall: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl BoundedBody {
    /// Wraps `inner`; `gzip` says whether its `grpc-encoding` header is gzip.
    pub fn new(inner: Body, limits: Limits, gzip: bool, direction: Direction) -> BoundedBody {
        BoundedBody {
            inner,
            limits,
            gzip,
            direction,
            stage: Stage::Prefix { bytes: [0; PREFIX], have: 0 },
            held: Vec::new(),
            ready: VecDeque::new(),
            stall: None,
        }
    }

    fn fail(&mut self, status: Status) -> Status {
        self.stage = Stage::Done;
        self.held.clear();
        self.ready.clear();
        status
    }

    fn too_large(&self, len: usize) -> Status {
        // gRPC's own wording and code for an oversized message.
        Status::resource_exhausted(format!(
            "Received message larger than max ({len} vs. {})",
            self.limits.max_message_size
        ))
    }

    /// Takes in one chunk from the peer, moving what is complete to `ready`.
    fn take(&mut self, mut chunk: Bytes) -> Result<(), Status> {
        while !chunk.is_empty() {
            match &mut self.stage {
                Stage::Done => return Ok(()),
                Stage::Prefix { bytes, have } => {
                    let n = (PREFIX - *have).min(chunk.len());
                    bytes[*have..*have + n].copy_from_slice(&chunk[..n]);
                    *have += n;
                    chunk.advance(n);
                    if *have == PREFIX {
                        let prefix = *bytes;
                        self.start_message(prefix)?;
                    }
                }
                Stage::Plain { len, got, released } => {
                    let n = (*len - *got).min(chunk.len());
                    let part = chunk.split_to(n);
                    *got += n;
                    let (len, got, was_released) = (*len, *got, *released);
                    if was_released {
                        self.ready.push_back(part);
                    } else {
                        self.held.push(part);
                        // Hand the prefix on once tonic's reservation of `len` is at
                        // most twice the bytes really here.
                        if got.saturating_mul(2) >= len {
                            self.release(len)?;
                        }
                    }
                    if got == len {
                        self.stage = Stage::Prefix { bytes: [0; PREFIX], have: 0 };
                    }
                }
                Stage::Gzip { len, data } => {
                    let n = (*len - data.len()).min(chunk.len());
                    data.try_reserve(n).map_err(|_| {
                        Status::resource_exhausted(format!(
                            "Could not allocate {n} more bytes for a compressed message"
                        ))
                    })?;
                    data.extend_from_slice(&chunk[..n]);
                    chunk.advance(n);
                    if data.len() == *len {
                        let data = std::mem::take(data);
                        let plain = inflate(&data, self.limits.max_message_size)?;
                        self.emit_plain(plain)?;
                        self.stage = Stage::Prefix { bytes: [0; PREFIX], have: 0 };
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks a message's prefix and sets up for its body.
    fn start_message(&mut self, prefix: [u8; PREFIX]) -> Result<(), Status> {
        let len = u32::from_be_bytes([prefix[1], prefix[2], prefix[3], prefix[4]]) as usize;
        match prefix[0] {
            0 => {
                if len > self.limits.max_message_size {
                    return Err(self.too_large(len));
                }
                let released = len <= EAGER_MESSAGE;
                if released {
                    self.ready.push_back(Bytes::copy_from_slice(&prefix));
                }
                self.stage = if len == 0 {
                    Stage::Prefix { bytes: [0; PREFIX], have: 0 }
                } else {
                    Stage::Plain { len, got: 0, released }
                };
            }
            1 if self.gzip => {
                // The compressed size is bounded too: it can only be smaller than a
                // message worth inflating, apart from gzip's few bytes of framing.
                if len > self.limits.max_message_size.saturating_add(64 << 10) {
                    return Err(self.too_large(len));
                }
                if len == 0 {
                    return Err(Status::internal("Error decompressing: an empty gzip message"));
                }
                self.stage = Stage::Gzip { len, data: Vec::new() };
            }
            1 => {
                return Err(Status::internal(
                    "protocol error: received message with compressed-flag but no grpc-encoding was specified",
                ));
            }
            f => {
                return Err(Status::internal(format!(
                    "protocol error: received message with invalid compression flag: {f} (valid flags are 0 and 1)"
                )));
            }
        }
        Ok(())
    }

    /// Hands on a held message's prefix and chunks, after checking that its full
    /// length can be had (tonic reserves it infallibly).
    fn release(&mut self, len: usize) -> Result<(), Status> {
        probe_allocation(len)?;
        self.ready.push_back(Bytes::copy_from_slice(&prefix_of(len)));
        self.ready.extend(self.held.drain(..));
        if let Stage::Plain { released, .. } = &mut self.stage {
            *released = true;
        }
        Ok(())
    }

    /// Hands on an inflated message as an uncompressed one.
    fn emit_plain(&mut self, plain: Vec<u8>) -> Result<(), Status> {
        probe_allocation(plain.len())?;
        self.ready.push_back(Bytes::copy_from_slice(&prefix_of(plain.len())));
        self.ready.push_back(Bytes::from(plain));
        Ok(())
    }

    /// Whether a message is partly received.
    fn mid_message(&self) -> bool {
        match &self.stage {
            Stage::Prefix { have, .. } => *have > 0,
            Stage::Plain { .. } | Stage::Gzip { .. } => true,
            Stage::Done => false,
        }
    }
}

/// The 5-byte prefix of an uncompressed message of `len` bytes.
fn prefix_of(len: usize) -> [u8; PREFIX] {
    let l = u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes();
    [0, l[0], l[1], l[2], l[3]]
}

/// `ResourceExhausted` unless `len` bytes can be allocated now (the memory is given
/// back at once: this only turns the abort of tonic's infallible reservation into an
/// error in the common case of a memory cap).
fn probe_allocation(len: usize) -> Result<(), Status> {
    if len <= EAGER_MESSAGE {
        return Ok(());
    }
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(len)
        .map_err(|_| Status::resource_exhausted(format!("Could not allocate {len} bytes for a message")))
}

/// Inflates a gzip message into a buffer that grows fallibly, failing past `max`.
fn inflate(data: &[u8], max: usize) -> Result<Vec<u8>, Status> {
    let mut decoder = flate2::read::GzDecoder::new(data);
    let mut out: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = decoder.read(&mut chunk).map_err(|e| Status::internal(format!("Error decompressing: {e}")))?;
        if n == 0 {
            return Ok(out);
        }
        if out.len() + n > max {
            return Err(Status::resource_exhausted(format!(
                "Received message larger than max (more than {max} bytes after decompression)"
            )));
        }
        if out.capacity() - out.len() < n {
            // Double as a Vec would, but fallibly and never past the limit.
            let want = (out.capacity().max(n)).min(max - out.len());
            out.try_reserve(want).map_err(|_| {
                Status::resource_exhausted(format!(
                    "Could not allocate {} bytes to decompress a message",
                    out.len() + want
                ))
            })?;
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

impl HttpBody for BoundedBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        loop {
            if let Some(chunk) = this.ready.pop_front() {
                return Poll::Ready(Some(Ok(Frame::data(chunk))));
            }
            if matches!(this.stage, Stage::Done) && this.held.is_empty() {
                // Failed: the error was returned once; a finished stream ended below.
                return Poll::Ready(None);
            }
            match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => {
                    this.stall = None;
                    match frame.into_data() {
                        Ok(data) => {
                            if let Err(status) = this.take(data) {
                                return Poll::Ready(Some(Err(this.fail(status))));
                            }
                        }
                        // Trailers (a response's status) pass through.
                        Err(frame) => return Poll::Ready(Some(Ok(frame))),
                    }
                }
                Poll::Ready(Some(Err(status))) => return Poll::Ready(Some(Err(this.fail(status)))),
                Poll::Ready(None) => {
                    if this.mid_message() {
                        let status = Status::internal("Unexpected EOF decoding stream.");
                        return Poll::Ready(Some(Err(this.fail(status))));
                    }
                    this.stage = Stage::Done;
                    return Poll::Ready(None);
                }
                Poll::Pending => {
                    let timeout = this.limits.stall_timeout;
                    let stall = this.stall.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
                    ready!(stall.as_mut().poll(cx));
                    let what = match this.direction {
                        Direction::Request => "request",
                        Direction::Response => "response",
                    };
                    let status = Status::deadline_exceeded(format!(
                        "The peer sent no bytes of its {what} for {} ms",
                        timeout.as_millis()
                    ));
                    return Poll::Ready(Some(Err(this.fail(status))));
                }
            }
        }
    }
}

/// Whether a request or response names gzip as its `grpc-encoding`.
pub fn is_gzip(headers: &http::HeaderMap) -> bool {
    headers.get("grpc-encoding").is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"gzip"))
}

/// The server's layer: every request body is bounded.
#[derive(Clone, Copy, Debug)]
pub struct BoundRequests(pub Limits);

impl<S> tower_layer::Layer<S> for BoundRequests {
    type Service = BoundedRequests<S>;
    fn layer(&self, inner: S) -> BoundedRequests<S> {
        BoundedRequests { inner, limits: self.0 }
    }
}

/// A service whose requests' bodies are [`BoundedBody`]s.
#[derive(Clone, Debug)]
pub struct BoundedRequests<S> {
    inner: S,
    limits: Limits,
}

impl<S> tower_service::Service<http::Request<Body>> for BoundedRequests<S>
where
    S: tower_service::Service<http::Request<Body>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<Body>) -> S::Future {
        let gzip = is_gzip(req.headers());
        let limits = self.limits;
        self.inner.call(req.map(|b| Body::new(BoundedBody::new(b, limits, gzip, Direction::Request))))
    }
}

/// A client channel whose responses' bodies are [`BoundedBody`]s.
#[derive(Clone, Debug)]
pub struct BoundedResponses<S> {
    inner: S,
    limits: Limits,
}

impl<S> BoundedResponses<S> {
    /// Bounds the responses `inner` receives.
    pub fn new(inner: S, limits: Limits) -> Self {
        BoundedResponses { inner, limits }
    }
}

/// A boxed response future of the bounding and deadline layers.
pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S> tower_service::Service<http::Request<Body>> for BoundedResponses<S>
where
    S: tower_service::Service<http::Request<Body>, Response = http::Response<Body>>,
    S::Future: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<http::Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        let limits = self.limits;
        let response = self.inner.call(req);
        Box::pin(async move {
            let response = response.await?;
            let gzip = is_gzip(response.headers());
            Ok(response.map(|b| Body::new(BoundedBody::new(b, limits, gzip, Direction::Response))))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn message(flag: u8, payload: &[u8]) -> Vec<u8> {
        let mut m = vec![flag];
        m.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        m.extend_from_slice(payload);
        m
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn body(limits: Limits, gz: bool) -> BoundedBody {
        BoundedBody::new(Body::empty(), limits, gz, Direction::Request)
    }

    fn out(b: &mut BoundedBody) -> Vec<u8> {
        b.ready.drain(..).flat_map(|c| c.to_vec()).collect()
    }

    #[test]
    fn messages_pass_unchanged_in_any_chunking() {
        let big: Vec<u8> = (0..300_000u32).map(|i| i as u8).collect();
        let mut wire = message(0, b"small");
        wire.extend(message(0, &big));
        wire.extend(message(0, b""));
        for step in [1, 3, 5, 4096, 70_000, wire.len()] {
            let mut b = body(Limits::default(), false);
            let mut seen = Vec::new();
            for c in wire.chunks(step) {
                b.take(Bytes::copy_from_slice(c)).unwrap();
                seen.extend(out(&mut b));
            }
            assert_eq!(seen, wire, "chunks of {step}");
            assert!(!b.mid_message());
        }
    }

    #[test]
    fn a_large_prefix_waits_for_half_of_its_bytes() {
        let len = 1 << 20;
        let mut b = body(Limits::default(), false);
        b.take(Bytes::copy_from_slice(&prefix_of(len))).unwrap();
        b.take(Bytes::from(vec![7u8; len / 2 - 1])).unwrap();
        assert!(b.ready.is_empty(), "nothing handed on before half arrived");
        b.take(Bytes::from(vec![7u8; 1])).unwrap();
        assert_eq!(out(&mut b).len(), PREFIX + len / 2);
        // A declared 2 GiB with nothing behind it reserves nothing.
        let mut b = body(Limits::default(), false);
        b.take(Bytes::copy_from_slice(&[0, 0x7f, 0xff, 0xff, 0xff])).unwrap();
        assert!(b.ready.is_empty() && b.mid_message());
    }

    #[test]
    fn oversized_and_malformed_prefixes_are_errors() {
        let small = Limits { max_message_size: 100, ..Limits::default() };
        let err = body(small, false).take(Bytes::from(message(0, &[0; 101]))).unwrap_err();
        assert_eq!(err.code(), tonic::Code::ResourceExhausted);
        assert_eq!(err.message(), "Received message larger than max (101 vs. 100)");
        let err = body(small, false).take(Bytes::from(message(1, b"x"))).unwrap_err();
        assert_eq!(err.code(), tonic::Code::Internal);
        let err = body(small, false).take(Bytes::from(message(9, b"x"))).unwrap_err();
        assert!(err.message().contains("invalid compression flag: 9"));
    }

    #[test]
    fn gzip_messages_are_inflated_within_the_limit() {
        let data = vec![3u8; 500_000];
        let mut b = body(Limits::default(), true);
        b.take(Bytes::from(message(1, &gzip(&data)))).unwrap();
        assert_eq!(out(&mut b), message(0, &data));
        // A bomb: 1 KiB that inflates past the limit stops at the limit.
        let limits = Limits { max_message_size: 100_000, ..Limits::default() };
        let err = body(limits, true).take(Bytes::from(message(1, &gzip(&data)))).unwrap_err();
        assert_eq!(err.code(), tonic::Code::ResourceExhausted);
        // Corrupt or cut streams are INTERNAL, as gRPC's.
        let mut cut = gzip(&data);
        cut.truncate(cut.len() / 2);
        let err = body(Limits::default(), true).take(Bytes::from(message(1, &cut))).unwrap_err();
        assert_eq!(err.code(), tonic::Code::Internal);
        let err = body(Limits::default(), true).take(Bytes::from(message(1, b"not gzip"))).unwrap_err();
        assert_eq!(err.code(), tonic::Code::Internal);
    }

    #[test]
    fn the_limits_read_rpc_options() {
        let o = ferroflow_proto::RpcOptions {
            max_receive_message_size: 1 << 20,
            stalled_request_timeout_in_ms: 250,
            ..Default::default()
        };
        let l = Limits::from_rpc_options(Some(&o));
        assert_eq!((l.max_message_size, l.stall_timeout), (1 << 20, Duration::from_millis(250)));
        assert_eq!(Limits::from_rpc_options(None), Limits::default());
        assert_eq!(Limits::from_rpc_options(Some(&ferroflow_proto::RpcOptions::default())), Limits::default());
    }
}
