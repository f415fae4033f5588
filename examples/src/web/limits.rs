//! The server's bounds: how much a client may send, how long it may take,
//! and how many clients are served at once.

use std::time::Duration;

/// Bounds on connections and requests. Every buffer the server keeps per
/// connection is bounded by these, and every wait has a deadline, so a
/// client cannot make the server grow or stall for others.
///
/// # Example
///
/// ```
/// use ohua_examples::web::Limits;
/// let l = Limits { max_connections: 64, ..Limits::default() };
/// assert_eq!(l.max_head, 16 * 1024);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Open connections at most. At the bound, a new client closes the
    /// connection idle longest (no request in progress), as nginx does;
    /// with none idle, it waits in the listen backlog until one closes.
    pub max_connections: usize,
    /// The longest request line (method, target, version); longer: 414.
    pub max_request_line: usize,
    /// The longest request head (request line and headers); longer: 431.
    pub max_head: usize,
    /// Headers per request at most; more: 431.
    pub max_headers: usize,
    /// Time from the first byte of a request to its last header byte
    /// (slowloris); then the connection is closed.
    pub head_timeout: Duration,
    /// Time a kept-alive connection may stay idle between requests.
    pub idle_timeout: Duration,
    /// Time a response may wait for a client that does not read it: from
    /// the last write that made progress (as nginx's `send_timeout`), so a
    /// large file is not cut off from a client that keeps reading it.
    pub write_timeout: Duration,
    /// The largest file `load` reads into memory (and caches): a larger
    /// one is streamed from the open file, so a client that reads it
    /// slowly costs no buffer in the server, and a file of any size is
    /// served ([`super::Root::stream_above`]; 256 KiB).
    pub stream_above: u64,
    /// The largest file [`super::Root::read`] reads into memory; larger
    /// ones are 500 there. The server's `load` does not use it: files over
    /// `stream_above` are streamed, at any size ([`super::Root::max_file`]).
    pub max_file: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 1024,
            max_request_line: 8 * 1024,
            max_head: 16 * 1024,
            max_headers: 64,
            head_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(10),
            stream_above: 256 * 1024,
            max_file: 64 * 1024 * 1024,
        }
    }
}
