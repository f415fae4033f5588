//! `hop`: the cost of one unbatched message between two sections.
//!
//! A 2-operator algorithm (`stage`, then `out.push`) runs with batch size 1
//! and a small arc capacity, so every item crosses a section boundary on its
//! own. Compared with a crossbeam bounded channel sending single items
//! between two threads.

use std::time::Duration;

use crossbeam_channel::bounded;
use ohua::{algorithm, Deployment, SectionRule, SectionStrategy};

use crate::common::{header, interleaved, row, stage, Variant};

const ITEMS: u64 = 1_000_000;
const CAPACITY: usize = 16;

#[algorithm]
fn hop2(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for x in xs {
        let y = stage(x);
        out.push(y);
    }
    out
}

/// `stage` on a spawned thread; each result sent on its own.
fn crossbeam_single(xs: Vec<u64>) -> Vec<u64> {
    let (tx, rx) = bounded::<u64>(CAPACITY);
    std::thread::scope(|s| {
        s.spawn(move || {
            for x in xs {
                tx.send(stage(x)).expect("receiver alive");
            }
        });
        let mut out = Vec::with_capacity(ITEMS as usize);
        out.extend(rx);
        out
    })
}

pub fn run() {
    header("hop", "unbatched cross-section message, 1,000,000 items, batch 1, arc capacity 16");
    let xs: Vec<u64> = (0..ITEMS).collect();
    let expected: Vec<u64> = xs.iter().map(|x| x + 1).collect();
    let per_op =
        Deployment::default().sections(SectionStrategy::PerOperator).batch_size(1).arc_capacity(CAPACITY).workers(2);
    let two = per_op.clone().sections(SectionStrategy::Rules(vec![
        // Like the crossbeam baseline: the input side and `stage` on one
        // thread, the collection on the other, so each item crosses once.
        SectionRule::new(["^hop2/(xs#arg|tick@[0-9]+|smap@[0-9]+|stage#[0-9]+)$"]).expect("valid regex"),
        SectionRule::new([".*"]).expect("valid regex"),
    ]));
    let ns = |d: Duration| format!("{:.1}", d.as_nanos() as f64 / ITEMS as f64);
    println!("  {:<44} {:>14}", "variant", "ns/message");

    let (_, reports) = ohua::profile(|| ohua::with_deployment(per_op.clone(), || hop2(vec![1, 2, 3])));
    let cb_label = format!("crossbeam bounded({CAPACITY}), single items");
    let per_label = format!("ohua per-op ({} sections), batch 1", reports[0].sections);
    let mut variants: Vec<Variant<'_, Vec<u64>, Vec<u64>>> = vec![
        (&cb_label, Box::new(crossbeam_single)),
        (
            "ohua 2 sections (input + stage | rest), batch 1",
            Box::new(|v| ohua::with_deployment(two.clone(), || hop2(v))),
        ),
        (&per_label, Box::new(|v| ohua::with_deployment(per_op.clone(), || hop2(v)))),
    ];
    let times = interleaved(|| xs.clone(), &mut variants, |label, r| assert_eq!(r, &expected, "{label}: wrong result"));
    for (k, ((label, _), t)) in variants.iter().zip(&times).enumerate() {
        row(label, ns(*t), if k > 0 { "target <= 50 ns".into() } else { String::new() });
    }
    let [t_cb, t_two, _] = times[..] else { unreachable!("three variants") };

    row("ohua 2 sections / crossbeam", format!("{:.2}x", t_two.as_secs_f64() / t_cb.as_secs_f64()), String::new());
    println!();
}
