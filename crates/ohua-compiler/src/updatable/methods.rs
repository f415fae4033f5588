//! `#[ohua::updatable]` on an inherent `impl` block: every method that takes
//! `self` becomes replaceable, and the type becomes a state that updates can
//! transform (`ohua::update::State`).
//!
//! ```text
//! #[ohua::updatable]
//! impl Cache {
//!     fn get(&mut self, key: &str) -> Option<&Page> { BODY }
//! }
//! ```
//!
//! becomes
//!
//! ```text
//! impl Cache {
//!     fn get(&mut self, __ohua_a0: &str) -> Option<&Page> {
//!         let __ohua_call = ::ohua::update::dispatch(Self::__ohua_slot_get());
//!         match __ohua_call.replacement() {
//!             Some(f) => f(self, __ohua_a0),
//!             None => Self::__ohua_body_get(self, __ohua_a0),
//!         }
//!     }
//!     fn __ohua_body_get(&mut self, key: &str) -> Option<&Page> { BODY }
//!     fn __ohua_slot_get()
//!         -> &'static FnSlot<for<'s> fn(&'s mut Cache, &str) -> Option<&'s Page>> { .. }
//! }
//! unsafe impl ::ohua::update::State for Cache {}
//! ```
//!
//! A method's slot is typed by the method as a function taking the receiver
//! first, so `replace!(Cache::get => Cache::get_v2)` compiles only if
//! `get_v2` is a method (or function) of the same type.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use super::{check_signature, fn_pointer_type, slot_ident};

/// Expand the attribute on an `impl` block.
pub(super) fn updatable_impl(imp: syn::ItemImpl) -> syn::Result<TokenStream> {
    check_impl(&imp)?;
    let self_ty = &*imp.self_ty;
    let mut items = Vec::new();
    for item in &imp.items {
        match item {
            syn::ImplItem::Fn(f) if f.sig.receiver().is_some() => items.push(method(self_ty, f)?),
            other => items.push(other.to_token_stream()),
        }
    }
    let (attrs, unsafety) = (&imp.attrs, &imp.unsafety);
    let state_span = self_ty.span();
    let state = quote_spanned! {state_span=>
        // SAFETY: the attribute checked that the type has no lifetime
        // parameters (`ohua::update::State`'s contract).
        unsafe impl ::ohua::update::State for #self_ty {}
    };
    Ok(quote! {
        #(#attrs)*
        #unsafety impl #self_ty { #(#items)* }
        #state
    })
}

fn check_impl(imp: &syn::ItemImpl) -> syn::Result<()> {
    if let Some((_, path, _)) = &imp.trait_ {
        return Err(syn::Error::new(
            path.span(),
            "`#[ohua::updatable]` goes on an inherent impl block (`impl Cache { .. }`); \
             a trait's methods are dispatched by type, not replaced: call them from an inherent method",
        ));
    }
    if !imp.generics.params.is_empty() || imp.generics.where_clause.is_some() {
        return Err(syn::Error::new(
            imp.generics.span(),
            "`#[ohua::updatable]` needs an impl block for one concrete type: a replacement is one function pointer",
        ));
    }
    let mut lifetime = None;
    find_lifetime(imp.self_ty.to_token_stream(), &mut lifetime);
    let is_path = matches!(&*imp.self_ty, syn::Type::Path(p) if p.qself.is_none());
    if let (Some(span), _) | (None, Some(span)) = (lifetime, (!is_path).then(|| imp.self_ty.span())) {
        return Err(syn::Error::new(
            span,
            "`#[ohua::updatable]` needs a named type without lifetimes (a struct or enum): an update \
             finds an operator's state by its type, with lifetimes erased; wrap this type in a struct",
        ));
    }
    Ok(())
}

/// The span of the first lifetime in `tokens`, or of an implied one (`dyn`).
fn find_lifetime(tokens: TokenStream, found: &mut Option<Span>) {
    for t in tokens {
        if found.is_some() {
            return;
        }
        match t {
            TokenTree::Punct(p) if p.as_char() == '\'' => *found = Some(p.span()),
            TokenTree::Ident(i) if i == "dyn" => *found = Some(i.span()),
            TokenTree::Group(g) => find_lifetime(g.stream(), found),
            _ => {}
        }
    }
}

