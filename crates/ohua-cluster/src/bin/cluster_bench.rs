//! Scale-out of a stage on this machine (issue 25's benchmark, for the
//! stage alone): `cluster-demo` run sequentially, on 1 process and on 2
//! processes, each process pinned to a core of its own (`taskset`), the
//! variants alternating round by round. Prints the medians, the ratios
//! against the baselines measured in the same run, and the bytes sent per
//! item.
//!
//! ```text
//! cargo build --release -p ohua-cluster --bins
//! target/release/cluster-bench --items 50000 --rounds 5
//! ```
//!
//! Times are the caller's, from the moment every process had connected to
//! the last result (timely's connection set-up, about a second, is left
//! out and reported apart).

use std::process::Command;

use anyhow::{bail, Context};
use clap::Parser;

#[derive(Parser, Debug)]
#[command(about = "Scale-out of a cluster stage: sequential, 1 and 2 pinned processes")]
struct Args {
    /// Items per run.
    #[arg(long, default_value_t = 50_000)]
    items: u64,
    /// Rounds; each runs every variant once.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
}

/// What one run's `stats` lines said.
#[derive(Debug, Default, Clone)]
struct Run {
    caller_ms: f64,
    formed_ms: f64,
    bytes_sent: u64,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let demo = std::env::current_exe()?.with_file_name("cluster-demo");
    if !demo.exists() {
        bail!("{} not found: build with `cargo build --release -p ohua-cluster --bins`", demo.display());
    }
    let pinned = Command::new("taskset").arg("-c").arg("0").arg("true").status().is_ok_and(|s| s.success());
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("# cluster-bench: {} items, {} rounds, {cpus} CPUs, pinned: {pinned}", args.items, args.rounds);
    for stage in ["squares", "keyed", "light"] {
        let mut seq = Vec::new();
        let mut one = Vec::new();
        let mut two = Vec::new();
        for _ in 0..args.rounds {
            seq.push(run(&demo, stage, args.items, None, pinned)?);
            one.push(run(&demo, stage, args.items, Some(1), pinned)?);
            two.push(run(&demo, stage, args.items, Some(2), pinned)?);
        }
        let (s, o, t) = (median(&seq), median(&one), median(&two));
        let bytes: u64 = two.iter().map(|r| r.bytes_sent).sum::<u64>() / two.len() as u64;
        println!("## {stage}");
        println!("| variant | median ms | runs (ms) |");
        println!("|---|---|---|");
        for (name, runs, m) in
            [("sequential, 1 core", &seq, s), ("1 process, 1 core", &one, o), ("2 processes, 1 core each", &two, t)]
        {
            let all: Vec<String> = runs.iter().map(|r| format!("{:.1}", r.caller_ms)).collect();
            println!("| {name} | {m:.1} | {} |", all.join(", "));
        }
        println!("2 processes / 1 process: {:.2}x throughput (target >= 1.7x)", o / t);
        println!("2 processes / sequential: {:.2}x throughput", s / t);
        println!("1 process / sequential: {:.2}x time (the stage's own cost)", o / s);
        println!(
            "bytes sent per item, both processes (data, results, progress, heartbeats): {:.1}",
            bytes as f64 / args.items as f64
        );
        let formed: Vec<f64> = two.iter().map(|r| r.formed_ms).collect();
        println!("cluster set-up (timely's connections), caller: {formed:.0?} ms");
        println!(
            "per item: sequential {:.3} µs, 1 process {:.3} µs, 2 processes {:.3} µs (caller's wall time / items)",
            s * 1e3 / args.items as f64,
            o * 1e3 / args.items as f64,
            t * 1e3 / args.items as f64
        );
    }
    Ok(())
}

/// Runs `cluster-demo` once: sequentially (`processes` None) or on that
/// many local processes, pinned to cores 0, 1, … if `pin`.
fn run(demo: &std::path::Path, stage: &str, items: u64, processes: Option<usize>, pin: bool) -> anyhow::Result<Run> {
    let mut c = if pin && processes.is_none() {
        let mut c = Command::new("taskset");
        c.args(["-c", "0"]).arg(demo);
        c
    } else {
        Command::new(demo)
    };
    match processes {
        None => c.arg("--sequential"),
        Some(n) => c.args(["--local", &n.to_string()]),
    };
    if pin && processes.is_some() {
        c.arg("--pin");
    }
    c.args([stage, &items.to_string()]);
    let out = c.output().context("running cluster-demo")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || (processes.is_some() && !stdout.contains("ok ")) {
        bail!("cluster-demo {stage} on {processes:?} failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    }
    let mut r = Run::default();
    for line in stdout.lines().filter(|l| l.starts_with("stats ") || l.starts_with("traffic ")) {
        let field = |name: &str| -> f64 {
            line.split_whitespace().find_map(|w| w.strip_prefix(name)?.strip_prefix('=')?.parse().ok()).unwrap_or(0.0)
        };
        r.bytes_sent += field("bytes_sent") as u64;
        if line.starts_with("stats ") && field("process") == 0.0 {
            r.caller_ms = field("run_ms");
            r.formed_ms = field("formed_ms");
        }
    }
    Ok(r)
}

fn median(runs: &[Run]) -> f64 {
    let mut ms: Vec<f64> = runs.iter().map(|r| r.caller_ms).collect();
    ms.sort_by(f64::total_cmp);
    ms[ms.len() / 2]
}
