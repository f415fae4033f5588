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

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use crate::graph::{Graph, Kind};

/// Paths into the facade crate's private module, through the alias the
/// generated block declares (`use ::ohua::__private as __ohua;`): the full
/// path on every operator and port made the expansion twice as long.
fn rt() -> TokenStream {
    quote!(__ohua)
}

/// A local of the generated code (`b`, `s3`, ...). Mixed-site hygiene: the
/// user's code inside the same block cannot see it (nor shadow it), so the
/// names can be short; the expansion is what every build parses and checks.
pub(super) fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// A node, arc or level number as an unsuffixed literal (`3`, not `3usize`).
pub(super) fn num(n: impl Into<u64>) -> Literal {
    Literal::u64_unsuffixed(n.into())
}

/// The sending (`s<a>`) and receiving (`r<a>`) ends of arc `a`.
fn arc_ends(a: usize) -> (Ident, Ident) {
    (local(&format!("s{a}")), local(&format!("r{a}")))
}

/// The builder the build closure receives.
pub(super) fn builder() -> Ident {
    local("b")
}

/// The generated item for one algorithm.
pub fn generate(item: &syn::ItemFn, g: &Graph) -> TokenStream {
    let rt = rt();
    let attrs = &item.attrs;
    let vis = &item.vis;
    let sig = &item.sig;
    let block = &item.block;
    let graph_static = info::graph_static(g);
    let b = builder();
    let slot = local("slot");
    let arcs = (0..g.arcs.len()).map(|a| {
        let ((s, r), id) = (arc_ends(a), num(a as u64));
        quote!(let (#s, #r) = #b.ports(#id);)
    });
    // Chains of calls are built as links and installed together at the end,
    // when every link's closure has been type-checked in producer order.
    let chains = chain::Chains::of(g);
    let nodes = (0..g.nodes.len()).map(|n| match &g.nodes[n].kind {
        Kind::Call(c) if chains.is_link(n) => {
            let l = local(&format!("l{n}"));
            let link = code::link(g, n, c);
            quote!(let #l = #link;)
        }
        _ => node(g, n),
    });
    let installs = chains.chains().map(|chain| {
        let mut links = chain.iter().rev().map(|n| local(&format!("l{n}")));
        let last = links.next().expect("a chain has two or more links");
        let joined = links.fold(quote!(#last), |rest, l| quote!(#l.then(#rest)));
        quote!(#b.chain(#joined);)
    });
    quote! {
        #(#attrs)*
        #[allow(unused_mut, unused_variables, unused_assignments, unused_parens, clippy::all)]
        #vis #sig {
            if ::ohua::__private::is_sequential() #block else {
                use ::ohua::__private as __ohua;
                #graph_static
                #rt::execute(__OHUA_GRAPH.get(), move |#b| {
                    #(#arcs)*
                    let #slot = #b.result_slot();
                    #(#nodes)*
                    #(#installs)*
                    #slot
                })
            }
        }
    }
}

/// The `In` port (`r<arc>`) for input port `p` of node `n`.
fn input(g: &Graph, n: usize, p: usize) -> TokenStream {
    let a = g.arc_to(n, p).unwrap_or_else(|| panic!("ohua internal error: input {p} of node {n} unconnected"));
    let (_, r) = arc_ends(a);
    quote!(#r)
}

/// The `Out` for output port `p` of node `n`: `s<arc>`, several joined
/// (fan-out clones the value), or none.
fn output(g: &Graph, n: usize, p: usize) -> TokenStream {
    let rt = rt();
    let arcs: Vec<_> = g.arcs_from(n, p).map(|(a, _)| arc_ends(a).0).collect();
    match arcs.len() {
        0 => quote!(#rt::Out::none()),
        1 => quote!(#(#arcs)*),
        _ => {
            // Spanned at the user's binding of the value, so a value that is
            // not `Clone` but used by several operators is reported there.
            let span = match &g.nodes[n].kind {
                Kind::Call(c) => c.returns.get(p).map(|r| r.span()),
                _ => None,
            };
            let clone =
                quote::quote_spanned!(span.unwrap_or_else(proc_macro2::Span::call_site)=> ::core::clone::Clone::clone);
            quote!(#rt::Out::fan(vec![#(#arcs),*], #clone))
        }
    }
}

fn node(g: &Graph, n: usize) -> TokenStream {
    let rt = rt();
    let node = &g.nodes[n];
    let body = match &node.kind {
        Kind::Source(Some(ident)) => {
            let o = output(g, n, 0);
            // Spanned at the parameter: a parameter that is not `Send` (a raw
            // pointer, an `Rc`) is reported there (`exec/checks.rs`).
            let check = quote::quote_spanned!(ident.span()=> #rt::crossing(&#ident););
            quote!({ #check #rt::Source::new(#ident, #o) })
        }
        Kind::Source(None) => {
            let o = output(g, n, 0);
            quote!(#rt::Source::new((), #o))
        }
        Kind::Sink => {
            let i = input(g, n, 0);
            let slot = local("slot");
            quote!(#rt::Sink::new(#i, #slot.clone()))
        }
        Kind::SMap { level } => {
            let (i, e, t) = (input(g, n, 0), output(g, n, 0), output(g, n, 1));
            let level = num(*level);
            quote!(#rt::SMap::new(#i, #level, #e, #t))
        }
        Kind::Collect { level, ty } => {
            let (i, o, level) = (input(g, n, 0), output(g, n, 0), num(*level));
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
            let (c, fin, level) = (output(g, n, 0), output(g, n, 1), num(*level));
            // The carried values come packed in a tuple; up to 12 parts
            // (`ohua_runtime::update::Parts`) markers can transform and save
            // them, as the states the loop body threads.
            let parts = g.arc_to(n, 0).map(|a| g.arcs[a].from.0).map(|p| &g.nodes[p]).and_then(|p| match &p.kind {
                Kind::Call(c) if matches!(c.code, crate::ir::Code::Pack) => Some(p.inputs),
                _ => None,
            });
            match parts {
                Some(1..=12) => quote!(#rt::Carry::new(#i, #t, #f, #level, #c, #fin).with_states()),
                _ => quote!(#rt::Carry::new(#i, #t, #f, #level, #c, #fin)),
            }
        }
        Kind::Loop { level } => {
            let (i, f) = (input(g, n, 0), input(g, n, 1));
            let (c, t, r, level) = (output(g, n, 0), output(g, n, 1), output(g, n, 2), num(*level));
            quote!(#rt::LoopCarry::new(#i, #f, #level, #c, #t, #r))
        }
        Kind::Call(c) if matches!(c.code, crate::ir::Code::Await) => {
            let (i, o, id) = (input(g, n, 0), output(g, n, 0), num(n as u64));
            quote!(#rt::Await::new(#i, #o).at(#id))
        }
        Kind::Call(call) => return code::call(g, n, call),
    };
    let (b, id) = (builder(), num(n as u64));
    quote!(#b.node(#id, #body);)
}
