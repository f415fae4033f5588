//! `ohua view FILE`: serves a saved run's view, refuses what it cannot
//! serve with a message that says why. (Building this test builds the
//! `ohua` binary, which `crates/ohua-view/browser-check.sh` loads in a
//! browser.)

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn ohua() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ohua"))
}

fn saved_view(dir: &std::path::Path, name: &str, json: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, json).unwrap();
    path
}

const ONE_RUN: &str = r#"{"schema": 1, "live": false, "now_s": 0.0, "runs": [{
    "algorithm": "demo", "running": false, "calls": 1, "wall_ms": 1.5, "sections": 1,
    "operators": [{"id": 0, "name": "demo/f#0", "kind": "call", "label": "f(x)", "depth": 0, "section": 0,
        "replicas": 1, "replica_sections": [], "fused_into": null, "firings": 3, "busy_ms": 0.5,
        "busy_pct": 33.0, "items_per_s": 2000.0, "queue_fill": null}],
    "arcs": [], "io": [], "events": [],
    "series": {"t_s": [], "items_per_s": [], "runs": [], "p50_ms": [], "p99_ms": []},
    "snapshots": {"taken": 0, "copies": 0}, "panicked": null}]}"#;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn a_saved_view_is_served_until_the_given_seconds_pass() {
    let dir = std::env::temp_dir().join(format!("ohua-cli-view-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = saved_view(&dir, "run.json", ONE_RUN);
    let port = free_port();
    let mut child = ohua()
        .args(["view", file.to_str().unwrap(), "--addr", &format!("127.0.0.1:{port}"), "--seconds", "20"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let body = loop {
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            write!(s, "GET /api/view HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
            let mut text = String::new();
            s.read_to_string(&mut text).unwrap();
            break text;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "ohua view did not listen within 10 s");
        std::thread::sleep(Duration::from_millis(50));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(body.starts_with("HTTP/1.1 200"), "{body}");
    assert!(body.contains(r#""name":"demo/f#0""#) && body.contains(r#""firings":3"#), "{body}");
}

#[test]
fn what_cannot_be_served_is_refused_with_the_reason() {
    let dir = std::env::temp_dir().join(format!("ohua-cli-view-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (dir.join("missing.json"), vec![], "reading"),
        (saved_view(&dir, "list.json", "[1, 2]"), vec![], "not an Ohua view report"),
        (saved_view(&dir, "future.json", r#"{"schema": 7}"#), vec![], "schema 7"),
        (saved_view(&dir, "run.json", ONE_RUN), vec!["--addr", "0.0.0.0:0"], "other hosts can reach"),
        (saved_view(&dir, "run.json", ONE_RUN), vec!["--addr", "localhost"], "no port"),
    ];
    for (file, extra, says) in cases {
        let out = ohua().arg("view").arg(&file).args(&extra).args(["--seconds", "0"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{file:?} {extra:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
