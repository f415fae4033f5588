//! The cluster demo: the same stage on 1, 2 or 3 processes, checked
//! against sequential execution by the caller.
//!
//! ```text
//! cluster-demo --local 3 squares 20000      # starts 3 local processes of itself
//! OHUA_CLUSTER_PROCESSES=3 OHUA_CLUSTER_INDEX=1 cluster-demo squares 20000   # one process by hand
//! ```
//!
//! Stages (every process runs the same one):
//! - `squares N`: a stateless, CPU-heavy map, dealt round robin;
//! - `keyed N`: a counter per key (`x % 13`), every key's items on one
//!   worker: each result is the item's work plus its key's count after it,
//!   so any lost, doubled or reordered item changes it;
//! - `light N`: a handler that does nothing (`x + round`): what the stage
//!   itself costs per item, the caller's feeding, ordering and the bytes;
//! - `slow N`: `squares` at 5 ms per item (the tests kill a process in it);
//! - `panic N`: the handler panics at item N / 2 (made odd: on 2
//!   processes of one worker, process 1 handles it).
//!
//! The caller prints `ok ...` and exits 0 when the results equal the
//! sequential ones; any process prints `error: ...` and exits 1 on an
//! error, 2 on results that differ.

use std::collections::HashMap;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Parser, ValueEnum};
use ohua_cluster::{Cluster, ClusterConfig, Items, LocalCluster, Route, StageReport};

#[derive(Parser, Debug)]
#[command(about = "A stage on a cluster of processes (ohua-cluster), checked against sequential execution")]
struct Args {
    /// Start this many local processes of this program (loopback ports)
    /// and wait for them, instead of being one.
    #[arg(long)]
    local: Option<usize>,
    /// Pin process i to CPU i (`taskset`), with `--local`.
    #[arg(long)]
    pin: bool,
    /// Run the stage's work sequentially in this process, no cluster: the
    /// baseline of `cluster-bench`.
    #[arg(long)]
    sequential: bool,
    /// Which stage to run.
    #[arg(value_enum)]
    stage: Stage,
    /// How many items the caller sends.
    items: u64,
    /// Run the stage this many times on one cluster (formed once).
    #[arg(long, default_value_t = 1)]
    rounds: u64,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Stage {
    Light,
    Squares,
    Keyed,
    Slow,
    Panic,
}

const KEYS: u64 = 13;

/// About 20 µs of arithmetic per item in a release build (`black_box`
/// keeps the optimiser from folding the loop).
fn heavy(x: u64) -> u64 {
    let mut h = x;
    for _ in 0..5_000 {
        h = std::hint::black_box(h.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407));
    }
    h
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if let Some(n) = args.local {
        return launch(n, args);
    }
    let n = args.items;
    if args.sequential {
        let started = Instant::now();
        let results: Vec<u64> = match args.stage {
            Stage::Keyed => keyed_sequential(n),
            Stage::Light => (0..n).map(std::hint::black_box).collect(),
            _ => (0..n).map(heavy).collect(),
        };
        std::hint::black_box(results);
        println!("stats process=0 round=0 items={n} handled={n} formed_ms=0 run_ms={:.3}", ms(started.elapsed()));
        return Ok(ExitCode::SUCCESS);
    }
    let config = ClusterConfig::from_env()?;
    let started = Instant::now();
    // One cluster for every round: forming it costs about a second.
    let cluster = Cluster::form(&config)?;
    for round in 0..args.rounds {
        let (got, expected, report) = one_round(&cluster, args.stage, n, round)?;
        println!(
            "stats process={} round={round} items={} handled={} formed_ms={:.3} run_ms={:.3}",
            config.index(),
            report.items,
            report.handled,
            ms(report.formed_after),
            ms(report.ran_for),
        );
        if !config.is_caller() {
            continue;
        }
        if got != expected {
            let first = got.iter().zip(&expected).position(|(a, b)| a != b);
            println!(
                "differs from sequential execution in round {round}: {} results, {} expected, first difference at {first:?}",
                got.len(),
                expected.len()
            );
            return Ok(ExitCode::from(2));
        }
    }
    let elapsed = started.elapsed();
    // timely's send threads log what they sent in batches, the last when
    // they end: the count is whole once the cluster is closed.
    drop(cluster);
    println!("traffic process={} bytes_sent={}", config.index(), ohua_cluster::bytes_sent());
    if !config.is_caller() {
        println!("process {}: {} round(s) in {elapsed:.2?}", config.index(), args.rounds);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "ok {:?}: {} results equal sequential execution in each of {} round(s) on {} process(es) in {elapsed:.2?}",
        args.stage,
        n,
        args.rounds,
        config.processes(),
    );
    Ok(ExitCode::SUCCESS)
}

