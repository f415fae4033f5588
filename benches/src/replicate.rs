//! `replicate`: data parallelism (issue "Data parallelism"): one heavy
//! stateless function per item, where pipeline stages alone stop at one core.
//!
//! * `map`: a collecting map over a ~20 µs stateless function, 20,000 items,
//!   against the sequential loop and rayon's `par_iter().map().collect()`.
//! * `fold`: the same function feeding an order-sensitive state object in a
//!   `for` loop, against the sequential loop and a hand-written pool of two
//!   workers whose results the calling thread puts back in order.
//! * `tiny`: three tiny stateless calls (~200, ~100, ~50 and ~10 ns each) feeding
//!   a state object (Lagniappe Fig. 6c): fused in one section, pipelined,
//!   replicated, and what `auto` picks, which must be within 10 % of the
//!   fastest.
//!
//! * `dnr`: two heavy *stateful* stages (Lagniappe's "Do Not Replicate",
//!   Fig. 6b): they cannot be replicated, so pipelining them must beat
//!   running them in one stage.
//!
//! `ohua default` is the default deployment after one call of the algorithm
//! has been measured (the report of a profiled call shows what it chose).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crossbeam_channel::bounded;
use ohua::{algorithm, Deployment, Replication, SectionStrategy};
use rayon::prelude::*;

use crate::common::{header, interleaved, mix, rounds_for, row, Variant};

const ITEMS: u64 = 20_000;
const TINY_ITEMS: u64 = 1_000_000;

/// Rounds of [`mix`] in one call of [`heavy`] (about 20 µs) and of [`tiny`]
/// (about 0.2 µs), calibrated at start-up.
pub(crate) static HEAVY: AtomicU64 = AtomicU64::new(1000);
pub(crate) static TINY: AtomicU64 = AtomicU64::new(10);

#[inline(never)]
pub(crate) fn heavy(x: u64) -> u64 {
    mix(std::hint::black_box(x), HEAVY.load(Ordering::Relaxed))
}

#[inline(never)]
fn tiny(x: u64) -> u64 {
    mix(std::hint::black_box(x), TINY.load(Ordering::Relaxed))
}

/// An order-sensitive accumulator: a different order gives another hash.
pub struct Fold {
    hash: u64,
    count: u64,
}

impl Fold {
    fn new() -> Self {
        Fold { hash: 0, count: 0 }
    }
    fn add(&mut self, v: u64) {
        self.hash = self.hash.rotate_left(5) ^ v;
        self.count += 1;
    }
    fn get(&self) -> (u64, u64) {
        (self.hash, self.count)
    }
}

#[algorithm]
pub(crate) fn heavy_map(xs: Vec<u64>) -> Vec<u64> {
    let ys: Vec<u64> = xs.into_iter().map(|x| heavy(x)).collect();
    ys
}

#[algorithm]
pub(crate) fn heavy_fold(xs: Vec<u64>) -> (u64, u64) {
    let mut acc = Fold::new();
    for x in xs {
        let y = heavy(x);
        acc.add(y);
    }
    acc.get()
}

/// A stateful stage: its state changes with every item, so its calls must
/// run in order on one instance.
pub struct Stateful {
    h: u64,
    /// Its step costs `HEAVY / share` rounds.
    share: u64,
}

impl Stateful {
    fn new(seed: u64) -> Self {
        Stateful { h: seed, share: 2 }
    }
    /// A stage a tenth as heavy.
    fn light(seed: u64) -> Self {
        Stateful { h: seed, share: 20 }
    }
    fn step(&mut self, x: u64) -> u64 {
        self.h = mix(self.h ^ x, HEAVY.load(Ordering::Relaxed) / self.share);
        self.h
    }
}

#[algorithm]
pub(crate) fn dnr(xs: Vec<u64>) -> (u64, u64) {
    let mut a = Stateful::new(1);
    let mut b = Stateful::new(2);
    let mut acc = Fold::new();
    for x in xs {
        let y = a.step(x);
        let z = b.step(y);
        acc.add(z);
    }
    acc.get()
}

fn sequential_dnr(xs: Vec<u64>) -> (u64, u64) {
    let (mut a, mut b, mut acc) = (Stateful::new(1), Stateful::new(2), Fold::new());
    for x in xs {
        acc.add(b.step(a.step(x)));
    }
    acc.get()
}

/// Two heavy stateful stages, then two light ones: counted by operators,
/// the first run's cut puts both heavy stages in one section (issue 23:
/// re-cutting while running, `crates/ohua-runtime/src/exec/hosting.rs`).
#[algorithm]
pub(crate) fn skewed(xs: Vec<u64>) -> (u64, u64) {
    let mut a = Stateful::new(1);
    let mut b = Stateful::new(2);
    let mut c = Stateful::light(3);
    let mut d = Stateful::light(4);
    let mut acc = Fold::new();
    for x in xs {
        let y = a.step(x);
        let z = b.step(y);
        let u = c.step(z);
        let v = d.step(u);
        acc.add(v);
    }
    acc.get()
}

