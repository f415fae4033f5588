//! Where an operator that is about to block tells the section driving it
//! (`exec/section.rs`): a thread-local hook the driver sets while it steps
//! its operators. Defined here, below the executor (`LAYERS.md`), so the
//! operators call down into it, never up into `exec`.

use std::cell::Cell;

use crate::sync::{AtomicBool, Ordering, Waker};

thread_local! {
    /// The waker of the section this thread is stepping an operator of, and
    /// its run's streaming flag.
    static BLOCKING_HOOK: Cell<(*const Waker, *const AtomicBool, *const AtomicBool)> =
        const { Cell::new((std::ptr::null(), std::ptr::null(), std::ptr::null())) };
}

/// Sets [`BLOCKING_HOOK`] while a thread drives a section (restoring the
/// outer one of a nested run).
pub(crate) struct BlockingHook((*const Waker, *const AtomicBool, *const AtomicBool));

impl BlockingHook {
    pub(crate) fn install(waker: &Waker, streaming: &AtomicBool, blocked: &AtomicBool) -> Self {
        BlockingHook(BLOCKING_HOOK.with(|h| h.replace((waker, streaming, blocked))))
    }
}

impl Drop for BlockingHook {
    fn drop(&mut self) {
        BLOCKING_HOOK.with(|h| h.set(self.0));
    }
}

/// Called by an operator about to call something that may block (an
/// iterator's `next()` with nothing known to be ready): the run then counts
/// as streaming and the monitor looks every monitor tick (`exec/monitor.rs`). With
/// `published`, the operator has just published outputs (its ports'
/// `flush`): if the monitor has meanwhile handed its section to another
/// thread, that thread may be parked, and arcs inside a section have no
/// wakers, so it is woken to take what was published.
pub(crate) fn before_blocking(published: bool) {
    BLOCKING_HOOK.with(|h| {
        let (waker, streaming, _) = h.get();
        if streaming.is_null() {
            return;
        }
        // SAFETY: set by `BlockingHook` for as long as this thread drives
        // (or is stuck in) the section; the run outlives it.
        let streaming = unsafe { &*streaming };
        if !streaming.load(Ordering::Relaxed) {
            streaming.store(true, Ordering::Relaxed);
        }
        if published {
            // SAFETY: as above.
            unsafe { &*waker }.wake();
        }
    });
}

/// Called by a loop entry whose source's `next()` did block (took long with
/// nothing known to be ready): the run's fetches then go out at least once
/// a monitor tick (`io/README.md`, "Streaming runs").
pub(crate) fn source_blocked() {
    BLOCKING_HOOK.with(|h| {
        let (_, _, blocked) = h.get();
        // SAFETY: as in `before_blocking`.
        if let Some(blocked) = unsafe { blocked.as_ref() } {
            blocked.store(true, Ordering::Relaxed);
        }
    });
}
