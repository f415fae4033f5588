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
//! A section whose driver never parks (a busy pipeline) publishes when
//! the view asks ([`LiveCounts::ask_to_publish`], a few times a second):
//! the request rides on the run's abort flag, which the driver loads
//! anyway (`exec/live.rs`).
//!
//! How full each operator's input arcs are (back-pressure) is read from
//! the arcs themselves when the page asks ([`LiveCounts::queue_fill`]).
//! The run lends the view its arcs' gauges and its request hook for as
//! long as it runs ([`LiveCounts::watch`]).

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
    /// What the run lends while it runs ([`LiveCounts::watch`]).
    lent: Mutex<Lent>,
}

/// How the view asks a running run's busy sections to publish: the run
/// (`exec`, a layer above) implements it.
pub(crate) trait AskToPublish: Sync {
    /// Have each busy section publish at its next pass.
    fn ask_to_publish(&self);
}

/// A running run's arcs and request hook, without their lifetimes.
#[derive(Default)]
struct Lent {
    queues: Vec<Gauge<'static>>,
    run: Option<RunPtr>,
}

/// The run, lent to the view ([`LiveCounts::watch`]).
struct RunPtr(*const (dyn AskToPublish + 'static));

// SAFETY: `AskToPublish: Sync`, and the pointee outlives the loan
// (`LiveCounts::watch`).
unsafe impl Send for RunPtr {}

/// Lends the view a run's arcs and hook until dropped ([`LiveCounts::watch`]).
pub(crate) struct Watch(Arc<LiveCounts>);

impl Drop for Watch {
    fn drop(&mut self) {
        // Under the lock: no reader is in the middle of a gauge or a
        // request after this.
        *self.0.lent.lock().unwrap_or_else(|e| e.into_inner()) = Lent::default();
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
        LiveCounts { tasks: tasks.into(), first: first.into(), nodes, lent: Mutex::new(Lent::default()) }
    }

    /// Let the view read `gauges` and ask `run` to publish until the
    /// returned watch is dropped.
    ///
    /// # Safety
    ///
    /// The watch must be dropped (not leaked) before `'a` ends and while
    /// `run` is alive: both are kept without their lifetimes. A gauge
    /// that outlived its arc reads nothing (it is weak); one read while
    /// its arc's last end goes may drop the arc's leftover items on the
    /// reading thread, which is why the items' lifetime `'a` must still
    /// hold then.
    pub(crate) unsafe fn watch<'a>(self: &Arc<Self>, gauges: Vec<Gauge<'a>>, run: &(dyn AskToPublish + 'a)) -> Watch {
        // SAFETY (both): lifetime erasure only; see the contract above,
        // which `Watch::drop` completes under the lock.
        let queues = gauges
            .into_iter()
            .map(|(node, g)| (node, unsafe { std::mem::transmute::<Weak<dyn Fill + 'a>, Weak<dyn Fill>>(g) }))
            .collect();
        let run =
            unsafe { std::mem::transmute::<*const (dyn AskToPublish + 'a), *const (dyn AskToPublish + 'static)>(run) };
        *self.lent.lock().unwrap_or_else(|e| e.into_inner()) = Lent { queues, run: Some(RunPtr(run)) };
        Watch(self.clone())
    }

    /// Ask the run's busy sections to publish their counts (a parked one
    /// published before it parked).
    pub(crate) fn ask_to_publish(&self) {
        let lent = self.lent.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(run) = &lent.run {
            // SAFETY: lent until the watch's drop, which takes this lock.
            unsafe { &*run.0 }.ask_to_publish();
        }
    }

    /// Per operator, how full its fullest input arc is now (0.0 to 1.0),
    /// `None` for one with no arc watched (a fused link, a source, a run
    /// that ended).
    pub(crate) fn queue_fill(&self) -> Vec<Option<f64>> {
        let mut out = vec![None; self.nodes];
        let lent = self.lent.lock().unwrap_or_else(|e| e.into_inner());
        for (node, gauge) in lent.queues.iter() {
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
