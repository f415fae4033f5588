//! # Ohua: implicit parallelism for Rust
//!
//! Write an *algorithm*: an ordinary Rust function that composes stateful
//! functions (methods on objects that own their state) and plain functions.
//! Mark it `#[ohua::algorithm]`. The compiler extracts its dataflow graph and
//! the runtime executes that graph in parallel (pipeline, task and data
//! parallelism), returning exactly what the same body returns when run as
//! plain sequential Rust.
//!
//! ```
//! use ohua::algorithm;
//!
//! struct Counter { n: u64 }
//! impl Counter {
//!     fn new() -> Self { Counter { n: 0 } }
//!     fn add(&mut self, x: u64) { self.n += x; }
//!     fn total(&self) -> u64 { self.n }
//! }
//! fn square(x: u64) -> u64 { x * x }
//!
//! #[algorithm]
//! fn sum_of_squares(xs: Vec<u64>) -> u64 {
//!     let mut c = Counter::new();
//!     for x in xs {
//!         let y = square(x);
//!         c.add(y);
//!     }
//!     c.total()
//! }
//!
//! assert_eq!(sum_of_squares(vec![1, 2, 3]), 14);
//! // The same body, run as plain sequential Rust:
//! assert_eq!(ohua::sequential(|| sum_of_squares(vec![1, 2, 3])), 14);
//! ```
//!
//! Every run can be observed: [`profile`] returns a [`RunReport`] per run
//! (firings and busy time per operator, the sections, the graph):
//!
//! ```
//! #[ohua::algorithm]
//! fn twice(xs: Vec<u64>) -> Vec<u64> {
//!     let ys: Vec<u64> = xs.into_iter().map(|x| { let y = x * 2; y }).collect();
//!     ys
//! }
//! let (ys, reports) = ohua::profile(|| twice(vec![1, 2]));
//! assert_eq!(ys, vec![2, 4]);
//! let report = &reports[0];
//! assert_eq!(report.algorithm, "twice");
//! let dot = report.dot(); // the graph as DOT, clustered by section
//! assert!(dot.starts_with("digraph \"twice\""));
//! assert_eq!(dot, ohua::report::to_dot(report.graph, Some(&report.plan)));
//! ```
//!
//! See the README for the language, deployment configuration, observability
//! and the exact semantic guarantee.
#![warn(missing_docs)]

pub use ohua_macros::{algorithm, replace, updatable};

mod service;
mod stoppable;
mod timeouts;
pub use service::{restore, service, Service, Update};
pub use stoppable::{stoppable, stoppable_iter};

/// Live updates: replaceable functions and the markers that carry updates
/// through a running service (see [`Service`]), checkpoints, and what a
/// caller inspects when an operator panicked.
pub mod update {
    pub use crate::service::{Pending, PendingCheckpoint, Replaced};
    pub use crate::stoppable::{RecvTimeout, Stoppable};
    pub use crate::timeouts::restore_timeout;
    pub use ohua_runtime::context::{last_operator_panic, OperatorPanic};
    pub use ohua_runtime::update::Pulled;
    pub use ohua_runtime::update::{
        current, Checkpoint, FnSlot, MarkError, MarkReport, Rejection, Replacement, SavedState, State, StateKinds,
        Transform,
    };
    /// What `#[ohua::updatable]` functions call. Not a stable API.
    #[doc(hidden)]
    pub use ohua_runtime::update::{dispatch, Dispatch};
}

/// Deployment: how sections, replicas, batches and I/O are chosen
/// ([`Deployment`] holds them), the plan a run used, and
/// how keyed state is split into key groups.
pub mod deploy {
    pub use ohua_runtime::deploy::{
        DeployError, IoMode, Lanes, LatencyGoal, Load, Opening, Plan, Recut, ReplicaRule, Replication, RequestGoal,
        Scaling, ScalingPolicy, SectionRule, SectionStrategy, Throughput,
    };
    pub use ohua_runtime::keyed::{Groups, KeyOf, KEY_GROUPS};
    pub use ohua_runtime::update::Regroup;
}

/// Data sources beyond [`Source`] and
/// [`DataSource`]: queries, writes, statistics, and
/// async sources (feature `async`: implement [`AsyncDataSource`] and pass
/// `Source::new(Async::new(source))`).
pub mod io {
    #[cfg(feature = "async")]
    pub use ohua_runtime::io::{Async, AsyncDataSource};
    pub use ohua_runtime::io::{Query, SourceStats, Writable};
}

