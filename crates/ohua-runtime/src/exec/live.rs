//! A running run's sections publish their operators' counts to the live
//! view (`live/counts.rs`): every [`PUBLISH_EVERY`] while busy, and before
//! they park. Only in a run that started while a view was on.

use super::builder::Role;
use super::section::Section;
use super::timing::StepClock;
use crate::live::counts::{LiveCounts, PUBLISH_EVERY};
use crate::sync::Ordering;

/// When a section's driver publishes next.
pub(super) struct Publisher {
    every: u64,
    next: u64,
}

impl Publisher {
    pub(super) fn new(clock: &StepClock) -> Self {
        Publisher { every: clock.ticks_of_nanos(PUBLISH_EVERY.as_nanos() as u64), next: 0 }
    }

    /// Publish the counts of `section`'s tasks and those of the sections
    /// it hosts (`guests`), if the interval has passed or `now` says so.
    pub(super) fn publish<'a>(
        &mut self,
        counts: &LiveCounts,
        section: &Section<'a>,
        peers: &[Section<'a>],
        guests: &[usize],
        now: bool,
    ) {
        let clock = StepClock::get();
        let at = clock.now();
        if !now && at < self.next {
            return;
        }
        self.next = at.saturating_add(self.every);
        for part in std::iter::once(section).chain(guests.iter().map(|&g| &peers[g])) {
            for slot in &part.tasks {
                if slot.pinned.load(Ordering::Acquire) {
                    continue; // the stuck thread's, not ours to read
                }
                let counted = match slot.role {
                    Role::Node => !counts.is_replicated(slot.id),
                    Role::Replica(_) => true,
                    Role::Merge => false,
                };
                if !counted {
                    continue;
                }
                // SAFETY: an unpinned task belongs to the driver of the
                // section that holds or hosts it, and we are it (as in
                // `Section::pass_over`).
                let task = unsafe { &mut *slot.task.get() };
                let (firings, busy_ns) = task.counters.take_live(clock);
                if firings > 0 || busy_ns > 0 {
                    counts.add(slot.id, firings, busy_ns);
                }
            }
        }
    }
}
