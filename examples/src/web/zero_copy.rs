//! The zero-copy switch as a live update: the dissertation's NIO switch
//! (§5.3.2, Figs. 5.2 and 5.14, measured in Fig. 5.20).
//!
//! The default `load` reads a file into memory and `reply` writes those
//! bytes to the socket: the file is copied from the page cache into the
//! server's memory, then from there into the socket. Version 2 of `load`
//! ([`Files::load_zero_copy`]) only opens the file and passes the open
//! handle and its length on; version 2 of `reply` ([`reply_sendfile`])
//! writes the head and then has the kernel send the body straight from the
//! page cache with `sendfile(2)`.
//!
//! The two are mutually dependent: the default `reply` sends what is in
//! memory, so for a version-2 packet it sends the head with the file's
//! `Content-Length` and no body (the client waits for a body that never
//! comes, or reads the next response as this one's body). Both are
//! replaced by one [`Update`], so they switch at one cut: every request
//! before it is loaded and sent by version 1, every one after it by
//! version 2, and no packet loaded by one version reaches the other
//! version's `reply`.
//!
//! One thing crosses the cut outside the dataflow: a response that version
//! 1 had only partly written when the socket was full waits in the poller
//! and is finished after the cut, by version 2. [`reply_sendfile`]
//! therefore also writes bodies in memory (as it must for error pages), so
//! the switch is safe in that direction. There is no switch back: a
//! partly sent file resumed by the default `reply` would not be finished.

use std::io;
use std::os::fd::AsRawFd;

use ohua::{replace, Update};

use super::conn::Conn;
use super::respond;
use super::Files;

/// The header [`reply_sendfile`](super::reply_sendfile) adds to a response
/// whose body it sends from an open file: `X-Ohua-Body: sendfile` (on
/// Linux; `copy` where the fallback copy loop sends it). Responses of the
/// default server never carry it, so a client can tell which version sent
/// each response.
pub const SENDFILE_HEADER: &str = "X-Ohua-Body";

#[cfg(target_os = "linux")]
const ANNOUNCE: &[u8] = b"X-Ohua-Body: sendfile\r\n";
#[cfg(not(target_os = "linux"))]
const ANNOUNCE: &[u8] = b"X-Ohua-Body: copy\r\n";

/// The zero-copy switch: `load` and `reply` replaced by their version 2
/// ([`Files::load_zero_copy`], [`reply_sendfile`](super::reply_sendfile))
/// at one cut, and the `load` operator's cache dropped
/// ([`Files::without_cache`]: the files are no longer read into memory).
///
/// ```no_run
/// # fn demo(service: &ohua::Service<ohua_examples::web::ServeStats>) {
/// let report = service.update(ohua_examples::web::switch_to_sendfile()).expect("switched");
/// println!("every operator past the cut after {:?}", report.until_complete);
/// # }
/// ```
pub fn switch_to_sendfile() -> Update {
    Update::new()
        .transform(|old: &Files| Ok::<_, String>(old.without_cache()))
        .replace(replace!(Files::load => Files::load_zero_copy))
        .replace(replace!(respond::reply => respond::reply_sendfile))
}

/// Send the response of `conn` whose body is its open file: the head (with
/// [`SENDFILE_HEADER`] added the first time), then the file with
/// `sendfile(2)`, as far as the socket takes them; `true` once everything
/// is sent. A file that ended early (it shrank after it was opened) is an
/// error: the connection is closed rather than a short body sent.
pub(crate) fn send_file(conn: &mut Conn) -> io::Result<bool> {
    let Conn { stream, out_head, out_file, written, .. } = conn;
    let file = out_file.as_mut().expect("send_file: a response with a file");
    if !file.announced {
        // Before the blank line that ends the head; nothing is written yet.
        let end = out_head.len() - 2;
        out_head.splice(end..end, ANNOUNCE.iter().copied());
        file.announced = true;
    }
    let head = out_head.len();
    let total = head as u64 + file.len;
    while (*written as u64) < total {
        let sent = if *written < head {
            send_head(stream, &out_head[*written..], file.len > 0)
        } else {
            let offset = (*written - head) as u64;
            send_body(stream, &file.file, file.offset + offset, file.len - offset)
        };
        match sent {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => *written += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Write (part of) the head; `more`: the body follows, so the kernel may
/// hold a short head back to go out in one segment with the body's start
/// (`MSG_MORE`; the last `sendfile` call pushes).
#[cfg(target_os = "linux")]
fn send_head(stream: &mio::net::TcpStream, bytes: &[u8], more: bool) -> io::Result<usize> {
    let flags = libc::MSG_NOSIGNAL | if more { libc::MSG_MORE } else { 0 };
    // SAFETY: a valid socket descriptor and a buffer of `bytes.len()` bytes.
    let n = unsafe { libc::send(stream.as_raw_fd(), bytes.as_ptr().cast(), bytes.len(), flags) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

#[cfg(not(target_os = "linux"))]
fn send_head(stream: &mio::net::TcpStream, bytes: &[u8], _more: bool) -> io::Result<usize> {
    use std::io::Write;
    (&*stream).write(bytes)
}

/// Send up to `count` bytes of `file` from `offset` with `sendfile(2)`: the
/// kernel moves them from the page cache to the socket, without a copy
/// through this process. The file's own position is not used (so it needs
/// no seek, and a resumed send starts at `offset`).
#[cfg(target_os = "linux")]
fn send_body(stream: &mio::net::TcpStream, file: &std::fs::File, offset: u64, count: u64) -> io::Result<usize> {
    let mut off = libc::off_t::try_from(offset).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // The kernel sends at most 0x7ffff000 bytes per call anyway.
    let count = count.min(1 << 30) as usize;
    // SAFETY: valid socket and file descriptors, and a valid offset to update.
    let n = unsafe { libc::sendfile(stream.as_raw_fd(), file.as_raw_fd(), &mut off, count) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Without `sendfile(2)`: a copy loop through a buffer (read at `offset`,
/// write what the socket takes; the rest is read again next time).
#[cfg(not(target_os = "linux"))]
fn send_body(stream: &mio::net::TcpStream, file: &std::fs::File, offset: u64, count: u64) -> io::Result<usize> {
    use std::io::Write;
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; count.min(64 * 1024) as usize];
    let got = file.read_at(&mut buf, offset)?;
    if got == 0 {
        return Ok(0);
    }
    (&*stream).write(&buf[..got])
}
