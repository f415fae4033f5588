//! Irrefutable binding patterns: parameters, `let`, `for` and map closures.
//!
//! These may only be identifiers (`x`, `mut x`), tuples of patterns and `_`,
//! because the compiler must be able to split a value into its named parts
//! without knowing its type.

use syn::spanned::Spanned;

use super::ast::Pattern;
use crate::error::{CompileError, Result};

/// Converts `pat` into a [`Pattern`]. `site` names where it was written, for
/// messages, e.g. "a `let` pattern".
pub(crate) fn binding_pattern(pat: &syn::Pat, site: &str) -> Result<Pattern> {
    match pat {
        syn::Pat::Ident(p) => {
            if let Some(by_ref) = &p.by_ref {
                return Err(CompileError::unsupported(
                    by_ref.span(),
                    format!("`ref` binding in {site}"),
                    "bind by value (`x`) and borrow where the value is used (`&x`)",
                ));
            }
            if let Some((at, _)) = &p.subpat {
                return Err(CompileError::unsupported(
                    at.span(),
                    format!("`name @ pattern` in {site}"),
                    "bind a plain name and use `match` to inspect the value",
                ));
            }
            Ok(Pattern::Ident { name: p.ident.clone(), mutable: p.mutability.is_some() })
        }
        syn::Pat::Tuple(t) => {
            let elems = t.elems.iter().map(|p| binding_pattern(p, site)).collect::<Result<Vec<_>>>()?;
            Ok(Pattern::Tuple(elems, t.paren_token.span.join()))
        }
        syn::Pat::Wild(w) => Ok(Pattern::Wild(w.underscore_token.span)),
        syn::Pat::Paren(p) => binding_pattern(&p.pat, site),
        syn::Pat::Rest(r) => Err(CompileError::unsupported(
            r.span(),
            format!("`..` in {site}"),
            "name every tuple element, using `_` for the ones you do not need",
        )),
        syn::Pat::Reference(r) => Err(CompileError::unsupported(
            r.span(),
            format!("a reference pattern (`&x`) in {site}"),
            "bind the reference itself (`x`) and dereference it where it is used (`*x`)",
        )),
        syn::Pat::Type(t) => Err(CompileError::unsupported(
            t.colon_token.span(),
            format!("a type annotation inside {site}"),
            "annotate the whole binding instead (`let (a, b): (A, B) = ..`)",
        )),
        other => Err(CompileError::unsupported(
            other.span(),
            format!("this pattern in {site}"),
            "only identifiers (`x`, `mut x`), tuples (`(a, b)`) and `_` can be bound here; \
             destructure other values with `match`, or inside a function",
        )),
    }
}

/// A name bound by a (possibly refutable) pattern.
pub(crate) struct Binder {
    /// The bound name.
    pub(crate) ident: syn::Ident,
    /// Written with `mut`.
    pub(crate) mutable: bool,
    /// The `ref`/`ref mut` token, if any.
    pub(crate) by_ref: Option<proc_macro2::Span>,
    /// The outermost or-pattern it appears in, if any.
    pub(crate) in_or: Option<proc_macro2::Span>,
}

/// Collects the names a `match`/`if let`/closure pattern binds, in order of
/// first appearance.
///
/// A bare identifier starting with an upper-case letter (`None`, `MAX`) is
/// taken to be a unit variant or constant, not a binding: syn cannot resolve
/// names, and Rust's naming conventions make this reliable in practice.
pub(crate) fn binders(pat: &syn::Pat) -> Vec<Binder> {
    let mut out = Vec::new();
    collect(pat, None, &mut out);
    out
}

fn collect(pat: &syn::Pat, in_or: Option<proc_macro2::Span>, out: &mut Vec<Binder>) {
    match pat {
        syn::Pat::Ident(p) => {
            let plain = p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none();
            let constant = plain && p.ident.to_string().starts_with(|c: char| c.is_uppercase());
            let seen = out.iter().any(|b| b.ident == p.ident);
            if !constant && !seen {
                out.push(Binder {
                    ident: p.ident.clone(),
                    mutable: p.mutability.is_some(),
                    by_ref: p.by_ref.as_ref().map(|r| r.span()),
                    in_or,
                });
            }
            if let Some((_, sub)) = &p.subpat {
                collect(sub, in_or, out);
            }
        }
        syn::Pat::Or(o) => {
            let or_span = in_or.unwrap_or_else(|| o.span());
            o.cases.iter().for_each(|case| collect(case, Some(or_span), out));
        }
        syn::Pat::Paren(p) => collect(&p.pat, in_or, out),
        syn::Pat::Reference(r) => collect(&r.pat, in_or, out),
        syn::Pat::Type(t) => collect(&t.pat, in_or, out),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| collect(p, in_or, out)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|p| collect(p, in_or, out)),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|p| collect(p, in_or, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| collect(&f.pat, in_or, out)),
        // Literals, ranges, paths, `_`, `..`, constants and macros bind nothing
        // we can see.
        _ => {}
    }
}
