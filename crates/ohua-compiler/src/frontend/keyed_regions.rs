//! Several calls on one keyed state in a loop body become one operator.
//!
//! AttackDetector's classifier (Lagniappe §2) is called twice per request:
//! `classify` first, `block` after an inspection in between. Two call sites
//! on one state make it a value carried around the loop (one iteration must
//! finish with it before the next starts), and a carried state cannot be
//! split by key. For a keyed local (`graph/keyed.rs`), the statements of a
//! loop body from its first use to its last are therefore fused into one
//! statement that the compiler treats as a single operator:
//!
//! ```text
//! let v = c.classify(&req);          let (v, r) = ::core::convert::identity({
//! let r = inspect(v);         ==>        let v = c.classify(&req); let r = inspect(v);
//! c.block(&req, r);                      c.block(&req, r); (v, r)
//!                                    });
//! ```
//!
//! That operator has the state as its only sticky input, so it may run on
//! replicas by key, each replica running the whole region for its keys in
//! order. The rewrite is plain Rust with the same meaning; it is skipped
//! where it could change what the compiler accepts: a region with `break`,
//! `continue`, `return`, `?` or `.await`; and a region with a fetch or write
//! on a data source parameter, which must stay a statement of its own to be
//! batched (`fetch.rs`). The keyed state is then carried through the loop
//! like any state used at two call sites: correct, but not split by key.

use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::visit_mut::VisitMut;

/// `item` with the loop-body regions of its keyed locals fused.
pub(crate) fn fuse(item: &syn::ItemFn) -> syn::ItemFn {
    let keyed = keyed_names(&item.block);
    let mut item = item.clone();
    if !keyed.is_empty() {
        let sources = source_params(&item.sig);
        Fuser { keyed, sources }.visit_block_mut(&mut item.block);
    }
    item
}

