//! One algorithm call's I/O: a table per source (`table.rs`), and the
//! batches in flight.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};

use super::awaiting::Awaiting;
use super::batch::{self, Call, CallOf};
use super::pending::{How, Origin, Pending};
use super::sites::Sites;
use super::source::{DataSource, Source};
use super::table::{Batch, Table, TableOf};
use super::writable::Writable;
use crate::deploy::IoMode;
use crate::stats::IoStats;
use crate::sync::Quiet;
use crate::sync::Waker;

/// The I/O state of one run (one call of an algorithm that fetches).
pub(crate) struct IoRun {
    tables: Mutex<Tables>,
    quiet: Arc<Quiet>,
    /// Every section of the run, by index.
    wakers: OnceLock<Vec<Waker>>,
    /// Which sections await an answer ([`Awaiting`]).
    awaiting: Arc<Awaiting>,
    /// Batch threads started and not finished.
    in_flight: Mutex<usize>,
    answered: Condvar,
    mode: IoMode,
    /// Held while a batch is out in [`IoMode::Serial`].
    serial: Mutex<()>,
    /// Which fetch site joined which call round.
    sites: Sites,
}

#[derive(Default)]
struct Tables {
    /// One table per source, by [`Source::id`].
    by_source: HashMap<usize, Box<dyn Table>>,
    /// Source ids in the order the run first fetched from them.
    order: Vec<usize>,
}

impl Tables {
    /// The table of `source`, created at its first request, and its place
    /// in [`Tables::order`].
    fn of<S: DataSource>(&mut self, source: &Source<S>) -> (&mut TableOf<S>, usize) {
        let id = source.id();
        let order = &mut self.order;
        let table = self.by_source.entry(id).or_insert_with(|| {
            order.push(id);
            Box::new(TableOf::new(source))
        });
        let index = order.iter().position(|&o| o == id).expect("pushed at creation");
        (table.as_any().downcast_mut().expect("one table type per source id"), index)
    }
}

/// A batch's thread, ready to start.
type Job = Box<dyn FnOnce() + Send>;

impl IoRun {
    /// The I/O state of a run with `sections` sections; their wakers
    /// follow ([`IoRun::set_wakers`]), as their sleep flags need its count.
    /// `mode` says how batches go out.
    pub(crate) fn new(sections: usize, mode: IoMode) -> Arc<IoRun> {
        Arc::new_cyclic(|me: &Weak<IoRun>| {
            let me = me.clone();
            let quiet = Quiet::new(sections, move || {
                if let Some(io) = me.upgrade() {
                    io.dispatch();
                }
            });
            IoRun {
                tables: Mutex::default(),
                quiet: Arc::new(quiet),
                wakers: OnceLock::new(),
                awaiting: Arc::default(),
                in_flight: Mutex::new(0),
                answered: Condvar::new(),
                mode,
                serial: Mutex::new(()),
                sites: Sites::default(),
            }
        })
    }

    /// The wakers of the run's sections.
    pub(crate) fn set_wakers(&self, wakers: Vec<Waker>) {
        let _ = self.wakers.set(wakers);
    }

    /// The run's quiescence count.
    pub(crate) fn quiet(&self) -> &Arc<Quiet> {
        &self.quiet
    }

