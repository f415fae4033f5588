//! Scaling policies: what decides how many replicas an elastic operator
//! that follows its load uses (`replicas = "elastic"`; issue 23, part 5,
//! Lagniappe's pluggable policies).
//!
//! Once per window the operator's scatter hands its [`Load`] to the
//! deployment's [`Scaling`] and opens or closes lanes to match the answer.
//! Two policies come with the runtime, and a user can write a third by
//! implementing [`ScalingPolicy`]:
//!
//! - [`Throughput`] (the default, `scaling = "throughput"`): DS2's rule,
//!   [`needed_replicas`]: enough replicas to keep each under
//!   [`TARGET_UTILISATION`](super::TARGET_UTILISATION).
//! - [`LatencyGoal`] (`scaling = "p99=5ms"`): Kokku et al.'s slack policy
//!   as Lagniappe applies it: the utilisation a replica may have is what
//!   keeps an item's 99th-percentile time in the operator (its wait and its
//!   cost) within the goal, so a loose goal uses fewer cores than
//!   `throughput` and a tight one more.
//! - [`RequestGoal`] (`scaling = "request-p99=20ms"`, optionally
//!   `,floor=5000/s`): the goal is for a request's whole path, split among
//!   the run's elastic operators in proportion to their cost
//!   (`deploy/request_goal.rs`).
//!
//! "Static" is not a policy here: a deployment with fixed replicas
//! (`replicas = "auto"`, a count, rules) never asks one.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use super::request_goal::RequestGoal;
use super::scaling::{needed_replicas, replicas_at, Load};
use super::DeployError;
use crate::sync::process::{Arc, Mutex};

/// Decides the replicas an elastic operator uses next from what it
/// measured over the last window. Called on the operator's scatter, once
/// per window in which items arrived, so it should be cheap. Where it asks
/// for fewer replicas than are open, it is asked again with 10 % more
/// arrivals, and a replica closes only if that answer is fewer too (a band
/// between opening and closing, so a rate near its threshold does not
/// open and close a replica in turn).
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::{Load, Scaling, ScalingPolicy};
/// /// Every replica there is, whenever anything arrives.
/// #[derive(Debug)]
/// struct AllIn;
/// impl ScalingPolicy for AllIn {
///     fn replicas(&self, load: &Load) -> usize {
///         if load.items_per_sec > 0.0 { load.lanes } else { 1 }
///     }
/// }
/// let load = Load { lanes: 4, active: 1, items_per_sec: 10.0, ns_per_item: 1e3, backlog: false, path_ns_per_item: 1e3 };
/// assert_eq!(Scaling::custom(AllIn).replicas(&load), 4);
/// ```
pub trait ScalingPolicy: Send + Sync + fmt::Debug {
    /// The replicas to use next; answers outside `1..=load.lanes` are
    /// clamped into it.
    fn replicas(&self, load: &Load) -> usize;

    /// How the policy reads in a report and in the decisions' log: its
    /// `Debug` unless it says otherwise.
    fn describe(&self) -> String {
        format!("{self:?}")
    }
}

/// DS2's rule ([`needed_replicas`]): the default policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Throughput;

impl ScalingPolicy for Throughput {
    fn replicas(&self, load: &Load) -> usize {
        needed_replicas(load)
    }

    fn describe(&self) -> String {
        "throughput".into()
    }
}

/// The 99th percentile of an M/M/1 queue's time in system, in units of
/// its mean `cost / (1 - utilisation)`: `ln(100)`.
const P99_OVER_MEAN: f64 = 4.605;

/// Utilisations [`LatencyGoal`] keeps a replica within, whatever the goal:
/// above the upper one a burst queues without bound, and below the lower
/// one an impossible goal would ask for every lane on any load.
pub(super) const UTILISATION_RANGE: (f64, f64) = (0.1, 0.95);

