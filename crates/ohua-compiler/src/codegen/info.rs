//! The graph's description for the runtime: one string literal (the format
//! is documented in `ohua-runtime`'s `graph/encoded.rs`), decoded once at
//! run time. A `GraphInfo` struct literal took 14 lines of expanded code per
//! node and arc.

use proc_macro2::TokenStream;
use quote::quote;

use super::rt;
use crate::graph::{kind_str, Graph};

/// `static __OHUA_GRAPH: EncodedGraph = EncodedGraph::new("..");` for `g`.
pub(super) fn graph_static(g: &Graph) -> TokenStream {
    let rt = rt();
    let spec = encode(g);
    quote!(static __OHUA_GRAPH: #rt::EncodedGraph = #rt::EncodedGraph::new(#spec);)
}

/// The description of `g` (format: `ohua-runtime`'s `graph/encoded.rs`).
pub(crate) fn encode(g: &Graph) -> String {
    // Labels are source text for reports; a newline would end the record.
    let clean = |s: &str| s.replace(['\n', '\r'], " ");
    let prefix = format!("{}/", g.name);
    let mut out = g.name.to_string();
    for (id, n) in g.nodes.iter().enumerate() {
        // Names inside the algorithm are stored without its name: `/f#3`.
        let name = n.name.strip_prefix(&prefix).map_or_else(|| n.name.clone(), |rest| format!("/{rest}"));
        let replicable = if g.replicable(id) { "r" } else { "" };
        out.push_str(&format!("\n{name} {} {}{replicable} {}", kind_str(&n.kind), n.depth, clean(&n.label)));
    }
    out.push('\n');
    for a in &g.arcs {
        let feedback = if a.feedback { "~" } else { "" };
        out.push_str(&format!(" {}.{}>{}.{}{feedback}", a.from.0, a.from.1, a.to.0, a.to.1));
    }
    out
}