/// The parameters declared as data source handles.
fn source_params(sig: &syn::Signature) -> Vec<syn::Ident> {
    sig.inputs
        .iter()
        .filter_map(|arg| match arg {
            syn::FnArg::Typed(t) if super::fetch::is_source_type(&t.ty) => match &*t.pat {
                syn::Pat::Ident(p) => Some(p.ident.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Names bound by `let [mut] NAME = ..keyed(..);` anywhere in `block`.
fn keyed_names(block: &syn::Block) -> Vec<syn::Ident> {
    struct Find(Vec<syn::Ident>);
    impl syn::visit::Visit<'_> for Find {
        fn visit_local(&mut self, l: &syn::Local) {
            if let (syn::Pat::Ident(p), Some(init)) = (&l.pat, &l.init) {
                if let syn::Expr::Call(c) = &*init.expr {
                    if matches!(&*c.func, syn::Expr::Path(f) if f.path.segments.last().is_some_and(|s| s.ident == "keyed"))
                    {
                        self.0.push(p.ident.clone());
                    }
                }
            }
            syn::visit::visit_local(self, l);
        }
    }
    let mut f = Find(Vec::new());
    syn::visit::Visit::visit_block(&mut f, block);
    f.0
}

struct Fuser {
    keyed: Vec<syn::Ident>,
    /// Data source parameters: a region with an I/O call on one is not fused.
    sources: Vec<syn::Ident>,
}

impl VisitMut for Fuser {
    fn visit_expr_for_loop_mut(&mut self, e: &mut syn::ExprForLoop) {
        syn::visit_mut::visit_expr_for_loop_mut(self, e);
        self.fuse_body(&mut e.body);
    }

    fn visit_expr_while_mut(&mut self, e: &mut syn::ExprWhile) {
        syn::visit_mut::visit_expr_while_mut(self, e);
        self.fuse_body(&mut e.body);
    }

    fn visit_expr_closure_mut(&mut self, e: &mut syn::ExprClosure) {
        syn::visit_mut::visit_expr_closure_mut(self, e);
        if let syn::Expr::Block(b) = &mut *e.body {
            self.fuse_body(&mut b.block);
        }
    }
}

impl Fuser {
    fn fuse_body(&self, body: &mut syn::Block) {
        for name in &self.keyed {
            let uses: Vec<usize> = (0..body.stmts.len()).filter(|&i| mentions(&body.stmts[i], name)).collect();
            let (Some(&first), Some(&last)) = (uses.first(), uses.last()) else { continue };
            let region = &body.stmts[first..=last];
            if first == last || region.iter().any(escapes) || region.iter().any(|s| does_io(s, &self.sources)) {
                continue;
            }
            // A tail expression (no `;`) is the body's value: keep it out.
            if matches!(body.stmts[last], syn::Stmt::Expr(_, None)) {
                continue;
            }
            let region: Vec<syn::Stmt> = body.stmts.drain(first..=last).collect();
            let fused = fused_stmt(&region, &body.stmts[first..]);
            body.stmts.insert(first, fused);
        }
    }
}

/// `let (mut a, ..) = ::core::convert::identity({ region; (a, ..) });`,
/// exporting the names the region binds that the statements `after` it use
/// (a name the region moves and nothing after uses must not be exported).
fn fused_stmt(region: &[syn::Stmt], after: &[syn::Stmt]) -> syn::Stmt {
    let mut bound: Vec<syn::Ident> = Vec::new();
    for s in region {
        if let syn::Stmt::Local(l) = s {
            idents(&l.pat, &mut bound);
        }
    }
    // Later bindings of a name shadow earlier ones: export each once.
    let mut names: Vec<syn::Ident> = Vec::new();
    for b in bound.into_iter().rev() {
        if !names.contains(&b) && used_after(&b, after) {
            names.insert(0, b);
        }
    }
    let stmt: TokenStream = quote! {
        let (#(mut #names,)*) = ::core::convert::identity({ #(#region)* (#(#names,)*) });
    };
    syn::parse2(stmt).expect("a let statement")
}

/// Whether a statement of `after` uses `name` before one binds it anew.
fn used_after(name: &syn::Ident, after: &[syn::Stmt]) -> bool {
    for s in after {
        match s {
            syn::Stmt::Local(l) => {
                let init_uses = l.init.as_ref().is_some_and(|i| {
                    mentions_tokens(i.expr.to_token_stream(), name)
                        || i.diverge.as_ref().is_some_and(|(_, e)| mentions_tokens(e.to_token_stream(), name))
                });
                if init_uses {
                    return true;
                }
                let mut rebinds = Vec::new();
                idents(&l.pat, &mut rebinds);
                if rebinds.contains(name) {
                    return false;
                }
            }
            other => {
                if mentions(other, name) {
                    return true;
                }
            }
        }
    }
    false
}

/// The identifiers a pattern binds.
fn idents(p: &syn::Pat, out: &mut Vec<syn::Ident>) {
    match p {
        syn::Pat::Ident(i) => out.push(i.ident.clone()),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|e| idents(e, out)),
        syn::Pat::Type(t) => idents(&t.pat, out),
        syn::Pat::Paren(p) => idents(&p.pat, out),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|e| idents(e, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| idents(&f.pat, out)),
        syn::Pat::Reference(r) => idents(&r.pat, out),
        _ => {}
    }
}

/// Whether the statement's tokens name `name`.
fn mentions(s: &syn::Stmt, name: &syn::Ident) -> bool {
    mentions_tokens(s.to_token_stream(), name)
}

fn mentions_tokens(t: TokenStream, name: &syn::Ident) -> bool {
    t.into_iter().any(|tt| match tt {
        TokenTree::Ident(i) => &i == name,
        TokenTree::Group(g) => mentions_tokens(g.stream(), name),
        _ => false,
    })
}

/// Whether the statement fetches from or writes to one of `sources`
/// (`src . fetch` / `src . write` in its tokens).
fn does_io(s: &syn::Stmt, sources: &[syn::Ident]) -> bool {
    fn walk(t: TokenStream, sources: &[syn::Ident]) -> bool {
        let tokens: Vec<TokenTree> = t.into_iter().collect();
        tokens.windows(3).any(|w| match w {
            [TokenTree::Ident(src), TokenTree::Punct(dot), TokenTree::Ident(m)] => {
                dot.as_char() == '.' && (m == "fetch" || m == "write") && sources.contains(src)
            }
            _ => false,
        }) || tokens.iter().any(|tt| matches!(tt, TokenTree::Group(g) if walk(g.stream(), sources)))
    }
    !sources.is_empty() && walk(s.to_token_stream(), sources)
}

/// Whether the statement could leave the loop body or the function.
fn escapes(s: &syn::Stmt) -> bool {
    fn walk(t: TokenStream) -> bool {
        t.into_iter().any(|tt| match tt {
            TokenTree::Ident(i) => i == "break" || i == "continue" || i == "return" || i == "await",
            TokenTree::Punct(p) => p.as_char() == '?',
            TokenTree::Group(g) => walk(g.stream()),
            _ => false,
        })
    }
    walk(s.to_token_stream())
}
