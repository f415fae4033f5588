//! Procedural macros of Ohua. This crate is a thin shell: all logic lives in
//! `ohua-compiler`, which is a plain library so its passes can be tested
//! directly.

use proc_macro::TokenStream;

/// Compile a function (or every `#[algorithm]` function of an inline module)
/// into a dataflow graph that runs in parallel with sequential semantics.
///
#[doc = include_str!("../LANGUAGE.md")]
#[proc_macro_attribute]
pub fn algorithm(attr: TokenStream, item: TokenStream) -> TokenStream {
    ohua_compiler::expand(attr.into(), item.into()).into()
}
