//! Where one Ohua run's time goes (`--trace`, a module of the binary only).
//!
//! The run's calls come from two records: the runtime's per-call moments
//! ([`ohua::CallTiming`] in the run report: queued, dispatched, started,
//! returned, delivered) and the bench's sources ([`DbCall`]: the keys of
//! each call). Replaying the graph with the measured answer times gives,
//! for every io node, the moment its inputs were there (*ready*) and the
//! call that answered it; following the latest input back from the result
//! gives the chain of calls the run's latency is made of. Along that chain
//! the time splits exactly (the parts sum to the measured latency):
//!
//! - `head`: from the call to the first ready request of the chain;
//! - `wake`: from a request's inputs being delivered to the last request of
//!   its call's round being queued (waking sections, the dataflow up to
//!   `submit`, and any later request of the same round);
//! - `quiet`: from that last request to the dispatch (quiescence: the
//!   sections spin, park and stop counting);
//! - `handoff`: from the dispatch to the source's `fetch` (a pool thread);
//! - `sleep`: the source's call (its latency and the sleep's overshoot);
//! - `deliver`: from the return to the answers being in their cells;
//! - `cached`: a request whose key an earlier request had already sent
//!   waits for that answer;
//! - `tail`: from the last answer of the chain to the call's return.

use std::collections::HashMap;
use std::fmt::Write;
use std::time::Instant;

use ohua::RunReport;
use ohua_levels_bench::graph::{
    answer, args, eval_graph, key, list, mix, slow_key, Graph, Kind, Program, ALL_SOURCES, SLOW,
};
use ohua_levels_bench::runtime::DbCall;

/// One call of a source in ms since the run's start.
#[derive(Clone, Debug)]
pub struct Call {
    pub src: usize,
    pub keys: Vec<u64>,
    pub first: f64,
    pub last: f64,
    pub disp: f64,
    pub start: f64,
    pub ret: f64,
    pub deliv: f64,
}

/// The calls of a run started at `t0`: the report's timeline joined with
/// the sources' logs (both in start order per source).
pub fn calls(t0: Instant, reports: &[RunReport], logs: &[Vec<DbCall>; ALL_SOURCES]) -> Vec<Call> {
    let ms = |t: Instant| t.saturating_duration_since(t0).as_secs_f64() * 1e3;
    let names = ["s0", "s1", "s2", "slow"];
    let mut out = Vec::new();
    for (src, log) in logs.iter().enumerate() {
        let mut timeline: Vec<ohua::CallTiming> = reports
            .iter()
            .flat_map(|r| &r.io)
            .filter(|s| s.source == names[src])
            .flat_map(|s| s.timeline.clone())
            .collect();
        timeline.sort_by_key(|t| t.started);
        let mut log = log.clone();
        log.sort_by_key(|c| c.start);
        assert_eq!(timeline.len(), log.len(), "source {src}: the run report and the source's log disagree");
        for (t, c) in timeline.iter().zip(&log) {
            out.push(Call {
                src,
                keys: c.keys.clone(),
                first: ms(t.first_submit),
                last: ms(t.last_submit),
                disp: ms(t.dispatched),
                start: ms(c.start),
                ret: ms(c.end),
                deliv: ms(t.delivered),
            });
        }
    }
    out.sort_by(|a, b| a.disp.total_cmp(&b.disp));
    out
}

/// An io node's request as replayed.
#[derive(Clone, Debug)]
struct Req {
    uid: u64,
    src: usize,
    ready: f64,
    /// Index into the calls, of the call that answered it.
    call: usize,
    /// The answer was there.
    at: f64,
    /// The request whose answer made it ready (none: the run's parameter).
    via: Option<usize>,
}

/// A value with its time and the request that decided the time.
#[derive(Clone, Copy)]
struct V {
    v: u64,
    t: f64,
    via: Option<usize>,
}

struct Replay<'a> {
    calls: &'a [Call],
    by_key: HashMap<(usize, u64), usize>,
    reqs: Vec<Req>,
}

fn latest(vs: &[V]) -> (f64, Option<usize>) {
    vs.iter().fold((0.0, None), |(t, via), v| if v.t > t { (v.t, v.via) } else { (t, via) })
}

