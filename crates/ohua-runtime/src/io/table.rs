//! One source's requests within a run: the per-call cache, and the queue of
//! requests not sent yet, in groups of consecutive reads and writes.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::batch::{Call, CallOf};
use super::pending::{Cell, How};
use super::source::{DataSource, Source};
use super::writable::Writable;
use crate::stats::IoStats;

/// The answer cell of one of `S`'s reads.
pub(super) type ReadCell<S> = Arc<Cell<<S as DataSource>::Response, <S as DataSource>::Error>>;
/// The answer cell of one of `S`'s writes.
pub(super) type WriteCell<S> = Arc<Cell<<S as Writable>::Written, <S as DataSource>::Error>>;

/// What a dispatch sends for one source: calls that may all be out at once,
/// or calls to make one after another (a source whose requests keep
/// program order) with the flag saying such a job is out.
pub(super) enum Batch {
    /// Independent calls (each on a thread of its own).
    Concurrent(Vec<Box<dyn Call>>),
    /// Calls in program order, on one thread; clear the flag when done.
    InOrder(Vec<Box<dyn Call>>, Arc<AtomicBool>),
}

/// One source's table, type-erased.
pub(super) trait Table: Send {
    fn as_any(&mut self) -> &mut dyn Any;
    /// The calls answering the requests queued since the last batch (none
    /// while an in-order job of this source is out).
    fn take_batch(&mut self) -> Option<Batch>;
    fn stats(&self) -> IoStats;
}

/// Consecutive writes of one source, type-erased (only a [`Writable`]
/// source has them).
trait Writes: Send {
    fn as_any(&mut self) -> &mut dyn Any;
    fn into_calls(self: Box<Self>, size: usize, stats: &Arc<Mutex<IoStats>>) -> Vec<Box<dyn Call>>;
}

struct WritesOf<S: Writable> {
    source: Source<S>,
    writes: Vec<(S::Write, WriteCell<S>)>,
}

impl<S: Writable> Writes for WritesOf<S> {
    fn as_any(&mut self) -> &mut dyn Any {
        self
    }
    fn into_calls(self: Box<Self>, size: usize, stats: &Arc<Mutex<IoStats>>) -> Vec<Box<dyn Call>> {
        let source = self.source;
        chunks(self.writes, size, |chunk| Box::new(CallOf::new(&source, chunk, |s, w| s.call_write(w), stats)))
    }
}

/// A run of consecutive requests of one kind, in submission order.
enum Group<S: DataSource> {
    Reads(Vec<(S::Request, ReadCell<S>)>),
    Writes(Box<dyn Writes>),
}

pub(super) struct TableOf<S: DataSource> {
    pub(super) source: Source<S>,
    /// Every read of this run since its last write, answered or not (the
    /// per-call cache), with the round it joined.
    cells: HashMap<S::Request, (ReadCell<S>, u64)>,
    /// Requests not sent yet. Their last group is call round `round`
    /// (a round is one call, or one call per `max_batch_size` chunk).
    queue: Vec<Group<S>>,
    round: u64,
    /// The algorithm writes to this source, so its requests arrive in
    /// program order and are sent in that order by one job at a time.
    in_order: bool,
    /// That job is out.
    busy: Arc<AtomicBool>,
    /// When the first and the last request of `queue` arrived.
    queued: Option<(Instant, Instant)>,
    pub(super) stats: Arc<Mutex<IoStats>>,
}

impl<S: DataSource> TableOf<S> {
    pub(super) fn new(source: &Source<S>) -> Self {
        let stats = IoStats { source: source.get().name().to_string(), ..IoStats::default() };
        TableOf {
            source: source.clone(),
            cells: HashMap::new(),
            queue: Vec::new(),
            round: 1,
            in_order: false,
            busy: Arc::new(AtomicBool::new(false)),
            queued: None,
            stats: Arc::new(Mutex::new(stats)),
        }
    }

