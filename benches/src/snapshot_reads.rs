//! `snapshot`: shared state read in parallel (issue 24, InContext's
//! contexts). A stream of events over one table: a fraction `g` write it
//! (a cheap `&mut self` update), the rest read it (a `&self` scoring of
//! 20-100 µs). Every read must see the table as the writes before it left
//! it, and the results are folded in event order.
//!
//! * sequential: the plain loop.
//! * R/W lock: InContext's R/W runtime by hand: a dispatcher takes the
//!   events in order, a read holds a reader's share of the lock from its
//!   dispatch to its end and runs on a pool of two workers, a write waits
//!   until every earlier read is done; the results are put back in order.
//! * arc-swap: the same by hand with the `arc-swap` crate
//!   ([`crate::snapshot_peers`]).
//! * ohua: `ohua::snapshot(Table::new())`: writes on the live table, each
//!   read on a snapshot off the table's path (default deployment, after one
//!   measured call).
//!
//! Then the same one-line declaration over a table of 100 000 slots, as a
//! `Vec` and as an `im::Vector` (a cheap `Clone`): [`crate::snapshot_peers`].

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::Duration;

use crossbeam_channel::{unbounded, Receiver};

use crate::common::{header, interleaved, mix, rounds_for, row, Variant};
use crate::snapshot_peers;

pub(crate) const EVENTS: u64 = 2_000;
const SLOTS: usize = 256;

/// Rounds of [`mix`] in 20 µs, calibrated at start-up.
static UNIT: AtomicU64 = AtomicU64::new(1000);

/// One event: a write of `value` at `key`, or a read about `key`.
#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub(crate) write: bool,
    pub(crate) key: u64,
    pub(crate) value: u64,
}

/// 20-100 µs of work on `base`, what a table holds for the event's key.
pub(crate) fn work(base: u64, e: &Event) -> u64 {
    mix(base ^ e.value, UNIT.load(Ordering::Relaxed) * (1 + e.key % 5))
}

/// The shared state: small, so a copy on write costs little.
#[derive(Clone)]
pub struct Table {
    slots: Vec<u64>,
    writes: u64,
}

impl Table {
    pub(crate) fn new() -> Self {
        Table { slots: vec![0; SLOTS], writes: 0 }
    }

    pub(crate) fn put(&mut self, key: u64, value: u64) {
        self.slots[key as usize % SLOTS] ^= value;
        self.writes += 1;
    }

    /// 20-100 µs of work on what the table holds for the event's key.
    pub(crate) fn score(&self, e: &Event) -> u64 {
        work(self.slots[e.key as usize % SLOTS] ^ self.writes, e)
    }
}

/// An order-sensitive fold of the results.
pub struct Fold(pub(crate) u64);

impl Fold {
    pub(crate) fn new() -> Self {
        Fold(0)
    }
    pub(crate) fn add(&mut self, v: u64) {
        self.0 = self.0.rotate_left(7) ^ v;
    }
}

/// The benchmark's algorithm over a table of type `$table` (one per
/// table type: the compiler reads the state's type from its declaration).
macro_rules! serve_over {
    ($name:ident, $table:ident) => {
        #[ohua::algorithm]
        pub(crate) fn $name(events: Vec<Event>) -> u64 {
            let mut table = ohua::snapshot($table::new());
            let mut out = Fold::new();
            for e in events {
                if e.write {
                    table.put(e.key, e.value);
                } else {
                    let r = table.score(&e);
                    out.add(r);
                }
            }
            out.0
        }
    };
}
pub(crate) use serve_over;

serve_over!(serve, Table);

fn sequential(events: Vec<Event>) -> u64 {
    sequential_on(Table::new(), events, Table::put, Table::score)
}

/// The plain loop over any table, given its write and its read.
pub(crate) fn sequential_on<T>(
    mut table: T,
    events: Vec<Event>,
    put: impl Fn(&mut T, u64, u64),
    score: impl Fn(&T, &Event) -> u64,
) -> u64 {
    let mut out = Fold::new();
    for e in events {
        if e.write {
            put(&mut table, e.key, e.value);
        } else {
            out.add(score(&table, &e));
        }
    }
    out.0
}

/// Reads dispatched and not yet done: what a writer waits for.
struct Readers {
    active: Mutex<usize>,
    done: Condvar,
}

