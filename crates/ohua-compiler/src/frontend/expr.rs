//! Structural expressions: decides, for every expression at statement level,
//! whether it is structure the compiler translates (blocks, branches, loops,
//! collecting maps, algorithm calls) or an opaque node.

use syn::spanned::Spanned;

use super::ast::{Block, Expr, NodeExpr};
use super::block::empty_block;
use super::scope::key;
use super::syntax::{check_attrs, expr_attrs, unparen};
use super::{messages, uses, Frontend};
use crate::error::{CompileError, Result};

impl Frontend<'_> {
    /// Parses an expression in the current scope. `tail` says whether its
    /// value is the value of the enclosing function, where `return` may be
    /// desugared into the plain value.
    pub(super) fn parse_expr(&mut self, expr: &syn::Expr, tail: bool) -> Result<Expr> {
        check_attrs(expr_attrs(expr))?;
        // Parentheses around structure do not change its meaning.
        let expr = unparen(expr);
        match expr {
            syn::Expr::Block(b) => {
                if let Some(label) = &b.label {
                    return Err(CompileError::unsupported(
                        label.span(),
                        "a labeled block",
                        "remove the label; leaving a block early with `break 'label` is not \
                         supported, use if/else instead",
                    ));
                }
                Ok(Expr::Block(self.parse_block(&b.block, tail)?))
            }
            syn::Expr::If(i) => self.parse_if(i, tail),
            syn::Expr::Match(m) => self.parse_match(m, tail),
            syn::Expr::ForLoop(f) => self.parse_for(f),
            syn::Expr::While(w) => self.parse_while(w),
            syn::Expr::Loop(l) => Err(CompileError::unsupported(
                l.span(),
                "`loop`",
                "use `while cond { .. }` with an explicit condition (a `bool` flag if needed)",
            )),
            syn::Expr::Break(b) => Err(messages::loop_jump(b.span(), "break")),
            syn::Expr::Continue(c) => Err(messages::loop_jump(c.span(), "continue")),
            syn::Expr::Return(r) if tail => match &r.expr {
                Some(value) => self.parse_expr(value, true),
                None => Ok(Expr::Block(empty_block(r.span()))),
            },
            syn::Expr::Return(r) => Err(messages::early_return(r.span())),
            syn::Expr::Assign(_) | syn::Expr::Binary(_) => match self.local_assign(expr)? {
                // An assignment used as an expression (an arm body) has the value `()`.
                Some(stmt) => Ok(Expr::Block(Block { stmts: vec![stmt], tail: None, span: expr.span() })),
                None => self.node_expr(expr),
            },
            syn::Expr::MethodCall(m) => match self.parse_map_collect(m)? {
                Some(map) => Ok(map),
                None => self.node_expr(expr),
            },
            syn::Expr::Call(c) => match self.parse_algo_call(c)? {
                Some(call) => Ok(call),
                None => self.node_expr(expr),
            },
            _ => self.node_expr(expr),
        }
    }

    /// An opaque node with its uses of the locals in scope.
    pub(super) fn node(&self, expr: &syn::Expr) -> Result<NodeExpr> {
        uses::analyze(expr, &self.scope, self.algorithms, &self.sources)
    }

    fn node_expr(&self, expr: &syn::Expr) -> Result<Expr> {
        Ok(Expr::Node(self.node(expr)?))
    }

    /// Whether `ident` names an algorithm local at this point.
    pub(super) fn is_local(&self, ident: &syn::Ident) -> bool {
        self.scope.contains(&key(ident))
    }

    /// Runs `f` in a fresh nested scope.
    pub(super) fn in_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scope.push();
        let result = f(self);
        self.scope.pop();
        result
    }

    /// `f(args)` where `f` names an algorithm and is not shadowed by a local.
    fn parse_algo_call(&mut self, call: &syn::ExprCall) -> Result<Option<Expr>> {
        let syn::Expr::Path(func) = unparen(&call.func) else { return Ok(None) };
        let path = &func.path;
        if func.qself.is_some() || path.leading_colon.is_some() || path.segments.len() != 1 {
            return Ok(None);
        }
        let segment = &path.segments[0];
        let name = key(&segment.ident);
        if self.is_local(&segment.ident) || !self.algorithms.iter().any(|a| key(a) == name) {
            return Ok(None);
        }
        if !segment.arguments.is_none() {
            return Err(CompileError::unsupported(
                segment.arguments.span(),
                "explicit generic arguments on an algorithm call",
                "remove them and let rustc infer the types (annotate a `let` if needed)",
            ));
        }
        let args = call.args.iter().map(|a| self.parse_expr(a, false)).collect::<Result<_>>()?;
        Ok(Some(Expr::AlgoCall { name: segment.ident.clone(), args, span: call.span() }))
    }
}
