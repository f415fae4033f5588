//! `web-update`: latency of the example web server (`examples/src/web/`)
//! over live updates (issue 13, the dissertation's Fig. 5.20 and 5.21).
//!
//! The server serves `WEB_UPDATE_FILES` (1,000) files of
//! `WEB_UPDATE_SIZE` (50 kB, as Fig. 5.20) bytes, on the default (`auto`)
//! deployment. An open-loop client (`client.rs`) sends `GET`s for files
//! chosen at random at `WEB_UPDATE_RATE` (10,000) requests per second over
//! `WEB_UPDATE_CONNS` (32) keep-alive connections, for `WEB_UPDATE_SECS`
//! (4 s), and measures each request's latency from when it was due. At
//! `WEB_UPDATE_AT` (2 s), each variant acts on the running server:
//!
//! - `no-op marker`: `service.marker()`, a cut that changes nothing (the
//!   baseline: what a cut costs by itself);
//! - `cache insertion`: a transform of `load`'s `Files` state into a
//!   caching one (Fig. 5.17's cache, as a state transform);
//! - `sendfile switch`: `load` and `reply` replaced together by their
//!   zero-copy versions at one cut (§5.3.2's NIO switch, Fig. 5.20).
//!
//! The files must be small for these to differ: one over 256 KiB
//! (`Limits::stream_above`) is streamed by `sendfile` and never cached by
//! the default server already, so the cache would hold nothing and the
//! switch would change only the header that announces it.
//!
//! Every variant is a fresh server, `WEB_UPDATE_ROUNDS` (5) rounds of the
//! three; the table gives medians over rounds, the ratios the update
//! window's p99 over the no-op marker's (per round, and their median), the
//! plot (`WEB_UPDATE_SVG`, `benches/results/web-update-latency.svg`) the
//! median p99 and max per 100 ms window. Every response is checked byte for
//! byte; lost and wrong responses are counted.
//!
//! Then `WEB_UPDATE_CLOSED_RUNS` (3) closed-loop runs (what wrk measures;
//! wrk itself is not needed) of `WEB_UPDATE_CLOSED_SECS` (6 s): every
//! connection sends its next request as soon as it has a response, with the
//! cache inserted after a third of the run and the sendfile switch made
//! after two thirds: requests per second before, between and after.
//!
//! Then, if `wrk` is installed, `WEB_UPDATE_WRK_RUNS` (1) pairs of `wrk`
//! runs of `WEB_UPDATE_WRK_SECS` (9 s), without and with both updates
//! (`wrk.rs`).
//!
//! `WEB_UPDATE_THP=off` turns transparent huge pages off for the process:
//! the cache's memory is then faulted in 4 KiB at a time rather than in
//! 2 MiB pages, each zeroed by the kernel in the section thread that first
//! touches it (which is what the cache insertion's latency spike is made
//! of; `BENCHMARKS.md`).

pub(crate) mod client;
mod wrk;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use ohua_examples::web::{self, Files, Limits, Ready, Root, ServeStats, Shutdown};

use crate::common::header;
use crate::update::plot;
use crate::update::stats::{median, window_of, Window, WINDOW};
use client::{drive, due_ns, Collected, Content, Mode};

/// A setting from the environment, or `default`.
fn setting<T: std::str::FromStr>(name: &str, default: T) -> T {
    crate::common::setting("web-update", name, default)
}

fn ms(us: u64) -> String {
    format!("{:.2}", us as f64 / 1e3)
}

/// What happens to the running server at the update time.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Variant {
    NoOp,
    Cache,
    Sendfile,
}

impl Variant {
    const ALL: [Variant; 3] = [Variant::NoOp, Variant::Cache, Variant::Sendfile];

    fn label(self) -> &'static str {
        match self {
            Variant::NoOp => "no-op marker",
            Variant::Cache => "cache insertion",
            Variant::Sendfile => "sendfile switch",
        }
    }

    /// Act on `service`; what the marker's report says.
    fn act(self, service: &ohua::Service<Served>) -> String {
        let r = match self {
            Variant::NoOp => service.marker(),
            Variant::Cache => {
                service.update(ohua::Update::new().transform(|old: &Files| Ok::<_, String>(old.with_cache())))
            }
            Variant::Sendfile => service.update(web::switch_to_sendfile()),
        };
        let r = r.unwrap_or_else(|e| panic!("web-update: {}: {e}", self.label()));
        format!(
            "cut after {:.3} ms, complete after {:.3} ms, {} operator(s) adopted, {} state(s) transformed",
            r.until_cut.as_secs_f64() * 1e3,
            r.until_complete.as_secs_f64() * 1e3,
            r.adopted.len(),
            r.transformed.len()
        )
    }
}

