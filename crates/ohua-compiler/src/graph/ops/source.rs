//! `source`: an algorithm parameter. Out 0 = the parameter's value, once.

use proc_macro2::TokenStream;
use quote::quote;

use super::Operator;
use super::Emit;

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
        e.install(quote!({ #check #rt::Source::new(#ident, #o) }))
    }
}