/// One stage on `cluster`: the results (on the caller), the sequential
/// results, and the report. Round `r` adds `r` to every result, so that a
/// round that returned an earlier round's results would differ.
fn one_round(cluster: &Cluster, stage: Stage, n: u64, round: u64) -> anyhow::Result<(Vec<u64>, Vec<u64>, StageReport)> {
    let caller = cluster.config().is_caller();
    let items = Items::Ready(if caller { 0..n } else { 0..0 });
    let (out, sink) = collector();
    match stage {
        Stage::Light => {
            let report =
                cluster.run_stage(items, Route::RoundRobin, move |_| move |x: u64| x.wrapping_add(round), sink)?;
            Ok((take(&out), (0..n).map(|x| x.wrapping_add(round)).collect(), report))
        }
        Stage::Squares | Stage::Slow | Stage::Panic => {
            let f = move |x: u64| {
                if matches!(stage, Stage::Slow) {
                    std::thread::sleep(Duration::from_millis(5));
                }
                if matches!(stage, Stage::Panic) && x == (n / 2) | 1 {
                    panic!("item {x} is refused");
                }
                heavy(x).wrapping_add(round)
            };
            let report = cluster.run_stage(items, Route::RoundRobin, move |_| f, sink)?;
            Ok((take(&out), (0..n).map(|x| heavy(x).wrapping_add(round)).collect(), report))
        }
        Stage::Keyed => {
            // A fresh counter per stage, on the worker that owns the key.
            let counter = move |_worker| {
                let mut counts: HashMap<u64, u64> = HashMap::new();
                move |x: u64| {
                    let c = counts.entry(x % KEYS).or_default();
                    *c += 1;
                    heavy(x).wrapping_add(*c).wrapping_add(round)
                }
            };
            let report = cluster.run_stage(items, Route::by_key(|x: &u64| x % KEYS), counter, sink)?;
            let expected = keyed_sequential(n).into_iter().map(|y| y.wrapping_add(round)).collect();
            Ok((take(&out), expected, report))
        }
    }
}

/// Each item's result in the keyed stage, computed sequentially.
fn keyed_sequential(n: u64) -> Vec<u64> {
    let mut counts: HashMap<u64, u64> = HashMap::new();
    (0..n)
        .map(|x| {
            let c = counts.entry(x % KEYS).or_default();
            *c += 1;
            heavy(x).wrapping_add(*c)
        })
        .collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

type Shared = std::sync::Arc<std::sync::Mutex<Vec<u64>>>;

fn collector() -> (Shared, impl FnMut(u64) + Send + 'static) {
    let out: Shared = Shared::default();
    let sink = {
        let out = out.clone();
        move |y| out.lock().expect("results").push(y)
    };
    (out, sink)
}

fn take(out: &Shared) -> Vec<u64> {
    std::mem::take(&mut *out.lock().expect("results"))
}

/// `--local N`: this program N times, one per process, on loopback.
fn launch(n: usize, args: &Args) -> anyhow::Result<ExitCode> {
    let me = std::env::current_exe().context("this program's path")?;
    let stage = format!("{:?}", args.stage).to_lowercase();
    let items = args.items.to_string();
    let rounds = args.rounds.to_string();
    let pin = args.pin;
    let mut cluster = LocalCluster::start(n, |i| {
        let mut c = if pin { Command::new("taskset") } else { Command::new(&me) };
        if pin {
            c.args(["-c", &i.to_string()]).arg(&me);
        }
        c.args(["--rounds", &rounds, &stage, &items]);
        c
    })
    .context("starting the local processes")?;
    let statuses = cluster.wait(Duration::from_secs(600))?;
    for (i, s) in statuses.iter().enumerate() {
        if !s.success() {
            eprintln!("process {i}: {s}");
        }
    }
    Ok(if statuses.iter().all(|s| s.success()) { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
