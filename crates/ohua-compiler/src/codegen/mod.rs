//! Code generation: dataflow graph → Rust tokens.
//!
//! The generated function keeps the user's signature. Its body runs the
//! original block when `ohua::sequential` is active, and otherwise builds the
//! graph with the runtime's typed ports and operators and executes it. No
//! type is written down: every arc's type is inferred from its producer, and
//! nodes are emitted producers-first so rustc knows each closure's input types
//! before it checks the closure.

mod chain;
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
    // Chains of calls are built as links and installed together at the end,
    // when every link's closure has been type-checked in producer order.
    let chains = chain::Chains::of(g);
    let nodes = (0..g.nodes.len()).map(|n| match &g.nodes[n].kind {
        Kind::Call(c) if chains.is_link(n) => {
            let l = format_ident!("__ohua_l{}", n);
            let link = code::link(g, n, c);
            quote!(let #l = #link;)
        }
        _ => node(g, n),
    });
    let installs = chains.chains().map(|chain| {
        let mut links = chain.iter().rev().map(|n| format_ident!("__ohua_l{}", n));
        let last = links.next().expect("a chain has two or more links");
        let joined = links.fold(quote!(#last), |rest, l| quote!(#l.then(#rest)));
        quote!(__ohua_b.chain(#joined);)
    });
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
                    #(#installs)*
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
        _ => {
            // Spanned at the user's binding of the value, so a value that is
            // not `Clone` but used by several operators is reported there.
            let span = match &g.nodes[n].kind {
                Kind::Call(c) => c.returns.get(p).map(|r| r.span()),
                _ => None,
            };
            let clone =
                quote::quote_spanned!(span.unwrap_or_else(proc_macro2::Span::call_site)=> ::core::clone::Clone::clone);
            quote!(#rt::Out::fanout(vec![#(#arcs),*], #clone))
        }
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
