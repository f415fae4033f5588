//! Instantiating a graph: arcs sized and wired for the plan, operators installed.

use crate::arc::{self, Hold, Receiver, Sender};
use crate::deploy::{LinkTimes, Plan, Recut};
use crate::graph::GraphInfo;
use crate::node::chain::Stage;
use crate::node::elastic::{Elastic, Probe};
use crate::node::inputs::DataInputs;
use crate::node::outputs::OutputSet;
use crate::node::path::PathCosts;
use crate::node::remeasure::Remeasure;
use crate::node::replicate::{order_capacity, Gather, LaneShape, Scatter, LANE_DEPTH, REORDER_DEPTH};
use crate::node::Node;
use crate::port::{In, Out};
use crate::sync::Waker;

use super::call_ports::CallPorts;
use super::parts::End;
use super::recut::HoldFollow;
use super::ResultSlot;
pub(crate) use crate::node::install::{Install, Role};

/// Collects a graph's arcs and operators before a run.
///
/// Generated code receives a `Builder` in the closure passed to
/// [`crate::exec::execute`]: it creates every arc with [`Builder::arc`],
/// builds the operators around their ends and installs each with
/// [`Builder::node`]. The builder picks each arc's capacity and wake-ups
/// from the deployment plan, so generated code is deployment-independent.
///
/// # Example
///
/// See the crate-level example.
pub struct Builder<'a> {
    graph: &'static GraphInfo,
    plan: Plan,
    /// One waker per section, indexed by section.
    wakers: Vec<Waker>,
    nodes: Vec<Option<Box<dyn Node + 'a>>>,
    /// For each node fused into a chain piece, the piece's first node.
    fused_into: Vec<Option<usize>>,
    arcs_built: Vec<bool>,
    /// Replicas and merges of replicated nodes.
    extras: Vec<Extra<'a>>,
    /// Which nodes a feedback arc goes into ([`GraphInfo::loop_heads`]).
    loop_heads: Vec<bool>,
    /// For the loop head whose cycle was computed last: its id and
    /// [`GraphInfo::loop_cycle`] (a head's arcs are built one after another).
    last_cycle: Option<(usize, Vec<bool>)>,
    /// A service run's control ([`Builder::service`]).
    control: Option<std::sync::Arc<crate::update::Control>>,
    /// The elastic replicated nodes' lanes, once their scatter asked.
    elastic: Vec<Option<Elastic>>,
    /// A service's replaceable scaling policy ([`Builder::set_service`]).
    live_scaling: Option<crate::deploy::LiveScaling>,
    /// The costs of the run's elastic operators, which a goal per request
    /// is split over (`node/path.rs`); made with the first of them, so a
    /// run without any allocates nothing for it.
    path: Option<PathCosts>,
    /// Where the run's chain pieces add their links' sampled times; made
    /// with the first piece of two links or more.
    link_times: Option<LinkTimes>,
    /// Loop entries whose hold follows the groups of a run that re-cuts.
    holds: Vec<HoldFollow>,
    /// With a live view on: per arc built, the node it feeds and a gauge
    /// of its fill (`exec/live.rs`).
    gauges: Option<Vec<crate::live::counts::Gauge<'a>>>,
    /// Per call on serialized lanes, the items and bytes they carried.
    encoded: Vec<(usize, crate::sync::process::Arc<crate::codec::LaneBytes>)>,
    /// The statements this run serves to a cluster, revoked when it ends.
    served: Vec<crate::remote::Served>,
}

/// An operator beyond one per node: a replica or a merge of node `anchor`.
pub(crate) struct Extra<'a> {
    pub(crate) anchor: usize,
    pub(crate) role: Role,
    pub(crate) section: usize,
    pub(crate) node: Box<dyn Node + 'a>,
}