/// What a run did ([`RunReport`], from [`profile`]):
/// per-operator and per-section statistics, I/O statistics, the static
/// graph, and the graph as DOT.
pub mod report {
    // `NodeInfo::kind` is an `ohua_runtime::graph::OpKind`, not re-exported
    // here: rustc shortens a type in an error message to its bare name only
    // when no other public item of the dependencies has that name, and the
    // enum's `Source` variant would make every `Source<Db>` print as
    // `ohua::Source<Db>` (tests/compile_fail/cases/write_to_a_read_only_source.stderr).
    pub use ohua_runtime::graph::{ArcInfo, GraphInfo, NodeInfo};
    pub use ohua_runtime::report::{
        to_dot, CallTiming, ElasticStats, EncodedStats, IoSite, IoStats, NodeStats, Parallelism, RecutDecision,
        ReplicaStats, ScalingDecision, SectionStats,
    };
}

/// See a running algorithm: a page served from the process that draws
/// each algorithm's graph as the deployment placed it (sections, replicas,
/// fused pieces), each operator's load, throughput and latency over the
/// last minutes, a service's updates and checkpoints, and its data
/// sources. The README's "Live view" section shows it.
///
/// * `OHUA_VIEW=127.0.0.1:PORT` serves it from the process's first run on
///   (loopback only, unless `OHUA_VIEW_PUBLIC=1`); [`view::serve`] does
///   the same from code.
/// * `OHUA_VIEW_SAVE=<dir>` writes each finished run's view to
///   `<dir>/<algorithm>.json`, and [`RunReport::to_view_json`] gives it for
///   a report from [`profile`]; `ohua view FILE` serves such a file.
/// * The page's data is JSON at `/api/view` ([`view::View`], every field
///   listed in `crates/ohua-view/README.md`), for other tools to read.
///
/// # Example
///
/// ```
/// #[ohua::algorithm]
/// fn total(xs: Vec<u64>) -> u64 {
///     let mut sum = Sum::default();
///     for x in xs {
///         let y = double(x);
///         sum.add(y);
///     }
///     sum.get()
/// }
/// # fn double(x: u64) -> u64 { 2 * x }
/// # #[derive(Default)] struct Sum(u64);
/// # impl Sum { fn add(&mut self, x: u64) { self.0 += x } fn get(&self) -> u64 { self.0 } }
///
/// let addr = ohua::view::serve("127.0.0.1:0").expect("a free loopback port");
/// println!("open http://{addr}/");
/// assert_eq!(total(vec![1, 2, 3]), 12);
/// let view = ohua::view::current().unwrap();
/// let run = view.runs.iter().find(|r| r.algorithm == "total").unwrap();
/// assert!(run.operators.iter().any(|o| o.name.contains("double")));
///
/// // After the fact: a profiled run saved for `ohua view total.json`.
/// let (_, reports) = ohua::profile(|| total(vec![4, 5]));
/// let saved = reports[0].to_view_json();
/// assert_eq!(ohua::view::View::from_json(&saved).unwrap().runs[0].algorithm, "total");
/// ```
pub mod view {
    pub use ohua_runtime::live::{current, serve, serve_public, OHUA_VIEW, OHUA_VIEW_PUBLIC, OHUA_VIEW_SAVE};
    pub use ohua_view::{
        Bind, Edge, Event, IoSiteView, IoSource, Operator, Provider, RunView, Series, Server, Snapshots, View,
        ViewError, SCHEMA,
    };
}

#[cfg(feature = "async")]
#[doc(hidden)]
pub use crate::io::{Async, AsyncDataSource};
/// The paths of the items that moved into [`deploy`], [`io`], [`report`]
/// and [`update`] (issue 22): kept, hidden, for one release, so code
/// written against them still builds. New code names the module.
#[doc(hidden)]
pub use crate::{
    deploy::{
        DeployError, Groups, IoMode, KeyOf, Plan, ReplicaRule, Replication, SectionRule, SectionStrategy, KEY_GROUPS,
    },
    io::{Query, SourceStats, Writable},
    report::{
        to_dot, ArcInfo, CallTiming, GraphInfo, IoSite, IoStats, NodeInfo, NodeStats, ReplicaStats, SectionStats,
    },
    update::{
        last_operator_panic, restore_timeout, OperatorPanic, Pending, PendingCheckpoint, RecvTimeout, Replaced,
        Stoppable,
    },
};

pub use ohua_runtime::context::is_sequential;

/// Run `f`; every algorithm called inside it (on this thread, and in the
/// operators of those runs) runs its original body as plain sequential
/// Rust: the reference the parallel runs are checked against.
///
/// # Example
///
/// ```
/// #[ohua::algorithm]
/// fn total(xs: Vec<u64>) -> u64 {
///     let mut sum = 0;
///     for x in xs {
///         let y = x * 10;
///         sum += y;
///     }
///     sum
/// }
/// assert_eq!(ohua::sequential(|| total(vec![1, 2, 3])), 60);
/// assert_eq!(total(vec![1, 2, 3]), 60); // the dataflow run, same value
/// ```
pub fn sequential<R>(f: impl FnOnce() -> R) -> R {
    ohua_runtime::context::sequential(f)
}

