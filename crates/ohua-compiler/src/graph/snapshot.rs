//! Calls on snapshot states (`ohua::snapshot`, InContext's contexts, issue
//! 24): a call statement on one becomes two operators, so that a `&self`
//! call runs off the state's path.
//!
//! ```text
//!                            let __ohua_step = {              // on the state, in order
//!                                if T::verify only reads {
//! let ok = s.verify(&m);  ==>        Step::Read(share(s), (m,))   // a snapshot: Arc::clone
//!                                } else { Step::Done(s.verify(&m)) }
//!                            };
//!                            let ok = match __ohua_step {     // stateless: may run on replicas
//!                                Done(r) => r,
//!                                Read(snap, (m,)) => snap.verify(&m),
//!                            };
//! ```
//!
//! The macro cannot see whether `verify` takes `&self`: the generated code
//! asks rustc, through the runtime's `snapshot::Probe`, naming the method
//! as `T::verify` with the state's type `T` read from the declaration
//! ([`snapshot_type`]); a `Vec`'s slice methods and a `String`'s `str`
//! methods, which method syntax reaches through `Deref`, as `<[_]>::m` and
//! `str::m` (`sites.rs`). A `&mut self` call runs in the first operator,
//! as any call on a state does, and the second only hands its result on;
//! so do a `self` method and one rustc could not match. A `&self` call's
//! arguments are evaluated in the second: their values travel with the
//! snapshot (the step's data inputs moved, its read-only sticky inputs
//! cloned).
//!
//! A data input the call reads by reference and the body uses again later
//! comes back out of the step as a threaded value; the finish gets a copy
//! of it where its type is `Clone` (`MaybeClone` in the runtime), and the
//! call runs whole where it is not.
//!
//! The `let`'s value may be any expression that uses the state only as the
//! receiver of method calls (its read sites: `s.get(&k).cloned().unwrap_or(0)`,
//! `f(s.len()) + s.count(x)`) and has no effects of its own besides them
//! (locals, fields, literals, shared references, operators, calls of free
//! functions, methods of temporaries; no method of a local, macro, closure,
//! block or `&mut`): the finish evaluates all of it on one snapshot when
//! every site reads, and the step runs it whole on the live state
//! otherwise. An `if`'s condition is split the same way (`if
//! index.contains_key(&k) { .. }`: the finish hands the `if`'s selector to
//! its switch), and a `match`'s scrutinee (`match cache.get(&k) { Some(&v)
//! => .., None => .. }`: the finish takes it apart on the snapshot and
//! hands on the arm's index and the arms' bindings). Any other use of the
//! state (an argument of a call on another state, `out.send(s.m(x))`) is a
//! call on it as on any state: in order, correct, not in parallel.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;

use super::keyed::{is_marker_call, marked_locals};
use super::ops::dispatch;
use super::{Arc, CallNode, Graph, Kind, Node, NodeId};
use crate::error::{CompileError, Result};
use crate::frontend::ast::Block;
use crate::ir::Code;
use sites::Site;

/// A snapshot local and the path of its state's type, as code names it
/// before `::method`.
#[derive(Debug, Clone)]
pub struct SnapshotLocal {
    /// The local's name.
    pub name: String,
    /// The state's type: `Routes`, `Vec::<u8>`, or `<T>` from a turbofish.
    pub ty: TokenStream,
}

/// The snapshot locals of an algorithm: bound once by
/// `let [mut] s = ..snapshot(ARG);` and never again (as keyed locals are).
///
/// # Errors
///
/// A snapshot whose state's type cannot be read from its declaration.
pub fn snapshot_locals(item: &syn::ItemFn, body: &Block) -> Result<Vec<SnapshotLocal>> {
    let names = marked_locals(body, "snapshot");
    struct Find<'a>(&'a [String], Vec<(String, syn::ExprCall)>);
    impl<'v> Visit<'v> for Find<'_> {
        fn visit_local(&mut self, l: &'v syn::Local) {
            if let (syn::Pat::Ident(p), Some(init)) = (&l.pat, &l.init) {
                if let syn::Expr::Call(c) = &*init.expr {
                    let name = p.ident.to_string();
                    if is_marker_call(&init.expr, "snapshot") && self.0.contains(&name) {
                        self.1.push((name, c.clone()));
                    }
                }
            }
            syn::visit::visit_local(self, l);
        }
    }
    let mut find = Find(&names, Vec::new());
    find.visit_block(&item.block);
    find.1
        .into_iter()
        .map(|(name, call)| {
            let ty = snapshot_type(&call).ok_or_else(|| {
                CompileError::invalid(
                    call.args.span(),
                    format!(
                        "ohua needs the type of the snapshot state `{name}` to tell its `&self` methods from its \
                         `&mut self` ones, and cannot read it from this expression; name it: \
                         `snapshot::<YourType>(..)`"
                    ),
                )
            })?;
            Ok(SnapshotLocal { name, ty })
        })
        .collect()
}