/// The load of one open-loop run.
#[derive(Clone, Copy)]
struct Plan {
    rate: f64,
    length: Duration,
    update_at: Duration,
    connections: usize,
}

impl Plan {
    fn requests(&self) -> u64 {
        (self.rate * self.length.as_secs_f64()) as u64
    }
}

/// The server's result: its statistics and its run report.
type Served = (ServeStats, Vec<ohua::RunReport>);

/// A server on `root`, as a service on the default deployment.
fn start(root: &Root) -> (ohua::Service<Served>, Shutdown, SocketAddr) {
    let (ready, shutdown, addr) =
        Ready::bind("127.0.0.1:0".parse().expect("an address"), Limits::default()).expect("web-update: bind");
    let root = root.clone();
    let service = ohua::service(move || ohua::profile(|| web::web_server(ready, &root)));
    (service, shutdown, addr)
}

/// Stop the server; its statistics and run report.
fn stop(service: ohua::Service<Served>, shutdown: Shutdown) -> Served {
    shutdown.stop();
    let t = Instant::now();
    while !service.is_finished() {
        assert!(t.elapsed() < Duration::from_secs(60), "web-update: the server did not stop within 60 s");
        std::thread::sleep(Duration::from_millis(1));
    }
    service.join()
}

/// One open-loop run of `variant`.
struct Outcome {
    collected: Collected,
    stats: ServeStats,
    /// How many sections the server ran on.
    sections: usize,
    detail: String,
    /// The share of all cores the process used while the load ran.
    cpu: Option<f64>,
}

fn run_once(variant: Variant, plan: &Plan, root: &Root, content: &Content) -> Outcome {
    let (service, shutdown, addr) = start(root);
    let cpu_before = cpu_time();
    let start_at = Instant::now() + Duration::from_millis(20);
    let mode = Mode::Open { rate: plan.rate, n: plan.requests() };
    let connections = plan.connections;
    let (collected, detail) = std::thread::scope(|s| {
        let load = s.spawn(|| drive(addr, content, connections, mode, start_at, Duration::from_secs(5)));
        std::thread::sleep((start_at + plan.update_at).saturating_duration_since(Instant::now()));
        let detail = variant.act(&service);
        (load.join().expect("the client").expect("web-update: the client failed"), detail)
    });
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let cpu = cpu_before.zip(cpu_time()).map(|(a, b)| (b - a).as_secs_f64() / start_at.elapsed().as_secs_f64() / cores);
    let (stats, reports) = stop(service, shutdown);
    let sections = reports.first().map_or(0, |r| r.sections);
    Outcome { collected, stats, sections, detail, cpu }
}

