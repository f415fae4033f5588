//! The load generator: HTTP/1.1 requests over keep-alive connections from
//! one thread (an `epoll` loop), open loop or closed loop.
//!
//! Open loop: request `i` is due at `start + i / rate`, whatever happened
//! to earlier ones. A due request goes out on any idle connection; if none
//! is idle it waits (in order) for one. Its latency is measured from when it
//! was *due*, so a stall anywhere (server, client, the wait for a free
//! connection) counts in full for every request it delays (no coordinated
//! omission, as wrk2 and Megaphone measure). A `timerfd` wakes the loop at
//! the next due time with microsecond precision (`epoll_wait`'s own timeout
//! has millisecond resolution).
//!
//! Closed loop (what wrk does): every connection sends its next request as
//! soon as it has the previous response, for a given time; the measure is
//! throughput.
//!
//! Every response is checked: status 200, `Content-Length` and the body
//! byte for byte against the file; the header `X-Ohua-Body: sendfile` says
//! the server's version-2 `reply` sent the body with `sendfile(2)`.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mio::net::TcpStream;
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};

use crate::common::mix;

/// The files the server serves, as the client expects them.
pub struct Content {
    /// `GET /f/<k>.bin HTTP/1.1 ...` for file `k`.
    requests: Vec<Vec<u8>>,
    /// File `k`'s bytes.
    bodies: Vec<Arc<[u8]>>,
}

impl Content {
    /// Write `count` files of `size` bytes under `root/f/` (each a
    /// different byte pattern) and keep their contents.
    pub fn generate(root: &std::path::Path, count: usize, size: usize) -> io::Result<Content> {
        std::fs::create_dir_all(root.join("f"))?;
        let mut requests = Vec::with_capacity(count);
        let mut bodies = Vec::with_capacity(count);
        for k in 0..count {
            let body: Vec<u8> = (0..size.div_ceil(8))
                .flat_map(|w| mix((k as u64) << 32 | w as u64, 1).to_le_bytes())
                .take(size)
                .collect();
            std::fs::write(root.join(format!("f/{k}.bin")), &body)?;
            requests.push(format!("GET /f/{k}.bin HTTP/1.1\r\nHost: bench\r\n\r\n").into_bytes());
            bodies.push(body.into());
        }
        Ok(Content { requests, bodies })
    }

    /// The file request `id` asks for (uniformly at random, as in Fig. 5.20).
    fn file_of(&self, id: u64) -> usize {
        (mix(id, 2) % self.requests.len() as u64) as usize
    }
}

/// How requests are sent.
#[derive(Clone, Copy, Debug)]
pub enum Mode {
    /// `n` requests at `rate` per second.
    Open { rate: f64, n: u64 },
    /// Open loop at a rate that steps: `secs` at each of `rates` (per
    /// second) in turn (`ohua-bench elastic-web`).
    Stepped { rates: &'static [f64], secs: f64 },
    /// As fast as the connections get answers, for `length`.
    Closed { length: Duration },
}

impl Mode {
    /// When open-loop request `i` is due, in ns from the start; `None`
    /// past the last request, and always in closed loop.
    pub fn due(&self, i: u64) -> Option<u64> {
        match *self {
            Mode::Open { rate, n } => (i < n).then(|| due_ns(i, rate)),
            Mode::Stepped { rates, secs } => {
                let mut first = 0;
                for (k, &rate) in rates.iter().enumerate() {
                    let n = (rate * secs) as u64;
                    if i < first + n {
                        return Some((k as f64 * secs * 1e9) as u64 + due_ns(i - first, rate));
                    }
                    first += n;
                }
                None
            }
            Mode::Closed { .. } => None,
        }
    }

    /// The requests an open loop sends (an estimate in closed loop).
    fn requests(&self) -> usize {
        match *self {
            Mode::Open { n, .. } => n as usize,
            Mode::Stepped { rates, secs } => rates.iter().map(|r| (r * secs) as usize).sum(),
            Mode::Closed { length } => (length.as_secs_f64() * 50_000.0) as usize,
        }
    }
}

/// When open-loop request `i` is due, in ns from the start.
pub fn due_ns(i: u64, rate: f64) -> u64 {
    (i as f64 * 1e9 / rate) as u64
}

/// What the client saw, per request id (in the order they were sent).
pub struct Collected {
    /// When each request went out, ns from the start.
    pub sent: Vec<u64>,
    /// When its response was complete, ns from the start (`u64::MAX`: none).
    pub done: Vec<u64>,
    /// Its body came by `sendfile` (the response's `X-Ohua-Body` header).
    pub sendfile: Vec<bool>,
    /// Responses that were not right (status, length or a body byte).
    pub wrong: u64,
    /// The first few problems, for the report.
    pub problems: Vec<String>,
}

impl Collected {
    /// Requests without a (complete) response.
    pub fn lost(&self) -> u64 {
        self.done.iter().filter(|&&d| d == u64::MAX).count() as u64
    }

