//! Light load: an item that arrives alone runs beside its scatter.
//!
//! A scatter deals each item to the lane with the most room, lane 0
//! counted two items fuller, ties in rotation (`replicate.rs`). Under load that spreads the work over the
//! replicas' cores. At light load every lane is empty at every item, so
//! rotation sent every other item to a replica on another thread: two
//! hand-offs between threads per item, and the other thread, parked since
//! its last item, must be woken first. The web server with one client
//! (a request at a time, `auto` deployment, `compose` and `read` on
//! elastic replicas) answered 1,700-2,900 requests/s at a p50 of
//! 150-830 µs, against 18,000-20,000 at 45-53 µs for one section.
//!
//! Replica 0 runs in the scatter's own section (`deploy::Plan::replica_sections`),
//! on the same thread, so when its lane is as empty as the emptiest it has
//! finished everything it was dealt. An item of an elastic operator that
//! arrives more than [`ALONE_GAP`] times the operator's measured cost after
//! the previous one is *alone*, and a tie goes to lane 0 for it: it crosses
//! no thread. Items that come closer together are dealt as before, so a
//! busy service still spreads them. With the rule, the web server with one
//! client answers 16,000 requests/s at a p50 of 57-62 µs (p99 95 µs, from
//! 1.5 ms), with 4 connections 26,000-37,000 (from 17,000-22,000); with 64
//! it answers 12 % fewer on this 2-core machine (`BENCHMARKS.md`).
//!
//! The gap alone cannot tell a light load from a section that lets items
//! through one at a time (the web server's loop takes one request per
//! pass, so items came more than two costs apart even at 90 % of a core).
//! So an operator that follows its load keeps items beside the scatter
//! only while the last window left the scatter's thread room for them
//! (`follow.rs`, `crowded`: its CPU time plus the work it dealt away under
//! 95 % of the window).
//!
//! Only items that cost little: an item of `LONG_FIRING_NS` (1 ms) or more goes
//! to another thread even when it comes alone. The hand-off saves it a
//! few µs, and on lane 0 it would hold the scatter's section, and every
//! operator there, for its whole length: a long `&self` summary on a
//! snapshot held the heartbeats of its state's section back for 47 ms
//! (`examples/src/bin/responsive.rs`, issue 24). Since replica 0 then gets
//! none of its items, the replicas that do get them measure a long verdict
//! again (`remeasure.rs`): one slow first item on a loaded machine had kept
//! a 0.5 ms operator long, and every lone item away, for a whole run.
//!
//! Only elastic operators: they measure their cost (`elastic.rs`). A
//! scatter whose replicas a rule fixed deals as before.

use std::time::Instant;

use crate::deploy::LONG_FIRING_NS;

/// How many of the operator's measured costs must separate an item from
/// the previous one for it to count as alone.
///
/// Why 2: the local replica is then busy at most half the time with items
/// that arrive at this pace, which leaves its section time for the loop's
/// other operators. Treating every item as alone (lane 0 on every tie) cost
/// the web server at 64 connections a quarter of its throughput: its
/// section, which also runs the loop and the calls around it, did all the
/// work while the other section slept.
pub(crate) const ALONE_GAP: u64 = 2;

/// When the scatter last found lane 0 tied with the lane it picked.
///
/// Read only at such ties, not at every item: `ohua-bench chain`'s
/// one-section piece went from 1.08 to 1.35 ns per operator and item with a
/// read at every item, and to 1.23-1.28 ns with this. At light load every item is a tie, so the gap is the
/// one between items; under load ties are rarer and the gap since the last
/// one is longer than the last item's, so a few more items count as alone.
#[derive(Debug, Default)]
pub(crate) struct Spacing {
    last: Option<Instant>,
}

impl Spacing {
    /// A tie now, for an operator measured at `cost_ns` per item (0: not
    /// measured yet): whether the item came alone (see the module docs).
    pub(crate) fn alone(&mut self, cost_ns: u64) -> bool {
        let now = Instant::now();
        let gap = self.last.replace(now).map(|last| now.saturating_duration_since(last));
        cost_ns > 0
            && cost_ns < LONG_FIRING_NS
            && gap.is_none_or(|gap| gap.as_nanos() >= u128::from(cost_ns) * u128::from(ALONE_GAP))
    }
}

#[cfg(test)]
mod tests {
    use super::{Spacing, LONG_FIRING_NS};
    use std::time::Duration;

    #[test]
    fn an_item_is_alone_only_if_it_came_two_costs_after_the_previous_one() {
        let mut s = Spacing::default();
        // The first item has no previous one.
        assert!(s.alone(1_000));
        // Back to back: at most a few µs apart, 1 s per item.
        assert!(!s.alone(1_000_000_000));
        // 2 ms later, 500 µs per item: alone.
        std::thread::sleep(Duration::from_millis(2));
        assert!(s.alone(500_000));
        // An operator not measured yet is never alone: deal as before.
        std::thread::sleep(Duration::from_millis(2));
        assert!(!s.alone(0));
    }

    #[test]
    fn a_long_item_is_never_alone_so_it_does_not_hold_the_scatters_section() {
        let mut s = Spacing::default();
        // The first item, 1 ms and 50 ms per item: long, dealt away.
        assert!(!s.alone(LONG_FIRING_NS));
        std::thread::sleep(Duration::from_millis(5));
        assert!(!s.alone(50_000_000));
        // A cheap item long after: alone.
        std::thread::sleep(Duration::from_millis(2));
        assert!(s.alone(LONG_FIRING_NS - 1));
    }
}
