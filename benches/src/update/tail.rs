//! The heavy-tailed shape of the server (`UPDATE_SHAPE=tail`): most requests
//! are the CPU shape's (about 15 µs of work, answered from the cache), but
//! the requests for 6 of the 1,024 keys (1 request in 171) need a slow
//! backend query of 10 to 76 ms, one duration per key ([`slow_query`]).
//!
//! A slow query must not hold up the requests behind it. Ohua answers a
//! loop's iterations in order (a fetch through the I/O layer is awaited in
//! order, and the state objects see their calls in order), so a 76 ms fetch
//! in the loop body would delay every later request by as much. The server
//! is therefore written the way an event-driven server is (the web server's
//! loop over connections *with work to do*): its loop runs over *events*, a
//! new request or the answer to a query it sent. The first invocation of a
//! slow request sends its query to the backend without waiting ([`begin`],
//! [`SlowDb::query`]) and replies nothing; when the backend answers, the
//! request comes back as an event of its own ([`Events`]) and its second
//! invocation does the lookup, the updatable render/encode pair and the
//! reply. Cheap requests do all of that in their only invocation. The
//! functions an update replaces (render, encode, the cache's methods) all run
//! in the invocation that replies, so every request sees one version of them.
//!
//! The event loop counts the requests it has parked and ends only when its
//! input has closed *and* every parked request has come back: stopping the
//! service (a restart) finishes every request it took, as a graceful
//! shutdown does.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use crossbeam_channel::{select, unbounded, Receiver as CbReceiver, RecvTimeoutError, Sender as CbSender};

use super::server::{encode, encode_v2, parse, render, render_v2, with_row, Cache, Parsed, Reply, Request, Sink, KEYS};
use crate::common::mix;

/// Keys `k` with `k % SLOW_EVERY == SLOW_AT` need the slow backend: 85,
/// 255, 425, 595, 765 and 935, 6 of the [`KEYS`] 1,024.
const SLOW_EVERY: u64 = 170;
const SLOW_AT: u64 = 85;

/// How long the slow query for `key` takes, or `None` for a key the cache
/// answers: 10 ms for the first slow key, then 1.5 times as long for each
/// next one (10, 15, 22.5, 33.8, 50.6 and 75.9 ms).
pub fn slow_query(key: u64) -> Option<Duration> {
    (key % KEYS % SLOW_EVERY == SLOW_AT).then(|| {
        let j = (key % KEYS / SLOW_EVERY) as i32;
        Duration::from_micros((10_000.0 * 1.5f64.powi(j)).round() as u64)
    })
}

/// The slow keys and their query times, for the header.
pub fn describe() -> String {
    let slow: Vec<String> =
        (0..KEYS).filter_map(|k| slow_query(k).map(|d| format!("{:.1}", d.as_secs_f64() * 1e3))).collect();
    let n = slow.len() as u64;
    format!(
        "tail: {n} of {KEYS} keys (1 request in {:.0}) wait for a slow backend query of {} ms, sent without blocking the loop (the request comes back as an event when answered); the others are answered from the cache (CPU work only)",
        KEYS as f64 / n as f64,
        slow.join(", ")
    )
}

/// What the server's loop runs over: a new request, or a parked request
/// with the row its slow query returned.
pub enum Event {
    New(Request),
    Resumed(Request, u64),
}

/// The loop's source: new requests from the client and answers from the
/// backend, whichever comes first. Ends once the client's side has closed
/// and every request parked on the backend has come back.
pub struct Events {
    new: CbReceiver<Request>,
    done: CbReceiver<(Request, u64)>,
    open: bool,
    parked: u64,
}

impl Iterator for Events {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        loop {
            if !self.open {
                if self.parked == 0 {
                    return None;
                }
                let (r, row) = self.done.recv().ok()?;
                self.parked -= 1;
                return Some(Event::Resumed(r, row));
            }
            select! {
                recv(self.new) -> m => match m {
                    Ok(r) => {
                        self.parked += u64::from(slow_query(r.key).is_some());
                        return Some(Event::New(r));
                    }
                    Err(_) => self.open = false,
                },
                recv(self.done) -> m => {
                    let (r, row) = m.ok()?;
                    self.parked -= 1;
                    return Some(Event::Resumed(r, row));
                }
            }
        }
    }
}

