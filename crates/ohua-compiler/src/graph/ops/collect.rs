//! `collect`: loop exit gathering items. In 0 = item; out 0 = collection.

use proc_macro2::TokenStream;
use quote::quote;

use super::Operator;
use super::emit::{num, Emit};

/// Loop exit gathering items into a collection.
#[derive(Debug, Clone)]
pub struct Collect {
    /// Level of the loop's parent.
    pub level: u16,
    /// Collection type, if annotated.
    pub ty: Option<syn::Type>,
}

impl Operator for Collect {
    fn name(&self) -> &'static str {
        "collect"
    }

    fn ports(&self) -> (usize, usize) {
        (1, 1)
    }

    fn emit(&self, e: &Emit<'_>) -> TokenStream {
        let (rt, i, o, level) = (e.rt(), e.input(0), e.output(0), num(self.level));
        e.install(match &self.ty {
            Some(ty) => quote!(#rt::Collect::<_, #ty>::new(#i, #level, #o)),
            None => quote!(#rt::Collect::new(#i, #level, #o)),
        })
    }
}