#[algorithm]
pub(crate) fn tiny_fold(xs: Vec<u64>) -> (u64, u64) {
    let mut acc = Fold::new();
    for x in xs {
        let a = tiny(x);
        let b = tiny(a);
        let c = tiny(b);
        acc.add(c);
    }
    acc.get()
}

fn sequential_fold(xs: Vec<u64>, f: impl Fn(u64) -> u64) -> (u64, u64) {
    let mut acc = Fold::new();
    for x in xs {
        acc.add(f(x));
    }
    acc.get()
}

/// Two worker threads take chunks of 64 items from a channel and send back
/// `(chunk index, results)`; the calling thread folds the chunks in order,
/// holding early ones in a reorder buffer.
fn hand_written_fold(xs: Vec<u64>) -> (u64, u64) {
    const CHUNK: usize = 64;
    let chunks: Vec<Vec<u64>> = xs.chunks(CHUNK).map(<[u64]>::to_vec).collect();
    let total = chunks.len();
    let (work_tx, work_rx) = bounded::<(usize, Vec<u64>)>(total.max(1));
    let (done_tx, done_rx) = bounded::<(usize, Vec<u64>)>(16);
    for c in chunks.into_iter().enumerate() {
        work_tx.send(c).expect("room for every chunk");
    }
    drop(work_tx);
    std::thread::scope(|s| {
        for _ in 0..2 {
            let (work_rx, done_tx) = (work_rx.clone(), done_tx.clone());
            s.spawn(move || {
                for (k, chunk) in work_rx {
                    done_tx.send((k, chunk.into_iter().map(heavy).collect())).expect("folder alive");
                }
            });
        }
        drop(done_tx);
        let mut acc = Fold::new();
        let mut early = BTreeMap::new();
        let mut next = 0;
        for (k, ys) in done_rx {
            early.insert(k, ys);
            while let Some(ys) = early.remove(&next) {
                ys.into_iter().for_each(|y| acc.add(y));
                next += 1;
            }
        }
        assert_eq!(next, total, "every chunk folded");
        acc.get()
    })
}

fn deployment(sections: SectionStrategy, replicas: &str) -> Deployment {
    Deployment::default()
        .workers(2)
        .sections(sections)
        .replicas(replicas.parse::<Replication>().expect("valid replicas"))
}

/// One measured call under the default deployment, so later calls are
/// planned from measured costs; prints what the default then chooses.
fn learn<R>(what: &str, call: impl Fn() -> R) {
    call();
    let (_, reports) = ohua::profile(call);
    let r = &reports[0];
    let replicated: Vec<String> = r
        .nodes
        .iter()
        .filter(|n| !n.replicas.is_empty())
        .map(|n| format!("{} ×{}", n.name, n.replicas.len()))
        .collect();
    let replicated = if replicated.is_empty() { "nothing".to_string() } else { replicated.join(", ") };
    println!("{what}: the default deployment uses {} section(s) and replicates {replicated}", r.sections);
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

/// The labels of `variants`, in order.
fn labels<I, R>(variants: &[Variant<'_, I, R>]) -> Vec<String> {
    variants.iter().map(|(label, _)| label.to_string()).collect()
}

/// One row per variant with its speedup over the first variant
/// (sequential) and over the second (`second`, the baseline to beat).
fn table(what: &str, second: &str, labels: &[String], times: &[Duration]) {
    println!("  {:<44} {:>14}  speedup vs sequential / vs {second}", format!("{what} variant"), "ms");
    for (label, t) in labels.iter().zip(times) {
        let (s, o) = (times[0].as_secs_f64() / t.as_secs_f64(), times[1].as_secs_f64() / t.as_secs_f64());
        row(label, ms(*t), format!("{s:.2}x / {o:.2}x"));
    }
}

fn map_benchmark() {
    let xs: Vec<u64> = (0..ITEMS).collect();
    let expected: Vec<u64> = xs.iter().map(|&x| heavy(x)).collect();
    learn("map", || heavy_map(xs.clone()));
    let two = deployment(SectionStrategy::Auto, "heavy_map/heavy#.*=2");
    let mut variants: Vec<Variant<'_, Vec<u64>, Vec<u64>>> = vec![
        ("sequential map", Box::new(|v: Vec<u64>| v.into_iter().map(heavy).collect())),
        ("rayon par_iter().map().collect()", Box::new(|v: Vec<u64>| v.into_par_iter().map(heavy).collect())),
        ("ohua default", Box::new(heavy_map)),
        ("ohua 2 replicas (rule)", Box::new(|v| ohua::with_deployment(two.clone(), || heavy_map(v)))),
    ];
    let times = interleaved(|| xs.clone(), &mut variants, |label, r| assert_eq!(r, &expected, "{label}"));
    table("map", "rayon", &labels(&variants), &times);
    println!("target: ohua >= 1.8x sequential and >= 0.9x rayon");
}

fn fold_benchmark() {
    let xs: Vec<u64> = (0..ITEMS).collect();
    let expected = sequential_fold(xs.clone(), heavy);
    learn("fold", || heavy_fold(xs.clone()));
    let mut variants: Vec<Variant<'_, Vec<u64>, (u64, u64)>> = vec![
        ("sequential loop", Box::new(|v| sequential_fold(v, heavy))),
        ("hand-written 2 workers + reorder", Box::new(hand_written_fold)),
        ("ohua default", Box::new(heavy_fold)),
    ];
    let times = interleaved(|| xs.clone(), &mut variants, |label, r| assert_eq!(r, &expected, "{label}"));
    table("fold", "hand-written", &labels(&variants), &times);
    println!("target: ohua >= 1.8x sequential");
}

