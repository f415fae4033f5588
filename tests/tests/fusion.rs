//! Chains of stateless calls run fused (one operator per section piece,
//! `crates/ohua-runtime/src/node/chain.rs`) with the semantics of separate
//! operators: same results, panics named after the link that panicked, and
//! reports that say which calls were fused into which.

use ohua::{algorithm, Deployment, SectionStrategy};

fn inc(x: u64) -> u64 {
    x + 1
}

fn cursed(x: u64) -> u64 {
    if x == 4_321 {
        panic!("item {x} is cursed");
    }
    x * 2
}

/// `inc -> cursed -> inc` is one chain; `cursed` sits in its middle.
#[algorithm]
fn chain_with_a_cursed_link(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for x in xs {
        let a = inc(x);
        let b = cursed(a);
        let c = inc(b);
        out.push(c);
    }
    out
}

fn single() -> Deployment {
    Deployment::default().workers(1).sections(SectionStrategy::Single)
}

#[test]
fn a_fused_chain_computes_what_separate_operators_compute() {
    let xs: Vec<u64> = (0..3_000).collect();
    let expected: Vec<u64> = xs.iter().map(|x| (x + 1) * 2 + 1).collect();
    ohua_conformance::check(|| chain_with_a_cursed_link(xs.clone()));
    assert_eq!(ohua::with_deployment(single(), || chain_with_a_cursed_link(xs.clone())), expected);
}

#[test]
fn a_panic_in_the_middle_of_a_fused_chain_names_that_link() {
    for (name, d) in ohua_conformance::deployments().into_iter().chain([("single".to_string(), single())]) {
        let err =
            std::panic::catch_unwind(|| ohua::with_deployment(d, || chain_with_a_cursed_link((0..10_000).collect())))
                .unwrap_err();
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert_eq!(msg, "item 4321 is cursed", "{name}: the original payload");
        let op = ohua::last_operator_panic().expect("an operator panicked").operator;
        assert!(op.starts_with("chain_with_a_cursed_link/cursed#"), "{name}: {op}");
    }
}

#[test]
fn reports_show_which_calls_ran_fused() {
    let (_, reports) = ohua::profile(|| ohua::with_deployment(single(), || chain_with_a_cursed_link(vec![1, 2, 3])));
    let nodes = &reports[0].nodes;
    let find = |part: &str| nodes.iter().find(|n| n.name.contains(part)).unwrap_or_else(|| panic!("no {part}"));
    let cursed = find("/cursed#");
    let head = cursed.fused_into.expect("cursed is fused into the chain's first link");
    assert!(head.contains("/inc#"), "{head}");
    assert_eq!(cursed.firings, nodes.iter().find(|n| n.name == head).unwrap().firings);
    assert!(reports[0].to_string().contains("fused"));

    // One section per operator: nothing to fuse.
    let per_op = Deployment::default().workers(2).sections(SectionStrategy::PerOperator);
    let (_, reports) = ohua::profile(|| ohua::with_deployment(per_op, || chain_with_a_cursed_link(vec![1, 2, 3])));
    assert!(reports[0].nodes.iter().all(|n| n.fused_into.is_none()));
}

fn nap(x: u64, ms: u64) -> u64 {
    std::thread::sleep(std::time::Duration::from_millis(ms));
    x + ms
}

/// Two calls that sleep 1 and 3 ms an item, fused into one piece.
#[algorithm]
fn napping_chain(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for x in xs {
        let a = nap(x, 1);
        let b = nap(a, 3);
        out.push(b);
    }
    out
}

#[test]
fn a_fused_pieces_time_is_split_over_its_links() {
    let (out, reports) = ohua::profile(|| ohua::with_deployment(single(), || napping_chain(vec![0; 6])));
    assert_eq!(out, vec![4; 6]);
    let r = &reports[0];
    let links: Vec<_> = r.nodes.iter().filter(|n| n.name.contains("/nap#")).collect();
    assert_eq!(links.len(), 2, "{r}");
    assert!(links.iter().any(|n| n.fused_into.is_some()), "one piece: {r}");
    // The piece timed each link on its first item (`deploy/link_times.rs`),
    // so each gets a share of the piece's time, which covers every sleep
    // (a step of a call this slow is always timed). Before, the second
    // link showed 0 ms and the first all of it.
    assert!(links.iter().all(|n| !n.busy.is_zero()), "{r}");
    let total: std::time::Duration = links.iter().map(|n| n.busy).sum();
    assert!(total >= std::time::Duration::from_micros(6 * 4_000 - 1), "{r}");
}
