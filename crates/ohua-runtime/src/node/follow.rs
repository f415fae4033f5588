//! Following the load (`Opening::Load`): once per [`WINDOW`] in which items
//! arrived, a scatter asks its scaling policy how many replicas the window's
//! arrivals and the measured cost per item call for, and sets its
//! [`Elastic`] handle's open lanes to match (`node/elastic.rs`). A
//! stateless scatter deals to the open lanes; a keyed one moves its key
//! groups onto them with a rescaling marker (`node/keyed.rs`).

use std::time::Instant;

use crate::deploy::{Load, Scaling};

use super::elastic::{Elastic, WINDOW};

/// Windows in a row that must ask for fewer lanes before one closes.
///
/// Why: the arrivals one 20 ms window sees vary more than a policy's
/// headroom, and a policy near its threshold then closed and reopened a
/// lane every other window (`ohua-bench elastic`: the `p99=5ms` policy
/// changed its replicas 8-18 times over 5 load steps). Opening stays
/// immediate: a lane opened too early costs a parked thread's wake-up, one
/// closed too early costs latency.
pub(super) const CLOSE_AFTER: u32 = 2;

/// Share of a window the scatter's thread must have spent on a CPU for
/// the window to count as a backlog, whatever its lanes held.
///
/// Why: the arrivals a scatter sees are only what its section let through.
/// Where replica 0 shares its section with the loop's source and the calls
/// around it, a load above that core's capacity queues *before* the
/// scatter (in the channel the loop reads), its lanes never fill, and the
/// rate it measures is what the core managed. `ohua-bench elastic-attack`:
/// at 110 % of one core, the latency-goal policies saw 9,600 items/s of
/// 92 µs (88 % busy, under the 91 % a 5 ms goal allows) and kept one
/// replica for 1.5 s while the p99 grew to 200 ms. A thread busy for the
/// whole window is the sign (DS2 measures the sources for the same reason).
pub(super) const SATURATED: f64 = 0.95;

/// Share of its open lanes an operator's own measured work must keep busy
/// for a backlog (full lanes, or a saturated thread) to count as its own.
///
/// Why: a backlog says items waited, not that this operator made them
/// wait. Its lanes fill when the operators after it are slow, and its
/// thread saturates with the other operators of its section. Opening a
/// lane of a light operator then does not help, and once the arrivals it
/// sees fall back the lane closes, to open at the next such window:
/// `ohua-bench elastic-web` opened and closed a 3 µs `read` (11 % busy) 28-54
/// times in a 15 s run, and in `elastic-attack` the classifier (a tenth of
/// the work) opened with the file service it shares a thread with. Under a
/// backlog the rate a scatter sees is what its lanes managed, so an
/// operator that is the bottleneck keeps them nearly all busy.
pub(super) const OWN_BACKLOG_SHARE: f64 = 0.5;

/// Whether a backlog counts for an operator measured at `load` (its
/// `backlog` field ignored): its own work keeps [`OWN_BACKLOG_SHARE`] of
/// its open lanes busy, or it has no measured cost yet.
fn own_backlog(load: &Load) -> bool {
    load.ns_per_item <= 0.0
        || load.items_per_sec * load.ns_per_item / 1e9 >= OWN_BACKLOG_SHARE * load.active.max(1) as f64
}

/// Whether a window of `secs` would have saturated the scatter's thread
/// ([`SATURATED`]) had replica 0, on that thread, also run the `away`
/// items dealt to other lanes, of `ns_per_item` each; `cpu`: the thread's
/// CPU seconds in the window (none: not known, never crowded).
///
/// Why: an item that arrives alone runs on replica 0 (`local_first.rs`),
/// which is right while the scatter's thread has room for it. The time
/// between items cannot tell a light load from one whose items the
/// section lets through one at a time: the web server's loop takes one
/// request per pass, so at 90 % of one core (`ohua-bench elastic-web`, 16
/// cores) most of `compose`'s items still came more than two costs apart
/// and ran on the thread that also ran the loop, `load` and `reply`,
/// which saturated while the second lane stood open. The thread's own CPU
/// time plus the work sent away measures whether it has that room; the
/// work sent away counts so that spreading, which frees the thread, does
/// not by itself switch the rule back on.
fn crowded(cpu: Option<f64>, away: u64, ns_per_item: f64, secs: f64) -> bool {
    cpu.is_some_and(|cpu| cpu + away as f64 * ns_per_item / 1e9 >= SATURATED * secs)
}

