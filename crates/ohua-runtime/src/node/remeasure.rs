//! A long verdict is measured again on the replicas that get the items.
//!
//! An elastic operator's cost per item is timed on replica 0 (`elastic.rs`,
//! `Probe`). An operator measured at a millisecond or more per item is
//! *long*: its items are dealt to the other lanes even when they come alone
//! (`local_first.rs`), so that it does not hold the scatter's section. Then
//! replica 0 gets no items, and its estimate is never timed again. On a
//! loaded machine one slow first item was enough: a CI run measured
//! `heavy_square` (about 100 µs) at 1.67 ms, and every later request of
//! the light service crossed threads (`replication.rs`,
//! `requests_that_arrive_alone_run_beside_the_scatter`, 38 of 40 on
//! replica 1, each 0.47 ms there).
//!
//! So while the estimate says long, the other replicas time every
//! productive step and halve the distance between the estimate and what
//! they measure: a wrong verdict is undone in two or three steps (1.67 ms
//! → 1.07 → 0.77 for a 0.47 ms item), and a right one stays (a 47 ms
//! summary measures 47 ms). Steps of long items are a millisecond or more,
//! so two clock reads each cost nothing; while the estimate says short the
//! wrapper reads one atomic per step and times nothing.

use std::time::Instant;

use crate::deploy::LONG_FIRING_NS;

use super::elastic::Elastic;
use super::{Node, Step};

/// Replica `k > 0` of an elastic operator (see the module docs).
pub struct Remeasure<N> {
    inner: N,
    elastic: Elastic,
}

impl<N: Node> Remeasure<N> {
    /// Wrap `inner`, a replica other than 0 of `elastic`'s operator.
    pub fn new(inner: N, elastic: Elastic) -> Self {
        Remeasure { inner, elastic }
    }
}

impl<N: Node> Node for Remeasure<N> {
    fn step(&mut self, budget: usize) -> Step {
        if self.elastic.ns_per_item() < LONG_FIRING_NS {
            return self.inner.step(budget);
        }
        let start = Instant::now();
        let step = self.inner.step(budget);
        if let Step::Progress(n) = step {
            if n > 0 {
                let now = start.elapsed().as_nanos() as u64 / n as u64;
                let estimate = self.elastic.ns_per_item();
                self.elastic.set_ns_per_item(estimate / 2 + now / 2);
            }
        }
        step
    }

    fn flush(&mut self) {
        self.inner.flush();
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn attach(&mut self, at: &super::marks::Attach) {
        self.inner.attach(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deploy::Opening;

    /// A replica that spends `nanos` per item, one item a step.
    struct Costly {
        nanos: u64,
    }

    impl Node for Costly {
        fn step(&mut self, _budget: usize) -> Step {
            let end = Instant::now() + std::time::Duration::from_nanos(self.nanos);
            while Instant::now() < end {
                std::hint::spin_loop();
            }
            Step::Progress(1)
        }
        fn flush(&mut self) {}
    }

    fn elastic_measured_at(ns: u64) -> Elastic {
        let e = Elastic::new(2, Opening::Measured);
        e.set_ns_per_item(ns);
        e
    }

    /// Regression (CI, `requests_that_arrive_alone_run_beside_the_scatter`):
    /// a first item measured at 1.67 ms kept a 0.4 ms operator long for the
    /// whole run, because only replica 0 timed it and it got no items.
    #[test]
    fn a_long_verdict_from_one_slow_first_item_is_undone_by_the_replicas_that_get_the_items() {
        let e = elastic_measured_at(1_670_000);
        let mut replica = Remeasure::new(Costly { nanos: 400_000 }, e.clone());
        for _ in 0..4 {
            replica.step(1);
        }
        assert!(e.ns_per_item() < LONG_FIRING_NS, "still long: {} ns", e.ns_per_item());
    }

    #[test]
    fn a_right_long_verdict_stays_long() {
        let e = elastic_measured_at(3_000_000);
        let mut replica = Remeasure::new(Costly { nanos: 3_000_000 }, e.clone());
        for _ in 0..4 {
            replica.step(1);
        }
        assert!(e.ns_per_item() >= LONG_FIRING_NS, "{} ns", e.ns_per_item());
    }

    #[test]
    fn a_short_verdict_is_left_to_replica_0() {
        let e = elastic_measured_at(500_000);
        let mut replica = Remeasure::new(Costly { nanos: 100_000 }, e.clone());
        replica.step(1);
        assert_eq!(e.ns_per_item(), 500_000);
    }
}
