//! One algorithm call's I/O: the requests collected since the last batch,
//! the per-call cache, and the batches in flight.

use std::any::Any;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::Instant;

use super::pending::{Cell, Outcome, Pending};
use super::quiet::Quiet;
use super::source::{DataSource, Source};
use crate::deploy::IoMode;
use crate::report::IoStats;
use crate::sync::Waker;

/// The I/O state of one run (one call of an algorithm that fetches).
pub(crate) struct IoRun {
    tables: Mutex<Tables>,
    quiet: Arc<Quiet>,
    /// Every section of the run: an answer may be awaited anywhere.
    wakers: OnceLock<Vec<Waker>>,
    /// Batches sent and not yet answered.
    in_flight: Mutex<usize>,
    answered: Condvar,
    mode: IoMode,
    /// Held while a batch is out in [`IoMode::Serial`].
    serial: Mutex<()>,
}

#[derive(Default)]
struct Tables {
    /// One table per source, by [`Source::id`].
    by_source: HashMap<usize, Box<dyn Table>>,
    /// Source ids in the order the run first fetched from them.
    order: Vec<usize>,
}

/// A batch call ready to run on its own thread.
type Job = Box<dyn FnOnce() + Send>;

/// One source's requests within a run (type-erased [`TableOf`]).
trait Table: Send {
    fn as_any(&mut self) -> &mut dyn Any;
    /// The calls answering every request queued since the last batch.
    fn take_batch(&mut self, io: &Arc<IoRun>) -> Vec<Job>;
    fn stats(&self) -> IoStats;
}

/// The answer cell of one of `S`'s requests.
type CellOf<S> = Arc<Cell<<S as DataSource>::Response, <S as DataSource>::Error>>;

struct TableOf<S: DataSource> {
    source: Source<S>,
    /// Every request of this run, answered or not (the per-call cache),
    /// with the batch it joined.
    cells: HashMap<S::Request, (CellOf<S>, u64)>,
    /// Requests not sent yet: the batch numbered `batch`.
    queued: Vec<(S::Request, CellOf<S>)>,
    batch: u64,
    stats: Arc<Mutex<IoStats>>,
}

