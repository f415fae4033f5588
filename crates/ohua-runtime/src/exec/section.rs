//! One section: a group of operators stepped in a loop by one thread at a
//! time, its *driver*.
//!
//! Normally one thread drives a section from start to end. If an operator
//! blocks inside its step, the monitor hands the section to a new driver
//! and the stuck thread keeps only that operator until its step returns
//! (`rescue.rs`, `handover.rs`). See `README.md` in this folder for the
//! sleep/wake, rescue and abort protocols.

use std::cell::UnsafeCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

pub(crate) use super::builder::Role;
use super::hosting::{Hosted, Recutting};
use super::rescue::{still_driver, tag, Beat};
use super::shared::{Failure, RunShared, ABORTED};
pub(crate) use super::timing::Counters;
use super::timing::{Sampler, StepClock};
use crate::graph::GraphInfo;
use crate::node::blocking::{self, BlockingHook};
use crate::node::{Node, Step};
use crate::report::SectionStats;
use crate::sync::process::{Condvar as ProcessCondvar, Mutex as ProcessMutex};
use crate::sync::{Arc, AtomicBool, AtomicU64, AtomicUsize, Backoff, Ordering, Parker, SleepFlag, Waker};

/// An operator and its counters; `node` is `None` once it is done.
pub(super) struct Task<'a> {
    pub(super) node: Option<Box<dyn Node + 'a>>,
    pub(super) counters: Counters,
}

/// A task as the section holds it. The driver owns every task that is not
/// `pinned`; a pinned task belongs to the thread stuck in its step.
pub(super) struct Slot<'a> {
    /// The graph node the task runs (for a replica or a merge: the
    /// replicated node), which names it in reports and panics.
    pub(super) id: usize,
    pub(super) role: Role,
    pub(super) pinned: AtomicBool,
    pub(super) task: UnsafeCell<Task<'a>>,
}

/// What only the current driver touches.
pub(super) struct Own {
    pub(super) parker: Parker,
    pub(super) stats: SectionStats,
    /// Which steps to time (`timing.rs`).
    pub(super) sampler: Sampler,
}

/// Who is in the section; changed only under the section's lock.
pub(super) struct Ctl {
    /// A thread drives the section (false once it left, or before a
    /// rescued section has its new driver).
    pub(super) driving: bool,
    /// The current driver's id (also in `Section::driver`).
    pub(super) driver: u64,
    pub(super) last_id: u64,
    /// The current driver's heartbeat.
    pub(super) beat: std::sync::Arc<Beat>,
    /// The beat the monitor saw at its last tick.
    pub(super) seen: u64,
    /// Threads inside: the driver and the stuck ones.
    pub(super) threads: usize,
    /// Tasks pinned to stuck threads (of this section and of the sections
    /// it hosts).
    pub(super) pinned: usize,
    /// The section whose driver steps this one's tasks (`hosting.rs`);
    /// this section's own thread waits meanwhile.
    pub(super) host: Option<usize>,
    /// The sections whose tasks this section's driver steps.
    pub(super) guests: Vec<usize>,
}

/// The operators of one section, in topological order, and how it sleeps.
///
/// Aligned to two cache lines: sections sit side by side in the run's
/// `Vec`, and each driver writes `progress` and reads `driver` on every
/// step; sharing a line with the next section's made a message between two
/// sections (`ohua-bench hop`) a fifth slower when the struct grew.
#[repr(align(128))]
pub(crate) struct Section<'a> {
    pub(super) index: usize,
    pub(super) tasks: Vec<Slot<'a>>,
    pub(super) waker: Waker,
    pub(super) flag: Arc<SleepFlag>,
    batch: usize,
    pub(super) own: UnsafeCell<Own>,
    /// The current driver's id, read after every step (`rescue.rs`).
    pub(super) driver: AtomicU64,
    /// Tasks whose operator is not done yet.
    pub(super) live: AtomicUsize,
    pub(super) ctl: ProcessMutex<Ctl>,
    /// Steps that made progress, counted by the driver (only it writes):
    /// a loop entry reads it to tell whether the section's other operators
    /// have work before it calls a `next()` that may wait (`node/smap.rs`).
    progress: AtomicU64,
    /// Bumped under the lock whenever `Ctl::guests` changes, so the driver
    /// notices a section that joined with one load per loop (`hosting.rs`).
    pub(super) guests_gen: AtomicU64,
    /// A hosted section's own thread waits here until its host lets it go.
    pub(super) let_go: ProcessCondvar,
    /// Whether and how the run re-cuts its sections (`hosting.rs`).
    pub(super) recut: Option<Recutting>,
}

