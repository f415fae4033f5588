//! Calls between algorithms: inlining, and tail recursion turned into loops.

use proc_macro2::Span;

use super::branch::ArmFn;
use super::Resolver;
use crate::error::{CompileError, Result};
use crate::frontend::ast::{Algorithm, Block, Expr, Pattern, Stmt};
use crate::ir::{Carried, Code, Input, NodeOp, Op, Region, Use, VarId};

/// Whether the algorithm calls itself anywhere.
fn is_recursive(alg: &Algorithm) -> bool {
    fn expr(e: &Expr, name: &syn::Ident) -> bool {
        match e {
            Expr::Node(_) => false,
            Expr::Block(b) => block(b, name),
            Expr::If { cond, then, else_, .. } => {
                expr(cond, name) || block(then, name) || else_.as_deref().is_some_and(|e| expr(e, name))
            }
            Expr::Match { scrutinee, arms, .. } => expr(scrutinee, name) || arms.iter().any(|a| expr(&a.body, name)),
            Expr::For { iter, body, .. } => expr(iter, name) || block(body, name),
            Expr::While { cond, body, .. } => expr(cond, name) || block(body, name),
            Expr::MapCollect { iter, body, .. } => expr(iter, name) || expr(body, name),
            Expr::AlgoCall { name: n, args, .. } => n == name || args.iter().any(|a| expr(a, name)),
        }
    }
    fn block(b: &Block, name: &syn::Ident) -> bool {
        b.stmts.iter().any(|s| match s {
            Stmt::Let { init, .. } => expr(init, name),
            Stmt::Assign { value, .. } => expr(value, name),
            Stmt::Expr { expr: e, .. } => expr(e, name),
        }) || b.tail.as_deref().is_some_and(|t| expr(t, name))
    }
    block(&alg.body, &alg.name)
}

impl<'r> Resolver<'r> {
    /// The top-level body: a loop if the algorithm is tail recursive.
    pub(crate) fn algorithm_body(&mut self, alg: &'r Algorithm) -> Result<VarId> {
        self.inlining.push(alg.name.to_string());
        let v = if is_recursive(alg) {
            let inits = alg.params.iter().map(|p| self.pattern_value(&p.pat)).collect::<Result<Vec<_>>>()?;
            self.recursive_loop(alg, inits)
        } else {
            Ok(self.block(&alg.body, true)?.expect("wanted"))
        };
        self.inlining.pop();
        v
    }

    /// The value of a parameter pattern (re-packing tuple patterns).
    fn pattern_value(&mut self, p: &Pattern) -> Result<VarId> {
        match p {
            Pattern::Ident { name, .. } => self.current(name),
            Pattern::Tuple(ps, span) => {
                let vars = ps.iter().map(|p| self.pattern_value(p)).collect::<Result<Vec<_>>>()?;
                let out = self.temp("param", *span);
                let inputs = vars.iter().map(|v| Input { var: *v, ident: self.ident(*v), usage: Use::Read }).collect();
                let name = self.site_name("pack");
                self.emit(NodeOp { name, code: Code::Pack, inputs, outputs: vec![out], span: *span });
                Ok(out)
            }
            Pattern::Wild(span) => Err(CompileError::unsupported(
                *span,
                "a `_` parameter in a recursive algorithm",
                "give the parameter a name",
            )),
        }
    }

    /// `name(args)` where `name` is an algorithm: inline it.
    pub(crate) fn algo_call(&mut self, name: &syn::Ident, args: &[Expr], span: Span) -> Result<VarId> {
        let callee = self
            .algorithms
            .get(&name.to_string())
            .ok_or_else(|| CompileError::invalid(name.span(), format!("`{name}` is not a known algorithm")))?;
        if self.inlining.iter().any(|n| n == &name.to_string()) {
            return Err(CompileError::unsupported(
                span,
                format!("this call to `{name}` (recursion that is not a tail call, or recursion between different algorithms)"),
                "only an algorithm calling itself in tail position is supported: make the recursive call the last thing every branch does",
            ));
        }
        if callee.params.len() != args.len() {
            return Err(CompileError::invalid(
                span,
                format!("`{name}` takes {} arguments but {} were given", callee.params.len(), args.len()),
            ));
        }
        let values = args.iter().map(|a| self.value(a)).collect::<Result<Vec<_>>>()?;
        let barrier = self.env.push_barrier();
        self.env.push_scope();
        self.prefix.push(name.to_string());
        self.inlining.push(name.to_string());
        let result = (|| {
            if is_recursive(callee) {
                self.recursive_loop(callee, values)
            } else {
                for (p, v) in callee.params.iter().zip(&values) {
                    self.bind_value(&p.pat, None, *v, &callee.body.stmts, callee.body.tail.as_deref(), span);
                }
                Ok(self.block(&callee.body, true)?.expect("wanted"))
            }
        })();
        self.inlining.pop();
        self.prefix.pop();
        self.env.pop_scope();
        self.env.pop_barrier(barrier);
        result
    }

