//! `#[ohua::updatable]`: a function that a running service can replace
//! (live updates, `ohua_runtime::update`), and `ohua::replace!`, which names
//! the replacement.
//!
//! ```text
//! #[ohua::updatable]
//! fn load(path: &str, n: usize) -> Page { BODY }
//! ```
//!
//! becomes
//!
//! ```text
//! fn load(__ohua_a0: &str, __ohua_a1: usize) -> Page {
//!     fn __ohua_body(path: &str, n: usize) -> Page { BODY }
//!     let __ohua_call = ::ohua::update::dispatch(__ohua_slot_load());
//!     match __ohua_call.replacement() {
//!         Some(f) => f(__ohua_a0, __ohua_a1),
//!         None => __ohua_body(__ohua_a0, __ohua_a1),
//!     }
//! }
//! fn __ohua_slot_load() -> &'static ::ohua::update::FnSlot<fn(&str, usize) -> Page> { .. }
//! struct load {}
//! impl load { fn __ohua_slot() -> &'static ::ohua::update::FnSlot<..> { __ohua_slot_load() } }
//! ```
//!
//! `dispatch` runs the original body when the replacement itself calls the
//! function (a decorator, or `replace!(load => load)`, a rollback), instead
//! of recursing (`ohua_runtime::update::dispatch`).
//!
//! The empty struct `load` lives in the type namespace only, beside the
//! function: `use files::load;` (or `use files::load as fetch;`) imports
//! both, so `replace!(load => ..)` (`replace!(fetch => ..)`) finds the slot
//! as `load::__ohua_slot()` wherever the function was imported. A path of
//! several segments names the slot function next to the function
//! (`files::__ohua_slot_load()`), which also works for methods
//! (`Cache::get` becomes `Cache::__ohua_slot_get()`).
//!
//! The slot's type is the function's signature as a function pointer, so a
//! replacement of another type does not compile. Generic, `async`, `const`,
//! `unsafe` and `extern` functions, methods and `impl Trait` arguments are
//! rejected with a spanned error.

