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
//! kind in `graph/ops/`) through an [`Emit`]: this module writes the frame
//! (ports, result slot, chains) around them. Generated code names the
//! runtime only through `::ohua::__private` (`ohua_runtime::__macro_support`).

mod chain;
mod info;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use crate::graph::{Graph, Node, NodeId};

/// Paths into the facade crate's private module, through the alias the
/// generated block declares (`use ::ohua::__private as __ohua;`): the full
/// path on every operator and port made the expansion twice as long.
fn rt() -> TokenStream {
    quote!(__ohua)
}

/// A local of the generated code (`b`, `s3`, ...). Mixed-site hygiene: the
/// user's code inside the same block cannot see it (nor shadow it), so the
/// names can be short; the expansion is what every build parses and checks.
pub(crate) fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// A node, arc or level number as an unsuffixed literal (`3`, not `3usize`).
pub(crate) fn num(n: impl Into<u64>) -> Literal {
    Literal::u64_unsuffixed(n.into())
}

/// The sending (`s<a>`) and receiving (`r<a>`) ends of arc `a`.
fn arc_ends(a: usize) -> (Ident, Ident) {
    (local(&format!("s{a}")), local(&format!("r{a}")))
}

/// The builder the build closure receives.
fn builder() -> Ident {
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
    // Every operator emits itself (`graph/ops/`).
    let nodes = (0..g.nodes.len()).map(|n| g.nodes[n].kind.op().emit(&Emit { g, n, chains: &chains }));
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

/// What an operator's [`emit`](crate::graph::Operator::emit) sees: the
/// graph, the node, and the names of the generated code around it.
pub struct Emit<'a> {
    /// The graph.
    pub g: &'a Graph,
    /// The node being emitted.
    pub n: NodeId,
    chains: &'a chain::Chains,
}

impl Emit<'_> {
    /// The node being emitted.
    pub fn node(&self) -> &Node {
        &self.g.nodes[self.n]
    }

    /// The path of the runtime's items (`__ohua`, the facade's
    /// `ohua::__private`, which is `ohua_runtime::__macro_support`).
    pub fn rt(&self) -> TokenStream {
        rt()
    }

    /// The builder the build closure receives (`b`).
    pub fn builder(&self) -> Ident {
        builder()
    }

    /// The node's id as a literal.
    pub fn id(&self) -> Literal {
        num(self.n as u64)
    }

    /// Whether the node is a link of a fused chain (`chain.rs`): it is then
    /// built as `let l<n> = Link::new(..);` and installed with its chain.
    pub fn is_link(&self) -> bool {
        self.chains.is_link(self.n)
    }

    /// `b.node(id, body);`: install an operator built by `body`.
    pub fn install(&self, body: TokenStream) -> TokenStream {
        let (b, id) = (self.builder(), self.id());
        quote!(#b.node(#id, #body);)
    }

    /// The `In` port (`r<arc>`) for input port `p`.
    pub fn input(&self, p: usize) -> TokenStream {
        let n = self.n;
        let a = self.g.arc_to(n, p).unwrap_or_else(|| panic!("ohua internal error: input {p} of node {n} unconnected"));
        let (_, r) = arc_ends(a);
        quote!(#r)
    }

    /// The `Out` for output port `p`: `s<arc>`, several joined (fan-out
    /// clones the value), or none.
    pub fn output(&self, p: usize) -> TokenStream {
        let rt = rt();
        let arcs: Vec<_> = self.g.arcs_from(self.n, p).map(|(a, _)| arc_ends(a).0).collect();
        match arcs.len() {
            0 => quote!(#rt::Out::none()),
            1 => quote!(#(#arcs)*),
            _ => {
                // Spanned at the user's binding of the value, so a value that is
                // not `Clone` but used by several operators is reported there.
                let span = self.node().kind.op().output_span(p);
                let clone = quote::quote_spanned!(span.unwrap_or_else(proc_macro2::Span::call_site)=> ::core::clone::Clone::clone);
                quote!(#rt::Out::fan(vec![#(#arcs),*], #clone))
            }
        }
    }

    /// Whether output port `p` goes to several operators.
    pub fn fanned(&self, p: usize) -> bool {
        self.g.arcs_from(self.n, p).count() > 1
    }
}
