//! `elastic-attack`: Lagniappe's AttackDetector as a service whose load
//! steps 30 % -> 90 % -> 30 % -> 110 % -> 30 % of one core (issue 23's
//! load-step benchmark).
//!
//! Per request, as in `examples/src/bin/attack_detector.rs`: a keyed
//! classifier (by flow) says whether the flow is still good, a stateless
//! `inspect` scans it (1/10 of the work), the classifier records the
//! verdict, and a keyed file service (by file) serves it (9/10 of the work,
//! Lagniappe's heavy `Service` operator); replies
//! leave in order through a state. Work per request [`COST`] on one core.
//! An open-loop generator sends requests at the schedule's rate
//! (`elastic_load.rs`), and every reply's latency counts from when its
//! request was due.
//!
//! Five deployments, each a separate copy of the algorithm (each run is
//! its graph's first in the process, as a service's one long run is):
//! one replica of everything (`off`); two fixed replicas of every
//! replicable call (a rule); and elastic replicas under the `throughput`,
//! `p99=5ms` (per operator) and `request-p99=5ms` (per request, split over
//! the path) policies. Keyed calls follow the load by moving key groups.
//!
//! Printed per deployment: per step p50/p99/max and the 1-second windows
//! whose p99 met [`SLA`]; the windows met outside the overload step; the
//! cores the process used per step (CPU time over wall time); and the
//! decisions of the elastic operators per step. Last, each elastic
//! deployment's cores per step against the smallest fixed deployment that
//! met the SLA in that step.

use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, Sender};
use std::time::Duration;

use ohua::deploy::{KeyOf, RequestGoal, Scaling};
use ohua::{algorithm, keyed, Deployment, Keyed, Replication, SectionStrategy};

use crate::common::{header, mix, rounds_for};
use crate::elastic_load::{run, Replies, Req, Schedule, Serve, Sla, Tally};

/// Work per request on one core.
const COST: Duration = Duration::from_micros(100);

/// The load steps, as a share of one core's capacity (1 / [`COST`]).
const STEPS: [f64; 5] = [0.3, 0.9, 0.3, 1.1, 0.3];

/// Seconds per step.
const STEP_SECS: f64 = 3.0;

/// The SLA: a request's p99 per [`WINDOW`] at most this.
const SLA: Duration = Duration::from_millis(5);

/// The windows.
const WINDOW: Duration = Duration::from_secs(1);

/// The step that overloads one core: its windows are reported, not counted.
const OVERLOAD: f64 = 1.0;

/// Flows and files the requests spread over.
const FLOWS: u64 = 256;
const FILES: u64 = 64;

/// A request's flow and file, from its sequence number (a fixed hash).
fn flow_of(r: &Req) -> u64 {
    mix(r.0, 2) % FLOWS
}
fn file_of(r: &Req) -> u64 {
    mix(r.0 ^ 0xF11E, 2) % FILES
}

/// Per flow: requests seen and whether it is blocked.
#[derive(Clone, Default)]
struct Flows(BTreeMap<u64, (u64, bool)>);

/// Per file: its version and a digest of what was served.
#[derive(Clone, Default)]
struct Files(BTreeMap<u64, (u64, u64)>);

macro_rules! keyed_map {
    ($state:ident, $key_of:ident) => {
        impl Keyed for $state {
            type Key = u64;
            fn split(self, parts: usize, part_of: &dyn Fn(&u64) -> usize) -> Vec<Self> {
                let mut out = vec![$state(BTreeMap::new()); parts];
                for (k, v) in self.0 {
                    out[part_of(&k)].0.insert(k, v);
                }
                out
            }
            fn merge(parts: Vec<Self>) -> Self {
                $state(parts.into_iter().flat_map(|p| p.0).collect())
            }
        }
        impl KeyOf<$state> for Req {
            fn key(&self) -> u64 {
                $key_of(self)
            }
        }
    };
}
keyed_map!(Flows, flow_of);
keyed_map!(Files, file_of);

impl Flows {
    fn new() -> Self {
        Flows::default()
    }
    fn classify(&mut self, r: &Req) -> bool {
        let (seen, blocked) = self.0.entry(flow_of(r)).or_default();
        *seen += 1;
        !*blocked
    }
    fn report(&mut self, r: &Req, attack: bool) {
        if attack {
            self.0.entry(flow_of(r)).or_default().1 = true;
        }
    }
}

/// Stateless: 1/10 of the work; about one request in 10,000 is an attack.
fn inspect(r: &Req, good: bool, rounds: u64) -> bool {
    good && mix(r.0, rounds / 10).is_multiple_of(10_007)
}

impl Files {
    fn new() -> Self {
        Files::default()
    }
    /// 9/10 of the work for a request that passed; the request back.
    /// (`rounds`, a parameter of the algorithm, is read on every replica:
    /// each holds a copy.)
    fn serve(&mut self, r: &Req, pass: bool, rounds: u64) -> Req {
        if pass {
            let (version, digest) = self.0.entry(file_of(r)).or_default();
            *version += 1;
            *digest ^= mix(r.0 ^ *version, rounds * 9 / 10);
        }
        *r
    }
}

macro_rules! detector {
    ($name:ident) => {
        #[algorithm]
        fn $name(rx: Receiver<Req>, tx: Sender<Req>, rounds: u64) -> u64 {
            let mut flows = keyed(Flows::new());
            let mut files = keyed(Files::new());
            let mut replies = Replies::new(tx);
            for req in rx {
                let good = flows.classify(&req);
                let attack = inspect(&req, good, rounds);
                flows.report(&req, attack);
                let served = files.serve(&req, good && !attack, rounds);
                replies.send(served);
            }
            0
        }
    };
}

detector!(attack_one);
detector!(attack_two);
detector!(attack_throughput);
detector!(attack_p99);
detector!(attack_request);

pub fn run_bench() {
    header(
        "elastic-attack",
        "AttackDetector as a service, load stepping 30 % -> 90 % -> 30 % -> 110 % -> 30 % of one core",
    );
    let rounds = rounds_for(COST);
    let load = Schedule { steps: &STEPS, step_secs: STEP_SECS, rate_one: 1.0 / COST.as_secs_f64() };
    let base = Deployment::default().workers(2).sections(SectionStrategy::Auto);
    let elastic = base.clone().replicas(Replication::Elastic);
    let two: Replication = "attack_two/.*=2".parse().expect("valid rule");
    let variants: [(&str, Serve, Deployment, bool); 5] = [
        ("off (one replica)", attack_one, base.clone().replicas(Replication::Off), true),
        ("two replicas, fixed (rule)", attack_two, base.clone().replicas(two), true),
        ("elastic, throughput", attack_throughput, elastic.clone(), false),
        ("elastic, p99=5ms per operator", attack_p99, elastic.clone().scaling(Scaling::p99(SLA)), false),
        (
            "elastic, request-p99=5ms",
            attack_request,
            elastic.clone().scaling(Scaling::request(RequestGoal::new(SLA))),
            false,
        ),
    ];
    println!(
        "  work per request {} µs (inspect 1/10, serve 9/10), SLA: p99 <= {} ms per {} s window; {} s per step",
        COST.as_micros(),
        SLA.as_millis(),
        WINDOW.as_secs(),
        STEP_SECS
    );
    let mut tally = Tally::new(load, Sla { sla: SLA, window: WINDOW, overload: OVERLOAD });
    for (name, serve, d, is_fixed) in variants {
        let r = run(serve, d, rounds, load);
        tally.record(name, is_fixed, r.steps, r.cores, &r.report);
    }
    tally.finish();
}
