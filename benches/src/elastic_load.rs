//! The open-loop load of the `elastic` benchmarks: a generator that sends
//! requests at a rate stepping through a schedule, the replies' latencies
//! per step, and their p99 per window against an SLA.

use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use ohua::Deployment;

/// A request: its sequence number and when it was due.
pub type Req = (u64, Instant);

/// A service under load: requests in, replies (in order) out, `rounds` of
/// work per unit of cost.
pub type Serve = fn(Receiver<Req>, Sender<Req>, u64) -> u64;

/// Replies in order: the state every request of a service under load
/// passes last.
pub struct Replies(Sender<Req>);

impl Replies {
    pub fn new(tx: Sender<Req>) -> Self {
        Replies(tx)
    }

    pub fn send(&mut self, r: Req) {
        let _ = self.0.send(r);
    }
}

/// The load: shares of one core's capacity, `secs` each.
#[derive(Clone, Copy)]
pub struct Schedule {
    pub steps: &'static [f64],
    pub step_secs: f64,
    /// Requests per second one core can take (1 / the work per request).
    pub rate_one: f64,
}

/// Each step's requests, as (when due, latency).
pub type Steps = Vec<Vec<(Instant, Duration)>>;

/// The CPU time the process has used so far (all its threads), in seconds.
pub fn cpu_secs() -> f64 {
    // SAFETY: `getrusage` fills the struct it is given; all-zero is a valid
    // `rusage`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// What one deployment's run under the load measured.
pub struct LoadRun {
    /// Each step's requests, as (when due, latency).
    pub steps: Steps,
    /// The run's report.
    pub report: ohua::RunReport,
    /// Cores the process used during each step: its CPU time over the
    /// step's wall time (the generator's share included, a few percent).
    pub cores: Vec<f64>,
}

/// One deployment's run of `serve` over `load`. Checks that every request
/// was answered, in order.
pub fn run(serve: Serve, d: Deployment, rounds: u64, load: Schedule) -> LoadRun {
    run_after(serve, d, rounds, load, &|_, _| 0)
}

/// A client's phase before the load: given the service's request and
/// reply channels, it sends requests numbered from 0 and takes every reply
/// itself; it returns how many it sent.
pub type Prelude<'p> = &'p dyn Fn(&Sender<Req>, &Receiver<Req>) -> u64;

/// [`run`], after `prelude` has used the service (its requests are not
/// in [`LoadRun::steps`]).
pub fn run_after(serve: Serve, d: Deployment, rounds: u64, load: Schedule, prelude: Prelude<'_>) -> LoadRun {
    let (req_tx, req_rx) = std::sync::mpsc::channel::<Req>();
    let (rep_tx, rep_rx) = std::sync::mpsc::channel::<Req>();
    let server = std::thread::spawn(move || {
        let (_, reports) = ohua::profile(|| ohua::with_deployment(d, || serve(req_rx, rep_tx, rounds)));
        reports.into_iter().next().expect("one run")
    });
    let first = prelude(&req_tx, &rep_rx);
    let collector = std::thread::spawn(move || {
        let mut got = Vec::new();
        for (id, sent) in rep_rx {
            got.push((id, sent, sent.elapsed()));
        }
        got
    });
    // Open loop: item i of a step is due at i / rate, whatever the replies.
    // The generator sleeps 0.5 ms at a time and then sends every item that
    // is due, stamped with its due time, so its latency counts from when
    // it was due (no coordinated omission) and the generator does not take
    // a core of the two by spinning.
    let mut bounds = Vec::new();
    let mut cores = Vec::new();
    let mut id = first;
    for share in load.steps {
        let rate = share * load.rate_one;
        let start = Instant::now();
        let cpu = cpu_secs();
        bounds.push(id);
        let n = (rate * load.step_secs) as u64;
        let mut i = 0;
        while i < n {
            std::thread::sleep(Duration::from_micros(500));
            let now = Instant::now();
            while i < n {
                let due = start + Duration::from_secs_f64(i as f64 / rate);
                if due > now {
                    break;
                }
                req_tx.send((id, due)).expect("server alive");
                id += 1;
                i += 1;
            }
        }
        cores.push((cpu_secs() - cpu) / start.elapsed().as_secs_f64());
    }
    bounds.push(id);
    drop(req_tx);
    let report = server.join().expect("server");
    let got = collector.join().expect("collector");
    assert_eq!(got.len() as u64, id - first, "every request answered");
    assert!(got.iter().enumerate().all(|(i, r)| r.0 == first + i as u64), "replies in order");
    let steps = bounds
        .windows(2)
        .map(|b| {
            got[(b[0] - first) as usize..(b[1] - first) as usize].iter().map(|&(_, sent, lat)| (sent, lat)).collect()
        })
        .collect();
    LoadRun { steps, report, cores }
}

/// The `p` quantile of `lat` (sorts it).
pub fn percentile(lat: &mut [Duration], p: f64) -> Duration {
    lat.sort();
    lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)]
}

