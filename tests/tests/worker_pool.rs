//! Sections run on a process-wide pool of workers (`src/pool.rs` in the
//! runtime): runs reuse the workers of earlier runs, concurrent callers
//! each get workers of their own, and results stay those of sequential
//! execution.

use std::collections::HashSet;
use std::sync::Mutex;
use std::thread::ThreadId;

use ohua::{algorithm, Deployment, SectionStrategy};

/// The pool is process-wide: these tests take turns so that one does not
/// use (and count) the workers the other started.
static TURN: Mutex<()> = Mutex::new(());

/// Every thread an operator of `tagged` ran on.
static SEEN: Mutex<Option<HashSet<ThreadId>>> = Mutex::new(None);

fn note_thread(x: u64) -> u64 {
    SEEN.lock().unwrap().get_or_insert_with(HashSet::new).insert(std::thread::current().id());
    x + 1
}

fn double(x: u64) -> u64 {
    x * 2
}

#[algorithm]
fn tagged(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for x in xs {
        let a = note_thread(x);
        let b = double(a);
        let c = note_thread(b);
        out.push(c);
    }
    out
}

#[algorithm]
fn mixed(xs: Vec<u64>) -> (u64, Vec<u64>) {
    let mut total = 0;
    let mut kept = Vec::new();
    for x in xs {
        let y = double(x);
        if y % 3 == 0 {
            kept.push(y);
        }
        total += y;
    }
    (total, kept)
}

fn per_operator() -> Deployment {
    Deployment::default().workers(2).sections(SectionStrategy::PerOperator).batch_size(4).arc_capacity(4)
}

#[test]
fn consecutive_runs_reuse_the_same_workers() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let d = per_operator();
    let (_, reports) = ohua::profile(|| ohua::with_deployment(d.clone(), || tagged(vec![1, 2, 3])));
    let sections = reports[0].sections;
    assert!(sections >= 4, "the test needs several sections, got {sections}");
    *SEEN.lock().unwrap() = None;
    for k in 0..300u64 {
        // Short pauses now and then let the workers park between runs.
        if k % 50 == 0 {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let out = ohua::with_deployment(d.clone(), || tagged((0..k % 7).collect()));
        assert_eq!(out, (0..k % 7).map(|x| (x + 1) * 2 + 1).collect::<Vec<_>>());
    }
    let threads = SEEN.lock().unwrap().take().unwrap_or_default().len();
    // Without reuse, 300 runs would have used hundreds of threads. The
    // caller plus one worker per other section is the most a pool needs
    // for one caller; an idle worker that timed out meanwhile (after 5 s)
    // would add one more.
    assert!(threads <= sections + 1, "operators ran on {threads} threads for {sections} sections");
}

#[test]
fn concurrent_callers_get_workers_of_their_own() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let expected = ohua::sequential(|| mixed((0..500).collect()));
    let callers: Vec<_> = (0..4)
        .map(|_| {
            let expected = expected.clone();
            std::thread::spawn(move || {
                for _ in 0..50 {
                    assert_eq!(ohua::with_deployment(per_operator(), || mixed((0..500).collect())), expected);
                }
            })
        })
        .collect();
    for c in callers {
        c.join().expect("a caller failed");
    }
}