impl Replay<'_> {
    fn io(&mut self, uid: u64, src: usize, k: u64, ready: f64, via: Option<usize>) -> V {
        let call = *self.by_key.get(&(src, k)).unwrap_or_else(|| panic!("no call of source {src} asked key {k}"));
        let at = self.calls[call].deliv.max(ready);
        self.reqs.push(Req { uid, src, ready, call, at, via });
        V { v: answer(src, k), t: at, via: Some(self.reqs.len() - 1) }
    }

    /// The values of `g`'s sinks for parameter `p`.
    fn graph(&mut self, g: &Graph, p: V) -> Vec<V> {
        let mut values: Vec<V> = Vec::with_capacity(g.nodes.len());
        for n in &g.nodes {
            let ins: Vec<V> = if n.inputs.is_empty() { vec![p] } else { n.inputs.iter().map(|&i| values[i]).collect() };
            let raw: Vec<u64> = ins.iter().map(|v| v.v).collect();
            debug_assert_eq!(raw, args(n, &values.iter().map(|v| v.v).collect::<Vec<_>>(), p.v));
            let (t, via) = latest(&ins);
            values.push(match &n.kind {
                Kind::Compute => V { v: mix(&raw, n.uid), t, via },
                Kind::Io(s) => self.io(n.uid, *s, key(&raw, n.uid, n.depth), t, via),
                Kind::Sub(b) => {
                    let sinks = self.graph(b, V { v: mix(&raw, n.uid), t, via });
                    let (t, via) = latest(&sinks);
                    let r = mix(&sinks.iter().map(|v| v.v).collect::<Vec<_>>(), b.uid);
                    V { v: r, t: t.max(0.0), via }
                }
                Kind::Map(b) => {
                    let mut rs = Vec::new();
                    let mut ts = Vec::new();
                    for e in list(mix(&raw, n.uid)) {
                        let sinks = self.graph(b, V { v: e, t, via });
                        let (te, ve) = latest(&sinks);
                        rs.push(mix(&sinks.iter().map(|v| v.v).collect::<Vec<_>>(), b.uid));
                        ts.push(V { v: 0, t: te, via: ve });
                    }
                    let (tm, vm) = latest(&ts);
                    let (tm, vm) = if tm > t { (tm, vm) } else { (t, via) };
                    V { v: mix(&rs, n.uid), t: tm, via: vm }
                }
            });
        }
        g.sinks().iter().map(|&i| values[i]).collect()
    }
}

/// The sum of each part of the chain, in ms.
#[derive(Default, Clone, Copy, Debug)]
pub struct Parts {
    pub rounds: usize,
    pub nominal: f64,
    pub head: f64,
    pub wake: f64,
    pub gather: f64,
    pub quiet: f64,
    pub handoff: f64,
    pub sleep: f64,
    pub deliver: f64,
    pub cached: f64,
    pub tail: f64,
}

impl Parts {
    pub fn total(&self) -> f64 {
        self.head
            + self.wake
            + self.gather
            + self.quiet
            + self.handoff
            + self.sleep
            + self.deliver
            + self.cached
            + self.tail
    }
}

/// The chain of `p`'s run (answers from `calls`, `total_ms` its latency),
/// its parts, and a description of each request on it.
pub fn chain(p: &Program, x: u64, calls: &[Call], latency_ms: &[f64; ALL_SOURCES], total_ms: f64) -> (Parts, String) {
    let mut by_key = HashMap::new();
    for (i, c) in calls.iter().enumerate() {
        for &k in &c.keys {
            let old = by_key.insert((c.src, k), i);
            assert!(old.is_none(), "source {} asked key {k} twice", c.src);
        }
    }
    let mut r = Replay { calls, by_key, reqs: Vec::new() };
    let mut sinks = r.graph(&p.graph, V { v: x, t: 0.0, via: None });
    if p.params.slow {
        sinks.push(r.io(0, SLOW, slow_key(x), 0.0, None));
    }
    let (end, mut via) = latest(&sinks);
    let mut on_chain = Vec::new();
    while let Some(i) = via {
        on_chain.push(i);
        via = r.reqs[i].via;
    }
    on_chain.reverse();
    let mut parts = Parts { rounds: on_chain.len(), tail: total_ms - end, ..Parts::default() };
    // The run's setup: until its first request is queued.
    let setup = calls.iter().map(|c| c.first).fold(f64::INFINITY, f64::min);
    let mut text = String::new();
    for (n, &i) in on_chain.iter().enumerate() {
        let q = &r.reqs[i];
        let c = &calls[q.call];
        let ready = if n == 0 {
            parts.head = q.ready.max(setup);
            q.ready.max(setup)
        } else {
            q.ready
        };
        // A request whose call went out before it was ready joined an
        // earlier request's call (the cache).
        if c.disp + 1e-6 < ready {
            parts.cached += q.at - ready;
            writeln!(
                text,
                "    n{:<4} s{} ready {:8.3} cached by the call sent at {:8.3}, answer {:8.3}",
                q.uid, q.src, q.ready, c.disp, q.at
            )
            .unwrap();
        } else {
            parts.nominal += latency_ms[q.src];
            parts.wake += c.first.max(ready) - ready;
            parts.gather += c.last - c.first.max(ready);
            parts.quiet += c.disp - c.last;
            parts.handoff += c.start - c.disp;
            parts.sleep += c.ret - c.start;
            parts.deliver += c.deliv - c.ret;
            writeln!(
                text,
                "    n{:<4} s{} ready {:8.3} queued {:8.3}..{:8.3} sent {:8.3} fetch {:8.3}..{:8.3} delivered {:8.3} ({} keys)",
                q.uid,
                q.src,
                q.ready,
                c.first,
                c.last,
                c.disp,
                c.start,
                c.ret,
                c.deliv,
                c.keys.len()
            )
            .unwrap();
        }
    }
    (parts, text)
}

