//! `ohua launch`: N local processes, each told its place in the cluster.

use std::process::Command;

fn ohua() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ohua"))
}

#[test]
fn every_process_gets_the_cluster_size_its_index_and_the_same_hosts() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let dir = tmp.path();
    // Each process writes what it was told into a file named by its index.
    let script =
        format!(r#"echo "$OHUA_CLUSTER_PROCESSES $OHUA_CLUSTER_HOSTS" > {}/$OHUA_CLUSTER_INDEX"#, dir.display());
    let status = ohua().args(["launch", "-n", "3", "--", "sh", "-c", &script]).status().expect("run ohua");
    assert!(status.success());
    let told: Vec<String> =
        (0..3).map(|i| std::fs::read_to_string(dir.join(i.to_string())).expect("each index once")).collect();
    assert!(told.iter().all(|t| t == &told[0]), "{told:?}");
    let (n, hosts) = told[0].trim().split_once(' ').expect("two fields");
    assert_eq!(n, "3");
    assert_eq!(hosts.split(',').count(), 3, "{hosts}");
}

#[test]
fn a_process_that_fails_fails_the_launch_and_is_named() {
    let out = ohua()
        .args(["launch", "-n", "2", "--", "sh", "-c", r#"test "$OHUA_CLUSTER_INDEX" = 0"#])
        .output()
        .expect("run ohua");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("process 1: exit status: 1") && !err.contains("process 0"), "{err}");
}

#[test]
fn a_launch_without_a_program_is_refused() {
    let out = ohua().args(["launch", "-n", "2"]).output().expect("run ohua");
    assert!(!out.status.success());
}
