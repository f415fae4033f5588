//! `deploy::plan` for every section strategy.

mod common;

use common::graphs::{INDEP, LOOPY, PIPE};
use ohua_runtime::deploy::{plan, Deployment, Opening, Plan, Replication, SectionRule, SectionStrategy};
use ohua_runtime::graph::ArcInfo;
use ohua_runtime::graph::{GraphInfo, NodeInfo, OpKind};

fn with(sections: SectionStrategy, workers: usize) -> Deployment {
    Deployment::default().workers(workers).sections(sections).batch_size(32).arc_capacity(100)
}

/// Every section in `0..sections` holds at least one node.
fn assert_dense(p: &Plan) {
    for s in 0..p.sections {
        assert!(p.section_of.contains(&s), "section {s} is empty in {p:?}");
    }
    assert!(p.section_of.iter().all(|&s| s < p.sections));
}

/// Sections are contiguous runs of the topological order, numbered in order.
fn assert_contiguous(g: &GraphInfo, p: &Plan) {
    let along: Vec<usize> = g.topological_order().iter().map(|&i| p.section_of[i]).collect();
    assert!(along.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1), "{along:?}");
}

#[test]
fn capacities_and_batch() {
    let p = plan(&PIPE, &with(SectionStrategy::Single, 1));
    assert_eq!((p.batch_size, p.local_capacity, p.cross_capacity), (32, 48, 100));
    // The builder rejects zeros; fields assigned directly are clamped by `plan`.
    let mut zero = Deployment::default().sections(SectionStrategy::Auto);
    (zero.workers, zero.batch_size, zero.arc_capacity) = (0, 0, 0);
    let p = plan(&PIPE, &zero);
    assert_eq!((p.sections, p.batch_size, p.local_capacity, p.cross_capacity), (1, 1, 17, 1));
}

#[test]
fn single_and_per_operator() {
    let p = plan(&PIPE, &with(SectionStrategy::Single, 8));
    assert_eq!((p.sections, p.section_of), (1, vec![0; 5]));
    let p = plan(&PIPE, &with(SectionStrategy::PerOperator, 1));
    assert_eq!((p.sections, p.section_of), (5, vec![0, 1, 2, 3, 4]));
}

#[test]
fn auto_with_one_worker_is_single() {
    let p = plan(&PIPE, &with(SectionStrategy::Auto, 1));
    assert_eq!((p.sections, p.section_of), (1, vec![0; 5]));
}

#[test]
fn auto_balances_weight_in_contiguous_chunks() {
    // source 0.25 | call 1 | call 1 | call 1 | sink 0.25 over two workers.
    let p = plan(&PIPE, &with(SectionStrategy::Auto, 2));
    assert_eq!(p.sections, 2);
    assert_eq!(p.section_of, vec![0, 0, 0, 1, 1]);
    assert_contiguous(&PIPE, &p);
    let p = plan(&PIPE, &with(SectionStrategy::Auto, 3));
    assert_eq!(p.section_of, vec![0, 0, 1, 2, 2]);
    assert_contiguous(&PIPE, &p);
    // The independent chains split between them.
    let p = plan(&INDEP, &with(SectionStrategy::Auto, 2));
    assert_eq!(p.section_of, vec![0, 0, 0, 1, 1, 1]);
}

#[test]
fn auto_never_makes_more_sections_than_nodes() {
    let p = plan(&PIPE, &with(SectionStrategy::Auto, 64));
    assert_eq!((p.sections, p.section_of), (5, vec![0, 1, 2, 3, 4]));
    static ONE: GraphInfo = GraphInfo {
        algorithm: "one",
        file: "",
        nodes: &[NodeInfo { name: "one/x#0", kind: OpKind::Call, depth: 0, label: "x", replicable: false, line: 0 }],
        arcs: &[],
    };
    assert_eq!(plan(&ONE, &with(SectionStrategy::Auto, 4)).sections, 1);
    static EMPTY: GraphInfo = GraphInfo { algorithm: "empty", file: "", nodes: &[], arcs: &[] };
    let p = plan(&EMPTY, &with(SectionStrategy::Auto, 4));
    assert_eq!((p.sections, p.section_of.len()), (1, 0));
}

#[test]
fn auto_ignores_feedback_for_the_order() {
    let p = plan(&LOOPY, &with(SectionStrategy::Auto, 2));
    assert_eq!(p.sections, 2);
    assert_dense(&p);
    assert_contiguous(&LOOPY, &p);
}

