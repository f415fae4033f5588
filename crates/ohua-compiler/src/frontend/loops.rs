//! Loops: `for`, `while`, and the collecting map
//! `ITER.map(|pat| body).collect()` (Ohua's `smap`).

use syn::spanned::Spanned;

use super::ast::Expr;
use super::branch::has_let;
use super::pattern::binding_pattern;
use super::syntax::unparen;
use super::{messages, Frontend};
use crate::error::{CompileError, Result};

impl Frontend<'_> {
    pub(super) fn parse_for(&mut self, f: &syn::ExprForLoop) -> Result<Expr> {
        reject_label(&f.label)?;
        let pat = binding_pattern(&f.pat, "a `for` loop")?;
        reject_borrowed_local(&f.expr)?;
        let iter = self.parse_expr(&f.expr, false)?;
        let body = self.in_scope(|this| {
            this.scope.bind_pattern(&pat);
            this.parse_block(&f.body, false)
        })?;
        Ok(Expr::For { pat, iter: Box::new(iter), body, span: f.span() })
    }

    pub(super) fn parse_while(&mut self, w: &syn::ExprWhile) -> Result<Expr> {
        reject_label(&w.label)?;
        if has_let(&w.cond) {
            return Err(CompileError::unsupported(
                w.span(),
                "`while let`",
                "use `while` with a plain condition and `match` inside the body, e.g. \
                 `while !done { match next() { Some(x) => .., None => done = true } }`",
            ));
        }
        let cond = self.parse_expr(&w.cond, false)?;
        let body = self.parse_block(&w.body, false)?;
        Ok(Expr::While { cond: Box::new(cond), body, span: w.span() })
    }

    /// Recognises exactly `ITER.map(|pat| body).collect()` (optionally
    /// `collect::<T>()`) with a one-parameter closure whose parameter is an
    /// identifier, tuple or `_`. Any other shape (a function instead of a
    /// closure, `|&x|`, extra adaptors after `map`) stays an opaque node that
    /// runs the whole iteration sequentially in one operator.
    pub(super) fn parse_map_collect(&mut self, m: &syn::ExprMethodCall) -> Result<Option<Expr>> {
        if m.method != "collect" || !m.args.is_empty() {
            return Ok(None);
        }
        let collect_ty = match m.turbofish.as_ref().map(|t| t.args.iter().collect::<Vec<_>>()) {
            None => None,
            Some(args) => match args.as_slice() {
                [syn::GenericArgument::Type(ty)] => Some(ty.clone()),
                _ => return Ok(None),
            },
        };
        let syn::Expr::MethodCall(map) = unparen(&m.receiver) else { return Ok(None) };
        if map.method != "map" || map.args.len() != 1 || map.turbofish.is_some() {
            return Ok(None);
        }
        let syn::Expr::Closure(closure) = unparen(&map.args[0]) else { return Ok(None) };
        let plain = closure.asyncness.is_none() && closure.constness.is_none() && closure.lifetimes.is_none();
        if !plain || closure.inputs.len() != 1 {
            return Ok(None);
        }
        let param = &closure.inputs[0];
        if let syn::Pat::Type(typed) = param {
            if binding_shape(&typed.pat) {
                return Err(annotation_error(typed.colon_token.span, "parameter type"));
            }
            return Ok(None);
        }
        if !binding_shape(param) {
            return Ok(None);
        }
        if let syn::ReturnType::Type(arrow, _) = &closure.output {
            return Err(annotation_error(arrow.span(), "return type"));
        }
        let pat = binding_pattern(param, "the `.map` closure")?;
        let iter = self.parse_expr(&map.receiver, false)?;
        // A `return` in the closure body leaves the closure, not the algorithm.
        let unit_return = std::mem::replace(&mut self.unit_return, false);
        let body = self.in_scope(|this| {
            this.scope.bind_pattern(&pat);
            this.parse_expr(&closure.body, true)
        });
        self.unit_return = unit_return;
        Ok(Some(Expr::MapCollect { iter: Box::new(iter), pat, body: Box::new(body?), collect_ty, span: m.span() }))
    }
}

/// Rejects a loop over `&name` / `&mut name` (see [`messages::borrowed_iteration`]).
fn reject_borrowed_local(iter: &syn::Expr) -> Result<()> {
    if let syn::Expr::Reference(r) = unparen(iter) {
        if let syn::Expr::Path(p) = unparen(&r.expr) {
            if let Some(name) = p.path.get_ident() {
                return Err(messages::borrowed_iteration(name.span(), name, r.mutability.is_some()));
            }
        }
    }
    Ok(())
}

/// Whether a pattern is an identifier, tuple or `_` (what a map closure
/// parameter must be to be structural).
fn binding_shape(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Ident(p) => p.by_ref.is_none() && p.subpat.is_none(),
        syn::Pat::Tuple(t) => t.elems.iter().all(binding_shape),
        syn::Pat::Paren(p) => binding_shape(&p.pat),
        syn::Pat::Wild(_) => true,
        _ => false,
    }
}

fn annotation_error(span: proc_macro2::Span, what: &str) -> CompileError {
    CompileError::unsupported(
        span,
        format!("a {what} annotation on the `.map(|..| ..)` closure"),
        "remove it and annotate the collected result instead (`.collect::<Vec<T>>()` or \
         `let v: Vec<T> = ..`); the element type comes from the iterator",
    )
}

fn reject_label(label: &Option<syn::Label>) -> Result<()> {
    match label {
        Some(label) => Err(CompileError::unsupported(
            label.span(),
            "a loop label",
            "remove it; labels only serve `break`/`continue`, which algorithm loops do not \
             support yet",
        )),
        None => Ok(()),
    }
}
