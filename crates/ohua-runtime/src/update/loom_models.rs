//! The marker protocol under loom: in every interleaving (up to three
//! preemptions) of two operators on two threads, one of which joins the
//! marker from two inputs, the operator that adopts an update switches
//! exactly at the cut, the joining operator passes the marker between the
//! same two items on both inputs, and the marker is reported complete only
//! after the last operator passed it.
//! `RUSTFLAGS="--cfg loom" cargo test -p ohua-runtime --release --lib loom`.

use crate::arc::channel;
use crate::graph::{GraphInfo, NodeInfo, OpKind};
use crate::node::call::Call;
use crate::node::marks::Attach;
use crate::node::{Node, Step};
use crate::packet::{Mark, Packet};
use crate::port::{In, Out};
use crate::update::{current, Action, Changes, Control, FnSlot, Outcome, Replacement};
use loom::thread;

static NODES: [NodeInfo; 2] = [
    NodeInfo { name: "m/scale#1", kind: OpKind::Call, depth: 1, label: "scale(x)", replicable: false, line: 0 },
    NodeInfo { name: "m/join#2", kind: OpKind::Call, depth: 1, label: "x + y", replicable: false, line: 0 },
];
static GRAPH: GraphInfo = GraphInfo { algorithm: "m", file: "", nodes: &NODES, arcs: &[] };

static SCALE: FnSlot<fn(u32) -> u32> = FnSlot::new("scale");

/// Version 1 doubles; the update makes it triple.
fn scale(x: u32) -> u32 {
    match current(&SCALE) {
        Some(f) => f(x),
        None => x * 2,
    }
}

fn triple(x: u32) -> u32 {
    x * 3
}

/// Step `node` as a section does (flush after the step); `None` once done.
fn step<N: Node>(node: &mut Option<N>) -> Step {
    let Some(n) = node.as_mut() else { return Step::Done };
    let s = n.step(4);
    n.flush();
    if s == Step::Done {
        *node = None;
    }
    s
}

#[test]
fn loom_a_marker_switches_an_operator_at_the_cut_and_completes_after_the_join() {
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(3);
    model.check(|| {
        let control = Control::new();
        // Addressed to `scale` only: the joining operator adopts nothing.
        let update =
            Changes { replacements: vec![Replacement::new(&SCALE, triple).at("m/scale#1")], transforms: vec![] };
        let marker = control.request(Action::Update(update));
        let (mut to_scale, scale_rx) = channel::<u32>(4, None, None);
        let (mut to_join, join_rx) = channel::<u32>(4, None, None);
        let (scaled, scaled_rx) = channel::<u32>(1, None, None);
        let (out, mut out_rx) = channel::<u32>(4, None, None);
        let mut scaler =
            Some(Call::new((In::new(scale_rx),), (), (Out::new(vec![scaled]),), |(x,): (u32,), ()| ((), (scale(x),))));
        let mut join = Some(Call::new(
            (In::new(join_rx), In::new(scaled_rx)),
            (),
            (Out::new(vec![out]),),
            |(x, y): (u32, u32), ()| ((), (x + y,)),
        ));
        let attach = |node| Attach { control: control.clone(), graph: &GRAPH, node };
        scaler.as_mut().unwrap().attach(&attach(0));
        join.as_mut().unwrap().attach(&attach(1));
        // The loop entry: item 1, the cut, item 2, on both of its outputs;
        // the marker is counted before its copies are published.
        let m = Mark { level: 0, id: marker.id() };
        for tx in [&mut to_scale, &mut to_join] {
            tx.push(Packet::Data(1));
            tx.push(Packet::Mark(m));
            tx.push(Packet::Data(2));
        }
        marker.inserted(9, 1, 2);
        drop((to_scale, to_join)); // publish and close

        let worker = thread::spawn(move || {
            while step(&mut scaler) != Step::Done {
                thread::yield_now();
            }
        });
        let mut got = Vec::new();
        // The consumer of the join's output, as a sink operator would.
        let mut take = |got: &mut Vec<Packet<u32>>| {
            for p in std::iter::from_fn(|| out_rx.pop()) {
                if let Packet::Mark(_) = p {
                    marker.passed(2, 1, 0, Outcome::Nothing);
                }
                got.push(p);
            }
        };
        loop {
            let s = step(&mut join);
            // Complete means no arc holds a copy: the join has passed it
            // and its consumer has taken it (which happens only below).
            if marker.completed().is_some() {
                assert!(got.contains(&Packet::Mark(m)), "complete while a copy was in an arc: {got:?}");
            }
            take(&mut got);
            match s {
                Step::Done => break,
                Step::Blocked => thread::yield_now(),
                Step::Progress(_) => {}
            }
        }
        worker.join().unwrap();
        take(&mut got);
        // Item 1 before the cut on the old function, item 2 after it on the new.
        assert_eq!(got, vec![Packet::Data(1 + 2), Packet::Mark(m), Packet::Data(2 + 6)]);
        let report = marker.completed().expect("complete once both operators passed it");
        assert_eq!(report.adopted, vec![0]);
        assert_eq!(report.reached.len(), 3);
    });
}
