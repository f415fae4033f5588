//! `for`, `map(..).collect()` and `while`: carried and resident variables.

use proc_macro2::Span;

use super::Resolver;
use crate::error::Result;
use crate::frontend::ast::{Block, Expr, Pattern};
use crate::ir::{Carried, Code, Input, NodeOp, Op, Region, Use, VarId};
use crate::passes::env::{Pos, Slot};
use crate::passes::scan::{self, UseStats};

/// How the bindings visible at a loop take part in it.
pub(crate) struct LoopVars {
    /// Carried around the loop: (binding, carried).
    pub carried: Vec<(Pos, Carried)>,
    /// Resident in their single call site: (binding, version after the loop).
    pub resident: Vec<(Pos, VarId)>,
}

impl Resolver<'_> {
    /// A fresh value with the same name as `v`.
    fn fresh_like(&mut self, v: VarId) -> VarId {
        let ident = self.ident(v);
        self.fresh(&ident)
    }

    /// Decide, for every visible binding the loop modifies, whether it is
    /// carried or resident, and rebind it for the loop body.
    pub(crate) fn classify(&mut self, stats: &dyn Fn(&str) -> UseStats, shadowed: &[String]) -> LoopVars {
        let mut lv = LoopVars { carried: Vec::new(), resident: Vec::new() };
        for pos in self.env.visible() {
            let name = self.env.name(pos).to_string();
            if shadowed.contains(&name) {
                continue;
            }
            let Slot::Plain { var, state } = self.env.get(pos) else { continue };
            let st = stats(&name);
            let modified = (state && st.nodes() > 0) || st.structural_assigns > 0;
            if !modified {
                continue;
            }
            if state && st.nodes() == 1 && st.other == 0 && st.structural_assigns == 0 {
                let after = self.fresh_like(var);
                self.env.set(pos, Slot::Resident { outer: var, after });
                lv.resident.push((pos, after));
            } else {
                let inner = self.fresh_like(var);
                let after = self.fresh_like(var);
                self.env.set(pos, Slot::Plain { var: inner, state });
                lv.carried.push((pos, Carried { init: var, inner, after }));
            }
        }
        lv
    }

    /// Current versions of the carried bindings (the body's next values).
    fn carried_now(&self, lv: &LoopVars) -> Vec<VarId> {
        lv.carried
            .iter()
            .map(|(pos, _)| match self.env.get(*pos) {
                Slot::Plain { var, .. } => var,
                Slot::Resident { outer, .. } => outer,
            })
            .collect()
    }

    /// After the loop, every modified binding has its after-loop version.
    fn leave_loop(&mut self, lv: &LoopVars, outs: Option<&[VarId]>) {
        for (k, (pos, c)) in lv.carried.iter().enumerate() {
            let after = outs.map(|o| o[k]).unwrap_or(c.after);
            let state = matches!(self.env.get(*pos), Slot::Plain { state: true, .. });
            self.env.set(*pos, Slot::Plain { var: after, state });
        }
        for (pos, after) in &lv.resident {
            self.env.set(*pos, Slot::Plain { var: *after, state: true });
        }
    }

    /// Bind a loop pattern to the element value (unpacking tuples in a node).
    fn bind_element(&mut self, pat: &Pattern, scope: &Block, span: Span) -> VarId {
        match pat {
            Pattern::Ident { name, .. } => {
                let v = self.fresh(name);
                self.bind_existing(name, v, &scope.stmts, scope.tail.as_deref());
                v
            }
            _ => {
                let v = self.temp("elem", span);
                self.bind_value(pat, None, v, &scope.stmts, scope.tail.as_deref(), span);
                v
            }
        }
    }

    /// `for pat in iter { body }`.
    pub(crate) fn for_loop(&mut self, pat: &Pattern, iter: &Expr, body: &Block, span: Span) -> Result<()> {
        let coll = self.value(&capturing_by_value(iter))?;
        let shadowed = pattern_names(pat);
        let lv = self.classify(&|n| scan::scan_block(body, n), &shadowed);
        let (ops, (elem, yields)) = self.region(|r| {
            r.env.push_scope();
            let elem = r.bind_element(pat, body, span);
            let out = r.block(body, false);
            r.env.pop_scope();
            out?;
            Ok((elem, r.carried_now(&lv)))
        })?;
        let carried: Vec<Carried> = lv.carried.iter().map(|(_, c)| *c).collect();
        self.ops.push(Op::For { coll, elem, carried, collect: None, body: Region { ops, yields }, span });
        self.leave_loop(&lv, None);
        Ok(())
    }

    /// `iter.map(|pat| body).collect::<ty>()`.
    pub(crate) fn map_collect(
        &mut self,
        iter: &Expr,
        pat: &Pattern,
        body: &Expr,
        ty: Option<syn::Type>,
        span: Span,
    ) -> Result<VarId> {
        let coll = self.value(&capturing_by_value(iter))?;
        let shadowed = pattern_names(pat);
        let lv = self.classify(&|n| scan::scan_expr(body, n), &shadowed);
        let scope = Block { stmts: vec![], tail: Some(Box::new(body.clone())), span };
        let (ops, (elem, yields)) = self.region(|r| {
            r.env.push_scope();
            let elem = r.bind_element(pat, &scope, span);
            let item = r.value(body);
            r.env.pop_scope();
            let mut yields = r.carried_now(&lv);
            yields.push(item?);
            Ok((elem, yields))
        })?;
        let result = self.temp("collected", span);
        let carried: Vec<Carried> = lv.carried.iter().map(|(_, c)| *c).collect();
        let body = Region { ops, yields };
        self.ops.push(Op::For { coll, elem, carried, collect: Some((result, ty)), body, span });
        self.leave_loop(&lv, None);
        Ok(result)
    }

    /// `while cond { body }`: a loop whose body yields `Continue`/`Break`.
    pub(crate) fn while_loop(&mut self, cond: &Expr, body: &Block, span: Span) -> Result<()> {
        let lv = self.classify(
            &|n| {
                let mut s = scan::scan_expr(cond, n);
                let b = scan::scan_block(body, n);
                s.mutating_nodes += b.mutating_nodes;
                s.reading_nodes += b.reading_nodes;
                s.other += b.other;
                s.structural_assigns += b.structural_assigns;
                s
            },
            &[],
        );
        let (ops, flow) = self.region(|r| {
            let sel = r.selector(cond)?;
            let lv = &lv;
            let arms: Vec<super::branch::ArmFn<'_, '_>> = vec![
                Box::new(move |r: &mut Resolver<'_>| {
                    r.block(body, false)?;
                    let now = r.carried_now(lv);
                    Ok(Some(r.flow(Code::Continue, &now, span)))
                }),
                Box::new(move |r: &mut Resolver<'_>| {
                    let now = r.carried_now(lv);
                    Ok(Some(r.flow(Code::Break, &now, span)))
                }),
            ];
            // Carried values travel in the flow value, not as phi outputs.
            let before = r.env.clone();
            let flow = r.branch_merging(sel, arms, true, span, false)?;
            r.env = before;
            Ok(flow.expect("flow value"))
        })?;
        let carried: Vec<Carried> = lv.carried.iter().map(|(_, c)| *c).collect();
        let outs: Vec<VarId> = carried.iter().map(|c| c.after).collect();
        self.ops.push(Op::Loop { carried, body: Region { ops, yields: vec![flow] }, outs, span });
        self.leave_loop(&lv, None);
        Ok(())
    }

    /// A `ControlFlow` value built from `vars` (`code` is `Continue` or `Break`).
    pub(crate) fn flow(&mut self, code: Code, vars: &[VarId], span: Span) -> VarId {
        let inputs = vars.iter().map(|v| Input { var: *v, ident: self.ident(*v), usage: Use::Read }).collect();
        let out = self.temp("flow", span);
        let name = self.site_name(if matches!(code, Code::Continue) { "continue" } else { "break" });
        self.emit(NodeOp { name, code, inputs, outputs: vec![out], span });
        out
    }
}

