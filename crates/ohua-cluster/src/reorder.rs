//! Results leave in sequential order.
//!
//! The caller numbers its items 0, 1, 2, … as it reads them; workers in
//! other processes answer in whatever order the network and their load
//! give. The caller releases result `n` as soon as results `0..n` have
//! left, so an answer never waits for the end of its epoch (timely's
//! frontier), only for the answers before it. That is the order sequential
//! execution gives, and the only wait it needs.

use std::collections::BTreeMap;

/// Holds results that came early until those before them arrive.
#[derive(Debug)]
pub(crate) struct Reorder<O> {
    next: u64,
    early: BTreeMap<u64, O>,
}

impl<O> Default for Reorder<O> {
    fn default() -> Self {
        Reorder { next: 0, early: BTreeMap::new() }
    }
}

impl<O> Reorder<O> {
    /// Result `seq` arrived: hands `release` every result now in order.
    ///
    /// # Panics
    ///
    /// If `seq` arrived before (a duplicate: the transport broke its
    /// promise, and a result would be lost or doubled).
    pub(crate) fn arrive(&mut self, seq: u64, result: O, release: &mut impl FnMut(O)) {
        assert!(seq >= self.next && !self.early.contains_key(&seq), "result {seq} arrived twice");
        if seq != self.next {
            self.early.insert(seq, result);
            return;
        }
        release(result);
        self.next += 1;
        while let Some(result) = self.early.remove(&self.next) {
            release(result);
            self.next += 1;
        }
    }

    /// How many results have left in order.
    pub(crate) fn released(&self) -> u64 {
        self.next
    }

    /// How many results wait for an earlier one.
    #[cfg(test)]
    pub(crate) fn waiting(&self) -> usize {
        self.early.len()
    }
}

#[cfg(test)]
mod tests {
    use super::Reorder;
    use proptest::prelude::*;

    proptest! {
        /// Whatever order results arrive in, they leave in sequence order,
        /// each once, and nothing waits once all have arrived.
        #[test]
        fn results_leave_in_sequence_order(order in Just((0u64..64).collect::<Vec<_>>()).prop_shuffle()) {
            let mut r = Reorder::default();
            let mut out = Vec::new();
            for &seq in &order {
                r.arrive(seq, seq * 10, &mut |o| out.push(o));
                // Released exactly the prefix that has fully arrived.
                prop_assert_eq!(out.len() as u64, r.released());
            }
            prop_assert_eq!(out, (0..64).map(|s| s * 10).collect::<Vec<_>>());
            prop_assert_eq!(r.waiting(), 0);
        }
    }

    #[test]
    #[should_panic(expected = "arrived twice")]
    fn a_duplicate_result_is_a_broken_promise() {
        let mut r = Reorder::default();
        r.arrive(0, (), &mut |_| {});
        r.arrive(0, (), &mut |_| {});
    }
}
