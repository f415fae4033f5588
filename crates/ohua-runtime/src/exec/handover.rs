//! The slow paths of a section: the monitor's rescue, a replaced thread
//! coming back from its stuck step, a driver leaving, and the last thread
//! out. All of them run under the section's lock (`Ctl`); the driver's hot
//! path takes it only when a rescue happened (README.md, "Rescue").

use std::sync::MutexGuard;
use std::thread::Result as StepResult;

use super::hosting::Hosted;
use super::rescue::{is_running, stepping, try_retake, untag, Beat};
use super::section::{drop_node, record, CounterSink, Ctl, Pass, Section};
use super::shared::{Failure, RunShared};
use super::timing::StepClock;
use crate::graph::GraphInfo;
use crate::node::Step;
use crate::sync::Ordering;

type NewBeat = std::sync::Arc<Beat>;

/// How old a wait a wake-up marked must be for the next tick to rescue it.
/// A closed-loop client's waits are tens of µs per request; rescued at the
/// tick that found one marked, the `acpt-read` web server with one client
/// lost a fifth of its throughput and had a p99 of 2.1 ms
/// (`BENCHMARKS.md`). A source at light load waits about as long as the
/// gap between its items, a millisecond or more.
const MARKED_WAIT: std::time::Duration = std::time::Duration::from_micros(300);

