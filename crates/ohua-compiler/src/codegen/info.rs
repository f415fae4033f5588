//! The graph's description for the runtime: one string literal (the format
//! is documented in `ohua-runtime`'s `graph/encoded.rs`), decoded once at
//! run time. A `GraphInfo` struct literal took 14 lines of expanded code per
//! node and arc.

use proc_macro2::TokenStream;
use quote::quote;

use super::rt;
use crate::graph::{kind_str, Graph};

/// `static __OHUA_GRAPH: EncodedGraph = EncodedGraph::new("..");` for `g`,
/// the graph of `item`.
pub(super) fn graph_static(g: &Graph, item: &syn::ItemFn) -> TokenStream {
    let rt = rt();
    let spec = encode(g, &source_file(item.sig.ident.span()));
    quote!(static __OHUA_GRAPH: #rt::EncodedGraph = #rt::EncodedGraph::new(#spec);)
}

/// The file `span` is in, as rustc names it (the path `file!()` gives,
/// relative to where cargo runs rustc), or "" if unknown: proc-macro2 names
/// a span without a file `<...>` (`<parsed string 1>` outside a macro,
/// `<token stream>` before Rust 1.88).
fn source_file(span: proc_macro2::Span) -> String {
    let file = span.file();
    // A newline would end the header record.
    if file.starts_with('<') || file.contains(['\n', '\r']) {
        return String::new();
    }
    file
}

/// The description of `g`, whose algorithm is in `file` ("" if unknown)
/// (format: `ohua-runtime`'s `graph/encoded.rs`).
pub(crate) fn encode(g: &Graph, file: &str) -> String {
    // Labels are source text for reports; a newline would end the record.
    let clean = |s: &str| s.replace(['\n', '\r'], " ");
    let prefix = format!("{}/", g.name);
    let mut out = g.name.to_string();
    if !file.is_empty() {
        out.push_str(&format!(" {}", clean(file)));
    }
    for (id, n) in g.nodes.iter().enumerate() {
        // Names inside the algorithm are stored without its name: `/f#3`.
        let name = n.name.strip_prefix(&prefix).map_or_else(|| n.name.clone(), |rest| format!("/{rest}"));
        let replicable = if g.replicable(id) { "r" } else { "" };
        // An unknown line (0) is left out.
        let line = if n.line > 0 { format!("@{}", n.line) } else { String::new() };
        let (kind, depth, label) = (kind_str(&n.kind), n.depth, clean(&n.label));
        out.push_str(&format!("\n{name} {kind} {depth}{replicable}{line} {label}"));
    }
    out.push('\n');
    for a in &g.arcs {
        let feedback = if a.feedback { "~" } else { "" };
        out.push_str(&format!(" {}.{}>{}.{}{feedback}", a.from.0, a.from.1, a.to.0, a.to.1));
    }
    out
}

#[cfg(test)]
mod tests;
