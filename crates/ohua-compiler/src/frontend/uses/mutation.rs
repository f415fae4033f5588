//! Which uses may mutate: the *root* local of a place that is a method-call
//! receiver, borrowed `&mut`, or assigned to.
//!
//! A method may take `&mut self`, and the compiler cannot see signatures, so
//! every receiver counts as mutated; the state-threading pass relies on this
//! to keep calls on one object in program order.

use syn::visit::{self, Visit};

use super::Collector;
use crate::frontend::scope::key;
use crate::frontend::syntax::{is_compound_assign, plain_ident};

impl Collector<'_> {
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall) {
        self.record_root(&m.receiver);
        self.visit_expr(&m.receiver);
        m.args.iter().for_each(|a| self.visit_expr(a));
    }

    pub(super) fn reference(&mut self, r: &syn::ExprReference) {
        if r.mutability.is_some() {
            self.record_root(&r.expr);
        }
        self.visit_expr(&r.expr);
    }

    pub(super) fn raw_addr(&mut self, r: &syn::ExprRawAddr) {
        if matches!(r.mutability, syn::PointerMutability::Mut(_)) {
            self.record_root(&r.expr);
        }
        self.visit_expr(&r.expr);
    }

    pub(super) fn assign(&mut self, a: &syn::ExprAssign) {
        self.record_targets(&a.left);
        self.visit_expr(&a.left);
        self.visit_expr(&a.right);
    }

    pub(super) fn binary(&mut self, b: &syn::ExprBinary) {
        if is_compound_assign(&b.op) {
            self.record_root(&b.left);
        }
        self.visit_expr(&b.left);
        self.visit_expr(&b.right);
    }

    /// Calling a local declared `mut` may run an `FnMut` closure, which
    /// changes the closure's captured state.
    pub(super) fn call(&mut self, c: &syn::ExprCall) {
        if let Some(func) = plain_ident(&c.func) {
            if self.is_local(func) && self.outer.lookup(&key(func)) == Some(true) {
                self.record(func, true);
            }
        }
        visit::visit_expr_call(self, c);
    }

    /// Records the root local of the place `e` as mutated.
    pub(super) fn record_root(&mut self, e: &syn::Expr) {
        if let Some(root) = place_root(e) {
            self.record(root, true);
        }
    }

    /// Assignment targets, including destructuring assignment `(a, b) = ..`.
    fn record_targets(&mut self, e: &syn::Expr) {
        match e {
            syn::Expr::Tuple(t) => t.elems.iter().for_each(|e| self.record_targets(e)),
            syn::Expr::Array(a) => a.elems.iter().for_each(|e| self.record_targets(e)),
            syn::Expr::Struct(s) => s.fields.iter().for_each(|f| self.record_targets(&f.expr)),
            syn::Expr::Paren(p) => self.record_targets(&p.expr),
            _ => self.record_root(e),
        }
    }
}

/// The variable a place expression starts from: `x` in `x`, `x.f`, `x[i]`,
/// `(x).f`, `*x`, `x.f[i].g`.
fn place_root(mut e: &syn::Expr) -> Option<&syn::Ident> {
    loop {
        e = match e {
            syn::Expr::Field(f) => &f.base,
            syn::Expr::Index(i) => &i.expr,
            syn::Expr::Paren(p) => &p.expr,
            syn::Expr::Group(g) => &g.expr,
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
            _ => return plain_ident(e),
        };
    }
}
