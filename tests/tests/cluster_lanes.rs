//! `#[ohua::algorithm(cluster)]` (issue 25, second part): the algorithm's
//! replicable calls carry their values as bytes where the deployment says
//! `lanes = "serialized"`, what a lane to a replica in another process
//! does, and results and every state's calls still equal sequential
//! execution. The bytes each call's lanes carried are in the report.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ohua::deploy::Lanes;
use ohua::{Deployment, Replication, SectionStrategy};
use ohua_conformance::{deployments, on_cluster, Log};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

fn slow_square(x: u64) -> u64 {
    let mut h = x;
    for _ in 0..(x % 5) * 40 {
        h = h.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    }
    std::hint::black_box(h);
    x * x
}

/// A value of the user's own type, with text in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Reading {
    sensor: String,
    value: i64,
    tags: Vec<String>,
}

fn parse(line: String) -> Reading {
    let (sensor, value) = line.split_once('=').unwrap_or((&line, "0"));
    let value = value.parse().unwrap_or(-1);
    let tags = if value % 2 == 0 { vec!["even".to_string()] } else { Vec::new() };
    Reading { sensor: sensor.to_string(), value, tags }
}

fn weigh(r: Reading, weight: i64) -> (String, i64) {
    (format!("{}:{}", r.sensor, r.tags.join(",")), r.value * weight)
}

fn halve(x: u64) -> u64 {
    x / 2
}

#[ohua::algorithm(cluster)]
fn squares(xs: Vec<u64>) -> Vec<u64> {
    let ys: Vec<u64> = xs.into_iter().map(|x| slow_square(x)).collect();
    ys
}

/// Arguments and results of the user's own types and tuples, a captured
/// value read by every iteration, and a state after the replicated calls.
#[ohua::algorithm(cluster)]
fn readings(lines: Vec<String>, weight: i64) -> Log {
    let mut log = Log::new();
    for line in lines {
        let reading = parse(line);
        let (name, score) = weigh(reading, weight);
        log.mark(&name);
        log.push(score);
    }
    log
}

/// Replicated calls in both arms of a branch, with a chain of calls that a
/// `cluster` algorithm does not fuse.
#[ohua::algorithm(cluster)]
fn branches(xs: Vec<u64>) -> Log {
    let mut log = Log::new();
    for x in xs {
        let y = if x % 3 == 0 {
            let a = slow_square(x);
            let b = halve(a);
            b
        } else {
            let c = halve(x);
            c
        };
        log.push(y as i64);
    }
    log
}

/// `cluster` on a module marks every algorithm in it.
#[ohua::algorithm(cluster)]
mod marked {
    use super::{halve, slow_square};

    #[ohua::algorithm]
    pub fn halves(xs: Vec<u64>) -> Vec<u64> {
        let ys: Vec<u64> = xs.into_iter().map(|x| halve(x)).collect();
        ys
    }

    #[ohua::algorithm]
    pub fn both(xs: Vec<u64>) -> Vec<u64> {
        let ys: Vec<u64> = xs.into_iter().map(|x| slow_square(x)).collect();
        let zs = halves(ys);
        zs
    }
}

/// The conformance deployments, every one with serialized lanes.
fn serialized() -> Vec<(String, Deployment)> {
    deployments()
        .into_iter()
        .map(|(name, d)| (format!("{name}, serialized lanes"), d.lanes(Lanes::Serialized)))
        .collect()
}

/// `run` under every deployment with serialized lanes equals sequential.
fn check_serialized<R: PartialEq + std::fmt::Debug>(run: impl Fn() -> R) {
    let expected = ohua::sequential(&run);
    for (name, d) in serialized() {
        let got = ohua::with_deployment(d, &run);
        assert_eq!(got, expected, "deployment `{name}` differs from sequential execution");
    }
}

fn lines(n: usize) -> Vec<String> {
    (0..n).map(|i| if i % 7 == 6 { format!("bad{i}") } else { format!("s{}={}", i % 4, i as i64 - 50) }).collect()
}

fn two_replicas() -> Deployment {
    Deployment::default()
        .workers(2)
        .sections(SectionStrategy::Auto)
        .replicas(".*=2".parse::<Replication>().unwrap())
        .lanes(Lanes::Serialized)
}

#[test]
fn a_cluster_algorithm_with_values_as_bytes_equals_sequential_execution() {
    check_serialized(|| squares((0..300).collect()));
    check_serialized(|| readings(lines(200), 3));
    check_serialized(|| branches((0..200).collect()));
    check_serialized(|| marked::both((0..100).collect()));
}