/// Keep an item's 99th-percentile time in the operator within `p99`
/// (Kokku et al.'s slack policy; see the module docs).
///
/// Each replica is modelled as an M/M/1 queue with the measured cost per
/// item: its time in system has a 99th percentile of `ln(100) · cost /
/// (1 - utilisation)`, so the highest utilisation that meets the goal is
/// `1 - ln(100) · cost / p99`, kept within 0.1-0.95. The replicas needed
/// are the busy time per second over that utilisation; a window with a
/// backlog asks for one more than it used, as [`Throughput`] does.
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::{LatencyGoal, Load, ScalingPolicy, Throughput};
/// use std::time::Duration;
/// // 1,000 items/s of 0.5 ms: half a replica busy.
/// let load = Load { lanes: 8, active: 1, items_per_sec: 1000.0, ns_per_item: 5e5, backlog: false, path_ns_per_item: 5e5 };
/// assert_eq!(Throughput.replicas(&load), 1);
/// // A goal of 5 ms allows a replica 54 % busy: one replica.
/// assert_eq!(LatencyGoal { p99: Duration::from_millis(5) }.replicas(&load), 1);
/// // A goal of 3 ms allows 23 %: three replicas.
/// assert_eq!(LatencyGoal { p99: Duration::from_millis(3) }.replicas(&load), 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LatencyGoal {
    /// The goal for an item's 99th-percentile time in the operator.
    pub p99: Duration,
}

impl LatencyGoal {
    /// The highest utilisation per replica that meets the goal for items
    /// of `ns_per_item`.
    fn utilisation(&self, ns_per_item: f64) -> f64 {
        let goal = self.p99.as_nanos() as f64;
        let (low, high) = UTILISATION_RANGE;
        if goal <= 0.0 {
            return low;
        }
        (1.0 - P99_OVER_MEAN * ns_per_item / goal).clamp(low, high)
    }
}

impl ScalingPolicy for LatencyGoal {
    fn replicas(&self, load: &Load) -> usize {
        replicas_at(load, |ns_per_item| self.utilisation(ns_per_item))
    }

    /// `p99=<n>ms`, or `p99=<n>us` for a goal of a fraction of a millisecond.
    fn describe(&self) -> String {
        match self.p99.subsec_nanos() % 1_000_000 {
            0 => format!("p99={}ms", self.p99.as_millis()),
            _ => format!("p99={}us", self.p99.as_micros()),
        }
    }
}

/// The policy a deployment's elastic operators follow
/// ([`Deployment::scaling`](super::Deployment::scaling), the `scaling`
/// key, `OHUA_SCALING`); [`Throughput`] by default.
///
/// As text: `throughput`, `p99=<n>ms` / `p99=<n>us` for a
/// [`LatencyGoal`], or `request-p99=<n>ms` with an optional
/// `,floor=<n>/s` for a [`RequestGoal`]. Two values are equal when they print the same
/// ([`ScalingPolicy::describe`]).
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::Scaling;
/// use std::time::Duration;
/// assert_eq!("p99=5ms".parse::<Scaling>().unwrap(), Scaling::p99(Duration::from_millis(5)));
/// assert_eq!(Scaling::default().to_string(), "throughput");
/// assert!("p99=fast".parse::<Scaling>().is_err());
/// ```
#[derive(Clone)]
pub struct Scaling(Arc<dyn ScalingPolicy>);

impl Scaling {
    /// DS2's rule ([`Throughput`]).
    pub fn throughput() -> Self {
        Scaling(Arc::new(Throughput))
    }

    /// A [`LatencyGoal`] of `p99`.
    pub fn p99(p99: Duration) -> Self {
        Scaling(Arc::new(LatencyGoal { p99 }))
    }

    /// A [`RequestGoal`]: `goal` for a request's whole path, split among
    /// the run's elastic operators; `RequestGoal::new(goal).floor(n)` adds a
    /// throughput floor.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_runtime::deploy::{RequestGoal, Scaling};
    /// use std::time::Duration;
    /// let sla = Scaling::request(RequestGoal::new(Duration::from_millis(20)).floor(5000.0));
    /// assert_eq!(sla, "request-p99=20ms,floor=5000/s".parse().unwrap());
    /// ```
    pub fn request(goal: RequestGoal) -> Self {
        Scaling(Arc::new(goal))
    }