/// What a build produced: operators by node id (`None` for nodes fused into
/// another node's operator), and for those, the node they are fused into.
pub(crate) struct Built<'a> {
    pub(crate) plan: Plan,
    pub(crate) nodes: Vec<Option<Box<dyn Node + 'a>>>,
    pub(crate) fused_into: Vec<Option<usize>>,
    pub(crate) extras: Vec<Extra<'a>>,
    /// The elastic replicated nodes' lanes, for the run's report.
    pub(crate) elastic: Vec<Option<Elastic>>,
    /// The chain links' sampled times, if the run fused any.
    pub(crate) link_times: Option<LinkTimes>,
    /// Loop entries whose hold follows the groups of a run that re-cuts.
    pub(crate) holds: Vec<HoldFollow>,
    /// The arcs' gauges, with a live view on.
    pub(crate) gauges: Vec<crate::live::counts::Gauge<'a>>,
    /// Per call on serialized lanes, the items and bytes they carried.
    pub(crate) encoded: Vec<(usize, crate::sync::process::Arc<crate::codec::LaneBytes>)>,
}

impl<'a> Builder<'a> {
    /// A builder for `graph` deployed per `plan`, whose sections are woken
    /// through `wakers`.
    pub(crate) fn new(graph: &'static GraphInfo, plan: Plan, wakers: Vec<Waker>) -> Self {
        Builder {
            graph,
            plan,
            wakers,
            nodes: (0..graph.nodes.len()).map(|_| None).collect(),
            fused_into: vec![None; graph.nodes.len()],
            arcs_built: vec![false; graph.arcs.len()],
            extras: Vec::new(),
            loop_heads: graph.loop_heads(),
            last_cycle: None,
            control: None,
            elastic: vec![None; graph.nodes.len()],
            live_scaling: None,
            path: None,
            link_times: None,
            holds: Vec::new(),
            gauges: crate::live::is_on().then(Vec::new),
            encoded: Vec::new(),
            served: Vec::new(),
        }
    }

    /// This run is a service's, controlled by `control`, whose elastic
    /// operators follow `live_scaling` once it holds a policy.
    pub(crate) fn set_service(
        &mut self,
        control: Option<std::sync::Arc<crate::update::Control>>,
        live_scaling: Option<crate::deploy::LiveScaling>,
    ) {
        self.control = control;
        self.live_scaling = live_scaling;
    }

    /// The control of the service this run belongs to, if it is a service's
    /// run: what a loop over a receiver parameter watches for a stop
    /// (`update::interrupt`).
    pub fn service(&self) -> Option<&std::sync::Arc<crate::update::Control>> {
        self.control.as_ref()
    }

