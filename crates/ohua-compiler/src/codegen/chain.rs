//! Which `call` nodes are emitted as fused chains (runtime `node/chain.rs`).
//!
//! A call can be a *link* when it has one data input, no sticky input and one
//! output; two links are chained when the first one's output goes to the
//! second one's input and nowhere else. Every maximal run of two or more
//! chained links is built as one chain; the runtime then fuses the links that
//! the deployment puts in the same section into one operator.

use crate::graph::{Graph, Kind};

/// The chains of a graph.
pub(super) struct Chains {
    /// `next[n]`: the link fed by link `n`, if `n` is chained to one.
    next: Vec<Option<usize>>,
    /// Whether node `n` is part of some chain.
    member: Vec<bool>,
    /// The first link of every chain, in node order.
    heads: Vec<usize>,
}

impl Chains {
    /// Find the chains of `g`.
    pub(super) fn of(g: &Graph) -> Chains {
        let n = g.nodes.len();
        let mut next = vec![None; n];
        let mut has_prev = vec![false; n];
        for (id, slot) in next.iter_mut().enumerate() {
            if let Some(succ) = successor(g, id) {
                *slot = Some(succ);
                has_prev[succ] = true;
            }
        }
        let member: Vec<bool> = (0..n).map(|id| next[id].is_some() || has_prev[id]).collect();
        let heads = (0..n).filter(|&id| next[id].is_some() && !has_prev[id]).collect();
        Chains { next, member, heads }
    }

    /// Whether node `n` is emitted as a link.
    pub(super) fn is_link(&self, n: usize) -> bool {
        self.member[n]
    }

    /// Every chain, first link first.
    pub(super) fn chains(&self) -> impl Iterator<Item = Vec<usize>> + '_ {
        self.heads.iter().map(|&head| {
            let mut chain = vec![head];
            while let Some(succ) = self.next[*chain.last().expect("non-empty")] {
                chain.push(succ);
            }
            chain
        })
    }
}

/// A call with one data input, no sticky input and one output; in a
/// `cluster` algorithm, not a replicable one (its lanes carry its own
/// arguments and results as bytes: `exec/serialized.rs` in the runtime).
fn is_linkable(g: &Graph, n: usize) -> bool {
    let node = &g.nodes[n];
    !(g.stateless(n) && matches!(&node.kind, Kind::Call(c) if crate::graph::ops::distributable(g, n, c)))
        && matches!(&node.kind, Kind::Call(c) if c.data.len() == 1 && c.sticky.is_empty() && c.returns.len() == 1)
        && node.inputs() == 1
        && node.outputs() == 1
}

/// The link that consumes link `n`'s output, if it is the only consumer.
fn successor(g: &Graph, n: usize) -> Option<usize> {
    if !is_linkable(g, n) {
        return None;
    }
    g.sole_consumer(n).filter(|&succ| is_linkable(g, succ))
}

#[cfg(test)]
mod tests {
    use super::Chains;
    use crate::compile;

    /// The chains of `item`, each as the callee names of its links.
    fn chains(item: syn::ItemFn) -> Vec<Vec<String>> {
        let g = compile(&item, &[]).expect("compiles").graph;
        let chains = Chains::of(&g);
        chains.chains().map(|c| c.iter().map(|&n| g.nodes[n].label.clone()).collect()).collect()
    }

    #[test]
    fn a_straight_run_of_calls_is_one_chain() {
        let found = chains(syn::parse_quote! {
            fn three(xs: Vec<u64>) -> Vec<u64> {
                let mut out = Vec::new();
                for x in xs {
                    let a = f(x);
                    let b = g(a);
                    let c = h(b);
                    out.push(c);
                }
                out
            }
        });
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].len(), 3, "{found:?}");
    }

    /// In a `cluster` algorithm each replicable statement keeps its own
    /// lanes (its values cross as bytes): no chain.
    #[test]
    fn a_cluster_algorithm_fuses_no_replicable_calls() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn three(xs: Vec<u64>) -> Vec<u64> {
                let mut out = Vec::new();
                for x in xs {
                    let a = f(x);
                    let b = g(a);
                    out.push(b);
                }
                out
            }
        };
        let g = crate::compile_with(&item, &[], crate::Options { cluster: true }).expect("compiles").graph;
        assert_eq!(Chains::of(&g).chains().count(), 0);
        assert_eq!(chains(item).len(), 1, "without `cluster` f and g are one chain");
    }

    #[test]
    fn a_value_used_twice_ends_the_chain() {
        // `a` goes to `g` and to `k`: its producer `f` cannot pass it on alone.
        let found = chains(syn::parse_quote! {
            fn fan(xs: Vec<u64>) -> Vec<u64> {
                let mut out = Vec::new();
                for x in xs {
                    let a = f(x);
                    let b = g(&a);
                    let c = h(b);
                    let d = k(c, a);
                    out.push(d);
                }
                out
            }
        });
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].len(), 2, "only g -> h chain: {found:?}");
    }

    #[test]
    fn stateful_calls_do_not_join_chains() {
        // `s.step(a)` holds `s` as a sticky input: it stays its own operator.
        let found = chains(syn::parse_quote! {
            fn stateful(xs: Vec<u64>) -> u64 {
                let mut s = S::new();
                for x in xs {
                    let a = f(x);
                    let b = s.step(a);
                    let c = g(b);
                    let d = h(c);
                    s.add(d);
                }
                s.total()
            }
        });
        for chain in &found {
            assert!(chain.len() >= 2);
            assert!(chain.iter().all(|label| !label.contains("step") && !label.contains("add")), "{found:?}");
        }
    }
}
