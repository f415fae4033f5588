//! Control lowering: SSA IR → dataflow graph.
//!
//! Every region becomes a *context* (see the runtime's `node/README.md`):
//! the top level, a loop body (one level deeper) or a branch arm (same level,
//! filtered). A value used in a deeper context is routed there: through a
//! `switch` for every arm boundary at its own level, then, if the consumer is
//! inside a loop, as a *sticky* input (Ohua's `ctrl`, fused into the
//! consumer). Operators with no input of their own context get the context's
//! tick stream so they still fire once per activation.

mod context;
mod control;
mod route;

use std::collections::HashMap;

use quote::format_ident;

use crate::error::Result;
use crate::graph::ops::{Await, Sink, Source, Tick};
use crate::graph::{Arc, CallNode, Graph, Kind, Node, NodeId, Sticky};
use crate::ir::{Code, Ir, NodeOp, Op, Region, Use, VarId};
use context::{Ctx, CtxId};

/// Lower an algorithm's IR to its dataflow graph.
///
/// # Errors
///
/// Currently infallible for IR produced by `resolve`; internal inconsistencies panic.
pub fn lower(ir: &Ir) -> Result<Graph> {
    let mut l = Lower {
        ir,
        g: Graph {
            name: ir.name.clone(),
            nodes: Vec::new(),
            arcs: Vec::new(),
            keyed: Vec::new(),
            cloneable: Vec::new(),
            cluster: false,
            snapshots: Vec::new(),
        },
        ctxs: vec![Ctx::top()],
        def: HashMap::new(),
        switched: HashMap::new(),
        uses: count_uses(ir),
        next_synthetic: ir.vars.len() as u32,
        line: 0,
    };
    for p in &ir.params {
        let ident = ir.vars[p.0 as usize].ident.clone();
        let n = l.add(Node::new(
            format!("{}/{}#arg", ir.name, ident),
            0,
            Source { ident: ident.clone() }.into(),
            ident.to_string(),
            // The parameter's identifier keeps its span in the signature.
            line_of(ident.span()),
        ));
        l.def.insert(*p, (0, (n, 0)));
    }
    l.region(&ir.body, 0);
    let result = ir.body.yields[0];
    let src = l.data(result, 0);
    let sink = l.add(Node::new(format!("{}/result", ir.name), 0, Sink.into(), "result".into(), 0));
    l.connect(src, (sink, 0), false);
    Ok(l.g)
}

/// Where a value comes from: (node, output port).
pub(crate) type Src = (NodeId, usize);

/// A sticky input being wired: the slot, its stream, and where its released
/// value is defined (context of the value's level, the value).
type StickyIn = (Sticky, Src, Option<(CtxId, VarId)>);

pub(crate) struct Lower<'a> {
    ir: &'a Ir,
    g: Graph,
    ctxs: Vec<Ctx>,
    /// Defining context and source of every value lowered so far.
    def: HashMap<VarId, (CtxId, Src)>,
    /// Values already switched into an arm context.
    switched: HashMap<(VarId, CtxId), Src>,
    /// How many times each value is consumed.
    uses: HashMap<VarId, usize>,
    /// Next id for values the lowering itself introduces (packed tuples).
    next_synthetic: u32,
    /// Line of the `if`/`match`/loop being lowered (0 at the top level):
    /// the line of the control and glue nodes lowering adds for it, which
    /// have no source code of their own.
    line: u32,
}

impl Node {
    fn new(name: String, depth: u16, kind: Kind, label: String, line: u32) -> Self {
        Node { name, depth, kind, label, line }
    }
}

/// The 1-based line `span` starts on, 0 if unknown: proc-macro2 reports 0
/// where the compiler gives macros no locations (before Rust 1.88).
fn line_of(span: proc_macro2::Span) -> u32 {
    // Outside a macro (the compiler's tests, the CLI) a span `quote!` made
    // has no source: proc-macro2 puts it on line 1 of `<unspecified>`.
    if span.file() == "<unspecified>" {
        return 0;
    }
    u32::try_from(span.start().line).unwrap_or(0)
}

