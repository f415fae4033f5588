//! Quiescence: the moment no thread of a run can make progress without an
//! answer from a data source. That is when the run's pending requests form
//! a complete batch (see `README.md` in this folder for the protocol).

use crate::sync::{AtomicIsize, Ordering};

/// Counts a run's *running units*: section drivers that are not parked,
/// threads stuck in a step the monitor found blocked are not counted, and
/// deliveries of source answers under way are. When the count drops to
/// zero, nothing can happen in the run until a source answers, so the
/// requests collected so far are sent (`on_zero`).
pub struct Quiet {
    running: AtomicIsize,
    on_zero: Box<dyn Fn() + Send + Sync>,
}

impl Quiet {
    /// A counter starting at `initial` units that calls `on_zero` whenever
    /// a [`Quiet::leave`] brings it to zero.
    pub fn new(initial: usize, on_zero: impl Fn() + Send + Sync + 'static) -> Self {
        Quiet { running: AtomicIsize::new(initial as isize), on_zero: Box::new(on_zero) }
    }

    /// One more unit runs.
    #[inline]
    pub fn enter(&self) {
        self.running.fetch_add(1, Ordering::AcqRel);
    }

    /// One unit stops running; the last one out calls `on_zero`.
    #[inline]
    pub fn leave(&self) {
        let before = self.running.fetch_sub(1, Ordering::AcqRel);
        debug_assert!(before > 0, "ohua: quiescence count went below zero");
        if before == 1 {
            (self.on_zero)();
        }
    }

    /// The current count (for tests and diagnostics).
    pub fn running(&self) -> isize {
        self.running.load(Ordering::Acquire)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Quiet;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn the_last_unit_out_calls_on_zero_and_only_it() {
        let zeros = Arc::new(AtomicUsize::new(0));
        let z = zeros.clone();
        let q = Quiet::new(2, move || {
            z.fetch_add(1, Ordering::Relaxed);
        });
        q.leave();
        assert_eq!(zeros.load(Ordering::Relaxed), 0);
        q.enter();
        q.leave();
        assert_eq!(zeros.load(Ordering::Relaxed), 0);
        q.leave();
        assert_eq!(zeros.load(Ordering::Relaxed), 1);
        assert_eq!(q.running(), 0);
    }
}