/// The latencies of `items` by `window`, counted from the first item's due
/// time (empty windows left out), with each window's start in seconds.
fn by_window(items: &[(Instant, Duration)], window: Duration) -> Vec<(f64, Vec<Duration>)> {
    let Some(&(t0, _)) = items.first() else { return Vec::new() };
    let mut windows: Vec<Vec<Duration>> = Vec::new();
    for &(sent, lat) in items {
        let w = ((sent - t0).as_secs_f64() / window.as_secs_f64()) as usize;
        if windows.len() <= w {
            windows.resize(w + 1, Vec::new());
        }
        windows[w].push(lat);
    }
    windows
        .into_iter()
        .enumerate()
        .filter(|(_, w)| !w.is_empty())
        .map(|(k, w)| (k as f64 * window.as_secs_f64(), w))
        .collect()
}

/// How many `window`s of `step` had a p99 within `sla`, of how many.
pub fn windows_met(step: &[(Instant, Duration)], window: Duration, sla: Duration) -> (usize, usize) {
    let windows = by_window(step, window);
    let total = windows.len();
    let met = windows.into_iter().filter(|(_, w)| percentile(&mut w.clone(), 0.99) <= sla).count();
    (met, total)
}

/// The p99 of each `window` of the whole run, by the window's start in
/// seconds since the first item was due.
pub fn p99_per_window(steps: &Steps, window: Duration) -> Vec<(f64, Duration)> {
    let all: Vec<(Instant, Duration)> = steps.iter().flatten().copied().collect();
    by_window(&all, window).into_iter().map(|(t, mut w)| (t, percentile(&mut w, 0.99))).collect()
}

/// Print one line per step: load, p50/p99/max and the windows that met
/// `sla`; the windows met and counted over the steps other than those at
/// `overload` or above.
pub fn print_steps(
    name: &str,
    steps: Steps,
    load: Schedule,
    window: Duration,
    sla: Duration,
    overload: f64,
) -> (usize, usize) {
    let (mut met_all, mut total_all) = (0, 0);
    for (share, step) in load.steps.iter().zip(steps) {
        let (met, total) = windows_met(&step, window, sla);
        if *share < overload {
            (met_all, total_all) = (met_all + met, total_all + total);
        }
        let mut lat: Vec<Duration> = step.into_iter().map(|(_, l)| l).collect();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let (p50, p99) = (percentile(&mut lat, 0.5), percentile(&mut lat, 0.99));
        let max = *lat.last().expect("items");
        println!(
            "  {name:<32} {:>5.0}% {:>9.3} {:>9.3} {:>9.3} {:>7}/{:<4}",
            share * 100.0,
            ms(p50),
            ms(p99),
            ms(max),
            met,
            total
        );
    }
    (met_all, total_all)
}

/// What a load-step benchmark checks: a p99 of at most `sla` per `window`,
/// counted outside the steps at `overload` (a share of one core) or above.
#[derive(Clone, Copy)]
pub struct Sla {
    pub sla: Duration,
    pub window: Duration,
    pub overload: f64,
}

/// The deployments of a load-step benchmark: each printed as it is
/// recorded, the elastic ones compared at the end with the smallest fixed
/// deployment that met the SLA in each step.
pub struct Tally {
    load: Schedule,
    sla: Sla,
    /// Per fixed deployment and step: (met every window, cores).
    fixed: Vec<Vec<(bool, f64)>>,
    /// Per elastic deployment: its name and cores per step.
    elastic: Vec<(String, Vec<f64>)>,
}

impl Tally {
    /// A tally of runs over `load`; prints the table's header.
    pub fn new(load: Schedule, sla: Sla) -> Self {
        println!(
            "  {:<32} {:>6} {:>9} {:>9} {:>9} {:>12}",
            "deployment", "load", "p50 ms", "p99 ms", "max ms", "windows ok"
        );
        Tally { load, sla, fixed: Vec::new(), elastic: Vec::new() }
    }

