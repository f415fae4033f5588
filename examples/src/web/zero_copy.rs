//! The zero-copy switch as a live update: the dissertation's NIO switch
//! (§5.3.2, Figs. 5.2 and 5.14, measured in Fig. 5.20).
//!
//! The default `load` reads a small file (up to
//! [`Root::stream_above`](super::Root::stream_above), 256 KiB) into memory,
//! and caches it if the cache is on; `reply` writes those bytes to the
//! socket: the file is copied from the page cache into the server's memory,
//! then from there into the socket. A larger file is not read: the default
//! `load` passes it on open ([`Body::Stream`](super::Body::Stream)) and the
//! default `reply` streams it with `sendfile(2)`, so a slow client costs no
//! buffer. Version 2 of `load` ([`Files::load_zero_copy`]) opens every
//! file, small ones too, and passes the open handle and its length on as
//! version 2's packet ([`Body::File`](super::Body::File)); version 2 of
//! `reply` ([`reply_sendfile`](super::reply_sendfile)) writes the head and then has the kernel send
//! the body straight from the page cache, and says so in the head
//! ([`SENDFILE_HEADER`]). So what the switch changes: small files too go by
//! `sendfile`, the in-memory cache is dropped ([`Files::without_cache`]),
//! and every file's response is announced. Large files were streamed
//! before it and still are.
//!
//! The two are mutually dependent: the default `reply` sends bodies in
//! memory and streams of large files, and knows nothing of version 2's
//! packet: for one it sends the head with the file's `Content-Length` and
//! no body (the client waits for a body that never comes, or reads the
//! next response as this one's body). Both are replaced by one [`Update`],
//! so they switch at one cut: every request before it is loaded and sent
//! by version 1, every one after it by version 2, and no packet loaded by
//! one version reaches the other version's `reply`.
//!
//! One thing crosses the cut outside the dataflow: a response that version
//! 1 had only partly written when the socket was full (a body in memory,
//! or a large file's stream) waits in the poller and is finished after the
//! cut, by version 2. [`reply_sendfile`](super::reply_sendfile) therefore also writes bodies in
//! memory (as it must for error pages) and streams large files as the
//! default `reply` does, from the offset reached (the count of bytes sent
//! travels with the connection); it announces only version 2's packets,
//! and only before the first byte of a response is written, so a resumed
//! response is never changed midway. The switch is safe in that direction.
//! There is no switch back: a version-2 file partly sent and resumed by
//! the default `reply` would not be finished.

use ohua::{replace, Update};

use super::conn::Conn;
use super::respond;
use super::Files;

/// The header [`reply_sendfile`](super::reply_sendfile) adds to a response
/// whose body it sends from a file the zero-copy `load` opened:
/// `X-Ohua-Body: sendfile` (on Linux; `copy` where the fallback copy loop
/// sends it). Responses of the default server never carry it (not even
/// its streams of large files, which also go by `sendfile`), so a client
/// can tell which version sent each response.
pub const SENDFILE_HEADER: &str = "X-Ohua-Body";

#[cfg(target_os = "linux")]
const ANNOUNCE: &[u8] = b"X-Ohua-Body: sendfile\r\n";
#[cfg(not(target_os = "linux"))]
const ANNOUNCE: &[u8] = b"X-Ohua-Body: copy\r\n";

/// The zero-copy switch: `load` and `reply` replaced by their version 2
/// ([`Files::load_zero_copy`], [`reply_sendfile`](super::reply_sendfile))
/// at one cut, and the `load` operator's cache dropped
/// ([`Files::without_cache`]: no file is read into memory any more; small
/// files too go by `sendfile`).
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

/// Announce a version-2 body in the head ([`SENDFILE_HEADER`]), before
/// anything of the response is written; whether it is announced. A file
/// the default `load` left open to stream ([`super::Body::Stream`]) is not:
/// the header says the response is version 2's from `load` to `reply`.
pub(crate) fn announce(conn: &mut Conn) -> bool {
    let Conn { out_head, out_file, written, .. } = conn;
    let Some(file) = out_file.as_mut().filter(|f| f.zero_copy) else { return false };
    if !file.announced && *written == 0 {
        // Before the blank line that ends the head.
        let end = out_head.len() - 2;
        out_head.splice(end..end, ANNOUNCE.iter().copied());
        file.announced = true;
    }
    file.announced
}
