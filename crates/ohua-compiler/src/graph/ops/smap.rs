//! `smap`: loop entry. In 0 = collection; out 0 = elements, out 1 = ticks.

use proc_macro2::TokenStream;
use quote::quote;

use super::Operator;
use super::emit::{num, Emit};

/// Loop entry: the elements of a collection, one level deeper.
#[derive(Debug, Clone)]
pub struct SMap {
    /// Level of the loop's parent.
    pub level: u16,
}

impl Operator for SMap {
    fn name(&self) -> &'static str {
        "smap"
    }

    fn ports(&self) -> (usize, usize) {
        (1, 2)
    }

    fn emit(&self, e: &Emit<'_>) -> TokenStream {
        let (rt, i, el, t, level) = (e.rt(), e.input(0), e.output(0), e.output(1), num(self.level));
        e.install(quote!(#rt::SMap::new(#i, #level, #el, #t)))
    }
}
