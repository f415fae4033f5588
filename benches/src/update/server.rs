//! The service under test: a small request server written as an algorithm.
//!
//! `parse -> cache.lookup -> render -> encode -> sink.send`, about 15 µs of
//! CPU work per request in total (calibrated at start-up). `render` stamps
//! its version into what it produces and `encode` checks the stamp against
//! its own version, so the two form a mutually dependent pair: replacing one
//! without the other makes every request between the two replacements a
//! mismatch, which the sink counts (the benchmark requires 0).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::time::Duration;

use crate::common::{mix, rounds_for};

/// Distinct keys requests look up; the cache holds one entry per key.
pub const KEYS: u64 = 1024;

/// Rounds of [`mix`] per step, calibrated by [`calibrate`]: parse, lookup,
/// render, encode, and building one cache entry.
static PARSE: AtomicU64 = AtomicU64::new(100);
static LOOKUP: AtomicU64 = AtomicU64::new(100);
static RENDER: AtomicU64 = AtomicU64::new(100);
static ENCODE: AtomicU64 = AtomicU64::new(100);
static FILL: AtomicU64 = AtomicU64::new(100);

/// The CPU work of each step, in µs: parse, lookup, render, encode (15 in
/// all), and one cache entry when the cache is built (5, so 5 ms for the
/// whole table: what a restart pays to re-create the state).
const WORK_US: [u64; 5] = [3, 2, 6, 4, 5];

/// Calibrate the work of every step to [`WORK_US`] on this machine.
pub fn calibrate() {
    let statics = [&PARSE, &LOOKUP, &RENDER, &ENCODE, &FILL];
    for (s, us) in statics.iter().zip(WORK_US) {
        s.store(rounds_for(Duration::from_micros(us)), Ordering::Relaxed);
    }
}

/// Total CPU work per request (the four steps, without the cache build).
pub fn work_per_request() -> Duration {
    Duration::from_micros(WORK_US[..4].iter().sum())
}

fn work(x: u64, rounds: &AtomicU64) -> u64 {
    mix(std::hint::black_box(x), rounds.load(Ordering::Relaxed))
}

/// A request as the load generator sends it: its number and the key it asks for.
#[derive(Clone, Copy)]
pub struct Request {
    pub id: u64,
    pub key: u64,
}

/// A request after parsing.
pub struct Parsed {
    id: u64,
    key: u64,
    hash: u64,
}

/// What the cache found for a request.
pub struct Entry {
    id: u64,
    value: u64,
}

/// A rendered page, stamped with the version of `render` that produced it.
pub struct Tagged {
    id: u64,
    version: u32,
    body: u64,
}

/// What goes back to the client: `(request id, version, stamp matched)`.
pub type Reply = (u64, u32, bool);

pub fn parse(r: Request) -> Parsed {
    Parsed { id: r.id, key: r.key % KEYS, hash: work(r.key, &PARSE) }
}

/// Folds the backend's row for the request into its hash (the I/O shape).
pub fn with_row(p: Parsed, row: Result<u64, String>) -> Parsed {
    Parsed { hash: p.hash ^ row.unwrap_or_default(), ..p }
}

/// The server's table, built in full at start-up (a restart rebuilds it).
#[derive(Clone)]
pub struct Cache {
    table: HashMap<u64, u64>,
    /// Replies noted (the stateful shape's second use of the cache).
    noted: u64,
}

#[ohua::updatable]
impl Cache {
    pub fn new() -> Self {
        Cache { table: (0..KEYS).map(|k| (k, work(k, &FILL))).collect(), noted: 0 }
    }

    /// Count a reply on its way out (the stateful shape, `stateful.rs`).
    pub fn note(&mut self, r: Reply) -> Reply {
        self.noted += 1;
        r
    }

    pub fn lookup(&mut self, p: Parsed) -> Entry {
        let found = self.table.get(&p.key).copied().unwrap_or_default();
        Entry { id: p.id, value: work(found ^ p.hash, &LOOKUP) }
    }
}

/// Version 1 of the producer: stamps 1.
#[ohua::updatable]
pub fn render(e: Entry) -> Tagged {
    Tagged { id: e.id, version: 1, body: work(e.value, &RENDER) }
}

/// Version 2 of the producer: stamps 2 (same work, so the versions cost the same).
pub fn render_v2(e: Entry) -> Tagged {
    Tagged { id: e.id, version: 2, body: work(e.value, &RENDER) }
}

/// Version 1 of the consumer: understands stamp 1 only.
#[ohua::updatable]
pub fn encode(t: Tagged) -> Reply {
    std::hint::black_box(work(t.body, &ENCODE));
    (t.id, 1, t.version == 1)
}

/// Version 2 of the consumer: understands stamp 2 only.
pub fn encode_v2(t: Tagged) -> Reply {
    std::hint::black_box(work(t.body, &ENCODE));
    (t.id, 2, t.version == 2)
}

/// Sends every reply back to the client as soon as it is ready.
pub struct Sink {
    tx: Sender<Reply>,
    sent: u64,
}

impl Sink {
    pub fn new(tx: Sender<Reply>) -> Self {
        Sink { tx, sent: 0 }
    }

    pub fn send(&mut self, r: Reply) {
        self.sent += 1;
        // The collector outlives every service; a failed send would show up as lost.
        let _ = self.tx.send(r);
    }

    pub fn count(&self) -> u64 {
        self.sent
    }
}

/// The server, version 1. The cache is used in one statement of the loop,
/// so one operator holds it across a cut and an update can transform it.
#[ohua::algorithm]
pub fn server(requests: Receiver<Request>, replies: Sender<Reply>) -> u64 {
    let mut cache = Cache::new();
    let mut sink = Sink::new(replies);
    for req in requests {
        let parsed = parse(req);
        let entry = cache.lookup(parsed);
        let tagged = render(entry);
        let reply = encode(tagged);
        sink.send(reply);
    }
    sink.count()
}

/// The server, version 2, as a restart would start it: v2 compiled in.
#[ohua::algorithm]
pub fn server_v2(requests: Receiver<Request>, replies: Sender<Reply>) -> u64 {
    let mut cache = Cache::new();
    let mut sink = Sink::new(replies);
    for req in requests {
        let parsed = parse(req);
        let entry = cache.lookup(parsed);
        let tagged = render_v2(entry);
        let reply = encode_v2(tagged);
        sink.send(reply);
    }
    sink.count()
}

/// The live update: both halves of the pair switch at one cut, and the
/// cache is carried over by a state transform (a copy: the new version
/// keeps its contents).
pub fn upgrade() -> ohua::Update {
    ohua::Update::new()
        .transform(|old: &Cache| Ok::<_, String>(old.clone()))
        .replace(ohua::replace!(render => render_v2))
        .replace(ohua::replace!(encode => encode_v2))
}
