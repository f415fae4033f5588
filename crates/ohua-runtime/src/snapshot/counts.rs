//! The run report's count of snapshots taken and copies made.
//!
//! Each run keeps a [`Counts`]; the thread that drives one of its
//! sections installs it ([`Counting::install`], as `io::Current` does for
//! the run's I/O state), and the snapshot states its operators hold add to
//! it. Outside a run (sequential execution) nothing is counted but the
//! state's own [`SnapshotStats`](super::SnapshotStats).

use std::cell::Cell;

use super::SnapshotStats;
use crate::sync::process::{AtomicU64, Ordering};

/// One run's counts, added to by every section's thread.
#[derive(Debug, Default)]
pub struct Counts {
    taken: AtomicU64,
    copies: AtomicU64,
    reused: AtomicU64,
}

impl Counts {
    /// What the run's snapshot states did so far.
    pub fn get(&self) -> SnapshotStats {
        SnapshotStats {
            taken: self.taken.load(Ordering::Relaxed),
            copies: self.copies.load(Ordering::Relaxed),
            reused: self.reused.load(Ordering::Relaxed),
        }
    }
}

thread_local! {
    static COUNTING: Cell<*const Counts> = const { Cell::new(std::ptr::null()) };
}

/// The calling thread counts into a run's [`Counts`] while this lives.
pub struct Counting(*const Counts);

impl Counting {
    /// Count into `counts` until the guard is dropped (then into what was
    /// installed before: a nested run's section driven on this thread).
    pub fn install(counts: &Counts) -> Self {
        Counting(COUNTING.with(|c| c.replace(counts)))
    }
}

impl Drop for Counting {
    fn drop(&mut self) {
        COUNTING.with(|c| c.set(self.0));
    }
}

fn add(pick: impl FnOnce(&Counts) -> &AtomicU64) {
    COUNTING.with(|c| {
        let counts = c.get();
        // SAFETY: a non-null pointer was installed by a `Counting` guard
        // that is still alive (it restores the previous value when
        // dropped), and the guard borrows the `Counts` for its lifetime.
        if let Some(counts) = unsafe { counts.as_ref() } {
            pick(counts).fetch_add(1, Ordering::Relaxed);
        }
    });
}

/// A snapshot was handed to a `&self` call.
pub(super) fn taken() {
    add(|c| &c.taken);
}

/// A write copied the state a reader still held.
pub(super) fn copied() {
    add(|c| &c.copies);
}

/// The copy went into the memory of a version whose readers were done.
pub(super) fn reused() {
    add(|c| &c.reused);
}

#[cfg(test)]
mod tests {
    use super::{copied, taken, Counting, Counts};

    #[test]
    fn only_a_thread_with_an_installed_run_counts_and_nested_runs_restore_the_outer() {
        taken(); // outside a run: nowhere
        let outer = Counts::default();
        let inner = Counts::default();
        {
            let _outer = Counting::install(&outer);
            taken();
            {
                let _inner = Counting::install(&inner);
                copied();
            }
            taken();
        }
        taken();
        assert_eq!((outer.get().taken, outer.get().copies), (2, 0));
        assert_eq!((inner.get().taken, inner.get().copies), (0, 1));
    }
}