impl Lower<'_> {
    fn add(&mut self, n: Node) -> NodeId {
        self.g.nodes.push(n);
        self.g.nodes.len() - 1
    }

    /// A control node in context `ctx`, named `algorithm/kind@id` after its
    /// kind's name (its ports are the kind's too: `graph/ops/`).
    fn control(&mut self, ctx: CtxId, kind: impl Into<Kind>) -> NodeId {
        let (id, kind) = (self.g.nodes.len(), kind.into());
        let what = kind.op().name();
        let (name, depth) = (format!("{}/{what}@{id}", self.ir.name), self.ctxs[ctx].depth);
        self.add(Node::new(name, depth, kind, what.into(), self.line))
    }

    fn connect(&mut self, from: Src, to: (NodeId, usize), feedback: bool) {
        let span = proc_macro2::Span::call_site();
        self.g.arcs.push(Arc { from, to, feedback, span });
    }

    fn live(&self, v: VarId) -> bool {
        self.uses.get(&v).copied().unwrap_or(0) > 0
    }

    fn region(&mut self, r: &Region, ctx: CtxId) {
        for op in &r.ops {
            self.op(op, ctx);
        }
    }

    fn op(&mut self, op: &Op, ctx: CtxId) {
        // Nodes lowered for a construct get its line; a nested one sets its
        // own and the outer one's comes back for the nodes after it.
        let outer = self.line;
        if let Op::Branch { span, .. } | Op::For { span, .. } | Op::Loop { span, .. } = op {
            self.line = line_of(*span);
        }
        self.construct(op, ctx);
        self.line = outer;
    }

    fn construct(&mut self, op: &Op, ctx: CtxId) {
        match op {
            Op::Node(n) => self.call(n, ctx, line_of(n.span)),
            Op::Branch { sel, arms, outs, .. } => self.branch(*sel, arms, outs, ctx),
            Op::For { coll, elem, carried, collect, body, .. } => self.for_loop(
                *coll,
                *elem,
                carried,
                collect.as_ref().map(|c| c.0),
                collect.as_ref().and_then(|c| c.1.clone()),
                body,
                ctx,
            ),
            Op::Loop { carried, body, outs, .. } => self.while_loop(carried, body, outs, ctx),
        }
    }

    /// A code node on `line`: route every input, decide data vs sticky,
    /// wire outputs.
    fn call(&mut self, n: &NodeOp, ctx: CtxId, line: u32) {
        let generated = !matches!(
            n.code,
            Code::Let { .. } | Code::Assign { .. } | Code::IfSelector(_) | Code::MatchDispatch { .. }
        );
        let mut data: Vec<(Option<syn::Ident>, Src)> = Vec::new();
        let mut sticky: Vec<StickyIn> = Vec::new();
        let mut threaded: Vec<(syn::Ident, VarId)> = Vec::new();
        for (k, input) in n.inputs.iter().enumerate() {
            let ident = if generated { format_ident!("__ohua_in{}", k) } else { input.ident.clone() };
            let r = self.route(input.var, ctx);
            match (input.usage, r.sticky) {
                (Use::Read, false) => data.push((Some(ident), r.src)),
                (Use::Read, true) => sticky.push((Sticky { ident, home: r.home }, r.src, None)),
                (Use::Thread { out }, false) => {
                    data.push((Some(ident.clone()), r.src));
                    if self.live(out) {
                        threaded.push((ident, out));
                    }
                }
                (Use::Thread { out }, true) => sticky.push((Sticky { ident, home: r.home }, r.src, Some((r.ctx, out)))),
            }
        }
        if data.is_empty() {
            let tick = self.tick(ctx);
            data.push((None, tick));
        }
        // Allocate the node only now, after routing created any switch it
        // reads from: code generation emits nodes in id order, producers first.
        // Its kind (`Tick` for now) is set at the end, when its ports are known.
        let id = self.add(Node::new(n.name.clone(), self.ctxs[ctx].depth, Tick.into(), label(n), line));
        let mut returns: Vec<syn::Ident> =
            n.outputs
                .iter()
                .enumerate()
                .map(|(k, v)| {
                    if generated {
                        format_ident!("__ohua_out{}", k)
                    } else {
                        self.ir.vars[v.0 as usize].ident.clone()
                    }
                })
                .collect();
        for (k, v) in n.outputs.iter().enumerate() {
            self.def.insert(*v, (ctx, (id, k)));
        }
        for (ident, out) in &threaded {
            self.def.insert(*out, (ctx, (id, returns.len())));
            returns.push(ident.clone());
        }
        let base = returns.len();
        for (k, (_, _, release)) in sticky.iter().enumerate() {
            if let Some((home_ctx, out)) = release {
                self.def.insert(*out, (*home_ctx, (id, base + k)));
            }
        }
        for (k, (_, src)) in data.iter().enumerate() {
            self.connect(*src, (id, k), false);
        }
        for (k, (_, src, _)) in sticky.iter().enumerate() {
            self.connect(*src, (id, data.len() + k), false);
        }
        let kind = &mut self.g.nodes[id].kind;
        if let Code::Await = n.code {
            // A fetch's answer (`frontend/fetch.rs`): the ticket in, the
            // answer (if bound) out.
            debug_assert!(data.len() == 1 && sticky.is_empty() && returns.len() <= 1, "an await reads one ticket");
            *kind = Await { answer: returns.pop() }.into();
            return;
        }
        *kind = Kind::Call(CallNode {
            code: n.code.clone(),
            data: data.into_iter().map(|(i, _)| i).collect(),
            sticky: sticky.into_iter().map(|(s, _, _)| s).collect(),
            threaded_returns: threaded.len(),
            returns,
        });
    }

    /// A generated code node in `ctx` reading `inputs`, defining `outputs`.
    fn glue(&mut self, ctx: CtxId, what: &str, code: Code, inputs: &[VarId], outputs: Vec<VarId>) {
        let n = NodeOp {
            name: format!("{}/{what}@{}", self.ir.name, self.g.nodes.len()),
            code,
            // Generated code binds inputs positionally; the ident is unused.
            inputs: inputs
                .iter()
                .map(|v| crate::ir::Input { var: *v, ident: format_ident!("__ohua_unused"), usage: Use::Read })
                .collect(),
            outputs,
            span: proc_macro2::Span::call_site(),
        };
        // Generated code has no line of its own: the construct's.
        self.call(&n, ctx, self.line);
    }

    /// A value that does not exist in the IR (a packed tuple).
    fn synthetic(&mut self) -> VarId {
        // Synthetic values live past the IR's table; they only need a def entry.
        let id = VarId(self.next_synthetic);
        self.next_synthetic += 1;
        self.uses.insert(id, 1);
        id
    }
}