/// A lane opened because fewer lanes had a backlog closes again only
/// once the arrivals fall below this share of the rate those fewer lanes
/// were backlogged at.
///
/// Why: a policy sizes the lanes from the arrivals and its utilisation
/// goal, but a lane's core also runs the operators around it. At 90 % of
/// one core (`ohua-bench elastic-attack`), one replica of a 92 µs call
/// was 82 % busy by the rate, under the 91 % a 5 ms goal allows, yet its
/// section, holding the loop's other calls too, was saturated: the
/// latency-goal policies closed the second lane and reopened it every
/// 40-60 ms (48-72 changes in a 3 s step). The rate that saturated fewer
/// lanes is a measured bound the model does not see.
pub(super) const REOPENED_MARGIN: f64 = 0.9;

/// Arrivals a policy must still ask fewer lanes for, as a multiple of
/// the window's, before a lane closes.
///
/// Why: near a policy's threshold the arrivals of one 20 ms window vary
/// by more than its headroom. The latency-goal policy allows a replica
/// 91 % busy for 100 µs items and a 5 ms goal, and at 90 % of one replica
/// (`ohua-bench elastic`) it asked for 1 and 2 lanes in turn: 16 changes
/// over 5 steps with [`CLOSE_AFTER`] alone. Asking again with 10 % more
/// arrivals gives every policy the same band between opening and closing.
pub(super) const CLOSE_HEADROOM: f64 = 1.1;

/// Arrivals at a scatter whose replicas follow the load, over one
/// [`WINDOW`].
pub(super) struct LoadWindow {
    /// The open lanes last found backlogged and the arrivals per second
    /// they had then; fewer than one more are not opened again until the
    /// rate falls ([`REOPENED_MARGIN`]).
    backlogged_at: Option<(usize, f64)>,
    start: Instant,
    /// The scatter's thread and its CPU time at the window's start (none
    /// where it cannot be read).
    cpu: Option<(std::thread::ThreadId, u64)>,
    dealt: u64,
    /// Items dealt to lanes other than replica 0's.
    away: u64,
    /// The last window would have saturated the scatter's thread had
    /// replica 0 run the items dealt away too ([`crowded`]).
    crowded: bool,
    /// Every open lane was full while an item waited.
    backlog: bool,
    /// Windows in a row, up to this one, whose policy asked for fewer
    /// lanes than were open.
    fewer_asked: u32,
}

impl LoadWindow {
    /// A window for `elastic`, if its lanes follow the load.
    pub(super) fn for_elastic(elastic: Option<&Elastic>) -> Option<Self> {
        elastic.filter(|e| e.opening() == crate::deploy::Opening::Load).map(|_| LoadWindow::new())
    }

    fn new() -> Self {
        let cpu = crate::util::thread_cpu_ns().map(|ns| (std::thread::current().id(), ns));
        LoadWindow {
            backlogged_at: None,
            start: Instant::now(),
            cpu,
            dealt: 0,
            away: 0,
            crowded: false,
            backlog: false,
            fewer_asked: 0,
        }
    }

    /// The seconds the scatter's thread was on a CPU since the window
    /// began (none where it cannot be read, or if the section moved to
    /// another thread meanwhile: a rescue).
    fn cpu_secs(&self) -> Option<f64> {
        let (thread, start) = self.cpu?;
        if std::thread::current().id() != thread {
            return None;
        }
        crate::util::thread_cpu_ns().map(|now| now.saturating_sub(start) as f64 / 1e9)
    }

    /// Whether an item that arrives alone may run on replica 0, beside the
    /// scatter (`local_first.rs`): not after a window that would have
    /// saturated the scatter's thread had replica 0 run every item.
    pub(super) fn local_has_room(&self) -> bool {
        !self.crowded
    }

    /// As after a window that left the scatter's thread no room.
    #[cfg(test)]
    pub(super) fn crowd(&mut self) {
        self.crowded = true;
    }

