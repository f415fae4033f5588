//! Trying a cluster on one machine: N local processes of one program.
//!
//! On several hosts each process is started by hand (or by a scheduler)
//! with its `OHUA_CLUSTER_INDEX`; here [`LocalCluster::start`] starts all
//! of them on loopback ports that were free a moment before, and stops
//! them when dropped, so a test cannot leave processes behind.

use std::io;
use std::net::TcpListener;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

/// How long [`LocalCluster::start`] gives process 0 to start listening
/// before it starts the others.
const STAGGER: Duration = Duration::from_millis(50);

/// `n` loopback `host:port`s that were free when asked.
///
/// A port is free for as long as nobody else takes it: the listener that
/// found it is closed before the cluster binds it. Good enough for tests
/// on one machine.
///
/// # Errors
///
/// If the system has no free port.
///
/// # Example
///
/// ```
/// let hosts = ohua_cluster::free_local_hosts(2).unwrap();
/// assert!(hosts[0].starts_with("127.0.0.1:"));
/// ```
pub fn free_local_hosts(n: usize) -> io::Result<Vec<String>> {
    let listeners: Vec<TcpListener> = (0..n).map(|_| TcpListener::bind("127.0.0.1:0")).collect::<io::Result<_>>()?;
    listeners.iter().map(|l| l.local_addr().map(|a| a.to_string())).collect()
}

/// Processes of one cluster on this machine; dropping it kills those still
/// running.
#[derive(Debug)]
pub struct LocalCluster {
    children: Vec<Child>,
}

impl LocalCluster {
    /// Starts `n` processes: `command(i)` builds process `i`'s command, to
    /// which the `OHUA_CLUSTER_*` variables for a cluster on free loopback
    /// ports are added.
    ///
    /// # Errors
    ///
    /// If no free ports are found or a process cannot be started (the
    /// ones already started are killed).
    ///
    /// # Example
    ///
    /// ```no_run
    /// use ohua_cluster::LocalCluster;
    /// let mut cluster = LocalCluster::start(3, |_| std::process::Command::new("./my-program")).unwrap();
    /// let statuses = cluster.wait(std::time::Duration::from_secs(60)).unwrap();
    /// assert!(statuses.iter().all(|s| s.success()));
    /// ```
    pub fn start(n: usize, mut command: impl FnMut(usize) -> Command) -> io::Result<Self> {
        let hosts = free_local_hosts(n)?.join(",");
        let mut cluster = LocalCluster { children: Vec::with_capacity(n) };
        for i in 0..n {
            if i == 1 {
                // timely's process 0 only listens and the others connect
                // to it: a connection refused because it is not listening
                // yet is retried a whole second later.
                std::thread::sleep(STAGGER);
            }
            let mut c = command(i);
            c.env("OHUA_CLUSTER_PROCESSES", n.to_string())
                .env("OHUA_CLUSTER_INDEX", i.to_string())
                .env("OHUA_CLUSTER_HOSTS", &hosts);
            cluster.children.push(c.spawn()?);
        }
        Ok(cluster)
    }

    /// Process `i`, to read its output or kill it.
    ///
    /// # Panics
    ///
    /// If there is no process `i`.
    pub fn process(&mut self, i: usize) -> &mut Child {
        &mut self.children[i]
    }

    /// Waits up to `limit` for every process to exit, and gives their
    /// statuses in index order.
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::TimedOut`] naming the processes still running at
    /// the limit (they are killed when the cluster is dropped).
    pub fn wait(&mut self, limit: Duration) -> io::Result<Vec<ExitStatus>> {
        let start = Instant::now();
        let mut statuses: Vec<Option<ExitStatus>> = vec![None; self.children.len()];
        loop {
            for (child, status) in self.children.iter_mut().zip(statuses.iter_mut()) {
                if status.is_none() {
                    *status = child.try_wait()?;
                }
            }
            if statuses.iter().all(Option::is_some) {
                return Ok(statuses.into_iter().flatten().collect());
            }
            if start.elapsed() > limit {
                let running: Vec<usize> =
                    statuses.iter().enumerate().filter(|(_, s)| s.is_none()).map(|(i, _)| i).collect();
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("cluster processes {running:?} still running after {limit:?}"),
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        for child in &mut self.children {
            if matches!(child.try_wait(), Ok(None)) {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}