    /// A policy of your own.
    pub fn custom(policy: impl ScalingPolicy + 'static) -> Self {
        Scaling(Arc::new(policy))
    }

    /// What the policy asks for, within `1..=load.lanes`.
    pub fn replicas(&self, load: &Load) -> usize {
        self.0.replicas(load).clamp(1, load.lanes.max(1))
    }
}

// A deployment crosses `catch_unwind` with the calls it configures (the
// tests and users wrap `with_deployment` in it). The policy is only asked,
// through `&self`, on a scatter: a panic inside a policy of the user's own
// ends that run like any operator's panic, and the next run asks it again.
impl std::panic::UnwindSafe for Scaling {}
impl std::panic::RefUnwindSafe for Scaling {}

impl Default for Scaling {
    fn default() -> Self {
        Scaling::throughput()
    }
}

impl fmt::Debug for Scaling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// What [`ScalingPolicy::describe`] says: `throughput`, `p99=<n>ms`, or a
/// custom policy's `Debug`.
impl fmt::Display for Scaling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.describe())
    }
}

/// A duration written with its unit: `5ms`, `1.5ms`, `800us`, `800µs`, `2s`.
fn parse_duration(s: &str) -> Option<Duration> {
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (n, unit) = s.split_at(split);
    let n: f64 = n.parse().ok()?;
    let nanos = match unit {
        "s" => n * 1e9,
        "ms" => n * 1e6,
        "µs" | "us" => n * 1e3,
        "ns" => n,
        _ => return None,
    };
    Some(Duration::from_nanos(nanos.round() as u64))
}

impl PartialEq for Scaling {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.to_string() == other.to_string()
    }
}

impl Eq for Scaling {}

impl FromStr for Scaling {
    type Err = DeployError;

    fn from_str(s: &str) -> Result<Self, DeployError> {
        let bad = |reason| DeployError::Value { key: "scaling".into(), value: s.to_string(), reason };
        let t = s.trim();
        if t == "throughput" {
            return Ok(Scaling::throughput());
        }
        let goal = |text: &str| {
            parse_duration(text.trim())
                .filter(|d| !d.is_zero())
                .ok_or_else(|| bad("expected a positive goal with a unit: `p99=5ms`, `p99=800us`"))
        };
        if let Some(rest) = t.strip_prefix("request-p99=") {
            let (p99, floor) = match rest.split_once(',') {
                Some((p99, floor)) => (p99, Some(floor.trim())),
                None => (rest, None),
            };
            let request = RequestGoal::new(goal(p99)?);
            let Some(floor) = floor else { return Ok(Scaling::request(request)) };
            let per_sec = floor
                .strip_prefix("floor=")
                .and_then(|f| f.trim().strip_suffix("/s"))
                .and_then(|n| n.trim().parse::<f64>().ok())
                .filter(|n| n.is_finite() && *n > 0.0)
                .ok_or_else(|| bad("expected a positive floor in items per second: `request-p99=20ms,floor=5000/s`"))?;
            return Ok(Scaling::request(request.floor(per_sec)));
        }
        let p99 = t
            .strip_prefix("p99=")
            .ok_or_else(|| bad("expected `throughput`, `p99=<n>ms` or `request-p99=<n>ms[,floor=<n>/s]`"))?;
        Ok(Scaling::p99(goal(p99)?))
    }
}

/// A policy that can be replaced while a run follows it: a service's
/// `Service::set_scaling` (the facade). The run's elastic operators ask it
/// once per window and fall back to the deployment's [`Scaling`] while it
/// holds none.
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::{LiveScaling, Scaling};
/// let live = LiveScaling::default();
/// assert!(live.get().is_none());
/// live.set(Scaling::p99(std::time::Duration::from_millis(2)));
/// assert_eq!(live.get().unwrap().to_string(), "p99=2ms");
/// ```
#[derive(Clone, Default)]
pub struct LiveScaling(Arc<Mutex<Option<Scaling>>>);

