//! Every concurrency primitive the runtime uses, in one place.
//!
//! Importing atomics, parkers and threads only through this module keeps the
//! protocols checkable with a model checker (loom/shuttle) by swapping this
//! one file.

pub use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
pub use std::sync::{Arc, Mutex};

pub use crossbeam_utils::sync::{Parker, Unparker};
pub use crossbeam_utils::Backoff;

/// Threads: section threads are scoped (`thread::scope`) so graphs may borrow
/// non-`'static` data.
pub use std::thread;

pub use std::sync::atomic::fence;

/// Whether a section is about to sleep, and how to wake it.
///
/// The protocol (see `exec/README.md`): the section sets `sleeping`, issues a
/// SeqCst fence, makes one more full pass over its operators, and parks only
/// if that pass did nothing. A waker issues a SeqCst fence after its push and
/// unparks only if it sees `sleeping`. By the fences, either the waker sees
/// the flag or the final pass sees the push, so no wake-up is lost, and a
/// section that is awake costs its neighbours one load per flush instead of
/// an atomic read-modify-write on a shared cache line.
pub struct SleepFlag {
    sleeping: AtomicBool,
    unparker: Unparker,
}

impl SleepFlag {
    /// The flag of a section that parks on the parker owning `unparker`.
    pub fn new(unparker: Unparker) -> Arc<Self> {
        Arc::new(SleepFlag { sleeping: AtomicBool::new(false), unparker })
    }

    /// Announce the intent to park; follow with a last pass, then park or
    /// [`SleepFlag::awake`].
    pub fn going_to_sleep(&self) {
        self.sleeping.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// The section is running again.
    pub fn awake(&self) {
        self.sleeping.store(false, Ordering::Relaxed);
    }
}

/// Wakes one section's thread. When the section is not going to sleep this
/// is a fence and a load.
#[derive(Clone)]
pub struct Waker(WakeTarget);

#[derive(Clone)]
enum WakeTarget {
    Section(Arc<SleepFlag>),
    /// Test hook: observe exactly when wake-ups happen.
    #[cfg(test)]
    Hook(Arc<dyn Fn() + Send + Sync>),
}

impl Waker {
    /// A waker for the section owning `flag`.
    pub fn new(flag: Arc<SleepFlag>) -> Self {
        Waker(WakeTarget::Section(flag))
    }

    /// A waker that calls `f` (tests of the wake-up protocol).
    #[cfg(test)]
    pub(crate) fn hook(f: impl Fn() + Send + Sync + 'static) -> Self {
        Waker(WakeTarget::Hook(Arc::new(f)))
    }

    /// Wake the section if it is parked; otherwise leave a token so its next
    /// park returns immediately.
    #[inline]
    pub fn wake(&self) {
        match &self.0 {
            WakeTarget::Section(flag) => {
                // Pairs with the fence in `going_to_sleep`: our push is visible
                // to the section's last pass, or we see it is going to sleep.
                fence(Ordering::SeqCst);
                if flag.sleeping.load(Ordering::Relaxed) {
                    flag.unparker.unpark();
                }
            }
            #[cfg(test)]
            WakeTarget::Hook(f) => f(),
        }
    }
}
