//! `recut-service`: a stateful service whose sections follow its load
//! (issue 23: the Monitor re-cuts sections and fuses stages while a service
//! runs, and gives cores back when its load falls).
//!
//! A loop over a channel passes each request through four stateful stages
//! (of 5 units of work each, [`COST`] in all) and replies through
//! a state, in order. Nothing is replicable, so `auto` cuts the service's
//! first (and only) run finer than its threads and regroups the sections
//! while it runs (`crates/ohua-runtime/src/exec/recut.rs`). The load steps
//! through [`STEPS`], shares of what one core can take, open loop
//! (`elastic_load.rs`). Deployments, each its own copy of the algorithm
//! (so each run is its graph's first):
//!
//! * one section: every stage on one thread (the fewest hand-offs, one
//!   core at most);
//! * the operator count's cut on two threads (`sections = "auto"` with
//!   rules that give the count's groups: what a first run kept before the
//!   re-cut followed the load);
//! * `auto`: the first run's finer cut, regrouped by measured load.
//!
//! Per step it prints p50/p99/max latency, the 250 ms windows whose p99
//! met [`SLA`], the cores used, and the re-cut decisions of the run.

use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use ohua::{algorithm, Deployment, SectionStrategy};

use crate::common::{calls_in_site_order, header, mix, rounds_for, setting, two_sections_after};
use crate::elastic_load::{percentile, run_after, Replies, Req, Schedule, Serve, Sla, Tally};

/// Work per request, all four stages.
const COST: Duration = Duration::from_micros(20);

/// The load steps, as a share of [`COST`]'s rate (1 / `COST`). A request
/// costs the service about 34 µs in all on this project's VMs (the loop's
/// channel, the replies' channel, the stages: busy times of a run with
/// `OHUA_REPORT=1`), so 10 % is about a sixth of one thread, 60 % all of
/// it and 90 % one and a half.
const STEPS: [f64; 5] = [0.1, 0.6, 0.1, 0.9, 0.1];

/// Seconds per step (`RECUT_SERVICE_SECS` overrides it).
const STEP_SECS: f64 = 2.0;

/// The latency goal: p99 of a window at most this.
const SLA: Duration = Duration::from_millis(2);

/// Requests of the closed-loop client before the load steps.
const CLOSED_LOOP: u64 = 3_000;

/// Windows over which p99 is checked against [`SLA`].
const WINDOW: Duration = Duration::from_millis(250);

/// A stateful stage of `weight` units of work per request: its state
/// changes with every request, so its calls run in order on one instance.
pub struct Stage {
    h: u64,
    weight: u64,
}

impl Stage {
    fn new(seed: u64, weight: u64) -> Self {
        Stage { h: seed, weight }
    }

    fn step(&mut self, r: Req, unit: u64) -> Req {
        self.h = mix(self.h ^ r.0, unit * self.weight);
        r
    }
}

macro_rules! service {
    ($name:ident) => {
        #[algorithm]
        fn $name(rx: Receiver<Req>, tx: Sender<Req>, unit: u64) -> u64 {
            let mut a = Stage::new(1, 5);
            let mut b = Stage::new(2, 5);
            let mut c = Stage::new(3, 5);
            let mut d = Stage::new(4, 5);
            let mut replies = Replies::new(tx);
            for req in rx {
                let r1 = a.step(req, unit);
                let r2 = b.step(r1, unit);
                let r3 = c.step(r2, unit);
                let r4 = d.step(r3, unit);
                replies.send(r4);
            }
            0
        }
    };
}

service!(serve_single);
service!(serve_count);
service!(serve_auto);

/// The operator count's two groups of the five calls, as a first run kept
/// them before its groups followed the load: the loop's entry, `a` and `b`
/// on one thread, `c`, `d` and the replies on the other. The names come
/// from a profiled run over no requests.
fn count_cut() -> SectionStrategy {
    let (_, rx) = std::sync::mpsc::channel::<Req>();
    let (tx, _) = std::sync::mpsc::channel::<Req>();
    let (_, reports) = ohua::profile(|| serve_count(rx, tx, 1));
    let steps = calls_in_site_order(&reports[0], "/step#");
    assert_eq!(steps.len(), 4, "four stages: {steps:?}");
    two_sections_after(&steps[..2], "^serve_count/(rx#arg|tx#arg|unit#arg|tick@[0-9]+|smap@[0-9]+)$")
}