    fn problem(&mut self, p: String) {
        if self.problems.len() < 5 {
            self.problems.push(p);
        }
    }
}

/// A response being read.
enum Reading {
    /// The head so far.
    Head(Vec<u8>),
    /// The body: `got` of the file's bytes so far, all matching until `bad`.
    Body { got: usize, len: usize, bad: bool },
}

struct Conn {
    stream: TcpStream,
    /// The request in flight, and what it asked for.
    current: Option<(u64, usize)>,
    reading: Reading,
    sendfile: bool,
    alive: bool,
}

const TIMER: Token = Token(usize::MAX - 1);

/// A `timerfd`: wakes the poll at a set time.
struct Timer(OwnedFd);

impl Timer {
    fn new() -> io::Result<Timer> {
        // SAFETY: plain system call; the descriptor is owned from here.
        let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a new descriptor nobody else owns.
        Ok(Timer(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Fire once, `after` from now (at least 1 µs).
    fn set(&self, after: Duration) {
        let after = after.max(Duration::from_micros(1));
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec { tv_sec: after.as_secs() as _, tv_nsec: after.subsec_nanos() as _ },
        };
        // SAFETY: a valid timerfd and a valid `itimerspec`.
        unsafe { libc::timerfd_settime(self.0.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
    }

    /// Consume an expiry.
    fn clear(&self) {
        let mut n = [0u8; 8];
        // SAFETY: an 8-byte buffer, as a timerfd read needs.
        unsafe { libc::read(self.0.as_raw_fd(), n.as_mut_ptr().cast(), 8) };
    }
}

/// Open `connections` keep-alive connections to `addr`.
fn connect(addr: SocketAddr, connections: usize, poll: &Poll) -> io::Result<Vec<Conn>> {
    (0..connections)
        .map(|k| {
            let s = std::net::TcpStream::connect(addr)?;
            s.set_nodelay(true)?;
            s.set_nonblocking(true)?;
            let mut stream = TcpStream::from_std(s);
            poll.registry().register(&mut stream, Token(k), Interest::READABLE)?;
            Ok(Conn { stream, current: None, reading: Reading::Head(Vec::new()), sendfile: false, alive: true })
        })
        .collect()
}

/// Drive `connections` connections to `addr` in `mode` from `start`; after
/// the last request, wait at most `drain` for the responses still due.
pub fn drive(
    addr: SocketAddr,
    content: &Content,
    connections: usize,
    mode: Mode,
    start: Instant,
    drain: Duration,
) -> io::Result<Collected> {
    let mut poll = Poll::new()?;
    let timer = Timer::new()?;
    poll.registry().register(&mut SourceFd(&timer.0.as_raw_fd()), TIMER, Interest::READABLE)?;
    let mut conns = connect(addr, connections, &poll)?;
    let mut idle: Vec<usize> = (0..connections).rev().collect();
    let mut queue: VecDeque<u64> = VecDeque::new();
    let capacity = mode.requests();
    let mut c = Collected {
        sent: Vec::with_capacity(capacity),
        done: Vec::with_capacity(capacity),
        sendfile: Vec::with_capacity(capacity),
        wrong: 0,
        problems: Vec::new(),
    };
    let mut events = Events::with_capacity(1024);
    let mut chunk = vec![0u8; 256 * 1024];
    let mut next = 0u64;
    let mut last_send: Option<Instant> = None;
    loop {
        let now = start.elapsed().as_nanos() as u64;
        // What is due now.
        let sending = match mode {
            Mode::Open { .. } | Mode::Stepped { .. } => {
                while mode.due(next).is_some_and(|due| due <= now) {
                    queue.push_back(next);
                    next += 1;
                }
                mode.due(next).is_some()
            }
            Mode::Closed { length } => {
                let on = now < length.as_nanos() as u64;
                if on {
                    for _ in 0..idle.len().saturating_sub(queue.len()) {
                        queue.push_back(next);
                        next += 1;
                    }
                }
                on
            }
        };
        while !queue.is_empty() {
            let Some(k) = idle.pop() else { break };
            let id = queue.pop_front().expect("not empty");
            let file = content.file_of(id);
            let slot = id as usize;
            if c.sent.len() <= slot {
                c.sent.resize(slot + 1, u64::MAX);
                c.done.resize(slot + 1, u64::MAX);
                c.sendfile.resize(slot + 1, false);
            }
            c.sent[slot] = start.elapsed().as_nanos() as u64;
            let conn = &mut conns[k];
            match write_all(&mut conn.stream, &content.requests[file]) {
                Ok(()) => {
                    conn.current = Some((id, file));
                    conn.reading = Reading::Head(Vec::new());
                    conn.sendfile = false;
                }
                Err(e) => {
                    conn.alive = false;
                    c.problem(format!("sending on connection {k}: {e}"));
                }
            }
        }
        if !sending && queue.is_empty() {
            let t = *last_send.get_or_insert_with(Instant::now);
            let waiting = conns.iter().any(|k| k.alive && k.current.is_some());
            if !waiting || t.elapsed() > drain {
                break;
            }
        }
        // Sleep until a response or the next due request.
        let timeout = match mode.due(next) {
            Some(due) => {
                timer.set(Duration::from_nanos(due.saturating_sub(start.elapsed().as_nanos() as u64)));
                None
            }
            None => Some(Duration::from_millis(10)),
        };
        poll.poll(&mut events, timeout)?;
        for ev in events.iter() {
            if ev.token() == TIMER {
                timer.clear();
                continue;
            }
            let k = ev.token().0;
            if let Some(finished) = receive(&mut conns[k], content, &mut chunk, &mut c, start) {
                if finished {
                    idle.push(k);
                } else {
                    conns[k].alive = false;
                }
            }
        }
    }
    Ok(c)
}

fn write_all(s: &mut TcpStream, mut bytes: &[u8]) -> io::Result<()> {
    // A request is a few dozen bytes into an idle connection's empty send
    // buffer: it goes in one write; the loop is for the exception.
    let t = Instant::now();
    while !bytes.is_empty() {
        match s.write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && t.elapsed() < Duration::from_secs(1) => {
                std::thread::yield_now()
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Read what connection `conn` has. `Some(true)`: its response is complete
/// (the connection is idle again); `Some(false)`: it failed (closed);
/// `None`: more to come.
fn receive(conn: &mut Conn, content: &Content, chunk: &mut [u8], c: &mut Collected, start: Instant) -> Option<bool> {
    if !conn.alive {
        return None;
    }
    loop {
        let n = match conn.stream.read(chunk) {
            Ok(0) => {
                c.problem("the server closed a connection".into());
                return Some(false);
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return None,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                c.problem(format!("reading: {e}"));
                return Some(false);
            }
        };
        let Some((id, file)) = conn.current else {
            c.problem(format!("{n} bytes without a request"));
            return Some(false);
        };
        let expected = &content.bodies[file];
        let mut bytes = &chunk[..n];
        if let Reading::Head(head) = &mut conn.reading {
            head.extend_from_slice(bytes);
            let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4) else { continue };
            let (len, sendfile, ok) = parse_head(&head[..end]);
            let rest = head.len() - end;
            conn.sendfile = sendfile;
            let bad = !ok || len != expected.len();
            if bad {
                c.problem(format!("request {id}: {:?}", String::from_utf8_lossy(&head[..end])));
            }
            conn.reading = Reading::Body { got: 0, len, bad };
            bytes = &chunk[n - rest..n];
        }
        let Reading::Body { got, len, bad } = &mut conn.reading else { unreachable!("the head is read") };
        if *got + bytes.len() > *len {
            c.problem(format!("request {id}: more bytes than its Content-Length"));
            return Some(false);
        }
        if !*bad && expected.get(*got..*got + bytes.len()) != Some(bytes) {
            *bad = true;
            c.problem(format!("request {id}: a body byte differs from the file after {got} bytes"));
        }
        *got += bytes.len();
        if *got == *len {
            c.wrong += u64::from(*bad);
            c.done[id as usize] = start.elapsed().as_nanos() as u64;
            c.sendfile[id as usize] = conn.sendfile;
            conn.current = None;
            return Some(true);
        }
    }
}

/// The `Content-Length`, whether the body came by sendfile, and whether
/// the status is 200.
fn parse_head(head: &[u8]) -> (usize, bool, bool) {
    let mut headers = [httparse::EMPTY_HEADER; 16];
    let mut r = httparse::Response::new(&mut headers);
    if !matches!(r.parse(head), Ok(httparse::Status::Complete(_))) {
        return (0, false, false);
    }
    let len = r.headers.iter().find(|h| h.name.eq_ignore_ascii_case("content-length"));
    let len = len.and_then(|h| std::str::from_utf8(h.value).ok()?.parse().ok()).unwrap_or(0);
    let sendfile = r.headers.iter().any(|h| h.name.eq_ignore_ascii_case("x-ohua-body") && h.value == b"sendfile");
    (len, sendfile, r.code == Some(200))
}
