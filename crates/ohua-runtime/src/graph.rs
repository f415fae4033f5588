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
/// use ohua::{ArcInfo, GraphInfo, NodeInfo, OpKind};
/// static G: GraphInfo = GraphInfo {
///     algorithm: "demo",
///     file: "",
///     nodes: &[
///         NodeInfo { name: "demo/input#0", kind: OpKind::Source, depth: 0, label: "x", replicable: false, line: 0 },
///         NodeInfo { name: "demo/result#1", kind: OpKind::Sink, depth: 0, label: "x", replicable: false, line: 0 },
///     ],
///     arcs: &[ArcInfo { from: 0, from_port: 0, to: 1, to_port: 0, feedback: false }],
/// };
/// assert_eq!(G.nodes.len(), 2);
/// ```
#[derive(Debug)]
pub struct GraphInfo {
    /// Name of the algorithm (the function name).
    pub algorithm: &'static str,
    /// The file the algorithm is in, as `file!()` names it (relative to the
    /// directory cargo builds its package from); "" if unknown.
    pub file: &'static str,
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
    /// Operator kind.
    pub kind: OpKind,
    /// Context depth (number of enclosing loops).
    pub depth: u16,
    /// Short human-readable label (the source expression), for DOT and reports.
    pub label: &'static str,
    /// A call without state inside a loop (no state object or captured
    /// value, only per-iteration data): its firings are independent, so a
    /// deployment may run it on several replicas at once and merge their
    /// results back into iteration order (see `node/replicate.rs`).
    pub replicable: bool,
    /// 1-based line of the operator's code in the algorithm's file
    /// ([`GraphInfo::file`]), 0 if unknown. A control operator (a loop's
    /// `smap`, a branch's `merge`, ..) has the line of its `for`, `while`,
    /// `if` or `match`. The live view shows it with the operator.
    pub line: u32,
}

/// Defines [`OpKind`] from one list, `Variant => "name"`: the enum, its
/// `ALL` and its `as_str`. A kind the runtime sees under a new name is one
/// line here.
macro_rules! op_kinds {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// The kind of an operator, as the compiler names it (its `ops/`
        /// registry in `ohua-compiler`'s `graph/ops/mod.rs`).
        /// [`OpKind::as_str`] is the name reports, DOT exports and the
        /// encoded graph use.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum OpKind {
            $($(#[$doc])* $variant,)*
        }

        impl OpKind {
            /// Every kind.
            pub const ALL: &'static [OpKind] = &[$(OpKind::$variant),*];

            /// The kind's name (`call`, `source`, ...), as in reports and DOT.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(OpKind::$variant => $name,)*
                }
            }
        }
    };
}

op_kinds! {
    /// An algorithm parameter or the top-level tick.
    Source => "source",
    /// User or glue code.
    Call => "call",
    /// The answer of a fetch (`io/`).
    Await => "await",
    /// Loop entry: elements of a collection.
    SMap => "smap",
    /// Loop exit gathering items into a collection.
    Collect => "collect",
    /// Forwards a value to one branch arm.
    Switch => "switch",
    /// Takes the value of the arm that ran.
    Merge => "merge",
    /// Values carried around a `for` loop.
    Carry => "carry",
    /// A `while` loop or tail recursion.
    Loop => "loop",
    /// The algorithm's result.
    Sink => "sink",
}

impl OpKind {
    /// The kind named `name` ([`OpKind::as_str`]), if any.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_runtime::graph::OpKind;
    /// assert_eq!(OpKind::from_name("await"), Some(OpKind::Await));
    /// assert!(OpKind::ALL.iter().all(|k| OpKind::from_name(k.as_str()) == Some(*k)));
    /// assert_eq!(OpKind::from_name("tick"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<OpKind> {
        OpKind::ALL.iter().copied().find(|k| k.as_str() == name)
    }
}

impl std::fmt::Display for OpKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
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
