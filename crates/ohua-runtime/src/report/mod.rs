//! What a run did: per-operator firings and busy time, and the graph as DOT.
//!
//! Every [`crate::exec::execute`] measures its operators. The measurements
//! reach the user three ways: [`crate::context::profile`] returns them, the
//! environment variable `OHUA_REPORT=1` prints each run's table to stderr,
//! and `OHUA_DOT=<dir>` writes `<dir>/<algorithm>.dot` (see [`to_dot`]).

mod dot;
mod explain;
mod table;

use std::time::Duration;

pub use dot::to_dot;
pub use explain::IoSite;

use crate::deploy::Plan;
use crate::graph::GraphInfo;

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
///     nodes: &[NodeInfo { name: "demo/f#0", kind: OpKind::Call, depth: 0, label: "f (x)", replicable: false }],
///     arcs: &[],
/// };
/// let r = RunReport {
///     graph: &G,
///     section_stats: vec![],
///     panicked: None,
///     io: vec![],
///     io_sites: vec![],
///     markers: vec![],
///     algorithm: "demo",
///     sections: 1,
///     wall: Duration::from_millis(10),
///     nodes: vec![NodeStats {
///         name: "demo/f#0", kind: "call", section: 0,
///         firings: 3, steps: 2, busy: Duration::from_millis(5), fused_into: None,
///         replicas: vec![],
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
}

/// What one data source did during a run.
///
/// `fetches` = requests submitted; of those, `deduplicated` joined an equal
/// request not yet sent and `cached` one already sent (the per-call cache);
/// the rest were sent: `requests` in `calls` batches.
///
/// # Example
///
/// ```
/// let s = ohua_runtime::report::IoStats { source: "Db".into(), fetches: 5, cached: 2, requests: 3, calls: 1, ..Default::default() };
/// assert_eq!(s.fetches - s.deduplicated - s.cached, s.requests);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IoStats {
    /// The source's [`name`](crate::io::DataSource::name).
    pub source: String,
    /// Reads the algorithm submitted.
    pub fetches: u64,
    /// Writes the algorithm submitted (all sent: never deduplicated).
    pub writes: u64,
    /// Submitted requests equal to one waiting for the same batch.
    pub deduplicated: u64,
    /// Submitted requests equal to one sent earlier in the run.
    pub cached: u64,
    /// Batch calls of the source (reads and writes).
    pub calls: u64,
    /// Requests sent in them (reads and writes).
    pub requests: u64,
    /// Requests the source answered with an error.
    pub errors: u64,
    /// Time spent in the source's calls, summed.
    pub busy: std::time::Duration,
    /// The slowest call.
    pub slowest: std::time::Duration,
    /// When each call's requests were queued, sent and answered, in the
    /// order the calls answered (diagnostics: where a run's time goes).
    pub timeline: Vec<CallTiming>,
}

/// The moments of one batch call of a source, for finding where a run's
/// time goes: how long requests waited for the run to become quiet, for a
/// thread, for the source, and for their delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallTiming {
    /// Requests in the call.
    pub requests: usize,
    /// The first request of its round entered the source's queue.
    pub first_submit: std::time::Instant,
    /// The last request of its round entered the queue.
    pub last_submit: std::time::Instant,
    /// The run was quiet and handed the call to a thread.
    pub dispatched: std::time::Instant,
    /// The source's `fetch` was called.
    pub started: std::time::Instant,
    /// It returned.
    pub returned: std::time::Instant,
    /// Its answers were in their cells (the sections are woken next).
    pub delivered: std::time::Instant,
}

/// How one section spent its time waiting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SectionStats {
    /// How often its thread parked (slept until woken).
    pub parks: u64,
    /// Total time spent parked.
    pub parked: std::time::Duration,
    /// How often an operator blocked inside its step (an iterator waiting
    /// in `next()`, a call waiting for I/O) long enough that the monitor
    /// handed the section's other operators to another thread.
    pub rescues: u64,
}

/// Measurements of one operator in one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeStats {
    /// The operator's stable name (`algorithm/function#callsite`).
    pub name: &'static str,
    /// The operator's kind (`call`, `smap`, ...).
    pub kind: &'static str,
    /// The section that ran it.
    pub section: usize,
    /// Units of work done: the sum of its `Step::Progress(n)`.
    pub firings: u64,
    /// Times the section stepped it, including steps that found no work.
    pub steps: u64,
    /// Time spent in steps that made progress, estimated from sampled steps
    /// (one in 16 productive steps of a fast operator, every step of one that
    /// takes 10 µs or more per firing; see `exec/timing.rs`). For an operator fused into
    /// another one's (see `fused_into`) this is zero: the time is counted on
    /// the first operator of the fused piece.
    pub busy: Duration,
    /// `Some(name)` if this call ran fused into the operator `name` (a chain
    /// of calls in one section runs as one operator, see `node/chain.rs`).
    pub fused_into: Option<&'static str>,
    /// One entry per replica if the operator ran replicated (its items
    /// dealt to several threads and merged back in order, see
    /// [`crate::deploy::Replication`]); empty if it ran once. `firings` and
    /// `busy` above are then the replicas' sums.
    pub replicas: Vec<ReplicaStats>,
}

/// Measurements of one replica of a replicated operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaStats {
    /// The section that ran the replica.
    pub section: usize,
    /// Items the replica ran.
    pub firings: u64,
    /// Time it spent running them (estimated as for [`NodeStats::busy`]).
    pub busy: Duration,
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
