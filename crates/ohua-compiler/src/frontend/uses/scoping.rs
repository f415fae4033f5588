//! Constructs inside an opaque expression that bind names or open scopes,
//! so that inner bindings shadow algorithm locals exactly as in Rust.

use syn::visit::Visit;

use super::Collector;
use crate::frontend::scope::key;

impl Collector<'_> {
    /// A closure: parameters shadow; everything inside (including `return`,
    /// `?` and `break`) belongs to the closure, not to the algorithm.
    pub(super) fn closure(&mut self, c: &syn::ExprClosure) {
        let loops = std::mem::take(&mut self.loops);
        let labels = std::mem::take(&mut self.labels);
        self.closures += 1;
        self.scoped(|this| {
            c.inputs.iter().for_each(|p| this.bind(p));
            this.visit_expr(&c.body);
        });
        self.closures -= 1;
        self.loops = loops;
        self.labels = labels;
    }

    pub(super) fn block(&mut self, b: &syn::Block) {
        self.scoped(|this| b.stmts.iter().for_each(|s| this.visit_stmt(s)));
    }

    /// `let`: the initialiser (and `else`) see the names from before.
    pub(super) fn local(&mut self, l: &syn::Local) {
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
        self.bind(&l.pat);
    }

    /// `let P = e` in a condition binds into the enclosing condition scope,
    /// which also covers let chains (`let Some(x) = a && x > 0`).
    pub(super) fn let_expr(&mut self, l: &syn::ExprLet) {
        self.visit_expr(&l.expr);
        self.bind(&l.pat);
    }

    pub(super) fn if_expr(&mut self, i: &syn::ExprIf) {
        self.scoped(|this| {
            this.visit_expr(&i.cond);
            this.visit_block(&i.then_branch);
        });
        if let Some((_, else_branch)) = &i.else_branch {
            self.visit_expr(else_branch);
        }
    }

    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch) {
        self.visit_expr(&m.expr);
        for arm in &m.arms {
            self.scoped(|this| {
                this.bind(&arm.pat);
                if let Some((_, guard)) = &arm.guard {
                    this.visit_expr(guard);
                }
                this.visit_expr(&arm.body);
            });
        }
    }

    pub(super) fn labeled_block(&mut self, b: &syn::ExprBlock) {
        self.with_label(b.label.as_ref(), |this| this.visit_block(&b.block));
    }

    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        self.in_loop(f.label.as_ref(), |this| {
            this.scoped(|this| {
                this.bind(&f.pat);
                this.visit_block(&f.body);
            });
        });
    }

    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile) {
        self.in_loop(w.label.as_ref(), |this| {
            this.scoped(|this| {
                this.visit_expr(&w.cond);
                this.visit_block(&w.body);
            });
        });
    }

    pub(super) fn loop_expr(&mut self, l: &syn::ExprLoop) {
        self.in_loop(l.label.as_ref(), |this| this.visit_block(&l.body));
    }

    fn in_loop(&mut self, label: Option<&syn::Label>, f: impl FnOnce(&mut Self)) {
        self.loops += 1;
        self.with_label(label, f);
        self.loops -= 1;
    }

    fn with_label(&mut self, label: Option<&syn::Label>, f: impl FnOnce(&mut Self)) {
        if let Some(label) = label {
            self.labels.push(key(&label.name.ident));
        }
        f(self);
        if label.is_some() {
            self.labels.pop();
        }
    }
}
