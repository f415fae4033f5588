//! Resolution: surface AST → SSA IR.
//!
//! Walks the algorithm once, keeping an [`Env`] from names to the current SSA
//! version. Every statement-level expression becomes a [`NodeOp`]; a use of a
//! state object threads it (the node defines its next version). Blocks open
//! scopes; branches merge changed bindings with phi outputs; loops get
//! explicit carried variables, except state objects used at exactly one call
//! site inside the loop, which stay resident in that operator.

mod branch;
mod calls;
mod loops;
mod node;

use std::collections::HashMap;

use proc_macro2::Span;
use quote::format_ident;

use super::env::{Env, Slot};
use super::scan;
use crate::error::Result;
use crate::frontend::ast::{Algorithm, Block, Expr, Pattern, Stmt};
use crate::ir::{Code, Ir, NodeOp, Op, Region, VarId, VarInfo};

/// Resolve the algorithm `name`; `algorithms` holds it and every algorithm it may call.
///
/// # Panics
///
/// Panics if `name` is not in `algorithms`.
///
/// # Errors
///
/// Non-tail recursion, recursion between different algorithms, and calls with
/// the wrong number of arguments.
pub fn resolve(name: &str, algorithms: &HashMap<String, Algorithm>) -> Result<Ir> {
    let alg = &algorithms[name];
    let mut r = Resolver {
        algorithms,
        vars: Vec::new(),
        ops: Vec::new(),
        env: Env::default(),
        sites: 0,
        prefix: vec![alg.name.to_string()],
        inlining: Vec::new(),
    };
    r.env.push_scope();
    let mut params = Vec::new();
    for p in &alg.params {
        r.bind_pattern_fresh(&p.pat, &alg.body.stmts, alg.body.tail.as_deref(), &mut params);
    }
    let result = r.algorithm_body(alg)?;
    let ops = std::mem::take(&mut r.ops);
    Ok(Ir { name: alg.name.to_string(), vars: r.vars, params, body: Region { ops, yields: vec![result] } })
}

pub(crate) struct Resolver<'a> {
    algorithms: &'a HashMap<String, Algorithm>,
    vars: Vec<VarInfo>,
    /// Operations of the region being built.
    ops: Vec<Op>,
    env: Env,
    sites: u32,
    /// Algorithm names for operator names (`outer/inlined`).
    prefix: Vec<String>,
    /// Algorithms being inlined, to reject recursion that is not a tail call.
    inlining: Vec<String>,
}

