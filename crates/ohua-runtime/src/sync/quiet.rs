//! Quiescence: the moment no thread of a run can make progress without an
//! answer from a data source. That is when the run's pending requests form
//! a complete batch (see `README.md` in this folder for the protocol).

use super::{AtomicBool, AtomicIsize, Ordering};

/// Counts a run's *running units*: section drivers that are not parked,
/// threads stuck in a step the monitor found blocked are not counted, and
/// deliveries of source answers under way are. When the count drops to
/// zero, nothing can happen in the run until a source answers, so the
/// requests collected so far are sent (`on_zero`).
pub struct Quiet {
    running: AtomicIsize,
    /// How many of `running` are deliveries of answers (not drivers).
    delivering: AtomicIsize,
    /// Whether a blocked unit stopped counting ([`Quiet::leave_blocked`]).
    lent: AtomicBool,
    on_zero: Box<dyn Fn() + Send + Sync>,
}

impl Quiet {
    /// A counter starting at `initial` units that calls `on_zero` whenever
    /// a [`Quiet::leave`] brings it to zero.
    pub fn new(initial: usize, on_zero: impl Fn() + Send + Sync + 'static) -> Self {
        Quiet {
            running: AtomicIsize::new(initial as isize),
            delivering: AtomicIsize::new(0),
            lent: AtomicBool::new(false),
            on_zero: Box::new(on_zero),
        }
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

    /// A delivery of a source's answers starts: it counts as running, like
    /// [`Quiet::enter`], and is told apart in [`Quiet::running_drivers`].
    #[inline]
    pub fn enter_delivery(&self) {
        self.delivering.fetch_add(1, Ordering::Relaxed);
        self.enter();
    }

    /// A delivery started by [`Quiet::enter_delivery`] stops counting (the
    /// last one out calls `on_zero`).
    #[inline]
    pub fn leave_delivery(&self) {
        self.delivering.fetch_sub(1, Ordering::Relaxed);
        self.leave();
    }

    /// A unit blocked in a step stops counting (the monitor's lend): like
    /// [`Quiet::leave`], and remembered for the rest of the run
    /// ([`Quiet::lent_ever`]).
    pub fn leave_blocked(&self) {
        self.lent.store(true, Ordering::Relaxed);
        self.leave();
    }

    /// Whether a blocked unit ever stopped counting in this run: its step
    /// may return while the run looks quiet.
    pub fn lent_ever(&self) -> bool {
        self.lent.load(Ordering::Relaxed)
    }

    /// The current count (for tests and diagnostics).
    pub fn running(&self) -> isize {
        self.running.load(Ordering::Acquire)
    }

    /// About how many running units are section drivers, not deliveries:
    /// a hint for whether a driver is alone (the two counters are read one
    /// after the other), never used by the sleep protocol itself.
    pub fn running_drivers(&self) -> isize {
        self.running() - self.delivering.load(Ordering::Relaxed)
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

    #[test]
    fn a_delivery_counts_as_running_but_not_as_a_driver() {
        let zeros = Arc::new(AtomicUsize::new(0));
        let z = zeros.clone();
        let q = Quiet::new(1, move || {
            z.fetch_add(1, Ordering::Relaxed);
        });
        q.enter_delivery();
        assert_eq!((q.running(), q.running_drivers()), (2, 1));
        q.leave();
        assert_eq!((q.running(), q.running_drivers()), (1, 0));
        assert_eq!(zeros.load(Ordering::Relaxed), 0, "the delivery still runs");
        q.leave_delivery();
        assert_eq!(zeros.load(Ordering::Relaxed), 1);
    }
}
