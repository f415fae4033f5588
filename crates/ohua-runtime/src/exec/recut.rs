//! The live re-cut by measured cost: a first run cut finer than its
//! threads (`deploy/recut.rs`) regroups its sections while it goes on.
//!
//! Every driver publishes the busy time of the sections it steps (its own
//! and its guests') every [`PUBLISH_EVERY`] loops. The first driver that
//! finds the window over decides for all: it regroups the sections'
//! busy time since the last decision into contiguous groups, one per
//! thread (`deploy::recut::contiguous_groups`), and adopts them if the
//! busiest thread's time drops by a tenth ([`GAIN`]). A group's first
//! section hosts the others (`hosting.rs`): drivers read the wanted host
//! of their section and of their guests at the top of their loops, let
//! go of guests wanted elsewhere and join the host wanted for them. The
//! windows double from [`FIRST_WINDOW`] to [`LAST_WINDOW`], so a run
//! settles within milliseconds and looks again less and less often.
//!
//! A run that streams (a service: its loop waits for items) decides by
//! another rule, Lagniappe's Monitor's: by the share of the window its
//! threads were busy (`deploy::recut::service_groups`), fusing its
//! sections onto fewer threads at light load and spreading them under
//! load. Its loop entries' holds follow the groups ([`HoldFollow`]).
//! Rebalancing over as many threads waits longer after each in a row
//! ([`CALM_AFTER`]).
//!
//! A run whose replicas follow the load (`deploy::Recut::Streaming`)
//! regroups only its pipeline's sections, and only while it streams
//! ([`Regroup::streaming_only`]): each replica's section keeps its thread.

use std::time::{Duration, Instant};

