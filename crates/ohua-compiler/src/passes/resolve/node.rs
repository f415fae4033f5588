//! Statement-level nodes: `let`, assignments, expression statements.

use proc_macro2::Span;
use quote::format_ident;

use super::Resolver;
use crate::error::Result;
use crate::frontend::ast::{Expr, NodeExpr, Pattern, Stmt};
use crate::ir::{Code, Input, NodeOp, Use, VarId};
use crate::passes::env::Slot;
use crate::passes::scan::is_alias_of;

/// The function a node calls, for its operator name.
pub(crate) fn function_name(e: &syn::Expr) -> String {
    match e {
        // A fused keyed region (`frontend/keyed_regions.rs`) is named after
        // its first statement: `classify`, not `identity`.
        syn::Expr::Call(c) if is_fused_region(c) => match c.args.first() {
            Some(syn::Expr::Block(b)) => b.block.stmts.first().map_or_else(|| "region".into(), stmt_function_name),
            _ => "region".into(),
        },
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
            _ => "call".into(),
        },
        syn::Expr::MethodCall(m) => m.method.to_string(),
        syn::Expr::Macro(m) => {
            format!("{}!", m.mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default())
        }
        syn::Expr::Paren(p) => function_name(&p.expr),
        syn::Expr::Reference(r) => function_name(&r.expr),
        syn::Expr::Try(t) => function_name(&t.expr),
        syn::Expr::Unary(u) => function_name(&u.expr),
        syn::Expr::Binary(_) => "op".into(),
        syn::Expr::Lit(_) => "lit".into(),
        syn::Expr::Path(_) => "var".into(),
        syn::Expr::Field(_) => "field".into(),
        syn::Expr::Tuple(_) => "tuple".into(),
        syn::Expr::Struct(s) => s.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
        syn::Expr::Index(_) => "index".into(),
        syn::Expr::Cast(_) => "cast".into(),
        _ => "expr".into(),
    }
}

/// `::core::convert::identity({ .. })`, as the keyed-region fusion writes it.
fn is_fused_region(c: &syn::ExprCall) -> bool {
    let syn::Expr::Path(p) = &*c.func else { return false };
    let names: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    names == ["core", "convert", "identity"] && p.path.leading_colon.is_some()
}

/// The function name of a statement's expression.
fn stmt_function_name(s: &syn::Stmt) -> String {
    match s {
        syn::Stmt::Local(l) => l.init.as_ref().map_or_else(|| "region".into(), |i| function_name(&i.expr)),
        syn::Stmt::Expr(e, _) => function_name(e),
        _ => "region".into(),
    }
}