/// Every argument tuple a replica took and every result it gave went
/// through bytes: 2 items per call, and `u64`s of under 251 take one byte.
#[test]
fn the_report_counts_the_items_and_bytes_each_call_sent() {
    let xs: Vec<u64> = (0..200).map(|x| x % 15).collect();
    let (ys, reports) = ohua::profile(|| ohua::with_deployment(two_replicas(), || squares(xs.clone())));
    assert_eq!(ys, ohua::sequential(|| squares(xs.clone())));
    let square = reports[0].nodes.iter().find(|n| n.name.contains("slow_square")).expect("the call's statistics");
    assert!(square.replicas.len() == 2, "{square:?}");
    let encoded = square.encoded.expect("serialized lanes counted");
    assert_eq!(encoded.items, 2 * 200, "{encoded:?}");
    // (x,) is one byte for x < 251, and so is x * x < 251 for x < 16.
    assert_eq!(encoded.bytes, 200 + 200, "{encoded:?}");

    // Values, not bytes: nothing counted.
    let values = two_replicas().lanes(Lanes::Values);
    let (_, reports) = ohua::profile(|| ohua::with_deployment(values, || squares(xs.clone())));
    let square = reports[0].nodes.iter().find(|n| n.name.contains("slow_square")).expect("the call's statistics");
    assert_eq!(square.encoded, None);
}

fn offset(x: u64, k: u64) -> u64 {
    x + k
}

#[ohua::algorithm(cluster)]
fn offsets(xs: Vec<u64>, k: u64) -> Vec<u64> {
    let ys: Vec<u64> = xs.into_iter().map(|x| offset(x, k)).collect();
    ys
}

/// A captured value goes through bytes with every item, as a remote lane
/// sends it: `(x, (k,))` with `x` < 251 (1 byte) and `k` = 1000 (3 bytes)
/// out, `x + 1000` (3 bytes) back.
#[test]
fn a_captured_value_crosses_as_bytes_with_every_item() {
    let xs: Vec<u64> = (0..120).map(|x| x % 200).collect();
    let (ys, reports) = ohua::profile(|| ohua::with_deployment(two_replicas(), || offsets(xs.clone(), 1000)));
    assert_eq!(ys, ohua::sequential(|| offsets(xs.clone(), 1000)));
    let call = reports[0].nodes.iter().find(|n| n.name.contains("/offset#")).expect("the call's statistics");
    let encoded = call.encoded.expect("serialized lanes counted");
    assert_eq!(encoded.items, 2 * 120, "{encoded:?}");
    assert_eq!(encoded.bytes, 120 * (1 + 3) + 120 * 3, "{encoded:?}");
}

/// `lanes = "cluster"` in a process that joined no cluster runs as
/// `serialized`: values through bytes, counted, results as sequential.
#[test]
fn cluster_lanes_without_a_cluster_are_serialized_lanes() {
    let xs: Vec<u64> = (0..120).map(|x| x % 15).collect();
    let d = two_replicas().lanes(Lanes::Cluster);
    let (ys, reports) = ohua::profile(|| ohua::with_deployment(d, || squares(xs.clone())));
    assert_eq!(ys, ohua::sequential(|| squares(xs.clone())));
    let square = reports[0].nodes.iter().find(|n| n.name.contains("slow_square")).expect("the call's statistics");
    assert_eq!(square.encoded.map(|e| e.items), Some(2 * 120));
}

/// The user's type and a tuple with text: more than a byte per item.
#[test]
fn text_and_the_users_own_types_cross_as_their_bytes() {
    let (log, reports) = ohua::profile(|| ohua::with_deployment(two_replicas(), || readings(lines(70), 2)));
    assert_eq!(log, ohua::sequential(|| readings(lines(70), 2)));
    let parse = reports[0].nodes.iter().find(|n| n.name.contains("/parse#")).expect("parse");
    let encoded = parse.encoded.expect("serialized lanes counted");
    assert_eq!(encoded.items, 2 * 70);
    assert!(encoded.bytes_per_item() > 5.0, "{encoded:?}");
}

/// A value whose `Deserialize` does not read what its `Serialize` wrote
/// (the two disagree on the format) cannot cross processes: the run
/// fails, and the message names the type.
#[derive(Debug, Clone, PartialEq)]
struct Lopsided(u64);

impl Serialize for Lopsided {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for Lopsided {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (a, _): (u64, u64) = Deserialize::deserialize(d)?;
        Ok(Lopsided(a))
    }
}

fn lopsided(x: u64) -> Lopsided {
    Lopsided(x)
}

#[ohua::algorithm(cluster)]
fn lopsided_values(xs: Vec<u64>) -> Vec<Lopsided> {
    let ys: Vec<Lopsided> = xs.into_iter().map(|x| lopsided(x)).collect();
    ys
}