use crate::deploy::recut::{bottleneck, contiguous_groups, service_groups, Change};
use crate::node::elastic::Elastic;
use crate::report::RecutDecision;
use crate::sync::process::Mutex;
use crate::sync::{Arc, AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// How often a driver publishes its sections' busy time (a pass over
/// their tasks to add it up; the clock is read once per loop).
pub(super) const PUBLISH_EVERY: Duration = Duration::from_micros(250);

/// The measured prefix before the first decision.
const FIRST_WINDOW: Duration = Duration::from_millis(2);

/// The longest window between two decisions.
const LAST_WINDOW: Duration = Duration::from_millis(64);

/// The longest window of a run that streams: a service fused onto one
/// thread whose load rises is overloaded until the window ends (`ohua-bench
/// recut-service`, a step to 1.5 threads' load: p99 of the step 9.6 ms
/// with windows of 16 ms, 4.7-6.5 ms with 8 ms).
const STREAM_WINDOW: Duration = Duration::from_millis(8);

/// Work a window must have measured (all sections together) to decide:
/// less says little about the loads.
const MIN_WORK: Duration = Duration::from_micros(500);

/// Regroup only if the busiest thread's time becomes this fraction of
/// what it was or less.
const GAIN: f64 = 0.9;

/// The run's wanted groups and what its drivers measured.
pub(crate) struct Regroup {
    threads: usize,
    /// The tests' chaos: no minimum window, work or gain.
    eager: bool,
    /// The wanted host of each section (its own index: its own thread).
    want: Vec<AtomicUsize>,
    /// Each section's busy nanoseconds so far, as added up by its drivers.
    busy: Vec<AtomicU64>,
    /// When the next decision is due, in ns after `start`.
    next_at: AtomicU64,
    start: Instant,
    decider: Mutex<Decider>,
    /// Loop entries whose hold follows the groups.
    holds: Vec<HoldFollow>,
    /// Sections `0..pipeline` regroup; each later one (a replica's own)
    /// keeps its thread.
    pipeline: usize,
    /// Whether a run that does not stream regroups too.
    batch: bool,
    /// The run's elastic replicated operators: each lane open beyond the
    /// first takes a thread of the pipeline's budget ([`Regroup::budget`]).
    lanes: Vec<Elastic>,
}

struct Decider {
    /// `busy` at the last decision.
    last: Vec<u64>,
    /// When the window being measured began (the last decision).
    since: Duration,
    window: Duration,
    decisions: Vec<RecutDecision>,
    /// A service's rebalances in a row (over as many threads), and until
    /// when the next waits ([`CALM_AFTER`]).
    rebalances: u32,
    calm_until: Duration,
    /// No spread before this: replica lanes took the threads
    /// ([`LANES_KEEP_THREADS`]), this many times since the pipeline last
    /// fused by its own load.
    spread_after: Duration,
    lanes_took: u32,
}

/// After replica lanes that opened took threads from the pipeline (its
/// groups fused into what was left), the pipeline spreads again only this
/// much later: a lane at the edge of its policy's threshold closes and
/// opens again within a few of its windows, and the pipeline followed it
/// each time (`ohua-bench elastic-attack`'s 90 % step: 4-6 re-cuts in a
/// step, and 6-8 lane changes where 4 did before). A lane that stays
/// closed after a step down leaves a load the fused pipeline takes. The
/// n-th time in a row the wait is `2^(n-1)` times as long, up to
/// [`LANES_KEEP_LONGEST`]: the web server's startup on two cores went
/// spread, lane open, fused, a second later spread again, 6-7 times in
/// its first 3 s step.
const LANES_KEEP_THREADS: Duration = Duration::from_secs(1);

/// The longest wait of [`LANES_KEEP_THREADS`].
const LANES_KEEP_LONGEST: Duration = Duration::from_secs(8);

/// How long the pipeline waits to spread after the `n`-th time in a row
/// that replica lanes took its threads (see [`LANES_KEEP_THREADS`]).
fn lanes_keep(n: u32) -> Duration {
    (LANES_KEEP_THREADS * (1 << n.saturating_sub(1).min(10))).min(LANES_KEEP_LONGEST)
}

/// After a service's `r`-th rebalance in a row, the next waits this many
/// stream windows times `2^(r-1)`, up to [`CALM_LONGEST`]: a load whose
/// shape the grouping itself changes would otherwise move sections
/// back and forth every window. Fusing or spreading starts the count
/// again, and is never held back.
const CALM_AFTER: Duration = STREAM_WINDOW;

/// The longest wait between two rebalances in a row.
const CALM_LONGEST: Duration = Duration::from_secs(1);

/// A loop entry's arc into its loop's head, in a run that regroups: the
/// entry honours the head's hold ([`crate::arc::Hold::While`]) while a
/// section of the loop's cycle is on the entry's thread, as the builder
/// decides for built sections (`Builder::hold_of`). A wrong flag costs
/// time, never an item: honoured in vain, the entry reads ahead less; not
/// honoured where it matters, a backlog drains only as the monitor
/// rescues the entry's wait.
pub(crate) struct HoldFollow {
    entry: usize,
    cycle: Vec<usize>,
    flag: Arc<AtomicBool>,
}

impl HoldFollow {
    /// The hold of the entry in section `entry` of a loop whose cycle has
    /// operators in `cycle`, for the groups `hosts`.
    pub(crate) fn new(entry: usize, cycle: Vec<usize>, hosts: &[usize]) -> Self {
        let follow = HoldFollow { entry, cycle, flag: Arc::new(AtomicBool::new(false)) };
        follow.set(|k| hosts[k]);
        follow
    }

    /// The flag the entry's arc reads.
    pub(crate) fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }

    fn set(&self, host_of: impl Fn(usize) -> usize) {
        let thread = host_of(self.entry);
        self.flag.store(self.cycle.iter().any(|&c| host_of(c) == thread), Ordering::Relaxed);
    }
}