impl Resolver<'_> {
    /// A fresh SSA value named after `ident`.
    pub(crate) fn fresh(&mut self, ident: &syn::Ident) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(VarInfo { name: ident.to_string(), ident: ident.clone() });
        id
    }

    /// A fresh compiler temporary.
    pub(crate) fn temp(&mut self, what: &str, span: Span) -> VarId {
        let ident = format_ident!("__ohua_{}{}", what, self.vars.len(), span = span);
        let id = VarId(self.vars.len() as u32);
        self.vars.push(VarInfo { name: what.to_string(), ident });
        id
    }

    pub(crate) fn ident(&self, v: VarId) -> syn::Ident {
        self.vars[v.0 as usize].ident.clone()
    }

    /// A stable operator name for a call site.
    pub(crate) fn site_name(&mut self, function: &str) -> String {
        self.sites += 1;
        format!("{}/{}#{}", self.prefix.join("/"), function, self.sites)
    }

    pub(crate) fn emit(&mut self, op: NodeOp) {
        self.ops.push(Op::Node(op));
    }

    /// Run `f` collecting the operations it emits into a separate region.
    pub(crate) fn region<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<(Vec<Op>, T)> {
        let saved = std::mem::take(&mut self.ops);
        let out = f(self);
        let ops = std::mem::replace(&mut self.ops, saved);
        Ok((ops, out?))
    }

    /// Bind every identifier of `pat` to a fresh value, deciding state-ness by
    /// scanning the binding's scope.
    pub(crate) fn bind_pattern_fresh(
        &mut self,
        pat: &Pattern,
        scope: &[Stmt],
        tail: Option<&Expr>,
        out: &mut Vec<VarId>,
    ) {
        match pat {
            Pattern::Ident { name, .. } => {
                let v = self.fresh(name);
                let state = scan::scan_stmts(scope, tail, &name.to_string()).mutated();
                self.env.bind(name.to_string(), Slot::Plain { var: v, state });
                out.push(v);
            }
            Pattern::Tuple(ps, _) => ps.iter().for_each(|p| self.bind_pattern_fresh(p, scope, tail, out)),
            Pattern::Wild(_) => {}
        }
    }

    /// Bind `name` to an existing value (aliases, unpacked values).
    pub(crate) fn bind_existing(&mut self, name: &syn::Ident, v: VarId, scope: &[Stmt], tail: Option<&Expr>) {
        let state = scan::scan_stmts(scope, tail, &name.to_string()).mutated();
        self.env.bind(name.to_string(), Slot::Plain { var: v, state });
    }

    /// Where the visible local `name` is bound.
    pub(crate) fn position(&self, name: &syn::Ident) -> Result<crate::passes::env::Pos> {
        self.env
            .lookup(&name.to_string())
            .ok_or_else(|| crate::error::CompileError::invalid(name.span(), format!("unknown local `{name}`")))
    }

    /// The current version of a visible local.
    pub(crate) fn current(&self, name: &syn::Ident) -> Result<VarId> {
        let pos = self.position(name)?;
        Ok(match self.env.get(pos) {
            Slot::Plain { var, .. } => var,
            Slot::Resident { outer, .. } => outer,
        })
    }

    /// Resolve a block in a new scope; returns its value if `want`.
    pub(crate) fn block(&mut self, b: &Block, want: bool) -> Result<Option<VarId>> {
        self.env.push_scope();
        let r = self.stmts(&b.stmts, b.tail.as_deref(), want, b.span);
        self.env.pop_scope();
        r
    }

    /// Resolve statements and an optional tail in the current scope.
    pub(crate) fn stmts(
        &mut self,
        stmts: &[Stmt],
        tail: Option<&Expr>,
        want: bool,
        span: Span,
    ) -> Result<Option<VarId>> {
        for (i, st) in stmts.iter().enumerate() {
            let rest = &stmts[i + 1..];
            match st {
                Stmt::Let { pat, ty, init, .. } => self.let_stmt(pat, ty.as_ref(), init, rest, tail)?,
                Stmt::Assign { target, op, value, span } => self.assign(target, op.as_ref(), value, *span)?,
                Stmt::Expr { expr, .. } => {
                    self.expr(expr, false)?;
                }
            }
        }
        match tail {
            Some(t) => self.expr(t, want),
            None if want => Ok(Some(self.unit(span))),
            None => Ok(None),
        }
    }

    /// A node producing `()`.
    pub(crate) fn unit(&mut self, span: Span) -> VarId {
        let v = self.temp("unit", span);
        let name = self.site_name("unit");
        self.emit(NodeOp {
            name,
            code: Code::Const(syn::parse_quote_spanned!(span=> ())),
            inputs: vec![],
            outputs: vec![v],
            span,
        });
        v
    }

    /// Resolve a structural expression; returns its value if `want`.
    pub(crate) fn expr(&mut self, e: &Expr, want: bool) -> Result<Option<VarId>> {
        match e {
            Expr::Node(n) => self.node_expr(n, want),
            Expr::Block(b) => self.block(b, want),
            Expr::If { cond, then, else_, span } => self.if_expr(cond, then, else_.as_deref(), *span, want),
            Expr::Match { scrutinee, arms, span } => self.match_expr(scrutinee, arms, *span, want),
            Expr::For { pat, iter, body, span } => {
                self.for_loop(pat, iter, body, *span)?;
                Ok(if want { Some(self.unit(*span)) } else { None })
            }
            Expr::While { cond, body, span } => {
                self.while_loop(cond, body, *span)?;
                Ok(if want { Some(self.unit(*span)) } else { None })
            }
            Expr::MapCollect { iter, pat, body, collect_ty, span } => {
                self.map_collect(iter, pat, body, collect_ty.clone(), *span).map(Some)
            }
            Expr::AlgoCall { name, args, span } => self.algo_call(name, args, *span).map(Some),
        }
    }

    /// Resolve an expression whose value is needed.
    pub(crate) fn value(&mut self, e: &Expr) -> Result<VarId> {
        Ok(self.expr(e, true)?.expect("wanted value"))
    }
}
