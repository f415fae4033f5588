//! `compose` and `reply`: from what to send to bytes on the socket.

use std::io::{self, IoSlice, Read, Write};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::conn::Back;
use super::exchange::{Body, Exchange, Found, OpenFile, Step};
use super::{Served, Wants};

/// The reason phrase of a status the server sends.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        206 => "Partial Content",
        304 => "Not Modified",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        414 => "URI Too Long",
        416 => "Range Not Satisfiable",
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
/// connection's output buffers (the body is shared, not copied; an open
/// file is handed on as it is). An error from `parse` becomes a response
/// that closes the connection.
pub fn compose(mut ex: Exchange) -> Exchange {
    let found = match std::mem::replace(&mut ex.step, Step::Send) {
        Step::Found(found) => found,
        Step::Fail(status) => Found {
            status,
            content_type: "text/plain; charset=utf-8",
            body: Body::Bytes(error_body(status)),
            head_only: false,
            keep_alive: false,
            minor_version: 1,
            validators: None,
            content_range: None,
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
    let _ =
        write!(head, "HTTP/1.1 {} {}\r\nServer: ohua-web\r\nDate: {}\r\n", found.status, reason(found.status), date());
    // A 304 has no body, and says nothing of the one it stands for.
    if found.status != 304 {
        let _ = write!(head, "Content-Type: {}\r\nContent-Length: {}\r\n", found.content_type, found.body.len());
    }
    if let Some(v) = &found.validators {
        v.write(&mut head);
        if matches!(found.status, 200 | 206) {
            head.extend_from_slice(b"Accept-Ranges: bytes\r\n");
        }
    }
    if let Some(range) = found.content_range {
        let _ = write!(head, "Content-Range: {range}\r\n");
    }
    if found.status == 405 {
        head.extend_from_slice(b"Allow: GET, HEAD\r\n");
    }
    head.extend_from_slice(match (found.keep_alive, found.minor_version) {
        (false, _) => b"Connection: close\r\n\r\n",
        // HTTP/1.0 closes unless the response says otherwise.
        (true, 0) => b"Connection: keep-alive\r\n\r\n",
        (true, _) => b"\r\n" as &[u8],
    });
    conn.out_head = head;
    (conn.out_body, conn.out_file) = match found.body {
        _ if found.head_only => (Arc::from(&[][..]), None),
        Body::Bytes(bytes) => (bytes, None),
        Body::Stream(file) => (Arc::from(&[][..]), Some(file)),
        Body::File(file) => (Arc::from(&[][..]), Some(OpenFile { zero_copy: true, ..file })),
    };
    conn.written = 0;
    conn.write_started = None;
    ex
}

/// `reply`: write the response without blocking, then send the connection
/// home: to wait for its next request, to wait for room to write the rest,
/// or to be closed.
///
/// It sends the head and the body: bytes in memory, or a large file
/// streamed from the open file ([`Body::Stream`]: `sendfile(2)` on Linux,
/// resumed at its offset when the socket has room again). A body of the
/// zero-copy `load` ([`Body::File`],
/// [`Files::load_zero_copy`](super::Files::load_zero_copy)) is not sent:
/// that needs [`reply_sendfile`], and the two switch together
/// ([`super::switch_to_sendfile`]).
#[ohua::updatable]
pub fn reply(ex: Exchange) -> Served {
    finish(ex, false)
}

/// `reply`, version 2 (zero-copy): as [`reply`], but a body of the
/// zero-copy `load` ([`Body::File`]) is sent too, by the kernel with
/// `sendfile(2)` after the head (a copy loop on systems without it), and
/// the head announces it with the header `X-Ohua-Body: sendfile`
/// ([`super::SENDFILE_HEADER`]). Bodies in memory and streams of large
/// files (what the default `load` or a cache produced, error pages) are
/// sent as [`reply`] sends them, unannounced.
pub fn reply_sendfile(ex: Exchange) -> Served {
    finish(ex, true)
}

/// Both `reply`s: `zero_copy` also sends (and announces) a body of the
/// zero-copy `load`.
fn finish(ex: Exchange, zero_copy: bool) -> Served {
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
    let file_len = conn.out_file.as_ref().filter(|f| zero_copy || !f.zero_copy).map(|f| f.len);
    let announced = zero_copy && super::zero_copy::announce(&mut conn);
    let before = conn.written;
    let sent = match file_len {
        Some(_) => super::body::send_file(&mut conn),
        None => write_out(&mut conn),
    };
    match sent {
        Ok(true) => {
            let body = file_len.map_or(conn.out_body.len(), |len| len as usize);
            let bytes = conn.out_head.len() + body;
            conn.out_file = None;
            conn.served += 1;
            // Done writing: a connection that waited for room is yielded
            // again for its next request (`read` would take it for a flush).
            conn.wants = Wants::Read;
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
            let streamed = file_len.is_some() && !announced;
            Served::Answered { status, bytes, closed, sendfile: announced, streamed }
        }
        Ok(false) => {
            // The write deadline counts from the last write that made
            // progress: a large file to a client that reads is not cut off.
            if conn.written != before || conn.write_started.is_none() {
                conn.write_started = Some(Instant::now());
            }
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

/// Write what the socket takes of the head and the body in memory; `true`
/// once everything is written.
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
