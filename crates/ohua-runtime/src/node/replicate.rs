//! Replicas of a stateless operator: deal its firings out, merge them back
//! in order.
//!
//! A replicated operator (a call without state in a loop, or a fused piece
//! of such calls) runs as three kinds of operator:
//!
//! ```text
//!            ┌─ lane 0 ─▶ replica 0 ─ lane 0 ─┐
//! inputs ─▶ Scatter ─ lane 1 ─▶ replica 1 ─ lane 1 ─▶ Gather ─▶ outputs
//!      │     └─ lane 2 ─▶ replica 2 ─ lane 2 ─┘    ▲
//!      └──────────── order (lane of each item, markers) ┘
//! ```
//!
//! * [`Scatter`] pops each activation's values and deals them to the lane
//!   whose replica has the fewest items waiting (ties in rotation), so a
//!   replica that shares its thread with other work, or got a slow item,
//!   gets fewer. Lane 0's replica runs on the scatter's own thread, and
//!   while it runs an item nothing is dealt: it counts [`LOCAL_HANDICAP`]
//!   items more than it holds, so the other lanes keep a short queue and
//!   do not run dry while it works (issue 24: reads of 20-100 µs on a
//!   snapshot went from 1.50x to 1.91x sequential on 2 cores, the signed
//!   multicast from 1.46x to 1.88x). An item of a measured elastic operator that arrives alone
//!   (light load) and costs under a millisecond goes to lane 0 on a tie:
//!   its replica runs in the scatter's section, so the item crosses no
//!   thread (`local_first.rs`).
//!   It records the lane of every item, and every
//!   end-of-activation marker, on the *order* arc, in input order.
//! * Each replica is the operator itself (a `Call` or a chain piece) on its
//!   lanes; it sees data only, never markers.
//! * [`Gather`] follows the order arc: for an item, it takes the next
//!   result from that item's lane (a lane is FIFO, so that is the item's
//!   result); for a marker, it sends the marker. Its outputs therefore
//!   carry exactly the stream the operator would have produced alone:
//!   every downstream operator, state objects included, sees its calls in
//!   sequential order.
//!
//! Scatter and Gather share the operator's section, so the order arc is a
//! local ring. Nothing waits for a batch: each step deals what has arrived
//! and merges what is ready, so a trickling source's items pass one by one.
//!
//! Memory is bounded: a lane holds at most [`LANE_DEPTH`] waiting items and
//! [`REORDER_DEPTH`] finished ones, and the order arc bounds the items and
//! markers in flight. The merge cannot deadlock: the oldest item in flight
//! is the oldest in its lane, so its replica can always run it, and its
//! result is at the front of its lane's output.

use crate::arc::{Receiver, Sender};
use crate::deploy::LONG_FIRING_NS;
use crate::packet::{Mark, Packet};
use crate::port::In;

use super::elastic::Elastic;
use super::follow::LoadWindow;
use super::inputs::{DataInputs, Head};
use super::local_first::Spacing;
use super::marks::{self, Attach, Marks};
use super::outputs::OutputSet;
use super::{Node, Step};

/// Items dealt to a replica that it has not started: small, so that items
/// go to the replicas that keep up and the merge waits little.
pub const LANE_DEPTH: usize = 32;

/// Results a replica may finish ahead of the merge (a fast replica runs on
/// while the merge waits for an older item of a slower one).
pub const REORDER_DEPTH: usize = 256;

/// The shape of a replicated operator's lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LaneShape {
    /// The replicas hold sticky values (`fan.rs`): every replica must see
    /// every marker.
    pub markers_to_all: bool,
    /// The lane served far away (another process, `node/remote_lane.rs`):
    /// see [`Scatter::far`]. (Its replicas keep [`REORDER_DEPTH`]: with
    /// 2,048 the local replica ran so far ahead that the far lane's
    /// section waited, and the other process served 6 % of the items
    /// instead of half.)
    pub far: Option<usize>,
}

/// Capacity of the order arc for `replicas` lanes: every item that can be
/// in flight, and room for markers.
pub(crate) fn order_capacity(replicas: usize, batch: usize) -> usize {
    replicas * (LANE_DEPTH + REORDER_DEPTH) + batch
}

