//! One control marker: what it carries, and how far it has travelled.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use std::sync::Arc;

use super::checkpoint::{Checkpoint, SavedState, StateKinds};
use super::handoff::Handoff;
use super::regroup::Regroup;
use super::slot::Replacement;
use super::state::Transform;

/// What a marker does at the operators it passes.
pub enum Action {
    /// Nothing: measures how long a marker takes to cross the graph (the
    /// baseline of an update's cost).
    NoOp,
    /// Nothing, inserted right *after* the item the loop took last: when
    /// every operator has passed it, they are done with that item, so
    /// from its cut to its completion is that request's latency through
    /// the graph. The live view sends one at a time into a running
    /// service (its latency plot, `live/book.rs`); a run's report does not
    /// list them ([`super::Control::reports`]).
    Probe,
    /// Replace functions and transform states: every operator the marker
    /// passes transforms the states it holds that a transform applies to
    /// and adopts the replacements that apply to it (all of them, or those
    /// addressed to its name), so the iterations after the cut call the new
    /// functions on the new states and the ones before it the old ones.
    Update(Changes),
    /// Save the states of these types that operators hold across the cut
    /// (a checkpoint, `checkpoint.rs`).
    Checkpoint(StateKinds),
    /// Put a checkpoint's states in place of those the operators hold (sent
    /// before a service's first item).
    Restore(Box<(Checkpoint, StateKinds)>),
    /// The old run of a replaced algorithm (`handoff.rs`): its loops take
    /// no item after the cut and release the source; its operators save
    /// the states of the hand-over's types and deposit them.
    Handover(Arc<Handoff>),
    /// The new run of a replaced algorithm (sent before its first item):
    /// its loops wait for the old run to release the source; its operators
    /// take the old states of their types.
    Takeover(Arc<Handoff>),
    /// Move key groups, with their state, between the replicas of keyed
    /// calls (`regroup.rs`): the calls it names route by the new groups
    /// from the cut on.
    Regroup(Regroup),
}

/// What an update changes (see [`Action::Update`]).
///
/// # Example
///
/// ```
/// use ohua_runtime::update::{Action, Changes};
/// let a = Action::Update(Changes::default());
/// assert_eq!(format!("{a:?}"), "Update { replace: [], transform: [] }");
/// ```
#[derive(Clone, Default, Debug)]
pub struct Changes {
    /// Function replacements, adopted together.
    pub replacements: Vec<Replacement>,
    /// State transforms, applied before the replacements are adopted.
    pub transforms: Vec<Transform>,
}

impl std::fmt::Debug for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Action::NoOp => f.write_str("NoOp"),
            Action::Probe => f.write_str("Probe"),
            Action::Update(c) => f
                .debug_struct("Update")
                .field("replace", &c.replacements.iter().map(Replacement::describe).collect::<Vec<_>>())
                .field("transform", &c.transforms.iter().map(Transform::describe).collect::<Vec<_>>())
                .finish(),
            Action::Checkpoint(kinds) => f.debug_tuple("Checkpoint").field(kinds).finish(),
            Action::Restore(r) => write!(f, "Restore({} states)", r.0.states.len()),
            Action::Handover(h) => f.debug_tuple("Handover").field(h.kinds()).finish(),
            Action::Takeover(h) => f.debug_tuple("Takeover").field(h.kinds()).finish(),
            Action::Regroup(r) => write!(f, "Regroup({})", r.describe()),
        }
    }
}

/// What an operator did with the action of a marker that passed it.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Nothing applied to it.
    Nothing,
    /// It adopted replacements and applied the transforms numbered
    /// `transforms` (positions in [`Changes::transforms`]), maybe none.
    Adopted { transforms: Vec<usize> },
    /// A transform failed or panicked: the operator kept its old state and
    /// functions.
    Rejected { operator: &'static str, message: String },
    /// It saved these states (a checkpoint).
    Saved(Vec<SavedState>),
    /// It restored the states a checkpoint saved for operator `operator`.
    Restored { operator: &'static str },
}

/// An operator that refused an update because a state transform failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The operator's node id.
    pub node: usize,
    /// The operator's name (`algorithm/function#callsite`).
    pub operator: String,
    /// The transform's error, or its panic message.
    pub message: String,
}

