//! Sampled time of each link of a fused chain, for the `auto` planner.
//!
//! A chain piece (`node/chain.rs`) runs several calls as one operator, and
//! the section driver times the operator, not its links. Spreading the
//! piece's time over its links by an earlier estimate keeps whatever
//! proportion that estimate had: a heavy call fused with a light one from
//! the first run on, and split evenly then, looked as heavy as the light one
//! in every later run. The `auto` planner then kept cutting after the pair
//! and never measured the heavy call alone (the flaky
//! `auto_cuts_after_the_expensive_stage_once_it_has_measured_it`).
//!
//! So a piece times each of its links on one item now and then
//! ([`PROBE_EVERY`], [`PROBE_ITEMS`]) and adds what it measured here when it is dropped at
//! the end of the run; [`super::learned::record`] splits the piece's time
//! in proportion to these samples.

use std::time::Duration;

use crate::sync::process::{Arc, Mutex};

/// A chain piece times its links on the first item of its first step that
/// finds a value, then on the first item of a step once [`PROBE_STEPS`]
/// steps and [`PROBE_ITEMS`] items have passed since the last probe, or
/// this many steps.
///
/// Why items as well as steps: a probe costs two clock reads per link
/// (about 1 µs for a piece of 20 links), and a cheap piece's steps may be
/// short. Probing one step in 16 cost `ohua-bench chain`'s one-section
/// piece of 20 links 0.25 ns per operator and item (1.40-1.45 against
/// 1.13-1.20 ns). A costly piece (one item a step) is still probed every
/// 256 items.
pub(crate) const PROBE_EVERY: u32 = 256;

/// Steps between probes of a piece whose steps are large.
pub(crate) const PROBE_STEPS: u32 = 16;

/// Items between probes of a piece whose steps are large.
pub(crate) const PROBE_ITEMS: usize = 8192;

/// Sampled busy nanoseconds per node id of a run's graph (zero for nodes
/// that are not links of a chain, or were never probed). One per run,
/// shared by the run's chain pieces, each of which adds to it once.
#[derive(Clone, Default)]
pub struct LinkTimes(Arc<Mutex<Vec<u64>>>);

impl LinkTimes {
    /// An empty sink for a graph of `nodes` nodes.
    pub(crate) fn new(nodes: usize) -> Self {
        LinkTimes(Arc::new(Mutex::new(vec![0; nodes])))
    }

    /// Add a piece's samples: `ids[k]` was busy `ns[k]` nanoseconds on the
    /// items it was probed on.
    pub(crate) fn add(&self, ids: &[usize], ns: &[u64]) {
        let mut all = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for (&id, &t) in ids.iter().zip(ns) {
            if let Some(slot) = all.get_mut(id) {
                *slot += t;
            }
        }
    }

    /// The samples so far, per node id.
    pub(crate) fn get(&self) -> Vec<u64> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

/// Nanoseconds of `d`, saturating (a probe never lasts 584 years).
pub(crate) fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
