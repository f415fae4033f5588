//! Deployment: how many workers, which operators share a section, batch sizes
//! and arc capacities — chosen at start-up, never by changing the algorithm.
//!
//! A *section* is a group of operators run fused in one loop on one thread.
//! Arcs inside a section are plain local buffers; arcs between sections are
//! bounded lock-free queues that wake the other side once per operator step.
//!
//! # Sources, lowest to highest precedence
//!
//! 1. Defaults: `workers` = available parallelism, `sections = "auto"`,
//!    `batch_size = 1024`, `arc_capacity = 4096`.
//! 2. The TOML file named by the environment variable `OHUA_CONFIG`.
//! 3. The environment variables `OHUA_WORKERS`, `OHUA_SECTIONS`
//!    (`auto` | `single` | `per-op` | `random:N:SEED`), `OHUA_BATCH`,
//!    `OHUA_ARC_CAPACITY`, `OHUA_REPLICAS` (`auto` | `off` |
//!    `random:MAX:SEED` | `PATTERN=N; PATTERN=N`, see [`Replication`]) and
//!    `OHUA_IO` (`concurrent` | `serial` | `unbatched`, see [`IoMode`]) and
//!    `OHUA_LANES` (`values` | `serialized`, see [`Lanes`]).
//!    Empty variables count as unset.
//! 4. A programmatic override, [`crate::context::with_deployment`], which
//!    replaces all of the above for the runs inside it.
//!
//! Sources 1-3 are read once per process, at the first call of an algorithm
//! without an override ([`current`]); after changing the variables or the
//! file, [`reload`] (`ohua::reload_config()`) reads them again.
//!
//! # File format
//!
//! ```toml
//! workers = 2               # sections used by `auto`
//! batch_size = 1024         # firings per operator step
//! arc_capacity = 4096       # packets buffered on an arc between sections
//! sections = "auto"         # or "single", "per-op", "random:3:42"
//! replicas = "auto"         # or "off", "random:4:42"
//! io = "concurrent"         # or "serial" (one batch at a time), "unbatched"
//! lanes = "values"          # or "serialized" (cluster algorithms' values as bytes)
//!
//! # Replicas of stateless calls in loops (win over `replicas`): the first
//! # matching rule sets the count; operators matching none run once.
//! [[replicate]]
//! ops = ["word_freq/normalize#.*"]
//! replicas = 2
//!
//! # Process-wide rules: each [[section]] is one section, holding the
//! # operators whose full name (`algorithm/function#callsite`) matches one
//! # of its regular expressions. The first matching rule wins; operators
//! # matching no rule share one extra section. They apply only to an
//! # algorithm one of them matches: every other algorithm keeps `auto`
//! # (if rules are present, they win over `sections`).
//! [[section]]
//! ops = ["word_freq/split#.*", "word_freq/normalize#.*"]
//! [[section]]
//! ops = ["word_freq/merge#.*"]
//!
//! # Per algorithm: `server` only.
//! [algorithm.server]
//! sections = "per-op"         # or rules, which win over it:
//! # [[algorithm.server.section]]
//! # ops = ["server/accept#.*"]
//! ```
//!
//! Every key is optional; unknown keys, invalid regular expressions,
//! non-positive numbers, and a process-wide rule whose patterns all name
//! an algorithm that has its own table (it would never apply; move it into
//! `[[algorithm.NAME.section]]`) are rejected with a [`DeployError`].
//! [`crate::exec::execute`] panics with that error's message, naming the file
//! or variable at fault.
//!
//! Settings that have no effect are reported once per process with a
//! `tracing` warning: a rule written for an algorithm (in its table, or
//! with patterns that all start with `NAME/`, [`SectionRule::algorithm`])
//! that matches none of its operators, at its first run; another
//! process-wide rule that matches nothing where the rules applied; and
//! settings for an algorithm name that has not run, when an algorithm with
//! a similar name runs without settings of its own (a misspelling). A name
//! unlike every algorithm that runs is not reported: it cannot be told from
//! an algorithm that runs later.
//!
//! # Strategies
//!
//! See [`SectionStrategy`] and [`Replication`]; [`plan`] turns a
//! [`Deployment`] into the concrete node-to-section map of one graph and the
//! replicas of its replicable operators (`stages.rs` for what `auto` does).
//!
#![doc = include_str!("README.md")]

mod auto;
mod current;
mod env;
mod error;
mod file;
mod io_mode;
mod lanes;
pub(crate) mod learned;
mod link_times;
mod long_firings;
mod plan;
mod policy;
pub(crate) mod recut;
mod replicas;
mod request_goal;
mod rule;
mod scaling;
mod similar;
mod stages;
mod strategy;
mod unmatched;