    /// The cell answering `request`, how it is answered and in which round:
    /// an equal read's since the last write, or a new cell ([`How::Sent`])
    /// that `keep` says whether to queue (else the caller sends it at once,
    /// in a round of its own).
    pub(super) fn read(&mut self, request: S::Request, in_order: bool, keep: bool) -> (ReadCell<S>, How, u64) {
        self.in_order |= in_order;
        let mut stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        stats.fetches += 1;
        if let Some((cell, round)) = self.cells.get(&request) {
            let how = if *round == self.round {
                stats.deduplicated += 1;
                How::Deduplicated
            } else {
                stats.cached += 1;
                How::Cached
            };
            return (cell.clone(), how, *round);
        }
        drop(stats);
        let cell = Arc::new(Cell::new());
        if !keep {
            self.round += 1;
            return (cell, How::Sent, self.round - 1);
        }
        self.note_queued();
        match self.queue.last_mut() {
            Some(Group::Reads(reads)) => reads.push((request.clone(), cell.clone())),
            last => {
                // After writes, a read goes out in a later call.
                if last.is_some() {
                    self.round += 1;
                }
                self.queue.push(Group::Reads(vec![(request.clone(), cell.clone())]));
            }
        }
        self.cells.insert(request, (cell.clone(), self.round));
        (cell, How::Sent, self.round)
    }

    /// A new cell for `write` and its round, queued if `keep`. The cache
    /// forgets every answer: a later read must see the write.
    pub(super) fn write(&mut self, write: S::Write, keep: bool) -> (WriteCell<S>, u64)
    where
        S: Writable,
    {
        self.in_order = true;
        self.stats.lock().unwrap_or_else(|e| e.into_inner()).writes += 1;
        self.cells.clear();
        let cell = Arc::new(Cell::new());
        if !keep {
            self.round += 1;
            return (cell, self.round - 1);
        }
        self.note_queued();
        let item = (write, cell.clone());
        let appended = match self.queue.last_mut() {
            Some(Group::Writes(w)) => {
                w.as_any().downcast_mut::<WritesOf<S>>().expect("one source type per table").writes.push(item);
                None
            }
            _ => Some(item),
        };
        if let Some(item) = appended {
            // After reads, the writes go out in a later call.
            if !self.queue.is_empty() {
                self.round += 1;
            }
            let writes = WritesOf { source: self.source.clone(), writes: vec![item] };
            self.queue.push(Group::Writes(Box::new(writes)));
        }
        (cell, self.round)
    }

    /// A request joined the queue now (for [`crate::report::CallTiming`]).
    fn note_queued(&mut self) {
        let now = Instant::now();
        self.queued = Some(self.queued.map_or((now, now), |(first, _)| (first, now)));
    }
}

impl<S: DataSource> Table for TableOf<S> {
    fn as_any(&mut self) -> &mut dyn Any {
        self
    }

    fn take_batch(&mut self) -> Option<Batch> {
        if self.queue.is_empty() || self.busy.load(Ordering::Acquire) {
            return None;
        }
        self.round += 1;
        let size = self.source.get().max_batch_size().unwrap_or(usize::MAX).max(1);
        let mut calls: Vec<Box<dyn Call>> = Vec::new();
        for group in std::mem::take(&mut self.queue) {
            match group {
                Group::Reads(reads) => {
                    let source = &self.source;
                    let stats = &self.stats;
                    calls.extend(chunks(reads, size, |chunk| {
                        Box::new(CallOf::new(source, chunk, |s, r| s.call(r), stats)) as Box<dyn Call>
                    }))
                }
                Group::Writes(writes) => calls.extend(writes.into_calls(size, &self.stats)),
            }
        }
        if let Some((first, last)) = self.queued.take() {
            calls.iter_mut().for_each(|c| c.queued(first, last));
        }
        if self.in_order {
            self.busy.store(true, Ordering::Release);
            Some(Batch::InOrder(calls, self.busy.clone()))
        } else {
            Some(Batch::Concurrent(calls))
        }
    }

    fn stats(&self) -> IoStats {
        self.stats.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// `items` in chunks of at most `size`, each made into a call by `call`.
fn chunks<T>(items: Vec<T>, size: usize, mut call: impl FnMut(Vec<T>) -> Box<dyn Call>) -> Vec<Box<dyn Call>> {
    let mut rest = items.into_iter().peekable();
    let mut calls = Vec::new();
    while rest.peek().is_some() {
        calls.push(call(rest.by_ref().take(size).collect()));
    }
    calls
}
