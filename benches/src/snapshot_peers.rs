//! More peers of the `snapshot` benchmark ([`crate::snapshot_reads`]).
//!
//! * [`arc_swap`]: what `ohua::snapshot` does, by hand with the `arc-swap`
//!   crate: a dispatcher in event order applies each write to a copy of
//!   the current table and stores it, and hands each read the current
//!   version (`load_full`) with its event, to a pool of workers; the results
//!   are put back in event order.
//! * [`big_tables`]: the same one-line declaration over a table of
//!   [`BIG`] slots, once as a `Vec` (a write that finds a reader still
//!   holding the table copies 800 KB) and once as an `im::Vector`, a
//!   persistent vector whose `Clone` shares the tree and whose write then
//!   copies only the path to the slot.

use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use crossbeam_channel::unbounded;

use crate::common::{interleaved, row, Variant};
use crate::snapshot_reads::{events_over, fold_in_order, sequential_on, serve_over, work, Event, Fold, Table, EVENTS};

/// Slots of the large tables.
pub const BIG: usize = 100_000;

/// The benchmark's table behind an `ArcSwap`: a write clones the current
/// version, changes the clone and stores it (`rcu`); a read runs on a pool
/// of `workers` threads on the version current at its dispatch.
pub fn arc_swap(events: Vec<Event>, workers: usize) -> u64 {
    let table = ArcSwap::from_pointee(Table::new());
    let (jobs_tx, jobs_rx) = unbounded::<(usize, Arc<Table>, Event)>();
    let (results_tx, results_rx) = unbounded::<(usize, u64)>();
    let reads = events.iter().filter(|e| !e.write).count();
    std::thread::scope(|s| {
        for _ in 0..workers {
            let (jobs, results) = (jobs_rx.clone(), results_tx.clone());
            s.spawn(move || {
                for (i, version, e) in jobs {
                    results.send((i, version.score(&e))).expect("collector alive");
                }
            });
        }
        drop(results_tx);
        let mut n = 0;
        for e in events {
            if e.write {
                table.rcu(|current| {
                    let mut next = Table::clone(current);
                    next.put(e.key, e.value);
                    next
                });
            } else {
                jobs_tx.send((n, table.load_full(), e)).expect("workers alive");
                n += 1;
            }
        }
        drop(jobs_tx);
        fold_in_order(&results_rx, reads)
    })
}

/// [`BIG`] slots in a `Vec`: a clone copies them all.
#[derive(Clone)]
pub struct BigTable {
    slots: Vec<u64>,
    writes: u64,
}

impl BigTable {
    fn new() -> Self {
        BigTable { slots: vec![0; BIG], writes: 0 }
    }

    fn put(&mut self, key: u64, value: u64) {
        self.slots[key as usize % BIG] ^= value;
        self.writes += 1;
    }

    fn score(&self, e: &Event) -> u64 {
        work(self.slots[e.key as usize % BIG] ^ self.writes, e)
    }
}

/// [`BIG`] slots in an `im::Vector`: a clone shares the tree, and a write
/// to a shared tree copies the nodes on the path to its slot.
#[derive(Clone)]
pub struct ImTable {
    slots: im::Vector<u64>,
    writes: u64,
}

impl ImTable {
    fn new() -> Self {
        ImTable { slots: im::Vector::from(vec![0; BIG]), writes: 0 }
    }

    fn put(&mut self, key: u64, value: u64) {
        self.slots[key as usize % BIG] ^= value;
        self.writes += 1;
    }

    fn score(&self, e: &Event) -> u64 {
        work(self.slots[e.key as usize % BIG] ^ self.writes, e)
    }
}

serve_over!(serve_vec, BigTable);
serve_over!(serve_im, ImTable);

fn sequential_vec(events: Vec<Event>) -> u64 {
    sequential_on(BigTable::new(), events, BigTable::put, BigTable::score)
}

fn sequential_im(events: Vec<Event>) -> u64 {
    sequential_on(ImTable::new(), events, ImTable::put, ImTable::score)
}

/// Snapshots taken, copies made and the time spent in the writes (copies
/// included) in one profiled call of `serve`, which must return `expected`
/// (`SNAPSHOT_REPORT=1`: its report is printed).
fn copies(serve: fn(Vec<Event>) -> u64, events: Vec<Event>, expected: u64) -> String {
    let (r, reports) = ohua::profile(|| serve(events));
    assert_eq!(r, expected, "ohua differs from sequential");
    if std::env::var_os("SNAPSHOT_REPORT").is_some() {
        for report in &reports {
            println!("{report}");
        }
    }
    let (taken, copies) = reports.iter().fold((0, 0), |(t, c), r| (t + r.snapshots.taken, c + r.snapshots.copies));
    let writes: Duration =
        reports.iter().flat_map(|r| &r.nodes).filter(|n| n.name.contains("/put#")).map(|n| n.busy).sum();
    format!("{copies} copies of {taken} snapshots, writes {:.1} ms", writes.as_secs_f64() * 1e3)
}

/// The write-heavy mixes over [`BIG`] slots: ohua with a `Vec` state and
/// with an `im::Vector` one, against the plain loop over the `Vec`.
pub fn big_tables() {
    println!(
        "  a table of {BIG} slots ({} KiB as a Vec), keys over all of it; ohua over a Vec and over an im::Vector",
        BIG * 8 / 1024
    );
    for g in [0.3, 0.7] {
        let events = || events_over(g, BIG);
        let expected = sequential_vec(events());
        assert_eq!(sequential_im(events()), expected, "the im table differs from the Vec");
        // One measured call each, so that the default deployment plans from cost.
        assert_eq!(serve_vec(events()), expected, "ohua (Vec) differs from sequential");
        assert_eq!(serve_im(events()), expected, "ohua (im) differs from sequential");
        let (copies_vec, copies_im) = (copies(serve_vec, events(), expected), copies(serve_im, events(), expected));
        let mut variants: Vec<Variant<'_, Vec<Event>, u64>> = vec![
            ("sequential (Vec)", Box::new(sequential_vec)),
            ("sequential (im)", Box::new(sequential_im)),
            ("ohua snapshot (Vec)", Box::new(serve_vec)),
            ("ohua snapshot (im)", Box::new(serve_im)),
        ];
        let t = interleaved(events, &mut variants, |label, r| assert_eq!(*r, expected, "{label}"));
        let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1e3);
        let x = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
        println!("  g = {g}, {BIG} slots ({EVENTS} events)");
        row("sequential (Vec)", ms(t[0]), String::new());
        row("sequential (im)", ms(t[1]), format!("{:.2}x sequential (Vec)", x(t[0], t[1])));
        row("ohua snapshot (Vec)", ms(t[2]), format!("{:.2}x sequential (Vec); {copies_vec}", x(t[0], t[2])));
        row(
            "ohua snapshot (im)",
            ms(t[3]),
            format!("{:.2}x sequential (Vec), {:.2}x ohua (Vec); {copies_im}", x(t[0], t[3]), x(t[2], t[3])),
        );
    }
}
