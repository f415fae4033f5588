//! Which fetch site joined which call round: recorded by the `await`
//! operators as the answers pass, read by the explain report.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use super::pending::{How, Origin};
use crate::graph::GraphInfo;
use crate::stats::IoSite;

/// Per (await node, source): what its fetches did.
#[derive(Default)]
pub(crate) struct Sites {
    by: Mutex<BTreeMap<(u32, usize), Counts>>,
}

#[derive(Default)]
struct Counts {
    fetches: u64,
    deduplicated: u64,
    cached: u64,
    rounds: BTreeSet<u64>,
}

impl Sites {
    /// The fetches of await node `node` came from `origins`.
    pub(crate) fn record(&self, node: u32, origins: &[Origin]) {
        let mut by = self.by.lock().unwrap_or_else(|e| e.into_inner());
        for o in origins {
            let c = by.entry((node, o.source)).or_default();
            c.fetches += 1;
            match o.how {
                How::Sent => {}
                How::Deduplicated => c.deduplicated += 1,
                How::Cached => c.cached += 1,
            }
            c.rounds.insert(o.round);
        }
    }

    /// One entry per site and source, rounds numbered 1.. per source;
    /// `sources` are the sources' names by their index.
    pub(crate) fn report(&self, graph: &'static GraphInfo, sources: &[String]) -> Vec<IoSite> {
        let by = self.by.lock().unwrap_or_else(|e| e.into_inner());
        // A source's rounds, as it numbered them, to 1, 2, ..
        let mut numbering: BTreeMap<usize, BTreeSet<u64>> = BTreeMap::new();
        for ((_, source), c) in by.iter() {
            numbering.entry(*source).or_default().extend(&c.rounds);
        }
        let rank =
            |source: usize, round: u64| numbering[&source].iter().position(|&r| r == round).map_or(0, |i| i as u64 + 1);
        by.iter()
            .map(|(&(node, source), c)| {
                let submit = graph.arcs.iter().find(|a| a.to == node && a.to_port == 0).map(|a| a.from as usize);
                IoSite {
                    operator: graph.nodes[node as usize].name,
                    submit: submit.map(|s| graph.nodes[s].name),
                    request: submit.map_or_else(String::new, |s| request_text(graph.nodes[s].label)),
                    source: sources.get(source).cloned().unwrap_or_default(),
                    fetches: c.fetches,
                    deduplicated: c.deduplicated,
                    cached: c.cached,
                    rounds: c.rounds.iter().map(|&r| rank(source, r)).collect(),
                }
            })
            .collect()
    }
}

/// `db.fetch(PostInfo(id))` from the label of a submit operator
/// (`:: ohua :: __private :: io :: submit(& db, PostInfo(id))` or
/// `__ohua_order_db.write(& db, w)`, spaced as the compiler printed it).
fn request_text(label: &str) -> String {
    let Some((head, args)) = label.split_once("(&") else { return label.to_string() };
    let method = if head.trim_end().ends_with("write") { "write" } else { "fetch" };
    let Some((src, rest)) = args.split_once(',') else { return label.to_string() };
    let rest = rest.trim();
    let rest = rest.strip_suffix(')').unwrap_or(rest).trim_end();
    format!("{}.{method}({rest})", src.trim())
}

#[cfg(test)]
mod tests {
    use super::request_text;

    #[test]
    fn request_texts_read_like_the_source_code() {
        assert_eq!(
            request_text(":: ohua :: __private :: io :: submit (& db , PostInfo (id))"),
            "db.fetch(PostInfo (id))"
        );
        assert_eq!(request_text(":: ohua :: __private :: io :: submit(& db, i % 7)"), "db.fetch(i % 7)");
        assert_eq!(request_text("__ohua_order_kv.write(& kv, (k, n))"), "kv.write((k, n))");
        assert_eq!(request_text("__ohua_order_kv . fetch (& kv , k)"), "kv.fetch(k)");
        assert_eq!(request_text("something else"), "something else");
    }
}