impl IoRun {
    /// The I/O state of a run with `sections` sections; their wakers
    /// follow ([`IoRun::set_wakers`]), as their sleep flags need its count.
    /// `mode` says whether the batches of different sources go out at once.
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
                in_flight: Mutex::new(0),
                answered: Condvar::new(),
                mode,
                serial: Mutex::new(()),
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
    /// equal request of this run).
    pub(crate) fn submit<S: DataSource, O: Send + 'static>(
        &self,
        source: &Source<S>,
        request: S::Request,
        convert: fn(S::Response) -> O,
    ) -> Pending<Result<O, S::Error>> {
        let mut tables_guard = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        let tables = &mut *tables_guard;
        let id = source.id();
        let table = tables.by_source.entry(id).or_insert_with(|| {
            tables.order.push(id);
            let stats = IoStats { source: source.get().name().to_string(), ..IoStats::default() };
            Box::new(TableOf {
                source: source.clone(),
                cells: HashMap::new(),
                queued: Vec::new(),
                batch: 0,
                stats: Arc::new(Mutex::new(stats)),
            })
        });
        let table: &mut TableOf<S> = table.as_any().downcast_mut().expect("one table type per source id");
        let mut stats = table.stats.lock().unwrap_or_else(|e| e.into_inner());
        stats.fetches += 1;
        if let Some((cell, batch)) = table.cells.get(&request) {
            if *batch == table.batch {
                stats.deduplicated += 1;
            } else {
                stats.cached += 1;
            }
            return Pending::of(cell.clone(), convert);
        }
        drop(stats);
        let cell = Arc::new(Cell::new());
        if self.mode == IoMode::Unbatched {
            // The answer is there when `submit` returns; the cell is not
            // kept, so a repeated request is fetched again.
            let (source, stats) = (table.source.clone(), table.stats.clone());
            drop(tables_guard);
            fill(&source, vec![(request, cell.clone())], &stats);
            return Pending::of(cell, convert);
        }
        table.cells.insert(request.clone(), (cell.clone(), table.batch));
        table.queued.push((request, cell.clone()));
        Pending::of(cell, convert)
    }

    /// Send every queued request: one call per source (split by its
    /// `max_batch_size`), each on a thread of its own, so sources answer
    /// concurrently. Called when the run is quiet.
    pub(crate) fn dispatch(self: Arc<Self>) {
        let jobs: Vec<Job> = {
            let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
            let Tables { by_source, order } = &mut *tables;
            order
                .iter()
                .flat_map(|id| by_source.get_mut(id).expect("ordered ids have tables").take_batch(&self))
                .collect()
        };
        if jobs.is_empty() {
            return;
        }
        *self.in_flight.lock().unwrap_or_else(|e| e.into_inner()) += jobs.len();
        match self.mode {
            // Each batch on a thread of its own: sources answer
            // concurrently, and a slow one delays only what depends on it.
            IoMode::Concurrent | IoMode::Unbatched => jobs.into_iter().for_each(on_own_thread),
            // One batch at a time, also across dispatches: a batch sent
            // while another is out waits for it.
            IoMode::Serial => {
                let io = self.clone();
                on_own_thread(Box::new(move || {
                    let _one_at_a_time = io.serial.lock().unwrap_or_else(|e| e.into_inner());
                    jobs.into_iter().for_each(|job| job());
                }))
            }
        }
    }

    /// A batch answered: its cells are filled. Wake every section (one of
    /// them awaits the answers) while counted as running, so the run cannot
    /// look quiet before the woken sections are counted.
    fn answered(&self) {
        for w in self.wakers.get().map_or(&[][..], Vec::as_slice) {
            w.wake();
        }
        self.quiet.leave();
        let mut n = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        *n -= 1;
        if *n == 0 {
            self.answered.notify_all();
        }
    }

    /// Wait until no batch is in flight (at the end of a run, so no thread
    /// of it outlives the call).
    pub(crate) fn wait_idle(&self) {
        let mut n = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        while *n > 0 {
            n = self.answered.wait(n).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Per source, in the order the run first fetched from them.
    pub(crate) fn stats(&self) -> Vec<IoStats> {
        let tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        tables.order.iter().map(|id| tables.by_source[id].stats()).collect()
    }
}

impl<S: DataSource> Table for TableOf<S> {
    fn as_any(&mut self) -> &mut dyn Any {
        self
    }

    fn take_batch(&mut self, io: &Arc<IoRun>) -> Vec<Job> {
        if self.queued.is_empty() {
            return Vec::new();
        }
        let queued = std::mem::take(&mut self.queued);
        self.batch += 1;
        let size = self.source.get().max_batch_size().unwrap_or(usize::MAX).max(1);
        let mut jobs: Vec<Job> = Vec::new();
        let mut rest = queued.into_iter().peekable();
        while rest.peek().is_some() {
            let chunk: Vec<_> = rest.by_ref().take(size).collect();
            let (source, stats, io) = (self.source.clone(), self.stats.clone(), io.clone());
            jobs.push(Box::new(move || call(&source, chunk, &stats, &io)));
        }
        jobs
    }

    fn stats(&self) -> IoStats {
        self.stats.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Run `job` on a new thread, or here if no thread can be started (the
/// answer then comes later, but it comes: `spawn` drops a closure it could
/// not start, so the job waits in a slot either side can take it from).
fn on_own_thread(job: Job) {
    let slot = Arc::new(Mutex::new(Some(job)));
    let theirs = slot.clone();
    let take = |s: &Mutex<Option<Job>>| s.lock().unwrap_or_else(|e| e.into_inner()).take();
    let started = std::thread::Builder::new().name("ohua-io".into()).spawn(move || {
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

/// One batch call: ask the source, fill the cells, wake the run.
fn call<S: DataSource>(source: &Source<S>, chunk: Vec<(S::Request, CellOf<S>)>, stats: &Mutex<IoStats>, io: &IoRun) {
    let (requests, cells): (Vec<_>, Vec<_>) = chunk.into_iter().unzip();
    let answer = ask(source, &requests);
    // Counted as running from before the first cell is filled: the woken
    // sections are counted before this delivery stops counting.
    io.quiet.enter();
    deliver(answer, &cells, stats);
    io.answered();
}

/// Ask the source now and fill the cells ([`IoMode::Unbatched`]).
fn fill<S: DataSource>(source: &Source<S>, chunk: Vec<(S::Request, CellOf<S>)>, stats: &Mutex<IoStats>) {
    let (requests, cells): (Vec<_>, Vec<_>) = chunk.into_iter().unzip();
    deliver(ask(source, &requests), &cells, stats);
}

/// What one call of a source gave: its results or its panic, and how long
/// it took.
struct Answer<S: DataSource> {
    results: std::thread::Result<Vec<Result<S::Response, S::Error>>>,
    requests: usize,
    took: std::time::Duration,
}

/// One call of the source, its panic caught.
fn ask<S: DataSource>(source: &Source<S>, requests: &[S::Request]) -> Answer<S> {
    let start = Instant::now();
    let results = catch_unwind(AssertUnwindSafe(|| source.call(requests)));
    Answer { results, requests: requests.len(), took: start.elapsed() }
}

/// Count the call and fill each request's cell with its result (or the
/// call's panic).
fn deliver<S: DataSource>(answer: Answer<S>, cells: &[CellOf<S>], stats: &Mutex<IoStats>) {
    let Answer { results, requests, took } = answer;
    {
        let mut s = stats.lock().unwrap_or_else(|e| e.into_inner());
        s.calls += 1;
        s.requests += requests as u64;
        s.busy += took;
        s.slowest = s.slowest.max(took);
        if let Ok(results) = &results {
            s.errors += results.iter().filter(|r| r.is_err()).count() as u64;
        }
    }
    match results {
        Ok(results) => {
            for (cell, result) in cells.iter().zip(results) {
                let _ = cell.set(Outcome::Answer(result));
            }
        }
        Err(payload) => {
            let payload = Arc::new(Mutex::new(Some(payload)));
            for cell in cells {
                let _ = cell.set(Outcome::Panicked(payload.clone()));
            }
        }
    }
}