// SAFETY: the cells are handed between threads by the rescue protocol:
// `own` and every unpinned task belong to the current driver alone, a pinned
// task to the thread stuck in its step (README.md, "Rescue"; the loom model
// in `rescue.rs`). Operators are `Send`.
unsafe impl Sync for Section<'_> {}

pub(super) use crate::pool::SPIN_WINDOW;

/// The first driver's id.
pub(super) const FIRST_DRIVER: u64 = 1;

/// What one pass over the operators came to.
pub(super) enum Pass {
    Progress,
    Idle,
    /// No operator is left.
    Finished,
    /// This thread was replaced while stuck in a step and has left.
    Left,
    /// This thread was replaced, and drives again under a new id (nobody
    /// else did when its step returned).
    Rejoined(u64, std::sync::Arc<Beat>),
}

/// Where counters of finished sections go.
pub(crate) type CounterSink = ProcessMutex<Vec<(usize, Role, usize, Counters)>>;

impl<'a> Section<'a> {
    /// An empty section stepping operators with `batch` firings per step and
    /// sleeping on `parker` (whose unparker the section's arcs hold).
    pub(crate) fn new(index: usize, parker: Parker, flag: Arc<SleepFlag>, batch: usize) -> Self {
        let beat = std::sync::Arc::new(Beat::new());
        let ctl = Ctl {
            driving: true,
            driver: FIRST_DRIVER,
            last_id: FIRST_DRIVER,
            beat,
            seen: 0,
            threads: 1,
            pinned: 0,
            host: None,
            guests: Vec::new(),
        };
        Section {
            index,
            tasks: Vec::new(),
            waker: Waker::new(flag.clone()),
            flag,
            batch,
            own: UnsafeCell::new(Own { parker, stats: SectionStats::default(), sampler: Sampler::new(index) }),
            driver: AtomicU64::new(FIRST_DRIVER),
            live: AtomicUsize::new(0),
            ctl: ProcessMutex::new(ctl),
            progress: AtomicU64::new(0),
            guests_gen: AtomicU64::new(0),
            let_go: ProcessCondvar::new(),
            recut: None,
        }
    }

    /// Re-cut while running (`hosting.rs`); the run's flags must be
    /// [`SleepFlag::hostable`].
    pub(crate) fn set_recut(&mut self, recut: Recutting) {
        self.recut = Some(recut);
    }

    /// Append the operator of node `id` in `role`; operators run in the
    /// order they are added.
    pub(crate) fn push(&mut self, id: usize, role: Role, node: Box<dyn Node + 'a>) {
        let task = Task { node: Some(node), counters: Counters::default() };
        self.tasks.push(Slot { id, role, pinned: AtomicBool::new(false), task: UnsafeCell::new(task) });
        self.live.fetch_add(1, Ordering::Relaxed);
    }

