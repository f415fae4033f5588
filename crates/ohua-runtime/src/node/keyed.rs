//! Replicas of a call on a keyed state (`crate::keyed`): each replica owns
//! the part of the state for its key groups.
//!
//! ```text
//!  state ─▶ ┌──────────────┐ ─ part k, markers ─▶ ┌───────────┐ ─ part k ─▶ ┌─────────────┐
//!  data  ─▶ │ KeyedScatter │ ─ items of k's keys ─▶│ replica k │             │ StickyJoin  │─▶ state
//!           └──────────────┘ ─ markers to all ───▶ └───────────┘ ─ results ─▶ Gather ─▶ outputs
//! ```
//!
//! * [`KeyedScatter`] splits each activation's state (`Keyed::split`) and
//!   sends part k to replica k, with the sticky stream's markers; it routes
//!   each item to the replica that owns its key group and sends every marker
//!   of the data stream to *all* replicas (each one releases its part at the
//!   end of the state's activation), recording each item's lane and every
//!   marker on the order arc.
//! * Each replica is the call itself with its part as its sticky state:
//!   calls for one key reach one replica, in order.
//! * The [`Gather`](super::replicate::Gather) follows the order arc (a
//!   marker there is taken from every lane, as every replica forwards it).
//! * A [`StickyJoin`](super::fan::StickyJoin) takes the parts the replicas
//!   release at the end of an activation, in replica order, and sends
//!   `Keyed::merge` of them where the state would have gone.

use crate::arc::Receiver;
use crate::arc::Sender;
use crate::graph::GraphInfo;
use crate::keyed::{Groups, KeyFn, Keyed};
use crate::packet::{Level, Mark, Packet};
use crate::port::In;

use super::elastic::Elastic;
use super::follow::LoadWindow;
use super::inputs::{DataInputs, Head};
use super::marks::{self, Attach, Marks};
use super::regroup::Regrouping;
use super::{Node, Step};