    /// Count what a step dealt (`away` of it to lanes other than replica
    /// 0's) and, once the window is over, open or close `e`'s lanes as the
    /// deployment's scaling policy (`deploy::Scaling`) says.
    pub(super) fn follow(&mut self, e: &Elastic, dealt: u64, away: u64, backlog: bool) {
        self.dealt += dealt;
        self.away += away;
        self.backlog |= backlog;
        if dealt == 0 && !backlog {
            return;
        }
        let secs = self.start.elapsed().as_secs_f64();
        if secs < WINDOW.as_secs_f64() {
            return;
        }
        let mut load = Load {
            lanes: e.lanes(),
            active: e.active(),
            items_per_sec: self.dealt as f64 / secs,
            ns_per_item: e.ns_per_item() as f64,
            backlog: false,
            path_ns_per_item: e.path_ns_per_item() as f64,
        };
        let cpu = self.cpu_secs();
        let crowded = crowded(cpu, self.away, load.ns_per_item, secs);
        let saturated = cpu.is_some_and(|cpu| cpu >= SATURATED * secs);
        load.backlog = (self.backlog || saturated) && own_backlog(&load);
        let policy = e.scaling();
        let (need, mut backlogged_at) = decide(&policy, &load, self.backlogged_at, saturated);
        let fewer_asked = if need < load.active { self.fewer_asked + 1 } else { 0 };
        if need > load.active || fewer_asked >= CLOSE_AFTER {
            tracing::debug!(?load, need, %policy, "ohua: elastic replicas follow the load");
            e.decided(&load, need);
            e.set_active(need);
            if backlogged_at.is_some_and(|(lanes, _)| need <= lanes) {
                backlogged_at = None;
            }
        }
        *self = LoadWindow::new();
        self.crowded = crowded;
        self.fewer_asked = if need < load.active { fewer_asked % CLOSE_AFTER } else { 0 };
        self.backlogged_at = backlogged_at;
    }
}

