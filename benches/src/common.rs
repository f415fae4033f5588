//! Header, timing and table helpers shared by the benchmarks.

use std::process::Command;
use std::time::{Duration, Instant};

/// Runs per variant; the median is reported.
pub const RUNS: usize = 5;

/// Rounds of [`interleaved`]: every variant runs once per round.
pub const ROUNDS: usize = 7;

/// The trivial stage of the chain and hop benchmarks. Not inlined, and its
/// argument goes through `black_box`, so every implementation performs the
/// same real calls.
#[inline(never)]
pub fn stage(x: u64) -> u64 {
    std::hint::black_box(x) + 1
}

/// `rounds` rounds of a multiply-xorshift mixer (the finalizer of
/// SplitMix64): a serial dependency chain the compiler cannot skip. The
/// CPU work of the benchmarks that need real work per call.
pub fn mix(mut x: u64, rounds: u64) -> u64 {
    for i in 0..rounds {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15 ^ i);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^= x >> 31;
    }
    x
}

/// The rounds of [`mix`] that take about `target` on this machine (best of
/// three timings of a probe).
pub fn rounds_for(target: Duration) -> u64 {
    let probe = 2_000;
    let calls = 2_000u64;
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let mut x = 0;
        for i in 0..calls {
            x ^= mix(i, probe);
        }
        std::hint::black_box(x);
        best = best.min(t.elapsed());
    }
    let per_round = best.as_secs_f64() / (calls * probe) as f64;
    (target.as_secs_f64() / per_round).round().max(1.0) as u64
}

fn command_output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// Print the benchmark's header: what it is, the command, the machine and
/// the toolchain and commit.
pub fn header(name: &str, what: &str) {
    println!("== {name}: {what}");
    println!("command : cargo run --release -p ohua-bench -- {name}");
    machine();
    println!("runs    : median of {RUNS} ({ROUNDS} interleaved rounds where a benchmark compares ratios)");
}

/// The header lines every benchmark prints about where it ran: `nproc`, the
/// CPU, `rustc`, the commit and the fences of the sleep/wake protocol.
pub fn machine() {
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("nproc   : {nproc}");
    println!("cpu     : {}", cpu_model());
    println!("rustc   : {}", command_output("rustc", &["--version"]).unwrap_or_else(|| "unknown".into()));
    println!(
        "commit  : {}",
        command_output("git", &["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".into())
    );
    let fences = if ohua_runtime::report::fences_are_asymmetric() {
        "asymmetric (membarrier on the parking side, compiler fence on the waking side)"
    } else {
        "symmetric (SeqCst on both sides)"
    };
    println!("fences  : {fences}");
}

/// Benchmark `bench`'s setting `name` from the environment, or `default`.
///
/// # Panics
///
/// If the variable is set to something that does not parse.
pub fn setting<T: std::str::FromStr>(bench: &str, name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(v) => v.parse().unwrap_or_else(|_| panic!("{bench}: {name}={v} is not a valid value")),
        Err(_) => default,
    }
}

/// Build a fresh input with `make_input` (not timed), time `f` on it, `RUNS`
/// times; return the median duration and the last result.
pub fn median<I, R>(mut make_input: impl FnMut() -> I, mut f: impl FnMut(I) -> R) -> (Duration, R) {
    let mut times = Vec::with_capacity(RUNS);
    let mut last = None;
    for _ in 0..RUNS {
        let input = make_input();
        let t = Instant::now();
        let r = f(input);
        times.push(t.elapsed());
        last = Some(r);
    }
    times.sort();
    (times[RUNS / 2], last.expect("RUNS > 0"))
}

/// Print a table row.
pub fn row(label: &str, value: String, note: String) {
    println!("  {label:<44} {value:>14}  {note}");
}

/// A benchmark variant: a label and the function it times.
pub type Variant<'a, I, R> = (&'a str, Box<dyn FnMut(I) -> R + 'a>);

/// Time every variant `ROUNDS` times, round-robin: each round runs every
/// variant once, each on a fresh input from `make_input` (not timed). A slow
/// phase of a noisy VM then hits all variants alike instead of whichever
/// variant happened to be running, which keeps the *ratios* honest. Every
/// result is passed to `check` (which panics on a wrong answer). Returns each
/// variant's median, in the order given.
pub fn interleaved<I, R>(
    mut make_input: impl FnMut() -> I,
    variants: &mut [Variant<'_, I, R>],
    check: impl Fn(&str, &R),
) -> Vec<Duration> {
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(ROUNDS); variants.len()];
    for _ in 0..ROUNDS {
        for (k, (label, run)) in variants.iter_mut().enumerate() {
            let input = make_input();
            let t = Instant::now();
            let r = run(input);
            times[k].push(t.elapsed());
            check(label, &r);
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort();
            t[ROUNDS / 2]
        })
        .collect()
}

/// Two sections by rules: the operators `first` (exact names), with the
/// loop's input side (`input`, a pattern of the arguments and loop
/// operators), in one; everything else in the other.
pub fn two_sections_after(first: &[String], input: &str) -> ohua::SectionStrategy {
    let mut patterns: Vec<String> = first.iter().map(|n| format!("^{}$", regex_escape(n))).collect();
    patterns.push(input.into());
    ohua::SectionStrategy::Rules(vec![
        ohua::SectionRule::new(patterns).expect("valid regex"),
        ohua::SectionRule::new([".*"]).expect("valid regex"),
    ])
}

/// The names of a run's operators whose name contains `part` (a call's
/// `/function#`), in the order of their call sites.
pub fn calls_in_site_order(report: &ohua::RunReport, part: &str) -> Vec<String> {
    let mut names: Vec<(u64, &str)> = report
        .nodes
        .iter()
        .filter(|n| n.name.contains(part))
        .map(|n| (n.name.rsplit('#').next().and_then(|k| k.parse().ok()).unwrap_or(u64::MAX), n.name))
        .collect();
    names.sort();
    names.into_iter().map(|(_, n)| n.to_string()).collect()
}

fn regex_escape(s: &str) -> String {
    s.chars().fold(String::new(), |mut acc, c| {
        if "\\.+*?()|[]{}^$".contains(c) {
            acc.push('\\');
        }
        acc.push(c);
        acc
    })
}
