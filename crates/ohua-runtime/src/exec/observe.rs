//! Publishing a finished run's report: to enclosing `profile` calls, and to
//! stderr / a DOT file when `OHUA_REPORT` / `OHUA_DOT` ask for it, and
//! the I/O explain report when `OHUA_EXPLAIN` does.

use std::path::PathBuf;
use std::time::Duration;

use super::section::{Counters, Role};
use super::timing::StepClock;
use crate::context::{self, Options};
use crate::deploy::learned::Fused;
use crate::deploy::Plan;
use crate::graph::GraphInfo;
use crate::node::elastic::Elastic;
use crate::report::{to_dot, ElasticStats, NodeStats, ReplicaStats, RunReport, SectionStats};

/// Print each run's report table to stderr when set to anything but `0`.
pub const OHUA_REPORT: &str = "OHUA_REPORT";
/// Write `<dir>/<algorithm>.dot` for each run into this directory.
pub const OHUA_DOT: &str = "OHUA_DOT";
/// Print the explain report of each run that fetches
/// ([`RunReport::explain_io`]) to stderr when set to anything but `0`.
pub const OHUA_EXPLAIN: &str = "OHUA_EXPLAIN";

/// The report of a run from its plan, start and per-node counters;
/// `fused` says which nodes ran fused into chain pieces and what their
/// links' probes measured.
pub(crate) fn make_report(
    graph: &'static GraphInfo,
    plan: Plan,
    started: std::time::Instant,
    counters: Vec<(usize, Role, usize, Counters)>,
    fused: Fused<'_>,
    section_stats: Vec<SectionStats>,
    elastic: &[Option<Elastic>],
) -> RunReport {
    let mut nodes: Vec<NodeStats> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(id, n)| NodeStats {
            fused_into: fused.into[id].map(|head| graph.nodes[head].name),
            encoded: None,
            decisions: elastic.get(id).and_then(Option::as_ref).map_or_else(Vec::new, Elastic::decisions),
            elastic: elastic.get(id).and_then(Option::as_ref).map(|e| {
                let (opened_after, ns_per_item) = e.decision();
                let (resizes, most_open) = e.resizes();
                let follows_load = e.opening() == crate::deploy::Opening::Load;
                let open_lane_ms = e.lane_time().as_millis() as u64;
                let regroups = e.regroups();
                ElasticStats { opened_after, ns_per_item, follows_load, resizes, most_open, open_lane_ms, regroups }
            }),
            ..NodeStats::idle(n.name, n.kind.as_str(), plan.section_of[id])
        })
        .collect();
    // The policy in force at the end: a service may have replaced the
    // deployment's (`Service::set_scaling`).
    let mut plan = plan;
    if let Some(e) = elastic.iter().flatten().next() {
        plan.scaling = e.scaling();
    }
    let clock = StepClock::get();
    let mut counters = counters;
    // Replicas in order, so `replicas[k]` is replica k.
    counters.sort_by_key(|&(id, role, _, _)| (id, role));
    for (id, role, section, c) in counters {
        let s = &mut nodes[id];
        match role {
            Role::Node if plan.is_replicated(id) => s.steps = c.steps, // the scatter: no work of its own
            Role::Node => {
                s.firings = c.firings;
                s.steps = c.steps;
                s.busy = c.busy(clock);
            }
            Role::Replica(_) => {
                let r = ReplicaStats { section, firings: c.firings, busy: c.busy(clock) };
                s.firings += r.firings;
                s.busy += r.busy;
                s.replicas.push(r);
            }
            Role::Merge => {}
        }
    }
    // A fused link fires exactly when the first link of its piece does.
    for (id, head) in fused.into.iter().enumerate() {
        if let Some(head) = *head {
            nodes[id].firings = nodes[head].firings;
            nodes[id].steps = nodes[head].steps;
        }
    }
    split_pieces(&mut nodes, fused);
    RunReport {
        graph,
        algorithm: graph.algorithm,
        sections: plan.sections,
        wall: started.elapsed(),
        started,
        nodes,
        plan,
        section_stats,
        panicked: None,
        io: Vec::new(),
        io_sites: Vec::new(),
        markers: Vec::new(),
        recuts: Vec::new(),
        snapshots: Default::default(),
    }
}

/// Split the time of each fused piece, measured on its first link, over
/// its links in proportion to their sampled times; a piece without
/// samples keeps its time on its first link (the planner's estimates
/// split it later, [`Fused::sampled_total`]).
fn split_pieces(nodes: &mut [NodeStats], fused: Fused<'_>) {
    for members in fused.pieces(nodes.len()) {
        let Some(sampled) = fused.sampled_total(&members) else {
            continue;
        };
        let total = nodes[members[0]].busy.as_nanos() as f64;
        for &id in &members {
            nodes[id].busy = Duration::from_nanos((total * fused.sampled[id] as f64 / sampled as f64) as u64);
        }
    }
}

/// Whether anyone reads the run's `io_sites`: an enclosing `profile`,
/// `OHUA_EXPLAIN` or the live view. Why ask: naming each site's requests formats text, on
/// the caller's path after the result is there (the *tail* of a run).
pub(crate) fn sites_wanted(opts: &Options) -> bool {
    !opts.collectors.is_empty() || set(OHUA_EXPLAIN) || crate::live::is_on()
}

/// Whether the environment variable `var` is set to anything but `0`.
fn set(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Hand `report` to every enclosing `profile` and honour the env variables.
pub(crate) fn publish(opts: &Options, graph: &GraphInfo, report: &RunReport) {
    context::record(opts, report);
    if set(OHUA_REPORT) {
        eprint!("{report}");
    }
    if !report.io_sites.is_empty() && set(OHUA_EXPLAIN) {
        eprint!("{}", report.explain_io());
    }
    if let Some(dir) = std::env::var_os(OHUA_DOT).filter(|d| !d.is_empty()) {
        let path = PathBuf::from(dir).join(format!("{}.dot", graph.algorithm));
        // A diagnostic export must not fail the user's computation: warn only.
        if let Err(e) = std::fs::write(&path, to_dot(graph, Some(&report.plan))) {
            eprintln!("ohua: {OHUA_DOT}: cannot write `{}`: {e}", path.display());
        }
    }
}
