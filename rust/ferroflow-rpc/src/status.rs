//! TF's error codes on the wire: `tensorflow.error.Code` numbers equal gRPC's, so a
//! status maps by a cast (spec/distributed.md §6). Errors travel either as the gRPC
//! status or, when the request asks (`store_errors_in_response_body`, which TF's
//! clients and masters always set), in the response body with an OK status.
use ferroflow_core::error::{Code, Error};

/// TF truncates error messages in gRPC metadata to this many bytes.
const MAX_STATUS_MESSAGE: usize = 3072;

/// The gRPC status of a core error.
pub fn to_status(e: &Error) -> tonic::Status {
    let mut msg = e.message.clone();
    if msg.len() > MAX_STATUS_MESSAGE {
        let mut end = MAX_STATUS_MESSAGE;
        while !msg.is_char_boundary(end) {
            end -= 1;
        }
        msg.truncate(end);
    }
    tonic::Status::new(tonic::Code::from_i32(e.code as i32), msg)
}

/// The core error of a gRPC status. Transport failures (a peer that is gone, a
/// connection refused) are TF's `Unavailable`, as gRPC's "Stream removed" is; so is
/// hyper's "operation was canceled", which tonic reports as `Cancelled` when the
/// connection under a request in flight goes away (a dead peer, not a cancelled step:
/// a step we cancel drops its call and reads no status).
pub fn from_status(s: &tonic::Status) -> Error {
    let code = match s.code() {
        tonic::Code::Unknown if s.message().contains("Stream removed") || s.message().contains("transport") => {
            Code::Unavailable
        }
        tonic::Code::Cancelled if s.message().contains("operation was canceled") => Code::Unavailable,
        // The client's own gRPC deadline (tonic reports it as cancelled).
        tonic::Code::Cancelled if s.message().contains("Timeout expired") => Code::DeadlineExceeded,
        c => Code::from_i32(c as i32).unwrap_or(Code::Unknown),
    };
    let message = if s.message().is_empty() { format!("{:?}", s.code()) } else { s.message().to_string() };
    Error::new(code, message)
}

/// The error a response body carries (`status_code`, `status_error_message`), if any.
pub fn from_body(code: i32, message: &str) -> Option<Error> {
    match Code::from_i32(code) {
        Some(Code::Ok) => None,
        Some(c) => Some(Error::new(c, message)),
        None => Some(Error::new(Code::Unknown, message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_cross_by_number_both_ways() {
        for code in Code::ALL.into_iter().filter(|c| *c != Code::Ok) {
            let e = Error::new(code, "boom");
            let back = from_status(&to_status(&e));
            assert_eq!(back.code, code);
            assert_eq!(back.message, "boom");
        }
        assert!(from_body(0, "").is_none());
        assert_eq!(from_body(9, "x").unwrap().code, Code::FailedPrecondition);
        assert_eq!(from_body(99, "x").unwrap().code, Code::Unknown);
    }

    #[test]
    fn transport_failures_are_unavailable_and_long_messages_are_cut() {
        let s = tonic::Status::new(tonic::Code::Unknown, "Stream removed");
        assert_eq!(from_status(&s).code, Code::Unavailable);
        let gone = tonic::Status::new(tonic::Code::Cancelled, "operation was canceled");
        assert_eq!(from_status(&gone).code, Code::Unavailable);
        let cancelled = tonic::Status::new(tonic::Code::Cancelled, "Step was cancelled");
        assert_eq!(from_status(&cancelled).code, Code::Cancelled);
        let long = Error::new(Code::Internal, "é".repeat(2000));
        let cut = to_status(&long);
        assert!(cut.message().len() <= 3072 && cut.message().chars().all(|c| c == 'é'));
    }
}
