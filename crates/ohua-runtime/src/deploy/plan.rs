//! The concrete deployment of one graph: which section runs which node.

use rand::{Rng, SeedableRng};

use super::{auto, learned, unmatched, Deployment, SectionRule, SectionStrategy};
use crate::graph::GraphInfo;

/// Extra room on arcs inside a section beyond one batch, so a step's
/// end-of-activation markers fit next to a full batch of data.
const MARKER_ROOM: usize = 16;

/// A deployment applied to one graph.
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::{plan, Deployment, SectionStrategy};
/// use ohua_runtime::graph::{GraphInfo, NodeInfo};
/// static G: GraphInfo = GraphInfo {
///     algorithm: "g",
///     nodes: &[
///         NodeInfo { name: "g/a#0", kind: "call", depth: 0, label: "a" },
///         NodeInfo { name: "g/b#1", kind: "call", depth: 0, label: "b" },
///     ],
///     arcs: &[],
/// };
/// let d = Deployment { sections: SectionStrategy::PerOperator, ..Deployment::default() };
/// let p = plan(&G, &d);
/// assert_eq!((p.sections, p.section_of.clone()), (2, vec![0, 1]));
/// assert_eq!(p.local_capacity, d.batch_size + 16);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Section of each node, indexed by node id; values are `0..sections`.
    pub section_of: Vec<usize>,
    /// Number of sections, none of them empty (at least 1).
    pub sections: usize,
    /// Firings per operator step.
    pub batch_size: usize,
    /// Capacity of an arc whose ends are in the same section.
    pub local_capacity: usize,
    /// Capacity of an arc between two sections.
    pub cross_capacity: usize,
}

/// Map every node of `graph` to a section according to `d`.
///
/// For [`SectionStrategy::Auto`] the result depends on earlier runs of the
/// same graph in this process: once a run has measured its operators, `auto`
/// cuts by their measured busy time instead of by operator count (see
/// `deploy/learned.rs`). Every other strategy depends on `graph` and `d` only.
///
/// Zero values in `d` are treated as 1. Sections that end up empty are
/// removed and the rest renumbered in order, so `0..sections` are all used.
pub fn plan(graph: &GraphInfo, d: &Deployment) -> Plan {
    let (strategy, scoped) = d.sections.for_algorithm(graph.algorithm);
    // Whether the configuration set this algorithm's sections: a table of
    // its name or a matching rule (else a misspelt name is looked for).
    let mut own = scoped;
    let raw: Vec<usize> = match strategy {
        SectionStrategy::Rules(rules) => match by_rules(graph, rules, scoped) {
            Some(raw) => {
                own = true;
                raw
            }
            None => auto::split(graph, d.workers, learned::costs(graph).as_deref()),
        },
        other => by_strategy(graph, d, other),
    };
    unmatched::planned(graph.algorithm, own, &d.sections);
    let (section_of, sections) = compact(raw);
    let batch_size = d.batch_size.max(1);
    Plan {
        section_of,
        sections,
        batch_size,
        local_capacity: batch_size + MARKER_ROOM,
        cross_capacity: d.arc_capacity.max(1),
    }
}

/// Sections by rules: the first matching rule's index, the extra section
/// after the last rule for the rest. `None` if no rule matches any operator
/// (the algorithm then keeps `auto`). Rules that match nothing are reported
/// once (`unmatched.rs`).
fn by_rules(graph: &GraphInfo, rules: &[SectionRule], scoped: bool) -> Option<Vec<usize>> {
    let raw: Vec<usize> =
        graph.nodes.iter().map(|node| rules.iter().position(|r| r.matches(node.name)).unwrap_or(rules.len())).collect();
    let mut matched = vec![false; rules.len()];
    for &r in raw.iter().filter(|&&r| r < rules.len()) {
        matched[r] = true;
    }
    unmatched::rules(graph.algorithm, rules, &matched, scoped);
    matched.contains(&true).then_some(raw)
}

/// Sections by a strategy other than rules.
fn by_strategy(graph: &GraphInfo, d: &Deployment, strategy: &SectionStrategy) -> Vec<usize> {
    let n = graph.nodes.len();
    match strategy {
        SectionStrategy::Single => vec![0; n],
        SectionStrategy::PerOperator => (0..n).collect(),
        SectionStrategy::Auto => auto::split(graph, d.workers, learned::costs(graph).as_deref()),
        SectionStrategy::Random { sections, seed } => {
            let mut rng = rand::rngs::StdRng::seed_from_u64(*seed);
            let k = (*sections).max(1);
            (0..n).map(|_| rng.gen_range(0..k)).collect()
        }
        // Resolved by `plan` (rules) and `for_algorithm` (per algorithm).
        SectionStrategy::Rules(_) | SectionStrategy::PerAlgorithm { .. } => {
            unreachable!("ohua internal error: nested section strategy {strategy}")
        }
    }
}

/// Renumber section ids to `0..k` keeping their order, dropping unused ids.
/// Returns the new map and `k` (at least 1, so an empty graph has a section).
fn compact(raw: Vec<usize>) -> (Vec<usize>, usize) {
    let mut used: Vec<usize> = raw.clone();
    used.sort_unstable();
    used.dedup();
    let section_of = raw.iter().map(|s| used.binary_search(s).expect("every id in raw is in used")).collect();
    (section_of, used.len().max(1))
}

#[cfg(test)]
mod tests {
    use super::compact;

    #[test]
    fn compact_removes_gaps_in_order() {
        assert_eq!(compact(vec![4, 0, 4, 2]), (vec![2, 0, 2, 1], 3));
        assert_eq!(compact(vec![]), (vec![], 1));
    }
}
