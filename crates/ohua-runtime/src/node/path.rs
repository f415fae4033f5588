//! The cost per item of each elastic operator of a run, shared among them:
//! the request's path that a latency goal per request is split over
//! (`deploy::RequestGoal`, `Load::path_ns_per_item`).
//!
//! Every elastic operator of a run writes its measured cost into its own
//! slot whenever it measures one, and reads the sum once per window when
//! it asks its scaling policy. No lock: a slot is one relaxed atomic, and
//! a window that reads one operator's cost a measurement late only splits
//! the goal by slightly older numbers.

use crate::sync::{Arc, AtomicU64, Ordering};

/// The slots of one run's elastic operators, one per graph node (the unit
/// test `the_path_sums_the_costs_its_operators_measured_last` shows use).
#[derive(Debug, Clone)]
pub struct PathCosts(Arc<Vec<AtomicU64>>);

impl PathCosts {
    /// Slots for a graph of `nodes` nodes, none measured yet.
    pub fn new(nodes: usize) -> Self {
        PathCosts(Arc::new((0..nodes).map(|_| AtomicU64::new(0)).collect()))
    }

    /// Node `id`'s slot.
    ///
    /// # Panics
    ///
    /// Panics if `id` is not a node of the graph the slots were made for.
    pub fn slot(&self, id: usize) -> PathSlot {
        assert!(id < self.0.len(), "ohua: path slot {id} of {}", self.0.len());
        PathSlot { path: self.clone(), id }
    }
}

/// One elastic operator's place on the run's path.
#[derive(Debug, Clone)]
pub struct PathSlot {
    path: PathCosts,
    id: usize,
}

impl PathSlot {
    /// Record the operator's cost per item, in nanoseconds.
    pub fn set(&self, ns: u64) {
        self.path.0[self.id].store(ns, Ordering::Relaxed);
    }

    /// The cost per item summed over every operator that measured one.
    pub fn total(&self) -> u64 {
        self.path.0.iter().map(|c| c.load(Ordering::Relaxed)).fold(0, u64::saturating_add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_sums_the_costs_its_operators_measured_last() {
        let path = PathCosts::new(3);
        let (a, b) = (path.slot(0), path.slot(2));
        assert_eq!(a.total(), 0);
        a.set(100);
        assert_eq!(b.total(), 100, "an operator that measured nothing adds nothing");
        b.set(300);
        b.set(250);
        assert_eq!((a.total(), b.total()), (350, 350));
    }

    #[test]
    #[should_panic(expected = "path slot 3 of 3")]
    fn a_slot_outside_the_graph_is_refused() {
        PathCosts::new(3).slot(3);
    }
}
