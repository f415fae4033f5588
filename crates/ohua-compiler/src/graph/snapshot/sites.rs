//! The calls on a snapshot state inside a `let`'s expression (its read
//! sites), whether the rest of the expression may run off the state's
//! path, and how generated code names each site's method.

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

use crate::frontend::syntax::{plain_ident, unparen};

/// A method call on the state: `state.method(args)`.
#[derive(Clone)]
pub(super) struct Site {
    /// How generated code names the method as a function: `T::method`, or
    /// the deref target's (`<[_]>::contains` for a `Vec`).
    pub path: TokenStream,
    /// `*`s to add to `&*state` so that it has the type `path` takes.
    pub derefs: TokenStream,
    /// The call's arguments (their count picks the probe's arity).
    pub args: Vec<syn::Expr>,
}

/// The read sites of `whole`, in the order [`rewrite`] numbers them, where
/// the state appears only as their receiver, all of them in `reads` (the
/// part of `whole` that is user code: a `let`'s value, an `if`'s
/// condition, a `match`'s scrutinee), and `reads` may run off the state's
/// path ([`movable`]); `None` otherwise.
pub(super) fn sites(reads: &syn::Expr, whole: &syn::Expr, state: &syn::Ident, ty: &TokenStream) -> Option<Vec<Site>> {
    if !movable(reads, state) {
        return None;
    }
    let mut found = Vec::new();
    let mut copy = whole.clone();
    Rewrite { state, ty, found: &mut found, replace: None }.visit_expr_mut(&mut copy);
    let (mut in_reads, mut in_whole) = (Uses(state, 0), Uses(state, 0));
    in_reads.visit_expr(reads);
    in_whole.visit_expr(whole);
    (!found.is_empty() && in_whole.1 == found.len() && in_reads.1 == found.len()).then_some(found)
}

/// `expr` with its read sites replaced by calls of the probes
/// `__ohua_probe0..` on `&*on` (`on` is the state in the step,
/// `__ohua_snap` in the finish).
pub(super) fn rewrite(expr: &syn::Expr, state: &syn::Ident, ty: &TokenStream, on: &TokenStream) -> syn::Expr {
    let mut found = Vec::new();
    let mut copy = expr.clone();
    Rewrite { state, ty, found: &mut found, replace: Some(on) }.visit_expr_mut(&mut copy);
    copy
}

/// The probes' names, one per site.
pub(super) fn probe(i: usize) -> syn::Ident {
    quote::format_ident!("__ohua_probe{}", i)
}

struct Rewrite<'a> {
    state: &'a syn::Ident,
    ty: &'a TokenStream,
    found: &'a mut Vec<Site>,
    replace: Option<&'a TokenStream>,
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        // Arguments first: a site inside another's arguments gets the lower number.
        syn::visit_mut::visit_expr_mut(self, e);
        let syn::Expr::MethodCall(m) = e else { return };
        if plain_ident(unparen(&m.receiver)) != Some(self.state) {
            return;
        }
        let (path, derefs) = name(self.ty, &m.method);
        let site = Site { path, derefs, args: m.args.iter().cloned().collect() };
        if let Some(on) = self.replace {
            let (p, derefs, args) = (probe(self.found.len()), &site.derefs, &site.args);
            *e = syn::parse_quote!((&&&#p).call_read(&*#derefs #on, (#(#args,)*)));
        }
        self.found.push(site);
    }
}

/// Counts the uses of the state in an expression.
struct Uses<'a>(&'a syn::Ident, usize);

impl<'v> Visit<'v> for Uses<'_> {
    fn visit_expr_path(&mut self, p: &'v syn::ExprPath) {
        if p.qself.is_none() && p.path.get_ident() == Some(self.0) {
            self.1 += 1;
        }
    }
}

/// Methods of `[T]` that read and that `Vec` has not: a snapshot `Vec`
/// names them through its deref target, as method syntax finds them (`Vec::contains`
/// does not resolve). Any other method is named `Vec::m`.
const SLICE_READS: &[&str] = &[
    "binary_search",
    "chunks",
    "chunks_exact",
    "concat",
    "contains",
    "ends_with",
    "eq_ignore_ascii_case",
    "first",
    "get",
    "is_ascii",
    "is_sorted",
    "iter",
    "join",
    "last",
    "rchunks",
    "repeat",
    "split_at",
    "split_first",
    "split_last",
    "starts_with",
    "to_ascii_lowercase",
    "to_ascii_uppercase",
    "to_vec",
    "windows",
];