/// The slow backend: answers each query after its key's time, all queries
/// concurrently (a timer thread stands for the database doing the work), by
/// sending the request back to the service's [`Events`].
pub struct SlowDb {
    queries: CbSender<(Instant, Request)>,
}

impl SlowDb {
    /// Send the query of `r` (a key [`slow_query`] knows); returns at once.
    pub fn query(&self, r: Request) {
        let due = Instant::now() + slow_query(r.key).unwrap_or_default();
        // The backend runs as long as any handle to it (the service) does.
        let _ = self.queries.send((due, r));
    }
}

/// A backend answering on `done`: its thread ends once every handle is
/// gone and every query has been answered.
fn backend(done: CbSender<(Request, u64)>) -> SlowDb {
    let (queries, rx) = unbounded::<(Instant, Request)>();
    std::thread::Builder::new()
        .name("update-slow-db".into())
        .spawn(move || {
            let mut due: BinaryHeap<Reverse<(Instant, u64, u64)>> = BinaryHeap::new();
            let mut open = true;
            while open || !due.is_empty() {
                while let Some(&Reverse((at, id, key))) = due.peek() {
                    if at > Instant::now() {
                        break;
                    }
                    due.pop();
                    let _ = done.send((Request { id, key }, mix(key, 1)));
                }
                let next = due.peek().map(|r| r.0 .0);
                let got = match (open, next) {
                    (true, Some(at)) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
                    (true, None) => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    (false, Some(at)) => {
                        std::thread::sleep(at.saturating_duration_since(Instant::now()));
                        continue;
                    }
                    (false, None) => break,
                };
                match got {
                    Ok((at, r)) => due.push(Reverse((at, r.id, r.key))),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => open = false,
                }
            }
        })
        .expect("update: cannot spawn the slow backend's thread");
    SlowDb { queries }
}

/// A fresh service input: the sender the client (the gate) sends new
/// requests on, the loop's [`Events`] and the backend that answers them.
pub fn connect() -> (CbSender<Request>, Events, SlowDb) {
    let (new_tx, new) = unbounded();
    let (done_tx, done) = unbounded();
    (new_tx, Events { new, done, open: true, parked: 0 }, backend(done_tx))
}

/// The first step of an event: a cheap request is parsed and goes on; a
/// slow one sends its query and stops here (`None`); a request whose query
/// has answered is parsed with its row and goes on.
pub fn begin(e: Event, db: &SlowDb) -> Option<Parsed> {
    match e {
        Event::New(r) if slow_query(r.key).is_some() => {
            db.query(r);
            None
        }
        Event::New(r) => Some(parse(r)),
        Event::Resumed(r, row) => Some(with_row(parse(r), Ok(row))),
    }
}

/// The server, version 1, on the tail shape.
#[ohua::algorithm]
pub fn server_tail(events: Events, db: &SlowDb, replies: Sender<Reply>) -> u64 {
    let mut cache = Cache::new();
    let mut sink = Sink::new(replies);
    for ev in events {
        let ready = begin(ev, db);
        if let Some(parsed) = ready {
            let entry = cache.lookup(parsed);
            let tagged = render(entry);
            let reply = encode(tagged);
            sink.send(reply);
        }
    }
    sink.count()
}

/// The server, version 2, on the tail shape, as a restart would start it.
#[ohua::algorithm]
pub fn server_tail_v2(events: Events, db: &SlowDb, replies: Sender<Reply>) -> u64 {
    let mut cache = Cache::new();
    let mut sink = Sink::new(replies);
    for ev in events {
        let ready = begin(ev, db);
        if let Some(parsed) = ready {
            let entry = cache.lookup(parsed);
            let tagged = render_v2(entry);
            let reply = encode_v2(tagged);
            sink.send(reply);
        }
    }
    sink.count()
}
