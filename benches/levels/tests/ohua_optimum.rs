//! The compiled Ohua algorithms of small generated level graphs: results
//! equal the sequential reference, and calls per source equal the analytic
//! optimum (the longest chain of dependent fetches on the source), under
//! several deployments.

use std::time::Duration;

use ohua::{Deployment, SectionStrategy};
use ohua_levels_bench::compiled::COMPILED;
use ohua_levels_bench::graph::{generate, ALL_SOURCES};
use ohua_levels_bench::runtime::run_ohua;
use ohua_levels_bench::sets::{tested, Spec};

const X: u64 = 77;

fn deployments() -> Vec<Deployment> {
    vec![
        Deployment::default().workers(2),
        Deployment::default().workers(1).sections(SectionStrategy::Single),
        Deployment::default().workers(2).sections(SectionStrategy::Random { sections: 3, seed: 5 }),
    ]
}

/// Run `spec` under every deployment; the calls of each run.
fn check(spec: Spec, latency: [Duration; ALL_SOURCES]) -> Vec<[u64; ALL_SOURCES]> {
    let run = COMPILED.iter().find(|c| c.spec == spec).expect("compiled").run;
    let p = generate(spec.seed, &spec.params());
    let expected = p.eval(X);
    let (seq, _) = ohua::sequential(|| run_ohua(run, &[Duration::ZERO; ALL_SOURCES], X));
    assert_eq!(seq, expected, "{spec:?} sequentially");
    deployments()
        .into_iter()
        .map(|d| {
            let (r, calls) = ohua::with_deployment(d.clone(), || run_ohua(run, &latency, X));
            assert_eq!(r, expected, "{spec:?} under {d:?}");
            calls
        })
        .collect()
}

const MS: Duration = Duration::from_millis(1);

/// Attempts per spec before the optimum counts as missed.
const ATTEMPTS: usize = 3;

#[test]
fn one_source_calls_equal_the_optimum() {
    // Every run must be correct and make between the optimum and one call
    // per io node; the optimum itself must be reached in one of `ATTEMPTS`
    // runs under every deployment. Regression: this asserted the optimum
    // in every run, and under CI's load a run of g_l3_s1_p0_n0 made 2 calls
    // for a chain of 1. A section thread the OS preempts for over a tick
    // (1 ms) in a step looks to the monitor like one blocked in it, so the
    // run counts as quiet and the level's fetches go out in two calls
    // (io/README.md, "The quiescence count"). A result stays exact; only
    // the batching depends on the scheduler.
    let specs = COMPILED.iter().map(|c| c.spec).filter(|s| s.sources == 1 && tested(s));
    for spec in specs {
        let p = generate(spec.seed, &spec.params());
        let (optimum, io) = (p.optimum(), p.io_nodes());
        let mut reached = vec![false; deployments().len()];
        for _ in 0..ATTEMPTS {
            for (d, calls) in check(spec, [MS, MS, MS, MS]).into_iter().enumerate() {
                for s in 0..ALL_SOURCES {
                    assert!(
                        optimum[s] <= calls[s] && calls[s] <= io[s],
                        "{spec:?} ({}): {calls:?} not within {optimum:?} ..= {io:?}",
                        spec.name()
                    );
                }
                reached[d] |= calls == optimum;
            }
            if reached.iter().all(|&r| r) {
                break;
            }
        }
        assert!(
            reached.iter().all(|&r| r),
            "{spec:?} ({}): the optimum {optimum:?} was missed in {ATTEMPTS} runs under deployments {:?}",
            spec.name(),
            reached.iter().enumerate().filter(|(_, &r)| !r).map(|(d, _)| d).collect::<Vec<_>>()
        );
    }
}

#[test]
fn three_sources_results_and_calls_within_bounds() {
    // With several sources the chain bound is reached only by holding ready
    // fetches back; Ohua sends when the run is quiet, so a source's calls
    // lie between its chain and its io nodes, and which answer arrives
    // first decides where (see `Program::eager_calls`).
    for spec in COMPILED.iter().map(|c| c.spec).filter(|s| s.sources == 3 && tested(s)) {
        let p = generate(spec.seed, &spec.params());
        let (optimum, io) = (p.optimum(), p.io_nodes());
        for calls in check(spec, [MS, MS, MS, MS]) {
            for s in 0..ALL_SOURCES {
                assert!(
                    optimum[s] <= calls[s] && calls[s] <= io[s],
                    "{spec:?}: {calls:?} not within {optimum:?} ..= {io:?}"
                );
            }
        }
    }
}

/// A finding, not a regression: with several sources Ohua does not reach
/// the chain bound. In `g_l4_s3_p0_n0` source s1 has a chain of 2 (n2, n7
/// then n20, n21) but n7 waits for s0, n21 for a map over s2 and n20 for
/// s2's third call, so sending eagerly when the run is quiet makes 3-4
/// calls to s1 (the eager schedule, `Program::eager_calls`, says 4); only
/// holding n2 back until n7 is ready (and n21 until n20) would make 2.
#[test]
#[ignore = "Ohua batches eagerly: with 3 sources the chain bound needs held-back fetches (s1: 3-4 calls, chain 2)"]
fn three_sources_chain_bound_seed_0_levels_4() {
    let spec = Spec { levels: 4, sources: 3, p_sub10: 0, seed: 0 };
    let optimum = generate(spec.seed, &spec.params()).optimum();
    for calls in check(spec, [MS, MS, MS, MS]) {
        assert_eq!(calls, optimum, "{spec:?}");
    }
}

/// The crate holds every program the tests above run (`build.rs` compiles
/// `sets::chosen` without the `all-programs` feature): a filter that
/// dropped them would leave the tests above checking nothing.
#[test]
fn the_build_holds_every_tested_program() {
    let wanted = ohua_levels_bench::sets::chosen(false);
    assert!(wanted.iter().any(|s| s.p_sub10 > 0), "no tested program with subfunctions");
    assert!(wanted.len() >= 16, "{} tested programs", wanted.len());
    for spec in wanted {
        assert!(COMPILED.iter().any(|c| c.spec == spec), "{} is not compiled", spec.name());
    }
}
