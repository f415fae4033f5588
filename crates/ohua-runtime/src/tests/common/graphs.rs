//! Hand-written graph descriptions and the code that builds them, standing in
//! for what the compiler generates.
//!
//! `PIPE` and `INDEP` come from `tests/common/shapes.rs`, which the
//! integration tests `tests/plan.rs` and `tests/dot.rs` (public API only)
//! include as well; each test binary is its own process, so what `auto`
//! learns of a graph here never reaches their plans.

use std::sync::mpsc;

use crate::exec::{execute, ResultSlot};
use crate::graph::{ArcInfo, GraphInfo, NodeInfo, OpKind};
use crate::port::{In, Out};

use super::nodes::{Count, Gate, Map, Sink};

include!("../../../tests/common/shapes.rs");

/// Same shape as [`PIPE`]; its middle stage is where tests inject panics.
pub static BOOM: GraphInfo = GraphInfo {
    algorithm: "boom",
    file: "",
    nodes: &[
        node("boom/count#0", OpKind::Source),
        node("boom/inc#1", OpKind::Call),
        node("boom/explode#2", OpKind::Call),
        node("boom/inc#3", OpKind::Call),
        node("boom/sink#4", OpKind::Sink),
    ],
    arcs: &[arc(0, 1), arc(1, 2), arc(2, 3), arc(3, 4)],
};

/// Run a [`PIPE`]-shaped graph over `0..n`: stages 1 and 3 add one, stage 2
/// applies `middle`.
pub fn run_pipeline(graph: &'static GraphInfo, n: u64, middle: impl FnMut(u64) -> u64 + Send) -> Vec<u64> {
    execute(graph, |b| {
        let (t0, r0) = b.arc(0);
        let (t1, r1) = b.arc(1);
        let (t2, r2) = b.arc(2);
        let (t3, r3) = b.arc(3);
        b.node(0, Count::new(Out::new(vec![t0]), n));
        b.node(1, Map::new(In::new(r0), Out::new(vec![t1]), |x| x + 1));
        b.node(2, Map::new(In::new(r1), Out::new(vec![t2]), middle));
        b.node(3, Map::new(In::new(r2), Out::new(vec![t3]), |x| x + 1));
        let slot = b.result_slot();
        b.node(4, Sink::new(In::new(r3), slot.clone()));
        slot
    })
}

/// Run [`INDEP`] over `0..n`: chain B finishes and then opens chain A's gate,
/// whose first step blocks its thread until then. Returns (A's, B's) items.
pub fn run_indep(n: u64) -> (Vec<u64>, Vec<u64>) {
    let (open_tx, open_rx) = mpsc::channel();
    let b_slot: ResultSlot<Vec<u64>> = ResultSlot::new();
    let b_result = b_slot.clone();
    let a = execute(&INDEP, move |b| {
        let (t0, r0) = b.arc(0);
        let (t1, r1) = b.arc(1);
        let (t2, r2) = b.arc(2);
        let (t3, r3) = b.arc(3);
        b.node(0, Count::new(Out::new(vec![t0]), n));
        b.node(1, Gate { inp: In::new(r0), out: Out::new(vec![t1]), open: Some(open_rx) });
        let slot = b.result_slot();
        b.node(2, Sink::new(In::new(r1), slot.clone()));
        b.node(3, Count::new(Out::new(vec![t2]), n));
        b.node(4, Map::new(In::new(r2), Out::new(vec![t3]), |x| x * 2));
        let mut sink_b = Sink::new(In::new(r3), b_slot);
        sink_b.done = Some(open_tx);
        b.node(5, sink_b);
        slot
    });
    (a, b_result.take().expect("chain B finished"))
}