/// The lanes a window's `load` calls for under `policy`, with the lanes
/// last found backlogged and their rate (before and after this window):
/// the policy's answer, kept from closing a lane while the rate that
/// backlogged fewer lasts ([`REOPENED_MARGIN`]) or while 10 % more
/// arrivals would keep it ([`CLOSE_HEADROOM`]), or after a window in
/// which the scatter's thread was `saturated`. No clock: the tests give
/// it loads.
fn decide(
    policy: &Scaling,
    load: &Load,
    backlogged_at: Option<(usize, f64)>,
    saturated: bool,
) -> (usize, Option<(usize, f64)>) {
    let mut need = policy.replicas(load);
    let mut backlogged_at = backlogged_at;
    if load.backlog && need > load.active {
        backlogged_at = Some((load.active, load.items_per_sec));
    }
    if let Some((lanes, rate)) = backlogged_at {
        if need <= lanes && load.items_per_sec >= REOPENED_MARGIN * rate {
            need = need.max((lanes + 1).min(load.active));
        }
    }
    if saturated {
        // No lane closes while the scatter's thread is saturated: a
        // closed lane's items go back to the lanes left, replica 0's on
        // this thread among them. The web server's `elastic` deployment
        // (`ohua-bench elastic-web`, 16 cores, the client on cores of its
        // own) runs the loop, `read`, `load`, `reply` and `compose`'s
        // replica 0 in one section. At 90 % of one core it saturated; a
        // second `compose` lane opened, and closed within a second because
        // `compose`'s own work (54,000 items/s of 8.5 µs) kept only 46 % of
        // one replica busy. That put the work back on the saturated
        // thread, and the lane reopened: 14-20 changes in 15 s. The rate a
        // policy sees there is what the section let through, not what
        // arrived.
        need = need.max(load.active);
    }
    if need < load.active {
        let busier = Load { items_per_sec: load.items_per_sec * CLOSE_HEADROOM, ..*load };
        need = need.max(policy.replicas(&busier).min(load.active));
    }
    (need, backlogged_at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deploy::Opening;
    use std::time::Duration;

    /// A window of `dealt` items, `backlog` or not, about `len` long.
    fn window(w: &mut LoadWindow, e: &Elastic, dealt: u64, backlog: bool, len: Duration) {
        std::thread::sleep(len);
        w.follow(e, dealt, 0, backlog);
    }

    /// Keep this thread busy for a little over one [`WINDOW`], as a
    /// scatter's thread saturated by its section's other operators is.
    /// Whether it was on a CPU for 97 % of it at least, by its own clock:
    /// a loaded machine preempts it, and then the window is not saturated
    /// and tells these tests nothing (a CI run beside other tests, or a
    /// developer's build, failed them while their clock-free parts held).
    fn spin_window() -> bool {
        let before = crate::util::thread_cpu_ns();
        let start = Instant::now();
        while start.elapsed() < WINDOW + Duration::from_millis(2) {
            std::hint::spin_loop();
        }
        let wall = start.elapsed().as_nanos() as f64;
        match (before, crate::util::thread_cpu_ns()) {
            (Some(before), Some(after)) => after.saturating_sub(before) as f64 >= 0.97 * wall,
            _ => false,
        }
    }

    /// The outcomes of the tries whose windows all had the CPU
    /// ([`spin_window`]): of 20 at most, until 3 did. Empty on a machine
    /// too loaded for any (the callers' clock-free checks still run).
    fn saturated_tries<T>(mut attempt: impl FnMut() -> Option<T>) -> Vec<T> {
        let mut got = Vec::new();
        for _ in 0..20 {
            got.extend(attempt());
            if got.len() == 3 {
                break;
            }
        }
        if got.is_empty() {
            eprintln!("no window had the CPU to itself: the saturated case was not checked");
        }
        got
    }

    fn load(active: usize, items_per_sec: f64, backlog: bool) -> Load {
        // 1 ms per item: `throughput` opens a second lane above 800 per
        // second on one (80 % busy).
        Load { lanes: 4, active, items_per_sec, ns_per_item: 1e6, backlog, path_ns_per_item: 1e6 }
    }

    #[test]
    fn a_lane_closes_only_if_ten_percent_more_arrivals_would_close_it_too() {
        let policy = Scaling::throughput();
        // Two lanes open: 1,000/s needs them (1.25 at 80 %).
        assert_eq!(decide(&policy, &load(2, 1000.0, false), None, false).0, 2);
        // 780/s: the rule asks for one, but 858/s would ask for two.
        assert_eq!(policy.replicas(&load(2, 780.0, false)), 1);
        assert_eq!(decide(&policy, &load(2, 780.0, false), None, false).0, 2, "kept: within the band");
        // 700/s: 770/s still asks for one.
        assert_eq!(decide(&policy, &load(2, 700.0, false), None, false).0, 1);
        // Opening has no band: 810/s on one lane opens a second.
        assert_eq!(decide(&policy, &load(1, 810.0, false), None, false).0, 2);
    }

    #[test]
    fn a_backlog_is_remembered_with_its_rate_until_the_lanes_it_had_are_back() {
        let policy = Scaling::throughput();
        // One lane backlogged at 700/s (its core also ran other calls): a second opens.
        let (need, at) = decide(&policy, &load(1, 700.0, true), None, false);
        assert_eq!((need, at), (2, Some((1, 700.0))));
        // On two lanes, 650/s would close one by the rate (and the band),
        // but it is above 90 % of the rate that backlogged one lane.
        assert_eq!(decide(&policy, &load(2, 650.0, false), at, false), (2, at));
        // 600/s is below it: one lane.
        assert_eq!(decide(&policy, &load(2, 600.0, false), at, false).0, 1);
    }

    #[test]
    fn a_lane_opened_under_a_backlog_stays_open_while_the_rate_that_backlogged_it_lasts() {
        let e = Elastic::new(2, Opening::Load);
        // 5.5 ms an item, 3 items a window of at least 25 ms: at most 66 %
        // busy, at least half (the backlog is the operator's own) while a
        // window lasts under 33 ms.
        e.set_ns_per_item(5_500_000);
        let mut w = LoadWindow::new();
        let len = WINDOW + Duration::from_millis(5);
        // Backlogged at 3 items a window: a second lane opens.
        window(&mut w, &e, 3, true, len);
        assert_eq!(e.active(), 2, "{:?}", e.decisions());
        // The same rate without a backlog: the throughput rule alone asks
        // for one lane (at most 66 % busy, 73 % with 10 % more), twice in
        // a row, but the rate is not below the one that backlogged one lane.
        for _ in 0..3 {
            window(&mut w, &e, 3, false, len);
        }
        assert_eq!(e.active(), 2, "kept open: {:?}", e.decisions());
        // Arrivals fall well below it: the lane closes (after CLOSE_AFTER).
        for _ in 0..2 {
            window(&mut w, &e, 1, false, 3 * len);
        }
        assert_eq!(e.active(), 1, "{:?}", e.decisions());
        assert_eq!(e.resizes().0, 2);
    }

    #[test]
    fn a_scatter_whose_thread_was_busy_all_window_counts_a_backlog() {
        // Wall-clock and CPU time: only windows that had the CPU count.
        let busy_window = || {
            let e = Elastic::new(2, Opening::Load);
            e.set_ns_per_item(15_000_000);
            let mut w = LoadWindow::new();
            let saturated = spin_window();
            // 1 item of 15 ms in 22 ms: 68 % busy, one lane by the rate
            // (the throughput rule allows 80 %), lanes not full.
            w.follow(&e, 1, 0, false);
            saturated.then(|| e.decisions())
        };
        if crate::util::thread_cpu_ns().is_none() {
            return; // the signal is not read on this platform
        }
        for d in saturated_tries(busy_window) {
            assert!(d.len() == 1 && d[0].backlog && d[0].to == 2, "{d:?}");
        }
        // A window that slept is not busy.
        let e = Elastic::new(2, Opening::Load);
        e.set_ns_per_item(15_000_000);
        let mut w = LoadWindow::new();
        window(&mut w, &e, 1, false, WINDOW + Duration::from_millis(2));
        assert_eq!(e.active(), 1, "{:?}", e.decisions());
    }

    #[test]
    fn no_lane_closes_while_the_scatters_thread_is_saturated() {
        if crate::util::thread_cpu_ns().is_none() {
            return; // the signal is not read on this platform
        }
        // Two lanes open for an operator of 1 µs an item, one item a
        // window: the policy asks for one lane at every window.
        let fresh = || {
            let e = Elastic::new(2, Opening::Load);
            e.set_ns_per_item(1_000);
            e.set_active(2);
            e
        };
        // Windows in which the thread spun (its section saturated by the
        // other operators): the lane stays open. Wall-clock and CPU time:
        // only tries whose windows all had the CPU count.
        let tries = saturated_tries(|| {
            let e = fresh();
            let mut w = LoadWindow::new();
            let mut saturated = true;
            for _ in 0..2 * CLOSE_AFTER {
                saturated &= spin_window();
                w.follow(&e, 1, 0, false);
            }
            saturated.then(|| e.active())
        });
        assert!(tries.iter().all(|&active| active == 2), "a lane closed while the thread was saturated");
        // The rule itself, without a clock: 100 items/s of 1 ms ask for one
        // lane, but not after a saturated window.
        let policy = Scaling::throughput();
        assert_eq!(decide(&policy, &load(2, 100.0, false), None, false).0, 1);
        assert_eq!(decide(&policy, &load(2, 100.0, false), None, true).0, 2);
        // Windows that slept: the lane closes after CLOSE_AFTER of them.
        let e = fresh();
        let mut w = LoadWindow::new();
        for _ in 0..CLOSE_AFTER {
            window(&mut w, &e, 1, false, WINDOW + Duration::from_millis(2));
        }
        assert_eq!(e.active(), 1, "{:?}", e.decisions());
    }

    #[test]
    fn items_stay_beside_the_scatter_only_while_its_thread_has_room_for_them() {
        // 20 ms windows, 1 µs an item.
        let secs = 0.02;
        // A thread 60 % busy that sent 4,000 items away (4 ms) has room.
        assert!(!crowded(Some(0.012), 4_000, 1_000.0, secs));
        // 80 % busy, with 4,000 items away it would have run 100 %.
        assert!(crowded(Some(0.016), 4_000, 1_000.0, secs));
        // Saturated on its own.
        assert!(crowded(Some(0.0195), 0, 1_000.0, secs));
        // Its CPU time unknown: never crowded (the rule stays as it was).
        assert!(!crowded(None, 1_000_000, 1_000.0, secs));
        if crate::util::thread_cpu_ns().is_none() {
            return; // the signal is not read on this platform
        }
        // A window that slept has room; one that spun has none (only
        // windows that had the CPU count).
        let e = Elastic::new(2, Opening::Load);
        e.set_ns_per_item(1_000);
        let mut w = LoadWindow::new();
        assert!(w.local_has_room(), "a fresh window");
        window(&mut w, &e, 1, false, WINDOW + Duration::from_millis(2));
        assert!(w.local_has_room());
        let tries = saturated_tries(|| {
            let mut w = LoadWindow::new();
            let saturated = spin_window();
            w.follow(&e, 1, 1, false);
            saturated.then(|| w.local_has_room())
        });
        assert!(!tries.contains(&true), "a saturated thread kept items beside the scatter");
    }

    #[test]
    fn a_backlog_counts_only_for_an_operator_whose_own_work_keeps_its_lanes_busy() {
        let at = |active: usize, items_per_sec: f64, ns_per_item: f64| Load {
            lanes: 4,
            active,
            items_per_sec,
            ns_per_item,
            backlog: true,
            path_ns_per_item: ns_per_item,
        };
        // `elastic-web`'s `read`: 3.3 µs at 34,000/s is 11 % of one lane.
        assert!(!own_backlog(&at(1, 34_000.0, 3_300.0)));
        // `elastic-attack`'s file service at 110 %: 9,600/s of 92 µs.
        assert!(own_backlog(&at(1, 9_600.0, 92_000.0)));
        // The same work on two lanes keeps each 44 % busy: not its backlog.
        assert!(!own_backlog(&at(2, 9_600.0, 92_000.0)));
        // No cost measured yet: a backlog counts.
        assert!(own_backlog(&at(1, 34_000.0, 0.0)));
    }
}