    /// The graph being built.
    pub fn graph(&self) -> &'static GraphInfo {
        self.graph
    }

    /// The deployment plan of this run.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Create the arc with this id (an index into [`GraphInfo::arcs`]).
    ///
    /// If producer and consumer run in the same section, the arc holds
    /// [`Plan::local_capacity`] packets and wakes nobody (the section's own
    /// loop sees the data); otherwise it holds [`Plan::cross_capacity`]
    /// packets and wakes the other side's section. Feedback arcs are treated
    /// the same way.
    ///
    /// # Panics
    ///
    /// Panics if `id` is not an arc of the graph or was already created.
    pub fn arc<T: Send + 'a>(&mut self, id: usize) -> (Sender<T>, Receiver<T>) {
        // Only the channel depends on `T`: the rest is shared by every arc
        // of every algorithm instead of being compiled once per type.
        let (capacity, producer, consumer) = self.arc_plan(id);
        let (tx, rx) = arc::channel(capacity, producer, consumer);
        #[cfg(not(loom))]
        if let Some(gauges) = &mut self.gauges {
            gauges.push((self.graph.arcs[id].to as usize, rx.gauge()));
        }
        if self.graph.arcs[id].feedback {
            return (tx.feedback(), rx);
        }
        (tx.holding(self.hold_of(id)), rx)
    }

    /// Whether arc `id` goes into a loop head whose cycle has an operator
    /// in the producer's section. A loop entry (`smap`) then does not block
    /// its thread in a source's `next()` while the head waits for the body
    /// to answer an iteration (`Sender::consumer_holds`): blocked, it would
    /// keep its section from computing that answer until the next item
    /// arrived (issue 21: each item of a loop that carries a state waited
    /// for about a batch of later ones). Elsewhere the entry may block and
    /// read ahead, so the body's other operators keep pipelining. In a run
    /// that regroups its sections by measured load, what counts is the
    /// thread: the entry honours the hold while the groups put a section of
    /// the cycle on its thread (`exec/recut.rs`, [`HoldFollow`]).
    #[inline(never)]
    fn hold_of(&mut self, id: usize) -> Hold {
        let info = &self.graph.arcs[id];
        let head = info.to as usize;
        if !self.loop_heads[head] {
            return Hold::Ignored;
        }
        let section = self.plan.section_of[info.from as usize];
        if self.last_cycle.as_ref().is_none_or(|(h, _)| *h != head) {
            self.last_cycle = Some((head, self.graph.loop_cycle(head)));
        }
        let cycle = self.last_cycle.as_ref().map_or(&[][..], |(_, c)| c.as_slice());
        let on_cycle = cycle.iter().enumerate().filter(|(_, &on)| on).map(|(node, _)| self.plan.section_of[node]);
        if let Some(Recut::Measured { start, .. } | Recut::Eager { start, .. } | Recut::Streaming { start, .. }) =
            &self.plan.recut
        {
            let mut sections: Vec<usize> = on_cycle.collect();
            sections.sort_unstable();
            sections.dedup();
            let follow = HoldFollow::new(section, sections, start);
            let flag = follow.flag();
            self.holds.push(follow);
            return Hold::While(flag);
        }
        // Every call builds its arcs: no allocation here.
        let mut on_cycle = on_cycle;
        if on_cycle.any(|s| s == section) {
            Hold::Honoured
        } else {
            Hold::Ignored
        }
    }

    /// Capacity and wakers of arc `id`, marking it built.
    #[inline(never)]
    fn arc_plan(&mut self, id: usize) -> (usize, Option<Waker>, Option<Waker>) {
        let algorithm = self.graph.algorithm;
        let info = self.graph.arcs.get(id).unwrap_or_else(|| {
            panic!("ohua: algorithm `{algorithm}` has no arc {id}");
        });
        assert!(
            !std::mem::replace(&mut self.arcs_built[id], true),
            "ohua: arc {id} of algorithm `{algorithm}` created twice"
        );
        let from = self.plan.section_of[info.from as usize];
        let to = self.plan.section_of[info.to as usize];
        if from == to {
            (self.plan.local_capacity, None, None)
        } else {
            (self.plan.cross_capacity, Some(self.wakers[from].clone()), Some(self.wakers[to].clone()))
        }
    }

    /// Create arc `id` ([`Builder::arc`]) with its ends wrapped as ports:
    /// the producer's single-consumer [`Out`] (several are joined with
    /// [`Out::fan`]) and the consumer's [`In`], each an [`End`] that its
    /// operator takes. Generated code uses this; it keeps the expansion
    /// short.
    ///
    /// # Panics
    ///
    /// As [`Builder::arc`].
    // Not inlined (nor the other constructors generated code calls): the
    // builder closure of a large algorithm calls them hundreds of times, and
    // inlined they made it one huge function that LLVM optimised in
    // superlinear time (BENCHMARKS.md, "Compile time").
    #[inline(never)]
    pub fn ports<T: Send + 'a>(&mut self, id: usize) -> (End<Out<T>>, End<In<T>>) {
        let (tx, rx) = self.arc(id);
        (End::new(Out::new(vec![tx])), End::new(In::new(rx)))
    }

    /// Start installing a [`Call`](crate::node::call::Call) operator for node `id` with these ports;
    /// [`CallPorts::run`] gives it its function and installs it. The same
    /// as `node(id, Call::new(..))`, written so that generated code stays
    /// short (`b.call(3, (r1,), (), (s2,)).run(move |(x,), ()| ..)`).
    pub fn call<I, S, O>(&mut self, id: usize, inputs: I, sticky: S, outputs: O) -> CallPorts<'_, 'a, I, S, O> {
        CallPorts::new(self, id, inputs, sticky, outputs)
    }

    /// Install the operator for node `id` (an index into [`GraphInfo::nodes`]).
    ///
    /// # Panics
    ///
    /// Panics if `id` is not a node of the graph or already has an operator.
    #[inline(never)]
    pub fn node<N: Node + 'a>(&mut self, id: usize, node: N) {
        self.install(id, Box::new(node));
    }

    /// The checks of [`Builder::node`], compiled once rather than per
    /// operator type.
    #[inline(never)]
    pub(super) fn install(&mut self, id: usize, node: Box<dyn Node + 'a>) {
        let algorithm = self.graph.algorithm;
        let fused = self.fused_into.get(id).copied().flatten();
        let slot = self.nodes.get_mut(id).unwrap_or_else(|| {
            panic!("ohua: algorithm `{algorithm}` has no node {id}");
        });
        assert!(slot.is_none() && fused.is_none(), "ohua: node {id} (`{}`) installed twice", self.graph.nodes[id].name);
        *slot = Some(node);
    }

    /// Install a chain of fused calls (see [`crate::node::chain`]): the chain
    /// is cut wherever the plan puts two neighbouring links in different
    /// sections, and each piece becomes one operator installed at its first
    /// node.
    ///
    /// # Panics
    ///
    /// Panics if a node of the chain already has an operator.
    pub fn chain<A, L: Stage<A> + 'a>(&mut self, first: L) {
        first.install(self);
    }

    /// Install `node` as the operator of the fused nodes `ids` (first one
    /// first).
    pub(crate) fn install_piece<N: Node + 'a>(&mut self, ids: &[usize], node: N) {
        self.mark_fused(ids);
        self.install(ids[0], Box::new(node));
    }

    /// The lanes between replicated node `id`'s section and each of its
    /// replicas (into the replicas if `to_replicas`, else back), holding
    /// `capacity` packets; they wake the other side across sections.
    pub(crate) fn lanes<T: Send + 'a>(
        &self,
        id: usize,
        to_replicas: bool,
        capacity: usize,
    ) -> (Vec<Sender<T>>, Vec<Receiver<T>>) {
        let home = self.plan.section_of[id];
        self.plan.replica_sections[id]
            .iter()
            .map(|&replica| {
                let (from, to) = if to_replicas { (home, replica) } else { (replica, home) };
                if from == to {
                    arc::channel(capacity, None, None)
                } else {
                    arc::channel(capacity, Some(self.wakers[from].clone()), Some(self.wakers[to].clone()))
                }
            })
            .unzip()
    }

    /// The order arc between a replicated node's scatter and its merge
    /// (both in the node's section).
    pub(crate) fn order_arc(&self, id: usize) -> (Sender<u16>, Receiver<u16>) {
        arc::channel(order_capacity(self.plan.replicas[id], self.plan.batch_size), None, None)
    }

    /// Install a replica (`Role::Replica`) or the merge (`Role::Merge`) of
    /// replicated node `anchor`.
    pub(crate) fn install_extra(&mut self, anchor: usize, role: Role, mut node: Box<dyn Node + 'a>) {
        match (role, &self.elastic[anchor]) {
            (Role::Replica(0), Some(elastic)) => node = Box::new(Probe::new(node, elastic.clone())),
            (Role::Replica(_), Some(elastic)) => node = Box::new(Remeasure::new(node, elastic.clone())),
            _ => {}
        }
        let section = match role {
            Role::Replica(k) => self.plan.replica_sections[anchor][k],
            Role::Node | Role::Merge => self.plan.section_of[anchor],
        };
        self.extras.push(Extra { anchor, role, section, node });
    }

    /// Install node `id`, whose values `inputs` deliver and whose results
    /// go to `outputs`, on the replicas of the plan: a [`Scatter`] as the
    /// node's operator, `replica(k, lane in, lane out)` for each replica k,
    /// and a [`Gather`]. `into`/`from` convert between the ports' tuples and
    /// the lanes' values; `shape`: whether the replicas hold sticky values
    /// and must see every marker, and which lane is served far away.
    #[allow(clippy::too_many_arguments)] // one call site per kind of replica
    pub(crate) fn replicate<I, O, T, U, R>(
        &mut self,
        id: usize,
        inputs: I,
        outputs: O,
        shape: LaneShape,
        into: impl FnMut(I::Item) -> T + Send + 'a,
        from: impl FnMut(U) -> O::Item + Send + 'a,
        mut replica: impl FnMut(usize, In<T>, Out<U>) -> R,
    ) where
        I: DataInputs + 'a,
        O: OutputSet + 'a,
        T: Send + 'a,
        U: Send + 'a,
        R: Node + 'a,
    {
        let (lanes, gather) = self.scatter_gather(id, inputs, outputs, shape, into, from);
        for (k, (lane_in, lane_out)) in lanes.into_iter().enumerate() {
            let node = replica(k, In::new(lane_in), Out::new(vec![lane_out]));
            self.install_extra(id, Role::Replica(k), Box::new(node));
        }
        self.install_extra(id, Role::Merge, gather);
    }

    /// The scatter (installed) and the gather (returned, installed after
    /// the replicas) of [`Builder::replicate`], with the replicas' ends of
    /// the lanes. Apart from `replicate`,
    /// whose replica-making closure is different at every call site, so
    /// that this part is compiled once per types.
    #[inline(never)]
    #[allow(clippy::type_complexity)]
    fn scatter_gather<I, O, T, U, Into, From>(
        &mut self,
        id: usize,
        inputs: I,
        outputs: O,
        shape: LaneShape,
        into: Into,
        from: From,
    ) -> (Vec<(Receiver<T>, Sender<U>)>, Box<dyn Node + 'a>)
    where
        I: DataInputs + 'a,
        O: OutputSet + 'a,
        T: Send + 'a,
        U: Send + 'a,
        Into: FnMut(I::Item) -> T + Send + 'a,
        From: FnMut(U) -> O::Item + Send + 'a,
    {
        let (to_replicas, lanes_in) = self.lanes::<T>(id, true, LANE_DEPTH);
        let (from_replicas, lanes_out) = self.lanes::<U>(id, false, REORDER_DEPTH);
        let (order, order_rx) = self.order_arc(id);
        let elastic = self.elastic(id);
        let scatter = Scatter::new(inputs, to_replicas, order, into)
            .markers_to_all(shape.markers_to_all)
            .elastic(elastic)
            .far(shape.far);
        self.install(id, Box::new(scatter));
        let gather: Box<dyn Node + 'a> = if shape.markers_to_all {
            Box::new(Gather::with_markers_in_lanes(order_rx, lanes_out, outputs, from))
        } else {
            Box::new(Gather::new(order_rx, lanes_out, outputs, from))
        };
        (lanes_in.into_iter().zip(from_replicas).collect(), gather)
    }

    /// The lanes of replicated node `id` if its replicas are elastic (a
    /// first run, `node/elastic.rs`); replica 0, installed after this
    /// call, gets the probe that opens them.
    pub(crate) fn elastic(&mut self, id: usize) -> Option<Elastic> {
        let opening = self.plan.elastic.get(id).copied().flatten()?;
        let lanes = self.plan.replicas[id];
        let (scaling, live) = (&self.plan.scaling, &self.live_scaling);
        Some(
            self.elastic[id]
                .get_or_insert_with(|| {
                    let nodes = self.graph.nodes.len();
                    let path = Some(self.path.get_or_insert_with(|| PathCosts::new(nodes)).slot(id));
                    let e = Elastic::with_scaling(lanes, opening, scaling.clone(), live.clone(), path);
                    if let Some(&ns) = self.plan.long_items.get(id).filter(|&&ns| ns > 0) {
                        e.set_ns_per_item(ns);
                    }
                    e
                })
                .clone(),
        )
    }

    /// Record that nodes `ids[1..]` are fused into `ids[0]`.
    #[inline(never)]
    pub(crate) fn mark_fused(&mut self, ids: &[usize]) {
        for &id in &ids[1..] {
            assert!(
                self.nodes[id].is_none() && self.fused_into[id].is_none(),
                "ohua: node {id} (`{}`) installed twice",
                self.graph.nodes[id].name
            );
            self.fused_into[id] = Some(ids[0]);
        }
    }

    /// A fresh result slot: give a clone to the graph's sink operator and
    /// return the slot from the build closure.
    pub fn result_slot<T: Send + 'a>(&mut self) -> ResultSlot<T> {
        ResultSlot::new()
    }

    /// Where node `id`'s serialized lanes count what they carry (for the
    /// run's report, [`crate::report::NodeStats::encoded`]).
    pub(crate) fn lane_bytes(&mut self, id: usize) -> crate::sync::process::Arc<crate::codec::LaneBytes> {
        let counts = crate::sync::process::Arc::new(crate::codec::LaneBytes::default());
        self.encoded.push((id, counts.clone()));
        counts
    }

    /// The waker of section `section`.
    pub(crate) fn waker(&self, section: usize) -> Waker {
        self.wakers[section].clone()
    }

    /// A statement served to a cluster: revoked when the run ends
    /// ([`Builder::take_served`]).
    pub(crate) fn serve(&mut self, served: crate::remote::Served) {
        self.served.push(served);
    }

    /// The statements served to a cluster, to revoke.
    pub(crate) fn take_served(&mut self) -> Vec<crate::remote::Served> {
        std::mem::take(&mut self.served)
    }

    /// The installed operators, indexed by node id.
    ///
    /// # Panics
    ///
    /// Panics, naming them, if some nodes have no operator.
    pub(crate) fn into_built(self) -> Built<'a> {
        let missing: Vec<&str> = (0..self.nodes.len())
            .filter(|&id| self.nodes[id].is_none() && self.fused_into[id].is_none())
            .map(|id| self.graph.nodes[id].name)
            .collect();
        assert!(
            missing.is_empty(),
            "ohua: the build of algorithm `{}` installed no operator for node(s) {}",
            self.graph.algorithm,
            missing.join(", ")
        );
        Built {
            plan: self.plan,
            nodes: self.nodes,
            fused_into: self.fused_into,
            extras: self.extras,
            elastic: self.elastic,
            link_times: self.link_times,
            holds: self.holds,
            gauges: self.gauges.unwrap_or_default(),
            encoded: self.encoded,
        }
    }
}

