//! The answer to one fetch, while its batch is on the way.

use std::any::Any;
use std::sync::{Arc, Mutex, OnceLock};

use super::awaiting::Awaiting;

/// What a batch call gave one request: the source's result, or the panic
/// of the call (taken by the first fetch that looks at it).
pub(crate) enum Outcome<R, E> {
    /// The source's result for the request.
    Answer(Result<R, E>),
    /// The source panicked while answering the batch.
    Panicked(Arc<Mutex<Option<Box<dyn Any + Send>>>>),
}

/// One request's answer, filled once by the thread that ran its batch.
pub(crate) type Cell<R, E> = OnceLock<Outcome<R, E>>;

/// A fetch's result that may not be there yet: what the generated code's
/// `submit` returns, and what the `await` operator waits for in order.
pub struct Pending<T> {
    poll: Box<dyn FnMut() -> Option<T> + Send>,
    origin: Option<Origin>,
}

/// Where a fetch's answer comes from, for the explain report
/// ([`crate::report::RunReport::explain_io`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Origin {
    /// The source, by the order the run first fetched from it.
    pub(crate) source: usize,
    /// The source's call round the request joined (or was answered in).
    pub(crate) round: u64,
    /// How it was answered.
    pub(crate) how: How,
}

/// How one fetch was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum How {
    /// Its request was sent.
    Sent,
    /// An equal request of the same round was sent.
    Deduplicated,
    /// An equal request of an earlier round had been sent (the cache).
    Cached,
}

impl<T> Pending<T> {
    /// A result that is already known.
    pub fn ready(value: T) -> Self
    where
        T: Send + 'static,
    {
        let mut value = Some(value);
        Pending { poll: Box::new(move || value.take()), origin: None }
    }

    /// Where the answer comes from, if it comes from a run's batch.
    pub(crate) fn origin(&self) -> Option<Origin> {
        self.origin
    }

    /// The result, if its batch has answered.
    ///
    /// # Panics
    ///
    /// With the source's panic payload if the batch call panicked.
    pub fn poll(&mut self) -> Option<T> {
        (self.poll)()
    }
}

impl<O: Send + 'static, E: Clone + Send + Sync + 'static> Pending<Result<O, E>> {
    /// The answer in `cell` once its batch has answered, converted by
    /// `convert` (a query's typed output).
    /// A poll that finds the cell empty marks the polling section in
    /// `awaiting`, so the delivery wakes it (`awaiting.rs`).
    pub(crate) fn of<R: Clone + Send + Sync + 'static>(
        cell: Arc<Cell<R, E>>,
        convert: fn(R) -> O,
        origin: Origin,
        awaiting: Arc<Awaiting>,
    ) -> Self {
        Pending {
            origin: Some(origin),
            poll: Box::new(move || {
                let outcome = match cell.get() {
                    Some(outcome) => outcome,
                    None => {
                        awaiting.mark(super::current_section());
                        cell.get()?
                    }
                };
                Some(match outcome {
                    Outcome::Answer(result) => result.clone().map(convert),
                    Outcome::Panicked(payload) => reraise(payload),
                })
            }),
        }
    }
}

/// Re-raise a source's panic: the first fetch to see it raises the original
/// payload (re-raised in the algorithm's caller), later ones a message.
fn reraise(payload: &Mutex<Option<Box<dyn Any + Send>>>) -> ! {
    let taken = payload.lock().unwrap_or_else(|e| e.into_inner()).take();
    match taken {
        Some(p) => std::panic::resume_unwind(p),
        None => panic!("ohua: a data source panicked answering this fetch's batch"),
    }
}

impl<T> std::fmt::Debug for Pending<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pending")
    }
}