#[test]
fn random_is_seeded_and_dense() {
    let d = with(SectionStrategy::Random { sections: 3, seed: 42 }, 2);
    let p = plan(&INDEP, &d);
    assert_eq!(p, plan(&INDEP, &d), "same seed, same plan");
    assert!(p.sections <= 3);
    assert_dense(&p);
    let plans: Vec<Vec<usize>> =
        (0..10).map(|seed| plan(&INDEP, &with(SectionStrategy::Random { sections: 3, seed }, 2)).section_of).collect();
    assert!(plans.iter().any(|p| p != &plans[0]), "seeds should vary the plan");
    // More sections than nodes: empty ones are removed.
    let p = plan(&PIPE, &with(SectionStrategy::Random { sections: 1000, seed: 3 }, 2));
    assert!(p.sections <= 5);
    assert_dense(&p);
}

#[test]
fn rules_first_match_wins_and_unmatched_share_a_section() {
    let rules = vec![
        SectionRule::new(["pipe/inc#[12]"]).unwrap(),
        // Also matches `inc#1`/`inc#2`, but the first rule took them.
        SectionRule::new(["pipe/inc#.*"]).unwrap(),
    ];
    let p = plan(&PIPE, &with(SectionStrategy::Rules(rules), 2));
    // count and sink match nothing: the extra section after the rules.
    assert_eq!((p.sections, p.section_of), (3, vec![2, 0, 0, 1, 2]));
}

#[test]
fn rules_are_anchored() {
    // `inc` alone matches no full name; `pipe/inc` is only a prefix. So no
    // rule matches any operator: the rules are not for this algorithm and it
    // keeps `auto` (rather than one section holding everything).
    let rules = vec![SectionRule::new(["inc", "pipe/inc"]).unwrap()];
    let p = plan(&PIPE, &with(SectionStrategy::Rules(rules), 2));
    assert_eq!(p, plan(&PIPE, &with(SectionStrategy::Auto, 2)));
    // One that matches the whole name does apply.
    let rules = vec![SectionRule::new(["pipe/inc#1"]).unwrap()];
    let p = plan(&PIPE, &with(SectionStrategy::Rules(rules), 2));
    assert_eq!((p.sections, p.section_of), (2, vec![1, 0, 1, 1, 1]));
}

#[test]
fn rules_that_match_nothing_are_removed() {
    let rules = vec![
        SectionRule::new(["nothing/.*"]).unwrap(),
        SectionRule::new(["pipe/sink#4"]).unwrap(),
        SectionRule::new(["also-nothing"]).unwrap(),
        SectionRule::new([".*"]).unwrap(),
    ];
    let p = plan(&PIPE, &with(SectionStrategy::Rules(rules), 2));
    // Rules 0 and 2 and the (unused) extra section vanish; order is kept.
    assert_eq!((p.sections, p.section_of), (2, vec![1, 1, 1, 1, 0]));
}

/// xs → smap → f (replicable) → g (replicable) → add (state) → sink.
static MAPPED: GraphInfo = GraphInfo {
    algorithm: "mapped",
    file: "",
    nodes: &[
        NodeInfo { name: "mapped/xs#arg", kind: OpKind::Source, depth: 0, label: "xs", replicable: false, line: 0 },
        NodeInfo { name: "mapped/smap@1", kind: OpKind::SMap, depth: 0, label: "smap", replicable: false, line: 0 },
        NodeInfo { name: "mapped/f#2", kind: OpKind::Call, depth: 1, label: "f (x)", replicable: true, line: 0 },
        NodeInfo { name: "mapped/g#3", kind: OpKind::Call, depth: 1, label: "g (y)", replicable: true, line: 0 },
        NodeInfo {
            name: "mapped/add#4",
            kind: OpKind::Call,
            depth: 1,
            label: "s . add (z)",
            replicable: false,
            line: 0,
        },
        NodeInfo { name: "mapped/result", kind: OpKind::Sink, depth: 0, label: "result", replicable: false, line: 0 },
    ],
    arcs: &[
        ArcInfo { from: 0, from_port: 0, to: 1, to_port: 0, feedback: false },
        ArcInfo { from: 1, from_port: 0, to: 2, to_port: 0, feedback: false },
        ArcInfo { from: 2, from_port: 0, to: 3, to_port: 0, feedback: false },
        ArcInfo { from: 3, from_port: 0, to: 4, to_port: 0, feedback: false },
        ArcInfo { from: 4, from_port: 0, to: 5, to_port: 0, feedback: false },
    ],
};

