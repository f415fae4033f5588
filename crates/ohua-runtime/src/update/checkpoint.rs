//! Checkpoints: a consistent snapshot of the states a service's operators
//! hold, taken by a marker without stopping, and restored by another.
//!
//! A checkpoint marker passes every operator at one cut, like an update;
//! each operator saves the states it holds across the cut (the values a
//! transform would see, `state.rs`) whose types are listed in the
//! [`StateKinds`], as JSON. The loop entries record how many items they had
//! taken before the cut ([`super::MarkReport::cut`]). A service started
//! from the checkpoint gets a restore marker before its first item: every
//! operator replaces the states it holds by the saved ones (by operator name
//! and position). Feeding it the items after the cut then gives what the
//! uninterrupted service gave for them.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::named::in_section_thread;
use super::state::{State, StateRef, VisitStates};
use crate::util::panic_message;

/// One saved state: where it was, its type, and its value as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedState {
    /// The operator that held it (`algorithm/function#callsite`).
    pub operator: String,
    /// Its position among the states that operator holds across a cut.
    pub position: usize,
    /// Its type's name.
    pub state: String,
    /// Its value, as JSON text.
    pub json: String,
}

/// A consistent snapshot of a service: what its loops had taken before the
/// cut, and the states its operators held there. Serializable, to store it.
///
/// # Example
///
/// ```
/// use ohua_runtime::update::Checkpoint;
/// let c = Checkpoint { cut: vec![(3, 120)], states: vec![] };
/// let text = serde_json::to_string(&c).unwrap();
/// assert_eq!(serde_json::from_str::<Checkpoint>(&text).unwrap(), c);
/// assert_eq!(c.items_before(), 120);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Per top-level loop entry (node id): the items it had taken.
    pub cut: Vec<(usize, u64)>,
    /// The saved states, ordered by operator and position.
    pub states: Vec<SavedState>,
}

impl Checkpoint {
    /// The items the service's first loop had taken before the cut: where
    /// to resume its input.
    pub fn items_before(&self) -> u64 {
        self.cut.first().map_or(0, |c| c.1)
    }
}

