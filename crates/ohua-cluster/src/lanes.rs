//! The runtime's remote lanes on a cluster: a `#[ohua::algorithm(cluster)]`
//! algorithm's distributable calls served by every process's workers
//! (issue 25, third part).
//!
//! [`join`] forms this process's cluster from the `OHUA_CLUSTER_*`
//! variables and installs it in the runtime (`ohua_runtime::remote`). Each
//! distributable call of each run then opens one stage, on every process
//! in the same order: its items are batches of argument tuples as bytes,
//! dealt round robin to the workers of the other processes (the caller's
//! cores run the call's local replicas; dealing to the caller's workers as
//! well measured 0.89-0.95x of sequential on 2 pinned processes),
//! each served by that process's copy of the statement; its results come
//! back to the caller in the items' order, which is what a replica's lane
//! must give (the runtime's gather relies on each lane being FIFO). At the
//! end of a run the caller's result is sent to every process, so the call
//! returns the same value everywhere.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use ohua_runtime::remote::{RemoteLanes, RemoteStage, Served};

use crate::cluster::{Cluster, PendingStage};
use crate::config::ClusterConfig;
use crate::error::ClusterError;
use crate::stage::{Items, Route};

/// Form this process's cluster from the environment (`OHUA_CLUSTER_*`,
/// [`ClusterConfig::from_env`]) and make it the runtime's: every later run
/// of a `cluster` algorithm whose deployment says `lanes = "cluster"`
/// serves its distributable calls on it. Call it once, at the start of
/// `main`, in every process (they all run the same program).
///
/// # Errors
///
/// A bad configuration, a cluster that does not form, or a second call.
///
/// # Example
///
/// ```no_run
/// fn main() -> Result<(), ohua_cluster::ClusterError> {
///     let _cluster = ohua_cluster::join()?;
///     // ... call the algorithms, as in one process
///     Ok(())
/// } // the cluster closes here, once every process is done
/// ```
pub fn join() -> Result<Joined, ClusterError> {
    join_with(&ClusterConfig::from_env()?)
}

/// [`join`] with a configuration of the caller's.
///
/// # Errors
///
/// As [`join`].
pub fn join_with(config: &ClusterConfig) -> Result<Joined, ClusterError> {
    let cluster = Mutex::new(Cluster::form(config)?);
    let lanes: Arc<dyn RemoteLanes> =
        Arc::new(ClusterLanes { config: config.clone(), cluster, running: Mutex::new(Vec::new()) });
    ohua_runtime::remote::install(&lanes).map_err(|e| ClusterError::WorkerPanicked {
        process: config.index(),
        message: format!("{e} (`ohua_cluster::join` is called once)"),
    })?;
    Ok(Joined(lanes))
}

