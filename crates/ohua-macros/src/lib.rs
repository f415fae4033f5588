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

/// Make a free function replaceable while a service runs (live updates):
/// an update sent to an `ohua::service` can swap it for another function of
/// the same type at a consistent cut (see the README, "Live updates").
///
/// ```ignore
/// #[ohua::updatable]
/// fn render(page: &Page) -> String { .. }
/// ```
///
/// Outside a service, or before an update reaches the operator that calls
/// it, the function runs its own body; the check costs a thread-local read.
#[proc_macro_attribute]
pub fn updatable(attr: TokenStream, item: TokenStream) -> TokenStream {
    ohua_compiler::updatable::expand_updatable(attr.into(), item.into()).into()
}

/// A replacement for an `#[ohua::updatable]` function:
/// `ohua::replace!(render => render_v2)` (any path to the function,
/// imported or renamed by `use` too) is an `ohua::update::Replacement`,
/// which `ohua::Update::replace` takes. The new function must have the same
/// type; anything else does not compile. `replace!(render => render)` or
/// `replace!(render => _)` goes back to the original body.
#[proc_macro]
pub fn replace(input: TokenStream) -> TokenStream {
    ohua_compiler::updatable::expand_replace(input.into()).into()
}