pub use current::{current, reload};
pub use env::{
    from_env, from_env_with, OHUA_ARC_CAPACITY, OHUA_BATCH, OHUA_CONFIG, OHUA_IO, OHUA_LANES, OHUA_REPLICAS,
    OHUA_SCALING, OHUA_SECTIONS, OHUA_WORKERS,
};
pub use error::DeployError;
pub use io_mode::IoMode;
pub use lanes::Lanes;
pub(crate) use link_times::{nanos, LinkTimes, PROBE_EVERY, PROBE_ITEMS, PROBE_STEPS};
pub(crate) use long_firings::LONG_FIRING_NS;
pub use plan::{plan, Opening, Plan};
pub use policy::{LatencyGoal, LiveScaling, Scaling, ScalingPolicy, Throughput};
pub use recut::Recut;
pub use replicas::{ReplicaRule, Replication, MAX_REPLICAS};
pub use request_goal::RequestGoal;
pub use rule::SectionRule;
pub use scaling::{needed_replicas, Load, TARGET_UTILISATION};
pub(crate) use stages::MIN_FIRING_NS;
pub use strategy::SectionStrategy;

/// A deployment configuration.
///
/// Built from [`Deployment::default`] (or [`Deployment::from_env`],
/// [`Deployment::from_toml_str`]) with one method per setting, each named
/// after the field it sets: [`workers`](Deployment::workers),
/// [`sections`](Deployment::sections), [`batch_size`](Deployment::batch_size),
/// [`arc_capacity`](Deployment::arc_capacity),
/// [`replicas`](Deployment::replicas) and [`io`](Deployment::io). The
/// methods reject a 0 count; the fields stay public for reading, and one
/// assigned 0 directly counts as 1 in [`plan`]. The struct is
/// `#[non_exhaustive]`: settings added later do not break code that builds
/// a deployment.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::deploy::Deployment; pub mod deploy { pub use ohua_runtime::deploy::*; } }
/// use ohua::{deploy::SectionStrategy, Deployment};
/// let d = Deployment::default().workers(2).sections(SectionStrategy::PerOperator);
/// assert_eq!((d.workers, d.sections), (2, SectionStrategy::PerOperator));
/// assert_eq!(d.batch_size, 1024, "the rest keep their defaults");
/// ```
///
/// Outside the crate that defines it, a struct literal does not compile,
/// not even with `..Deployment::default()`:
///
/// ```compile_fail,E0639
/// # mod ohua { pub use ohua_runtime::deploy::Deployment; }
/// use ohua::Deployment;
/// let d = Deployment { workers: 2, ..Deployment::default() };
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Deployment {
    /// Number of worker threads the `auto` strategy plans for.
    pub workers: usize,
    /// How operators are grouped into sections.
    pub sections: SectionStrategy,
    /// Firings an operator may do per step before the section moves on.
    pub batch_size: usize,
    /// Capacity, in packets, of an arc between two sections.
    pub arc_capacity: usize,
    /// How many replicas each replicable operator runs on.
    pub replicas: Replication,
    /// Whether the batches of different data sources are sent concurrently.
    pub io: IoMode,
    /// How elastic operators that follow their load (`replicas =
    /// "elastic"`) choose their replicas: [`Scaling`]'s policies.
    pub scaling: Scaling,
    /// What the lanes of replicated calls carry: values, or (for
    /// `#[ohua::algorithm(cluster)]` algorithms) values as bytes.
    pub lanes: Lanes,
}

/// Default firings per step.
///
/// Larger batches mean fewer hand-offs between cores per item. Measured on
/// the Intel 2-vCPU VM (BENCHMARKS.md): `word_freq`, which allocates in one
/// section and frees in the next, ran at 0.87-0.90x of sequential with
/// batch 256 / capacity 1024 and at 1.08-1.11x with 1024 / 4096; the chain,
/// balanced and `record_pipeline` benchmarks did not change. A step only
/// takes what is already there, so a bigger batch adds no latency when the
/// input trickles in; coarse operators (10 µs or more per firing) get
/// time-sliced budgets instead (`exec/timing.rs`).
pub const DEFAULT_BATCH_SIZE: usize = 1024;
/// Default capacity of an arc between sections: four batches, so a producer
/// can run a few steps ahead of its consumer.
pub const DEFAULT_ARC_CAPACITY: usize = 4096;

