//! Operator states that an update transforms in place (`old -> Result<new, E>`).
//!
//! An operator of a loop holds the states its statement uses (its sticky
//! values, `node/sticky.rs`). An update may carry a [`Transform`] for a state
//! type: every operator the marker passes that holds a value of that type
//! replaces it by the transform's result, at the cut, before it fires on the
//! first iteration after it. If the transform fails or panics, that operator
//! keeps its old state *and* its old functions (it adopts nothing of the
//! update) and the update reports the error.
//!
//! Operators hold values of any type, also ones that borrow (`&[u64]`), so
//! a value is identified by its `TypeId` with lifetimes erased (the `typeid`
//! crate). That identifies it exactly only for types without lifetime
//! parameters; [`State`] is the promise that a type has none, and only its
//! implementors can be transformed.

use std::any::{Any, TypeId};
use std::fmt::Display;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Arc;

use super::named::in_section_thread;
use super::slot::{addressed_to, describe_at};
use crate::util::panic_message;

/// A type whose values an update can transform while operators hold them.
/// `#[ohua::updatable]` on an inherent `impl` block implements it.
///
/// # Safety
///
/// Implement it only for types without lifetime parameters (not `&'static
/// str`, not `Foo<'static>`, not `Box<dyn Trait>`, whose trait object has an
/// implied lifetime; wrap those in a struct). The runtime finds an operator's
/// state of this type by comparing `TypeId`s with lifetimes erased and casts
/// it to `Self`, which is only sound if no other type erases to `Self`.
///
/// # Example
///
/// ```
/// struct Counter(u64);
/// // SAFETY: no lifetime parameters.
/// unsafe impl ohua_runtime::update::State for Counter {}
/// ```
pub unsafe trait State: Send + 'static {}

// SAFETY: a `Snapshot<T>` holds `T`s (behind `Arc`s) and counters: it has
// lifetime parameters only where `T` has, and `T: State` promises none.
// `Sync`: readers on other threads share the `T`s, so `Snapshot<T>` is
// `Send` only then. A checkpoint saves the live state (`snapshot/mod.rs`).
unsafe impl<T: State + Sync> State for crate::snapshot::Snapshot<T> {}

/// One value an operator holds, type-erased for a [`Transform`].
pub struct StateRef<'a> {
    id: TypeId,
    value: NonNull<()>,
    _borrow: PhantomData<&'a mut ()>,
}

impl<'a> StateRef<'a> {
    /// The value `v` (of any type: most are not states).
    pub(crate) fn of<T>(v: &'a mut T) -> Self {
        StateRef { id: typeid::of::<T>(), value: NonNull::from(v).cast(), _borrow: PhantomData }
    }

    /// The value as an `S`, if it is one.
    pub(crate) fn downcast<S: State>(&mut self) -> Option<&mut S> {
        // SAFETY: the ids are equal, so the value's type is `S` up to
        // lifetimes, and `S` has none (`State`'s contract): it is an `S`.
        // The pointer came from a `&'a mut` that this borrows.
        (self.id == TypeId::of::<S>()).then(|| unsafe { self.value.cast::<S>().as_mut() })
    }
}

