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
use super::rescue::{still_driver, Beat};
use super::shared::{Failure, RunShared};
pub(crate) use super::timing::Counters;
use super::timing::{Sampler, StepClock};
use crate::graph::GraphInfo;
use crate::node::blocking::{self, BlockingHook};
use crate::node::{Node, Step};
use crate::report::SectionStats;
use crate::sync::process::Mutex as ProcessMutex;
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
    /// Tasks pinned to stuck threads.
    pub(super) pinned: usize,
}

/// The operators of one section, in topological order, and how it sleeps.
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
        let ctl =
            Ctl { driving: true, driver: FIRST_DRIVER, last_id: FIRST_DRIVER, beat, seen: 0, threads: 1, pinned: 0 };
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
        }
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
    /// operator's counters in `out`.
    pub(crate) fn run(&self, shared: &RunShared, graph: &GraphInfo, out: &CounterSink) {
        let beat = self.ctl.lock().unwrap_or_else(|e| e.into_inner()).beat.clone();
        self.drive(FIRST_DRIVER, beat, shared, graph, out);
    }

    /// Step the operators as driver `me` (beating on `beat`).
    pub(super) fn drive(
        &self,
        mut me: u64,
        mut beat: std::sync::Arc<Beat>,
        shared: &RunShared,
        graph: &GraphInfo,
        out: &CounterSink,
    ) {
        let _hook = BlockingHook::install(&self.waker, shared.streaming_flag(), shared.blocked_flag(), &self.progress);
        let _io = crate::io::Current::install(shared.io(), self.index);
        beat.set_thread();
        let backoff = Backoff::new();
        let stall_dump = stall_dump_after();
        let mut idle_since: Option<Instant> = None;
        let mut seq = 0;
        loop {
            if shared.aborted() {
                return self.retire(shared, graph, out);
            }
            let mut outcome = self.pass(me, &beat, &mut seq, shared, graph);
            if let Pass::Idle = outcome {
                let since = *idle_since.get_or_insert_with(Instant::now);
                if !alone_in_counted_run(shared) && (!backoff.is_completed() || since.elapsed() < SPIN_WINDOW) {
                    // Spin, then yield, re-running the pass each time: a peer
                    // that is merely slower is cheaper to wait for than a park.
                    backoff.snooze();
                    continue;
                }
                // Announce the sleep, then look once more (operators, abort,
                // pinned tasks): a waker either sees the announcement or its
                // push is seen here.
                self.flag.going_to_sleep();
                outcome = if shared.aborted() { Pass::Progress } else { self.pass(me, &beat, &mut seq, shared, graph) };
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
                // A thread that left must not touch the flag: the new
                // driver may be about to park on it.
                if !matches!(outcome, Pass::Left) {
                    self.flag.awake(parked);
                }
            }
            match outcome {
                Pass::Progress | Pass::Idle => {
                    backoff.reset();
                    idle_since = None;
                }
                Pass::Finished => return self.retire(shared, graph, out),
                Pass::Left => return,
                Pass::Rejoined(id, b) => {
                    (me, beat) = (id, b);
                    beat.set_thread();
                    backoff.reset();
                    idle_since = None;
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

    /// Step every live operator that is not pinned once.
    fn pass(&self, me: u64, beat: &Beat, seq: &mut u64, shared: &RunShared, graph: &GraphInfo) -> Pass {
        let mut progressed = false;
        let mut live = 0;
        // Steps are timed by sampling (`timing.rs`): with small batches a
        // step is a few nanoseconds and a clock read is 14-20 ns.
        let clock = StepClock::get();
        let quiet = shared.quiet();
        for (i, slot) in self.tasks.iter().enumerate() {
            if slot.pinned.load(Ordering::Acquire) {
                live += 1;
                continue;
            }
            // SAFETY: an unpinned task belongs to the driver, and we are it:
            // we checked after our last step.
            let task = unsafe { &mut *slot.task.get() };
            let Some(node) = task.node.as_mut() else { continue };
            live += 1;
            task.counters.steps += 1;
            let budget = task.counters.budget(self.batch, clock);
            // SAFETY: as above, `own` is the driver's; the borrow ends here.
            let timed = task.counters.wants_timing(&mut unsafe { &mut *self.own.get() }.sampler);
            let outer_timed = timed && blocking::begin_timed_step();
            let start = timed.then(|| clock.now());
            beat.enter(seq, i);
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let step = node.step(budget);
                node.flush();
                step
            }));
            beat.leave(*seq);
            // A loop entry's wait for input is not work (`node/blocking.rs`).
            let waited = if timed { blocking::end_timed_step(outer_timed) } else { 0 };
            let ticks = start.map(|s| clock.now().saturating_sub(s).saturating_sub(clock.ticks_of_nanos(waited)));
            let replaced = !still_driver(&self.driver, me);
            if let Some(quiet) = quiet {
                // The monitor may have found this step blocked and stopped
                // counting us (`Section::check`): count us again.
                beat.take_back_lent(quiet);
            }
            if replaced && self.replaced(me) {
                return self.return_from_stuck(i, outcome, ticks, shared, graph);
            }
            match outcome {
                Ok(Step::Done) => {
                    // Dropping closes the node's arcs and wakes the
                    // sections on their other ends.
                    drop_node(slot, task, shared, graph);
                    self.live.fetch_sub(1, Ordering::Relaxed);
                    live -= 1;
                    progressed = true;
                    self.count_progress();
                }
                Ok(step) => {
                    if record(&mut task.counters, step, ticks, clock) {
                        progressed = true;
                        self.count_progress();
                    }
                }
                Err(payload) => {
                    // A fused piece names the link that panicked.
                    let id = crate::node::chain::take_blamed().unwrap_or(slot.id);
                    shared.fail(Failure::Operator { name: graph.nodes[id].name, payload });
                    // Not idle: go straight to the abort check.
                    return Pass::Progress;
                }
            }
        }
        // SAFETY: as above, `own` is the driver's.
        let stats = &mut unsafe { &mut *self.own.get() }.stats;
        stats.passes += 1;
        if live == 0 {
            Pass::Finished
        } else if progressed {
            Pass::Progress
        } else {
            stats.idle_passes += 1;
            Pass::Idle
        }
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
