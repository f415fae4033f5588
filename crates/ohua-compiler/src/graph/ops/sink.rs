//! `sink`: in 0 = the algorithm's result, handed to the caller.

use proc_macro2::TokenStream;
use quote::quote;

use super::Operator;
use super::emit::{local, Emit};

/// The algorithm's result.
#[derive(Debug, Clone)]
pub struct Sink;

impl Operator for Sink {
    fn name(&self) -> &'static str {
        "sink"
    }

    fn ports(&self) -> (usize, usize) {
        (1, 0)
    }

    fn emit(&self, e: &Emit<'_>) -> TokenStream {
        let (rt, i, slot) = (e.rt(), e.input(0), local("slot"));
        e.install(quote!(#rt::Sink::new(#i, #slot.clone())))
    }
}
