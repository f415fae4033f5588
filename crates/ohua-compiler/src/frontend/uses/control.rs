//! Control flow that would escape an opaque expression: rejected, because a
//! node is evaluated on its own inside one operator.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::Collector;
use crate::frontend::messages;
use crate::frontend::scope::key;
use crate::frontend::syntax::plain_ident;

impl Collector<'_> {
    pub(super) fn break_expr(&mut self, b: &syn::ExprBreak) {
        self.jump(b.label.as_ref(), b.span(), "break");
        visit::visit_expr_break(self, b);
    }

    pub(super) fn continue_expr(&mut self, c: &syn::ExprContinue) {
        self.jump(c.label.as_ref(), c.span(), "continue");
    }

    pub(super) fn return_expr(&mut self, r: &syn::ExprReturn) {
        if self.closures == 0 {
            self.fail(messages::early_return(r.span()));
        }
        visit::visit_expr_return(self, r);
    }

    pub(super) fn try_expr(&mut self, t: &syn::ExprTry) {
        if self.closures == 0 {
            self.fail(messages::try_operator(t.question_token.span));
        }
        self.visit_expr(&t.expr);
    }

    pub(super) fn await_expr(&mut self, a: &syn::ExprAwait) {
        if self.closures == 0 {
            self.fail(messages::asynchrony(a.await_token.span, "`.await`"));
        }
        self.visit_expr(&a.base);
    }

    pub(super) fn async_block(&mut self, a: &syn::ExprAsync) {
        if self.closures == 0 {
            self.fail(messages::asynchrony(a.async_token.span, "an `async` block"));
        }
        self.visit_block(&a.block);
    }

    pub(super) fn yield_expr(&mut self, y: &syn::ExprYield) {
        if self.closures == 0 {
            self.fail(messages::asynchrony(y.yield_token.span, "`yield`"));
        }
        visit::visit_expr_yield(self, y);
    }

    /// An algorithm called from inside an opaque expression would run as a
    /// plain function inside one operator instead of being flattened into the
    /// graph, so it must be called where structure is allowed.
    pub(super) fn algorithm_call(&mut self, c: &syn::ExprCall) {
        let Some(func) = plain_ident(&c.func) else { return };
        let name = key(func);
        let shadowed = self.inner.iter().any(|f| f.contains(&name)) || self.outer.contains(&name);
        if !shadowed && self.algorithms.iter().any(|a| key(a) == name) {
            self.fail(messages::nested_algorithm_call(c.span(), func));
        }
    }

    /// A `break`/`continue` is fine if it targets a loop (or labeled block)
    /// inside the expression; otherwise it would target an algorithm loop.
    fn jump(&mut self, label: Option<&syn::Lifetime>, span: Span, keyword: &str) {
        let inside = match label {
            Some(label) => self.labels.contains(&key(&label.ident)),
            None => self.loops > 0,
        };
        if self.closures == 0 && !inside {
            self.fail(messages::loop_jump(span, keyword));
        }
    }
}
