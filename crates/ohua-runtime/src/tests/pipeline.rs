//! Streaming through a five-stage pipeline under every section strategy:
//! exact results, and no hang even with tiny batches and arcs.

use std::sync::Mutex;

use super::common::graphs::{run_pipeline, PIPE};
use super::common::nodes::{Count, Map, Sink, Slice};
use super::common::watchdog;
use crate::context::{is_sequential, profile, sequential, with_deployment};
use crate::deploy::{Deployment, SectionStrategy};
use crate::exec::execute;
use crate::port::{In, Out};

const N: u64 = 1_000_000;

/// Batch 4 and capacity 2 force constant blocking, parking and waking.
fn tiny(sections: SectionStrategy, workers: usize) -> Deployment {
    Deployment::default().workers(workers).sections(sections).batch_size(4).arc_capacity(2)
}

/// Serialises the heavy tests: they oversubscribe the cores on their own, so
/// running them side by side only stretches each one towards the watchdog.
static HEAVY: Mutex<()> = Mutex::new(());

fn stream_million(d: Deployment) {
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let out = watchdog(60, move || with_deployment(d, || run_pipeline(&PIPE, N, |x| x + 1)));
    assert_eq!(out.len() as u64, N);
    assert!(out.iter().zip(0..).all(|(&got, i)| got == i + 3), "items lost, duplicated or reordered");
}

#[test]
fn million_items_single_section() {
    let _graphs = super::runs_graphs();
    stream_million(tiny(SectionStrategy::Single, 1));
}

#[test]
fn million_items_per_operator() {
    let _graphs = super::runs_graphs();
    stream_million(tiny(SectionStrategy::PerOperator, 2));
}

#[test]
fn million_items_auto_two_workers() {
    let _graphs = super::runs_graphs();
    stream_million(tiny(SectionStrategy::Auto, 2));
}

#[test]
fn million_items_random_sections() {
    let _graphs = super::runs_graphs();
    stream_million(tiny(SectionStrategy::Random { sections: 3, seed: 7 }, 2));
}

#[test]
fn many_random_deployments_agree() {
    let _graphs = super::runs_graphs();
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    watchdog(60, || {
        for seed in 0..20 {
            let d = tiny(SectionStrategy::Random { sections: 4, seed }, 2);
            let out = with_deployment(d, || run_pipeline(&PIPE, 5_000, |x| x * 3));
            assert_eq!(out, (0..5_000).map(|x| (x + 1) * 3 + 1).collect::<Vec<_>>(), "seed {seed}");
        }
    });
}

#[test]
fn a_sleepy_stage_is_waited_for_not_lost() {
    let _graphs = super::runs_graphs();
    // A stage that sometimes sleeps makes its neighbours back off and park.
    let out = watchdog(60, || {
        let d = tiny(SectionStrategy::PerOperator, 2);
        with_deployment(d, || {
            run_pipeline(&PIPE, 3_000, |x| {
                if x % 500 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                x
            })
        })
    });
    assert_eq!(out, (0..3_000).map(|x| x + 2).collect::<Vec<_>>());
}

#[test]
fn graphs_may_borrow_the_callers_data() {
    let _graphs = super::runs_graphs();
    let data: Vec<u64> = (0..1000).rev().collect();
    let d = tiny(SectionStrategy::PerOperator, 2);
    let out = with_deployment(d, || {
        execute(&PIPE, |b| {
            let (t0, r0) = b.arc(0);
            let (t1, r1) = b.arc(1);
            let (t2, r2) = b.arc(2);
            let (t3, r3) = b.arc(3);
            b.node(0, Slice { out: Out::new(vec![t0]), items: data.iter() });
            b.node(1, Map::new(In::new(r0), Out::new(vec![t1]), |x| x));
            b.node(2, Map::new(In::new(r1), Out::new(vec![t2]), |x| x));
            b.node(3, Map::new(In::new(r2), Out::new(vec![t3]), |x| x));
            let slot = b.result_slot();
            b.node(4, Sink::new(In::new(r3), slot.clone()));
            slot
        })
    });
    assert_eq!(out, data);
}

#[test]
fn profile_reports_firings_per_operator() {
    let _graphs = super::runs_graphs();
    let d = Deployment::default().workers(2).sections(SectionStrategy::Auto).batch_size(64).arc_capacity(128);
    let (out, reports) = profile(|| with_deployment(d, || run_pipeline(&PIPE, 10_000, |x| x)));
    assert_eq!(out.len(), 10_000);
    assert_eq!(reports.len(), 1);
    let r = &reports[0];
    assert_eq!((r.algorithm, r.sections, r.nodes.len()), ("pipe", 2, 5));
    for (id, stats) in r.nodes.iter().enumerate() {
        assert_eq!(stats.name, PIPE.nodes[id].name);
        assert_eq!(stats.firings, 10_000, "{}", stats.name);
        assert!(stats.steps > 0);
        assert_eq!(stats.section, r.plan.section_of[id]);
    }
    let table = r.to_string();
    assert!(table.contains("pipe/inc#2") && table.contains("busy %"), "{table}");
}

/// Runs the inner pipeline over `0..x` and returns the sum of its results.
fn nested_sum(x: u64, seen_sequential: &std::sync::atomic::AtomicBool) -> u64 {
    if is_sequential() {
        seen_sequential.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    run_pipeline(&PIPE, x, |y| y).iter().sum()
}

#[test]
fn nested_runs_inherit_the_callers_options() {
    let _graphs = super::runs_graphs();
    use std::sync::atomic::AtomicBool;
    static INNER_SAW_SEQUENTIAL: AtomicBool = AtomicBool::new(false);
    let d = tiny(SectionStrategy::PerOperator, 2);
    let (out, reports) = watchdog(60, move || {
        profile(|| {
            sequential(|| {
                with_deployment(d, || {
                    execute(&PIPE, |b| {
                        let (t0, r0) = b.arc(0);
                        let (t1, r1) = b.arc(1);
                        let (t2, r2) = b.arc(2);
                        let (t3, r3) = b.arc(3);
                        b.node(0, Count::new(Out::new(vec![t0]), 20));
                        b.node(1, Map::new(In::new(r0), Out::new(vec![t1]), |x| x));
                        // This operator runs an algorithm per item, on a section thread.
                        let nested = |x| nested_sum(x, &INNER_SAW_SEQUENTIAL);
                        b.node(2, Map::new(In::new(r1), Out::new(vec![t2]), nested));
                        b.node(3, Map::new(In::new(r2), Out::new(vec![t3]), |x| x));
                        let slot = b.result_slot();
                        b.node(4, Sink::new(In::new(r3), slot.clone()));
                        slot
                    })
                })
            })
        })
    });
    // Inner run over 0..x yields y+2 for each y: sum = x(x-1)/2 + 2x.
    assert_eq!(out, (0..20).map(|x| x * (x.max(1) - 1) / 2 + 2 * x).collect::<Vec<_>>());
    assert!(INNER_SAW_SEQUENTIAL.load(std::sync::atomic::Ordering::Relaxed));
    // 20 nested runs, then the outer one; all used the per-operator override.
    assert_eq!(reports.len(), 21);
    assert!(reports.iter().all(|r| r.sections == 5));
    assert_eq!(reports.last().unwrap().nodes[0].firings, 20);
}
