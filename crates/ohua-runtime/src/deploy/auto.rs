//! The automatic default: contiguous, weight-balanced pipeline stages.
//!
//! Splitting the topological order into contiguous chunks gives pipeline
//! parallelism with every cross-section arc pointing "forward" (except
//! feedback), so no section waits on a later one in the steady state.
//! Operators that run user code (`call`) dominate the cost; control
//! operators only move packets, so they weigh a quarter.

use crate::graph::GraphInfo;

/// Weight of a node of the given kind.
fn weight(kind: &str) -> f64 {
    if kind == "call" {
        1.0
    } else {
        0.25
    }
}

/// Section of every node (indexed by node id) when splitting the graph into
/// at most `workers` non-empty contiguous chunks of its topological order.
pub(super) fn split(graph: &GraphInfo, workers: usize) -> Vec<usize> {
    let n = graph.nodes.len();
    let mut section_of = vec![0; n];
    let k = workers.min(n);
    if k <= 1 {
        return section_of;
    }
    let order = graph.topological_order();
    let w: Vec<f64> = order.iter().map(|&i| weight(graph.nodes[i].kind)).collect();
    let mut remaining: f64 = w.iter().sum();
    let mut idx = 0;
    for chunk in 0..k {
        let chunks_left = k - chunk;
        if chunks_left == 1 {
            // The last chunk takes whatever is left (at least one node, as
            // every earlier chunk stopped early enough to leave one each).
            for &node in &order[idx..] {
                section_of[node] = chunk;
            }
            break;
        }
        let target = remaining / chunks_left as f64;
        // Leave at least one node for each later chunk.
        let max_end = n - (chunks_left - 1);
        let mut taken = 0.0;
        loop {
            section_of[order[idx]] = chunk;
            taken += w[idx];
            idx += 1;
            if idx >= max_end {
                break;
            }
            // Take the next node only if that lands closer to the target
            // than stopping here.
            if taken + w[idx] - target > target - taken {
                break;
            }
        }
        remaining -= taken;
    }
    section_of
}
