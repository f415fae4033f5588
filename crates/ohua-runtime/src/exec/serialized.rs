//! Calls of `#[ohua::algorithm(cluster)]` algorithms: replicable calls whose
//! arguments and results are `Serialize` and `Deserialize`, so that their
//! lanes can carry bytes ([`crate::deploy::Lanes`], `codec.rs`).
//!
//! With [`Lanes::Serialized`] every replica encodes the argument tuple it
//! takes and decodes it again before the statement runs, and does the same
//! with the result tuple it gives: what a lane to another process does at
//! its two ends, in one process. The bytes are counted for the report. A
//! call that runs once, and every call with `Lanes::Values`, runs as
//! [`CallPorts::run_replicable`] does. Sticky values (read-only captures)
//! go through bytes with every item, as a remote lane sends them
//! (`node/remote_values.rs`).

use serde::{de::DeserializeOwned, Serialize};

use crate::codec::{Codec, LaneBytes};
use crate::deploy::Lanes;
use crate::node::call::Call;
use crate::node::fan::FanSticky;
use crate::node::inputs::DataInputs;
use crate::node::outputs::OutputSet;
use crate::node::remote_lane::RemoteLane;
use crate::node::remote_values::RemoteWithValues;
use crate::node::replicate::{LaneShape, LANE_DEPTH};
use crate::node::Node;
use crate::port::{In, Out};
use crate::remote::{RemoteLanes, ServeFnFor, Served};
use crate::sync::process::Arc;

use super::call_ports::{CallFn, CallPorts, HoldFn};

impl<'a, I, S, O> CallPorts<'_, 'a, I, S, O>
where
    I: DataInputs + 'a,
    S: FanSticky + HoldFn<'a, I, O> + 'a,
    O: OutputSet + 'a,
    I::Item: Send + Serialize + DeserializeOwned + 'a,
    O::Item: Send + Serialize + DeserializeOwned + 'a,
    S::Values: Clone + Send + Serialize + DeserializeOwned + 'a,
{
    /// Install a replicable call of a `cluster` algorithm: as
    /// [`CallPorts::run_replicable`], with every replica's arguments and
    /// results through bytes when the plan's lanes are
    /// [`Lanes::Serialized`].
    ///
    /// # Panics
    ///
    /// As [`crate::exec::Builder::node`]. While running, a value that does
    /// not come back from its bytes panics the run with the
    /// [`crate::codec::CodecError`] naming its type.
    #[inline(never)]
    pub fn run_distributable<F>(self, f: F)
    where
        F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Clone + Send + 'a,
    {
        let plan = self.builder.plan();
        if let Some(cluster) = cluster_for(plan) {
            return self.run_on_cluster(f, &*cluster);
        }
        if plan.lanes == Lanes::Values || !plan.is_replicated(self.id) {
            return self.run_replicable(f);
        }
        let n = plan.replicas[self.id];
        let counts = self.builder.lane_bytes(self.id);
        let fs = (0..n).map(|_| through_bytes::<I, S, O, F>(f.clone(), counts.clone())).collect();
        self.run_replicas(fs);
    }
}

