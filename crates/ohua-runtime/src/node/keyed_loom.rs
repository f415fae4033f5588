//! Key routing under loom: a keyed scatter, replica 0, the gather and the
//! merge of the state driven by one thread (as in the operator's section),
//! replica 1 on another. In every interleaving (up to three preemptions),
//! each replica sees exactly its keys' items in order, results leave in
//! input order, and the merged state holds every key's calls in order.

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
#[derive(Clone, Debug, Default, PartialEq)]
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
        let mut scatter = Some(KeyedScatter::new((In::new(data_rx),), In::new(state_rx), lanes, parts, order, route));
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
    line: 0,
}];
static GRAPH: crate::graph::GraphInfo = crate::graph::GraphInfo { algorithm: "m", file: "", nodes: &NODES, arcs: &[] };

/// How the move of a model is made.
enum Move {
    /// A service's rescaling marker, put between the second and third item.
    Marker(crate::packet::Mark, crate::node::marks::Attach),
    /// The scatter's own local marker, once these elastic lanes (two open)
    /// close to one after the scatter routed the first two items.
    Local(crate::node::elastic::Elastic),
}

/// Keys a and b on replicas 0 and 1, events a1 b2 a3 b4 with a move of
/// every group onto replica 0 after b2, replica 1 on another thread: the
/// gather's output and the merged state.
fn moved(a: u8, b: u8, how: Move) -> (Vec<Packet<usize>>, Option<Packet<Calls>>) {
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
        let mut replica =
            Call::new((In::new(lane_rx),), (sticky,), (Out::new(vec![result]),), |(e,): ((Ev,),), s: (Calls,)| {
                let (s, n) = call(e, s);
                (s, ((n,),))
            });
        if let Move::Marker(_, attach) = &how {
            replica.attach(attach);
        }
        replicas.push(Some(replica));
    }
    let mut other = replicas.pop().expect("two replicas");
    let mut own = replicas.pop().expect("two replicas");
    let worker = thread::spawn(move || {
        while step(&mut other) != Step::Done {
            thread::yield_now();
        }
    });
    // The loop entry: a, b, (the cut,) a, b.
    data.push(Packet::Data(Ev(a, 1)));
    data.push(Packet::Data(Ev(b, 2)));
    if let Move::Marker(m, attach) = &how {
        data.push(Packet::Mark(*m));
        attach.control.marker(m.id).inserted(9, 1, 1);
    }
    for p in [Packet::Data(Ev(a, 3)), Packet::Data(Ev(b, 4)), Packet::End(0)] {
        data.push(p);
    }
    drop(data);
    state.push(Packet::Data(Calls(vec![(b, vec![0])])));
    drop(state);
    let route = |item: &(Ev,), keys: KeyFn<Calls>| keys.of(&item.0);
    let scatter = KeyedScatter::new((In::new(data_rx),), In::new(state_rx), lanes, parts, order, route);
    let mut scatter = Some(scatter.rescalable(backs, 0));
    let mut gather = Some(Gather::with_markers_in_lanes(order_rx, results, (Out::new(vec![out]),), |r: (usize,)| r));
    match &how {
        Move::Marker(_, attach) => {
            scatter.as_mut().unwrap().attach(attach);
            gather.as_mut().unwrap().attach(attach);
        }
        Move::Local(elastic) => {
            elastic.open();
            let mut s = scatter.take().unwrap().elastic(Some(elastic.clone()));
            // The state, then a1 and b2 (a step deals at most its budget).
            while s.step(2) == Step::Progress(0) {}
            s.flush();
            elastic.set_active(1);
            scatter = Some(s);
        }
    }
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
    (std::iter::from_fn(|| out_rx.pop()).collect(), merged_rx.pop())
}

/// Keys a and b of replicas 0 and 1 of two, and the state b's move must keep.
fn two_keys() -> (u8, u8, Packet<Calls>) {
    let groups = Groups::new(2);
    let a = (0u8..=255).find(|k| groups.replica_of(k) == 0).expect("a key of replica 0");
    let b = (0u8..=255).find(|k| groups.replica_of(k) == 1).expect("a key of replica 1");
    let mut expected = vec![(a, vec![1, 3]), (b, vec![0, 2, 4])];
    expected.sort();
    (a, b, Packet::Data(Calls(expected)))
}

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
    let (a, b, expected) = two_keys();
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(3);
    model.check(move || {
        let control = Control::new();
        let marker = control.request(Action::Regroup(Regroup::new(1)));
        let attach = Attach { control: control.clone(), graph: &GRAPH, node: 0 };
        let m = Mark { level: 0, id: marker.id() };
        let (got, merged) = moved(a, b, Move::Marker(m, attach));
        // b's call after the cut, on replica 0, is b's third.
        assert_eq!(
            got,
            vec![Packet::Data(1), Packet::Data(2), Packet::Mark(m), Packet::Data(2), Packet::Data(3), Packet::End(0)]
        );
        assert_eq!(merged, Some(expected.clone()));
        // The gather's consumer takes the marker from the last arc.
        marker.passed(7, 1, 0, crate::update::Outcome::Nothing);
        let report = marker.completed().expect("no arc holds the marker");
        assert_eq!(report.adopted, vec![0], "the scatter moved the groups");
    });
}

/// The same move made by the scatter itself, where its stream is, when its
/// elastic lanes close to one (`node/README.md`, "Moving key groups"): the
/// same results and state, and the local marker ends at the gather.
#[test]
fn loom_a_key_group_moves_with_its_state_at_a_local_marker() {
    let (a, b, expected) = two_keys();
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(3);
    model.check(move || {
        let elastic = crate::node::elastic::Elastic::new(2, crate::deploy::Opening::Measured);
        let (got, merged) = moved(a, b, Move::Local(elastic));
        assert_eq!(got, vec![Packet::Data(1), Packet::Data(2), Packet::Data(2), Packet::Data(3), Packet::End(0)]);
        assert_eq!(merged, Some(expected.clone()));
    });
}
