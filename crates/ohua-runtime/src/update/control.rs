//! The control side of one service run: requested markers, and the stop flag.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::marker::{Action, Marker};

/// What a service run's loop entries and operators share with the service
/// handle: the markers requested so far (an append-only log whose index is
/// the marker's id) and whether the service should stop.
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
    log: Mutex<Vec<Arc<Marker>>>,
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
        let marker = Arc::new(Marker::new(log.len() as u32, action));
        log.push(marker.clone());
        self.requested.store(log.len(), Ordering::Release);
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
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.get(id as usize).cloned().unwrap_or_else(|| panic!("ohua internal error: unknown marker {id}"))
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
        for m in log.iter() {
            m.fail_unreached();
        }
    }

    /// The reports of the markers that have completed, in request order.
    pub fn reports(&self) -> Vec<super::MarkReport> {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.iter().filter_map(|m| m.completed()).collect()
    }

    /// Whether [`Control::finish`] was called.
    pub fn finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }
}
