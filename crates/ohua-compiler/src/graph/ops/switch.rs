//! `switch`: in 0 = arm index, in 1 = value; out k = arm k.

use proc_macro2::TokenStream;
use quote::quote;

use super::Operator;
use super::Emit;

/// Forwards a value to the selected branch arm.
#[derive(Debug, Clone)]
pub struct Switch {
    /// Number of arms.
    pub arms: usize,
}

impl Operator for Switch {
    fn name(&self) -> &'static str {
        "switch"
    }

    fn ports(&self) -> (usize, usize) {
        (2, self.arms)
    }

    fn emit(&self, e: &Emit<'_>) -> TokenStream {
        let (rt, s, v) = (e.rt(), e.input(0), e.input(1));
        let arms = (0..self.arms).map(|p| e.output(p));
        e.install(quote!(#rt::Switch::new(#s, #v, vec![#(#arms),*])))
    }
}