/// Turn a binding pattern back into a `syn::Pat`.
pub(crate) fn to_pat(p: &Pattern) -> syn::Pat {
    match p {
        Pattern::Ident { name, mutable } => {
            if *mutable {
                syn::parse_quote!(mut #name)
            } else {
                syn::parse_quote!(#name)
            }
        }
        Pattern::Tuple(ps, _) => {
            let elems = ps.iter().map(to_pat);
            syn::parse_quote!((#(#elems,)*))
        }
        Pattern::Wild(s) => syn::Pat::Wild(syn::PatWild { attrs: vec![], underscore_token: syn::Token![_](*s) }),
    }
}

impl Resolver<'_> {
    /// Inputs of a node: every use, threading state objects.
    pub(crate) fn node_inputs(&mut self, n: &NodeExpr, threaded_target: Option<&syn::Ident>) -> Result<Vec<Input>> {
        let mut inputs = Vec::new();
        let mut names: Vec<&syn::Ident> = n.uses.iter().map(|u| &u.name).collect();
        if let Some(t) = threaded_target {
            if !names.contains(&t) {
                names.push(t);
            }
        }
        for ident in names {
            let mutated = Some(ident) == threaded_target || n.uses.iter().any(|u| &u.name == ident && u.mutated);
            let pos = self.position(ident)?;
            let input = match self.env.get(pos) {
                Slot::Plain { var, state } if state || mutated => {
                    let out = self.fresh(ident);
                    self.env.set(pos, Slot::Plain { var: out, state: true });
                    Input { var, ident: ident.clone(), usage: Use::Thread { out } }
                }
                Slot::Plain { var, .. } => Input { var, ident: ident.clone(), usage: Use::Read },
                Slot::Resident { outer, after } => {
                    Input { var: outer, ident: ident.clone(), usage: Use::Thread { out: after } }
                }
            };
            inputs.push(input);
        }
        Ok(inputs)
    }

    /// An expression as a node; its value if `want`.
    pub(crate) fn node_expr(&mut self, n: &NodeExpr, want: bool) -> Result<Option<VarId>> {
        if let Some(x) = is_alias_of(n) {
            // `x` alone: no computation, just the value.
            return Ok(if want { Some(self.current(x)?) } else { None });
        }
        let span = syn::spanned::Spanned::span(&n.expr);
        let inputs = self.node_inputs(n, None)?;
        let (pat, outputs, value) = if want {
            let v = self.temp("v", span);
            let ident = self.ident(v);
            (Some(syn::parse_quote!(#ident)), vec![v], Some(v))
        } else {
            (None, vec![], None)
        };
        let name = self.site_name(&function_name(&n.expr));
        self.emit(NodeOp { name, code: Code::Let { pat, ty: None, expr: n.expr.clone() }, inputs, outputs, span });
        Ok(value)
    }

    /// `let pat (: ty)? = init;` followed by `rest` in the same block.
    pub(crate) fn let_stmt(
        &mut self,
        pat: &Pattern,
        ty: Option<&syn::Type>,
        init: &Expr,
        rest: &[Stmt],
        tail: Option<&Expr>,
    ) -> Result<()> {
        let span = pat_span(pat);
        match init {
            Expr::Node(n) if ty.is_none() && matches!(pat, Pattern::Ident { .. }) && is_alias_of(n).is_some() => {
                let v = self.current(is_alias_of(n).expect("alias"))?;
                if let Pattern::Ident { name, .. } = pat {
                    self.bind_existing(name, v, rest, tail);
                }
            }
            Expr::Node(n) => {
                let inputs = self.node_inputs(n, None)?;
                self.bind_node_outputs(pat, ty, n.expr.clone(), inputs, &function_name(&n.expr), rest, tail, span);
            }
            Expr::MapCollect { iter, pat: p, body, collect_ty, span: s } => {
                let ty = collect_ty.clone().or_else(|| ty.cloned());
                let v = self.map_collect(iter, p, body, ty, *s)?;
                self.bind_value(pat, None, v, rest, tail, span);
            }
            other => {
                let v = self.value(other)?;
                self.bind_value(pat, ty, v, rest, tail, span);
            }
        }
        Ok(())
    }

    /// Bind `pat` to an already computed value (unpacking tuples in a node).
    pub(crate) fn bind_value(
        &mut self,
        pat: &Pattern,
        ty: Option<&syn::Type>,
        v: VarId,
        rest: &[Stmt],
        tail: Option<&Expr>,
        span: Span,
    ) {
        match (pat, ty) {
            (Pattern::Ident { name, .. }, None) => self.bind_existing(name, v, rest, tail),
            (Pattern::Wild(_), None) => {}
            _ => {
                let ident = self.ident(v);
                let input = Input { var: v, ident: ident.clone(), usage: Use::Read };
                self.bind_node_outputs(pat, ty, syn::parse_quote!(#ident), vec![input], "let", rest, tail, span);
            }
        }
    }

    /// Emit `let pat: ty = expr;` as a node and bind the pattern's names.
    #[allow(clippy::too_many_arguments)]
    fn bind_node_outputs(
        &mut self,
        pat: &Pattern,
        ty: Option<&syn::Type>,
        expr: syn::Expr,
        inputs: Vec<Input>,
        function: &str,
        rest: &[Stmt],
        tail: Option<&Expr>,
        span: Span,
    ) {
        let mut outputs = Vec::new();
        self.bind_pattern_fresh(pat, rest, tail, &mut outputs);
        let name = self.site_name(function);
        let code = if crate::frontend::fetch::is_await_marker(&expr) {
            Code::Await
        } else {
            Code::Let { pat: Some(to_pat(pat)), ty: ty.cloned(), expr }
        };
        self.emit(NodeOp { name, code, inputs, outputs, span });
    }

    /// `target (op)= value;`
    pub(crate) fn assign(
        &mut self,
        target: &syn::Ident,
        op: Option<&syn::BinOp>,
        value: &Expr,
        span: Span,
    ) -> Result<()> {
        match value {
            // `x = value` that does not read `x`: the old value is dead, so
            // the node binds a new version of `x` instead of threading the
            // old one through (which moved it twice in `let tmp = a; a = b;
            // b = tmp;`); `x = y` needs no node at all. A loop-resident `x`
            // is carried around its loop and keeps the threading below.
            Expr::Node(n) if op.is_none() && !n.uses.iter().any(|u| &u.name == target) => {
                let pos = self.position(target)?;
                let Slot::Plain { state, .. } = self.env.get(pos) else {
                    return self.assign_threaded(target, None, n, span);
                };
                let var = match is_alias_of(n) {
                    Some(x) => self.current(x)?,
                    None => {
                        let inputs = self.node_inputs(n, None)?;
                        let out = self.fresh(target);
                        let name = self.site_name(&function_name(&n.expr));
                        let code = Code::Let { pat: Some(syn::parse_quote!(#target)), ty: None, expr: n.expr.clone() };
                        self.emit(NodeOp { name, code, inputs, outputs: vec![out], span });
                        out
                    }
                };
                self.env.set(pos, Slot::Plain { var, state });
            }
            Expr::Node(n) => self.assign_threaded(target, op, n, span)?,
            other => {
                let v = self.value(other)?;
                match op {
                    None => {
                        let pos = self.position(target)?;
                        let state = matches!(self.env.get(pos), Slot::Plain { state: true, .. });
                        self.env.set(pos, Slot::Plain { var: v, state });
                    }
                    Some(op) => {
                        let ident = format_ident!("__ohua_rhs", span = span);
                        let node = NodeExpr {
                            expr: syn::parse_quote!(#ident),
                            uses: vec![crate::frontend::ast::VarUse { name: ident.clone(), mutated: false }],
                        };
                        // Bind the value under a private name so the node can read it.
                        self.env.push_scope();
                        self.env.bind(ident.to_string(), Slot::Plain { var: v, state: false });
                        let inputs = self.node_inputs(&node, Some(target));
                        self.env.pop_scope();
                        let inputs = inputs?;
                        let name = self.site_name("assign");
                        let code = Code::Assign { target: target.clone(), op: Some(*op), expr: node.expr };
                        self.emit(NodeOp { name, code, inputs, outputs: vec![], span });
                    }
                }
            }
        }
        Ok(())
    }
}

impl Resolver<'_> {
    /// `target (op)= node;` run by one operator that threads `target`.
    fn assign_threaded(
        &mut self,
        target: &syn::Ident,
        op: Option<&syn::BinOp>,
        n: &NodeExpr,
        span: Span,
    ) -> Result<()> {
        let inputs = self.node_inputs(n, Some(target))?;
        let name = self.site_name(&function_name(&n.expr));
        let code = Code::Assign { target: target.clone(), op: op.cloned(), expr: n.expr.clone() };
        self.emit(NodeOp { name, code, inputs, outputs: vec![], span });
        Ok(())
    }
}

fn pat_span(p: &Pattern) -> Span {
    match p {
        Pattern::Ident { name, .. } => name.span(),
        Pattern::Tuple(_, s) | Pattern::Wild(s) => *s,
    }
}
