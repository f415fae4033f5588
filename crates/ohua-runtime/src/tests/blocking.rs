//! An operator that blocks its thread stalls only its own section.
//!
//! Chain A's gate blocks on a std channel until chain B has finished; the
//! run completes only if B's section keeps running meanwhile.

use super::common::graphs::run_indep;
use super::common::watchdog;
use crate::context::with_deployment;
use crate::deploy::{Deployment, SectionRule, SectionStrategy};

fn check(sections: SectionStrategy) {
    let _graphs = super::runs_graphs();
    let d = Deployment::default().workers(2).sections(sections).batch_size(8).arc_capacity(4);
    let (a, b) = watchdog(60, move || with_deployment(d, || run_indep(10_000)));
    assert_eq!(a, (0..10_000).collect::<Vec<_>>());
    assert_eq!(b, (0..10_000).map(|x| x * 2).collect::<Vec<_>>());
}

#[test]
fn rules_separating_the_chains() {
    // Chain A (with the blocking gate) is section 0, run by the calling thread.
    let a = SectionRule::new(["indep/.*_a#.*", "indep/gate#.*"]).unwrap();
    let b = SectionRule::new(["indep/.*_b#.*"]).unwrap();
    check(SectionStrategy::Rules(vec![a, b]));
}

#[test]
fn blocking_chain_on_a_spawned_thread() {
    // Reverse order: the blocking chain runs on a spawned section thread.
    let b = SectionRule::new(["indep/.*_b#.*"]).unwrap();
    check(SectionStrategy::Rules(vec![b]));
}

#[test]
fn per_operator() {
    check(SectionStrategy::PerOperator);
}

#[test]
fn auto_two_workers() {
    // The topological order lists chain A first, so `auto` splits the chains.
    check(SectionStrategy::Auto);
}
