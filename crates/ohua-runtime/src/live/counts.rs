//! What a run's sections publish while it runs, for the live view: per
//! operator, firings and estimated busy time so far. Only a run that
//! started while a view was on has one; its sections add to it at most
//! every [`PUBLISH_EVERY`] and before they park (`exec/live.rs`), so the
//! step path pays nothing and a viewed run a few atomic adds a tenth of a
//! second.

use std::time::Duration;

use crate::sync::process::{AtomicU64, Ordering};

/// How often a busy section publishes.
pub(crate) const PUBLISH_EVERY: Duration = Duration::from_millis(100);

/// Per-operator counts of a running run, by node id.
pub(crate) struct LiveCounts {
    firings: Box<[AtomicU64]>,
    busy_ns: Box<[AtomicU64]>,
    /// Operators the plan replicated: their own task is the scatter,
    /// whose steps are not the operator's work (the replicas' are).
    replicated: Box<[bool]>,
}

impl LiveCounts {
    /// Zero counts for a graph whose operators are replicated as
    /// `replicated` says (one entry per operator).
    pub(crate) fn new(replicated: Vec<bool>) -> Self {
        let zeros = || (0..replicated.len()).map(|_| AtomicU64::new(0)).collect();
        LiveCounts { firings: zeros(), busy_ns: zeros(), replicated: replicated.into() }
    }

    /// Whether operator `id` runs on replicas.
    pub(crate) fn is_replicated(&self, id: usize) -> bool {
        self.replicated.get(id).copied().unwrap_or(false)
    }

    /// Operator `id` fired `firings` more times, working `busy_ns` more.
    pub(crate) fn add(&self, id: usize, firings: u64, busy_ns: u64) {
        if let (Some(f), Some(b)) = (self.firings.get(id), self.busy_ns.get(id)) {
            f.fetch_add(firings, Ordering::Relaxed);
            b.fetch_add(busy_ns, Ordering::Relaxed);
        }
    }

    /// Operator `id`'s firings and busy time so far.
    pub(crate) fn get(&self, id: usize) -> (u64, Duration) {
        let f = self.firings.get(id).map_or(0, |a| a.load(Ordering::Relaxed));
        let b = self.busy_ns.get(id).map_or(0, |a| a.load(Ordering::Relaxed));
        (f, Duration::from_nanos(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_per_operator_and_ignore_unknown_ids() {
        let c = LiveCounts::new(vec![false, true]);
        assert!(c.is_replicated(1) && !c.is_replicated(0) && !c.is_replicated(9));
        c.add(1, 3, 30);
        c.add(1, 2, 20);
        c.add(7, 1, 1);
        assert_eq!(c.get(0), (0, Duration::ZERO));
        assert_eq!(c.get(1), (5, Duration::from_nanos(50)));
        assert_eq!(c.get(7), (0, Duration::ZERO));
    }
}