/// The system's parallelism, asked once per process.
///
/// Why: on Linux `available_parallelism` reads the cgroup's CPU quota from
/// files on every call, tens of µs, and `Deployment::default()` is what a
/// caller builds per call (`with_deployment(Deployment::default()
/// .workers(2), ..)`): the level-graph benchmark paid it inside every run.
fn system_parallelism() -> usize {
    static CORES: crate::sync::process::OnceLock<usize> = crate::sync::process::OnceLock::new();
    *CORES.get_or_init(|| crate::sync::thread::available_parallelism().map_or(1, |n| n.get()))
}

impl Default for Deployment {
    /// Available parallelism (asked once per process), `auto` sections,
    /// batch 1024, capacity 4096, `auto` replicas, concurrent I/O,
    /// `throughput` scaling.
    fn default() -> Self {
        Deployment {
            workers: system_parallelism(),
            sections: SectionStrategy::Auto,
            batch_size: DEFAULT_BATCH_SIZE,
            arc_capacity: DEFAULT_ARC_CAPACITY,
            replicas: Replication::Auto,
            io: IoMode::Concurrent,
            scaling: Scaling::default(),
            lanes: Lanes::Values,
        }
    }
}

impl Deployment {
    /// Defaults overridden by the file named in `OHUA_CONFIG` and the
    /// `OHUA_*` environment variables (see the module docs).
    ///
    /// # Errors
    ///
    /// A [`DeployError`] naming the variable or file with the invalid setting.
    pub fn from_env() -> Result<Deployment, DeployError> {
        from_env()
    }

    /// Defaults overridden by a TOML document in the format of the module docs.
    ///
    /// # Errors
    ///
    /// [`DeployError::Toml`] for syntax errors, wrong types and unknown keys,
    /// [`DeployError::Value`] for non-positive numbers, and
    /// [`DeployError::Strategy`] / [`DeployError::Regex`] for bad sections.
    ///
    /// # Example
    ///
    /// ```
    /// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
    /// use ohua::{Deployment, SectionStrategy};
    /// let d = Deployment::from_toml_str("workers = 3\nsections = \"per-op\"").unwrap();
    /// assert_eq!((d.workers, d.sections), (3, SectionStrategy::PerOperator));
    /// ```
    pub fn from_toml_str(s: &str) -> Result<Deployment, DeployError> {
        file::apply_toml(Deployment::default(), s)
    }

    /// The same deployment, with `workers` worker threads for the `auto`
    /// strategy to plan for (the `workers` key, `OHUA_WORKERS`).
    ///
    /// # Panics
    ///
    /// If `workers` is 0 (the file and the variable reject it too).
    ///
    /// # Example
    ///
    /// ```
    /// # mod ohua { pub use ohua_runtime::deploy::Deployment; pub mod deploy { pub use ohua_runtime::deploy::*; } }
    /// use ohua::Deployment;
    /// assert_eq!(Deployment::default().workers(3).workers, 3);
    /// ```
    #[must_use]
    #[track_caller]
    pub fn workers(mut self, workers: usize) -> Deployment {
        self.workers = positive("workers", workers);
        self
    }

    /// The same deployment, with operators grouped into sections by
    /// `sections` (the `sections` key and `[[section]]` rules,
    /// `OHUA_SECTIONS`).
    ///
    /// # Example
    ///
    /// ```
    /// # mod ohua { pub use ohua_runtime::deploy::Deployment; pub mod deploy { pub use ohua_runtime::deploy::*; } }
    /// use ohua::{deploy::{SectionRule, SectionStrategy}, Deployment};
    /// let d = Deployment::default().sections(SectionStrategy::Single);
    /// assert_eq!(d.sections, SectionStrategy::Single);
    /// let rules = vec![SectionRule::new(["word_freq/split#.*"]).unwrap()];
    /// let d = Deployment::default().sections(SectionStrategy::Rules(rules));
    /// assert!(matches!(d.sections, SectionStrategy::Rules(ref r) if r.len() == 1));
    /// ```
    #[must_use]
    pub fn sections(mut self, sections: SectionStrategy) -> Deployment {
        self.sections = sections;
        self
    }

    /// The same deployment, with operators doing up to `batch_size` firings
    /// per step (the `batch_size` key, `OHUA_BATCH`).
    ///
    /// # Panics
    ///
    /// If `batch_size` is 0 (the file and the variable reject it too).
    ///
    /// # Example
    ///
    /// ```
    /// # mod ohua { pub use ohua_runtime::deploy::Deployment; pub mod deploy { pub use ohua_runtime::deploy::*; } }
    /// use ohua::Deployment;
    /// assert_eq!(Deployment::default().batch_size(64).batch_size, 64);
    /// ```
    #[must_use]
    #[track_caller]
    pub fn batch_size(mut self, batch_size: usize) -> Deployment {
        self.batch_size = positive("batch_size", batch_size);
        self
    }

