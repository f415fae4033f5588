//! `elastic-web`: the web server (`ohua_examples::web::web_server`) under
//! an open-loop HTTP load stepping 30 % → 90 % → 30 % → 110 % → 30 % of
//! one core's capacity (issue 23's second load-step benchmark, beside
//! `elastic-attack`).
//!
//! One core's capacity is measured first, in the same run: the sequential
//! server (`ohua::sequential`, one thread) under a closed loop. Then every
//! deployment serves the same stepped load over keep-alive connections
//! (`web_update/client.rs`: requests due at fixed times, latency from the
//! due time, every body checked byte for byte): one replica, two fixed
//! replicas of the stateless calls (a rule), and `replicas = "elastic"`
//! with the throughput, `p99=` and `request-p99=` policies. Per deployment:
//! p50/p99/max and the 1-second windows whose p99 met the SLA per step,
//! the cores the process used per step (the client included), and the
//! decisions of its elastic operators per step.

use std::time::{Duration, Instant};

use ohua::deploy::{Replication, RequestGoal, Scaling};
use ohua::{Deployment, SectionStrategy};
use ohua_examples::web::{start, Limits, Root, Run, Variant};

use crate::common::header;
use crate::elastic_load::{cpu_secs, Schedule, Sla, Steps, Tally};
use crate::web_update::client::{drive, Collected, Content, Mode};

/// Shares of one core's capacity, in turn.
const STEPS: [f64; 5] = [0.3, 0.9, 0.3, 1.1, 0.3];
/// Seconds per step.
const STEP_SECS: f64 = 3.0;
/// The SLA: p99 per window.
const SLA: Duration = Duration::from_millis(5);
/// The window the SLA is checked over.
const WINDOW: Duration = Duration::from_secs(1);
/// Steps at or above this share are the overload step.
const OVERLOAD: f64 = 1.0;
/// Keep-alive connections: enough for the requests in flight at 110 %.
const CONNECTIONS: usize = 64;

/// Requests per second the sequential server answers in a closed loop.
fn capacity(root: &Root, content: &Content) -> f64 {
    let server = start(
        "127.0.0.1:0".parse().expect("an address"),
        root.clone(),
        Limits::default(),
        Variant::Plain,
        Run::Sequential,
    )
    .expect("elastic-web: the sequential server");
    let length = Duration::from_secs(2);
    let c = drive(server.addr, content, 8, Mode::Closed { length }, Instant::now(), Duration::from_secs(5))
        .expect("elastic-web: the client");
    server.stop();
    assert_eq!(c.wrong, 0, "elastic-web: wrong responses: {:?}", c.problems);
    c.done.iter().filter(|&&d| d != u64::MAX).count() as f64 / length.as_secs_f64()
}

/// One deployment under the stepped load: each step's requests as (due,
/// latency from due), the cores per step, the run's report.
fn run(d: Deployment, root: &Root, content: &Content, rates: &'static [f64]) -> (Steps, Vec<f64>, ohua::RunReport) {
    let server = start(
        "127.0.0.1:0".parse().expect("an address"),
        root.clone(),
        Limits::default(),
        Variant::Plain,
        Run::Deployed(d),
    )
    .expect("elastic-web: the server");
    let mode = Mode::Stepped { rates, secs: STEP_SECS };
    let at = Instant::now() + Duration::from_millis(50);
    let (c, cores) = std::thread::scope(|s| {
        let client = s.spawn(|| drive(server.addr, content, CONNECTIONS, mode, at, Duration::from_secs(10)));
        // The process's CPU time at every step's bounds.
        let mut cores = Vec::new();
        std::thread::sleep(at.saturating_duration_since(Instant::now()));
        for k in 1..=rates.len() {
            let cpu = cpu_secs();
            std::thread::sleep(
                (at + Duration::from_secs_f64(k as f64 * STEP_SECS)).saturating_duration_since(Instant::now()),
            );
            cores.push((cpu_secs() - cpu) / STEP_SECS);
        }
        (client.join().expect("the client").expect("elastic-web: the client"), cores)
    });
    server.shutdown_handle().stop();
    let (_, report) = server.join_with_report();
    check(&c);
    (steps_of(&c, mode, at, rates.len()), cores, report.expect("a report of the deployed run"))
}

/// Every request answered, every body right.
fn check(c: &Collected) {
    assert_eq!(c.wrong, 0, "elastic-web: wrong responses: {:?}", c.problems);
    assert_eq!(c.lost(), 0, "elastic-web: requests without a response: {:?}", c.problems);
}

/// The requests of each step, as (when due, latency from due).
fn steps_of(c: &Collected, mode: Mode, at: Instant, steps: usize) -> Steps {
    let mut out: Steps = vec![Vec::new(); steps];
    for (i, &done) in c.done.iter().enumerate() {
        let due = mode.due(i as u64).expect("a due time per request sent");
        let step = ((due as f64 / 1e9 / STEP_SECS) as usize).min(steps - 1);
        out[step].push((at + Duration::from_nanos(due), Duration::from_nanos(done.saturating_sub(due))));
    }
    out
}

pub fn run_bench() {
    header("elastic-web", "the web server, open-loop load stepping 30 % -> 90 % -> 30 % -> 110 % -> 30 % of one core");
    let dir = tempfile::tempdir().expect("elastic-web: a temporary directory");
    let content = Content::generate(dir.path(), 64, 4096).expect("elastic-web: the document root");
    let root = Root::new(dir.path(), false).expect("elastic-web: the root");
    // The page cache holds the files; the sequential server's rate is one core's.
    capacity(&root, &content);
    let rate_one = capacity(&root, &content);
    let rates: &'static [f64] = Box::leak(STEPS.iter().map(|s| s * rate_one).collect::<Vec<f64>>().into_boxed_slice());
    let load = Schedule { steps: &STEPS, step_secs: STEP_SECS, rate_one };
    println!(
        "  one core (the sequential server, closed loop): {rate_one:.0} requests/s; 64 files of 4 KiB; SLA: p99 <= {} ms per {} s window; {STEP_SECS} s per step",
        SLA.as_millis(),
        WINDOW.as_secs()
    );
    let base = Deployment::default().workers(2).sections(SectionStrategy::Auto);
    let elastic = base.clone().replicas(Replication::Elastic);
    let two: Replication = "web_server/(read|parse|compose|reply)#.*=2".parse().expect("valid rule");
    let variants: [(&str, Deployment, bool); 5] = [
        ("off (one replica)", base.clone().replicas(Replication::Off), true),
        ("two replicas, fixed (rule)", base.clone().replicas(two), true),
        ("elastic, throughput", elastic.clone(), false),
        ("elastic, p99=5ms per operator", elastic.clone().scaling(Scaling::p99(SLA)), false),
        ("elastic, request-p99=5ms", elastic.clone().scaling(Scaling::request(RequestGoal::new(SLA))), false),
    ];
    let mut tally = Tally::new(load, Sla { sla: SLA, window: WINDOW, overload: OVERLOAD });
    for (name, d, is_fixed) in variants {
        let (steps, cores, report) = run(d, &root, &content, rates);
        tally.record(name, is_fixed, steps, cores, &report);
    }
    tally.finish();
}
