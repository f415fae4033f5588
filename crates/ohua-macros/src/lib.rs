//! Procedural macros of Ohua. This crate is a thin shell: all logic lives in
//! `ohua-compiler`, which is a plain library so its passes can be tested
//! directly.

use proc_macro::TokenStream;

/// Compile a function (or every `#[algorithm]` function of an inline module)
/// into a dataflow graph that runs in parallel with sequential semantics.
///
/// See the `ohua` crate for the language and the guarantees.
#[proc_macro_attribute]
pub fn algorithm(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let attr = proc_macro2::TokenStream::from(attr);
        return syn::Error::new_spanned(attr, "`#[algorithm]` takes no arguments").to_compile_error().into();
    }
    match syn::parse::<syn::Item>(item) {
        Ok(syn::Item::Fn(f)) => ohua_compiler::expand_fn(f, &[]).into(),
        Ok(syn::Item::Mod(m)) => ohua_compiler::expand_mod(m).into(),
        Ok(other) => {
            syn::Error::new_spanned(other, "`#[algorithm]` goes on a `fn` or on an inline `mod` of algorithms")
                .to_compile_error()
                .into()
        }
        Err(e) => e.to_compile_error().into(),
    }
}