/// The state's type in `snapshot::<T>(..)`, `snapshot(T::new(..))` (any
/// path whose last-but-one segment is capitalised, as a type's is, except
/// `Default`), `snapshot(T(..))` (a tuple struct: the last segment is
/// capitalised) or `snapshot(T { .. })`.
pub fn snapshot_type(call: &syn::ExprCall) -> Option<TokenStream> {
    if let syn::Expr::Path(f) = &*call.func {
        if let syn::PathArguments::AngleBracketed(a) = &f.path.segments.last()?.arguments {
            if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                return Some(quote!(<#t>));
            }
        }
    }
    let capitalised = |s: &syn::PathSegment| {
        s.ident.to_string().starts_with(|c: char| c.is_ascii_uppercase()) && s.ident != "Default"
    };
    match call.args.first()? {
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) if p.qself.is_none() => {
                let segments = &p.path.segments;
                let leading = p.path.leading_colon;
                let n = segments.len();
                if n >= 2 && capitalised(&segments[n - 2]) {
                    // `T::new(..)`, `Enum::Variant(..)`: the type is the path
                    // before the function.
                    let ty = segments.iter().take(n - 1);
                    Some(quote!(#leading #(#ty)::*))
                } else if capitalised(&segments[n - 1])
                    && !["Some", "Ok", "Err"].contains(&&*segments[n - 1].ident.to_string())
                {
                    // `Total(0)`, `counters::Total(0)`: a tuple struct's
                    // constructor names its type (the prelude's variants do
                    // not).
                    let ty = segments.iter();
                    Some(quote!(#leading #(#ty)::*))
                } else {
                    None
                }
            }
            _ => None,
        },
        syn::Expr::Struct(s) if s.qself.is_none() => Some(s.path.to_token_stream()),
        _ => None,
    }
}

/// Split every `let`, `if` condition and `match` scrutinee that reads a
/// snapshot state into its step and its finish (module docs). Node ids stay in producer order: each finish
/// comes right after its step.
pub fn split_reads(g: &mut Graph, states: &[SnapshotLocal]) {
    let mut n = 0;
    while n < g.nodes.len() {
        if let Some(split) = candidate(g, n, states) {
            apply(g, n, split);
            n += 1;
        }
        n += 1;
    }
}

/// What a split needs from the call it splits.
struct Split {
    state: syn::Ident,
    ty: TokenStream,
    /// The calls on the state in the `let`'s expression.
    sites: Vec<Site>,
    /// The step's data inputs that travel with a snapshot, by value.
    moved: Vec<syn::Ident>,
    /// Its read-only sticky inputs, cloned into the snapshot's values.
    cloned: Vec<syn::Ident>,
    /// Its data inputs the call reads by reference and hands on (threaded
    /// returns: the body uses them again): copied for the finish where
    /// their type is `Clone` (`MaybeClone`), else the call runs whole.
    borrowed: Vec<syn::Ident>,
    /// The `let`'s pattern, type and expression (an `if`'s condition:
    /// its selector, `usize`, `if cond { 0 } else { 1 }`; a `match`'s
    /// scrutinee: the dispatch's outputs and its `match`).
    pat: syn::Pat,
    pat_ty: Option<syn::Type>,
    expr: syn::Expr,
    /// How many outputs the pattern binds (the finish's).
    bound: usize,
}

fn candidate(g: &Graph, n: NodeId, states: &[SnapshotLocal]) -> Option<Split> {
    let Kind::Call(c) = &g.nodes[n].kind else { return None };
    let bound = c.returns.len() - c.threaded_returns;
    let is_input = |s: &SnapshotLocal| {
        c.data.iter().flatten().any(|d| d == s.name.as_str()) || c.sticky.iter().any(|t| t.ident == s.name.as_str())
    };
    // The one snapshot state among the call's inputs (a call on two states
    // runs whole, as a call on any two states does).
    let mut inputs = states.iter().filter(|s| is_input(s));
    let local = inputs.next()?;
    if inputs.next().is_some() || bound == 0 {
        return None;
    }
    let state = syn::Ident::new(&local.name, proc_macro2::Span::call_site());
    // What the finish binds, with the expression it evaluates and the part
    // of it that reads the state: a `let`; an `if`'s condition, whose
    // selector it binds (`let sel: usize = if cond { 0 } else { 1 };`); a
    // `match`'s scrutinee, whose dispatch it binds (the arm's index and
    // the arms' bindings, `ops/call.rs`), so that only owned values leave.
    let (pat, pat_ty, expr, reads): (syn::Pat, Option<syn::Type>, syn::Expr, &syn::Expr) = match &c.code {
        Code::Let { pat: Some(pat), ty, expr } => (pat.clone(), ty.clone(), expr.clone(), expr),
        Code::IfSelector(cond) => {
            let selector = c.returns.first()?;
            let expr = syn::parse_quote!(if #cond { 0usize } else { 1usize });
            (syn::parse_quote!(#selector), Some(syn::parse_quote!(usize)), expr, cond)
        }
        Code::MatchDispatch { scrutinee, arms } => {
            if !arms.iter().filter_map(|a| a.1.as_ref()).all(|guard| sites::movable(guard, &state)) {
                return None;
            }
            let binds = &c.returns[..bound];
            let expr = syn::parse2(dispatch(scrutinee, arms)).ok()?;
            (syn::parse_quote!((#(#binds,)*)), None, expr, scrutinee)
        }
        _ => return None,
    };
    let state = syn::Ident::new(&local.name, reads.span());
    let sites = sites::sites(reads, &expr, &state, &local.ty)?;
    let is_state = |i: &syn::Ident| *i == state;
    let threaded = &c.returns[bound..];
    let borrowed: Vec<syn::Ident> = threaded.iter().filter(|t| !is_state(t)).cloned().collect();
    let is_data = |b: &syn::Ident| c.data.iter().flatten().any(|d| d == b);
    if !borrowed.iter().all(is_data) {
        return None;
    }
    let cloneable = |i: &syn::Ident| g.cloneable.iter().any(|p| i == p.as_str());
    let sticky: Vec<syn::Ident> = c.sticky.iter().map(|s| s.ident.clone()).filter(|i| !is_state(i)).collect();
    if !sticky.iter().all(cloneable) {
        return None;
    }
    Some(Split {
        state: state.clone(),
        ty: local.ty.clone(),
        sites,
        moved: c.data.iter().flatten().filter(|i| !is_state(i) && !borrowed.contains(i)).cloned().collect(),
        cloned: sticky,
        borrowed,
        pat,
        pat_ty,
        expr,
        bound,
    })
}

/// Node `n` becomes the step; its finish is inserted as node `n + 1` and
/// takes over the outputs the `let` bound.
fn apply(g: &mut Graph, n: NodeId, s: Split) {
    let Split { state, ty, sites, moved, cloned, borrowed, pat, pat_ty, expr, bound } = s;
    let node = g.nodes[n].clone();
    let Kind::Call(c) = &node.kind else { unreachable!("a candidate is a call") };
    let step = format_ident!("__ohua_step{}", n, span = expr.span());
    let private = quote!(::ohua::__private::snapshot);
    let traits = quote!(#private::{Consumer as _, Neither as _, Reader as _, Writer as _});
    // The values that travel with a snapshot: moved, cloned, copied.
    let vars: Vec<&syn::Ident> = moved.iter().chain(&cloned).chain(&borrowed).collect();
    let probes = |on: TokenStream| -> Vec<TokenStream> {
        let on = &on;
        sites
            .iter()
            .enumerate()
            .map(|(i, site)| {
                let (p, path, derefs) = (sites::probe(i), &site.path, &site.derefs);
                quote!(let #p = #private::Probe::of(&*#derefs #on, #path);)
            })
            .collect()
    };
    let step_probes = probes(quote!(#state));
    let reads = sites.iter().enumerate().map(|(i, site)| {
        let p = sites::probe(i);
        let arity = site.args.iter().map(|_| quote!(_));
        quote!((&&&#p).is_read(&::core::marker::PhantomData::<(#(#arity,)*)>))
    });
    let copyable = borrowed.iter().map(|b| quote!((&#private::MaybeClone(&#b)).can_clone()));
    let runs_on_snapshot = reads.chain(copyable);
    // The expression is evaluated in the finish, but a generic method's
    // type parameters (`contains_key`'s `Q`) are fixed only by its
    // arguments: a block that never runs evaluates it through the probes
    // with values of the inputs' types (`type_only`), built by reference,
    // so nothing is moved or computed here (regression test
    // `a_generic_read_method_of_a_snapshot_state_compiles`).
    let typed = sites::rewrite(&expr, &state, &ty, &quote!(#state));
    // The `let`'s type, where it has one, fixes a type parameter of the
    // result (`let n: u64 = s.pick();` with `fn pick<R: From<u64>>(&self) -> R`).
    let value_ty = pat_ty.as_ref().map_or_else(|| quote!(_), ToTokens::to_token_stream);
    let copies = borrowed.iter().map(|b| quote!((&#private::MaybeClone(&#b)).try_clone().expect("checked")));
    let step_expr: syn::Expr = syn::parse_quote!({
        use #traits;
        use #private::{CloneIt as _, NoClone as _};
        #(#step_probes)*
        #[allow(unreachable_code, unused_variables, clippy::diverging_sub_expression)]
        if false {
            let (#(#vars,)*) = (#(#private::type_only(&#vars),)*);
            let _: #value_ty = #typed;
        }
        if #(#runs_on_snapshot)&&* {
            #private::Step::Read(
                #private::Snapshot::share(&mut #state),
                (#(#moved,)* #(::core::clone::Clone::clone(&#cloned),)* #(#copies,)*),
            )
        } else {
            #private::Step::Done(#expr)
        }
    });
    let finish_probes = probes(quote!(__ohua_snap));
    let on_snapshot = sites::rewrite(&expr, &state, &ty, &quote!(__ohua_snap));
    let methods = sites.iter().map(|s| s.path.to_string().replace(' ', "")).collect::<Vec<_>>().join("` or `");
    // In check mode (`snapshot/check.rs` in the runtime) the state is
    // compared with a copy taken before the call.
    let finish_expr: syn::Expr = syn::parse_quote!(match #step {
        #private::Step::Done(__ohua_r) => __ohua_r,
        #private::Step::Read(__ohua_snap, (#(mut #vars,)*)) => {
            use #traits;
            use #private::{ByDebug as _, ByEq as _, Unchecked as _};
            #(#finish_probes)*
            let __ohua_before = (cfg!(debug_assertions) || #private::checking())
                .then(|| ::core::clone::Clone::clone(&*__ohua_snap));
            let __ohua_r = #on_snapshot;
            if let Some(__ohua_before) = &__ohua_before {
                if (&&&#private::Compare(__ohua_before, &*__ohua_snap)).unchanged() == Some(false) {
                    #private::changed_by(#methods);
                }
            }
            __ohua_r
        }
    });
    let step_call = CallNode {
        code: Code::Let { pat: Some(syn::parse_quote!(#step)), ty: None, expr: step_expr },
        returns: std::iter::once(step.clone()).chain(c.returns[bound..].iter().cloned()).collect(),
        ..c.clone()
    };
    let finish_call = CallNode {
        code: Code::Let { pat: Some(pat), ty: pat_ty, expr: finish_expr },
        data: vec![Some(step.clone())],
        sticky: Vec::new(),
        returns: c.returns[..bound].to_vec(),
        threaded_returns: 0,
    };
    let finish = Node {
        name: format!("{}.read", node.name),
        depth: node.depth,
        kind: Kind::Call(finish_call),
        label: node.label.clone(),
        line: node.line,
    };
    g.nodes[n].kind = Kind::Call(step_call);
    g.nodes.insert(n + 1, finish);
    for a in &mut g.arcs {
        for end in [&mut a.from.0, &mut a.to.0] {
            if *end > n {
                *end += 1;
            }
        }
        if a.from.0 == n {
            if a.from.1 < bound {
                a.from = (n + 1, a.from.1);
            } else {
                a.from.1 = a.from.1 - bound + 1;
            }
        }
    }
    g.arcs.push(Arc { from: (n, 0), to: (n + 1, 0), feedback: false, span: expr.span() });
}

mod sites;
#[cfg(test)]
mod tests;
