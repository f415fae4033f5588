//! `chain`: a 20-stage `x + 1` chain over 1,000,000 `u64`s.
//!
//! Measures the per-item, per-stage overhead of a long pipeline of trivial
//! operators against a fused loop, a hand-written batched 2-thread crossbeam
//! pipeline and timely dataflow on one worker.

use std::cell::RefCell;
use std::rc::Rc;

use crossbeam_channel::bounded;
use ohua::{algorithm, Deployment, SectionStrategy};
use timely::dataflow::operators::{Inspect, Map, ToStream};

use crate::common::{calls_in_site_order, header, interleaved, row, stage, two_sections_after, Variant};

const ITEMS: u64 = 1_000_000;
const STAGES: usize = 20;
const BATCH: usize = 1024;

#[algorithm]
fn chain20(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::with_capacity(xs.len());
    for x in xs {
        let a1 = stage(x);
        let a2 = stage(a1);
        let a3 = stage(a2);
        let a4 = stage(a3);
        let a5 = stage(a4);
        let a6 = stage(a5);
        let a7 = stage(a6);
        let a8 = stage(a7);
        let a9 = stage(a8);
        let a10 = stage(a9);
        let a11 = stage(a10);
        let a12 = stage(a11);
        let a13 = stage(a12);
        let a14 = stage(a13);
        let a15 = stage(a14);
        let a16 = stage(a15);
        let a17 = stage(a16);
        let a18 = stage(a17);
        let a19 = stage(a18);
        let a20 = stage(a19);
        out.push(a20);
    }
    out
}

fn stages(mut x: u64, n: usize) -> u64 {
    for _ in 0..n {
        x = stage(x);
    }
    x
}

fn fused(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::with_capacity(xs.len());
    for x in xs {
        out.push(stages(x, STAGES));
    }
    out
}

/// Stages 1-10 on a spawned thread, 11-20 on the calling thread, batches of
/// `BATCH` items in a `Vec` over a bounded crossbeam channel.
fn hand_written(xs: Vec<u64>) -> Vec<u64> {
    let (tx, rx) = bounded::<Vec<u64>>(16);
    std::thread::scope(|s| {
        s.spawn(move || {
            let mut batch = Vec::with_capacity(BATCH);
            for x in xs {
                batch.push(stages(x, STAGES / 2));
                if batch.len() == BATCH {
                    tx.send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH))).expect("receiver alive");
                }
            }
            if !batch.is_empty() {
                tx.send(batch).expect("receiver alive");
            }
        });
        let mut out = Vec::with_capacity(ITEMS as usize);
        for batch in rx {
            for x in batch {
                out.push(stages(x, STAGES - STAGES / 2));
            }
        }
        out
    })
}

/// 20 `map` operators in a timely dataflow on one worker.
fn timely_1(xs: Vec<u64>) -> Vec<u64> {
    timely::execute_directly(move |worker| {
        let out = Rc::new(RefCell::new(Vec::with_capacity(xs.len())));
        let sink = Rc::clone(&out);
        worker.dataflow::<u64, _, _>(move |scope| {
            let mut s = xs.to_stream(scope);
            for _ in 0..STAGES {
                s = s.map(stage);
            }
            s.inspect_batch(move |_, batch| sink.borrow_mut().extend_from_slice(batch));
        });
        while worker.step() {}
        let v = out.borrow_mut().split_off(0);
        v
    })
}

/// Two sections split like the hand-written pipeline: the input side (the
/// argument, the loop entry) with the first ten `stage` operators, and
/// everything else (stages 11-20, the `push` into the result). The operator
/// names are discovered from a profiled run on a tiny input.
fn two_sections() -> Deployment {
    let (_, reports) = ohua::profile(|| chain20(vec![1, 2, 3]));
    let names = calls_in_site_order(&reports[0], "/stage#");
    assert_eq!(names.len(), STAGES, "expected {STAGES} stage operators, got {names:?}");
    let input = "^chain20/(xs#arg|tick@[0-9]+|smap@[0-9]+)$";
    Deployment::default().workers(2).sections(two_sections_after(&names[..STAGES / 2], input))
}

pub fn run() {
    header("chain", "20-stage `x + 1` chain over 1,000,000 u64");
    let xs: Vec<u64> = (0..ITEMS).collect();
    let expected: Vec<u64> = xs.iter().map(|x| x + STAGES as u64).collect();
    let per = |d: std::time::Duration| d.as_nanos() as f64 / (ITEMS as f64 * STAGES as f64);
    let split = two_sections();
    println!("2-section deployment: {}", split.sections);
    println!("  {:<44} {:>14}", "variant", "ns/item-stage");

    let default = Deployment::default();
    let single = Deployment::default().workers(1).sections(SectionStrategy::Single);
    let default_label = format!("ohua default ({} workers, {})", default.workers, default.sections);
    let mut variants: Vec<Variant<'_, Vec<u64>, Vec<u64>>> = vec![
        ("fused single-thread loop", Box::new(fused)),
        ("hand-written 2-thread crossbeam (batch 1024)", Box::new(hand_written)),
        ("timely 0.12, 1 worker", Box::new(timely_1)),
        ("ohua::sequential (same body, plain Rust)", Box::new(|v| ohua::sequential(|| chain20(v)))),
        (&default_label, Box::new(chain20)),
        ("ohua 1 section (every arc in-section)", Box::new(|v| ohua::with_deployment(single.clone(), || chain20(v)))),
        (
            "ohua 2-section (input + stages 1-10 | rest)",
            Box::new(|v| ohua::with_deployment(split.clone(), || chain20(v))),
        ),
    ];
    let times = interleaved(|| xs.clone(), &mut variants, |label, r| assert_eq!(r, &expected, "{label}: wrong result"));
    for ((label, _), t) in variants.iter().zip(&times) {
        row(label, format!("{:.3}", per(*t)), String::new());
    }
    let [t_fused, t_hand, t_timely, t_seq, t_def, t_one, t_two] = times[..] else { unreachable!("seven variants") };

    let ratio = |a: std::time::Duration, b: std::time::Duration| a.as_secs_f64() / b.as_secs_f64();
    println!("ratios (lower is better for Ohua):");
    row("ohua 2-section / hand-written", format!("{:.2}x", ratio(t_two, t_hand)), "target <= 1.2x".into());
    row("ohua default / hand-written", format!("{:.2}x", ratio(t_def, t_hand)), String::new());
    row("ohua 2-section / timely", format!("{:.2}x", ratio(t_two, t_timely)), "target < 1.0x".into());
    row("ohua default / timely", format!("{:.2}x", ratio(t_def, t_timely)), String::new());
    row("ohua 2-section / fused", format!("{:.2}x", ratio(t_two, t_fused)), String::new());
    row(
        "in-section overhead per operator and item (ns)",
        format!("{:.3}", per(t_one) - per(t_seq)),
        "budget ~1 ns".into(),
    );
    println!();
}
