//! `tick`: the top-level tick, one `()` (the runtime's `source` of `()`).
//! Out 0 = the tick.

use proc_macro2::TokenStream;
use quote::quote;

use super::Operator;
use super::Emit;

/// The top-level tick stream of an algorithm.
#[derive(Debug, Clone)]
pub struct Tick;

impl Operator for Tick {
    fn name(&self) -> &'static str {
        "tick"
    }

    fn runtime_name(&self) -> &'static str {
        "source"
    }

    fn ports(&self) -> (usize, usize) {
        (0, 1)
    }

    fn emit(&self, e: &Emit<'_>) -> TokenStream {
        let (rt, o) = (e.rt(), e.output(0));
        e.install(quote!(#rt::Source::new((), #o)))
    }
}