impl Regroup {
    /// `start[k]`: the host section `k` starts with; `threads` groups at
    /// most; `eager`: decide from any work at every publication, and
    /// adopt any other grouping (the tests' chaos).
    /// `holds`: the loop entries whose hold follows the groups.
    pub(crate) fn new(threads: usize, start: &[usize], eager: bool, holds: Vec<HoldFollow>) -> Self {
        let n = start.len();
        let first = if eager { Duration::ZERO } else { FIRST_WINDOW };
        let decider = Decider {
            last: vec![0; n],
            since: Duration::ZERO,
            window: first,
            decisions: Vec::new(),
            rebalances: 0,
            calm_until: Duration::ZERO,
            spread_after: Duration::ZERO,
            lanes_took: 0,
        };
        Regroup {
            threads,
            eager,
            want: start.iter().map(|&h| AtomicUsize::new(h)).collect(),
            busy: (0..n).map(|_| AtomicU64::new(0)).collect(),
            next_at: AtomicU64::new(first.as_nanos() as u64),
            start: Instant::now(),
            decider: Mutex::new(decider),
            holds,
            pipeline: n,
            batch: true,
            lanes: Vec::new(),
        }
    }

    /// A run with elastic replicas ([`crate::deploy::Recut::Streaming`]):
    /// only sections `0..pipeline` regroup, and only while the run streams,
    /// within the threads the replicas' open `lanes` leave them.
    pub(crate) fn streaming_only(mut self, pipeline: usize, lanes: Vec<Elastic>) -> Self {
        self.pipeline = pipeline.min(self.want.len());
        self.batch = false;
        self.lanes = lanes;
        self
    }

    /// The threads the pipeline's sections may use now: the run's, less
    /// one per replica lane open beyond each elastic operator's first (a
    /// replica's own section has a thread of its own). Without it the
    /// pipeline spread onto both threads of a two-core machine while
    /// `serve`'s second replica took a third: `ohua-bench elastic-attack`'s
    /// 90 % step used 1.56-1.64 cores, 1.25-1.30x of the one-replica
    /// deployment's 1.26 (the bound is 1.2x). At least one.
    fn budget(&self) -> usize {
        let extra: usize = self.lanes.iter().map(|e| e.active().saturating_sub(1)).sum();
        self.threads.saturating_sub(extra).max(1)
    }

    fn set_holds(&self) {
        for h in &self.holds {
            h.set(|k| self.host_of(k));
        }
    }

    /// The host wanted for section `k` now.
    #[inline]
    pub(super) fn host_of(&self, k: usize) -> usize {
        self.want[k].load(Ordering::Relaxed)
    }

    /// Section `k` drives itself from now on (its host has retired).
    pub(super) fn drive_yourself(&self, k: usize) {
        self.want[k].store(k, Ordering::Relaxed);
        self.set_holds();
    }

    /// Section `k` has been busy another `busy`.
    pub(super) fn add_busy(&self, k: usize, busy: Duration) {
        self.busy[k].fetch_add(busy.as_nanos() as u64, Ordering::Relaxed);
    }

    /// Whether a decision is due.
    pub(super) fn due(&self) -> bool {
        self.start.elapsed().as_nanos() as u64 >= self.next_at.load(Ordering::Relaxed)
    }