pub fn run_bench() {
    header(
        "recut-service",
        "a stateful service's sections follow its load: 10 % -> 60 % -> 10 % -> 90 % -> 10 % of 1 / 20 µs",
    );
    // One unit is a twentieth of the work per request.
    let unit = rounds_for(COST / 20);
    let step_secs = setting("recut-service", "RECUT_SERVICE_SECS", STEP_SECS);
    let load = Schedule { steps: &STEPS, step_secs, rate_one: 1.0 / COST.as_secs_f64() };
    let base = Deployment::default().workers(2);
    let count = count_cut();
    let variants: [(&str, Serve, Deployment); 3] = [
        ("one section (one thread)", serve_single, base.clone().sections(SectionStrategy::Single)),
        ("the count's cut (two threads)", serve_count, base.clone().sections(count)),
        ("auto (re-cut by load)", serve_auto, base.clone().sections(SectionStrategy::Auto)),
    ];
    println!(
        "  work per request {} µs, SLA: p99 <= {} ms per {} ms window",
        COST.as_micros(),
        SLA.as_millis(),
        WINDOW.as_millis()
    );
    let mut tally = Tally::new(load, Sla { sla: SLA, window: WINDOW, overload: 1.0 });
    for (name, serve, d) in variants {
        // The closed loop's latencies, and when the load began after the
        // run's start (about: the server starts as the client does).
        let light = std::sync::Mutex::new((Vec::new(), Duration::ZERO));
        let t0 = Instant::now();
        let prelude = |tx: &Sender<Req>, rx: &Receiver<Req>| {
            // One request at a time, each sent 0.3 ms after the previous
            // reply: a service at light load, where every hand-off to
            // another thread is a wake-up on the request's path.
            let mut lat = Vec::with_capacity(CLOSED_LOOP as usize);
            for id in 0..CLOSED_LOOP {
                std::thread::sleep(Duration::from_micros(300));
                tx.send((id, Instant::now())).expect("server alive");
                let (got, sent) = rx.recv().expect("a reply");
                assert_eq!(got, id, "replies in order");
                lat.push(sent.elapsed());
            }
            *light.lock().expect("one client") = (lat, t0.elapsed());
            CLOSED_LOOP
        };
        let r = run_after(serve, d, unit, load, &prelude);
        let (mut lat, offset) = light.into_inner().expect("one client");
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        let (p50, p99) = (percentile(&mut lat, 0.5), percentile(&mut lat, 0.99));
        println!(
            "  {name:<32} closed loop, one request at a time 0.3 ms apart: reply p50 {:.0} µs, p99 {:.0} µs, max {:.0} µs",
            us(p50),
            us(p99),
            us(*lat.last().expect("replies"))
        );
        let recuts = &r.report.recuts;
        let mut per_step = vec![0; STEPS.len()];
        for d in recuts {
            // Decisions during the closed loop count for the first step.
            let at = d.at.saturating_sub(offset).as_secs_f64();
            per_step[((at / step_secs) as usize).min(STEPS.len() - 1)] += 1;
        }
        if std::env::var_os("RECUT_SERVICE_REPORT").is_some() {
            println!("{}", r.report);
        }
        tally.record(name, true, r.steps, r.cores, &r.report);
        if !recuts.is_empty() {
            println!("    re-cuts per step (the closed loop's with the first): {per_step:?}; the load began {:.0} ms into the run", offset.as_secs_f64() * 1e3);
            let shown = std::env::var("RECUT_DECISIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(6);
            for d in recuts.iter().take(shown) {
                println!("      {d}");
            }
        }
    }
    tally.finish();
}