    /// Print one deployment's run: per step, the windows met, the cores
    /// and the decisions of its elastic operators.
    pub fn record(&mut self, name: &str, is_fixed: bool, steps: Steps, cores: Vec<f64>, report: &ohua::RunReport) {
        let Sla { sla, window, overload } = self.sla;
        let step_met: Vec<bool> = steps
            .iter()
            .map(|s| {
                let (met, total) = windows_met(s, window, sla);
                met == total
            })
            .collect();
        let steps_all = steps.clone();
        let (met, total) = print_steps(name, steps, self.load, window, sla, overload);
        let shown: Vec<String> = cores.iter().map(|c| format!("{c:.2}")).collect();
        let decisions: Vec<String> = self.decisions_per_step(report).iter().map(usize::to_string).collect();
        println!(
            "  {name:<32} windows ok outside the overload step: {met}/{total} ({:.0} %); cores per step: {}; decisions per step: {}",
            100.0 * met as f64 / total.max(1) as f64,
            shown.join(", "),
            decisions.join(", ")
        );
        for n in report.nodes.iter().filter(|n| n.elastic.is_some()) {
            let e = n.elastic.expect("elastic");
            let held = e.open_lane_ms as f64 / (report.wall.as_secs_f64() * 1e3);
            println!("    {}: {} changes, up to {} open, {held:.2} held on average", n.name, e.resizes, e.most_open);
            // ELASTIC_DECISIONS=n: the first n decisions, with what caused them.
            let shown = std::env::var("ELASTIC_DECISIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
            for d in n.decisions.iter().take(shown) {
                println!("      {d}");
            }
        }
        if !report.recuts.is_empty() {
            let recuts: Vec<String> =
                self.per_step(report.recuts.iter().map(|r| r.at)).iter().map(usize::to_string).collect();
            println!("    sections re-cut per step: {}", recuts.join(", "));
            // RECUT_DECISIONS=n: the first n re-cuts.
            let shown = std::env::var("RECUT_DECISIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
            for r in report.recuts.iter().take(shown) {
                println!("      {r}");
            }
        }
        // SLA_MISSES=1: each missed window outside the overload step, with
        // the decisions and re-cuts in it and in the window before.
        if std::env::var_os("SLA_MISSES").is_some() {
            self.print_misses(&steps_all, report);
        }
        if is_fixed {
            self.fixed.push(step_met.into_iter().zip(cores).collect());
        } else {
            self.elastic.push((name.to_string(), cores));
        }
    }

    /// The windows outside the overload step whose p99 missed the SLA, with
    /// the decisions and re-cuts from a window before to its end.
    fn print_misses(&self, steps: &Steps, report: &ohua::RunReport) {
        let Sla { sla, window, overload } = self.sla;
        let w = window.as_secs_f64();
        for (t, p99) in p99_per_window(steps, window) {
            let step = ((t / self.load.step_secs) as usize).min(self.load.steps.len() - 1);
            if p99 <= sla || self.load.steps[step] >= overload {
                continue;
            }
            println!("      missed: window at {t:.0} s, p99 {:.3} ms", p99.as_secs_f64() * 1e3);
            let near = |at: Duration| (t - w..t + w).contains(&at.as_secs_f64());
            for n in &report.nodes {
                for d in n.decisions.iter().filter(|d| near(d.at)) {
                    println!("        {}: {d}", n.name);
                }
            }
            for r in report.recuts.iter().filter(|r| near(r.at)) {
                println!("        re-cut: {r}");
            }
        }
    }

    /// Decisions of the run's elastic operators, binned by step.
    fn decisions_per_step(&self, report: &ohua::RunReport) -> Vec<usize> {
        self.per_step(report.nodes.iter().flat_map(|n| &n.decisions).map(|d| d.at))
    }

    /// Moments of the run binned by step.
    fn per_step(&self, moments: impl Iterator<Item = std::time::Duration>) -> Vec<usize> {
        let steps = self.load.steps.len();
        let mut per_step = vec![0; steps];
        for at in moments {
            per_step[((at.as_secs_f64() / self.load.step_secs) as usize).min(steps - 1)] += 1;
        }
        per_step
    }

    /// Print each elastic deployment's cores per step against the smallest
    /// fixed deployment that met the SLA in every window of that step.
    pub fn finish(self) {
        let smallest: Vec<Option<f64>> = (0..self.load.steps.len())
            .map(|k| self.fixed.iter().filter(|f| f[k].0).map(|f| f[k].1).min_by(f64::total_cmp))
            .collect();
        let shown: Vec<String> = smallest.iter().map(|c| c.map_or("none".into(), |c| format!("{c:.2}"))).collect();
        println!("  cores of the smallest fixed deployment that met the SLA, per step: {}", shown.join(", "));
        for (name, cores) in self.elastic {
            let ratios: Vec<String> =
                cores.iter().zip(&smallest).map(|(c, s)| s.map_or("-".into(), |s| format!("{:.2}x", c / s))).collect();
            println!("  {name:<32} cores against it, per step: {}", ratios.join(", "));
        }
        println!();
    }
}
