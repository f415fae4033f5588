//! The dataflow graph: operators, ports and arcs, ready for code generation.
//!
//! Produced by [`crate::passes::lower`]. Node ids are in an order where every
//! producer precedes its consumers except along feedback arcs, which is also
//! the order code generation emits them in (so rustc infers every arc's type
//! from its producer before a consumer's code is type-checked).

mod io_rounds;
mod keyed;
pub mod ops;
mod print;
pub mod remote_chains;
pub mod snapshot;

pub use io_rounds::{fetch_sites, print_io, FetchSite};
pub use keyed::{cloneable_params, keyed_locals};
pub use ops::{CallNode, Emit, Kind, Operator, Sticky};
pub use print::{kind_str, print_graph, to_dot};

/// Index of a node.
pub type NodeId = usize;

/// The graph of one algorithm.
#[derive(Debug, Clone)]
pub struct Graph {
    /// Algorithm name.
    pub name: String,
    /// Operators.
    pub nodes: Vec<Node>,
    /// Arcs.
    pub arcs: Vec<Arc>,
    /// The keyed locals of the algorithm (`keyed.rs`): calls on them may be
    /// replicated by key.
    pub keyed: Vec<String>,
    /// Parameters of an evidently `Clone` type that nothing rebinds: a call
    /// in a loop that reads them is still replicable (`keyed.rs`).
    pub cloneable: Vec<String>,
    /// The algorithm is marked `#[algorithm(cluster)]`: its replicable
    /// calls may run in other processes, so their values must be serde
    /// (checked at the user's bindings); a run of them is merged into one
    /// call (`remote_chains.rs`) and not fused into chains.
    pub cluster: bool,
    /// The snapshot locals of the algorithm (`snapshot.rs`): like keyed
    /// locals, they stay where their state is in a `cluster` algorithm.
    pub snapshots: Vec<String>,
}

/// One arc from an output port to an input port.
#[derive(Debug, Clone)]
pub struct Arc {
    /// Producer and its output port.
    pub from: (NodeId, usize),
    /// Consumer and its input port.
    pub to: (NodeId, usize),
    /// Closes a loop (feedback into a carry node).
    pub feedback: bool,
    /// Where the consumed value is used in the source (for error spans).
    pub span: proc_macro2::Span,
}

/// One operator.
#[derive(Debug, Clone)]
pub struct Node {
    /// Stable name `algorithm/function#callsite`.
    pub name: String,
    /// Context depth.
    pub depth: u16,
    /// What it is.
    pub kind: Kind,
    /// Short label (source code) for dumps and DOT.
    pub label: String,
    /// 1-based line of the operator's code in the algorithm's file, 0 if
    /// unknown: the live view shows it next to the label. A control node
    /// has the line of its `if`/`match`/loop (`passes/lower`).
    pub line: u32,
}

impl Node {
    /// Number of input ports (the kind's [`Operator::ports`]).
    pub fn inputs(&self) -> usize {
        self.kind.op().ports().0
    }

    /// Number of output ports (the kind's [`Operator::ports`]).
    pub fn outputs(&self) -> usize {
        self.kind.op().ports().1
    }
}

impl Graph {
    /// Whether node `n` may run on replicas: a call without state in a
    /// loop, or a call on a keyed state ([`Graph::keyed_call`]).
    pub fn replicable(&self, n: NodeId) -> bool {
        self.stateless(n) || self.keyed_call(n).is_some()
    }

    /// A call inside a loop without state: its sticky inputs, if any, are
    /// parameters of an evidently `Clone` type that nothing mutates (a
    /// parameter is never a state object: it is not rebound or assigned).
    pub fn stateless(&self, n: NodeId) -> bool {
        let node = &self.nodes[n];
        node.depth >= 1
            && matches!(&node.kind, Kind::Call(c)
                if c.sticky.iter().all(|s| self.cloneable.iter().any(|p| s.ident == p.as_str())))
    }

    /// Whether an output of node `n` is what a `for` loop iterates: it
    /// reaches a loop entry, directly or through branch and loop plumbing
    /// (switches, merges, carries).
    pub fn feeds_loop_entry(&self, n: NodeId) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut todo = vec![n];
        while let Some(at) = todo.pop() {
            for a in self.arcs.iter().filter(|a| a.from.0 == at) {
                let to = a.to.0;
                match &self.nodes[to].kind {
                    Kind::SMap(_) => return true,
                    Kind::Switch(_) | Kind::Merge(_) | Kind::Carry(_) if !seen[to] => {
                        seen[to] = true;
                        todo.push(to);
                    }
                    _ => {}
                }
            }
        }
        false
    }

    /// Arcs leaving `(node, port)`.
    pub fn arcs_from(&self, node: NodeId, port: usize) -> impl Iterator<Item = (usize, &Arc)> {
        self.arcs.iter().enumerate().filter(move |(_, a)| a.from == (node, port))
    }

    /// The node that reads node `n`'s output 0 on its input 0, where it is
    /// the only arc from that output and not a loop's feedback: the next
    /// link of a chain (`codegen/chain.rs`, `remote_chains.rs`).
    pub fn sole_consumer(&self, n: NodeId) -> Option<NodeId> {
        let mut consumers = self.arcs_from(n, 0);
        let (_, arc) = consumers.next()?;
        if consumers.next().is_some() || arc.feedback || arc.to.1 != 0 || arc.to.0 == n {
            return None;
        }
        Some(arc.to.0)
    }

    /// The arc entering `(node, port)`, if any.
    pub fn arc_to(&self, node: NodeId, port: usize) -> Option<usize> {
        self.arcs.iter().position(|a| a.to == (node, port))
    }
}
