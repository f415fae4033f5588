//! What an operator's emission sees ([`Emit`]) and the names of the
//! generated code around it (ports, builder, the runtime's path). Here, below
//! code generation, so that each kind's file holds its emission and
//! `codegen` only writes the frame (`LAYERS.md`).

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use crate::graph::{Graph, Node, NodeId};

/// Paths into the facade crate's private module, through the alias the
/// generated block declares (`use ::ohua::__private as __ohua;`): the full
/// path on every operator and port made the expansion twice as long.
pub(crate) fn rt() -> TokenStream {
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
pub(crate) fn arc_ends(a: usize) -> (Ident, Ident) {
    (local(&format!("s{a}")), local(&format!("r{a}")))
}

/// The builder the build closure receives.
pub(crate) fn builder() -> Ident {
    local("b")
}

/// What an operator's [`emit`](crate::graph::Operator::emit) sees: the
/// graph, the node, and the names of the generated code around it.
pub struct Emit<'a> {
    /// The graph.
    pub g: &'a Graph,
    /// The node being emitted.
    pub n: NodeId,
    /// Per node: whether it is a link of a fused chain (code generation
    /// finds the chains, `codegen/chain.rs`).
    links: &'a [bool],
}

impl<'a> Emit<'a> {
    /// What node `n` of `g` emits itself with; `links[n]`: node `n` is a
    /// link of a fused chain.
    pub fn new(g: &'a Graph, n: NodeId, links: &'a [bool]) -> Self {
        Emit { g, n, links }
    }

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

    /// Whether the node is a link of a fused chain (`codegen/chain.rs`): it is then
    /// built as `let l<n> = Link::new(..);` and installed with its chain.
    pub fn is_link(&self) -> bool {
        self.links[self.n]
    }

    /// `b.node(id, body);`: install an operator built by `body`.
    pub fn install(&self, body: TokenStream) -> TokenStream {
        let (b, id) = (self.builder(), self.id());
        quote!(#b.node(#id, #body);)
    }

    /// The `In` port for input port `p`: the arc's receiving end taken
    /// (`r<arc>.take()`, the runtime's `exec/parts.rs`).
    pub fn input(&self, p: usize) -> TokenStream {
        let n = self.n;
        let a = self.g.arc_to(n, p).unwrap_or_else(|| panic!("ohua internal error: input {p} of node {n} unconnected"));
        let (_, r) = arc_ends(a);
        quote!(#r.take())
    }

    /// The `Out` for output port `p`: the arc's sending end taken
    /// (`s<arc>.take()`), several joined (fan-out clones the value), or none.
    pub fn output(&self, p: usize) -> TokenStream {
        let rt = rt();
        let arcs: Vec<_> = self.g.arcs_from(self.n, p).map(|(a, _)| arc_ends(a).0).map(|s| quote!(#s.take())).collect();
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
