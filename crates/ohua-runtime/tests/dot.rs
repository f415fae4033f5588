//! DOT export of graphs, with and without a deployment plan.

mod common;

use common::graphs::{LOOPY, PIPE};
use ohua_runtime::deploy::{plan, Deployment, SectionStrategy};
use ohua_runtime::report::to_dot;

#[test]
fn plain_graph() {
    let dot = to_dot(&PIPE, None);
    assert!(dot.starts_with("digraph \"pipe\" {\n"), "{dot}");
    assert!(dot.trim_end().ends_with('}'));
    assert!(!dot.contains("cluster"));
    for id in 0..5 {
        assert!(dot.contains(&format!("  n{id} [label=\"{}", PIPE.nodes[id].name)), "{dot}");
    }
    assert!(dot.contains("n0 -> n1 [label=\"0→0\"];"), "{dot}");
    assert!(!dot.contains("dashed"));
}

#[test]
fn clusters_by_section_and_dashes_feedback() {
    let d = Deployment::default().sections(SectionStrategy::PerOperator);
    let p = plan(&LOOPY, &d);
    let dot = to_dot(&LOOPY, Some(&p));
    for s in 0..4 {
        assert!(dot.contains(&format!("subgraph cluster_{s} {{")), "{dot}");
        assert!(dot.contains(&format!("label=\"section {s}\";")), "{dot}");
    }
    // Node 2 sits in cluster 2.
    let cluster2 = dot.split("subgraph cluster_2 {").nth(1).unwrap().split('}').next().unwrap();
    assert!(cluster2.contains("n2 [label="), "{cluster2}");
    // Name and label on two lines; quotes in the label are escaped.
    assert!(dot.contains(r#"n2 [label="loopy/add#2\nacc.add(\"x\")""#), "{dot}");
    assert!(dot.contains("n2 -> n1 [label=\"0→2\", style=dashed];"), "{dot}");
    assert!(dot.contains("n1 -> n2 [label=\"0→1\"];"), "{dot}");
    assert_eq!(dot.matches("dashed").count(), 1);
}

#[test]
fn one_cluster_for_a_single_section() {
    let d = Deployment::default().sections(SectionStrategy::Single);
    let dot = to_dot(&PIPE, Some(&plan(&PIPE, &d)));
    assert_eq!(dot.matches("subgraph cluster_").count(), 1);
    assert_eq!(dot.matches("[label=\"pipe/").count(), 5);
}
