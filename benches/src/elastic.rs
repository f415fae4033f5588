//! `elastic`: a service whose load steps up and down (issue 23).
//!
//! A loop over a channel runs a stateless call of about [`COST`] per item
//! and replies through a state, in order. An open-loop generator sends
//! items at a rate that steps through [`STEPS`] (a share of what one
//! replica can take), [`STEP_SECS`] seconds each, and the reply latency of
//! every item is kept. Three deployments, each a separate run over the same
//! schedule:
//!
//! * `off`: one replica (`replicas = "off"`);
//! * two replicas, fixed by a rule (what `auto` would give a heavy piece);
//! * `elastic`: the replicas follow the load (`replicas = "elastic"`,
//!   DS2's rule every 20 ms, `crates/ohua-runtime/src/deploy/scaling.rs`);
//! * `elastic`, `scaling = "p99=5ms"`: the same, with the latency-goal
//!   policy set to the bench's SLA (`deploy/policy.rs`).
//!
//! Each runs its own copy of the algorithm, so each run is its graph's
//! first in the process, as a service's one long run is.
//!
//! Per step and deployment it prints the p50/p99/max latency, the share of
//! 250 ms windows whose p99 met [`SLA`], and, from the run report, how
//! often the elastic replicas changed and the busy time of each replica
//! (what the cores were used for).

use std::sync::mpsc::Sender;
use std::time::Duration;

use ohua::{algorithm, Deployment, Replication, SectionStrategy};

use crate::common::{header, mix, rounds_for};
use crate::elastic_load::{p99_per_window, print_steps, run, Replies, Req, Schedule, Serve};

/// Work per item on one replica.
const COST: Duration = Duration::from_micros(100);

/// The load steps, as a share of one replica's capacity (1 / [`COST`]).
const STEPS: [f64; 5] = [0.3, 0.9, 0.3, 1.1, 0.3];

/// Seconds per step.
const STEP_SECS: f64 = 2.0;

/// The latency goal: p99 of a window at most this.
const SLA: Duration = Duration::from_millis(5);

/// Windows over which p99 is checked against [`SLA`].
const WINDOW: Duration = Duration::from_millis(250);

/// The stateless work: `rounds` of [`mix`].
fn handle(req: Req, rounds: u64) -> Req {
    std::hint::black_box(mix(req.0, rounds));
    req
}

/// The service: one copy per deployment, so that each run is its graph's
/// first in the process (what a service is: one long run).
macro_rules! service {
    ($name:ident) => {
        #[algorithm]
        fn $name(rx: std::sync::mpsc::Receiver<Req>, tx: Sender<Req>, rounds: u64) -> u64 {
            let mut replies = Replies::new(tx);
            for req in rx {
                let r = handle(req, rounds);
                replies.send(r);
            }
            0
        }
    };
}

service!(serve_one);
service!(serve_two);
service!(serve_elastic);
service!(serve_p99);

pub fn run_bench() {
    header("elastic", "a service whose load steps 30 % -> 90 % -> 30 % -> 110 % -> 30 % of one replica's capacity");
    let rounds = rounds_for(COST);
    let rate_one = 1.0 / COST.as_secs_f64();
    let base = Deployment::default().workers(2).sections(SectionStrategy::Auto);
    let two: Replication = "serve_two/handle#.*=2".parse().expect("valid rule");
    let p99 = ohua::deploy::Scaling::p99(SLA);
    let variants: [(&str, Serve, Deployment); 4] = [
        ("off (one replica)", serve_one, base.clone().replicas(Replication::Off)),
        ("two replicas, fixed (rule)", serve_two, base.clone().replicas(two)),
        ("elastic (follows the load)", serve_elastic, base.clone().replicas(Replication::Elastic)),
        ("elastic, p99=5ms policy", serve_p99, base.clone().replicas(Replication::Elastic).scaling(p99)),
    ];
    println!(
        "  work per item {} µs, SLA: p99 <= {} ms per {} ms window",
        COST.as_micros(),
        SLA.as_millis(),
        WINDOW.as_millis()
    );
    println!(
        "  {:<32} {:>6} {:>9} {:>9} {:>9} {:>12}",
        "deployment", "load", "p50 ms", "p99 ms", "max ms", "windows ok"
    );
    let mut lines = Vec::new();
    let load = Schedule { steps: &STEPS, step_secs: STEP_SECS, rate_one };
    for (name, serve, d) in variants {
        let crate::elastic_load::LoadRun { steps, report, .. } = run(serve, d, rounds, load);
        let p99 = p99_per_window(&steps, WINDOW);
        print_steps(name, steps, load, WINDOW, SLA, f64::INFINITY);
        let node = report.nodes.iter().find(|n| n.name.contains("/handle#")).expect("handle");
        let busy: Vec<String> = node.replicas.iter().map(|r| format!("{:.0} ms", r.busy.as_secs_f64() * 1e3)).collect();
        let elastic = node
            .elastic
            .map(|e| format!("; {} changes of the open replicas, at most {} open", e.resizes, e.most_open))
            .unwrap_or_default();
        let busy = if busy.is_empty() { format!("{:.0} ms", node.busy.as_secs_f64() * 1e3) } else { busy.join(" + ") };
        let held: Vec<(f64, usize)> = match node.elastic {
            Some(_) => {
                std::iter::once((0.0, 1)).chain(node.decisions.iter().map(|d| (d.at.as_secs_f64(), d.to))).collect()
            }
            None => vec![(0.0, node.replicas.len().max(1))],
        };
        lines.push(crate::elastic_plot::Line { label: name, p99, replicas: held });
        // Cores the call held: replicas open over time (a fixed deployment
        // holds all of its replicas for the whole run).
        let wall_ms = report.wall.as_secs_f64() * 1e3;
        let held = node.elastic.map_or(node.replicas.len().max(1) as f64, |e| e.open_lane_ms as f64 / wall_ms);
        println!("  {name:<32} busy per replica: {busy}{elastic}; {held:.2} replicas held on average");
    }
    let secs = STEP_SECS * STEPS.len() as f64;
    let title = format!("p99 per {} ms window and replicas open, load stepping over {secs:.0} s", WINDOW.as_millis());
    let svg = crate::elastic_plot::svg(&lines, secs, SLA, &STEPS, &title);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/results/elastic.svg");
    match std::fs::write(path, svg) {
        Ok(()) => println!("  plot: {path}"),
        Err(e) => println!("  plot: cannot write {path}: {e}"),
    }
    println!();
}
