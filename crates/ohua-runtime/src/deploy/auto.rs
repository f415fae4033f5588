//! The automatic default: contiguous, weight-balanced pipeline stages.
//!
//! Splitting the topological order into contiguous chunks gives pipeline
//! parallelism with every cross-section arc pointing "forward" (except
//! feedback), so no section waits on a later one in the steady state.
//!
//! The chunks are balanced by measured busy time once a run of the graph has
//! measured it (`learned.rs`). Before that, by a guess: operators that run
//! user code (`call`) dominate the cost; control operators only move packets,
//! so they weigh a quarter; operators outside every loop fire once, so they
//! weigh a thousandth of that.

use crate::graph::{GraphInfo, OpKind};

/// Weight of a node of the given kind.
pub(super) fn weight(kind: OpKind) -> f64 {
    if kind == OpKind::Call {
        1.0
    } else {
        0.25
    }
}

/// How often an operator at `depth` fires, relative to one in a loop: an
/// operator outside every loop (a state's constructor, the result) fires
/// once per run, one inside a loop once per item. Counting the former as
/// a loop's operators put the three constructors of a two-stateful-stage
/// loop in one section and both stages in the other (`ohua-bench
/// first-runs`, `dnr`: 0.92x of sequential on its first run).
pub(super) fn per_run(depth: u16) -> f64 {
    if depth == 0 {
        1e-3
    } else {
        1.0
    }
}

/// Section of every node (indexed by node id) when splitting the graph into
/// at most `workers` non-empty contiguous chunks of its topological order,
/// balanced by `costs` (per node id) if given, else by [`weight`].
pub(super) fn split(graph: &GraphInfo, workers: usize, costs: Option<&[f64]>) -> Vec<usize> {
    let n = graph.nodes.len();
    let mut section_of = vec![0; n];
    if workers.min(n) <= 1 {
        return section_of;
    }
    let order = graph.topological_order();
    let w: Vec<f64> = match costs {
        Some(c) if c.len() == n && c.iter().sum::<f64>() > 0.0 => order.iter().map(|&i| c[i]).collect(),
        _ => order.iter().map(|&i| weight(graph.nodes[i].kind) * per_run(graph.nodes[i].depth)).collect(),
    };
    for (&node, chunk) in order.iter().zip(chunks(&w, workers)) {
        section_of[node] = chunk;
    }
    section_of
}

/// The chunk of every position when splitting weights `w` (in order) into
/// at most `k` non-empty contiguous chunks of about equal weight: each
/// chunk takes the next item only if that lands it closer to an equal
/// share of what is left.
pub(super) fn chunks(w: &[f64], k: usize) -> Vec<usize> {
    let n = w.len();
    let mut chunk_of = vec![0; n];
    let k = k.min(n);
    if k <= 1 {
        return chunk_of;
    }
    let mut remaining: f64 = w.iter().sum();
    let mut idx = 0;
    for chunk in 0..k {
        let chunks_left = k - chunk;
        if chunks_left == 1 {
            // The last chunk takes whatever is left (at least one item, as
            // every earlier chunk stopped early enough to leave one each).
            for c in &mut chunk_of[idx..] {
                *c = chunk;
            }
            break;
        }
        let target = remaining / chunks_left as f64;
        // Leave at least one item for each later chunk.
        let max_end = n - (chunks_left - 1);
        let mut taken = 0.0;
        loop {
            chunk_of[idx] = chunk;
            taken += w[idx];
            idx += 1;
            if idx >= max_end {
                break;
            }
            // Take the next item only if that lands closer to the target
            // than stopping here.
            if taken + w[idx] - target > target - taken {
                break;
            }
        }
        remaining -= taken;
    }
    chunk_of
}

#[cfg(test)]
mod tests {
    use super::split;
    use crate::graph::{ArcInfo, GraphInfo, NodeInfo, OpKind};

    const fn node(name: &'static str, kind: OpKind) -> NodeInfo {
        NodeInfo { name, kind, depth: 0, label: name, replicable: false, line: 0 }
    }

    const fn arc(from: u32, to: u32) -> ArcInfo {
        ArcInfo { from, from_port: 0, to, to_port: 0, feedback: false }
    }

    /// source → heavy → light → light → light → sink.
    static HEAVY_FIRST: GraphInfo = GraphInfo {
        algorithm: "g",
        file: "",
        nodes: &[
            node("g/xs#arg", OpKind::Source),
            node("g/heavy#1", OpKind::Call),
            node("g/light#2", OpKind::Call),
            node("g/light#3", OpKind::Call),
            node("g/light#4", OpKind::Call),
            node("g/result", OpKind::Sink),
        ],
        arcs: &[arc(0, 1), arc(1, 2), arc(2, 3), arc(3, 4), arc(4, 5)],
    };

    #[test]
    fn without_measurements_the_cut_balances_operator_count() {
        assert_eq!(split(&HEAVY_FIRST, 2, None), vec![0, 0, 0, 1, 1, 1]);
    }

    #[test]
    fn measured_costs_move_the_cut_to_balance_time() {
        let costs = [0.0, 90.0, 3.0, 3.0, 3.0, 0.0];
        assert_eq!(split(&HEAVY_FIRST, 2, Some(&costs)), vec![0, 0, 1, 1, 1, 1]);
    }

    /// Three constructors before a loop of two stateful stages (`dnr`).
    static STAGES_AFTER_CONSTRUCTORS: GraphInfo = GraphInfo {
        algorithm: "d",
        file: "",
        nodes: &[
            NodeInfo { name: "d/new#1", kind: OpKind::Call, depth: 0, label: "new", replicable: false, line: 0 },
            NodeInfo { name: "d/new#2", kind: OpKind::Call, depth: 0, label: "new", replicable: false, line: 0 },
            NodeInfo { name: "d/new#3", kind: OpKind::Call, depth: 0, label: "new", replicable: false, line: 0 },
            NodeInfo { name: "d/smap@4", kind: OpKind::SMap, depth: 0, label: "smap", replicable: false, line: 0 },
            NodeInfo { name: "d/a#5", kind: OpKind::Call, depth: 1, label: "a", replicable: false, line: 0 },
            NodeInfo { name: "d/b#6", kind: OpKind::Call, depth: 1, label: "b", replicable: false, line: 0 },
        ],
        arcs: &[arc(0, 4), arc(1, 5), arc(3, 4), arc(4, 5)],
    };

    /// Regression (`ohua-bench first-runs`, `dnr`: 0.92x of sequential on
    /// its first run): counted as loop operators, the constructors filled
    /// the first section and both stages landed in the second.
    #[test]
    fn without_measurements_operators_outside_loops_weigh_almost_nothing() {
        let s = split(&STAGES_AFTER_CONSTRUCTORS, 2, None);
        assert_ne!(s[4], s[5], "the two stages share a section: {s:?}");
    }

    #[test]
    fn all_zero_costs_fall_back_to_the_count() {
        assert_eq!(split(&HEAVY_FIRST, 2, Some(&[0.0; 6])), split(&HEAVY_FIRST, 2, None));
    }
}