    /// Decide if nobody else is; whether the wanted groups changed (the
    /// caller wakes the sections, so parked drivers see them). A run that
    /// `streams` (a service, whose items arrive over time) groups by the
    /// share of the window its threads were busy (`service_groups`); any
    /// other run by the work alone.
    pub(super) fn decide(&self, streaming: bool) -> bool {
        let Ok(mut d) = self.decider.try_lock() else { return false };
        let now = self.start.elapsed();
        if (now.as_nanos() as u64) < self.next_at.load(Ordering::Relaxed) {
            return false;
        }
        let busy: Vec<u64> = self.busy.iter().map(|b| b.load(Ordering::Relaxed)).collect();
        let loads: Vec<f64> = busy.iter().zip(&d.last).map(|(b, l)| b.saturating_sub(*l) as f64).collect();
        let work = loads.iter().sum::<f64>();
        // A service's light window is what fuses it: no minimum of work.
        let idle = work == 0.0 || (!self.eager && !streaming && work < MIN_WORK.as_nanos() as f64);
        if idle || (!streaming && !self.batch) {
            self.next_at.store((now + d.window).as_nanos() as u64, Ordering::Relaxed);
            return false;
        }
        let span = now.saturating_sub(d.since);
        d.last = busy;
        d.since = now;
        d.window = (d.window * 2).min(if streaming { STREAM_WINDOW } else { LAST_WINDOW });
        self.next_at.store((now + d.window).as_nanos() as u64, Ordering::Relaxed);
        // Only the pipeline's sections regroup (a replica's own section
        // keeps its thread), so only theirs are weighed.
        let loads = &loads[..self.pipeline];
        let hosts: Vec<usize> = (0..self.pipeline).map(|k| self.host_of(k)).collect();
        let threads = self.budget();
        let new = match (streaming, self.eager) {
            (false, _) => Some(contiguous_groups(loads, threads)),
            (true, false) => match service_groups(loads, &hosts, span.as_nanos() as f64, threads) {
                Some((_, Change::Rebalance)) if now < d.calm_until => None,
                Some((_, Change::Spread)) if now < d.spread_after => None,
                Some((groups, change)) => {
                    if change == Change::Cede {
                        d.lanes_took += 1;
                        d.spread_after = now + lanes_keep(d.lanes_took);
                    } else if change == Change::Fuse {
                        d.lanes_took = 0;
                    }
                    d.rebalances = if change == Change::Rebalance { d.rebalances + 1 } else { 0 };
                    let calm = CALM_AFTER * (1 << d.rebalances.saturating_sub(1).min(10));
                    d.calm_until = if d.rebalances > 0 { now + calm.min(CALM_LONGEST) } else { Duration::ZERO };
                    Some(groups)
                }
                None => None,
            },
            // The tests' chaos: fuse and spread by turns.
            (true, true) if hosts.iter().enumerate().skip(1).any(|(k, &h)| k == h) => Some(vec![0; hosts.len()]),
            (true, true) => Some(contiguous_groups(loads, threads)),
        };
        let Some(mut new) = new else { return false };
        let (before, after) = (bottleneck(loads, &hosts), bottleneck(loads, &new));
        if new == hosts || (!self.eager && !streaming && after > before * GAIN) {
            return false;
        }
        new.extend(self.pipeline..self.want.len());
        for (w, &h) in self.want.iter().zip(&new) {
            w.store(h, Ordering::Relaxed);
        }
        self.set_holds();
        let ns = |x: f64| Duration::from_nanos(x as u64);
        tracing::info!(
            target: "ohua::recut",
            at_ms = now.as_secs_f64() * 1e3,
            hosts = ?new,
            busiest_before_ms = before / 1e6,
            busiest_after_ms = after / 1e6,
            window_ms = span.as_secs_f64() * 1e3,
            streaming,
            "sections regrouped by their measured busy time"
        );
        d.decisions.push(RecutDecision {
            at: now,
            hosts: new,
            busiest_before: ns(before),
            busiest_after: ns(after),
            window: span,
        });
        true
    }