    /// The same deployment, with room for `arc_capacity` packets on an arc
    /// between two sections (the `arc_capacity` key, `OHUA_ARC_CAPACITY`).
    ///
    /// # Panics
    ///
    /// If `arc_capacity` is 0 (the file and the variable reject it too).
    ///
    /// # Example
    ///
    /// ```
    /// # mod ohua { pub use ohua_runtime::deploy::Deployment; pub mod deploy { pub use ohua_runtime::deploy::*; } }
    /// use ohua::Deployment;
    /// assert_eq!(Deployment::default().arc_capacity(8).arc_capacity, 8);
    /// ```
    #[must_use]
    #[track_caller]
    pub fn arc_capacity(mut self, arc_capacity: usize) -> Deployment {
        self.arc_capacity = positive("arc_capacity", arc_capacity);
        self
    }

    /// The same deployment, with elastic operators that follow their load
    /// (`replicas = "elastic"`) scaled by `scaling` (the `scaling` key,
    /// `OHUA_SCALING`): [`Scaling::throughput`] (the default),
    /// [`Scaling::p99`] for a latency goal per operator,
    /// [`Scaling::request`] for one per request with an optional
    /// throughput floor, or [`Scaling::custom`].
    ///
    /// # Example
    ///
    /// ```
    /// # mod ohua { pub use ohua_runtime::deploy::Deployment; pub mod deploy { pub use ohua_runtime::deploy::*; } }
    /// use ohua::{deploy::{Replication, Scaling}, Deployment};
    /// use std::time::Duration;
    /// let d = Deployment::default().replicas(Replication::Elastic).scaling(Scaling::p99(Duration::from_millis(5)));
    /// assert_eq!(d.scaling.to_string(), "p99=5ms");
    /// ```
    #[must_use]
    pub fn scaling(mut self, scaling: Scaling) -> Deployment {
        self.scaling = scaling;
        self
    }

    /// The same deployment, with replicable operators replicated per
    /// `replicas` (the `replicas` key and `[[replicate]]` rules,
    /// `OHUA_REPLICAS`). Rules are easiest written as text (see
    /// [`Replication`]'s `FromStr`).
    ///
    /// # Example
    ///
    /// ```
    /// # mod ohua { pub use ohua_runtime::deploy::Deployment; pub mod deploy { pub use ohua_runtime::deploy::*; } }
    /// use ohua::{deploy::Replication, Deployment};
    /// let d = Deployment::default().replicas(Replication::Off);
    /// assert_eq!(d.replicas, Replication::Off);
    /// let d = Deployment::default().replicas("index/.*=4".parse().unwrap());
    /// assert_eq!(d.replicas.by_rules("index/lookup#2"), Some(4));
    /// ```
    #[must_use]
    pub fn replicas(mut self, replicas: Replication) -> Deployment {
        self.replicas = replicas;
        self
    }

    /// The same deployment, with data source batches sent per `io` (the
    /// `io` key, `OHUA_IO`).
    ///
    /// # Example
    ///
    /// ```
    /// # mod ohua { pub use ohua_runtime::deploy::Deployment; pub mod deploy { pub use ohua_runtime::deploy::*; } }
    /// use ohua::{deploy::IoMode, Deployment};
    /// assert_eq!(Deployment::default().io(IoMode::Serial).io, IoMode::Serial);
    /// ```
    #[must_use]
    pub fn io(mut self, io: IoMode) -> Deployment {
        self.io = io;
        self
    }

    /// The same deployment, whose replicated calls' lanes carry `lanes`
    /// (the `lanes` key, `OHUA_LANES`).
    ///
    /// # Example
    ///
    /// ```
    /// # mod ohua { pub use ohua_runtime::deploy::Deployment; pub mod deploy { pub use ohua_runtime::deploy::*; } }
    /// use ohua::{deploy::Lanes, Deployment};
    /// assert_eq!(Deployment::default().lanes(Lanes::Serialized).lanes, Lanes::Serialized);
    /// ```
    #[must_use]
    pub fn lanes(mut self, lanes: Lanes) -> Deployment {
        self.lanes = lanes;
        self
    }
}

/// `n`, if it is positive; the builders' check.
#[track_caller]
fn positive(key: &str, n: usize) -> usize {
    assert!(n > 0, "Deployment::{key}({n}): expected a positive number");
    n
}
