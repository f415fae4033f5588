//! The open-loop client: a generator that sends requests at their intended
//! times, a gate in front of the service, and a collector of replies.
//!
//! Latency is measured from a request's *intended* arrival (`start + i /
//! rate`), not from when the generator got round to sending it, so a stall
//! anywhere (generator, gate, service) counts in full for every request it
//! delays (no coordinated omission).

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::server::{Reply, Request, KEYS};
use crate::common::mix;

/// What reaches the gate: requests from the generator, commands from the
/// controller, on one channel so their order is the order they were sent.
pub enum Msg {
    Req(Request),
    /// Stop forwarding (hold requests from now on); answer with how many
    /// were forwarded so far. `detach` also lets go of the service's input,
    /// so its loop ends once it has taken what was forwarded.
    Pause {
        detach: bool,
        ack: Sender<u64>,
    },
    /// Forward again, first the held requests, to `to` if given.
    Resume(Option<Input>),
}

/// Where a service takes its requests: the `mpsc` channel its loop runs
/// over (the CPU and I/O shapes), or the new-request side of the tail
/// shape's event loop (`tail.rs`, a crossbeam channel).
pub enum Input {
    Channel(Sender<Request>),
    Events(crossbeam_channel::Sender<Request>),
}

impl Input {
    /// Hand `r` to the service.
    ///
    /// # Panics
    ///
    /// If the service has stopped taking requests.
    pub fn send(&self, r: Request) {
        let sent = match self {
            Input::Channel(tx) => tx.send(r).is_ok(),
            Input::Events(tx) => tx.send(r).is_ok(),
        };
        assert!(sent, "update: the service takes requests");
    }
}

/// The gate: forwards requests to the service while open and holds them
/// (in arrival order) while paused. Every variant goes through it, so they
/// all pay the same extra hop. Returns how many requests it forwarded.
pub fn gate(input: Receiver<Msg>, mut to: Option<Input>) -> u64 {
    let mut held = VecDeque::new();
    let (mut open, mut forwarded) = (true, 0);
    for msg in input {
        match msg {
            Msg::Req(r) if open => {
                to.as_ref().expect("an open gate has a service").send(r);
                forwarded += 1;
            }
            Msg::Req(r) => held.push_back(r),
            Msg::Pause { detach, ack } => {
                open = false;
                if detach {
                    to = None;
                }
                let _ = ack.send(forwarded);
            }
            Msg::Resume(new) => {
                to = new.or(to);
                let tx = to.as_ref().expect("resumed with a service");
                forwarded += held.len() as u64;
                held.drain(..).for_each(|r| tx.send(r));
                open = true;
            }
        }
    }
    forwarded
}

/// When request `i` is meant to arrive, as an offset from the start.
pub fn intended(i: u64, rate: f64) -> Duration {
    Duration::from_secs_f64(i as f64 / rate)
}

/// The key request `i` asks for in a run with `seed` (each round has its
/// own, so on the tail shape the slow requests in flight at the update time
/// differ from round to round; seed 0 gives the sequence of the first
/// versions of this benchmark).
pub fn key_of(i: u64, seed: u64) -> u64 {
    mix(i.wrapping_add(seed << 32), 1) % KEYS
}

/// Send `n` requests, request `i` at `start + intended(i)`: sleep until the
/// next one is due, then send every request that is due by now. Returns `n`.
pub fn generate(tx: Sender<Msg>, start: Instant, rate: f64, n: u64, seed: u64) -> u64 {
    let mut i = 0;
    while i < n {
        let due = start + intended(i, rate);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        let now = Instant::now();
        while i < n && start + intended(i, rate) <= now {
            tx.send(Msg::Req(Request { id: i, key: key_of(i, seed) })).expect("the gate runs until the end");
            i += 1;
        }
    }
    n
}

/// How many replies the collector has seen, for a controller waiting to drain.
#[derive(Default)]
pub struct Progress {
    replies: Mutex<u64>,
    changed: Condvar,
}

impl Progress {
    /// Wait until at least `n` replies have arrived.
    pub fn wait_for(&self, n: u64) {
        let mut seen = self.replies.lock().expect("collector alive");
        while *seen < n {
            seen = self.changed.wait(seen).expect("collector alive");
        }
    }
}

/// Every reply of a run: when it arrived (ns since the start, `u64::MAX`
/// if it never did), the version that served it, and the anomalies.
pub struct Collected {
    pub arrived: Vec<u64>,
    pub version: Vec<u8>,
    pub duplicates: u64,
    pub mismatches: u64,
}

/// Record the replies of up to `n` requests until every sender is gone.
pub fn collect(replies: Receiver<Reply>, start: Instant, n: u64, progress: Arc<Progress>) -> Collected {
    let mut c =
        Collected { arrived: vec![u64::MAX; n as usize], version: vec![0; n as usize], duplicates: 0, mismatches: 0 };
    for (id, version, matched) in replies {
        let at = start.elapsed().as_nanos() as u64;
        let slot = &mut c.arrived[id as usize];
        if *slot == u64::MAX {
            *slot = at;
            c.version[id as usize] = version as u8;
        } else {
            c.duplicates += 1;
        }
        c.mismatches += u64::from(!matched);
        *progress.replies.lock().expect("waiter alive") += 1;
        progress.changed.notify_all();
    }
    c
}

/// Wait for `service` to finish, at most `limit`: a hang is reported, not waited out.
pub fn join_within<R>(service: ohua::Service<R>, limit: Duration, what: &str) -> R {
    let t = Instant::now();
    while !service.is_finished() {
        assert!(t.elapsed() < limit, "update: {what} did not finish within {limit:?}");
        std::thread::sleep(Duration::from_millis(1));
    }
    service.join()
}

/// Requests per second the server answers when fed as fast as it takes
/// them (`n` requests in one burst): its capacity, to put the rate in proportion.
pub fn capacity(n: u64, shape: super::backend::Shape) -> f64 {
    let (reply_tx, replies) = std::sync::mpsc::channel::<Reply>();
    let (tx, service) = shape.start(false, reply_tx, &ohua::Source::new(super::backend::Backend));
    // Wait for the cache to be built: one request answered.
    tx.send(Request { id: 0, key: 0 });
    replies.recv().expect("a reply");
    let t = Instant::now();
    for i in 0..n {
        tx.send(Request { id: i, key: key_of(i, 0) });
    }
    drop(tx);
    let answered = replies.iter().count() as u64;
    let elapsed = t.elapsed();
    join_within(service, Duration::from_secs(60), "the capacity probe");
    assert_eq!(answered, n, "update: the capacity probe lost requests");
    n as f64 / elapsed.as_secs_f64()
}

/// CPU time this process has used so far (user + system), from
/// `/proc/self/stat` (fields 14 and 15, in clock ticks of 1/100 s, Linux's
/// `USER_HZ` on every common architecture); `None` elsewhere.
pub fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces: count from after its ')'.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}
