//! Ohua across processes and hosts, on timely-dataflow's cluster mode
//! (issue 25, first part).
//!
//! Every process of a cluster runs the same program; the
//! `OHUA_CLUSTER_*` variables ([`ClusterConfig`]) say how many there are,
//! where, and which one this is. Process 0 is the *caller*: its items go
//! in, its results come out. The transport, the exchange between workers
//! and the progress tracking are timely's; this crate adds what ohua
//! promises on top:
//!
//! - results back in the caller's order ([`run_stage`]), released as soon
//!   as those before them have left;
//! - every item of a key on one worker, in order ([`Route::ByKey`]), as a
//!   keyed state's key groups are placed;
//! - a failure named and bounded in time ([`ClusterError`]): a process
//!   whose connection breaks, one silent past the heartbeat timeout, a
//!   handler that panics;
//! - a local cluster for trying it out and for tests ([`LocalCluster`]).
//!
//! Data crossing processes is serialised with serde (timely's
//! `ExchangeData`: `Serialize + Deserialize`).
//!
//! An `#[ohua::algorithm(cluster)]` algorithm's replicable calls run on the
//! cluster under `lanes = "cluster"` once the process has [`join`]ed it
//! (`lanes.rs`: each call's lane to the cluster is a stage). Keyed states
//! and calls with captured values still run in the caller.
//!
//! # Example
//!
//! ```
//! use ohua_cluster::{map_ordered, ClusterConfig};
//!
//! // One process here; the same call on every process of a cluster.
//! let config = ClusterConfig::single();
//! let squares = map_ordered(&config, vec![1u64, 2, 3], |x| x * x).unwrap();
//! assert_eq!(squares, Some(vec![1, 4, 9]));
//! ```

#![warn(missing_docs)]

mod cluster;
mod config;
mod error;
mod feed;
mod lanes;
mod launch;
mod liveness;
mod reorder;
mod stage;
mod traffic;

pub use cluster::{run_stage, Cluster, PendingStage};
pub use config::{ClusterConfig, DEFAULT_BASE_PORT, DEFAULT_TIMEOUT};
pub use error::{ClusterError, ConfigError};
pub use lanes::{join, join_with, Joined};
pub use launch::{free_local_hosts, LocalCluster};
pub use liveness::BEAT_EVERY;
pub use stage::{Items, Route, StageReport};
pub use traffic::bytes_sent;

use std::sync::{Arc, Mutex};

/// Maps `f` over the caller's `items` on every worker of the cluster and
/// gives the results in the items' order: `Some` on the caller, `None` on
/// the other processes (which serve until the caller is done).
///
/// # Errors
///
/// As [`run_stage`].
///
/// # Example
///
/// ```
/// let config = ohua_cluster::ClusterConfig::single().workers(2).unwrap();
/// let out = ohua_cluster::map_ordered(&config, (0..100u64).collect(), |x| x + 1).unwrap();
/// assert_eq!(out, Some((1..101).collect()));
/// ```
pub fn map_ordered<I, O, F>(config: &ClusterConfig, items: Vec<I>, f: F) -> Result<Option<Vec<O>>, ClusterError>
where
    I: timely::ExchangeData + Clone,
    O: timely::ExchangeData + Clone,
    F: Fn(I) -> O + Send + Sync + Clone + 'static,
{
    let out = Arc::new(Mutex::new(Vec::with_capacity(items.len())));
    let sink = {
        let out = Arc::clone(&out);
        move |o: O| out.lock().expect("the sink's lock").push(o)
    };
    run_stage(config, Items::Ready(items.into_iter()), Route::RoundRobin, move |_| f.clone(), sink)?;
    let results = std::mem::take(&mut *out.lock().expect("the sink's lock"));
    Ok(config.is_caller().then_some(results))
}