/// Run `f` with every algorithm called inside it deployed per `d` instead
/// of the process's configuration (`OHUA_CONFIG`, `OHUA_*`).
///
/// # Example
///
/// ```
/// use ohua::{deploy::SectionStrategy, Deployment};
/// #[ohua::algorithm]
/// fn total(xs: Vec<u64>) -> u64 {
///     let mut sum = 0;
///     for x in xs {
///         let y = x * 10;
///         sum += y;
///     }
///     sum
/// }
/// let per_op = Deployment::default().sections(SectionStrategy::PerOperator);
/// let (sum, reports) = ohua::profile(|| ohua::with_deployment(per_op, || total(vec![1, 2, 3])));
/// assert_eq!(sum, 60);
/// assert!(reports[0].sections > 1, "one section per operator");
/// ```
pub fn with_deployment<R>(d: Deployment, f: impl FnOnce() -> R) -> R {
    ohua_runtime::context::with_deployment(d, f)
}

/// Run `f` and return, with its result, the [`RunReport`] of every
/// algorithm run inside it (nested runs included, in the order they
/// finished): firings and busy time per operator, sections, the graph.
///
/// # Example
///
/// ```
/// #[ohua::algorithm]
/// fn total(xs: Vec<u64>) -> u64 {
///     let mut sum = 0;
///     for x in xs {
///         let y = x * 10;
///         sum += y;
///     }
///     sum
/// }
/// let (sum, reports) = ohua::profile(|| total(vec![1, 2, 3]));
/// assert_eq!(sum, 60);
/// assert_eq!(reports.len(), 1);
/// assert!(reports[0].total_firings() > 0);
/// println!("{}", reports[0]); // the per-operator table
/// ```
pub fn profile<R>(f: impl FnOnce() -> R) -> (R, Vec<RunReport>) {
    ohua_runtime::context::profile(f)
}
pub use ohua_runtime::deploy::Deployment;
pub use ohua_runtime::keyed::{keyed, Keyed};
pub use ohua_runtime::snapshot::{check_snapshots, snapshot, Snapshot, SnapshotStats};

/// Declare a read-only value that calls in loops may share:
/// `let params = ohua::shared(load());` is an `Arc` of the value, and a
/// stateless call in a loop that reads it (`heavy(x, &params)`) may still
/// run on replicas, each with its own handle (the README's "Data
/// parallelism"). Without it, a call that reads a local from before the
/// loop runs once: the compiler cannot see whether the local's type is
/// `Clone`.
///
/// # Example
///
/// ```
/// fn heavy(x: u64, table: &[u64]) -> u64 { x * table[x as usize % table.len()] }
/// #[ohua::algorithm]
/// fn lookups(xs: Vec<u64>) -> Vec<u64> {
///     let table = ohua::shared(vec![1, 2, 3]);
///     let ys: Vec<u64> = xs.into_iter().map(|x| heavy(x, &table)).collect();
///     ys
/// }
/// assert_eq!(lookups(vec![1, 2, 3]), vec![2, 6, 3]);
/// ```
pub fn shared<T>(value: T) -> std::sync::Arc<T> {
    std::sync::Arc::new(value)
}

/// Read the `OHUA_CONFIG` file and the `OHUA_*` environment variables again.
///
/// They are read once per process, at the first call of an algorithm that
/// runs without [`with_deployment`]; calls after this one use the new
/// configuration (runs already under way keep theirs).
///
/// # Errors
///
/// The [`deploy::DeployError`] of an invalid configuration. It is kept: calls
/// without an override fail with it (a panic naming the file or variable)
/// until a later reload reads a valid configuration.
///
/// # Example
///
/// ```
/// std::env::set_var("OHUA_SECTIONS", "single");
/// ohua::reload_config().expect("a valid configuration");
/// std::env::remove_var("OHUA_SECTIONS");
/// ohua::reload_config().unwrap();
/// ```
pub fn reload_config() -> Result<(), std::sync::Arc<DeployError>> {
    ohua_runtime::deploy::reload()
}
pub use ohua_runtime::report::RunReport;

/// Data sources an algorithm fetches from, batched (Ÿauhau): declare a
/// parameter `db: &Source<MyDb>` and write `let x = db.fetch(request);`.
/// See [`DataSource`], the [`io`] module and the README's I/O section.
pub use ohua_runtime::io::{DataSource, Source};

/// Items the generated code refers to. Not a stable API: the runtime's
/// `__macro_support` module, whole.
#[doc(hidden)]
pub mod __private {
    pub use ohua_runtime::__macro_support::*;
}