impl<'a> Section<'a> {
    fn lock(&self) -> MutexGuard<'_, Ctl> {
        self.ctl.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The monitor's tick for this section. If the driver is inside the
    /// same step as at the last tick and another operator could run
    /// meanwhile, retake the section: pin the stuck task to its thread and
    /// call `start(id, beat)` to start a new driver with that id and beat.
    ///
    /// # Errors
    ///
    /// None returned: if `start` fails, the run is aborted and the stuck
    /// thread drives again (to clean up) when its step returns.
    pub(super) fn check(
        &self,
        shared: &RunShared,
        peers: &[Section<'a>],
        start: impl FnOnce(u64, NewBeat) -> std::io::Result<()>,
    ) {
        let mut ctl = self.lock();
        if !ctl.driving || shared.aborted() {
            ctl.seen = 0;
            return;
        }
        let beat = ctl.beat.read();
        let seen = std::mem::replace(&mut ctl.seen, beat);
        let Some(stuck) = stepping(beat) else { return };
        // A wait that a wake-up found (`SleepFlag::blocking`) holds work of
        // the section's other operators back: rescued at this tick, not
        // after a second one. Items 1 ms apart otherwise each returned
        // from `next()` before the second tick, and an operator fed (or
        // given room) by another section ran once per arriving item
        // (regression test `streaming::a_backlog_in_front_of_a_costly_body_drains_while_items_keep_arriving`).
        // Only a wait older than `MARKED_WAIT`: see there.
        if beat != seen && !self.flag.woken_in_wait_of(MARKED_WAIT) {
            return;
        }
        // A driver that is merely preempted (an oversubscribed machine)
        // will go on by itself. One that computes (the same step on two
        // ticks: a firing of a millisecond or more) in a run that streams
        // is rescued all the same: the section's other operators, a
        // service's cheap requests, would wait for the whole firing
        // (`README.md`, "Rescue"; a run that fetches counts its running
        // drivers, `sync/quiet.rs`, and keeps to blocked ones).
        if is_running(ctl.beat.thread()) && !(beat == seen && shared.streaming() && shared.quiet().is_none()) {
            return;
        }
        // Blocked: in a run that fetches, it stops counting as running.
        if let Some(quiet) = shared.quiet() {
            ctl.beat.lend(beat, quiet, self.flag.fences());
        }
        // Rescue only if some other operator is left to run meanwhile (of
        // this section or of one it hosts, `hosting.rs`).
        let live = self.live.load(Ordering::Relaxed)
            + ctl.guests.iter().map(|&g| peers[g].live.load(Ordering::Relaxed)).sum::<usize>();
        if live <= ctl.pinned + 1 {
            return;
        }
        // The stuck task may be a hosted section's: its slot is pinned
        // under our lock, as the guest's tasks are ours while hosted.
        let (part, stuck) = untag(stuck);
        let Some(slot) = peers.get(part).and_then(|p| p.tasks.get(stuck)) else { return };
        let (old, new) = (ctl.driver, ctl.last_id + 1);
        if !try_retake(&self.driver, &ctl.beat, beat, old, new, self.flag.fences()) {
            return;
        }
        // The section is ours until `start`: the stuck driver touched `own`
        // last before the step whose beat we read (Release/Acquire).
        unsafe { &mut *self.own.get() }.stats.rescues += 1;
        slot.pinned.store(true, Ordering::Relaxed);
        let fresh = std::sync::Arc::new(Beat::new());
        ctl.last_id = new;
        ctl.driver = new;
        ctl.pinned += 1;
        ctl.threads += 1;
        ctl.beat = fresh.clone();
        ctl.seen = 0;
        // The new driver does not wait; the stuck one's wait is its own.
        self.flag.unblocked();
        if let Some(quiet) = shared.quiet() {
            // The new driver runs; a sleep the stuck one announced in its
            // last pass is void.
            self.flag.reset_for_new_driver();
            quiet.enter();
        }
        if let Err(e) = start(new, fresh) {
            if let Some(quiet) = shared.quiet() {
                quiet.leave();
            }
            ctl.threads -= 1;
            ctl.driving = false;
            drop(ctl);
            shared.fail(Failure::Runtime(format!("cannot start a thread to rescue section {}: {e}", self.index)));
        }
    }

    /// Whether the monitor really replaced driver `me`: the id it announced
    /// may have been taken back (`try_retake`); the lock has the last word.
    pub(super) fn replaced(&self, me: u64) -> bool {
        self.lock().driver != me
    }

    /// Our step of task `i` returned after the monitor replaced us: the task
    /// is pinned to us. Settle the step, then hand the task back to the
    /// current driver and leave, or drive again if nobody does.
    pub(super) fn return_from_stuck(
        &self,
        part: &Section<'a>,
        i: usize,
        outcome: StepResult<Step>,
        ticks: Option<u64>,
        shared: &RunShared,
        graph: &GraphInfo,
    ) -> Pass {
        let slot = &part.tasks[i];
        // SAFETY: the task is pinned to us until we unpin it below.
        let task = unsafe { &mut *slot.task.get() };
        match outcome {
            Ok(Step::Done) => {
                drop_node(slot, task, shared, graph);
                part.live.fetch_sub(1, Ordering::Relaxed);
            }
            Ok(step) => {
                record(&mut task.counters, step, ticks, StepClock::get());
            }
            Err(payload) => {
                let id = crate::node::chain::take_blamed().unwrap_or(slot.id);
                shared.fail(Failure::Operator { name: graph.nodes[id].name, payload });
            }
        }
        let mut ctl = self.lock();
        ctl.pinned -= 1;
        slot.pinned.store(false, Ordering::Release);
        if ctl.driving {
            ctl.threads -= 1;
            drop(ctl);
            if let Some(quiet) = shared.quiet() {
                quiet.leave();
            }
            // The driver may be parked, and neither unpinning nor arcs
            // inside a section wake it.
            self.waker.wake();
            return Pass::Left;
        }
        // The driver left (the run is aborted) or never started: we drive.
        ctl.last_id += 1;
        let id = ctl.last_id;
        ctl.driver = id;
        ctl.driving = true;
        ctl.beat = std::sync::Arc::new(Beat::new());
        ctl.seen = 0;
        self.driver.store(id, Ordering::Relaxed);
        Pass::Rejoined(id, ctl.beat.clone())
    }

    /// The driver leaves: the section is finished or the run aborted. The
    /// last thread out (a stuck one may still be inside) finishes it. A
    /// host lets its guests go first, including one that joined just now;
    /// a guest whose task is pinned stays until the stuck thread, which
    /// then drives again, lets it go (`hosting.rs`).
    pub(super) fn retire(
        &self,
        shared: &RunShared,
        graph: &GraphInfo,
        out: &CounterSink,
        peers: &[Section<'a>],
        hosted: &mut Hosted,
    ) {
        let last = loop {
            if hosted.recuts() {
                self.let_guests_go(peers, hosted);
            }
            let mut ctl = self.lock();
            let unpinned = |g: &usize| !peers[*g].tasks.iter().any(|t| t.pinned.load(Ordering::Relaxed));
            if ctl.guests.iter().any(unpinned) {
                continue; // joined after we looked
            }
            ctl.driving = false;
            ctl.threads -= 1;
            break ctl.threads == 0;
        };
        if let Some(quiet) = shared.quiet() {
            quiet.leave();
        }
        if last {
            self.finish(shared, graph, out);
        }
    }

    /// Drop every remaining operator (closing its arcs) and store the
    /// counters. Called by the last thread out, or for a section that never
    /// ran (its thread could not be started).
    pub(crate) fn finish(&self, shared: &RunShared, graph: &GraphInfo, out: &CounterSink) {
        // SAFETY: nobody else is inside the section any more.
        shared.record_section(self.index, unsafe { &*self.own.get() }.stats);
        let mut counters = Vec::with_capacity(self.tasks.len());
        for slot in &self.tasks {
            // SAFETY: as above.
            let task = unsafe { &mut *slot.task.get() };
            drop_node(slot, task, shared, graph);
            counters.push((slot.id, slot.role, self.index, task.counters));
        }
        out.lock().unwrap_or_else(|e| e.into_inner()).extend(counters);
    }
}
