//! The `auto` deployment cuts by measured cost once it has measured
//! (`crates/ohua-runtime/src/deploy/learned.rs`): the first run of a graph in
//! a process is split by operator count, with its stateless pieces on
//! elastic replicas that open once replica 0 has measured them heavy
//! (`node/elastic.rs`); later runs are cut by each operator's busy time in
//! earlier runs. Results never depend on the cut.

use ohua::{algorithm, Deployment, Replication, SectionStrategy};

/// `rounds` dependent multiply-rotate rounds: real work whose result is the
/// return value, so it is not optimised away.
fn mix(x: u64, rounds: u32) -> u64 {
    let mut h = x;
    for _ in 0..rounds {
        h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ x;
    }
    h & 0xFFFF
}

/// About 60 % of the work per item.
fn heavy(x: u64) -> u64 {
    mix(x, 24_000)
}

/// About 8 % of the work per item.
fn medium(x: u64) -> u64 {
    mix(x, 3_200) + 1
}

/// One expensive stage followed by five cheaper ones. By operator count
/// the middle of the pipeline lies among the cheap stages (60 % + 16 % of
/// the work against 24 %); by cost it is right after `heavy` (60 % | 40 %),
/// and every other cut is worse.
#[algorithm]
fn heavy_then_medium(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for x in xs {
        let a = heavy(x);
        let b = medium(a);
        let c = medium(b);
        let d = medium(c);
        let e = medium(d);
        let f = medium(e);
        out.push(f);
    }
    out
}

/// `auto` sections without replicas: the pipeline cut alone (with them,
/// `auto` replicates this chain of stateless calls instead, as the test
/// below shows).
fn two_workers_auto() -> Deployment {
    Deployment::default().workers(2).sections(SectionStrategy::Auto).replicas(Replication::Off)
}

/// The result, the section of `heavy` and the sections of the `medium` calls
/// in one profiled run.
fn sections_of_one_run(xs: Vec<u64>) -> (Vec<u64>, usize, Vec<usize>) {
    let (out, reports) = ohua::profile(|| ohua::with_deployment(two_workers_auto(), || heavy_then_medium(xs)));
    let nodes = &reports.last().expect("one run").nodes;
    let heavy = nodes.iter().find(|n| n.name.contains("/heavy#")).expect("heavy").section;
    let medium = nodes.iter().filter(|n| n.name.contains("/medium#")).map(|n| n.section).collect();
    (out, heavy, medium)
}

/// The tests of this file measure operators: run them one at a time, so
/// one does not slow down the other's measurements.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn auto_cuts_after_the_expensive_stage_once_it_has_measured_it() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let xs: Vec<u64> = (0..300).collect();
    let expected: Vec<u64> = xs.iter().map(|&x| medium(medium(medium(medium(medium(heavy(x))))))).collect();

    // First run of this graph in this process (no other test uses it): cut
    // finer than its two threads, and its sections start grouped by the
    // operator count, so `heavy`'s thread also steps some `medium` calls
    // until the run has measured them and regroups (issue 23,
    // `crates/ohua-runtime/src/deploy/recut.rs`).
    let (out, reports) = ohua::profile(|| ohua::with_deployment(two_workers_auto(), || heavy_then_medium(xs.clone())));
    assert_eq!(out, expected);
    let r = reports.last().expect("one run");
    let Some(ohua::deploy::Recut::Measured { threads: 2, start }) = &r.plan.recut else {
        panic!("the first run re-cuts by measured cost: {:?}", r.plan.recut)
    };
    let thread_of =
        |name: &str| r.nodes.iter().filter(|n| n.name.contains(name)).map(|n| start[n.section]).collect::<Vec<_>>();
    let (heavy_thread, medium_threads) = (thread_of("/heavy#")[0], thread_of("/medium#"));
    assert!(
        medium_threads.contains(&heavy_thread),
        "count-based groups: heavy on {heavy_thread}, medium on {medium_threads:?}"
    );

    // The first run measured `heavy` fused with the `medium` calls of its
    // section; the piece timed each of its links on some items
    // (`deploy/link_times.rs`), and the piece's time is split over them by
    // those probes, so the second run already cuts right after `heavy`
    // (30 of 30 runs beside a busy core; before the probes the time was
    // split evenly and then kept in that proportion, and about one run in
    // 25 kept `heavy` fused with one `medium` for good). Measurements on a
    // loaded machine are noisy (one of those 30 runs fused them again in
    // its fourth run, and separated them in the next): so, separated by
    // the fifth run, and the last three runs all cut right after it.
    let mut cuts = Vec::new();
    for _ in 0..6 {
        let (out, heavy_section, medium_sections) = sections_of_one_run(xs.clone());
        assert_eq!(out, expected);
        cuts.push((heavy_section, medium_sections));
    }
    let separated =
        |(heavy_section, medium_sections): &(usize, Vec<usize>)| medium_sections.iter().all(|s| s != heavy_section);
    assert!(cuts[..4].iter().any(separated), "a measured cut should separate heavy by the fifth run: {cuts:?}");
    assert!(cuts[3..].iter().all(separated), "measured cut should separate heavy from every medium call: {cuts:?}");
    assert!(cuts[3..].windows(2).all(|w| w[0] == w[1]), "the measured cut should be stable: {cuts:?}");
}

