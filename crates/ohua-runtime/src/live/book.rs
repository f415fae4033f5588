//! The live view's record of the process's runs: the latest report of each
//! algorithm, the runs going on now, and when each finished run ended (for
//! the throughput and latency plots). Filled by `exec` as runs start and
//! end; read by the view server when the page asks.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use ohua_view::{RunView, Series};

use super::counts::LiveCounts;
use crate::deploy::Plan;
use crate::graph::{GraphInfo, OpKind};
use crate::report::{NodeStats, RunReport};
use crate::sync::process::Arc;
use crate::update::{Action, Control, Marker};

/// How far back the plots reach.
pub(crate) const HISTORY: Duration = Duration::from_secs(300);

/// How long a run of an algorithm that finished runs before must have
/// run for the view to show it instead of the latest finished one.
const SHOW_RUNNING_AFTER: Duration = Duration::from_secs(1);

/// Finished runs remembered per algorithm for the plots: a process that
/// calls an algorithm 100 000 times a second keeps the latest only.
const MAX_DONE: usize = 20_000;

/// A run going on now.
pub(crate) struct Running {
    pub(crate) token: u64,
    pub(crate) graph: &'static GraphInfo,
    pub(crate) plan: Plan,
    /// The head of the fused piece each operator runs in: its counts are
    /// the head's.
    pub(crate) fused_into: Vec<Option<usize>>,
    pub(crate) started: Instant,
    pub(crate) control: Option<Arc<Control>>,
    /// What its sections published so far.
    pub(crate) counts: Arc<LiveCounts>,
    /// Items its top-level loops had taken, sampled once a second
    /// ([`Book::sample`]): the throughput plot of a run that goes on.
    pub(crate) samples: VecDeque<(Instant, u64)>,
    /// A service's latency probe in flight ([`Action::Probe`]).
    pub(crate) probe: Option<std::sync::Arc<Marker>>,
    /// When each probe completed, and the latency it measured (ms): the
    /// latency plot of a running service.
    pub(crate) latencies: VecDeque<(Instant, f64)>,
}

impl Running {
    /// Take the probe's measurement if it completed and send the next:
    /// one probe at a time, so a loaded service is not flooded with them.
    fn probe(&mut self, now: Instant) {
        let Some(control) = &self.control else { return };
        if let Some(probe) = &self.probe {
            match probe.wait_timeout(Duration::ZERO) {
                None => return,
                Some(Ok(report)) if probe.timed_an_item() => {
                    let latency = report.until_complete.saturating_sub(report.until_cut);
                    self.latencies.push_back((report.requested + report.until_complete, latency.as_secs_f64() * 1e3));
                }
                // Went ahead of its item, or the run ended before it got through.
                Some(_) => {}
            }
            control.forget_probe(probe.id());
            self.probe = None;
        }
        while self.latencies.front().is_some_and(|(t, _)| now.saturating_duration_since(*t) > HISTORY) {
            self.latencies.pop_front();
        }
        if !control.finished() && !control.stopping() {
            self.probe = Some(control.request(Action::Probe));
        }
    }
}

/// A finished run, for the plots.
struct Done {
    ended: Instant,
    wall_ms: f64,
    items: u64,
}

/// Everything the view knows of one algorithm.
struct Algorithm {
    name: &'static str,
    latest: Option<RunView>,
    calls: u64,
    running: Vec<Running>,
    done: VecDeque<Done>,
}

/// Every algorithm the process ran since the view started, in the order
/// each first ran.
#[derive(Default)]
pub(crate) struct Book {
    algorithms: Vec<Algorithm>,
    next_token: u64,
}

impl Book {
    fn algorithm(&mut self, name: &'static str) -> &mut Algorithm {
        let at = match self.algorithms.iter().position(|a| a.name == name) {
            Some(at) => at,
            None => {
                let fresh = Algorithm { name, latest: None, calls: 0, running: Vec::new(), done: VecDeque::new() };
                self.algorithms.push(fresh);
                self.algorithms.len() - 1
            }
        };
        &mut self.algorithms[at]
    }

    /// A run started (its `token` is set here); the token names it when
    /// it ends.
    pub(crate) fn started(&mut self, mut run: Running) -> u64 {
        self.next_token += 1;
        run.token = self.next_token;
        self.algorithm(run.graph.algorithm).running.push(run);
        self.next_token
    }

