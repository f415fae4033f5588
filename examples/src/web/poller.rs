//! `accept`: the server's request loop source. It accepts connections and
//! yields each one when it has something to do (a request to read, or a
//! response to finish writing), so no operator ever blocks on a slow
//! client: a connection waiting for bytes waits here, in `epoll`, not in
//! `read`.
//!
//! This is the part of the server a hand-written event loop would be; in
//! the algorithm it is just the iterator of the `for` loop, a streaming
//! source that blocks in `next()` until a connection is ready.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use mio::net::TcpListener;
use mio::{Events, Interest, Poll, Token, Waker};

use super::conn::{Back, Home};
use super::{Conn, Limits, Wants};

mod admit;

const LISTENER: Token = Token(0);
const WAKER: Token = Token(1);
const FIRST_CONN: usize = 2;
/// How often parked connections are checked against their deadlines.
const SWEEP: Duration = Duration::from_millis(100);

/// The connections that are ready, in the order they became ready: the
/// iterator of the server's request loop (see the module docs).
pub struct Ready {
    poll: Poll,
    events: Events,
    listener: TcpListener,
    /// Connections waiting in `epoll`, with their deadlines.
    parked: HashMap<Token, (Conn, Instant)>,
    /// Connections ready to go into the loop.
    queue: VecDeque<Conn>,
    back: Receiver<Back>,
    home: Home,
    sleeping: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    limits: Limits,
    open: usize,
    /// The listener has pending clients that were not accepted because
    /// `max_connections` were open.
    accept_paused: bool,
    next_token: usize,
    next_sweep: Instant,
}

/// Stops a running server: its loop ends once the requests in flight are
/// answered, and the algorithm returns. Dropping it does nothing.
#[derive(Clone)]
pub struct Shutdown {
    stop: Arc<AtomicBool>,
    waker: Arc<Waker>,
}

impl Shutdown {
    /// Ask the server to stop.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.waker.wake();
    }
}

impl Ready {
    /// Listen on `addr` (port 0 picks a free port; see the returned
    /// address).
    ///
    /// # Errors
    ///
    /// If the address cannot be bound, or `epoll` cannot be set up.
    pub fn bind(addr: SocketAddr, limits: Limits) -> io::Result<(Ready, Shutdown, SocketAddr)> {
        let poll = Poll::new()?;
        let mut listener = TcpListener::bind(addr)?;
        let local = listener.local_addr()?;
        poll.registry().register(&mut listener, LISTENER, Interest::READABLE)?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        let (tx, back) = crossbeam_channel::unbounded();
        let sleeping = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let home = Home::new(tx, waker.clone(), sleeping.clone());
        let ready = Ready {
            poll,
            events: Events::with_capacity(1024),
            listener,
            parked: HashMap::new(),
            queue: VecDeque::new(),
            back,
            home,
            sleeping,
            stop: stop.clone(),
            limits,
            open: 0,
            accept_paused: false,
            next_token: FIRST_CONN,
            next_sweep: Instant::now() + SWEEP,
        };
        Ok((ready, Shutdown { stop, waker }, local))
    }

    /// Take the connections the operators sent back.
    fn take_back(&mut self) {
        let mut idle = false;
        while let Ok(back) = self.back.try_recv() {
            match back {
                Back::Again(conn) => self.queue.push_back(conn),
                Back::Read(conn) => {
                    idle |= conn.input.is_empty();
                    self.park(conn, Wants::Read);
                }
                Back::Write(conn) => self.park(conn, Wants::Write),
                Back::Closed => {
                    self.open -= 1;
                    if self.accept_paused {
                        self.accept();
                    }
                }
            }
        }
        // A connection that became idle can make room for a waiting client.
        if idle && self.accept_paused {
            self.accept();
        }
    }

    /// Wait in `epoll` for `conn` to become readable or writable. Re-arming
    /// the edge-triggered registration reports readiness that arrived while
    /// the connection was out in the loop.
    fn park(&mut self, mut conn: Conn, wants: Wants) {
        let interest = match wants {
            Wants::Read => Interest::READABLE,
            Wants::Write => Interest::WRITABLE,
        };
        if self.poll.registry().reregister(&mut conn.stream, conn.token, interest).is_err() {
            self.open -= 1; // dropping it closes it
            return;
        }
        let now = Instant::now();
        let l = &conn.limits;
        let deadline = match (wants, conn.head_started, conn.write_started) {
            (Wants::Write, _, Some(t)) => t + l.write_timeout,
            (Wants::Write, _, None) => now + l.write_timeout,
            (Wants::Read, Some(t), _) => t + l.head_timeout,
            (Wants::Read, None, _) => now + l.idle_timeout,
        };
        conn.wants = wants;
        self.parked.insert(conn.token, (conn, deadline));
    }

    /// Close the parked connections whose deadline passed (a slow or idle
    /// client).
    fn sweep(&mut self, now: Instant) {
        let before = self.parked.len();
        self.parked.retain(|_, (_, deadline)| *deadline > now);
        self.open -= before - self.parked.len();
        self.next_sweep = now + SWEEP;
        if self.accept_paused && before != self.parked.len() {
            self.accept();
        }
    }

    /// Sleep in `epoll` until something is ready, a connection comes back,
    /// or the next sweep is due.
    fn sleep(&mut self) {
        let now = Instant::now();
        self.sleeping.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        let timeout =
            if self.back.is_empty() { self.next_sweep.saturating_duration_since(now) } else { Duration::ZERO };
        let polled = self.poll.poll(&mut self.events, Some(timeout));
        self.sleeping.store(false, Ordering::SeqCst);
        if polled.is_err() {
            return; // EINTR: go round again
        }
        let mut accept = false;
        for ev in self.events.iter() {
            match ev.token() {
                LISTENER => accept = true,
                WAKER => {}
                token => {
                    // A connection out in the loop is not parked: its event
                    // is re-reported when it is parked again.
                    if let Some((conn, _)) = self.parked.remove(&token) {
                        self.queue.push_back(conn);
                    }
                }
            }
        }
        if accept {
            self.accept();
        }
    }
}

impl Iterator for Ready {
    type Item = Conn;

    fn next(&mut self) -> Option<Conn> {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return None;
            }
            self.take_back();
            let now = Instant::now();
            if now >= self.next_sweep {
                self.sweep(now);
            }
            if let Some(conn) = self.queue.pop_front() {
                return Some(conn);
            }
            self.sleep();
        }
    }
}
