//! The graph in Graphviz DOT, optionally clustered by section.

use std::fmt::Write;

use crate::deploy::Plan;
use crate::graph::GraphInfo;

/// Render `graph` as a DOT `digraph`.
///
/// Nodes are labelled with their name and source label on two lines. With a
/// `plan`, nodes are grouped into one `subgraph cluster_k` per section, and
/// a replicated node says `×R replicas`; each replica outside the node's
/// own section is drawn dashed (`n3_r1`) in its section, joined to the node
/// by a dotted two-way arc (items out, results back in order).
/// Feedback arcs are dashed; every arc is labelled `from_port→to_port`.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
/// use ohua::{to_dot, ArcInfo, GraphInfo, NodeInfo, OpKind};
/// static G: GraphInfo = GraphInfo {
///     algorithm: "demo",
///     file: "",
///     nodes: &[
///         NodeInfo { name: "demo/input#0", kind: OpKind::Source, depth: 0, label: "x", replicable: false, line: 0 },
///         NodeInfo { name: "demo/result#1", kind: OpKind::Sink, depth: 0, label: "\"y\"", replicable: false, line: 0 },
///     ],
///     arcs: &[ArcInfo { from: 0, from_port: 0, to: 1, to_port: 0, feedback: false }],
/// };
/// let dot = to_dot(&G, None);
/// assert!(dot.starts_with("digraph \"demo\" {"));
/// assert!(dot.contains(r#"n1 [label="demo/result#1\n\"y\""#));
/// assert!(dot.contains("n0 -> n1"));
///
/// // The result node on two replicas: one beside it, one in section 1.
/// let mut plan = ohua::Plan::unreplicated(vec![0, 0], 2, 64, 64);
/// plan.replicas[1] = 2;
/// plan.replica_sections[1] = vec![0, 1];
/// let dot = to_dot(&G, Some(&plan));
/// assert!(dot.contains("×2 replicas"));
/// assert!(dot.contains("n1_r1 [label=\"demo/result#1\\nreplica 1\", style=dashed]"));
/// assert!(dot.contains("n1 -> n1_r1 [style=dotted, dir=both]"));
/// ```
pub fn to_dot(graph: &GraphInfo, plan: Option<&Plan>) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail, hence the ignored results below.
    let _ = writeln!(out, "digraph \"{}\" {{", escape(graph.algorithm));
    let _ = writeln!(out, "  rankdir=LR;");
    let _ = writeln!(out, "  node [shape=box, fontname=\"monospace\"];");
    match plan {
        Some(p) => {
            for s in 0..p.sections {
                let _ = writeln!(out, "  subgraph cluster_{s} {{");
                let _ = writeln!(out, "    label=\"section {s}\";");
                for (id, _) in p.section_of.iter().enumerate().filter(|(_, &ps)| ps == s) {
                    node_line(&mut out, graph, id, p.replicas.get(id).copied().unwrap_or(1), "    ");
                }
                for (id, k) in replicas_elsewhere(p).filter(|&(id, k)| p.replica_sections[id][k] == s) {
                    let name = escape(graph.nodes.get(id).map_or("?", |n| n.name));
                    let _ = writeln!(out, "    n{id}_r{k} [label=\"{name}\\nreplica {k}\", style=dashed];");
                }
                let _ = writeln!(out, "  }}");
            }
            // Nodes the plan does not cover (a plan for another graph) still show.
            for id in p.section_of.len()..graph.nodes.len() {
                node_line(&mut out, graph, id, 1, "  ");
            }
            for (id, k) in replicas_elsewhere(p) {
                let _ = writeln!(out, "  n{id} -> n{id}_r{k} [style=dotted, dir=both];");
            }
        }
        None => {
            for id in 0..graph.nodes.len() {
                node_line(&mut out, graph, id, 1, "  ");
            }
        }
    }
    for a in graph.arcs {
        let style = if a.feedback { ", style=dashed" } else { "" };
        let _ = writeln!(out, "  n{} -> n{} [label=\"{}→{}\"{style}];", a.from, a.to, a.from_port, a.to_port);
    }
    out.push_str("}\n");
    out
}

/// `(node, replica)` for every replica that runs outside its node's section.
fn replicas_elsewhere(p: &Plan) -> impl Iterator<Item = (usize, usize)> + '_ {
    p.replica_sections.iter().enumerate().flat_map(move |(id, sections)| {
        sections.iter().enumerate().filter(move |&(_, &s)| s != p.section_of[id]).map(move |(k, _)| (id, k))
    })
}

/// One node statement (`replicas` > 1: the node runs replicated).
fn node_line(out: &mut String, graph: &GraphInfo, id: usize, replicas: usize, indent: &str) {
    let n = &graph.nodes[id];
    let times = if replicas > 1 { format!("\\n×{replicas} replicas") } else { String::new() };
    let _ = writeln!(
        out,
        "{indent}n{id} [label=\"{}\\n{}{times}\", tooltip=\"{}\"];",
        escape(n.name),
        escape(n.label),
        escape(n.kind.as_str())
    );
}

/// Escape a string for a double-quoted DOT identifier.
fn escape(s: &str) -> String {
    let mut e = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => e.push_str("\\\""),
            '\\' => e.push_str("\\\\"),
            '\n' => e.push_str("\\n"),
            c => e.push(c),
        }
    }
    e
}
