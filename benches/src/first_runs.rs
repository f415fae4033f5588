//! `first-runs`: the first run of each benchmark shape in a fresh process
//! (issue 23: "no run slower than sequential because it was the first").
//!
//! A batch job runs its algorithm once per process, so its only run is a
//! first run, planned before anything was measured (stateless pieces on
//! elastic replicas, `crates/ohua-runtime/src/node/elastic.rs`). For each
//! shape of `balanced` and `replicate`, and a keyed one (`keyed_flows.rs`:
//! its first run moves key groups), this benchmark starts [`CHILDREN`]
//! processes; each times the sequential loop (after one untimed warm-up
//! run), then the default deployment's first run, then its best of three
//! later runs, and the parent prints the medians against sequential.

use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::common::{header, rounds_for, row};
use crate::{balanced, replicate};

/// Fresh processes per shape.
const CHILDREN: usize = 5;

/// Set in a child: the shape to run.
const CHILD: &str = "OHUA_BENCH_FIRST_RUN_CHILD";

/// The shapes: name, what it is, and how a child runs it (sequential,
/// first and later runs, in seconds).
const SHAPES: [(&str, &str); 7] = [
    ("balanced", "2 stateless stages of 10 µs, 20,000 items"),
    ("map", "collecting map over a 20 µs stateless call, 20,000 items"),
    ("fold", "a 20 µs stateless call into an order-sensitive state"),
    ("dnr", "two heavy stateful stages (not replicable)"),
    ("skewed", "two stateful stages of 10 µs, then two of 1 µs"),
    ("tiny", "three 200 ns stateless calls into a state, 1,000,000 items"),
    ("keyed", "a 20 µs call on a keyed state of 64 flows, 20,000 items"),
];

fn time<R: PartialEq + std::fmt::Debug>(f: &dyn Fn() -> R) -> (f64, R) {
    let t = Instant::now();
    let r = f();
    (t.elapsed().as_secs_f64(), r)
}

/// Sequential, first run and best later run of `f` (given `ohua::sequential`
/// around it for the first), results checked equal.
fn measure<R: PartialEq + std::fmt::Debug>(f: &dyn Fn() -> R) -> [f64; 3] {
    let _ = ohua::sequential(f);
    let (seq, expected) = time(&|| ohua::sequential(f));
    let (first, r) = time(f);
    assert_eq!(r, expected, "first run differs from sequential execution");
    let mut later = f64::MAX;
    for _ in 0..3 {
        let (t, r) = time(f);
        assert_eq!(r, expected, "a later run differs from sequential execution");
        later = later.min(t);
    }
    [seq, first, later]
}

fn child(shape: &str) {
    let items: Vec<u64> = (0..20_000).collect();
    replicate::HEAVY.store(rounds_for(Duration::from_micros(20)), Ordering::Relaxed);
    let r = match shape {
        "balanced" => {
            balanced::calibrate();
            measure(&|| balanced::two_stage(items.clone()))
        }
        "map" => measure(&|| replicate::heavy_map(items.clone())),
        "fold" => measure(&|| replicate::heavy_fold(items.clone())),
        "dnr" => measure(&|| replicate::dnr(items.clone())),
        "skewed" => measure(&|| replicate::skewed(items.clone())),
        "keyed" => measure(&|| crate::keyed_flows::keyed_flows(items.clone())),
        "tiny" => {
            replicate::TINY.store(rounds_for(Duration::from_nanos(200)), Ordering::Relaxed);
            let many: Vec<u64> = (0..1_000_000).collect();
            measure(&|| replicate::tiny_fold(many.clone()))
        }
        other => panic!("first-runs: unknown shape {other}"),
    };
    println!("{} {} {}", r[0], r[1], r[2]);
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

pub fn run() {
    if let Ok(shape) = std::env::var(CHILD) {
        return child(&shape);
    }
    header("first-runs", "each shape's first run in a fresh process, against sequential and its later runs");
    let exe = std::env::current_exe().expect("the benchmark's own path");
    println!("  {:<10} {:>10} {:>12} {:>12}   what", "shape", "seq ms", "first/seq", "later/seq");
    for (shape, what) in SHAPES {
        let (mut first, mut later, mut seq) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..CHILDREN {
            let out = Command::new(&exe).arg("first-runs").env(CHILD, shape).output().expect("start a child");
            assert!(out.status.success(), "first-runs child failed: {}", String::from_utf8_lossy(&out.stderr));
            let text = String::from_utf8_lossy(&out.stdout);
            let v: Vec<f64> =
                text.lines().last().expect("a line").split_whitespace().map(|x| x.parse().expect("a number")).collect();
            seq.push(v[0]);
            first.push(v[0] / v[1]);
            later.push(v[0] / v[2]);
        }
        row(
            shape,
            format!("{:>10.1} {:>11.2}x {:>11.2}x", median(seq) * 1e3, median(first), median(later)),
            what.to_string(),
        );
    }
    println!();
}
