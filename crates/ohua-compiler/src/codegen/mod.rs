//! Code generation: dataflow graph → Rust tokens.
//!
//! The generated function keeps the user's signature. Its body runs the
//! original block when `ohua::sequential` is active, and otherwise builds the
//! graph with the runtime's typed ports and operators and executes it. No
//! type is written down: every arc's type is inferred from its producer, and
//! nodes are emitted producers-first so rustc knows each closure's input types
//! before it checks the closure.

mod code;
mod info;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::graph::{Graph, Kind};

/// Paths into the facade crate's private module.
fn rt() -> TokenStream {
    quote!(::ohua::__private)
}

/// The generated item for one algorithm.
pub fn generate(item: &syn::ItemFn, g: &Graph) -> TokenStream {
    let rt = rt();
    let attrs = &item.attrs;
    let vis = &item.vis;
    let sig = &item.sig;
    let block = &item.block;
    let info = info::graph_info(g);
    let arcs = (0..g.arcs.len()).map(|a| {
        let (s, r) = (format_ident!("__ohua_s{}", a), format_ident!("__ohua_r{}", a));
        quote!(let (#s, #r) = __ohua_b.arc(#a);)
    });
    let nodes = (0..g.nodes.len()).map(|n| node(g, n));
    quote! {
        #(#attrs)*
        #[allow(unused_mut, unused_variables, unused_assignments, unused_parens, clippy::all)]
        #vis #sig {
            if #rt::is_sequential() #block else {
                static __OHUA_GRAPH: #rt::GraphInfo = #info;
                #rt::execute(&__OHUA_GRAPH, move |__ohua_b| {
                    #(#arcs)*
                    let __ohua_slot = __ohua_b.result_slot();
                    #(#nodes)*
                    __ohua_slot
                })
            }
        }
    }
}

/// `In::new(receiver)` for input port `p` of node `n`.
fn input(g: &Graph, n: usize, p: usize) -> TokenStream {
    let rt = rt();
    let a = g.arc_to(n, p).unwrap_or_else(|| panic!("ohua internal error: input {p} of node {n} unconnected"));
    let r = format_ident!("__ohua_r{}", a);
    quote!(#rt::In::new(#r))
}

/// An `Out` for output port `p` of node `n` (fan-out clones the value).
fn output(g: &Graph, n: usize, p: usize) -> TokenStream {
    let rt = rt();
    let arcs: Vec<_> = g.arcs_from(n, p).map(|(a, _)| format_ident!("__ohua_s{}", a)).collect();
    match arcs.len() {
        0 => quote!(#rt::Out::none()),
        1 => quote!(#rt::Out::new(vec![#(#arcs),*])),
        _ => quote!(#rt::Out::fanout(vec![#(#arcs),*], ::core::clone::Clone::clone)),
    }
}

fn node(g: &Graph, n: usize) -> TokenStream {
    let rt = rt();
    let node = &g.nodes[n];
    let body = match &node.kind {
        Kind::Source(Some(ident)) => {
            let o = output(g, n, 0);
            quote!(#rt::Source::new(#ident, #o))
        }
        Kind::Source(None) => {
            let o = output(g, n, 0);
            quote!(#rt::Source::new((), #o))
        }
        Kind::Sink => {
            let i = input(g, n, 0);
            quote!(#rt::Sink::new(#i, __ohua_slot.clone()))
        }
        Kind::SMap { level } => {
            let (i, e, t) = (input(g, n, 0), output(g, n, 0), output(g, n, 1));
            quote!(#rt::SMap::new(#i, #level, #e, #t))
        }
        Kind::Collect { level, ty } => {
            let (i, o) = (input(g, n, 0), output(g, n, 0));
            match ty {
                Some(ty) => quote!(#rt::Collect::<_, #ty>::new(#i, #level, #o)),
                None => quote!(#rt::Collect::new(#i, #level, #o)),
            }
        }
        Kind::Switch => {
            let (s, v) = (input(g, n, 0), input(g, n, 1));
            let arms = (0..node.outputs).map(|p| output(g, n, p));
            quote!(#rt::Switch::new(#s, #v, vec![#(#arms),*]))
        }
        Kind::Merge => {
            let s = input(g, n, 0);
            let arms = (1..node.inputs).map(|p| input(g, n, p));
            let o = output(g, n, 0);
            quote!(#rt::Merge::new(#s, vec![#(#arms),*], #o))
        }
        Kind::Carry { level } => {
            let (i, t, f) = (input(g, n, 0), input(g, n, 1), input(g, n, 2));
            let (c, fin) = (output(g, n, 0), output(g, n, 1));
            quote!(#rt::Carry::new(#i, #t, #f, #level, #c, #fin))
        }
        Kind::Loop { level } => {
            let (i, f) = (input(g, n, 0), input(g, n, 1));
            let (c, t, r) = (output(g, n, 0), output(g, n, 1), output(g, n, 2));
            quote!(#rt::LoopCarry::new(#i, #f, #level, #c, #t, #r))
        }
        Kind::Call(call) => code::call(g, n, call),
    };
    quote!(__ohua_b.node(#n, #body);)
}