    /// Probe each running service's latency, and once per
    /// `every` note how many items each running run's top-level loops
    /// have taken (the view's sampler thread calls it several times a
    /// second).
    pub(crate) fn sample(&mut self, now: Instant, every: Duration) {
        for r in self.algorithms.iter_mut().flat_map(|a| a.running.iter_mut()) {
            r.counts.ask_to_publish();
            r.probe(now);
            if r.samples.back().is_some_and(|(t, _)| now.saturating_duration_since(*t) < every) {
                continue;
            }
            let totals = r.counts.totals();
            let items = top_loops(r.graph).map(|id| totals.get(id).map_or(0, |t| t.0)).max().unwrap_or(0);
            r.samples.push_back((now, items));
            while r.samples.front().is_some_and(|(t, _)| now.saturating_duration_since(*t) > HISTORY) {
                r.samples.pop_front();
            }
        }
    }

    /// The run `token` (if the view saw it start) ended with `report`.
    pub(crate) fn finished(&mut self, token: Option<u64>, report: &RunReport, origin: Instant) {
        let a = self.algorithm(report.algorithm);
        if let Some(token) = token {
            a.running.retain(|r| r.token != token);
        }
        a.calls += 1;
        let mut view = report.to_view(origin);
        view.calls = a.calls;
        a.latest = Some(view);
        a.done.push_back(Done {
            ended: Instant::now(),
            wall_ms: report.wall.as_secs_f64() * 1e3,
            items: items_of(report),
        });
        while a.done.len() > MAX_DONE {
            a.done.pop_front();
        }
    }

    /// The view's data as of `now`.
    pub(crate) fn runs(&mut self, origin: Instant, now: Instant) -> Vec<RunView> {
        let mut out = Vec::new();
        for a in &mut self.algorithms {
            while a.done.front().is_some_and(|d| now.saturating_duration_since(d.ended) > HISTORY) {
                a.done.pop_front();
            }
            // A call that just started would hide the history of the calls
            // before it: show a running run once it has run a while, or if
            // nothing finished yet.
            let shown = a
                .running
                .last()
                .filter(|r| a.latest.is_none() || now.saturating_duration_since(r.started) >= SHOW_RUNNING_AFTER);
            let mut view = match shown {
                Some(r) => {
                    let mut view = running_view(r, origin, now);
                    view.series = sampled_series(&r.samples, &r.latencies, origin);
                    view
                }
                None => match &a.latest {
                    Some(v) => {
                        let mut view = v.clone();
                        view.series = series(&a.done, origin, now);
                        view
                    }
                    None => continue,
                },
            };
            view.calls = a.calls;
            out.push(view);
        }
        out
    }
}

/// The loop entries of a graph's top level.
fn top_loops(graph: &GraphInfo) -> impl Iterator<Item = usize> + '_ {
    graph.nodes.iter().enumerate().filter(|(_, n)| n.kind == OpKind::SMap && n.depth == 0).map(|(id, _)| id)
}

/// A run's items: what its top-level loops took, or 1 for a run without
/// one (the call itself is the item).
fn items_of(report: &RunReport) -> u64 {
    top_loops(report.graph).map(|id| report.nodes.get(id).map_or(0, |n| n.firings)).max().unwrap_or(1)
}

/// A run going on: its graph as placed, with the counts its sections
/// published and the markers that completed so far.
fn running_view(r: &Running, origin: Instant, now: Instant) -> RunView {
    let head_of = |id: usize| r.fused_into.get(id).copied().flatten().filter(|&h| h < r.graph.nodes.len());
    let head = |id: usize| head_of(id).unwrap_or(id);
    let totals = r.counts.totals();
    let count = |id: usize| totals.get(id).copied().unwrap_or_default();
    let nodes = r
        .graph
        .nodes
        .iter()
        .enumerate()
        .map(|(id, n)| NodeStats {
            // A fused link fires when its piece's head does (`exec/observe.rs`).
            firings: count(head(id)).0,
            busy: if head(id) == id { count(id).1 } else { Duration::ZERO },
            fused_into: head_of(id).map(|h| r.graph.nodes[h].name),
            ..NodeStats::idle(n.name, n.kind.as_str(), r.plan.section_of.get(id).copied().unwrap_or(0))
        })
        .collect();
    let report = RunReport {
        graph: r.graph,
        algorithm: r.graph.algorithm,
        sections: r.plan.sections,
        wall: now.saturating_duration_since(r.started),
        started: r.started,
        nodes,
        plan: r.plan.clone(),
        section_stats: Vec::new(),
        panicked: None,
        io: Vec::new(),
        io_sites: Vec::new(),
        markers: r.control.as_ref().map(|c| c.reports()).unwrap_or_default(),
        recuts: Vec::new(),
        snapshots: Default::default(),
    };
    let mut view = report.to_view(origin);
    view.running = true;
    view.probed = r.control.is_some();
    for (op, fill) in view.operators.iter_mut().zip(r.counts.queue_fill()) {
        op.queue_fill = fill;
    }
    view
}

