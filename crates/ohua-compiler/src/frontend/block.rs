//! Blocks and statements: `let`, assignment to locals, expression statements,
//! the tail value, and the desugaring of a trailing `return`.

use syn::spanned::Spanned;

use super::ast::{Block, Stmt};
use super::pattern::binding_pattern;
use super::syntax::{check_attrs, expr_attrs, is_compound_assign, macro_name, plain_ident, unparen};
use super::Frontend;
use crate::error::{CompileError, Result};

impl Frontend<'_> {
    /// Parses `block` in a scope of its own. `tail` says whether the block's
    /// value is the value of the enclosing function (so a trailing `return`
    /// may be desugared into the plain value).
    pub(super) fn parse_block(&mut self, block: &syn::Block, tail: bool) -> Result<Block> {
        self.scope.push();
        let result = self.block_contents(block, tail);
        self.scope.pop();
        result
    }

    fn block_contents(&mut self, block: &syn::Block, tail: bool) -> Result<Block> {
        let mut out = Block { stmts: Vec::new(), tail: None, span: block.brace_token.span.join() };
        let count = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = i + 1 == count && tail;
            match stmt {
                syn::Stmt::Local(local) => match self.parse_fetch(local)? {
                    Some(stmts) => out.stmts.extend(stmts),
                    None => out.stmts.push(self.parse_let(local)?),
                },
                syn::Stmt::Item(item) => return Err(item_error(item)),
                syn::Stmt::Macro(m) => {
                    if m.mac.path.is_ident("macro_rules") {
                        return Err(macro_rules_error(m.span()));
                    }
                    let expr = syn::Expr::Macro(syn::ExprMacro { attrs: m.attrs.clone(), mac: m.mac.clone() });
                    let semi = m.semi_token.is_some() || i + 1 < count;
                    self.expr_stmt(&expr, semi, last, &mut out)?;
                }
                // An empty statement (a stray `;`) does nothing; as an
                // expression it became an operator running `let _ = ;`
                // (found by the fuzz test, corpus `empty_statement.rs`).
                syn::Stmt::Expr(syn::Expr::Verbatim(tokens), Some(_)) if tokens.is_empty() => {}
                syn::Stmt::Expr(e, Some(_)) if self.is_io_statement(e) => {
                    let local = super::fetch::io_statement(e).expect("checked");
                    out.stmts.extend(self.parse_fetch(&local)?.expect("an I/O call on a source"));
                }
                syn::Stmt::Expr(e, semi) => {
                    // Only the last semicolon-less expression is the block's value;
                    // earlier ones are block-like statements (`if .. {}`).
                    let semi = semi.is_some() || i + 1 < count;
                    self.expr_stmt(e, semi, last, &mut out)?;
                }
            }
        }
        Ok(out)
    }

    /// One expression statement; `last` is set for the final statement of a
    /// block in tail position.
    fn expr_stmt(&mut self, e: &syn::Expr, semi: bool, last: bool, out: &mut Block) -> Result<()> {
        check_attrs(expr_attrs(e))?;
        let span = e.span();
        let e = unparen(e);
        if let Some(assign) = self.local_assign(e)? {
            out.stmts.push(assign);
        } else if !semi {
            out.tail = Some(Box::new(self.parse_expr(e, last)?));
        } else if let (true, syn::Expr::Return(r)) = (last, e) {
            // `return v;` at the very end is just the value `v`.
            if let Some(value) = &r.expr {
                out.tail = Some(Box::new(self.parse_expr(value, true)?));
            }
        } else if last && (diverges(e) || (!self.unit_return && has_tail_return(e))) {
            // `if c { return a; } else { return b; };` ends the function on
            // every path, so its value is the function's value.
            out.tail = Some(Box::new(self.parse_expr(e, true)?));
        } else {
            out.stmts.push(Stmt::Expr { expr: self.parse_expr(e, last)?, span });
        }
        Ok(())
    }

    fn parse_let(&mut self, local: &syn::Local) -> Result<Stmt> {
        check_attrs(&local.attrs)?;
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(t) => (&*t.pat, Some((*t.ty).clone())),
            pat => (pat, None),
        };
        let Some(init) = &local.init else {
            return Err(CompileError::unsupported(
                local.span(),
                "`let` without a value",
                "give the binding its value where it is declared, e.g. \
                 `let x = if c { a } else { b };`",
            ));
        };
        if let Some((else_token, _)) = &init.diverge {
            return Err(CompileError::unsupported(
                else_token.span,
                "`let .. else`",
                "use `match` with one arm per case instead",
            ));
        }
        let pat = binding_pattern(pat, "a `let`")?;
        // The initialiser is evaluated before the new names are in scope.
        let init_expr = self.parse_expr(&init.expr, false)?;
        self.scope.bind_pattern(&pat);
        Ok(Stmt::Let { pat, ty, init: init_expr, span: local.span() })
    }

    /// `x = e` / `x op= e` where `x` is a local: a structural assignment.
    pub(super) fn local_assign(&mut self, e: &syn::Expr) -> Result<Option<Stmt>> {
        let (left, op, right) = match e {
            syn::Expr::Assign(a) => (&*a.left, None, &*a.right),
            syn::Expr::Binary(b) if is_compound_assign(&b.op) => (&*b.left, Some(b.op), &*b.right),
            _ => return Ok(None),
        };
        let Some(target) = plain_ident(left).filter(|id| self.is_local(id)) else {
            return Ok(None);
        };
        let target = target.clone();
        let value = self.parse_expr(right, false)?;
        Ok(Some(Stmt::Assign { target, op, value, span: e.span() }))
    }
}

/// An unconditionally diverging macro (`panic!`, ..): as a block's last
/// statement it may become the block's value without changing its type.
fn diverges(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Macro(m)
        if matches!(macro_name(&m.mac.path).as_deref(),
            Some("panic" | "unreachable" | "todo" | "unimplemented")))
}

/// Whether a `return` is reachable in tail position inside `e`.
fn has_tail_return(e: &syn::Expr) -> bool {
    let block_has = |b: &syn::Block| match b.stmts.last() {
        Some(syn::Stmt::Expr(e, _)) => has_tail_return(e),
        _ => false,
    };
    match unparen(e) {
        syn::Expr::Return(_) => true,
        syn::Expr::If(i) => {
            block_has(&i.then_branch) || i.else_branch.as_ref().is_some_and(|(_, e)| has_tail_return(e))
        }
        syn::Expr::Match(m) => m.arms.iter().any(|arm| has_tail_return(&arm.body)),
        syn::Expr::Block(b) => b.label.is_none() && block_has(&b.block),
        _ => false,
    }
}

fn item_error(item: &syn::Item) -> CompileError {
    match item {
        syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => macro_rules_error(m.span()),
        _ => CompileError::unsupported(
            item.span(),
            "an item (`fn`, `struct`, `use`, ..) inside an algorithm",
            "move it out of the algorithm function, next to it",
        ),
    }
}

fn macro_rules_error(span: proc_macro2::Span) -> CompileError {
    CompileError::unsupported(
        span,
        "`macro_rules!` inside an algorithm",
        "define the macro outside the algorithm function",
    )
}

/// An empty block `{}` (the value `()`), e.g. for a missing `else`.
pub(super) fn empty_block(span: proc_macro2::Span) -> Block {
    Block { stmts: Vec::new(), tail: None, span }
}
