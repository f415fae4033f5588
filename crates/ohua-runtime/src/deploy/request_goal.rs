//! A latency goal for a request's whole path, split into per-operator
//! slack, and an optional throughput floor (issue 23, part 2: the SLA of
//! a service).
//!
//! Lagniappe (§3.4) splits the SLA's latency among the replicated
//! operators and turns each share, its *slack*, into the queue an operator
//! may have before it asks for more processing elements (Kokku et al.).
//! Here every elastic operator of the run counts as on the request's path.
//! Each publishes its measured cost per item, so each sees the path's
//! cost (`Load::path_ns_per_item`) and takes a share of the goal in
//! proportion to its own cost: an operator of 300 µs on a path of 400 µs
//! gets three quarters of it. It then follows [`LatencyGoal`] for its
//! share. Under the M/M/1 model that policy uses, a share in proportion to
//! cost lets every operator on the path be equally busy, `1 - ln(100) ·
//! path cost / goal`, and the shares' p99s add up to the goal (the sum of
//! per-operator p99s bounds the path's p99 from above).
//!
//! The floor is a standing reservation: each operator keeps the replicas
//! that can take `floor` items per second at most 95 % busy, whatever
//! arrives, once it has measured its cost.
//!
//! Not counted: the time items spend in operators that run once (the
//! loop's entry, a state every request passes). Leave room for it in the
//! goal; the run report's busy time per firing shows it.

use std::fmt;
use std::time::Duration;

use super::policy::{LatencyGoal, ScalingPolicy, UTILISATION_RANGE};
use super::scaling::Load;

/// Keep a request's 99th-percentile time through the run's elastic
/// operators within `p99`, and optionally keep the replicas for a
/// throughput `floor` (module docs). As text (`scaling = "..."`,
/// `OHUA_SCALING`): `request-p99=20ms` or `request-p99=20ms,floor=5000/s`.
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::{Load, RequestGoal, ScalingPolicy};
/// use std::time::Duration;
/// // An operator of 300 µs on a path of 400 µs, 3,000 items/s: 0.9 busy.
/// let load = Load { lanes: 8, active: 1, items_per_sec: 3000.0, ns_per_item: 3e5, backlog: false, path_ns_per_item: 4e5 };
/// let goal = RequestGoal::new(Duration::from_millis(20));
/// // Its share of the goal is three quarters.
/// assert_eq!(goal.slack(&load), Duration::from_millis(15));
/// // Every operator on the path may be 1 - 4.605 * 0.4 / 20 = 90.8 % busy: one replica.
/// assert_eq!(goal.replicas(&load), 1);
/// // A floor of 5,000 items/s needs 1.5 replicas' work: two, whatever arrives.
/// assert_eq!(goal.floor(5000.0).replicas(&Load { items_per_sec: 10.0, ..load }), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestGoal {
    /// The goal for a request's 99th-percentile time through the path.
    pub p99: Duration,
    /// Items per second each operator keeps the replicas for, if any.
    pub floor_per_sec: Option<f64>,
}

impl RequestGoal {
    /// A goal of `p99` per request, without a floor.
    pub fn new(p99: Duration) -> Self {
        RequestGoal { p99, floor_per_sec: None }
    }

    /// The same goal, keeping the replicas for `per_sec` items per second
    /// (ignored unless positive and finite).
    pub fn floor(self, per_sec: f64) -> Self {
        let floor_per_sec = (per_sec.is_finite() && per_sec > 0.0).then_some(per_sec);
        RequestGoal { floor_per_sec, ..self }
    }

    /// The share of the goal an operator measured as `load` gets: the
    /// goal times its cost over the path's (the whole goal while its cost
    /// or the path's is not measured yet).
    pub fn slack(&self, load: &Load) -> Duration {
        let path = load.path_ns_per_item.max(load.ns_per_item);
        if load.ns_per_item <= 0.0 || path <= 0.0 {
            return self.p99;
        }
        self.p99.mul_f64(load.ns_per_item / path)
    }

    /// The replicas the floor alone asks for (0 without a floor or a
    /// measured cost).
    fn floor_replicas(&self, load: &Load) -> usize {
        match self.floor_per_sec {
            Some(per_sec) if load.ns_per_item > 0.0 => {
                (per_sec * load.ns_per_item / 1e9 / UTILISATION_RANGE.1).ceil() as usize
            }
            _ => 0,
        }
    }
}

