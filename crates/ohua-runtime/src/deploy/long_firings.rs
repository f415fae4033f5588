//! Long firings run apart: an operator measured at [`LONG_FIRING_NS`] or
//! more per firing gets a section of its own.
//!
//! A section runs its operators one after the other on one thread, so an
//! operator that fires for 40 ms holds every other operator of its section
//! for 40 ms. `auto` cuts sections to balance busy time, which is blind to
//! this: a long `&self` summary on a snapshot that fires a few times a
//! second is a small share of the run and landed in the section that
//! answers heartbeats, which then waited for it as in sequential execution
//! (`examples/src/bin/responsive.rs`, issue 24: p99 45-63 ms). Here such an
//! operator, where it runs once (not replicated), is taken out of the cut,
//! the rest is cut over the other workers, and the long ones share the
//! remaining sections. Replicated operators are kept apart by their
//! scatter instead: an item of a long operator goes to a replica on another
//! thread (`node/local_first.rs`).

use super::{auto, Opening};
use crate::graph::GraphInfo;

/// Measured cost per firing, in nanoseconds, from which an operator's
/// firing is long: it runs apart from the other operators (this file) and
/// its items leave the scatter's thread (`node/local_first.rs`).
///
/// Why 1 ms: handing an item to another thread costs 5-50 µs, under 5 %
/// of such a firing, while sharing a thread with it delays everything else
/// there by its whole length; a service that must answer within a few
/// milliseconds can afford 1 ms.
pub const LONG_FIRING_NS: u64 = 1_000_000;

/// Re-cut `raw` (section per node) so that every operator that runs once
/// and was measured at [`LONG_FIRING_NS`] or more per firing (`costs`:
/// busy ns per node, `firings` per node) shares its section with no other
/// operator, given `workers` threads. `None` where nothing changes: no
/// long firing, one worker, or each long operator already alone.
pub(super) fn apart(
    graph: &GraphInfo,
    raw: &[usize],
    replicas: &[usize],
    costs: &[f64],
    firings: &[u64],
    workers: usize,
) -> Option<Vec<usize>> {
    let n = graph.nodes.len();
    if workers < 2 || costs.len() != n || firings.len() != n || raw.len() != n {
        return None;
    }
    let long: Vec<usize> = (0..n)
        .filter(|&id| replicas[id] == 1 && firings[id] > 0 && costs[id] / firings[id] as f64 >= LONG_FIRING_NS as f64)
        .collect();
    let alone = |id: usize| raw.iter().filter(|&&s| s == raw[id]).count() == 1;
    if long.is_empty() || long.iter().all(|&id| alone(id)) || long.len() == n {
        return None;
    }
    let mut out = if replicas.iter().all(|&r| r == 1) {
        // The rest over the other workers, balanced by measured cost.
        let rest: Vec<f64> = (0..n).map(|id| if long.contains(&id) { 0.0 } else { costs[id] }).collect();
        let others = workers - long.len().min(workers - 1);
        auto::split(graph, others, Some(&rest))
    } else {
        // Replicas were placed around this cut: keep it.
        raw.to_vec()
    };
    let base = out.iter().max().map_or(0, |m| m + 1);
    let sections = long.len().min(workers - 1).max(1);
    for (k, &id) in long.iter().enumerate() {
        out[id] = base + k % sections;
    }
    Some(out)
}

/// For every elastic node that follows its load, its measured cost per
/// item where that is long, else 0 ([`super::Plan::long_items`]): a run's
/// probe measures on replica 0, so without it the run's first long item
/// would run beside the scatter.
pub(super) fn per_item(elastic: &[Option<Opening>], costs: &[f64], firings: &[u64]) -> Vec<u64> {
    (0..elastic.len())
        .map(|id| {
            let per_item = match (costs.get(id), firings.get(id)) {
                (Some(&c), Some(&f)) if f > 0 => (c / f as f64) as u64,
                _ => 0,
            };
            if elastic[id] == Some(Opening::Load) && per_item >= LONG_FIRING_NS {
                per_item
            } else {
                0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{apart, LONG_FIRING_NS};
    use crate::graph::{ArcInfo, GraphInfo, NodeInfo, OpKind};

    const fn node(name: &'static str) -> NodeInfo {
        NodeInfo { name, kind: OpKind::Call, depth: 1, label: name, replicable: true, line: 0 }
    }

    const fn arc(from: u32, to: u32) -> ArcInfo {
        ArcInfo { from, from_port: 0, to, to_port: 0, feedback: false }
    }

    /// requests → apply → (summary | status) → send: a service's loop.
    static SERVICE: GraphInfo = GraphInfo {
        algorithm: "node",
        file: "",
        nodes: &[node("node/recv"), node("node/apply"), node("node/summary"), node("node/status"), node("node/send")],
        arcs: &[arc(0, 1), arc(1, 2), arc(1, 3), arc(2, 4), arc(3, 4)],
    };

    const MS: f64 = LONG_FIRING_NS as f64;

    #[test]
    fn a_long_firing_gets_a_section_of_its_own_and_the_rest_shares_the_others() {
        // 5 summaries of 40 ms, 3,000 cheap firings of the rest: a cut by
        // busy time put the summary beside the heartbeats' status.
        let costs = [3e6, 3e6, 200.0 * MS, 3e6, 3e6];
        let firings = [3000, 3000, 5, 3000, 3000];
        let raw = [0, 0, 1, 1, 1];
        let cut = apart(&SERVICE, &raw, &[1; 5], &costs, &firings, 2).expect("re-cut");
        assert_eq!(cut, vec![0, 0, 1, 0, 0]);
    }

    #[test]
    fn short_firings_and_one_worker_keep_the_cut() {
        let firings = [3000, 3000, 5, 3000, 3000];
        let short = [3e6, 3e6, 4.0 * MS, 3e6, 3e6]; // 0.8 ms per firing
        assert_eq!(apart(&SERVICE, &[0, 0, 1, 1, 1], &[1; 5], &short, &firings, 2), None);
        let long = [3e6, 3e6, 200.0 * MS, 3e6, 3e6];
        assert_eq!(apart(&SERVICE, &[0; 5], &[1; 5], &long, &firings, 1), None);
        // Already alone.
        assert_eq!(apart(&SERVICE, &[0, 0, 1, 0, 0], &[1; 5], &long, &firings, 2), None);
    }

    #[test]
    fn a_load_following_node_starts_from_the_long_cost_earlier_runs_measured() {
        use super::{per_item, Opening};
        let elastic = [None, Some(Opening::Load), Some(Opening::Load), Some(Opening::Measured)];
        let costs = [200.0 * MS, 200.0 * MS, 3e6, 200.0 * MS];
        let firings = [5, 5, 3000, 5];
        // Run once, short, or not following the load: the probe measures.
        assert_eq!(per_item(&elastic, &costs, &firings), vec![0, 40 * LONG_FIRING_NS, 0, 0]);
    }

    #[test]
    fn a_replicated_long_operator_is_left_to_its_scatter_and_others_keep_their_sections() {
        let costs = [3e6, 200.0 * MS, 200.0 * MS, 3e6, 3e6];
        let firings = [3000, 5, 5, 3000, 3000];
        // `apply` long and run once, `summary` long and replicated.
        let cut = apart(&SERVICE, &[0, 0, 0, 0, 0], &[1, 1, 2, 1, 1], &costs, &firings, 3).expect("re-cut");
        assert_eq!(cut, vec![0, 1, 0, 0, 0]);
    }
}
