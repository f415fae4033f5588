//! Generated `#[ohua::algorithm(cluster)]` programs on a real cluster of
//! local processes (issue 25's conformance on 2 and 3 processes).
//!
//! The part's test binary starts itself N times on loopback
//! ([`ohua_cluster::LocalCluster`]); every process joins the cluster and
//! calls every `cluster` program of the part, on every input, under every
//! [`ohua_conformance::cluster_deployments`] deployment, in the same order
//! (what a cluster program must do, as with MPI). Process 0 runs the
//! algorithms, its replicated distributable calls served by the others'
//! workers too; each process compares the result it got (the caller's,
//! shared at the end of each run) with plain sequential Rust.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use ohua_cluster::LocalCluster;

use crate::Run;

/// A generated `cluster` program's `run_cluster`: runs it on the inputs
/// under the deployment with `lanes = "cluster"`, compares with its
/// plain-Rust twin, and gives the items its lanes sent to the cluster.
pub type ClusterProgram = fn(&[(Vec<i64>, i64)], &ohua::Deployment) -> Result<u64, String>;

/// Set in the processes the test starts.
const CHILD: &str = "OHUA_GEN_CLUSTER_CHILD";

/// How long a cluster may take for a part's programs (they take a few
/// seconds); a cluster still running then fails the test and is killed.
const LIMIT: Duration = Duration::from_secs(180);

/// Runs `programs` on a cluster of 2 processes for an even `part` and 3
/// (2 workers each) for an odd one, so every run of the suite covers both;
/// `test` is the name of the calling test, which the processes run.
///
/// # Panics
///
/// If a process fails, a program's result differs from sequential
/// execution in any process, or the cluster does not finish within 3
/// minutes; the message has each process's output and the replay command.
pub fn check_on_cluster(
    test: &str,
    part: usize,
    programs: Vec<(usize, ClusterProgram)>,
    inputs: Vec<(Vec<i64>, i64)>,
    run: &Run,
) {
    if std::env::var_os(CHILD).is_some() {
        return child(programs, inputs);
    }
    let indexes: Vec<usize> = programs.iter().map(|(i, _)| *i).collect();
    if indexes.is_empty() {
        println!("part {part} of seed {} has no `cluster` programs", run.seed);
        return;
    }
    let n = 2 + part % 2;
    let me = std::env::current_exe().expect("this test binary");
    let mut cluster = LocalCluster::start(n, |_| {
        let mut c = Command::new(&me);
        c.args(["--exact", test, "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .env("OHUA_CLUSTER_WORKERS", if n == 3 { "2" } else { "1" })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    })
    .expect("the cluster's processes start");
    let statuses = cluster.wait(LIMIT);
    let outputs: Vec<String> = (0..n)
        .map(|i| {
            let child = cluster.process(i);
            let (mut out, mut err) = (String::new(), String::new());
            let _ = child.stdout.take().map(|mut s| s.read_to_string(&mut out));
            let _ = child.stderr.take().map(|mut s| s.read_to_string(&mut err));
            format!("process {i}:\n{out}{err}")
        })
        .collect();
    let replay = format!("{} cargo test --release -p ohua-generated --test part{part} -- {test}", run.replay);
    let statuses = statuses.unwrap_or_else(|e| panic!("{e}; replay with `{replay}`\n{}", outputs.join("\n")));
    for (i, status) in statuses.iter().enumerate() {
        assert!(
            status.success() && outputs[i].contains(&format!("ok process {i}\n")),
            "`cluster` programs {indexes:?} of seed {} on {n} processes: process {i} failed ({status}); \
             replay with `{replay}`\n{}",
            run.seed,
            outputs.join("\n")
        );
    }
    let sent = outputs[0].lines().find_map(|l| l.strip_prefix("items sent to the cluster: ")).unwrap_or("?");
    println!(
        "`cluster` programs {indexes:?} of seed {} on {n} processes x {} deployments: all equal to sequential; \
         items sent to the cluster: {sent}",
        run.seed,
        ohua_conformance::cluster_deployments().len()
    );
}

/// What each process does: join, run every program under every deployment,
/// report failures (and go on: the others call the same programs).
fn child(programs: Vec<(usize, ClusterProgram)>, inputs: Vec<(Vec<i64>, i64)>) {
    let _cluster = ohua_cluster::join().expect("joins the cluster");
    let index = std::env::var("OHUA_CLUSTER_INDEX").unwrap_or_default();
    let (mut sent, mut failed) = (0, false);
    for (program, run) in programs {
        for (name, d) in ohua_conformance::cluster_deployments() {
            match run(&inputs, &d) {
                Ok(items) => sent += items,
                Err(e) => {
                    eprintln!("FAILED program {program}, deployment `{name}`, in process {index}: {e}");
                    failed = true;
                }
            }
        }
    }
    println!("items sent to the cluster: {sent}");
    if !failed {
        println!("ok process {index}");
    }
}
