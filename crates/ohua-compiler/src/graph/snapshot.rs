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
//! ([`snapshot_type`]). A `&mut self` call runs in the first operator, as
//! any call on a state does, and the second only hands its result on. A
//! `&self` call's arguments are evaluated in the second: their values
//! travel with the snapshot (the step's data inputs moved, its read-only
//! sticky inputs cloned).
//!
//! A data input the call reads by reference and the body uses again later
//! comes back out of the step as a threaded value; the finish gets a copy
//! of it where its type is `Clone` (`MaybeClone` in the runtime), and the
//! call runs whole where it is not.
//!
//! Only a `let` whose whole value is one method call on the state, with
//! arguments that have no effects of their own (locals, fields, literals,
//! shared references, operators, calls of free functions; no method call,
//! macro, closure or `&mut`), is split. Any other use of the state is a
//! call on it as on any state: in order, correct, not in parallel.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;

use super::keyed::{is_marker_call, marked_locals};
use super::{Arc, CallNode, Graph, Kind, Node, NodeId};
use crate::error::{CompileError, Result};
use crate::frontend::ast::Block;
use crate::frontend::syntax::{plain_ident, unparen};
use crate::ir::Code;

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

/// Split every call statement on a snapshot state into its step and its
/// finish (module docs). Node ids stay in producer order: each finish
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
    method: syn::Ident,
    args: Vec<syn::Expr>,
    /// The step's data inputs that travel with a snapshot, by value.
    moved: Vec<syn::Ident>,
    /// Its read-only sticky inputs, cloned into the snapshot's values.
    cloned: Vec<syn::Ident>,
    /// Its data inputs the call reads by reference and hands on (threaded
    /// returns: the body uses them again): copied for the finish where
    /// their type is `Clone` (`MaybeClone`), else the call runs whole.
    borrowed: Vec<syn::Ident>,
    /// The `let`'s pattern, type and expression.
    pat: syn::Pat,
    pat_ty: Option<syn::Type>,
    expr: syn::Expr,
    /// How many outputs the pattern binds (the finish's).
    bound: usize,
}

fn candidate(g: &Graph, n: NodeId, states: &[SnapshotLocal]) -> Option<Split> {
    let Kind::Call(c) = &g.nodes[n].kind else { return None };
    let Code::Let { pat: Some(pat), ty: pat_ty, expr } = &c.code else { return None };
    let bound = c.returns.len() - c.threaded_returns;
    let syn::Expr::MethodCall(m) = unparen(expr) else { return None };
    let state = plain_ident(unparen(&m.receiver))?;
    let local = states.iter().find(|s| state == s.name.as_str())?;
    let is_state = |i: &syn::Ident| i == state;
    let threaded = &c.returns[bound..];
    let input = c.data.iter().flatten().any(is_state) || c.sticky.iter().any(|s| is_state(&s.ident));
    let borrowed: Vec<syn::Ident> = threaded.iter().filter(|t| !is_state(t)).cloned().collect();
    let is_data = |b: &syn::Ident| c.data.iter().flatten().any(|d| d == b);
    if bound == 0 || m.turbofish.is_some() || !input || !borrowed.iter().all(is_data) {
        return None;
    }
    if !m.args.iter().all(effect_free) {
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
        method: m.method.clone(),
        args: m.args.iter().cloned().collect(),
        moved: c.data.iter().flatten().filter(|i| !is_state(i) && !borrowed.contains(i)).cloned().collect(),
        cloned: sticky,
        borrowed,
        pat: pat.clone(),
        pat_ty: pat_ty.clone(),
        expr: expr.clone(),
        bound,
    })
}

