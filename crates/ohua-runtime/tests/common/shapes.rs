// The graph shapes both the unit tests (`src/tests/common/graphs.rs`) and
// the integration tests (`tests/common/graphs.rs`) use, `include!`d by
// both after they import `GraphInfo`, `NodeInfo`, `ArcInfo` and `OpKind`
// (by `crate::` and by `ohua_runtime::` paths). Each test binary is a
// process of its own, so what `auto` learns of these graphs in one
// (`deploy/learned.rs`) never reaches another.

const fn node(name: &'static str, kind: OpKind) -> NodeInfo {
    NodeInfo { name, kind, depth: 0, label: name, replicable: false, line: 0 }
}

const fn arc(from: u32, to: u32) -> ArcInfo {
    ArcInfo { from, from_port: 0, to, to_port: 0, feedback: false }
}

/// count → inc → inc → inc → sink.
pub static PIPE: GraphInfo = GraphInfo {
    algorithm: "pipe",
    file: "",
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
    file: "",
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
