//! Use analysis of opaque expressions: which algorithm locals a node refers
//! to, and which of them it may mutate.
//!
//! A `syn::visit::Visit` walk keeps its own stack of scopes for names bound
//! *inside* the expression (closure parameters, inner `let`s, match arms,
//! `if let`, inner loops), so those shadow algorithm locals correctly. The
//! same walk rejects constructs that would escape the node: `return`, `?`,
//! `.await`, `async`, `yield`, and `break`/`continue` aimed at an algorithm
//! loop (each allowed inside a closure, where it belongs to the closure),
//! and calls of algorithms, which must be structural to join the graph.

mod control;
mod format_string;
mod macros;
mod mutation;
mod scoping;

use syn::visit::Visit;

use super::ast::{NodeExpr, VarUse};
use super::scope::{key, Scope};
use crate::error::{CompileError, Result};

/// Analyses `expr` against the algorithm locals in `scope`; `algorithms`
/// are the names that denote algorithms when called.
pub(crate) fn analyze(
    expr: &syn::Expr,
    scope: &Scope,
    algorithms: &[syn::Ident],
    sources: &[String],
) -> Result<NodeExpr> {
    let mut collector = Collector {
        outer: scope,
        algorithms,
        sources,
        inner: vec![Vec::new()],
        uses: Vec::new(),
        error: None,
        loops: 0,
        labels: Vec::new(),
        closures: 0,
    };
    collector.visit_expr(expr);
    match collector.error {
        Some(error) => Err(error),
        None => Ok(NodeExpr { expr: expr.clone(), uses: collector.uses }),
    }
}

/// The walk's state.
struct Collector<'a> {
    /// Algorithm locals in scope around the expression.
    outer: &'a Scope,
    /// Names that denote algorithms when called and not shadowed.
    algorithms: &'a [syn::Ident],
    /// Parameters that are data source handles: their `fetch` must be a
    /// statement of its own (`frontend/fetch.rs`).
    sources: &'a [String],
    /// Names bound inside the expression, innermost last.
    inner: Vec<Vec<String>>,
    /// Uses found so far, in order of first occurrence.
    uses: Vec<VarUse>,
    /// The first construct that cannot be part of a node.
    error: Option<CompileError>,
    /// Loops inside the expression enclosing the current point (reset in closures).
    loops: usize,
    /// Labels of loops and blocks inside the expression enclosing the current point.
    labels: Vec<String>,
    /// Closures enclosing the current point.
    closures: usize,
}

impl Collector<'_> {
    /// A `src.fetch(..)` or `src.write(..)` on a data source parameter
    /// inside an expression: the compiler batches only fetches (and orders
    /// only writes) that are statements of their own.
    fn nested_fetch(&mut self, m: &syn::ExprMethodCall) {
        let syn::Expr::Path(p) = &*m.receiver else { return };
        let Some(src) = p.path.get_ident() else { return };
        if (m.method == "fetch" || m.method == "write")
            && self.is_local(src)
            && self.sources.iter().any(|s| src == s)
            && self.error.is_none()
        {
            self.error = Some(crate::frontend::fetch::nested_fetch_error(m));
        }
    }

    /// Whether `ident` refers to an algorithm local (and is not shadowed by a
    /// binding inside the expression).
    fn is_local(&self, ident: &syn::Ident) -> bool {
        let name = key(ident);
        !self.inner.iter().any(|frame| frame.contains(&name)) && self.outer.contains(&name)
    }

    /// Records a reference to `ident` if it is an algorithm local.
    fn record(&mut self, ident: &syn::Ident, mutated: bool) {
        if !self.is_local(ident) {
            return;
        }
        let name = key(ident);
        match self.uses.iter_mut().find(|u| key(&u.name) == name) {
            Some(existing) => existing.mutated |= mutated,
            None => self.uses.push(VarUse { name: ident.clone(), mutated }),
        }
    }

    /// Keeps the first error: it is the earliest in source order.
    fn fail(&mut self, error: CompileError) {
        self.error.get_or_insert(error);
    }

    /// Binds the names of `pat` in the innermost inner scope.
    fn bind(&mut self, pat: &syn::Pat) {
        let names = super::pattern::binders(pat).into_iter().map(|b| key(&b.ident));
        if let Some(frame) = self.inner.last_mut() {
            frame.extend(names);
        }
    }

    /// Runs `f` in a fresh inner scope.
    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.inner.push(Vec::new());
        f(self);
        self.inner.pop();
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        // Multi-segment paths, `<T>::x` and `f::<T>` are never locals.
        if p.qself.is_none() {
            if let Some(ident) = p.path.get_ident() {
                self.record(ident, false);
            }
        }
    }
    // Patterns and types cannot refer to locals; binders are handled where
    // they scope. Nested items cannot capture locals.
    fn visit_pat(&mut self, _: &'ast syn::Pat) {}
    fn visit_type(&mut self, _: &'ast syn::Type) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.nested_fetch(m);
        self.method_call(m);
    }
    fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
        self.reference(r);
    }
    fn visit_expr_raw_addr(&mut self, r: &'ast syn::ExprRawAddr) {
        self.raw_addr(r);
    }
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.assign(a);
    }
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        self.binary(b);
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        self.algorithm_call(c);
        self.call(c);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.closure(c);
    }
    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.block(b);
    }
    fn visit_local(&mut self, l: &'ast syn::Local) {
        self.local(l);
    }
    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        self.let_expr(l);
    }
    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        self.if_expr(i);
    }
    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.match_expr(m);
    }
    fn visit_expr_block(&mut self, b: &'ast syn::ExprBlock) {
        self.labeled_block(b);
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.for_loop(f);
    }
    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        self.while_loop(w);
    }
    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        self.loop_expr(l);
    }

    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        self.break_expr(b);
    }
    fn visit_expr_continue(&mut self, c: &'ast syn::ExprContinue) {
        self.continue_expr(c);
    }
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.return_expr(r);
    }
    fn visit_expr_try(&mut self, t: &'ast syn::ExprTry) {
        self.try_expr(t);
    }
    fn visit_expr_await(&mut self, a: &'ast syn::ExprAwait) {
        self.await_expr(a);
    }
    fn visit_expr_async(&mut self, a: &'ast syn::ExprAsync) {
        self.async_block(a);
    }
    fn visit_expr_yield(&mut self, y: &'ast syn::ExprYield) {
        self.yield_expr(y);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.macro_call(m);
    }
}