/// Methods of `str` that read and that `String` has not, as [`SLICE_READS`].
const STR_READS: &[&str] = &[
    "bytes",
    "char_indices",
    "chars",
    "contains",
    "ends_with",
    "eq_ignore_ascii_case",
    "find",
    "get",
    "is_ascii",
    "is_char_boundary",
    "lines",
    "matches",
    "repeat",
    "replace",
    "rfind",
    "rsplit",
    "rsplit_once",
    "split",
    "split_at",
    "split_once",
    "split_whitespace",
    "starts_with",
    "strip_prefix",
    "strip_suffix",
    "to_ascii_lowercase",
    "to_ascii_uppercase",
    "to_lowercase",
    "to_uppercase",
    "trim",
    "trim_end",
    "trim_start",
];

/// `T::method`, or for a `Vec`'s slice method or a `String`'s `str`
/// method the target's, with one more deref of the state.
fn name(ty: &TokenStream, method: &syn::Ident) -> (TokenStream, TokenStream) {
    let m = method.to_string();
    match base(ty).as_deref() {
        Some("Vec") if SLICE_READS.contains(&m.as_str()) => (quote!(<[_]>::#method), quote!(*)),
        Some("String") if STR_READS.contains(&m.as_str()) => (quote!(str::#method), quote!(*)),
        _ => (quote!(#ty::#method), TokenStream::new()),
    }
}

/// The last segment of the state's type (`Vec` of `Vec::<u8>`,
/// `std::vec::Vec`, `<Vec<u8>>`).
fn base(ty: &TokenStream) -> Option<String> {
    let s = ty.to_string();
    let inner = s.strip_prefix('<').and_then(|s| s.strip_suffix('>')).unwrap_or(&s);
    let path: syn::TypePath = syn::parse_str(inner).ok()?;
    Some(path.path.segments.last()?.ident.to_string())
}

/// An expression whose evaluation may move to another operator: it calls
/// no macro and no closure, borrows nothing mutably, assigns nothing, and
/// calls methods only on the state (its read sites, which `sites` checks
/// are reads) and on temporaries (`s.get(&k).cloned()`, `f(x).len()`),
/// never on a local or a static (a state of its own, or a handle to one).
pub(super) fn movable(e: &syn::Expr, state: &syn::Ident) -> bool {
    use syn::Expr as E;
    let ok = |e: &syn::Expr| movable(e, state);
    match e {
        E::Lit(_) | E::Path(_) => true,
        E::MethodCall(m) => {
            let on_state = plain_ident(unparen(&m.receiver)) == Some(state);
            let receiver =
                if on_state { m.turbofish.is_none() } else { !rooted_in_path(&m.receiver) && ok(&m.receiver) };
            receiver && m.args.iter().all(ok)
        }
        E::Reference(r) => r.mutability.is_none() && ok(&r.expr),
        E::Field(f) => ok(&f.base),
        E::Paren(p) => ok(&p.expr),
        E::Group(g) => ok(&g.expr),
        E::Unary(u) => ok(&u.expr),
        E::Binary(b) => !assigns(&b.op) && ok(&b.left) && ok(&b.right),
        E::Index(i) => ok(&i.expr) && ok(&i.index),
        E::Tuple(t) => t.elems.iter().all(ok),
        E::Array(a) => a.elems.iter().all(ok),
        E::Cast(c) => ok(&c.expr),
        E::Call(c) => matches!(&*c.func, E::Path(_)) && c.args.iter().all(ok),
        _ => false,
    }
}

/// A receiver that is a local or a static, or a place inside one
/// (`x.items`, `*x`, `x[0]`).
fn rooted_in_path(e: &syn::Expr) -> bool {
    use syn::Expr as E;
    match e {
        E::Path(_) => true,
        E::Field(f) => rooted_in_path(&f.base),
        E::Paren(p) => rooted_in_path(&p.expr),
        E::Group(g) => rooted_in_path(&g.expr),
        E::Reference(r) => rooted_in_path(&r.expr),
        E::Unary(u) => rooted_in_path(&u.expr),
        E::Index(i) => rooted_in_path(&i.expr),
        _ => false,
    }
}

fn assigns(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitXorAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}
