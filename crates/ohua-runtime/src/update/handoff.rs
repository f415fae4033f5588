//! Replacing a service's whole algorithm at one cut (dissertation §5.5):
//! the old run stops taking items at the cut and hands its states over by
//! type; the new run starts taking items only once the old one has stopped,
//! and each of its operators takes the old state of its type before its
//! first item.
//!
//! The two runs share the source (each holds its own handle to the same
//! channel or listener), so nothing is moved between them but the states:
//! the old run's loop entry inserts an [`super::Action::Handover`] marker
//! after the last item it takes and ends its loop, then *releases* the
//! source; the new run's loop entry inserts an [`super::Action::Takeover`]
//! marker before its first item and waits for the release before it calls
//! `next()`. Every item before the cut runs entirely on the old version,
//! every item after it entirely on the new one, and both versions run at
//! the same time meanwhile: no drain.
//!
//! States move as a checkpoint's do (JSON, the types in [`StateKinds`]),
//! but by type instead of by operator name (the two algorithms name their
//! operators differently): the old run's operators *deposit* what they save
//! at the cut; an operator of the new run that holds a state of a listed
//! type waits until a deposit of that type is there (or the old run's marker
//! has passed everywhere without one) and puts it in place. So a new
//! operator waits only for the old operator of its state, not for the whole
//! old run.

use crate::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::checkpoint::{SavedState, StateKinds};
use super::state::VisitStates;

/// What the old and the new run of a replaced service share (see the module
/// docs).
///
/// # Example
///
/// ```
/// use ohua_runtime::update::{Handoff, StateKinds};
/// let h = Handoff::new(StateKinds::new());
/// assert!(!h.is_released());
/// h.close(); // the old run is done: it releases the source too
/// assert!(h.is_released());
/// h.wait_released();
/// assert!(h.unclaimed().is_empty());
/// ```
pub struct Handoff {
    kinds: StateKinds,
    inner: Mutex<Inner>,
    changed: Condvar,
}

#[derive(Default)]
struct Inner {
    released: bool,
    closed: bool,
    deposits: Vec<(SavedState, bool)>,
}

impl std::fmt::Debug for Handoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("Handoff")
            .field("kinds", &self.kinds)
            .field("released", &inner.released)
            .field("closed", &inner.closed)
            .field("deposits", &inner.deposits.len())
            .finish()
    }
}

impl Handoff {
    /// A hand-over of the states of the types `kinds` lists.
    pub fn new(kinds: StateKinds) -> Arc<Self> {
        Arc::new(Handoff { kinds, inner: Mutex::new(Inner::default()), changed: Condvar::new() })
    }

    /// The state types that move.
    pub fn kinds(&self) -> &StateKinds {
        &self.kinds
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The old run's loop has taken its last item: the new one may start.
    pub(crate) fn release(&self) {
        self.lock().released = true;
        self.changed.notify_all();
    }

    /// Whether the old run has stopped taking items.
    pub fn is_released(&self) -> bool {
        self.lock().released
    }

    /// Wait until the old run has stopped taking items.
    pub fn wait_released(&self) {
        let mut inner = self.lock();
        while !inner.released {
            inner = self.changed.wait(inner).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The old run's marker has passed every operator it will pass (or the
    /// old run ended): no more deposits come, and the source is free.
    pub fn close(&self) {
        let mut inner = self.lock();
        inner.closed = true;
        inner.released = true;
        drop(inner);
        self.changed.notify_all();
    }

    /// An operator of the old run saved `states` at the cut. Two of one
    /// type cannot be told apart by the new run: that is an error.
    pub(crate) fn deposit(&self, states: &[SavedState]) -> Result<(), String> {
        let mut inner = self.lock();
        for s in states {
            if let Some((other, _)) = inner.deposits.iter().find(|(d, _)| d.state == s.state) {
                return Err(format!(
                    "`{}` and `{}` both hold a `{}`: states move to the new version by type, so give them distinct types",
                    other.operator, s.operator, s.state
                ));
            }
        }
        inner.deposits.extend(states.iter().map(|s| (s.clone(), false)));
        drop(inner);
        self.changed.notify_all();
        Ok(())
    }

    /// The old state of type `name`, waiting until the old run has saved
    /// it, or `None` once it is closed without one. `Err` if another
    /// operator of the new run has taken it already.
    pub(crate) fn claim(&self, name: &str) -> Result<Option<String>, String> {
        let mut inner = self.lock();
        loop {
            if let Some((saved, taken)) = inner.deposits.iter_mut().find(|(d, _)| d.state == name) {
                if *taken {
                    return Err(format!(
                        "several operators of the new version hold a `{name}`; the old one went to one of them: give them distinct types"
                    ));
                }
                *taken = true;
                return Ok(Some(saved.json.clone()));
            }
            if inner.closed {
                return Ok(None);
            }
            inner = self.changed.wait(inner).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The states the old run saved that no operator of the new run took
    /// (it holds none of their type): they are lost with the old run.
    pub fn unclaimed(&self) -> Vec<SavedState> {
        self.lock().deposits.iter().filter(|(_, taken)| !taken).map(|(s, _)| s.clone()).collect()
    }

    /// Put the old states in place of the states of listed types that
    /// `visit` shows (an operator of the new run). Returns how many.
    pub(crate) fn take_over(&self, visit: VisitStates<'_>) -> Result<usize, String> {
        let (mut restored, mut failure) = (0, None);
        visit(&mut |mut s| {
            let Some(kind) = self.kinds.kind_of(&mut s) else { return };
            match self.claim(self.kinds.source(kind)).and_then(|json| match json {
                Some(json) => self.kinds.load_into(kind, &mut s, &json).map(|()| 1),
                None => Ok(0),
            }) {
                Ok(n) => restored += n,
                Err(e) => failure = failure.take().or(Some(e)),
            }
        });
        failure.map_or(Ok(restored), Err)
    }
}

/// The hand-over under loom: the old run deposits its state and releases
/// the source, then its marker completes (close); the new run waits for
/// the release and claims the state, and a second claimant of the same
/// type is refused. In every interleaving the new run starts only after the
/// release, gets the state, and nobody waits forever.
#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use crate::update::SavedState;

    fn saved() -> SavedState {
        SavedState { operator: "v1/total#3".into(), position: 0, state: "Total".into(), json: "41".into() }
    }

    #[test]
    fn the_new_run_starts_after_the_release_and_gets_the_old_state() {
        loom::model(|| {
            let h = Handoff::new(StateKinds::new());
            let started = Arc::new(crate::sync::AtomicBool::new(false));
            let old = {
                let (h, started) = (h.clone(), started.clone());
                loom::thread::spawn(move || {
                    h.deposit(&[saved()]).unwrap();
                    assert!(!started.load(crate::sync::Ordering::SeqCst), "the new loop started before the release");
                    h.release();
                    h.close();
                })
            };
            let second = {
                let h = h.clone();
                loom::thread::spawn(move || h.claim("Total"))
            };
            h.wait_released();
            started.store(true, crate::sync::Ordering::SeqCst);
            let first = h.claim("Total");
            old.join().unwrap();
            let second = second.join().unwrap();
            // One claimant got the state, the other was refused.
            let got: Vec<_> = [first, second].into_iter().collect();
            assert_eq!(got.iter().filter(|r| matches!(r, Ok(Some(j)) if j == "41")).count(), 1, "{got:?}");
            assert_eq!(got.iter().filter(|r| r.is_err()).count(), 1, "{got:?}");
        });
    }
}