/// Why a marker did not complete.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MarkError {
    /// The run ended before the marker had crossed it: no loop was running
    /// to insert it, or the loops ended while it was in flight. Operators it
    /// reached keep what they adopted.
    #[error("the service ended before the marker reached every operator")]
    NotReached,
    /// A state transform failed or panicked at some operators. Each of them
    /// kept its old state and functions; operators without a failing
    /// transform adopted the update (the report says which).
    #[error("the update was rejected: {}", rejections.iter().map(|r| format!("{}: {}", r.operator, r.message)).collect::<Vec<_>>().join("; "))]
    Rejected {
        /// Where and why.
        rejections: Vec<Rejection>,
        /// How the marker travelled.
        report: Box<MarkReport>,
    },
    /// A state transform found no operator holding a state of its type
    /// (among those it was addressed to) anywhere the marker went: the
    /// state is not held by an operator of the service's loops (it is
    /// created inside the loop), or the name is wrong. Replacements of the same update were adopted.
    #[error("no operator the update reached holds a `{state}` state to transform{}", snapshot_hint(.state))]
    NoState {
        /// The transform's state type (and operator, if addressed).
        state: String,
        /// How the marker travelled.
        report: Box<MarkReport>,
    },
    /// A rescaling reached no keyed call with replicas that it names: the
    /// call is not on a keyed state, its plan gave it no replicas, or the
    /// name is wrong (the run's report lists the operators).
    #[error("no keyed call with replicas ({what}) was reached: nothing was rescaled")]
    NotRescaled {
        /// The rescaling asked for.
        what: String,
        /// How the marker travelled.
        report: Box<MarkReport>,
    },
    /// A bounded wait (`checkpoint_timeout`, `restore_timeout`) gave up
    /// after `after`. The marker stays requested: a loop whose source
    /// waits for its next item still makes the cut when the item comes.
    #[error("gave up after {after:?}: the marker had not reached every operator (is the source waiting for an item?)")]
    TimedOut {
        /// How long the wait lasted.
        after: Duration,
    },
}

/// How a completed marker travelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkReport {
    /// The marker's number in its run (in request order; with the live
    /// view on, its latency probes take numbers too).
    pub id: u32,
    /// When it was requested.
    pub requested: Instant,
    /// From the request until a loop entry inserted it (the cut).
    pub until_cut: Duration,
    /// From the request until the last operator had seen it.
    pub until_complete: Duration,
    /// Operators (node ids) that saw it, with the time since the request.
    pub reached: Vec<(usize, Duration)>,
    /// Operators (node ids) that adopted the update (function replacements,
    /// state transforms).
    pub adopted: Vec<usize>,
    /// Operators (node ids) that transformed a state.
    pub transformed: Vec<usize>,
    /// Per top-level loop entry (node id): the items it had taken before
    /// the cut.
    pub cut: Vec<(usize, u64)>,
    /// The states a checkpoint marker saved, by operator and position.
    pub saved: Vec<SavedState>,
}

impl MarkReport {
    /// The items the service's loop had taken before the cut (the first
    /// top-level loop's, as [`Checkpoint::items_before`]): the update
    /// applied from the next item on. [`MarkReport::cut`] has them per
    /// loop entry, by node id.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use ohua_runtime::update::MarkReport;
    /// let report = MarkReport {
    ///     id: 0,
    ///     requested: std::time::Instant::now(),
    ///     until_cut: Duration::ZERO,
    ///     until_complete: Duration::ZERO,
    ///     reached: vec![],
    ///     adopted: vec![],
    ///     transformed: vec![],
    ///     cut: vec![(4, 17)], // loop entry 4 had taken 17 items
    ///     saved: vec![],
    /// };
    /// assert_eq!(report.items_before(), 17);
    /// ```
    pub fn items_before(&self) -> u64 {
        self.cut.first().map_or(0, |c| c.1)
    }
}

#[derive(Debug)]
enum Phase {
    Pending,
    Complete,
    Failed,
}

#[derive(Debug)]
struct Progress {
    phase: Phase,
    /// Copies of the marker pushed into arcs and not yet taken out.
    in_flight: i64,
    inserted: Option<Duration>,
    complete: Option<Duration>,
    reached: Vec<(usize, Duration)>,
    adopted: Vec<usize>,
    transformed: Vec<usize>,
    /// Per transform of the action: how many states it replaced.
    applied: Vec<usize>,
    rejections: Vec<Rejection>,
    cut: Vec<(usize, u64)>,
    saved: Vec<SavedState>,
    restored: Vec<&'static str>,
    /// A probe that went ahead of the item it should have followed
    /// ([`Marker::went_ahead`]).
    ahead: bool,
}

