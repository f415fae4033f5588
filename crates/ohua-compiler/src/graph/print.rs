//! Text and DOT renderings of a dataflow graph.

use std::fmt::Write;

use super::{Graph, Kind};

/// Runtime kind string for a node (matches `NodeInfo::kind`'s `as_str`):
/// the kind's [`Operator::runtime_name`](super::Operator::runtime_name).
pub fn kind_str(k: &Kind) -> &'static str {
    k.op().runtime_name()
}

/// One line per node with its inputs, for dumps and snapshot tests.
///
/// # Example
///
/// ```
/// # use ohua_compiler::graph::{Graph, print_graph};
/// let g = Graph { name: "f".into(), nodes: vec![], arcs: vec![], keyed: vec![], cloneable: vec![], cluster: false, snapshots: vec![] };
/// assert!(print_graph(&g).starts_with("graph f"));
/// ```
pub fn print_graph(g: &Graph) -> String {
    let mut out = format!("graph {} ({} nodes, {} arcs)\n", g.name, g.nodes.len(), g.arcs.len());
    for (id, n) in g.nodes.iter().enumerate() {
        let ins: Vec<String> = (0..n.inputs())
            .map(|p| match g.arc_to(id, p) {
                Some(a) => {
                    let a = &g.arcs[a];
                    format!("{}.{}{}", a.from.0, a.from.1, if a.feedback { "↺" } else { "" })
                }
                None => "?".into(),
            })
            .collect();
        let op = n.kind.op();
        let _ = writeln!(
            out,
            "  {id:>3} d{} {:<8} {:<28} <- [{}]{}  {}",
            n.depth,
            op.name(),
            n.name,
            ins.join(", "),
            op.dump_extra(),
            n.label
        );
    }
    out
}

/// Graphviz DOT of the graph (feedback arcs dashed).
pub fn to_dot(g: &Graph) -> String {
    let mut out = format!("digraph \"{}\" {{\n  rankdir=TB;\n  node [shape=box, fontname=monospace];\n", g.name);
    for (id, n) in g.nodes.iter().enumerate() {
        let label = format!("{}\\n{}", n.name, n.label).replace('"', "\\\"");
        let _ = writeln!(out, "  n{id} [label=\"{label}\"];");
    }
    for a in &g.arcs {
        let style = if a.feedback { ", style=dashed" } else { "" };
        let _ = writeln!(out, "  n{} -> n{} [label=\"{}→{}\"{}];", a.from.0, a.to.0, a.from.1, a.to.1, style);
    }
    out.push_str("}\n");
    out
}