/// Splits a keyed state over the replicas and routes each item by key.
pub struct KeyedScatter<I: DataInputs, T, K> {
    inputs: I,
    state: In<T>,
    /// The owner of each key group, for routing items...
    groups: Groups,
    /// ...and for splitting states (they differ only between a rescaling
    /// marker in the data stream and the same marker in the state stream).
    state_groups: Groups,
    regrouping: Regrouping<T>,
    /// A state value has been split and sent (a rescaling inside its
    /// activation waits for it).
    state_sent: bool,
    /// Elastic replicas: when the lanes its probe or its scaling policy
    /// opened differ from the replicas that own groups, the scatter moves
    /// the groups with a local marker.
    elastic: Option<Elastic>,
    window: Option<LoadWindow>,
    /// Replicas that own groups now.
    owning: usize,
    /// Local markers inserted so far (their numbers).
    local_moves: u32,
    /// The data stream has ended the top-level activation: no more moves.
    run_ended: bool,
    lanes: Vec<Sender<I::Item>>,
    state_lanes: Vec<Sender<T>>,
    order: Sender<u16>,
    key: K,
    /// An item popped whose replica's lane was full, with its key group:
    /// it goes first at the next step (items leave in order), to the
    /// replica that owns its group then (a move may come first).
    pending: Option<(I::Item, usize)>,
    /// Items routed per key group, and where to report them when the
    /// operator is done (the next plan balances the groups by them).
    loads: Vec<u64>,
    report_to: Option<(&'static GraphInfo, usize)>,
    marks: Option<Marks>,
}

impl<I, T, K> KeyedScatter<I, T, K>
where
    I: DataInputs,
    I::Item: Send,
    T: Keyed,
    K: FnMut(&I::Item, KeyFn<T>) -> usize + Send,
{
    /// Route the items of `inputs` by `key` (the key group of an item) to
    /// `lanes`, and split each value of `state` over `state_lanes`.
    ///
    /// # Panics
    ///
    /// If the lanes are not one of each per replica, or there are more
    /// replicas than key groups.
    pub fn new(
        inputs: I,
        state: In<T>,
        lanes: Vec<Sender<I::Item>>,
        state_lanes: Vec<Sender<T>>,
        order: Sender<u16>,
        key: K,
    ) -> Self {
        assert_eq!(lanes.len(), state_lanes.len(), "ohua: one data and one state lane per replica");
        let groups = Groups::new(lanes.len());
        let loads = vec![0; crate::keyed::KEY_GROUPS];
        KeyedScatter {
            inputs,
            state,
            state_groups: groups.clone(),
            groups,
            regrouping: Regrouping::new(Vec::new(), 0),
            state_sent: false,
            elastic: None,
            window: None,
            owning: lanes.len(),
            local_moves: 0,
            run_ended: false,
            lanes,
            state_lanes,
            order,
            key,
            pending: None,
            loads,
            report_to: None,
            marks: None,
        }
    }

    /// Route by `groups` (one owner per key group, for as many replicas as
    /// there are lanes) and, when done, report the items each group had as
    /// node `id` of `graph` (`deploy/learned.rs`).
    pub(crate) fn balanced(mut self, groups: Option<Groups>, graph: &'static GraphInfo, id: usize) -> Self {
        if let Some(g) = groups.filter(|g| g.replicas() == self.lanes.len()) {
            self.owning = g.owners();
            self.state_groups = g.clone();
            self.groups = g;
        }
        self.report_to = Some((graph, id));
        self
    }

    /// Let the replicas hand their parts back at a rescaling marker
    /// (`node/regroup.rs`); `backs` come from the replicas, one each, for a
    /// state defined at level `home`.
    pub(crate) fn rescalable(mut self, backs: Vec<Receiver<T>>, home: Level) -> Self {
        assert_eq!(backs.len(), self.lanes.len(), "ohua: one way back per replica");
        self.regrouping = Regrouping::new(backs, home);
        self
    }

    /// Follow `elastic`'s open lanes by moving key groups, and the load if
    /// its lanes follow it.
    pub(crate) fn elastic(mut self, elastic: Option<Elastic>) -> Self {
        self.window = LoadWindow::for_elastic(elastic.as_ref());
        self.elastic = elastic;
        self
    }

    /// If the open lanes differ from the replicas that own groups, move
    /// the groups onto them where the stream is now: a local marker to
    /// every replica, which hands its part back at it (`node/regroup.rs`).
    /// One move at a time. An item held for a full lane is not on the
    /// order arc yet: it goes after the marker, to its group's new owner.
    fn follow_lanes(&mut self) -> bool {
        let Some(e) = &self.elastic else { return false };
        let want = e.active().clamp(1, self.lanes.len());
        if want == self.owning
            || self.regrouping.waiting()
            || !self.regrouping.may_move_locally(self.state_sent && !self.run_ended)
            || self.order.room() == 0
            || self.lanes.iter_mut().any(|l| l.room() == 0)
        {
            return false;
        }
        let m = Mark::local(self.local_moves);
        self.local_moves += 1;
        let groups = self.regrouping.groups_for(m, want, self.lanes.len(), &self.loads);
        self.lanes.iter_mut().for_each(|l| l.push(Packet::Mark(m)));
        self.order.push(Packet::Mark(m));
        self.regrouping.start(m);
        self.owning = groups.owners();
        self.state_groups = groups.clone();
        self.groups = groups;
        true
    }

    /// The replicas marker `m` rescales this call to, if it does and the
    /// parts can move.
    fn regroup(&self, m: Mark) -> Option<usize> {
        marks::regroup(&self.marks, m).filter(|_| self.regrouping.can_move())
    }

    /// Forward the state stream: split values, markers to every replica.
    fn states(&mut self) -> usize {
        let mut done = 0;
        if self.regrouping.waiting() {
            // The new parts go into the state lanes first.
            if !self.regrouping.collect(&self.groups, &mut self.state_lanes) {
                return 0;
            }
            done += 1;
        }
        while self.state_lanes.iter_mut().all(|l| l.room() > 0) {
            match self.state.pop() {
                Some(Packet::Data(s)) => {
                    let groups = &self.state_groups;
                    let parts = s.split(self.lanes.len(), &|k| groups.replica_of(k));
                    assert_eq!(parts.len(), self.lanes.len(), "ohua: `Keyed::split` must return `parts` states");
                    for (lane, part) in self.state_lanes.iter_mut().zip(parts) {
                        lane.push(Packet::Data(part));
                    }
                    self.state_sent = true;
                }
                Some(Packet::End(level)) => self.state_lanes.iter_mut().for_each(|l| l.push(Packet::End(level))),
                Some(Packet::Mark(m)) => {
                    if let Some(r) = self.regroup(m) {
                        self.state_groups = self.regrouping.groups_for(m, r, self.lanes.len(), &self.loads);
                    }
                    self.state_lanes.iter_mut().for_each(|l| l.push(Packet::Mark(m)));
                    marks::passed(&mut self.marks, m, 1, self.state_lanes.len());
                }
                None => break,
            }
            done += 1;
        }
        done
    }
}

impl<I, T, K> Node for KeyedScatter<I, T, K>
where
    I: DataInputs,
    I::Item: Send,
    T: Keyed,
    K: FnMut(&I::Item, KeyFn<T>) -> usize + Send,
{
    fn step(&mut self, budget: usize) -> Step {
        let mut done = self.states();
        let (mut items, mut routed) = (0, 0u64);
        // A move first: it needs room in every lane, which a held item
        // would take again and again under a backlog.
        done += usize::from(self.follow_lanes());
        let mut blocked = false;
        if let Some((item, group)) = self.pending.take() {
            let k = self.groups.replica(group);
            if self.lanes[k].room() == 0 {
                self.pending = Some((item, group));
                blocked = true;
            } else {
                self.lanes[k].push(Packet::Data(item));
                self.order.push(Packet::Data(k as u16));
                items += 1;
                routed += 1;
            }
        }
        while !blocked && items < budget {
            match self.inputs.head() {
                Head::Empty => break,
                Head::Closed => {
                    if done + items == 0 && self.state.is_closed() && !self.regrouping.waiting() {
                        return Step::Done;
                    }
                    break;
                }
                Head::End(level) => {
                    if self.order.room() == 0 || self.lanes.iter_mut().any(|l| l.room() == 0) {
                        break;
                    }
                    self.inputs.pop_end();
                    self.lanes.iter_mut().for_each(|l| l.push(Packet::End(level)));
                    self.order.push(Packet::End(level));
                    if level == 0 {
                        // The run's state is released (its value may come
                        // only now, after this end, on its own arc).
                        self.run_ended = true;
                    }
                }
                Head::Mark(m) => {
                    if self.regrouping.waiting() {
                        break; // one rescaling at a time
                    }
                    let lanes = self.lanes.len();
                    let to = self.regroup(m).map(|r| self.regrouping.groups_for(m, r, lanes, &self.loads));
                    if to.is_some() && !self.regrouping.may_pass(m, self.state_sent) {
                        break;
                    }
                    if !super::replicate::deal_mark(
                        &mut self.inputs,
                        &mut self.lanes,
                        &mut self.order,
                        &mut self.marks,
                        m,
                    ) {
                        break;
                    }
                    if let Some(groups) = to {
                        if self.regrouping.start(m) {
                            self.state_groups = groups.clone();
                        }
                        self.owning = groups.owners();
                        self.groups = groups;
                    }
                }
                Head::Data => {
                    if self.order.room() == 0 {
                        break;
                    }
                    // The key needs the item: pop it, and hold it if its
                    // replica's lane is full (the order arc has its room).
                    let item = self.inputs.pop_data();
                    let group = (self.key)(&item, KeyFn::new());
                    self.loads[group] += 1;
                    let k = self.groups.replica(group);
                    if self.lanes[k].room() == 0 {
                        self.pending = Some((item, group));
                        items += 1;
                        break;
                    }
                    self.lanes[k].push(Packet::Data(item));
                    self.order.push(Packet::Data(k as u16));
                    routed += 1;
                }
            }
            items += 1;
        }
        done += items;
        if let (Some(w), Some(e)) = (&mut self.window, &self.elastic) {
            w.follow(e, routed, self.pending.is_some());
        }
        Step::after(done)
    }

    fn flush(&mut self) {
        self.inputs.flush();
        self.state.flush();
        self.lanes.iter_mut().for_each(Sender::flush);
        self.state_lanes.iter_mut().for_each(Sender::flush);
        self.order.flush();
        self.regrouping.flush();
    }

    fn attach(&mut self, at: &Attach) {
        let mut marks = at.marks();
        if self.regrouping.can_move() {
            marks.set_regroups();
        }
        self.marks = Some(marks);
    }

    fn describe(&self) -> String {
        let rooms: Vec<String> = self.lanes.iter().map(|l| l.current_room().to_string()).collect();
        let waiting = if self.regrouping.waiting() { " (rescaling: waiting for the parts)" } else { "" };
        format!("keyed scatter in {:?} lane rooms [{}]{waiting}", self.inputs.describe(), rooms.join(", "))
    }
}

impl<I: DataInputs, T, K> Drop for KeyedScatter<I, T, K> {
    fn drop(&mut self) {
        if let Some((graph, id)) = self.report_to {
            if self.loads.iter().any(|&n| n > 0) {
                crate::deploy::learned::record_groups(graph, id, std::mem::take(&mut self.loads));
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::KeyedScatter;
    use crate::arc::channel;
    use crate::keyed::{KeyFn, KeyOf, Keyed};
    use crate::node::elastic::Elastic;
    use crate::node::Node;
    use crate::packet::Packet;
    use crate::port::In;

    /// Keys seen, as a keyed state.
    #[derive(Debug, Default)]
    struct Keys(Vec<u8>);

    impl Keyed for Keys {
        type Key = u8;
        fn split(self, parts: usize, part_of: &dyn Fn(&u8) -> usize) -> Vec<Self> {
            let mut out: Vec<Keys> = (0..parts).map(|_| Keys::default()).collect();
            self.0.into_iter().for_each(|k| out[part_of(&k)].0.push(k));
            out
        }
        fn merge(parts: Vec<Self>) -> Self {
            Keys(parts.into_iter().flat_map(|p| p.0).collect())
        }
    }

    impl KeyOf<Keys> for u8 {
        fn key(&self) -> u8 {
            *self
        }
    }

    /// Found by the generated corpus (`seed1_program404`): a keyed call in a
    /// branch that its run did not take got its state only after its data
    /// stream had ended the run, and the scatter then moved groups with a
    /// local marker behind that end; the replicas had released their parts
    /// there and waited for parts that never came.
    #[test]
    fn a_state_that_arrives_after_the_runs_end_moves_no_groups() {
        let (mut data, data_rx) = channel::<u8>(4, None, None);
        let (mut state, state_rx) = channel::<Keys>(2, None, None);
        let (order, _order_rx) = channel::<u16>(8, None, None);
        let (lanes, mut lane_rxs): (Vec<_>, Vec<_>) = (0..2).map(|_| channel::<(u8,)>(4, None, None)).unzip();
        let (parts, _part_rxs): (Vec<_>, Vec<_>) = (0..2).map(|_| channel::<Keys>(2, None, None)).unzip();
        let (_backs, back_rxs): (Vec<_>, Vec<_>) = (0..2).map(|_| channel::<Keys>(1, None, None)).unzip();
        // Two replicas own groups; the elastic lanes say one.
        let elastic = Elastic::new(2, crate::deploy::Opening::Measured);
        let route = |item: &(u8,), keys: KeyFn<Keys>| keys.of(&item.0);
        let mut scatter = KeyedScatter::new((In::new(data_rx),), In::new(state_rx), lanes, parts, order, route)
            .rescalable(back_rxs, 0)
            .elastic(Some(elastic));
        data.push(Packet::End(0));
        drop(data);
        scatter.step(8);
        state.push(Packet::Data(Keys(vec![1, 2])));
        drop(state);
        scatter.step(8);
        scatter.flush();
        for lane in &mut lane_rxs {
            assert_eq!(lane.pop(), Some(Packet::End(0)));
            assert_eq!(lane.pop(), None, "no marker after the run's end");
        }
    }
}

/// Key routing under loom: a keyed scatter, replica 0, the gather and the
/// merge of the state driven by one thread (as in the operator's section),
/// replica 1 on another. In every interleaving (up to three preemptions),
/// each replica sees exactly its keys' items in order, results leave in
/// input order, and the merged state holds every key's calls in order.
#[cfg(all(test, loom))]
mod loom_models {
    use super::KeyedScatter;
    use crate::arc::channel;
    use crate::keyed::{Groups, KeyFn, KeyOf, Keyed};
    use crate::node::call::Call;
    use crate::node::fan::StickyJoin;
    use crate::node::replicate::Gather;
    use crate::node::sticky::Sticky;
    use crate::node::{Node, Step};
    use crate::packet::Packet;
    use crate::port::{In, Out};
    use loom::thread;

    /// Per key, the values it was called with.
    #[derive(Debug, Default, PartialEq)]
    struct Calls(Vec<(u8, Vec<u32>)>);

    impl Keyed for Calls {
        type Key = u8;
        fn split(self, parts: usize, part_of: &dyn Fn(&u8) -> usize) -> Vec<Self> {
            let mut out: Vec<Calls> = (0..parts).map(|_| Calls::default()).collect();
            for (k, v) in self.0 {
                out[part_of(&k)].0.push((k, v));
            }
            out
        }
        fn merge(parts: Vec<Self>) -> Self {
            let mut all: Vec<(u8, Vec<u32>)> = parts.into_iter().flat_map(|p| p.0).collect();
            all.sort();
            Calls(all)
        }
    }

    /// `(key, value)`.
    #[derive(Debug, Clone, Copy)]
    struct Ev(u8, u32);

    impl KeyOf<Calls> for Ev {
        fn key(&self) -> u8 {
            self.0
        }
    }

    fn step<N: Node>(node: &mut Option<N>) -> Step {
        let Some(n) = node.as_mut() else { return Step::Done };
        let s = n.step(4);
        n.flush();
        if s == Step::Done {
            *node = None;
        }
        s
    }

    /// The call: append the value to its key's entry; return how many the
    /// key has seen.
    fn call((ev,): (Ev,), (mut calls,): (Calls,)) -> ((Calls,), usize) {
        let n = match calls.0.iter_mut().find(|(k, _)| *k == ev.0) {
            Some((_, vs)) => {
                vs.push(ev.1);
                vs.len()
            }
            None => {
                calls.0.push((ev.0, vec![ev.1]));
                1
            }
        };
        ((calls,), n)
    }

    #[test]
    fn loom_keyed_replicas_keep_each_keys_calls_in_order() {
        // Two keys that two replicas own apart.
        let groups = Groups::new(2);
        let a = (0u8..=255).find(|k| groups.replica_of(k) == 0).expect("a key of replica 0");
        let b = (0u8..=255).find(|k| groups.replica_of(k) == 1).expect("a key of replica 1");
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(3);
        model.check(move || {
            let (mut data, data_rx) = channel::<Ev>(4, None, None);
            let (mut state, state_rx) = channel::<Calls>(2, None, None);
            let (order, order_rx) = channel::<u16>(8, None, None);
            let (out, mut out_rx) = channel::<usize>(8, None, None);
            let (merged, mut merged_rx) = channel::<Calls>(2, None, None);
            let mut lanes = Vec::new();
            let mut parts = Vec::new();
            let mut results = Vec::new();
            let mut released = Vec::new();
            let mut replicas = Vec::new();
            for _ in 0..2 {
                let (lane, lane_rx) = channel::<(Ev,)>(1, None, None);
                let (part, part_rx) = channel::<Calls>(1, None, None);
                let (result, result_rx) = channel::<(usize,)>(1, None, None);
                let (release, release_rx) = channel::<Calls>(1, None, None);
                lanes.push(lane);
                parts.push(part);
                results.push(result_rx);
                released.push(release_rx);
                let sticky = Sticky::new(In::new(part_rx), 0, Out::new(vec![release]));
                replicas.push(Some(Call::new(
                    (In::new(lane_rx),),
                    (sticky,),
                    (Out::new(vec![result]),),
                    |(e,): ((Ev,),), s: (Calls,)| {
                        let (s, n) = call(e, s);
                        (s, ((n,),))
                    },
                )));
            }
            let mut other = replicas.pop().expect("two replicas");
            let mut own = replicas.pop().expect("two replicas");
            let worker = thread::spawn(move || {
                while step(&mut other) != Step::Done {
                    thread::yield_now();
                }
            });
            for p in [Packet::Data(Ev(a, 1)), Packet::Data(Ev(b, 2)), Packet::Data(Ev(a, 3)), Packet::End(0)] {
                data.push(p);
            }
            drop(data);
            state.push(Packet::Data(Calls(vec![(b, vec![0])])));
            drop(state);
            let route = |item: &(Ev,), keys: KeyFn<Calls>| keys.of(&item.0);
            let mut scatter =
                Some(KeyedScatter::new((In::new(data_rx),), In::new(state_rx), lanes, parts, order, route));
            let mut gather =
                Some(Gather::with_markers_in_lanes(order_rx, results, (Out::new(vec![out]),), |r: (usize,)| r));
            let mut merge = Some(StickyJoin::new(released, Out::new(vec![merged]), Calls::merge));
            loop {
                step(&mut scatter);
                step(&mut own);
                let g = step(&mut gather);
                let m = step(&mut merge);
                if g == Step::Done && m == Step::Done {
                    break;
                }
                if g != Step::Progress(0) {
                    thread::yield_now();
                }
            }
            worker.join().unwrap();
            let got: Vec<_> = std::iter::from_fn(|| out_rx.pop()).collect();
            // Key a: 1st and 2nd call; key b: its 2nd call (one before the loop).
            assert_eq!(got, vec![Packet::Data(1), Packet::Data(2), Packet::Data(2), Packet::End(0)]);
            let mut expected = vec![(a, vec![1, 3]), (b, vec![0, 2])];
            expected.sort();
            assert_eq!(merged_rx.pop(), Some(Packet::Data(Calls(expected))));
        });
    }

    static NODES: [crate::graph::NodeInfo; 1] = [crate::graph::NodeInfo {
        name: "m/record#1",
        kind: crate::graph::OpKind::Call,
        depth: 1,
        label: "calls.record(e)",
        replicable: true,
    }];
    static GRAPH: crate::graph::GraphInfo = crate::graph::GraphInfo { algorithm: "m", nodes: &NODES, arcs: &[] };

    /// A key group's move under loom (`update::Regroup`): keys a and b
    /// live on replicas 0 and 1; a rescaling marker onto one replica moves
    /// b's group, with b's state, to replica 0 while replica 1 runs on
    /// another thread. In every interleaving (up to three preemptions) b's
    /// call after the cut sees b's calls before it, results leave in input
    /// order, the merged state holds every key's calls in order, and the
    /// marker reports the scatter as the operator that moved groups.
    #[test]
    fn loom_a_key_group_moves_with_its_state_at_a_rescaling_marker() {
        use crate::node::marks::Attach;
        use crate::packet::Mark;
        use crate::update::{Action, Control, Regroup};
        let groups = Groups::new(2);
        let a = (0u8..=255).find(|k| groups.replica_of(k) == 0).expect("a key of replica 0");
        let b = (0u8..=255).find(|k| groups.replica_of(k) == 1).expect("a key of replica 1");
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(3);
        model.check(move || {
            let control = Control::new();
            let marker = control.request(Action::Regroup(Regroup::new(1)));
            let attach = Attach { control: control.clone(), graph: &GRAPH, node: 0 };
            let m = Mark { level: 0, id: marker.id() };
            let (mut data, data_rx) = channel::<Ev>(8, None, None);
            let (mut state, state_rx) = channel::<Calls>(2, None, None);
            let (order, order_rx) = channel::<u16>(8, None, None);
            let (out, mut out_rx) = channel::<usize>(8, None, None);
            let (merged, mut merged_rx) = channel::<Calls>(2, None, None);
            let (mut lanes, mut parts, mut results, mut released, mut backs, mut replicas) =
                (vec![], vec![], vec![], vec![], vec![], vec![]);
            for _ in 0..2 {
                let (lane, lane_rx) = channel::<(Ev,)>(2, None, None);
                let (part, part_rx) = channel::<Calls>(1, None, None);
                let (result, result_rx) = channel::<(usize,)>(2, None, None);
                let (release, release_rx) = channel::<Calls>(1, None, None);
                let (back, back_rx) = channel::<Calls>(1, None, None);
                lanes.push(lane);
                parts.push(part);
                results.push(result_rx);
                released.push(release_rx);
                backs.push(back_rx);
                let sticky = Sticky::new(In::new(part_rx), 0, Out::new(vec![release])).with_hand_back(back);
                let mut replica = Call::new(
                    (In::new(lane_rx),),
                    (sticky,),
                    (Out::new(vec![result]),),
                    |(e,): ((Ev,),), s: (Calls,)| {
                        let (s, n) = call(e, s);
                        (s, ((n,),))
                    },
                );
                replica.attach(&attach);
                replicas.push(Some(replica));
            }
            let mut other = replicas.pop().expect("two replicas");
            let mut own = replicas.pop().expect("two replicas");
            let worker = thread::spawn(move || {
                while step(&mut other) != Step::Done {
                    thread::yield_now();
                }
            });
            // The loop entry: a, b, the cut, a, b.
            for p in [Packet::Data(Ev(a, 1)), Packet::Data(Ev(b, 2)), Packet::Mark(m)] {
                data.push(p);
            }
            marker.inserted(9, 1, 1);
            for p in [Packet::Data(Ev(a, 3)), Packet::Data(Ev(b, 4)), Packet::End(0)] {
                data.push(p);
            }
            drop(data);
            state.push(Packet::Data(Calls(vec![(b, vec![0])])));
            drop(state);
            let route = |item: &(Ev,), keys: KeyFn<Calls>| keys.of(&item.0);
            let mut scatter = Some(
                KeyedScatter::new((In::new(data_rx),), In::new(state_rx), lanes, parts, order, route)
                    .rescalable(backs, 0),
            );
            scatter.as_mut().unwrap().attach(&attach);
            let mut gather =
                Some(Gather::with_markers_in_lanes(order_rx, results, (Out::new(vec![out]),), |r: (usize,)| r));
            gather.as_mut().unwrap().attach(&attach);
            let mut merge = Some(StickyJoin::new(released, Out::new(vec![merged]), Calls::merge));
            loop {
                step(&mut scatter);
                step(&mut own);
                let g = step(&mut gather);
                let j = step(&mut merge);
                if g == Step::Done && j == Step::Done {
                    break;
                }
                if g != Step::Progress(0) {
                    thread::yield_now();
                }
            }
            worker.join().unwrap();
            let got: Vec<_> = std::iter::from_fn(|| out_rx.pop()).collect();
            // b's call after the cut, on replica 0, is b's third.
            assert_eq!(
                got,
                vec![
                    Packet::Data(1),
                    Packet::Data(2),
                    Packet::Mark(m),
                    Packet::Data(2),
                    Packet::Data(3),
                    Packet::End(0)
                ]
            );
            let mut expected = vec![(a, vec![1, 3]), (b, vec![0, 2, 4])];
            expected.sort();
            assert_eq!(merged_rx.pop(), Some(Packet::Data(Calls(expected))));
            // The gather's consumer takes the marker from the last arc.
            marker.passed(7, 1, 0, crate::update::Outcome::Nothing);
            let report = marker.completed().expect("no arc holds the marker");
            assert_eq!(report.adopted, vec![0], "the scatter moved the groups");
        });
    }
}