    /// The decisions taken, for the run report.
    pub(crate) fn decisions(&self) -> Vec<RecutDecision> {
        self.decider.lock().unwrap_or_else(|e| e.into_inner()).decisions.clone()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_window_with_two_heavy_sections_on_one_thread_gives_each_its_own() {
        let r = Regroup::new(2, &[0, 0, 2, 2], false, Vec::new());
        for (k, ms) in [10, 10, 1, 1].into_iter().enumerate() {
            r.add_busy(k, Duration::from_millis(ms));
        }
        std::thread::sleep(FIRST_WINDOW);
        assert!(r.decide(false), "the busiest thread goes from 20 to 12 ms");
        assert_eq!((0..4).map(|k| r.host_of(k)).collect::<Vec<_>>(), vec![0, 1, 1, 1]);
        let d = r.decisions();
        assert_eq!(
            (d.len(), d[0].busiest_before, d[0].busiest_after),
            (1, Duration::from_millis(20), Duration::from_millis(12))
        );
    }

    /// Each replica lane open beyond an elastic operator's first takes a
    /// thread from the pipeline's budget: a pipeline spread over both
    /// threads of two fuses onto one when a second replica opens.
    #[test]
    fn a_replica_lane_that_opens_takes_a_thread_from_the_pipeline() {
        use crate::deploy::Opening;
        let lanes = Elastic::new(2, Opening::Load);
        // Sections 0..3 are the pipeline (on threads 0 and 1), 3 is the
        // replica's own. Loads far above any window: always "under load".
        let r = Regroup::new(2, &[0, 1, 1, 3], false, Vec::new()).streaming_only(3, vec![lanes.clone()]);
        let load = |r: &Regroup| {
            for (k, ms) in [1000, 600, 400, 0].into_iter().enumerate() {
                r.add_busy(k, Duration::from_millis(ms));
            }
        };
        lanes.set_active(1);
        load(&r);
        std::thread::sleep(FIRST_WINDOW);
        assert!(!r.decide(true), "two threads, 1,000 ms each: as even as it gets");
        lanes.set_active(2);
        load(&r);
        std::thread::sleep(FIRST_WINDOW * 3);
        assert!(r.decide(true), "the replica took a thread");
        assert_eq!((0..4).map(|k| r.host_of(k)).collect::<Vec<_>>(), vec![0, 0, 0, 3]);
        // The lane closes again at once: the pipeline, loaded as it is,
        // waits `LANES_KEEP_THREADS` before it spreads (it would follow a
        // lane that flaps).
        lanes.set_active(1);
        load(&r);
        std::thread::sleep(STREAM_WINDOW + FIRST_WINDOW);
        assert!(r.due());
        assert!(!r.decide(true), "no spread within the second after the lanes took a thread");
        assert!(!r.due(), "the window was decided on");
        assert_eq!((0..4).map(|k| r.host_of(k)).collect::<Vec<_>>(), vec![0, 0, 0, 3]);
        assert_eq!(r.decider.lock().unwrap().lanes_took, 1);
    }

    #[test]
    fn the_pipeline_waits_longer_each_time_in_a_row_the_lanes_take_its_threads() {
        let waits: Vec<u64> = (1..=6).map(|n| lanes_keep(n).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 8, 8]);
    }

    #[test]
    fn no_decision_before_the_window_nor_without_enough_work_nor_for_a_small_gain() {
        let r = Regroup::new(2, &[0, 0, 2, 2], false, Vec::new());
        r.add_busy(0, Duration::from_millis(10));
        assert!(!r.decide(false), "before the first window");
        let r = Regroup::new(2, &[0, 0, 2, 2], false, Vec::new());
        r.add_busy(0, Duration::from_micros(100));
        std::thread::sleep(FIRST_WINDOW);
        assert!(!r.decide(false), "0.1 ms of work says little");
        let r = Regroup::new(2, &[0, 0, 2, 2], false, Vec::new());
        for (k, ms) in [10, 9, 10, 9].into_iter().enumerate() {
            r.add_busy(k, Duration::from_millis(ms));
        }
        std::thread::sleep(FIRST_WINDOW);
        assert!(!r.decide(false), "already balanced");
        assert!(r.decisions().is_empty());
    }

    #[test]
    fn a_service_at_light_load_fuses_its_sections_and_its_loop_entry_honours_the_hold() {
        // The loop's entry in section 0, its cycle in section 3: apart at
        // the start, so the entry may block its thread; on one thread it
        // must not.
        let r = Regroup::new(2, &[0, 0, 2, 2], false, vec![HoldFollow::new(0, vec![3], &[0, 0, 2, 2])]);
        let hold = r.holds[0].flag();
        assert!(!hold.load(Ordering::Relaxed));
        for (k, us) in [100, 100, 20, 20].into_iter().enumerate() {
            r.add_busy(k, Duration::from_micros(us));
        }
        std::thread::sleep(FIRST_WINDOW);
        assert!(!r.decide(false), "a batch run wants more work than 0.24 ms");
        std::thread::sleep(FIRST_WINDOW * 2);
        assert!(r.decide(true), "a service busy 240 µs of 6 ms fuses");
        assert_eq!((0..4).map(|k| r.host_of(k)).collect::<Vec<_>>(), vec![0; 4]);
        assert!(hold.load(Ordering::Relaxed), "the cycle is on the entry's thread now");
        let d = &r.decisions()[0];
        assert!(d.window >= FIRST_WINDOW * 3, "the window measured: {d}");
    }