impl ScalingPolicy for RequestGoal {
    fn replicas(&self, load: &Load) -> usize {
        let latency = LatencyGoal { p99: self.slack(load) }.replicas(load);
        latency.max(self.floor_replicas(load))
    }

    /// `request-p99=<goal>`, with `,floor=<n>/s` if it has one.
    fn describe(&self) -> String {
        let goal = LatencyGoal { p99: self.p99 }.describe().replacen("p99=", "request-p99=", 1);
        match self.floor_per_sec {
            Some(per_sec) => format!("{goal},floor={per_sec}/s"),
            None => goal,
        }
    }
}

impl fmt::Display for RequestGoal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(items_per_sec: f64, ns_per_item: f64, path_ns_per_item: f64) -> Load {
        Load { lanes: 8, active: 1, items_per_sec, ns_per_item, backlog: false, path_ns_per_item }
    }

    #[test]
    fn each_operator_gets_a_share_of_the_goal_in_proportion_to_its_cost() {
        let goal = RequestGoal::new(Duration::from_millis(10));
        assert_eq!(goal.slack(&load(1.0, 1e5, 4e5)), Duration::from_micros(2500));
        assert_eq!(goal.slack(&load(1.0, 3e5, 4e5)), Duration::from_micros(7500));
        // Alone on the path (or before the others measured): all of it.
        assert_eq!(goal.slack(&load(1.0, 3e5, 3e5)), Duration::from_millis(10));
        assert_eq!(goal.slack(&load(1.0, 3e5, 0.0)), Duration::from_millis(10));
        assert_eq!(goal.slack(&load(1.0, 0.0, 0.0)), Duration::from_millis(10));
    }

    #[test]
    fn every_operator_on_the_path_may_be_equally_busy() {
        // A path of 0.5 ms and a goal of 5 ms: 1 - 4.605 * 0.1 = 54 % busy
        // for each, whatever its share. Both operators see 1,000 items/s.
        let goal = RequestGoal::new(Duration::from_millis(5));
        let cheap = load(1000.0, 1e5, 5e5); // 0.1 busy: one replica
        let heavy = load(1000.0, 4e5, 5e5); // 0.4 busy: one replica at 54 %
        assert_eq!((goal.replicas(&cheap), goal.replicas(&heavy)), (1, 1));
        let heavy = load(2000.0, 4e5, 5e5); // 0.8 busy: two at 54 %
        assert_eq!(goal.replicas(&heavy), 2);
        // The same operator alone on its path may be 1 - 4.605 * 0.08 =
        // 63 % busy, and 0.8 still needs two.
        assert_eq!(goal.replicas(&load(2000.0, 4e5, 4e5)), 2);
        // A longer path tightens it: a path of 0.8 ms allows 26 %: four.
        assert_eq!(goal.replicas(&load(2000.0, 4e5, 8e5)), 4);
    }

    #[test]
    fn a_floor_keeps_replicas_whatever_arrives_once_the_cost_is_known() {
        let goal = RequestGoal::new(Duration::from_millis(50)).floor(20_000.0);
        // 20,000 items/s of 100 µs: 2 replicas' work, 3 at 95 %.
        assert_eq!(goal.replicas(&load(10.0, 1e5, 1e5)), 3);
        assert_eq!(goal.replicas(&load(0.0, 1e5, 1e5)), 3);
        assert_eq!(goal.replicas(&load(10.0, 0.0, 0.0)), 1, "no cost measured: no floor yet");
        assert_eq!(RequestGoal::new(Duration::from_millis(5)).floor(f64::NAN).floor_per_sec, None);
        assert_eq!(RequestGoal::new(Duration::from_millis(5)).floor(-1.0).floor_per_sec, None);
    }

    #[test]
    fn a_request_goal_prints_itself() {
        let goal = RequestGoal::new(Duration::from_millis(20));
        assert_eq!(goal.to_string(), "request-p99=20ms");
        assert_eq!(goal.floor(5000.0).to_string(), "request-p99=20ms,floor=5000/s");
        assert_eq!(
            RequestGoal::new(Duration::from_micros(800)).floor(2.5).to_string(),
            "request-p99=800us,floor=2.5/s"
        );
    }
}
