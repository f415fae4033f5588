//! The `static GraphInfo` describing the graph to the runtime.

use proc_macro2::TokenStream;
use quote::quote;

use super::rt;
use crate::graph::{kind_str, Graph};

/// `GraphInfo { .. }` literal for `g`.
pub(super) fn graph_info(g: &Graph) -> TokenStream {
    let rt = rt();
    let name = &g.name;
    let nodes = g.nodes.iter().map(|n| {
        let (nm, kind, depth, label) = (&n.name, kind_str(&n.kind), n.depth, &n.label);
        quote!(#rt::NodeInfo { name: #nm, kind: #kind, depth: #depth, label: #label })
    });
    let arcs = g.arcs.iter().map(|a| {
        let (f, fp, t, tp, fb) = (a.from.0 as u32, a.from.1 as u16, a.to.0 as u32, a.to.1 as u16, a.feedback);
        quote!(#rt::ArcInfo { from: #f, from_port: #fp, to: #t, to_port: #tp, feedback: #fb })
    });
    quote!(#rt::GraphInfo { algorithm: #name, nodes: &[#(#nodes),*], arcs: &[#(#arcs),*] })
}
