//! The static I/O explain: every fetch site of a graph and the fewest call
//! rounds its source needs, from the longest chain of dependent fetches on
//! that source (the batching optimum the runtime reaches; its run report's
//! `explain_io` shows what a run did).
//!
//! A source is named by the parameter a site fetches through; inlined
//! algorithms that take the same source under another name count it
//! separately. Chains through a loop's feedback (a fetch whose request
//! depends on an earlier iteration's answer) repeat per iteration and are
//! reported as such.

use std::fmt::Write;

use super::{Graph, Kind, NodeId};
use crate::ir::Code;

/// One fetch or write site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchSite {
    /// The `submit` operator (takes the request).
    pub submit: NodeId,
    /// The `await` operator (passes the answer on), if the answer is used.
    pub answer: Option<NodeId>,
    /// The source parameter it goes through.
    pub source: String,
    /// The fewest call rounds of `source` before this site's can go out, plus one.
    pub round: usize,
    /// The fetches of the same source it depends on, nearest first.
    pub after: Vec<NodeId>,
    /// Its request depends on an answer of an earlier loop iteration.
    pub per_iteration: bool,
}

/// Every fetch site of `g` with its round.
pub fn fetch_sites(g: &Graph) -> Vec<FetchSite> {
    let source_of: Vec<Option<String>> = g
        .nodes
        .iter()
        .map(|n| match &n.kind {
            Kind::Call(c) => match &c.code {
                Code::Let { expr, .. } => crate::frontend::fetch::io_call(expr).map(|(src, _, _)| src),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let is_await = |n: NodeId| matches!(&g.nodes[n].kind, Kind::Await(_));
    // The await of each submit, and the source of each await.
    let answer = |s: NodeId| g.arcs.iter().find(|a| a.from.0 == s && is_await(a.to.0)).map(|a| a.to.0);
    let mut awaits_source: Vec<Option<String>> = vec![None; g.nodes.len()];
    for (s, src) in source_of.iter().enumerate() {
        if let (Some(src), Some(a)) = (src, answer(s)) {
            awaits_source[a] = Some(src.clone());
        }
    }
    let preds = |n: NodeId| g.arcs.iter().filter(move |a| a.to.0 == n && !a.feedback).map(|a| a.from.0);
    let mut sites = Vec::new();
    for (s, src) in source_of.iter().enumerate() {
        let Some(src) = src else { continue };
        // Longest chain of awaits of `src` into each node (ids are in
        // dependency order apart from feedback arcs), with the await it
        // came through.
        let mut depth: Vec<(usize, Option<NodeId>)> = vec![(0, None); s + 1];
        for n in 0..=s {
            for p in preds(n) {
                let through = awaits_source[p].as_deref() == Some(src.as_str());
                let d = depth[p].0 + usize::from(through);
                if d > depth[n].0 {
                    depth[n] = (d, if through { Some(p) } else { depth[p].1 });
                }
            }
        }
        let mut after = Vec::new();
        let mut at = depth[s].1;
        while let Some(a) = at {
            after.push(a);
            at = depth[a].1;
        }
        let per_iteration = answer(s).is_some_and(|a| reaches_through_feedback(g, a, s));
        sites.push(FetchSite {
            submit: s,
            answer: answer(s),
            source: src.clone(),
            round: depth[s].0 + 1,
            after,
            per_iteration,
        });
    }
    sites
}

/// Whether a path from `from` to `to` uses a feedback arc.
fn reaches_through_feedback(g: &Graph, from: NodeId, to: NodeId) -> bool {
    let mut seen = vec![None::<bool>; g.nodes.len()];
    let mut stack = vec![(from, false)];
    while let Some((n, fed)) = stack.pop() {
        if n == to && fed {
            return true;
        }
        if seen[n] == Some(true) || seen[n] == Some(fed) {
            continue;
        }
        seen[n] = Some(fed || seen[n].unwrap_or(false));
        for a in g.arcs.iter().filter(|a| a.from.0 == n) {
            stack.push((a.to.0, fed || a.feedback));
        }
    }
    false
}

/// The static explain text of `g` (the `io` stage of `ohua dump`).
pub fn print_io(g: &Graph) -> String {
    let sites = fetch_sites(g);
    let mut out = format!("I/O of `{}` (static: the fewest call rounds per source)\n", g.name);
    if sites.is_empty() {
        out += "no fetches\n";
    }
    let mut sources: Vec<&str> = Vec::new();
    for s in &sites {
        if !sources.contains(&s.source.as_str()) {
            sources.push(&s.source);
        }
    }
    let short = |n: NodeId| g.nodes[n].name.rsplit_once('/').map_or(g.nodes[n].name.clone(), |(_, s)| s.to_string());
    for src in sources {
        let mine: Vec<&FetchSite> = sites.iter().filter(|s| s.source == src).collect();
        let rounds = mine.iter().map(|s| s.round).max().unwrap_or(0);
        let written = mine.iter().any(|s| g.nodes[s.submit].label.starts_with(&format!("{src}.write(")));
        let bound = if written {
            " at least (it is written: each switch between reads and writes is a call of its own)"
        } else {
            ""
        };
        let _ = writeln!(out, "source {src}: {rounds} call round(s){bound}");
        for s in mine {
            let _ = write!(out, "  round {}: {} ({})", s.round, g.nodes[s.submit].label, short(s.submit));
            if !s.after.is_empty() {
                // Name each earlier fetch by its request.
                let request = |a: NodeId| {
                    g.arcs.iter().find(|arc| arc.to == (a, 0)).map_or(short(a), |arc| g.nodes[arc.from.0].label.clone())
                };
                let after: Vec<String> = s.after.iter().map(|&a| request(a)).collect();
                let _ = write!(out, " after {}", after.join(" <- "));
            }
            if s.per_iteration {
                out += "; repeats per loop iteration (its request depends on an earlier iteration's answer)";
            }
            out += "\n";
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::fetch_sites;

    fn rounds(f: syn::ItemFn) -> Vec<(String, usize, bool)> {
        let compiled = crate::compile(&f, &[]).expect("compiles");
        fetch_sites(&compiled.graph).into_iter().map(|s| (s.source, s.round, s.per_iteration)).collect()
    }

    #[test]
    fn rounds_are_the_longest_chain_of_dependent_fetches_per_source() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn main_pane(db: &Source<Db>, other: &Source<Other>, n: usize) -> Vec<u64> {
                let ids = db.fetch(PostIds);
                let ids = ids.unwrap_or_default();
                let infos: Vec<_> = ids.into_iter().map(|id| { let i = db.fetch(PostInfo(id)); i }).collect();
                let o = other.fetch(n);
                let last = last_n(infos, o);
                let bodies: Vec<_> = last.into_iter().map(|i| { let c = db.fetch(PostContent(i)); c }).collect();
                render(bodies)
            }
        };
        let got = rounds(f);
        let want = [("db", 1), ("db", 2), ("other", 1), ("db", 3)];
        assert_eq!(got.iter().map(|(s, r, _)| (s.as_str(), *r)).collect::<Vec<_>>(), want);
    }

    #[test]
    fn a_fetch_fed_by_an_earlier_iteration_repeats_per_iteration() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn walk(db: &Source<Db>, start: u64) -> u64 {
                let mut cur = start;
                while more(cur) {
                    let r = db.fetch(cur);
                    cur = step(r);
                }
                cur
            }
        };
        assert_eq!(rounds(f), [("db".to_string(), 1, true)]);
    }
}
