//! `await`: the answer of a fetch. In 0 = the ticket `submit` returned;
//! out 0 = the answer, if the program binds it (`let _ = src.fetch(q);`
//! binds none). See the runtime's `io/README.md`.

use proc_macro2::{Span, TokenStream};
use quote::quote;

use super::Operator;
use super::Emit;

/// Waits for a fetch's answer.
#[derive(Debug, Clone)]
pub struct Await {
    /// The name the program binds the answer to.
    pub answer: Option<syn::Ident>,
}

impl Operator for Await {
    fn name(&self) -> &'static str {
        "await"
    }

    fn ports(&self) -> (usize, usize) {
        (1, usize::from(self.answer.is_some()))
    }

    fn emit(&self, e: &Emit<'_>) -> TokenStream {
        let (rt, i, o, id) = (e.rt(), e.input(0), e.output(0), e.id());
        e.install(quote!(#rt::Await::new(#i, #o).at(#id)))
    }

    fn output_span(&self, port: usize) -> Option<Span> {
        self.answer.as_ref().filter(|_| port == 0).map(syn::Ident::span)
    }
}
