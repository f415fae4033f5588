//! Where an operator that is about to block tells the section driving it
//! (`exec/section.rs`): a thread-local hook the driver sets while it steps
//! its operators. Defined here, below the executor (`LAYERS.md`), so the
//! operators call down into it, never up into `exec`.

use std::cell::Cell;

use crate::sync::{AtomicBool, AtomicU64, Ordering, Waker};

/// What [`BLOCKING_HOOK`] points at: the section's waker, its run's
/// streaming and blocked flags, and the section's count of steps that made
/// progress.
type Hook = (*const Waker, *const AtomicBool, *const AtomicBool, *const AtomicU64);

thread_local! {
    /// The waker of the section this thread is stepping an operator of, and
    /// its run's streaming flag.
    static BLOCKING_HOOK: Cell<Hook> =
        const { Cell::new((std::ptr::null(), std::ptr::null(), std::ptr::null(), std::ptr::null())) };
}

/// Sets [`BLOCKING_HOOK`] while a thread drives a section (restoring the
/// outer one of a nested run).
pub(crate) struct BlockingHook(Hook);

impl BlockingHook {
    pub(crate) fn install(waker: &Waker, streaming: &AtomicBool, blocked: &AtomicBool, progress: &AtomicU64) -> Self {
        BlockingHook(BLOCKING_HOOK.with(|h| h.replace((waker, streaming, blocked, progress))))
    }
}

