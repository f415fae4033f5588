//! The web server benchmark (issue 12): every server serves the same
//! generated document root on loopback, `wrk` loads it, and the table
//! gives requests/s and latency p50/p99 for Ohua under each section
//! strategy and for each peer, with ratios against the hand-written
//! thread-pool server and nginx measured in the same run.
//!
//! ```text
//! benches/web/run.sh [--seconds 5] [--connections 1,16,64]
//! ```
//!
//! The servers are separate processes (the binaries next to this one, and
//! nginx from the distribution); each is started, checked with one
//! request, loaded, and killed before the next.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Parser;

#[derive(Parser)]
struct Args {
    /// Seconds of load per measurement.
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// Connection counts.
    #[arg(long, value_delimiter = ',', default_value = "1,16,64")]
    connections: Vec<usize>,
    /// Only servers whose name contains one of these (default: all).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
}

/// A server to measure: its name and how to start it on a port.
struct Peer {
    name: String,
    start: Box<dyn Fn(u16) -> anyhow::Result<Child>>,
}

fn bin(name: &str) -> PathBuf {
    std::env::current_exe().expect("this binary").with_file_name(name)
}

fn spawn(cmd: &mut Command) -> anyhow::Result<Child> {
    cmd.stdout(Stdio::null()).stderr(Stdio::inherit()).spawn().with_context(|| format!("starting {cmd:?}"))
}

fn peers(root: &Path, scratch: &Path) -> Vec<Peer> {
    let strategies = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/web_server");
    let mut peers = Vec::new();
    let root_s = root.to_path_buf();
    for strategy in
        ["one-section", "acpt-req", "acpt-read", "sgl-rd-rp", "io-op-per-section", "op-per-section", "replicated"]
    {
        let file = strategies.join(format!("{strategy}.toml"));
        let root = root_s.clone();
        peers.push(Peer {
            name: format!("ohua {strategy}"),
            start: Box::new(move |port| {
                spawn(
                    Command::new(bin("web_server"))
                        .arg("--root")
                        .arg(&root)
                        .arg("--port")
                        .arg(port.to_string())
                        .arg("--deploy")
                        .arg(&file),
                )
            }),
        });
    }
    let root = root_s.clone();
    let split = strategies.join("split.toml");
    peers.push(Peer {
        name: "ohua split (Fig. 2.25)".into(),
        start: Box::new(move |port| {
            let mut cmd = Command::new(bin("web_server"));
            cmd.arg("--root").arg(&root).arg("--port").arg(port.to_string()).arg("--split").arg("--deploy").arg(&split);
            spawn(&mut cmd)
        }),
    });
    let root = root_s.clone();
    peers.push(Peer {
        name: "ohua auto (default)".into(),
        start: Box::new(move |port| {
            spawn(Command::new(bin("web_server")).arg("--root").arg(&root).arg("--port").arg(port.to_string()))
        }),
    });
    let root = root_s.clone();
    peers.push(Peer {
        name: "hand-written thread pool".into(),
        start: Box::new(move |port| {
            spawn(Command::new(bin("pool_server")).arg("--root").arg(&root).arg("--port").arg(port.to_string()))
        }),
    });
    let root = root_s.clone();
    peers.push(Peer {
        name: "hyper 1 + tokio (2 workers)".into(),
        start: Box::new(move |port| {
            spawn(Command::new(bin("hyper_server")).arg("--root").arg(&root).arg("--port").arg(port.to_string()))
        }),
    });
    let root = root_s;
    let scratch = scratch.to_path_buf();
    peers.push(Peer {
        name: "nginx (2 workers)".into(),
        start: Box::new(move |port| {
            let conf = scratch.join("nginx.conf");
            std::fs::write(&conf, nginx_conf(&root, &scratch, port))?;
            spawn(Command::new("nginx").arg("-c").arg(&conf).arg("-p").arg(&scratch))
        }),
    });
    peers
}

fn nginx_conf(root: &Path, scratch: &Path, port: u16) -> String {
    let user = if cfg!(unix) && std::env::var("USER").as_deref() == Ok("root") { "user root;\n" } else { "" };
    format!(
        "{user}worker_processes 2;\ndaemon off;\nmaster_process on;\npid {s}/nginx.pid;\nerror_log stderr error;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n  access_log off;\n  sendfile on;\n  tcp_nopush on;\n  keepalive_requests 10000000;\n\
           client_body_temp_path {s}/body;\n  proxy_temp_path {s}/proxy;\n  fastcgi_temp_path {s}/fastcgi;\n\
           uwsgi_temp_path {s}/uwsgi;\n  scgi_temp_path {s}/scgi;\n\
           types {{ text/html html; image/png png; }}\n\
           server {{ listen 127.0.0.1:{port}; root {r}; }}\n}}\n",
        s = scratch.display(),
        r = root.display()
    )
}

