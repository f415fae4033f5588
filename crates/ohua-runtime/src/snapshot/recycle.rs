//! Where a snapshot state's copy goes: into the memory of a *spare* (the
//! version an earlier copy left behind, once its readers are done) or into
//! new memory.
//!
//! A copy into the spare is `Clone::clone_from`. Where the state's
//! `clone_from` re-uses its buffers (`Vec`'s, `String`'s, a hand-written
//! one), it copies into memory already touched, and the writer pays no
//! allocation and no page faults: the responsiveness case study's 640 KB
//! grid copied in 0.1-0.3 ms into the spare, against 0.1-17 ms into new
//! memory on its virtual machine (a fresh huge page cost 7 ms there). A
//! `#[derive(Clone)]` type's `clone_from` is `*self = source.clone()`: a
//! new allocation *and* the spare's memory freed on the writer's thread,
//! which the readers did before (the snapshot bench's 100,000-slot table:
//! its writes took 46 % longer). So a state measures both kinds of copy
//! for its first few and keeps spares only while copying into one is not
//! slower; without spares, readers free the versions they held last.

use std::time::Instant;

use super::{counts, SnapshotStats};
use crate::sync::Arc;

/// Copies of each kind a state times before it decides.
const SAMPLES: u32 = 4;

/// A state's choice between copying into its spare and into new memory.
#[derive(Debug, Default)]
pub(super) struct Recycling {
    /// Nanoseconds and count of the copies timed into a spare.
    into_spare: (u64, u32),
    /// Nanoseconds and count of the copies timed into new memory.
    into_new: (u64, u32),
    /// Decided to copy into new memory only (and keep no spare).
    no_spares: bool,
}

impl Recycling {
    /// Whether the state keeps the version a copy leaves as its spare.
    pub(super) fn keeps_spares(&self) -> bool {
        !self.no_spares
    }

    /// A copy of `live`: into `spare` if nobody reads it any more, else
    /// into new memory. Counted in `stats.reused` (and the run's counts)
    /// when it went into the spare.
    pub(super) fn copy<T: Clone>(
        &mut self,
        live: &Arc<T>,
        mut spare: Option<Arc<T>>,
        stats: &mut SnapshotStats,
    ) -> Arc<T> {
        // `get_mut` succeeds only once every reader's `Arc` is gone (it
        // acquires their releases), so no reader sees the spare change.
        // A spare still read is left to its readers, who free it.
        let memory = spare.as_mut().and_then(Arc::get_mut);
        let into_spare = memory.is_some();
        // Only a kind still short of samples is timed: a state whose spare
        // is always still read reads no clock for its copies into new memory.
        let timed = if into_spare { self.into_spare.1 } else { self.into_new.1 } < SAMPLES;
        let start = timed.then(Instant::now);
        let copy = match memory {
            Some(memory) => {
                memory.clone_from(live);
                stats.reused += 1;
                counts::reused();
                spare.expect("the spare was just written")
            }
            None => Arc::new((**live).clone()),
        };
        if let Some(start) = start {
            self.record(into_spare, start.elapsed().as_nanos() as u64);
        }
        copy
    }

    /// A timed copy; once both kinds have [`SAMPLES`]: spares only if
    /// copying into one is not slower on average.
    fn record(&mut self, into_spare: bool, ns: u64) {
        let sample = if into_spare { &mut self.into_spare } else { &mut self.into_new };
        sample.0 += ns;
        sample.1 += 1;
        let (spare, new) = (self.into_spare, self.into_new);
        if spare.1 >= SAMPLES && new.1 >= SAMPLES {
            // spare.0 / spare.1 > new.0 / new.1, without dividing.
            self.no_spares = u128::from(spare.0) * u128::from(new.1) > u128::from(new.0) * u128::from(spare.1);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_copy_goes_into_a_spare_nobody_reads_and_never_into_one_still_read() {
        let mut r = Recycling::default();
        let mut stats = SnapshotStats::default();
        let live = Arc::new(vec![7u64; 64]);
        let spare = Arc::new(vec![0u64; 64]);
        let memory = spare.as_ptr();
        let copy = r.copy(&live, Some(spare), &mut stats);
        assert_eq!((copy[0], copy.as_ptr(), stats.reused), (7, memory, 1));
        let held = Arc::new(vec![0u64; 64]);
        let reader = Arc::clone(&held);
        let copy = r.copy(&live, Some(held), &mut stats);
        assert_eq!((copy[0], reader[0], stats.reused), (7, 0, 1), "a spare still read is not written");
        assert_ne!(copy.as_ptr(), reader.as_ptr());
    }

    #[test]
    fn a_state_stops_keeping_spares_when_copies_into_them_are_slower_on_average() {
        let mut r = Recycling::default();
        for _ in 0..SAMPLES {
            assert!(r.keeps_spares());
            r.record(true, 3_000); // a derived `clone_from`: allocates and frees
            r.record(false, 2_000);
        }
        assert!(!r.keeps_spares(), "{r:?}");
    }

    #[test]
    fn a_state_keeps_spares_when_new_memory_costs_more_even_now_and_then() {
        let mut r = Recycling::default();
        for k in 0..SAMPLES {
            r.record(true, 100_000); // 0.1 ms into the old buffer
                                     // New memory: as fast, but one copy in four met fresh pages.
            r.record(false, if k == 0 { 7_000_000 } else { 100_000 });
        }
        assert!(r.keeps_spares(), "{r:?}");
    }
}
