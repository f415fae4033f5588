//! `source`: an algorithm parameter. Out 0 = the parameter's value, once.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Emit, Kind, Operator};

/// An algorithm parameter.
#[derive(Debug, Clone)]
pub struct Source {
    /// The parameter.
    pub ident: syn::Ident,
}

impl Operator for Source {
    fn name(&self) -> &'static str {
        "source"
    }

    fn ports(&self) -> (usize, usize) {
        (0, 1)
    }

    fn emit(&self, e: &Emit<'_>) -> TokenStream {
        let (rt, ident, o) = (e.rt(), &self.ident, e.output(0));
        // Spanned at the parameter: a parameter that is not `Send` (a raw
        // pointer, an `Rc`) is reported there (`exec/checks.rs`).
        let check = quote::quote_spanned!(ident.span()=> #rt::crossing(&#ident););
        let value = if feeds_only_a_top_level_loop(e) {
            // A receiver becomes one whose wait a service's stop ends
            // (the runtime's `update/interrupt.rs`); any other type passes
            // through. Decided on the parameter's declared type.
            let b = e.builder();
            quote!({
                use #rt::{ViaRecvTimeout as _, ViaValue as _};
                (&#rt::Candidate::new(#ident)).source(#b.service())
            })
        } else {
            quote!(#ident)
        };
        e.install(quote!({ #check #rt::Source::new(#value, #o) }))
    }
}

/// Whether the parameter's only consumer is the entry of a top-level `for`
/// loop (`for x in rx`), the loop a service's stop ends.
fn feeds_only_a_top_level_loop(e: &Emit<'_>) -> bool {
    let mut uses = e.g.arcs_from(e.n, 0);
    match (uses.next(), uses.next()) {
        (Some((_, arc)), None) => matches!(&e.g.nodes[arc.to.0].kind, Kind::SMap(s) if s.level == 0),
        _ => false,
    }
}