    /// A tail-recursive algorithm as a loop carrying its parameters.
    fn recursive_loop(&mut self, alg: &'r Algorithm, inits: Vec<VarId>) -> Result<VarId> {
        let span = alg.body.span;
        let carried: Vec<Carried> = inits
            .iter()
            .map(|v| {
                let ident = self.ident(*v);
                let inner = self.fresh(&ident);
                Carried { init: *v, inner, after: inner }
            })
            .collect();
        let (ops, flow) = self.region(|r| {
            let barrier = r.env.push_barrier();
            r.env.push_scope();
            for (p, c) in alg.params.iter().zip(&carried) {
                r.bind_value(&p.pat, None, c.inner, &alg.body.stmts, alg.body.tail.as_deref(), span);
            }
            let flow = r.tail_block(&alg.body, alg);
            r.env.pop_scope();
            r.env.pop_barrier(barrier);
            flow
        })?;
        let result = self.temp("result", span);
        self.ops.push(Op::Loop { carried, body: Region { ops, yields: vec![flow] }, outs: vec![result], span });
        Ok(result)
    }

    /// A block in tail position of a recursive algorithm; returns the flow value.
    fn tail_block(&mut self, b: &Block, alg: &'r Algorithm) -> Result<VarId> {
        self.env.push_scope();
        let r = (|| {
            self.stmts(&b.stmts, None, false, b.span)?;
            match b.tail.as_deref() {
                Some(t) => self.tail_expr(t, alg),
                None => {
                    let u = self.unit(b.span);
                    Ok(self.flow(Code::Break, &[u], b.span))
                }
            }
        })();
        self.env.pop_scope();
        r
    }

    /// An expression in tail position: `alg(..)` continues, anything else breaks.
    fn tail_expr(&mut self, e: &Expr, alg: &'r Algorithm) -> Result<VarId> {
        match e {
            Expr::AlgoCall { name, args, span } if name == &alg.name => {
                if args.len() != alg.params.len() {
                    return Err(CompileError::invalid(
                        *span,
                        format!("`{name}` takes {} arguments but {} were given", alg.params.len(), args.len()),
                    ));
                }
                let values = args.iter().map(|a| self.value(a)).collect::<Result<Vec<_>>>()?;
                Ok(self.flow(Code::Continue, &values, *span))
            }
            Expr::Block(b) => self.tail_block(b, alg),
            Expr::If { cond, then, else_, span } => {
                let sel = self.selector(cond)?;
                let span = *span;
                let else_ = else_.as_deref();
                let arms: Vec<ArmFn<'_, 'r>> = vec![
                    Box::new(move |r: &mut Resolver<'r>| r.tail_block(then, alg).map(Some)),
                    Box::new(move |r: &mut Resolver<'r>| match else_ {
                        Some(e) => r.tail_expr(e, alg).map(Some),
                        None => {
                            let u = r.unit(span);
                            Ok(Some(r.flow(Code::Break, &[u], span)))
                        }
                    }),
                ];
                Ok(self.branch_merging(sel, arms, true, span, false)?.expect("flow"))
            }
            Expr::Match { scrutinee, arms, span } => {
                let v = self.match_with(scrutinee, arms, *span, true, false, &mut |r, body, _| {
                    r.tail_expr(body, alg).map(Some)
                })?;
                Ok(v.expect("flow"))
            }
            other => {
                let v = self.value(other)?;
                Ok(self.flow(Code::Break, &[v], expr_span_of(other)))
            }
        }
    }
}

fn expr_span_of(e: &Expr) -> Span {
    super::branch::expr_span(e)
}