/// The most items replica 0 runs before a heavy piece's replicas open: the
/// probe's threshold (`node/elastic.rs`, 16 items) after its unmeasured
/// first step, which is one item for a call this heavy (its steps are
/// about 100 µs long).
fn ohua_runtime_probe_items() -> u64 {
    16
}

/// A chain of calls too cheap to deal out (a few nanoseconds per item).
#[algorithm]
fn cheap_piece(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for x in xs {
        let a = x.wrapping_mul(3);
        let b = a ^ 5;
        out.push(b);
    }
    out
}

#[test]
fn a_first_run_keeps_a_cheap_piece_on_one_replica() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let xs: Vec<u64> = (0..20_000).collect();
    let expected: Vec<u64> = xs.iter().map(|&x| x.wrapping_mul(3) ^ 5).collect();
    let auto = Deployment::default().workers(2);
    let (out, reports) = ohua::profile(|| ohua::with_deployment(auto.clone(), || cheap_piece(xs.clone())));
    assert_eq!(out, expected);
    let r = &reports[0];
    let elastic: Vec<_> = r.nodes.iter().filter(|n| n.elastic.is_some()).collect();
    assert!(!elastic.is_empty(), "the first run plans the stateless calls on elastic replicas: {r}");
    for n in elastic {
        assert_eq!(n.elastic.and_then(|e| e.opened_after), None, "{r}");
        assert!(n.replicas.iter().skip(1).all(|x| x.firings == 0), "only replica 0 took items: {r}");
    }
    assert!(r.to_string().contains("elastic: stayed on replica 0"), "{r}");
}

/// The same stages, written once more so that this test's graph has its own
/// measurements.
#[algorithm]
fn heavy_then_medium_again(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for x in xs {
        let a = heavy(x);
        let b = medium(a);
        let c = medium(b);
        let d = medium(c);
        let e = medium(d);
        let f = medium(e);
        out.push(f);
    }
    out
}

#[test]
fn auto_replicates_the_stateless_bottleneck_once_it_has_measured_it() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let xs: Vec<u64> = (0..300).collect();
    let expected: Vec<u64> = xs.iter().map(|&x| medium(medium(medium(medium(medium(heavy(x))))))).collect();
    let auto = Deployment::default().workers(2);
    let run = || ohua::profile(|| ohua::with_deployment(auto.clone(), || heavy_then_medium_again(xs.clone())));
    // Nothing is measured at the first run: the stateless piece runs on
    // elastic replicas, on replica 0 alone until replica 0 has measured it
    // (about 60 µs per item here: far above a hand-over), then on both.
    let (out, reports) = run();
    assert_eq!(out, expected);
    let r = &reports[0];
    let heavy = r.nodes.iter().find(|n| n.name.contains("/heavy#")).expect("heavy");
    assert_eq!(heavy.replicas.len(), 2, "{r}");
    let decided = heavy.elastic.expect("the first run's replicas are elastic");
    let opened_after = decided.opened_after.expect("a heavy piece opens its replicas");
    assert!(opened_after <= ohua_runtime_probe_items(), "opened after {opened_after} items: {r}");
    assert!(heavy.replicas[1].firings > 0, "replica 1 took items: {r}");
    assert_eq!(heavy.replicas.iter().map(|x| x.firings).sum::<u64>(), 300, "{r}");
    // Measured, every stage is stateless and costs far more than a
    // hand-over: one fused stage whose stateless calls run on two replicas
    // (Lagniappe: fewer stages, more replicas) beats the best pipeline cut
    // (60 % | 40 % of the work).
    let (out, reports) = run();
    assert_eq!(out, expected);
    let r = &reports[0];
    let heavy = r.nodes.iter().find(|n| n.name.contains("/heavy#")).expect("heavy");
    assert_eq!(heavy.replicas.len(), 2, "{r}");
    assert_eq!(heavy.replicas.iter().map(|x| x.firings).sum::<u64>(), 300, "{r}");
    assert_eq!(r.sections, 2, "one fused stage and one replica section: {r}");
    assert_eq!(heavy.elastic, None, "later runs are planned by measured cost: {r}");
    // Later runs keep replicas only while the replicated runs are measured
    // faster than the unreplicated one (wall time, so not asserted here);
    // either way the result is the sequential one.
    for _ in 0..2 {
        assert_eq!(run().0, expected);
    }
}