/// Names bound by a pattern.
pub(crate) fn pattern_names(p: &Pattern) -> Vec<String> {
    match p {
        Pattern::Ident { name, .. } => vec![name.to_string()],
        Pattern::Tuple(ps, _) => ps.iter().flat_map(pattern_names).collect(),
        Pattern::Wild(_) => vec![],
    }
}

/// The loop's iterator expression with its closures made `move`: the
/// iterator leaves the operator that builds it, so a closure in it must own
/// what it captures (`(1u64..).take_while(|i| i * i < limit)` borrowed the
/// operator's copy of `limit`: E0515). Each operator has its own copy of the
/// values it reads, so moving them into the closure takes nothing from the
/// rest of the algorithm.
fn capturing_by_value(iter: &Expr) -> std::borrow::Cow<'_, Expr> {
    use syn::visit_mut::VisitMut;
    struct Move;
    impl VisitMut for Move {
        fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
            if c.capture.is_none() {
                c.capture = Some(Default::default());
            }
            syn::visit_mut::visit_expr_closure_mut(self, c);
        }
    }
    match iter {
        Expr::Node(n) => {
            let mut n = n.clone();
            Move.visit_expr_mut(&mut n.expr);
            std::borrow::Cow::Owned(Expr::Node(n))
        }
        other => std::borrow::Cow::Borrowed(other),
    }
}
