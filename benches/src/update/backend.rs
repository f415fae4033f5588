//! The I/O-bound shape of the server: every request first fetches a row
//! from a slow backend through Ohua's I/O layer (`db.fetch`), then runs the
//! same pipeline as the CPU shape (cache, the updatable render/encode pair,
//! the reply sink). The backend answers a whole batch after [`LATENCY`], so
//! with batching the throughput stays high while every request waits about
//! that long: at 20,000 requests/s about 40 are in flight at any time.

use std::sync::mpsc::{Receiver, Sender};
use std::time::Duration;

use ohua::{DataSource, Source};

use super::load::Input;
use super::server::{encode, encode_v2, parse, render, render_v2, with_row, Cache, Reply, Request, Sink};
use super::tail;
use crate::common::mix;

/// How long the backend takes to answer one batch, whatever its size.
pub const LATENCY: Duration = Duration::from_millis(2);

/// A slow backend (a database across the network): one row per key.
pub struct Backend;

impl DataSource for Backend {
    type Request = u64;
    type Response = u64;
    type Error = String;
    fn fetch(&self, keys: &[u64]) -> Vec<Result<u64, String>> {
        std::thread::sleep(LATENCY);
        keys.iter().map(|&k| Ok(mix(k, 1))).collect()
    }
}

/// The row a request asks the backend for: its own (a session, say). Each
/// request's row is distinct, because the I/O layer answers a repeated
/// request from its per-run cache, and a service's run lasts for ever.
fn row_key(r: &Request) -> u64 {
    r.id
}

/// The server, version 1, on the I/O shape.
#[ohua::algorithm]
pub fn server_io(db: &Source<Backend>, requests: Receiver<Request>, replies: Sender<Reply>) -> u64 {
    let mut cache = Cache::new();
    let mut sink = Sink::new(replies);
    for req in requests {
        let key = row_key(&req);
        let row = db.fetch(key);
        let parsed = parse(req);
        let parsed = with_row(parsed, row);
        let entry = cache.lookup(parsed);
        let tagged = render(entry);
        let reply = encode(tagged);
        sink.send(reply);
    }
    sink.count()
}

/// The server, version 2, on the I/O shape, as a restart would start it.
#[ohua::algorithm]
pub fn server_io_v2(db: &Source<Backend>, requests: Receiver<Request>, replies: Sender<Reply>) -> u64 {
    let mut cache = Cache::new();
    let mut sink = Sink::new(replies);
    for req in requests {
        let key = row_key(&req);
        let row = db.fetch(key);
        let parsed = parse(req);
        let parsed = with_row(parsed, row);
        let entry = cache.lookup(parsed);
        let tagged = render_v2(entry);
        let reply = encode_v2(tagged);
        sink.send(reply);
    }
    sink.count()
}

/// Which server the benchmark runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    /// About 15 µs of CPU work per request, no I/O: few requests in flight.
    Cpu,
    /// A backend fetch of [`LATENCY`] per request before the same work.
    Io,
    /// The CPU shape's requests, but 1 in 171 waits 10-76 ms for a slow
    /// backend query without holding up the others (`tail.rs`).
    Tail,
    /// The CPU shape with its cache used by two statements, so the loop
    /// carries it (`stateful.rs`).
    State,
}