/// How to save and load one state type.
#[derive(Clone)]
struct Kind {
    name: &'static str,
    save: fn(&mut StateRef<'_>) -> Option<Result<String, String>>,
    load: fn(&str) -> Result<Box<dyn Any + Send>, String>,
    put: fn(&mut StateRef<'_>, Box<dyn Any + Send>) -> bool,
    holds: fn(&mut StateRef<'_>) -> bool,
    /// A state of this type takes over the old version's state of another
    /// type (its name), converted (`StateKinds::converted`).
    from: Option<(&'static str, Convert)>,
}

/// Loads a saved state of one type as a value of another.
type Convert = Arc<dyn Fn(&str) -> Result<Box<dyn Any + Send>, String> + Send + Sync>;

/// The state types a checkpoint saves (and a restore loads): types with an
/// `#[ohua::updatable]` impl block that implement `serde`'s traits.
///
/// # Example
///
/// ```
/// use ohua_runtime::update::{State, StateKinds};
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Counter(u64);
/// unsafe impl State for Counter {} // SAFETY: no lifetime parameters.
/// let kinds = StateKinds::new().with::<Counter>();
/// assert_eq!(kinds.names().len(), 1);
/// ```
#[derive(Clone, Default)]
pub struct StateKinds {
    kinds: Vec<Kind>,
}

impl std::fmt::Debug for StateKinds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl StateKinds {
    /// No state type yet.
    pub fn new() -> Self {
        StateKinds::default()
    }

    /// Also save and restore states of type `S`.
    pub fn with<S: State + Serialize + DeserializeOwned>(mut self) -> Self {
        self.kinds.push(Kind {
            name: std::any::type_name::<S>(),
            save: save::<S>,
            load: load::<S>,
            put: put::<S>,
            holds: holds::<S>,
            from: None,
        });
        self
    }

    /// For `ohua::Service::replace`:
    /// the old version's state of type `A` moves to the new version's
    /// operator holding a `B`, converted by `f` (the state's type changes
    /// with the algorithm). `A` is saved by the old version as with
    /// [`StateKinds::with`]; if `f` fails or panics, the new operator keeps
    /// its own `B` and the replacement reports the error.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_runtime::update::{State, StateKinds};
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// struct Count(u64);
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// struct Stats { count: u64, bytes: u64 }
    /// unsafe impl State for Count {} // SAFETY: no lifetime parameters.
    /// unsafe impl State for Stats {} // SAFETY: no lifetime parameters.
    /// let kinds = StateKinds::new().converted(|old: Count| Ok::<_, String>(Stats { count: old.0, bytes: 0 }));
    /// assert_eq!(kinds.names().len(), 2);
    /// ```
    pub fn converted<A, B, E>(mut self, f: impl Fn(A) -> Result<B, E> + Send + Sync + 'static) -> Self
    where
        A: State + Serialize + DeserializeOwned,
        B: State + Serialize + DeserializeOwned,
        E: std::fmt::Display,
    {
        let from = std::any::type_name::<A>();
        if !self.kinds.iter().any(|k| k.name == from && k.from.is_none()) {
            self = self.with::<A>();
        }
        let convert: Convert = Arc::new(move |json: &str| {
            let old = serde_json::from_str::<A>(json).map_err(|e| format!("cannot load a `{from}`: {e}"))?;
            // On a thread named as the operator's section (`named.rs`).
            in_section_thread(|| match catch_unwind(AssertUnwindSafe(|| f(old))) {
                Ok(Ok(new)) => Ok(Box::new(new) as Box<dyn Any + Send>),
                Ok(Err(e)) => Err(e.to_string()),
                Err(payload) => Err(format!("the conversion panicked: {}", panic_message(payload.as_ref()))),
            })
        });
        let mut kinds = self.with::<B>();
        if let Some(k) = kinds.kinds.last_mut() {
            k.from = Some((from, convert));
        }
        kinds
    }

    /// The types' names.
    pub fn names(&self) -> Vec<&'static str> {
        self.kinds.iter().map(|k| k.name).collect()
    }

    /// Save the states of the listed types among those `visit` shows
    /// (`operator` names them).
    pub(crate) fn save_all(&self, operator: &str, visit: VisitStates<'_>) -> Result<Vec<SavedState>, String> {
        let (mut saved, mut failure, mut position) = (Vec::new(), None, 0);
        visit(&mut |mut s| {
            for kind in &self.kinds {
                match (kind.save)(&mut s) {
                    None => continue,
                    Some(Ok(json)) => saved.push(SavedState {
                        operator: operator.to_string(),
                        position,
                        state: kind.name.to_string(),
                        json,
                    }),
                    Some(Err(e)) => failure = failure.take().or(Some(e)),
                }
                break;
            }
            position += 1;
        });
        failure.map_or(Ok(saved), Err)
    }

    /// Which listed type `s` is, if any.
    pub(crate) fn kind_of(&self, s: &mut StateRef<'_>) -> Option<usize> {
        self.kinds.iter().position(|k| (k.holds)(s))
    }

    /// The name of the type whose saved state listed type `kind` takes
    /// over: its own, or the one it converts from.
    pub(crate) fn source(&self, kind: usize) -> &'static str {
        let k = &self.kinds[kind];
        k.from.as_ref().map_or(k.name, |(from, _)| from)
    }

    /// Load `json` (saved as [`StateKinds::source`]) as listed type `kind`
    /// and put it in place of `s`.
    pub(crate) fn load_into(&self, kind: usize, s: &mut StateRef<'_>, json: &str) -> Result<(), String> {
        let k = &self.kinds[kind];
        let value = match &k.from {
            Some((_, convert)) => convert(json)?,
            None => (k.load)(json)?,
        };
        if (k.put)(s, value) {
            Ok(())
        } else {
            Err(format!("cannot put a `{}` in place", k.name))
        }
    }

    /// Put the states `checkpoint` saved for `operator` in place of the
    /// ones `visit` shows; all or nothing. Returns how many.
    pub(crate) fn restore_all(
        &self,
        checkpoint: &Checkpoint,
        operator: &str,
        visit: VisitStates<'_>,
    ) -> Result<usize, String> {
        let mut loaded = Vec::new();
        for saved in checkpoint.states.iter().filter(|s| s.operator == operator) {
            let kind = self.kinds.iter().find(|k| k.name == saved.state).ok_or_else(|| {
                format!("the checkpoint holds a `{}` but the restore does not list that type", saved.state)
            })?;
            loaded.push((saved.position, kind, (kind.load)(&saved.json)?));
        }
        let expected = loaded.len();
        let mut loaded = loaded.into_iter().map(Some).collect::<Vec<_>>();
        let (mut restored, mut position) = (0, 0);
        visit(&mut |mut s| {
            for entry in loaded.iter_mut() {
                if entry.as_ref().is_some_and(|(p, _, _)| *p == position) {
                    let (_, kind, value) = entry.take().expect("checked");
                    restored += usize::from((kind.put)(&mut s, value));
                }
            }
            position += 1;
        });
        if restored < expected {
            return Err(format!("{operator} holds {restored} of the {expected} states its checkpoint saved"));
        }
        Ok(restored)
    }
}

fn save<S: State + Serialize>(s: &mut StateRef<'_>) -> Option<Result<String, String>> {
    let value = s.downcast::<S>()?;
    Some(serde_json::to_string(value).map_err(|e| format!("cannot save a `{}`: {e}", std::any::type_name::<S>())))
}

fn load<S: State + DeserializeOwned>(json: &str) -> Result<Box<dyn Any + Send>, String> {
    serde_json::from_str::<S>(json)
        .map(|v| Box::new(v) as Box<dyn Any + Send>)
        .map_err(|e| format!("cannot load a `{}`: {e}", std::any::type_name::<S>()))
}

fn holds<S: State>(s: &mut StateRef<'_>) -> bool {
    s.downcast::<S>().is_some()
}

fn put<S: State>(s: &mut StateRef<'_>, value: Box<dyn Any + Send>) -> bool {
    match (s.downcast::<S>(), value.downcast::<S>()) {
        (Some(slot), Ok(v)) => {
            *slot = *v;
            true
        }
        _ => false,
    }
}