fn dnr_benchmark() {
    let xs: Vec<u64> = (0..ITEMS).collect();
    let expected = sequential_dnr(xs.clone());
    learn("dnr", || dnr(xs.clone()));
    let one = deployment(SectionStrategy::Single, "auto");
    let mut variants: Vec<Variant<'_, Vec<u64>, (u64, u64)>> = vec![
        ("sequential loop", Box::new(sequential_dnr)),
        ("ohua one stage (1 section)", Box::new(|v| ohua::with_deployment(one.clone(), || dnr(v)))),
        ("ohua default (pipelined)", Box::new(dnr)),
    ];
    let times = interleaved(|| xs.clone(), &mut variants, |label, r| assert_eq!(r, &expected, "{label}"));
    table("dnr", "one stage", &labels(&variants), &times);
    println!("target: pipelined faster than one stage");
}

fn tiny_benchmark(call: Duration) {
    TINY.store(rounds_for(call), Ordering::Relaxed);
    println!("tiny: {} rounds per call (~{} ns), 3 calls per item", TINY.load(Ordering::Relaxed), call.as_nanos());
    let xs: Vec<u64> = (0..TINY_ITEMS).collect();
    let expected = sequential_fold(xs.clone(), |x| tiny(tiny(tiny(x))));
    learn("tiny", || tiny_fold(xs.clone()));
    let fused = deployment(SectionStrategy::Single, "off");
    let pipelined = deployment(SectionStrategy::Auto, "off");
    let replicated = deployment(SectionStrategy::Single, "tiny_fold/tiny#.*=2");
    let mut variants: Vec<Variant<'_, Vec<u64>, (u64, u64)>> = vec![
        ("sequential loop", Box::new(|v| sequential_fold(v, |x| tiny(tiny(tiny(x)))))),
        ("ohua fused (1 section)", Box::new(|v| ohua::with_deployment(fused.clone(), || tiny_fold(v)))),
        (
            "ohua pipelined (auto sections, no replicas)",
            Box::new(|v| ohua::with_deployment(pipelined.clone(), || tiny_fold(v))),
        ),
        (
            "ohua replicated (1 section + 2 replicas)",
            Box::new(|v| ohua::with_deployment(replicated.clone(), || tiny_fold(v))),
        ),
        ("ohua default (auto)", Box::new(tiny_fold)),
    ];
    let times = interleaved(|| xs.clone(), &mut variants, |label, r| assert_eq!(r, &expected, "{label}"));
    println!("  {:<44} {:>14}  speedup vs sequential", "tiny variant", "ms");
    for ((label, _), t) in variants.iter().zip(&times) {
        row(label, ms(*t), format!("{:.2}x", times[0].as_secs_f64() / t.as_secs_f64()));
    }
    let best = times[1..4].iter().min().copied().unwrap_or(Duration::MAX);
    println!(
        "auto vs the fastest of fused / pipelined / replicated: {:.2}x (target: within 10 %, i.e. >= 0.91x)",
        best.as_secs_f64() / times[4].as_secs_f64()
    );
}

pub fn run() {
    header("replicate", "replicated stateless work: collecting map, fold into a state, tiny operators");
    HEAVY.store(rounds_for(Duration::from_micros(20)), Ordering::Relaxed);
    println!(
        "calibration: heavy = {} rounds (~20 µs); {ITEMS} heavy items, {TINY_ITEMS} tiny items",
        HEAVY.load(Ordering::Relaxed),
    );
    map_benchmark();
    fold_benchmark();
    dnr_benchmark();
    for ns in [200, 100, 50, 10] {
        tiny_benchmark(Duration::from_nanos(ns));
    }
    println!();
}
