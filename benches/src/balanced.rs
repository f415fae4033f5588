//! `balanced`: a 2-stage CPU pipeline, each stage ~10 µs of real work per
//! item, 20,000 items. The ideal 2-core speedup over the sequential loop is 2.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::bounded;
use ohua::{algorithm, Deployment, SectionRule, SectionStrategy};

use crate::common::{header, median, mix, rounds_for, row};

const ITEMS: u64 = 20_000;
const TARGET: Duration = Duration::from_micros(10);

/// Rounds of mixing per stage call, calibrated to `TARGET` at start-up.
static ROUNDS: AtomicU64 = AtomicU64::new(1000);

#[inline(never)]
fn work_a(x: u64) -> u64 {
    mix(std::hint::black_box(x), ROUNDS.load(Ordering::Relaxed))
}

#[inline(never)]
fn work_b(x: u64) -> u64 {
    mix(std::hint::black_box(x) ^ 0x5555, ROUNDS.load(Ordering::Relaxed))
}

/// Pick `ROUNDS` so that one stage call takes about `TARGET`; returns the
/// measured time of one call.
pub(crate) fn calibrate() -> Duration {
    ROUNDS.store(rounds_for(TARGET), Ordering::Relaxed);
    let calls = 2_000u64;
    let t = Instant::now();
    for i in 0..calls {
        std::hint::black_box(work_a(i));
    }
    t.elapsed() / calls as u32
}

#[algorithm]
pub(crate) fn two_stage(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for x in xs {
        let a = work_a(x);
        let b = work_b(a);
        out.push(b);
    }
    out
}

fn sequential_loop(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::with_capacity(xs.len());
    for x in xs {
        out.push(work_b(work_a(x)));
    }
    out
}

/// `work_a` on a spawned thread, `work_b` on the calling thread, batches of
/// 64 items over a bounded crossbeam channel.
fn hand_written(xs: Vec<u64>) -> Vec<u64> {
    const BATCH: usize = 64;
    let (tx, rx) = bounded::<Vec<u64>>(16);
    std::thread::scope(|s| {
        s.spawn(move || {
            for chunk in xs.chunks(BATCH) {
                tx.send(chunk.iter().map(|x| work_a(*x)).collect()).expect("receiver alive");
            }
        });
        let mut out = Vec::with_capacity(ITEMS as usize);
        for batch in rx {
            out.extend(batch.into_iter().map(work_b));
        }
        out
    })
}

pub fn run() {
    header("balanced", "2-stage CPU pipeline, ~10 µs per stage per item, 20,000 items");
    let per_call = calibrate();
    println!(
        "calibration: {} rounds per stage call = {:.2} µs",
        ROUNDS.load(Ordering::Relaxed),
        per_call.as_secs_f64() * 1e6
    );
    let xs: Vec<u64> = (0..ITEMS).collect();
    let split = Deployment::default().workers(2).sections(SectionStrategy::Rules(vec![
        SectionRule::new(["two_stage/work_a#.*"]).expect("valid regex"),
        SectionRule::new([".*"]).expect("valid regex"),
    ]));
    let default = Deployment::default();
    println!("  {:<44} {:>14}  speedup vs sequential / vs hand-written", "variant", "ms");

    let (t_seq, expected) = median(|| xs.clone(), sequential_loop);
    let (t_hand, r) = median(|| xs.clone(), hand_written);
    assert_eq!(r, expected);
    let (t_def, r) = median(|| xs.clone(), two_stage);
    assert_eq!(r, expected);
    let (t_two, r) = median(|| xs.clone(), |v| ohua::with_deployment(split.clone(), || two_stage(v)));
    assert_eq!(r, expected);

    let ms = |d: Duration| format!("{:.2}", d.as_secs_f64() * 1e3);
    let vs = |d: Duration| {
        format!("{:.2}x / {:.2}x", t_seq.as_secs_f64() / d.as_secs_f64(), t_hand.as_secs_f64() / d.as_secs_f64())
    };
    row("sequential loop", ms(t_seq), vs(t_seq));
    row("hand-written 2-thread crossbeam (batch 64)", ms(t_hand), vs(t_hand));
    row(&format!("ohua default ({} workers, {})", default.workers, default.sections), ms(t_def), vs(t_def));
    row("ohua 2-section (rules: work_a | rest)", ms(t_two), vs(t_two));
    println!("2-section deployment: {}", split.sections);
    println!("target: ohua >= 1.8x over sequential on 2 cores");
    println!();
}
