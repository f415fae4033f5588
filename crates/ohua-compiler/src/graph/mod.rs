//! The dataflow graph: operators, ports and arcs, ready for code generation.
//!
//! Produced by [`crate::passes::lower`]. Node ids are in an order where every
//! producer precedes its consumers except along feedback arcs, which is also
//! the order code generation emits them in (so rustc infers every arc's type
//! from its producer before a consumer's code is type-checked).

mod io_rounds;
mod keyed;
mod print;

pub use io_rounds::{fetch_sites, print_io, FetchSite};
pub use keyed::{cloneable_params, keyed_locals};
pub use print::{kind_str, print_graph, to_dot};

use crate::ir::Code;

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
    /// Number of input ports.
    pub inputs: usize,
    /// Number of output ports.
    pub outputs: usize,
}

/// Operator kinds; see the runtime's `node/README.md` for their semantics.
#[derive(Debug, Clone)]
// Compile-time data with few instances: boxing would only add noise.
#[allow(clippy::large_enum_variant)]
pub enum Kind {
    /// An algorithm parameter (`Some(ident)`) or the top-level tick (`None`).
    Source(Option<syn::Ident>),
    /// User or glue code. Input ports: data inputs, then sticky inputs.
    /// Output ports: `outputs`, then one release port per sticky input.
    Call(CallNode),
    /// Loop entry: in 0 = collection; out 0 = elements, out 1 = ticks.
    SMap {
        /// Level of the loop's parent.
        level: u16,
    },
    /// Loop exit gathering items: in 0 = item; out 0 = collection.
    Collect {
        /// Level of the loop's parent.
        level: u16,
        /// Collection type, if annotated.
        ty: Option<syn::Type>,
    },
    /// in 0 = arm index, in 1 = value; out k = arm k.
    Switch,
    /// in 0 = arm index, in 1+k = arm k; out 0 = value.
    Merge,
    /// in 0 = init, 1 = ticks, 2 = feedback; out 0 = current, 1 = final.
    Carry {
        /// Level of the loop's parent.
        level: u16,
    },
    /// in 0 = init, 1 = feedback; out 0 = current, 1 = ticks, 2 = result.
    Loop {
        /// Level of the loop's parent.
        level: u16,
    },
    /// in 0 = the algorithm's result.
    Sink,
}

/// A code node.
#[derive(Debug, Clone)]
pub struct CallNode {
    /// The code.
    pub code: Code,
    /// Data inputs: the name the code binds (None: a tick, bound to `_`).
    pub data: Vec<Option<syn::Ident>>,
    /// Sticky inputs: name, home level, whether the value is released to a port.
    pub sticky: Vec<Sticky>,
    /// Returned values: the names the code's result tuple is built from.
    pub returns: Vec<syn::Ident>,
    /// Outputs bound by a `let` pattern come first in `returns`; this many of
    /// them are *threaded* data inputs returned by name.
    pub threaded_returns: usize,
}

/// A sticky input of a code node.
#[derive(Debug, Clone)]
pub struct Sticky {
    /// The name the code binds it to.
    pub ident: syn::Ident,
    /// Level of the value.
    pub home: u16,
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
                if !matches!(c.code, Code::Await)
                    && c.sticky.iter().all(|s| self.cloneable.iter().any(|p| s.ident == p.as_str())))
    }

    /// Arcs leaving `(node, port)`.
    pub fn arcs_from(&self, node: NodeId, port: usize) -> impl Iterator<Item = (usize, &Arc)> {
        self.arcs.iter().enumerate().filter(move |(_, a)| a.from == (node, port))
    }

    /// The arc entering `(node, port)`, if any.
    pub fn arc_to(&self, node: NodeId, port: usize) -> Option<usize> {
        self.arcs.iter().position(|a| a.to == (node, port))
    }
}
