//! What a run measured, as plain data: per operator, per section, per data
//! source and fetch site. The modules that measure (`io`, `exec`) and the
//! one that learns from the measurements (`deploy/learned.rs`) fill or read
//! these; [`crate::report::RunReport`] collects them and re-exports them
//! (`ohua_runtime::report::NodeStats` etc.). They sit low in the layer
//! table (`LAYERS.md`) so that statistics flow upward as data.

use std::fmt;
use std::time::Duration;

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

/// A run regrouped its sections onto its threads while it went on (a
/// first run or an elastic run cut finer than its threads:
/// `deploy::Recut::Measured` and `deploy::Recut::Streaming`).
///
/// # Example
///
/// ```
/// use ohua_runtime::report::RecutDecision;
/// use std::time::Duration;
/// let d = RecutDecision {
///     at: Duration::from_millis(2),
///     hosts: vec![0, 1, 1, 1],
///     busiest_before: Duration::from_millis(4),
///     busiest_after: Duration::from_micros(2_400),
///     window: Duration::from_millis(2),
/// };
/// assert!(d.busiest_after < d.busiest_before);
/// assert_eq!(
///     d.to_string(),
///     "re-cut at 2.0 ms: each section's host [0, 1, 1, 1]; the busiest thread 4.00 ms -> 2.40 ms of a 2.0 ms window"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecutDecision {
    /// When, after the run's start.
    pub at: Duration,
    /// The host of each section from then on (the section whose thread
    /// steps it; its own index: its own thread).
    pub hosts: Vec<usize>,
    /// The busiest thread's busy time in the window measured, under the
    /// groups before the decision.
    pub busiest_before: Duration,
    /// The same under the new groups (the measured loads regrouped).
    pub busiest_after: Duration,
    /// The window measured: since the run's start or the last decision.
    /// A service fuses its sections when the busiest thread would be busy
    /// for a small share of it, and spreads them when it was busy for a
    /// large share (`deploy::Recut::Measured`).
    pub window: Duration,
}

impl fmt::Display for RecutDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(
            f,
            "re-cut at {:.1} ms: each section's host {:?}; the busiest thread {:.2} ms -> {:.2} ms of a {:.1} ms window",
            ms(self.at),
            self.hosts,
            ms(self.busiest_before),
            ms(self.busiest_after),
            ms(self.window)
        )
    }
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
    /// How often another section's driver took its operators over for a
    /// while (the run re-cut its sections: `exec/hosting.rs`) while its
    /// own thread waited.
    pub hosted: u64,
    /// Passes over its operators (each steps every operator once).
    pub passes: u64,
    /// Passes that found nothing to do (before a park, or spinning).
    pub idle_passes: u64,
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
    /// takes 10 µs or more per firing; see `exec/timing.rs`). The time of a
    /// fused piece (see `fused_into`) is split over its operators in
    /// proportion to the time each took on the items the piece timed link by
    /// link (one step in 16, `deploy/link_times.rs`); a piece that never
    /// timed an item has all its time on its first operator.
    pub busy: Duration,
    /// `Some(name)` if this call ran fused into the operator `name` (a chain
    /// of calls in one section runs as one operator, see `node/chain.rs`).
    pub fused_into: Option<&'static str>,
    /// One entry per replica if the operator ran replicated (its items
    /// dealt to several threads and merged back in order, see
    /// [`crate::deploy::Replication`]); empty if it ran once. `firings` and
    /// `busy` above are then the replicas' sums.
    pub replicas: Vec<ReplicaStats>,
    /// For an operator on elastic replicas (a graph's first run, see
    /// [`crate::deploy::Plan::elastic`]): what replica 0's probe decided.
    pub elastic: Option<ElasticStats>,
    /// For elastic replicas that follow the load: each change of the open
    /// replicas, with the measurement that caused it (the first
    /// [`MAX_DECISIONS`] of the run).
    pub decisions: Vec<ScalingDecision>,
    /// For a call of a `#[ohua::algorithm(cluster)]` algorithm that ran on
    /// serialized lanes ([`crate::deploy::Lanes::Serialized`]): the items
    /// and bytes its lanes carried, arguments and results both.
    pub encoded: Option<EncodedStats>,
}

/// What an operator's serialized lanes carried (see
/// [`NodeStats::encoded`]): each argument tuple a replica took and each
/// result tuple it gave is one item.
///
/// # Example
///
/// ```
/// use ohua_runtime::report::EncodedStats;
/// let e = EncodedStats { items: 4, bytes: 26 };
/// assert_eq!(e.bytes_per_item(), 6.5);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EncodedStats {
    /// Items encoded and decoded.
    pub items: u64,
    /// Their bytes.
    pub bytes: u64,
}

impl EncodedStats {
    /// Mean bytes per item (0 without items).
    pub fn bytes_per_item(&self) -> f64 {
        if self.items == 0 {
            0.0
        } else {
            self.bytes as f64 / self.items as f64
        }
    }
}

