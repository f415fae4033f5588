//! `first-call`: one call of a small algorithm in a fresh process.
//!
//! A batch job or CLI tool calls its algorithm once per process, so it
//! pays for whatever a graph's first run costs: planning without
//! measurements (a first run plans stateless pieces on elastic replicas,
//! `crates/ohua-runtime/src/node/elastic.rs`), starting the worker pool and
//! the monitor. This benchmark starts itself [`CHILDREN`] times; each child
//! times its first call of `calls`'s 3-stage loop over 16 items, a second
//! and a third call 2 ms apart, then the same body as plain Rust, and
//! prints the four. (A second call runs code the first may not have run:
//! after a first call on elastic replicas, the unreplicated operators'.)
//! The parent reports the medians.

use std::process::Command;
use std::time::Instant;

use crate::calls::small;
use crate::common::{header, row};

/// Fresh processes measured.
const CHILDREN: usize = 21;

/// Set in a child: run one measurement and print it.
const CHILD: &str = "OHUA_BENCH_FIRST_CALL_CHILD";

fn child() {
    let xs: Vec<u64> = (0..16).collect();
    let time = |f: &dyn Fn() -> u64| {
        let start = Instant::now();
        let r = f();
        (start.elapsed().as_secs_f64() * 1e6, r)
    };
    let (first, r1) = time(&|| small(xs.clone()));
    // A pause, so that the second call finds the pool's workers asleep
    // whatever the first call's sections did last (a worker that finished
    // just before spins 50 µs and takes the next job without a wake-up).
    std::thread::sleep(std::time::Duration::from_millis(2));
    let (second, r2) = time(&|| small(xs.clone()));
    std::thread::sleep(std::time::Duration::from_millis(2));
    let (third, r3) = time(&|| small(xs.clone()));
    let (plain, r4) = time(&|| ohua::sequential(|| small(xs.clone())));
    assert!(r1 == r2 && r2 == r3 && r3 == r4, "first-call: results differ: {r1} {r2} {r3} {r4}");
    println!("{first:.1} {second:.1} {third:.1} {plain:.1}");
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

pub fn run() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    header("first-call", "one call of a 3-stage loop over 16 items in a fresh process (median of 21 processes)");
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let mut cols: [Vec<f64>; 4] = Default::default();
    for _ in 0..CHILDREN {
        let out = Command::new(&exe).arg("first-call").env(CHILD, "1").output().expect("start a child");
        assert!(out.status.success(), "first-call child failed: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().last().expect("one line").to_owned();
        for (col, x) in cols.iter_mut().zip(line.split_whitespace()) {
            col.push(x.parse().expect("a number"));
        }
    }
    let [first, second, third, plain] = cols.map(median);
    println!("  {:<44} {:>14}", "variant", "us/call");
    row("ohua, first call in the process", format!("{first:.1}"), String::new());
    row("ohua, second call (2 ms later)", format!("{second:.1}"), String::new());
    row("ohua, third call (2 ms later)", format!("{third:.1}"), String::new());
    row("plain Rust (ohua::sequential), fourth call", format!("{plain:.1}"), String::new());
    println!("ratios:");
    row("first call / third call", format!("{:.2}x", first / third), String::new());
    println!();
}
