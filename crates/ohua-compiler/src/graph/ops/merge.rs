//! `merge`: in 0 = arm index, in 1+k = arm k; out 0 = value.

use proc_macro2::TokenStream;
use quote::quote;

use super::Operator;
use super::Emit;

/// Takes the value of the selected branch arm.
#[derive(Debug, Clone)]
pub struct Merge {
    /// Number of arms.
    pub arms: usize,
}

impl Operator for Merge {
    fn name(&self) -> &'static str {
        "merge"
    }

    fn ports(&self) -> (usize, usize) {
        (1 + self.arms, 1)
    }

    fn emit(&self, e: &Emit<'_>) -> TokenStream {
        let (rt, s, o) = (e.rt(), e.input(0), e.output(0));
        let arms = (1..=self.arms).map(|p| e.input(p));
        e.install(quote!(#rt::Merge::new(#s, vec![#(#arms),*], #o)))
    }
}