    /// Drive the section from its start until all operators are done or the
    /// run is aborted (or a rescue took it over: then it returns when this
    /// thread's stuck step has). The last thread out stores every
    /// operator's counters in `out`. `peers` are the run's sections (this
    /// one among them), which this one may host or join (`hosting.rs`).
    pub(crate) fn run(&self, shared: &RunShared, graph: &GraphInfo, out: &CounterSink, peers: &[Section<'a>]) {
        let beat = self.ctl.lock().unwrap_or_else(|e| e.into_inner()).beat.clone();
        self.drive(FIRST_DRIVER, beat, shared, graph, out, peers);
    }

    /// Step the operators as driver `me` (beating on `beat`).
    pub(super) fn drive(
        &self,
        mut me: u64,
        mut beat: std::sync::Arc<Beat>,
        shared: &RunShared,
        graph: &GraphInfo,
        out: &CounterSink,
        peers: &[Section<'a>],
    ) {
        let _hook = BlockingHook::install(&self.waker, shared.streaming_flag(), shared.blocked_flag(), &self.progress);
        let _look = blocking::LastLook::set(false);
        let _io = crate::io::Current::install(shared.io(), self.index);
        let _snapshots = crate::snapshot::Counting::install(shared.snapshots());
        beat.set_thread();
        let backoff = Backoff::new();
        let stall_dump = stall_dump_after();
        let mut idle_since: Option<Instant> = None;
        let mut seq = 0;
        let mut hosted = Hosted::new(self);
        let mut signal_seen = 0;
        loop {
            // The abort check, which also sees the live view's requests to
            // publish (`exec/live.rs`): one load, as for the abort alone.
            let signal = shared.signal();
            if signal != signal_seen {
                if signal & ABORTED != 0 {
                    return self.retire(shared, graph, out, peers, &mut hosted);
                }
                signal_seen = signal;
                self.publish_live(shared, peers, hosted.guests());
            }
            if hosted.recuts() {
                self.recut(peers, &mut hosted, shared);
            }
            let guests = hosted.guests();
            let mut outcome = self.pass(me, &beat, &mut seq, shared, graph, peers, guests);
            if let Pass::Idle = outcome {
                let since = *idle_since.get_or_insert_with(Instant::now);
                if !alone_in_counted_run(shared) && (!backoff.is_completed() || since.elapsed() < SPIN_WINDOW) {
                    // Spin, then yield, re-running the pass each time: a peer
                    // that is merely slower is cheaper to wait for than a park.
                    backoff.snooze();
                    continue;
                }
                // About to sleep: publish to the live view, if it watches
                // (only here: a check on the busy path cost `chain`,
                // BENCHMARKS.md "Live view").
                if shared.live().is_some() {
                    self.publish_live(shared, peers, guests);
                }
                // Announce the sleep (for the hosted sections too), then
                // look once more (operators, abort, pinned tasks, a section
                // that joined): a waker either sees the announcement or its
                // push is seen here.
                for &g in guests {
                    peers[g].flag.announce_sleep();
                }
                self.flag.going_to_sleep();
                outcome = if shared.aborted() || hosted.joined_since(self) {
                    Pass::Progress
                } else {
                    let _last = blocking::LastLook::set(true);
                    self.pass(me, &beat, &mut seq, shared, graph, peers, guests)
                };
                let parked = matches!(outcome, Pass::Idle);
                if parked {
                    // In a run that fetches, the last section to park sends
                    // the requests collected so far (`io/README.md`).
                    // The last unit out may make a lone call itself (it
                    // would only wait for the answer): `io::run::CallHere`.
                    {
                        let _here = (!shared.streaming()).then(crate::io::run::CallHere::enter);
                        self.flag.parking();
                    }
                    self.park(stall_dump, graph);
                }
                // A thread that left must not touch the flags: the new
                // driver may be about to park on them.
                if !matches!(outcome, Pass::Left) {
                    self.flag.awake(parked);
                    for &g in guests {
                        peers[g].flag.awake(parked);
                    }
                }
            }
            match outcome {
                Pass::Progress | Pass::Idle => {
                    backoff.reset();
                    idle_since = None;
                }
                Pass::Finished => return self.retire(shared, graph, out, peers, &mut hosted),
                Pass::Left => return,
                Pass::Rejoined(id, b) => {
                    (me, beat) = (id, b);
                    beat.set_thread();
                    backoff.reset();
                    idle_since = None;
                    hosted.forget();
                }
            }
        }
    }

    /// Park until a waker unparks the section (or `OHUA_STALL_DUMP` passes).
    fn park(&self, stall_dump: Option<Duration>, graph: &GraphInfo) {
        let start = Instant::now();
        // SAFETY: only the driver parks, and we are it (a driver that parks
        // is between steps, so the monitor does not replace it meanwhile).
        let own = unsafe { &mut *self.own.get() };
        match stall_dump {
            None => own.parker.park(),
            Some(after) => {
                own.parker.park_timeout(after);
                if start.elapsed() >= after {
                    eprintln!("{}", self.describe(graph));
                }
            }
        }
        own.stats.parks += 1;
        own.stats.parked += start.elapsed();
    }

    /// Step every live operator that is not pinned once: this section's,
    /// then those of the sections it hosts (`guests`).
    #[allow(clippy::too_many_arguments)]
    fn pass(
        &self,
        me: u64,
        beat: &Beat,
        seq: &mut u64,
        shared: &RunShared,
        graph: &GraphInfo,
        peers: &[Section<'a>],
        guests: &[usize],
    ) -> Pass {
        let mut progressed = false;
        let live = match self.pass_over(self, me, beat, seq, shared, graph, &mut progressed) {
            Ok(live) => live,
            Err(pass) => return pass,
        };
        for &g in guests {
            if let Err(pass) = self.pass_over(&peers[g], me, beat, seq, shared, graph, &mut progressed) {
                return pass;
            }
        }
        // SAFETY: as in `pass_over`, `own` is the driver's.
        let stats = &mut unsafe { &mut *self.own.get() }.stats;
        stats.passes += 1;

        if live == 0 && guests.is_empty() {
            Pass::Finished
        } else if progressed {
            Pass::Progress
        } else {
            stats.idle_passes += 1;
            Pass::Idle
        }
    }

    /// Step the live, unpinned operators of `part` (this section or one it
    /// hosts) once as this section's driver `me`; the number of `part`'s
    /// live tasks, or how the pass ended early.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn pass_over(
        &self,
        part: &Section<'a>,
        me: u64,
        beat: &Beat,
        seq: &mut u64,
        shared: &RunShared,
        graph: &GraphInfo,
        progressed: &mut bool,
    ) -> Result<usize, Pass> {
        let mut live = 0;
        // Steps are timed by sampling (`timing.rs`): with small batches a
        // step is a few nanoseconds and a clock read is 14-20 ns.
        let clock = StepClock::get();
        let quiet = shared.quiet();
        for (i, slot) in part.tasks.iter().enumerate() {
            if slot.pinned.load(Ordering::Acquire) {
                live += 1;
                continue;
            }
            // SAFETY: an unpinned task belongs to the driver of the section
            // that holds or hosts it, and we are it: we checked after our
            // last step (and a hosted section's tasks came to us under the
            // locks, `hosting.rs`).
            let task = unsafe { &mut *slot.task.get() };
            let Some(node) = task.node.as_mut() else { continue };
            live += 1;
            task.counters.steps += 1;
            let budget = task.counters.budget(part.batch, clock, part.recut.is_some());
            // SAFETY: as above, `part.own` is the driver's; the borrow ends here.
            let timed = task.counters.wants_timing(&mut unsafe { &mut *part.own.get() }.sampler);
            let outer_timed = timed && blocking::begin_timed_step();
            let start = timed.then(|| clock.now());
            beat.enter(seq, tag(part.index, i));
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let step = node.step(budget);
                node.flush();
                step
            }));
            beat.leave(*seq);
            // A loop entry's wait for input is not work (`node/blocking.rs`).
            let waited = if timed { blocking::end_timed_step(outer_timed) } else { 0 };
            let ticks = start.map(|s| clock.now().saturating_sub(s).saturating_sub(clock.ticks_of_nanos(waited)));
            let replaced = !still_driver(&self.driver, me, self.flag.fences());
            if let Some(quiet) = quiet {
                // The monitor may have found this step blocked and stopped
                // counting us (`Section::check`): count us again.
                beat.take_back_lent(quiet);
            }
            if replaced && self.replaced(me) {
                return Err(self.return_from_stuck(part, i, outcome, ticks, shared, graph));
            }
            match outcome {
                Ok(Step::Done) => {
                    // Dropping closes the node's arcs and wakes the
                    // sections on their other ends.
                    drop_node(slot, task, shared, graph);
                    part.live.fetch_sub(1, Ordering::Relaxed);
                    live -= 1;
                    *progressed = true;
                    self.count_progress();
                }
                Ok(step) => {
                    if record(&mut task.counters, step, ticks, clock) {
                        *progressed = true;
                        self.count_progress();
                    }
                }
                Err(payload) => {
                    // A fused piece names the link that panicked.
                    let id = crate::node::chain::take_blamed().unwrap_or(slot.id);
                    shared.fail(Failure::Operator { name: graph.nodes[id].name, payload });
                    // Not idle: go straight to the abort check.
                    return Err(Pass::Progress);
                }
            }
        }
        Ok(live)
    }

    /// One more step made progress. Only the driver writes the count: a
    /// load and a store, no locked add on the step path.
    #[inline]
    fn count_progress(&self) {
        self.progress.store(self.progress.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
    }

    /// Every operator's port state, one per line (for `OHUA_STALL_DUMP`).
    fn describe(&self, graph: &GraphInfo) -> String {
        let mut out = format!("ohua: section of `{}` parked without a wake-up:", graph.algorithm);
        for slot in &self.tasks {
            if slot.pinned.load(Ordering::Acquire) {
                out.push_str(&format!("\n  {:<32} (stuck in a step)", graph.nodes[slot.id].name));
                continue;
            }
            // SAFETY: the driver calls this between steps; it owns unpinned tasks.
            if let Some(node) = &unsafe { &*slot.task.get() }.node {
                out.push_str(&format!("\n  {:<32} {}", graph.nodes[slot.id].name, node.describe()));
            }
        }
        out
    }
}

