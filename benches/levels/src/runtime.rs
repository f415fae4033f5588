//! What the generated Ohua algorithms run against: the simulated services
//! and the helpers the emitted code calls.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub use crate::graph::{key, list, mix, slow_key};
pub use crate::sets::Spec;
pub use ohua::Source;

/// A simulated service: answers [`crate::graph::answer`] for its index
/// after sleeping `latency` per call (a batch costs one latency).
#[derive(Debug)]
pub struct Db {
    /// Which source (salts the answers).
    pub index: usize,
    /// The time one call takes.
    pub latency: Duration,
    /// Every call: when it started and returned, and its keys.
    pub log: Mutex<Vec<DbCall>>,
}

/// One call of a [`Db`].
#[derive(Debug, Clone)]
pub struct DbCall {
    /// `fetch` was entered.
    pub start: Instant,
    /// It returned (after the sleep).
    pub end: Instant,
    /// The keys asked.
    pub keys: Vec<u64>,
}

impl Db {
    /// Source `index` taking `latency` per call.
    pub fn new(index: usize, latency: Duration) -> Self {
        Db { index, latency, log: Mutex::new(Vec::new()) }
    }
}

impl ohua::DataSource for Db {
    type Request = u64;
    type Response = u64;
    type Error = ();
    fn fetch(&self, keys: &[u64]) -> Vec<Result<u64, ()>> {
        let start = Instant::now();
        if !self.latency.is_zero() {
            wait(self.latency);
        }
        let out = keys.iter().map(|&k| Ok(crate::graph::answer(self.index, k))).collect();
        let call = DbCall { start, end: Instant::now(), keys: keys.to_vec() };
        self.log.lock().unwrap_or_else(|e| e.into_inner()).push(call);
        out
    }

    fn name(&self) -> &str {
        ["s0", "s1", "s2", "slow"].get(self.index).copied().unwrap_or("Db")
    }
}

/// Whether the sources answer after exactly their latency (`--exact`).
static EXACT: AtomicBool = AtomicBool::new(false);

/// How much of an exact wait is spun rather than slept: `thread::sleep`
/// overshoots by 50-100 µs on the development VM.
const SPIN_TAIL: Duration = Duration::from_micros(300);

/// Make the simulated sources answer after exactly their latency: they
/// sleep until [`SPIN_TAIL`] before it and yield until it passes. Without
/// it `thread::sleep` adds its overshoot (about 2 % of a 5 ms call) to
/// every call, a cost of the simulation that no executor can avoid.
pub fn set_exact(exact: bool) {
    EXACT.store(exact, Ordering::Relaxed);
}

/// A call's latency: `thread::sleep`, or exact (see [`set_exact`]). The
/// benchmark also times it alone (the *source time*), so the Ohua column
/// can be read against what its source's calls take back to back.
pub fn wait(latency: Duration) {
    if !EXACT.load(Ordering::Relaxed) {
        return std::thread::sleep(latency);
    }
    let deadline = Instant::now() + latency;
    if let Some(coarse) = latency.checked_sub(SPIN_TAIL) {
        std::thread::sleep(coarse);
    }
    while Instant::now() < deadline {
        std::thread::yield_now();
    }
}

/// The answer of a fetch (the simulated services never fail).
pub fn ok(r: Result<u64, ()>) -> u64 {
    r.expect("the simulated services never fail")
}

/// An Ohua program's entry: `run(s0, s1, s2, slow, x)`.
pub type Run = fn(&Source<Db>, &Source<Db>, &Source<Db>, &Source<Db>, u64) -> u64;

/// A compiled program and its spec.
pub struct Compiled {
    /// What it was generated from.
    pub spec: Spec,
    /// Its algorithm.
    pub run: Run,
}

/// The four sources of a run (`s0..s2`, slow) with the given latencies.
pub fn sources(latency: &[Duration; 4]) -> [Source<Db>; 4] {
    std::array::from_fn(|i| Source::new(Db::new(i, latency[i])))
}

/// Run `run` on fresh sources; result and calls per source.
pub fn run_ohua(run: Run, latency: &[Duration; 4], x: u64) -> (u64, [u64; 4]) {
    let (r, calls, _) = run_ohua_logged(run, latency, x);
    (r, calls)
}

/// [`run_ohua`], also returning each source's calls ([`Db::log`]).
pub fn run_ohua_logged(run: Run, latency: &[Duration; 4], x: u64) -> (u64, [u64; 4], [Vec<DbCall>; 4]) {
    let s = sources(latency);
    let r = run(&s[0], &s[1], &s[2], &s[3], x);
    let logs = std::array::from_fn(|i| std::mem::take(&mut *s[i].get().log.lock().unwrap_or_else(|e| e.into_inner())));
    (r, std::array::from_fn(|i| s[i].stats().calls), logs)
}