/// An argument whose evaluation may move to another operator: it calls no
/// method and no macro, borrows nothing mutably and assigns nothing.
fn effect_free(e: &syn::Expr) -> bool {
    use syn::Expr as E;
    match e {
        E::Lit(_) | E::Path(_) => true,
        E::Reference(r) => r.mutability.is_none() && effect_free(&r.expr),
        E::Field(f) => effect_free(&f.base),
        E::Paren(p) => effect_free(&p.expr),
        E::Group(g) => effect_free(&g.expr),
        E::Unary(u) => effect_free(&u.expr),
        E::Binary(b) => !assigns(&b.op) && effect_free(&b.left) && effect_free(&b.right),
        E::Index(i) => effect_free(&i.expr) && effect_free(&i.index),
        E::Tuple(t) => t.elems.iter().all(effect_free),
        E::Array(a) => a.elems.iter().all(effect_free),
        E::Cast(c) => effect_free(&c.expr),
        E::Call(c) => matches!(&*c.func, E::Path(_)) && c.args.iter().all(effect_free),
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

/// Node `n` becomes the step; its finish is inserted as node `n + 1` and
/// takes over the outputs the `let` bound.
fn apply(g: &mut Graph, n: NodeId, s: Split) {
    let Split { state, ty, method, args, moved, cloned, borrowed, pat, pat_ty, expr, bound } = s;
    let node = g.nodes[n].clone();
    let Kind::Call(c) = &node.kind else { unreachable!("a candidate is a call") };
    let step = format_ident!("__ohua_step{}", n, span = expr.span());
    let private = quote!(::ohua::__private::snapshot);
    let arity = args.iter().map(|_| quote!(_));
    // The arguments are evaluated in the finish, but a generic method's
    // type parameters (`contains_key`'s `Q`) are fixed only by them: a
    // block that never runs calls the probe with values of the arguments'
    // types (`type_only`), built from the inputs by reference, so nothing
    // is moved or computed here (regression test
    // `a_generic_read_method_of_a_snapshot_state_compiles`).
    let typed_vars = moved.iter().chain(&cloned).chain(&borrowed);
    let typed_from = moved.iter().chain(&cloned).chain(&borrowed);
    let copyable = borrowed.iter().map(|b| quote!((&#private::MaybeClone(&#b)).can_clone()));
    let copies = borrowed.iter().map(|b| quote!((&#private::MaybeClone(&#b)).try_clone().expect("checked")));
    let step_expr: syn::Expr = syn::parse_quote!({
        use #private::{CloneIt as _, NoClone as _, Reader as _, Writer as _};
        let __ohua_probe = #private::Probe::of(&*#state, #ty::#method);
        #[allow(unreachable_code, unused_variables, clippy::diverging_sub_expression)]
        if false {
            let (#(#typed_vars,)*) = (#(#private::type_only(&#typed_from),)*);
            let _ = (&__ohua_probe).call_read(&*#state, (#(#args,)*));
        }
        if (&__ohua_probe).is_read(&::core::marker::PhantomData::<(#(#arity,)*)>) #(&& #copyable)* {
            #private::Step::Read(
                #private::Snapshot::share(&mut #state),
                (#(#moved,)* #(::core::clone::Clone::clone(&#cloned),)* #(#copies,)*),
            )
        } else {
            #private::Step::Done(#expr)
        }
    });
    let vars = moved.iter().chain(&cloned).chain(&borrowed);
    // In check mode (`snapshot/check.rs` in the runtime) the state is
    // compared with a copy taken before the call.
    let finish_expr: syn::Expr = syn::parse_quote!(match #step {
        #private::Step::Done(__ohua_r) => __ohua_r,
        #private::Step::Read(__ohua_snap, (#(mut #vars,)*)) => {
            use #private::{ByDebug as _, ByEq as _, Reader as _, Unchecked as _, Writer as _};
            let __ohua_probe = #private::Probe::of(&*__ohua_snap, #ty::#method);
            let __ohua_before = (cfg!(debug_assertions) || #private::checking())
                .then(|| ::core::clone::Clone::clone(&*__ohua_snap));
            let __ohua_r = (&__ohua_probe).call_read(&*__ohua_snap, (#(#args,)*));
            if let Some(__ohua_before) = &__ohua_before {
                if (&&&#private::Compare(__ohua_before, &*__ohua_snap)).unchanged() == Some(false) {
                    #private::changed_by(concat!(stringify!(#ty), "::", stringify!(#method)));
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

#[cfg(test)]
mod tests;