/// Count a step that did not finish its operator; whether it made progress.
pub(super) fn record(counters: &mut Counters, step: Step, ticks: Option<u64>, clock: &StepClock) -> bool {
    match step {
        // Progress(0) did nothing; counting it as progress could spin
        // forever instead of parking.
        Step::Progress(n) if n > 0 => {
            match ticks {
                Some(t) => counters.record_timed(n as u64, t, clock),
                None => counters.record_untimed(n as u64),
            }
            true
        }
        _ => false,
    }
}

/// `OHUA_STALL_DUMP=<seconds>`: a section parked that long without a wake-up
/// prints the state of its operators' ports (a diagnostic for stalls).
fn stall_dump_after() -> Option<Duration> {
    let secs: f64 = std::env::var("OHUA_STALL_DUMP").ok()?.parse().ok()?;
    Some(Duration::from_secs_f64(secs))
}

/// Drop the task's operator, reporting a panicking destructor (user state
/// may panic in `Drop`) as a panic of that operator.
pub(super) fn drop_node(slot: &Slot<'_>, task: &mut Task<'_>, shared: &RunShared, graph: &GraphInfo) {
    if let Some(node) = task.node.take() {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(move || drop(node))) {
            shared.fail(Failure::Operator { name: graph.nodes[slot.id].name, payload });
        }
    }
}

/// Whether this driver is the only running unit of a run that fetches
/// (`sync/quiet.rs`): then only a source's answer can bring it work, and the
/// requests that answer needs go out when it parks (the last unit out
/// sends them), so spinning before the park only delays its own I/O
/// (issue 21, part 5: about 0.35 ms per round of dependent fetches,
/// `BENCHMARKS.md`, Table 4.2). Skipping the spin changes nothing else of
/// the sleep protocol: the announcement, the fence and the last pass
/// before `park` stay (`README.md`, "Why no wake-up is lost"). Not in a
/// run that streams: a source's thread stuck in `next()` is not counted,
/// and its items would meet a parked section instead of a spinning one.
/// Deliveries of answers under way are not counted: the one that woke this
/// driver may still be counted when the driver runs out of work again (a
/// batch thread descheduled between its wake-up and its `leave` made a
/// loaded CI machine spin for 99 passes where 50 do).
fn alone_in_counted_run(shared: &RunShared) -> bool {
    !shared.streaming() && shared.quiet().is_some_and(|q| q.running_drivers() <= 1)
}
