//! Which processes form the cluster, and which one this is.
//!
//! Every process of a cluster runs the same program with the same
//! configuration except its index, as timely's own `-n`/`-p`/`-h` options
//! say it. Here it comes from the environment, like the rest of ohua's
//! settings:
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `OHUA_CLUSTER_PROCESSES` | how many processes | the number of hosts, else 1 |
//! | `OHUA_CLUSTER_INDEX` | this process, `0..processes` (0 is the caller) | 0 |
//! | `OHUA_CLUSTER_HOSTS` | `host:port` of every process, comma-separated, in index order | `127.0.0.1:2101`, `:2102`, … |
//! | `OHUA_CLUSTER_WORKERS` | worker threads per process | 1 |
//! | `OHUA_CLUSTER_TIMEOUT_MS` | how long a silent process may stay silent | 5000 |

use std::time::Duration;

use crate::error::ConfigError;

/// The first port of the default hosts, as in timely's examples.
pub const DEFAULT_BASE_PORT: u16 = 2101;

/// How long a process may send no heartbeat before the caller's run ends
/// with [`crate::ClusterError::Unreachable`] naming it.
///
/// Why 5 s: the issue's bound is 10 s from a failure to the caller's
/// error, and a worker that runs one long handler call sends no heartbeat
/// meanwhile (`liveness.rs`), so the bound must not be much shorter.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// A cluster's shape and this process's place in it.
///
/// # Example
///
/// ```
/// use ohua_cluster::ClusterConfig;
///
/// let c = ClusterConfig::local(3, 1).unwrap();
/// assert_eq!(c.processes(), 3);
/// assert_eq!(c.hosts()[2], "127.0.0.1:2103");
/// assert!(!c.is_caller());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterConfig {
    index: usize,
    hosts: Vec<String>,
    workers: usize,
    timeout: Duration,
}

impl ClusterConfig {
    /// One process, one worker: timely without the network.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(ohua_cluster::ClusterConfig::single().processes(), 1);
    /// ```
    pub fn single() -> Self {
        ClusterConfig { index: 0, hosts: vec![default_host(0)], workers: 1, timeout: DEFAULT_TIMEOUT }
    }

    /// Process `index` of `processes` on this machine, on the default ports.
    ///
    /// # Errors
    ///
    /// [`ConfigError::IndexOutOfRange`] if `index >= processes`,
    /// [`ConfigError::NoProcesses`] if `processes` is 0.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(ohua_cluster::ClusterConfig::local(2, 2).is_err());
    /// ```
    pub fn local(processes: usize, index: usize) -> Result<Self, ConfigError> {
        if processes == 0 {
            return Err(ConfigError::NoProcesses);
        }
        let hosts = (0..processes).map(default_host).collect();
        ClusterConfig::new(hosts, index)
    }

    /// Process `index` of the processes at `hosts` (`host:port`, in index
    /// order).
    ///
    /// # Errors
    ///
    /// [`ConfigError::NoProcesses`] for an empty list,
    /// [`ConfigError::IndexOutOfRange`], [`ConfigError::BadHost`] for an
    /// entry without a port.
    ///
    /// # Example
    ///
    /// ```
    /// let hosts = vec!["10.0.0.1:4000".to_string(), "10.0.0.2:4000".to_string()];
    /// let c = ohua_cluster::ClusterConfig::new(hosts, 1).unwrap();
    /// assert_eq!(c.index(), 1);
    /// ```
    pub fn new(hosts: Vec<String>, index: usize) -> Result<Self, ConfigError> {
        if hosts.is_empty() {
            return Err(ConfigError::NoProcesses);
        }
        if index >= hosts.len() {
            return Err(ConfigError::IndexOutOfRange { index, processes: hosts.len() });
        }
        for host in &hosts {
            let port = host.rsplit_once(':').map(|(_, p)| p.parse::<u16>());
            if !matches!(port, Some(Ok(_))) {
                return Err(ConfigError::BadHost { host: host.clone() });
            }
        }
        Ok(ClusterConfig { index, hosts, workers: 1, timeout: DEFAULT_TIMEOUT })
    }