/// The operators that install more than one operator for their node
/// (chains, fans of sticky values) do it through [`Install`], which the
/// operators' module defines (`LAYERS.md`).
impl<'a> Install<'a> for Builder<'a> {
    fn plan(&self) -> &Plan {
        Builder::plan(self)
    }

    fn lanes<T: Send + 'a>(&self, id: usize, to_replicas: bool, capacity: usize) -> (Vec<Sender<T>>, Vec<Receiver<T>>) {
        Builder::lanes(self, id, to_replicas, capacity)
    }

    fn order_arc(&self, id: usize) -> (Sender<u16>, Receiver<u16>) {
        Builder::order_arc(self, id)
    }

    fn elastic(&mut self, id: usize) -> Option<Elastic> {
        Builder::elastic(self, id)
    }

    fn install_piece<N: Node + 'a>(&mut self, ids: &[usize], node: N) {
        Builder::install_piece(self, ids, node)
    }

    fn link_times(&mut self) -> LinkTimes {
        let nodes = self.graph.nodes.len();
        self.link_times.get_or_insert_with(|| LinkTimes::new(nodes)).clone()
    }

    fn install_extra(&mut self, anchor: usize, role: Role, node: Box<dyn Node + 'a>) {
        Builder::install_extra(self, anchor, role, node)
    }
}
