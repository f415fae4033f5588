//! Benchmark programs for Ohua in Rust.
//!
//! Every benchmark measures its baselines in the same run and prints ratios
//! against them; each variant is run 5 times and the median is reported.
//!
//! ```text
//! cargo run --release -p ohua-bench            # all benchmarks
//! cargo run --release -p ohua-bench -- chain   # one of: chain, balanced, hop, calls, first-call, first-runs, replicate, elastic, elastic-attack, elastic-web, recut-service, snapshot, update, web-update
//! UPDATE_RATE=10000 cargo run --release -p ohua-bench -- update   # latency over a live update (update/mod.rs)
//! cargo run --release -p ohua-bench -- web-update   # the web server over live updates (web_update/mod.rs)
//! ```

// glibc's malloc serialises frees of memory another thread allocated (arena
// locks); a pipeline moves allocations between sections all the time, and the
// hand-written threaded baselines suffer the same. Every variant in this
// binary, sequential included, uses mimalloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod balanced;
mod calls;
mod chain;
mod common;
mod elastic;
mod elastic_attack;
mod elastic_load;
mod elastic_plot;
mod elastic_web;
mod first_call;
mod first_runs;
mod hop;
mod keyed_flows;
mod recut_service;
mod replicate;
mod snapshot_peers;
mod snapshot_reads;
mod update;
mod web_update;

const BENCHMARKS: &[(&str, fn())] = &[
    ("chain", chain::run),
    ("balanced", balanced::run),
    ("hop", hop::run),
    ("calls", calls::run),
    ("first-call", first_call::run),
    ("first-runs", first_runs::run),
    ("replicate", replicate::run),
    ("elastic", elastic::run_bench),
    ("elastic-attack", elastic_attack::run_bench),
    ("elastic-web", elastic_web::run_bench),
    ("recut-service", recut_service::run_bench),
    ("snapshot", snapshot_reads::run),
    ("update", update::run),
    ("web-update", web_update::run),
];

fn main() {
    let selected: Vec<String> = std::env::args().skip(1).collect();
    for name in &selected {
        if !BENCHMARKS.iter().any(|(n, _)| n == name) {
            let names: Vec<&str> = BENCHMARKS.iter().map(|(n, _)| *n).collect();
            eprintln!("unknown benchmark `{name}`; expected one of: {}", names.join(", "));
            std::process::exit(2);
        }
    }
    for (name, run) in BENCHMARKS {
        if selected.is_empty() || selected.iter().any(|s| s == name) {
            run();
        }
    }
}