fn replicated(sections: SectionStrategy, replicas: Replication) -> Deployment {
    with(sections, 2).replicas(replicas)
}

#[test]
fn replica_rules_apply_to_replicable_operators_only() {
    let rules: Replication = "mapped/.*=3".parse().unwrap();
    let p = plan(&MAPPED, &replicated(SectionStrategy::Single, rules));
    assert_eq!(p.replicas, vec![1, 1, 3, 3, 1, 1], "the state's call and control operators run once");
    assert_eq!(p.sections, 3, "one section and two for replicas 1 and 2");
    assert_eq!((p.replica_sections[2].clone(), p.replica_sections[3].clone()), (vec![0, 1, 2], vec![0, 1, 2]));
    assert!(p.replica_sections[4].is_empty());
    assert_dense_with_replicas(&p);
}

#[test]
fn replica_zero_shares_its_operators_section() {
    let p = plan(&MAPPED, &replicated(SectionStrategy::PerOperator, "mapped/g#.*=2".parse().unwrap()));
    assert_eq!(p.replicas[3], 2);
    assert_eq!(p.replica_sections[3], vec![p.section_of[3], 6], "extra section after the six operators'");
    assert_eq!(p.sections, 7);
}

#[test]
fn off_replicates_nothing() {
    let p = plan(&MAPPED, &replicated(SectionStrategy::Auto, Replication::Off));
    assert_eq!(p.replicas, vec![1; 6]);
    assert!(p.replica_sections.iter().all(Vec::is_empty));
    assert_eq!(p.elastic, vec![None; 6]);
}

/// A first run has measured nothing: `auto` plans the replicable piece on
/// elastic replicas (replica 0 alone until it has measured the piece),
/// fused with the rest into one stage, as a measured heavy piece would be.
#[test]
fn an_unmeasured_auto_plan_puts_the_replicable_piece_on_elastic_replicas() {
    let p = plan(&MAPPED, &replicated(SectionStrategy::Auto, Replication::Auto));
    assert_eq!(p.replicas, vec![1, 1, 2, 2, 1, 1]);
    let m = Some(Opening::Measured);
    assert_eq!(p.elastic, vec![None, None, m, m, None, None]);
    assert_eq!(p.section_of, vec![0; 6], "one stage beside replica 0");
    assert_eq!((p.replica_sections[2].clone(), p.sections), (vec![0, 1], 2));
    // Rules and other strategies are the user's: nothing elastic there.
    let rules: Replication = "mapped/f#.*=2".parse().unwrap();
    assert_eq!(plan(&MAPPED, &replicated(SectionStrategy::Auto, rules)).elastic, vec![None; 6]);
    let single = plan(&MAPPED, &replicated(SectionStrategy::Single, Replication::Auto));
    assert_eq!((single.replicas, single.elastic), (vec![1; 6], vec![None; 6]));
}

#[test]
fn random_replicas_are_reproducible_and_cover_counts_and_placements() {
    let mut counts = std::collections::BTreeSet::new();
    let mut shared_section = false;
    let mut own_section = false;
    for seed in 0..40 {
        let d = replicated(SectionStrategy::Random { sections: 2, seed }, Replication::Random { max: 4, seed });
        let p = plan(&MAPPED, &d);
        assert_eq!(p, plan(&MAPPED, &d), "seed {seed}: reproducible");
        assert_dense_with_replicas(&p);
        for id in [0, 1, 4, 5] {
            assert_eq!(p.replicas[id], 1, "seed {seed}: node {id} is not replicable");
        }
        for id in [2, 3] {
            counts.insert(p.replicas[id]);
            let home = p.section_of[id];
            for (k, &s) in p.replica_sections[id].iter().enumerate() {
                assert_eq!(k == 0, k == 0 && s == home, "seed {seed}: replica 0 is at home");
                shared_section |= k > 0 && s == home;
                own_section |= k > 0 && s != home;
            }
        }
    }
    assert_eq!(counts.into_iter().collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    assert!(shared_section && own_section, "replicas both beside and away from their operator");
}

/// Every section holds a node or a replica, and nothing is out of range.
fn assert_dense_with_replicas(p: &Plan) {
    let used: std::collections::BTreeSet<usize> =
        p.section_of.iter().chain(p.replica_sections.iter().flatten()).copied().collect();
    assert_eq!(used.into_iter().collect::<Vec<_>>(), (0..p.sections).collect::<Vec<_>>(), "{p:?}");
}
