//! `compose` and `reply`: from what to send to bytes on the socket.

use std::io::{self, IoSlice, Read, Write};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::conn::Back;
use super::exchange::{Exchange, Found, Step};

/// The reason phrase of a status the server sends.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        505 => "HTTP Version Not Supported",
        _ => "Internal Server Error",
    }
}

/// The text body of an error response: `404 Not Found\n`.
pub fn error_body(status: u16) -> Arc<[u8]> {
    format!("{status} {}\n", reason(status)).into_bytes().into()
}

thread_local! {
    /// The `Date` header value, formatted once per second per thread.
    static DATE: std::cell::RefCell<(u64, String)> = const { std::cell::RefCell::new((u64::MAX, String::new())) };
}

fn date() -> String {
    let now = SystemTime::now();
    let secs = now.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    DATE.with(|d| {
        let mut d = d.borrow_mut();
        if d.0 != secs {
            *d = (secs, httpdate::fmt_http_date(now));
        }
        d.1.clone()
    })
}

/// `compose`: the status line and headers of the response, into the
/// connection's output buffers (the body is shared, not copied). An error
/// from `parse` becomes a response that closes the connection.
pub fn compose(mut ex: Exchange) -> Exchange {
    let found = match std::mem::replace(&mut ex.step, Step::Send) {
        Step::Found(found) => found,
        Step::Fail(status) => Found {
            status,
            content_type: "text/plain; charset=utf-8",
            body: error_body(status),
            head_only: false,
            keep_alive: false,
        },
        other => {
            ex.step = other;
            return ex;
        }
    };
    let conn = &mut ex.conn;
    conn.close_after = !found.keep_alive;
    let mut head = std::mem::take(&mut conn.out_head);
    head.clear();
    let _ = write!(
        head,
        "HTTP/1.1 {} {}\r\nServer: ohua-web\r\nDate: {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n",
        found.status,
        reason(found.status),
        date(),
        found.content_type,
        found.body.len()
    );
    if found.status == 405 {
        head.extend_from_slice(b"Allow: GET, HEAD\r\n");
    }
    head.extend_from_slice(if found.keep_alive { b"\r\n" as &[u8] } else { b"Connection: close\r\n\r\n" });
    conn.out_head = head;
    conn.out_body = if found.head_only { Arc::from(&[][..]) } else { found.body };
    conn.written = 0;
    conn.write_started = None;
    ex
}

/// What `reply` did, for the server's statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// A response was written completely; its status and size.
    Answered {
        /// The status sent.
        status: u16,
        /// Bytes written for it.
        bytes: usize,
        /// The connection was closed after it.
        closed: bool,
    },
    /// The connection waits for more (a request's bytes or room to write).
    Waiting,
    /// The connection was closed (by the client, or for an error).
    Closed,
}

/// `reply`: write the response without blocking, then send the connection
/// home: to wait for its next request, to wait for room to write the rest,
/// or to be closed.
pub fn reply(ex: Exchange) -> Served {
    let Exchange { mut conn, step } = ex;
    let home = conn.home.clone();
    match step {
        Step::Send | Step::Flush => {}
        Step::Incomplete => {
            home.send(Back::Read(conn));
            return Served::Waiting;
        }
        _ => {
            drop(conn);
            home.send(Back::Closed);
            return Served::Closed;
        }
    }
    let status_bytes = conn.out_head.get(9..12).and_then(|s| std::str::from_utf8(s).ok()?.parse().ok());
    match write_out(&mut conn) {
        Ok(true) => {
            let bytes = conn.out_head.len() + conn.out_body.len();
            conn.served += 1;
            let status = status_bytes.unwrap_or(0);
            let closed = conn.close_after;
            if closed {
                linger_close(conn);
                home.send(Back::Closed);
            } else if conn.input.is_empty() {
                home.send(Back::Read(conn));
            } else {
                home.send(Back::Again(conn));
            }
            Served::Answered { status, bytes, closed }
        }
        Ok(false) => {
            conn.write_started.get_or_insert_with(Instant::now);
            home.send(Back::Write(conn));
            Served::Waiting
        }
        Err(_) => {
            drop(conn);
            home.send(Back::Closed);
            Served::Closed
        }
    }
}

/// Write what the socket takes; `true` once everything is written.
fn write_out(conn: &mut super::Conn) -> io::Result<bool> {
    while conn.unwritten() > 0 {
        let head = conn.out_head.len();
        let (h, b) = if conn.written < head {
            (&conn.out_head[conn.written..], &conn.out_body[..])
        } else {
            (&[][..], &conn.out_body[conn.written - head..])
        };
        match conn.stream.write_vectored(&[IoSlice::new(h), IoSlice::new(b)]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => conn.written += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Close after a response: end our side, then discard what the client has
/// already sent, so the kernel does not answer unread bytes with a reset
/// that could destroy the response before the client reads it.
fn linger_close(mut conn: super::Conn) {
    let _ = conn.stream.shutdown(std::net::Shutdown::Write);
    let mut sink = [0u8; 4096];
    for _ in 0..16 {
        match conn.stream.read(&mut sink) {
            Ok(n) if n > 0 => {}
            _ => break,
        }
    }
}
