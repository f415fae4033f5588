//! Sending a response body from an open file, by either `reply`: large
//! files of the default `load` ([`super::Body::Stream`]) and, after the
//! zero-copy switch, every file ([`super::Body::File`]).
//!
//! On Linux the kernel moves the bytes from the page cache to the socket
//! (`sendfile(2)`); elsewhere a copy loop goes through a buffer of at most
//! 64 KiB per call. Either way the server holds no copy of the file: a
//! client that reads slowly costs an open file and a position, and the
//! poller waits for room to write the rest.

use std::io;
use std::os::fd::AsRawFd;

use super::conn::Conn;

/// Send the response of `conn` whose body is its open file: the head, then
/// the file with `sendfile(2)`, as far as the socket takes them; `true`
/// once everything is sent. `conn.written` counts what is sent, so a call
/// after the socket was full resumes at the head's or the file's offset.
/// A file that ended early (it shrank after it was opened) is an error:
/// the connection is closed rather than a short body sent.
pub(crate) fn send_file(conn: &mut Conn) -> io::Result<bool> {
    let Conn { stream, out_head, out_file, written, .. } = conn;
    let file = out_file.as_ref().expect("send_file: a response with a file");
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
