//! I/O from plain code (Ÿauhau, ch. 4 of the dissertation): data sources,
//! batching, deduplication, the per-call cache and concurrent batches.
//!
//! An algorithm fetches through a parameter declared as a source handle
//! (`db: &Source<PostDb>`), with `let x = db.fetch(query);`. The compiler
//! turns that statement into two operators: `submit`, which hands the
//! request to the run's I/O state (`run.rs`) and passes on a [`Pending`] answer,
//! and `await`, which passes on the answers in order as they arrive. Both
//! are non-blocking, so every fetch the dataflow can reach without an
//! answer joins the run's next batch, however the code is written (inside
//! loops, branches, called algorithms). The batch is sent when the run is
//! *quiet*: no section can make progress until a source answers
//! ([`Quiet`], `README.md`). So the number of batches sent to a source is
//! the length of the longest chain of fetches that depend on each other,
//! the optimum; batches to different sources run concurrently on threads of
//! their own, and each answer wakes the run as soon as it arrives.
//!
//! A source that also takes writes implements [`Writable`]; in an algorithm
//! that writes to it (`let r = db.write(w);`), its requests go through an
//! [`Order`] state and keep program order.
//!
//! Run sequentially, `db.fetch(q)` is [`Source::fetch`]: one call per fetch.
//!
#![doc = include_str!("README.md")]

#[cfg(feature = "async")]
mod async_source;
mod awaiting;
mod batch;
mod order;
mod pending;
pub(crate) mod run;
mod sites;
mod source;
mod table;
mod writable;

use std::cell::Cell;

pub use crate::sync::Quiet;
#[cfg(feature = "async")]
pub use async_source::{Async, AsyncDataSource};
pub use order::Order;
pub(crate) use pending::Origin;
pub use pending::Pending;
pub use source::{DataSource, Query, Source, SourceStats};
pub use writable::Writable;

use run::IoRun;

thread_local! {
    /// The I/O state of the run whose section this thread drives.
    static CURRENT: Cell<*const IoRun> = const { Cell::new(std::ptr::null()) };
    /// The index of the section this thread drives ([`run::ANY_SECTION`]
    /// outside a section): whom an answer this thread awaits must wake.
    static SECTION: Cell<usize> = const { Cell::new(run::ANY_SECTION) };
}

/// Makes a run's I/O state the current one while a thread drives one of its
/// sections (restoring the outer one of a nested run).
pub(crate) struct Current(*const IoRun, usize);

impl Current {
    /// Install `io` (or none) for the calling thread, which drives section
    /// `section` of its run.
    pub(crate) fn install(io: Option<&IoRun>, section: usize) -> Self {
        let ptr = io.map_or(std::ptr::null(), |io| io as *const IoRun);
        Current(CURRENT.with(|c| c.replace(ptr)), SECTION.with(|c| c.replace(section)))
    }
}

impl Drop for Current {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0));
        SECTION.with(|c| c.set(self.1));
    }
}

/// The section the calling thread drives, if any ([`Current::install`]).
pub(crate) fn current_section() -> usize {
    SECTION.with(Cell::get)
}

/// What the `submit` operator of `let x = src.fetch(query);` runs: the
/// request joins the current run's next batch. Outside a run that fetches
/// (never the case for generated code) it is fetched at once.
///
/// # Example
///
/// ```
/// use ohua_runtime::io::{submit, DataSource, Source};
/// struct Double;
/// impl DataSource for Double {
///     type Request = u32;
///     type Response = u32;
///     type Error = ();
///     fn fetch(&self, rs: &[u32]) -> Vec<Result<u32, ()>> { rs.iter().map(|r| Ok(r * 2)).collect() }
/// }
/// let src = Source::new(Double);
/// let mut answer = submit(&src, 21u32);
/// assert_eq!(answer.poll(), Some(Ok(42)));
/// ```
pub fn submit<S: DataSource, Q: Query<S>>(source: &Source<S>, query: Q) -> Pending<Result<Q::Output, S::Error>> {
    match order::current() {
        Some(io) => io.submit(source, query.request(), Q::output, false),
        None => Pending::ready(source.fetch(query)),
    }
}

/// The fetches of the `await` operator `node` came from `origins` (for
/// the explain report of the run this thread drives).
pub(crate) fn record_sites(node: u32, origins: &[Origin]) {
    if let Some(io) = order::current() {
        io.sites().record(node, origins);
    }
}
