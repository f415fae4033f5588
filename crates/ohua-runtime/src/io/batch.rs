//! One call of a source: made on a batch's thread, its answers delivered
//! into the cells the fetches wait on.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::pending::{Cell, Outcome};
use super::run::IoRun;
use super::source::{DataSource, Source};
use crate::stats::{CallTiming, IoStats};

/// A call ready to be made: [`Call::ask`] the source (slow, no lock held),
/// then [`Call::deliver`] the answers.
pub(super) trait Call: Send {
    /// Make the call, catching a panic of the source.
    fn ask(&mut self);
    /// Count the call and fill each request's cell with its result (or the
    /// call's panic).
    fn deliver(self: Box<Self>);
    /// When the first and last request of its round were queued.
    fn queued(&mut self, first: Instant, last: Instant);
    /// When the run handed it to a thread.
    fn dispatched(&mut self, at: Instant);
}

/// The make of a call: [`Source::call`] for reads, `Source::call_write`
/// for writes.
pub(super) type Make<S, Req, R> = fn(&Source<S>, &[Req]) -> Vec<Result<R, <S as DataSource>::Error>>;

/// The results of one call, or its panic.
type Results<R, E> = std::thread::Result<Vec<Result<R, E>>>;
/// A request and the cell its answer goes into.
type Slot<Req, R, E> = (Req, Arc<Cell<R, E>>);

/// A call of `S` with requests of type `Req` answered by `R`s.
pub(super) struct CallOf<S: DataSource, Req, R> {
    source: Source<S>,
    requests: Vec<Req>,
    cells: Vec<Arc<Cell<R, S::Error>>>,
    make: Make<S, Req, R>,
    stats: Arc<Mutex<IoStats>>,
    answer: Option<(Results<R, S::Error>, Duration)>,
    /// The moments of [`CallTiming`], as far as known.
    times: Times,
}

/// A call's moments before it is delivered.
#[derive(Clone, Copy)]
struct Times {
    first_submit: Option<Instant>,
    last_submit: Option<Instant>,
    dispatched: Option<Instant>,
    started: Option<Instant>,
}

impl<S: DataSource, Req, R> CallOf<S, Req, R> {
    /// The call of `requests` (their cells alongside) made by `make`.
    pub(super) fn new(
        source: &Source<S>,
        batch: Vec<Slot<Req, R, S::Error>>,
        make: Make<S, Req, R>,
        stats: &Arc<Mutex<IoStats>>,
    ) -> Self {
        let (requests, cells) = batch.into_iter().unzip();
        let times = Times { first_submit: None, last_submit: None, dispatched: None, started: None };
        CallOf { source: source.clone(), requests, cells, make, stats: stats.clone(), answer: None, times }
    }
}

impl<S: DataSource, Req: Send, R: Send + Sync> Call for CallOf<S, Req, R> {
    fn ask(&mut self) {
        let start = Instant::now();
        self.times.started = Some(start);
        let results = catch_unwind(AssertUnwindSafe(|| (self.make)(&self.source, &self.requests)));
        self.answer = Some((results, start.elapsed()));
    }

    fn queued(&mut self, first: Instant, last: Instant) {
        self.times.first_submit = Some(first);
        self.times.last_submit = Some(last);
    }

    fn dispatched(&mut self, at: Instant) {
        self.times.dispatched = Some(at);
    }

    fn deliver(self: Box<Self>) {
        let (results, took) = self.answer.expect("asked before delivering");
        let started = self.times.started.expect("asked before delivering");
        let returned = started + took;
        {
            let mut s = self.stats.lock().unwrap_or_else(|e| e.into_inner());
            s.calls += 1;
            s.requests += self.requests.len() as u64;
            s.busy += took;
            s.slowest = s.slowest.max(took);
            if let Ok(results) = &results {
                s.errors += results.iter().filter(|r| r.is_err()).count() as u64;
            }
        }
        match results {
            Ok(results) => {
                for (cell, result) in self.cells.iter().zip(results) {
                    let _ = cell.set(Outcome::Answer(result));
                }
            }
            Err(payload) => {
                let payload = Arc::new(Mutex::new(Some(payload)));
                for cell in &self.cells {
                    let _ = cell.set(Outcome::Panicked(payload.clone()));
                }
            }
        }
        let delivered = Instant::now();
        let t = self.times;
        let dispatched = t.dispatched.unwrap_or(started);
        let timing = CallTiming {
            requests: self.requests.len(),
            first_submit: t.first_submit.unwrap_or(dispatched),
            last_submit: t.last_submit.unwrap_or(dispatched),
            dispatched,
            started,
            returned,
            delivered,
        };
        self.stats.lock().unwrap_or_else(|e| e.into_inner()).timeline.push(timing);
    }
}

/// Make `call` now and deliver its answers ([`crate::deploy::IoMode::Unbatched`]).
pub(super) fn now(mut call: Box<dyn Call>) {
    call.ask();
    call.deliver();
}

/// A batch's thread: make `calls` one after another, delivering each
/// call's answers as soon as it returns, and wake the run after each.
/// `busy` (the source's job flag when its requests keep program order) is
/// cleared before the last delivery stops counting, so the dispatch that
/// the run's next quiet moment makes sees the source free.
pub(super) fn run(calls: Vec<Box<dyn Call>>, io: &IoRun, busy: Option<&AtomicBool>) {
    let last = calls.len().saturating_sub(1);
    for (i, mut call) in calls.into_iter().enumerate() {
        call.ask();
        // Counted as running from before the first cell is filled: the
        // woken sections are counted before this delivery stops counting.
        io.quiet().enter_delivery();
        call.deliver();
        if i == last {
            if let Some(busy) = busy {
                busy.store(false, Ordering::Release);
            }
        }
        io.answered();
    }
    io.job_done();
}
