//! A call's deadline (`grpc-timeout`) answered as gRPC's C++ server answers it.
//!
//! tonic's server wraps every service in a timer that ends a call whose deadline has
//! passed with `Cancelled` "Timeout expired", and it cannot be turned off. TF's server
//! (gRPC C++) ends it with `DeadlineExceeded`, and so does a client whose own timer
//! fires first; which one a client saw was a race (about one call in seven on
//! loopback). This layer, outside tonic's router, answers `DeadlineExceeded` a little
//! before tonic's timer can fire, so a call past its deadline always ends as TF's do.
use std::task::{Context, Poll};
use std::time::Duration;

use tonic::Status;
use tonic::body::Body;

use crate::limits::BoxFuture;

/// How much earlier than tonic's timer this layer's fires: both start within
/// microseconds of each other, and tokio's timers tick in milliseconds.
const AHEAD: Duration = Duration::from_millis(2);

/// The server's layer that answers expired calls with `DeadlineExceeded`.
#[derive(Clone, Copy, Debug, Default)]
pub struct AnswerDeadlines;

impl<S> tower_layer::Layer<S> for AnswerDeadlines {
    type Service = DeadlineAnswering<S>;
    fn layer(&self, inner: S) -> DeadlineAnswering<S> {
        DeadlineAnswering { inner }
    }
}

/// A service whose calls past their `grpc-timeout` end with `DeadlineExceeded`.
#[derive(Clone, Debug)]
pub struct DeadlineAnswering<S> {
    inner: S,
}

impl<S> tower_service::Service<http::Request<Body>> for DeadlineAnswering<S>
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
        let timeout = req.headers().get("grpc-timeout").and_then(|v| parse_grpc_timeout(v.as_bytes()));
        let response = self.inner.call(req);
        let Some(timeout) = timeout else {
            return Box::pin(response);
        };
        let deadline = tokio::time::Instant::now() + timeout.saturating_sub(AHEAD);
        Box::pin(async move {
            match tokio::time::timeout_at(deadline, response).await {
                Ok(answered) => answered,
                // gRPC C++'s own words for it.
                Err(_) => Ok(Status::deadline_exceeded("Deadline Exceeded").into_http()),
            }
        })
    }
}

/// A `grpc-timeout` value: at most 8 digits and a unit (`H`, `M`, `S`, `m`, `u`,
/// `n`); anything else is no deadline (tonic ignores it the same way).
pub fn parse_grpc_timeout(value: &[u8]) -> Option<Duration> {
    let (&unit, digits) = value.split_last()?;
    if digits.is_empty() || digits.len() > 8 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    Some(match unit {
        b'H' => Duration::from_secs(n * 3600),
        b'M' => Duration::from_secs(n * 60),
        b'S' => Duration::from_secs(n),
        b'm' => Duration::from_millis(n),
        b'u' => Duration::from_micros(n),
        b'n' => Duration::from_nanos(n),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_timeouts_parse_in_every_unit() {
        assert_eq!(parse_grpc_timeout(b"2H"), Some(Duration::from_secs(7200)));
        assert_eq!(parse_grpc_timeout(b"3M"), Some(Duration::from_secs(180)));
        assert_eq!(parse_grpc_timeout(b"99999999S"), Some(Duration::from_secs(99_999_999)));
        assert_eq!(parse_grpc_timeout(b"500m"), Some(Duration::from_millis(500)));
        assert_eq!(parse_grpc_timeout(b"19999u"), Some(Duration::from_micros(19_999)));
        assert_eq!(parse_grpc_timeout(b"7n"), Some(Duration::from_nanos(7)));
    }

    #[test]
    fn malformed_grpc_timeouts_are_no_deadline() {
        for bad in [&b""[..], b"S", b"123456789S", b"12x", b"-1S", b"1.5S", b"10", "1\u{e9}S".as_bytes()] {
            assert_eq!(parse_grpc_timeout(bad), None, "{bad:?}");
        }
    }
}
