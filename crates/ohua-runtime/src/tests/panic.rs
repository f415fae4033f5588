//! Operator panics reach the caller with their original payload, after every
//! section shut down; the operator is named by `last_operator_panic`.
//!
//! These are the only tests of the crate that run the `boom` graph, so
//! counting threads named `ohua-boom-*` is not disturbed by concurrent tests.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::common::graphs::{run_pipeline, BOOM, PIPE};
use super::common::nodes::{Count, Map, Sink};
use super::common::{expect_panic, thread_names, watchdog};
use crate::context::{last_operator_panic, with_deployment, OperatorPanic};
use crate::deploy::{Deployment, SectionStrategy};
use crate::exec::{execute, ResultSlot};
use crate::node::{Node, Step};
use crate::port::{In, Out};

/// Most `ohua-boom-*` threads seen alive while an operator panicked.
static SEEN_ALIVE: AtomicUsize = AtomicUsize::new(0);

fn boom_threads() -> usize {
    thread_names().iter().filter(|n| n.starts_with("ohua-boom-")).count()
}

#[test]
fn a_panicking_operator_aborts_the_run_and_its_payload_is_reraised() {
    let _graphs = super::runs_graphs();
    let strategies = [
        SectionStrategy::Single,
        SectionStrategy::PerOperator,
        SectionStrategy::Auto,
        SectionStrategy::Random { sections: 3, seed: 1 },
    ];
    watchdog(60, move || {
        for sections in strategies {
            let label = sections.to_string();
            let d = Deployment::default().workers(2).sections(sections).batch_size(4).arc_capacity(2);
            let msg = expect_panic(|| {
                with_deployment(d, || {
                    run_pipeline(&BOOM, 100_000, |x| {
                        if x == 500 {
                            SEEN_ALIVE.fetch_max(boom_threads(), Ordering::Relaxed);
                            panic!("boom at {x}");
                        }
                        x
                    })
                })
            });
            assert_eq!(msg, "boom at 500", "{label}: the original message, unchanged");
            let named = OperatorPanic { algorithm: "boom", operator: "boom/explode#2" };
            assert_eq!(last_operator_panic(), Some(named), "{label}");
            // `execute` returned, so every section has finished and its
            // worker went back to the pool (renamed `ohua-idle`).
            assert_eq!(boom_threads(), 0, "{label}: a section still running after the run");
        }
    });
    // The count is meaningful: section threads were alive during the runs.
    assert!(SEEN_ALIVE.load(Ordering::Relaxed) >= 4);
}

#[test]
fn non_string_payloads_reach_the_caller_unchanged() {
    let _graphs = super::runs_graphs();
    #[derive(Debug, PartialEq)]
    struct MyError(u32);
    let d = Deployment::default().workers(2).sections(SectionStrategy::PerOperator);
    let (payload, named) = watchdog(60, move || {
        let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            with_deployment(d, || run_pipeline(&PIPE, 10, |_| std::panic::panic_any(MyError(42))))
        }))
        .expect_err("the run panics");
        (payload.downcast::<MyError>().ok(), last_operator_panic())
    });
    assert_eq!(payload.as_deref(), Some(&MyError(42)));
    assert_eq!(named.map(|p| p.operator), Some("pipe/inc#2"));
}

#[test]
fn a_missing_operator_is_reported_by_name() {
    let _graphs = super::runs_graphs();
    let msg = expect_panic(|| {
        execute(&PIPE, |b| {
            let (t0, r0) = b.arc(0);
            let (t1, _r1) = b.arc(1);
            b.node(0, Count::new(Out::new(vec![t0]), 3));
            b.node(1, Map::new(In::new(r0), Out::new(vec![t1]), |x| x));
            b.result_slot::<Vec<u64>>()
        })
    });
    assert!(msg.contains("installed no operator"), "{msg}");
    assert!(msg.contains("pipe/inc#2, pipe/inc#3, pipe/sink#4"), "{msg}");
}

#[test]
fn a_run_without_result_names_the_algorithm() {
    let _graphs = super::runs_graphs();
    let d = Deployment::default().sections(SectionStrategy::Single);
    let msg = expect_panic(|| {
        with_deployment(d, || {
            execute(&PIPE, |b| {
                let (t0, r0) = b.arc(0);
                let (t1, r1) = b.arc(1);
                let (t2, r2) = b.arc(2);
                let (t3, r3) = b.arc(3);
                b.node(0, Count::new(Out::new(vec![t0]), 3));
                b.node(1, Map::new(In::new(r0), Out::new(vec![t1]), |x| x));
                b.node(2, Map::new(In::new(r1), Out::new(vec![t2]), |x| x));
                b.node(3, Map::new(In::new(r2), Out::new(vec![t3]), |x| x));
                // A sink that drains its input but never sets the result.
                b.node(4, Map::new(In::new(r3), Out::none(), |x| x));
                ResultSlot::<u64>::new()
            })
        })
    });
    assert!(msg.contains("`pipe` finished without producing a result"), "{msg}");
}

#[test]
fn creating_an_arc_twice_is_a_bug_in_the_build() {
    let _graphs = super::runs_graphs();
    let msg = expect_panic(|| {
        execute(&PIPE, |b| {
            let _first = b.arc::<u64>(0);
            let _second = b.arc::<u64>(0);
            b.result_slot::<u64>()
        })
    });
    assert!(msg.contains("arc 0 of algorithm `pipe` created twice"), "{msg}");
}

/// A counting source whose destructor panics.
struct DropBomb(Count);

impl Node for DropBomb {
    fn step(&mut self, budget: usize) -> Step {
        self.0.step(budget)
    }

    fn flush(&mut self) {
        self.0.flush();
    }
}

impl Drop for DropBomb {
    fn drop(&mut self) {
        panic!("drop failed");
    }
}

#[test]
fn a_panicking_destructor_is_an_operator_panic() {
    let _graphs = super::runs_graphs();
    let d = Deployment::default().workers(2).sections(SectionStrategy::PerOperator);
    let (msg, named) = watchdog(60, move || {
        let msg = expect_panic(|| {
            with_deployment(d, || {
                execute(&PIPE, |b| {
                    let (t0, r0) = b.arc(0);
                    let (t1, r1) = b.arc(1);
                    let (t2, r2) = b.arc(2);
                    let (t3, r3) = b.arc(3);
                    b.node(0, DropBomb(Count::new(Out::new(vec![t0]), 100)));
                    b.node(1, Map::new(In::new(r0), Out::new(vec![t1]), |x| x));
                    b.node(2, Map::new(In::new(r1), Out::new(vec![t2]), |x| x));
                    b.node(3, Map::new(In::new(r2), Out::new(vec![t3]), |x| x));
                    let slot = b.result_slot();
                    b.node(4, Sink::new(In::new(r3), slot.clone()));
                    slot
                })
            })
        });
        (msg, last_operator_panic())
    });
    assert_eq!(msg, "drop failed");
    assert_eq!(named.map(|p| p.operator), Some("pipe/count#0"));
}
