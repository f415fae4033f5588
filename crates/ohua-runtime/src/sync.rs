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

/// Wakes one section's thread. Cheap when the thread is not parked
/// (one atomic swap).
#[derive(Clone)]
pub struct Waker(WakeTarget);

#[derive(Clone)]
enum WakeTarget {
    Parker(Unparker),
    /// Test hook: observe exactly when wake-ups happen.
    #[cfg(test)]
    Hook(Arc<dyn Fn() + Send + Sync>),
}

impl Waker {
    /// Wrap a parker's unparker.
    pub fn new(unparker: Unparker) -> Self {
        Waker(WakeTarget::Parker(unparker))
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
            WakeTarget::Parker(u) => u.unpark(),
            #[cfg(test)]
            WakeTarget::Hook(f) => f(),
        }
    }
}