    /// The configuration the `OHUA_CLUSTER_*` variables give (module docs).
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the variable whose value is wrong.
    ///
    /// # Example
    ///
    /// ```
    /// // With none of the variables set: one process.
    /// let c = ohua_cluster::ClusterConfig::from_env().unwrap();
    /// assert!(c.processes() >= 1);
    /// ```
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`ClusterConfig::from_env`] with the variables read through `var`.
    ///
    /// # Errors
    ///
    /// As [`ClusterConfig::from_env`].
    ///
    /// # Example
    ///
    /// ```
    /// let c = ohua_cluster::ClusterConfig::from_lookup(|name| match name {
    ///     "OHUA_CLUSTER_PROCESSES" => Some("2".into()),
    ///     "OHUA_CLUSTER_INDEX" => Some("1".into()),
    ///     _ => None,
    /// })
    /// .unwrap();
    /// assert_eq!((c.processes(), c.index()), (2, 1));
    /// ```
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let number = |name: &'static str| -> Result<Option<usize>, ConfigError> {
            var(name)
                .map(|v| v.trim().parse::<usize>().map_err(|_| ConfigError::NotANumber { variable: name, value: v }))
                .transpose()
        };
        let processes = number("OHUA_CLUSTER_PROCESSES")?;
        let index = number("OHUA_CLUSTER_INDEX")?.unwrap_or(0);
        let hosts: Option<Vec<String>> = var("OHUA_CLUSTER_HOSTS")
            .map(|h| h.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect());
        let mut config = match (hosts, processes) {
            (Some(hosts), Some(n)) if hosts.len() != n => {
                return Err(ConfigError::HostCount { hosts: hosts.len(), processes: n })
            }
            (Some(hosts), _) => ClusterConfig::new(hosts, index)?,
            (None, n) => ClusterConfig::local(n.unwrap_or(1), index)?,
        };
        if let Some(w) = number("OHUA_CLUSTER_WORKERS")? {
            config = config.workers(w)?;
        }
        if let Some(ms) = number("OHUA_CLUSTER_TIMEOUT_MS")? {
            config = config.timeout(Duration::from_millis(ms as u64));
        }
        Ok(config)
    }

    /// The same cluster with `n` worker threads in each process.
    ///
    /// # Errors
    ///
    /// [`ConfigError::NoWorkers`] if `n` is 0.
    ///
    /// # Example
    ///
    /// ```
    /// let c = ohua_cluster::ClusterConfig::single().workers(4).unwrap();
    /// assert_eq!(c.peers(), 4);
    /// ```
    pub fn workers(mut self, n: usize) -> Result<Self, ConfigError> {
        if n == 0 {
            return Err(ConfigError::NoWorkers);
        }
        self.workers = n;
        Ok(self)
    }

    /// The same cluster with another heartbeat timeout ([`DEFAULT_TIMEOUT`]).
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// let c = ohua_cluster::ClusterConfig::single().timeout(Duration::from_secs(2));
    /// assert_eq!(c.heartbeat_timeout(), Duration::from_secs(2));
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How many processes.
    pub fn processes(&self) -> usize {
        self.hosts.len()
    }

    /// This process's index; 0 is the caller, whose run gets the results.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Whether this process is the caller (index 0).
    pub fn is_caller(&self) -> bool {
        self.index == 0
    }

    /// Every process's `host:port`, in index order.
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// Worker threads per process.
    pub fn workers_per_process(&self) -> usize {
        self.workers
    }

    /// Worker threads in the whole cluster (timely's peers).
    pub fn peers(&self) -> usize {
        self.workers * self.hosts.len()
    }

    /// How long a process may stay silent ([`DEFAULT_TIMEOUT`]).
    pub fn heartbeat_timeout(&self) -> Duration {
        self.timeout
    }

    /// The process that runs global worker `worker` (timely numbers a
    /// process's workers consecutively).
    pub fn process_of_worker(&self, worker: usize) -> usize {
        worker / self.workers
    }

    /// timely's configuration for this process.
    pub(crate) fn to_timely(&self) -> timely::Config {
        let communication = if self.hosts.len() == 1 {
            timely::CommunicationConfig::Process(self.workers)
        } else {
            timely::CommunicationConfig::Cluster {
                threads: self.workers,
                process: self.index,
                addresses: self.hosts.clone(),
                report: false,
                zerocopy: false,
                log_fn: crate::traffic::counting_log_fn(),
            }
        };
        timely::Config { communication, worker: timely::WorkerConfig::default() }
    }
}

fn default_host(index: usize) -> String {
    format!("127.0.0.1:{}", usize::from(DEFAULT_BASE_PORT) + index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn no_variables_give_one_process_with_one_worker() {
        let c = ClusterConfig::from_lookup(lookup(&[])).unwrap();
        assert_eq!(c, ClusterConfig::single());
        assert!(c.is_caller());
    }

    #[test]
    fn hosts_give_the_process_count_and_a_mismatch_is_an_error() {
        let c =
            ClusterConfig::from_lookup(lookup(&[("OHUA_CLUSTER_HOSTS", "a:1, b:2,c:3"), ("OHUA_CLUSTER_INDEX", "2")]))
                .unwrap();
        assert_eq!(c.hosts(), ["a:1", "b:2", "c:3"]);
        assert_eq!(c.index(), 2);
        let e =
            ClusterConfig::from_lookup(lookup(&[("OHUA_CLUSTER_HOSTS", "a:1,b:2"), ("OHUA_CLUSTER_PROCESSES", "3")]))
                .unwrap_err();
        assert_eq!(e, ConfigError::HostCount { hosts: 2, processes: 3 });
    }

    #[test]
    fn bad_values_name_their_variable() {
        let e = ClusterConfig::from_lookup(lookup(&[("OHUA_CLUSTER_WORKERS", "many")])).unwrap_err();
        assert!(e.to_string().contains("OHUA_CLUSTER_WORKERS"), "{e}");
        let e = ClusterConfig::from_lookup(lookup(&[("OHUA_CLUSTER_PROCESSES", "2"), ("OHUA_CLUSTER_INDEX", "2")]))
            .unwrap_err();
        assert_eq!(e, ConfigError::IndexOutOfRange { index: 2, processes: 2 });
        let e = ClusterConfig::from_lookup(lookup(&[("OHUA_CLUSTER_HOSTS", "localhost")])).unwrap_err();
        assert_eq!(e, ConfigError::BadHost { host: "localhost".into() });
        assert_eq!(ClusterConfig::single().workers(0).unwrap_err(), ConfigError::NoWorkers);
    }

    #[test]
    fn workers_are_numbered_process_by_process() {
        let c = ClusterConfig::local(3, 0).unwrap().workers(2).unwrap();
        assert_eq!(c.peers(), 6);
        assert_eq!((0..6).map(|w| c.process_of_worker(w)).collect::<Vec<_>>(), [0, 0, 1, 1, 2, 2]);
    }
}
