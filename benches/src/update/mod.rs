//! `update`: latency of a running service over a change of version (issue
//! 13, "Benchmark"): a live update against draining and restarting.
//!
//! An open-loop client sends requests at a constant rate (`UPDATE_RATE`,
//! default 20,000/s) through a gate to a server written as an algorithm
//! (`server.rs`, ~15 µs of CPU work per request). At `UPDATE_AT` (1.0 s)
//! into a run of `UPDATE_SECS` (3 s), each variant moves the server to
//! version 2 in its own way (`run.rs`): a no-op marker (the baseline), a
//! live update (`Service::update`), drain-and-swap, restart. Every variant is
//! a fresh run, `UPDATE_ROUNDS` (5) rounds of all four; the table gives the
//! median over rounds, the plot (`UPDATE_SVG`) the median p99 and max per
//! 100 ms window.
//!
//! `UPDATE_SHAPE=io` runs the I/O-bound shape instead (`backend.rs`): a
//! fetch per request from a backend that answers each batch after 2 ms.
//! `UPDATE_SHAPE=tail` the heavy-tailed one (`tail.rs`): 1 request in 171
//! waits 10-76 ms for a slow backend query, without holding up the others.
//! `UPDATE_SHAPE=state` the stateful one (`stateful.rs`): the cache used by
//! two statements of the loop, which then carries it from request to request.

mod backend;
mod load;
pub(crate) mod plot;
mod report;
mod run;
mod server;
mod stateful;
pub(crate) mod stats;
mod tail;

use std::time::Duration;

use backend::Shape;
use run::{Plan, Variant};
use stats::{median, Summary, Window};

/// A setting from the environment, or `default`.
fn setting<T: std::str::FromStr>(name: &str, default: T) -> T {
    crate::common::setting("update", name, default)
}

fn ms(us: u64) -> String {
    format!("{:.2}", us as f64 / 1e3)
}

/// Prints how the default deployment runs the server (after the warm-up,
/// so it is planned from measured costs, as in every variant).
fn describe(shape: Shape) {
    let (reply_tx, _replies) = std::sync::mpsc::channel();
    let requests = (0..2_000).map(|id| server::Request { id, key: id % server::KEYS }).collect();
    let r = shape.profile(requests, reply_tx);
    let replicated: Vec<String> = r
        .nodes
        .iter()
        .filter(|n| !n.replicas.is_empty())
        .map(|n| format!("{} x{}", n.name, n.replicas.len()))
        .collect();
    let replicated = if replicated.is_empty() { "nothing".to_string() } else { replicated.join(", ") };
    println!("deploy  : default (auto): {} section(s), replicates {replicated}", r.sections);
}

/// The environment variables this benchmark reads, as `NAME=value ` for
/// the ones that are set (for the header's command line).
fn settings_given() -> String {
    const NAMES: [&str; 7] =
        ["UPDATE_SHAPE", "UPDATE_RATE", "UPDATE_SECS", "UPDATE_AT", "UPDATE_ROUNDS", "UPDATE_SVG", "OHUA_ARC_CAPACITY"];
    NAMES.iter().filter_map(|n| std::env::var(n).ok().map(|v| format!("{n}={v} "))).collect()
}

/// The header: the shared one's machine lines (`common::header`), but what
/// this benchmark runs (rounds of four variants, not repeated timings) and
/// the machine's load when it starts.
fn header(rounds: usize) {
    println!("== update: latency over a version change: live update vs drain-and-swap vs restart");
    println!("command : {}cargo run --release -p ohua-bench -- update", settings_given());
    crate::common::machine();
    let loadavg = std::fs::read_to_string("/proc/loadavg").ok();
    let loadavg: Vec<&str> = loadavg.as_deref().map_or(Vec::new(), |l| l.split_whitespace().take(3).collect());
    println!("machine : load average {} (1, 5, 15 min, /proc/loadavg) at the start", loadavg.join(", "));
    println!(
        "runs    : {rounds} rounds of the four variants, each variant once per round on a fresh service ({} s of load, the same request sequence for all four, another one each round); the table gives medians over rounds (lost, dup, mismatched: sums), the plot medians per window",
        setting("UPDATE_SECS", 3.0)
    );
}

