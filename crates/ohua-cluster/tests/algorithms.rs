//! `#[ohua::algorithm(cluster)]` algorithms on a cluster of 2 and 3 real
//! processes on loopback (issue 25, third part): every process runs this
//! test binary (it starts itself, `OHUA_CLUSTER_TEST_CHILD` set), joins the
//! cluster, and calls the same algorithms under `lanes = "cluster"`; the
//! caller's distributable calls are served by every process's worker, and
//! every process gets the caller's result. Each checks that result against
//! sequential execution.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use ohua::deploy::Lanes;
use ohua::{Deployment, Replication, SectionStrategy};
use ohua_cluster::LocalCluster;
use serde::{Deserialize, Serialize};

const CHILD: &str = "OHUA_CLUSTER_TEST_CHILD";

#[path = "workloads/records.rs"]
mod records;

fn heavy(x: u64) -> u64 {
    let mut h = x;
    for _ in 0..200 + x % 300 {
        h = h.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    }
    std::hint::black_box(h);
    x * x
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Reading {
    sensor: String,
    value: i64,
}

fn parse(line: String) -> Reading {
    let (sensor, value) = line.split_once('=').unwrap_or((&line, "0"));
    Reading { sensor: sensor.to_string(), value: value.parse().unwrap_or(-1) }
}

fn score(r: Reading) -> (String, i64) {
    (r.sensor.to_uppercase(), r.value * 3)
}

#[ohua::algorithm(cluster)]
fn squares(xs: Vec<u64>) -> Vec<u64> {
    let ys: Vec<u64> = xs.into_iter().map(|x| heavy(x)).collect();
    ys
}

/// Two distributable calls in a row, the user's own type between them, and
/// a state after them.
#[ohua::algorithm(cluster)]
fn scores(lines: Vec<String>) -> (Vec<(String, i64)>, i64) {
    let mut out = Vec::new();
    let mut total = 0i64;
    for line in lines {
        let reading = parse(line);
        let (name, s) = score(reading);
        total = total + s;
        out.push((name, s));
    }
    (out, total)
}

/// A stateful desk that serves a loop over a channel: each answer sends the
/// next request, so every request waits for the program's own output (a
/// client that waits for its reply), and the state is used by two
/// statements of the loop with distributable calls before and between them.
struct Desk {
    next: Option<std::sync::mpsc::Sender<u64>>,
    left: u64,
    total: u64,
    answers: Vec<u64>,
    last: Option<std::time::Instant>,
    latencies: std::sync::Arc<std::sync::Mutex<Vec<Duration>>>,
}

impl Desk {
    fn new(next: Option<std::sync::mpsc::Sender<u64>>, requests: u64) -> Desk {
        Desk { next, left: requests, total: 0, answers: Vec::new(), last: None, latencies: Default::default() }
    }
    fn note(&mut self, y: u64) -> u64 {
        self.total = self.total.wrapping_add(y);
        self.total % 1_000
    }
    fn answer(&mut self, z: u64) {
        self.answers.push(z);
        if let Some(sent) = self.last.take() {
            self.latencies.lock().unwrap().push(sent.elapsed());
        }
        if self.left == 0 {
            self.next = None; // the loop's source ends
            return;
        }
        self.left -= 1;
        self.last = Some(std::time::Instant::now());
        if let Some(next) = &self.next {
            next.send(self.left * 7 + z % 5).expect("the loop is listening");
        }
    }
    fn finish(self) -> (Vec<u64>, u64) {
        (self.answers, self.total)
    }
}

#[ohua::algorithm(cluster)]
fn desk_loop(requests: std::sync::mpsc::Receiver<u64>, desk: Desk) -> (Vec<u64>, u64) {
    let mut desk = desk;
    for r in requests {
        let y = heavy(r);
        let t = desk.note(y);
        let z = heavy(t);
        desk.answer(z);
    }
    desk.finish()
}

/// `desk_loop` over `requests` requests, as process `index` calls it (only
/// the caller's channel carries them), and the reply latencies the desk
/// saw (for the caller).
fn serve_desk(deployment: Option<Deployment>, index: usize, requests: u64) -> ((Vec<u64>, u64), Vec<Duration>) {
    let (tx, rx) = std::sync::mpsc::channel();
    let desk = if index == 0 {
        tx.send(requests).expect("the first request");
        Desk::new(Some(tx), requests)
    } else {
        Desk::new(None, 0)
    };
    let latencies = std::sync::Arc::clone(&desk.latencies);
    let got = match deployment {
        Some(d) => ohua::with_deployment(d, || desk_loop(rx, desk)),
        None => ohua::sequential(|| desk_loop(rx, desk)),
    };
    let l = latencies.lock().unwrap().clone();
    (got, l)
}

#[ohua::algorithm(cluster)]
fn inner_sum(xs: Vec<u64>) -> u64 {
    let mut total = 0u64;
    for x in xs {
        let y = heavy(x);
        total = total.wrapping_add(y);
    }
    total
}

fn chunk(i: u64) -> Vec<u64> {
    (i * 10..i * 10 + 10).collect()
}

/// A `cluster` algorithm whose distributable statement calls another: that
/// run is nested (in the caller's section, or in the statement another
/// process serves), and the other processes are not calling it, so it
/// runs where it is.
#[ohua::algorithm(cluster)]
fn nested_sums(n: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for i in 0..n {
        let xs = chunk(i);
        let s = inner_sum(xs);
        out.push(s);
    }
    out
}

fn scale(x: u64, w: u64) -> u64 {
    heavy(x) % 1000 * w
}

/// A distributable call that reads a captured parameter, in an inner loop:
/// each item goes out with the value (every inner loop is an activation of
/// its own, whose end the remote lane hands back in order).
#[ohua::algorithm(cluster)]
fn weighted(rows: Vec<Vec<u64>>, weight: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for row in rows {
        for x in row {
            let y = scale(x, weight);
            out.push(y);
        }
    }
    out
}

fn lines(n: usize) -> Vec<String> {
    (0..n).map(|i| if i % 9 == 8 { format!("bad{i}") } else { format!("s{}={}", i % 5, i as i64 - 40) }).collect()
}

fn on_the_cluster() -> Deployment {
    Deployment::default()
        .workers(2)
        .sections(SectionStrategy::Auto)
        .replicas(".*=2".parse::<Replication>().unwrap())
        .lanes(Lanes::Cluster)
}

/// What each process does: join, run every algorithm a few times, check
/// each result against sequential execution, print what its lanes sent.
fn child() {
    let _cluster = ohua_cluster::join().expect("joins the cluster");
    let index: usize = std::env::var("OHUA_CLUSTER_INDEX").unwrap().parse().unwrap();
    for round in 0..3u64 {
        // Round 1 is longer than the lane's batches in flight many times
        // over: runs of 2,000 items or more used to stall (the lane waited
        // for room for a whole batch on its output).
        let xs: Vec<u64> = (0..[400, 5_000, 600][round as usize]).collect();
        let (ys, reports) = ohua::profile(|| ohua::with_deployment(on_the_cluster(), || squares(xs.clone())));
        assert_eq!(ys, ohua::sequential(|| squares(xs.clone())), "process {index}, round {round}");
        if index == 0 {
            let call = reports[0].nodes.iter().find(|n| n.name.contains("/heavy#")).expect("the call's statistics");
            let remote = call.encoded.map_or(0, |e| e.items / 2);
            println!("remote-items round={round} items={remote} of={}", xs.len());
        }
        let got = ohua::with_deployment(on_the_cluster(), || scores(lines(150)));
        assert_eq!(got, ohua::sequential(|| scores(lines(150))), "process {index}, round {round}");
    }
    let rows: Vec<Vec<u64>> = (0..40u64).map(|r| (r * 10..r * 10 + r % 7 * 5).collect()).collect();
    let (got, reports) = ohua::profile(|| ohua::with_deployment(on_the_cluster(), || weighted(rows.clone(), 7)));
    assert_eq!(got, ohua::sequential(|| weighted(rows.clone(), 7)), "process {index}: a captured value");
    if index == 0 {
        let call = reports[0].nodes.iter().find(|n| n.name.contains("/scale#")).expect("the call's statistics");
        println!("captured-remote-items items={}", call.encoded.map_or(0, |e| e.items / 2));
    }
    let got = ohua::with_deployment(on_the_cluster(), || nested_sums(60));
    assert_eq!(got, ohua::sequential(|| nested_sums(60)), "process {index}: nested cluster runs");
    // A stateful service fed one request at a time, each waiting for the
    // program's own reply: nothing may wait for a fuller batch.
    let want = serve_desk(None, 0, 300).0;
    let (got, latencies) = serve_desk(Some(on_the_cluster()), index, 300);
    assert_eq!(got, want, "process {index}: the desk's answers and total");
    if index == 0 {
        // The same desk in this process alone (values lanes open no stage,
        // so the others need not take part), for comparison.
        let (alone, native) = serve_desk(Some(on_the_cluster().lanes(Lanes::Values)), 0, 300);
        assert_eq!(alone, want, "the desk in the caller alone");
        let quantiles = |mut l: Vec<Duration>| {
            assert_eq!(l.len(), 300, "a reply per request");
            l.sort();
            let at = |q: f64| l[((l.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e6;
            format!("p50={:.0}us p99={:.0}us", at(0.5), at(0.99))
        };
        println!("desk-latency requests=300 cluster {} one process {}", quantiles(latencies), quantiles(native));
    }
    println!("ok process {index}");
}

fn run_cluster(n: usize) -> Vec<String> {
    let me = std::env::current_exe().expect("this test binary");
    let mut cluster = LocalCluster::start(n, |_| {
        let mut c = Command::new(&me);
        // On 3 processes each has 2 workers, which serve a statement at
        // once (`remote::Served`).
        c.args(["--exact", "algorithms_on_2_and_3_processes_equal_sequential", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .env("OHUA_CLUSTER_WORKERS", if n == 3 { "2" } else { "1" })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    })
    .expect("the processes start");
    let statuses = cluster.wait(Duration::from_secs(120)).expect("the cluster finishes within 120 s");
    let outputs: Vec<(String, String)> = (0..n)
        .map(|i| {
            let child = cluster.process(i);
            let (mut out, mut err) = (String::new(), String::new());
            child.stdout.take().expect("piped").read_to_string(&mut out).expect("stdout");
            child.stderr.take().expect("piped").read_to_string(&mut err).expect("stderr");
            (out, err)
        })
        .collect();
    for (i, status) in statuses.iter().enumerate() {
        assert!(status.success(), "process {i} of {n} failed: {:?}", outputs[i]);
        assert!(outputs[i].0.contains(&format!("ok process {i}")), "{:?}", outputs[i]);
    }
    outputs.into_iter().map(|(out, _)| out).collect()
}

#[test]
fn algorithms_on_2_and_3_processes_equal_sequential() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    for n in [2, 3] {
        let outputs = run_cluster(n);
        // The caller's lane to the cluster took items: the other processes
        // (and the caller's own worker) served them.
        let remote: Vec<u64> = outputs[0]
            .lines()
            .filter_map(|l| l.strip_prefix("remote-items "))
            .filter_map(|l| l.split_whitespace().find_map(|w| w.strip_prefix("items=")?.parse().ok()))
            .collect();
        println!("{n} processes: items the caller's lane to the cluster carried per round: {remote:?}");
        let desk = outputs[0].lines().find(|l| l.starts_with("desk-latency")).expect("the desk's reply latencies");
        println!("{n} processes: {desk}");
        assert_eq!(remote.len(), 3, "{:?}", outputs[0]);
        assert!(remote.iter().all(|&r| r > 0), "every round sent items to the cluster: {remote:?}");
        let captured =
            outputs[0].lines().find(|l| l.starts_with("captured-remote-items")).expect("the captured value's run");
        println!("{n} processes: {captured}");
        assert!(!captured.ends_with("items=0"), "a call with a captured value sent items to the cluster: {captured}");
    }
}

/// Exits this process (code 3) if it is process 1 of a cluster and `x` is
/// at least 2,000: a process that dies in the middle of a run.
fn dies_in_process_1(x: u64) -> u64 {
    if x >= 2_000 && std::env::var("OHUA_CLUSTER_INDEX").as_deref() == Ok("1") {
        std::process::exit(3);
    }
    heavy(x)
}

#[ohua::algorithm(cluster)]
fn dying(xs: Vec<u64>) -> Vec<u64> {
    let ys: Vec<u64> = xs.into_iter().map(|x| dies_in_process_1(x)).collect();
    ys
}

/// A process of a `lanes = "cluster"` run dies while serving: the caller's
/// run panics with an error that names it, which the caller catches and
/// inspects, within 10 s; the caller then closes its cluster and exits.
#[test]
fn a_process_that_dies_mid_run_fails_the_callers_run_naming_it() {
    if std::env::var_os(CHILD).is_some() {
        let cluster = ohua_cluster::join().expect("joins the cluster");
        let start = std::time::Instant::now();
        let xs: Vec<u64> = (0..20_000).collect();
        let run = std::panic::catch_unwind(|| ohua::with_deployment(on_the_cluster(), || dying(xs)));
        report_failure(start, run.map(|ys| ys.len() as u64));
        drop(cluster);
        return;
    }
    dies_in_process_1_and_the_caller_reports_it("a_process_that_dies_mid_run_fails_the_callers_run_naming_it");
}

/// A service whose loop reads requests from a channel.
#[ohua::algorithm(cluster)]
fn dying_service(requests: std::sync::mpsc::Receiver<u64>) -> u64 {
    let mut total = 0u64;
    for x in requests {
        let y = dies_in_process_1(x);
        total = total.wrapping_add(y);
    }
    total
}

/// The same failure in a service (`ohua::service`): `Service::join`
/// gives it to the caller (as the panic of the service's run).
#[test]
fn a_process_that_dies_under_a_service_fails_its_join_naming_it() {
    if std::env::var_os(CHILD).is_some() {
        let cluster = ohua_cluster::join().expect("joins the cluster");
        let start = std::time::Instant::now();
        let (tx, rx) = std::sync::mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(on_the_cluster(), || dying_service(rx)));
        for x in 0..20_000u64 {
            // The service's loop stops reading once its run failed.
            let _ = tx.send(x);
        }
        drop(tx);
        report_failure(start, std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| service.join())));
        drop(cluster);
        return;
    }
    dies_in_process_1_and_the_caller_reports_it("a_process_that_dies_under_a_service_fails_its_join_naming_it");
}

/// Panics in process 1 for `x` from 700 on.
fn panics_in_process_1(x: u64) -> u64 {
    if x >= 700 && std::env::var("OHUA_CLUSTER_INDEX").as_deref() == Ok("1") {
        panic!("item {x} is bad here");
    }
    heavy(x)
}

#[ohua::algorithm(cluster)]
fn panicking(xs: Vec<u64>) -> Vec<u64> {
    let ys: Vec<u64> = xs.into_iter().map(|x| panics_in_process_1(x)).collect();
    ys
}

/// A statement that panics where another process serves it fails the
/// run in every process, with its message; each process catches it, and
/// the next run on the same cluster works.
#[test]
fn a_run_after_a_statement_panicked_in_another_process_works() {
    if std::env::var_os(CHILD).is_some() {
        let _cluster = ohua_cluster::join().expect("joins the cluster");
        let index = std::env::var("OHUA_CLUSTER_INDEX").unwrap_or_default();
        let xs: Vec<u64> = (0..5_000).collect();
        let run = std::panic::catch_unwind(|| ohua::with_deployment(on_the_cluster(), || panicking(xs.clone())));
        let message = match run {
            Ok(ys) => format!("no failure: {} results", ys.len()),
            Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_else(|| "a non-string panic".into()),
        };
        println!("process {index} first run: {message:?}");
        let again = ohua::with_deployment(on_the_cluster(), || squares(xs.clone()));
        assert_eq!(again, ohua::sequential(|| squares(xs.clone())));
        println!("ok process {index}");
        return;
    }
    let (statuses, outs) = two_processes("a_run_after_a_statement_panicked_in_another_process_works");
    let statuses = statuses.unwrap_or_else(|e| panic!("{e}: {}", outs.join("\n----\n")));
    assert!(statuses.iter().all(|s| s.success()), "{statuses:?}: {}", outs.join("\n----\n"));
    let first = |i: usize| outs[i].lines().find(|l| l.contains(" first run: ")).unwrap_or_default().to_string();
    println!("{}\n{}", first(0), first(1));
    assert!(first(0).contains("a statement served by another process panicked: item"), "{}", first(0));
    assert!(first(0).contains("is bad here"), "{}", first(0));
    assert!(first(1).contains("the caller's run failed") && first(1).contains("is bad here"), "{}", first(1));
    assert!(outs[0].contains("ok process 0") && outs[1].contains("ok process 1"), "the second run on the same cluster");
}

/// What the caller of a failed run prints for the test to read.
fn report_failure(start: std::time::Instant, run: std::thread::Result<u64>) {
    let message = match run {
        Ok(n) => format!("no failure: {n}"),
        Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_else(|| "a non-string panic".into()),
    };
    println!("failed-after-ms={} message={message:?}", start.elapsed().as_millis());
}

/// Runs this binary's test `name` as a cluster of 2 processes (for at
/// most 60 s) and gives their statuses and each one's output (stdout,
/// then stderr).
fn two_processes(name: &str) -> (std::io::Result<Vec<std::process::ExitStatus>>, Vec<String>) {
    let me = std::env::current_exe().expect("this test binary");
    let mut cluster = LocalCluster::start(2, |_| {
        let mut c = Command::new(&me);
        c.args(["--exact", name, "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    })
    .expect("the processes start");
    let statuses = cluster.wait(Duration::from_secs(60));
    let outs = (0..2)
        .map(|i| {
            let (mut out, mut err) = (String::new(), String::new());
            let _ = cluster.process(i).stdout.take().map(|mut s| s.read_to_string(&mut out));
            let _ = cluster.process(i).stderr.take().map(|mut s| s.read_to_string(&mut err));
            format!("{out}{err}")
        })
        .collect();
    (statuses, outs)
}

/// Runs this binary's test `name` as 2 processes, of which process 1 dies
/// (`dies_in_process_1`), and checks that process 0 caught an error
/// naming it within 10 s and ended normally.
fn dies_in_process_1_and_the_caller_reports_it(name: &str) {
    let (statuses, outs) = two_processes(name);
    let statuses = statuses.expect("both processes end within 60 s");
    let out = &outs[0];
    assert_eq!(statuses[1].code(), Some(3), "process 1 died as the test made it");
    assert!(statuses[0].success(), "the caller caught the failure and ended: {out}");
    let line = out.lines().find_map(|l| l.split("failed-after-ms=").nth(1)).expect("the caller's report");
    println!("the caller: failed-after-ms={line}");
    let ms: u64 = line.split_whitespace().next().and_then(|w| w.parse().ok()).expect("milliseconds");
    assert!(line.contains("process 1"), "the error names process 1: {line}");
    assert!(ms < 10_000, "the caller's run failed {ms} ms after it started");
}

/// Items of the scale-out measurement, and the work per item.
const BENCH_ITEMS: u64 = 200_000;

fn bench_work(x: u64) -> u64 {
    let mut h = x;
    for _ in 0..5_000 {
        h = std::hint::black_box(h).wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    }
    h
}

#[ohua::algorithm(cluster)]
fn bench_map(xs: Vec<u64>) -> u64 {
    let mut total = 0u64;
    for x in xs {
        let y = bench_work(x);
        total = total.wrapping_add(y);
    }
    total
}

/// CPU seconds this process has used (Linux: `/proc/self/stat`, in ticks
/// of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let fields: Vec<&str> = stat.rsplit(')').next().expect("fields after the name").split_whitespace().collect();
    let ticks = |i: usize| fields[i].parse::<f64>().expect("a tick count");
    (ticks(11) + ticks(12)) / 100.0 // utime, stime
}

/// Seconds of the best of 3 calls of `f`, after one to warm up.
fn best_of_3<R>(mut f: impl FnMut() -> R) -> f64 {
    f();
    (0..3)
        .map(|_| {
            let start = std::time::Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Chunks of 500 records of the `records` workload.
const RECORD_CHUNKS: u64 = 200;

/// The workload a measurement runs (`OHUA_BENCH_WORKLOAD`): `map`, a
/// 5.5 us statement over [`BENCH_ITEMS`] items, or `records`, the
/// `record_pipeline` example's map task over 100,000 records in chunks of
/// 500; it gives a checksum of its result.
fn workload(name: &str) -> Box<dyn Fn() -> u64> {
    match name {
        "records" => {
            let chunks = records::chunks(100_000, 100_000 / RECORD_CHUNKS as usize);
            Box::new(move || records::record_pipeline(chunks.clone()).checksum)
        }
        _ => {
            let xs: Vec<u64> = (0..BENCH_ITEMS).collect();
            Box::new(move || bench_map(xs.clone()))
        }
    }
}

/// What a process of the measurement does (`OHUA_BENCH_MODE`).
fn bench_child(mode: &str) {
    let run = workload(&std::env::var("OHUA_BENCH_WORKLOAD").unwrap_or_default());
    let want = ohua::sequential(&run);
    match mode {
        "one" => {
            let seq = best_of_3(|| ohua::sequential(&run));
            let native = Deployment::default().workers(1).replicas(".*=2".parse::<Replication>().unwrap());
            let one = best_of_3(|| ohua::with_deployment(native.clone(), &run));
            assert_eq!(ohua::with_deployment(native, &run), want);
            println!("bench sequential={seq:.4} native={one:.4}");
        }
        _ => {
            let _cluster = ohua_cluster::join().expect("joins the cluster");
            let d = on_the_cluster().workers(1);
            let t = best_of_3(|| ohua::with_deployment(d.clone(), &run));
            let (cpu, wall) = (cpu_seconds(), std::time::Instant::now());
            let (got, reports) = ohua::profile(|| ohua::with_deployment(d, &run));
            let busy = (cpu_seconds() - cpu) / wall.elapsed().as_secs_f64();
            assert_eq!(got, want);
            let encoded = reports.iter().flat_map(|r| &r.nodes).find_map(|n| n.encoded).unwrap_or_default();
            // Items and bytes count both ways: arguments out, results back.
            println!(
                "bench cluster={t:.4} busy={busy:.2} remote_items={} bytes_per_item={:.1}",
                encoded.items / 2,
                encoded.bytes as f64 / (encoded.items / 2).max(1) as f64
            );
        }
    }
}

/// Issue 25's scale-out for an algorithm, on this machine: one process on
/// one core (sequential, and the native runtime with 2 replicas) against 2
/// processes pinned to one core each with `lanes = "cluster"`. A
/// measurement, not a check (`--ignored`): `cargo test --release -p
/// ohua-cluster --test algorithms -- --ignored --nocapture`.
///
/// Each process prints how busy its core was during a run (CPU time over
/// wall time): where neither is near 1.00, the run waited on hand-offs.
#[test]
#[ignore]
fn bench_scale_out_on_pinned_processes() {
    scale_out("bench_scale_out_on_pinned_processes", "map");
}

/// The same for the `record_pipeline` example's map task (its four
/// stateless calls merged into one distributable call; compressing and
/// writing stay in the caller): `cargo test --release -p ohua-cluster
/// --test algorithms -- --ignored --nocapture bench_record_pipeline`.
#[test]
#[ignore]
fn bench_record_pipeline_on_pinned_processes() {
    scale_out("bench_record_pipeline_on_pinned_processes", "records");
}

/// One process on core 0, then 2 processes on cores 0 and 1, each running
/// this test binary's `test` with `workload`; prints the ratios.
fn scale_out(test: &str, workload: &str) {
    if let Ok(mode) = std::env::var("OHUA_BENCH_MODE") {
        return bench_child(&mode);
    }
    let me = std::env::current_exe().expect("this test binary");
    let pinned = |core: usize, mode: &str| {
        let mut c = Command::new("taskset");
        c.arg("-c").arg(core.to_string()).arg(&me);
        c.args(["--exact", test, "--ignored", "--nocapture", "--test-threads=1"])
            .env("OHUA_BENCH_MODE", mode)
            .env("OHUA_BENCH_WORKLOAD", workload)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    };
    let number = |out: &str, name: &str| -> f64 {
        // libtest prints the test's name on the line before its output.
        out.lines()
            .filter_map(|l| Some(&l[l.find("bench ")? + "bench ".len()..]))
            .flat_map(|l| l.split_whitespace())
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('=')?.parse().ok())
            .unwrap_or_else(|| panic!("{name} in {out}"))
    };
    let one = pinned(0, "one").output().expect("one process");
    let one = String::from_utf8_lossy(&one.stdout).to_string();
    let mut cluster = LocalCluster::start(2, |i| pinned(i, "cluster")).expect("the processes start");
    cluster.wait(Duration::from_secs(300)).expect("the cluster finishes");
    let [out, other] = [0, 1].map(|i| {
        let mut out = String::new();
        cluster.process(i).stdout.take().expect("piped").read_to_string(&mut out).expect("stdout");
        out
    });
    let (seq, native, two) = (number(&one, "sequential"), number(&one, "native"), number(&out, "cluster"));
    let (remote, bytes) = (number(&out, "remote_items"), number(&out, "bytes_per_item"));
    let (busy, other_busy) = (number(&out, "busy"), number(&other, "busy"));
    let items = if workload == "records" { RECORD_CHUNKS } else { BENCH_ITEMS };
    println!(
        "{workload}: {items} items of {:.1} us: sequential {seq:.3} s, 1 process 1 core {native:.3} s ({:.2}x), \
         2 processes 2 cores {two:.3} s ({:.2}x sequential, {:.2}x 1 process); \
         {remote} items served by the other process, {bytes:.1} bytes per item both ways; \
         cores busy: caller's {busy:.2}, other's {other_busy:.2}",
        seq / items as f64 * 1e6,
        seq / native,
        seq / two,
        native / two
    );
}

/// `rounds` rounds of a multiply-add: about 1.1 ns each on the machine of
/// `BENCHMARKS.md`.
fn spin(x: u64, rounds: u64) -> u64 {
    let mut h = x;
    for _ in 0..rounds {
        h = std::hint::black_box(h).wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    }
    h
}

fn step_a(x: u64) -> u64 {
    spin(x, 90)
}

fn step_b(x: u64) -> u64 {
    spin(x ^ 1, 90)
}

fn step_c(x: u64) -> u64 {
    spin(x ^ 2, 90)
}

fn stage_one(x: u64) -> u64 {
    spin(x, 4_500)
}

fn stage_two(x: u64) -> u64 {
    spin(x ^ 3, 4_500)
}

fn map_heavy(x: u64) -> u64 {
    spin(x, 18_000)
}

/// An order-sensitive accumulator: another order gives another hash.
#[derive(Default)]
struct Fold(u64);

impl Fold {
    fn add(&mut self, v: u64) {
        self.0 = self.0.rotate_left(5) ^ v;
    }
    fn hash(&self) -> u64 {
        self.0
    }
}

/// The shapes of `ohua-bench`'s `chain`, `balanced` and `replicate`, as
/// plain algorithms and as `cluster` ones (the same bodies).
macro_rules! overhead_shapes {
    ($attr:meta, $chain:ident, $balanced:ident, $map:ident) => {
        /// Three calls of ~100 ns into a state, per item.
        #[$attr]
        fn $chain(xs: Vec<u64>) -> u64 {
            let mut acc = Fold::default();
            for x in xs {
                let a = step_a(x);
                let b = step_b(a);
                let c = step_c(b);
                acc.add(c);
            }
            acc.hash()
        }

        /// Two stages of ~5 µs into a state, per item.
        #[$attr]
        fn $balanced(xs: Vec<u64>) -> u64 {
            let mut acc = Fold::default();
            for x in xs {
                let a = stage_one(x);
                let b = stage_two(a);
                acc.add(b);
            }
            acc.hash()
        }

        /// A collecting map over ~20 µs.
        #[$attr]
        fn $map(xs: Vec<u64>) -> Vec<u64> {
            let ys: Vec<u64> = xs.into_iter().map(|x| map_heavy(x)).collect();
            ys
        }
    };
}

overhead_shapes!(ohua::algorithm, chain_plain, balanced_plain, map_plain);
overhead_shapes!(ohua::algorithm(cluster), chain_cluster, balanced_cluster, map_cluster);

/// Issue 25's overhead, on this machine: the `chain`, `balanced` and
/// `replicate` shapes as plain algorithms (the native runtime), and as
/// `cluster` algorithms with `lanes = "values"`, `"serialized"` and
/// `"cluster"` on a cluster of one process (the lane to the cluster goes
/// through bytes and this process's timely worker). A measurement, not a
/// check (`--ignored`): `cargo test --release -p ohua-cluster --test
/// algorithms bench_overhead -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_overhead_of_the_cluster_backend_on_one_process() {
    let _cluster = ohua_cluster::join_with(&ohua_cluster::ClusterConfig::single()).expect("a cluster of one process");
    let fixed = Deployment::default().workers(2).replicas(".*=2".parse::<Replication>().unwrap());
    type Shape = (&'static str, u64, fn(Vec<u64>) -> u64, fn(Vec<u64>) -> u64);
    fn sum(ys: Vec<u64>) -> u64 {
        ys.iter().fold(0u64, |a, &y| a.rotate_left(3) ^ y)
    }
    let shapes: [Shape; 3] = [
        ("chain", 200_000, chain_plain, chain_cluster),
        ("balanced", 20_000, balanced_plain, balanced_cluster),
        ("replicate", 10_000, |xs| sum(map_plain(xs)), |xs| sum(map_cluster(xs))),
    ];
    for (name, n, plain, cluster) in shapes {
        let xs: Vec<u64> = (0..n).collect();
        let want = ohua::sequential(|| plain(xs.clone()));
        let time = |d: Option<Deployment>, f: fn(Vec<u64>) -> u64| {
            let call = || match &d {
                Some(d) => ohua::with_deployment(d.clone(), || f(xs.clone())),
                None => ohua::sequential(|| f(xs.clone())),
            };
            assert_eq!(call(), want, "{name}");
            best_of_3(call)
        };
        let seq = time(None, plain);
        let auto = time(Some(Deployment::default()), plain);
        let native = time(Some(fixed.clone()), plain);
        let values = time(Some(fixed.clone().lanes(Lanes::Values)), cluster);
        let bytes = time(Some(fixed.clone().lanes(Lanes::Serialized)), cluster);
        let one = time(Some(fixed.clone().lanes(Lanes::Cluster)), cluster);
        println!(
            "overhead {name} ({n} items): sequential {seq:.4} s, native auto {auto:.4} s, native 2 replicas \
             {native:.4} s; cluster algorithm with 2 replicas: values {values:.4} s ({:.2}x native), serialized \
             {bytes:.4} s ({:.2}x), 1-process cluster {one:.4} s ({:.2}x)",
            values / native,
            bytes / native,
            one / native
        );
    }
}
