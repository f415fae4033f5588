//! Replicated operators (issue "Data parallelism"): a call without state in a
//! loop runs on several replicas and its results are merged back in order,
//! so results and every state's calls equal sequential execution.

use ohua::{Deployment, Replication, SectionStrategy};
use ohua_conformance::{check, Log};

fn slow_square(x: u64) -> u64 {
    // Enough work that replicas overlap, varying per item so they finish
    // out of order.
    let mut h = x;
    for _ in 0..(x % 7) * 50 {
        h = h.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    }
    std::hint::black_box(h);
    x * x
}

fn describe(x: u64) -> String {
    format!("<{x}>")
}

#[ohua::algorithm]
fn squares(xs: Vec<u64>) -> Vec<u64> {
    let ys: Vec<u64> = xs.into_iter().map(|x| slow_square(x)).collect();
    ys
}

#[ohua::algorithm]
fn squares_into_log(xs: Vec<u64>) -> Log {
    let mut log = Log::new();
    for x in xs {
        let y = slow_square(x);
        log.push(y as i64);
    }
    log
}

#[ohua::algorithm]
fn chained(xs: Vec<u64>) -> Vec<String> {
    let ys: Vec<String> = xs
        .into_iter()
        .map(|x| {
            let a = slow_square(x);
            let b = a + 1;
            let c = describe(b);
            c
        })
        .collect();
    ys
}

#[ohua::algorithm]
fn nested(xss: Vec<Vec<u64>>) -> (Vec<Vec<u64>>, Log) {
    let mut log = Log::new();
    let mut out = Vec::new();
    for xs in xss {
        let ys: Vec<u64> = xs.into_iter().map(|x| slow_square(x)).collect();
        let n = ys.len();
        log.push(n as i64);
        out.push(ys);
    }
    (out, log)
}

fn rules(pattern: &str, n: usize, sections: SectionStrategy) -> Deployment {
    Deployment {
        workers: 2,
        sections,
        replicas: format!("{pattern}={n}").parse::<Replication>().unwrap(),
        ..Deployment::default()
    }
}

fn inputs() -> Vec<u64> {
    (0..500).collect()
}

#[test]
fn a_replicated_collecting_map_returns_items_in_order() {
    check(|| squares(inputs()));
    for n in 1..=4 {
        for sections in [SectionStrategy::Single, SectionStrategy::PerOperator, SectionStrategy::Auto] {
            let d = rules("squares/slow_square#.*", n, sections.clone());
            let (got, reports) = ohua::profile(|| ohua::with_deployment(d, || squares(inputs())));
            assert_eq!(got, ohua::sequential(|| squares(inputs())), "{n} replicas, {sections}");
            let node = reports[0].nodes.iter().find(|s| s.name.starts_with("squares/slow_square")).unwrap();
            let expected = if n > 1 { n } else { 0 };
            assert_eq!(node.replicas.len(), expected, "{n} replicas, {sections}");
            // Replicas see items only; a single operator also forwards the
            // loop's end marker.
            let firings = if n > 1 { 500 } else { 501 };
            assert_eq!(node.firings, firings, "every item ran once");
        }
    }
}

#[test]
fn a_state_after_a_replicated_call_sees_its_calls_in_order() {
    check(|| squares_into_log(inputs()));
    let d = rules("squares_into_log/slow_square#.*", 3, SectionStrategy::PerOperator);
    let got = ohua::with_deployment(d, || squares_into_log(inputs()));
    assert_eq!(got, ohua::sequential(|| squares_into_log(inputs())));
}

#[test]
fn a_replicated_chain_is_one_piece_per_replica() {
    check(|| chained(inputs()));
    let d = rules("chained/.*", 2, SectionStrategy::Single);
    let (got, reports) = ohua::profile(|| ohua::with_deployment(d, || chained(inputs())));
    assert_eq!(got, ohua::sequential(|| chained(inputs())));
    let r = &reports[0];
    assert!(r.nodes.iter().any(|n| n.replicas.len() == 2), "{r}");
}

#[test]
fn replicas_inside_nested_loops_keep_markers_in_place() {
    let xss: Vec<Vec<u64>> = (0..40).map(|i| (0..(i % 5)).collect()).collect();
    check(|| nested(xss.clone()));
    for seed in 0..6 {
        let d = Deployment {
            workers: 2,
            sections: SectionStrategy::Random { sections: 3, seed },
            batch_size: 1 + seed as usize % 3,
            arc_capacity: 1 + seed as usize % 2,
            replicas: Replication::Random { max: 4, seed },
        };
        let got = ohua::with_deployment(d, || nested(xss.clone()));
        assert_eq!(got, ohua::sequential(|| nested(xss.clone())), "seed {seed}");
    }
}
