//! Small queries on syn syntax trees shared by the parser and the analysis.

use syn::spanned::Spanned;

use super::messages;
use crate::error::Result;

/// The identifier of a plain single-name path expression (`x`): no leading
/// `::`, no `Self::`-style qualification, no generic arguments.
pub(crate) fn plain_ident(expr: &syn::Expr) -> Option<&syn::Ident> {
    match expr {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
}

/// Strips parentheses (and invisible groups from macro expansion).
pub(crate) fn unparen(mut expr: &syn::Expr) -> &syn::Expr {
    loop {
        match expr {
            syn::Expr::Paren(p) => expr = &p.expr,
            syn::Expr::Group(g) => expr = &g.expr,
            _ => return expr,
        }
    }
}

/// The name of a macro if it is written `name!`, or `std::name!` /
/// `core::name!` / `alloc::name!` (how the standard macros are reached).
pub(crate) fn macro_name(path: &syn::Path) -> Option<String> {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segments.as_slice() {
        [name] => Some(name.clone()),
        [krate, name] if matches!(krate.as_str(), "std" | "core" | "alloc") => Some(name.clone()),
        _ => None,
    }
}

/// Whether `op` is a compound assignment (`+=`, `<<=`, ..).
pub(crate) fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// Rejects `#[cfg]`/`#[cfg_attr]` on statements and structural expressions:
/// the compiler would otherwise translate code rustc compiles away.
pub(crate) fn check_attrs(attrs: &[syn::Attribute]) -> Result<()> {
    match attrs.iter().find(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr")) {
        Some(attr) => Err(messages::conditional_compilation(attr.span())),
        None => Ok(()),
    }
}

/// The attributes written directly on an expression.
pub(crate) fn expr_attrs(expr: &syn::Expr) -> &[syn::Attribute] {
    use syn::Expr::*;
    match expr {
        Array(e) => &e.attrs,
        Assign(e) => &e.attrs,
        Async(e) => &e.attrs,
        Await(e) => &e.attrs,
        Binary(e) => &e.attrs,
        Block(e) => &e.attrs,
        Break(e) => &e.attrs,
        Call(e) => &e.attrs,
        Cast(e) => &e.attrs,
        Closure(e) => &e.attrs,
        Const(e) => &e.attrs,
        Continue(e) => &e.attrs,
        Field(e) => &e.attrs,
        ForLoop(e) => &e.attrs,
        Group(e) => &e.attrs,
        If(e) => &e.attrs,
        Index(e) => &e.attrs,
        Infer(e) => &e.attrs,
        Let(e) => &e.attrs,
        Lit(e) => &e.attrs,
        Loop(e) => &e.attrs,
        Macro(e) => &e.attrs,
        Match(e) => &e.attrs,
        MethodCall(e) => &e.attrs,
        Paren(e) => &e.attrs,
        Path(e) => &e.attrs,
        Range(e) => &e.attrs,
        RawAddr(e) => &e.attrs,
        Reference(e) => &e.attrs,
        Repeat(e) => &e.attrs,
        Return(e) => &e.attrs,
        Struct(e) => &e.attrs,
        Try(e) => &e.attrs,
        TryBlock(e) => &e.attrs,
        Tuple(e) => &e.attrs,
        Unary(e) => &e.attrs,
        Unsafe(e) => &e.attrs,
        While(e) => &e.attrs,
        Yield(e) => &e.attrs,
        _ => &[],
    }
}
