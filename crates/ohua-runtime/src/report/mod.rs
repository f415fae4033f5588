//! What a run did: per-operator firings and busy time, and the graph as DOT.
//!
//! Every [`crate::exec::execute`] measures its operators. The measurements
//! reach the user three ways: [`crate::context::profile`] returns them, the
//! environment variable `OHUA_REPORT=1` prints each run's table to stderr,
//! and `OHUA_DOT=<dir>` writes `<dir>/<algorithm>.dot` (see [`to_dot`]).
//!
#![doc = include_str!("README.md")]

mod dot;
mod explain;
mod parallelism;
mod table;
mod view;

use std::time::Duration;

pub use crate::stats::{
    CallTiming, ElasticStats, EncodedStats, IoSite, IoStats, NodeStats, RecutDecision, ReplicaStats, ScalingDecision,
    SectionStats, MAX_DECISIONS,
};
pub use dot::to_dot;
pub use parallelism::Parallelism;

use crate::deploy::Plan;
use crate::graph::GraphInfo;

/// Whether this process's sections sleep and wake with asymmetric fences:
/// `membarrier(2)` on the side about to park and a compiler fence on the
/// waking side (Linux, where the system call is available), rather than a
/// `SeqCst` fence on both sides. Decided once per process; this function
/// waits for the decision (a registration with the kernel that costs
/// 5-20 ms in a process that has other threads; runs that start before it
/// completes use the symmetric fences, `sync/asymmetric.rs`), so the runs
/// after it use the mode it names.
///
/// Benchmarks print it in their headers: with `batch_size = 1` the fences
/// are a large part of the cost of a message between sections, so numbers
/// taken under the two modes do not compare.
///
/// # Example
///
/// ```
/// let mode = if ohua_runtime::report::fences_are_asymmetric() { "asymmetric" } else { "symmetric" };
/// println!("fences: {mode}");
/// // Decided once: asking again gives the same answer.
/// assert_eq!(ohua_runtime::report::fences_are_asymmetric(), mode == "asymmetric");
/// ```
pub fn fences_are_asymmetric() -> bool {
    crate::sync::Fences::for_run(true).is_asymmetric()
}

/// Measurements of one run of one algorithm.
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
/// use ohua::{NodeStats, Plan, RunReport};
/// # use ohua_runtime::graph::{GraphInfo, NodeInfo, OpKind};
/// static G: GraphInfo = GraphInfo {
///     algorithm: "demo",
///     file: "",
///     nodes: &[NodeInfo { name: "demo/f#0", kind: OpKind::Call, depth: 0, label: "f (x)", replicable: false, line: 0 }],
///     arcs: &[],
/// };
/// let r = RunReport {
///     graph: &G,
///     section_stats: vec![],
///     panicked: None,
///     io: vec![],
///     io_sites: vec![],
///     markers: vec![],
///     recuts: vec![],
///     snapshots: Default::default(),
///     algorithm: "demo",
///     sections: 1,
///     wall: Duration::from_millis(10),
///     started: std::time::Instant::now(),
///     nodes: vec![NodeStats {
///         name: "demo/f#0", kind: "call", section: 0,
///         firings: 3, steps: 2, busy: Duration::from_millis(5), fused_into: None,
///         replicas: vec![], elastic: None, decisions: vec![], encoded: None,
///     }],
///     plan: Plan::unreplicated(vec![0], 1, 256, 1024),
/// };
/// assert!(r.to_string().contains("demo/f#0"));
/// assert_eq!(r.total_firings(), 3);
/// assert!(r.dot().contains("cluster_0"), "the graph, clustered by section");
/// ```
#[derive(Debug, Clone)]
pub struct RunReport {
    /// The graph that ran (operators and arcs, by id as in `nodes`).
    pub graph: &'static GraphInfo,
    /// The algorithm that ran.
    pub algorithm: &'static str,
    /// Number of sections (threads) it ran on.
    pub sections: usize,
    /// Wall-clock time from the first step to the last section's exit.
    pub wall: Duration,
    /// When the run started: the origin of the times in `recuts` and the
    /// scaling decisions, and what a marker's
    /// [`requested`](crate::update::MarkReport::requested) is measured
    /// against.
    pub started: std::time::Instant,
    /// One entry per operator, indexed by node id.
    pub nodes: Vec<NodeStats>,
    /// The deployment the run used.
    pub plan: Plan,
    /// One entry per section, indexed by section number.
    pub section_stats: Vec<SectionStats>,
    /// The operator whose panic aborted the run, if one did. The panic
    /// itself is re-raised in the caller with its original payload.
    pub panicked: Option<&'static str>,
    /// One entry per data source the run fetched from, in the order it
    /// first did (`io`).
    pub io: Vec<IoStats>,
    /// One entry per fetch site and source: the explain report's data
    /// ([`RunReport::explain_io`]).
    pub io_sites: Vec<IoSite>,
    /// A service's markers (live updates, `crate::update`) that reached
    /// every operator during the run, in request order; empty for runs
    /// that are not services.
    pub markers: Vec<crate::update::MarkReport>,
    /// How the run regrouped its sections onto its threads while it went
    /// on, in order (a first run cut finer than its threads); empty if it
    /// kept its groups.
    pub recuts: Vec<RecutDecision>,
    /// Snapshots the run's snapshot states handed to `&self` calls, and
    /// the copies their writes made because a reader still held the state
    /// (`ohua::snapshot`).
    pub snapshots: crate::snapshot::SnapshotStats,
}

impl RunReport {
    /// Sum of all operators' firings.
    pub fn total_firings(&self) -> u64 {
        self.nodes.iter().map(|n| n.firings).sum()
    }

    /// The graph that ran as DOT, its operators clustered by the section
    /// they ran in ([`to_dot`] with this run's plan): what `OHUA_DOT` writes,
    /// from code. (An example with an algorithm is in the `ohua` crate's
    /// documentation.)
    pub fn dot(&self) -> String {
        to_dot(self.graph, Some(&self.plan))
    }

    /// The statistics of the operator with this name, if it ran.
    pub fn node(&self, name: &str) -> Option<&NodeStats> {
        self.nodes.iter().find(|n| n.name == name)
    }
}
