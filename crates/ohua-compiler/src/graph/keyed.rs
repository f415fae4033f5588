//! Call sites on keyed states (`ohua::keyed`, Lagniappe's flow state): which
//! locals are keyed, and the key of a call on one.
//!
//! A local is keyed when its only binding in the algorithm is
//! `let [mut] s = keyed(..);` (any path ending in `keyed`, such as
//! `ohua::keyed`) and nothing assigns to it. A call site on it inside a loop
//! may run on replicas that each own the part of the state for their keys
//! (`ohua-runtime`'s `node/keyed.rs`) if its other sticky inputs, if any,
//! are read-only `Clone` values (each replica reads its own copy) and its
//! code calls a method on the state whose first argument, the key,
//! is a plain value: a local, a field of one, a reference to either, or a
//! method call without arguments on one (it is evaluated once more, to
//! route the call, so it must not have effects).

use std::collections::BTreeMap;

use syn::visit::Visit;

use super::{Graph, Kind, NodeId};
use crate::frontend::ast::{Block, Expr, Pattern, Stmt};
use crate::ir::Code;

/// The names of the keyed locals of an algorithm body.
pub fn keyed_locals(body: &Block) -> Vec<String> {
    marked_locals(body, "keyed")
}

/// Locals bound once, by `let s = ..MARKER(..);`, and never again nor
/// assigned.
pub(super) fn marked_locals(body: &Block, marker: &str) -> Vec<String> {
    // name -> (marked bindings, other bindings or assignments)
    let mut seen: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    block(body, marker, &mut seen);
    seen.into_iter().filter(|(_, (k, other))| *k == 1 && *other == 0).map(|(n, _)| n).collect()
}

/// The parameters whose type is evidently `Clone` (a shared reference, or a
/// primitive number, `bool` or `char`) and that the body only reads: never
/// binds again, assigns, or uses in a way that may mutate (a method
/// receiver: `log.lock()` on a `&Mutex<..>` parameter makes it a state
/// object, whose calls keep their order). A call in a loop that reads them
/// may still run on replicas, each with its own copy (`ohua-runtime`'s
/// `node/fan.rs`).
///
/// Also the locals declared `let s = ohua::shared(..);` (an `Arc`), bound
/// once and never mutated.
pub fn cloneable_params(alg: &crate::frontend::ast::Algorithm) -> Vec<String> {
    let mut seen: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    block(&alg.body, "", &mut seen);
    let read_only = |name: &String| !crate::frontend::scan::scan_block(&alg.body, name).mutated();
    let params = alg
        .params
        .iter()
        .filter_map(|p| match &p.pat {
            Pattern::Ident { name, mutable: false } if evidently_clone(&p.ty) => Some(name.to_string()),
            _ => None,
        })
        .filter(|name| !seen.contains_key(name));
    params.chain(marked_locals(&alg.body, "shared")).filter(read_only).collect()
}

/// `&T` (not `&mut`), or a primitive scalar type.
fn evidently_clone(ty: &syn::Type) -> bool {
    const SCALARS: &[&str] = &[
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32", "f64", "bool",
        "char",
    ];
    match ty {
        syn::Type::Reference(r) => r.mutability.is_none(),
        syn::Type::Path(p) => {
            p.qself.is_none() && p.path.get_ident().is_some_and(|i| SCALARS.contains(&i.to_string().as_str()))
        }
        syn::Type::Paren(p) => evidently_clone(&p.elem),
        _ => false,
    }
}

fn block(b: &Block, marker: &str, seen: &mut BTreeMap<String, (usize, usize)>) {
    for s in &b.stmts {
        match s {
            Stmt::Let { pat, init, .. } => {
                let marked =
                    matches!((pat, init), (Pattern::Ident { .. }, Expr::Node(n)) if is_marker_call(&n.expr, marker));
                bound(pat, marked, seen);
                expr(init, marker, seen);
            }
            Stmt::Assign { target, value, .. } => {
                seen.entry(target.to_string()).or_default().1 += 1;
                expr(value, marker, seen);
            }
            Stmt::Expr { expr: e, .. } => expr(e, marker, seen),
        }
    }
    if let Some(t) = &b.tail {
        expr(t, marker, seen);
    }
}

