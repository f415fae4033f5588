//! The algorithm's signature: which function shapes are accepted and how the
//! parameters bind.

use syn::spanned::Spanned;

use super::ast::Param;
use super::pattern::binding_pattern;
use crate::error::{CompileError, Result};

/// Validates the signature and returns the parameters in order.
///
/// Generics and `where` clauses are allowed and stay in the item; qualifiers
/// that change how the function runs (`async`, `const`, `unsafe`, `extern`),
/// methods and variadics are rejected.
pub(crate) fn parse_signature(item: &syn::ItemFn) -> Result<Vec<Param>> {
    let sig = &item.sig;
    let qualifier =
        |span, what: &str, help: &str| Err(CompileError::unsupported(span, format!("`{what}` algorithm"), help));
    if let Some(t) = &sig.asyncness {
        return qualifier(t.span, "async fn", "write a plain `fn`; ohua runs it as dataflow");
    }
    if let Some(t) = &sig.constness {
        return qualifier(t.span, "const fn", "remove `const`; algorithms run at run time");
    }
    if let Some(t) = &sig.unsafety {
        return qualifier(
            t.span,
            "unsafe fn",
            "remove `unsafe` and move unsafe code into a function the algorithm calls",
        );
    }
    if let Some(abi) = &sig.abi {
        return qualifier(abi.span(), "extern fn", "remove the ABI; write a plain Rust `fn`");
    }
    if let Some(v) = &sig.variadic {
        return Err(CompileError::unsupported(
            v.span(),
            "a variadic parameter",
            "pass the values as a slice or `Vec` parameter",
        ));
    }
    sig.inputs.iter().map(param).collect()
}

fn param(arg: &syn::FnArg) -> Result<Param> {
    match arg {
        syn::FnArg::Receiver(r) => Err(CompileError::unsupported(
            r.span(),
            "a `self` parameter",
            "an algorithm must be a free function; pass the object as an ordinary parameter \
             (`fn algo(obj: Obj, ..)`) and call its methods in the body",
        )),
        syn::FnArg::Typed(t) => Ok(Param { pat: binding_pattern(&t.pat, "a parameter")?, ty: (*t.ty).clone() }),
    }
}

/// Whether the function returns `()` (no `->`, or `-> ()`).
pub(crate) fn returns_unit(sig: &syn::Signature) -> bool {
    match &sig.output {
        syn::ReturnType::Default => true,
        syn::ReturnType::Type(_, ty) => matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty()),
    }
}
