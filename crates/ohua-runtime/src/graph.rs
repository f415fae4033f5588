//! Static description of a compiled dataflow graph.
//!
//! The compiler emits one [`GraphInfo`] per algorithm, encoded as a string
//! in a `static` [`EncodedGraph`] and decoded on the first call; the
//! deployment planner maps its operators to sections by name, and reports and
//! DOT exports use it to label what ran.

mod cycle;
mod encoded;
pub use encoded::EncodedGraph;

/// Static description of one algorithm's dataflow graph.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
/// use ohua::{ArcInfo, GraphInfo, NodeInfo};
/// static G: GraphInfo = GraphInfo {
///     algorithm: "demo",
///     nodes: &[
///         NodeInfo { name: "demo/input#0", kind: "source", depth: 0, label: "x", replicable: false },
///         NodeInfo { name: "demo/result#1", kind: "sink", depth: 0, label: "x", replicable: false },
///     ],
///     arcs: &[ArcInfo { from: 0, from_port: 0, to: 1, to_port: 0, feedback: false }],
/// };
/// assert_eq!(G.nodes.len(), 2);
/// ```
#[derive(Debug)]
pub struct GraphInfo {
    /// Name of the algorithm (the function name).
    pub algorithm: &'static str,
    /// Operators, indexed by node id.
    pub nodes: &'static [NodeInfo],
    /// Arcs, indexed by arc id.
    pub arcs: &'static [ArcInfo],
}

/// One operator of a graph.
#[derive(Debug)]
pub struct NodeInfo {
    /// Stable name `algorithm/function#callsite`, used by deployment rules,
    /// metrics and (later) live updates.
    pub name: &'static str,
    /// Operator kind: `call`, `source`, `sink`, `smap`, `collect`, `switch`,
    /// `merge`, `carry`, `loop`.
    pub kind: &'static str,
    /// Context depth (number of enclosing loops).
    pub depth: u16,
    /// Short human-readable label (the source expression), for DOT and reports.
    pub label: &'static str,
    /// A call without state inside a loop (no state object or captured
    /// value, only per-iteration data): its firings are independent, so a
    /// deployment may run it on several replicas at once and merge their
    /// results back into iteration order (see `node/replicate.rs`).
    pub replicable: bool,
}

/// One arc: from an output port of one node to an input port of another.
#[derive(Debug)]
pub struct ArcInfo {
    /// Producing node id.
    pub from: u32,
    /// Output port of the producer.
    pub from_port: u16,
    /// Consuming node id.
    pub to: u32,
    /// Input port of the consumer.
    pub to_port: u16,
    /// Whether this arc closes a cycle (loop-carried feedback).
    pub feedback: bool,
}

impl GraphInfo {
    /// Node ids in an order where every producer precedes its consumers,
    /// ignoring feedback arcs. Ties keep node-id order.
    pub fn topological_order(&self) -> Vec<usize> {
        let n = self.nodes.len();
        let mut indegree = vec![0usize; n];
        let mut succ = vec![Vec::new(); n];
        for a in self.arcs.iter().filter(|a| !a.feedback) {
            indegree[a.to as usize] += 1;
            succ[a.from as usize].push(a.to as usize);
        }
        let mut ready: std::collections::BTreeSet<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(&i) = ready.iter().next() {
            ready.remove(&i);
            order.push(i);
            for &s in &succ[i] {
                indegree[s] -= 1;
                if indegree[s] == 0 {
                    ready.insert(s);
                }
            }
        }
        // Anything left sits on a cycle without a marked feedback arc: keep id order.
        if order.len() < n {
            let seen: std::collections::HashSet<usize> = order.iter().copied().collect();
            order.extend((0..n).filter(|i| !seen.contains(i)));
        }
        order
    }
}
