//! A keyed scatter's side of a live rescaling (`update::Regroup`): the
//! groups a rescaling marker moves to, and the parts the replicas hand
//! back at it, merged and split again by the new groups
//! (`node/README.md`, "Moving key groups").

use crate::arc::{Receiver, Sender};
use crate::keyed::{Groups, Keyed};
use crate::packet::{Level, Mark, Packet};

/// The rescalings of one keyed call's replicas.
pub(super) struct Regrouping<T> {
    /// From each replica: its part, handed back at a rescaling marker.
    backs: Vec<Receiver<T>>,
    /// The level the state is defined at (its sticky home).
    home: Level,
    /// While a rescaling waits for the parts: those handed back so far.
    returned: Option<Vec<Option<T>>>,
    /// The last rescaling's marker and groups: a marker between the
    /// state's activations shows in the state stream too, before or after
    /// the data stream, and both must switch to the same groups.
    last: Option<(Mark, Groups)>,
}

impl<T: Keyed> Regrouping<T> {
    /// Parts come back over `backs` (one per replica) for a state of level `home`.
    pub(super) fn new(backs: Vec<Receiver<T>>, home: Level) -> Self {
        Regrouping { backs, home, returned: None, last: None }
    }

    /// Whether parts can come back (a scatter built without ways back
    /// ignores rescalings: moving routes without the state would be wrong).
    pub(super) fn can_move(&self) -> bool {
        !self.backs.is_empty()
    }

    /// Whether a rescaling waits for parts: the scatter passes no other
    /// marker meanwhile (items go on: the replicas take them once their
    /// new parts have come).
    pub(super) fn waiting(&self) -> bool {
        self.returned.is_some()
    }

    /// The groups marker `m`, a rescaling to `replicas` of `lanes`
    /// replicas, moves to: balanced by `loads` (items per group so far),
    /// computed once per marker.
    pub(super) fn groups_for(&mut self, m: Mark, replicas: usize, lanes: usize, loads: &[u64]) -> Groups {
        match &self.last {
            Some((last, groups)) if *last == m => groups.clone(),
            _ => {
                let groups = Groups::spread(lanes, replicas.clamp(1, lanes), loads);
                tracing::info!(target: "ohua::scaling", marker = m.id, local = m.is_local(), replicas = replicas.clamp(1, lanes), lanes, "keyed call rescaled: key groups move at the cut");
                self.last = Some((m, groups.clone()));
                groups
            }
        }
    }

    /// The data stream passed rescaling marker `m` to every replica: if
    /// the marker is inside the state's activation, each replica hands
    /// its part back at it. True if so (the parts then come back, to be
    /// split by the new groups); false if the next activation's state is
    /// split by them anyway.
    /// Whether the scatter may pass rescaling marker `m` now: a marker
    /// inside the state's activation needs the activation's state split and
    /// sent first (`state_sent`), as the replicas hand their parts back at
    /// it (the state may come after the data stream's first marker).
    pub(super) fn may_pass(&self, m: Mark, state_sent: bool) -> bool {
        m.level < self.home || state_sent
    }

    /// Whether the scatter may move groups with a local marker now: the
    /// state lives for the whole run (defined at the top level, so no
    /// later state value can be queued ahead of the new parts) and has
    /// been sent, and parts can come back.
    pub(super) fn may_move_locally(&self, state_sent: bool) -> bool {
        self.home == 0 && state_sent && self.can_move()
    }

    pub(super) fn start(&mut self, m: Mark) -> bool {
        if m.level < self.home {
            return false;
        }
        self.returned = Some((0..self.backs.len()).map(|_| None).collect());
        true
    }

    /// Take the parts handed back; once every replica's is in and every
    /// state lane has room, send each replica its part of the merged state
    /// split by `groups`. True if the rescaling is complete.
    ///
    /// # Panics
    ///
    /// If `Keyed::split` does not return one part per lane.
    pub(super) fn collect(&mut self, groups: &Groups, state_lanes: &mut [Sender<T>]) -> bool {
        let Some(returned) = &mut self.returned else { return false };
        for (slot, back) in returned.iter_mut().zip(&mut self.backs) {
            if slot.is_none() {
                match back.pop() {
                    Some(Packet::Data(part)) => *slot = Some(part),
                    Some(_) => panic!("ohua internal error: a replica handed back a marker instead of its part"),
                    None => {}
                }
            }
        }
        if returned.iter().any(Option::is_none) || state_lanes.iter_mut().any(|l| l.room() == 0) {
            return false;
        }
        let parts: Vec<T> = self.returned.take().into_iter().flatten().flatten().collect();
        let parts = T::merge(parts).split(state_lanes.len(), &|k| groups.replica_of(k));
        assert_eq!(parts.len(), state_lanes.len(), "ohua: `Keyed::split` must return `parts` states");
        for (lane, part) in state_lanes.iter_mut().zip(parts) {
            lane.push(Packet::Data(part));
        }
        true
    }

    /// Wake the replicas waiting to hand back.
    pub(super) fn flush(&mut self) {
        self.backs.iter_mut().for_each(Receiver::flush);
    }
}