fn rw_lock(events: Vec<Event>, workers: usize) -> u64 {
    let table = Arc::new(RwLock::new(Table::new()));
    let readers = Arc::new(Readers { active: Mutex::new(0), done: Condvar::new() });
    let (jobs_tx, jobs_rx) = unbounded::<(usize, Event)>();
    let (results_tx, results_rx) = unbounded::<(usize, u64)>();
    let reads = events.iter().filter(|e| !e.write).count();
    std::thread::scope(|s| {
        for _ in 0..workers {
            let (jobs, results, table, readers) = (jobs_rx.clone(), results_tx.clone(), &table, &readers);
            s.spawn(move || {
                for (i, e) in jobs {
                    let r = table.read().expect("no panic").score(&e);
                    *readers.active.lock().expect("no panic") -= 1;
                    readers.done.notify_all();
                    results.send((i, r)).expect("collector alive");
                }
            });
        }
        drop(results_tx);
        let mut n = 0;
        for e in events {
            if e.write {
                let mut active = readers.active.lock().expect("no panic");
                while *active > 0 {
                    active = readers.done.wait(active).expect("no panic");
                }
                table.write().expect("no panic").put(e.key, e.value);
            } else {
                *readers.active.lock().expect("no panic") += 1;
                jobs_tx.send((n, e)).expect("workers alive");
                n += 1;
            }
        }
        drop(jobs_tx);
        fold_in_order(&results_rx, reads)
    })
}

/// The `reads` results `(n, r)` of the `n`th read, in any order, put back
/// in event order and folded.
pub(crate) fn fold_in_order(results: &Receiver<(usize, u64)>, reads: usize) -> u64 {
    let mut pending = BTreeMap::new();
    let (mut out, mut next) = (Fold::new(), 0);
    for (i, r) in results.iter().take(reads) {
        pending.insert(i, r);
        while let Some(r) = pending.remove(&next) {
            out.add(r);
            next += 1;
        }
    }
    out.0
}

fn events(g: f64) -> Vec<Event> {
    events_over(g, SLOTS)
}

/// [`EVENTS`] events, a fraction `g` of them writes, with keys spread over
/// `slots` slots.
pub(crate) fn events_over(g: f64, slots: usize) -> Vec<Event> {
    (0..EVENTS)
        .map(|i| {
            let h = mix(i, 3);
            Event { write: ((h % 10_000) as f64) < g * 10_000.0, key: (h >> 20) % slots as u64, value: h >> 32 }
        })
        .collect()
}

pub fn run() {
    header("snapshot", "a table written by a fraction g of events and read (20-100 µs) by the rest");
    UNIT.store(rounds_for(Duration::from_micros(20)), Ordering::Relaxed);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    println!(
        "  {EVENTS} events, reads of 20-100 µs, a table of {SLOTS} slots; R/W lock and arc-swap on {workers} workers"
    );
    for g in [0.05, 0.3, 0.7] {
        let expected = sequential(events(g));
        // One measured call, so that the default deployment plans from cost.
        assert_eq!(serve(events(g)), expected, "ohua differs from sequential");
        // SNAPSHOT_REPORT=1: the report of a call with the plan the variant uses.
        if std::env::var_os("SNAPSHOT_REPORT").is_some() {
            let (_, reports) = ohua::profile(|| serve(events(g)));
            println!("{}", reports[0]);
        }
        let mut variants: Vec<Variant<'_, Vec<Event>, u64>> = vec![
            ("sequential", Box::new(sequential)),
            ("R/W lock", Box::new(move |e| rw_lock(e, workers))),
            ("arc-swap", Box::new(move |e| snapshot_peers::arc_swap(e, workers))),
            ("ohua snapshot", Box::new(serve)),
        ];
        let t = interleaved(|| events(g), &mut variants, |label, r| assert_eq!(*r, expected, "{label}"));
        let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1e3);
        println!("  g = {g}");
        row("sequential", ms(t[0]), String::new());
        let x = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
        row("R/W lock", ms(t[1]), format!("{:.2}x sequential", x(t[0], t[1])));
        row("arc-swap", ms(t[2]), format!("{:.2}x sequential, {:.2}x R/W lock", x(t[0], t[2]), x(t[1], t[2])));
        row(
            "ohua snapshot",
            ms(t[3]),
            format!("{:.2}x sequential, {:.2}x R/W lock, {:.2}x arc-swap", x(t[0], t[3]), x(t[1], t[3]), x(t[2], t[3])),
        );
    }
    snapshot_peers::big_tables();
    println!();
}
