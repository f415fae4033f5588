//! The explain report of a run's I/O: every fetch site, the call rounds of
//! its source it joined, and for a site that went out after an earlier
//! round, the chain of operators that made it wait.

use std::collections::VecDeque;
use std::fmt::Write;

use super::{IoSite, RunReport};
use crate::graph::GraphInfo;

impl RunReport {
    /// Every fetch site, grouped by source and ordered by round, and for
    /// each site whose first round is not its source's first, the chain of
    /// operators from an earlier fetch's answer to its request: why it could
    /// not join the earlier batch. Also printed after every run that fetches
    /// when `OHUA_EXPLAIN=1`.
    ///
    /// # Example
    ///
    /// ```
    /// # use ohua_runtime::{graph::{GraphInfo, NodeInfo, ArcInfo, OpKind}, report::{IoSite, RunReport}, deploy::Plan};
    /// static G: GraphInfo = GraphInfo {
    ///     algorithm: "a",
    ///     file: "",
    ///     nodes: &[
    ///         NodeInfo { name: "a/submit#1", kind: OpKind::Call, depth: 0, label: ":: ohua :: __private :: io :: submit (& db , 1)", replicable: false, line: 0 },
    ///         NodeInfo { name: "a/__ohua_await#2", kind: OpKind::Await, depth: 0, label: "await", replicable: false, line: 0 },
    ///         NodeInfo { name: "a/next#3", kind: OpKind::Call, depth: 0, label: "next (x)", replicable: false, line: 0 },
    ///         NodeInfo { name: "a/submit#4", kind: OpKind::Call, depth: 0, label: ":: ohua :: __private :: io :: submit (& db , y)", replicable: false, line: 0 },
    ///         NodeInfo { name: "a/__ohua_await#5", kind: OpKind::Await, depth: 0, label: "await", replicable: false, line: 0 },
    ///     ],
    ///     arcs: &[
    ///         ArcInfo { from: 0, from_port: 0, to: 1, to_port: 0, feedback: false },
    ///         ArcInfo { from: 1, from_port: 0, to: 2, to_port: 0, feedback: false },
    ///         ArcInfo { from: 2, from_port: 0, to: 3, to_port: 0, feedback: false },
    ///         ArcInfo { from: 3, from_port: 0, to: 4, to_port: 0, feedback: false },
    ///     ],
    /// };
    /// let site = |op, submit, request: &str, round| IoSite {
    ///     operator: op, submit: Some(submit), request: request.into(), source: "Db".into(),
    ///     fetches: 1, deduplicated: 0, cached: 0, rounds: vec![round],
    /// };
    /// let report = RunReport {
    ///     graph: &G, algorithm: "a", sections: 1, wall: Default::default(), nodes: vec![],
    ///     started: std::time::Instant::now(),
    ///     plan: Plan::unreplicated(vec![0; 5], 1, 1, 1), section_stats: vec![], recuts: vec![], panicked: None, io: vec![],
    ///     io_sites: vec![site("a/__ohua_await#2", "a/submit#1", "db.fetch(1)", 1), site("a/__ohua_await#5", "a/submit#4", "db.fetch(y)", 2)],
    ///     markers: vec![], snapshots: Default::default(),
    /// };
    /// let text = report.explain_io();
    /// assert!(text.contains("round 2: db.fetch(y)"), "{text}");
    /// assert!(text.contains("waits for db.fetch(1) (round 1): __ohua_await#2 -> next#3 -> submit#4"), "{text}");
    /// ```
    pub fn explain_io(&self) -> String {
        let mut out = format!("I/O of `{}`:\n", self.algorithm);
        let mut sources: Vec<&str> = Vec::new();
        for s in &self.io_sites {
            if !sources.contains(&s.source.as_str()) {
                sources.push(&s.source);
            }
        }
        for source in sources {
            let mut sites: Vec<&IoSite> = self.io_sites.iter().filter(|s| s.source == source).collect();
            sites.sort_by_key(|s| (s.rounds.first().copied(), s.operator));
            let rounds = sites.iter().flat_map(|s| s.rounds.iter()).max().copied().unwrap_or(0);
            let _ = writeln!(out, "source {source}: {rounds} call round(s)");
            for s in &sites {
                let first = s.rounds.first().copied().unwrap_or(0);
                let rounds = s.rounds.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
                let _ = writeln!(
                    out,
                    "  round {rounds}: {} ({} fetches, {} deduplicated, {} cached) at {}",
                    s.request,
                    s.fetches,
                    s.deduplicated,
                    s.cached,
                    short(s.operator)
                );
                if first > 1 {
                    let _ = writeln!(out, "    {}", self.why_later(s, first));
                }
            }
        }
        out
    }

    /// Why `site` went out in round `first` and not before: a path from an
    /// earlier site's answer (of this source first, else of any) to its
    /// request.
    fn why_later(&self, site: &IoSite, first: u64) -> String {
        let Some(submit) = site.submit else { return "its request operator is not known".into() };
        // The nearest earlier round first: the fetch it waited for last.
        let latest_before = |e: &IoSite| e.rounds.iter().filter(|&&r| r < first).max().copied();
        let mut same: Vec<&IoSite> =
            self.io_sites.iter().filter(|e| e.source == site.source && latest_before(e).is_some()).collect();
        same.sort_by_key(|e| std::cmp::Reverse(latest_before(e)));
        let others = self.io_sites.iter().filter(|e| e.source != site.source);
        for e in same.into_iter().chain(others) {
            if let Some(path) = path(self.graph, e.operator, submit) {
                let round = match latest_before(e) {
                    Some(r) if e.source == site.source => format!(" (round {r})"),
                    _ => format!(" of source {}", e.source),
                };
                let chain = path.iter().map(|n| short(n)).collect::<Vec<_>>().join(" -> ");
                return format!("waits for {}{round}: {chain}", e.request);
            }
        }
        "no fetch leads to it: it was reached after the earlier round answered (a loop or branch waiting for another value)".into()
    }
}

/// The node name without its algorithm (`submit#4`).
fn short(name: &str) -> &str {
    name.rsplit_once('/').map_or(name, |(_, n)| n)
}

/// The shortest chain of operators from the node named `from` to the one
/// named `to`, feedback arcs included.
fn path(graph: &GraphInfo, from: &str, to: &str) -> Option<Vec<&'static str>> {
    let index = |name: &str| graph.nodes.iter().position(|n| n.name == name);
    let (from, to) = (index(from)?, index(to)?);
    let mut parent = vec![usize::MAX; graph.nodes.len()];
    parent[from] = from;
    let mut queue = VecDeque::from([from]);
    while let Some(n) = queue.pop_front() {
        if n == to {
            let mut chain = vec![graph.nodes[n].name];
            let mut at = n;
            while at != from {
                at = parent[at];
                chain.push(graph.nodes[at].name);
            }
            chain.reverse();
            return Some(chain);
        }
        for a in graph.arcs.iter().filter(|a| a.from as usize == n) {
            let next = a.to as usize;
            if parent[next] == usize::MAX {
                parent[next] = n;
                queue.push_back(next);
            }
        }
    }
    None
}
