//! Branches: `if`/`else if`/`else`, `match`, and `if let` (desugared to a
//! two-armed `match`).

use syn::spanned::Spanned;

use super::ast::{Arm, Expr};
use super::block::empty_block;
use super::pattern::binders;
use super::syntax::{check_attrs, unparen};
use super::Frontend;
use crate::error::{CompileError, Result};

impl Frontend<'_> {
    pub(super) fn parse_if(&mut self, i: &syn::ExprIf, tail: bool) -> Result<Expr> {
        if let syn::Expr::Let(l) = unparen(&i.cond) {
            return self.parse_if_let(i, l, tail);
        }
        if has_let(&i.cond) {
            return Err(CompileError::unsupported(
                i.cond.span(),
                "a `let` chain (`if let .. && ..`)",
                "nest an `if` inside the `if let` (or `match` on a tuple)",
            ));
        }
        let cond = self.parse_expr(&i.cond, false)?;
        let then = self.parse_block(&i.then_branch, tail)?;
        let else_ = match &i.else_branch {
            Some((_, e)) => Some(Box::new(self.parse_expr(e, tail)?)),
            None => None,
        };
        Ok(Expr::If { cond: Box::new(cond), then, else_, span: i.span() })
    }

    /// `if let P = e { a } else { b }` is `match e { P => { a } _ => b }`.
    fn parse_if_let(&mut self, i: &syn::ExprIf, l: &syn::ExprLet, tail: bool) -> Result<Expr> {
        let scrutinee = self.parse_expr(&l.expr, false)?;
        let then = syn::Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: i.then_branch.clone() });
        let matched = self.parse_arm(&l.pat, None, &then, tail, l.pat.span())?;
        let (else_span, otherwise) = match &i.else_branch {
            Some((else_token, e)) => (else_token.span, self.parse_expr(e, tail)?),
            None => (i.if_token.span, Expr::Block(empty_block(i.then_branch.brace_token.span.close()))),
        };
        let wild = syn::Pat::Wild(syn::PatWild { attrs: Vec::new(), underscore_token: syn::Token![_](else_span) });
        let fallback = Arm { pat: wild, guard: None, bindings: Vec::new(), body: otherwise, span: else_span };
        Ok(Expr::Match { scrutinee: Box::new(scrutinee), arms: vec![matched, fallback], span: i.span() })
    }

    pub(super) fn parse_match(&mut self, m: &syn::ExprMatch, tail: bool) -> Result<Expr> {
        let scrutinee = self.parse_expr(&m.expr, false)?;
        let arms = m
            .arms
            .iter()
            .map(|arm| {
                check_attrs(&arm.attrs)?;
                let guard = arm.guard.as_ref().map(|(_, g)| &**g);
                self.parse_arm(&arm.pat, guard, &arm.body, tail, arm.span())
            })
            .collect::<Result<_>>()?;
        Ok(Expr::Match { scrutinee: Box::new(scrutinee), arms, span: m.span() })
    }

    fn parse_arm(
        &mut self,
        pat: &syn::Pat,
        guard: Option<&syn::Expr>,
        body: &syn::Expr,
        tail: bool,
        span: proc_macro2::Span,
    ) -> Result<Arm> {
        let binders = binders(pat);
        for b in &binders {
            if let Some(by_ref) = b.by_ref {
                return Err(CompileError::unsupported(
                    by_ref,
                    "a `ref` binding in a match arm",
                    "bind by value; to bind references, match on a reference (`match &x { .. }`)",
                ));
            }
            if let Some(or_span) = b.in_or {
                return Err(CompileError::unsupported(
                    or_span,
                    "an or-pattern (`A(x) | B(x)`) that binds names",
                    "write one arm per alternative",
                ));
            }
        }
        self.in_scope(|this| {
            binders.iter().for_each(|b| this.scope.bind(&b.ident, b.mutable));
            let guard = guard.map(|g| this.node(g)).transpose()?;
            if let Some(mutated) = guard.iter().flat_map(|g| &g.uses).find(|u| u.mutated) {
                return Err(CompileError::invalid(
                    mutated.name.span(),
                    format!(
                        "a match guard must not modify algorithm values, but it may modify \
                         `{}` here; compute the condition in a `let` before the `match`, or \
                         test it inside the arm body",
                        mutated.name
                    ),
                ));
            }
            let body = this.parse_expr(body, tail)?;
            let bindings = binders.iter().map(|b| b.ident.clone()).collect();
            Ok(Arm { pat: pat.clone(), guard, bindings, body, span })
        })
    }
}

/// Whether a condition contains `let` (a let chain such as `let Some(x) = a && b`).
pub(super) fn has_let(e: &syn::Expr) -> bool {
    match unparen(e) {
        syn::Expr::Let(_) => true,
        syn::Expr::Binary(b) => has_let(&b.left) || has_let(&b.right),
        _ => false,
    }
}
