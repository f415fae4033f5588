//! The value that flows through the server's loop body: a connection and
//! how far its current request has come.

use std::sync::Arc;

use super::{Conditions, Conn, ContentRange, Validators};

/// A connection and the step its current exchange is at. Each operator
/// does its part for the steps it knows and passes the others on.
pub struct Exchange {
    pub(crate) conn: Conn,
    pub(crate) step: Step,
}

/// How far an exchange has come.
pub enum Step {
    /// `read`: the connection holds bytes of a request.
    Input,
    /// `read`: a response is partly written; finish it.
    Flush,
    /// `parse`: the request is not complete yet; wait for more bytes.
    Incomplete,
    /// `parse`: a well-formed `GET` or `HEAD`.
    Request(Request),
    /// `load`: what to send.
    Found(Found),
    /// Any step: answer with this error status and close the connection.
    Fail(u16),
    /// `compose`: the response is in the connection's output buffers.
    Send,
    /// The client closed the connection, or it failed: drop it.
    Gone,
}

/// A parsed request the server can answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `HEAD` (headers only) or `GET`.
    pub head_only: bool,
    /// The decoded path, without query, relative to the document root:
    /// segments joined by `/`, none of them empty, `.` or `..`.
    pub path: String,
    /// The target ended in `/`: `path` must be a directory (its
    /// `index.html` is served); a file gets 404.
    pub dir: bool,
    /// Keep the connection open after the response.
    pub keep_alive: bool,
    /// `HTTP/1.0` (0) or `HTTP/1.1` (1).
    pub minor_version: u8,
    /// `If-None-Match`, `If-Modified-Since`, `Range`, `If-Range`.
    pub conditions: Conditions,
}

/// A resource to send.
#[derive(Debug)]
pub struct Found {
    /// The response status (200, or an error with a short text body).
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body (not sent for `HEAD`, but its length is).
    pub body: Body,
    /// From the request.
    pub head_only: bool,
    /// From the request; an error status closes the connection anyway.
    pub keep_alive: bool,
    /// From the request: an HTTP/1.0 client that asked to keep the
    /// connection is told it is kept (`Connection: keep-alive`), else it
    /// does not reuse it.
    pub minor_version: u8,
    /// A file's `Last-Modified` and `ETag` (on 200, 206, 304 and 416).
    pub validators: Option<Validators>,
    /// The `Content-Range` of a 206 or 416.
    pub content_range: Option<ContentRange>,
}

/// The body of a response: bytes in memory, a large file left open to be
/// streamed, or (after the zero-copy switch, [`super::switch_to_sendfile`])
/// any file left open for `reply` to send from the kernel.
///
/// The two `load`s and the two `reply`s are mutually dependent through
/// [`Body::File`], version 2's packet: the default `reply` predates it and
/// sends only what version 1 of `load` makes (bytes, and streams of large
/// files); for a [`Body::File`] it sends the head and no body. Only
/// [`super::reply_sendfile`] sends it (announced, `X-Ohua-Body: sendfile`).
#[derive(Debug)]
pub enum Body {
    /// In memory: a small file read by the default `load`, a cached file,
    /// an error page.
    Bytes(Arc<[u8]>),
    /// A file over [`super::Root::stream_above`], opened by the default
    /// `load` and not read: either `reply` streams it from the file
    /// (`sendfile(2)` on Linux), without a copy in the server's memory.
    Stream(OpenFile),
    /// An open file, not read ([`super::Files::load_zero_copy`]): only
    /// [`super::reply_sendfile`] sends it.
    File(OpenFile),
}

impl Body {
    /// The body's length in bytes (its `Content-Length`).
    pub fn len(&self) -> u64 {
        match self {
            Body::Bytes(b) => b.len() as u64,
            Body::Stream(f) | Body::File(f) => f.len,
        }
    }

    /// Whether the body is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes `first..=last` of the body (a range request; within it):
    /// copied from memory (a small file), or the same open file from
    /// another offset.
    pub fn part(self, first: u64, last: u64) -> Body {
        match self {
            Body::Bytes(b) => Body::Bytes(Arc::from(&b[first as usize..=last as usize])),
            Body::Stream(f) => Body::Stream(f.part(first, last)),
            Body::File(f) => Body::File(f.part(first, last)),
        }
    }
}

/// A file opened by `load` for `reply` to send, and its length when it was
/// opened (the `Content-Length` sent; a file that shrinks meanwhile ends
/// the connection rather than send a short body).
#[derive(Debug)]
pub struct OpenFile {
    /// The file, open for reading.
    pub file: std::fs::File,
    /// The length of the body: the file's length when opened, or of the
    /// range sent.
    pub len: u64,
    /// Where the body starts in the file (a range request).
    pub offset: u64,
    /// Version 2's file ([`Body::File`], set by `compose`): only
    /// `reply_sendfile` sends it, and announces it.
    pub(crate) zero_copy: bool,
    /// `reply_sendfile` has announced it in the head
    /// (`X-Ohua-Body: sendfile`); a response resumed after a partial write
    /// is not announced twice.
    pub(crate) announced: bool,
}

impl OpenFile {
    /// `file`, of `len` bytes.
    pub fn new(file: std::fs::File, len: u64) -> Self {
        OpenFile { file, len, offset: 0, zero_copy: false, announced: false }
    }

    /// Bytes `first..=last` of the body: the same file from another offset.
    fn part(self, first: u64, last: u64) -> OpenFile {
        OpenFile { offset: self.offset + first, len: last - first + 1, ..self }
    }
}

impl Exchange {
    /// The path requested, if this exchange holds a parsed request.
    pub fn path(&self) -> Option<&str> {
        match &self.step {
            Step::Request(r) => Some(&r.path),
            _ => None,
        }
    }
}