impl Shape {
    /// The shape's name, as `UPDATE_SHAPE` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Cpu => "cpu",
            Shape::Io => "io",
            Shape::Tail => "tail",
            Shape::State => "state",
        }
    }

    /// Start version 1 (or 2) of the server as a service on backend `db`
    /// (the I/O shape's; the tail shape connects a slow backend of its own
    /// per service): the service and where it takes its requests.
    pub fn start(self, v2: bool, tx: Sender<Reply>, db: &Source<Backend>) -> (Input, ohua::Service<u64>) {
        if self == Shape::Tail {
            let (input, events, slow) = tail::connect();
            let service = if v2 {
                ohua::service(move || tail::server_tail_v2(events, &slow, tx))
            } else {
                ohua::service(move || tail::server_tail(events, &slow, tx))
            };
            return (Input::Events(input), service);
        }
        let (input, rx) = std::sync::mpsc::channel();
        let db = db.clone();
        let service = match (self, v2) {
            (Shape::Cpu, false) => ohua::service(move || super::server::server(rx, tx)),
            (Shape::Cpu, true) => ohua::service(move || super::server::server_v2(rx, tx)),
            (Shape::State, false) => ohua::service(move || super::stateful::server_state(rx, tx)),
            (Shape::State, true) => ohua::service(move || super::stateful::server_state_v2(rx, tx)),
            (_, false) => ohua::service(move || server_io(&db, rx, tx)),
            (_, true) => ohua::service(move || server_io_v2(&db, rx, tx)),
        };
        (Input::Channel(input), service)
    }

    /// Run version 1 on `requests` under `ohua::profile`: its run report.
    pub fn profile(self, requests: Vec<Request>, tx: Sender<Reply>) -> ohua::RunReport {
        let db = Source::new(Backend);
        let (_, mut reports) = match self {
            Shape::Tail => {
                let (input, events, slow) = tail::connect();
                requests.into_iter().for_each(|r| input.send(r).expect("the service takes requests"));
                drop(input);
                ohua::profile(|| tail::server_tail(events, &slow, tx))
            }
            _ => {
                let (input, rx) = std::sync::mpsc::channel();
                requests.into_iter().for_each(|r| input.send(r).expect("the service takes requests"));
                drop(input);
                match self {
                    Shape::Cpu => ohua::profile(|| super::server::server(rx, tx)),
                    Shape::State => ohua::profile(|| super::stateful::server_state(rx, tx)),
                    _ => ohua::profile(|| server_io(&db, rx, tx)),
                }
            }
        };
        reports.swap_remove(0)
    }
}

/// A new connection to the backend, as a restarted process opens: a fresh
/// handle; on the I/O shape its first call (one round trip of [`LATENCY`])
/// stands for the handshake. A real handshake (TCP, TLS, authentication)
/// takes several round trips, so this is the least it costs. (The CPU shape
/// has no backend; the tail shape's slow backend is connected per service by
/// [`Shape::start`], without a handshake.)
pub fn connect(shape: Shape) -> Source<Backend> {
    let db = Source::new(Backend);
    if shape == Shape::Io {
        let _ = db.fetch(u64::MAX);
    }
    db
}

/// Where an I/O-shape request's time goes: version 1 under `ohua::profile`
/// for `length` at `rate` (straight into its input, no gate), then per
/// backend call how long its first request waited before the call was sent
/// and how far apart the calls went out.
pub fn trace(rate: f64, length: Duration) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    let (reply_tx, replies) = std::sync::mpsc::channel::<Reply>();
    let n = (rate * length.as_secs_f64()) as u64;
    let generator = std::thread::spawn(move || {
        let start = std::time::Instant::now();
        for id in 0..n {
            let due = start + super::load::intended(id, rate);
            std::thread::sleep(due.saturating_duration_since(std::time::Instant::now()));
            tx.send(Request { id, key: mix(id, 1) % super::server::KEYS }).expect("service alive");
        }
    });
    let drain = std::thread::spawn(move || replies.iter().count());
    let db = Source::new(Backend);
    let (_, mut reports) = ohua::profile(|| server_io(&db, rx, reply_tx));
    let report = reports.swap_remove(0);
    generator.join().expect("generator");
    drain.join().expect("reply drain");
    let Some(io) = report.io.first() else { return "no backend calls".to_string() };
    let t = &io.timeline;
    let mut waited: Vec<u64> =
        t.iter().map(|c| c.dispatched.saturating_duration_since(c.first_submit).as_micros() as u64).collect();
    let mut sent: Vec<std::time::Instant> = t.iter().map(|c| c.dispatched).collect();
    sent.sort();
    let gaps: Vec<u64> = sent.windows(2).map(|w| (w[1] - w[0]).as_micros() as u64).collect();
    let per_call = io.requests as f64 / io.calls.max(1) as f64;
    waited.sort_unstable();
    let ms = |us: u64| us as f64 / 1e3;
    format!(
        "{} calls in {length:?} at {rate}/s, {per_call:.0} requests per call; first request queued {:.1} ms (median, max {:.1}) before its call went out; calls {:.1} ms apart (median, max {:.1})",
        io.calls,
        ms(super::stats::median(waited.clone())),
        ms(waited.last().copied().unwrap_or(0)),
        ms(super::stats::median(gaps.clone())),
        ms(gaps.iter().copied().max().unwrap_or(0)),
    )
}