/// A port nothing listens on now.
fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Stop a server: SIGTERM first (nginx's master then stops its workers;
/// SIGKILL would leave them serving), SIGKILL after 5 s.
fn stop(child: &mut Child) {
    let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Wait until `port` answers a request for `/small.html` with 200.
fn wait_ready(port: u16) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            s.set_read_timeout(Some(Duration::from_secs(2)))?;
            s.write_all(b"GET /small.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")?;
            let mut r = Vec::new();
            let _ = s.read_to_end(&mut r);
            if r.starts_with(b"HTTP/1.1 200") && r.len() > 512 {
                return Ok(());
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    bail!("the server on port {port} did not answer within 20 s")
}

/// One wrk run: requests/s, p50 and p99 in microseconds, errors.
struct Load {
    rps: f64,
    p50_us: f64,
    p99_us: f64,
    errors: u64,
}

fn wrk(port: u16, path: &str, connections: usize, seconds: u64) -> anyhow::Result<Load> {
    let threads = connections.clamp(1, 2);
    let out = Command::new("wrk")
        .args(["--latency", "-t", &threads.to_string(), "-c", &connections.to_string()])
        .args(["-d", &format!("{seconds}s"), &format!("http://127.0.0.1:{port}{path}")])
        .output()
        .context("running wrk (benches/web/run.sh installs it)")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut load = Load { rps: 0.0, p50_us: 0.0, p99_us: 0.0, errors: 0 };
    for line in text.lines().map(str::trim) {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("Requests/sec:"), Some(v)) => load.rps = v.parse()?,
            (Some("50%"), Some(v)) => load.p50_us = micros(v)?,
            (Some("99%"), Some(v)) => load.p99_us = micros(v)?,
            (Some("Non-2xx"), _) | (Some("Socket"), _) => {
                load.errors +=
                    line.split(|c: char| !c.is_ascii_digit()).filter_map(|n| n.parse::<u64>().ok()).sum::<u64>()
            }
            _ => {}
        }
    }
    if load.rps == 0.0 {
        bail!("wrk printed no rate:\n{text}");
    }
    Ok(load)
}

fn micros(v: &str) -> anyhow::Result<f64> {
    let split = v.find(|c: char| c.is_ascii_alphabetic()).context("a unit")?;
    let (n, unit) = v.split_at(split);
    let n: f64 = n.parse()?;
    Ok(match unit {
        "us" => n,
        "ms" => n * 1e3,
        "s" => n * 1e6,
        "m" => n * 60e6,
        _ => bail!("unknown unit in {v}"),
    })
}

fn command_line(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd)
        .args(args)
        .output()
        .map(|o| {
            let s = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
            s.lines().next().unwrap_or("").trim().to_string()
        })
        .unwrap_or_else(|_| "not found".into())
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let scratch = std::env::temp_dir().join(format!("ohua-web-bench-{}", std::process::id()));
    let root = scratch.join("root");
    ohua_examples::web::generate_root(&root)?;
    println!("== web: the web server of ch. 2 under wrk, loopback");
    println!("command : benches/web/run.sh --seconds {} --connections {:?}", args.seconds, args.connections);
    println!("nproc   : {}", std::thread::available_parallelism().map_or(0, |n| n.get()));
    println!(
        "cpu     : {}",
        std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|c| c.lines().find(|l| l.starts_with("model name")).map(|l| l
                .split(':')
                .nth(1)
                .unwrap_or("")
                .trim()
                .to_string()))
            .unwrap_or_default()
    );
    println!("rustc   : {}", command_line("rustc", &["--version"]));
    println!("commit  : {}", command_line("git", &["rev-parse", "--short", "HEAD"]));
    println!("wrk     : {}", command_line("wrk", &["--version"]));
    println!("nginx   : {}", command_line("nginx", &["-v"]));
    println!("peers   : hyper, tokio (versions in Cargo.lock), hand-written pool of 128 threads");
    let mut results: Vec<(String, usize, &str, Load)> = Vec::new();
    for peer in peers(&root, &scratch) {
        if !args.only.is_empty() && !args.only.iter().any(|o| peer.name.contains(o.as_str())) {
            continue;
        }
        let port = free_port()?;
        let mut child = (peer.start)(port)?;
        let ready = wait_ready(port);
        if let Err(e) = ready {
            stop(&mut child);
            bail!("{}: {e}", peer.name);
        }
        for &c in &args.connections {
            // A news snippet and an article (Fig. 2.24's resources): the
            // split server answers the first from memory, the second from
            // disk; for every other server both are files.
            for (size, path) in [("512 B", "/news/7.html"), ("20 KiB", "/articles/7.html")] {
                let load = wrk(port, path, c, args.seconds)?;
                println!(
                    "  {:<30} {:>3} conns {:>6}: {:>9.0} req/s  p50 {:>8.0} us  p99 {:>8.0} us{}",
                    peer.name,
                    c,
                    size,
                    load.rps,
                    load.p50_us,
                    load.p99_us,
                    if load.errors > 0 { format!("  ({} errors)", load.errors) } else { String::new() }
                );
                results.push((peer.name.clone(), c, size, load));
            }
        }
        stop(&mut child);
    }
    if args.only.is_empty() || args.only.iter().any(|o| o == "mixed") {
        mixed(&root, &scratch, args.seconds)?;
    }
    let _ = std::fs::remove_dir_all(&scratch);
    summary(&results);
    Ok(())
}