    /// Join `request` to the next batch of `source` (or to the answer of an
    /// equal request since the source's last write). `in_order`: the
    /// algorithm writes to this source and submits in program order.
    pub(crate) fn submit<S: DataSource, O: Send + 'static>(
        &self,
        source: &Source<S>,
        request: S::Request,
        convert: fn(S::Response) -> O,
        in_order: bool,
    ) -> Pending<Result<O, S::Error>> {
        let batched = self.mode != IoMode::Unbatched;
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        let (table, index) = tables.of(source);
        let (cell, how, round) = table.read(request.clone(), in_order, batched);
        let origin = Origin { source: index, round, how };
        if how == How::Sent && !batched {
            let stats = table.stats.clone();
            drop(tables);
            batch::now(Box::new(CallOf::new(source, vec![(request, cell.clone())], |s, r| s.call(r), &stats)));
        }
        Pending::of(cell, convert, origin, self.awaiting.clone())
    }

    /// Queue `write` for `source` after everything the algorithm submitted
    /// to it before (program order).
    pub(crate) fn submit_write<S: Writable>(
        &self,
        source: &Source<S>,
        write: S::Write,
    ) -> Pending<Result<S::Written, S::Error>> {
        let batched = self.mode != IoMode::Unbatched;
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        let (table, index) = tables.of(source);
        let (cell, round) = table.write(write.clone(), batched);
        if !batched {
            let stats = table.stats.clone();
            drop(tables);
            batch::now(Box::new(CallOf::new(source, vec![(write, cell.clone())], |s, w| s.call_write(w), &stats)));
        }
        Pending::of(cell, |w| w, Origin { source: index, round, how: How::Sent }, self.awaiting.clone())
    }

    /// Send every queued request: per source, its calls (split by its
    /// `max_batch_size`), each on a thread of its own, so sources answer
    /// concurrently; a source whose requests keep program order gets one
    /// thread making its calls in order. Called when the run is quiet.
    pub(crate) fn dispatch(self: Arc<Self>) {
        let batches: Vec<Batch> = {
            let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
            let Tables { by_source, order } = &mut *tables;
            order.iter().filter_map(|id| by_source.get_mut(id).expect("ordered ids have tables").take_batch()).collect()
        };
        if batches.is_empty() {
            return;
        }
        let now = std::time::Instant::now();
        let jobs: Vec<Job> = batches
            .into_iter()
            .flat_map(|b| -> Vec<Job> {
                match b {
                    Batch::Concurrent(calls) => calls
                        .into_iter()
                        .map(|mut c| {
                            c.dispatched(now);
                            self.job(vec![c], None)
                        })
                        .collect(),
                    Batch::InOrder(mut calls, busy) => {
                        calls.iter_mut().for_each(|c| c.dispatched(now));
                        vec![self.job(calls, Some(busy))]
                    }
                }
            })
            .collect();
        if jobs.is_empty() {
            return;
        }
        let alone = {
            let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
            *in_flight += jobs.len();
            *in_flight == 1
        };
        if alone && CallHere::allowed() && !self.quiet.lent_ever() {
            let job = jobs.into_iter().next().expect("one job");
            return job();
        }
        jobs.into_iter().for_each(on_own_thread);
    }

    /// The thread body making `calls`: at once ([`IoMode::Concurrent`]),
    /// or holding the run's serial lock ([`IoMode::Serial`]).
    fn job(self: &Arc<Self>, calls: Vec<Box<dyn Call>>, busy: Option<Arc<std::sync::atomic::AtomicBool>>) -> Job {
        let io = self.clone();
        Box::new(move || {
            let _one_at_a_time =
                (io.mode == IoMode::Serial).then(|| io.serial.lock().unwrap_or_else(|e| e.into_inner()));
            batch::run(calls, &io, busy.as_deref());
        })
    }

    /// A call answered: its cells are filled. Wake the sections that
    /// await an answer ([`Awaiting::take`]) and stop counting the delivery
    /// (counted by the caller from before the first cell was filled), so
    /// the run cannot look quiet before the woken sections are counted.
    pub(super) fn answered(&self) {
        let wakers = self.wakers.get().map_or(&[][..], Vec::as_slice);
        let awaiting = self.awaiting.take();
        for (k, w) in wakers.iter().enumerate() {
            if awaiting.includes(k) {
                w.wake();
            }
        }
        self.quiet.leave_delivery();
    }

    /// A batch's thread is done.
    pub(super) fn job_done(&self) {
        let mut n = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        *n -= 1;
        if *n == 0 {
            self.answered.notify_all();
        }
    }

    /// At the end of a run: send what is still queued if `send_rest`
    /// (writes nobody waited for) and wait until no batch is in flight, so
    /// no thread of the run outlives the call.
    pub(crate) fn wait_idle(self: &Arc<Self>, send_rest: bool) {
        loop {
            {
                let mut n = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
                while *n > 0 {
                    n = self.answered.wait(n).unwrap_or_else(|e| e.into_inner());
                }
            }
            if !send_rest {
                return;
            }
            self.clone().dispatch();
            if *self.in_flight.lock().unwrap_or_else(|e| e.into_inner()) == 0 {
                return;
            }
        }
    }

    /// Per source, in the order the run first fetched from them.
    pub(crate) fn stats(&self) -> Vec<IoStats> {
        let tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        tables.order.iter().map(|id| tables.by_source[id].stats()).collect()
    }

    /// The fetch sites' record.
    pub(crate) fn sites(&self) -> &Sites {
        &self.sites
    }

    /// Per fetch site and source of `graph`: its fetches and call rounds.
    pub(crate) fn site_report(&self, graph: &'static crate::graph::GraphInfo) -> Vec<crate::stats::IoSite> {
        let names: Vec<String> = self.stats().into_iter().map(|s| s.source).collect();
        self.sites.report(graph, &names)
    }
}

/// The section index of a thread that drives no section.
pub(crate) const ANY_SECTION: usize = usize::MAX;

thread_local! {
    /// Whether this thread may make a lone call itself ([`CallHere`]).
    static CALL_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// While alive, a dispatch on this thread that sends exactly one call, with
/// no other batch of the run in flight, makes the call here instead of on a
/// pool thread. A section's driver sets it around its last count before it
/// parks (`exec/section.rs`): the run is then quiet, so the driver has
/// nothing to do but wait for this answer, and making the call itself
/// saves two thread switches per round of dependent fetches (the hand-off
/// to a pool thread, and the wake-up of the parked driver by the answer;
/// issue 21, part 5). Not set where the thread has other work: a batch's
/// thread, the monitor, the caller's end-of-run dispatch, a run that
/// streams or lent a blocked unit (an item or a returning step could then
/// need the driver while it waits in the source).
pub(crate) struct CallHere(bool);

impl CallHere {
    /// Allow lone calls on this thread until the guard drops.
    pub(crate) fn enter() -> Self {
        CallHere(CALL_HERE.with(|c| c.replace(true)))
    }

    fn allowed() -> bool {
        CALL_HERE.with(std::cell::Cell::get)
    }
}

impl Drop for CallHere {
    fn drop(&mut self) {
        CALL_HERE.with(|c| c.set(self.0));
    }
}

/// Run `job` on a worker of the process's pool (an idle thread, or a new
/// one: a batch never waits for another), or here if no thread can be
/// started (the answer then comes later, but it comes: the pool drops a job
/// it could not start, so the job waits in a slot either side can take it
/// from).
fn on_own_thread(job: Job) {
    let slot = Arc::new(Mutex::new(Some(job)));
    let theirs = slot.clone();
    let take = |s: &Mutex<Option<Job>>| s.lock().unwrap_or_else(|e| e.into_inner()).take();
    let started = crate::pool::spawn_detached("ohua-io", move || {
        if let Some(job) = take(&theirs) {
            job();
        }
    });
    if started.is_err() {
        if let Some(job) = take(&slot) {
            job();
        }
    }
}
