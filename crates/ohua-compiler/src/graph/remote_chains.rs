//! A run of distributable calls in a `cluster` algorithm becomes one call
//! (issue 25): its statements cross to another process together.
//!
//! ```text
//! let raw = decompress(chunk);          let out = {
//! let records = deserialize(raw);  ==>      let raw = decompress(chunk);
//! let selected = filter(records);           let records = deserialize(raw);
//! let out = serialize(selected);            let selected = filter(records);
//!                                           serialize(selected)
//!                                       };
//! ```
//!
//! A distributable call keeps lanes of its own (`graph/ops/call.rs`), so a
//! run of them sent each value to another process and back once per call:
//! a chain of three trivial calls ran at 2.15x the native runtime's time on
//! a cluster of one process, and a pipeline of four calls on big records
//! would send every record across four times. As one call, the chain takes
//! the first call's argument and gives the last one's result, and only
//! those cross (and only those must be serde). The runtime's fusion of
//! chains (`codegen/chain.rs`) cannot do this: it fuses links by section,
//! after the plan, and a served statement must be the same in every
//! process whatever the plan.
//!
//! The calls merged are *links* as `codegen/chain.rs` defines them (one
//! data input, no sticky input, one output bound by a `let`), each
//! distributable, each the only consumer of the one before.

use quote::quote;

use crate::graph::ops::distributable;
use crate::graph::{Graph, Kind, NodeId};
use crate::ir::Code;

/// Merge every maximal run of two or more chained distributable calls of
/// a `cluster` graph into its first call; the others are removed and the
/// last call's consumers read the first's output.
pub fn merge(g: &mut Graph) {
    if !g.cluster {
        return;
    }
    let mut n = 0;
    while n < g.nodes.len() {
        let run = run_from(g, n);
        if run.len() >= 2 {
            merge_run(g, &run);
        }
        n += 1;
    }
}

/// The run of chained distributable calls that starts at `n` (empty if `n`
/// is not one, or is fed by one: then it is inside a run found earlier).
fn run_from(g: &Graph, n: NodeId) -> Vec<NodeId> {
    if !is_link(g, n) || predecessor(g, n).is_some_and(|p| is_link(g, p) && successor(g, p) == Some(n)) {
        return Vec::new();
    }
    let mut run = vec![n];
    while let Some(next) = successor(g, *run.last().expect("non-empty")) {
        run.push(next);
    }
    run
}

/// A distributable call with one data input, no sticky input and one
/// output, bound by a `let`.
fn is_link(g: &Graph, n: NodeId) -> bool {
    let node = &g.nodes[n];
    let Kind::Call(c) = &node.kind else { return false };
    c.data.len() == 1
        && c.data[0].is_some()
        && c.sticky.is_empty()
        && c.returns.len() == 1
        && c.threaded_returns == 0
        && matches!(c.code, Code::Let { pat: Some(_), .. })
        && node.inputs() == 1
        && node.outputs() == 1
        && g.stateless(n)
        && distributable(g, n, c)
}

/// The producer of `n`'s only input.
fn predecessor(g: &Graph, n: NodeId) -> Option<NodeId> {
    g.arc_to(n, 0).map(|a| g.arcs[a].from.0)
}

/// The link that consumes link `n`'s output, if it is its only consumer.
fn successor(g: &Graph, n: NodeId) -> Option<NodeId> {
    if !is_link(g, n) {
        return None;
    }
    g.sole_consumer(n).filter(|&next| is_link(g, next))
}