/// Deals a replicated operator's firings to its replicas' lanes.
///
/// # Example
///
/// One item per lane (the emptiest first), then the marker on the order arc
/// only: see the unit test `a_scatter_deals_one_item_per_lane`.
pub struct Scatter<I, T, C> {
    inputs: I,
    lanes: Vec<Sender<T>>,
    order: Sender<u16>,
    into: C,
    /// Where the search for the emptiest lane starts (rotates on ties).
    next: usize,
    /// The replicas hold sticky values (`fan.rs`): every replica must see
    /// every marker, to release them at the end of their activation.
    markers_to_all: bool,
    marks: Option<Marks>,
    /// Elastic replicas (a first run): deal only to the lanes it has opened.
    elastic: Option<Elastic>,
    /// Elastic replicas that follow the load: what the current window saw,
    /// and whether the thread has room for items that arrive alone.
    window: Option<LoadWindow>,
    /// When the last item was dealt, to tell one that arrives alone.
    spacing: Spacing,
    /// The lane served far away, if any ([`Scatter::far`]).
    far: Option<usize>,
}

impl<I, T, C> Scatter<I, T, C>
where
    I: DataInputs,
    T: Send,
    C: FnMut(I::Item) -> T + Send,
{
    /// Deal the values of `inputs`, converted by `into`, to `lanes`, and
    /// record each item's lane and every marker on `order`.
    ///
    /// # Panics
    ///
    /// If there are no lanes or more than `u16::MAX`.
    pub fn new(inputs: I, lanes: Vec<Sender<T>>, order: Sender<u16>, into: C) -> Self {
        assert!(!lanes.is_empty() && lanes.len() <= usize::from(u16::MAX), "ohua: a scatter needs 1..=65535 lanes");
        Scatter {
            inputs,
            lanes,
            order,
            into,
            next: 0,
            markers_to_all: false,
            marks: None,
            elastic: None,
            window: None,
            spacing: Spacing::default(),
            far: None,
        }
    }

    /// Lane `far` is served far away: where it ties with lane 0 (lane 0's
    /// replica, in the scatter's section, has finished what it was dealt),
    /// the item goes to lane 0. A round trip to another process costs far
    /// more than a thread's hand-off: a desk answering one request at a
    /// time replied at a p50 of 0.6-0.8 ms through the other process and
    /// of 50-92 µs with this rule (20-37 µs in one process). Items dealt
    /// together still spread: the bulk run of `ohua-cluster`'s
    /// `tests/algorithms.rs` kept its 1.28-1.36x.
    pub(crate) fn far(mut self, far: Option<usize>) -> Self {
        self.far = far;
        self
    }

    /// Send every marker to every lane too (for replicas that hold sticky
    /// values); the merge then takes it from every lane
    /// ([`Gather::with_markers_in_lanes`]).
    pub(crate) fn markers_to_all(mut self, yes: bool) -> Self {
        self.markers_to_all = yes;
        self
    }

    /// Deal only to the lanes `elastic` has opened (`node/elastic.rs`).
    pub(crate) fn elastic(mut self, elastic: Option<Elastic>) -> Self {
        self.window = LoadWindow::for_elastic(elastic.as_ref());
        self.elastic = elastic;
        self
    }

    /// The lane with the most room, searching from `next`; `None` if all
    /// are full. Lane 0 on a tie for an item that arrives alone
    /// (`local_first.rs`).
    fn pick(&mut self) -> Option<usize> {
        let mut n = self.elastic.as_ref().map_or(self.lanes.len(), |e| e.active().min(self.lanes.len()));
        // An operator whose items are long (`deploy/long_firings.rs`) and
        // needs one replica gets it on another thread, lane 1: on lane 0
        // each item would hold the scatter's section, and every operator
        // there, for its whole length. Lane 0 then takes an item only
        // when lane 1 is full.
        let mut handicap = LOCAL_HANDICAP;
        if n == 1 && self.lanes.len() > 1 && self.elastic.as_ref().is_some_and(|e| e.ns_per_item() >= LONG_FIRING_NS) {
            n = 2;
            handicap = LANE_DEPTH as isize + 1;
        }

        if self.next >= n {
            self.next = 0;
        }
        // (lane, its room, the room it counts as)
        let mut best: Option<(usize, usize, isize)> = None;
        for k in (self.next..n).chain(0..self.next) {
            // Fresh: the replica publishes what it took after every step.
            let room = self.lanes[k].current_room();
            // Lane 0's replica runs on the scatter's own thread: while it
            // runs an item nothing is dealt, so it counts LOCAL_HANDICAP
            // items fuller than it is and the other lanes keep a queue.
            let counted = room as isize - if k == 0 && n > 1 { handicap } else { 0 };
            let better = match best {
                Some((_, _, c)) => counted > c,
                None => true,
            };
            if room > 0 && better {
                best = Some((k, room, counted));
            }
        }
        let (k, room, _) = best?;
        // A tie between lane 0 and the lane picked: read the clock only then.
        if k != 0 && self.lanes[0].current_room() >= room {
            if Some(k) == self.far {
                return Some(0);
            }
            if let Some(e) = &self.elastic {
                let room = self.window.as_ref().is_none_or(LoadWindow::local_has_room);
                if room && self.spacing.alone(e.ns_per_item()) {
                    return Some(0);
                }
            }
        }
        self.next = (k + 1) % n;
        Some(k)
    }
}

