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
use super::rebalance::Rebalance;
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
    /// When to look at the groups again (`node/rebalance.rs`).
    rebalance: Rebalance,
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
            rebalance: Rebalance::new(),
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
        if let Some(crate::deploy::Opening::AfterItems(at) | crate::deploy::Opening::Toggle(at)) =
            elastic.as_ref().map(Elastic::opening)
        {
            self.rebalance = Rebalance::chaos(at);
        }
        self.window = LoadWindow::for_elastic(elastic.as_ref());
        self.elastic = elastic;
        self
    }

    /// If the open lanes differ from the replicas that own groups, or the
    /// items so far show the groups spread unevenly (`node/rebalance.rs`),
    /// move the groups onto the open lanes where the stream is now: a
    /// local marker to every replica, which hands its part back at it
    /// (`node/regroup.rs`). One move at a time. An item held for a full
    /// lane is not on the order arc yet: it goes after the marker, to its
    /// group's new owner.
    fn follow_lanes(&mut self) -> bool {
        let want = self.elastic.as_ref().map_or(self.lanes.len(), Elastic::active).clamp(1, self.lanes.len());
        let resize = want != self.owning;
        if (!resize && !self.rebalance.due())
            || self.regrouping.waiting()
            || !self.regrouping.may_move_locally(self.state_sent && !self.run_ended)
            || self.order.room() == 0
            || self.lanes.iter_mut().any(|l| l.room() == 0)
        {
            return false;
        }
        // Spread by the items since the last look when the keys moved it,
        // by all so far when the lanes did.
        let recent = match resize {
            true => None,
            false => match self.rebalance.pays(&self.groups, want, &self.loads) {
                None => return false,
                recent => recent,
            },
        };
        self.rebalance.moved(&self.loads);
        if let Some(e) = &self.elastic {
            e.regrouped();
        }
        let m = Mark::local(self.local_moves);
        self.local_moves += 1;
        let by = recent.as_deref().unwrap_or(&self.loads);
        let groups = self.regrouping.groups_for(m, want, self.lanes.len(), by);
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
        self.rebalance.routed(routed);
        if let (Some(w), Some(e)) = (&mut self.window, &self.elastic) {
            w.follow(e, routed, 0, self.pending.is_some());
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
#[path = "keyed_tests.rs"]
mod tests;

#[cfg(all(test, loom))]
#[path = "keyed_loom.rs"]
mod loom_models;
