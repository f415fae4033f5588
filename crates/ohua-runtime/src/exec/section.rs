//! One section: a group of operators stepped in a loop on one thread.
//!
//! See `README.md` in this folder for the sleep/wake and abort protocols.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use super::shared::{Failure, RunShared};
pub(crate) use super::timing::Counters;
use super::timing::{Sampler, StepClock};
use crate::graph::GraphInfo;
use crate::node::{Node, Step};
use crate::report::SectionStats;
use crate::sync::{Arc, Backoff, Parker, SleepFlag};

/// An operator and its counters; `node` is `None` once it is done.
struct Task<'a> {
    id: usize,
    node: Option<Box<dyn Node + 'a>>,
    counters: Counters,
}

/// The operators of one section, in topological order, and its parker.
pub(crate) struct Section<'a> {
    index: usize,
    tasks: Vec<Task<'a>>,
    parker: Parker,
    flag: Arc<SleepFlag>,
    batch: usize,
    stats: SectionStats,
    /// Which steps to time (`timing.rs`).
    sampler: Sampler,
}

/// How long a section keeps polling (spinning, then yielding) after its last
/// progress before it parks. A parked wake-up costs tens of microseconds on
/// these VMs; a peer that produces again within this window is picked up
/// without one. The worker pool (`pool.rs`) polls as long before an idle
/// worker, or a caller waiting for its sections, goes to sleep.
pub(super) const SPIN_WINDOW: Duration = Duration::from_micros(50);

impl<'a> Section<'a> {
    /// An empty section stepping operators with `batch` firings per step and
    /// sleeping on `parker` (whose unparker the section's arcs hold).
    pub(crate) fn new(index: usize, parker: Parker, flag: Arc<SleepFlag>, batch: usize) -> Self {
        Section {
            index,
            tasks: Vec::new(),
            parker,
            flag,
            batch,
            stats: SectionStats::default(),
            sampler: Sampler::new(index),
        }
    }

    /// Append node `id`; nodes run in the order they are added.
    pub(crate) fn push(&mut self, id: usize, node: Box<dyn Node + 'a>) {
        self.tasks.push(Task { id, node: Some(node), counters: Counters::default() });
    }

    /// Step the operators until all are done or the run is aborted.
    /// Returns each operator's counters by node id.
    pub(crate) fn run(mut self, shared: &RunShared, graph: &GraphInfo) -> Vec<(usize, Counters)> {
        let backoff = Backoff::new();
        let stall_dump = stall_dump_after();
        let mut live = self.tasks.len();
        let mut idle_since: Option<Instant> = None;
        while live > 0 {
            if shared.aborted() {
                break;
            }
            if self.pass(shared, graph, &mut live) {
                backoff.reset();
                idle_since = None;
                continue;
            }
            let since = *idle_since.get_or_insert_with(Instant::now);
            if !backoff.is_completed() || since.elapsed() < SPIN_WINDOW {
                // Spin, then yield, re-running the pass each time: a peer
                // that is merely slower is cheaper to wait for than a park.
                backoff.snooze();
                continue;
            }
            // Announce the sleep, then look once more (operators and abort):
            // a waker either sees the announcement or its push is seen here.
            self.flag.going_to_sleep();
            if shared.aborted() || self.pass(shared, graph, &mut live) {
                self.flag.awake();
                backoff.reset();
                idle_since = None;
                continue;
            }
            let start = Instant::now();
            match stall_dump {
                None => self.parker.park(),
                Some(after) => {
                    self.parker.park_timeout(after);
                    if start.elapsed() >= after {
                        eprintln!("{}", self.describe(graph));
                    }
                }
            }
            self.flag.awake();
            self.stats.parks += 1;
            self.stats.parked += start.elapsed();
            backoff.reset();
            idle_since = None;
        }
        self.finish(shared, graph)
    }

    /// Step every live operator once; whether any made progress.
    fn pass(&mut self, shared: &RunShared, graph: &GraphInfo, live: &mut usize) -> bool {
        let mut progressed = false;
        // Steps are timed by sampling (`timing.rs`): with small batches a
        // step is a few nanoseconds and a clock read is 14-20 ns.
        let clock = StepClock::get();
        for task in &mut self.tasks {
            let Some(node) = task.node.as_mut() else { continue };
            task.counters.steps += 1;
            let budget = task.counters.budget(self.batch, clock);
            let start = task.counters.wants_timing(&mut self.sampler).then(|| clock.now());
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let step = node.step(budget);
                node.flush();
                step
            }));
            match outcome {
                // Progress(0) did nothing; counting it as progress could
                // spin forever instead of parking.
                Ok(Step::Progress(n)) if n > 0 => {
                    match start {
                        Some(start) => task.counters.record_timed(n as u64, clock.now().saturating_sub(start), clock),
                        None => task.counters.record_untimed(n as u64),
                    }
                    progressed = true;
                }
                Ok(Step::Progress(_) | Step::Blocked) => {}
                Ok(Step::Done) => {
                    // Dropping closes the node's arcs and wakes the
                    // sections on their other ends.
                    drop_node(task, shared, graph);
                    *live -= 1;
                    progressed = true;
                }
                Err(payload) => {
                    // A fused piece names the link that panicked.
                    let id = crate::node::chain::take_blamed().unwrap_or(task.id);
                    let name = graph.nodes[id].name;
                    shared.fail(Failure::Operator { name, payload });
                    // Not idle: go straight to the abort check.
                    return true;
                }
            }
        }
        progressed
    }

    /// Every live operator's port state, one per line (for `OHUA_STALL_DUMP`).
    fn describe(&self, graph: &GraphInfo) -> String {
        let mut out = format!("ohua: section of `{}` parked without a wake-up:", graph.algorithm);
        for t in &self.tasks {
            if let Some(node) = &t.node {
                out.push_str(&format!("\n  {:<32} {}", graph.nodes[t.id].name, node.describe()));
            }
        }
        out
    }

    /// Drop every remaining operator (closing its arcs) and return the counters.
    pub(crate) fn finish(mut self, shared: &RunShared, graph: &GraphInfo) -> Vec<(usize, Counters)> {
        shared.record_section(self.index, self.stats);
        for task in &mut self.tasks {
            drop_node(task, shared, graph);
        }
        self.tasks.iter().map(|t| (t.id, t.counters)).collect()
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
fn drop_node(task: &mut Task<'_>, shared: &RunShared, graph: &GraphInfo) {
    if let Some(node) = task.node.take() {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(move || drop(node))) {
            let name = graph.nodes[task.id].name;
            shared.fail(Failure::Operator { name, payload });
        }
    }
}