/// Short label of a node for dumps.
fn label(n: &NodeOp) -> String {
    use quote::ToTokens;
    let s = match &n.code {
        // A fetch's `submit` reads as the fetch (`db.fetch(PostInfo (id))`).
        Code::Let { expr, .. } if crate::frontend::fetch::io_call(expr).is_some() => {
            let (src, method, request) = crate::frontend::fetch::io_call(expr).expect("checked");
            format!("{src}.{method}({request})")
        }
        Code::Let { expr, .. } | Code::Assign { expr, .. } | Code::IfSelector(expr) => {
            expr.to_token_stream().to_string()
        }
        Code::MatchDispatch { scrutinee, .. } => format!("match {}", scrutinee.to_token_stream()),
        other => format!("{other:?}").split_whitespace().next().unwrap_or("").to_lowercase(),
    };
    if s.len() > 60 {
        format!("{}…", &s[..s.char_indices().nth(57).map(|(i, _)| i).unwrap_or(s.len())])
    } else {
        s
    }
}

/// How many times each value is consumed anywhere in the IR.
fn count_uses(ir: &Ir) -> HashMap<VarId, usize> {
    fn region(r: &Region, u: &mut HashMap<VarId, usize>) {
        for op in &r.ops {
            match op {
                Op::Node(n) => n.inputs.iter().for_each(|i| *u.entry(i.var).or_default() += 1),
                Op::Branch { sel, arms, .. } => {
                    *u.entry(*sel).or_default() += 1;
                    arms.iter().for_each(|a| region(a, u));
                }
                Op::For { coll, carried, body, .. } => {
                    *u.entry(*coll).or_default() += 1;
                    carried.iter().for_each(|c| *u.entry(c.init).or_default() += 1);
                    region(body, u);
                }
                Op::Loop { carried, body, .. } => {
                    carried.iter().for_each(|c| *u.entry(c.init).or_default() += 1);
                    region(body, u);
                }
            }
        }
        r.yields.iter().for_each(|y| *u.entry(*y).or_default() += 1);
    }
    let mut u = HashMap::new();
    region(&ir.body, &mut u);
    u
}
