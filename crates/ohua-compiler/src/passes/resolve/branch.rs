//! `if` and `match`: arms as regions, changed bindings merged by phi outputs.

use proc_macro2::Span;

use super::Resolver;
use crate::error::Result;
use crate::frontend::ast::{Arm, Block, Expr};
use crate::ir::{Code, Input, NodeOp, Op, Region, Use, VarId};
use crate::passes::env::Slot;
use crate::passes::scan;

/// Resolves one arm body (plain or in tail position).
pub(crate) type ArmBody<'f, 'r> = dyn FnMut(&mut Resolver<'r>, &Expr, bool) -> Result<Option<VarId>> + 'f;

/// One arm of a branch, resolved on demand.
pub(crate) type ArmFn<'f, 'r> = Box<dyn FnOnce(&mut Resolver<'r>) -> Result<Option<VarId>> + 'f>;

impl<'r> Resolver<'r> {
    /// The arm selector of an `if` condition.
    pub(crate) fn selector(&mut self, cond: &Expr) -> Result<VarId> {
        let span = expr_span(cond);
        let (expr, inputs) = match cond {
            Expr::Node(n) => (n.expr.clone(), self.node_inputs(n, None)?),
            other => {
                let v = self.value(other)?;
                let ident = self.ident(v);
                (syn::parse_quote!(#ident), vec![Input { var: v, ident, usage: Use::Read }])
            }
        };
        let sel = self.temp("sel", span);
        let name = self.site_name("if");
        self.emit(NodeOp { name, code: Code::IfSelector(expr), inputs, outputs: vec![sel], span });
        Ok(sel)
    }

    /// Resolve arms of a branch on `sel`; merges every binding an arm changed.
    pub(crate) fn branch(
        &mut self,
        sel: VarId,
        arms: Vec<ArmFn<'_, 'r>>,
        want: bool,
        span: Span,
    ) -> Result<Option<VarId>> {
        self.branch_merging(sel, arms, want, span, true)
    }

    /// Like [`Resolver::branch`]; with `merge == false` bindings the arms
    /// change are not merged (loop bodies whose values leave through a flow).
    pub(crate) fn branch_merging(
        &mut self,
        sel: VarId,
        arms: Vec<ArmFn<'_, 'r>>,
        want: bool,
        span: Span,
        merge: bool,
    ) -> Result<Option<VarId>> {
        let before = self.env.clone();
        let mut done = Vec::new();
        for arm in arms {
            self.env = before.clone();
            let (ops, value) = self.region(arm)?;
            done.push((ops, value, self.env.clone()));
        }
        self.env = before.clone();
        let mut changed = Vec::new();
        for (_, _, env) in done.iter().filter(|_| merge) {
            for pos in env.changed_since(&before) {
                if !changed.contains(&pos) {
                    changed.push(pos);
                }
            }
        }
        let value_out = if want { Some(self.temp("v", span)) } else { None };
        let mut outs: Vec<VarId> = value_out.into_iter().collect();
        let mut arms_ir = Vec::new();
        for (ops, value, env) in done {
            let mut yields: Vec<VarId> = Vec::new();
            if want {
                yields.push(value.expect("arm value wanted"));
            }
            for pos in &changed {
                yields.push(match env.get(*pos) {
                    Slot::Plain { var, .. } => var,
                    Slot::Resident { outer, .. } => outer,
                });
            }
            arms_ir.push(Region { ops, yields });
        }
        for pos in &changed {
            let name = self.env.name(*pos).to_string();
            let out = self.temp(&name, span);
            outs.push(out);
            let state = matches!(self.env.get(*pos), Slot::Plain { state: true, .. });
            self.env.set(*pos, Slot::Plain { var: out, state });
        }
        self.ops.push(Op::Branch { sel, arms: arms_ir, outs, span });
        Ok(value_out)
    }

    /// `if cond { then } else { else_ }`.
    pub(crate) fn if_expr(
        &mut self,
        cond: &Expr,
        then: &Block,
        else_: Option<&Expr>,
        span: Span,
        want: bool,
    ) -> Result<Option<VarId>> {
        let sel = self.selector(cond)?;
        let arms: Vec<ArmFn<'_, 'r>> = vec![
            Box::new(move |r: &mut Resolver<'r>| r.block(then, want)),
            Box::new(move |r: &mut Resolver<'r>| match else_ {
                Some(e) => r.expr(e, want),
                None => Ok(if want { Some(r.unit(span)) } else { None }),
            }),
        ];
        self.branch(sel, arms, want, span)
    }

    /// The dispatching node of a `match`: arm index plus each arm's bindings.
    pub(crate) fn dispatch(
        &mut self,
        scrutinee: &Expr,
        arms: &[Arm],
        span: Span,
    ) -> Result<(VarId, Vec<Option<VarId>>)> {
        let (expr, mut inputs) = match scrutinee {
            Expr::Node(n) => (n.expr.clone(), self.node_inputs(n, None)?),
            other => {
                let v = self.value(other)?;
                let ident = self.ident(v);
                (syn::parse_quote!(#ident), vec![Input { var: v, ident, usage: Use::Read }])
            }
        };
        for arm in arms {
            // Names the arm's own pattern binds are not outer locals.
            let outer = arm.guard.iter().flat_map(|g| &g.uses).filter(|u| !arm.bindings.contains(&u.name));
            for u in outer {
                if !inputs.iter().any(|i| i.ident == u.name) {
                    let var = self.current(&u.name)?;
                    inputs.push(Input { var, ident: u.name.clone(), usage: Use::Read });
                }
            }
        }
        let sel = self.temp("sel", span);
        let mut outputs = vec![sel];
        let mut per_arm = Vec::new();
        for arm in arms {
            if arm.bindings.is_empty() {
                per_arm.push(None);
            } else {
                let v = self.temp("arm", arm.span);
                outputs.push(v);
                per_arm.push(Some(v));
            }
        }
        let code = Code::MatchDispatch {
            scrutinee: expr,
            arms: arms
                .iter()
                .map(|a| (a.pat.clone(), a.guard.as_ref().map(|g| g.expr.clone()), a.bindings.clone()))
                .collect(),
        };
        let name = self.site_name("match");
        self.emit(NodeOp { name, code, inputs, outputs, span });
        Ok((sel, per_arm))
    }

    /// `match scrutinee { arms }`.
    pub(crate) fn match_expr(
        &mut self,
        scrutinee: &Expr,
        arms: &[Arm],
        span: Span,
        want: bool,
    ) -> Result<Option<VarId>> {
        self.match_with(scrutinee, arms, span, want, true, &mut |r, body, want| r.expr(body, want))
    }

    /// A `match` whose arm bodies are resolved by `body` (plain or tail position).
    /// `merge` as in [`Resolver::branch_merging`]: a tail-position match of a
    /// recursive algorithm passes its values on in the flow value, not as phis.
    pub(crate) fn match_with(
        &mut self,
        scrutinee: &Expr,
        arms: &[Arm],
        span: Span,
        want: bool,
        merge: bool,
        body: &mut ArmBody<'_, 'r>,
    ) -> Result<Option<VarId>> {
        let (sel, bound) = self.dispatch(scrutinee, arms, span)?;
        let body = std::cell::RefCell::new(body);
        let mut fns: Vec<ArmFn<'_, 'r>> = Vec::new();
        for (k, (arm, opt)) in arms.iter().zip(bound).enumerate() {
            let body = &body;
            fns.push(Box::new(move |r: &mut Resolver<'r>| {
                r.env.push_scope();
                if let Some(opt) = opt {
                    let mut outputs = Vec::new();
                    for b in &arm.bindings {
                        let v = r.fresh(b);
                        let state = scan::scan_stmts(&[], Some(&arm.body), &b.to_string()).mutated();
                        r.env.bind(b.to_string(), Slot::Plain { var: v, state });
                        outputs.push(v);
                    }
                    let ident = r.ident(opt);
                    let name = r.site_name("bind");
                    let input = Input { var: opt, ident, usage: Use::Read };
                    r.emit(NodeOp { name, code: Code::Unwrap(k), inputs: vec![input], outputs, span: arm.span });
                }
                let v = (body.borrow_mut())(r, &arm.body, want);
                r.env.pop_scope();
                v
            }));
        }
        self.branch_merging(sel, fns, want, span, merge)
    }
}

/// Span of a structural expression.
pub(crate) fn expr_span(e: &Expr) -> Span {
    match e {
        Expr::Node(n) => syn::spanned::Spanned::span(&n.expr),
        Expr::Block(b) => b.span,
        Expr::If { span, .. }
        | Expr::Match { span, .. }
        | Expr::For { span, .. }
        | Expr::While { span, .. }
        | Expr::MapCollect { span, .. }
        | Expr::AlgoCall { span, .. } => *span,
    }
}