/// How many items fuller than it is lane 0 counts when the scatter picks a
/// lane (`Scatter::pick`): the replica on the scatter's thread takes an
/// item only when every other lane has two queued (or is as full), so
/// each of them has its next item at hand while that thread works. Two,
/// not one: a lane's room is published after its replica's step, so one
/// queued item may already be running.
pub(crate) const LOCAL_HANDICAP: isize = 2;

impl<I, T, C> Node for Scatter<I, T, C>
where
    I: DataInputs,
    T: Send,
    C: FnMut(I::Item) -> T + Send,
{
    fn step(&mut self, budget: usize) -> Step {
        let mut done = 0;
        let (mut dealt, mut away, mut backlog) = (0, 0, false);
        while done < budget {
            match self.inputs.head() {
                Head::Empty => break,
                Head::Closed => {
                    if done == 0 {
                        return Step::Done;
                    }
                    break;
                }
                Head::End(level) => {
                    if self.order.room() == 0 || (self.markers_to_all && self.lanes.iter_mut().any(|l| l.room() == 0)) {
                        break;
                    }
                    self.inputs.pop_end();
                    if self.markers_to_all {
                        self.lanes.iter_mut().for_each(|l| l.push(Packet::End(level)));
                    }
                    self.order.push(Packet::End(level));
                }
                Head::Mark(m) => {
                    if !deal_mark(&mut self.inputs, &mut self.lanes, &mut self.order, &mut self.marks, m) {
                        break;
                    }
                }
                Head::Data => {
                    if self.order.room() == 0 {
                        break;
                    }
                    let Some(k) = self.pick() else {
                        backlog = true;
                        break;
                    };
                    let item = (self.into)(self.inputs.pop_data());
                    self.lanes[k].push(Packet::Data(item));
                    self.order.push(Packet::Data(k as u16));
                    dealt += 1;
                    away += u64::from(k != 0);
                }
            }
            done += 1;
        }
        if let (Some(w), Some(e)) = (&mut self.window, &self.elastic) {
            w.follow(e, dealt, away, backlog);
        }
        Step::after(done)
    }

    fn flush(&mut self) {
        self.inputs.flush();
        for lane in &mut self.lanes {
            lane.flush();
        }
        self.order.flush();
    }

    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
    }

    fn describe(&self) -> String {
        let rooms: Vec<String> = self.lanes.iter().map(|l| l.current_room().to_string()).collect();
        format!("scatter in {:?} lane rooms [{}]", self.inputs.describe(), rooms.join(", "))
    }
}

/// Deal control marker `m` (at the head of `inputs`) to every replica's
/// lane, since each replica may adopt an update, and record it on the order
/// arc; the merge takes it from every lane. False if an arc is full.
pub(super) fn deal_mark<I: DataInputs, T>(
    inputs: &mut I,
    lanes: &mut [Sender<T>],
    order: &mut Sender<u16>,
    marks: &mut Option<Marks>,
    m: Mark,
) -> bool {
    if order.room() == 0 || lanes.iter_mut().any(|l| l.room() == 0) {
        return false;
    }
    inputs.pop_end();
    lanes.iter_mut().for_each(|l| l.push(Packet::Mark(m)));
    order.push(Packet::Mark(m));
    marks::passed(marks, m, inputs.count(), lanes.len() + 1);
    true
}

