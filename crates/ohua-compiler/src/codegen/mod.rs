//! Code generation: dataflow graph → Rust tokens.
//!
//! The generated function keeps the user's signature. Its body runs the
//! original block when `ohua::sequential` is active, and otherwise builds the
//! graph with the runtime's typed ports and operators and executes it. No
//! type is written down: every arc's type is inferred from its producer, and
//! nodes are emitted producers-first so rustc knows each closure's input types
//! before it checks the closure.
//!
//! Each operator emits itself ([`crate::graph::Operator::emit`], one file per
//! kind in `graph/ops/`) through an [`Emit`] (`graph/ops/emit.rs`, below
//! this module in `LAYERS.md`): this module writes the frame
//! (ports, result slot, chains) around them. Generated code names the
//! runtime only through `::ohua::__private` (`ohua_runtime::__macro_support`).

mod chain;
mod info;

use proc_macro2::TokenStream;
use quote::quote;

use crate::graph::ops::emit::{arc_ends, builder, local, num, rt};
use crate::graph::{Emit, Graph};

/// The generated item for one algorithm.
pub fn generate(item: &syn::ItemFn, g: &Graph) -> TokenStream {
    let rt = rt();
    let attrs = &item.attrs;
    let vis = &item.vis;
    let sig = &item.sig;
    let block = &item.block;
    let graph_static = info::graph_static(g, item);
    let b = builder();
    let slot = local("slot");
    let arcs = (0..g.arcs.len()).map(|a| {
        let ((s, r), id) = (arc_ends(a), num(a as u64));
        quote!(let (#s, #r) = #b.ports(#id);)
    });
    // Chains of calls are built as links and installed together at the end,
    // when every link's closure has been type-checked in producer order.
    let chains = chain::Chains::of(g);
    // Every operator emits itself (`graph/ops/`).
    let links: Vec<bool> = (0..g.nodes.len()).map(|n| chains.is_link(n)).collect();
    // Each operator is built in a `part`, a function of its own, from arc
    // ends without drop glue (the runtime's `exec/parts.rs`): as one function
    // the build of a large algorithm took most of its release build time.
    let nodes = (0..g.nodes.len()).map(|n| {
        let code = g.nodes[n].kind.op().emit(&Emit::new(g, n, &links));
        if links[n] {
            return code;
        }
        quote!(#rt::part(#b, |#b| { #code });)
    });
    let installs = chains.chains().map(|chain| {
        let mut links = chain.iter().rev().map(|n| local(&format!("l{n}")));
        let last = links.next().expect("a chain has two or more links");
        let joined = links.fold(quote!(#last), |rest, l| quote!(#l.then(#rest)));
        quote!(#rt::part(#b, |#b| #b.chain(#joined));)
    });
    // A `cluster` algorithm's result goes from the caller to every process
    // of a cluster (`exec/run.rs` in the runtime), so it must be serde.
    let execute = if g.cluster { quote!(execute_cluster) } else { quote!(execute) };
    quote! {
        #(#attrs)*
        #[allow(unused_mut, unused_variables, unused_assignments, unused_parens, clippy::all)]
        #vis #sig {
            if ::ohua::__private::is_sequential() #block else {
                use ::ohua::__private as __ohua;
                #graph_static
                #rt::#execute(__OHUA_GRAPH.get(), move |#b| {
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