mod methods;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// Expand `#[ohua::updatable]` on `item`.
///
/// # Errors
///
/// Returns `compile_error!` tokens pointing at what cannot be made
/// replaceable.
pub fn expand_updatable(attr: TokenStream, item: TokenStream) -> TokenStream {
    match updatable(attr, item) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

fn updatable(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(attr.span(), "`#[ohua::updatable]` takes no arguments"));
    }
    let item: syn::Item = syn::parse2(item).map_err(|e| syn::Error::new(e.span(), WHERE))?;
    let f = match item {
        syn::Item::Fn(f) => f,
        syn::Item::Impl(imp) => return methods::updatable_impl(imp),
        other => return Err(syn::Error::new(other.span(), WHERE)),
    };
    check_signature(&f.sig)?;
    let syn::ItemFn { attrs, vis, sig, block } = &f;
    let name = &sig.ident;
    let slot = slot_ident(name);
    let mut params = Vec::new();
    let mut types = Vec::new();
    for (k, input) in sig.inputs.iter().enumerate() {
        let syn::FnArg::Typed(t) = input else {
            return Err(syn::Error::new(input.span(), "`#[ohua::updatable]` on a method: put it on the `impl` block instead (`#[ohua::updatable] impl Cache { .. }`), which makes every method taking `self` replaceable and the type a state that updates can transform"));
        };
        if let syn::Type::ImplTrait(_) = &*t.ty {
            return Err(syn::Error::new(
                t.ty.span(),
                "`#[ohua::updatable]` needs a concrete type here: `impl Trait` makes the function generic",
            ));
        }
        params.push(format_ident!("__ohua_a{}", k));
        types.push(t.ty.to_token_stream());
    }
    let output = &sig.output;
    let lifetimes: Vec<_> = sig.generics.lifetimes().map(|l| l.lifetime.to_token_stream()).collect();
    let fn_ty = fn_pointer_type(&lifetimes, &types, &output.to_token_stream());
    let generics = &sig.generics;
    let body_sig = syn::Signature { ident: format_ident!("__ohua_body"), ..sig.clone() };
    let outer_inputs = params.iter().zip(&types).map(|(p, t)| quote!(#p: #t));
    let (asyncness, unsafety, abi) = (&sig.asyncness, &sig.unsafety, &sig.abi);
    let doc_slot = format!("The live-update slot of [`{name}`] (`#[ohua::updatable]`).");
    let slot_name = quote!(::core::concat!(::core::module_path!(), "::", ::core::stringify!(#name)));
    let span = name.span();
    let dispatch = quote_spanned!(span=> ::ohua::update::dispatch(#slot()));
    // The slot's items exist where the function does.
    let cfgs: Vec<_> = attrs.iter().filter(|a| a.path().is_ident("cfg")).collect();
    Ok(quote! {
        #(#attrs)*
        #vis #asyncness #unsafety #abi fn #name #generics (#(#outer_inputs),*) #output {
            #[inline(always)]
            #body_sig #block
            let __ohua_call = #dispatch;
            match __ohua_call.replacement() {
                ::core::option::Option::Some(__ohua_new) => __ohua_new(#(#params),*),
                ::core::option::Option::None => __ohua_body(#(#params),*),
            }
        }

        #(#cfgs)*
        #[doc = #doc_slot]
        #[doc(hidden)]
        #vis fn #slot() -> &'static ::ohua::update::FnSlot<#fn_ty> {
            static SLOT: ::ohua::update::FnSlot<#fn_ty> = ::ohua::update::FnSlot::new(#slot_name);
            &SLOT
        }

        // Named like the function, in the type namespace only (a braced
        // struct): `use path::f as g;` imports it with the function, so
        // `replace!(g => ..)` finds the slot through it.
        #(#cfgs)*
        #[doc = #doc_slot]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        #(#cfgs)*
        impl #name {
            #[doc = #doc_slot]
            #[doc(hidden)]
            #[inline(always)]
            pub fn __ohua_slot() -> &'static ::ohua::update::FnSlot<#fn_ty> {
                #slot()
            }
        }
    })
}

const WHERE: &str = "`#[ohua::updatable]` goes on a free function (`fn name(..) -> T { .. }`) \
                     or on an inherent impl block (`impl Cache { .. }`)";

/// The function pointer type of a slot; named lifetimes (`fn f<'a>(x: &'a
/// str) -> &'a str`) make it higher-ranked.
fn fn_pointer_type(lifetimes: &[TokenStream], types: &[TokenStream], output: &TokenStream) -> TokenStream {
    let binder = (!lifetimes.is_empty()).then(|| quote!(for<#(#lifetimes),*>));
    quote!(#binder fn(#(#types),*) #output)
}

/// `__ohua_slot_<name>`: the function that returns `name`'s slot.
fn slot_ident(name: &syn::Ident) -> syn::Ident {
    format_ident!("__ohua_slot_{}", name)
}

fn check_signature(sig: &syn::Signature) -> syn::Result<()> {
    let reject = |span: Span, what: &str| {
        Err(syn::Error::new(span, format!("`#[ohua::updatable]` cannot replace {what} functions: {}", ADVICE)))
    };
    if let Some(a) = &sig.asyncness {
        return reject(a.span(), "`async`");
    }
    if let Some(c) = &sig.constness {
        return reject(c.span(), "`const`");
    }
    if let Some(u) = &sig.unsafety {
        return reject(u.span(), "`unsafe`");
    }
    if let Some(a) = &sig.abi {
        return reject(a.span(), "`extern`");
    }
    if let Some(v) = &sig.variadic {
        return reject(v.span(), "variadic");
    }
    let type_params = sig.generics.params.iter().any(|p| !matches!(p, syn::GenericParam::Lifetime(_)));
    if type_params || sig.generics.where_clause.is_some() {
        return reject(sig.generics.span(), "generic");
    }
    Ok(())
}

const ADVICE: &str = "a live update swaps a function pointer, so the function needs one concrete signature; \
                      wrap the call in a plain `fn` and mark that one";

/// Expand `ohua::replace!(path::to::f => new_f)` into an
/// `ohua::update::Replacement`; `replace!(f => _)` goes back to `f`'s own
/// body (`Replacement::original`).
///
/// # Errors
///
/// Returns `compile_error!` tokens for input that is not `PATH => EXPR`.
pub fn expand_replace(input: TokenStream) -> TokenStream {
    match replace(input) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

struct ReplaceInput {
    old: syn::Path,
    /// `None` for `_`: the original.
    new: Option<syn::Expr>,
}

impl syn::parse::Parse for ReplaceInput {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let old: syn::Path = input.parse()?;
        input.parse::<syn::Token![=>]>()?;
        let fork = input.fork();
        let underscore = fork.parse::<syn::Token![_]>().is_ok() && (fork.is_empty() || fork.peek(syn::Token![,]));
        let new = if underscore {
            input.parse::<syn::Token![_]>()?;
            None
        } else {
            Some(input.parse()?)
        };
        let _ = input.parse::<Option<syn::Token![,]>>()?;
        Ok(ReplaceInput { old, new })
    }
}

fn replace(input: TokenStream) -> syn::Result<TokenStream> {
    let ReplaceInput { old, new } = syn::parse2(input).map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected `ohua::replace!(function => new_function)`, e.g. `replace!(files::load => load_v2)`",
        )
    })?;
    let slot = slot_of(old)?;
    Ok(match new {
        Some(new) => quote!(::ohua::update::Replacement::new(#slot, #new)),
        None => quote!(::ohua::update::Replacement::original(#slot)),
    })
}

/// The expression for the slot of the function `path` names: through the
/// struct named like the function where the path ends in a module's item
/// (`f`, an imported or renamed `g`, `files::load`), else through the slot
/// function beside it (`Cache::get`: the segment before is a type).
fn slot_of(mut path: syn::Path) -> syn::Result<TokenStream> {
    let span = path.span();
    let n = path.segments.len();
    let in_module = match n {
        0 => return Err(syn::Error::new(span, "expected a function's path")),
        1 => true,
        // Modules are snake_case, types CamelCase (`Self` included).
        _ => path.segments[n - 2].ident.to_string().chars().next().is_some_and(|c| !c.is_uppercase()),
    };
    if in_module {
        return Ok(quote!(#path::__ohua_slot()));
    }
    let last = path.segments.last_mut().expect("n > 0");
    last.ident = slot_ident(&last.ident);
    Ok(quote!(#path()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(src: &str) -> String {
        expand_updatable(TokenStream::new(), src.parse().unwrap()).to_string()
    }

    #[test]
    fn the_slot_is_typed_by_the_signature_as_a_function_pointer() {
        let out = expand("fn load(path: &str, (a, b): (u8, u8)) -> usize { path.len() + a as usize + b as usize }");
        assert!(out.contains("FnSlot < fn (& str , (u8 , u8)) -> usize >"), "{out}");
        assert!(out.contains("fn __ohua_slot_load"), "{out}");
        assert!(out.contains("fn __ohua_body (path : & str , (a , b) : (u8 , u8))"), "{out}");
    }

    #[test]
    fn named_lifetimes_make_a_higher_ranked_slot_type() {
        let out = expand("fn first<'a>(s: &'a str) -> &'a str { &s[..1] }");
        assert!(out.contains("FnSlot < for < 'a > fn (& 'a str) -> & 'a str >"), "{out}");
    }

    #[test]
    fn generic_async_and_impl_trait_functions_are_rejected_with_advice() {
        for src in
            ["fn f<T>(x: T) -> T { x }", "async fn f(x: u8) -> u8 { x }", "fn f(x: impl Fn()) {}", "fn f(&self) {}"]
        {
            let out = expand(src);
            assert!(out.contains("compile_error"), "{src}: {out}");
        }
        assert!(expand("fn f<T>(x: T) -> T { x }").contains("one concrete signature"));
    }

    #[test]
    fn replace_names_the_slot_through_the_struct_named_like_the_function() {
        let out = |src: &str| expand_replace(src.parse().unwrap()).to_string();
        assert_eq!(
            out("load => load_v2"),
            ":: ohua :: update :: Replacement :: new (load :: __ohua_slot () , load_v2)"
        );
        assert_eq!(
            out("files::load => load_v2"),
            ":: ohua :: update :: Replacement :: new (files :: load :: __ohua_slot () , load_v2)"
        );
        // A method: the slot function beside it in the impl block.
        assert_eq!(
            out("Cache::get => Cache::get_v2"),
            ":: ohua :: update :: Replacement :: new (Cache :: __ohua_slot_get () , Cache :: get_v2)"
        );
    }

    #[test]
    fn replace_by_an_underscore_goes_back_to_the_original() {
        let out = expand_replace("load => _".parse().unwrap()).to_string();
        assert_eq!(out, ":: ohua :: update :: Replacement :: original (load :: __ohua_slot ())");
        let closure = expand_replace("load => |_| 1".parse().unwrap()).to_string();
        assert!(closure.contains("Replacement :: new"), "{closure}");
    }

    #[test]
    fn the_function_gets_a_struct_of_its_name_that_finds_its_slot() {
        let out = expand("pub fn load(x: u8) -> u8 { x }");
        assert!(out.contains("pub struct load { }"), "{out}");
        assert!(out.contains("impl load { # [doc"), "{out}");
        assert!(out.contains("pub fn __ohua_slot () -> & 'static :: ohua :: update :: FnSlot < fn (u8) -> u8 > { __ohua_slot_load () }"), "{out}");
        assert!(out.contains(":: ohua :: update :: dispatch (__ohua_slot_load ())"), "{out}");
    }
}