/// Merges a replicated operator's results back into input order.
///
/// # Example
///
/// Items that finished out of order leave in input order, each once every
/// earlier one is ready: see the unit test `a_gather_sends_in_input_order`.
pub struct Gather<O, T, C> {
    order: In<u16>,
    lanes: Vec<Receiver<T>>,
    outputs: O,
    from: C,
    /// Every replica forwards every marker (keyed replicas see them all):
    /// a marker is taken from every lane before it is sent once.
    markers_in_lanes: bool,
    marks: Option<Marks>,
}

impl<O, T, C> Gather<O, T, C>
where
    O: OutputSet,
    T: Send,
    C: FnMut(T) -> O::Item + Send,
{
    /// Send the results arriving on `lanes`, converted by `from`, on
    /// `outputs` in the order `order` records.
    pub fn new(order: Receiver<u16>, lanes: Vec<Receiver<T>>, outputs: O, from: C) -> Self {
        Gather { order: In::new(order), lanes, outputs, from, markers_in_lanes: false, marks: None }
    }

    /// As [`Gather::new`], for replicas that each forward every marker
    /// (`node/keyed.rs`).
    pub(crate) fn with_markers_in_lanes(order: Receiver<u16>, lanes: Vec<Receiver<T>>, outputs: O, from: C) -> Self {
        Gather { order: In::new(order), lanes, outputs, from, markers_in_lanes: true, marks: None }
    }

    /// Whether the next item in order has its result (so only room on the
    /// outputs keeps it here).
    fn next_ready(&mut self) -> bool {
        match self.order.peek() {
            Some(&Packet::Data(k)) => self.lanes[usize::from(k)].peek().is_some(),
            Some(_) => true,
            None => false,
        }
    }
}

impl<O, T, C> Node for Gather<O, T, C>
where
    O: OutputSet,
    T: Send,
    C: FnMut(T) -> O::Item + Send,
{
    fn step(&mut self, budget: usize) -> Step {
        let mut room = self.outputs.room();
        let mut done = 0;
        while done < budget && room > 0 {
            match self.order.peek() {
                None => {
                    if done == 0 && self.order.is_closed() {
                        return Step::Done;
                    }
                    break;
                }
                Some(&Packet::End(level)) => {
                    if self.markers_in_lanes {
                        let all_there =
                            self.lanes.iter().all(|l| matches!(l.peek(), Some(Packet::End(x)) if *x == level));
                        if !all_there {
                            break;
                        }
                        self.lanes.iter_mut().for_each(|l| drop(l.pop()));
                    }
                    self.order.pop();
                    self.outputs.send_end(level);
                }
                Some(&Packet::Mark(m)) => {
                    let all_there = self.lanes.iter().all(|l| matches!(l.peek(), Some(Packet::Mark(x)) if *x == m));
                    if !all_there {
                        break;
                    }
                    self.lanes.iter_mut().for_each(|l| drop(l.pop()));
                    self.order.pop();
                    // A keyed scatter's local marker ends here.
                    if !m.is_local() {
                        let forwarded = self.outputs.send_mark(m);
                        marks::passed(&mut self.marks, m, 1 + self.lanes.len(), forwarded);
                    }
                }
                Some(&Packet::Data(k)) => {
                    // A lane is FIFO: its next result is this item's. An
                    // empty lane means the replica has not finished it.
                    let Some(Packet::Data(result)) = self.lanes[usize::from(k)].pop() else { break };
                    self.order.pop();
                    let item = (self.from)(result);
                    self.outputs.send(item);
                }
            }
            room -= 1;
            done += 1;
        }
        if room == 0 && done < budget && self.next_ready() && self.outputs.full_into_another_section() {
            super::blocking::held_for_room();
        }
        Step::after(done)
    }

    fn flush(&mut self) {
        self.order.flush();
        for lane in &mut self.lanes {
            lane.flush();
        }
        self.outputs.flush();
    }

    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
    }

    fn describe(&self) -> String {
        let lanes: Vec<usize> = self.lanes.iter().map(Receiver::len).collect();
        format!("gather order [{}] lane results {lanes:?} out {:?}", self.order.describe(), self.outputs.describe())
    }
}

/// The ordered merge under loom: in every interleaving (up to three
/// preemptions) of a scatter, replica 0 and a merge driven by one thread, as
/// in the node's own section, and replica 1 on another thread, the items
/// leave in input order with the marker in place, and everything finishes.
/// `RUSTFLAGS="--cfg loom" cargo test -p ohua-runtime --release --lib loom`.
#[cfg(all(test, loom))]
mod loom_models {
    use super::{Gather, Scatter};
    use crate::arc::channel;
    use crate::node::call::Call;
    use crate::node::{Node, Step};
    use crate::packet::Packet;
    use crate::port::{In, Out};
    use loom::thread;