/// Latency [µs] from when each request was due, per window of its due time.
fn windows(c: &Collected, plan: &Plan) -> Vec<Window> {
    let count = plan.length.as_nanos().div_ceil(WINDOW.as_nanos()) as usize;
    let mut hists: Vec<Histogram<u64>> =
        (0..count).map(|_| Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid bounds")).collect();
    for (i, &done) in c.done.iter().enumerate() {
        if done == u64::MAX {
            continue;
        }
        let due = due_ns(i as u64, plan.rate);
        let w = ((due / WINDOW.as_nanos() as u64) as usize).min(count - 1);
        hists[w].saturating_record((done.saturating_sub(due) / 1_000).max(1));
    }
    hists
        .iter()
        .map(|h| Window { p50: h.value_at_quantile(0.5), p99: h.value_at_quantile(0.99), max: h.max() })
        .collect()
}

/// The numbers of one run [µs].
#[derive(Clone, Copy, Default)]
struct Summary {
    update_p99: u64,
    update_max: u64,
    /// The largest latency within 200 ms of the update.
    near_max: u64,
    /// Median p50 and p99 of the windows before the update (the first
    /// 200 ms left out: connections warming up).
    before_p50: u64,
    before_p99: u64,
    /// Median p50 and p99 of the windows from 300 ms after the update on.
    after_p50: u64,
    after_p99: u64,
    lost: u64,
    wrong: u64,
    /// Responses sent by sendfile (the client's count of the header), and
    /// the server's count.
    by_sendfile: u64,
    server_sendfile: u64,
    /// Responses the server counted, against those the client received.
    server_responses: u64,
    received: u64,
    /// Responses before the update time that came by sendfile, and after
    /// 300 ms past it that did not (both 0 for a correct switch).
    early_sendfile: u64,
    late_copy: u64,
    /// From the update time to the first response sent by sendfile [µs].
    first_sendfile: Option<u64>,
}

fn summarize(o: &Outcome, ws: &[Window], plan: &Plan) -> Summary {
    let c = &o.collected;
    let u = window_of(plan.update_at).min(ws.len() - 1);
    let near = window_of(plan.update_at.saturating_sub(Duration::from_millis(200)))
        ..window_of(plan.update_at + Duration::from_millis(200)).min(ws.len());
    let after = window_of(plan.update_at + Duration::from_millis(300)).min(ws.len());
    let warm = window_of(Duration::from_millis(200)).min(u);
    let at = plan.update_at.as_nanos() as u64;
    let settled = at + 300_000_000;
    let (mut early, mut late, mut first) = (0, 0, None);
    for (i, (&done, &sf)) in c.done.iter().zip(&c.sendfile).enumerate() {
        if done == u64::MAX {
            continue;
        }
        let due = due_ns(i as u64, plan.rate);
        early += u64::from(sf && done < at);
        late += u64::from(!sf && due > settled);
        if sf {
            let since = done.saturating_sub(at) / 1_000;
            first = Some(first.map_or(since, |f: u64| f.min(since)));
        }
    }
    let received = c.done.iter().filter(|&&d| d != u64::MAX).count() as u64;
    Summary {
        update_p99: ws[u].p99,
        update_max: ws[u].max,
        near_max: ws[near].iter().map(|w| w.max).max().unwrap_or(0),
        before_p50: median(ws[warm..u].iter().map(|w| w.p50).collect()),
        before_p99: median(ws[warm..u].iter().map(|w| w.p99).collect()),
        after_p50: median(ws[after..].iter().map(|w| w.p50).collect()),
        after_p99: median(ws[after..].iter().map(|w| w.p99).collect()),
        lost: c.lost(),
        wrong: c.wrong,
        by_sendfile: c.sendfile.iter().filter(|&&s| s).count() as u64,
        server_sendfile: o.stats.sendfile,
        server_responses: o.stats.responses(),
        received,
        early_sendfile: early,
        late_copy: late,
        first_sendfile: first,
    }
}

/// What a run did wrong, if anything.
fn problems(variant: Variant, s: &Summary, c: &Collected) -> Vec<String> {
    let mut p = Vec::new();
    if s.lost > 0 {
        p.push(format!("{} request(s) lost", s.lost));
    }
    if s.wrong > 0 {
        p.push(format!("{} response(s) wrong", s.wrong));
    }
    if s.server_responses != s.received {
        p.push(format!("the server counted {} responses, the client received {}", s.server_responses, s.received));
    }
    if s.server_sendfile != s.by_sendfile {
        p.push(format!(
            "{} bodies by sendfile by the server's count, {} by the headers",
            s.server_sendfile, s.by_sendfile
        ));
    }
    if (variant == Variant::Sendfile) != (s.by_sendfile > 0) {
        p.push(format!("{} response(s) by sendfile", s.by_sendfile));
    }
    if s.early_sendfile > 0 || (variant == Variant::Sendfile && s.late_copy > 0) {
        p.push(format!("{} by sendfile before the update, {} copied 300 ms after it", s.early_sendfile, s.late_copy));
    }
    p.extend(c.problems.iter().cloned());
    p
}

/// Transparent huge pages allocated on a fault, system-wide so far
/// (`/proc/vmstat`); `None` where there is no such counter.
fn thp_faults() -> Option<u64> {
    let vmstat = std::fs::read_to_string("/proc/vmstat").ok()?;
    vmstat.lines().find_map(|l| l.strip_prefix("thp_fault_alloc ")?.trim().parse().ok())
}

/// `WEB_UPDATE_THP=off`: no transparent huge pages for this process
/// (`prctl(PR_SET_THP_DISABLE)`), so memory the server newly touches (the
/// cache's) is faulted in 4 KiB at a time instead of 2 MiB, each zeroed by
/// the kernel in the thread that touches it. What it says about the setting.
fn huge_pages() -> String {
    match setting("WEB_UPDATE_THP", "on".to_string()).as_str() {
        "on" => {
            let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
            format!("system setting ({})", mode.trim())
        }
        "off" => {
            // SAFETY: a plain prctl on this process.
            let r = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
            assert_eq!(r, 0, "web-update: prctl(PR_SET_THP_DISABLE) failed");
            "off for this process (WEB_UPDATE_THP=off, prctl PR_SET_THP_DISABLE)".to_string()
        }
        other => panic!("web-update: WEB_UPDATE_THP={other}: expected on or off"),
    }
}

/// CPU time this process has used (user + system), from `/proc/self/stat`.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// Runs the benchmark.
pub fn run() {
    header("web-update", "web server latency over live updates: cache insertion, sendfile switch (Fig. 5.20)");
    let plan = Plan {
        rate: setting("WEB_UPDATE_RATE", 10_000.0),
        length: Duration::from_secs_f64(setting("WEB_UPDATE_SECS", 4.0)),
        update_at: Duration::from_secs_f64(setting("WEB_UPDATE_AT", 2.0)),
        connections: setting("WEB_UPDATE_CONNS", 32),
    };
    let rounds: usize = setting("WEB_UPDATE_ROUNDS", 5);
    let files: usize = setting("WEB_UPDATE_FILES", 1_000);
    let size: usize = setting("WEB_UPDATE_SIZE", 50 * 1024);
    let thp = huge_pages();
    let svg_path: String =
        setting("WEB_UPDATE_SVG", concat!(env!("CARGO_MANIFEST_DIR"), "/results/web-update-latency.svg").to_string());
    let dir = tempfile::tempdir().expect("web-update: a temporary directory");
    let content = Content::generate(dir.path(), files, size).expect("web-update: the document root");
    let root = Root::new(dir.path(), false).expect("web-update: the root");

    // Both versions of the server run once first (the page cache holds the
    // files, and `auto` has measured the operators).
    let warm = Plan { length: Duration::from_millis(1_500), update_at: Duration::from_millis(750), ..plan };
    let warmed = run_once(Variant::Sendfile, &warm, &root, &content);
    let capacity = closed_loop(&root, &content, plan.connections, Duration::from_secs(1), &[]);
    println!(
        "files   : {files} of {size} bytes, each request for one at random; server: web_server, default deployment (auto): {} section(s)",
        warmed.sections
    );
    println!(
        "load    : {} requests/s open loop over {} keep-alive connections for {:?}, update at {:?}",
        plan.rate, plan.connections, plan.length, plan.update_at
    );
    println!(
        "capacity: {:.0} requests/s closed loop on version 1 (1 s, same connections), so the rate is {:.0} % of it",
        capacity.rate(0),
        100.0 * plan.rate / capacity.rate(0)
    );
    println!("thp     : transparent huge pages {thp}");
    println!("rounds  : {rounds} (each variant once per round, each run a fresh server); medians over rounds\n");
    let thp_before = thp_faults();

    let mut results: Vec<Vec<(Summary, Vec<Window>)>> = vec![Vec::new(); Variant::ALL.len()];
    for round in 1..=rounds {
        for (k, &variant) in Variant::ALL.iter().enumerate() {
            let outcome = run_once(variant, &plan, &root, &content);
            let ws = windows(&outcome.collected, &plan);
            let s = summarize(&outcome, &ws, &plan);
            let cpu = outcome.cpu.map_or("-".to_string(), |c| format!("{:.0} %", c * 100.0));
            let first =
                s.first_sendfile.map_or(String::new(), |us| format!(", first sendfile reply {} ms after", ms(us)));
            println!("round {round} {:<16} cpu {cpu:>4}: {}{first}", variant.label(), outcome.detail);
            let p = problems(variant, &s, &outcome.collected);
            if !p.is_empty() {
                println!("  !! {}: {}", variant.label(), p.join("; "));
            }
            results[k].push((s, ws));
        }
    }
    if let Some((a, b)) = thp_before.zip(thp_faults()) {
        println!("huge-page faults (thp_fault_alloc, whole machine) during the rounds: {}", b - a);
    }
    table(&results);
    ratios(&results);
    let series: Vec<plot::Series<'_>> = Variant::ALL
        .iter()
        .zip(&results)
        .map(|(v, runs)| plot::Series { label: v.label(), windows: median_windows(runs) })
        .collect();
    let title = format!(
        "web server, {} files of {} kB, {} requests/s: p99, max per 100 ms window, median of {rounds} rounds",
        files,
        size / 1024,
        plan.rate
    );
    let svg = plot::svg(&series, plan.length, plan.update_at, &title);
    if let Some(dir) = std::path::Path::new(&svg_path).parent() {
        std::fs::create_dir_all(dir).expect("web-update: cannot create the plot's folder");
    }
    std::fs::write(&svg_path, svg).expect("web-update: cannot write the plot");
    println!("plot    : {svg_path}");

    // Closed loop, both updates in one run: throughput per phase.
    let length = Duration::from_secs_f64(setting("WEB_UPDATE_CLOSED_SECS", 6.0));
    let runs: usize = setting("WEB_UPDATE_CLOSED_RUNS", 3);
    let at = [length / 3, length * 2 / 3];
    println!(
        "\nclosed loop ({} connections, {:?}, {runs} runs; cache inserted at {:?}, sendfile switch at {:?}): requests/s, median of the 100 ms windows of each phase (its first 300 ms left out), and the lowest window within 200 ms of each update",
        plan.connections, length, at[0], at[1]
    );
    for run in 1..=runs {
        let t = closed_loop(&root, &content, plan.connections, length, &at);
        println!(
            "  run {run}: version 1 {:.0}, cached {:.0}, sendfile {:.0}; lowest around the cache insertion {:.0}, around the switch {:.0} ({} wrong, {} lost, {} by sendfile)",
            t.rate(0),
            t.rate(1),
            t.rate(2),
            t.lowest(0),
            t.lowest(1),
            t.wrong,
            t.lost,
            t.by_sendfile
        );
    }

    let wrk_runs: usize = setting("WEB_UPDATE_WRK_RUNS", 1);
    if wrk_runs > 0 && wrk::available() {
        wrk::compare(&root, files, plan.connections, Duration::from_secs(setting("WEB_UPDATE_WRK_SECS", 9)), wrk_runs);
    } else if wrk_runs > 0 {
        println!(
            "
wrk: not installed (apt-get install wrk), its runs left out"
        );
    }
}

/// Requests per 100 ms window of a closed-loop run, and its phases.
struct Throughput {
    /// Responses completed per window.
    per_window: Vec<u64>,
    /// Where each phase starts (the update times), as windows.
    phases: Vec<usize>,
    wrong: u64,
    lost: u64,
    by_sendfile: u64,
}

impl Throughput {
    /// The median requests/s of phase `k`'s windows (300 ms after its
    /// start on, the last window left out: it ends with the load).
    fn rate(&self, k: usize) -> f64 {
        let starts: Vec<usize> = std::iter::once(0).chain(self.phases.iter().copied()).collect();
        let from = starts[k] + if k == 0 { 2 } else { 3 };
        let to = starts.get(k + 1).copied().unwrap_or(self.per_window.len().saturating_sub(1));
        let xs: Vec<u64> = self.per_window.get(from..to).map(<[u64]>::to_vec).unwrap_or_default();
        median(xs) as f64 / WINDOW.as_secs_f64()
    }

    /// The lowest requests/s of the windows within 200 ms of update `k`.
    fn lowest(&self, k: usize) -> f64 {
        let at = self.phases[k];
        let near = at.saturating_sub(2)..(at + 2).min(self.per_window.len());
        self.per_window[near].iter().min().copied().unwrap_or(0) as f64 / WINDOW.as_secs_f64()
    }
}

/// A closed-loop run of `length` on a fresh server: at `updates[0]` the
/// cache insertion, at `updates[1]` the sendfile switch (if given).
fn closed_loop(
    root: &Root,
    content: &Content,
    connections: usize,
    length: Duration,
    updates: &[Duration],
) -> Throughput {
    let (service, shutdown, addr) = start(root);
    let start_at = Instant::now() + Duration::from_millis(20);
    let mode = Mode::Closed { length };
    let c = std::thread::scope(|s| {
        let load = s.spawn(|| drive(addr, content, connections, mode, start_at, Duration::from_secs(5)));
        for (k, &at) in updates.iter().enumerate() {
            std::thread::sleep((start_at + at).saturating_duration_since(Instant::now()));
            let v = if k == 0 { Variant::Cache } else { Variant::Sendfile };
            v.act(&service);
        }
        load.join().expect("the client").expect("web-update: the client failed")
    });
    stop(service, shutdown);
    let count = length.as_nanos().div_ceil(WINDOW.as_nanos()) as usize;
    let mut per_window = vec![0; count];
    for &done in c.done.iter().filter(|&&d| d != u64::MAX) {
        per_window[((done / WINDOW.as_nanos() as u64) as usize).min(count - 1)] += 1;
    }
    Throughput {
        per_window,
        phases: updates.iter().map(|&at| window_of(at)).collect(),
        wrong: c.wrong,
        lost: c.lost(),
        by_sendfile: c.sendfile.iter().filter(|&&s| s).count() as u64,
    }
}

/// The table: medians over rounds, except lost and wrong (sums).
fn table(results: &[Vec<(Summary, Vec<Window>)>]) {
    println!(
        "\nlatency [ms] from the request's due time to its complete response; median over rounds (lost, wrong: sum)"
    );
    println!(
        "  {:<16} {:>8} {:>8} {:>10} {:>8} {:>8} {:>8} {:>8} {:>9} {:>5} {:>5} {:>9}",
        "variant",
        "upd p99",
        "upd max",
        "±200ms max",
        "pre p50",
        "pre p99",
        "post p50",
        "post p99",
        "upd/pre",
        "lost",
        "wrong",
        "sendfile"
    );
    for (v, runs) in Variant::ALL.iter().zip(results) {
        let m = |f: fn(&Summary) -> u64| median(runs.iter().map(|r| f(&r.0)).collect());
        let sum = |f: fn(&Summary) -> u64| runs.iter().map(|r| f(&r.0)).sum::<u64>();
        let mut own: Vec<f64> = runs.iter().map(|r| r.0.update_p99 as f64 / r.0.before_p99.max(1) as f64).collect();
        own.sort_by(f64::total_cmp);
        println!(
            "  {:<16} {:>8} {:>8} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8.2}x {:>5} {:>5} {:>9}",
            v.label(),
            ms(m(|s| s.update_p99)),
            ms(m(|s| s.update_max)),
            ms(m(|s| s.near_max)),
            ms(m(|s| s.before_p50)),
            ms(m(|s| s.before_p99)),
            ms(m(|s| s.after_p50)),
            ms(m(|s| s.after_p99)),
            own[own.len() / 2],
            sum(|s| s.lost),
            sum(|s| s.wrong),
            m(|s| s.by_sendfile),
        );
    }
}

/// Each update's window p99 over the no-op marker's of the same round.
fn ratios(results: &[Vec<(Summary, Vec<Window>)>]) {
    println!();
    for k in 1..Variant::ALL.len() {
        let each: Vec<f64> = results[k]
            .iter()
            .zip(&results[0])
            .map(|(x, base)| x.0.update_p99 as f64 / base.0.update_p99.max(1) as f64)
            .collect();
        let mut sorted = each.clone();
        sorted.sort_by(f64::total_cmp);
        let med = sorted[sorted.len() / 2];
        let shown: Vec<String> = each.iter().map(|r| format!("{r:.2}")).collect();
        println!(
            "  {} / no-op marker, update-window p99: {med:.2}x (rounds: {})  target <= 1.2  {}",
            Variant::ALL[k].label(),
            shown.join(" "),
            if med <= 1.2 { "✓" } else { "✗" }
        );
    }
}

/// Per window, the median over rounds of p50, p99 and max.
fn median_windows(runs: &[(Summary, Vec<Window>)]) -> Vec<Window> {
    let count = runs.iter().map(|r| r.1.len()).min().unwrap_or(0);
    (0..count)
        .map(|i| Window {
            p50: median(runs.iter().map(|r| r.1[i].p50).collect()),
            p99: median(runs.iter().map(|r| r.1[i].p99).collect()),
            max: median(runs.iter().map(|r| r.1[i].max).collect()),
        })
        .collect()
}