impl NodeStats {
    /// Operator `name` of kind `kind` in section `section` before it did
    /// anything: where a run's statistics start (`exec/observe.rs`, the
    /// live view's running runs).
    pub(crate) fn idle(name: &'static str, kind: &'static str, section: usize) -> Self {
        NodeStats {
            name,
            kind,
            section,
            firings: 0,
            steps: 0,
            busy: Duration::ZERO,
            fused_into: None,
            replicas: Vec::new(),
            elastic: None,
            decisions: Vec::new(),
            encoded: None,
        }
    }
}

/// Most [`ScalingDecision`]s an operator keeps per run.
pub const MAX_DECISIONS: usize = 256;

/// One change of an elastic operator's open replicas, with what its
/// scaling policy was shown over the window that caused it.
///
/// # Example
///
/// ```
/// use ohua_runtime::report::ScalingDecision;
/// use std::time::Duration;
/// let d = ScalingDecision {
///     at: Duration::from_millis(1_250),
///     from: 1,
///     to: 2,
///     items_per_sec: 9_000,
///     ns_per_item: 100_000,
///     backlog: true,
///     path_ns_per_item: 250_000,
/// };
/// assert!(d.to_string().contains("1 -> 2 replicas"));
/// assert!(d.to_string().ends_with("on a path of 250.0 µs)"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalingDecision {
    /// When, since the operator's replicas were built (the run's start).
    pub at: Duration,
    /// Replicas open before.
    pub from: usize,
    /// Replicas open after.
    pub to: usize,
    /// Items that arrived per second over the window.
    pub items_per_sec: u64,
    /// Cost of one item on one replica, in nanoseconds.
    pub ns_per_item: u64,
    /// Whether every open replica was full while an item waited.
    pub backlog: bool,
    /// Cost of one item over every elastic operator of the run, in
    /// nanoseconds (`deploy::Load::path_ns_per_item`).
    pub path_ns_per_item: u64,
}

impl std::fmt::Display for ScalingDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "at {:.3} s: {} -> {} replicas ({} items/s of {:.1} µs{}",
            self.at.as_secs_f64(),
            self.from,
            self.to,
            self.items_per_sec,
            self.ns_per_item as f64 / 1e3,
            if self.backlog { ", backlog" } else { "" }
        )?;
        // The path's cost is news only where other elastic operators add
        // to it (what a goal per request is split over).
        if self.path_ns_per_item > self.ns_per_item {
            write!(f, ", on a path of {:.1} µs", self.path_ns_per_item as f64 / 1e3)?;
        }
        f.write_str(")")
    }
}

/// What the probe of an elastic replicated operator decided: a first run
/// deals to replica 0 alone until it has measured the operator's cost per
/// item, and opens the other replicas only if that cost pays for the
/// hand-over.
///
/// # Example
///
/// ```
/// use ohua_runtime::report::ElasticStats;
/// let e = ElasticStats {
///     opened_after: Some(16),
///     ns_per_item: 4_200,
///     follows_load: false,
///     resizes: 1,
///     most_open: 2,
///     open_lane_ms: 150,
///     regroups: 0,
/// };
/// assert!(e.opened_after.is_some());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ElasticStats {
    /// Items replica 0 had run (after its first, unmeasured step) when the
    /// other replicas opened; `None` if the operator stayed on replica 0.
    pub opened_after: Option<u64>,
    /// Cost per item replica 0 measured, in nanoseconds: when it stopped
    /// measuring if the replicas stayed closed, else the last moving
    /// average (replica 0 keeps measuring once they opened or while they
    /// follow the load).
    pub ns_per_item: u64,
    /// Whether the replicas followed the load for the whole run
    /// ([`crate::deploy::Replication::Elastic`]).
    pub follows_load: bool,
    /// Times the open replicas changed (opened or closed).
    pub resizes: u64,
    /// The most replicas open at once.
    pub most_open: usize,
    /// Replica time the operator held open, in milliseconds (two replicas
    /// open for 1 s is 2,000): over the run's wall time, the cores it used
    /// on average.
    pub open_lane_ms: u64,
    /// Times a keyed call's key groups moved between its replicas, with
    /// their state: when lanes opened or closed, or when the items' keys
    /// showed the groups spread unevenly (0 for a stateless call).
    pub regroups: u64,
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

/// One fetch (or write) site of a run, on one source.
///
/// A source's *call rounds* are numbered 1, 2, .. in the order they went
/// out; each is one call (or one per `max_batch_size` chunk). A site whose
/// fetches all joined one round was batched with everything independent of
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoSite {
    /// The site's `await` operator (`algorithm/__ohua_await#N`).
    pub operator: &'static str,
    /// Its `submit` operator, the one that takes the request.
    pub submit: Option<&'static str>,
    /// The call as written (`db.fetch(PostInfo (id))`).
    pub request: String,
    /// The source's name.
    pub source: String,
    /// Fetches made at the site in this run.
    pub fetches: u64,
    /// Of those, answered by an equal request of the same round.
    pub deduplicated: u64,
    /// Of those, answered by an equal request of an earlier round.
    pub cached: u64,
    /// The source's call rounds its fetches joined.
    pub rounds: Vec<u64>,
}