    /// Step `node`; `None` once it is done (then it is dropped, closing its
    /// outputs, as a section drops a finished operator).
    fn step<N: Node>(node: &mut Option<N>) -> Step {
        let Some(n) = node.as_mut() else { return Step::Done };
        let s = n.step(4);
        n.flush();
        if s == Step::Done {
            *node = None;
        }
        s
    }

    /// A replica that multiplies by ten, on lanes of one slot each (the
    /// scatter often finds a lane full).
    fn replica(lane_in: crate::arc::Receiver<(u32,)>, lane_out: crate::arc::Sender<(u32,)>) -> impl Node {
        Call::new((In::new(lane_in),), (), (Out::new(vec![lane_out]),), |(x,): ((u32,),), ()| ((), ((x.0 * 10,),)))
    }

    #[test]
    fn loom_replicated_results_leave_in_input_order() {
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(3);
        model.check(|| {
            let (mut input, input_rx) = channel::<u32>(4, None, None);
            let (order, order_rx) = channel::<u16>(4, None, None);
            let (out, mut out_rx) = channel::<u32>(4, None, None);
            let (in0, in0_rx) = channel::<(u32,)>(1, None, None);
            let (out0, out0_rx) = channel::<(u32,)>(1, None, None);
            let (in1, in1_rx) = channel::<(u32,)>(1, None, None);
            let (out1, out1_rx) = channel::<(u32,)>(1, None, None);
            let mut other = Some(replica(in1_rx, out1));
            let worker = thread::spawn(move || {
                while step(&mut other) != Step::Done {
                    thread::yield_now();
                }
            });
            for p in [Packet::Data(1), Packet::End(0), Packet::Data(2)] {
                input.push(p);
            }
            drop(input); // publishes and closes
            let mut scatter = Some(Scatter::new((In::new(input_rx),), vec![in0, in1], order, |t: (u32,)| t));
            let mut own = Some(replica(in0_rx, out0));
            let mut gather = Some(Gather::new(order_rx, vec![out0_rx, out1_rx], (Out::new(vec![out]),), |t: (u32,)| t));
            loop {
                step(&mut scatter);
                step(&mut own);
                match step(&mut gather) {
                    Step::Done => break,
                    Step::Blocked => thread::yield_now(),
                    Step::Progress(_) => {}
                }
            }
            worker.join().unwrap();
            let got: Vec<_> = std::iter::from_fn(|| out_rx.pop()).collect();
            assert_eq!(got, vec![Packet::Data(10), Packet::End(0), Packet::Data(20)]);
        });
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    /// `Scatter`'s example.
    #[test]
    fn a_scatter_deals_one_item_per_lane() {
        use crate::node::replicate::Scatter;
        use crate::{
            arc::channel,
            node::{Node, Step},
            packet::Packet,
            port::In,
        };
        let (mut tx, rx) = channel::<u32>(8, None, None);
        let (l0, mut r0) = channel::<(u32,)>(4, None, None);
        let (l1, mut r1) = channel::<(u32,)>(4, None, None);
        let (order, mut order_rx) = channel::<u16>(16, None, None);
        let mut scatter = Scatter::new((In::new(rx),), vec![l0, l1], order, |t| t);
        for p in [Packet::Data(1), Packet::Data(2), Packet::Data(3), Packet::Data(4), Packet::End(0)] {
            tx.push(p);
        }
        tx.flush();
        assert_eq!(scatter.step(8), Step::Progress(5));
        scatter.flush();
        // Each item to the emptiest lane, lane 0 (the scatter's own thread)
        // counted two items fuller: lane 1 first gets a queue of two.
        let drain = |r: &mut crate::arc::Receiver<(u32,)>| -> Vec<u32> {
            std::iter::from_fn(|| r.pop())
                .filter_map(|p| if let Packet::Data((x,)) = p { Some(x) } else { None })
                .collect()
        };
        assert_eq!((drain(&mut r0), drain(&mut r1)), (vec![3], vec![1, 2, 4]));
        // Then the marker, on the order arc only.
        let order: Vec<_> = std::iter::from_fn(|| order_rx.pop()).collect();
        assert_eq!(order, vec![Packet::Data(1), Packet::Data(1), Packet::Data(0), Packet::Data(1), Packet::End(0)]);
    }

    /// A lane served by another process (`node/remote_lane.rs`): an item
    /// that finds lane 0 as empty as the far lane stays in lane 0 (no round
    /// trip to another process for it); items dealt together still spread.
    #[test]
    fn a_lone_item_stays_off_the_far_lane() {
        use crate::node::replicate::Scatter;
        use crate::{arc::channel, node::Node, packet::Packet, port::In};
        let drain = |r: &mut crate::arc::Receiver<(u32,)>| -> Vec<u32> {
            std::iter::from_fn(|| r.pop())
                .filter_map(|p| if let Packet::Data((x,)) = p { Some(x) } else { None })
                .collect()
        };
        for far in [None, Some(1)] {
            let (mut tx, rx) = channel::<u32>(8, None, None);
            let (l0, mut r0) = channel::<(u32,)>(4, None, None);
            let (l1, mut r1) = channel::<(u32,)>(4, None, None);
            let (order, _order_rx) = channel::<u16>(16, None, None);
            let mut scatter = Scatter::new((In::new(rx),), vec![l0, l1], order, |t| t).far(far);
            // One item alone, taken by its replica before the next comes.
            tx.push(Packet::Data(1));
            tx.flush();
            scatter.step(8);
            scatter.flush();
            let lone = (drain(&mut r0), drain(&mut r1));
            r0.flush();
            r1.flush();
            // Three items at once.
            for x in 2..=4 {
                tx.push(Packet::Data(x));
            }
            tx.flush();
            scatter.step(8);
            scatter.flush();
            let together = (drain(&mut r0), drain(&mut r1));
            match far {
                None => assert_eq!(lone, (vec![], vec![1]), "a thread's lane takes a lone item"),
                Some(_) => {
                    assert_eq!(lone, (vec![1], vec![]), "a lone item stays off the far lane");
                    assert!(!together.1.is_empty(), "items dealt together still reach the far lane: {together:?}");
                }
            }
        }
    }

    /// Elastic replicas (a first run): lane 0 only until the probe opens
    /// the others; the order arc records every item's lane either way.
    #[test]
    fn an_elastic_scatter_deals_to_lane_zero_until_its_lanes_open() {
        use crate::node::elastic::Elastic;
        use crate::node::replicate::Scatter;
        use crate::{
            arc::channel,
            node::{Node, Step},
            packet::Packet,
            port::In,
        };
        let (mut tx, rx) = channel::<u32>(8, None, None);
        let (l0, mut r0) = channel::<(u32,)>(4, None, None);
        let (l1, mut r1) = channel::<(u32,)>(4, None, None);
        let (order, mut order_rx) = channel::<u16>(16, None, None);
        let elastic = Elastic::new(2, crate::deploy::Opening::Measured);
        let mut scatter = Scatter::new((In::new(rx),), vec![l0, l1], order, |t| t).elastic(Some(elastic.clone()));
        for p in [Packet::Data(1), Packet::Data(2), Packet::Data(3), Packet::Data(4)] {
            tx.push(p);
        }
        tx.flush();
        assert_eq!(scatter.step(2), Step::Progress(2));
        scatter.flush();
        elastic.open();
        assert_eq!(scatter.step(2), Step::Progress(2));
        scatter.flush();
        let lane = |r: &mut crate::arc::Receiver<(u32,)>| std::iter::from_fn(|| r.pop()).collect::<Vec<_>>();
        // Once open, the lane with the most room first: lane 1, twice.
        assert_eq!(lane(&mut r0), vec![Packet::Data((1,)), Packet::Data((2,))]);
        assert_eq!(lane(&mut r1), vec![Packet::Data((3,)), Packet::Data((4,))]);
        let order: Vec<_> = std::iter::from_fn(|| order_rx.pop()).collect();
        assert_eq!(order, vec![Packet::Data(0), Packet::Data(0), Packet::Data(1), Packet::Data(1)]);
    }

    /// Following the load: a window with a backlog opens a lane, a window
    /// of few arrivals closes it again; the order arc records every
    /// item's lane throughout.
    #[test]
    fn a_scatter_that_follows_the_load_opens_under_a_backlog_and_closes_when_it_is_gone() {
        use crate::deploy::Opening;
        use crate::node::elastic::{Elastic, WINDOW};
        use crate::node::replicate::Scatter;
        use crate::{
            arc::channel,
            node::{Node, Step},
            packet::Packet,
            port::In,
        };
        let (mut tx, rx) = channel::<u32>(64, None, None);
        let (l0, mut r0) = channel::<(u32,)>(2, None, None);
        let (l1, mut r1) = channel::<(u32,)>(2, None, None);
        let (order, mut order_rx) = channel::<u16>(64, None, None);
        let elastic = Elastic::new(2, Opening::Load);
        // 10 ms per item: 2 items in a window of 25-40 ms keep one lane at
        // least half busy, so its backlog is its own (`follow.rs`).
        elastic.set_ns_per_item(10_000_000);
        let mut scatter = Scatter::new((In::new(rx),), vec![l0, l1], order, |t| t).elastic(Some(elastic.clone()));
        for i in 0..8 {
            tx.push(Packet::Data(i));
        }
        tx.flush();
        // The one lane of an operator this long is lane 1, on another
        // thread (`deploy/long_firings.rs`); lane 0 takes items only once
        // lane 1 is full. Both fill: a backlog; after a window, a second
        // lane opens.
        assert_eq!(scatter.step(8), Step::Progress(4));
        scatter.flush();
        std::thread::sleep(WINDOW + std::time::Duration::from_millis(5));
        assert_eq!(scatter.step(8), Step::Blocked);
        assert_eq!(elastic.active(), 2, "a backlog opens a lane");
        // Replica work drains the lanes; light windows (3 items in 65 ms,
        // then 1: under half a replica of 10 ms, and below the 80 per
        // second one lane was backlogged at: `REOPENED_MARGIN`) close lane
        // 1 again.
        let mut lanes = (Vec::new(), Vec::new());
        let mut drain = |r0: &mut crate::arc::Receiver<(u32,)>, r1: &mut crate::arc::Receiver<(u32,)>| {
            lanes.0.extend(std::iter::from_fn(|| r0.pop()));
            lanes.1.extend(std::iter::from_fn(|| r1.pop()));
            r0.flush();
            r1.flush();
        };
        drain(&mut r0, &mut r1);
        assert_eq!(scatter.step(2), Step::Progress(2));
        scatter.flush();
        drain(&mut r0, &mut r1);
        std::thread::sleep(3 * WINDOW + std::time::Duration::from_millis(5));
        assert_eq!(scatter.step(1), Step::Progress(1));
        scatter.flush();
        assert_eq!(elastic.active(), 2, "one light window does not close a lane (CLOSE_AFTER)");
        drain(&mut r0, &mut r1);
        std::thread::sleep(3 * WINDOW + std::time::Duration::from_millis(5));
        assert_eq!(scatter.step(1), Step::Progress(1));
        scatter.flush();
        assert_eq!(elastic.active(), 1, "a second one does");
        while scatter.step(8) != Step::Blocked {
            scatter.flush();
            drain(&mut r0, &mut r1);
        }
        drain(&mut r0, &mut r1);
        assert_eq!(lanes.0, [Packet::Data((2,)), Packet::Data((3,))], "lane 0 only while lane 1 was full");
        assert_eq!(lanes.0.len() + lanes.1.len(), 8);
        let order: Vec<_> = std::iter::from_fn(|| order_rx.pop()).collect();
        assert_eq!(order.len(), 8);
        assert_eq!(elastic.resizes(), (2, 2));
    }

    /// Items that arrive alone stay on lane 0, beside the scatter, but not
    /// after a window that left the scatter's thread no room for them
    /// (`elastic-web` on 16 cores: lane 1 open and parked while lane 0's
    /// thread was saturated).
    #[test]
    fn items_that_arrive_alone_leave_a_crowded_scatters_thread() {
        use crate::deploy::Opening;
        use crate::node::elastic::Elastic;
        use crate::node::replicate::Scatter;
        use crate::{
            arc::channel,
            node::{Node, Step},
            packet::Packet,
            port::In,
        };
        let (mut tx, rx) = channel::<u32>(8, None, None);
        let (l0, mut r0) = channel::<(u32,)>(8, None, None);
        let (l1, mut r1) = channel::<(u32,)>(8, None, None);
        let (order, _order_rx) = channel::<u16>(16, None, None);
        let elastic = Elastic::new(2, Opening::Load);
        elastic.set_active(2);
        // 1 µs an item: items 1 ms apart come alone.
        elastic.set_ns_per_item(1_000);
        let mut scatter = Scatter::new((In::new(rx),), vec![l0, l1], order, |t| t).elastic(Some(elastic));
        let mut deal = |scatter: &mut Scatter<_, _, _>, item: u32| {
            std::thread::sleep(std::time::Duration::from_millis(1));
            tx.push(Packet::Data(item));
            tx.flush();
            assert_eq!(scatter.step(8), Step::Progress(1));
            scatter.flush();
        };
        // Each lane drained before the next item: every item is a tie.
        let lanes = |r0: &mut crate::arc::Receiver<(u32,)>, r1: &mut crate::arc::Receiver<(u32,)>| {
            let got = (r0.pop().is_some(), r1.pop().is_some());
            r0.flush();
            r1.flush();
            got
        };
        for item in 0..3 {
            deal(&mut scatter, item);
            assert_eq!(lanes(&mut r0, &mut r1), (true, false), "alone: lane 0");
        }
        scatter.window.as_mut().expect("follows the load").crowd();
        let mut on_lane_1 = 0;
        for item in 3..7 {
            deal(&mut scatter, item);
            on_lane_1 += usize::from(lanes(&mut r0, &mut r1).1);
        }
        assert_eq!(on_lane_1, 4, "once the thread is crowded, items leave it");
    }

    /// An item of a long operator (a 40 ms summary on a snapshot) leaves
    /// the scatter's thread even when it comes alone, with one lane open
    /// or two: on lane 0 it would hold the scatter's section, the
    /// heartbeats of `examples/src/bin/responsive.rs` there, for 40 ms.
    #[test]
    fn a_long_item_leaves_the_scatters_thread_even_when_it_comes_alone() {
        use crate::deploy::Opening;
        use crate::node::elastic::Elastic;
        use crate::node::{replicate::Scatter, Node, Step};
        use crate::{arc::channel, packet::Packet, port::In};
        for open in [1, 2] {
            let (mut tx, rx) = channel::<u32>(8, None, None);
            let (l0, mut r0) = channel::<(u32,)>(8, None, None);
            let (l1, mut r1) = channel::<(u32,)>(8, None, None);
            let (order, _order_rx) = channel::<u16>(16, None, None);
            let elastic = Elastic::new(2, Opening::Load);
            elastic.set_active(open);
            elastic.set_ns_per_item(40_000_000);
            let mut scatter = Scatter::new((In::new(rx),), vec![l0, l1], order, |t| t).elastic(Some(elastic));
            for item in 0..3 {
                std::thread::sleep(std::time::Duration::from_millis(1));
                tx.push(Packet::Data(item));
                tx.flush();
                assert_eq!(scatter.step(8), Step::Progress(1));
                scatter.flush();
                assert!(r0.pop().is_none(), "{open} lane(s) open: item {item} stayed beside the scatter");
                assert_eq!(r1.pop(), Some(Packet::Data((item,))));
                r1.flush();
            }
        }
    }

    /// `Gather`'s example.
    #[test]
    fn a_gather_sends_in_input_order() {
        use crate::node::replicate::Gather;
        use crate::{
            arc::channel,
            node::{Node, Step},
            packet::Packet,
            port::{In, Out},
        };
        let (mut order, order_rx) = channel::<u16>(8, None, None);
        let (mut l0, r0) = channel::<(u32,)>(4, None, None);
        let (mut l1, r1) = channel::<(u32,)>(4, None, None);
        let (out, out_rx) = channel::<u32>(8, None, None);
        let mut gather = Gather::new(order_rx, vec![r0, r1], (Out::new(vec![out]),), |t| t);
        // Item 1 went to lane 1, item 2 to lane 0; lane 0 finished first.
        for p in [Packet::Data(1), Packet::Data(0), Packet::End(0)] {
            order.push(p);
        }
        order.flush();
        l0.push(Packet::Data((20,)));
        l0.flush();
        assert_eq!(gather.step(8), Step::Blocked, "item 1 is not ready: nothing leaves");
        l1.push(Packet::Data((10,)));
        l1.flush();
        assert_eq!(gather.step(8), Step::Progress(3));
        gather.flush();
        let mut out_rx = In::new(out_rx);
        let out: Vec<_> = std::iter::from_fn(|| out_rx.pop()).collect();
        assert_eq!(out, vec![Packet::Data(10), Packet::Data(20), Packet::End(0)]);
    }
}
