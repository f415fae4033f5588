//! `loop`: a `while` loop or tail recursion cycling `ControlFlow` values.
//! In 0 = init, 1 = feedback; out 0 = current, 1 = ticks, 2 = result.

use proc_macro2::TokenStream;
use quote::quote;

use super::Operator;
use super::emit::{num, Emit};

/// A `while` loop or tail recursion.
#[derive(Debug, Clone)]
pub struct Loop {
    /// Level of the loop's parent.
    pub level: u16,
}

impl Operator for Loop {
    fn name(&self) -> &'static str {
        "loop"
    }

    fn ports(&self) -> (usize, usize) {
        (2, 3)
    }

    fn emit(&self, e: &Emit<'_>) -> TokenStream {
        let (rt, i, f) = (e.rt(), e.input(0), e.input(1));
        let (c, t, r, level) = (e.output(0), e.output(1), e.output(2), num(self.level));
        e.install(quote!(#rt::LoopCarry::new(#i, #f, #level, #c, #t, #r)))
    }
}