/// Every call, one line each.
pub fn call_lines(calls: &[Call]) -> String {
    let mut s = String::new();
    for c in calls {
        writeln!(
            s,
            "    s{} queued {:8.3}..{:8.3} sent {:8.3} fetch {:8.3}..{:8.3} delivered {:8.3} keys {:?}",
            c.src, c.first, c.last, c.disp, c.start, c.ret, c.deliv, c.keys
        )
        .unwrap();
    }
    s
}

/// The eager schedule with a per-run cache (DataLoader's): a request goes
/// out when its inputs are there unless an equal one went out before; its
/// answer comes a latency after the first of them went out.
pub fn cached_ideal(p: &Program, x: u64, latency_ms: &[f64; ALL_SOURCES]) -> f64 {
    let mut first: HashMap<(usize, u64), f64> = HashMap::new();
    let mut t = f64::INFINITY;
    for _ in 0..50 {
        let mut asked: HashMap<(usize, u64), f64> = HashMap::new();
        let end = ideal_graph(&p.graph, x, 0.0, latency_ms, &first, &mut asked);
        let end = if p.params.slow { end.max(latency_ms[SLOW]) } else { end };
        let stable = asked == first && end == t;
        first = asked;
        t = end;
        if stable {
            break;
        }
    }
    t
}

fn ideal_graph(
    g: &Graph,
    x: u64,
    t0: f64,
    lat: &[f64; ALL_SOURCES],
    first: &HashMap<(usize, u64), f64>,
    asked: &mut HashMap<(usize, u64), f64>,
) -> f64 {
    let mut vals: Vec<(u64, f64)> = Vec::new();
    for n in &g.nodes {
        let ins: Vec<(u64, f64)> =
            if n.inputs.is_empty() { vec![(x, t0)] } else { n.inputs.iter().map(|&i| vals[i]).collect() };
        let raw: Vec<u64> = ins.iter().map(|v| v.0).collect();
        let t = ins.iter().map(|v| v.1).fold(0.0, f64::max);
        vals.push(match &n.kind {
            Kind::Compute => (mix(&raw, n.uid), t),
            Kind::Io(s) => {
                let k = key(&raw, n.uid, n.depth);
                let e = asked.entry((*s, k)).or_insert(t);
                *e = e.min(t);
                let sent = first.get(&(*s, k)).copied().unwrap_or(t).min(t);
                (answer(*s, k), t.max(sent + lat[*s]))
            }
            Kind::Sub(b) => {
                let a = mix(&raw, n.uid);
                let v = eval_graph(b, a);
                (v, ideal_graph(b, a, t, lat, first, asked))
            }
            Kind::Map(b) => {
                let mut rs = Vec::new();
                let mut tm = t;
                for e in list(mix(&raw, n.uid)) {
                    rs.push(eval_graph(b, e));
                    tm = tm.max(ideal_graph(b, e, t, lat, first, asked));
                }
                (mix(&rs, n.uid), tm)
            }
        });
    }
    g.sinks().iter().map(|&i| vals[i].1).fold(0.0, f64::max)
}
