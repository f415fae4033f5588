//! `call`: user or glue code. Input ports: data inputs, then sticky
//! inputs. Output ports: the returned values, then one release port per
//! sticky input. Emitted as `b.call(..).run(closure)`, or as a link of a
//! fused chain (`codegen/chain.rs`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use super::Operator;
use super::emit::{local, num, Emit};
use crate::ir::Code;

/// A code node.
#[derive(Debug, Clone)]
pub struct CallNode {
    /// The code.
    pub code: Code,
    /// Data inputs: the name the code binds (None: a tick, bound to `_`).
    pub data: Vec<Option<syn::Ident>>,
    /// Sticky inputs: name, home level, whether the value is released to a port.
    pub sticky: Vec<Sticky>,
    /// Returned values: the names the code's result tuple is built from.
    pub returns: Vec<syn::Ident>,
    /// Outputs bound by a `let` pattern come first in `returns`; this many of
    /// them are *threaded* data inputs returned by name.
    pub threaded_returns: usize,
}

/// A sticky input of a code node.
#[derive(Debug, Clone)]
pub struct Sticky {
    /// The name the code binds it to.
    pub ident: syn::Ident,
    /// Level of the value.
    pub home: u16,
}

impl CallNode {
    /// Whether this is a user's statement (`let`, an assignment), not glue.
    pub fn is_statement(&self) -> bool {
        matches!(self.code, Code::Let { .. } | Code::Assign { .. })
    }
}

impl Operator for CallNode {
    fn name(&self) -> &'static str {
        "call"
    }

    fn ports(&self) -> (usize, usize) {
        (self.data.len() + self.sticky.len(), self.returns.len() + self.sticky.len())
    }

    fn emit(&self, e: &Emit<'_>) -> TokenStream {
        if e.is_link() {
            let (l, rt, b) = (local(&format!("l{}", e.n)), e.rt(), e.builder());
            let link = link(e, self);
            return quote!(let #l = #rt::part(#b, |#b| #link););
        }
        call(e, self)
    }

    fn dump_extra(&self) -> String {
        if self.sticky.is_empty() {
            return String::new();
        }
        let s: Vec<String> = self.sticky.iter().map(|s| format!("{}@L{}", s.ident, s.home)).collect();
        format!(" sticky[{}]", s.join(", "))
    }

    fn output_span(&self, port: usize) -> Option<Span> {
        self.returns.get(port).map(syn::Ident::span)
    }
}

