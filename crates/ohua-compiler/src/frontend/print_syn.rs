//! One-line renderings of syn expressions, patterns and types, as
//! prettyplease prints them, for the AST dump.

use quote::ToTokens;

/// An expression as prettyplease prints it, on one line.
pub(crate) fn rust_expr(expr: &syn::Expr) -> String {
    // prettyplease prints whole files only: print `const _: () = EXPR;` and
    // cut the expression back out.
    let item = syn::Item::Const(syn::ItemConst {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        const_token: Default::default(),
        ident: syn::Ident::new("_", proc_macro2::Span::call_site()),
        generics: Default::default(),
        colon_token: Default::default(),
        ty: Box::new(syn::Type::Tuple(syn::TypeTuple { paren_token: Default::default(), elems: Default::default() })),
        eq_token: Default::default(),
        expr: Box::new(expr.clone()),
        semi_token: Default::default(),
    });
    let file = syn::File { shebang: None, attrs: Vec::new(), items: vec![item] };
    let text = compact(&prettyplease::unparse(&file));
    match text.strip_prefix("const _: () = ").and_then(|t| t.strip_suffix(';')) {
        Some(expr) => expr.to_string(),
        None => compact(&expr.to_token_stream().to_string()),
    }
}

fn unit() -> syn::Expr {
    syn::Expr::Tuple(syn::ExprTuple { attrs: Vec::new(), paren_token: Default::default(), elems: Default::default() })
}

/// A pattern as prettyplease prints it (via `let PAT = ()`).
pub(crate) fn rust_pat(pat: &syn::Pat) -> String {
    let e = syn::Expr::Let(syn::ExprLet {
        attrs: Vec::new(),
        let_token: Default::default(),
        pat: Box::new(pat.clone()),
        eq_token: Default::default(),
        expr: Box::new(unit()),
    });
    let text = rust_expr(&e);
    let text = text.strip_prefix("let ").unwrap_or(&text);
    text.strip_suffix(" = ()").unwrap_or(text).to_string()
}

/// A type as prettyplease prints it (via `() as TYPE`).
pub(crate) fn rust_type(ty: &syn::Type) -> String {
    let e = syn::Expr::Cast(syn::ExprCast {
        attrs: Vec::new(),
        expr: Box::new(unit()),
        as_token: Default::default(),
        ty: Box::new(ty.clone()),
    });
    let text = rust_expr(&e);
    text.strip_prefix("() as ").unwrap_or(&text).to_string()
}

/// Joins lines, dropping their indentation.
fn compact(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    lines.join(" ").replace("( ", "(").replace(" )", ")")
}
