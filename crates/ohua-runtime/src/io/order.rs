//! Program order for a source the algorithm writes to.

use std::cell::Cell;

use super::pending::Pending;
use super::run::IoRun;
use super::source::{DataSource, Query, Source};
use super::writable::Writable;
use super::CURRENT;

/// The state object through which an algorithm that writes to a source
/// makes every fetch and write on it. The compiler declares one per
/// written source (`let mut __ohua_order_db = Order::new();`) and turns
/// `db.fetch(q)` into `__ohua_order_db.fetch(&db, q)`: as calls on one
/// state object, they happen in program order, so the run sees the
/// source's requests in that order and keeps it (`Writable`). Neither
/// call waits for an answer, so reads that follow each other still share
/// a batch.
///
/// # Example
///
/// ```
/// use ohua_runtime::io::{DataSource, Order, Source, Writable};
/// struct Log(std::sync::Mutex<Vec<String>>);
/// impl DataSource for Log {
///     type Request = usize;
///     type Response = Option<String>;
///     type Error = ();
///     fn fetch(&self, i: &[usize]) -> Vec<Result<Option<String>, ()>> {
///         let log = self.0.lock().unwrap();
///         i.iter().map(|&i| Ok(log.get(i).cloned())).collect()
///     }
/// }
/// impl Writable for Log {
///     type Write = String;
///     type Written = usize;
///     fn write(&self, lines: &[String]) -> Vec<Result<usize, ()>> {
///         let mut log = self.0.lock().unwrap();
///         lines.iter().map(|l| { log.push(l.clone()); Ok(log.len() - 1) }).collect()
///     }
/// }
/// let log = Source::new(Log(Default::default()));
/// let mut order = Order::new(); // outside a run: each call at once
/// assert_eq!(order.write(&log, "hello".to_string()).poll(), Some(Ok(0)));
/// assert_eq!(order.fetch(&log, 0).poll(), Some(Ok(Some("hello".to_string()))));
/// ```
#[derive(Debug, Default)]
pub struct Order {
    _private: (),
}

impl Order {
    /// The order of one algorithm call.
    pub fn new() -> Self {
        Order::default()
    }

    /// `source.fetch(query)`, after everything submitted to `source` through
    /// this order.
    pub fn fetch<S: DataSource, Q: Query<S>>(
        &mut self,
        source: &Source<S>,
        query: Q,
    ) -> Pending<Result<Q::Output, S::Error>> {
        match current() {
            Some(io) => io.submit(source, query.request(), Q::output, true),
            None => Pending::ready(source.fetch(query)),
        }
    }

    /// `source.write(write)`, after everything submitted to `source` through
    /// this order.
    pub fn write<S: Writable>(&mut self, source: &Source<S>, write: S::Write) -> Pending<Result<S::Written, S::Error>> {
        match current() {
            Some(io) => io.submit_write(source, write),
            None => Pending::ready(source.write(write)),
        }
    }
}

/// The I/O state of the run whose section this thread drives.
pub(super) fn current<'a>() -> Option<&'a IoRun> {
    let io = CURRENT.with(Cell::get);
    // SAFETY: installed by `Current` for as long as this thread drives a
    // section of the run, which outlives its sections.
    (!io.is_null()).then(|| unsafe { &*io })
}
