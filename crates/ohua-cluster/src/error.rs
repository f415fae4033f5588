//! What can go wrong: a configuration that cannot be right, a cluster that
//! does not form, a process that dies or falls silent, a handler that
//! panics.

use std::time::Duration;

/// A cluster configuration that cannot work (`config.rs`).
///
/// # Example
///
/// ```
/// let e = ohua_cluster::ClusterConfig::local(2, 5).unwrap_err();
/// assert_eq!(e.to_string(), "OHUA_CLUSTER_INDEX is 5, but the cluster has 2 processes (0..2)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A cluster of no processes.
    #[error("a cluster needs at least one process (OHUA_CLUSTER_PROCESSES or OHUA_CLUSTER_HOSTS)")]
    NoProcesses,
    /// Processes with no worker threads.
    #[error("OHUA_CLUSTER_WORKERS must be at least 1")]
    NoWorkers,
    /// This process's index is not one of the cluster's.
    #[error("OHUA_CLUSTER_INDEX is {index}, but the cluster has {processes} processes (0..{processes})")]
    IndexOutOfRange {
        /// The index given.
        index: usize,
        /// How many processes the cluster has.
        processes: usize,
    },
    /// `OHUA_CLUSTER_HOSTS` and `OHUA_CLUSTER_PROCESSES` disagree.
    #[error("OHUA_CLUSTER_HOSTS lists {hosts} hosts but OHUA_CLUSTER_PROCESSES is {processes}")]
    HostCount {
        /// Hosts listed.
        hosts: usize,
        /// Processes asked for.
        processes: usize,
    },
    /// A host without a port.
    #[error("host `{host}` in OHUA_CLUSTER_HOSTS is not `host:port`")]
    BadHost {
        /// The entry.
        host: String,
    },
    /// A variable that should be a number.
    #[error("{variable}={value:?} is not a number")]
    NotANumber {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
}

/// Why a distributed run ended without its results.
///
/// # Example
///
/// ```
/// let e = ohua_cluster::ClusterError::ProcessFailed { process: 2, cause: "socket closed".into() };
/// assert_eq!(e.process(), Some(2));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    /// The configuration is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The processes did not all connect in time.
    #[error("the cluster did not form within {waited:?}: processes at {hosts:?} must all be started (OHUA_CLUSTER_HOSTS), {cause}")]
    NotFormed {
        /// How long this process waited.
        waited: Duration,
        /// The hosts it tried to reach.
        hosts: Vec<String>,
        /// What timely said, if anything.
        cause: String,
    },
    /// A process's connection broke: it died, or its host went away.
    #[error("cluster process {process} failed: {cause}")]
    ProcessFailed {
        /// The process.
        process: usize,
        /// What the connection reported.
        cause: String,
    },
    /// A process sent no heartbeat for longer than the timeout.
    #[error("cluster process {process} sent nothing for {silent:?} (timeout {timeout:?}): stopped, unreachable, or one handler call longer than the timeout")]
    Unreachable {
        /// The process.
        process: usize,
        /// How long it has been silent.
        silent: Duration,
        /// The configured timeout.
        timeout: Duration,
    },
    /// A handler panicked in a worker, or a worker failed otherwise.
    #[error("a worker of process {process} failed: {message}")]
    WorkerPanicked {
        /// The process whose worker failed.
        process: usize,
        /// The panic's message.
        message: String,
    },
}

impl ClusterError {
    /// The process this error is about, if it names one.
    pub fn process(&self) -> Option<usize> {
        match self {
            ClusterError::ProcessFailed { process, .. }
            | ClusterError::Unreachable { process, .. }
            | ClusterError::WorkerPanicked { process, .. } => Some(*process),
            ClusterError::Config(_) | ClusterError::NotFormed { .. } => None,
        }
    }
}
