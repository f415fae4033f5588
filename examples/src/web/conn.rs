//! A client connection, and the way back to the poller that waits on it.
//!
//! A connection travels through the algorithm as a value: the poller
//! ([`super::Ready`]) yields it when it is readable (or, with a response
//! pending, writable), the operators read, parse, load, compose and write on
//! it, and `reply` sends it home to the poller to wait for its next request
//! ([`Home`]). While it travels, no other operator can touch it, so none of
//! its buffers needs a lock.

use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Sender;
use mio::net::TcpStream;
use mio::{Token, Waker};

use super::Limits;

/// What a connection waits for while it is parked in the poller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wants {
    /// The next request's bytes.
    Read,
    /// Room in the socket for the rest of a response.
    Write,
}

/// An open client connection and the bytes in flight on it.
pub struct Conn {
    pub(crate) token: Token,
    pub(crate) stream: TcpStream,
    /// Bytes read and not yet parsed (at most [`Limits::max_head`]).
    pub(crate) input: Vec<u8>,
    /// When the first byte of the request now being read arrived.
    pub(crate) head_started: Option<Instant>,
    /// The client ended its side (`read` saw end of stream): bytes in
    /// `input` that do not make a request never will, so `parse` answers
    /// them with 400 instead of waiting (epoll would report the end again
    /// and again, a busy loop until the head deadline).
    pub(crate) eof: bool,
    /// The response being written: head, body, and how much is written.
    pub(crate) out_head: Vec<u8>,
    pub(crate) out_body: Arc<[u8]>,
    /// A body to send from an open file instead of `out_body`, from the
    /// offset `written` has reached (set by `compose` for a
    /// [`super::Body::Stream`], which either `reply` streams, or a
    /// [`super::Body::File`], which only [`super::reply_sendfile`] sends).
    /// Only an open file and a position: no copy of the file is held.
    pub(crate) out_file: Option<super::OpenFile>,
    pub(crate) written: usize,
    /// When the current write started waiting for the client.
    pub(crate) write_started: Option<Instant>,
    /// Close once the response is written (an error, `Connection: close`).
    pub(crate) close_after: bool,
    pub(crate) wants: Wants,
    /// Requests answered on this connection.
    pub(crate) served: u64,
    pub(crate) limits: Limits,
    pub(crate) home: Home,
}

impl Conn {
    pub(crate) fn new(token: Token, stream: TcpStream, limits: Limits, home: Home) -> Self {
        Conn {
            token,
            stream,
            input: Vec::new(),
            head_started: None,
            eof: false,
            out_head: Vec::new(),
            out_body: Arc::from(&[][..]),
            out_file: None,
            written: 0,
            write_started: None,
            close_after: false,
            wants: Wants::Read,
            served: 0,
            limits,
            home,
        }
    }

    /// Bytes of the response in memory (head and `out_body`) not yet
    /// written.
    pub(crate) fn unwritten(&self) -> usize {
        (self.out_head.len() + self.out_body.len()).saturating_sub(self.written)
    }
}

/// Why a connection went back to the poller.
pub(crate) enum Back {
    /// Wait until it is readable.
    Read(Conn),
    /// It already holds the start of its next request (a pipelining
    /// client): serve it again without waiting.
    Again(Conn),
    /// Wait until it is writable.
    Write(Conn),
    /// It was closed.
    Closed,
}

/// The way from the operators back to the poller: a channel, and a waker
/// for when the poller sleeps in `epoll_wait`.
#[derive(Clone)]
pub(crate) struct Home {
    tx: Sender<Back>,
    waker: Arc<Waker>,
    /// Set by the poller just before it sleeps; the sender that clears it
    /// wakes the poller, others need no system call.
    sleeping: Arc<AtomicBool>,
}

impl Home {
    pub(crate) fn new(tx: Sender<Back>, waker: Arc<Waker>, sleeping: Arc<AtomicBool>) -> Self {
        Home { tx, waker, sleeping }
    }

    /// Send `back` to the poller. A poller that has stopped drops it (and
    /// with it the connection, which closes it).
    pub(crate) fn send(&self, back: Back) {
        if self.tx.send(back).is_err() {
            return;
        }
        // Dekker with the poller (`Ready::sleep`): it sets `sleeping`, then
        // looks at the channel; we fill the channel, then look at `sleeping`.
        // One of the two sees the other's write.
        fence(Ordering::SeqCst);
        if self.sleeping.swap(false, Ordering::SeqCst) {
            // The poller checked the channel before this send and sleeps (or
            // is about to): wake it. A failed wake means the poll is gone.
            let _ = self.waker.wake();
        }
    }
}