/// A requested marker: its action, and its progress through the run.
///
/// Completion is counted: a loop entry that inserts the marker adds the
/// number of arcs it pushed it into; an operator that passes it adds the
/// arcs it forwards it into and subtracts the ones it took it from, before
/// the forwarded copies are published (a section publishes after the step).
/// When the count is back at zero after an insertion, no arc holds the
/// marker and every operator it will reach has seen it.
#[derive(Debug)]
pub struct Marker {
    id: u32,
    /// Stands for markers the control forgot ([`Marker::spent`]).
    spent: bool,
    action: Action,
    requested: Instant,
    progress: Mutex<Progress>,
    done: Condvar,
}

impl Marker {
    pub(crate) fn new(id: u32, action: Action) -> Self {
        let progress = Progress {
            phase: Phase::Pending,
            in_flight: 0,
            inserted: None,
            complete: None,
            reached: Vec::new(),
            adopted: Vec::new(),
            transformed: Vec::new(),
            applied: match &action {
                Action::Update(c) => vec![0; c.transforms.len()],
                _ => Vec::new(),
            },
            rejections: Vec::new(),
            cut: Vec::new(),
            saved: Vec::new(),
            restored: Vec::new(),
            ahead: false,
        };
        Marker {
            id,
            spent: false,
            action,
            requested: Instant::now(),
            progress: Mutex::new(progress),
            done: Condvar::new(),
        }
    }

    /// What [`super::Control::marker`] answers for a probe it forgot after
    /// it completed (a second loop of the service may still insert it):
    /// a probe that records nothing and never completes again.
    pub(crate) fn spent() -> Self {
        let mut m = Marker::new(u32::MAX, Action::Probe);
        m.spent = true;
        m.progress.get_mut().unwrap_or_else(|e| e.into_inner()).phase = Phase::Complete;
        m
    }

    /// A probe went into the graph ahead of the item the loop held, not
    /// after it: a marker requested after the probe had to go before that
    /// item (an update requested while the loop waited applies to the next
    /// request). Its time is no item's latency.
    pub(crate) fn went_ahead(&self) {
        self.lock().ahead = true;
    }

    /// Whether a probe followed an item through the graph, so that its
    /// time from the cut to completion is that item's latency (see
    /// [`Action::Probe`]).
    pub fn timed_an_item(&self) -> bool {
        !self.lock().ahead
    }

    /// Whether it is a probe that completed: its report was taken and the
    /// control may forget it.
    pub(crate) fn is_spent_probe(&self) -> bool {
        matches!(self.action, Action::Probe) && !matches!(self.lock().phase, Phase::Pending)
    }

    /// The marker's number in its run.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Whether a loop entry has inserted it (the cut exists). A finished
    /// run has drained every arc, so such a marker has completed unless the
    /// run was aborted by a panic.
    pub fn was_inserted(&self) -> bool {
        self.lock().inserted.is_some()
    }

