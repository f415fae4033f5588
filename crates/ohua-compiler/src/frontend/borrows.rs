//! A `let` whose value borrows another local of the algorithm.
//!
//! Each statement runs in an operator of its own and its values move to the
//! operators that use them, so `let t = line.trim();` cannot work: `t`
//! would point into the first operator's copy of `line`. rustc reports that
//! as E0515 at the binding, with no advice. This check reports it with
//! advice when the value comes from a method whose name, by Rust's naming
//! conventions, returns a borrow (`as_*`, `trim*`, `iter`, `chars`, ..) or
//! from `&x`, its receiver is a local or a parameter taken by value (a
//! parameter taken by reference may be borrowed from: the caller's data
//! outlives the run), and a later statement uses it.

use syn::spanned::Spanned;

use super::ast::{Block, Expr, Pattern, Stmt};
use super::scan::scan_stmts;
use super::syntax::unparen;
use crate::error::{CompileError, Result};

/// Methods that return a borrow of their receiver by convention.
const BORROWING: &[&str] = &[
    "as_str",
    "as_bytes",
    "as_slice",
    "as_ref",
    "as_mut",
    "as_path",
    "trim",
    "trim_start",
    "trim_end",
    "iter",
    "iter_mut",
    "chars",
    "char_indices",
    "bytes",
    "lines",
    "split_whitespace",
    "keys",
    "values",
];

/// Check every block of an algorithm body.
pub(super) fn check_all(body: &Block, by_ref: &[String]) -> Result<()> {
    check_block(body, by_ref)?;
    for stmt in &body.stmts {
        match stmt {
            Stmt::Let { init, .. } => check_expr(init, by_ref)?,
            Stmt::Assign { value, .. } => check_expr(value, by_ref)?,
            Stmt::Expr { expr, .. } => check_expr(expr, by_ref)?,
        }
    }
    body.tail.as_deref().map_or(Ok(()), |t| check_expr(t, by_ref))
}

/// The blocks nested in an expression.
fn check_expr(e: &Expr, by_ref: &[String]) -> Result<()> {
    match e {
        Expr::Node(_) => Ok(()),
        Expr::Block(b) => check_all(b, by_ref),
        Expr::If { cond, then, else_, .. } => {
            check_expr(cond, by_ref)?;
            check_all(then, by_ref)?;
            else_.as_deref().map_or(Ok(()), |e| check_expr(e, by_ref))
        }
        Expr::Match { scrutinee, arms, .. } => {
            check_expr(scrutinee, by_ref)?;
            arms.iter().try_for_each(|a| check_expr(&a.body, by_ref))
        }
        Expr::For { iter, body, .. } => {
            check_expr(iter, by_ref)?;
            check_all(body, by_ref)
        }
        Expr::While { cond, body, .. } => {
            check_expr(cond, by_ref)?;
            check_all(body, by_ref)
        }
        Expr::MapCollect { iter, body, .. } => {
            check_expr(iter, by_ref)?;
            check_expr(body, by_ref)
        }
        Expr::AlgoCall { args, .. } => args.iter().try_for_each(|a| check_expr(a, by_ref)),
    }
}

/// Check the `let`s directly in `block` (`by_ref`: parameters taken by reference).
fn check_block(block: &Block, by_ref: &[String]) -> Result<()> {
    for (i, stmt) in block.stmts.iter().enumerate() {
        let Stmt::Let { pat: Pattern::Ident { name, .. }, init: Expr::Node(n), .. } = stmt else { continue };
        let Some((root, how)) = borrow_of(&n.expr) else { continue };
        if by_ref.contains(&root) || !n.uses.iter().any(|u| u.name == root) {
            continue;
        }
        if !scan_stmts(&block.stmts[i + 1..], block.tail.as_deref(), &name.to_string()).used() {
            continue;
        }
        return Err(CompileError::invalid(
            n.expr.span(),
            format!(
                "`{name}` would borrow from `{root}` ({how}), but each statement of an algorithm runs in \
                 its own operator and values move between operators; bind an owned value instead \
                 (`{}.to_owned()` or `.to_string()`, `.collect::<Vec<_>>()` for an iterator), or write the \
                 borrow where `{name}` is used",
                super::print_syn::rust_expr(&n.expr)
            ),
        ));
    }
    Ok(())
}

/// The local an expression borrows from, and how, if it visibly does.
fn borrow_of(e: &syn::Expr) -> Option<(String, String)> {
    match unparen(e) {
        syn::Expr::Reference(r) => Some((root(&r.expr)?, "`&` takes a reference".into())),
        syn::Expr::MethodCall(m) if BORROWING.contains(&m.method.to_string().as_str()) => {
            Some((root(&m.receiver)?, format!("`.{}()` returns a borrow of it", m.method)))
        }
        _ => None,
    }
}

/// The variable at the root of a receiver (`line`, `self.x.y` -> none).
fn root(e: &syn::Expr) -> Option<String> {
    match unparen(e) {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(ToString::to_string),
        syn::Expr::Field(f) => root(&f.base),
        syn::Expr::Index(i) => root(&i.expr),
        syn::Expr::MethodCall(m) if BORROWING.contains(&m.method.to_string().as_str()) => root(&m.receiver),
        _ => None,
    }
}
