//! How many of its replicas an elastic operator that follows its load
//! uses (`Replication::Elastic`, `node/elastic.rs`): DS2's rule (Kalavri
//! et al., OSDI 2018), computed from what the operator measured over the
//! last window, in one step.
//!
//! The operator's *true* processing rate is what one replica achieves
//! while busy: `1 s / cost per item`. The replicas it needs are the items
//! that arrived per second over that rate, with headroom: a replica kept
//! busier than [`TARGET_UTILISATION`] makes items queue. Arrivals are only
//! seen as fast as the operator takes them, so a window in which the
//! scatter found every open lane full (a backlog) asks for at least one
//! replica more than it used, whatever the rate says: DS2 measures the
//! sources' rates for the same reason.

/// Busy share a replica may have before another one is opened.
pub const TARGET_UTILISATION: f64 = 0.8;

/// What an elastic operator measured over one window.
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::{needed_replicas, Load};
/// // 3,000 items/s of 0.5 ms each: 1.5 replicas busy, 1.9 with headroom.
/// let load = Load { lanes: 4, active: 1, items_per_sec: 3000.0, ns_per_item: 500_000.0, backlog: false, path_ns_per_item: 500_000.0 };
/// assert_eq!(needed_replicas(&load), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Load {
    /// Replicas the operator has (its most).
    pub lanes: usize,
    /// Replicas it used during the window.
    pub active: usize,
    /// Items it dealt per second during the window.
    pub items_per_sec: f64,
    /// Cost of one item on one replica, in nanoseconds (0: not measured yet).
    pub ns_per_item: f64,
    /// Whether the scatter found every open lane full during the window,
    /// or its thread was on a CPU for nearly all of it (the items then
    /// wait before the scatter, in the loop's source: `node/follow.rs`).
    pub backlog: bool,
    /// Cost of one item summed over every elastic operator of the run
    /// that has measured one, this operator included, in nanoseconds: the
    /// request's path that a latency goal per request is split over
    /// ([`RequestGoal`](super::RequestGoal)). At least `ns_per_item`.
    pub path_ns_per_item: f64,
}

/// The replicas the operator should use next (`1..=lanes`): see the module
/// docs. Without a measured cost, it keeps what it uses.
pub fn needed_replicas(load: &Load) -> usize {
    replicas_at(load, |_| TARGET_UTILISATION)
}

/// The replicas that keep each one at most `utilisation(ns_per_item)`
/// busy, one more than used after a backlog, within `1..=lanes`; what it
/// uses if no cost is measured yet.
pub(super) fn replicas_at(load: &Load, utilisation: impl Fn(f64) -> f64) -> usize {
    let lanes = load.lanes.max(1);
    if load.ns_per_item <= 0.0 {
        return load.active.clamp(1, lanes);
    }
    let busy = load.items_per_sec * load.ns_per_item / 1e9;
    let mut need = (busy / utilisation(load.ns_per_item)).ceil() as usize;
    if load.backlog {
        need = need.max(load.active + 1);
    }
    need.clamp(1, lanes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(items_per_sec: f64, ns_per_item: f64, active: usize, backlog: bool) -> Load {
        Load { lanes: 4, active, items_per_sec, ns_per_item, backlog, path_ns_per_item: ns_per_item }
    }

    #[test]
    fn the_replicas_follow_the_arrival_rate_in_one_step() {
        // 1 ms per item: 700 items/s need one replica, 2,000 need three
        // (2.0 busy / 0.8), 10,000 more than there are.
        assert_eq!(needed_replicas(&load(700.0, 1e6, 4, false)), 1);
        assert_eq!(needed_replicas(&load(2_000.0, 1e6, 1, false)), 3);
        assert_eq!(needed_replicas(&load(10_000.0, 1e6, 1, false)), 4);
    }

    #[test]
    fn a_backlog_asks_for_one_more_replica_than_it_used() {
        // The rate seen under a backlog is what the replicas managed, not
        // what arrived: 900 items/s of 1 ms on one replica says "2"; one
        // more than used is 2 as well; on two, 3.
        assert_eq!(needed_replicas(&load(900.0, 1e6, 1, true)), 2);
        assert_eq!(needed_replicas(&load(100.0, 1e6, 2, true)), 3);
        assert_eq!(needed_replicas(&load(100.0, 1e6, 4, true)), 4, "never more than the lanes");
    }

    #[test]
    fn an_idle_or_unmeasured_operator_keeps_one_or_what_it_has() {
        assert_eq!(needed_replicas(&load(0.0, 1e6, 3, false)), 1, "no arrivals: give the cores back");
        assert_eq!(needed_replicas(&load(5_000.0, 0.0, 2, false)), 2, "no cost measured yet");
    }
}
