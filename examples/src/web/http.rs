//! `read` and `parse`: from a readable connection to a request.

use std::io::{self, Read};
use std::time::Instant;

use super::exchange::{Exchange, Request, Step};
use super::{parse_target, Conditions, Conn, Limits, Target, Wants};

/// `read`: take the bytes a readable connection holds, without blocking
/// (the poller yields a connection only when it has bytes, or has closed).
/// A connection with a response still to write passes on as
/// [`Step::Flush`].
pub fn read(mut conn: Conn) -> Exchange {
    if conn.wants == Wants::Write {
        return Exchange { conn, step: Step::Flush };
    }
    let max = conn.limits.max_head;
    let mut chunk = [0u8; 4096];
    let step = loop {
        // Read one byte past the bound, so a head that is too long is seen
        // as such by `parse` without reading more.
        if conn.input.len() > max {
            break Step::Input;
        }
        let room = (max + 1 - conn.input.len()).min(chunk.len());
        match conn.stream.read(&mut chunk[..room]) {
            Ok(0) if conn.input.is_empty() => break Step::Gone,
            // Half a request and the end: `parse` answers what it can
            // (pipelined requests before it, then 400 for the rest).
            Ok(0) => {
                conn.eof = true;
                break Step::Input;
            }
            Ok(n) => {
                if conn.input.is_empty() {
                    conn.head_started = Some(Instant::now());
                }
                conn.input.extend_from_slice(&chunk[..n]);
                // A short read took what the socket had: stop without the
                // read that would only say so (`EAGAIN`). Edge-triggered
                // readiness loses nothing: the poller re-arms the
                // connection when it comes back, which reports bytes that
                // arrived meanwhile.
                if n < room {
                    break Step::Input;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                break if conn.input.is_empty() { Step::Incomplete } else { Step::Input };
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break Step::Gone,
        }
    };
    Exchange { conn, step }
}

/// Methods the server knows but does not allow (405); any other method is
/// not implemented (501).
const KNOWN_METHODS: [&str; 7] = ["POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT"];

/// `parse`: parse the request at the start of the connection's input
/// (`httparse`), and remove it from the input. Anything the server cannot
/// answer becomes [`Step::Fail`] with the status to send.
pub fn parse(mut ex: Exchange) -> Exchange {
    if !matches!(ex.step, Step::Input) {
        return ex;
    }
    ex.step = match parse_request(&ex.conn.input, &ex.conn.limits) {
        Ok(Some((request, len))) => {
            ex.conn.input.drain(..len);
            ex.conn.head_started = if ex.conn.input.is_empty() { None } else { Some(Instant::now()) };
            Step::Request(request)
        }
        // The client ended its side: the rest never comes.
        Ok(None) if ex.conn.eof => Step::Fail(400),
        Ok(None) => Step::Incomplete,
        Err(status) => Step::Fail(status),
    };
    ex
}

/// The request at the start of `input` and the length of its head, `None`
/// if it is not complete yet (then `input` is within the limits: a longer
/// one is an error). The pure part of [`parse`], fuzzed by
/// `tests/web_server_fuzz.rs`.
///
/// # Errors
///
/// The status to answer: 400 malformed, 403 a `..` segment, 405 a known
/// method other than `GET`/`HEAD`, 413 a body, 414 a request line over
/// [`Limits::max_request_line`], 431 a head over [`Limits::max_head`] or
/// with more than [`Limits::max_headers`] headers, 501 an unknown method or
/// a transfer coding, 505 not HTTP/1.x.
///
/// # Example
///
/// ```
/// use ohua_examples::web::{parse_request, Limits};
/// let l = Limits::default();
/// let (req, len) = parse_request(b"GET /a/b HTTP/1.1\r\nHost: x\r\n\r\nGET", &l).unwrap().unwrap();
/// assert_eq!((req.path.as_str(), len), ("a/b", 30));
/// assert_eq!(parse_request(b"GET /a/b HTTP/1.1\r\nHo", &l), Ok(None));
/// assert_eq!(parse_request(b"GET /../x HTTP/1.1\r\nHost: x\r\n\r\n", &l), Err(403));
/// ```
pub fn parse_request(input: &[u8], limits: &Limits) -> Result<Option<(Request, usize)>, u16> {
    let line_end = input.iter().position(|&b| b == b'\n');
    if line_end.map_or(input.len(), |e| e) > limits.max_request_line {
        return Err(414);
    }
    let mut headers = vec![httparse::EMPTY_HEADER; limits.max_headers];
    let mut req = httparse::Request::new(&mut headers);
    let len = match req.parse(input) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) if input.len() > limits.max_head => return Err(431),
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => return Err(431),
        Err(httparse::Error::Version) => return Err(505),
        Err(_) => return Err(400),
    };
    if len > limits.max_head {
        return Err(431);
    }
    let (Some(method), Some(target), Some(minor_version)) = (req.method, req.path, req.version) else {
        return Err(400);
    };
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        m if KNOWN_METHODS.contains(&m) => return Err(405),
        _ => return Err(501),
    };
    let mut hosts = 0;
    let mut conditions = Conditions::default();
    let mut keep_alive = minor_version == 1;
    for h in req.headers.iter() {
        let name = h.name;
        if name.eq_ignore_ascii_case("host") {
            hosts += 1;
        } else if name.eq_ignore_ascii_case("connection") {
            let v = std::str::from_utf8(h.value).map_err(|_| 400u16)?;
            for token in v.split(',').map(str::trim) {
                if token.eq_ignore_ascii_case("close") {
                    keep_alive = false;
                } else if token.eq_ignore_ascii_case("keep-alive") {
                    keep_alive = true;
                }
            }
        } else if conditions.take(name, h.value) {
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(501); // a body on GET/HEAD: not supported
        } else if name.eq_ignore_ascii_case("content-length") {
            let v = std::str::from_utf8(h.value).ok().and_then(|v| v.trim().parse::<u64>().ok()).ok_or(400u16)?;
            if v != 0 {
                return Err(413); // a body on GET/HEAD: not supported
            }
        }
    }
    if hosts > 1 || (minor_version == 1 && hosts == 0) {
        return Err(400);
    }
    let Target { path, dir } = parse_target(target)?;
    Ok(Some((Request { head_only, path, dir, keep_alive, minor_version, conditions }, len)))
}
