//! Rescaling a keyed call live: a marker that moves key groups, with their
//! state, between the replicas of a call on a keyed state.
//!
//! At the cut, the call's keyed scatter starts routing by the new groups;
//! each replica hands its part of the state back to the scatter when the
//! marker reaches it (after every item routed to it before the cut); the
//! scatter merges the parts, splits the state by the new groups and sends
//! each replica its new part. A replica takes no item after the cut before
//! its new part has come, so every key's calls stay in sequential order
//! across the move and no call sees a part without its key's state. The
//! protocol is drawn in `node/README.md` ("Moving key groups").

use super::slot::{addressed_to, describe_at};

/// Spread the key groups of keyed calls over `replicas` of their replicas
/// (at most the replicas their plan gave them; the others keep empty parts
/// and get no item), balanced by the items each group has had so far.
///
/// # Example
///
/// ```
/// use ohua_runtime::update::Regroup;
/// let r = Regroup::new(2).at("serve/count#3");
/// assert!(r.applies_to("serve/count#3"));
/// assert!(!r.applies_to("serve/log#4"));
/// assert_eq!(r.describe(), "2 replicas at serve/count#3");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Regroup {
    replicas: usize,
    at: Option<String>,
}

impl Regroup {
    /// Every keyed call with replicas, onto `replicas` of them (0 counts as
    /// 1).
    pub fn new(replicas: usize) -> Self {
        Regroup { replicas: replicas.max(1), at: None }
    }

    /// Only the keyed call named `operator` (its name in the run's report,
    /// as `serve/count#3`).
    pub fn at(mut self, operator: impl Into<String>) -> Self {
        self.at = Some(operator.into());
        self
    }

    /// The replicas asked for.
    pub fn replicas(&self) -> usize {
        self.replicas
    }

    /// Whether the operator named `operator` rescales.
    pub fn applies_to(&self, operator: &str) -> bool {
        addressed_to(&self.at, operator)
    }

    /// `N replicas` or `N replicas at operator`, for reports.
    pub fn describe(&self) -> String {
        describe_at(&format!("{} replicas", self.replicas), &self.at)
    }
}
