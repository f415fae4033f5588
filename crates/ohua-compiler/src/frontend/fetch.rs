//! I/O calls: `let x = src.fetch(request);` on a data source parameter
//! (`src: &Source<S>`) becomes two statements the rest of the compiler
//! handles like any other: `submit`, which hands the request to the run's
//! next batch and yields a pending answer, and `await`, which yields the
//! answer once it is there (the runtime's `io/` and `node/await_io.rs`).
//! Neither blocks, so every fetch the dataflow reaches before an answer
//! arrives joins the same batch, in loops, branches and called algorithms
//! alike.
//!
//! `let r = src.write(w);` (or `src.write(w);`) is a declared write. An
//! algorithm that writes to a source gets a state object for it, declared
//! before its first statement (`let mut __ohua_order_src = Order::new();`),
//! and every fetch and write on that source becomes a call on it
//! (`__ohua_order_src.fetch(&src, q)`): calls on one state object happen in
//! program order, so the runtime receives the source's requests in that
//! order and keeps it.

use syn::spanned::Spanned;
use syn::visit::Visit;

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

/// The I/O methods of a source handle.
fn is_io_method(method: &syn::Ident) -> bool {
    method == "fetch" || method == "write"
}

/// The sources among `sources` that `block` calls `.write(..)` on.
pub(crate) fn written_sources(block: &syn::Block, sources: &[String]) -> Vec<String> {
    struct Writes<'a> {
        sources: &'a [String],
        found: Vec<String>,
    }
    impl<'ast> Visit<'ast> for Writes<'_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if let Some(src) = plain_ident(&m.receiver) {
                let name = src.to_string();
                if m.method == "write" && self.sources.contains(&name) && !self.found.contains(&name) {
                    self.found.push(name);
                }
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut w = Writes { sources, found: Vec::new() };
    w.visit_block(block);
    w.found
}

/// The name of the order state of source `src`.
fn order_state(src: &str) -> syn::Ident {
    quote::format_ident!("__ohua_order_{}", src)
}

/// `block` with the order state of each of `ordered` declared first.
pub(crate) fn with_order_states(block: &syn::Block, ordered: &[String]) -> syn::Block {
    let mut block = block.clone();
    let decls = ordered.iter().map(|src| {
        let state = order_state(src);
        let decl: syn::Stmt = syn::parse_quote!(let mut #state = ::ohua::__private::io::Order::new(););
        decl
    });
    block.stmts.splice(0..0, decls);
    block
}

/// `src.fetch(..)` / `src.write(..)` as a statement of its own: the `let _`
/// that [`Frontend::parse_fetch`] takes.
pub(crate) fn io_statement(e: &syn::Expr) -> Option<syn::Local> {
    let syn::Expr::MethodCall(m) = unparen(e) else { return None };
    plain_ident(&m.receiver)?;
    if !is_io_method(&m.method) {
        return None;
    }
    match syn::parse_quote_spanned!(m.span()=> let _ = #m;) {
        syn::Stmt::Local(local) => Some(local),
        _ => unreachable!("a `let` statement"),
    }
}

/// What a `submit` expression built by [`Frontend::parse_fetch`] does:
/// the source parameter, `fetch` or `write`, and the request, as text.
pub(crate) fn io_call(expr: &syn::Expr) -> Option<(String, &'static str, String)> {
    use quote::ToTokens;
    let (method, args) = match expr {
        syn::Expr::Call(c) => {
            let syn::Expr::Path(f) = &*c.func else { return None };
            let segs: Vec<String> = f.path.segments.iter().map(|s| s.ident.to_string()).collect();
            (segs.ends_with(&["io".into(), "submit".into()])).then_some(("fetch", &c.args))?
        }
        syn::Expr::MethodCall(m) => {
            let state = plain_ident(&m.receiver)?.to_string();
            let method = if m.method == "write" { "write" } else { "fetch" };
            (state.starts_with("__ohua_order_") && is_io_method(&m.method)).then_some((method, &m.args))?
        }
        _ => return None,
    };
    let [syn::Expr::Reference(src), request] = args.iter().collect::<Vec<_>>()[..] else { return None };
    let src = plain_ident(&src.expr)?;
    Some((src.to_string(), method, request.to_token_stream().to_string()))
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
        format!("a data source `{}` inside an expression", m.method),
        "bind each fetch or write with a `let` of its own, e.g. `let info = db.fetch(PostInfo(id));`, \
         and use `info` afterwards: only such fetches are batched (and writes ordered)",
    )
}

impl Frontend<'_> {
    /// Whether `e` is a fetch or write on a source parameter.
    pub(super) fn is_io_statement(&self, e: &syn::Expr) -> bool {
        let syn::Expr::MethodCall(m) = unparen(e) else { return false };
        let Some(src) = plain_ident(&m.receiver) else { return false };
        is_io_method(&m.method) && self.is_local(src) && self.sources.iter().any(|s| src == s)
    }

    /// `let pat = src.fetch(request);` on a source parameter: the `submit`
    /// and `await` statements, or `None` for any other `let`.
    pub(super) fn parse_fetch(&mut self, local: &syn::Local) -> Result<Option<Vec<Stmt>>> {
        let Some(init) = &local.init else { return Ok(None) };
        if init.diverge.is_some() {
            return Ok(None);
        }
        let syn::Expr::MethodCall(m) = unparen(&init.expr) else { return Ok(None) };
        let Some(src) = plain_ident(&m.receiver) else { return Ok(None) };
        if !is_io_method(&m.method) || !self.is_local(src) || !self.sources.iter().any(|s| src == s) {
            return Ok(None);
        }
        check_attrs(&local.attrs)?;
        if m.args.len() != 1 || m.turbofish.is_some() {
            return Err(CompileError::unsupported(
                m.span(),
                "this form of `fetch`/`write`",
                "pass exactly one request: `let x = src.fetch(request);` or `let r = src.write(w);`",
            ));
        }
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(t) => (&*t.pat, Some((*t.ty).clone())),
            pat => (pat, None),
        };
        let pat = binding_pattern(pat, "a `let`")?;
        if !matches!(pat, Pattern::Ident { .. } | Pattern::Wild(_)) {
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
        let method = &m.method;
        let submit: syn::Expr = if self.ordered.iter().any(|s| src == s) {
            let state = order_state(&src.to_string());
            syn::parse_quote_spanned!(m.span()=> #state.#method(&#src, #request))
        } else {
            syn::parse_quote_spanned!(m.span()=> ::ohua::__private::io::submit(&#src, #request))
        };
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