#[test]
fn a_value_that_does_not_come_back_from_its_bytes_fails_the_run_naming_its_type() {
    let xs: Vec<u64> = (0..50).collect();
    // As values the run is fine.
    let fine = ohua::with_deployment(two_replicas().lanes(Lanes::Values), || lopsided_values(xs.clone()));
    assert_eq!(fine.len(), 50);
    let err = catch_unwind(AssertUnwindSafe(|| ohua::with_deployment(two_replicas(), || lopsided_values(xs.clone()))))
        .expect_err("a value that does not decode fails the run");
    let message = err
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(message.contains("cluster_lanes::Lopsided") && message.contains("could not be decoded"), "{message}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Random inputs under random sections and replicas, values as bytes.
    #[test]
    fn random_inputs_on_random_replicas_as_bytes_equal_sequential(
        xs in proptest::collection::vec(0u64..100_000, 0..80),
        n in 0usize..60,
        weight in -5i64..5,
        seed in 0u64..1000,
    ) {
        let d = Deployment::default()
            .workers(2)
            .sections(SectionStrategy::Random { sections: 3, seed })
            .replicas(Replication::Random { max: 4, seed })
            .batch_size(1 + (seed % 5) as usize)
            .lanes(Lanes::Serialized);
        let run = || (squares(xs.clone()), readings(lines(n), weight), branches(xs.clone()));
        prop_assert_eq!(ohua::with_deployment(d, run), ohua::sequential(run));
    }
}

/// Set in the processes `the_cluster_algorithms_on_2_and_3_processes_equal_sequential` starts.
const CLUSTER_CHILD: &str = "OHUA_CLUSTER_LANES_CHILD";

/// What each process does: join, run every algorithm of this file under
/// every cluster deployment with `lanes = "cluster"`, in the same order,
/// and check each result against sequential execution; then a run that
/// fails (a value that does not decode, in the caller) and one after it.
fn cluster_child() {
    let _cluster = ohua_cluster::join().expect("joins the cluster");
    let index = std::env::var("OHUA_CLUSTER_INDEX").unwrap_or_default();
    let mut sent = 0;
    for (name, d) in ohua_conformance::cluster_deployments() {
        let mut check = |what: &str, (got, items): (Log, u64), want: Log| {
            assert_eq!(got, want, "process {index}, `{what}` under `{name}`");
            sent += items;
        };
        check("readings", on_cluster(&d, || readings(lines(200), 3)), ohua::sequential(|| readings(lines(200), 3)));
        check(
            "branches",
            on_cluster(&d, || branches((0..200).collect())),
            ohua::sequential(|| branches((0..200).collect())),
        );
        let (got, items) = on_cluster(&d, || (squares((0..300).collect()), marked::both((0..100).collect())));
        let want = ohua::sequential(|| (squares((0..300).collect()), marked::both((0..100).collect())));
        assert_eq!(got, want, "process {index}, `squares` and `marked::both` under `{name}`");
        sent += items;
    }
    // Enough items that some go to the other processes, whose results do
    // not decode in the caller.
    let xs: Vec<u64> = (0..500).collect();
    let failed = catch_unwind(AssertUnwindSafe(|| {
        ohua::with_deployment(two_replicas().lanes(Lanes::Cluster), || lopsided_values(xs.clone()))
    }));
    let message = failed.err().and_then(|e| e.downcast_ref::<String>().cloned()).unwrap_or_default();
    assert!(message.contains("Lopsided"), "process {index}: the failed run names the type: {message:?}");
    let again = ohua::with_deployment(two_replicas().lanes(Lanes::Cluster), || squares((0..300).collect()));
    assert_eq!(again, ohua::sequential(|| squares((0..300).collect())), "process {index}: the run after a failed one");
    println!("items sent to the cluster: {sent}");
    println!("ok process {index}");
}

/// The algorithms of this file on real clusters of 2 and 3 processes (this
/// test binary started again on loopback, `ohua_cluster::LocalCluster`),
/// each process checking every result against sequential execution.
#[test]
fn the_cluster_algorithms_on_2_and_3_processes_equal_sequential() {
    if std::env::var_os(CLUSTER_CHILD).is_some() {
        return cluster_child();
    }
    let me = std::env::current_exe().expect("this test binary");
    for n in [2, 3] {
        let mut cluster = ohua_cluster::LocalCluster::start(n, |_| {
            let mut c = std::process::Command::new(&me);
            c.args(["--exact", "cluster_lanes::the_cluster_algorithms_on_2_and_3_processes_equal_sequential"])
                .args(["--nocapture", "--test-threads=1"])
                .env(CLUSTER_CHILD, "1")
                .env("OHUA_CLUSTER_WORKERS", if n == 3 { "2" } else { "1" })
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            c
        })
        .expect("the processes start");
        let statuses = cluster.wait(std::time::Duration::from_secs(120));
        let outputs: Vec<String> = (0..n)
            .map(|i| {
                use std::io::Read;
                let (mut out, mut err) = (String::new(), String::new());
                let _ = cluster.process(i).stdout.take().map(|mut s| s.read_to_string(&mut out));
                let _ = cluster.process(i).stderr.take().map(|mut s| s.read_to_string(&mut err));
                format!("process {i}:\n{out}{err}")
            })
            .collect();
        let statuses = statuses.unwrap_or_else(|e| panic!("{e}\n{}", outputs.join("\n")));
        for (i, status) in statuses.iter().enumerate() {
            let ok = status.success() && outputs[i].contains(&format!("ok process {i}\n"));
            assert!(ok, "{n} processes: process {i} failed ({status})\n{}", outputs.join("\n"));
        }
        let sent = outputs[0].lines().find_map(|l| l.strip_prefix("items sent to the cluster: ")).unwrap_or("0");
        println!("{n} processes: items sent to the cluster {sent}");
        assert_ne!(sent, "0", "the caller's lanes sent items to the cluster");
    }
}
