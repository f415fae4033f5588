//! Following the load (`Opening::Load`): once per [`WINDOW`] in which items
//! arrived, a scatter asks its scaling policy how many replicas the window's
//! arrivals and the measured cost per item call for, and sets its
//! [`Elastic`] handle's open lanes to match (`node/elastic.rs`). A
//! stateless scatter deals to the open lanes; a keyed one moves its key
//! groups onto them with a rescaling marker (`node/keyed.rs`).

use std::time::Instant;

use crate::deploy::Load;

use super::elastic::{Elastic, WINDOW};

/// Windows in a row that must ask for fewer lanes before one closes.
///
/// Why: the arrivals one 20 ms window sees vary more than a policy's
/// headroom, and a policy near its threshold then closed and reopened a
/// lane every other window (`ohua-bench elastic`: the `p99=5ms` policy
/// changed its replicas 8-18 times over 5 load steps). Opening stays
/// immediate: a lane opened too early costs a parked thread's wake-up, one
/// closed too early costs latency.
pub(super) const CLOSE_AFTER: u32 = 2;

/// Arrivals at a scatter whose replicas follow the load, over one
/// [`WINDOW`].
pub(super) struct LoadWindow {
    start: Instant,
    dealt: u64,
    /// Every open lane was full while an item waited.
    backlog: bool,
    /// Windows in a row, up to this one, whose policy asked for fewer
    /// lanes than were open.
    fewer_asked: u32,
}

impl LoadWindow {
    /// A window for `elastic`, if its lanes follow the load.
    pub(super) fn for_elastic(elastic: Option<&Elastic>) -> Option<Self> {
        elastic.filter(|e| e.opening() == crate::deploy::Opening::Load).map(|_| LoadWindow::new())
    }

    fn new() -> Self {
        LoadWindow { start: Instant::now(), dealt: 0, backlog: false, fewer_asked: 0 }
    }

    /// Count what a step dealt and, once the window is over, open or close
    /// `e`'s lanes as the deployment's scaling policy (`deploy::Scaling`)
    /// says.
    pub(super) fn follow(&mut self, e: &Elastic, dealt: u64, backlog: bool) {
        self.dealt += dealt;
        self.backlog |= backlog;
        if dealt == 0 && !backlog {
            return;
        }
        let secs = self.start.elapsed().as_secs_f64();
        if secs < WINDOW.as_secs_f64() {
            return;
        }
        let load = Load {
            lanes: e.lanes(),
            active: e.active(),
            items_per_sec: self.dealt as f64 / secs,
            ns_per_item: e.ns_per_item() as f64,
            backlog: self.backlog,
            path_ns_per_item: e.path_ns_per_item() as f64,
        };
        let policy = e.scaling();
        let need = policy.replicas(&load);
        let fewer_asked = if need < load.active { self.fewer_asked + 1 } else { 0 };
        if need > load.active || fewer_asked >= CLOSE_AFTER {
            tracing::debug!(?load, need, %policy, "ohua: elastic replicas follow the load");
            e.decided(&load, need);
            e.set_active(need);
        }
        *self = LoadWindow::new();
        self.fewer_asked = if need < load.active { fewer_asked % CLOSE_AFTER } else { 0 };
    }
}
