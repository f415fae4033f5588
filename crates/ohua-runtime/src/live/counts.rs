//! What a run's sections publish while it runs, for the live view: per
//! task (an operator, a replica), its firings and estimated busy time so
//! far. Only a run that started while a view was on has one; its sections
//! store into it before they park (`exec/live.rs`), so the step path pays
//! nothing.
//!
//! Each task has its own entry, indexed by its section and its place
//! there, and its driver *stores* the task's totals (no running sums kept
//! by the driver): a task stepped by another thread after a re-cut or a
//! rescue is published right by whichever thread steps it, and the
//! counters the step path touches keep their size (16 more bytes per task
//! there cost `chain` 15-70 %, BENCHMARKS.md "Live view").
//!
//! How full each operator's input arcs are (back-pressure) is read from
//! the arcs themselves when the page asks ([`LiveCounts::queue_fill`]):
//! the run lends the view a gauge per arc for as long as it runs
//! ([`LiveCounts::watch_queues`]).

use std::sync::Weak;
use std::time::Duration;

use crate::arc::Fill;
use crate::sync::process::{Arc, AtomicU64, Mutex, Ordering};

/// An arc as the view watches it: the operator it feeds, and a gauge of
/// its fill that does not keep it alive (`arc::Receiver::gauge`).
pub(crate) type Gauge<'a> = (usize, Weak<dyn Fill + 'a>);

/// One task's published totals.
struct Published {
    /// The operator it counts for, if its work is the operator's (not a
    /// replicated operator's scatter, not a merge).
    node: Option<usize>,
    firings: AtomicU64,
    busy_ns: AtomicU64,
}

/// The published totals of a running run's tasks.
pub(crate) struct LiveCounts {
    tasks: Box<[Published]>,
    /// Per section, the index of its first task in `tasks`.
    first: Box<[usize]>,
    nodes: usize,
    /// The run's arcs while it runs ([`LiveCounts::watch_queues`]).
    queues: Mutex<Vec<Gauge<'static>>>,
}

/// Lends the view a run's arcs until dropped ([`LiveCounts::watch_queues`]).
pub(crate) struct QueueWatch(Arc<LiveCounts>);

impl Drop for QueueWatch {
    fn drop(&mut self) {
        // Under the lock: no reader is in the middle of a gauge after this.
        self.0.queues.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

impl LiveCounts {
    /// Zero totals for a run of `nodes` operators whose sections hold the
    /// tasks `sections` lists (per task: the operator it counts for, if
    /// any).
    pub(crate) fn new(nodes: usize, sections: Vec<Vec<Option<usize>>>) -> Self {
        let mut first = Vec::with_capacity(sections.len());
        let mut tasks = Vec::new();
        for section in sections {
            first.push(tasks.len());
            tasks.extend(section.into_iter().map(|node| Published {
                node,
                firings: AtomicU64::new(0),
                busy_ns: AtomicU64::new(0),
            }));
        }
        LiveCounts { tasks: tasks.into(), first: first.into(), nodes, queues: Mutex::new(Vec::new()) }
    }

    /// Let the view read `gauges` until the returned watch is dropped.
    ///
    /// # Safety
    ///
    /// The watch must be dropped (not leaked) before `'a` ends: the gauges
    /// are kept without their lifetime. A gauge that outlived its arc
    /// reads nothing (it is weak); one read while its arc's last end goes
    /// may drop the arc's leftover items on the reading thread, which is
    /// why the items' lifetime `'a` must still hold then.
    pub(crate) unsafe fn watch_queues<'a>(self: &Arc<Self>, gauges: Vec<Gauge<'a>>) -> QueueWatch {
        let gauges = gauges
            .into_iter()
            // SAFETY: lifetime erasure only; see the contract above, which
            // `QueueWatch::drop` completes by dropping them under the lock.
            .map(|(node, g)| (node, unsafe { std::mem::transmute::<Weak<dyn Fill + 'a>, Weak<dyn Fill>>(g) }))
            .collect();
        *self.queues.lock().unwrap_or_else(|e| e.into_inner()) = gauges;
        QueueWatch(self.clone())
    }

    /// Per operator, how full its fullest input arc is now (0.0 to 1.0),
    /// `None` for one with no arc watched (a fused link, a source, a run
    /// that ended).
    pub(crate) fn queue_fill(&self) -> Vec<Option<f64>> {
        let mut out = vec![None; self.nodes];
        let queues = self.queues.lock().unwrap_or_else(|e| e.into_inner());
        for (node, gauge) in queues.iter() {
            let (Some(slot), Some(arc)) = (out.get_mut(*node), gauge.upgrade()) else { continue };
            let fill = arc.fill();
            *slot = Some(slot.map_or(fill, |f: f64| f.max(fill)));
        }
        out
    }

    /// Task `task` of section `section` has fired `firings` times so far,
    /// working `busy_ns`.
    pub(crate) fn store(&self, section: usize, task: usize, firings: u64, busy_ns: u64) {
        let Some(p) = self.first.get(section).and_then(|f| self.tasks.get(f + task)) else {
            return;
        };
        if p.node.is_some() {
            p.firings.store(firings, Ordering::Relaxed);
            p.busy_ns.store(busy_ns, Ordering::Relaxed);
        }
    }

    /// Per operator, its tasks' firings and busy time so far.
    pub(crate) fn totals(&self) -> Vec<(u64, Duration)> {
        let mut out = vec![(0, Duration::ZERO); self.nodes];
        for p in self.tasks.iter() {
            if let Some(t) = p.node.and_then(|n| out.get_mut(n)) {
                t.0 += p.firings.load(Ordering::Relaxed);
                t.1 += Duration::from_nanos(p.busy_ns.load(Ordering::Relaxed));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operator_sums_its_tasks_and_a_store_replaces_the_last() {
        // Section 0: operator 0, the scatter of 1 (not counted); section 1: a replica of 1.
        let c = LiveCounts::new(2, vec![vec![Some(0), None], vec![Some(1)]]);
        c.store(0, 0, 5, 50);
        c.store(0, 0, 7, 70);
        c.store(0, 1, 100, 100);
        c.store(1, 0, 3, 30);
        c.store(9, 0, 1, 1);
        assert_eq!(c.totals(), vec![(7, Duration::from_nanos(70)), (3, Duration::from_nanos(30))]);
    }
}