/// Runs the benchmark.
pub fn run() {
    let rounds: usize = setting("UPDATE_ROUNDS", 5);
    header(rounds);
    let plan = Plan {
        rate: setting("UPDATE_RATE", 20_000.0),
        length: Duration::from_secs_f64(setting("UPDATE_SECS", 3.0)),
        update_at: Duration::from_secs_f64(setting("UPDATE_AT", 1.0)),
    };
    let shape = match setting("UPDATE_SHAPE", "cpu".to_string()).as_str() {
        "cpu" => Shape::Cpu,
        "io" => Shape::Io,
        "tail" => Shape::Tail,
        "state" => Shape::State,
        other => panic!("update: UPDATE_SHAPE={other}: expected cpu, io, tail or state"),
    };
    let results_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/results");
    let default_svg = match shape {
        Shape::Cpu => format!("{results_dir}/update-latency.svg"),
        Shape::Io => format!("{results_dir}/update-latency-io.svg"),
        Shape::Tail => format!("{results_dir}/update-latency-tail.svg"),
        Shape::State => format!("{results_dir}/update-latency-state.svg"),
    };
    let svg_path: String = setting("UPDATE_SVG", default_svg);
    server::calibrate();
    // Both versions run once first, so every measured run is planned from measured costs.
    let warm = Plan { length: Duration::from_millis(600), update_at: Duration::from_millis(300), ..plan };
    run::run(Variant::Restart, &warm, shape, 0);
    let capacity = load::capacity(40_000, shape);
    describe(shape);
    println!(
        "load    : {} requests/s open loop for {:?}, update at {:?}; {:?} of CPU work per request",
        plan.rate,
        plan.length,
        plan.update_at,
        server::work_per_request()
    );
    if shape == Shape::Io {
        let in_flight = plan.rate * backend::LATENCY.as_secs_f64();
        println!(
            "shape   : io: each request first fetches a row from a backend that answers a batch after {:?} ({in_flight:.0} requests in flight if each went out at once)",
            backend::LATENCY
        );
        println!("io trace: {}", backend::trace(plan.rate, Duration::from_secs(1)));
    } else if shape == Shape::Tail {
        println!("shape   : {}", tail::describe());
    } else if shape == Shape::State {
        println!(
            "shape   : state: the cpu shape with the cache used by two statements (lookup, note), carried by the loop"
        );
    } else {
        println!("shape   : cpu: no I/O (UPDATE_SHAPE=io for a backend fetch per request, tail for slow requests)");
    }
    println!(
        "capacity: {capacity:.0} requests/s when fed in one burst, so the rate is {:.0} % of it",
        100.0 * plan.rate / capacity
    );
    println!();

    let mut results: Vec<Vec<(Summary, Vec<Window>)>> = vec![Vec::new(); Variant::ALL.len()];
    for round in 1..=rounds {
        for (k, &variant) in Variant::ALL.iter().enumerate() {
            let outcome = run::run(variant, &plan, shape, round as u64 - 1);
            let ws = stats::windows(&outcome, &plan);
            let s = stats::summarize(&outcome, &ws, &plan);
            let first = s.first_v2.map_or("-".to_string(), |us| format!("{} ms", ms(us)));
            let cpu = outcome.cpu.map_or("-".to_string(), |c| format!("{:.0} %", c * 100.0));
            println!(
                "round {round} {:<15} cpu {cpu:>4}, action took {:>7.3} ms, first v2 reply {first} after the update time: {}",
                variant.label(),
                outcome.took.as_secs_f64() * 1e3,
                outcome.detail
            );
            let b = outcome.backend;
            if b.calls > 0 {
                println!("  backend: {} calls, {:.1} requests per call", b.calls, b.requests as f64 / b.calls as f64);
            }
            let problems = stats::problems(variant, &s);
            if !problems.is_empty() {
                println!("  !! {}: {}", variant.label(), problems.join(", "));
            }
            results[k].push((s, ws));
        }
    }
    report::table(&results);
    report::targets(&results, shape == Shape::Tail);
    let series: Vec<plot::Series<'_>> = Variant::ALL
        .iter()
        .zip(&results)
        .map(|(v, runs)| plot::Series { label: v.label(), windows: median_windows(runs) })
        .collect();
    let title = format!(
        "{} shape: p99 and max latency per 100 ms window, {} requests/s, median of {rounds} rounds",
        shape.name(),
        plan.rate
    );
    let svg = plot::svg(&series, plan.length, plan.update_at, &title);
    if let Some(dir) = std::path::Path::new(&svg_path).parent() {
        std::fs::create_dir_all(dir).expect("update: cannot create the plot's folder");
    }
    std::fs::write(&svg_path, svg).expect("update: cannot write the plot");
    println!("plot    : {svg_path}");
}

/// Per window, the median over rounds of p50, p99 and max.
fn median_windows(runs: &[(Summary, Vec<Window>)]) -> Vec<Window> {
    let count = runs.iter().map(|r| r.1.len()).min().unwrap_or(0);
    (0..count)
        .map(|i| Window {
            p50: median(runs.iter().map(|r| r.1[i].p50).collect()),
            p99: median(runs.iter().map(|r| r.1[i].p99).collect()),
            max: median(runs.iter().map(|r| r.1[i].max).collect()),
        })
        .collect()
}