impl LiveScaling {
    /// Follow `scaling` from each operator's next window on.
    pub fn set(&self, scaling: Scaling) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(scaling);
    }

    /// The policy set last, if any.
    pub fn get(&self) -> Option<Scaling> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl fmt::Debug for LiveScaling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("LiveScaling").field(&self.get()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(items_per_sec: f64, ns_per_item: f64, active: usize, backlog: bool) -> Load {
        Load { lanes: 8, active, items_per_sec, ns_per_item, backlog, path_ns_per_item: ns_per_item }
    }

    #[test]
    fn a_loose_goal_uses_fewer_replicas_than_throughput_and_a_tight_one_more() {
        // 3,000 items/s of 0.5 ms: 1.5 replicas busy; throughput asks 2.
        let l = load(3000.0, 5e5, 1, false);
        assert_eq!(Throughput.replicas(&l), 2);
        assert_eq!(LatencyGoal { p99: Duration::from_millis(100) }.replicas(&l), 2, "97.7 % allowed, capped at 95 %");
        assert_eq!(LatencyGoal { p99: Duration::from_millis(50) }.replicas(&l), 2);
        assert_eq!(LatencyGoal { p99: Duration::from_millis(5) }.replicas(&l), 3, "54 % allowed");
        assert_eq!(LatencyGoal { p99: Duration::from_millis(3) }.replicas(&l), 7, "23 % allowed");
        // A goal no replica can meet (one item takes longer) keeps each
        // replica at most 10 % busy, within the lanes there are.
        assert_eq!(LatencyGoal { p99: Duration::from_micros(400) }.replicas(&l), 8);
    }

    #[test]
    fn a_latency_goal_follows_backlogs_and_gives_cores_back() {
        let goal = LatencyGoal { p99: Duration::from_millis(5) };
        assert_eq!(goal.replicas(&load(100.0, 5e5, 3, true)), 4, "a backlog: one more than used");
        assert_eq!(goal.replicas(&load(0.0, 5e5, 3, false)), 1, "nothing arrived");
        assert_eq!(goal.replicas(&load(500.0, 0.0, 3, false)), 3, "no cost measured yet");
    }

    #[test]
    fn scaling_prints_and_parses_back() {
        for text in
            ["throughput", "p99=5ms", "p99=800us", "p99=1500us", "request-p99=20ms", "request-p99=2ms,floor=800/s"]
        {
            let s: Scaling = text.parse().unwrap();
            assert_eq!(s.to_string(), text);
        }
        assert_eq!("p99=1.5ms".parse::<Scaling>().unwrap(), Scaling::p99(Duration::from_micros(1500)));
        assert_eq!(
            "request-p99=1.5ms, floor=1e3/s".parse::<Scaling>().unwrap(),
            Scaling::request(RequestGoal::new(Duration::from_micros(1500)).floor(1000.0))
        );
        for bad in [
            "",
            "latency",
            "p99=",
            "p99=5",
            "p99=0ms",
            "p99=-1ms",
            "p99=5 parsecs",
            "request-p99=",
            "request-p99=20",
            "request-p99=20ms,",
            "request-p99=20ms,floor=5000",
            "request-p99=20ms,floor=0/s",
            "request-p99=20ms,floor=fast/s",
            "request-p99=20ms,ceiling=5/s",
        ] {
            let e = bad.parse::<Scaling>().unwrap_err().to_string();
            assert!(e.contains("scaling"), "{bad}: {e}");
        }
    }

    #[test]
    fn answers_outside_the_lanes_are_clamped() {
        #[derive(Debug)]
        struct Wild(usize);
        impl ScalingPolicy for Wild {
            fn replicas(&self, _: &Load) -> usize {
                self.0
            }
        }
        assert_eq!(Scaling::custom(Wild(0)).replicas(&load(1.0, 1.0, 1, false)), 1);
        assert_eq!(Scaling::custom(Wild(99)).replicas(&load(1.0, 1.0, 1, false)), 8);
        assert_eq!(Scaling::custom(Wild(3)).to_string(), "Wild(3)");
    }
}
