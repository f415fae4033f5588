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

use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use ohua::{algorithm, Deployment, Replication, SectionStrategy};

use crate::common::{header, mix, rounds_for};

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

/// A request: its sequence number and when it was sent.
type Req = (u64, Instant);

/// The stateless work: `rounds` of [`mix`].
fn handle(req: Req, rounds: u64) -> Req {
    std::hint::black_box(mix(req.0, rounds));
    req
}

/// Replies in order (the state every request passes).
struct Replies(Sender<Req>);

impl Replies {
    fn new(tx: Sender<Req>) -> Self {
        Replies(tx)
    }

    fn send(&mut self, r: Req) {
        let _ = self.0.send(r);
    }
}

/// The service: one copy per deployment, so that each run is its graph's
/// first in the process (what a service is: one long run).
macro_rules! service {
    ($name:ident) => {
        #[algorithm]
        fn $name(rx: Receiver<Req>, tx: Sender<Req>, rounds: u64) -> u64 {
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

type Serve = fn(Receiver<Req>, Sender<Req>, u64) -> u64;

/// Latencies per step of one deployment's run, and its run report.
fn run(serve: Serve, d: Deployment, rounds: u64, rate_one: f64) -> (Vec<Vec<(Instant, Duration)>>, ohua::RunReport) {
    let (req_tx, req_rx) = std::sync::mpsc::channel::<Req>();
    let (rep_tx, rep_rx) = std::sync::mpsc::channel::<Req>();
    let server = std::thread::spawn(move || {
        let (_, reports) = ohua::profile(|| ohua::with_deployment(d, || serve(req_rx, rep_tx, rounds)));
        reports.into_iter().next().expect("one run")
    });
    let collector = std::thread::spawn(move || {
        let mut got = Vec::new();
        for (id, sent) in rep_rx {
            got.push((id, sent, sent.elapsed()));
        }
        got
    });
    // Open loop: item i of a step is due at i / rate, whatever the replies.
    // The generator sleeps 0.5 ms at a time and then sends every item that
    // is due, stamped with its due time, so its latency counts from when
    // it was due (no coordinated omission) and the generator does not take
    // a core of the two by spinning.
    let mut bounds = Vec::new();
    let mut id = 0;
    for share in STEPS {
        let rate = share * rate_one;
        let start = Instant::now();
        bounds.push(id);
        let n = (rate * STEP_SECS) as u64;
        let mut i = 0;
        while i < n {
            std::thread::sleep(Duration::from_micros(500));
            let now = Instant::now();
            while i < n {
                let due = start + Duration::from_secs_f64(i as f64 / rate);
                if due > now {
                    break;
                }
                req_tx.send((id, due)).expect("server alive");
                id += 1;
                i += 1;
            }
        }
    }
    bounds.push(id);
    drop(req_tx);
    let report = server.join().expect("server");
    let got = collector.join().expect("collector");
    assert_eq!(got.len() as u64, id, "every request answered");
    assert!(got.iter().enumerate().all(|(i, r)| r.0 == i as u64), "replies in order");
    let steps = bounds
        .windows(2)
        .map(|b| got[b[0] as usize..b[1] as usize].iter().map(|&(_, sent, lat)| (sent, lat)).collect())
        .collect();
    (steps, report)
}

fn percentile(lat: &mut [Duration], p: f64) -> Duration {
    lat.sort();
    lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)]
}

/// Share of [`WINDOW`]s of `step` whose p99 met [`SLA`].
fn windows_met(step: &[(Instant, Duration)]) -> (usize, usize) {
    let Some(&(t0, _)) = step.first() else { return (0, 0) };
    let mut windows: Vec<Vec<Duration>> = Vec::new();
    for &(sent, lat) in step {
        let w = ((sent - t0).as_secs_f64() / WINDOW.as_secs_f64()) as usize;
        if windows.len() <= w {
            windows.resize(w + 1, Vec::new());
        }
        windows[w].push(lat);
    }
    let full: Vec<_> = windows.into_iter().filter(|w| !w.is_empty()).collect();
    let met = full.iter().filter(|w| percentile(&mut (*w).clone(), 0.99) <= SLA).count();
    (met, full.len())
}

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
    for (name, serve, d) in variants {
        let (steps, report) = run(serve, d, rounds, rate_one);
        let p99 = p99_per_window(&steps);
        for (share, mut step) in STEPS.iter().zip(steps) {
            let (met, total) = windows_met(&step);
            let mut lat: Vec<Duration> = step.drain(..).map(|(_, l)| l).collect();
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            let (p50, p99) = (percentile(&mut lat, 0.5), percentile(&mut lat, 0.99));
            let max = *lat.last().expect("items");
            println!(
                "  {name:<32} {:>5.0}% {:>9.3} {:>9.3} {:>9.3} {:>7}/{:<4}",
                share * 100.0,
                ms(p50),
                ms(p99),
                ms(max),
                met,
                total
            );
        }
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

/// The p99 of each [`WINDOW`] of the whole run, by the window's start in
/// seconds since the first item was due.
fn p99_per_window(steps: &[Vec<(Instant, Duration)>]) -> Vec<(f64, Duration)> {
    let all: Vec<(Instant, Duration)> = steps.iter().flatten().copied().collect();
    let Some(&(t0, _)) = all.first() else { return Vec::new() };
    let mut windows: Vec<Vec<Duration>> = Vec::new();
    for (sent, lat) in all {
        let w = ((sent - t0).as_secs_f64() / WINDOW.as_secs_f64()) as usize;
        if windows.len() <= w {
            windows.resize(w + 1, Vec::new());
        }
        windows[w].push(lat);
    }
    windows
        .into_iter()
        .enumerate()
        .filter(|(_, w)| !w.is_empty())
        .map(|(k, mut w)| (k as f64 * WINDOW.as_secs_f64(), percentile(&mut w, 0.99)))
        .collect()
}
