//! Bounded waits on a service: a checkpoint, a restore and the service's
//! end can each wait for an item that never comes (a source that waits in
//! `next()`), so each has a variant that gives up after a timeout.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use ohua_runtime::update::{Action, Checkpoint, Control, MarkError, StateKinds};

use crate::service::{start, PendingCheckpoint, Service};

/// Whether a service's call has returned (or panicked), to wait for with a
/// timeout (`JoinHandle` has no timed join).
#[derive(Default)]
pub(crate) struct Finished {
    done: Mutex<bool>,
    signal: Condvar,
}

/// Sets [`Finished`] when dropped, so also when the call unwinds.
pub(crate) struct OnDrop(Arc<Finished>);

impl Finished {
    pub(crate) fn new() -> Arc<Self> {
        Arc::default()
    }

    pub(crate) fn on_drop(self: &Arc<Self>) -> OnDrop {
        OnDrop(self.clone())
    }

    /// Whether it was set within `timeout`.
    pub(crate) fn wait(&self, timeout: Duration) -> bool {
        let done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        let (done, _) = self.signal.wait_timeout_while(done, timeout, |d| !*d).unwrap_or_else(|e| e.into_inner());
        *done
    }
}

impl Drop for OnDrop {
    fn drop(&mut self) {
        *self.0.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.0.signal.notify_all();
    }
}

/// [`crate::restore`], waiting at most `timeout` (`None`: as long as it
/// takes) for the states to be in place.
pub(crate) fn restore_within<R: Send + 'static>(
    checkpoint: Checkpoint,
    kinds: &StateKinds,
    timeout: Option<Duration>,
    run: impl FnOnce() -> R + Send + 'static,
) -> Result<Service<R>, MarkError> {
    let control = Control::new();
    // Requested before the run starts: the loop inserts it before its first item.
    let restoring = control.request(Action::Restore(Box::new((checkpoint, kinds.clone()))));
    let service = start(control, run);
    let outcome = match timeout {
        None => restoring.wait(),
        Some(t) => restoring.wait_timeout(t).unwrap_or(Err(MarkError::TimedOut { after: t })),
    };
    match outcome {
        Ok(_) => Ok(service),
        Err(e) => {
            service.stop();
            Err(e)
        }
    }
}

/// As [`crate::restore`], giving up after `timeout` if the states are not
/// in place by then (the service's code before its loop does not return,
/// or its loop never starts).
///
/// # Errors
///
/// As [`crate::restore`], and [`MarkError::TimedOut`] after `timeout`. The
/// service is asked to stop then and is left to finish on its own.
///
/// # Panics
///
/// If the thread cannot be spawned.
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use ohua::update::{Checkpoint, MarkError, StateKinds};
/// let (gate, wait) = std::sync::mpsc::channel::<()>();
/// // A "service" that never reaches a loop: nothing inserts the restore.
/// let r = ohua::restore_timeout(Checkpoint::default(), &StateKinds::new(), Duration::from_millis(50), move || {
///     let _ = wait.recv();
/// });
/// assert!(matches!(r, Err(MarkError::TimedOut { .. })));
/// drop(gate);
/// ```
pub fn restore_timeout<R: Send + 'static>(
    checkpoint: Checkpoint,
    kinds: &StateKinds,
    timeout: Duration,
    run: impl FnOnce() -> R + Send + 'static,
) -> Result<Service<R>, MarkError> {
    restore_within(checkpoint, kinds, Some(timeout), run)
}

impl PendingCheckpoint {
    /// As [`PendingCheckpoint::wait`], giving up after `timeout` (`None`:
    /// still on its way; the checkpoint is taken at the next cut anyway).
    ///
    /// # Errors
    ///
    /// As [`Service::checkpoint`].
    pub fn wait_timeout(&self, timeout: Duration) -> Option<Result<Checkpoint, MarkError>> {
        let report = self.0.wait_timeout(timeout)?;
        Some(report.map(|r| Checkpoint { cut: r.cut, states: r.saved }))
    }
}

impl<R> Service<R> {
    /// As [`Service::checkpoint`], giving up after `timeout`: a loop whose
    /// source waits for its next item makes the cut only when the item
    /// arrives.
    ///
    /// # Errors
    ///
    /// As [`Service::checkpoint`], and [`MarkError::TimedOut`] after
    /// `timeout` (the checkpoint marker stays requested and is taken, unread,
    /// at the next cut).
    ///
    /// # Example
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[derive(serde::Serialize, serde::Deserialize)]
    /// # struct Sum(u64);
    /// # #[ohua::updatable]
    /// # impl Sum {
    /// #     fn new() -> Self { Sum(0) }
    /// #     fn add(&mut self, x: u64) { self.0 += x }
    /// #     fn get(&self) -> u64 { self.0 }
    /// # }
    /// #[ohua::algorithm]
    /// fn total(xs: std::sync::mpsc::Receiver<u64>) -> u64 {
    ///     let mut sum = Sum::new();
    ///     for x in xs {
    ///         sum.add(x);
    ///     }
    ///     sum.get()
    /// }
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let service = ohua::service(move || total(rx));
    /// let kinds = ohua::update::StateKinds::new().with::<Sum>();
    /// // Nothing arrives: once the loop waits for an item, no cut comes.
    /// match service.checkpoint_timeout(&kinds, Duration::from_millis(50)) {
    ///     Ok(c) => assert_eq!(c.items_before(), 0), // made before the loop waited
    ///     Err(ohua::update::MarkError::TimedOut { .. }) => {}
    ///     Err(e) => panic!("{e}"),
    /// }
    /// drop(tx);
    /// assert_eq!(service.join(), 0);
    /// ```
    pub fn checkpoint_timeout(&self, kinds: &StateKinds, timeout: Duration) -> Result<Checkpoint, MarkError> {
        self.request_checkpoint(kinds).wait_timeout(timeout).unwrap_or(Err(MarkError::TimedOut { after: timeout }))
    }

    /// As [`Service::join`], giving up after `timeout`.
    ///
    /// # Errors
    ///
    /// The service itself, if its call has not returned within `timeout`
    /// (to stop it, join it later, or drop it: a dropped service runs on
    /// detached).
    ///
    /// # Panics
    ///
    /// Re-raises a panic of the service's call with its original payload.
    ///
    /// # Example
    ///
    /// ```
    /// # use std::time::Duration;
    /// let (tx, rx) = std::sync::mpsc::channel::<()>();
    /// let service = ohua::service(move || rx.recv().is_err());
    /// let service = service.join_timeout(Duration::from_millis(20)).err().expect("still running");
    /// drop(tx);
    /// assert_eq!(service.join_timeout(Duration::from_secs(30)).ok(), Some(true));
    /// ```
    pub fn join_timeout(self, timeout: Duration) -> Result<R, Service<R>> {
        if !self.finished.wait(timeout) {
            return Err(self);
        }
        // The call has returned: the thread ends at once.
        Ok(self.join())
    }
}