    /// What it carries.
    pub fn action(&self) -> &Action {
        &self.action
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Loop entry `node`, which had taken `items` items, inserted the
    /// marker into `arcs` arcs.
    pub(crate) fn inserted(&self, node: usize, items: u64, arcs: usize) {
        if self.spent {
            return;
        }
        let mut p = self.lock();
        p.cut.push((node, items));
        if p.inserted.is_none() {
            let after = self.requested.elapsed();
            p.inserted = Some(after);
            tracing::debug!(target: "ohua::update", marker = self.id, action = ?self.action, cut_after_us = after.as_micros() as u64, "marker inserted: the cut");
        }
        p.in_flight += arcs as i64;
        self.settle(&mut p);
    }

    /// Operator `node` took the marker from `consumed` arcs, forwarded it
    /// into `forwarded` arcs and did `outcome` with its action.
    pub(crate) fn passed(&self, node: usize, consumed: usize, forwarded: usize, outcome: Outcome) {
        if self.spent {
            return;
        }
        let mut p = self.lock();
        p.in_flight += forwarded as i64 - consumed as i64;
        p.reached.push((node, self.requested.elapsed()));
        match outcome {
            Outcome::Nothing => {}
            Outcome::Adopted { transforms } => {
                // Once per operator (a keyed scatter sees a marker in its
                // data and its state stream).
                if !p.adopted.contains(&node) {
                    p.adopted.push(node);
                }
                if !transforms.is_empty() {
                    p.transformed.push(node);
                }
                for t in transforms {
                    p.applied[t] += 1;
                }
            }
            Outcome::Rejected { operator, message } => {
                tracing::warn!(target: "ohua::update", marker = self.id, operator, %message, "a state transform failed: the operator keeps its old version");
                p.rejections.push(Rejection { node, operator: operator.to_string(), message });
            }
            Outcome::Saved(states) => p.saved.extend(states),
            Outcome::Restored { operator } => p.restored.push(operator),
        }
        self.settle(&mut p);
    }

    fn settle(&self, p: &mut Progress) {
        if p.in_flight == 0 && p.inserted.is_some() && matches!(p.phase, Phase::Pending) {
            p.phase = Phase::Complete;
            let after = self.requested.elapsed();
            p.complete = Some(after);
            tracing::info!(
                target: "ohua::update",
                marker = self.id,
                action = ?self.action,
                cut_after_us = p.inserted.unwrap_or_default().as_micros() as u64,
                complete_after_us = after.as_micros() as u64,
                operators = p.reached.len(),
                adopted = p.adopted.len(),
                "marker reached every operator"
            );
            self.done.notify_all();
        }
    }

    /// The run ended: a marker still pending fails.
    pub(crate) fn fail_unreached(&self) {
        let mut p = self.lock();
        if matches!(p.phase, Phase::Pending) {
            p.phase = Phase::Failed;
            tracing::warn!(target: "ohua::update", marker = self.id, action = ?self.action, "the run ended before the marker reached every operator");
            self.done.notify_all();
        }
    }

    /// Wait until the marker has reached every operator it will reach.
    ///
    /// # Errors
    ///
    /// [`MarkError::NotReached`] if the run ended first.
    pub fn wait(&self) -> Result<MarkReport, MarkError> {
        let mut p = self.lock();
        while matches!(p.phase, Phase::Pending) {
            p = self.done.wait(p).unwrap_or_else(|e| e.into_inner());
        }
        self.report(&p)
    }

    /// As [`Marker::wait`], giving up after `timeout` (`None`: still pending).
    ///
    /// # Errors
    ///
    /// As [`Marker::wait`].
    pub fn wait_timeout(&self, timeout: Duration) -> Option<Result<MarkReport, MarkError>> {
        let p = self.lock();
        let (p, _) = self
            .done
            .wait_timeout_while(p, timeout, |p| matches!(p.phase, Phase::Pending))
            .unwrap_or_else(|e| e.into_inner());
        match p.phase {
            Phase::Pending => None,
            _ => Some(self.report(&p)),
        }
    }

    /// The report, if the marker has completed.
    pub fn completed(&self) -> Option<MarkReport> {
        let p = self.lock();
        match p.phase {
            Phase::Complete => Some(match self.report(&p) {
                Ok(r) => r,
                Err(
                    MarkError::Rejected { report, .. }
                    | MarkError::NoState { report, .. }
                    | MarkError::NotRescaled { report, .. },
                ) => *report,
                Err(MarkError::NotReached | MarkError::TimedOut { .. }) => return None,
            }),
            _ => None,
        }
    }

    fn report(&self, p: &Progress) -> Result<MarkReport, MarkError> {
        if let Phase::Failed = p.phase {
            return Err(MarkError::NotReached);
        }
        let report = MarkReport {
            id: self.id,
            requested: self.requested,
            until_cut: p.inserted.unwrap_or_default(),
            until_complete: p.complete.unwrap_or_default(),
            reached: p.reached.clone(),
            adopted: p.adopted.clone(),
            transformed: p.transformed.clone(),
            cut: {
                let mut cut = p.cut.clone();
                cut.sort_unstable();
                cut
            },
            saved: {
                let mut saved = p.saved.clone();
                saved.sort_by(|a, b| (&a.operator, a.position).cmp(&(&b.operator, b.position)));
                saved
            },
        };
        if !p.rejections.is_empty() {
            return Err(MarkError::Rejected { rejections: p.rejections.clone(), report: Box::new(report) });
        }
        let unused = match &self.action {
            Action::Update(c) => c.transforms.iter().zip(&p.applied).find(|(_, n)| **n == 0).map(|(t, _)| t.describe()),
            Action::Restore(r) => r.0.states.iter().find(|s| !p.restored.contains(&s.operator.as_str())).map(|s| {
                format!("{} (saved at {} position {}; no such operator holds one)", s.state, s.operator, s.position)
            }),
            Action::Checkpoint(kinds) => kinds
                .names()
                .into_iter()
                .find(|n| !p.saved.iter().any(|s| s.state == *n))
                .map(|n| format!("{n} (to save)")),
            Action::Regroup(r) if p.adopted.is_empty() => {
                return Err(MarkError::NotRescaled { what: r.describe(), report: Box::new(report) })
            }
            Action::NoOp | Action::Probe | Action::Handover(_) | Action::Takeover(_) | Action::Regroup(_) => None,
        };
        match unused {
            Some(state) => Err(MarkError::NoState { state, report: Box::new(report) }),
            None => Ok(report),
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::{Action, MarkError, Outcome};
    use crate::update::Control;

    /// Taken by every test here. `cuts_completions_and_failures_are_traced`
    /// sets a subscriber for its thread, and `tracing` caches per call site
    /// whether any subscriber wants its events: a call site that another
    /// test's thread reaches for the first time while that subscriber is set
    /// up can be cached as wanted by none, and its event is lost (that test
    /// failed about one run in eight beside the other two).
    fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        static TRACED: Mutex<()> = Mutex::new(());
        TRACED.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[test]
    fn a_marker_completes_only_when_every_copy_in_flight_has_been_taken() {
        let _turn = one_at_a_time();
        let control = Control::new();
        let m = control.request(Action::NoOp);
        assert!(!m.was_inserted());
        m.inserted(1, 0, 2); // a loop entry's elements and ticks
        m.passed(5, 1, 2, Outcome::Nothing); // an operator with two consumers
        m.passed(6, 1, 0, Outcome::Nothing); // the ticks end at a collect
        assert_eq!(m.wait_timeout(Duration::ZERO), None, "two copies are still in arcs");
        m.passed(7, 1, 0, Outcome::Nothing);
        m.passed(8, 1, 0, Outcome::Adopted { transforms: vec![] });
        let report = m.wait().expect("complete");
        assert_eq!(report.reached.iter().map(|r| r.0).collect::<Vec<_>>(), vec![5, 6, 7, 8]);
        assert_eq!(report.adopted, vec![8]);
        assert!(report.until_cut <= report.until_complete);
        // The end of the run does not undo a completed marker.
        control.finish();
        assert!(m.wait().is_ok());
        assert_eq!(control.reports(), vec![report]);
    }

    #[test]
    fn markers_the_run_could_not_carry_fail_when_it_ends_and_later_ones_at_once() {
        let _turn = one_at_a_time();
        let control = Control::new();
        let never_inserted = control.request(Action::NoOp);
        let in_flight = control.request(Action::NoOp);
        in_flight.inserted(1, 0, 1);
        control.finish();
        assert_eq!(never_inserted.wait(), Err(MarkError::NotReached));
        assert_eq!(in_flight.wait(), Err(MarkError::NotReached));
        assert_eq!(control.request(Action::NoOp).wait(), Err(MarkError::NotReached));
        assert!(control.reports().is_empty());
    }

    #[test]
    fn cuts_completions_and_failures_are_traced() {
        let _turn = one_at_a_time();
        #[derive(Clone, Default)]
        struct Buffer(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Buffer {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::DEBUG)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let control = Control::new();
            let done = control.request(Action::NoOp);
            done.inserted(1, 0, 1);
            done.passed(3, 1, 0, Outcome::Nothing);
            control.request(Action::NoOp);
            control.finish();
        });
        let log = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        assert!(log.contains("marker inserted: the cut") && log.contains("marker=0"), "{log}");
        assert!(log.contains("marker reached every operator") && log.contains("operators=1"), "{log}");
        assert!(
            log.contains("the run ended before the marker reached every operator") && log.contains("marker=1"),
            "{log}"
        );
    }
}

/// For [`MarkError::NoState`]: a state declared with `ohua::snapshot(..)`
/// is held as a `Snapshot<T>`, which a list of `T` does not name.
/// (`state` is the type's name, then what was done with it, in brackets.)
fn snapshot_hint(state: &str) -> String {
    let ty = state.split(" (").next().unwrap_or(state);
    if ty.contains("Snapshot<") {
        String::new()
    } else {
        format!("; if it is declared with `ohua::snapshot(..)`, its operator holds an `ohua::Snapshot<{ty}>`: list that type")
    }
}