/// The steps of the section driving this thread that made progress so far
/// (a count that only grows); `None` outside a section (a sequential run).
pub(crate) fn section_progress() -> Option<u64> {
    BLOCKING_HOOK.with(|h| {
        let (_, _, _, progress) = h.get();
        // SAFETY: as in `before_blocking`.
        unsafe { progress.as_ref() }.map(|p| p.load(Ordering::Relaxed))
    })
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
        let (waker, streaming, _, _) = h.get();
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

/// Called by a loop entry around a `next()` of a source seen to wait
/// (`waiting(true)` before, `waiting(false)` after): a wake-up meanwhile,
/// for another operator of the section, has the monitor rescue the section
/// at once instead of at its next tick (`SleepFlag::blocking`).
pub(crate) fn waiting(yes: bool) {
    BLOCKING_HOOK.with(|h| {
        let (waker, _, _, _) = h.get();
        // SAFETY: as in `before_blocking`.
        if let Some(waker) = unsafe { waker.as_ref() } {
            if yes {
                waker.blocking();
            } else {
                waker.unblocked();
            }
        }
    });
}

/// Called by a loop entry whose source's `next()` did block (took long with
/// nothing known to be ready): the run's fetches then go out at least once
/// a monitor tick (`io/README.md`, "Streaming runs").
pub(crate) fn source_blocked() {
    BLOCKING_HOOK.with(|h| {
        let (_, _, blocked, _) = h.get();
        // SAFETY: as in `before_blocking`.
        if let Some(blocked) = unsafe { blocked.as_ref() } {
            blocked.store(true, Ordering::Relaxed);
        }
    });
}

thread_local! {
    /// Whether an operator stepped on this thread held work it could not
    /// send for want of room, since a loop entry last looked.
    static HELD_FOR_ROOM: Cell<bool> = const { Cell::new(false) };
}

/// Called by an operator that has work ready (an input to fire on, a
/// result to pass on) and a full arc into another section
/// (`Out::full_into_another_section`): that section will give room within
/// microseconds, but only a driver that is not blocked in a loop entry's
/// `next()` sees it (`smap.rs`, `BUSY_GRACE`). Not for an arc inside the
/// section: its room can only come from this thread, and the grace would
/// only delay the source (the one-section web server lost 12-31 % of its
/// requests/s so). Off the hot path: only a step that stopped for room
/// calls it.
#[inline]
pub(crate) fn held_for_room() {
    HELD_FOR_ROOM.with(|h| h.set(true));
}

/// Whether an operator on this thread held work for room since the last
/// call (which clears it); for a loop entry deciding whether to call a
/// `next()` that may block.
pub(crate) fn take_held_for_room() -> bool {
    HELD_FOR_ROOM.with(|h| h.replace(false))
}

thread_local! {
    /// Whether the section driving this thread is in its last look before
    /// a park (`exec/section.rs`, after the sleep announcement).
    static LAST_LOOK: Cell<bool> = const { Cell::new(false) };
}

/// Marks the pass a driver makes after announcing its sleep: every
/// operator must then do what it can, a loop entry must call its source's
/// `next()` (`smap.rs`, `yield_to_section`), since a section that parks
/// after that pass has no waker for work that only a `next()` would find
/// (the end of a range, an item the source already holds). Restores the
/// outer value on drop: a driver starts with `set(false)`, so a nested
/// run's driver inside an operator stepped in a last look has its own.
pub(crate) struct LastLook(bool);

impl LastLook {
    pub(crate) fn set(yes: bool) -> Self {
        LastLook(LAST_LOOK.with(|l| l.replace(yes)))
    }
}

impl Drop for LastLook {
    fn drop(&mut self) {
        LAST_LOOK.with(|l| l.set(self.0));
    }
}

/// Whether the driver of this thread is in its last look before a park
/// (see [`LastLook`]).
pub(crate) fn last_look() -> bool {
    LAST_LOOK.with(Cell::get)
}

thread_local! {
    /// Whether the section driving this thread times the current step.
    static STEP_TIMED: Cell<bool> = const { Cell::new(false) };
    /// Nanoseconds the current timed step spent waiting for input.
    static WAITED_NS: Cell<u64> = const { Cell::new(0) };
}

/// The section driving this thread starts a step it times
/// (`exec/section.rs`): loop entries measure how long their `next()`
/// waits ([`WaitProbe`]) until [`end_timed_step`]. Returns the flag's
/// value before, for `end_timed_step` to restore (a nested run's section
/// steps inside an outer step). Plain calls rather than a guard: no drop
/// glue in the section's per-operator loop.
#[inline]
pub(crate) fn begin_timed_step() -> bool {
    WAITED_NS.with(|w| w.set(0));
    STEP_TIMED.with(|t| t.replace(true))
}

/// The timed step is over: nanoseconds of it that were waiting, not work
/// ([`WaitProbe`]). `outer` is what [`begin_timed_step`] returned.
#[inline]
pub(crate) fn end_timed_step(outer: bool) -> u64 {
    STEP_TIMED.with(|t| t.set(outer));
    WAITED_NS.with(|w| w.replace(0))
}

/// Measures how much of a timed step a loop entry spent waiting inside its
/// source's `next()` (an idle channel): the step's wall time less the
/// thread's CPU time.
///
/// Why: the section times whole steps, and a source that waits for its
/// next item counted that wait as the loop's work. An idle service's loop
/// entry then looked like the busiest operator of its run, and `auto`'s
/// measured plan replicated nothing (issue 23). Only loop entries use it:
/// an operator that blocks inside its own call does occupy its section's
/// thread, and a replica would overlap those waits.
pub(crate) struct WaitProbe {
    wall: std::time::Instant,
    cpu: u64,
}

impl WaitProbe {
    /// A probe if the section times this step and the thread's CPU time can
    /// be read; `None` otherwise. Started just before the first `next()`
    /// that may wait, so a step that makes none pays nothing; two clock
    /// reads, one a system call, on timed steps only.
    pub(crate) fn start() -> Option<Self> {
        if !STEP_TIMED.with(Cell::get) {
            return None;
        }
        let cpu = crate::util::thread_cpu_ns()?;
        Some(WaitProbe { wall: std::time::Instant::now(), cpu })
    }

    /// Count the step's wall time beyond its CPU time as waiting.
    pub(crate) fn finish(self) {
        let wall = self.wall.elapsed().as_nanos() as u64;
        let cpu = crate::util::thread_cpu_ns().map_or(wall, |now| now.saturating_sub(self.cpu));
        let waited = wall.saturating_sub(cpu);
        WAITED_NS.with(|w| w.set(w.get().saturating_add(waited)));
    }
}
