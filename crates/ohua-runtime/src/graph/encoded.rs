//! A graph description as one string literal, decoded on first use.
//!
//! Why: the `GraphInfo` literal the compiler used to emit took 14 lines of
//! expanded code per node and arc (135 of the 315 lines of the README's
//! example), and expanded code is what every build of a user's crate parses
//! and checks. One string is one line; decoding it costs microseconds once
//! per algorithm and process.
//!
//! The format (written by `ohua-compiler`'s `codegen/info.rs`), records
//! separated by `\n`:
//!
//! * the algorithm's name, then, after a space, the file it is in
//!   ([`GraphInfo::file`]; last, so it may hold spaces; absent if unknown);
//! * one record per node, in id order: `name kind depth label`, separated
//!   by single spaces (the label, last, may hold spaces). A name starting
//!   with `/` is relative to the algorithm: `/f#3` is `algo/f#3`. A depth
//!   followed by `r` (`1r`) marks a replicable node ([`NodeInfo::replicable`]);
//!   then `@` and a number (`1r@42`, `0@7`) is the node's line
//!   ([`NodeInfo::line`]; absent if unknown);
//! * one record with every arc, in id order: ` from.port>to.port`, with a
//!   `~` after a feedback arc.

use super::{ArcInfo, GraphInfo, NodeInfo, OpKind};
use crate::sync::process::OnceLock;

/// A graph's description, encoded; [`EncodedGraph::get`] decodes it once.
///
/// # Example
///
/// ```
/// use ohua_runtime::graph::EncodedGraph;
/// static G: EncodedGraph = EncodedGraph::new("demo src/main.rs\n/x#arg source 0@3 x\n/result sink 0 \n 0.0>1.0");
/// let g = G.get();
/// assert_eq!((g.algorithm, g.nodes.len(), g.arcs.len()), ("demo", 2, 1));
/// assert_eq!((g.file, g.nodes[0].line, g.nodes[1].line), ("src/main.rs", 3, 0));
/// assert_eq!(g.nodes[0].name, "demo/x#arg");
/// assert!(std::ptr::eq(g, G.get()), "decoded once");
/// ```
pub struct EncodedGraph {
    spec: &'static str,
    decoded: OnceLock<&'static GraphInfo>,
}

impl EncodedGraph {
    /// The graph `spec` describes (see the module documentation).
    pub const fn new(spec: &'static str) -> Self {
        EncodedGraph { spec, decoded: OnceLock::new() }
    }

    /// The decoded graph. The first call decodes it and keeps it for the
    /// rest of the process (a few hundred bytes per algorithm).
    ///
    /// # Panics
    ///
    /// If the string is not in the format above: only the compiler writes
    /// it, so that is an internal error of this crate.
    pub fn get(&self) -> &'static GraphInfo {
        self.decoded.get_or_init(|| Box::leak(Box::new(decode(self.spec))))
    }
}

/// Decode `spec` (see the module documentation).
fn decode(spec: &'static str) -> GraphInfo {
    let bad = |what: &str| -> ! { panic!("ohua internal error: malformed graph description ({what}): {spec:?}") };
    let mut records: Vec<&'static str> = spec.split('\n').collect();
    let (Some(arcs), true) = (records.pop(), !records.is_empty()) else { bad("too few records") };
    let (algorithm, file) = records[0].split_once(' ').unwrap_or((records[0], ""));
    let nodes: Vec<NodeInfo> = records[1..].iter().map(|r| node(algorithm, r).unwrap_or_else(|| bad(r))).collect();
    let arcs: Vec<ArcInfo> = arcs.split_whitespace().map(|a| arc(a).unwrap_or_else(|| bad(a))).collect();
    let (nodes, arcs) = (Box::leak(nodes.into_boxed_slice()), Box::leak(arcs.into_boxed_slice()));
    GraphInfo { algorithm, file, nodes, arcs }
}

/// `name kind depth label`, the depth as `2`, `2r`, `2@7` or `2r@7`.
fn node(algorithm: &str, record: &'static str) -> Option<NodeInfo> {
    let mut fields = record.splitn(4, ' ');
    let (name, kind, depth, label) = (fields.next()?, fields.next()?, fields.next()?, fields.next()?);
    let name: &'static str = match name.strip_prefix('/') {
        Some(rest) => Box::leak(format!("{algorithm}/{rest}").into_boxed_str()),
        None => name,
    };
    let (depth, line) = match depth.split_once('@') {
        Some((d, line)) => (d, line.parse().ok()?),
        None => (depth, 0),
    };
    let (depth, replicable) = match depth.strip_suffix('r') {
        Some(d) => (d, true),
        None => (depth, false),
    };
    Some(NodeInfo { name, kind: OpKind::from_name(kind)?, depth: depth.parse().ok()?, label, replicable, line })
}

/// `from.port>to.port`, `~` at the end for feedback.
fn arc(text: &str) -> Option<ArcInfo> {
    let (text, feedback) = match text.strip_suffix('~') {
        Some(t) => (t, true),
        None => (text, false),
    };
    let (from, to) = text.split_once('>')?;
    let end = |e: &str| -> Option<(u32, u16)> {
        let (node, port) = e.split_once('.')?;
        Some((node.parse().ok()?, port.parse().ok()?))
    };
    let ((from, from_port), (to, to_port)) = (end(from)?, end(to)?);
    Some(ArcInfo { from, from_port, to, to_port, feedback })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_may_hold_spaces_and_names_may_be_absolute() {
        static G: EncodedGraph = EncodedGraph::new("g\n/f#1 call 2r f (\"a b|;\") . g ()\nh/k#2 call 0 k\n 0.1>1.0~");
        let g = G.get();
        assert_eq!((g.nodes[0].name, g.nodes[0].label, g.nodes[0].depth), ("g/f#1", "f (\"a b|;\") . g ()", 2));
        assert!(g.nodes[0].replicable && !g.nodes[1].replicable);
        assert_eq!(g.nodes[0].kind, OpKind::Call);
        assert_eq!(g.nodes[1].name, "h/k#2");
        let a = &g.arcs[0];
        assert_eq!((a.from, a.from_port, a.to, a.to_port, a.feedback), (0, 1, 1, 0, true));
    }

    #[test]
    fn file_and_lines_are_read_where_present() {
        static G: EncodedGraph =
            EncodedGraph::new("g src/my alg.rs\n/a#1 call 1r@42 a (x)\n/b#2 call 0@7 b\n/c#3 call 2 c\n");
        let g = G.get();
        assert_eq!((g.algorithm, g.file), ("g", "src/my alg.rs"), "the file may hold spaces");
        let lines: Vec<_> = g.nodes.iter().map(|n| (n.depth, n.replicable, n.line, n.label)).collect();
        assert_eq!(lines, [(1, true, 42, "a (x)"), (0, false, 7, "b"), (2, false, 0, "c")]);
        static NONE: EncodedGraph = EncodedGraph::new("h\n/a#1 call 0 a\n");
        assert_eq!((NONE.get().algorithm, NONE.get().file, NONE.get().nodes[0].line), ("h", "", 0), "unknown");
    }

    #[test]
    #[should_panic(expected = "malformed graph description")]
    fn a_malformed_line_is_an_internal_error() {
        decode("g\n/f#1 call 0@x f\n");
    }

    #[test]
    #[should_panic(expected = "malformed graph description")]
    fn a_malformed_description_is_an_internal_error() {
        decode("g\n/f#1 call x\n");
    }
}
