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
use ohua_cluster::{run_stage, ClusterConfig, Items, LocalCluster, Route};

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
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Stage {
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
            _ => (0..n).map(heavy).collect(),
        };
        std::hint::black_box(results);
        println!("stats process=0 items={n} handled={n} formed_ms=0 run_ms={:.3} bytes_sent=0", ms(started.elapsed()));
        return Ok(ExitCode::SUCCESS);
    }
    let config = ClusterConfig::from_env()?;
    let started = Instant::now();
    let (got, expected, report) = match args.stage {
        Stage::Squares | Stage::Slow | Stage::Panic => {
            let stage = args.stage;
            let f = move |x: u64| {
                if matches!(stage, Stage::Slow) {
                    std::thread::sleep(Duration::from_millis(5));
                }
                if matches!(stage, Stage::Panic) && x == (n / 2) | 1 {
                    panic!("item {x} is refused");
                }
                heavy(x)
            };
            let (out, sink) = collector();
            let items: Vec<u64> = if config.is_caller() { (0..n).collect() } else { Vec::new() };
            let report = run_stage(&config, Items::Ready(items.into_iter()), Route::RoundRobin, move |_| f, sink)?;
            (take(&out), (0..n).map(heavy).collect::<Vec<_>>(), report)
        }
        Stage::Keyed => {
            let (out, sink) = collector();
            let items: Vec<u64> = if config.is_caller() { (0..n).collect() } else { Vec::new() };
            let counter = |_worker| {
                let mut counts: HashMap<u64, u64> = HashMap::new();
                move |x: u64| {
                    let c = counts.entry(x % KEYS).or_default();
                    *c += 1;
                    heavy(x).wrapping_add(*c)
                }
            };
            let report =
                run_stage(&config, Items::Ready(items.into_iter()), Route::by_key(|x: &u64| x % KEYS), counter, sink)?;
            (take(&out), keyed_sequential(n), report)
        }
    };
    let elapsed = started.elapsed();
    println!(
        "stats process={} items={} handled={} formed_ms={:.3} run_ms={:.3} bytes_sent={}",
        config.index(),
        report.items,
        report.handled,
        ms(report.formed_after),
        ms(report.ran_for),
        ohua_cluster::bytes_sent()
    );
    if !config.is_caller() {
        println!("process {}: handled {} items in {elapsed:.2?}", config.index(), report.handled);
        return Ok(ExitCode::SUCCESS);
    }
    if got != expected {
        let first = got.iter().zip(&expected).position(|(a, b)| a != b);
        println!(
            "differs from sequential execution: {} results, {} expected, first difference at {first:?}",
            got.len(),
            expected.len()
        );
        return Ok(ExitCode::from(2));
    }
    println!(
        "ok {:?}: {} results equal sequential execution on {} process(es) in {elapsed:.2?}; the caller's workers handled {}",
        args.stage,
        got.len(),
        config.processes(),
        report.handled
    );
    Ok(ExitCode::SUCCESS)
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
    let pin = args.pin;
    let mut cluster = LocalCluster::start(n, |i| {
        let mut c = if pin { Command::new("taskset") } else { Command::new(&me) };
        if pin {
            c.args(["-c", &i.to_string()]).arg(&me);
        }
        c.args([&stage, &items]);
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