/// `b.call(id, data inputs, sticky inputs, outputs).run(closure);`
/// (`run_replicable` for a replicable call, `run_keyed` for a call on a
/// keyed state).
fn call(e: &Emit<'_>, c: &CallNode) -> TokenStream {
    let (g, n) = (e.g, e.n);
    // A call without state in a loop may run on replicas (the deployment
    // decides); its closure captures nothing, so it is `Clone`. So may a
    // call on a keyed state, routed by its key; the runtime takes the
    // state as its first sticky input, so it goes first, and the closure
    // binds the sticky values in that order too.
    if let Some((state, key)) = g.keyed_call(n) {
        let mut order: Vec<usize> = (0..c.sticky.len()).collect();
        order.remove(state);
        order.insert(0, state);
        let route = key_route(c, key);
        return call_with(e, c, &order, |b, id, ins, sticky, outs, f| {
            quote!(#b.call(#id, #ins, #sticky, #outs).run_keyed(#f, #route);)
        });
    }
    // A `cluster` algorithm's replicable call carries its values as bytes
    // where the deployment says so (`exec/serialized.rs` in the runtime).
    let run = match (g.stateless(n), distributable(g, n, c)) {
        (true, true) => quote!(run_distributable),
        (true, false) => quote!(run_replicable),
        (false, _) => quote!(run),
    };
    let order: Vec<usize> = (0..c.sticky.len()).collect();
    call_with(e, c, &order, |b, id, ins, sticky, outs, f| quote!(#b.call(#id, #ins, #sticky, #outs).#run(#f);))
}

/// Whether call `n` may run in another process: a user's statement in a
/// `cluster` algorithm (glue such as a loop's `ControlFlow` or an arm
/// selector is cheap, and its values need not be serde), in a loop, whose
/// result is not what an inner loop iterates (`for v in (0..n).filter(..)`
/// makes an iterator, which stays with its loop). A fetch or write stays
/// with the caller's sources, and a call that takes a keyed or snapshot
/// state (or a read's snapshot step) with the state. So does a call that
/// threads a value (a state used by several statements of a loop is
/// carried from one to the next as data): it changes the value where it
/// is, which is often a state holding a channel, a file or a socket.
pub(crate) fn distributable(g: &crate::graph::Graph, n: usize, c: &CallNode) -> bool {
    let io = matches!(&c.code, Code::Let { expr, .. } if crate::frontend::fetch::io_call(expr).is_some());
    let takes_a_state = c.data.iter().flatten().chain(c.sticky.iter().map(|s| &s.ident)).any(|i| {
        let name = i.to_string();
        name.starts_with("__ohua_step") || g.keyed.contains(&name) || g.snapshots.contains(&name)
    });
    let threads_a_value = c.threaded_returns > 0;
    g.cluster
        && c.is_statement()
        && g.nodes[n].depth >= 1
        && !g.feeds_loop_entry(n)
        && !io
        && !takes_a_state
        && !threads_a_value
}

/// The parts of a call's statement: its data inputs, its sticky inputs in
/// `order` (indices into `c.sticky`), its outputs and its closure, put
/// together by `emit(builder, id, ins, sticky, outs, closure)`.
fn call_with(
    e: &Emit<'_>,
    c: &CallNode,
    order: &[usize],
    emit: impl FnOnce(TokenStream, TokenStream, TokenStream, TokenStream, TokenStream, TokenStream) -> TokenStream,
) -> TokenStream {
    let rt = e.rt();
    let ins = (0..c.data.len()).map(|p| e.input(p));
    let base = c.returns.len();
    let sticky = order.iter().map(|&k| {
        let i = e.input(c.data.len() + k);
        let release = e.output(base + k);
        let home = num(c.sticky[k].home);
        quote!(#rt::Sticky::new(#i, #home, #release))
    });
    let outs = (0..base).map(|p| e.output(p));
    let fanned: Vec<bool> = (0..base).map(|p| e.fanned(p)).collect();
    let ordered;
    let c = if order.iter().enumerate().all(|(k, &o)| k == o) {
        c
    } else {
        ordered = CallNode { sticky: order.iter().map(|&k| c.sticky[k].clone()).collect(), ..c.clone() };
        &ordered
    };
    let crosses = distributable(e.g, e.n, c) && e.g.stateless(e.n) && e.g.keyed_call(e.n).is_none();
    let f = closure(c, &fanned, crosses);
    let (b, id) = (e.builder(), e.id());
    emit(quote!(#b), quote!(#id), quote!((#(#ins,)*)), quote!((#(#sticky,)*)), quote!((#(#outs,)*)), f)
}

/// The closure giving the key group of a call on a keyed state: the data
/// inputs bound by reference, the key expression evaluated once more.
fn key_route(c: &CallNode, key: &syn::Expr) -> TokenStream {
    let pats = c.data.iter().map(|d| match d {
        Some(ident) => quote!(ref #ident),
        None => quote!(_),
    });
    let (args, keys) = (local("args"), local("keys"));
    let span = key_span(key);
    let route = quote::quote_spanned!(span=> #keys.of(&(#key)));
    quote!(move |#args, #keys| { let (#(#pats,)*) = *#args; #route })
}

/// Where a key's type error is reported: the key expression.
fn key_span(key: &syn::Expr) -> proc_macro2::Span {
    syn::spanned::Spanned::span(key)
}

/// `Link::new(id, input, output, closure)` for a call fused into a chain
/// (one data input, no sticky input, one output; see `codegen/chain.rs`).
fn link(e: &Emit<'_>, c: &CallNode) -> TokenStream {
    let rt = e.rt();
    let fanned = [e.fanned(0)];
    let (i, o, f, id) = (e.input(0), e.output(0), closure(c, &fanned, false), e.id());
    quote!(#rt::Link::new(#id, #i, #o, #f))
}

/// The closure of a call node: `|(data..), (sticky..)| ((sticky..), (outputs..))`.
/// `fanned[k]`: output `k` goes to several operators; `crosses`: the call
/// may run in another process (a replicable call of a `cluster` algorithm),
/// so every value it takes and gives is checked serde at the user's names.
fn closure(c: &CallNode, fanned: &[bool], crosses: bool) -> TokenStream {
    let data_pats = c.data.iter().map(|d| match d {
        Some(ident) => quote!(mut #ident),
        None => quote!(_),
    });
    let sticky_idents: Vec<_> = c.sticky.iter().map(|s| &s.ident).collect();
    // The statement runs in its own block that yields only the values it
    // binds: its `let` may shadow an input (`let k = f(k);`), and the sticky
    // and threaded values returned after it must be the inputs, not the
    // shadowing bindings (regression test `shadowing_a_captured_value_in_a_loop`).
    // Spanned at the user's names, so a value that borrows from another local
    // (which cannot leave its operator) is reported at the user's binding.
    let bound = &c.returns[..c.returns.len() - c.threaded_returns];
    let bound_spanned: Vec<_> = bound.iter().map(|r| quote::quote_spanned!(r.span()=> #r)).collect();
    let temps: Vec<_> = (0..bound.len()).map(|k| local(&format!("t{k}"))).collect();
    let threaded = &c.returns[bound.len()..];
    let stmt = statement(&c.code, c);
    // Checks spanned at the user's bindings (`exec/checks.rs` in the
    // runtime): a value that is not `Send`, or is used by several operators
    // and is not `Clone`, is reported at its `let` with advice.
    let checks = bound.iter().enumerate().map(|(k, r)| {
        let shared =
            fanned.get(k).copied().unwrap_or(false).then(|| quote::quote_spanned!(r.span()=> __ohua::shared(&#r);));
        let process = crosses.then(|| quote::quote_spanned!(r.span()=> __ohua::crosses_processes(&#r);));
        quote::quote_spanned!(r.span()=> __ohua::crossing(&#r); #shared #process)
    });
    // What the call takes, checked before the statement may move it.
    let taken: Vec<TokenStream> = if crosses {
        c.data
            .iter()
            .flatten()
            .chain(sticky_idents.iter().copied())
            .map(|i| quote::quote_spanned!(i.span()=> __ohua::crosses_processes(&#i);))
            .collect()
    } else {
        Vec::new()
    };
    let stmt = quote!(#(#taken)* #stmt #(#checks)*);
    // The returned tuple too: rustc reports a value that borrows from the
    // operator's own inputs (`for x in xs.iter()`, E0515) at the return.
    let ret_span = bound.first().map_or_else(proc_macro2::Span::call_site, syn::Ident::span);
    // Most statements shadow nothing that is returned after them: then the
    // statement and the returned tuple share one block (a third of the
    // expansion of a call was the extra block).
    let shadows = bound.iter().any(|b| sticky_idents.contains(&b) || threaded.contains(b));
    if !shadows {
        let ret = quote::quote_spanned!(ret_span=> ((#(#sticky_idents,)*), (#(#bound_spanned,)* #(#threaded,)*)));
        return quote!(move |(#(#data_pats,)*), (#(mut #sticky_idents,)*)| { #stmt #ret });
    }
    let ret = quote::quote_spanned!(ret_span=> ((#(#sticky_idents,)*), (#(#temps,)* #(#threaded,)*)));
    quote! {
        move |(#(#data_pats,)*), (#(mut #sticky_idents,)*)| {
            let (#(#temps,)*) = { #stmt (#(#bound_spanned,)*) };
            #ret
        }
    }
}

/// A match dispatch's value: the arm's index, then for every arm with
/// bindings an `Option` of them (`Some` for the arm taken).
pub(crate) fn dispatch(scrutinee: &syn::Expr, arms: &[(syn::Pat, Option<syn::Expr>, Vec<syn::Ident>)]) -> TokenStream {
    let with: Vec<usize> = (0..arms.len()).filter(|k| !arms[*k].2.is_empty()).collect();
    let arms_tokens = arms.iter().enumerate().map(|(k, (pat, guard, binds))| {
        let guard = guard.as_ref().map(|g| quote!(if #g));
        let opts = with.iter().map(|j| {
            if *j == k {
                quote!(::core::option::Option::Some((#(#binds,)*)))
            } else {
                quote!(::core::option::Option::None)
            }
        });
        quote!(#pat #guard => (#k, #(#opts,)*),)
    });
    quote!(match #scrutinee { #(#arms_tokens)* })
}

/// The statement a node runs; it binds the node's non-threaded returns.
fn statement(code: &Code, c: &CallNode) -> TokenStream {
    let out = |k: usize| c.returns.get(k).cloned().unwrap_or_else(|| format_ident!("__ohua_unused"));
    let ins: Vec<_> = c.data.iter().flatten().chain(c.sticky.iter().map(|s| &s.ident)).collect();
    let bound = &c.returns[..c.returns.len() - c.threaded_returns];
    match code {
        Code::Let { pat: Some(p), ty: Some(ty), expr } => quote!(let #p: #ty = #expr;),
        Code::Let { pat: Some(p), ty: None, expr } => quote!(let #p = #expr;),
        Code::Let { pat: None, expr, .. } => quote!(let _ = #expr;),
        Code::Assign { target, op: None, expr } => quote!(#target = #expr;),
        Code::Assign { target, op: Some(op), expr } => quote!(#target #op #expr;),
        Code::IfSelector(expr) => {
            let o = out(0);
            quote!(let #o: usize = if #expr { 0usize } else { 1usize };)
        }
        Code::MatchDispatch { scrutinee, arms } => {
            let dispatch = dispatch(scrutinee, arms);
            quote!(let (#(#bound,)*) = #dispatch;)
        }
        Code::Unwrap(_) => {
            let i = ins[0];
            quote! {
                let (#(#bound,)*) = match #i {
                    ::core::option::Option::Some(t) => t,
                    ::core::option::Option::None => unreachable!("ohua: arm bindings of a different arm"),
                };
            }
        }
        Code::Const(expr) => {
            let o = out(0);
            quote!(let #o = #expr;)
        }
        Code::Pack => {
            let o = out(0);
            quote!(let #o = (#(#ins,)*);)
        }
        Code::Unpack => {
            let i = ins[0];
            quote!(let (#(#bound,)*) = #i;)
        }
        Code::Continue => {
            let o = out(0);
            quote!(let #o = ::core::ops::ControlFlow::Continue((#(#ins,)*));)
        }
        Code::Break => {
            let o = out(0);
            quote!(let #o = ::core::ops::ControlFlow::Break((#(#ins,)*));)
        }
        Code::Await => unreachable!("an await node is not a call (ops/await_.rs)"),
        Code::CloneOf => {
            let o = out(0);
            let i = ins[0];
            quote!(let #o = ::core::clone::Clone::clone(&#i);)
        }
    }
}