/// The dispatching method, its original body under another name, and its slot.
fn method(self_ty: &syn::Type, f: &syn::ImplItemFn) -> syn::Result<TokenStream> {
    check_signature(&f.sig)?;
    let sig = &f.sig;
    let name = &sig.ident;
    let (slot, body_name) = (slot_ident(name), format_ident!("__ohua_body_{}", name));
    let receiver = sig.receiver().expect("a method");
    // The slot's function type: the receiver's type first; an elided
    // reference receiver gets a named lifetime so the elided lifetimes of
    // the result can refer to it, as in the method.
    let elided_self = receiver.reference.as_ref().is_some_and(|(_, l)| l.is_none());
    let self_lifetime = syn::Lifetime::new("'__ohua_self", Span::call_site());
    let receiver_ty = if elided_self {
        let m = &receiver.mutability;
        quote!(&#self_lifetime #m #self_ty)
    } else {
        with_self(receiver.ty.to_token_stream(), self_ty)
    };
    let mut params = Vec::new();
    let mut types = vec![receiver_ty];
    for (k, input) in sig.inputs.iter().skip(1).enumerate() {
        let syn::FnArg::Typed(t) = input else { unreachable!("only the first input is a receiver") };
        if let syn::Type::ImplTrait(_) = &*t.ty {
            return Err(syn::Error::new(
                t.ty.span(),
                "`#[ohua::updatable]` needs a concrete type here: `impl Trait` makes the method generic",
            ));
        }
        params.push(format_ident!("__ohua_a{}", k));
        types.push(with_self(t.ty.to_token_stream(), self_ty));
    }
    let output = match &sig.output {
        syn::ReturnType::Type(_, ty) => {
            let ty = with_self(ty.to_token_stream(), self_ty);
            let ty = if elided_self { name_elided(ty, &self_lifetime) } else { ty };
            quote!(-> #ty)
        }
        syn::ReturnType::Default => quote!(),
    };
    let mut lifetimes: Vec<TokenStream> = sig.generics.lifetimes().map(|l| l.lifetime.to_token_stream()).collect();
    if elided_self {
        lifetimes.push(self_lifetime.to_token_stream());
    }
    let fn_ty = fn_pointer_type(&lifetimes, &types, &output);
    // The dispatcher keeps the signature, with the receiver's binding not
    // `mut` (the body has it) and plain argument names.
    let mut outer = sig.clone();
    for (k, input) in outer.inputs.iter_mut().enumerate() {
        match input {
            syn::FnArg::Receiver(r) if r.reference.is_none() => r.mutability = None,
            syn::FnArg::Receiver(_) => {}
            syn::FnArg::Typed(t) => {
                let p = &params[k - 1];
                *t.pat = syn::parse_quote!(#p);
            }
        }
    }
    let body_sig = syn::Signature { ident: body_name.clone(), ..sig.clone() };
    let (attrs, vis, block) = (&f.attrs, &f.vis, &f.block);
    let doc_slot = format!("The live-update slot of `{name}` (`#[ohua::updatable]`).");
    let slot_name = quote!(::core::concat!(
        ::core::module_path!(),
        "::",
        ::core::stringify!(#self_ty),
        "::",
        ::core::stringify!(#name)
    ));
    let dispatch = quote_spanned!(name.span()=> ::ohua::update::dispatch(Self::#slot()));
    Ok(quote! {
        #(#attrs)*
        #vis #outer {
            // Runs the original body when called by its own replacement
            // (`replace!(Cache::get => Cache::get)` is a rollback).
            let __ohua_call = #dispatch;
            match __ohua_call.replacement() {
                ::core::option::Option::Some(__ohua_new) => __ohua_new(self, #(#params),*),
                ::core::option::Option::None => Self::#body_name(self, #(#params),*),
            }
        }

        #[doc(hidden)]
        #[inline(always)]
        #[allow(clippy::needless_lifetimes)]
        #body_sig #block

        #[doc = #doc_slot]
        #[doc(hidden)]
        #vis fn #slot() -> &'static ::ohua::update::FnSlot<#fn_ty> {
            static SLOT: ::ohua::update::FnSlot<#fn_ty> = ::ohua::update::FnSlot::new(#slot_name);
            &SLOT
        }
    })
}

/// `tokens` with `Self` replaced by the impl's type (a `static` inside the
/// impl cannot name `Self`): `Self::X` becomes `<Ty>::X`.
fn with_self(tokens: TokenStream, self_ty: &syn::Type) -> TokenStream {
    let mut out = TokenStream::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(t) = iter.next() {
        match t {
            TokenTree::Ident(i) if i == "Self" => {
                let qualified = matches!(iter.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                if qualified {
                    out.extend(quote!(<#self_ty>));
                } else {
                    out.extend(self_ty.to_token_stream());
                }
            }
            TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(g.delimiter(), with_self(g.stream(), self_ty));
                ng.set_span(g.span());
                out.extend([TokenTree::Group(ng)]);
            }
            other => out.extend([other]),
        }
    }
    out
}

/// `tokens` (a result type) with elided lifetimes (`&T`, `&mut T`, `'_`)
/// named `lifetime`, as method elision gives them the receiver's.
fn name_elided(tokens: TokenStream, lifetime: &syn::Lifetime) -> TokenStream {
    let mut out = TokenStream::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(t) = iter.next() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '&' => {
                out.extend([TokenTree::Punct(p)]);
                if !matches!(iter.peek(), Some(TokenTree::Punct(q)) if q.as_char() == '\'') {
                    out.extend(lifetime.to_token_stream());
                }
            }
            TokenTree::Punct(p) if p.as_char() == '\'' => {
                if matches!(iter.peek(), Some(TokenTree::Ident(i)) if i == "_") {
                    iter.next();
                    out.extend(lifetime.to_token_stream());
                } else {
                    out.extend([TokenTree::Punct(p)]);
                }
            }
            TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(g.delimiter(), name_elided(g.stream(), lifetime));
                ng.set_span(g.span());
                out.extend([TokenTree::Group(ng)]);
            }
            other => out.extend([other]),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::expand_updatable;
    use proc_macro2::TokenStream;

    fn expand(src: &str) -> String {
        expand_updatable(TokenStream::new(), src.parse().unwrap()).to_string()
    }

    #[test]
    fn each_method_taking_self_gets_a_slot_typed_with_the_receiver_first() {
        let out = expand(
            "impl Cache { fn new() -> Self { Cache } fn get(&mut self, k: &str) -> Option<&Self> { None } \
             fn size(&self) -> usize { 0 } fn into_inner(mut self) -> Vec<u8> { vec![] } }",
        );
        assert!(out.contains("FnSlot < for < '__ohua_self > fn (& '__ohua_self mut Cache , & str) -> Option < & '__ohua_self Cache > >"), "{out}");
        assert!(out.contains("FnSlot < for < '__ohua_self > fn (& '__ohua_self Cache) -> usize >"), "{out}");
        assert!(out.contains("FnSlot < fn (Cache) -> Vec < u8 > >"), "{out}");
        assert!(out.contains("fn into_inner (self) -> Vec < u8 >"), "the dispatcher's receiver is not `mut`: {out}");
        assert!(out.contains("fn __ohua_body_into_inner (mut self)"), "{out}");
        assert!(!out.contains("__ohua_slot_new"), "constructors stay as they are: {out}");
        assert!(out.contains("unsafe impl :: ohua :: update :: State for Cache"), "{out}");
    }

    #[test]
    fn trait_impls_generic_impls_and_types_with_lifetimes_are_rejected() {
        for src in [
            "impl Clone for Cache { fn clone(&self) -> Self { Cache } }",
            "impl<T> Cache<T> { fn get(&self) {} }",
            "impl Cache<'static> { fn get(&self) {} }",
            "impl Box<dyn Api> { fn get(&self) {} }",
            "impl Cache { fn get<T>(&self, t: T) {} }",
        ] {
            assert!(expand(src).contains("compile_error"), "{src}");
        }
    }
}