/// Make `run[0]` the whole run and remove the rest.
fn merge_run(g: &mut Graph, run: &[NodeId]) {
    let calls: Vec<_> = run
        .iter()
        .map(|&n| match &g.nodes[n].kind {
            Kind::Call(c) => c.clone(),
            _ => unreachable!("a run holds calls"),
        })
        .collect();
    let last = calls.last().expect("a run of two or more");
    let Code::Let { pat: Some(pat), ty, expr: last_expr } = &last.code else { unreachable!("links are lets") };
    let mut stmts = Vec::new();
    for (k, c) in calls[..calls.len() - 1].iter().enumerate() {
        if k > 0 {
            stmts.push(bind_input(c, &calls[k - 1]));
        }
        let Code::Let { pat: Some(p), ty, expr } = &c.code else { unreachable!("links are lets") };
        let ty = ty.as_ref().map(|t| quote!(: #t));
        stmts.push(quote!(let #p #ty = #expr;));
    }
    stmts.push(bind_input(last, &calls[calls.len() - 2]));
    let expr: syn::Expr = syn::parse_quote!({ #(#stmts)* #last_expr });
    let mut merged = calls[0].clone();
    merged.code = Code::Let { pat: Some(pat.clone()), ty: ty.clone(), expr };
    merged.returns = last.returns.clone();
    let labels: Vec<&str> = run.iter().map(|&n| g.nodes[n].label.as_str()).collect();
    let label = labels.join("; ");
    let head = run[0];
    g.nodes[head].kind = Kind::Call(merged);
    g.nodes[head].label = label;
    // The last call's consumers read the head's output; the arcs inside
    // the run go.
    let tail = *run.last().expect("non-empty");
    for arc in &mut g.arcs {
        if arc.from.0 == tail {
            arc.from = (head, 0);
        }
    }
    g.arcs.retain(|a| !(run.contains(&a.to.0) && a.to.0 != head));
    remove_nodes(g, &run[1..]);
}

/// `let <c's input> = <previous call's output>;` where the names differ.
fn bind_input(c: &crate::graph::CallNode, previous: &crate::graph::CallNode) -> proc_macro2::TokenStream {
    let (input, output) = (c.data[0].as_ref().expect("a link's input is bound"), &previous.returns[0]);
    if input == output {
        quote!()
    } else {
        quote!(let #input = #output;)
    }
}

/// Remove nodes `gone` (no arc touches them any more) and renumber the
/// others, keeping their order.
fn remove_nodes(g: &mut Graph, gone: &[NodeId]) {
    let mut new_id = Vec::with_capacity(g.nodes.len());
    let mut next = 0;
    for n in 0..g.nodes.len() {
        new_id.push(next);
        if !gone.contains(&n) {
            next += 1;
        }
    }
    let mut n = 0;
    g.nodes.retain(|_| {
        n += 1;
        !gone.contains(&(n - 1))
    });
    for arc in &mut g.arcs {
        debug_assert!(!gone.contains(&arc.from.0) && !gone.contains(&arc.to.0), "an arc of a removed node");
        arc.from.0 = new_id[arc.from.0];
        arc.to.0 = new_id[arc.to.0];
    }
}

#[cfg(test)]
mod tests {
    use crate::graph::{Graph, Kind};
    use crate::pipeline::{compile_with, Options};

    fn graph(item: syn::ItemFn, cluster: bool) -> Graph {
        compile_with(&item, &[], Options { cluster }).expect("compiles").graph
    }

    /// The labels of the graph's call nodes.
    fn calls(g: &Graph) -> Vec<String> {
        g.nodes.iter().filter(|n| matches!(n.kind, Kind::Call(_))).map(|n| n.label.clone()).collect()
    }

    fn pipeline() -> syn::ItemFn {
        syn::parse_quote! {
            fn pipeline(chunks: Vec<Vec<u8>>) -> Vec<u64> {
                let mut writer = Writer::new();
                for chunk in chunks {
                    let raw = decompress(chunk);
                    let records = deserialize(raw);
                    let selected = filter(records);
                    writer.write(selected);
                }
                writer.finish()
            }
        }
    }

    #[test]
    fn a_run_of_distributable_calls_becomes_one_call() {
        let plain = graph(pipeline(), false);
        let g = graph(pipeline(), true);
        assert_eq!(g.nodes.len(), plain.nodes.len() - 2, "{:?}", calls(&g));
        let merged: Vec<String> = calls(&g).into_iter().filter(|l| l.contains("decompress")).collect();
        assert_eq!(merged.len(), 1, "{:?}", calls(&g));
        assert!(merged[0].contains("deserialize") && merged[0].contains("filter"), "{merged:?}");
        // Every arc still joins existing ports, and every port has its arc.
        for a in &g.arcs {
            assert!(a.from.1 < g.nodes[a.from.0].outputs() && a.to.1 < g.nodes[a.to.0].inputs(), "{a:?}");
        }
        for (n, node) in g.nodes.iter().enumerate() {
            for p in 0..node.inputs() {
                assert!(g.arc_to(n, p).is_some(), "input {p} of {}", node.label);
            }
        }
    }

    /// A call whose result two statements use ends a run, and a call with
    /// a captured value is not in one.
    #[test]
    fn a_shared_result_or_a_captured_value_ends_a_run() {
        let g = graph(
            syn::parse_quote! {
                fn shapes(xs: Vec<u64>, w: u64) -> Vec<u64> {
                    let mut out = Vec::new();
                    for x in xs {
                        let a = f(x);
                        let b = g(a);
                        let c = h(b, w);
                        let d = k(c);
                        let e = m(d);
                        out.push(e + d);
                    }
                    out
                }
            },
            true,
        );
        let calls = calls(&g);
        assert!(calls.contains(&"f (x); g (a)".to_string()), "{calls:?}");
        assert!(calls.contains(&"h (b , w)".to_string()), "{calls:?}");
        assert!(calls.contains(&"k (c)".to_string()) && calls.contains(&"m (d)".to_string()), "{calls:?}");
    }
}
