//! A running run's sections publish their tasks' totals to the live view
//! (`live/counts.rs`) when they are about to park (a few stores per task,
//! against the microseconds a park and wake-up take). Only in a run that
//! started while a view was on.
//!
//! And when the view asks (a few times a second): a section whose driver
//! never parks would otherwise show nothing until the run ends. Not by a
//! check of its own on the driver's busy path: every one tried (a pass
//! counter, a look at the clock every 256 passes) cost `chain`'s
//! one-section case 35-50 % with the view off (BENCHMARKS.md, "Live
//! view"). The request is a count added to the run's abort word
//! ([`RunShared::signal`]), which the driver loads once per pass anyway:
//! it compares the word with the value it saw last instead of with zero.

use super::builder::Role;
use super::section::Section;
use super::shared::RunShared;
use super::timing::StepClock;
use crate::deploy::Plan;
use crate::live::counts::LiveCounts;
use crate::sync::Ordering;

/// Where the tasks of `sections` publish: per task, the operator whose
/// work it does (a replica's is its operator's; a replicated operator's
/// own task is the scatter, and a merge only merges).
pub(super) fn live_counts(sections: &[Section<'_>], plan: &Plan, nodes: usize) -> LiveCounts {
    let counted = |id: usize, role: Role| match role {
        Role::Node => (!plan.is_replicated(id)).then_some(id),
        Role::Replica(_) => Some(id),
        Role::Merge => None,
    };
    LiveCounts::new(nodes, sections.iter().map(|s| s.tasks.iter().map(|t| counted(t.id, t.role)).collect()).collect())
}

impl<'a> Section<'a> {
    /// Publish the totals of this section's tasks and those of the
    /// sections it hosts (`guests`). Called by the driver only.
    #[cold]
    #[inline(never)]
    pub(super) fn publish_live(&self, shared: &RunShared, peers: &[Section<'a>], guests: &[usize]) {
        let Some(counts) = shared.live() else { return };
        let clock = StepClock::get();
        for part in std::iter::once(self).chain(guests.iter().map(|&g| &peers[g])) {
            for (i, slot) in part.tasks.iter().enumerate() {
                if slot.pinned.load(Ordering::Acquire) {
                    continue; // the stuck thread's, not ours to read
                }
                // SAFETY: an unpinned task belongs to the driver of the
                // section that holds or hosts it, and we are it (as in
                // `Section::pass_over`); we only read.
                let task = unsafe { &*slot.task.get() };
                let busy = u64::try_from(task.counters.busy(clock).as_nanos()).unwrap_or(u64::MAX);
                counts.store(part.index, i, task.counters.firings, busy);
            }
        }
    }
}