/// This process's membership of the cluster ([`join`]): while it lives,
/// `lanes = "cluster"` runs use the cluster; dropping it closes the
/// cluster, waiting (bounded) for the other processes to close theirs, so
/// that no process leaves while another still reads from it.
#[must_use = "the cluster closes when this is dropped: keep it until the end of `main`"]
pub struct Joined(#[allow(dead_code)] Arc<dyn RemoteLanes>);

/// A formed cluster as the runtime's remote lanes.
struct ClusterLanes {
    config: ClusterConfig,
    /// Behind a lock: a `Cluster` is not `Sync` (its channels), and stages
    /// are started one at a time anyway, in the order of the graph.
    cluster: Mutex<Cluster>,
    /// The stages this process opened and has not waited for: each one's
    /// end, reported by the thread that waits for it.
    running: Mutex<Vec<mpsc::Receiver<Result<(), String>>>>,
}

/// The caller's end of a stage: items into the stage's source, results
/// from its sink.
struct ChannelStage {
    items: Option<mpsc::Sender<Vec<u8>>>,
    /// The worker that reads `items` ([`Items::Pushed`]): woken after each.
    worker: std::thread::Thread,
    results: mpsc::Receiver<Result<Vec<u8>, String>>,
}

impl RemoteStage for ChannelStage {
    fn send(&mut self, item: Vec<u8>) {
        if let Some(items) = &self.items {
            // A stage that failed has dropped its source: the failure
            // reaches `try_recv`.
            let _ = items.send(item);
            self.worker.unpark();
        }
    }

    fn try_recv(&mut self) -> Option<Result<Vec<u8>, String>> {
        match self.results.try_recv() {
            Ok(r) => Some(r),
            Err(mpsc::TryRecvError::Empty) => None,
            Err(mpsc::TryRecvError::Disconnected) => Some(Err("the cluster stage ended early".into())),
        }
    }

    fn close(&mut self) {
        self.items = None;
        // The worker sees the channel close at its next poll.
        self.worker.unpark();
    }
}

impl Drop for ChannelStage {
    fn drop(&mut self) {
        self.close();
    }
}

impl RemoteLanes for ClusterLanes {
    fn is_caller(&self) -> bool {
        self.config.is_caller()
    }

    fn processes(&self) -> usize {
        self.config.processes()
    }

    fn open(&self, serve: Served, wake: Box<dyn Fn() + Send + Sync>) -> Result<Option<Box<dyn RemoteStage>>, String> {
        let (items_tx, items_rx) = mpsc::channel::<Vec<u8>>();
        let (results_tx, results_rx) = mpsc::channel::<Result<Vec<u8>, String>>();
        let wake: Arc<dyn Fn() + Send + Sync> = Arc::from(wake);
        let sink = {
            let (results_tx, wake) = (results_tx.clone(), Arc::clone(&wake));
            move |result: Vec<u8>| {
                let _ = results_tx.send(Ok(result));
                wake();
            }
        };
        let handler = move |_worker: usize| {
            let serve = serve.clone();
            move |item: Vec<u8>| serve.call(&item)
        };
        let (pending, worker) = {
            let cluster = self.cluster();
            let items = Items::<std::iter::Empty<Vec<u8>>>::Pushed(items_rx);
            let pending = cluster.start_stage(items, Route::Elsewhere, handler, sink).map_err(|e| e.to_string())?;
            (pending, cluster.caller_worker())
        };
        self.watch(pending, results_tx, wake);
        Ok(self.is_caller().then(|| {
            Box::new(ChannelStage { items: Some(items_tx), worker, results: results_rx }) as Box<dyn RemoteStage>
        }))
    }

    fn wait_stages(&self) -> Result<(), String> {
        let running = std::mem::take(&mut *self.running.lock().unwrap_or_else(|e| e.into_inner()));
        for end in running {
            end.recv().unwrap_or_else(|_| Err("a cluster stage's watcher stopped".into()))?;
        }
        Ok(())
    }

    fn share_result(&self, result: Option<Vec<u8>>) -> Result<Vec<u8>, String> {
        // One item per process, to its first worker; each process keeps
        // what its worker received.
        let config = &self.config;
        let per_process = config.workers_per_process() as u64;
        let got: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
        let items: Vec<(u64, Vec<u8>)> = match &result {
            Some(bytes) => (0..config.processes() as u64).map(|p| (p, bytes.clone())).collect(),
            None => Vec::new(),
        };
        let handler = {
            let got = Arc::clone(&got);
            move |_worker: usize| {
                let got = Arc::clone(&got);
                move |(_, bytes): (u64, Vec<u8>)| {
                    *got.lock().unwrap_or_else(|e| e.into_inner()) = Some(bytes);
                }
            }
        };
        let route = Route::by_key(move |(p, _): &(u64, Vec<u8>)| p * per_process);
        self.cluster()
            .run_stage(Items::Ready(items.into_iter()), route, handler, |()| {})
            .map_err(|e| e.to_string())?;
        let got = got.lock().unwrap_or_else(|e| e.into_inner()).take();
        got.ok_or_else(|| "the caller's result did not reach this process".to_string())
    }
}

impl ClusterLanes {
    fn cluster(&self) -> std::sync::MutexGuard<'_, Cluster> {
        self.cluster.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wait for `pending` on a thread of its own: a failure reaches the
    /// caller's lane at once (a result channel error, and a wake-up), and
    /// the stage's end reaches [`RemoteLanes::wait_stages`].
    fn watch(
        &self,
        pending: PendingStage,
        results: mpsc::Sender<Result<Vec<u8>, String>>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) {
        let (end_tx, end_rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("ohua-cluster-stage".into())
            .spawn(move || {
                let end = pending.wait().map(|_| ()).map_err(|e: ClusterError| e.to_string());
                if let Err(e) = &end {
                    let _ = results.send(Err(e.clone()));
                    wake();
                }
                let _ = end_tx.send(end);
            })
            .expect("a thread to wait for a cluster stage");
        self.running.lock().unwrap_or_else(|e| e.into_inner()).push(end_rx);
    }
}
