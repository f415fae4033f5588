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
        let xs: Vec<u64> = (0..400 + round * 100).collect();
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
    println!("ok process {index}");
}

fn run_cluster(n: usize) -> Vec<String> {
    let me = std::env::current_exe().expect("this test binary");
    let mut cluster = LocalCluster::start(n, |_| {
        let mut c = Command::new(&me);
        c.args(["--exact", "algorithms_on_2_and_3_processes_equal_sequential", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
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
        assert_eq!(remote.len(), 3, "{:?}", outputs[0]);
        assert!(remote.iter().all(|&r| r > 0), "every round sent items to the cluster: {remote:?}");
    }
}