impl<'a, I, S, O> CallPorts<'_, 'a, I, S, O>
where
    I: DataInputs + 'a,
    S: FanSticky + HoldFn<'a, I, O> + 'a,
    O: OutputSet + 'a,
    I::Item: Send + Serialize + DeserializeOwned + 'a,
    O::Item: Send + Serialize + DeserializeOwned + 'a,
    S::Values: Clone + Send + Serialize + DeserializeOwned + 'a,
{
    /// A distributable call on a cluster (`crate::remote`): the stage is
    /// opened on every process whatever the plan (so that every process
    /// opens the same stages in the same order). On the caller, a
    /// replicated call's lane 1 is the cluster and its other lanes run
    /// here; elsewhere the operators are built but never run. A call with
    /// captured values sends them with every item (`node/remote_values.rs`).
    fn run_on_cluster<F>(self, f: F, cluster: &dyn RemoteLanes)
    where
        F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Clone + Send + 'a,
    {
        let plan = self.builder.plan();
        let id = self.id;
        let replicated = cluster.is_caller() && plan.is_replicated(id) && plan.replicas[id] >= 2;
        let wake: Box<dyn Fn() + Send + Sync> = if replicated {
            let waker = self.builder.waker(plan.replica_sections[id][1]);
            Box::new(move || waker.wake())
        } else {
            Box::new(|| {})
        };
        // SAFETY: the run revokes it before it ends (`execute_cluster`).
        let served = unsafe { Served::new(served::<I, S, O, F>(f.clone())) };
        self.builder.serve(served.clone());
        let stage = cluster.open(served, wake).unwrap_or_else(|e| panic!("ohua: {e}"));
        let mut stage = match stage {
            Some(stage) if replicated => Some(stage),
            Some(mut stage) => {
                stage.close();
                return self.run_replicable(f);
            }
            None => return self.run_replicable(f),
        };
        let counts = self.builder.lane_bytes(id);
        let processes = cluster.processes();
        let CallPorts { builder, inputs, sticky, outputs, .. } = self;
        let n = builder.plan().replicas[id];
        let mut copies = sticky.fan(builder, id, n).into_iter();
        builder.replicate(
            id,
            inputs,
            outputs,
            // A replica that holds captured values sees the ends of their
            // activations, to release its copies.
            LaneShape { markers_to_all: S::HOLDS_VALUES, far: Some(1) },
            std::convert::identity,
            std::convert::identity,
            |k, lane_in, lane_out| {
                let sticky = copies.next().expect("one sticky set per replica");
                let replica: Box<dyn Node + 'a> = match stage.take() {
                    Some(stage) if k == 1 => {
                        remote_replica::<I, S, O>(lane_in, sticky, lane_out, stage, &counts, processes)
                    }
                    other => {
                        stage = other;
                        let mut f = f.clone();
                        Box::new(Call::new((lane_in,), sticky, (lane_out,), move |(args,), values| {
                            let (values, results) = f(args, values);
                            (values, (results,))
                        }))
                    }
                };
                replica
            },
        );
    }
}

/// Replica 1 of a call on a cluster: a lane whose items go out as bytes
/// to the stage, each with the call's captured values if it has any.
fn remote_replica<'a, I, S, O>(
    lane_in: In<I::Item>,
    sticky: S,
    lane_out: Out<O::Item>,
    stage: Box<dyn crate::remote::RemoteStage>,
    counts: &Arc<LaneBytes>,
    processes: usize,
) -> Box<dyn Node + 'a>
where
    I: DataInputs + 'a,
    S: FanSticky + 'a,
    O: OutputSet + 'a,
    I::Item: Send + Serialize + DeserializeOwned + 'a,
    O::Item: Send + Serialize + DeserializeOwned + 'a,
    S::Values: Clone + Send + Serialize + DeserializeOwned + 'a,
{
    let results = Codec::<Result<Vec<O::Item>, String>>::serde();
    if S::no_values().is_some() {
        let codecs = (Codec::<Vec<I::Item>>::serde(), results);
        return Box::new(RemoteLane::new(lane_in, lane_out, stage, codecs, counts.clone()).for_processes(processes));
    }
    let (pairs_tx, pairs_rx) = crate::arc::channel::<(I::Item, S::Values)>(LANE_DEPTH, None, None);
    let pairing = Call::new((lane_in,), sticky, (Out::new(vec![pairs_tx]),), |(item,), values: S::Values| {
        let pair = (item, values.clone());
        (values, (pair,))
    });
    let codecs = (Codec::<Vec<(I::Item, S::Values)>>::serde(), results);
    let lane = RemoteLane::new(In::new(pairs_rx), lane_out, stage, codecs, counts.clone()).for_processes(processes);
    Box::new(RemoteWithValues::new(pairing, lane))
}