    #[test]
    fn a_loaded_service_spreads_its_sections_and_its_loop_entry_reads_ahead_again() {
        let r = Regroup::new(2, &[0; 4], false, vec![HoldFollow::new(0, vec![3], &[0; 4])]);
        let hold = r.holds[0].flag();
        assert!(hold.load(Ordering::Relaxed));
        // 1.8 ms of work per 2 ms window on one thread.
        for (k, us) in [800, 800, 100, 100].into_iter().enumerate() {
            r.add_busy(k, Duration::from_micros(us));
        }
        std::thread::sleep(FIRST_WINDOW);
        assert!(r.decide(true));
        assert_eq!((0..4).map(|k| r.host_of(k)).collect::<Vec<_>>(), vec![0, 1, 1, 1]);
        assert!(!hold.load(Ordering::Relaxed), "the cycle is on another thread now");
    }

    #[test]
    fn a_run_with_replicas_regroups_only_its_pipeline_and_only_while_it_streams() {
        // Sections 0-3 the pipeline's, 4 and 5 replicas' own.
        let r = Regroup::new(2, &[0, 0, 0, 0, 4, 5], false, Vec::new()).streaming_only(4, Vec::new());
        let hosts = |r: &Regroup| (0..6).map(|k| r.host_of(k)).collect::<Vec<_>>();
        for (k, us) in [2_000, 2_000, 200, 200, 5_000, 5_000].into_iter().enumerate() {
            r.add_busy(k, Duration::from_micros(us));
        }
        std::thread::sleep(FIRST_WINDOW);
        assert!(!r.decide(false), "a batch run keeps its start groups");
        std::thread::sleep(FIRST_WINDOW);
        assert!(r.decide(true), "a loaded service spreads its pipeline: 4.4 ms of work in about 4 ms");
        assert_eq!(hosts(&r), vec![0, 1, 1, 1, 4, 5], "the replicas' sections keep their threads");
        std::thread::sleep(STREAM_WINDOW);
        for k in 0..6 {
            r.add_busy(k, Duration::from_micros(10));
        }
        assert!(r.decide(true), "a light one fuses it");
        assert_eq!(hosts(&r), vec![0, 0, 0, 0, 4, 5]);
    }

    #[test]
    fn a_service_that_rebalances_again_and_again_waits_longer_each_time() {
        let r = Regroup::new(2, &[0, 1, 1, 1], false, Vec::new());
        let hosts = |r: &Regroup| (0..4).map(|k| r.host_of(k)).collect::<Vec<_>>();
        // Each window's loads make the other grouping look better by more
        // than a fifth: back and forth, as measured under each grouping.
        let shapes = [[1_000, 1_000, 1_000, 4_000], [4_000, 1_000, 1_000, 1_000]];
        let mut moved = 0;
        let mut next = 0;
        let start = Instant::now();
        while start.elapsed() < STREAM_WINDOW * 12 {
            std::thread::sleep(STREAM_WINDOW);
            for (k, us) in shapes[next].into_iter().enumerate() {
                r.add_busy(k, Duration::from_micros(us));
            }
            if r.decide(true) {
                moved += 1;
                next = 1 - next;
            }
        }
        // Every window without the wait (11 or 12); with it, after windows
        // 1, 2, 4 and 8 of the twelve at most.
        assert!(moved >= 2, "it did rebalance: {:?}", r.decisions());
        assert!(moved <= 6, "{moved} rebalances in 12 windows: {:?}", hosts(&r));
    }

    #[test]
    fn the_tests_eager_regrouping_fuses_and_spreads_a_service_by_turns() {
        let r = Regroup::new(2, &[0, 0, 2, 2], true, Vec::new());
        let hosts = |r: &Regroup| (0..4).map(|k| r.host_of(k)).collect::<Vec<_>>();
        for round in 1..=4u64 {
            for k in 0..4 {
                r.add_busy(k, Duration::from_micros(10 * round * (k as u64 + 1)));
            }
            assert!(r.decide(true), "round {round}");
            let fused = hosts(&r).iter().all(|&h| h == 0);
            assert_eq!(fused, round % 2 == 1, "round {round}: {:?}", hosts(&r));
        }
    }
}