/// One point per second over the last [`HISTORY`]: items per second, runs
/// ended, and the runs' latency percentiles.
fn series(done: &VecDeque<Done>, origin: Instant, now: Instant) -> Series {
    let mut s = Series::default();
    let Some(first) = done.front() else {
        return s;
    };
    let now_s = now.saturating_duration_since(origin).as_secs_f64();
    let first_s = first.ended.saturating_duration_since(origin).as_secs_f64();
    // Windows end at whole seconds after the origin, the last at `now`.
    let windows = ((now_s - first_s).max(0.0).floor() as usize + 1).min(HISTORY.as_secs() as usize);
    let mut walls: Vec<Vec<f64>> = vec![Vec::new(); windows];
    let mut items = vec![0u64; windows];
    for d in done {
        let age = now.saturating_duration_since(d.ended).as_secs_f64();
        let w = age.floor() as usize;
        if w < windows {
            walls[windows - 1 - w].push(d.wall_ms);
            items[windows - 1 - w] += d.items;
        }
    }
    for (w, (mut ms, n)) in walls.into_iter().zip(items).enumerate() {
        ms.sort_by(f64::total_cmp);
        s.t_s.push(now_s - (windows - 1 - w) as f64);
        s.items_per_s.push(n as f64);
        s.runs.push(ms.len() as u64);
        s.p50_ms.push(percentile(&ms, 0.50));
        s.p99_ms.push(percentile(&ms, 0.99));
    }
    s
}

/// Items per second between consecutive samples of a running run, and the
/// latency percentiles of the probes that completed in between.
fn sampled_series(samples: &VecDeque<(Instant, u64)>, latencies: &VecDeque<(Instant, f64)>, origin: Instant) -> Series {
    let mut s = Series::default();
    for (a, b) in samples.iter().zip(samples.iter().skip(1)) {
        let dt = b.0.saturating_duration_since(a.0).as_secs_f64();
        if dt <= 0.0 {
            continue;
        }
        let mut ms: Vec<f64> = latencies.iter().filter(|(t, _)| *t > a.0 && *t <= b.0).map(|(_, ms)| *ms).collect();
        ms.sort_by(f64::total_cmp);
        s.t_s.push(b.0.saturating_duration_since(origin).as_secs_f64());
        s.items_per_s.push(b.1.saturating_sub(a.1) as f64 / dt);
        s.runs.push(0);
        s.p50_ms.push(percentile(&ms, 0.50));
        s.p99_ms.push(percentile(&ms, 0.99));
    }
    s
}

/// The nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let ms: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&ms, 0.5), Some(50.0));
        assert_eq!(percentile(&ms, 0.99), Some(99.0));
        assert_eq!(percentile(&[7.0], 0.99), Some(7.0));
        assert_eq!(percentile(&[], 0.5), None);
    }

    #[test]
    fn each_finished_run_lands_in_the_window_it_ended_in() {
        let origin = Instant::now();
        let now = origin + Duration::from_millis(3500);
        let at = |ms: u64, wall_ms: f64| Done { ended: origin + Duration::from_millis(ms), wall_ms, items: 10 };
        let done: VecDeque<Done> = [at(600, 1.0), at(700, 3.0), at(2900, 5.0)].into_iter().collect();
        let s = series(&done, origin, now);
        // Windows from the first run on, ending at 1.5, 2.5 and 3.5 s: the
        // first two runs are 2.8-2.9 s old, the third 0.6 s.
        assert_eq!(s.t_s, vec![1.5, 2.5, 3.5]);
        assert_eq!(s.runs, vec![2, 0, 1]);
        assert_eq!(s.items_per_s, vec![20.0, 0.0, 10.0]);
        assert_eq!(s.p50_ms, vec![Some(1.0), None, Some(5.0)]);
        assert_eq!(s.p99_ms[0], Some(3.0));
    }
}
