//! The closed-loop load of the issue under `wrk` itself (when it is
//! installed, `apt-get install wrk`): `wrk` requests files chosen at random
//! over `connections` keep-alive connections as fast as they are answered,
//! once against a server that is not updated and once against one that
//! gets the cache inserted after a third of the run and the sendfile switch
//! after two thirds; printed are `wrk`'s requests/s and latency
//! percentiles for both, their ratios, and how many responses the server
//! sent by sendfile. `wrk` reports whole runs, not windows over time: the
//! plot is the open-loop client's (`client.rs`).

use std::process::Command;
use std::time::{Duration, Instant};

use ohua_examples::web::Root;

use super::{start, stop, Variant};

/// What one `wrk` run printed that the comparison uses.
struct WrkRun {
    requests_per_s: f64,
    /// The `--latency` percentiles (50, 75, 90, 99 %) in ms.
    percentiles: Vec<(String, f64)>,
    errors: String,
    sendfile: u64,
    ok: u64,
}

/// Whether `wrk` can be run.
pub(super) fn available() -> bool {
    Command::new("wrk").arg("--version").output().is_ok()
}

/// `runs` pairs of `wrk` runs of `length` (see the module docs).
pub(super) fn compare(root: &Root, files: usize, connections: usize, length: Duration, runs: usize) {
    let script = std::env::temp_dir().join(format!("ohua-web-update-{}.lua", std::process::id()));
    std::fs::write(
        &script,
        format!(
            "math.randomseed(42)\nrequest = function()\n  return wrk.format(\"GET\", \"/f/\" .. math.random(0, {}) .. \".bin\")\nend\n",
            files - 1
        ),
    )
    .expect("web-update: cannot write the wrk script");
    println!(
        "\nwrk ({} connections, 2 threads, {:?}; updated: cache inserted at {:?}, sendfile switch at {:?}), {runs} pair(s) of runs:",
        connections,
        length,
        length / 3,
        length * 2 / 3
    );
    for run in 1..=runs {
        let plain = one(root, &script, connections, length, false);
        let updated = one(root, &script, connections, length, true);
        for (label, r) in [("not updated", &plain), ("updated", &updated)] {
            let pct: Vec<String> = r.percentiles.iter().map(|(p, ms)| format!("p{p} {ms:.2} ms")).collect();
            println!(
                "  run {run} {label:<12}: {:>8.0} requests/s, {} ({} answered 200, {} by sendfile{})",
                r.requests_per_s,
                pct.join(", "),
                r.ok,
                r.sendfile,
                r.errors
            );
        }
        let p99 = |r: &WrkRun| r.percentiles.iter().find(|(p, _)| p == "99").map_or(f64::NAN, |x| x.1);
        println!(
            "  run {run} updated / not updated: requests/s {:.2}x, p99 {:.2}x",
            updated.requests_per_s / plain.requests_per_s,
            p99(&updated) / p99(&plain)
        );
    }
    let _ = std::fs::remove_file(&script);
}

/// One `wrk` run against a fresh server, updated or not.
fn one(root: &Root, script: &std::path::Path, connections: usize, length: Duration, update: bool) -> WrkRun {
    let (service, shutdown, addr) = start(root);
    let started = Instant::now();
    let wrk = Command::new("wrk")
        .args(["-t2", &format!("-c{connections}"), &format!("-d{}s", length.as_secs().max(1)), "--latency", "-s"])
        .arg(script)
        .arg(format!("http://{addr}/"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("web-update: cannot start wrk");
    if update {
        for (k, at) in [length / 3, length * 2 / 3].into_iter().enumerate() {
            std::thread::sleep(at.saturating_sub(started.elapsed()));
            let v = if k == 0 { Variant::Cache } else { Variant::Sendfile };
            v.act(&service);
        }
    }
    let out = wrk.wait_with_output().expect("web-update: wrk failed");
    let (stats, _) = stop(service, shutdown);
    parse(&String::from_utf8_lossy(&out.stdout), stats.sendfile, stats.by_status.get(&200).copied().unwrap_or(0))
}

/// The figures of `wrk --latency`'s report.
fn parse(report: &str, sendfile: u64, ok: u64) -> WrkRun {
    let ms = |v: &str| {
        let (n, unit) = v.split_at(v.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(v.len()));
        let n: f64 = n.parse().unwrap_or(f64::NAN);
        match unit {
            "us" => n / 1000.0,
            "ms" => n,
            "s" => n * 1000.0,
            _ => f64::NAN,
        }
    };
    let mut run = WrkRun { requests_per_s: f64::NAN, percentiles: Vec::new(), errors: String::new(), sendfile, ok };
    for line in report.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Requests/sec:", n] => run.requests_per_s = n.parse().unwrap_or(f64::NAN),
            [p, v] if p.ends_with('%') && ["50%", "75%", "90%", "99%"].contains(p) => {
                run.percentiles.push((p.trim_end_matches('%').to_string(), ms(v)))
            }
            ["Socket", "errors:", ..] | ["Non-2xx", ..] => run.errors += &format!("; wrk: {line}"),
            _ => {}
        }
    }
    run
}