fn bound(pat: &Pattern, keyed: bool, seen: &mut BTreeMap<String, (usize, usize)>) {
    match pat {
        Pattern::Ident { name, .. } => {
            let e = seen.entry(name.to_string()).or_default();
            if keyed {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
        Pattern::Tuple(ps, _) => ps.iter().for_each(|p| bound(p, false, seen)),
        Pattern::Wild(_) => {}
    }
}

/// The bindings in structural sub-expressions (a node's own inner
/// bindings cannot shadow a local used by other operators, so they are not
/// looked at).
fn expr(e: &Expr, m: &str, seen: &mut BTreeMap<String, (usize, usize)>) {
    match e {
        Expr::Node(_) => {}
        Expr::Block(b) => block(b, m, seen),
        Expr::If { cond, then, else_, .. } => {
            expr(cond, m, seen);
            block(then, m, seen);
            if let Some(e) = else_ {
                expr(e, m, seen);
            }
        }
        Expr::Match { scrutinee, arms, .. } => {
            expr(scrutinee, m, seen);
            for arm in arms {
                for b in &arm.bindings {
                    seen.entry(b.to_string()).or_default().1 += 1;
                }
                expr(&arm.body, m, seen);
            }
        }
        Expr::For { pat, iter, body, .. } => {
            bound(pat, false, seen);
            expr(iter, m, seen);
            block(body, m, seen);
        }
        Expr::While { cond, body, .. } => {
            expr(cond, m, seen);
            block(body, m, seen);
        }
        Expr::MapCollect { iter, pat, body, .. } => {
            bound(pat, false, seen);
            expr(iter, m, seen);
            expr(body, m, seen);
        }
        Expr::AlgoCall { args, .. } => args.iter().for_each(|a| expr(a, m, seen)),
    }
}

/// `MARKER(..)` or `path::MARKER(..)` with one argument.
pub(super) fn is_marker_call(e: &syn::Expr, marker: &str) -> bool {
    match e {
        syn::Expr::Call(c) => {
            c.args.len() == 1
                && matches!(&*c.func, syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == marker))
        }
        _ => false,
    }
}

impl Graph {
    /// For a call on a keyed state that may be replicated by key: the
    /// state's position among the call's sticky inputs and the key
    /// expression (the first argument of the first method call on it).
    ///
    /// The call's other sticky inputs must be read-only `Clone` values
    /// ([`cloneable_params`]): each replica reads its own copy. The key
    /// must name none of the sticky inputs: it is evaluated once more, to
    /// route the call, where only the data inputs are at hand.
    pub fn keyed_call(&self, n: NodeId) -> Option<(usize, &syn::Expr)> {
        let node = &self.nodes[n];
        let Kind::Call(c) = &node.kind else { return None };
        if node.depth == 0 {
            return None;
        }
        let is_keyed = |s: &super::Sticky| self.keyed.iter().any(|k| s.ident == k.as_str());
        let is_cloneable = |s: &super::Sticky| self.cloneable.iter().any(|p| s.ident == p.as_str());
        let at = c.sticky.iter().position(is_keyed)?;
        if c.sticky.iter().enumerate().any(|(k, s)| k != at && !is_cloneable(s)) {
            return None;
        }
        let state = &c.sticky[at].ident;
        let code = match &c.code {
            Code::Let { expr, .. } | Code::Assign { expr, .. } => expr,
            _ => return None,
        };
        let mut finder = FirstCall { state, key: None };
        finder.visit_expr(code);
        let key = finder.key?;
        (plain(key) && !c.sticky.iter().any(|s| mentions(key, &s.ident))).then_some((at, key))
    }
}

/// Finds the first method call on `state` with an argument.
struct FirstCall<'a> {
    state: &'a syn::Ident,
    key: Option<&'a syn::Expr>,
}

impl<'a> Visit<'a> for FirstCall<'a> {
    fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
        if self.key.is_some() {
            return;
        }
        let on_state = matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident(self.state));
        if on_state {
            self.key = m.args.first();
            if self.key.is_some() {
                return;
            }
        }
        syn::visit::visit_expr_method_call(self, m);
    }
}

/// A value that may be evaluated once more without effects.
fn plain(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(p) => p.qself.is_none(),
        syn::Expr::Lit(_) => true,
        syn::Expr::Reference(r) => r.mutability.is_none() && plain(&r.expr),
        syn::Expr::Field(f) => plain(&f.base),
        syn::Expr::Paren(p) => plain(&p.expr),
        syn::Expr::MethodCall(m) => m.args.is_empty() && plain(&m.receiver),
        _ => false,
    }
}

/// Whether `e` names `ident`.
fn mentions(e: &syn::Expr, ident: &syn::Ident) -> bool {
    struct Find<'a>(&'a syn::Ident, bool);
    impl<'v> Visit<'v> for Find<'_> {
        fn visit_ident(&mut self, i: &'v syn::Ident) {
            self.1 |= i == self.0;
        }
    }
    let mut f = Find(ident, false);
    f.visit_expr(e);
    f.1
}
