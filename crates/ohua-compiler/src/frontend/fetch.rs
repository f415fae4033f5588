//! I/O calls: `let x = src.fetch(request);` on a data source parameter
//! (`src: &Source<S>`) becomes two statements the rest of the compiler
//! handles like any other: `submit`, which hands the request to the run's
//! next batch and yields a pending answer, and `await`, which yields the
//! answer once it is there (the runtime's `io/` and `node/await_io.rs`).
//! Neither blocks, so every fetch the dataflow reaches before an answer
//! arrives joins the same batch, in loops, branches and called algorithms
//! alike.

use syn::spanned::Spanned;

use super::ast::{Pattern, Stmt};
use super::pattern::binding_pattern;
use super::syntax::{check_attrs, plain_ident, unparen};
use super::Frontend;
use crate::error::{CompileError, Result};

/// The marker the `await` statement's expression is built from; resolution
/// turns a `let` of it into [`crate::ir::Code::Await`].
const AWAIT_MARKER: &str = "__ohua_await";

/// Whether `ty` is a data source handle: `Source<..>`, `&Source<..>` (any
/// path ending in `Source` with type arguments).
pub(crate) fn is_source_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => is_source_type(&r.elem),
        syn::Type::Paren(p) => is_source_type(&p.elem),
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Source" && matches!(s.arguments, syn::PathArguments::AngleBracketed(_))),
        _ => false,
    }
}

/// Whether `expr` is the `await` marker built by [`Frontend::parse_fetch`];
/// its single argument is the pending answer.
pub(crate) fn is_await_marker(expr: &syn::Expr) -> bool {
    matches!(expr, syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident(AWAIT_MARKER)))
}

/// The error for a fetch that is not a `let` of its own.
pub(crate) fn nested_fetch_error(m: &syn::ExprMethodCall) -> CompileError {
    CompileError::unsupported(
        m.span(),
        "a data source fetch inside an expression",
        "bind each fetch with a `let` of its own, e.g. `let info = db.fetch(PostInfo(id));`, \
         and use `info` afterwards: only such fetches are batched",
    )
}

impl Frontend<'_> {
    /// `let pat = src.fetch(request);` on a source parameter: the `submit`
    /// and `await` statements, or `None` for any other `let`.
    pub(super) fn parse_fetch(&mut self, local: &syn::Local) -> Result<Option<Vec<Stmt>>> {
        let Some(init) = &local.init else { return Ok(None) };
        if init.diverge.is_some() {
            return Ok(None);
        }
        let syn::Expr::MethodCall(m) = unparen(&init.expr) else { return Ok(None) };
        let Some(src) = plain_ident(&m.receiver) else { return Ok(None) };
        if m.method != "fetch" || !self.is_local(src) || !self.sources.iter().any(|s| src == s) {
            return Ok(None);
        }
        check_attrs(&local.attrs)?;
        if m.args.len() != 1 || m.turbofish.is_some() {
            return Err(CompileError::unsupported(
                m.span(),
                "this form of `fetch`",
                "pass exactly one request: `let x = src.fetch(request);`",
            ));
        }
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(t) => (&*t.pat, Some((*t.ty).clone())),
            pat => (pat, None),
        };
        let pat = binding_pattern(pat, "a `let`")?;
        if !matches!(pat, Pattern::Ident { .. }) {
            return Err(CompileError::unsupported(
                local.pat.span(),
                "a pattern binding a fetch's answer",
                "bind the answer to one name (`let r = src.fetch(q);`) and destructure it in a later `let`",
            ));
        }
        let span = local.span();
        let pending = quote::format_ident!("__ohua_fetch{}", self.fetches);
        self.fetches += 1;
        let request = &m.args[0];
        let submit: syn::Expr = syn::parse_quote_spanned!(m.span()=> ::ohua::__private::io::submit(&#src, #request));
        let submit = self.node(&submit)?;
        let pending_pat = Pattern::Ident { name: pending.clone(), mutable: false };
        self.scope.bind_pattern(&pending_pat);
        let marker = quote::format_ident!("{}", AWAIT_MARKER);
        let wait: syn::Expr = syn::parse_quote!(#marker(#pending));
        let wait = self.node(&wait)?;
        self.scope.bind_pattern(&pat);
        Ok(Some(vec![
            Stmt::Let { pat: pending_pat, ty: None, init: super::ast::Expr::Node(submit), span },
            Stmt::Let { pat, ty, init: super::ast::Expr::Node(wait), span },
        ]))
    }
}
