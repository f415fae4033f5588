//! The control side of one service run: requested markers, and the stop flag.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::marker::{Action, Marker};

/// What a service run's loop entries and operators share with the service
/// handle: the markers requested so far (by id, numbered in request order)
/// and whether the service should stop. Probes ([`Action::Probe`]) are
/// forgotten once they completed and their report was taken
/// ([`Control::forget_probe`]), so a service the live view probes for
/// hours keeps only the markers its users requested.
///
/// Cheap to poll: a loop entry compares [`Control::requested`] with the
/// number of markers it has inserted once per step.
///
/// # Example
///
/// ```
/// use ohua_runtime::update::{Action, Control};
/// let c = Control::new();
/// assert_eq!(c.requested(), 0);
/// let m = c.request(Action::NoOp);
/// assert_eq!((c.requested(), m.id()), (1, 0));
/// ```
#[derive(Default)]
pub struct Control {
    log: Mutex<BTreeMap<u32, Arc<Marker>>>,
    requested: AtomicUsize,
    stop: AtomicBool,
    finished: AtomicBool,
    in_next: AtomicBool,
}

impl Control {
    /// A control with no marker requested.
    pub fn new() -> Arc<Self> {
        Arc::new(Control::default())
    }

    /// Request a marker carrying `action`; returns it, to wait for it.
    ///
    /// If the run has already finished, the marker fails at once.
    pub fn request(&self, action: Action) -> Arc<Marker> {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        // Ids are handed out under the lock, so they follow request order.
        let id = self.requested.load(Ordering::Relaxed);
        let marker = Arc::new(Marker::new(id as u32, action));
        log.insert(id as u32, marker.clone());
        self.requested.store(id + 1, Ordering::Release);
        drop(log);
        if self.finished.load(Ordering::Acquire) {
            marker.fail_unreached();
        }
        marker
    }

    /// How many markers have been requested (the next one's id).
    #[inline]
    pub fn requested(&self) -> usize {
        self.requested.load(Ordering::Acquire)
    }

    /// Marker `id`.
    ///
    /// # Panics
    ///
    /// If no such marker was requested (a runtime bug).
    pub fn marker(&self, id: u32) -> Arc<Marker> {
        static SPENT: OnceLock<Arc<Marker>> = OnceLock::new();
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        match log.get(&id) {
            Some(m) => m.clone(),
            // A probe forgotten after it completed: only a later loop of the
            // same service can still ask for it.
            None if (id as usize) < self.requested() => SPENT.get_or_init(|| Arc::new(Marker::spent())).clone(),
            None => panic!("ohua internal error: unknown marker {id}"),
        }
    }

    /// Forget probe `id` if it has completed or failed (its report taken):
    /// the live view's probes do not pile up in a service that runs for
    /// hours. Other markers are kept for [`Control::reports`].
    pub fn forget_probe(&self, id: u32) {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        if log.get(&id).is_some_and(|m| m.is_spent_probe()) {
            log.remove(&id);
        }
    }

    /// Ask the service's loops to stop taking items: each top-level loop
    /// ends after the item it is at (the items it took are processed).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    /// Whether [`Control::stop`] was called.
    #[inline]
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// A loop entry of the service is about to wait in its source's
    /// `next()` (`true`) or got its answer (`false`).
    #[inline]
    pub fn set_waiting_for_item(&self, waiting: bool) {
        self.in_next.store(waiting, Ordering::Relaxed);
    }

    /// Whether a loop entry of the service waits in its source's `next()`
    /// (a receive the runtime cannot interrupt: a stop takes effect with the
    /// item it returns, or when the source ends).
    pub fn waiting_for_item(&self) -> bool {
        self.in_next.load(Ordering::Relaxed)
    }

    /// The run has ended: markers that no loop inserted, or that had not
    /// reached every operator, can no longer complete and fail.
    pub fn finish(&self) {
        self.finished.store(true, Ordering::Release);
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        for m in log.values() {
            m.fail_unreached();
        }
    }

    /// The reports of the markers that have completed, in request order
    /// (probes left out: they are the live view's measurements).
    pub fn reports(&self) -> Vec<super::MarkReport> {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.values().filter(|m| !matches!(m.action(), Action::Probe)).filter_map(|m| m.completed()).collect()
    }

    /// Whether [`Control::finish`] was called.
    pub fn finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn completed_probes_are_forgotten_and_left_out_of_the_reports_and_users_markers_stay() {
        let control = Control::new();
        let update = control.request(Action::NoOp);
        for _ in 0..1000 {
            let probe = control.request(Action::Probe);
            let id = probe.id();
            control.forget_probe(id); // still pending: kept
            assert!(Arc::ptr_eq(&control.marker(id), &probe));
            probe.inserted(1, 0, 1);
            probe.passed(2, 1, 0, super::super::marker::Outcome::Nothing);
            assert!(probe.wait().is_ok());
            control.forget_probe(id);
            // A second loop may still insert it: it gets a marker that records nothing.
            let spent = control.marker(id);
            assert!(!Arc::ptr_eq(&spent, &probe) && matches!(spent.action(), Action::Probe));
            spent.inserted(3, 0, 1);
            assert!(spent.completed().is_some_and(|r| r.cut.is_empty()), "it recorded the insertion");
        }
        control.forget_probe(update.id()); // not a probe: kept
        assert_eq!(control.log.lock().unwrap().len(), 1, "only the user's marker is kept");
        update.inserted(1, 0, 1);
        update.passed(2, 1, 0, super::super::marker::Outcome::Nothing);
        let reports = control.reports();
        assert_eq!(reports.iter().map(|r| r.id).collect::<Vec<_>>(), vec![0]);
        assert_eq!(control.requested(), 1001);
    }

    #[test]
    #[should_panic(expected = "unknown marker")]
    fn a_marker_never_requested_is_an_internal_error() {
        Control::new().marker(0);
    }
}
