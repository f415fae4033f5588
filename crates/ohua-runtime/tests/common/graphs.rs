//! Hand-written graph descriptions, standing in for what the compiler
//! generates. Only their shapes: the tests that run hand-built graphs are
//! unit tests (`src/tests/`, which include the same `shapes.rs`), as
//! building a graph takes the crate's private modules.

use ohua_runtime::graph::{ArcInfo, GraphInfo, NodeInfo, OpKind};

include!("shapes.rs");

/// A loop shape with a feedback arc (for planning and DOT; never run).
pub static LOOPY: GraphInfo = GraphInfo {
    algorithm: "loopy",
    file: "",
    nodes: &[
        NodeInfo { name: "loopy/input#0", kind: OpKind::Source, depth: 0, label: "xs", replicable: false, line: 0 },
        NodeInfo { name: "loopy/carry#1", kind: OpKind::Carry, depth: 0, label: "acc", replicable: false, line: 0 },
        NodeInfo {
            name: "loopy/add#2",
            kind: OpKind::Call,
            depth: 1,
            label: "acc.add(\"x\")",
            replicable: false,
            line: 0,
        },
        NodeInfo { name: "loopy/result#3", kind: OpKind::Sink, depth: 0, label: "acc", replicable: false, line: 0 },
    ],
    arcs: &[
        arc(0, 1),
        ArcInfo { from: 1, from_port: 0, to: 2, to_port: 1, feedback: false },
        ArcInfo { from: 2, from_port: 0, to: 1, to_port: 2, feedback: true },
        ArcInfo { from: 1, from_port: 1, to: 3, to_port: 0, feedback: false },
    ],
};