/// Calls its argument on every state an operator holds across a marker
/// (`StickySet::visit_states`), in the same order each time.
pub(crate) type VisitStates<'s> = &'s mut dyn FnMut(&mut dyn FnMut(StateRef<'_>));

type Compute = dyn Fn(&mut StateRef<'_>) -> Option<Result<Box<dyn Any + Send>, String>> + Send + Sync;

/// A new value for every operator state of one type, computed from the old
/// one (see the module docs).
///
/// # Example
///
/// ```
/// use ohua_runtime::update::{State, Transform};
/// struct Counter(u64);
/// unsafe impl State for Counter {} // SAFETY: no lifetime parameters.
/// let t = Transform::new(|old: &Counter| if old.0 < 100 { Ok(Counter(old.0 * 10)) } else { Err("too big") })
///     .at("server/count#4");
/// assert!(t.state().ends_with("Counter"));
/// assert!(t.applies_to("server/count#4") && !t.applies_to("server/count#7"));
/// ```
#[derive(Clone)]
pub struct Transform {
    state: &'static str,
    compute: Arc<Compute>,
    commit: fn(&mut StateRef<'_>, Box<dyn Any + Send>),
    at: Option<String>,
}

impl std::fmt::Debug for Transform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Transform({})", self.describe())
    }
}

impl Transform {
    /// Transform every state of type `S` with `f`. The old value stays in
    /// place until `f` has returned `Ok`, so a failing (`Err`) or panicking
    /// transform leaves the operator on its old state.
    pub fn new<S: State, E: Display>(f: impl Fn(&S) -> Result<S, E> + Send + Sync + 'static) -> Self {
        let compute = move |s: &mut StateRef<'_>| {
            let old = s.downcast::<S>()?;
            // On a thread named as the operator's section: a panic says where.
            // (`&mut S` may move there: `S: Send`; this thread waits meanwhile.)
            let f = &f;
            Some(in_section_thread(move || match catch_unwind(AssertUnwindSafe(|| f(&*old))) {
                Ok(Ok(new)) => Ok(Box::new(new) as Box<dyn Any + Send>),
                Ok(Err(e)) => Err(e.to_string()),
                Err(payload) => Err(format!("the transform panicked: {}", panic_message(&*payload))),
            }))
        };
        Transform { state: std::any::type_name::<S>(), compute: Arc::new(compute), commit: commit::<S>, at: None }
    }

    /// Only at the operator named `operator` (`algorithm/function#callsite`).
    pub fn at(mut self, operator: impl Into<String>) -> Self {
        self.at = Some(operator.into());
        self
    }

    /// The state type's name.
    pub fn state(&self) -> &'static str {
        self.state
    }

    /// Whether the operator named `operator` applies this transform.
    pub fn applies_to(&self, operator: &str) -> bool {
        addressed_to(&self.at, operator)
    }

    /// `State` or `State at operator`, for reports.
    pub fn describe(&self) -> String {
        describe_at(self.state, &self.at)
    }

    /// The new value for `s`, if `s` is a state of this transform's type.
    pub(crate) fn compute(&self, s: &mut StateRef<'_>) -> Option<Result<Box<dyn Any + Send>, String>> {
        (self.compute)(s)
    }

    /// Put `new` (from [`Transform::compute`] on the same value) in place.
    pub(crate) fn commit(&self, s: &mut StateRef<'_>, new: Box<dyn Any + Send>) {
        (self.commit)(s, new)
    }
}

fn commit<S: State>(s: &mut StateRef<'_>, new: Box<dyn Any + Send>) {
    let (Some(slot), Ok(new)) = (s.downcast::<S>(), new.downcast::<S>()) else {
        unreachable!("ohua internal error: a transform's result committed to another state");
    };
    *slot = *new;
}

/// A loop-carried tuple whose parts an update may transform or a checkpoint
/// save: the values a `carry` holds between two iterations are the states
/// the loop body threads from statement to statement (`node/carry.rs`).
/// Implemented for tuples of up to 12 parts; generated code uses it.
#[doc(hidden)]
pub trait Parts {
    /// Call `f` on every part, in order.
    fn visit_parts(&mut self, f: &mut dyn FnMut(StateRef<'_>));
}

macro_rules! parts {
    ($($t:ident $i:tt),+) => {
        impl<$($t),+> Parts for ($($t,)+) {
            fn visit_parts(&mut self, f: &mut dyn FnMut(StateRef<'_>)) {
                $( f(StateRef::of(&mut self.$i)); )+
            }
        }
    };
}
parts!(A 0);
parts!(A 0, B 1);
parts!(A 0, B 1, C 2);
parts!(A 0, B 1, C 2, D 3);
parts!(A 0, B 1, C 2, D 3, E 4);
parts!(A 0, B 1, C 2, D 3, E 4, F 5);
parts!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
parts!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
parts!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
parts!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
parts!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
parts!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter(u64);
    // SAFETY: no lifetime parameters.
    unsafe impl State for Counter {}

    fn run(t: &Transform, v: &mut Counter) -> Option<Result<(), String>> {
        let mut s = StateRef::of(v);
        let new = t.compute(&mut s)?;
        Some(new.map(|new| t.commit(&mut s, new)))
    }

    #[test]
    fn a_transform_replaces_a_state_of_its_type_and_ignores_other_values() {
        let t = Transform::new(|c: &Counter| Ok::<_, String>(Counter(c.0 + 1)));
        let mut c = Counter(41);
        assert_eq!(run(&t, &mut c), Some(Ok(())));
        assert_eq!(c.0, 42);
        let mut other = 7u64;
        assert!(t.compute(&mut StateRef::of(&mut other)).is_none());
        let text = String::from("x");
        let mut borrowed: &str = &text;
        assert!(t.compute(&mut StateRef::of(&mut borrowed)).is_none());
    }

    #[test]
    fn a_failing_or_panicking_transform_leaves_the_old_value() {
        let failing = Transform::new(|_: &Counter| Err::<Counter, _>("no room"));
        let mut c = Counter(1);
        assert_eq!(run(&failing, &mut c), Some(Err("no room".to_string())));
        let panicking = Transform::new(|c: &Counter| -> Result<Counter, String> { panic!("bad state {}", c.0) });
        let result = run(&panicking, &mut c).expect("a counter");
        assert_eq!(result, Err("the transform panicked: bad state 1".to_string()));
        assert_eq!(c.0, 1);
    }
}