/// Fig. 2.24/2.25: snippets requested while other clients load articles.
/// The plain server (auto) against the split one (snippets from memory and
/// articles from disk in their own sections): snippet latency under the
/// article load.
fn mixed(root: &Path, scratch: &Path, seconds: u64) -> anyhow::Result<()> {
    println!("\nmixed load: 48 connections fetch articles (20 KiB, disk) while 16 fetch news snippets (512 B)");
    let split = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/web_server/split.toml");
    let _ = scratch;
    for (name, extra) in [("ohua auto (plain)", vec![]), ("ohua split (Fig. 2.25)", vec!["--split", "--deploy"])] {
        let port = free_port()?;
        let mut cmd = Command::new(bin("web_server"));
        cmd.arg("--root").arg(root).arg("--port").arg(port.to_string()).args(&extra);
        if !extra.is_empty() {
            cmd.arg(&split);
        }
        let mut child = spawn(&mut cmd)?;
        if let Err(e) = wait_ready(port) {
            stop(&mut child);
            bail!("{name}: {e}");
        }
        let articles = std::thread::spawn(move || wrk(port, "/articles/3.html", 48, seconds));
        std::thread::sleep(Duration::from_millis(200));
        let news = wrk(port, "/news/3.html", 16, seconds.saturating_sub(1).max(1))?;
        let art = articles.join().expect("the article load")?;
        println!(
            "  {name:<26} snippets {:>8.0} req/s p50 {:>6.0} us p99 {:>6.0} us | articles {:>8.0} req/s p50 {:>6.0} us p99 {:>6.0} us",
            news.rps, news.p50_us, news.p99_us, art.rps, art.p50_us, art.p99_us
        );
        stop(&mut child);
    }
    Ok(())
}

fn summary(results: &[(String, usize, &str, Load)]) {
    let find = |name: &str, c: usize, size: &str| {
        results.iter().find(|r| r.0.contains(name) && r.1 == c && r.2 == size).map(|r| r.3.rps)
    };
    println!("\nratios of requests/s (same run):");
    println!("  {:<30} {:>6} {:>7} {:>10} {:>10}", "server", "conns", "size", "vs pool", "vs nginx");
    for (name, c, size, load) in results {
        let ratio = |peer: &str| find(peer, *c, size).map_or("-".to_string(), |r| format!("{:.2}x", load.rps / r));
        println!("  {name:<30} {c:>6} {size:>7} {:>10} {:>10}", ratio("thread pool"), ratio("nginx"));
    }
    let best = results
        .iter()
        .filter(|r| r.0.starts_with("ohua") && r.1 == 64 && r.2 == "512 B")
        .max_by(|a, b| a.3.rps.total_cmp(&b.3.rps));
    if let (Some(best), Some(pool), Some(nginx)) = (best, find("thread pool", 64, "512 B"), find("nginx", 64, "512 B"))
    {
        println!(
            "best Ohua strategy at 64 connections, 512 B: {} at {:.0} req/s = {:.2}x the thread pool (target >= 1.0x), {:.2}x nginx (target >= 0.8x), p99 {:.0} us",
            best.0, best.3.rps, best.3.rps / pool, best.3.rps / nginx, best.3.p99_us
        );
    }
}
