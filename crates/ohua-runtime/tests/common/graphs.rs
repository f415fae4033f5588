//! Hand-written graph descriptions, standing in for what the compiler
//! generates. Only their shapes: the tests that run hand-built graphs are
//! unit tests (`src/tests/`, whose `common/graphs.rs` has its own `PIPE` and
//! `INDEP`), as building a graph takes the crate's private modules.

use ohua_runtime::graph::{ArcInfo, GraphInfo, NodeInfo, OpKind};

const fn node(name: &'static str, kind: OpKind) -> NodeInfo {
    NodeInfo { name, kind, depth: 0, label: name, replicable: false }
}

const fn arc(from: u32, to: u32) -> ArcInfo {
    ArcInfo { from, from_port: 0, to, to_port: 0, feedback: false }
}

/// count → inc → inc → inc → sink.
pub static PIPE: GraphInfo = GraphInfo {
    algorithm: "pipe",
    nodes: &[
        node("pipe/count#0", OpKind::Source),
        node("pipe/inc#1", OpKind::Call),
        node("pipe/inc#2", OpKind::Call),
        node("pipe/inc#3", OpKind::Call),
        node("pipe/sink#4", OpKind::Sink),
    ],
    arcs: &[arc(0, 1), arc(1, 2), arc(2, 3), arc(3, 4)],
};

/// Two independent chains: `count_a → gate → sink_a` and
/// `count_b → inc_b → sink_b`.
pub static INDEP: GraphInfo = GraphInfo {
    algorithm: "indep",
    nodes: &[
        node("indep/count_a#0", OpKind::Source),
        node("indep/gate#1", OpKind::Call),
        node("indep/sink_a#2", OpKind::Sink),
        node("indep/count_b#3", OpKind::Source),
        node("indep/inc_b#4", OpKind::Call),
        node("indep/sink_b#5", OpKind::Sink),
    ],
    arcs: &[arc(0, 1), arc(1, 2), arc(3, 4), arc(4, 5)],
};

/// A loop shape with a feedback arc (for planning and DOT; never run).
pub static LOOPY: GraphInfo = GraphInfo {
    algorithm: "loopy",
    nodes: &[
        NodeInfo { name: "loopy/input#0", kind: OpKind::Source, depth: 0, label: "xs", replicable: false },
        NodeInfo { name: "loopy/carry#1", kind: OpKind::Carry, depth: 0, label: "acc", replicable: false },
        NodeInfo { name: "loopy/add#2", kind: OpKind::Call, depth: 1, label: "acc.add(\"x\")", replicable: false },
        NodeInfo { name: "loopy/result#3", kind: OpKind::Sink, depth: 0, label: "acc", replicable: false },
    ],
    arcs: &[
        arc(0, 1),
        ArcInfo { from: 1, from_port: 0, to: 2, to_port: 1, feedback: false },
        ArcInfo { from: 2, from_port: 0, to: 1, to_port: 2, feedback: true },
        ArcInfo { from: 1, from_port: 1, to: 3, to_port: 0, feedback: false },
    ],
};
