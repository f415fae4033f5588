//! Admitting clients: `accept`, and at the connection bound, room made for
//! a new client by closing the connection that has been idle longest, as
//! nginx reuses its keep-alive connections: otherwise
//! [`Limits::max_connections`](crate::web::Limits) clients that
//! keep idle connections open lock every new client out until the idle
//! timeout (30 s). Connections with a request in progress are never closed
//! for this.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::os::fd::AsRawFd;
use std::time::Instant;

use mio::net::TcpListener;
use mio::{Interest, Token};

use super::Ready;
use crate::web::{Conn, Wants};

impl Ready {
    /// Accept clients until the backlog is empty or the bound is reached.
    pub(super) fn accept(&mut self) {
        loop {
            if self.open >= self.limits.max_connections && !self.make_room() {
                self.accept_paused = true;
                return;
            }
            match self.listener.accept() {
                Ok((mut stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    let token = Token(self.next_token);
                    self.next_token += 1;
                    if self.poll.registry().register(&mut stream, token, Interest::READABLE).is_err() {
                        continue;
                    }
                    self.open += 1;
                    let conn = Conn::new(token, stream, self.limits, self.home.clone());
                    let deadline = Instant::now() + self.limits.idle_timeout;
                    self.parked.insert(token, (conn, deadline));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.accept_paused = false;
                    return;
                }
                // A client that gave up before we accepted it: next.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::Interrupted
                    ) => {}
                // Out of file descriptors: try again when a connection
                // closes.
                Err(_) => {
                    self.accept_paused = true;
                    return;
                }
            }
        }
    }

    /// At the bound: close the connection idle longest, if a client waits
    /// and one is idle; whether room was made.
    fn make_room(&mut self) -> bool {
        if !client_waiting(&self.listener) {
            return false;
        }
        match take_oldest_idle(&mut self.parked, &mut self.queue) {
            Some(idle) => {
                drop(idle); // closes it
                self.open -= 1;
                true
            }
            None => false,
        }
    }
}

/// Whether a client waits in the listen backlog (so closing an idle
/// connection admits it, rather than closing one for nobody).
fn client_waiting(listener: &TcpListener) -> bool {
    let mut fd = libc::pollfd { fd: listener.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid `pollfd`, no wait.
    let n = unsafe { libc::poll(&mut fd, 1, 0) };
    n > 0 && fd.revents & libc::POLLIN != 0
}

/// Take the parked connection idle longest: waiting for a request, with no
/// byte of one yet. Its deadline is when it was parked plus the idle
/// timeout, the same for all, so the earliest deadline is the oldest.
///
/// One whose request has just arrived (epoll has not said so yet) is not
/// idle: it goes to `queue` to be served, and the next oldest is taken.
fn take_oldest_idle(parked: &mut HashMap<Token, (Conn, Instant)>, queue: &mut VecDeque<Conn>) -> Option<Conn> {
    loop {
        let token = parked
            .iter()
            .filter(|(_, (c, _))| c.wants == Wants::Read && c.head_started.is_none() && c.input.is_empty())
            .min_by_key(|(_, (_, deadline))| *deadline)
            .map(|(t, _)| *t)?;
        let (conn, _) = parked.remove(&token)?;
        if has_bytes(&conn) {
            queue.push_back(conn);
        } else {
            return Some(conn);
        }
    }
}

/// Whether the client has sent bytes not read yet (end of stream is not a
/// byte: a client that closed is idle).
fn has_bytes(conn: &Conn) -> bool {
    let mut byte = 0u8;
    // SAFETY: a valid socket and a one-byte buffer; `MSG_PEEK` leaves the
    // byte for `read`.
    let n = unsafe {
        libc::recv(conn.stream.as_raw_fd(), (&mut byte as *mut u8).cast(), 1, libc::MSG_PEEK | libc::MSG_DONTWAIT)
    };
    n > 0
}