/// The cluster a run planned as `plan` uses: the one this process joined
/// where the plan's lanes are [`Lanes::Cluster`], unless the run is nested
/// in another (started by an operator, or by a statement another process
/// serves): the other processes are not calling it, so it must not open
/// stages or share its result (it runs as `serialized`).
pub(crate) fn cluster_for(plan: &crate::deploy::Plan) -> Option<std::sync::Arc<dyn RemoteLanes>> {
    if plan.lanes != Lanes::Cluster || crate::context::is_inside_run() {
        return None;
    }
    crate::remote::installed()
}

/// `f` between its codecs, for the processes of a cluster: a batch of
/// argument tuples as bytes in (each with the call's captured values if
/// it has any, `node/remote_values.rs`), their result tuples as bytes out
/// (`node/remote_lane.rs` sends what its lane holds as one batch).
fn served<'a, I, S, O, F>(f: F) -> ServeFnFor<'a>
where
    I: DataInputs,
    S: FanSticky,
    O: OutputSet,
    I::Item: Serialize + DeserializeOwned + 'a,
    O::Item: Serialize + DeserializeOwned + 'a,
    S::Values: Serialize + DeserializeOwned + 'a,
    F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Clone + Send + 'a,
{
    let (items, pairs) = (Codec::<Vec<I::Item>>::serde(), Codec::<Vec<(I::Item, S::Values)>>::serde());
    let results = Codec::<Result<Vec<O::Item>, String>>::serde();
    // Each batch runs on a copy of the statement (the closure captures
    // nothing; captured values come with the items), so a process's
    // workers serve batches at once; the lock guards only the copying.
    let f = crate::sync::process::Mutex::new(f);
    Box::new(move |bytes: &[u8]| {
        let mut f = f.lock().unwrap_or_else(|e| e.into_inner()).clone();
        // A panic (the statement's, or a value that does not decode) goes
        // back to the caller as the batch's answer, whose run fails with
        // it: the stage goes on and ends as every process expects, so the
        // cluster serves the next run. A run the statement starts is
        // nested (`cluster_for`).
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let batch: Vec<(I::Item, S::Values)> = match S::no_values() {
                Some(_) => {
                    let items = items.decode(bytes).unwrap_or_else(|e| panic!("{e}"));
                    items.into_iter().map(|item| (item, S::no_values().expect("no captured values"))).collect()
                }
                None => pairs.decode(bytes).unwrap_or_else(|e| panic!("{e}")),
            };
            crate::context::inside_run(|| batch.into_iter().map(|(item, values)| f(item, values).1).collect())
        }))
        .map_err(|e| crate::util::panic_message(&*e));
        let mut bytes = Vec::new();
        results.encode(&out, &mut bytes).unwrap_or_else(|e| panic!("{e}"));
        bytes
    })
}

/// `f` with its arguments (and captured values) and results sent through
/// bytes and back, the bytes counted in `counts`.
fn through_bytes<'a, I, S, O, F>(mut f: F, counts: Arc<LaneBytes>) -> CallFn<'a, I, S, O>
where
    I: DataInputs,
    S: FanSticky,
    O: OutputSet,
    I::Item: Serialize + DeserializeOwned + 'a,
    O::Item: Serialize + DeserializeOwned + 'a,
    S::Values: Serialize + DeserializeOwned + 'a,
    F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Send + 'a,
{
    let (args, results) = (Codec::<I::Item>::serde(), Codec::<O::Item>::serde());
    let pairs = Codec::<(I::Item, S::Values)>::serde();
    let mut buffer = Vec::new();
    Box::new(move |item, values| {
        // With captured values, the item and the values as one, as a
        // remote lane sends them (`node/remote_values.rs`).
        let trip = if S::HOLDS_VALUES {
            pairs.round_trip((item, values), &mut buffer)
        } else {
            args.round_trip(item, &mut buffer).map(|(item, bytes)| ((item, values), bytes))
        };
        let ((item, values), bytes) = trip.unwrap_or_else(|e| panic!("{e}"));
        counts.add(bytes);
        let (values, result) = f(item, values);
        let (result, bytes) = results.round_trip(result, &mut buffer).unwrap_or_else(|e| panic!("{e}"));
        counts.add(bytes);
        (values, result)
    })
}
